/* hwmon's GPM activity metrics (--gpm, --no-gpm, on by default when the probe finds them), run
 * against the fake nvidia-smi's `dmon --gpm-metrics`: the child and its file, GPUs without GPM
 * (their cells stay `-`), a driver from before GPM (no child, one event, nothing else
 * disturbed). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hwrun/timeutil.h"
#include "hwtest.h"
#include "summary.h"

struct gpm_run {
    char *dir, *log;
    int status;
    struct th_result res;
};

/* hwmon at 0.5 s (query -lms 500, dmon and GPM -d 1) with the given FAKE_SMI_* settings and
 * option, around a job that lasts until what the tests count was written (or 60 s): 4 lines of
 * hw_metrics.csv and of hw_dmon.csv and, where GPM is expected, two rows a GPU (the fake's two)
 * under the GPM file's two header lines. Not a fixed time a loaded machine fills with fewer.
 * The fake's clock runs 4 times as fast (FAKE_SMI_SPEED): the rows counted are intervals of
 * its, whatever their seconds; hwmon's hang rule (5 intervals of 1 s) is met all the sooner. */
static struct gpm_run gpm_run(const char *fake_gpm, const char *opt)
{
    struct gpm_run g = {th_tmpdir("hwmon-gpm"), NULL, 0, {0}};
    g.log = th_fmt("%s/smi.log", g.dir);
    char *env[4] = {th_fmt("FAKE_SMI_LOG=%s", g.log), "FAKE_SMI_SPEED=4", NULL, NULL};
    if (fake_gpm)
        env[2] = th_fmt("FAKE_SMI_GPM=%s", fake_gpm);
    bool gpm = !(fake_gpm && !strcmp(fake_gpm, "none")) && !(opt && !strcmp(opt, "--no-gpm"));
    char *w1 = ht_job_wait_lines("hw_metrics.csv", 4), *w2 = ht_job_wait_lines("hw_dmon.csv", 4);
    char *w3 = ht_job_wait_lines(HW_GPM_FILE, 2 + 2 * 2);
    char *job = th_fmt("%s; %s%s%s", w1, w2, gpm ? "; " : "", gpm ? w3 : "");
    char **argv = opt ? ht_argv(g.dir, "-i", "0.5", opt, "--", "/bin/sh", "-c", job, NULL)
                      : ht_argv(g.dir, "-i", "0.5", "--", "/bin/sh", "-c", job, NULL);
    g.status = ht_run(argv, env, 60, &g.res);
    free(env[0]);
    free(env[2]);
    free(argv);
    free(job);
    free(w1);
    free(w2);
    free(w3);
    return g;
}

static void gpm_done(struct gpm_run *g)
{
    th_result_free(&g->res);
    th_rmtree(g->dir);
    free(g->dir);
    free(g->log);
}

static json_object *child_named(json_object *start, const char *name)
{
    json_object *ch = ht_data(start, "children");
    for (size_t i = 0; ch && i < json_object_array_length(ch); i++) {
        json_object *c = json_object_array_get_idx(ch, i), *v;
        if (json_object_object_get_ex(c, "name", &v) && !strcmp(json_object_get_string(v), name))
            return c;
    }
    return NULL;
}

