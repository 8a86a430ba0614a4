/* The energy rule (energy.h): trapezoids between consecutive power samples of one GPU, not
 * bridged across a gap or an unmeasured end, with the gap rule's interval decided from the
 * GPU's first rows. */
#include "energy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sum_energy_init(struct sum_energy *e)
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

void sum_energy_decide(struct sum_energy *e, double hint, sum_energy_step_fn *fn, void *ctx)
{
    if (e->nwarm < 0)
        return;
    double d[SUM_ENERGY_WARM];
    int nd = 0;
    for (int i = 1; i < e->nwarm; i++) {
        double dt = e->warm_t[i] - e->warm_t[i - 1];
        if (dt > 0)
            d[nd++] = dt;
    }
    if (nd) {
        qsort(d, (size_t)nd, sizeof d[0], cmp_double);
        e->interval_s = nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2;
        e->interval_from_rows = true;
    } else {
        e->interval_s = isfinite(hint) && hint > 0 ? hint : INFINITY;
    }
    int n = e->nwarm;
    e->nwarm = -1;
    for (int i = 0; i < n; i++)
        sum_energy_take(e, e->warm_t[i], e->warm_p[i], fn, ctx);
}
