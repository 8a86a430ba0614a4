/* Issue 10: what users of gpu_tracker, prmon and calibrax expect: phases by name, the index that
 * finds a sample's phases, --units, CPU as a share of the job's cores, per-phase-name sweep
 * columns and --compare. Through the library and through the CLI, failure paths included. */
#include <dirent.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "ivindex.h"
#include "report.h"
#include "sumtest.h"
#include "together.h"
#include "units.h"
#include "hwrun/buf.h"

void add_aggregates_suites(void);

/* ---- the interval index, against brute force ---------------------------------------------- */

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static double rnd01(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng % 1000000) / 1e6;
}

struct hits {
    int n;
    unsigned char seen[4096];
};

static void on_hit(void *ctx, uint32_t id, double t0, double t1)
{
    (void)t0, (void)t1;
    struct hits *h = ctx;
    h->seen[id]++;
    h->n++;
}

/* Query x for [a, b] and check the hits against every window, one by one. */
static void ivx_check(struct sum_ivx *x, const double *t0, const double *t1, int n, double a,
                      double b)
{
    struct hits h = {0};
    sum_ivx_query(x, a, b, on_hit, &h);
    int want = 0;
    bool same = true;
    for (int i = 0; i < n; i++) {
        bool in = !isnan(t0[i]) && !isnan(t1[i]) && t1[i] >= t0[i] && t0[i] <= b && t1[i] >= a;
        want += in;
        same &= h.seen[i] == (in ? 1 : 0);
    }
    CU_ASSERT_EQUAL(h.n, want);
    CU_ASSERT_TRUE(same);
}

static void test_ivx_brute_force(void)
{
    enum { N = 3000 };
    static double t0[N], t1[N];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < N; i++) {
            switch (round) {
            case 0: /* random, overlapping */
                t0[i] = rnd01() * 100;
                t1[i] = t0[i] + rnd01() * 10;
                break;
            case 1: /* a training loop: steps inside epochs inside one run */
                t0[i] = i % 100 == 0 ? i : i + 0.1;
                t1[i] = i == 0 ? N : i % 100 == 0 ? i + 100 : i + 0.9;
                break;
            case 2: /* deep nesting, equal windows, a NaN and a reversed one */
                t0[i] = i * 0.01;
                t1[i] = i % 7 == 0 ? t1[i > 0 ? i - 1 : 0] : 100 - i * 0.01;
                if (i == 5)
                    t0[i] = NAN;
                if (i == 6)
                    t1[i] = t0[i] - 1;
                break;
            default: /* windows of zero length and points on their bounds */
                t0[i] = (double)(i / 3);
                t1[i] = t0[i] + (i % 3 == 0 ? 0 : 1);
                break;
            }
        }
        struct sum_ivx x;
        CU_ASSERT_EQUAL_FATAL(sum_ivx_build(&x, t0, t1, N), 0);
        double pa = 0, pb = 0;
        for (int q = 0; q < 400; q++) {
            double a = rnd01() * 110 - 5, b = a + (q % 2 ? 0 : rnd01() * 3);
            if (round == 3 && q % 4 == 0)
                a = b = (double)(q / 4); /* exactly on a bound */
            ivx_check(&x, t0, t1, N, a, b);
            /* again, and the one before: answered from the index's memo of recent queries */
            ivx_check(&x, t0, t1, N, a, b);
            ivx_check(&x, t0, t1, N, pa, pb);
            pa = a, pb = b;
        }
        sum_ivx_free(&x);
    }
    struct sum_ivx e; /* nothing indexed: no hit, no crash */
    CU_ASSERT_EQUAL(sum_ivx_build(&e, t0, t1, 0), 0);
    struct hits h = {0};
    sum_ivx_query(&e, 0, 1e9, on_hit, &h);
    CU_ASSERT_EQUAL(h.n, 0);
    sum_ivx_free(&e);
}

/* ---- a run directory with repeated phases ------------------------------------------------- */

static const char *T0 = "2026-11-21T10:00:"; /* + seconds */

/* GPU rows every second from 10:00:00 to 10:00:40, 2 GPUs: util = second, power 100 W (GPU 0)
 * and 200 W (GPU 1), memory 1000 + second MiB; proc rows with RSS 100 + second. */
static void write_samples(const char *dir)
{
    struct hw_buf g, p;
    hw_buf_init(&g, NULL, 0);
    hw_buf_init(&p, NULL, 0);
    hw_buf_puts(&p, "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes\n");
    for (int s = 0; s <= 40; s++) {
        for (int q = 0; q < 2; q++)
            hw_buf_printf(&g,
                          "2026/11/21 10:00:%02d.000, %d, 0, %d, 81559, %d.0, 40, 1980, 2619, "
                          "%d, GPU-%d\n",
                          s, s, 1000 + s, q ? 200 : 100, q, q);
        hw_buf_printf(&p, "%s%02d.000+00:00,1,1,%d.0,%d,0,0\n", T0, s, 50 + s, 100 + s);
    }
    put_file(dir, "hw_metrics.csv", g.p);
    put_file(dir, "proc_metrics.csv", p.p);
    hw_buf_free(&g);
    hw_buf_free(&p);
}

static void phase_line(struct hw_buf *b, const char *name, double end_s, double seconds)
{
    hw_buf_printf(b,
                  "{\"ts\": \"%s%06.3f+00:00\", \"type\": \"phase\", \"name\": \"%s\", "
                  "\"seconds\": %g}\n",
                  T0, end_s, name, seconds);
}

static char *make_loop_run(const char *base, const char *name)
{
    char *dir = th_fmt("%s/%s", base, name);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    write_samples(dir);
    struct hw_buf r;
    hw_buf_init(&r, NULL, 0);
    hw_buf_printf(&r,
                  "{\"ts\": \"%s00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
                  "\"data\": {\"tool\": \"hwmon\", \"interval_s\": 1, \"smi_tz\": \"UTC\", "
                  "\"cpus_allowed\": 4}}\n",
                  T0);
    /* step: [2,4] [4,6] [6,9] [9,10] (durations 2, 2, 3, 1); eval [20,30]; step [30,32] */
    phase_line(&r, "step", 4, 2);
    phase_line(&r, "step", 6, 2);
    phase_line(&r, "step", 9, 3);
    phase_line(&r, "step", 10, 1);
    phase_line(&r, "eval", 30, 10);
    phase_line(&r, "step", 32, 2);
    put_file(dir, "run.jsonl", r.p);
    hw_buf_free(&r);
    return dir;
}

static const struct sum_name_acc *find(const struct sum_run *run, const char *name)
{
    return sum_names_find(&run->names, name);
}

