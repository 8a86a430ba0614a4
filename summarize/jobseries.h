/* One run's GPUs together over time, kept for a job of many nodes (jobsum.h): the job's peak
 * memory and power are taken on the sum of its nodes' series at the same time since each
 * node's own start, not as the sum of each node's peak at its own moment.
 *
 * Fed with every GPU together at one instant (together.h's instants: one loop of nvidia-smi),
 * kept in up to SUM_JSER_BINS time bins anchored at the run's start (its start event, else its
 * first instant), SUM_JSER_BASE_S wide at first; when an instant falls beyond the last bin the
 * width doubles and neighbours merge, so memory is bounded (256 KiB a run, touched only as far
 * as the run went; sum_jser_compact gives back the rest) whatever the run's length: 1/16 s bins
 * up to 8.5 min, 1 s bins up to 2.2 h, 16 s bins for 24 h. A bin keeps the instants with the most
 * GPUs it saw (one with a GPU's row missing is not the whole node): the most memory of any of
 * them, and their mean power. */
#ifndef SUM_JOBSERIES_H
#define SUM_JOBSERIES_H

#include <stdbool.h>
#include <stdint.h>

#define SUM_JSER_BINS 8192
#define SUM_JSER_BASE_S 0.0625
#define SUM_JSER_MAX_S 1e8 /* an instant further from the start (a bad clock) is not placed */

struct sum_jser_bin {
    double mem_max;   /* MiB, every GPU of the instant together */
    double power_sum; /* W, over the instants that measured it */
    uint32_t n_mem, n_power;
    uint32_t k; /* GPUs of its instants (0: empty) */
};

struct sum_jseries {
    double anchor; /* the run's start (NAN until known) */
    double width;  /* seconds per bin */
    int hi;        /* the highest bin used (-1: none) */
    int cap;       /* bins allocated */
    uint64_t dropped; /* instants too far from the start */
    struct sum_jser_bin *bin;
};

/* A new, empty series (free with sum_jser_free); NULL on ENOMEM. */
struct sum_jseries *sum_jser_new(void);
void sum_jser_free(struct sum_jseries *s); /* accepts NULL */
/* The run's start (its start event), before any instant: bin 0 begins there. */
void sum_jser_anchor(struct sum_jseries *s, double t);
/* An instant at t of k GPUs: their memory used and power summed (NAN: one of the GPUs did not
 * measure it). */
void sum_jser_add(struct sum_jseries *s, double t, int k, double mem, double power);
/* The run is over: give back the bins beyond the last used. */
void sum_jser_compact(struct sum_jseries *s);
/* Merge bins so that each is width seconds wide (a power of two times s->width). */
void sum_jser_widen(struct sum_jseries *s, double width);
/* Bin b's mean power (NAN: none). */
double sum_jser_power(const struct sum_jser_bin *b);

#endif
