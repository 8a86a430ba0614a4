/* The sampler thread (see sampler.h). One thread, its own files, no allocation per sample:
 * lines are built in a stack buffer and written with one write(2) each. */
#include "sampler.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "csvout.h"
#include "hwrun/io.h"
#include "hwrun/timeutil.h"
#include "hwrun/rundir.h"

static void write_line(struct mon_sampler *s, int fd, struct hw_buf *b)
{
    int rc = b->oom ? -ENOMEM : hw_append_whole(fd, b->p, b->len);
    if (rc < 0) {
        int zero = 0;
        atomic_compare_exchange_strong(&s->write_err, &zero, rc);
    }
}

/* The tree's membership changes since the last call, as tree_pids.csv rows. */
static void write_tree_changes(struct mon_sampler *s, const char *iso)
{
    struct mon_tree *t = s->cfg.tree;
    if (s->cfg.tree_pids_fd < 0 || t->nchg == 0) {
        t->nchg = 0;
        return;
    }
    char store[1024];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    for (size_t i = 0; i < t->nchg; i++) {
        pid_t v = t->chg[i];
        hw_buf_printf(&b, "%s,%d,%d\n", iso, (int)(v < 0 ? -v : v), v > 0);
    }
    t->nchg = 0;
    write_line(s, s->cfg.tree_pids_fd, &b);
    hw_buf_free(&b);
}

static void sample_once(struct mon_sampler *s, bool *root_gone)
{
    char store[512], iso[HW_ISO_LEN];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    double now = hw_mono_now();
    hw_iso_utc_now(iso);

    struct mon_sys_sample ss;
    if (mon_sys_sample(s->cfg.sys, now, &ss) == 0) {
        mon_csv_cpu_line(&b, iso, &ss, s->cfg.cgroup_cols);
        write_line(s, s->cfg.cpu_fd, &b);
        atomic_fetch_add(&s->n_cpu, 1);
    }
    if (s->cfg.tree) {
        struct mon_tree_sample ts;
        if (mon_tree_sample(s->cfg.tree, now, &ts) == 0) {
            write_tree_changes(s, iso);
            if (ts.root_alive) {
                hw_buf_reset(&b);
                mon_csv_proc_line(&b, iso, &ts, s->cfg.pss);
                write_line(s, s->cfg.proc_fd, &b);
                atomic_fetch_add(&s->n_proc, 1);
            } else {
                *root_gone = true;
            }
        }
    }
    hw_buf_free(&b);
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

    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        int rc = 0;
        while (!s->stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&s->cv, &s->mu, &next);
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->mu);

        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t el = hw_ts_diff_ns(&now, &start);
        /* the latest slot whose deadline has passed: a slot is skipped only when the whole
         * interval after it went by without a sample, and no slot gets two */
        uint64_t j = el > 0 ? (uint64_t)(el / iv_ns) : 0;
        if (j <= slot)
            j = slot + 1;
        if (s->cfg.max_slots && j > s->cfg.max_slots)
            j = s->cfg.max_slots; /* woke very late for the last one: take it now */
        if (j > slot + 1)
            atomic_fetch_add(&s->skipped, j - slot - 1);
        slot = j;
        bool root_gone = false;
        sample_once(s, &root_gone);

        next = start;
        hw_ts_add_ns(&next, (int64_t)(slot + 1) * iv_ns);
        pthread_mutex_lock(&s->mu);
        if (root_gone) {
            finished = MON_SAMPLER_DONE_ROOT_GONE;
            break;
        }
        if (s->cfg.max_slots && slot >= s->cfg.max_slots) {
            finished = MON_SAMPLER_DONE_SLOTS;
            break;
        }
    }
    bool final = s->stop && s->final && finished == MON_SAMPLER_RUNNING;
    pthread_mutex_unlock(&s->mu);
    if (final) { /* the stop's own sample: its slot is not one of the cadence's */
        bool root_gone = false;
        sample_once(s, &root_gone);
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

int mon_sampler_start(struct mon_sampler *s, const struct mon_sampler_cfg *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    char store[256];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    mon_csv_cpu_header(&b, cfg->cgroup_cols);
    int rc = write_header(cfg->cpu_fd, &b);
    if (rc == 0 && cfg->tree) {
        hw_buf_reset(&b);
        mon_csv_proc_header(&b, cfg->pss);
        rc = write_header(cfg->proc_fd, &b);
        hw_buf_reset(&b);
        hw_buf_puts(&b, HW_TREE_PIDS_HEADER "\n");
        if (rc == 0 && cfg->tree_pids_fd >= 0)
            rc = write_header(cfg->tree_pids_fd, &b);
    }
    hw_buf_free(&b);
    if (rc < 0)
        return rc;

    /* baseline for the CPU deltas (unless taken before the job began) */
    struct mon_sys_sample ss;
    double now = hw_mono_now();
    if (!cfg->sys_baseline)
        mon_sys_sample(cfg->sys, now, &ss);
    if (cfg->tree) {
        struct mon_tree_sample ts;
        if (mon_tree_sample(cfg->tree, now, &ts) == 0) {
            char iso[HW_ISO_LEN];
            hw_iso_utc_now(iso);
            write_tree_changes(s, iso);
        }
    }

    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    rc = pthread_create(&s->thread, NULL, run, s);
    if (rc != 0) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        return -rc;
    }
    s->started = true;
    return 0;
}

void mon_sampler_stop(struct mon_sampler *s, bool final)
{
    if (!s->started)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    s->final = final;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    s->started = false;
}
