/* A process and its descendants, for hwmon (proctree.h). After htop's LinuxProcessTable.c: a
 * vanished pid dropped quietly, children found through task/TID/children or a full scan. */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "procread.h"

enum { MODE_UNKNOWN, MODE_CHILDREN, MODE_SCAN };

/* The tree's pid index. A multiplication by an odd constant is a bijection on the low bits,
 * so a run of consecutive pids (the usual case) lands in distinct slots. */
static size_t pid_slot(const struct mon_tree *t, pid_t pid)
{
    return ((uint32_t)pid * 0x9E3779B1u) & (t->idx_cap - 1);
}

static struct mon_proc *find_proc(struct mon_tree *t, pid_t pid)
{
    if (!t->idx_cap)
        return NULL;
    for (size_t h = pid_slot(t, pid);; h = (h + 1) & (t->idx_cap - 1)) {
        uint32_t v = t->idx[h];
        if (!v)
            return NULL;
        if (t->p[v - 1].pid == pid)
            return &t->p[v - 1];
    }
}

static void index_insert(struct mon_tree *t, size_t i)
{
    size_t h = pid_slot(t, t->p[i].pid);
    while (t->idx[h])
        h = (h + 1) & (t->idx_cap - 1);
    t->idx[h] = (uint32_t)(i + 1);
}

/* Re-index p[0..n) (after it was compacted); the table grows only when p's capacity did, so a
 * tree of steady size allocates nothing. */
static int index_rebuild(struct mon_tree *t)
{
    if (t->idx_cap < 2 * t->cap) {
        size_t nc = t->idx_cap ? t->idx_cap : 128;
        while (nc < 2 * t->cap)
            nc *= 2;
        uint32_t *ni = malloc(nc * sizeof *ni);
        if (!ni)
            return -ENOMEM;
        free(t->idx);
        t->idx = ni;
        t->idx_cap = nc;
    }
    memset(t->idx, 0, t->idx_cap * sizeof *t->idx);
    for (size_t i = 0; i < t->n; i++)
        index_insert(t, i);
    return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*arr, nc * elem);
    if (!np)
        return -ENOMEM;
    *arr = np;
    *cap = nc;
    return 0;
}

/* Record a membership change for the caller (tree_pids.csv). Growth is amortized: a steady
 * tree does not allocate. */
static void note_change(struct mon_tree *t, pid_t v)
{
    t->members_gen++; /* kept PSS readings are stale now (account_pss) */
    if (grow((void **)&t->chg, &t->chg_cap, t->nchg + 1, sizeof *t->chg) == 0)
        t->chg[t->nchg++] = v;
}

/* Start tracking pid. Its files stay open so later reads are one pread, and so a reused pid
 * cannot hand us another process's numbers (the old descriptors then read nothing). */
static struct mon_proc *add_proc(struct mon_tree *t, pid_t pid, pid_t ppid)
{
    if (grow((void **)&t->p, &t->cap, t->n + 1, sizeof *t->p) < 0)
        return NULL;
    if (t->idx_cap < 2 * t->cap && index_rebuild(t) < 0)
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "%d", (int)pid);
    int dfd = openat(t->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return NULL; /* gone already */
    struct mon_proc *p = &t->p[t->n];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->ppid = ppid;
    p->born_gen = t->gen;
    p->stat_fd = mon_open_rel(dfd, "stat");
    p->io_fd = mon_open_rel(dfd, "io"); /* EACCES for another user's process: no I/O numbers */
    p->smaps_fd = t->pss ? mon_open_rel(dfd, "smaps_rollup") : -1;
    p->smaps_all_fd = t->shared_once ? mon_open_rel(dfd, "smaps") : -1;
    if (p->smaps_all_fd < 0)
        p->smaps_all_fd = -1;
    p->sched_fd = mon_open_rel(dfd, "schedstat"); /* no CONFIG_SCHED_INFO: always read */
    if (p->sched_fd < 0)
        p->sched_fd = -1;
    char kids[64];
    snprintf(kids, sizeof kids, "task/%d/children", (int)pid);
    p->kids_fd = t->mode != MODE_SCAN ? mon_open_rel(dfd, kids) : -1;
    if (p->kids_fd < 0)
        p->kids_fd = -1;
    close(dfd);
    if (p->stat_fd < 0) {
        mon_close_fd(&p->io_fd);
        mon_close_fd(&p->sched_fd);
        if (p->smaps_fd >= 0)
            close(p->smaps_fd);
        mon_close_fd(&p->smaps_all_fd);
        return NULL;
    }
    if (p->io_fd < 0)
        p->io_fd = -1;
    if (p->smaps_fd < 0)
        p->smaps_fd = -1;
    index_insert(t, t->n++);
    note_change(t, pid);
    return p;
}

