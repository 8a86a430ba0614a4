/* The sweep page (html.h): which run, and at what cost (issue 49). A row per run, taken from its
 * summary on the -j pool's thread (sum_html_sweep_take), then the page over every row: the run,
 * its status and why, the params that vary across the sweep (those equal in every run said once
 * above), the last value of every metric, energy, duration and the headline figures, each
 * numeric column at the precision its values need; then inline SVG: a chosen metric against
 * energy (its Pareto front marked and listed) and against duration, a rank correlation per
 * varying param, and parallel coordinates. No script library: a few lines of inline script sort
 * the table and switch the metric. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"
#include "oom.h"
#include "hwrun/io.h"
#include "outcome.h"
#include "report.h"

/* ---- a run's row ----------------------------------------------------------------------------- */

struct fig_take {
    struct sum_sweep_row *r;
    size_t n;
};

static void take_fig(void *ctx, const struct sum_row_def *col, double v)
{
    (void)col;
    struct fig_take *t = ctx;
    if (t->r && t->n < SUM_SWEEP_MAX_FIGS)
        t->r->figs[t->n] = sum_fig_num(v);
    t->n++;
}

static char *dup_or_null(const char *s, bool *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    *oom |= d == NULL;
    return d;
}

int sum_html_sweep_take(struct sum_sweep_row *r, const char *dir, const struct sum_run *run,
                        int rc, const char *report)
{
    memset(r, 0, sizeof *r);
    bool oom = false;
    char name[256];
    r->name = dup_or_null(ht_base_name(dir ? dir : "run", name, sizeof name), &oom);
    r->link = dup_or_null(report, &oom);
    r->rc = rc;
    r->start = r->duration = r->energy_wh = NAN;
    for (size_t i = 0; i < SUM_SWEEP_MAX_FIGS; i++)
        r->figs[i] = NAN;
    if (!run)
        return oom ? -ENOMEM : 0;
    r->have = true;
    r->status = (int)run->outcome.status;
    char why[640];
    r->reason = dup_or_null(sum_outcome_reason(&run->outcome, why, sizeof why), &oom);
    if (run->verdicts && run->verdicts->ids[0]) {
        r->notes = dup_or_null(run->verdicts->ids, &oom);
        r->notes_warn = sum_verdicts_count(run->verdicts, SUM_SEV_WARNING) > 0;
    }
    double end;
    if (!sum_run_span(run, &r->start, &end))
        r->start = NAN;
    r->duration = sum_fig_num(sum_fig_round_us(sum_run_duration(run)));
    r->energy_wh = sum_fig_num(sum_run_energy_wh(run));
    struct fig_take ft = {r, 0};
    sum_report_shown(run, SUM_SHOW_SWEEP, take_fig, &ft);
    r->warnings = ht_count_warnings(run);
    /* params and metrics: numbers as numbers, the rest as the JSON has it */
    r->kv = run->nparams ? calloc(run->nparams, sizeof *r->kv) : NULL;
    oom |= run->nparams && !r->kv;
    for (size_t i = 0; r->kv && i < run->nparams; i++) {
        const struct sum_param *p = &run->params[i];
        struct sum_sweep_kv *kv = &r->kv[r->nkv++];
        kv->key = dup_or_null(p->key, &oom);
        kv->metric = p->metric;
        kv->num = NAN;
        if (p->v && (json_object_is_type(p->v, json_type_int) ||
                     json_object_is_type(p->v, json_type_double)))
            kv->num = json_object_get_double(p->v);
        kv->text = dup_or_null(
            !p->v ? "null"
            : json_object_is_type(p->v, json_type_string)
                ? json_object_get_string(p->v)
                : json_object_to_json_string_ext(p->v, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE),
            &oom);
    }
    /* the sparkline, drawn now: the timeline goes with the summary */
    size_t len = 0;
    FILE *f = open_memstream(&r->spark, &len);
    if (f) {
        ht_sparkline(f, run);
        oom |= fclose(f) != 0;
    } else {
        oom = true;
    }
    return oom ? -ENOMEM : 0;
}

void sum_html_sweep_row_free(struct sum_sweep_row *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->link);
    free(r->reason);
    free(r->notes);
    for (size_t i = 0; i < r->nkv; i++) {
        free(r->kv[i].key);
        free(r->kv[i].text);
    }
    free(r->kv);
    free(r->spark);
    memset(r, 0, sizeof *r);
}

/* ---- the page's columns ---------------------------------------------------------------------- */

/* A param or metric key of the sweep: the union of the runs', in first-seen order. */
struct xcol {
    const char *key; /* borrowed from a row */
    bool metric;
    bool varies;     /* params: not the same in every run that was read */
    bool numeric;    /* every value a run has is a number */
    int dec;         /* metrics: decimals down the column (col_fmt) */
    bool lower;      /* metrics: lower is better (its name says loss, error, ...) */
};

struct sweep {
    const struct sum_sweep_row *rows;
    size_t n;
    const struct sum_units *u;
    struct xcol *x;
    size_t nx;
    bool oom;
};

static const struct sum_sweep_kv *kv_of(const struct sum_sweep_row *r, const struct xcol *c)
{
    for (size_t i = 0; i < r->nkv; i++)
        if (r->kv[i].metric == c->metric && !strcmp(r->kv[i].key, c->key))
            return &r->kv[i];
    return NULL;
}

static double num_of(const struct sum_sweep_row *r, const struct xcol *c)
{
    const struct sum_sweep_kv *kv = kv_of(r, c);
    return kv ? kv->num : NAN;
}

bool sum_sweep_counter(const char *metric)
{
    static const char *const counters[] = {"epoch", "step", "global_step", "iteration", "iter",
                                           "steps", "epochs"};
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
        if (!strcmp(metric, counters[i]))
            return true;
    return false;
}

bool sum_sweep_lower_is_better(const char *metric)
{
    static const char *const lower[] = {"loss", "error", "err", "perplexity", "ppl", "wer"};
    for (size_t i = 0; i < sizeof lower / sizeof lower[0]; i++)
        if (strcasestr(metric, lower[i]))
            return true;
    return false;
}

