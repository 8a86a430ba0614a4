/* The nvidia-smi children's lifecycle (see children.h): a small state machine per child, IDLE
 * -> RUNNING -> WAIT_RESTART -> RUNNING ..., driven by the caller's clock. */
#include "children.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/rundir.h"
#include "launch.h"
#include "timescale.h"

static void report(const struct mon_children *s, const struct mon_child_event *ev)
{
    if (s->cb)
        s->cb(s->arg, ev);
}

/* 1, 2, 4, ... seconds for the 1st, 2nd, 3rd quick failure in a row, at most the cap (each
 * times the test-only time scale, timescale.h: 1 unless a test sets it). */
static double backoff(unsigned fails)
{
    double d = 1.0;
    for (unsigned i = 1; i < fails && d < MON_CHILD_BACKOFF_MAX_S; i++)
        d *= 2;
    return mon_scaled(d > MON_CHILD_BACKOFF_MAX_S ? MON_CHILD_BACKOFF_MAX_S : d);
}

void mon_children_init(struct mon_children *s, const char *path, char *const envp[],
                       mon_child_cb cb, void *arg)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->envp = envp;
    s->cb = cb;
    s->arg = arg;
    for (int i = 0; i < MON_CHILDREN_MAX; i++)
        s->ch[i].out_fd = s->ch[i].err_fd = -1;
}

struct mon_child *mon_children_add(struct mon_children *s, const char *name, char **argv,
                                   double interval_s)
{
    if (s->n >= MON_CHILDREN_MAX)
        return NULL;
    struct mon_child *c = &s->ch[s->n++];
    c->name = name;
    c->argv = argv;
    c->interval_s = interval_s;
    return c;
}

/* A whole line: a GPU fault in it is reported (the caller keeps one event per fault and GPU). */
static void scan_line(const struct mon_children *s, struct mon_child *c, struct mon_fault_scan *sc)
{
    int k = hw_gpu_fault_in(sc->line, sc->len);
    if (k == HW_GPU_FAULT_NONE)
        return;
    size_t n = sc->len < sizeof sc->line ? sc->len : sizeof sc->line - 1;
    while (n && (sc->line[n - 1] == '\r' || sc->line[n - 1] == ' '))
        n--;
    sc->line[n] = '\0';
    report(s, &(struct mon_child_event){
                  .what = MON_CHILD_GPU_FAULT, .child = c, .pid = c->pid, .fault = k,
                  .said = sc->line});
}

static void scan_bytes(const struct mon_children *s, struct mon_child *c,
                       struct mon_fault_scan *sc, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            scan_line(s, c, sc);
            sc->len = 0;
        } else if (sc->len < sizeof sc->line - 1) { /* a longer line: its first bytes */
            sc->line[sc->len++] = p[i];
        }
    }
}

/* What the child appended to its file since scan_off: 64 KiB a look at most (a burst beyond
 * it is skipped, never read into memory), in the stack's 4 KiB. */
static void scan_file(const struct mon_children *s, struct mon_child *c)
{
    struct stat st;
    if (!c->scan_rows || c->out_fd < 0 || fstat(c->out_fd, &st) < 0)
        return;
    if ((long long)st.st_size <= c->scan_off) {
        c->scan_off = (long long)st.st_size; /* cut back (a full disk): on from there */
        return;
    }
    if ((long long)st.st_size - c->scan_off > 65536) {
        c->scan_off = (long long)st.st_size - 65536;
        c->out_scan.len = 0;
    }
    char buf[4096];
    while (c->scan_off < (long long)st.st_size) {
        ssize_t n = pread(c->out_fd, buf, sizeof buf, (off_t)c->scan_off);
        if (n <= 0)
            break;
        scan_bytes(s, c, &c->out_scan, buf, (size_t)n);
        c->scan_off += n;
    }
}

