/* The HTML page of a job of many nodes (html.h): its figures, a lane per node with the phases
 * on one time axis (seconds since each node's own start, as the job summary aligns them), the
 * straggler outlined, and the tables of nodes, of the run figures the job makes of its ranks'
 * (each by its rule) and of phases. Every figure is sum_job_build's. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_int.h"
#include "jobreport.h"
#include "jobsum.h"
#include "report.h"
#include "hwrun/buf.h"

#define LABEL_W 170 /* the node names left of the lanes */
#define LANE_H 20
#define JOB_W 1000

static void td_dim(FILE *f, double v, enum sum_dim d, const struct sum_units *u)
{
    char b[64];
    fprintf(f, "<td class=\"n\">%s</td>", ht_fmt_dim(b, sizeof b, v, d, u));
}

static void td_num(FILE *f, double v, const char *unit)
{
    char b[64];
    if (isfinite(v))
        fprintf(f, "<td class=\"n\">%s%s</td>", ht_fmt_num(b, sizeof b, v), unit);
    else
        fputs("<td class=\"n na\">\xE2\x80\x94</td>", f);
}

/* The lanes: one per node, its run as a grey bar, its phases coloured by name. */
static void lanes(FILE *f, const struct sum_jobsum *j)
{
    double span = 0;
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        if (n->duration_s > span)
            span = n->duration_s;
        for (size_t k = 0; k < n->nlane; k++)
            if (n->lane[k].t1 > span)
                span = n->lane[k].t1;
    }
    if (!(span > 0))
        return;
    int pw = JOB_W - LABEL_W - 20, h = (int)j->nnode * LANE_H + 30;
    double step = ht_nice_step(span / 8);
    int dec = ht_step_decimals(step);
    fprintf(f, "<div class=\"lanes\"><svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" "
               "height=\"%d\" role=\"img\" "
               "aria-label=\"phases of each node\">\n",
            JOB_W, h, JOB_W, h);
    for (double t = 0; t <= span * (1 + 1e-9); t += step) {
        double x = LABEL_W + t / span * pw;
        fprintf(f, "<line class=\"gx\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%d\"/>", x, x, h - 24);
        fprintf(f, "<text class=\"tx\" x=\"%.1f\" y=\"%d\">%.*f s</text>\n", x, h - 10, dec, t);
    }
    const struct sum_jphase *sp = j->straggler >= 0 ? &j->ph[j->straggler] : NULL;
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        int y = (int)i * LANE_H;
        fprintf(f, "<text class=\"ty\" x=\"%d\" y=\"%d\">", LABEL_W - 6, y + 14);
        ht_esc(f, n->label);
        fputs("</text>", f);
        if (isfinite(n->duration_s))
            fprintf(f, "<rect class=\"base\" fill=\"#eef1f4\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
                       "height=\"%d\"/>",
                    LABEL_W, y + 3, n->duration_s / span * pw, LANE_H - 6);
        for (size_t k = 0; k < n->nlane; k++) {
            const struct sum_jlane *l = &n->lane[k];
            const char *name = n->names[l->name].name;
            size_t c = 0;
            while (c < j->nph && strcmp(j->ph[c].name, name) != 0)
                c++;
            bool strag = sp && sp->slowest == i && !strcmp(sp->name, name);
            double x0 = LABEL_W + fmax(l->t0, 0) / span * pw;
            double w = fmax((l->t1 - fmax(l->t0, 0)) / span * pw, 0.5);
            fprintf(f, "<g class=\"ph p%zu\"><title>", c % NPHASE_COLORS);
            ht_esc(f, name);
            fprintf(f, ": %.3f s%s</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"%s/>"
                       "</g>",
                    l->t1 - l->t0, l->failed ? " (failed)" : "", x0, y + 2, w, LANE_H - 4,
                    strag ? " stroke=\"#cf222e\" stroke-width=\"2\"" : "");
        }
        fputc('\n', f);
    }
    fputs("</svg></div>\n", f);
    unsigned long long dropped = 0;
    for (size_t i = 0; i < j->nnode; i++)
        dropped += j->node[i].lane_dropped;
    if (dropped)
        fprintf(f, "<p class=\"foot\">%llu phase%s not drawn (a node's first %d are); every "
                   "phase counts in the tables.</p>\n",
                dropped, dropped == 1 ? "" : "s", SUM_JOB_LANES);
}