/* Decimals that show a column's values to sig significant digits of its largest, or more where
 * its values lie closer together than that (two digits of its spread), at most 8; -1: too
 * small or too large for decimals (then sig digits in e-notation). Integers: 0. */
int sum_sweep_decimals(const double *v, size_t n, size_t stride, int sig)
{
    double mx = 0, lo = INFINITY, hi = -INFINITY;
    bool ints = true;
    for (size_t i = 0; i < n; i++) {
        double x = *(const double *)((const char *)v + i * stride);
        if (!isfinite(x))
            continue;
        mx = fmax(mx, fabs(x));
        lo = fmin(lo, x);
        hi = fmax(hi, x);
        ints &= x == floor(x);
    }
    if (!(mx > 0) || (ints && mx < 1e15))
        return 0;
    if (mx >= 1e9)
        return -1;
    int d = sig - 1 - (int)floor(log10(mx));
    if (hi > lo) {
        int ds = 1 - (int)floor(log10(hi - lo));
        if (ds > d)
            d = ds;
    }
    if (d > 8)
        return mx < 1e-4 ? -1 : 8;
    return d < 0 ? 0 : d;
}

static const char *col_fmt(char *buf, size_t cap, double v, int dec, int sig)
{
    if (!isfinite(v))
        snprintf(buf, cap, "\xE2\x80\x94");
    else if (dec < 0)
        snprintf(buf, cap, "%.*e", sig - 1, v);
    else
        snprintf(buf, cap, "%.*f", dec, v);
    return buf;
}

static void find_cols(struct sweep *S)
{
    size_t cap = 0;
    for (size_t i = 0; i < S->n; i++)
        cap += S->rows[i].nkv;
    S->x = cap ? calloc(cap, sizeof *S->x) : NULL;
    if (cap && !S->x) {
        S->oom = true;
        sum_oom_note();
        return;
    }
    for (int metric = 0; metric <= 1; metric++) /* the params first, then the metrics */
        for (size_t i = 0; i < S->n; i++)
            for (size_t k = 0; k < S->rows[i].nkv; k++) {
                const struct sum_sweep_kv *kv = &S->rows[i].kv[k];
                if (kv->metric != (metric == 1))
                    continue;
                size_t q = 0;
                while (q < S->nx && (S->x[q].metric != kv->metric || strcmp(S->x[q].key, kv->key)))
                    q++;
                if (q == S->nx)
                    S->x[S->nx++] = (struct xcol){.key = kv->key, .metric = kv->metric};
            }
    double *vals = S->n ? calloc(S->n, sizeof *vals) : NULL;
    if (!vals) {
        S->oom = true;
        sum_oom_note();
        return;
    }
    for (size_t q = 0; q < S->nx; q++) {
        struct xcol *c = &S->x[q];
        const char *first = NULL;
        bool seen = false;
        c->numeric = true;
        for (size_t i = 0; i < S->n; i++) {
            if (!S->rows[i].have)
                continue;
            const struct sum_sweep_kv *kv = kv_of(&S->rows[i], c);
            const char *t = kv ? kv->text : "";
            if (kv && !isfinite(kv->num))
                c->numeric = false;
            if (!seen)
                first = t;
            else if (strcmp(first, t) != 0)
                c->varies = true;
            seen = true;
            vals[i] = kv ? kv->num : NAN;
        }
        if (c->metric) {
            for (size_t i = 0; i < S->n; i++)
                if (!S->rows[i].have)
                    vals[i] = NAN;
            c->dec = sum_sweep_decimals(vals, S->n, sizeof *vals, 4);
            c->lower = sum_sweep_lower_is_better(c->key);
        }
    }
    free(vals);
}

/* ---- the table ------------------------------------------------------------------------------- */

/* The headline figures after energy and duration (sum_report_shown, SUM_SHOW_SWEEP): energy is
 * its own column already. */
struct fig_head {
    const struct sum_row_def *col[SUM_SWEEP_MAX_FIGS];
    size_t n;
};

static void take_head(void *ctx, const struct sum_row_def *col, double v)
{
    (void)v;
    struct fig_head *h = ctx;
    if (h->n < SUM_SWEEP_MAX_FIGS)
        h->col[h->n] = col;
    h->n++;
}

static void td_na(FILE *f)
{
    fputs("<td class=\"na\" data-v=\"\">\xE2\x80\x94</td>", f);
}

static void td_num(FILE *f, double data, const char *shown)
{
    if (!isfinite(data)) {
        td_na(f);
        return;
    }
    fprintf(f, "<td class=\"n\" data-v=\"%.17g\">", data);
    ht_esc(f, shown);
    fputs("</td>", f);
}

static void th_sort(FILE *f, const char *cls, const char *title, const char *text,
                    const char *unit)
{
    fprintf(f, "<th class=\"sort%s%s\" scope=\"col\"", *cls ? " " : "", cls);
    if (title) {
        fputs(" title=\"", f);
        ht_esc(f, title);
        fputc('"', f);
    }
    fputc('>', f);
    ht_esc(f, text);
    if (unit && *unit) {
        fputs(" <small>[", f);
        ht_esc(f, unit);
        fputs("]</small>", f);
    }
    fputs("</th>", f);
}

static void status_cell(FILE *f, const struct sum_sweep_row *r)
{
    const char *st = sum_status_names[r->status];
    bool ok = r->status == SUM_STATUS_OK;
    fputs("<td class=\"st\" data-v=\"", f);
    ht_esc(f, st);
    fputs(ok ? "\">" : "\"><span class=\"badstatus\">", f);
    ht_esc(f, st);
    if (!ok)
        fputs("</span>", f);
    if (!ok && r->reason && r->reason[0]) { /* ok says it all; the rest say why */
        fputs("<small class=\"why\">", f);
        ht_esc(f, r->reason);
        fputs("</small>", f);
    }
    if (r->notes) { /* the verdicts' ids (the rows' notes) */
        fprintf(f, "<small class=\"notes %s\" data-notes=\"", r->notes_warn ? "warning" : "info");
        ht_esc(f, r->notes);
        fputs("\">", f);
        ht_esc(f, r->notes);
        fputs("</small>", f);
    }
    fputs("</td>", f);
}

/* Per column of figures: its decimals at sig digits in the unit people read. */
struct fig_dec {
    int energy, fig[SUM_SWEEP_MAX_FIGS];
};

