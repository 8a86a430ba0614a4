/* summarize's GPM figures (hw_gpm.csv): per GPU and per phase statistics of SM, tensor and DRAM
 * activity in summary.json and the text, `-` cells as unmeasured (null, never 0), and no trace
 * of GPM in a run without the file. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "report.h"
#include "sumtest.h"

static const char start_ev[] =
    "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
    "\"data\": {\"tool\": \"hwmon\", \"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n";

/* Two phases, [10:00:00.5, 10:00:02.5] and [10:00:02.5, 10:00:04.5]; GPU 0 has no GPM (as
 * GPU 0 of the H800 capture), GPU 1 has smutil 10,20 then 30,50; mmaact 1,2 then 3,4. */
static const char gpm_csv[] =
    "#Date       Time        gpu     sm    mem    enc    dec    jpg    ofa      gract    smutil"
    "     smocc    mmaact      dram      fp64      fp32      fp16\n"
    "#YYYYMMDD   HH:MM:SS    Idx      %      %      %      %      %      %      GPM:%     GPM:%"
    "     GPM:%     GPM:%     GPM:%     GPM:%     GPM:%     GPM:%\n"
    " 20261121   10:00:01      0     90      1      0      0      0      0          -         -"
    "         -         -         -         -         -         -\n"
    " 20261121   10:00:01      1     95      1      0      0      0      0         90        10"
    "         5         1         7         0         2         3\n"
    " 20261121   10:00:02      1     95      1      0      0      0      0         90        20"
    "         5         2         7         0         2         3\n"
    " 20261121   10:00:03      0     90      1      0      0      0      0          -         -"
    "         -         -         -         -         -         -\n"
    " 20261121   10:00:03      1     98      1      0      0      0      0         90        30"
    "         5         3         9         0         2         3\n"
    " 20261121   10:00:04      1     98      1      0      0      0      0         90        50"
    "         5         4         9         0         2         3\n";

static char *gpm_dir(bool with_gpm)
{
    char *dir = th_tmpdir("sum-gpm");
    char *log = th_fmt("%s"
                       "{\"ts\": \"2026-11-21T10:00:02.500+00:00\", \"type\": \"phase\", "
                       "\"name\": \"warmup\", \"seconds\": 2.0}\n"
                       "{\"ts\": \"2026-11-21T10:00:04.500+00:00\", \"type\": \"phase\", "
                       "\"name\": \"train\", \"seconds\": 2.0}\n",
                       start_ev);
    put_file(dir, "run.jsonl", log);
    free(log);
    put_file(dir, "hw_metrics.csv",
             "2026/11/21 10:00:01.000, 95, 1, 100, 81559, 300.00, 50, 1980, 2619, 1, GPU-1\n"
             "2026/11/21 10:00:03.000, 98, 1, 100, 81559, 300.00, 50, 1980, 2619, 1, GPU-1\n");
    if (with_gpm)
        put_file(dir, HW_GPM_FILE, gpm_csv);
    return dir;
}

static json_object *json_of(const struct sum_run *run)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_json(run, &b);
    hw_buf_putc(&b, '\0');
    json_object *o = json_tokener_parse(b.p);
    hw_buf_free(&b);
    return o;
}

static json_object *path(json_object *o, const char *const *keys)
{
    for (; o && *keys; keys++) {
        json_object *v = NULL;
        char *end;
        long idx = strtol(*keys, &end, 10);
        if (*end == '\0' && json_object_is_type(o, json_type_array))
            v = json_object_array_get_idx(o, (size_t)idx);
        else if (!json_object_object_get_ex(o, *keys, &v))
            return NULL;
        o = v;
    }
    return o;
}

static double num_at(json_object *o, const char *const *keys)
{
    json_object *v = path(o, keys);
    return v && !json_object_is_type(v, json_type_null) ? json_object_get_double(v) : NAN;
}

