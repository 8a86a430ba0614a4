/* rd_read_file: a whole run file in chunks, run.jsonl's rotated parts first (rotation.c), over
 * a reader of its kind (dispatch.c); apart from both so that their calls point one way. */
#include "reader_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"

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
    return rc == 0 && q->oom ? -ENOMEM : rc;
}
