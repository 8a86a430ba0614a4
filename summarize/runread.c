/* Reading one run (sum_run_read, summary.h): each file in its stage, through the sink of its
 * kind (sink.h), then what only the whole run can say (open phases ended at the last sample,
 * the last energy steps, warnings, the outcome). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/io.h"
#include "oom.h"
#include "sink.h"

/* A GPU whose energy counter (NVML's or AMD SMI's: hw_energy.csv) and power integrated over its
 * samples disagree by more than SUM_COUNTER_DISAGREE over a run of SUM_COUNTER_MIN_S covered
 * seconds without a gap (a gap's time is in the counter, not in the integral): one of them is
 * wrong, said with the health warnings every output shows. */
#define SUM_COUNTER_DISAGREE 0.20
#define SUM_COUNTER_MIN_S 60.0
static void counter_warnings(struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; g++) {
        double c = sum_gpu_energy_counter_wh(run, g), i = sum_gpu_energy_integrated_wh(run, g);
        const struct rd_energy *e = run->gpu[g] ? &run->gpu[g]->energy : NULL;
        if (!e || e->gaps || !(e->covered_s >= SUM_COUNTER_MIN_S) || !(c > 0) || !(i > 0) ||
            fabs(c / i - 1) <= SUM_COUNTER_DISAGREE)
            continue;
        snprintf(run->health_warn[run->nhealth_warn++], sizeof run->health_warn[0],
                 "GPU %d: energy counter %.4g Wh, power integrated %.4g Wh (%+.3g%%): a power "
                 "reading that lags or misses, or a wrong counter",
                 g, c, i, (c / i - 1) * 100);
    }
}

/* GPU faults in nvidia-smi's words, first among the health warnings: each GPU whose rows said
 * one, then each fault hwmon logged that no row of that GPU said (a lost GPU leaves no row). */
static void fault_warnings(struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || !gp->fault_rows)
            continue;
        const struct hw_gpu_fault_def *d = &hw_gpu_faults[gp->fault];
        snprintf(run->health_warn[run->nhealth_warn++], sizeof run->health_warn[0],
                 "GPU %d: nvidia-smi said \"%s\" in %llu of %llu rows (%s line %llu on; "
                 "nothing measured): %s",
                 g, d->words, (unsigned long long)gp->fault_rows,
                 (unsigned long long)gp->samples, HW_GPU_FILE,
                 (unsigned long long)gp->fault_line, d->todo);
    }
    for (int i = 0; i < run->nfault_ev && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; i++) {
        const char *gpu = run->fault_ev[i].gpu;
        bool said = false;
        for (int g = 0; g < RD_MAX_GPUS && !said; g++)
            said = run->gpu[g] && run->gpu[g]->fault == run->fault_ev[i].fault &&
                   (!gpu[0] || !strcmp(run->gpu[g]->uuid, gpu));
        if (said)
            continue;
        const struct hw_gpu_fault_def *d = &hw_gpu_faults[run->fault_ev[i].fault];
        snprintf(run->health_warn[run->nhealth_warn++], sizeof run->health_warn[0],
                 "%s%s: nvidia-smi said \"%s\" (%s event): %s", gpu[0] ? "GPU " : "a GPU",
                 gpu, d->words, d->event, d->todo);
    }
}

static void on_diag(void *ctx, const char *name, uint64_t line, const char *reason)
{
    struct sum_run *run = ctx;
    if (++run->diag_count[run->cur_kind] > SUM_DIAG_PER_FILE)
        return;
    if (!run->cfg->message)
        return;
    char msg[600];
    if (line)
        snprintf(msg, sizeof msg, "%s:%llu: %s", name, (unsigned long long)line, reason);
    else
        snprintf(msg, sizeof msg, "%s: %s", name, reason);
    run->cfg->message(run->cfg->message_ctx, msg);
}

static int read_kind(struct sum_run *run, enum hw_file kind, const char *path,
                     const struct rd_read_opts *opts, const struct rd_sink *sink)
{
    if (!path)
        return 0;
    run->cur_kind = kind;
    if (!(run->path[kind] = strdup(path)))
        run->oom = true;
    int rc = rd_read_file(kind, path, opts, sink, &run->q[kind]);
    if (rc == -ENOMEM)
        run->oom = true;
    if (rc < 0) {
        char why[sizeof run->read_error[kind]];
        snprintf(run->read_error[kind], sizeof run->read_error[kind], "%s",
                 hw_open_reason(AT_FDCWD, path, -rc, why, sizeof why));
        if (run->cfg->message) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s: %s", path, run->read_error[kind]);
            run->cfg->message(run->cfg->message_ctx, msg);
        }
    }
    if (run->diag_count[kind] > SUM_DIAG_PER_FILE && run->cfg->message) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: %llu more problems not shown (see the quality section)",
                 path, (unsigned long long)(run->diag_count[kind] - SUM_DIAG_PER_FILE));
        run->cfg->message(run->cfg->message_ctx, msg);
    }
    return rc;
}

/* Every file is read: the phases open until the run's end end at its last sample, and the
 * run's time in no phase is known. */
