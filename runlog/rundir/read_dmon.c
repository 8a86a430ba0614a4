/* hw_dmon.csv and hw_gpm.csv: nvidia-smi dmon's whitespace columns (the "# gpu pwr ..." header
 * names them; GPM metrics come in the same text). */
#include "cells.h"
#include "reader_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char *const rd_dmon_col_names[RD_DM_COUNT] = {
    "pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk", "fb",
    "bar1", "ccpm", "rxpci", "txpci", HW_GPM_COLUMNS,
};

/* What each column can mean (readers.h); GPM's are percentages. */
static const struct rd_range dm_range[RD_DM_COUNT] = {
    [RD_DM_PWR] = RD_RANGE_W,     [RD_DM_GTEMP] = RD_RANGE_C,     [RD_DM_MTEMP] = RD_RANGE_C,
    [RD_DM_SM] = RD_RANGE_PCT,    [RD_DM_MEM] = RD_RANGE_PCT,     [RD_DM_ENC] = RD_RANGE_PCT,
    [RD_DM_DEC] = RD_RANGE_PCT,   [RD_DM_JPG] = RD_RANGE_PCT,     [RD_DM_OFA] = RD_RANGE_PCT,
    [RD_DM_MCLK] = RD_RANGE_MHZ,  [RD_DM_PCLK] = RD_RANGE_MHZ,    [RD_DM_FB] = RD_RANGE_MIB,
    [RD_DM_BAR1] = RD_RANGE_MIB,  [RD_DM_CCPM] = RD_RANGE_MIB,    [RD_DM_RXPCI] = RD_RANGE_MBPS,
    [RD_DM_TXPCI] = RD_RANGE_MBPS, [RD_DM_GRACT] = RD_RANGE_PCT,  [RD_DM_SMUTIL] = RD_RANGE_PCT,
    [RD_DM_SMOCC] = RD_RANGE_PCT, [RD_DM_MMAACT] = RD_RANGE_PCT,  [RD_DM_DRAM] = RD_RANGE_PCT,
    [RD_DM_FP64] = RD_RANGE_PCT,  [RD_DM_FP32] = RD_RANGE_PCT,    [RD_DM_FP16] = RD_RANGE_PCT,
};

/* ---- hw_dmon.csv ------------------------------------------------------------------------ */

struct dmon_st {
    size_t ncols;
    char namebuf[8192];
    const char *names[RD_MAX_COLS];
    int map[RD_MAX_COLS]; /* -> enum rd_dmon_col, or -1 */
    int gpu_col, date_col, time_col;
    double vals[RD_MAX_COLS];
};

static void dmon_header(struct rd_reader *r, struct dmon_st *st)
{
    struct rd_cells *c = &r->cells;
    /* "# gpu pwr ..." (first token "#") or "#Date Time gpu ..." (label glued to '#'). */
    size_t first = 0, n = 0, o = 0;
    const char *tok[RD_MAX_COLS];
    size_t len[RD_MAX_COLS];
    for (size_t i = 0; i < c->n; i++) {
        const char *s = c->s[i];
        size_t l = c->len[i];
        if (i == 0) {
            s++, l--;
            if (l == 0)
                continue;
        }
        tok[n] = s;
        len[n] = l;
        n++;
    }
    bool names = false;
    for (size_t i = 0; i < n; i++)
        if (len[i] == 3 && !memcmp(tok[i], "gpu", 3))
            names = true;
    r->q->headers++;
    if (!names)
        return; /* the units line ("# Idx W C ...") or a comment */
    (void)first;
    st->ncols = 0;
    st->gpu_col = st->date_col = st->time_col = -1;
    for (size_t i = 0; i < n; i++) {
        if (o + len[i] + 1 > sizeof st->namebuf)
            break;
        memcpy(st->namebuf + o, tok[i], len[i]);
        st->namebuf[o + len[i]] = '\0';
        const char *nm = st->namebuf + o;
        o += len[i] + 1;
        st->names[i] = nm;
        st->map[i] = -1;
        for (int k = 0; k < RD_DM_COUNT; k++)
            if (!strcmp(nm, rd_dmon_col_names[k]))
                st->map[i] = k;
        if (!strcmp(nm, "temp"))
            st->map[i] = RD_DM_GTEMP; /* drivers <= 2018 */
        if (!strcmp(nm, "gpu") && st->gpu_col < 0)
            st->gpu_col = (int)i;
        if (!strcmp(nm, "Date"))
            st->date_col = (int)i;
        if (!strcmp(nm, "Time"))
            st->time_col = (int)i;
        st->ncols++;
    }
}

/* -o DT: "YYYYMMDD" "HH:MM:SS" becomes nvidia-smi's usual "YYYY/MM/DD HH:MM:SS", read by the
 * one zone-aware, cached parser of its times; false (the line skipped) when it is not that. */
static bool dt_time(struct rd_reader *r, const struct dmon_st *st, double *t)
{
    const struct rd_cells *c = &r->cells;
    const char *ds = c->s[st->date_col], *ts = c->s[st->time_col];
    char buf[19];
    if (c->len[st->date_col] != 8 || c->len[st->time_col] != 8) {
        rd_skip(r, RD_SKIP_TIMESTAMP, NULL);
        return false;
    }
    memcpy(buf, ds, 4);
    buf[4] = '/';
    memcpy(buf + 5, ds + 4, 2);
    buf[7] = '/';
    memcpy(buf + 8, ds + 6, 2);
    buf[10] = ' ';
    memcpy(buf + 11, ts, 8);
    if (!rd_parse_smi_ts(&r->clock, &r->opts->tz, buf, sizeof buf, t)) {
        rd_skip(r, RD_SKIP_TIMESTAMP, NULL);
        return false;
    }
    return true;
}

