/* The run's bucketed timeline (timeline.h), fed by the sinks (sink.h) in the run's one pass. */
#include "timeline.h"
#include "oom.h"

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "evclass.h"
#include "system.h"

#include <float.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_WIDTH 1e-3 /* seconds per bucket before any doubling */

struct sum_timeline *sum_tl_new(int cols, bool spark_only)
{
    if (cols < 1)
        cols = 1;
    struct sum_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return NULL;
    tl->cols = cols;
    tl->nb = 2 * cols;
    tl->spark_only = spark_only;
    tl->anchor = NAN;
    tl->width = FIRST_WIDTH;
    tl->hi = -1;
    tl->t_lo = tl->t_hi = NAN;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        tl->host_last_t[k] = NAN;
    tl->io_last_t = NAN;
    return tl;
}

void sum_tl_free(struct sum_timeline *tl)
{
    if (!tl)
        return;
    for (int g = 0; g < SUM_TL_MAX_GPUS; g++) {
        if (!tl->gpu[g])
            continue;
        for (int m = 0; m < SUM_TL_GCOUNT; m++)
            free(tl->gpu[g]->s[m].cols);
        for (int k = 0; k < RD_ER_COUNT; k++)
            free(tl->gpu[g]->ej[k].cols);
        free(tl->gpu[g]);
    }
    for (int i = 0; i < SUM_TL_OCOUNT; i++)
        free(tl->os[i].cols);
    free(tl->ev);
    free(tl);
}

void sum_tl_col_merge(struct sum_tl_col *dst, const struct sum_tl_col *src)
{
    if (!src->n)
        return;
    if (!dst->n) {
        *dst = *src;
        return;
    }
    /* which extreme comes first: each side's own order, or across the two */
    bool min_from_src = src->min<dst->min, max_from_src = src->max> dst->max;
    bool min_first;
    if (min_from_src == max_from_src)
        min_first = (min_from_src ? src->flags : dst->flags) & SUM_TL_MIN_FIRST;
    else
        min_first = max_from_src; /* min in dst (earlier), max in src */
    if (min_from_src)
        dst->min = src->min;
    if (max_from_src)
        dst->max = src->max;
    dst->flags = (uint8_t)((dst->flags & SUM_TL_BRK) | (min_first ? SUM_TL_MIN_FIRST : 0));
    dst->last = src->last;
    dst->n += src->n;
    dst->sum += src->sum;
}

/* Call fn on every series that has buckets. */
static void each_series(struct sum_timeline *tl,
                        void (*fn)(struct sum_timeline *, struct sum_tl_series *, int), int arg)
{
    for (int g = 0; g < SUM_TL_MAX_GPUS; g++) {
        for (int m = 0; tl->gpu[g] && m < SUM_TL_GCOUNT; m++)
            if (tl->gpu[g]->s[m].cols)
                fn(tl, &tl->gpu[g]->s[m], arg);
        for (int k = 0; tl->gpu[g] && k < RD_ER_COUNT; k++)
            if (tl->gpu[g]->ej[k].cols)
                fn(tl, &tl->gpu[g]->ej[k], arg);
    }
    for (int i = 0; i < SUM_TL_OCOUNT; i++)
        if (tl->os[i].cols)
            fn(tl, &tl->os[i], arg);
}

static void halve(struct sum_timeline *tl, struct sum_tl_series *s, int unused)
{
    (void)unused;
    for (int b = 0; b < tl->nb / 2; b++) {
        struct sum_tl_col c = s->cols[2 * b];
        sum_tl_col_merge(&c, &s->cols[2 * b + 1]);
        s->cols[b] = c;
    }
    memset(&s->cols[tl->nb / 2], 0, (size_t)(tl->nb - tl->nb / 2) * sizeof *s->cols);
}

static void shift(struct sum_timeline *tl, struct sum_tl_series *s, int k)
{
    memmove(&s->cols[k], &s->cols[0], (size_t)(tl->nb - k) * sizeof *s->cols);
    memset(&s->cols[0], 0, (size_t)k * sizeof *s->cols);
}

/* The bucket of time t, widening or shifting the buckets as needed; -1 when t is not placed
 * (not finite, or far from the rest of the run: a clock at 1970). */
