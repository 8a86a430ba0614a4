/* hw_health.csv end to end, with the fake nvidia-smi: GPU 1 is power-capped for about 0.3 s in
 * the middle of a 0.6 s phase `train` (FAKE_SMI_HEALTH_*), gains 2 uncorrected ECC errors and its
 * link drops to gen 3 x8 meanwhile. summarize names the seconds per phase from the counters, and
 * from the bitmask alone on a driver without counters; the warnings reach JSON, text, the sweep
 * row and the HTML page; --no-health records nothing of it and the GPU samples are the same. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hwtest.h"

struct hrun {
    char *base, *dir, *trig;
    double capped_s; /* how long the trigger file was there, as the job timed it */
    json_object *sum; /* summarize's JSON */
};

/* hwmon around: warm, then train: 0.15 s, the trigger on for 0.3 s (the job's own clock reads
 * before its touch and after its rm: a loaded machine's sleep overruns), 0.15 s. warm is read from
 * when nvidia-smi's probes answer, beside the job (0.2 s seen on a loaded CI machine under
 * ASan): it needs a GPU row of its own, and lasts until it has them (no fixed second). */
static bool health_run(struct hrun *h, const char *tag, const char *reject, const char *extra_opt)
{
    h->base = th_tmpdir(tag);
    h->dir = th_fmt("%s/run", h->base);
    h->trig = th_fmt("%s/capped", h->base);
    /* warm lasts until GPU 1 has 2 health rows in it, or GPU rows without health (the probes
     * answer beside the job: a loaded ASan hwmon's took more than a second) */
    bool no_health = extra_opt && !strcmp(extra_opt, "--no-health");
    char *rows = no_health ? ht_job_wait_lines(HW_GPU_FILE, 4) /* headerless, 2 GPUs */
                           : ht_job_wait_lines(HW_HEALTH_FILE, 5);
    char *wait = th_fmt("%s/warm.sh", h->base);
    int fd = open(wait, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    CU_ASSERT_FATAL(fd >= 0 && write(fd, rows, strlen(rows)) == (ssize_t)strlen(rows));
    close(fd);
    char *own = th_fmt("%s/own", h->base);
    char *script = th_fmt("R=\"%s -f $RUNLOG_FILE time\"; $R warm -- sh %s && "
                          "$R train -- sh -c 'sleep 0.15; date +%%s.%%N > %s; touch %s; "
                          "sleep 0.3; rm %s; date +%%s.%%N >> %s; sleep 0.15'",
                          th_env("HWRUN_RUNLOG_BIN"), wait, own, h->trig, h->trig, own);
    free(rows);
    free(wait);
    char *ef = th_fmt("FAKE_SMI_HEALTH_FILE=%s", h->trig);
    char *rj = th_fmt("FAKE_SMI_REJECT=%s", reject ? reject : "");
    char *env[] = {ef, "FAKE_SMI_HEALTH_GPU=1", "FAKE_SMI_HEALTH_MASK=0x4",
                   "FAKE_SMI_HEALTH_ECC=2", "FAKE_SMI_HEALTH_PCIE=3:8", rj, NULL};
    char **argv = extra_opt ? ht_argv(h->dir, "-i", "0.1", extra_opt, "--", "/bin/sh", "-c", script,
                                      NULL)
                            : ht_argv(h->dir, "-i", "0.1", "--", "/bin/sh", "-c", script, NULL);
    int st = ht_run(argv, env, 60, NULL);
    free(argv);
    free(script);
    free(ef);
    free(rj);
    CU_ASSERT_EQUAL(st, 0);
    char *t = th_read_file(own, NULL);
    double on = NAN, off = NAN;
    CU_ASSERT_FATAL(t && sscanf(t, "%lf %lf", &on, &off) == 2 && off - on >= 0.3);
    h->capped_s = off - on;
    free(t);
    free(own);
    char *sum[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "json", h->dir, NULL};
    struct th_result r;
    h->sum = NULL;
    if (th_run(sum, NULL, NULL, 60, &r) == 0 && r.status == 0)
        h->sum = json_tokener_parse(r.out);
    th_result_free(&r);
    return st == 0 && h->sum;
}

static void hrun_free(struct hrun *h)
{
    json_object_put(h->sum);
    th_rmtree(h->base);
    free(h->base);
    free(h->dir);
    free(h->trig);
}

static json_object *path(json_object *o, const char *const *keys)
{
    for (; o && *keys; keys++) {
        json_object *v = NULL;
        if (json_object_is_type(o, json_type_array))
            v = json_object_array_get_idx(o, (size_t)atoi(*keys));
        else
            json_object_object_get_ex(o, *keys, &v);
        o = v;
    }
    return o;
}

static double num(json_object *o)
{
    return o && !json_object_is_type(o, json_type_null) ? json_object_get_double(o) : NAN;
}

/* phases[i].gpus[g].clocks of the phase named name */
static json_object *phase_clocks(json_object *sum, const char *name, int g)
{
    json_object *ph = path(sum, (const char *[]){"phases", NULL});
    for (size_t i = 0; ph && i < json_object_array_length(ph); i++) {
        json_object *p = json_object_array_get_idx(ph, i), *n;
        if (!json_object_object_get_ex(p, "name", &n) || strcmp(json_object_get_string(n), name))
            continue;
        json_object *gs = path(p, (const char *[]){"gpus", NULL});
        for (size_t k = 0; gs && k < json_object_array_length(gs); k++) {
            json_object *gg = json_object_array_get_idx(gs, k);
            if (num(path(gg, (const char *[]){"index", NULL})) == g)
                return path(gg, (const char *[]){"clocks", NULL});
        }
    }
    return NULL;
}

/* phases[i].seconds of the phase named name */
static double phase_seconds(json_object *sum, const char *name)
{
    json_object *ph = path(sum, (const char *[]){"phases", NULL});
    for (size_t i = 0; ph && i < json_object_array_length(ph); i++) {
        json_object *p = json_object_array_get_idx(ph, i), *n;
        if (json_object_object_get_ex(p, "name", &n) && !strcmp(json_object_get_string(n), name))
            return num(path(p, (const char *[]){"seconds", NULL}));
    }
    return NAN;
}

static void check_capped(const struct hrun *h, const char *source)
{
    json_object *sum = h->sum;
    json_object *c1 = phase_clocks(sum, "train", 1), *c0 = phase_clocks(sum, "train", 0);
    json_object *w1 = phase_clocks(sum, "warm", 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w1);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(path(c1, (const char *[]){"source", NULL})),
                           source);
    /* the trigger's time as the job measured it, seen by samples every 0.1 s: within 3
     * samples; the share is of the seconds the phase's rows stand for, within the phase */
    double s = num(path(c1, (const char *[]){"power_capped_s", NULL}));
    double pct = num(path(c1, (const char *[]){"power_capped_pct", NULL}));
    double secs = phase_seconds(sum, "train");
    fprintf(stderr, "train GPU 1 power_capped_s %g, the job's %g (%s)\n", s, h->capped_s,
            source);
    CU_ASSERT(fabs(s - h->capped_s) <= 0.3);
    double cov = num(path(c1, (const char *[]){"covered_sec", NULL}));
    CU_ASSERT(cov > 0.5 * secs && cov <= secs + 1e-6);
    CU_ASSERT(fabs(pct - 100 * s / cov) <= 0.1);
    CU_ASSERT_EQUAL(num(path(c1, (const char *[]){"sw_power_cap_s", NULL})), s);
    CU_ASSERT_EQUAL(num(path(c1, (const char *[]){"thermal_s", NULL})), 0);
    CU_ASSERT(num(path(c1, (const char *[]){"sm_clock_pct_of_max", NULL})) < 95);
    CU_ASSERT_EQUAL(num(path(c0, (const char *[]){"power_capped_s", NULL})), 0);
    CU_ASSERT_EQUAL(num(path(w1, (const char *[]){"power_capped_s", NULL})), 0);
}