static void drop_proc_fds(struct mon_proc *p)
{
    mon_close_fd(&p->kids_fd);
    mon_close_fd(&p->stat_fd);
    mon_close_fd(&p->io_fd);
    mon_close_fd(&p->smaps_fd);
    mon_close_fd(&p->smaps_all_fd);
    mon_close_fd(&p->sched_fd);
}

int mon_tree_open(struct mon_tree *t, const char *proc_root, pid_t root, bool pss)
{
    memset(t, 0, sizeof *t);
    t->loadavg_fd = -1;
    t->proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (t->proc_fd < 0)
        return -errno;
    t->loadavg_fd = mon_open_rel(t->proc_fd, "loadavg"); /* none (a fixture): walk every time */
    if (t->loadavg_fd < 0)
        t->loadavg_fd = -1;
    t->root = root;
    t->pss = pss;
    t->clk_tck = sysconf(_SC_CLK_TCK);
    if (t->clk_tck <= 0)
        t->clk_tck = 100;
    long ps = sysconf(_SC_PAGESIZE);
    t->page_kb = ps > 0 ? ps / 1024 : 4;
    t->dents_cap = 32768;
    t->dents = malloc(t->dents_cap);
    if (!t->dents) {
        close(t->proc_fd);
        return -ENOMEM;
    }
    if (!add_proc(t, root, 0)) {
        int e = errno == ENOMEM ? -ENOMEM : -ESRCH;
        mon_tree_close(t);
        return e;
    }
    return 0;
}

void mon_tree_exclude(struct mon_tree *t, pid_t pid)
{
    t->exclude = pid;
}

void mon_tree_keep_new(struct mon_tree *t)
{
    t->keep_new = true;
}

void mon_tree_alone(struct mon_tree *t)
{
    t->alone = true;
}

void mon_tree_close(struct mon_tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        drop_proc_fds(&t->p[i]);
    free(t->p);
    free(t->idx);
    free(t->out_a);
    free(t->out_b);
    free(t->queue);
    free(t->dents);
    free(t->chg);
    mon_so_free(&t->so);
    if (t->proc_fd >= 0)
        close(t->proc_fd);
    mon_close_fd(&t->loadavg_fd);
    memset(t, 0, sizeof *t);
    t->proc_fd = -1;
    t->loadavg_fd = -1;
}

void mon_tree_shared_once(struct mon_tree *t)
{
    t->shared_once = true;
    for (size_t i = 0; i < t->n; i++) { /* the members so far: the root */
        struct mon_proc *p = &t->p[i];
        char path[64];
        snprintf(path, sizeof path, "%d/smaps", (int)p->pid);
        if (p->smaps_all_fd < 0)
            p->smaps_all_fd = openat(t->proc_fd, path, O_RDONLY | O_CLOEXEC);
        if (p->smaps_all_fd < 0)
            p->smaps_all_fd = -1;
    }
}

/* The last pid handed out in this pid namespace: /proc/loadavg's last field ("0.46 0.86 0.95
 * 2/345 123456"), or -1. Any new process or thread moves it, ours or a child namespace's. */
static long long last_pid(struct mon_tree *t)
{
    char buf[128];
    ssize_t n = t->loadavg_fd >= 0 ? mon_pread_proc(t->loadavg_fd, buf, sizeof buf - 1) : -1;
    if (n <= 0)
        return -1;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        n--;
    buf[n] = '\0';
    const char *last = strrchr(buf, ' ');
    int64_t v;
    const char *end = last ? hw_scan_i64(last + 1, buf + n, &v, NULL) : NULL;
    return end == buf + n && v > 0 ? (long long)v : -1;
}

/* The initial PID namespace has a fixed inode number (PROC_PID_INIT_INO in the kernel). */
#define MON_PID_INIT_INO 0xEFFFFFFCu

int mon_pid_ns_is_init(const char *proc_root)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/self/ns/pid", proc_root);
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    return st.st_ino == MON_PID_INIT_INO;
}

void mon_tree_set_mode(struct mon_tree *t, int mode)
{
    t->mode = mode;
}

/* Calls fn(t, pid, arg) for each numeric entry of directory fd (read from the start). */
struct each {
    struct mon_tree *t;
    void (*fn)(struct mon_tree *, pid_t, void *);
    void *arg;
};

static void each_one(void *p, pid_t pid)
{
    struct each *e = p;
    e->fn(e->t, pid, e->arg);
}

static int for_each_pid_entry(struct mon_tree *t, int fd,
                              void (*fn)(struct mon_tree *, pid_t, void *), void *arg)
{
    struct each e = {t, fn, arg};
    return mon_each_pid(fd, t->dents, t->dents_cap, each_one, &e);
}

/* children mode: read task/TID/children for every thread of p and add/mark the children. */
struct kids_ctx {
    struct mon_tree *t;
    pid_t parent;
    int err; /* -ENOMEM when the queue could not grow */
    size_t *qn;
};

