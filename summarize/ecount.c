/* A GPU's energy counter (ecount.h). */
#include "ecount.h"

#include <math.h>
#include <string.h>

void sum_ecount_init(struct sum_ecount *e)
{
    memset(e, 0, sizeof *e);
    rd_ecount_init(&e->c);
    e->first_t = e->last_t = e->moved_t = NAN;
}

void sum_ecount_free(struct sum_ecount *e)
{
    sum_stat_free(&e->period);
}

bool sum_ecount_add(struct sum_ecount *e, double t, double mj, struct sum_ecount_step *step)
{
    uint64_t rows = e->c.rows;
    double t1 = e->c.prev_t, grew = rd_ecount_add(&e->c, t, mj);
    if (e->c.rows == rows) /* not a read */
        return false;
    if (isnan(e->first_t))
        e->first_t = t;
    e->last_t = t;
    if (isnan(grew))
        return false;
    *step = (struct sum_ecount_step){t1, t, grew};
    if (grew > 0) { /* it moved: the time since it last moved is one period */
        if (!isnan(e->moved_t) && t > e->moved_t)
            sum_stat_add(&e->period, t - e->moved_t);
        e->moved_t = t;
    }
    return true;
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
    return e->c.rows >= 2 ? e->c.mj / 3.6e6 : NAN;
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
