/* The reader machinery shared by every file kind: line assembly over chunk boundaries (with a
 * bounded carry buffer, so memory does not depend on the file), CSV splitting through libcsv,
 * number and timestamp cells, quality counters, time zones and what run.jsonl tells the others.
 * The per-kind line parsers live in csvin.c, dmonin.c and jsonlin.c. */
#include "reader_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwrun/cores.h"
#include "hwrun/gpm.h"
#include "hwrun/parse.h"
#include "hwrun/timeutil.h"
#include "hwrun/treepids.h"

const char *const sum_skip_names[SUM_SKIP_COUNT] = {
    "too_long", "csv", "cells", "layout", "timestamp", "json", "shape", "binary",
};

const char *const sum_kind_files[SUM_KIND_COUNT] = {
    "hw_metrics.csv", "hw_dmon.csv", "cpu_metrics.csv", "proc_metrics.csv", "gpu_procs.csv",
    "run.jsonl", HW_GPM_FILE, HW_TREE_PIDS_FILE,
};

uint64_t sum_quality_skipped_total(const struct sum_quality *q)
{
    uint64_t t = 0;
    for (int i = 0; i < SUM_SKIP_COUNT; i++)
        t += q->skipped[i];
    return t;
}

uint64_t sum_quality_placeholders_total(const struct sum_quality *q)
{
    uint64_t t = q->placeholders_other;
    for (size_t i = 0; i < q->n_tokens; i++)
        t += q->placeholders[i].n;
    return t;
}

/* ---- time zones ------------------------------------------------------------------------- */

static bool parse_offset(const char *s, long *out)
{
    if (*s != '+' && *s != '-')
        return false;
    int sign = *s == '-' ? -1 : 1;
    s++;
    long h = 0, m = 0;
    if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'))
        return false;
    h = (s[0] - '0') * 10 + (s[1] - '0');
    s += 2;
    if (*s == ':')
        s++;
    if (*s) {
        if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9') || s[2])
            return false;
        m = (s[0] - '0') * 10 + (s[1] - '0');
    }
    if (h > 18 || m > 59)
        return false;
    *out = sign * (h * 3600 + m * 60);
    return true;
}

int sum_tz_parse(const char *s, bool allow_named, struct sum_tz *out)
{
    if (!s || !*s || strlen(s) >= sizeof out->name)
        return -EINVAL;
    struct sum_tz tz = {0};
    snprintf(tz.name, sizeof tz.name, "%s", s);
    if (!strcasecmp(s, "UTC") || !strcasecmp(s, "Z") || !strcasecmp(s, "GMT") ||
        !strcmp(s, "Etc/UTC") || !strcmp(s, "UTC0")) {
        tz.kind = SUM_TZ_UTC;
        *out = tz;
        return 0;
    }
    const char *o = s;
    if (!strncasecmp(o, "UTC", 3) || !strncasecmp(o, "GMT", 3))
        o += 3;
    long off;
    if (parse_offset(o, &off)) {
        tz.kind = off ? SUM_TZ_FIXED : SUM_TZ_UTC;
        tz.offset_s = off;
        *out = tz;
        return 0;
    }
    if (!allow_named)
        return -EINVAL;
    /* A zone name: letters, digits, '/', '_', '-', '+'; no "..", must exist in the tz database
     * (glibc silently takes an unknown name as UTC, which would be a wrong guess). */
    for (const char *p = s; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '/' || *p == '_' || *p == '-' || *p == '+'))
            return -EINVAL;
    if (strstr(s, "..") || s[0] == '/')
        return -EINVAL;
    char path[160];
    snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", s);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -EINVAL;
    tz.kind = SUM_TZ_NAMED;
    *out = tz;
    return 0;
}

double sum_tz_to_utc(const struct sum_tz *tz, int year, int mon, int day, int hour, int min,
                     double sec)
{
    double utc = (double)(hw_days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400L +
                          hour * 3600L + min * 60L) +
                 sec;
    switch (tz->kind) {
    case SUM_TZ_UTC:
        return utc;
    case SUM_TZ_FIXED:
        return utc - (double)tz->offset_s;
    case SUM_TZ_NAMED: {
        struct tm tm = {0};
        tm.tm_year = year - 1900;
        tm.tm_mon = mon - 1;
        tm.tm_mday = day;
        tm.tm_hour = hour;
        tm.tm_min = min;
        tm.tm_isdst = -1;
        time_t t = mktime(&tm);
        if (t == (time_t)-1)
            return utc;
        return (double)t + sec;
    }
    }
    return utc;
}