static void visit_child(struct kids_ctx *k, pid_t child)
{
    struct mon_tree *t = k->t;
    if (child == t->exclude || t->alone)
        return; /* nor its children: they are found through it only */
    struct mon_proc *c = find_proc(t, child);
    if (!c) {
        c = add_proc(t, child, k->parent);
        if (!c)
            return;
    }
    if (c->gen == t->gen)
        return;
    if (grow((void **)&t->queue, &t->queue_cap, t->n, sizeof *t->queue) < 0) {
        k->err = -ENOMEM;
        return;
    }
    c->gen = t->gen;
    c->ppid = k->parent;
    t->queue[(*k->qn)++] = (size_t)(c - t->p);
}

/* The pids of a children file ("123 456 "). */
static void add_kids(struct kids_ctx *k, const char *buf, size_t n)
{
    const char *p = buf, *end = buf + n;
    for (;;) {
        int64_t v;
        const char *q = hw_scan_i64(p, end, &v, NULL);
        if (!q)
            break;
        p = q;
        if (v > 0 && v <= INT_MAX)
            visit_child(k, (pid_t)v);
    }
}

/* A children file, read from offset 0. A thread with hundreds of children has a file longer
 * than the buffer: it is read on in chunks, and a pid cut at a chunk's end is carried over, not
 * taken for a shorter pid. A short read of under 2 KiB is the end (one pread in the usual
 * case); after a longer one, as in pread_proc(), the next read says. Returns false when the
 * file cannot be read (the thread exited). */
static bool read_kids(struct kids_ctx *k, int fd)
{
    char buf[4096];
    size_t keep = 0;
    off_t off = 0;
    for (;;) {
        size_t want = sizeof buf - keep;
        ssize_t n;
        do
            n = pread(fd, buf + keep, want, off);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return off > 0;
        off += n;
        size_t len = keep + (size_t)n;
        if (n == 0 || ((size_t)n < want && len < 2048)) { /* the end: every token is whole */
            add_kids(k, buf, len);
            return true;
        }
        size_t end = len;
        while (end > 0 && buf[end - 1] != ' ' && buf[end - 1] != '\n')
            end--;
        if (end == 0) /* no separator in 4 KiB: not a children file */
            return true;
        add_kids(k, buf, end);
        keep = len - end;
        memmove(buf, buf + end, keep);
    }
}

static void task_children(struct mon_tree *t, pid_t tid, void *arg)
{
    struct kids_ctx *k = arg;
    char path[96];
    snprintf(path, sizeof path, "%d/task/%d/children", (int)k->parent, (int)tid);
    int fd = openat(t->proc_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* the thread exited */
    read_kids(k, fd);
    close(fd);
}

/* One stat read. Returns false when the process has gone. */
static bool read_stat(struct mon_tree *t, struct mon_proc *p, struct mon_pstat *st)
{
    (void)t;
    char buf[1024];
    ssize_t n = p->stat_fd >= 0 ? mon_pread_proc(p->stat_fd, buf, sizeof buf) : -EBADF;
    return n > 0 && mon_parse_pid_stat(buf, (size_t)n, st) == 0 && st->state != 'X';
}

/* A member's stat, read in a walk. The walks read a parent before its children (breadth-first,
 * or in t->p's order, where a child comes after its parent): a child read alive (not 'X') has not
 * been reaped yet, and the kernel adds a child's CPU time and I/O to its parent's before it
 * unhashes it, so its parent's earlier reading does not hold them and nothing counts twice.
 * A reap between the two reads loses the child's bytes from this reading instead (a dip, which
 * mon_tree_sample reads again). Children first would count them twice, and a maximum would keep
 * that for good. */
static bool read_member(struct mon_tree *t, struct mon_proc *p, struct mon_pstat *st)
{
    if (t->before_read)
        t->before_read(t->before_read_arg, p->pid);
    return read_stat(t, p, st);
}

/* scan mode: collect pids, classify the new ones by reading their ppid. */
struct scan_ctx {
    size_t n_new_out; /* entries appended to out_b */
    int err;
};

static bool in_sorted(const pid_t *a, size_t n, pid_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else if (a[mid] > v)
            hi = mid;
        else
            return true;
    }
    return false;
}

/* During a scan out_b collects, in /proc order, known outsiders (a pid > 0) and new pids as
 * pairs (-pid, ppid); the pairs are then resolved and everything left is compacted into the
 * sorted outsider list for the next scan. Pids known to be outside are never re-read: a process
 * cannot join a tree it was not born into (orphans go to init or a subreaper). */
