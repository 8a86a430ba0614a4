/* children.c's lifecycle on its own (suite child_unit): real short-lived processes (/bin/sh,
 * sleep) for the pids, a fake clock for every decision. The clock starts far from the real
 * monotonic time, so a clock read inside children.c would show. The end-to-end behaviour (the
 * events in run.jsonl) is test_hwmon.c's children suite. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "children.h"
#include "hwrun/rundir.h"
#include "testutil.h"
#include "timescale.h"

extern char **environ;

#define T0 100000.0 /* the fake clock's start */

struct rec_ev {
    enum mon_child_what what;
    const struct mon_child *child;
    pid_t pid;
    int status, err;
    bool hung;
    unsigned attempt;
    double delay_s, silent_s;
    char tail[64];
    int fault;
    char said[160];
};

struct rec {
    struct rec_ev ev[64];
    int n;
};

static void on_ev(void *arg, const struct mon_child_event *e)
{
    struct rec *r = arg;
    if (r->n >= 64)
        return;
    struct rec_ev *x = &r->ev[r->n++];
    x->what = e->what;
    x->child = e->child;
    x->pid = e->pid;
    x->status = e->status;
    x->err = e->err;
    x->hung = e->hung;
    x->attempt = e->attempt;
    x->delay_s = e->delay_s;
    x->silent_s = e->silent_s;
    snprintf(x->tail, sizeof x->tail, "%s", e->stderr_tail ? e->stderr_tail : "");
    x->fault = e->fault;
    snprintf(x->said, sizeof x->said, "%s", e->said ? e->said : "");
}

/* The events since index *from, of one kind. */
static int count(const struct rec *r, int from, enum mon_child_what w)
{
    int n = 0;
    for (int i = from; i < r->n; i++)
        n += r->ev[i].what == w;
    return n;
}

/* The last event of a kind (a zeroed one, what = -1, when there is none). */
static const struct rec_ev *last(const struct rec *r, enum mon_child_what w)
{
    static const struct rec_ev none = {.what = (enum mon_child_what) - 1};
    for (int i = r->n - 1; i >= 0; i--)
        if (r->ev[i].what == w)
            return &r->ev[i];
    return &none;
}

struct fixture {
    char *dir;
    struct mon_children s;
    struct rec rec;
    char *argv[2][6];
};

static void fx_init(struct fixture *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->dir = th_tmpdir("children");
    mon_children_init(&f->s, path, environ, on_ev, &f->rec);
}

