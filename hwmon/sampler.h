/* The sampler thread: /proc/stat, meminfo, the cgroup and the process tree, one CSV line per
 * file per sample, on absolute deadlines of CLOCK_MONOTONIC.
 *
 * Edge samples: the thread follows run.jsonl (follow.h) and takes an extra sample where a phase
 * begins or ends, so that a phase's CPU, disk and network come from counters read at its own
 * edges. Its rows carry edge=1; the cadence's rows stay what they would be without them (each
 * covers its whole interval: the edge rows' parts are merged back in), so every figure of the
 * cadence, pytyche's included, is unchanged. The cost is bounded for a phase per training step:
 * an edge sample is taken at the end of a phase of at least edge_min_s, and at a begin that
 * comes at least edge_min_s after the previous phase boundary; a shorter phase that began after
 * a quiet time (a checkpoint of 10 ms) also has its end read, down to MON_EDGE_SHORT_S; faster
 * boundaries in a row (steps) are left to interpolation, and edge samples are never closer than
 * MON_EDGE_GAP_S.
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

#include "gpusrc.h"
#include "follow.h"
#include "machine.h"
#include "proctree.h"
#include "runfiles.h"
#include "runlog.h"

/* The sampler thread's nice value when the system allows it (see sampler.c). */
#define MON_SAMPLER_NICE (-10)
/* The shortest phase measured at its edges when phases come one after another (steps), as a
 * share of the interval; the shortest lone phase; and the closest two edge samples ever are. */
#define MON_EDGE_MIN_FRAC 0.25
#define MON_EDGE_GAP_S 0.001
#define MON_EDGE_SHORT_S 0.001
/* A phase that lasted this long has its end sampled whatever came before it (a 12 ms checkpoint
 * right after a long phase's end: its bytes are read at its end, not shared by time with the
 * next phase's). */
#define MON_EDGE_END_S 0.005
/* While phase boundaries come faster than that (a phase per step: from the third boundary in a
 * row, so that a lone short phase's end is read when it comes), run.jsonl is read at most
 * this often instead of at every line: a wake-up costs more than the line (measured: about
 * 70 us each on a 2-core VM, so at most 0.7% of a core); a phase's edge is then seen up to this
 * much late. */
#define MON_FOLLOW_HOLD_S 0.01
/* In such a loop the ends of the repeating phases are sampled at most this often (merged into
 * the next sample meanwhile); a phase of a name new to the loop (follow.h: a checkpoint every so
 * many steps) has both its edges sampled when they are read. */
#define MON_EDGE_COALESCE_S 0.1

struct mon_sampler_cfg {
    double interval_s;
    uint64_t max_slots;    /* stop by itself after this slot (0: until stopped) */
    struct mon_sys *sys;   /* borrowed; the thread is its only user while running */
    struct mon_tree *tree; /* borrowed; NULL: no process is tracked */
    /* hwmon's own files (runfiles.h), by enum hw_file: borrowed O_APPEND descriptors, -1 where
     * the run does not make the file (or it is not hwmon's) */
    int fd[HW_FILE_COUNT];
    struct mon_file_run files; /* their columns */
    int notify_fd; /* eventfd written once when the thread ends by itself, or -1 */
    bool sys_baseline; /* the caller took the system baseline already (before the job began) */
    /* write the tree's baseline reading as proc_metrics.csv's first row (edge=1): an attached
     * process (-p) was alive before, and its window begins at hwmon's start, so its counters'
     * and its memory's first edge is this reading, not the first cadence row an interval in */
    bool baseline_row;
    int runlog_fd;     /* run.jsonl read-only, to follow for edge samples; -1: none */
    int runlog_dirfd;  /* its directory, to keep to its name through a rotation (follow.h) */
    rl_log_t *log;     /* where a rotation is said (log_rotated); NULL: nowhere */
    double edge_min_s; /* see above (0: interval_s * MON_EDGE_MIN_FRAC) */
    /* the GPU source's files this thread writes (gpusrc.h: AMD's rows, NVIDIA's energy
     * counters), when the GPUs are known before the thread starts; else set later */
    struct mon_sampler_gpus {
        const struct mon_gpu_source *src; /* NULL: none */
        int n;
        int fd[MON_GPU_THREAD_FILES]; /* borrowed O_APPEND descriptors of its thread files */
    } gpus;
};