/* ---- cells ------------------------------------------------------------------------------ */

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool sum_parse_number(const char *s, size_t n, double *out)
{
    /* Fast path (Clinger): at most 15 significant digits and no exponent, so both the integer
     * mantissa and the power of ten are exact doubles and one division rounds correctly. */
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    uint64_t m = 0;
    int nd = 0, frac = 0;
    size_t ndig = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && nd < 16) {
        m = m * 10 + (uint64_t)(s[i++] - '0');
        ndig++;
        if (m)
            nd++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9' && nd < 16) {
            m = m * 10 + (uint64_t)(s[i++] - '0');
            ndig++;
            frac++;
            if (m)
                nd++;
        }
    }
    if (ndig && nd < 16 && frac <= 22 && (i == n || s[i] == ' ')) {
        double v = (double)m;
        if (frac)
            v /= pow10_tab[frac];
        *out = neg ? -v : v;
        return true;
    }
    return hw_parse_num_cell(s, n, out);
}

void sum_count_token(struct sum_quality *q, const char *s, size_t n)
{
    if (n >= sizeof q->placeholders[0].token)
        n = sizeof q->placeholders[0].token - 1;
    for (size_t i = 0; i < q->n_tokens; i++)
        if (strlen(q->placeholders[i].token) == n && !memcmp(q->placeholders[i].token, s, n)) {
            q->placeholders[i].n++;
            return;
        }
    if (q->n_tokens < SUM_MAX_TOKENS) {
        memcpy(q->placeholders[q->n_tokens].token, s, n);
        q->placeholders[q->n_tokens].token[n] = '\0';
        q->placeholders[q->n_tokens].n = 1;
        q->n_tokens++;
    } else {
        q->placeholders_other++;
    }
}

double sum_num_cell(struct sum_quality *q, const char *s, size_t n, bool count_empty)
{
    double v;
    if (n == 0) {
        if (count_empty)
            sum_count_token(q, "", 0);
        return NAN;
    }
    if (sum_parse_number(s, n, &v))
        return v;
    if (s[0] == '[' || (n == 3 && !memcmp(s, "N/A", 3)) || (n == 1 && s[0] == '-')) {
        sum_count_token(q, s, n);
        return NAN;
    }
    q->bad_cells++;
    return NAN;
}

bool sum_parse_smi_ts(struct sum_smi_clock *c, const struct sum_tz *tz, const char *s, size_t n,
                      double *out)
{
    /* "YYYY/MM/DD HH:MM:SS[.fff]": the hour's UTC base is cached, rows come seconds apart. */
    if (n < 19 || s[4] != '/' || s[7] != '/' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
        return false;
    static const int dpos[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};
    for (size_t k = 0; k < sizeof dpos / sizeof dpos[0]; k++)
        if (s[dpos[k]] < '0' || s[dpos[k]] > '9')
            return false;
    int mi = (s[14] - '0') * 10 + (s[15] - '0');
    int se = (s[17] - '0') * 10 + (s[18] - '0');
    if (mi > 59 || se > 60)
        return false;
    double frac = 0;
    if (n > 19) {
        /* the fraction as an integer over a power of ten: exact to the 9th digit; any further
         * digits are checked but below a double's resolution at epoch scale */
        if ((s[19] != '.' && s[19] != ',') || n == 20)
            return false;
        size_t nd = n - 20 < 9 ? n - 20 : 9;
        uint64_t f = 0;
        for (size_t i = 20; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                return false;
            if (i < 20 + nd)
                f = f * 10 + (uint64_t)(s[i] - '0');
        }
        frac = (double)f / pow10_tab[nd];
    }
    if (!c->valid || memcmp(c->key, s, 13) != 0) {
        int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
        int mo = (s[5] - '0') * 10 + (s[6] - '0');
        int d = (s[8] - '0') * 10 + (s[9] - '0');
        int h = (s[11] - '0') * 10 + (s[12] - '0');
        if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23)
            return false;
        c->hour_base = sum_tz_to_utc(tz, y, mo, d, h, 0, 0);
        memcpy(c->key, s, 13);
        c->valid = true;
    }
    *out = c->hour_base + mi * 60 + se + frac;
    return true;
}

bool sum_parse_any_ts(const char *s, size_t n, double *out)
{
    if (hw_parse_iso(s, n, out))
        return true;
    return hw_parse_smi_time(s, n, 0, out);
}