static int place(struct sum_timeline *tl, double t)
{
    if (!isfinite(t))
        return -1;
    if (t >= tl->t_lo && t <= tl->t_hi) /* within the times placed: the buckets hold it */
        return (int)((t - tl->anchor) / tl->width);
    if (isnan(tl->anchor))
        tl->anchor = t;
    double top = isnan(tl->t_hi) ? tl->anchor : fmax(tl->t_hi, tl->anchor);
    double slack = fmax(3600, 2 * (top - fmin(tl->anchor, isnan(tl->t_lo) ? top : tl->t_lo)));
    if (t < tl->anchor - slack || t > top + slack || fabs(t - tl->anchor) > 1e10) {
        tl->out_of_range++;
        return -1;
    }
    while (t < tl->anchor) { /* shift right by whole buckets, widening first if they do not fit */
        double need = ceil((tl->anchor - t) / tl->width);
        if (tl->hi + need < tl->nb) {
            int k = (int)need;
            each_series(tl, shift, k);
            tl->anchor -= k * tl->width;
            tl->hi += k;
            break;
        }
        each_series(tl, halve, 0);
        tl->width *= 2;
        tl->hi = tl->hi < 0 ? -1 : tl->hi / 2;
    }
    double x = floor((t - tl->anchor) / tl->width);
    while (x >= tl->nb) {
        each_series(tl, halve, 0);
        tl->width *= 2;
        tl->hi = tl->hi < 0 ? -1 : tl->hi / 2;
        x = floor((t - tl->anchor) / tl->width);
    }
    int b = x < 0 ? 0 : (int)x;
    if (b > tl->hi)
        tl->hi = b;
    if (!(tl->t_lo <= t))
        tl->t_lo = t;
    if (!(tl->t_hi >= t))
        tl->t_hi = t;
    return b;
}

/* Add v at bucket b; step: seconds since the source's previous sample (NAN: none). */
/* v as a float, a garbage 1e300 held at the largest one (the conversion would be undefined) */
static float to_float(double v)
{
    return v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : (float)v;
}

static void add(struct sum_timeline *tl, struct sum_tl_series *s, int b, double v, double step)
{
    if (b < 0)
        return;
    if (!isfinite(v)) {
        s->brk = true;
        return;
    }
    if (!s->cols) {
        s->cols = calloc((size_t)tl->nb, sizeof *s->cols);
        if (!s->cols) {
            tl->oom = true;
            sum_oom_note();
            return;
        }
    }
    struct sum_tl_col *k = &s->cols[b];
    float fv = to_float(v);
    if (k->n == 0) {
        k->first = k->last = k->min = k->max = fv;
        k->step = (float)step;
        k->flags = s->brk ? SUM_TL_BRK : 0;
    } else {
        if (fv < k->min) {
            k->min = fv;
            k->flags &= (uint8_t)~SUM_TL_MIN_FIRST;
        }
        if (fv > k->max) {
            k->max = fv;
            k->flags |= SUM_TL_MIN_FIRST;
        }
        k->last = fv;
    }
    k->sum += v;
    k->n++;
    s->brk = false;
    if (!s->any || v < s->vmin)
        s->vmin = v;
    if (!s->any || v > s->vmax)
        s->vmax = v;
    s->any = true;
}

/* The step from *last to t (NAN for the first), and t becomes the last. */
static double step_from(double *last, double t)
{
    double d = isfinite(*last) && t > *last ? t - *last : NAN;
    if (!(*last >= t))
        *last = t;
    return d;
}

static struct sum_tl_gpu *tl_gpu(struct sum_timeline *tl, int g)
{
    if (g < 0 || g >= SUM_TL_MAX_GPUS)
        return NULL;
    if (!tl->gpu[g]) {
        tl->gpu[g] = calloc(1, sizeof *tl->gpu[g]);
        if (!tl->gpu[g]) {
            tl->oom = true;
            sum_oom_note();
            return NULL;
        }
        for (int k = 0; k < HW_FILE_COUNT; k++)
            tl->gpu[g]->last_t[k] = NAN;
        for (int k = 0; k < RD_ER_COUNT; k++)
            tl->gpu[g]->ej_last_t[k] = NAN;
    }
    return tl->gpu[g];
}

/* Where each per-GPU series comes from: its column in hw_metrics.csv (a figure of
 * hw_gpu_figs), in hw_dmon.csv and in hw_gpm.csv, stored as COL(column), 0 where the file has
 * none (a series left out of the table is drawn from no file, never from column 0). The capped
 * series comes from hw_health.csv (sum_tl_health_row). */
