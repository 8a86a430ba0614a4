/* The wrapped job's whole process tree: see jobtree.h. */
#include "jobtree.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static long job_scan(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                     pid_t pgid, bool in_group, pid_t *out, size_t cap);

long mon_job_scan(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                  pid_t *out, size_t cap)
{
    return job_scan(proc_root, self, skip_pgids, n_skip, 0, false, out, cap);
}

/* As mon_job_scan; pgid > 0: only the processes in that group (in_group) or outside it. */
static long job_scan(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                     pid_t pgid, bool in_group, pid_t *out, size_t cap)
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
                skip |= skip_pgids[k] > 0 &&
                        (all[i].pgid == skip_pgids[k] || all[i].pid == skip_pgids[k]);
            if (skip)
                continue;
            /* a process outside the group still leads to its descendants */
            if (pgid <= 0 || (all[i].pgid == pgid) == in_group) {
                if ((size_t)found < cap)
                    out[found] = all[i].pid;
                found++;
            }
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
    return mon_job_signal_group(proc_root, self, skip_pgids, n_skip, sig, 0, false, out, cap);
}

long mon_job_signal_group(const char *proc_root, pid_t self, const pid_t *skip_pgids,
                          size_t n_skip, int sig, pid_t pgid, bool in_group, pid_t *out,
                          size_t cap)
{
    pid_t pids[MON_JOB_MAX];
    long n = job_scan(proc_root, self, skip_pgids, n_skip, pgid, in_group, pids, MON_JOB_MAX);
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

/* The witness's life: only async-signal-safe calls (hwmon may have threads). Every signal is
 * blocked (the mask it was forked with); a signal number read from `in` is taken off its
 * pending set and acknowledged on `out`; EOF (hwmon closed it, or died) ends it. */
/* hwmon has ended, however it ended (kill -9 too): its node lock file (nodelock.h) goes with it,
 * when it is still the file it locked and nobody holds it (a next hwmon of the job that has
 * just made a new one holds it, or finds it gone once it wins it, and takes another). */
static _Noreturn void witness_end(const char *lock_path)
{
    if (lock_path[0]) {
        int fd = open(lock_path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct stat st, now;
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            fcntl(fd, F_SETLK, &fl) == 0 && stat(lock_path, &now) == 0 &&
            now.st_dev == st.st_dev && now.st_ino == st.st_ino)
            unlink(lock_path);
    }
    _exit(0);
}

static _Noreturn void witness_main(int in, int out, pid_t parent, const char *lock_path)
{
    if (getppid() != parent) /* hwmon already gone */
        witness_end(lock_path);
    for (;;) {
        int sig;
        ssize_t n = read(in, &sig, sizeof sig);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof sig) /* EOF: hwmon closed it, or died */
            witness_end(lock_path);
        sigset_t one;
        sigemptyset(&one);
        if (sig > 0 && sig < NSIG && sigaddset(&one, sig) == 0) {
            struct timespec zero = {0, 0};
            while (sigtimedwait(&one, NULL, &zero) == sig)
                ;
        }
        if (write(out, &sig, sizeof sig) != (ssize_t)sizeof sig)
            _exit(0);
    }
}

int mon_witness_start(struct mon_witness *w, const char *lock_path)
{
    static char lock[PATH_MAX]; /* the child's copy, made before fork */
    if (snprintf(lock, sizeof lock, "%s", lock_path ? lock_path : "") >= (int)sizeof lock)
        lock[0] = '\0';
    w->pid = 0;
    w->to = w->from = -1;
    int a[2], b[2];
    if (pipe2(a, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(b, O_CLOEXEC) < 0) {
        int e = errno;
        close(a[0]), close(a[1]);
        return -e;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(a[1]); /* hwmon's ends: EOF when hwmon is gone */
        close(b[0]);
        witness_main(a[0], b[1], parent, lock);
    }
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(a[0]);
    close(b[1]);
    if (pid < 0) {
        close(a[1]), close(b[0]);
        return -e;
    }
    *w = (struct mon_witness){pid, a[1], b[0]};
    return 0;
}

/* sig is in the pending set the status line "ShdPnd:\t<hex>" gives */
static bool pending_in(const char *status, int sig)
{
    const char *l = strstr(status, "\nShdPnd:");
    if (!l)
        return false;
    unsigned long long m = strtoull(l + 8, NULL, 16);
    return sig >= 1 && sig <= 64 && (m >> (sig - 1) & 1);
}

bool mon_witness_group_signal(struct mon_witness *w, const char *proc_root, int sig)
{
    if (w->pid <= 0)
        return false;
    char path[4096], buf[4096];
    snprintf(path, sizeof path, "%s/%d/status", proc_root, (int)w->pid);
    ssize_t n = hw_read_small(AT_FDCWD, path, buf, sizeof buf);
    bool group = n > 0 && pending_in(buf, sig);
    /* taken off before the next signal, so that each is judged by itself */
    if (write(w->to, &sig, sizeof sig) == (ssize_t)sizeof sig) {
        struct pollfd pf = {w->from, POLLIN, 0};
        int ack;
        if (poll(&pf, 1, 1000) == 1) /* a witness gone answers nothing */
            (void)!read(w->from, &ack, sizeof ack);
    }
    return group;
}

void mon_witness_stop(struct mon_witness *w, bool reap)
{
    if (w->pid <= 0)
        return;
    close(w->to);
    close(w->from);
    if (reap) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    *w = (struct mon_witness){0, -1, -1};
}
