/* Every GPU together at one instant (together.h). */
#include "together.h"

#include <math.h>
#include <string.h>

void sum_together_init(struct sum_together *t)
{
    memset(t, 0, sizeof *t);
    t->mem_ok = t->total_ok = t->util_ok = t->power_ok = true;
}

static void close_instant(struct sum_together *t)
{
    if (!t->k)
        return;
    if (t->series)
        sum_jser_add(t->series, t->t0, t->k, t->mem_ok ? t->mem : NAN,
                     t->power_ok ? t->power : NAN);
    struct sum_together_k *b = &t->by[t->k];
    b->n++;
    if (t->mem_ok) {
        if (!b->n_mem || t->mem > b->mem_max) {
            b->mem_max = t->mem;
            b->total_at_mem_max = t->total_ok ? t->total : NAN;
        }
        b->n_mem++;
    }
    if (t->total_ok && t->total > b->total_max)
        b->total_max = t->total;
    if (t->util_ok) {
        if (!b->n_util || t->util > b->util_max)
            b->util_max = t->util;
        b->util_sum += t->util;
        b->busy_sum += t->busy;
        if (t->busy > b->busy_max)
            b->busy_max = t->busy;
        b->n_util++;
    }
    memset(t->seen, 0, sizeof t->seen);
    t->k = 0;
    t->mem = t->total = t->util = t->power = 0;
    t->mem_ok = t->total_ok = t->util_ok = t->power_ok = true;
    t->busy = 0;
}

void sum_together_row(struct sum_together *t, int gpu, double tm, const double *v)
{
    if (gpu < 0 || gpu >= RD_MAX_GPUS)
        return;
    uint64_t bit = 1ull << (gpu % 64);
    if (t->seen[gpu / 64] & bit) /* this GPU again: the loop's next instant */
        close_instant(t);
    t->seen[gpu / 64] |= bit;
    if (!t->k++)
        t->t0 = tm;
    double mem = v[HW_GM_MEM_USED], total = v[HW_GM_MEM_TOTAL], util = v[HW_GM_UTIL];
    double power = v[HW_GM_POWER];
    t->power_ok &= isfinite(power);
    if (t->power_ok)
        t->power += power;
    t->mem_ok &= isfinite(mem);
    t->total_ok &= isfinite(total);
    t->util_ok &= isfinite(util);
    if (t->mem_ok)
        t->mem += mem;
    if (t->total_ok)
        t->total += total;
    if (t->util_ok) {
        t->util += util;
        t->busy += util > 0;
    }
}

void sum_together_finish(struct sum_together *t)
{
    close_instant(t);
}

void sum_together_figs(const struct sum_together *t, struct sum_together_figs *o)
{
    *o = (struct sum_together_figs){0, 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    int k = RD_MAX_GPUS;
    while (k > 0 && !t->by[k].n)
        k--;
    if (!k)
        return;
    const struct sum_together_k *b = &t->by[k];
    o->instants = b->n;
    o->gpus = k;
    if (b->n_mem) {
        o->mem_used_peak_mib = b->mem_max;
        o->mem_total_mib = isfinite(b->total_at_mem_max) ? b->total_at_mem_max : NAN;
    }
    if (!isfinite(o->mem_total_mib) && b->total_max > 0)
        o->mem_total_mib = b->total_max;
    if (b->n_util) {
        o->util_sum_peak_pct = b->util_max;
        o->util_sum_mean_pct = b->util_sum / (double)b->n_util;
        o->util_avg_peak_pct = b->util_max / k;
        o->util_avg_mean_pct = o->util_sum_mean_pct / k;
        o->busy_gpus_max = b->busy_max;
        o->busy_gpus_mean = b->busy_sum / (double)b->n_util;
    }
}