/* The run row's figures the job makes of its ranks' (report.h's enum sum_job_rule), those
 * measured, each with how: the table the job's row takes them from. */
static void ranks_figures(FILE *f, const struct sum_jobsum *j, const struct sum_units *u)
{
    size_t nc, nd;
    const size_t *rc = sum_job_run_cols(&nc);
    const struct sum_row_def *def = sum_report_row_defs(&nd);
    bool any = false;
    for (size_t k = 0; j->fig && k < nc; k++) {
        const struct sum_row_def *d = &def[rc[k]];
        double v = j->fig[k];
        if (!isfinite(v))
            continue;
        if (!any)
            fputs("<h2>The ranks' figures</h2>\n<table class=\"grid\">\n<thead><tr><th>figure"
                  "</th><th class=\"n\">job</th><th>of the ranks'</th></tr></thead>\n<tbody>\n",
                  f);
        any = true;
        char b[64];
        fputs("<tr><th>", f);
        ht_esc(f, d->show.label ? d->show.label : d->key);
        if (d->type == SUM_COL_NUM)
            fprintf(f, "</th><td class=\"n\">%s</td><td>", ht_fmt_dim(b, sizeof b, v, d->dim, u));
        else
            fprintf(f, "</th><td class=\"n\">%.0f</td><td>", v);
        ht_esc(f, sum_job_rules[d->job].words ? sum_job_rules[d->job].words : "");
        fputs("</td></tr>\n", f);
    }
    if (any)
        fputs("</tbody></table>\n", f);
}

