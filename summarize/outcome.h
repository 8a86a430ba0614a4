/* How a run ended: decided once, from run.jsonl's hwmon start/stop events and the phases'
 * exit statuses, and printed by every output (JSON, text, sweep rows, HTML) from here. */
#ifndef SUM_OUTCOME_H
#define SUM_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "readers.h"

enum sum_status {
    SUM_STATUS_OK,         /* hwmon stopped, and the wrapped command (if any) exited 0; or system
                            * mode ended */
    SUM_STATUS_FAILED,     /* the wrapped command exited non-zero */
    SUM_STATUS_KILLED,     /* the wrapped command was killed by a signal */
    SUM_STATUS_INCOMPLETE, /* no stop event, and its hwmon is not running: killed, node died */
    SUM_STATUS_RUNNING,    /* no stop event yet, and its hwmon still runs on this host */
    SUM_STATUS_UNKNOWN,    /* not written by hwmon (no start event): nothing says */
    SUM_STATUS_EXITED,     /* attach mode: the watched process exited, its status unknowable */
    SUM_STATUS_DETACHED,   /* attach mode: hwmon stopped watching while the process ran on */
    SUM_STATUS_COUNT
};
extern const char *const sum_status_names[SUM_STATUS_COUNT]; /* "ok", "failed", ... */

struct sum_outcome {
    enum sum_status status;
    int exit_status;        /* the wrapped command's (stop event), -1 when not known */
    int signal;             /* the signal that killed it (exit status 128+N), else 0 */
    char stop_reason[32];   /* the stop event's reason ("" without one) */
    bool have_start, have_stop;
    bool attach;            /* hwmon watched a process it did not start (-p) */
    int process_alive;      /* ... and it still ran at the stop: 1, 0, -1 when not said */
    long hwmon_pid;         /* the start event's hwmon_pid (0 when not given) */
    char host[128];         /* the start event's host */
    double last_t;          /* the last sample or entry of the run (NAN if none) */
    uint64_t phases_failed; /* phases with a non-zero exit_status or an exception */
    long processes_left;    /* the job's processes alive when its command exited (-1: not said) */
    bool left_running;      /* ... and left running (--leave-running), not stopped */
    char sampler_error[64]; /* the sampler could not start: no CPU or process samples ("") */
    long oom_kills;         /* the kernel's OOM kills in the job's cgroup during the run (-1:
                               not measured) */
    double oom_limit_mib;   /* the cgroup's memory limit at the stop (NAN: none or unknown) */
    uint64_t phases_open;   /* phases begun and never ended (over the whole log) */
    char failed_phase[128]; /* the last phase that failed ("" when none) */
    char failed_why[256];   /* how: "exit status 2", "RuntimeError: loss is NaN" */
    char failed_exc[256];   /* the last exception a phase logged, its first line ("" when none):
                             * the run's status_reason carries it (issue 49) */
    char open_phase[128];   /* the innermost of them in the last run ("" when none) */
    double open_phase_t0, open_phase_t1; /* its begin, and its run's end */
    /* the first stop signal that reached hwmon while the job ran (its stop_request event) */
    int stop_signal;        /* 0: none */
    char stop_from[16];     /* "scheduler", "container", "terminal", "process" */
    char stop_sender[32];   /* the sender's command name ("" when not known) */
    long stop_sender_pid;   /* 0 when not known */
    char stop_cause[16];    /* the scheduler's why: "time_limit", "preempted" ("": a cancel, unknown) */
    /* how the owner of an attached monitor (the Python Monitor) said its block ended: its
     * monitor_end event; SUM_STATUS_COUNT when it said nothing */
    enum sum_status owner_status;
    char owner_why[256];    /* "ValueError: boom" */
    long owner_hwmon_pid;   /* the hwmon whose run monitor_end ended (0: not said) */
    /* Whether the run is alive, where hwmon's pid cannot be checked (another host): the newest
     * modification time of its files (real time, NAN when unknown), set before finishing. */
    double newest_write;
    double interval_s;      /* hwmon's interval (NAN when unknown) */
    bool other_host;        /* set by finishing: hwmon ran on another host than this one */
    char launcher[16];      /* the command launched its ranks elsewhere: "srun" ("": no) */
    char reason[640];       /* set by finishing: sum_outcome_reason's words then */
};

void sum_outcome_init(struct sum_outcome *o);
/* Take what an event says (start, stop); other events are ignored. A start after a stop begins
 * a new run in the same log: the outcome is the last run's. */
void sum_outcome_event(struct sum_outcome *o, const struct rd_event *e);
/* Is this phase entry a failure? (runlog time's exit_status != 0, or the Python package's
 * "exception" key.) Also sets the entry's exit_status and signal (-1/0 when absent), and, when
 * it failed, o's failed phase and how (o may be NULL). */
bool sum_outcome_phase_failed(struct sum_outcome *o, const struct rd_phase *p, int *exit_status,
                              int *signal);
/* The words every output uses for what outlived the command and for a sampler that did not
 * start ("2 processes outlived the command and were stopped"); "" when there is nothing to say.
 * Returns buf. */
const char *sum_outcome_note(const struct sum_outcome *o, char *buf, size_t cap);
/* A phase begun at t0 and never ended, up to t1 (INFINITY: the run's end, not known yet); the
 * one given last is the innermost (the latest begun). */
void sum_outcome_open_phase(struct sum_outcome *o, const char *name, double t0, double t1);
/* Where the run was when it ended, in the words every output uses: "in phase `checkpoint`
 * after 19.2 s"; "" without an open phase. Returns buf. */
const char *sum_outcome_where(const struct sum_outcome *o, char *buf, size_t cap);
/* The failed phases in the words every output uses: "1 phase failed: `train`, RuntimeError:
 * loss is NaN" ("2 phases failed, the last ..."); "" when none. Returns buf. */
const char *sum_outcome_failed_note(const struct sum_outcome *o, char *buf, size_t cap);
/* Phases that failed and error-like events: one figure a sweep filters on. */
static inline uint64_t sum_outcome_errors(const struct sum_outcome *o, uint64_t error_events)
{
    return o->phases_failed + error_events;
}
/* Decide the status once the whole log and every file were read; last_t is the run's last
 * sample or entry. A run without a stop event is "running" when the start event's hwmon_pid is
 * a live hwmon on this host, else "incomplete". From another host hwmon's pid cannot be seen: the
 * run is "running" while its files are still being written (newest_write within
 * SUM_ALIVE_WRITES intervals, at least SUM_ALIVE_MIN_S, of now), else "unknown", never a
 * confident "incomplete". */
#define SUM_ALIVE_WRITES 5
#define SUM_ALIVE_MIN_S 30.0
void sum_outcome_finish(struct sum_outcome *o, double last_t);
/* Why the run has its status, in words every output prints after the status ("the command was
 * killed by signal 15 (TERM) from the scheduler (slurmstepd, pid 812)"); "" when there is
 * nothing to add. Returns buf. */
const char *sum_outcome_reason(const struct sum_outcome *o, char *buf, size_t cap);

#endif
