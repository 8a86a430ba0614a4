/* The GPUs' energy counters through NVML (hwmon/nvml.h), with the tests' fake libnvidia-ml.so
 * (HWRUN_FAKE_NVML): its counter grows at exactly 300 W on GPU 0 and 310 W on GPU 1, in 100 ms
 * steps, so a phase's energy is known. Per phase, summarize's counter energy is the watts times
 * the phase's seconds within the counter's resolution, and the integrated figure is beside it;
 * a GPU without the counter, NVML missing, an init that fails, a driver/library mismatch and
 * --no-nvml change nothing else. */
#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hwrun/timeutil.h"
#include "hwtest.h"

struct nrun {
    char *base, *dir;
    json_object *sum, *start;
};

/* hwmon with the fake NVML (lib NULL: the suite's default, a path that does not exist) and the
 * fake's settings extra, around warm (warm_cmd, NULL: 0.3 s) and, with train, train 0.3 s (a
 * test that looks at no phase has none to wait for). At -i 0.1 a phase of 0.3 s is three counter
 * readings: the energy's tolerance is a period at each end, whatever the phase's length. */
static bool nvml_run_phases(struct nrun *n, const char *tag, const char *lib, char *const *extra,
                            const char *opt, const char *warm_cmd, bool train)
{
    n->base = th_tmpdir(tag);
    n->dir = th_fmt("%s/run", n->base);
    char *script = th_fmt("R=\"%s -f $RUNLOG_FILE time\"; $R warm -- %s%s",
                          th_env("HWRUN_RUNLOG_BIN"), warm_cmd ? warm_cmd : "sleep 0.3",
                          train ? " && $R train -- sleep 0.3" : "");
    char *libv = th_fmt("HWMON_NVML_LIBRARY=%s", lib ? lib : "/nonexistent/libnvidia-ml.so.1");
    char *env[8] = {libv};
    int k = 1;
    for (int i = 0; extra && extra[i] && k < 7; i++)
        env[k++] = extra[i];
    env[k] = NULL;
    char **argv = opt ? ht_argv(n->dir, "-i", "0.1", opt, "--", "/bin/sh", "-c", script, NULL)
                      : ht_argv(n->dir, "-i", "0.1", "--", "/bin/sh", "-c", script, NULL);
    int st = ht_run(argv, env, 60, NULL);
    free(argv);
    free(script);
    free(libv);
    CU_ASSERT_EQUAL(st, 0);
    n->start = ht_event(n->dir, "start", 0);
    char *sum[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "json", n->dir, NULL};
    struct th_result r;
    n->sum = NULL;
    if (th_run(sum, NULL, NULL, 60, &r) == 0 && r.status == 0)
        n->sum = json_tokener_parse(r.out);
    th_result_free(&r);
    return st == 0 && n->sum && n->start;
}

static bool nvml_run_warm(struct nrun *n, const char *tag, const char *lib, char *const *extra,
                          const char *opt, const char *warm_cmd)
{
    return nvml_run_phases(n, tag, lib, extra, opt, warm_cmd, true);
}

static void nrun_free(struct nrun *n)
{
    json_object_put(n->sum);
    json_object_put(n->start);
    th_rmtree(n->base);
    free(n->base);
    free(n->dir);
}




/* element i of array key */
static json_object *at(json_object *o, const char *key, size_t i)
{
    json_object *a = ht_get(o, key);
    return a && json_object_is_type(a, json_type_array) && i < json_object_array_length(a)
               ? json_object_array_get_idx(a, i)
               : NULL;
}

static bool file_there(const struct nrun *n, const char *name)
{
    char *p = th_fmt("%s/%s", n->dir, name);
    bool ok = access(p, F_OK) == 0;
    free(p);
    return ok;
}

