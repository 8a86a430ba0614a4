/* Following run.jsonl for edge samples: see follow.h. */
#include "follow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/rundir.h"

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a; 0 is a free slot */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ? h : 1;
}

static int find(const uint64_t *a, uint64_t h)
{
    for (int i = 0; i < MON_FOLLOW_NAMES; i++)
        if (a[i] == h)
            return i;
    return -1;
}

/* A phase whose name none of the last MON_FOLLOW_NAMES phases begun had is fresh: in a step loop,
 * the checkpoint every so many steps (not the steps, nor a cycle of forward, backward and
 * optimizer phases); its end is fresh too, so that the sampler reads both its edges. */
static void on_begin(void *ctx, const struct rd_phase *p)
{
    struct mon_follow *f = ctx;
    f->news.begins++;
    uint64_t h = name_hash(p->name);
    bool fresh = find(f->recent, h) < 0;
    f->recent[f->recent_next++ % MON_FOLLOW_NAMES] = h;
    if (!fresh)
        return;
    f->news.fresh_begins++;
    if (find(f->open_fresh, h) < 0)
        f->open_fresh[f->open_next++ % MON_FOLLOW_NAMES] = h;
}

static void on_end(void *ctx, const struct rd_phase *p)
{
    struct mon_follow *f = ctx;
    f->news.ends++;
    if (p->seconds > f->news.longest_end_s)
        f->news.longest_end_s = p->seconds;
    int k = find(f->open_fresh, name_hash(p->name));
    if (k >= 0) {
        f->open_fresh[k] = 0;
        f->news.fresh_ends++;
    }
}

/* A fresh reader: a file read from its start has no half line of the old one before it. */
static int new_reader(struct mon_follow *f)
{
    rd_reader_free(f->r);
    f->r = rd_reader_new(HW_FILE_RUNLOG, HW_RUNLOG_FILE, &f->opts, &f->sink, &f->q);
    return f->r ? 0 : -ENOMEM;
}

/* The watch on fd's file: it grew (IN_MODIFY; a truncation is one too), or lost its name
 * (moved, deleted: IN_ATTRIB as its link count falls). The magic link names the very file. */
static int watch_file(struct mon_follow *f)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", f->fd);
    f->wd = inotify_add_watch(f->ifd, path, IN_MODIFY | IN_MOVE_SELF | IN_DELETE_SELF | IN_ATTRIB);
    return f->wd < 0 ? -errno : 0;
}

int mon_follow_open(struct mon_follow *f, int fd, int dirfd, const char *name)
{
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->dirfd = dirfd;
    f->name = name;
    f->ifd = -1;
    if (fd < 0) /* read from where fd is: the job may have begun a phase before we watch */
        return -EBADF;
    f->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    int rc = f->ifd < 0 ? -errno : watch_file(f);
    if (rc == 0 && dirfd >= 0) { /* the name made again in the directory */
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", dirfd);
        (void)inotify_add_watch(f->ifd, path, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
    }
    f->opts.max_line = 65536; /* a phase line longer than that is not one of ours to time */
    f->sink = (struct rd_sink){.ctx = f, .phase = on_end, .phase_begin = on_begin};
    if (rc == 0)
        rc = new_reader(f);
    if (rc < 0) {
        if (f->ifd >= 0)
            close(f->ifd);
        f->ifd = -1;
    }
    return rc;
}

void mon_follow_close(struct mon_follow *f)
{
    if (f->ifd >= 0)
        close(f->ifd);
    f->ifd = -1;
    if (f->own_fd)
        close(f->fd);
    f->own_fd = false;
    rd_reader_free(f->r);
    f->r = NULL;
}

static void drain(struct mon_follow *f)
{
    for (;;) {
        ssize_t n = read(f->fd, f->chunk, sizeof f->chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (f->r)
            rd_reader_feed(f->r, f->chunk, (size_t)n);
    }
}

/* Keep to the name (rd_log_moved): the file truncated in place is read again from its start,
 * another file under the name (the old one read to its end by now) from its start. */
static void keep_to_name(struct mon_follow *f)
{
    struct rd_log_move m;
    int k = rd_log_moved(f->dirfd, f->name, f->fd, &m);
    if (k == RD_LOG_SAME)
        return;
    f->news.rotated = m.how;
    f->news.bytes = m.bytes;
    if (k == RD_LOG_REPLACED) {
        snprintf(f->previous, sizeof f->previous, "%s", m.previous ? m.previous : "");
        f->news.previous = m.previous ? f->previous : NULL;
        if (f->wd >= 0)
            (void)inotify_rm_watch(f->ifd, f->wd); /* gone already when the file was deleted */
        if (f->own_fd)
            close(f->fd);
        f->fd = m.fd;
        f->own_fd = true;
        (void)watch_file(f);
    }
    if (new_reader(f) == 0)
        drain(f);
}

void mon_follow_read(struct mon_follow *f, struct mon_follow_news *news)
{
    memset(&f->news, 0, sizeof f->news);
    if (f->ifd >= 0) {
        char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        while (read(f->ifd, ev, sizeof ev) > 0)
            ; /* which events does not matter: the file grew or the name moved */
        drain(f);
        if (f->dirfd >= 0)
            keep_to_name(f);
    }
    *news = f->news;
}
