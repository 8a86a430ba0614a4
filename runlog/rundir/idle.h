/* A GPU's idle time, followed row by row: the one rule that summarize's verdicts (gpu_idle,
 * energy_idle) and the live view's "idle for N minutes now" share. A step (previous row, row]
 * is idle when the row's utilization is at or below a threshold; a gap (energy.h's rule) or an
 * unmeasured utilization is neither idle nor busy and ends a stretch. */
#ifndef RD_IDLE_H
#define RD_IDLE_H

#include <stdint.h>

struct rd_idle {
    double prev_t, prev_p;
    uint64_t rows, idle_rows;  /* rows with utilization measured; of them idle */
    double measured_s, idle_s; /* steps with utilization measured; of them idle */
    double idle_j, power_j;    /* power integrated over the idle steps; over every such step */
    double run_t0, run_t1;     /* the idle stretch going on (run_t0 NAN: none) */
    double best_t0, best_t1;   /* the longest stretch ended (NAN: none) */
};
void rd_idle_init(struct rd_idle *s);
/* A row at time t (NAN: not a row) with its utilization and power (NAN: not measured);
 * interval_s: the gap rule's (NAN: every step bridged); idle_pct: the threshold. */
void rd_idle_row(struct rd_idle *s, double t, double util, double power, double interval_s,
                 double idle_pct);
/* The rows are over: the stretch going on ends, and counts for the longest. */
void rd_idle_finish(struct rd_idle *s);

#endif
