/* Suite "stats": running statistics and percentiles against a sort of the same data, exact
 * while few distinct values, within the stated 0.5% relative bound beyond; fast number parsing
 * against strtod. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/io.h"
#include "hwrun/parse.h"
#include "hwrun/buf.h"
#include "reader_int.h"
#include "stats.h"
#include "sumtest.h"

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* numpy's "linear" percentile of sorted v[0..n) */
static double ref_quantile(const double *v, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t lo = h > 0 ? (size_t)h : 0; /* clamped: -O3's bounds check cannot see h >= 0 */
    if (lo > n - 1)
        lo = n - 1;
    double frac = h - (double)lo;
    if (lo + 1 >= n || frac == 0)
        return v[lo];
    return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

static const double qs[] = {0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1};

static void check_series(double *v, size_t n, double rel)
{
    struct sum_stat s = {0};
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum_stat_add(&s, v[i]);
        sum += v[i];
    }
    qsort(v, n, sizeof *v, cmpd);
    CU_ASSERT_EQUAL(s.n, n);
    CU_ASSERT_EQUAL(s.sum, sum); /* same order of additions: bit-identical */
    CU_ASSERT_EQUAL(s.min, v[0]);
    CU_ASSERT_EQUAL(s.max, v[n - 1]);
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        double want = ref_quantile(v, n, qs[i]);
        double got = sum_stat_quantile(&s, qs[i]);
        if (rel == 0) {
            CU_ASSERT_EQUAL(got, want);
        } else {
            /* each of the two ranks is within rel of its value, so is their interpolation */
            size_t lo = (size_t)(qs[i] * (double)(n - 1));
            double hi = lo + 1 < n ? fabs(v[lo + 1]) : 0;
            CU_ASSERT(fabs(got - want) <= rel * fmax(fabs(v[lo]), hi) + 1e-12);
        }
    }
    CU_ASSERT_EQUAL(sum_stat_exact(&s), rel == 0);
    sum_stat_free(&s);
}

static void test_exact_percentiles(void)
{
    srand(42);
    for (int round = 0; round < 20; round++) {
        size_t n = 1 + (size_t)(rand() % 5000);
        double *v = malloc(n * sizeof *v);
        int distinct = 1 + rand() % 1000;
        for (size_t i = 0; i < n; i++)
            v[i] = (rand() % distinct) * 0.25 - 10;
        check_series(v, n, 0);
        free(v);
    }
    double one = 7;
    check_series(&one, 1, 0);
}

static void test_sketch_percentiles(void)
{
    srand(7);
    for (int round = 0; round < 10; round++) {
        size_t n = 20000 + (size_t)(rand() % 20000);
        double *v = malloc(n * sizeof *v);
        for (size_t i = 0; i < n; i++)
            v[i] = 0.01 + (double)rand() / RAND_MAX * (round % 2 ? 700 : 1e6);
        check_series(v, n, SUM_QUANT_ALPHA);
        free(v);
    }
    /* negative values and zeros */
    size_t n = 5000;
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = i % 7 == 0 ? 0 : ((double)rand() / RAND_MAX - 0.5) * 1000;
    check_series(v, n, SUM_QUANT_ALPHA);
    free(v);
}

static void test_nan_and_empty(void)
{
    struct sum_stat s = {0};
    sum_stat_add(&s, NAN);
    CU_ASSERT_EQUAL(s.n, 0);
    CU_ASSERT(isnan(sum_stat_mean(&s)));
    CU_ASSERT(isnan(sum_stat_quantile(&s, 0.5)));
    sum_stat_add(&s, 3);
    sum_stat_add(&s, 1);
    CU_ASSERT_EQUAL(s.first, 3);
    CU_ASSERT_EQUAL(s.last, 1);
    CU_ASSERT_EQUAL(sum_stat_count_above(&s, 2), 1);
    sum_stat_free(&s);
    /* a zeroed series' first value 0.0 equals its hot_v but has no count cell yet */
    struct sum_stat z = {0};
    sum_stat_add(&z, 0.0);
    sum_stat_add(&z, 0.0);
    sum_stat_add(&z, 2.0);
    CU_ASSERT_EQUAL(z.n, 3);
    CU_ASSERT_EQUAL(z.max, 2.0);
    CU_ASSERT_EQUAL(sum_stat_quantile(&z, 0.5), 0.0);
    CU_ASSERT_EQUAL(sum_stat_count_above(&z, 1), 1);
    sum_stat_free(&z);
}

