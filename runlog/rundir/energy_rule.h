/* The energy rule itself (energy.c's part): a curve's state, the gap rule, one step, and how
 * the interval is decided. energy.h feeds rows through it inline, above energy.c (which uses
 * only what is here); users include energy.h. */
#ifndef RD_ENERGY_RULE_H
#define RD_ENERGY_RULE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RD_GAP_FACTOR 3.0 /* a step longer than 3 sample intervals is a gap */
/* The gap rule's interval, decided as the rows come (a live export and summarize judge every
 * step alike, and the export has a counter from a GPU's first row): a GPU's first
 * RD_ENERGY_WARM steps wait and are judged together by their median; each later step by the
 * median of the steps before it, until RD_ENERGY_REF steps are in: their median is the GPU's
 * interval from then on. */
#define RD_ENERGY_WARM 3
#define RD_ENERGY_REF 16

/* Power integrated over time: trapezoids between consecutive samples of one GPU. */
struct rd_energy {
    double joules;
    double covered_s;        /* time covered by bridged steps */
    uint64_t gaps;           /* steps longer than RD_GAP_FACTOR intervals: not bridged (the
                              * file's gap count too: counted whether power was measured or not) */
    double gap_s;
    uint64_t unmeasured;     /* steps (not gaps) with power not measured at one end */
    double interval_s;       /* the sample interval of the gap rule; NAN until decided */
    bool interval_from_rows; /* interval_s is the rows' median step (else the start event's) */
    /* the curve so far (rd_energy_add): the last sample, and the first rows while they wait
     * for the interval */
    bool have_last;
    double last_t, last_p;
    int nwarm; /* rows waiting; -1 once the interval is decided */
    double warm_t[RD_ENERGY_WARM + 1], warm_p[RD_ENERGY_WARM + 1];
    int nref;                    /* steps in ref, sorted: the first RD_ENERGY_REF */
    double ref[RD_ENERGY_REF];
};

/* A curve with no rows yet, as rd_energy_add needs it. */
void rd_energy_init(struct rd_energy *e);

/* The gap rule: a step of dt seconds is a gap when longer than RD_GAP_FACTOR sample intervals
 * (false when the interval is unknown). The energy rule and every output (the HTML report's
 * line breaks) use it. */
static inline bool rd_is_gap(double dt, double interval_s)
{
    return dt > RD_GAP_FACTOR * interval_s;
}

/* The joules of a bridged step: power interpolated linearly from (t0, p0) to (t1, p1). */
static inline double rd_energy_trapezoid(double t0, double p0, double t1, double p1)
{
    return (p0 + p1) / 2.0 * (t1 - t0);
}

/* One step of a GPU's power curve, from (t0, p0) to (t1, p1) seconds/watts, under the energy
 * rule: a trapezoid, except across a gap longer than RD_GAP_FACTOR * e->interval_s or where
 * power was not measured at one end. Adds the joules and the counters to e; returns whether the
 * step was bridged. A step that does not go forward in time is ignored (false). Inline: it
 * runs for every GPU row. */
static inline bool rd_energy_step(struct rd_energy *e, double t0, double p0, double t1,
                                   double p1)
{
    double dt = t1 - t0;
    if (!(dt > 0))
        return false;
    if (rd_is_gap(dt, e->interval_s)) { /* a hole in the rows, power measured or not */
        e->gaps++;
        e->gap_s += dt;
        return false;
    }
    if (p0 != p0 || p1 != p1) { /* power not measured at one end */
        e->unmeasured++;
        return false;
    }
    e->joules += rd_energy_trapezoid(t0, p0, t1, p1);
    e->covered_s += dt;
    return true;
}

/* What sees each step of a curve, as the rule took it (bridged: its energy was counted). */
typedef void rd_energy_step_fn(void *ctx, double t0, double p0, double t1, double p1,
                                bool bridged);

/* Decide the interval from the rows waiting, judge their steps by it and take them
 * (rd_energy_add's slow part). The interval is the median of their steps: what nvidia-smi
 * really did (a user's -l, a loaded machine or many GPUs make it differ from what hwmon asked);
 * with fewer than two rows, hint (the start event's interval_s), else INFINITY (nothing is a
 * gap). */
void rd_energy_decide(struct rd_energy *e, double hint, rd_energy_step_fn *fn, void *ctx);

/* A step of dt seconds joins the reference steps (while fewer than RD_ENERGY_REF) and the
 * interval becomes their median (rd_energy_take's slow part). */
void rd_energy_learn(struct rd_energy *e, double dt);

#endif
