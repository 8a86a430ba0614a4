/* The sampler thread (see sampler.h). One thread, its own files, no allocation per sample:
 * lines are built in a stack buffer and written with one write(2) each. */
#include "sampler.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/timeutil.h"
#include "hwrun/rundir.h"
#include "hwrun/buf.h"

/* false when the line was not written (a full disk): the caller counts the sample lost */
static bool write_line(struct mon_sampler *s, int fd, struct hw_buf *b)
{
    int rc = b->oom ? -ENOMEM : hw_append_whole(fd, b->p, b->len);
    if (rc < 0) {
        int zero = 0;
        atomic_compare_exchange_strong(&s->write_err, &zero, rc);
    }
    return rc >= 0;
}

/* hwmon's own files at this tick (runfiles.h): each file's rows in one write, counted, and
 * counted lost when the write fails. The tree's membership changes are news once: emptied. */
static void file_rows(struct mon_sampler *s, const struct mon_file_tick *t)
{
    char store[1024];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        if (!mon_files[k] || s->cfg.fd[k] < 0)
            continue;
        hw_buf_reset(&b);
        mon_files[k]->row(&b, &s->cfg.files, t, s->file_state[k]);
        if (!b.len)
            continue;
        /* rows, not writes: a tick may give a file several (tree_pids.csv's joins), so that
         * each file holds its rows less its lost ones */
        uint_fast64_t n = 0;
        for (const char *p = b.p; (p = memchr(p, '\n', b.len - (size_t)(p - b.p))); p++)
            n++;
        if (!write_line(s, s->cfg.fd[k], &b))
            atomic_fetch_add(&s->lost[k], n);
        atomic_fetch_add(&s->rows[k], n);
    }
    hw_buf_free(&b);
    if (t->tree)
        s->cfg.tree->nchg = 0;
}

/* The sources of hwmon's files that have their own (runfiles.h), for the files the run makes. */
static void open_file_sources(struct mon_sampler *s)
{
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (mon_files[k] && mon_files[k]->open && s->cfg.fd[k] >= 0)
            s->file_state[k] = mon_files[k]->open(&s->cfg.files);
}

static void close_file_sources(struct mon_sampler *s)
{
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (mon_files[k] && mon_files[k]->close && s->file_state[k]) {
            mon_files[k]->close(s->file_state[k]);
            s->file_state[k] = NULL;
        }
}

/* Interval figures of a cadence row over its whole interval: an edge row's part (acc, of
 * acc_s seconds) and the rest (x, of dt seconds). The system's percentages weigh by their
 * jiffies, the others by time (the tree's and the cgroup's are ticks and ns over seconds), byte
 * counts add: exactly what one sample over the whole interval reads. */
static double wmean(double a, double wa, double b, double wb)
{
    return wa + wb > 0 ? (a * wa + b * wb) / (wa + wb) : b;
}

