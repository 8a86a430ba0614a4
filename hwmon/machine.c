/* The whole system for hwmon: /proc/stat, /proc/meminfo, the cgroup, disks and network
 * (machine.h). After htop's LinuxMachine.c. */
#include "machine.h"

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

int mon_sys_open(struct mon_sys *s, const char *proc_root, const char *sys_root,
                 const char *fs_dir)
{
    memset(s, 0, sizeof *s);
    s->stat_fd = s->meminfo_fd = -1;
    mon_cgroup_open(&s->cg, proc_root, sys_root, 0); /* no cgroup is a normal answer */
    int rc = mon_sysio_open(&s->io, proc_root, sys_root, fs_dir);
    if (rc < 0) {
        mon_cgroup_close(&s->cg);
        return rc;
    }
    int dfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    s->stat_fd = dfd >= 0 ? mon_open_rel(dfd, "stat") : -errno;
    if (s->stat_fd < 0) {
        rc = s->stat_fd;
        if (dfd >= 0)
            close(dfd);
        mon_sys_close(s);
        return rc;
    }
    s->meminfo_fd = mon_open_rel(dfd, "meminfo");
    if (s->meminfo_fd < 0)
        s->meminfo_fd = -1;
    close(dfd);
    return 0;
}

void mon_sys_close(struct mon_sys *s)
{
    mon_close_fd(&s->stat_fd);
    mon_close_fd(&s->meminfo_fd);
    mon_cgroup_close(&s->cg);
    mon_sysio_close(&s->io);
}

size_t mon_sys_fds(const struct mon_sys *s, int *fds, size_t cap)
{
    const int cg[] = {s->stat_fd,        s->meminfo_fd,       s->cg.mem_cur_fd,
                      s->cg.mem_max_fd,  s->cg.mem_peak_fd,   s->cg.cpu_max_fd,
                      s->cg.cpu_period_fd, s->cg.usage_fd};
    size_t n = 0;
    for (size_t i = 0; i < sizeof cg / sizeof cg[0]; i++)
        if (cg[i] >= 0 && n < cap)
            fds[n++] = cg[i];
    return n + mon_sysio_fds(&s->io, fds + n, cap - n);
}

static double pct(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0.0;
}

int mon_sys_sample(struct mon_sys *s, double now_s, struct mon_sys_sample *out)
{
    memset(out, 0, sizeof *out);
    /* /proc/stat: only the first line matters, but the kernel builds it whole; 4 KiB holds the
     * cpu line and we ignore the rest (a short read of a seq_file is fine). */
    char buf[4096];
    ssize_t n = pread(s->stat_fd, buf, sizeof buf - 1, 0); /* the cpu line is first */
    if (n < 0)
        return -errno;
    buf[n] = '\0';
    struct mon_cpu_times cur;
    if (mon_parse_cpu_line(buf, &cur) == 0) {
        if (s->have_prev) {
            /* pytyche: usr = user+nice, idle = idle, both over the sum of all fields. */
            uint64_t d[10], total = 0;
            for (int i = 0; i < 10; i++) {
                d[i] = mon_ticks_delta(cur.v[i], s->prev.v[i]);
                total += d[i];
            }
            if (total > 0) {
                out->have_cpu = true;
                out->cpu_ticks = total;
                out->usr_pct = pct(d[MON_CPU_USER] + d[MON_CPU_NICE], total);
                out->idle_pct = pct(d[MON_CPU_IDLE], total);
                out->sys_pct = pct(d[MON_CPU_SYSTEM] + d[MON_CPU_IRQ] + d[MON_CPU_SOFTIRQ], total);
                out->iowait_pct = pct(d[MON_CPU_IOWAIT], total);
                out->steal_pct = pct(d[MON_CPU_STEAL], total);
            }
        }
        s->prev = cur;
        s->have_prev = true;
    }
    if (s->meminfo_fd >= 0 && mon_pread_proc(s->meminfo_fd, buf, sizeof buf) > 0) {
        struct mon_meminfo m;
        if (mon_parse_meminfo(buf, &m) == 0) {
            out->have_mem = true;
            out->mem_used_mib = (double)(m.total_kb - m.avail_kb) / 1024.0;
            out->mem_avail_mib = (double)m.avail_kb / 1024.0;
            out->have_mem_parts = m.have_parts;
            out->mem_total_mib = (double)m.total_kb / 1024.0;
            out->mem_free_mib = (double)m.free_kb / 1024.0;
            out->mem_buffers_mib = (double)m.buffers_kb / 1024.0;
            out->mem_cached_mib = (double)m.cached_kb / 1024.0;
            out->mem_active_anon_mib = (double)m.active_anon_kb / 1024.0;
            out->mem_inactive_anon_mib = (double)m.inactive_anon_kb / 1024.0;
            out->have_sreclaimable = m.have_sreclaimable;
            out->mem_sreclaimable_mib = (double)m.sreclaimable_kb / 1024.0;
        }
    }
    mon_cgroup_sample(&s->cg, now_s, &out->cg);
    mon_sysio_sample(&s->io, &out->io);
    return 0;
}
