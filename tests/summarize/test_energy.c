/* Suites "energy" and "phases": energy on synthetic power traces (constant, ramp, gap,
 * unmeasured samples, with and without hwmon's interval) and per-phase windows at their edges,
 * through the library on generated run directories. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "energy.h"
#include "sumtest.h"

#define BASE 1767225600.0 /* 2026-01-01T00:00:00Z */

/* hw_metrics.csv in hwmon's default layout; p NAN writes [N/A]. */
static void gpu_csv(const char *dir, size_t n, const double *t, const double *p, int ngpus)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    for (size_t i = 0; i < n; i++)
        for (int g = 0; g < ngpus; g++) {
            char ts[80];
            th_smi_time(ts, sizeof ts, BASE + t[i]);
            hw_buf_printf(&b, "%s, %d, 10, 1000, 80000, ", ts, 50 + (int)i);
            if (isnan(p[i]))
                hw_buf_puts(&b, "[N/A]");
            else
                hw_buf_printf(&b, "%.2f", p[i] * (g + 1));
            hw_buf_printf(&b, ", 60, 1980, 2619, %d, GPU-%d\n", g, g);
        }
    hw_buf_putc(&b, '\0');
    put_file(dir, "hw_metrics.csv", b.p);
    hw_buf_free(&b);
}

static void runlog(const char *dir, double interval, const char *phases)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    char ts[80];
    th_iso_time(ts, sizeof ts, BASE - 1);
    hw_buf_printf(&b, "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
                      "{\"smi_tz\": \"UTC\"",
                  ts);
    if (interval > 0)
        hw_buf_printf(&b, ", \"interval_s\": %g", interval);
    hw_buf_puts(&b, "}}\n");
    if (phases)
        hw_buf_puts(&b, phases);
    hw_buf_putc(&b, '\0');
    put_file(dir, "run.jsonl", b.p);
    hw_buf_free(&b);
}

static void phase_line(struct hw_buf *b, const char *name, double t0, double t1)
{
    char ts[80];
    th_iso_time(ts, sizeof ts, BASE + t1);
    hw_buf_printf(b, "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"%s\", \"seconds\": %.3f}\n",
                  ts, name, t1 - t0);
}

static struct sum_run *trace(const double *t, const double *p, size_t n, double interval,
                             int ngpus, const char *phases)
{
    char *dir = th_tmpdir("energy");
    gpu_csv(dir, n, t, p, ngpus);
    runlog(dir, interval, phases);
    struct sum_run *run = summarize_dir(dir);
    th_rmtree(dir);
    free(dir);
    return run;
}

static void test_constant(void)
{
    double t[10], p[10];
    for (int i = 0; i < 10; i++)
        t[i] = i, p[i] = 100;
    for (int iv = 0; iv <= 1; iv++) {
        struct sum_run *run = trace(t, p, 10, iv ? 1.0 : 0, 2, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run->gpu[0]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run->gpu[1]);
        CHECK_NEAR(run->gpu[0]->energy.joules, 900, 1e-9);
        CHECK_NEAR(run->gpu[1]->energy.joules, 1800, 1e-9); /* GPU 1 draws twice as much */
        CHECK_NEAR(sum_run_energy_wh(run), 2700 / 3600.0, 1e-12);
        CU_ASSERT_EQUAL(run->gpu[0]->energy.gaps, 0);
        CHECK_NEAR(run->gpu[0]->energy.covered_s, 9, 1e-9);
        CHECK_NEAR(run->gpu[0]->energy.interval_s, 1, 1e-9);
        /* 10 sampling instants of 2 GPUs: 20 rows, 10 samples */
        CU_ASSERT_EQUAL(sum_run_num_samples(run), 10);
        CU_ASSERT_EQUAL(run->q[HW_FILE_GPU].parsed, 20);
        sum_run_free(run);
    }
}