static void test_names_figures(void)
{
    char *base = th_tmpdir("agg");
    char *dir = make_loop_run(base, "a");
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL(run->names.n, 2);
    const struct sum_name_acc *st = find(run, "step"), *ev = find(run, "eval");
    CU_ASSERT_FATAL(st && ev);
    CU_ASSERT_EQUAL(st->count, 5);
    CU_ASSERT_EQUAL(st->overlapping, 0);
    CHECK_NEAR(st->d_sum, 10, 1e-6);
    CHECK_NEAR(sum_name_mean_s(st), 2, 1e-6);
    CHECK_NEAR(st->d_min, 1, 1e-6);
    CHECK_NEAR(st->d_max, 3, 1e-6);
    CHECK_NEAR(sum_name_std_s(st), sqrt(0.4), 1e-6); /* population: (0+0+1+1+0)/5 */
    CHECK_NEAR(st->span_s, 10, 1e-6);                /* [2,10] and [30,32] */
    /* samples of seconds 2..10 and 30..32, each once though [4] and [6] end one entry and
     * start the next: 12 instants x 2 GPUs */
    CU_ASSERT_EQUAL(st->util.n, 24);
    CHECK_NEAR(sum_stat_mean(&st->util), (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 30 + 31 + 32) / 12.0,
               1e-9);
    CHECK_NEAR(st->mem_used.max, 1032, 1e-9);
    CU_ASSERT_EQUAL(st->proc_rss.n, 12);
    CHECK_NEAR(st->proc_rss.max, 132, 1e-9);
    /* constant 100 W + 200 W over 10 s of windows = 3000 J */
    CHECK_NEAR(sum_name_energy_wh(run, st), 3000 / 3600.0, 1e-9);
    CHECK_NEAR(sum_name_energy_wh(run, ev), 3000 / 3600.0, 1e-9);
    CU_ASSERT_EQUAL(ev->count, 1);
    CHECK_NEAR(sum_name_std_s(ev), 0, 1e-12);
    /* a name's energy is the sum of its entries' when they do not overlap */
    double e = 0;
    for (size_t i = 0; i < run->nphase; i++)
        if (!strcmp(run->phase[i].name, "step"))
            for (int g = 0; g < 2; g++)
                e += run->phase[i].gpu[g] ? run->phase[i].gpu[g]->energy_j : 0;
    CHECK_NEAR(e / 3600, sum_name_energy_wh(run, st), 1e-9);
    sum_run_free(run);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* Entries of one name that overlap (two data-loader workers): the name's figures are over the
 * union of their windows, a sample and a joule counted once. */
/* One energy rule: in every run of testdata/runs, a name of one entry has its phase's energy
 * (the counter, the instant power or the power field, as the phase took it), and a name of
 * entries apart from each other the sum of theirs when all its GPUs' energy is integrated. The
 * h100-real runs' `cool` phase differs by 60% between the counter and the lagging 1 s average
 * the power field integrates: the names once took the latter. */
static void test_names_energy_rule(void)
{
    char *runs = th_fmt("%s/runs", th_env("HWRUN_TESTDATA"));
    struct dirent **ents;
    int n = scandir(runs, &ents, NULL, alphasort);
    CU_ASSERT_FATAL(n > 2);
    size_t checked = 0, counted = 0;
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.') {
            char *dir = th_fmt("%s/%s", runs, ents[i]->d_name);
            struct sum_run *run = summarize_dir(dir);
            for (size_t k = 0; run && k < run->names.n; k++) {
                const struct sum_name_acc *a = &run->names.v[k];
                if (a->kept != a->count || a->overlapping)
                    continue;
                double sum = 0;
                bool any = false, counter = false;
                for (size_t p = 0; p < run->nphase; p++) {
                    if (strcmp(run->phase[p].name, a->name))
                        continue;
                    double e = sum_phase_energy_wh(run, &run->phase[p]);
                    any |= isfinite(e);
                    sum += isfinite(e) ? e : 0;
                    for (int g = 0; g < RD_MAX_GPUS; g++) {
                        const char *src = NULL;
                        if (run->phase[p].gpu[g])
                            (void)sum_phase_gpu_energy_wh(run, &run->phase[p], g, &src);
                        counter |= src && strcmp(src, "integrated");
                    }
                }
                if (a->count > 1 && counter)
                    continue; /* the counter's rule is of the union, not of each entry */
                double want = any ? sum : NAN, got = sum_name_energy_wh(run, a);
                if (!(isnan(want) ? isnan(got) : fabs(got - want) <= 1e-9 * fabs(want)))
                    fprintf(stderr, "%s: %s: name %g Wh, its phases %g Wh\n", ents[i]->d_name,
                            a->name, got, want);
                CU_ASSERT(isnan(want) ? isnan(got) : fabs(got - want) <= 1e-9 * fabs(want));
                checked++;
                counted += counter;
            }
            if (run)
                sum_run_free(run);
            free(dir);
        }
        free(ents[i]);
    }
    free(ents);
    free(runs);
    CU_ASSERT(checked >= 8);
    CU_ASSERT(counted >= 4); /* names whose phase took the counter or the instant power */
}

