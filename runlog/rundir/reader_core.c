/* The reader core every file kind stands on: line assembly over chunk boundaries (with a
 * bounded carry buffer, so memory does not depend on the file), CSV and blank splitting, header
 * names, numeric cells and placeholders, quality counters and skipped lines. It knows no file
 * kind: the per-kind line parsers (read_*.c) set r->line_fn, and dispatch.c picks them by kind. */
#include "reader_int.h"

#include <ctype.h>
#include <errno.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/parse.h"

const char *const rd_skip_names[RD_SKIP_COUNT] = {
    "too_long", "csv", "cells", "layout", "timestamp", "json", "shape", "binary",
};

uint64_t rd_quality_skipped_total(const struct rd_quality *q)
{
    uint64_t t = 0;
    for (int i = 0; i < RD_SKIP_COUNT; i++)
        t += q->skipped[i];
    return t;
}

uint64_t rd_quality_placeholders_total(const struct rd_quality *q)
{
    uint64_t t = q->placeholders_other;
    for (size_t i = 0; i < q->n_tokens; i++)
        t += q->placeholders[i].n;
    return t;
}

/* ---- cells ------------------------------------------------------------------------------ */

double rd_in_range_slow(struct rd_reader *r, const char *column, double v, struct rd_range rg)
{
    (void)rg;
    struct rd_quality *q = r->q;
    q->bad_cells++;
    size_t i = 0;
    while (i < q->n_ranged && strcmp(q->out_of_range[i].column, column))
        i++;
    if (i == q->n_ranged) {
        if (i == RD_MAX_RANGED)
            return NAN;
        snprintf(q->out_of_range[i].column, sizeof q->out_of_range[i].column, "%s", column);
        q->out_of_range[i].value = v;
        q->out_of_range[i].line = r->lineno;
        q->out_of_range[i].n = 0;
        q->n_ranged++;
    }
    q->out_of_range[i].n++;
    return NAN;
}

void rd_count_token(struct rd_quality *q, const char *s, size_t n)
{
    if (n >= sizeof q->placeholders[0].token)
        n = sizeof q->placeholders[0].token - 1;
    for (size_t i = 0; i < q->n_tokens; i++)
        if (strlen(q->placeholders[i].token) == n && !memcmp(q->placeholders[i].token, s, n)) {
            q->placeholders[i].n++;
            return;
        }
    if (q->n_tokens < RD_MAX_TOKENS) {
        memcpy(q->placeholders[q->n_tokens].token, s, n);
        q->placeholders[q->n_tokens].token[n] = '\0';
        q->placeholders[q->n_tokens].n = 1;
        q->n_tokens++;
    } else {
        q->placeholders_other++;
    }
}

void rd_uncount_token(struct rd_quality *q, const char *s, size_t n, uint64_t times)
{
    for (size_t i = 0; i < q->n_tokens; i++)
        if (strlen(q->placeholders[i].token) == n && !memcmp(q->placeholders[i].token, s, n)) {
            q->placeholders[i].n -= times < q->placeholders[i].n ? times : q->placeholders[i].n;
            if (!q->placeholders[i].n) { /* none left: no such token at all */
                memmove(&q->placeholders[i], &q->placeholders[i + 1],
                        (q->n_tokens - i - 1) * sizeof q->placeholders[0]);
                q->n_tokens--;
            }
            return;
        }
}

double rd_num_cell_slow(struct rd_quality *q, const char *s, size_t n, bool count_empty)
{
    double v;
    if (n == 0) {
        if (count_empty)
            rd_count_token(q, "", 0);
        return NAN;
    }
    if (hw_parse_num_cell(s, n, &v))
        return v;
    if (s[0] == '[' || (n == 3 && !memcmp(s, "N/A", 3)) || (n == 1 && s[0] == '-')) {
        rd_count_token(q, s, n);
        return NAN;
    }
    q->bad_cells++;
    return NAN;
}