static void test_ramp(void)
{
    double t[10], p[10];
    for (int i = 0; i < 10; i++)
        t[i] = i * 0.5, p[i] = 20.0 * i; /* p = 40 W/s * t */
    struct sum_run *run = trace(t, p, 10, 0.5, 1, NULL);
    /* integral of 40 t over [0, 4.5] = 20 * 4.5^2 */
    CHECK_NEAR(run->gpu[0]->energy.joules, 405, 1e-9);
    sum_run_free(run);
}

static void test_gap(void)
{
    double t[10], p[10];
    for (int i = 0; i < 10; i++)
        t[i] = i < 5 ? i : 15 + i, p[i] = 100;
    for (int iv = 0; iv <= 1; iv++) {
        struct sum_run *run = trace(t, p, 10, iv ? 1.0 : 0, 1, NULL);
        const struct rd_energy *e = &run->gpu[0]->energy;
        CHECK_NEAR(e->joules, 800, 1e-9);
        CU_ASSERT_EQUAL(e->gaps, 1);
        CHECK_NEAR(e->gap_s, 16, 1e-9);
        CHECK_NEAR(e->covered_s, 8, 1e-9);
        sum_run_free(run);
    }
    /* a step of exactly 3 intervals is still bridged */
    double t2[] = {0, 1, 2, 5, 6}, p2[] = {100, 100, 100, 100, 100};
    struct sum_run *run = trace(t2, p2, 5, 1.0, 1, NULL);
    CHECK_NEAR(run->gpu[0]->energy.joules, 600, 1e-9);
    CU_ASSERT_EQUAL(run->gpu[0]->energy.gaps, 0);
    sum_run_free(run);
}

/* One interval for the whole summary: the start event says 1.0 s while nvidia-smi wrote every
 * 0.5 s with a 2 s hole. The hole is a gap (4 intervals of 0.5 s), for energy and for the
 * file's gap count alike; a hint of 1.0 s would have bridged it and counted none. */
static void test_wrong_hint(void)
{
    double t[30], p[30];
    for (int i = 0; i < 30; i++)
        t[i] = i < 15 ? i * 0.5 : i * 0.5 + 1.5, p[i] = 100; /* 7.0 -> 9.0: a 2 s step */
    for (int hint = 0; hint <= 2; hint++) { /* none, 1.0 (wrong), 0.5 (right) */
        struct sum_run *run = trace(t, p, 30, hint == 1 ? 1.0 : hint == 2 ? 0.5 : 0, 2, NULL);
        for (int g = 0; g < 2; g++) {
            const struct rd_energy *e = &run->gpu[g]->energy;
            CHECK_NEAR(e->interval_s, 0.5, 1e-9);
            CU_ASSERT(e->interval_from_rows);
            CU_ASSERT_EQUAL(e->gaps, 1);
            CHECK_NEAR(e->gap_s, 2, 1e-9);
            CHECK_NEAR(e->covered_s, 16.0 - 2, 1e-9); /* 0 .. 16 s less the hole */
        }
        CU_ASSERT_EQUAL(sum_run_file_gaps(run, HW_FILE_GPU), 2); /* the two GPUs' gaps */
        CHECK_NEAR(sum_run_gap_interval(run, HW_FILE_GPU, 0), 0.5, 1e-9);
        CHECK_NEAR(sum_run_energy_wh(run), (100 + 200) * 14.0 / 3600.0, 1e-12);
        sum_run_free(run);
    }
    /* one row: no step to measure, the start event's interval stands */
    double t1[] = {0}, p1[] = {100};
    struct sum_run *run = trace(t1, p1, 1, 2.0, 1, NULL);
    CHECK_NEAR(run->gpu[0]->energy.interval_s, 2.0, 1e-9);
    CU_ASSERT(!run->gpu[0]->energy.interval_from_rows);
    sum_run_free(run);
}