/* Runs of repeated values (the inline path that bumps the last value's count cell) across
 * every reallocation: hash-table growth, the switch to the sketch, sketch widening both ways,
 * and -0.0 after 0.0 and NaN inside a run. A stale count cell would miscount (or, under ASan,
 * write freed memory). */
static void test_repeats_across_growth(void)
{
    enum { N = 40000 };
    double *v = malloc(N * sizeof *v);
    size_t n = 0;
    for (int i = 0; n + 4 <= N; i++) {
        double x = i % 3 == 0 ? (double)i : i % 3 == 1 ? 1.0 / (i + 1) : -(double)i * 1e6;
        int run = 1 + i % 4;
        for (int r = 0; r < run; r++)
            v[n++] = x;
        if (i == 10) {
            v[n++] = 0.0;
            v[n++] = -0.0;
        }
    }
    /* the first 1024 distinct values stay exact; check a prefix that does, then everything */
    double *w = malloc(N * sizeof *w);
    memcpy(w, v, 1200 * sizeof *w);
    check_series(w, 1200, 0);
    memcpy(w, v, n * sizeof *w);
    check_series(w, n, 2 * SUM_QUANT_ALPHA);
    struct sum_stat s = {0};
    sum_stat_add(&s, 5);
    sum_stat_add(&s, NAN);
    sum_stat_add(&s, 5);
    CU_ASSERT_EQUAL(s.n, 2);
    CU_ASSERT_EQUAL(sum_stat_quantile(&s, 0.5), 5);
    sum_stat_free(&s);
    free(v);
    free(w);
}

/* sum_stat_add_mean_max keeps the n, sum and max sum_stat_add would, bit for bit: NaN skipped,
 * all-negative series, -inf, -0.0 before 0.0 (the first of equal maxima stays, as in
 * sum_stat_add). */
static void test_mean_max(void)
{
    srand(11);
    for (int round = 0; round < 50; round++) {
        struct sum_stat full = {0}, mm;
        sum_stat_init_mean_max(&mm);
        size_t n = (size_t)(rand() % 300);
        for (size_t i = 0; i < n; i++) {
            double v = rand() % 10 == 0 ? NAN : (rand() % 2000 - (round % 2 ? 3000 : 1000)) / 8.0;
            if (round == 7 && i < 2)
                v = i == 0 ? -0.0 : 0.0;
            if ((round == 9 && i == 0) || round == 13)
                v = -INFINITY;
            sum_stat_add(&full, v);
            sum_stat_add_mean_max(&mm, v);
        }
        CU_ASSERT_EQUAL(mm.n, full.n);
        CU_ASSERT(memcmp(&mm.sum, &full.sum, sizeof mm.sum) == 0);
        if (full.n)
            CU_ASSERT(memcmp(&mm.max, &full.max, sizeof mm.max) == 0);
        CU_ASSERT_PTR_NULL(mm.q);
        CU_ASSERT(isnan(sum_stat_quantile(&mm, 0.5)));
        sum_stat_free(&full);
        sum_stat_free(&mm);
    }
    struct sum_stat z;
    sum_stat_init_mean_max(&z);
    CU_ASSERT(isnan(sum_stat_mean(&z)));
    sum_stat_add_mean_max(&z, -0.0);
    sum_stat_add_mean_max(&z, 0.0);
    CU_ASSERT(signbit(z.max));
    sum_stat_add_mean_max(&z, -1);
    CU_ASSERT_EQUAL(z.n, 3);
    CU_ASSERT_EQUAL(sum_stat_mean(&z), -1.0 / 3);
}

/* The exact table at each of its limits: half full before it grows (16, 32, ... slots), and
 * SUM_QUANT_EXACT distinct values, where values already seen still count exactly and the next
 * new one moves the series to the sketch. */
