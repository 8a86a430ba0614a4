/* The nvidia-smi children's lifecycle. Each child is started with mon_spawn() (launch.h), its
 * stdout appended to its CSV file and its stderr to a pipe the main loop reads. When it exits
 * it is restarted after a backoff (1 s, doubling up to MON_CHILD_BACKOFF_MAX_S, afresh after a
 * run of MON_CHILD_HEALTHY_S), without end: a driver that comes back is recorded again. When a
 * file that should grow stops growing, the child is declared hung, sent SIGTERM, SIGKILL after
 * MON_CHILD_HANG_GRACE_S, and restarted. On stop: SIGTERM, the grace period, SIGKILL.
 *
 * A scheduler that stops a job signals every process of it, nvidia-smi included, a moment
 * before or after hwmon hears of it. So a quiet exit nobody here asked for (status 0, or killed by
 * SIGTERM, SIGINT or SIGHUP) is reported only when its restart is due: if the run is held or
 * stopped first (mon_children_hold, mon_children_stop), it is reported as STOPPED, not as a
 * failure, and no child is restarted once the run is held.
 *
 * Every MON_CHILD_*_S below is the documented duration; a test may scale them all (and the
 * restart backoff) with the test-only HWRUN_TEST_TIME_SCALE (timescale.h). The child's own
 * interval_s, the user's, is never scaled.
 *
 * No clock is read here: every call takes the monotonic time `now`, so tests drive every
 * decision with a fake clock. Nothing is printed or logged either: what happens is reported to
 * the set's callback, which run.c turns into run.jsonl events. Reaping stays with the caller
 * (hwmon is a subreaper and reaps everything with waitpid(-1)), who hands each child's status
 * to mon_children_exited(). Main thread only. */
#ifndef HWMON_CHILDREN_H
#define HWMON_CHILDREN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MON_CHILDREN_MAX 6
#define MON_CHILD_BACKOFF_MAX_S 30.0
#define MON_CHILD_HEALTHY_S 60.0   /* a child that ran this long starts its backoff afresh */
#define MON_CHILD_HANG_GRACE_S 2.0 /* a hung child: SIGTERM, then SIGKILL this much later */
#define MON_CHILD_HANG_MIN_S 3.0   /* silent for 5 intervals, but at least this long: hung */
#define MON_CHILD_POLL_S 0.25      /* how often a watched child wants a tick */

enum mon_child_state { MON_CHILD_IDLE, MON_CHILD_RUNNING, MON_CHILD_WAIT_RESTART };

/* A line of a child's output being put together, to look for a GPU fault in nvidia-smi's words
 * (hwrun/rundir.h hw_gpu_faults): the first sizeof line bytes of each line. */
struct mon_fault_scan {
    char line[1024];
    size_t len;
};

struct mon_child {
    const char *name;     /* "query", "dmon", "apps", "gpm" (event data) */
    char **argv;          /* borrowed, NULL-terminated */
    const char *out_path; /* its CSV file (for the caller's events) */
    double interval_s;    /* how often it writes; 0: it may legitimately stay silent */
    int out_fd;           /* its file, O_APPEND, readable (fstat for growth, the torn-line fix);
                             owned by the set once set: mon_children_close() closes it */
    enum mon_child_state state;
    pid_t pid;
    int err_fd; /* read end of its stderr pipe, -1 when closed */
    char err_tail[1024];
    size_t err_len;
    /* stderr and the rows appended to its file (from scan_off on), looked at line by line */
    struct mon_fault_scan err_scan, out_scan;
    long long scan_off;
    bool scan_rows;       /* look at its file's rows too (the caller sets it): stderr always */
    double started, last_growth, restart_at, kill_at;
    long long last_size;
    unsigned attempts;    /* restarts so far */
    unsigned quick_fails; /* consecutive exits soon after start: drives the backoff */
    bool term_sent, hung, stopping;
    bool quiet_exit;      /* WAIT_RESTART after a quiet exit not yet reported (exit_*) */
    pid_t exit_pid;
    int exit_status;
};

