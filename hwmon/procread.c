/* Reading /proc, cgroup and sysfs text for hwmon: the descriptors, the one integer parser and
 * the parsers of /proc's files (procread.h). After htop's linux/Compat.c and the parsing half
 * of LinuxProcessTable.c: files read whole, comm skipped at the last ')', fields counted. */
#include "procread.h"

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

/* ---- small parsing helpers (no locale, no allocation) ---- */

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static uint64_t clamp_u(int64_t v)
{
    return v < 0 ? 0 : (uint64_t)v;
}

int mon_parse_cpu_line(const char *text, struct mon_cpu_times *out)
{
    if (strncmp(text, "cpu ", 4) != 0)
        return -EINVAL;
    const char *end = strchr(text, '\n');
    if (!end)
        end = text + strlen(text);
    struct mon_cpu_times t;
    memset(&t, 0, sizeof t);
    const char *p = text + 4;
    while (t.n < 10) {
        int64_t v;
        const char *q = hw_scan_i64(p, end, &v, NULL);
        if (!q)
            break;
        t.v[t.n++] = clamp_u(v);
        p = q;
    }
    if (t.n < 4)
        return -EINVAL;
    *out = t;
    return 0;
}

int mon_parse_kb_field(const char *text, const char *key, uint64_t *out_kb)
{
    size_t kl = strlen(key);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        if ((size_t)(end - line) > kl && memcmp(line, key, kl) == 0) {
            int64_t v;
            if (hw_scan_i64(line + kl, end, &v, NULL)) {
                *out_kb = clamp_u(v);
                return 0;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return -ENOENT;
}

int mon_parse_meminfo(const char *text, struct mon_meminfo *out)
{
    struct mon_meminfo m = {0};
    if (mon_parse_kb_field(text, "MemTotal:", &m.total_kb) < 0)
        return -EINVAL;
    int missing = (mon_parse_kb_field(text, "MemFree:", &m.free_kb) < 0) +
                  (mon_parse_kb_field(text, "Buffers:", &m.buffers_kb) < 0) +
                  (mon_parse_kb_field(text, "Cached:", &m.cached_kb) < 0);
    int anon = (mon_parse_kb_field(text, "Active(anon):", &m.active_anon_kb) < 0) +
               (mon_parse_kb_field(text, "Inactive(anon):", &m.inactive_anon_kb) < 0);
    m.have_parts = !missing && !anon;
    m.have_sreclaimable = mon_parse_kb_field(text, "SReclaimable:", &m.sreclaimable_kb) == 0;
    if (mon_parse_kb_field(text, "MemAvailable:", &m.avail_kb) == 0) {
        m.have_avail = true;
    } else { /* before Linux 3.14: the classic estimate */
        m.avail_kb = m.free_kb + m.buffers_kb + m.cached_kb;
        if (m.avail_kb > m.total_kb)
            m.avail_kb = m.total_kb;
    }
    *out = m;
    return 0;
}

int mon_parse_pid_stat(const char *text, size_t len, struct mon_pstat *out)
{
    const char *end = text + len;
    const char *open = memchr(text, '(', len);
    const char *close = NULL;
    for (const char *q = end; q > text; q--) /* the LAST ')': comm may hold ") (" */
        if (q[-1] == ')') {
            close = q - 1;
            break;
        }
    if (!open || !close || close < open)
        return -EINVAL;
    struct mon_pstat s;
    memset(&s, 0, sizeof s);
    size_t cl = (size_t)(close - open - 1);
    if (cl >= sizeof s.comm)
        cl = sizeof s.comm - 1;
    memcpy(s.comm, open + 1, cl);
    const char *p = skip_blanks(close + 1, end);
    if (p >= end)
        return -EINVAL;
    s.state = *p++;
    s.nfields = 1;
    /* fields 4.. : index k holds field k+4 */
    int64_t f[21];
    int nf = 0;
    while (nf < 21) {
        const char *q = hw_scan_i64(p, end, &f[nf], NULL);
        if (!q)
            break;
        nf++;
        p = q;
    }
    if (nf < 21) /* up to and including rss (field 24) */
        return -EINVAL;
    s.nfields += nf;
    s.ppid = (pid_t)f[0];
    s.pgrp = (pid_t)f[1];
    s.utime = clamp_u(f[10]);
    s.stime = clamp_u(f[11]);
    s.cutime = clamp_u(f[12]);
    s.cstime = clamp_u(f[13]);
    s.threads = clamp_u(f[16]);
    s.starttime = clamp_u(f[18]);
    s.rss_pages = clamp_u(f[20]);
    *out = s;
    return 0;
}

const char *const mon_io_keys[MON_IO_COUNT] = {
    [MON_IO_RCHAR] = "rchar:",           [MON_IO_WCHAR] = "wchar:",
    [MON_IO_SYSCR] = "syscr:",           [MON_IO_SYSCW] = "syscw:",
    [MON_IO_READ_BYTES] = "read_bytes:", [MON_IO_WRITE_BYTES] = "write_bytes:",
    [MON_IO_CANCELLED] = "cancelled_write_bytes:",
};

int mon_parse_pid_io(const char *text, uint64_t out[MON_IO_COUNT])
{
    uint64_t v[MON_IO_COUNT];
    bool have[MON_IO_COUNT];
    for (int k = 0; k < MON_IO_COUNT; k++)
        have[k] = mon_parse_kb_field(text, mon_io_keys[k], &v[k]) == 0; /* "rchar: 123" */
    if (!have[MON_IO_READ_BYTES] || !have[MON_IO_WRITE_BYTES])
        return -EINVAL;
    for (int k = 0; k < MON_IO_COUNT; k++)
        if (have[k])
            out[k] = v[k];
    return 0;
}

/* pread a procfs file from offset 0 into buf (NUL-terminated). A procfs file shorter than a
 * page comes whole in one read (seq_file fills its page-sized buffer before returning), so a
 * short first read is the whole file and the EOF read is saved: this runs several times per
 * sample. Returns the length or -errno. */
ssize_t mon_pread_proc(int fd, char *buf, size_t cap)
{
    ssize_t n;
    do
        n = pread(fd, buf, cap - 1, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    if ((size_t)n < 2048 || (size_t)n == cap - 1) {
        buf[n] = '\0';
        return n;
    }
    return hw_pread_all(fd, buf, cap);
}

bool mon_parse_pid_name(const char *s, pid_t *out)
{
    if (*s < '1' || *s > '9')
        return false;
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > INT_MAX / 10)
            return false;
        v = v * 10 + (*s - '0');
    }
    *out = (pid_t)v;
    return true;
}

int mon_each_pid(int fd, char *buf, size_t cap, void (*fn)(void *arg, pid_t pid), void *arg)
{
    if (lseek(fd, 0, SEEK_SET) < 0)
        return -errno;
    for (;;) {
        ssize_t n = getdents64(fd, buf, cap);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return 0;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
            pid_t pid;
            if (mon_parse_pid_name(d->d_name, &pid))
                fn(arg, pid);
            off += d->d_reclen;
        }
    }
}

/* ---- descriptors ---- */

int mon_open_rel(int dirfd, const char *path)
{
    int fd;
    do
        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

void mon_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}