static void test_counter(void)
{
    struct nrun n;
    /* warm: until the header and 10 counter rows (five readings of the two GPUs) */
    char *wait = ht_job_wait_lines(HW_ENERGY_FILE, 11);
    bool ran = nvml_run_warm(&n, "hwmon-nvml", th_env("HWRUN_FAKE_NVML"), NULL, NULL, wait);
    free(wait);
    if (!ran) {
        CU_FAIL("run");
        nrun_free(&n);
        return;
    }
    json_object *ec = ht_get(ht_get(n.start, "data"), HW_START_ENERGY_COUNTER);
    CU_ASSERT_STRING_EQUAL(ht_str(ec, "source"), "nvml");
    CU_ASSERT_TRUE(ht_get(ec, "gpus") && json_object_array_length(ht_get(ec, "gpus")) == 2);
    CU_ASSERT(ht_lines(n.dir, HW_ENERGY_FILE) >= 11);
    for (size_t p = 0; p < 2; p++) {
        json_object *ph = at(n.sum, "phases", p);
        double secs = ht_num(ph, "seconds");
        for (size_t g = 0; g < 2; g++) {
            json_object *pg = at(ph, "gpus", g);
            /* the seconds the counter was read in: all of the phase, but for the part of the
             * first one that passed before nvidia-smi's probes, run beside the job, answered
             * (0.2 s seen on a loaded machine under ASan); test_late_probe checks that span */
            double cov = ht_num(pg, "energy_covered_sec");
            CU_ASSERT(cov > 0 && cov <= secs + 1e-6);
            double watts = 300 + 10 * (double)g, truth = watts * cov / 3600;
            double e = ht_num(pg, "energy_wh"), tol = watts * 0.1 * 2 / 3600; /* a period each end */
            CU_ASSERT_STRING_EQUAL(ht_str(pg, "energy_source"), "counter");
            if (!(fabs(e - truth) <= tol))
                fprintf(stderr, "phase %zu GPU %zu: %g Wh over %g of %g s, truth %g Wh\n", p, g,
                        e, cov, secs, truth);
            CU_ASSERT(fabs(e - truth) <= tol);
            CU_ASSERT_EQUAL(ht_num(pg, "energy_counter_wh"), e);
            CU_ASSERT(ht_num(pg, "energy_integrated_wh") > 0); /* the fake nvidia-smi's ~100 W */
        }
    }
    json_object *g0 = at(n.sum, "gpus", 0);
    CU_ASSERT_STRING_EQUAL(ht_str(g0, "energy_source"), "counter");
    double period = ht_num(ht_get(g0, "energy_counter"), "update_period_sec");
    CU_ASSERT(period >= 0.09 && period <= 0.25); /* 100 ms steps read every 100 ms */
    /* the run's energy is the GPUs' counters */
    double sum = ht_num(g0, "energy_wh") + ht_num(at(n.sum, "gpus", 1), "energy_wh");
    CU_ASSERT(fabs(ht_num(n.sum, "energy_wh") - sum) <= 1e-9 * sum);
    nrun_free(&n);
}

/* The time of the first data row of a run file (NAN: none). */
static double first_row_time(const struct nrun *n, const char *file)
{
    char *p = th_fmt("%s/%s", n->dir, file);
    char *text = th_read_file(p, NULL);
    free(p);
    const char *row = text ? strchr(text, '\n') : NULL;
    double t = NAN;
    if (!row || !hw_parse_iso(row + 1, strcspn(row + 1, ","), &t))
        t = NAN;
    free(text);
    return t;
}

/* nvidia-smi slow to answer (60 ms a call, as on a node without persistence mode, only
 * shorter): the wrapped job starts first and its GPUs are read from when the probes answer, so
 * the first phase's energy spans only its part after the first reading. The summary says that
 * span, the energy is of it, and the text calls the phase's energy partly unmeasured; the
 * second phase, read throughout, is not. */
