/* Disk and network traffic and free space (see sysio.h). After sysstat's rd_stats.c
 * (read_diskstats_disk, read_net_dev): one read of the file, a line per device, counters kept
 * per device so that one device's reset cannot make the sum go backwards. */
#include "sysio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "procread.h"

/* ---- parsers ---- */

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* An unsigned counter at p (after blanks) that ends at a blank or the line's end. */
static const char *parse_u64(const char *p, const char *end, uint64_t *out)
{
    int64_t v;
    const char *q = hw_scan_i64(p, end, &v, NULL);
    if (!q || v < 0 || (q < end && *q != ' ' && *q != '\t' && *q != '\n'))
        return NULL;
    *out = (uint64_t)v;
    return q;
}

static bool copy_name(const char *s, size_t n, char name[MON_SYSIO_NAME])
{
    if (n == 0 || n >= MON_SYSIO_NAME)
        return false;
    memcpy(name, s, n);
    name[n] = '\0';
    return true;
}

int mon_parse_diskstats_line(const char *line, size_t len, char name[MON_SYSIO_NAME],
                             uint64_t *rd_sectors, uint64_t *wr_sectors)
{
    const char *end = line + len, *p = line;
    uint64_t v[7];
    if (!(p = parse_u64(p, end, &v[0])) || !(p = parse_u64(p, end, &v[0])))
        return -EINVAL; /* major, minor */
    p = skip_ws(p, end);
    const char *s = p;
    while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
        p++;
    if (!copy_name(s, (size_t)(p - s), name))
        return -EINVAL;
    /* reads, reads merged, sectors read, ms reading, writes, writes merged, sectors written */
    for (int i = 0; i < 7; i++)
        if (!(p = parse_u64(p, end, &v[i])))
            return -EINVAL;
    *rd_sectors = v[2];
    *wr_sectors = v[6];
    return 0;
}

int mon_parse_netdev_line(const char *line, size_t len, char name[MON_SYSIO_NAME], uint64_t *rx,
                          uint64_t *tx)
{
    const char *end = line + len;
    const char *colon = memchr(line, ':', len);
    if (!colon)
        return -EINVAL;
    const char *s = skip_ws(line, colon);
    if (!copy_name(s, (size_t)(colon - s), name) || strchr(name, ' ') || strchr(name, '|'))
        return -EINVAL;
    const char *p = colon + 1;
    uint64_t v[9];
    for (int i = 0; i < 9; i++)
        if (!(p = parse_u64(p, end, &v[i])))
            return -EINVAL;
    *rx = v[0];
    *tx = v[8];
    return 0;
}

/* ---- the sampler ---- */

static bool is_memory_disk(const char *name)
{
    return strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0 ||
           strncmp(name, "zram", 4) == 0;
}

/* Whether dir/name/slaves has an entry: a device stacked on others (dm-*, md*). */
static bool stacked(int blockfd, const char *name)
{
    char rel[MON_SYSIO_NAME + 16];
    snprintf(rel, sizeof rel, "%s/slaves", name);
    int fd = openat(blockfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return false;
    }
    bool any = false;
    for (struct dirent *e; !any && (e = readdir(d));)
        any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return any;
}

static struct mon_counter *find(struct mon_counters *cs, const char *name)
{
    for (size_t i = 0; i < cs->n; i++)
        if (strcmp(cs->c[i].name, name) == 0)
            return &cs->c[i];
    return NULL;
}

static int add(struct mon_counters *cs, const char *name)
{
    if (!hw_grow(&cs->c, &cs->cap, cs->n, sizeof *cs->c, 16))
        return -ENOMEM;
    struct mon_counter *c = &cs->c[cs->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return 0;
}

/* The whole disks under <sys_root>/sys/block. */
static int list_disks(struct mon_sysio *io, const char *sys_root)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/sys/block", strcmp(sys_root, "/") ? sys_root : "");
    if (n < 0 || (size_t)n >= sizeof path)
        return 0;
    int bfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (bfd < 0)
        return 0; /* no /sys: disks unmeasured */
    int dup_fd = dup(bfd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        close(bfd);
        return 0;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        const char *nm = e->d_name;
        if (nm[0] == '.' || strlen(nm) >= MON_SYSIO_NAME || is_memory_disk(nm) || stacked(bfd, nm))
            continue;
        rc = add(&io->disk, nm);
    }
    closedir(d);
    close(bfd);
    return rc;
}

static int open_proc(const char *root, const char *name)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", root, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    return open(path, O_RDONLY | O_CLOEXEC);
}

