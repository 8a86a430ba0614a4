/* Printing a summary: summary.json (pretty JSON), a text report, and one flat row per run
 * (CSV or JSON Lines) for sweep tables. Everything is appended to a struct hw_buf. */
#ifndef SUM_REPORT_H
#define SUM_REPORT_H

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "figures.h"
#include "row.h"
#include "summary.h"
#include "units.h"
#include "verdicts.h"

/* The full summary (schema in summarize.1), pretty-printed, ending in '\n'. With out->spill
 * set, it streams: every SUM_SPILL_BYTES, after a whole phase, what is held goes out. */
#define SUM_SPILL_BYTES (1u << 20)
void sum_report_json(const struct sum_run *run, struct hw_buf *out);
/* A readable report for a terminal; _u in --units u (NULL: the defaults). */
/* The text report for a person at a terminal: the answer first (status and why, duration and
 * energy, GPUs, the job's CPU and RSS, I/O, the slowest phases, warnings: within its first
 * SUM_TEXT_HEADLINE lines), then "details:"; no line wider than SUM_TEXT_COLS columns (a line
 * that would be is broken after a comma or semicolon, the rest indented). */
#define SUM_TEXT_COLS 100
#define SUM_TEXT_HEADLINE 24
void sum_report_text(const struct sum_run *run, struct hw_buf *out);
void sum_report_text_u(const struct sum_run *run, const struct sum_units *u, struct hw_buf *out);
/* The CSV header line of sum_report_csv_row. */
void sum_report_csv_header(struct hw_buf *out);
/* One CSV row (RFC 4180 quoting; empty cell = not measured). */
void sum_report_csv_row(const struct sum_run *run, struct hw_buf *out);
/* One JSON object per line with the same keys as the CSV columns (null = not measured), then
 * the run's parameters as "param.KEY" keys, then its phase.NAME.* columns. */
void sum_report_jsonl_row(const struct sum_run *run, struct hw_buf *out);
/* The same in --units u (NULL: the defaults): columns whose dimension u names carry its unit
 * (energy_kwh, peak_vram_gib, duration_min), see sum_units_column. */
void sum_report_csv_header_u(const struct sum_units *u, struct hw_buf *out);
void sum_report_csv_row_u(const struct sum_run *run, const struct sum_units *u,
                          struct hw_buf *out);
void sum_report_jsonl_row_u(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *out);
/* The run's per-phase-name columns (phase.NAME.count, .total_sec, .mean_sec, .energy_wh,
 * .gpu_util_mean_pct, .peak_vram_mib; in u), which the caller lines up by name across runs as
 * the param.KEY ones: each name (CSV-quoted as needed) and cell appended NUL-terminated to
 * names and cells; returns how many. */
size_t sum_report_phase_csv(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *names, struct hw_buf *cells);
/* The sweep row's columns, as the table that computes them says them: a TSV document, one line
 * per column (column, type, unit, description), names and units in u (`summarize --columns`). */
void sum_report_columns(const struct sum_units *u, struct hw_buf *out);
/* Every number of a run's sweep row (row) and of its phase.NAME.* columns (phases), in order,
 * as fn(ctx, column name, value, integer, dimension); NAN when unmeasured. The name is the row's
 * in u, the value in its dimension's base unit (the row prints sum_dim_value(u, dim, v), a
 * person reads sum_dim_fmt(v, dim, u)). The figures --compare lines up. */
typedef void sum_figure_fn(void *ctx, const char *name, double v, bool integer, enum sum_dim dim);
void sum_report_figures(const struct sum_run *run, const struct sum_units *u, bool row,
                        bool phases, sum_figure_fn *fn, void *ctx);
/* A number as a CSV cell (empty when not finite), the one formatter of rows. */
void sum_report_cell(struct hw_buf *out, double v, bool integer);
/* Where a number of the sweep row is shown besides what shows every one (the rows, --columns,
 * --compare): one flag each, set on the figure's own entry in report_rows.c's table of row columns,
 * with the sweep page's column head and its label on the run page and in the text headline.
 * SUM_SHOW_SWEEP: a column of the sweep page; SUM_SHOW_PAGE: a line of the run page's Run
 * table; SUM_SHOW_HEAD_GPUS, SUM_SHOW_HEAD_JOB: the text headline's GPUs and job lines. json:
 * the figure's place among summary.json's headline members (1, 2, ...; 0: not there). */
