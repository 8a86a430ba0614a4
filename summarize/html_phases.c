/* The HTML report's phases (html_int.h): sorted by start, their lanes in the phase strip and
 * their colours, which the strip, the charts and the tables show alike. */
#include <stdlib.h>
#include <string.h>

#include "html_int.h"

const char *const ht_ph_end_class[HT_PH_COUNT] = {
    [HT_PH_OK] = "", [HT_PH_FAILED] = "fail", [HT_PH_KILLED] = "killed"};
const char *const ht_ph_end_words[HT_PH_COUNT] = {
    [HT_PH_OK] = "ended", [HT_PH_FAILED] = "failed", [HT_PH_KILLED] = "killed"};

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* A phase name's colour: the first NPHASE_COLORS distinct names (by start) get one each, in
 * order, so neighbours differ; later names share by hash. */
int ht_phase_color(const struct ht_page *P, const char *name)
{
    for (size_t i = 0; i < P->ncolors; i++)
        if (!strcmp(P->color_name[i], name))
            return (int)i;
    return (int)(name_hash(name) % NPHASE_COLORS);
}

static int cmp_phase(const void *a, const void *b, void *ctx)
{
    const struct sum_run *run = ctx;
    const struct sum_phase_acc *x = &run->phase[((const struct ht_phase *)a)->i];
    const struct sum_phase_acc *y = &run->phase[((const struct ht_phase *)b)->i];
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : (x->t1 > y->t1) - (x->t1 < y->t1);
}

/* The summary's phases with a time, sorted by start, with colours and lanes of the phase strip
 * (greedy: the first lane free at its start). Returns the number of lanes. */
int ht_prepare_phases(struct ht_page *P)
{
    const struct sum_run *run = P->run;

    P->nph = 0;
    for (size_t i = 0; P->ph && i < run->nphase; i++)
        if (isfinite(run->phase[i].t0) && isfinite(run->phase[i].t1))
            P->ph[P->nph++] = (struct ht_phase){.i = i};
    if (P->nph > 1)
        qsort_r(P->ph, P->nph, sizeof *P->ph, cmp_phase, (void *)run);
    for (size_t k = 0; k < P->nph; k++) {
        const char *name = ht_phase_of(P, k)->name;
        size_t c = 0;
        while (c < P->ncolors && strcmp(P->color_name[c], name))
            c++;
        if (c == P->ncolors && P->ncolors < NPHASE_COLORS)
            P->color_name[P->ncolors++] = name;
        P->ph[k].color = ht_phase_color(P, name);
    }
    int lanes = 0;
    double lane_end[HT_MAX_LANES];
    for (size_t k = 0; k < P->nph; k++) {
        const struct sum_phase_acc *p = ht_phase_of(P, k);
        int best = -1;
        for (int l = 0; l < lanes; l++)
            if (lane_end[l] <= p->t0 + 1e-9) {
                best = l;
                break;
            }
        if (best < 0 && lanes < HT_MAX_LANES)
            best = lanes++;
        if (best < 0) { /* all lanes busy: the one that frees first */
            best = 0;
            for (int l = 1; l < lanes; l++)
                if (lane_end[l] < lane_end[best])
                    best = l;
        }
        P->ph[k].lane = best;
        lane_end[best] = p->t1;
    }
    return lanes;
}