static void test_names_overlapping(void)
{
    char *base = th_tmpdir("agg");
    char *dir = th_fmt("%s/o", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    write_samples(dir);
    struct hw_buf r;
    hw_buf_init(&r, NULL, 0);
    phase_line(&r, "load", 20, 10); /* [10,20] */
    phase_line(&r, "load", 25, 10); /* [15,25]: overlaps */
    phase_line(&r, "load", 18, 4);  /* [14,18]: inside both */
    put_file(dir, "run.jsonl", r.p);
    hw_buf_free(&r);
    struct sum_run *run = summarize_dir(dir);
    const struct sum_name_acc *a = find(run, "load");
    CU_ASSERT_FATAL(a != NULL);
    CU_ASSERT_EQUAL(a->count, 3);
    CU_ASSERT_EQUAL(a->overlapping, 2);
    CHECK_NEAR(a->d_sum, 24, 1e-6);     /* the entries' own durations */
    CHECK_NEAR(a->span_s, 15, 1e-6);    /* their union [10,25] */
    CU_ASSERT_EQUAL(a->util.n, 16 * 2); /* seconds 10..25, once each */
    CHECK_NEAR(sum_name_energy_wh(run, a), 300.0 * 15 / 3600, 1e-9);
    sum_run_free(run);
    /* the CLI says so in text, and JSON has the count */
    struct th_result t = run_summarize((char *[]){"--format", "text", dir, NULL});
    CU_ASSERT_EQUAL(t.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "phase load x3: total 24.000 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "2 overlapping (figures over their union)"));
    th_result_free(&t);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* More entries than SUM_MAX_PHASES: every one counts by name, the first are summarized in full,
 * the rest in brief (in the JSON's phases too, with times and outcome). */
static void test_names_beyond_max_phases(void)
{
    char *base = th_tmpdir("agg");
    char *dir = th_fmt("%s/m", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    write_samples(dir);
    enum { N = 5000 }; /* 5000 steps of 8 ms from 0.0 to 40.0 s */
    _Static_assert(N > SUM_MAX_PHASES, "more steps than are summarized in full");
    struct hw_buf r;
    hw_buf_init(&r, NULL, 0);
    for (int i = 0; i < N; i++)
        phase_line(&r, "step", (i + 1) * 0.008, 0.008);
    phase_line(&r, "train", 40, 40); /* logged last: beyond the cap as well */
    put_file(dir, "run.jsonl", r.p);
    hw_buf_free(&r);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL(run->nphase, SUM_MAX_PHASES);
    CU_ASSERT_EQUAL(run->phases_beyond, N + 1 - SUM_MAX_PHASES);
    CU_ASSERT_EQUAL(run->phases_total, N + 1);
    /* by default only those up to the listing's limit are held in brief: memory is flat */
    CU_ASSERT_EQUAL(run->nbrief, SUM_PHASES_LISTED - SUM_MAX_PHASES);
    CU_ASSERT_EQUAL(run->phases_dropped, 0);
    const struct sum_name_acc *st = find(run, "step"), *tr = find(run, "train");
    CU_ASSERT_FATAL(st && tr);
    CU_ASSERT_EQUAL(st->count, N);
    CU_ASSERT_EQUAL(st->kept, SUM_MAX_PHASES);
    CU_ASSERT_EQUAL(tr->kept, 0);
    CHECK_NEAR(st->d_sum, 40, 1e-3);
    CHECK_NEAR(sum_name_energy_wh(run, st), 300.0 * 40 / 3600, 1e-3);
    CHECK_NEAR(sum_name_energy_wh(run, tr), 300.0 * 40 / 3600, 1e-9);
    CU_ASSERT_EQUAL(st->util.n, 41 * 2);
    /* the sweep row counts every entry too, not only those summarized one by one */
    struct hw_buf row;
    hw_buf_init(&row, NULL, 0);
    sum_report_jsonl_row(run, &row);
    struct json_object *o = json_tokener_parse(row.p), *v;
    CU_ASSERT_FATAL(o != NULL);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "phases", &v));
    CU_ASSERT_EQUAL(json_object_get_int64(v), N + 1);
    json_object_put(o);
    hw_buf_free(&row);
    sum_run_free(run);
    /* text: the name lines, not 5000 entry lines; the train phase still shows */
    struct th_result t = run_summarize((char *[]){"--format", "text", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "phase step x5000: total 40.000 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "phase train x1: total 40.000 s"));
    CU_ASSERT(th_count_lines(t.out) < 60);
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "the JSON lists those that matter"));
    th_result_free(&t);
    /* JSON with --phases all: every entry in brief, uniform (the first SUM_MAX_PHASES too);
     * --phase-detail gives those in full */
    for (int detail = 0; detail < 2; detail++) {
        char *with[] = {"--format", "json", "--phases", "all", "--phase-detail", dir, NULL};
        char *without[] = {"--format", "json", "--phases", "all", dir, NULL};
        struct th_result j = run_summarize(detail ? with : without);
        struct json_object *doc = json_tokener_parse(j.out), *ph;
        CU_ASSERT_FATAL(doc && json_object_object_get_ex(doc, "phases", &ph));
        CU_ASSERT_EQUAL(json_object_array_length(ph), N + 1);
        for (size_t i = 0; i < json_object_array_length(ph); i++) {
            struct json_object *e = json_object_array_get_idx(ph, i), *b, *g;
            bool full = detail && i < SUM_MAX_PHASES;
            CU_ASSERT_FATAL(json_object_object_get_ex(e, "brief", &b));
            CU_ASSERT_EQUAL(json_object_get_boolean(b), !full);
            CU_ASSERT_EQUAL(json_object_object_get_ex(e, "gpus", &g), full);
            CU_ASSERT_TRUE(json_object_object_get_ex(e, "start", &g));
            CU_ASSERT_FALSE(json_object_object_get_ex(e, "kept", &g)); /* not a selection */
        }
        CU_ASSERT_FATAL(json_object_object_get_ex(doc, "phases_listed", &ph));
        CU_ASSERT_EQUAL(json_object_get_int64(ph), N + 1);
        CU_ASSERT_FATAL(json_object_object_get_ex(doc, "phases_total", &ph));
        CU_ASSERT_EQUAL(json_object_get_int64(ph), N + 1);
        json_object_put(doc);
        th_result_free(&j);
    }
    th_rmtree(base);
    free(dir);
    free(base);
}

/* The document without phases[] and phases_listed: what must not change with the listing. */
static struct json_object *json_rest(const char *text)
{
    struct json_object *doc = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_object_object_del(doc, "phases");
    json_object_object_del(doc, "phases_listed");
    return doc;
}

/* The kept tags of a listed entry as one string ("first,slowest"), "" for none. */
static void kept_of(struct json_object *e, char *buf, size_t cap)
{
    struct json_object *k;
    buf[0] = '\0';
    if (!json_object_object_get_ex(e, "kept", &k))
        return;
    for (size_t i = 0; i < json_object_array_length(k); i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? "," : "",
                 json_object_get_string(json_object_array_get_idx(k, i)));
}

/* Past SUM_PHASES_LISTED entries, phases[] keeps those that matter, each saying why; --phases
 * all lists every one and --phases N the first N; nothing else in the summary changes. */
static void test_phases_listed(void)
{
    char *base = th_tmpdir("agg");
    char *dir = th_fmt("%s/k", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    write_samples(dir);
    enum { N = 3000 }; /* steps of 7 ms every 8 ms from 10:00:01 */
    _Static_assert(N > SUM_PHASES_LISTED, "more steps than are listed");
    struct hw_buf r;
    hw_buf_init(&r, NULL, 0);
    hw_buf_printf(&r,
                  "{\"ts\": \"%s00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
                  "\"data\": {\"tool\": \"hwmon\", \"interval_s\": 1, \"smi_tz\": \"UTC\"}}\n",
                  T0);
    hw_buf_printf(&r, "{\"ts\": \"%s00.500+00:00\", \"type\": \"phase_begin\", \"name\": "
                      "\"save\", \"phase_id\": \"s1\"}\n", T0);
    int line = 3, want_line[8] = {0};
    for (int i = 0; i < N; i++) {
        double end = 1 + (i + 1) * 0.008, sec = i == 1700 ? 0.008 : i == 2100 ? 0.003 : 0.007;
        if (i == 2400 || i == 2600) /* two failed steps, beyond the full ones */
            hw_buf_printf(&r,
                          "{\"ts\": \"%s%06.3f+00:00\", \"type\": \"phase\", \"name\": "
                          "\"step\", \"seconds\": %g, \"exit_status\": 3}\n",
                          T0, end, sec);
        else
            phase_line(&r, "step", end, sec);
        want_line[0] = i == 0 ? line : want_line[0];
        want_line[1] = i == 1700 ? line : want_line[1];
        want_line[2] = i == 2100 ? line : want_line[2];
        want_line[3] = i == 2400 ? line : want_line[3];
        want_line[4] = i == 2600 ? line : want_line[4];
        line++;
        if (i % 1000 == 999) { /* an eval after every 1000 steps: 0.5 s, 0.9 s, 0.2 s */
            phase_line(&r, "eval", end, i == 1999 ? 0.9 : i == 2999 ? 0.2 : 0.5);
            if (i == 999)
                want_line[5] = line;
            line++;
        }
    }
    put_file(dir, "run.jsonl", r.p);
    hw_buf_free(&r);

    /* the run in memory: the briefs held are those the default listing may show */
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL(run->phases_total, N + 3 + 1);
    CU_ASSERT(run->nbrief <= SUM_PHASES_LISTED);
    sum_run_free(run);

    struct th_result d = run_summarize((char *[]){"--format", "json", dir, NULL});
    struct th_result a = run_summarize((char *[]){"--format", "json", "--phases", "all", dir, NULL});
    struct th_result f = run_summarize((char *[]){"--format", "json", "--phases", "7", dir, NULL});
    CU_ASSERT_EQUAL_FATAL(d.status, 0);
    CU_ASSERT_EQUAL_FATAL(a.status, 0);
    CU_ASSERT_EQUAL_FATAL(f.status, 0);
    struct json_object *dd = json_tokener_parse(d.out), *ad = json_tokener_parse(a.out);
    struct json_object *fd = json_tokener_parse(f.out), *ph, *v;
    CU_ASSERT_FATAL(dd && ad && fd);
    /* default: the kept ones, in log order, each saying why */
    CU_ASSERT_FATAL(json_object_object_get_ex(dd, "phases", &ph));
    struct {
        int line;
        const char *name, *kept;
    } want[] = {
        {want_line[0], "step", "first"}, {want_line[5], "eval", "first"},
        {want_line[1], "step", "slowest"}, {0, "eval", "slowest"},
        {want_line[2], "step", "fastest"}, {want_line[3], "step", "failed"},
        {want_line[4], "step", "failed"}, {0, "eval", "fastest"},
        {2, "save", "first,open"}, /* open: logged last, when the run ended */
    };
    size_t nwant = sizeof want / sizeof *want;
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(ph), nwant);
    for (size_t i = 0; i < nwant; i++) {
        struct json_object *e = json_object_array_get_idx(ph, i);
        char k[128];
        kept_of(e, k, sizeof k);
        CU_ASSERT_STRING_EQUAL(k, want[i].kept);
        CU_ASSERT(json_object_object_get_ex(e, "name", &v) &&
                  !strcmp(json_object_get_string(v), want[i].name));
        if (want[i].line)
            CU_ASSERT(json_object_object_get_ex(e, "line", &v) &&
                      json_object_get_int(v) == want[i].line);
    }
    /* the eval slowest and fastest: 0.9 s and 0.2 s; the open phase runs to the last sample */
    v = json_object_object_get_ex(json_object_array_get_idx(ph, 3), "seconds", &v) ? v : NULL;
    CHECK_NEAR(json_object_get_double(v), 0.9, 1e-9);
    v = json_object_object_get_ex(json_object_array_get_idx(ph, 7), "seconds", &v) ? v : NULL;
    CHECK_NEAR(json_object_get_double(v), 0.2, 1e-9);
    CU_ASSERT(json_object_object_get_ex(json_object_array_get_idx(ph, 8), "open", &v) &&
              json_object_get_boolean(v));
    CU_ASSERT(json_object_object_get_ex(dd, "phases_listed", &v) &&
              json_object_get_int64(v) == (int64_t)nwant);
    CU_ASSERT(json_object_object_get_ex(dd, "phases_total", &v) &&
              json_object_get_int64(v) == N + 3 + 1);
    /* --phases all: every entry, no selection; --phases 7: the first 7 in log order */
    CU_ASSERT_FATAL(json_object_object_get_ex(ad, "phases", &ph));
    CU_ASSERT_EQUAL(json_object_array_length(ph), N + 3 + 1);
    CU_ASSERT_FALSE(json_object_object_get_ex(json_object_array_get_idx(ph, 0), "kept", &v));
    CU_ASSERT(json_object_object_get_ex(ad, "phases_listed", &v) &&
              json_object_get_int64(v) == N + 3 + 1);
    CU_ASSERT_FATAL(json_object_object_get_ex(fd, "phases", &ph));
    CU_ASSERT_EQUAL(json_object_array_length(ph), 7);
    for (size_t i = 0; i < json_object_array_length(ph); i++)
        CU_ASSERT(json_object_object_get_ex(json_object_array_get_idx(ph, i), "line", &v) &&
                  json_object_get_int(v) == (int)i + 3);
    /* nothing else changes with the listing: names, energy, the run's figures */
    struct json_object *rd = json_rest(d.out), *ra = json_rest(a.out), *rf = json_rest(f.out);
    CU_ASSERT_TRUE(json_object_equal(rd, ra));
    CU_ASSERT_TRUE(json_object_equal(rd, rf));
    CU_ASSERT(json_object_object_get_ex(rd, "phase_names", &v) &&
              json_object_array_length(v) == 3);
    json_object_put(rd);
    json_object_put(ra);
    json_object_put(rf);
    json_object_put(dd);
    json_object_put(ad);
    json_object_put(fd);
    /* text says what the JSON lists; a bad --phases is a usage error */
    struct th_result t = run_summarize((char *[]){"--format", "text", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "the JSON lists those that matter"));
    th_result_free(&t);
    t = run_summarize((char *[]){"--phases", "some", dir, NULL});
    CU_ASSERT_EQUAL(t.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "invalid --phases 'some'"));
    th_result_free(&t);
    th_result_free(&d);
    th_result_free(&a);
    th_result_free(&f);
    th_rmtree(base);
    free(dir);
    free(base);
}

static struct json_object *jget(struct json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, "."))
        if (json_object_is_type(o, json_type_array))
            o = json_object_array_get_idx(o, (size_t)atoi(k));
        else if (!json_object_object_get_ex(o, k, &o))
            o = NULL;
    return o;
}

