/* hw_metrics.csv: nvidia-smi --query-gpu rows. Columns are found by header name when there is a
 * header, else from the field list run.jsonl gives (opts.gpu_fields), else from what
 * hwmon/FORMAT.md says a row of that width holds; GPUs are told apart by index, uuid or position
 * within a timestamp's block. */
#include "cells.h"
#include "reader_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/timeutil.h"

/* What each dimension of hw_metrics.csv's figures can mean (readers.h): outside it, a bad cell. */
static const struct rd_range dim_range[HW_GPU_DIM_COUNT] = {
#define DIM_RANGE(id, ...) [HW_GPU_DIM_##id] = RD_RANGE_##id,
    HW_GPU_DIMS(DIM_RANGE)
#undef DIM_RANGE
};

static int parse_index(const char *s, size_t n)
{
    if (!n || n > 6)
        return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ---- hw_metrics.csv --------------------------------------------------------------------- */

enum { ROLE_IGNORE = -1, ROLE_TS = 100, ROLE_INDEX, ROLE_UUID };

struct gpu_layout {
    size_t n;
    int role[RD_MAX_COLS];
};

#define MAX_UUIDS 64

struct gpu_st {
    /* hwmon's default list of each version (hwrun/rundir.h's hw_gpu_fields(v); a later one is
     * longer), [0] version 1, and pytyche's: a headerless file of their width is read as them */
    struct gpu_layout header, opts, def_hwmon[HW_GPU_FIELD_VERSIONS_MAX], def_pytyche;
    int versions;
    bool have_header, have_opts;
    char last_ts[40];
    size_t last_ts_len;
    int pos;
    char uuids[MAX_UUIDS][48];
    int nuuids;
    double unmeasured[HW_GPU_FIG_COUNT]; /* all NAN: a row's metrics before its cells are read */
};

/* A column's role: a figure (by the one table's fields and aliases, hwrun/rundir.h), the
 * timestamp, the index, the uuid, or none; *prio the name's preference among its figure's. */
static int gpu_role(const char *name, int *prio)
{
    static const struct {
        const char *name;
        int role;
    } cols[] = {
        {HW_COL_TIMESTAMP, ROLE_TS},
        {"index", ROLE_INDEX},
        {"uuid", ROLE_UUID},
        {"gpu_uuid", ROLE_UUID},
    };
    *prio = 0;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (!strcmp(name, cols[i].name))
            return cols[i].role;
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[k];
        if (!strcmp(name, f->field)) {
            *prio = f->pref;
            return k;
        }
        for (const struct hw_gpu_alias *a = f->aliases; a && a->field; a++)
            if (!strcmp(name, a->field)) {
                *prio = a->pref;
                return k;
            }
    }
    return ROLE_IGNORE;
}

const char *rd_gpu_power_field(const char *fields)
{
    static const char *const power[] = {"power.draw", "power.draw.instant", "power.draw.average"};
    const char *best = NULL;
    int best_prio = -1;
    /* one field at a time: a report asks this, and a report never fails for memory here */
    for (const char *p = fields && *fields ? fields : hw_gpu_fields_default(); *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char name[64];
        rd_header_name(p, len, name, sizeof name);
        int prio;
        if (gpu_role(name, &prio) == HW_GM_POWER && prio > best_prio) {
            for (size_t k = 0; k < sizeof power / sizeof power[0]; k++)
                if (!strcmp(name, power[k]))
                    best = power[k];
            best_prio = prio;
        }
        if (!c)
            break;
        p = c + 1;
    }
    return best;
}

static bool gpu_known_name(const char *name)
{
    int prio;
    /* the table's fields and aliases, and other --query-gpu fields a header may name */
    return gpu_role(name, &prio) != ROLE_IGNORE || !strcmp(name, "name") ||
           !strcmp(name, "pstate") || !strcmp(name, "pci.bus_id") || !strcmp(name, "serial") ||
           !strcmp(name, "memory.free") || !strcmp(name, "driver_version") ||
           !strncmp(name, "clocks", 6) || !strncmp(name, "power.", 6) ||
           !strncmp(name, "temperature.", 12);
}

