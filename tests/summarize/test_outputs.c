/* What summarize prints, as a user reads it: one JSON document for several directories, -w alone
 * printing nothing, and text by default on a terminal (JSON when piped). */
#include <dirent.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "gpurow.h"
#include "html.h"
#include "jobreport.h"
#include "liveview.h"
#include "report.h"
#include "sumtest.h"
#include "system.h"

void add_outputs_suite(void);

static char *make_run(const char *base, const char *name)
{
    char *dir = th_fmt("%s/%s", base, name);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    put_file(dir, "cpu_metrics.csv", "timestamp,cpu_usr_pct,cpu_idle_pct\n"
                                     "2026-11-21T10:00:01.000+00:00,10,90\n"
                                     "2026-11-21T10:00:02.000+00:00,30,70\n");
    return dir;
}

static void test_several_dirs_one_document(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a"), *b = make_run(base, "b");
    struct th_result r = run_summarize((char *[]){a, b, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    enum json_tokener_error err;
    struct json_object *doc = json_tokener_parse_verbose(r.out, &err);
    CU_ASSERT_FATAL(doc && json_object_is_type(doc, json_type_array));
    CU_ASSERT_EQUAL(json_object_array_length(doc), 2);
    struct json_object *v;
    CU_ASSERT(json_object_object_get_ex(json_object_array_get_idx(doc, 1), "dir", &v) &&
              !strcmp(json_object_get_string(v), b));
    json_object_put(doc);
    th_result_free(&r);
    /* one directory: the object itself, as before */
    r = run_summarize((char *[]){a, NULL});
    doc = json_tokener_parse(r.out);
    CU_ASSERT(doc && json_object_is_type(doc, json_type_object));
    json_object_put(doc);
    th_result_free(&r);
    /* jsonl: one object per line */
    r = run_summarize((char *[]){"--format", "jsonl", a, b, NULL});
    CU_ASSERT_EQUAL(th_count_lines(r.out), 2);
    th_result_free(&r);
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

static void test_write_alone_prints_nothing(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a");
    struct th_result r = run_summarize((char *[]){"-w", a, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(r.out_len, 0);
    char *sj = th_fmt("%s/summary.json", a);
    CU_ASSERT_EQUAL(access(sj, R_OK), 0);
    th_result_free(&r);
    r = run_summarize((char *[]){"-w", "--format", "json", a, NULL}); /* asked for: printed too */
    CU_ASSERT(r.out_len > 0);
    th_result_free(&r);
    free(sj);
    th_rmtree(base);
    free(a);
    free(base);
}

/* On a terminal (script(1) gives it one) one directory comes out as text. */
static void test_terminal_default_text(void)
{
    if (access("/usr/bin/script", X_OK) != 0) {
        th_skip("no script(1) (util-linux's bsdutils) for a pseudo-terminal");
        return;
    }
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a");
    char *cmd = th_fmt("'%s' -q '%s'", th_env("HWRUN_SUMMARIZE_BIN"), a);
    char *argv[] = {"/usr/bin/script", "-qec", cmd, "/dev/null", NULL};
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(th_run(argv, NULL, NULL, 60, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "run "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "duration"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "\"schema\""));
    th_result_free(&r);
    free(cmd);
    th_rmtree(base);
    free(a);
    free(base);
}

/* A sweep grouped by hyperparameter: the config events' data as param.KEY columns, lined up by
 * name across runs that have different parameters. */
static void test_params_columns(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a"), *b = make_run(base, "b");
    put_file(a, "run.jsonl", "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", "
                             "\"event\": \"config\", \"data\": {\"lr\": 0.0003, \"model\": \"gpt, 2\", "
                             "\"optim\": {\"name\": \"adam\"}}}\n");
    put_file(b, "run.jsonl", "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", "
                             "\"event\": \"hp\", \"data\": {\"lr\": 0.001, \"batch\": 64}}\n"
                             "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", "
                             "\"event\": \"config\", \"data\": {\"lr\": 0.001, \"batch\": 64}}\n");
    struct th_result r = run_summarize((char *[]){"--format", "csv", a, b, NULL});
    char *l1 = strchr(r.out, '\n'), *l2 = l1 ? strchr(l1 + 1, '\n') : NULL;
    CU_ASSERT_FATAL(l1 && l2);
    *l1 = *l2 = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",param.lr,param.model,param.optim.name,param.batch"));
    CU_ASSERT_PTR_NOT_NULL(strstr(l1 + 1, ",0.0003,\"gpt, 2\",adam,"));        /* a: no batch */
    CU_ASSERT_PTR_NOT_NULL(strstr(l2 + 1, ",0.001,,,64\n"));                 /* b: no model */
    th_result_free(&r);
    r = run_summarize((char *[]){"--params", "hp", b, NULL});
    struct json_object *doc = json_tokener_parse(r.out), *v;
    CU_ASSERT(json_object_object_get_ex(doc, "params", &v) &&
              json_object_object_get_ex(v, "batch", &v) && json_object_get_int(v) == 64);
    json_object_put(doc);
    th_result_free(&r);
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

/* run.jsonl of a run with learning rate lr, two epochs' losses and a final accuracy */
static char *metrics_log(const char *lr, const char *loss1, const char *loss2, const char *acc)
{
    return th_fmt("{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", "
                  "\"event\": \"config\", \"data\": {\"lr\": %s}}\n"
                  "{\"ts\": \"2026-11-21T10:00:01.000+00:00\", \"type\": \"phase\", "
                  "\"name\": \"epoch\", \"seconds\": 1.0, \"steps\": 50, \"loss\": %s}\n"
                  "{\"ts\": \"2026-11-21T10:00:02.000+00:00\", \"type\": \"phase\", "
                  "\"name\": \"epoch\", \"seconds\": 1.0, \"steps\": 50, \"loss\": %s, "
                  "\"exit_status\": 0}\n"
                  "{\"ts\": \"2026-11-21T10:00:02.000+00:00\", \"type\": \"event\", "
                  "\"event\": \"metric\", \"data\": {\"acc\": %s}}\n",
                  lr, loss1, loss2, acc);
}

/* Which run of a sweep was best: the numbers each job logged about itself (metric events, a
 * phase's own numbers) as metric.KEY columns, the last value, beside param.KEY; steps and exit
 * statuses are not metrics. */
static void test_metrics_columns(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a"), *b = make_run(base, "b");
    char *ja = metrics_log("0.001", "2.5", "1.9", "0.91");
    char *jb = metrics_log("0.01", "2.4", "2.2", "0.87");
    put_file(a, "run.jsonl", ja);
    put_file(b, "run.jsonl", jb);
    struct th_result r = run_summarize((char *[]){"--format", "csv", a, b, NULL});
    char *l1 = strchr(r.out, '\n'), *l2 = l1 ? strchr(l1 + 1, '\n') : NULL;
    CU_ASSERT_FATAL(l1 && l2);
    *l1 = *l2 = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",param.lr,metric.loss,metric.acc"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "metric.steps"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "metric.exit_status"));
    CU_ASSERT_PTR_NOT_NULL(strstr(l1 + 1, ",0.001,1.9,0.91"));
    CU_ASSERT_PTR_NOT_NULL(strstr(l2 + 1, ",0.01,2.2,0.87"));
    th_result_free(&r);
    r = run_summarize((char *[]){a, NULL});
    struct json_object *doc = json_tokener_parse(r.out), *m, *v;
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "metrics", &m));
    CU_ASSERT(json_object_object_get_ex(m, "loss", &v) && json_object_get_double(v) == 1.9);
    CU_ASSERT(json_object_object_get_ex(m, "acc", &v) && json_object_get_double(v) == 0.91);
    CU_ASSERT(json_object_object_get_ex(doc, "params", &v) && json_object_object_length(v) == 1);
    json_object_put(doc);
    th_result_free(&r);
    free(ja);
    free(jb);
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

/* A phase's share of the process tree's storage I/O: each row's growth of the cumulative
 * counters, split by the time the phase shares with the row's interval. A wrapped command
 * starts from 0; the row of a job that has exited (memory empty) counts its last bytes. */
static void test_phase_tree_io(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a");
    put_file(a, "proc_metrics.csv",
             "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes\n"
             "2026-11-21T10:00:01.000+00:00,1,1,10.0,50.0,0,1000000\n"
             "2026-11-21T10:00:02.000+00:00,1,1,10.0,50.0,0,2000000\n"
             "2026-11-21T10:00:03.000+00:00,1,1,10.0,50.0,4000000,3000000\n"
             "2026-11-21T10:00:03.500+00:00,,,10.0,,4000000,8000000\n");
    put_file(a, "run.jsonl",
             "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": "
             "\"start\", \"data\": {\"tool\": \"hwmon\", \"mode\": \"wrap\", \"interval_s\": 1}}\n"
             "{\"ts\": \"2026-11-21T10:00:01.500+00:00\", \"type\": \"phase\", \"name\": \"a\", "
             "\"seconds\": 1.5}\n"
             "{\"ts\": \"2026-11-21T10:00:03.500+00:00\", \"type\": \"phase\", \"name\": \"ckpt\", "
             "\"seconds\": 2.0}\n");
    struct th_result r = run_summarize((char *[]){"-q", a, NULL});
    struct json_object *doc = json_tokener_parse(r.out), *ph, *v;
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "phases", &ph));
    static const double want[2][2] = {{0, 1500000}, {4000000, 6500000}};
    for (int i = 0; i < 2; i++) {
        struct json_object *p = json_object_array_get_idx(ph, (size_t)i);
        CU_ASSERT(json_object_object_get_ex(p, "proc_read_bytes", &v) &&
                  json_object_get_double(v) == want[i][0]);
        CU_ASSERT(json_object_object_get_ex(p, "proc_write_bytes", &v) &&
                  json_object_get_double(v) == want[i][1]);
    }
    json_object_put(doc);
    th_result_free(&r);
    th_rmtree(base);
    free(a);
    free(base);
}

