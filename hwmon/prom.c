/* Prometheus text exposition of a running hwmon (see prom.h). Metric names follow Prometheus'
 * conventions: a hwrun_ prefix, base units (bytes, watts, joules, hertz, seconds, ratios 0-1
 * for percentages), _total for counters; labels are bounded: gpu index, CPU mode, and one
 * series each for the run's identity and its current phase. */
#include "prom.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "energy.h" /* rd_energy_step: the same energy rule as summarize */
#include "hwrun/parse.h" /* hw_scan_u64, hw_parse_decimal */
#include "hwrun/jsonw.h" /* hw_buf_py_double: the numbers as summarize prints them */
#include "hwrun/timeutil.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"
#include "procread.h"     /* mon_parse_pid_stat, mon_pread_proc */

#define MIB 1048576.0

static const char *const gpm_keys[HW_GPM_NCOLS] = {HW_GPM_KEYS};

/* hw_health.csv's columns exported per GPU (nvidia-smi's health child, AMD's files): what a
 * fleet alerts on, a lowered power limit or a PCIe link below its best. */
static const struct {
    int c;
    const char *name, *help;
    double scale;
} health_metrics[] = {
    {HW_HEALTH_POWER_ENFORCED, "hwrun_gpu_power_limit_watts",
     "The power limit the GPU enforces (enforced.power.limit; AMD: power1_cap).", 1},
    {HW_HEALTH_SM_CLOCK_MAX, "hwrun_gpu_sm_clock_max_hertz",
     "The SM clock's maximum (clocks.max.sm; AMD: the highest pp_dpm_sclk level).", 1e6},
    {HW_HEALTH_PCIE_GEN, "hwrun_gpu_pcie_link_generation", "The PCIe link's generation now.", 1},
    {HW_HEALTH_PCIE_GEN_MAX, "hwrun_gpu_pcie_link_generation_max",
     "The highest PCIe generation the link can run at.", 1},
    {HW_HEALTH_PCIE_WIDTH, "hwrun_gpu_pcie_link_width", "The PCIe link's lanes now.", 1},
    {HW_HEALTH_PCIE_WIDTH_MAX, "hwrun_gpu_pcie_link_width_max",
     "The most PCIe lanes the link can run at.", 1},
};

/* cpu_metrics.csv: system CPU by mode, memory, and the container's figures. */
static const struct {
    int c;
    const char *mode;
} cpu_modes[] = {
    {HW_CPU_COL_USR, "user"}, {HW_CPU_COL_SYS, "system"}, {HW_CPU_COL_IOWAIT, "iowait"},
    {HW_CPU_COL_STEAL, "steal"}, {HW_CPU_COL_IDLE, "idle"},
};

static const struct {
    int c;
    const char *name, *help, *type;
    double scale;
} cpu_metrics[] = {
    {HW_CPU_COL_MEM_USED, "hwrun_memory_used_bytes", "System memory in use (MemTotal - MemAvailable).",
     "gauge", MIB},
    {HW_CPU_COL_MEM_AVAIL, "hwrun_memory_available_bytes", "System MemAvailable.", "gauge", MIB},
    {HW_CPU_COL_CG_LIMIT, "hwrun_cgroup_cpu_limit_cores", "The cgroup's cpu.max quota in cores.",
     "gauge", 1},
    {HW_CPU_COL_CG_PCT, "hwrun_cgroup_cpu_usage_cores", "The cgroup's CPU use in cores.", "gauge",
     0.01},
    {HW_CPU_COL_CG_MEM, "hwrun_cgroup_memory_used_bytes", "The cgroup's memory.current.", "gauge",
     MIB},
    {HW_CPU_COL_CG_MEM_MAX, "hwrun_cgroup_memory_limit_bytes", "The cgroup's memory.max.", "gauge",
     MIB},
    {HW_CPU_COL_CG_MEM_PEAK, "hwrun_cgroup_memory_peak_bytes",
     "The kernel's high-water mark of the cgroup's memory (memory.peak).", "gauge", MIB},
    {HW_CPU_COL_FS_FREE, "hwrun_output_fs_free_bytes",
     "Space left on the file system of the run directory.", "gauge", MIB},
};