static void scan_entry(struct mon_tree *t, pid_t pid, void *arg)
{
    struct scan_ctx *c = arg;
    if (c->err)
        return;
    if (find_proc(t, pid))
        return;
    /* out_b holds new outsiders at [0, n_new_out) and pending pairs after them */
    if (grow((void **)&t->out_b, &t->cap_b, c->n_new_out + 2, sizeof(pid_t)) < 0) {
        c->err = -ENOMEM;
        return;
    }
    if (pid == t->exclude || t->alone || in_sorted(t->out_a, t->n_out, pid)) {
        t->out_b[c->n_new_out++] = pid; /* outside, and so are its children */
        return;
    }
    char path[64], buf[1024];
    snprintf(path, sizeof path, "%d/stat", (int)pid);
    ssize_t n = hw_read_small(t->proc_fd, path, buf, sizeof buf);
    struct mon_pstat st;
    if (n <= 0 || mon_parse_pid_stat(buf, (size_t)n, &st) < 0)
        return; /* gone */
    /* new pid: pending pair (pid, ppid) */
    t->out_b[c->n_new_out++] = -pid; /* negative marks a pending entry; ppid follows */
    t->out_b[c->n_new_out++] = st.ppid;
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

static int scan_tree(struct mon_tree *t)
{
    struct scan_ctx c = {0};
    int rc = for_each_pid_entry(t, t->proc_fd, scan_entry, &c);
    if (rc == 0)
        rc = c.err;
    if (rc < 0)
        return rc;
    /* Resolve pending pairs: a new pid whose parent is tracked joins the tree (repeat, since
     * a new child may be listed before its new parent after pid wrap-around). */
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < c.n_new_out; i++) {
            if (t->out_b[i] >= 0)
                continue;
            pid_t pid = -t->out_b[i], ppid = t->out_b[i + 1];
            if (pid != 0 && find_proc(t, ppid)) {
                if (add_proc(t, pid, ppid))
                    changed = true;
                t->out_b[i] = 0; /* consumed */
                t->out_b[i + 1] = 0;
            }
            i++;
        }
    }
    /* Compact: pending that stayed outside become outsiders. */
    size_t w = 0;
    for (size_t i = 0; i < c.n_new_out; i++) {
        pid_t v = t->out_b[i];
        if (v > 0) {
            t->out_b[w++] = v;
        } else if (v < 0) {
            t->out_b[w++] = -v;
            i++;
        } else {
            i++; /* consumed pair */
        }
    }
    if (w > 1) /* qsort takes no NULL, even for none */
        qsort(t->out_b, w, sizeof(pid_t), cmp_pid);
    pid_t *tmp = t->out_a;
    t->out_a = t->out_b;
    t->out_b = tmp;
    size_t tc = t->cap_a;
    t->cap_a = t->cap_b;
    t->cap_b = tc;
    t->n_out = w;
    return 0;
}

/* Did a process that left the tree hand its CPU time and I/O to a live tracked ancestor? A reaped
 * child's totals go into its parent's cutime/cstime (and io); when the parent has exited and been
 * reaped since, they went on up with the parent's own totals. So: yes when the chain of parents,
 * through ones that also left, reaches a process still in the tree. A process that is still
 * running (reparented out of the tree) was absorbed by no one. Counting a vanished process whose
 * parent vanished too as "absorbed by no one" double-counted it: gzip reaped by runlog, runlog
 * reaped by the shell, in one interval, put gzip's seconds in twice. */
static bool absorbed_by_tree(struct mon_tree *t, struct mon_proc *p)
{
    struct mon_pstat st;
    if (read_stat(t, p, &st) && st.state != 'Z')
        return false; /* still running, outside the tree */
    for (int depth = 0; depth < 64; depth++) {
        struct mon_proc *pp = find_proc(t, p->ppid);
        if (!pp)
            return false;
        if (pp->gen == t->gen)
            return true;
        p = pp;
    }
    return false;
}

/* smaps_rollup is bound to the address space it was opened on: after an exec (the wrapped
 * command is opened while it may still be hwmon's child image, a shell execs its last command)
 * the old descriptor then fails with ESRCH (or reads nothing). For a live process that means
 * "reopen", once. */
static ssize_t read_smaps(struct mon_tree *t, struct mon_proc *p, char *buf, size_t cap)
{
    ssize_t n = mon_pread_proc(p->smaps_fd, buf, cap);
    if (n != 0 && n != -ESRCH)
        return n;
    char path[64];
    snprintf(path, sizeof path, "%d/smaps_rollup", (int)p->pid);
    int fd = mon_open_rel(t->proc_fd, path);
    if (fd < 0)
        return 0;
    close(p->smaps_fd);
    p->smaps_fd = fd;
    return mon_pread_proc(fd, buf, cap);
}

/* A member's smaps into the shared-once sums; opened again by pid when its fd reads nothing or
 * the process is gone from it (an exec gave the process new memory: read_smaps's rule). */
