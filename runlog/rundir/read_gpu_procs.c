/* gpu_procs.csv: nvidia-smi --query-compute-apps rows (GPU memory per process). Columns by
 * header name, else opts.gpu_procs_fields, else hwmon's field list; a process name may itself
 * contain ", ". */
#include "cells.h"
#include "reader_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/parse.h"
#include "hwrun/timeutil.h"

/* ---- gpu_procs.csv ---------------------------------------------------------------------- */

enum { GP_TS, GP_UUID, GP_PID, GP_MEM, GP_NAME, GP_COUNT };

struct gp_st {
    bool have_header;
    size_t ncols;
    int col[GP_COUNT]; /* column of each field, -1 absent */
    size_t hdr_ncols;
    int hdr_col[GP_COUNT];
    char name[4096];
};

static int gp_field(const char *name)
{
    if (!strcmp(name, HW_COL_TIMESTAMP))
        return GP_TS;
    if (!strcmp(name, "gpu_uuid") || !strcmp(name, "uuid"))
        return GP_UUID;
    if (!strcmp(name, "pid"))
        return GP_PID;
    if (!strcmp(name, "used_gpu_memory") || !strcmp(name, "used_memory"))
        return GP_MEM;
    if (!strcmp(name, "process_name") || !strcmp(name, "name"))
        return GP_NAME;
    return -1;
}

static bool gp_known(const char *name)
{
    return gp_field(name) >= 0 || !strcmp(name, "gpu_name") || !strcmp(name, "gpu_bus_id") ||
           !strcmp(name, "gpu_serial");
}

static void gp_layout(size_t *ncols, int *col, char (*names)[64], size_t n)
{
    *ncols = n;
    for (int k = 0; k < GP_COUNT; k++)
        col[k] = -1;
    for (size_t i = 0; i < n; i++) {
        int f = gp_field(names[i]);
        if (f >= 0 && col[f] < 0)
            col[f] = (int)i;
    }
}

static void gp_line(struct rd_reader *r, const char *s, size_t n)
{
    struct gp_st *st = r->st;
    if (!rd_split_cells(r, s, n))
        return;
    struct rd_cells *c = &r->cells;
    if (rd_cells_are_header(r, gp_known)) {
        char(*names)[64] = rd_header_names(r);
        if (names) {
            gp_layout(&st->hdr_ncols, st->hdr_col, names, c->n);
            st->have_header = true;
        }
        r->q->headers++;
        return;
    }
    size_t ncols = st->have_header ? st->hdr_ncols : st->ncols;
    const int *col = st->have_header ? st->hdr_col : st->col;
    /* The process name may itself contain ", ": extra cells belong to it. */
    size_t extra = 0;
    if (c->n > ncols && col[GP_NAME] >= 0)
        extra = c->n - ncols;
    else if (c->n != ncols) {
        char d[64];
        snprintf(d, sizeof d, "%zu, expected %zu", c->n, ncols);
        rd_skip(r, RD_SKIP_CELLS, d);
        return;
    }
    struct rd_gpu_proc_row row = {.t = NAN, .pid = -1, .used_mib = NAN, .line = r->lineno};
    for (size_t i = 0, logical = 0; i < c->n; i++, logical++) {
        const char *cs = c->s[i];
        size_t cl = c->len[i];
        if ((int)logical == col[GP_NAME]) {
            size_t o = 0;
            for (size_t k = 0; k <= extra; k++) {
                const char *ps = c->s[i + k];
                size_t pl = c->len[i + k];
                if (k && o + 2 < sizeof st->name) {
                    memcpy(st->name + o, ", ", 2);
                    o += 2;
                }
                if (o + pl >= sizeof st->name)
                    pl = sizeof st->name - 1 - o;
                memcpy(st->name + o, ps, pl);
                o += pl;
            }
            st->name[o] = '\0';
            if (rd_is_placeholder(st->name, o))
                rd_count_token(r->q, st->name, o);
            row.name = st->name;
            i += extra;
        } else if ((int)logical == col[GP_TS]) {
            if (!rd_parse_smi_ts(&r->clock, &r->opts->tz, cs, cl, &row.t) &&
                !hw_parse_iso(cs, cl, &row.t)) {
                rd_skip(r, RD_SKIP_TIMESTAMP, NULL);
                return;
            }
        } else if ((int)logical == col[GP_UUID]) {
            if (rd_is_placeholder(cs, cl))
                rd_count_token(r->q, cs, cl);
            else
                row.gpu_uuid = cs;
        } else if ((int)logical == col[GP_PID]) {
            double v;
            if (hw_parse_num_cell(cs, cl, &v) && v >= 0 && v < 1e12 && v == floor(v))
                row.pid = (long)v;
            else if (rd_is_placeholder(cs, cl))
                rd_count_token(r->q, cs, cl);
            else
                r->q->bad_cells++;
        } else if ((int)logical == col[GP_MEM]) {
            row.used_mib = rd_in_range(r, "used_gpu_memory", rd_num_cell(r->q, cs, cl, false),
                                       RD_RANGE_MIB);
        } else if (rd_is_placeholder(cs, cl)) {
            rd_count_token(r->q, cs, cl);
        }
    }
    r->q->parsed++;
    if (r->sink->gpu_proc)
        r->sink->gpu_proc(r->sink->ctx, &row);
}

void rd_gpu_procs_init(struct rd_reader *r)
{
    struct gp_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    char(*names)[64] = malloc(sizeof(char[RD_MAX_COLS][64]));
    if (!names) {
        free(st);
        return;
    }
    const char *f = r->opts && r->opts->gpu_procs_fields && *r->opts->gpu_procs_fields
                        ? r->opts->gpu_procs_fields
                        : HW_GPU_PROCS_FIELDS;
    size_t n = rd_split_fields(f, names, RD_MAX_COLS);
    gp_layout(&st->ncols, st->col, names, n);
    free(names);
    r->st = st;
    r->line_fn = gp_line;
    r->free_fn = rd_st_free;
}