static void gpu_layout_from_names(struct gpu_layout *l, char (*names)[64], size_t n)
{
    int best_prio[HW_GPU_FIG_COUNT];
    int best_col[HW_GPU_FIG_COUNT];
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        best_prio[m] = -1, best_col[m] = -1;
    l->n = n;
    for (size_t i = 0; i < n; i++) {
        int prio;
        int role = gpu_role(names[i], &prio);
        l->role[i] = role;
        if (role >= 0 && role < HW_GPU_FIG_COUNT) {
            /* Several columns for one metric (power.draw and power.draw.instant): keep the
             * preferred one, the first of equals. */
            if (prio > best_prio[role]) {
                if (best_col[role] >= 0)
                    l->role[best_col[role]] = ROLE_IGNORE;
                best_prio[role] = prio;
                best_col[role] = (int)i;
            } else {
                l->role[i] = ROLE_IGNORE;
            }
        }
    }
}

static void gpu_layout_from_list(struct rd_reader *r, struct gpu_layout *l, const char *list)
{
    char(*buf)[64] = malloc(sizeof(char[RD_MAX_COLS][64]));
    if (!buf) {
        l->n = 0;
        r->q->oom = true;
        return;
    }
    size_t n = rd_split_fields(list, buf, RD_MAX_COLS);
    gpu_layout_from_names(l, buf, n);
    free(buf);
}

