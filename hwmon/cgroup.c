/* The cgroup of this process on cgroup v1, v2 and hybrid hosts (see cgroup.h). After runc's
 * libcontainer/cgroups (FindCgroupMountpoint: mountinfo, the super options of v1 mounts, the
 * mount root stripped from the /proc/self/cgroup path). */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "procread.h"

/* ---- parsers ---- */

static const char *line_end(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl : p + strlen(p);
}

/* Whether the comma-separated list s[0..n) holds the word w. */
static bool list_has(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    for (const char *p = s, *end = s + n; p <= end;) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        const char *e = c ? c : end;
        if ((size_t)(e - p) == wl && memcmp(p, w, wl) == 0)
            return true;
        if (!c)
            break;
        p = c + 1;
    }
    return false;
}

int mon_parse_proc_cgroup(const char *text, const char *controller, char *out, size_t cap)
{
    for (const char *line = text; *line;) {
        const char *end = line_end(line);
        /* hierarchy-ID:controller-list:cgroup-path */
        const char *c1 = memchr(line, ':', (size_t)(end - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
        if (c2) {
            bool v2 = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
            bool hit = controller ? !v2 && list_has(c1 + 1, (size_t)(c2 - c1 - 1), controller) : v2;
            if (hit) {
                size_t n = (size_t)(end - c2 - 1);
                if (n + 1 > cap)
                    return -ENAMETOOLONG;
                memcpy(out, c2 + 1, n);
                out[n] = '\0';
                return 0;
            }
        }
        line = *end ? end + 1 : end;
    }
    return -ENOENT;
}

/* The next space-separated field of [*p, end): its start and length; false at the end. */
static bool next_field(const char **p, const char *end, const char **f, size_t *n)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s >= end)
        return false;
    const char *e = memchr(s, ' ', (size_t)(end - s));
    if (!e)
        e = end;
    *f = s;
    *n = (size_t)(e - s);
    *p = e;
    return true;
}

/* Copy a mountinfo path field, undoing the kernel's octal escapes (\040 for a space). */
static size_t unescape(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' && n - i > 3 && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
            s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
            c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        }
        if (o + 1 >= cap)
            return cap; /* too long */
        out[o++] = c;
    }
    out[o] = '\0';
    return o;
}

int mon_find_cgroup_dir(const char *mountinfo, const char *controller, const char *cg_path,
                        char *dir, size_t cap)
{
    bool too_long = false;
    for (const char *line = mountinfo; *line;) {
        const char *end = line_end(line), *p = line, *f;
        size_t n;
        char root[PATH_MAX], mnt[PATH_MAX];
        const char *fstype = NULL, *opts = NULL;
        size_t fstype_n = 0, opts_n = 0;
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS */
        int i = 0;
        bool ok = true;
        for (; ok && i < 5; i++) {
            ok = next_field(&p, end, &f, &n);
            if (ok && i == 3)
                ok = unescape(f, n, root, sizeof root) < sizeof root;
            if (ok && i == 4)
                ok = unescape(f, n, mnt, sizeof mnt) < sizeof mnt;
        }
        while (ok && (ok = next_field(&p, end, &f, &n)) && !(n == 1 && f[0] == '-'))
            ;
        if (ok && next_field(&p, end, &fstype, &fstype_n) && next_field(&p, end, &f, &n) &&
            next_field(&p, end, &opts, &opts_n)) {
            bool match = controller ? fstype_n == 6 && memcmp(fstype, "cgroup", 6) == 0 &&
                                          list_has(opts, opts_n, controller)
                                    : fstype_n == 7 && memcmp(fstype, "cgroup2", 7) == 0;
            size_t rl = strlen(root);
            if (match && strcmp(root, "/") == 0)
                rl = 0; /* the hierarchy's root: every path is under it */
            if (match && strncmp(cg_path, root, rl) == 0 &&
                (cg_path[rl] == '\0' || cg_path[rl] == '/')) {
                const char *rest = cg_path + rl;
                if (strcmp(mnt, "/") == 0 && *rest)
                    mnt[0] = '\0'; /* "/" + "/x" is "/x" */
                int w = snprintf(dir, cap, "%s%s", mnt, strcmp(rest, "/") == 0 ? "" : rest);
                if (w >= 0 && (size_t)w < cap)
                    return 0;
                too_long = true;
            }
        }
        line = *end ? end + 1 : end;
    }
    return too_long ? -ENAMETOOLONG : -ENOENT;
}