/* steps counts the steps that ran: a phase that failed planned its steps= but did not do them
 * (its exception says so), and a failed `step` phase is no step done. */
static void test_steps_done(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a"), *b = make_run(base, "b");
    put_file(a, "run.jsonl",
             "{\"ts\": \"2026-11-21T10:00:01.000+00:00\", \"type\": \"phase\", \"name\": "
             "\"train\", \"seconds\": 1.0, \"steps\": 100}\n"
             "{\"ts\": \"2026-11-21T10:00:02.000+00:00\", \"type\": \"phase\", \"name\": "
             "\"train\", \"seconds\": 1.0, \"steps\": 100, \"exception\": \"RuntimeError\"}\n");
    put_file(b, "run.jsonl",
             "{\"ts\": \"2026-11-21T10:00:01.000+00:00\", \"type\": \"phase\", \"name\": "
             "\"step\", \"seconds\": 0.5}\n"
             "{\"ts\": \"2026-11-21T10:00:02.000+00:00\", \"type\": \"phase\", \"name\": "
             "\"step\", \"seconds\": 0.5, \"exit_status\": 1}\n");
    for (int i = 0; i < 2; i++) {
        struct th_result r = run_summarize((char *[]){"-q", i ? b : a, NULL});
        struct json_object *doc = json_tokener_parse(r.out), *v;
        CU_ASSERT(json_object_object_get_ex(doc, "steps", &v) &&
                  json_object_get_double(v) == (i ? 1 : 100));
        json_object_put(doc);
        th_result_free(&r);
    }
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

/* --compare of two runs of a sweep: the metrics the jobs logged, with their change, and the
 * parameters whose values differ (not those alike). */
static void test_compare_params(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a"), *b = make_run(base, "b");
    char *ja = metrics_log("0.001", "2.5", "1.9", "0.91"), *jb = metrics_log("0.01", "2.4", "2.2",
                                                                             "0.91");
    put_file(a, "run.jsonl", ja);
    put_file(b, "run.jsonl", jb);
    struct th_result r = run_summarize((char *[]){"--compare", a, b, NULL});
    struct json_object *doc = json_tokener_parse(r.out), *arr, *v;
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "params", &arr));
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(arr), 1); /* lr; not what is alike */
    struct json_object *p0 = json_object_array_get_idx(arr, 0);
    CU_ASSERT(json_object_object_get_ex(p0, "param", &v) && !strcmp(json_object_get_string(v), "lr"));
    CU_ASSERT(json_object_object_get_ex(p0, "b", &v) && json_object_get_double(v) == 0.01);
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "metrics", &arr));
    bool loss = false;
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        struct json_object *m = json_object_array_get_idx(arr, i);
        if (json_object_object_get_ex(m, "metric", &v) &&
            !strcmp(json_object_get_string(v), "metric.loss")) {
            loss = json_object_object_get_ex(m, "change", &v) &&
                   fabs(json_object_get_double(v) - 0.3) < 1e-9;
        }
    }
    CU_ASSERT(loss);
    json_object_put(doc);
    th_result_free(&r);
    r = run_summarize((char *[]){"--compare", "--format", "text", a, b, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "  params that differ\n    lr "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "  metric.loss "));
    th_result_free(&r);
    free(ja);
    free(jb);
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

/* --compare prints each figure in its entry's unit, as the text report does (sum_dim_fmt),
 * in --units: every measured figure of the row whose dimension has a unit shows A's value with
 * it on its line of --all (counted from the table); mem=GiB renames and converts peak VRAM
 * (h100-real: 17485 MiB, 17.1 GiB), and the JSON says each metric's unit. */
struct cmp_want {
    const char *text;
    const struct sum_units *u;
    int with_unit, found;
};

static void cmp_want_fig(void *ctx, const char *name, double v, bool integer, enum sum_dim dim)
{
    struct cmp_want *c = ctx;
    if (integer || !isfinite(v) || !*sum_dim_unit(c->u, dim) || !strncmp(name, "phase.", 6))
        return;
    c->with_unit++;
    struct hw_buf want;
    hw_buf_init(&want, NULL, 0);
    hw_buf_printf(&want, "\n  %s ", name);
    const char *line = strstr(c->text, want.p);
    want.len = 0;
    hw_buf_putc(&want, ' ');
    sum_dim_fmt(&want, v, dim, c->u);
    hw_buf_putc(&want, ' ');
    hw_buf_putc(&want, '\0');
    const char *eol = line ? strchr(line + 1, '\n') : NULL;
    const char *at = line ? strstr(line, want.p) : NULL;
    if (at && (!eol || at < eol))
        c->found++;
    else
        fprintf(stderr, "--compare: %s lacks \"%s\"\n", name, want.p);
    hw_buf_free(&want);
}

static void test_compare_units(void)
{
    char *da = th_fmt("%s/runs/h100-real", th_env("HWRUN_TESTDATA"));
    char *db = th_fmt("%s/runs/h100-real-sigterm", th_env("HWRUN_TESTDATA"));
    struct sum_run *a = summarize_dir(da), *b = summarize_dir(db);
    CU_ASSERT_FATAL(a && b);
    struct sum_units gib;
    char err[128];
    sum_units_init(&gib);
    CU_ASSERT_FATAL(sum_units_parse(&gib, "mem=GiB", err, sizeof err) == 0);
    for (int k = 0; k < 2; k++) {
        const struct sum_units *u = k ? &gib : NULL;
        struct hw_buf t;
        hw_buf_init(&t, NULL, 0);
        sum_compare_text(a, b, u, true, &t);
        hw_buf_putc(&t, '\0');
        CU_ASSERT_FATAL(!t.oom);
        struct cmp_want c = {t.p, u, 0, 0};
        sum_report_figures(a, u, true, false, cmp_want_fig, &c);
        CU_ASSERT(c.with_unit > 10);
        CU_ASSERT_EQUAL(c.found, c.with_unit);
        const char *pv = strstr(t.p, k ? "\n  peak_vram_gib " : "\n  peak_vram_mib ");
        CU_ASSERT_PTR_NOT_NULL(pv);
        if (pv)
            CU_ASSERT_PTR_NOT_NULL(strstr(pv, k ? " 17.1 GiB " : " 17485.0 MiB "));
        hw_buf_free(&t);
    }
    struct hw_buf j;
    hw_buf_init(&j, NULL, 0);
    sum_compare_json(a, b, &gib, &j);
    hw_buf_putc(&j, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(j.p, "\"metric\": \"peak_vram_gib\",\n      \"unit\": \"GiB\",\n"
                                       "      \"a\": 17.0751953125,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(j.p, "\"metric\": \"num_samples\",\n      \"unit\": null,"));
    hw_buf_free(&j);
    sum_run_free(a);
    sum_run_free(b);
    free(da);
    free(db);
}

