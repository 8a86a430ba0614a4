/* The file systems the job can write and their space, resource-tracker's disk space for every
 * mount, not only the output directory's (the fs_free_mib column): hwmon records them in its
 * start and stop events. A mount counts when it is mounted read-write, stores data (not proc,
 * sysfs, cgroup, devpts and the like, nor anything under /proc or /sys; tmpfs counts: /dev/shm
 * full is a DataLoader crash), is a directory (not a file bind-mounted into a container), has
 * blocks, and is the first mount of its file system (bind mounts of one device count once).
 * Whether the job may write at the mount point itself is not asked: a user cannot write / but
 * writes /tmp and $HOME on it. */
#ifndef MON_FSSPACE_H
#define MON_FSSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"

#define MON_FS_MAX 32

struct mon_fs {
    char mount[256];
    char type[32];
    double total_mib, used_mib, free_mib; /* free: what an unprivileged writer may still use */
    dev_t dev;
};

/* One line of /proc/PID/mounts ("dev mountpoint type options 0 0"; octal escapes such as \040
 * in the mount point undone): the mount point, type and whether the options say rw. Returns 0
 * or -EINVAL. */
int mon_parse_mounts_line(const char *line, size_t len, char *mount, size_t mcap, char *type,
                          size_t tcap, bool *rw);

/* Whether a file system type stores data (false for proc, sysfs, cgroup, devpts, ...). */
bool mon_fs_type_stores_data(const char *type);

/* The read-write data file systems listed in <proc_root>/self/mounts, at most cap. Returns
 * how many, or -errno when the list cannot be read. */
int mon_fs_list(const char *proc_root, struct mon_fs *out, int cap);

/* The space of fs now (statvfs of its mount point). Returns 0 or -errno. */
int mon_fs_space(struct mon_fs *fs);

/* fs[0..n) as a JSON array of {mount, fstype, total_mib, used_mib, free_mib}. */
void mon_fs_json(const struct mon_fs *fs, int n, struct hw_buf *b);

#endif
