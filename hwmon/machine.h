/* The whole system for hwmon, one sample at a time: CPU and memory from /proc, the container's
 * cgroup (cgroup.h), disks and network (sysio.h). Nothing allocates per sample, prints or
 * exits: functions return 0 or a negative errno. */
#ifndef HWMON_MACHINE_H
#define HWMON_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"
#include "procread.h"
#include "sysio.h"

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
    bool have_sreclaimable;
    double mem_sreclaimable_mib;
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

#endif
