/* The energy rule: a GPU's power samples integrated over time. The one place energy is
 * integrated, and the one place a GPU's sample interval (which the gap rule needs) is decided:
 * summarize's summary (summarize/sink_gpu.c) and hwmon's Prometheus export (hwmon/prom.c) both
 * feed their rows through rd_energy_add, so their energy and gaps agree. */
#ifndef RD_ENERGY_H
#define RD_ENERGY_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "energy_rule.h"

/* A row taken after the interval is decided: a step from the last one, when it goes forward in
 * time, judged by the interval so far. */
static inline void rd_energy_take(struct rd_energy *e, double t, double p,
                                   rd_energy_step_fn *fn, void *ctx)
{
    if (!e->have_last) {
        e->have_last = true;
    } else {
        if (!(t > e->last_t))
            return; /* same or earlier time: not a step */
        bool bridged = rd_energy_step(e, e->last_t, e->last_p, t, p);
        if (fn)
            fn(ctx, e->last_t, e->last_p, t, p, bridged);
        if (e->nref < RD_ENERGY_REF)
            rd_energy_learn(e, t - e->last_t);
    }
    e->last_t = t;
    e->last_p = p;
}

/* One row of the GPU: time t (NAN: not a row of the curve), power p (NAN: not measured). The
 * first RD_ENERGY_WARM + 1 rows wait for the interval (hint: see rd_energy_decide); after
 * that each step goes through the rule in time order and fn (may be NULL) sees it. Inline: it
 * runs for every GPU row. */
static inline void rd_energy_add(struct rd_energy *e, double t, double p, double hint,
                                  rd_energy_step_fn *fn, void *ctx)
{
    if (t != t)
        return;
    if (e->nwarm >= 0) {
        e->warm_t[e->nwarm] = t;
        e->warm_p[e->nwarm] = p;
        if (++e->nwarm == RD_ENERGY_WARM + 1)
            rd_energy_decide(e, hint, fn, ctx);
        return;
    }
    rd_energy_take(e, t, p, fn, ctx);
}

/* The rows are over (or, for a live export, will not come): decide the interval from the rows
 * there are, if they still wait. */
static inline void rd_energy_finish(struct rd_energy *e, double hint, rd_energy_step_fn *fn,
                                     void *ctx)
{
    if (e->nwarm > 0)
        rd_energy_decide(e, hint, fn, ctx);
}

/* Whether the interval is decided (the energy so far is then final up to the last row). */
static inline bool rd_energy_decided(const struct rd_energy *e)
{
    return e->nwarm < 0;
}

/* A GPU's energy counter read by read (hw_energy.csv): its growth over the run. A value lower
 * than the one before (the driver reloaded) ends one span and starts another; a read earlier
 * than the one before counts nothing; an unreadable or negative one is not a read. The one
 * counting rule of summarize (summarize/ecount.h adds its update period) and the live state. */
struct rd_ecount {
    uint64_t rows;          /* reads with a value */
    uint64_t resets;        /* the counter went back */
    double mj;              /* its growth so far (mJ) */
    double prev_t, prev_mj; /* the previous read (NAN: none) */
};

static inline void rd_ecount_init(struct rd_ecount *c)
{
    *c = (struct rd_ecount){.prev_t = NAN, .prev_mj = NAN};
}

/* A read at t of mj. Returns the millijoules of the step it ends when the step counts (from
 * the previous read, at c->prev_t before the call), else NAN. */
static inline double rd_ecount_add(struct rd_ecount *c, double t, double mj)
{
    if (!isfinite(t) || !isfinite(mj) || mj < 0)
        return NAN;
    c->rows++;
    double step = NAN;
    if (!isnan(c->prev_mj) && t >= c->prev_t) {
        if (mj < c->prev_mj)
            c->resets++;
        else
            c->mj += step = mj - c->prev_mj;
    }
    c->prev_t = t;
    c->prev_mj = mj;
    return step;
}

/* A GPU's energy readings, in the order rd_energy_pick prefers them: its energy counter's growth
 * (hw_energy.csv), power.draw.instant integrated (hw_health.csv), power.draw integrated. */
enum rd_ereading { RD_ER_COUNTER, RD_ER_INSTANT, RD_ER_INTEGRATED, RD_ER_COUNT };
/* their names, as energy_source says them */
static const char *const rd_ereading_names[RD_ER_COUNT] = {"counter", "instant", "integrated"};
static inline const char *rd_ereading_name(enum rd_ereading k) /* NULL for RD_ER_COUNT: none */
{
    return k < RD_ER_COUNT ? rd_ereading_names[k] : NULL;
}

/* Which of a GPU's energy readings is its energy: the first of them it has (NAN: not had).
 * The one choice summarize, the live view and the Prometheus export make; returns the reading
 * (RD_ER_COUNT: none) and *wh (when not NULL) its value, NAN for none. */
static inline enum rd_ereading rd_energy_pick_of(const double v[RD_ER_COUNT], double *wh)
{
    int k = 0;
    while (k < RD_ER_COUNT && !isfinite(v[k]))
        k++;
    if (wh)
        *wh = k < RD_ER_COUNT ? v[k] : NAN;
    return (enum rd_ereading)k;
}

/* The same with the three apart; *source (when not NULL) gets rd_ereading_names' or NULL. */
static inline double rd_energy_pick(double counter, double instant, double integrated,
                                    const char **source)
{
    const double v[RD_ER_COUNT] = {counter, instant, integrated};
    double wh;
    enum rd_ereading k = rd_energy_pick_of(v, &wh);
    if (source)
        *source = rd_ereading_name(k);
    return wh;
}

#endif
