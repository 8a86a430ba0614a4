/* Output formats of a summary: see report.h; the JSON schema is documented in summarize.1. */
#include "report.h"
#include "row.h"

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
#include "units.h"

/* ---- summary.json: values in the one JSON writer (hwrun/jsonw.h) --------------------- */

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

static void json_stat(struct hw_json *w, const char *key, const struct sum_stat *s)
{
    if (!s->n) {
        hw_json_null(w, key);
        return;
    }
    hw_json_open(w, key, '{');
    hw_json_u64(w, "n", s->n);
    hw_json_num(w, "mean", sum_stat_mean(s));
    hw_json_num(w, "min", s->min);
    hw_json_num(w, "max", s->max);
    hw_json_num(w, "p50", sum_stat_quantile(s, 0.50));
    hw_json_num(w, "p95", sum_stat_quantile(s, 0.95));
    hw_json_num(w, "p99", sum_stat_quantile(s, 0.99));
    if (!sum_stat_exact(s))
        hw_json_bool(w, "percentiles_exact", false);
    hw_json_close(w);
}

/* ---- derived figures -------------------------------------------------------------------- */

static double max_or_nan(const struct sum_stat *s)
{
    return s->n ? s->max : NAN;
}

/* The disks, network and free space of a run or a phase (system.h), the same keys in both. */
static void json_system(struct hw_json *w, const struct sum_system *sys)
{
    hw_json_open(w, "system", '{');
    for (int i = 0; i < SUM_IO_COUNT; i++) {
        hw_json_num(w, sum_io_mib_keys[i], sum_system_mib(sys, i));
        hw_json_num(w, sum_io_peak_keys[i], sum_system_peak_mib_s(sys, i));
    }
    hw_json_num(w, "fs_free_min_mib", sys->fs_free_min_mib);
    hw_json_close(w);
}

/* The container's memory over a run or a phase: the peak, where it came from, the limit. */
static void json_container_mem(struct hw_json *w, const struct sum_system *sys)
{
    const char *src;
    hw_json_num(w, "mem_peak_mib", sum_system_mem_peak(sys, &src));
    hw_json_str(w, "mem_peak_source", src);
    hw_json_num(w, "mem_peak_kernel_mib", sys->mem_kernel_mib);
    hw_json_num(w, "mem_peak_sampled_mib", sys->mem_sampled_mib);
}

static const struct sum_stat *mem_util_stat(const struct sum_run *run, const char **source)
{
    if (run->dmon_mem_all.n) {
        *source = "hw_dmon.csv mem";
        return &run->dmon_mem_all;
    }
    if (run->all[RD_GM_MEM_UTIL].n) {
        *source = "hw_metrics.csv utilization.memory";
        return &run->all[RD_GM_MEM_UTIL];
    }
    *source = NULL;
    return &run->all[RD_GM_MEM_UTIL];
}

static double clock_mean(const struct sum_run *run)
{
    if (run->all[RD_GM_SM_CLOCK].n)
        return sum_stat_mean(&run->all[RD_GM_SM_CLOCK]);
    return sum_stat_mean(&run->all[RD_GM_GR_CLOCK]);
}

static const char *tz_source_name(enum sum_tz_source s)
{
    switch (s) {
    case SUM_TZ_FROM_START_EVENT: return "start_event";
    case SUM_TZ_FROM_OPTION: return "option";
    case SUM_TZ_DEFAULT: return "default";
    }
    return "default";
}

/* Durations come from differences of epoch seconds (ulp ~2e-7): show them to the microsecond. */
static double round_us(double x)
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

/* The machine, as hwmon's start event says (null where it did not): the counts gpu_tracker and
 * resource-tracker report next to their figures. */
static void json_machine(struct hw_json *w, const struct sum_run *run)
{
    hw_json_open(w, "machine", '{');
    if (run->info.host[0])
        hw_json_str(w, "host", run->info.host);
    else
        hw_json_null(w, "host");
    sum_fig_json_count(w, "cpus", run->info.cpus);
    sum_fig_json_count(w, "cpus_allowed", run->info.cpus_allowed);
    sum_fig_json_count(w, "gpus", run->info.gpus);
    hw_json_u64(w, "gpus_recorded", sum_run_gpu_count(run));
    hw_json_close(w);
}

/* Where the run ran, as the scheduler and launcher said (hw_ctx_defs): every key, null when not
 * said. */
static void json_context(struct hw_json *w, const struct sum_run *run)
{
    hw_json_open(w, "context", '{');
    for (int k = 0; k < HW_CTX_COUNT; k++) {
        if (run->info.ctx[k][0])
            hw_json_str(w, hw_ctx_defs[k].key, run->info.ctx[k]);
        else
            hw_json_null(w, hw_ctx_defs[k].key);
    }
    hw_json_close(w);
}

/* Which hwmon sampled the node's GPUs for this job (nodelock.h): null without a job lock. */
static void json_sampler(struct hw_json *w, const struct sum_run *run)
{
    const struct rd_run_info *i = &run->info;
    if (!i->sampler_role[0]) {
        hw_json_null(w, "gpu_sampler");
        return;
    }
    hw_json_open(w, "gpu_sampler", '{');
    hw_json_str(w, "role", i->sampler_role);
    if (i->sampler_pid > 0)
        hw_json_u64(w, "pid", (uint64_t)i->sampler_pid);
    else
        hw_json_null(w, "pid");
    hw_json_str(w, "dir", i->sampler_dir);
    hw_json_close(w);
}

/* The file systems the job could write, at its start and end (hwmon's events). */
static void json_filesystems(struct hw_json *w, const struct sum_run *run)
{
    hw_json_open(w, "filesystems", '[');
    for (int k = 0; k < run->info.nfs; k++) {
        const struct rd_fs *fs = &run->info.fs[k];
        hw_json_open(w, NULL, '{');
        hw_json_str(w, "mount", fs->mount);
        hw_json_str(w, "fstype", fs->type);
        hw_json_num(w, "total_mib", fs->total_mib);
        hw_json_num(w, "used_start_mib", fs->used_start_mib);
        hw_json_num(w, "used_end_mib", fs->used_end_mib);
        hw_json_num(w, "used_change_mib", fs->used_end_mib - fs->used_start_mib);
        hw_json_num(w, "free_start_mib", fs->free_start_mib);
        hw_json_num(w, "free_end_mib", fs->free_end_mib);
        hw_json_close(w);
    }
    hw_json_close(w);
}

/* Every GPU at one instant (together.h). */
static void json_together(struct hw_json *w, const struct sum_run *run)
{
    struct sum_together_figs f;
    sum_together_figs(&run->together, &f);
    hw_json_open(w, "gpus_together", '{');
    hw_json_u64(w, "instants", f.instants);
    hw_json_u64(w, "gpus", (uint64_t)f.gpus);
    hw_json_num(w, "mem_used_peak_mib", f.mem_used_peak_mib);
    hw_json_num(w, "mem_total_mib", f.mem_total_mib);
    hw_json_num(w, "util_sum_peak_pct", f.util_sum_peak_pct);
    hw_json_num(w, "util_sum_mean_pct", f.util_sum_mean_pct);
    hw_json_num(w, "util_avg_peak_pct", f.util_avg_peak_pct);
    hw_json_num(w, "util_avg_mean_pct", f.util_avg_mean_pct);
    sum_fig_json_count(w, "busy_gpus_max", f.busy_gpus_max);
    hw_json_num(w, "busy_gpus_mean", f.busy_gpus_mean);
    hw_json_close(w);
}

static struct sum_together_figs together(const struct sum_run *run)
{
    struct sum_together_figs f;
    sum_together_figs(&run->together, &f);
    return f;
}

/* the start event named this GPU (its model and vendor) */
static bool gpu_known(const struct sum_run *run, int index)
{
    return index >= 0 && index < RD_MAX_GPUS && run->info.gpu_name[index][0];
}

static double growth(const struct sum_stat *s)
{
    return s->n ? s->last - s->first : NAN;
}


static uint64_t total_skipped(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        n += rd_quality_skipped_total(&run->q[k]);
    return n;
}

static uint64_t total_partial(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        n += run->q[k].partial_last;
    return n;
}

static uint64_t total_placeholders(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        n += rd_quality_placeholders_total(&run->q[k]);
    return n;
}

/* every phase entry of the run: in full, in brief, and counted only */
static uint64_t phases_total(const struct sum_run *run)
{
    return run->nphase + run->nbrief + run->phases_dropped;
}

static uint64_t events_total(const struct sum_run *run)
{
    uint64_t n = run->etype_other;
    for (size_t i = 0; i < run->netype; i++)
        n += run->etype[i].n;
    return n;
}

/* The same figures for the HTML report's tables (report.h). */
double sum_fig_mean(const struct sum_stat *s) { return sum_stat_mean(s); }
double sum_fig_max(const struct sum_stat *s) { return max_or_nan(s); }
double sum_fig_growth(const struct sum_stat *s) { return growth(s); }
const struct sum_stat *sum_fig_mem_util(const struct sum_run *run, const char **source)
{
    return mem_util_stat(run, source);
}
double sum_fig_clock_mean(const struct sum_run *run) { return clock_mean(run); }
double sum_fig_round_us(double x) { return round_us(x); }
uint64_t sum_fig_events_total(const struct sum_run *run) { return events_total(run); }
const char *sum_fig_tz_source(enum sum_tz_source s) { return tz_source_name(s); }

/* ---- summary.json ----------------------------------------------------------------------- */

static void json_gpu_metrics(struct hw_json *w, const struct sum_stat *m)
{
    for (int k = 0; k < RD_GM_COUNT; k++)
        if (k != RD_GM_GR_CLOCK || m[k].n)
            json_stat(w, rd_gpu_metric_names[k], &m[k]);
}

/* "health_warnings": what every output warns of (sum_run_health_warnings); null without
 * hw_health.csv. */
static void json_health_warnings(struct hw_json *w, const struct sum_run *run)
{
    if (!run->q[HW_FILE_HEALTH].present && !run->nhealth_warn) { /* (the energy counter's) */
        hw_json_null(w, "health_warnings");
        return;
    }
    hw_json_open(w, "health_warnings", '[');
    for (int i = 0; i < run->nhealth_warn; i++)
        hw_json_str(w, NULL, run->health_warn[i]);
    hw_json_close(w);
}

/* "processes": the job's own processes' share of the GPU and the others' (hw_pmon.csv): means
 * and maxima over pmon's intervals; m (the run's GPU, or NULL for a phase) adds its counts. */
static void json_processes(struct hw_json *w, const struct sum_run *run,
                           const struct sum_pmon_acc *a, const struct sum_pmon_gpu *m)
{
    hw_json_open(w, "processes", '{');
    hw_json_str(w, "unattributed", sum_run_pmon_unattributed(run));
    hw_json_u64(w, "intervals", a->all_sm.n);
    hw_json_num(w, "own_sm_mean_pct", sum_fig_mean(&a->own_sm));
    hw_json_num(w, "own_sm_max_pct", sum_fig_max(&a->own_sm));
    hw_json_num(w, "others_sm_mean_pct", sum_fig_mean(&a->others_sm));
    hw_json_num(w, "others_sm_max_pct", sum_fig_max(&a->others_sm));
    hw_json_num(w, "own_mem_mean_pct", sum_fig_mean(&a->own_mem));
    hw_json_num(w, "others_mem_mean_pct", sum_fig_mean(&a->others_mem));
    hw_json_num(w, "all_sm_mean_pct", sum_fig_mean(&a->all_sm));
    if (m) {
        hw_json_u64(w, "own_lines", m->own_lines);
        hw_json_u64(w, "other_lines", m->other_lines);
    }
    hw_json_close(w);
}

/* "clocks": why the GPU ran slow in a window (clocks.h), only where hw_health.csv had rows. */
static void json_clocks(struct hw_json *w, const struct sum_clk_acc *a)
{
    if (!a)
        return;
    struct sum_clk_figs f;
    sum_clk_figs(a, &f);
    hw_json_open(w, "clocks", '{');
    hw_json_str(w, "source", f.source);
    hw_json_num(w, "covered_sec", round_us(f.covered_s));
    for (int k = 0; k < SUM_CLK_COUNT; k++)
        hw_json_num(w, sum_clk_keys[k], round_us(f.s[k]));
    hw_json_num(w, "power_capped_pct", f.power_pct);
    hw_json_num(w, "thermal_pct", f.thermal_pct);
    hw_json_num(w, "sm_clock_mean_mhz", f.sm_mean_mhz);
    hw_json_num(w, "sm_clock_max_mhz", f.sm_max_mhz);
    hw_json_num(w, "sm_clock_pct_of_max", f.sm_pct_of_max);
    hw_json_close(w);
}

/* "health": the GPU's limits, errors and link over the run (hw_health.csv). */
static void json_health(struct hw_json *w, const struct sum_clk_gpu *g)
{
    if (!g)
        return;
    hw_json_open(w, "health", '{');
    hw_json_num(w, "power_limit_w", g->last[HW_HEALTH_POWER_LIMIT]);
    hw_json_num(w, "enforced_power_limit_min_w", g->min[HW_HEALTH_POWER_ENFORCED]);
    hw_json_num(w, "tlimit_headroom_min_c", g->min[HW_HEALTH_TLIMIT]);
    hw_json_num(w, "pstate_max", g->max[HW_HEALTH_PSTATE]);
    hw_json_num(w, "ecc_corrected_new",
                g->last[HW_HEALTH_ECC_CORRECTED] - g->first[HW_HEALTH_ECC_CORRECTED]);
    hw_json_num(w, "ecc_uncorrected_new",
                g->last[HW_HEALTH_ECC_UNCORRECTED] - g->first[HW_HEALTH_ECC_UNCORRECTED]);
    static const struct {
        const char *key;
        int col;
    } flags[] = {{"retired_pages_pending", HW_HEALTH_RETIRED_PENDING},
                 {"remapped_rows_pending", HW_HEALTH_REMAP_PENDING},
                 {"remapped_rows_failure", HW_HEALTH_REMAP_FAILURE}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        double m = g->max[flags[i].col];
        if (isnan(m))
            hw_json_null(w, flags[i].key);
        else
            hw_json_bool(w, flags[i].key, m > 0);
    }
    hw_json_num(w, "pcie_gen_min", g->min[HW_HEALTH_PCIE_GEN]);
    hw_json_num(w, "pcie_gen_max", g->max[HW_HEALTH_PCIE_GEN_MAX]);
    hw_json_num(w, "pcie_width_min", g->min[HW_HEALTH_PCIE_WIDTH]);
    hw_json_num(w, "pcie_width_max", g->max[HW_HEALTH_PCIE_WIDTH_MAX]);
    hw_json_u64(w, "pcie_below_max_under_load_samples", g->link_below_loaded);
    hw_json_close(w);
}

/* "gpm": {"sm_active_pct": {...}, ...}: only for a GPU that hw_gpm.csv had rows for (a run
 * without GPM has no key); a column that stayed `-` is null. */
