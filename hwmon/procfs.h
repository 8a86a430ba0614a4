/* Reading /proc for hwmon: the parsers, the whole-system sampler and the
 * process-tree sampler.
 *
 * Parsers work on text already read (so tests feed them fixtures); the samplers keep
 * descriptors open and pread them at offset 0, which is 2-5x cheaper than reopening. Nothing
 * here allocates per sample, prints or exits: functions return 0 or a negative errno. A process
 * that vanishes mid-read is normal and is never an error. */
#ifndef HWMON_PROCFS_H
#define HWMON_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "sysio.h"

/* ---- parsers ---- */

/* The aggregate "cpu" line of /proc/stat: user nice system idle iowait irq softirq steal guest
 * guest_nice. Old kernels print fewer fields; the missing ones are 0 and n says how many. */
struct mon_cpu_times {
    uint64_t v[10];
    int n;
};
enum {
    MON_CPU_USER,
    MON_CPU_NICE,
    MON_CPU_SYSTEM,
    MON_CPU_IDLE,
    MON_CPU_IOWAIT,
    MON_CPU_IRQ,
    MON_CPU_SOFTIRQ,
    MON_CPU_STEAL,
    MON_CPU_GUEST,
    MON_CPU_GUEST_NICE
};

/* Parse the first line of /proc/stat text. Returns 0, or -EINVAL if it is not a "cpu " line
 * with at least 4 numbers. *out is untouched on failure. */
int mon_parse_cpu_line(const char *text, struct mon_cpu_times *out);

/* MemTotal and MemAvailable from /proc/meminfo text, in kB. Kernels before 3.14 have no
 * MemAvailable: it is then estimated as MemFree + Buffers + Cached and have_avail is false.
 * Returns 0 or -EINVAL (no MemTotal). */
struct mon_meminfo {
    uint64_t total_kb, avail_kb;
    bool have_avail;
    /* MemFree, Buffers, Cached, Active(anon), Inactive(anon); have_parts when every one was
     * there (kernels since 2.6.28) */
    uint64_t free_kb, buffers_kb, cached_kb, active_anon_kb, inactive_anon_kb;
    bool have_parts;
};
int mon_parse_meminfo(const char *text, struct mon_meminfo *out);

/* The value in kB of a "Key:   123 kB" line (status, smaps_rollup, meminfo). key includes the
 * colon. Returns 0 or -ENOENT. */
int mon_parse_kb_field(const char *text, const char *key, uint64_t *out_kb);

/* /proc/PID/stat. comm may contain anything, including ") (" and newlines: it runs from the
 * first '(' to the LAST ')'. Fields a kernel does not print stay 0 (nfields says how many
 * fields after comm were read). Returns 0 or -EINVAL (fewer than the fields up to rss). */
struct mon_pstat {
    char comm[64];
    char state;
    pid_t ppid;
    uint64_t utime, stime, cutime, cstime; /* clock ticks */
    uint64_t threads;
    uint64_t starttime;
    uint64_t rss_pages;
    int nfields;
};
int mon_parse_pid_stat(const char *text, size_t len, struct mon_pstat *out);

/* The keys of /proc/PID/io, cumulative counters of a process: characters read and written
 * through read(2)/write(2)-like calls (page cache included), those calls, bytes fetched from and
 * sent to storage, and bytes written then truncated away before they reached it. */
enum mon_io_key {
    MON_IO_RCHAR,
    MON_IO_WCHAR,
    MON_IO_SYSCR,
    MON_IO_SYSCW,
    MON_IO_READ_BYTES,
    MON_IO_WRITE_BYTES,
    MON_IO_CANCELLED,
    MON_IO_COUNT
};
extern const char *const mon_io_keys[MON_IO_COUNT]; /* "rchar:", ... as /proc/PID/io says */

/* Every key of /proc/PID/io into out[MON_IO_*]; a key the kernel does not print is left as it
 * was. Returns 0, or -EINVAL without read_bytes and write_bytes. */
int mon_parse_pid_io(const char *text, uint64_t out[MON_IO_COUNT]);

/* A signed decimal at p (after blanks, before end), saturated to int64; the pointer after it,
 * or NULL when there is none. The one number parser of hwmon's /proc, cgroup and sysfs text. */
const char *mon_parse_i64(const char *p, const char *end, int64_t *out);
/* close(*fd) when it is open, and mark it closed (-1). */
void mon_close_fd(int *fd);

/* pread a small procfs, sysfs or cgroup file from offset 0 into buf, NUL-terminated: one read
 * for a file shorter than 2 KiB (seq_file fills a page before returning). Returns the length
 * or -errno. */
ssize_t mon_pread_proc(int fd, char *buf, size_t cap);

/* ---- the whole system: /proc/stat, /proc/meminfo, the cgroup, disks, network ---- */

struct mon_sys {
    int stat_fd, meminfo_fd;
    struct mon_cpu_times prev;
    bool have_prev;
    struct mon_cgroup cg; /* cg.found: inside a cgroup with files we can read */
    struct mon_sysio io;
};

