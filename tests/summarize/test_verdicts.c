/* Suite "verdicts": every rule of summarize's verdict table (verdicts.h) on both sides of its
 * thresholds, on generated run directories. The cases are data (vcases[]): a run's shape (GPUs,
 * their utilization, the phases it logs, its CPU, its container) and the verdicts it must get,
 * exactly; then the outputs that show them (JSON, text, rows, page) through the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwrun/buf.h"
#include "report.h"
#include "sumtest.h"
#include "liveview.h"
#include "verdicts.h"

#define BASE 1767225600.0 /* 2026-01-01T00:00:00Z */
#define MAXG 4

/* A run to generate. Every row is one interval apart; a GPU's power is 60 W idle, + 3 W per
 * percent of utilization. */
struct vcase {
    const char *name;
    int ngpu, rows;
    double interval;
    double util[MAXG];   /* each GPU's utilization; NAN: [N/A] (a MIG instance) */
    int idle_from;       /* GPU 0 idle from this row on (0: not) */
    double mem_used_mib; /* every GPU's memory.used (of 81920) */
    const char *loop;    /* phases back to back, "name:seconds,..." repeated over the run */
    double cpu_pct;      /* the tree's CPU, % of one core */
    double mem_limit_mib, mem_peak_mib; /* the container's (0: no limit) */
    double cores;        /* the cgroup's CPU quota (0: none) */
    const char *rules;   /* --rule settings, ';'-separated */
    const char *want;    /* the verdicts' ids (the rows' notes), exactly */
    const char *idle_gpus; /* gpu_idle's GPUs, in order ("1 3") */
    const char *grade;   /* input_bound's grade */
    double figure;       /* with figure_of: that key figure, to 0.1% */
    int figure_of;       /* enum sum_vfig + 1 (0: none checked) */
    const char *missing; /* a rule that must be in notes_not_judged */
    unsigned reason;     /* hw_health.csv: a clock event reason (0: no such file) ... */
    int reason_rows;     /* ... held in this many rows (the first ones) */
};