static void json_gpm(struct hw_json *w, const struct sum_gpu *gp, const struct sum_stat *s)
{
    if (!gp || !gp->in_gpm)
        return;
    hw_json_open(w, "gpm", '{');
    for (int k = 0; k < HW_GPM_NCOLS; k++)
        json_stat(w, sum_gpm_keys[k], &s[k]);
    hw_json_close(w);
}

static void json_quality(struct hw_json *w, const struct sum_run *run, int k)
{
    const struct rd_quality *q = &run->q[k];
    hw_json_open(w, hw_file_names[k], '{');
    hw_json_bool(w, "present", q->present);
    hw_json_str(w, "path", run->path[k]);
    if (run->read_error[k][0])
        hw_json_str(w, "read_error", run->read_error[k]);
    hw_json_u64(w, "bytes", q->bytes);
    hw_json_u64(w, "lines", q->lines);
    hw_json_u64(w, "parsed", q->parsed);
    hw_json_u64(w, "header_lines", q->headers);
    hw_json_u64(w, "blank_lines", q->blank);
    hw_json_open(w, "skipped", '{');
    for (int s = 0; s < RD_SKIP_COUNT; s++)
        if (q->skipped[s])
            hw_json_u64(w, rd_skip_names[s], q->skipped[s]);
    hw_json_close(w);
    hw_json_u64(w, "skipped_total", rd_quality_skipped_total(q));
    hw_json_open(w, "placeholders", '{');
    for (size_t i = 0; i < q->n_tokens; i++)
        hw_json_u64(w, q->placeholders[i].token[0] ? q->placeholders[i].token : "(empty)",
               q->placeholders[i].n);
    if (q->placeholders_other)
        hw_json_u64(w, "(other)", q->placeholders_other);
    hw_json_close(w);
    hw_json_u64(w, "bad_cells", q->bad_cells);
    /* the bad cells that were numbers no reading can be (a driver's 0xFFFFFFFF or -1) */
    hw_json_open(w, "out_of_range", '{');
    for (size_t i = 0; i < q->n_ranged; i++) {
        hw_json_open(w, q->out_of_range[i].column, '{');
        hw_json_u64(w, "n", q->out_of_range[i].n);
        hw_json_num(w, "first_value", q->out_of_range[i].value);
        hw_json_u64(w, "first_line", q->out_of_range[i].line);
        hw_json_close(w);
    }
    hw_json_close(w);
    hw_json_u64(w, "torn_lines", q->torn);
    if (k == HW_FILE_RUNLOG) /* a rotated log's earlier parts, read first */
        hw_json_u64(w, "parts", q->parts);
    hw_json_bool(w, "partial_last_line", q->partial_last);
    hw_json_u64(w, "partial_bytes", q->partial_bytes);
    const struct sum_stat *iv = &run->q_interval[k];
    if (k != HW_FILE_RUNLOG && k != HW_FILE_GPU_PROCS) {
        hw_json_open(w, "interval_sec", '{');
        hw_json_num(w, "median", sum_stat_quantile(iv, 0.5));
        hw_json_num(w, "p99", sum_stat_quantile(iv, 0.99));
        hw_json_num(w, "max", max_or_nan(iv));
        hw_json_close(w);
        hw_json_u64(w, "gaps", sum_run_file_gaps(run, (enum hw_file)k));
    }
    hw_json_close(w);
}

