/* One GPU sampler per node, job and GPU set (nodelock.h). */
#include "nodelock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/parse.h"

/* A name part: [A-Za-z0-9._-] kept, anything else '_', long ones cut and tagged with a hash. */
static void name_part(char *out, size_t cap, const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a: two long keys that share a prefix differ */
    size_t o = 0;
    for (const char *p = s; *p; p++) {
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
        if (o + 1 < cap && o < 48)
            out[o++] = hw_name_byte(*p) ? *p : '_';
    }
    out[o] = '\0';
    if (strlen(s) > 48)
        snprintf(out + o, cap - o, "-%016llx", (unsigned long long)h);
}

/* Open name in lock_dir as a lock file of ours: created 0600, never through a link, a regular
 * file of this user (else -EPERM), without blocking on a FIFO. */
static int open_lock(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        close(fd);
        return -EPERM;
    }
    return fd;
}

/* Whether fd is still the file at path: a holder that left unlinked it (mon_nodelock_release),
 * so a lock won on the old file guards nothing. */
static bool still_there(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The lock files of this user that no hwmon holds (one SIGKILLed could not remove its own):
 * removed while locked, so that nobody is left holding a file that is gone. */
static void sweep_stale(const char *lock_dir, const char *mine)
{
    DIR *d = opendir(lock_dir);
    if (!d)
        return;
    char prefix[64];
    int pn = snprintf(prefix, sizeof prefix, "hwrun-gpu-%lu-", (unsigned long)geteuid());
    struct dirent *e;
    for (int seen = 0; (e = readdir(d)) && seen < 4096; seen++) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, (size_t)pn) != 0 || n < 5 ||
            strcmp(e->d_name + n - 5, ".lock") != 0)
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", lock_dir, e->d_name) >= (int)sizeof path ||
            !strcmp(path, mine))
            continue;
        int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            continue;
        struct stat st;
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            fcntl(fd, F_SETLK, &fl) == 0 && still_there(fd, path))
            unlink(path);
        close(fd);
    }
    closedir(d);
}

/* Our pid and run directory in the lock file we hold: the line a secondary reads. */
static void record(int fd, const char *run_dir)
{
    char line[PATH_MAX + 32];
    int n = snprintf(line, sizeof line, "%d %s\n", (int)getpid(), run_dir);
    if (ftruncate(fd, 0) == 0 && n > 0)
        (void)!pwrite(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, 0);
}

/* Who holds the lock on fd: the kernel names its pid (F_GETLK; 0 when the holder is in another
 * PID namespace), the file its run directory once the holder has written its line. true when
 * both are known (or the pid cannot be). No allocation: a secondary calls it every interval. */
static bool note_holder(struct mon_nodelock *l, int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type == F_UNLCK)
        return true; /* gone meanwhile: nothing to wait for (the next try may win it) */
    if (fl.l_pid != l->primary_pid) {
        l->primary_pid = fl.l_pid;
        l->primary_dir[0] = '\0';
    }
    if (l->primary_pid <= 0 || l->primary_dir[0])
        return true;
    char buf[PATH_MAX + 32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    int64_t pid = 0;
    char *nl = strchr(buf, '\n');
    const char *at = nl ? hw_scan_i64(buf, nl, &pid, NULL) : NULL;
    if (!at || at >= nl || *at != ' ' || pid != l->primary_pid)
        return false;
    *nl = '\0';
    snprintf(l->primary_dir, sizeof l->primary_dir, "%s", at + 1);
    return true;
}

int mon_nodelock_take(struct mon_nodelock *l, const char *lock_dir, const char *job,
                      const char *gpus, const char *run_dir)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    if (!job || !*job)
        return 0;
    char j[80], g[80];
    name_part(j, sizeof j, job);
    name_part(g, sizeof g, gpus && *gpus ? gpus : "all");
    snprintf(l->path, sizeof l->path, "%s/hwrun-gpu-%lu-%s-%s.lock", lock_dir,
             (unsigned long)geteuid(), j, g);
    sweep_stale(lock_dir, l->path);
    /* the user's own file, never through a link; others' users cannot share it (0600). A
     * POSIX record lock: the kernel names its holder (F_GETLK), which a secondary records even
     * before the holder has written its line, and drops it when the holder ends. A lock won on
     * a file its last holder removed meanwhile is tried again on the new one. */
    int fd = -1;
    struct flock fl;
    for (int tries = 0;; tries++) {
        fd = open_lock(l->path);
        if (fd < 0)
            return fd;
        fl = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (fcntl(fd, F_SETLK, &fl) != 0)
            break;
        if (still_there(fd, l->path) || tries >= 8) { /* the first: we sample the GPUs */
            record(fd, run_dir);
            l->fd = fd;
            return 0;
        }
        close(fd);
    }
    if (errno != EACCES && errno != EAGAIN) {
        int e = errno;
        close(fd);
        return -e;
    }
    l->secondary = true;
    /* its run directory: the line it writes right after locking (a few ms at most) */
    for (int tries = 0; tries < 40 && !note_holder(l, fd); tries++)
        usleep(5000);
    close(fd);
    return 0;
}

int mon_nodelock_try(struct mon_nodelock *l, const char *run_dir)
{
    if (!l->secondary)
        return 0;
    /* as the take: a lock won on a file that its last holder removed meanwhile is tried again
     * on the new one (a holder that leaves unlinks it while still holding it) */
    for (int tries = 0; tries < 8; tries++) {
        int fd = open_lock(l->path);
        if (fd < 0)
            return fd;
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int e = errno;
            if (e == EACCES || e == EAGAIN)
                (void)note_holder(l, fd); /* still held: by whom, now */
            close(fd);
            return e == EACCES || e == EAGAIN ? 0 : -e;
        }
        if (still_there(fd, l->path)) {
            l->prev_pid = l->primary_pid;
            memcpy(l->prev_dir, l->primary_dir, sizeof l->prev_dir);
            record(fd, run_dir);
            l->fd = fd;
            l->secondary = false;
            l->primary_pid = getpid();
            snprintf(l->primary_dir, sizeof l->primary_dir, "%s", run_dir);
            return 1;
        }
        close(fd);
    }
    return 0;
}

void mon_nodelock_release(struct mon_nodelock *l)
{
    if (l->fd >= 0) {
        /* removed while still locked: nothing of the job is left in /dev/shm; an hwmon that
         * opened it meanwhile finds it gone once it wins the lock, and takes a new one */
        if (still_there(l->fd, l->path))
            unlink(l->path);
        close(l->fd);
        l->fd = -1;
    }
}
