/* pytyche's build_resource_summary, byte for byte: see pytyche.h. The comments quote the Python
 * line each piece reproduces (shared/oracle/pytyche_run_monitor.py). */
#include "pytyche.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/jsonw.h"
#include "hwrun/msg.h"

struct sum_py_reader {
    enum sum_py_kind kind;
    struct sum_py_acc *acc;
    /* line assembly (universal newlines: "\n", "\r", "\r\n") */
    unsigned char *line;
    size_t len, cap;
    bool overflow;
    bool pending_cr;
    uint64_t nlines;
    /* strict UTF-8 validation, as Python's utf-8 codec */
    int need;                  /* continuation bytes still expected */
    unsigned char lo, hi;      /* bounds of the next continuation byte */
    uint64_t offset;
    uint64_t bad_offset;
    bool bad;
    char *tmp;                 /* scratch for float() of long cells */
    size_t tmp_cap;
};

static bool py_float_buf(const char *in, size_t n, double *out, char *tmp);

/* float() of a cell, with scratch space on the stack for the usual short cells. */
static bool cell_float(struct sum_py_reader *r, const unsigned char *s, size_t n, double *out)
{
    char small[256];
    if (n < sizeof small)
        return py_float_buf((const char *)s, n, out, small);
    if (n + 1 > r->tmp_cap) {
        char *p = realloc(r->tmp, n + 1);
        if (!p)
            return false;
        r->tmp = p;
        r->tmp_cap = n + 1;
    }
    return py_float_buf((const char *)s, n, out, r->tmp);
}

/* ---- Python's str.isspace() over UTF-8 ------------------------------------------------- */

static size_t ws_at(const unsigned char *s, size_t n)
{
    if (!n)
        return 0;
    unsigned char c = s[0];
    if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20))
        return 1;
    if (c == 0xc2 && n >= 2 && (s[1] == 0x85 || s[1] == 0xa0))
        return 2;
    if (n >= 3) {
        if (c == 0xe1 && s[1] == 0x9a && s[2] == 0x80) /* U+1680 */
            return 3;
        if (c == 0xe2 && s[1] == 0x80 &&
            ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf))
            return 3; /* U+2000..200A, U+2028, U+2029, U+202F */
        if (c == 0xe2 && s[1] == 0x81 && s[2] == 0x9f) /* U+205F */
            return 3;
        if (c == 0xe3 && s[1] == 0x80 && s[2] == 0x80) /* U+3000 */
            return 3;
    }
    return 0;
}

static size_t ws_before(const unsigned char *s, size_t n)
{
    if (!n)
        return 0;
    if (ws_at(s + n - 1, 1))
        return 1;
    if (n >= 2 && ws_at(s + n - 2, 2) == 2)
        return 2;
    if (n >= 3 && ws_at(s + n - 3, 3) == 3)
        return 3;
    return 0;
}

static void strip(const unsigned char **s, size_t *n)
{
    size_t k;
    while ((k = ws_at(*s, *n)))
        *s += k, *n -= k;
    while ((k = ws_before(*s, *n)))
        *n -= k;
}

/* float()'s own blanks: ASCII space, \t, \n, \v, \f, \r and non-ASCII Unicode blanks, but
 * not \x1c-\x1f, which str.strip() removes and float() does not (CPython checks Py_ISSPACE on
 * ASCII text and only maps non-ASCII blanks to ' '). */
static size_t float_ws_at(const unsigned char *s, size_t n)
{
    return n && s[0] >= 0x1c && s[0] <= 0x1f ? 0 : ws_at(s, n);
}

static size_t float_ws_before(const unsigned char *s, size_t n)
{
    return n && s[n - 1] >= 0x1c && s[n - 1] <= 0x1f ? 0 : ws_before(s, n);
}

/* ---- float() ---------------------------------------------------------------------------- */

static bool ieq(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    if (n != l)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != lit[i])
            return false;
    }
    return true;
}