static double shown_value(double v, enum sum_dim dim, const struct sum_units *u)
{
    return isfinite(v) ? sum_dim_value(u, dim, v) : v;
}

static void fig_decimals(const struct sweep *S, const struct fig_head *H, struct fig_dec *D)
{
    double *v = S->n ? calloc(S->n, sizeof *v) : NULL;
    if (!v) {
        if (S->n)
            sum_oom_note(); /* the default decimals: not the ones the figures need */
        return;
    }
    for (size_t i = 0; i < S->n; i++)
        v[i] = shown_value(S->rows[i].energy_wh, SUM_DIM_ENERGY, S->u);
    D->energy = sum_sweep_decimals(v, S->n, sizeof *v, 3);
    for (size_t k = 0; k < H->n && k < SUM_SWEEP_MAX_FIGS; k++) {
        for (size_t i = 0; i < S->n; i++)
            v[i] = shown_value(S->rows[i].figs[k], H->col[k]->dim, S->u);
        D->fig[k] = sum_sweep_decimals(v, S->n, sizeof *v, 3);
    }
    free(v);
}

static void write_row(FILE *f, const struct sweep *S, size_t i, const struct fig_head *H,
                      const struct fig_dec *D)
{
    const struct sum_sweep_row *r = &S->rows[i];
    char b[64];
    fprintf(f, "<tr id=\"run-%zu\"><th scope=\"row\" class=\"run\" data-v=\"", i);
    ht_esc(f, r->name);
    fputs("\" title=\"", f); /* a long name is cut: whole on hover */
    ht_esc(f, r->name);
    fputs("\"><span class=\"rn\">", f);
    if (r->link) {
        fputs("<a href=\"", f);
        ht_put_href(f, r->link);
        fputs("\">", f);
        ht_esc(f, r->name);
        fputs("</a>", f);
    } else {
        ht_esc(f, r->name);
    }
    fputs("</span>", f);
    if (!r->have) {
        fputs(" <small>(", f);
        ht_esc(f, strerror(r->rc < 0 ? -r->rc : EIO));
        fputs(")</small>", f);
    }
    fputs("</th>", f);
    if (r->have)
        status_cell(f, r);
    else
        td_na(f);
    for (size_t q = 0; q < S->nx; q++) {
        const struct xcol *c = &S->x[q];
        if (!c->metric && !c->varies)
            continue;
        const struct sum_sweep_kv *kv = r->have ? kv_of(r, c) : NULL;
        if (!kv) {
            td_na(f);
        } else if (c->metric && isfinite(kv->num)) { /* data-v: as the JSON has it */
            fputs("<td class=\"n\" data-v=\"", f);
            ht_esc(f, kv->text);
            fprintf(f, "\">%s</td>", col_fmt(b, sizeof b, kv->num, c->dec, 4));
        } else if (isfinite(kv->num)) { /* a param: as the job logged it */
            fputs("<td class=\"n\" data-v=\"", f);
            ht_esc(f, kv->text);
            fputs("\">", f);
            ht_esc(f, kv->text);
            fputs("</td>", f);
        } else {
            fputs("<td class=\"t\" data-v=\"", f);
            ht_esc(f, kv->text);
            fputs("\">", f);
            ht_esc(f, kv->text);
            fputs("</td>", f);
        }
    }
    if (!r->have) { /* energy, duration, the figures but energy, sparkline, start, warnings */
        for (size_t k = 0; k < H->n && k < SUM_SWEEP_MAX_FIGS; k++)
            if (strcmp(H->col[k]->key, "energy_wh") != 0)
                td_na(f);
        for (size_t k = 0; k < 2 + 3; k++)
            td_na(f);
        fputs("</tr>\n", f);
        return;
    }
    td_num(f, r->energy_wh,
           col_fmt(b, sizeof b, shown_value(r->energy_wh, SUM_DIM_ENERGY, S->u), D->energy, 3));
    if (isfinite(r->duration))
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s</td>", r->duration,
                S->u && S->u->given[SUM_DIM_TIME]
                    ? ht_fmt_dim(b, sizeof b, r->duration, SUM_DIM_TIME, S->u)
                    : ht_fmt_dur(b, sizeof b, r->duration));
    else
        td_na(f);
    for (size_t k = 0; k < H->n && k < SUM_SWEEP_MAX_FIGS; k++) {
        if (!strcmp(H->col[k]->key, "energy_wh"))
            continue;
        td_num(f, r->figs[k],
               col_fmt(b, sizeof b, shown_value(r->figs[k], H->col[k]->dim, S->u), D->fig[k], 3));
    }
    fputs(r->spark ? r->spark : "<td class=\"na\" data-v=\"\">\xE2\x80\x94</td>", f);
    if (isfinite(r->start))
        fprintf(f, "<td data-v=\"%.3f\">%.16s</td>", r->start, ht_fmt_utc(b, sizeof b, r->start));
    else
        td_na(f);
    fprintf(f, "<td class=\"n\" data-v=\"%zu\">%zu</td></tr>\n", r->warnings, r->warnings);
}

static void write_table(FILE *f, const struct sweep *S)
{
    struct fig_head H = {0};
    sum_report_shown(NULL, SUM_SHOW_SWEEP, take_head, &H);
    struct fig_dec D = {0};
    fig_decimals(S, &H, &D);
    fputs("<div class=\"sweepwrap\" id=\"runs-box\">\n<table class=\"sweep sortable\" "
          "id=\"runs\">\n<thead><tr>",
          f);
    th_sort(f, "run", NULL, "Run", NULL);
    th_sort(f, "", NULL, "Status", NULL);
    for (size_t q = 0; q < S->nx; q++) {
        const struct xcol *c = &S->x[q];
        if (!c->metric && !c->varies)
            continue;
        char title[300];
        snprintf(title, sizeof title, "%s.%s%s", c->metric ? "metric" : "param", c->key,
                 !c->metric                ? " (varies across the sweep)"
                 : c->lower                ? " (its last value; lower is better)"
                                           : " (its last value; higher is better)");
        th_sort(f, c->metric ? "n metric" : c->numeric ? "n param" : "param", title, c->key,
                NULL);
    }
    th_sort(f, "n", "the GPUs' energy over the run", "Energy", sum_dim_unit(S->u, SUM_DIM_ENERGY));
    th_sort(f, "n", "from hwmon's start to its stop", "Duration", NULL);
    for (size_t k = 0; k < H.n && k < SUM_SWEEP_MAX_FIGS; k++) {
        const struct sum_row_def *col = H.col[k];
        if (!strcmp(col->key, "energy_wh"))
            continue;
        const char *unit = sum_dim_unit(S->u, col->dim);
        th_sort(f, "n", col->what, col->show.head, *unit ? unit : NULL);
    }
    th_sort(f, "",
            "GPU utilization over the run (mean of the GPUs per column, 0\xE2\x80\x93"
            "100%)",
            "GPU utilization", NULL);
    th_sort(f, "n", NULL, "Start (UTC)", NULL);
    th_sort(f, "n", "data-quality warnings of the run", "Warnings", NULL);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < S->n; i++)
        write_row(f, S, i, &H, &D);
    fputs("</tbody>\n</table>\n</div>\n", f);
}

