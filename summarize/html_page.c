/* The HTML report's pages (html.h): a run's page (its header and layout) and the sweep page,
 * and the CLI's entry points. The charts are html_svg.c's, the tables html_tables.c's, the
 * writing, numbers and the page's head html_fmt.c's; everything comes from the run's struct
 * sum_run and its timeline, computed in one pass (runread.c and its sinks): no file is read here. */
#include <errno.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "html_int.h"
#include "oom.h"
#include "hwrun/io.h"
#include "hwrun/parse.h"
#include "outcome.h"
#include "report.h"

/* ---- the page -------------------------------------------------------------------------------- */

static int check_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return -errno;
    if (!S_ISDIR(st.st_mode))
        return -ENOTDIR;
    return 0;
}

/* How the run ended (summarize/outcome.c decides it): a failed, killed or unfinished run must
 * not look like a good one. */
static void outcome_banner(FILE *f, const struct sum_run *run)
{
    const struct sum_outcome *o = &run->outcome;
    const char *status = sum_status_names[o->status];
    bool ok = o->status == SUM_STATUS_OK;
    fprintf(f, "<p class=\"banner %s\" id=\"status\" data-status=\"", ok ? "good" : "bad");
    ht_esc(f, status);
    fputs("\">Run <b>", f);
    ht_esc(f, status);
    fputs("</b>", f);
    char why[600];
    if (*sum_outcome_reason(o, why, sizeof why)) {
        fputs(": ", f);
        ht_esc(f, why);
    }
    char where[200];
    if (*sum_outcome_where(o, where, sizeof where)) {
        fputs(" <span id=\"open-phase\">", f);
        ht_esc(f, where);
        fputs("</span>", f);
    }
    char failed[512];
    if (*sum_outcome_failed_note(o, failed, sizeof failed)) {
        fputs(" \xC2\xB7 ", f);
        ht_esc(f, failed);
    }
    char note[512];
    if (*sum_outcome_note(o, note, sizeof note)) {
        fputs(" \xC2\xB7 ", f);
        ht_esc(f, note);
    }
    fputs("</p>\n", f);
}

/* The verdicts (verdicts.h), under the status: each with its rule's id, its words, and the
 * threshold it crossed with the rule's source on hover; the rules that lacked data last. */