static bool py_float_buf(const char *in, size_t n, double *out, char *tmp)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t k;
    while ((k = float_ws_at(s, n)))
        s += k, n -= k;
    while ((k = float_ws_before(s, n)))
        n -= k;
    if (!n)
        return false;
    /* Underscores only between digits ("1_000"); they are then dropped. */
    size_t m = 0;
    unsigned char prev = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 0x80)
            return false; /* non-ASCII: not a number here (see pytyche.h) */
        if (c == '_') {
            if (!(prev >= '0' && prev <= '9'))
                return false;
        } else {
            if (prev == '_' && !(c >= '0' && c <= '9'))
                return false;
            tmp[m++] = (char)c;
        }
        prev = c;
    }
    if (prev == '_')
        return false;
    tmp[m] = '\0';
    size_t i = 0;
    bool neg = false;
    if (tmp[i] == '+' || tmp[i] == '-')
        neg = tmp[i++] == '-';
    if (ieq(tmp + i, m - i, "inf") || ieq(tmp + i, m - i, "infinity")) {
        *out = neg ? -INFINITY : INFINITY;
        return true;
    }
    if (ieq(tmp + i, m - i, "nan")) {
        *out = neg ? -NAN : NAN;
        return true;
    }
    size_t nd = 0;
    while (i < m && tmp[i] >= '0' && tmp[i] <= '9')
        i++, nd++;
    if (i < m && tmp[i] == '.') {
        i++;
        while (i < m && tmp[i] >= '0' && tmp[i] <= '9')
            i++, nd++;
    }
    if (!nd)
        return false;
    if (i < m && (tmp[i] == 'e' || tmp[i] == 'E')) {
        i++;
        if (i < m && (tmp[i] == '+' || tmp[i] == '-'))
            i++;
        size_t ne = 0;
        while (i < m && tmp[i] >= '0' && tmp[i] <= '9')
            i++, ne++;
        if (!ne)
            return false;
    }
    if (i != m)
        return false;
    *out = strtod(tmp, NULL); /* correctly rounded, +-inf on overflow, as Python */
    return true;
}

bool sum_py_float(const char *s, size_t n, double *out)
{
    char small[128];
    char *tmp = n < sizeof small ? small : malloc(n + 1);
    if (!tmp)
        return false;
    bool ok = py_float_buf(s, n, out, tmp);
    if (tmp != small)
        free(tmp);
    return ok;
}

double sum_py_round1(double x)
{
    if (!isfinite(x))
        return x;
    /* glibc's printf rounds the exact binary value half-to-even, like Python's dtoa mode 3. */
    char buf[400];
    snprintf(buf, sizeof buf, "%.1f", x);
    return strtod(buf, NULL);
}

/* ---- the three loops -------------------------------------------------------------------- */

/* max(): m is replaced only when x > m, so a NaN first stays, and NaNs later are ignored. */
static void py_max(double *m, uint64_t n_before, double x)
{
    if (n_before == 0 || x > *m)
        *m = x;
}

static void gpu_line(struct sum_py_reader *r, const unsigned char *s, size_t n)
{
    /* parts = [p.strip() for p in line.split(",")]; if len(parts) < 9: continue */
    const unsigned char *cell[6] = {0};
    size_t clen[6] = {0};
    size_t parts = 0, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == ',') {
            if (parts < 6) {
                cell[parts] = s + start;
                clen[parts] = i - start;
            }
            parts++;
            start = i + 1;
        }
    }
    if (parts < 9)
        return;
    /* gpu_util = float(parts[1]); mem_used = float(parts[3]); power = float(parts[5]) */
    for (int c = 1; c <= 5; c += 2)
        strip(&cell[c], &clen[c]); /* [p.strip() for p in ...] */
    double util, mem, power;
    if (!cell_float(r, cell[1], clen[1], &util) || !cell_float(r, cell[3], clen[3], &mem) ||
        !cell_float(r, cell[5], clen[5], &power))
        return;
    struct sum_py_acc *a = r->acc;
    py_max(&a->util_max, a->n_gpu, util);
    py_max(&a->mem_max, a->n_gpu, mem);
    py_max(&a->power_max, a->n_gpu, power);
    a->util_sum += util;
    a->power_sum += power;
    a->n_gpu++;
}

static void cpu_line(struct sum_py_reader *r, const unsigned char *s, size_t n)
{
    if (r->nlines == 1)
        return; /* f.readline()  # skip header */
    /* parts = line.strip().split(","); if len(parts) < 3: continue */
    strip(&s, &n);
    const unsigned char *cell[3] = {0};
    size_t clen[3] = {0};
    size_t parts = 0, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == ',') {
            if (parts < 3) {
                cell[parts] = s + start;
                clen[parts] = i - start;
            }
            parts++;
            start = i + 1;
        }
    }
    if (parts < 3)
        return;
    /* usr_vals.append(float(parts[1])); idle_vals.append(float(parts[2])) */
    double usr, idle;
    if (!cell_float(r, cell[1], clen[1], &usr))
        return;
    r->acc->usr_sum += usr;
    r->acc->n_usr++;
    if (!cell_float(r, cell[2], clen[2], &idle))
        return;
    r->acc->idle_sum += idle;
    r->acc->n_idle++;
}