static void read_shared_once(struct mon_tree *t, struct mon_proc *p)
{
    bool main = p->pid == t->root;
    int rc = mon_so_add(&t->so, p->smaps_all_fd, main);
    if (rc != -ENODATA && rc != -ESRCH && rc != -EBADF)
        return;
    char path[64];
    snprintf(path, sizeof path, "%d/smaps", (int)p->pid);
    int fd = mon_open_rel(t->proc_fd, path);
    if (fd < 0)
        return;
    mon_close_fd(&p->smaps_all_fd);
    p->smaps_all_fd = fd;
    (void)mon_so_add(&t->so, fd, main);
}

struct tree_sums {
    uint64_t ticks, uticks, io[MON_IO_COUNT], rss_kb, pss_kb, private_kb, shared_kb, threads;
    uint64_t new_io[MON_IO_COUNT]; /* of the processes first seen in this sample */
    unsigned procs;
    bool any_pss;
    bool pss_now; /* read smaps_rollup in this sample */
    double now;   /* the sample's time (monotonic s) */
    bool main_pss; /* the root's own smaps_rollup was read: main_* hold its figures */
    uint64_t main_private_kb, main_shared_kb;
};

/* Whether p, a process of one thread, has not run since its stat and io were last read
 * (MON_TREE_WALK_MAX_AGE_S ago at most): its schedstat is as it was then. A process that does
 * not run cannot read, write, reap, fork or exit; its parent leaving the tree, which moves it
 * out without its running, is the caller's to check. Else the reading is taken as the new
 * baseline and false returned: the caller reads stat and io next. */
static bool still_asleep(struct mon_proc *p, double now)
{
    char buf[128];
    ssize_t n = p->sched_fd >= 0 && p->st.threads == 1
                    ? mon_pread_proc(p->sched_fd, buf, sizeof buf)
                    : -1;
    int64_t ns, wait, slices;
    const char *q = n > 0 ? hw_scan_i64(buf, buf + n, &ns, NULL) : NULL;
    q = q ? hw_scan_i64(q, buf + n, &wait, NULL) : NULL;
    q = q ? hw_scan_i64(q, buf + n, &slices, NULL) : NULL;
    if (!q || ns <= 0 || slices <= 0) { /* "0 0 0": a kernel without CONFIG_SCHED_INFO */
        p->sched_known = false;
        return false;
    }
    if (p->sched_known && (uint64_t)ns == p->sched_ns && (uint64_t)slices == p->sched_slices &&
        now - p->full_t < MON_TREE_WALK_MAX_AGE_S)
        return true;
    p->sched_ns = (uint64_t)ns;
    p->sched_slices = (uint64_t)slices;
    p->sched_known = true;
    return false;
}

/* Add one live process of the tree to the sums: st its stat just read, or NULL when it has not
 * run since its last reading (still_asleep), which stands. */
static void account(struct mon_tree *t, struct mon_proc *p, const struct mon_pstat *st,
                    struct tree_sums *s)
{
    char buf[1024];
    if (st) {
        bool reaped = !t->alone; /* the children it waited for are the tree's, unless alone */
        p->ticks = st->utime + st->stime + (reaped ? st->cutime + st->cstime : 0);
        p->uticks = st->utime + (reaped ? st->cutime : 0);
        if (st != &p->st)
            p->st = *st;
        p->full_t = s->now;
        if (p->io_fd >= 0 && mon_pread_proc(p->io_fd, buf, sizeof buf) > 0)
            mon_parse_pid_io(buf, p->io); /* on failure the last values stay */
    } else {
        st = &p->st;
        t->kept++;
    }
    s->ticks += p->ticks;
    s->uticks += p->uticks;
    s->threads += st->threads;
    s->rss_kb += st->rss_pages * (uint64_t)t->page_kb;
    s->procs++;
    /* new since the previous sample, and so is its parent: the command a phase runner started
     * (runlog time's child), not the runner itself, whose own start-up is before the phase */
    const struct mon_proc *pp = t->have_prev && p->born_gen >= t->new_from
                                    ? find_proc(t, p->ppid)
                                    : NULL;
    bool born = pp && pp->born_gen >= t->new_from;
    for (int k = 0; k < MON_IO_COUNT; k++) {
        s->io[k] += p->io[k];
        s->new_io[k] += born ? p->io[k] : 0;
    }

}

/* Add a member's PSS to the sums, once the walk knows who the members are (its RSS: the stat
 * the walk read, p->st). The kernel's walk of smaps_rollup is most of a sample's cost (issue
 * 39): a process whose RSS has not moved since its last reading keeps it, unless --pss asked for
 * every sample (pss_budget 0), the reading is MON_PSS_MAX_AGE_S old, or a process joined or
 * left the tree since (a fork shares the parent's pages, an exit unshares them, with no RSS
 * moving: kept readings said +45% while two forked workers lived, -66% after). RSS that climbs
 * is read again in the same sample, so a peak is not missed. */
