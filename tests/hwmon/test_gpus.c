/* GPU selection: --gpus LIST, else CUDA_VISIBLE_DEVICES, else every GPU. Every nvidia-smi child
 * gets -i; the start event says which GPUs and why; an id that names no GPU (the fake, like
 * nvidia-smi, prints "No devices were found" and exits 6) stops hwmon before the command runs. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpusel.h"
#include "hwrun/rundir.h"
#include "hwtest.h"

static void test_resolve(void)
{
    struct mon_gpusel s;
    CU_ASSERT_EQUAL(mon_gpusel_resolve(NULL, NULL, &s), 0);
    CU_ASSERT_PTR_NULL(s.ids);
    CU_ASSERT_STRING_EQUAL(s.source, "default");
    CU_ASSERT_EQUAL(mon_gpusel_resolve(NULL, "GPU-aa,MIG-bb", &s), 0);
    CU_ASSERT_STRING_EQUAL(s.ids, "GPU-aa,MIG-bb");
    CU_ASSERT_STRING_EQUAL(s.source, "CUDA_VISIBLE_DEVICES");
    CU_ASSERT_EQUAL(mon_gpusel_resolve("all", "3", &s), 0); /* the option wins */
    CU_ASSERT_PTR_NULL(s.ids);
    CU_ASSERT_STRING_EQUAL(s.source, "option");
    CU_ASSERT_EQUAL(mon_gpusel_resolve(NULL, "", &s), 0); /* CUDA: no device at all */
    CU_ASSERT_TRUE(s.none);
    CU_ASSERT_EQUAL(mon_gpusel_resolve("0,,1", NULL, &s), -EINVAL);
    CU_ASSERT_EQUAL(mon_gpusel_resolve(NULL, "1,", &s), -EINVAL);
    char *av[4];
    int n = 0;
    mon_gpusel_resolve("1", NULL, &s);
    mon_gpusel_args(&s, av, &n);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_STRING_EQUAL(av[0], "-i");
    CU_ASSERT_STRING_EQUAL(av[1], "1");
}

/* hwmon --gpu-procs around a job that lasts until hw_metrics.csv holds 3 rows (every GPU of the
 * fake's 3 once, or one GPU three times; a loaded TSan hwmon's children started after a 1.2 s
 * job had ended) or hwmon said no GPU is measured, and 0.1 s more (the children start together:
 * the apps query's log line with the sampler's first rows); with rows_expected false (a job that
 * selected none), until two CPU rows (hwmon is in its loop: any child would have started before
 * it); with extra options/environment; returns its status. */
static bool rows_expected = true;
static int run_sel_env(const char *dir, const char *log, const char *opt, const char *cuda,
                       const char *extra, struct th_result *res)
{
    char *e_log = th_fmt("FAKE_SMI_LOG=%s", log);
    char *e_cuda = cuda ? th_fmt("CUDA_VISIBLE_DEVICES=%s", cuda) : NULL;
    char *env[] = {"FAKE_SMI_GPUS=3", "FAKE_SMI_APPS=4242:2:100", e_log,
                   e_cuda ? e_cuda : (char *)extra, e_cuda ? (char *)extra : NULL, NULL};
    char *job = rows_expected
                    ? th_fmt("touch \"$HWMON_DIR/ran\"; timeout 60 sh -c 'f=\"$HWMON_DIR/%s\"; "
                             "until [ \"$(cat \"$f\" 2>/dev/null | wc -l)\" -ge 3 ] || "
                             "grep -q \"event[^a-z]*%s\" \"$RUNLOG_FILE\"; do sleep 0.05; "
                             "done'; sleep 0.1",
                             HW_GPU_FILE, HW_EV_GPU_UNAVAILABLE)
                    : th_fmt("touch \"$HWMON_DIR/ran\"; timeout 60 sh -c 'f=\"$HWMON_DIR/%s\"; "
                             "until [ \"$(cat \"$f\" 2>/dev/null | wc -l)\" -ge 3 ]; do "
                             "sleep 0.05; done'",
                             HW_CPU_FILE);
    char **argv = opt ? ht_argv(dir, "-i", "0.1", "--gpu-procs", "--gpus", opt, "--", "/bin/sh",
                                "-c", job, NULL)
                      : ht_argv(dir, "-i", "0.1", "--gpu-procs", "--", "/bin/sh", "-c", job, NULL);
    int st = ht_run(argv, env, 120, res);
    free(argv);
    free(job);
    free(e_log);
    free(e_cuda);
    return st;
}

static int run_sel(const char *dir, const char *log, const char *opt, const char *cuda,
                   struct th_result *res)
{
    return run_sel_env(dir, log, opt, cuda, NULL, res);
}

