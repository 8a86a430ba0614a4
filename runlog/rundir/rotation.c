/* A run log that was rotated while the run went on (logrotate, a job's own handler).
 *
 * Followers (hwmon's edge samples, the live state) keep to the name, as tail -F does:
 * rd_log_moved says when the name reaches another file or the file was cut short.
 *
 * Readers of a finished run find the earlier lines in other files of the same directory,
 * named at the head of the one after them. librunlog writes a log_continued event
 * first into a run.jsonl it makes again (rl_follow), hwmon a log_rotated event once it has seen
 * the rotation (follow.h); both say "previous". Those parts are read first, oldest first, each
 * under its own name (a diagnostic names the file and line it is about), as one run. */
#include "reader_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/rundir.h"

#define PARTS_MAX 64          /* a rotation every sample interval of a long run stops here */
#define HEAD_BYTES (1u << 20) /* where the naming event must be: hwmon says it within a sample */

/* The earlier part a log's head names (its name in buf), or NULL. Only a plain name in the same
 * directory: a path, "." or ".." would lead out of the run. */
static const char *previous_part(int fd, char *buf, size_t cap)
{
    static const char *const keys[] = {"\"event\": \"" HW_EV_LOG_CONTINUED "\"",
                                       "\"event\": \"" HW_EV_LOG_ROTATED "\""};
    char chunk[16384]; /* a naming line is short; a longer one is skipped */
    size_t have = 0;
    for (off_t off = 0; off < HEAD_BYTES;) {
        ssize_t n = pread(fd, chunk + have, sizeof chunk - 1 - have, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NULL;
        off += n;
        have += (size_t)n;
        chunk[have] = '\0';
        char *line = chunk, *nl;
        while ((nl = memchr(line, '\n', have - (size_t)(line - chunk)))) {
            *nl = '\0';
            bool naming = strstr(line, keys[0]) || strstr(line, keys[1]);
            struct json_object *o = naming ? json_tokener_parse(line) : NULL, *data, *v, *how;
            const char *p = NULL;
            if (o && json_object_object_get_ex(o, HW_RL_DATA, &data) &&
                json_object_object_get_ex(data, HW_LOG_PREVIOUS, &v) &&
                json_object_is_type(v, json_type_string) &&
                (!json_object_object_get_ex(data, HW_LOG_HOW, &how) ||
                 !strcmp(json_object_get_string(how), HW_LOG_HOW_RENAMED)))
                p = json_object_get_string(v);
            if (p && *p && !strchr(p, '/') && strcmp(p, ".") && strcmp(p, "..") &&
                strlen(p) < cap) {
                snprintf(buf, cap, "%s", p);
                json_object_put(o);
                return buf;
            }
            json_object_put(o);
            line = nl + 1;
        }
        size_t rest = have - (size_t)(line - chunk);
        if (rest == sizeof chunk - 1)
            rest = 0; /* a line longer than the chunk names nothing: skip it */
        memmove(chunk, line, rest);
        have = rest;
    }
    return NULL;
}

int rd_log_moved(int dirfd, const char *name, int fd, struct rd_log_move *m)
{
    struct stat cur, at;
    off_t pos = lseek(fd, 0, SEEK_CUR);
    memset(m, 0, sizeof *m);
    m->fd = -1;
    if (fstat(fd, &cur) < 0 || pos < 0 || fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW) < 0)
        return RD_LOG_SAME; /* missing: renamed or deleted, not made again yet */
    m->bytes = (uint64_t)pos;
    if (at.st_dev == cur.st_dev && at.st_ino == cur.st_ino) {
        if (cur.st_size >= pos)
            return RD_LOG_SAME;
        (void)lseek(fd, 0, SEEK_SET);
        m->how = HW_LOG_HOW_TRUNCATED;
        return RD_LOG_TRUNCATED;
    }
    if (!S_ISREG(at.st_mode))
        return RD_LOG_SAME; /* a link or a FIFO put there is no log of ours to read */
    m->fd = hw_open_file(dirfd, name, HW_OPEN_READ);
    if (m->fd < 0)
        return RD_LOG_SAME;
    m->how = cur.st_nlink == 0 ? HW_LOG_HOW_DELETED : HW_LOG_HOW_RENAMED;
    m->previous = hw_fd_whereabouts(fd, dirfd, m->buf, sizeof m->buf);
    return RD_LOG_REPLACED;
}

static int feed(void *r, const void *buf, size_t n)
{
    return rd_reader_feed(r, buf, n);
}

void rd_quality_add(struct rd_quality *q, const struct rd_quality *p)
{
    q->bytes += p->bytes;
    q->lines += p->lines;
    q->parsed += p->parsed;
    q->headers += p->headers;
    q->blank += p->blank;
    for (int k = 0; k < RD_SKIP_COUNT; k++)
        q->skipped[k] += p->skipped[k];
    q->bad_cells += p->bad_cells;
    /* a part that ends inside a line lost the rest of it: torn, not "not yet written" */
    q->torn += p->torn + (p->partial_last ? 1 : 0);
    q->oom |= p->oom;
}

void rd_reader_set_line_base(struct rd_reader *r, uint64_t base)
{
    r->line_base = base;
}

unsigned rd_log_read_parts(const char *path, int fd, const struct rd_read_opts *opts,
                           const struct rd_sink *sink, struct rd_quality *q, uint64_t *lines)
{
    *lines = 0;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
             slash ? path : ".");
    int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return 0;
    int fds[PARTS_MAX];
    char names[PARTS_MAX][256];
    struct stat seen[PARTS_MAX + 1];
    unsigned n = 0;
    bool ok = fstat(fd, &seen[0]) == 0;
    for (int cur = fd; ok && n < PARTS_MAX && previous_part(cur, names[n], sizeof names[n]);) {
        int pfd = hw_open_file(dirfd, names[n], HW_OPEN_READ);
        bool loop = pfd < 0 || fstat(pfd, &seen[n + 1]) < 0;
        for (unsigned i = 0; !loop && i <= n; i++)
            loop = seen[i].st_dev == seen[n + 1].st_dev && seen[i].st_ino == seen[n + 1].st_ino;
        if (loop) {
            if (pfd >= 0)
                close(pfd);
            break;
        }
        fds[n++] = cur = pfd;
    }
    for (unsigned i = n; i-- > 0;) { /* oldest first */
        char name[4352];
        snprintf(name, sizeof name, "%s/%s", dir, names[i]);
        struct rd_quality pq;
        struct rd_reader *r = rd_reader_new(HW_FILE_RUNLOG, name, opts, sink, &pq);
        if (r) {
            r->line_base = *lines;
            int rc = hw_read_stream(fds[i], feed, r);
            if (rc == 0)
                rd_reader_finish(r);
            pq.oom |= rc == -ENOMEM;
            *lines += pq.lines + (pq.partial_last ? 1 : 0);
            rd_quality_add(q, &pq);
        } else {
            q->oom = true; /* the part is not read: said, not skipped */
        }
        rd_reader_free(r);
        close(fds[i]);
    }
    close(dirfd);
    return n;
}