/* A child running `sh -c script`, its output in DIR/name.csv. */
static struct mon_child *fx_add(struct fixture *f, const char *name, const char *script,
                                double interval_s)
{
    int k = f->s.n;
    char **a = f->argv[k];
    a[0] = "sh";
    a[1] = "-c";
    a[2] = (char *)script;
    a[3] = NULL;
    struct mon_child *c = mon_children_add(&f->s, name, a, interval_s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    char *p = th_fmt("%s/%s.csv", f->dir, name);
    c->out_fd = open(p, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    CU_ASSERT_FATAL(c->out_fd >= 0);
    free(p);
    return c;
}

/* Wait (real time) for a child's exit and hand it over as run.c's reap() does. */
static int fx_reap(struct fixture *f, pid_t pid, double now)
{
    int st = th_wait(pid, 10);
    CU_ASSERT(st >= 0);
    if (st >= 0)
        CU_ASSERT(mon_children_exited(&f->s, pid, st, now));
    return st;
}

/* Wait (real time) until the child's file holds at least n bytes. */
static void wait_size(const struct mon_child *c, long long n)
{
    struct stat st;
    for (int i = 0; i < 1000; i++) {
        if (fstat(c->out_fd, &st) == 0 && st.st_size >= n)
            return;
        th_sleep(0.005);
    }
    CU_FAIL("the child wrote nothing");
}

/* Kill and reap whatever still runs; nothing of ours may be left. */
static void fx_done(struct fixture *f)
{
    mon_children_kill(&f->s);
    for (int i = 0; i < f->s.n; i++)
        if (f->s.ch[i].state == MON_CHILD_RUNNING)
            fx_reap(f, f->s.ch[i].pid, T0 + 1e6);
    mon_children_close(&f->s);
    th_rmtree(f->dir);
    free(f->dir);
}

static bool gone(pid_t pid)
{
    return kill(pid, 0) < 0 && errno == ESRCH;
}

/* A child that keeps crashing: restarted after 1, 2, 4, 8, 16, 30, 30 s (never given up on);
 * after a run longer than MON_CHILD_HEALTHY_S the backoff starts again at 1 s. */
static void test_backoff(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *c = fx_add(&f, "query", "exit 3", 1.0);
    double now = T0;
    mon_children_start(&f.s, now);
    CU_ASSERT_EQUAL(f.rec.n, 1);
    CU_ASSERT_EQUAL(f.rec.ev[0].what, MON_CHILD_STARTED);
    CU_ASSERT(f.rec.ev[0].pid > 0);
    const double want[] = {1, 2, 4, 8, 16, 30, 30, 30};
    for (unsigned k = 0; k < sizeof want / sizeof want[0]; k++) {
        pid_t pid = c->pid;
        CU_ASSERT_EQUAL_FATAL(c->state, MON_CHILD_RUNNING);
        int from = f.rec.n;
        CU_ASSERT_EQUAL(fx_reap(&f, pid, now + 0.5), 3);
        const struct rec_ev *e = last(&f.rec, MON_CHILD_EXITED);
        CU_ASSERT_EQUAL_FATAL(e->what, MON_CHILD_EXITED);
        CU_ASSERT_EQUAL(e->pid, pid);
        CU_ASSERT_EQUAL(e->status, 3);
        CU_ASSERT(!e->hung);
        CU_ASSERT_EQUAL(c->state, MON_CHILD_WAIT_RESTART);
        CU_ASSERT_EQUAL(c->pid, 0);
        double at = now + 0.5 + want[k];
        CU_ASSERT_DOUBLE_EQUAL(c->restart_at, at, 1e-9);
        /* the main loop sleeps until then, at most a poll period */
        CU_ASSERT_DOUBLE_EQUAL(mon_children_wait(&f.s, at - 0.1), 0.1, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(mon_children_wait(&f.s, at - 5), MON_CHILD_POLL_S, 1e-9);
        mon_children_tick(&f.s, at - 0.001);
        CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_RESTARTING), 0);
        mon_children_tick(&f.s, at);
        CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_RESTARTING), 1);
        CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_STARTED), 1);
        e = last(&f.rec, MON_CHILD_RESTARTING);
        CU_ASSERT_EQUAL(e->attempt, k + 1);
        CU_ASSERT_DOUBLE_EQUAL(e->delay_s, want[k], 1e-9);
        CU_ASSERT(last(&f.rec, MON_CHILD_STARTED)->pid != pid);
        now = at;
    }
    /* a healthy run: the next failure waits 1 s again */
    pid_t pid = c->pid;
    fx_reap(&f, pid, now + MON_CHILD_HEALTHY_S + 1);
    CU_ASSERT_DOUBLE_EQUAL(c->restart_at - (now + MON_CHILD_HEALTHY_S + 1), 1.0, 1e-9);
    CU_ASSERT_EQUAL(mon_children_restarts(&f.s), 8);
    CU_ASSERT(gone(pid));
    fx_done(&f);
}

/* A file that stops growing: hung after 5 intervals of silence (at least 3 s), SIGTERM, and
 * restarted after the backoff; its exit is not reported as a crash of its own. A child with
 * interval 0 (apps) may stay silent for ever. */
