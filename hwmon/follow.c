/* Following run.jsonl for edge samples: see follow.h. */
#include "follow.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

static void on_begin(void *ctx, const struct rd_phase *p)
{
    (void)p;
    struct mon_follow *f = ctx;
    f->news.begins++;
}

static void on_end(void *ctx, const struct rd_phase *p)
{
    struct mon_follow *f = ctx;
    f->news.ends++;
    if (p->seconds > f->news.longest_end_s)
        f->news.longest_end_s = p->seconds;
}

int mon_follow_open(struct mon_follow *f, int fd)
{
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->ifd = -1;
    if (fd < 0) /* read from where fd is: the job may have begun a phase before we watch */
        return -EBADF;
    /* the magic link names the very file hwmon opened, whatever happens to the name */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ifd < 0)
        return -errno;
    if (inotify_add_watch(ifd, path, IN_MODIFY) < 0) {
        int e = errno;
        close(ifd);
        return -e;
    }
    f->opts.max_line = 65536; /* a phase line longer than that is not one of ours to time */
    f->sink = (struct rd_sink){.ctx = f, .phase = on_end, .phase_begin = on_begin};
    f->r = rd_reader_new(HW_FILE_RUNLOG, "run.jsonl", &f->opts, &f->sink, &f->q);
    if (!f->r) {
        close(ifd);
        return -ENOMEM;
    }
    f->ifd = ifd;
    return 0;
}

void mon_follow_close(struct mon_follow *f)
{
    if (f->ifd >= 0)
        close(f->ifd);
    f->ifd = -1;
    rd_reader_free(f->r);
    f->r = NULL;
}

void mon_follow_read(struct mon_follow *f, struct mon_follow_news *news)
{
    memset(&f->news, 0, sizeof f->news);
    if (f->ifd >= 0) {
        char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        while (read(f->ifd, ev, sizeof ev) > 0)
            ; /* which events does not matter: the file grew */
        for (;;) {
            ssize_t n = read(f->fd, f->chunk, sizeof f->chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            rd_reader_feed(f->r, f->chunk, (size_t)n);
        }
    }
    *news = f->news;
}