/* The sweep page answers which run was best and why the others failed: a status column with
 * the reason, and the params and metrics of every run lined up by name, sortable. */
static void test_sweep_page_params(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a"), *b = make_run(base, "b");
    char *ja = metrics_log("0.001", "2.5", "1.9", "0.91");
    put_file(a, "run.jsonl", ja);
    put_file(b, "run.jsonl", "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", "
                             "\"event\": \"start\", \"data\": {\"tool\": \"hwmon\", "
                             "\"mode\": \"wrap\"}}\n"
                             "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", "
                             "\"event\": \"config\", \"data\": {\"opt\": \"sgd\"}}\n"
                             "{\"ts\": \"2026-11-21T10:00:02.000+00:00\", \"type\": \"event\", "
                             "\"event\": \"stop\", \"data\": {\"duration_s\": 2.0, "
                             "\"exit_status\": 1, \"reason\": \"command_exit\"}}\n");
    char *page = th_fmt("%s/sweep.html", base);
    struct th_result r = run_summarize((char *[]){"--html", page, a, b, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_FATAL(html != NULL);
    /* the params that vary (each run has its own here) and every metric, by name */
    for (const char *const *h =
             (const char *const[]){"title=\"param.lr (varies across the sweep)\">lr</th>",
                                   "title=\"metric.loss (its last value; lower is better)\">loss</th>",
                                   "title=\"metric.acc (its last value; higher is better)\">acc</th>",
                                   "title=\"param.opt (varies across the sweep)\">opt</th>", NULL};
         *h; h++)
        CU_ASSERT_PTR_NOT_NULL(strstr(html, *h));
    const char *row_a = strstr(html, "<span class=\"rn\">a</span>"),
               *row_b = strstr(html, "<span class=\"rn\">b</span>");
    CU_ASSERT_FATAL(row_a && row_b);
    /* loss: 4 significant digits, as the JSON has it in data-v */
    CU_ASSERT_PTR_NOT_NULL(strstr(row_a, "<td class=\"n\" data-v=\"1.9\">1.900</td>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(row_b, "<td class=\"t\" data-v=\"sgd\">sgd</td>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(row_b, "<span class=\"badstatus\">failed</span>"));
    free(html);
    free(page);
    free(ja);
    th_result_free(&r);
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

/* The text report reads as a person expects: h/min/s durations, usr and sys CPU, the reason of
 * the first error-like event, phases that began before hwmon started flagged. */
static void test_text_for_people(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a");
    put_file(a, "cpu_metrics.csv", "timestamp,usr_pct,sys_pct,idle_pct\n"
                                   "2026-11-21T10:00:01.000+00:00,10,5,85\n"
                                   "2026-11-21T10:00:02.000+00:00,30,15,55\n");
    put_file(a, "run.jsonl",
             "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"tool\": \"hwmon\"}}\n"
             "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": "
             "\"gpu_unavailable\", \"data\": {\"reason\": \"Failed to initialize NVML: Driver/library "
             "version mismatch\\nmore\", \"output\": \"\"}}\n"
             "{\"ts\": \"2026-11-21T10:00:30.000+00:00\", \"type\": \"phase\", \"name\": \"warmup\", "
             "\"seconds\": 90.0}\n"
             "{\"ts\": \"2026-11-21T11:02:35.000+00:00\", \"type\": \"phase\", \"name\": \"train\", "
             "\"seconds\": 3725.0}\n");
    struct th_result r = run_summarize((char *[]){"--format", "text", a, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "CPU usr 20.0% sys 10.0% idle 70.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "phase warmup: 1 min 30 s (began before hwmon started"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "phase train: 1 h 02 min 05 s, energy -"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "(first: gpu_unavailable: Failed to initialize NVML: "
                                         "Driver/library version mismatch)\n"));
    if (!strstr(r.out, "phase train: 1 h 02 min 05 s"))
        fprintf(stderr, "%s", r.out);
    th_result_free(&r);
    /* GPU processes, when gpu_procs.csv was recorded; short energies keep their digits */
    char *basic = th_fmt("%s/runs/basic", th_env("HWRUN_TESTDATA"));
    r = run_summarize((char *[]){"--format", "text", basic, NULL});
    unwrap_text(r.out);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "    GPU process 4243 python3 train.py, worker 0: peak "
                                         "33000.0 MiB\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "10 samples, energy 0.933 Wh\n"));
    th_result_free(&r);
    free(basic);
    th_rmtree(base);
    free(a);
    free(base);
}

/* Output rounds away the binary noise of sums (0.15, not 0.15000000000000002), in JSON and rows,
 * and the MiB keys carry their unit; pytyche's and calibrax's _mb names stay as aliases. */
static void test_rounding_and_units(void)
{
    char *base = th_tmpdir("outputs");
    char *a = make_run(base, "a");
    put_file(a, "cpu_metrics.csv", "timestamp,usr_pct,idle_pct\n"
                                   "2026-11-21T10:00:01.000+00:00,0.1,99.9\n"
                                   "2026-11-21T10:00:02.000+00:00,0.2,99.8\n");
    struct th_result r = run_summarize((char *[]){a, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"cpu_usr_mean_pct\": 0.15,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"peak_vram_mb\": null,")); /* no GPU: unmeasured */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"peak_gpu_mem_mb\": null,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"peak_vram_mib\": null,"));
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "jsonl", a, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"cpu_usr_mean_pct\": 0.15,"));
    th_result_free(&r);
    th_rmtree(base);
    free(a);
    free(base);
}

/* The headline's figures of a line, from the row table (SUM_SHOW_HEAD_*): each measured one
 * must be in the line as "LABEL VALUE", the value in its entry's dimension (sum_dim_fmt). */
struct head_want {
    const char *text;
    const struct sum_units *u;
    int measured, found;
};

static void head_want_fig(void *ctx, const struct sum_row_def *col, double v)
{
    struct head_want *h = ctx;
    if (!isfinite(v))
        return;
    struct hw_buf want;
    hw_buf_init(&want, NULL, 0);
    hw_buf_printf(&want, "%s ", col->show.label);
    sum_dim_fmt(&want, v, col->dim, h->u);
    h->measured++;
    if (strstr(h->text, want.p))
        h->found++;
    else
        fprintf(stderr, "the headline lacks \"%s\"\n", want.p);
    hw_buf_free(&want);
}

/* Every committed run's text report as a terminal shows it: no line over SUM_TEXT_COLS, and
 * the answer within the first SUM_TEXT_HEADLINE lines (status, duration and energy, and where
 * the run has them: the GPUs' utilization and peak VRAM, the job's peak RSS, I/O, the slowest
 * phases), before the details. */
static void test_text_headline(void)
{
    char *runs = th_fmt("%s/runs", th_env("HWRUN_TESTDATA"));
    DIR *d = opendir(runs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char *dir = th_fmt("%s/%s", runs, e->d_name);
        struct sum_run *run = summarize_dir(dir);
        struct hw_buf b;
        hw_buf_init(&b, NULL, 0);
        sum_report_text(run, &b);
        hw_buf_putc(&b, '\0');
        int line = 0, details = 0;
        for (char *p = b.p, *nl; *p; p = nl + 1, line++) {
            nl = strchr(p, '\n');
            CU_ASSERT_FATAL(nl != NULL);
            if ((int)(nl - p) > SUM_TEXT_COLS)
                fprintf(stderr, "%s: line %d is %d columns\n", e->d_name, line + 1, (int)(nl - p));
            CU_ASSERT((int)(nl - p) <= SUM_TEXT_COLS);
            if (!details && !strncmp(p, "details:\n", 9))
                details = line + 1;
        }
        CU_ASSERT(details > 1 && details <= SUM_TEXT_HEADLINE);
        /* the headline is what comes before "details:" */
        char *head = strstr(b.p, "\ndetails:\n");
        CU_ASSERT_PTR_NOT_NULL_FATAL(head);
        *head = '\0';
        CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\n  status "));
        CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\n  duration "));
        CU_ASSERT_PTR_NOT_NULL(strstr(b.p, ", energy "));
        static const struct {
            unsigned where;
            const char *line;
        } lines[] = {{SUM_SHOW_HEAD_GPUS, "\n  GPUs: "}, {SUM_SHOW_HEAD_JOB, "\n  job: "}};
        for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
            const char *at = strstr(b.p, lines[k].line);
            char *got = at ? strndup(at + 1, strcspn(at + 1, "\n")) : strdup("");
            struct head_want h = {got, NULL, 0, 0};
            sum_report_shown(run, lines[k].where, head_want_fig, &h);
            CU_ASSERT_EQUAL(h.found, h.measured);
            free(got);
        }
        if (run->all[HW_GM_UTIL].n) /* the GPUs' line is there when they were measured */
            CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\n  GPUs: "));
        if (isfinite(run->sys.bytes[SUM_IO_DISK_READ])) /* the node's, named so */
            CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\n  node I/O: disks read "));
        if (isfinite(sum_fig_max(&run->proc[HW_PROC_COL_WRITE]))) /* the job's own */
            CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\n  job I/O: read "));
        if (run->names.n)
            CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\n  slowest phases: "));
        hw_buf_free(&b);
        sum_run_free(run);
        free(dir);
        n++;
    }
    closedir(d);
    CU_ASSERT(n >= 5);
    free(runs);
}

