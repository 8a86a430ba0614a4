/* The kind readers' cells, inline: the fast path of each, taken by nearly every cell of every
 * row without a call, in front of its slow part in reader_core.c (reader_int.h). Above
 * reader_core.c, which uses none of them; included by the kinds (read_gpu.c, ...). Not an API. */
#ifndef RD_CELLS_H
#define RD_CELLS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "hwrun/decimal8.h"
#include "reader_int.h"

/* A numeric cell's number (rd_num_cell_slow says the rest). */
static inline double rd_num_cell(struct rd_quality *q, const char *s, size_t n, bool count_empty)
{
    /* inline: the plain number of nearly every cell, without a call; s is a cell of a reader's
     * r->cells, in cellbuf, which has 16 bytes to spare after any cell */
    double v;
    /* hw_parse_decimal_padded in its two steps, since only the second can give inf */
    if (hw_parse_decimal8(s, n, &v)) /* "81559", "308.53" */
        return v;
    if (n && hw_parse_decimal(s, n, &v) && isfinite(v)) /* longer: byte counts */
        return v;
    return rd_num_cell_slow(q, s, n, count_empty);
}
/* v, or NAN when out of rg (rd_in_range_slow). */
static inline double rd_in_range(struct rd_reader *r, const char *column, double v,
                                 struct rd_range rg)
{
    return (v >= rg.lo && v <= rg.hi) || isnan(v) || (rg.lo == 0 && rg.hi == 0)
               ? v
               : rd_in_range_slow(r, column, v, rg);
}
/* Whether the line's cells are a header (rd_cells_are_header_names). */
static inline bool rd_cells_are_header(struct rd_reader *r, bool (*known)(const char *))
{
    /* inline: a data row starts with a digit (its timestamp or index), no name does */
    const struct rd_cells *c = &r->cells;
    if (c->n && c->len[0] && (unsigned)(c->s[0][0] - '0') < 10)
        return false;
    return rd_cells_are_header_names(r, known);
}

#endif