int mon_sysio_open(struct mon_sysio *io, const char *proc_root, const char *sys_root,
                   const char *fs_dir)
{
    memset(io, 0, sizeof *io);
    io->diskstats_fd = io->netdev_fd = io->fs_fd = -1;
    int rc = 0;
    if (sys_root) {
        io->diskstats_fd = open_proc(proc_root, "diskstats");
        if (io->diskstats_fd >= 0)
            rc = list_disks(io, sys_root);
        if (io->disk.n == 0 && io->diskstats_fd >= 0) { /* nothing to count */
            close(io->diskstats_fd);
            io->diskstats_fd = -1;
        }
    }
    io->netdev_fd = open_proc(proc_root, "net/dev");
    /* room for a few hundred interfaces (a node full of pods' veths); more are not counted */
    if (rc == 0 && io->netdev_fd >= 0 && (io->net.c = calloc(512, sizeof *io->net.c)))
        io->net.cap = 512;
    else if (rc == 0 && io->netdev_fd >= 0)
        rc = -ENOMEM;
    if (fs_dir)
        io->fs_fd = open(fs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    io->buf_cap = 256 * 1024;
    if (rc == 0 && !(io->buf = malloc(io->buf_cap)))
        rc = -ENOMEM;
    if (rc < 0)
        mon_sysio_close(io);
    return rc;
}

void mon_sysio_close(struct mon_sysio *io)
{
    int *fds[] = {&io->diskstats_fd, &io->netdev_fd, &io->fs_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    free(io->disk.c);
    free(io->net.c);
    free(io->buf);
    io->disk = io->net = (struct mon_counters){0};
    io->buf = NULL;
}

/* Add a reading of one device to sum[2]. */
static void count(struct mon_counter *c, uint64_t a, uint64_t b, uint64_t sum[2])
{
    if (c->have) {
        sum[0] += mon_counter_delta(c->v[0], a);
        sum[1] += mon_counter_delta(c->v[1], b);
    }
    c->v[0] = a;
    c->v[1] = b;
    c->have = true;
}

/* Read fd and count each whole line's device. net: /proc/net/dev (names added as first seen),
 * else /proc/diskstats (only the disks listed at open). false when the file was unreadable. */
static bool read_counters(struct mon_sysio *io, int fd, bool net, uint64_t sum[2])
{
    ssize_t n = mon_pread_proc(fd, io->buf, io->buf_cap);
    if (n <= 0)
        return false;
    struct mon_counters *cs = net ? &io->net : &io->disk;
    const char *p = io->buf, *end = io->buf + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break; /* a line cut by a full buffer is not counted: a partial number is wrong */
        char name[MON_SYSIO_NAME];
        uint64_t a, b;
        int rc = net ? mon_parse_netdev_line(p, (size_t)(nl - p), name, &a, &b)
                     : mon_parse_diskstats_line(p, (size_t)(nl - p), name, &a, &b);
        p = nl + 1;
        if (rc < 0 || (net && strcmp(name, "lo") == 0))
            continue;
        struct mon_counter *c = find(cs, name);
        if (!c && net && cs->n < cs->cap) { /* nothing allocated: cap was reserved at open */
            c = &cs->c[cs->n++];
            memset(c, 0, sizeof *c);
            memcpy(c->name, name, sizeof c->name);
        }
        if (c)
            count(c, a, b, sum);
    }
    return true;
}

void mon_sysio_sample(struct mon_sysio *io, struct mon_io_sample *out)
{
    memset(out, 0, sizeof *out);
    uint64_t d[2] = {0, 0}, nt[2] = {0, 0};
    bool disk = io->diskstats_fd >= 0 && read_counters(io, io->diskstats_fd, false, d);
    bool net = io->netdev_fd >= 0 && io->net.c && read_counters(io, io->netdev_fd, true, nt);
    if (io->primed) {
        out->have_disk = disk;
        out->disk_read_bytes = d[0] * 512;
        out->disk_write_bytes = d[1] * 512;
        out->have_net = net;
        out->net_rx_bytes = nt[0];
        out->net_tx_bytes = nt[1];
    }
    io->primed = true;
    struct statvfs vfs;
    if (io->fs_fd >= 0 && fstatvfs(io->fs_fd, &vfs) == 0) {
        out->have_fs = true;
        out->fs_free_mib = (double)vfs.f_bavail * (double)vfs.f_frsize / 1048576.0;
    }
}

size_t mon_sysio_fds(const struct mon_sysio *io, int *fds, size_t cap)
{
    size_t n = 0;
    if (io->diskstats_fd >= 0 && n < cap)
        fds[n++] = io->diskstats_fd;
    if (io->netdev_fd >= 0 && n < cap)
        fds[n++] = io->netdev_fd;
    return n;
}
