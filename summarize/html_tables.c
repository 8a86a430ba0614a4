/* The HTML report's tables and data-quality notes (html_int.h), from the run's struct sum_run:
 * every figure is the one the JSON prints (figures.h's sum_fig_*, rounded by sum_fig_num as the
 * JSON rounds it; phases by name through phasenames.h's accessors), in data-v as the JSON has
 * it and shown for people by ht_fmt_num, or in --units by units.h (memory, time, energy). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"
#include "oom.h"
#include "report.h"
#include "hwrun/buf.h"

#define MAX_TABLE_ROWS 200 /* phases listed in the phase table; the rest are counted */
#define MAX_JSON_DUMP (256 * 1024)

/* v shown, with data-v the figure in its base unit (the JSON's: a rate's MiB/s) */
static void td_num_as(FILE *f, double base, double v, const char *unit)
{
    char b[48];
    v = sum_fig_num(v);
    if (isfinite(v))
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s", sum_fig_num(base),
                ht_fmt_num(b, sizeof b, v));
    else
        fputs("<td class=\"n na\" data-v=\"\">\xE2\x80\x94", f);
    if (unit && isfinite(v)) {
        fputs("<small> ", f);
        ht_esc(f, unit);
        fputs("</small>", f);
    }
    fputs("</td>", f);
}

static void td_num(FILE *f, double v, const char *unit)
{
    td_num_as(f, v, v, unit);
}

/* A figure of dimension d (given in MiB, s or Wh) in --units' unit: data-v keeps the base unit
 * (the JSON's) for sorting and tests; the text is units.h's, its unit in the column's header
 * (with_unit false) or after it. */
static void td_dim(FILE *f, double v, enum sum_dim d, const struct sum_units *u, bool with_unit)
{
    char b[64];
    v = sum_fig_num(v);
    if (!isfinite(v)) {
        fputs("<td class=\"n na\" data-v=\"\">\xE2\x80\x94</td>", f);
        return;
    }
    fprintf(f, "<td class=\"n\" data-v=\"%.17g\">", v);
    ht_esc(f, with_unit ? ht_fmt_dim(b, sizeof b, v, d, u) : ht_fmt_dim_num(b, sizeof b, v, d, u));
    fputs("</td>", f);
}

/* The start of a key-value row: <tr><th [title]>label</th> */
static void kv_head(FILE *f, const char *label, const char *title)
{
    fputs("<tr><th", f);
    if (title) {
        fputs(" title=\"", f);
        ht_esc(f, title);
        fputs("\"", f);
    }
    fputs(">", f);
    ht_esc(f, label);
    fputs("</th>", f);
}

static void kv_dim(FILE *f, const char *label, double v, enum sum_dim d, const struct sum_units *u,
                   const char *title)
{
    if (!isfinite(v))
        return;
    kv_head(f, label, title);
    td_dim(f, v, d, u, true);
    fputs("</tr>\n", f);
}

static void kv_row_t(FILE *f, const char *label, double v, const char *unit, const char *title)
{
    if (!isfinite(v))
        return;
    kv_head(f, label, title);
    td_num(f, v, unit);
    fputs("</tr>\n", f);
}

static void kv_row(FILE *f, const char *label, double v, const char *unit)
{
    kv_row_t(f, label, v, unit, NULL);
}

static void kv_text(FILE *f, const char *label, const char *text)
{
    if (!text || !*text)
        return;
    fputs("<tr><th>", f);
    ht_esc(f, label);
    fputs("</th><td>", f);
    ht_esc(f, text);
    fputs("</td></tr>\n", f);
}

static void th_unit(FILE *f, const char *head, const char *unit)
{
    fputs("<th scope=\"col\">", f);
    ht_esc(f, head);
    if (unit) {
        fputs(" <small>[", f);
        ht_esc(f, unit);
        fputs("]</small>", f);
    }
    fputs("</th>", f);
}

/* A line of the Run table: a row figure marked SUM_SHOW_PAGE (report_rows.c's table), with its label,
 * what it means as the line's title, in its dimension's unit (the entry's); an
 * unmeasured figure has no line. */
struct run_lines {
    FILE *f;
    const struct sum_units *u;
};

