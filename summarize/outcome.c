/* How a run ended: see outcome.h. */
#include "outcome.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <time.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/rundir.h"

const char *const sum_status_names[SUM_STATUS_COUNT] = {
    [SUM_STATUS_OK] = "ok",
    [SUM_STATUS_FAILED] = "failed",
    [SUM_STATUS_KILLED] = "killed",
    [SUM_STATUS_INCOMPLETE] = "incomplete",
    [SUM_STATUS_RUNNING] = "running",
    [SUM_STATUS_UNKNOWN] = "unknown",
    [SUM_STATUS_EXITED] = "exited",
    [SUM_STATUS_DETACHED] = "detached",
};

void sum_outcome_init(struct sum_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->status = SUM_STATUS_UNKNOWN;
    o->exit_status = -1;
    o->last_t = NAN;
    o->processes_left = -1;
    o->process_alive = -1;
    o->oom_kills = -1;
    o->oom_limit_mib = NAN;
    o->open_phase_t0 = o->open_phase_t1 = NAN;
    o->owner_status = SUM_STATUS_COUNT;
    o->newest_write = o->interval_s = NAN;
}

void sum_outcome_open_phase(struct sum_outcome *o, const char *name, double t0, double t1)
{
    o->phases_open++;
    snprintf(o->open_phase, sizeof o->open_phase, "%s", name);
    o->open_phase_t0 = t0;
    o->open_phase_t1 = t1;
}

const char *sum_outcome_where(const struct sum_outcome *o, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!o->open_phase[0])
        return buf;
    double s = o->open_phase_t1 - o->open_phase_t0;
    if (isfinite(s) && s >= 0)
        snprintf(buf, cap, "in phase `%s` after %.1f s", o->open_phase, s);
    else
        snprintf(buf, cap, "in phase `%s`", o->open_phase);
    return buf;
}

