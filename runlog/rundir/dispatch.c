/* The top of the readers: a file kind picks its line parser from one table, over the reader
 * core (reader_core.c); rd_read_file feeds a whole file in chunks. */
#include "reader_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"

/* Each kind's line parser (read_*.c). */
static void (*const kind_init[HW_FILE_COUNT])(struct rd_reader *r) = {
#define READER_OF(ID, name, reader, stage, optional, normal, opt, what)                            \
    [HW_FILE_##ID] = rd_##reader##_init,
    HW_RUN_FILES(READER_OF)
#undef READER_OF
};

struct rd_reader *rd_reader_new(enum hw_file kind, const char *name,
                                  const struct rd_read_opts *opts, const struct rd_sink *sink,
                                  struct rd_quality *q)
{
    if ((unsigned)kind >= HW_FILE_COUNT) {
        memset(q, 0, sizeof *q);
        return NULL;
    }
    struct rd_reader *r =
        rd_reader_alloc(kind, name ? name : hw_file_names[kind], opts, sink, q);
    if (!r)
        return NULL;
    kind_init[kind](r);
    if (!r->line_fn) {
        rd_reader_free(r);
        return NULL;
    }
    return r;
}

static int feed_reader(void *r, const void *buf, size_t n)
{
    return rd_reader_feed(r, buf, n);
}
int rd_read_file(enum hw_file kind, const char *path, const struct rd_read_opts *opts,
                  const struct rd_sink *sink, struct rd_quality *q)
{
    memset(q, 0, sizeof *q);
    /* Only a regular file: a FIFO would never end (or block in open), /dev/zero never ends. */
    int fd = hw_open_file(AT_FDCWD, path, HW_OPEN_READ | HW_OPEN_FOLLOW);
    if (fd < 0)
        return fd;
    struct rd_quality parts = {0};
    uint64_t base = 0;
    unsigned nparts =
        kind == HW_FILE_RUNLOG ? rd_log_read_parts(path, fd, opts, sink, &parts, &base) : 0;
    struct rd_reader *r = rd_reader_new(kind, path, opts, sink, q);
    if (!r) {
        close(fd);
        return -ENOMEM;
    }
    r->line_base = base;
    q->present = true;
    struct stat st;
    q->mtime = fstat(fd, &st) == 0 ? (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 : NAN;
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    int rc = hw_read_stream(fd, feed_reader, r);
    if (rc == 0)
        rd_reader_finish(r);
    rd_reader_free(r);
    close(fd);
    rd_quality_add(q, &parts);
    q->parts = nparts;
    return rc;
}