void sum_header_name(const char *s, size_t n, char *out, size_t cap)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    const char *br = memchr(s, '[', n);
    if (br)
        n = (size_t)(br - s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* ---- splitting -------------------------------------------------------------------------- */

static void add_cell(struct sum_reader *r, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    struct sum_cells *c = &r->cells;
    if (c->n >= SUM_MAX_COLS) {
        c->overflow = true;
        return;
    }
    if (r->cellbuf_len + n + 1 > r->cellbuf_cap) {
        /* cellbuf is sized for max_line + cells: only a bug would get here */
        r->cell_oom = true;
        return;
    }
    char *d = r->cellbuf + r->cellbuf_len;
    memcpy(d, s, n);
    d[n] = '\0';
    r->cellbuf_len += n + 1;
    c->s[c->n] = d;
    c->len[c->n] = n;
    c->n++;
}

static void csv_cb_field(void *s, size_t n, void *ctx)
{
    add_cell(ctx, s ? s : "", s ? n : 0);
}

static void csv_cb_row(int c, void *ctx)
{
    (void)c, (void)ctx;
}

/* libcsv grows its field buffer with realloc; refuse beyond the line limit so a hostile file
 * cannot make it allocate more than that. */
static size_t csv_limit = SUM_DEFAULT_MAX_LINE * 2 + 4096;
static void *csv_bounded_realloc(void *p, size_t n)
{
    if (n > csv_limit)
        return NULL;
    return realloc(p, n);
}

/* Lines with no quote and no carriage return (all of nvidia-smi's and hwmon's) are split
 * here: copied once, cut at each ',', blanks trimmed. That is exactly what libcsv makes of
 * such a line (the readers suite and fuzz_csv_split compare the two), at a fraction of the
 * cost; anything else goes through libcsv. */
static bool split_plain(struct sum_reader *r, const char *s, size_t n)
{
    if (memchr(s, '"', n) || memchr(s, '\r', n) || n + 1 > r->cellbuf_cap)
        return false;
    char *d = r->cellbuf;
    memcpy(d, s, n);
    d[n] = '\0';
    struct sum_cells *c = &r->cells;
    size_t i = 0;
    for (;;) {
        char *comma = memchr(d + i, ',', n - i);
        size_t end = comma ? (size_t)(comma - d) : n;
        size_t b = i, e = end;
        while (b < e && (d[b] == ' ' || d[b] == '\t'))
            b++;
        while (e > b && (d[e - 1] == ' ' || d[e - 1] == '\t'))
            e--;
        if (c->n >= SUM_MAX_COLS) {
            c->overflow = true;
            return true;
        }
        d[e] = '\0';
        c->s[c->n] = d + b;
        c->len[c->n] = e - b;
        c->n++;
        if (!comma)
            break;
        i = end + 1;
    }
    r->cellbuf_len = n + 1;
    return true;
}

bool sum_csv_libcsv_only = false;

bool sum_split_csv(struct sum_reader *r, const char *s, size_t n)
{
    r->cells.n = 0;
    r->cells.overflow = false;
    r->cellbuf_len = 0;
    r->cell_oom = false;
    if (!sum_csv_libcsv_only && split_plain(r, s, n))
        return true;
    return sum_split_libcsv(r, s, n);
}

bool sum_split_libcsv(struct sum_reader *r, const char *s, size_t n)
{
    r->cells.n = 0;
    r->cells.overflow = false;
    r->cellbuf_len = 0;
    r->cell_oom = false;
    if (!r->csv_ok)
        return false;
    if (csv_parse(&r->csv, s, n, csv_cb_field, csv_cb_row, r) != n) {
        csv_fini(&r->csv, csv_cb_field, csv_cb_row, r);
        return false;
    }
    if (csv_fini(&r->csv, csv_cb_field, csv_cb_row, r) != 0)
        return false;
    return !r->cell_oom;
}

void sum_split_ws(struct sum_reader *r, const char *s, size_t n)
{
    r->cells.n = 0;
    r->cells.overflow = false;
    r->cellbuf_len = 0;
    r->cell_oom = false;
    size_t i = 0;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\v' ||
                         s[i] == '\f'))
            i++;
        if (i >= n)
            break;
        size_t b = i;
        while (i < n && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\v' ||
                          s[i] == '\f'))
            i++;
        add_cell(r, s + b, i - b);
    }
}