void sum_outcome_event(struct sum_outcome *o, const struct rd_event *e)
{
    long v;
    if (!strcmp(e->name, HW_EV_START)) {
        struct sum_outcome keep = *o; /* counted over the whole log, as the phases are */
        sum_outcome_init(o);
        o->newest_write = keep.newest_write;
        o->phases_failed = keep.phases_failed;
        o->phases_open = keep.phases_open;
        o->last_t = keep.last_t;
        memcpy(o->failed_phase, keep.failed_phase, sizeof o->failed_phase);
        memcpy(o->failed_why, keep.failed_why, sizeof o->failed_why);
        memcpy(o->failed_exc, keep.failed_exc, sizeof o->failed_exc);
        o->have_start = true;
        if (rd_json_int(e->data, HW_START_HWMON_PID, &v) && v > 0)
            o->hwmon_pid = v;
        if (o->hwmon_pid && keep.owner_hwmon_pid == o->hwmon_pid) {
            /* the owner's block ended before this hwmon's start event (its questions to
             * nvidia-smi went on beside the block): that ending is this run's */
            o->owner_status = keep.owner_status;
            o->owner_hwmon_pid = keep.owner_hwmon_pid;
            memcpy(o->owner_why, keep.owner_why, sizeof o->owner_why);
        }
        const char *h = rd_json_str(e->data, HW_START_HOST);
        snprintf(o->host, sizeof o->host, "%s", h ? h : "");
        const char *m = rd_json_str(e->data, HW_START_MODE);
        o->attach = m && !strcmp(m, HW_MODE_ATTACH);
        const char *l = rd_json_str(e->data, HW_START_LAUNCHER);
        snprintf(o->launcher, sizeof o->launcher, "%s", l ? l : "");
    } else if (!strcmp(e->name, HW_EV_STOP)) {
        o->have_stop = true;
        if (rd_json_int(e->data, HW_STOP_EXIT_STATUS, &v) && v >= 0 && v <= 255) {
            o->exit_status = (int)v;
            o->signal = v > 128 ? (int)v - 128 : 0;
        }
        const char *r = rd_json_str(e->data, HW_STOP_REASON);
        snprintf(o->stop_reason, sizeof o->stop_reason, "%s", r ? r : "");
        if (rd_json_int(e->data, HW_STOP_PROCESSES_LEFT, &v) && v >= 0)
            o->processes_left = v;
        struct json_object *x;
        o->left_running = e->data && json_object_object_get_ex(e->data, HW_STOP_LEFT_RUNNING, &x);
        struct json_object *al;
        if (e->data && json_object_object_get_ex(e->data, HW_STOP_PROCESS_ALIVE, &al) &&
            json_object_is_type(al, json_type_boolean))
            o->process_alive = json_object_get_boolean(al);
        const char *se = rd_json_str(e->data, HW_STOP_SAMPLER_ERROR);
        snprintf(o->sampler_error, sizeof o->sampler_error, "%s", se ? se : "");
        if (rd_json_int(e->data, HW_STOP_OOM_KILLS, &v) && v >= 0)
            o->oom_kills = v;
        double lim = rd_json_num(e->data, HW_STOP_CGROUP_MEMORY_MAX_MIB);
        if (isfinite(lim) && lim > 0)
            o->oom_limit_mib = lim;
    } else if (!strcmp(e->name, HW_EV_STOP_REQUEST) && !o->stop_signal && !o->have_stop) {
        if (!rd_json_int(e->data, HW_STOPREQ_SIGNAL, &v) || v <= 0 || v >= 128)
            return;
        o->stop_signal = (int)v;
        const char *from = rd_json_str(e->data, HW_STOPREQ_FROM);
        const char *sender = rd_json_str(e->data, HW_STOPREQ_SENDER);
        snprintf(o->stop_from, sizeof o->stop_from, "%s", from ? from : "");
        snprintf(o->stop_sender, sizeof o->stop_sender, "%s", sender ? sender : "");
        o->stop_sender_pid = rd_json_int(e->data, HW_STOPREQ_SENDER_PID, &v) && v > 0 ? v : 0;
        const char *cause = rd_json_str(e->data, HW_STOPREQ_CAUSE);
        snprintf(o->stop_cause, sizeof o->stop_cause, "%s", cause ? cause : "");
    } else if (!strcmp(e->name, HW_EV_MONITOR_END) && !o->have_stop) {
        const char *st = rd_json_str(e->data, HW_MONEND_STATUS);
        if (!st)
            return;
        o->owner_status = !strcmp(st, "ok") ? SUM_STATUS_OK : SUM_STATUS_FAILED;
        o->owner_hwmon_pid = rd_json_int(e->data, HW_MONEND_HWMON_PID, &v) && v > 0 ? v : 0;
        const char *type = rd_json_str(e->data, HW_MONEND_EXCEPTION);
        const char *msg = rd_json_str(e->data, HW_MONEND_MESSAGE);
        if (o->owner_status == SUM_STATUS_FAILED)
            snprintf(o->owner_why, sizeof o->owner_why, "%s%s%.*s",
                     type ? type : "the block failed", msg && *msg ? ": " : "",
                     HW_PHASE_EXCEPTION_MESSAGE_MAX, msg ? msg : "");
    }
}

/* The command died of SIGKILL while the kernel's OOM killer killed in its cgroup, and no stop
 * came from outside (after one, hwmon's own SIGKILL at the grace's end could be it): the OOM
 * killer sent it. Otherwise its kills are a note beside the reason. */
static bool oom_killed(const struct sum_outcome *o)
{
    return o->oom_kills > 0 && o->signal == SIGKILL && !o->stop_signal;
}

/* " (cgroup memory limit 4096 MiB)", or "" when there is none or it is unknown. */
static const char *oom_limit_words(const struct sum_outcome *o, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (isfinite(o->oom_limit_mib))
        snprintf(buf, cap, " (cgroup memory limit %.0f MiB)", o->oom_limit_mib);
    return buf;
}

