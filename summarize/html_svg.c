/* The HTML report's SVG (html_int.h): the phase strip, the charts on the shared time axis and
 * the sweep's sparkline, drawn from the run's timeline (timeline.h) and its phases. A series is
 * the timeline's buckets merged into pixel columns; a line breaks where the summary's gap rule
 * (rd_is_gap, with the interval the summary decided) says sampling paused, or where a value was
 * not measured. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"
#include "oom.h"
#include "report.h"

#define MAX_EVENT_LINES 512 /* events also drawn as lines across the charts, up to this many */

static int plot_w(const struct ht_page *P)
{
    return P->ncols;
}

static double x_of(const struct ht_page *P, double t)
{
    return ML + (t - P->t0) / (P->t1 - P->t0) * plot_w(P);
}

struct axis {
    double lo, hi, step;
    int decimals;
};

/* A 0-based axis up to a nice value >= vmax (or exactly top when the data fit under it). */
static struct axis y_axis(double vmin, double vmax, double top)
{
    struct axis a = {0};
    if (!isfinite(vmax))
        vmax = 1;
    if (!isfinite(vmin))
        vmin = 0;
    double lo = vmin < 0 ? vmin : 0;
    double hi = vmax;
    if (isfinite(top) && hi <= top && lo >= 0)
        hi = top;
    if (!(hi > lo))
        hi = lo + 1;
    a.step = ht_nice_step((hi - lo) / 4);
    a.lo = floor(lo / a.step) * a.step;
    a.hi = ceil(hi / a.step - 1e-9) * a.step;
    if (!(a.hi > a.lo))
        a.hi = a.lo + a.step;
    a.decimals = ht_step_decimals(a.step);
    return a;
}

static double y_of(const struct axis *a, double v)
{
    return MT + PLOT_H - (v - a->lo) / (a->hi - a->lo) * PLOT_H;
}

/* The time axis: a unit that keeps the labels short, and a 1-2-5 step. */
struct taxis {
    double unit; /* seconds per label unit */
    const char *uname;
    double step; /* in label units */
    int decimals;
};

static struct taxis t_axis(const struct ht_page *R)
{
    struct taxis a;
    double span = R->t1 - R->t0;
    if (span <= 180) {
        a.unit = 1;
        a.uname = "s";
    } else if (span <= 3 * 3600) {
        a.unit = 60;
        a.uname = "min";
    } else if (span <= 3 * 86400) {
        a.unit = 3600;
        a.uname = "h";
    } else {
        a.unit = 86400;
        a.uname = "d";
    }
    /* About one label per 100 px. */
    double n = R->ncols / 100.0;
    a.step = ht_nice_step(span / a.unit / (n < 2 ? 2 : n));
    a.decimals = ht_step_decimals(a.step);
    return a;
}

/* Path emitter: coordinates at 0.1 px; a horizontal run keeps only its two ends. */
struct pen {
    FILE *f;
    bool open;   /* a subpath is open */
    int nseg;    /* points in this subpath */
    long lx, ly; /* last point written (tenths of px) */
    bool held;   /* a point on the same row waits */
    long hx;
};

/* Tenths of a pixel as a decimal ("123.4", "-0.5"), without printf's float formatting. */
static void put_tenths(FILE *f, long v)
{
    char b[32], *e = b + sizeof b, *p = e;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    *--p = (char)('0' + u % 10);
    *--p = '.';
    u /= 10;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    fwrite(p, 1, (size_t)(e - p), f);
}

static void pen_put(struct pen *p, long x, long y, bool move)
{
    fputc(move ? 'M' : ' ', p->f);
    put_tenths(p->f, x);
    fputc(' ', p->f);
    put_tenths(p->f, y);
}

static void pen_end(struct pen *p)
{
    if (!p->open)
        return;
    if (p->held)
        pen_put(p, p->hx, p->ly, false);
    else if (p->nseg == 1)
        fputs("h1", p->f); /* a lone sample between gaps: a short dash, visible */
    p->open = false;
    p->held = false;
}

static void pen_point(struct pen *p, double xf, double yf, bool new_seg)
{
    long x = lround(xf * 10), y = lround(yf * 10);
    if (new_seg || !p->open) {
        pen_end(p);
        pen_put(p, x, y, true);
        p->open = true;
        p->nseg = 1;
        p->lx = x;
        p->ly = y;
        return;
    }
    if (y == p->ly) { /* same row: remember only the far end */
        p->held = true;
        p->hx = x;
        return;
    }
    if (p->held) {
        pen_put(p, p->hx, p->ly, false);
        p->held = false;
    }
    if (x == p->lx && y == p->ly)
        return;
    pen_put(p, x, y, false);
    p->nseg++;
    p->lx = x;
    p->ly = y;
}

/* The buckets of series s merged into ncols pixel columns of per_col seconds from t0. */
static void to_px(const struct sum_timeline *tl, const struct sum_tl_series *s, int ncols,
                  double t0, double per_col, struct sum_tl_col *px)
{
    memset(px, 0, (size_t)ncols * sizeof *px);
    if (!s->cols)
        return;
    for (int b = 0; b <= tl->hi && b < tl->nb; b++) {
        const struct sum_tl_col *k = &s->cols[b];
        if (!k->n)
            continue;
        double x = floor((sum_tl_bucket_t(tl, b) + tl->width / 2 - t0) / per_col);
        int c = !(x >= 0) ? 0 : x >= ncols ? ncols - 1 : (int)x;
        sum_tl_col_merge(&px[c], k);
    }
}