static void run_line(void *ctx, const struct sum_row_def *col, double v)
{
    const struct run_lines *r = ctx;
    if (sum_dim_converts(col->dim) && col->dim != SUM_DIM_MEM_RATE) {
        kv_dim(r->f, col->show.label, v, col->dim, r->u, col->what);
    } else {
        if (!isfinite(v)) /* unmeasured: no line */
            return;
        const char *unit = sum_dim_unit(r->u, col->dim);
        kv_head(r->f, col->show.label, col->what);
        td_num_as(r->f, v, sum_dim_value(r->u, col->dim, v), *unit ? unit : NULL);
        fputs("</tr>\n", r->f);
    }
}

static void run_table(FILE *f, const struct sum_run *run, const struct sum_units *u)
{
    char b[64];
    fputs("<h2>Run</h2>\n<table class=\"kv\" id=\"t-run\">\n", f);
    double t0, t1;
    if (sum_run_span(run, &t0, &t1))
        kv_text(f, "start", ht_fmt_utc(b, sizeof b, t0));
    double dur = sum_fig_round_us(sum_run_duration(run));
    if (isfinite(dur))
        kv_text(f, "duration",
                u && u->given[SUM_DIM_TIME] ? ht_fmt_dim(b, sizeof b, dur, SUM_DIM_TIME, u)
                                            : ht_fmt_dur(b, sizeof b, dur));
    struct run_lines r = {f, u};
    sum_report_shown(run, SUM_SHOW_PAGE, run_line, &r);
    char z[160];
    snprintf(z, sizeof z, "%s (%s)", run->tz.name, sum_fig_tz_source(run->tz_source));
    if (sum_fig_smi_times(run)) /* AMD's rows are hwmon's own, in UTC: no zone to tell */
        kv_text(f, "nvidia-smi clock", z);
    fputs("</table>\n", f);
}

/* The Per GPU table: a column per figure of hw_metrics.csv's table flagged for the page
 * (HW_GF_PAGE, in its order; one shown only where measured, HW_GF_WHEN_SEEN, when a GPU of the
 * run measured it), as the table names it, each its mean over the run; memory used is its peak
 * of the total, in --units gpumem; the energy follows the power. */
static bool page_fig(const struct sum_run *run, int m)
{
    if (!(hw_gpu_figs[m].flags & HW_GF_PAGE))
        return false;
    if (!(hw_gpu_figs[m].flags & HW_GF_WHEN_SEEN))
        return true;
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g] && run->gpu[g]->m[m].n)
            return true;
    return false;
}

void ht_gpu_table(FILE *f, const struct ht_page *P)
{
    const struct sum_run *run = P->run;
    const struct sum_units *u = P->u;
    if (!sum_run_gpu_count(run))
        return;
    fputs("<section class=\"gpus\">\n<h2>Per GPU</h2>\n<table class=\"grid\" id=\"t-gpus\">\n"
          "<thead><tr>", f);
    th_unit(f, "GPU", NULL);
    double msc;
    const char *mu = ht_mem_axis(u, 2048, &msc); /* GiB unless --units mem says */
    bool shown[HW_GPU_FIG_COUNT];
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        shown[m] = page_fig(run, m);
        if (!shown[m])
            continue;
        if (m == HW_GM_MEM_USED)
            th_unit(f, "peak VRAM", mu);
        else
            th_unit(f, hw_gpu_figs[m].label, hw_gpu_dims[hw_gpu_figs[m].dim].unit);
        if (m == HW_GM_POWER)
            th_unit(f, "energy", sum_units_label(u, SUM_DIM_ENERGY));
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        fputs("<tr><th", f);
        if (gp->uuid[0]) {
            fputs(" title=\"", f);
            ht_esc(f, gp->uuid);
            fputs("\"", f);
        }
        fprintf(f, "><span class=\"key g%d\"><i></i>%d</span></th>", g % NGPU_COLORS, g);
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
            if (!shown[m])
                continue;
            if (m == HW_GM_MEM_USED) {
                double peak = sum_fig_num(sum_fig_max(&gp->m[HW_GM_MEM_USED]));
                double total = sum_fig_num(sum_fig_max(&gp->m[HW_GM_MEM_TOTAL]));
                char b1[32], b2[32];
                if (isfinite(peak) && isfinite(total))
                    fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s<small> / %s</small></td>",
                            peak / 1024, ht_fmt_num(b1, sizeof b1, peak / msc),
                            ht_fmt_num(b2, sizeof b2, total / msc));
                else
                    td_num(f, peak / msc, NULL);
            } else {
                td_num(f, sum_fig_mean(&gp->m[m]), NULL);
            }
            if (m == HW_GM_POWER)
                td_dim(f, sum_gpu_energy_wh(run, g, NULL), SUM_DIM_ENERGY, u, false);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n<p class=\"foot\">Means over the run; peak VRAM of total.</p>\n"
          "</section>\n",
          f);
}