/* Every GPU figure of the one table (hw_gpu_figs) is described in full: its
 * key, field, label, Prometheus stem and help, and a dimension whose unit a person and
 * Prometheus read, so an entry missing one fails here, not in a reader's terminal; its flags
 * agree with its version. And a run that measured every figure
 * shows each in the text report, as "label (unit)", and in summary.json, by its key: the outputs
 * iterate the table, so a new entry cannot be left out of one or crash it. */
static void test_every_gpu_figure(void)
{
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[m];
        CU_ASSERT_FATAL(f->key && *f->key && f->field && *f->field);
        CU_ASSERT(f->label && *f->label);
        CU_ASSERT(f->stem && *f->stem && f->help && *f->help);
        CU_ASSERT_FATAL((int)f->dim >= 0 && f->dim < HW_GPU_DIM_COUNT);
        /* pytyche's list is version 1's figures, and no other version's */
        CU_ASSERT_EQUAL(!!(f->flags & HW_GF_PYTYCHE), f->since == 1);
        /* a version the field lists can spell (0: not recorded by default) */
        CU_ASSERT(f->since >= 0 && f->since <= HW_GPU_FIELD_VERSIONS_MAX);
        /* a figure a board may not have is shown where measured, never as an empty stat */
        CU_ASSERT(!(f->flags & HW_GF_MAY_NA) || (f->flags & HW_GF_WHEN_SEEN));
        CU_ASSERT(!(f->flags & HW_GF_PYTYCHE) || !(f->flags & HW_GF_WHEN_SEEN));
        for (const struct hw_gpu_alias *a = f->aliases; a && a->field; a++)
            CU_ASSERT(*a->field && strcmp(a->field, f->field) != 0);
        /* an AMD source converts to the figure's unit; its fallback is a second file */
        CU_ASSERT(!f->amd.file || (*f->amd.file && f->amd.scale > 0));
        CU_ASSERT(!f->amd.alt || f->amd.file);
        CU_ASSERT(f->decimals >= 0 && f->decimals <= 6);
        for (int k = 0; k < m; k++) {
            CU_ASSERT(strcmp(hw_gpu_figs[k].key, f->key) != 0);
            CU_ASSERT(strcmp(hw_gpu_figs[k].label, f->label) != 0);
            CU_ASSERT(strcmp(hw_gpu_figs[k].stem, f->stem) != 0);
        }
    }
    for (int d = 0; d < HW_GPU_DIM_COUNT; d++) {
        CU_ASSERT(hw_gpu_dims[d].unit && *hw_gpu_dims[d].unit);
        CU_ASSERT(hw_gpu_dims[d].prom_unit && *hw_gpu_dims[d].prom_unit);
        CU_ASSERT(hw_gpu_dims[d].prom_scale > 0);
    }

    /* a header naming every figure's field; each cell 40 + the figure's number, in every
     * dimension's range */
    struct hw_buf csv;
    hw_buf_init(&csv, NULL, 0);
    hw_buf_puts(&csv, "timestamp, index");
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        hw_buf_printf(&csv, ", %s", hw_gpu_figs[m].field);
    for (int row = 0; row < 3; row++) {
        hw_buf_printf(&csv, "\n2024/01/16 14:44:%02d.000, 0", 10 + row);
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
            hw_buf_printf(&csv, ", %d", 40 + m);
    }
    hw_buf_puts(&csv, "\n");
    CU_ASSERT_FATAL(!csv.oom);
    char *dir = th_tmpdir("every-figure");
    put_file(dir, HW_GPU_FILE, csv.p);
    hw_buf_free(&csv);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    struct hw_buf text, json;
    hw_buf_init(&text, NULL, 0);
    hw_buf_init(&json, NULL, 0);
    sum_report_text(run, &text);
    sum_report_json(run, &json);
    hw_buf_putc(&text, '\0');
    hw_buf_putc(&json, '\0');
    CU_ASSERT_FATAL(!text.oom && !json.oom);
    json_object *doc = json_tokener_parse(json.p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_object *gpus, *g0;
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "gpus", &gpus) &&
                    json_object_is_type(gpus, json_type_array) &&
                    json_object_array_length(gpus) == 1);
    g0 = json_object_array_get_idx(gpus, 0);
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[m];
        char *want = th_fmt("    %s (%s) ", f->label, hw_gpu_dims[f->dim].unit);
        if (!strstr(text.p, want))
            fprintf(stderr, "text lacks '%s'\n", want);
        CU_ASSERT_PTR_NOT_NULL(strstr(text.p, want));
        free(want);
        json_object *st, *mean;
        CU_ASSERT_FATAL(json_object_object_get_ex(g0, f->key, &st));
        CU_ASSERT_FATAL(json_object_object_get_ex(st, "mean", &mean));
        CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(mean), 40 + m, 1e-9);
    }
    json_object_put(doc);
    hw_buf_free(&text);
    hw_buf_free(&json);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* Every output of one run directory, as strings: the text report, summary.json, the HTML page
 * and the live view's screen and log line. */
struct outs {
    char *text, *json, *page, *screen, *line;
};