/* Draw one series (pixel columns px) as an SVG path: per column its first, extremes in time
 * order, last; with mean, the column's mean instead (sparklines). A column whose first sample
 * came after a gap (interval iv) or an unmeasured value starts a new subpath. */
static void draw_px(FILE *f, const struct sum_tl_col *px, int ncols, const struct axis *a,
                    double scale, double iv, const char *cls, const char *label, bool mean)
{
    fprintf(f, "<path class=\"%s\" d=\"", cls);
    struct pen p = {.f = f};
    for (int c = 0; c < ncols; c++) {
        const struct sum_tl_col *k = &px[c];
        if (!k->n)
            continue;
        double x = ML + c + 0.5;
        bool gap = (k->flags & SUM_TL_BRK) || rd_is_gap(k->step, iv);
        if (mean) {
            pen_point(&p, x, y_of(a, k->sum / k->n / scale), gap);
            continue;
        }
        float v[4];
        int nv = 0;
        v[nv++] = k->first;
        if (k->n > 1) {
            bool min_first = k->flags & SUM_TL_MIN_FIRST;
            v[nv++] = min_first ? k->min : k->max;
            v[nv++] = min_first ? k->max : k->min;
            v[nv++] = k->last;
        }
        for (int i = 0; i < nv; i++) {
            if (i > 0 && v[i] == v[i - 1])
                continue;
            pen_point(&p, x, y_of(a, v[i] / scale), gap && i == 0);
        }
    }
    pen_end(&p);
    fputs("\">", f);
    if (label) {
        fputs("<title>", f);
        ht_esc(f, label);
        fputs("</title>", f);
    }
    fputs("</path>\n", f);
}

struct line {
    const struct sum_tl_series *s;
    double iv; /* the interval of its gap rule */
    char cls[24];
    char label[96];
    int axis; /* 0 left, 1 right */
    bool dashed;
    bool no_key; /* left out of the legend (said in the title) */
};

struct chart {
    const char *id, *title;
    const char *unit, *unit2; /* y axis units (unit2: right axis, NULL if none) */
    double top;               /* NAN, or a natural top (100 for percentages) */
    double scale, scale2;     /* divide values by this (MiB -> GiB) */
    struct line *lines;
    size_t n;
    const char *note;  /* a short remark under the title, may be NULL */
    const char *attrs; /* more attributes of the figure (data-*), may be NULL */
    bool capped;       /* shade the time a GPU's clocks were power- or thermally capped */
};

/* The pixel columns where a GPU's clocks were capped (SUM_TL_CAPPED), as shaded rects with a
 * title, neighbours merged; returns whether there was any. */
static bool draw_capped(FILE *f, struct ht_page *P)
{
    const struct sum_timeline *tl = P->tl;
    bool any = false;
    for (int g = 0; g < SUM_TL_MAX_GPUS; g++) {
        const struct sum_tl_gpu *gs = tl->gpu[g];
        if (!gs || !gs->s[SUM_TL_CAPPED].any || !(gs->s[SUM_TL_CAPPED].vmax > 0))
            continue;
        to_px(tl, &gs->s[SUM_TL_CAPPED], P->ncols, P->t0, P->per_col, P->px);
        int start = -1;
        bool held = false; /* a column without a sample keeps the state of the one before */
        for (int c = 0; c <= P->ncols; c++) {
            if (c < P->ncols && P->px[c].n)
                held = P->px[c].max > 0;
            bool on = c < P->ncols && held;
            if (on && start < 0)
                start = c;
            if (!on && start >= 0) {
                fprintf(f, "<rect class=\"capped\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\">"
                           "<title>GPU %d power- or thermally capped</title></rect>",
                        ML + start, MT, c - start, PLOT_H, g);
                start = -1;
                any = true;
            }
        }
    }
    return any;
}

static void draw_time_ticks(FILE *f, const struct ht_page *P, const struct taxis *ta)
{
    double span = (P->t1 - P->t0) / ta->unit;
    fputs("<path class=\"gx\" d=\"", f);
    for (double v = 0; v <= span + 1e-9 * span; v += ta->step)
        fprintf(f, "M%.1f %dv%d", x_of(P, P->t0 + v * ta->unit), MT, PLOT_H + 4);
    fputs("\"/>\n", f);
    for (double v = 0; v <= span + 1e-9 * span; v += ta->step)
        fprintf(f, "<text class=\"tx\" x=\"%.1f\" y=\"%d\">%.*f</text>",
                x_of(P, P->t0 + v * ta->unit), MT + PLOT_H + 15, ta->decimals, v);
    fprintf(f, "\n<text class=\"ax\" x=\"%d\" y=\"%d\">time since start [%s]</text>\n",
            ML + plot_w(P), MT + PLOT_H + 28, ta->uname);
}

