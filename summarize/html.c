/* The self-contained HTML report (html.h): one run's timelines with phase bands and event
 * markers, its summary tables, and a sortable sweep page.
 *
 * How a run becomes a page:
 *  1. run.jsonl through the readers: phases and events (kept, up to a cap), and what the start
 *     event says about the other files (zone of nvidia-smi's clock, GPU fields).
 *  2. The CSVs once, for the time range and the sample interval of each file (the median of the
 *     first steps: a gap is a step longer than SUM_HTML_GAP_FACTOR intervals).
 *  3. The CSVs again: every sample goes into the bucket of its pixel column (first, last, min,
 *     max, sum, count). Memory is a fixed number of buckets per series, whatever the run's length.
 *  4. Rendering: one SVG per chart on the shared time axis; a polyline (an SVG path) per series
 *     that starts a new subpath where sampling had a gap.
 * The page is written straight to the caller's FILE; besides the buckets only the phases and
 * events are held (up to SUM_HTML_MAX_PHASES and SUM_HTML_MAX_EVENTS). */
#include "html.h"
#include "system.h"

#include <errno.h>
#include <float.h>
#include <libgen.h>
#include <limits.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hwrun/io.h"
#include "hwrun/timeutil.h"

/* Chart geometry in px. The left and right margins hold the y axes (the right one the energy
 * axis of the power chart); every chart keeps both so that the time axes line up. */
#define ML 60
#define MR 58
#define MT 8
#define PLOT_H 116
#define MB 30
#define CHART_H (MT + PLOT_H + MB)
#define SPARK_COLS 120
#define SPARK_H 26
#define NDELTAS 512         /* steps kept per file to estimate its sample interval */
#define NAME_MAX_BYTES 200  /* phase and event names are cut (at a character) beyond this */
#define MAX_EVENT_LINES 512 /* events also drawn as lines across the charts, up to this many */
#define MAX_LANES 3         /* rows of overlapping phases in the phase strip */

/* ---- writing and escaping -------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0 if invalid (overlong forms,
 * surrogates, beyond U+10FFFF, truncated). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

/* Write s[0..n) as HTML text or attribute value: & < > " ' become references; control
 * characters (but tab and newline), C1 controls and each byte of invalid UTF-8 become U+FFFD. */
static void esc_n(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0; /* s[run..i) is pending, to be written as is */
    while (i < n) {
        unsigned c = s[i];
        const char *rep = NULL;
        size_t len = 1;
        if (c >= 0x80) {
            len = utf8_seq(s + i, n - i);
            if (len == 0) {
                rep = "\xEF\xBF\xBD";
                len = 1;
            } else if (len == 2 && c == 0xC2 && s[i + 1] < 0xA0) {
                rep = "\xEF\xBF\xBD"; /* U+0080..U+009F */
            }
        } else if (c == '&') {
            rep = "&amp;";
        } else if (c == '<') {
            rep = "&lt;";
        } else if (c == '>') {
            rep = "&gt;";
        } else if (c == '"') {
            rep = "&quot;";
        } else if (c == '\'') {
            rep = "&#39;";
        } else if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
            rep = "\xEF\xBF\xBD";
        }
        if (rep) {
            fwrite(s + run, 1, i - run, f);
            fputs(rep, f);
            i += len;
            run = i;
        } else {
            i += len;
        }
    }
    fwrite(s + run, 1, n - run, f);
}

static void esc(FILE *f, const char *s)
{
    if (s)
        esc_n(f, s, strlen(s));
}

/* Write a relative link target: bytes outside RFC 3986's unreserved set and '/' are
 * percent-encoded, so a name with '#', '?', '"', spaces or '<' stays one path. */
static void put_href(FILE *f, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
            fputc((int)c, f);
        else
            fprintf(f, "%%%c%c", hex[c >> 4], hex[c & 15]);
    }
}

/* Copy at most cap-1 bytes of s into out, cut before a UTF-8 continuation byte. */
static void copy_cut(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memmove(out, s, n);
    out[n] = '\0';
}

/* Drop an incomplete UTF-8 sequence that a cut left at the end of s. */
static void trim_partial_utf8(char *s)
{
    size_t n = strlen(s), k = n;
    while (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
        k--;
    if (k > 0 && (unsigned char)s[k - 1] >= 0xC0 &&
        utf8_seq((const unsigned char *)s + k - 1, n - k + 1) == 0)
        s[k - 1] = '\0';
}

static char *dup_cut(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Bytes of the first max_chars characters of s (a character = a UTF-8 lead byte). */
static size_t prefix_chars(const char *s, size_t max_chars, size_t *nchars)
{
    size_t i = 0, k = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (k == max_chars)
                break;
            k++;
        }
    }
    *nchars = k;
    return i;
}