/* cpu_metrics.csv's bytes per row, added up (rd_live's io_total, in rd_live_io_cols' order):
 * counters since hwmon started. */
static const struct {
    const char *name, *help;
} io_counters[4] = {
    {"hwrun_disk_read_bytes_total", "Bytes read from the machine's disks."},
    {"hwrun_disk_written_bytes_total", "Bytes written to the machine's disks."},
    {"hwrun_network_receive_bytes_total", "Bytes received (every interface but lo)."},
    {"hwrun_network_transmit_bytes_total", "Bytes sent (every interface but lo)."},
};

/* proc_metrics.csv: the tracked process tree. */
static const struct {
    int c;
    const char *name, *help, *type;
    double scale;
} proc_metrics[] = {
    {HW_PROC_COL_PROCS, "hwrun_tree_processes", "Processes in the tracked tree.", "gauge", 1},
    {HW_PROC_COL_THREADS, "hwrun_tree_threads", "Threads in the tracked tree.", "gauge", 1},
    {HW_PROC_COL_CPU, "hwrun_tree_cpu_usage_cores", "CPU used by the tree, in cores.", "gauge", 0.01},
    {HW_PROC_COL_RSS, "hwrun_tree_resident_memory_bytes", "Sum of VmRSS over the tree.", "gauge",
     MIB},
    {HW_PROC_COL_PSS, "hwrun_tree_proportional_memory_bytes", "Sum of PSS over the tree.", "gauge",
     MIB},
    {HW_PROC_COL_READ, "hwrun_tree_read_bytes_total", "Storage bytes read by the tree.", "counter",
     1},
    {HW_PROC_COL_WRITE, "hwrun_tree_written_bytes_total", "Storage bytes written by the tree.",
     "counter", 1},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void sanitize(char *s)
{
    for (; *s; s++)
        if (!hw_name_byte(*s))
            *s = '_';
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

int mon_prom_resolve(struct mon_prom *p, const char *target, const char *run_dir)
{
    snprintf(p->run, sizeof p->run, "%s", base_name(run_dir));
    struct stat st;
    int st_rc = stat(target, &st);
    if (st_rc < 0 && errno != ENOENT)
        return -errno;
    if (st_rc == 0 && S_ISDIR(st.st_mode)) {
        char name[256];
        snprintf(name, sizeof name, "%s", p->run);
        sanitize(name);
        int n = snprintf(p->path, sizeof p->path, "%s/hwrun_%s.prom", target, name);
        return n < 0 || (size_t)n >= sizeof p->path ? -ENAMETOOLONG : 0;
    }
    int n = snprintf(p->path, sizeof p->path, "%s", target);
    return n < 0 || (size_t)n >= sizeof p->path ? -ENAMETOOLONG : 0;
}

/* ---- who owns an export file ------------------------------------------------------------ */

#define OWNER_TAG "# hwrun-owner "

/* The start time of pid in this PID namespace's /proc; 0 when it is gone. */
static uint64_t start_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    ssize_t n = hw_read_small(AT_FDCWD, path, buf, sizeof buf);
    struct mon_pstat st;
    if (n <= 0 || mon_parse_pid_stat(buf, (size_t)n, &st) < 0 || st.state == 'Z' ||
        st.state == 'X')
        return 0;
    return st.starttime;
}

int mon_prom_owner_self(struct mon_prom_owner *o, double interval_s)
{
    memset(o, 0, sizeof *o);
    o->pid = getpid();
    o->start = start_of(o->pid);
    o->interval_s = interval_s;
    char boot[64];
    if (hw_read_small(AT_FDCWD, "/proc/sys/kernel/random/boot_id", boot, sizeof boot) > 0) {
        size_t n = strcspn(boot, " \t\r\n"); /* one word, as the owner line holds it */
        if (n < sizeof o->boot) {
            memcpy(o->boot, boot, n);
            o->boot[n] = '\0';
        }
    }
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) == 0)
        o->pidns = (uint64_t)st.st_ino;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(o->host, sizeof o->host, "%s", u.nodename);
    for (char *c = o->host; *c; c++) /* the line's last field: one word of printable bytes */
        if (*c <= ' ' || *c == 0x7f)
            *c = '_';
    return o->start && o->boot[0] ? 0 : -ENOENT;
}

