/* A process and its descendants for hwmon: who is in the tree, and its CPU, memory and I/O per
 * sample. A process that vanishes mid-read is normal and never an error; nothing allocates per
 * sample (arrays grow when the tree does), prints or exits. */
#ifndef HWMON_PROCTREE_H
#define HWMON_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procread.h"
#include "sharedonce.h"

/* ---- a process and its descendants ---- */

struct mon_proc {
    pid_t pid, ppid;
    int stat_fd, io_fd, smaps_fd;
    int smaps_all_fd; /* /proc/PID/smaps with --shared-once, else -1 */
    int kids_fd;         /* task/PID/children (children mode), or -1 */
    uint64_t ticks;      /* utime+stime+cutime+cstime at the last read */
    uint64_t io[MON_IO_COUNT]; /* its io at the last read */
    uint32_t gen;        /* last walk that saw it */
    uint32_t born_gen;   /* the walk that first saw it */
    struct mon_pstat st; /* its last stat read (scan mode: this walk's) */
    uint64_t uticks;     /* utime+cutime at the last read */
    /* its last smaps_rollup reading (kB) and the RSS (pages) and time it was taken at: a
     * process whose RSS has not moved keeps it (proctree.c account) */
    uint64_t pss_kb, private_kb, shared_kb, pss_rss_pages;
    double pss_t;
    uint32_t pss_members; /* the tree's members_gen when it was taken */
    bool pss_known;
    /* schedstat (CPU run time in ns, time slices) of its first thread as read before its last
     * stat: unchanged, a process of one thread has not run since, so its stat and io have
     * not changed either (proctree.c still_asleep); st then holds that last stat */
    int sched_fd;
    uint64_t sched_ns, sched_slices;
    bool sched_known;
    double full_t; /* when its stat and io were last read */
};
/* A kept PSS reading is read again after this long, RSS moved or not: PSS also moves when a
 * process that shares pages with it maps or exits. */
#define MON_PSS_MAX_AGE_S 10.0
/* Who is in the tree is walked again (children files, or a scan of /proc) only when a process
 * or thread was created since the last walk, which /proc/loadavg's last pid tells in one small
 * read; and at least this often, for a /proc whose last pid does not move (issue 39). A process
 * that has not run since its last reading keeps it at most this long too (its RSS can still
 * shrink, by reclaim). */
#define MON_TREE_WALK_MAX_AGE_S 10.0

struct mon_tree {
    int proc_fd; /* the proc root directory */
    pid_t root;
    pid_t exclude; /* a process never in the tree, nor its descendants (hwmon itself); 0 none */
    bool alone;    /* the root alone: no descendants, its own CPU time only (mon_tree_alone) */
    bool pss;
    int mode; /* 0 unknown, 1 task/TID/children files, 2 full scan */
    struct mon_proc *p;
    size_t n, cap;
    /* pid -> index into p + 1 (0: empty): open addressing, at most half full, grown with p */
    uint32_t *idx;
    size_t idx_cap; /* a power of two */
    uint32_t gen;
    uint32_t gen0; /* the first walk of the current sample (a sample may walk twice) */
    /* new_io counts processes first seen since this walk: gen0, or an earlier sample's when
     * the caller held that sample's new_io out too (mon_tree_keep_new) */
    uint32_t new_from;
    bool keep_new;
    /* accumulated from descendants that vanished without a tracked parent to reap them */
    uint64_t gone_ticks, gone_io[MON_IO_COUNT];
    uint64_t prev_ticks, max_io[MON_IO_COUNT];
    uint64_t raw_io[MON_IO_COUNT]; /* the I/O sum as last read, dips and all */
    double prev_t;
    bool have_prev;
    bool final_read; /* the exited root's last totals were read (mon_tree_sample_t.exited) */
    /* full-scan mode: pids known not to be in the tree, sorted (two arrays swapped per scan) */
    pid_t *out_a, *out_b;
    size_t n_out, cap_a, cap_b;
    size_t *queue; /* children mode: breadth-first queue of indices into p */
    size_t queue_cap;
    char *dents; /* getdents64 buffer */
    size_t dents_cap;
    long clk_tck, page_kb;
    /* membership changes since the caller last emptied it (nchg = 0): pid joined, -pid left */
    pid_t *chg;
    size_t nchg, chg_cap;
    /* user-time share of the above, and the main process's own utime+stime */
    uint64_t gone_uticks, prev_uticks, prev_main_ticks;
    /* PSS on a CPU budget: smaps_rollup walks every page table (about 30 ms for a 4 GiB
     * process), so with pss_budget > 0 the next PSS read waits until its last cost is at most
     * that fraction of the time since; 0 reads it every sample (--pss). */
    double pss_budget, pss_next;
    /* counts joins and leaves: a PSS reading kept past one is stale (proctree.c account_pss) */
    uint32_t members_gen;
    uint64_t pss_reads; /* smaps_rollup reads so far (tests, the benchmark) */
    /* gpu_tracker's shared memory (mon_tree_shared_once): read whenever PSS is */
    bool shared_once;
    struct mon_shared_once so;
    /* /proc/loadavg, kept open: its last field, the last pid handed out in this pid namespace
     * (threads and processes of child namespaces too), as read before the last walk */
    int loadavg_fd;
    long long walk_last_pid;
    double walk_t;
    bool walked;
    unsigned long walks; /* membership walks so far (tests) */
    unsigned long kept;  /* processes' readings kept because they had not run (tests) */
    /* tests: called before each member's stat is read in a walk, with the pid about to be read,
     * so that a fake /proc can change between two reads as a reap between them does */
    void (*before_read)(void *arg, pid_t pid);
    void *before_read_arg;
};

