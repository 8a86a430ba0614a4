/* The tree's shared resident memory counted once per mapped path, as gpu_tracker counts it
 * (hwmon --shared-once): each mapping of /proc/PID/smaps gives its Shared_Clean + Shared_Dirty,
 * and a path (anonymous mappings are one path, "[anon]") counts the most any one mapping of it
 * holds, over the main process, over its descendants, and over both. smaps_rollup's Shared_*
 * adds every process's pages instead: three forked workers sharing 300 MiB with their parent
 * say 1200 there and 300 here. The rollup is still read beside it (proctree.c): a PSS summed from
 * smaps is short, each mapping's rounded down to a kB (DESIGN.md). */
#ifndef HWMON_SHAREDONCE_H
#define HWMON_SHAREDONCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mon_so_group { MON_SO_MAIN, MON_SO_DESC, MON_SO_ALL, MON_SO_COUNT };

struct mon_so_entry;

/* Kept from sample to sample (the table and the path store are reused: no allocation once the
 * job's paths are known). */
struct mon_shared_once {
    struct mon_so_entry *tab; /* open addressing, a power of two */
    size_t cap, used;
    char *names; /* the paths, each NUL-ended */
    size_t names_len, names_cap;
    uint32_t gen; /* the sample an entry's maxima belong to */
    uint64_t kb[MON_SO_COUNT];
    bool any[MON_SO_COUNT];
    unsigned long reads; /* smaps files read (tests) */
};

void mon_so_init(struct mon_shared_once *so);
void mon_so_free(struct mon_shared_once *so);
/* A new sample: every path's maxima start again from nothing. */
void mon_so_begin(struct mon_shared_once *so);
/* Read one process's smaps (fd open on /proc/PID/smaps, read from its start); main: the tracked
 * process itself, else a descendant. 0, or -errno (the process gone: nothing counted;
 * -ENODATA: nothing to read, as an fd opened before the process's exec reads). */
int mon_so_add(struct mon_shared_once *so, int fd, bool main);
/* Feed smaps text directly (tests, fuzzers): len bytes, a whole file. */
int mon_so_add_text(struct mon_shared_once *so, const char *text, size_t len, bool main);

#endif
