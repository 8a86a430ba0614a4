/* A sweep row: one line of named cells per run (report.c) or per multi-node job (jobreport.c),
 * written as CSV or JSON Lines. The cell formats and the --units renaming are here once, so a
 * run's row and a job's row read alike in pandas and DuckDB. */
#ifndef SUM_ROW_H
#define SUM_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "hwrun/buf.h"
#include "units.h"

enum sum_col_type { SUM_COL_STR, SUM_COL_NUM, SUM_COL_U64,
                    SUM_COL_INT /* an integer in d, NAN when not known */ };

struct sum_col {
    const char *name;
    enum sum_col_type type;
    const char *s; /* SUM_COL_STR; NULL: not known (an empty cell, null) */
    double d;      /* SUM_COL_NUM (12 significant digits), SUM_COL_INT; NAN: not known */
    uint64_t u;    /* SUM_COL_U64 */
    enum sum_dim dim; /* what it measures: its unit (units.h); SUM_DIM_NONE for text, counts */
};

#define SUM_COL_NAME 48 /* room for a renamed column (sum_cols_units) */

/* --units on a row's columns: names carry the unit of the column's dimension
 * (sum_units_column), values are converted; a
 * column whose new name an earlier one has (peak_vram_mb and peak_vram_mib both become
 * peak_vram_gib) is left out. names gives each column room for its new name. Returns the
 * columns kept. */
size_t sum_cols_units(struct sum_col *c, size_t n, const struct sum_units *u,
                      char (*names)[SUM_COL_NAME]);
/* A number cell as CSV and JSONL write it; false (nothing written) when not known. */
bool sum_col_num(struct hw_buf *b, const struct sum_col *c);
/* A CSV cell: quoted when it holds a comma, a quote or a line break; nothing for NULL. */
void sum_csv_cell(struct hw_buf *b, const char *s);
/* The names as a CSV header line, the values as a CSV line (both end in '\n'). */
void sum_cols_csv_header(const struct sum_col *c, size_t n, struct hw_buf *out);
void sum_cols_csv(const struct sum_col *c, size_t n, struct hw_buf *out);
/* The cells as members of the JSON object w has open (null when not known). */
void sum_cols_json(const struct sum_col *c, size_t n, struct hw_json *w);

#endif
