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
 * tables show the figures the JSON prints (report.h's sum_fig_*), the energy line is the
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
    /* The sweep page's columns after the figures: a sweep's param.KEY and metric.KEY, lined up
     * by name across the runs (each row adds its cells with sum_html_sweep_xcells). Borrowed. */
    const char *const *xcols;
    size_t nxcols;
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

/* A sweep: one page with one row per run (its key figures and a GPU utilization sparkline),
 * sortable by clicking a column header (a few lines of inline script; a URL ending in #sort=K
 * or #sort=-K sorts by column K on load). A row is written by sum_html_sweep_row (so that each
 * run's summary can be freed once its row is written):
 * - dir: the run directory (its name starts the row);
 * - run: its summary, with a sparkline timeline (timeline_spark) or none; NULL when it could
 *   not be read: the row then says strerror(-rc);
 * - report: NULL, or the path of the run's own report relative to the page;
 * - opts: NULL, or the page's options (its units).
 * sum_html_sweep writes the page around n rows (HTML text each). err/errlen as for
 * sum_html_run. Returns 0, or -EINVAL (out or rows or a rows[i] NULL, n == 0), or the errno of
 * a failed write to out. */
void sum_html_sweep_row(FILE *out, const char *dir, const struct sum_run *run, int rc,
                        const char *report, const struct sum_html_opts *opts);
int sum_html_sweep(FILE *out, const char *const *rows, size_t n,
                   const struct sum_html_opts *opts, char *err, size_t errlen);

/* The link from a page at page_path to dir/report.html when that exists (relative, so the page
 * and the runs can move together); malloc'd, or NULL. */
char *sum_html_report_link(const char *page_path, const char *dir);

/* What `summarize --html FILE DIR...` does: the page of run (n and rows unused), or with run
 * NULL the sweep page of the n rows, rendered in memory and written atomically
 * (hw_write_atomic). Returns 0 or -errno; err as above (a warning with rc 0 is possible). */
/* The sweep table's own columns (before opts->xcols): run, status, sparkline, start,
 * duration, the figures, warnings. */
size_t sum_html_sweep_cols(void);
/* A sweep row's cells of opts->xcols: cells[i] as a csv cell's text ("": none); a number is
 * sorted as one. */
void sum_html_sweep_xcells(FILE *out, const char *const *cells, size_t n);
int sum_html_write_file(const char *path, const struct sum_run *run, const char *const *rows,
                        size_t n, const struct sum_html_opts *opts, char *err, size_t errlen);

/* A job of many nodes (jobsum.h): its figures, a lane per node with its phases on one time axis
 * (seconds since each node's own start), the straggler outlined, tables of the nodes and the
 * phases; written to path atomically. Returns 0 or -errno; err as above. */
int sum_html_write_job_file(const char *path, const struct sum_jobsum *j,
                            const struct sum_html_opts *opts, char *err, size_t errlen);

#endif
