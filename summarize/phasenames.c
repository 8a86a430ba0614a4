/* Phases by name: see phasenames.h. */
#include "phasenames.h"
#include "oom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The name's index, added if new; -1 when there is no room. */
static long name_index(struct sum_names *s, const char *name)
{
    if (s->n * 2 >= s->nslot) { /* keep the table at most half full */
        size_t ns = s->nslot ? s->nslot * 2 : 64;
        uint32_t *t = calloc(ns, sizeof *t);
        if (!t) {
            sum_oom_note();
            return -1;
        }
        for (size_t i = 0; i < s->n; i++) {
            size_t h = hash_str(s->v[i].name) & (ns - 1);
            while (t[h])
                h = (h + 1) & (ns - 1);
            t[h] = (uint32_t)i + 1;
        }
        free(s->slot);
        s->slot = t;
        s->nslot = ns;
    }
    size_t h = hash_str(name) & (s->nslot - 1);
    for (; s->slot[h]; h = (h + 1) & (s->nslot - 1))
        if (!strcmp(s->v[s->slot[h] - 1].name, name))
            return (long)s->slot[h] - 1;
    if (s->n == SUM_MAX_PHASE_NAMES)
        return -1;
    if (!hw_grow(&s->v, &s->cap, s->n, sizeof *s->v, 8)) {
        sum_oom_note();
        return -1;
    }
    struct sum_name_acc *a = &s->v[s->n];
    memset(a, 0, sizeof *a);
    if (!(a->name = strdup(name))) {
        sum_oom_note();
        return -1;
    }
    a->d_min = INFINITY;
    a->d_max = -INFINITY;
    /* means and maxima only: a name's windows may hold most of the run */
    a->util.no_quant = a->mem_used.no_quant = a->power.no_quant = true;
    a->cpu_usr.no_quant = a->proc_cpu.no_quant = a->proc_rss.no_quant = true;
    s->slot[h] = (uint32_t)s->n + 1;
    return (long)s->n++;
}

const struct sum_name_acc *sum_names_find(const struct sum_names *s, const char *name)
{
    if (!s->nslot || !name)
        return NULL;
    for (size_t h = hash_str(name) & (s->nslot - 1); s->slot[h]; h = (h + 1) & (s->nslot - 1))
        if (!strcmp(s->v[s->slot[h] - 1].name, name))
            return &s->v[s->slot[h] - 1];
    return NULL;
}

static void add_duration(struct sum_name_acc *a, double d)
{
    if (isfinite(d) && d >= 0) { /* Welford: no cancellation over 100 000 steps */
        a->timed++;
        a->d_sum += d;
        double delta = d - a->d_mean;
        a->d_mean += delta / (double)a->timed;
        a->d_m2 += delta * (d - a->d_mean);
        a->d_min = fmin(a->d_min, d);
        a->d_max = fmax(a->d_max, d);
    }
}

struct sum_name_acc *sum_names_add(struct sum_names *s, const char *name, double t0, double t1,
                                   double seconds, bool failed)
{
    long i = name_index(s, name ? name : "");
    if (i < 0) {
        s->names_dropped++;
        return NULL;
    }
    struct sum_name_acc *a = &s->v[i];
    a->count++;
    a->failed += failed;
    /* the entry's own seconds: t1 - t0 of epoch times carries ~2e-7 s of noise, which 100 000
     * steps would add up */
    add_duration(a, isfinite(seconds) ? seconds : t1 - t0);
    if (!(t1 >= t0))
        return a; /* no window */
    /* A loop's entries follow each other: one that starts inside (or where) the name's latest
     * window ends is merged into it now, as sum_names_index would, so memory grows with the
     * name's separate stretches, not with its entries (1 million steps: one window). */
    struct sum_win *last = a->last_win ? &s->win[a->last_win - 1] : NULL;
    /* back to back within the log's rounding: a start of ts less seconds, each rounded to the
     * ms (and 1.8e9 s carries 2e-7 s of noise), lands up to a ms past the end before it */
    if (last && t0 >= last->t0 && t0 <= last->t1 + SUM_PHASE_TS_RES) {
        if (t0 < last->t1 - SUM_PHASE_TS_RES) /* not ts's ms rounding */
            a->overlapping++;
        if (t1 > last->t1)
            last->t1 = t1;
        if (last->n < UINT32_MAX)
            last->n++;
        return a;
    }
    if (s->nwin == SUM_MAX_PHASE_WINDOWS) {
        s->windows_dropped++;
        return a;
    }
    if (!hw_grow(&s->win, &s->wcap, s->nwin, sizeof *s->win, 64)) {
        sum_oom_note();
        s->windows_dropped++;
        return a;
    }
    s->win[s->nwin++] = (struct sum_win){t0, t1, (uint32_t)i, 1};
    a->last_win = s->nwin;
    return a;
}

