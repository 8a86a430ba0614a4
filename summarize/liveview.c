/* summarize --live's views (liveview.h). Every view loops over hw_metrics.csv's table of GPU
 * figures (hw_gpu_figs, those flagged HW_GF_LIVE) and the view's own two columns for its header,
 * its cells and its log words. */
#include "liveview.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "evclass.h"
#include "hwrun/utf8.h"

#define MIB_PER_GIB 1024.0

/* ---- following a run ---------------------------------------------------------------------- */

static void warn(struct sum_live *v, double t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn(struct sum_live *v, double t, const char *fmt, ...)
{
    if (v->nwarn == SUM_LIVE_WARN) {
        memmove(&v->warn[0], &v->warn[1], (SUM_LIVE_WARN - 1) * sizeof v->warn[0]);
        v->nwarn--;
    }
    v->warn[v->nwarn].t = t;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->warn[v->nwarn].text, sizeof v->warn[0].text, fmt, ap);
    va_end(ap);
    v->nwarn++;
    v->warnings++;
}

static void tap_event(void *ctx, const struct rd_event *e)
{
    struct sum_live *v = ctx;
    sum_outcome_event(&v->outcome, e);
    if (!strcmp(e->name, HW_EV_START)) {
        v->command[0] = '\0';
        struct json_object *argv;
        if (e->data && json_object_object_get_ex(e->data, HW_START_COMMAND, &argv) &&
            json_object_is_type(argv, json_type_array)) {
            size_t len = 0;
            for (size_t i = 0; i < json_object_array_length(argv) && len < sizeof v->command; i++) {
                const char *s = json_object_get_string(json_object_array_get_idx(argv, i));
                int n = snprintf(v->command + len, sizeof v->command - len, "%s%s",
                                 i ? " " : "", s ? s : "");
                len += n > 0 ? (size_t)n : 0;
            }
        }
        return;
    }
    if (!strcmp(e->name, HW_EV_CLOCK_STEP)) { /* not an error, but the times jump by it */
        warn(v, e->t, "the wall clock stepped %+.1f s", rd_json_num(e->data, HW_CLOCK_STEP_KEY));
        return;
    }
    if (!sum_event_error_like(e->name, e->data))
        return;
    const char *why = rd_json_str(e->data, "reason");
    if (!why)
        why = rd_json_str(e->data, "error");
    warn(v, e->t, "%s%s%s", e->name, why ? ": " : "", why ? why : "");
}

static void tap_phase(void *ctx, const struct rd_phase *p)
{
    struct sum_live *v = ctx;
    int es, sig;
    bool failed = sum_outcome_phase_failed(&v->outcome, p, &es, &sig);
    if (failed) /* the live state marked it (rd_phase_failed) and left its steps out */
        warn(v, p->t_end, "phase %.100s failed", p->name);
}

static void tap_diag(void *ctx, const char *name, uint64_t line, const char *reason)
{
    struct sum_live *v = ctx;
    (void)name, (void)line, (void)reason;
    v->bad_lines++; /* counted, not listed: a view has no room for every line */
}

struct sum_live *sum_live_new(const char *dir, const char *name)
{
    struct sum_live *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    sum_outcome_init(&v->outcome);
    for (int g = 0; g < RD_MAX_GPUS; g++)
        v->ecc_warned[g] = v->idle_warned[g] = NAN;
    v->tap = (struct rd_sink){.ctx = v, .event = tap_event, .phase = tap_phase,
                              .diag = tap_diag};
    struct rd_live_opts o = {.tap = &v->tap, .idle_pct = sum_idle_threshold(NULL)};
    if (rd_live_open(&v->live, dir, &o) < 0) {
        free(v);
        return NULL;
    }
    if (!name) {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            n--;
        const char *s = dir + n;
        while (s > dir && s[-1] != '/')
            s--;
        snprintf(v->name, sizeof v->name, "%.*s", (int)(dir + n - s), s);
    } else {
        snprintf(v->name, sizeof v->name, "%s", name);
    }
    return v;
}

void sum_live_free(struct sum_live *v)
{
    if (!v)
        return;
    rd_live_close(&v->live);
    free(v);
}

void sum_live_rules(struct sum_live *v, const struct sum_rule_cfg *rules)
{
    v->rules = rules;
    v->live.opts.idle_pct = sum_idle_threshold(rules);
}

