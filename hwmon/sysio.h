/* The machine's disk and network traffic and the output directory's free space, per sample.
 *
 * Disks: /proc/diskstats, whole disks only: the names in /sys/block when hwmon starts, less
 * loop*, ram* and zram* (memory, not storage) and stacked devices (those with entries in
 * /sys/block/DEV/slaves: device-mapper, md RAID), whose I/O is counted again on the disks
 * under them. Sectors are 512 bytes whatever the device's own sector size. Network:
 * /proc/net/dev, every interface but lo. Free space: fstatvfs of the output directory,
 * f_bavail (what df calls Avail: what the job may still write).
 *
 * Counters are kept per device, and a counter that went down (a device removed and added
 * again, an interface recreated, a 32-bit counter that wrapped) counts its new value for that
 * interval: never negative, never more than it counted since it restarted. A device first
 * seen after the first sample (a new interface) starts from its second sample. */
#ifndef HWMON_SYSIO_H
#define HWMON_SYSIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MON_SYSIO_NAME 32 /* device names longer than this are not counted */

/* ---- parsers ---- */

/* One line of /proc/diskstats ("   8   0 sda 1 2 3 4 5 6 7 ..."): the name and the sectors
 * read and written (the 3rd and 7th numbers after the name). Returns 0 or -EINVAL. */
int mon_parse_diskstats_line(const char *line, size_t len, char name[MON_SYSIO_NAME],
                             uint64_t *rd_sectors, uint64_t *wr_sectors);

/* One interface line of /proc/net/dev ("  eth0: 123 4 0 0 0 0 0 0 456 ..."): the name and the
 * bytes received and sent (the 1st and 9th numbers). Returns 0 or -EINVAL (a header line). */
int mon_parse_netdev_line(const char *line, size_t len, char name[MON_SYSIO_NAME], uint64_t *rx,
                          uint64_t *tx);

/* What a counter added between two readings: cur - prev, or cur when it went down (reset). */
static inline uint64_t mon_counter_delta(uint64_t prev, uint64_t cur)
{
    return cur >= prev ? cur - prev : cur;
}

/* ---- the sampler ---- */

struct mon_counter {
    char name[MON_SYSIO_NAME];
    uint64_t v[2]; /* at the last reading that saw it */
    bool have;     /* v holds a reading */
};

struct mon_counters {
    struct mon_counter *c;
    size_t n, cap; /* allocated at open: nothing grows while sampling */
};

struct mon_sysio {
    int diskstats_fd, netdev_fd, fs_fd;
    struct mon_counters disk, net;
    bool primed; /* a first reading was taken */
    char *buf;   /* for /proc/diskstats and /proc/net/dev */
    size_t buf_cap;
};

struct mon_io_sample {
    bool have_disk, have_net, have_fs;
    uint64_t disk_read_bytes, disk_write_bytes; /* since the previous sample */
    uint64_t net_rx_bytes, net_tx_bytes;
    double fs_free_mib;
};

/* Open <proc_root>/diskstats and <proc_root>/net/dev, list the whole disks under
 * <sys_root>/sys/block (sys_root NULL: no disks), and open fs_dir (NULL: no free space). A
 * file missing leaves its figures unmeasured. Returns 0 or -ENOMEM. */
int mon_sysio_open(struct mon_sysio *io, const char *proc_root, const char *sys_root,
                   const char *fs_dir);
void mon_sysio_close(struct mon_sysio *io);

/* Read everything; the first call only sets the baselines (have_disk, have_net false). */
void mon_sysio_sample(struct mon_sysio *io, struct mon_io_sample *out);

/* The descriptors read per sample (benchmarks: the same preads without the parsing). */
size_t mon_sysio_fds(const struct mon_sysio *io, int *fds, size_t cap);

#endif
