/* Why a GPU was slow and whether it was healthy (clocks.h). */
#include "clocks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "energy.h"

const char *const sum_clk_keys[SUM_CLK_COUNT] = {
    [SUM_CLK_SW_POWER] = "sw_power_cap_s",
    [SUM_CLK_HW_POWER_BRAKE] = "hw_power_brake_s",
    [SUM_CLK_SW_THERMAL] = "sw_thermal_s",
    [SUM_CLK_HW_THERMAL] = "hw_thermal_s",
    [SUM_CLK_SYNC_BOOST] = "sync_boost_s",
    [SUM_CLK_HW_SLOWDOWN] = "hw_slowdown_s",
    [SUM_CLK_POWER] = "power_capped_s",
    [SUM_CLK_THERMAL] = "thermal_s",
};

/* The reasons with a counter: its column and its bit. */
static const struct {
    enum sum_clk clk;
    int col;
    unsigned long long bit;
} reason[] = {
    {SUM_CLK_SW_POWER, HW_HEALTH_CNT_SW_POWER, HW_REASON_SW_POWER_CAP},
    {SUM_CLK_HW_POWER_BRAKE, HW_HEALTH_CNT_HW_POWER_BRAKE, HW_REASON_HW_POWER_BRAKE},
    {SUM_CLK_SW_THERMAL, HW_HEALTH_CNT_SW_THERMAL, HW_REASON_SW_THERMAL},
    {SUM_CLK_HW_THERMAL, HW_HEALTH_CNT_HW_THERMAL, HW_REASON_HW_THERMAL},
    {SUM_CLK_SYNC_BOOST, HW_HEALTH_CNT_SYNC_BOOST, HW_REASON_SYNC_BOOST},
    {SUM_CLK_HW_SLOWDOWN, -1, HW_REASON_HW_SLOWDOWN},
};
#define NREASON (sizeof reason / sizeof reason[0])
#define POWER_BITS (HW_REASON_SW_POWER_CAP | HW_REASON_HW_POWER_BRAKE)
#define THERMAL_BITS (HW_REASON_SW_THERMAL | HW_REASON_HW_THERMAL)

void sum_clk_acc_init(struct sum_clk_acc *a)
{
    memset(a, 0, sizeof *a);
    sum_stat_init_mean_max(&a->sm);
    a->sm_max_mhz = NAN;
}

void sum_clk_acc_free(struct sum_clk_acc *a)
{
    sum_stat_free(&a->sm);
}

void sum_clk_gpu_init(struct sum_clk_gpu *g)
{
    memset(g, 0, sizeof *g);
    sum_clk_acc_init(&g->acc);
    for (int k = 0; k < HW_HEALTH_COUNT; k++)
        g->first[k] = g->last[k] = g->min[k] = g->max[k] = NAN;
    g->link_below_gen = g->link_below_width = NAN;
    g->prev_t_file = NAN;
    rd_energy_init(&g->inst);
}

void sum_clk_sample(struct sum_clk_acc *a, const double *v)
{
    sum_stat_add_mean_max(&a->sm, v[HW_HEALTH_SM_CLOCK]);
    if (!(v[HW_HEALTH_SM_CLOCK_MAX] <= a->sm_max_mhz))
        a->sm_max_mhz = isfinite(v[HW_HEALTH_SM_CLOCK_MAX]) ? v[HW_HEALTH_SM_CLOCK_MAX]
                                                            : a->sm_max_mhz;
}

bool sum_clk_row(struct sum_clk_gpu *g, const struct rd_health_row *r, double interval_s,
                 struct sum_clk_step *step)
{
    const double *v = r->v;
    g->rows++;
    for (int k = 0; k < HW_HEALTH_COUNT; k++) {
        if (isnan(v[k]))
            continue;
        if (isnan(g->first[k]))
            g->first[k] = v[k];
        g->last[k] = v[k];
        g->min[k] = isnan(g->min[k]) || v[k] < g->min[k] ? v[k] : g->min[k];
        g->max[k] = isnan(g->max[k]) || v[k] > g->max[k] ? v[k] : g->max[k];
    }
    /* the link below its maximum while the GPU works (idle GPUs lower it on purpose) */
    double gen = v[HW_HEALTH_PCIE_GEN], width = v[HW_HEALTH_PCIE_WIDTH];
    if (v[HW_HEALTH_UTIL] > 0 &&
        (gen < v[HW_HEALTH_PCIE_GEN_MAX] || width < v[HW_HEALTH_PCIE_WIDTH_MAX])) {
        g->link_below_loaded++;
        if (!(gen * 100 + width >= g->link_below_gen * 100 + g->link_below_width)) {
            g->link_below_gen = gen;
            g->link_below_width = width;
        }
    }
    sum_clk_sample(&g->acc, v);
    bool bridged = false;
    if (g->have_prev && r->t > g->prev_t) {
        double dt = r->t - g->prev_t;
        bridged = isnan(interval_s) || !rd_is_gap(dt, interval_s);
        if (bridged) {
            *step = (struct sum_clk_step){g->prev_t, r->t, g->prev_v, v};
            sum_clk_step_part(&g->acc, step, g->prev_t, r->t);
        }
    }
    return bridged;
}