static const struct vcase vcases[] = {
    {.name = "idle_gpu_busy_cpu", .ngpu = 1, .rows = 40, .interval = 1, .util = {0},
     .mem_used_mib = 2000, .cpu_pct = 100, .want = "gpu_idle energy_idle", .idle_gpus = "0",
     .figure = 39.0 / 3600, .figure_of = SUM_VFIG_GPU_IDLE_GPU_H + 1},
    {.name = "busy_healthy", .ngpu = 1, .rows = 40, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .cpu_pct = 100, .want = "", .missing = "throttled"},
    {.name = "input_loop_highly", .ngpu = 1, .rows = 60, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .loop = "data:0.3,step:0.7", .cpu_pct = 100, .want = "input_bound",
     .grade = "highly", .figure = 30, .figure_of = SUM_VFIG_INPUT_WAIT_PCT + 1},
    {.name = "input_loop_moderately", .ngpu = 1, .rows = 60, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .loop = "data:0.1,step:0.9", .cpu_pct = 100, .want = "input_bound",
     .grade = "moderately", .figure = 10, .figure_of = SUM_VFIG_INPUT_WAIT_PCT + 1},
    {.name = "input_loop_fine", .ngpu = 1, .rows = 60, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .loop = "data:0.02,step:0.98", .cpu_pct = 100, .want = "",
     .figure = 2, .figure_of = SUM_VFIG_INPUT_WAIT_PCT + 1},
    /* the other sign: the step phases' GPU idles while the CPU is busy */
    {.name = "step_gpu_waits", .ngpu = 1, .rows = 60, .interval = 1, .util = {20},
     .mem_used_mib = 60000, .loop = "step:1", .cpu_pct = 99,
     .want = "input_bound gpu_underused"}, /* warnings first */
    {.name = "step_gpu_waits_cpu_idle", .ngpu = 1, .rows = 60, .interval = 1, .util = {20},
     .mem_used_mib = 60000, .loop = "step:1", .cpu_pct = 30, .want = "gpu_underused"},
    {.name = "four_gpus_two_idle", .ngpu = 4, .rows = 40, .interval = 1,
     .util = {95, 0, 90, 0}, .mem_used_mib = 60000, .cpu_pct = 100,
     .want = "gpu_idle energy_idle", .idle_gpus = "1 3"},
    {.name = "underused_warn", .ngpu = 1, .rows = 40, .interval = 1, .util = {15},
     .mem_used_mib = 60000, .cpu_pct = 50, .want = "gpu_underused"},
    {.name = "underused_info", .ngpu = 1, .rows = 40, .interval = 1, .util = {24},
     .mem_used_mib = 60000, .cpu_pct = 50, .want = "gpu_underused"},
    {.name = "underused_not", .ngpu = 1, .rows = 40, .interval = 1, .util = {25},
     .mem_used_mib = 60000, .cpu_pct = 50, .want = ""},
    {.name = "idle_stretch", .ngpu = 1, .rows = 90, .interval = 1, .util = {95},
     .idle_from = 30, .mem_used_mib = 60000, .rules = "gpu_idle.stretch_sec=59",
     .want = "gpu_idle energy_idle", .idle_gpus = "0"},
    {.name = "idle_stretch_short", .ngpu = 1, .rows = 90, .interval = 1, .util = {95},
     .idle_from = 30, .mem_used_mib = 60000, .rules = "gpu_idle.stretch_sec=61",
     .want = "energy_idle"},
    {.name = "energy_idle_under", .ngpu = 1, .rows = 100, .interval = 1, .util = {95},
     .idle_from = 97, .mem_used_mib = 60000, .want = ""},
    {.name = "memory_oversized", .ngpu = 1, .rows = 40, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .mem_limit_mib = 16384, .mem_peak_mib = 4096,
     .want = "memory_oversized", .figure = 25, .figure_of = SUM_VFIG_MEM_USED_OF_LIMIT_PCT + 1},
    {.name = "memory_fits", .ngpu = 1, .rows = 40, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .mem_limit_mib = 16384, .mem_peak_mib = 12000, .want = ""},
    {.name = "memory_near_limit", .ngpu = 1, .rows = 40, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .mem_limit_mib = 16384, .mem_peak_mib = 15000,
     .want = "memory_near_limit"},
    {.name = "vram_oversized", .ngpu = 1, .rows = 40, .interval = 1, .util = {97},
     .mem_used_mib = 10240, .want = "vram_oversized", .figure = 12.5,
     .figure_of = SUM_VFIG_VRAM_USED_PCT + 1},
    {.name = "cpu_underused", .ngpu = 1, .rows = 40, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .cpu_pct = 100, .cores = 8, .want = "cpu_underused",
     .figure = 12.5, .figure_of = SUM_VFIG_CPU_EFFICIENCY_PCT + 1},
    {.name = "cpu_used", .ngpu = 1, .rows = 40, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .cpu_pct = 600, .cores = 8, .want = ""},
    /* a MIG instance or a container: utilization [N/A] is unmeasured, never idle */
    {.name = "util_unmeasured", .ngpu = 1, .rows = 40, .interval = 1, .util = {NAN},
     .mem_used_mib = 60000, .cpu_pct = 100, .want = "", .missing = "gpu_idle"},
    /* too short to judge: nothing, and data_missing says why */
    {.name = "too_short", .ngpu = 1, .rows = 3, .interval = 1, .util = {0},
     .mem_used_mib = 2000, .cpu_pct = 100, .want = "", .missing = "gpu_idle"},
    /* the clocks held down: heat (0x20) from 10% of the time, the power cap (0x4) from 50% */
    {.name = "thermal", .ngpu = 1, .rows = 41, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .reason = 0x20, .reason_rows = 8, .want = "throttled"},
    {.name = "thermal_brief", .ngpu = 1, .rows = 41, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .reason = 0x20, .reason_rows = 2, .want = ""},
    {.name = "power_capped", .ngpu = 1, .rows = 41, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .reason = 0x4, .reason_rows = 24, .want = "throttled"},
    {.name = "power_capped_less", .ngpu = 1, .rows = 41, .interval = 1, .util = {97},
     .mem_used_mib = 60000, .reason = 0x4, .reason_rows = 16, .want = ""},
    /* a site turns a rule off, or moves a threshold */
    {.name = "rule_off", .ngpu = 1, .rows = 40, .interval = 1, .util = {0},
     .mem_used_mib = 2000, .cpu_pct = 100, .rules = "gpu_idle=off;energy_idle=off", .want = ""},
    {.name = "idle_threshold_moved", .ngpu = 1, .rows = 40, .interval = 1, .util = {3},
     .mem_used_mib = 2000, .cpu_pct = 100, .rules = "gpu_idle.util_pct=5",
     .want = "gpu_idle energy_idle", .idle_gpus = "0"},
    {.name = "threshold_moved", .ngpu = 1, .rows = 40, .interval = 1, .util = {40},
     .mem_used_mib = 60000, .cpu_pct = 50, .rules = "gpu_underused.info_pct=50",
     .want = "gpu_underused"},
};

