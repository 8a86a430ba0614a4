/* The HTML report (issue 5): one self-contained page for a run directory, or one page over a
 * sweep of runs. The page needs no network: no external script, font or style (a
 * Content-Security-Policy meta tag forbids loading any); the charts are inline SVG drawn here.
 *
 * One run: timelines on one shared time axis (seconds since the run's start, UTC), per GPU
 * utilization, memory-controller utilization, memory used against total, power with the energy
 * so far, SM clock; CPU usr/sys/iowait; the process tree's RSS and CPU; cgroup memory against
 * its limit. Phases from run.jsonl are bands across every chart, events are markers (their type
 * in an SVG <title>), and gaps in sampling break the lines. Beside the charts, the summary's
 * tables.
 *
 * One owner for every number: the page is drawn from the run's struct sum_run, computed once
 * with its timeline (summary.h's timeline_cols, timeline.h) in the one pass over the files; the
 * tables show the figures the JSON prints (figures.h's sum_fig_*), the energy line is the
 * summary's own accumulator, the gaps are its gap rule with the interval it decided. Nothing is
 * read or parsed here.
 *
 * Memory and size do not grow with the run: every series is one bucket per pixel column (its
 * first, last, min and max sample, so a one-sample spike survives), and the page states the
 * resolution in seconds per column.
 *
 * Every string that comes from the data (phase and event names, host, command, JSON keys and
 * values) is HTML-escaped, with invalid UTF-8 and control characters shown as U+FFFD.
 *
 * Usage:
 *     struct sum_html_opts o;
 *     sum_html_opts_init(&o);
 *     struct sum_run *run;
 *     int rc = sum_html_summarize("runs/r1", &o, false, &run);   (or the CLI's own summary
 *                                       with cfg.timeline_cols = sum_html_cols(&o))
 *     if (run) rc = sum_html_run(f, run, &o, err, sizeof err);
 */
#ifndef SUM_HTML_H
#define SUM_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sum_run;
struct sum_units;
struct sum_jobsum;

#define SUM_HTML_WIDTH_DEFAULT 1000 /* chart width in px, axes included */
#define SUM_HTML_WIDTH_MIN 320
#define SUM_HTML_WIDTH_MAX 8000
#define SUM_HTML_SPARK_COLS 120 /* a sweep row's timeline (timeline_spark) */

struct sum_html_opts {
    /* Width of each chart in CSS pixels, axes included (SUM_HTML_WIDTH_MIN..MAX; 0: default).
     * The plot area is width - 118 px, one bucket per pixel column, so this also sets the
     * resolution (charts still scale with the window). The sweep's sparklines ignore it. */
    int width;
    /* Page title; NULL: the directory's name (one run) or "Sweep of N runs". Borrowed. */
    const char *title;
    /* --units (units.h): the figures people read (tables, chart axes and legends, the sweep
     * table) in these units; NULL: the defaults. The page's data-* attributes keep the JSON's
     * fixed units (MiB, s, Wh). Borrowed. */
    const struct sum_units *units;
};

/* Defaults: width SUM_HTML_WIDTH_DEFAULT. */
void sum_html_opts_init(struct sum_html_opts *opts);
/* The timeline's columns for a run page of these options (summary.h's timeline_cols), or
 * -EINVAL for a width out of range. */
int sum_html_cols(const struct sum_html_opts *opts);

/* Summarize the run directory dir with the timeline the page needs (sweep: the sparkline's
 * only) into a new *out (sum_run_free it). Returns sum_run_summarize's result (*out is set
 * for any of them but these): -EINVAL, -ENOENT/-ENOTDIR/-EACCES (dir is not a readable
 * directory), -ENOMEM. */
int sum_html_summarize(const char *dir, const struct sum_html_opts *opts, bool sweep,
                       struct sum_run **out);

/* One run: write a self-contained HTML page for run to out. run->tl is its timeline, of
 * sum_html_cols(opts) columns (NULL: the page has no charts).
 * - opts: may be NULL (defaults).
 * - err/errlen: a caller buffer (may be NULL/0), set to "" on success, or to a warning when a
 *   file of the run could not be read or memory ran out for some series (left out, and the page
 *   says so; still returns 0), or to the reason of a failure.
 * Returns 0, or -errno: -EINVAL (out or run NULL, bad width, a timeline of another width),
 * -ENOMEM, -EIO or the errno of a failed write to out (the page is then incomplete). Nothing is
 * printed; out is not closed. */
int sum_html_run(FILE *out, const struct sum_run *run, const struct sum_html_opts *opts,
                 char *err, size_t errlen);