void rd_header_name(const char *s, size_t n, char *out, size_t cap)
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

/* ---- header lines and cells ------------------------------------------------------------- */

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
size_t rd_split_fields(const char *list, char (*out)[64], size_t max)
{
    size_t n = 0;
    const char *p = list;
    while (*p && n < max) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        rd_header_name(p, len, out[n], 64);
        n++;
        if (!c)
            break;
        p = c + 1;
    }
    return n;
}

bool rd_cells_are_header_names(struct rd_reader *r, bool (*known)(const char *))
{
    struct rd_cells *c = &r->cells;
    bool any = false;
    for (size_t i = 0; i < c->n; i++) {
        if (!header_cell(c->s[i], c->len[i]))
            return false;
        char name[64];
        rd_header_name(c->s[i], c->len[i], name, sizeof name);
        if (known(name))
            any = true;
    }
    return any;
}

/* Room for a line's column names, kept by the reader from the first use on, so that rows never
 * allocate. NULL if memory ran out. */
char (*rd_names_storage(struct rd_reader *r))[64]
{
    if (!r->names && !(r->names = malloc(sizeof(char[RD_MAX_COLS][64]))))
        r->q->oom = true;
    return r->names;
}

/* The cells of a header line as column names (units stripped), in rd_names_storage(). NULL if
 * memory ran out: the header is then counted but not used. */
char (*rd_header_names(struct rd_reader *r))[64]
{
    if (!rd_names_storage(r))
        return NULL;
    for (size_t i = 0; i < r->cells.n; i++)
        rd_header_name(r->cells.s[i], r->cells.len[i], r->names[i], 64);
    return r->names;
}

/* Split a CSV line into r->cells; false, with the line counted as skipped, if it cannot be. */
bool rd_split_cells(struct rd_reader *r, const char *s, size_t n)
{
    if (!rd_split_csv(r, s, n)) {
        rd_skip(r, RD_SKIP_CSV, NULL);
        return false;
    }
    if (r->cells.overflow) {
        rd_skip(r, RD_SKIP_CELLS, "too many cells");
        return false;
    }
    return true;
}

/* ---- splitting -------------------------------------------------------------------------- */