static void test_names_json_and_text(void)
{
    char *base = th_tmpdir("agg");
    char *dir = make_loop_run(base, "a");
    struct th_result r = run_summarize((char *[]){dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    struct json_object *doc = json_tokener_parse(r.out);
    CU_ASSERT_FATAL(doc != NULL);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(doc, "phase_names.0.name")), "step");
    CU_ASSERT_EQUAL(json_object_get_int(jget(doc, "phase_names.0.count")), 5);
    CHECK_NEAR(json_object_get_double(jget(doc, "phase_names.0.seconds.total")), 10, 1e-9);
    CHECK_NEAR(json_object_get_double(jget(doc, "phase_names.0.seconds.std")), 0.632456, 1e-6);
    CHECK_NEAR(json_object_get_double(jget(doc, "phase_names.0.peak_vram_mib")), 1032, 1e-9);
    CHECK_NEAR(json_object_get_double(jget(doc, "phase_names.0.proc_peak_rss_mib")), 132, 1e-9);
    CU_ASSERT_PTR_NOT_NULL(jget(doc, "phase_names.0.energy_wh"));
    /* no cpu_metrics.csv: unmeasured is null, not 0 */
    CU_ASSERT(jget(doc, "phase_names.0") &&
              json_object_object_get_ex(jget(doc, "phase_names.0"), "cpu_usr_mean_pct", NULL) &&
              jget(doc, "phase_names.0.cpu_usr_mean_pct") == NULL);
    CU_ASSERT_EQUAL(json_object_array_length(jget(doc, "phases")), 6); /* entries stay */
    json_object_put(doc);
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "text", dir, NULL});
    const char *agg = strstr(r.out, "phase step x5:"), *one = strstr(r.out, "phase eval:");
    CU_ASSERT(agg && one && agg < one);               /* the repeated name's line first */
    CU_ASSERT_PTR_NULL(strstr(r.out, "phase step:")); /* no line per step */
    th_result_free(&r);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* ---- units ------------------------------------------------------------------------------ */