enum { SRC_QUERY, SRC_DMON, SRC_GPM, SRC_COUNT };
#define COL(c) ((c) + 1)
static const struct {
    int col[SRC_COUNT];
} series_src[SUM_TL_GCOUNT] = {
    [SUM_TL_UTIL] = {{[SRC_QUERY] = COL(HW_GM_UTIL), [SRC_DMON] = COL(RD_DM_SM)}},
    [SUM_TL_MEMUTIL] = {{[SRC_QUERY] = COL(HW_GM_MEM_UTIL), [SRC_DMON] = COL(RD_DM_MEM)}},
    [SUM_TL_MEMUSED] = {{[SRC_QUERY] = COL(HW_GM_MEM_USED), [SRC_DMON] = COL(RD_DM_FB)}},
    [SUM_TL_MEMTOTAL] = {{[SRC_QUERY] = COL(HW_GM_MEM_TOTAL)}},
    [SUM_TL_POWER] = {{[SRC_QUERY] = COL(HW_GM_POWER), [SRC_DMON] = COL(RD_DM_PWR)}},
    [SUM_TL_CLOCK] = {{[SRC_QUERY] = COL(HW_GM_SM_CLOCK), [SRC_DMON] = COL(RD_DM_PCLK)}},
    [SUM_TL_SMACT] = {{[SRC_GPM] = COL(RD_DM_SMUTIL)}},
    [SUM_TL_TENSOR] = {{[SRC_GPM] = COL(RD_DM_MMAACT)}},
};
#undef COL

static void gpu_values(struct sum_timeline *tl, enum hw_file kind, int gpu, double t,
                       const double *v, int src)
{
    struct sum_tl_gpu *g = tl_gpu(tl, gpu);
    if (!g || !isfinite(t))
        return;
    double step = step_from(&g->last_t[kind], t);
    int b = place(tl, t);
    if (b < 0)
        return;
    for (int m = 0; m < SUM_TL_GCOUNT; m++) {
        int col = series_src[m].col[src] - 1;
        if (col < 0)
            continue;
        if (kind == HW_FILE_DMON && (tl->have_query & (1u << m)))
            continue; /* hw_metrics.csv measured it */
        double x = v[col];
        if (kind == HW_FILE_GPU && isfinite(x))
            tl->have_query |= 1u << m;
        if (tl->spark_only) {
            if (m == SUM_TL_UTIL)
                add(tl, &tl->os[SUM_TL_SPARK], b, x, step);
            continue;
        }
        g->from[m] = kind;
        add(tl, &g->s[m], b, x, step);
    }
}

void sum_tl_gpu_row(struct sum_timeline *tl, const struct rd_gpu_row *r)
{
    gpu_values(tl, HW_FILE_GPU, r->gpu, r->t, r->v, SRC_QUERY);
}

void sum_tl_dmon_row(struct sum_timeline *tl, enum hw_file kind, const struct rd_dmon_row *r)
{
    if (r->gpu < 0) /* dmon without -o DT has no time: nothing to place */
        return;
    if (kind == HW_FILE_GPM && tl->spark_only)
        return;
    gpu_values(tl, kind, r->gpu, r->t, r->v, kind == HW_FILE_GPM ? SRC_GPM : SRC_DMON);
}

void sum_tl_health_row(struct sum_timeline *tl, int gpu, double t, double capped)
{
    if (tl->spark_only)
        return;
    struct sum_tl_gpu *g = tl_gpu(tl, gpu);
    if (!g || !isfinite(t))
        return;
    double step = step_from(&g->last_t[HW_FILE_HEALTH], t);
    int b = place(tl, t);
    if (b < 0)
        return;
    g->from[SUM_TL_CAPPED] = HW_FILE_HEALTH;
    add(tl, &g->s[SUM_TL_CAPPED], b, capped, step);
}

struct host_col {
    int os, col;
};

static void host_row(struct sum_timeline *tl, enum hw_file kind, double t, const double *v,
                     const struct host_col *map, size_t n)
{
    if (tl->spark_only || !isfinite(t))
        return;
    double step = step_from(&tl->host_last_t[kind], t);
    int b = place(tl, t);
    for (size_t i = 0; b >= 0 && i < n; i++)
        add(tl, &tl->os[map[i].os], b, v[map[i].col], step);
}

void sum_tl_cpu_row(struct sum_timeline *tl, const struct rd_cpu_row *r)
{
    static const struct host_col map[] = {
        {SUM_TL_USR, HW_CPU_COL_USR},          {SUM_TL_SYS, HW_CPU_COL_SYS},
        {SUM_TL_IOWAIT, HW_CPU_COL_IOWAIT},    {SUM_TL_CGMEM, HW_CPU_COL_CG_MEM},
        {SUM_TL_CGMAX, HW_CPU_COL_CG_MEM_MAX},
    };
    host_row(tl, HW_FILE_CPU, r->t, r->v, map, sizeof map / sizeof map[0]);
}

