/* hw_health.csv: nvidia-smi --query-gpu rows with its header (hwrun/rundir.h's enum
 * hw_health_col). Columns are found by the header's names, so any subset and order reads; rows
 * before a header have no layout and are skipped. */
#include "cells.h"
#include "reader_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/timeutil.h"

enum { HROLE_IGNORE = -1, HROLE_TS = 100, HROLE_INDEX };

struct health_st {
    int role[RD_MAX_COLS];
    size_t n;
    bool have_header;
    double unmeasured[HW_HEALTH_COUNT];
};

static int health_role(const char *name)
{
    if (!strcmp(name, HW_COL_TIMESTAMP))
        return HROLE_TS;
    if (!strcmp(name, "index"))
        return HROLE_INDEX;
    if (!strcmp(name, HW_HEALTH_REASONS_OLD))
        return HW_HEALTH_REASONS;
    for (int k = 0; k < HW_HEALTH_COUNT; k++)
        if (!strcmp(name, hw_health_fields[k]))
            return k;
    return HROLE_IGNORE;
}

static bool health_known(const char *name)
{
    return health_role(name) != HROLE_IGNORE;
}

/* A cell of column k: what the reader hands on (NAN: not measured, or not understood). */
static double health_cell(struct rd_reader *r, int k, const char *s, size_t n)
{
    if (rd_is_placeholder(s, n)) {
        rd_count_token(r->q, s, n);
        return NAN;
    }
    switch (k) {
    case HW_HEALTH_PSTATE: /* P0 .. P15 */
        if (n >= 2 && n <= 3 && s[0] == 'P' && s[1] >= '0' && s[1] <= '9' &&
            (n == 2 || (s[2] >= '0' && s[2] <= '9')))
            return n == 2 ? s[1] - '0' : (s[1] - '0') * 10 + (s[2] - '0');
        break;
    case HW_HEALTH_REASONS: { /* 0x + 16 hex digits */
        if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
            break;
        unsigned long long v = 0;
        size_t i = 2;
        for (; i < n; i++) {
            int c = (unsigned char)s[i], d = c >= '0' && c <= '9'   ? c - '0'
                                             : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                                    : -1;
            if (d < 0)
                break;
            v = v << 4 | (unsigned)d;
        }
        if (i == n)
            return (double)v; /* the defined bits are the low 9: exact in a double */
        break;
    }
    case HW_HEALTH_RETIRED_PENDING:
    case HW_HEALTH_REMAP_PENDING:
    case HW_HEALTH_REMAP_FAILURE:
        if (n == 3 && !memcmp(s, "Yes", 3))
            return 1;
        if (n == 2 && !memcmp(s, "No", 2))
            return 0;
        break;
    default: return rd_num_cell(r->q, s, n, false);
    }
    r->q->bad_cells++;
    return NAN;
}

static void health_line(struct rd_reader *r, const char *s, size_t n)
{
    struct health_st *st = r->st;
    if (!rd_split_cells(r, s, n))
        return;
    struct rd_cells *c = &r->cells;
    if (rd_cells_are_header(r, health_known)) {
        char(*names)[64] = rd_header_names(r);
        if (names) {
            st->n = c->n;
            for (size_t i = 0; i < c->n; i++)
                st->role[i] = health_role(names[i]);
            st->have_header = true;
        }
        r->q->headers++;
        return;
    }
    if (!st->have_header) {
        rd_skip(r, RD_SKIP_LAYOUT, "no header line before it");
        return;
    }
    if (c->n != st->n) {
        char d[64];
        snprintf(d, sizeof d, "%zu, expected %zu", c->n, st->n);
        rd_skip(r, RD_SKIP_CELLS, d);
        return;
    }
    struct rd_health_row row;
    row.t = NAN;
    row.gpu = -1;
    row.line = r->lineno;
    memcpy(row.v, st->unmeasured, sizeof row.v);
    for (size_t i = 0; i < c->n; i++) {
        int role = st->role[i];
        const char *cs = c->s[i];
        size_t cl = c->len[i];
        if (role >= 0 && role < HW_HEALTH_COUNT) {
            row.v[role] = health_cell(r, role, cs, cl);
        } else if (role == HROLE_TS) {
            if (!rd_parse_smi_ts(&r->clock, &r->opts->tz, cs, cl, &row.t) &&
                !hw_parse_iso(cs, cl, &row.t)) {
                rd_skip(r, RD_SKIP_TIMESTAMP, NULL);
                return;
            }
        } else if (role == HROLE_INDEX) {
            int g = 0;
            for (size_t k = 0; k < cl && k < 5 && g >= 0; k++)
                g = cs[k] >= '0' && cs[k] <= '9' ? g * 10 + (cs[k] - '0') : -1;
            row.gpu = cl && cl < 5 ? g : -1;
        }
    }
    if (row.gpu < 0 || isnan(row.t)) {
        rd_skip(r, RD_SKIP_CELLS, "no GPU index or no timestamp");
        return;
    }
    r->q->parsed++;
    if (r->sink->health)
        r->sink->health(r->sink->ctx, &row);
}

void rd_health_init(struct rd_reader *r)
{
    struct health_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    r->st = st;
    for (int k = 0; k < HW_HEALTH_COUNT; k++)
        st->unmeasured[k] = NAN;
    r->line_fn = health_line;
    r->row_start_fn = rd_row_start_ts;
    r->free_fn = rd_st_free;
}