static void owner_format(const struct mon_prom_owner *o, char *line, size_t cap)
{
    snprintf(line, cap, OWNER_TAG "pid=%d start=%" PRIu64 " boot=%s pidns=%" PRIu64
             " interval=%g host=%s\n",
             (int)o->pid, o->start, o->boot[0] ? o->boot : "-", o->pidns, o->interval_s,
             o->host[0] ? o->host : "-");
}

/* "KEY=value" at *p: the value's span up to the next blank, and *p past it and its blank. */
static bool owner_field(const char **p, const char *key, const char **v, size_t *n)
{
    size_t kl = strlen(key);
    if (strncmp(*p, key, kl))
        return false;
    *v = *p + kl;
    *n = strcspn(*v, " \t\r\n");
    *p = *v + *n;
    if (**p == ' ')
        (*p)++;
    return *n > 0;
}

/* A field's whole value as a number (the one integer parser, the one decimal parser). */
static bool owner_u64(const char **p, const char *key, uint64_t *out)
{
    const char *v;
    size_t n;
    return owner_field(p, key, &v, &n) && hw_scan_u64(v, v + n, out, NULL) == v + n;
}

static bool owner_word(const char **p, const char *key, char *out, size_t cap)
{
    const char *v;
    size_t n;
    if (!owner_field(p, key, &v, &n) || n >= cap)
        return false;
    memcpy(out, v, n);
    out[n] = '\0';
    return true;
}

bool mon_prom_owner_parse(const char *text, struct mon_prom_owner *o)
{
    memset(o, 0, sizeof *o);
    if (strncmp(text, OWNER_TAG, sizeof OWNER_TAG - 1))
        return false;
    const char *p = text + sizeof OWNER_TAG - 1, *v;
    size_t n;
    uint64_t pid, start, ns;
    double iv;
    if (!owner_u64(&p, "pid=", &pid) || !owner_u64(&p, "start=", &start) ||
        !owner_word(&p, "boot=", o->boot, sizeof o->boot) || !owner_u64(&p, "pidns=", &ns) ||
        !owner_field(&p, "interval=", &v, &n) || !hw_parse_decimal(v, n, &iv) ||
        !owner_word(&p, "host=", o->host, sizeof o->host) || pid == 0 || pid > INT32_MAX ||
        !(iv > 0)) {
        memset(o, 0, sizeof *o);
        return false;
    }
    o->pid = (pid_t)pid;
    o->start = start;
    o->pidns = ns;
    o->interval_s = iv;
    return true;
}

bool mon_prom_is_stale(const struct mon_prom_owner *o, double mtime,
                       const struct mon_prom_owner *me, double now)
{
    /* an owner that could not read its own /proc says start=0 or boot=-: only silence tells */
    bool known = o->start && o->boot[0] && strcmp(o->boot, "-") && me->boot[0];
    bool same_boot = known && !strcmp(o->boot, me->boot);
    if (same_boot && o->pidns && o->pidns == me->pidns) /* its pid means something here */
        return start_of(o->pid) != o->start;
    if (known && !same_boot && !strcmp(o->host, me->host)) /* this host, booted since */
        return true;
    /* another PID namespace (a container) or another host: only its silence tells */
    return now - mtime > MON_PROM_STALE_INTERVALS * o->interval_s + MON_PROM_STALE_SLACK_S;
}

static double mtime_of(const struct stat *st)
{
    return (double)st->st_mtim.tv_sec + st->st_mtim.tv_nsec / 1e9;
}

/* Remove path if it is an export file whose owner is gone. Checks the file it read is the one
 * it removes (the same inode), so a file just claimed anew is not taken away. */
static bool remove_if_stale(int dirfd, const char *name, const struct mon_prom_owner *me,
                            double now)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    char buf[512];
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? mon_pread_proc(fd, buf, sizeof buf)
                                                           : -1;
    close(fd);
    struct mon_prom_owner o;
    if (n <= 0 || !mon_prom_owner_parse(buf, &o) || !mon_prom_is_stale(&o, mtime_of(&st), me, now))
        return false;
    struct stat again;
    if (fstatat(dirfd, name, &again, AT_SYMLINK_NOFOLLOW) < 0 || again.st_ino != st.st_ino ||
        again.st_dev != st.st_dev)
        return false;
    return unlinkat(dirfd, name, 0) == 0;
}

