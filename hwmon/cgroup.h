/* The container: the cgroup hwmon runs in, on cgroup v1, v2 and hybrid hosts.
 *
 * Where: /proc/self/cgroup names the process's cgroup per hierarchy (v1 "N:memory:/path", v2
 * "0::/path"); /proc/self/mountinfo says where each hierarchy is mounted (v1 "cgroup" mounts
 * carry their controllers in the super options, v2 is "cgroup2"). Each controller (memory,
 * cpu, cpuacct) is looked for in a v1 hierarchy first: on a hybrid host a controller is bound
 * to one hierarchy only, and v2 then holds none of them.
 *
 * What: memory usage, limit and the kernel's peak counter (v2 memory.current, memory.max,
 * memory.peak; v1 memory.usage_in_bytes, memory.limit_in_bytes, memory.max_usage_in_bytes),
 * the CPU quota (v2 cpu.max; v1 cpu.cfs_quota_us / cpu.cfs_period_us) and CPU usage (v2
 * cpu.stat usage_usec; v1 cpuacct.usage). The files stay open and are pread per sample. */
#ifndef HWMON_CGROUP_H
#define HWMON_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runlog.h"

/* v1 memory.limit_in_bytes at or above this is "no limit" (the kernel prints PAGE_COUNTER_MAX
 * pages: 9223372036854771712 with 4 KiB pages). */
#define MON_CG_V1_UNLIMITED (UINT64_C(1) << 62)

/* ---- parsers (text already read; tests and fuzzers feed them) ---- */

/* The path of the cgroup of /proc/PID/cgroup text: with controller NULL the v2 line
 * ("0::/path"), else the v1 line whose controller list holds controller ("4:memory:/x",
 * "2:cpu,cpuacct:/x"; "name=systemd" is no controller). Returns 0, -ENOENT or -ENAMETOOLONG. */
int mon_parse_proc_cgroup(const char *text, const char *controller, char *out, size_t cap);

/* The directory of the cgroup at cg_path, from /proc/PID/mountinfo text: the first mount of
 * the hierarchy (controller NULL: fstype cgroup2; else fstype cgroup with controller among its
 * super options) whose root is cg_path or an ancestor of it. dir = the mount point (octal
 * escapes undone) + the rest of cg_path. Returns 0, -ENOENT or -ENAMETOOLONG. */
int mon_find_cgroup_dir(const char *mountinfo, const char *controller, const char *cg_path,
                        char *dir, size_t cap);

/* cpu.max: "max 100000" or "QUOTA PERIOD". *cores is quota/period, or -1 for "max".
 * Returns 0 or -EINVAL. */
int mon_parse_cpu_max(const char *text, double *cores);

/* v1 cpu.cfs_quota_us and cpu.cfs_period_us texts: *cores is quota/period, or -1 when the
 * quota is -1 (none). Returns 0 or -EINVAL. */
int mon_parse_cfs_quota(const char *quota, const char *period, double *cores);

/* A counter file holding one unsigned decimal (memory.current, cpuacct.usage, ...); "max" is
 * -ERANGE (no limit). Returns 0, -ERANGE or -EINVAL. */
int mon_parse_cg_u64(const char *text, uint64_t *out);

/* The "oom_kill N" line of v2 memory.events or v1 memory.oom_control (Linux 4.13 and newer):
 * how many processes of the cgroup (v2: and its descendants) the kernel's OOM killer killed.
 * Returns 0, -ENOENT (no such line: an older kernel) or -EINVAL. */
int mon_parse_oom_kill(const char *text, uint64_t *out);

/* ---- the cgroup of this process ---- */

struct mon_cgroup {
    bool found;   /* any of the files below could be opened */
    int mem_ver;  /* 1 or 2: the hierarchy the memory controller was found in; 0 none */
    int cpu_ver;  /* the same for the CPU quota */
    int acct_ver; /* the same for CPU usage (v1 cpuacct, v2 cpu.stat) */
    bool hybrid;  /* v1 controllers and a cgroup2 mount side by side */
    char mem_path[512], cpu_path[512]; /* as /proc/self/cgroup names them ("" if none) */
    int mem_cur_fd, mem_max_fd, mem_peak_fd;
    int oom_fd; /* v2 memory.events, v1 memory.oom_control: the OOM killer's count */
    bool peak_reset;   /* memory.peak was reset for our descriptor: the peak is since start */
    int cpu_max_fd;    /* v2 cpu.max, or v1 cpu.cfs_quota_us */
    int cpu_period_fd; /* v1 cpu.cfs_period_us; -1 on v2 */
    int usage_fd;      /* v2 cpu.stat, or v1 cpuacct.usage */
    uint64_t prev_usage_ns;
    double prev_t;
    bool have_prev;
    /* the limits (cpu.max or the cfs quota, memory.max) as last read, at limits_t: a limit is
     * set once and seldom changed (a pod resized in place), so it is read again only after
     * MON_CG_LIMITS_MAX_AGE_S, not at every sample */
    bool limits_read;
    double limits_t;
    bool have_limit, have_mem_max;
    double limit_cores, mem_max_mib;
};
#define MON_CG_LIMITS_MAX_AGE_S 10.0

/* One reading; a false "have" means not measured (an empty cell, null). */
struct mon_cg_sample {
    bool have_limit, have_cpu, have_mem, have_mem_max, have_mem_peak;
    double limit_cores, cpu_pct, mem_cur_mib, mem_max_mib, mem_peak_mib;
};

/* Find the cgroup of pid (0: this process) from <proc_root>/PID/cgroup (or self/cgroup) and
 * <proc_root>/self/mountinfo (our own mounts: the paths we open), with every mount point taken
 * under sys_root ("" or "/" for the real root; tests: a fixture tree; NULL: none), and open
 * its files. A host without cgroups, or files we may not read, leave cg->found false. Always
 * returns 0 (there is nothing to fail: no cgroup is a normal answer). */
int mon_cgroup_open(struct mon_cgroup *cg, const char *proc_root, const char *sys_root, pid_t pid);
void mon_cgroup_close(struct mon_cgroup *cg);

/* Read the cgroup at monotonic time now_s. CPU usage needs two readings: the first sets the
 * baseline (have_cpu false). */
void mon_cgroup_sample(struct mon_cgroup *cg, double now_s, struct mon_cg_sample *out);

/* The OOM killer's count of the cgroup now (mon_parse_oom_kill); false when not measured. */
bool mon_cgroup_oom_kills(const struct mon_cgroup *cg, uint64_t *out);

/* The cgroup's memory limit now in MiB, read afresh; false when unlimited or not measured. */
bool mon_cgroup_mem_max(const struct mon_cgroup *cg, double *mib);

/* The start event's "cgroup" object (FORMAT.md) for cg and a first reading x, as the members
 * of an RL_OBJ: {"version": 1 or 2, "hybrid": bool, "path": ..., "cpu_path": ... (only when it
 * differs), "memory_current_mib", "memory_max_mib", "memory_peak_mib",
 * "memory_peak_since_start", "cpu_limit_cores"}; unmeasured or unlimited figures are null.
 * Strings are borrowed from cg. Returns how many of f were filled. */
#define MON_CGROUP_NFIELDS 9
size_t mon_cgroup_fields(const struct mon_cgroup *cg, const struct mon_cg_sample *x,
                         rl_field_t f[MON_CGROUP_NFIELDS]);

#endif