static void test_units_parse(void)
{
    struct sum_units u;
    char err[256];
    sum_units_init(&u);
    CU_ASSERT_EQUAL(sum_units_parse(&u, "mem=GiB,time=min,energy=kWh", err, sizeof err), 0);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_MEM, 2048), 2, 1e-12);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_TIME, 90), 1.5, 1e-12);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_ENERGY, 1500), 1.5, 1e-12);
    CU_ASSERT_STRING_EQUAL(sum_units_label(&u, SUM_DIM_MEM), "GiB");
    sum_units_init(&u);
    CU_ASSERT_EQUAL(sum_units_parse(&u, "energy=j,mem=mb", err, sizeof err), 0); /* any case */
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_ENERGY, 1), 3600, 1e-9);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_MEM, 1), 1.048576, 1e-12);
    CU_ASSERT_FALSE(u.given[SUM_DIM_TIME]);
    sum_units_init(&u);
    CU_ASSERT_EQUAL(sum_units_parse(&u, "mem=B,time=h", err, sizeof err), 0);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_MEM, 1), 1048576, 1e-6);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_TIME, 7200), 2, 1e-12);
    CU_ASSERT(isnan(sum_units_value(&u, SUM_DIM_TIME, NAN)));
    static const char *const bad[] = {"",         "mem",  "mem=",    "mem=GiBs", "disk=GiB",
                                      "mem=GiB,", "=GiB", "time=ms", "energy=W"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sum_units_init(&u);
        err[0] = '\0';
        CU_ASSERT_EQUAL(sum_units_parse(&u, bad[i], err, sizeof err), -1);
        CU_ASSERT(err[0] != '\0');
    }
    sum_units_init(&u);
    CU_ASSERT_EQUAL(sum_units_parse(&u, "energy=W", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "Wh, kWh, J")); /* says what would do */

    /* gpu_tracker's units: TB and days, GPU memory apart from RAM, rates in the chosen unit */
    sum_units_init(&u);
    CU_ASSERT_EQUAL(sum_units_parse(&u, "mem=TiB,time=d", err, sizeof err), 0);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_MEM, 1048576), 1, 1e-12);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_TIME, 43200), 0.5, 1e-12);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_GPUMEM, 1048576), 1, 1e-12); /* follows mem */
    char col[64];
    CU_ASSERT_EQUAL(sum_units_column(&u, "peak_vram_mib", SUM_DIM_GPUMEM, col, sizeof col), 0);
    CU_ASSERT_STRING_EQUAL(col, "peak_vram_tib");
    CU_ASSERT_EQUAL(sum_units_column(&u, "disk_read_peak_mib_s", SUM_DIM_MEM_RATE, col, sizeof col), 0);
    CU_ASSERT_STRING_EQUAL(col, "disk_read_peak_tib_s");
    CU_ASSERT_EQUAL(sum_units_column(&u, "duration_sec", SUM_DIM_TIME, col, sizeof col), 0);
    CU_ASSERT_STRING_EQUAL(col, "duration_d");
    sum_units_init(&u);
    CU_ASSERT_EQUAL(sum_units_parse(&u, "gpumem=GB,mem=TB", err, sizeof err), 0);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_GPUMEM, 1), 1048576.0 / 1e9, 1e-15);
    CHECK_NEAR(sum_units_value(&u, SUM_DIM_MEM, 1), 1048576.0 / 1e12, 1e-18);
    CU_ASSERT_EQUAL(sum_units_column(&u, "peak_gpu_mem_mb", SUM_DIM_GPUMEM, col, sizeof col), 0);
    CU_ASSERT_STRING_EQUAL(col, "peak_gpu_mem_gb");
    CU_ASSERT_EQUAL(sum_units_column(&u, "peak_rss_mb", SUM_DIM_MEM, col, sizeof col), 0);
    CU_ASSERT_STRING_EQUAL(col, "peak_rss_tb");
    sum_units_init(&u);
    CU_ASSERT_EQUAL(sum_units_parse(&u, "gpumem=GiB", err, sizeof err), 0); /* RAM stays MiB */
    CU_ASSERT_EQUAL(sum_units_column(&u, "peak_rss_mb", SUM_DIM_MEM, col, sizeof col), -1);
    CU_ASSERT_EQUAL(sum_units_column(&u, "gpus_mem_used_peak_mib", SUM_DIM_GPUMEM, col, sizeof col),
                    0);
    CU_ASSERT_STRING_EQUAL(col, "gpus_mem_used_peak_gib");
}

static void test_units_format(void)
{
    struct sum_units u;
    char err[64], b[64];
    sum_units_init(&u);
    /* a short phase's energy shows its digits, never 0.0 */
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, 0.00123, SUM_DIM_ENERGY, &u),
                           "0.00123 Wh");
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, 151.24, SUM_DIM_ENERGY, NULL),
                           "151.2 Wh");
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, NAN, SUM_DIM_ENERGY, NULL), "-");
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, 3723, SUM_DIM_TIME, NULL),
                           "1 h 02 min 03 s");
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, 0.0042, SUM_DIM_TIME, NULL), "0.0042 s");
    CU_ASSERT_EQUAL(sum_units_parse(&u, "energy=kWh,time=min,mem=GiB", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, 0.5, SUM_DIM_ENERGY, &u), "0.0005 kWh");
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, 90, SUM_DIM_TIME, &u), "1.5 min");
    CU_ASSERT_STRING_EQUAL(sum_units_fmt_buf(b, sizeof b, 40960, SUM_DIM_MEM, &u), "40.0 GiB");
    /* column names carry the unit; the compatibility _mb names too */
    char name[64];
    CU_ASSERT_EQUAL(sum_units_column(&u, "energy_wh", SUM_DIM_ENERGY, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "energy_kwh");
    CU_ASSERT_EQUAL(sum_units_column(&u, "peak_rss_mb", SUM_DIM_MEM, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "peak_rss_gib");
    CU_ASSERT_EQUAL(sum_units_column(&u, "duration_sec", SUM_DIM_TIME, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "duration_min");
    CU_ASSERT_EQUAL(sum_units_column(&u, "gpu_util_mean_pct", SUM_DIM_PCT, name, sizeof name), -1);
    CU_ASSERT_EQUAL(sum_units_column(NULL, "energy_wh", SUM_DIM_ENERGY, name, sizeof name), -1);
    /* the dimension is the entry's, not the name's: a name that does not spell its base unit
     * is never renamed (the tables' loop test requires every one to spell it) */
    CU_ASSERT_EQUAL(sum_units_column(&u, "sec_per_step", SUM_DIM_TIME, name, sizeof name), -1);
    CU_ASSERT_EQUAL(sum_units_column(&u, "peak_rss_mb", SUM_DIM_TIME, name, sizeof name), -1);
    CU_ASSERT_EQUAL(sum_dim_name_stem("disk_read_peak_mib_s", SUM_DIM_MEM_RATE), 14);
    CU_ASSERT_EQUAL(sum_dim_name_stem("disk_read_peak_mib_s", SUM_DIM_MEM), -1);
    /* a rate converts as memory, per second; a fixed unit stays as given */
    CU_ASSERT_STRING_EQUAL(sum_dim_unit(&u, SUM_DIM_MEM_RATE), "GiB/s");
    CHECK_NEAR(sum_dim_value(&u, SUM_DIM_MEM_RATE, 2048), 2, 1e-12);
    CHECK_NEAR(sum_dim_value(&u, SUM_DIM_PCT, 42), 42, 0);
    struct hw_buf t;
    hw_buf_init(&t, NULL, 0);
    sum_dim_fmt(&t, 2048, SUM_DIM_MEM_RATE, &u);
    hw_buf_puts(&t, "|");
    sum_dim_fmt(&t, 94, SUM_DIM_PCT, &u);
    hw_buf_puts(&t, "|");
    sum_dim_fmt(&t, 369.14, SUM_DIM_POWER, &u);
    hw_buf_puts(&t, "|");
    sum_dim_fmt(&t, 7, SUM_DIM_NONE, &u);
    hw_buf_putc(&t, '\0');
    CU_ASSERT_STRING_EQUAL(t.p, "2.0 GiB/s|94.0%|369.1 W|7.0");
    hw_buf_free(&t);
}

static void test_units_cli(void)
{
    char *base = th_tmpdir("agg");
    char *dir = make_loop_run(base, "a");
    struct th_result r =
        run_summarize((char *[]){"--format", "csv", "--units", "mem=GiB,energy=J", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    /* header names carry the units; peak_vram_mb and peak_vram_mib became one column */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",peak_vram_gib,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",energy_j,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",duration_sec,")); /* time not named: as before */
    CU_ASSERT_PTR_NULL(strstr(r.out, "peak_vram_mb"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",phase.step.energy_j,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",phase.step.peak_vram_gib"));
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "jsonl", "--units", "energy=J", dir, NULL});
    struct json_object *row = json_tokener_parse(r.out);
    CU_ASSERT_FATAL(row != NULL);
    /* 40 s of 300 W = 12000 J (the run's, in joules) */
    CHECK_NEAR(json_object_get_double(jget(row, "energy_j")), 12000, 1e-6);
    CU_ASSERT_PTR_NULL(jget(row, "energy_wh"));
    struct json_object *v = NULL; /* a key with dots: not through jget */
    CU_ASSERT(json_object_object_get_ex(row, "phase.step.energy_j", &v));
    CHECK_NEAR(json_object_get_double(v), 3000, 1e-6);
    json_object_put(row);
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "text", "--units", "mem=GiB,time=min", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "peak VRAM 1.0 GiB")); /* 1040 MiB */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "duration 0.667 min"));
    th_result_free(&r);
    /* JSON keeps its units whatever --units says */
    r = run_summarize((char *[]){"--units", "mem=GiB", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"peak_vram_mib\": 1040"));
    th_result_free(&r);
    /* a bad --units is a usage error that says why */
    r = run_summarize((char *[]){"--units", "mem=GB,energy=cal", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "unknown energy unit 'cal'"));
    CU_ASSERT_EQUAL(r.out_len, 0);
    th_result_free(&r);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* ---- CPU as a share of the job's cores ------------------------------------------------------ */