/* A sweep: one page that answers "which run, and at what cost" (html_sweep.c). A row per run,
 * taken from its summary by sum_html_sweep_take (so that each summary can be freed once its row
 * is taken, on any thread): the run, its status and why, the params that vary across the sweep
 * (those the same in every run are said once above the table), the last value of every metric,
 * energy, duration, the headline figures (report.h's SUM_SHOW_SWEEP), a GPU utilization
 * sparkline, start and warnings; each numeric column at the precision its values need. Then
 * inline SVG plots of a chosen metric against energy (its Pareto front marked, data-pareto="1",
 * and listed) and against duration, every plotted run an element with data-run="NAME"; the rank
 * correlation of each varying param with the metric; parallel coordinates. A few lines of inline
 * script sort the table (a click on a header; a URL ending in #sort=K or #sort=-K sorts by
 * column K on load) and switch the metric; no script library, nothing fetched.
 * - dir: the run directory (its last name names the row);
 * - run: its summary, with a sparkline timeline (timeline_spark) or none; NULL when it could
 *   not be read: the row then says strerror(-rc);
 * - report: NULL, or the path of the run's own report relative to the page.
 * sum_html_sweep_take returns 0 or -ENOMEM (the row is then incomplete; free it still).
 * sum_html_sweep writes the page of n rows; err/errlen as for sum_html_run. Returns 0, or
 * -EINVAL (out or rows NULL, n == 0), -ENOMEM, or the errno of a failed write to out. */
#define SUM_SWEEP_MAX_FIGS 32
struct sum_sweep_kv {
    char *key;  /* the param's or metric's key */
    bool metric;
    double num; /* its value when a number, else NAN */
    char *text; /* its value as the job logged it (a string without quotes) */
};
struct sum_sweep_row {
    char *name, *link;
    int rc;       /* why it could not be read (have false) */
    bool have;    /* summarized */
    int status;   /* enum sum_status */
    char *reason; /* sum_outcome_reason */
    char *notes;  /* the verdicts' ids, or NULL */
    bool notes_warn;
    struct sum_sweep_kv *kv;
    size_t nkv;
    double start, duration, energy_wh; /* NAN: unknown */
    double figs[SUM_SWEEP_MAX_FIGS];   /* the SUM_SHOW_SWEEP figures, in their order */
    size_t warnings;
    char *spark; /* the sparkline's cell */
};
int sum_html_sweep_take(struct sum_sweep_row *row, const char *dir, const struct sum_run *run,
                        int rc, const char *report);
void sum_html_sweep_row_free(struct sum_sweep_row *row);
int sum_html_sweep(FILE *out, const struct sum_sweep_row *rows, size_t n,
                   const struct sum_html_opts *opts, char *err, size_t errlen);
/* The sweep page's arithmetic, for its tests: lower is better for a metric named like a loss
 * (loss, error, err, perplexity, ppl, wer); the decimals a column needs (html_sweep.c); the runs
 * on the Pareto front of (metric, energy) among the good ones (on[i]; returns how many);
 * Spearman's rank correlation over the pairs both have (*used of them; NAN under 3). */
bool sum_sweep_lower_is_better(const char *metric);
bool sum_sweep_counter(const char *metric); /* epoch, step, ...: not the default metric */
int sum_sweep_decimals(const double *v, size_t n, size_t stride, int sig);
size_t sum_sweep_pareto(const double *metric, const double *energy, const bool *good, size_t n,
                        bool lower, bool *on);
double sum_sweep_spearman(const double *x, const double *y, size_t n, size_t *used);

/* The link from a page at page_path to dir/report.html when that exists (relative, so the page
 * and the runs can move together); malloc'd, or NULL. */
char *sum_html_report_link(const char *page_path, const char *dir);

/* What `summarize --html FILE DIR...` does: the page of run (n and rows unused), or with run
 * NULL the sweep page of the n rows, rendered in memory and written atomically
 * (hw_write_atomic). Returns 0 or -errno; err as above (a warning with rc 0 is possible). */
int sum_html_write_file(const char *path, const struct sum_run *run,
                        const struct sum_sweep_row *rows, size_t n,
                        const struct sum_html_opts *opts, char *err, size_t errlen);

/* A job of many nodes (jobsum.h): its figures, a lane per node with its phases on one time axis
 * (seconds since each node's own start), the straggler outlined, tables of the nodes and the
 * phases; written to path atomically. Returns 0 or -errno; err as above. */
int sum_html_write_job_file(const char *path, const struct sum_jobsum *j,
                            const struct sum_html_opts *opts, char *err, size_t errlen);

#endif