static void outputs_of(const char *dir, struct outs *o)
{
    struct sum_html_opts ho;
    sum_html_opts_init(&ho);
    struct sum_run *run = NULL;
    CU_ASSERT_EQUAL(sum_html_summarize(dir, &ho, false, &run), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    struct hw_buf text, json, screen, line;
    hw_buf_init(&text, NULL, 0);
    hw_buf_init(&json, NULL, 0);
    hw_buf_init(&screen, NULL, 0);
    hw_buf_init(&line, NULL, 0);
    sum_report_text(run, &text);
    sum_report_json(run, &json);
    char *page = NULL;
    size_t page_len = 0;
    FILE *f = open_memstream(&page, &page_len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char err[256];
    CU_ASSERT_EQUAL(sum_html_run(f, run, &ho, err, sizeof err), 0);
    fclose(f);
    sum_run_free(run);
    struct sum_live *v = sum_live_new(dir, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(sum_live_update(v), 0);
    sum_live_screen(v, 1795255300, 40, 200, NULL, &screen);
    sum_live_line(v, 1795255300, &line);
    sum_live_free(v);
    hw_buf_putc(&text, '\0');
    hw_buf_putc(&json, '\0');
    hw_buf_putc(&screen, '\0');
    hw_buf_putc(&line, '\0');
    CU_ASSERT_FATAL(!text.oom && !json.oom && !screen.oom && !line.oom && page);
    o->text = text.p, o->json = json.p, o->page = page, o->screen = screen.p, o->line = line.p;
}

static void outs_free(struct outs *o)
{
    free(o->text), free(o->json), free(o->page), free(o->screen), free(o->line);
}

/* The page's Per GPU table's column heads */
static int gpu_table_heads(const char *page)
{
    const char *t = strstr(page, "id=\"t-gpus\"");
    const char *end = t ? strstr(t, "</thead>") : NULL;
    int n = 0;
    for (const char *p = t; p && end && (p = strstr(p, "<th scope=\"col\">")) && p < end; p++)
        n++;
    return n;
}

/* Where a figure shown only where measured (HW_GF_WHEN_SEEN) is, by output (NULL where its
 * flags keep it out of that output): the text report's "label (unit)", summary.json's key, the
 * page's column "label [unit]" (HW_GF_PAGE), the live screen's column head and its log line's
 * word (HW_GF_LIVE), as a test looks for them. */
enum { WS_TEXT, WS_JSON, WS_PAGE, WS_SCREEN, WS_LINE, WS_OUTPUTS };
static void when_seen_marks(int m, char *mark[WS_OUTPUTS])
{
    const struct hw_gpu_fig *f = &hw_gpu_figs[m];
    const char *unit = hw_gpu_dims[f->dim].unit;
    char up[64];
    size_t i = 0;
    for (; f->label[i] && i + 1 < sizeof up; i++)
        up[i] = (char)(f->label[i] >= 'a' && f->label[i] <= 'z' ? f->label[i] - 32 : f->label[i]);
    up[i] = '\0';
    bool page = f->flags & HW_GF_PAGE, live = f->flags & HW_GF_LIVE;
    mark[WS_TEXT] = th_fmt("    %s (%s) ", f->label, unit);
    mark[WS_JSON] = th_fmt("\"%s\": {", f->key);
    mark[WS_PAGE] =
        page ? th_fmt("<th scope=\"col\">%s <small>[%s]</small></th>", f->label, unit) : NULL;
    mark[WS_SCREEN] = live ? th_fmt(" %s ", f->head ? f->head : up) : NULL;
    mark[WS_LINE] = !live ? NULL : f->word ? th_fmt(" %s=", f->word) : th_fmt(" gpu_%s=", f->key);
}

/* The start event of the runs below: hw_metrics.csv's field list (%s). */
static const char gpu_run_start[] =
    "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
    "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\", \"gpu_query_fields\": \"%s\"}}\n";

/* A new run directory (th_tmpdir(prefix)) of four rows a second apart for each of ngpus GPUs
 * ("GPU-0", ...), each with the values v: in a field list of every figure of the table (all),
 * else in hwmon's default list. */
static char *gpu_run_dir(const char *prefix, const struct th_gpu_vals *v, bool all, int ngpus)
{
    char *dir = th_tmpdir(prefix);
    struct hw_buf fields, rows;
    hw_buf_init(&fields, NULL, 0);
    hw_buf_init(&rows, NULL, 0);
    if (all) {
        hw_buf_puts(&fields, HW_COL_TIMESTAMP ",index,uuid");
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
            hw_buf_printf(&fields, ",%s", hw_gpu_figs[m].field);
    } else {
        hw_buf_puts(&fields, hw_gpu_fields_default());
    }
    hw_buf_putc(&fields, '\0');
    for (int s = 0; s < 4; s++) {
        char ts[40];
        snprintf(ts, sizeof ts, "2026/11/21 10:00:%02d.000", s);
        for (int g = 0; g < ngpus; g++) {
            char uuid[16];
            snprintf(uuid, sizeof uuid, "GPU-%d", g);
            th_gpu_row(&rows, all ? fields.p : NULL, ts, g, uuid, v);
        }
    }
    hw_buf_putc(&rows, '\0');
    char *ev = th_fmt(gpu_run_start, fields.p);
    put_file(dir, "run.jsonl", ev);
    put_file(dir, HW_GPU_FILE, rows.p);
    free(ev);
    hw_buf_free(&fields);
    hw_buf_free(&rows);
    return dir;
}

/* Every figure of the table at 40 + its number. */
static struct th_gpu_vals gpu_vals_all(void)
{
    struct th_gpu_vals v;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        v.v[m] = 40 + m;
    return v;
}

/* A figure shown only where measured is shown by every output of a run that measured it, in its
 * unit (every such entry of the table, each at its own value; the page's Per GPU table gets a
 * column each), and by none of a run whose board answered [N/A] for it; a figure a board may
 * not have (HW_GF_MAY_NA: a fan) answering [N/A] in every row is no placeholder, so no output
 * notes one. And a real board's fan (an RTX 2080 SUPER at work, nvidia-smi's own file) reads as
 * the 38% it printed. */
static void test_when_seen_figures(void)
{
    int nseen = 0, nmay = 0, nseen_page = 0;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        nseen += !!(hw_gpu_figs[m].flags & HW_GF_WHEN_SEEN);
        nseen_page += (hw_gpu_figs[m].flags & (HW_GF_WHEN_SEEN | HW_GF_PAGE)) ==
                      (HW_GF_WHEN_SEEN | HW_GF_PAGE);
        nmay += !!(hw_gpu_figs[m].flags & HW_GF_MAY_NA);
    }
    CU_ASSERT(nseen > 0 && nmay > 0);

    /* measured: every figure of the table in the field list, at 40 + its number */
    struct th_gpu_vals v = gpu_vals_all();
    char *dir = gpu_run_dir("when-seen", &v, true, 1);
    struct outs o;
    outputs_of(dir, &o);
    const char *in[WS_OUTPUTS] = {o.text, o.json, o.page, o.screen, o.line};
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        if (!(hw_gpu_figs[m].flags & HW_GF_WHEN_SEEN))
            continue;
        char *mark[WS_OUTPUTS];
        when_seen_marks(m, mark);
        for (int k = 0; k < WS_OUTPUTS; k++) {
            if (!mark[k])
                continue;
            if (!strstr(in[k], mark[k]))
                fprintf(stderr, "output %d lacks '%s'\n", k, mark[k]);
            CU_ASSERT_PTR_NOT_NULL(strstr(in[k], mark[k]));
        }
        if (mark[WS_LINE]) { /* its value: the log line's cell */
            char *cell = th_fmt("%s%d", mark[WS_LINE], 40 + m);
            CU_ASSERT_PTR_NOT_NULL(strstr(o.line, cell));
            free(cell);
        }
        for (int k = 0; k < WS_OUTPUTS; k++)
            free(mark[k]);
    }
    int heads_all = gpu_table_heads(o.page);
    CU_ASSERT_PTR_NULL(strstr(o.text, "placeholder"));
    CU_ASSERT_PTR_NULL(strstr(o.text, "not reported"));
    outs_free(&o);

    /* [N/A]: hwmon's default list from a board with no fan, every row */
    th_rmtree(dir);
    free(dir);
    struct th_gpu_vals h = th_gpu_vals_h100();
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        CU_ASSERT(isnan(h.v[m]) == !!(hw_gpu_figs[m].flags & HW_GF_MAY_NA));
    dir = gpu_run_dir("when-seen-na", &h, false, 1);
    char *csv_path = th_fmt("%s/%s", dir, HW_GPU_FILE);
    char *rows = th_read_file(csv_path, NULL);
    CU_ASSERT(rows && strstr(rows, "[N/A]"));
    free(rows);
    free(csv_path);
    outputs_of(dir, &o);
    const char *none[WS_OUTPUTS] = {o.text, o.json, o.page, o.screen, o.line};
    int shown = 0; /* when-seen figures of the default list this board measured, on the page */
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        if (!(hw_gpu_figs[m].flags & HW_GF_WHEN_SEEN))
            continue;
        char *mark[WS_OUTPUTS];
        when_seen_marks(m, mark);
        bool measured = !isnan(h.v[m]) && strstr(hw_gpu_fields_default(), hw_gpu_figs[m].field);
        shown += measured && mark[WS_PAGE];
        for (int k = 0; k < WS_OUTPUTS; k++) {
            if (!mark[k])
                continue;
            if (!measured && strstr(none[k], mark[k]))
                fprintf(stderr, "output %d shows '%s'\n", k, mark[k]);
            CU_ASSERT(measured || !strstr(none[k], mark[k]));
            free(mark[k]);
        }
    }
    /* the page's columns: its own and one per when-seen figure measured that it shows */
    CU_ASSERT_EQUAL(gpu_table_heads(o.page), heads_all - nseen_page + shown);
    CU_ASSERT_PTR_NULL(strstr(o.text, "placeholder"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.json, "\"placeholders\": 0"));
    CU_ASSERT_PTR_NULL(strstr(o.page, "placeholder cells"));
    /* but the quality notes say it once: each such figure, its rows */
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        if (!isnan(h.v[m]))
            continue;
        char *note = th_fmt("  note: %s: %s: not reported by the board ([N/A] in 4 rows)\n",
                            HW_GPU_FILE, hw_gpu_figs[m].label);
        char *member = th_fmt("\"not_reported\": {\n          \"%s\": 4\n        }",
                              hw_gpu_figs[m].key);
        CU_ASSERT_PTR_NOT_NULL(strstr(o.text, note));
        CU_ASSERT_PTR_NOT_NULL(strstr(o.json, member));
        if (!strstr(o.json, member))
            fprintf(stderr, "summary.json lacks '%s'\n", member);
        free(note);
        free(member);
    }
    outs_free(&o);
    th_rmtree(dir);
    free(dir);

    /* nvidia-smi's own file from a board with a fan */
    char *cap = th_fmt("%s/nvsmi-real/query-gpu_rtx2080super_drv610_all-fields_load.csv",
                       th_env("HWRUN_TESTDATA"));
    char *csv = th_read_file(cap, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    dir = th_tmpdir("when-seen-fan");
    put_file(dir, HW_GPU_FILE, csv);
    outputs_of(dir, &o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.text, "    fan (%)              mean 38.0"));
    json_object *doc = json_tokener_parse(o.json), *gpus, *st, *mean;
    CU_ASSERT_FATAL(doc && json_object_object_get_ex(doc, "gpus", &gpus) &&
                    json_object_array_length(gpus) == 1 &&
                    json_object_object_get_ex(json_object_array_get_idx(gpus, 0),
                                              hw_gpu_figs[HW_GM_FAN].key, &st) &&
                    json_object_object_get_ex(st, "mean", &mean));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(mean), 38.0, 1e-9);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.line, " gpu_fan_pct=38"));
    /* a board that reports its fan: nothing to say of it */
    CU_ASSERT_PTR_NULL(strstr(o.text, "not reported"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.json, "\"not_reported\": {}"));
    json_object_put(doc);
    outs_free(&o);
    th_rmtree(dir);
    free(dir);
    free(csv);
    free(cap);
}

