/* hw_health.csv (clocks.h): the reader on real all-fields captures (an H100 under load, an RTX
 * 2080 SUPER whose SW power cap counter ran for 4.4 h, MIG), and the time under each reason
 * worked out by hand on made rows: counters, the bitmask alone, a phase's share of a step, a
 * counter reset, a gap, and the health warnings. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sumtest.h"
#include "hwrun/buf.h"
#include "live.h"

struct hrec {
    size_t rows;
    struct rd_health_row last[4];
};

static void on_row(void *ctx, const struct rd_health_row *r)
{
    struct hrec *h = ctx;
    h->rows++;
    if (r->gpu >= 0 && r->gpu < 4)
        h->last[r->gpu] = *r;
}

static void read_health(const char *data, size_t len, struct hrec *h, struct rd_quality *q)
{
    memset(h, 0, sizeof *h);
    struct rd_sink sink = {.ctx = h, .health = on_row};
    struct rd_read_opts o = {0};
    struct rd_reader *rd = rd_reader_new(HW_FILE_HEALTH, "test", &o, &sink, q);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    CU_ASSERT_EQUAL(rd_reader_feed(rd, data, len), 0);
    rd_reader_finish(rd);
    rd_reader_free(rd);
}

static char *capture(const char *file, size_t *len)
{
    char *path = th_fmt("%s/nvsmi-real/%s", th_env("HWRUN_TESTDATA"), file);
    char *s = th_read_file(path, len);
    free(path);
    return s;
}

/* nvidia-smi's all-fields captures hold every column of hw_health.csv, by name, among 200
 * others: the reader takes its own and leaves the rest. */