/* A parameter's value as JSON text (strings quoted), or its bare text for a CSV cell. */
static const char *param_text(const struct sum_param *p, bool json)
{
    if (!p->v)
        return json ? "null" : "";
    if (!json && json_object_is_type(p->v, json_type_string))
        return json_object_get_string(p->v);
    return json_object_to_json_string_ext(p->v, JSON_C_TO_STRING_PLAIN |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* What a phase entry (in full or in brief) says first: its name and when. */
static void json_phase_head(struct hw_json *w, const char *name, double t0, double t1,
                            uint64_t line)
{
    hw_json_str(w, "name", name);
    sum_fig_json_time(w, "start", t0);
    sum_fig_json_time(w, "end", t1);
    hw_json_num(w, "seconds", round_us(t1 - t0));
    hw_json_u64(w, "line", line);
}

/* How a phase ended (outcome.h): exit status and signal null when not said. */
static void json_phase_outcome(struct hw_json *w, int exit_status, int sig, bool failed,
                               bool open)
{
    if (exit_status >= 0)
        hw_json_u64(w, "exit_status", (uint64_t)exit_status);
    else
        hw_json_null(w, "exit_status");
    if (sig)
        hw_json_u64(w, "signal", (uint64_t)sig);
    else
        hw_json_null(w, "signal");
    hw_json_bool(w, "failed", failed);
    hw_json_bool(w, "open", open);
}

/* The framework's own memory of the run (p NULL) or a phase, next to nvidia-smi's: null when
 * the job logged none (sum_fwmem_figures). */
static void json_fwmem(struct hw_json *w, const struct sum_run *run, const struct sum_phase_acc *p)
{
    struct sum_fwmem_fig x;
    if (!sum_fwmem_figures(run, p, &x)) {
        hw_json_null(w, "framework_memory");
        return;
    }
    hw_json_open(w, "framework_memory", '{');
    hw_json_str(w, "framework", p ? p->fw.framework : run->fw.framework);
    hw_json_num(w, "peak_mib", x.peak_mib);
    hw_json_num(w, "pool_mib", x.pool_mib);
    hw_json_num(w, "vram_peak_mib", x.vram_peak_mib);
    hw_json_num(w, "vram_total_mib", x.vram_total_mib);
    hw_json_num(w, "headroom_mib", x.headroom_mib);
    hw_json_num(w, "pool_unused_mib", x.pool_unused_mib);
    hw_json_close(w);
}

/* How long the run had been in its open phase when it ended; NAN without one. */
static double open_phase_sec(const struct sum_outcome *o)
{
    return o->open_phase[0] ? round_us(o->open_phase_t1 - o->open_phase_t0) : NAN;
}

/* How the run ended (outcome.h): "status" first, where a reader of a sweep looks. */
static void json_outcome(struct hw_json *w, const struct sum_run *run)
{
    const struct sum_outcome *o = &run->outcome;
    hw_json_str(w, "status", sum_status_names[o->status]);
    hw_json_open(w, "outcome", '{');
    hw_json_str(w, "status", sum_status_names[o->status]);
    if (o->exit_status >= 0)
        hw_json_u64(w, "exit_status", (uint64_t)o->exit_status);
    else
        hw_json_null(w, "exit_status");
    if (o->signal)
        hw_json_u64(w, "signal", (uint64_t)o->signal);
    else
        hw_json_null(w, "signal");
    char why[600];
    hw_json_str(w, "reason", sum_outcome_reason(o, why, sizeof why)[0] ? why : NULL);
    hw_json_str(w, "stop_reason", o->have_stop ? o->stop_reason : NULL);
    /* the first stop signal hwmon got while the job ran, and who sent it */
    if (o->stop_signal) {
        hw_json_u64(w, "stop_signal", (uint64_t)o->stop_signal);
        hw_json_str(w, "stop_signal_from", o->stop_from[0] ? o->stop_from : NULL);
        hw_json_str(w, "stop_signal_sender", o->stop_sender[0] ? o->stop_sender : NULL);
    } else {
        hw_json_null(w, "stop_signal");
        hw_json_null(w, "stop_signal_from");
        hw_json_null(w, "stop_signal_sender");
    }
    sum_fig_json_time(w, "last_sample", o->last_t);
    hw_json_u64(w, "phases_failed", o->phases_failed);
    hw_json_str(w, "failed_phase", o->phases_failed ? o->failed_phase : NULL);
    hw_json_str(w, "failed_phase_reason", o->phases_failed ? o->failed_why : NULL);
    if (o->processes_left >= 0) {
        hw_json_u64(w, "processes_left", (uint64_t)o->processes_left);
        hw_json_bool(w, "left_running", o->left_running);
    } else {
        hw_json_null(w, "processes_left");
        hw_json_null(w, "left_running");
    }
    hw_json_str(w, "sampler_error", o->sampler_error[0] ? o->sampler_error : NULL);
    hw_json_str(w, "launcher", o->launcher[0] ? o->launcher : NULL); /* ranks run elsewhere */
    /* where it was when it ended: the innermost phase begun and never ended */
    hw_json_u64(w, "phases_open", o->phases_open);
    hw_json_str(w, "open_phase", o->open_phase[0] ? o->open_phase : NULL);
    hw_json_num(w, "open_phase_sec", open_phase_sec(o));
    /* the GPUs' health (hw_health.csv): how many warnings, null when not recorded */
    if (run->q[HW_FILE_HEALTH].present || run->nhealth_warn)
        hw_json_u64(w, "health_warnings", (uint64_t)run->nhealth_warn);
    else
        hw_json_null(w, "health_warnings");
    hw_json_close(w);
}

/* "phase_names": each phase name's figures over all its entries (phasenames.h), every entry
 * counted, also those beyond SUM_MAX_PHASES. */
static void json_phase_names(struct hw_json *w, const struct sum_run *run)
{
    const struct sum_names *s = &run->names;
    hw_json_open(w, "phase_names", '[');
    for (size_t i = 0; i < s->n; i++) {
        const struct sum_name_acc *a = &s->v[i];
        hw_json_open(w, NULL, '{');
        hw_json_str(w, "name", a->name);
        hw_json_u64(w, "count", a->count);
        hw_json_u64(w, "failed", a->failed);
        hw_json_u64(w, "overlapping", a->overlapping);
        hw_json_open(w, "seconds", '{');
        hw_json_num(w, "total", round_us(a->timed ? a->d_sum : NAN));
        hw_json_num(w, "mean", round_us(sum_name_mean_s(a)));
        hw_json_num(w, "min", round_us(a->timed ? a->d_min : NAN));
        hw_json_num(w, "max", round_us(a->timed ? a->d_max : NAN));
        hw_json_num(w, "std", round_us(sum_name_std_s(a)));
        hw_json_close(w);
        hw_json_num(w, "span_sec", round_us(a->timed ? a->span_s : NAN));
        hw_json_num(w, "energy_wh", sum_name_energy_wh(a));
        hw_json_num(w, "gpu_util_mean_pct", sum_stat_mean(&a->util));
        hw_json_num(w, "gpu_util_max_pct", max_or_nan(&a->util));
        hw_json_num(w, "peak_vram_mib", max_or_nan(&a->mem_used));
        hw_json_num(w, "power_watts_mean", sum_stat_mean(&a->power));
        hw_json_num(w, "cpu_usr_mean_pct", sum_stat_mean(&a->cpu_usr));
        hw_json_num(w, "proc_cpu_mean_pct", sum_stat_mean(&a->proc_cpu));
        hw_json_num(w, "proc_peak_rss_mib", max_or_nan(&a->proc_rss));
        hw_json_num(w, "proc_mean_rss_mib", sum_stat_mean(&a->proc_rss));
        hw_json_close(w);
    }
    hw_json_close(w);
    if (s->names_dropped)
        hw_json_u64(w, "phase_names_not_summarized", s->names_dropped);
    if (s->windows_dropped)
        hw_json_u64(w, "phase_windows_not_measured", s->windows_dropped);
}

/* The tree's CPU as a share of the job's expected cores (sum_run_expected_cores). */
static double cpu_of_cores(const struct sum_run *run, double pct_one_core)
{
    double n = sum_run_expected_cores(run, NULL);
    return isfinite(n) && n > 0 ? pct_one_core / n : NAN;
}

static void json_cores(struct hw_json *w, const struct sum_run *run)
{
    const char *src;
    hw_json_num(w, "cpu_mean_pct", sum_stat_mean(&run->proc[HW_PROC_COL_CPU])); /* of one core */
    hw_json_num(w, "expected_cores", sum_run_expected_cores(run, &src));
    hw_json_str(w, "expected_cores_source", src);
    hw_json_num(w, "cpu_mean_pct_of_cores", cpu_of_cores(run, sum_stat_mean(&run->proc[HW_PROC_COL_CPU])));
    hw_json_num(w, "cpu_max_pct_of_cores", cpu_of_cores(run, max_or_nan(&run->proc[HW_PROC_COL_CPU])));
}

static void json_headline(struct hw_json *w, const struct sum_run *run);

void sum_report_json(const struct sum_run *run, struct hw_buf *out)
{
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_PRETTY, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    hw_json_str(&w, "schema", "hwrun.summary/1");
    hw_json_str(&w, "tool", "summarize (hwrun) " HWRUN_VERSION);
    hw_json_str(&w, "dir", run->dir);
    json_outcome(&w, run);
    hw_json_open(&w, "params", '{'); /* the data of the params events (--params, default config) */
    for (size_t i = 0; i < run->nparams; i++)
        if (!run->params[i].metric)
            hw_json_raw(&w, run->params[i].key, param_text(&run->params[i], true));
    hw_json_close(&w);
    hw_json_open(&w, "metrics", '{'); /* what the job logged about itself: the last values */
    for (size_t i = 0; i < run->nparams; i++)
        if (run->params[i].metric)
            hw_json_raw(&w, run->params[i].key, param_text(&run->params[i], true));
    hw_json_close(&w);
    /* the headline figures: the sweep row's (json_headline) */
    const char *mu_src;
    (void)mem_util_stat(run, &mu_src);
    json_headline(&w, run);
    hw_json_str(&w, "mem_util_source", mu_src);
    double t0 = NAN, t1 = NAN;
    if (!sum_run_span(run, &t0, &t1))
        t0 = t1 = NAN;
    sum_fig_json_time(&w, "start", t0);
    sum_fig_json_time(&w, "end", t1);
    hw_json_open(&w, "time_zone", '{');
    hw_json_str(&w, "zone", run->tz.name);
    hw_json_str(&w, "source", tz_source_name(run->tz_source));
    if (run->tz_start_unrecognized)
        hw_json_str(&w, "start_event_smi_tz_unrecognized", run->info.smi_tz_raw);
    hw_json_close(&w);
    hw_json_str(&w, "percentiles",
           "linear interpolation between closest ranks; exact while a series has at most 1024 "
           "distinct values, else within 0.4% relative error (marked percentiles_exact: false)");

    json_machine(&w, run);
    json_context(&w, run);
    json_sampler(&w, run);
    json_filesystems(&w, run);
    json_together(&w, run);
    hw_json_open(&w, "gpus", '[');
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        hw_json_open(&w, NULL, '{');
        hw_json_u64(&w, "index", (uint64_t)gp->index);
        hw_json_str(&w, "uuid", gp->uuid[0] ? gp->uuid : NULL);
        hw_json_str(&w, "name", gpu_known(run, gp->index) ? run->info.gpu_name[gp->index] : NULL);
        hw_json_str(&w, "vendor",
                    gpu_known(run, gp->index) ? run->info.gpu_vendor[gp->index] : NULL);
        hw_json_u64(&w, "samples", gp->samples);
        json_gpu_metrics(&w, gp->m);
        const char *esrc;
        hw_json_num(&w, "energy_wh", sum_gpu_energy_wh(run, g, &esrc));
        if (run->ecnt[g] || run->clk[g]) { /* every reading, labelled, where there are more */
            hw_json_str(&w, "energy_source", esrc);
            hw_json_num(&w, "energy_counter_wh", sum_gpu_energy_counter_wh(run, g));
            hw_json_num(&w, "energy_instant_wh", sum_gpu_energy_instant_wh(run, g));
            hw_json_num(&w, "energy_integrated_wh", sum_gpu_energy_integrated_wh(run, g));
        }
        if (run->ecnt[g]) {
            hw_json_open(&w, "energy_counter", '{');
            hw_json_u64(&w, "reads", run->ecnt[g]->rows);
            hw_json_u64(&w, "resets", run->ecnt[g]->resets);
            hw_json_num(&w, "update_period_sec", sum_ecount_period(run->ecnt[g]));
            hw_json_close(&w);
        }
        hw_json_open(&w, "energy", '{');
        hw_json_num(&w, "covered_sec", gp->energy.covered_s);
        hw_json_num(&w, "interval_sec", gp->energy.interval_s);
        hw_json_str(&w, "interval_source",
                    gp->energy.interval_from_rows     ? "rows"
                    : isfinite(gp->energy.interval_s) ? "start_event"
                                                      : NULL);
        hw_json_u64(&w, "gaps", gp->energy.gaps);
        hw_json_num(&w, "gap_sec", gp->energy.gap_s);
        hw_json_u64(&w, "unmeasured_steps", gp->energy.unmeasured);
        if (run->clk[g]) { /* which reading was integrated (clocks.h), where health says */
            const char *pf = rd_gpu_power_field(run->info.have_fields ? run->info.gpu_fields : NULL);
            hw_json_str(&w, "power_field", pf);
            hw_json_str(&w, "power_reading", sum_clk_power_reading(run->clk[g], pf));
        }
        hw_json_close(&w);
        hw_json_open(&w, "interval_sec", '{');
        hw_json_num(&w, "median", sum_stat_quantile(&gp->interval, 0.5));
        hw_json_num(&w, "p99", sum_stat_quantile(&gp->interval, 0.99));
        hw_json_close(&w);
        if (gp->in_dmon) {
            hw_json_open(&w, "dmon", '{');
            for (int k = 0; k < RD_DM_COUNT; k++)
                if (gp->dm[k].n)
                    json_stat(&w, rd_dmon_col_names[k], &gp->dm[k]);
            hw_json_close(&w);
        }
        json_gpm(&w, gp, gp->gpm);
        json_clocks(&w, run->clk[g] ? &run->clk[g]->acc : NULL);
        json_health(&w, run->clk[g]);
        if (run->pm[g])
            json_processes(&w, run, &run->pm[g]->acc, run->pm[g]);
        hw_json_close(&w);
    }
    hw_json_close(&w);
    json_health_warnings(&w, run);
    if (run->gpu_rows_dropped)
        hw_json_u64(&w, "gpu_rows_beyond_64_gpus", run->gpu_rows_dropped);

    hw_json_open(&w, "phases", '[');
    for (size_t i = 0; i < run->nphase; i++) {
        const struct sum_phase_acc *p = &run->phase[i];
        hw_json_open(&w, NULL, '{');
        json_phase_head(&w, p->name, p->t0, p->t1, p->line);
        hw_json_num(&w, "energy_wh", sum_phase_energy_wh(run, p));
        hw_json_open(&w, "gpus", '[');
        for (int g = 0; g < RD_MAX_GPUS; g++) {
            const struct sum_phase_gpu *pg = p->gpu[g];
            if (!pg)
                continue;
            hw_json_open(&w, NULL, '{');
            hw_json_u64(&w, "index", (uint64_t)g);
            hw_json_u64(&w, "samples", sum_phase_gpu_rows(pg));
            json_gpu_metrics(&w, pg->m);
            const char *psrc;
            hw_json_num(&w, "energy_wh", sum_phase_gpu_energy_wh(run, p, g, &psrc));
            if (run->ecnt[g] || run->clk[g]) {
                hw_json_str(&w, "energy_source", psrc);
                hw_json_num(&w, "energy_counter_wh",
                            pg->counter_seen ? pg->counter_mj / 3.6e6 : NAN);
                hw_json_num(&w, "energy_instant_wh", pg->inst_seen ? pg->inst_j / 3600.0 : NAN);
                hw_json_num(&w, "energy_integrated_wh",
                            sum_phase_gpu_energy_integrated_wh(run, p, g));
            }
            json_gpm(&w, run->gpu[g], pg->gpm);
            json_clocks(&w, pg->clk);
            if (pg->pm)
                json_processes(&w, run, pg->pm, NULL);
            hw_json_close(&w);
        }
        hw_json_close(&w);
        hw_json_num(&w, "cpu_usr_mean_pct", sum_stat_mean(&p->cpu_usr));
        hw_json_num(&w, "cpu_idle_mean_pct", sum_stat_mean(&p->cpu_idle));
        hw_json_num(&w, "proc_peak_rss_mib", max_or_nan(&p->proc_rss));
        /* calibrax's per-block figures: the mean, and the last reading minus the first */
        hw_json_num(&w, "proc_mean_rss_mib", sum_stat_mean(&p->proc_rss));
        hw_json_num(&w, "proc_memory_growth_mib", growth(&p->proc_rss));
        hw_json_num(&w, "proc_cpu_mean_pct", sum_stat_mean(&p->proc_cpu));
        /* the tree's storage I/O inside the phase (its share of each row's growth) */
        hw_json_num(&w, "proc_read_bytes", p->proc_io_seen ? round(p->proc_io[0]) : NAN);
        hw_json_num(&w, "proc_write_bytes", p->proc_io_seen ? round(p->proc_io[1]) : NAN);
        /* the tracked process alone, and the tree's user/system split */
        hw_json_num(&w, "proc_main_peak_rss_mib", max_or_nan(&p->main_rss));
        hw_json_num(&w, "proc_main_cpu_mean_pct", sum_stat_mean(&p->main_cpu));
        hw_json_num(&w, "proc_main_threads_max", max_or_nan(&p->main_threads));
        hw_json_num(&w, "proc_usr_cpu_mean_pct", sum_stat_mean(&p->usr_cpu));
        hw_json_num(&w, "proc_sys_cpu_mean_pct", sum_stat_mean(&p->sys_cpu));
        json_system(&w, &p->sys);
        hw_json_open(&w, "container", '{');
        json_container_mem(&w, &p->sys);
        hw_json_num(&w, "mem_max_mib", p->sys.mem_limit_mib);
        hw_json_close(&w);
        json_phase_outcome(&w, p->exit_status, p->signal, p->failed, p->open);
        hw_json_str(&w, "edges", sum_phase_edges(p));
        long gs = sum_phase_gpu_samples(run, p);
        if (gs >= 0) {
            hw_json_u64(&w, "gpu_samples", (uint64_t)gs);
            hw_json_bool(&w, "gpu_resolved", gs >= SUM_PHASE_GPU_RESOLVED);
        } else {
            hw_json_null(&w, "gpu_samples");
            hw_json_null(&w, "gpu_resolved");
        }
        json_fwmem(&w, run, p);
        hw_json_raw(&w, "extra", p->extra);
        hw_json_bool(&w, "brief", false);
        hw_json_close(&w);
        hw_buf_spill(out, SUM_SPILL_BYTES);
    }
    /* beyond SUM_MAX_PHASES: where and how each ran; their names' figures count them */
    for (size_t i = 0; i < run->nbrief; i++) {
        const struct sum_phase_brief *p = &run->brief[i];
        hw_json_open(&w, NULL, '{');
        json_phase_head(&w, p->name, p->t0, p->t1, p->line);
        json_phase_outcome(&w, p->exit_status, p->signal, p->failed, false);
        hw_json_bool(&w, "brief", true);
        hw_json_close(&w);
        hw_buf_spill(out, SUM_SPILL_BYTES);
    }
    hw_json_close(&w);
    if (run->nbrief)
        hw_json_u64(&w, "phases_in_brief", run->nbrief);
    if (run->phases_dropped)
        hw_json_u64(&w, "phases_not_summarized", run->phases_dropped);
    json_phase_names(&w, run);

    hw_json_open(&w, "events", '{');
    hw_json_u64(&w, "total", events_total(run));
    hw_json_open(&w, "counts", '{');
    for (size_t i = 0; i < run->netype; i++)
        hw_json_u64(&w, run->etype[i].name, run->etype[i].n);
    if (run->etype_other)
        hw_json_u64(&w, "(other)", run->etype_other);
    hw_json_close(&w);
    hw_json_u64(&w, "errors_total", run->err_total);
    hw_json_open(&w, "errors", '[');
    for (size_t i = 0; i < run->nerr; i++) {
        hw_json_open(&w, NULL, '{');
        sum_fig_json_time(&w, "ts", run->err[i].t);
        hw_json_str(&w, "event", run->err[i].name);
        hw_json_u64(&w, "line", run->err[i].line);
        hw_json_raw(&w, "data", run->err[i].data);
        hw_json_close(&w);
    }
    hw_json_close(&w);
    hw_json_u64(&w, "child_restarts", run->info.child_restarts);
    hw_json_close(&w);

    hw_json_open(&w, "cpu", '{');
    for (int c = 0; c < HW_CPU_COL_CG_LIMIT; c++)
        json_stat(&w, hw_cpu_cols[c], &run->cpu[c]);
    /* the machine busy (user + system), also as cores (resource-tracker's cpu_usage) */
    json_stat(&w, "busy_pct", &run->cpu_busy);
    hw_json_num(&w, "cores_busy_mean", sum_fig_cores_busy(run, sum_stat_mean(&run->cpu_busy)));
    hw_json_num(&w, "cores_busy_max", sum_fig_cores_busy(run, max_or_nan(&run->cpu_busy)));
    for (int c = HW_CPU_COL_MEM_TOTAL; c < HW_CPU_COL_COUNT; c++) /* /proc/meminfo's parts */
        json_stat(&w, hw_cpu_cols[c], &run->cpu[c]);
    hw_json_close(&w);

    json_system(&w, &run->sys);

    hw_json_open(&w, "process", '{');
    hw_json_num(&w, "peak_rss_mib", max_or_nan(&run->proc[HW_PROC_COL_RSS]));
    hw_json_num(&w, "mean_rss_mib", sum_stat_mean(&run->proc[HW_PROC_COL_RSS]));
    hw_json_num(&w, "memory_growth_mib", growth(&run->proc[HW_PROC_COL_RSS]));
    json_stat(&w, "rss_mib", &run->proc[HW_PROC_COL_RSS]);
    json_stat(&w, "pss_mib", &run->proc[HW_PROC_COL_PSS]);
    json_stat(&w, "cpu_pct", &run->proc[HW_PROC_COL_CPU]);
    hw_json_num(&w, "threads_max", max_or_nan(&run->proc[HW_PROC_COL_THREADS]));
    hw_json_num(&w, "threads_mean", sum_stat_mean(&run->proc[HW_PROC_COL_THREADS]));
    hw_json_num(&w, "procs_max", max_or_nan(&run->proc[HW_PROC_COL_PROCS]));
    hw_json_num(&w, "read_bytes", max_or_nan(&run->proc[HW_PROC_COL_READ]));
    hw_json_num(&w, "write_bytes", max_or_nan(&run->proc[HW_PROC_COL_WRITE]));
    /* every key of /proc/PID/io over the tree: the total, and per second between samples */
    hw_json_open(&w, "io", '{');
    for (int k = 0; k < SUM_PIO_COUNT; k++) {
        const char *name = hw_proc_cols[sum_pio_cols[k]];
        char key[64];
        hw_json_num(&w, name, max_or_nan(&run->proc[sum_pio_cols[k]]));
        snprintf(key, sizeof key, "%s_per_s_mean", name);
        hw_json_num(&w, key, sum_stat_mean(&run->pio_rate[k]));
        snprintf(key, sizeof key, "%s_per_s_max", name);
        hw_json_num(&w, key, max_or_nan(&run->pio_rate[k]));
    }
    hw_json_close(&w);
    /* the tracked process alone (descendants: the tree's row minus these), and user/system */
    /* gpu_tracker's private and shared RSS, and its "descendants" (the tree without the main
     * process, at each sample) */
    hw_json_num(&w, "private_peak_mib", max_or_nan(&run->proc[HW_PROC_COL_PRIVATE]));
    hw_json_num(&w, "shared_peak_mib", max_or_nan(&run->proc[HW_PROC_COL_SHARED]));
    hw_json_num(&w, "descendants_peak_rss_mib", max_or_nan(&run->desc[SUM_DESC_RSS]));
    hw_json_num(&w, "descendants_cpu_mean_pct", sum_stat_mean(&run->desc[SUM_DESC_CPU]));
    hw_json_num(&w, "descendants_cpu_max_pct", max_or_nan(&run->desc[SUM_DESC_CPU]));
    hw_json_num(&w, "descendants_threads_max", max_or_nan(&run->desc[SUM_DESC_THREADS]));
    hw_json_num(&w, "descendants_private_peak_mib", max_or_nan(&run->desc[SUM_DESC_PRIVATE]));
    hw_json_num(&w, "descendants_shared_peak_mib", max_or_nan(&run->desc[SUM_DESC_SHARED]));
    hw_json_num(&w, "main_peak_rss_mib", max_or_nan(&run->proc[HW_PROC_COL_MAIN_RSS]));
    /* the kernel's high-water mark of the command (wrap mode): no sampling can miss it */
    hw_json_num(&w, "main_peak_rss_kernel_mib", run->info.main_peak_kernel_mib);
    json_stat(&w, "main_rss_mib", &run->proc[HW_PROC_COL_MAIN_RSS]);
    json_stat(&w, "main_cpu_pct", &run->proc[HW_PROC_COL_MAIN_CPU]);
    hw_json_num(&w, "main_threads_max", max_or_nan(&run->proc[HW_PROC_COL_MAIN_THREADS]));
    hw_json_num(&w, "main_private_peak_mib", max_or_nan(&run->proc[HW_PROC_COL_MAIN_PRIVATE]));
    hw_json_num(&w, "main_shared_peak_mib", max_or_nan(&run->proc[HW_PROC_COL_MAIN_SHARED]));
    json_stat(&w, "usr_cpu_pct", &run->proc[HW_PROC_COL_USR_CPU]);
    json_stat(&w, "sys_cpu_pct", &run->proc[HW_PROC_COL_SYS_CPU]);
    const char *gm_why;
    hw_json_num(&w, "gpu_mem_peak_mib", sum_run_tree_gpu_mem_peak(run, &gm_why));
    hw_json_num(&w, "main_gpu_mem_peak_mib", sum_run_gpu_mem_peak(run, SUM_GPMEM_MAIN, NULL));
    hw_json_num(&w, "descendants_gpu_mem_peak_mib", sum_run_gpu_mem_peak(run, SUM_GPMEM_DESC, NULL));
    hw_json_open(&w, "gpu_mem_peak_by_pid", '[');
    for (size_t i = 0; i < run->npids; i++) {
        hw_json_open(&w, NULL, '{');
        hw_json_u64(&w, "pid", (uint64_t)run->pids[i].pid);
        hw_json_str(&w, "name", run->pids[i].name);
        hw_json_num(&w, "peak_mib", run->pids[i].peak_mib);
        hw_json_close(&w);
    }
    hw_json_close(&w);
    hw_json_str(&w, "gpu_mem_unmeasured_reason", gm_why);
    json_cores(&w, run);
    hw_json_close(&w);

    hw_json_open(&w, "container", '{');
    hw_json_raw(&w, "cgroup", run->cgroup_json);
    hw_json_num(&w, "cpu_limit_cores", run->cg_limit_cores);
    hw_json_num(&w, "mem_max_mib", run->cg_mem_max_mib);
    json_container_mem(&w, &run->sys);
    json_stat(&w, "cpu_pct", &run->cpu[HW_CPU_COL_CG_PCT]);
    hw_json_close(&w);

    hw_json_open(&w, "quality", '{');
    hw_json_open(&w, "files", '{');
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (!rd_kind_optional((enum hw_file)k) || run->q[k].present)
            json_quality(&w, run, k);
    hw_json_close(&w);
    hw_json_u64(&w, "lines_skipped", total_skipped(run));
    hw_json_u64(&w, "partial_last_lines", total_partial(run));
    hw_json_u64(&w, "placeholders", total_placeholders(run));
    hw_json_u64(&w, "child_restarts", run->info.child_restarts);
    hw_json_u64(&w, "hwmon_runs", run->info.starts);
    hw_json_close(&w);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}

/* ---- text ------------------------------------------------------------------------------- */

/* Numbers for a person: units.c's one rule (0.00123 Wh, never 0.0 Wh), in --units. */
static void tnum(struct hw_buf *b, double v, const char *unit)
{
    sum_fmt_num(b, v, unit);
}

/* A count: whole, "-" when not known. */
static void tcount(struct hw_buf *b, double v, const char *unit)
{
    if (isfinite(v))
        hw_buf_printf(b, "%.0f%s", v, unit);
    else
        hw_buf_printf(b, "-%s", unit);
}

static void tdur(struct hw_buf *b, double s, const struct sum_units *u)
{
    sum_units_fmt(b, s, SUM_DIM_TIME, u);
}

static void tmem(struct hw_buf *b, double mib, const struct sum_units *u)
{
    sum_units_fmt(b, mib, SUM_DIM_MEM, u);
}

/* GPU memory: --units gpumem, else mem */
static void tgmem(struct hw_buf *b, double mib, const struct sum_units *u)
{
    sum_units_fmt(b, mib, SUM_DIM_GPUMEM, u);
}

static void twh(struct hw_buf *b, double wh, const struct sum_units *u)
{
    sum_units_fmt(b, wh, SUM_DIM_ENERGY, u);
}

/* The first line of what an error-like event says (its data's reason, message or output). */
static void event_reason(struct hw_buf *b, const char *data_json)
{
    struct json_object *d = data_json ? json_tokener_parse(data_json) : NULL, *v;
    static const char *const keys[] = {"reason", "message", "error", "output"};
    for (size_t i = 0; d && i < sizeof keys / sizeof keys[0]; i++)
        if (json_object_object_get_ex(d, keys[i], &v) && json_object_is_type(v, json_type_string) &&
            json_object_get_string_len(v) > 0) {
            const char *t = json_object_get_string(v);
            size_t n = strcspn(t, "\r\n");
            n = n > 160 ? 160 : n;
            hw_buf_puts(b, ": ");
            for (size_t k = 0; k < n; k++) /* no control characters to the terminal */
                hw_buf_putc(b, (unsigned char)t[k] < 0x20 || t[k] == 0x7f ? '?' : t[k]);
            break;
        }
    json_object_put(d);
}

/* mem: the values are MiB, shown in --units mem (unit is then ignored). */
static void tstat(struct hw_buf *b, const char *label, const struct sum_stat *s, const char *unit,
                  const struct sum_units *gpumem)
{
    if (!s->n)
        return;
    const double v[5] = {sum_stat_mean(s), s->max, sum_stat_quantile(s, 0.5),
                         sum_stat_quantile(s, 0.95), sum_stat_quantile(s, 0.99)};
    static const char *const what[5] = {"mean ", "  max ", "  p50 ", "  p95 ", "  p99 "};
    /* the unit once, in the label ("mem used (MiB)"): five values a row stay within 100
     * columns; only GPU memory is given in --units */
    while (*unit == ' ')
        unit++;
    char head[64];
    snprintf(head, sizeof head, "%s (%s)", label,
             gpumem ? sum_units_label(gpumem, SUM_DIM_GPUMEM) : unit);
    hw_buf_printf(b, "    %-20s ", head);
    for (int i = 0; i < 5; i++) {
        hw_buf_puts(b, what[i]);
        tnum(b, gpumem ? sum_units_value(gpumem, SUM_DIM_GPUMEM, v[i]) : v[i], "");
    }
    hw_buf_putc(b, '\n');
}

/* Text from the data (phase and event names, uuids) without control characters, so a hostile
 * run.jsonl cannot move the terminal's cursor. */
const char *sum_fig_printable(const char *s, char *buf, size_t cap)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < cap; i++)
        buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    buf[i] = '\0';
    return buf;
}

