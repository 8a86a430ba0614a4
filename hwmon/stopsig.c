/* Who asked the job to stop (stopsig.h). */
#include "stopsig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"

const char *const mon_stop_from_names[MON_STOP_FROM_COUNT] = {
    [MON_STOP_PROCESS] = "process",
    [MON_STOP_TERMINAL] = "terminal",
    [MON_STOP_SCHEDULER] = "scheduler",
    [MON_STOP_CONTAINER] = "container",
};

void mon_stop_classify(struct mon_stop_req *q, const char *proc_root, int sig, int32_t code,
                       uint32_t sender, pid_t self_pid)
{
    memset(q, 0, sizeof *q);
    q->sig = sig;
    q->from = MON_STOP_PROCESS;
    if (code == SI_KERNEL) {
        q->from = MON_STOP_TERMINAL;
        return;
    }
    if (sender == 0) { /* sent from an ancestor PID namespace: the runtime, if we are its init */
        if (self_pid == 1 && code == SI_USER)
            q->from = MON_STOP_CONTAINER;
        return;
    }
    q->sender_pid = (pid_t)sender;
    char path[4096];
    snprintf(path, sizeof path, "%s/%u/comm", proc_root, (unsigned)sender);
    ssize_t n = hw_read_small(AT_FDCWD, path, q->sender, sizeof q->sender);
    if (n <= 0) {
        q->sender[0] = '\0';
        return; /* it has exited already: nothing says it was the scheduler */
    }
    q->sender[strcspn(q->sender, "\n")] = '\0';
    if (!strcmp(q->sender, "slurmstepd"))
        q->from = MON_STOP_SCHEDULER;
}

bool mon_slurm_conf_proctrack(const char *line, char *out, size_t cap)
{
    static const char key[] = "ProctrackType=";
    size_t end = strcspn(line, "#\n");
    for (size_t i = 0; i < end;) {
        while (i < end && isspace((unsigned char)line[i]))
            i++;
        size_t w = i;
        while (i < end && !isspace((unsigned char)line[i]))
            i++;
        size_t n = i - w;
        if (n > sizeof key - 1 && !strncasecmp(line + w, key, sizeof key - 1)) {
            size_t vl = n - (sizeof key - 1);
            if (vl >= cap)
                return false;
            memcpy(out, line + w + sizeof key - 1, vl);
            out[vl] = '\0';
            return true;
        }
    }
    return false;
}

int mon_slurm_proctrack(char *out, size_t cap)
{
    out[0] = '\0';
    const char *path = getenv("SLURM_CONF");
    if (!path || !*path)
        path = "/etc/slurm/slurm.conf";
    /* a configuration file may be a link (a shared /etc/slurm); never a FIFO to wait on */
    int fd = hw_open_file(AT_FDCWD, path, HW_OPEN_READ | HW_OPEN_FOLLOW);
    if (fd < 0)
        return fd;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return -errno;
    }
    char *line = NULL;
    size_t lcap = 0;
    while (getline(&line, &lcap, f) > 0)
        mon_slurm_conf_proctrack(line, out, cap); /* the last setting wins, as in SLURM */
    free(line);
    fclose(f);
    return 0;
}

const struct mon_sig_def mon_sig_defs[] = {
    {.sig = SIGCHLD, .role = MON_SIG_OWN},
    {.sig = SIGTERM, .role = MON_SIG_STOP},
    {.sig = SIGINT, .role = MON_SIG_STOP},
    {.sig = SIGHUP, .role = MON_SIG_STOP},
    /* SLURM's --signal, a checkpoint-on-preemption recipe's, scancel --signal */
    {.sig = SIGUSR1, .role = MON_SIG_PASS},
    {.sig = SIGUSR2, .role = MON_SIG_PASS},
    /* slurmd sends SIGCONT before SIGTERM; `kill -CONT` after a SIGSTOP of the job */
    {.sig = SIGCONT, .role = MON_SIG_PASS},
    {.sig = SIGWINCH, .role = MON_SIG_PASS},
    {.sig = SIGURG, .role = MON_SIG_PASS},
    {.sig = SIGQUIT, .role = MON_SIG_PASS},
    {.sig = SIGALRM, .role = MON_SIG_PASS},
    {.sig = SIGVTALRM, .role = MON_SIG_PASS},
    {.sig = SIGPROF, .role = MON_SIG_PASS},
    {.sig = SIGIO, .role = MON_SIG_PASS},
    {.sig = SIGPWR, .role = MON_SIG_PASS},
};
const size_t mon_sig_ndefs = sizeof mon_sig_defs / sizeof mon_sig_defs[0];

enum mon_sig_role mon_sig_role(int sig)
{
    for (size_t i = 0; i < mon_sig_ndefs; i++)
        if (mon_sig_defs[i].sig == sig)
            return mon_sig_defs[i].role;
    return sig >= SIGRTMIN && sig <= SIGRTMAX ? MON_SIG_PASS : MON_SIG_NONE;
}

const char *mon_life_owner(bool slurm_job, bool in_pod, const char *invocation_id)
{
    if (slurm_job)
        return "slurm";
    if (in_pod)
        return "kubernetes";
    if (invocation_id && *invocation_id)
        return "systemd";
    return NULL;
}

const char *mon_slurm_cause_from_end_time(const char *end_time, double now)
{
    if (!end_time || !*end_time)
        return NULL;
    char *end;
    errno = 0;
    long long t = strtoll(end_time, &end, 10);
    if (errno || *end || t <= 0)
        return NULL;
    /* slurmctld checks limits every ~30 s: the TERM comes at or after the end time; a second's
     * slack for clocks read a moment apart */
    return now >= (double)t - 1 ? "time_limit" : NULL;
}

/* the value of " KEY=" in a one-line record ("" when absent), copied to out */
static void record_value(const char *text, const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *p = text; (p = strstr(p, key)) != NULL; p += kl)
        if (p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') {
            p += kl;
            size_t n = strcspn(p, " \t\n");
            if (n >= cap)
                n = cap - 1;
            memcpy(out, p, n);
            out[n] = '\0';
            return;
        }
}

const char *mon_slurm_cause_from_scontrol(const char *text)
{
    char reason[64], state[64];
    record_value(text, "Reason=", reason, sizeof reason);
    record_value(text, "JobState=", state, sizeof state);
    if (!strcmp(reason, "TimeLimit") || !strcmp(state, "TIMEOUT") ||
        !strcmp(state, "DEADLINE") || !strcmp(reason, "DeadLine"))
        return "time_limit";
    if (!strcmp(state, "PREEMPTED") || !strncmp(reason, "Preempt", 7))
        return "preempted";
    return NULL;
}