static void test_captures(void)
{
    size_t len;
    struct hrec h;
    struct rd_quality q;
    char *s = capture("query-gpu_h100-80gb_drv590_all-fields_load.csv", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    read_health(s, len, &h, &q);
    free(s);
    CU_ASSERT_EQUAL(h.rows, 1);
    CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
    CU_ASSERT_EQUAL(q.bad_cells, 0);
    const double *v = h.last[0].v;
    CU_ASSERT_EQUAL(v[HW_HEALTH_UTIL], 100);
    CU_ASSERT_EQUAL(v[HW_HEALTH_PSTATE], 0);
    CU_ASSERT_EQUAL(v[HW_HEALTH_SM_CLOCK], 1980);
    CU_ASSERT_EQUAL(v[HW_HEALTH_SM_CLOCK_MAX], 1980);
    CU_ASSERT_EQUAL(v[HW_HEALTH_TLIMIT], 26);
    CU_ASSERT_EQUAL(v[HW_HEALTH_POWER_INSTANT], 625.68);
    CU_ASSERT_EQUAL(v[HW_HEALTH_POWER_AVERAGE], 631.95);
    CU_ASSERT_EQUAL(v[HW_HEALTH_POWER_LIMIT], 700);
    CU_ASSERT_EQUAL(v[HW_HEALTH_POWER_ENFORCED], 700);
    CU_ASSERT_EQUAL(v[HW_HEALTH_REASONS], 0);
    CU_ASSERT_EQUAL(v[HW_HEALTH_CNT_SW_POWER], 0);
    CU_ASSERT_EQUAL(v[HW_HEALTH_ECC_UNCORRECTED], 0);
    CU_ASSERT(isnan(v[HW_HEALTH_RETIRED_PENDING])); /* [N/A] on the H100 */
    CU_ASSERT_EQUAL(v[HW_HEALTH_REMAP_PENDING], 0); /* "No" */
    CU_ASSERT_EQUAL(v[HW_HEALTH_REMAP_FAILURE], 0);
    CU_ASSERT_EQUAL(v[HW_HEALTH_PCIE_GEN], 5);
    CU_ASSERT_EQUAL(v[HW_HEALTH_PCIE_WIDTH_MAX], 16);

    s = capture("query-gpu_rtx2080super_drv610_all-fields_load.csv", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    read_health(s, len, &h, &q);
    free(s);
    CU_ASSERT_EQUAL(h.rows, 1);
    CU_ASSERT_EQUAL(q.bad_cells, 0);
    v = h.last[0].v;
    CU_ASSERT_EQUAL(v[HW_HEALTH_PSTATE], 2);
    CU_ASSERT_EQUAL(v[HW_HEALTH_SM_CLOCK], 2070);
    CU_ASSERT_EQUAL(v[HW_HEALTH_SM_CLOCK_MAX], 2145);
    CU_ASSERT_EQUAL(v[HW_HEALTH_CNT_SW_POWER], 15820333506.0); /* us: 4.4 h capped */
    CU_ASSERT(isnan(v[HW_HEALTH_POWER_AVERAGE]));             /* Turing: no 1 s average */
    CU_ASSERT_EQUAL(v[HW_HEALTH_POWER_INSTANT], 98.14);
    CU_ASSERT(isnan(v[HW_HEALTH_TLIMIT]));
    CU_ASSERT(isnan(v[HW_HEALTH_ECC_UNCORRECTED])); /* a GeForce: no ECC */
    CU_ASSERT_EQUAL(v[HW_HEALTH_PCIE_GEN], 3);

    s = capture("query-gpu_h100-mig_drv590_all-fields_load.csv", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    read_health(s, len, &h, &q);
    free(s);
    CU_ASSERT(h.rows >= 1);
    CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
    CU_ASSERT_EQUAL(q.bad_cells, 0);
}

/* The old name of the reasons column (drivers before the rename), an odd pstate and a
 * malformed mask: read, or counted as bad cells, never guessed. */
static void test_cells(void)
{
    const char *csv = "timestamp, index, pstate, clocks_throttle_reasons.active\n"
                      "2026/11/25 10:00:00.000, 0, P12, 0x0000000000000044\n"
                      "2026/11/25 10:00:01.000, 0, P, 0xZZ\n"
                      "2026/11/25 10:00:02.000, 1, [N/A], N/A\n";
    struct hrec h;
    struct rd_quality q;
    read_health(csv, strlen(csv), &h, &q);
    CU_ASSERT_EQUAL(h.rows, 3);
    CU_ASSERT_EQUAL(q.bad_cells, 2);
    CU_ASSERT(isnan(h.last[0].v[HW_HEALTH_PSTATE]));
    CU_ASSERT(isnan(h.last[1].v[HW_HEALTH_REASONS]));
    const char *first = "timestamp, index, pstate, clocks_throttle_reasons.active\n"
                        "2026/11/25 10:00:00.000, 0, P12, 0x0000000000000044\n";
    read_health(first, strlen(first), &h, &q);
    CU_ASSERT_EQUAL(h.rows, 1);
    CU_ASSERT_EQUAL(h.last[0].v[HW_HEALTH_PSTATE], 12);
    CU_ASSERT_EQUAL(h.last[0].v[HW_HEALTH_REASONS], 0x44);
    const char *noheader = "2026/11/25 10:00:00.000, 0, P0\n";
    read_health(noheader, strlen(noheader), &h, &q);
    CU_ASSERT_EQUAL(h.rows, 0);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_LAYOUT], 1);
}

/* A run directory with hw_health.csv rows every second: GPU 0 SW power capped (bit 0x4 and its
 * counter) at rows 3, 4 and 5, GPU 1 thermally slowed (0x20) by the bitmask alone; a phase from
 * 3.5 s to 5.5 s. */
static void test_accounting(void)
{
    char *dir = th_tmpdir("sum-health");
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n"
             "{\"ts\": \"2026-11-25T10:00:05.500+00:00\", \"type\": \"phase\", \"name\": \"train\", "
             "\"seconds\": 2.0}\n");
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, "timestamp, index, utilization.gpu [%], clocks.current.sm [MHz], clocks.max.sm "
                    "[MHz], clocks_event_reasons.active, clocks_event_reasons_counters.sw_power_cap "
                    "[us], ecc.errors.uncorrected.volatile.total, pcie.link.gen.current, "
                    "pcie.link.gen.max, pcie.link.width.current, pcie.link.width.max\n");
    long long cnt = 5000000; /* the counter's value at the start: time capped before the run */
    for (int i = 0; i <= 8; i++) {
        bool on = i >= 3 && i <= 5;
        if (i >= 4 && i <= 5)
            cnt += 1000000; /* the hardware counts the second before each capped row */
        hw_buf_printf(&b, "2026/11/25 10:00:%02d.000, 0, 90, %d, 2000, 0x%016X, %lld, %d, 5, 5, "
                          "16, 16\n",
                      i, on ? 1000 : 2000, on ? 0x4 : 0, cnt, i >= 6 ? 1 : 0);
        hw_buf_printf(&b, "2026/11/25 10:00:%02d.000, 1, 90, 2000, 2000, 0x%016X, [N/A], 0, %d, "
                          "5, %d, 16\n",
                      i, i == 7 ? 0x20 : 0, i == 8 ? 3 : 5, i == 8 ? 8 : 16);
    }
    hw_buf_putc(&b, '\0');
    put_file(dir, HW_HEALTH_FILE, b.p);
    hw_buf_free(&b);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run->clk[0]);
    struct sum_clk_figs f;
    /* GPU 0, the run: 2 s by the counter (it grew 2e6 us), over 8 s covered */
    sum_clk_figs(&run->clk[0]->acc, &f);
    CU_ASSERT_STRING_EQUAL(f.source, "counters");
    CHECK_NEAR(f.s[SUM_CLK_SW_POWER], 2.0, 1e-9);
    CHECK_NEAR(f.s[SUM_CLK_POWER], 2.0, 1e-9);
    CHECK_NEAR(f.covered_s, 8.0, 1e-9);
    CHECK_NEAR(f.power_pct, 25.0, 1e-9);
    /* the bitmask alone would say 3 s (rows 3..5, half a step on each side) */
    CHECK_NEAR(run->clk[0]->acc.bit[SUM_CLK_SW_POWER], 3.0, 1e-9);
    CHECK_NEAR(f.sm_pct_of_max, 100.0 * (6 * 2000 + 3 * 1000) / 9 / 2000, 1e-9);
    /* GPU 1: no counter: the bitmask, half a step each side of row 7 */
    sum_clk_figs(&run->clk[1]->acc, &f);
    CU_ASSERT_STRING_EQUAL(f.source, "bitmask");
    CHECK_NEAR(f.s[SUM_CLK_SW_THERMAL], 1.0, 1e-9);
    CHECK_NEAR(f.s[SUM_CLK_THERMAL], 1.0, 1e-9);
    CHECK_NEAR(f.s[SUM_CLK_POWER], 0.0, 0);
    /* the phase [3.5, 5.5]: GPU 0's counter steps (3,4] and (4,5] fully... (3.5..4: half of
     * the first step's second), (4,5]: 1 s, (5,6] grew nothing: 1.5 s of 2 s */
    CU_ASSERT_FATAL(run->nphase == 1);
    struct sum_phase_gpu *pg = run->phase[0].gpu[0];
    CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pg->clk);
    sum_clk_figs(pg->clk, &f);
    CHECK_NEAR(f.s[SUM_CLK_POWER], 1.5, 1e-9);
    CHECK_NEAR(f.covered_s, 2.0, 1e-9);
    CHECK_NEAR(f.power_pct, 75.0, 1e-9);
    /* health: GPU 0 gained an uncorrected ECC error, GPU 1's link dropped to gen 3 x8 */
    CU_ASSERT_EQUAL(run->nhealth_warn, 3);
    CU_ASSERT_STRING_EQUAL(run->health_warn[0], "GPU 0: 1 new uncorrected ECC error during the run");
    CU_ASSERT_PTR_NOT_NULL(strstr(run->health_warn[1], "GPU 1: the PCIe link changed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run->health_warn[2], "below its maximum under load (gen 3 x8 of "
                                                       "gen 5 x16) in 1 sample"));
    /* every output says the same */
    struct hw_buf o;
    hw_buf_init(&o, NULL, 0);
    sum_report_text(run, &o);
    hw_buf_putc(&o, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "GPU 0 was power-capped for 75.0% of `train` (1.5 s, "
                                       "counters)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "warning: GPU 0: 1 new uncorrected ECC error"));
    o.len = 0;
    sum_report_jsonl_row(run, &o);
    hw_buf_putc(&o, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"health_warnings\": 3"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"gpu_clock_source\": \"counters\""));
    /* two GPUs, 8 s each: GPU 0's 2 s capped is 12.5% of the GPU time */
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"gpu_power_capped_pct\": 12.5"));
    hw_buf_free(&o);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* A health file with clocks and no throttle reason at all (a driver that refused the fields,
 * AMD's files): how long the clocks were held down is not measured, null in every output, never
 * 100% (fmin takes the number over a NAN); the clock against its maximum still is. */
static void test_no_reasons(void)
{
    char *dir = th_tmpdir("sum-health-noreason");
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n");
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, "timestamp, index, utilization.gpu, clocks.current.sm, clocks.max.sm\n");
    for (int i = 0; i <= 4; i++)
        hw_buf_printf(&b, "2026-11-25T10:00:%02d.000+00:00, 0, 90, 1500, 2000\n", i);
    hw_buf_putc(&b, '\0');
    put_file(dir, HW_HEALTH_FILE, b.p);
    hw_buf_free(&b);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run->clk[0]);
    struct sum_clk_figs f;
    sum_clk_figs(&run->clk[0]->acc, &f);
    CU_ASSERT_PTR_NULL(f.source);
    CHECK_NEAR(f.covered_s, 4.0, 1e-9);
    CU_ASSERT(isnan(f.power_pct) && isnan(f.thermal_pct));
    CHECK_NEAR(f.sm_pct_of_max, 75.0, 1e-9);
    struct hw_buf o;
    hw_buf_init(&o, NULL, 0);
    sum_report_jsonl_row(run, &o);
    hw_buf_putc(&o, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"gpu_power_capped_pct\": null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"gpu_thermal_pct\": null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"gpu_sm_clock_pct_of_max\": 75.0"));
    o.len = 0;
    sum_report_text(run, &o);
    hw_buf_putc(&o, '\0');
    CU_ASSERT_PTR_NULL(strstr(o.p, "100.0%"));
    hw_buf_free(&o);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* A counter that went back (the driver reloaded) and a gap longer than 3 intervals: neither
 * step counts, and the time they span is not covered. */
