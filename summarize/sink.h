/* What the sinks of one run's files share. sum_run_read (runread.c) hands each reader the
 * handlers of the file it reads: sink_phases.c (run.jsonl's phases), sink_events.c (its
 * events), sink_params.c (the params and metrics they carry), sink_gpu.c (the GPU files) and
 * sink_host.c (the CPU, the process tree and the GPUs' processes). Each points one way:
 * runread.c above them all, sink_events.c above sink_phases.c, both above sink_params.c,
 * sink_gpu.c above sink_host.c (pmon's pids are the tree's), and summary.c (the run's data and
 * the figures asked of it) below them all. The helpers here run for every row: inline. */
#ifndef SUM_SINK_H
#define SUM_SINK_H

#include <math.h>
#include <stdint.h>

#include "summary.h"

/* ---- the run's time, its phases, its files' intervals --------------------------------------- */

static inline void see_time(struct sum_run *run, double t)
{
    if (!isfinite(t)) /* an open phase's end before the run's end is known */
        return;
    if (t < run->t_min)
        run->t_min = t;
    if (t > run->t_max)
        run->t_max = t;
}

/* A row whose time is whole seconds (dmon -o DT, pmon): its true time is up to 1 s later. */
static inline void see_time_coarse(struct sum_run *run, double t)
{
    if (!isfinite(t))
        return;
    run->tc_min = fmin(run->tc_min, t);
    run->tc_max = fmax(run->tc_max, t);
}

typedef void phase_fn(struct sum_run *, struct sum_phase_acc *, double, double, const void *);

struct phase_q {
    struct sum_run *run;
    double a, b;
    phase_fn *fn;
    const void *arg;
};

static inline void phase_hit(void *ctx, uint32_t id, double t0, double t1)
{
    (void)t0, (void)t1;
    struct phase_q *q = ctx;
    q->fn(q->run, &q->run->phase[id], q->a, q->b, q->arg);
}

/* Call fn for every phase whose window [t0, t1] meets [a, b]. */
static inline void for_phases(struct sum_run *run, double a, double b, phase_fn *fn, const void *arg)
{
    struct phase_q q = {run, a, b, fn, arg};
    if (run->pidx.n) /* most runs have no phases: a test, not a call */
        sum_ivx_query(&run->pidx, a, b, phase_hit, &q);
}

/* Whether a sample can fall in a phase: most runs have none, and then a GPU row does not even
 * build for_phases' argument. */
static inline bool any_phases(const struct sum_run *run)
{
    return run->pidx.n != 0;
}

static inline void add_interval(struct sum_run *run, int kind, double *prev, double t,
                         struct sum_stat *also)
{
    if (isnan(t))
        return;
    if (!isnan(*prev) && t > *prev) {
        sum_stat_add(&run->q_interval[kind], t - *prev);
        if (also)
            sum_stat_add(also, t - *prev);
    }
    if (isnan(*prev) || t > *prev)
        *prev = t;
}

/* A sample within this of a phase's begin or end read its counters there (hwrun/rundir.h). */
static inline double edge_tol(const struct sum_run *run)
{
    return hw_edge_tol(run->info.interval_s);
}

/* ---- sink_phases.c: run.jsonl's phase entries ---------------------------------------------- */
void sum_on_phase_begin(void *ctx, const struct rd_phase *p);
void sum_on_phase(void *ctx, const struct rd_phase *p);
/* the phases begun and not ended end at t1 (the stop event's time; INFINITY: the last sample) */
void sum_close_open(struct sum_run *run, double t1);
/* every phase known: the index for_phases looks them up in */
void sum_index_phases(struct sum_run *run);

/* ---- sink_params.c: the run's params and metrics ------------------------------------------- */
/* the members of obj (nested: prefix.key) as params, or as metrics */
void sum_params_from(struct sum_run *run, const char *prefix, struct json_object *obj, int depth,
                     bool metric);
/* a phase's own numbers (loss=...) as the run's metrics (the last value) */
void sum_metrics_from_phase(struct sum_run *run, struct json_object *obj);

/* ---- sink_events.c: run.jsonl's events ----------------------------------------------------- */
void sum_on_event(void *ctx, const struct rd_event *e);

/* ---- sink_gpu.c: hw_metrics.csv, dmon, GPM, health, energy, pmon --------------------------- */
void sum_on_gpu(void *ctx, const struct rd_gpu_row *r);
void sum_on_dmon(void *ctx, const struct rd_dmon_row *r);
void sum_on_health(void *ctx, const struct rd_health_row *r);
void sum_on_energy_row(void *ctx, const struct rd_energy_row *r);
void sum_on_pmon(void *ctx, const struct rd_pmon_row *r);
void sum_pmon_finish(struct sum_run *run);
void sum_gpu_energy_finish(struct sum_run *run);

/* ---- sink_host.c: cpu_metrics.csv, proc_metrics.csv, tree_pids.csv, gpu_procs.csv --------- */
void sum_on_cpu(void *ctx, const struct rd_cpu_row *r);
void sum_on_proc(void *ctx, const struct rd_proc_row *r);
void sum_on_tree_pid(void *ctx, const struct rd_tree_pid_row *r);
void sum_on_gpu_proc(void *ctx, const struct rd_gpu_proc_row *r);
/* whether pid was of the job's process tree at time t (tree_pids.csv's spans) */
bool sum_in_tree(const struct sum_run *run, long pid, double t);
void sum_tree_spans_sort(struct sum_run *run);
void sum_host_finish(struct sum_run *run);

#endif