/* Phases by name (the JSON's phase_names, phasenames.h), first when a name repeats (a training
 * loop's `step`): each name's figures over all its entries, the values the JSON prints. */
static void phase_names_table(FILE *f, const struct ht_page *P)
{
    const struct sum_names *s = &P->run->names;
    const struct sum_units *u = P->u;
    bool repeats = false;
    for (size_t i = 0; i < s->n; i++)
        repeats |= s->v[i].count > 1 || s->v[i].kept < s->v[i].count;
    if (!repeats)
        return;
    fputs("<h2>Phases by name</h2>\n<table class=\"grid\" id=\"t-phase-names\">\n<thead><tr>", f);
    th_unit(f, "phase", NULL);
    th_unit(f, "count", NULL);
    th_unit(f, "total", NULL);
    th_unit(f, "mean", NULL);
    th_unit(f, "min", NULL);
    th_unit(f, "max", NULL);
    th_unit(f, "std", NULL);
    th_unit(f, "energy", NULL);
    th_unit(f, "GPU util", "%");
    th_unit(f, "peak VRAM", NULL);
    th_unit(f, "CPU usr", "%");
    th_unit(f, "process CPU", "%");
    th_unit(f, "peak RSS", NULL);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < s->n && i < MAX_TABLE_ROWS; i++) {
        const struct sum_name_acc *a = &s->v[i];
        fprintf(f, "<tr class=\"name-row\" data-count=\"%llu\"><th><span class=\"sw p%d\"></span>",
                (unsigned long long)a->count, ht_phase_color(P, a->name));
        ht_esc(f, a->name);
        if (a->failed)
            fprintf(f, " <small class=\"badstatus\">%llu failed</small>",
                    (unsigned long long)a->failed);
        fputs("</th>", f);
        td_num(f, (double)a->count, NULL);
        td_dim(f, sum_fig_round_us(a->timed ? a->d_sum : NAN), SUM_DIM_TIME, u, true);
        td_dim(f, sum_fig_round_us(sum_name_mean_s(a)), SUM_DIM_TIME, u, true);
        td_dim(f, sum_fig_round_us(a->timed ? a->d_min : NAN), SUM_DIM_TIME, u, true);
        td_dim(f, sum_fig_round_us(a->timed ? a->d_max : NAN), SUM_DIM_TIME, u, true);
        td_dim(f, sum_fig_round_us(sum_name_std_s(a)), SUM_DIM_TIME, u, true);
        td_dim(f, sum_name_energy_wh(P->run, a), SUM_DIM_ENERGY, u, true);
        td_num(f, sum_fig_mean(&a->util), NULL);
        td_dim(f, sum_fig_max(&a->mem_used), SUM_DIM_MEM, u, true);
        td_num(f, sum_fig_mean(&a->cpu_usr), NULL);
        td_num(f, sum_fig_mean(&a->proc_cpu), NULL);
        td_dim(f, sum_fig_max(&a->proc_rss), SUM_DIM_MEM, u, true);
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n<p class=\"foot\">Each name over all its entries (overlapping "
          "entries: the figures are over the union of their windows).",
          f);
    if (s->n > MAX_TABLE_ROWS)
        fprintf(f, " %zu more names in the summary JSON.", s->n - MAX_TABLE_ROWS);
    if (s->names_dropped)
        fprintf(f, " %llu phases of names beyond the first %d not summarized by name.",
                (unsigned long long)s->names_dropped, SUM_MAX_PHASE_NAMES);
    fputs("</p>\n", f);
}