static char *make_run(const struct vcase *c)
{
    char *dir = th_tmpdir("verdicts");
    struct hw_buf b;
    char ts[80];
    double end = (c->rows - 1) * c->interval;
    /* run.jsonl: the start event, the loop's phases back to back, the stop event */
    hw_buf_init(&b, NULL, 0);
    th_iso_time(ts, sizeof ts, BASE - 0.5);
    hw_buf_printf(&b, "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
                      "{\"smi_tz\": \"UTC\", \"interval_s\": %g, \"cpus\": 16, \"gpus\": %d}}\n",
                  ts, c->interval, c->ngpu);
    for (double t = 0; c->loop && t < end - 1e-9;) {
        for (const char *p = c->loop; *p && t < end - 1e-9;) {
            size_t n = strcspn(p, ":");
            double s = strtod(p + n + 1, NULL);
            th_iso_time(ts, sizeof ts, BASE + t + s);
            hw_buf_printf(&b, "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"%.*s\", "
                              "\"seconds\": %.3f}\n",
                          ts, (int)n, p, s);
            t += s;
            p += n + 1;
            p += strcspn(p, ",");
            p += *p == ',';
        }
    }
    th_iso_time(ts, sizeof ts, BASE + end + 0.5);
    hw_buf_printf(&b, "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
                      "{\"reason\": \"exit\", \"exit_status\": 0, \"duration_s\": %.3f}}\n",
                  ts, end + 1);
    hw_buf_putc(&b, '\0');
    put_file(dir, "run.jsonl", b.p);
    hw_buf_free(&b);
    /* hw_metrics.csv in hwmon's default layout */
    hw_buf_init(&b, NULL, 0);
    for (int i = 0; i < c->rows; i++)
        for (int g = 0; g < c->ngpu; g++) {
            th_smi_time(ts, sizeof ts, BASE + i * c->interval);
            double u = g == 0 && c->idle_from && i >= c->idle_from ? 0 : c->util[g];
            char ub[16] = "[N/A]";
            if (!isnan(u))
                snprintf(ub, sizeof ub, "%.0f", u);
            hw_buf_printf(&b, "%s, %s, 10, %.0f, 81920, %.2f, 60, 1980, 2619, %d, GPU-%d\n", ts,
                          ub, u == 0 ? 4 : c->mem_used_mib, 60 + 3 * (isnan(u) ? 50 : u), g,
                          g);
        }
    hw_buf_putc(&b, '\0');
    put_file(dir, "hw_metrics.csv", b.p);
    hw_buf_free(&b);
    /* cpu_metrics.csv (the container) and proc_metrics.csv (the tree) */
    struct hw_buf pr;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, "timestamp,usr_pct,idle_pct,cgroup_mem_current_mib,cgroup_mem_max_mib,"
                    "cgroup_cpu_limit_cores\n");
    rows_begin(&pr, hw_proc_cols, HW_PROC_COL_WRITE + 1, false);
    for (int i = 0; i < c->rows; i++) {
        th_iso_time(ts, sizeof ts, BASE + i * c->interval);
        hw_buf_printf(&b, "%s,10.0,90.0,", ts);
        if (c->mem_limit_mib > 0)
            hw_buf_printf(&b, "%.0f,%.0f,", i == c->rows / 2 ? c->mem_peak_mib : 1000,
                          c->mem_limit_mib);
        else
            hw_buf_puts(&b, ",,");
        if (c->cores > 0)
            hw_buf_printf(&b, "%g\n", c->cores);
        else
            hw_buf_puts(&b, "\n");
        rows_add(&pr, BASE + i * c->interval, "1,4,%.0f,1000,0,0", c->cpu_pct);
    }
    hw_buf_putc(&b, '\0');
    put_file(dir, "cpu_metrics.csv", b.p);
    hw_buf_free(&b);
    rows_put(&pr, dir, "proc_metrics.csv");
    if (c->reason) { /* hw_health.csv: the bitmask alone (each row holds half a step each side) */
        hw_buf_init(&b, NULL, 0);
        hw_buf_puts(&b, "timestamp, index, clocks_event_reasons.active\n");
        for (int i = 0; i < c->rows; i++)
            for (int g = 0; g < c->ngpu; g++) {
                th_smi_time(ts, sizeof ts, BASE + i * c->interval);
                hw_buf_printf(&b, "%s, %d, 0x%016X\n", ts, g,
                              i < c->reason_rows ? c->reason : 0);
            }
        hw_buf_putc(&b, '\0');
        put_file(dir, HW_HEALTH_FILE, b.p);
        hw_buf_free(&b);
    }
    return dir;
}