static int draw_job(FILE *f, const void *ctx, char *err, size_t errlen)
{
    const struct sum_jobsum *j = ((const void *const *)ctx)[0];
    const struct sum_html_opts *o = ((const void *const *)ctx)[1];
    const struct sum_units *u = o ? o->units : NULL;
    char title[512], b[64], b2[64];
    snprintf(title, sizeof title, "Job %s", j->dir ? j->dir : "");
    if (!j->dir)
        snprintf(title, sizeof title, "Job of %zu nodes", j->nnode);
    ht_page_head(f, o && o->title ? o->title : title, false);
    fputs("<body>\n<header>\n<h1>", f);
    ht_esc(f, o && o->title ? o->title : title);
    fprintf(f, "</h1>\n<p class=\"meta\"><b>%zu</b> node%s, <b>%zu</b> GPU%s, status <b>%s</b>, "
               "energy <b>%s</b>, peak VRAM of the GPUs together <b>%s</b> (the nodes' own peaks "
               "add up to %s)",
            j->nnode, j->nnode == 1 ? "" : "s", j->gpus, j->gpus == 1 ? "" : "s",
            sum_status_names[j->status], ht_fmt_dim(b, sizeof b, j->energy_wh, SUM_DIM_ENERGY, u),
            ht_fmt_dim(b2, sizeof b2, j->mem_peak_mib, SUM_DIM_GPUMEM, u),
            ht_fmt_dim(title, sizeof title, j->mem_sum_of_peaks_mib, SUM_DIM_GPUMEM, u));
    fprintf(f, "; nodes aligned at their own starts, which lie %s apart by their clocks",
            ht_fmt_dim(b, sizeof b, j->start_spread_s, SUM_DIM_TIME, u));
    if (j->nattempt > 1) /* a requeue: the status the last attempt's, energy their sum */
        fprintf(f, "; <b>%zu</b> attempts (status the last's, energy and time summed)",
                j->nattempt);
    fputs(".</p>\n", f);
    fputs("</header>\n<div class=\"job\">\n", f);
    if (j->incomplete + j->unreadable) {
        struct hw_buf l;
        hw_buf_init(&l, NULL, 0);
        sum_job_incomplete_list(j, &l);
        fputs("<p class=\"banner bad\">Incomplete: ", f);
        ht_esc_n(f, l.p ? l.p : "", l.len);
        fputs(" (no stop event, or not readable); what was measured is summed.</p>\n", f);
        hw_buf_free(&l);
    }
    if (j->straggler >= 0) {
        const struct sum_jphase *p = &j->ph[j->straggler];
        fputs("<p class=\"banner bad\">Straggler: <b>", f);
        ht_esc(f, j->node[p->slowest].label);
        fputs("</b> in <b>", f);
        ht_esc(f, p->name);
        fprintf(f, "</b>: %s, ", ht_fmt_dim(b, sizeof b, p->max_s, SUM_DIM_TIME, u));
        fprintf(f, "%s over the median of %zu nodes", ht_fmt_dim(b, sizeof b, p->over_median_s,
                                                                SUM_DIM_TIME, u), p->nodes);
        if (isfinite(p->over_median_pct))
            fprintf(f, " (+%s%%)", ht_fmt_num(b, sizeof b, p->over_median_pct));
        fputs(".</p>\n", f);
    }
    /* the GPU samplers of a host, when ranks took over from each other or left time unsampled:
     * the text report's lines, a warning as a banner */
    struct hw_buf sl;
    hw_buf_init(&sl, NULL, 0);
    sum_job_samplers_text(j, u, &sl);
    for (const char *p = sl.p, *end = sl.p ? sl.p + sl.len : NULL; p && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        while (n && *p == ' ')
            p++, n--;
        bool warn = n >= 8 && !memcmp(p, "warning:", 8);
        fputs(warn ? "<p class=\"banner bad\">" : "<p class=\"foot\">", f);
        ht_esc_n(f, p, n);
        fputs("</p>\n", f);
        p += n + 1;
    }
    hw_buf_free(&sl);
    fputs("<h2>Phases of each node</h2>\n", f);
    lanes(f, j);
    fputs("<h2>Nodes</h2>\n<table class=\"grid\">\n<thead><tr><th>node</th><th>status</th>"
          "<th class=\"n\">GPUs</th><th class=\"n\">start +</th><th class=\"n\">duration</th>"
          "<th class=\"n\">energy</th><th class=\"n\">peak VRAM</th><th class=\"n\">peak power"
          "</th><th>directory</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        fputs("<tr><th>", f);
        ht_esc(f, n->label);
        fputs("</th><td>", f);
        ht_esc(f, n->summarized ? sum_status_names[n->status] : "unreadable");
        fprintf(f, "</td><td class=\"n\">%d</td>", n->ngpu);
        td_dim(f, n->t_start - j->t_start, SUM_DIM_TIME, u);
        td_dim(f, n->duration_s, SUM_DIM_TIME, u);
        td_dim(f, n->energy_wh, SUM_DIM_ENERGY, u);
        td_dim(f, n->mem_peak_mib, SUM_DIM_GPUMEM, u);
        td_num(f, n->power_peak_w, " W");
        fputs("<td>", f);
        ht_esc(f, n->dir);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    ranks_figures(f, j, u);
    if (j->nph) {
        fputs("<h2>Phases across the nodes</h2>\n<table class=\"grid\">\n<thead><tr><th>phase"
              "</th><th class=\"n\">nodes</th><th class=\"n\">entries</th><th class=\"n\">min</th>"
              "<th class=\"n\">median</th><th class=\"n\">max</th><th>slowest</th>"
              "<th class=\"n\">over the median</th><th class=\"n\">energy</th></tr></thead>\n"
              "<tbody>\n",
              f);
        for (size_t p = 0; p < j->nph; p++) {
            const struct sum_jphase *ph = &j->ph[p];
            fprintf(f, "<tr><th><span class=\"sw p%zu\"></span>", p % NPHASE_COLORS);
            ht_esc(f, ph->name);
            fprintf(f, "</th><td class=\"n\">%zu</td><td class=\"n\">%llu</td>", ph->nodes,
                    (unsigned long long)ph->count);
            td_dim(f, ph->min_s, SUM_DIM_TIME, u);
            td_dim(f, ph->median_s, SUM_DIM_TIME, u);
            td_dim(f, ph->max_s, SUM_DIM_TIME, u);
            fputs("<td>", f);
            if (isfinite(ph->max_s))
                ht_esc(f, j->node[ph->slowest].label);
            fputs("</td>", f);
            td_dim(f, ph->over_median_s, SUM_DIM_TIME, u);
            td_dim(f, ph->energy_wh, SUM_DIM_ENERGY, u);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    fputs("</div>\n<footer>Written by summarize (hwrun " HWRUN_VERSION
          "). Self-contained: no network.</footer>\n</body>\n</html>\n",
          f);
    return ht_finish(f, 0, err, errlen);
}

int sum_html_write_job_file(const char *path, const struct sum_jobsum *j,
                            const struct sum_html_opts *opts, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || !j)
        return -EINVAL;
    const void *ctx[2] = {j, opts};
    return ht_write_page_file(path, draw_job, ctx, err, errlen);
}
