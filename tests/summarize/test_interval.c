/* Suite "interval": every figure from one interval model (issue 47). Gauges by time: a row
 * weighs what it stands for, and a row of no live process is no reading. Generated runs, so
 * that the rows the real hwmon writes only sometimes (the process caught exiting, its memory
 * gone, before it is a zombie) are there every time; their truth is the job the rows describe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/buf.h"
#include "report.h"
#include "sumtest.h"

#define T0 1795867200.0 /* 2026-11-28T12:00:00Z */

static void start_stop_status(const char *dir, double stop_s, int status)
{
    char a[40], b[40];
    th_iso_time(a, sizeof a, T0);
    th_iso_time(b, sizeof b, T0 + stop_s);
    char *log = th_fmt("{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
                       "{\"interval_s\": 1.0, \"setup_s\": 0.0, \"mode\": \"wrap\", \"smi_tz\": "
                       "\"UTC\"}}\n"
                       "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
                       "{\"reason\": \"command_exit\", \"exit_status\": %d, \"duration_s\": %.3f}}\n",
                       a, b, status, stop_s);
    put_file(dir, "run.jsonl", log);
    free(log);
}

static void start_stop(const char *dir, double stop_s)
{
    start_stop_status(dir, stop_s, 0);
}

/* proc_metrics.csv of rows {t, procs, cpu, rss} (procs < 0: the exited job's empty cells). */
static void put_proc(const char *dir, const double (*row)[4], size_t n)
{
    struct hw_buf b;
    rows_begin(&b, hw_proc_cols, HW_PROC_COL_WRITE + 1, false);
    for (size_t i = 0; i < n; i++)
        if (row[i][1] < 0)
            rows_add(&b, T0 + row[i][0], ",,%.1f,,0,0", row[i][2]);
        else
            rows_add(&b, T0 + row[i][0], "%.0f,%.0f,%.1f,%.1f,0,0", row[i][1], row[i][1],
                     row[i][2], row[i][3]);
    rows_put(&b, dir, "proc_metrics.csv");
}

/* A row of the tree's bytes written so far at T0 + t, of an edge sample's or the cadence's. */
struct io_row {
    double t;
    long written;
    bool edge;
};

/* proc_metrics.csv of io rows (procs processes of as many threads, at 50% CPU and 100 MiB)
 * and, with cpu, cpu_metrics.csv at the same times (10% user, 90% idle). */
static void put_io_rows(const char *dir, const struct io_row *rows, size_t n, int procs, bool cpu)
{
    struct hw_buf pb, cb;
    rows_begin(&pb, hw_proc_cols, HW_PROC_COL_WRITE + 1, true);
    if (cpu)
        rows_begin(&cb, hw_cpu_cols, HW_CPU_COL_STEAL + 1, true);
    for (size_t i = 0; i < n; i++) {
        const char *e = rows[i].edge ? "1" : "";
        rows_add(&pb, T0 + rows[i].t, "%d,%d,50.0,100.0,0,%ld,%s", procs, procs,
                 rows[i].written, e);
        if (cpu)
            rows_add(&cb, T0 + rows[i].t, "10,90,0,0,0,%s", e);
    }
    rows_put(&pb, dir, "proc_metrics.csv");
    if (cpu)
        rows_put(&cb, dir, "cpu_metrics.csv");
}

/* A one-thread job at 99% of a core for 5 s, growing from 40 to 600 MiB; the sample after its
 * last cadence row caught it exiting (its memory gone: RSS 0, state not yet Z), and hwmon's
 * last row, 12 ms later, the exited job (empty gauges), whose CPU read over 12 ms in 10 ms
 * ticks says 150%. The job used 5 x 0.99 + 0.012 x 1.5 = 4.968 s of CPU in 5.012 s: 99.12%.
 * Before: a mean of 107.5% and a max of 150% (the exit row a whole row), min RSS 0, growth
 * -40 MiB (the 0 row last) and mean RSS 248. */