/* The GPM figures the text shows next to "util" (JSON has them all). */
static const struct {
    const char *label;
    int col; /* index into sum_gpu.gpm */
} gpm_text[] = {
    {"SM active", RD_DM_SMUTIL - RD_DM_GPM_FIRST},
    {"tensor active", RD_DM_MMAACT - RD_DM_GPM_FIRST},
    {"DRAM active", RD_DM_DRAM - RD_DM_GPM_FIRST},
};

/* The run's outcome in one line; anything but ok in capitals, where the eye falls. */
static void text_outcome(struct hw_buf *out, const struct sum_run *run)
{
    const struct sum_outcome *o = &run->outcome;
    char iso[HW_ISO_LEN] = "-";
    if (isfinite(o->last_t)) {
        struct timespec ts = {(time_t)floor(o->last_t),
                              (long)((o->last_t - floor(o->last_t)) * 1e9)};
        hw_iso_utc(iso, &ts);
    }
    char why[600];
    sum_outcome_reason(o, why, sizeof why);
    if (o->status == SUM_STATUS_OK) {
        hw_buf_puts(out, "  status ok");
        if (why[0])
            hw_buf_printf(out, " (%s)", why);
    } else {
        char up[16];
        const char *name = sum_status_names[o->status];
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof up; i++)
            up[i] = (char)(name[i] - ('a' <= name[i] && name[i] <= 'z' ? 'a' - 'A' : 0));
        up[i] = '\0';
        hw_buf_printf(out, "  status %s: %s", o->status == SUM_STATUS_UNKNOWN && !o->have_start
                                                   ? "unknown" : up, why);
        if (o->status == SUM_STATUS_INCOMPLETE || o->status == SUM_STATUS_RUNNING)
            hw_buf_printf(out, "; last sample %s", iso);
    }
    char where[200];
    if (*sum_outcome_where(o, where, sizeof where))
        hw_buf_printf(out, " %s", where);
    char failed[512];
    if (*sum_outcome_failed_note(o, failed, sizeof failed)) {
        char sb[512];
        hw_buf_printf(out, "; %s", sum_fig_printable(failed, sb, sizeof sb));
    }
    char note[512];
    if (*sum_outcome_note(o, note, sizeof note))
        hw_buf_printf(out, "; %s", note);
    if (run->nhealth_warn) /* said one by one below, with the other warnings */
        hw_buf_printf(out, "; %d GPU health warning%s", run->nhealth_warn,
                      run->nhealth_warn == 1 ? "" : "s");
    hw_buf_putc(out, '\n');
}

/* Disks, network and free space, then the container's memory, of a run or a phase: one line
 * each after indent, only what was measured. */
static void text_system(struct hw_buf *out, const char *indent, const struct sum_system *sys,
                        double limit_mib, double cpu_limit_cores, const struct sum_units *u)
{
    bool disk = !isnan(sys->bytes[SUM_IO_DISK_READ]) || !isnan(sys->bytes[SUM_IO_DISK_WRITE]);
    bool net = !isnan(sys->bytes[SUM_IO_NET_RX]) || !isnan(sys->bytes[SUM_IO_NET_TX]);
    static const char *const label[SUM_IO_COUNT] = {"disks: read ", ", written ",
                                                    "network: received ", ", sent "};
    const char *sep = indent;
    for (int i = 0; i < SUM_IO_COUNT; i++) {
        if (!(i < SUM_IO_NET_RX ? disk : net))
            continue;
        if (i == SUM_IO_DISK_READ || i == SUM_IO_NET_RX)
            hw_buf_puts(out, sep);
        hw_buf_puts(out, label[i]);
        tmem(out, sum_system_mib(sys, i), u);
        if (!isnan(sys->peak_mib_s[i])) {
            hw_buf_puts(out, " (peak ");
            tnum(out, sum_system_peak_mib_s(sys, i), " MiB/s)");
        }
        sep = "; ";
    }
    if (!isnan(sys->fs_free_min_mib)) {
        hw_buf_puts(out, sep);
        hw_buf_puts(out, "free space min ");
        tmem(out, sys->fs_free_min_mib, u);
        sep = "; ";
    }
    if (sep != indent)
        hw_buf_putc(out, '\n');
    const char *src;
    double peak = sum_system_mem_peak(sys, &src);
    if (isnan(peak) && isnan(limit_mib) && isnan(cpu_limit_cores))
        return;
    hw_buf_printf(out, "%scontainer: memory peak ", indent);
    tmem(out, peak, u);
    if (src)
        hw_buf_printf(out, " (%s)", src);
    hw_buf_puts(out, ", limit ");
    if (isnan(limit_mib))
        hw_buf_puts(out, "none");
    else
        tmem(out, limit_mib, u);
    if (!isnan(cpu_limit_cores)) {
        hw_buf_puts(out, ", CPU limit ");
        tnum(out, cpu_limit_cores, " cores");
    }
    hw_buf_putc(out, '\n');
}

/* One phase entry: its duration, energy, CPU, and each GPU's figures. */
/* A phase's (or a phase name's) system CPU and process tree, as the text report says them. */
static void text_cpu_tree(struct hw_buf *out, const struct sum_stat *cpu_usr,
                          const struct sum_stat *proc_rss, const struct sum_stat *proc_cpu,
                          const struct sum_units *u)
{
    if (cpu_usr->n) {
        hw_buf_puts(out, ", CPU usr ");
        tnum(out, sum_stat_mean(cpu_usr), "%");
    }
    if (proc_rss->n) {
        hw_buf_puts(out, ", process tree peak RSS ");
        tmem(out, proc_rss->max, u);
        hw_buf_puts(out, " CPU mean ");
        tnum(out, sum_stat_mean(proc_cpu), "%");
    }
}

/* The framework's own memory next to nvidia-smi's, of the run (p NULL) or a phase: what it
 * really used, what its allocator held, and the room left on the GPU. */
static void text_fwmem(struct hw_buf *out, const char *indent, const struct sum_run *run,
                       const struct sum_phase_acc *p, const struct sum_units *u)
{
    struct sum_fwmem_fig x;
    if (!sum_fwmem_figures(run, p, &x))
        return;
    char sb[64];
    hw_buf_printf(out, "%sframework memory (%s): peak ", indent,
                  sum_fig_printable(p ? p->fw.framework : run->fw.framework, sb, sizeof sb));
    tgmem(out, x.peak_mib, u);
    hw_buf_puts(out, " in use");
    if (isfinite(x.pool_mib)) {
        hw_buf_puts(out, ", pool ");
        tgmem(out, x.pool_mib, u);
    }
    hw_buf_puts(out, "; nvidia-smi peak VRAM ");
    tgmem(out, x.vram_peak_mib, u);
    if (isfinite(x.vram_total_mib)) {
        hw_buf_puts(out, " of ");
        tgmem(out, x.vram_total_mib, u);
        hw_buf_puts(out, "; headroom ");
        tgmem(out, x.headroom_mib, u);
    }
    hw_buf_putc(out, '\n');
}

/* "GPU 1 was power-capped for 38.0% of `train` (counters)": a phase's capped GPUs in words. */
static void text_phase_capped(struct hw_buf *out, const struct sum_phase_acc *p, int g)
{
    if (!p->gpu[g] || !p->gpu[g]->clk)
        return;
    struct sum_clk_figs f;
    sum_clk_figs(p->gpu[g]->clk, &f);
    char sb[256];
    static const struct {
        const char *words;
        int k;
    } cap[] = {{"power-capped", SUM_CLK_POWER}, {"thermally slowed", SUM_CLK_THERMAL}};
    for (size_t i = 0; i < 2; i++) {
        double pct = i == 0 ? f.power_pct : f.thermal_pct;
        if (!(pct > 0))
            continue;
        hw_buf_printf(out, "    GPU %d was %s for ", g, cap[i].words);
        tnum(out, pct, "%");
        hw_buf_printf(out, " of `%s` (", sum_fig_printable(p->name, sb, sizeof sb));
        tnum(out, f.s[cap[i].k], " s");
        hw_buf_printf(out, ", %s)\n", f.source);
    }
}

/* A GPU's clocks over the run in one line (clocks.h), when hw_health.csv had its rows. */
static void text_clocks(struct hw_buf *out, const struct sum_clk_gpu *g)
{
    if (!g)
        return;
    struct sum_clk_figs f;
    sum_clk_figs(&g->acc, &f);
    hw_buf_puts(out, "    clocks: power-capped ");
    tnum(out, f.power_pct, "%");
    hw_buf_puts(out, ", thermally slowed ");
    tnum(out, f.thermal_pct, "%");
    hw_buf_printf(out, " of the time (%s), SM clock mean ", f.source ? f.source : "not measured");
    tnum(out, f.sm_pct_of_max, "%");
    hw_buf_puts(out, " of its max ");
    tnum(out, f.sm_max_mhz, " MHz");
    hw_buf_puts(out, ", power limit ");
    tnum(out, g->last[HW_HEALTH_POWER_LIMIT], " W");
    hw_buf_putc(out, '\n');
}