const char *sum_outcome_note(const struct sum_outcome *o, char *buf, size_t cap)
{
    int n = 0;
    buf[0] = '\0';
    if (o->processes_left > 0)
        n = snprintf(buf, cap, "%ld process%s outlived the command and %s", o->processes_left,
                     o->processes_left == 1 ? "" : "es",
                     o->left_running ? "were left running" : "were stopped");
    if (o->sampler_error[0] && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, "%sno CPU or process samples: the sampler did "
                                                "not start (%s)", n ? "; " : "", o->sampler_error);
    if (o->oom_kills > 0 && !oom_killed(o) && n >= 0 && (size_t)n < cap) {
        char lim[48];
        n += snprintf(buf + n, cap - (size_t)n,
                      "%sthe kernel's OOM killer killed %ld process%s of the job's cgroup%s",
                      n ? "; " : "", o->oom_kills, o->oom_kills == 1 ? "" : "es",
                      oom_limit_words(o, lim, sizeof lim));
    }
    if (o->launcher[0] && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "%sthe command %s ran the job's ranks under its own "
                                           "daemons: the process tree is %s's alone",
                 n ? "; " : "", o->launcher, o->launcher);
    return buf;
}

bool sum_outcome_phase_failed(struct sum_outcome *o, const struct rd_phase *p, int *exit_status,
                              int *signal)
{
    bool failed = rd_phase_failed(p, exit_status, signal);
    if (!failed || !o)
        return failed;
    struct json_object *x;
    bool exception = p->obj && json_object_object_get_ex(p->obj, HW_PHASE_EXCEPTION, &x) && x &&
                     !json_object_is_type(x, json_type_null);
    snprintf(o->failed_phase, sizeof o->failed_phase, "%s", p->name ? p->name : "");
    if (exception) {
        const char *type = rd_json_str(p->obj, HW_PHASE_EXCEPTION);
        const char *msg = rd_json_str(p->obj, HW_PHASE_EXCEPTION_MESSAGE);
        snprintf(o->failed_why, sizeof o->failed_why, "%s%s%.*s", type ? type : "an exception",
                 msg && *msg ? ": " : "", HW_PHASE_EXCEPTION_MESSAGE_MAX, msg ? msg : "");
        /* its first line, for the run's reason: a traceback-like message stays one line */
        int first = msg ? (int)strcspn(msg, "\r\n") : 0;
        snprintf(o->failed_exc, sizeof o->failed_exc, "%s%s%.*s", type ? type : "an exception",
                 first ? ": " : "", first < HW_PHASE_EXCEPTION_MESSAGE_MAX
                                       ? first : HW_PHASE_EXCEPTION_MESSAGE_MAX, msg ? msg : "");
    } else if (*signal > 0) {
        o->failed_exc[0] = '\0'; /* the last failed phase raised nothing */
        snprintf(o->failed_why, sizeof o->failed_why, "killed by signal %d", *signal);
    } else {
        o->failed_exc[0] = '\0';
        snprintf(o->failed_why, sizeof o->failed_why, "exit status %d", *exit_status);
    }
    return failed;
}

const char *sum_outcome_failed_note(const struct sum_outcome *o, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!o->phases_failed)
        return buf;
    unsigned long long n = (unsigned long long)o->phases_failed;
    snprintf(buf, cap, "%llu phase%s failed%s `%s`, %s", n, n == 1 ? "" : "s",
             n == 1 ? ":" : ", the last", o->failed_phase, o->failed_why);
    return buf;
}

/* Is pid a live hwmon on this machine? The start event names the host, so a directory copied
 * from another node, or a pid reused by another program, does not look alive. */
static bool hwmon_alive(const struct sum_outcome *o)
{
    if (o->hwmon_pid <= 0 || o->other_host)
        return false;
    char path[64], comm[32];
    snprintf(path, sizeof path, "/proc/%ld/comm", o->hwmon_pid);
    bool ok = hw_read_small(AT_FDCWD, path, comm, sizeof comm) > 0;
    return ok && strncmp(comm, "hwmon", 5) == 0;
}