static void test_exact_limits(void)
{
    static const size_t distinct[] = {1, 7, 8, 9, 16, 17, 511, 512, 513, SUM_QUANT_EXACT - 1,
                                      SUM_QUANT_EXACT};
    for (size_t d = 0; d < sizeof distinct / sizeof distinct[0]; d++) {
        size_t k = distinct[d], n = 3 * k + 5;
        double *v = malloc(n * sizeof *v);
        for (size_t i = 0; i < n; i++) /* every value first in order, then again shuffled */
            v[i] = i < k ? (double)i * 1.5 - 7 : (double)((i * 7919) % k) * 1.5 - 7;
        check_series(v, n, 0);
        free(v);
    }
    struct sum_stat s = {0};
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < SUM_QUANT_EXACT; i++)
            sum_stat_add(&s, i * 2.0);
    CU_ASSERT(sum_stat_exact(&s));
    CU_ASSERT_EQUAL(sum_stat_quantile(&s, 0.5), SUM_QUANT_EXACT - 1.0);
    CU_ASSERT_EQUAL(sum_stat_count_above(&s, 2 * SUM_QUANT_EXACT - 3.0), 3);
    sum_stat_add(&s, 1.0); /* the 1025th distinct value */
    CU_ASSERT(!sum_stat_exact(&s));
    CU_ASSERT_EQUAL(s.n, 3 * SUM_QUANT_EXACT + 1);
    double med = sum_stat_quantile(&s, 0.5);
    CU_ASSERT(fabs(med - (SUM_QUANT_EXACT - 1.0)) <= SUM_QUANT_ALPHA * SUM_QUANT_EXACT);
    sum_stat_free(&s);
}

/* ---- the whole-run figures over every GPU, against the same figures from scratch -------- */

enum { ALL_ROWS = 400, ALL_COLS = 8 }; /* hwmon's default layout: 8 metrics, no graphics clock */

/* the metric of each of the layout's columns */
static const int col_metric[ALL_COLS] = {HW_GM_UTIL,      HW_GM_MEM_UTIL, HW_GM_MEM_USED,
                                         HW_GM_MEM_TOTAL, HW_GM_POWER,    HW_GM_TEMP,
                                         HW_GM_SM_CLOCK,  HW_GM_MEM_CLOCK};

/* Writes hw_metrics.csv of ngpus GPUs (GPU g's first row at step g * late) with [N/A] cells
 * and temperatures from 120 C down (the first is rarely the least: a min that starts at 0 or at
 * the first row would show), and checks the run's figures against ones computed over the rows
 * in file order: every GPU together (n, the sum in row order, bit for bit, and max) and each
 * GPU (n, sum, min, max). */