/* A y axis: grid lines across the plot (left axis only), tick labels, and the unit. */
static void draw_y_axis(FILE *f, const struct ht_page *P, const struct axis *a, bool right,
                        const char *unit)
{
    int x = right ? ML + plot_w(P) : ML;
    if (!right) {
        fputs("<path class=\"gy\" d=\"", f);
        for (double v = a->lo; v <= a->hi + a->step * 1e-6; v += a->step)
            fprintf(f, "M%d %.1fh%d", ML, y_of(a, v), plot_w(P));
        fputs("\"/>\n", f);
    }
    for (double v = a->lo; v <= a->hi + a->step * 1e-6; v += a->step)
        fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%.1f\">%.*f</text>", right ? "ty2" : "ty",
                right ? x + 5 : x - 5, y_of(a, v) + 3.5, a->decimals, fabs(v) < 1e-12 ? 0 : v);
    fprintf(f, "\n<text class=\"ax\" transform=\"translate(%d %d) rotate(-90)\">[",
            right ? x + 50 : 12, MT + PLOT_H / 2);
    ht_esc(f, unit);
    fputs("]</text>\n", f);
}

static void draw_chart(FILE *f, struct ht_page *P, const struct chart *c, const struct taxis *ta)
{
    double lo[2] = {NAN, NAN}, hi[2] = {NAN, NAN};
    bool any = false;
    for (size_t i = 0; i < c->n; i++) {
        const struct sum_tl_series *s = c->lines[i].s;
        if (!s->any)
            continue;
        any = true;
        int ax = c->lines[i].axis;
        double sc = ax ? c->scale2 : c->scale;
        if (!(lo[ax] <= s->vmin / sc))
            lo[ax] = s->vmin / sc;
        if (!(hi[ax] >= s->vmax / sc))
            hi[ax] = s->vmax / sc;
    }
    if (!any)
        return;
    struct axis a = y_axis(lo[0], hi[0], c->top);
    struct axis a2 = y_axis(lo[1], hi[1], NAN);
    int w = ML + plot_w(P) + MR;
    fprintf(f,
            "<figure class=\"chart\" id=\"%s\" data-x0=\"0\" data-x1=\"%.6g\" data-y0=\"%.6g\" "
            "data-y1=\"%.6g\" data-plot=\"%d %d %d %d\"",
            c->id, P->t1 - P->t0, a.lo, a.hi, ML, MT, plot_w(P), PLOT_H);
    if (c->unit2)
        fprintf(f, " data-y2-0=\"%.6g\" data-y2-1=\"%.6g\"", a2.lo, a2.hi);
    if (c->attrs)
        fputs(c->attrs, f);
    fputs(">\n<figcaption><span class=\"ct\">", f);
    ht_esc(f, c->title);
    fputs("</span>", f);
    for (size_t i = 0; i < c->n; i++) {
        const struct line *l = &c->lines[i];
        if (!l->s->any || l->no_key)
            continue;
        fprintf(f, "<span class=\"key %s%s\"><i></i>", l->cls, l->dashed ? " dash" : "");
        ht_esc(f, l->label);
        fputs("</span>", f);
    }
    if (c->note) {
        fputs("<span class=\"note\">", f);
        ht_esc(f, c->note);
        fputs("</span>", f);
    }
    fprintf(f,
            "</figcaption>\n<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
            "role=\"img\" aria-label=\"",
            w, CHART_H, w, CHART_H);
    ht_esc(f, c->title);
    fprintf(f, "\">\n<rect class=\"pa\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", ML, MT,
            plot_w(P), PLOT_H);
    /* Phase bands under everything. The phases are sorted by start; neighbours of one name that
     * touch on screen become one band, so thousands of short phases stay a few rects. */
    if (P->nph) {
        fputs("<g class=\"bands\">", f);
        int color = -1;
        const char *bname = NULL;
        double bx0 = 0, bx1 = 0;
        for (size_t i = 0; i <= P->nph; i++) {
            const struct sum_phase_acc *p = i < P->nph ? ht_phase_of(P, i) : NULL;
            double x0 = 0, x1 = 0;
            if (p) {
                x0 = fmax(x_of(P, p->t0), ML);
                x1 = fmin(x_of(P, p->t1), ML + plot_w(P));
                if (x1 < ML || x0 > ML + plot_w(P))
                    continue;
                if (bname && !strcmp(p->name, bname) && x0 <= bx1 + 0.5) {
                    bx1 = fmax(bx1, x1);
                    continue;
                }
            }
            if (color >= 0)
                fprintf(f,
                        "<rect class=\"band p%d\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                        "height=\"%d\"/>",
                        color, bx0, MT, fmax(bx1 - bx0, 0.5), PLOT_H);
            if (p) {
                color = P->ph[i].color;
                bname = p->name;
                bx0 = x0;
                bx1 = x1;
            }
        }
        fputs("</g>\n", f);
    }
    if (c->capped)
        draw_capped(f, P);
    draw_time_ticks(f, P, ta);
    draw_y_axis(f, P, &a, false, c->unit);
    if (c->unit2)
        draw_y_axis(f, P, &a2, true, c->unit2);
    const struct sum_timeline *tl = P->tl;
    if (tl->nev && tl->nev <= MAX_EVENT_LINES) {
        fputs("<path class=\"evl\" d=\"", f);
        for (size_t i = 0; i < tl->nev; i++) {
            double x = x_of(P, tl->ev[i].t);
            if (x >= ML && x <= ML + plot_w(P))
                fprintf(f, "M%.1f %dv%d", x, MT, PLOT_H);
        }
        fputs("\"/>\n", f);
    }
    fputs("<g class=\"lines\">\n", f);
    for (size_t i = 0; i < c->n; i++) {
        const struct line *l = &c->lines[i];
        if (!l->s->any)
            continue;
        char cls[48];
        snprintf(cls, sizeof cls, "ln %s%s", l->cls, l->dashed ? " dash" : "");
        to_px(tl, l->s, P->ncols, P->t0, P->per_col, P->px);
        draw_px(f, P->px, P->ncols, l->axis ? &a2 : &a, l->axis ? c->scale2 : c->scale, l->iv, cls,
                l->label, false);
    }
    fputs("</g>\n</svg>\n</figure>\n", f);
}

