/* Line parsers for the CSV files (hw_metrics.csv, cpu_metrics.csv, proc_metrics.csv,
 * gpu_procs.csv) and for dmon's whitespace columns (hw_dmon.csv). Columns are found by header
 * name when there is a header, else from the field list run.jsonl gives, else from what
 * hwmon/FORMAT.md says a row of that width holds. */
#include "reader_int.h"

#include "hwrun/cpucols.h"
#include "hwrun/gpm.h"
#include "hwrun/proccols.h"
#include "hwrun/timeutil.h"
#include "hwrun/treepids.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sum_gpu_metric_names[SUM_GM_COUNT] = {
    "util_pct",  "mem_util_pct", "mem_used_mib",  "mem_total_mib", "power_w",
    "temp_c",    "sm_clock_mhz", "mem_clock_mhz", "gr_clock_mhz",
};

const char *const sum_dmon_col_names[SUM_DM_COUNT] = {
    "pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk", "fb",
    "bar1", "ccpm", "rxpci", "txpci", HW_GPM_COLUMNS,
};

const char *const sum_cpu_col_names[SUM_CPU_COUNT] = {
    "usr_pct",       "idle_pct",      "sys_pct",        "iowait_pct",     "steal_pct",
    "mem_used_mib",  "mem_available_mib", HW_CPU_CG_LIMIT, HW_CPU_CG_PCT, HW_CPU_CG_MEM,
    HW_CPU_CG_MEM_MAX, HW_CPU_CG_MEM_PEAK, HW_CPU_DISK_READ, HW_CPU_DISK_WRITE, HW_CPU_NET_RX,
    HW_CPU_NET_TX,   HW_CPU_FS_FREE,
};

const char *const sum_proc_col_names[SUM_PROC_COUNT] = {
    "procs", "threads", "cpu_pct", "rss_mib", "read_bytes", "write_bytes", "pss_mib",
    HW_PROC_MAIN_RSS, HW_PROC_MAIN_CPU, HW_PROC_MAIN_THREADS, HW_PROC_USR_CPU, HW_PROC_SYS_CPU,
};

/* ---- helpers ---------------------------------------------------------------------------- */

static bool is_placeholder(const char *s, size_t n)
{
    return n && (s[0] == '[' || (n == 3 && !memcmp(s, "N/A", 3)));
}

/* A header cell: a field name ("utilization.gpu", "vgpu_driver_capability.x"), optionally
 * followed by " [unit]". */
static bool header_cell(const char *s, size_t n)
{
    if (!n || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    size_t i = 0;
    while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                     (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '.'))
        i++;
    if (i == n)
        return true;
    return n - i >= 3 && s[i] == ' ' && s[i + 1] == '[' && s[n - 1] == ']';
}

/* Split a comma-separated field list ("timestamp, index,uuid") into names. Returns the count. */
static size_t split_fields(const char *list, char (*out)[64], size_t max)
{
    size_t n = 0;
    const char *p = list;
    while (*p && n < max) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        sum_header_name(p, len, out[n], 64);
        n++;
        if (!c)
            break;
        p = c + 1;
    }
    return n;
}

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
    int role[SUM_MAX_COLS];
};

#define MAX_UUIDS 64

struct gpu_st {
    struct gpu_layout header, opts, def11, def9;
    bool have_header, have_opts;
    char last_ts[40];
    size_t last_ts_len;
    int pos;
    char uuids[MAX_UUIDS][48];
    int nuuids;
};