void sum_clk_row_done(struct sum_clk_gpu *g, const struct rd_health_row *r)
{
    g->prev_t = r->t;
    memcpy(g->prev_v, r->v, sizeof g->prev_v);
    g->have_prev = true;
}

/* The bitmask's time of mask m over [x, y] (one half of a step). */
static void bits_over(struct sum_clk_acc *a, double m, double x, double y)
{
    if (!(y > x) || isnan(m))
        return;
    unsigned long long bits = (unsigned long long)m;
    double d = y - x;
    for (size_t i = 0; i < NREASON; i++)
        if (bits & reason[i].bit)
            a->bit[reason[i].clk] += d;
    if (bits & POWER_BITS)
        a->bit[SUM_CLK_POWER] += d;
    if (bits & THERMAL_BITS)
        a->bit[SUM_CLK_THERMAL] += d;
}

void sum_clk_step_part(struct sum_clk_acc *a, const struct sum_clk_step *s, double a0, double b0)
{
    double x = fmax(a0, s->t1), y = fmin(b0, s->t2), dt = s->t2 - s->t1;
    if (!(y > x) || !(dt > 0))
        return;
    double share = (y - x) / dt;
    a->covered_s += y - x;
    /* counters: the step's growth, evenly over the step */
    double power = 0, thermal = 0;
    bool have_power = false, have_thermal = false;
    for (size_t i = 0; i < NREASON; i++) {
        int c = reason[i].col;
        if (c < 0)
            continue;
        double d = (s->v2[c] - s->v1[c]) / 1e6;
        if (!(d >= 0)) /* not measured at one end, or the counter was reset */
            continue;
        d = fmin(d, dt); /* never more time than the step had */
        enum sum_clk k = reason[i].clk;
        a->cnt[k] += d * share;
        a->have_cnt[k] = true;
        if (k == SUM_CLK_SW_POWER || k == SUM_CLK_HW_POWER_BRAKE) {
            power += d;
            have_power = true;
        } else if (k == SUM_CLK_SW_THERMAL || k == SUM_CLK_HW_THERMAL) {
            thermal += d;
            have_thermal = true;
        }
    }
    if (have_power) {
        a->cnt[SUM_CLK_POWER] += fmin(power, dt) * share;
        a->have_cnt[SUM_CLK_POWER] = true;
    }
    if (have_thermal) {
        a->cnt[SUM_CLK_THERMAL] += fmin(thermal, dt) * share;
        a->have_cnt[SUM_CLK_THERMAL] = true;
    }
    /* the bitmask: each half of the step in the state of the row at its end */
    double m1 = s->v1[HW_HEALTH_REASONS], m2 = s->v2[HW_HEALTH_REASONS];
    if (!isnan(m1) && !isnan(m2)) {
        double mid = (s->t1 + s->t2) / 2;
        bits_over(a, m1, x, fmin(y, mid));
        bits_over(a, m2, fmax(x, mid), y);
        a->have_bit = true;
    }
}

void sum_clk_acc_merge(struct sum_clk_acc *d, const struct sum_clk_acc *a)
{
    for (int k = 0; k < SUM_CLK_COUNT; k++) {
        d->cnt[k] += a->cnt[k];
        d->bit[k] += a->bit[k];
        d->have_cnt[k] |= a->have_cnt[k];
    }
    d->have_bit |= a->have_bit;
    d->covered_s += a->covered_s;
    d->sm.sum += a->sm.sum;
    d->sm.n += a->sm.n;
    if (a->sm.n && a->sm.max > d->sm.max)
        d->sm.max = a->sm.max;
    if (!(a->sm_max_mhz <= d->sm_max_mhz) && isfinite(a->sm_max_mhz))
        d->sm_max_mhz = a->sm_max_mhz;
}