static void schedule_restart(struct mon_child *c, double now)
{
    c->quick_fails++;
    c->state = MON_CHILD_WAIT_RESTART;
    c->restart_at = now + backoff(c->quick_fails);
}

static void child_start(struct mon_children *s, struct mon_child *c, double now)
{
    int ep[2];
    c->err_len = 0;
    c->err_tail[0] = '\0';
    c->err_scan.len = c->out_scan.len = 0;
    c->term_sent = c->hung = false;
    if (pipe2(ep, O_CLOEXEC) < 0)
        ep[0] = ep[1] = -1; /* no stderr tail then, but the child still runs */
    else
        fcntl(ep[0], F_SETFL, O_NONBLOCK);
    /* the file's size before the child can write to it: its rows are from here on */
    struct stat st;
    c->last_size = c->out_fd >= 0 && fstat(c->out_fd, &st) == 0 ? (long long)st.st_size : 0;
    c->scan_off = c->last_size;
    pid_t pid;
    int rc = mon_spawn(s->path, c->argv, s->envp, c->out_fd, ep[1], &pid);
    if (ep[1] >= 0)
        close(ep[1]);
    if (rc < 0) {
        if (ep[0] >= 0)
            close(ep[0]);
        c->err_fd = -1;
        schedule_restart(c, now);
        report(s, &(struct mon_child_event){
                      .what = MON_CHILD_START_FAILED, .child = c, .status = 127, .err = rc});
        return;
    }
    c->pid = pid;
    c->err_fd = ep[0];
    c->state = MON_CHILD_RUNNING;
    c->started = c->last_growth = now;
    report(s, &(struct mon_child_event){.what = MON_CHILD_STARTED, .child = c, .pid = pid});
}

void mon_children_start(struct mon_children *s, double now)
{
    for (int i = 0; i < s->n; i++)
        child_start(s, &s->ch[i], now);
}

void mon_children_read_err(struct mon_children *s, struct mon_child *c)
{
    if (c->err_fd < 0)
        return;
    for (;;) {
        char tmp[1024];
        ssize_t n = read(c->err_fd, tmp, sizeof tmp);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            close(c->err_fd);
            c->err_fd = -1;
            if (c->err_scan.len) /* a last line without '\n' */
                scan_bytes(s, c, &c->err_scan, "\n", 1);
            return;
        }
        scan_bytes(s, c, &c->err_scan, tmp, (size_t)n);
        /* keep the last sizeof err_tail - 1 bytes */
        size_t cap = sizeof c->err_tail - 1, k = (size_t)n;
        if (k >= cap) {
            memcpy(c->err_tail, tmp + k - cap, cap);
            c->err_len = cap;
        } else {
            if (c->err_len + k > cap) {
                size_t drop = c->err_len + k - cap;
                memmove(c->err_tail, c->err_tail + drop, c->err_len - drop);
                c->err_len -= drop;
            }
            memcpy(c->err_tail + c->err_len, tmp, k);
            c->err_len += k;
        }
        c->err_tail[c->err_len] = '\0';
    }
}

/* A child that died mid-line (nvidia-smi killed, or crashed) leaves a row without '\n'; its
 * restarted successor would glue its first row onto it. hwmon is the only writer while no
 * child runs, so it ends the torn row: one bad line instead of two. */
