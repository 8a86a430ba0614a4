/* A GPU's idle time, row by row: see idle.h. */
#include "idle.h"

#include <math.h>
#include <stdbool.h>

#include "energy.h"

void rd_idle_init(struct rd_idle *s)
{
    *s = (struct rd_idle){.prev_t = NAN, .prev_p = NAN, .run_t0 = NAN, .run_t1 = NAN,
                          .best_t0 = NAN, .best_t1 = NAN};
}

static void idle_close(struct rd_idle *s)
{
    if (isnan(s->run_t0))
        return;
    if (isnan(s->best_t0) || s->run_t1 - s->run_t0 > s->best_t1 - s->best_t0)
        s->best_t0 = s->run_t0, s->best_t1 = s->run_t1;
    s->run_t0 = s->run_t1 = NAN;
}

void rd_idle_row(struct rd_idle *s, double t, double util, double power, double interval_s,
                 double idle_pct)
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
            idle_close(s); /* unmeasured: neither idle nor busy */
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
                idle_close(s);
            }
        }
    }
    s->prev_t = t;
    s->prev_p = power;
}

void rd_idle_finish(struct rd_idle *s)
{
    idle_close(s);
}