struct mon_tree_sample {
    bool root_alive;
    /* the root has exited and is not yet reaped (run.c waits with WNOWAIT first): this once,
     * its final CPU time and I/O are read, the descendants it reaped included (the kernel adds
     * them to its totals), so that what the job did in its last moments counts; its memory
     * and its counts of processes and threads are not (unmeasured) */
    bool exited;
    unsigned procs;
    uint64_t threads;
    bool have_cpu;
    double cpu_pct;
    double rss_mib;
    uint64_t io[MON_IO_COUNT]; /* the tree's, since it was tracked (exited processes too) */
    /* the part of io of the processes first seen in this sample whose parent is new too (0 at
     * the first sample): at a phase's begin, what the command its runner started wrote before
     * the sample caught up (sampler.c) */
    uint64_t new_io[MON_IO_COUNT];
    bool have_pss;
    double pss_mib;
    double private_mib, shared_mib; /* smaps_rollup's Private_* and Shared_*, with have_pss */
    /* the tracked process alone (descendants = the tree's figure minus these) */
    double main_rss_mib, main_cpu_pct; /* main_cpu_pct valid when have_cpu */
    uint64_t main_threads;
    /* the main process's own Private_* and Shared_* (smaps_rollup), when its own was read */
    bool have_main_pss;
    double main_private_mib, main_shared_mib;
    double usr_cpu_pct, sys_cpu_pct; /* the tree's cpu_pct split; valid when have_cpu */
    /* shared memory counted once per mapped path (sharedonce.h), of the main process, its
     * descendants and both, in MiB; each valid where have_shared_once[g] (a group read) */
    bool have_shared_once[MON_SO_COUNT];
    double shared_once_mib[MON_SO_COUNT];
};

/* Track root and its descendants under proc_root. With pss, read smaps_rollup too (costly).
 * Returns 0, -ESRCH (no such process), -ENOMEM or -errno. On failure the tree needs no close. */
int mon_tree_open(struct mon_tree *t, const char *proc_root, pid_t root, bool pss);
void mon_tree_close(struct mon_tree *t);
/* Read /proc/PID/smaps of every member too, whenever PSS is read, for the shared memory counted
 * once per path (hwmon --shared-once). */
void mon_tree_shared_once(struct mon_tree *t);

/* Walk the tree and sum it up at monotonic time now_s. The first call sets the CPU baseline
 * (have_cpu false). Returns 0 (also when the root has gone: root_alive false) or -ENOMEM. */
int mon_tree_sample(struct mon_tree *t, double now_s, struct mon_tree_sample *out);

/* Whether <proc_root>/self/ns/pid is the initial PID namespace (whose pids nvidia-smi prints):
 * 1 yes, 0 no (a container), -errno when it cannot be told. */
int mon_pid_ns_is_init(const char *proc_root);

/* Never count pid and its descendants in the tree: hwmon itself, when the process it attaches
 * to is its parent (a script that starts its own monitor), with its nvidia-smi children. */
void mon_tree_exclude(struct mon_tree *t, pid_t pid);

/* The processes new in the last sample (new_io) are still new at the next: the caller held
 * their I/O out of the last sample's row, and holds it out again if the next is a phase's begin
 * (sampler.c: a begin line came while a cadence sample was being taken). */
void mon_tree_keep_new(struct mon_tree *t);

/* Measure the root alone (hwmon --no-children, resource-tracker's children=False): no
 * descendant joins the tree, and its CPU is its own (not the children it reaped). */
void mon_tree_alone(struct mon_tree *t);

/* Force the descendant-discovery method (tests): 1 children files, 2 full scan. */
void mon_tree_set_mode(struct mon_tree *t, int mode);

#endif
