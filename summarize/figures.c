/* The figures a summary's outputs share (figures.h), each computed in one place: the verdicts,
 * the JSON (report_json.c), the text (report_text.c), the rows (report_rows.c) and the pages
 * read them here. */
#include "figures.h"

#include <json-c/json.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwrun/array.h"
#include "hwrun/jsonw.h"
#include "hwrun/timeutil.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"

/* A computed double as every output prints it (hw_num_sig12: 12 significant digits); the
 * HTML report formats its figures from this value. */
double sum_fig_num(double v)
{
    return hw_num_sig12(v);
}

void sum_fig_json_time(struct hw_json *w, const char *key, double t)
{
    if (!isfinite(t)) {
        hw_json_null(w, key);
        return;
    }
    char iso[HW_ISO_LEN];
    /* to the nearest millisecond: epoch seconds carry ~2e-7 s of binary noise */
    double ms = floor(t * 1000 + 0.5);
    double sec = floor(ms / 1000);
    /* beyond the years 0..9999 there is no ISO date to print (a phase of 1e12 s ends there) */
    struct timespec ts = {fabs(sec) < 1e15 ? (time_t)sec : 0, (long)(ms - sec * 1000) * 1000000L};
    if (fabs(sec) < 1e15 && hw_iso_utc(iso, &ts) > 0)
        hw_json_str(w, key, iso);
    else
        hw_json_null(w, key);
}

double sum_fig_max(const struct sum_stat *s)
{
    return s->n ? s->max : NAN;
}

double sum_fig_shared_once_peak(const struct sum_run *run, int whose)
{
    static const int col[SUM_GPMEM_COUNT] = {[SUM_GPMEM_TREE] = HW_PROC_COL_SHARED_ONCE,
                                             [SUM_GPMEM_MAIN] = HW_PROC_COL_MAIN_SHARED_ONCE,
                                             [SUM_GPMEM_DESC] = HW_PROC_COL_DESC_SHARED_ONCE};
    if (whose < 0 || whose >= SUM_GPMEM_COUNT ||
        (whose == SUM_GPMEM_DESC && run->info.descendants == 0))
        return NAN;
    return sum_fig_max(&run->proc[col[whose]]);
}

double sum_fig_total_once_peak(const struct sum_run *run, int whose)
{
    return whose < 0 || whose >= SUM_GPMEM_COUNT ? NAN : sum_fig_max(&run->gt_total[whose]);
}

const struct sum_stat *sum_fig_mem_util(const struct sum_run *run, const char **source)
{
    if (run->dmon_mem_all.n) {
        *source = "hw_dmon.csv mem";
        return &run->dmon_mem_all;
    }
    if (run->all[HW_GM_MEM_UTIL].n) {
        *source = "hw_metrics.csv utilization.memory";
        return &run->all[HW_GM_MEM_UTIL];
    }
    *source = NULL;
    return &run->all[HW_GM_MEM_UTIL];
}

double sum_fig_clock_mean(const struct sum_run *run)
{
    if (run->all[HW_GM_SM_CLOCK].n)
        return sum_stat_mean(&run->all[HW_GM_SM_CLOCK]);
    return sum_stat_mean(&run->all[HW_GM_GR_CLOCK]);
}

const char *sum_fig_tz_source(enum sum_tz_source s)
{
    switch (s) {
    case SUM_TZ_FROM_START_EVENT: return "start_event";
    case SUM_TZ_FROM_OPTION: return "option";
    case SUM_TZ_DEFAULT: return "default";
    }
    return "default";
}

/* Durations come from differences of epoch seconds (ulp ~2e-7): show them to the microsecond. */
double sum_fig_round_us(double x)
{
    return isfinite(x) ? round(x * 1e6) / 1e6 : x;
}

double sum_fig_cores_busy(const struct sum_run *run, double pct)
{
    return pct / 100.0 * run->info.cpus;
}

void sum_fig_json_count(struct hw_json *w, const char *key, double v)
{
    if (isfinite(v) && v >= 0)
        hw_json_u64(w, key, (uint64_t)v);
    else
        hw_json_null(w, key);
}

