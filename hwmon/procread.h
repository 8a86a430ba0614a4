/* Reading /proc, cgroup and sysfs text for hwmon: the parsers of /proc's files, the one integer
 * parser every /proc, cgroup and sysfs number goes through, and the descriptor helpers.
 *
 * Parsers work on text already read (so tests feed them fixtures); readers keep descriptors
 * open and pread them at offset 0, which is 2-5x cheaper than reopening. Nothing here
 * allocates, prints or exits: functions return 0 or a negative errno. */
#ifndef HWMON_PROCREAD_H
#define HWMON_PROCREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwrun/parse.h" /* hw_scan_i64: the one integer parser */

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
    uint64_t sreclaimable_kb; /* SReclaimable (since Linux 2.6.19), with have_sreclaimable */
    bool have_sreclaimable;
};
int mon_parse_meminfo(const char *text, struct mon_meminfo *out);

/* The number of a "Key:   123 kB" line (status, smaps_rollup, meminfo: kB) or a "key: 123"
 * line (/proc/PID/io). key includes the colon. Returns 0 or -ENOENT. */
int mon_parse_kb_field(const char *text, const char *key, uint64_t *out_kb);

/* /proc/PID/stat. comm may contain anything, including ") (" and newlines: it runs from the
 * first '(' to the LAST ')'. Fields a kernel does not print stay 0 (nfields says how many
 * fields after comm were read). Returns 0 or -EINVAL (fewer than the fields up to rss). */
struct mon_pstat {
    char comm[64];
    char state;
    pid_t ppid, pgrp;
    uint64_t utime, stime, cutime, cstime; /* clock ticks */
    uint64_t threads;
    uint64_t starttime;
    uint64_t rss_pages;
    int nfields;
};
int mon_parse_pid_stat(const char *text, size_t len, struct mon_pstat *out);

/* A /proc entry's name as a pid: digits only, no leading 0, within int. */
bool mon_parse_pid_name(const char *s, pid_t *out);

/* Calls fn(arg, pid) for each pid-named entry of directory fd (/proc, or a process's task/),
 * read from its start with getdents64 into buf[cap]: the one walk of /proc, no allocation.
 * Returns 0 or -errno. */
int mon_each_pid(int fd, char *buf, size_t cap, void (*fn)(void *arg, pid_t pid), void *arg);

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

/* close(*fd) when it is open, and mark it closed (-1). */
void mon_close_fd(int *fd);

/* pread a small procfs, sysfs or cgroup file from offset 0 into buf, NUL-terminated: one read
 * for a file shorter than 2 KiB (seq_file fills a page before returning). Returns the length
 * or -errno. */
ssize_t mon_pread_proc(int fd, char *buf, size_t cap);

/* Open path relative to dirfd, read-only, close-on-exec; the descriptor or -errno. */
int mon_open_rel(int dirfd, const char *path);

/* How many CPU ticks passed between two readings; 0 when the count went back (a pid reused). */
static inline uint64_t mon_ticks_delta(uint64_t now, uint64_t before)
{
    return now >= before ? now - before : 0;
}

#endif
