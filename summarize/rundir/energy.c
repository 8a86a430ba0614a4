/* The energy rule (energy.h): trapezoids between consecutive power samples of one GPU, not
 * bridged across a gap or an unmeasured end. */
#include "energy.h"

#include <math.h>

bool sum_is_gap(double dt, double interval_s)
{
    return dt > SUM_GAP_FACTOR * interval_s;
}

bool sum_energy_step(struct sum_energy *e, double t0, double p0, double t1, double p1)
{
    double dt = t1 - t0;
    if (!(dt > 0))
        return false;
    if (sum_is_gap(dt, e->interval_s)) { /* a hole in the rows, power measured or not */
        e->gaps++;
        e->gap_s += dt;
        return false;
    }
    if (isnan(p0) || isnan(p1)) {
        e->unmeasured++;
        return false;
    }
    e->joules += (p0 + p1) / 2.0 * dt;
    e->covered_s += dt;
    return true;
}
