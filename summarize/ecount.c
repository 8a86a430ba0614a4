/* A GPU's energy counter (ecount.h). */
#include "ecount.h"

#include <math.h>
#include <string.h>

void sum_ecount_init(struct sum_ecount *e)
{
    memset(e, 0, sizeof *e);
    e->first_t = e->last_t = e->prev_t = e->prev_mj = e->moved_t = NAN;
}

void sum_ecount_free(struct sum_ecount *e)
{
    sum_stat_free(&e->period);
}

bool sum_ecount_add(struct sum_ecount *e, double t, double mj, struct sum_ecount_step *step)
{
    if (!isfinite(t) || !isfinite(mj) || mj < 0)
        return false;
    e->rows++;
    if (isnan(e->first_t))
        e->first_t = t;
    e->last_t = t;
    bool counts = false;
    if (!isnan(e->prev_mj) && t >= e->prev_t) {
        if (mj < e->prev_mj) {
            e->resets++; /* the driver reloaded: a new span begins here */
        } else {
            *step = (struct sum_ecount_step){e->prev_t, t, mj - e->prev_mj};
            e->mj += mj - e->prev_mj;
            counts = true;
            if (mj > e->prev_mj) {
                if (!isnan(e->moved_t) && t > e->moved_t)
                    sum_stat_add(&e->period, t - e->moved_t);
                e->moved_t = t;
            }
        }
    }
    e->prev_t = t;
    e->prev_mj = mj;
    return counts;
}

double sum_ecount_part(const struct sum_ecount_step *s, double a, double b)
{
    double x = fmax(a, s->t1), y = fmin(b, s->t2);
    if (!(y > x))
        return 0;
    if (!(s->t2 > s->t1))
        return s->mj; /* two reads at one time: all of it, once */
    return s->mj * (y - x) / (s->t2 - s->t1);
}

double sum_ecount_wh(const struct sum_ecount *e)
{
    return e->rows >= 2 ? e->mj / 3.6e6 : NAN;
}

double sum_ecount_period(const struct sum_ecount *e)
{
    return e->period.n ? sum_stat_quantile(&e->period, 0.5) : NAN;
}

bool sum_ecount_phase_ok(const struct sum_ecount *e, double seconds)
{
    double p = sum_ecount_period(e);
    return isfinite(p) && seconds >= 2 * p;
}
