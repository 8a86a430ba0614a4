/* Right at the edges of a run and of its phases (issue 23): what a job does in its last
 * moments is counted, and a phase's CPU comes from what happened inside it, not from the
 * interval it shares with its neighbour. End to end: the built hwmon wraps a job, summarize's
 * library reads the directory. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwtest.h"
#include "summary.h"

static struct sum_run *summarize(const char *dir)
{
    struct sum_run *run = sum_run_new();
    char *storage[SUM_KIND_COUNT] = {0};
    struct sum_inputs in;
    sum_inputs_from_dir(&in, dir, storage);
    struct sum_config cfg = {0};
    CU_ASSERT_EQUAL(sum_run_summarize(run, &in, &cfg), 0);
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        free(storage[k]);
    return run;
}

/* 80 MiB written and fsync'd in the last half second of a 2.5 s job at -i 1: the sample
 * taken when the job has exited counts them (before, the interval the stop cut short was
 * lost, and the run said 0 MiB). */
static void test_last_interval_counted(void)
{
    char *dir = th_tmpdir("edges-last");
    char *script = th_fmt("sleep 2; dd if=/dev/zero of=%s/blob bs=1M count=80 conv=fsync "
                          "status=none", dir);
    char **argv = ht_argv(dir, "--no-gpu", "-i", "1", "--", "/bin/sh", "-c", script, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
    struct sum_run *run = summarize(dir);
    double written = sum_system_mib(&run->sys, SUM_IO_DISK_WRITE);
    if (!(written >= 79))
        fprintf(stderr, "disk written over the run: %.1f MiB\n", written);
    CU_ASSERT(written >= 79);
    sum_run_free(run);
    free(argv);
    free(script);
    th_rmtree(dir);
    free(dir);
}

void add_edges_suite(void);
void add_edges_suite(void)
{
    CU_pSuite s = CU_add_suite("edges", NULL, NULL);
    CU_add_test(s, "last_interval_counted", test_last_interval_counted);
}