static const char *parse_int(const char *p, int64_t *out)
{
    return hw_scan_i64(p, p + strlen(p), out, NULL);
}

static bool only_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    return *p == '\0';
}

int mon_parse_cpu_max(const char *text, double *cores)
{
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    int64_t quota = -1, period;
    const char *q;
    if (strncmp(p, "max", 3) == 0)
        q = p + 3;
    else if (!(q = parse_int(p, &quota)) || quota <= 0)
        return -EINVAL;
    if (!(q = parse_int(q, &period)) || period <= 0 || !only_space(q))
        return -EINVAL;
    *cores = quota < 0 ? -1.0 : (double)quota / (double)period;
    return 0;
}

int mon_parse_cfs_quota(const char *quota, const char *period, double *cores)
{
    int64_t qv, pv;
    const char *q = parse_int(quota, &qv), *r = parse_int(period, &pv);
    if (!q || !only_space(q) || !r || !only_space(r) || pv <= 0 || qv == 0 || qv < -1)
        return -EINVAL;
    *cores = qv < 0 ? -1.0 : (double)qv / (double)pv;
    return 0;
}

int mon_parse_cg_u64(const char *text, uint64_t *out)
{
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "max", 3) == 0 && only_space(p + 3))
        return -ERANGE;
    int64_t v;
    const char *q = parse_int(p, &v);
    if (!q || v < 0 || !only_space(q))
        return -EINVAL;
    *out = (uint64_t)v;
    return 0;
}

int mon_parse_oom_kill(const char *text, uint64_t *out)
{
    for (const char *line = text; *line;) {
        const char *end = line_end(line);
        if (strncmp(line, "oom_kill ", 9) == 0) {
            int64_t v;
            const char *q = hw_scan_i64(line + 9, end, &v, NULL);
            if (!q || v < 0 || q != end)
                return -EINVAL;
            *out = (uint64_t)v;
            return 0;
        }
        line = *end ? end + 1 : end;
    }
    return -ENOENT;
}

/* usage_usec of a v2 cpu.stat. */
static int parse_usage_usec(const char *text, uint64_t *out)
{
    for (const char *line = text; *line;) {
        const char *end = line_end(line);
        if (strncmp(line, "usage_usec ", 11) == 0) {
            int64_t v;
            const char *q = parse_int(line + 11, &v);
            if (!q || v < 0)
                return -EINVAL;
            *out = (uint64_t)v;
            return 0;
        }
        line = *end ? end + 1 : end;
    }
    return -ENOENT;
}

/* ---- the cgroup of this process ---- */

/* Read a whole file of unknown size (mountinfo of a pod can hold hundreds of mounts) into a
 * malloc'd string. Open time only. NULL on failure. */
static char *slurp(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 16384, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *nb = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            buf = NULL;
            break;
        }
        if (n == 0) {
            buf[len] = '\0';
            break;
        }
        len += (size_t)n;
    }
    close(fd);
    return buf;
}

