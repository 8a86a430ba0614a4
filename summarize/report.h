/* Printing a summary: summary.json (pretty JSON), a text report, and one flat row per run
 * (CSV or JSON Lines) for sweep tables. Everything is appended to a struct hw_buf. */
#ifndef SUM_REPORT_H
#define SUM_REPORT_H

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "row.h"
#include "summary.h"
#include "units.h"

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
 * as fn(ctx, column name, value, integer); NAN when unmeasured. The figures --compare lines up. */
typedef void sum_figure_fn(void *ctx, const char *name, double v, bool integer);
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
/* A column of the sweep row as its table says it: its name, type, dimension (the unit every
 * output gives it: units.h; SUM_DIM_NONE for a text, a count or an id), what it means, and
 * where else it is shown. */
struct sum_row_def {
    const char *key;
    enum sum_col_type type;
    enum sum_dim dim;
    const char *what;
    struct sum_show show;
};
/* The row's columns, in order (built once; *n is their count); the per-phase-name columns
 * (phase.NAME.KEY: the key, its dimension, what it means). */
const struct sum_row_def *sum_report_row_defs(size_t *n);
const struct sum_row_def *sum_report_phase_defs(size_t *n);
/* The row's figures shown in where, in the row's order: fn(ctx, the column, value), value NAN
 * when not measured. run NULL: every such figure with NAN (a table's header). */
typedef void sum_show_fn(void *ctx, const struct sum_row_def *col, double v);
void sum_report_shown(const struct sum_run *run, unsigned where, sum_show_fn *fn, void *ctx);

/* The CSV column name of a parameter ("param.KEY"), and its value as one CSV cell (quoted as
 * needed; empty for null): the sweep table's extra columns, which the caller lines up by name
 * across runs since runs have different parameters. */
void sum_report_param_name(const struct sum_param *p, struct hw_buf *out);
void sum_report_param_csv_cell(const struct sum_param *p, struct hw_buf *out);
/* Its value as JSON text (strings quoted, "null" for null): the JSON Lines rows' cell. */
const char *sum_report_param_json(const struct sum_param *p);

/* The figures the outputs print (figures.c), each computed once: the JSON, the text, the rows
 * and the HTML report's tables show the same value, and no output recomputes one. */
double sum_fig_num(double v); /* v as printed: rounded to 12 significant digits */
double sum_fig_mean(const struct sum_stat *s); /* NAN when empty */
double sum_fig_max(const struct sum_stat *s);  /* NAN when empty */
double sum_fig_growth(const struct sum_stat *s); /* last - first */
/* gpu_tracker's RSS parts where hwmon --shared-once read them (whose: enum sum_gpmem): the peak
 * of the shared pages counted once per mapped path, and of private + that at one row; NAN
 * unmeasured (without --shared-once; the descendants' under --no-children). */
double sum_fig_shared_once_peak(const struct sum_run *run, int whose);
double sum_fig_total_once_peak(const struct sum_run *run, int whose);
/* mem_util_mean_pct's series (dmon's "mem" when recorded) and its source's name (or NULL). */
const struct sum_stat *sum_fig_mem_util(const struct sum_run *run, const char **source);
double sum_fig_clock_mean(const struct sum_run *run); /* mean_gpu_clock_mhz */
double sum_fig_round_us(double x);                    /* durations, to the microsecond */
uint64_t sum_fig_events_total(const struct sum_run *run);
const char *sum_fig_tz_source(enum sum_tz_source s); /* time_zone.source */
/* The tool whose rows hw_metrics.csv holds, as the reports name it: the start event's
 * gpu_source ("nvidia-smi", "amdgpu", ...); in a log from before it, "amdgpu" when every GPU the
 * start event named is AMD's (hwmon read the kernel's files and wrote the rows itself, in UTC),
 * else "nvidia-smi". */
const char *sum_fig_gpu_tool(const struct sum_run *run);
/* Whether there are GPU rows dated by nvidia-smi's clock, whose zone the reports say. */
bool sum_fig_smi_times(const struct sum_run *run);
/* A busy share (percent of all the machine's CPUs) as cores; NAN when its CPUs are unknown. */
double sum_fig_cores_busy(const struct sum_run *run, double pct);
/* A count as a JSON integer, null when not known (NAN or negative). */
struct hw_json;
void sum_fig_json_count(struct hw_json *w, const char *key, double v);
/* s for a terminal: control characters as '?', cut to fit cap. Returns buf. */
const char *sum_fig_printable(const char *s, char *buf, size_t cap);
/* An epoch time as an ISO 8601 UTC string to the millisecond, null when not known. */
void sum_fig_json_time(struct hw_json *w, const char *key, double t);
/* Every GPU at one instant (together.h's figures of the run). */
struct sum_together_figs sum_fig_together(const struct sum_run *run);
/* The start event named GPU index (its model and vendor). */
bool sum_fig_gpu_known(const struct sum_run *run, int index);
/* Over every file of the run: lines skipped, partial last lines, placeholder cells. */
uint64_t sum_fig_lines_skipped(const struct sum_run *run);
uint64_t sum_fig_partial_lines(const struct sum_run *run);
uint64_t sum_fig_placeholders(const struct sum_run *run);
/* Every phase entry of the run: in full, in brief, and counted only. */
uint64_t sum_fig_phases_total(const struct sum_run *run);
/* A parameter's value as JSON text (strings quoted), or its bare text for a CSV cell. */
const char *sum_fig_param_text(const struct sum_param *p, bool json);
/* How long the phase open at the run's end had run (NAN: none open). */
double sum_fig_open_phase_sec(const struct sum_outcome *o);
/* Energy of wh Wh as emissions (g CO2e, --carbon-intensity) and as money (--price); NAN when
 * the option was not given or wh not measured: never a network lookup, never a default. */
double sum_fig_co2e_g(const struct sum_run *run, double wh);
double sum_fig_energy_cost(const struct sum_run *run, double wh);
/* The tree's CPU (% of one core) as a share of the job's expected cores (NAN: not known). */
double sum_fig_cpu_of_cores(const struct sum_run *run, double pct_one_core);
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