/* ---- the plots ------------------------------------------------------------------------------- */

#define SW 480 /* a scatter's viewBox */
#define SH 300
#define SL 58
#define SR 14
#define ST 10
#define SB 40

struct axis1 {
    double lo, hi, step;
    int dec;
};

static void nice_axis(struct axis1 *a, double lo, double hi)
{
    if (!(hi > lo)) {
        double pad = lo != 0 ? fabs(lo) * 0.1 : 1;
        lo -= pad;
        hi += pad;
    }
    a->step = ht_nice_step((hi - lo) / 5);
    a->lo = floor(lo / a->step) * a->step;
    a->hi = ceil(hi / a->step) * a->step;
    if (!(a->hi > a->lo))
        a->hi = a->lo + a->step;
    a->dec = ht_step_decimals(a->step);
}

static double ax_x(const struct axis1 *a, double v)
{
    return SL + (v - a->lo) / (a->hi - a->lo) * (SW - SL - SR);
}

static double ax_y(const struct axis1 *a, double v)
{
    return ST + (a->hi - v) / (a->hi - a->lo) * (SH - ST - SB);
}

static void draw_axes(FILE *f, const struct axis1 *x, const struct axis1 *y, const char *xlab,
                      const char *ylab)
{
    fprintf(f, "<rect class=\"pa\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", SL, ST,
            SW - SL - SR, SH - ST - SB);
    for (int k = 0; k <= 60; k++) {
        double v = x->lo + k * x->step;
        if (v > x->hi + x->step * 1e-6)
            break;
        double px = ax_x(x, v);
        fprintf(f, "<line class=\"gx\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                   "<text class=\"tx\" x=\"%.1f\" y=\"%d\">%.*f</text>",
                px, px, ST, SH - SB, px, SH - SB + 13, x->dec, fabs(v) < x->step * 1e-9 ? 0 : v);
    }
    for (int k = 0; k <= 60; k++) {
        double v = y->lo + k * y->step;
        if (v > y->hi + y->step * 1e-6)
            break;
        double py = ax_y(y, v);
        fprintf(f, "<line class=\"gy\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"ty\" x=\"%d\" y=\"%.1f\">%.*f</text>",
                SL, SW - SR, py, py, SL - 4, py + 3.5, y->dec, fabs(v) < y->step * 1e-9 ? 0 : v);
    }
    fprintf(f, "<text class=\"ax\" x=\"%d\" y=\"%d\">", SW - SR, SH - 6);
    ht_esc(f, xlab);
    fprintf(f, "</text><text class=\"ax\" transform=\"translate(12 %d) rotate(-90)\">",
            ST + (SH - ST - SB) / 2);
    ht_esc(f, ylab);
    fputs("</text>", f);
}

/* A plotted run's hover text: its name and figures. */
static void point_title(FILE *f, const struct sweep *S, size_t i, const struct xcol *m)
{
    const struct sum_sweep_row *r = &S->rows[i];
    char b[64];
    fputs("<title>", f);
    ht_esc(f, r->name);
    fputs(" (", f);
    ht_esc(f, sum_status_names[r->status]);
    fputs("): ", f);
    ht_esc(f, m->key);
    fprintf(f, " %s", col_fmt(b, sizeof b, num_of(r, m), m->dec, 4));
    fprintf(f, ", %s", ht_fmt_dim(b, sizeof b, r->energy_wh, SUM_DIM_ENERGY, S->u));
    fprintf(f, ", %s", ht_fmt_dur(b, sizeof b, r->duration));
    for (size_t q = 0; q < S->nx; q++) {
        const struct xcol *c = &S->x[q];
        const struct sum_sweep_kv *kv;
        if (c->metric || !c->varies || !(kv = kv_of(r, c)))
            continue;
        fputs(", ", f);
        ht_esc(f, c->key);
        fputc('=', f);
        ht_esc(f, kv->text);
    }
    fputs("</title>", f);
}

struct vi {
    double v;
    size_t i;
};