int sum_live_update(struct sum_live *v)
{
    int rc = rd_live_update(&v->live);
    struct rd_live *l = &v->live;
    for (int g = 0; g < l->ngpus; g++) {
        const struct rd_live_gpu *x = &l->gpu[g];
        const struct rd_energy *e = &x->energy;
        if (e->gaps > v->gaps_seen[g]) { /* a hole in its rows, as the energy rule saw it */
            warn(v, x->t, "GPU %d: a gap in its samples (%.1f s in all)", g, e->gap_s);
            v->gaps_seen[g] = e->gaps;
        }
        /* idle for gpu_idle's stretch now: said once per stretch, while it goes on */
        const struct rd_idle *id = &x->idle;
        double len = id->run_t1 - id->run_t0;
        if (len >= sum_idle_stretch(v->rules) && v->idle_warned[g] != id->run_t0) {
            char d[32];
            warn(v, x->t, "GPU %d idle for %s now (gpu_idle: utilization %g%% or less)", g,
                 sum_verdict_dur(len, d, sizeof d), sum_idle_threshold(v->rules));
            v->idle_warned[g] = id->run_t0;
        }
        if (!x->health_seen)
            continue;
        /* health: uncorrected ECC errors that grew while the run ran, a row remap that failed
         * or waits (the GPU needs a reset); each said once */
        double ecc = x->health[HW_HEALTH_ECC_UNCORRECTED],
               first = x->health_first[HW_HEALTH_ECC_UNCORRECTED];
        if (isfinite(ecc) && ecc > (isfinite(v->ecc_warned[g]) ? v->ecc_warned[g] : first)) {
            warn(v, x->t, "GPU %d: %.0f uncorrected ECC errors since the run began", g,
                 ecc - first);
            v->ecc_warned[g] = ecc;
        }
        bool remap = x->health[HW_HEALTH_REMAP_FAILURE] == 1 ||
                     x->health[HW_HEALTH_REMAP_PENDING] == 1;
        if (remap && !v->remap_warned[g])
            warn(v, x->t, "GPU %d: a memory row remap %s", g,
                 x->health[HW_HEALTH_REMAP_FAILURE] == 1 ? "failed" : "is pending (reset the GPU)");
        v->remap_warned[g] |= remap;
    }
    return rc;
}

enum sum_status sum_live_status(struct sum_live *v)
{
    struct sum_outcome o = v->outcome;
    o.interval_s = v->live.info.interval_s;
    /* from another host only what the files do tells whether it runs */
    for (int i = 0; i < RD_LIVE_SRC_COUNT; i++) {
        struct stat st;
        if (v->live.src[i].fd >= 0 && fstat(v->live.src[i].fd, &st) == 0) {
            double m = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
            if (!(m <= o.newest_write))
                o.newest_write = m;
        }
    }
    sum_outcome_finish(&o, v->live.t_last);
    v->now = o;
    return o.status;
}

/* ---- pieces of text ----------------------------------------------------------------------- */

void sum_live_put_text(struct hw_buf *out, const char *s, int cols)
{
    hw_buf_term(out, s, strlen(s), cols > 0 ? (size_t)cols : 0); /* the one rule (hwrun/utf8.h) */
}

/* "1:02:03", "12:34", "7.2 s" */
static void fmt_clock(char *buf, size_t cap, double s)
{
    if (!isfinite(s) || s < 0)
        snprintf(buf, cap, "-");
    else if (s >= 1e9) /* 31 years: a clock gone wrong, not a run; no integer cast */
        snprintf(buf, cap, "%.3g s", s);
    else if (s < 60)
        snprintf(buf, cap, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, cap, "%d:%02d", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, cap, "%d:%02d:%02d", (int)(s / 3600), (int)s / 60 % 60, (int)s % 60);
}

static const char *const spark[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                     "\u2585", "\u2586", "\u2587", "\u2588"};

