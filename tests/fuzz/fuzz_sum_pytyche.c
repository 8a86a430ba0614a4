/* libFuzzer target for --format pytyche's reader and printer: all three file kinds from one
 * input, fed in chunks (so "\r\n" and UTF-8 sequences split across reads are exercised). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pytyche.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sum_py_acc acc;
    memset(&acc, 0, sizeof acc);
    size_t step = size ? 1 + data[0] % 13 : 1;
    for (int k = 0; k < 3; k++) {
        struct sum_py_reader *r = sum_py_new((enum sum_py_kind)k, &acc);
        if (!r)
            return 0;
        int rc = 0;
        for (size_t i = 1; i < size && rc == 0; i += step)
            rc = sum_py_feed(r, data + i, size - i < step ? size - i : step);
        if (rc == 0)
            sum_py_finish(r);
        sum_py_free(r);
    }
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_py_format(&acc, &b);
    if (!b.len || b.p[b.len - 1] != '\n')
        abort();
    hw_buf_free(&b);
    double v;
    sum_py_float((const char *)data, size, &v);
    return 0;
}