static void phase_table(FILE *f, const struct ht_page *P)
{
    const struct sum_run *run = P->run;
    const struct sum_units *u = P->u;
    if (!run->nphase)
        return;
    fputs("<h2>Per phase</h2>\n<table class=\"grid\" id=\"t-phases\">\n<thead><tr>", f);
    th_unit(f, "phase", NULL);
    th_unit(f, "start", "s");
    th_unit(f, "length", NULL);
    th_unit(f, "energy", sum_units_label(u, SUM_DIM_ENERGY));
    double msc;
    th_unit(f, "peak VRAM", ht_mem_axis(u, 2048, &msc));
    th_unit(f, "util", "%");
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < run->nphase && i < MAX_TABLE_ROWS; i++) {
        const struct sum_phase_acc *p = &run->phase[i];
        long gs = sum_phase_gpu_samples(run, p);
        fprintf(f, "<tr class=\"phase-row%s\"><th data-edges=\"%s\"><span class=\"sw p%d\"></span>",
                p->open ? " open" : "", sum_phase_edges(p), ht_phase_color(P, p->name));
        ht_esc(f, p->name);
        if (p->open) /* begun and never ended: where the run was when it stopped */
            fputs(" <small class=\"badstatus\" title=\"begun and never ended\">open</small>", f);
        struct sum_fwmem_fig fw;
        if (sum_fwmem_figures(run, p, &fw)) {
            char fb[48];
            fputs(" <small class=\"fw\">", f);
            ht_esc(f, p->fw.framework);
            fprintf(f, " peak %s</small>", ht_fmt_dim(fb, sizeof fb, fw.peak_mib, SUM_DIM_MEM, u));
        }
        if (gs >= 0 && gs < SUM_PHASE_GPU_RESOLVED) /* its GPU figures are one sample or none */
            fprintf(f, " <small class=\"unresolved\" title=\"%ld GPU sample%s inside: not resolved\">"
                       "GPU unresolved</small>", gs, gs == 1 ? "" : "s");
        double covered;
        if (sum_phase_energy_partly(P->run, p, &covered)) { /* first read after it began, a gap */
            char cb[48];
            fprintf(f, " <small class=\"unresolved\" title=\"GPU energy over %s of it: partly "
                       "unmeasured\">GPU energy partly</small>",
                    ht_fmt_dur(cb, sizeof cb, sum_fig_round_us(covered)));
        }
        fputs("</th>", f);
        td_num(f, p->t0 - P->t0, NULL);
        char b[48];
        double secs = sum_fig_round_us(p->t1 - p->t0);
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s</td>", isfinite(secs) ? secs : 0,
                u && u->given[SUM_DIM_TIME] ? ht_fmt_dim(b, sizeof b, secs, SUM_DIM_TIME, u)
                                            : ht_fmt_dur(b, sizeof b, secs));
        td_dim(f, sum_phase_energy_wh(P->run, p), SUM_DIM_ENERGY, u, false);
        /* over the phase's GPUs: the largest of their peaks, the mean of all their samples */
        double peak = NAN, usum = 0, un = 0;
        for (int g = 0; g < RD_MAX_GPUS; g++) {
            const struct sum_phase_gpu *pg = p->gpu[g];
            if (!pg)
                continue;
            double m = sum_fig_max(&pg->m[HW_GM_MEM_USED]);
            if (isfinite(m) && !(peak >= m))
                peak = m;
            usum += pg->m[HW_GM_UTIL].sum;
            un += (double)pg->m[HW_GM_UTIL].n;
        }
        char pb[48]; /* data-v in GiB as always, the text in --units */
        peak = sum_fig_num(peak);
        if (isfinite(peak))
            fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s</td>", peak / 1024,
                    ht_fmt_num(pb, sizeof pb, peak / msc));
        else
            td_num(f, NAN, NULL);
        td_num(f, un > 0 ? usum / un : NAN, NULL);
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    if (run->nphase > MAX_TABLE_ROWS)
        fprintf(f, "<p class=\"foot\">%zu more phases in the summary JSON.</p>\n",
                run->nphase - MAX_TABLE_ROWS);
    if (isfinite(run->outside_phases_s)) {
        char b[48];
        double secs = sum_fig_round_us(run->outside_phases_s);
        fprintf(f, "<p class=\"foot\" id=\"outside-phases\" data-v=\"%.17g\">Outside any phase: "
                   "%s.</p>\n",
                secs, u && u->given[SUM_DIM_TIME] ? ht_fmt_dim(b, sizeof b, secs, SUM_DIM_TIME, u)
                                                  : ht_fmt_dur(b, sizeof b, secs));
    }
}