enum { MON_SAMPLER_RUNNING, MON_SAMPLER_DONE_SLOTS, MON_SAMPLER_DONE_ROOT_GONE };

struct mon_sampler {
    struct mon_sampler_cfg cfg;
    pthread_t thread;
    pthread_mutex_t mu;
    bool stop, started;
    bool final;   /* take a last sample when told to stop: the job's last partial interval */
    atomic_uint_fast64_t skipped, n_edge;
    /* by enum hw_file, hwmon's own files: the rows given to the file, and of those the ones a
     * failed write lost (a full disk): the stop event's samples and samples_lost */
    atomic_uint_fast64_t rows[HW_FILE_COUNT], lost[HW_FILE_COUNT];
    void *file_state[HW_FILE_COUNT]; /* what each file's own source opened (runfiles.h) */
    int wake_fd; /* eventfd: stop */
    struct mon_follow follow;
    /* the edge rows' parts of the current cadence interval, merged into its row */
    struct mon_sys_sample sys_acc;
    struct mon_tree_sample tree_acc;
    double sys_acc_s, tree_acc_s, last_t, last_boundary_t, last_edge_t;
    uint64_t io_written[MON_IO_COUNT]; /* the tree's I/O counters of the last row written */
    unsigned fast_run; /* phase boundaries in a row, each within edge_min_s of the one before */
    double follow_resume; /* run.jsonl is not watched before this time (MON_FOLLOW_HOLD_S) */
    atomic_int finished;  /* MON_SAMPLER_* */
    atomic_int write_err; /* first write error (-errno), 0 if none */
    /* the GPU source's files (cfg.gpus), when they were handed over after the thread started
     * (mon_sampler_set_gpus): read with acquire */
    atomic_bool gpus_ready;
    struct mon_sampler_gpus gpus;
};

/* Write the files' headers (only into empty files), take the baseline reading and start the
 * thread. The caller must have blocked the signals the main thread handles. Returns 0 or
 * -errno (the thread did not start). */
int mon_sampler_start(struct mon_sampler *s, const struct mon_sampler_cfg *cfg);

/* Ask the thread to stop and join it; with final, it takes a last sample first, so that the
 * counters' deltas of the interval the stop cut short are written (a checkpoint in the job's
 * last half second). Safe after it ended by itself, and without a start. */
void mon_sampler_stop(struct mon_sampler *s, bool final);
/* Hand the GPU source's files to a thread that started without them:
 * a job that starts before nvidia-smi's probes is sampled from its first moment, its GPUs from
 * when they are known. Once; the caller keeps them alive until mon_sampler_stop. */
void mon_sampler_set_gpus(struct mon_sampler *s, const struct mon_sampler_gpus *g);

/* The cadence's arithmetic, apart from the clock, so that a test drives it with a clock of its
 * own (test_hwmon.modes.cadence_driven: hours of slots in microseconds). A wake-up el_ns after
 * the sampler's start, slot last sampled before it (0: the baseline), belongs to the slot
 * returned: the latest one due by then, at least last + 1 (a deadline's wake-up is never before
 * it: poll's timeouts do not end early), at most max_slots (0: no last slot); the slots passed
 * over, whole intervals without a sample, are added to *skipped and never made up. The next
 * deadline is slot + 1's, start + (slot + 1) * iv_ns. */
uint64_t mon_cadence_slot(int64_t el_ns, int64_t iv_ns, uint64_t last, uint64_t max_slots,
                          uint64_t *skipped);
/* A duration of whole intervals: their number, the sampler's last slot (-d 3 -i 0.1: 30); any
 * other (1.7 s at -i 0.5), or none, 0: a timer ends the run, the stop's own sample taking the
 * last partial interval. */
uint64_t mon_cadence_max_slots(double duration_s, double interval_s);

#endif