static void test_hang(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *c = fx_add(&f, "dmon", "exec sleep 60", 1.0);
    struct mon_child *quiet = fx_add(&f, "apps", "exec sleep 60", 0);
    mon_children_start(&f.s, T0);
    pid_t pid = c->pid, qpid = quiet->pid;
    mon_children_tick(&f.s, T0 + 1);
    CU_ASSERT_EQUAL(write(c->out_fd, "0, 1, 2\n", 8), 8); /* one row at T0 + 2 */
    mon_children_tick(&f.s, T0 + 2);
    mon_children_tick(&f.s, T0 + 7); /* silent 5 s: not yet more than 5 intervals */
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_HUNG), 0);
    CU_ASSERT(!gone(pid));
    mon_children_tick(&f.s, T0 + 7.5);
    CU_ASSERT_EQUAL_FATAL(count(&f.rec, 0, MON_CHILD_HUNG), 1);
    const struct rec_ev *h = last(&f.rec, MON_CHILD_HUNG);
    CU_ASSERT_EQUAL(h->pid, pid);
    CU_ASSERT_PTR_EQUAL(h->child, c);
    CU_ASSERT_DOUBLE_EQUAL(h->silent_s, 5.5, 1e-9);
    CU_ASSERT_EQUAL(fx_reap(&f, pid, T0 + 7.6), 128 + SIGTERM);
    const struct rec_ev *e = last(&f.rec, MON_CHILD_EXITED);
    CU_ASSERT_EQUAL(e->what, MON_CHILD_EXITED);
    CU_ASSERT(e->hung);
    mon_children_tick(&f.s, T0 + 8.6);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_RESTARTING), 1);
    CU_ASSERT_EQUAL(c->state, MON_CHILD_RUNNING);
    CU_ASSERT(c->pid != pid && c->pid > 0);
    CU_ASSERT(!c->hung);
    /* the silent apps child, an hour later: still running, never hung */
    mon_children_tick(&f.s, T0 + 3600);
    CU_ASSERT_EQUAL(quiet->pid, qpid);
    CU_ASSERT(!gone(qpid));
    for (int i = 0; i < f.rec.n; i++)
        CU_ASSERT(!(f.rec.ev[i].what == MON_CHILD_HUNG && f.rec.ev[i].child == quiet));
    fx_done(&f);
    CU_ASSERT(gone(qpid));
}

/* hwmon frozen with its children (a cgroup freezer for 15 s, the children resuming a moment
 * after it): the gap is no silence of theirs, so no child is hung for it; silence after it, while
 * hwmon runs, still is, counted without the gap. */
static void test_pause_is_not_silence(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *c = fx_add(&f, "dmon", "exec sleep 60", 1.0);
    mon_children_start(&f.s, T0);
    pid_t pid = c->pid;
    CU_ASSERT_EQUAL(write(c->out_fd, "0, 1, 2\n", 8), 8);
    mon_children_tick(&f.s, T0 + 2); /* its last row */
    mon_children_paused(&f.s, 15);   /* hwmon did not run from T0 + 2 to T0 + 17 */
    mon_children_tick(&f.s, T0 + 17.25);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_HUNG), 0);
    mon_children_tick(&f.s, T0 + 22); /* silent 5 s of hwmon's running time: not yet */
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_HUNG), 0);
    CU_ASSERT(!gone(pid));
    mon_children_tick(&f.s, T0 + 22.5);
    CU_ASSERT_EQUAL_FATAL(count(&f.rec, 0, MON_CHILD_HUNG), 1);
    CU_ASSERT_DOUBLE_EQUAL(last(&f.rec, MON_CHILD_HUNG)->silent_s, 5.5, 1e-9);
    /* a pause within the grace of a hung child moves its SIGKILL deadline too */
    mon_children_paused(&f.s, 10);
    CU_ASSERT_DOUBLE_EQUAL(c->kill_at, T0 + 22.5 + MON_CHILD_HANG_GRACE_S + 10, 1e-9);
    fx_done(&f);
}

/* The shell ignores SIGTERM (and sleep inherits that) once it has said "ready". */
#define IGNORES_TERM "trap '' TERM; echo ready; exec sleep 60"

/* A hung child that ignores SIGTERM gets SIGKILL MON_CHILD_HANG_GRACE_S later. */
static void test_hang_kill(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *c = fx_add(&f, "query", IGNORES_TERM, 0.5);
    mon_children_start(&f.s, T0);
    pid_t pid = c->pid;
    wait_size(c, 6);
    mon_children_tick(&f.s, T0 + 0.1); /* "ready" is its growth */
    mon_children_tick(&f.s, T0 + 3.2);
    CU_ASSERT_EQUAL_FATAL(count(&f.rec, 0, MON_CHILD_HUNG), 1); /* 3 s minimum */
    /* a SIGTERM not ignored would have ended it by now (a load that delays that only lets a
     * wrong pass through, never fails a right one) */
    th_sleep(0.05);
    CU_ASSERT_EQUAL(waitpid(pid, NULL, WNOHANG), 0); /* SIGTERM ignored */
    mon_children_tick(&f.s, T0 + 3.2 + MON_CHILD_HANG_GRACE_S - 0.01);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_KILLED), 0);
    mon_children_tick(&f.s, T0 + 3.2 + MON_CHILD_HANG_GRACE_S);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_KILLED), 1);
    CU_ASSERT_EQUAL(fx_reap(&f, pid, T0 + 6), 128 + SIGKILL);
    CU_ASSERT(last(&f.rec, MON_CHILD_EXITED)->hung);
    CU_ASSERT_EQUAL(c->state, MON_CHILD_WAIT_RESTART);
    fx_done(&f);
}