static int gpu_role(const char *name, int *prio)
{
    static const struct {
        const char *name;
        int role, prio;
    } map[] = {
        {"timestamp", ROLE_TS, 0},
        {"index", ROLE_INDEX, 0},
        {"uuid", ROLE_UUID, 0},
        {"gpu_uuid", ROLE_UUID, 0},
        {"utilization.gpu", SUM_GM_UTIL, 0},
        {"utilization.memory", SUM_GM_MEM_UTIL, 0},
        {"memory.used", SUM_GM_MEM_USED, 0},
        {"memory.total", SUM_GM_MEM_TOTAL, 0},
        {"power.draw", SUM_GM_POWER, 3},
        {"power.draw.instant", SUM_GM_POWER, 2},
        {"power.draw.average", SUM_GM_POWER, 1},
        {"temperature.gpu", SUM_GM_TEMP, 0},
        {"clocks.current.sm", SUM_GM_SM_CLOCK, 0},
        {"clocks.sm", SUM_GM_SM_CLOCK, 0},
        {"clocks.current.memory", SUM_GM_MEM_CLOCK, 0},
        {"clocks.mem", SUM_GM_MEM_CLOCK, 0},
        {"clocks.current.graphics", SUM_GM_GR_CLOCK, 0},
        {"clocks.gr", SUM_GM_GR_CLOCK, 0},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(name, map[i].name)) {
            *prio = map[i].prio;
            return map[i].role;
        }
    *prio = 0;
    return ROLE_IGNORE;
}

static bool gpu_known_name(const char *name)
{
    int prio;
    return gpu_role(name, &prio) != ROLE_IGNORE || !strcmp(name, "name") ||
           !strcmp(name, "pstate") || !strcmp(name, "pci.bus_id") || !strcmp(name, "serial") ||
           !strcmp(name, "memory.free") || !strcmp(name, "fan.speed") ||
           !strcmp(name, "driver_version") || !strncmp(name, "clocks", 6) ||
           !strncmp(name, "power.", 6) || !strncmp(name, "temperature.", 12);
}