static void test_cores(void)
{
    char *base = th_tmpdir("agg");
    char *dir = make_loop_run(base, "a"); /* start event: cpus_allowed 4; tree CPU 50..90% */
    struct sum_run *run = summarize_dir(dir);
    const char *src;
    CHECK_NEAR(sum_run_expected_cores(run, &src), 4, 0);
    CU_ASSERT_STRING_EQUAL(src, "affinity");
    sum_run_free(run);
    /* a cgroup quota is what the job may use: it wins over the affinity mask */
    put_file(dir, "cpu_metrics.csv",
             "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,"
             "mem_available_mib,cgroup_cpu_limit_cores,cgroup_cpu_pct,cgroup_mem_current_mib,"
             "cgroup_mem_max_mib\n"
             "2026-11-21T10:00:01.000+00:00,10,90,1,0,0,100,100,2.50,50,10,\n");
    run = summarize_dir(dir);
    CHECK_NEAR(sum_run_expected_cores(run, &src), 2.5, 0);
    CU_ASSERT_STRING_EQUAL(src, "cgroup_quota");
    sum_run_free(run);
    struct th_result r = run_summarize((char *[]){dir, NULL});
    struct json_object *doc = json_tokener_parse(r.out);
    CU_ASSERT_FATAL(doc != NULL);
    CHECK_NEAR(json_object_get_double(jget(doc, "process.cpu_mean_pct")), 70, 1e-9);
    CHECK_NEAR(json_object_get_double(jget(doc, "process.cpu_mean_pct_of_cores")), 28, 1e-9);
    CHECK_NEAR(json_object_get_double(jget(doc, "process.cpu_max_pct_of_cores")), 36, 1e-9);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(doc, "process.expected_cores_source")),
                           "cgroup_quota");
    json_object_put(doc);
    th_result_free(&r);
    /* --cores overrides both */
    r = run_summarize((char *[]){"--cores", "7", "--format", "text", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "CPU mean 70.0% of one core (10.0% of 7 cores: --cores)"));
    th_result_free(&r);
    r = run_summarize((char *[]){"--cores", "7", "--format", "jsonl", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"expected_cores_source\": \"option\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"proc_cpu_mean_pct_of_cores\": 10.0"));
    th_result_free(&r);
    static const char *const bad[] = {"0", "-2", "four", "4x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_summarize((char *[]){"--cores", (char *)bad[i], dir, NULL});
        CU_ASSERT_EQUAL(r.status, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "invalid number of cores"));
        th_result_free(&r);
    }
    th_rmtree(base);
    free(dir);
    free(base);
    /* neither quota nor mask (an older hwmon): unknown, null, not 100% of something */
    base = th_tmpdir("agg");
    dir = th_fmt("%s/n", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    write_samples(dir);
    r = run_summarize((char *[]){dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"expected_cores\": null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"cpu_mean_pct_of_cores\": null"));
    th_result_free(&r);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* The node's CPU rows are gauges by time: each cadence row's rates stand for the seconds since
 * the one before (a 10 s hole's row, whose jiffies span the hole, for 10 s), a point reading
 * (memory) in a hole for one interval only; edge rows are parts of the next cadence row. */
static void test_node_cpu_by_time(void)
{
    char *base = th_tmpdir("agg");
    char *dir = th_fmt("%s/w", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": "
             "\"start\", \"data\": {\"interval_s\": 1.0}}\n");
    put_file(dir, "cpu_metrics.csv",
             "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,"
             "mem_available_mib,edge\n"
             "2026-11-21T10:00:01.000+00:00,10,90,0,0,0,100,900,\n"
             "2026-11-21T10:00:01.500+00:00,50,50,0,0,0,500,500,1\n"
             "2026-11-21T10:00:02.000+00:00,10,90,0,0,0,100,900,\n"
             "2026-11-21T10:00:03.000+00:00,10,90,0,0,0,100,900,\n"
             "2026-11-21T10:00:13.000+00:00,90,10,0,0,0,1000,0,\n");
    struct th_result r = run_summarize((char *[]){dir, NULL});
    struct json_object *doc = json_tokener_parse(r.out);
    CU_ASSERT_FATAL(doc != NULL);
    /* usr: (1 + 1 + 1) s at 10% and the hole's 10 s at 90% (the first row: one interval) */
    CHECK_NEAR(json_object_get_double(jget(doc, "cpu.usr_pct.mean")), (3 * 10 + 10 * 90) / 13.0,
               1e-9);
    CU_ASSERT_EQUAL(json_object_get_int(jget(doc, "cpu.usr_pct.n")), 4); /* cadence rows */
    CHECK_NEAR(json_object_get_double(jget(doc, "cpu.busy_pct.mean")), (3 * 10 + 10 * 90) / 13.0,
               1e-9);
    /* memory: the hole's reading for an interval, not for the 10 s nobody looked */
    CHECK_NEAR(json_object_get_double(jget(doc, "cpu.mem_used_mib.mean")), (3 * 100 + 1000) / 4.0,
               1e-9);
    CHECK_NEAR(json_object_get_double(jget(doc, "cpu.mem_used_mib.max")), 1000, 0);
    json_object_put(doc);
    th_result_free(&r);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* ---- sweep columns by phase name, and --compare ------------------------------------------ */

static void test_phase_columns_lined_up(void)
{
    char *base = th_tmpdir("agg");
    char *a = make_loop_run(base, "a"), *b = th_fmt("%s/b", base);
    CU_ASSERT_FATAL(mkdir(b, 0755) == 0);
    write_samples(b);
    struct hw_buf r;
    hw_buf_init(&r, NULL, 0);
    phase_line(&r, "warmup", 5, 5); /* a name A does not have; no step */
    phase_line(&r, "eval", 15, 5);
    put_file(b, "run.jsonl", r.p);
    hw_buf_free(&r);
    struct th_result t = run_summarize((char *[]){"--format", "csv", a, b, NULL});
    CU_ASSERT_EQUAL(t.status, 0);
    CU_ASSERT_EQUAL(th_count_lines(t.out), 3);
    char *l1 = t.out, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
    /* the header has each name's columns once; every row has as many cells */
    size_t nc[3] = {0, 0, 0};
    char *ls[3] = {l1, l2, l3};
    for (int i = 0; i < 3; i++)
        for (char *p = ls[i]; *p && *p != '\n'; p++)
            nc[i] += *p == ',';
    CU_ASSERT(nc[0] == nc[1] && nc[1] == nc[2]);
    char *hdr = strndup(l1, (size_t)(l2 - l1));
    const char *cols[] = {"phase.step.count", "phase.eval.count", "phase.warmup.count",
                          "phase.eval.total_sec"};
    for (size_t i = 0; i < 4; i++) {
        const char *p = strstr(hdr, cols[i]);
        CU_ASSERT(p && !strstr(p + 1, cols[i]));
    }
    /* B's eval.count lines up under the eval column: count the commas before it */
    size_t col = 0;
    for (const char *p = hdr; p < strstr(hdr, "phase.eval.count"); p++)
        col += *p == ',';
    const char *cell = l3;
    for (size_t k = 0; k < col; k++)
        cell = strchr(cell, ',') + 1;
    CU_ASSERT_EQUAL(strncmp(cell, "1,", 2), 0);
    free(hdr);
    th_result_free(&t);
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

static struct json_object *metric(struct json_object *list, const char *name)
{
    for (size_t i = 0; list && i < json_object_array_length(list); i++) {
        struct json_object *m = json_object_array_get_idx(list, i);
        if (!strcmp(json_object_get_string(jget(m, "metric")), name))
            return m;
    }
    return NULL;
}

static void test_compare(void)
{
    char *base = th_tmpdir("agg");
    char *a = make_loop_run(base, "a"), *b = make_loop_run(base, "b");
    /* B: every step twice as long, no eval, GPU 1 at 400 W */
    struct hw_buf r;
    hw_buf_init(&r, NULL, 0);
    phase_line(&r, "step", 6, 4);
    phase_line(&r, "step", 10, 4);
    put_file(b, "run.jsonl", r.p);
    hw_buf_free(&r);
    struct th_result t = run_summarize((char *[]){"--compare", a, b, NULL}); /* piped: JSON */
    CU_ASSERT_EQUAL(t.status, 0);
    struct json_object *doc = json_tokener_parse(t.out);
    CU_ASSERT_FATAL(doc != NULL);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(doc, "schema")), "hwrun.compare/1");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(doc, "b.dir")), b);
    struct json_object *m = metric(jget(doc, "metrics"), "phases");
    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT_EQUAL(json_object_get_int(jget(m, "a")), 6);
    CU_ASSERT_EQUAL(json_object_get_int(jget(m, "b")), 2);
    CU_ASSERT_EQUAL(json_object_get_int(jget(m, "change")), -4);
    CHECK_NEAR(json_object_get_double(jget(m, "change_pct")), -66.6666666667, 1e-6);
    struct json_object *ph = jget(doc, "phases"), *step = NULL, *eval = NULL;
    for (size_t i = 0; ph && i < json_object_array_length(ph); i++) {
        struct json_object *p = json_object_array_get_idx(ph, i);
        const char *n = json_object_get_string(jget(p, "name"));
        if (!strcmp(n, "step"))
            step = p;
        else if (!strcmp(n, "eval"))
            eval = p;
    }
    CU_ASSERT_FATAL(step && eval);
    m = metric(jget(step, "metrics"), "mean_sec");
    CHECK_NEAR(json_object_get_double(jget(m, "a")), 2, 1e-9);
    CHECK_NEAR(json_object_get_double(jget(m, "b")), 4, 1e-9);
    CHECK_NEAR(json_object_get_double(jget(m, "change_pct")), 100, 1e-9);
    /* eval only in A: B, change and % are null */
    m = metric(jget(eval, "metrics"), "total_sec");
    CHECK_NEAR(json_object_get_double(jget(m, "a")), 10, 1e-9);
    CU_ASSERT(m && json_object_object_get_ex(m, "b", NULL) && !jget(m, "b") && !jget(m, "change") &&
              !jget(m, "change_pct"));
    json_object_put(doc);
    th_result_free(&t);
    /* text, in --units */
    t = run_summarize(
        (char *[]){"--compare", "--all", "--format", "text", "--units", "time=min", a, b, NULL});
    CU_ASSERT_EQUAL(t.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "compare A "));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "  phase step\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "mean_min"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "+100.0%"));
    CU_ASSERT_PTR_NULL(strstr(t.out, "not like with like")); /* both integrated */
    th_result_free(&t);
    /* B's GPUs with energy counters: each side says its reading, the text that they differ,
     * under energy_wh */
    hw_buf_init(&r, NULL, 0);
    hw_buf_puts(&r, "timestamp,index,energy_mj,edge\n");
    for (int s = 0; s <= 40; s++)
        for (int q = 0; q < 2; q++)
            hw_buf_printf(&r, "%s%02d.000+00:00,%d,%d,\n", T0, s, q, 5000 + 300000 * s);
    put_file(b, "hw_energy.csv", r.p);
    hw_buf_free(&r);
    t = run_summarize((char *[]){"--compare", a, b, NULL});
    doc = json_tokener_parse(t.out);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(doc, "a.energy_source")), "integrated");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(doc, "b.energy_source")), "counter");
    json_object_put(doc);
    th_result_free(&t);
    t = run_summarize((char *[]){"--compare", "--all", "--format", "text", a, b, NULL});
    const char *ew = strstr(t.out, "  energy_wh ");
    CU_ASSERT(ew && strstr(ew, "\n    (energy_source: A integrated, B counter; not like with "
                               "like)\n") == strchr(ew, '\n'));
    th_result_free(&t);
    /* a missing directory: said, exit 1, nothing printed */
    char *gone = th_fmt("%s/missing", base);
    t = run_summarize((char *[]){"--compare", a, gone, NULL});
    CU_ASSERT_EQUAL(t.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "missing: No such file or directory"));
    CU_ASSERT_EQUAL(t.out_len, 0);
    th_result_free(&t);
    /* one directory, three, or a row format: usage errors */
    char *const *usage[] = {(char *[]){"--compare", a, NULL},
                            (char *[]){"--compare", a, b, a, NULL},
                            (char *[]){"--compare", "--format", "csv", a, b, NULL}};
    for (size_t i = 0; i < 3; i++) {
        t = run_summarize(usage[i]);
        CU_ASSERT_EQUAL(t.status, 2);
        th_result_free(&t);
    }
    free(gone);
    th_rmtree(base);
    free(a);
    free(b);
    free(base);
}