static void test_capped_phase(void)
{
    struct hrun h;
    if (!health_run(&h, "hwmon-health", NULL, NULL)) {
        hrun_free(&h);
        CU_FAIL("run");
        return;
    }
    check_capped(&h, "counters");
    json_object *w = path(h.sum, (const char *[]){"health_warnings", NULL});
    CU_ASSERT_FATAL(w && json_object_array_length(w) == 3);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(w, 0)),
                           "GPU 1: 2 new uncorrected ECC errors during the run");
    CU_ASSERT_PTR_NOT_NULL(strstr(json_object_get_string(json_object_array_get_idx(w, 1)),
                                  "GPU 1: the PCIe link changed during the run (gen 3 to 5, x8 "
                                  "to x16)"));
    /* text, row and page say the same */
    char *html = th_fmt("%s/report.html", h.base);
    char *tx[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "text", "--html", html, h.dir,
                  NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(tx, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "GPU 1 was power-capped for "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " of `train` ("));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "warning: GPU 1: 2 new uncorrected ECC errors"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "GPU 0 was power-capped"));
    th_result_free(&r);
    char *page = th_read_file(html, NULL);
    CU_ASSERT_TRUE(page && strstr(page, "GPU 1: 2 new uncorrected ECC errors"));
    /* the capped time is shaded on the power and clock charts, GPU 1's only */
    CU_ASSERT_TRUE(page && strstr(page, "<title>GPU 1 power- or thermally capped</title>"));
    CU_ASSERT_TRUE(page && !strstr(page, "<title>GPU 0 power- or thermally capped</title>"));
    free(page);
    free(html);
    char *row[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "jsonl", h.dir, NULL};
    CU_ASSERT_FATAL(th_run(row, NULL, NULL, 60, &r) == 0);
    json_object *o = json_tokener_parse(r.out);
    CU_ASSERT_EQUAL(num(path(o, (const char *[]){"health_warnings", NULL})), 3);
    double capped = num(path(o, (const char *[]){"gpu_power_capped_pct", NULL}));
    CU_ASSERT(capped > 2 && capped < 40); /* GPU 1's 0.3 s of both GPUs' 0.8 s or more */
    json_object_put(o);
    th_result_free(&r);
    hrun_free(&h);
}

