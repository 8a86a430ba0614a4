/* pytyche's build_resource_summary, byte for byte: see pytyche.h. The comments quote the Python
 * line each piece reproduces (shared/oracle/pytyche_run_monitor.py). */
#include "pytyche.h"
#include "py_unicode.h"
#include "summary.h" /* sum_fwmem: the framework figures run.jsonl carries */

#include <json-c/json.h>

#include "hwrun/parse.h"

#include <errno.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "hwrun/msg.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"

/* One pass over the bytes, one code point at a time, with no line buffer: a line's state is a
 * handful of counters and one float() machine for the cell being read, so lines of any length
 * are read in constant memory, as Python reads them. */
struct sum_py_reader {
    enum sum_py_kind kind;
    struct sum_py_acc *acc;
    /* strict UTF-8 decoding (hw_utf8_decode), as Python's utf-8 codec */
    unsigned char pend[4]; /* a sequence cut by the end of the last buffer */
    size_t npend;
    uint64_t offset;
    uint64_t bad_offset;
    bool bad;
    /* universal newlines: "\n", "\r", "\r\n" */
    bool pending_cr;
    bool line_open;  /* a code point since the last line end */
    uint64_t nlines; /* lines ended */
    /* the current line */
    uint64_t part;                   /* GPU, CPU: commas seen; dmon: fields started */
    bool in_field, started, comment; /* dmon */
    bool cell_on;                    /* dec reads the current cell */
    bool body, fs_trail; /* CPU: a non-blank seen; U+001C..U+001F among trailing blanks */
    bool fresh;          /* nothing of the current cell fed to dec yet */
    bool ok[3];
    double val[3];
    struct hw_dec dec;
};

/* ---- Python's str.isspace() and float()'s digits, from the generated tables -------------- */

/* str.isspace() of an ASCII character */
static inline bool py_isspace_ascii(unsigned char c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20);
}