static void gpu_layout_from_names(struct gpu_layout *l, char (*names)[64], size_t n)
{
    int best_prio[SUM_GM_COUNT];
    int best_col[SUM_GM_COUNT];
    for (int m = 0; m < SUM_GM_COUNT; m++)
        best_prio[m] = -1, best_col[m] = -1;
    l->n = n;
    for (size_t i = 0; i < n; i++) {
        int prio;
        int role = gpu_role(names[i], &prio);
        l->role[i] = role;
        if (role >= 0 && role < SUM_GM_COUNT) {
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

static void gpu_layout_from_list(struct gpu_layout *l, const char *list)
{
    char(*buf)[64] = malloc(sizeof(char[SUM_MAX_COLS][64]));
    if (!buf) {
        l->n = 0;
        return;
    }
    size_t n = split_fields(list, buf, SUM_MAX_COLS);
    gpu_layout_from_names(l, buf, n);
    free(buf);
}

static bool cells_are_header(struct sum_reader *r, bool (*known)(const char *))
{
    struct sum_cells *c = &r->cells;
    bool any = false;
    for (size_t i = 0; i < c->n; i++) {
        if (!header_cell(c->s[i], c->len[i]))
            return false;
        char name[64];
        sum_header_name(c->s[i], c->len[i], name, sizeof name);
        if (known(name))
            any = true;
    }
    return any;
}

/* Room for a line's column names, kept by the reader from the first use on, so that rows never
 * allocate. NULL if memory ran out. */
static char (*names_storage(struct sum_reader *r))[64]
{
    if (!r->names)
        r->names = malloc(sizeof(char[SUM_MAX_COLS][64]));
    return r->names;
}

/* The cells of a header line as column names (units stripped), in names_storage(). NULL if
 * memory ran out: the header is then counted but not used. */
static char (*header_names(struct sum_reader *r))[64]
{
    if (!names_storage(r))
        return NULL;
    for (size_t i = 0; i < r->cells.n; i++)
        sum_header_name(r->cells.s[i], r->cells.len[i], r->names[i], 64);
    return r->names;
}

/* Split a CSV line into r->cells; false, with the line counted as skipped, if it cannot be. */
static bool split_cells(struct sum_reader *r, const char *s, size_t n)
{
    if (!sum_split_csv(r, s, n)) {
        sum_skip(r, SUM_SKIP_CSV, NULL);
        return false;
    }
    if (r->cells.overflow) {
        sum_skip(r, SUM_SKIP_CELLS, "too many cells");
        return false;
    }
    return true;
}

static void gpu_line(struct sum_reader *r, const char *s, size_t n)
{
    struct gpu_st *st = r->st;
    if (!split_cells(r, s, n))
        return;
    struct sum_cells *c = &r->cells;
    if (cells_are_header(r, gpu_known_name)) {
        char(*names)[64] = header_names(r);
        if (names) {
            gpu_layout_from_names(&st->header, names, c->n);
            st->have_header = true;
        }
        r->q->headers++;
        return;
    }
    const struct gpu_layout *l;
    if (st->have_header)
        l = &st->header;
    else if (st->have_opts)
        l = &st->opts;
    else if (c->n == 11)
        l = &st->def11;
    else if (c->n == 9)
        l = &st->def9;
    else {
        char d[64];
        snprintf(d, sizeof d, "%zu cells and no header or field list", c->n);
        sum_skip(r, SUM_SKIP_LAYOUT, d);
        return;
    }
    if (c->n != l->n) {
        char d[64];
        snprintf(d, sizeof d, "%zu, expected %zu", c->n, l->n);
        sum_skip(r, SUM_SKIP_CELLS, d);
        return;
    }
    struct sum_gpu_row row;
    row.t = NAN;
    row.gpu = 0;
    row.id_from = SUM_GPU_ID_NONE;
    row.uuid = NULL;
    row.line = r->lineno;
    for (int m = 0; m < SUM_GM_COUNT; m++)
        row.v[m] = NAN;
    int index = -1;
    const char *ts = NULL;
    size_t ts_len = 0;
    for (size_t i = 0; i < c->n; i++) {
        int role = l->role[i];
        const char *cs = c->s[i];
        size_t cl = c->len[i];
        if (role >= 0 && role < SUM_GM_COUNT) {
            row.v[role] = sum_num_cell(r->q, cs, cl, false);
        } else if (role == ROLE_TS) {
            if (!sum_parse_smi_ts(&r->clock, &r->opts->tz, cs, cl, &row.t) &&
                !hw_parse_iso(cs, cl, &row.t)) {
                sum_skip(r, SUM_SKIP_TIMESTAMP, NULL);
                return;
            }
            ts = cs;
            ts_len = cl;
        } else if (role == ROLE_INDEX) {
            index = parse_index(cs, cl);
            if (index < 0 && is_placeholder(cs, cl))
                sum_count_token(r->q, cs, cl);
        } else if (role == ROLE_UUID) {
            if (is_placeholder(cs, cl))
                sum_count_token(r->q, cs, cl);
            else if (cl)
                row.uuid = cs;
        } else if (is_placeholder(cs, cl)) {
            sum_count_token(r->q, cs, cl);
        }
    }
    if (index >= 0) {
        row.gpu = index;
        row.id_from = SUM_GPU_ID_INDEX;
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
        row.id_from = SUM_GPU_ID_UUID;
    } else if (ts) {
        if (ts_len == st->last_ts_len && !memcmp(ts, st->last_ts, ts_len)) {
            st->pos++;
        } else {
            st->pos = 0;
            st->last_ts_len = ts_len < sizeof st->last_ts ? ts_len : 0;
            memcpy(st->last_ts, ts, st->last_ts_len);
        }
        row.gpu = st->pos;
        row.id_from = SUM_GPU_ID_POSITION;
    }
    r->q->parsed++;
    if (r->sink->gpu)
        r->sink->gpu(r->sink->ctx, &row);
}

static void st_free(struct sum_reader *r)
{
    free(r->st);
    r->st = NULL;
}

void sum_gpu_init(struct sum_reader *r)
{
    struct gpu_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    r->st = st;
    gpu_layout_from_list(&st->def11, "timestamp,utilization.gpu,utilization.memory,memory.used,"
                                     "memory.total,power.draw,temperature.gpu,clocks.current.sm,"
                                     "clocks.current.memory,index,uuid");
    gpu_layout_from_list(&st->def9, "timestamp,utilization.gpu,utilization.memory,memory.used,"
                                    "memory.total,power.draw,temperature.gpu,clocks.current.sm,"
                                    "clocks.current.memory");
    if (r->opts && r->opts->gpu_fields && *r->opts->gpu_fields) {
        gpu_layout_from_list(&st->opts, r->opts->gpu_fields);
        st->have_opts = st->opts.n > 0;
    }
    r->line_fn = gpu_line;
    r->free_fn = st_free;
}

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
    if (!split_cells(r, s, n))
        return;
    struct sum_cells *c = &r->cells;
    bool header = false;
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->s[i], "timestamp"))
            header = true;
    if (header) {
        char(*names)[64] = header_names(r);
        if (names)
            named_layout(st, names, c->n);
        r->q->headers++;
        return;
    }
    if (!st->have_layout || st->ncols != c->n) {
        /* No header (yet): a row as wide as one of hwmon's layouts is read as that layout. */
        bool found = false;
        for (const char *const *d = st->defaults; *d; d++) {
            char(*names)[64] = names_storage(r); /* rows must not allocate */
            if (!names)
                break;
            size_t k = split_fields(*d, names, SUM_MAX_COLS);
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
    r->free_fn = st_free;
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
    r->free_fn = st_free;
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
    r->free_fn = st_free;
}

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
    if (!strcmp(name, "timestamp"))
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

static void gp_line(struct sum_reader *r, const char *s, size_t n)
{
    struct gp_st *st = r->st;
    if (!split_cells(r, s, n))
        return;
    struct sum_cells *c = &r->cells;
    if (cells_are_header(r, gp_known)) {
        char(*names)[64] = header_names(r);
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
        sum_skip(r, SUM_SKIP_CELLS, d);
        return;
    }
    struct sum_gpu_proc_row row = {.t = NAN, .pid = -1, .used_mib = NAN, .line = r->lineno};
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
            if (is_placeholder(st->name, o))
                sum_count_token(r->q, st->name, o);
            row.name = st->name;
            i += extra;
        } else if ((int)logical == col[GP_TS]) {
            if (!sum_parse_smi_ts(&r->clock, &r->opts->tz, cs, cl, &row.t) &&
                !hw_parse_iso(cs, cl, &row.t)) {
                sum_skip(r, SUM_SKIP_TIMESTAMP, NULL);
                return;
            }
        } else if ((int)logical == col[GP_UUID]) {
            if (is_placeholder(cs, cl))
                sum_count_token(r->q, cs, cl);
            else
                row.gpu_uuid = cs;
        } else if ((int)logical == col[GP_PID]) {
            double v;
            if (sum_parse_number(cs, cl, &v) && v >= 0 && v < 1e12 && v == floor(v))
                row.pid = (long)v;
            else if (is_placeholder(cs, cl))
                sum_count_token(r->q, cs, cl);
            else
                r->q->bad_cells++;
        } else if ((int)logical == col[GP_MEM]) {
            row.used_mib = sum_num_cell(r->q, cs, cl, false);
        } else if (is_placeholder(cs, cl)) {
            sum_count_token(r->q, cs, cl);
        }
    }
    r->q->parsed++;
    if (r->sink->gpu_proc)
        r->sink->gpu_proc(r->sink->ctx, &row);
}