/* Stop: SIGTERM, and SIGKILL only once the grace period is over; no restart after it. A hung
 * child keeps its earlier SIGKILL deadline. */
static void test_stop_grace(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *a = fx_add(&f, "query", IGNORES_TERM, 1.0);
    struct mon_child *b = fx_add(&f, "dmon", IGNORES_TERM, 0.5);
    mon_children_start(&f.s, T0);
    pid_t pa = a->pid, pb = b->pid;
    wait_size(a, 6);
    wait_size(b, 6);
    mon_children_tick(&f.s, T0 + 0.1);
    mon_children_tick(&f.s, T0 + 3.2); /* b hung: SIGKILL due at T0 + 5.2 */
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_HUNG), 1);
    mon_children_stop(&f.s, 5.0, T0 + 4);
    CU_ASSERT(f.s.stopping);
    th_sleep(0.05); /* as in hang_kill */
    CU_ASSERT_EQUAL(waitpid(pa, NULL, WNOHANG), 0);
    mon_children_tick(&f.s, T0 + 5.2);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_KILLED), 1); /* b only */
    CU_ASSERT_EQUAL(last(&f.rec, MON_CHILD_KILLED)->pid, pb);
    CU_ASSERT_EQUAL(fx_reap(&f, pb, T0 + 5.3), 128 + SIGKILL);
    mon_children_tick(&f.s, T0 + 8.99);
    CU_ASSERT_EQUAL(waitpid(pa, NULL, WNOHANG), 0);
    CU_ASSERT(mon_children_running(&f.s));
    mon_children_tick(&f.s, T0 + 9);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_KILLED), 2);
    CU_ASSERT_EQUAL(fx_reap(&f, pa, T0 + 9.1), 128 + SIGKILL);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_STOPPED), 2);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_EXITED), 0);
    CU_ASSERT(!mon_children_running(&f.s));
    CU_ASSERT_DOUBLE_EQUAL(mon_children_wait(&f.s, T0 + 10), -1, 0);
    int n = f.rec.n;
    mon_children_tick(&f.s, T0 + 1000);
    CU_ASSERT_EQUAL(f.rec.n, n); /* nothing restarts */
    CU_ASSERT_EQUAL(a->state, MON_CHILD_IDLE);
    CU_ASSERT_EQUAL(b->state, MON_CHILD_IDLE);
    fx_done(&f);
}

/* What a crash leaves: its status, the end of its stderr, and a torn last row ended with '\n'
 * so the restarted child's first row is not glued onto it. */
static void test_exit_report(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *c =
        fx_add(&f, "query", "printf '1, 2, 3\\n4, 5'; echo 'GPU is lost' >&2; exit 2", 1.0);
    mon_children_start(&f.s, T0);
    pid_t pid = c->pid;
    CU_ASSERT_FALSE(mon_children_exited(&f.s, pid + 100000, 0, T0)); /* not ours */
    CU_ASSERT_EQUAL(fx_reap(&f, pid, T0 + 1), 2);
    const struct rec_ev *e = last(&f.rec, MON_CHILD_EXITED);
    CU_ASSERT_EQUAL(e->what, MON_CHILD_EXITED);
    CU_ASSERT_STRING_EQUAL(e->tail, "GPU is lost");
    char *p = th_fmt("%s/query.csv", f.dir);
    char *text = th_read_file(p, NULL);
    CU_ASSERT_STRING_EQUAL(text, "1, 2, 3\n4, 5\n");
    free(text);
    free(p);
    CU_ASSERT_FALSE(mon_children_exited(&f.s, pid, 2, T0 + 2)); /* reported once */
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_EXITED), 1);
    fx_done(&f);
}

/* A GPU fault in nvidia-smi's words is reported with the line that said it: from stderr (a
 * line written in two pieces is one line), from the rows of a child whose rows are looked at
 * (the tick that sees its file grow, then its exit: a last row without '\n' too), never from
 * the rows of one whose are not, and never from what was in the file before it started. */