static void merge_sys(struct mon_sys_sample *acc, double *acc_s, struct mon_sys_sample *x,
                      double dt, bool into_x)
{
    if (!into_x) { /* an edge row: add it to the interval's part so far */
        if (*acc_s == 0) {
            *acc = *x;
        } else {
            struct mon_sys_sample sum = *x;
            merge_sys(acc, acc_s, &sum, dt, true);
            *acc = sum;
        }
        *acc_s += dt;
        return;
    }
    if (*acc_s == 0)
        return;
    if (x->have_cpu && acc->have_cpu) {
        double wa = (double)acc->cpu_ticks, wb = (double)x->cpu_ticks;
        x->usr_pct = wmean(acc->usr_pct, wa, x->usr_pct, wb);
        x->idle_pct = wmean(acc->idle_pct, wa, x->idle_pct, wb);
        x->sys_pct = wmean(acc->sys_pct, wa, x->sys_pct, wb);
        x->iowait_pct = wmean(acc->iowait_pct, wa, x->iowait_pct, wb);
        x->steal_pct = wmean(acc->steal_pct, wa, x->steal_pct, wb);
        x->cpu_ticks += acc->cpu_ticks;
    } else if (acc->have_cpu) { /* the cadence part read nothing: the edge part is all */
        uint64_t t = acc->cpu_ticks;
        x->have_cpu = true;
        x->usr_pct = acc->usr_pct, x->idle_pct = acc->idle_pct, x->sys_pct = acc->sys_pct;
        x->iowait_pct = acc->iowait_pct, x->steal_pct = acc->steal_pct, x->cpu_ticks = t;
    }
    if (x->cg.have_cpu && acc->cg.have_cpu)
        x->cg.cpu_pct = wmean(acc->cg.cpu_pct, *acc_s, x->cg.cpu_pct, dt);
    if (x->io.have_disk && acc->io.have_disk) {
        x->io.disk_read_bytes += acc->io.disk_read_bytes;
        x->io.disk_write_bytes += acc->io.disk_write_bytes;
    }
    if (x->io.have_net && acc->io.have_net) {
        x->io.net_rx_bytes += acc->io.net_rx_bytes;
        x->io.net_tx_bytes += acc->io.net_tx_bytes;
    }
}

static void merge_tree(struct mon_tree_sample *acc, double *acc_s, struct mon_tree_sample *x,
                       double dt, bool into_x)
{
    if (!into_x) {
        if (*acc_s == 0) {
            *acc = *x;
        } else {
            struct mon_tree_sample sum = *x;
            merge_tree(acc, acc_s, &sum, dt, true);
            *acc = sum;
        }
        *acc_s += dt;
        return;
    }
    if (*acc_s == 0 || !acc->have_cpu)
        return;
    if (!x->have_cpu) {
        x->have_cpu = true;
        x->cpu_pct = acc->cpu_pct, x->usr_cpu_pct = acc->usr_cpu_pct;
        x->sys_cpu_pct = acc->sys_cpu_pct, x->main_cpu_pct = acc->main_cpu_pct;
        return;
    }
    x->cpu_pct = wmean(acc->cpu_pct, *acc_s, x->cpu_pct, dt);
    x->usr_cpu_pct = wmean(acc->usr_cpu_pct, *acc_s, x->usr_cpu_pct, dt);
    x->sys_cpu_pct = wmean(acc->sys_cpu_pct, *acc_s, x->sys_cpu_pct, dt);
    x->main_cpu_pct = wmean(acc->main_cpu_pct, *acc_s, x->main_cpu_pct, dt);
}

/* The GPU source's thread files at this tick: each file's rows in one write (gpusrc.h). */
static void gpu_rows(struct mon_sampler *s, const char *iso, enum mon_gpu_when when)
{
    const struct mon_gpu_source *src = s->gpus.src;
    if (!src)
        return;
    const struct mon_gpu_tick t = {iso, when, s->cfg.tree};
    char store[8192]; /* a row per GPU of 8 fits many times: no allocation at a sample */
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    for (int i = 0; i < s->gpus.n; i++) {
        hw_buf_reset(&b);
        src->thread_rows(src, i, &t, &b);
        if (b.len)
            write_line(s, s->gpus.fd[i], &b);
    }
    hw_buf_free(&b);
}

/* Has run.jsonl news waiting (and is it not held)? */
static bool runlog_pending(const struct mon_sampler *s)
{
    struct pollfd pf = {mon_follow_fd(&s->follow), POLLIN, 0};
    if (pf.fd < 0 || s->follow_resume > hw_mono_now())
        return false;
    int n;
    do
        n = poll(&pf, 1, 0);
    while (n < 0 && errno == EINTR);
    return n > 0;
}

/* One sample: a cadence slot's (its rows cover the whole interval since the previous cadence
 * row, edge parts merged in), or an edge sample (edge: its rows cover the time since the
 * previous sample of any kind, and say edge=1). */