static void text_phase_entry(struct hw_buf *out, const struct sum_run *run,
                             const struct sum_phase_acc *p, const struct sum_units *u)
{
    char sb[256];
    hw_buf_printf(out, "  phase %s: ", sum_fig_printable(p->name, sb, sizeof sb));
    tdur(out, p->t1 - p->t0, u);
    if (isfinite(run->info.t_start) && p->t0 < run->info.t_start - 0.001)
        hw_buf_puts(out, " (began before hwmon started: partly unmeasured)");
    hw_buf_puts(out, ", energy ");
    twh(out, sum_phase_energy_wh(run, p), u);
    text_cpu_tree(out, &p->cpu_usr, &p->proc_rss, &p->proc_cpu, u);
    long gs = sum_phase_gpu_samples(run, p);
    if (gs >= 0 && gs < SUM_PHASE_GPU_RESOLVED)
        hw_buf_printf(out, " (GPU not resolved: %ld sample%s)", gs, gs == 1 ? "" : "s");
    if (!p->edge_t0 || !p->edge_t1) /* sum_phase_edges() in words */
        hw_buf_printf(out, " (CPU, disk, network %s)",
                      p->edge_t0   ? "measured at its begin, interpolated at its end"
                      : p->edge_t1 ? "interpolated at its begin, measured at its end"
                                   : "interpolated at its edges");
    if (p->open)
        hw_buf_puts(out, ", OPEN: begun and never ended");
    else if (p->signal)
        hw_buf_printf(out, ", FAILED: killed by signal %d", p->signal);
    else if (p->exit_status > 0)
        hw_buf_printf(out, ", FAILED: exit status %d", p->exit_status);
    else if (p->failed)
        hw_buf_puts(out, ", FAILED: raised an exception");
    hw_buf_putc(out, '\n');
    if (p->main_rss.n) {
        hw_buf_puts(out, "    main process peak RSS ");
        tmem(out, p->main_rss.max, u);
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, sum_stat_mean(&p->main_cpu), "%");
        hw_buf_puts(out, "; tree CPU user ");
        tnum(out, sum_stat_mean(&p->usr_cpu), "%");
        hw_buf_puts(out, ", system ");
        tnum(out, sum_stat_mean(&p->sys_cpu), "%\n");
    }
    text_system(out, "    ", &p->sys, p->sys.mem_limit_mib, NAN, u);
    text_fwmem(out, "    ", run, p, u);
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (p->gpu[g]) {
            hw_buf_printf(out, "    GPU %d util mean ", g);
            tnum(out, sum_stat_mean(&p->gpu[g]->m[RD_GM_UTIL]), "%");
            for (int m = 0; run->gpu[g] && run->gpu[g]->in_gpm &&
                            m < (int)(sizeof gpm_text / sizeof gpm_text[0]);
                 m++) {
                hw_buf_printf(out, ", %s ", gpm_text[m].label);
                tnum(out, sum_stat_mean(&p->gpu[g]->gpm[gpm_text[m].col]), "%");
            }
            hw_buf_puts(out, ", power mean ");
            tnum(out, sum_stat_mean(&p->gpu[g]->m[RD_GM_POWER]), " W");
            hw_buf_puts(out, ", peak VRAM ");
            tgmem(out, max_or_nan(&p->gpu[g]->m[RD_GM_MEM_USED]), u);
            if (p->gpu[g]->pm && !sum_run_pmon_unattributed(run)) {
                hw_buf_puts(out, ", SMs by this job ");
                tnum(out, sum_fig_mean(&p->gpu[g]->pm->own_sm), "%");
                hw_buf_puts(out, ", by others ");
                tnum(out, sum_fig_mean(&p->gpu[g]->pm->others_sm), "%");
            }
            hw_buf_putc(out, '\n');
            text_phase_capped(out, p, g);
        }
}

/* " (87.5% of 4 cores: cgroup quota)" after the tree's CPU, when the cores are known. */
static void text_cores(struct hw_buf *out, const struct sum_run *run)
{
    const char *src;
    double n = sum_run_expected_cores(run, &src);
    if (!isfinite(n))
        return;
    static const struct {
        const char *key, *text;
    } says[] = {{"option", "--cores"}, {"cgroup_quota", "cgroup quota"}, {"affinity", "affinity"}};
    const char *why = src;
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        if (!strcmp(says[i].key, src))
            why = says[i].text;
    hw_buf_puts(out, " (");
    tnum(out, cpu_of_cores(run, sum_stat_mean(&run->proc[HW_PROC_COL_CPU])), "%");
    hw_buf_printf(out, " of %g cores: %s)", n, why);
}

/* Phases: a name logged more than once (a training loop's `step`) gets one line of its figures
 * over all its entries (phase_names in JSON) before the entries, in place of a line each; its
 * failed entries are still listed one by one. */
static void text_phases(struct hw_buf *out, const struct sum_run *run, const struct sum_units *u)
{
    char sb[256];
    const struct sum_names *s = &run->names;
    for (size_t i = 0; i < s->n; i++) {
        const struct sum_name_acc *a = &s->v[i];
        if (a->count < 2 && a->kept == a->count)
            continue; /* its entry's line says it all */
        hw_buf_printf(out, "  phase %s x%llu: total ", sum_fig_printable(a->name, sb, sizeof sb),
                      (unsigned long long)a->count);
        tdur(out, a->timed ? a->d_sum : NAN, u);
        hw_buf_puts(out, ", mean ");
        tdur(out, sum_name_mean_s(a), u);
        hw_buf_puts(out, " (min ");
        tdur(out, a->timed ? a->d_min : NAN, u);
        hw_buf_puts(out, ", max ");
        tdur(out, a->timed ? a->d_max : NAN, u);
        hw_buf_puts(out, ", std ");
        tdur(out, sum_name_std_s(a), u);
        hw_buf_puts(out, "), energy ");
        twh(out, sum_name_energy_wh(a), u);
        if (a->util.n) {
            hw_buf_puts(out, ", GPU util mean ");
            tnum(out, sum_stat_mean(&a->util), "%");
        }
        if (a->mem_used.n) {
            hw_buf_puts(out, ", peak VRAM ");
            tgmem(out, a->mem_used.max, u);
        }
        text_cpu_tree(out, &a->cpu_usr, &a->proc_rss, &a->proc_cpu, u);
        if (a->overlapping)
            hw_buf_printf(out, "; %llu overlapping (figures over their union)",
                          (unsigned long long)a->overlapping);
        if (a->failed)
            hw_buf_printf(out, ", %llu FAILED", (unsigned long long)a->failed);
        hw_buf_putc(out, '\n');
    }
    for (size_t i = 0; i < run->nphase; i++) {
        const struct sum_phase_acc *p = &run->phase[i];
        const struct sum_name_acc *a = sum_names_find(s, p->name);
        if (a && (a->count > 1 || a->kept < a->count) && !p->failed && !p->open)
            continue; /* in its name's line */
        text_phase_entry(out, run, p, u);
    }
    if (isfinite(run->outside_phases_s)) {
        hw_buf_puts(out, "  outside any phase: ");
        tdur(out, run->outside_phases_s, u);
        hw_buf_putc(out, '\n');
    }
    if (run->steps > 0) { /* what compares runs of different lengths */
        hw_buf_printf(out, "  %.0f steps: ", run->steps);
        tdur(out, sum_run_sec_per_step(run), u);
        hw_buf_puts(out, " and ");
        twh(out, sum_run_energy_wh_per_step(run), u);
        hw_buf_puts(out, " per step\n");
    }
    if (run->nbrief)
        hw_buf_printf(out, "  note: %llu phases beyond the first %d are in the JSON in brief (times "
                           "and outcome; their names' figures count them)\n",
                      (unsigned long long)run->nbrief, SUM_MAX_PHASES);
    if (run->phases_dropped)
        hw_buf_printf(out, "  note: %llu phases have no entry of their own (their names' figures "
                           "count them)\n",
                      (unsigned long long)run->phases_dropped);
    if (s->names_dropped)
        hw_buf_printf(out, "  note: %llu phases of names beyond the first %d not summarized by "
                           "name\n", (unsigned long long)s->names_dropped, SUM_MAX_PHASE_NAMES);
}


void sum_report_text(const struct sum_run *run, struct hw_buf *out)
{
    sum_report_text_u(run, NULL, out);
}

/* Whether nvidia-smi wrote the run's GPU rows: there are some (or dmon's), and not every GPU
 * the start event lists is an AMD GPU (hwmon's sysfs source writes its own times, in UTC). */
static bool smi_times(const struct sum_run *run)
{
    if (!sum_run_gpu_count(run) && !run->q[HW_FILE_DMON].parsed)
        return false; /* no GPU rows: no zone to tell */
    bool any = false;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        if (!run->info.gpu_vendor[g][0])
            continue;
        if (strcmp(run->info.gpu_vendor[g], "amd") != 0)
            return true;
        any = true;
    }
    return !any;
}

/* The phase names with the most time, longest first (at most n); returns how many. */
static size_t slowest_names(const struct sum_run *run, const struct sum_name_acc **top, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < run->names.n; i++) {
        const struct sum_name_acc *a = &run->names.v[i];
        if (!a->timed || !(a->d_sum >= 0))
            continue;
        size_t j = k < n ? k++ : n;
        if (j == n && !(a->d_sum > top[n - 1]->d_sum))
            continue;
        if (j == n)
            j = n - 1;
        for (; j > 0 && a->d_sum > top[j - 1]->d_sum; j--)
            top[j] = top[j - 1];
        top[j] = a;
    }
    return k;
}

/* The answer first (issue 37): what a person at a terminal asks of a run, in a dozen lines
 * under the run's name, before the details; each figure from the getters the details use. */
/* A headline line of the figures shown there (SUM_SHOW_HEAD_*), each with its label and unit:
 * "  GPUs: peak VRAM 17.1 GiB, GPU util mean 94.0%, power mean 369.1 W"; no line when none of
 * them was measured. */
struct head_line {
    struct hw_buf *out;
    const struct sum_units *u;
    struct hw_buf line;
    bool any;
};

static void head_fig(void *ctx, const char *key, const char *what, const struct sum_show *show,
                     double v)
{
    (void)what;
    struct head_line *h = ctx;
    hw_buf_puts(&h->line, h->line.len ? ", " : "");
    hw_buf_puts(&h->line, show->label);
    hw_buf_putc(&h->line, ' ');
    sum_fig_text(&h->line, key, v, h->u);
    h->any |= isfinite(v);
}

static void text_head_line(struct hw_buf *out, const struct sum_run *run, unsigned where,
                           const char *label, const struct sum_units *u)
{
    struct head_line h = {out, u, {0}, false};
    hw_buf_init(&h.line, NULL, 0);
    sum_report_shown(run, where, head_fig, &h);
    if (h.any)
        hw_buf_printf(out, "  %s: %s\n", label, h.line.p);
    hw_buf_free(&h.line);
}

static void text_headline(struct hw_buf *out, const struct sum_run *run,
                          const struct sum_units *u)
{
    char sb[256];
    text_outcome(out, run);
    hw_buf_puts(out, "  duration ");
    tdur(out, sum_run_duration(run), u);
    hw_buf_printf(out, ", energy ");
    twh(out, sum_run_energy_wh(run), u);
    hw_buf_printf(out, ", %zu GPUs, %llu samples\n", sum_run_gpu_count(run),
                  (unsigned long long)sum_run_num_samples(run));
    text_head_line(out, run, SUM_SHOW_HEAD_GPUS, "GPUs", u);
    text_head_line(out, run, SUM_SHOW_HEAD_JOB, "job", u);
    const double *io = run->sys.bytes;
    static const char *const io_words[SUM_IO_COUNT] = {"  I/O: disks read ", ", written ",
                                                       "; network received ", ", sent "};
    if (isfinite(io[SUM_IO_DISK_READ]) || isfinite(io[SUM_IO_NET_RX])) {
        for (int i = 0; i < SUM_IO_COUNT; i++) {
            hw_buf_puts(out, io_words[i]);
            tmem(out, io[i] / 1048576.0, u);
        }
        hw_buf_putc(out, '\n');
    }
    const struct sum_name_acc *top[3];
    size_t nt = slowest_names(run, top, 3);
    for (size_t i = 0; i < nt; i++) {
        hw_buf_printf(out, i ? ", %s " : "  slowest phases: %s ",
                      sum_fig_printable(top[i]->name, sb, sizeof sb));
        tdur(out, top[i]->d_sum, u);
        if (top[i]->count > 1)
            hw_buf_printf(out, " (x%llu)", (unsigned long long)top[i]->count);
    }
    if (nt)
        hw_buf_putc(out, '\n');
    uint64_t warnings = (uint64_t)run->nhealth_warn + run->err_total;
    if (warnings) {
        hw_buf_printf(out, "  warnings: %llu (first: %s)\n", (unsigned long long)warnings,
                      run->nhealth_warn ? sum_fig_printable(run->health_warn[0], sb, sizeof sb)
                                        : sum_fig_printable(run->err[0].name, sb, sizeof sb));
    }
}

/* Lines longer than SUM_TEXT_COLS (report.h) are broken after the last ", " or "; " that fits,
 * the rest indented under the line's own indent plus four: a terminal over SSH never wraps
 * them. */
static void wrap_lines(struct hw_buf *out, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t indent = 0;
        while (p + indent < le && p[indent] == ' ')
            indent++;
        bool first = true;
        while ((size_t)(le - p) > (first ? SUM_TEXT_COLS : SUM_TEXT_COLS - indent - 4)) {
            size_t room = first ? SUM_TEXT_COLS : SUM_TEXT_COLS - indent - 4;
            const char *cut = NULL;
            for (const char *c = p + room - 1; c > p + indent + 8 && !cut; c--)
                if ((c[0] == ',' || c[0] == ';') && c[1] == ' ')
                    cut = c + 1; /* keep the comma, drop the blank */
            if (!cut)
                break; /* one word longer than the line: left as it is */
            hw_buf_put(out, p, (size_t)(cut - p));
            hw_buf_putc(out, '\n');
            for (size_t i = 0; i < indent + 4; i++)
                hw_buf_putc(out, ' ');
            p = cut + 1;
            first = false;
        }
        hw_buf_put(out, p, (size_t)(le - p));
        if (nl)
            hw_buf_putc(out, '\n');
        p = nl ? nl + 1 : end;
    }
}

static void text_details(const struct sum_run *run, const struct sum_units *u,
                         struct hw_buf *out);

void sum_report_text_u(const struct sum_run *run, const struct sum_units *u, struct hw_buf *out)
{
    struct hw_buf t;
    hw_buf_init(&t, NULL, 0);
    text_details(run, u, &t);
    if (t.oom)
        out->oom = true;
    else
        wrap_lines(out, t.p, t.len);
    hw_buf_free(&t);
}