static void test_reset_and_gap(void)
{
    char *dir = th_tmpdir("sum-health-gap");
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n");
    put_file(dir, HW_HEALTH_FILE,
             "timestamp, index, clocks_event_reasons.active, "
             "clocks_event_reasons_counters.sw_power_cap [us]\n"
             "2026/11/25 10:00:00.000, 0, 0x0000000000000004, 9000000\n"
             "2026/11/25 10:00:01.000, 0, 0x0000000000000004, 500000\n"
             "2026/11/25 10:00:02.000, 0, 0x0000000000000004, 1500000\n"
             "2026/11/25 10:00:12.000, 0, 0x0000000000000004, 11500000\n");
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    struct sum_clk_figs f;
    sum_clk_figs(&run->clk[0]->acc, &f);
    CHECK_NEAR(f.s[SUM_CLK_SW_POWER], 1.0, 1e-9); /* only (1, 2] */
    CHECK_NEAR(f.covered_s, 2.0, 1e-9);           /* (0, 1] and (1, 2]; not the 10 s gap */
    CHECK_NEAR(f.power_pct, 50.0, 1e-9);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* hw_energy.csv by hand: the counter read every second with an edge read at 3.5 s; it goes back
 * once (the driver reloaded). The run's counter energy leaves the reset's step out; the phase
 * [3.5, 5.5] gets its steps' parts exactly; a phase shorter than twice the counter's period
 * takes the integrated figure. */
static void test_counter(void)
{
    char *dir = th_tmpdir("sum-ecount");
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n"
             "{\"ts\": \"2026-11-25T10:00:05.500+00:00\", \"type\": \"phase\", \"name\": \"train\", "
             "\"seconds\": 2.0}\n"
             "{\"ts\": \"2026-11-25T10:00:07.200+00:00\", \"type\": \"phase\", \"name\": \"blip\", "
             "\"seconds\": 0.5}\n");
    put_file(dir, "hw_metrics.csv", /* 100 W, integrated: 100 J/s */
             "2026/11/25 10:00:00.000, 50, 10, 1000, 81559, 100.00, 40, 1980, 2619, 0, GPU-a\n"
             "2026/11/25 10:00:04.000, 50, 10, 1000, 81559, 100.00, 40, 1980, 2619, 0, GPU-a\n"
             "2026/11/25 10:00:08.000, 50, 10, 1000, 81559, 100.00, 40, 1980, 2619, 0, GPU-a\n");
    put_file(dir, HW_ENERGY_FILE,
             HW_ENERGY_HEADER "\n"
             "2026-11-25T10:00:00.000+00:00,0,1000000,\n"
             "2026-11-25T10:00:01.000+00:00,0,1300000,\n"
             "2026-11-25T10:00:02.000+00:00,0,1600000,\n"
             "2026-11-25T10:00:03.000+00:00,0,1900000,\n"
             "2026-11-25T10:00:03.500+00:00,0,2100000,1\n"
             "2026-11-25T10:00:04.000+00:00,0,2300000,\n"
             "2026-11-25T10:00:05.000+00:00,0,2600000,\n"
             "2026-11-25T10:00:06.000+00:00,0,500,\n"
             "2026-11-25T10:00:07.000+00:00,0,300500,\n"
             "2026-11-25T10:00:08.000+00:00,0,600500,\n");
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run->ecnt[0]);
    CU_ASSERT_EQUAL(run->ecnt[0]->c.resets, 1);
    /* 1.6e6 mJ before the reset, 0.6e6 after: 2200 J */
    const char *src;
    CHECK_NEAR(sum_gpu_energy_wh(run, 0, &src), 2200.0 / 3600, 1e-12);
    CU_ASSERT_STRING_EQUAL(src, "counter");
    CHECK_NEAR(sum_gpu_energy_integrated_wh(run, 0), 800.0 / 3600, 1e-9);
    CHECK_NEAR(sum_run_energy_wh(run), 2200.0 / 3600, 1e-12);
    CHECK_NEAR(sum_ecount_period(run->ecnt[0]), 1.0, 1e-9);
    CU_ASSERT_FATAL(run->nphase == 2);
    /* train [3.5, 5.5]: (3.5, 4] 200 J, (4, 5] 300 J, (5, 6] is the reset: nothing */
    CHECK_NEAR(sum_phase_gpu_energy_wh(run, &run->phase[0], 0, &src), 500.0 / 3600, 1e-12);
    CU_ASSERT_STRING_EQUAL(src, "counter");
    /* blip [6.7, 7.2]: shorter than two periods: the integrated power, 50 J */
    CHECK_NEAR(sum_phase_gpu_energy_wh(run, &run->phase[1], 0, &src), 50.0 / 3600, 1e-9);
    CU_ASSERT_STRING_EQUAL(src, "integrated");
    struct hw_buf o;
    hw_buf_init(&o, NULL, 0);
    sum_report_json(run, &o);
    hw_buf_putc(&o, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"energy_source\": \"counter\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"energy_source\": \"integrated\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"resets\": 1"));
    hw_buf_free(&o);
    /* the live state (summarize --live, hwmon's Prometheus export) says the same energy: the
     * counter's, by the same rule, not the 800 J of integrated power */
    struct rd_live l;
    CU_ASSERT_EQUAL_FATAL(rd_live_open(&l, dir, NULL), 0);
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.gpu[0].counter.rows, 10);
    CHECK_NEAR(rd_live_gpu_energy_j(&l.gpu[0]), 2200.0, 1e-9);
    CHECK_NEAR(rd_live_gpu_energy_j(&l.gpu[0]) / 3600, sum_gpu_energy_wh(run, 0, NULL), 1e-12);
    rd_live_close(&l);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* The energy counter against the power integrated over a run: agreeing within 20% (and over
 * a short run, or across a gap, whatever they say) no warning; 30% apart over 90 s of samples,
 * a warning every output shows. */
