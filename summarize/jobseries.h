/* One run's GPUs together over time, kept for a job of many nodes (jobsum.h): the job's peak
 * memory and power are taken on the sum of its nodes' series at the same time since each
 * node's own start, not as the sum of each node's peak at its own moment.
 *
 * Fed with every GPU together at one instant (together.h's instants: one loop of nvidia-smi),
 * kept in SUM_JSER_BINS time bins anchored at the run's start (its start event, else its first
 * instant), SUM_JSER_BASE_S wide at first; when an instant falls beyond the last bin the width
 * doubles and neighbours merge, so memory stays constant (about 300 KiB a run) whatever the
 * run's length: 1/16 s bins up to 8.5 min, 16 s bins for 24 h. A bin keeps the instants with
 * the most GPUs it saw (one with a GPU's row missing is not the whole node): the most memory
 * of any of them, and the mean power and utilization. */
#ifndef SUM_JOBSERIES_H
#define SUM_JOBSERIES_H

#include <stdbool.h>
#include <stdint.h>

#define SUM_JSER_BINS 8192
#define SUM_JSER_BASE_S 0.0625
#define SUM_JSER_MAX_S 1e8 /* an instant further from the start (a bad clock) is not placed */

struct sum_jser_bin {
    double mem_max;          /* MiB, every GPU of the instant together */
    double power_sum, util_sum; /* over the instants that measured them */
    uint32_t n_mem, n_power, n_util;
    uint16_t k; /* GPUs of its instants (0: empty) */
};

struct sum_jseries {
    double anchor; /* the run's start (NAN until known) */
    double width;  /* seconds per bin */
    int hi;        /* the highest bin used (-1: none) */
    uint64_t dropped; /* instants too far from the start */
    struct sum_jser_bin bin[SUM_JSER_BINS];
};

void sum_jser_init(struct sum_jseries *s);
/* The run's start (its start event), before any instant: bin 0 begins there. */
void sum_jser_anchor(struct sum_jseries *s, double t);
/* An instant at t of k GPUs: their memory used, power and utilization summed (NAN: one of the
 * GPUs did not measure it). */
void sum_jser_add(struct sum_jseries *s, double t, int k, double mem, double power, double util);
/* Merge bins so that each is width seconds wide (a power of two times s->width). */
void sum_jser_widen(struct sum_jseries *s, double width);
/* Bin b's mean power and utilization (NAN: none). */
double sum_jser_power(const struct sum_jser_bin *b);
double sum_jser_util(const struct sum_jser_bin *b);

#endif