static int by_vi(const void *a, const void *b)
{
    const struct vi *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The runs on the Pareto front of (metric, energy): those no other good run matches or beats on
 * both, one strictly; only runs that ended ok, with both figures. on[i] set for them; returns
 * how many. By energy, then the metric's better end first: a run is on the front when its metric
 * beats every run of less energy, and no run of the same energy beats it. */
struct pf {
    double e, g;
    size_t i;
};

static int by_pf(const void *a, const void *b)
{
    const struct pf *x = a, *y = b;
    if (x->e != y->e)
        return x->e < y->e ? -1 : 1;
    if (x->g != y->g)
        return x->g < y->g ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

size_t sum_sweep_pareto(const double *metric, const double *energy, const bool *good, size_t n,
                        bool lower, bool *on)
{
    struct pf *p = n ? calloc(n, sizeof *p) : NULL;
    if (n && !p)
        sum_oom_note(); /* no frontier drawn */
    size_t m = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
        on[i] = false;
        if (p && good[i] && isfinite(metric[i]) && isfinite(energy[i]))
            p[m++] = (struct pf){energy[i], lower ? metric[i] : -metric[i], i};
    }
    if (!p)
        return 0;
    qsort(p, m, sizeof *p, by_pf);
    double best = INFINITY; /* the best g of the runs of less energy */
    for (size_t a = 0; a < m;) {
        size_t b = a;
        while (b < m && p[b].e == p[a].e)
            b++;
        double gmin = p[a].g; /* sorted: the group's best first */
        for (size_t k = a; k < b && p[k].g == gmin; k++)
            if (gmin < best) {
                on[p[k].i] = true;
                count++;
            }
        if (gmin < best)
            best = gmin;
        a = b;
    }
    free(p);
    return count;
}

static bool good_run(const struct sum_sweep_row *r)
{
    return r->have && r->status == SUM_STATUS_OK;
}

/* A scatter of metric m (y) against x (energy or duration) of every run with both; the front's
 * runs (on, NULL: none marked) data-pareto="1" and joined by a step line. */
static void scatter(FILE *f, const struct sweep *S, const struct xcol *m, size_t mi, bool energy,
                    const bool *on)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t n = 0, left = 0;
    for (size_t i = 0; i < S->n; i++) {
        const struct sum_sweep_row *r = &S->rows[i];
        double x = energy ? r->energy_wh : r->duration, y = r->have ? num_of(r, m) : NAN;
        if (!r->have)
            continue;
        if (!isfinite(x) || !isfinite(y)) {
            left++;
            continue;
        }
        xlo = fmin(xlo, x), xhi = fmax(xhi, x), ylo = fmin(ylo, y), yhi = fmax(yhi, y);
        n++;
    }
    const char *xunit = energy ? sum_dim_unit(S->u, SUM_DIM_ENERGY) : "s";
    fprintf(f, "<figure class=\"scatter\" id=\"scatter-%s-%zu\" data-x=\"%s\" data-metric=\"",
            energy ? "energy" : "duration", mi, energy ? "energy_wh" : "duration_sec");
    ht_esc(f, m->key);
    fprintf(f, "\" data-n=\"%zu\">", n);
    if (!n) {
        fputs("<figcaption>No run has both ", f);
        ht_esc(f, m->key);
        fprintf(f, " and %s.</figcaption></figure>\n", energy ? "an energy" : "a duration");
        return;
    }
    struct axis1 ax, ay;
    double xs = energy ? shown_value(1, SUM_DIM_ENERGY, S->u) : 1; /* base unit to shown */
    nice_axis(&ax, xlo * xs, xhi * xs);
    nice_axis(&ay, ylo, yhi);
    fprintf(f, "<svg class=\"plot sc\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", SW, SH);
    ht_esc(f, m->key);
    fprintf(f, " against %s\">", energy ? "energy" : "duration");
    char xlab[64];
    snprintf(xlab, sizeof xlab, "%s [%s]", energy ? "energy" : "duration", xunit);
    draw_axes(f, &ax, &ay, xlab, m->key);
    if (on) { /* the front as a staircase, by energy */
        fputs("<path class=\"front\" d=\"", f);
        bool first = true;
        size_t k = 0;
        struct vi *idx = calloc(S->n ? S->n : 1, sizeof *idx);
        if (!idx)
            sum_oom_note();
        for (size_t i = 0; idx && i < S->n; i++)
            if (on[i])
                idx[k++] = (struct vi){S->rows[i].energy_wh, i};
        if (k)
            qsort(idx, k, sizeof *idx, by_vi);
        for (size_t a = 0; a < k; a++) {
            const struct sum_sweep_row *r = &S->rows[idx[a].i];
            double px = ax_x(&ax, r->energy_wh * xs), py = ax_y(&ay, num_of(r, m));
            if (first)
                fprintf(f, "M%.1f %.1f", px, py);
            else
                fprintf(f, "H%.1fV%.1f", px, py);
            first = false;
        }
        free(idx);
        fputs("\"/>", f);
    }
    for (size_t i = 0; i < S->n; i++) {
        const struct sum_sweep_row *r = &S->rows[i];
        double x = energy ? r->energy_wh : r->duration, y = r->have ? num_of(r, m) : NAN;
        if (!r->have || !isfinite(x) || !isfinite(y))
            continue;
        bool good = good_run(r), front = on && on[i];
        fprintf(f, "<a href=\"#run-%zu\"><circle class=\"pt%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" "
                   "data-run=\"",
                i, good ? "" : " bad", front ? " pf" : "", ax_x(&ax, x * xs), ax_y(&ay, y),
                front ? "5" : "3.5");
        ht_esc(f, r->name);
        fputs(front ? "\" data-pareto=\"1\">" : "\">", f);
        point_title(f, S, i, m);
        fputs("</circle></a>", f);
    }
    fputs("</svg><figcaption>", f);
    ht_esc(f, m->key);
    fprintf(f, " (%s is better) against %s: <b>%zu</b> run%s", m->lower ? "lower" : "higher",
            energy ? "energy" : "duration", n, n == 1 ? "" : "s");
    if (left)
        fprintf(f, "; %zu without both not drawn", left);
    fputs(". Hollow red: did not end ok", f);
    if (on)
        fputs("; large, joined: the Pareto front (no other run that ended ok has both less "
              "energy and a better value)",
              f);
    fputs(". Hover a point for its run, click it for its row.</figcaption></figure>\n", f);
}

/* Spearman's rank correlation of x and y over the pairs both have (n of them); NAN under 3. */
static void ranks(const double *v, size_t n, double *rk, struct vi *ord)
{
    for (size_t i = 0; i < n; i++)
        ord[i] = (struct vi){v[i], i};
    qsort(ord, n, sizeof *ord, by_vi);
    for (size_t a = 0; a < n;) { /* ties share their mean rank */
        size_t b = a;
        while (b < n && ord[b].v == ord[a].v)
            b++;
        for (size_t k = a; k < b; k++)
            rk[ord[k].i] = (double)(a + b - 1) / 2 + 1;
        a = b;
    }
}

