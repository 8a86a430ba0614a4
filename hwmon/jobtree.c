/* The wrapped job's whole process tree: see jobtree.h. */
#include "jobtree.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "hwrun/buf.h"
#include "hwrun/io.h"
#include "procread.h"

int mon_job_subreaper(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ? -errno : 0;
}

struct ent {
    pid_t pid, ppid, pgid;
};

/* The live processes under proc_root, as /proc's walk (mon_each_pid) finds them. */
struct scan {
    int dfd;
    struct ent *all;
    size_t n, alloc;
    bool oom;
};

/* pid's parent, process group and state from its stat; a zombie or a pid gone is left out. */
static void scan_one(void *arg, pid_t pid)
{
    struct scan *sc = arg;
    char path[32], buf[1024];
    snprintf(path, sizeof path, "%d/stat", (int)pid);
    ssize_t n = hw_read_small(sc->dfd, path, buf, sizeof buf);
    struct mon_pstat st;
    if (sc->oom || n <= 0 || mon_parse_pid_stat(buf, (size_t)n, &st) < 0 || st.state == 'Z' ||
        st.state == 'X')
        return;
    if (!hw_grow(&sc->all, &sc->alloc, sc->n, sizeof *sc->all, 256)) {
        sc->oom = true; /* what was found is still signalled */
        return;
    }
    sc->all[sc->n++] = (struct ent){pid, st.ppid, st.pgrp};
}

long mon_job_scan(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                  pid_t *out, size_t cap)
{
    struct scan sc = {.dfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (sc.dfd < 0)
        return -errno;
    char dents[32768];
    int rc = mon_each_pid(sc.dfd, dents, sizeof dents, scan_one, &sc);
    close(sc.dfd);
    if (rc < 0 && !sc.n) {
        free(sc.all);
        return rc;
    }
    struct ent *all = sc.all;
    size_t n = sc.n;
    /* Breadth first from self: a process list is short (hundreds), so rescanning is cheap. */
    long found = 0;
    pid_t *front = malloc((n + 1) * sizeof *front);
    if (!front) {
        free(all);
        return -ENOMEM;
    }
    size_t head = 0, tail = 0;
    front[tail++] = self;
    while (head < tail) {
        pid_t parent = front[head++];
        for (size_t i = 0; i < n; i++) {
            if (all[i].ppid != parent || all[i].pid == self)
                continue;
            bool skip = false;
            for (size_t k = 0; k < n_skip; k++)
                skip |= skip_pgids[k] > 0 && all[i].pgid == skip_pgids[k];
            if (skip)
                continue;
            if ((size_t)found < cap)
                out[found] = all[i].pid;
            found++;
            if (tail < n + 1)
                front[tail++] = all[i].pid;
        }
    }
    free(front);
    free(all);
    return found;
}

long mon_job_signal(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                    int sig, pid_t *out, size_t cap)
{
    pid_t pids[MON_JOB_MAX];
    long n = mon_job_scan(proc_root, self, skip_pgids, n_skip, pids, MON_JOB_MAX);
    if (n < 0)
        return n;
    long sent = 0;
    for (long i = 0; i < n && i < MON_JOB_MAX; i++)
        if (kill(pids[i], sig) == 0) {
            if ((size_t)sent < cap)
                out[sent] = pids[i];
            sent++;
        }
    return sent;
}
