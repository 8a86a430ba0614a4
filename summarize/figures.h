/* The figures every output of a summary prints (figures.c), each computed once from the run
 * (summary.h): the JSON, the text, the rows, the verdicts and the HTML report's tables show the
 * same value, and no output recomputes one. Below the verdicts and the outputs, above the run. */
#ifndef SUM_FIGURES_H
#define SUM_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "summary.h"

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

#endif
