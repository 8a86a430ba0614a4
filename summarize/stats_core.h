/* The running statistics' store (stats.c): struct sum_stat and what stats.c does with it.
 * stats.h adds the inline adders every cell runs, above stats.c (which uses none of them);
 * users include stats.h. */
#ifndef SUM_STATS_CORE_H
#define SUM_STATS_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SUM_QUANT_EXACT 1024
#define SUM_QUANT_ALPHA (1.0 / 256)

struct sum_quant;

struct sum_stat {
    uint64_t n;
    double sum, min, max;
    double wsum; /* the weights of sum_stat_add_w (0: an unweighted series) */
    double first, last; /* first and last value added */
    struct sum_quant *q; /* NULL until needed (or when quantiles are not wanted) */
    bool no_quant;       /* set to skip quantiles for this series (also set with oom) */
    bool oom;            /* quantiles were lost for lack of memory */
    /* The count cell of the last value added (exact slot or sketch bucket) and that value:
     * consecutive samples of a series often repeat, and then an add is four stores inline.
     * NULL when the next add must take the full path (set no_quant before the first add). */
    uint64_t *hot;
    double hot_v;
};

/* Count v (not NaN) in the quantiles of s; sets s->hot. */
void sum_stat_quant_add(struct sum_stat *s, double v);

double sum_stat_mean(const struct sum_stat *s); /* NAN when empty; weighted if sum_stat_add_w */
/* q in [0, 1]; NAN when empty or quantiles unavailable. */
double sum_stat_quantile(const struct sum_stat *s, double q);
/* Values strictly above x (exact in exact mode, else approximate). */
uint64_t sum_stat_count_above(const struct sum_stat *s, double x);
/* Whether the quantiles of s are exact. */
bool sum_stat_exact(const struct sum_stat *s);
void sum_stat_free(struct sum_stat *s);

#endif