/* The page's Per GPU table and the live view show the figures their flags say (HW_GF_PAGE,
 * HW_GF_LIVE), each as its entry names it: a column each on the page ("label [unit]"; memory
 * used as "peak VRAM"), on the live screen (its head, else its label in capitals) and a word of
 * the log line (its word, else gpu_<key>) with its value; a figure without the flag in none.
 * And a GPU's row of the live screen fits 80 columns whole: a board of hwmon's default list
 * (no fan), with its health (the power limit, the reasons), every column to ENERGY. */
static void test_view_flags(void)
{
    struct th_gpu_vals v = gpu_vals_all();
    char *dir = gpu_run_dir("view-flags", &v, true, 1);
    struct outs o;
    outputs_of(dir, &o);
    int page = 0, live = 0;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[m];
        bool on_page = f->flags & HW_GF_PAGE, on_live = f->flags & HW_GF_LIVE;
        page += on_page, live += on_live;
        char *th = m == HW_GM_MEM_USED
                       ? th_fmt("<th scope=\"col\">peak VRAM <small>[")
                       : th_fmt("<th scope=\"col\">%s <small>[%s]</small></th>", f->label,
                                hw_gpu_dims[f->dim].unit);
        char up[64];
        size_t i = 0;
        for (; f->label[i] && i + 1 < sizeof up; i++)
            up[i] = (char)(f->label[i] >= 'a' && f->label[i] <= 'z' ? f->label[i] - 32
                                                                    : f->label[i]);
        up[i] = '\0';
        char *head = th_fmt(" %s ", f->head ? f->head : up);
        char *word = f->word ? th_fmt(" %s=", f->word) : th_fmt(" gpu_%s=", f->key);
        if (!!strstr(o.page, th) != on_page || !!strstr(o.screen, head) != on_live ||
            !!strstr(o.line, word) != on_live)
            fprintf(stderr, "%s: page %d live %d:\n%s\n%s", f->key, on_page, on_live, o.screen,
                    o.line);
        CU_ASSERT_EQUAL(!!strstr(o.page, th), on_page);
        CU_ASSERT_EQUAL(!!strstr(o.screen, head), on_live);
        CU_ASSERT_EQUAL(!!strstr(o.line, word), on_live);
        /* its value, as the log line says it (memory in GiB, power to a tenth) */
        if (on_live && m != HW_GM_MEM_USED && m != HW_GM_POWER) {
            char *cell = th_fmt("%s%d", word, 40 + m);
            const char *at = strstr(o.line, cell);
            CU_ASSERT(at && (at[strlen(cell)] == ' ' || at[strlen(cell)] == '\n'));
            if (!at)
                fprintf(stderr, "log line lacks '%s': %s", cell, o.line);
            free(cell);
        }
        free(th);
        free(head);
        free(word);
    }
    /* the page's columns: the GPU's, one a figure, the energy */
    CU_ASSERT_EQUAL(gpu_table_heads(o.page), 1 + page + 1);
    /* the ones this change added: memory utilization and clock, everywhere */
    CU_ASSERT((hw_gpu_figs[HW_GM_MEM_UTIL].flags & hw_gpu_figs[HW_GM_MEM_CLOCK].flags &
               (HW_GF_PAGE | HW_GF_LIVE)) == (HW_GF_PAGE | HW_GF_LIVE));
    CU_ASSERT(live >= 7);
    outs_free(&o);
    th_rmtree(dir);
    free(dir);

    /* 80 columns: hwmon's default list from an H100 (no fan), its health said */
    struct th_gpu_vals h = th_gpu_vals_h100();
    dir = gpu_run_dir("view-80", &h, false, 2);
    struct sum_live *lv = sum_live_new(dir, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(lv);
    CU_ASSERT_EQUAL(sum_live_update(lv), 0);
    struct hw_buf screen, wide;
    hw_buf_init(&screen, NULL, 0);
    hw_buf_init(&wide, NULL, 0);
    sum_live_screen(lv, 1795255300, 40, 80, NULL, &screen);
    sum_live_screen(lv, 1795255300, 40, 99, NULL, &wide); /* (sparklines from 100 on) */
    sum_live_free(lv);
    hw_buf_putc(&screen, '\0');
    hw_buf_putc(&wide, '\0');
    /* the GPU lines of a wider screen are the 80-column ones, blanks at the end aside: nothing
     * was cut */
    const char *hd = strstr(wide.p, "\nGPU ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(hd);
    for (int k = 0; k < 3; k++) {
        const char *end = strchr(hd + 1, '\n');
        CU_ASSERT_PTR_NOT_NULL_FATAL(end);
        size_t n = (size_t)(end - hd - 1);
        while (n && hd[n] == ' ')
            n--;
        char *line = th_fmt("\n%.*s", (int)n, hd + 1);
        if (!strstr(screen.p, line) || n > 80)
            fprintf(stderr, "cut at 80 columns: '%s'\n%s", line + 1, screen.p);
        CU_ASSERT(n <= 80);
        CU_ASSERT_PTR_NOT_NULL(strstr(screen.p, line));
        free(line);
        hd = end;
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(screen.p, " ENERGY"));
    hw_buf_free(&screen);
    hw_buf_free(&wide);
    th_rmtree(dir);
    free(dir);
}

/* The GPUs' tool, as the reports name it, is the gpu_source hwmon wrote, whatever the source (a
 * third one is not nvidia-smi because it is not AMD); a log from before gpu_source names it by
 * the GPUs' vendors. Only nvidia-smi's rows carry nvidia-smi's clock, whose zone is told. */
static void test_gpu_tool_from_source(void)
{
    static const struct {
        const char *data, *tool;
        bool smi_times;
    } cases[] = {
        {"\"gpu_source\": \"nvidia-smi\", \"gpus\": [{\"index\": 0, \"name\": \"H100\"}]",
         "nvidia-smi", true},
        {"\"gpu_source\": \"amdgpu\", \"gpus\": [{\"index\": 0, \"name\": \"MI300X\", "
         "\"vendor\": \"amd\"}]",
         "amdgpu", false},
        {"\"gpu_source\": \"xe\", \"gpus\": [{\"index\": 0, \"name\": \"Max 1550\", "
         "\"vendor\": \"intel\"}]",
         "xe", false},
        /* before gpu_source */
        {"\"gpus\": [{\"index\": 0, \"name\": \"MI300X\", \"vendor\": \"amd\"}]", "amdgpu", false},
        {"\"gpus\": [{\"index\": 0, \"name\": \"H100\"}]", "nvidia-smi", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = th_tmpdir("gpu-tool");
        char *log = th_fmt("{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", "
                           "\"event\": \"start\", \"data\": {\"interval_s\": 1, %s}}\n",
                           cases[i].data);
        put_file(dir, HW_RUNLOG_FILE, log);
        put_file(dir, HW_GPU_FILE,
                 "timestamp, index, utilization.gpu\n"
                 "2026/11/21 10:00:01.000, 0, 50\n2026/11/21 10:00:02.000, 0, 60\n");
        struct sum_run *run = summarize_dir(dir);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run);
        CU_ASSERT_STRING_EQUAL(sum_fig_gpu_tool(run), cases[i].tool);
        CU_ASSERT_EQUAL(sum_fig_smi_times(run), cases[i].smi_times);
        sum_run_free(run);
        th_rmtree(dir);
        free(dir);
        free(log);
    }
}

/* The row tables' entries (the run's row, the job's row, the phase names' columns): each has a key, distinct in its
 * table, what it means, and a dimension with the unit a person reads (or the explicit none of a
 * text, a count or an id); a figure --units converts spells its base unit at the end of its
 * name (so that --units can rename it); one shown for people has its label. Counts come from
 * the tables, so a new entry is checked the day it is added, and a forgotten unit fails here,
 * not in front of a reader. */
static void check_defs(const char *table, const struct sum_row_def *def, size_t n)
{
    CU_ASSERT(n > 0);
    for (size_t i = 0; i < n; i++) {
        const struct sum_row_def *c = &def[i];
        const char *key = c->key ? c->key : "(null)";
        bool ok = c->key && *c->key && c->what && *c->what && (unsigned)c->dim < SUM_DIM_COUNT;
        if (ok && c->type != SUM_COL_NUM && c->dim != SUM_DIM_NONE)
            ok = false; /* a text, a count, an id has no unit */
        const char *unit = ok ? sum_dim_unit(NULL, c->dim) : NULL;
        if (ok && (!unit || (c->dim != SUM_DIM_NONE && !*unit)))
            ok = false; /* a dimension without its unit */
        if (ok && sum_dim_converts(c->dim) && sum_dim_name_stem(c->key, c->dim) < 0)
            ok = false; /* --units could not rename it */
        if (ok && (c->show.where & (SUM_SHOW_PAGE | SUM_SHOW_HEAD_GPUS | SUM_SHOW_HEAD_JOB)))
            ok = c->show.label && *c->show.label;
        if (ok && (c->show.where & SUM_SHOW_SWEEP))
            ok = c->show.head && *c->show.head;
        if (!ok)
            fprintf(stderr, "%s column %zu (%s): a key, what it means, its dimension's unit "
                            "(spelled at the end of its name when --units converts it) and its "
                            "labels where shown\n", table, i, key);
        CU_ASSERT(ok);
        for (size_t k = 0; k < i; k++)
            if (c->key && def[k].key && !strcmp(def[k].key, c->key)) {
                fprintf(stderr, "%s column %s twice\n", table, key);
                CU_FAIL("a key twice");
            }
    }
}

static void test_row_defs(void)
{
    for (int d = 0; d < SUM_DIM_COUNT; d++) { /* every dimension has a name and a unit */
        CU_ASSERT(sum_dim_name((enum sum_dim)d) && *sum_dim_name((enum sum_dim)d));
        const char *unit = sum_dim_unit(NULL, (enum sum_dim)d);
        CU_ASSERT(unit != NULL && (d == SUM_DIM_NONE) == !*unit);
    }
    size_t n, nj, np;
    const struct sum_row_def *def = sum_report_row_defs(&n), *job = sum_job_row_defs(&nj);
    const struct sum_row_def *ph = sum_report_phase_defs(&np);
    check_defs("run row", def, n);
    check_defs("job row", job, nj);
    check_defs("phase column", ph, np);
    /* what the outputs print follows: --columns lists each column once with its entry's unit,
     * meaning and job rule */
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_columns(NULL, &b);
    hw_buf_putc(&b, '\0');
    size_t lines = 0;
    for (const char *p = b.p; (p = strchr(p, '\n')); p++)
        lines++;
    CU_ASSERT_EQUAL(lines, n + 1);
    for (size_t i = 0; i < n; i++) {
        static const char *const type[] = {[SUM_COL_STR] = "text", [SUM_COL_NUM] = "number",
                                           [SUM_COL_U64] = "integer", [SUM_COL_INT] = "integer"};
        const char *unit = sum_dim_unit(NULL, def[i].dim);
        char *want = th_fmt("\n%s\t%s\t%s\t%s\t%s\n", def[i].key, type[def[i].type],
                            unit ? unit : "", def[i].what, sum_job_rules[def[i].job].name);
        if (!strstr(b.p, want))
            fprintf(stderr, "--columns lacks %s", want);
        CU_ASSERT_PTR_NOT_NULL(strstr(b.p, want));
        free(want);
    }
    hw_buf_free(&b);
}

/* Every entry of the run's row says how a job makes one figure of its ranks' (a forgotten rule
 * fails here), one that fits what it is (a text has none of its own, a percentage does not
 * add, only a number has a mean); and the job's row is what the rules say: the job's own
 * columns, every figure of the run's row whose rule derives one (SUM, SUM_HOSTS, MAX, MIN,
 * MEAN_BY_TIME, MEAN_HOSTS) once, no NONE one; an OWN one is a column of the job's own. Every rule has
 * its own name (--columns) and a derived one its words (the job page). Counts from the
 * tables. */
static void test_job_rules_table(void)
{
    for (int r = SUM_JOB_UNSET + 1; r < SUM_JOB_RULE_COUNT; r++) {
        const struct sum_job_rule_def *d = &sum_job_rules[r];
        CU_ASSERT(d->name && *d->name && strspn(d->name, "abcdefghijklmnopqrstuvwxyz_") ==
                                             strlen(d->name));
        CU_ASSERT(d->derived == (d->words != NULL));
        CU_ASSERT(d->derived == (r != SUM_JOB_NONE && r != SUM_JOB_OWN));
        for (int q = SUM_JOB_UNSET; q < r; q++)
            CU_ASSERT(!d->name || !sum_job_rules[q].name || strcmp(d->name, sum_job_rules[q].name));
    }
    size_t n, nj;
    const struct sum_row_def *def = sum_report_row_defs(&n), *job = sum_job_row_defs(&nj);
    struct hw_buf h;
    hw_buf_init(&h, NULL, 0);
    hw_buf_putc(&h, ',');
    sum_job_csv_header(NULL, NULL, 0, &h);
    CU_ASSERT_FATAL(!h.oom && h.len > 1);
    h.p[h.len - 1] = ','; /* ",a,b,c," */
    hw_buf_putc(&h, '\0');
    size_t derived = 0, own = 0;
    for (size_t i = 0; i < nj; i++)
        own += job[i].job == SUM_JOB_OWN;
    for (size_t i = 0; i < n; i++) {
        const struct sum_row_def *c = &def[i];
        enum sum_job_rule r = c->job;
        bool ok = r > SUM_JOB_UNSET && r < SUM_JOB_RULE_COUNT;
        if (ok && c->type == SUM_COL_STR)
            ok = r == SUM_JOB_NONE || r == SUM_JOB_OWN;
        if (ok && (r == SUM_JOB_MEAN_BY_TIME || r == SUM_JOB_MEAN_HOSTS))
            ok = c->type == SUM_COL_NUM;
        if (ok && (r == SUM_JOB_SUM || r == SUM_JOB_SUM_HOSTS) && c->type == SUM_COL_NUM)
            ok = c->dim == SUM_DIM_MEM || c->dim == SUM_DIM_TIME || c->dim == SUM_DIM_ENERGY ||
                 c->dim == SUM_DIM_GPUMEM || c->dim == SUM_DIM_CO2E || c->dim == SUM_DIM_GPU_H;
        char *key = th_fmt(",%s,", c->key);
        const char *at = strstr(h.p, key);
        bool once = at && !strstr(at + 1, key);
        bool derive = ok && sum_job_rules[r].derived;
        derived += derive;
        if (ok && derive)
            ok = once;
        else if (ok && r == SUM_JOB_NONE)
            ok = !at;
        else if (ok && r == SUM_JOB_OWN) {
            ok = false;
            for (size_t k = 0; k < nj; k++)
                ok |= job[k].job == SUM_JOB_OWN && !strcmp(job[k].key, c->key);
            ok = ok && once;
        }
        if (!ok)
            fprintf(stderr, "run row column %zu (%s): job rule %d does not fit it, or the job's "
                            "row does not follow it\n", i, c->key, (int)r);
        CU_ASSERT(ok);
        free(key);
    }
    size_t cols = 0;
    for (const char *p = h.p + 1; (p = strchr(p, ',')); p++)
        cols++;
    CU_ASSERT(derived > 0);
    CU_ASSERT_EQUAL(cols, own + derived);
    CU_ASSERT_EQUAL(cols, nj);
    hw_buf_free(&h);
}

/* summary.json's headline: the row columns with a place and the members that are not row
 * columns take every place from 1 to the last once (a gap or a place twice would misplace or
 * lose a key), the others' keys are no row column's, and a run's summary.json has each key in
 * place order. */
static void test_headline_keys_resolve(void)
{
    size_t n;
    const struct sum_row_def *def = sum_report_row_defs(&n);
    unsigned last = 0;
    for (size_t i = 0; i < n; i++)
        last = def[i].show.json > last ? def[i].show.json : last;
    for (size_t i = 0; i < sum_json_nextra; i++) {
        last = sum_json_extra[i].place > last ? sum_json_extra[i].place : last;
        CU_ASSERT(i == 0 || sum_json_extra[i].place > sum_json_extra[i - 1].place);
        for (size_t k = 0; k < n; k++)
            CU_ASSERT(strcmp(def[k].key, sum_json_extra[i].key) != 0);
    }
    CU_ASSERT(last > sum_json_nextra);
    const char **at_place = calloc(last + 1, sizeof *at_place);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at_place);
    for (size_t i = 0; i < n + sum_json_nextra; i++) {
        unsigned p = i < n ? def[i].show.json : sum_json_extra[i - n].place;
        const char *key = i < n ? def[i].key : sum_json_extra[i - n].key;
        if (!p)
            continue;
        if (at_place[p])
            fprintf(stderr, "summary.json place %u: %s and %s\n", p, at_place[p], key);
        CU_ASSERT_PTR_NULL(at_place[p]);
        at_place[p] = key;
    }
    for (unsigned p = 1; p <= last; p++)
        CU_ASSERT_PTR_NOT_NULL(at_place[p]);
    char *dir = th_fmt("%s/runs/basic", th_env("HWRUN_TESTDATA"));
    struct sum_run *run = summarize_dir(dir);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_json(run, &b);
    hw_buf_putc(&b, '\0');
    const char *at = b.p;
    for (unsigned p = 1; p <= last; p++) {
        char *key = th_fmt("\n  \"%s\": ", at_place[p] ? at_place[p] : "");
        const char *q = strstr(at, key);
        CU_ASSERT_PTR_NOT_NULL(q);
        if (q)
            at = q;
        free(key);
    }
    free(at_place);
    hw_buf_free(&b);
    sum_run_free(run);
    free(dir);
}