static void split_path(const char *path, char *dir, size_t dcap, const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dcap, ".");
        *name = path;
    } else {
        snprintf(dir, dcap, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        *name = slash + 1;
    }
}

int mon_prom_claim(struct mon_prom *p, const struct mon_prom_owner *me)
{
    p->me = *me;
    owner_format(me, p->owner_line, sizeof p->owner_line);
    char dir[4096], stem[4000], run[256];
    const char *name;
    split_path(p->path, dir, sizeof dir, &name);
    size_t nl = strlen(name);
    bool dot_prom = nl > 5 && !strcmp(name + nl - 5, ".prom");
    if (nl >= sizeof stem)
        return -ENAMETOOLONG;
    snprintf(stem, sizeof stem, "%.*s", (int)(dot_prom ? nl - 5 : nl), name);
    snprintf(run, sizeof run, "%s", p->run);
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return -errno;
    int rc = -EEXIST;
    char file[4096];
    for (int k = 1; k <= 1000; k++) {
        if (k == 1)
            snprintf(file, sizeof file, "%s", name);
        else
            snprintf(file, sizeof file, "%s-%d%s", stem, k, dot_prom ? ".prom" : "");
        for (int tries = 0; tries < 2; tries++) {
            mode_t mode = S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH; /* umask */
            int fd = openat(dirfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                            mode);
            if (fd >= 0) {
                size_t len = strlen(p->owner_line);
                errno = 0;
                rc = write(fd, p->owner_line, len) == (ssize_t)len ? 0 : -(errno ? errno : EIO);
                close(fd);
                if (rc < 0) {
                    unlinkat(dirfd, file, 0);
                    goto out;
                }
                if (k > 1)
                    snprintf(p->run, sizeof p->run, "%.240s-%d", run, k);
                int n = snprintf(p->path, sizeof p->path, "%s/%s", dir, file);
                rc = n < 0 || (size_t)n >= sizeof p->path ? -ENAMETOOLONG : 0;
                p->claimed = rc == 0;
                goto out;
            }
            if (errno != EEXIST) {
                rc = -errno;
                goto out;
            }
            if (!remove_if_stale(dirfd, file, me, hw_real_now()))
                break; /* a live run's (or not ours to judge): the next name */
        }
    }
out:
    close(dirfd);
    return rc;
}

int mon_prom_sweep(const struct mon_prom *p, double now)
{
    char dir[4096];
    const char *own;
    split_path(p->path, dir, sizeof dir, &own);
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return 0;
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return 0;
    }
    int removed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "hwrun_", 6) || len < 11 || strcmp(e->d_name + len - 5, ".prom") ||
            !strcmp(e->d_name, own))
            continue;
        removed += remove_if_stale(dirfd, e->d_name, &p->me, now);
    }
    closedir(d);
    return removed;
}

int mon_prom_remove(struct mon_prom *p)
{
    if (!p->claimed)
        return 0;
    p->claimed = false;
    char buf[512];
    ssize_t rc = hw_read_small(AT_FDCWD, p->path, buf, sizeof buf);
    if (rc < 0)
        return rc == -ENOENT ? 0 : (int)rc;
    if (strncmp(buf, p->owner_line, strlen(p->owner_line)))
        return 0; /* another hwmon's now */
    return unlink(p->path) < 0 ? -errno : 0;
}

int mon_prom_open(struct mon_prom *p, const char *run_dir, const char *gpu_fields,
                  double interval_s, const char *host, const char *command)
{
    if (!p->run[0])
        snprintf(p->run, sizeof p->run, "%s", base_name(run_dir));
    struct hw_buf lb; /* at most 4 bytes out per byte in: U+FFFD, or \\ */
    hw_buf_init(&lb, p->run_label, sizeof p->run_label);
    mon_prom_label_value(&lb, p->run);
    if (lb.p != p->run_label || lb.oom) { /* cannot be: 255 bytes in, 1020 out at most */
        hw_buf_free(&lb);
        return -ENAMETOOLONG;
    }
    snprintf(p->host, sizeof p->host, "%s", host ? host : "");
    snprintf(p->command, sizeof p->command, "%s", command ? base_name(command) : "");
    hw_buf_init(&p->out, NULL, 0);
    /* hwmon's own lines are short: 64 KiB bounds the readers' buffers (the default is 1 MiB) */
    struct rd_live_opts o = {.gpu_fields = gpu_fields && gpu_fields[0] ? gpu_fields : NULL,
                             .interval_s = interval_s, .max_line = 65536};
    int rc = rd_live_open(&p->live, run_dir, &o);
    if (rc < 0)
        mon_prom_close(p);
    return rc;
}