/* Split a line of dmon's or pmon's text; a header line is taken (dmon_header). true for a data
 * line to read from r->cells. */
static bool ws_data_line(struct rd_reader *r, struct dmon_st *st, const char *s, size_t n)
{
    rd_split_ws(r, s, n);
    struct rd_cells *c = &r->cells;
    if (c->overflow) {
        rd_skip(r, RD_SKIP_CELLS, "too many columns");
        return false;
    }
    if (c->n && c->s[0][0] == '#') {
        dmon_header(r, st);
        return false;
    }
    return true;
}

static void dmon_line(struct rd_reader *r, const char *s, size_t n)
{
    struct dmon_st *st = r->st;
    if (!ws_data_line(r, st, s, n))
        return;
    struct rd_cells *c = &r->cells;
    if (!st->ncols) {
        rd_skip(r, RD_SKIP_LAYOUT, "no '# gpu ...' header before it");
        return;
    }
    if (c->n != st->ncols) {
        char d[64];
        snprintf(d, sizeof d, "%zu columns, expected %zu", c->n, st->ncols);
        rd_skip(r, RD_SKIP_CELLS, d);
        return;
    }
    struct rd_dmon_row row = {.t = NAN, .gpu = -1, .line = r->lineno};
    for (int k = 0; k < RD_DM_COUNT; k++)
        row.v[k] = NAN;
    for (size_t i = 0; i < c->n; i++) {
        st->vals[i] = NAN;
        if ((int)i == st->date_col || (int)i == st->time_col)
            continue;
        double v = rd_num_cell(r->q, c->s[i], c->len[i], false);
        if (st->map[i] >= 0)
            v = rd_in_range(r, rd_dmon_col_names[st->map[i]], v, dm_range[st->map[i]]);
        st->vals[i] = v;
        if (st->map[i] >= 0)
            row.v[st->map[i]] = v;
        if ((int)i == st->gpu_col && v >= 0 && v < 1e6 && v == floor(v))
            row.gpu = (int)v;
    }
    if (st->date_col >= 0 && st->time_col >= 0 && !dt_time(r, st, &row.t))
        return;
    row.ncols = c->n;
    row.names = st->names;
    row.vals = st->vals;
    r->q->parsed++;
    if (r->sink->dmon)
        r->sink->dmon(r->sink->ctx, &row);
}

void rd_dmon_init(struct rd_reader *r)
{
    struct dmon_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    st->gpu_col = st->date_col = st->time_col = -1;
    r->st = st;
    r->line_fn = dmon_line;
    r->free_fn = rd_st_free;
}

/* ---- hw_pmon.csv ------------------------------------------------------------------------ */

/* The column of name in the header (-1: none). */
static int col_of(const struct dmon_st *st, const char *name)
{
    for (size_t i = 0; i < st->ncols; i++)
        if (!strcmp(st->names[i], name))
            return (int)i;
    return -1;
}

static void pmon_line(struct rd_reader *r, const char *s, size_t n)
{
    struct dmon_st *st = r->st;
    if (!ws_data_line(r, st, s, n))
        return;
    struct rd_cells *c = &r->cells;
    int cmd = col_of(st, "command");
    if (!st->ncols || cmd != (int)st->ncols - 1) {
        rd_skip(r, RD_SKIP_LAYOUT, "no '# gpu pid ... command' header before it");
        return;
    }
    /* the command's name may hold spaces: every token from its column on */
    if (c->n < st->ncols) {
        char d[96];
        snprintf(d, sizeof d, "%zu columns, expected at least %zu", c->n, st->ncols);
        rd_skip(r, RD_SKIP_CELLS, d);
        return;
    }
    struct rd_pmon_row row = {.t = NAN, .gpu = -1, .pid = -1, .line = r->lineno};
    if (st->date_col >= 0 && st->time_col >= 0 && !dt_time(r, st, &row.t))
        return;
    int gc = col_of(st, "gpu"), pc = col_of(st, "pid");
    int sm = col_of(st, "sm"), mem = col_of(st, "mem"), fb = col_of(st, "fb");
    double g = gc >= 0 ? rd_num_cell(r->q, c->s[gc], c->len[gc], false) : NAN;
    double pid = pc >= 0 ? rd_num_cell(r->q, c->s[pc], c->len[pc], false) : NAN;
    if (!(g >= 0 && g < 1e6 && g == floor(g))) {
        rd_skip(r, RD_SKIP_CELLS, "no GPU index");
        return;
    }
    row.gpu = (int)g;
    row.pid = pid >= 1 && pid < 1e10 && pid == floor(pid) ? (long)pid : -1;
    row.sm = sm >= 0 ? rd_in_range(r, "sm", rd_num_cell(r->q, c->s[sm], c->len[sm], false),
                                   dm_range[RD_DM_SM])
                     : NAN;
    row.mem = mem >= 0 ? rd_in_range(r, "mem", rd_num_cell(r->q, c->s[mem], c->len[mem], false),
                                     dm_range[RD_DM_MEM])
                       : NAN;
    row.fb = fb >= 0 ? rd_in_range(r, "fb", rd_num_cell(r->q, c->s[fb], c->len[fb], false),
                                   dm_range[RD_DM_FB])
                     : NAN;
    r->q->parsed++;
    if (r->sink->pmon)
        r->sink->pmon(r->sink->ctx, &row);
}

void rd_pmon_init(struct rd_reader *r)
{
    rd_dmon_init(r);
    if (r->st)
        r->line_fn = pmon_line;
}