static void dmon_line(struct sum_py_reader *r, const unsigned char *s, size_t n)
{
    /* line = line.strip(); if not line or line.startswith("#"): continue */
    strip(&s, &n);
    if (!n || s[0] == '#')
        return;
    /* parts = line.split(); if len(parts) < 4: continue; mem_pct = float(parts[2]) */
    size_t i = 0, parts = 0, k;
    const unsigned char *third = NULL;
    size_t third_len = 0;
    while (i < n && parts < 4) {
        while (i < n && (k = ws_at(s + i, n - i)))
            i += k;
        if (i >= n)
            break;
        size_t b = i;
        while (i < n && !ws_at(s + i, n - i))
            i++;
        if (parts == 2) {
            third = s + b;
            third_len = i - b;
        }
        parts++;
    }
    if (parts < 4)
        return;
    double v;
    if (!cell_float(r, third, third_len, &v))
        return;
    py_max(&r->acc->mem_util_max, r->acc->n_mem_util, v);
    r->acc->mem_util_sum += v;
    r->acc->n_mem_util++;
}

static void emit(struct sum_py_reader *r, const unsigned char *s, size_t n, bool overflow)
{
    r->nlines++;
    if (overflow) {
        r->acc->lines_too_long++;
        return;
    }
    switch (r->kind) {
    case SUM_PY_GPU: gpu_line(r, s, n); break;
    case SUM_PY_CPU: cpu_line(r, s, n); break;
    case SUM_PY_DMON: dmon_line(r, s, n); break;
    }
}

/* ---- bytes in --------------------------------------------------------------------------- */

struct sum_py_reader *sum_py_new(enum sum_py_kind kind, struct sum_py_acc *acc)
{
    struct sum_py_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->kind = kind;
    r->acc = acc;
    return r;
}

void sum_py_free(struct sum_py_reader *r)
{
    if (!r)
        return;
    free(r->line);
    free(r->tmp);
    free(r);
}

uint64_t sum_py_error_offset(const struct sum_py_reader *r)
{
    return r->bad_offset;
}

static bool utf8_byte(struct sum_py_reader *r, unsigned char c)
{
    if (r->need) {
        if (c < r->lo || c > r->hi)
            return false;
        r->need--;
        r->lo = 0x80;
        r->hi = 0xbf;
        return true;
    }
    if (c < 0x80)
        return true;
    r->lo = 0x80;
    r->hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        r->need = 1;
    else if (c == 0xe0)
        r->need = 2, r->lo = 0xa0;
    else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
        r->need = 2;
    else if (c == 0xed)
        r->need = 2, r->hi = 0x9f;
    else if (c == 0xf0)
        r->need = 3, r->lo = 0x90;
    else if (c >= 0xf1 && c <= 0xf3)
        r->need = 3;
    else if (c == 0xf4)
        r->need = 3, r->hi = 0x8f;
    else
        return false;
    return true;
}

static int line_append(struct sum_py_reader *r, const unsigned char *s, size_t n)
{
    if (r->overflow)
        return 0;
    if (r->len + n > SUM_PY_MAX_LINE) {
        r->overflow = true;
        return 0;
    }
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 1024;
        while (cap < r->len + n)
            cap *= 2;
        unsigned char *p = realloc(r->line, cap);
        if (!p)
            return -ENOMEM;
        r->line = p;
        r->cap = cap;
    }
    memcpy(r->line + r->len, s, n);
    r->len += n;
    return 0;
}

int sum_py_feed(struct sum_py_reader *r, const void *buf, size_t n)
{
    const unsigned char *s = buf;
    if (r->bad)
        return -EILSEQ;
    for (size_t i = 0; i < n; i++)
        if (!utf8_byte(r, s[i])) {
            r->bad = true;
            r->bad_offset = r->offset + i;
            return -EILSEQ;
        }
    r->offset += n;
    if (!n)
        return 0;
    size_t start = 0;
    if (r->pending_cr && s[0] == '\n')
        start = 1;
    r->pending_cr = false;
    for (size_t i = start; i < n; i++) {
        unsigned char c = s[i];
        if (c != '\n' && c != '\r')
            continue;
        if (r->len || r->overflow) {
            int rc = line_append(r, s + start, i - start);
            if (rc < 0)
                return rc;
            emit(r, r->line, r->len, r->overflow);
            r->len = 0;
            r->overflow = false;
        } else {
            emit(r, s + start, i - start, i - start > SUM_PY_MAX_LINE);
        }
        if (c == '\r') {
            if (i + 1 < n && s[i + 1] == '\n')
                i++;
            else if (i + 1 == n)
                r->pending_cr = true;
        }
        start = i + 1;
    }
    if (start < n)
        return line_append(r, s + start, n - start);
    return 0;
}

int sum_py_finish(struct sum_py_reader *r)
{
    if (r->bad)
        return -EILSEQ;
    if (r->need) {
        r->bad = true;
        r->bad_offset = r->offset;
        return -EILSEQ;
    }
    if (r->len || r->overflow) /* Python yields a last line without '\n' too */
        emit(r, r->line, r->len, r->overflow);
    r->len = 0;
    r->overflow = false;
    return 0;
}