static void notes_list(FILE *f, const struct sum_run *run)
{
    const struct sum_verdicts *vs = run->verdicts;
    if (!vs || !vs->n)
        return;
    const struct sum_rule_cfg *rc = run->cfg ? run->cfg->rules : NULL;
    fputs("<ul class=\"notes\" id=\"notes\">\n", f);
    for (size_t i = 0; i < vs->n; i++) {
        const struct sum_verdict *v = &vs->v[i];
        const struct sum_rule *r = &sum_rules[v->rule];
        bool missing = v->rule == SUM_RULE_DATA_MISSING;
        fprintf(f, "<li class=\"note %s\" data-rule=\"%s\" data-severity=\"%s\"",
                missing ? "missing" : sum_severity_names[v->sev], r->id,
                sum_severity_names[v->sev]);
        if (v->gpu >= 0)
            fprintf(f, " data-gpu=\"%d\"", v->gpu);
        fputs(" title=\"", f);
        ht_esc(f, r->source);
        fputs("\"><b>", f);
        ht_esc(f, r->id);
        fputs("</b> ", f);
        ht_esc(f, v->text);
        const struct sum_rule_thr *t = &r->thr[v->thr];
        if (!missing && t->key) {
            fprintf(f, " <small>(%s.%s = ", r->id, t->key);
            if (t->sdef)
                ht_esc(f, sum_rule_thr_str(rc, v->rule, v->thr));
            else
                fprintf(f, "%.12g", sum_rule_thr(rc, v->rule, v->thr));
            fputs(" ", f);
            ht_esc(f, t->unit);
            fputs(")</small>", f);
        }
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* What the run was given and what it reached, at the top (issue 37): its params and the last
 * value of each metric it logged (summary.h's sum_param), as the sweep's columns name them. */
static void params_line(FILE *f, const struct sum_run *run)
{
    for (int metric = 0; metric <= 1; metric++) {
        bool any = false;
        for (size_t i = 0; i < run->nparams; i++) {
            const struct sum_param *p = &run->params[i];
            if (p->metric != (metric == 1))
                continue;
            if (!any)
                fprintf(f, "<p class=\"meta\" id=\"%s\">%s ", metric ? "metrics" : "params",
                        metric ? "Metrics (last value)" : "Params");
            else
                fputs(" \xC2\xB7 ", f);
            any = true;
            fputs("<span class=\"kv\">", f);
            ht_esc(f, p->key);
            fputs(" <b>", f);
            ht_esc(f, p->v ? json_object_to_json_string_ext(p->v, JSON_C_TO_STRING_PLAIN |
                                                                       JSON_C_TO_STRING_NOSLASHESCAPE)
                           : "null");
            fputs("</b></span>", f);
        }
        if (any)
            fputs("</p>\n", f);
    }
}

/* The time axis: the span of the samples, widened to take in the start and stop events, the
 * phases and the events unless they lie absurdly far from the samples (a bad clock must not
 * squash the charts). */
static void choose_range(struct ht_page *P)
{
    const struct sum_run *run = P->run;
    double lo = P->tl ? P->tl->t_lo : NAN, hi = P->tl ? P->tl->t_hi : NAN;
    double jlo = NAN, jhi = NAN;
#define SEE(t)                                                                                     \
    do {                                                                                           \
        double t_ = (t);                                                                           \
        if (isfinite(t_)) {                                                                        \
            if (!(jlo <= t_))                                                                      \
                jlo = t_;                                                                          \
            if (!(jhi >= t_))                                                                      \
                jhi = t_;                                                                          \
        }                                                                                          \
    } while (0)
    SEE(run->info.t_start);
    SEE(run->info.t_stop);
    double s0, s1; /* the run's own span (the JSON's start and end): the job's, from its start */
    if (sum_run_span(run, &s0, &s1)) {
        SEE(s0);
        SEE(s1);
    }
    for (size_t i = 0; i < run->nphase; i++) {
        SEE(run->phase[i].t0);
        SEE(run->phase[i].t1);
    }
    for (size_t i = 0; P->tl && i < P->tl->nev; i++)
        SEE(P->tl->ev[i].t);
#undef SEE
    if (!isfinite(lo)) {
        lo = jlo;
        hi = jhi;
    } else if (isfinite(jlo)) {
        double slack = fmax(hi - lo, 3600);
        if (jlo < lo && jlo >= lo - slack)
            lo = jlo;
        if (jhi > hi && jhi <= hi + slack)
            hi = jhi;
    }
    if (!isfinite(lo)) { /* nothing with a time at all */
        P->no_data = true;
        lo = 0;
        hi = 1;
    }
    if (!(hi > lo))
        hi = lo + 1;
    P->t0 = lo;
    P->t1 = hi;
    P->per_col = (hi - lo) / P->ncols;
}

static void render_run(FILE *f, struct ht_page *P, const char *title)
{
    const struct sum_run *run = P->run;
    char b1[64], b2[64], b3[64];
    ht_page_head(f, title, false);
    fputs("<body>\n<header>\n<h1>", f);
    ht_esc(f, title);
    fputs("</h1>\n", f);
    outcome_banner(f, run);
    notes_list(f, run);
    params_line(f, run);
    fputs("<p class=\"meta\">", f);
    if (P->no_data) {
        fputs("<b>No samples, phases or events with a time were found in this directory.</b>", f);
    } else { /* the run's own start and duration, as the JSON and the Run table say them */
        double s0 = P->t0, s1 = P->t1;
        if (!sum_run_span(run, &s0, &s1))
            s0 = P->t0, s1 = P->t1;
        double dur = sum_run_duration(run);
        fprintf(f, "Start <b>%s</b> \xC2\xB7 duration <b id=\"duration\" data-s=\"%.17g\">%s</b>",
                ht_fmt_utc(b1, sizeof b1, s0), sum_fig_round_us(isfinite(dur) ? dur : s1 - s0),
                ht_fmt_dur(b2, sizeof b2, isfinite(dur) ? dur : s1 - s0));
    }
    size_t ngpu = sum_run_gpu_count(run);
    if (ngpu)
        fprintf(f, " \xC2\xB7 <b>%zu</b> GPU%s", ngpu, ngpu > 1 ? "s" : "");
    if (run->outcome.host[0]) {
        fputs(" \xC2\xB7 host <b>", f);
        ht_esc(f, run->outcome.host);
        fputs("</b>", f);
    }
    if (P->tl && P->tl->command[0]) {
        fputs(" \xC2\xB7 command <code>", f);
        ht_esc(f, P->tl->command);
        fputs("</code>", f);
    }
    /* The sampling interval and the gaps are the summary's (gpus[].energy): the same rule. */
    double iv = ht_interval(run);
    fprintf(f,
            "<br>Times are counted from the start (UTC). Resolution <b id=\"resolution\" "
            "data-s-per-col=\"%.6g\">%s s</b> per pixel column (%d columns; each keeps its "
            "first, last, minimum and maximum sample). Sampling interval <b id=\"interval\" "
            "data-s=\"%.12g\">%s s</b>; lines break where sampling paused for more than %.0f "
            "intervals (<b id=\"gaps\" data-n=\"%llu\">%llu</b> GPU gap%s).",
            P->per_col, ht_fmt_num(b3, sizeof b3, P->per_col), P->ncols, sum_fig_num(iv),
            ht_fmt_num(b1, sizeof b1, iv), RD_GAP_FACTOR, ht_gpu_gaps(run), ht_gpu_gaps(run),
            ht_gpu_gaps(run) == 1 ? "" : "s");
    fputs("</p>\n</header>\n", f);
    ht_gpu_table(f, P);
    fputs("<div class=\"layout\">\n<main class=\"charts\">\n", f);
    int lanes = ht_prepare_phases(P);
    if (P->nph || (P->tl && (P->tl->nev || P->tl->ev_dropped)) || run->phases_beyond || run->phases_dropped)
        ht_draw_strip(f, P, lanes);
    if (P->tl)
        ht_draw_charts(f, P);
    fputs("</main>\n<aside class=\"tables\">\n", f);
    ht_tables(f, P);
    fputs("</aside>\n</div>\n<footer>Written by summarize (hwrun " HWRUN_VERSION
          "). Self-contained: no network, no script. Hover a phase, an event marker or a line for "
          "its name.</footer>\n</body>\n</html>\n",
          f);
}

void sum_html_opts_init(struct sum_html_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->width = SUM_HTML_WIDTH_DEFAULT;
}

int sum_html_cols(const struct sum_html_opts *opts)
{
    int w = opts && opts->width ? opts->width : SUM_HTML_WIDTH_DEFAULT;
    if (w < SUM_HTML_WIDTH_MIN || w > SUM_HTML_WIDTH_MAX)
        return -EINVAL;
    return w - ML - MR;
}

int sum_html_run(FILE *out, const struct sum_run *run, const struct sum_html_opts *opts, char *err,
                 size_t errlen)
{
    ht_set_err(err, errlen, "%s", "");
    struct sum_html_opts defaults;
    if (!opts) {
        sum_html_opts_init(&defaults);
        opts = &defaults;
    }
    if (!out || !run) {
        ht_set_err(err, errlen, "no output or no run");
        return -EINVAL;
    }
    int cols = sum_html_cols(opts);
    if (cols < 0) {
        ht_set_err(err, errlen, "chart width %d outside %d..%d", opts->width, SUM_HTML_WIDTH_MIN,
                SUM_HTML_WIDTH_MAX);
        return -EINVAL;
    }
    struct ht_page P = {.run = run, .tl = run->tl, .ncols = cols, .u = opts->units};
    if (run->tl && run->tl->cols != cols) {
        ht_set_err(err, errlen, "the timeline has %d columns, the page %d", run->tl->cols, cols);
        return -EINVAL;
    }
    P.ph = run->nphase ? calloc(run->nphase, sizeof *P.ph) : NULL;
    P.px = calloc((size_t)cols, sizeof *P.px);
    if ((run->nphase && !P.ph) || !P.px) {
        free(P.ph);
        free(P.px);
        ht_set_err(err, errlen, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    choose_range(&P);
    char name[256];
    const char *title = opts->title ? opts->title
                        : run->dir  ? ht_base_name(run->dir, name, sizeof name)
                                    : "run";
    render_run(out, &P, title);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (run->read_error[k][0]) {
            ht_set_err(err, errlen, "%s: %s (left out of the report)",
                    run->path[k] ? run->path[k] : hw_file_names[k], run->read_error[k]);
            break;
        }
    if (P.oom || (run->tl && run->tl->oom))
        ht_set_err(err, errlen, "%s: out of memory, some series are incomplete",
                run->dir ? run->dir : "run");
    free(P.ph);
    free(P.px);
    return ht_finish(out, 0, err, errlen);
}

/* ---- the CLI's entry points ------------------------------------------------------------- */

/* The path of target relative to directory base; both absolute and normalized (realpath).
 * Returns a malloc'd string or NULL. */
static char *relative_path(const char *base, const char *target)
{
    /* Skip the leading components both share. */
    const char *b = base, *t = target;
    for (;;) {
        while (*b == '/')
            b++;
        while (*t == '/')
            t++;
        size_t bn = strcspn(b, "/"), tn = strcspn(t, "/");
        if (bn == 0 || bn != tn || strncmp(b, t, bn) != 0)
            break;
        b += bn;
        t += tn;
    }
    /* Then one "../" for each component of base left over. */
    size_t ups = 0;
    for (const char *p = b; *p; p += strcspn(p, "/")) {
        while (*p == '/')
            p++;
        ups += *p != '\0';
    }
    char *out = malloc(ups * 3 + strlen(t) + 1);
    if (!out) {
        sum_oom_note();
        return NULL;
    }
    char *o = out;
    for (size_t i = 0; i < ups; i++, o += 3)
        memcpy(o, "../", 3);
    strcpy(o, t);
    return out;
}

char *sum_html_report_link(const char *page_path, const char *dir)
{
    char *pathdup = strdup(page_path);
    char base[PATH_MAX], report[PATH_MAX + 16], abs[PATH_MAX];
    if (!pathdup)
        return NULL;
    bool have_base = realpath(dirname(pathdup), base) != NULL;
    free(pathdup);
    snprintf(report, sizeof report, "%s/report.html", dir);
    /* relative to the page, so the page and the runs can move together */
    return have_base && realpath(report, abs) ? relative_path(base, abs) : NULL;
}

struct page_of {
    const struct sum_run *run;
    const struct sum_sweep_row *rows;
    size_t n;
    const struct sum_html_opts *opts;
};

static int draw_page(FILE *f, const void *ctx, char *err, size_t errlen)
{
    const struct page_of *p = ctx;
    return p->run ? sum_html_run(f, p->run, p->opts, err, errlen)
                  : sum_html_sweep(f, p->rows, p->n, p->opts, err, errlen);
}

int sum_html_write_file(const char *path, const struct sum_run *run,
                        const struct sum_sweep_row *rows, size_t n,
                        const struct sum_html_opts *opts, char *err, size_t errlen)
{
    ht_set_err(err, errlen, "%s", "");
    if (!path || (!run && (!rows || n == 0)))
        return -EINVAL;
    struct page_of p = {run, rows, n, opts};
    return ht_write_page_file(path, draw_page, &p, err, errlen);
}

int sum_html_summarize(const char *dir, const struct sum_html_opts *opts, bool sweep,
                       struct sum_run **out)
{
    *out = NULL;
    int cols = sweep ? SUM_HTML_SPARK_COLS : sum_html_cols(opts);
    if (!dir || cols < 0)
        return -EINVAL;
    int rc = check_dir(dir);
    if (rc < 0)
        return rc;
    struct sum_inputs in;
    char *storage[HW_FILE_COUNT];
    sum_inputs_from_dir(&in, dir, storage);
    struct sum_config cfg = {.timeline_cols = cols, .timeline_spark = sweep};
    struct sum_run *run = sum_run_new();
    rc = run ? sum_run_summarize(run, &in, &cfg) : -ENOMEM;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(storage[k]);
    if (rc == -ENOMEM || (run && !run->tl)) {
        sum_run_free(run);
        return -ENOMEM;
    }
    run->cfg = NULL; /* cfg was local */
    *out = run;
    return rc;
}
