/* Synthetic run directories for the HTML report's tests and driver: the files hwmon writes
 * (hwmon/FORMAT.md), with known values, gaps and phases. */
#ifndef HTML_GEN_H
#define HTML_GEN_H

#include <stdbool.h>
#include <stdio.h>

/* Values of one GPU sample, in hw_metrics.csv's default field order (hwmon/FORMAT.md). A NAN is
 * written as "[N/A]". */
enum {
    GV_UTIL,
    GV_MEMUTIL,
    GV_MEMUSED,
    GV_MEMTOTAL,
    GV_POWER,
    GV_TEMP,
    GV_SMCLK,
    GV_MEMCLK,
    GV_COUNT
};

struct gen_run {
    double t0;       /* epoch seconds of the first sample */
    double seconds;  /* length of sampling */
    double interval; /* seconds between samples */
    int ngpus;
    double gap_from,
        gap_to;             /* no samples in [t0+gap_from, t0+gap_to) (all files); from>=to: none */
    bool cpu, proc, cgroup; /* which other files to write (cgroup: the 4 extra CPU columns) */
    bool jsonl_start;       /* write hwmon's start and stop events into run.jsonl */
    double hint_interval;   /* the start event's interval_s: 0 = interval, < 0 = left out */
    /* A child restart at restart_at seconds (> 0): hw_metrics.csv gets a torn row, no samples
     * for restart_delay seconds, and run.jsonl child_exit and child_restart events. */
    double restart_at, restart_delay;
    bool partial_last;      /* every CSV ends in a partial line (a row being written) */
    int exit_status;        /* the stop event's (jsonl_start) */
    /* Values of GPU gpu at sample i (rel = seconds since t0); NULL: a plain pattern. */
    void (*gpu_values)(void *ctx, int gpu, long i, double rel, double v[GV_COUNT]);
    void *ctx;
};

/* Write the run's files into dir (which exists). Returns 0 or -errno. */
int gen_write_run(const char *dir, const struct gen_run *g);

/* Append one line to dir/run.jsonl. */
int gen_jsonl(const char *dir, const char *line);
/* Append a phase (name is JSON text without quotes, already escaped as needed) that ended at
 * t_end after seconds. */
int gen_phase(const char *dir, double t_end, double seconds, const char *name_json);
int gen_event(const char *dir, double t, const char *name_json, const char *data_json);

/* A training loop's phases (as tests/bench/bench_phases writes them), appended to run.jsonl:
 * steps `step` phases of dt seconds each from t0, an `eval` of 20 dt after every 2500 steps,
 * an `epoch` around every 1000 steps and one `train` around all. Returns the end time through
 * *t_end (may be NULL) and 0, or -errno. */
int gen_steps(const char *dir, double t0, long steps, double dt, double *t_end);

/* n phases of one name, back to back, of dt seconds each from t0 (a training loop that logs a
 * phase per step, 1 ms each in issue 54's measurements), appended to run.jsonl with hwmon's
 * start and stop events around them. Returns the end time through *t_end (may be NULL) and 0,
 * or -errno. */
int gen_back_to_back(const char *dir, const char *name, double t0, long n, double dt,
                     double *t_end);

/* What a program took (gen_measure): wall and CPU (user + system) seconds, peak RSS (getrusage's ru_maxrss of it alone,
 * forked by the small rss_run so that the test's own RSS does not count), the bytes of its
 * standard output (-1: none kept), its exit status (-1: it did not exit). */
struct gen_usage {
    double wall_s, cpu_s;
    long maxrss_kib;
    long long out_bytes;
    int status;
};
/* Run argv (argv[0] a path) with its standard output to out_path (NULL: /dev/null) and its
 * standard error to /dev/null. Returns 0 or -errno. */
int gen_measure(char *const argv[], const char *out_path, struct gen_usage *u);

/* A sweep (issue 49's page): nlr learning rates times nbs batch sizes, a run directory each under
 * base (which exists), named lr<LR>-bs<BS> (gen_sweep_run says each); run number `failed` in that
 * order (-1: none) raises ValueError in its second epoch and exits 1. Each run: one GPU sampled
 * every second for 20 + bs/4 s at 80 + 4 bs W (a larger batch costs more energy and learns
 * better), CPU and process files, a config event {lr, batch, model, seed} (model and seed the
 * same in every run), two `epoch` phases with epoch, loss and acc (gen_sweep_loss). Returns 0 or
 * -errno. */
struct gen_sweep_run {
    char name[64];
    double lr;
    int batch;
    bool failed;
    double loss, acc; /* the last good epoch's, the run's metrics */
};
void gen_sweep_run(int nlr, int nbs, int failed, int k, struct gen_sweep_run *r);
int gen_sweep(const char *base, int nlr, int nbs, int failed);
/* ISO 8601 UTC with milliseconds, as hwmon writes ("2026-11-21T15:27:49.697+00:00"). */
void gen_iso(char *buf, size_t cap, double t);

/* A realistic run for the README's screenshot and manual checks: 2 GPUs, 15 minutes at 1 s,
 * load/compile/train/eval/checkpoint/train/eval phases, a 30 s gap in sampling, a child that
 * exited and was restarted, cgroup limits. Returns 0 or -errno. */
int gen_demo_run(const char *dir);

#endif