static void text_details(const struct sum_run *run, const struct sum_units *u,
                         struct hw_buf *out)
{
    char sb[256];
    static const char *const units[RD_GM_COUNT] = {"%", "%", " MiB", " MiB", " W",
                                                    " C", " MHz", " MHz", " MHz"};
    static const char *const labels[RD_GM_COUNT] = {"util", "mem util", "mem used",
                                                     "mem total", "power", "temperature",
                                                     "SM clock", "mem clock", "gr clock"};
    hw_buf_printf(out, "run %s\n", run->dir ? sum_fig_printable(run->dir, sb, sizeof sb) : "(files)");
    text_headline(out, run, u);
    hw_buf_puts(out, "details:\n");
    char note[300];
    for (int i = 0; i < SUM_NOTE_COUNT; i++)
        if (*sum_run_note(run, i, note, sizeof note))
            hw_buf_printf(out, "  note: %s\n", note);
    if (smi_times(run)) /* an AMD run's rows are hwmon's own, in UTC: no zone to tell */
        hw_buf_printf(out, "  nvidia-smi times: %s (%s)\n", run->tz.name,
                      tz_source_name(run->tz_source));
    if (run->info.have_start) {
        hw_buf_printf(out, "  machine %s: ", run->info.host[0] ? sum_fig_printable(run->info.host, sb, sizeof sb)
                                                                : "(unnamed)");
        tcount(out, run->info.cpus, " CPUs");
        if (isfinite(run->info.cpus_allowed) && run->info.cpus_allowed != run->info.cpus) {
            hw_buf_puts(out, " (");
            tcount(out, run->info.cpus_allowed, " allowed)");
        }
        hw_buf_puts(out, ", ");
        tcount(out, run->info.gpus, " GPUs");
        if (run->cpu_busy.n) {
            hw_buf_puts(out, "; CPUs busy mean ");
            tnum(out, sum_stat_mean(&run->cpu_busy), "%");
            hw_buf_puts(out, " (");
            tnum(out, sum_fig_cores_busy(run, sum_stat_mean(&run->cpu_busy)), " cores, peak ");
            tnum(out, sum_fig_cores_busy(run, max_or_nan(&run->cpu_busy)), " cores)");
        }
        hw_buf_putc(out, '\n');
    }
    for (int k = 0; k < run->info.nfs; k++) {
        const struct rd_fs *fs = &run->info.fs[k];
        hw_buf_printf(out, "  %s %s", k ? "          " : "file system",
                      sum_fig_printable(fs->mount, sb, sizeof sb));
        hw_buf_printf(out, " (%s): ", sum_fig_printable(fs->type, sb, sizeof sb));
        tmem(out, fs->total_mib, u);
        hw_buf_puts(out, ", used ");
        tmem(out, fs->used_start_mib, u);
        hw_buf_puts(out, " -> ");
        tmem(out, fs->used_end_mib, u);
        hw_buf_puts(out, ", free at the end ");
        tmem(out, fs->free_end_mib, u);
        hw_buf_putc(out, '\n');
    }
    bool any_ctx = false;
    for (int k = HW_CTX_HOST + 1; k < HW_CTX_COUNT; k++) /* the host is on the machine line */
        if (run->info.ctx[k][0]) {
            hw_buf_puts(out, any_ctx ? ", " : "  job: ");
            hw_buf_printf(out, "%s ", hw_ctx_defs[k].key);
            hw_buf_printf(out, "%s", sum_fig_printable(run->info.ctx[k], sb, sizeof sb));
            any_ctx = true;
        }
    if (any_ctx)
        hw_buf_putc(out, '\n');
    if (!strcmp(run->info.sampler_role, HW_SAMPLER_SECONDARY)) {
        hw_buf_printf(out, "  GPUs: sampled for this job and node by hwmon %ld (", run->info.sampler_pid);
        hw_buf_printf(out, "%s), not in this run\n", sum_fig_printable(run->info.sampler_dir, sb, sizeof sb));
    }
    if (run->cpu[HW_CPU_COL_MEM_TOTAL].n) {
        hw_buf_puts(out, "  system memory ");
        tmem(out, max_or_nan(&run->cpu[HW_CPU_COL_MEM_TOTAL]), u);
        hw_buf_puts(out, ": used peak ");
        tmem(out, max_or_nan(&run->cpu[HW_CPU_COL_MEM_USED]), u);
        hw_buf_puts(out, ", free min ");
        tmem(out, run->cpu[HW_CPU_COL_MEM_FREE].min, u);
        hw_buf_puts(out, ", cached mean ");
        tmem(out, sum_stat_mean(&run->cpu[HW_CPU_COL_MEM_CACHED]), u);
        hw_buf_puts(out, ", anonymous (active + inactive) peak ");
        tmem(out, max_or_nan(&run->cpu[HW_CPU_COL_MEM_ACTIVE_ANON]) +
                      max_or_nan(&run->cpu[HW_CPU_COL_MEM_INACTIVE_ANON]), u);
        hw_buf_putc(out, '\n');
    }
    hw_buf_puts(out, "  GPU util mean ");
    tnum(out, sum_stat_mean(&run->all[RD_GM_UTIL]), "%");
    hw_buf_puts(out, ", peak VRAM ");
    tgmem(out, max_or_nan(&run->all[RD_GM_MEM_USED]), u);
    hw_buf_puts(out, ", power mean ");
    tnum(out, sum_stat_mean(&run->all[RD_GM_POWER]), " W");
    hw_buf_puts(out, ", CPU usr ");
    tnum(out, sum_stat_mean(&run->cpu[HW_CPU_COL_USR]), "%");
    if (run->cpu[HW_CPU_COL_SYS].n) {
        hw_buf_puts(out, " sys ");
        tnum(out, sum_stat_mean(&run->cpu[HW_CPU_COL_SYS]), "%");
    }
    hw_buf_puts(out, " idle ");
    tnum(out, sum_stat_mean(&run->cpu[HW_CPU_COL_IDLE]), "%");
    hw_buf_putc(out, '\n');
    struct sum_together_figs tg = together(run);
    if (tg.gpus > 1) {
        hw_buf_puts(out, "  all GPUs at once: memory peak ");
        tgmem(out, tg.mem_used_peak_mib, u);
        hw_buf_puts(out, " of ");
        tgmem(out, tg.mem_total_mib, u);
        hw_buf_puts(out, ", utilization summed peak ");
        tnum(out, tg.util_sum_peak_pct, "%");
        hw_buf_puts(out, " (average over the GPUs: peak ");
        tnum(out, tg.util_avg_peak_pct, "%");
        hw_buf_puts(out, ", mean ");
        tnum(out, tg.util_avg_mean_pct, "%");
        hw_buf_puts(out, "), busy GPUs up to ");
        tcount(out, tg.busy_gpus_max, "");
        hw_buf_printf(out, " of %d\n", tg.gpus);
    }
    text_fwmem(out, "  ", run, NULL, u);
    if (run->proc[HW_PROC_COL_RSS].n) {
        hw_buf_puts(out, "  process tree: peak RSS ");
        tmem(out, run->proc[HW_PROC_COL_RSS].max, u);
        if (run->proc[HW_PROC_COL_PSS].n) { /* RSS counts fork-shared pages once per process */
            hw_buf_puts(out, ", peak PSS ");
            tmem(out, run->proc[HW_PROC_COL_PSS].max, u);
        }
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_CPU]), "% of one core");
        text_cores(out, run);
        if (run->proc[HW_PROC_COL_USR_CPU].n) {
            hw_buf_puts(out, " (user ");
            tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_USR_CPU]), "%");
            hw_buf_puts(out, ", system ");
            tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_SYS_CPU]), "%)");
        }
        hw_buf_putc(out, '\n');
    }
    if (run->proc[HW_PROC_COL_MAIN_RSS].n) {
        hw_buf_puts(out, "  main process: peak RSS ");
        tmem(out, run->proc[HW_PROC_COL_MAIN_RSS].max, u);
        if (isfinite(run->info.main_peak_kernel_mib)) {
            /* wait4's ru_maxrss: the command or a child it waited for, whichever was largest */
            hw_buf_puts(out, " (the kernel's high-water mark, of it or a child it waited for: ");
            tmem(out, run->info.main_peak_kernel_mib, u);
            hw_buf_putc(out, ')');
        }
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_MAIN_CPU]), "%");
        hw_buf_printf(out, ", threads max %.0f", run->proc[HW_PROC_COL_MAIN_THREADS].max);
        hw_buf_putc(out, '\n');
    }
    text_system(out, "  ", &run->sys, run->cg_mem_max_mib, run->cg_limit_cores, u);
    if (run->gp_rows) { /* only when gpu_procs.csv was recorded */
        const char *why;
        double gm = sum_run_tree_gpu_mem_peak(run, &why);
        hw_buf_puts(out, "  process tree GPU memory peak ");
        tgmem(out, gm, u);
        if (why)
            hw_buf_printf(out, " (unmeasured: %s)", why);
        hw_buf_putc(out, '\n');
        for (size_t i = 0; i < run->npids && i < 8; i++) { /* gpu_procs.csv, every process */
            hw_buf_printf(out, "    GPU process %ld %s: peak ", run->pids[i].pid,
                          sum_fig_printable(run->pids[i].name, sb, sizeof sb));
            tgmem(out, run->pids[i].peak_mib, u);
            hw_buf_putc(out, '\n');
        }
        if (run->npids > 8)
            hw_buf_printf(out, "    ... %zu more GPU processes (JSON: process.gpu_mem_peak_by_pid)\n",
                          run->npids - 8);
    }
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        hw_buf_printf(out, "  GPU %d%s%s", gp->index, gp->uuid[0] ? " " : "",
                      sum_fig_printable(gp->uuid, sb, sizeof sb));
        if (gpu_known(run, gp->index))
            hw_buf_printf(out, " (%s)", sum_fig_printable(run->info.gpu_name[gp->index], sb,
                                                          sizeof sb));
        hw_buf_printf(out, ": %llu samples, energy ", (unsigned long long)gp->samples);
        const char *esrc;
        twh(out, sum_gpu_energy_wh(run, g, &esrc), u);
        /* which reading the energy is, and the power field's integral beside it */
        const char *pf = rd_gpu_power_field(run->info.have_fields ? run->info.gpu_fields : NULL);
        const char *rd = sum_clk_power_reading(run->clk[g], pf);
        char pfw[96] = "power";
        if (pf)
            snprintf(pfw, sizeof pfw, "%s%s", pf,
                     !rd ? "" : !strcmp(rd, "average_1s") ? ", a 1 s average" : ", instantaneous");
        if (esrc && strcmp(esrc, "integrated") != 0) {
            hw_buf_printf(out, " from %s (%s integrated: ",
                          !strcmp(esrc, "counter") ? "the energy counter" : "power.draw.instant",
                          pfw);
            twh(out, sum_gpu_energy_integrated_wh(run, g), u);
            hw_buf_putc(out, ')');
        } else if (esrc && run->clk[g] && pf) {
            hw_buf_printf(out, " from %s", pfw);
        }
        if (gp->energy.gaps)
            hw_buf_printf(out, " (%llu gaps, %.1f s not bridged)",
                          (unsigned long long)gp->energy.gaps, gp->energy.gap_s);
        hw_buf_putc(out, '\n');
        for (int m = 0; m < RD_GM_COUNT; m++)
            tstat(out, labels[m], &gp->m[m], units[m],
                  m == RD_GM_MEM_USED || m == RD_GM_MEM_TOTAL ? u : NULL);
        for (int m = 0; gp->in_gpm && m < (int)(sizeof gpm_text / sizeof gpm_text[0]); m++)
            tstat(out, gpm_text[m].label, &gp->gpm[gpm_text[m].col], "%", NULL);
        text_clocks(out, run->clk[g]);
        if (run->pm[g]) {
            const struct sum_pmon_acc *a = &run->pm[g]->acc;
            hw_buf_puts(out, "    processes (pmon): SMs used by this job ");
            tnum(out, sum_fig_mean(&a->own_sm), "%");
            hw_buf_puts(out, ", by others ");
            tnum(out, sum_fig_mean(&a->others_sm), "%");
            hw_buf_puts(out, ", by all ");
            tnum(out, sum_fig_mean(&a->all_sm), "%");
            const char *why = sum_run_pmon_unattributed(run);
            if (why)
                hw_buf_printf(out, " (whose: unknown, %s)", why);
            hw_buf_putc(out, '\n');
        }
    }
    text_phases(out, run, u);
    for (int i = 0; i < run->nhealth_warn; i++)
        hw_buf_printf(out, "  warning: %s\n", run->health_warn[i]);
    if (run->err_total) {
        hw_buf_printf(out, "  %llu error-like event%s (first: %s", (unsigned long long)run->err_total,
                      run->err_total == 1 ? "" : "s", sum_fig_printable(run->err[0].name, sb, sizeof sb));
        event_reason(out, run->err[0].data);
        hw_buf_puts(out, ")\n");
    }
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const struct rd_quality *q = &run->q[k];
        uint64_t sk = rd_quality_skipped_total(q), ph = rd_quality_placeholders_total(q);
        if (run->read_error[k][0])
            hw_buf_printf(out, "  warning: %s: %s\n", hw_file_names[k], run->read_error[k]);
        if (sk || q->partial_last || q->bad_cells)
            hw_buf_printf(out,
                          "  warning: %s: %llu of %llu lines skipped, %llu bad cells%s\n",
                          hw_file_names[k], (unsigned long long)sk,
                          (unsigned long long)q->lines, (unsigned long long)q->bad_cells,
                          q->partial_last ? ", partial last line ignored" : "");
        for (size_t i = 0; i < q->n_ranged; i++)
            hw_buf_printf(out, "  warning: %s: %s out of range %llu time%s (first %.17g, line %llu),"
                               " not counted as a reading\n",
                          hw_file_names[k], q->out_of_range[i].column,
                          (unsigned long long)q->out_of_range[i].n,
                          q->out_of_range[i].n == 1 ? "" : "s", q->out_of_range[i].value,
                          (unsigned long long)q->out_of_range[i].line);
        if (ph && !rd_kind_placeholders_normal((enum hw_file)k))
            hw_buf_printf(out, "  note: %s: %llu placeholder cells (not measured)\n",
                          hw_file_names[k], (unsigned long long)ph);
        if (q->torn)
            hw_buf_printf(out, "  warning: %s: %llu line%s cut short by a failed write (a full "
                               "disk?), the whole record after each read\n",
                          hw_file_names[k], (unsigned long long)q->torn, q->torn == 1 ? "" : "s");
    }
    if (run->info.child_restarts)
        hw_buf_printf(out, "  warning: %llu nvidia-smi child restart%s\n",
                      (unsigned long long)run->info.child_restarts,
                      run->info.child_restarts == 1 ? "" : "s");
    if (run->info.starts > 1)
        hw_buf_printf(out, "  warning: run.jsonl holds %llu hwmon runs: their figures are mixed\n",
                      (unsigned long long)run->info.starts);
}

/* ---- one row per run -------------------------------------------------------------------- */

/* The run's framework figures for a row's columns (NAN when none was logged). */
static struct sum_fwmem_fig fw_fig(const struct sum_run *run)
{
    struct sum_fwmem_fig x;
    if (!sum_fwmem_figures(run, NULL, &x))
        x = (struct sum_fwmem_fig){NAN, NAN, NAN, NAN, NAN, NAN};
    return x;
}

/* Where a row figure is shown besides what shows every one (the rows, --columns, --compare):
 * NOSHOW, or SHOW(where, the sweep page's column head, its label on the run page and in the
 * text headline). */
#define NOSHOW ((struct sum_show){0, NULL, NULL})
#define SHOW(where, head, label) ((struct sum_show){(where), (head), (label)})

