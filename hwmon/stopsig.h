/* Who asked the job to stop, and so what hwmon must add to it. A stop signal (SIGTERM, SIGINT,
 * SIGHUP) that reaches hwmon while the job runs:
 *   - from the kernel (SI_KERNEL): a terminal's Ctrl-C went to the whole foreground process
 *     group, the job included: not sent again;
 *   - from slurmstepd (scancel, a time limit, a preemption): with proctrack/cgroup, SLURM's usual
 *     plugin, only the step's task (hwmon) gets SIGTERM, the rest SIGKILL after KillWait (30 s by
 *     default; measured on slurm 22.05, tests/slurm/FINDINGS.md): forwarded to the job's tree, and
 *     never escalated, so the job's handler has all of SLURM's grace. With proctrack/linuxproc
 *     or proctrack/pgid slurmstepd signals every process of the step (of the task's process
 *     group), the job's included: not sent again (slurm.conf's ProctrackType says which, read
 *     once at the start: mon_slurm_proctrack);
 *   - from outside hwmon's PID namespace while hwmon is its PID 1 (a container runtime: a pod's
 *     SIGTERM, `docker stop`): the runtime signalled PID 1 only, and SIGKILLs every process itself
 *     after its grace period (terminationGracePeriodSeconds): forwarded, never escalated;
 *   - from any other process (kill, timeout, a launcher): forwarded to the whole job, and what is
 *     left after --kill-grace gets SIGKILL. */
#ifndef MON_STOPSIG_H
#define MON_STOPSIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

enum mon_stop_from {
    MON_STOP_PROCESS,   /* a process of this PID namespace sent it to hwmon */
    MON_STOP_TERMINAL,  /* the kernel: the terminal's whole foreground group has it */
    MON_STOP_SCHEDULER, /* slurmstepd: SLURM's grace follows */
    MON_STOP_CONTAINER, /* the container runtime, to hwmon as PID 1 only */
    MON_STOP_FROM_COUNT
};
extern const char *const mon_stop_from_names[MON_STOP_FROM_COUNT]; /* the events' words */

struct mon_stop_req {
    enum mon_stop_from from;
    int sig;
    pid_t sender_pid;  /* 0: not known (the kernel, another PID namespace) */
    char sender[32];   /* its command name (/proc/PID/comm), "" when not known */
    bool group;        /* it went to hwmon's whole process group, the job's main process with it
                          (scancel --full, kill -- -PGID: run.c, jobtree.h's mon_witness) */
};

/* Classify a stop signal from its siginfo (si_code, si_pid) as it reached process self_pid,
 * reading the sender's name from proc_root. */
void mon_stop_classify(struct mon_stop_req *q, const char *proc_root, int sig, int32_t code,
                       uint32_t sender, pid_t self_pid);

/* SLURM's process tracking plugin, from slurm.conf's ProctrackType ("proctrack/cgroup"): from
 * the file $SLURM_CONF names, else /etc/slurm/slurm.conf (read line by line, a regular file
 * only, never waited on). Fills out ("" when not said) and returns 0, or -errno. */
int mon_slurm_proctrack(char *out, size_t cap);
/* The value of ProctrackType in one line of slurm.conf (keys are case-insensitive, '#' starts a
 * comment, a line may hold several KEY=VALUE words); false when the line does not set it. */
bool mon_slurm_conf_proctrack(const char *line, char *out, size_t cap);
/* Whether slurmstepd signals every process of the step on a cancel, not only its task. */
static inline bool mon_slurm_signals_step(const char *proctrack)
{
    return !strcmp(proctrack, "proctrack/linuxproc") || !strcmp(proctrack, "proctrack/pgid");
}

/* Whether the job already received it (then hwmon does not send it again); proctrack: SLURM's
 * plugin where the job runs ("" when not under SLURM or not known: then the scheduler's
 * signal reached hwmon alone, as with proctrack/cgroup). */
static inline bool mon_stop_job_has_it(const struct mon_stop_req *q, const char *proctrack)
{
    return q->from == MON_STOP_TERMINAL || q->group ||
           (q->from == MON_STOP_SCHEDULER && mon_slurm_signals_step(proctrack));
}

/* Whether hwmon itself SIGKILLs what is left of the job after --kill-grace (else the one who
 * asked for the stop does, after the grace it gives): for a stop a plain process asked for,
 * unless a scheduler or runtime owns the job's life (owner: mon_life_owner; a tini or a shell
 * between it and hwmon is such a process, the owner's SIGKILL still follows) and --kill-grace
 * was not given (grace_given). */
static inline bool mon_stop_hwmon_escalates(const struct mon_stop_req *q, const char *owner,
                                            bool grace_given)
{
    return q->from == MON_STOP_PROCESS && (!owner || grace_given);
}

/* Why the scheduler stopped the job, where it can be said: "time_limit" (the job's end time
 * reached), "preempted", or NULL (a cancel, or not known). From SLURM_JOB_END_TIME (epoch
 * seconds, SLURM 23.02 and later) against now, the wall clock's time of the stop request. */
const char *mon_slurm_cause_from_end_time(const char *end_time, double now);
/* From `scontrol show job -o ID`'s line as it reads while the job's SIGTERM is sent (SLURM
 * 22.05: "JobState=COMPLETING Reason=TimeLimit", tests/slurm/FINDINGS.md c). */
const char *mon_slurm_cause_from_scontrol(const char *text);

/* What hwmon does with each signal while it runs (one table: setup, dispatch, the tests and the
 * man page's list come from it). A signal not in it keeps its default action: the faults
 * (SEGV, BUS, ILL, FPE, ABRT, TRAP, SYS) are hwmon's own, XCPU/XFSZ are limits set on hwmon,
 * and the job-control stops (TSTP, TTIN, TTOU) stop hwmon with its job at a terminal. */
enum mon_sig_role {
    MON_SIG_NONE, /* not in the table: its default action */
    MON_SIG_OWN,  /* hwmon's own (SIGCHLD: its children's exits) */
    MON_SIG_STOP, /* a stop request: passed on, and the run ends with the job (stop_request) */
    MON_SIG_PASS, /* the job's: passed on once, recorded (a signal event), nothing else */
};
struct mon_sig_def {
    int sig;
    enum mon_sig_role role;
};
extern const struct mon_sig_def mon_sig_defs[];
extern const size_t mon_sig_ndefs;
/* The role of sig: the table's, and MON_SIG_PASS for the real-time signals (SIGRTMIN..SIGRTMAX:
 * a job may handle them, and their default action would end hwmon). */
enum mon_sig_role mon_sig_role(int sig);

/* Who owns the job's life beside hwmon, and so gives the stop's grace (a SIGKILL after its own
 * grace period: SLURM's KillWait, a pod's terminationGracePeriodSeconds, a unit's
 * TimeoutStopSec): "slurm" (slurm_job set), "kubernetes" (in_pod), "systemd" (invocation_id: a
 * unit's INVOCATION_ID), or NULL (hwmon's --kill-grace is the grace). */
const char *mon_life_owner(bool slurm_job, bool in_pod, const char *invocation_id);

#endif