/* The GPU indexes in hw_metrics.csv (index is the next-to-last column): a bit mask. */
static unsigned gpus_in_file(const char *dir)
{
    /* the index column's place in the default list (not "next to last": a field may follow) */
    int col = 0;
    const char *at = strstr(hw_gpu_fields_default(), ",index,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    for (const char *q = hw_gpu_fields_default(); q <= at; q++)
        col += *q == ',';
    char *p = th_fmt("%s/hw_metrics.csv", dir);
    char *text = th_read_file(p, NULL);
    free(p);
    unsigned mask = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *cell = line;
        for (int k = 0; k < col && cell; k++)
            cell = strchr(cell, ',') ? strchr(cell, ',') + 1 : NULL;
        if (cell)
            mask |= 1u << (atoi(cell) & 31);
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return mask;
}

static void test_option_and_env(void)
{
    char *dir = th_tmpdir("hwmon-gpus");
    char *log = th_fmt("%s/smi.log", dir);
    char *d1 = th_fmt("%s/opt", dir), *d2 = th_fmt("%s/cuda", dir), *d3 = th_fmt("%s/all", dir);
    struct th_result r;
    /* --gpus 2 beats CUDA_VISIBLE_DEVICES */
    CU_ASSERT_EQUAL(run_sel(d1, log, "2", "0", &r), 0);
    th_result_free(&r);
    CU_ASSERT_EQUAL(gpus_in_file(d1), 1u << 2);
    json_object *ev = ht_event(d1, "start", 0);
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "gpus_selected"), "2");
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "gpus_source"), "option");
    json_object *idx = ht_data(ev, "gpu_indexes");
    CU_ASSERT(idx && json_object_array_length(idx) == 1 &&
              json_object_get_int(json_object_array_get_idx(idx, 0)) == 2);
    json_object_put(ev);
    /* every long-running child (query, apps, dmon, gpm) was started with -i 2 */
    CU_ASSERT(ht_smi_starts(log, "--query-gpu=timestamp") >= 1);
    CU_ASSERT(ht_smi_starts(log, "--query-compute-apps") >= 1);
    CU_ASSERT_EQUAL(ht_smi_starts(log, " -lms 200 -i 2"), ht_smi_starts(log, " -lms 200"));
    CU_ASSERT_EQUAL(ht_smi_starts(log, "dmon -s um -d 1 -i 2"), ht_smi_starts(log, "dmon -s um"));
    CU_ASSERT_EQUAL(ht_smi_starts(log, "-o DT -d 1 -i 2"), ht_smi_starts(log, "-o DT"));
    unlink(log);
    /* CUDA_VISIBLE_DEVICES by UUID (the fake's GPU 1) */
    CU_ASSERT_EQUAL(run_sel(d2, log, NULL, "GPU-5e7c1d01-3a9b-4f2e-8d61-0c4b2a9f7001", &r), 0);
    th_result_free(&r);
    CU_ASSERT_EQUAL(gpus_in_file(d2), 1u << 1);
    ev = ht_event(d2, "start", 0);
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "gpus_source"), "CUDA_VISIBLE_DEVICES");
    json_object_put(ev);
    unlink(log);
    /* neither: every GPU, no -i */
    CU_ASSERT_EQUAL(run_sel(d3, log, NULL, NULL, &r), 0);
    th_result_free(&r);
    CU_ASSERT_EQUAL(gpus_in_file(d3), 7u);
    CU_ASSERT_EQUAL(ht_smi_starts(log, " -i "), 0);
    ev = ht_event(d3, "start", 0);
    /* PSS is on by default, on a CPU budget (not asked for with --pss here) */
    json_object *pb = ht_data(ev, "pss_budget");
    CU_ASSERT(pb && json_object_get_double(pb) > 0);
    char *pp = th_fmt("%s/proc_metrics.csv", d3);
    char *ptext = th_read_file(pp, NULL);
    CU_ASSERT(ptext && strstr(ptext, ",pss_mib,"));
    free(ptext);
    free(pp);
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "gpus_selected"), "all");
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "gpus_source"), "default");
    json_object_put(ev);
    free(d1);
    free(d2);
    free(d3);
    free(log);
    th_rmtree(dir);
    free(dir);
}

/* An id the user typed (--gpus) that names no GPU: exit 125 with the reason, before the
 * command starts. The job's own CUDA_VISIBLE_DEVICES naming GPUs this node lacks is not the
 * user's mistake: the job runs, those GPUs are unmeasured, and an event says which. */
