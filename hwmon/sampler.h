/* The sampler thread: /proc/stat, meminfo, the cgroup and the process tree, one CSV line per
 * file per sample, on absolute deadlines of CLOCK_MONOTONIC.
 *
 * Slot j is due at start + j*interval (j = 1, 2, ...). A sample taken at time t belongs to the
 * latest slot due by t; slots between the previous sample's and this one (whole intervals that
 * passed without a sample, because the thread was not scheduled) are counted as skipped and
 * never made up: a stalled sampler resumes its cadence instead of bunching samples, and no
 * sample is ever taken ahead of its slot. */
#ifndef HWMON_SAMPLER_H
#define HWMON_SAMPLER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "procfs.h"

/* The sampler thread's nice value when the system allows it (see sampler.c). */
#define MON_SAMPLER_NICE (-10)

struct mon_sampler_cfg {
    double interval_s;
    uint64_t max_slots;    /* stop by itself after this slot (0: until stopped) */
    struct mon_sys *sys;   /* borrowed; the thread is its only user while running */
    struct mon_tree *tree; /* borrowed; NULL: no proc_metrics.csv */
    int cpu_fd, proc_fd;   /* borrowed O_APPEND descriptors; proc_fd -1 without a tree */
    bool cgroup_cols, pss;
    int notify_fd; /* eventfd written once when the thread ends by itself, or -1 */
    int tree_pids_fd; /* borrowed O_APPEND descriptor of tree_pids.csv; -1 without a tree */
    bool sys_baseline; /* the caller took the system baseline already (before the job began) */
};

enum { MON_SAMPLER_RUNNING, MON_SAMPLER_DONE_SLOTS, MON_SAMPLER_DONE_ROOT_GONE };

struct mon_sampler {
    struct mon_sampler_cfg cfg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC */
    bool stop, started;
    bool final;   /* take a last sample when told to stop: the job's last partial interval */
    atomic_uint_fast64_t n_cpu, n_proc, skipped;
    atomic_int finished;  /* MON_SAMPLER_* */
    atomic_int write_err; /* first write error (-errno), 0 if none */
};

/* Write the CSV headers (only into empty files), take the baseline reading and start the
 * thread. The caller must have blocked the signals the main thread handles. Returns 0 or
 * -errno (the thread did not start). */
int mon_sampler_start(struct mon_sampler *s, const struct mon_sampler_cfg *cfg);

/* Ask the thread to stop and join it; with final, it takes a last sample first, so that the
 * counters' deltas of the interval the stop cut short are written (a checkpoint in the job's
 * last half second). Safe after it ended by itself, and without a start. */
void mon_sampler_stop(struct mon_sampler *s, bool final);

#endif