static void gpu_line(struct rd_reader *r, const char *s, size_t n)
{
    struct gpu_st *st = r->st;
    if (!rd_split_cells(r, s, n))
        return;
    struct rd_cells *c = &r->cells;
    if (rd_cells_are_header(r, gpu_known_name)) {
        char(*names)[64] = rd_header_names(r);
        if (names) {
            gpu_layout_from_names(&st->header, names, c->n);
            st->have_header = true;
        }
        r->q->headers++;
        return;
    }
    const struct gpu_layout *l = NULL;
    if (st->have_header)
        l = &st->header;
    else if (st->have_opts)
        l = &st->opts;
    for (int v = 0; !l && v < st->versions; v++)
        if (c->n == st->def_hwmon[v].n)
            l = &st->def_hwmon[v];
    if (!l && c->n == st->def_pytyche.n)
        l = &st->def_pytyche;
    if (!l) {
        char d[64];
        snprintf(d, sizeof d, "%zu cells and no header or field list", c->n);
        rd_skip(r, RD_SKIP_LAYOUT, d);
        return;
    }
    if (c->n != l->n) {
        char d[64];
        snprintf(d, sizeof d, "%zu, expected %zu", c->n, l->n);
        rd_skip(r, RD_SKIP_CELLS, d);
        return;
    }
    struct rd_gpu_row row;
    row.t = NAN;
    row.gpu = 0;
    row.id_from = RD_GPU_ID_NONE;
    row.uuid = NULL;
    row.line = r->lineno;
    row.fault = HW_GPU_FAULT_NONE;
    memcpy(row.v, st->unmeasured, sizeof row.v);
    int index = -1;
    const char *ts = NULL;
    size_t ts_len = 0;
    for (size_t i = 0; i < c->n; i++) {
        int role = l->role[i];
        const char *cs = c->s[i];
        size_t cl = c->len[i];
        if (cl > 2 && cs[0] == '[' && row.fault == HW_GPU_FAULT_NONE)
            row.fault = hw_gpu_fault_in(cs, cl);
        if (role >= 0 && role < HW_GPU_FIG_COUNT) {
            const struct hw_gpu_fig *f = &hw_gpu_figs[role];
            /* a board without the sensor answers N/A for a figure that may be: no placeholder
             * (the data-quality notes count those), only said once; other tokens still count */
            if ((f->flags & HW_GF_MAY_NA) &&
                ((cl == 5 && !memcmp(cs, "[N/A]", 5)) || (cl == 3 && !memcmp(cs, "N/A", 3)))) {
                r->q->not_reported[role]++;
                continue;
            }
            row.v[role] =
                rd_in_range(r, f->key, rd_num_cell(r->q, cs, cl, false), dim_range[f->dim]);
        } else if (role == ROLE_TS) {
            if (!rd_parse_smi_ts(&r->clock, &r->opts->tz, cs, cl, &row.t) &&
                !hw_parse_iso(cs, cl, &row.t)) {
                rd_skip(r, RD_SKIP_TIMESTAMP, NULL);
                return;
            }
            ts = cs;
            ts_len = cl;
        } else if (role == ROLE_INDEX) {
            index = parse_index(cs, cl);
            if (index < 0 && rd_is_placeholder(cs, cl))
                rd_count_token(r->q, cs, cl);
        } else if (role == ROLE_UUID) {
            if (rd_is_placeholder(cs, cl))
                rd_count_token(r->q, cs, cl);
            else if (cl)
                row.uuid = cs;
        } else if (rd_is_placeholder(cs, cl)) {
            rd_count_token(r->q, cs, cl);
        }
    }
    if (index >= 0) {
        row.gpu = index;
        row.id_from = RD_GPU_ID_INDEX;
    } else if (row.uuid) {
        int k;
        for (k = 0; k < st->nuuids; k++)
            if (!strncmp(st->uuids[k], row.uuid, sizeof st->uuids[k] - 1))
                break;
        if (k == st->nuuids && k < MAX_UUIDS) {
            snprintf(st->uuids[k], sizeof st->uuids[k], "%s", row.uuid);
            st->nuuids++;
        }
        row.gpu = k;
        row.id_from = RD_GPU_ID_UUID;
    } else if (ts) {
        if (ts_len == st->last_ts_len && !memcmp(ts, st->last_ts, ts_len)) {
            st->pos++;
        } else {
            st->pos = 0;
            st->last_ts_len = ts_len < sizeof st->last_ts ? ts_len : 0;
            memcpy(st->last_ts, ts, st->last_ts_len);
        }
        row.gpu = st->pos;
        row.id_from = RD_GPU_ID_POSITION;
    }
    if (row.fault != HW_GPU_FAULT_NONE)
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
            row.v[m] = NAN;
    r->q->parsed++;
    if (r->sink->gpu)
        r->sink->gpu(r->sink->ctx, &row);
}

/* nvidia-smi's rows start with their timestamp, unless the header or the field list says
 * otherwise: only then can a torn row be told from the whole one glued to it. */
static size_t gpu_row_start(struct rd_reader *r, const char *s, size_t n)
{
    const struct gpu_st *st = r->st;
    const struct gpu_layout *l = st->have_header ? &st->header : st->have_opts ? &st->opts : NULL;
    if (l && (l->n == 0 || l->role[0] != ROLE_TS))
        return 0;
    return rd_row_start_ts(r, s, n);
}

void rd_gpu_init(struct rd_reader *r)
{
    struct gpu_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    r->st = st;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        st->unmeasured[m] = NAN;
    st->versions = hw_gpu_field_version();
    for (int v = 0; v < st->versions; v++)
        gpu_layout_from_list(r, &st->def_hwmon[v], hw_gpu_fields(v + 1));
    gpu_layout_from_list(r, &st->def_pytyche, hw_gpu_fields_pytyche());
    if (r->opts && r->opts->gpu_fields && *r->opts->gpu_fields) {
        gpu_layout_from_list(r, &st->opts, r->opts->gpu_fields);
        st->have_opts = st->opts.n > 0;
    }
    r->line_fn = gpu_line;
    r->row_start_fn = gpu_row_start;
    r->free_fn = rd_st_free;
}
