/* Output every consumer can read, with the user's permissions.
 *
 *   umask: under `umask 077` every file the tools create is private, including those replaced by
 *          rename (summary.json, summarize -o and --html, the Prometheus file); a file that is
 *          replaced keeps the mode its owner gave it. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hostile.h"
#include "testutil.h"

static mode_t mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void expect_mode(const char *path, mode_t want)
{
    mode_t got = mode_of(path);
    if (got != want)
        fprintf(stderr, "%s: mode %04o, want %04o\n", path, (unsigned)got, (unsigned)want);
    CU_ASSERT_EQUAL(got, want);
}

/* One hwmon run and every summarize output, all under umask 077: nothing readable by others. */
static void test_umask_private(void)
{
    const char *hwmon = th_env("HWRUN_HWMON_BIN"), *smi = th_env("HWRUN_FAKE_SMI");
    const char *sum = th_env("HWRUN_SUMMARIZE_BIN");
    char *root = th_tmpdir("umask");
    char *run = th_fmt("%s/run", root), *prom = th_fmt("%s/node.prom", root);
    char *out = th_fmt("%s/summary-copy.json", root), *html = th_fmt("%s/report.html", root);
    mode_t old = umask(077);
    char *hw[] = {(char *)hwmon, "-q", "--nvidia-smi", (char *)smi, "-i", "0.1",
                  "--prom-textfile", prom, "--prom-interval", "1", "-o", run, "--",
                  "sleep", "1.2", NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(hw, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *w[] = {(char *)sum, "--write", "-o", out, "--html", html, run, NULL};
    CU_ASSERT_FATAL(th_run(w, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    umask(old);

    expect_mode(prom, 0600);
    expect_mode(out, 0600);
    expect_mode(html, 0600);
    for (int i = 0; i < HW_FILE_COUNT; i++) {
        char *p = th_fmt("%s/%s", run, hw_file_names[i]);
        if (mode_of(p) != (mode_t)-1)
            expect_mode(p, 0600);
        free(p);
    }
    char *summary = th_fmt("%s/%s", run, HW_SUMMARY_FILE);
    expect_mode(summary, 0600);

    /* a replaced file keeps its owner's chmod, whatever the umask of the run that replaces it */
    CU_ASSERT_FATAL(chmod(summary, 0640) == 0);
    CU_ASSERT_FATAL(chmod(out, 0664) == 0);
    old = umask(022);
    CU_ASSERT_FATAL(th_run(w, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    umask(old);
    expect_mode(summary, 0640);
    expect_mode(out, 0664);
    expect_mode(html, 0600);

    free(summary);
    th_rmtree(root);
    free(root);
    free(run);
    free(prom);
    free(out);
    free(html);
}

void hostile_register_output(void)
{
    CU_pSuite s = CU_add_suite("output", NULL, NULL);
    CU_add_test(s, "umask", test_umask_private);
}
