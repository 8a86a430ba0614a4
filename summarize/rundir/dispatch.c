/* The top of the readers: a file kind picks its line parser from one table, over the reader
 * core (reader_core.c); sum_read_file feeds a whole file in chunks. */
#include "reader_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"

/* Each kind's line parser (read_*.c). */
static void (*const kind_init[SUM_KIND_COUNT])(struct sum_reader *r) = {
    [SUM_KIND_GPU] = sum_gpu_init,
    [SUM_KIND_DMON] = sum_dmon_init,
    [SUM_KIND_CPU] = sum_cpu_init,
    [SUM_KIND_PROC] = sum_proc_init,
    [SUM_KIND_GPU_PROCS] = sum_gpu_procs_init,
    [SUM_KIND_RUNLOG] = sum_runlog_init,
    [SUM_KIND_GPM] = sum_dmon_init, /* dmon's text, other columns */
    [SUM_KIND_TREE_PIDS] = sum_tree_pids_init,
    [SUM_KIND_HEALTH] = sum_health_init,
    [SUM_KIND_ENERGY] = sum_energy_csv_init,
    [SUM_KIND_PMON] = sum_pmon_init,
};

struct sum_reader *sum_reader_new(enum sum_kind kind, const char *name,
                                  const struct sum_read_opts *opts, const struct sum_sink *sink,
                                  struct sum_quality *q)
{
    if ((unsigned)kind >= SUM_KIND_COUNT) {
        memset(q, 0, sizeof *q);
        return NULL;
    }
    struct sum_reader *r =
        sum_reader_alloc(kind, name ? name : sum_kind_files[kind], opts, sink, q);
    if (!r)
        return NULL;
    kind_init[kind](r);
    if (!r->line_fn) {
        sum_reader_free(r);
        return NULL;
    }
    return r;
}

static int feed_reader(void *r, const void *buf, size_t n)
{
    return sum_reader_feed(r, buf, n);
}
int sum_read_file(enum sum_kind kind, const char *path, const struct sum_read_opts *opts,
                  const struct sum_sink *sink, struct sum_quality *q)
{
    memset(q, 0, sizeof *q);
    /* Only a regular file: a FIFO would never end (or block in open), /dev/zero never ends. */
    int fd = hw_open_file(AT_FDCWD, path, HW_OPEN_READ | HW_OPEN_FOLLOW);
    if (fd < 0)
        return fd;
    struct sum_reader *r = sum_reader_new(kind, path, opts, sink, q);
    if (!r) {
        close(fd);
        return -ENOMEM;
    }
    q->present = true;
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    int rc = hw_read_stream(fd, feed_reader, r);
    if (rc == 0)
        sum_reader_finish(r);
    sum_reader_free(r);
    close(fd);
    return rc;
}