void add_outputs_suite(void)
{
    CU_add_test(th_add_suite("rounding", NULL, NULL, 60), "and_units", test_rounding_and_units);
    CU_pSuite rows = th_add_suite("rows", NULL, NULL, 60);
    CU_add_test(rows, "defs", test_row_defs);
    CU_add_test(rows, "job_rules", test_job_rules_table);
    CU_pSuite text = th_add_suite("text", NULL, NULL, 60);
    CU_add_test(text, "for_people", test_text_for_people);
    CU_add_test(text, "headline", test_text_headline);
    CU_pSuite params = th_add_suite("params", NULL, NULL, 60);
    CU_add_test(params, "columns", test_params_columns);
    CU_add_test(params, "metrics", test_metrics_columns);
    CU_add_test(params, "phase_tree_io", test_phase_tree_io);
    CU_add_test(params, "sweep_page", test_sweep_page_params);
    CU_add_test(params, "steps_done", test_steps_done);
    CU_add_test(params, "compare", test_compare_params);
    CU_add_test(params, "compare_units", test_compare_units);
    CU_pSuite s = th_add_suite("outputs", NULL, NULL, 60);
    CU_add_test(s, "several_dirs_one_document", test_several_dirs_one_document);
    CU_add_test(s, "write_alone_prints_nothing", test_write_alone_prints_nothing);
    CU_add_test(s, "terminal_default_text", test_terminal_default_text);
    CU_add_test(s, "every_gpu_figure", test_every_gpu_figure);
    CU_add_test(s, "when_seen_figures", test_when_seen_figures);
    CU_add_test(s, "view_flags", test_view_flags);
    CU_add_test(s, "gpu_tool_from_source", test_gpu_tool_from_source);
    CU_add_test(s, "headline_keys_resolve", test_headline_keys_resolve);
}
