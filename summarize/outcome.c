/* How a run ended: see outcome.h. */
#include "outcome.h"

#include <fcntl.h>
#include <json-c/json.h>
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
    o->open_phase_t0 = o->open_phase_t1 = NAN;
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
        o->phases_failed = keep.phases_failed;
        o->phases_open = keep.phases_open;
        o->last_t = keep.last_t;
        memcpy(o->failed_phase, keep.failed_phase, sizeof o->failed_phase);
        memcpy(o->failed_why, keep.failed_why, sizeof o->failed_why);
        o->have_start = true;
        if (rd_json_int(e->data, HW_START_HWMON_PID, &v) && v > 0)
            o->hwmon_pid = v;
        const char *h = rd_json_str(e->data, HW_START_HOST);
        snprintf(o->host, sizeof o->host, "%s", h ? h : "");
        const char *m = rd_json_str(e->data, HW_START_MODE);
        o->attach = m && !strcmp(m, HW_MODE_ATTACH);
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
    }
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
        snprintf(buf + n, cap - (size_t)n, "%sno CPU or process samples: the sampler did not "
                                           "start (%s)", n ? "; " : "", o->sampler_error);
    return buf;
}

bool sum_outcome_phase_failed(struct sum_outcome *o, const struct rd_phase *p, int *exit_status,
                              int *signal)
{
    long v;
    *exit_status = rd_json_int(p->obj, HW_PHASE_EXIT_STATUS, &v) && v >= 0 && v <= 255 ? (int)v : -1;
    *signal = rd_json_int(p->obj, HW_PHASE_SIGNAL, &v) && v > 0 && v < 128 ? (int)v : 0;
    struct json_object *x;
    bool exception = p->obj && json_object_object_get_ex(p->obj, HW_PHASE_EXCEPTION, &x) && x &&
                     !json_object_is_type(x, json_type_null);
    bool failed = *exit_status > 0 || *signal > 0 || exception;
    if (!failed || !o)
        return failed;
    snprintf(o->failed_phase, sizeof o->failed_phase, "%s", p->name ? p->name : "");
    if (exception) {
        const char *type = rd_json_str(p->obj, HW_PHASE_EXCEPTION);
        const char *msg = rd_json_str(p->obj, HW_PHASE_EXCEPTION_MESSAGE);
        snprintf(o->failed_why, sizeof o->failed_why, "%s%s%.*s", type ? type : "an exception",
                 msg && *msg ? ": " : "", HW_PHASE_EXCEPTION_MESSAGE_MAX, msg ? msg : "");
    } else if (*signal > 0) {
        snprintf(o->failed_why, sizeof o->failed_why, "killed by signal %d", *signal);
    } else {
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
    char host[256] = "";
    if (o->hwmon_pid <= 0 || !o->host[0] || gethostname(host, sizeof host - 1) < 0 ||
        strcmp(host, o->host) != 0)
        return false;
    char path[64], comm[32];
    snprintf(path, sizeof path, "/proc/%ld/comm", o->hwmon_pid);
    bool ok = hw_read_small(AT_FDCWD, path, comm, sizeof comm) > 0;
    return ok && strncmp(comm, "hwmon", 5) == 0;
}

void sum_outcome_finish(struct sum_outcome *o, double last_t)
{
    o->last_t = last_t;
    if (o->open_phase[0] && isinf(o->open_phase_t1)) /* it ran to the run's last sample */
        o->open_phase_t1 = last_t;
    if (!o->have_start && !o->have_stop)
        o->status = SUM_STATUS_UNKNOWN;
    else if (!o->have_stop)
        o->status = hwmon_alive(o) ? SUM_STATUS_RUNNING : SUM_STATUS_INCOMPLETE;
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
}