static void account_pss(struct mon_tree *t, struct mon_proc *p, struct tree_sums *s)
{
    char buf[1024];
    if (p->smaps_fd < 0)
        return;
    const struct mon_pstat *st = &p->st;
    bool keep = p->pss_known && t->pss_budget > 0 && st->rss_pages == p->pss_rss_pages &&
                s->now - p->pss_t < MON_PSS_MAX_AGE_S && p->pss_members == t->members_gen;
    uint64_t kb;
    if (!keep && read_smaps(t, p, buf, sizeof buf) > 0 &&
        mon_parse_kb_field(buf, "Pss:", &kb) == 0) {
        static const char *const priv[] = {"Private_Clean:", "Private_Dirty:"};
        static const char *const shared[] = {"Shared_Clean:", "Shared_Dirty:"};
        uint64_t pk = 0, sk = 0, x;
        for (int i = 0; i < 2; i++) {
            if (mon_parse_kb_field(buf, priv[i], &x) == 0)
                pk += x;
            if (mon_parse_kb_field(buf, shared[i], &x) == 0)
                sk += x;
        }
        p->pss_kb = kb, p->private_kb = pk, p->shared_kb = sk;
        p->pss_rss_pages = st->rss_pages;
        p->pss_t = s->now;
        p->pss_members = t->members_gen;
        p->pss_known = true;
        t->pss_reads++;
    } else if (!keep) {
        p->pss_known = false; /* gone, or not readable: not counted */
    }
    if (!p->pss_known)
        return;
    s->pss_kb += p->pss_kb;
    s->any_pss = true;
    s->private_kb += p->private_kb;
    s->shared_kb += p->shared_kb;
    if (p->pid == t->root) { /* the main process alone, too */
        s->main_pss = true;
        s->main_private_kb = p->private_kb;
        s->main_shared_kb = p->shared_kb;
    }
}

/* One walk; 1 (nothing kept) when may_retry and the tree's CPU or I/O dipped: see
 * mon_tree_sample. */