static void test_gpu_fault_words(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    /* each child waits for the test's go file before its last part */
    char *go = th_fmt("%s/go", f.dir);
    char *qs = th_fmt("printf '1, [GPU requires reset], GPU-aa\\n'; "
                      "printf 'Unable to determine the device handle for GPU ' >&2; sleep 0.1; "
                      "printf '0000:02:00.0: GPU is lost.\\n' >&2; "
                      "while [ ! -e '%s' ]; do sleep 0.01; done; "
                      "printf '2, [GPU requires reset], GPU-bb'",
                      go);
    char *hs = th_fmt("printf '1, [GPU requires reset]\\n'; "
                      "while [ ! -e '%s' ]; do sleep 0.01; done",
                      go);
    struct mon_child *q = fx_add(&f, "query", qs, 1.0);
    struct mon_child *h = fx_add(&f, "health", hs, 1.0);
    q->scan_rows = true;
    /* what an earlier child left in the file is not this one's */
    CU_ASSERT_FATAL(write(q->out_fd, "0, [GPU is lost], GPU-00\n", 25) == 25);
    mon_children_start(&f.s, T0);
    wait_size(q, 25 + 32);
    wait_size(h, 24);
    mon_children_tick(&f.s, T0 + 0.3);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_GPU_FAULT), 1);
    const struct rec_ev *e = last(&f.rec, MON_CHILD_GPU_FAULT);
    CU_ASSERT_EQUAL(e->fault, HW_GPU_FAULT_RESET);
    CU_ASSERT_STRING_EQUAL(e->said, "1, [GPU requires reset], GPU-aa");
    CU_ASSERT_PTR_EQUAL(e->child, q);
    /* stderr: both pieces, read as the main loop does when the pipe is readable */
    for (int i = 0; i < 1000 && count(&f.rec, 0, MON_CHILD_GPU_FAULT) < 2; i++) {
        mon_children_read_err(&f.s, q);
        th_sleep(0.01);
    }
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_GPU_FAULT), 2);
    e = last(&f.rec, MON_CHILD_GPU_FAULT);
    CU_ASSERT_EQUAL(e->fault, HW_GPU_FAULT_LOST);
    CU_ASSERT_STRING_EQUAL(e->said,
                           "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.");
    int fd = open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_EQUAL(fx_reap(&f, q->pid, T0 + 0.5), 0);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_GPU_FAULT), 3); /* its last row, without '\n' */
    e = last(&f.rec, MON_CHILD_GPU_FAULT);
    CU_ASSERT_STRING_EQUAL(e->said, "2, [GPU requires reset], GPU-bb");
    CU_ASSERT_EQUAL(fx_reap(&f, h->pid, T0 + 0.6), 0);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_GPU_FAULT), 3); /* health's rows: not looked at */
    fx_done(&f);
    free(go);
    free(qs);
    free(hs);
}

/* A scheduler's stop signal reaches nvidia-smi a moment before hwmon hears of it: a quiet exit
 * (status 0, or killed by SIGTERM) nobody here asked for is said only when its restart is due,
 * as the failure it was; if the run is held first, as a stop, and nothing is restarted. A loud
 * failure once held is still a failure, but not restarted. */
static void test_quiet_exit_and_hold(void)
{
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *q = fx_add(&f, "query", "exec sleep 30", 1.0);
    struct mon_child *h = fx_add(&f, "health", "exit 0", 1.0);
    mon_children_start(&f.s, T0);
    /* h exited 0 on its own, no stop followed: said at its restart, which happens */
    CU_ASSERT_EQUAL(fx_reap(&f, h->pid, T0 + 0.2), 0);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_EXITED), 0);
    CU_ASSERT_EQUAL(h->state, MON_CHILD_WAIT_RESTART);
    mon_children_tick(&f.s, T0 + 1.2);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_EXITED), 1);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_RESTARTING), 1);
    /* the scheduler's signal: the restarted h ends before hwmon's own signal arrives */
    int from = f.rec.n;
    CU_ASSERT_EQUAL(fx_reap(&f, h->pid, T0 + 2.0), 0);
    CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_EXITED), 0);
    mon_children_hold(&f.s); /* hwmon's own arrives */
    CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_STOPPED), 1);
    CU_ASSERT_EQUAL(h->state, MON_CHILD_IDLE);
    /* q dies of SIGTERM after: a stop too */
    kill(q->pid, SIGTERM);
    CU_ASSERT_EQUAL(fx_reap(&f, q->pid, T0 + 2.1), 128 + SIGTERM);
    CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_STOPPED), 2);
    CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_EXITED), 0);
    mon_children_tick(&f.s, T0 + 100); /* nothing restarts, ever */
    CU_ASSERT_EQUAL(count(&f.rec, from, MON_CHILD_RESTARTING), 0);
    CU_ASSERT_FALSE(mon_children_running(&f.s));
    CU_ASSERT(mon_children_wait(&f.s, T0 + 100) < 0); /* nothing to wake up for */
    fx_done(&f);
}