static void sample_once(struct mon_sampler *s, bool edge, bool begin, bool *root_gone)
{
    char iso[HW_ISO_LEN];
    double now = hw_mono_now();
    double dt = s->last_t > 0 ? now - s->last_t : 0;
    s->last_t = now;
    hw_iso_utc_now(iso);
    struct mon_file_tick tick = {.iso = iso, .when = edge ? MON_GPU_EDGE : MON_GPU_CADENCE};

    struct mon_sys_sample ss;
    if (mon_sys_sample(s->cfg.sys, now, &ss) == 0) {
        merge_sys(&s->sys_acc, &s->sys_acc_s, &ss, dt, !edge);
        if (!edge)
            s->sys_acc_s = 0;
        tick.sys = &ss;
    }
    struct mon_tree_sample ts;
    /* the tree's CPU rate is over the times its counters were read: the system's files before
     * may take tens of ms on a loaded machine (a one-thread loop read 120%) */
    if (s->cfg.tree && mon_tree_sample(s->cfg.tree, hw_mono_now(), &ts) == 0) {
        tick.tree = s->cfg.tree;
        if (ts.root_alive || ts.exited) {
            /* At a phase's begin, the processes the sample sees for the first time, and their
             * parent too, started since the previous one: the command the phase's runner
             * started (runlog time's child), whose first writes came before this sample, a
             * millisecond after the begin line. Their I/O goes into the next row, inside the
             * phase; the file's counters stay monotonic. A cadence sample with run.jsonl news
             * waiting holds them out too, and keeps them new for the begin sample that follows:
             * the line came (and its command started) while this sample was taken, and this
             * row, straddling the begin, would give the command's first writes by time share
             * mostly to before the phase (a sanitizer's slowness lost 11% of a checkpoint so). */
            bool pending = !edge && runlog_pending(s);
            bool hold = begin || pending;
            if (pending)
                mon_tree_keep_new(s->cfg.tree);
            for (int k = 0; k < MON_IO_COUNT; k++) {
                uint64_t v = hold ? ts.io[k] - ts.new_io[k] : ts.io[k];
                ts.io[k] = v > s->io_written[k] ? v : s->io_written[k];
                s->io_written[k] = ts.io[k];
            }
            merge_tree(&s->tree_acc, &s->tree_acc_s, &ts, dt, !edge);
            if (!edge)
                s->tree_acc_s = 0;
            tick.proc = &ts;
        }
        if (!ts.root_alive)
            *root_gone = true;
    }
    file_rows(s, &tick);
    if (atomic_load_explicit(&s->gpus_ready, memory_order_acquire))
        gpu_rows(s, iso, tick.when);
    if (edge)
        atomic_fetch_add(&s->n_edge, 1);
}

