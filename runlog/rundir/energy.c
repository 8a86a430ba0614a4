/* The energy rule (energy.h): trapezoids between consecutive power samples of one GPU, not
 * bridged across a gap or an unmeasured end, with the gap rule's interval decided from the
 * GPU's steps as they come (energy.h). */
#include "energy_rule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rd_energy_init(struct rd_energy *e)
{
    memset(e, 0, sizeof *e);
    e->interval_s = NAN;
    e->last_t = e->last_p = NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static double median(const double *sorted, int n)
{
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

void rd_energy_learn(struct rd_energy *e, double dt)
{
    if (!(dt > 0) || e->nref >= RD_ENERGY_REF)
        return;
    int i = e->nref++;
    for (; i > 0 && e->ref[i - 1] > dt; i--) /* insertion: ref stays sorted */
        e->ref[i] = e->ref[i - 1];
    e->ref[i] = dt;
    e->interval_s = median(e->ref, e->nref);
    e->interval_from_rows = true;
}

void rd_energy_decide(struct rd_energy *e, double hint, rd_energy_step_fn *fn, void *ctx)
{
    if (e->nwarm < 0)
        return;
    double d[RD_ENERGY_WARM + 1];
    int nd = 0;
    for (int i = 1; i < e->nwarm; i++) {
        double dt = e->warm_t[i] - e->warm_t[i - 1];
        if (dt > 0)
            d[nd++] = dt;
    }
    if (nd) {
        qsort(d, (size_t)nd, sizeof d[0], cmp_double);
        e->interval_s = median(d, nd);
        e->interval_from_rows = true;
    } else {
        e->interval_s = isfinite(hint) && hint > 0 ? hint : INFINITY;
    }
    /* the waiting steps are all judged by their own median, then join the reference */
    int n = e->nwarm;
    e->nwarm = -1;
    double judged_by = e->interval_s;
    for (int i = 0; i < n; i++) {
        double t = e->warm_t[i], p = e->warm_p[i];
        if (!e->have_last) {
            e->have_last = true;
        } else {
            if (!(t > e->last_t))
                continue;
            e->interval_s = judged_by;
            bool bridged = rd_energy_step(e, e->last_t, e->last_p, t, p);
            if (fn)
                fn(ctx, e->last_t, e->last_p, t, p, bridged);
            rd_energy_learn(e, t - e->last_t);
        }
        e->last_t = t;
        e->last_p = p;
    }
}
