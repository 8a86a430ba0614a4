/* The wrapped job's whole process tree: see jobtree.h. */
#include "jobtree.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "hwrun/io.h"
#include "procread.h"

int mon_job_subreaper(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ? -errno : 0;
}

struct ent {
    pid_t pid, ppid, pgid;
};

/* pid's parent, process group and state from proc_root/pid/stat; false when it is gone. */
static bool read_stat(int dfd, const char *name, struct ent *e, char *state)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "%s/stat", name);
    ssize_t n = hw_read_small(dfd, path, buf, sizeof buf);
    struct mon_pstat st;
    if (n <= 0 || mon_parse_pid_stat(buf, (size_t)n, &st) < 0)
        return false;
    e->ppid = st.ppid;
    e->pgid = st.pgrp;
    *state = st.state;
    return true;
}

long mon_job_scan(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                  pid_t *out, size_t cap)
{
    DIR *d = opendir(proc_root);
    if (!d)
        return -errno;
    size_t n = 0, alloc = 256;
    struct ent *all = malloc(alloc * sizeof *all);
    if (!all) {
        closedir(d);
        return -ENOMEM;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        struct ent e;
        char state;
        if (!mon_parse_pid_name(de->d_name, &e.pid) || !read_stat(dirfd(d), de->d_name, &e, &state) || state == 'Z' || state == 'X')
            continue;
        if (n == alloc) {
            struct ent *na = realloc(all, 2 * alloc * sizeof *na);
            if (!na)
                break;
            all = na;
            alloc *= 2;
        }
        all[n++] = e;
    }
    closedir(d);
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