static void test_late_probe(void)
{
    struct nrun n;
    char *extra[] = {"FAKE_SMI_START_DELAY_MS=60", NULL};
    /* warm lasts until the GPUs were first read, and 0.3 s more (three counter readings, as
     * every phase of this suite): on a loaded machine the probes may take longer than any fixed
     * phase (an event, not a clock) */
    if (!nvml_run_warm(&n, "hwmon-nvml-late", th_env("HWRUN_FAKE_NVML"), extra, NULL,
                       "sh -c 'i=0; while [ ! -s \"$HWMON_DIR/" HW_ENERGY_FILE "\" ] && "
                       "[ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.3'")) {
        CU_FAIL("run");
        nrun_free(&n);
        return;
    }
    double first = first_row_time(&n, HW_ENERGY_FILE), end;
    json_object *warm = at(n.sum, "phases", 0), *train = at(n.sum, "phases", 1);
    CU_ASSERT_FATAL(isfinite(first) && warm && train);
    CU_ASSERT_TRUE(hw_parse_iso(ht_str(warm, "end"), strlen(ht_str(warm, "end")), &end));
    double secs = ht_num(warm, "seconds"), cov = ht_num(warm, "energy_covered_sec");
    /* five probes of at least 60 ms each before the first reading, the phase 0.3 s after it */
    CU_ASSERT(cov <= secs - 0.25);
    /* from the first reading to the phase's end, to the ISO times' milliseconds; a hole in the
     * readings (a loaded TSan hwmon stalled beyond the gap rule: quality's gaps) is unmeasured,
     * never bridged */
    json_object *q = ht_get(ht_get(ht_get(n.sum, "quality"), "files"), HW_ENERGY_FILE);
    if (ht_num(q, "gaps") > 0) {
        CU_ASSERT(cov < end - first + 0.002);
    } else {
        CU_ASSERT(fabs(cov - (end - first)) <= 0.002);
    }
    if (!(fabs(cov - (end - first)) <= 0.002))
        fprintf(stderr, "warm covered %.3f s, first reading to its end %.3f s, gaps %g\n", cov,
                end - first, ht_num(q, "gaps"));
    for (size_t g = 0; g < 2; g++) {
        json_object *pg = at(warm, "gpus", g);
        double watts = 300 + 10 * (double)g, e = ht_num(pg, "energy_wh");
        CU_ASSERT_EQUAL(ht_num(pg, "energy_covered_sec"), cov); /* both read from then */
        CU_ASSERT(fabs(e - watts * cov / 3600) <= watts * 0.1 * 2 / 3600);
    }
    CU_ASSERT_EQUAL(ht_num(train, "energy_covered_sec"), ht_num(train, "seconds"));
    char *txt[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "text", n.dir, NULL};
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(th_run(txt, NULL, NULL, 60, &r), 0);
    const char *w = strstr(r.out, "phase warm:"), *t = strstr(r.out, "phase train:");
    CU_ASSERT(w && t && w < t);
    /* the note is the warm phase's (before train's line), and the only phase's; the run's
     * headline says it too (its energy began with the probes' end, as warm's) */
    const char *head = strstr(r.out, "of it: partly unmeasured)");
    CU_ASSERT(head && w && head < w);
    const char *note = w ? strstr(w, "of it: partly unmeasured)") : NULL;
    CU_ASSERT(note && w && t && note > w && note < t);
    CU_ASSERT(note && !strstr(note + 1, "of it: partly unmeasured)"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "began before hwmon started")); /* it began after */
    th_result_free(&r);
    /* hwmon killed (no stop event): when it began is its start event's time less setup_s */
    char *log = th_fmt("%s/%s", n.dir, HW_RUNLOG_FILE);
    char *text = th_read_file(log, NULL), *stop = text ? strstr(text, "\"event\": \"stop\"") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    char *line = stop;
    while (line > text && line[-1] != '\n')
        line--;
    *line = '\0'; /* the stop event is the log's last line */
    CU_ASSERT_EQUAL(th_write_file(log, text, strlen(text)), 0);
    CU_ASSERT_EQUAL_FATAL(th_run(txt, NULL, NULL, 60, &r), 0);
    CU_ASSERT_PTR_NULL(strstr(r.out, "began before hwmon started"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "of it: partly unmeasured)"));
    th_result_free(&r);
    json_object *st = ht_get(n.start, "data");
    CU_ASSERT(ht_num(st, HW_START_SETUP) >= 0.25 && ht_num(st, HW_START_SETUP) < 30);
    free(text);
    free(log);
    nrun_free(&n);
}

/* GPU 1 without the counter: GPU 0's rows only, and GPU 1 keeps its integrated energy (warm
 * lasts until the health child, whose instant power it is integrated from, wrote both GPUs
 * twice and GPU 0's counter was read twice: a loaded TSan hwmon's probes, beside the job,
 * outlasted a fixed 0.6 s of phases). */