static struct sum_run *judge(const char *dir, const struct vcase *c, struct sum_rule_cfg *rc)
{
    sum_rule_cfg_init(rc);
    for (const char *p = c->rules; p && *p;) {
        size_t n = strcspn(p, ";");
        char spec[128], err[256];
        snprintf(spec, sizeof spec, "%.*s", (int)n, p);
        CU_ASSERT_EQUAL_FATAL(sum_rule_cfg_set(rc, spec, err, sizeof err), 0);
        p += n + (p[n] == ';');
    }
    struct sum_inputs in;
    char *storage[HW_FILE_COUNT];
    sum_inputs_from_dir(&in, dir, storage);
    struct sum_run *run = sum_run_new();
    struct sum_config cfg = {.rules = rc};
    sum_run_summarize(run, &in, &cfg);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(storage[k]);
    return run;
}

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof vcases / sizeof vcases[0]; i++) {
        const struct vcase *c = &vcases[i];
        char *dir = make_run(c);
        struct sum_rule_cfg rc;
        struct sum_run *run = judge(dir, c, &rc);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run->verdicts);
        const struct sum_verdicts *vs = run->verdicts;
        if (strcmp(vs->ids, c->want))
            fprintf(stderr, "verdicts: case %s: got '%s', want '%s'\n", c->name, vs->ids,
                    c->want);
        CU_ASSERT_STRING_EQUAL(vs->ids, c->want);
        /* gpu_idle names exactly the idle GPUs, in order */
        char gpus[64] = "";
        for (size_t k = 0; k < vs->n; k++)
            if (vs->v[k].rule == SUM_RULE_GPU_IDLE)
                snprintf(gpus + strlen(gpus), sizeof gpus - strlen(gpus), "%s%d",
                         gpus[0] ? " " : "", vs->v[k].gpu);
        if (c->idle_gpus) {
            if (strcmp(gpus, c->idle_gpus))
                fprintf(stderr, "verdicts: case %s: idle GPUs '%s', want '%s'\n", c->name, gpus,
                        c->idle_gpus);
            CU_ASSERT_STRING_EQUAL(gpus, c->idle_gpus);
        }
        for (size_t k = 0; k < vs->n; k++) {
            const struct sum_verdict *v = &vs->v[k];
            CU_ASSERT(v->text[0] != 0);
            CU_ASSERT(v->nev > 0 || v->rule == SUM_RULE_DATA_MISSING);
            if (v->rule == SUM_RULE_INPUT_BOUND && c->grade) {
                CU_ASSERT_PTR_NOT_NULL_FATAL(v->grade);
                CU_ASSERT_STRING_EQUAL(v->grade, c->grade);
                CU_ASSERT_EQUAL(v->sev, !strcmp(c->grade, "highly") ? SUM_SEV_WARNING
                                                                    : SUM_SEV_INFO);
            }
        }
        if (c->figure_of) {
            double f = vs->figure[c->figure_of - 1];
            if (!(fabs(f - c->figure) <= 1e-3 * fabs(c->figure) + 1e-9))
                fprintf(stderr, "verdicts: case %s: %s %.9g, want %.9g\n", c->name,
                        sum_vfigs[c->figure_of - 1].key, f, c->figure);
            CHECK_NEAR(f, c->figure, 1e-3 * fabs(c->figure) + 1e-9);
        }
        if (c->missing) {
            bool found = false;
            for (int r = 0; r < SUM_RULE_COUNT; r++)
                found |= !strcmp(sum_rules[r].id, c->missing) && vs->missing[r][0];
            if (!found)
                fprintf(stderr, "verdicts: case %s: %s not in notes_not_judged\n", c->name,
                        c->missing);
            CU_ASSERT(found);
            CU_ASSERT(vs->n > 0 && vs->v[vs->n - 1].rule == SUM_RULE_DATA_MISSING);
        }
        sum_run_free(run);
        sum_rule_cfg_free(&rc);
        th_rmtree(dir);
        free(dir);
    }
}