static void test_counter_disagrees(void)
{
    static const struct {
        double counter_w; /* what the counter grows by per second; the samples say 100 W */
        int seconds;
        bool gap, warned;
    } cases[] = {
        {115, 90, false, false}, {130, 90, false, true}, {70, 90, false, true},
        {130, 30, false, false}, {130, 90, true, false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *dir = th_tmpdir("sum-ecount-disagree");
        put_file(dir, "run.jsonl",
                 "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": "
                 "\"start\", \"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n");
        struct hw_buf g, e;
        hw_buf_init(&g, NULL, 0);
        hw_buf_init(&e, NULL, 0);
        hw_buf_puts(&e, HW_ENERGY_HEADER "\n");
        for (int t = 0; t <= cases[c].seconds; t++) {
            if (cases[c].gap && t > 40 && t < 50) /* 9 s without a sample */
                continue;
            hw_buf_printf(&g, "2026/11/25 10:%02d:%02d.000, 50, 10, 1000, 81559, 100.00, 40, 1980, "
                              "2619, 0, GPU-a\n",
                          t / 60, t % 60);
            hw_buf_printf(&e, "2026-11-25T10:%02d:%02d.000+00:00,0,%.0f,\n", t / 60, t % 60,
                          1e6 + t * cases[c].counter_w * 1000);
        }
        hw_buf_putc(&g, '\0');
        hw_buf_putc(&e, '\0');
        put_file(dir, "hw_metrics.csv", g.p);
        put_file(dir, HW_ENERGY_FILE, e.p);
        hw_buf_free(&g);
        hw_buf_free(&e);
        struct sum_run *run = summarize_dir(dir);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run);
        bool warned = false;
        for (int i = 0; i < run->nhealth_warn; i++)
            warned |= strstr(run->health_warn[i], "GPU 0: energy counter ") != NULL;
        CU_ASSERT_EQUAL(warned, cases[c].warned);
        if (warned != cases[c].warned)
            fprintf(stderr, "case %zu: warned %d\n", c, warned);
        sum_run_free(run);
        th_rmtree(dir);
        free(dir);
    }
}

