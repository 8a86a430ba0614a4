/* libFuzzer target for --format pytyche's reader and printer: all three file kinds from one
 * input, fed in chunks of 1..13 bytes (so "\r\n" and UTF-8 sequences split across reads are
 * exercised) and whole (the 16-byte scans of long ASCII runs); both must print the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pytyche.h"
#include "hwrun/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The three kinds read from data[1..size) in chunks of step bytes, printed into b. */
static void summarize_in_steps(const uint8_t *data, size_t size, size_t step, struct hw_buf *b)
{
    struct sum_py_acc acc;
    memset(&acc, 0, sizeof acc);
    for (int k = 0; k < 3; k++) {
        struct sum_py_reader *r = sum_py_new((enum sum_py_kind)k, &acc);
        if (!r)
            abort();
        int rc = 0;
        for (size_t i = 1; i < size && rc == 0; i += step)
            rc = sum_py_feed(r, data + i, size - i < step ? size - i : step);
        if (rc == 0)
            sum_py_finish(r);
        sum_py_free(r);
    }
    hw_buf_init(b, NULL, 0);
    sum_py_format(&acc, false, b);
    if (!b->len || b->p[b->len - 1] != '\n')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hw_buf chunked, whole;
    summarize_in_steps(data, size, size ? 1 + data[0] % 13 : 1, &chunked);
    summarize_in_steps(data, size, size ? size : 1, &whole);
    if (chunked.len != whole.len || memcmp(chunked.p, whole.p, whole.len) != 0)
        abort();
    hw_buf_free(&chunked);
    hw_buf_free(&whole);
    double v;
    sum_py_float((const char *)data, size, &v);
    return 0;
}
