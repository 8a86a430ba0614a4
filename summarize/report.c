/* Output formats of a summary: see report.h; the JSON schema is documented in summarize.1. */
#include "report.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwrun/array.h"
#include "hwrun/jsonw.h"
#include "hwrun/timeutil.h"

/* ---- summary.json: values in the one JSON writer (hwrun/jsonw.h) --------------------- */

static void json_time(struct hw_json *w, const char *key, double t)
{
    if (!isfinite(t)) {
        hw_json_null(w, key);
        return;
    }
    char iso[HW_ISO_LEN];
    /* to the nearest millisecond: epoch seconds carry ~2e-7 s of binary noise */
    double ms = floor(t * 1000 + 0.5);
    double sec = floor(ms / 1000);
    struct timespec ts = {(time_t)sec, (long)(ms - sec * 1000) * 1000000L};
    hw_iso_utc(iso, &ts);
    hw_json_str(w, key, iso);
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

static double mean_or_nan(const struct sum_stat *s)
{
    return s->n ? sum_stat_mean(s) : NAN;
}

static double max_or_nan(const struct sum_stat *s)
{
    return s->n ? s->max : NAN;
}

static const struct sum_stat *mem_util_stat(const struct sum_run *run, const char **source)
{
    if (run->dmon_mem_all.n) {
        *source = "hw_dmon.csv mem";
        return &run->dmon_mem_all;
    }
    if (run->all[SUM_GM_MEM_UTIL].n) {
        *source = "hw_metrics.csv utilization.memory";
        return &run->all[SUM_GM_MEM_UTIL];
    }
    *source = NULL;
    return &run->all[SUM_GM_MEM_UTIL];
}

static double clock_mean(const struct sum_run *run)
{
    if (run->all[SUM_GM_SM_CLOCK].n)
        return sum_stat_mean(&run->all[SUM_GM_SM_CLOCK]);
    return mean_or_nan(&run->all[SUM_GM_GR_CLOCK]);
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

static double growth(const struct sum_stat *s)
{
    return s->n ? s->last - s->first : NAN;
}

static double phase_energy_wh(const struct sum_phase_acc *p)
{
    double j = 0;
    bool any = false;
    for (int g = 0; g < SUM_MAX_GPUS; g++)
        if (p->gpu[g] && p->gpu[g]->m[SUM_GM_POWER].n + (p->gpu[g]->energy_j != 0)) {
            j += p->gpu[g]->energy_j;
            any = true;
        }
    return any ? j / 3600.0 : NAN;
}

static uint64_t total_skipped(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        n += sum_quality_skipped_total(&run->q[k]);
    return n;
}

static uint64_t total_partial(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        n += run->q[k].partial_last;
    return n;
}

static uint64_t total_placeholders(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        n += sum_quality_placeholders_total(&run->q[k]);
    return n;
}

static uint64_t events_total(const struct sum_run *run)
{
    uint64_t n = run->etype_other;
    for (size_t i = 0; i < run->netype; i++)
        n += run->etype[i].n;
    return n;
}

/* ---- summary.json ----------------------------------------------------------------------- */

static void json_gpu_metrics(struct hw_json *w, const struct sum_stat *m)
{
    for (int k = 0; k < SUM_GM_COUNT; k++)
        if (k != SUM_GM_GR_CLOCK || m[k].n)
            json_stat(w, sum_gpu_metric_names[k], &m[k]);
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
    const struct sum_quality *q = &run->q[k];
    hw_json_open(w, sum_kind_files[k], '{');
    hw_json_bool(w, "present", q->present);
    hw_json_str(w, "path", run->path[k]);
    if (run->read_error[k])
        hw_json_str(w, "read_error", strerror(-run->read_error[k]));
    hw_json_u64(w, "bytes", q->bytes);
    hw_json_u64(w, "lines", q->lines);
    hw_json_u64(w, "parsed", q->parsed);
    hw_json_u64(w, "header_lines", q->headers);
    hw_json_u64(w, "blank_lines", q->blank);
    hw_json_open(w, "skipped", '{');
    for (int s = 0; s < SUM_SKIP_COUNT; s++)
        if (q->skipped[s])
            hw_json_u64(w, sum_skip_names[s], q->skipped[s]);
    hw_json_close(w);
    hw_json_u64(w, "skipped_total", sum_quality_skipped_total(q));
    hw_json_open(w, "placeholders", '{');
    for (size_t i = 0; i < q->n_tokens; i++)
        hw_json_u64(w, q->placeholders[i].token[0] ? q->placeholders[i].token : "(empty)",
               q->placeholders[i].n);
    if (q->placeholders_other)
        hw_json_u64(w, "(other)", q->placeholders_other);
    hw_json_close(w);
    hw_json_u64(w, "bad_cells", q->bad_cells);
    hw_json_bool(w, "partial_last_line", q->partial_last);
    hw_json_u64(w, "partial_bytes", q->partial_bytes);
    const struct sum_stat *iv = &run->q_interval[k];
    if (k != SUM_KIND_RUNLOG && k != SUM_KIND_GPU_PROCS) {
        hw_json_open(w, "interval_sec", '{');
        hw_json_num(w, "median", sum_stat_quantile(iv, 0.5));
        hw_json_num(w, "p99", sum_stat_quantile(iv, 0.99));
        hw_json_num(w, "max", max_or_nan(iv));
        hw_json_close(w);
        double med = sum_stat_quantile(iv, 0.5);
        hw_json_u64(w, "gaps", isfinite(med) ? sum_stat_count_above(iv, SUM_GAP_FACTOR * med) : 0);
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

/* How the run ended (outcome.h): "status" first, where a reader of a sweep looks. */
static void json_outcome(struct hw_json *w, const struct sum_outcome *o)
{
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
    hw_json_str(w, "stop_reason", o->have_stop ? o->stop_reason : NULL);
    json_time(w, "last_sample", o->last_t);
    hw_json_u64(w, "phases_failed", o->phases_failed);
    hw_json_close(w);
}

void sum_report_json(const struct sum_run *run, struct hw_buf *out)
{
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_PRETTY, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    hw_json_str(&w, "schema", "hwrun.summary/1");
    hw_json_str(&w, "tool", "summarize (hwrun) " HWRUN_VERSION);
    hw_json_str(&w, "dir", run->dir);
    json_outcome(&w, &run->outcome);
    hw_json_open(&w, "params", '{'); /* the data of the params events (--params, default config) */
    for (size_t i = 0; i < run->nparams; i++)
        hw_json_raw(&w, run->params[i].key, param_text(&run->params[i], true));
    hw_json_close(&w);
    /* pytyche's keys (same names and meaning), null when never measured */
    const char *mu_src;
    const struct sum_stat *mu = mem_util_stat(run, &mu_src);
    hw_json_num(&w, "peak_vram_mb", max_or_nan(&run->all[SUM_GM_MEM_USED])); /* MiB, as pytyche */
    hw_json_num(&w, "gpu_util_mean_pct", mean_or_nan(&run->all[SUM_GM_UTIL]));
    hw_json_num(&w, "gpu_util_max_pct", max_or_nan(&run->all[SUM_GM_UTIL]));
    hw_json_num(&w, "mem_util_mean_pct", mean_or_nan(mu));
    hw_json_num(&w, "mem_util_max_pct", max_or_nan(mu));
    hw_json_num(&w, "power_watts_mean", mean_or_nan(&run->all[SUM_GM_POWER]));
    hw_json_num(&w, "power_watts_max", max_or_nan(&run->all[SUM_GM_POWER]));
    hw_json_num(&w, "cpu_usr_mean_pct", mean_or_nan(&run->cpu[SUM_CPU_USR]));
    hw_json_num(&w, "cpu_idle_mean_pct", mean_or_nan(&run->cpu[SUM_CPU_IDLE]));
    /* calibrax's keys */
    hw_json_num(&w, "peak_rss_mb", max_or_nan(&run->proc[SUM_PROC_RSS]));
    hw_json_num(&w, "mean_rss_mb", mean_or_nan(&run->proc[SUM_PROC_RSS]));
    hw_json_num(&w, "memory_growth_mb", growth(&run->proc[SUM_PROC_RSS]));
    hw_json_u64(&w, "num_samples", sum_run_num_samples(run));
    hw_json_num(&w, "duration_sec", round_us(sum_run_duration(run)));
    hw_json_num(&w, "mean_gpu_clock_mhz", clock_mean(run));
    hw_json_num(&w, "mean_gpu_power_w", mean_or_nan(&run->all[SUM_GM_POWER]));
    hw_json_num(&w, "peak_gpu_mem_mb", max_or_nan(&run->all[SUM_GM_MEM_USED])); /* MiB, as calibrax */
    hw_json_num(&w, "mean_gpu_util", mean_or_nan(&run->all[SUM_GM_UTIL]));
    /* ours: units in the names (the _mb keys above are those tools' names for MiB values) */
    hw_json_num(&w, "peak_vram_mib", max_or_nan(&run->all[SUM_GM_MEM_USED]));
    hw_json_num(&w, "energy_wh", sum_run_energy_wh(run));
    hw_json_str(&w, "mem_util_source", mu_src);
    json_time(&w, "start", run->t_max >= run->t_min ? run->t_min : NAN);
    json_time(&w, "end", run->t_max >= run->t_min ? run->t_max : NAN);
    hw_json_open(&w, "time_zone", '{');
    hw_json_str(&w, "zone", run->tz.name);
    hw_json_str(&w, "source", tz_source_name(run->tz_source));
    if (run->tz_start_unrecognized)
        hw_json_str(&w, "start_event_smi_tz_unrecognized", run->info.smi_tz_raw);
    hw_json_close(&w);
    hw_json_str(&w, "percentiles",
           "linear interpolation between closest ranks; exact while a series has at most 1024 "
           "distinct values, else within 0.4% relative error (marked percentiles_exact: false)");

    hw_json_open(&w, "gpus", '[');
    for (int g = 0; g < SUM_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        hw_json_open(&w, NULL, '{');
        hw_json_u64(&w, "index", (uint64_t)gp->index);
        hw_json_str(&w, "uuid", gp->uuid[0] ? gp->uuid : NULL);
        hw_json_u64(&w, "samples", gp->samples);
        json_gpu_metrics(&w, gp->m);
        hw_json_num(&w, "energy_wh", gp->m[SUM_GM_POWER].n ? gp->energy.joules / 3600.0 : NAN);
        hw_json_open(&w, "energy", '{');
        hw_json_num(&w, "covered_sec", gp->energy.covered_s);
        hw_json_num(&w, "interval_sec", gp->energy.interval_s);
        hw_json_u64(&w, "gaps", gp->energy.gaps);
        hw_json_num(&w, "gap_sec", gp->energy.gap_s);
        hw_json_u64(&w, "unmeasured_steps", gp->energy.unmeasured);
        hw_json_close(&w);
        hw_json_open(&w, "interval_sec", '{');
        hw_json_num(&w, "median", sum_stat_quantile(&gp->interval, 0.5));
        hw_json_num(&w, "p99", sum_stat_quantile(&gp->interval, 0.99));
        hw_json_close(&w);
        if (gp->in_dmon) {
            hw_json_open(&w, "dmon", '{');
            for (int k = 0; k < SUM_DM_COUNT; k++)
                if (gp->dm[k].n)
                    json_stat(&w, sum_dmon_col_names[k], &gp->dm[k]);
            hw_json_close(&w);
        }
        json_gpm(&w, gp, gp->gpm);
        hw_json_close(&w);
    }
    hw_json_close(&w);
    if (run->gpu_rows_dropped)
        hw_json_u64(&w, "gpu_rows_beyond_64_gpus", run->gpu_rows_dropped);

    hw_json_open(&w, "phases", '[');
    for (size_t i = 0; i < run->nphase; i++) {
        const struct sum_phase_acc *p = &run->phase[i];
        hw_json_open(&w, NULL, '{');
        hw_json_str(&w, "name", p->name);
        json_time(&w, "start", p->t0);
        json_time(&w, "end", p->t1);
        hw_json_num(&w, "seconds", round_us(p->t1 - p->t0));
        hw_json_u64(&w, "line", p->line);
        hw_json_num(&w, "energy_wh", phase_energy_wh(p));
        hw_json_open(&w, "gpus", '[');
        for (int g = 0; g < SUM_MAX_GPUS; g++) {
            const struct sum_phase_gpu *pg = p->gpu[g];
            if (!pg)
                continue;
            hw_json_open(&w, NULL, '{');
            hw_json_u64(&w, "index", (uint64_t)g);
            hw_json_u64(&w, "samples", pg->m[SUM_GM_UTIL].n > pg->m[SUM_GM_POWER].n
                                      ? pg->m[SUM_GM_UTIL].n
                                      : pg->m[SUM_GM_POWER].n);
            json_gpu_metrics(&w, pg->m);
            hw_json_num(&w, "energy_wh",
                   run->gpu[g] && run->gpu[g]->m[SUM_GM_POWER].n ? pg->energy_j / 3600.0 : NAN);
            json_gpm(&w, run->gpu[g], pg->gpm);
            hw_json_close(&w);
        }
        hw_json_close(&w);
        hw_json_num(&w, "cpu_usr_mean_pct", mean_or_nan(&p->cpu_usr));
        hw_json_num(&w, "cpu_idle_mean_pct", mean_or_nan(&p->cpu_idle));
        hw_json_num(&w, "proc_peak_rss_mib", max_or_nan(&p->proc_rss));
        hw_json_num(&w, "proc_cpu_mean_pct", mean_or_nan(&p->proc_cpu));
        if (p->exit_status >= 0)
            hw_json_u64(&w, "exit_status", (uint64_t)p->exit_status);
        else
            hw_json_null(&w, "exit_status");
        if (p->signal)
            hw_json_u64(&w, "signal", (uint64_t)p->signal);
        else
            hw_json_null(&w, "signal");
        hw_json_bool(&w, "failed", p->failed);
        hw_json_raw(&w, "extra", p->extra);
        hw_json_close(&w);
    }
    hw_json_close(&w);
    if (run->phases_dropped)
        hw_json_u64(&w, "phases_not_summarized", run->phases_dropped);

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
        json_time(&w, "ts", run->err[i].t);
        hw_json_str(&w, "event", run->err[i].name);
        hw_json_u64(&w, "line", run->err[i].line);
        hw_json_raw(&w, "data", run->err[i].data);
        hw_json_close(&w);
    }
    hw_json_close(&w);
    hw_json_u64(&w, "child_restarts", run->info.child_restarts);
    hw_json_close(&w);

    hw_json_open(&w, "cpu", '{');
    for (int c = 0; c < SUM_CPU_CG_LIMIT; c++)
        json_stat(&w, sum_cpu_col_names[c], &run->cpu[c]);
    hw_json_close(&w);

    hw_json_open(&w, "process", '{');
    hw_json_num(&w, "peak_rss_mib", max_or_nan(&run->proc[SUM_PROC_RSS]));
    hw_json_num(&w, "mean_rss_mib", mean_or_nan(&run->proc[SUM_PROC_RSS]));
    hw_json_num(&w, "memory_growth_mib", growth(&run->proc[SUM_PROC_RSS]));
    json_stat(&w, "rss_mib", &run->proc[SUM_PROC_RSS]);
    json_stat(&w, "pss_mib", &run->proc[SUM_PROC_PSS]);
    json_stat(&w, "cpu_pct", &run->proc[SUM_PROC_CPU]);
    hw_json_num(&w, "threads_max", max_or_nan(&run->proc[SUM_PROC_THREADS]));
    hw_json_num(&w, "threads_mean", mean_or_nan(&run->proc[SUM_PROC_THREADS]));
    hw_json_num(&w, "procs_max", max_or_nan(&run->proc[SUM_PROC_PROCS]));
    hw_json_num(&w, "read_bytes", max_or_nan(&run->proc[SUM_PROC_READ]));
    hw_json_num(&w, "write_bytes", max_or_nan(&run->proc[SUM_PROC_WRITE]));
    /* the tracked process alone (descendants: the tree's row minus these), and user/system */
    hw_json_num(&w, "main_peak_rss_mib", max_or_nan(&run->proc[SUM_PROC_MAIN_RSS]));
    json_stat(&w, "main_rss_mib", &run->proc[SUM_PROC_MAIN_RSS]);
    json_stat(&w, "main_cpu_pct", &run->proc[SUM_PROC_MAIN_CPU]);
    hw_json_num(&w, "main_threads_max", max_or_nan(&run->proc[SUM_PROC_MAIN_THREADS]));
    json_stat(&w, "usr_cpu_pct", &run->proc[SUM_PROC_USR_CPU]);
    json_stat(&w, "sys_cpu_pct", &run->proc[SUM_PROC_SYS_CPU]);
    const char *gm_why;
    hw_json_num(&w, "gpu_mem_peak_mib", sum_run_tree_gpu_mem_peak(run, &gm_why));
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
    hw_json_close(&w);

    hw_json_open(&w, "container", '{');
    hw_json_raw(&w, "cgroup", run->cgroup_json);
    hw_json_num(&w, "cpu_limit_cores", run->cg_limit_cores);
    hw_json_num(&w, "mem_max_mib", run->cg_mem_max_mib);
    hw_json_num(&w, "mem_peak_mib", max_or_nan(&run->cpu[SUM_CPU_CG_MEM]));
    json_stat(&w, "cpu_pct", &run->cpu[SUM_CPU_CG_PCT]);
    hw_json_close(&w);

    hw_json_open(&w, "quality", '{');
    hw_json_open(&w, "files", '{');
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        if ((k != SUM_KIND_GPM && k != SUM_KIND_TREE_PIDS) ||
            run->q[k].present) /* optional, newer than the rest */
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

/* A number for a person: one decimal, or three significant digits below 1 so that a short
 * phase's energy reads 0.00123 Wh, not 0.0 Wh. "-" when not measured. */
static void tnum(struct hw_buf *b, double v, const char *unit)
{
    if (!isfinite(v))
        hw_buf_puts(b, "-");
    else if (v != 0 && fabs(v) < 1)
        hw_buf_printf(b, "%.3g%s", v, unit);
    else
        hw_buf_printf(b, "%.1f%s", v, unit);
}

/* A duration: seconds with milliseconds under a minute, else h/min/s as a person reads it. */
static void tdur(struct hw_buf *b, double s)
{
    if (!isfinite(s)) {
        hw_buf_puts(b, "-");
        return;
    }
    if (s < 60) {
        hw_buf_printf(b, "%.3f s", s);
        return;
    }
    long t = lround(s), h = t / 3600, m = t / 60 % 60, sec = t % 60;
    if (h)
        hw_buf_printf(b, "%ld h %02ld min %02ld s", h, m, sec);
    else
        hw_buf_printf(b, "%ld min %02ld s", m, sec);
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

static void tstat(struct hw_buf *b, const char *label, const struct sum_stat *s, const char *unit)
{
    if (!s->n)
        return;
    hw_buf_printf(b, "    %-14s mean ", label);
    tnum(b, sum_stat_mean(s), unit);
    hw_buf_puts(b, "  max ");
    tnum(b, s->max, unit);
    hw_buf_puts(b, "  p50 ");
    tnum(b, sum_stat_quantile(s, 0.5), unit);
    hw_buf_puts(b, "  p95 ");
    tnum(b, sum_stat_quantile(s, 0.95), unit);
    hw_buf_puts(b, "  p99 ");
    tnum(b, sum_stat_quantile(s, 0.99), unit);
    hw_buf_putc(b, '\n');
}

/* Text from the data (phase and event names, uuids) without control characters, so a hostile
 * run.jsonl cannot move the terminal's cursor. */
static const char *safe(const char *s, char *buf, size_t cap)
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
    {"SM active", SUM_DM_SMUTIL - SUM_DM_GPM_FIRST},
    {"tensor active", SUM_DM_MMAACT - SUM_DM_GPM_FIRST},
    {"DRAM active", SUM_DM_DRAM - SUM_DM_GPM_FIRST},
};

/* The run's outcome in one line; anything but ok in capitals, where the eye falls. */
static void text_outcome(struct hw_buf *out, const struct sum_outcome *o)
{
    char iso[HW_ISO_LEN] = "-";
    if (isfinite(o->last_t)) {
        struct timespec ts = {(time_t)floor(o->last_t),
                              (long)((o->last_t - floor(o->last_t)) * 1e9)};
        hw_iso_utc(iso, &ts);
    }
    switch (o->status) {
    case SUM_STATUS_OK:
        hw_buf_puts(out, "  status ok");
        if (o->exit_status >= 0)
            hw_buf_printf(out, " (the command exited 0)");
        break;
    case SUM_STATUS_FAILED:
        hw_buf_printf(out, "  status FAILED: the command exited with status %d", o->exit_status);
        break;
    case SUM_STATUS_KILLED:
        hw_buf_printf(out, "  status KILLED: the command was killed by signal %d (%s)", o->signal,
                      sigabbrev_np(o->signal) ? sigabbrev_np(o->signal) : "?");
        break;
    case SUM_STATUS_INCOMPLETE:
        hw_buf_printf(out, "  status INCOMPLETE: no stop event (hwmon was killed or the machine "
                           "stopped); last sample %s", iso);
        break;
    case SUM_STATUS_RUNNING:
        hw_buf_printf(out, "  status RUNNING: hwmon (pid %ld) is still writing; last sample %s",
                      o->hwmon_pid, iso);
        break;
    default:
        hw_buf_puts(out, "  status unknown: no hwmon start event");
        break;
    }
    if (o->phases_failed)
        hw_buf_printf(out, "; %llu phase%s failed", (unsigned long long)o->phases_failed,
                      o->phases_failed == 1 ? "" : "s");
    hw_buf_putc(out, '\n');
}

void sum_report_text(const struct sum_run *run, struct hw_buf *out)
{
    char sb[256];
    static const char *const units[SUM_GM_COUNT] = {"%", "%", " MiB", " MiB", " W",
                                                    " C", " MHz", " MHz", " MHz"};
    static const char *const labels[SUM_GM_COUNT] = {"util", "mem util", "mem used",
                                                     "mem total", "power", "temperature",
                                                     "SM clock", "mem clock", "gr clock"};
    hw_buf_printf(out, "run %s\n", run->dir ? safe(run->dir, sb, sizeof sb) : "(files)");
    hw_buf_puts(out, "  duration ");
    tdur(out, sum_run_duration(run));
    hw_buf_printf(out, ", %llu samples, %zu GPUs, energy ",
                  (unsigned long long)sum_run_num_samples(run), sum_run_gpu_count(run));
    double e = sum_run_energy_wh(run);
    tnum(out, e, " Wh");
    hw_buf_putc(out, '\n');
    text_outcome(out, &run->outcome);
    hw_buf_printf(out, "  nvidia-smi times: %s (%s)\n", run->tz.name,
                  tz_source_name(run->tz_source));
    hw_buf_puts(out, "  GPU util mean ");
    tnum(out, mean_or_nan(&run->all[SUM_GM_UTIL]), "%");
    hw_buf_puts(out, ", peak VRAM ");
    tnum(out, max_or_nan(&run->all[SUM_GM_MEM_USED]), " MiB");
    hw_buf_puts(out, ", power mean ");
    tnum(out, mean_or_nan(&run->all[SUM_GM_POWER]), " W");
    hw_buf_puts(out, ", CPU usr ");
    tnum(out, mean_or_nan(&run->cpu[SUM_CPU_USR]), "%");
    if (run->cpu[SUM_CPU_SYS].n) {
        hw_buf_puts(out, " sys ");
        tnum(out, mean_or_nan(&run->cpu[SUM_CPU_SYS]), "%");
    }
    hw_buf_puts(out, " idle ");
    tnum(out, mean_or_nan(&run->cpu[SUM_CPU_IDLE]), "%");
    hw_buf_putc(out, '\n');
    if (run->proc[SUM_PROC_RSS].n) {
        hw_buf_puts(out, "  process tree: peak RSS ");
        tnum(out, run->proc[SUM_PROC_RSS].max, " MiB");
        if (run->proc[SUM_PROC_PSS].n) { /* RSS counts fork-shared pages once per process */
            hw_buf_puts(out, ", peak PSS ");
            tnum(out, run->proc[SUM_PROC_PSS].max, " MiB");
        }
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, mean_or_nan(&run->proc[SUM_PROC_CPU]), "%");
        if (run->proc[SUM_PROC_USR_CPU].n) {
            hw_buf_puts(out, " (user ");
            tnum(out, mean_or_nan(&run->proc[SUM_PROC_USR_CPU]), "%");
            hw_buf_puts(out, ", system ");
            tnum(out, mean_or_nan(&run->proc[SUM_PROC_SYS_CPU]), "%)");
        }
        hw_buf_putc(out, '\n');
    }
    if (run->proc[SUM_PROC_MAIN_RSS].n) {
        hw_buf_puts(out, "  main process: peak RSS ");
        tnum(out, run->proc[SUM_PROC_MAIN_RSS].max, " MiB");
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, mean_or_nan(&run->proc[SUM_PROC_MAIN_CPU]), "%");
        hw_buf_printf(out, ", threads max %.0f", run->proc[SUM_PROC_MAIN_THREADS].max);
        hw_buf_putc(out, '\n');
    }
    if (run->gp_rows) { /* only when gpu_procs.csv was recorded */
        const char *why;
        double gm = sum_run_tree_gpu_mem_peak(run, &why);
        hw_buf_puts(out, "  process tree GPU memory peak ");
        tnum(out, gm, " MiB");
        if (why)
            hw_buf_printf(out, " (unmeasured: %s)", why);
        hw_buf_putc(out, '\n');
        for (size_t i = 0; i < run->npids && i < 8; i++) { /* gpu_procs.csv, every process */
            hw_buf_printf(out, "    GPU process %ld %s: peak ", run->pids[i].pid,
                          safe(run->pids[i].name, sb, sizeof sb));
            tnum(out, run->pids[i].peak_mib, " MiB\n");
        }
        if (run->npids > 8)
            hw_buf_printf(out, "    ... %zu more GPU processes (JSON: process.gpu_mem_peak_by_pid)\n",
                          run->npids - 8);
    }
    for (int g = 0; g < SUM_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        hw_buf_printf(out, "  GPU %d%s%s: %llu samples, energy ", gp->index,
                      gp->uuid[0] ? " " : "", safe(gp->uuid, sb, sizeof sb),
                      (unsigned long long)gp->samples);
        tnum(out, gp->m[SUM_GM_POWER].n ? gp->energy.joules / 3600 : NAN, " Wh");
        if (gp->energy.gaps)
            hw_buf_printf(out, " (%llu gaps, %.1f s not bridged)",
                          (unsigned long long)gp->energy.gaps, gp->energy.gap_s);
        hw_buf_putc(out, '\n');
        for (int m = 0; m < SUM_GM_COUNT; m++)
            tstat(out, labels[m], &gp->m[m], units[m]);
        for (int m = 0; gp->in_gpm && m < (int)(sizeof gpm_text / sizeof gpm_text[0]); m++)
            tstat(out, gpm_text[m].label, &gp->gpm[gpm_text[m].col], "%");
    }
    for (size_t i = 0; i < run->nphase; i++) {
        const struct sum_phase_acc *p = &run->phase[i];
        hw_buf_printf(out, "  phase %s: ", safe(p->name, sb, sizeof sb));
        tdur(out, p->t1 - p->t0);
        if (isfinite(run->info.t_start) && p->t0 < run->info.t_start - 0.001)
            hw_buf_puts(out, " (began before hwmon started: partly unmeasured)");
        hw_buf_puts(out, ", energy ");
        tnum(out, phase_energy_wh(p), " Wh");
        if (p->cpu_usr.n) {
            hw_buf_puts(out, ", CPU usr ");
            tnum(out, sum_stat_mean(&p->cpu_usr), "%");
        }
        if (p->proc_rss.n) {
            hw_buf_puts(out, ", process tree peak RSS ");
            tnum(out, p->proc_rss.max, " MiB");
            hw_buf_puts(out, " CPU mean ");
            tnum(out, sum_stat_mean(&p->proc_cpu), "%");
        }
        if (p->signal)
            hw_buf_printf(out, ", FAILED: killed by signal %d", p->signal);
        else if (p->exit_status > 0)
            hw_buf_printf(out, ", FAILED: exit status %d", p->exit_status);
        else if (p->failed)
            hw_buf_puts(out, ", FAILED: raised an exception");
        hw_buf_putc(out, '\n');
        for (int g = 0; g < SUM_MAX_GPUS; g++)
            if (p->gpu[g]) {
                hw_buf_printf(out, "    GPU %d util mean ", g);
                tnum(out, mean_or_nan(&p->gpu[g]->m[SUM_GM_UTIL]), "%");
                for (int m = 0; run->gpu[g] && run->gpu[g]->in_gpm &&
                                m < (int)(sizeof gpm_text / sizeof gpm_text[0]);
                     m++) {
                    hw_buf_printf(out, ", %s ", gpm_text[m].label);
                    tnum(out, mean_or_nan(&p->gpu[g]->gpm[gpm_text[m].col]), "%");
                }
                hw_buf_puts(out, ", power mean ");
                tnum(out, mean_or_nan(&p->gpu[g]->m[SUM_GM_POWER]), " W");
                hw_buf_puts(out, ", peak VRAM ");
                tnum(out, max_or_nan(&p->gpu[g]->m[SUM_GM_MEM_USED]), " MiB");
                hw_buf_putc(out, '\n');
            }
    }
    if (run->err_total) {
        hw_buf_printf(out, "  %llu error-like event%s (first: %s", (unsigned long long)run->err_total,
                      run->err_total == 1 ? "" : "s", safe(run->err[0].name, sb, sizeof sb));
        event_reason(out, run->err[0].data);
        hw_buf_puts(out, ")\n");
    }
    for (int k = 0; k < SUM_KIND_COUNT; k++) {
        const struct sum_quality *q = &run->q[k];
        uint64_t sk = sum_quality_skipped_total(q), ph = sum_quality_placeholders_total(q);
        if (run->read_error[k])
            hw_buf_printf(out, "  warning: %s: %s\n", sum_kind_files[k],
                          strerror(-run->read_error[k]));
        if (sk || q->partial_last || q->bad_cells)
            hw_buf_printf(out,
                          "  warning: %s: %llu of %llu lines skipped, %llu bad cells%s\n",
                          sum_kind_files[k], (unsigned long long)sk,
                          (unsigned long long)q->lines, (unsigned long long)q->bad_cells,
                          q->partial_last ? ", partial last line ignored" : "");
        if (ph)
            hw_buf_printf(out, "  note: %s: %llu placeholder cells (not measured)\n",
                          sum_kind_files[k], (unsigned long long)ph);
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

enum col_type { C_STR, C_NUM, C_U64, C_INT /* an integer in d, NAN when not known */ };

struct col {
    const char *name;
    enum col_type type;
    const char *s;
    double d;
    uint64_t u;
};

/* The sweep row's columns, in order. Each is S (a string), D (a computed number: 12 digits),
 * U (a count) or I (an integer, NAN when not known), with its name and its value (an expression
 * of run; mu is the memory-utilization series of mem_util_stat()). The CSV header, CSV rows and
 * JSONL rows are all expanded from this one list: a column is in all of them or in none, and
 * the arrays they fill have exactly this many places. */
#define SWEEP_COLUMNS(S, D, U, I)                                                                  \
    S("dir", run->dir)                                                                             \
    S("status", sum_status_names[run->outcome.status])                                             \
    I("exit_status", run->outcome.exit_status >= 0 ? run->outcome.exit_status : NAN)               \
    I("signal", run->outcome.signal ? run->outcome.signal : NAN)                                   \
    U("phases_failed", run->outcome.phases_failed)                                                 \
    U("gpus", sum_run_gpu_count(run))                                                              \
    U("num_samples", sum_run_num_samples(run))                                                     \
    D("duration_sec", round_us(sum_run_duration(run)))                                             \
    D("peak_vram_mb", max_or_nan(&run->all[SUM_GM_MEM_USED]))                                      \
    D("peak_vram_mib", max_or_nan(&run->all[SUM_GM_MEM_USED]))                                     \
    D("gpu_util_mean_pct", mean_or_nan(&run->all[SUM_GM_UTIL]))                                    \
    D("gpu_util_max_pct", max_or_nan(&run->all[SUM_GM_UTIL]))                                      \
    D("mem_util_mean_pct", mean_or_nan(mu))                                                        \
    D("mem_util_max_pct", max_or_nan(mu))                                                          \
    D("power_watts_mean", mean_or_nan(&run->all[SUM_GM_POWER]))                                    \
    D("power_watts_max", max_or_nan(&run->all[SUM_GM_POWER]))                                      \
    D("energy_wh", sum_run_energy_wh(run))                                                         \
    D("mean_gpu_clock_mhz", clock_mean(run))                                                       \
    D("mean_gpu_power_w", mean_or_nan(&run->all[SUM_GM_POWER]))                                    \
    D("cpu_usr_mean_pct", mean_or_nan(&run->cpu[SUM_CPU_USR]))                                     \
    D("cpu_idle_mean_pct", mean_or_nan(&run->cpu[SUM_CPU_IDLE]))                                   \
    D("peak_rss_mb", max_or_nan(&run->proc[SUM_PROC_RSS]))                                         \
    D("mean_rss_mb", mean_or_nan(&run->proc[SUM_PROC_RSS]))                                        \
    D("memory_growth_mb", growth(&run->proc[SUM_PROC_RSS]))                                        \
    D("gpu_mem_peak_mib", sum_run_tree_gpu_mem_peak(run, NULL))                                    \
    U("phases", run->nphase)                                                                       \
    U("events", events_total(run))                                                                 \
    U("error_events", run->err_total)                                                              \
    U("child_restarts", run->info.child_restarts)                                                  \
    U("lines_skipped", total_skipped(run))                                                         \
    U("partial_last_lines", total_partial(run))                                                    \
    U("placeholders", total_placeholders(run))                                                     \
    S("time_zone", run->tz.name)                                                                   \
    S("time_zone_source", tz_source_name(run->tz_source))

#define COL_ONE(nm, v) +1
#define COL_NAME(nm, v) nm,
enum { SWEEP_NCOLS = 0 SWEEP_COLUMNS(COL_ONE, COL_ONE, COL_ONE, COL_ONE) };
static const char *const sweep_names[] = {SWEEP_COLUMNS(COL_NAME, COL_NAME, COL_NAME, COL_NAME)};
_Static_assert(HW_ARRAY_SIZE(sweep_names) == SWEEP_NCOLS, "one name per sweep column");
#undef COL_ONE
#undef COL_NAME

static void flat_cols(const struct sum_run *run, struct col c[SWEEP_NCOLS])
{
    const char *mu_src;
    const struct sum_stat *mu = mem_util_stat(run, &mu_src);
    size_t n = 0;
#define S(nm, v) c[n++] = (struct col){nm, C_STR, v, 0, 0};
#define D(nm, v) c[n++] = (struct col){nm, C_NUM, NULL, v, 0};
#define U(nm, v) c[n++] = (struct col){nm, C_U64, NULL, 0, v};
#define I(nm, v) c[n++] = (struct col){nm, C_INT, NULL, v, 0};
    SWEEP_COLUMNS(S, D, U, I)
#undef S
#undef D
#undef U
#undef I
}

/* A number column's value, the same in CSV and JSONL rows; false (nothing written) when it
 * was not measured. */
static bool num_cell(struct hw_buf *b, const struct col *c)
{
    if (c->type == C_U64)
        hw_buf_u64(b, c->u);
    else if (!isfinite(c->d))
        return false;
    else if (c->type == C_INT)
        hw_buf_printf(b, "%.0f", c->d);
    else
        hw_buf_json_num(b, c->d, HW_NUM_SIG12);
    return true;
}

static void csv_cell(struct hw_buf *b, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        hw_buf_puts(b, s);
        return;
    }
    hw_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            hw_buf_putc(b, '"');
        hw_buf_putc(b, *s);
    }
    hw_buf_putc(b, '"');
}

void sum_report_param_name(const struct sum_param *p, struct hw_buf *out)
{
    hw_buf_puts(out, "param.");
    hw_buf_puts(out, p->key);
}

void sum_report_param_csv_cell(const struct sum_param *p, struct hw_buf *out)
{
    csv_cell(out, param_text(p, false));
}

void sum_report_csv_header(struct hw_buf *out)
{
    for (size_t i = 0; i < SWEEP_NCOLS; i++) {
        if (i)
            hw_buf_putc(out, ',');
        hw_buf_puts(out, sweep_names[i]);
    }
    hw_buf_putc(out, '\n');
}

void sum_report_csv_row(const struct sum_run *run, struct hw_buf *out)
{
    struct col c[SWEEP_NCOLS];
    flat_cols(run, c);
    size_t n = SWEEP_NCOLS;
    for (size_t i = 0; i < n; i++) {
        if (i)
            hw_buf_putc(out, ',');
        if (c[i].type == C_STR)
            csv_cell(out, c[i].s);
        else
            num_cell(out, &c[i]); /* an empty cell when not known */
    }
    hw_buf_putc(out, '\n');
}

void sum_report_jsonl_row(const struct sum_run *run, struct hw_buf *out)
{
    struct col c[SWEEP_NCOLS];
    flat_cols(run, c);
    size_t n = SWEEP_NCOLS;
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_LINE, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    for (size_t i = 0; i < n; i++) {
        if (c[i].type == C_STR) {
            hw_json_str(&w, c[i].name, c[i].s);
            continue;
        }
        hw_json_key(&w, c[i].name);
        if (!num_cell(out, &c[i]))
            hw_buf_puts(out, "null");
    }
    for (size_t i = 0; i < run->nparams; i++) {
        struct hw_buf k;
        hw_buf_init(&k, NULL, 0);
        sum_report_param_name(&run->params[i], &k);
        hw_json_raw(&w, k.p ? k.p : "", param_text(&run->params[i], true));
        hw_buf_free(&k);
    }
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}