/* Every rule has an id, a source, its thresholds' units and words; every key figure names a
 * rule that judges; --list-rules lists each threshold once. */
static void test_table(void)
{
    size_t nthr = 0;
    for (int r = 0; r < SUM_RULE_COUNT; r++) {
        const struct sum_rule *R = &sum_rules[r];
        CU_ASSERT_PTR_NOT_NULL_FATAL(R->id);
        CU_ASSERT(R->what && R->what[0] && R->source && R->source[0]);
        for (int k = 0; k < SUM_RULE_MAX_THR && R->thr[k].key; k++, nthr++)
            CU_ASSERT(R->thr[k].unit && R->thr[k].unit[0] && R->thr[k].what &&
                      R->thr[k].what[0]);
        for (int q = 0; q < r; q++)
            CU_ASSERT(strcmp(sum_rules[q].id, R->id) != 0);
    }
    for (int f = 0; f < SUM_VFIG_COUNT; f++)
        CU_ASSERT_PTR_NOT_NULL(sum_rules[sum_vfigs[f].rule].judge);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_rules_list(NULL, &b);
    hw_buf_putc(&b, '\0');
    size_t lines = 0;
    for (const char *p = b.p; *p; p++)
        lines += *p == '\n';
    size_t bare = 0; /* rules without thresholds get a line of their own */
    for (int r = 0; r < SUM_RULE_COUNT; r++)
        bare += !sum_rules[r].thr[0].key;
    CU_ASSERT_EQUAL(lines, 1 + nthr + bare);
    hw_buf_free(&b);
}

/* Overrides: bad input is refused with a reason, a file says its line. */
static void test_overrides(void)
{
    struct sum_rule_cfg c;
    sum_rule_cfg_init(&c);
    char err[256];
    CU_ASSERT_EQUAL(sum_rule_cfg_set(&c, "gpu_idle.stretch_sec=1800", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sum_rule_thr(&c, SUM_RULE_GPU_IDLE, 1), 1800);
    CU_ASSERT_EQUAL(sum_rule_cfg_set(&c, "nope.x=1", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown rule 'nope'"));
    CU_ASSERT_EQUAL(sum_rule_cfg_set(&c, "gpu_idle.x=1", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no threshold 'x'"));
    CU_ASSERT_EQUAL(sum_rule_cfg_set(&c, "gpu_idle.util_pct=-1", err, sizeof err), -1);
    CU_ASSERT_EQUAL(sum_rule_cfg_set(&c, "gpu_idle.util_pct=nan", err, sizeof err), -1);
    CU_ASSERT_EQUAL(sum_rule_cfg_set(&c, "gpu_idle=maybe", err, sizeof err), -1);
    CU_ASSERT_EQUAL(sum_rule_cfg_set(&c, "input_bound.phases=loader, queue", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(sum_rule_thr_str(&c, SUM_RULE_INPUT_BOUND, 2), "loader, queue");
    char *dir = th_tmpdir("rules");
    put_file(dir, "site.rules", "# a site's policy\n gpu_idle.stretch_sec = 7200 # 2 h\n\n"
                                "cpu_underused=off\nthrottled.power_pct=abc\n");
    char *path = th_fmt("%s/site.rules", dir);
    CU_ASSERT_EQUAL(sum_rule_cfg_load(&c, path, err, sizeof err), -1);
    CU_ASSERT_EQUAL(sum_rule_thr(&c, SUM_RULE_GPU_IDLE, 1), 7200);
    CU_ASSERT(c.off[SUM_RULE_CPU_UNDERUSED]);
    char *want = th_fmt("%s:5: ", path);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    free(want);
    free(path);
    sum_rule_cfg_free(&c);
    th_rmtree(dir);
    free(dir);
}

/* Where they show: the JSON's notes, the text's first lines, the sweep row, the page, with a
 * threshold from --rule and from $HWRUN_RULES; a bad --rule is a usage error. */
static void test_outputs(void)
{
    const struct vcase *c = &vcases[0]; /* idle_gpu_busy_cpu */
    char *dir = make_run(c);
    char *args_json[] = {(char *)"-f", (char *)"json", dir, NULL};
    struct th_result r = run_summarize(args_json);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"id\": \"gpu_idle\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"severity\": \"warning\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"idle_gpu_h\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"source\": \"Princeton jobstats"));
    th_result_free(&r);

    char *args_text[] = {(char *)"-f", (char *)"text", dir, NULL};
    r = run_summarize(args_text);
    CU_ASSERT_EQUAL(r.status, 0);
    int line = 0, at = -1;
    for (char *p = r.out; p && *p && line < 10; line++) {
        char *nl = strchr(p, '\n');
        if (!strncmp(p, "  warning [gpu_idle] GPU 0 did no work", 38))
            at = line;
        p = nl ? nl + 1 : p + strlen(p);
    }
    CU_ASSERT(at >= 1 && at < 10);
    th_result_free(&r);

    char *args_rows[] = {(char *)"-f", (char *)"csv", dir, NULL};
    r = run_summarize(args_rows);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",notes,gpu_idle_gpu_h,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",gpu_idle energy_idle,"));
    th_result_free(&r);

    /* a site's file turns the rule off; an option turns it on again */
    put_file(dir, "site.rules", "gpu_idle=off\n");
    char *site = th_fmt("%s/site.rules", dir);
    setenv("HWRUN_RULES", site, 1);
    char *args_site[] = {(char *)"-f", (char *)"jsonl", dir, NULL};
    r = run_summarize(args_site);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"notes\": \"energy_idle\""));
    th_result_free(&r);
    char *args_on[] = {(char *)"--rule", (char *)"gpu_idle=on", (char *)"-f", (char *)"jsonl",
                       dir, NULL};
    r = run_summarize(args_on);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"notes\": \"gpu_idle energy_idle\""));
    th_result_free(&r);
    unsetenv("HWRUN_RULES");
    free(site);

    char *page = th_fmt("%s/report.html", dir);
    char *args_html[] = {(char *)"--html", page, dir, NULL};
    r = run_summarize(args_html);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<li class=\"note warning\" data-rule=\"gpu_idle\""));
    free(html);
    free(page);

    char *args_bad[] = {(char *)"--rule", (char *)"gpu_idle.nope=1", dir, NULL};
    r = run_summarize(args_bad);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no threshold 'nope'"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* --compare names the phase that made B slower first, and the verdict only one run got. */