static void event_table(FILE *f, const struct ht_page *P)
{
    const struct sum_run *run = P->run;
    if (!run->netype && !run->etype_other)
        return;
    fprintf(f, "<h2>Events</h2>\n<table class=\"kv\" id=\"t-events\" data-total=\"%llu\">\n",
            (unsigned long long)sum_fig_events_total(run));
    for (size_t i = 0; i < run->netype; i++)
        kv_row(f, run->etype[i].name, (double)run->etype[i].n, NULL);
    if (run->etype_other)
        kv_row(f, "(other)", (double)run->etype_other, NULL);
    fputs("</table>\n", f);
    if (!run->nerr)
        return;
    fputs("<table class=\"grid\" id=\"t-errors\">\n<thead><tr>", f);
    th_unit(f, "at", "s");
    th_unit(f, "error-like event", NULL);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < run->nerr; i++) {
        const struct sum_error_event *e = &run->err[i];
        fputs("<tr>", f);
        td_num(f, e->t - P->t0, NULL);
        fputs("<td><b>", f);
        ht_esc(f, e->name);
        fputs("</b>", f);
        if (e->data) {
            size_t n = strlen(e->data);
            fputs(" <small>", f);
            ht_esc_n(f, e->data, n > 300 ? 300 : n);
            if (n > 300)
                fputs("\xE2\x80\xA6", f);
            fputs("</small>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

void ht_quality_notes(const struct sum_run *run, struct ht_notes *N)
{
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const struct rd_quality *q = &run->q[k];
        const char *name = hw_file_names[k];
        if (run->read_error[k][0]) {
            ht_note(N, false, "%s could not be read: %s", name, run->read_error[k]);
            continue;
        }
        if (!q->present)
            continue;
        uint64_t sk = rd_quality_skipped_total(q);
        if (sk) {
            char why[120] = "";
            size_t len = 0;
            for (int s = 0; s < RD_SKIP_COUNT; s++) {
                if (!q->skipped[s])
                    continue;
                int w = snprintf(why + len, sizeof why - len, "%s%s %llu", len ? ", " : "",
                                 rd_skip_names[s], (unsigned long long)q->skipped[s]);
                if (w < 0 || (size_t)w >= sizeof why - len)
                    break;
                len += (size_t)w;
            }
            ht_note(N, false, "%s: %llu of %llu lines skipped (%s)", name, (unsigned long long)sk,
                    (unsigned long long)q->lines, why);
        }
        if (q->bad_cells)
            ht_note(N, false, "%s: %llu cell%s with junk instead of a number", name,
                    (unsigned long long)q->bad_cells, q->bad_cells == 1 ? "" : "s");
        for (size_t i = 0; i < q->n_ranged; i++)
            ht_note(N, false, "%s: %s out of range %llu time%s (first %.17g, line %llu): not a "
                    "reading", name, q->out_of_range[i].column,
                    (unsigned long long)q->out_of_range[i].n,
                    q->out_of_range[i].n == 1 ? "" : "s", q->out_of_range[i].value,
                    (unsigned long long)q->out_of_range[i].line);
        uint64_t ph = rd_quality_placeholders_total(q);
        if (ph && !rd_kind_placeholders_normal((enum hw_file)k)) {
            char what[160] = "";
            size_t len = 0;
            for (size_t i = 0; i < q->n_tokens; i++) {
                int w = snprintf(what + len, sizeof what - len, "%s%s %llu", len ? ", " : "",
                                 q->placeholders[i].token[0] ? q->placeholders[i].token : "(empty)",
                                 (unsigned long long)q->placeholders[i].n);
                if (w < 0 || (size_t)w >= sizeof what - len)
                    break;
                len += (size_t)w;
            }
            ht_note(N, true, "%s: %llu cell%s not measured (%s)", name, (unsigned long long)ph,
                    ph == 1 ? "" : "s", what);
        }
        if (q->partial_last)
            ht_note(N, false, "%s ends in a partial line (not yet written)", name);
        if (q->torn)
            ht_note(N, false, "%s: %llu line%s cut short by a failed write (a full disk?), the "
                              "whole record after each read", name, (unsigned long long)q->torn,
                    q->torn == 1 ? "" : "s");
        uint64_t gaps = sum_run_file_gaps(run, (enum hw_file)k);
        if (gaps) {
            char b[32];
            ht_note(
                N, true, "%s: %llu gap%s in sampling (interval %s s)", name,
                (unsigned long long)gaps, gaps == 1 ? "" : "s",
                ht_fmt_num(b, sizeof b, sum_fig_num(sum_stat_quantile(&run->q_interval[k], 0.5))));
        }
    }
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || !gp->energy.gaps)
            continue;
        char a[32], b[32];
        ht_note(N, true, "GPU %d: %llu gap%s in power (%s not bridged; interval %s s)", g,
                (unsigned long long)gp->energy.gaps, gp->energy.gaps == 1 ? "" : "s",
                ht_fmt_dur(a, sizeof a, gp->energy.gap_s),
                ht_fmt_num(b, sizeof b, sum_fig_num(gp->energy.interval_s)));
    }
    for (int i = 0; i < run->nhealth_warn; i++) /* the GPUs' health (clocks.h) */
        ht_note(N, false, "%s", run->health_warn[i]);
    char note[300];
    for (int i = 0; i < SUM_NOTE_COUNT; i++)
        if (*sum_run_note(run, i, note, sizeof note))
            ht_note(N, true, "%s", note);
    for (int g = 0; g < RD_MAX_GPUS; g++) { /* why they were slow: the same words as the text */
        if (!run->clk[g])
            continue;
        struct sum_clk_figs f;
        sum_clk_figs(&run->clk[g]->acc, &f);
        char a[32], b[32];
        if (f.power_pct > 0 || f.thermal_pct > 0)
            ht_note(N, true, "GPU %d: power-capped %s%%, thermally slowed %s%% of the time (%s)",
                    g, ht_fmt_num(a, sizeof a, sum_fig_num(f.power_pct)),
                    ht_fmt_num(b, sizeof b, sum_fig_num(f.thermal_pct)), f.source);
    }
    if (run->info.child_restarts)
        ht_note(N, false, "nvidia-smi children restarted %llu time%s",
                (unsigned long long)run->info.child_restarts,
                run->info.child_restarts == 1 ? "" : "s");
    if (run->gpu_rows_dropped)
        ht_note(N, false, "%llu rows of GPUs beyond the first %d not summarized",
                (unsigned long long)run->gpu_rows_dropped, RD_MAX_GPUS);
    if (run->phases_beyond)
        ht_note(N, false, "%llu phases beyond the first %d summarized by name only (in brief in "
                "the JSON)", (unsigned long long)run->phases_beyond, SUM_MAX_PHASES);
    if (run->phases_dropped)
        ht_note(N, false, "%llu phases not summarized", (unsigned long long)run->phases_dropped);
    if (run->tz_start_unrecognized)
        ht_note(N, false, "the start event's smi_tz \"%s\" was not understood",
                run->info.smi_tz_raw);
    if (run->tl && run->tl->out_of_range)
        ht_note(N, false,
                "%llu rows with a time far from the rest of the run (a wrong clock?) not drawn",
                (unsigned long long)run->tl->out_of_range);
    if (run->tl && run->tl->oom)
        ht_note(N, false, "out of memory: some series are incomplete");
}