/* A box of the phase strip: phases first..last (indices into P->ph) of one name in one lane. */
struct strip_box {
    size_t first, last, n;
    double x0, x1;
};

/* The strip's boxes: a phase narrower than a pixel column that touches the box before it in
 * its lane, of the same name, joins that box (a training loop's 100 000 `step`s become a few
 * boxes, not 100 000 rects); wider phases keep a box each. Returns the number of boxes. */
static size_t strip_boxes(const struct ht_page *P, struct strip_box *box)
{
    size_t nbox = 0, open[HT_MAX_LANES];
    bool has[HT_MAX_LANES] = {false};
    for (size_t i = 0; i < P->nph; i++) {
        const struct sum_phase_acc *p = ht_phase_of(P, i);
        double x0 = fmax(x_of(P, p->t0), ML), x1 = fmin(x_of(P, p->t1), ML + plot_w(P));
        if (x1 < ML || x0 > ML + plot_w(P))
            continue;
        int l = P->ph[i].lane;
        struct strip_box *b = has[l] ? &box[open[l]] : NULL;
        if (b && x0 <= b->x1 + 0.5 && x1 - x0 < 1 && (b->n > 1 || b->x1 - b->x0 < 1) &&
            !strcmp(ht_phase_of(P, b->first)->name, p->name)) {
            b->last = i;
            b->n++;
            b->x1 = fmax(b->x1, x1);
            continue;
        }
        box[nbox] = (struct strip_box){.first = i, .last = i, .n = 1, .x0 = x0, .x1 = x1};
        open[l] = nbox++;
        has[l] = true;
    }
    return nbox;
}

/* One box of the strip: name (its colour), n entries from t0 to t1, drawn from x0, wd wide, in
 * the lane at y; busy: the share of [t0, t1] inside its entries (NAN: not said). */
static void strip_box(FILE *f, const struct ht_page *P, const char *name, int color, size_t n,
                      double t0, double t1, double x0, double wd, int y, int lane_h, double busy,
                      enum ht_ph_end end)
{
    char a[32], b[32], d[32];
    size_t nch, nb = ht_prefix_chars(name, NAME_MAX_BYTES, &nch);
    fprintf(f, "<g class=\"ph p%d%s%s\"><title>", color, end ? " " : "",
            end ? ht_ph_end_class[end] : "");
    ht_esc_n(f, name, nb);
    if (n > 1)
        fprintf(f, " \xC3\x97%zu", n);
    fprintf(f, ": %s s to %s s (%s", ht_fmt_num(a, sizeof a, t0 - P->t0),
            ht_fmt_num(b, sizeof b, t1 - P->t0), ht_fmt_dur(d, sizeof d, t1 - t0));
    if (isfinite(busy) && busy < 0.995)
        fprintf(f, ", %.0f%% in them", busy * 100);
    fputc(')', f);
    if (end)
        fprintf(f, ", %s", ht_ph_end_words[end]);
    fprintf(f, "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"2\"/>", x0,
            y, wd, lane_h);
    /* A label where it fits, at about 6.2 px per character of 11 px text. */
    size_t fit = wd > 14 ? (size_t)((wd - 6) / 6.2) : 0;
    if (fit >= 2) {
        size_t total = ht_count_chars(name);
        nb = ht_prefix_chars(name, total <= fit ? fit : fit - 1, &nch);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\">", x0 + 3, y + 13);
        ht_esc_n(f, name, nb);
        if (nch < total)
            fputs("\xE2\x80\xA6", f);
        fputs("</text>", f);
    }
    fputs("</g>\n", f);
}

/* A run of more phases than are summarized one by one (a phase per step): a lane per name, the
 * first HT_MAX_NAME_LANES names, drawn from its windows (phasenames.h: every entry, those that
 * follow each other one window), windows closer than a pixel column one band, whose title
 * counts its entries. At most a band per two columns per lane, whatever the entries. Returns
 * the bands drawn. */
