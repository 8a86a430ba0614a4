/* The CUnit runner every test program shares: `prog [-s SUITE [-t TEST]] [-l] [-L]`; -l lists
 * "SUITE TIMEOUT" lines, which CTest's test list is made of (tests/discover.cmake); -L lists
 * "SUITE TEST" lines (of -s SUITE only, when given), for timing tests one by one
 * (tests/bench/test_wall.sh -t).
 * Each test program defines cu_register_all() to add its suites. Exit status: 0 all passed,
 * 1 a test failed, 64 bad usage, 70 CUnit itself failed (Cyclone DDS's runner), TH_SKIP_STATUS (77)
 * when nothing failed but a test could not run here (th_skip). */
#include <CUnit/Basic.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* The suites' time limits, by registration order (a test program has a few dozen at most). */
struct suite_timeout {
    const char *name;
    int timeout_s;
};
static struct suite_timeout timeouts[128];
static size_t ntimeouts;

struct CU_Suite *th_add_suite(const char *name, int (*init)(void), int (*clean)(void),
                              int timeout_s)
{
    if (ntimeouts < sizeof timeouts / sizeof timeouts[0])
        timeouts[ntimeouts++] = (struct suite_timeout){name, timeout_s};
    return CU_add_suite(name, init, clean);
}

static int timeout_of(const char *name)
{
    for (size_t i = 0; i < ntimeouts; i++)
        if (!strcmp(timeouts[i].name, name))
            return timeouts[i].timeout_s;
    return 60;
}

int main(int argc, char **argv)
{
    const char *suite_name = NULL, *test_name = NULL;
    bool list = false, list_tests = false;
    int c;
    while ((c = getopt(argc, argv, "s:t:lL")) != -1) {
        switch (c) {
        case 's': suite_name = optarg; break;
        case 't': test_name = optarg; break;
        case 'l': list = true; break;
        case 'L': list_tests = true; break;
        default:
            fprintf(stderr, "usage: %s [-s SUITE [-t TEST]] [-l] [-L]\n", argv[0]);
            return 64;
        }
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 70;
    cu_register_all();
    if (CU_get_error() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 70;
    }
    if (list) {
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
            printf("%s %d\n", s->pName, timeout_of(s->pName));
        CU_cleanup_registry();
        return 0;
    }
    if (list_tests) {
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
            if (!suite_name || !strcmp(s->pName, suite_name))
                for (CU_pTest t = s->pTest; t; t = t->pNext)
                    printf("%s %s\n", s->pName, t->pName);
        CU_cleanup_registry();
        return 0;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (suite_name) {
        CU_pSuite s = CU_get_suite(suite_name);
        if (!s) {
            fprintf(stderr, "no suite '%s'\n", suite_name);
            CU_cleanup_registry();
            return 64;
        }
        if (test_name) {
            CU_pTest t = CU_get_test(s, test_name);
            if (!t) {
                fprintf(stderr, "no test '%s' in suite '%s'\n", test_name, suite_name);
                CU_cleanup_registry();
                return 64;
            }
            CU_basic_run_test(s, t);
        } else {
            CU_basic_run_suite(s);
        }
    } else {
        CU_basic_run_tests();
    }
    /* Read the counts before the registry is cleaned up (which resets them). */
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (ran == 0) {
        fprintf(stderr, "no test ran\n");
        return 1;
    }
    if (failed)
        return 1;
    return th_skipped() ? TH_SKIP_STATUS : 0;
}