static void test_gpm_per_gpu_and_phase(void)
{
    char *dir = gpm_dir(true);
    struct sum_run *run = summarize_dir(dir);
    json_object *o = json_of(run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    /* GPU 1 over the run: smutil 10, 20, 30, 50 */
    CHECK_NEAR(num_at(o, (const char *[]){"gpus", "1", "gpm", "sm_active_pct", "mean", NULL}),
               27.5, 1e-9);
    CHECK_NEAR(num_at(o, (const char *[]){"gpus", "1", "gpm", "sm_active_pct", "max", NULL}),
               50, 1e-9);
    CHECK_NEAR(num_at(o, (const char *[]){"gpus", "1", "gpm", "sm_active_pct", "p50", NULL}),
               25, 1e-9);
    CHECK_NEAR(num_at(o, (const char *[]){"gpus", "1", "gpm", "tensor_active_pct", "p95", NULL}),
               3.85, 1e-9);
    CHECK_NEAR(num_at(o, (const char *[]){"gpus", "1", "gpm", "dram_active_pct", "mean", NULL}),
               8, 1e-9);
    /* GPU 0 printed `-`: the keys are there and null, not 0 */
    json_object *g0 = path(o, (const char *[]){"gpus", "0", "gpm", "sm_active_pct", NULL});
    CU_ASSERT_TRUE(g0 == NULL && path(o, (const char *[]){"gpus", "0", "gpm", NULL}) != NULL);
    json_object *g0s = path(o, (const char *[]){"gpus", "0", "gpm", NULL}), *v = NULL;
    CU_ASSERT_TRUE(g0s && json_object_object_get_ex(g0s, "sm_active_pct", &v) &&
                   json_object_is_type(v, json_type_null));
    /* per phase: warmup has 10, 20; train 30, 50 */
    CHECK_NEAR(num_at(o, (const char *[]){"phases", "0", "gpus", "1", "gpm", "sm_active_pct",
                                          "mean", NULL}),
               15, 1e-9);
    CHECK_NEAR(num_at(o, (const char *[]){"phases", "1", "gpus", "1", "gpm", "sm_active_pct",
                                          "max", NULL}),
               50, 1e-9);
    CHECK_NEAR(num_at(o, (const char *[]){"phases", "1", "gpus", "1", "gpm",
                                          "tensor_active_pct", "mean", NULL}),
               3.5, 1e-9);
    CU_ASSERT_EQUAL(
        (int)num_at(o, (const char *[]){"quality", "files", HW_GPM_FILE, "parsed", NULL}), 6);
    json_object_put(o);

    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_text(run, &b);
    hw_buf_putc(&b, '\0');
    unwrap_text(b.p);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "    SM active (%)        mean 27.5  max 50.0"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(b.p, "    GPU 1 util mean 98.0%, SM active 40.0%, tensor active 3.5%, DRAM active "
                    "9.0%, power mean 300.0 W, peak VRAM "));
    if (!strstr(b.p, "SM active 40.0%"))
        fprintf(stderr, "%s", b.p);
    hw_buf_free(&b);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* Without hw_gpm.csv: no "gpm" key anywhere, no quality entry, no GPM line in the text. */
static void test_gpm_absent(void)
{
    char *dir = gpm_dir(false);
    struct sum_run *run = summarize_dir(dir);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_json(run, &b);
    sum_report_text(run, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NULL(strstr(b.p, "\"gpm\""));
    CU_ASSERT_PTR_NULL(strstr(b.p, HW_GPM_FILE));
    CU_ASSERT_PTR_NULL(strstr(b.p, "SM active"));
    hw_buf_free(&b);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* The real H800 capture as hw_gpm.csv (no -o DT there): GPU 0's `-` is null, GPUs 1-7 are 0. */
static void test_gpm_capture(void)
{
    char *src = th_fmt("%s/nvsmi-real/dmon_gpm-metrics_h800-x8_drv570_trailing-ws-stripped.txt",
                       th_env("HWRUN_TESTDATA"));
    char *text = th_read_file(src, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *dir = th_tmpdir("sum-gpm-cap");
    put_file(dir, HW_GPM_FILE, text);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL(run->q[HW_FILE_GPM].parsed, 8);
    CU_ASSERT_EQUAL(rd_quality_skipped_total(&run->q[HW_FILE_GPM]), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run->gpu[0]);
    CU_ASSERT_TRUE(run->gpu[0]->in_gpm);
    for (int k = 0; k < HW_GPM_NCOLS; k++)
        CU_ASSERT_EQUAL(run->gpu[0]->gpm[k].n, 0);
    for (int g = 1; g < 8; g++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(run->gpu[g]);
        for (int k = 0; k < HW_GPM_NCOLS; k++) {
            CU_ASSERT_EQUAL(run->gpu[g]->gpm[k].n, 1);
            CU_ASSERT_EQUAL(run->gpu[g]->gpm[k].max, 0);
        }
    }
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
    free(text);
    free(src);
}

void add_gpm_suite(void)
{
    CU_pSuite s = th_add_suite("gpm", NULL, NULL, 60);
    CU_add_test(s, "per_gpu_and_phase", test_gpm_per_gpu_and_phase);
    CU_add_test(s, "absent", test_gpm_absent);
    CU_add_test(s, "capture", test_gpm_capture);
}