static size_t name_lanes(FILE *f, const struct ht_page *P, int lane_h)
{
    const struct sum_names *s = &P->run->names;
    double lo = ML, hi = ML + plot_w(P);
    size_t nbox = 0;
    for (size_t i = 0; i < s->nwin;) {
        uint32_t name = s->win[i].name;
        if (name >= HT_MAX_NAME_LANES) { /* sorted by name: the rest are beyond too */
            break;
        }
        const char *nm = s->v[name].name;
        int color = ht_phase_color(P, nm), y = MT + (int)name * (lane_h + 2);
        bool open = false;
        double bx0 = 0, bx1 = 0, bt0 = 0, bt1 = 0, in = 0;
        size_t n = 0;
        for (; i <= s->nwin; i++) {
            const struct sum_win *w = i < s->nwin && s->win[i].name == name ? &s->win[i] : NULL;
            double x0 = 0, x1 = 0;
            if (w) {
                if (!(w->t1 >= w->t0) || !isfinite(w->t0) || !isfinite(w->t1))
                    continue;
                x0 = fmax(x_of(P, w->t0), lo);
                x1 = fmin(x_of(P, w->t1), hi);
                if (x1 < lo || x0 > hi)
                    continue;
                if (open && x0 < bx1 + 1) { /* denser than pixels: the same band */
                    bx1 = fmax(bx1, x1);
                    bt1 = fmax(bt1, w->t1);
                    in += w->t1 - w->t0;
                    n += w->n;
                    continue;
                }
            }
            if (open) {
                strip_box(f, P, nm, color, n, bt0, bt1, bx0, fmax(bx1 - bx0, 1), y, lane_h,
                          bt1 > bt0 ? in / (bt1 - bt0) : NAN, HT_PH_OK);
                nbox++;
            }
            if (!w)
                break;
            open = true;
            bx0 = x0, bx1 = x1, bt0 = w->t0, bt1 = w->t1, in = w->t1 - w->t0, n = w->n;
        }
        while (i < s->nwin && s->win[i].name == name)
            i++;
    }
    return nbox;
}

/* The strip above the charts: phases (in lanes when they overlap) and event markers. */
/* How a box of the strip ended: killed when one of its phases was (a signal, or open when a
 * killed or unfinished run stopped), else failed when one failed, else well. */
static enum ht_ph_end box_end(const struct ht_page *P, const struct strip_box *b)
{
    enum ht_ph_end e = HT_PH_OK;
    enum sum_status st = P->run->outcome.status;
    const char *name = ht_phase_of(P, b->first)->name;
    for (size_t k = b->first; k <= b->last && k < P->nph; k++) {
        const struct sum_phase_acc *p = ht_phase_of(P, k);
        if (P->ph[k].lane != P->ph[b->first].lane || strcmp(p->name, name) != 0)
            continue; /* another lane's, between the box's first and last */
        if (p->signal > 0 ||
            (p->open && (st == SUM_STATUS_KILLED || st == SUM_STATUS_INCOMPLETE)))
            return HT_PH_KILLED;
        if (p->failed)
            e = HT_PH_FAILED;
    }
    return e;
}