static bool py_isspace(uint32_t c)
{
    if (c < 0x80)
        return py_isspace_ascii((unsigned char)c);
    size_t lo = 0, hi = sizeof py_blanks / sizeof py_blanks[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (py_blanks[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sizeof py_blanks / sizeof py_blanks[0] && py_blanks[lo] == c;
}

/* U+001C..U+001F: blanks for str.strip()/split(), not for float() (CPython's float() only maps
 * non-ASCII blanks to ' ' and then checks Py_ISSPACE on ASCII) */
static bool is_fs(uint32_t c)
{
    return c >= 0x1c && c <= 0x1f;
}

/* The ASCII character float() sees for c (_PyUnicode_TransformDecimalAndSpaceToASCII): ASCII as
 * is, a non-ASCII blank as ' ', a decimal digit of any script as its ASCII digit, anything else
 * as '?' (never part of a number). */
static unsigned char py_char(uint32_t c)
{
    if (c < 127)
        return (unsigned char)c;
    if (py_isspace(c))
        return ' ';
    size_t lo = 0, hi = sizeof py_digit_ranges / sizeof py_digit_ranges[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (py_digit_ranges[mid][1] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < sizeof py_digit_ranges / sizeof py_digit_ranges[0] && py_digit_ranges[lo][0] <= c)
        return (unsigned char)('0' + (c - py_digit_ranges[lo][0]));
    return '?';
}

bool sum_py_float(const char *s, size_t n, double *out)
{
    /* float(s) for UTF-8 text s (invalid UTF-8: not a number) */
    struct hw_dec d;
    hw_dec_init(&d, HW_DEC_PY);
    for (size_t i = 0, len; i < n; i += len) {
        uint32_t c;
        len = hw_utf8_decode(s + i, n - i, &c);
        if (len == 0 || len == HW_UTF8_SHORT || !hw_dec_feed(&d, py_char(c)))
            return false;
    }
    return hw_dec_end(&d, out);
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

static void cell_start(struct sum_py_reader *r)
{
    hw_dec_init(&r->dec, HW_DEC_PY);
    r->cell_on = true;
    r->body = r->fs_trail = false;
    r->fresh = true;
}

static void cell_end(struct sum_py_reader *r, int idx, bool at_line_end)
{
    if (!r->cell_on)
        return;
    r->cell_on = false;
    r->ok[idx] = hw_dec_end(&r->dec, &r->val[idx]) && (!r->fs_trail || at_line_end);
}

static void line_begin(struct sum_py_reader *r)
{
    r->line_open = true;
    r->part = 0;
    r->in_field = r->started = r->comment = r->cell_on = false;
    r->ok[0] = r->ok[1] = r->ok[2] = false;
}

/* GPU: parts = [p.strip() for p in line.split(",")]; cells 1, 3, 5 through float(). After
 * strip() no blank is left at a cell's ends, so U+001C..U+001F count as blanks there; inside a
 * cell they fail float() either way. */
static void gpu_cp(struct sum_py_reader *r, uint32_t c)
{
    if (c == ',') {
        cell_end(r, (int)(r->part / 2), false);
        r->part++;
        if (r->part == 1 || r->part == 3 || r->part == 5)
            cell_start(r);
    } else if (r->cell_on) {
        r->fresh = false;
        hw_dec_feed(&r->dec, is_fs(c) ? ' ' : py_char(c));
    }
}

static bool ascii_plain(unsigned char c)
{
    return c < 0x80 && c != ',' && c != '\n' && c != '\r';
}

/* The first j >= i with s[j] not ascii_plain, or n: 16 bytes at a time where SSE2 is (every
 * x86-64), since the bytes of the cells nobody reads are most of a file. */
static size_t plain_end(const unsigned char *s, size_t i, size_t n)
{
#if defined(__SSE2__)
    const __m128i comma = _mm_set1_epi8(','), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; n - i >= 16; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, comma), _mm_cmpeq_epi8(x, lf)),
                                    _mm_or_si128(_mm_cmpeq_epi8(x, cr), x)); /* x: bytes >= 0x80 */
        unsigned m = (unsigned)_mm_movemask_epi8(stop);
        if (m)
            return i + (size_t)__builtin_ctz(m);
    }
#endif
    while (i < n && ascii_plain(s[i]))
        i++;
    return i;
}

/* GPU rows are nearly all ASCII, and float() of a plain decimal is strtod's double: skip the
 * cells nobody reads, and read a whole ASCII cell 1, 3 or 5 of the buffer with the decimal
 * parser's fast path; anything else (underscores, inf, Unicode, a cell cut by the buffer's
 * end) goes through the character machine. Returns the bytes taken from s, 0 for none. */
static size_t gpu_ascii_run(struct sum_py_reader *r, const unsigned char *s, size_t n)
{
    if (r->kind != SUM_PY_GPU || !r->line_open || !ascii_plain(s[0]) || (r->cell_on && !r->fresh))
        return 0; /* (a cell begun by the machine stays with it: no scan twice) */
    size_t j = plain_end(s, 1, n);
    if (!r->cell_on) {
        r->pending_cr = false;
        return j;
    }
    if (j == n || s[j] >= 0x80) {
        r->fresh = false; /* the machine takes it from here */
        return 0;
    }
    size_t b = 0, e = j; /* strip(): the ASCII blanks, U+001C..U+001F included */
    while (b < e && py_isspace_ascii(s[b]))
        b++;
    while (e > b && py_isspace_ascii(s[e - 1]))
        e--;
    double v;
    if (!hw_parse_decimal((const char *)s + b, e - b, &v)) {
        r->fresh = false;
        return 0;
    }
    int idx = (int)(r->part / 2);
    r->ok[idx] = true;
    r->val[idx] = v;
    r->cell_on = false;
    r->pending_cr = false;
    return j;
}

static void gpu_end(struct sum_py_reader *r)
{
    cell_end(r, (int)(r->part / 2), true);
    /* if len(parts) < 9: continue; a row whose cell 1, 3 or 5 fails float() is dropped whole */
    if (r->part + 1 < 9 || !r->ok[0] || !r->ok[1] || !r->ok[2])
        return;
    struct sum_py_acc *a = r->acc;
    py_max(&a->util_max, a->n_gpu, r->val[0]);
    py_max(&a->mem_max, a->n_gpu, r->val[1]);
    py_max(&a->power_max, a->n_gpu, r->val[2]);
    a->util_sum += r->val[0];
    a->power_sum += r->val[2];
    a->n_gpu++;
}

/* CPU: parts = line.strip().split(","); float(parts[1]), float(parts[2]) unstripped, so
 * U+001C..U+001F fail them, except at the end of the line, which line.strip() removed. */
static void cpu_cp(struct sum_py_reader *r, uint32_t c)
{
    if (r->nlines == 0)
        return; /* f.readline()  # skip header */
    if (c == ',') {
        cell_end(r, (int)r->part - 1, false);
        r->part++;
        if (r->part == 1 || r->part == 2)
            cell_start(r);
        return;
    }
    if (!r->cell_on)
        return;
    if (py_isspace(c)) {
        if (is_fs(c)) {
            if (!r->body) {
                hw_dec_feed(&r->dec, '?');
                return;
            }
            r->fs_trail = true;
        }
        hw_dec_feed(&r->dec, ' ');
        return;
    }
    r->body = true;
    r->fs_trail = false;
    hw_dec_feed(&r->dec, py_char(c));
}

static void cpu_end(struct sum_py_reader *r)
{
    if (r->nlines == 0)
        return;
    cell_end(r, (int)r->part - 1, true);
    if (r->part + 1 < 3 || !r->ok[0]) /* if len(parts) < 3: continue */
        return;
    r->acc->usr_sum += r->val[0]; /* usr_vals.append(float(parts[1])) */
    r->acc->n_usr++;
    if (!r->ok[1])
        return;
    r->acc->idle_sum += r->val[1]; /* idle_vals.append(float(parts[2])) */
    r->acc->n_idle++;
}

/* dmon: line.strip(); skip empty and "#" lines; parts = line.split(); float(parts[2]) */
static void dmon_cp(struct sum_py_reader *r, uint32_t c)
{
    if (r->comment)
        return;
    if (py_isspace(c)) {
        if (r->in_field && r->cell_on)
            cell_end(r, 0, false);
        r->in_field = false;
        return;
    }
    if (!r->started) {
        r->started = true;
        if (c == '#') {
            r->comment = true;
            return;
        }
    }
    if (!r->in_field) {
        r->in_field = true;
        if (++r->part == 3)
            cell_start(r);
    }
    if (r->cell_on)
        hw_dec_feed(&r->dec, py_char(c));
}

static void dmon_end(struct sum_py_reader *r)
{
    cell_end(r, 0, true);
    if (r->comment || r->part < 4 || !r->ok[0]) /* if len(parts) < 4: continue */
        return;
    py_max(&r->acc->mem_util_max, r->acc->n_mem_util, r->val[0]);
    r->acc->mem_util_sum += r->val[0];
    r->acc->n_mem_util++;
}

static void on_cp(struct sum_py_reader *r, uint32_t c)
{
    if (!r->line_open)
        line_begin(r);
    switch (r->kind) {
    case SUM_PY_GPU:
        gpu_cp(r, c);
        break;
    case SUM_PY_CPU:
        cpu_cp(r, c);
        break;
    case SUM_PY_DMON:
        dmon_cp(r, c);
        break;
    }
}

static void on_eol(struct sum_py_reader *r)
{
    if (!r->line_open)
        line_begin(r);
    switch (r->kind) {
    case SUM_PY_GPU:
        gpu_end(r);
        break;
    case SUM_PY_CPU:
        cpu_end(r);
        break;
    case SUM_PY_DMON:
        dmon_end(r);
        break;
    }
    r->nlines++;
    r->line_open = false;
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
    free(r);
}

uint64_t sum_py_error_offset(const struct sum_py_reader *r)
{
    return r->bad_offset;
}

static void on_ascii(struct sum_py_reader *r, unsigned char c)
{
    if (c == '\n' || c == '\r') {
        if (!(c == '\n' && r->pending_cr))
            on_eol(r);
        r->pending_cr = c == '\r';
        return;
    }
    r->pending_cr = false;
    on_cp(r, c);
}

static int bad_utf8(struct sum_py_reader *r, uint64_t at)
{
    r->bad = true;
    r->bad_offset = at;
    return -EILSEQ;
}

int sum_py_feed(struct sum_py_reader *r, const void *buf, size_t n)
{
    const unsigned char *s = buf;
    if (r->bad)
        return -EILSEQ;
    size_t i = 0;
    uint32_t c;
    while (r->npend && i < n) { /* finish the sequence the last buffer cut */
        r->pend[r->npend++] = s[i++];
        size_t len = hw_utf8_decode(r->pend, r->npend, &c);
        if (len == HW_UTF8_SHORT)
            continue;
        if (len == 0)
            return bad_utf8(r, r->offset - (r->npend - i));
        r->pending_cr = false;
        on_cp(r, c);
        r->npend = 0;
    }
    while (i < n) {
        if (s[i] < 0x80) {
            size_t k = gpu_ascii_run(r, s + i, n - i);
            if (k)
                i += k;
            else
                on_ascii(r, s[i++]);
            continue;
        }
        size_t len = hw_utf8_decode(s + i, n - i, &c);
        if (len == HW_UTF8_SHORT) {
            memcpy(r->pend, s + i, n - i);
            r->npend = n - i;
            break;
        }
        if (len == 0)
            return bad_utf8(r, r->offset + i);
        r->pending_cr = false;
        on_cp(r, c);
        i += len;
    }
    r->offset += n;
    return 0;
}

int sum_py_finish(struct sum_py_reader *r)
{
    if (r->bad)
        return -EILSEQ;
    if (r->npend) /* a truncated sequence at the end */
        return bad_utf8(r, r->offset - r->npend);
    if (r->line_open) /* Python yields a last line without '\n' too */
        on_eol(r);
    return 0;
}

static int feed_py(void *r, const void *buf, size_t n)
{
    return sum_py_feed(r, buf, n);
}

int sum_py_read_file(enum sum_py_kind kind, const char *path, struct sum_py_acc *acc,
                     uint64_t *bad_offset)
{
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return 0; /* if path is not None and path.exists() */
    int fd = hw_open_file(AT_FDCWD, path, HW_OPEN_READ | HW_OPEN_FOLLOW);
    if (fd < 0)
        return fd;
    struct sum_py_reader *r = sum_py_new(kind, acc);
    int rc = r ? hw_read_stream(fd, feed_py, r) : -ENOMEM;
    if (rc == 0)
        rc = sum_py_finish(r);
    if (rc == -EILSEQ && bad_offset)
        *bad_offset = sum_py_error_offset(r);
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

void sum_py_format(const struct sum_py_acc *a, bool fields, struct hw_buf *out)
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
    if (fields) { /* dataclasses.asdict(summary): every field, as computed */
        hw_json_num(&w, "cpu_idle_mean_pct", idle);
        hw_json_num(&w, "cpu_usr_mean_pct", usr);
        hw_json_num(&w, "gpu_util_max_pct", util_max);
        hw_json_num(&w, "gpu_util_mean_pct", util_mean);
        hw_json_num(&w, "jax_peak_bytes_mb", a->jax_peak_mb);
        hw_json_num(&w, "mem_util_max_pct", mu_max);
        hw_json_num(&w, "mem_util_mean_pct", mu_mean);
        hw_json_num(&w, "peak_vram_mb", peak);
        hw_json_num(&w, "power_watts_max", pw_max);
        hw_json_num(&w, "power_watts_mean", pw_mean);
    } else { /* to_dict(): round(x, 1), two keys only when set */
        key(&w, "cpu_idle_mean_pct", idle);
        key(&w, "cpu_usr_mean_pct", usr);
        key(&w, "gpu_util_max_pct", util_max);
        key(&w, "gpu_util_mean_pct", util_mean);
        if (a->jax_peak_mb > 0) /* if self.jax_peak_bytes_mb > 0 */
            key(&w, "jax_peak_bytes_mb", a->jax_peak_mb);
        if (mu_mean > 0) { /* if self.mem_util_mean_pct > 0 */
            key(&w, "mem_util_max_pct", mu_max);
            key(&w, "mem_util_mean_pct", mu_mean);
        }
        key(&w, "peak_vram_mb", peak);
        key(&w, "power_watts_max", pw_max);
        key(&w, "power_watts_mean", pw_mean);
    }
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}

/* ---- summarize --format pytyche -------------------------------------------------------- */

/* pytyche's caller stores probe_jax_peak_memory_mb() in the summary; our Python package logs
 * it in run.jsonl (HW_FWMEM): its largest JAX peak, read with the run log's own reader. */
static void jp_entry(void *ctx, const struct rd_phase *p)
{
    struct json_object *o;
    if (p->obj && json_object_object_get_ex(p->obj, HW_FWMEM, &o))
        sum_fwmem_take(ctx, o);
}

static void jp_event(void *ctx, const struct rd_event *e)
{
    if (!strcmp(e->name, HW_FWMEM))
        sum_fwmem_take(ctx, e->data);
}

/* The JAX peak the run's log names into *mib (NAN: none); -ENOMEM when it could not be read
 * for memory (a missing or unreadable log has no value, as for pytyche). */
static int jax_peak(const char *dir, const char *path, double *mib)
{
    char *p = NULL;
    if (!path && dir) {
        if (asprintf(&p, "%s/%s", dir, hw_file_names[HW_FILE_RUNLOG]) < 0)
            return -ENOMEM;
        path = p;
    }
    struct sum_fwmem fw;
    sum_fwmem_init(&fw);
    struct rd_sink sink = {.ctx = &fw, .phase = jp_entry, .phase_begin = jp_entry,
                            .event = jp_event};
    struct rd_quality q;
    struct stat st;
    int rc = 0;
    if (path && stat(path, &st) == 0)
        rc = rd_read_file(HW_FILE_RUNLOG, path, NULL, &sink, &q); /* pytyche: no log, no value */
    free(p);
    *mib = fw.jax_peak_mib;
    return rc == -ENOMEM ? rc : 0;
}

int sum_py_run(const char *dir, const char *const file_opt[HW_FILE_COUNT], bool fields,
               struct hw_buf *out, bool *usable, char *why, size_t why_cap)
{
    static const struct {
        enum hw_file kind;
        enum sum_py_kind py;
    } files[] = {{HW_FILE_GPU, SUM_PY_GPU}, {HW_FILE_CPU, SUM_PY_CPU},
                 {HW_FILE_DMON, SUM_PY_DMON}};
    *usable = false;
    struct sum_py_acc acc;
    memset(&acc, 0, sizeof acc);
    bool any = false;
    for (size_t i = 0; i < 3; i++) {
        char *p = NULL;
        const char *path = file_opt[files[i].kind];
        if (!path && dir) {
            if (asprintf(&p, "%s/%s", dir, hw_file_names[files[i].kind]) < 0) {
                snprintf(why, why_cap, "%s: %s", dir, strerror(ENOMEM));
                return -ENOMEM;
            }
            path = p;
        }
        struct stat st;
        if (path && stat(path, &st) == 0)
            any = true;
        uint64_t bad = 0;
        int rc = sum_py_read_file(files[i].py, path, &acc, &bad);
        if (rc == -EILSEQ) {
            snprintf(why, why_cap,
                     "%s: invalid UTF-8 at byte %llu: pytyche's reader fails on this file "
                     "(UnicodeDecodeError), so there is no pytyche summary",
                     path, (unsigned long long)bad);
            free(p);
            return rc;
        }
        if (rc < 0) {
            char reason[128];
            snprintf(why, why_cap, "%s: %s", path,
                     hw_open_reason(AT_FDCWD, path, -rc, reason, sizeof reason));
            free(p);
            return rc;
        }
        free(p);
    }
    if (jax_peak(dir, file_opt[HW_FILE_RUNLOG], &acc.jax_peak_mb) < 0) {
        snprintf(why, why_cap, "%s: %s", dir ? dir : file_opt[HW_FILE_RUNLOG], strerror(ENOMEM));
        return -ENOMEM;
    }
    sum_py_format(&acc, fields, out);
    *usable = any;
    if (!any) {
        snprintf(why, why_cap, "%s: no hw_metrics.csv, cpu_metrics.csv or hw_dmon.csv",
                 dir ? dir : "(no files)");
        return -ENOENT;
    }
    return 0;
}