/* The GPM file's rows for one GPU: how many, and how many with `-` in every GPM column. */
static void gpm_rows(const char *dir, int gpu, int *rows, int *dashed)
{
    char *p = th_fmt("%s/" HW_GPM_FILE, dir);
    char *text = th_read_file(p, NULL);
    free(p);
    *rows = *dashed = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] != '#') {
            /* " 20261122   23:30:11      0      0 ... " */
            char *tok[64];
            int nt = 0;
            for (char *t = line; *t && nt < 64;) {
                while (*t == ' ')
                    *t++ = '\0';
                if (*t)
                    tok[nt++] = t;
                while (*t && *t != ' ')
                    t++;
            }
            if (nt == 3 + 6 + HW_GPM_NCOLS && strtol(tok[2], NULL, 10) == gpu) {
                (*rows)++;
                int d = 0;
                for (int i = 9; i < nt; i++)
                    d += !strcmp(tok[i], "-");
                *dashed += d == HW_GPM_NCOLS;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
}

/* GPUs with GPM: the child runs `dmon -s u --gpm-metrics IDS -o DT`, its file has the GPM
 * header and a row per GPU per second; the start event says so; nothing is logged as missing. */
static void test_gpm_auto(void)
{
    struct gpm_run g = gpm_run(NULL, NULL);
    CU_ASSERT_EQUAL(g.status, 0);
    json_object *st = ht_event(g.dir, "start", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_TRUE(json_object_get_boolean(ht_data(st, "gpm")));
    json_object *c = child_named(st, "gpm"), *v;
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_TRUE(json_object_object_get_ex(c, "file", &v) &&
                   !strcmp(json_object_get_string(v), HW_GPM_FILE));
    CU_ASSERT_TRUE(json_object_object_get_ex(c, "argv", &v));
    const char *argv = json_object_to_json_string(v);
    CU_ASSERT_PTR_NOT_NULL(strstr(argv, "\"--gpm-metrics\", \"" HW_GPM_METRIC_IDS "\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(argv, "\"-o\", \"DT\""));
    json_object_put(st);
    CU_ASSERT_EQUAL(ht_count_events(g.dir, "gpm_unavailable"), 0);
    char *p = th_fmt("%s/" HW_GPM_FILE, g.dir);
    char *text = th_read_file(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(strncmp(text, "#Date       Time        gpu ", 28), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "     gract    smutil     smocc    mmaact      dram"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "     GPM:%"));
    free(text);
    free(p);
    int rows, dashed;
    gpm_rows(g.dir, 1, &rows, &dashed);
    CU_ASSERT(rows >= 2);
    CU_ASSERT_EQUAL(dashed, 0);
    /* hw_dmon.csv keeps its layout (pytyche reads its third column) */
    char *dp = th_fmt("%s/hw_dmon.csv", g.dir);
    char *dt = th_read_file(dp, NULL);
    CU_ASSERT_TRUE(dt && !strncmp(dt, "# gpu ", 6) && !strstr(dt, "smutil"));
    free(dt);
    free(dp);
    gpm_done(&g);
}

/* GPU 0 without GPM (as in the H800 capture): the child still runs, GPU 0's GPM cells stay
 * `-`, and one event names GPU 0. */
static void test_gpm_partial(void)
{
    struct gpm_run g = gpm_run("1", NULL);
    CU_ASSERT_EQUAL(g.status, 0);
    CU_ASSERT_EQUAL(ht_count_events(g.dir, "gpm_unavailable"), 1);
    json_object *u = ht_event(g.dir, "gpm_unavailable", 0);
    json_object *gpus = ht_data(u, "gpus");
    CU_ASSERT_TRUE(gpus && json_object_array_length(gpus) == 1 &&
                   json_object_get_int(json_object_array_get_idx(gpus, 0)) == 0);
    json_object_put(u);
    int rows, dashed;
    gpm_rows(g.dir, 0, &rows, &dashed);
    CU_ASSERT(rows >= 2);
    CU_ASSERT_EQUAL(dashed, rows);
    gpm_rows(g.dir, 1, &rows, &dashed);
    CU_ASSERT(rows >= 2);
    CU_ASSERT_EQUAL(dashed, 0);
    gpm_done(&g);
}

/* A driver from before GPM rejects --gpm-metrics: no GPM child, no file, one event with the
 * driver's words, and the query and dmon children are not disturbed. Silent unless --gpm. */
static void test_gpm_old_driver(void)
{
    for (int explicit = 0; explicit < 2; explicit++) {
        struct gpm_run g = gpm_run("none", explicit ? "--gpm" : NULL);
        CU_ASSERT_EQUAL(g.status, 0);
        CU_ASSERT_EQUAL(ht_count_events(g.dir, "gpm_unavailable"), 1);
        json_object *u = ht_event(g.dir, "gpm_unavailable", 0);
        const char *why = ht_data_str(u, "reason"), *out = ht_data_str(u, "output");
        CU_ASSERT_TRUE(why && strstr(why, "failed"));
        CU_ASSERT_TRUE(out && strstr(out, "--gpm-metrics is not recognized"));
        /* asked for, it is an error; by default, a fact about the GPUs (most have no GPM) */
        json_object *data = NULL;
        json_object_object_get_ex(u, "data", &data);
        CU_ASSERT_EQUAL(sum_event_error_like("gpm_unavailable", data), explicit);
        const char *sev = ht_data_str(u, HW_EV_SEVERITY);
        CU_ASSERT_TRUE(explicit ? sev == NULL : sev && !strcmp(sev, HW_EV_SEVERITY_INFO));
        json_object_put(u);
        json_object *st = ht_event(g.dir, "start", 0);
        CU_ASSERT_FALSE(json_object_get_boolean(ht_data(st, "gpm")));
        CU_ASSERT_PTR_NULL(child_named(st, "gpm"));
        CU_ASSERT_PTR_NOT_NULL(child_named(st, "dmon"));
        json_object_put(st);
        char *p = th_fmt("%s/" HW_GPM_FILE, g.dir);
        CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
        free(p);
        CU_ASSERT(ht_lines(g.dir, "hw_metrics.csv") >= 4);
        CU_ASSERT(ht_lines(g.dir, "hw_dmon.csv") >= 4);
        CU_ASSERT_EQUAL(ht_count_events(g.dir, "child_exit"), 0);
        if (explicit) {
            CU_ASSERT_PTR_NOT_NULL(strstr(g.res.err, "--gpm: "));
        } else {
            CU_ASSERT_EQUAL(g.res.err_len, 0);
        }
        gpm_done(&g);
    }
}

/* --no-gpm: not even the probe runs. */
static void test_no_gpm(void)
{
    struct gpm_run g = gpm_run(NULL, "--no-gpm");
    CU_ASSERT_EQUAL(g.status, 0);
    CU_ASSERT_EQUAL(ht_smi_starts(g.log, "--gpm-metrics"), 0);
    CU_ASSERT_EQUAL(ht_count_events(g.dir, "gpm_unavailable"), 0);
    json_object *st = ht_event(g.dir, "start", 0);
    CU_ASSERT_FALSE(json_object_get_boolean(ht_data(st, "gpm")));
    CU_ASSERT_PTR_NULL(child_named(st, "gpm"));
    json_object_put(st);
    CU_ASSERT(ht_lines(g.dir, "hw_dmon.csv") >= 4);
    gpm_done(&g);
}

/* FAKE_SMI_SPEED, which gpm_run uses: dmon -d 1 -c 5 at speed 10 prints its 5 intervals 0.1 s
 * apart, so in at least 0.4 s and far less than 4, the same rows as at speed 1000; a speed that
 * is no whole number from 1 to 1000 is the test's mistake: exit 255, said on stderr. */
static void test_fake_speed(void)
{
    char *argv[] = {(char *)th_env("HWRUN_FAKE_SMI"), "dmon", "-s", "um", "-d", "1", "-c", "5",
                    NULL};
    struct th_result faster, fast;
    char *env1k[] = {"FAKE_SMI_SPEED=1000", NULL}, *env10[] = {"FAKE_SMI_SPEED=10", NULL};
    CU_ASSERT_EQUAL_FATAL(th_run(argv, env1k, NULL, 30, &faster), 0);
    double t0 = hw_mono_now();
    CU_ASSERT_EQUAL_FATAL(th_run(argv, env10, NULL, 30, &fast), 0);
    double took = hw_mono_now() - t0;
    CU_ASSERT_EQUAL(fast.status, 0);
    CU_ASSERT_EQUAL(th_count_lines(fast.out), 2 + 5 * 2); /* header pair, 5 intervals x 2 GPUs */
    CU_ASSERT_STRING_EQUAL(fast.out, faster.out);
    CU_ASSERT(took >= 0.4 && took < 3.0);
    if (!(took >= 0.4 && took < 3.0))
        fprintf(stderr, "[fake_speed] 5 intervals at speed 10 took %.2f s\n", took);
    th_result_free(&faster);
    th_result_free(&fast);
    static const char *const bad[] = {"FAKE_SMI_SPEED=0", "FAKE_SMI_SPEED=1001",
                                      "FAKE_SMI_SPEED=2.5", "FAKE_SMI_SPEED=x", NULL};
    for (int i = 0; bad[i]; i++) {
        char *env[] = {(char *)bad[i], NULL};
        struct th_result r;
        CU_ASSERT_EQUAL_FATAL(th_run(argv, env, NULL, 30, &r), 0);
        CU_ASSERT_EQUAL(r.status, 255);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "bad FAKE_SMI_SPEED="));
        th_result_free(&r);
    }
}

void add_gpm_suite(void);
void add_gpm_suite(void)
{
    CU_pSuite s = th_add_suite("gpm", NULL, NULL, 120);
    CU_add_test(s, "auto", test_gpm_auto);
    CU_add_test(s, "partial", test_gpm_partial);
    CU_add_test(s, "old_driver", test_gpm_old_driver);
    CU_add_test(s, "no_gpm", test_no_gpm);
    CU_add_test(s, "fake_speed", test_fake_speed);
}