/* Seconds since the run's files were last written, from this host's clock (NAN: unknown). */
static double write_age(const struct sum_outcome *o)
{
    struct timespec now;
    if (!isfinite(o->newest_write) || clock_gettime(CLOCK_REALTIME, &now) < 0)
        return NAN;
    return (double)now.tv_sec + now.tv_nsec / 1e9 - o->newest_write;
}

static bool still_written(const struct sum_outcome *o)
{
    double age = write_age(o);
    double within = isfinite(o->interval_s) ? SUM_ALIVE_WRITES * o->interval_s : 0;
    return isfinite(age) && age <= fmax(within, SUM_ALIVE_MIN_S);
}

void sum_outcome_finish(struct sum_outcome *o, double last_t)
{
    o->last_t = last_t;
    if (o->open_phase[0] && isinf(o->open_phase_t1)) /* it ran to the run's last sample */
        o->open_phase_t1 = last_t;
    char host[256] = "";
    o->other_host = o->host[0] && gethostname(host, sizeof host - 1) == 0 &&
                    strcmp(host, o->host) != 0;
    if (!o->have_start && !o->have_stop)
        o->status = SUM_STATUS_UNKNOWN;
    else if (!o->have_stop && o->other_host) /* its pid is not ours to see: what it writes */
        o->status = still_written(o) ? SUM_STATUS_RUNNING : SUM_STATUS_UNKNOWN;
    else if (!o->have_stop)
        o->status = hwmon_alive(o) ? SUM_STATUS_RUNNING : SUM_STATUS_INCOMPLETE;
    else if (o->attach && o->owner_status != SUM_STATUS_COUNT) /* as its owner said */
        o->status = o->owner_status;
    else if (o->stop_signal && o->exit_status >= 0) /* stopped from outside, however it ended */
        o->status = SUM_STATUS_KILLED;
    else if (o->attach && o->exit_status < 0) /* not hwmon's child: no status to know */
        o->status = o->process_alive == 1 || (o->process_alive < 0 &&
                                              strcmp(o->stop_reason, "process_exit") != 0)
                        ? SUM_STATUS_DETACHED
                        : SUM_STATUS_EXITED;
    else if (o->signal)
        o->status = SUM_STATUS_KILLED;
    else if (o->exit_status > 0)
        o->status = SUM_STATUS_FAILED;
    else
        o->status = SUM_STATUS_OK;
    sum_outcome_reason(o, o->reason, sizeof o->reason);
}

/* "the scheduler (slurmstepd, pid 812)", "process kill (pid 77)", "the terminal" */
static void sender_words(const struct sum_outcome *o, char *buf, size_t cap)
{
    char who[96] = "";
    if (o->stop_sender[0] && o->stop_sender_pid > 0)
        snprintf(who, sizeof who, "%s, pid %ld", o->stop_sender, o->stop_sender_pid);
    else if (o->stop_sender[0])
        snprintf(who, sizeof who, "%s", o->stop_sender);
    else if (o->stop_sender_pid > 0)
        snprintf(who, sizeof who, "pid %ld", o->stop_sender_pid);
    if (!strcmp(o->stop_from, "scheduler"))
        snprintf(buf, cap, "the scheduler%s%s%s", who[0] ? " (" : "", who, who[0] ? ")" : "");
    else if (!strcmp(o->stop_from, "container"))
        snprintf(buf, cap, "the container runtime");
    else if (!strcmp(o->stop_from, "terminal"))
        snprintf(buf, cap, "the terminal");
    else if (o->stop_sender[0])
        snprintf(buf, cap, "process %s", who);
    else if (who[0])
        snprintf(buf, cap, "process %s", who);
    else
        snprintf(buf, cap, "another process");
}

static const char *sig_abbrev(int sig)
{
    const char *a = sig > 0 ? sigabbrev_np(sig) : NULL;
    return a ? a : "?";
}

/* The exception a phase logged, after the command's words: what the user's code said, which
 * "exited with status 1" does not (the Python package's failed phase). */