/* A driver without the counters: the same second, from the bitmask. */
static void test_bitmask_only(void)
{
    struct hrun h;
    if (!health_run(&h, "hwmon-health-bits",
                    "clocks_event_reasons_counters.sw_power_cap,"
                    "clocks_event_reasons_counters.sync_boost,"
                    "clocks_event_reasons_counters.sw_thermal_slowdown,"
                    "clocks_event_reasons_counters.hw_thermal_slowdown,"
                    "clocks_event_reasons_counters.hw_power_brake_slowdown",
                    NULL)) {
        hrun_free(&h);
        CU_FAIL("run");
        return;
    }
    check_capped(&h, "bitmask");
    json_object *start = ht_event(h.dir, "start", 0);
    const char *fields = ht_data_str(start, HW_START_HEALTH_FIELDS);
    CU_ASSERT_TRUE(fields && !strstr(fields, "counters"));
    json_object_put(start);
    hrun_free(&h);
}

/* --no-health: no file, no child, nothing said; the GPU samples as ever. */
static void test_no_health(void)
{
    struct hrun h;
    if (!health_run(&h, "hwmon-nohealth", NULL, "--no-health")) {
        hrun_free(&h);
        CU_FAIL("run");
        return;
    }
    char *p = th_fmt("%s/%s", h.dir, HW_HEALTH_FILE);
    CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
    free(p);
    json_object *w = path(h.sum, (const char *[]){"health_warnings", NULL});
    CU_ASSERT_PTR_NULL(w); /* null: not measured */
    CU_ASSERT_PTR_NULL(phase_clocks(h.sum, "train", 1));
    CU_ASSERT(ht_lines(h.dir, HW_GPU_FILE) >= 12); /* 6 samples of 2 GPUs: train's 0.6 s */
    hrun_free(&h);
}