static size_t count_chars(const char *s)
{
    size_t k = 0;
    for (; *s; s++)
        k += ((unsigned char)*s & 0xC0) != 0x80;
    return k;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- numbers --------------------------------------------------------------------------------- */

/* "%.0f" of v with its digits in groups of three, separated by thin spaces: 1 234 567. */
static void group_digits(char *buf, size_t cap, double v)
{
    char raw[32];
    int n = snprintf(raw, sizeof raw, "%.0f", v);
    size_t o = 0, lead = raw[0] == '-';
    for (int i = 0; i < n && o + 4 < cap; i++) {
        int left = n - i; /* digits left, counting this one */
        if (i > (int)lead && left % 3 == 0) {
            memcpy(buf + o, "\xE2\x80\x89", 3);
            o += 3;
        }
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
}

/* A readable value for tables and legends: integers as such, else 3-4 significant digits. */
static const char *fmt_num(char *buf, size_t cap, double v)
{
    if (!isfinite(v))
        snprintf(buf, cap, "\xE2\x80\x94"); /* an em dash */
    else if (fabs(v) >= 1e15)
        snprintf(buf, cap, "%.3g", v);
    else if (fabs(v) >= 10000)
        group_digits(buf, cap, v);
    else if (v == floor(v) || fabs(v) >= 100)
        snprintf(buf, cap, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, cap, "%.1f", v);
    else if (fabs(v) >= 0.01)
        snprintf(buf, cap, "%.2f", v);
    else
        snprintf(buf, cap, "%.2g", v);
    return buf;
}

/* A step of 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    if (!(x > 0) || !isfinite(x))
        return 1;
    double e = pow(10, floor(log10(x)));
    double f = x / e;
    double nf = f <= 1.0001 ? 1 : f <= 2.0001 ? 2 : f <= 5.0001 ? 5 : 10;
    return nf * e;
}

static int step_decimals(double step)
{
    int d = 0;
    while (d < 6 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * step * pow(10, d))
        d++;
    return d;
}

/* "3 h 25 min", "12.5 s" */
static const char *fmt_dur(char *buf, size_t cap, double s)
{
    if (!isfinite(s) || s < 0)
        snprintf(buf, cap, "\xE2\x80\x94");
    else if (s < 60)
        snprintf(buf, cap, "%.3g s", s);
    else if (s < 3600)
        snprintf(buf, cap, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else if (s < 86400 * 3)
        snprintf(buf, cap, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
    else
        snprintf(buf, cap, "%d d %02d h", (int)(s / 86400), (int)fmod(s / 3600, 24));
    return buf;
}

/* "2026-11-21 15:27:49 UTC" */
static const char *fmt_utc(char *buf, size_t cap, double t)
{
    struct tm tm;
    time_t tt = (time_t)floor(t);
    if (!isfinite(t) || fabs(t) > 1e12 || !gmtime_r(&tt, &tm)) {
        snprintf(buf, cap, "\xE2\x80\x94");
        return buf;
    }
    snprintf(buf, cap, "%04d-%02d-%02d %02d:%02d:%02d UTC", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

/* ---- series: one bucket per pixel column ----------------------------------------------------- */

#define COL_GAP 1u       /* the first sample of this column came after a gap */
#define COL_MIN_FIRST 2u /* the minimum came before the maximum */

struct col {
    float first, last, min, max;
    double sum;
    uint32_t n;
    uint8_t flags;
};

struct series {
    struct col *cols; /* ncols buckets, allocated at the first sample */
    double last_t;    /* time of the previous sample (NAN: none) */
    bool brk;         /* a not-measured sample: the next one starts a new segment */
    bool any;
    double vmin, vmax;
};

enum src { SRC_GPU, SRC_DMON, SRC_CPU, SRC_PROC, SRC_GPM, SRC_COUNT };
static const enum sum_kind src_kind[SRC_COUNT] = {SUM_KIND_GPU, SUM_KIND_DMON, SUM_KIND_CPU,
                                                  SUM_KIND_PROC, SUM_KIND_GPM};

/* Per-GPU series and where each comes from in hw_metrics.csv and in hw_dmon.csv (-1: no). */
enum gser { GS_UTIL, GS_MEMUTIL, GS_MEMUSED, GS_MEMTOTAL, GS_POWER, GS_CLOCK,
            GS_SMACT, GS_TENSOR, GS_COUNT };
static const int gs_query[GS_COUNT] = {SUM_GM_UTIL,      SUM_GM_MEM_UTIL, SUM_GM_MEM_USED,
                                       SUM_GM_MEM_TOTAL, SUM_GM_POWER,    SUM_GM_SM_CLOCK,
                                       -1,               -1};
static const int gs_dmon[GS_COUNT] = {SUM_DM_SM, SUM_DM_MEM, SUM_DM_FB, -1, SUM_DM_PWR,
                                      SUM_DM_PCLK, -1, -1};
/* hw_gpm.csv: GPM activity, drawn next to utilization */
static const int gs_gpm[GS_COUNT] = {-1, -1, -1, -1, -1, -1, SUM_DM_SMUTIL, SUM_DM_MMAACT};

/* Other series. */
enum oser {
    OS_ENERGY,
    OS_USR,
    OS_SYS,
    OS_IOWAIT,
    OS_RSS,
    OS_PCPU,
    OS_CGMEM,
    OS_CGMAX,
    OS_DISKR, /* disk and network rates (MiB/s), from cpu_metrics.csv's bytes per row */
    OS_DISKW,
    OS_NETRX,
    OS_NETTX,
    OS_SPARK,
    OS_COUNT
};

/* The times of one file, to find its range robustly: a reservoir sample (for the bulk) and
 * the NEXTREME smallest and largest (for the exact ends), so that a few garbage timestamps
 * (a clock at 1970) do not stretch the axis. */
#define NRESERVOIR 1024
#define NEXTREME 16
struct tsample {
    double res[NRESERVOIR];
    size_t nres;
    uint64_t seen, rng;
    double lo[NEXTREME], hi[NEXTREME]; /* lo ascending, hi descending */
    size_t nlo, nhi;
};

static void extreme_insert(double *a, size_t *n, double t, bool ascending)
{
    size_t i = *n;
    if (i == NEXTREME) {
        if (ascending ? t >= a[i - 1] : t <= a[i - 1])
            return;
        i--;
    } else {
        (*n)++;
    }
    while (i > 0 && (ascending ? a[i - 1] > t : a[i - 1] < t)) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = t;
}

static void tsample_add(struct tsample *s, double t)
{
    s->seen++;
    if (s->nres < NRESERVOIR) {
        s->res[s->nres++] = t;
    } else {
        s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t k = (s->rng >> 11) % s->seen;
        if (k < NRESERVOIR)
            s->res[k] = t;
    }
    extreme_insert(s->lo, &s->nlo, t, true);
    extreme_insert(s->hi, &s->nhi, t, false);
}

static int cmp_double(const void *a, const void *b);

/* The range of a file's times without outliers: the bulk is [p5, p95] of the sample; the ends
 * are the extremes that lie within twice the bulk's width (at least an hour) of it. false if
 * the file had no times. */
static bool tsample_range(struct tsample *s, double *lo, double *hi)
{
    if (!s->nres)
        return false;
    qsort(s->res, s->nres, sizeof(double), cmp_double); /* nres > 0: res is an array */
    double a = s->res[(size_t)floor(0.05 * (double)(s->nres - 1))];
    double b = s->res[(size_t)ceil(0.95 * (double)(s->nres - 1))];
    double slack = fmax(2 * (b - a), 3600);
    *lo = a;
    *hi = b;
    for (size_t i = 0; i < s->nlo; i++)
        if (s->lo[i] >= a - slack) {
            *lo = s->lo[i];
            break;
        }
    for (size_t i = 0; i < s->nhi; i++)
        if (s->hi[i] <= b + slack) {
            *hi = s->hi[i];
            break;
        }
    /* More outliers than kept extremes: the reservoir's own ends within the slack. */
    double l = *lo, h = *hi;
    for (size_t i = 0; i < s->nres && s->res[i] < l; i++)
        if (s->res[i] >= a - slack) {
            l = s->res[i];
            break;
        }
    for (size_t i = s->nres; i-- > 0 && s->res[i] > h;)
        if (s->res[i] <= b + slack) {
            h = s->res[i];
            break;
        }
    *lo = l;
    *hi = h;
    return true;
}

struct gpu_slot {
    struct series s[GS_COUNT];
    double e_j;      /* energy so far */
    double pw_t, pw; /* previous power sample */
    double row_t;    /* previous row (gap counting) */
};

struct phase {
    double t0, t1;
    char *name;
    int lane;
    int color;
};

struct event {
    double t;
    char *name;
};

struct run {
    const struct sum_html_opts *opts;
    const char *dir;
    struct sum_read_opts ropts;
    int ncols;
    bool sweep; /* only what a sweep row needs: GPU files, utilization into OS_SPARK */
    int pass;   /* 1: time range, 2: drawing */

    /* run.jsonl */
    struct sum_run_info info;
    struct phase *ph;
    size_t nph, ph_cap;
    uint64_t ph_dropped;
    struct event *ev;
    size_t nev, ev_cap;
    uint64_t ev_dropped;
    const char *color_name[8]; /* phase names in order of first start: colour i (borrowed) */
    size_t ncolors;
    char host[128];
    char command[400];
    double jl_min, jl_max;

    /* pass 1 */
    double d_min[SRC_COUNT], d_max[SRC_COUNT];
    struct tsample ts[SRC_COUNT];
    double deltas[SRC_COUNT][NDELTAS];
    size_t nd[SRC_COUNT];
    double prev_t[SRC_COUNT];
    int first_gpu[SRC_COUNT];
    unsigned have_query, have_dmon; /* GS_ bits measured at least once, with a timestamp */
    double interval[SRC_COUNT], gap_thr[SRC_COUNT];

    /* the axis: [t0, t1] in epoch seconds, zero at t0 */
    double t0, t1, per_col;
    bool no_data; /* no file had a time: the page says so */

    /* pass 2 */
    bool use_dmon[GS_COUNT];
    struct gpu_slot *gpu[SUM_HTML_MAX_GPUS];
    uint64_t gpu_dropped;
    struct series os[OS_COUNT];
    double src_last[SRC_COUNT];
    double io_prev_t; /* the previous cpu_metrics.csv row drawn: its bytes' interval */
    uint64_t gaps[SRC_COUNT];
    double gap_s[SRC_COUNT];
    uint64_t out_of_range; /* rows whose time is far from the rest (a bad clock): not drawn */
    bool oom;

    struct sum_quality q[SUM_KIND_COUNT];
    int read_err[SUM_KIND_COUNT];
    enum sum_kind cur_kind; /* the file being read */
};

static void series_free(struct series *s)
{
    free(s->cols);
    s->cols = NULL;
}

static void series_init(struct series *s)
{
    memset(s, 0, sizeof *s);
    s->last_t = NAN;
}

static void add_sample(struct run *R, struct series *s, double t, double v, double gap_thr)
{
    if (!isfinite(t))
        return;
    if (!isfinite(v)) {
        s->brk = true;
        return;
    }
    if (!s->cols) {
        s->cols = calloc((size_t)R->ncols, sizeof *s->cols);
        if (!s->cols) {
            R->oom = true;
            return;
        }
    }
    double x = (t - R->t0) / R->per_col;
    int c = x < 0 ? 0 : x >= R->ncols ? R->ncols - 1 : (int)x;
    bool gap = s->brk || (isfinite(s->last_t) && t - s->last_t > gap_thr);
    struct col *k = &s->cols[c];
    float fv = (float)fmax(-FLT_MAX, fmin(FLT_MAX, v)); /* a garbage 1e300 must not overflow */
    if (k->n == 0) {
        k->first = k->last = k->min = k->max = fv;
        k->flags = gap ? COL_GAP : 0;
    } else {
        if (fv < k->min) {
            k->min = fv;
            k->flags &= (uint8_t)~COL_MIN_FIRST;
        }
        if (fv > k->max) {
            k->max = fv;
            k->flags |= COL_MIN_FIRST;
        }
        k->last = fv;
    }
    k->sum += v;
    k->n++;
    s->last_t = t;
    s->brk = false;
    if (!s->any || v < s->vmin)
        s->vmin = v;
    if (!s->any || v > s->vmax)
        s->vmax = v;
    s->any = true;
}

/* ---- reading --------------------------------------------------------------------------------- */

static bool error_like(const char *name)
{
    /* The same words as the summary's list of error-like events. */
    static const char *const words[] = {"error",       "fail",     "exit",    "hung",  "kill",
                                        "unavailable", "oom",      "crash",   "abort", "exception",
                                        "restart",     "fallback", "timeout", "signal"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(name, words[i]))
            return true;
    return false;
}

static void jl_see(struct run *R, double t)
{
    if (!isfinite(t))
        return;
    if (!isfinite(R->jl_min) || t < R->jl_min)
        R->jl_min = t;
    if (!isfinite(R->jl_max) || t > R->jl_max)
        R->jl_max = t;
}

static void on_phase(void *ctx, const struct sum_phase *p)
{
    struct run *R = ctx;
    if (R->sweep || !isfinite(p->t_start) || !isfinite(p->t_end))
        return;
    jl_see(R, p->t_start);
    jl_see(R, p->t_end);
    if (R->nph == R->ph_cap) {
        if (R->ph_cap == SUM_HTML_MAX_PHASES) {
            R->ph_dropped++;
            return;
        }
        size_t cap = R->ph_cap ? R->ph_cap * 2 : 16;
        struct phase *np = realloc(R->ph, cap * sizeof *np);
        if (!np) {
            R->oom = true;
            return;
        }
        R->ph = np;
        R->ph_cap = cap;
    }
    char *name = dup_cut(p->name, NAME_MAX_BYTES);
    if (!name) {
        R->oom = true;
        return;
    }
    R->ph[R->nph++] = (struct phase){.t0 = p->t_start, .t1 = p->t_end, .name = name};
}

static void join_command(struct run *R, struct json_object *cmd)
{
    size_t len = 0;
    R->command[0] = '\0';
    size_t n = json_object_array_length(cmd);
    for (size_t i = 0; i < n && len + 1 < sizeof R->command; i++) {
        const char *a = json_object_get_string(json_object_array_get_idx(cmd, i));
        if (!a)
            continue;
        int w = snprintf(R->command + len, sizeof R->command - len, "%s%s", i ? " " : "", a);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    if (len >= sizeof R->command) /* cut: do not end inside a character */
        trim_partial_utf8(R->command);
}

static void on_event(void *ctx, const struct sum_event *e)
{
    struct run *R = ctx;
    sum_run_info_event(&R->info, e);
    if (!isfinite(e->t))
        return;
    jl_see(R, e->t);
    if (!strcmp(e->name, "start") && e->data && json_object_is_type(e->data, json_type_object)) {
        struct json_object *v;
        if (json_object_object_get_ex(e->data, "host", &v) &&
            json_object_is_type(v, json_type_string))
            copy_cut(R->host, sizeof R->host, json_object_get_string(v));
        if (json_object_object_get_ex(e->data, "command", &v) &&
            json_object_is_type(v, json_type_array))
            join_command(R, v);
    }
    if (R->sweep)
        return;
    if (R->nev == R->ev_cap) {
        if (R->ev_cap == SUM_HTML_MAX_EVENTS) {
            R->ev_dropped++;
            return;
        }
        size_t cap = R->ev_cap ? R->ev_cap * 2 : 16;
        struct event *ne = realloc(R->ev, cap * sizeof *ne);
        if (!ne) {
            R->oom = true;
            return;
        }
        R->ev = ne;
        R->ev_cap = cap;
    }
    char *name = dup_cut(e->name, 64);
    if (!name) {
        R->oom = true;
        return;
    }
    R->ev[R->nev++] = (struct event){.t = e->t, .name = name};
}

/* Pass 1: the time range and the first steps of each file. For GPU files only the rows of the
 * first GPU seen count as steps (the others share its timestamps). */
static void range_note(struct run *R, enum src s, double t, int gpu)
{
    tsample_add(&R->ts[s], t);
    if (!(R->d_min[s] <= t))
        R->d_min[s] = t;
    if (!(R->d_max[s] >= t))
        R->d_max[s] = t;
    if (R->first_gpu[s] < 0)
        R->first_gpu[s] = gpu;
    if (gpu != R->first_gpu[s])
        return;
    if (isfinite(R->prev_t[s]) && t > R->prev_t[s] && R->nd[s] < NDELTAS)
        R->deltas[s][R->nd[s]++] = t - R->prev_t[s];
    R->prev_t[s] = t;
}

/* Pass 2: count gaps of a file (per GPU for GPU files). */
static void gap_note(struct run *R, enum src s, double *last, double t)
{
    if (isfinite(*last) && t - *last > R->gap_thr[s]) {
        R->gaps[s]++;
        R->gap_s[s] += t - *last;
    }
    *last = t;
}

static struct gpu_slot *gpu_slot(struct run *R, int gpu)
{
    if (gpu < 0 || gpu >= SUM_HTML_MAX_GPUS) {
        R->gpu_dropped++;
        return NULL;
    }
    if (!R->gpu[gpu]) {
        struct gpu_slot *g = calloc(1, sizeof *g);
        if (!g) {
            R->oom = true;
            return NULL;
        }
        for (int i = 0; i < GS_COUNT; i++)
            series_init(&g->s[i]);
        g->pw_t = g->row_t = NAN;
        R->gpu[gpu] = g;
    }
    return R->gpu[gpu];
}

static double total_energy_wh(const struct run *R)
{
    double j = 0;
    for (int g = 0; g < SUM_HTML_MAX_GPUS; g++)
        if (R->gpu[g])
            j += R->gpu[g]->e_j;
    return j / 3600.0;
}

/* One GPU sample (from either file) into the series whose source is that file. */
static void gpu_sample(struct run *R, enum src s, int gpu, double t, const double *v,
                       const int *map)
{
    struct gpu_slot *g = gpu_slot(R, gpu);
    if (!g)
        return;
    bool from_dmon = s == SRC_DMON;
    double thr = R->gap_thr[s];
    if (gpu == R->first_gpu[s]) /* gaps are counted on one GPU: the others share them */
        gap_note(R, s, &g->row_t, t);
    for (int m = 0; m < GS_COUNT; m++) {
        if (map[m] < 0 || R->use_dmon[m] != from_dmon)
            continue;
        double x = v[map[m]];
        if (m == GS_UTIL && R->sweep) {
            add_sample(R, &R->os[OS_SPARK], t, x, thr);
            continue;
        }
        if (m == GS_POWER) {
            /* Energy as the summary integrates it: trapezoids between consecutive measured
             * samples; a step over a gap or with an unmeasured end is not bridged. */
            if (!isfinite(x)) {
                g->pw_t = NAN;
            } else {
                if (isfinite(g->pw_t) && t > g->pw_t && t - g->pw_t <= thr)
                    g->e_j += (g->pw + x) / 2 * (t - g->pw_t);
                g->pw_t = t;
                g->pw = x;
                if (!R->sweep)
                    add_sample(R, &R->os[OS_ENERGY], t, total_energy_wh(R), thr);
            }
        }
        if (!R->sweep)
            add_sample(R, &g->s[m], t, x, thr);
    }
}

/* Pass 2: a row far outside the run's range (see tsample_range) is counted, not drawn. */
static bool far_away(struct run *R, double t)
{
    if (t >= R->t0 && t <= R->t1)
        return false;
    R->out_of_range++;
    return true;
}

static void on_gpu(void *ctx, const struct sum_gpu_row *r)
{
    struct run *R = ctx;
    if (!isfinite(r->t))
        return;
    if (R->pass == 1) {
        range_note(R, SRC_GPU, r->t, r->gpu);
        for (int m = 0; m < GS_COUNT; m++)
            if (gs_query[m] >= 0 && isfinite(r->v[gs_query[m]]))
                R->have_query |= 1u << m;
        return;
    }
    if (!far_away(R, r->t))
        gpu_sample(R, SRC_GPU, r->gpu, r->t, r->v, gs_query);
}

static void on_dmon(void *ctx, const struct sum_dmon_row *r)
{
    struct run *R = ctx;
    if (!isfinite(r->t) || r->gpu < 0) /* dmon without -o DT has no time: nothing to place */
        return;
    /* hw_gpm.csv is dmon's text too; only its GPM columns are drawn */
    enum src s = R->cur_kind == SUM_KIND_GPM ? SRC_GPM : SRC_DMON;
    if (R->pass == 1) {
        range_note(R, s, r->t, r->gpu);
        for (int m = 0; s == SRC_DMON && m < GS_COUNT; m++)
            if (gs_dmon[m] >= 0 && isfinite(r->v[gs_dmon[m]]))
                R->have_dmon |= 1u << m;
        return;
    }
    if (!far_away(R, r->t))
        gpu_sample(R, s, r->gpu, r->t, r->v, s == SRC_GPM ? gs_gpm : gs_dmon);
}

/* Which chart series each host-side file feeds, and from which of its columns. */
struct series_col {
    int os;  /* OS_* series */
    int col; /* SUM_CPU_* or SUM_PROC_* column */
};
static const struct series_col cpu_series[] = {
    {OS_USR, SUM_CPU_USR},       {OS_SYS, SUM_CPU_SYS},        {OS_IOWAIT, SUM_CPU_IOWAIT},
    {OS_CGMEM, SUM_CPU_CG_MEM}, {OS_CGMAX, SUM_CPU_CG_MEM_MAX},
};
static const struct series_col proc_series[] = {
    {OS_RSS, SUM_PROC_RSS},
    {OS_PCPU, SUM_PROC_CPU},
};

/* A cpu_metrics.csv or proc_metrics.csv row: pass 1 notes its time, pass 2 draws it. */
static void host_row(struct run *R, enum src src, double t, const double *v,
                     const struct series_col *map, size_t n)
{
    if (!isfinite(t))
        return;
    if (R->pass == 1) {
        range_note(R, src, t, 0);
        return;
    }
    if (far_away(R, t))
        return;
    gap_note(R, src, &R->src_last[src], t);
    for (size_t i = 0; i < n; i++)
        add_sample(R, &R->os[map[i].os], t, v[map[i].col], R->gap_thr[src]);
}

/* A cpu_metrics.csv row's disk and network bytes as rates over the interval before it. */
static void io_rates(struct run *R, const struct sum_cpu_row *r)
{
    if (R->pass == 1 || !isfinite(r->t) || far_away(R, r->t))
        return;
    double dt = isfinite(R->io_prev_t) ? r->t - R->io_prev_t : R->info.interval_s;
    if (!isfinite(R->io_prev_t) || r->t > R->io_prev_t)
        R->io_prev_t = r->t;
    static const int col[] = {SUM_CPU_DISK_READ, SUM_CPU_DISK_WRITE, SUM_CPU_NET_RX,
                              SUM_CPU_NET_TX};
    for (int i = 0; i < 4; i++)
        add_sample(R, &R->os[OS_DISKR + i], r->t, sum_io_rate_mib_s(r->v[col[i]], dt),
                   R->gap_thr[SRC_CPU]);
}

static void on_cpu(void *ctx, const struct sum_cpu_row *r)
{
    host_row(ctx, SRC_CPU, r->t, r->v, cpu_series, sizeof cpu_series / sizeof cpu_series[0]);
    io_rates(ctx, r);
}

static void on_proc(void *ctx, const struct sum_proc_row *r)
{
    host_row(ctx, SRC_PROC, r->t, r->v, proc_series, sizeof proc_series / sizeof proc_series[0]);
}

static int path_of(char *buf, size_t cap, const char *dir, enum sum_kind k)
{
    int w = snprintf(buf, cap, "%s/%s", dir, sum_kind_files[k]);
    return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
}

/* Read one file of the run through sink; remembers the first failure of a present file. */
static void read_kind(struct run *R, enum sum_kind k, const struct sum_sink *sink)
{
    if (R->read_err[k])
        return;
    char path[4096];
    int rc = path_of(path, sizeof path, R->dir, k);
    R->cur_kind = k;
    if (rc == 0)
        rc = sum_read_file(k, path, &R->ropts, sink, &R->q[k]);
    if (rc < 0 && rc != -ENOENT)
        R->read_err[k] = rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run_init(struct run *R, const struct sum_html_opts *opts, const char *dir, int ncols)
{
    memset(R, 0, sizeof *R);
    R->opts = opts;
    R->dir = dir;
    R->ncols = ncols;
    R->ropts = opts->read;
    sum_run_info_init(&R->info);
    R->jl_min = R->jl_max = NAN;
    for (int s = 0; s < SRC_COUNT; s++) {
        R->d_min[s] = R->d_max[s] = R->prev_t[s] = R->src_last[s] = NAN;
        R->ts[s].rng = 0x2545F4914F6CDD1Dull;
        R->first_gpu[s] = -1;
    }
    for (int i = 0; i < OS_COUNT; i++)
        series_init(&R->os[i]);
    R->io_prev_t = NAN;
}

static void run_free(struct run *R)
{
    for (size_t i = 0; i < R->nph; i++)
        free(R->ph[i].name);
    free(R->ph);
    for (size_t i = 0; i < R->nev; i++)
        free(R->ev[i].name);
    free(R->ev);
    for (int g = 0; g < SUM_HTML_MAX_GPUS; g++) {
        if (!R->gpu[g])
            continue;
        for (int m = 0; m < GS_COUNT; m++)
            series_free(&R->gpu[g]->s[m]);
        free(R->gpu[g]);
    }
    for (int i = 0; i < OS_COUNT; i++)
        series_free(&R->os[i]);
}

/* The axis: the span of the samples, widened to take in the start event, phases and events
 * unless they lie absurdly far from the samples (a bad clock must not squash the charts). */
static void choose_range(struct run *R)
{
    double lo = NAN, hi = NAN;
    for (int s = 0; s < SRC_COUNT; s++) {
        double a, b;
        if (!tsample_range(&R->ts[s], &a, &b))
            continue;
        if (!(lo <= a))
            lo = a;
        if (!(hi >= b))
            hi = b;
    }
    double jlo = R->jl_min, jhi = R->jl_max;
    if (isfinite(R->info.t_start) && !(jlo <= R->info.t_start))
        jlo = R->info.t_start;
    if (!isfinite(lo)) {
        lo = jlo;
        hi = jhi;
    } else if (isfinite(jlo)) {
        double slack = fmax(hi - lo, 3600);
        if (jlo < lo && jlo >= lo - slack)
            lo = jlo;
        if (jhi > hi && jhi <= hi + slack)
            hi = jhi;
    }
    if (!isfinite(lo)) { /* nothing with a time at all */
        R->no_data = true;
        lo = 0;
        hi = 1;
    }
    if (!(hi > lo))
        hi = lo + 1;
    R->t0 = lo;
    R->t1 = hi;
    R->per_col = (hi - lo) / R->ncols;
    /* The last sample falls on t1: widen by a hair so it has a column of its own. */
    R->per_col *= 1 + 1e-9;
}

/* Everything but the drawing: the three passes over the run's files. */
static void read_run(struct run *R)
{
    struct sum_sink sink = {.ctx = R, .phase = on_phase, .event = on_event};
    read_kind(R, SUM_KIND_RUNLOG, &sink);
    /* The start event says how nvidia-smi's files were written. */
    if (R->info.have_tz)
        R->ropts.tz = R->info.tz;
    if (R->info.have_fields)
        R->ropts.gpu_fields = R->info.gpu_fields;

    sink =
        (struct sum_sink){.ctx = R, .gpu = on_gpu, .dmon = on_dmon, .cpu = on_cpu, .proc = on_proc};
    R->pass = 1;
    for (int s = 0; s < SRC_COUNT; s++)
        if (!R->sweep || s == SRC_GPU || s == SRC_DMON)
            read_kind(R, src_kind[s], &sink);
    for (int s = 0; s < SRC_COUNT; s++) {
        double iv = NAN;
        if (R->nd[s] > 0) {
            qsort(R->deltas[s], R->nd[s], sizeof(double), cmp_double);
            iv = R->deltas[s][R->nd[s] / 2];
        } else if (R->info.interval_s > 0) {
            iv = R->info.interval_s;
        }
        R->interval[s] = iv;
        R->gap_thr[s] = isfinite(iv) ? SUM_HTML_GAP_FACTOR * iv : INFINITY;
    }
    /* dmon's numbers stand in only for what hw_metrics.csv never measured. */
    bool any_dmon = false;
    for (int m = 0; m < GS_COUNT; m++) {
        R->use_dmon[m] = !(R->have_query & (1u << m)) && (R->have_dmon & (1u << m));
        any_dmon |= R->use_dmon[m];
    }
    choose_range(R);

    R->pass = 2;
    for (int s = 0; s < SRC_COUNT; s++) {
        if (R->sweep && s != SRC_GPU && s != SRC_DMON)
            continue;
        if (s == SRC_DMON && !any_dmon)
            continue;
        read_kind(R, src_kind[s], &sink);
    }
}

/* ---- drawing --------------------------------------------------------------------------------- */

static int plot_w(const struct run *R)
{
    return R->ncols;
}

static double x_of(const struct run *R, double t)
{
    return ML + (t - R->t0) / (R->t1 - R->t0) * plot_w(R);
}

struct axis {
    double lo, hi, step;
    int decimals;
};

/* A 0-based axis up to a nice value >= vmax (or exactly top when the data fit under it). */
static struct axis y_axis(double vmin, double vmax, double top)
{
    struct axis a = {0};
    if (!isfinite(vmax))
        vmax = 1;
    if (!isfinite(vmin))
        vmin = 0;
    double lo = vmin < 0 ? vmin : 0;
    double hi = vmax;
    if (isfinite(top) && hi <= top && lo >= 0)
        hi = top;
    if (!(hi > lo))
        hi = lo + 1;
    a.step = nice_step((hi - lo) / 4);
    a.lo = floor(lo / a.step) * a.step;
    a.hi = ceil(hi / a.step - 1e-9) * a.step;
    if (!(a.hi > a.lo))
        a.hi = a.lo + a.step;
    a.decimals = step_decimals(a.step);
    return a;
}

static double y_of(const struct axis *a, double v)
{
    return MT + PLOT_H - (v - a->lo) / (a->hi - a->lo) * PLOT_H;
}

/* The time axis: a unit that keeps the labels short, and a 1-2-5 step. */
struct taxis {
    double unit; /* seconds per label unit */
    const char *uname;
    double step; /* in label units */
    int decimals;
};

static struct taxis t_axis(const struct run *R)
{
    struct taxis a;
    double span = R->t1 - R->t0;
    if (span <= 180) {
        a.unit = 1;
        a.uname = "s";
    } else if (span <= 3 * 3600) {
        a.unit = 60;
        a.uname = "min";
    } else if (span <= 3 * 86400) {
        a.unit = 3600;
        a.uname = "h";
    } else {
        a.unit = 86400;
        a.uname = "d";
    }
    /* About one label per 100 px. */
    double n = plot_w(R) / 100.0;
    a.step = nice_step(span / a.unit / (n < 2 ? 2 : n));
    a.decimals = step_decimals(a.step);
    return a;
}

/* Path emitter: coordinates at 0.1 px; a horizontal run keeps only its two ends. */
struct pen {
    FILE *f;
    bool open;   /* a subpath is open */
    int nseg;    /* points in this subpath */
    long lx, ly; /* last point written (tenths of px) */
    bool held;   /* a point on the same row waits */
    long hx;
};

/* Tenths of a pixel as a decimal ("123.4", "-0.5"), without printf's float formatting. */
static void put_tenths(FILE *f, long v)
{
    unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
    fprintf(f, "%s%lu.%lu", v < 0 ? "-" : "", u / 10, u % 10);
}

static void pen_put(struct pen *p, long x, long y, bool move)
{
    fputc(move ? 'M' : ' ', p->f);
    put_tenths(p->f, x);
    fputc(' ', p->f);
    put_tenths(p->f, y);
}

static void pen_end(struct pen *p)
{
    if (!p->open)
        return;
    if (p->held)
        pen_put(p, p->hx, p->ly, false);
    else if (p->nseg == 1)
        fputs("h1", p->f); /* a lone sample between gaps: a short dash, visible */
    p->open = false;
    p->held = false;
}

static void pen_point(struct pen *p, double xf, double yf, bool new_seg)
{
    long x = lround(xf * 10), y = lround(yf * 10);
    if (new_seg || !p->open) {
        pen_end(p);
        pen_put(p, x, y, true);
        p->open = true;
        p->nseg = 1;
        p->lx = x;
        p->ly = y;
        return;
    }
    if (y == p->ly) { /* same row: remember only the far end */
        p->held = true;
        p->hx = x;
        return;
    }
    if (p->held) {
        pen_put(p, p->hx, p->ly, false);
        p->held = false;
    }
    if (x == p->lx && y == p->ly)
        return;
    pen_put(p, x, y, false);
    p->nseg++;
    p->lx = x;
    p->ly = y;
}

/* Draw one series as an SVG path: per column its first, extremes in time order, last. With
 * mean, the column's mean instead (sparklines). */
static void draw_series(FILE *f, const struct run *R, const struct series *s, const struct axis *a,
                        double scale, const char *cls, const char *label, bool mean)
{
    if (!s->any)
        return;
    fprintf(f, "<path class=\"%s\" d=\"", cls);
    struct pen p = {.f = f};
    double cw = (double)plot_w(R) / R->ncols;
    for (int c = 0; c < R->ncols; c++) {
        const struct col *k = &s->cols[c];
        if (!k->n)
            continue;
        double x = ML + (c + 0.5) * cw;
        bool gap = k->flags & COL_GAP;
        if (mean) {
            pen_point(&p, x, y_of(a, k->sum / k->n / scale), gap);
            continue;
        }
        float v[4];
        int nv = 0;
        v[nv++] = k->first;
        if (k->n > 1) {
            bool min_first = k->flags & COL_MIN_FIRST;
            v[nv++] = min_first ? k->min : k->max;
            v[nv++] = min_first ? k->max : k->min;
            v[nv++] = k->last;
        }
        for (int i = 0; i < nv; i++) {
            if (i > 0 && v[i] == v[i - 1])
                continue;
            pen_point(&p, x, y_of(a, v[i] / scale), gap && i == 0);
        }
    }
    pen_end(&p);
    fputs("\">", f);
    if (label) {
        fputs("<title>", f);
        esc(f, label);
        fputs("</title>", f);
    }
    fputs("</path>\n", f);
}

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

#define NPHASE_COLORS 8

/* A phase name's colour: the first NPHASE_COLORS distinct names (by start) get one each, in
 * order, so neighbours differ; later names share by hash. */
static int phase_color(const struct run *R, const char *name)
{
    for (size_t i = 0; i < R->ncolors; i++)
        if (!strcmp(R->color_name[i], name))
            return (int)i;
    return (int)(name_hash(name) % NPHASE_COLORS);
}

static int cmp_phase(const void *a, const void *b);

/* Sort the phases by start, give them colours and lanes of the phase strip (greedy: the first
 * lane free at its start). Returns the number of lanes. */
static int prepare_phases(struct run *R)
{
    if (R->nph > 1)
        qsort(R->ph, R->nph, sizeof *R->ph, cmp_phase);
    for (size_t i = 0; i < R->nph; i++) {
        struct phase *p = &R->ph[i];
        size_t k = 0;
        while (k < R->ncolors && strcmp(R->color_name[k], p->name))
            k++;
        if (k == R->ncolors && R->ncolors < NPHASE_COLORS)
            R->color_name[R->ncolors++] = p->name;
        p->color = phase_color(R, p->name);
    }
    int lanes = 0;
    double lane_end[MAX_LANES];
    for (size_t i = 0; i < R->nph; i++) {
        struct phase *p = &R->ph[i];
        int best = -1;
        for (int l = 0; l < lanes; l++)
            if (lane_end[l] <= p->t0 + 1e-9) {
                best = l;
                break;
            }
        if (best < 0 && lanes < MAX_LANES)
            best = lanes++;
        if (best < 0) { /* all lanes busy: the one that frees first */
            best = 0;
            for (int l = 1; l < lanes; l++)
                if (lane_end[l] < lane_end[best])
                    best = l;
        }
        p->lane = best;
        lane_end[best] = p->t1;
    }
    return lanes;
}

#define NGPU_COLORS 10

struct line {
    const struct series *s;
    char cls[24];
    char label[96];
    int axis; /* 0 left, 1 right */
    bool dashed;
    bool no_key; /* left out of the legend (said in the title) */
};

struct chart {
    const char *id, *title;
    const char *unit, *unit2; /* y axis units (unit2: right axis, NULL if none) */
    double top;               /* NAN, or a natural top (100 for percentages) */
    double scale, scale2;     /* divide values by this (MiB -> GiB) */
    struct line *lines;
    size_t n;
    const char *note; /* a short remark under the title, may be NULL */
};

static void draw_time_ticks(FILE *f, const struct run *R, const struct taxis *ta, bool labels)
{
    double span = (R->t1 - R->t0) / ta->unit;
    fputs("<path class=\"gx\" d=\"", f);
    for (double v = 0; v <= span + 1e-9 * span; v += ta->step)
        fprintf(f, "M%.1f %dv%d", x_of(R, R->t0 + v * ta->unit), MT, PLOT_H + 4);
    fputs("\"/>\n", f);
    if (!labels)
        return;
    for (double v = 0; v <= span + 1e-9 * span; v += ta->step)
        fprintf(f, "<text class=\"tx\" x=\"%.1f\" y=\"%d\">%.*f</text>",
                x_of(R, R->t0 + v * ta->unit), MT + PLOT_H + 15, ta->decimals, v);
    fprintf(f, "\n<text class=\"ax\" x=\"%d\" y=\"%d\">time since start [%s]</text>\n",
            ML + plot_w(R), MT + PLOT_H + 28, ta->uname);
}

/* A y axis: grid lines across the plot (left axis only), tick labels, and the unit. */
static void draw_y_axis(FILE *f, const struct run *R, const struct axis *a, bool right,
                        const char *unit)
{
    int x = right ? ML + plot_w(R) : ML;
    if (!right) {
        fputs("<path class=\"gy\" d=\"", f);
        for (double v = a->lo; v <= a->hi + a->step * 1e-6; v += a->step)
            fprintf(f, "M%d %.1fh%d", ML, y_of(a, v), plot_w(R));
        fputs("\"/>\n", f);
    }
    for (double v = a->lo; v <= a->hi + a->step * 1e-6; v += a->step)
        fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%.1f\">%.*f</text>", right ? "ty2" : "ty",
                right ? x + 5 : x - 5, y_of(a, v) + 3.5, a->decimals, fabs(v) < 1e-12 ? 0 : v);
    fprintf(f, "\n<text class=\"ax\" transform=\"translate(%d %d) rotate(-90)\">[",
            right ? x + 50 : 12, MT + PLOT_H / 2);
    esc(f, unit);
    fputs("]</text>\n", f);
}

static void draw_chart(FILE *f, const struct run *R, const struct chart *c, const struct taxis *ta)
{
    double lo[2] = {NAN, NAN}, hi[2] = {NAN, NAN};
    bool any = false;
    for (size_t i = 0; i < c->n; i++) {
        const struct series *s = c->lines[i].s;
        if (!s->any)
            continue;
        any = true;
        int ax = c->lines[i].axis;
        double sc = ax ? c->scale2 : c->scale;
        if (!(lo[ax] <= s->vmin / sc))
            lo[ax] = s->vmin / sc;
        if (!(hi[ax] >= s->vmax / sc))
            hi[ax] = s->vmax / sc;
    }
    if (!any)
        return;
    struct axis a = y_axis(lo[0], hi[0], c->top);
    struct axis a2 = y_axis(lo[1], hi[1], NAN);
    int w = ML + plot_w(R) + MR;
    fprintf(f,
            "<figure class=\"chart\" id=\"%s\" data-x0=\"0\" data-x1=\"%.6g\" data-y0=\"%.6g\" "
            "data-y1=\"%.6g\" data-plot=\"%d %d %d %d\"",
            c->id, R->t1 - R->t0, a.lo, a.hi, ML, MT, plot_w(R), PLOT_H);
    if (c->unit2)
        fprintf(f, " data-y2-0=\"%.6g\" data-y2-1=\"%.6g\"", a2.lo, a2.hi);
    fputs(">\n<figcaption><span class=\"ct\">", f);
    esc(f, c->title);
    fputs("</span>", f);
    for (size_t i = 0; i < c->n; i++) {
        const struct line *l = &c->lines[i];
        if (!l->s->any || l->no_key)
            continue;
        fprintf(f, "<span class=\"key %s%s\"><i></i>", l->cls, l->dashed ? " dash" : "");
        esc(f, l->label);
        fputs("</span>", f);
    }
    if (c->note) {
        fputs("<span class=\"note\">", f);
        esc(f, c->note);
        fputs("</span>", f);
    }
    fprintf(f,
            "</figcaption>\n<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
            "role=\"img\" aria-label=\"",
            w, CHART_H, w, CHART_H);
    esc(f, c->title);
    fprintf(f, "\">\n<rect class=\"pa\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", ML, MT,
            plot_w(R), PLOT_H);
    /* Phase bands under everything. The phases are sorted by start; neighbours of one colour
     * that touch on screen become one band, so thousands of short phases stay a few rects. */
    if (R->nph) {
        fputs("<g class=\"bands\">", f);
        int color = -1;
        double bx0 = 0, bx1 = 0;
        for (size_t i = 0; i <= R->nph; i++) {
            const struct phase *p = i < R->nph ? &R->ph[i] : NULL;
            double x0 = 0, x1 = 0;
            if (p) {
                x0 = fmax(x_of(R, p->t0), ML);
                x1 = fmin(x_of(R, p->t1), ML + plot_w(R));
                if (x1 < ML || x0 > ML + plot_w(R))
                    continue;
                if (p->color == color && x0 <= bx1 + 0.5) {
                    bx1 = fmax(bx1, x1);
                    continue;
                }
            }
            if (color >= 0)
                fprintf(f,
                        "<rect class=\"band p%d\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                        "height=\"%d\"/>",
                        color, bx0, MT, fmax(bx1 - bx0, 0.5), PLOT_H);
            if (p) {
                color = p->color;
                bx0 = x0;
                bx1 = x1;
            }
        }
        fputs("</g>\n", f);
    }
    draw_time_ticks(f, R, ta, true);
    draw_y_axis(f, R, &a, false, c->unit);
    if (c->unit2)
        draw_y_axis(f, R, &a2, true, c->unit2);
    if (R->nev && R->nev <= MAX_EVENT_LINES) {
        fputs("<path class=\"evl\" d=\"", f);
        for (size_t i = 0; i < R->nev; i++) {
            double x = x_of(R, R->ev[i].t);
            if (x >= ML && x <= ML + plot_w(R))
                fprintf(f, "M%.1f %dv%d", x, MT, PLOT_H);
        }
        fputs("\"/>\n", f);
    }
    fputs("<g class=\"lines\">\n", f);
    for (size_t i = 0; i < c->n; i++) {
        const struct line *l = &c->lines[i];
        char cls[48];
        snprintf(cls, sizeof cls, "ln %s%s", l->cls, l->dashed ? " dash" : "");
        draw_series(f, R, l->s, l->axis ? &a2 : &a, l->axis ? c->scale2 : c->scale, cls, l->label,
                    false);
    }
    fputs("</g>\n</svg>\n</figure>\n", f);
}

/* The strip above the charts: phases (in lanes when they overlap) and event markers. */
static int cmp_phase(const void *a, const void *b)
{
    const struct phase *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : (x->t1 > y->t1) - (x->t1 < y->t1);
}

static void draw_strip(FILE *f, struct run *R, int lanes)
{
    int lane_h = 18, ev_y = MT + lanes * (lane_h + 2) + 4;
    int h = ev_y + 14;
    int w = ML + plot_w(R) + MR;
    fprintf(f,
            "<figure class=\"strip\" id=\"phases\">\n<figcaption><span class=\"ct\">Phases and "
            "events</span><span class=\"note\">%zu phases, %zu events",
            R->nph, R->nev);
    if (R->ph_dropped || R->ev_dropped)
        fprintf(f, " (%llu phases and %llu events beyond the first %d not drawn)",
                (unsigned long long)R->ph_dropped, (unsigned long long)R->ev_dropped,
                SUM_HTML_MAX_PHASES);
    fprintf(f,
            "</span></figcaption>\n<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\" aria-label=\"phases and events\">\n",
            w, h, w, h);
    if (lanes)
        fprintf(f, "<text class=\"ty\" x=\"%d\" y=\"%d\">phases</text>", ML - 5, MT + 12);
    fprintf(f, "<text class=\"ty\" x=\"%d\" y=\"%d\">events</text>\n", ML - 5, ev_y + 4);
    for (size_t i = 0; i < R->nph; i++) {
        const struct phase *p = &R->ph[i];
        double x0 = fmax(x_of(R, p->t0), ML), x1 = fmin(x_of(R, p->t1), ML + plot_w(R));
        if (x1 < ML || x0 > ML + plot_w(R))
            continue;
        double wd = fmax(x1 - x0, 1);
        int y = MT + p->lane * (lane_h + 2);
        char a[32], b[32], d[32];
        fprintf(f, "<g class=\"ph p%d\"><title>", p->color);
        esc(f, p->name);
        fprintf(f,
                ": %s s to %s s (%s)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                "height=\"%d\" rx=\"2\"/>",
                fmt_num(a, sizeof a, p->t0 - R->t0), fmt_num(b, sizeof b, p->t1 - R->t0),
                fmt_dur(d, sizeof d, p->t1 - p->t0), x0, y, wd, lane_h);
        /* A label where it fits, at about 6.2 px per character of 11 px text. */
        size_t fit = wd > 14 ? (size_t)((wd - 6) / 6.2) : 0, nch;
        if (fit >= 2) {
            size_t total = count_chars(p->name);
            size_t nb = prefix_chars(p->name, total <= fit ? fit : fit - 1, &nch);
            fprintf(f, "<text x=\"%.1f\" y=\"%d\">", x0 + 3, y + 13);
            esc_n(f, p->name, nb);
            if (nch < total)
                fputs("\xE2\x80\xA6", f);
            fputs("</text>", f);
        }
        fputs("</g>\n", f);
    }
    fprintf(f, "<path class=\"base\" d=\"M%d %dh%d\"/>\n", ML, ev_y + 6, plot_w(R));
    for (size_t i = 0; i < R->nev; i++) {
        const struct event *e = &R->ev[i];
        double x = x_of(R, e->t);
        if (x < ML - 0.5 || x > ML + plot_w(R) + 0.5)
            continue;
        char a[32];
        fprintf(f, "<path class=\"ev%s\" d=\"M%.1f %dl4.5 6l-4.5 6l-4.5-6z\"><title>",
                error_like(e->name) ? " bad" : "", x, ev_y);
        esc(f, e->name);
        fprintf(f, " at %s s</title></path>\n", fmt_num(a, sizeof a, e->t - R->t0));
    }
    fputs("</svg>\n</figure>\n", f);
}

/* ---- the summary tables (from the summary JSON object) --------------------------------------- */

static struct json_object *jget(struct json_object *o, const char *path)
{
    char key[128];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key || !json_object_is_type(o, json_type_object))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        struct json_object *v = NULL;
        if (!json_object_object_get_ex(o, key, &v))
            return NULL;
        o = v;
        path += n + (dot ? 1 : 0);
    }
    return o;
}

/* The first of the NULL-terminated paths that is a number (NAN if none). */
static double jnum_any(struct json_object *o, const char *const *paths)
{
    for (; *paths; paths++) {
        struct json_object *v = jget(o, *paths);
        if (v &&
            (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
            return json_object_get_double(v);
    }
    return NAN;
}

#define JNUM(o, ...) jnum_any((o), (const char *const[]){__VA_ARGS__, NULL})

static struct json_object *jobj_any(struct json_object *o, json_type type, const char *const *paths)
{
    for (; *paths; paths++) {
        struct json_object *v = jget(o, *paths);
        if (v && json_object_is_type(v, type))
            return v;
    }
    return NULL;
}

#define JARR(o, ...) jobj_any((o), json_type_array, (const char *const[]){__VA_ARGS__, NULL})
#define JOBJ(o, ...) jobj_any((o), json_type_object, (const char *const[]){__VA_ARGS__, NULL})
#define JSTR(o, ...) jobj_any((o), json_type_string, (const char *const[]){__VA_ARGS__, NULL})

static void td_num(FILE *f, double v, const char *unit)
{
    char b[48];
    if (isfinite(v))
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s", v, fmt_num(b, sizeof b, v));
    else
        fputs("<td class=\"n na\" data-v=\"\">\xE2\x80\x94", f);
    if (unit && isfinite(v)) {
        fputs("<small> ", f);
        esc(f, unit);
        fputs("</small>", f);
    }
    fputs("</td>", f);
}

static void kv_row(FILE *f, const char *label, double v, const char *unit)
{
    if (!isfinite(v))
        return;
    fputs("<tr><th>", f);
    esc(f, label);
    fputs("</th>", f);
    td_num(f, v, unit);
    fputs("</tr>\n", f);
}

static void kv_text(FILE *f, const char *label, const char *text)
{
    if (!text || !*text)
        return;
    fputs("<tr><th>", f);
    esc(f, label);
    fputs("</th><td>", f);
    esc(f, text);
    fputs("</td></tr>\n", f);
}

/* Any JSON value as short text. */
static void put_jvalue(FILE *f, struct json_object *v)
{
    char b[48];
    switch (json_object_get_type(v)) {
    case json_type_null:
        fputs("\xE2\x80\x94", f);
        break;
    case json_type_boolean:
        fputs(json_object_get_boolean(v) ? "yes" : "no", f);
        break;
    case json_type_int:
    case json_type_double:
        fputs(fmt_num(b, sizeof b, json_object_get_double(v)), f);
        break;
    case json_type_string:
        esc(f, json_object_get_string(v));
        break;
    default: {
        const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE);
        size_t n = strlen(s);
        esc_n(f, s, n > 300 ? 300 : n);
        if (n > 300)
            fputs("\xE2\x80\xA6", f);
    }
    }
}

static void render_tables(FILE *f, struct json_object *sum, const struct run *R);
struct notes;
static void summary_warnings(struct json_object *sum, struct notes *N);

/* ---- pages ----------------------------------------------------------------------------------- */

static const char page_css[] =
    ":root{--fg:#1f2328;--mute:#5b6570;--line:#d8dde3;--bg:#fff;--pane:#f6f8fa}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica "
    "Neue',Arial,sans-serif;color:var(--fg);background:var(--bg)}\n"
    "header{padding:14px 20px 8px;border-bottom:1px solid var(--line)}\n"
    "h1{font-size:20px;margin:0 0 4px;font-weight:600;word-break:break-all}\n"
    "h2{font-size:14px;margin:18px 0 6px;font-weight:600}\n"
    ".meta{color:var(--mute);margin:0;font-size:13px}\n"
    ".meta b{color:var(--fg);font-weight:600}\n"
    ".layout{display:grid;grid-template-columns:minmax(0,1fr) 370px;gap:20px;padding:8px 20px "
    "20px}\n"
    "@media (max-width:1100px){.layout{grid-template-columns:minmax(0,1fr)}}\n"
    "figure{margin:0 0 6px}\n"
    "figcaption{font-size:13px;color:var(--mute);display:flex;flex-wrap:wrap;gap:4px "
    "12px;align-items:center;padding-left:4px}\n"
    ".ct{color:var(--fg);font-weight:600}\n"
    ".note{font-size:12px}\n"
    "svg.plot{display:block;width:100%;height:auto;overflow:visible}\n"
    ".pa{fill:#fff;stroke:#c9d1d9}\n"
    ".gx,.gy{stroke:#eef1f4;fill:none;stroke-width:1}\n"
    ".tx,.ty,.ty2,.ax{font-size:10.5px;fill:#5b6570}\n"
    ".tx{text-anchor:middle}.ty{text-anchor:end}.ty2{text-anchor:start}\n"
    ".ax{text-anchor:end;font-style:italic}\n"
    "text.ax[transform]{text-anchor:middle}\n"
    ".ln{fill:none;stroke-width:1.3;stroke-linejoin:round;stroke-linecap:round}\n"
    ".ln.dash{stroke-dasharray:5 3;stroke-width:1.1;opacity:.75}\n"
    ".evl{stroke:#8c959f;stroke-width:.8;stroke-dasharray:2 3;fill:none;opacity:.6}\n"
    ".ev{fill:#57606a;stroke:#fff;stroke-width:.6}.ev.bad{fill:#cf222e}\n"
    ".base{stroke:#d0d7de}\n"
    ".ph text{font-size:11px;fill:#24292f;pointer-events:none}\n"
    ".band{opacity:.28}\n"
    /* phase colours: pale bands, the same hue stronger in the strip */
    ".p0{fill:#9ecae1;--pc:#9ecae1}.p1{fill:#fdd0a2;--pc:#fdd0a2}"
    ".p2{fill:#c7e9c0;--pc:#c7e9c0}.p3{fill:#dadaeb;--pc:#dadaeb}"
    ".p4{fill:#fcbba1;--pc:#fcbba1}.p5{fill:#c6dbef;--pc:#c6dbef}"
    ".p6{fill:#fee391;--pc:#fee391}.p7{fill:#d9d9d9;--pc:#d9d9d9}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;"
    "background:var(--pc)}\n"
    ".foot{font-size:11.5px;color:var(--mute);margin:2px 0 8px}\n"
    "pre{font-size:11px;max-height:420px;overflow:auto;background:var(--pane);padding:8px;"
    "white-space:pre-wrap;word-break:break-all}\n"
    /* GPU colours (Tableau 10), the same GPU the same colour in every chart */
    ".g0{stroke:#4e79a7;--c:#4e79a7}.g1{stroke:#f28e2b;--c:#f28e2b}.g2{stroke:#e15759;--c:#e15759}"
    ".g3{stroke:#76b7b2;--c:#76b7b2}.g4{stroke:#59a14f;--c:#59a14f}.g5{stroke:#edc948;--c:#edc948}"
    ".g6{stroke:#b07aa1;--c:#b07aa1}.g7{stroke:#ff9da7;--c:#ff9da7}.g8{stroke:#9c755f;--c:#9c755f}"
    ".g9{stroke:#bab0ac;--c:#bab0ac}\n"
    ".usr{stroke:#3b6ea5;--c:#3b6ea5}.sys{stroke:#d1495b;--c:#d1495b}"
    ".iow{stroke:#e0a100;--c:#e0a100}.rss{stroke:#6a4c93;--c:#6a4c93}"
    ".pcpu{stroke:#1b998b;--c:#1b998b}.cg{stroke:#2a9d8f;--c:#2a9d8f}.lim{stroke:#444;--c:#444}"
    ".dr{stroke:#3a86ff;--c:#3a86ff}.dw{stroke:#ff006e;--c:#ff006e}.nr{stroke:#8338ec;--c:#8338ec}"
    ".nt{stroke:#fb5607;--c:#fb5607}"
    ".en{stroke:#333;--c:#333}.spk{stroke:#4e79a7;--c:#4e79a7}\n"
    ".key{white-space:nowrap;font-size:12px}\n"
    ".key i{display:inline-block;width:14px;height:0;border-top:2.5px solid "
    "var(--c);margin-right:4px;vertical-align:middle}\n"
    ".key.dash i{border-top-style:dashed}\n"
    "aside h2:first-child{margin-top:6px}\n"
    "table{border-collapse:collapse;width:100%;font-size:12.5px;margin-bottom:6px}\n"
    "th,td{padding:3px 6px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}\n"
    "thead th{background:var(--pane);font-weight:600;border-bottom:1px solid var(--line)}\n"
    "tbody th{font-weight:500;color:#424a53}\n"
    ".grid tbody th{white-space:nowrap}\n"
    "th.n{text-align:right}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.na{color:#afb8c1}\n"
    "small{color:var(--mute)}\n"
    ".warn{margin:0;padding-left:18px;font-size:12.5px}.warn li{margin:2px 0;color:#9a3412}\n"
    ".warn li.minor{color:var(--mute)}\n"
    ".banner{margin:6px 0;padding:6px 10px;border-radius:4px;font-size:14px}\n"
    ".banner.good{background:#ecfdf5;color:#065f46}.banner.bad{background:#fef2f2;color:#991b1b;"
    "border:1px solid #fca5a5}\n.badstatus{color:#991b1b;font-weight:600}\n"
    ".ok{color:#1a7f37;font-size:12.5px}\n"
    "details{font-size:12px;margin-top:10px}summary{cursor:pointer;color:var(--mute)}\n"
    "footer{color:var(--mute);font-size:12px;padding:6px 20px 20px}\n"
    "th.sort{cursor:pointer;user-select:none;white-space:nowrap}\n"
    "th.sort::after{content:' \\2195';color:#afb8c1}\n"
    "th[aria-sort=ascending]::after{content:' \\2191';color:var(--fg)}\n"
    "th[aria-sort=descending]::after{content:' \\2193';color:var(--fg)}\n"
    ".sweep td{white-space:nowrap}.sweep th.sort{white-space:normal;vertical-align:bottom;"
    "min-width:4em}\n"
    ".sweep td small{display:block}\n"
    ".sweepwrap{overflow-x:auto;padding:8px 20px 20px}\n"
    ".sweep svg{display:block}\n"
    "a{color:#0969da}\n";

static void page_head(FILE *f, const char *title, bool script)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
    /* Nothing may be fetched: the page is complete in itself. */
    fprintf(f,
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; img-src data:%s\">\n",
            script ? "; script-src 'unsafe-inline'" : "");
    fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"summarize (hwrun) " HWRUN_VERSION "\">\n<title>",
          f);
    esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n", page_css);
}

static const char *base_name(const char *dir, char *buf, size_t cap)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && dir[b - 1] != '/')
        b--;
    size_t len = n - b;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, dir + b, len);
    buf[len] = '\0';
    if (!*buf)
        snprintf(buf, cap, "%s", dir);
    return buf;
}

static int check_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return -errno;
    if (!S_ISDIR(st.st_mode))
        return -ENOTDIR;
    return 0;
}

