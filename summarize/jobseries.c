/* One run's GPUs together over time, for a job's aligned sums (jobseries.h). */
#include "jobseries.h"

#include <math.h>
#include <stdlib.h>

struct sum_jseries *sum_jser_new(void)
{
    struct sum_jseries *s = calloc(1, sizeof *s);
    /* calloc: the kernel's zero pages, touched only as the run goes on */
    struct sum_jser_bin *b = calloc(SUM_JSER_BINS, sizeof *b);
    if (!s || !b) {
        free(s);
        free(b);
        return NULL;
    }
    s->anchor = NAN;
    s->width = SUM_JSER_BASE_S;
    s->hi = -1;
    s->cap = SUM_JSER_BINS;
    s->bin = b;
    return s;
}

void sum_jser_free(struct sum_jseries *s)
{
    if (s)
        free(s->bin);
    free(s);
}

void sum_jser_anchor(struct sum_jseries *s, double t)
{
    if (isnan(s->anchor) && isfinite(t))
        s->anchor = t;
}

/* b takes a: the instants with more GPUs win; of equal ones, both count. */
static void merge(struct sum_jser_bin *b, const struct sum_jser_bin *a)
{
    if (!a->k || a->k < b->k)
        return;
    if (a->k > b->k) {
        *b = *a;
        return;
    }
    if (a->n_mem && (!b->n_mem || a->mem_max > b->mem_max))
        b->mem_max = a->mem_max;
    b->n_mem += a->n_mem;
    b->power_sum += a->power_sum;
    b->n_power += a->n_power;
}

/* Double the width: bins 2i and 2i+1 become bin i (each is read before it is written). */
static void coarsen(struct sum_jseries *s)
{
    for (int i = 0; i <= s->hi; i += 2) {
        struct sum_jser_bin m = s->bin[i];
        if (i + 1 < s->cap)
            merge(&m, &s->bin[i + 1]);
        s->bin[i / 2] = m;
    }
    for (int i = s->hi / 2 + 1; i <= s->hi; i++)
        s->bin[i] = (struct sum_jser_bin){0};
    s->hi = s->hi < 0 ? -1 : s->hi / 2;
    s->width *= 2;
}

void sum_jser_add(struct sum_jseries *s, double t, int k, double mem, double power)
{
    if (!isfinite(t) || k <= 0)
        return;
    sum_jser_anchor(s, t);
    if (!(t - s->anchor <= SUM_JSER_MAX_S)) {
        s->dropped++;
        return;
    }
    double x = (t - s->anchor) / s->width;
    if (x < 0) /* nvidia-smi's first loop a moment before the start event */
        x = 0;
    while (x >= s->cap) {
        coarsen(s);
        x = (t - s->anchor) / s->width;
    }
    int i = (int)x;
    struct sum_jser_bin a = {0};
    a.k = (uint32_t)k;
    if (isfinite(mem)) {
        a.mem_max = mem;
        a.n_mem = 1;
    }
    if (isfinite(power)) {
        a.power_sum = power;
        a.n_power = 1;
    }
    merge(&s->bin[i], &a);
    if (i > s->hi)
        s->hi = i;
}

void sum_jser_compact(struct sum_jseries *s)
{
    int n = s->hi + 1 > 1 ? s->hi + 1 : 1;
    struct sum_jser_bin *b = realloc(s->bin, (size_t)n * sizeof *b);
    if (b) { /* else the larger array stays: still correct */
        s->bin = b;
        s->cap = n;
    }
}

void sum_jser_widen(struct sum_jseries *s, double width)
{
    while (s->width < width * (1 - 1e-9))
        coarsen(s);
}

double sum_jser_power(const struct sum_jser_bin *b)
{
    return b->n_power ? b->power_sum / b->n_power : NAN;
}