void sum_skip(struct sum_reader *r, enum sum_skip why, const char *detail)
{
    r->q->skipped[why]++;
    if (r->sink->diag) {
        char msg[200];
        static const char *const what[SUM_SKIP_COUNT] = {
            "line too long",       "not CSV",        "wrong number of cells",
            "unknown columns",     "bad timestamp",  "not JSON",
            "not a run log entry", "binary data (NUL bytes)",
        };
        if (detail && *detail)
            snprintf(msg, sizeof msg, "%s (%s), skipped", what[why], detail);
        else
            snprintf(msg, sizeof msg, "%s, skipped", what[why]);
        r->sink->diag(r->sink->ctx, r->name, r->lineno, msg);
    }
}

/* ---- line assembly ---------------------------------------------------------------------- */

static void handle_line(struct sum_reader *r, const char *s, size_t n)
{
    r->lineno++;
    r->q->lines++;
    if (n && s[n - 1] == '\r')
        n--;
    if (memchr(s, '\0', n)) {
        sum_skip(r, SUM_SKIP_BINARY, NULL);
        return;
    }
    size_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
        k++;
    if (k == n) {
        r->q->blank++;
        return;
    }
    r->line_fn(r, s, n);
}

struct sum_reader *sum_reader_new(enum sum_kind kind, const char *name,
                                  const struct sum_read_opts *opts, const struct sum_sink *sink,
                                  struct sum_quality *q)
{
    struct sum_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    static const struct sum_read_opts zero_opts;
    static const struct sum_sink zero_sink;
    if (!opts)
        opts = &zero_opts;
    if (!sink)
        sink = &zero_sink;
    memset(q, 0, sizeof *q);
    r->kind = kind;
    snprintf(r->name, sizeof r->name, "%s", name ? name : sum_kind_files[kind]);
    r->opts = opts;
    r->sink = sink;
    r->q = q;
    r->max_line = opts->max_line ? opts->max_line : SUM_DEFAULT_MAX_LINE;
    r->cellbuf_cap = r->max_line + SUM_MAX_COLS + 16;
    r->cellbuf = malloc(r->cellbuf_cap);
    if (!r->cellbuf) {
        free(r);
        return NULL;
    }
    if (csv_init(&r->csv, CSV_APPEND_NULL) == 0) {
        csv_set_realloc_func(&r->csv, csv_bounded_realloc);
        r->csv_ok = true;
    }
    switch (kind) {
    case SUM_KIND_GPU: sum_gpu_init(r); break;
    case SUM_KIND_DMON: sum_dmon_init(r); break;
    case SUM_KIND_CPU: sum_cpu_init(r); break;
    case SUM_KIND_PROC: sum_proc_init(r); break;
    case SUM_KIND_GPU_PROCS: sum_gpu_procs_init(r); break;
    case SUM_KIND_RUNLOG: sum_runlog_init(r); break;
    case SUM_KIND_GPM: sum_dmon_init(r); break; /* dmon's text, other columns */
    case SUM_KIND_TREE_PIDS: sum_tree_pids_init(r); break;
    default: break;
    }
    if (!r->line_fn) {
        sum_reader_free(r);
        return NULL;
    }
    return r;
}

void sum_reader_free(struct sum_reader *r)
{
    if (!r)
        return;
    if (r->free_fn)
        r->free_fn(r);
    if (r->csv_ok)
        csv_free(&r->csv);
    free(r->carry);
    free(r->cellbuf);
    free(r->names);
    free(r);
}

static int carry_append(struct sum_reader *r, const char *s, size_t n)
{
    if (r->discarding)
        return 0;
    if (r->carry_len + n > r->max_line) {
        r->discarding = true;
        r->carry_len = 0;
        return 0;
    }
    if (r->carry_len + n > r->carry_cap) {
        size_t cap = r->carry_cap ? r->carry_cap : 4096;
        while (cap < r->carry_len + n)
            cap *= 2;
        if (cap > r->max_line)
            cap = r->max_line;
        char *p = realloc(r->carry, cap);
        if (!p)
            return -ENOMEM;
        r->carry = p;
        r->carry_cap = cap;
    }
    memcpy(r->carry + r->carry_len, s, n);
    r->carry_len += n;
    return 0;
}

int sum_reader_feed(struct sum_reader *r, const void *buf, size_t n)
{
    const char *p = buf, *end = p + n;
    r->q->bytes += n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return carry_append(r, p, (size_t)(end - p));
        size_t len = (size_t)(nl - p);
        if (r->discarding) {
            r->discarding = false;
            r->lineno++;
            r->q->lines++;
            sum_skip(r, SUM_SKIP_TOO_LONG, NULL);
        } else if (r->carry_len) {
            int rc = carry_append(r, p, len);
            if (rc < 0)
                return rc;
            if (r->discarding) {
                r->discarding = false;
                r->lineno++;
                r->q->lines++;
                sum_skip(r, SUM_SKIP_TOO_LONG, NULL);
            } else {
                handle_line(r, r->carry, r->carry_len);
            }
            r->carry_len = 0;
        } else if (len > r->max_line) {
            r->lineno++;
            r->q->lines++;
            sum_skip(r, SUM_SKIP_TOO_LONG, NULL);
        } else {
            handle_line(r, p, len);
        }
        p = nl + 1;
    }
    return 0;
}

