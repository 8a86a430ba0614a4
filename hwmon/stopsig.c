/* Who asked the job to stop (stopsig.h). */
#include "stopsig.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

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
