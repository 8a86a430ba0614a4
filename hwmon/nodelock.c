/* One GPU sampler per node, job and GPU set (nodelock.h). */
#include "nodelock.h"

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
    /* the user's own file, never through a link; others' users cannot share it (0600) */
    int fd = open(l->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        close(fd);
        return -EPERM;
    }
    /* a POSIX record lock: the kernel names its holder (F_GETLK), which a secondary records
     * even before the holder has written its line, and drops it when the holder ends */
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &fl) == 0) { /* the first: we sample the GPUs */
        char line[PATH_MAX + 32];
        int n = snprintf(line, sizeof line, "%d %s\n", (int)getpid(), run_dir);
        if (ftruncate(fd, 0) == 0 && n > 0)
            (void)!pwrite(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, 0);
        l->fd = fd;
        return 0;
    }
    if (errno != EACCES && errno != EAGAIN) {
        int e = errno;
        close(fd);
        return -e;
    }
    l->secondary = true;
    fl = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
        l->primary_pid = fl.l_pid; /* 0 when the holder is in another PID namespace */
    /* its run directory: the line it writes right after locking (a few ms at most) */
    for (int tries = 0; tries < 40 && l->primary_pid > 0; tries++) {
        char buf[PATH_MAX + 32];
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        if (n > 0) {
            buf[n] = '\0';
            int64_t pid = 0;
            char *nl = strchr(buf, '\n');
            const char *at = nl ? hw_scan_i64(buf, nl, &pid, NULL) : NULL;
            if (at && at < nl && *at == ' ' && pid == l->primary_pid) {
                *nl = '\0';
                snprintf(l->primary_dir, sizeof l->primary_dir, "%s", at + 1);
                break;
            }
        }
        usleep(5000);
    }
    close(fd);
    return 0;
}

void mon_nodelock_release(struct mon_nodelock *l)
{
    if (l->fd >= 0) {
        close(l->fd); /* the lock goes with it; the file stays for the job's next hwmon */
        l->fd = -1;
    }
}
