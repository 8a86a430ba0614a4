/* hwmon's own named-column CSVs: cpu_metrics.csv, proc_metrics.csv and tree_pids.csv
 * (hwmon/FORMAT.md). Columns by header name; a row without a header is read by its width as one
 * of hwmon's layouts. */
#include "cells.h"
#include "reader_int.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/array.h"

/* ---- cpu_metrics.csv and proc_metrics.csv: named columns -------------------------------- */

struct named_st {
    const char *const *names;
    const char *const *options; /* per known column: the option it is written under (NULL: none) */
    int nknown;
    /* Rows without a header: a row this many cells wide is the timestamp and the first
     * width - 1 columns of names[] (hwmon only ever added columns after the earlier ones). */
    const size_t *widths; /* 0-terminated */
    bool have_layout;
    size_t ncols;
    int map[RD_MAX_COLS]; /* column -> known index, -2 timestamp, -3 edge, -1 ignored */
    /* per known column: empty cells counted as placeholders, and whether any row filled it */
    uint64_t empty[(int)HW_CPU_COL_COUNT + (int)HW_PROC_COL_COUNT];
    bool filled[(int)HW_CPU_COL_COUNT + (int)HW_PROC_COL_COUNT];
};

static void named_layout(struct named_st *st, char (*names)[64], size_t n)
{
    st->ncols = n;
    for (size_t i = 0; i < n; i++) {
        st->map[i] = -1;
        if (!strcmp(names[i], HW_COL_TIMESTAMP) || !strcmp(names[i], "ts")) {
            st->map[i] = -2;
            continue;
        }
        if (!strcmp(names[i], HW_COL_EDGE)) {
            st->map[i] = -3;
            continue;
        }
        for (int k = 0; k < st->nknown; k++)
            if (!strcmp(names[i], st->names[k])) {
                st->map[i] = k;
                break;
            }
    }
    st->have_layout = true;
}

static void named_line(struct rd_reader *r, const char *s, size_t n)
{
    struct named_st *st = r->st;
    if (!rd_split_cells(r, s, n))
        return;
    struct rd_cells *c = &r->cells;
    bool header = false;
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->s[i], HW_COL_TIMESTAMP))
            header = true;
    if (header) {
        char(*names)[64] = rd_header_names(r);
        if (names)
            named_layout(st, names, c->n);
        r->q->headers++;
        return;
    }
    if (!st->have_layout || st->ncols != c->n) {
        /* No header (yet): a row as wide as one of hwmon's layouts is read as that layout. */
        bool found = false;
        for (const size_t *w = st->widths; *w && !st->have_layout; w++)
            if (*w == c->n) {
                st->ncols = *w;
                st->map[0] = -2;
                for (size_t i = 1; i < *w; i++)
                    st->map[i] = (int)i - 1;
                st->have_layout = found = true;
                break;
            }
        if (!found) {
            char d[64];
            if (st->have_layout) {
                snprintf(d, sizeof d, "%zu, expected %zu", c->n, st->ncols);
                rd_skip(r, RD_SKIP_CELLS, d);
            } else {
                snprintf(d, sizeof d, "%zu cells and no header", c->n);
                rd_skip(r, RD_SKIP_LAYOUT, d);
            }
            return;
        }
    }
    double vals[(int)HW_CPU_COL_COUNT + (int)HW_PROC_COL_COUNT];
    for (int k = 0; k < st->nknown; k++)
        vals[k] = NAN;
    double t = NAN;
    bool edge = false;
    for (size_t i = 0; i < c->n; i++) {
        int k = st->map[i];
        if (k == -3) {
            edge = c->len[i] == 1 && c->s[i][0] == '1';
        } else if (k == -2) {
            if (!rd_parse_any_ts(c->s[i], c->len[i], &t)) {
                rd_skip(r, RD_SKIP_TIMESTAMP, NULL);
                return;
            }
        } else if (k >= 0) {
            /* an empty limit is no limit (rundir.h), not an unmeasured cell */
            bool none_ok = r->kind == HW_FILE_CPU &&
                           (k == HW_CPU_COL_CG_LIMIT || k == HW_CPU_COL_CG_MEM_MAX);
            vals[k] = rd_num_cell(r->q, c->s[i], c->len[i], !none_ok);
            if (c->len[i])
                st->filled[k] = true;
            else if (!none_ok)
                st->empty[k]++;
        }
    }
    r->q->parsed++;
    if (r->kind == HW_FILE_TREE_PIDS) {
        double pid = vals[0], in = vals[1];
        struct rd_tree_pid_row row = {
            .t = t,
            .pid = pid >= 1 && pid <= INT_MAX && pid == floor(pid) ? (long)pid : -1,
            .in_tree = in == 0 || in == 1 ? (int)in : -1,
            .line = r->lineno,
        };
        if (r->sink->tree_pid)
            r->sink->tree_pid(r->sink->ctx, &row);
    } else if (r->kind == HW_FILE_ENERGY) {
        double g = vals[0];
        struct rd_energy_row row = {
            .t = t,
            .gpu = g >= 0 && g < 4096 && g == floor(g) ? (int)g : -1,
            .mj = vals[1],
            .edge = edge,
            .line = r->lineno,
        };
        if (r->sink->energy)
            r->sink->energy(r->sink->ctx, &row);
    } else if (r->kind == HW_FILE_CPU) {
        struct rd_cpu_row row = {.t = t, .line = r->lineno, .edge = edge};
        memcpy(row.v, vals, sizeof row.v);
        if (r->sink->cpu)
            r->sink->cpu(r->sink->ctx, &row);
    } else {
        struct rd_proc_row row = {.t = t, .line = r->lineno, .edge = edge};
        memcpy(row.v, vals, sizeof row.v);
        if (r->sink->proc)
            r->sink->proc(r->sink->ctx, &row);
    }
}

