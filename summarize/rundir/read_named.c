/* hwmon's own named-column CSVs: cpu_metrics.csv, proc_metrics.csv and tree_pids.csv
 * (hwmon/FORMAT.md). Columns by header name; a row without a header is read by its width as one
 * of hwmon's layouts. */
#include "reader_int.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/proccols.h"
#include "hwrun/treepids.h"

const char *const sum_cpu_col_names[SUM_CPU_COUNT] = {
    "usr_pct",    "idle_pct",     "sys_pct",
    "iowait_pct", "steal_pct",    "mem_used_mib",
    "mem_available_mib", "cgroup_cpu_limit_cores", "cgroup_cpu_pct",
    "cgroup_mem_current_mib", "cgroup_mem_max_mib",
};

const char *const sum_proc_col_names[SUM_PROC_COUNT] = {
    "procs", "threads", "cpu_pct", "rss_mib", "read_bytes", "write_bytes", "pss_mib",
    HW_PROC_MAIN_RSS, HW_PROC_MAIN_CPU, HW_PROC_MAIN_THREADS, HW_PROC_USR_CPU, HW_PROC_SYS_CPU,
};

/* ---- cpu_metrics.csv and proc_metrics.csv: named columns -------------------------------- */

struct named_st {
    const char *const *names;
    int nknown;
    const char *const *defaults; /* default layouts by width, NULL-terminated */
    bool have_layout;
    size_t ncols;
    int map[SUM_MAX_COLS]; /* column -> known index, -2 timestamp, -1 ignored */
};

static void named_layout(struct named_st *st, char (*names)[64], size_t n)
{
    st->ncols = n;
    for (size_t i = 0; i < n; i++) {
        st->map[i] = -1;
        if (!strcmp(names[i], "timestamp") || !strcmp(names[i], "ts")) {
            st->map[i] = -2;
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

static void named_line(struct sum_reader *r, const char *s, size_t n)
{
    struct named_st *st = r->st;
    if (!sum_split_cells(r, s, n))
        return;
    struct sum_cells *c = &r->cells;
    bool header = false;
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->s[i], "timestamp"))
            header = true;
    if (header) {
        char(*names)[64] = sum_header_names(r);
        if (names)
            named_layout(st, names, c->n);
        r->q->headers++;
        return;
    }
    if (!st->have_layout || st->ncols != c->n) {
        /* No header (yet): a row as wide as one of hwmon's layouts is read as that layout. */
        bool found = false;
        for (const char *const *d = st->defaults; *d; d++) {
            char(*names)[64] = sum_names_storage(r); /* rows must not allocate */
            if (!names)
                break;
            size_t k = sum_split_fields(*d, names, SUM_MAX_COLS);
            if (k == c->n && !st->have_layout) {
                named_layout(st, names, k);
                found = true;
                break;
            }
        }
        if (!found) {
            char d[64];
            if (st->have_layout) {
                snprintf(d, sizeof d, "%zu, expected %zu", c->n, st->ncols);
                sum_skip(r, SUM_SKIP_CELLS, d);
            } else {
                snprintf(d, sizeof d, "%zu cells and no header", c->n);
                sum_skip(r, SUM_SKIP_LAYOUT, d);
            }
            return;
        }
    }
    double vals[(int)SUM_CPU_COUNT + (int)SUM_PROC_COUNT];
    for (int k = 0; k < st->nknown; k++)
        vals[k] = NAN;
    double t = NAN;
    for (size_t i = 0; i < c->n; i++) {
        int k = st->map[i];
        if (k == -2) {
            if (!sum_parse_any_ts(c->s[i], c->len[i], &t)) {
                sum_skip(r, SUM_SKIP_TIMESTAMP, NULL);
                return;
            }
        } else if (k >= 0) {
            vals[k] = sum_num_cell(r->q, c->s[i], c->len[i], true);
        }
    }
    r->q->parsed++;
    if (r->kind == SUM_KIND_TREE_PIDS) {
        double pid = vals[0], in = vals[1];
        struct sum_tree_pid_row row = {
            .t = t,
            .pid = pid >= 1 && pid <= INT_MAX && pid == floor(pid) ? (long)pid : -1,
            .in_tree = in == 0 || in == 1 ? (int)in : -1,
            .line = r->lineno,
        };
        if (r->sink->tree_pid)
            r->sink->tree_pid(r->sink->ctx, &row);
    } else if (r->kind == SUM_KIND_CPU) {
        struct sum_cpu_row row = {.t = t, .line = r->lineno};
        memcpy(row.v, vals, sizeof row.v);
        if (r->sink->cpu)
            r->sink->cpu(r->sink->ctx, &row);
    } else {
        struct sum_proc_row row = {.t = t, .line = r->lineno};
        memcpy(row.v, vals, sizeof row.v);
        if (r->sink->proc)
            r->sink->proc(r->sink->ctx, &row);
    }
}

void sum_cpu_init(struct sum_reader *r)
{
    static const char *const defaults[] = {
        "timestamp,usr_pct,idle_pct",
        "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,mem_available_mib",
        "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,mem_available_mib,"
        "cgroup_cpu_limit_cores,cgroup_cpu_pct,cgroup_mem_current_mib,cgroup_mem_max_mib",
        NULL,
    };
    struct named_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    st->names = sum_cpu_col_names;
    st->nknown = SUM_CPU_COUNT;
    st->defaults = defaults;
    r->st = st;
    r->line_fn = named_line;
    r->free_fn = sum_st_free;
}

void sum_proc_init(struct sum_reader *r)
{
    static const char *const defaults[] = {
        "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes",
        "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes,pss_mib",
        NULL,
    };
    struct named_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    st->names = sum_proc_col_names;
    st->nknown = SUM_PROC_COUNT;
    st->defaults = defaults;
    r->st = st;
    r->line_fn = named_line;
    r->free_fn = sum_st_free;
}

void sum_tree_pids_init(struct sum_reader *r)
{
    static const char *const names[] = {HW_TREE_PIDS_COL_PID, HW_TREE_PIDS_COL_IN};
    static const char *const defaults[] = {HW_TREE_PIDS_HEADER, NULL};
    struct named_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    st->names = names;
    st->nknown = 2;
    st->defaults = defaults;
    r->st = st;
    r->line_fn = named_line;
    r->free_fn = sum_st_free;
}
