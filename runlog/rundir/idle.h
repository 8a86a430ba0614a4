/* A GPU's idle time, followed row by row: the one rule that summarize's verdicts (gpu_idle,
 * energy_idle) and the live view's "idle for N minutes now" share. A step (previous row, row]
 * is idle when the row's utilization is at or below a threshold; a gap (energy.h's rule) or an
 * unmeasured utilization is neither idle nor busy and ends a stretch. */
#ifndef RD_IDLE_H
#define RD_IDLE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "energy.h"

struct rd_idle {
    double prev_t, prev_p;
    uint64_t rows, idle_rows;  /* rows with utilization measured; of them idle */
    double measured_s, idle_s; /* steps with utilization measured; of them idle */
    double idle_j, power_j;    /* power integrated over the idle steps; over every such step */
    double run_t0, run_t1;     /* the idle stretch going on (run_t0 NAN: none) */
    double best_t0, best_t1;   /* the longest stretch ended (NAN: none) */
};
void rd_idle_init(struct rd_idle *s);
/* The rows are over: the stretch going on ends, and counts for the longest. */
void rd_idle_finish(struct rd_idle *s);

/* The stretch going on ends (and counts for the longest). */
static inline void rd_idle_close(struct rd_idle *s)
{
    if (isnan(s->run_t0))
        return;
    if (isnan(s->best_t0) || s->run_t1 - s->run_t0 > s->best_t1 - s->best_t0)
        s->best_t0 = s->run_t0, s->best_t1 = s->run_t1;
    s->run_t0 = s->run_t1 = NAN;
}

/* A row at time t (NAN: not a row) with its utilization and power (NAN: not measured);
 * interval_s: the gap rule's (NAN: every step bridged); idle_pct: the threshold. Inline: it
 * runs for every GPU row. */
static inline void rd_idle_row(struct rd_idle *s, double t, double util, double power,
                               double interval_s, double idle_pct)
{
    if (isnan(t) || !(isnan(s->prev_t) || t > s->prev_t))
        return; /* not a row of the series, or not forward in time */
    bool measured = !isnan(util), idle = measured && util <= idle_pct;
    if (measured) {
        s->rows++;
        s->idle_rows += idle;
    }
    if (!isnan(s->prev_t)) {
        double dt = t - s->prev_t;
        if (rd_is_gap(dt, interval_s) || !measured) {
            rd_idle_close(s); /* unmeasured: neither idle nor busy */
        } else {
            s->measured_s += dt;
            bool powered = !isnan(power) && !isnan(s->prev_p);
            double j = powered ? rd_energy_trapezoid(s->prev_t, s->prev_p, t, power) : 0;
            s->power_j += j;
            if (idle) {
                s->idle_s += dt;
                s->idle_j += j;
                if (isnan(s->run_t0))
                    s->run_t0 = s->prev_t;
                s->run_t1 = t;
            } else {
                rd_idle_close(s);
            }
        }
    }
    s->prev_t = t;
    s->prev_p = power;
}



#endif
