/* Running statistics in bounded memory: count, sum (plain left-to-right double addition),
 * min, max, and quantiles.
 *
 * Quantiles are exact while a series has at most SUM_QUANT_EXACT distinct values (nvidia-smi
 * prints integers for most fields, so a whole run usually stays exact): values are kept as
 * (value, count) pairs. Beyond that the series moves to log-linear buckets (128 per power of
 * two, as HdrHistogram), and each rank's value is then within SUM_QUANT_ALPHA (1/256, 0.4%)
 * relative error of the exact one; memory is bounded by the range of magnitudes (at most about
 * 1 MiB for values from 1e-9 to 1e308, a few KiB for real data). Quantiles interpolate linearly
 * between closest ranks (numpy's default, "linear"). */
#ifndef SUM_STATS_H
#define SUM_STATS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats_core.h"

/* Add a finite value (NaN is ignored: "not measured"). Inline: it runs for every cell. */
static inline void sum_stat_add(struct sum_stat *s, double v)
{
    /* NaN never compares equal; min/max already cover v. The value first: most misses (a zeroed
     * series has hot_v 0.0 but no cell) then cost one compare. */
    if (v == s->hot_v && s->hot) {
        s->sum += v;
        s->last = v;
        s->n++;
        ++*s->hot;
        return;
    }
    if (v != v)
        return;
    if (s->n == 0) {
        s->min = s->max = s->first = v;
        s->sum = 0;
    } else {
        s->min = v < s->min ? v : s->min;
        s->max = v > s->max ? v : s->max;
    }
    s->sum += v;
    s->last = v;
    s->n++;
    if (!s->no_quant)
        sum_stat_quant_add(s, v);
}
/* A series of which only the count, the sum and the maximum are wanted (means and maxima over
 * every GPU): set up by sum_stat_init_mean_max (max starts at -inf, so an add needs no test of
 * n), fed by sum_stat_add_mean_max. The same n, sum and max as sum_stat_add, nothing else: min,
 * first and last are NAN, no quantiles. */
static inline void sum_stat_init_mean_max(struct sum_stat *s)
{
    *s = (struct sum_stat){
        .min = NAN, .max = -INFINITY, .first = NAN, .last = NAN, .no_quant = true};
}
static inline void sum_stat_add_mean_max(struct sum_stat *s, double v)
{
    if (v != v)
        return;
    if (v > s->max) /* the first of equal maxima stays, as in sum_stat_add (-0.0 vs 0.0) */
        s->max = v;
    s->sum += v;
    s->n++;
}
/* A value that stands for w seconds (a row's part of a phase: its CPU over the time it shares
 * with the phase): the mean weighs by w. Only for series without quantiles (no_quant), and never
 * mixed with sum_stat_add on one series. w <= 0 or NaN v: nothing. */
static inline void sum_stat_add_w(struct sum_stat *s, double v, double w)
{
    if (v != v || !(w > 0))
        return;
    if (s->n == 0) {
        s->min = s->max = s->first = v;
        s->sum = s->wsum = 0;
    } else {
        s->min = v < s->min ? v : s->min;
        s->max = v > s->max ? v : s->max;
    }
    s->sum += v * w;
    s->wsum += w;
    s->last = v;
    s->n++;
}
/* A gauge reading that stands for w seconds, with its quantiles (of the readings, one each):
 * the mean weighs by w, min and max are over the readings. Never mixed with sum_stat_add on one
 * series. w <= 0 or NaN v: nothing. */
static inline void sum_stat_add_wq(struct sum_stat *s, double v, double w)
{
    if (v != v || !(w > 0))
        return;
    sum_stat_add_w(s, v, w);
    if (!s->no_quant)
        sum_stat_quant_add(s, v);
}

#endif
