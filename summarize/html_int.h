/* Inside the HTML report (html.h): what its parts share, in layers, none calling up:
 * html_fmt.c (writing, escaping, numbers, the page's head and CSS, the atomic write, run facts),
 * html_phases.c (phases sorted, their lanes and colours), then html_svg.c (the SVG charts from
 * the run's timeline) and html_tables.c (the tables and data-quality notes from struct sum_run),
 * then html_page.c (a run's page, the sweep page) and html_job.c (a job's page). */
#ifndef SUM_HTML_INT_H
#define SUM_HTML_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "html.h"
#include "summary.h"
#include "timeline.h"
#include "units.h"

/* Chart geometry in px. The left and right margins hold the y axes (the right one the energy
 * axis of the power chart); every chart keeps both so that the time axes line up. */
#define ML 60
#define MR 58
#define MT 8
#define PLOT_H 116
#define MB 30
#define CHART_H (MT + PLOT_H + MB)
#define SPARK_COLS SUM_HTML_SPARK_COLS
#define SPARK_H 26
#define NAME_MAX_BYTES 200 /* phase names are cut (at a character) beyond this when drawn */
#define NPHASE_COLORS 8
#define NGPU_COLORS 10
#define HT_MAX_LANES 3 /* rows of overlapping phases in the phase strip */
#define HT_MAX_NAME_LANES 8 /* a phase per step: the strip's lanes, one per name */

/* A phase as drawn: the summary's phase (index into run->phase), its lane and colour. */
struct ht_phase {
    size_t i;
    int lane, color;
};

/* One run's page being written. */
struct ht_page {
    const struct sum_run *run;
    const struct sum_timeline *tl; /* NULL: no charts */
    int ncols;                     /* pixel columns of the plots */
    double t0, t1, per_col;        /* the time axis, epoch seconds; zero at t0 */
    bool no_data;                  /* nothing with a time */
    struct ht_phase *ph;           /* the phases with a time, sorted by start */
    size_t nph;
    const char *color_name[NPHASE_COLORS]; /* phase names in order of first start (borrowed) */
    size_t ncolors;
    const struct sum_units *u; /* --units of the figures people read (NULL: defaults) */
    struct sum_tl_col *px; /* scratch: one series in pixel columns */
    bool oom;
};

/* The summary's k-th phase as drawn. */
static inline const struct sum_phase_acc *ht_phase_of(const struct ht_page *P, size_t k)
{
    return &P->run->phase[P->ph[k].i];
}

/* Notes about reading the run (files unreadable, lines skipped, gaps), for the page. */
struct ht_notes {
    char text[40][200];
    bool minor[40]; /* a note (not measured cells, gaps) rather than a warning */
    size_t n;
};

/* html_fmt.c: writing and numbers; every other part stands on it */
void ht_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ht_page_head(FILE *f, const char *title, bool script); /* <!DOCTYPE> to </head> */
/* The page's last step: rc, or the error of a failed write to out (said in err). */
int ht_finish(FILE *out, int rc, char *err, size_t errlen);
/* Draw a page in memory, then write it to path (hw_write_output: a regular file replaced
 * atomically, a device or FIFO written into); a failed write is said in err. */
typedef int ht_draw_fn(FILE *f, const void *ctx, char *err, size_t errlen);
int ht_write_page_file(const char *path, ht_draw_fn *draw, const void *ctx, char *err,
                       size_t errlen);
void ht_esc_n(FILE *f, const char *s, size_t n); /* HTML-escaped, bad UTF-8 as U+FFFD */
void ht_esc(FILE *f, const char *s);             /* accepts NULL */
/* a relative link target, percent-encoded; a directory's last name */
void ht_put_href(FILE *f, const char *s);
const char *ht_base_name(const char *dir, char *buf, size_t cap);
size_t ht_prefix_chars(const char *s, size_t max_chars, size_t *nchars);
size_t ht_count_chars(const char *s);
const char *ht_fmt_num(char *buf, size_t cap, double v); /* for people: 3-4 digits */
const char *ht_fmt_dur(char *buf, size_t cap, double s);
const char *ht_fmt_utc(char *buf, size_t cap, double t);
/* A figure of dimension d given in the base unit (MiB, s, Wh), for people in u's unit
 * (units.h's sum_units_fmt: "1.5 GiB"); "—" when not measured. */
const char *ht_fmt_dim(char *buf, size_t cap, double base, enum sum_dim d,
                       const struct sum_units *u);
/* The same number without its unit (a column whose header names it). */
const char *ht_fmt_dim_num(char *buf, size_t cap, double base, enum sum_dim d,
                           const struct sum_units *u);
/* A memory axis for values in MiB up to vmax: its unit's name and the divisor from MiB (--units
 * mem when given, else GiB from 2 GiB up). */
const char *ht_mem_axis(const struct sum_units *u, double vmax, double *scale);
double ht_nice_step(double x);
int ht_step_decimals(double step);
void ht_note(struct ht_notes *N, bool minor, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* html_phases.c */
/* How a phase ended, as the strip draws it apart (html_phases.c's table: class, words). */
enum ht_ph_end { HT_PH_OK, HT_PH_FAILED, HT_PH_KILLED, HT_PH_COUNT };
extern const char *const ht_ph_end_class[HT_PH_COUNT];
extern const char *const ht_ph_end_words[HT_PH_COUNT];
int ht_prepare_phases(struct ht_page *P); /* sorts, colours; returns the strip's lanes */
int ht_phase_color(const struct ht_page *P, const char *name);

/* html_svg.c */
void ht_draw_strip(FILE *f, const struct ht_page *P, int lanes);
void ht_draw_charts(FILE *f, struct ht_page *P);
void ht_sparkline(FILE *f, const struct sum_run *run);

/* html_fmt.c: run facts every part shows alike */
/* The interval the gap rule used for GPU g's rows (its energy interval), else for cpu rows. */
double ht_interval(const struct sum_run *run);
/* Gaps the summary counted: every GPU's energy gaps. */
unsigned long long ht_gpu_gaps(const struct sum_run *run);

/* html_tables.c */
void ht_tables(FILE *f, const struct ht_page *P);
/* The Per GPU table, the page's width above the charts (a column per figure: too wide for the
 * side column). */
void ht_gpu_table(FILE *f, const struct ht_page *P);
void ht_quality_notes(const struct sum_run *run, struct ht_notes *N);
size_t ht_count_warnings(const struct sum_run *run);

#endif