static void check_all_gpus(int ngpus, int late, unsigned seed)
{
    srand(seed);
    char *base = th_tmpdir("allgpu");
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    uint64_t an[HW_GPU_FIG_COUNT] = {0}, gn[4][HW_GPU_FIG_COUNT] = {{0}};
    double asum[HW_GPU_FIG_COUNT] = {0}, amax[HW_GPU_FIG_COUNT], gsum[4][HW_GPU_FIG_COUNT] = {{0}};
    double gmin[4][HW_GPU_FIG_COUNT], gmax[4][HW_GPU_FIG_COUNT];
    for (int step = 0; step < ALL_ROWS; step++)
        for (int g = 0; g < ngpus; g++) {
            if (step < g * late)
                continue;
            hw_buf_printf(&b, "2026/11/21 10:%02d:%02d.000", step / 60, step % 60);
            for (int c = 0; c < ALL_COLS; c++) {
                int m = col_metric[c];
                if (rand() % 13 == 0 || (m == HW_GM_MEM_UTIL && g == 1)) {
                    hw_buf_puts(&b, ", [N/A]");
                    continue;
                }
                char cell[32];
                int x = rand() % 5000;
                if (m == HW_GM_TEMP)
                    snprintf(cell, sizeof cell, "%d", 120 - x % 121);
                else if (m == HW_GM_POWER)
                    snprintf(cell, sizeof cell, "%d.%02d", x / 10, x % 100);
                else
                    snprintf(cell, sizeof cell, "%d",
                             x % (m == HW_GM_UTIL || m == HW_GM_MEM_UTIL ? 101 : 5000));
                double v = strtod(cell, NULL);
                hw_buf_printf(&b, ", %s", cell);
                if (!an[m]++ || v > amax[m])
                    amax[m] = v;
                asum[m] += v;
                if (!gn[g][m]++)
                    gmin[g][m] = gmax[g][m] = v;
                gmin[g][m] = fmin(gmin[g][m], v);
                gmax[g][m] = fmax(gmax[g][m], v);
                gsum[g][m] += v;
            }
            hw_buf_printf(&b, ", %d, GPU-%d\n", g, g);
        }
    hw_buf_putc(&b, '\0');
    put_file(base, "hw_metrics.csv", b.p);
    hw_buf_free(&b);
    struct sum_run *run = summarize_dir(base);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        const struct sum_stat *a = &run->all[m];
        CU_ASSERT_EQUAL(a->n, an[m]);
        CU_ASSERT_EQUAL(a->sum, asum[m]);
        if (an[m]) {
            CU_ASSERT_EQUAL(a->max, amax[m]);
            CU_ASSERT_EQUAL(sum_stat_mean(a), asum[m] / (double)an[m]);
        } else {
            CU_ASSERT(isnan(sum_stat_mean(a))); /* the graphics clock: no column */
        }
        for (int g = 0; g < ngpus; g++) {
            CU_ASSERT_PTR_NOT_NULL_FATAL(run->gpu[g]);
            const struct sum_stat *s = &run->gpu[g]->m[m];
            CU_ASSERT_EQUAL(s->n, gn[g][m]);
            CU_ASSERT_EQUAL(s->sum, gsum[g][m]);
            if (gn[g][m]) {
                CU_ASSERT_EQUAL(s->min, gmin[g][m]);
                CU_ASSERT_EQUAL(s->max, gmax[g][m]);
            }
        }
    }
    CU_ASSERT(an[HW_GM_TEMP] > 0 && amax[HW_GM_TEMP] > 0);
    sum_run_free(run);
    th_rmtree(base);
    free(base);
}

static void test_all_gpus(void)
{
    check_all_gpus(1, 0, 1);   /* one GPU */
    check_all_gpus(3, 0, 2);   /* every GPU from the first row */
    check_all_gpus(4, 90, 3);  /* GPUs 1, 2, 3 appear at steps 90, 180, 270 */
}

static void test_parse_number(void)
{
    static const char *const ok[] = {"0", "100", "631.95", "-1.5", "0.001", "81559", "1e3",
                                     "123456789012345678", "0.1234567890123456789", "5.",
                                     ".5", "100 %", "631.95 W", "+7", "1.5E-3"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v;
        CU_ASSERT_TRUE(hw_parse_num_cell(ok[i], strlen(ok[i]), &v));
        CU_ASSERT_EQUAL(v, strtod(ok[i], NULL));
    }
    static const char *const bad[] = {"", "-", ".", "[N/A]", "N/A", "abc", "1.2.3", "inf", "nan",
                                      "0x10", "1e", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v;
        CU_ASSERT_FALSE(hw_parse_num_cell(bad[i], strlen(bad[i]), &v));
    }
    /* every 2-decimal value 0.00..999.99 is exact */
    char buf[32];
    for (int i = 0; i < 100000; i += 7) {
        int n = snprintf(buf, sizeof buf, "%d.%02d", i / 100, i % 100);
        double v;
        CU_ASSERT_TRUE(hw_parse_num_cell(buf, (size_t)n, &v));
        if (v != strtod(buf, NULL))
            CU_FAIL("fast path differs from strtod");
    }
}

void add_stats_suite(void)
{
    CU_pSuite s = th_add_suite("stats", NULL, NULL, 60);
    CU_add_test(s, "exact_percentiles", test_exact_percentiles);
    CU_add_test(s, "sketch_percentiles", test_sketch_percentiles);
    CU_add_test(s, "nan_and_empty", test_nan_and_empty);
    CU_add_test(s, "parse_number", test_parse_number);
    CU_add_test(s, "repeats_across_growth", test_repeats_across_growth);
    CU_add_test(s, "mean_max", test_mean_max);
    CU_add_test(s, "exact_limits", test_exact_limits);
    CU_add_test(s, "all_gpus", test_all_gpus);
}
