/* The energy rule: a GPU's power samples integrated over time. The one place energy is
 * integrated: summarize's summary (summarize/summary.c) and hwmon's Prometheus export
 * (hwmon/prom.c) both step through it. */
#ifndef SUM_ENERGY_H
#define SUM_ENERGY_H

#include <stdbool.h>
#include <stdint.h>

#define SUM_GAP_FACTOR 3.0    /* a step longer than 3 sample intervals is a gap */

/* Power integrated over time: trapezoids between consecutive samples of one GPU. */
struct sum_energy {
    double joules;
    double covered_s;       /* time covered by bridged steps */
    uint64_t gaps;          /* steps longer than SUM_GAP_FACTOR intervals: not bridged (the
                             * file's gap count too: counted whether power was measured or not) */
    double gap_s;
    uint64_t unmeasured;    /* steps (not gaps) with power not measured at one end */
    double interval_s;      /* the sample interval used for the gap rule */
    bool interval_from_rows; /* interval_s is the rows' median step (else the start event's) */
};

/* The gap rule: a step of dt seconds is a gap when longer than SUM_GAP_FACTOR sample intervals
 * (false when the interval is unknown). The energy rule and every output (the HTML report's
 * line breaks) use it. */
bool sum_is_gap(double dt, double interval_s);

/* One step of a GPU's power curve, from (t0, p0) to (t1, p1) seconds/watts, under the energy
 * rule: a trapezoid, except across a gap longer than SUM_GAP_FACTOR * e->interval_s or where
 * power was not measured at one end. Adds the joules and the counters to e; returns whether the
 * step was bridged. A step that does not go forward in time is ignored (false). */
bool sum_energy_step(struct sum_energy *e, double t0, double p0, double t1, double p1);

#endif