static void end_open_phases(struct sum_run *run, double last_t)
{
    double tol = edge_tol(run), start = sum_run_began(run);
    for (size_t i = 0; i < run->nphase; i++) {
        struct sum_phase_acc *p = &run->phase[i];
        if (p->open && isinf(p->t1)) { /* it ends at the last sample: a reading */
            p->t1 = fmax(last_t, p->t0);
            p->edge_t1 = true;
            sum_names_end_open(&run->names, p->name, p->t1 - p->t0);
        }
        if (isfinite(start) && fabs(p->t0 - start) <= tol) /* hwmon's baseline */
            p->edge_t0 = true;
    }
    sum_names_end_windows(&run->names, last_t);
    /* the steps: what the phases said, else one per phase named "step" */
    const struct sum_name_acc *step = sum_names_find(&run->names, HW_PHASE_STEP_NAME);
    run->steps = run->steps_logged > 0 ? run->steps_logged
                 : step                  ? (double)(step->count - step->failed)
                                         : 0;
    double t0, t1;
    run->outside_phases_s = NAN;
    if (run->names.n && sum_run_span(run, &t0, &t1))
    {
        double in = sum_names_covered(&run->names, t0, t1); /* NAN: out of memory */
        run->outside_phases_s = in <= t1 - t0 ? (t1 - t0) - in : isnan(in) ? NAN : 0.0;
    }
}

int sum_run_read(struct sum_run *run, const struct sum_inputs *in, const struct sum_config *cfg,
                 double idle_pct)
{
    static const struct sum_config none;
    run->cfg = cfg ? cfg : &none;
    cfg = run->cfg;
    run->idle_pct = idle_pct;
    if (in->dir && !(run->dir = strdup(in->dir)))
        run->oom = true;
    if (cfg->timeline_cols > 0 && !run->tl) {
        run->tl = sum_tl_new(cfg->timeline_cols, cfg->timeline_spark);
        if (!run->tl)
            return -ENOMEM;
    }
    struct rd_sink sink = {
        .ctx = run,
        .gpu = sum_on_gpu,
        .dmon = sum_on_dmon,
        .cpu = sum_on_cpu,
        .proc = sum_on_proc,
        .gpu_proc = sum_on_gpu_proc,
        .phase = sum_on_phase,
        .phase_begin = sum_on_phase_begin,
        .event = sum_on_event,
        .diag = on_diag,
        .tree_pid = sum_on_tree_pid,
        .health = sum_on_health,
        .energy = sum_on_energy_row,
        .pmon = sum_on_pmon,
    };
    struct rd_read_opts opts = {.max_line = cfg->max_line, .libcsv_only = cfg->libcsv_only};
    int first_err = 0;
    int rc = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) /* stage 0, the log: how the others are written */
        if (hw_run_files[k].stage == 0 && (rc = read_kind(run, k, in->path[k], &opts, &sink)) < 0 &&
            !first_err)
            first_err = rc;
    sum_close_open(run, INFINITY); /* begun, and no end nor stop: open until the last sample */
    sum_index_phases(run);
    if (cfg->job_series && !run->jser) { /* anchored at the start event, read by now */
        run->jser = sum_jser_new();
        if (!run->jser)
            return -ENOMEM;
        sum_jser_anchor(run->jser, run->info.t_start);
        run->together.series = run->jser;
    }

    /* time zone of nvidia-smi's timestamps */
    if (run->info.have_tz) {
        run->tz = run->info.tz;
        run->tz_source = SUM_TZ_FROM_START_EVENT;
    } else {
        run->tz_start_unrecognized = run->info.smi_tz_raw[0] != '\0';
        if (cfg->have_tz) {
            run->tz = cfg->tz;
            run->tz_source = SUM_TZ_FROM_OPTION;
        } else {
            rd_tz_parse("UTC", false, &run->tz);
            run->tz_source = SUM_TZ_DEFAULT;
        }
    }
    opts.tz = run->tz;
    if (run->info.have_fields)
        opts.gpu_fields = run->info.gpu_fields;

    for (unsigned stage = 1; stage < HW_RUN_FILE_STAGES; stage++) {
        if (stage == 2) /* tree_pids.csv is read: spans looked up by pid */
            sum_tree_spans_sort(run);
        for (int k = 0; k < HW_FILE_COUNT; k++) {
            if (hw_run_files[k].stage != stage)
                continue;
            rc = read_kind(run, k, in->path[k], &opts, &sink);
            if (rc < 0 && !first_err)
                first_err = rc;
        }
    }
    sum_host_finish(run);
    sum_pmon_finish(run);
    sum_together_finish(&run->together);
    sum_together_finish(&run->together_tracked);
    fault_warnings(run);
    for (int g = 0; g < RD_MAX_GPUS && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; g++)
        if (run->clk[g])
            run->nhealth_warn += sum_clk_warnings(run->clk[g], g, run->health_warn + run->nhealth_warn,
                                                  SUM_MAX_HEALTH_WARNINGS - run->nhealth_warn);
    sum_gpu_energy_finish(run);
    counter_warnings(run);
    if (run->tl) { /* the chart's energy: each GPU's steps of the reading its energy is */
        enum rd_ereading pick[SUM_TL_MAX_GPUS];
        for (int g = 0; g < SUM_TL_MAX_GPUS; g++)
            pick[g] = g < RD_MAX_GPUS ? sum_gpu_energy_reading(run, g, NULL) : RD_ER_COUNT;
        sum_tl_finish(run->tl, pick);
    }

    if (!(run->t_max >= run->t_min)) { /* only whole-second rows: their range is the run's */
        run->t_min = run->tc_min;
        run->t_max = run->tc_max;
    }
    double last_t = run->t_max >= run->t_min ? run->t_max : NAN;
    end_open_phases(run, last_t);
    for (int k = 0; k < HW_FILE_COUNT; k++) /* whether it is still written, seen from here */
        if (run->q[k].present && isfinite(run->q[k].mtime) &&
            !(run->q[k].mtime <= run->outcome.newest_write))
            run->outcome.newest_write = run->q[k].mtime;
    run->outcome.interval_s = run->info.interval_s;
    sum_outcome_finish(&run->outcome, last_t);
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g])
            rd_idle_finish(&run->gpu[g]->idle);

    if (first_err)
        return first_err;
    uint64_t parsed = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        parsed += run->q[k].parsed;
    return parsed ? 0 : -ENODATA;
}