void sum_tl_proc_row(struct sum_timeline *tl, const struct rd_proc_row *r)
{
    static const struct host_col map[] = {{SUM_TL_RSS, HW_PROC_COL_RSS}, {SUM_TL_PCPU, HW_PROC_COL_CPU}};
    host_row(tl, HW_FILE_PROC, r->t, r->v, map, sizeof map / sizeof map[0]);
}

void sum_tl_io(struct sum_timeline *tl, double t, const double bytes[4], double dt)
{
    if (tl->spark_only || !isfinite(t))
        return;
    double step = step_from(&tl->io_last_t, t);
    int b = place(tl, t);
    for (int i = 0; b >= 0 && i < SUM_IO_COUNT; i++)
        add(tl, &tl->os[SUM_TL_DISKR + i], b, sum_io_rate_mib_s(bytes[i], dt), step);
}

void sum_tl_energy(struct sum_timeline *tl, int gpu, enum rd_ereading r, double t, double joules)
{
    struct sum_tl_gpu *g = tl->spark_only || r >= RD_ER_COUNT ? NULL : tl_gpu(tl, gpu);
    if (!g)
        return;
    /* its steps follow the reading's, so the gap rule breaks it where it breaks them; a GPU
     * taken late steps back in time: the bucket still gets its joules */
    double step = !(t <= g->ej_last_t[r]) ? step_from(&g->ej_last_t[r], t) : NAN;
    add(tl, &g->ej[r], place(tl, t), joules, step);
}

void sum_tl_finish(struct sum_timeline *tl, const enum rd_ereading pick[SUM_TL_MAX_GPUS])
{
    if (!tl || tl->spark_only || tl->hi < 0)
        return;
    struct sum_tl_series *s = &tl->os[SUM_TL_ENERGY];
    for (int g = 0; g < SUM_TL_MAX_GPUS; g++) { /* each GPU's picked reading, bucket by bucket */
        const struct sum_tl_series *e =
            tl->gpu[g] && pick[g] < RD_ER_COUNT ? &tl->gpu[g]->ej[pick[g]] : NULL;
        if (!e || !e->cols)
            continue;
        if (!s->cols && !(s->cols = calloc((size_t)tl->nb, sizeof *s->cols))) {
            tl->oom = true;
            sum_oom_note();
            return;
        }
        for (int b = 0; b <= tl->hi && b < tl->nb; b++)
            sum_tl_col_merge(&s->cols[b], &e->cols[b]);
        s->any = true;
    }
    if (!s->cols)
        return;
    double j = 0;
    bool first = true;
    for (int b = 0; b <= tl->hi && b < tl->nb; b++) {
        struct sum_tl_col *k = &s->cols[b];
        if (!k->n)
            continue;
        j += k->sum; /* the joules of its steps */
        float wh = to_float(j / 3600.0);
        k->first = k->last = k->min = k->max = wh;
        k->sum = (double)wh * k->n;
        if (first)
            s->vmin = wh;
        first = false;
        s->vmax = wh;
    }
}

/* Copy s into out (cap bytes), cut at a character boundary. */
static void copy_cut(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

static void join_command(struct sum_timeline *tl, struct json_object *cmd)
{
    size_t len = 0, n = json_object_array_length(cmd);
    char *out = tl->command;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *a = json_object_get_string(json_object_array_get_idx(cmd, i));
        if (!a)
            continue;
        if (i && len + 1 < sizeof tl->command)
            out[len++] = ' ';
        copy_cut(out + len, sizeof tl->command - len, a);
        len += strlen(out + len);
        if (len + 1 >= sizeof tl->command)
            break;
    }
    out[len] = '\0';
}

void sum_tl_event(struct sum_timeline *tl, const struct rd_event *e)
{
    if (!strcmp(e->name, "start")) {
        struct json_object *cmd;
        if (e->data && !tl->command[0] && json_object_object_get_ex(e->data, "command", &cmd) &&
            json_object_is_type(cmd, json_type_array))
            join_command(tl, cmd);
        if (isnan(tl->anchor) && isfinite(e->t))
            tl->anchor = e->t; /* the run's start: bucket 0 begins there */
    }
    if (!isfinite(e->t) || tl->spark_only)
        return;
    if (tl->nev >= SUM_TL_MAX_EVENTS) {
        tl->ev_dropped++;
        return;
    }
    if (!hw_grow(&tl->ev, &tl->ev_cap, tl->nev, sizeof *tl->ev, 16)) {
        tl->ev_dropped++;
        tl->oom = true;
        sum_oom_note();
        return;
    }
    struct sum_tl_event *x = &tl->ev[tl->nev++];
    x->t = e->t;
    copy_cut(x->name, sizeof x->name, e->name);
    x->bad = sum_event_error_like(e->name, e->data);
}