void ht_draw_strip(FILE *f, const struct ht_page *P, int lanes)
{
    const struct sum_timeline *tl = P->tl;
    const struct sum_run *run = P->run;
    size_t nev = tl ? tl->nev : 0;
    uint64_t ev_dropped = tl ? tl->ev_dropped : 0;
    /* a phase per step: every entry, by name, rather than the first SUM_MAX_PHASES alone */
    bool by_name = run->phases_beyond && run->names.nwin;
    size_t nnames = run->names.n, drawn_names = nnames < HT_MAX_NAME_LANES ? nnames
                                                                           : HT_MAX_NAME_LANES;
    if (by_name)
        lanes = (int)drawn_names;
    int lane_h = 18, ev_y = MT + lanes * (lane_h + 2) + 4;
    int h = ev_y + 14;
    int w = ML + plot_w(P) + MR;
    struct strip_box *box = P->nph && !by_name ? calloc(P->nph, sizeof *box) : NULL;
    if (P->nph && !by_name && !box)
        sum_oom_note(); /* drawn without the merged boxes' labels */
    size_t nbox = box ? strip_boxes(P, box) : 0;
    size_t merged = 0;
    for (size_t k = 0; k < nbox; k++)
        merged += box[k].n > 1;
    size_t nbad[HT_PH_COUNT] = {0}; /* the boxes that failed, that were killed */
    for (size_t k = 0; box && k < nbox; k++)
        nbad[box_end(P, &box[k])]++;
    /* the boxes go first into a buffer: the caption counts them */
    char *body = NULL;
    size_t body_len = 0;
    FILE *bf = by_name ? open_memstream(&body, &body_len) : NULL;
    if (bf) {
        nbox = name_lanes(bf, P, lane_h);
        if (fclose(bf) != 0)
            body = NULL;
    }
    fprintf(f, "<figure class=\"strip\" id=\"phases\" data-boxes=\"%zu\">\n<figcaption><span "
               "class=\"ct\">Phases and events</span><span class=\"note\">",
            nbox);
    if (by_name) {
        fprintf(f, "%llu phases of %zu name%s, drawn by name",
                (unsigned long long)run->phases_total, nnames, nnames == 1 ? "" : "s");
        if (drawn_names < nnames)
            fprintf(f, " (the first %zu)", drawn_names);
        fprintf(f, "; entries closer than a pixel column are one band (\xC3\x97N in its title); "
                   "<span id=\"n-events\" data-n=\"%zu\">%zu</span> events",
                nev, nev);
        if (run->names.windows_dropped || ev_dropped)
            fprintf(f, " (%llu phases and %llu events beyond those kept not drawn)",
                    (unsigned long long)run->names.windows_dropped, (unsigned long long)ev_dropped);
        if (P->nph)
            fprintf(f, "; the charts' bands are the first %zu phases'", P->nph);
    } else {
        fprintf(f, "%zu phases, <span id=\"n-events\" data-n=\"%zu\">%zu</span> events", P->nph,
                nev, nev);
        if (run->phases_beyond || run->phases_dropped || ev_dropped)
            fprintf(f, " (%llu phases and %llu events beyond the first %d not drawn)",
                    (unsigned long long)(run->phases_beyond + run->phases_dropped),
                    (unsigned long long)ev_dropped,
                    SUM_MAX_PHASES);
        if (merged)
            fputs("; adjacent phases of one name narrower than a pixel column are drawn as one "
                  "(\xC3\x97N in its title; the charts' bands likewise)",
                  f);
    }
    fputs("</span>", f);
    /* a phase that failed or was killed looks it, and the legend names how */
    for (int e = HT_PH_FAILED; e < HT_PH_COUNT; e++)
        if (nbad[e])
            fprintf(f, "<span class=\"key phend\" data-end=\"%s\"><i class=\"sw %s\"></i>%s "
                       "(%zu)</span>",
                    ht_ph_end_class[e], ht_ph_end_class[e], ht_ph_end_words[e], nbad[e]);
    fprintf(f,
            "</figcaption>\n<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\" aria-label=\"phases and events\">\n",
            w, h, w, h);
    if (by_name) { /* each lane's name at its left, cut to the margin */
        for (size_t k = 0; k < drawn_names; k++) {
            size_t nch, total = ht_count_chars(run->names.v[k].name);
            size_t nb = ht_prefix_chars(run->names.v[k].name, total <= 9 ? 9 : 8, &nch);
            fprintf(f, "<text class=\"ty\" x=\"%d\" y=\"%d\">", ML - 5,
                    MT + (int)k * (lane_h + 2) + 12);
            ht_esc_n(f, run->names.v[k].name, nb);
            if (nch < total)
                fputs("\xE2\x80\xA6", f);
            fputs("</text>", f);
        }
        fputc('\n', f);
    } else if (lanes) {
        fprintf(f, "<text class=\"ty\" x=\"%d\" y=\"%d\">phases</text>", ML - 5, MT + 12);
    }
    fprintf(f, "<text class=\"ty\" x=\"%d\" y=\"%d\">events</text>\n", ML - 5, ev_y + 4);
    if (body)
        fwrite(body, 1, body_len, f);
    free(body);
    for (size_t k = 0; k < nbox && box; k++) {
        const struct sum_phase_acc *p = ht_phase_of(P, box[k].first);
        const struct sum_phase_acc *q = ht_phase_of(P, box[k].last);
        strip_box(f, P, p->name, P->ph[box[k].first].color, box[k].n, p->t0, q->t1, box[k].x0,
                  fmax(box[k].x1 - box[k].x0, 1), MT + P->ph[box[k].first].lane * (lane_h + 2),
                  lane_h, NAN, box_end(P, &box[k]));
    }
    free(box);
    fprintf(f, "<path class=\"base\" d=\"M%d %dh%d\"/>\n", ML, ev_y + 6, plot_w(P));
    for (size_t i = 0; i < nev; i++) {
        const struct sum_tl_event *e = &tl->ev[i];
        double x = x_of(P, e->t);
        if (x < ML - 0.5 || x > ML + plot_w(P) + 0.5)
            continue;
        char a[32];
        fprintf(f, "<path class=\"ev%s\" d=\"M%.1f %dl4.5 6l-4.5 6l-4.5-6z\"><title>",
                e->bad ? " bad" : "", x, ev_y);
        ht_esc(f, e->name);
        fprintf(f, " at %s s</title></path>\n", ht_fmt_num(a, sizeof a, e->t - P->t0));
    }
    fputs("</svg>\n</figure>\n", f);
}

/* The gap rule's interval of a GPU series (its file's). */
static double gpu_iv(const struct sum_run *run, const struct sum_tl_gpu *gs, int m, int g)
{
    return sum_run_gap_interval(run, gs->from[m], g);
}