static void add_cell(struct rd_reader *r, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    struct rd_cells *c = &r->cells;
    if (c->n >= RD_MAX_COLS) {
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
static const size_t csv_limit = RD_DEFAULT_MAX_LINE * 2 + 4096;
static void *csv_bounded_realloc(void *p, size_t n)
{
    if (n > csv_limit)
        return NULL;
    return realloc(p, n);
}

/* One cell d[b..e) of a plain line (d[e] is the ',' after it, or NUL), blanks trimmed and
 * NUL-terminated in place as cell k. */
static inline void plain_cell(struct rd_cells *c, size_t k, char *d, size_t b, size_t e)
{
    /* nvidia-smi writes ", " and no blank before a comma: one byte tells each end, and the
     * loops only run for other shapes (bytes above ' ' are neither blank nor the end) */
    b += d[b] == ' ';
    if ((unsigned char)d[b] <= ' ')
        while (d[b] == ' ' || d[b] == '\t') /* d[e] is ',' or NUL: it stops the loop */
            b++;
    if (e > b && (unsigned char)d[e - 1] <= ' ')
        while (e > b && (d[e - 1] == ' ' || d[e - 1] == '\t'))
            e--;
    d[e] = '\0';
    c->s[k] = d + b;
    c->len[k] = e - b;
}

/* Lines with no quote and no carriage return (all of nvidia-smi's and hwmon's) are split
 * here: copied once, cut at each ',', blanks trimmed. That is exactly what libcsv makes of
 * such a line (the readers suite and fuzz_sum_split compare the two), at a fraction of the
 * cost; anything else goes through libcsv. One pass: 16 bytes at a time are compared with ',',
 * '"' and '\r' at once (SSE2, in every x86-64), instead of a memchr per cell and per special
 * character; the last 16 bytes of the line are loaded again rather than copied to a buffer. */
static bool split_plain(struct rd_reader *r, const char *s, size_t n)
{
    if (n + 16 > r->cellbuf_cap)
        return false;
    char *d = r->cellbuf;
    struct rd_cells *c = &r->cells;
    size_t start = 0, k = 0;
    d[n] = '\0';
#if defined(__SSE2__)
    const __m128i vq = _mm_set1_epi8('"'), vr = _mm_set1_epi8('\r'), vc = _mm_set1_epi8(',');
    /* The copy: each whole block is stored before its cells are cut (NUL-terminated) in it; the
     * line's last 16 bytes first of all, since the partial block at the end is read from them
     * and the whole blocks before it store the same bytes over them before any cut. */
    if (n >= 16)
        _mm_storeu_si128((__m128i *)(void *)(d + n - 16),
                         _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)));
    for (size_t i = 0; i < n; i += 16) {
        __m128i x;
        size_t base = i; /* s[base] is the vector's first byte */
        unsigned valid = 0xffff;
        if (n - i >= 16) {
            x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            _mm_storeu_si128((__m128i *)(void *)(d + i), x);
        } else if (n >= 16) {
            /* the last 16 bytes of the line, of which those before s[i] are done already */
            base = n - 16;
            x = _mm_loadu_si128((const __m128i *)(const void *)(s + base));
            valid = 0xffffu << (i - base) & 0xffff;
        } else {
            char tail[16] = {0}; /* a line under 16 bytes */
            memcpy(tail, s + i, n - i);
            memcpy(d + i, s + i, n - i);
            x = _mm_loadu_si128((const __m128i *)(const void *)tail);
            valid = (1u << (n - i)) - 1;
        }
        __m128i special = _mm_or_si128(_mm_cmpeq_epi8(x, vq), _mm_cmpeq_epi8(x, vr));
        if ((unsigned)_mm_movemask_epi8(special) & valid)
            return false;
        unsigned commas = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vc)) & valid;
        for (; commas && k < RD_MAX_COLS; commas &= commas - 1) {
            size_t pos = base + (size_t)__builtin_ctz(commas);
            plain_cell(c, k++, d, start, pos);
            start = pos + 1;
        }
        if (commas) /* a cell more than RD_MAX_COLS; the rest is still looked at for quotes */
            k = RD_MAX_COLS + 1;
    }
#else
    memcpy(d, s, n); /* cells are cut (NUL-terminated) in the copy */
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '"' || ch == '\r')
            return false;
        if (ch == ',' && k <= RD_MAX_COLS) {
            if (k < RD_MAX_COLS)
                plain_cell(c, k, d, start, i);
            k++;
            start = i + 1;
        }
    }
#endif
    if (k < RD_MAX_COLS)
        plain_cell(c, k++, d, start, n);
    else
        c->overflow = true;
    c->n = k > RD_MAX_COLS ? RD_MAX_COLS : k;
    r->cellbuf_len = n + 1;
    return true;
}

bool rd_split_csv(struct rd_reader *r, const char *s, size_t n)
{
    r->cells.n = 0;
    r->cells.overflow = false;
    r->cellbuf_len = 0;
    r->cell_oom = false;
    if (!r->opts->libcsv_only && split_plain(r, s, n))
        return true;
    return rd_split_libcsv(r, s, n);
}

bool rd_split_libcsv(struct rd_reader *r, const char *s, size_t n)
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

void rd_split_ws(struct rd_reader *r, const char *s, size_t n)
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

