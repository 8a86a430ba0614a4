/* The runlog test program's suites. */
#include "testutil.h"

void add_runlog_suites(void);
void add_runlog_cli_suites(void);
void add_parse_suite(void);
void add_jsonw_suites(void);
void add_rotation_suite(void);
void add_locale_suite(void);

void cu_register_all(void)
{
    add_runlog_suites();
    add_runlog_cli_suites();
    add_parse_suite();
    add_jsonw_suites();
    add_rotation_suite();
    add_locale_suite();
}