/* A hole is a gap whether or not power was measured at its ends. */
static void test_gap_unmeasured(void)
{
    double t[] = {0, 1, 2, 3, 10, 11, 12}, p[] = {100, 100, 100, NAN, 100, 100, 100};
    struct sum_run *run = trace(t, p, 7, 1.0, 1, NULL);
    const struct rd_energy *e = &run->gpu[0]->energy;
    CU_ASSERT_EQUAL(e->gaps, 1);
    CU_ASSERT_EQUAL(e->unmeasured, 1); /* 2 -> 3 */
    CHECK_NEAR(e->joules, 400, 1e-9);
    CU_ASSERT_EQUAL(sum_run_file_gaps(run, HW_FILE_GPU), 1);
    sum_run_free(run);
}

static void test_unmeasured(void)
{
    double t[] = {0, 1, 2, 3, 4}, p[] = {100, 100, NAN, 100, 100};
    struct sum_run *run = trace(t, p, 5, 1.0, 1, NULL);
    const struct rd_energy *e = &run->gpu[0]->energy;
    CHECK_NEAR(e->joules, 200, 1e-9);
    CU_ASSERT_EQUAL(e->unmeasured, 2);
    CU_ASSERT_EQUAL(run->gpu[0]->m[HW_GM_POWER].n, 4);
    CU_ASSERT_EQUAL(run->gpu[0]->m[HW_GM_UTIL].n, 5); /* the rest of the row counts */
    sum_run_free(run);
}

static void test_phase_edges(void)
{
    double t[10], p[10];
    for (int i = 0; i < 10; i++)
        t[i] = i, p[i] = 100;
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    phase_line(&b, "load", 2, 5);      /* samples 2,3,4,5: both edges inclusive */
    phase_line(&b, "tiny", 2.5, 3.5);  /* one sample inside */
    phase_line(&b, "off", 5.001, 5.999); /* no sample, but energy */
    phase_line(&b, "outer", 0, 9);
    hw_buf_putc(&b, '\0');
    struct sum_run *run = trace(t, p, 10, 1.0, 1, b.p);
    hw_buf_free(&b);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 4);
    const struct sum_phase_acc *ph = run->phase;
    CU_ASSERT_STRING_EQUAL(ph[0].name, "load");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ph[0].gpu[0]);
    CU_ASSERT_EQUAL(ph[0].gpu[0]->m[HW_GM_UTIL].n, 4);
    CHECK_NEAR(ph[0].gpu[0]->m[HW_GM_UTIL].min, 52, 0);
    CHECK_NEAR(ph[0].gpu[0]->m[HW_GM_UTIL].max, 55, 0);
    CHECK_NEAR(ph[0].gpu[0]->energy_j, 300, 1e-6);
    CU_ASSERT_EQUAL(ph[1].gpu[0]->m[HW_GM_UTIL].n, 1);
    CHECK_NEAR(ph[1].gpu[0]->energy_j, 100, 1e-3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ph[2].gpu[0]);
    CU_ASSERT_EQUAL(ph[2].gpu[0]->m[HW_GM_UTIL].n, 0);
    CHECK_NEAR(ph[2].gpu[0]->energy_j, 99.8, 1e-3); /* edges at ms, epoch ulp 2e-7 s */
    CU_ASSERT_EQUAL(ph[3].gpu[0]->m[HW_GM_UTIL].n, 10);
    CHECK_NEAR(ph[3].gpu[0]->energy_j, 900, 1e-6);
    sum_run_free(run);
}

static void test_phase_ramp(void)
{
    double t[10], p[10];
    for (int i = 0; i < 10; i++)
        t[i] = i, p[i] = 10.0 * i;
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    phase_line(&b, "mid", 2.5, 3.5);
    phase_line(&b, "tail", 8.5, 20);
    hw_buf_putc(&b, '\0');
    struct sum_run *run = trace(t, p, 10, 1.0, 1, b.p);
    hw_buf_free(&b);
    /* integral of 10 t over [2.5, 3.5] = 5 (3.5^2 - 2.5^2) */
    CHECK_NEAR(run->phase[0].gpu[0]->energy_j, 30, 1e-3);
    /* over [8.5, 9]: the trace ends at 9 */
    CHECK_NEAR(run->phase[1].gpu[0]->energy_j, 5 * (81 - 72.25), 1e-3);
    sum_run_free(run);
}

