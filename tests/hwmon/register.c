/* hwmon's test program: the suites of test_procfs.c and test_hwmon.c. */
#include "testutil.h"

void add_procfs_suite(void);
void add_hwmon_suites(void);

void cu_register_all(void)
{
    add_procfs_suite();
    add_hwmon_suites();
}