static size_t lines_of(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* Two runs of a sweep that differ in lr: the text says so first (in the first 10 lines), then
 * where the time and energy went, then the largest changes, in at most 40 lines; --all lists
 * every figure (issue 49). */
static void test_compare_first(void)
{
    char *base = th_tmpdir("agg");
    char *dir[2] = {make_loop_run(base, "lr1e-3"), make_loop_run(base, "lr1e-2")};
    static const char *const cfg[2] = {"{\"lr\": 0.001, \"batch\": 64}", "{\"lr\": 0.01, \"batch\": 64}"};
    static const double loss[2] = {0.25, 0.75};
    for (int i = 0; i < 2; i++) {
        char *path = th_fmt("%s/run.jsonl", dir[i]);
        size_t len;
        char *log = th_read_file(path, &len);
        CU_ASSERT_FATAL(log != NULL);
        char *more = th_fmt("%s{\"ts\": \"%s01.000+00:00\", \"type\": \"event\", \"event\": "
                            "\"config\", \"data\": %s}\n{\"ts\": \"%s33.000+00:00\", \"type\": "
                            "\"event\", \"event\": \"metric\", \"data\": {\"loss\": %g}}\n",
                            log, T0, cfg[i], T0, loss[i]);
        put_file(dir[i], "run.jsonl", more);
        free(more);
        free(log);
        free(path);
    }
    /* B's steps take twice as long: many figures change */
    struct hw_buf r;
    hw_buf_init(&r, NULL, 0);
    char *log = th_fmt("%s/run.jsonl", dir[1]);
    char *text = th_read_file(log, NULL);
    hw_buf_puts(&r, text);
    phase_line(&r, "step", 36, 4);
    phase_line(&r, "step", 40, 4);
    put_file(dir[1], "run.jsonl", r.p);
    hw_buf_free(&r);
    free(text);
    free(log);
    struct th_result t = run_summarize((char *[]){"--compare", "-f", "text", dir[0], dir[1], NULL});
    CU_ASSERT_EQUAL(t.status, 0);
    size_t n = lines_of(t.out);
    CU_ASSERT(n <= SUM_COMPARE_LINES);
    const char *lr = strstr(t.out, "    lr ");
    CU_ASSERT_FATAL(lr != NULL);
    char *head = strndup(t.out, (size_t)(lr - t.out));
    CU_ASSERT(lines_of(head) < 10); /* lr's line is one of the first 10 */
    free(head);
    CU_ASSERT_PTR_NOT_NULL(strstr(lr, "0.001") );
    CU_ASSERT_PTR_NULL(strstr(t.out, "    batch ")); /* the same in both: not a difference */
    /* the explanation before the largest changes, and metric.loss among them (+200%) */
    const char *tm = strstr(t.out, "  time: B "), *lc = strstr(t.out, "  largest changes ");
    CU_ASSERT(tm && lc && tm < lc);
    const char *ml = strstr(t.out, "  metric.loss ");
    CU_ASSERT(ml && ml > lc && strstr(ml, "+200.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "--all)\n"));
    /* --all: every figure, each phase name's too, past 40 lines */
    struct th_result all =
        run_summarize((char *[]){"--compare", "--all", "-f", "text", dir[0], dir[1], NULL});
    CU_ASSERT_EQUAL(all.status, 0);
    CU_ASSERT(lines_of(all.out) > SUM_COMPARE_LINES);
    CU_ASSERT_PTR_NOT_NULL(strstr(all.out, "  phase step\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(all.out, "    lr "));
    th_result_free(&all);
    th_result_free(&t);
    /* --all without --compare: a usage error */
    t = run_summarize((char *[]){"--all", dir[0], NULL});
    CU_ASSERT_EQUAL(t.status, 2);
    th_result_free(&t);
    th_rmtree(base);
    free(dir[0]);
    free(dir[1]);
    free(base);
}

/* calibrax's ResourceSummary keys, in JSON and in the rows, with its meaning (MiB, percent). */
static void test_calibrax_keys(void)
{
    char *base = th_tmpdir("agg");
    char *dir = make_loop_run(base, "a");
    static const char *const keys[] = {"peak_rss_mb",   "mean_rss_mb",        "peak_gpu_mem_mb",
                                       "mean_gpu_util", "memory_growth_mb",   "num_samples",
                                       "duration_sec",  "mean_gpu_clock_mhz", "mean_gpu_power_w"};
    struct th_result j = run_summarize((char *[]){dir, NULL}),
                     l = run_summarize((char *[]){"--format", "jsonl", dir, NULL});
    struct json_object *doc = json_tokener_parse(j.out), *row = json_tokener_parse(l.out);
    CU_ASSERT_FATAL(doc && row);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        struct json_object *a = jget(doc, keys[i]), *b = jget(row, keys[i]);
        CU_ASSERT(a && b && json_object_get_double(a) == json_object_get_double(b));
    }
    CHECK_NEAR(json_object_get_double(jget(doc, "peak_gpu_mem_mb")), 1040, 0);
    CHECK_NEAR(json_object_get_double(jget(doc, "mean_gpu_util")), 20, 1e-9);
    CHECK_NEAR(json_object_get_double(jget(doc, "memory_growth_mb")), 40, 0);
    json_object_put(doc);
    json_object_put(row);
    th_result_free(&j);
    th_result_free(&l);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* Every GPU at one instant: the rows of one nvidia-smi loop are one instant; only instants
 * with every GPU count (a dropped row never passes for a GPU at 0); a metric unmeasured on one
 * GPU leaves that instant out of that metric only. */
static void test_together(void)
{
    struct sum_together t;
    sum_together_init(&t);
    double v[HW_GPU_FIG_COUNT];
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        v[m] = NAN;
    /* instant 1: GPUs 0, 1, 2 at 10/20/0 % util, 100/200/300 MiB of 1000 each */
    static const double util[][3] = {{10, 20, 0}, {90, 80, 70}, {50, NAN, 50}, {100, 100, 0}};
    for (int i = 0; i < 4; i++)
        for (int g = 0; g < 3; g++) {
            if (i == 3 && g == 1)
                continue; /* a dropped row: instant 4 has two GPUs, not counted */
            v[HW_GM_UTIL] = util[i][g];
            v[HW_GM_MEM_USED] = 100.0 * (g + 1) + (i == 1 ? 1000 : 0);
            v[HW_GM_MEM_TOTAL] = 4000;
            sum_together_row(&t, g, i, v);
        }
    sum_together_finish(&t);
    struct sum_together_figs f;
    sum_together_figs(&t, &f);
    CU_ASSERT_EQUAL(f.instants, 3);
    CU_ASSERT_EQUAL(f.gpus, 3);
    CHECK_NEAR(f.mem_used_peak_mib, 3600, 1e-9);  /* instant 2: 1100 + 1200 + 1300 */
    CHECK_NEAR(f.mem_total_mib, 12000, 1e-9);
    CHECK_NEAR(f.util_sum_peak_pct, 240, 1e-9);   /* instant 3 has no util sum (NaN) */
    CHECK_NEAR(f.util_sum_mean_pct, (30 + 240) / 2.0, 1e-9);
    CHECK_NEAR(f.util_avg_peak_pct, 80, 1e-9);
    CHECK_NEAR(f.util_avg_mean_pct, 45, 1e-9);
    CHECK_NEAR(f.busy_gpus_max, 3, 1e-9);
    CHECK_NEAR(f.busy_gpus_mean, 2.5, 1e-9);
    /* no rows: nothing measured, never 0 */
    sum_together_init(&t);
    sum_together_finish(&t);
    sum_together_figs(&t, &f);
    CU_ASSERT_EQUAL(f.instants, 0);
    CU_ASSERT_TRUE(isnan(f.mem_used_peak_mib) && isnan(f.util_sum_peak_pct));
}

void add_aggregates_suites(void)
{
    CU_add_test(th_add_suite("ivindex", NULL, NULL, 60), "brute_force", test_ivx_brute_force);
    CU_pSuite s = th_add_suite("phase_names", NULL, NULL, 60);
    CU_add_test(s, "figures", test_names_figures);
    CU_add_test(s, "overlapping", test_names_overlapping);
    CU_add_test(s, "energy_rule", test_names_energy_rule);
    CU_add_test(s, "beyond_max_phases", test_names_beyond_max_phases);
    CU_add_test(s, "listed", test_phases_listed);
    CU_add_test(s, "json_and_text", test_names_json_and_text);
    s = th_add_suite("units", NULL, NULL, 60);
    CU_add_test(s, "parse", test_units_parse);
    CU_add_test(s, "format", test_units_format);
    CU_add_test(s, "cli", test_units_cli);
    CU_pSuite cs = th_add_suite("cores", NULL, NULL, 60);
    CU_add_test(cs, "sources", test_cores);
    CU_add_test(cs, "node_cpu_by_time", test_node_cpu_by_time);
    s = th_add_suite("compare", NULL, NULL, 60);
    CU_add_test(s, "phase_columns_lined_up", test_phase_columns_lined_up);
    CU_add_test(s, "runs", test_compare);
    CU_add_test(s, "first", test_compare_first);
    CU_add_test(s, "calibrax_keys", test_calibrax_keys);
    CU_add_test(th_add_suite("together", NULL, NULL, 60), "instants", test_together);
}