/* hw_pmon.csv by hand, with tree_pids.csv: pid 500 is the job's from 1 s on, pid 900 a
 * stranger's. GPU 0's intervals: both with values, then the job's "-" (no sample: the interval's
 * own share is not measured), then nothing on the GPU (a measured 0). */
static void test_pmon(void)
{
    char *dir = th_tmpdir("sum-pmon");
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\", \"pid_namespace\": \"init\"}}\n");
    put_file(dir, HW_TREE_PIDS_FILE, HW_TREE_PIDS_HEADER "\n"
                                     "2026-11-25T10:00:01.000+00:00,500,1\n");
    const char *pmon =
        "#Date       Time        gpu        pid   type     fb   ccpm     sm    mem    enc    dec    "
        "jpg    ofa    command\n"
        "#YYYYMMDD   HH:MM:SS    Idx          #    C/G     MB     MB      %      %      %      %      "
        "%      %    name\n"
        " 20261125   10:00:02      0        500      C   1000      0     60     10      -      -      "
        "-      -    python train.py\n"
        " 20261125   10:00:02      0        900      C    200      0     30      4      -      -      "
        "-      -    stranger\n"
        " 20261125   10:00:03      0        500      C   1000      0      -      -      -      -      "
        "-      -    python train.py\n"
        " 20261125   10:00:03      0        900      C    200      0     20      2      -      -      "
        "-      -    stranger\n"
        " 20261125   10:00:04      0          -      -      -      -      -      -      -      -      "
        "-      -    -\n"
        /* a late pmon: two intervals stamped with one second */
        " 20261125   10:00:05      0        500      C   1000      0     10      1      -      -      "
        "-      -    python train.py\n"
        " 20261125   10:00:05      0        900      C    200      0     10      1      -      -      "
        "-      -    stranger\n"
        " 20261125   10:00:05      0        500      C   1000      0     10      1      -      -      "
        "-      -    python train.py\n"
        " 20261125   10:00:05      0        900      C    200      0     10      1      -      -      "
        "-      -    stranger\n";
    put_file(dir, HW_PMON_FILE, pmon);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run->pm[0]);
    CU_ASSERT_EQUAL(run->q[HW_FILE_PMON].parsed, 9);
    CU_ASSERT_EQUAL(rd_quality_skipped_total(&run->q[HW_FILE_PMON]), 0);
    CU_ASSERT_PTR_NULL(sum_run_pmon_unattributed(run));
    const struct sum_pmon_acc *a = &run->pm[0]->acc;
    CU_ASSERT_EQUAL(a->all_sm.n, 5);
    CU_ASSERT_EQUAL(a->own_sm.n, 4); /* 10:00:03 has no value of the job's */
    CHECK_NEAR(sum_stat_mean(&a->own_sm), 20.0, 1e-12);   /* 60, 0, 10, 10: never 20 at once */
    CHECK_NEAR(a->own_sm.max, 60.0, 0);
    CHECK_NEAR(sum_stat_mean(&a->others_sm), 14.0, 1e-12); /* 30, 20, 0, 10, 10 */
    CHECK_NEAR(sum_stat_mean(&a->all_sm), 30.0, 1e-12);    /* 90, 20, 0, 20, 20 */
    CU_ASSERT_EQUAL(run->pm[0]->own_lines, 4);
    CU_ASSERT_EQUAL(run->pm[0]->other_lines, 4);
    struct hw_buf o;
    hw_buf_init(&o, NULL, 0);
    sum_report_jsonl_row(run, &o);
    hw_buf_putc(&o, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "\"gpu_own_sm_mean_pct\": 20.0"));
    hw_buf_free(&o);
    sum_run_free(run);

    /* hwmon in a container: pmon's pids are the host's, not the tree's: only the total */
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\", \"pid_namespace\": \"other\"}}\n");
    run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_STRING_EQUAL(sum_run_pmon_unattributed(run), "pid_namespace");
    CU_ASSERT_EQUAL(run->pm[0]->acc.own_sm.n, 0);
    CU_ASSERT_EQUAL(run->pm[0]->acc.all_sm.n, 5);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