static void end_torn_line(struct mon_child *c)
{
    struct stat st;
    char last;
    if (c->out_fd >= 0 && fstat(c->out_fd, &st) == 0 && st.st_size > 0 &&
        pread(c->out_fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
        (void)hw_write_all(c->out_fd, "\n", 1, NULL);
}

/* An exit a stop signal explains: nvidia-smi ends with status 0 or dies of the signal. */
static bool quiet_status(int status)
{
    return status == 0 || status == 128 + SIGTERM || status == 128 + SIGINT ||
           status == 128 + SIGHUP;
}

static void strip_trailing_space(char *s, size_t *len)
{
    size_t n = *len;
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
    *len = n;
}

bool mon_children_exited(struct mon_children *s, pid_t pid, int status, double now)
{
    struct mon_child *c = NULL;
    for (int i = 0; i < s->n && !c; i++)
        if (s->ch[i].pid == pid && s->ch[i].state == MON_CHILD_RUNNING)
            c = &s->ch[i];
    if (!c || pid <= 0)
        return false;
    mon_children_read_err(s, c);
    scan_file(s, c);
    if (c->out_scan.len) /* its torn last row, ended below */
        scan_bytes(s, c, &c->out_scan, "\n", 1);
    if (c->err_scan.len)
        scan_bytes(s, c, &c->err_scan, "\n", 1);
    end_torn_line(c);
    if (c->err_fd >= 0) { /* a grandchild may hold the pipe: don't wait for its EOF */
        close(c->err_fd);
        c->err_fd = -1;
    }
    c->pid = 0;
    bool quiet = !c->term_sent && quiet_status(status);
    if (c->stopping || (s->held && quiet)) {
        c->state = MON_CHILD_IDLE;
        report(s, &(struct mon_child_event){
                      .what = MON_CHILD_STOPPED, .child = c, .pid = pid, .status = status});
        return true;
    }
    /* a child that ran a good while before failing starts its backoff afresh */
    if (now - c->started > mon_scaled(MON_CHILD_HEALTHY_S))
        c->quick_fails = 0;
    strip_trailing_space(c->err_tail, &c->err_len);
    if (s->held) { /* a failure all the same, but the run is ending: no restart */
        c->state = MON_CHILD_IDLE;
    } else {
        schedule_restart(c, now);
        if (quiet) { /* said when its restart is due, unless a stop explains it first */
            c->quiet_exit = true;
            c->exit_pid = pid;
            c->exit_status = status;
            return true;
        }
    }
    report(s, &(struct mon_child_event){.what = MON_CHILD_EXITED,
                                        .child = c,
                                        .pid = pid,
                                        .status = status,
                                        .stderr_tail = c->err_tail,
                                        .hung = c->hung});
    return true;
}

/* A quiet exit waiting to be said: as the failure it was (its restart is due), or as a stop. */
static void say_quiet_exit(const struct mon_children *s, struct mon_child *c, bool stopped)
{
    if (!c->quiet_exit)
        return;
    c->quiet_exit = false;
    report(s, &(struct mon_child_event){.what = stopped ? MON_CHILD_STOPPED : MON_CHILD_EXITED,
                                        .child = c,
                                        .pid = c->exit_pid,
                                        .status = c->exit_status,
                                        .stderr_tail = c->err_tail});
}

static void child_tick(struct mon_children *s, struct mon_child *c, double now)
{
    if (c->state == MON_CHILD_WAIT_RESTART && !s->stopping && !s->held && now >= c->restart_at) {
        say_quiet_exit(s, c, false);
        c->attempts++;
        report(s, &(struct mon_child_event){.what = MON_CHILD_RESTARTING,
                                            .child = c,
                                            .attempt = c->attempts,
                                            .delay_s = backoff(c->quick_fails)});
        child_start(s, c, now);
        return;
    }
    if (c->state != MON_CHILD_RUNNING)
        return;
    if (c->term_sent) {
        if (now >= c->kill_at) {
            kill(-c->pid, SIGKILL);
            c->kill_at = now + 3600; /* once */
            report(s,
                   &(struct mon_child_event){.what = MON_CHILD_KILLED, .child = c, .pid = c->pid});
        }
        return;
    }
    if (c->interval_s <= 0)
        return;
    struct stat st;
    if (fstat(c->out_fd, &st) == 0 && (long long)st.st_size != c->last_size) {
        c->last_size = (long long)st.st_size;
        c->last_growth = now;
        scan_file(s, c);
        return;
    }
    double hang_s = 5 * c->interval_s;
    if (hang_s < mon_scaled(MON_CHILD_HANG_MIN_S)) /* the user's interval is never scaled */
        hang_s = mon_scaled(MON_CHILD_HANG_MIN_S);
    if (now - c->last_growth > hang_s) {
        c->hung = c->term_sent = true;
        kill(-c->pid, SIGTERM);
        c->kill_at = now + mon_scaled(MON_CHILD_HANG_GRACE_S);
        report(s, &(struct mon_child_event){.what = MON_CHILD_HUNG,
                                            .child = c,
                                            .pid = c->pid,
                                            .silent_s = now - c->last_growth});
    }
}

void mon_children_paused(struct mon_children *s, double gap_s)
{
    if (!(gap_s > 0))
        return;
    for (int i = 0; i < s->n; i++) {
        struct mon_child *c = &s->ch[i];
        if (c->state != MON_CHILD_RUNNING)
            continue;
        c->last_growth += gap_s;
        if (c->term_sent)
            c->kill_at += gap_s;
    }
}

void mon_children_tick(struct mon_children *s, double now)
{
    for (int i = 0; i < s->n; i++)
        child_tick(s, &s->ch[i], now);
}

/* Children waiting for a restart get none: a quiet exit is said as a stop. */
static void cancel_restarts(struct mon_children *s)
{
    for (int i = 0; i < s->n; i++) {
        struct mon_child *c = &s->ch[i];
        if (c->state == MON_CHILD_WAIT_RESTART) {
            say_quiet_exit(s, c, true);
            c->state = MON_CHILD_IDLE;
        }
    }
}

void mon_children_hold(struct mon_children *s)
{
    s->held = true;
    cancel_restarts(s);
}

void mon_children_stop(struct mon_children *s, double grace_s, double now)
{
    cancel_restarts(s);
    s->stopping = true;
    for (int i = 0; i < s->n; i++) {
        struct mon_child *c = &s->ch[i];
        c->stopping = true;
        if (c->state == MON_CHILD_RUNNING) {
            kill(-c->pid, SIGTERM);
            if (!c->term_sent || c->kill_at > now + grace_s) /* a hung child keeps its deadline */
                c->kill_at = now + grace_s;
            c->term_sent = true;
        } else {
            c->state = MON_CHILD_IDLE;
        }
    }
}

void mon_children_kill(struct mon_children *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->ch[i].state == MON_CHILD_RUNNING)
            kill(-s->ch[i].pid, SIGKILL);
}

bool mon_children_running(const struct mon_children *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->ch[i].state == MON_CHILD_RUNNING)
            return true;
    return false;
}

