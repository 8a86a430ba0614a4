/* Every GPU together at one instant, as gpu_tracker and resource-tracker report them: the
 * memory in use on all GPUs at once (not one GPU's peak), the utilization summed over the GPUs
 * and as their average, how many GPUs were busy. nvidia-smi's query prints one row per GPU per
 * loop: the rows of one loop are one instant, which ends when a GPU's row comes again. Only
 * instants with every GPU (the most GPUs any instant had) count, so a dropped row never passes
 * for a GPU at 0; a metric unmeasured on one GPU leaves that instant out of that metric. Constant
 * memory, one pass. */
#ifndef SUM_TOGETHER_H
#define SUM_TOGETHER_H

#include <stdbool.h>
#include <stdint.h>

#include "jobseries.h"
#include "readers.h" /* HW_GPU_FIG_COUNT, RD_MAX_GPUS */

/* The instants with k GPUs: n, and per metric how many had it and its max and sum. */
struct sum_together_k {
    uint64_t n;
    uint64_t n_mem, n_util;
    double mem_max, total_at_mem_max, util_max, util_sum, busy_sum, busy_max, total_max;
};

struct sum_together {
    /* the instant being filled */
    int k;
    uint64_t seen[RD_MAX_GPUS / 64];
    double t0; /* its first row's time */
    double mem, total, util, power;
    bool mem_ok, total_ok, util_ok, power_ok;
    int busy;
    struct sum_together_k by[RD_MAX_GPUS + 1];
    struct sum_jseries *series; /* NULL, or every instant goes there too (a job's node) */
};

/* What summarize reports (NAN: not measured; instants 0: none with every GPU). */
struct sum_together_figs {
    uint64_t instants; /* with every GPU */
    int gpus;          /* GPUs in such an instant */
    double mem_used_peak_mib;  /* the most memory in use on all GPUs at once */
    double mem_total_mib;      /* their capacity together */
    double util_sum_peak_pct;  /* utilization summed over the GPUs: 0 to 100 * gpus */
    double util_sum_mean_pct;
    double util_avg_peak_pct;  /* the same divided by the GPUs: 0 to 100 */
    double util_avg_mean_pct;
    double busy_gpus_max;      /* GPUs with utilization above 0 */
    double busy_gpus_mean;
};

void sum_together_init(struct sum_together *t);
/* One row of GPU gpu (0 to RD_MAX_GPUS - 1) at time tm with hw_metrics.csv's values v. */
void sum_together_row(struct sum_together *t, int gpu, double tm, const double *v);
/* The rows are over: the last instant counts. */
void sum_together_finish(struct sum_together *t);
void sum_together_figs(const struct sum_together *t, struct sum_together_figs *out);

#endif