/* The file is read: a column written under an option (hw_proc_col_option) that no row filled was
 * not recorded by the run (it was not given --shared-once, or was given --no-pss), and its empty
 * cells are no placeholders, which say what a recorded column missed (a row of an exited
 * process, a PSS read skipped). A column every run writes stays counted however empty. */
static void named_free(struct rd_reader *r)
{
    struct named_st *st = r->st;
    uint64_t n = 0;
    for (int k = 0; st && st->options && k < st->nknown; k++)
        if (st->options[k] && !st->filled[k])
            n += st->empty[k];
    if (n)
        rd_uncount_token(r->q, "", 0, n);
    rd_st_free(r);
}

static void named_init(struct rd_reader *r, const char *const *names, int n,
                       const size_t *widths)
{
    struct named_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    st->names = names;
    st->nknown = n;
    st->widths = widths;
    r->st = st;
    r->line_fn = named_line;
    r->row_start_fn = rd_row_start_ts; /* every row starts with its timestamp */
    r->free_fn = named_free;
}

void rd_cpu_init(struct rd_reader *r)
{
    /* pytyche's timestamp,usr_pct,idle_pct; hwmon's first layouts, outside and inside a cgroup
     * (up to cgroup_mem_max_mib). Later layouts always have their header. */
    static const size_t widths[] = {3, 1 + HW_CPU_COL_FIRST_CGROUP, 2 + HW_CPU_COL_CG_MEM_MAX, 0};
    named_init(r, hw_cpu_cols, HW_CPU_COL_COUNT, widths);
}

void rd_proc_init(struct rd_reader *r)
{
    /* the first layout, without and with pss_mib */
    static const size_t widths[] = {1 + HW_PROC_COL_PSS, 2 + HW_PROC_COL_PSS, 0};
    named_init(r, hw_proc_cols, HW_PROC_COL_COUNT, widths);
    if (r->st)
        ((struct named_st *)r->st)->options = hw_proc_col_option;
}

void rd_energy_csv_init(struct rd_reader *r)
{
    static const char *const names[] = {HW_ENERGY_COL_INDEX, HW_ENERGY_COL_MJ};
    static const size_t widths[] = {0}; /* always with its header */
    named_init(r, names, HW_ARRAY_SIZE(names), widths);
}

void rd_tree_pids_init(struct rd_reader *r)
{
    static const char *const names[] = {HW_TREE_PIDS_COL_PID, HW_TREE_PIDS_COL_IN};
    static const size_t widths[] = {1 + HW_ARRAY_SIZE(names), 0};
    named_init(r, names, HW_ARRAY_SIZE(names), widths);
}