int sum_py_read_file(enum sum_py_kind kind, const char *path, struct sum_py_acc *acc,
                     uint64_t *bad_offset)
{
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return 0; /* if path is not None and path.exists() */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return -EISDIR;
    }
    struct sum_py_reader *r = sum_py_new(kind, acc);
    char *buf = malloc(256 * 1024);
    int rc = r && buf ? 0 : -ENOMEM;
    while (rc == 0) {
        ssize_t got = read(fd, buf, 256 * 1024);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (got == 0) {
            rc = sum_py_finish(r);
            break;
        }
        rc = sum_py_feed(r, buf, (size_t)got);
    }
    if (rc == -EILSEQ && bad_offset)
        *bad_offset = sum_py_error_offset(r);
    free(buf);
    sum_py_free(r);
    close(fd);
    return rc;
}

/* ---- to_dict() -------------------------------------------------------------------------- */

/* pytyche prints round(x, 1) with json.dumps: NaN and Infinity as Python writes them. */
static void key(struct hw_json *w, const char *k, double v)
{
    hw_json_num(w, k, sum_py_round1(v));
}

void sum_py_format(const struct sum_py_acc *a, struct hw_buf *out)
{
    double util_mean = 0, util_max = 0, peak = 0, pw_mean = 0, pw_max = 0;
    double mu_mean = 0, mu_max = 0, usr = 0, idle = 0;
    if (a->n_gpu) {
        util_mean = a->util_sum / (double)a->n_gpu;
        util_max = a->util_max;
        peak = a->mem_max;
        pw_mean = a->power_sum / (double)a->n_gpu;
        pw_max = a->power_max;
    }
    if (a->n_mem_util) {
        mu_mean = a->mem_util_sum / (double)a->n_mem_util;
        mu_max = a->mem_util_max;
    }
    if (a->n_usr)
        usr = a->usr_sum / (double)a->n_usr;
    if (a->n_idle)
        idle = a->idle_sum / (double)a->n_idle;
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_LINE, HW_NUM_PYJSON);
    hw_json_open(&w, NULL, '{');
    key(&w, "cpu_idle_mean_pct", idle);
    key(&w, "cpu_usr_mean_pct", usr);
    key(&w, "gpu_util_max_pct", util_max);
    key(&w, "gpu_util_mean_pct", util_mean);
    if (mu_mean > 0) { /* if self.mem_util_mean_pct > 0 */
        key(&w, "mem_util_max_pct", mu_max);
        key(&w, "mem_util_mean_pct", mu_mean);
    }
    key(&w, "peak_vram_mb", peak);
    key(&w, "power_watts_max", pw_max);
    key(&w, "power_watts_mean", pw_mean);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}

/* ---- summarize --format pytyche -------------------------------------------------------- */

int sum_py_run(const char *dir, const char *const file_opt[SUM_KIND_COUNT], bool quiet,
               struct hw_buf *out, bool *usable)
{
    static const struct {
        enum sum_kind kind;
        enum sum_py_kind py;
    } files[] = {{SUM_KIND_GPU, SUM_PY_GPU}, {SUM_KIND_CPU, SUM_PY_CPU},
                 {SUM_KIND_DMON, SUM_PY_DMON}};
    *usable = false;
    struct sum_py_acc acc;
    memset(&acc, 0, sizeof acc);
    bool any = false;
    for (size_t i = 0; i < 3; i++) {
        char *p = NULL;
        const char *path = file_opt[files[i].kind];
        if (!path && dir) {
            if (asprintf(&p, "%s/%s", dir, sum_kind_files[files[i].kind]) < 0)
                p = NULL;
            path = p;
        }
        struct stat st;
        if (path && stat(path, &st) == 0)
            any = true;
        uint64_t bad = 0;
        uint64_t before = acc.lines_too_long;
        int rc = sum_py_read_file(files[i].py, path, &acc, &bad);
        if (rc == -EILSEQ) {
            hw_warn(0, "%s: invalid UTF-8 at byte %llu: pytyche's reader fails on this file "
                       "(UnicodeDecodeError), so there is no pytyche summary",
                    path, (unsigned long long)bad);
            free(p);
            return HW_EXIT_FAIL;
        }
        if (rc < 0) {
            hw_warn(-rc, "%s", path);
            free(p);
            return HW_EXIT_FAIL;
        }
        if (acc.lines_too_long > before && !quiet)
            hw_warn(0, "%s: %llu lines longer than %u bytes skipped (pytyche would read them)",
                    path, (unsigned long long)(acc.lines_too_long - before), SUM_PY_MAX_LINE);
        free(p);
    }
    sum_py_format(&acc, out);
    *usable = any;
    if (!any) {
        hw_warn(0, "%s: no hw_metrics.csv, cpu_metrics.csv or hw_dmon.csv",
                dir ? dir : "(no files)");
        return HW_EXIT_FAIL;
    }
    return HW_EXIT_OK;
}
