/* summary.json: the whole summary as one pretty JSON document, in the one JSON writer
 * (hwrun/jsonw.h); its schema is documented in summarize.1. */
#include "report.h"
#include "row.h"

#include <json-c/json.h>
#include <errno.h>
#include <limits.h>
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

/* The disks, network and free space of a run or a phase (system.h), the same keys in both. */
static void json_system(struct hw_json *w, const struct sum_system *sys)
{
    hw_json_open(w, "system", '{');
    for (int i = 0; i < SUM_IO_COUNT; i++) {
        hw_json_num(w, sum_io_defs[i].mib_key, sum_system_mib(sys, i));
        hw_json_num(w, sum_io_defs[i].peak_key, sum_system_peak_mib_s(sys, i));
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
    hw_json_pid(w, "pid", i->sampler_pid);
    hw_json_str(w, "dir", i->sampler_dir);
    if (isfinite(i->t_sampler)) { /* this run took the sampler over (a gpu_sampler event) */
        hw_json_open(w, "took_over", '{');
        sum_fig_json_time(w, "at", i->t_sampler);
        hw_json_pid(w, "previous_pid", i->sampler_prev_pid);
        hw_json_str(w, "previous_dir", i->sampler_prev_dir[0] ? i->sampler_prev_dir : NULL);
        hw_json_close(w);
    } else {
        hw_json_null(w, "took_over");
    }
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

static void json_gpu_metrics(struct hw_json *w, const struct sum_stat *m)
{
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
        if (!(hw_gpu_figs[k].flags & HW_GF_WHEN_SEEN) || m[k].n)
            json_stat(w, hw_gpu_figs[k].key, &m[k]);
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
    hw_json_num(w, "covered_sec", sum_fig_round_us(f.covered_s));
    for (int k = 0; k < SUM_CLK_COUNT; k++)
        hw_json_num(w, sum_clk_keys[k], sum_fig_round_us(f.s[k]));
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
    /* hw_metrics.csv's figures a board may not have (a fan) that it answered [N/A] for, by
     * key: how many rows; normal, so no placeholders */
    if (k == HW_FILE_GPU) {
        hw_json_open(w, "not_reported", '{');
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
            if (q->not_reported[m])
                hw_json_u64(w, hw_gpu_figs[m].key, q->not_reported[m]);
        hw_json_close(w);
    }
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
        hw_json_num(w, "max", sum_fig_max(iv));
        hw_json_close(w);
        hw_json_u64(w, "gaps", sum_run_file_gaps(run, (enum hw_file)k));
    }
    hw_json_close(w);
}

/* What a phase entry (in full or in brief) says first: its name and when. */
static void json_phase_head(struct hw_json *w, const char *name, double t0, double t1,
                            uint64_t line)
{
    hw_json_str(w, "name", name);
    sum_fig_json_time(w, "start", t0);
    sum_fig_json_time(w, "end", t1);
    hw_json_num(w, "seconds", sum_fig_round_us(t1 - t0));
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
/* A phase in brief: where and how it ran, one line per phase (a run logs one per step). */
static void json_phase_brief(struct hw_json *w, const char *name, double t0, double t1,
                             uint64_t line, int exit_status, int sig, bool failed, bool open)
{
    json_phase_head(w, name, t0, t1, line);
    json_phase_outcome(w, exit_status, sig, failed, open);
    hw_json_bool(w, "brief", true);
}

/* Why an entry was kept past the listing's limit: "kept": ["first", "slowest"]. */
static void json_kept(struct hw_json *w, unsigned kept)
{
    hw_json_open_flat(w, "kept", '[');
    for (int k = 0; k < SUM_KEEP_COUNT; k++)
        if (kept & (1u << k))
            hw_json_str(w, NULL, sum_kept_names[k]);
    hw_json_close(w);
}

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

/* "notes": the verdicts (verdicts.h), warnings first: each with its rule's id, the threshold it
 * crossed and the rule's source, the evidence as figures; "notes_not_judged": the rules that
 * lacked data, and why. */
static void json_notes(struct hw_json *w, const struct sum_run *run)
{
    const struct sum_verdicts *vs = run->verdicts;
    if (!vs) {
        hw_json_null(w, "notes");
        hw_json_null(w, "notes_not_judged");
        return;
    }
    hw_json_open(w, "notes", '[');
    for (size_t i = 0; i < vs->n; i++) {
        const struct sum_verdict *v = &vs->v[i];
        const struct sum_rule *r = &sum_rules[v->rule];
        hw_json_open(w, NULL, '{');
        hw_json_str(w, "id", r->id);
        hw_json_str(w, "severity", sum_severity_names[v->sev]);
        hw_json_str(w, "grade", v->grade);
        if (v->gpu >= 0)
            hw_json_u64(w, "gpu", (uint64_t)v->gpu);
        else
            hw_json_null(w, "gpu");
        hw_json_str(w, "phase", v->phase[0] ? v->phase : NULL);
        hw_json_str(w, "text", v->text);
        hw_json_open(w, "evidence", '{');
        for (int k = 0; k < v->nev; k++)
            hw_json_num(w, v->ev[k].key, v->ev[k].v);
        hw_json_close(w);
        if (r->thr[v->thr].key && v->rule != SUM_RULE_DATA_MISSING) {
            hw_json_open(w, "threshold", '{');
            hw_json_str(w, "key", r->thr[v->thr].key);
            if (r->thr[v->thr].sdef)
                hw_json_str(w, "value", sum_rule_thr_str(run->cfg ? run->cfg->rules : NULL,
                                                         v->rule, v->thr));
            else
                hw_json_num(w, "value", sum_rule_thr(run->cfg ? run->cfg->rules : NULL, v->rule,
                                                     v->thr));
            hw_json_str(w, "unit", r->thr[v->thr].unit);
            hw_json_close(w);
        } else {
            hw_json_null(w, "threshold");
        }
        hw_json_str(w, "source", r->source);
        hw_json_close(w);
    }
    hw_json_close(w);
    hw_json_open(w, "notes_not_judged", '{');
    for (int r = 0; r < SUM_RULE_COUNT; r++)
        if (vs->missing[r][0])
            hw_json_str(w, sum_rules[r].id, vs->missing[r]);
    hw_json_close(w);
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
        hw_json_str(w, "stop_cause", o->stop_cause[0] ? o->stop_cause : NULL);
    } else {
        hw_json_null(w, "stop_signal");
        hw_json_null(w, "stop_signal_from");
        hw_json_null(w, "stop_signal_sender");
        hw_json_null(w, "stop_cause");
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
    hw_json_num(w, "open_phase_sec", sum_fig_open_phase_sec(o));
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
        hw_json_num(w, "total", sum_fig_round_us(a->timed ? a->d_sum : NAN));
        hw_json_num(w, "mean", sum_fig_round_us(sum_name_mean_s(a)));
        hw_json_num(w, "min", sum_fig_round_us(a->timed ? a->d_min : NAN));
        hw_json_num(w, "max", sum_fig_round_us(a->timed ? a->d_max : NAN));
        hw_json_num(w, "std", sum_fig_round_us(sum_name_std_s(a)));
        hw_json_close(w);
        hw_json_num(w, "span_sec", sum_fig_round_us(a->timed ? a->span_s : NAN));
        double wh = sum_name_energy_wh(run, a);
        hw_json_num(w, "energy_wh", wh);
        hw_json_num(w, "co2e_g", sum_fig_co2e_g(run, wh));
        hw_json_num(w, "energy_cost", sum_fig_energy_cost(run, wh));
        hw_json_num(w, "gpu_util_mean_pct", sum_stat_mean(&a->util));
        hw_json_num(w, "gpu_util_max_pct", sum_fig_max(&a->util));
        hw_json_num(w, "peak_vram_mib", sum_fig_max(&a->mem_used));
        hw_json_num(w, "power_watts_mean", sum_stat_mean(&a->power));
        hw_json_num(w, "cpu_usr_mean_pct", sum_stat_mean(&a->cpu_usr));
        hw_json_num(w, "proc_cpu_mean_pct", sum_stat_mean(&a->proc_cpu));
        hw_json_num(w, "proc_peak_rss_mib", sum_fig_max(&a->proc_rss));
        hw_json_num(w, "proc_mean_rss_mib", sum_stat_mean(&a->proc_rss));
        hw_json_close(w);
    }
    hw_json_close(w);
    if (s->names_dropped)
        hw_json_u64(w, "phase_names_not_summarized", s->names_dropped);
    if (s->windows_dropped)
        hw_json_u64(w, "phase_windows_not_measured", s->windows_dropped);
}

static void json_cores(struct hw_json *w, const struct sum_run *run)
{
    const char *src;
    hw_json_num(w, "cpu_mean_pct", sum_stat_mean(&run->proc[HW_PROC_COL_CPU])); /* of one core */
    hw_json_num(w, "expected_cores", sum_run_expected_cores(run, &src));
    hw_json_str(w, "expected_cores_source", src);
    hw_json_num(w, "cpu_mean_pct_of_cores",
                sum_fig_cpu_of_cores(run, sum_stat_mean(&run->proc[HW_PROC_COL_CPU])));
    hw_json_num(w, "cpu_max_pct_of_cores",
                sum_fig_cpu_of_cores(run, sum_fig_max(&run->proc[HW_PROC_COL_CPU])));
}

/* summary.json's headline figures are the sweep row's, computed once in its table, where each
 * entry that is one says its place (report_rows.c, JSON(place, ...)): pytyche's keys (same names
 * and meaning), then calibrax's, then ours, in the order those documents have them. These
 * members that are not row columns sit at their places between; every place from 1 to the
 * last is taken once (test_summarize.outputs.headline_keys_resolve). */
const struct sum_json_head sum_json_extra[] = {
    {14, "edge_samples", SUM_JSON_HEAD_EDGES},
    {25, "framework_memory", SUM_JSON_HEAD_FWMEM},
    {27, "energy_covered_sec", SUM_JSON_HEAD_COVERED},
};
const size_t sum_json_nextra = HW_ARRAY_SIZE(sum_json_extra);

static void json_headline(struct hw_json *w, const struct sum_run *run)
{
    unsigned at = 1;
    for (size_t i = 0; i < sum_json_nextra; i++) {
        const struct sum_json_head *h = &sum_json_extra[i];
        sum_report_row_json(w, run, at, h->place); /* the row's columns before it */
        at = h->place + 1;
        if (h->kind == SUM_JSON_HEAD_EDGES) {
            hw_json_u64(w, h->key, run->edge_rows);
        } else if (h->kind == SUM_JSON_HEAD_COVERED) {
            double covered; /* of the run's span, as a phase's */
            (void)sum_run_energy_partly(run, &covered);
            hw_json_num(w, h->key, sum_fig_round_us(covered));
        } else {
            json_fwmem(w, run, NULL);
        }
    }
    sum_report_row_json(w, run, at, UINT_MAX);
}

void sum_report_json(const struct sum_run *run, struct hw_buf *out)
{
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_PRETTY, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    hw_json_str(&w, "schema", "hwrun.summary/1");
    hw_json_str(&w, "tool", "summarize (hwrun) " HWRUN_VERSION);
    hw_json_str(&w, "dir", run->dir);
    json_outcome(&w, run);
    json_notes(&w, run);
    hw_json_open(&w, "params", '{'); /* the data of the params events (--params, default config) */
    for (size_t i = 0; i < run->nparams; i++)
        if (!run->params[i].metric)
            hw_json_raw(&w, run->params[i].key, sum_fig_param_text(&run->params[i], true));
    hw_json_close(&w);
    hw_json_open(&w, "metrics", '{'); /* what the job logged about itself: the last values */
    for (size_t i = 0; i < run->nparams; i++)
        if (run->params[i].metric)
            hw_json_raw(&w, run->params[i].key, sum_fig_param_text(&run->params[i], true));
    hw_json_close(&w);
    /* the headline figures: the sweep row's (json_headline) */
    const char *mu_src;
    (void)sum_fig_mem_util(run, &mu_src);
    json_headline(&w, run);
    hw_json_str(&w, "mem_util_source", mu_src);
    /* the energy's emissions and cost, at the intensity and price given (null: not given) */
    hw_json_open(&w, "carbon", '{');
    double cg = run->cfg ? run->cfg->carbon_g_per_kwh : 0, pr = run->cfg ? run->cfg->price_per_kwh : 0;
    hw_json_num(&w, "intensity_g_per_kwh", cg > 0 ? cg : NAN);
    hw_json_num(&w, "co2e_g", sum_fig_co2e_g(run, sum_run_energy_wh(run)));
    hw_json_num(&w, "price_per_kwh", pr > 0 ? pr : NAN);
    hw_json_num(&w, "energy_cost", sum_fig_energy_cost(run, sum_run_energy_wh(run)));
    hw_json_close(&w);
    double t0 = NAN, t1 = NAN;
    if (!sum_run_span(run, &t0, &t1))
        t0 = t1 = NAN;
    sum_fig_json_time(&w, "start", t0);
    sum_fig_json_time(&w, "end", t1);
    hw_json_open(&w, "time_zone", '{');
    hw_json_str(&w, "zone", run->tz.name);
    hw_json_str(&w, "source", sum_fig_tz_source(run->tz_source));
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
        hw_json_str(&w, "name",
                    sum_fig_gpu_known(run, gp->index) ? run->info.gpu_name[gp->index] : NULL);
        hw_json_str(&w, "vendor",
                    sum_fig_gpu_known(run, gp->index) ? run->info.gpu_vendor[gp->index] : NULL);
        hw_json_u64(&w, "samples", gp->samples);
        if (gp->fault_rows) { /* its rows said a fault in nvidia-smi's words (health_warnings) */
            hw_json_open(&w, "fault", '{');
            hw_json_str(&w, "kind", hw_gpu_faults[gp->fault].key);
            hw_json_str(&w, "said", hw_gpu_faults[gp->fault].words);
            hw_json_u64(&w, "rows", gp->fault_rows);
            hw_json_u64(&w, "first_line", gp->fault_line);
            hw_json_close(&w);
        } else {
            hw_json_null(&w, "fault");
        }
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
            hw_json_u64(&w, "reads", run->ecnt[g]->c.rows);
            hw_json_u64(&w, "resets", run->ecnt[g]->c.resets);
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
            const char *pf =
                rd_gpu_power_field(run->info.have_fields ? run->info.gpu_fields : NULL);
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
    bool brief = sum_run_phases_brief(run), kept = sum_run_listed_kept(run);
    struct sum_listed *ls = NULL;
    long nls = sum_run_listed(run, &ls);
    if (nls < 0)
        w.b->oom = true; /* said as out of memory, not as a shorter list */
    for (long li = 0; li < nls; li++) {
        const struct sum_listed *e = &ls[li];
        if (brief || e->b.full < 0) { /* a phase per step: where and how each ran */
            hw_json_open_flat(&w, NULL, '{');
            json_phase_brief(&w, e->b.name, e->b.t0, e->b.t1, e->b.line, e->b.exit_status,
                             e->b.signal, e->b.failed,
                             e->b.full >= 0 && run->phase[e->b.full].open);
            if (kept)
                json_kept(&w, e->kept);
            hw_json_close(&w);
            hw_buf_spill(out, SUM_SPILL_BYTES);
            continue;
        }
        const struct sum_phase_acc *p = &run->phase[e->b.full];
        hw_json_open(&w, NULL, '{');
        json_phase_head(&w, p->name, p->t0, p->t1, p->line);
        hw_json_num(&w, "energy_wh", sum_phase_energy_wh(run, p));
        double covered;
        (void)sum_phase_energy_partly(run, p, &covered);
        hw_json_num(&w, "energy_covered_sec", sum_fig_round_us(covered));
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
            hw_json_num(&w, "energy_covered_sec",
                        sum_fig_round_us(sum_phase_gpu_energy_covered_s(run, p, g)));
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
        hw_json_num(&w, "proc_peak_rss_mib", sum_fig_max(&p->proc_rss));
        /* calibrax's per-block figures: the mean, and the last reading minus the first */
        hw_json_num(&w, "proc_mean_rss_mib", sum_stat_mean(&p->proc_rss));
        hw_json_num(&w, "proc_memory_growth_mib", sum_fig_growth(&p->proc_rss));
        hw_json_num(&w, "proc_cpu_mean_pct", sum_stat_mean(&p->proc_cpu));
        /* the tree's storage I/O inside the phase (its share of each row's growth) */
        bool io = p->proc_io_seen && !(p->proc_gap_s > 0); /* a hole's bytes: not whose */
        hw_json_num(&w, "proc_read_bytes", io ? round(p->proc_io[0]) : NAN);
        hw_json_num(&w, "proc_write_bytes", io ? round(p->proc_io[1]) : NAN);
        /* the tracked process alone, and the tree's user/system split */
        hw_json_num(&w, "proc_main_peak_rss_mib", sum_fig_max(&p->main_rss));
        hw_json_num(&w, "proc_main_cpu_mean_pct", sum_stat_mean(&p->main_cpu));
        hw_json_num(&w, "proc_main_threads_max", sum_fig_max(&p->main_threads));
        hw_json_num(&w, "proc_usr_cpu_mean_pct", sum_stat_mean(&p->usr_cpu));
        hw_json_num(&w, "proc_sys_cpu_mean_pct", sum_stat_mean(&p->sys_cpu));
        json_system(&w, &p->sys);
        hw_json_open(&w, "container", '{');
        json_container_mem(&w, &p->sys);
        hw_json_num(&w, "mem_max_mib", p->sys.mem_limit_mib);
        hw_json_close(&w);
        json_phase_outcome(&w, p->exit_status, p->signal, p->failed, p->open);
        hw_json_str(&w, "edges", sum_phase_edges(p));
        hw_json_num(&w, "gap_sec", sum_fig_round_us(sum_phase_gap_s(p)));
        hw_json_str(&w, "unmeasured_reason", sum_phase_gap_s(p) > 0 ? "sampling_gap" : NULL);
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
        if (kept)
            json_kept(&w, e->kept);
        hw_json_close(&w);
        hw_buf_spill(out, SUM_SPILL_BYTES);
    }
    free(ls);
    hw_json_close(&w);
    /* phases[] holds phases_listed of the run's phases_total entries (sum_phases_list) */
    hw_json_u64(&w, "phases_listed", nls > 0 ? (uint64_t)nls : 0);
    hw_json_u64(&w, "phases_total", run->phases_total);
    if (run->phases_beyond)
        hw_json_u64(&w, "phases_in_brief", run->phases_beyond);
    if (run->phases_dropped)
        hw_json_u64(&w, "phases_not_summarized", run->phases_dropped);
    json_phase_names(&w, run);

    hw_json_open(&w, "events", '{');
    hw_json_u64(&w, "total", sum_fig_events_total(run));
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
    hw_json_num(&w, "cores_busy_max", sum_fig_cores_busy(run, sum_fig_max(&run->cpu_busy)));
    for (int c = HW_CPU_COL_MEM_TOTAL; c < HW_CPU_COL_COUNT; c++) /* /proc/meminfo's parts */
        json_stat(&w, hw_cpu_cols[c], &run->cpu[c]);
    hw_json_close(&w);

    json_system(&w, &run->sys);

    hw_json_open(&w, "process", '{');
    hw_json_num(&w, "peak_rss_mib", sum_fig_max(&run->proc[HW_PROC_COL_RSS]));
    hw_json_num(&w, "mean_rss_mib", sum_stat_mean(&run->proc[HW_PROC_COL_RSS]));
    hw_json_num(&w, "memory_growth_mib", sum_run_memory_growth(run));
    json_stat(&w, "rss_mib", &run->proc[HW_PROC_COL_RSS]);
    json_stat(&w, "pss_mib", &run->proc[HW_PROC_COL_PSS]);
    json_stat(&w, "cpu_pct", &run->proc[HW_PROC_COL_CPU]);
    hw_json_num(&w, "threads_max", sum_fig_max(&run->proc[HW_PROC_COL_THREADS]));
    hw_json_num(&w, "threads_mean", sum_stat_mean(&run->proc[HW_PROC_COL_THREADS]));
    hw_json_num(&w, "procs_max", sum_fig_max(&run->proc[HW_PROC_COL_PROCS]));
    hw_json_num(&w, "read_bytes", sum_fig_max(&run->proc[HW_PROC_COL_READ]));
    hw_json_num(&w, "write_bytes", sum_fig_max(&run->proc[HW_PROC_COL_WRITE]));
    /* every key of /proc/PID/io over the tree: the total, and per second between samples */
    hw_json_open(&w, "io", '{');
    for (int k = 0; k < SUM_PIO_COUNT; k++) {
        const char *name = hw_proc_cols[sum_pio_cols[k]];
        char key[64];
        hw_json_num(&w, name, sum_fig_max(&run->proc[sum_pio_cols[k]]));
        snprintf(key, sizeof key, "%s_per_s_mean", name);
        hw_json_num(&w, key, sum_stat_mean(&run->pio_rate[k]));
        snprintf(key, sizeof key, "%s_per_s_max", name);
        hw_json_num(&w, key, sum_fig_max(&run->pio_rate[k]));
    }
    hw_json_close(&w);
    /* the tracked process alone (descendants: the tree's row minus these), and user/system */
    /* gpu_tracker's private and shared RSS, and its "descendants" (the tree without the main
     * process, at each sample) */
    hw_json_num(&w, "private_peak_mib", sum_fig_max(&run->proc[HW_PROC_COL_PRIVATE]));
    hw_json_num(&w, "shared_peak_mib", sum_fig_max(&run->proc[HW_PROC_COL_SHARED]));
    hw_json_num(&w, "descendants_peak_rss_mib", sum_fig_max(&run->desc[SUM_DESC_RSS]));
    hw_json_num(&w, "descendants_cpu_mean_pct", sum_stat_mean(&run->desc[SUM_DESC_CPU]));
    hw_json_num(&w, "descendants_cpu_max_pct", sum_fig_max(&run->desc[SUM_DESC_CPU]));
    hw_json_num(&w, "descendants_threads_max", sum_fig_max(&run->desc[SUM_DESC_THREADS]));
    hw_json_num(&w, "descendants_private_peak_mib", sum_fig_max(&run->desc[SUM_DESC_PRIVATE]));
    hw_json_num(&w, "descendants_shared_peak_mib", sum_fig_max(&run->desc[SUM_DESC_SHARED]));
    hw_json_num(&w, "main_peak_rss_mib", sum_fig_max(&run->proc[HW_PROC_COL_MAIN_RSS]));
    /* the kernel's high-water mark of the command (wrap mode): no sampling can miss it */
    hw_json_num(&w, "main_peak_rss_kernel_mib", run->info.main_peak_kernel_mib);
    /* its CPU seconds and those of the descendants it waited for, as sacct's TotalCPU */
    hw_json_num(&w, "cpu_s", run->info.cpu_s);
    json_stat(&w, "main_rss_mib", &run->proc[HW_PROC_COL_MAIN_RSS]);
    json_stat(&w, "main_cpu_pct", &run->proc[HW_PROC_COL_MAIN_CPU]);
    hw_json_num(&w, "main_threads_max", sum_fig_max(&run->proc[HW_PROC_COL_MAIN_THREADS]));
    hw_json_num(&w, "main_private_peak_mib", sum_fig_max(&run->proc[HW_PROC_COL_MAIN_PRIVATE]));
    hw_json_num(&w, "main_shared_peak_mib", sum_fig_max(&run->proc[HW_PROC_COL_MAIN_SHARED]));
    /* hwmon --shared-once: shared pages counted once per mapped path (gpu_tracker's) */
    hw_json_num(&w, "shared_once_peak_mib", sum_fig_shared_once_peak(run, SUM_GPMEM_TREE));
    hw_json_num(&w, "main_shared_once_peak_mib", sum_fig_shared_once_peak(run, SUM_GPMEM_MAIN));
    hw_json_num(&w, "descendants_shared_once_peak_mib",
                sum_fig_shared_once_peak(run, SUM_GPMEM_DESC));
    json_stat(&w, "usr_cpu_pct", &run->proc[HW_PROC_COL_USR_CPU]);
    json_stat(&w, "sys_cpu_pct", &run->proc[HW_PROC_COL_SYS_CPU]);
    const char *gm_why;
    hw_json_num(&w, "gpu_mem_peak_mib", sum_run_tree_gpu_mem_peak(run, &gm_why));
    hw_json_num(&w, "main_gpu_mem_peak_mib", sum_run_gpu_mem_peak(run, SUM_GPMEM_MAIN, NULL));
    hw_json_num(&w, "descendants_gpu_mem_peak_mib",
                sum_run_gpu_mem_peak(run, SUM_GPMEM_DESC, NULL));
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
    hw_json_u64(&w, "lines_skipped", sum_fig_lines_skipped(run));
    hw_json_u64(&w, "partial_last_lines", sum_fig_partial_lines(run));
    hw_json_u64(&w, "placeholders", sum_fig_placeholders(run));
    hw_json_u64(&w, "child_restarts", run->info.child_restarts);
    hw_json_u64(&w, "hwmon_runs", run->info.starts);
    if (run->info.samples_lost >= 0) /* taken but not written (a full disk); null: not said */
        hw_json_u64(&w, "samples_lost", (uint64_t)run->info.samples_lost);
    else
        hw_json_null(&w, "samples_lost");
    /* params and metrics lost: keys one event gave twice once flattened, keys beyond the bound */
    hw_json_u64(&w, "param_collisions", run->param_collisions);
    hw_json_str(&w, "param_collision_first",
                run->param_collisions ? run->param_collision_key : NULL);
    hw_json_u64(&w, "params_dropped", run->params_dropped);
    hw_json_close(&w);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}