/* The sweep row's columns, in order. Each is S (a string), D (a computed number: 12 digits),
 * U (a count) or I (an integer, NAN when not known), with its name, what it means, where else it
 * is shown (SHOW: the sweep page's columns and the text headline iterate those), and its value
 * (an expression of run; mu is the memory-utilization series of mem_util_stat(), mem_src the
 * source of the container's memory peak, set by the column before it); PER_IO(...) stands for
 * its columns once per disk/network counter i. CSV, JSONL and --units rows are all expanded
 * from this one list, and the arrays they fill have exactly as many places as it has columns. */
#define SWEEP_COLUMNS(S, D, U, I, PER_IO, PER_CTX)                                                 \
    S("dir", "the run directory, as given", NOSHOW,                                                \
      run->dir)                                                                                    \
    S("status", "how the run ended (outcome.c): ok, failed, killed, ...", NOSHOW,                  \
      sum_status_names[run->outcome.status])                                                       \
    I("exit_status", "the wrapped command's exit status", NOSHOW,                                  \
      run->outcome.exit_status >= 0 ? run->outcome.exit_status : NAN)                              \
    I("signal", "the signal that killed the wrapped command", NOSHOW,                              \
      run->outcome.signal ? run->outcome.signal : NAN)                                             \
    U("phases_failed", "phases logged with a failure", NOSHOW,                                     \
      run->outcome.phases_failed)                                                                  \
    S("failed_phase", "the first failed phase's name", NOSHOW,                                     \
      run->outcome.phases_failed ? run->outcome.failed_phase : NULL)                               \
    S("failed_phase_reason", "why it failed, as logged", NOSHOW,                                   \
      run->outcome.phases_failed ? run->outcome.failed_why : NULL)                                 \
    U("errors", "failed phases and error-like events together: one figure to filter a sweep on",   \
      NOSHOW,                                                                                      \
      sum_outcome_errors(&run->outcome, run->err_total))                                           \
    S("open_phase", "a phase begun and never ended (the run died in it)", NOSHOW,                  \
      run->outcome.open_phase[0] ? run->outcome.open_phase : NULL)                                 \
    D("open_phase_sec", "how long the open phase had run when the run ended", NOSHOW,              \
      open_phase_sec(&run->outcome))                                                               \
    D("outside_phases_sec", "time of the run in no phase", NOSHOW,                                 \
      round_us(run->outside_phases_s))                                                             \
    D("steps", "training steps, as the run logged them", NOSHOW,                                   \
      run->steps > 0 ? run->steps : NAN)                                                           \
    D("sec_per_step", "seconds per step", NOSHOW,                                                  \
      sum_run_sec_per_step(run))                                                                   \
    D("energy_wh_per_step", "GPU energy per step", NOSHOW,                                         \
      sum_run_energy_wh_per_step(run))                                                             \
    U("gpus", "GPUs measured", SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "GPUs", "GPUs"),                                 \
      sum_run_gpu_count(run))                                                                      \
    U("num_samples", "samples of the most sampled GPU (else of the CPU)", SHOW(SUM_SHOW_PAGE, NULL, "samples"),                  \
      sum_run_num_samples(run))                                                                    \
    D("duration_sec", "the run's length, first to last timestamp", NOSHOW,                         \
      round_us(sum_run_duration(run)))                                                             \
    D("peak_vram_mb", "highest memory.used of any GPU (pytyche's name)", NOSHOW,                   \
      max_or_nan(&run->all[RD_GM_MEM_USED]))                                                       \
    D("peak_vram_mib", "highest memory.used of any GPU",                                           \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "Peak VRAM", "peak VRAM"),                         \
      max_or_nan(&run->all[RD_GM_MEM_USED]))                                                       \
    S("framework", "the ML framework whose own memory figure the run logged", NOSHOW,              \
      run->fw.framework[0] ? run->fw.framework : NULL)                                             \
    D("framework_peak_mib", "the framework's own peak of GPU memory", SHOW(SUM_SHOW_PAGE, NULL, "framework peak"),                      \
      fw_fig(run).peak_mib)                                                                        \
    D("framework_headroom_mib", "GPU memory the framework's peak left free", SHOW(SUM_SHOW_PAGE, NULL, "GPU headroom"),               \
      fw_fig(run).headroom_mib)                                                                    \
    D("gpu_util_mean_pct", "mean utilization.gpu over every GPU sample",                           \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "GPU util", "GPU util mean"),                          \
      sum_stat_mean(&run->all[RD_GM_UTIL]))                                                        \
    D("gpu_util_max_pct", "highest utilization.gpu", SHOW(SUM_SHOW_PAGE, NULL, "GPU util max"),                                       \
      max_or_nan(&run->all[RD_GM_UTIL]))                                                           \
    D("mem_util_mean_pct",                                                                         \
      "mean memory-controller utilization (dmon's mem, else utilization.memory)", SHOW(SUM_SHOW_PAGE, NULL, "mem-ctrl util mean"),          \
      sum_stat_mean(mu))                                                                           \
    D("mem_util_max_pct", "highest memory-controller utilization", NOSHOW,                         \
      max_or_nan(mu))                                                                              \
    D("power_watts_mean", "mean power.draw over every GPU sample",                                 \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "Mean power", "power mean"),                       \
      sum_stat_mean(&run->all[RD_GM_POWER]))                                                       \
    D("power_watts_max", "highest power.draw", SHOW(SUM_SHOW_PAGE, NULL, "power max"),                                             \
      max_or_nan(&run->all[RD_GM_POWER]))                                                          \
    D("energy_wh", "GPU energy, every GPU once: NVML's counter, else power integrated over time",  \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "Energy", "energy"),                                                        \
      sum_run_energy_wh(run))                                                                      \
    D("mean_gpu_clock_mhz", "mean SM clock (calibrax's name)", SHOW(SUM_SHOW_PAGE, NULL, "SM clock mean"),                             \
      clock_mean(run))                                                                             \
    D("mean_gpu_power_w", "mean power.draw (calibrax's name)", NOSHOW,                             \
      sum_stat_mean(&run->all[RD_GM_POWER]))                                                       \
    D("peak_gpu_mem_mb", "highest memory.used (calibrax's name)", NOSHOW,                          \
      max_or_nan(&run->all[RD_GM_MEM_USED])) /* calibrax's, as in JSON */                          \
    D("mean_gpu_util", "mean utilization.gpu (calibrax's name)", NOSHOW,                           \
      sum_stat_mean(&run->all[RD_GM_UTIL]))                                                        \
    D("cpu_usr_mean_pct", "mean user CPU of the machine (or its cgroup)", SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "CPU usr", "CPU usr mean"),                                                                            \
      sum_stat_mean(&run->cpu[HW_CPU_COL_USR]))                                                    \
    D("cpu_idle_mean_pct", "mean idle CPU of the machine", SHOW(SUM_SHOW_PAGE, NULL, "CPU idle mean"),                                 \
      sum_stat_mean(&run->cpu[HW_CPU_COL_IDLE]))                                                   \
    D("peak_rss_mb", "highest RSS of the job's process tree, each process counted whole",          \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_JOB | SUM_SHOW_PAGE, "Peak RSS", "process peak RSS"),                            \
      max_or_nan(&run->proc[HW_PROC_COL_RSS]))                                                     \
    D("mean_rss_mb", "mean RSS of the job's process tree", SHOW(SUM_SHOW_PAGE, NULL, "process mean RSS"),                                 \
      sum_stat_mean(&run->proc[HW_PROC_COL_RSS]))                                                  \
    D("memory_growth_mb", "RSS at the end minus at the start", SHOW(SUM_SHOW_PAGE, NULL, "process RSS growth"),                             \
      growth(&run->proc[HW_PROC_COL_RSS]))                                                         \
    D("gpu_mem_peak_mib", "highest GPU memory of the job's own processes (gpu_procs.csv)", SHOW(SUM_SHOW_PAGE, NULL, "process GPU memory peak"), \
      sum_run_tree_gpu_mem_peak(run, NULL))                                                        \
    D("proc_cpu_mean_pct", "mean CPU of the job's process tree, in % of one core",                 \
      SHOW(SUM_SHOW_HEAD_JOB | SUM_SHOW_PAGE, NULL, "process CPU mean"),                                                   \
      sum_stat_mean(&run->proc[HW_PROC_COL_CPU])) /* of one core */                                \
    D("expected_cores",                                                                            \
      "the cores the job was given (--cores, the cgroup's quota, else the affinity)", NOSHOW,      \
      sum_run_expected_cores(run, NULL))                                                           \
    S("expected_cores_source", "where expected_cores comes from", NOSHOW,                          \
      cores_src)                                                                                   \
    D("proc_cpu_mean_pct_of_cores", "the tree's mean CPU in % of expected_cores", NOSHOW,          \
      cpu_of_cores(run, sum_stat_mean(&run->proc[HW_PROC_COL_CPU])))                               \
    /* the tracked process alone and the tree's user/system split (proc_metrics.csv) */            \
    D("main_peak_rss_mib", "highest RSS of the main process alone", SHOW(SUM_SHOW_PAGE, NULL, "main process peak RSS"),                        \
      max_or_nan(&run->proc[HW_PROC_COL_MAIN_RSS]))                                                \
    D("main_peak_rss_kernel_mib", "the kernel's peak RSS of the main process (ru_maxrss)", NOSHOW, \
      run->info.main_peak_kernel_mib)                                                              \
    D("peak_pss_mib", "highest PSS of the tree: forked workers' shared pages counted once",        \
      NOSHOW,                                                                                      \
      max_or_nan(&run->proc[HW_PROC_COL_PSS])) /* shared pages once, workers too */                \
    D("main_cpu_mean_pct", "mean CPU of the main process alone, in % of one core", SHOW(SUM_SHOW_PAGE, NULL, "main process CPU mean"),         \
      sum_stat_mean(&run->proc[HW_PROC_COL_MAIN_CPU]))                                             \
    D("main_threads_max", "most threads of the main process", SHOW(SUM_SHOW_PAGE, NULL, "main process threads max"),                              \
      max_or_nan(&run->proc[HW_PROC_COL_MAIN_THREADS]))                                            \
    D("usr_cpu_mean_pct", "the tree's mean user CPU, in % of one core", NOSHOW,                    \
      sum_stat_mean(&run->proc[HW_PROC_COL_USR_CPU]))                                              \
    D("sys_cpu_mean_pct", "the tree's mean system CPU, in % of one core", NOSHOW,                  \
      sum_stat_mean(&run->proc[HW_PROC_COL_SYS_CPU]))                                              \
    /* disks, network, free space, the container (system.h) */                                     \
    PER_IO(D(sum_io_mib_keys[i], sum_io_mib_what[i], SHOW(SUM_SHOW_PAGE, NULL, sum_io_mib_words[i]), sum_system_mib(&run->sys, i))         \
               D(sum_io_peak_keys[i], sum_io_peak_what[i], SHOW(SUM_SHOW_PAGE, NULL, sum_io_peak_words[i]),                                 \
                 sum_system_peak_mib_s(&run->sys, i)))                                             \
    D("fs_free_min_mib", "least free space on the run directory's file system", SHOW(SUM_SHOW_PAGE, NULL, "free space min"),            \
      run->sys.fs_free_min_mib)                                                                    \
    D("container_mem_peak_mib",                                                                    \
      "the container's memory peak (the kernel's, else the highest sample)", SHOW(SUM_SHOW_PAGE, NULL, "cgroup memory peak"),               \
      sum_system_mem_peak(&run->sys, &mem_src))                                                    \
    S("container_mem_peak_source", "where container_mem_peak_mib comes from", NOSHOW,              \
      mem_src)                                                                                     \
    D("container_mem_max_mib", "the container's memory limit", SHOW(SUM_SHOW_PAGE, NULL, "cgroup memory limit"),                             \
      run->cg_mem_max_mib)                                                                         \
    D("container_cpu_limit_cores", "the container's CPU limit in cores", SHOW(SUM_SHOW_PAGE, NULL, "cgroup CPU limit"),                   \
      run->cg_limit_cores)                                                                         \
    U("phases", "phase entries logged", NOSHOW,                                                    \
      phases_total(run))                                                                           \
    U("events", "events logged", NOSHOW,                                                           \
      events_total(run))                                                                           \
    U("error_events", "error-like events logged", NOSHOW,                                          \
      run->err_total)                                                                              \
    U("child_restarts", "restarts of nvidia-smi children", NOSHOW,                                 \
      run->info.child_restarts)                                                                    \
    U("lines_skipped", "lines that could not be read, every file together", NOSHOW,                \
      total_skipped(run))                                                                          \
    U("partial_last_lines", "files that end inside a line (not yet written)", NOSHOW,              \
      total_partial(run))                                                                          \
    U("placeholders", "cells nvidia-smi left unmeasured ([N/A], -)", NOSHOW,                       \
      total_placeholders(run))                                                                     \
    S("time_zone", "the zone of nvidia-smi's timestamps", NOSHOW,                                  \
      run->tz.name)                                                                                \
    S("time_zone_source", "where time_zone comes from", NOSHOW,                                    \
      tz_source_name(run->tz_source))                                                              \
    /* added later: new columns go at the end, so that column positions stay */                    \
    D("machine_cpus", "CPUs of the machine", NOSHOW,                                               \
      run->info.cpus)                                                                              \
    D("machine_gpus", "GPUs of the machine", NOSHOW,                                               \
      run->info.gpus)                                                                              \
    D("gpus_mem_used_peak_mib", "highest memory.used of every GPU together at one instant",        \
      NOSHOW,                                                                                      \
      tg.mem_used_peak_mib)                                                                        \
    D("gpus_mem_total_mib", "memory of every GPU together", NOSHOW,                                \
      tg.mem_total_mib)                                                                            \
    D("gpus_util_sum_peak_pct", "highest sum of every GPU's utilization at one instant", NOSHOW,   \
      tg.util_sum_peak_pct)                                                                        \
    D("gpus_busy_max", "most GPUs busy at one instant", NOSHOW,                                    \
      tg.busy_gpus_max)                                                                            \
    PER_CTX(S(ctx_cols[i], "where the run ran, as its scheduler or launcher says (context)",       \
      NOSHOW,                                                                                      \
              run->info.ctx[i][0] ? run->info.ctx[i] : NULL))                                      \
    /* why the GPUs were slow, whether they were healthy (hw_health.csv, clocks.h) */              \
    D("gpu_power_capped_pct",                                                                      \
      "share of the GPUs' covered time under a power cap (hw_health.csv)", NOSHOW,                 \
      clk.power_pct)                                                                               \
    D("gpu_thermal_pct", "share of the GPUs' covered time slowed for heat", NOSHOW,                \
      clk.thermal_pct)                                                                             \
    D("gpu_sm_clock_pct_of_max", "mean SM clock in % of its maximum", NOSHOW,                      \
      clk.sm_pct_of_max)                                                                           \
    S("gpu_clock_source", "whether the throttle seconds come from counters or the bitmask",        \
      NOSHOW,                                                                                      \
      clk.source)                                                                                  \
    I("health_warnings", "health warnings (ECC errors, pending retirements, a degraded link, "     \
      "energy counter against power)", NOSHOW,                                                     \
        have_clk || run->nhealth_warn ? run->nhealth_warn : NAN)                                   \
    S("health_warning", "the first health warning", NOSHOW,                                        \
      run->nhealth_warn ? run->health_warn[0] : NULL)                                              \
    /* the job's processes' share of the GPUs and the others' (hw_pmon.csv) */                     \
    D("gpu_own_sm_mean_pct", "the job's own processes' mean SM share of the GPUs (hw_pmon.csv)",   \
      NOSHOW,                                                                                      \
      have_pm ? sum_fig_mean(&pm.own_sm) : NAN)                                                    \
    D("gpu_others_sm_mean_pct", "other processes' mean SM share of the same GPUs", NOSHOW,         \
      have_pm ? sum_fig_mean(&pm.others_sm) : NAN)                                                 \
    D("proc_threads_max", "most threads of the job's process tree at one sample",                 \
      SHOW(SUM_SHOW_PAGE, NULL, "process threads max"),                                            \
      max_or_nan(&run->proc[HW_PROC_COL_THREADS]))                                                 \
    D("step_phase_sec_per_step",                                                                   \
      "seconds per step inside the phases that did the steps (evals and checkpoints between "     \
      "them left out)",                                                                            \
      SHOW(SUM_SHOW_PAGE, NULL, "seconds per step in step phases"),                                \
      round_us(sum_run_step_phase_sec_per_step(run)))