double mon_children_wait(const struct mon_children *s, double now)
{
    double wait = -1, poll = mon_scaled(MON_CHILD_POLL_S);
    for (int i = 0; i < s->n; i++) {
        const struct mon_child *c = &s->ch[i];
        if (c->state == MON_CHILD_RUNNING && (c->interval_s > 0 || c->term_sent)) {
            if (wait < 0 || poll < wait)
                wait = poll;
        } else if (c->state == MON_CHILD_WAIT_RESTART) {
            double d = c->restart_at - now;
            d = d < 0 ? 0 : d > poll ? poll : d;
            if (wait < 0 || d < wait)
                wait = d;
        }
    }
    return wait;
}

size_t mon_children_groups(const struct mon_children *s, pid_t *pg, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < s->n && n < cap; i++)
        if (s->ch[i].pid > 0)
            pg[n++] = s->ch[i].pid;
    return n;
}

unsigned mon_children_restarts(const struct mon_children *s)
{
    unsigned n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->ch[i].attempts;
    return n;
}

void mon_children_close(struct mon_children *s)
{
    for (int i = 0; i < s->n; i++) {
        struct mon_child *c = &s->ch[i];
        if (c->err_fd >= 0)
            close(c->err_fd);
        if (c->out_fd >= 0)
            close(c->out_fd);
        c->err_fd = c->out_fd = -1;
    }
}