static void test_phase_cpu_proc(void)
{
    char *dir = th_tmpdir("phases");
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    phase_line(&b, "train", 1, 3);
    hw_buf_putc(&b, '\0');
    runlog(dir, 1.0, b.p);
    hw_buf_free(&b);
    rows_begin(&b, hw_cpu_cols, HW_CPU_COL_IDLE + 1, false);
    struct hw_buf pr;
    rows_begin(&pr, hw_proc_cols, HW_PROC_COL_WRITE + 1, false);
    for (int i = 0; i < 6; i++) {
        rows_add(&b, BASE + i, "%d.0,%d.0", 10 * i, 100 - 10 * i);
        rows_add(&pr, BASE + i, "1,4,%d,%d,0,0", 100 + i, 1000 * (i == 4 ? 9 : i + 1));
    }
    rows_put(&b, dir, "cpu_metrics.csv");
    rows_put(&pr, dir, "proc_metrics.csv");
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
    /* rows cover (t - 1, t]: the phase [1, 3] is the rows at 2 and 3, each for a second */
    CU_ASSERT_EQUAL(run->phase[0].cpu_usr.n, 2);
    CHECK_NEAR(sum_stat_mean(&run->phase[0].cpu_usr), (20 + 30) / 2.0, 1e-9);
    CHECK_NEAR(run->phase[0].proc_rss.max, 4000, 0); /* the 9000 peak is at t=4 */
    CHECK_NEAR(run->proc[HW_PROC_COL_RSS].max, 9000, 0);
    CHECK_NEAR(run->proc[HW_PROC_COL_RSS].last - run->proc[HW_PROC_COL_RSS].first, 5000, 0);
    CU_ASSERT_EQUAL(sum_run_num_samples(run), 6); /* no GPU: one sample per sampler tick */
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* process.gpu_mem_peak_mib counts the tree's own pids while they were in it (tree_pids.csv),
 * never a stranger's; in a container (other PID namespace) or with nothing to join it is
 * unmeasured with a reason, never 0 and never the whole GPU's. */
static struct sum_run *gp_run(const char *ns, bool tree, const char *procs)
{
    char *dir = th_tmpdir("treegpu");
    char *log = th_fmt("{\"ts\": \"2026-01-01T00:00:00.000+00:00\", \"type\": \"event\", "
                       "\"event\": \"start\", \"data\": {\"smi_tz\": \"UTC\", "
                       "\"interval_s\": 1%s%s%s}}\n",
                       ns ? ", \"pid_namespace\": \"" : "", ns ? ns : "", ns ? "\"" : "");
    put_file(dir, "run.jsonl", log);
    if (tree)
        put_file(dir, "tree_pids.csv",
                 "timestamp,pid,in_tree\n"
                 "2026-01-01T00:00:00.000+00:00,100,1\n"
                 "2026-01-01T00:00:01.000+00:00,101,1\n"
                 "2026-01-01T00:00:05.000+00:00,101,0\n");
    put_file(dir, "gpu_procs.csv", procs);
    struct sum_run *run = summarize_dir(dir);
    th_rmtree(dir);
    free(dir);
    free(log);
    return run;
}

static void test_tree_gpu_mem(void)
{
    /* 101 is the tree's until t=5; 200 is another user's job; at t=9 pid 101 is someone
     * else's process that reused the number */
    const char *procs = "2026/01/01 00:00:02.000, GPU-a, 101, 1000, python3\n"
                        "2026/01/01 00:00:02.000, GPU-a, 200, 50000, stranger\n"
                        "2026/01/01 00:00:03.000, GPU-a, 101, 1500, python3\n"
                        "2026/01/01 00:00:03.000, GPU-a, 100, 500, python3\n"
                        "2026/01/01 00:00:03.000, GPU-b, 200, 60000, stranger\n"
                        "2026/01/01 00:00:09.000, GPU-a, 101, 9000, reused\n";
    const char *why = "unset";
    struct sum_run *run = gp_run("init", true, procs);
    CHECK_NEAR(sum_run_tree_gpu_mem_peak(run, &why), 2000, 0);
    CU_ASSERT_PTR_NULL(why);
    CU_ASSERT_EQUAL(run->npids, 2); /* 101 and 100, not 200 */
    for (size_t i = 0; i < run->npids; i++)
        CU_ASSERT(run->pids[i].pid != 200 && run->pids[i].peak_mib <= 1500);
    sum_run_free(run);

    run = gp_run("other", true, procs); /* container: nvidia-smi's pids are the host's */
    CU_ASSERT_TRUE(isnan(sum_run_tree_gpu_mem_peak(run, &why)));
    CU_ASSERT_STRING_EQUAL(why, "pid_namespace");
    sum_run_free(run);

    run = gp_run(NULL, false, procs); /* an older hwmon: no tree to join */
    CU_ASSERT_TRUE(isnan(sum_run_tree_gpu_mem_peak(run, &why)));
    CU_ASSERT_STRING_EQUAL(why, "no_tree_pids");
    CU_ASSERT_EQUAL(run->npids, 0);
    sum_run_free(run);

    const char *strangers = "2026/01/01 00:00:02.000, GPU-a, 200, 50000, stranger\n";
    run = gp_run(NULL, true, strangers); /* namespace not recorded, nothing matched */
    CU_ASSERT_TRUE(isnan(sum_run_tree_gpu_mem_peak(run, &why)));
    CU_ASSERT_STRING_EQUAL(why, "no_pid_match");
    sum_run_free(run);

    run = gp_run("init", true, strangers); /* host pids, none of the tree's: it held none */
    CHECK_NEAR(sum_run_tree_gpu_mem_peak(run, &why), 0, 0);
    CU_ASSERT_PTR_NULL(why);
    sum_run_free(run);
}

/* proc_metrics.csv's main-process and user/system columns, read by hwmon's names and in any
 * order after the old ones (a --pss file has pss_mib between). */
static void test_main_usr_sys(void)
{
    char *dir = th_tmpdir("mainproc");
    runlog(dir, 1.0, NULL);
    put_file(dir, "proc_metrics.csv",
             "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes,pss_mib,"
             "main_rss_mib,main_cpu_pct,main_threads,usr_cpu_pct,sys_cpu_pct\n"
             "2026-01-01T00:00:00.000+00:00,3,9,,300.0,0,0,250.0,100.0,,4,,\n"
             "2026-01-01T00:00:01.000+00:00,3,9,150.0,320.0,0,0,260.0,120.0,90.0,5,120.0,30.0\n");
    struct sum_run *run = summarize_dir(dir);
    CHECK_NEAR(run->proc[HW_PROC_COL_MAIN_RSS].max, 120, 0);
    CU_ASSERT_EQUAL(run->proc[HW_PROC_COL_MAIN_CPU].n, 1); /* the empty cell is unmeasured */
    CHECK_NEAR(run->proc[HW_PROC_COL_MAIN_CPU].max, 90, 0);
    CHECK_NEAR(run->proc[HW_PROC_COL_MAIN_THREADS].max, 5, 0);
    CHECK_NEAR(run->proc[HW_PROC_COL_USR_CPU].max, 120, 0);
    CHECK_NEAR(run->proc[HW_PROC_COL_SYS_CPU].max, 30, 0);
    CHECK_NEAR(run->proc[HW_PROC_COL_PSS].max, 260, 0);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* The rule as rows come (energy.h), so that a live export and summarize agree at every row:
 * the first 3 steps wait and are judged by their median; each later step by the median of the
 * steps before it; after 16 steps that median is fixed. Every joule counted at a row stays
 * counted (a counter never goes back). */
static void test_as_rows_come(void)
{
    struct rd_energy e;
    rd_energy_init(&e);
    /* 1 s steps at 100 W, but step 2 is 2.5 s (bridged: < 3 x the median 1 s) */
    double t = 0, prev_j = 0;
    static const double steps[] = {1, 2.5, 1};
    rd_energy_add(&e, t, 100, 1.0, NULL, NULL);
    for (int i = 0; i < 3; i++) {
        t += steps[i];
        rd_energy_add(&e, t, 100, 1.0, NULL, NULL);
        CHECK_NEAR(e.joules, i < 2 ? 0 : 450, 1e-9); /* nothing until the third step */
    }
    CU_ASSERT_TRUE(rd_energy_decided(&e));
    CHECK_NEAR(e.interval_s, 1, 1e-12);
    /* step 4: 3.5 s > 3 x median(1, 2.5, 1) = 3: a gap at once */
    t += 3.5;
    rd_energy_add(&e, t, 100, 1.0, NULL, NULL);
    CU_ASSERT_EQUAL(e.gaps, 1);
    CHECK_NEAR(e.joules, 450, 1e-9);
    /* the reference learns the slower cadence: twelve 2 s steps make the median 2 s, and a
     * 5 s step is then bridged (< 6 s) */
    prev_j = e.joules;
    for (int i = 0; i < 12; i++) {
        t += 2;
        rd_energy_add(&e, t, 100, 1.0, NULL, NULL);
        CU_ASSERT(e.joules >= prev_j);
        prev_j = e.joules;
    }
    CU_ASSERT_EQUAL(e.nref, 16);
    CHECK_NEAR(e.interval_s, 2, 1e-12); /* sorted: 1 1 2.5 3.5 and twelve 2s */
    t += 5;
    rd_energy_add(&e, t, 100, 1.0, NULL, NULL);
    CU_ASSERT_EQUAL(e.gaps, 1);
    CHECK_NEAR(e.joules, 450 + 12 * 200 + 500, 1e-9);
    /* fixed after 16 steps: a hundred 10 s steps are all gaps, the interval stays 2 s */
    for (int i = 0; i < 100; i++) {
        t += 10;
        rd_energy_add(&e, t, 100, 1.0, NULL, NULL);
    }
    CU_ASSERT_EQUAL(e.gaps, 101);
    CHECK_NEAR(e.interval_s, 2, 1e-12);

    /* fewer than 4 rows: the rows there are decide at the end (two steps, median 1.5 s) */
    rd_energy_init(&e);
    rd_energy_add(&e, 0, 10, 1.0, NULL, NULL);
    rd_energy_add(&e, 1, 10, 1.0, NULL, NULL);
    rd_energy_add(&e, 3, 10, 1.0, NULL, NULL);
    CU_ASSERT_FALSE(rd_energy_decided(&e));
    rd_energy_finish(&e, 1.0, NULL, NULL);
    CHECK_NEAR(e.interval_s, 1.5, 1e-12);
    CHECK_NEAR(e.joules, 30, 1e-9);
    /* one row: the hint is the interval */
    rd_energy_init(&e);
    rd_energy_add(&e, 0, 10, 0.25, NULL, NULL);
    rd_energy_finish(&e, 0.25, NULL, NULL);
    CHECK_NEAR(e.interval_s, 0.25, 1e-12);
    CU_ASSERT_FALSE(e.interval_from_rows);
}

void add_energy_suites(void)
{
    CU_pSuite s = th_add_suite("energy", NULL, NULL, 60);
    CU_add_test(s, "constant", test_constant);
    CU_add_test(s, "ramp", test_ramp);
    CU_add_test(s, "gap", test_gap);
    CU_add_test(s, "unmeasured", test_unmeasured);
    CU_add_test(s, "wrong_hint", test_wrong_hint);
    CU_add_test(s, "gap_unmeasured", test_gap_unmeasured);
    CU_add_test(s, "as_rows_come", test_as_rows_come);
    s = th_add_suite("phases", NULL, NULL, 60);
    CU_add_test(s, "edges", test_phase_edges);
    CU_add_test(s, "ramp", test_phase_ramp);
    CU_add_test(s, "cpu_proc", test_phase_cpu_proc);
    CU_add_test(s, "tree_gpu_mem", test_tree_gpu_mem);
    CU_add_test(s, "main_usr_sys", test_main_usr_sys);
}
