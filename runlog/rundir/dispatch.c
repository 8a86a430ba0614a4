/* The top of the readers: a file kind picks its line parser from one table, over the reader
 * core (reader_core.c). rd_read_file (read_file.c) feeds a whole file. */
#include "reader_int.h"

#include <string.h>

/* Each kind's line parser (read_*.c). */
static void (*const kind_init[HW_FILE_COUNT])(struct rd_reader *r) = {
#define READER_OF(ID, stem, name, reader, by, stage, optional, normal, opt, what)                  \
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
