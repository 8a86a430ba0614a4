/* Suite "stats": running statistics and percentiles against a sort of the same data, exact
 * while few distinct values, within the stated 0.5% relative bound beyond; fast number parsing
 * against strtod. */
#include <stdlib.h>
#include <string.h>

#include "hwrun/parse.h"
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
    CU_pSuite s = CU_add_suite("stats", NULL, NULL);
    CU_add_test(s, "exact_percentiles", test_exact_percentiles);
    CU_add_test(s, "sketch_percentiles", test_sketch_percentiles);
    CU_add_test(s, "nan_and_empty", test_nan_and_empty);
    CU_add_test(s, "parse_number", test_parse_number);
    CU_add_test(s, "repeats_across_growth", test_repeats_across_growth);
}