/* The last minute of a GPU's utilization (power: of its power against top) in n characters. */
static void sparkline(struct hw_buf *b, const struct rd_live_gpu *g, bool power, double top,
                      int64_t now, int n)
{
    double h[RD_LIVE_HIST];
    rd_live_history(g, power, now, h);
    int per = RD_LIVE_HIST / n;
    for (int i = 0; i < n; i++) {
        double sum = 0;
        int k = 0;
        for (int j = i * per; j < (i + 1) * per; j++)
            if (isfinite(h[j])) {
                sum += h[j];
                k++;
            }
        if (!k || !(top > 0)) {
            hw_buf_putc(b, ' ');
            continue;
        }
        double x = sum / k / top * 8; /* clamped before the cast: a value past the top */
        hw_buf_puts(b, spark[!(x > 0) ? 0 : x >= 7 ? 7 : (int)x]);
    }
}

/* ---- the live GPU figures: one table for every view ---------------------------------------- */

/* The reasons a GPU's clocks are held down now, from hw_health.csv's bitmask (idle is not news). */
static const struct {
    unsigned long long bit;
    const char *word;
} reasons[] = {
    {HW_REASON_SW_POWER_CAP, "power"}, {HW_REASON_HW_POWER_BRAKE, "brake"},
    {HW_REASON_SW_THERMAL, "thermal"}, {HW_REASON_HW_THERMAL, "hw-thermal"},
    {HW_REASON_HW_SLOWDOWN, "slowdown"}, {HW_REASON_SYNC_BOOST, "sync"},
    {HW_REASON_APP_CLOCKS, "app-clocks"},
};

static double power_limit(const struct rd_live_gpu *g)
{
    if (!g->health_seen)
        return NAN;
    double l = g->health[HW_HEALTH_POWER_ENFORCED];
    return isfinite(l) ? l : g->health[HW_HEALTH_POWER_LIMIT];
}