void rd_skip(struct rd_reader *r, enum rd_skip why, const char *detail)
{
    /* A torn row with a whole one glued on has too many cells or a timestamp cell that is not
     * one: only then is the line searched for a second row (handle_line reads it), so whole
     * rows pay nothing for the search. */
    if (r->line_s && r->row_start_fn &&
        (why == RD_SKIP_CELLS || why == RD_SKIP_TIMESTAMP || why == RD_SKIP_LAYOUT)) {
        size_t at = r->row_start_fn(r, r->line_s, r->line_n);
        if (at > 0) {
            r->resync_at = at;
            return;
        }
    }
    r->q->skipped[why]++;
    if (r->sink->diag) {
        char msg[200];
        static const char *const what[RD_SKIP_COUNT] = {
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

void rd_torn(struct rd_reader *r)
{
    r->q->torn++;
    if (r->sink->diag)
        r->sink->diag(r->sink->ctx, r->name, r->lineno,
                      "a record cut short (a failed write: a full disk?) before a whole one: "
                      "the whole one is read");
}

/* ---- line assembly ---------------------------------------------------------------------- */

/* may_nul: the line may hold a NUL byte (false when its whole chunk was seen to have none) */
static void handle_line(struct rd_reader *r, const char *s, size_t n, bool may_nul)
{
    r->lineno++;
    r->q->lines++;
    if (n && s[n - 1] == '\r')
        n--;
    if (may_nul && memchr(s, '\0', n)) {
        rd_skip(r, RD_SKIP_BINARY, NULL);
        return;
    }
    size_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
        k++;
    if (k == n) {
        r->q->blank++;
        return;
    }
    r->line_s = s;
    r->line_n = n;
    r->resync_at = 0;
    r->line_fn(r, s, n);
    r->line_s = NULL;
    size_t at = r->resync_at;
    if (at > 0) { /* a torn row with a whole one glued on: the torn part is lost, not both */
        rd_torn(r);
        r->line_fn(r, s + at, n - at);
    }
}

/* Where a second row starts inside a CSV line whose rows begin with a timestamp, 2026-11-21T..
 * (ours) or 2026/11/21 .. (nvidia-smi's): a row that a failed write cut short, with the next
 * row glued on. 0 when there is none: a whole row holds one timestamp, at its start. */
static bool ts_at(const unsigned char *p, char sep)
{
    return p[7] == (unsigned char)sep && (p[10] == 'T' || p[10] == ' ') && isdigit(p[0]) &&
           isdigit(p[1]) && isdigit(p[2]) && isdigit(p[3]) && isdigit(p[5]) && isdigit(p[6]) &&
           isdigit(p[8]) && isdigit(p[9]);
}

size_t rd_row_start_ts(struct rd_reader *r, const char *s, size_t n)
{
    (void)r;
    if (n < 20)
        return 0;
    /* memchr for the date's separator past the row's own date (a skipped row only) */
    size_t found = 0;
    static const char seps[2] = {'-', '/'};
    for (int k = 0; k < 2; k++) {
        const char *p = s + 5, *end = s + n - 6; /* sep at i+4 (i >= 1), date ends at i+10 */
        while (p < end && (p = memchr(p, seps[k], (size_t)(end - p)))) {
            size_t i = (size_t)(p - s) - 4;
            if (i > found && ts_at((const unsigned char *)s + i, seps[k]))
                found = i; /* the last one: several torn rows glued, the whole row is last */
            p++;
        }
    }
    return found;
}

struct rd_reader *rd_reader_alloc(enum hw_file kind, const char *name,
                                    const struct rd_read_opts *opts,
                                    const struct rd_sink *sink, struct rd_quality *q)
{
    struct rd_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    static const struct rd_read_opts zero_opts;
    static const struct rd_sink zero_sink;
    if (!opts)
        opts = &zero_opts;
    if (!sink)
        sink = &zero_sink;
    memset(q, 0, sizeof *q);
    r->kind = kind;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->opts = opts;
    r->sink = sink;
    r->q = q;
    r->max_line = opts->max_line ? opts->max_line : RD_DEFAULT_MAX_LINE;
    r->cellbuf_cap = r->max_line + RD_MAX_COLS + 16;
    r->cellbuf = malloc(r->cellbuf_cap);
    if (!r->cellbuf) {
        free(r);
        return NULL;
    }
    if (csv_init(&r->csv, CSV_APPEND_NULL) == 0) {
        csv_set_realloc_func(&r->csv, csv_bounded_realloc);
        r->csv_ok = true;
    }
    return r;
}

void rd_reader_free(struct rd_reader *r)
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

void rd_st_free(struct rd_reader *r)
{
    free(r->st);
    r->st = NULL;
}

static int carry_append(struct rd_reader *r, const char *s, size_t n)
{
    r->line_bytes += n;
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

int rd_reader_feed(struct rd_reader *r, const void *buf, size_t n)
{
    const char *p = buf, *end = p + n;
    r->q->bytes += n;
    /* one look for NUL bytes over the chunk instead of one per line: almost every chunk has none */
    bool nul = memchr(buf, '\0', n) != NULL;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return carry_append(r, p, (size_t)(end - p));
        size_t len = (size_t)(nl - p);
        if (r->discarding) {
            r->discarding = false;
            r->lineno++;
            r->q->lines++;
            rd_skip(r, RD_SKIP_TOO_LONG, NULL);
        } else if (r->carry_len) {
            int rc = carry_append(r, p, len);
            if (rc < 0)
                return rc;
            if (r->discarding) {
                r->discarding = false;
                r->lineno++;
                r->q->lines++;
                rd_skip(r, RD_SKIP_TOO_LONG, NULL);
            } else {
                handle_line(r, r->carry, r->carry_len, true);
            }
            r->carry_len = 0;
        } else if (len > r->max_line) {
            r->lineno++;
            r->q->lines++;
            rd_skip(r, RD_SKIP_TOO_LONG, NULL);
        } else {
            handle_line(r, p, len, nul);
        }
        r->line_bytes = 0; /* the line ended here */
        p = nl + 1;
    }
    return 0;
}

int rd_reader_finish(struct rd_reader *r)
{
    if (r->carry_len || r->discarding) {
        r->q->partial_last = true;
        /* the line's real size, also beyond max_line, where only its count was kept */
        r->q->partial_bytes = r->line_bytes;
        if (r->sink->diag)
            r->sink->diag(r->sink->ctx, r->name, r->lineno + 1,
                          "partial last line (not yet written), ignored");
        r->carry_len = 0;
        r->discarding = false;
        r->line_bytes = 0;
    }
    return 0;
}

/* ---- JSON getters: run.jsonl's reader and the run info (runinfo.c) both read events ---- */

const char *rd_json_str(struct json_object *obj, const char *key)
{
    struct json_object *v;
    if (obj && json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

double rd_json_num(struct json_object *obj, const char *key)
{
    struct json_object *v;
    if (obj && json_object_object_get_ex(obj, key, &v) &&
        (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        return json_object_get_double(v);
    return NAN;
}

bool rd_phase_failed(const struct rd_phase *p, int *exit_status, int *signal)
{
    long v;
    *exit_status = rd_json_int(p->obj, HW_PHASE_EXIT_STATUS, &v) && v >= 0 && v <= 255 ? (int)v : -1;
    *signal = rd_json_int(p->obj, HW_PHASE_SIGNAL, &v) && v > 0 && v < 128 ? (int)v : 0;
    struct json_object *x;
    bool exception = p->obj && json_object_object_get_ex(p->obj, HW_PHASE_EXCEPTION, &x) && x &&
                     !json_object_is_type(x, json_type_null);
    return *exit_status > 0 || *signal > 0 || exception;
}

bool rd_json_int(struct json_object *obj, const char *key, long *out)
{
    struct json_object *v;
    if (!obj || !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
        return false;
    /* json-c saturates an integer beyond 64 bits: that is no count or status of ours */
    int64_t i = json_object_get_int64(v);
    if (i == INT64_MAX || i == INT64_MIN)
        return false;
    *out = (long)i;
    return true;
}