void ht_draw_charts(FILE *f, struct ht_page *P)
{
    const struct sum_run *run = P->run;
    const struct sum_timeline *tl = P->tl;
    char b1[64];
    struct taxis ta = t_axis(P);
    struct line *lines = calloc(2 * SUM_TL_MAX_GPUS + 4, sizeof *lines);
    if (!lines) {
        P->oom = true;
        sum_oom_note();
        return;
    }
    static const struct {
        const char *id, *title, *unit;
        double top;
        int m;
    } gcharts[] = {
        {"gpu-util", "GPU utilization", "%", 100, SUM_TL_UTIL},
        {"gpu-tensor", "Tensor activity (GPM)", "%", 100, SUM_TL_TENSOR},
        {"gpu-memutil", "GPU memory-controller utilization", "%", 100, SUM_TL_MEMUTIL},
        {"gpu-mem", "GPU memory used (dashed: total)", NULL, NAN, SUM_TL_MEMUSED},
        {"gpu-power", "GPU power (dashed: energy so far, all GPUs)", "W", NAN, SUM_TL_POWER},
        {"gpu-clock", "SM clock", "MHz", NAN, SUM_TL_CLOCK},
    };
    int first_gpu = -1;
    for (int g = 0; g < SUM_TL_MAX_GPUS && first_gpu < 0; g++)
        if (tl->gpu[g])
            first_gpu = g;
    for (size_t ci = 0; ci < sizeof gcharts / sizeof gcharts[0]; ci++) {
        int m0 = gcharts[ci].m;
        size_t n = 0;
        double vmax = 0;
        char note_buf[64] = "", attrs[96] = "";
        bool sm_lines = false, from_dmon = false;
        for (int g = 0; g < SUM_TL_MAX_GPUS; g++) {
            const struct sum_tl_gpu *gs = tl->gpu[g];
            if (!gs || !gs->s[m0].any)
                continue;
            from_dmon |= gs->from[m0] == HW_FILE_DMON;
            struct line *l = &lines[n++];
            *l = (struct line){.s = &gs->s[m0], .iv = gpu_iv(run, gs, m0, g)};
            snprintf(l->cls, sizeof l->cls, "g%d", g % NGPU_COLORS);
            if (m0 == SUM_TL_POWER && g < RD_MAX_GPUS && run->gpu[g] &&
                run->gpu[g]->m[HW_GM_POWER].n) /* the JSON's gpus[].energy_wh */
                snprintf(l->label, sizeof l->label, "GPU %d \xC2\xB7 %s", g,
                         ht_fmt_dim(b1, sizeof b1, sum_fig_num(sum_gpu_energy_wh(run, g, NULL)),
                                    SUM_DIM_ENERGY, P->u));
            else
                snprintf(l->label, sizeof l->label, "GPU %d", g);
            vmax = fmax(vmax, gs->s[m0].vmax);
            if (m0 == SUM_TL_MEMUSED && gs->s[SUM_TL_MEMTOTAL].any) {
                struct line *t = &lines[n++];
                *t = (struct line){.s = &gs->s[SUM_TL_MEMTOTAL],
                                   .iv = gpu_iv(run, gs, SUM_TL_MEMTOTAL, g),
                                   .dashed = true,
                                   .no_key = true};
                snprintf(t->cls, sizeof t->cls, "g%d", g % NGPU_COLORS);
                snprintf(t->label, sizeof t->label, "GPU %d total", g);
                vmax = fmax(vmax, gs->s[SUM_TL_MEMTOTAL].vmax);
            }
            if (m0 == SUM_TL_UTIL && gs->s[SUM_TL_SMACT].any) {
                sm_lines = true;
                struct line *t = &lines[n++];
                *t = (struct line){.s = &gs->s[SUM_TL_SMACT],
                                   .iv = gpu_iv(run, gs, SUM_TL_SMACT, g),
                                   .dashed = true,
                                   .no_key = true};
                snprintf(t->cls, sizeof t->cls, "g%d", g % NGPU_COLORS);
                snprintf(t->label, sizeof t->label, "GPU %d SM active", g);
            }
        }
        if (!n)
            continue;
        struct chart c = {.id = gcharts[ci].id,
                          .title = gcharts[ci].title,
                          .unit = gcharts[ci].unit,
                          .top = gcharts[ci].top,
                          .scale = 1,
                          .scale2 = 1,
                          .lines = lines,
                          .n = n};
        if (sm_lines) /* "util 98%, SM active 31%" at a glance */
            c.title = "GPU utilization (dashed: SM activity, GPM)";
        c.capped = m0 == SUM_TL_POWER || m0 == SUM_TL_CLOCK;
        for (int g = 0; c.capped && !c.note && g < SUM_TL_MAX_GPUS; g++)
            if (tl->gpu[g] && tl->gpu[g]->s[SUM_TL_CAPPED].vmax > 0)
                c.note = "shaded: clocks power- or thermally capped";
        if (m0 == SUM_TL_MEMUSED)
            c.unit = ht_mem_axis(P->u, vmax, &c.scale);
        double wh = sum_fig_num(sum_run_energy_wh(run)); /* the JSON's energy_wh */
        if (m0 == SUM_TL_POWER && tl->os[SUM_TL_ENERGY].any && isfinite(wh)) {
            struct line *e = &lines[n++];
            *e = (struct line){.s = &tl->os[SUM_TL_ENERGY],
                               .iv = first_gpu >= 0
                                         ? gpu_iv(run, tl->gpu[first_gpu], SUM_TL_POWER, first_gpu)
                                         : NAN,
                               .axis = 1,
                               .dashed = true};
            snprintf(e->cls, sizeof e->cls, "en");
            snprintf(e->label, sizeof e->label, "energy so far \xC2\xB7 %s",
                     ht_fmt_dim(b1, sizeof b1, wh, SUM_DIM_ENERGY, P->u));
            snprintf(attrs, sizeof attrs, " data-energy-wh=\"%.12g\"", wh);
            c.attrs = attrs;
            c.n = n;
            c.unit2 = sum_units_label(P->u, SUM_DIM_ENERGY);
            c.scale2 = 1 / sum_units_value(P->u, SUM_DIM_ENERGY, 1);
        }
        if (from_dmon) {
            snprintf(note_buf, sizeof note_buf, "from hw_dmon.csv");
            c.note = note_buf;
        }
        draw_chart(f, P, &c, &ta);
    }

    double cpu_iv = sum_run_gap_interval(run, HW_FILE_CPU, -1);
    double proc_iv = sum_run_gap_interval(run, HW_FILE_PROC, -1);
    struct line cpu[3] = {
        {.s = &tl->os[SUM_TL_USR], .iv = cpu_iv, .cls = "usr", .label = "usr"},
        {.s = &tl->os[SUM_TL_SYS], .iv = cpu_iv, .cls = "sys", .label = "sys"},
        {.s = &tl->os[SUM_TL_IOWAIT], .iv = cpu_iv, .cls = "iow", .label = "iowait"},
    };
    struct line rss[1] = {{.s = &tl->os[SUM_TL_RSS], .iv = proc_iv, .cls = "rss", .label = "RSS"}};
    struct line pcpu[1] = {
        {.s = &tl->os[SUM_TL_PCPU], .iv = proc_iv, .cls = "pcpu", .label = "CPU"}};
    double rss_sc;
    const char *rss_unit = ht_mem_axis(P->u, tl->os[SUM_TL_RSS].vmax, &rss_sc);
    const struct chart host[] = {
        {"cpu", "CPU (all cores)", "%", NULL, 100, 1, 1, cpu, 3, NULL, NULL},
        {"proc-rss", "Process tree memory (RSS)", rss_unit, NULL, NAN, rss_sc, 1, rss, 1, NULL,
         NULL},
        {"proc-cpu", "Process tree CPU (100% = one core)", "%", NULL, 100, 1, 1, pcpu, 1, NULL,
         NULL},
    };
    for (size_t i = 0; i < sizeof host / sizeof host[0]; i++)
        draw_chart(f, P, &host[i], &ta);
    if (tl->os[SUM_TL_CGMEM].any) { /* cgroup memory, when recorded */
        struct line cg[2] = {
            {.s = &tl->os[SUM_TL_CGMEM], .iv = cpu_iv, .cls = "cg", .label = "cgroup memory"},
            {.s = &tl->os[SUM_TL_CGMAX],
             .iv = cpu_iv,
             .cls = "lim",
             .label = "limit",
             .dashed = true},
        };
        double m = fmax(tl->os[SUM_TL_CGMEM].vmax,
                        tl->os[SUM_TL_CGMAX].any ? tl->os[SUM_TL_CGMAX].vmax : 0);
        double cg_sc;
        const char *cg_unit = ht_mem_axis(P->u, m, &cg_sc);
        draw_chart(f, P,
                   &(struct chart){.id = "cgroup-mem",
                                   .title = "Container (cgroup) memory",
                                   .unit = cg_unit,
                                   .top = NAN,
                                   .scale = cg_sc,
                                   .scale2 = 1,
                                   .lines = cg,
                                   .n = 2},
                   &ta);
    }
    /* disk and network traffic (the machine's), when recorded */
    struct line io[4] = {
        {.s = &tl->os[SUM_TL_DISKR], .iv = cpu_iv, .cls = "dr", .label = "disk read"},
        {.s = &tl->os[SUM_TL_DISKW], .iv = cpu_iv, .cls = "dw", .label = "disk write"},
        {.s = &tl->os[SUM_TL_NETRX],
         .iv = cpu_iv,
         .cls = "nr",
         .label = "net received",
         .dashed = true},
        {.s = &tl->os[SUM_TL_NETTX],
         .iv = cpu_iv,
         .cls = "nt",
         .label = "net sent",
         .dashed = true},
    };
    draw_chart(f, P,
               &(struct chart){.id = "disk-net",
                               .title = "Disk and network (the machine's)",
                               .unit = "MiB/s",
                               .top = NAN,
                               .scale = 1,
                               .scale2 = 1,
                               .lines = io,
                               .n = 4},
               &ta);
    free(lines);
}