/* nvidia-smi cannot be started: reported with status 127 and the errno, retried with backoff. */
static void test_start_failed(void)
{
    struct fixture f;
    fx_init(&f, "/nonexistent/nvidia-smi");
    struct mon_child *c = fx_add(&f, "query", "", 1.0);
    mon_children_start(&f.s, T0);
    CU_ASSERT_EQUAL_FATAL(f.rec.n, 1);
    CU_ASSERT_EQUAL(f.rec.ev[0].what, MON_CHILD_START_FAILED);
    CU_ASSERT_EQUAL(f.rec.ev[0].err, -ENOENT);
    CU_ASSERT_EQUAL(f.rec.ev[0].status, 127);
    CU_ASSERT_EQUAL(c->state, MON_CHILD_WAIT_RESTART);
    CU_ASSERT_EQUAL(c->err_fd, -1);
    mon_children_tick(&f.s, T0 + 1);
    CU_ASSERT_EQUAL(f.rec.n, 3);
    CU_ASSERT_EQUAL(f.rec.ev[1].what, MON_CHILD_RESTARTING);
    CU_ASSERT_EQUAL(f.rec.ev[2].what, MON_CHILD_START_FAILED);
    CU_ASSERT_DOUBLE_EQUAL(c->restart_at, T0 + 3, 1e-9);
    fx_done(&f);
}

/* Stopping a child that has a grandchild (sleep in the background): the whole process group
 * goes, and everything is reaped. This test process is made a subreaper, as hwmon is, so the
 * orphaned grandchild comes back to it: waitpid(-1) must end with ECHILD, no zombie left. */
static void test_no_orphans(void)
{
    CU_ASSERT_EQUAL_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    struct fixture f;
    fx_init(&f, "/bin/sh");
    struct mon_child *c = fx_add(&f, "gpm", "sleep 60 & echo $!; wait", 1.0);
    mon_children_start(&f.s, T0);
    pid_t pid = c->pid;
    wait_size(c, 2);
    th_sleep(0.05);
    char buf[32] = "";
    CU_ASSERT(pread(c->out_fd, buf, sizeof buf - 1, 0) > 0);
    pid_t gpid = (pid_t)atoi(buf);
    CU_ASSERT_FATAL(gpid > 0);
    CU_ASSERT(!gone(gpid));
    mon_children_stop(&f.s, 5.0, T0 + 1);
    /* reap like run.c: everything, ours or not */
    int ours = 0, others = 0;
    for (int i = 0; i < 2000; i++) {
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w < 0 && errno == ECHILD)
            break;
        if (w > 0) {
            int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            if (mon_children_exited(&f.s, w, status, T0 + 2))
                ours++;
            else
                others++;
            continue;
        }
        mon_children_tick(&f.s, T0 + 2 + i * 0.01); /* SIGKILL after 5 fake seconds */
        th_sleep(0.005);
    }
    CU_ASSERT_EQUAL(ours, 1);
    CU_ASSERT_EQUAL(others, 1); /* the grandchild, reaped too */
    CU_ASSERT(gone(pid));
    CU_ASSERT(gone(gpid));
    errno = 0;
    CU_ASSERT_EQUAL(waitpid(-1, NULL, WNOHANG), -1);
    CU_ASSERT_EQUAL(errno, ECHILD);
    CU_ASSERT_EQUAL(count(&f.rec, 0, MON_CHILD_STOPPED), 1);
    fx_done(&f);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* The real thing: hwmon and its nvidia-smi children stopped (as a cgroup freezer or a suspend
 * does), hwmon resumed first and its children a moment later: no child is called hung (before,
 * each was killed and restarted: child_hung events that fail a run's errors == 0).
 *
 * The freeze's length is the test's subject, not a wait for an event; it is set against the
 * query child's hang threshold, 5 of its -i 0.2 intervals (1 s: the user's interval is never
 * scaled), and the scale (0.01) makes hwmon tick every 2.5 ms, so that hwmon saw the children's
 * last rows before they stopped. Frozen 1.5 s, silence counted across the gap would call query
 * and health hung at hwmon's first tick (without the pause credit, run.c's
 * mon_children_paused, this test fails); the children stay stopped 0.2 s after hwmon resumes,
 * well within the 1 s, and the job ends once hwmon has sampled 1.4 s (7 of its rows) beside
 * them: ticks enough to call hung a child it took to be silent all along.
 *
 * The witness (jobtree.h) and the job resume with hwmon: hwmon passes its SIGCONT on and asks
 * the witness first, which, left stopped, would hold hwmon's main loop for the witness's 1 s
 * (the second the last version of this test waited, 7 + 1 s, for its verdict). */