/* ---- the exposition --------------------------------------------------------------------- */

/* A label value as the text format wants it: UTF-8 (a byte that is not becomes U+FFFD, as in
 * every other output of ours: one bad command name must not make promtool and node_exporter
 * reject the whole file), with backslash, double quote and newline escaped. */
void mon_prom_label_value(struct hw_buf *b, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        uint32_t cp;
        size_t k = hw_utf8_decode(s, n, &cp);
        if (k == 0 || k == HW_UTF8_SHORT) {
            hw_buf_puts(b, "\xEF\xBF\xBD"); /* U+FFFD for the one bad byte, then go on */
            k = 1;
        } else if (*s == '\\')
            hw_buf_puts(b, "\\\\");
        else if (*s == '"')
            hw_buf_puts(b, "\\\"");
        else if (*s == '\n')
            hw_buf_puts(b, "\\n");
        else
            hw_buf_put(b, s, k);
        s += k;
        n -= k;
    }
}

static void family(struct hw_buf *b, const char *name, const char *type, const char *help)
{
    hw_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void value(struct hw_buf *b, double v)
{
    hw_buf_putc(b, ' ');
    hw_buf_py_double(b, v);
    hw_buf_putc(b, '\n');
}

/* nvidia-smi's and our CSVs' units to base units: percent / 100 (a division, so 35% is 0.35
 * and not 0.35000000000000003), MiB to whole bytes, MHz to Hz. */
static double scaled(double v, double scale)
{
    if (scale < 1)
        return v / (1 / scale);
    return scale == MIB ? round(v * scale) : v * scale;
}

/* ,key="value" inside a series' braces */
static void label(struct hw_buf *b, const char *key, const char *value)
{
    hw_buf_printf(b, ",%s=\"", key);
    mon_prom_label_value(b, value);
    hw_buf_putc(b, '"');
}

/* name{run="RUN"[,key="val"]...}, the labels after the run given as NULL-ended pairs: every
 * series carries the run, so the runs of a node, each in a file of its own in one textfile
 * directory, never collide. */
static void series(struct hw_buf *b, const struct mon_prom *p, const char *name, ...)
{
    hw_buf_puts(b, name);
    hw_buf_puts(b, "{run=\"");
    hw_buf_puts(b, p->run_label);
    hw_buf_putc(b, '"');
    va_list ap;
    va_start(ap, name);
    for (const char *key; (key = va_arg(ap, const char *));)
        label(b, key, va_arg(ap, const char *));
    va_end(ap);
    hw_buf_putc(b, '}');
}

/* hwrun_run_info's context labels (mon_prom_set_context) */
static const enum hw_ctx info_ctx[] = {HW_CTX_SLURM_JOB_ID, HW_CTX_SLURM_ARRAY_TASK_ID,
                                       HW_CTX_K8S_NAMESPACE, HW_CTX_K8S_POD, HW_CTX_RANK};

void mon_prom_set_context(struct mon_prom *p, const struct mon_context *c)
{
    p->ctx = *c;
}

static void gpu_sample(struct hw_buf *b, const struct mon_prom *p, const char *name, int g,
                       double v)
{
    char idx[16];
    snprintf(idx, sizeof idx, "%d", g);
    series(b, p, name, "gpu", idx, (char *)NULL);
    value(b, v);
}

/* One family over the GPUs; skipped when no GPU has a value (unmeasured is absent, never 0). */
/* Which of a GPU's latest rows a family reads: hw_metrics.csv's, hw_gpm.csv's, hw_health.csv's */
enum gpu_row { ROW_METRICS, ROW_GPM, ROW_HEALTH };

static double gpu_value(const struct rd_live_gpu *x, enum gpu_row row, int col)
{
    switch (row) {
    case ROW_GPM: return x->gpm_seen ? x->gpm[col] : NAN;
    case ROW_HEALTH: return x->health_seen ? x->health[col] : NAN;
    case ROW_METRICS: break;
    }
    return x->seen ? x->v[col] : NAN;
}

static void gpu_family(struct hw_buf *b, const struct mon_prom *p, const char *name,
                       const char *type, const char *help, int col, enum gpu_row row,
                       double scale)
{
    bool any = false;
    for (int g = 0; g < p->live.ngpus; g++) {
        double v = gpu_value(&p->live.gpu[g], row, col);
        if (!isfinite(v))
            continue;
        if (!any)
            family(b, name, type, help);
        any = true;
        gpu_sample(b, p, name, g, scaled(v, scale));
    }
}

static void plain(struct hw_buf *b, const struct mon_prom *p, const char *name, const char *type,
                  const char *help, double v)
{
    if (!isfinite(v))
        return;
    family(b, name, type, help);
    series(b, p, name, (char *)NULL);
    value(b, v);
}

void mon_prom_format(const struct mon_prom *p, const struct mon_prom_counters *c, double now,
                     struct hw_buf *b)
{
    if (p->claimed)
        hw_buf_puts(b, p->owner_line);
    family(b, "hwrun_run_info", "gauge",
           "The run hwmon records: its directory name, host, command, and where the scheduler "
           "runs it.");
    hw_buf_puts(b, "hwrun_run_info{run=\"");
    hw_buf_puts(b, p->run_label);
    hw_buf_putc(b, '"');
    label(b, "host", p->host);
    label(b, "command", p->command);
    for (size_t i = 0; i < NELEM(info_ctx); i++)
        if (p->ctx.v[info_ctx[i]][0])
            label(b, hw_ctx_defs[info_ctx[i]].key, p->ctx.v[info_ctx[i]]);
    hw_buf_puts(b, "} 1\n");
    plain(b, p, "hwrun_export_timestamp_seconds", "gauge",
          "When hwmon wrote this file (Unix time). A file older than 3 export intervals was left "
          "by a hwmon that died.",
          now);
    plain(b, p, "hwrun_export_interval_seconds", "gauge",
          "How often hwmon rewrites this file (--prom-interval).",
          p->me.interval_s > 0 ? p->me.interval_s : NAN);
    plain(b, p, "hwrun_samples_total", "counter", "CPU samples taken.", (double)c->samples);
    plain(b, p, "hwrun_skipped_slots_total", "counter",
          "Sample slots missed because a sample took longer than the interval.",
          (double)c->skipped_slots);
    plain(b, p, "hwrun_child_restarts_total", "counter", "nvidia-smi children restarted.",
          (double)c->child_restarts);
    /* a full disk shows here while it lasts, not only in the stop event: alert on it */
    family(b, "hwrun_samples_lost_total", "counter",
           "Samples taken but not written (their file's disk was full), by file.");
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (hw_run_files[k].by == HW_BY_HWMON) {
            series(b, p, "hwrun_samples_lost_total", "file", hw_run_files[k].stem, (char *)NULL);
            value(b, (double)c->lost[k]);
        }
    plain(b, p, "hwrun_phases_total", "counter", "Phases completed (run.jsonl).",
          (double)p->live.phases);
    plain(b, p, "hwrun_phases_open", "gauge", "Phases begun and not yet ended (run.jsonl).",
          (double)p->live.nopen);
    const struct rd_live_phase *open = rd_live_current(&p->live);
    const char *cur = open ? open->name
                           : p->live.nrecent ? p->live.recent[p->live.nrecent - 1].name : "";
    if (cur[0]) {
        family(b, "hwrun_phase_info", "gauge",
               "The current phase: the innermost begun and not ended, else the last completed "
               "(run.jsonl).");
        series(b, p, "hwrun_phase_info", "phase", cur, (char *)NULL);
        hw_buf_puts(b, " 1\n");
    }

    /* hw_metrics.csv's figures, every entry of hw_gpu_figs (hwrun/rundir.h): hwrun_<stem>_<base
     * unit of the dimension>, scaled from the dimension's unit to the base one */
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[m];
        const struct hw_gpu_dim_def *d = &hw_gpu_dims[f->dim];
        char name[96], help[192];
        snprintf(name, sizeof name, "hwrun_%s_%s", f->stem, d->prom_unit);
        snprintf(help, sizeof help, "%s (nvidia-smi %s).", f->help, f->field);
        gpu_family(b, p, name, "gauge", help, m, ROW_METRICS, d->prom_scale);
    }
    for (size_t i = 0; i < NELEM(health_metrics); i++)
        gpu_family(b, p, health_metrics[i].name, "gauge", health_metrics[i].help,
                   health_metrics[i].c, ROW_HEALTH, health_metrics[i].scale);
    bool any = false;
    for (int g = 0; g < p->live.ngpus; g++) {
        const struct rd_live_gpu *x = &p->live.gpu[g];
        /* from the GPU's first row with power (0 while its first steps wait for the gap rule's
         * interval), or its counter's second read; absent, never 0, before either */
        double j = x->seen ? rd_live_gpu_energy_j(x) : NAN;
        if (!isfinite(j))
            continue;
        if (!any)
            family(b, "hwrun_gpu_energy_joules_total", "counter",
                   "Energy since hwmon started by summarize's rule: the GPU's energy counter "
                   "(NVML's, AMD SMI's) where it has one, else power integrated over time, gaps "
                   "not bridged.");
        any = true;
        gpu_sample(b, p, "hwrun_gpu_energy_joules_total", g, j);
    }
    for (int k = 0; k < HW_GPM_NCOLS; k++) {
        /* "sm_active_pct" -> hwrun_gpu_sm_active_ratio */
        char name[96], help[128];
        size_t kl = strlen(gpm_keys[k]);
        snprintf(name, sizeof name, "hwrun_gpu_%.*s_ratio", (int)(kl > 4 ? kl - 4 : kl),
                 gpm_keys[k]);
        snprintf(help, sizeof help, "GPM %.*s: share of the interval (dmon --gpm-metrics).",
                 (int)(kl > 4 ? kl - 4 : kl), gpm_keys[k]);
        gpu_family(b, p, name, "gauge", help, k, ROW_GPM, 0.01);
    }

    const struct rd_live *l = &p->live;
    if (l->cpu_seen) {
        bool fam = false;
        for (size_t i = 0; i < NELEM(cpu_modes); i++) {
            double v = l->cpu[cpu_modes[i].c];
            if (!isfinite(v))
                continue;
            if (!fam)
                family(b, "hwrun_cpu_usage_ratio", "gauge",
                       "Share of all CPUs' time over the last interval, by mode.");
            fam = true;
            series(b, p, "hwrun_cpu_usage_ratio", "mode", cpu_modes[i].mode, (char *)NULL);
            value(b, scaled(v, 0.01));
        }
        for (size_t i = 0; i < NELEM(cpu_metrics); i++)
            plain(b, p, cpu_metrics[i].name, cpu_metrics[i].type, cpu_metrics[i].help,
                  scaled(l->cpu[cpu_metrics[i].c], cpu_metrics[i].scale));
        for (size_t i = 0; i < NELEM(io_counters); i++)
            plain(b, p, io_counters[i].name, "counter", io_counters[i].help, l->io_total[i]);
    }
    if (l->proc_seen)
        for (size_t i = 0; i < NELEM(proc_metrics); i++)
            plain(b, p, proc_metrics[i].name, proc_metrics[i].type, proc_metrics[i].help,
                  scaled(l->proc[proc_metrics[i].c], proc_metrics[i].scale));
}

int mon_prom_update(struct mon_prom *p, const struct mon_prom_counters *c, double now)
{
    rd_live_update(&p->live); /* what it could not read stays as it was: still exported */
    hw_buf_reset(&p->out);
    mon_prom_format(p, c, now, &p->out);
    if (p->out.oom)
        return -ENOMEM;
    /* no fsync: after a power cut the latest values are worthless anyway */
    int rc = hw_write_replace(p->path, p->out.p, p->out.len, false);
    if (rc == 0)
        p->writes++;
    if (p->claimed) /* a killed hwmon's file goes at the next export of any run on the node */
        mon_prom_sweep(p, now);
    return rc;
}

void mon_prom_close(struct mon_prom *p)
{
    rd_live_close(&p->live);
    hw_buf_free(&p->out);
}