size_t ht_count_warnings(const struct sum_run *run)
{
    struct ht_notes *N = calloc(1, sizeof *N);
    if (!N) {
        sum_oom_note();
        return 0;
    }
    ht_quality_notes(run, N);
    size_t k = 0;
    for (size_t i = 0; i < N->n; i++)
        k += !N->minor[i];
    free(N);
    return k;
}

/* The whole summary (the JSON summarize prints), escaped, for whatever the tables leave out. */
static void json_dump(FILE *f, const struct sum_run *run)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_json(run, &b);
    if (b.oom || !b.p) {
        if (b.oom)
            sum_oom_note(); /* the section is left out: said by the exit status */
        hw_buf_free(&b);
        return;
    }
    fputs("<details id=\"t-json\"><summary>The whole summary (JSON)</summary><pre>", f);
    size_t n = b.len, m = n > MAX_JSON_DUMP ? MAX_JSON_DUMP : n;
    while (m > 0 && m < n && ((unsigned char)b.p[m] & 0xC0) == 0x80)
        m--;
    ht_esc_n(f, b.p, m);
    if (m < n)
        fprintf(f, "\n\xE2\x80\xA6 (%zu more bytes: see summarize --format json)", n - m);
    fputs("</pre></details>\n", f);
    hw_buf_free(&b);
}

void ht_tables(FILE *f, const struct ht_page *P)
{
    run_table(f, P->run, P->u);
    phase_names_table(f, P);
    phase_table(f, P);
    event_table(f, P);
    struct ht_notes *N = calloc(1, sizeof *N);
    if (!N)
        sum_oom_note();
    if (N) {
        ht_quality_notes(P->run, N);
        if (P->oom)
            ht_note(N, false, "out of memory: some series are incomplete");
    }
    fputs("<h2>Data quality</h2>\n", f);
    if (!N || !N->n) {
        fputs("<p class=\"ok\" id=\"t-quality\">No problems found while reading.</p>\n", f);
    } else {
        fputs("<ul class=\"warn\" id=\"t-quality\">\n", f);
        for (size_t i = 0; i < N->n; i++) {
            fputs(N->minor[i] ? "<li class=\"minor\">" : "<li>", f);
            ht_esc(f, N->text[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    free(N);
    json_dump(f, P->run);
}
