/* Differential libFuzzer target: for every line, the fast CSV splitter must give exactly the
 * cells libcsv gives (reader_core.c uses the fast one for lines without quotes or CR). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rd_reader *r;
    static struct rd_quality q;
    static char cells[RD_MAX_COLS][128];
    static size_t lens[RD_MAX_COLS];
    if (!r) {
        struct rd_read_opts opts = {.max_line = 1 << 16};
        static struct rd_read_opts keep;
        keep = opts;
        r = rd_reader_new(HW_FILE_GPU, "fuzz", &keep, NULL, &q);
        if (!r)
            abort();
    }
    if (size > (1 << 16) || memchr(data, '\n', size) || memchr(data, '\0', size))
        return 0;
    const char *s = (const char *)data;
    size_t blank = 0;
    while (blank < size && (s[blank] == ' ' || s[blank] == '\t'))
        blank++;
    if (blank == size)
        return 0; /* blank lines never reach a splitter */
    bool fast = !memchr(s, '"', size) && !memchr(s, '\r', size);
    if (!fast || !rd_split_csv(r, s, size))
        return 0;
    size_t n = r->cells.n;
    bool overflow = r->cells.overflow;
    for (size_t i = 0; i < n; i++) {
        lens[i] = r->cells.len[i];
        snprintf(cells[i], sizeof cells[i], "%s", r->cells.s[i]);
    }
    if (!rd_split_libcsv(r, s, size))
        return 0;
    if (r->cells.n != n || r->cells.overflow != overflow)
        abort();
    for (size_t i = 0; i < n; i++)
        if (r->cells.len[i] != lens[i] || strncmp(cells[i], r->cells.s[i], sizeof cells[i] - 1))
            abort();
    return 0;
}