static int cmp_win(const void *a, const void *b)
{
    const struct sum_win *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

void sum_names_index(struct sum_names *s)
{
    if (!s->nwin)
        return;
    qsort(s->win, s->nwin, sizeof *s->win, cmp_win);
    /* each name's union: windows that overlap or touch become one */
    size_t m = 0;
    for (size_t i = 0; i < s->nwin; i++) {
        struct sum_win w = s->win[i];
        if (m && s->win[m - 1].name == w.name && w.t0 <= s->win[m - 1].t1 + SUM_PHASE_TS_RES) {
            if (w.t0 < s->win[m - 1].t1 - SUM_PHASE_TS_RES) /* not ts's ms rounding */
                s->v[w.name].overlapping++;
            if (w.t1 > s->win[m - 1].t1)
                s->win[m - 1].t1 = w.t1;
            uint32_t had = s->win[m - 1].n;
            s->win[m - 1].n = w.n > UINT32_MAX - had ? UINT32_MAX : had + w.n;
            continue;
        }
        s->win[m++] = w;
    }
    s->nwin = m;
    double *t0 = malloc(m * sizeof *t0), *t1 = malloc(m * sizeof *t1);
    if (t0 && t1) {
        for (size_t i = 0; i < m; i++) {
            t0[i] = s->win[i].t0;
            t1[i] = s->win[i].t1;
            if (isfinite(t1[i])) /* an open window's part comes with its end */
                s->v[s->win[i].name].span_s += t1[i] - t0[i];
        }
        sum_ivx_build(&s->ivx, t0, t1, m); /* empty on ENOMEM (noted): no sample figures */
    } else {
        sum_oom_note();
    }
    free(t0);
    free(t1);
}

struct pt {
    struct sum_names *s;
    double v[3];
};

static void on_gpu_hit(void *ctx, uint32_t id, double t0, double t1)
{
    (void)t0, (void)t1;
    struct pt *p = ctx;
    struct sum_name_acc *a = &p->s->v[p->s->win[id].name];
    sum_stat_add(&a->util, p->v[0]);
    sum_stat_add(&a->mem_used, p->v[1]);
    sum_stat_add(&a->power, p->v[2]);
}

void sum_names_gpu_at(struct sum_names *s, double t, double util, double mem_used, double power)
{
    struct pt p = {s, {util, mem_used, power}};
    sum_ivx_query(&s->ivx, t, t, on_gpu_hit, &p);
}

/* v[0] over (v[1], v[2]]: the time a window shares with it */
static double shared(const struct pt *p, double w0, double w1)
{
    double lo = fmax(p->v[1], w0), hi = fmin(p->v[2], w1);
    return hi - lo;
}

static void on_cpu_hit(void *ctx, uint32_t id, double t0, double t1)
{
    struct pt *p = ctx;
    sum_stat_add_w(&p->s->v[p->s->win[id].name].cpu_usr, p->v[0], shared(p, t0, t1));
}

void sum_names_cpu_at(struct sum_names *s, double a, double b, double usr)
{
    struct pt p = {s, {usr, a, b}};
    if (b > a)
        sum_ivx_query(&s->ivx, a, b, on_cpu_hit, &p);
}

static void on_rss_hit(void *ctx, uint32_t id, double t0, double t1)
{
    (void)t0, (void)t1;
    struct pt *p = ctx;
    sum_stat_add(&p->s->v[p->s->win[id].name].proc_rss, p->v[0]);
}

static void on_proc_cpu_hit(void *ctx, uint32_t id, double t0, double t1)
{
    struct pt *p = ctx;
    sum_stat_add_w(&p->s->v[p->s->win[id].name].proc_cpu, p->v[0], shared(p, t0, t1));
}

void sum_names_proc_at(struct sum_names *s, double t, double rss, double a, double b, double cpu)
{
    struct pt p = {s, {rss}};
    if (!isnan(t))
        sum_ivx_query(&s->ivx, t, t, on_rss_hit, &p);
    struct pt q = {s, {cpu, a, b}};
    if (b > a)
        sum_ivx_query(&s->ivx, a, b, on_proc_cpu_hit, &q);
}

struct seg {
    struct sum_names *s;
    int gpu;
    enum rd_ereading r;
    double t1, p1, t2, p2;
    const struct sum_ecount_step *step; /* a counter's step; NULL: a power step */
};

/* GPU g's energy in name a, made at the first step to meet one of its windows (NULL: no
 * memory, noted: the step is lost to the name). */
static struct sum_name_energy *name_energy(struct sum_name_acc *a, int g)
{
    if (g < 0 || g >= SUM_NAME_MAX_GPUS)
        return NULL;
    if (!a->energy && !(a->energy = calloc(SUM_NAME_MAX_GPUS, sizeof *a->energy))) {
        sum_oom_note();
        return NULL;
    }
    return &a->energy[g];
}

/* The step cut to the window: the same rules as a phase entry's energy (the trapezoid of
 * power, or the counter's share). */
static void on_energy_hit(void *ctx, uint32_t id, double w0, double w1)
{
    const struct seg *g = ctx;
    double x = fmax(g->t1, w0), y = fmin(g->t2, w1);
    if (y <= x && !g->step)
        return;
    struct sum_name_energy *e = name_energy(&g->s->v[g->s->win[id].name], g->gpu);
    if (!e)
        return;
    if (g->step) {
        e->j[g->r] += sum_ecount_part(g->step, w0, w1) / 1000.0;
    } else {
        double slope = (g->p2 - g->p1) / (g->t2 - g->t1);
        double px = g->p1 + slope * (x - g->t1), py = g->p1 + slope * (y - g->t1);
        e->j[g->r] += (px + py) / 2.0 * (y - x);
    }
    e->seen[g->r] = true;
}

void sum_names_energy_at(struct sum_names *s, int g, enum rd_ereading r, double t1, double p1,
                         double t2, double p2)
{
    struct seg q = {s, g, r, t1, p1, t2, p2, NULL};
    sum_ivx_query(&s->ivx, t1, t2, on_energy_hit, &q);
}

void sum_names_counter_at(struct sum_names *s, int g, const struct sum_ecount_step *step)
{
    struct seg q = {s, g, RD_ER_COUNTER, step->t1, 0, step->t2, 0, step};
    sum_ivx_query(&s->ivx, step->t1, step->t2, on_energy_hit, &q);
}

void sum_names_end_open(struct sum_names *s, const char *name, double d)
{
    struct sum_name_acc *a = (struct sum_name_acc *)sum_names_find(s, name);
    if (a)
        add_duration(a, d);
}

void sum_names_end_windows(struct sum_names *s, double t_end)
{
    for (size_t i = 0; i < s->nwin; i++)
        if (isinf(s->win[i].t1)) {
            s->win[i].t1 = isfinite(t_end) && t_end > s->win[i].t0 ? t_end : s->win[i].t0;
            s->v[s->win[i].name].span_s += s->win[i].t1 - s->win[i].t0;
        }
}

static int cmp_t0(const void *a, const void *b)
{
    const struct sum_win *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

double sum_names_covered(const struct sum_names *s, double a, double b)
{
    if (!s->nwin || !(b > a))
        return 0;
    struct sum_win *w = malloc(s->nwin * sizeof *w);
    if (!w) {
        sum_oom_note();
        return NAN;
    }
    memcpy(w, s->win, s->nwin * sizeof *w);
    qsort(w, s->nwin, sizeof *w, cmp_t0);
    double covered = 0, x = -INFINITY, y = -INFINITY; /* the stretch being merged */
    for (size_t i = 0; i <= s->nwin; i++) {
        if (i < s->nwin && w[i].t0 <= y) {
            y = fmax(y, w[i].t1);
            continue;
        }
        double lo = fmax(x, a), hi = fmin(y, b);
        if (hi > lo)
            covered += hi - lo;
        if (i < s->nwin)
            x = w[i].t0, y = w[i].t1;
    }
    free(w);
    return covered;
}

void sum_names_free(struct sum_names *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct sum_name_acc *a = &s->v[i];
        free(a->name);
        sum_stat_free(&a->util);
        sum_stat_free(&a->mem_used);
        sum_stat_free(&a->power);
        sum_stat_free(&a->cpu_usr);
        sum_stat_free(&a->proc_cpu);
        sum_stat_free(&a->proc_rss);
        free(a->energy);
    }
    free(s->v);
    free(s->slot);
    free(s->win);
    sum_ivx_free(&s->ivx);
    memset(s, 0, sizeof *s);
}

double sum_name_mean_s(const struct sum_name_acc *a)
{
    return a->timed ? a->d_mean : NAN;
}

double sum_name_std_s(const struct sum_name_acc *a)
{
    return a->timed ? sqrt(a->d_m2 / (double)a->timed) : NAN;
}