struct sum_together_figs sum_fig_together(const struct sum_run *run)
{
    struct sum_together_figs f;
    sum_together_figs(&run->together, &f);
    return f;
}

/* the start event named this GPU (its model and vendor) */
bool sum_fig_gpu_known(const struct sum_run *run, int index)
{
    return index >= 0 && index < RD_MAX_GPUS && run->info.gpu_name[index][0];
}

const char *sum_fig_gpu_tool(const struct sum_run *run)
{
    if (run->info.gpu_source[0]) /* what hwmon said it ran */
        return run->info.gpu_source;
    /* an older log: its GPUs' vendors (AMD's came with gpu_source; an entry without a vendor
     * is nvidia-smi's) */
    bool any = false;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        if (!run->info.gpu_vendor[g][0])
            continue;
        if (strcmp(run->info.gpu_vendor[g], "amd") != 0)
            return "nvidia-smi";
        any = true;
    }
    return any ? "amdgpu" : "nvidia-smi";
}

bool sum_fig_smi_times(const struct sum_run *run)
{
    if (!sum_run_gpu_count(run) && !run->q[HW_FILE_DMON].parsed)
        return false; /* no GPU rows: no zone to tell */
    return !strcmp(sum_fig_gpu_tool(run), "nvidia-smi");
}

double sum_fig_growth(const struct sum_stat *s)
{
    return s->n ? s->last - s->first : NAN;
}


uint64_t sum_fig_lines_skipped(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        n += rd_quality_skipped_total(&run->q[k]);
    return n;
}

uint64_t sum_fig_partial_lines(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        n += run->q[k].partial_last;
    return n;
}

uint64_t sum_fig_placeholders(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        n += rd_quality_placeholders_total(&run->q[k]);
    return n;
}

/* every phase entry of the run: in full, in brief, and counted only */
uint64_t sum_fig_phases_total(const struct sum_run *run)
{
    return run->phases_total;
}

uint64_t sum_fig_events_total(const struct sum_run *run)
{
    uint64_t n = run->etype_other;
    for (size_t i = 0; i < run->netype; i++)
        n += run->etype[i].n;
    return n;
}

double sum_fig_mean(const struct sum_stat *s) { return sum_stat_mean(s); }

/* A parameter's value as JSON text (strings quoted), or its bare text for a CSV cell. */
const char *sum_fig_param_text(const struct sum_param *p, bool json)
{
    if (!p->v)
        return json ? "null" : "";
    if (!json && json_object_is_type(p->v, json_type_string))
        return json_object_get_string(p->v);
    return json_object_to_json_string_ext(p->v, JSON_C_TO_STRING_PLAIN |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* How long the run had been in its open phase when it ended; NAN without one. */
double sum_fig_open_phase_sec(const struct sum_outcome *o)
{
    return o->open_phase[0] ? sum_fig_round_us(o->open_phase_t1 - o->open_phase_t0) : NAN;
}

/* The tree's CPU as a share of the job's expected cores (sum_run_expected_cores). */
double sum_fig_co2e_g(const struct sum_run *run, double wh)
{
    double g = run->cfg ? run->cfg->carbon_g_per_kwh : 0;
    return g > 0 ? wh / 1000 * g : NAN;
}

double sum_fig_energy_cost(const struct sum_run *run, double wh)
{
    double p = run->cfg ? run->cfg->price_per_kwh : 0;
    return p > 0 ? wh / 1000 * p : NAN;
}

double sum_fig_cpu_of_cores(const struct sum_run *run, double pct_one_core)
{
    double n = sum_run_expected_cores(run, NULL);
    return isfinite(n) && n > 0 ? pct_one_core / n : NAN;
}

/* Text from the data (phase and event names, uuids) without control characters, so a hostile
 * run.jsonl cannot move the terminal's cursor: the one rule (hwrun/utf8.h). */
const char *sum_fig_printable(const char *s, char *buf, size_t cap)
{
    return hw_term_str(s, buf, cap);
}