static void upper(char *dst, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        dst[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    dst[i] = '\0';
}

/* The live view's columns: hw_metrics.csv's figures flagged for it (HW_GF_LIVE, hw_gpu_figs'
 * order), then its own two, then the table's figures shown only where measured (HW_GF_WHEN_SEEN:
 * a fan, the graphics clock) once a GPU of the run measured them. A column is a figure's
 * number (0 to HW_GPU_FIG_COUNT - 1) or one of these. */
enum { COL_THROTTLE = HW_GPU_FIG_COUNT, COL_ENERGY, COL_MAX };

static const struct {
    const char *head;
    int width;
    const char *word;
} own[] = {
    [COL_THROTTLE - HW_GPU_FIG_COUNT] = {"THROTTLE", 10, "gpu_throttle"},
    [COL_ENERGY - HW_GPU_FIG_COUNT] = {"ENERGY", 8, "gpu_energy_wh"},
};

static bool seen_fig(const struct rd_live *l, int m)
{
    for (int g = 0; g < l->ngpus; g++)
        if (l->gpu[g].seen && l->gpu[g].measured[m])
            return true;
    return false;
}

/* the columns of run l, in order: how many */
static int live_cols(const struct rd_live *l, int col[COL_MAX])
{
    int n = 0;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        if ((hw_gpu_figs[m].flags & (HW_GF_LIVE | HW_GF_WHEN_SEEN)) == HW_GF_LIVE)
            col[n++] = m;
    col[n++] = COL_THROTTLE;
    col[n++] = COL_ENERGY;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        if ((hw_gpu_figs[m].flags & (HW_GF_LIVE | HW_GF_WHEN_SEEN)) ==
                (HW_GF_LIVE | HW_GF_WHEN_SEEN) &&
            seen_fig(l, m))
            col[n++] = m;
    return n;
}

/* a figure's head on the screen: its own short one, else its label in capitals */
static const char *col_head(int c, char *buf, size_t cap)
{
    if (c >= HW_GPU_FIG_COUNT)
        return own[c - HW_GPU_FIG_COUNT].head;
    if (hw_gpu_figs[c].head)
        return hw_gpu_figs[c].head;
    upper(buf, cap, hw_gpu_figs[c].label);
    return buf;
}

/* a head that names the figure's unit ("SM MHz") takes bare numbers */
static bool unit_in_head(int m)
{
    const char *h = hw_gpu_figs[m].head;
    return h && strstr(h, hw_gpu_dims[hw_gpu_figs[m].dim].unit);
}

/* its cells' width on the screen (sparkline aside): its head's, or its widest usual cell's */
static int col_width(int c)
{
    if (c >= HW_GPU_FIG_COUNT)
        return own[c - HW_GPU_FIG_COUNT].width;
    char buf[64];
    int w = (int)strlen(col_head(c, buf, sizeof buf)), cell;
    switch (c) {
    case HW_GM_MEM_USED: cell = 9; break; /* "79.2/79.6" */
    case HW_GM_POWER: cell = 9; break;     /* "650/700 W" */
    default:
        /* "100%", "1980" under "SM MHz", "1980 MHz", "50 C" */
        cell = hw_gpu_figs[c].dim == HW_GPU_DIM_PCT ? 4
               : unit_in_head(c)                    ? 4
               : hw_gpu_figs[c].dim == HW_GPU_DIM_MHZ
                   ? 5 + (int)strlen(hw_gpu_dims[hw_gpu_figs[c].dim].unit)
                   : 4 + (int)strlen(hw_gpu_dims[hw_gpu_figs[c].dim].unit);
    }
    return w > cell ? w : cell;
}

/* its log line key: the figure's word, else gpu_<key> */
static void col_word(struct hw_buf *b, int c)
{
    if (c >= HW_GPU_FIG_COUNT)
        hw_buf_printf(b, " %s=", own[c - HW_GPU_FIG_COUNT].word);
    else if (hw_gpu_figs[c].word)
        hw_buf_printf(b, " %s=", hw_gpu_figs[c].word);
    else
        hw_buf_printf(b, " gpu_%s=", hw_gpu_figs[c].key);
}

/* Column c of GPU g: for the screen (screen true, with units: "38%", "1980 MHz") or the log line
 * (a bare value), "-" when its latest row did not measure it. Memory used is said of the total
 * (in GiB), power of its enforced limit (hw_health.csv). */
static void col_cell(struct hw_buf *b, const struct rd_live_gpu *g, int c, bool screen)
{
    const double *v = g->v;
    char tmp[64] = "-";
    switch (c) {
    case HW_GM_MEM_USED:
        /* in GiB, which its head says */
        if (isfinite(v[HW_GM_MEM_USED]) && screen && isfinite(v[HW_GM_MEM_TOTAL]))
            snprintf(tmp, sizeof tmp, "%.1f/%.1f", v[HW_GM_MEM_USED] / MIB_PER_GIB,
                     v[HW_GM_MEM_TOTAL] / MIB_PER_GIB);
        else if (isfinite(v[HW_GM_MEM_USED]))
            snprintf(tmp, sizeof tmp, "%.2f", v[HW_GM_MEM_USED] / MIB_PER_GIB);
        break;
    case HW_GM_POWER: {
        double lim = power_limit(g);
        if (isfinite(v[HW_GM_POWER]) && screen && isfinite(lim))
            snprintf(tmp, sizeof tmp, "%.0f/%.0f W", v[HW_GM_POWER], lim);
        else if (isfinite(v[HW_GM_POWER]))
            snprintf(tmp, sizeof tmp, screen ? "%.0f W" : "%.1f", v[HW_GM_POWER]);
        break;
    }
    case COL_THROTTLE: {
        double m = g->health_seen ? g->health[HW_HEALTH_REASONS] : NAN;
        if (!(m >= 0 && m < 18446744073709551616.0)) /* a 64-bit mask, else not one */
            break;
        unsigned long long bits = (unsigned long long)m;
        size_t len = 0;
        tmp[0] = '\0';
        for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
            if (bits & reasons[i].bit) {
                int n = snprintf(tmp + len, sizeof tmp - len, "%s%s", len ? "+" : "",
                                 reasons[i].word);
                len += n > 0 && (size_t)n < sizeof tmp - len ? (size_t)n : 0;
            }
        if (!len)
            snprintf(tmp, sizeof tmp, "none");
        break;
    }
    case COL_ENERGY: {
        double wh = rd_live_gpu_energy_j(g) / 3600.0;
        /* whole Wh from 1000 on: "12345 Wh" fits where "1.23e+04 Wh" would not */
        if (isfinite(wh) && screen)
            snprintf(tmp, sizeof tmp, fabs(wh) < 1000 ? "%.3g Wh" : "%.0f Wh", wh);
        else if (isfinite(wh))
            snprintf(tmp, sizeof tmp, "%.4g", wh);
        break;
    }
    default: {
        const struct hw_gpu_fig *f = &hw_gpu_figs[c];
        if (!isfinite(v[c]))
            break;
        if (!screen)
            snprintf(tmp, sizeof tmp, "%.*f", f->decimals, v[c]);
        else if (f->dim == HW_GPU_DIM_PCT)
            snprintf(tmp, sizeof tmp, "%.0f%%", v[c]);
        else if (unit_in_head(c))
            snprintf(tmp, sizeof tmp, "%.0f", v[c]);
        else
            snprintf(tmp, sizeof tmp, "%.0f %s", v[c], hw_gpu_dims[f->dim].unit);
    }
    }
    sum_live_put_text(b, tmp, 64);
}

/* pad the line from its mark to width characters (all our cells are one column a character) */
static void pad_to(struct hw_buf *b, size_t mark, int width)
{
    int chars = 0;
    for (size_t i = mark; i < b->len; i++)
        chars += ((unsigned char)b->p[i] & 0xC0) != 0x80;
    while (chars++ < width)
        hw_buf_putc(b, ' ');
}

/* a number, "-" when not measured */
static void num(struct hw_buf *b, int decimals, double v)
{
    if (isfinite(v))
        hw_buf_printf(b, "%.*f", decimals, v);
    else
        hw_buf_putc(b, '-');
}


/* ---- the run's words ---------------------------------------------------------------------- */

static double elapsed(const struct sum_live *v, enum sum_status st, double now)
{
    const struct rd_run_info *i = &v->live.info;
    double t0 = isfinite(i->t_start) ? i->t_start : v->live.t_first;
    if (isfinite(i->stop_duration_s) && st != SUM_STATUS_RUNNING)
        return i->stop_duration_s;
    if (isfinite(i->t_stop))
        return i->t_stop - t0;
    return st == SUM_STATUS_RUNNING ? now - t0 : v->live.t_last - t0;
}

/* One line of the screen: cut to cols characters, the rest of the row cleared by the drawer. */
static void line_end(struct hw_buf *out, struct hw_buf *line, int cols, int *rows)
{
    if (*rows <= 0)
        return;
    hw_buf_putc(line, '\0');
    /* the line is ours (already made safe): cut at cols characters without splitting one */
    int chars = 0;
    size_t i = 0;
    for (; line->p[i]; i++) {
        if (((unsigned char)line->p[i] & 0xC0) != 0x80 && chars++ == cols)
            break;
    }
    hw_buf_put(out, line->p, i);
    hw_buf_putc(out, '\n');
    hw_buf_reset(line);
    (*rows)--;
}

static void phase_words(struct hw_buf *b, const struct sum_live *v, double now, bool running)
{
    const struct rd_live *l = &v->live;
    const struct rd_live_phase *cur = rd_live_current(l);
    char d[32];
    if (!cur) {
        hw_buf_puts(b, "no phase open");
        return;
    }
    fmt_clock(d, sizeof d, (running ? now : l->t_last) - cur->t_start);
    hw_buf_puts(b, "phase ");
    sum_live_put_text(b, cur->name, 60);
    hw_buf_printf(b, "  %s", d);
    const struct rd_live_name *n = rd_live_name(l, cur->name);
    if (n && n->nprev) {
        hw_buf_puts(b, "  (before:");
        for (int i = 0; i < n->nprev; i++) {
            fmt_clock(d, sizeof d, n->prev[i]);
            hw_buf_printf(b, " %s", d);
        }
        hw_buf_putc(b, ')');
    }
}

void sum_live_screen(struct sum_live *v, double now, int rows, int cols,
                     const struct sum_units *u, struct hw_buf *out)
{
    const struct rd_live *l = &v->live;
    enum sum_status st = sum_live_status(v);
    bool running = st == SUM_STATUS_RUNNING;
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    char s[64], d[32];

    upper(s, sizeof s, sum_status_names[st]);
    fmt_clock(d, sizeof d, elapsed(v, st, now));
    hw_buf_printf(&b, "%s  %s  ", s, d);
    sum_live_put_text(&b, v->name, 60);
    if (v->now.host[0]) {
        hw_buf_puts(&b, " on ");
        sum_live_put_text(&b, v->now.host, 40);
    }
    if (v->command[0]) {
        hw_buf_puts(&b, "  $ ");
        sum_live_put_text(&b, v->command, cols);
    }
    line_end(out, &b, cols, &rows);
    if (!rd_live_started(l)) {
        hw_buf_puts(&b, "waiting for the run's files");
        line_end(out, &b, cols, &rows);
    } else {
        char why[256];
        if (!running && sum_outcome_reason(&v->now, why, sizeof why)[0]) {
            sum_live_put_text(&b, why, cols);
            line_end(out, &b, cols, &rows);
        }
        fmt_clock(d, sizeof d, now - l->t_last);
        hw_buf_printf(&b, "last sample %s ago   phases %llu", d, (unsigned long long)l->phases);
        if (l->steps > 0)
            hw_buf_printf(&b, "   steps %.0f", l->steps);
        if (isfinite(l->step_rate))
            hw_buf_printf(&b, " (%.3g/s)", l->step_rate);
        if (v->warnings)
            hw_buf_printf(&b, "   warnings %llu", (unsigned long long)v->warnings);
        if (v->bad_lines) /* the summary names them; here their count, as they come */
            hw_buf_printf(&b, "   lines skipped %llu", (unsigned long long)v->bad_lines);
        line_end(out, &b, cols, &rows);
    }
    line_end(out, &b, cols, &rows);

    phase_words(&b, v, now, running);
    line_end(out, &b, cols, &rows);
    if (l->nrecent) {
        hw_buf_puts(&b, "last:");
        for (int i = l->nrecent; i-- > 0;) {
            const struct rd_live_phase *p = &l->recent[i];
            fmt_clock(d, sizeof d, p->seconds);
            hw_buf_puts(&b, "  ");
            sum_live_put_text(&b, p->name, 40);
            hw_buf_printf(&b, " %s%s", d, p->failed ? " FAILED" : "");
        }
        line_end(out, &b, cols, &rows);
    }
    line_end(out, &b, cols, &rows);

    if (l->ngpus) {
        int spark_w = cols >= 120 ? 12 : cols >= 100 ? 6 : 0;
        int col[COL_MAX], ncol = live_cols(l, col);
        hw_buf_puts(&b, "GPU ");
        for (int i = 0; i < ncol; i++) {
            size_t mark = b.len;
            char head[64];
            hw_buf_puts(&b, col_head(col[i], head, sizeof head));
            pad_to(&b, mark, col_width(col[i]) + ((col[i] == HW_GM_UTIL || col[i] == HW_GM_POWER)
                                                  && spark_w ? spark_w + 1 : 0) + 1);
        }
        line_end(out, &b, cols, &rows);
        double end = running || !isfinite(l->t_last) ? now : l->t_last;
        int64_t sec = fabs(end) < 1e15 ? (int64_t)floor(end) : 0; /* 0: no history shown */
        for (int g = 0; g < l->ngpus; g++) {
            const struct rd_live_gpu *x = &l->gpu[g];
            if (!x->seen)
                continue;
            hw_buf_printf(&b, "%-3d ", g);
            for (int i = 0; i < ncol; i++) {
                size_t mark = b.len;
                col_cell(&b, x, col[i], true);
                pad_to(&b, mark, col_width(col[i]));
                if (spark_w && col[i] == HW_GM_UTIL) {
                    hw_buf_putc(&b, ' ');
                    sparkline(&b, x, false, 100, sec, spark_w);
                } else if (spark_w && col[i] == HW_GM_POWER) {
                    double lim = power_limit(x);
                    hw_buf_putc(&b, ' ');
                    sparkline(&b, x, true, isfinite(lim) ? lim : 1000, sec, spark_w);
                }
                hw_buf_putc(&b, ' ');
            }
            line_end(out, &b, cols, &rows);
        }
        line_end(out, &b, cols, &rows);
    }

    if (l->proc_seen && !(l->proc[HW_PROC_COL_PROCS] > 0)) {
        hw_buf_puts(&b, "job    no process left");
        line_end(out, &b, cols, &rows);
    } else if (l->proc_seen) {
        const double *p = l->proc;
        char rss[32], pss[32], mrss[32];
        sum_units_fmt_mem_short(rss, sizeof rss, p[HW_PROC_COL_RSS], u);
        sum_units_fmt_mem_short(pss, sizeof pss, p[HW_PROC_COL_PSS], u);
        sum_units_fmt_mem_short(mrss, sizeof mrss, p[HW_PROC_COL_MAIN_RSS], u);
        hw_buf_puts(&b, "job    cpu ");
        num(&b, 2, p[HW_PROC_COL_CPU] / 100);
        hw_buf_printf(&b, " cores  rss %s  pss %s  processes ", rss, pss);
        num(&b, 0, p[HW_PROC_COL_PROCS]);
        hw_buf_puts(&b, "  threads ");
        num(&b, 0, p[HW_PROC_COL_THREADS]);
        if (isfinite(p[HW_PROC_COL_MAIN_RSS])) {
            hw_buf_printf(&b, "  main process: rss %s cpu ", mrss);
            num(&b, 2, p[HW_PROC_COL_MAIN_CPU] / 100);
        }
        line_end(out, &b, cols, &rows);
    }
    if (l->cpu_seen) {
        const double *c = l->cpu;
        char used[32], rate[4][40];
        sum_units_fmt_mem_short(used, sizeof used, c[HW_CPU_COL_MEM_USED], u);
        for (int i = 0; i < 4; i++) {
            if (isfinite(l->io_rate[i])) {
                char m[32];
                sum_units_fmt_mem_short(m, sizeof m, l->io_rate[i] / 1048576.0, NULL);
                snprintf(rate[i], sizeof rate[i], "%s/s", m);
            } else {
                snprintf(rate[i], sizeof rate[i], "-");
            }
        }
        hw_buf_puts(&b, "node   cpu ");
        num(&b, 0, 100 - c[HW_CPU_COL_IDLE]);
        hw_buf_printf(&b, "%%  mem used %s  disk read %s write %s  net rx %s tx %s", used,
                      rate[0], rate[1], rate[2], rate[3]);
        line_end(out, &b, cols, &rows);
    }

    if (v->nwarn) {
        line_end(out, &b, cols, &rows);
        hw_buf_puts(&b, "warnings (newest last)");
        line_end(out, &b, cols, &rows);
        for (int i = 0; i < v->nwarn; i++) {
            time_t t = fabs(v->warn[i].t) < 1e15 ? (time_t)v->warn[i].t : 0;
            struct tm tm;
            if (fabs(v->warn[i].t) < 1e15 && gmtime_r(&t, &tm))
                hw_buf_printf(&b, "  %02d:%02d:%02d  ", tm.tm_hour, tm.tm_min, tm.tm_sec);
            else
                hw_buf_puts(&b, "            ");
            sum_live_put_text(&b, v->warn[i].text, cols);
            line_end(out, &b, cols, &rows);
        }
    }
    hw_buf_free(&b);
}

/* ---- one line per interval ------------------------------------------------------------------ */

static void iso_time(struct hw_buf *b, double t)
{
    time_t s = (time_t)t;
    struct tm tm;
    if (gmtime_r(&s, &tm))
        hw_buf_printf(b, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                      tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* a word's value: no blank, so that a log line splits on blanks */
static void word(struct hw_buf *b, const char *s)
{
    size_t mark = b->len;
    sum_live_put_text(b, s, 80);
    for (size_t i = mark; i < b->len; i++)
        if (b->p[i] == ' ' || b->p[i] == '=')
            b->p[i] = '_';
}

void sum_live_line(struct sum_live *v, double now, struct hw_buf *out)
{
    const struct rd_live *l = &v->live;
    enum sum_status st = sum_live_status(v);
    iso_time(out, now);
    hw_buf_printf(out, " run=");
    word(out, v->name);
    /* a directory not written yet waits; it is not a run of unknown status */
    hw_buf_printf(out, " status=%s elapsed_s=",
                  rd_live_started(l) ? sum_status_names[st] : "waiting");
    num(out, 0, elapsed(v, st, now));
    const struct rd_live_phase *cur = rd_live_current(l);
    if (cur) {
        hw_buf_puts(out, " phase=");
        word(out, cur->name);
        hw_buf_printf(out, " phase_s=%.1f",
                      (st == SUM_STATUS_RUNNING ? now : l->t_last) - cur->t_start);
    }
    hw_buf_printf(out, " phases=%llu", (unsigned long long)l->phases);
    if (isfinite(l->step_rate))
        hw_buf_printf(out, " steps_per_s=%.3g", l->step_rate);
    int col[COL_MAX], ncol = l->ngpus ? live_cols(l, col) : 0;
    for (int i = 0; i < ncol; i++) { /* gpu_fan_pct=38,-: a value per GPU */
        col_word(out, col[i]);
        for (int g = 0; g < l->ngpus; g++) {
            if (g)
                hw_buf_putc(out, ',');
            col_cell(out, &l->gpu[g], col[i], false);
        }
    }
    if (l->proc_seen) {
        hw_buf_puts(out, " job_cpu_cores=");
        num(out, 2, l->proc[HW_PROC_COL_CPU] / 100);
        hw_buf_puts(out, " job_rss_gib=");
        num(out, 2, l->proc[HW_PROC_COL_RSS] / MIB_PER_GIB);
    }
    if (v->warnings)
        hw_buf_printf(out, " warnings=%llu", (unsigned long long)v->warnings);
    hw_buf_putc(out, '\n');
}

/* ---- a sweep: one row per run ---------------------------------------------------------------- */

static const struct {
    const char *head;
    int width;
} sweep_cols[] = {
    {"RUN", 24}, {"STATUS", 11}, {"ELAPSED", 9}, {"PHASE", 22}, {"GPU UTIL", 10},
    {"POWER", 9}, {"ENERGY", 11}, {"CPU", 6}, {"RSS", 10},
};

void sum_live_sweep_header(int cols, struct hw_buf *out)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    for (size_t i = 0; i < sizeof sweep_cols / sizeof sweep_cols[0]; i++) {
        size_t mark = b.len;
        hw_buf_puts(&b, sweep_cols[i].head);
        pad_to(&b, mark, sweep_cols[i].width + 1);
    }
    int rows = 1;
    line_end(out, &b, cols, &rows);
    hw_buf_free(&b);
}

void sum_live_sweep_row(struct sum_live *v, double now, int cols, const struct sum_units *u,
                        struct hw_buf *out)
{
    const struct rd_live *l = &v->live;
    enum sum_status st = sum_live_status(v);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    char cell[9][260];
    snprintf(cell[0], sizeof cell[0], "%s", v->name);
    snprintf(cell[1], sizeof cell[1], "%s",
             rd_live_started(l) ? sum_status_names[st] : "waiting"); /* not created yet */
    fmt_clock(cell[2], sizeof cell[2], elapsed(v, st, now));
    const struct rd_live_phase *cur = rd_live_current(l);
    snprintf(cell[3], sizeof cell[3], "%s", cur ? cur->name : "-");
    double util = 0, power = 0, joules = 0;
    int nu = 0, np = 0, nj = 0;
    for (int g = 0; g < l->ngpus; g++) {
        const struct rd_live_gpu *x = &l->gpu[g];
        if (x->seen && isfinite(x->v[HW_GM_UTIL]))
            util += x->v[HW_GM_UTIL], nu++;
        if (x->seen && isfinite(x->v[HW_GM_POWER]))
            power += x->v[HW_GM_POWER], np++;
        double j = x->seen ? rd_live_gpu_energy_j(x) : NAN;
        if (isfinite(j))
            joules += j, nj++;
    }
    /* the GPUs' mean utilization, their summed power and energy */
    snprintf(cell[4], sizeof cell[4], nu ? "%.0f%%" : "-", nu ? util / nu : 0);
    snprintf(cell[5], sizeof cell[5], np ? "%.0f W" : "-", np ? power : 0);
    snprintf(cell[6], sizeof cell[6], nj ? "%.3g Wh" : "-", joules / 3600);
    snprintf(cell[7], sizeof cell[7], l->proc_seen ? "%.2f" : "-",
             l->proc_seen ? l->proc[HW_PROC_COL_CPU] / 100 : 0);
    if (l->proc_seen)
        sum_units_fmt_mem_short(cell[8], sizeof cell[8], l->proc[HW_PROC_COL_RSS], u);
    else
        snprintf(cell[8], sizeof cell[8], "-");
    for (size_t i = 0; i < sizeof sweep_cols / sizeof sweep_cols[0]; i++) {
        size_t mark = b.len;
        sum_live_put_text(&b, cell[i], sweep_cols[i].width);
        pad_to(&b, mark, sweep_cols[i].width + 1);
    }
    int rows = 1;
    line_end(out, &b, cols, &rows);
    hw_buf_free(&b);
}