static void test_unsupported_gpu(void)
{
    struct nrun n;
    char *extra[] = {"FAKE_NVML_NO_COUNTER=1", NULL};
    const char *wait = "timeout 60 sh -c 'n() { cat \"$HWMON_DIR/$1\" 2>/dev/null | wc -l; }; "
                       "until [ $(n " HW_HEALTH_FILE ") -ge 5 ] && [ $(n " HW_ENERGY_FILE ") -ge 3 ]; "
                       "do sleep 0.05; done'";
    bool ran = nvml_run_warm(&n, "hwmon-nvml-one", th_env("HWRUN_FAKE_NVML"), extra, NULL, wait);
    if (!ran) {
        CU_FAIL("run");
        nrun_free(&n);
        return;
    }
    json_object *ec = ht_get(ht_get(n.start, "data"), HW_START_ENERGY_COUNTER);
    CU_ASSERT_TRUE(ht_get(ec, "gpus") && json_object_array_length(ht_get(ec, "gpus")) == 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(ht_str(ec, "note"), "1 GPU without an energy counter"));
    char *p = th_fmt("%s/%s", n.dir, HW_ENERGY_FILE);
    char *text = th_read_file(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NULL(strstr(text, ",1,")); /* no row of GPU 1 */
    free(text);
    free(p);
    CU_ASSERT_STRING_EQUAL(ht_str(at(n.sum, "gpus", 0), "energy_source"), "counter");
    json_object *g1 = at(n.sum, "gpus", 1);
    CU_ASSERT_STRING_EQUAL(ht_str(g1, "energy_source"), "instant"); /* hw_health.csv's */
    CU_ASSERT(ht_num(g1, "energy_wh") > 0);
    nrun_free(&n);
}

/* NVML missing, an init that fails, a mismatch: no counter, the reason in the start event, the
 * GPUs sampled as ever. --no-nvml: not even a reason. */
static void test_no_counter(void)
{
    static const struct {
        const char *mode; /* NULL: the library is missing */
        const char *why;
    } cases[] = {
        {NULL, "no NVML"},
        {"FAKE_NVML_MODE=init_fail", "NVML init failed: Driver Not Loaded (9)"},
        {"FAKE_NVML_MODE=mismatch", "NVML init failed: Driver/library version mismatch (18)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nrun n;
        char *extra[] = {(char *)cases[i].mode, NULL};
        /* the job lasts until 6 GPU rows (three samples of the two GPUs) and the health
         * child's header and 4 rows (the instant power the energy is integrated from: a loaded
         * TSan hwmon's came later than the GPU rows) are written (or 60 s), not for a fixed
         * time that a loaded machine fills with fewer */
        const char *wait = "timeout 60 sh -c 'n() { cat \"$HWMON_DIR/$1\" 2>/dev/null | wc -l; "
                           "}; until [ $(n " HW_GPU_FILE ") -ge 6 ] && [ $(n " HW_HEALTH_FILE
                           ") -ge 5 ]; do sleep 0.05; done'";
        bool ran = nvml_run_phases(&n, "hwmon-nvml-none",
                                   cases[i].mode ? th_env("HWRUN_FAKE_NVML") : NULL, extra, NULL,
                                   wait, false);
        if (!ran) {
            CU_FAIL("run");
            nrun_free(&n);
            continue;
        }
        CU_ASSERT_FALSE(file_there(&n, HW_ENERGY_FILE));
        json_object *ec = ht_get(ht_get(n.start, "data"), HW_START_ENERGY_COUNTER);
        CU_ASSERT_PTR_NOT_NULL(strstr(ht_str(ec, "error"), cases[i].why));
        CU_ASSERT(ht_lines(n.dir, HW_GPU_FILE) >= 6);
        CU_ASSERT_STRING_EQUAL(ht_str(at(n.sum, "gpus", 0), "energy_source"), "instant");
        CU_ASSERT(ht_num(n.sum, "energy_wh") > 0);
        nrun_free(&n);
    }
    struct nrun n;
    if (nvml_run_phases(&n, "hwmon-nvml-off", th_env("HWRUN_FAKE_NVML"), NULL, "--no-nvml", NULL,
                        false)) {
        CU_ASSERT_FALSE(file_there(&n, HW_ENERGY_FILE));
        CU_ASSERT_PTR_NULL(ht_get(ht_get(n.start, "data"), HW_START_ENERGY_COUNTER));
    } else {
        CU_FAIL("run");
    }
    nrun_free(&n);
}

void add_nvml_suite(void);
void add_nvml_suite(void)
{
    CU_pSuite s = th_add_suite("nvml", NULL, NULL, 120);
    CU_add_test(s, "counter", test_counter);
    CU_add_test(s, "unsupported_gpu", test_unsupported_gpu);
    CU_add_test(s, "no_counter", test_no_counter);
    CU_add_test(s, "late_probe", test_late_probe);
}