double sum_sweep_spearman(const double *x, const double *y, size_t n, size_t *used)
{
    double *a = calloc(n ? n : 1, sizeof *a), *b = calloc(n ? n : 1, sizeof *b);
    double *ra = calloc(n ? n : 1, sizeof *ra), *rb = calloc(n ? n : 1, sizeof *rb);
    struct vi *ord = calloc(n ? n : 1, sizeof *ord);
    size_t m = 0;
    double rho = NAN;
    if (!(a && b && ra && rb && ord))
        sum_oom_note();
    else {
        for (size_t i = 0; i < n; i++)
            if (isfinite(x[i]) && isfinite(y[i])) {
                a[m] = x[i];
                b[m] = y[i];
                m++;
            }
        if (m >= 3) {
            ranks(a, m, ra, ord);
            ranks(b, m, rb, ord);
            double ma = 0, mb = 0;
            for (size_t i = 0; i < m; i++)
                ma += ra[i], mb += rb[i];
            ma /= (double)m, mb /= (double)m;
            double sab = 0, saa = 0, sbb = 0;
            for (size_t i = 0; i < m; i++) {
                sab += (ra[i] - ma) * (rb[i] - mb);
                saa += (ra[i] - ma) * (ra[i] - ma);
                sbb += (rb[i] - mb) * (rb[i] - mb);
            }
            rho = saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
        }
    }
    free(a), free(b), free(ra), free(rb), free(ord);
    if (used)
        *used = m;
    return rho;
}

/* Per varying param: Spearman's rho with the metric over the runs that ended ok, the runs it
 * rests on, a bar. */
static void importance(FILE *f, const struct sweep *S, const struct xcol *m, size_t mi)
{
    double *x = calloc(S->n ? S->n : 1, sizeof *x), *y = calloc(S->n ? S->n : 1, sizeof *y);
    if (!x || !y) {
        free(x), free(y);
        sum_oom_note();
        return;
    }
    fprintf(f, "<table class=\"imp\" id=\"importance-%zu\"><caption>Which param goes with ", mi);
    ht_esc(f, m->key);
    fputs(": Spearman's rank correlation over the runs that ended ok (\xE2\x88\x92"
          "1 to 1; 0: none)</caption>\n<thead><tr><th scope=\"col\">param</th><th class=\"n\" "
          "scope=\"col\">\xCF\x81</th><th class=\"n\" scope=\"col\">runs</th><th "
          "scope=\"col\"></th></tr></thead><tbody>\n",
          f);
    bool any = false;
    for (size_t q = 0; q < S->nx; q++) {
        const struct xcol *c = &S->x[q];
        if (c->metric || !c->varies)
            continue;
        any = true;
        fputs("<tr data-param=\"", f);
        ht_esc(f, c->key);
        fputs("\"><th scope=\"row\">", f);
        ht_esc(f, c->key);
        fputs("</th>", f);
        if (!c->numeric) {
            fputs("<td class=\"na\" colspan=\"3\">not a number in every run</td></tr>\n", f);
            continue;
        }
        for (size_t i = 0; i < S->n; i++) {
            bool g = good_run(&S->rows[i]);
            x[i] = g ? num_of(&S->rows[i], c) : NAN;
            y[i] = g ? num_of(&S->rows[i], m) : NAN;
        }
        size_t used;
        double rho = sum_sweep_spearman(x, y, S->n, &used);
        if (isfinite(rho))
            fprintf(f, "<td class=\"n\" data-rho=\"%.6f\">%+.2f</td>", rho, rho);
        else
            fputs("<td class=\"na\">\xE2\x80\x94</td>", f);
        fprintf(f, "<td class=\"n\">%zu</td><td class=\"bar\">", used);
        if (isfinite(rho)) /* a bar from the middle: left negative, right positive */
            fprintf(f, "<svg viewBox=\"0 0 100 10\" width=\"100\" height=\"10\" role=\"img\" "
                       "aria-label=\"rho\"><line x1=\"50\" x2=\"50\" y1=\"0\" y2=\"10\" "
                       "class=\"gy\"/><rect class=\"%s\" x=\"%.1f\" y=\"1\" width=\"%.1f\" "
                       "height=\"8\"/></svg>",
                    rho >= 0 ? "rpos" : "rneg", rho >= 0 ? 50 : 50 + 50 * rho, 50 * fabs(rho));
        fputs("</td></tr>\n", f);
    }
    if (!any)
        fputs("<tr><td colspan=\"4\">No param varies across the sweep.</td></tr>\n", f);
    fputs("</tbody></table>\n", f);
    free(x);
    free(y);
}

/* Parallel coordinates: an axis per varying numeric param and the metric last, a line per run
 * coloured by its metric (darker: better), runs that did not end ok dashed grey. */
