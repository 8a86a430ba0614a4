/* A GPU's energy counter (hw_energy.csv: NVML's millijoules since the driver loaded), beside the
 * energy integrated from its power readings (energy.h). The counter's growth between two reads
 * is the energy between them, exactly, whatever the power did and however long apart they are;
 * a value lower than the one before (the driver reloaded) ends one span and starts another. A
 * window's share of a step is taken in proportion to the time (the edge samples hwmon takes at
 * phase boundaries make those steps short).
 *
 * The counter moves in steps of its own (NVML does not say how often; other tools report 20 to
 * 100 ms): update_period_s is the median time between the reads where it had moved, an upper
 * bound of its period when reads are further apart than that. A phase shorter than twice it
 * gets its energy from the integrated power instead (sum_ecount_phase_ok). */
#ifndef SUM_ECOUNT_H
#define SUM_ECOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "energy.h" /* rd_ecount: the counting rule the live state shares */
#include "stats.h"

struct sum_ecount {
    struct rd_ecount c;     /* reads, resets, growth (mJ), the previous read */
    double first_t, last_t;
    double moved_t;         /* the last read where it had moved (NAN: none) */
    struct sum_stat period; /* times between moves */
};

/* One counter step (t1, mj1) -> (t2, mj2) that counts (the counter did not go back). */
struct sum_ecount_step {
    double t1, t2, mj;
};

void sum_ecount_init(struct sum_ecount *e);
void sum_ecount_free(struct sum_ecount *e);
/* A read at t of mj (NAN: not read). Returns true with *step set when it ends a step that
 * counts. */
bool sum_ecount_add(struct sum_ecount *e, double t, double mj, struct sum_ecount_step *step);
/* Millijoules of step s inside [a, b]. */
double sum_ecount_part(const struct sum_ecount_step *s, double a, double b);
/* The run's counter energy in Wh (NAN: fewer than two reads). */
double sum_ecount_wh(const struct sum_ecount *e);
/* The counter's update period as seen (NAN: it never moved twice). */
double sum_ecount_period(const struct sum_ecount *e);
/* Can a window of seconds take its energy from the counter? */
bool sum_ecount_phase_ok(const struct sum_ecount *e, double seconds);

#endif