/* One system sample. A "have" flag that is false means "not measured" (an empty CSV cell). */
struct mon_sys_sample {
    bool have_cpu;
    double usr_pct, idle_pct, sys_pct, iowait_pct, steal_pct;
    uint64_t cpu_ticks; /* the jiffies of every CPU the percentages are of (their weight) */
    bool have_mem;
    double mem_used_mib, mem_avail_mib;
    bool have_mem_parts; /* meminfo's parts (struct mon_meminfo), in MiB */
    double mem_total_mib, mem_free_mib, mem_buffers_mib, mem_cached_mib, mem_active_anon_mib,
        mem_inactive_anon_mib;
    struct mon_cg_sample cg;
    struct mon_io_sample io;
};

/* Open <proc_root>/stat and <proc_root>/meminfo, this process's cgroup (cgroup.h: found from
 * <proc_root>/self/cgroup and self/mountinfo, mount points under sys_root: "/" normally, a
 * fixture tree in tests, NULL for none), the disk and network counters (sysio.h) and fs_dir
 * for its free space (NULL: none). Returns 0 or -errno (stat missing, -ENOMEM). */
int mon_sys_open(struct mon_sys *s, const char *proc_root, const char *sys_root,
                 const char *fs_dir);
void mon_sys_close(struct mon_sys *s);

/* Take a sample at monotonic time now_s. The first call only sets the baselines for the CPU
 * percentages and the traffic (have_cpu, io.have_disk, io.have_net false). Returns 0 or -errno
 * when /proc/stat could not be read (then nothing else was read either). */
int mon_sys_sample(struct mon_sys *s, double now_s, struct mon_sys_sample *out);

/* The descriptors mon_sys_sample preads (benchmarks: the same reads without the parsing). */
size_t mon_sys_fds(const struct mon_sys *s, int *fds, size_t cap);

/* ---- a process and its descendants ---- */

struct mon_proc {
    pid_t pid, ppid;
    int stat_fd, io_fd, smaps_fd;
    int kids_fd;         /* task/PID/children (children mode), or -1 */
    uint64_t ticks;      /* utime+stime+cutime+cstime at the last read */
    uint64_t io[MON_IO_COUNT]; /* its io at the last read */
    uint32_t gen;        /* last walk that saw it */
    struct mon_pstat st; /* scan mode: this walk's stat */
    uint64_t uticks;     /* utime+cutime at the last read */
};

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
    /* accumulated from descendants that vanished without a tracked parent to reap them */
    uint64_t gone_ticks, gone_io[MON_IO_COUNT];
    uint64_t prev_ticks, max_io[MON_IO_COUNT];
    double prev_t;
    bool have_prev;
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
};

struct mon_tree_sample {
    bool root_alive;
    unsigned procs;
    uint64_t threads;
    bool have_cpu;
    double cpu_pct;
    double rss_mib;
    uint64_t io[MON_IO_COUNT]; /* the tree's, since it was tracked (exited processes too) */
    bool have_pss;
    double pss_mib;
    double private_mib, shared_mib; /* smaps_rollup's Private_* and Shared_*, with have_pss */
    /* the tracked process alone (descendants = the tree's figure minus these) */
    double main_rss_mib, main_cpu_pct; /* main_cpu_pct valid when have_cpu */
    uint64_t main_threads;
    double usr_cpu_pct, sys_cpu_pct; /* the tree's cpu_pct split; valid when have_cpu */
};

/* Track root and its descendants under proc_root. With pss, read smaps_rollup too (costly).
 * Returns 0, -ESRCH (no such process), -ENOMEM or -errno. On failure the tree needs no close. */
int mon_tree_open(struct mon_tree *t, const char *proc_root, pid_t root, bool pss);
void mon_tree_close(struct mon_tree *t);

/* Walk the tree and sum it up at monotonic time now_s. The first call sets the CPU baseline
 * (have_cpu false). Returns 0 (also when the root has gone: root_alive false) or -ENOMEM. */
int mon_tree_sample(struct mon_tree *t, double now_s, struct mon_tree_sample *out);

/* Whether <proc_root>/self/ns/pid is the initial PID namespace (whose pids nvidia-smi prints):
 * 1 yes, 0 no (a container), -errno when it cannot be told. */
int mon_pid_ns_is_init(const char *proc_root);

/* Never count pid and its descendants in the tree: hwmon itself, when the process it attaches
 * to is its parent (a script that starts its own monitor), with its nvidia-smi children. */
void mon_tree_exclude(struct mon_tree *t, pid_t pid);

/* Measure the root alone (hwmon --no-children, resource-tracker's children=False): no
 * descendant joins the tree, and its CPU is its own (not the children it reaped). */
void mon_tree_alone(struct mon_tree *t);

/* Force the descendant-discovery method (tests): 1 children files, 2 full scan. */
void mon_tree_set_mode(struct mon_tree *t, int mode);

#endif