void sum_gpu_procs_init(struct sum_reader *r)
{
    struct gp_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    char(*names)[64] = malloc(sizeof(char[SUM_MAX_COLS][64]));
    if (!names) {
        free(st);
        return;
    }
    const char *f = r->opts && r->opts->gpu_procs_fields && *r->opts->gpu_procs_fields
                        ? r->opts->gpu_procs_fields
                        : "timestamp,gpu_uuid,pid,used_gpu_memory,process_name";
    size_t n = split_fields(f, names, SUM_MAX_COLS);
    gp_layout(&st->ncols, st->col, names, n);
    free(names);
    r->st = st;
    r->line_fn = gp_line;
    r->free_fn = st_free;
}

/* ---- hw_dmon.csv ------------------------------------------------------------------------ */

struct dmon_st {
    size_t ncols;
    char namebuf[8192];
    const char *names[SUM_MAX_COLS];
    int map[SUM_MAX_COLS]; /* -> enum sum_dmon_col, or -1 */
    int gpu_col, date_col, time_col;
    double vals[SUM_MAX_COLS];
};

static void dmon_header(struct sum_reader *r, struct dmon_st *st)
{
    struct sum_cells *c = &r->cells;
    /* "# gpu pwr ..." (first token "#") or "#Date Time gpu ..." (label glued to '#'). */
    size_t first = 0, n = 0, o = 0;
    const char *tok[SUM_MAX_COLS];
    size_t len[SUM_MAX_COLS];
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
        for (int k = 0; k < SUM_DM_COUNT; k++)
            if (!strcmp(nm, sum_dmon_col_names[k]))
                st->map[i] = k;
        if (!strcmp(nm, "temp"))
            st->map[i] = SUM_DM_GTEMP; /* drivers <= 2018 */
        if (!strcmp(nm, "gpu") && st->gpu_col < 0)
            st->gpu_col = (int)i;
        if (!strcmp(nm, "Date"))
            st->date_col = (int)i;
        if (!strcmp(nm, "Time"))
            st->time_col = (int)i;
        st->ncols++;
    }
}