/* The table's per-counter and per-context columns, as the expansions that run over a run (or
 * over none) write them out. */
#define ROW_PER_IO(cols)                                                                           \
    for (int i = 0; i < SUM_IO_COUNT; i++) {                                                      \
        cols                                                                                       \
    }
#define ROW_PER_CTX(cols)                                                                          \
    for (int i = 0; i < HW_CTX_COUNT; i++) {                                                      \
        cols                                                                                       \
    }

#define COL_ONE(nm, what, show, v) +1
#define COL_PER_IO(cols) +SUM_IO_COUNT * (0 cols)
#define COL_PER_CTX(cols) +HW_CTX_COUNT * (0 cols)
enum { SWEEP_NCOLS = 0 SWEEP_COLUMNS(COL_ONE, COL_ONE, COL_ONE, COL_ONE, COL_PER_IO, COL_PER_CTX) };
#undef COL_ONE
#undef COL_PER_IO
#undef COL_PER_CTX

/* job.KEY: the sweep-row column of each context key (hw_ctx_defs), made once */
static char ctx_cols[HW_CTX_COUNT][64];
static pthread_once_t ctx_cols_once = PTHREAD_ONCE_INIT;

static void make_ctx_cols(void)
{
    for (int k = 0; k < HW_CTX_COUNT; k++)
        snprintf(ctx_cols[k], sizeof ctx_cols[k], "job.%s", hw_ctx_defs[k].key);
}

static size_t flat_cols(const struct sum_run *run, struct sum_col c[SWEEP_NCOLS])
{
    const char *mu_src, *cores_src, *mem_src = NULL;
    const struct sum_stat *mu = mem_util_stat(run, &mu_src);
    sum_run_expected_cores(run, &cores_src);
    size_t n = 0;
#define S(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_STR, v, 0, 0};
#define D(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_NUM, NULL, v, 0};
#define U(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_U64, NULL, 0, v};
#define I(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_INT, NULL, v, 0};
    pthread_once(&ctx_cols_once, make_ctx_cols);
    const struct sum_together_figs tg = together(run); /* once for the row's columns */
    struct sum_clk_figs clk;
    bool have_clk = sum_run_clocks(run, &clk);
    struct sum_pmon_acc pm;
    bool have_pm = sum_run_pmon(run, &pm);
    SWEEP_COLUMNS(S, D, U, I, ROW_PER_IO, ROW_PER_CTX)
#undef S
#undef D
#undef U
#undef I
    return n;
}

/* Each column's name, what it means and where it is shown, without a run. */
static size_t col_shows(const char *names[SWEEP_NCOLS], const char *whats[SWEEP_NCOLS],
                        struct sum_show shows[SWEEP_NCOLS])
{
    pthread_once(&ctx_cols_once, make_ctx_cols);
    size_t n = 0;
#define X(nm, what, show, v) (names[n] = (nm), whats[n] = (what), shows[n++] = show);
    SWEEP_COLUMNS(X, X, X, X, ROW_PER_IO, ROW_PER_CTX)
#undef X
    return n;
}

void sum_fig_text(struct hw_buf *out, const char *key, double v, const struct sum_units *u)
{
    size_t stem;
    bool rate;
    int d = sum_column_dim(key, &stem, &rate);
    if (d >= 0 && !rate) {
        sum_units_fmt(out, v, (enum sum_dim)d, u);
        return;
    }
    char ub[32], unit[40];
    const char *un = sum_column_unit(u, key, ub, sizeof ub);
    snprintf(unit, sizeof unit, "%s%s", *un && strcmp(un, "%") ? " " : "", un);
    tnum(out, v, unit);
}

void sum_report_shown(const struct sum_run *run, unsigned where, sum_show_fn *fn, void *ctx)
{
    const char *names[SWEEP_NCOLS], *whats[SWEEP_NCOLS];
    struct sum_show shows[SWEEP_NCOLS];
    struct sum_col c[SWEEP_NCOLS];
    size_t n = col_shows(names, whats, shows);
    if (run)
        (void)flat_cols(run, c);
    for (size_t i = 0; i < n; i++) {
        if (!(shows[i].where & where))
            continue;
        double v = !run                          ? NAN
                   : c[i].type == SUM_COL_U64    ? (double)c[i].u
                   : c[i].type == SUM_COL_STR    ? NAN /* no string is shown as a number */
                                                 : c[i].d;
        fn(ctx, names[i], whats[i], &shows[i], v);
    }
}

/* summary.json's headline figures are the sweep row's, by key, computed once in its table:
 * pytyche's keys (same names and meaning), then calibrax's, then ours, in the order those
 * documents have them; edge_samples and the framework's memory object sit between. */
static void json_row_keys(struct hw_json *w, const struct sum_col *c, size_t nc,
                          const char *const *keys, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        size_t i = 0;
        while (i < nc && strcmp(c[i].name, keys[k]))
            i++;
        if (i == nc) /* not a row figure: a mistake of this table, said in the document */
            hw_json_null(w, keys[k]);
        else if (c[i].type == SUM_COL_U64)
            hw_json_u64(w, keys[k], c[i].u);
        else
            hw_json_num(w, keys[k], c[i].d);
    }
}

static void json_headline(struct hw_json *w, const struct sum_run *run)
{
    static const char *const pytyche_calibrax[] = {
        "peak_vram_mb",     "gpu_util_mean_pct", "gpu_util_max_pct",  "mem_util_mean_pct",
        "mem_util_max_pct", "power_watts_mean",  "power_watts_max",   "cpu_usr_mean_pct",
        "cpu_idle_mean_pct", "peak_rss_mb",      "mean_rss_mb",       "memory_growth_mb",
        "num_samples"};
    static const char *const steps_and_calibrax[] = {
        "duration_sec",       "outside_phases_sec", "steps",           "sec_per_step",
        "energy_wh_per_step", "mean_gpu_clock_mhz", "mean_gpu_power_w", "peak_gpu_mem_mb",
        "mean_gpu_util",      "peak_vram_mib"};
    static const char *const energy[] = {"energy_wh"};
    struct sum_col c[SWEEP_NCOLS];
    size_t nc = flat_cols(run, c);
    json_row_keys(w, c, nc, pytyche_calibrax, HW_ARRAY_SIZE(pytyche_calibrax));
    hw_json_u64(w, "edge_samples", run->edge_rows);
    json_row_keys(w, c, nc, steps_and_calibrax, HW_ARRAY_SIZE(steps_and_calibrax));
    json_fwmem(w, run, NULL);
    json_row_keys(w, c, nc, energy, HW_ARRAY_SIZE(energy));
}

void sum_report_columns(const struct sum_units *u, struct hw_buf *out)
{
    pthread_once(&ctx_cols_once, make_ctx_cols);
    hw_buf_puts(out, "column\ttype\tunit\tdescription\n");
    char renamed[SWEEP_NCOLS][SUM_COL_NAME], unit[32];
    const char *shown[SWEEP_NCOLS];
    size_t n = 0;
    /* a name --units gives twice (peak_vram_mb, peak_vram_mib) is the row's once, as there */
#define ROW(nm, type, what)                                                                        \
    do {                                                                                           \
        const char *name = nm;                                                                     \
        bool dup = false;                                                                          \
        if (sum_units_column(u, name, renamed[n], sizeof renamed[n]) >= 0) {                       \
            for (size_t k = 0; k < n && !dup; k++)                                                 \
                dup = !strcmp(shown[k], renamed[n]);                                               \
            name = renamed[n];                                                                     \
        }                                                                                          \
        if (!dup) {                                                                                \
            hw_buf_printf(out, "%s\t%s\t%s\t%s\n", name, type,                                     \
                          sum_column_unit(u, nm, unit, sizeof unit), what);                        \
            shown[n++] = name;                                                                     \
        }                                                                                          \
    } while (0);
#define S(nm, what, show, v) ROW(nm, "text", what)
#define D(nm, what, show, v) ROW(nm, "number", what)
#define U(nm, what, show, v) ROW(nm, "integer", what)
#define I(nm, what, show, v) ROW(nm, "integer", what)
    SWEEP_COLUMNS(S, D, U, I, ROW_PER_IO, ROW_PER_CTX)
#undef S
#undef D
#undef U
#undef I
#undef ROW
}

void sum_report_param_name(const struct sum_param *p, struct hw_buf *out)
{
    hw_buf_puts(out, p->metric ? "metric." : "param.");
    hw_buf_puts(out, p->key);
}

void sum_report_param_csv_cell(const struct sum_param *p, struct hw_buf *out)
{
    sum_csv_cell(out, param_text(p, false));
}

const char *sum_report_param_json(const struct sum_param *p)
{
    return param_text(p, true);
}

static size_t row_cols(const struct sum_run *run, const struct sum_units *u, struct sum_col *c,
                       char (*names)[SUM_COL_NAME])
{
    return sum_cols_units(c, flat_cols(run, c), u, names);
}

/* The per-phase-name columns: phase.NAME.count, .total_sec, .mean_sec, .energy_wh,
 * .gpu_util_mean_pct, .peak_vram_mib (names and values in --units). */
static void phase_figures(const struct sum_run *run, const struct sum_units *u,
                          sum_figure_fn *fn, void *ctx)
{
    const struct sum_names *s = &run->names;
    for (size_t i = 0; i < s->n; i++) {
        const struct sum_name_acc *a = &s->v[i];
        const struct {
            const char *key;
            double v;
            bool integer;
        } f[] = {
            {"count", (double)a->count, true},
            {"total_sec", round_us(a->timed ? a->d_sum : NAN), false},
            {"mean_sec", round_us(sum_name_mean_s(a)), false},
            {"energy_wh", sum_name_energy_wh(a), false},
            {"gpu_util_mean_pct", sum_stat_mean(&a->util), false},
            {"peak_vram_mib", max_or_nan(&a->mem_used), false},
        };
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
            char name[512], un[560];
            snprintf(name, sizeof name, "phase.%s.%s", a->name, f[k].key);
            int d = sum_units_column(u, name, un, sizeof un);
            fn(ctx, d >= 0 ? un : name, d >= 0 ? sum_units_value(u, (enum sum_dim)d, f[k].v) : f[k].v,
               f[k].integer);
        }
    }
}

void sum_report_figures(const struct sum_run *run, const struct sum_units *u, bool row,
                        bool phases, sum_figure_fn *fn, void *ctx)
{
    if (row) {
        struct sum_col c[SWEEP_NCOLS];
        char names[SWEEP_NCOLS][SUM_COL_NAME];
        size_t n = row_cols(run, u, c, names);
        for (size_t i = 0; i < n; i++)
            if (c[i].type != SUM_COL_STR)
                fn(ctx, c[i].name, c[i].type == SUM_COL_U64 ? (double)c[i].u : c[i].d,
                   c[i].type != SUM_COL_NUM);
    }
    if (phases)
        phase_figures(run, u, fn, ctx);
}

void sum_report_cell(struct hw_buf *out, double v, bool integer)
{
    if (!isfinite(v))
        return;
    if (integer)
        hw_buf_printf(out, "%.0f", v);
    else
        hw_buf_json_num(out, v, HW_NUM_SIG12);
}

void sum_report_csv_header(struct hw_buf *out)
{
    sum_report_csv_header_u(NULL, out);
}

void sum_report_csv_header_u(const struct sum_units *u, struct hw_buf *out)
{
    struct sum_run *empty = sum_run_new();
    if (!empty)
        return;
    struct sum_col c[SWEEP_NCOLS];
    char names[SWEEP_NCOLS][SUM_COL_NAME];
    sum_cols_csv_header(c, row_cols(empty, u, c, names), out);
    sum_run_free(empty);
}

void sum_report_csv_row(const struct sum_run *run, struct hw_buf *out)
{
    sum_report_csv_row_u(run, NULL, out);
}

void sum_report_csv_row_u(const struct sum_run *run, const struct sum_units *u,
                          struct hw_buf *out)
{
    struct sum_col c[SWEEP_NCOLS];
    char names[SWEEP_NCOLS][SUM_COL_NAME];
    sum_cols_csv(c, row_cols(run, u, c, names), out);
}

struct cols_out {
    struct hw_buf *names, *cells;
    size_t n;
};

static void csv_extra(void *ctx, const char *name, double v, bool integer)
{
    struct cols_out *o = ctx;
    sum_csv_cell(o->names, name);
    hw_buf_putc(o->names, '\0');
    sum_report_cell(o->cells, v, integer);
    hw_buf_putc(o->cells, '\0');
    o->n++;
}

size_t sum_report_phase_csv(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *names, struct hw_buf *cells)
{
    struct cols_out o = {names, cells, 0};
    phase_figures(run, u, csv_extra, &o);
    return o.n;
}

static void jsonl_extra(void *ctx, const char *name, double v, bool integer)
{
    struct hw_json *w = ctx;
    hw_json_key(w, name);
    if (isfinite(v))
        sum_report_cell(w->b, v, integer);
    else
        hw_buf_puts(w->b, "null");
}

void sum_report_jsonl_row(const struct sum_run *run, struct hw_buf *out)
{
    sum_report_jsonl_row_u(run, NULL, out);
}

void sum_report_jsonl_row_u(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *out)
{
    struct sum_col c[SWEEP_NCOLS];
    char names[SWEEP_NCOLS][SUM_COL_NAME];
    size_t n = row_cols(run, u, c, names);
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_LINE, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    sum_cols_json(c, n, &w);
    for (size_t i = 0; i < run->nparams; i++) {
        struct hw_buf k;
        hw_buf_init(&k, NULL, 0);
        sum_report_param_name(&run->params[i], &k);
        hw_json_raw(&w, k.p ? k.p : "", sum_report_param_json(&run->params[i]));
        hw_buf_free(&k);
    }
    phase_figures(run, u, jsonl_extra, &w);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}
