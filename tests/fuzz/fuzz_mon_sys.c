/* libFuzzer target: hwmon's parsers of the container and the machine (hwmon/cgroup.h,
 * hwmon/sysio.h) on arbitrary text: /proc/self/cgroup, mountinfo, cpu.max, cfs quota, counter
 * files, /proc/meminfo and /proc/PID/io, an environment block and an -o pattern (context.h),
 * and every line as a /proc/diskstats, /proc/net/dev and /proc/self/mounts line and as a line
 * of slurm.conf (its ProctrackType), and as a DRM client's fdinfo, and as /proc/PID/smaps
 * (sharedonce.h); amdgpu's pp_dpm_sclk and
 * link speed. No crash, no read past the input, outputs NUL-terminated within
 * their buffers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu.h"
#include "cgroup.h"
#include "context.h"
#include "drmfdinfo.h"
#include "fsspace.h"
#include "machine.h"
#include "sharedonce.h"
#include "stopsig.h"
#include "sysio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 16))
        return 0;
    char *t = malloc(size + 1);
    if (!t)
        return 0;
    memcpy(t, data, size);
    t[size] = '\0';
    static const char *const ctl[] = {NULL, "memory", "cpu", "cpuacct", "name=systemd"};
    char path[512], dir[512];
    for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++) {
        if (mon_parse_proc_cgroup(t, ctl[i], path, sizeof path) == 0 && strlen(path) >= sizeof path)
            abort();
        const char *p = mon_parse_proc_cgroup(t, ctl[i], path, sizeof path) == 0 ? path : "/";
        if (mon_find_cgroup_dir(t, ctl[i], p, dir, sizeof dir) == 0 && strlen(dir) >= sizeof dir)
            abort();
        (void)mon_find_cgroup_dir(t, ctl[i], "/a/b", dir, 8);
    }
    double c;
    uint64_t v, a, b;
    (void)mon_parse_cpu_max(t, &c);
    (void)mon_parse_cg_u64(t, &v);
    const char *nl = strchr(t, '\n');
    (void)mon_parse_cfs_quota(t, nl ? nl + 1 : "", &c);
    struct mon_meminfo mi;
    if (mon_parse_meminfo(t, &mi) == 0 && mi.avail_kb > mi.total_kb && !mi.have_avail)
        abort(); /* the estimate is capped at the total */
    uint64_t io[MON_IO_COUNT] = {0};
    (void)mon_parse_pid_io(t, io);
    /* amdgpu's text files: a level in range, or none; a known generation, or 0 */
    double mhz = mon_amd_sclk_levels_max(t);
    if (!isnan(mhz) && !(mhz > 0 && mhz < 1e6))
        abort();
    int gen = mon_amd_link_gen(t);
    if (gen < 0 || gen > 6)
        abort();
    /* the input as an environment block (NUL-separated) and as an -o pattern */
    struct mon_context ctx;
    mon_context_parse(&ctx, (const char *)data, size, "host");
    for (int k = 0; k < HW_CTX_COUNT; k++)
        if (strlen(ctx.v[k]) >= sizeof ctx.v[k])
            abort();
    char out[512], err[256];
    int unset;
    if (mon_expand_output(t, &ctx, "T", 1, out, sizeof out, &unset, err, sizeof err) == 0 &&
        strlen(out) >= sizeof out)
        abort();
    char name[MON_SYSIO_NAME], mnt[64], type[16];
    bool rw;
    for (const char *line = t; line < t + size;) {
        const char *e = memchr(line, '\n', (size_t)(t + size - line));
        size_t n = e ? (size_t)(e - line) : (size_t)(t + size - line);
        if (mon_parse_diskstats_line(line, n, name, &a, &b) == 0 && strlen(name) >= sizeof name)
            abort();
        if (mon_parse_netdev_line(line, n, name, &a, &b) == 0 && strlen(name) >= sizeof name)
            abort();
        if (mon_parse_mounts_line(line, n, mnt, sizeof mnt, type, sizeof type, &rw) == 0 &&
            (strlen(mnt) >= sizeof mnt || strlen(type) >= sizeof type))
            abort();
        /* a slurm.conf line is one string (getline's, NUL-ended) */
        char *l = strndup(line, n), pt[16];
        if (l && mon_slurm_conf_proctrack(l, pt, sizeof pt) && strlen(pt) >= sizeof pt)
            abort();
        free(l);
        line += n + 1;
    }
    char pdev[16]; /* a DRM client's fdinfo (drmfdinfo.h) */
    uint64_t id, vram;
    if (mon_drm_fdinfo_parse(t, pdev, &id, &vram) && strnlen(pdev, sizeof pdev) >= sizeof pdev)
        abort();
    /* as /proc/PID/smaps of a main process and of a descendant (sharedonce.h): each path once,
     * so the tree's is at least either group's and at most both */
    struct mon_shared_once so;
    mon_so_init(&so);
    mon_so_begin(&so);
    (void)mon_so_add_text(&so, t, size, true);
    (void)mon_so_add_text(&so, t, size, false);
    if (so.kb[MON_SO_ALL] < so.kb[MON_SO_MAIN] || so.kb[MON_SO_ALL] < so.kb[MON_SO_DESC] ||
        so.kb[MON_SO_MAIN] != so.kb[MON_SO_DESC])
        abort();
    mon_so_free(&so);
    free(t);
    return 0;
}