struct prec {
    size_t lines, procs, nameless;
    double sm_max;
    long pid_of_max;
};

static void on_pmon_line(void *ctx, const struct rd_pmon_row *r)
{
    struct prec *p = ctx;
    p->lines++;
    if (r->pid < 0) {
        p->nameless++;
        return;
    }
    p->procs++;
    if (!(r->sm <= p->sm_max)) {
        p->sm_max = r->sm;
        p->pid_of_max = r->pid;
    }
}

/* pmon's real outputs, every layout: current and old columns, -s um, names with spaces, C+G,
 * GPUs with no process, an unterminated last line; every line read, none skipped. */
static void test_pmon_captures(void)
{
    static const struct {
        const char *file;
        size_t procs, nameless;
        double sm_max;
        long pid;
    } cases[] = {
        {"pmon_default_h200_drv590_load.txt", 0, 0, 99, 10309},
        {"pmon_default_h100_drv590_idle_no-procs.txt", 0, 0, NAN, -1},
        {"pmon_h200_4gpus-selected_no-procs_trailing-ws-stripped.txt", 0, 4, NAN, -1},
        {"pmon_default_rtx2080super-windows_drv591_load.txt", 0, 0, NAN, -1},
        {"pmon_default_rtx4080super_drv595_load_CplusG.txt", 0, 0, NAN, -1},
        {"pmon_default_tesla-k40m-x2_microway_old-layout.txt", 0, 0, 64, 14945},
        {"pmon_s-um_rtx3090_fixture_trailing-ws-stripped_no-final-newline.txt", 0, 0, NAN, -1},
        {"pmon_i-0_c-1_quadro-p5000_old-layout_author-stripped-indent.txt", 0, 0, 5, 30891},
        {"pmon_default_l40s_drv595.80_load.txt", 0, 0, NAN, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *s = capture(cases[i].file, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        struct prec p = {0, 0, 0, NAN, -1};
        struct rd_sink sink = {.ctx = &p, .pmon = on_pmon_line};
        struct rd_read_opts o = {0};
        struct rd_quality q;
        struct rd_reader *rd = rd_reader_new(HW_FILE_PMON, "test", &o, &sink, &q);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
        CU_ASSERT_EQUAL(rd_reader_feed(rd, s, len), 0);
        rd_reader_finish(rd);
        rd_reader_free(rd);
        size_t data = 0; /* the lines that are not headers, by hand */
        for (char *l = s; l && *l;) {
            char *nl = strchr(l, '\n');
            if (*l != '#' && (nl ? nl - l : (long)strlen(l)) > 0)
                data++;
            l = nl ? nl + 1 : NULL;
        }
        bool last_open = len && s[len - 1] != '\n';
        free(s);
        if (p.lines + last_open != data || rd_quality_skipped_total(&q))
            fprintf(stderr, "%s: %zu lines, %zu data, skipped %llu\n", cases[i].file, p.lines, data,
                    (unsigned long long)rd_quality_skipped_total(&q));
        CU_ASSERT_EQUAL(p.lines + last_open, data);
        CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
        if (cases[i].nameless)
            CU_ASSERT_EQUAL(p.nameless, cases[i].nameless);
        if (!isnan(cases[i].sm_max)) {
            CU_ASSERT_EQUAL(p.sm_max, cases[i].sm_max);
            CU_ASSERT_EQUAL(p.pid_of_max, cases[i].pid);
        }
    }
}

/* The power readings: hw_metrics.csv's power.draw says 100 W (a 1 s average: the GPU also
 * reports power.draw.average), hw_health.csv's power.draw.instant 200 W. The energy prefers the
 * instantaneous reading, labelled, the power field's integral beside it. */
static void test_instant_power(void)
{
    char *dir = th_tmpdir("sum-instant");
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-25T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
             "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n"
             "{\"ts\": \"2026-11-25T10:00:05.500+00:00\", \"type\": \"phase\", \"name\": \"train\", "
             "\"seconds\": 2.0}\n");
    struct hw_buf g, h;
    hw_buf_init(&g, NULL, 0);
    hw_buf_init(&h, NULL, 0);
    hw_buf_puts(&h, "timestamp, index, power.draw.instant [W], power.draw.average [W]\n");
    for (int i = 0; i <= 8; i++) {
        hw_buf_printf(&g, "2026/11/25 10:00:%02d.000, 50, 10, 1000, 81559, 100.00, 40, 1980, 2619, "
                          "0, GPU-a\n",
                      i);
        hw_buf_printf(&h, "2026/11/25 10:00:%02d.000, 0, 200.00, 100.00\n", i);
    }
    hw_buf_putc(&g, '\0');
    hw_buf_putc(&h, '\0');
    put_file(dir, "hw_metrics.csv", g.p);
    put_file(dir, HW_HEALTH_FILE, h.p);
    hw_buf_free(&g);
    hw_buf_free(&h);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    const char *src;
    CHECK_NEAR(sum_gpu_energy_wh(run, 0, &src), 1600.0 / 3600, 1e-12);
    CU_ASSERT_STRING_EQUAL(src, "instant");
    CHECK_NEAR(sum_gpu_energy_integrated_wh(run, 0), 800.0 / 3600, 1e-12);
    CU_ASSERT_STRING_EQUAL(sum_clk_power_reading(run->clk[0], "power.draw"), "average_1s");
    CU_ASSERT_FATAL(run->nphase == 1);
    CHECK_NEAR(sum_phase_gpu_energy_wh(run, &run->phase[0], 0, &src), 400.0 / 3600, 1e-12);
    CU_ASSERT_STRING_EQUAL(src, "instant");
    CHECK_NEAR(sum_run_energy_wh(run), 1600.0 / 3600, 1e-12);
    struct hw_buf o;
    hw_buf_init(&o, NULL, 0);
    sum_report_text(run, &o);
    hw_buf_putc(&o, '\0');
    unwrap_text(o.p);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.p, "from power.draw.instant (power.draw, a 1 s average "
                                       "integrated: 0.222 Wh)"));
    hw_buf_free(&o);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

void add_health_suite(void)
{
    CU_pSuite s = th_add_suite("health", NULL, NULL, 60);
    CU_add_test(s, "captures", test_captures);
    CU_add_test(s, "cells", test_cells);
    CU_add_test(s, "accounting", test_accounting);
    CU_add_test(s, "no_reasons", test_no_reasons);
    CU_add_test(s, "reset_and_gap", test_reset_and_gap);
    CU_add_test(s, "energy_counter", test_counter);
    CU_add_test(s, "energy_counter_disagrees", test_counter_disagrees);
    CU_add_test(s, "pmon", test_pmon);
    CU_add_test(s, "instant_power", test_instant_power);
    CU_add_test(s, "pmon_captures", test_pmon_captures);
}
