/* A sweep row's cells (row.h). */
#include "row.h"
#include "hwrun/utf8.h"

#include <math.h>
#include <string.h>
#include "hwrun/buf.h"

size_t sum_cols_units(struct sum_col *c, size_t n, const struct sum_units *u,
                      char (*names)[SUM_COL_NAME])
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        struct sum_col x = c[i];
        if (sum_units_column(u, x.name, x.dim, names[m], sizeof names[m]) == 0) {
            bool dup = false;
            for (size_t k = 0; k < m && !dup; k++)
                dup = !strcmp(c[k].name, names[m]);
            if (dup)
                continue;
            x.name = names[m];
            if (x.type == SUM_COL_NUM)
                x.d = sum_dim_value(u, x.dim, x.d);
        }
        c[m++] = x;
    }
    return m;
}

bool sum_col_num(struct hw_buf *b, const struct sum_col *c)
{
    if (c->type == SUM_COL_U64)
        hw_buf_u64(b, c->u);
    else if (!isfinite(c->d))
        return false;
    else if (c->type == SUM_COL_INT)
        hw_buf_printf(b, "%.0f", c->d);
    else
        hw_buf_json_num(b, c->d, HW_NUM_SIG12);
    return true;
}

void sum_csv_cell(struct hw_buf *b, const char *s)
{
    if (!s)
        return;
    /* bytes that are not UTF-8 become U+FFFD as in the JSON: one bad byte must not make a
     * reader (pandas, Python's csv in UTF-8) refuse the whole table */
    bool quote = strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        hw_buf_putc(b, '"');
    for (size_t n = strlen(s); n;) {
        uint32_t cp;
        size_t k = hw_utf8_decode(s, n, &cp);
        if (k == 0 || k == HW_UTF8_SHORT) {
            hw_buf_puts(b, "\xEF\xBF\xBD");
            k = 1;
        } else if (*s == '"') {
            hw_buf_puts(b, "\"\"");
        } else {
            hw_buf_put(b, s, k);
        }
        s += k;
        n -= k;
    }
    if (quote)
        hw_buf_putc(b, '"');
}

void sum_cols_csv_header(const struct sum_col *c, size_t n, struct hw_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            hw_buf_putc(out, ',');
        sum_csv_cell(out, c[i].name); /* a header cell is a cell like any */
    }
    hw_buf_putc(out, '\n');
}

void sum_cols_csv(const struct sum_col *c, size_t n, struct hw_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            hw_buf_putc(out, ',');
        if (c[i].type == SUM_COL_STR)
            sum_csv_cell(out, c[i].s);
        else
            sum_col_num(out, &c[i]); /* an empty cell when not known */
    }
    hw_buf_putc(out, '\n');
}

void sum_cols_json(const struct sum_col *c, size_t n, struct hw_json *w)
{
    for (size_t i = 0; i < n; i++) {
        if (c[i].type == SUM_COL_STR) {
            hw_json_str(w, c[i].name, c[i].s);
            continue;
        }
        hw_json_key(w, c[i].name);
        if (!sum_col_num(w->b, &c[i]))
            hw_buf_puts(w->b, "null");
    }
}