static void dmon_line(struct sum_reader *r, const char *s, size_t n)
{
    struct dmon_st *st = r->st;
    sum_split_ws(r, s, n);
    struct sum_cells *c = &r->cells;
    if (c->overflow) {
        sum_skip(r, SUM_SKIP_CELLS, "too many columns");
        return;
    }
    if (c->n && c->s[0][0] == '#') {
        dmon_header(r, st);
        return;
    }
    if (!st->ncols) {
        sum_skip(r, SUM_SKIP_LAYOUT, "no '# gpu ...' header before it");
        return;
    }
    if (c->n != st->ncols) {
        char d[64];
        snprintf(d, sizeof d, "%zu columns, expected %zu", c->n, st->ncols);
        sum_skip(r, SUM_SKIP_CELLS, d);
        return;
    }
    struct sum_dmon_row row = {.t = NAN, .gpu = -1, .line = r->lineno};
    for (int k = 0; k < SUM_DM_COUNT; k++)
        row.v[k] = NAN;
    for (size_t i = 0; i < c->n; i++) {
        st->vals[i] = NAN;
        if ((int)i == st->date_col || (int)i == st->time_col)
            continue;
        double v = sum_num_cell(r->q, c->s[i], c->len[i], false);
        st->vals[i] = v;
        if (st->map[i] >= 0)
            row.v[st->map[i]] = v;
        if ((int)i == st->gpu_col && v >= 0 && v < 1e6 && v == floor(v))
            row.gpu = (int)v;
    }
    if (st->date_col >= 0 && st->time_col >= 0) {
        /* -o DT: "YYYYMMDD" "HH:MM:SS" becomes nvidia-smi's usual "YYYY/MM/DD HH:MM:SS", read by
         * the one zone-aware, cached parser of its times */
        const char *ds = c->s[st->date_col], *ts = c->s[st->time_col];
        char buf[19];
        if (c->len[st->date_col] != 8 || c->len[st->time_col] != 8) {
            sum_skip(r, SUM_SKIP_TIMESTAMP, NULL);
            return;
        }
        memcpy(buf, ds, 4);
        buf[4] = '/';
        memcpy(buf + 5, ds + 4, 2);
        buf[7] = '/';
        memcpy(buf + 8, ds + 6, 2);
        buf[10] = ' ';
        memcpy(buf + 11, ts, 8);
        if (!sum_parse_smi_ts(&r->clock, &r->opts->tz, buf, sizeof buf, &row.t)) {
            sum_skip(r, SUM_SKIP_TIMESTAMP, NULL);
            return;
        }
    }
    row.ncols = c->n;
    row.names = st->names;
    row.vals = st->vals;
    r->q->parsed++;
    if (r->sink->dmon)
        r->sink->dmon(r->sink->ctx, &row);
}

void sum_dmon_init(struct sum_reader *r)
{
    struct dmon_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    st->gpu_col = st->date_col = st->time_col = -1;
    r->st = st;
    r->line_fn = dmon_line;
    r->free_fn = st_free;
}