int sum_reader_finish(struct sum_reader *r)
{
    if (r->carry_len || r->discarding) {
        r->q->partial_last = true;
        r->q->partial_bytes = r->discarding ? r->max_line : r->carry_len;
        if (r->sink->diag)
            r->sink->diag(r->sink->ctx, r->name, r->lineno + 1,
                          "partial last line (not yet written), ignored");
        r->carry_len = 0;
        r->discarding = false;
    }
    return 0;
}

int sum_read_file(enum sum_kind kind, const char *path, const struct sum_read_opts *opts,
                  const struct sum_sink *sink, struct sum_quality *q)
{
    memset(q, 0, sizeof *q);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return -EISDIR;
    }
    struct sum_reader *r = sum_reader_new(kind, path, opts, sink, q);
    if (!r) {
        close(fd);
        return -ENOMEM;
    }
    q->present = true;
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    enum { CHUNK = 256 * 1024 };
    char *buf = malloc(CHUNK);
    int rc = buf ? 0 : -ENOMEM;
    while (rc == 0) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (got == 0)
            break;
        rc = sum_reader_feed(r, buf, (size_t)got);
    }
    if (rc == 0)
        sum_reader_finish(r);
    free(buf);
    sum_reader_free(r);
    close(fd);
    return rc;
}

/* ---- run info --------------------------------------------------------------------------- */

void sum_run_info_init(struct sum_run_info *info)
{
    memset(info, 0, sizeof *info);
    info->t_start = NAN;
    info->t_stop = NAN;
    info->stop_duration_s = NAN;
    info->interval_s = NAN;
    info->cpus_allowed = NAN;
}

const char *sum_json_str(struct json_object *obj, const char *key)
{
    struct json_object *v;
    if (obj && json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

bool sum_json_int(struct json_object *obj, const char *key, long *out)
{
    struct json_object *v;
    if (!obj || !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
        return false;
    *out = (long)json_object_get_int64(v);
    return true;
}

static double data_num(struct json_object *data, const char *key)
{
    struct json_object *v;
    if (data && json_object_object_get_ex(data, key, &v) &&
        (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        return json_object_get_double(v);
    return NAN;
}

void sum_run_info_event(struct sum_run_info *info, const struct sum_event *e)
{
    if (!strcmp(e->name, "start")) {
        info->have_start = true;
        info->starts++;
        info->t_start = e->t;
        double iv = data_num(e->data, "interval_s");
        if (isfinite(iv) && iv > 0)
            info->interval_s = iv;
        const char *tz = sum_json_str(e->data, "smi_tz");
        if (tz) {
            snprintf(info->smi_tz_raw, sizeof info->smi_tz_raw, "%s", tz);
            info->have_tz = sum_tz_parse(tz, false, &info->tz) == 0;
        }
        double ca = data_num(e->data, HW_CPUS_ALLOWED_KEY);
        if (isfinite(ca) && ca >= 1)
            info->cpus_allowed = ca;
        const char *ns = sum_json_str(e->data, HW_PIDNS_KEY);
        if (ns)
            info->pid_ns = !strcmp(ns, HW_PIDNS_INIT) ? 1 : 2;
        const char *f = sum_json_str(e->data, "gpu_query_fields");
        if (f && strlen(f) < sizeof info->gpu_fields) {
            snprintf(info->gpu_fields, sizeof info->gpu_fields, "%s", f);
            info->have_fields = true;
        }
    } else if (!strcmp(e->name, "gpu_fields_fallback")) {
        const char *f = sum_json_str(e->data, "fields");
        if (f && strlen(f) < sizeof info->gpu_fields) {
            snprintf(info->gpu_fields, sizeof info->gpu_fields, "%s", f);
            info->have_fields = true;
        }
    } else if (!strcmp(e->name, "stop")) {
        info->t_stop = e->t;
        double d = data_num(e->data, "duration_s");
        if (isfinite(d) && d >= 0)
            info->stop_duration_s = d;
    } else if (!strcmp(e->name, "child_restart")) {
        info->child_restarts++;
    }
}