static struct th_result compare(const struct vcase *a, const struct vcase *b)
{
    char *da = make_run(a), *db = make_run(b);
    char *args[] = {(char *)"--compare", (char *)"-f", (char *)"text", da, db, NULL};
    struct th_result r = run_summarize(args);
    CU_ASSERT_EQUAL(r.status, 0);
    th_rmtree(da);
    th_rmtree(db);
    free(da);
    free(db);
    return r;
}

static void test_compare(void)
{
    struct vcase a = vcases[2]; /* input_loop_highly's shape */
    a.loop = "data:0.02,step:0.98";
    struct vcase b = a;
    b.loop = "data:0.02,step:1.28"; /* each step 30% slower, as many loops */
    b.rows = 78;
    struct th_result r = compare(&a, &b);
    const char *t = r.out ? strstr(r.out, "  time: B ") : NULL;
    if (!t || strncmp(t, "  time: B 18.000 s more than A (+30%): step +", 45))
        fprintf(stderr, "verdicts: compare:\n%s\n", r.out ? r.out : "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT(!strncmp(t, "  time: B 18.000 s more than A (+30%): step +", 45));
    CU_ASSERT_PTR_NULL(strstr(r.out, " only: ["));
    th_result_free(&r);
    b = a;
    b.loop = "data:0.3,step:0.7"; /* the same time, a third of it waiting for input */
    r = compare(&a, &b);
    if (!r.out || !strstr(r.out, "\n  B only: [input_bound] highly input-bound"))
        fprintf(stderr, "verdicts: compare:\n%s\n", r.out ? r.out : "");
    CU_ASSERT_PTR_NOT_NULL(r.out ? strstr(r.out, "\n  B only: [input_bound] highly input-bound")
                                 : NULL);
    th_result_free(&r);
}

/* The live view warns of a GPU idle for gpu_idle's stretch while it lasts, from the same idle
 * accounting as the summary (rd_idle), once per stretch. */
static void test_live(void)
{
    struct vcase c = vcases[0]; /* idle_gpu_busy_cpu: GPU 0 idle 39 s */
    char *dir = make_run(&c);
    struct sum_rule_cfg rc;
    struct sum_run *run = judge(dir, &c, &rc);
    for (int stretch = 30; stretch <= 60; stretch += 30) {
        char spec[64], err[128];
        snprintf(spec, sizeof spec, "gpu_idle.stretch_sec=%d", stretch);
        CU_ASSERT_EQUAL(sum_rule_cfg_set(&rc, spec, err, sizeof err), 0);
        struct sum_live *v = sum_live_new(dir, "idle");
        CU_ASSERT_PTR_NOT_NULL_FATAL(v);
        sum_live_rules(v, &rc);
        CU_ASSERT_EQUAL(sum_live_update(v), 0);
        /* the stretch goes on at the last row: the summary ended it there */
        const struct rd_idle *live = &v->live.gpu[0].idle, *sum = &run->gpu[0]->idle;
        CU_ASSERT_EQUAL(live->rows, sum->rows);
        CHECK_NEAR(live->idle_s, sum->idle_s, 1e-9);
        CHECK_NEAR(live->run_t1 - live->run_t0, sum->best_t1 - sum->best_t0, 1e-9);
        CU_ASSERT_EQUAL(sum_live_update(v), 0); /* nothing new: said once */
        struct hw_buf out;
        hw_buf_init(&out, NULL, 0);
        sum_live_screen(v, BASE + 60, 40, 160, NULL, &out);
        hw_buf_putc(&out, '\0');
        const char *w = strstr(out.p, "GPU 0 idle for 39 s now (gpu_idle");
        if (stretch == 30) {
            CU_ASSERT_PTR_NOT_NULL(w);
            CU_ASSERT(w && !strstr(w + 1, "GPU 0 idle for"));
        } else {
            CU_ASSERT_PTR_NULL(w);
        }
        hw_buf_free(&out);
        sum_live_free(v);
    }
    sum_run_free(run);
    sum_rule_cfg_free(&rc);
    th_rmtree(dir);
    free(dir);
}

/* --carbon-intensity and --price: the energy's emissions and cost, per run, phase name and row;
 * null without them (never a default). */
static void test_carbon(void)
{
    struct vcase c = vcases[2]; /* input_loop_highly: data and step phases */
    char *dir = make_run(&c);
    struct sum_rule_cfg rc;
    struct sum_run *run = judge(dir, &c, &rc);
    double wh = sum_run_energy_wh(run), step_wh = NAN;
    const struct sum_name_acc *a = sum_names_find(&run->names, "step");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    step_wh = sum_name_energy_wh(run, a);
    CU_ASSERT(wh > 0 && step_wh > 0);
    char *args[] = {(char *)"--carbon-intensity", (char *)"475", (char *)"--price",
                    (char *)"0.25", (char *)"-f", (char *)"json", dir, NULL};
    struct th_result r = run_summarize(args);
    CU_ASSERT_EQUAL(r.status, 0);
    char *want = th_fmt("\"co2e_g\": %.12g,", sum_fig_num(wh / 1000 * 475));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    free(want);
    want = th_fmt("\"energy_cost\": %.12g\n", sum_fig_num(wh / 1000 * 0.25));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    free(want);
    want = th_fmt("\"co2e_g\": %.12g,", sum_fig_num(step_wh / 1000 * 475));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    free(want);
    th_result_free(&r);
    char *plain[] = {(char *)"-f", (char *)"jsonl", dir, NULL};
    r = run_summarize(plain);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"co2e_g\": null, \"energy_cost\": null"));
    th_result_free(&r);
    char *bad[] = {(char *)"--price", (char *)"-1", dir, NULL};
    r = run_summarize(bad);
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    sum_run_free(run);
    sum_rule_cfg_free(&rc);
    th_rmtree(dir);
    free(dir);
}

void add_verdicts_suite(void)
{
    CU_pSuite s = th_add_suite("verdicts", NULL, NULL, 120);
    CU_add_test(s, "cases", test_cases);
    CU_add_test(s, "table", test_table);
    CU_add_test(s, "overrides", test_overrides);
    CU_add_test(s, "outputs", test_outputs);
    CU_add_test(s, "compare", test_compare);
    CU_add_test(s, "live", test_live);
    CU_add_test(s, "carbon", test_carbon);
}