/* run.jsonl grew: an edge sample if a phase worth it began or ended (sampler.h). */
static void on_runlog(struct mon_sampler *s, bool *root_gone)
{
    struct mon_follow_news n;
    mon_follow_read(&s->follow, &n);
    if (n.rotated && s->cfg.log) {
        /* renamed: nothing lost (summarize reads the part named); deleted or truncated: the
         * lines before are gone from the run directory, a warning */
        bool kept = !strcmp(n.rotated, HW_LOG_HOW_RENAMED) && n.previous;
        rl_field_t f[] = {RL_STR(HW_LOG_HOW, n.rotated),
                          n.previous ? RL_STR(HW_LOG_PREVIOUS, n.previous)
                                     : RL_NULL(HW_LOG_PREVIOUS),
                          RL_INT(HW_LOG_BYTES, (int64_t)n.bytes),
                          RL_STR(HW_EV_SEVERITY, HW_EV_SEVERITY_INFO)};
        (void)rl_event(s->cfg.log, HW_EV_LOG_ROTATED, f, kept ? 4 : 3);
    }
    if (!n.begins && !n.ends)
        return;
    double now = hw_mono_now(), min_s = s->cfg.edge_min_s;
    bool burst = now - s->last_boundary_t < min_s;
    /* boundaries in a row, each within min_s of the one before: 1 for the end of a lone short
     * phase (a checkpoint), more in a step loop */
    s->fast_run = burst ? s->fast_run + 1 : 0;
    /* a begin right after a long phase's end (the next `runlog time` starting) is read where
     * it is when the end's sample is too far before it to count as its edge (a loaded machine
     * takes more than hw_edge_tol() to start the next command): once, not in a step loop */
    bool late_begin = n.begins && s->fast_run == 1 &&
                      now - s->last_edge_t > hw_edge_tol(s->cfg.interval_s);
    bool want = n.longest_end_s >= min_s || (n.begins && !burst) || late_begin ||
                n.longest_end_s >= MON_EDGE_END_S ||
                (n.ends && n.longest_end_s >= MON_EDGE_SHORT_S && s->fast_run <= 1);
    /* a checkpoint among steps (a name new to the loop): its begin and its end, each when read
     * (its bytes between them, not shared by time with the steps around it) */
    bool fresh = (n.fresh_begins || n.fresh_ends) && now - s->last_edge_t >= MON_EDGE_END_S;
    s->last_boundary_t = now;
    /* held in a step loop only: the end of a checkpoint that began right after the previous
     * phase's end (the second boundary in a row) is read when it comes, not 10 ms later */
    bool loop = burst && s->fast_run >= 2;
    if (loop)
        s->follow_resume = now + MON_FOLLOW_HOLD_S;
    /* the steps' ends, from the fourth boundary in a row (a train's end, a checkpoint's begin
     * and end are three): merged into the next sample */
    if (loop && s->fast_run >= 3 && !fresh && now - s->last_edge_t < MON_EDGE_COALESCE_S)
        want = false;
    want |= fresh;
    if (want && now - s->last_edge_t >= MON_EDGE_GAP_S) {
        s->last_edge_t = now;
        sample_once(s, true, n.begins > 0, root_gone);
    }
}

uint64_t mon_cadence_slot(int64_t el_ns, int64_t iv_ns, uint64_t last, uint64_t max_slots,
                          uint64_t *skipped)
{
    /* the latest slot whose deadline has passed: a slot is skipped only when the whole
     * interval after it went by without a sample, and no slot gets two */
    uint64_t j = el_ns > 0 && iv_ns > 0 ? (uint64_t)(el_ns / iv_ns) : 0;
    if (j <= last)
        j = last + 1;
    if (max_slots && j > max_slots)
        j = max_slots; /* woke very late for the last one: take it now */
    if (j > last + 1)
        *skipped += j - last - 1;
    return j;
}

uint64_t mon_cadence_max_slots(double duration_s, double interval_s)
{
    if (!(duration_s > 0) || !(interval_s > 0))
        return 0;
    double k = duration_s / interval_s;
    return k >= 1 && fabs(k - round(k)) <= 1e-9 * k ? (uint64_t)llround(k) : 0;
}

/* Wait until the absolute deadline, a stop, or run.jsonl growing. 1: stop asked, 0: deadline,
 * 2: run.jsonl grew (or the hold on it ended: read what came meanwhile). */
static int wait_until(struct mon_sampler *s, const struct timespec *deadline)
{
    struct pollfd pf[2] = {{s->wake_fd, POLLIN, 0}, {mon_follow_fd(&s->follow), POLLIN, 0}};
    for (;;) {
        struct timespec now, left = {0, 0};
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t ns = hw_ts_diff_ns(deadline, &now);
        /* held: run.jsonl is read when the hold ends, not at every line meanwhile */
        double hold = s->follow_resume - ((double)now.tv_sec + (double)now.tv_nsec * 1e-9);
        bool held = pf[1].fd >= 0 && hold > 0;
        if (held && hold * 1e9 < (double)ns)
            ns = (int64_t)(hold * 1e9) + 1;
        if (ns > 0) {
            left.tv_sec = (time_t)(ns / 1000000000);
            left.tv_nsec = (long)(ns % 1000000000);
        }
        int n = ppoll(pf, pf[1].fd >= 0 && !held ? 2 : 1, &left, NULL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0 && pf[0].revents)
            return 1;
        if (n > 0)
            return 2;
        if (held) { /* the hold ended (or the deadline came first: then sample first) */
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (hw_ts_diff_ns(deadline, &now) > 0) {
                s->follow_resume = 0;
                return 2;
            }
        }
        return 0; /* the deadline (or a poll error: sample on time regardless) */
    }
}

