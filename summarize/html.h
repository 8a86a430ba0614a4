/* The HTML report (issue 5): one self-contained page for a run directory, or one page over a
 * sweep of runs. The page needs no network: no external script, font or style (a
 * Content-Security-Policy meta tag forbids loading any); the charts are inline SVG drawn here.
 *
 * One run: timelines on one shared time axis (seconds since the run's start, UTC), per GPU
 * utilization, memory-controller utilization, memory used against total, power with the energy
 * so far, SM clock; CPU usr/sys/iowait; the process tree's RSS and CPU; cgroup memory against
 * its limit. Phases from run.jsonl are bands across every chart, events are markers (their type
 * in an SVG <title>), and gaps in sampling (a step longer than SUM_HTML_GAP_FACTOR intervals)
 * break the lines. Beside the charts, the summary tables from the summary JSON object.
 *
 * Memory and size do not grow with the run: every series is reduced to one bucket per pixel
 * column of the plot (its first, last, min and max sample, so a one-sample spike survives), and
 * the page states the resolution in seconds per column. The files are read in three passes
 * through the streaming readers (readers.h): run.jsonl (phases, events, zone and GPU fields),
 * then the CSVs for the time range and the sample interval, then the CSVs again to draw. A one-
 * day 10 Hz run on 8 GPUs (860 MB of CSV) gives a page of about 1.1 MB in 4 MB of memory.
 *
 * Every string that comes from the data (phase and event names, host, command, JSON keys and
 * values) is HTML-escaped, with invalid UTF-8 and control characters shown as U+FFFD.
 *
 * Usage (the CLI's --html):
 *     struct sum_html_opts o;
 *     sum_html_opts_init(&o);
 *     char err[256];
 *     int rc = sum_html_run(f, "runs/r1", summary, &o, err, sizeof err);
 *     if (rc < 0) hw_die(HW_EXIT_FAIL, 0, "%s", err);
 *     else if (err[0]) hw_warn(0, "%s", err);   (a file left out, also said on the page)
 */
#ifndef SUM_HTML_H
#define SUM_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "readers.h"

struct json_object;

#define SUM_HTML_WIDTH_DEFAULT 1000 /* chart width in px, axes included */
#define SUM_HTML_WIDTH_MIN 320
#define SUM_HTML_WIDTH_MAX 8000
#define SUM_HTML_MAX_GPUS 64     /* GPU numbers >= this are counted, not drawn */
#define SUM_HTML_MAX_PHASES 4096 /* phases beyond this are counted, not drawn */
#define SUM_HTML_MAX_EVENTS 4096 /* events beyond this are counted, not drawn */
#define SUM_HTML_GAP_FACTOR 3.0  /* a step longer than this many sample intervals is a gap */

struct sum_html_opts {
    /* Width of each chart in CSS pixels, axes included (SUM_HTML_WIDTH_MIN..MAX; 0: default).
     * The plot area is width - 118 px, one bucket per pixel column, so this also sets the
     * resolution (charts still scale with the window). The sweep's sparklines ignore it. */
    int width;
    /* How to read the CSVs when a directory's run.jsonl does not say: a run's own start event
     * (smi_tz, gpu_query_fields, or the last gpu_fields_fallback) wins, as in the summary. A
     * named zone (SUM_TZ_NAMED) needs TZ set by the caller first (readers.h). Borrowed. */
    struct sum_read_opts read;
    /* Page title; NULL: the directory's name (one run) or "Sweep of N runs". Borrowed. */
    const char *title;
};

/* Defaults: width SUM_HTML_WIDTH_DEFAULT, read options zeroed (UTC, fields from the files). */
void sum_html_opts_init(struct sum_html_opts *opts);

/* One run: write a self-contained HTML page for the run directory dir to out.
 * - summary: the json-c object that `summarize --format json DIR` prints (borrowed; may be NULL:
 *   the summary tables are left out, the charts and the reading notes remain). Keys that are
 *   missing or of another type are left out of the tables, never an error. Not changed, except
 *   that json-c caches its text in it (json_object_to_json_string): do not use the same object
 *   from another thread during the call.
 * - opts: may be NULL (defaults).
 * - err/errlen: a caller buffer (may be NULL/0), set to "" on success, or to a warning when a
 *   file of the run could not be read or memory ran out for some series (left out, and the page
 *   says so; still returns 0), or to the reason of a failure.
 * Returns 0, or -errno: -EINVAL (out or dir NULL, bad width), -ENOENT/-ENOTDIR/-EACCES (dir is
 * not a readable directory), -ENOMEM, -EIO or the errno of a failed write to out (the page is
 * then incomplete). Nothing is printed; out is not closed. */
int sum_html_run(FILE *out, const char *dir, struct json_object *summary,
                 const struct sum_html_opts *opts, char *err, size_t errlen);

/* A sweep: one page with one row per run (its key figures and a GPU utilization sparkline),
 * sortable by clicking a column header (a few lines of inline script; a URL ending in #sort=K
 * or #sort=-K sorts by column K on load). n runs:
 * - dirs[i]: run directory (borrowed, not NULL);
 * - summaries: NULL, or summaries[i] the run's summary object or NULL (then only what the
 *   files give directly: start, duration, GPUs, energy, the sparkline);
 * - report_names: NULL, or report_names[i] the path of the run's own report relative to the
 *   page, or NULL for no link.
 * A directory that cannot be read gets a row that says so. err/errlen as for sum_html_run.
 * Returns 0, or -EINVAL (out, dirs or a dirs[i] NULL, n == 0, bad width), or the errno of a
 * failed write to out. */
int sum_html_sweep(FILE *out, const char *const *dirs, struct json_object *const *summaries,
                   const char *const *report_names, size_t n, const struct sum_html_opts *opts,
                   char *err, size_t errlen);

/* What `summarize --html FILE DIR...` does: one DIR (or n == 1 with dirs[0] NULL is refused) gives
 * a run page, several a sweep page whose rows link to each DIR/report.html that exists (as a
 * path relative to FILE's directory). summaries[i] is the JSON text `summarize DIR` prints, or
 * NULL. The page is rendered in memory and written atomically (hw_write_atomic). Returns 0 or
 * -errno; err as above (a warning with rc 0 is possible). */
int sum_html_write_file(const char *path, const char *const *dirs,
                        const char *const *summaries, size_t n,
                        const struct sum_html_opts *opts, char *err, size_t errlen);

#endif