#define PW 480
#define PH 240
static void parallel(FILE *f, const struct sweep *S, const struct xcol *m, size_t mi)
{
    const struct xcol *ax[16];
    size_t na = 0;
    for (size_t q = 0; q < S->nx && na < 15; q++)
        if (!S->x[q].metric && S->x[q].varies && S->x[q].numeric)
            ax[na++] = &S->x[q];
    if (!na)
        return;
    ax[na++] = m;
    double lo[16], hi[16];
    for (size_t k = 0; k < na; k++) {
        lo[k] = INFINITY, hi[k] = -INFINITY;
        for (size_t i = 0; i < S->n; i++) {
            double v = S->rows[i].have ? num_of(&S->rows[i], ax[k]) : NAN;
            if (isfinite(v))
                lo[k] = fmin(lo[k], v), hi[k] = fmax(hi[k], v);
        }
    }
    fprintf(f, "<figure class=\"par\" id=\"parallel-%zu\"><svg class=\"plot\" viewBox=\"0 0 %d "
               "%d\" role=\"img\" aria-label=\"parallel coordinates\">",
            mi, PW, PH);
    double x0 = 40, dx = (PW - 80.0) / (double)(na - 1 > 0 ? na - 1 : 1), top = 22, h = PH - 44;
    char b[64];
    for (size_t i = 0; i < S->n; i++) {
        const struct sum_sweep_row *r = &S->rows[i];
        double mv = r->have ? num_of(r, m) : NAN;
        if (!r->have)
            continue;
        bool good = good_run(r);
        /* the metric's place in its range, better end 1: one of five shades */
        double t = hi[na - 1] > lo[na - 1] && isfinite(mv)
                       ? (mv - lo[na - 1]) / (hi[na - 1] - lo[na - 1])
                       : 0.5;
        if (m->lower)
            t = 1 - t;
        int shade = (int)fmin(4, floor(t * 5));
        fprintf(f, "<a href=\"#run-%zu\"><path class=\"pc %s\" d=\"", i,
                good ? (const char *[]){"c0", "c1", "c2", "c3", "c4"}[shade] : "bad");
        bool pen = false;
        for (size_t k = 0; k < na; k++) {
            double v = num_of(r, ax[k]);
            if (!isfinite(v)) {
                pen = false;
                continue;
            }
            double u = hi[k] > lo[k] ? (v - lo[k]) / (hi[k] - lo[k]) : 0.5;
            fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', x0 + dx * (double)k, top + h * (1 - u));
            pen = true;
        }
        fputs("\">", f);
        fputs("<title>", f);
        ht_esc(f, r->name);
        fputs(": ", f);
        ht_esc(f, m->key);
        fprintf(f, " %s</title></path></a>", col_fmt(b, sizeof b, mv, m->dec, 4));
    }
    for (size_t k = 0; k < na; k++) {
        double px = x0 + dx * (double)k;
        fprintf(f, "<line class=\"pax\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", px,
                px, top, top + h);
        fprintf(f, "<text class=\"tx\" x=\"%.1f\" y=\"%.1f\">", px, top - 8);
        ht_esc(f, ax[k]->key);
        fprintf(f, "</text><text class=\"tx\" x=\"%.1f\" y=\"%.1f\">%s</text>", px, top + h + 14,
                ht_fmt_num(b, sizeof b, lo[k]));
        fprintf(f, "<text class=\"ty2\" x=\"%.1f\" y=\"%.1f\">%s</text>", px + 3, top + 9,
                ht_fmt_num(b, sizeof b, hi[k]));
    }
    fputs("</svg><figcaption>Parallel coordinates: each run a line through its params and ", f);
    ht_esc(f, m->key);
    fputs(" (darker: better; dashed grey: did not end ok).</figcaption></figure>\n", f);
}

/* The front's runs, best metric first, each a link to its row. */
static void front_list(FILE *f, const struct sweep *S, const struct xcol *m, size_t mi,
                       const bool *on, size_t non)
{
    fprintf(f, "<p class=\"frontlist\" id=\"front-%zu\" data-n=\"%zu\">Pareto front of ", mi, non);
    ht_esc(f, m->key);
    fputs(" and energy: ", f);
    if (!non) {
        fputs("no run that ended ok has both.</p>\n", f);
        return;
    }
    bool *done = calloc(S->n, sizeof *done);
    if (S->n && !done)
        sum_oom_note();
    char b[64], e[64];
    for (size_t k = 0; done && k < non; k++) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < S->n; i++) {
            if (!on[i] || done[i])
                continue;
            double v = num_of(&S->rows[i], m);
            double bv = best == SIZE_MAX ? NAN : num_of(&S->rows[best], m);
            if (best == SIZE_MAX || (m->lower ? v < bv : v > bv))
                best = i;
        }
        done[best] = true;
        const struct sum_sweep_row *r = &S->rows[best];
        fprintf(f, "%s<a href=\"#run-%zu\">", k ? " \xC2\xB7 " : "", best);
        ht_esc(f, r->name);
        fprintf(f, "</a> (%s, %s)", col_fmt(b, sizeof b, num_of(r, m), m->dec, 4),
                ht_fmt_dim(e, sizeof e, r->energy_wh, SUM_DIM_ENERGY, S->u));
    }
    free(done);
    fputs("</p>\n", f);
}

/* How many metrics get their own plots (the select lists them): each costs about
 * SWEEP_PLOT_RUN_BYTES a run, and a sweep of thousands of runs must stay a page a browser opens
 * at once (a 1,000-run page under 5 MB with its table): at most SWEEP_PLOT_METRICS, fewer as the
 * runs grow so that the plots stay within SWEEP_PLOT_BYTES, at least one. */
#define SWEEP_PLOT_METRICS 8
#define SWEEP_PLOT_RUN_BYTES 520
#define SWEEP_PLOT_BYTES 2000000

static size_t plot_metrics(size_t nruns)
{
    size_t k = SWEEP_PLOT_BYTES / (SWEEP_PLOT_RUN_BYTES * (nruns ? nruns : 1));
    return k < 1 ? 1 : k > SWEEP_PLOT_METRICS ? SWEEP_PLOT_METRICS : k;
}

static void write_plots(FILE *f, const struct sweep *S)
{
    size_t kmax = plot_metrics(S->n);
    /* the default: the first metric logged that is not a counter (epoch, step), else the first */
    size_t nm = 0, first = SIZE_MAX, any = SIZE_MAX;
    for (size_t q = 0; q < S->nx; q++)
        if (S->x[q].metric && S->x[q].numeric) {
            if (nm < kmax && any == SIZE_MAX)
                any = q;
            if (nm < kmax && first == SIZE_MAX && !sum_sweep_counter(S->x[q].key))
                first = q;
            nm++;
        }
    if (first == SIZE_MAX)
        first = any;
    fputs("<section class=\"plots\" id=\"plots\">\n<h2>Which run, and at what cost</h2>\n", f);
    if (!nm) {
        fputs("<p class=\"meta\">No run logged a metric (<code>runlog event metric "
              "loss=1.93</code>, or numbers in its phase entries): nothing to plot against "
              "energy.</p>\n</section>\n",
              f);
        return;
    }
    fputs("<p class=\"meta\"><label>Metric <select id=\"metric\">", f);
    size_t shown = 0;
    for (size_t q = 0; q < S->nx && shown < kmax; q++) {
        const struct xcol *c = &S->x[q];
        if (!c->metric || !c->numeric)
            continue;
        fprintf(f, "<option value=\"%zu\"%s>", q, q == first ? " selected" : "");
        ht_esc(f, c->key);
        fprintf(f, " (%s is better)</option>", c->lower ? "lower" : "higher");
        shown++;
    }
    fputs("</select></label>", f);
    if (nm > kmax)
        fprintf(f, " (plots of the first %zu of %zu metrics, so that a page of %zu runs stays "
                   "small; the table has every one)", kmax, nm, S->n);
    fputs("</p>\n", f);
    double *mv = calloc(S->n ? S->n : 1, sizeof *mv), *ev = calloc(S->n ? S->n : 1, sizeof *ev);
    bool *good = calloc(S->n ? S->n : 1, sizeof *good), *on = calloc(S->n ? S->n : 1, sizeof *on);
    if (!mv || !ev || !good || !on) {
        free(mv), free(ev), free(good), free(on);
        sum_oom_note();
        fputs("</section>\n", f);
        return;
    }
    shown = 0;
    for (size_t q = 0; q < S->nx && shown < kmax; q++) {
        const struct xcol *m = &S->x[q];
        if (!m->metric || !m->numeric)
            continue;
        shown++;
        for (size_t i = 0; i < S->n; i++) {
            good[i] = good_run(&S->rows[i]);
            mv[i] = S->rows[i].have ? num_of(&S->rows[i], m) : NAN;
            ev[i] = S->rows[i].energy_wh;
        }
        size_t non = sum_sweep_pareto(mv, ev, good, S->n, m->lower, on);
        fprintf(f, "<div class=\"bymetric\" data-metric=\"%zu\"%s>\n<div class=\"pgrid\">", q,
                q == first ? "" : " hidden");
        scatter(f, S, m, q, true, on);
        scatter(f, S, m, q, false, NULL);
        fputs("</div>\n", f);
        front_list(f, S, m, q, on, non);
        fputs("<div class=\"pgrid\">", f);
        importance(f, S, m, q);
        parallel(f, S, m, q);
        fputs("</div>\n</div>\n", f);
    }
    free(mv), free(ev), free(good), free(on);
    fputs("</section>\n", f);
}