static void *run(void *arg)
{
    struct mon_sampler *s = arg;
    /* Best effort: a higher CFS weight for this thread only, so that on a machine with every
     * core busy it is woken on time. It runs for well under a millisecond per interval, so the
     * job loses nothing measurable; without the privilege (RLIMIT_NICE, CAP_SYS_NICE) this
     * fails quietly and the sampler skips slots when it is woken late, as documented. */
    (void)setpriority(PRIO_PROCESS, (id_t)gettid(), MON_SAMPLER_NICE);
    int64_t iv_ns = (int64_t)llround(s->cfg.interval_s * 1e9);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint64_t slot = 0; /* last slot sampled (0 = the baseline) */
    struct timespec next = start;
    hw_ts_add_ns(&next, iv_ns);
    int finished = MON_SAMPLER_RUNNING;
    bool stop = false;

    while (!stop) {
        int w = wait_until(s, &next);
        pthread_mutex_lock(&s->mu);
        stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop)
            break;
        bool root_gone = false;
        if (w == 2) {
            on_runlog(s, &root_gone);
        } else {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            uint64_t skipped = 0;
            slot = mon_cadence_slot(hw_ts_diff_ns(&now, &start), iv_ns, slot, s->cfg.max_slots,
                                    &skipped);
            if (skipped)
                atomic_fetch_add(&s->skipped, skipped);
            sample_once(s, false, false, &root_gone);
            next = start;
            hw_ts_add_ns(&next, (int64_t)(slot + 1) * iv_ns);
        }
        if (root_gone) {
            finished = MON_SAMPLER_DONE_ROOT_GONE;
            break;
        }
        if (s->cfg.max_slots && slot >= s->cfg.max_slots) {
            finished = MON_SAMPLER_DONE_SLOTS;
            break;
        }
    }
    pthread_mutex_lock(&s->mu);
    bool final = s->stop && s->final && finished == MON_SAMPLER_RUNNING;
    pthread_mutex_unlock(&s->mu);
    if (final) { /* the stop's own sample: its slot is not one of the cadence's */
        bool root_gone = false;
        sample_once(s, false, false, &root_gone);
    }
    if (finished != MON_SAMPLER_RUNNING) {
        atomic_store(&s->finished, finished);
        if (s->cfg.notify_fd >= 0) {
            uint64_t one = 1;
            (void)!write(s->cfg.notify_fd, &one, sizeof one);
        }
    }
    return NULL;
}

static int write_header(int fd, struct hw_buf *b)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (st.st_size > 0) /* appending to an earlier run's file: one header is enough */
        return 0;
    return hw_append_whole(fd, b->p, b->len);
}

/* Each thread file's header, into an empty file. */
static int gpu_headers(const struct mon_sampler_gpus *g)
{
    int rc = 0;
    char store[256];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    for (int i = 0; rc == 0 && g->src && i < g->n; i++) {
        hw_buf_reset(&b);
        g->src->thread_header(g->src, i, &b);
        if (b.len)
            rc = write_header(g->fd[i], &b);
    }
    hw_buf_free(&b);
    return rc;
}