enum { SUM_SHOW_SWEEP = 1, SUM_SHOW_HEAD_GPUS = 2, SUM_SHOW_HEAD_JOB = 4, SUM_SHOW_PAGE = 8 };
struct sum_show {
    unsigned where;
    const char *head;  /* the sweep page's column head ("Peak VRAM") */
    const char *label; /* the run page's and the headline's ("peak VRAM") */
    unsigned json;
};
/* How a job of many ranks (jobsum.h) makes one figure of its directories' figures, each
 * directory a run of its own: every entry of the run's row says one, by what the figure is.
 * SUM: a counter of the rank's own (its processes, its log), summed over every directory of
 * every attempt; SUM_HOSTS: a counter of the host's (its disks, its network), which every
 * rank of a host counts alike over its own run: summed over the hosts, each host of each
 * attempt once, by the figure of its rank whose run spans the longest among those that
 * measured it (the ranks of a host were launched together, so the longest run's window holds
 * the others'; ranks that say no host are hosts of their own, as the job's hosts count them);
 * MAX: a peak, the highest of any directory; MIN: a least value (free space, headroom), the
 * lowest of any directory; MEAN_BY_TIME: a mean, the directories' means weighted by their
 * durations (by none where no directory's duration is known); MEAN_HOSTS: a mean of the
 * host's (its CPUs' use), the hosts' means, each host of each attempt by its rank as for
 * SUM_HOSTS, weighted by that rank's duration (MEAN_BY_TIME would weigh a host by its ranks);
 * OWN: the job's row has a figure of that key by rules of its own (jobsum.h: GPUs counted
 * once, the peak of the summed series, ...); NONE: the run's alone (an id, a text, a ratio of
 * the run, a size of its host or its container). A job's row and page show every figure with
 * a rule other than NONE and OWN (sum_job_rules[r].derived), so a run figure given one
 * reaches them with nothing else. UNSET is no rule: an entry must say one. */
enum sum_job_rule {
    SUM_JOB_UNSET,
    SUM_JOB_NONE,
    SUM_JOB_OWN,
    SUM_JOB_SUM,
    SUM_JOB_MAX,
    SUM_JOB_MEAN_BY_TIME,
    SUM_JOB_SUM_HOSTS,
    SUM_JOB_MIN,
    SUM_JOB_MEAN_HOSTS,
    SUM_JOB_RULE_COUNT
};
/* Each rule's name (`summarize --columns`' job_rule field), its words for people (the job
 * page's "of the ranks'"; NULL where the job takes no figure of the ranks'), and whether the
 * job derives a figure of the ranks' by it. */
struct sum_job_rule_def {
    const char *name, *words;
    bool derived;
};
extern const struct sum_job_rule_def sum_job_rules[SUM_JOB_RULE_COUNT];
/* A column of the sweep row as its table says it: its name, type, dimension (the unit every
 * output gives it: units.h; SUM_DIM_NONE for a text, a count or an id), how a job makes it of
 * its directories', what it means, and where else it is shown. */
struct sum_row_def {
    const char *key;
    enum sum_col_type type;
    enum sum_dim dim;
    enum sum_job_rule job;
    const char *what;
    struct sum_show show;
};
/* The most columns the run's row may have (a job's row takes some of them: jobreport.c). */
#define SUM_ROW_COLS_MAX 256
/* The row's columns, in order (built once; *n is their count); the per-phase-name columns
 * (phase.NAME.KEY: the key, its dimension, what it means). */
const struct sum_row_def *sum_report_row_defs(size_t *n);
const struct sum_row_def *sum_report_phase_defs(size_t *n);
/* The row's figures shown in where, in the row's order: fn(ctx, the column, value), value NAN
 * when not measured. run NULL: every such figure with NAN (a table's header). */
typedef void sum_show_fn(void *ctx, const struct sum_row_def *col, double v);
void sum_report_shown(const struct sum_run *run, unsigned where, sum_show_fn *fn, void *ctx);
/* Every number of the run's row in the table's order (sum_report_row_defs), NAN for a text or
 * unmeasured: v has room for each column. What a job keeps of each of its directories. */
void sum_report_row_values(const struct sum_run *run, double *v);

/* The CSV column name of a parameter ("param.KEY"), and its value as one CSV cell (quoted as
 * needed; empty for null): the sweep table's extra columns, which the caller lines up by name
 * across runs since runs have different parameters. */
void sum_report_param_name(const struct sum_param *p, struct hw_buf *out);
void sum_report_param_csv_cell(const struct sum_param *p, struct hw_buf *out);
/* Its value as JSON text (strings quoted, "null" for null): the JSON Lines rows' cell. */
const char *sum_report_param_json(const struct sum_param *p);

/* summary.json's headline members, in place order: the sweep row's columns that have a place
 * (sum_show.json), and these members that are not row columns (edge rows, the framework's
 * memory, the seconds the energy covers) at theirs (report_json.c). */
struct sum_json_head {
    unsigned place;
    const char *key;
    enum { SUM_JSON_HEAD_EDGES, SUM_JSON_HEAD_FWMEM, SUM_JSON_HEAD_COVERED } kind;
};
extern const struct sum_json_head sum_json_extra[];
extern const size_t sum_json_nextra;
/* The row's columns whose places lie in [from, to) as members of w's object, in place order. */
void sum_report_row_json(struct hw_json *w, const struct sum_run *run, unsigned from,
                         unsigned to);

#endif