/* A sparkline of the GPU utilization: per column the mean over the GPUs' samples, 0..100 %.
 * The cell sorts by the run's mean (the JSON's gpu_util_mean_pct). */
void ht_sparkline(FILE *f, const struct sum_run *run)
{
    const struct sum_timeline *tl = run->tl;
    const struct sum_tl_series *s = tl ? &tl->os[SUM_TL_SPARK] : NULL;
    if (!s || !s->any) {
        fputs("<td class=\"na\" data-v=\"\">\xE2\x80\x94</td>", f);
        return;
    }
    struct sum_tl_col px[SPARK_COLS];
    double span = tl->t_hi - tl->t_lo;
    to_px(tl, s, SPARK_COLS, tl->t_lo, (span > 0 ? span : 1) / SPARK_COLS * (1 + 1e-9), px);
    struct axis a = {.lo = 0, .hi = 100, .step = 100};
    /* draw_px places points in chart coordinates (plot at ML, MT, PLOT_H high): the viewBox
     * cuts out that plot and squeezes it into the cell. */
    fprintf(f,
            "<td class=\"spark\" data-v=\"%.17g\"><svg viewBox=\"%d %d %d %d\" width=\"%d\" "
            "height=\"%d\" preserveAspectRatio=\"none\" role=\"img\" "
            "aria-label=\"GPU utilization\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
            "height=\"%d\" fill=\"#f6f8fa\"/>",
            sum_fig_num(sum_fig_mean(&run->all[HW_GM_UTIL])), ML, MT - 2, SPARK_COLS, PLOT_H + 4,
            SPARK_COLS, SPARK_H, ML, MT - 2, SPARK_COLS, PLOT_H + 4);
    draw_px(f, px, SPARK_COLS, &a, 1, ht_interval(run), "ln spk",
            "GPU utilization, mean of the GPUs per column [%]", true);
    fputs("</svg></td>", f);
}