int mon_sampler_start(struct mon_sampler *s, const struct mon_sampler_cfg *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->gpus = cfg->gpus;
    atomic_init(&s->gpus_ready, cfg->gpus.src != NULL);
    int rc = 0;
    char store[256];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    for (int k = 0; rc == 0 && k < HW_FILE_COUNT; k++) {
        if (!mon_files[k] || !mon_files[k]->head || cfg->fd[k] < 0)
            continue;
        hw_buf_reset(&b);
        mon_files[k]->head(&b, &cfg->files);
        rc = write_header(cfg->fd[k], &b);
    }
    hw_buf_free(&b);
    if (rc == 0)
        rc = gpu_headers(&cfg->gpus);
    if (rc < 0)
        return rc;

    /* baseline for the CPU deltas (unless taken before the job began) */
    struct mon_sys_sample ss;
    double now = hw_mono_now();
    if (!cfg->sys_baseline)
        mon_sys_sample(cfg->sys, now, &ss);
    s->last_t = now;
    if (s->cfg.edge_min_s <= 0)
        s->cfg.edge_min_s = cfg->interval_s * MON_EDGE_MIN_FRAC;
    s->last_boundary_t = s->last_edge_t = -INFINITY;
    s->follow.ifd = -1;
    if (cfg->runlog_fd >= 0)
        (void)mon_follow_open(&s->follow, cfg->runlog_fd, cfg->runlog_dirfd,
                              HW_RUNLOG_FILE); /* without it: the cadence only */
    s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->wake_fd < 0) {
        rc = -errno;
        mon_follow_close(&s->follow);
        return rc;
    }
    /* the files' first reading: the tree as it starts, a file's own counters from the run's
     * first moment */
    open_file_sources(s);
    struct mon_tree_sample ts;
    bool tree_read = cfg->tree && mon_tree_sample(cfg->tree, now, &ts) == 0;
    char first_iso[HW_ISO_LEN];
    hw_iso_utc_now(first_iso);
    /* an attached process's baseline is proc_metrics.csv's first row (no CPU rate yet) */
    bool base = tree_read && cfg->baseline_row && ts.root_alive;
    if (base)
        memcpy(s->io_written, ts.io, sizeof s->io_written);
    file_rows(s, &(struct mon_file_tick){.iso = first_iso, .when = MON_GPU_FIRST,
                                         .proc = base ? &ts : NULL,
                                         .tree = tree_read ? cfg->tree : NULL});
    if (cfg->gpus.src) { /* the first reading: the run's energy from its first moment */
        char iso[HW_ISO_LEN];
        hw_iso_utc_now(iso);
        gpu_rows(s, iso, MON_GPU_FIRST);
    }

    pthread_mutex_init(&s->mu, NULL);
    rc = pthread_create(&s->thread, NULL, run, s);
    if (rc != 0) {
        pthread_mutex_destroy(&s->mu);
        mon_follow_close(&s->follow);
        close(s->wake_fd);
        close_file_sources(s);
        return -rc;
    }
    s->started = true;
    return 0;
}

void mon_sampler_set_gpus(struct mon_sampler *s, const struct mon_sampler_gpus *g)
{
    if (!s->started || atomic_load(&s->gpus_ready) || !g->src)
        return;
    s->gpus = *g;
    /* the files' headers, and the first reading: the energy from this moment */
    int rc = gpu_headers(g);
    if (rc < 0) {
        int zero = 0;
        atomic_compare_exchange_strong(&s->write_err, &zero, rc);
    }
    char iso[HW_ISO_LEN];
    hw_iso_utc_now(iso);
    gpu_rows(s, iso, MON_GPU_FIRST);
    atomic_store_explicit(&s->gpus_ready, true, memory_order_release);
}

void mon_sampler_stop(struct mon_sampler *s, bool final)
{
    if (!s->started)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    s->final = final;
    pthread_mutex_unlock(&s->mu);
    uint64_t one = 1;
    (void)!write(s->wake_fd, &one, sizeof one);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    mon_follow_close(&s->follow);
    close(s->wake_fd);
    close_file_sources(s);
    s->started = false;
}