static int open_in(int dirfd, const char *name, int flags)
{
    if (dirfd < 0)
        return -1;
    int fd;
    do
        fd = openat(dirfd, name, flags | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd;
}

/* The directory of this process's cgroup for controller (NULL: v2) opened, or -1; its path as
 * /proc/self/cgroup names it into path. */
static int open_cg_dir(const char *cgtext, const char *mountinfo, const char *sys_root,
                       const char *controller, char *path, size_t cap)
{
    char dir[PATH_MAX], full[PATH_MAX + 256];
    if (mon_parse_proc_cgroup(cgtext, controller, path, cap) < 0 ||
        mon_find_cgroup_dir(mountinfo, controller, path, dir, sizeof dir) < 0)
        return -1;
    int n = snprintf(full, sizeof full, "%s%s", sys_root, dir);
    if (n < 0 || (size_t)n >= sizeof full)
        return -1;
    return open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* v2 memory.peak, reset for our own descriptor when the kernel allows it (Linux 6.12: a write
 * makes this descriptor's reads the peak since then), so the peak is this run's and not the
 * container's since it was created. */
static int open_peak_v2(int dfd, bool *reset)
{
    *reset = false;
    struct statfs fs; /* only on the real cgroupfs: a write to a fixture file would change it */
    int fd = fstatfs(dfd, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC
                 ? open_in(dfd, "memory.peak", O_RDWR)
                 : -1;
    if (fd >= 0) {
        ssize_t w;
        do
            w = write(fd, "reset\n", 6);
        while (w < 0 && errno == EINTR);
        *reset = w == 6;
        return fd;
    }
    return open_in(dfd, "memory.peak", O_RDONLY);
}

int mon_cgroup_open(struct mon_cgroup *cg, const char *proc_root, const char *sys_root, pid_t pid)
{
    memset(cg, 0, sizeof *cg);
    cg->mem_cur_fd = cg->mem_max_fd = cg->mem_peak_fd = cg->oom_fd = -1;
    cg->cpu_max_fd = cg->cpu_period_fd = cg->usage_fd = -1;
    if (!sys_root)
        return 0;
    if (strcmp(sys_root, "/") == 0)
        sys_root = "";
    int pfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return 0;
    char who[32] = "self/cgroup";
    if (pid > 0)
        snprintf(who, sizeof who, "%d/cgroup", (int)pid);
    char *cgtext = slurp(pfd, who), *mi = slurp(pfd, "self/mountinfo");
    close(pfd);
    if (!cgtext || !mi)
        goto out;
    char v2path[sizeof cg->mem_path];
    bool have_v2 = mon_parse_proc_cgroup(cgtext, NULL, v2path, sizeof v2path) == 0;

    /* memory */
    int d = open_cg_dir(cgtext, mi, sys_root, "memory", cg->mem_path, sizeof cg->mem_path);
    if ((cg->mem_cur_fd = open_in(d, "memory.usage_in_bytes", O_RDONLY)) >= 0) {
        cg->mem_ver = 1;
        cg->mem_max_fd = open_in(d, "memory.limit_in_bytes", O_RDONLY);
        cg->mem_peak_fd = open_in(d, "memory.max_usage_in_bytes", O_RDONLY);
        cg->oom_fd = open_in(d, "memory.oom_control", O_RDONLY);
    }
    mon_close_fd(&d);
    if (!cg->mem_ver && have_v2) {
        d = open_cg_dir(cgtext, mi, sys_root, NULL, cg->mem_path, sizeof cg->mem_path);
        if ((cg->mem_cur_fd = open_in(d, "memory.current", O_RDONLY)) >= 0) {
            cg->mem_ver = 2;
            cg->mem_max_fd = open_in(d, "memory.max", O_RDONLY);
            cg->mem_peak_fd = open_peak_v2(d, &cg->peak_reset);
            cg->oom_fd = open_in(d, "memory.events", O_RDONLY);
        }
        mon_close_fd(&d);
    }
    if (!cg->mem_ver)
        cg->mem_path[0] = '\0';

    /* the CPU quota */
    d = open_cg_dir(cgtext, mi, sys_root, "cpu", cg->cpu_path, sizeof cg->cpu_path);
    if ((cg->cpu_max_fd = open_in(d, "cpu.cfs_quota_us", O_RDONLY)) >= 0 &&
        (cg->cpu_period_fd = open_in(d, "cpu.cfs_period_us", O_RDONLY)) >= 0)
        cg->cpu_ver = 1;
    else
        mon_close_fd(&cg->cpu_max_fd);
    mon_close_fd(&d);
    if (!cg->cpu_ver && have_v2) {
        d = open_cg_dir(cgtext, mi, sys_root, NULL, cg->cpu_path, sizeof cg->cpu_path);
        if ((cg->cpu_max_fd = open_in(d, "cpu.max", O_RDONLY)) >= 0)
            cg->cpu_ver = 2;
        mon_close_fd(&d);
    }

    /* CPU usage: v1 cpuacct (often co-mounted as "cpu,cpuacct"), else v2 cpu.stat */
    char apath[sizeof cg->cpu_path];
    d = open_cg_dir(cgtext, mi, sys_root, "cpuacct", apath, sizeof apath);
    if ((cg->usage_fd = open_in(d, "cpuacct.usage", O_RDONLY)) >= 0)
        cg->acct_ver = 1;
    mon_close_fd(&d);
    if (!cg->acct_ver && have_v2) {
        d = open_cg_dir(cgtext, mi, sys_root, NULL, apath, sizeof apath);
        if ((cg->usage_fd = open_in(d, "cpu.stat", O_RDONLY)) >= 0)
            cg->acct_ver = 2;
        mon_close_fd(&d);
    }
    if (!cg->cpu_ver) {
        if (cg->acct_ver) /* the path a reader wants: where the CPU is accounted */
            snprintf(cg->cpu_path, sizeof cg->cpu_path, "%s", apath);
        else
            cg->cpu_path[0] = '\0';
    }

    /* hybrid: v1 hierarchies and a cgroup2 mount side by side */
    char tmp[PATH_MAX];
    cg->hybrid = have_v2 && mon_find_cgroup_dir(mi, NULL, v2path, tmp, sizeof tmp) == 0 &&
                 (cg->mem_ver == 1 || cg->cpu_ver == 1 || cg->acct_ver == 1);
    cg->found = cg->mem_ver || cg->cpu_ver || cg->acct_ver;
out:
    free(cgtext);
    free(mi);
    return 0;
}

void mon_cgroup_close(struct mon_cgroup *cg)
{
    mon_close_fd(&cg->mem_cur_fd);
    mon_close_fd(&cg->mem_max_fd);
    mon_close_fd(&cg->mem_peak_fd);
    mon_close_fd(&cg->oom_fd);
    mon_close_fd(&cg->cpu_max_fd);
    mon_close_fd(&cg->cpu_period_fd);
    mon_close_fd(&cg->usage_fd);
    cg->found = false;
}

/* One counter file in bytes, as MiB; false when unreadable or "max"/unlimited. */
static bool read_mib(int fd, bool v1_limit, double *mib)
{
    char buf[64];
    uint64_t v;
    if (fd < 0 || mon_pread_proc(fd, buf, sizeof buf) <= 0 || mon_parse_cg_u64(buf, &v) < 0)
        return false;
    if (v1_limit && v >= MON_CG_V1_UNLIMITED)
        return false;
    *mib = (double)v / 1048576.0;
    return true;
}

void mon_cgroup_sample(struct mon_cgroup *cg, double now_s, struct mon_cg_sample *out)
{
    memset(out, 0, sizeof *out);
    if (!cg->found)
        return;
    char buf[1024], buf2[64];
    double cores;
    if (!cg->limits_read || !(now_s - cg->limits_t < MON_CG_LIMITS_MAX_AGE_S)) {
        cg->limits_read = true;
        cg->limits_t = now_s;
        cg->have_limit = false;
        if (cg->cpu_ver == 2 && mon_pread_proc(cg->cpu_max_fd, buf, sizeof buf) > 0 &&
            mon_parse_cpu_max(buf, &cores) == 0 && cores > 0) {
            cg->have_limit = true;
            cg->limit_cores = cores;
        } else if (cg->cpu_ver == 1 && mon_pread_proc(cg->cpu_max_fd, buf, sizeof buf) > 0 &&
                   mon_pread_proc(cg->cpu_period_fd, buf2, sizeof buf2) > 0 &&
                   mon_parse_cfs_quota(buf, buf2, &cores) == 0 && cores > 0) {
            cg->have_limit = true;
            cg->limit_cores = cores;
        }
        cg->have_mem_max = read_mib(cg->mem_max_fd, cg->mem_ver == 1, &cg->mem_max_mib);
    }
    out->have_limit = cg->have_limit;
    out->limit_cores = cg->limit_cores;
    out->have_mem_max = cg->have_mem_max;
    out->mem_max_mib = cg->mem_max_mib;
    uint64_t usage_ns = 0;
    bool have_usage = false;
    if (cg->usage_fd >= 0 && mon_pread_proc(cg->usage_fd, buf, sizeof buf) > 0) {
        uint64_t v;
        if (cg->acct_ver == 2 && parse_usage_usec(buf, &v) == 0) {
            usage_ns = v * 1000;
            have_usage = true;
        } else if (cg->acct_ver == 1 && mon_parse_cg_u64(buf, &v) == 0) {
            usage_ns = v;
            have_usage = true;
        }
    }
    if (have_usage) {
        if (cg->have_prev && now_s > cg->prev_t) {
            out->have_cpu = true;
            uint64_t d = usage_ns >= cg->prev_usage_ns ? usage_ns - cg->prev_usage_ns : 0;
            out->cpu_pct = (double)d / 1e7 / (now_s - cg->prev_t);
        }
        cg->prev_usage_ns = usage_ns;
        cg->prev_t = now_s;
        cg->have_prev = true;
    }
    out->have_mem = read_mib(cg->mem_cur_fd, false, &out->mem_cur_mib);
    out->have_mem_peak = read_mib(cg->mem_peak_fd, false, &out->mem_peak_mib);
}

bool mon_cgroup_oom_kills(const struct mon_cgroup *cg, uint64_t *out)
{
    char buf[1024]; /* memory.events: 6 lines; memory.oom_control: 3 */
    return cg->found && cg->oom_fd >= 0 && mon_pread_proc(cg->oom_fd, buf, sizeof buf) > 0 &&
           mon_parse_oom_kill(buf, out) == 0;
}

bool mon_cgroup_mem_max(const struct mon_cgroup *cg, double *mib)
{
    return cg->found && read_mib(cg->mem_max_fd, cg->mem_ver == 1, mib);
}

/* A figure of the object: round(v, 2), or null when not measured (or unlimited). */
static rl_field_t mib_field(const char *key, bool have, double v)
{
    return have ? RL_DBL(key, hw_py_round_value(v, 2)) : RL_NULL(key);
}

size_t mon_cgroup_fields(const struct mon_cgroup *cg, const struct mon_cg_sample *x,
                         rl_field_t f[MON_CGROUP_NFIELDS])
{
    int ver = cg->mem_ver ? cg->mem_ver : cg->cpu_ver ? cg->cpu_ver : cg->acct_ver;
    const char *path = cg->mem_ver ? cg->mem_path : cg->cpu_path;
    size_t n = 0;
    f[n++] = RL_INT("version", ver);
    f[n++] = RL_BOOL("hybrid", cg->hybrid);
    f[n++] = RL_STR("path", path);
    if (cg->cpu_path[0] && strcmp(cg->cpu_path, path) != 0)
        f[n++] = RL_STR("cpu_path", cg->cpu_path);
    f[n++] = mib_field("memory_current_mib", x->have_mem, x->mem_cur_mib);
    f[n++] = mib_field("memory_max_mib", x->have_mem_max, x->mem_max_mib);
    f[n++] = mib_field("memory_peak_mib", x->have_mem_peak, x->mem_peak_mib);
    f[n++] = RL_BOOL("memory_peak_since_start", cg->peak_reset);
    f[n++] = mib_field("cpu_limit_cores", x->have_limit, x->limit_cores);
    return n;
}