/* ---- the page -------------------------------------------------------------------------------- */

static const char sweep_js[] =
    "(function(){\n"
    "var t=document.getElementById('runs');if(!t)return;\n"
    "var hs=t.tHead.rows[0].cells;\n"
    "function key(r,i){var v=r.cells[i].getAttribute('data-v');return v===null?'':v;}\n"
    "function sortBy(i,asc){var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows);\n"
    " rs.sort(function(x,y){var a=key(x,i),c=key(y,i);if(a===''||c==='')return "
    "a===c?0:a===''?1:-1;\n"
    "  var p=parseFloat(a),q=parseFloat(c),r=(!isNaN(p)&&!isNaN(q))?p-q:(a<c?-1:a>c?1:0);\n"
    "  return asc?r:-r;});\n"
    " rs.forEach(function(r){b.appendChild(r);});\n"
    " for(var j=0;j<hs.length;j++)hs[j].removeAttribute('aria-sort');\n"
    " hs[i].setAttribute('aria-sort',asc?'ascending':'descending');}\n"
    "Array.prototype.forEach.call(hs,function(h,i){h.addEventListener('click',function(){\n"
    " sortBy(i,h.getAttribute('aria-sort')!=='ascending');});});\n"
    "var m=/#sort=(-?)(\\d+)$/.exec(location.hash);\n"
    "if(m&&+m[2]<hs.length)sortBy(+m[2],m[1]!=='-');\n"
    "t.setAttribute('data-sortable','ready');\n"
    "var s=document.getElementById('metric');\n"
    "if(s)s.addEventListener('change',function(){\n"
    " Array.prototype.forEach.call(document.querySelectorAll('.bymetric'),function(d){\n"
    "  d.hidden=d.getAttribute('data-metric')!==s.value;});});\n"
    "})();\n";

int sum_html_sweep(FILE *out, const struct sum_sweep_row *rows, size_t n,
                   const struct sum_html_opts *opts, char *err, size_t errlen)
{
    ht_set_err(err, errlen, "%s", "");
    if (!out || !rows || n == 0) {
        ht_set_err(err, errlen, "no output or no rows");
        return -EINVAL;
    }
    struct sweep S = {.rows = rows, .n = n, .u = opts ? opts->units : NULL};
    find_cols(&S);
    if (S.oom) {
        free(S.x);
        ht_set_err(err, errlen, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    const char *given = opts ? opts->title : NULL;
    char title[64];
    snprintf(title, sizeof title, "Sweep of %zu run%s", n, n == 1 ? "" : "s");
    ht_page_head(out, given ? given : title, true);
    fputs("<body>\n<header>\n<h1>", out);
    ht_esc(out, given ? given : title);
    fputs("</h1>\n<p class=\"meta\" id=\"counts\">", out);
    size_t by[SUM_STATUS_COUNT] = {0}, unread = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].have)
            by[rows[i].status]++;
        else
            unread++;
    }
    bool any = false;
    for (int s = 0; s < SUM_STATUS_COUNT; s++)
        if (by[s]) {
            fprintf(out, "%s<b>%zu</b> %s", any ? ", " : "", by[s], sum_status_names[s]);
            any = true;
        }
    if (unread)
        fprintf(out, "%s<b>%zu</b> not readable", any ? ", " : "", unread);
    fputs(". One row per run; click a column header to sort, a point of a plot for its "
          "run.</p>\n",
          out);
    bool same = false; /* the params equal in every run, said once */
    for (size_t q = 0; q < S.nx; q++) {
        const struct xcol *c = &S.x[q];
        if (c->metric || c->varies)
            continue;
        const struct sum_sweep_kv *kv = NULL;
        for (size_t i = 0; i < n && !kv; i++)
            kv = rows[i].have ? kv_of(&rows[i], c) : NULL;
        if (!kv)
            continue;
        fputs(same ? " \xC2\xB7 " : "<p class=\"meta\" id=\"same\">The same in every run: ", out);
        same = true;
        fputs("<span class=\"kv\" data-param=\"", out);
        ht_esc(out, c->key);
        fputs("\">", out);
        ht_esc(out, c->key);
        fputs(" <b>", out);
        ht_esc(out, kv->text);
        fputs("</b></span>", out);
    }
    if (same)
        fputs("</p>\n", out);
    fputs("</header>\n", out);
    write_table(out, &S);
    write_plots(out, &S);
    fprintf(out,
            "<footer>Written by summarize (hwrun " HWRUN_VERSION
            "). Self-contained: no network, no script library.</footer>\n<script>\n%s</script>\n"
            "</body>\n</html>\n",
            sweep_js);
    free(S.x);
    return ht_finish(out, 0, err, errlen);
}