static void test_frozen_run_no_hung(void)
{
    char *dir = th_tmpdir("freeze");
    char *script = th_fmt(
        "cd '%s' || exit 9\n"
        MON_TIME_SCALE_ENV "=0.01 '%s' -q --nvidia-smi '%s' -i 0.2 -o run -- sh -c "
        "'i=0; until [ -e done ] || [ $i -gt 1200 ]; do i=$((i+1)); sleep 0.05; done' &\n"
        "hp=$!\n"
        "i=0; while [ ! -s run/hw_metrics.csv ] || [ $(wc -l < run/hw_metrics.csv) -lt 3 ]; do\n"
        "  i=$((i+1)); [ $i -gt 600 ] && exit 8; sleep 0.05; done\n"
        /* the fakes by name (the witness, a fork of hwmon, has hwmon's command line) */
        "kids=$(pgrep -P $hp -x \"$(basename '%s' | cut -c1-15)\" | tr '\\n' ' ')\n"
        "others=$(pgrep -P $hp | grep -vxF \"$(echo $kids | tr ' ' '\\n')\" | tr '\\n' ' ')\n"
        "[ $(echo $kids | wc -w) -ge 2 ] || exit 6\n"
        "kill -STOP $hp $others $kids\n"
        "sleep 1.5\n"
        "kill -CONT $others $hp\n"
        "sleep 0.2\n"
        "kill -CONT $kids\n"
        "n=$(wc -l < run/cpu_metrics.csv)\n"
        "i=0; while [ $(wc -l < run/cpu_metrics.csv) -lt $((n + 7)) ]; do\n"
        "  i=$((i+1)); [ $i -gt 1500 ] && exit 7; sleep 0.02; done\n"
        "touch done\n"
        "wait $hp\n",
        dir, th_env("HWRUN_HWMON_BIN"), th_env("HWRUN_FAKE_SMI"), th_env("HWRUN_FAKE_SMI"));
    /* a session of its own: a stopped process in ctest's process group, were that group orphaned
     * meanwhile, would bring the kernel's SIGHUP to every test of it (CI: this test and the
     * SLURM scenarios died of a hang-up together) */
    char *argv[] = {"/usr/bin/setsid", "-w", "/bin/sh", "-c", script, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 90, &r) == 0);
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *log = th_fmt("%s/run/run.jsonl", dir);
    char *text = th_read_file(log, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NULL(strstr(text, "\"child_hung\""));
    CU_ASSERT_PTR_NULL(strstr(text, "\"child_restart\""));
    free(text);
    free(log);
    free(script);
    th_rmtree(dir);
    free(dir);
}

void add_children_unit_suite(void);
void add_children_unit_suite(void)
{
    CU_pSuite s = th_add_suite("child_unit", NULL, NULL, 60);
    CU_add_test(s, "backoff", test_backoff);
    CU_add_test(s, "hang", test_hang);
    CU_add_test(s, "pause_is_not_silence", test_pause_is_not_silence);
    CU_add_test(s, "frozen_run_no_hung", test_frozen_run_no_hung);
    CU_add_test(s, "hang_kill", test_hang_kill);
    CU_add_test(s, "stop_grace", test_stop_grace);
    CU_add_test(s, "exit_report", test_exit_report);
    CU_add_test(s, "quiet_exit_and_hold", test_quiet_exit_and_hold);
    CU_add_test(s, "start_failed", test_start_failed);
    CU_add_test(s, "no_orphans", test_no_orphans);
    CU_add_test(s, "gpu_fault_words", test_gpu_fault_words);
}