enum mon_child_what {
    MON_CHILD_STARTED,      /* pid */
    MON_CHILD_START_FAILED, /* err (-errno of mon_spawn); a restart is scheduled */
    MON_CHILD_EXITED,       /* pid, status, stderr_tail, hung; a restart is scheduled */
    MON_CHILD_RESTARTING,   /* attempt, delay_s: it starts again now */
    MON_CHILD_HUNG,         /* pid, silent_s: SIGTERM sent */
    MON_CHILD_KILLED,       /* pid: SIGKILL sent, SIGTERM's grace being over */
    MON_CHILD_STOPPED,      /* pid, status: exited after mon_children_stop(), or quietly once
                               the run was held or stopped (see above) */
    MON_CHILD_GPU_FAULT,    /* fault, said: a line of its stderr or its file named a GPU fault */
};

struct mon_child_event {
    enum mon_child_what what;
    const struct mon_child *child;
    pid_t pid;
    int status;              /* exit status, 128+N when killed by signal N */
    int err;                 /* START_FAILED */
    const char *stderr_tail; /* EXITED: the last bytes of its stderr, trailing space cut */
    bool hung;               /* EXITED: it had been declared hung (this is that kill) */
    unsigned attempt;        /* RESTARTING: restarts so far, this one included */
    double delay_s;          /* RESTARTING: the backoff it waited */
    double silent_s;         /* HUNG: how long its file had not grown */
    int fault;               /* GPU_FAULT: enum hw_gpu_fault */
    const char *said;        /* GPU_FAULT: the line, NUL-terminated, without its '\n' */
};

typedef void (*mon_child_cb)(void *arg, const struct mon_child_event *ev);

struct mon_children {
    const char *path;  /* the program (nvidia-smi) */
    char *const *envp; /* its environment */
    mon_child_cb cb;   /* may be NULL */
    void *arg;
    struct mon_child ch[MON_CHILDREN_MAX];
    int n;
    bool stopping;
    bool held; /* a stop was requested: no more restarts (mon_children_hold) */
};

void mon_children_init(struct mon_children *s, const char *path, char *const envp[],
                       mon_child_cb cb, void *arg);
/* hwmon itself did not run for gap_s seconds (its container frozen, SIGSTOP, a starved CPU): a
 * child is hung only when silent while hwmon kept running, so the gap is not silence of the
 * children's (frozen with it, they resume a moment after it). Their silence and a hung child's
 * SIGKILL deadline move on by gap_s. */
#define MON_CHILD_PAUSE_S 2.0 /* a tick comes every MON_CHILD_POLL_S: longer than this, a pause */
void mon_children_paused(struct mon_children *s, double gap_s);
/* Add a child (not started; the caller sets out_fd and out_path). NULL when the set is full. */
struct mon_child *mon_children_add(struct mon_children *s, const char *name, char **argv,
                                   double interval_s);
/* Start every child. */
void mon_children_start(struct mon_children *s, double now);
/* Pid pid exited with status (128+N for signal N). Returns false when it is none of ours. */
bool mon_children_exited(struct mon_children *s, pid_t pid, int status, double now);
/* Restart what is due, check for hangs, SIGKILL what outlived its grace. */
void mon_children_tick(struct mon_children *s, double now);
/* Read what a child wrote to stderr (its pipe is readable). Its lines, and the rows it appends
 * to its file (looked at by the tick that sees the file grow, and at its exit), are looked at
 * for a GPU fault in nvidia-smi's words: MON_CHILD_GPU_FAULT. */
void mon_children_read_err(struct mon_children *s, struct mon_child *c);
/* SIGTERM every running child, SIGKILL on the tick after now + grace_s; no more restarts. A
 * hung child keeps an earlier SIGKILL deadline. */
void mon_children_stop(struct mon_children *s, double grace_s, double now);
/* A stop of the run was requested (the job is being stopped): children keep sampling, but
 * none is restarted any more; an exit that a stop signal explains (a quiet one, see above) is
 * reported as STOPPED. */
void mon_children_hold(struct mon_children *s);
/* SIGKILL every running child now (a second stop request). */
void mon_children_kill(struct mon_children *s);
bool mon_children_running(const struct mon_children *s);
/* Seconds until the next tick is needed (at most MON_CHILD_POLL_S, scaled), or -1: none. */
double mon_children_wait(const struct mon_children *s, double now);
/* The running children's process groups (never the job's). Returns how many. */
size_t mon_children_groups(const struct mon_children *s, pid_t *pg, size_t cap);
/* Restarts so far, all children together. */
unsigned mon_children_restarts(const struct mon_children *s);
/* Close the descriptors (the children must have been reaped). */
void mon_children_close(struct mon_children *s);

#endif