static void exception_words(const struct sum_outcome *o, char *buf, size_t cap)
{
    size_t n = strlen(buf);
    if (o->failed_exc[0] && n + 1 < cap)
        snprintf(buf + n, cap - n, "%sphase `%s` raised %s", n ? "; " : "", o->failed_phase,
                 o->failed_exc);
}

const char *sum_outcome_reason(const struct sum_outcome *o, char *buf, size_t cap)
{
    buf[0] = '\0';
    char from[160] = "", after[224] = "";
    if (o->stop_signal) {
        sender_words(o, from, sizeof from);
        /* the scheduler's cause apart from a cancel: "at the job's time limit" */
        const char *cause = !strcmp(o->stop_cause, "time_limit")  ? " at the job's time limit"
                            : !strcmp(o->stop_cause, "preempted") ? " on a preemption"
                                                                  : "";
        snprintf(after, sizeof after, "signal %d (%s) from %s%s", o->stop_signal,
                 sig_abbrev(o->stop_signal), from, cause);
    }
    double age = write_age(o);
    switch (o->status) {
    case SUM_STATUS_OK:
        if (o->attach && o->owner_status == SUM_STATUS_OK)
            snprintf(buf, cap, "the monitored block ended normally");
        else if (o->exit_status >= 0)
            snprintf(buf, cap, "the command exited 0");
        break;
    case SUM_STATUS_FAILED:
        if (o->attach && o->owner_status == SUM_STATUS_FAILED)
            snprintf(buf, cap, "the monitored block raised %s", o->owner_why);
        else {
            snprintf(buf, cap, "the command exited with status %d", o->exit_status);
            exception_words(o, buf, cap);
        }
        break;
    case SUM_STATUS_KILLED:
        if (oom_killed(o)) {
            char lim[48];
            snprintf(buf, cap, "the command was killed by the kernel's OOM killer%s",
                     oom_limit_words(o, lim, sizeof lim));
        } else if (o->stop_signal && o->signal == o->stop_signal)
            snprintf(buf, cap, "the command was killed by %s", after);
        else if (o->stop_signal && o->signal)
            snprintf(buf, cap, "the command was killed by signal %d (%s) after %s", o->signal,
                     sig_abbrev(o->signal), after);
        else if (o->stop_signal)
            snprintf(buf, cap, "the command exited with status %d after %s", o->exit_status,
                     after);
        else
            snprintf(buf, cap, "the command was killed by signal %d (%s)", o->signal,
                     sig_abbrev(o->signal));
        exception_words(o, buf, cap);
        break;
    case SUM_STATUS_INCOMPLETE:
        snprintf(buf, cap, "no stop event (hwmon was killed or the machine stopped)");
        break;
    case SUM_STATUS_RUNNING:
        if (o->other_host)
            snprintf(buf, cap, "hwmon runs on %s, not here: its files were written %.0f s ago",
                     o->host, age);
        else
            snprintf(buf, cap, "hwmon (pid %ld) is still writing", o->hwmon_pid);
        break;
    case SUM_STATUS_EXITED:
        snprintf(buf, cap, "the watched process exited (hwmon -p is not its parent: its exit "
                           "status is unknown)");
        break;
    case SUM_STATUS_DETACHED:
        snprintf(buf, cap, "hwmon stopped watching (%s) while the process ran on",
                 o->stop_reason[0] ? o->stop_reason : "stopped");
        break;
    default:
        if (o->have_start && o->other_host && isfinite(age))
            snprintf(buf, cap, "no stop event; hwmon ran on %s, not here, and its files were last "
                               "written %.0f s ago: whether it still runs cannot be checked from "
                               "this host", o->host, age);
        else if (o->have_start && o->other_host)
            snprintf(buf, cap, "no stop event; hwmon ran on %s, not here: whether it still runs "
                               "cannot be checked from this host", o->host);
        else
            snprintf(buf, cap, "no hwmon start event");
        break;
    }
    return buf;
}