void sum_clk_figs(const struct sum_clk_acc *a, struct sum_clk_figs *o)
{
    bool any_cnt = false;
    for (int k = 0; k < SUM_CLK_COUNT; k++) {
        o->s[k] = a->have_cnt[k] ? a->cnt[k] : a->have_bit ? a->bit[k] : NAN;
        any_cnt |= a->have_cnt[k];
    }
    o->source = any_cnt ? "counters" : a->have_bit ? "bitmask" : NULL;
    o->covered_s = a->covered_s;
    /* (fmin would take 100 over a NAN: a share of nothing measured is none) */
    bool cov = a->covered_s > 0;
    o->power_pct = cov && !isnan(o->s[SUM_CLK_POWER])
                       ? fmin(100, 100 * o->s[SUM_CLK_POWER] / a->covered_s)
                       : NAN;
    o->thermal_pct = cov && !isnan(o->s[SUM_CLK_THERMAL])
                         ? fmin(100, 100 * o->s[SUM_CLK_THERMAL] / a->covered_s)
                         : NAN;
    o->sm_mean_mhz = a->sm.n ? a->sm.sum / (double)a->sm.n : NAN;
    o->sm_max_mhz = a->sm_max_mhz;
    o->sm_pct_of_max = a->sm_max_mhz > 0 ? 100 * o->sm_mean_mhz / a->sm_max_mhz : NAN;
}

const char *sum_clk_power_reading(const struct sum_clk_gpu *g, const char *field)
{
    if (!field)
        return NULL;
    if (!strcmp(field, "power.draw.instant"))
        return "instantaneous";
    if (!strcmp(field, "power.draw.average"))
        return "average_1s";
    if (!g)
        return NULL;
    if (isfinite(g->max[HW_HEALTH_POWER_AVERAGE]))
        return "average_1s";
    if (isfinite(g->max[HW_HEALTH_POWER_INSTANT]))
        return "instantaneous";
    return NULL;
}

int sum_clk_warnings(const struct sum_clk_gpu *g, int index, char (*buf)[SUM_HEALTH_WARN_LEN],
                     int cap)
{
    int n = 0;
#define SAY(...)                                                                                   \
    do {                                                                                           \
        if (n < cap)                                                                               \
            snprintf(buf[n++], sizeof buf[0], __VA_ARGS__);                                        \
    } while (0)
    double ecc_u = g->last[HW_HEALTH_ECC_UNCORRECTED] - g->first[HW_HEALTH_ECC_UNCORRECTED];
    double ecc_c = g->last[HW_HEALTH_ECC_CORRECTED] - g->first[HW_HEALTH_ECC_CORRECTED];
    if (ecc_u > 0)
        SAY("GPU %d: %.0f new uncorrected ECC error%s during the run", index, ecc_u,
            ecc_u == 1 ? "" : "s");
    if (ecc_c > 0)
        SAY("GPU %d: %.0f new corrected ECC error%s during the run", index, ecc_c,
            ecc_c == 1 ? "" : "s");
    if (g->max[HW_HEALTH_RETIRED_PENDING] > 0)
        SAY("GPU %d: a retired page is pending (a reset will retire it)", index);
    if (g->max[HW_HEALTH_REMAP_PENDING] > 0)
        SAY("GPU %d: a remapped row is pending (a reset will remap it)", index);
    if (g->max[HW_HEALTH_REMAP_FAILURE] > 0)
        SAY("GPU %d: a row remapping failed", index);
    if (g->min[HW_HEALTH_PCIE_GEN] < g->max[HW_HEALTH_PCIE_GEN] ||
        g->min[HW_HEALTH_PCIE_WIDTH] < g->max[HW_HEALTH_PCIE_WIDTH])
        SAY("GPU %d: the PCIe link changed during the run (gen %.0f to %.0f, x%.0f to x%.0f)",
            index, g->min[HW_HEALTH_PCIE_GEN], g->max[HW_HEALTH_PCIE_GEN],
            g->min[HW_HEALTH_PCIE_WIDTH], g->max[HW_HEALTH_PCIE_WIDTH]);
    if (g->link_below_loaded)
        SAY("GPU %d: the PCIe link ran below its maximum under load (gen %.0f x%.0f of gen %.0f "
            "x%.0f) in %llu sample%s",
            index, g->link_below_gen, g->link_below_width, g->max[HW_HEALTH_PCIE_GEN_MAX],
            g->max[HW_HEALTH_PCIE_WIDTH_MAX], (unsigned long long)g->link_below_loaded,
            g->link_below_loaded == 1 ? "" : "s");
#undef SAY
    return n;
}