static int sample_tree(struct mon_tree *t, double now_s, struct mon_tree_sample *out,
                       bool may_retry)
{
    memset(out, 0, sizeof *out);
    t->gen++;
    if (may_retry) {
        t->gen0 = t->gen; /* a second walk of this sample still counts the first's newcomers */
        if (!t->keep_new)
            t->new_from = t->gen0;
        t->keep_new = false;
    }
    struct mon_proc *root = find_proc(t, t->root);
    struct mon_pstat st;
    if (!root || !read_member(t, root, &st) || (st.state == 'Z' && t->final_read)) {
        out->root_alive = false;
        return 0;
    }
    bool exited = st.state == 'Z'; /* mon_tree_sample.exited */
    t->final_read = exited;
    out->root_alive = !exited;
    out->exited = exited;
    /* the main process alone; st is reused for the others below */
    uint64_t main_ticks = st.utime + st.stime;
    out->main_rss_mib = (double)(st.rss_pages * (uint64_t)t->page_kb) / 1024.0;
    out->main_threads = st.threads;
    if (t->mode == MODE_UNKNOWN) {
        char path[96], buf[64];
        snprintf(path, sizeof path, "%d/task/%d/children", (int)t->root, (int)t->root);
        ssize_t n = hw_read_small(t->proc_fd, path, buf, sizeof buf);
        t->mode = n >= 0 ? MODE_CHILDREN : MODE_SCAN; /* no CONFIG_PROC_CHILDREN: scan */
    }

    /* Nothing created since the last walk (no new pid): who is in the tree can only have
     * shrunk, which each member's own stat tells; the walk's children files (one per thread of
     * a process with threads) or its scan of /proc are skipped. */
    long long lp = exited ? -1 : last_pid(t);
    bool quiet = lp > 0 && t->walked && lp == t->walk_last_pid &&
                 now_s - t->walk_t < MON_TREE_WALK_MAX_AGE_S;
    if (!exited && !quiet) {
        t->walk_last_pid = lp; /* read before the walk: a fork during it shows next time */
        t->walk_t = now_s;
        t->walked = true;
        t->walks++;
    }

    struct tree_sums sum = {0};
    sum.pss_now = t->pss && now_s >= t->pss_next && !exited;
    sum.now = now_s;
    struct timespec c0;
    if (sum.pss_now && t->pss_budget > 0)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);

    if (exited) {
        /* its children were reparented when it exited: not its tree any more */
        root->gen = t->gen;
        root->ppid = st.ppid;
        account(t, root, &st, &sum);
    } else if (quiet) {
        /* the last walk's members that are alive and whose parent still is one: an orphan was
         * reparented out of the tree (to a subreaper in it, it stays). A parent comes before
         * its children in t->p (add_proc appends a child once its parent is in). */
        root->gen = t->gen;
        root->ppid = st.ppid;
        account(t, root, &st, &sum);
        for (size_t i = 0; i < t->n; i++) {
            struct mon_proc *p = &t->p[i];
            if (p == root)
                continue;
            /* its parent is still in: one that left (exited) would have run to do so */
            const struct mon_proc *pp = find_proc(t, p->ppid);
            if (pp && pp->gen == t->gen && still_asleep(p, now_s)) {
                p->gen = t->gen;
                account(t, p, NULL, &sum);
                continue;
            }
            struct mon_pstat pst;
            if (!read_member(t, p, &pst))
                continue;
            pp = find_proc(t, pst.ppid);
            if (!pp || pp->gen != t->gen)
                continue;
            p->gen = t->gen;
            p->ppid = pst.ppid;
            account(t, p, &pst, &sum);
        }
    } else if (t->mode == MODE_CHILDREN) {
        /* breadth-first from the root through task/TID/children; the queue holds indices into
         * t->p, which add_proc() may move */
        if (grow((void **)&t->queue, &t->queue_cap, t->n + 1, sizeof *t->queue) < 0)
            return -ENOMEM;
        root->gen = t->gen;
        root->ppid = st.ppid;
        account(t, root, &st, &sum);
        size_t qn = 0;
        t->queue[qn++] = (size_t)(root - t->p);
        for (size_t qi = 0; qi < qn; qi++) {
            struct mon_proc *p = &t->p[t->queue[qi]];
            if (qi > 0) {
                if (!read_member(t, p, &st)) {
                    p->gen = 0; /* vanished */
                    continue;
                }
                account(t, p, &st, &sum);
            }
            struct kids_ctx k = {t, p->pid, 0, &qn};
            if (st.threads <= 1 && p->kids_fd >= 0) {
                /* one thread: its children file, kept open, is the only one to read */
                read_kids(&k, p->kids_fd);
            } else {
                char tdir[64];
                snprintf(tdir, sizeof tdir, "%d/task", (int)p->pid);
                int tfd = openat(t->proc_fd, tdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (tfd < 0)
                    continue;
                for_each_pid_entry(t, tfd, task_children, &k);
                close(tfd);
            }
            if (k.err == -ENOMEM)
                return -ENOMEM;
        }
    } else {
        int rc = scan_tree(t);
        if (rc < 0)
            return rc;
        root = find_proc(t, t->root); /* scan_tree() may have moved the table */
        /* read every tracked process; then keep those whose ancestry reaches the root */
        for (size_t i = 0; i < t->n; i++) {
            struct mon_proc *p = &t->p[i];
            p->gen = 0;
            if (p == root) {
                p->ppid = st.ppid;
                continue;
            }
            if (read_member(t, p, &p->st)) {
                p->ppid = p->st.ppid;
                p->gen = t->gen - 1; /* alive, reachability unknown yet */
            }
        }
        root->gen = t->gen;
        bool changed = true;
        while (changed) {
            changed = false;
            for (size_t i = 0; i < t->n; i++) {
                struct mon_proc *p = &t->p[i];
                if (p->gen != t->gen - 1)
                    continue;
                struct mon_proc *pp = find_proc(t, p->ppid);
                if (pp && pp->gen == t->gen) {
                    p->gen = t->gen;
                    changed = true;
                }
            }
        }
        for (size_t i = 0; i < t->n; i++) {
            struct mon_proc *p = &t->p[i];
            if (p->gen != t->gen)
                continue;
            account(t, p, p == root ? &st : &p->st, &sum);
        }
    }

    /* Drop what vanished or left the tree. Its CPU time and I/O move into the parent's
     * cutime/cstime and io when a tracked parent reaps it; otherwise we keep its last numbers.
     * A member the walk missed whose parent is in the tree now is still the tree's: a subreaper
     * in it, read before the old parent exited, took it in after its children file was read.
     * Read now (after that parent, so nothing counts twice), not dropped: kept as gone, then
     * read again in full when the next walk found it, its bytes counted twice for good. */
    for (size_t i = 0; i < t->n; i++) {
        struct mon_proc *p = &t->p[i];
        if (p->gen == t->gen)
            continue;
        struct mon_pstat pst;
        if (!exited && read_stat(t, p, &pst)) {
            const struct mon_proc *pp = find_proc(t, pst.ppid);
            if (pp && pp->gen == t->gen && pst.ppid != p->pid) {
                p->gen = t->gen;
                p->ppid = pst.ppid;
                account(t, p, &pst, &sum);
                continue;
            }
        }
        if (absorbed_by_tree(t, p))
            continue;
        t->gone_ticks += p->ticks;
        t->gone_uticks += p->uticks;
        for (int k = 0; k < MON_IO_COUNT; k++)
            t->gone_io[k] += p->io[k];
    }
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->p[i].gen == t->gen) {
            t->p[w++] = t->p[i];
        } else {
            drop_proc_fds(&t->p[i]);
            note_change(t, -t->p[i].pid);
        }
    }
    if (w != t->n) {
        t->n = w;
        index_rebuild(t); /* the table is big enough already: cannot fail */
    }
    if (sum.pss_now)
        for (size_t i = 0; i < t->n; i++)
            account_pss(t, &t->p[i], &sum);
    if (sum.pss_now && t->shared_once) {
        mon_so_begin(&t->so);
        for (size_t i = 0; i < t->n; i++)
            read_shared_once(t, &t->p[i]);
        for (int g = 0; g < MON_SO_COUNT; g++) {
            out->have_shared_once[g] = t->so.any[g];
            out->shared_once_mib[g] = (double)t->so.kb[g] / 1024.0;
        }
        /* no descendant is a reading of none: 0, as gpu_tracker's empty list sums */
        out->have_shared_once[MON_SO_DESC] = t->so.any[MON_SO_ALL];
    }

    if (sum.pss_now && t->pss_budget > 0) {
        struct timespec c1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        double cost = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
        t->pss_next = now_s + cost / t->pss_budget;
    }
    uint64_t ticks = sum.ticks + t->gone_ticks, uticks = sum.uticks + t->gone_uticks;
    /* a reap between two reads shows as a dip in CPU time, or only in I/O: a short child that
     * wrote a checkpoint used no whole tick (an I/O dip held by max_io put the checkpoint's
     * bytes in the interval after its phase). The raw sum, not the max: a dip that stays (a
     * daemon's bytes went to init) is read again once, not at every sample. */
    bool dip = t->have_prev && ticks < t->prev_ticks;
    for (int k = 0; k < MON_IO_COUNT; k++)
        dip |= t->have_prev && sum.io[k] + t->gone_io[k] < t->raw_io[k];
    if (may_retry && dip)
        return 1;
    /* A tracked parent reaping a child between our two reads can make the sum dip for one
     * sample; keep the series monotonic and let the next sample catch up. */
    if (t->have_prev && now_s > t->prev_t) {
        out->have_cpu = true;
        double per_tick = 100.0 / (double)t->clk_tck / (now_s - t->prev_t);
        out->cpu_pct = (double)mon_ticks_delta(ticks, t->prev_ticks) * per_tick;
        /* user + system = the total, whatever the dip rule below kept */
        double usr = (double)mon_ticks_delta(uticks, t->prev_uticks) * per_tick;
        out->usr_cpu_pct = usr < out->cpu_pct ? usr : out->cpu_pct;
        out->sys_cpu_pct = out->cpu_pct - out->usr_cpu_pct;
        out->main_cpu_pct = (double)mon_ticks_delta(main_ticks, t->prev_main_ticks) * per_tick;
    }
    if (!t->have_prev || ticks >= t->prev_ticks) {
        t->prev_ticks = ticks;
        t->prev_uticks = uticks;
    }
    t->prev_main_ticks = main_ticks;
    t->prev_t = now_s;
    t->have_prev = true;
    for (int k = 0; k < MON_IO_COUNT; k++) { /* never decreasing, as the dip rule above */
        uint64_t v = sum.io[k] + t->gone_io[k];
        t->raw_io[k] = v;
        if (v > t->max_io[k])
            t->max_io[k] = v;
        out->io[k] = t->max_io[k];
        out->new_io[k] = sum.new_io[k] < out->io[k] ? sum.new_io[k] : out->io[k];
    }
    out->procs = sum.procs;
    out->threads = sum.threads;
    out->rss_mib = (double)sum.rss_kb / 1024.0;
    out->have_pss = sum.any_pss;
    out->pss_mib = (double)sum.pss_kb / 1024.0;
    out->private_mib = (double)sum.private_kb / 1024.0;
    out->shared_mib = (double)sum.shared_kb / 1024.0;
    out->have_main_pss = sum.main_pss;
    out->main_private_mib = (double)sum.main_private_kb / 1024.0;
    out->main_shared_mib = (double)sum.main_shared_kb / 1024.0;
    return 0;
}

/* A tracked parent that reaps a child between our reading it and the child makes the sum dip:
 * the child is gone and its time is not yet in the parent's cutime. That happens at the edges
 * of phases (a `runlog time` ends, its shell reaps it), just where an edge sample reads: read
 * the tree again at once, the reap done, rather than let the next sample carry the time into
 * the next phase. A second dip keeps the series monotonic (the next sample catches up). */
int mon_tree_sample(struct mon_tree *t, double now_s, struct mon_tree_sample *out)
{
    int rc = sample_tree(t, now_s, out, true);
    return rc == 1 ? sample_tree(t, now_s, out, false) : rc;
}