/* A GPU shared with a stranger (pid 1 on GPU 0, FAKE_SMI_APPS_FILE): the job adds its own pid
 * to the fake's processes; --pmon records both, and summarize tells the job's SM share (the
 * fake's second process on the GPU: 30%) from the stranger's (20%). */
static void test_pmon_shared(void)
{
    char *base = th_tmpdir("hwmon-pmon");
    char *dir = th_fmt("%s/run", base), *apps = th_fmt("%s/apps", base);
    CU_ASSERT_FATAL(th_write_file(apps, "1:0:800:stranger\n", 17) == 0);
    /* train lasts until pmon wrote both processes 3 times (8 lines with its 2 header lines) */
    char *wait = ht_job_wait_lines(HW_PMON_FILE, 2 + 3 * 2);
    char *script = th_fmt("echo \"$$:0:500:python\" >> %s; %s -f \"$RUNLOG_FILE\" time train -- "
                          "%s",
                          apps, th_env("HWRUN_RUNLOG_BIN"), wait);
    free(wait);
    char *ev = th_fmt("FAKE_SMI_APPS_FILE=%s", apps);
    /* real seconds, not FAKE_SMI_SPEED: pmon stamps its rows in whole seconds (-o DT), and the
     * phase takes the rows whose second falls in it */
    char *env[] = {ev, NULL};
    char **argv = ht_argv(dir, "-i", "1", "--pmon", "--", "/bin/sh", "-c", script, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env, 60, NULL), 0);
    CU_ASSERT(ht_lines(dir, HW_PMON_FILE) >= 2 + 3 * 2);
    char *sum[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "json", dir, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(sum, NULL, NULL, 60, &r) == 0 && r.status == 0);
    json_object *o = json_tokener_parse(r.out);
    th_result_free(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    json_object *p0 = path(o, (const char *[]){"gpus", "0", "processes", NULL});
    json_object *p1 = path(o, (const char *[]){"gpus", "1", "processes", NULL});
    CU_ASSERT_PTR_NOT_NULL_FATAL(p0);
    CU_ASSERT_PTR_NULL(path(p0, (const char *[]){"unattributed", NULL}));
    CU_ASSERT_EQUAL(num(path(p0, (const char *[]){"own_sm_max_pct", NULL})), 30);
    CU_ASSERT_EQUAL(num(path(p0, (const char *[]){"others_sm_max_pct", NULL})), 20);
    CU_ASSERT(num(path(p0, (const char *[]){"own_lines", NULL})) >= 2);
    CU_ASSERT_EQUAL(num(path(p1, (const char *[]){"all_sm_mean_pct", NULL})), 0); /* nothing */
    /* the phase says the same */
    json_object *ph = path(o, (const char *[]){"phases", "0", "gpus", "0", "processes", NULL});
    CU_ASSERT_EQUAL(num(path(ph, (const char *[]){"own_sm_max_pct", NULL})), 30);
    json_object_put(o);
    free(argv);
    free(script);
    free(ev);
    free(apps);
    free(dir);
    th_rmtree(base);
    free(base);
}

void add_health_suite(void);
void add_health_suite(void)
{
    CU_pSuite s = th_add_suite("health", NULL, NULL, 120);
    CU_add_test(s, "capped_phase", test_capped_phase);
    CU_add_test(s, "bitmask_only", test_bitmask_only);
    CU_add_test(s, "no_health", test_no_health);
    CU_add_test(s, "pmon_shared", test_pmon_shared);
}