static int finish(FILE *out, int rc, char *err, size_t errlen)
{
    if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
        rc = errno ? -errno : -EIO;
        set_err(err, errlen, "write error: %s", strerror(-rc));
    }
    return rc;
}

/* Notes about reading this run (files unreadable, lines skipped, gaps), for the page. */
struct notes {
    char text[32][200];
    bool minor[32]; /* a note (not measured cells, gaps) rather than a warning */
    size_t n;
};

static void vnote(struct notes *N, bool minor, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void vnote(struct notes *N, bool minor, const char *fmt, va_list ap)
{
    if (N->n == sizeof N->text / sizeof N->text[0])
        return;
    N->minor[N->n] = minor;
    vsnprintf(N->text[N->n++], sizeof N->text[0], fmt, ap);
}

static void note(struct notes *N, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct notes *N, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(N, false, fmt, ap);
    va_end(ap);
}

static void note_minor(struct notes *N, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_minor(struct notes *N, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(N, true, fmt, ap);
    va_end(ap);
}

static size_t count_major(const struct notes *N)
{
    size_t k = 0;
    for (size_t i = 0; i < N->n; i++)
        k += !N->minor[i];
    return k;
}

static void reading_notes(const struct run *R, struct notes *N)
{
    for (int k = 0; k < SUM_KIND_COUNT; k++) {
        const struct sum_quality *q = &R->q[k];
        if (R->read_err[k]) {
            note(N, "%s could not be read: %s", sum_kind_files[k], strerror(-R->read_err[k]));
            continue;
        }
        if (!q->present)
            continue;
        uint64_t sk = sum_quality_skipped_total(q);
        if (sk)
            note(N, "%s: %llu of %llu lines skipped", sum_kind_files[k], (unsigned long long)sk,
                 (unsigned long long)q->lines);
        if (q->bad_cells)
            note(N, "%s: %llu cell%s with junk instead of a number", sum_kind_files[k],
                 (unsigned long long)q->bad_cells, q->bad_cells == 1 ? "" : "s");
        uint64_t ph = sum_quality_placeholders_total(q);
        if (ph)
            note_minor(N, "%s: %llu cell%s not measured", sum_kind_files[k], (unsigned long long)ph,
                       ph == 1 ? "" : "s");
        if (q->partial_last)
            note(N, "%s ends in a partial line (not yet written)", sum_kind_files[k]);
    }
    static const char *const what[SRC_COUNT] = {"GPU sampling", "dmon", "CPU sampling",
                                                "process sampling", "GPM sampling"};
    for (int s = 0; s < SRC_COUNT; s++) {
        char a[32], b[32];
        if (R->gaps[s])
            note_minor(N, "%s: %llu gap%s (%s in all; interval %s s)", what[s],
                       (unsigned long long)R->gaps[s], R->gaps[s] == 1 ? "" : "s",
                       fmt_dur(a, sizeof a, R->gap_s[s]), fmt_num(b, sizeof b, R->interval[s]));
    }
    if (R->gpu_dropped)
        note(N, "%llu rows of GPUs numbered %d or more not drawn",
             (unsigned long long)R->gpu_dropped, SUM_HTML_MAX_GPUS);
    if (R->out_of_range)
        note(N, "%llu rows with a time far from the rest of the run (a wrong clock?) not drawn",
             (unsigned long long)R->out_of_range);
    if (R->oom)
        note(N, "out of memory: some series are incomplete");
}

/* How the run ended, from the summary's "status"/"outcome" (summarize/outcome.c decides it): a
 * failed, killed or unfinished run must not look like a good one. */
static void outcome_banner(FILE *f, struct json_object *summary)
{
    struct json_object *st = summary ? JSTR(summary, "status") : NULL;
    if (!st)
        return;
    const char *status = json_object_get_string(st);
    double code = JNUM(summary, "outcome.exit_status"), sig = JNUM(summary, "outcome.signal");
    double failed = JNUM(summary, "outcome.phases_failed");
    bool ok = !strcmp(status, "ok");
    fprintf(f, "<p class=\"banner %s\" id=\"status\" data-status=\"", ok ? "good" : "bad");
    esc(f, status);
    fputs("\">Run <b>", f);
    esc(f, status);
    fputs("</b>", f);
    if (isfinite(sig))
        fprintf(f, ": the command was killed by signal %.0f", sig);
    else if (isfinite(code) && code != 0)
        fprintf(f, ": the command exited with status %.0f", code);
    else if (!strcmp(status, "incomplete"))
        fputs(": no stop event (hwmon was killed or the machine stopped)", f);
    else if (!strcmp(status, "running"))
        fputs(": hwmon is still writing this directory", f);
    if (isfinite(failed) && failed > 0)
        fprintf(f, " \xC2\xB7 %.0f phase%s failed", failed, failed == 1 ? "" : "s");
    fputs("</p>\n", f);
}

/* A sweep row's status, next to the run's name, when it is not ok. */
static void outcome_badge(FILE *f, struct json_object *summary)
{
    struct json_object *st = summary ? JSTR(summary, "status") : NULL;
    if (!st || !strcmp(json_object_get_string(st), "ok"))
        return;
    fputs(" <small class=\"badstatus\">", f);
    esc(f, json_object_get_string(st));
    fputs("</small>", f);
}

static void render_run(FILE *f, struct run *R, struct json_object *summary, const char *title)
{
    char b1[64], b2[64], b3[64];
    page_head(f, title, false);
    fputs("<body>\n<header>\n<h1>", f);
    esc(f, title);
    fputs("</h1>\n", f);
    outcome_banner(f, summary);
    fputs("<p class=\"meta\">", f);
    if (R->no_data)
        fputs("<b>No samples, phases or events with a time were found in this directory.</b>", f);
    else
        fprintf(f, "Start <b>%s</b> \xC2\xB7 duration <b>%s</b>", fmt_utc(b1, sizeof b1, R->t0),
                fmt_dur(b2, sizeof b2, R->t1 - R->t0));
    int ngpu = 0;
    for (int g = 0; g < SUM_HTML_MAX_GPUS; g++)
        ngpu += R->gpu[g] != NULL;
    if (ngpu)
        fprintf(f, " \xC2\xB7 <b>%d</b> GPU%s", ngpu, ngpu > 1 ? "s" : "");
    if (R->host[0]) {
        fputs(" \xC2\xB7 host <b>", f);
        esc(f, R->host);
        fputs("</b>", f);
    }
    if (R->command[0]) {
        fputs(" \xC2\xB7 command <code>", f);
        esc(f, R->command);
        fputs("</code>", f);
    }
    fprintf(f,
            "<br>Times are counted from the start (UTC). Resolution <b id=\"resolution\" "
            "data-s-per-col=\"%.6g\">%s s</b> per pixel column (%d columns; each keeps its "
            "first, last, minimum and maximum sample). Lines break where sampling paused for "
            "more than %.0f intervals.",
            R->per_col, fmt_num(b3, sizeof b3, R->per_col), R->ncols, SUM_HTML_GAP_FACTOR);
    fputs("</p>\n</header>\n<div class=\"layout\">\n<main class=\"charts\">\n", f);

    struct taxis ta = t_axis(R);
    int lanes = prepare_phases(R);
    if (R->nph || R->nev || R->ph_dropped || R->ev_dropped)
        draw_strip(f, R, lanes);

    /* The charts, each with the lines that have data. */
    struct line *lines = calloc(2 * SUM_HTML_MAX_GPUS + 4, sizeof *lines);
    if (!lines) {
        R->oom = true;
    } else {
        static const struct {
            const char *id, *title, *unit;
            double top;
            int m;
        } gcharts[] = {
            {"gpu-util", "GPU utilization", "%", 100, GS_UTIL},
            {"gpu-tensor", "Tensor activity (GPM)", "%", 100, GS_TENSOR},
            {"gpu-memutil", "GPU memory-controller utilization", "%", 100, GS_MEMUTIL},
            {"gpu-mem", "GPU memory used (dashed: total)", NULL, NAN, GS_MEMUSED},
            {"gpu-power", "GPU power (dashed: energy so far, all GPUs)", "W", NAN, GS_POWER},
            {"gpu-clock", "SM clock", "MHz", NAN, GS_CLOCK},
        };
        for (size_t ci = 0; ci < sizeof gcharts / sizeof gcharts[0]; ci++) {
            size_t n = 0;
            double vmax = 0;
            char note_buf[64] = "";
            bool sm_lines = false;
            for (int g = 0; g < SUM_HTML_MAX_GPUS; g++) {
                const struct gpu_slot *gs = R->gpu[g];
                if (!gs || !gs->s[gcharts[ci].m].any)
                    continue;
                struct line *l = &lines[n++];
                *l = (struct line){.s = &gs->s[gcharts[ci].m]};
                snprintf(l->cls, sizeof l->cls, "g%d", g % NGPU_COLORS);
                if (gcharts[ci].m == GS_POWER)
                    snprintf(l->label, sizeof l->label, "GPU %d \xC2\xB7 %s Wh", g,
                             fmt_num(b1, sizeof b1, gs->e_j / 3600));
                else
                    snprintf(l->label, sizeof l->label, "GPU %d", g);
                vmax = fmax(vmax, gs->s[gcharts[ci].m].vmax);
                if (gcharts[ci].m == GS_MEMUSED && gs->s[GS_MEMTOTAL].any) {
                    struct line *t = &lines[n++];
                    *t = (struct line){.s = &gs->s[GS_MEMTOTAL], .dashed = true, .no_key = true};
                    snprintf(t->cls, sizeof t->cls, "g%d", g % NGPU_COLORS);
                    snprintf(t->label, sizeof t->label, "GPU %d total", g);
                    vmax = fmax(vmax, gs->s[GS_MEMTOTAL].vmax);
                }
                if (gcharts[ci].m == GS_UTIL && gs->s[GS_SMACT].any) {
                    sm_lines = true;
                    struct line *t = &lines[n++];
                    *t = (struct line){.s = &gs->s[GS_SMACT], .dashed = true, .no_key = true};
                    snprintf(t->cls, sizeof t->cls, "g%d", g % NGPU_COLORS);
                    snprintf(t->label, sizeof t->label, "GPU %d SM active", g);
                }
            }
            if (!n)
                continue;
            struct chart c = {.id = gcharts[ci].id,
                              .title = gcharts[ci].title,
                              .unit = gcharts[ci].unit,
                              .top = gcharts[ci].top,
                              .scale = 1,
                              .scale2 = 1,
                              .lines = lines,
                              .n = n};
            if (sm_lines) /* "util 98%, SM active 31%" at a glance */
                c.title = "GPU utilization (dashed: SM activity, GPM)";
            if (gcharts[ci].m == GS_MEMUSED) {
                bool gib = vmax >= 2048;
                c.unit = gib ? "GiB" : "MiB";
                c.scale = gib ? 1024 : 1;
            }
            if (gcharts[ci].m == GS_POWER && R->os[OS_ENERGY].any) {
                struct line *e = &lines[n++];
                *e = (struct line){.s = &R->os[OS_ENERGY], .axis = 1, .dashed = true};
                snprintf(e->cls, sizeof e->cls, "en");
                snprintf(e->label, sizeof e->label, "energy so far \xC2\xB7 %s Wh",
                         fmt_num(b1, sizeof b1, total_energy_wh(R)));
                c.n = n;
                c.unit2 = "Wh";
            }
            if (R->use_dmon[gcharts[ci].m]) {
                snprintf(note_buf, sizeof note_buf, "from hw_dmon.csv");
                c.note = note_buf;
            }
            draw_chart(f, R, &c, &ta);
        }

        /* CPU */
        struct line cpu[3] = {
            {.s = &R->os[OS_USR], .cls = "usr", .label = "usr"},
            {.s = &R->os[OS_SYS], .cls = "sys", .label = "sys"},
            {.s = &R->os[OS_IOWAIT], .cls = "iow", .label = "iowait"},
        };
        draw_chart(f, R,
                   &(struct chart){.id = "cpu",
                                   .title = "CPU (all cores)",
                                   .unit = "%",
                                   .top = 100,
                                   .scale = 1,
                                   .scale2 = 1,
                                   .lines = cpu,
                                   .n = 3},
                   &ta);
        /* process tree */
        struct line rss[1] = {{.s = &R->os[OS_RSS], .cls = "rss", .label = "RSS"}};
        bool gib = R->os[OS_RSS].vmax >= 2048;
        draw_chart(f, R,
                   &(struct chart){.id = "proc-rss",
                                   .title = "Process tree memory (RSS)",
                                   .unit = gib ? "GiB" : "MiB",
                                   .top = NAN,
                                   .scale = gib ? 1024 : 1,
                                   .scale2 = 1,
                                   .lines = rss,
                                   .n = 1},
                   &ta);
        struct line pcpu[1] = {{.s = &R->os[OS_PCPU], .cls = "pcpu", .label = "CPU"}};
        draw_chart(f, R,
                   &(struct chart){.id = "proc-cpu",
                                   .title = "Process tree CPU (100% = one core)",
                                   .unit = "%",
                                   .top = 100,
                                   .scale = 1,
                                   .scale2 = 1,
                                   .lines = pcpu,
                                   .n = 1},
                   &ta);
        /* cgroup memory, when recorded */
        if (R->os[OS_CGMEM].any) {
            struct line cg[2] = {
                {.s = &R->os[OS_CGMEM], .cls = "cg", .label = "cgroup memory"},
                {.s = &R->os[OS_CGMAX], .cls = "lim", .label = "limit", .dashed = true},
            };
            double m = fmax(R->os[OS_CGMEM].vmax, R->os[OS_CGMAX].any ? R->os[OS_CGMAX].vmax : 0);
            gib = m >= 2048;
            draw_chart(f, R,
                       &(struct chart){.id = "cgroup-mem",
                                       .title = "Container (cgroup) memory",
                                       .unit = gib ? "GiB" : "MiB",
                                       .top = NAN,
                                       .scale = gib ? 1024 : 1,
                                       .scale2 = 1,
                                       .lines = cg,
                                       .n = 2},
                       &ta);
        }
        /* disk and network traffic, when recorded */
        if (R->os[OS_DISKR].any || R->os[OS_DISKW].any || R->os[OS_NETRX].any ||
            R->os[OS_NETTX].any) {
            struct line io[4] = {
                {.s = &R->os[OS_DISKR], .cls = "dr", .label = "disk read"},
                {.s = &R->os[OS_DISKW], .cls = "dw", .label = "disk write"},
                {.s = &R->os[OS_NETRX], .cls = "nr", .label = "net received", .dashed = true},
                {.s = &R->os[OS_NETTX], .cls = "nt", .label = "net sent", .dashed = true},
            };
            draw_chart(f, R,
                       &(struct chart){.id = "disk-net",
                                       .title = "Disk and network (the machine's)",
                                       .unit = "MiB/s",
                                       .top = NAN,
                                       .scale = 1,
                                       .scale2 = 1,
                                       .lines = io,
                                       .n = 4},
                       &ta);
        }
        free(lines);
    }
    fputs("</main>\n<aside class=\"tables\">\n", f);
    render_tables(f, summary, R);
    fputs("</aside>\n</div>\n<footer>Written by summarize (hwrun " HWRUN_VERSION
          "). Self-contained: no network, no script. Hover a phase, an event marker or a line for "
          "its name.</footer>\n</body>\n</html>\n",
          f);
}

void sum_html_opts_init(struct sum_html_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->width = SUM_HTML_WIDTH_DEFAULT;
}

static int check_width(const struct sum_html_opts *o, int *width)
{
    int w = o->width ? o->width : SUM_HTML_WIDTH_DEFAULT;
    if (w < SUM_HTML_WIDTH_MIN || w > SUM_HTML_WIDTH_MAX)
        return -EINVAL;
    *width = w;
    return 0;
}

int sum_html_run(FILE *out, const char *dir, struct json_object *summary,
                 const struct sum_html_opts *opts, char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    struct sum_html_opts defaults;
    if (!opts) {
        sum_html_opts_init(&defaults);
        opts = &defaults;
    }
    int width;
    if (!out || !dir) {
        set_err(err, errlen, "no output or no directory");
        return -EINVAL;
    }
    if (check_width(opts, &width) < 0) {
        set_err(err, errlen, "chart width %d outside %d..%d", opts->width, SUM_HTML_WIDTH_MIN,
                SUM_HTML_WIDTH_MAX);
        return -EINVAL;
    }
    int rc = check_dir(dir);
    if (rc < 0) {
        set_err(err, errlen, "%s: %s", dir, strerror(-rc));
        return rc;
    }
    struct run *R = malloc(sizeof *R);
    if (!R) {
        set_err(err, errlen, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    run_init(R, opts, dir, width - ML - MR);
    read_run(R);
    char name[256];
    const char *title = opts->title ? opts->title : base_name(dir, name, sizeof name);
    render_run(out, R, summary, title);
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        if (R->read_err[k]) {
            set_err(err, errlen, "%s/%s: %s (left out of the report)", dir, sum_kind_files[k],
                    strerror(-R->read_err[k]));
            break;
        }
    if (R->oom)
        set_err(err, errlen, "%s: out of memory, some series are incomplete", dir);
    run_free(R);
    free(R);
    return finish(out, 0, err, errlen);
}

/* ---- sweep ----------------------------------------------------------------------------------- */

static const char sweep_js[] =
    "(function(){\n"
    "var t=document.getElementById('runs');if(!t)return;\n"
    "var hs=t.tHead.rows[0].cells;\n"
    "function key(r,i){var v=r.cells[i].getAttribute('data-v');return v===null?'':v;}\n"
    "function sortBy(i,asc){var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows);\n"
    " rs.sort(function(x,y){var a=key(x,i),c=key(y,i);if(a===''||c==='')return "
    "a===c?0:a===''?1:-1;\n"
    "  var p=parseFloat(a),q=parseFloat(c),r=(!isNaN(p)&&!isNaN(q))?p-q:(a<c?-1:a>c?1:0);\n"
    "  return asc?r:-r;});\n"
    " rs.forEach(function(r){b.appendChild(r);});\n"
    " for(var j=0;j<hs.length;j++)hs[j].removeAttribute('aria-sort');\n"
    " hs[i].setAttribute('aria-sort',asc?'ascending':'descending');}\n"
    "Array.prototype.forEach.call(hs,function(h,i){h.addEventListener('click',function(){\n"
    " sortBy(i,h.getAttribute('aria-sort')!=='ascending');});});\n"
    "var m=/#sort=(-?)(\\d+)$/.exec(location.hash);\n"
    "if(m&&+m[2]<hs.length)sortBy(+m[2],m[1]!=='-');\n"
    "t.setAttribute('data-sortable','ready');\n"
    "})();\n";

struct sweep_col {
    const char *head, *unit;
};

static const struct sweep_col sweep_cols[] = {
    {"Run", NULL},       {"GPU utilization", NULL}, {"Start (UTC)", NULL}, {"Duration", NULL},
    {"GPUs", NULL},      {"GPU util", "%"},         {"Peak VRAM", "MiB"},  {"Energy", "Wh"},
    {"Mean power", "W"}, {"CPU usr", "%"},          {"Peak RSS", "MiB"},   {"Warnings", NULL},
};

/* A sparkline of the GPU utilization: per column the mean over the GPUs' samples, 0..100 %.
 * The cell sorts by the run's mean. */
static void sparkline(FILE *f, struct run *R)
{
    const struct series *s = &R->os[OS_SPARK];
    if (!s->any) {
        fputs("<td class=\"na\" data-v=\"\">\xE2\x80\x94</td>", f);
        return;
    }
    double sum = 0, n = 0;
    for (int c = 0; c < R->ncols; c++) {
        sum += s->cols[c].sum;
        n += s->cols[c].n;
    }
    struct axis a = {.lo = 0, .hi = 100, .step = 100};
    /* draw_series places points in chart coordinates (plot at ML, MT, PLOT_H high): the
     * viewBox cuts out that plot and squeezes it into the cell. */
    fprintf(f,
            "<td class=\"spark\" data-v=\"%.17g\"><svg viewBox=\"%d %d %d %d\" width=\"%d\" "
            "height=\"%d\" preserveAspectRatio=\"none\" role=\"img\" "
            "aria-label=\"GPU utilization\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
            "height=\"%d\" fill=\"#f6f8fa\"/>",
            sum / n, ML, MT - 2, R->ncols, PLOT_H + 4, R->ncols, SPARK_H, ML, MT - 2, R->ncols,
            PLOT_H + 4);
    draw_series(f, R, s, &a, 1, "ln spk", "GPU utilization, mean of the GPUs per column [%]", true);
    fputs("</svg></td>", f);
}

static size_t count_warnings(struct json_object *sum, const struct run *R)
{
    struct notes N = {0};
    if (sum && json_object_is_type(sum, json_type_object))
        summary_warnings(sum, &N);
    else
        reading_notes(R, &N);
    return count_major(&N);
}

static void sweep_row(FILE *f, const char *dir, struct json_object *sum, const char *report,
                      const struct sum_html_opts *opts, bool *oom)
{
    char name[256], b[64];
    base_name(dir, name, sizeof name);
    fputs("<tr><td data-v=\"", f);
    esc(f, name);
    fputs("\">", f);
    if (report) {
        fputs("<a href=\"", f);
        put_href(f, report);
        fputs("\">", f);
        esc(f, name);
        fputs("</a>", f);
    } else {
        esc(f, name);
    }
    outcome_badge(f, sum);
    int rc = check_dir(dir);
    struct run *R = rc == 0 ? malloc(sizeof *R) : NULL;
    if (!R) {
        if (rc == 0) {
            *oom = true;
            rc = -ENOMEM;
        }
        fputs(" <small>(", f);
        esc(f, strerror(-rc));
        fputs(")</small></td>", f);
        for (size_t i = 1; i < sizeof sweep_cols / sizeof sweep_cols[0]; i++)
            fputs("<td class=\"na\" data-v=\"\">\xE2\x80\x94</td>", f);
        fputs("</tr>\n", f);
        return;
    }
    fputs("</td>", f);
    run_init(R, opts, dir, SPARK_COLS);
    R->sweep = true;
    read_run(R);
    *oom |= R->oom;
    bool have_data = R->os[OS_SPARK].any || isfinite(R->jl_min);
    for (int s = 0; s < SRC_COUNT; s++)
        have_data |= isfinite(R->d_min[s]);
    sparkline(f, R);
    double start = have_data ? R->t0 : NAN;
    if (have_data)
        fprintf(f, "<td data-v=\"%.3f\">%.16s</td>", start, fmt_utc(b, sizeof b, start));
    else
        fputs("<td class=\"na\" data-v=\"\">\xE2\x80\x94</td>", f);
    double dur = JNUM(sum, "duration_sec", "run.duration_sec", "duration_s");
    if (!isfinite(dur) && have_data)
        dur = R->t1 - R->t0;
    if (isfinite(dur))
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s</td>", dur, fmt_dur(b, sizeof b, dur));
    else
        fputs("<td class=\"na\" data-v=\"\">\xE2\x80\x94</td>", f);
    struct json_object *gpus = sum ? JARR(sum, "gpus", "per_gpu", "gpu") : NULL;
    double ngpu = gpus ? (double)json_object_array_length(gpus) : 0;
    if (!gpus)
        for (int g = 0; g < SUM_HTML_MAX_GPUS; g++)
            ngpu += R->gpu[g] != NULL;
    td_num(f, ngpu, NULL);
    td_num(f, JNUM(sum, "gpu_util_mean_pct", "run.gpu_util_mean_pct"), NULL);
    td_num(f, JNUM(sum, "peak_vram_mb", "run.peak_vram_mb"), NULL);
    double e = JNUM(sum, "energy_wh", "gpu_energy_wh", "run.energy_wh", "total_energy_wh");
    if (!isfinite(e) && ngpu > 0 && !gpus)
        e = total_energy_wh(R);
    td_num(f, e, NULL);
    td_num(f, JNUM(sum, "power_watts_mean", "run.power_watts_mean"), NULL);
    td_num(f, JNUM(sum, "cpu_usr_mean_pct", "run.cpu_usr_mean_pct"), NULL);
    td_num(f, JNUM(sum, "peak_rss_mb", "process.peak_rss_mb", "run.peak_rss_mb"), NULL);
    td_num(f, (double)count_warnings(sum, R), NULL);
    fputs("</tr>\n", f);
    run_free(R);
    free(R);
}

int sum_html_sweep(FILE *out, const char *const *dirs, struct json_object *const *summaries,
                   const char *const *report_names, size_t n, const struct sum_html_opts *opts,
                   char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    struct sum_html_opts defaults;
    if (!opts) {
        sum_html_opts_init(&defaults);
        opts = &defaults;
    }
    int width;
    bool null_dir = false;
    for (size_t i = 0; dirs && i < n; i++)
        null_dir |= dirs[i] == NULL;
    if (!out || !dirs || n == 0 || null_dir) {
        set_err(err, errlen, "no output or no directories");
        return -EINVAL;
    }
    if (check_width(opts, &width) < 0) {
        set_err(err, errlen, "chart width %d outside %d..%d", opts->width, SUM_HTML_WIDTH_MIN,
                SUM_HTML_WIDTH_MAX);
        return -EINVAL;
    }
    char title[64];
    snprintf(title, sizeof title, "Sweep of %zu run%s", n, n == 1 ? "" : "s");
    page_head(out, opts->title ? opts->title : title, true);
    fputs("<body>\n<header>\n<h1>", out);
    esc(out, opts->title ? opts->title : title);
    fputs("</h1>\n<p class=\"meta\">One row per run; click a column header to sort. Figures from "
          "each run's summary; the sparkline is the GPU utilization over the run (mean of the "
          "GPUs per column, 0\xE2\x80\x93"
          "100%).</p>\n</header>\n<div class=\"sweepwrap\">\n"
          "<table class=\"sweep sortable\" id=\"runs\">\n<thead><tr>",
          out);
    for (size_t i = 0; i < sizeof sweep_cols / sizeof sweep_cols[0]; i++) {
        fputs(i >= 3 ? "<th class=\"sort n\" scope=\"col\">" : "<th class=\"sort\" scope=\"col\">",
              out);
        esc(out, sweep_cols[i].head);
        if (sweep_cols[i].unit) {
            fputs(" <small>[", out);
            esc(out, sweep_cols[i].unit);
            fputs("]</small>", out);
        }
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    bool oom = false;
    for (size_t i = 0; i < n; i++)
        sweep_row(out, dirs[i], summaries ? summaries[i] : NULL,
                  report_names ? report_names[i] : NULL, opts, &oom);
    fprintf(out,
            "</tbody>\n</table>\n</div>\n<footer>Written by summarize (hwrun " HWRUN_VERSION
            "). Self-contained: no network.</footer>\n<script>\n%s</script>\n</body>\n</html>\n",
            sweep_js);
    if (oom)
        set_err(err, errlen, "out of memory: some rows are incomplete");
    return finish(out, 0, err, errlen);
}

/* ---- summary tables -------------------------------------------------------------------------- */

#define MAX_TABLE_ROWS 200 /* phases listed in the phase table; the rest are counted */
#define MAX_JSON_DUMP (256 * 1024)

static void th_unit(FILE *f, const char *head, const char *unit)
{
    fputs("<th scope=\"col\">", f);
    esc(f, head);
    if (unit) {
        fputs(" <small>[", f);
        esc(f, unit);
        fputs("]</small>", f);
    }
    fputs("</th>", f);
}

static void kv_row_t(FILE *f, const char *label, double v, const char *unit, const char *title)
{
    if (!isfinite(v))
        return;
    fputs("<tr><th", f);
    if (title) {
        fputs(" title=\"", f);
        esc(f, title);
        fputs("\"", f);
    }
    fputs(">", f);
    esc(f, label);
    fputs("</th>", f);
    td_num(f, v, unit);
    fputs("</tr>\n", f);
}

/* Mean of a per-GPU statistic over a list of GPU objects, weighted by their counts. */
static double gpus_mean(struct json_object *gpus, const char *metric)
{
    double sum = 0, n = 0;
    char path[64];
    snprintf(path, sizeof path, "%s.mean", metric);
    char npath[64];
    snprintf(npath, sizeof npath, "%s.n", metric);
    size_t len = json_object_array_length(gpus);
    for (size_t i = 0; i < len; i++) {
        struct json_object *g = json_object_array_get_idx(gpus, i);
        double m = JNUM(g, path), k = JNUM(g, npath);
        if (!isfinite(m))
            continue;
        if (!(k > 0))
            k = 1;
        sum += m * k;
        n += k;
    }
    return n > 0 ? sum / n : NAN;
}

static double gpus_max(struct json_object *gpus, const char *path)
{
    double m = NAN;
    size_t len = json_object_array_length(gpus);
    for (size_t i = 0; i < len; i++) {
        double v = JNUM(json_object_array_get_idx(gpus, i), path);
        if (isfinite(v) && !(m >= v))
            m = v;
    }
    return m;
}

static void run_table(FILE *f, struct json_object *sum)
{
    char b[64];
    fputs("<h2>Run</h2>\n<table class=\"kv\" id=\"t-run\">\n", f);
    struct json_object *start = JSTR(sum, "start");
    if (start) {
        double t;
        const char *s = json_object_get_string(start);
        if (hw_parse_iso(s, strlen(s), &t))
            kv_text(f, "start", fmt_utc(b, sizeof b, t));
        else
            kv_text(f, "start", s);
    }
    double dur = JNUM(sum, "duration_sec");
    if (isfinite(dur))
        kv_text(f, "duration", fmt_dur(b, sizeof b, dur));
    struct json_object *gpus = JARR(sum, "gpus");
    if (gpus)
        kv_row(f, "GPUs", (double)json_object_array_length(gpus), NULL);
    kv_row_t(f, "samples", JNUM(sum, "num_samples"), NULL, "sampling instants");
    kv_row_t(f, "energy", JNUM(sum, "energy_wh"), "Wh", "all GPUs, power integrated over time");
    kv_row(f, "peak VRAM", JNUM(sum, "peak_vram_mb"), "MiB");
    kv_row(f, "GPU util mean", JNUM(sum, "gpu_util_mean_pct"), "%");
    kv_row(f, "GPU util max", JNUM(sum, "gpu_util_max_pct"), "%");
    const char *mus = NULL;
    struct json_object *mu = JSTR(sum, "mem_util_source");
    if (mu)
        mus = json_object_get_string(mu);
    kv_row_t(f, "mem-ctrl util mean", JNUM(sum, "mem_util_mean_pct"), "%", mus);
    kv_row(f, "power mean", JNUM(sum, "power_watts_mean", "mean_gpu_power_w"), "W");
    kv_row(f, "power max", JNUM(sum, "power_watts_max"), "W");
    kv_row(f, "SM clock mean", JNUM(sum, "mean_gpu_clock_mhz"), "MHz");
    kv_row(f, "CPU usr mean", JNUM(sum, "cpu_usr_mean_pct"), "%");
    kv_row(f, "CPU idle mean", JNUM(sum, "cpu_idle_mean_pct"), "%");
    kv_row(f, "process peak RSS", JNUM(sum, "process.peak_rss_mib", "peak_rss_mb"), "MiB");
    kv_row(f, "process mean RSS", JNUM(sum, "process.mean_rss_mib", "mean_rss_mb"), "MiB");
    kv_row(f, "process RSS growth", JNUM(sum, "process.memory_growth_mib", "memory_growth_mb"),
           "MiB");
    kv_row(f, "process CPU mean", JNUM(sum, "process.cpu_pct.mean"), "% of a core");
    kv_row(f, "process threads max", JNUM(sum, "process.threads_max"), NULL);
    kv_row(f, "process GPU memory peak", JNUM(sum, "process.gpu_mem_peak_mib"), "MiB");
    kv_row(f, "main process peak RSS", JNUM(sum, "process.main_peak_rss_mib"), "MiB");
    kv_row(f, "main process CPU mean", JNUM(sum, "process.main_cpu_pct.mean"), "% of a core");
    kv_row(f, "disk read", JNUM(sum, "system.disk_read_mib"), "MiB");
    kv_row(f, "disk read peak", JNUM(sum, "system.disk_read_peak_mib_s"), "MiB/s");
    kv_row(f, "disk written", JNUM(sum, "system.disk_write_mib"), "MiB");
    kv_row(f, "disk write peak", JNUM(sum, "system.disk_write_peak_mib_s"), "MiB/s");
    kv_row(f, "network received", JNUM(sum, "system.net_rx_mib"), "MiB");
    kv_row(f, "network sent", JNUM(sum, "system.net_tx_mib"), "MiB");
    kv_row(f, "free space min", JNUM(sum, "system.fs_free_min_mib"), "MiB");
    kv_row(f, "cgroup memory peak", JNUM(sum, "container.mem_peak_mib"), "MiB");
    kv_row(f, "cgroup memory limit", JNUM(sum, "container.mem_max_mib"), "MiB");
    kv_row(f, "cgroup CPU limit", JNUM(sum, "container.cpu_limit_cores"), "cores");
    struct json_object *zone = JSTR(sum, "time_zone.zone"), *zsrc = JSTR(sum, "time_zone.source");
    if (zone) {
        char z[160];
        snprintf(z, sizeof z, "%s%s%s%s", json_object_get_string(zone), zsrc ? " (" : "",
                 zsrc ? json_object_get_string(zsrc) : "", zsrc ? ")" : "");
        kv_text(f, "nvidia-smi clock", z);
    }
    fputs("</table>\n", f);
}

static void gpu_table(FILE *f, struct json_object *sum)
{
    struct json_object *gpus = JARR(sum, "gpus");
    size_t n = gpus ? json_object_array_length(gpus) : 0;
    if (!n)
        return;
    fputs("<h2>Per GPU</h2>\n<table class=\"grid\" id=\"t-gpus\">\n<thead><tr>", f);
    th_unit(f, "GPU", NULL);
    th_unit(f, "util", "%");
    th_unit(f, "peak VRAM", "GiB");
    th_unit(f, "power", "W");
    th_unit(f, "energy", "Wh");
    th_unit(f, "SM", "MHz");
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < n; i++) {
        struct json_object *g = json_object_array_get_idx(gpus, i);
        if (!g || !json_object_is_type(g, json_type_object))
            continue;
        double idx = JNUM(g, "index");
        struct json_object *uuid = JSTR(g, "uuid");
        fputs("<tr><th", f);
        if (uuid) {
            fputs(" title=\"", f);
            esc(f, json_object_get_string(uuid));
            fputs("\"", f);
        }
        if (isfinite(idx) && idx >= 0 && idx < 1e9)
            fprintf(f, "><span class=\"key g%d\"><i></i>%d</span></th>", (int)idx % NGPU_COLORS,
                    (int)idx);
        else
            fputs(">?</th>", f);
        td_num(f, JNUM(g, "util_pct.mean"), NULL);
        double peak = JNUM(g, "mem_used_mib.max"), total = JNUM(g, "mem_total_mib.max");
        char b1[32], b2[32];
        if (isfinite(peak) && isfinite(total))
            fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s<small> / %s</small></td>", peak / 1024,
                    fmt_num(b1, sizeof b1, peak / 1024), fmt_num(b2, sizeof b2, total / 1024));
        else
            td_num(f, peak / 1024, NULL);
        td_num(f, JNUM(g, "power_w.mean"), NULL);
        td_num(f, JNUM(g, "energy_wh"), NULL);
        td_num(f, JNUM(g, "sm_clock_mhz.mean"), NULL);
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n<p class=\"foot\">Means over the run; peak VRAM of total.</p>\n", f);
}

static void phase_table(FILE *f, struct json_object *sum, const struct run *R)
{
    struct json_object *phases = JARR(sum, "phases");
    size_t n = phases ? json_object_array_length(phases) : 0;
    if (!n)
        return;
    fputs("<h2>Per phase</h2>\n<table class=\"grid\" id=\"t-phases\">\n<thead><tr>", f);
    th_unit(f, "phase", NULL);
    th_unit(f, "start", "s");
    th_unit(f, "length", NULL);
    th_unit(f, "energy", "Wh");
    th_unit(f, "peak VRAM", "GiB");
    th_unit(f, "util", "%");
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < n && i < MAX_TABLE_ROWS; i++) {
        struct json_object *p = json_object_array_get_idx(phases, i);
        if (!p || !json_object_is_type(p, json_type_object))
            continue;
        struct json_object *name = JSTR(p, "name");
        const char *nm = name ? json_object_get_string(name) : "?";
        fprintf(f, "<tr class=\"phase-row\"><th><span class=\"sw p%d\"></span>",
                phase_color(R, nm));
        esc(f, nm);
        fputs("</th>", f);
        struct json_object *st = JSTR(p, "start");
        double t = NAN;
        if (st) {
            const char *s = json_object_get_string(st);
            if (!hw_parse_iso(s, strlen(s), &t))
                t = NAN;
        }
        td_num(f, isfinite(t) ? t - R->t0 : NAN, NULL);
        char b[48];
        double secs = JNUM(p, "seconds");
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%s</td>", isfinite(secs) ? secs : 0,
                fmt_dur(b, sizeof b, secs));
        td_num(f, JNUM(p, "energy_wh"), NULL);
        struct json_object *pg = JARR(p, "gpus");
        td_num(f, pg ? gpus_max(pg, "mem_used_mib.max") / 1024 : NAN, NULL);
        td_num(f, pg ? gpus_mean(pg, "util_pct") : NAN, NULL);
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    if (n > MAX_TABLE_ROWS)
        fprintf(f, "<p class=\"foot\">%zu more phases in the summary JSON.</p>\n",
                n - MAX_TABLE_ROWS);
}

static void event_table(FILE *f, struct json_object *sum, const struct run *R)
{
    struct json_object *counts = JOBJ(sum, "events.counts");
    if (!counts || json_object_object_length(counts) == 0)
        return;
    fputs("<h2>Events</h2>\n<table class=\"kv\" id=\"t-events\">\n", f);
    json_object_object_foreach(counts, key, val)
    {
        if (json_object_is_type(val, json_type_int) || json_object_is_type(val, json_type_double))
            kv_row(f, key, json_object_get_double(val), NULL);
    }
    fputs("</table>\n", f);
    struct json_object *errs = JARR(sum, "events.errors");
    size_t n = errs ? json_object_array_length(errs) : 0;
    if (!n)
        return;
    fputs("<table class=\"grid\" id=\"t-errors\">\n<thead><tr>", f);
    th_unit(f, "at", "s");
    th_unit(f, "error-like event", NULL);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < n && i < MAX_TABLE_ROWS; i++) {
        struct json_object *e = json_object_array_get_idx(errs, i);
        struct json_object *ts = JSTR(e, "ts"), *ev = JSTR(e, "event");
        struct json_object *data = jget(e, "data");
        double t = NAN;
        if (ts) {
            const char *s = json_object_get_string(ts);
            if (!hw_parse_iso(s, strlen(s), &t))
                t = NAN;
        }
        fputs("<tr>", f);
        td_num(f, isfinite(t) ? t - R->t0 : NAN, NULL);
        fputs("<td><b>", f);
        esc(f, ev ? json_object_get_string(ev) : "?");
        fputs("</b>", f);
        if (data && !json_object_is_type(data, json_type_null)) {
            fputs(" <small>", f);
            put_jvalue(f, data);
            fputs("</small>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

/* The data-quality warnings the summary's quality section holds, one line each. */
static void summary_warnings(struct json_object *sum, struct notes *N)
{
    struct json_object *w = JARR(sum, "warnings", "quality.warnings");
    if (w) {
        size_t n = json_object_array_length(w);
        for (size_t i = 0; i < n; i++) {
            struct json_object *s = json_object_array_get_idx(w, i);
            if (s && json_object_is_type(s, json_type_string))
                note(N, "%s", json_object_get_string(s));
        }
        return;
    }
    struct json_object *files = JOBJ(sum, "quality.files");
    if (files) {
        json_object_object_foreach(files, fname, q)
        {
            if (!json_object_is_type(q, json_type_object))
                continue;
            struct json_object *re = JSTR(q, "read_error");
            if (re) {
                note(N, "%s could not be read: %s", fname, json_object_get_string(re));
                continue;
            }
            double sk = JNUM(q, "skipped_total"), lines = JNUM(q, "lines");
            if (sk > 0) {
                char why[120] = "";
                struct json_object *by = JOBJ(q, "skipped");
                size_t len = 0;
                if (by) {
                    json_object_object_foreach(by, reason, cnt)
                    {
                        int wr = snprintf(why + len, sizeof why - len, "%s%s %.0f", len ? ", " : "",
                                          reason, json_object_get_double(cnt));
                        if (wr < 0 || (size_t)wr >= sizeof why - len)
                            break;
                        len += (size_t)wr;
                    }
                }
                note(N, "%s: %.0f of %.0f lines skipped%s%s%s", fname, sk, lines, len ? " (" : "",
                     why, len ? ")" : "");
            }
            double bad = JNUM(q, "bad_cells");
            if (bad > 0)
                note(N, "%s: %.0f cell%s with junk instead of a number", fname, bad,
                     bad == 1 ? "" : "s");
            struct json_object *ph = JOBJ(q, "placeholders");
            if (ph && json_object_object_length(ph) > 0) {
                char what[160] = "";
                size_t len = 0;
                double total = 0;
                json_object_object_foreach(ph, tok, cnt)
                {
                    total += json_object_get_double(cnt);
                    int wr = snprintf(what + len, sizeof what - len, "%s%s %.0f", len ? ", " : "",
                                      tok, json_object_get_double(cnt));
                    if (wr < 0 || (size_t)wr >= sizeof what - len)
                        break;
                    len += (size_t)wr;
                }
                note_minor(N, "%s: %.0f cell%s not measured (%s)", fname, total,
                           total == 1 ? "" : "s", what);
            }
            struct json_object *pl = jget(q, "partial_last_line");
            if (pl && json_object_is_type(pl, json_type_boolean) && json_object_get_boolean(pl))
                note(N, "%s ends in a partial line (not yet written)", fname);
            double gaps = JNUM(q, "gaps"), med = JNUM(q, "interval_sec.median");
            if (gaps > 0) {
                char b[32];
                note_minor(N, "%s: %.0f gap%s in sampling (interval %s s)", fname, gaps,
                           gaps == 1 ? "" : "s", fmt_num(b, sizeof b, med));
            }
        }
    }
    double restarts = JNUM(sum, "quality.child_restarts", "events.child_restarts");
    if (restarts > 0)
        note(N, "nvidia-smi children restarted %.0f time%s", restarts, restarts == 1 ? "" : "s");
    double dropped = JNUM(sum, "gpu_rows_beyond_64_gpus");
    if (dropped > 0)
        note(N, "%.0f rows of GPUs beyond the first 64 not summarized", dropped);
    dropped = JNUM(sum, "phases_not_summarized");
    if (dropped > 0)
        note(N, "%.0f phases not summarized", dropped);
    struct json_object *tzbad = JSTR(sum, "time_zone.start_event_smi_tz_unrecognized");
    if (tzbad)
        note(N, "the start event's smi_tz \"%s\" was not understood",
             json_object_get_string(tzbad));
}

/* The whole summary object, pretty-printed and escaped, for whatever the tables leave out. */
static void json_dump(FILE *f, struct json_object *sum)
{
    size_t n = 0;
    const char *s = json_object_to_json_string_length(
        sum, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE,
        &n);
    if (!s)
        return;
    fputs("<details id=\"t-json\"><summary>The whole summary (JSON)</summary><pre>", f);
    size_t m = n > MAX_JSON_DUMP ? MAX_JSON_DUMP : n;
    while (m > 0 && m < n && ((unsigned char)s[m] & 0xC0) == 0x80)
        m--;
    esc_n(f, s, m);
    if (m < n)
        fprintf(f, "\n\xE2\x80\xA6 (%zu more bytes: see summarize --format json)", n - m);
    fputs("</pre></details>\n", f);
}

static void render_tables(FILE *f, struct json_object *sum, const struct run *R)
{
    struct notes N = {0};
    bool have = sum && json_object_is_type(sum, json_type_object);
    if (have) {
        run_table(f, sum);
        gpu_table(f, sum);
        phase_table(f, sum, R);
        event_table(f, sum, R);
        summary_warnings(sum, &N);
        /* What only the drawing knows. */
        if (R->gpu_dropped)
            note(&N, "%llu rows of GPUs numbered %d or more not drawn",
                 (unsigned long long)R->gpu_dropped, SUM_HTML_MAX_GPUS);
        if (R->out_of_range)
            note(&N,
                 "%llu rows with a time far from the rest of the run (a wrong clock?) not "
                 "drawn",
                 (unsigned long long)R->out_of_range);
        if (R->oom)
            note(&N, "out of memory: some series are incomplete");
        for (int k = 0; k < SUM_KIND_COUNT; k++)
            if (R->read_err[k] && !jget(sum, "quality.files"))
                note(&N, "%s could not be read: %s", sum_kind_files[k], strerror(-R->read_err[k]));
    } else {
        fputs("<p class=\"foot\">No summary given: the tables are left out.</p>\n", f);
        reading_notes(R, &N);
    }
    fputs("<h2>Data quality</h2>\n", f);
    if (!N.n) {
        fputs("<p class=\"ok\" id=\"t-quality\">No problems found while reading.</p>\n", f);
    } else {
        fputs("<ul class=\"warn\" id=\"t-quality\">\n", f);
        for (size_t i = 0; i < N.n; i++) {
            fputs(N.minor[i] ? "<li class=\"minor\">" : "<li>", f);
            esc(f, N.text[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    if (have)
        json_dump(f, sum);
}

/* ---- the CLI's entry point -------------------------------------------------------------- */

/* The path of target relative to directory base; both absolute and normalized (realpath).
 * Returns a malloc'd string or NULL. */
static char *relative_path(const char *base, const char *target)
{
    /* Skip the leading components both share. */
    const char *b = base, *t = target;
    for (;;) {
        while (*b == '/')
            b++;
        while (*t == '/')
            t++;
        size_t bn = strcspn(b, "/"), tn = strcspn(t, "/");
        if (bn == 0 || bn != tn || strncmp(b, t, bn) != 0)
            break;
        b += bn;
        t += tn;
    }
    /* Then one "../" for each component of base left over. */
    size_t ups = 0;
    for (const char *p = b; *p; p += strcspn(p, "/")) {
        while (*p == '/')
            p++;
        ups += *p != '\0';
    }
    char *out = malloc(ups * 3 + strlen(t) + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (size_t i = 0; i < ups; i++, o += 3)
        memcpy(o, "../", 3);
    strcpy(o, t);
    return out;
}

int sum_html_write_file(const char *path, const char *const *dirs,
                        const char *const *summaries, size_t n,
                        const struct sum_html_opts *opts, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || !dirs || n == 0 || !dirs[0])
        return -EINVAL;
    struct json_object **sums = calloc(n, sizeof *sums);
    char **links = calloc(n, sizeof *links);
    char *page = NULL;
    size_t page_len = 0;
    int rc = -ENOMEM;
    if (!sums || !links)
        goto out;
    for (size_t i = 0; i < n; i++)
        sums[i] = summaries && summaries[i] ? json_tokener_parse(summaries[i]) : NULL;
    if (n > 1) {
        /* Links are relative to the page, so the page and the runs can move together. */
        char *pathdup = strdup(path);
        char base[PATH_MAX];
        if (!pathdup)
            goto out;
        bool have_base = realpath(dirname(pathdup), base) != NULL;
        free(pathdup);
        for (size_t i = 0; i < n && have_base; i++) {
            char report[PATH_MAX + 16], abs[PATH_MAX];
            snprintf(report, sizeof report, "%s/report.html", dirs[i]);
            if (realpath(report, abs))
                links[i] = relative_path(base, abs);
        }
    }
    FILE *mem = open_memstream(&page, &page_len);
    if (!mem)
        goto out;
    if (n == 1)
        rc = sum_html_run(mem, dirs[0], sums[0], opts, err, errlen);
    else
        rc = sum_html_sweep(mem, dirs, sums, (const char *const *)links, n, opts, err, errlen);
    if (fclose(mem) != 0 && rc == 0)
        rc = -ENOMEM;
    if (rc == 0)
        rc = hw_write_atomic(path, page, page_len);
out:
    for (size_t i = 0; sums && i < n; i++)
        json_object_put(sums[i]);
    for (size_t i = 0; links && i < n; i++)
        free(links[i]);
    free(sums);
    free(links);
    free(page);
    return rc;
}