static void test_unknown_id(void)
{
    char *dir = th_tmpdir("hwmon-gpus-bad");
    char *log = th_fmt("%s/smi.log", dir);
    char *d1 = th_fmt("%s/opt", dir), *d2 = th_fmt("%s/cuda", dir), *d3 = th_fmt("%s/part", dir);
    char *d4 = th_fmt("%s/nolist", dir);
    struct th_result r;
    CU_ASSERT_EQUAL(run_sel(d1, log, "0,7", NULL, &r), 125); /* (the job never runs) */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--gpus=\"0,7\" names no GPU"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "No devices were found"));
    th_result_free(&r);
    char *ran = th_fmt("%s/ran", d1);
    CU_ASSERT_NOT_EQUAL(access(ran, F_OK), 0);
    free(ran);
    /* none of the job's GPUs is here: it runs, nothing is measured of the GPUs */
    CU_ASSERT_EQUAL(run_sel(d2, log, NULL, "GPU-nonexistent", &r), 0);
    th_result_free(&r);
    ran = th_fmt("%s/ran", d2);
    CU_ASSERT_EQUAL(access(ran, F_OK), 0);
    free(ran);
    CU_ASSERT_EQUAL(ht_smi_starts(log, "--query-gpu=timestamp"), 0); /* no child started */
    json_object *ev = ht_event(d2, "gpu_selection_fallback", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "unmapped"), "GPU-nonexistent");
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "selected"), "");
    json_object_put(ev);
    CU_ASSERT_EQUAL(ht_count_events(d2, "gpu_unavailable"), 1);
    unlink(log);
    /* some are: those are measured, the others listed */
    CU_ASSERT_EQUAL(run_sel(d3, log, NULL, "2,GPU-nonexistent", &r), 0);
    th_result_free(&r);
    CU_ASSERT_EQUAL(gpus_in_file(d3), 1u << 2);
    ev = ht_event(d3, "gpu_selection_fallback", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "selected"), "2");
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "unmapped"), "GPU-nonexistent");
    json_object_put(ev);
    CU_ASSERT_EQUAL(ht_smi_starts(log, " -lms 200 -i 2"), ht_smi_starts(log, " -lms 200"));
    unlink(log);
    /* not a list at all: the job runs, no GPU measured */
    rows_expected = false; /* no GPU selected, and no gpu_unavailable either */
    CU_ASSERT_EQUAL(run_sel(d4, log, NULL, ",0", &r), 0);
    rows_expected = true;
    th_result_free(&r);
    CU_ASSERT_EQUAL(ht_count_events(d4, "gpu_selection_fallback"), 1);
    CU_ASSERT_EQUAL(ht_smi_starts(log, "--query-gpu=timestamp"), 0);
    free(d1);
    free(d2);
    free(d3);
    free(d4);
    free(log);
    th_rmtree(dir);
    free(dir);
}

/* Schedulers set a MIG device's UUID on MIG nodes: nvidia-smi samples the physical GPU, so
 * the MIG device maps to its parent (nvidia-smi -L lists it under it), both UUID forms. */
static void test_mig_uuid(void)
{
    char *dir = th_tmpdir("hwmon-gpus-mig");
    char *log = th_fmt("%s/smi.log", dir);
    char *d1 = th_fmt("%s/new", dir), *d2 = th_fmt("%s/old", dir);
    struct th_result r;
    CU_ASSERT_EQUAL(run_sel_env(d1, log, NULL,
                                "MIG-5e7c1d01-0000-4000-8000-000000000001,"
                                "MIG-5e7c1d01-0000-4000-8000-000000000000",
                                "FAKE_SMI_MIG=1:2", &r),
                    0);
    th_result_free(&r);
    CU_ASSERT_EQUAL(gpus_in_file(d1), 1u << 1);
    json_object *ev = ht_event(d1, "start", 0);
    CU_ASSERT_STRING_EQUAL(ht_data_str(ev, "gpus_selected"), "1");
    CU_ASSERT_PTR_NOT_NULL(strstr(ht_data_str(ev, "gpus_asked"), "MIG-5e7c1d01"));
    json_object_put(ev);
    CU_ASSERT_EQUAL(ht_count_events(d1, "gpu_selection_fallback"), 0);
    unlink(log);
    CU_ASSERT_EQUAL(run_sel_env(d2, log, NULL, "MIG-GPU-5e7c1d02-3a9b-4f2e-8d61-0c4b2a9f7002/1/0",
                                "FAKE_SMI_MIG=2:1", &r),
                    0);
    th_result_free(&r);
    CU_ASSERT_EQUAL(gpus_in_file(d2), 1u << 2);
    free(d1);
    free(d2);
    free(log);
    th_rmtree(dir);
    free(dir);
}

void add_gpus_suite(void);
void add_gpus_suite(void)
{
    CU_pSuite s = th_add_suite("gpus", NULL, NULL, 120);
    CU_add_test(s, "resolve", test_resolve);
    CU_add_test(s, "option_and_env", test_option_and_env);
    CU_add_test(s, "unknown_id", test_unknown_id);
    CU_add_test(s, "mig_uuid", test_mig_uuid);
}