static void test_exit_rows(void)
{
    char *dir = th_tmpdir("interval-exit");
    start_stop(dir, 5.012);
    static const double rows[][4] = {
        {1, 1, 99, 40}, {2, 1, 99, 200}, {3, 1, 99, 400}, {4, 1, 99, 600},
        {5, 1, 99, 0}, {5.012, -1, 150, 0},
    };
    put_proc(dir, rows, sizeof rows / sizeof rows[0]);
    struct sum_run *run = summarize_dir(dir);
    const struct sum_stat *cpu = &run->proc[HW_PROC_COL_CPU], *rss = &run->proc[HW_PROC_COL_RSS];
    CHECK_NEAR(sum_stat_mean(cpu), 100 * (5 * 0.99 + 0.012 * 1.5) / 5.012, 0.01);
    /* the 12 ms row joins the one before it: (99 x 1 + 150 x 0.012) / 1.012 */
    CHECK_NEAR(cpu->max, (99 + 150 * 0.012) / 1.012, 0.01);
    CU_ASSERT(cpu->max <= 100);
    CHECK_NEAR(rss->min, 40, 1e-9);
    CHECK_NEAR(rss->max, 600, 1e-9);
    CHECK_NEAR(sum_fig_growth(rss), 560, 1e-9);
    CHECK_NEAR(sum_run_memory_growth(run), 560, 1e-9);
    CHECK_NEAR(sum_stat_mean(rss), (40 + 200 + 400 + 600) / 4.0, 1e-9);
    sum_run_free(run);
    struct th_result r = run_summarize((char *[]){"-f", "json", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    if (!strstr(r.out, "\"memory_growth_mib\": 560.0,"))
        fputs(r.out, stderr);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"memory_growth_mib\": 560.0,"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* The interpreter freeing its 600 MiB as it exits: the last live row, right before the exit
 * row, reads 20 MiB. That is no growth of the job's: the row before it counts (560 MiB; before,
 * -20). A job that freed its memory earlier, with rows after, keeps its fall. */
static void test_teardown_row(void)
{
    char *dir = th_tmpdir("interval-teardown");
    start_stop(dir, 4.2);
    static const double rows[][4] = {
        {1, 1, 99, 40}, {2, 1, 99, 300}, {3, 1, 99, 600}, {4, 1, 99, 20}, {4.2, -1, 99, 0}};
    put_proc(dir, rows, sizeof rows / sizeof rows[0]);
    struct sum_run *run = summarize_dir(dir);
    CHECK_NEAR(sum_run_memory_growth(run), 560, 1e-9);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);

    dir = th_tmpdir("interval-freed");
    start_stop(dir, 5.2);
    static const double freed[][4] = {{1, 1, 99, 40},  {2, 1, 99, 600}, {3, 1, 99, 20},
                                      {4, 1, 99, 20},  {5, 1, 99, 20},  {5.2, -1, 99, 0}};
    put_proc(dir, freed, sizeof freed / sizeof freed[0]);
    run = summarize_dir(dir);
    CHECK_NEAR(sum_run_memory_growth(run), -20, 1e-9);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* An attached process (hwmon -p, calibrax's block): hwmon's baseline reading, at its start, is
 * the first row (edge=1, no CPU rate yet); the block allocated 100 MiB right after it. Its
 * memory grows from that reading (100 MiB; the first cadence row, an interval in, said 0), and
 * the baseline row, standing for no time, weighs nothing in the mean. */
static void test_attach_baseline_row(void)
{
    char *dir = th_tmpdir("interval-attach");
    char a[40], b[40];
    th_iso_time(a, sizeof a, T0);
    th_iso_time(b, sizeof b, T0 + 2.1);
    char *log = th_fmt("{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
                       "{\"interval_s\": 1.0, \"setup_s\": 0.0, \"mode\": \"attach\"}}\n"
                       "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
                       "{\"reason\": \"signal\", \"duration_s\": 2.1}}\n",
                       a, b);
    put_file(dir, "run.jsonl", log);
    free(log);
    struct hw_buf pb;
    rows_begin(&pb, hw_proc_cols, HW_PROC_COL_WRITE + 1, true);
    rows_add(&pb, T0 + 0.004, "1,2,,20.0,4096,0,1");
    rows_add(&pb, T0 + 1.004, "1,2,50.0,120.0,4096,0,");
    rows_add(&pb, T0 + 2.004, "1,2,50.0,120.0,4096,0,");
    rows_put(&pb, dir, "proc_metrics.csv");
    struct sum_run *run = summarize_dir(dir);
    CHECK_NEAR(sum_run_memory_growth(run), 100, 1e-9);
    CHECK_NEAR(sum_stat_mean(&run->proc[HW_PROC_COL_RSS]), 120, 1e-9);
    CHECK_NEAR(sum_stat_mean(&run->proc[HW_PROC_COL_CPU]), 50, 1e-9);
    sum_run_free(run);
    struct th_result r = run_summarize((char *[]){"-f", "json", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"memory_growth_mb\": 100.0,"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* Rows of different lengths (hwmon late under load: 1, 3 and 1 s): the mean is over time, each
 * row weighing the time since the row before it (the first: since hwmon began). A job at 100%
 * for 1 s, 20% for 3 s and 100% for 1 s used 2.6 s of CPU in 5 s: 52%, not (100+20+100)/3. */
static void test_rows_by_time(void)
{
    char *dir = th_tmpdir("interval-time");
    start_stop(dir, 5);
    static const double rows[][4] = {{1, 1, 100, 50}, {4, 1, 20, 50}, {5, 1, 100, 50}};
    put_proc(dir, rows, sizeof rows / sizeof rows[0]);
    struct sum_run *run = summarize_dir(dir);
    CHECK_NEAR(sum_stat_mean(&run->proc[HW_PROC_COL_CPU]), 52, 1e-9);
    CHECK_NEAR(run->proc[HW_PROC_COL_CPU].max, 100, 1e-9);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* Rows before the job's first process existed (hwmon --attach waiting, procs 0, RSS 0) are no
 * reading of its memory: min RSS is the live job's, its growth from its first live row. */
static void test_before_first_process(void)
{
    char *dir = th_tmpdir("interval-before");
    start_stop(dir, 4);
    static const double rows[][4] = {{1, 0, 0, 0}, {2, 1, 50, 100}, {3, 1, 50, 150}, {4, 1, 50, 180}};
    put_proc(dir, rows, sizeof rows / sizeof rows[0]);
    struct sum_run *run = summarize_dir(dir);
    const struct sum_stat *rss = &run->proc[HW_PROC_COL_RSS];
    CHECK_NEAR(rss->min, 100, 1e-9);
    CHECK_NEAR(sum_run_memory_growth(run), 80, 1e-9);
    CU_ASSERT_EQUAL(rss->n, 3);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* hw_metrics.csv of one GPU at 100 W, a row each second from `from` to `to` s. */
static void put_gpu(const char *dir, int from, int to)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    for (int i = from; i <= to; i++) {
        char ts[40];
        th_smi_time(ts, sizeof ts, T0 + i);
        hw_buf_printf(&b, "%s, 50, 10, 1000, 80000, 100.00, 60, 1980, 2619, 0, GPU-0\n", ts);
    }
    hw_buf_putc(&b, '\0');
    put_file(dir, "hw_metrics.csv", b.p);
    hw_buf_free(&b);
}

/* A failed run of 12.78 s whose GPU rows stop at 10 s (nvidia-smi gone with the job's crash):
 * its energy spans 10 of the 12.78 s, and the run says so as a phase does (energy_covered_sec,
 * the text's "partly unmeasured"; before: nothing). A run whose rows span it says nothing. */
static void test_run_energy_covered(void)
{
    char *dir = th_tmpdir("interval-energy");
    start_stop_status(dir, 12.78, 1);
    put_gpu(dir, 0, 10);
    struct th_result r = run_summarize((char *[]){"-f", "json", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"energy_covered_sec\": 10.0,"));
    th_result_free(&r);
    r = run_summarize((char *[]){"-f", "text", dir, NULL});
    char *t = unwrap_text(r.out);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "energy 0.278 Wh (GPU energy over 10.000 s of it: partly "
                                     "unmeasured)"));
    if (!strstr(t, "GPU energy over 10.000 s"))
        fputs(t, stderr);
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);

    dir = th_tmpdir("interval-energy-all");
    start_stop(dir, 10);
    put_gpu(dir, 0, 10);
    r = run_summarize((char *[]){"-f", "text", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "energy 0.278 Wh, 1 GPUs"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "GPU energy over"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* hwmon frozen from 3 s to 24 s (-i 1): the row at 24 s stands for the 21 s of the hole. A phase
 * from 5 to 10 s inside it is unmeasured, with the reason, not the hole's average (before: CPU
 * 30% and 5/21 of the hole's bytes, "interpolated" like any step); the run's totals keep the
 * hole's row, and the text warns of the gap. */
static void test_phase_in_hole(void)
{
    char *dir = th_tmpdir("interval-hole");
    char a[40], b[40], c[40];
    th_iso_time(a, sizeof a, T0);
    th_iso_time(b, sizeof b, T0 + 10);
    th_iso_time(c, sizeof c, T0 + 26);
    char *log = th_fmt("{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
                       "{\"interval_s\": 1.0, \"setup_s\": 0.0, \"mode\": \"wrap\"}}\n"
                       "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"inside\", "
                       "\"seconds\": 5.0}\n"
                       "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
                       "{\"reason\": \"command_exit\", \"exit_status\": 0, \"duration_s\": 26}}\n",
                       a, b, c);
    put_file(dir, "run.jsonl", log);
    free(log);
    struct hw_buf buf;
    rows_begin(&buf, hw_proc_cols, HW_PROC_COL_WRITE + 1, false);
    static const int at[] = {1, 2, 3, 24, 25, 26};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        rows_add(&buf, T0 + at[i], "1,1,30.0,100.0,0,%d", (int)i * (1 << 20));
    rows_put(&buf, dir, "proc_metrics.csv");
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
    const struct sum_phase_acc *p = &run->phase[0];
    CHECK_NEAR(sum_phase_gap_s(p), 5, 1e-6);
    CU_ASSERT_EQUAL(p->proc_cpu.n, 0);
    sum_run_free(run);
    struct th_result r = run_summarize((char *[]){"-f", "json", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"proc_cpu_mean_pct\": null,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"proc_write_bytes\": null,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"gap_sec\": 5.0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"unmeasured_reason\": \"sampling_gap\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"write_bytes\": 5242880.0,")); /* the run's */
    th_result_free(&r);
    r = run_summarize((char *[]){"-f", "text", dir, NULL});
    char *t = unwrap_text(r.out);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "5.000 s of it inside a sampling gap: CPU, disk, network, "
                                     "process I/O unmeasured"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "warning: proc_metrics.csv: 1 gap in sampling"));
    if (!strstr(t, "sampling gap"))
        fputs(t, stderr);
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* A checkpoint in a step loop, on a loaded machine (CI): the step before it ends at 1.496 and
 * hwmon reads the tree at 1.497; the job, preempted, writes the checkpoint's begin line at
 * 1.500, too soon after that reading for another (it is the begin reading); a cadence row falls
 * at 1.555, as the checkpoint writes its 3 MiB; it ends at 1.600, the next step begins at 1.601
 * and hwmon reads the end at 1.612. Both rows, (1.497, 1.555] and (1.555, 1.612], are the
 * checkpoint's alone: all 3 MiB are its, none the steps'. Before, the first row was shared by
 * time (the 3 ms before its line got 3/58 of it, 94.8% left; CI saw a checkpoint get 94.7% of
 * its bytes and the steps the rest). Inside an epoch phase, the same. */
static void check_checkpoint_rows(bool epoch)
{
    char *dir = th_tmpdir("interval-inside");
    static const double at[] = {0, 1.496, 1.5, 1.6, 1.631, 1.7, 2.1};
    char ts[7][40];
    for (int i = 0; i < 7; i++)
        th_iso_time(ts[i], sizeof ts[i], T0 + at[i]);
    char *ep = th_fmt("{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"epoch\", \"seconds\": 1.0}\n",
                      ts[5]);
    char *log = th_fmt(
        "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
        "{\"interval_s\": 1.0, \"setup_s\": 0.0, \"mode\": \"wrap\"}}\n"
        "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"step\", \"seconds\": 0.03}\n"
        "{\"ts\": \"%s\", \"type\": \"phase_begin\", \"name\": \"checkpoint\", \"phase_id\": \"c\"}\n"
        "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"checkpoint\", \"seconds\": 0.1, "
        "\"phase_id\": \"c\"}\n"
        "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"step\", \"seconds\": 0.03}\n%s"
        "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
        "{\"reason\": \"command_exit\", \"exit_status\": 0, \"duration_s\": 2.1}}\n",
        ts[0], ts[1], ts[2], ts[3], ts[4], epoch ? ep : "", ts[6]);
    put_file(dir, "run.jsonl", log);
    free(log);
    free(ep);
    static const struct io_row rows[] = {{1.0, 0, 0},         {1.497, 0, 1},
                                         {1.555, 3 << 20, 0}, {1.612, 3 << 20, 1},
                                         {1.632, 3 << 20, 1}, {2.0, 3 << 20, 0}};
    put_io_rows(dir, rows, sizeof rows / sizeof rows[0], 1, true);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL_FATAL(run->nphase, epoch ? 4u : 3u);
    const struct sum_phase_acc *ck = &run->phase[1];
    CU_ASSERT_STRING_EQUAL(ck->name, "checkpoint");
    CU_ASSERT_STRING_EQUAL(sum_phase_edges(ck), "measured");
    CHECK_NEAR(ck->proc_io[1], 3 << 20, 0.5);
    CHECK_NEAR(run->phase[0].proc_io[1], 0, 0.5);
    CHECK_NEAR(run->phase[2].proc_io[1], 0, 0.5);
    if (epoch)
        CHECK_NEAR(run->phase[3].proc_io[1], 3 << 20, 0.5);
    if (fabs(ck->proc_io[1] - (3 << 20)) > 0.5)
        fprintf(stderr, "checkpoint wrote %.0f of %d\n", ck->proc_io[1], 3 << 20);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

static void test_checkpoint_rows(void)
{
    check_checkpoint_rows(false);
    check_checkpoint_rows(true);
}

/* run.jsonl of a wrapped run of 2.5 s with one phase, "ckpt" (id c), from T0 + begin to end. */
static void put_ckpt_log(const char *dir, double begin, double end)
{
    char a[40], b[40], e[40], f[40];
    th_iso_time(a, sizeof a, T0);
    th_iso_time(b, sizeof b, T0 + begin);
    th_iso_time(e, sizeof e, T0 + end);
    th_iso_time(f, sizeof f, T0 + 2.5);
    char *log = th_fmt(
        "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
        "{\"interval_s\": 1.0, \"setup_s\": 0.0, \"mode\": \"wrap\"}}\n"
        "{\"ts\": \"%s\", \"type\": \"phase_begin\", \"name\": \"ckpt\", \"phase_id\": \"c\"}\n"
        "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"ckpt\", \"seconds\": %g, "
        "\"phase_id\": \"c\"}\n"
        "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
        "{\"reason\": \"command_exit\", \"exit_status\": 0, \"duration_s\": 2.5}}\n",
        a, b, e, end - begin, f);
    put_file(dir, "run.jsonl", log);
    free(log);
}

/* A dd of 2 MiB in a checkpoint, reaped by its parent between hwmon's read of the parent and its
 * own: one row of the tree reads 512 KiB less than the row before (the child's bytes in neither
 * yet), the next the whole 2 MiB. The tree's total never falls: the checkpoint wrote 2 MiB, not
 * the 512 KiB before the dip again. (hwmon's own rows never fall: proctree.c keeps the highest;
 * rows from elsewhere may.) */
static void test_reaped_child_dip(void)
{
    char *dir = th_tmpdir("interval-dip");
    put_ckpt_log(dir, 1.5, 1.9);
    static const struct io_row rows[] = {{1.0, 0, 0}, {1.502, 0, 1},       {1.6, 512 << 10, 0},
                                         {1.7, 0, 0}, {1.905, 2 << 20, 1}, {2.0, 2 << 20, 0}};
    put_io_rows(dir, rows, sizeof rows / sizeof rows[0], 2, false);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
    CHECK_NEAR(run->phase[0].proc_io[1], 2 << 20, 0.5);
    if (fabs(run->phase[0].proc_io[1] - (2 << 20)) > 0.5)
        fprintf(stderr, "ckpt wrote %.0f of %d\n", run->phase[0].proc_io[1], 2 << 20);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* A `runlog time` built with ThreadSanitizer writes 512 KiB as it starts (the runtime's), 50 ms
 * before its begin line; a cadence reading came before that, the begin reading right after the
 * line (the same millisecond), the dd's 2 MiB after it (hwmon holds the new command's bytes out
 * of the begin reading). The row up to the begin reading is the runner's start-up, before the
 * phase: the checkpoint wrote 2 MiB. Before, a reading up to the edge tolerance (0.1 s) before
 * the line counted as the phase's begin reading whatever it was, the row was the phase's alone,
 * and the checkpoint read 2.5 MiB (test_hwmon.edges.short_phases_measured under TSan, CI and
 * here: 2,625,536 B of 2,097,152). Only the end reading of a phase before may stand so (a
 * training loop's train, io(), then checkpoint: test_checkpoint_rows). */
static void test_runner_before_begin(void)
{
    char *dir = th_tmpdir("interval-runner");
    put_ckpt_log(dir, 1.503, 1.62);
    static const struct io_row rows[] = {{1.0, 0, 0},
                                         {1.453, 0, 0},
                                         {1.503, 512 << 10, 1},
                                         {1.632, (512 << 10) + (2 << 20), 1},
                                         {2.0, (512 << 10) + (2 << 20), 0}};
    put_io_rows(dir, rows, sizeof rows / sizeof rows[0], 2, true);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
    fprintf(stderr, "ckpt wrote %.0f of %d, edges %s\n", run->phase[0].proc_io[1], 2 << 20,
            sum_phase_edges(&run->phase[0]));
    CU_ASSERT_STRING_EQUAL(sum_phase_edges(&run->phase[0]), "measured");
    /* the row before the begin reading shared by time: its last microsecond at most */
    CHECK_NEAR(run->phase[0].proc_io[1], 2 << 20, 64);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

void add_interval_suite(void)
{
    CU_pSuite s = th_add_suite("interval", NULL, NULL, 60);
    CU_add_test(s, "exit_rows", test_exit_rows);
    CU_add_test(s, "rows_by_time", test_rows_by_time);
    CU_add_test(s, "teardown_row", test_teardown_row);
    CU_add_test(s, "before_first_process", test_before_first_process);
    CU_add_test(s, "run_energy_covered", test_run_energy_covered);
    CU_add_test(s, "phase_in_hole", test_phase_in_hole);
    CU_add_test(s, "attach_baseline_row", test_attach_baseline_row);
    CU_add_test(s, "checkpoint_rows", test_checkpoint_rows);
    CU_add_test(s, "reaped_child_dip", test_reaped_child_dip);
    CU_add_test(s, "runner_before_begin", test_runner_before_begin);
}
