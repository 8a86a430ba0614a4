/* The HTML report (summarize/html_*.c, timeline.c): golden structure tests on generated runs
 * (charts, phase bands, event markers, axis ranges, gaps), escaping of hostile names, the
 * per-column downsampling (a one-sample spike survives) and the timeline's buckets, the size of a
 * long run's page, the sweep page, errors, the summary tables, that the page states the JSON's
 * energy, interval, gaps and events (agree), and a real headless browser (chromium). */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"
#include "html.h"
#include "html_int.h" /* HT_MAX_NAME_LANES */
#include "summary.h"
#include "timeline.h"
#include "testutil.h"
#include "hwrun/buf.h"

#define T0 1795336800.0 /* 2026-11-22 08:40:00 UTC */
#define MT_PX 8.0    /* the plot's top and height in a chart (html_int.h's MT, PLOT_H) */
#define PLOT_PX 116.0
#define CHECK_NEAR(a, b, eps) CU_ASSERT(fabs((double)(a) - (double)(b)) <= (eps))

/* ---- helpers --------------------------------------------------------------------------------- */

struct page {
    char *html;
    size_t len;
    int rc;
    char err[512];
};

/* The page of run directory dir: its summary and timeline in one pass, then drawn. */
static void render(struct page *p, const char *dir, int width)
{
    struct sum_html_opts o;
    sum_html_opts_init(&o);
    if (width)
        o.width = width;
    struct sum_run *run;
    int rc = sum_html_summarize(dir, &o, false, &run);
    CU_ASSERT_FATAL(run != NULL);
    CU_ASSERT(rc == 0 || rc == -ENODATA || rc < 0);
    FILE *f = open_memstream(&p->html, &p->len);
    CU_ASSERT_FATAL(f != NULL);
    p->rc = sum_html_run(f, run, &o, p->err, sizeof p->err);
    fclose(f);
    sum_run_free(run);
}

static void render_sweep(struct page *p, const char *const *dirs, const char *const *names,
                         size_t n)
{
    struct sum_sweep_row *rows = calloc(n, sizeof *rows);
    CU_ASSERT_FATAL(rows != NULL);
    for (size_t i = 0; i < n; i++) {
        struct sum_run *run;
        int rc = sum_html_summarize(dirs[i], NULL, true, &run);
        CU_ASSERT_EQUAL(sum_html_sweep_take(&rows[i], dirs[i], run, rc, names ? names[i] : NULL),
                        0);
        sum_run_free(run);
    }
    FILE *f = open_memstream(&p->html, &p->len);
    CU_ASSERT_FATAL(f != NULL);
    p->rc = sum_html_sweep(f, rows, n, NULL, p->err, sizeof p->err);
    fclose(f);
    for (size_t i = 0; i < n; i++)
        sum_html_sweep_row_free(&rows[i]);
    free(rows);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)); p += k)
        n++;
    return n;
}

static size_t count_ci(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = hay; (p = strcasestr(p, needle)); p += k)
        n++;
    return n;
}

/* The text of <figure ... id="id"> ... </figure> (malloc'd), or NULL. */
static char *figure(const char *html, const char *id)
{
    char key[128];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *a = strstr(html, key);
    if (!a)
        return NULL;
    const char *b = strstr(a, "</figure>");
    if (!b)
        return NULL;
    return strndup(a, (size_t)(b - a));
}

/* The number in attr="..." within s (NAN if absent). */
static double attr_num(const char *s, const char *attr)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *a = s ? strstr(s, key) : NULL;
    return a ? strtod(a + strlen(key), NULL) : NAN;
}

/* The d="..." of the first <path class="ln CLS..."> in s (malloc'd), or NULL. */
static char *series_d(const char *s, const char *cls)
{
    char key[64];
    snprintf(key, sizeof key, "<path class=\"ln %s", cls);
    const char *a = s ? strstr(s, key) : NULL;
    if (!a)
        return NULL;
    a = strstr(a, " d=\"");
    if (!a)
        return NULL;
    a += 4;
    const char *b = strchr(a, '"');
    return b ? strndup(a, (size_t)(b - a)) : NULL;
}

/* Coordinates of a path (M x y x y ... M ...; "h1" ends a lone point). */
struct pts {
    double x[20000], y[20000];
    bool move[20000];
    size_t n;
};

static void parse_d(const char *d, struct pts *p)
{
    p->n = 0;
    bool next_move = false;
    while (*d && p->n < 20000) {
        if (*d == 'M') {
            next_move = true;
            d++;
            continue;
        }
        if (*d == 'h') { /* h1: skip */
            d++;
            strtod(d, (char **)&d);
            continue;
        }
        if (*d == ' ') {
            d++;
            continue;
        }
        char *e;
        double x = strtod(d, &e);
        if (e == d)
            break;
        d = e;
        while (*d == ' ')
            d++;
        double y = strtod(d, &e);
        d = e;
        p->x[p->n] = x;
        p->y[p->n] = y;
        p->move[p->n] = next_move;
        p->n++;
        next_move = false;
    }
}

/* The value a y pixel stands for in a chart (its data-y0/y1 and data-plot). */
static double value_at(const char *fig, double y)
{
    double y0 = attr_num(fig, "data-y0"), y1 = attr_num(fig, "data-y1");
    const char *a = strstr(fig, "data-plot=\"");
    int px = 0, py = 0, pw = 1, ph = 1;
    CU_ASSERT_FATAL(a && sscanf(a + 11, "%d %d %d %d", &px, &py, &pw, &ph) == 4);
    return y0 + (py + ph - y) / ph * (y1 - y0);
}

static double x_at(const char *fig, double x)
{
    double x0 = attr_num(fig, "data-x0"), x1 = attr_num(fig, "data-x1");
    const char *a = strstr(fig, "data-plot=\"");
    int px = 0, py = 0, pw = 1, ph = 1;
    CU_ASSERT_FATAL(a && sscanf(a + 11, "%d %d %d %d", &px, &py, &pw, &ph) == 4);
    return x0 + (x - px) / pw * (x1 - x0);
}

/* Is s[0..n) valid UTF-8 with no control characters but tab and newline? */
static bool clean_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                return false;
            i++;
            continue;
        }
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
        if (!len || i + len > n)
            return false;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

/* ---- a small known run ----------------------------------------------------------------------- */

/* GPU 0: util 50, power 200 W; GPU 1: util 70, power 300 W; memory 1000..1490 of 81559 MiB. */
static void basic_values(void *ctx, int gpu, long i, double rel, double v[GV_COUNT])
{
    (void)ctx, (void)rel;
    v[GV_UTIL] = gpu ? 70 : 50;
    v[GV_MEMUTIL] = gpu ? 30 : 20;
    v[GV_MEMUSED] = 1000 + (double)(i % 50) * 10;
    v[GV_MEMTOTAL] = 81559;
    v[GV_POWER] = gpu ? 300 : 200;
    v[GV_TEMP] = 50;
    v[GV_SMCLK] = 1410;
    v[GV_MEMCLK] = 2619;
}

/* 120 s at 1 s, 2 GPUs, no samples in [60, 80), phases load/train/eval, 4 events. */
static void make_basic_run(const char *dir, bool gap)
{
    struct gen_run g = {.t0 = T0,
                        .seconds = 120,
                        .interval = 1,
                        .ngpus = 2,
                        .gap_from = gap ? 60 : 0,
                        .gap_to = gap ? 80 : 0,
                        .cpu = true,
                        .proc = true,
                        .cgroup = true,
                        .jsonl_start = true,
                        .gpu_values = basic_values};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    CU_ASSERT(gen_phase(dir, T0 + 20, 20, "load") == 0);
    CU_ASSERT(gen_phase(dir, T0 + 100, 80, "train") == 0);
    CU_ASSERT(gen_phase(dir, T0 + 120, 20, "eval") == 0);
    CU_ASSERT(gen_event(dir, T0 + 50, "custom_mark", NULL) == 0);
    CU_ASSERT(gen_event(dir, T0 + 60, "child_exit", "{\"child\": \"query\", \"status\": 137}") ==
              0);
}

static char *mkrun(const char *tag, bool gap)
{
    char *dir = th_tmpdir(tag);
    make_basic_run(dir, gap);
    return dir;
}

static const char *const chart_ids[] = {"gpu-util",  "gpu-memutil", "gpu-mem",
                                        "gpu-power", "gpu-clock",   "cpu",
                                        "proc-rss",  "proc-cpu",    "cgroup-mem"};
#define NCHARTS (sizeof chart_ids / sizeof chart_ids[0])

/* ---- suite: structure ------------------------------------------------------------------------ */

static void test_structure_counts(void)
{
    char *dir = mkrun("html-basic", true);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL(p.rc, 0);
    CU_ASSERT_STRING_EQUAL(p.err, "");
    CU_ASSERT_FATAL(p.html != NULL);
    CU_ASSERT(strncmp(p.html, "<!DOCTYPE html>", 15) == 0);
    CU_ASSERT(strstr(p.html, "</html>\n") != NULL);
    /* every chart, once */
    CU_ASSERT_EQUAL(count(p.html, "<figure class=\"chart\""), NCHARTS);
    for (size_t i = 0; i < NCHARTS; i++) {
        char key[64];
        snprintf(key, sizeof key, "<figure class=\"chart\" id=\"%s\"", chart_ids[i]);
        CU_ASSERT_EQUAL(count(p.html, key), 1);
    }
    /* 3 phases: a band in every chart, a labelled block in the strip */
    CU_ASSERT_EQUAL(count(p.html, "<rect class=\"band "), 3 * NCHARTS);
    CU_ASSERT_EQUAL(count(p.html, "<g class=\"ph "), 3);
    CU_ASSERT(strstr(p.html, ">train</text>") != NULL);
    /* 4 events (start, stop, custom_mark, child_exit), child_exit marked as an error */
    CU_ASSERT_EQUAL(count(p.html, "<path class=\"ev\"") + count(p.html, "<path class=\"ev bad\""),
                    4);
    CU_ASSERT_EQUAL(count(p.html, "<path class=\"ev bad\""), 1);
    CU_ASSERT(strstr(p.html, "<title>child_exit at 60 s</title>") != NULL);
    CU_ASSERT(strstr(p.html, "<title>custom_mark at 50 s</title>") != NULL);
    /* self-contained: nothing to fetch, no script */
    CU_ASSERT(strstr(p.html, "Content-Security-Policy") != NULL);
    CU_ASSERT_EQUAL(count_ci(p.html, "<script"), 0);
    CU_ASSERT_EQUAL(count_ci(p.html, "http://") + count_ci(p.html, "https://"), 0);
    CU_ASSERT_EQUAL(count_ci(p.html, " src="), 0);
    /* the page states the start (UTC), the resolution and the gap rule */
    CU_ASSERT(strstr(p.html, "2026-11-22 08:40:00 UTC") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"resolution\"") != NULL);
    CU_ASSERT(strstr(p.html, "per pixel column") != NULL);
    CU_ASSERT(strstr(p.html, "host <b>gpu-node-07</b>") != NULL);
    /* the tables and the reading notes */
    CU_ASSERT(strstr(p.html, "id=\"t-run\"") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"t-quality\"") != NULL);
    CU_ASSERT(clean_utf8((const unsigned char *)p.html, p.len));
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

static void test_structure_axes(void)
{
    char *dir = mkrun("html-axes", true);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    /* time axis: 0..120 s, labels every 20 s, with its unit */
    char *util = figure(p.html, "gpu-util");
    CU_ASSERT_FATAL(util != NULL);
    CHECK_NEAR(attr_num(util, "data-x0"), 0, 1e-9);
    CHECK_NEAR(attr_num(util, "data-x1"), 120, 1e-6);
    CU_ASSERT(strstr(util, ">120</text>") != NULL);
    CU_ASSERT(strstr(util, ">20</text>") != NULL);
    CU_ASSERT(strstr(util, "time since start [s]") != NULL);
    /* percent charts: 0..100 with the unit on the axis */
    CHECK_NEAR(attr_num(util, "data-y0"), 0, 1e-9);
    CHECK_NEAR(attr_num(util, "data-y1"), 100, 1e-9);
    CU_ASSERT(strstr(util, ">[%]</text>") != NULL);
    /* power: up to 300 W on a 1-2-5 step; energy on the right axis, in Wh */
    char *pw = figure(p.html, "gpu-power");
    CU_ASSERT_FATAL(pw != NULL);
    CHECK_NEAR(attr_num(pw, "data-y1"), 300, 1e-9);
    CU_ASSERT(strstr(pw, ">[W]</text>") != NULL);
    CU_ASSERT(strstr(pw, ">[Wh]</text>") != NULL);
    /* energy: 200 W and 300 W over 99 s of bridged steps (the 21 s gap is not bridged), shown
     * as units.h's sum_fmt_num shows it (one decimal; 8.25 rounds to even) */
    CU_ASSERT(strstr(pw, "GPU 0 \xC2\xB7 5.5 Wh") != NULL);
    CU_ASSERT(strstr(pw, "GPU 1 \xC2\xB7 8.2 Wh") != NULL || strstr(pw, "GPU 1 \xC2\xB7 8.3 Wh"));
    CU_ASSERT(strstr(pw, "energy so far \xC2\xB7 13.8 Wh") != NULL);
    CHECK_NEAR(attr_num(pw, "data-y2-1"), 15, 1e-9);
    /* memory in GiB, up to the 79.6 GiB total: axis 0..80 */
    char *mem = figure(p.html, "gpu-mem");
    CU_ASSERT_FATAL(mem != NULL);
    CHECK_NEAR(attr_num(mem, "data-y1"), 80, 1e-9);
    CU_ASSERT(strstr(mem, ">[GiB]</text>") != NULL);
    CU_ASSERT_EQUAL(count(mem, "class=\"ln g0 dash\""), 1); /* the total, dashed */
    /* every chart has a unit on both axes */
    for (size_t i = 0; i < NCHARTS; i++) {
        char *fig = figure(p.html, chart_ids[i]);
        CU_ASSERT_FATAL(fig != NULL);
        CU_ASSERT(strstr(fig, "time since start [s]") != NULL);
        CU_ASSERT(strstr(fig, "rotate(-90)\">[") != NULL);
        free(fig);
    }
    free(util);
    free(pw);
    free(mem);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* A gap breaks the line: a new subpath starts at the first sample after it. */
static void test_structure_gap(void)
{
    char *dir = mkrun("html-gap", true);
    char *dir2 = mkrun("html-nogap", false);
    struct page p = {0}, q = {0};
    render(&p, dir, 0);
    render(&q, dir2, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    CU_ASSERT_EQUAL_FATAL(q.rc, 0);
    static const struct {
        const char *chart, *cls;
    } lines[] = {{"gpu-util", "g0"},  {"gpu-util", "g1"}, {"gpu-power", "g0"},
                 {"gpu-power", "en"}, {"cpu", "usr"},     {"proc-rss", "rss"}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char *fig = figure(p.html, lines[i].chart), *fig2 = figure(q.html, lines[i].chart);
        char *d = series_d(fig, lines[i].cls), *d2 = series_d(fig2, lines[i].cls);
        CU_ASSERT_FATAL(d != NULL && d2 != NULL);
        CU_ASSERT_EQUAL(count(d, "M"), 2);
        CU_ASSERT_EQUAL(count(d2, "M"), 1);
        struct pts *pt = malloc(sizeof *pt);
        parse_d(d, pt);
        /* the second subpath starts at 80 s, the first ends at 59 s */
        size_t k = 1;
        while (k < pt->n && !pt->move[k])
            k++;
        CU_ASSERT_FATAL(k < pt->n);
        CHECK_NEAR(x_at(fig, pt->x[k]), 80, 0.3);
        CHECK_NEAR(x_at(fig, pt->x[k - 1]), 59, 0.3);
        free(pt);
        free(d);
        free(d2);
        free(fig);
        free(fig2);
    }
    /* the flat 50% line of GPU 0 sits at 50 */
    char *fig = figure(p.html, "gpu-util");
    char *d = series_d(fig, "g0");
    struct pts *pt = malloc(sizeof *pt);
    parse_d(d, pt);
    for (size_t i = 0; i < pt->n; i++)
        CHECK_NEAR(value_at(fig, pt->y[i]), 50, 0.1);
    free(pt);
    free(d);
    free(fig);
    /* the reading notes: the gaps of each file (hw_metrics.csv: of each GPU's rows) and of
     * each GPU's power, as the JSON counts them */
    CU_ASSERT(strstr(p.html, "hw_metrics.csv: 2 gaps in sampling (interval 1 s)") != NULL);
    CU_ASSERT(strstr(p.html, "cpu_metrics.csv: 1 gap in sampling (interval 1 s)") != NULL);
    CU_ASSERT(strstr(p.html, "GPU 0: 1 gap in power (21 s not bridged; interval 1 s)") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"gaps\" data-n=\"2\"") != NULL);
    CU_ASSERT(strstr(q.html, "No problems found while reading.") != NULL);
    /* train (20 to 100 s) holds the gap: its energy is of 59 s of its 80, and says so */
    CU_ASSERT_EQUAL(count(p.html, ">GPU energy partly</small>"), 1);
    CU_ASSERT(strstr(p.html, "title=\"GPU energy over 59") != NULL);
    CU_ASSERT_EQUAL(count(q.html, ">GPU energy partly</small>"), 0);
    free(p.html);
    free(q.html);
    th_rmtree(dir);
    th_rmtree(dir2);
    free(dir);
    free(dir2);
}

/* Files hwmon did not write are left out: a CPU-only run has only the CPU charts. */
static void test_structure_partial(void)
{
    char *dir = th_tmpdir("html-cpuonly");
    struct gen_run g = {.t0 = T0, .seconds = 30, .interval = 0.5, .ngpus = 0, .cpu = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL(p.rc, 0);
    CU_ASSERT_EQUAL(count(p.html, "<figure class=\"chart\""), 1);
    CU_ASSERT(strstr(p.html, "id=\"cpu\"") != NULL);
    CU_ASSERT_EQUAL(count(p.html, "<rect class=\"band "), 0);
    free(p.html);
    /* an empty directory gives a page with no chart, not an error */
    char *empty = th_tmpdir("html-empty");
    struct page e = {0};
    render(&e, empty, 0);
    CU_ASSERT_EQUAL(e.rc, 0);
    CU_ASSERT_EQUAL(count(e.html, "<figure class=\"chart\""), 0);
    CU_ASSERT(strstr(e.html, "No samples, phases or events") != NULL);
    CU_ASSERT(strstr(e.html, "1970") == NULL);
    CU_ASSERT(strstr(e.html, "</html>") != NULL);
    free(e.html);
    th_rmtree(dir);
    th_rmtree(empty);
    free(dir);
    free(empty);
}

/* A run with nvidia-smi dmon's file only (with -o DT, so its rows have times): the GPU charts
 * come from it and say so. */
static void test_structure_dmon(void)
{
    char *dir = th_tmpdir("html-dmon");
    FILE *f;
    char *path = th_fmt("%s/hw_dmon.csv", dir);
    CU_ASSERT_FATAL((f = fopen(path, "w")) != NULL);
    for (int i = 0; i < 60; i++) {
        if (i % 20 == 0)
            fputs("#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  "
                  "pclk\n"
                  "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %   MHz   "
                  "MHz\n",
                  f);
        for (int g = 0; g < 2; g++)
            fprintf(
                f, " 20261122   08:40:%02d  %5d %5d    40     -  %4d  %4d     0     0  5001  %4d\n",
                i, g, 100 + g * 50, 40 + i % 10, 20, 1500);
    }
    fclose(f);
    free(path);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    CU_ASSERT_EQUAL(count(p.html, "<figure class=\"chart\""), 4);
    char *util = figure(p.html, "gpu-util");
    CU_ASSERT_FATAL(util != NULL);
    CU_ASSERT(strstr(util, "from hw_dmon.csv") != NULL);
    char *d = series_d(util, "g1");
    CU_ASSERT(d != NULL);
    free(d);
    CHECK_NEAR(attr_num(util, "data-x1"), 59, 1e-6);
    free(util);
    char *pw = figure(p.html, "gpu-power");
    CU_ASSERT_FATAL(pw != NULL);
    CHECK_NEAR(attr_num(pw, "data-y1"), 150, 1e-9); /* 100 and 150 W */
    free(pw);
    CU_ASSERT(strstr(p.html, "id=\"gpu-clock\"") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"gpu-memutil\"") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"gpu-mem\"") == NULL);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* GPM (hw_gpm.csv): SM activity dashed next to utilization, tensor activity in a chart of its
 * own; a GPU whose GPM cells are `-` gets no GPM line; without the file, neither. */
static void test_structure_gpm(void)
{
    for (int with = 0; with < 2; with++) {
        char *dir = th_tmpdir("html-gpm");
        FILE *q, *f = NULL;
        char *qp = th_fmt("%s/hw_metrics.csv", dir), *fp = th_fmt("%s/hw_gpm.csv", dir);
        CU_ASSERT_FATAL((q = fopen(qp, "w")) != NULL);
        CU_ASSERT_FATAL(!with || (f = fopen(fp, "w")) != NULL);
        for (int i = 0; i < 60; i++) {
            for (int g = 0; g < 2; g++)
                fprintf(q, "2026/11/22 08:40:%02d.000, 90, 5, 1000, 81559, 300.00, 50, 1980, "
                        "2619, %d, GPU-%d\n", i, g, g);
            if (!f)
                continue;
            if (i % 20 == 0)
                fputs("#Date       Time        gpu     sm    mem    enc    dec    jpg    ofa"
                      "      gract    smutil     smocc    mmaact      dram      fp64      fp32"
                      "      fp16\n#YYYYMMDD   HH:MM:SS    Idx      %      %      %      %"
                      "      %      %      GPM:%     GPM:%     GPM:%     GPM:%     GPM:%     GPM:%"
                      "     GPM:%     GPM:%\n",
                      f);
            fprintf(f, " 20261122   08:40:%02d      0     90      5      0      0      0      0"
                       "          -         -         -         -         -         -         -"
                       "         -\n",
                    i);
            fprintf(f, " 20261122   08:40:%02d      1     90      5      0      0      0      0"
                       "         90        30        20        12        40         0         5"
                       "         9\n",
                    i);
        }
        fclose(q);
        if (f)
            fclose(f);
        struct page p = {0};
        render(&p, dir, 0);
        CU_ASSERT_EQUAL_FATAL(p.rc, 0);
        char *util = figure(p.html, "gpu-util");
        CU_ASSERT_FATAL(util != NULL);
        CU_ASSERT_EQUAL(strstr(util, "dashed: SM activity") != NULL, with);
        CU_ASSERT_EQUAL(count(util, "<path class=\"ln g0"), 1);
        CU_ASSERT_EQUAL(count(util, "<path class=\"ln g1"), (size_t)(1 + with));
        char *ten = figure(p.html, "gpu-tensor");
        CU_ASSERT_EQUAL(ten != NULL, with);
        if (ten) {
            char *d = series_d(ten, "g1");
            CU_ASSERT_FATAL(d != NULL);
            struct pts *pt = malloc(sizeof *pt);
            parse_d(d, pt);
            CU_ASSERT(pt->n > 0);
            for (size_t i = 0; i < pt->n; i++)
                CHECK_NEAR(value_at(ten, pt->y[i]), 12, 0.1);
            CU_ASSERT_PTR_NULL(series_d(ten, "g0"));
            free(pt);
            free(d);
        }
        free(ten);
        free(util);
        free(p.html);
        free(qp);
        free(fp);
        th_rmtree(dir);
        free(dir);
    }
}

/* Thousands of short phases (one per training step), more than SUM_MAX_PHASES: the strip draws
 * every one by name, sub-pixel neighbours one band that counts them; in the charts, touching
 * bands of the first phases of one name are one rect. */
static void test_structure_many_phases(void)
{
    char *dir = th_tmpdir("html-steps");
    struct gen_run g = {.t0 = T0, .seconds = 100, .interval = 1, .ngpus = 1, .cpu = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    char *path = th_fmt("%s/run.jsonl", dir);
    FILE *f = fopen(path, "a");
    CU_ASSERT_FATAL(f != NULL);
    for (int i = 0; i < 5000; i++) {
        char ts[40];
        gen_iso(ts, sizeof ts, T0 + 0.02 * (i + 1));
        fprintf(f, "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"step\", \"seconds\": 0.02}\n",
                ts);
    }
    fclose(f);
    free(path);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    /* 5000 steps of 0.02 s back to back, narrower than a column (0.11 s): one band in the
     * strip, from 0 to 100 s, that counts them all */
    CU_ASSERT_EQUAL(count(p.html, "<g class=\"ph "), 1);
    CU_ASSERT(strstr(p.html, "<title>step \xC3\x97" "5000: 0 s to 100 s (") != NULL);
    CU_ASSERT(strstr(p.html, "5000 phases of 1 name, drawn by name;") != NULL);
    CU_ASSERT(strstr(p.html, "not drawn") == NULL);
    CU_ASSERT(strstr(p.html, ">step</text>") != NULL); /* its lane's name */
    size_t charts = count(p.html, "<figure class=\"chart\"");
    CU_ASSERT_EQUAL(charts, 6);
    CU_ASSERT_EQUAL(count(p.html, "<rect class=\"band "), charts);
    CU_ASSERT(p.len < 2u * 1024 * 1024);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* Past SUM_MAX_PHASES the strip has a lane per name (the first HT_MAX_NAME_LANES): entries
 * denser than pixels one band counting them, sparser ones a band each, and the names beyond
 * the lanes said, not drawn. */
static void test_structure_name_lanes(void)
{
    char *dir = th_tmpdir("html-lanes");
    struct gen_run g = {.t0 = T0, .seconds = 100, .interval = 1, .ngpus = 1, .cpu = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    for (int i = 0; i < 1000; i++) /* 10 s of steps of 10 ms, back to back */
        CU_ASSERT_FATAL(gen_phase(dir, T0 + 0.01 * (i + 1), 0.01, "step") == 0);
    for (int k = 1; k <= 9; k++) /* an eval of 1 s every 10 s: 9 columns wide each */
        CU_ASSERT_FATAL(gen_phase(dir, T0 + 10.0 * k + 1, 1, "eval") == 0);
    for (int k = 2; k <= 9; k++) { /* 8 names more, once each */
        char name[8];
        snprintf(name, sizeof name, "x%d", k);
        CU_ASSERT_FATAL(gen_phase(dir, T0 + 95, 2, name) == 0);
    }
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    CU_ASSERT(strstr(p.html, "1017 phases of 10 names, drawn by name (the first 8);") != NULL);
    CU_ASSERT_EQUAL(count(p.html, "<g class=\"ph "), 1 + 9 + (HT_MAX_NAME_LANES - 2));
    CU_ASSERT(strstr(p.html, "<title>step \xC3\x97" "1000: 0 s to 10 s (") != NULL);
    CU_ASSERT_EQUAL(count(p.html, "<title>eval: "), 9);
    CU_ASSERT(strstr(p.html, "<title>eval: 30 s to 31 s (") != NULL);
    CU_ASSERT(strstr(p.html, "<title>x7: ") != NULL);
    CU_ASSERT(strstr(p.html, "<title>x8") == NULL); /* beyond the lanes */
    CU_ASSERT(strstr(p.html, ">x7</text>") != NULL);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* ---- suite: escape --------------------------------------------------------------------------- */

/* The run page says at its top what the run was given and what it reached (issue 37): the
 * config event's params and the last value of each metric, escaped as every name is. */
static void test_params_at_top(void)
{
    char *dir = th_tmpdir("html-params");
    struct gen_run g = {.t0 = T0, .seconds = 10, .interval = 1, .ngpus = 1, .cpu = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    CU_ASSERT(gen_event(dir, T0 + 1, "config", "{\"lr\": 0.0003, \"model\": \"<b>x</b>\"}") == 0);
    CU_ASSERT(gen_event(dir, T0 + 4, "metric", "{\"acc\": 0.5}") == 0);
    CU_ASSERT(gen_event(dir, T0 + 8, "metric", "{\"acc\": 0.91, \"loss\": 1.25}") == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    const char *params = strstr(p.html, "id=\"params\""), *metrics = strstr(p.html, "id=\"metrics\"");
    const char *charts = strstr(p.html, "<main");
    CU_ASSERT_FATAL(params && metrics && charts);
    CU_ASSERT(params < charts && metrics < charts); /* at the top, before the charts */
    CU_ASSERT(strstr(params, "lr <b>0.0003</b>") != NULL);
    CU_ASSERT(strstr(params, "model <b>&quot;&lt;b&gt;x&lt;/b&gt;&quot;</b>") != NULL);
    CU_ASSERT(strstr(metrics, "acc <b>0.91</b>") != NULL); /* the last value */
    CU_ASSERT(strstr(metrics, "loss <b>1.25</b>") != NULL);
    CU_ASSERT_EQUAL(count_ci(p.html, "<b>x</b>"), 0);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

static void test_escape_names(void)
{
    char *dir = th_tmpdir("html-esc");
    struct gen_run g = {.t0 = T0, .seconds = 20, .interval = 1, .ngpus = 1, .cpu = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    CU_ASSERT(gen_phase(dir, T0 + 5, 5, "<script>alert(1)</script>") == 0);
    CU_ASSERT(gen_phase(dir, T0 + 10, 5, "a \\\"quoted\\\" & 'apos'") == 0);
    CU_ASSERT(gen_phase(dir, T0 + 15, 5, "bad\xff\xfeutf8 \\u0001ctl \xc3\x28 \xed\xa0\x80") == 0);
    CU_ASSERT(gen_phase(dir, T0 + 20, 5, "caf\xc3\xa9 \xe2\x9c\x93 ok") == 0);
    CU_ASSERT(gen_event(dir, T0 + 3, "<img src=x onerror=alert(1)>", NULL) == 0);
    CU_ASSERT(gen_event(dir, T0 + 1, "start",
                        "{\"host\": \"\\\"><script>alert(2)</script>\", \"command\": "
                        "[\"</code><script>\", \"&amp;\"]}") == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    CU_ASSERT_EQUAL(count_ci(p.html, "<script"), 0);
    CU_ASSERT_EQUAL(count_ci(p.html, "<img"), 0);
    CU_ASSERT(strstr(p.html, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
    CU_ASSERT(strstr(p.html, "a &quot;quoted&quot; &amp; &#39;apos&#39;") != NULL);
    /* each bad byte becomes U+FFFD; a control character too; valid UTF-8 is kept */
    CU_ASSERT(strstr(p.html, "bad\xEF\xBF\xBD\xEF\xBF\xBDutf8 \xEF\xBF\xBD"
                             "ctl \xEF\xBF\xBD(") != NULL);
    CU_ASSERT(strstr(p.html, "caf\xc3\xa9 \xe2\x9c\x93 ok") != NULL);
    CU_ASSERT(strstr(p.html, "&lt;img src=x onerror=alert(1)&gt;") != NULL);
    CU_ASSERT(strstr(p.html, "&quot;&gt;&lt;script&gt;alert(2)") != NULL);
    CU_ASSERT(strstr(p.html, "&lt;/code&gt;&lt;script&gt; &amp;amp;") != NULL);
    CU_ASSERT(clean_utf8((const unsigned char *)p.html, p.len));
    /* the tables are escaped too (they list the same phase and event names) */
    const char *tables = strstr(p.html, "id=\"t-phases\"");
    CU_ASSERT_FATAL(tables != NULL);
    CU_ASSERT(strstr(tables, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
    CU_ASSERT(strstr(tables, "&lt;img src=x onerror=alert(1)&gt;") != NULL);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* ---- suite: downsample ----------------------------------------------------------------------- */

struct spike {
    long at_up, at_down;
};

static void spike_values(void *ctx, int gpu, long i, double rel, double v[GV_COUNT])
{
    const struct spike *s = ctx;
    (void)gpu, (void)rel;
    v[GV_UTIL] = i == s->at_up ? 97 : 10;
    v[GV_MEMUTIL] = 5;
    v[GV_MEMUSED] = 1000;
    v[GV_MEMTOTAL] = 16000;
    v[GV_POWER] = i == s->at_down ? 5 : 250;
    v[GV_TEMP] = 40;
    v[GV_SMCLK] = 1000;
    v[GV_MEMCLK] = 1000;
}

/* One day at 1 Hz (about 98 samples per pixel column): a single sample up, another down,
 * both survive, and the flat rest costs almost nothing. */
static void test_downsample_spike(void)
{
    char *dir = th_tmpdir("html-spike");
    struct spike sp = {.at_up = 43210, .at_down = 12345};
    struct gen_run g = {.t0 = T0,
                        .seconds = 86400,
                        .interval = 1,
                        .ngpus = 1,
                        .gpu_values = spike_values,
                        .ctx = &sp};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    char *fig = figure(p.html, "gpu-util");
    char *d = series_d(fig, "g0");
    CU_ASSERT_FATAL(d != NULL);
    CU_ASSERT_EQUAL(count(d, "M"), 1);
    CU_ASSERT(strlen(d) < 400);
    struct pts *pt = malloc(sizeof *pt);
    parse_d(d, pt);
    double vmax = -1, tmax = NAN;
    for (size_t i = 0; i < pt->n; i++) {
        double v = value_at(fig, pt->y[i]);
        if (v > vmax) {
            vmax = v;
            tmax = x_at(fig, pt->x[i]);
        }
    }
    CHECK_NEAR(vmax, 97, 0.2);
    CHECK_NEAR(tmax, 43210, 86400.0 / 880);
    free(d);
    free(fig);
    fig = figure(p.html, "gpu-power");
    d = series_d(fig, "g0");
    CU_ASSERT_FATAL(d != NULL);
    parse_d(d, pt);
    double vmin = 1e9;
    for (size_t i = 0; i < pt->n; i++)
        vmin = fmin(vmin, value_at(fig, pt->y[i]));
    CHECK_NEAR(vmin, 5, 0.5);
    /* the resolution is stated: a day over the plot's columns */
    const char *res = strstr(p.html, "data-s-per-col=\"");
    CU_ASSERT_FATAL(res != NULL);
    double spc = strtod(res + 16, NULL);
    CU_ASSERT(spc > 86400.0 / 1000 && spc < 86400.0 / 800);
    free(pt);
    free(d);
    free(fig);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* A narrow chart has fewer columns and still keeps the spike. */
static void test_downsample_width(void)
{
    char *dir = th_tmpdir("html-narrow");
    struct spike sp = {.at_up = 777, .at_down = -1};
    struct gen_run g = {.t0 = T0,
                        .seconds = 3600,
                        .interval = 0.5,
                        .ngpus = 1,
                        .gpu_values = spike_values,
                        .ctx = &sp};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    struct page p = {0};
    render(&p, dir, SUM_HTML_WIDTH_MIN);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    char *fig = figure(p.html, "gpu-util");
    CU_ASSERT_FATAL(fig != NULL);
    CU_ASSERT(strstr(fig, "viewBox=\"0 0 320 ") != NULL);
    char *d = series_d(fig, "g0");
    struct pts *pt = malloc(sizeof *pt);
    parse_d(d, pt);
    double vmax = -1;
    for (size_t i = 0; i < pt->n; i++) {
        vmax = fmax(vmax, value_at(fig, pt->y[i]));
        CU_ASSERT(pt->x[i] >= 60 && pt->x[i] <= 320 - 58);
    }
    CHECK_NEAR(vmax, 97, 0.2);
    free(pt);
    free(d);
    free(fig);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* ---- suite: timeline (timeline.c's buckets) ------------------------------------------------- */

static struct rd_gpu_row tl_row(double t, double util)
{
    struct rd_gpu_row r = {.t = t, .gpu = 0};
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        r.v[m] = NAN;
    r.v[HW_GM_UTIL] = util;
    return r;
}

/* The bucket holding time t (or -1). */
static int tl_bucket(const struct sum_timeline *tl, double t)
{
    for (int b = 0; b < tl->nb; b++)
        if (t >= sum_tl_bucket_t(tl, b) && t < sum_tl_bucket_t(tl, b + 1))
            return b;
    return -1;
}

/* Buckets widen by doubling as samples go beyond them (memory stays 2 x columns), a one-sample
 * spike survives every merge, a sample before the anchor shifts the buckets, the step before a
 * bucket's first sample is kept for the gap rule, and a clock at 1970 is not placed. */
static void test_timeline_buckets(void)
{
    struct sum_timeline *tl = sum_tl_new(100, false);
    CU_ASSERT_FATAL(tl != NULL);
    CU_ASSERT_EQUAL(tl->nb, 200);
    struct rd_event start = {.t = T0, .name = "start"};
    sum_tl_event(tl, &start);
    CHECK_NEAR(tl->anchor, T0, 0);
    /* a day at 1 Hz with one spike and one 100 s hole */
    for (long i = 0; i < 86400; i++) {
        if (i >= 50000 && i < 50100)
            continue;
        struct rd_gpu_row r = tl_row(T0 + (double)i, i == 43210 ? 99 : 10);
        sum_tl_gpu_row(tl, &r);
    }
    /* the width is a power of two times the first, and the day fits in the buckets */
    CU_ASSERT(tl->width * tl->nb >= 86400 && tl->width * tl->nb / 2 < 86400);
    CU_ASSERT(tl->hi < tl->nb);
    const struct sum_tl_series *s = &tl->gpu[0]->s[SUM_TL_UTIL];
    CU_ASSERT_FATAL(s->cols != NULL);
    CU_ASSERT(s->any && s->vmax == 99 && s->vmin == 10);
    int b = tl_bucket(tl, T0 + 43210);
    CU_ASSERT_FATAL(b >= 0);
    CU_ASSERT_EQUAL(s->cols[b].max, 99);
    CU_ASSERT_EQUAL(s->cols[b].min, 10);
    uint64_t n = 0;
    for (int k = 0; k < tl->nb; k++)
        n += s->cols[k].n;
    CU_ASSERT_EQUAL(n, 86400 - 100);
    /* the bucket after the hole starts with the hole's step */
    b = tl_bucket(tl, T0 + 50100);
    CU_ASSERT_FATAL(b >= 0);
    if (sum_tl_bucket_t(tl, b) > T0 + 50099)
        CHECK_NEAR(s->cols[b].step, 101, 1e-3);
    /* a sample before the anchor: the buckets shift (or widen), nothing is lost */
    double w = tl->width;
    struct rd_gpu_row early = tl_row(T0 - 1000, 55);
    sum_tl_gpu_row(tl, &early);
    CU_ASSERT(tl->anchor <= T0 - 1000);
    CU_ASSERT(tl->width >= w);
    n = 0;
    for (int k = 0; k < tl->nb; k++)
        n += s->cols[k].n;
    CU_ASSERT_EQUAL(n, 86400 - 100 + 1);
    b = tl_bucket(tl, T0 + 43210);
    CU_ASSERT_FATAL(b >= 0);
    CU_ASSERT_EQUAL(s->cols[b].max, 99);
    b = tl_bucket(tl, T0 - 1000);
    CU_ASSERT_FATAL(b >= 0);
    CU_ASSERT_EQUAL(s->cols[b].first, 55);
    /* a clock at 1970 is counted, not placed */
    struct rd_gpu_row bad = tl_row(1.0, 5);
    sum_tl_gpu_row(tl, &bad);
    CU_ASSERT_EQUAL(tl->out_of_range, 1);
    CU_ASSERT(tl->anchor > T0 - 2000);
    sum_tl_free(tl);

    /* samples before the anchor from the start (no start event, the first sample anchors) */
    tl = sum_tl_new(10, false);
    CU_ASSERT_FATAL(tl != NULL);
    for (int i = 0; i < 100; i++) {
        struct rd_gpu_row r = tl_row(T0 - i * 10.0, (double)i);
        sum_tl_gpu_row(tl, &r);
    }
    s = &tl->gpu[0]->s[SUM_TL_UTIL];
    n = 0;
    for (int k = 0; k < tl->nb; k++)
        n += s->cols[k].n;
    CU_ASSERT_EQUAL(n, 100);
    CU_ASSERT(tl->anchor <= T0 - 990);
    CU_ASSERT(tl->width * tl->nb >= 990);
    CU_ASSERT_EQUAL(s->cols[tl_bucket(tl, T0 - 990)].first, 99);
    sum_tl_free(tl);
}

/* ---- suite: longrun -------------------------------------------------------------------------- */

/* A day at 10 Hz on 2 GPUs with CPU and process files (1.7 M GPU rows, ~330 MB): the page
 * stays small because every series is one bucket per column whatever the length. The
 * generated values vary every sample (the worst case: 4 points per column). */
static void test_longrun_size(void)
{
    char *dir = th_tmpdir("html-long");
    struct gen_run g = {.t0 = T0,
                        .seconds = 86400,
                        .interval = 0.1,
                        .ngpus = 2,
                        .cpu = true,
                        .proc = true,
                        .jsonl_start = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    CU_ASSERT(gen_phase(dir, T0 + 3600, 3600, "load") == 0);
    CU_ASSERT(gen_phase(dir, T0 + 86000, 82400, "train") == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    fprintf(stderr, "\n    long run (1 day, 10 Hz, 2 GPUs): page of %zu bytes\n", p.len);
    CU_ASSERT(p.len < 2u * 1024 * 1024);
    CU_ASSERT_EQUAL(count(p.html, "<figure class=\"chart\""), 8);
    /* bounded per series: at most 4 points per column, whatever the run's length */
    char *fig = figure(p.html, "gpu-util");
    char *d = series_d(fig, "g1");
    CU_ASSERT_FATAL(d != NULL);
    struct pts *pt = malloc(sizeof *pt);
    parse_d(d, pt);
    CU_ASSERT(pt->n <= 4 * 882 + 1);
    CU_ASSERT(pt->n > 882);
    /* the plain pattern spans 0..99 in every column */
    double vmax = 0;
    for (size_t i = 0; i < pt->n; i++)
        vmax = fmax(vmax, value_at(fig, pt->y[i]));
    CHECK_NEAR(vmax, 99, 0.2);
    CU_ASSERT(strstr(p.html, "\">h</text>") == NULL);
    CU_ASSERT(strstr(fig, "time since start [h]") != NULL);
    free(pt);
    free(d);
    free(fig);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* A training loop of 100 000 `step`s of 0.1 s (+ epoch, eval, train; tests/bench/bench_phases'
 * shape): the strip's sub-pixel steps become a few boxes, the charts' bands a few rects, and the
 * page stays under 1 MiB (before the boxes: 4096 strip rects, 1.33 MB). */
static void test_steps_size(void)
{
    char *dir = th_tmpdir("html-steps100k");
    struct gen_run g = {.t0 = T0,
                        .seconds = 2 + 100000 * 0.1 + 40 * 2.0,
                        .interval = 0.1,
                        .ngpus = 2,
                        .cpu = true,
                        .proc = true,
                        .jsonl_start = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    CU_ASSERT_FATAL(gen_steps(dir, T0 + 1, 100000, 0.1, NULL) == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    size_t boxes = count(p.html, "<g class=\"ph "), bands = count(p.html, "<rect class=\"band ");
    size_t charts = count(p.html, "<figure class=\"chart\"");
    fprintf(stderr, "\n    100 000 steps: page of %zu bytes, %zu strip boxes, %zu band rects\n",
            p.len, boxes, bands);
    CU_ASSERT(p.len < 1024u * 1024);
    CU_ASSERT(boxes <= 64);
    CU_ASSERT(bands <= 32 * charts);
    CU_ASSERT(strstr(p.html, "<title>step \xC3\x97") != NULL);
    CU_ASSERT(strstr(p.html, "data-count=\"100000\"><th><span class=\"sw p0\"></span>step</th>") !=
              NULL);
    CU_ASSERT(strstr(p.html, "data-count=\"40\"><th><span class=\"sw ") != NULL); /* eval */
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* Sanitizers keep freed memory aside and shadow what is used: peak RSS is theirs, not ours. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

/* summarize(1)'s bound for a million back-to-back steps, MiB of peak RSS (its DESCRIPTION). */
#define STEPS_RSS_BOUND_MIB 16

/* Issue 54: a phase per step, back to back. summarize's peak RSS does not grow with the steps
 * (200 000 against 2 000: each summarize child's own, wait4), for the JSON, the page and --live;
 * the default summary.json stays under 1 MB with the counts, and the page under 5 MB. Under a
 * sanitizer, whose allocator keeps freed blocks in quarantine (turned off for the child) and
 * adds shadow memory, only the growth is checked, not summarize(1)'s bound. */
static void test_back_to_back_bound(void)
{
    enum { N = 200000 };
    char *base = th_tmpdir("html-b2b");
    const char *bin = th_env("HWRUN_SUMMARIZE_BIN");
    const char *asan = getenv("ASAN_OPTIONS");
    char *asan_opts = th_fmt("%s%squarantine_size_mb=0", asan ? asan : "", asan ? ":" : "");
    setenv("ASAN_OPTIONS", asan_opts, 1);
    long n[2] = {N / 100, N}, rss[3][2] = {{0}};
    _Static_assert(N / 100 > SUM_PHASES_LISTED, "both past the listing's limit");
    for (int k = 0; k < 2; k++) {
        char *dir = th_fmt("%s/r%d", base, k), *json = th_fmt("%s/summary%d.json", base, k);
        char *html = th_fmt("%s/report%d.html", base, k);
        CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
        CU_ASSERT_FATAL(gen_back_to_back(dir, "step", T0, n[k], 0.001, NULL) == 0);
        struct gen_usage u;
        CU_ASSERT_FATAL(gen_measure((char *[]){(char *)bin, "-q", dir, NULL}, json, &u) == 0);
        CU_ASSERT_EQUAL(u.status, 0);
        rss[0][k] = u.maxrss_kib;
        fprintf(stderr, "\n    %ld steps: summary.json %lld bytes, %.3f s, peak RSS %.1f MiB", n[k],
                u.out_bytes, u.wall_s, (double)u.maxrss_kib / 1024);
        CU_ASSERT(u.out_bytes > 0 && u.out_bytes < 1000 * 1000);
        struct json_object *doc = json_object_from_file(json), *v;
        CU_ASSERT_FATAL(doc != NULL);
        CU_ASSERT(json_object_object_get_ex(doc, "phases_total", &v) &&
                  json_object_get_int64(v) == n[k]);
        /* past SUM_PHASES_LISTED the kept ones: steps of equal seconds, so the first is the
         * slowest and the fastest too (the earliest of equals), one entry */
        CU_ASSERT(json_object_object_get_ex(doc, "phases_listed", &v) &&
                  json_object_get_int64(v) == 1);
        CU_ASSERT_FATAL(json_object_object_get_ex(doc, "phases", &v) &&
                        json_object_array_length(v) == 1);
        const char *one = json_object_to_json_string_ext(json_object_array_get_idx(v, 0),
                                                         JSON_C_TO_STRING_PLAIN);
        CU_ASSERT(strstr(one, "\"kept\":[\"first\",\"slowest\",\"fastest\"]") != NULL);
        CU_ASSERT(strstr(one, "\"line\":2,") != NULL);
        json_object_put(doc);
        CU_ASSERT_FATAL(
            gen_measure((char *[]){(char *)bin, "-q", "--html", html, dir, NULL}, NULL, &u) == 0);
        CU_ASSERT_EQUAL(u.status, 0);
        rss[1][k] = u.maxrss_kib;
        struct stat sb;
        CU_ASSERT(stat(html, &sb) == 0 && sb.st_size < 5 * 1000 * 1000);
        fprintf(stderr, "; page %lld bytes, peak RSS %.1f MiB", (long long)sb.st_size,
                (double)u.maxrss_kib / 1024);
        /* the sweep row: a column per name's figure, not per entry */
        char *row = th_fmt("%s/row%d.jsonl", base, k);
        CU_ASSERT_FATAL(
            gen_measure((char *[]){(char *)bin, "-f", "jsonl", dir, NULL}, row, &u) == 0);
        CU_ASSERT(u.status == 0 && u.out_bytes > 0 && u.out_bytes < 16 * 1024);
        free(row);
        /* --live over the same day of steps: the view keeps the latest few, whatever the log */
        char *lines = th_fmt("%s/live%d.txt", base, k);
        CU_ASSERT_FATAL(gen_measure((char *[]){(char *)bin, "--live", "--plain", "--refresh",
                                               "0.1", dir, NULL},
                                    lines, &u) == 0);
        CU_ASSERT_EQUAL(u.status, 0);
        rss[2][k] = u.maxrss_kib;
        char *text = th_read_file(lines, NULL), *want = th_fmt(" phases=%ld\n", n[k]);
        CU_ASSERT(text && strstr(text, want) != NULL); /* it read them all, and ended */
        fprintf(stderr, "; --live peak RSS %.1f MiB", (double)u.maxrss_kib / 1024);
        free(text);
        free(want);
        free(lines);
        free(dir);
        free(json);
        free(html);
    }
    fputc('\n', stderr);
    for (int m = 0; m < 3; m++) {
        CU_ASSERT(rss[m][1] > 0 && rss[m][1] - rss[m][0] < 4 * 1024); /* flat: a few MiB */
        if (!UNDER_SANITIZER)
            CU_ASSERT(rss[m][1] < STEPS_RSS_BOUND_MIB * 1024);
    }
    if (asan)
        setenv("ASAN_OPTIONS", asan, 1);
    else
        unsetenv("ASAN_OPTIONS");
    free(asan_opts);
    th_rmtree(base);
    free(base);
}

/* Phases that failed or were killed are drawn apart in the strip, and the legend names how
 * (issue 49): a phase with an exit status, one with an exception, one killed by a signal. */
static void test_structure_phase_ends(void)
{
    char *dir = mkrun("html-phase-ends", false);
    char ts[40], line[512];
    static const struct {
        double end;
        const char *name, *extra;
    } ph[] = {{30, "prep", ", \"exit_status\": 2"},
              {50, "fit", ", \"exception\": \"ValueError\", \"exception_message\": \"nan\""},
              {70, "save", ", \"exit_status\": 143, \"signal\": 15"}};
    for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++) {
        gen_iso(ts, sizeof ts, T0 + ph[i].end);
        snprintf(line, sizeof line,
                 "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"%s\", \"seconds\": 5%s}",
                 ts, ph[i].name, ph[i].extra);
        CU_ASSERT_EQUAL_FATAL(gen_jsonl(dir, line), 0);
    }
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL(p.rc, 0);
    char *strip = figure(p.html, "phases");
    CU_ASSERT_FATAL(strip != NULL);
    CU_ASSERT_EQUAL(count(strip, "<g class=\"ph "), 6);
    CU_ASSERT_EQUAL(count(strip, " fail\"><title>"), 2);
    CU_ASSERT_EQUAL(count(strip, " killed\"><title>"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(strip, "<title>save: 65 s to 70 s (5 s), killed</title>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(strip, "data-end=\"fail\"><i class=\"sw fail\"></i>failed (2)"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(strip, "data-end=\"killed\"><i class=\"sw killed\"></i>killed (1)"));
    /* the good ones as before, and no legend where none failed */
    CU_ASSERT_PTR_NOT_NULL(strstr(strip, "<title>train: 20 s to 100 s (1 min 20 s)</title>"));
    free(strip);
    free(p.html);
    th_rmtree(dir);
    free(dir);
    char *good = mkrun("html-phase-good", false);
    render(&p, good, 0);
    CU_ASSERT_PTR_NULL(strstr(p.html, "class=\"key phend\""));
    free(p.html);
    th_rmtree(good);
    free(good);
}

/* ---- suite: sweep ---------------------------------------------------------------------------- */

static void test_sweep_page(void)
{
    char *base = th_tmpdir("html-sweep");
    char *r1 = th_fmt("%s/r1", base), *r2 = th_fmt("%s/r2", base),
         *r3 = th_fmt("%s/r3 <b>&\"", base), *r4 = th_fmt("%s/missing", base);
    CU_ASSERT_FATAL(mkdir(r1, 0755) == 0 && mkdir(r2, 0755) == 0 && mkdir(r3, 0755) == 0);
    make_basic_run(r1, true);
    make_basic_run(r2, false);
    make_basic_run(r3, false);
    const char *dirs[4] = {r1, r2, r3, r4};
    const char *names[4] = {"r1/report.html", NULL, "r 3#x?.html", NULL};
    struct page p = {0};
    render_sweep(&p, dirs, names, 4);
    CU_ASSERT_EQUAL(p.rc, 0);
    CU_ASSERT_FATAL(p.html != NULL);
    const char *body = strstr(p.html, "<tbody>");
    CU_ASSERT_FATAL(body != NULL);
    CU_ASSERT_EQUAL(count(body, "<tr id=\"run-"), 4);
    /* the sort script, once, and sortable headers: every cell of a row has one */
    CU_ASSERT_EQUAL(count_ci(p.html, "<script"), 1);
    CU_ASSERT(strstr(p.html, "addEventListener('click'") != NULL);
    const char *r1row = strstr(body, "<tr id=\"run-0\">");
    const char *r1end = r1row ? strstr(r1row, "</tr>") : NULL;
    CU_ASSERT_FATAL(r1row && r1end);
    char *r1text = strndup(r1row, (size_t)(r1end - r1row));
    CU_ASSERT_EQUAL(count(p.html, "<th class=\"sort"), count(r1text, "<td") + 1);
    free(r1text);
    /* the missing directory's row has as many cells */
    const char *r4row = strstr(body, "<tr id=\"run-3\">");
    const char *r4end = r4row ? strstr(r4row, "</tr>") : NULL;
    CU_ASSERT_FATAL(r4row && r4end);
    char *r4text = strndup(r4row, (size_t)(r4end - r4row));
    CU_ASSERT_EQUAL(count(p.html, "<th class=\"sort"), count(r4text, "<td") + 1);
    free(r4text);
    /* each run's status, with its reason; a bad one coloured */
    CU_ASSERT(strstr(p.html, "scope=\"col\">Status</th>") != NULL);
    CU_ASSERT(strstr(p.html, "script-src 'unsafe-inline'") != NULL);
    /* links, percent-encoded; names escaped */
    CU_ASSERT(strstr(p.html, "<a href=\"r1/report.html\">r1</a>") != NULL);
    CU_ASSERT(strstr(p.html, "class=\"sweepwrap\"") != NULL);
    CU_ASSERT(strstr(p.html, "<a href=\"r%203%23x%3F.html\">") != NULL);
    CU_ASSERT(strstr(p.html, "r3 &lt;b&gt;&amp;&quot;") != NULL);
    CU_ASSERT(strstr(p.html, "<b>&") == NULL);
    /* the summary's figures, sortable by their data-v */
    CU_ASSERT(strstr(p.html, "data-v=\"60\"") != NULL);    /* GPU util: 50 and 70 % */
    CU_ASSERT(strstr(p.html, "data-v=\"13.75\"") != NULL); /* Wh: 99 s at 200 + 300 W */
    /* a sparkline for each run with data; the missing directory says why */
    CU_ASSERT_EQUAL(count(p.html, "aria-label=\"GPU utilization\""), 3);
    CU_ASSERT(strstr(p.html, "No such file or directory") != NULL);
    /* the gap of r1 shows in its sparkline too */
    const char *row1 = strstr(body, "r1</a>");
    const char *spark = row1 ? strstr(row1, "<path class=\"ln spk\" d=\"") : NULL;
    CU_ASSERT_FATAL(spark != NULL);
    const char *end = strchr(spark + 24, '"');
    char *sd = strndup(spark + 24, (size_t)(end - spark - 24));
    CU_ASSERT_EQUAL(count(sd, "M"), 2);
    free(sd);
    CU_ASSERT(clean_utf8((const unsigned char *)p.html, p.len));
    free(p.html);
    th_rmtree(base);
    free(base);
    free(r1);
    free(r2);
    free(r3);
    free(r4);
}

/* ---- suite: errors --------------------------------------------------------------------------- */

static void test_errors(void)
{
    char err[256];
    struct sum_html_opts o;
    sum_html_opts_init(&o);
    struct sum_run *run;
    CU_ASSERT_EQUAL(sum_html_summarize("/nonexistent/run", &o, false, &run), -ENOENT);
    CU_ASSERT(run == NULL);
    char *tmp = th_tmpdir("html-notdir");
    char *file = th_fmt("%s/file", tmp);
    CU_ASSERT_FATAL(th_write_file(file, "x", 1) == 0);
    CU_ASSERT_EQUAL(sum_html_summarize(file, &o, false, &run), -ENOTDIR);
    th_rmtree(tmp);
    free(file);
    free(tmp);
    FILE *f = tmpfile();
    CU_ASSERT_FATAL(f != NULL);
    char *dir = mkrun("html-full", false);
    CU_ASSERT_EQUAL_FATAL(sum_html_summarize(dir, &o, false, &run), 0);
    CU_ASSERT_EQUAL(sum_html_run(NULL, run, &o, err, sizeof err), -EINVAL);
    CU_ASSERT_EQUAL(sum_html_run(f, NULL, &o, err, sizeof err), -EINVAL);
    o.width = 10;
    CU_ASSERT_EQUAL(sum_html_run(f, run, &o, err, sizeof err), -EINVAL);
    CU_ASSERT(strstr(err, "width") != NULL);
    CU_ASSERT_EQUAL(sum_html_cols(&o), -EINVAL);
    o.width = 2000; /* a timeline of another width */
    CU_ASSERT_EQUAL(sum_html_run(f, run, &o, err, sizeof err), -EINVAL);
    struct sum_sweep_row rows[1];
    CU_ASSERT_EQUAL(sum_html_sweep_take(&rows[0], dir, run, 0, NULL), 0);
    CU_ASSERT_EQUAL(sum_html_sweep(f, rows, 0, NULL, err, sizeof err), -EINVAL);
    CU_ASSERT_EQUAL(sum_html_sweep(f, NULL, 1, NULL, err, sizeof err), -EINVAL);
    /* err may be NULL */
    CU_ASSERT_EQUAL(sum_html_run(f, NULL, NULL, NULL, 0), -EINVAL);
    fclose(f);

    /* A failed write is an error with the reason. */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        int rc = sum_html_run(full, run, NULL, err, sizeof err);
        CU_ASSERT(rc == -ENOSPC || rc == -EIO);
        CU_ASSERT(strstr(err, "write error") != NULL);
        fclose(full);
        full = fopen("/dev/full", "w");
        rc = sum_html_sweep(full, rows, 1, NULL, err, sizeof err);
        CU_ASSERT(rc == -ENOSPC || rc == -EIO);
        fclose(full);
    }
    sum_html_sweep_row_free(&rows[0]);
    sum_run_free(run);
    /* A file that cannot be read is left out and said: the page is still written. */
    char *bad = th_fmt("%s/cpu_metrics.csv", dir);
    CU_ASSERT_FATAL(unlink(bad) == 0 && mkdir(bad, 0755) == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL(p.rc, 0);
    CU_ASSERT(strstr(p.err, "cpu_metrics.csv") != NULL);
    CU_ASSERT(strstr(p.html, "cpu_metrics.csv could not be read") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"cpu\"") == NULL);
    CU_ASSERT(strstr(p.html, "id=\"gpu-util\"") != NULL);
    free(p.html);
    free(bad);
    th_rmtree(dir);
    free(dir);
}

/* Broken files: bad lines, [N/A] cells, a partial last line, a garbage timestamp far away. */
static void test_errors_bad_input(void)
{
    char *dir = mkrun("html-bad", false);
    char *path = th_fmt("%s/hw_metrics.csv", dir);
    FILE *f = fopen(path, "a");
    CU_ASSERT_FATAL(f != NULL);
    fputs("garbage line\n\x01\x02\xff\n", f);
    fputs("1970/01/01 00:00:01.000, 5, 5, 5, 5, 5, 5, 5, 5, 0, GPU-x\n", f); /* far away */
    fputs("2026/11/22 08:42:00.000, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], 0, "
          "GPU-x\n",
          f);
    fputs("2026/11/22 08:41:59.500, 99999999999999999999999999999999999999999999, 5, 5, 5, 5, 5, "
          "5, 5, 1, GPU-y\n",
          f);                                  /* beyond a float */
    fputs("2026/11/22 08:42:01.000, 5, 5", f); /* partial */
    fclose(f);
    CU_ASSERT(gen_jsonl(dir, "{not json") == 0);
    CU_ASSERT(gen_jsonl(dir, "{\"ts\": \"2026-11-22T08:40:30+00:00\", \"type\": \"phase\", "
                             "\"name\": \"neg\", \"seconds\": -5}") == 0);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL(p.rc, 0);
    CU_ASSERT(strstr(p.html, "hw_metrics.csv ends in a partial line") != NULL);
    CU_ASSERT(strstr(p.html, "run.jsonl: 2 of") != NULL);
    CU_ASSERT(strstr(p.html, "hw_metrics.csv: 2 of") != NULL);
    /* the row from 1970 does not stretch the axis: still 0..120 s */
    char *fig = figure(p.html, "gpu-util");
    CU_ASSERT_FATAL(fig != NULL);
    CHECK_NEAR(attr_num(fig, "data-x1"), 120, 1e-6);
    CU_ASSERT(strstr(p.html, "1 rows with a time far from the rest") != NULL);
    free(fig);
    CU_ASSERT(clean_utf8((const unsigned char *)p.html, p.len));
    free(p.html);
    free(path);
    th_rmtree(dir);
    free(dir);
}

/* ---- suite: summary -------------------------------------------------------------------------- */

/* The real summary (summarize --format json) of a run, when the program is built. */
static struct json_object *real_summary(const char *dir)
{
    const char *bin = getenv("HWRUN_SUMMARIZE_BIN");
    if (!bin || access(bin, X_OK) != 0)
        return NULL;
    char *argv[] = {(char *)bin, "--format", "json", "-q", (char *)dir, NULL};
    struct th_result r;
    if (th_run(argv, NULL, NULL, 60, &r) != 0)
        return NULL;
    struct json_object *o = r.status == 0 ? json_tokener_parse(r.out) : NULL;
    th_result_free(&r);
    return o;
}

static void test_summary_tables(void)
{
    char *dir = mkrun("html-sum", true);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    CU_ASSERT(strstr(p.html, "<table class=\"kv\" id=\"t-run\">") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"t-gpus\"") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"t-phases\"") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"t-events\"") != NULL);
    CU_ASSERT(strstr(p.html, "id=\"t-errors\"") != NULL);
    CU_ASSERT_EQUAL(count(p.html, "<tr class=\"phase-row\">"), 3);
    const char *gt = strstr(p.html, "id=\"t-gpus\"");
    CU_ASSERT_FATAL(gt != NULL);
    CU_ASSERT_EQUAL(count(strstr(gt, "<tbody>"), "<tr>") - count(strstr(gt, "</tbody>"), "<tr>"),
                    2);
    CU_ASSERT(strstr(p.html, ">13.8 Wh</td>") != NULL || strstr(p.html, ">13.7 Wh</td>"));
    CU_ASSERT(strstr(p.html, "cpu_metrics.csv: 1 gap in sampling") != NULL);
    CU_ASSERT(strstr(p.html, "<details id=\"t-json\">") != NULL);
    CU_ASSERT(clean_utf8((const unsigned char *)p.html, p.len));
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

static double jnum(struct json_object *o, const char *k1, const char *k2);

/* The data-v values of the cells of the row of table table_id whose header is name, in order
 * (NAN for an empty one); returns how many, 0 if no such row. */
static size_t row_values(const char *html, const char *table_id, const char *name, double *v,
                         size_t max)
{
    char key[160];
    snprintf(key, sizeof key, "id=\"%s\"", table_id);
    const char *t = strstr(html, key);
    if (!t)
        return 0;
    const char *end = strstr(t, "</table>");
    snprintf(key, sizeof key, "</span>%s</th>", name);
    const char *r = strstr(t, key);
    if (!r || (end && r > end))
        return 0;
    const char *re = strstr(r, "</tr>");
    size_t n = 0;
    for (const char *c = r; n < max && (c = strstr(c, "data-v=\"")) && c < re; c += 8) {
        const char *q = c + 8;
        v[n++] = *q == '"' ? NAN : strtod(q, NULL);
    }
    return n;
}

/* The page's value equals the JSON's: the same double, or both unmeasured (null). */
static bool same_fig(double page, double json)
{
    if (isnan(page) || isnan(json))
        return isnan(page) && isnan(json);
    return fabs(page - json) <= 1e-12 * fmax(1, fabs(json));
}

/* A repeated phase name: the page shows "Phases by name" before the per-entry table, each cell
 * the value of the JSON's phase_names (summarize --format json). */
static void test_phase_names_table(void)
{
    char *dir = th_tmpdir("html-names");
    struct gen_run g = {.t0 = T0,
                        .seconds = 60,
                        .interval = 0.1,
                        .ngpus = 1,
                        .cpu = true,
                        .proc = true,
                        .jsonl_start = true};
    CU_ASSERT_FATAL(gen_write_run(dir, &g) == 0);
    CU_ASSERT(gen_phase(dir, T0 + 1, 1, "load") == 0);
    CU_ASSERT(gen_steps(dir, T0 + 1, 300, 0.1, NULL) == 0);  /* steps of 0.1 s */
    CU_ASSERT(gen_steps(dir, T0 + 35, 100, 0.2, NULL) == 0); /* then of 0.2 s: std > 0 */
    struct json_object *js = real_summary(dir);
    CU_ASSERT_FATAL(js != NULL);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    const char *agg = strstr(p.html, "id=\"t-phase-names\"");
    const char *entries = strstr(p.html, "id=\"t-phases\"");
    CU_ASSERT_FATAL(agg != NULL && entries != NULL);
    CU_ASSERT(agg < entries); /* the aggregate first */
    struct json_object *names = NULL;
    CU_ASSERT_FATAL(json_object_object_get_ex(js, "phase_names", &names));
    size_t n = json_object_array_length(names);
    CU_ASSERT_EQUAL(n, 4); /* load, step, epoch, train */
    CU_ASSERT_EQUAL(count(p.html, "<tr class=\"name-row\""), n);
    static const struct {
        const char *k1, *k2;
    } cols[] = {{"count", NULL},
                {"seconds", "total"},
                {"seconds", "mean"},
                {"seconds", "min"},
                {"seconds", "max"},
                {"seconds", "std"},
                {"energy_wh", NULL},
                {"gpu_util_mean_pct", NULL},
                {"peak_vram_mib", NULL},
                {"cpu_usr_mean_pct", NULL},
                {"proc_cpu_mean_pct", NULL},
                {"proc_peak_rss_mib", NULL}};
    size_t ncols = sizeof cols / sizeof cols[0];
    for (size_t i = 0; i < n; i++) {
        struct json_object *o = json_object_array_get_idx(names, i), *nm = NULL;
        CU_ASSERT_FATAL(json_object_object_get_ex(o, "name", &nm));
        double v[32];
        size_t got = row_values(p.html, "t-phase-names", json_object_get_string(nm), v, 32);
        CU_ASSERT_EQUAL_FATAL(got, ncols);
        for (size_t c = 0; c < ncols; c++) {
            double want = jnum(o, cols[c].k1, cols[c].k2);
            if (!same_fig(v[c], want))
                fprintf(stderr, "\n    %s %s.%s: page %.17g, JSON %.17g\n",
                        json_object_get_string(nm), cols[c].k1, cols[c].k2 ? cols[c].k2 : "", v[c],
                        want);
            CU_ASSERT(same_fig(v[c], want));
        }
        if (!strcmp(json_object_get_string(nm), "step")) {
            CU_ASSERT_EQUAL(jnum(o, "count", NULL), 400);
            CU_ASSERT(jnum(o, "seconds", "std") > 0.04);
        }
    }
    /* the per-entry table is still there, bounded as before */
    CU_ASSERT_EQUAL(count(p.html, "<tr class=\"phase-row\">"), 200);
    json_object_put(js);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* No name repeats: no aggregate table (each entry's row says it all). */
static void test_phase_names_single(void)
{
    char *dir = mkrun("html-names1", false);
    struct page p = {0};
    render(&p, dir, 0);
    CU_ASSERT_EQUAL_FATAL(p.rc, 0);
    CU_ASSERT(strstr(p.html, "id=\"t-phase-names\"") == NULL);
    CU_ASSERT(strstr(p.html, "id=\"t-phases\"") != NULL);
    free(p.html);
    th_rmtree(dir);
    free(dir);
}

/* ---- suite: browser -------------------------------------------------------------------------- */

static const char *find_chromium(void)
{
    static const char *const cand[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser",
                                       "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"};
    const char *env = getenv("HWRUN_CHROMIUM");
    if (env && *env)
        return access(env, X_OK) == 0 ? env : NULL;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
        if (access(cand[i], X_OK) == 0)
            return cand[i];
    return NULL;
}

/* Run chromium headless, off the network, on url with one more flag, its window size WxH;
 * returns its result. */
static int chromium_at(const char *bin, const char *profile, const char *size, const char *flag,
                       const char *url, struct th_result *r);
/* The DOM once the page's script and its frames' messages have run (virtual time). */
static int chromium_settled(const char *bin, const char *profile, const char *size,
                            const char *url, struct th_result *r)
{
    return chromium_at(bin, profile, size, "--virtual-time-budget=10000 --dump-dom", url, r);
}

static int chromium(const char *bin, const char *profile, const char *flag, const char *url,
                    struct th_result *r)
{
    return chromium_at(bin, profile, "1280,2000", flag, url, r);
}

static int chromium_at(const char *bin, const char *profile, const char *size, const char *flag,
                       const char *url, struct th_result *r)
{
    char *win = th_fmt("--window-size=%s", size);
    /* "A B": two flags */
    char *flag2 = NULL, *flag1 = strdup(flag);
    if (flag1 && strchr(flag1, ' ')) {
        flag2 = strchr(flag1, ' ');
        *flag2++ = '\0';
    }
    char *udd = th_fmt("--user-data-dir=%s", profile);
    char *argv[] = {(char *)bin,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--no-first-run",
                    "--disable-sync",
                    "--disable-dev-shm-usage",
                    "--hide-scrollbars",
                    udd,
                    win,
                    flag1,
                    flag2 ? flag2 : (char *)url,
                    flag2 ? (char *)url : NULL,
                    NULL};
    char *env[] = {th_fmt("HOME=%s", profile), NULL};
    int rc = th_run(argv, env, NULL, 90, r);
    free(env[0]);
    free(udd);
    free(win);
    free(flag1);
    return rc;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static bool is_png(const char *path)
{
    unsigned char sig[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(sig, 1, 8, f);
    fclose(f);
    return n == 8 && !memcmp(sig, "\x89PNG\r\n\x1a\n", 8);
}

static void test_browser(void)
{
    const char *bin = find_chromium();
    if (!bin) {
        th_skip("chromium not found (/usr/bin/chromium or $HWRUN_CHROMIUM): bash .ci/install-deps "
                "--browser installs Debian's");
        return;
    }
    char *dir = th_tmpdir("html-browser");
    char *run = th_fmt("%s/run", dir), *run2 = th_fmt("%s/run2", dir);
    CU_ASSERT_FATAL(mkdir(run, 0755) == 0 && mkdir(run2, 0755) == 0);
    CU_ASSERT_FATAL(gen_demo_run(run) == 0);
    make_basic_run(run2, true);

    /* the report, a sweep, and an empty page to compare the screenshot with */
    char *report = th_fmt("%s/report.html", run), *sweep = th_fmt("%s/sweep.html", dir),
         *blank = th_fmt("%s/blank.html", dir);
    struct page pr = {0}, ps = {0};
    render(&pr, run, 0);
    CU_ASSERT_EQUAL(pr.rc, 0);
    CU_ASSERT_EQUAL(th_write_file(report, pr.html, pr.len), 0);
    const char *dirs[2] = {run, run2};
    const char *names[2] = {"run/report.html", NULL};
    render_sweep(&ps, dirs, names, 2);
    CU_ASSERT_EQUAL(ps.rc, 0);
    CU_ASSERT_EQUAL(th_write_file(sweep, ps.html, ps.len), 0);
    free(pr.html);
    free(ps.html);
    CU_ASSERT_EQUAL(th_write_file(blank, "<!DOCTYPE html><title>blank</title>", 35), 0);

    /* the DOM as the browser built it: the charts and the tables are there */
    char *profile = th_fmt("%s/profile", dir);
    char *url = th_fmt("file://%s", report);
    struct th_result r;
    CU_ASSERT_FATAL(chromium(bin, profile, "--dump-dom", url, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(count(r.out, "<figure class=\"chart\""), NCHARTS);
    CU_ASSERT_EQUAL(count(r.out, "<svg"), NCHARTS + 1);
    CU_ASSERT(count(r.out, "<path class=\"ln ") >= 2 * 5 + 3);
    CU_ASSERT_EQUAL(count(r.out, "<g class=\"ph "), 7);
    CU_ASSERT(strstr(r.out, "id=\"t-quality\"") != NULL);
    CU_ASSERT(strstr(r.out, "id=\"t-run\"") != NULL);
    CU_ASSERT(strstr(r.out, "id=\"t-gpus\"") != NULL);
    CU_ASSERT_EQUAL(count(r.out, "<tr class=\"phase-row\">"), 7);
    th_result_free(&r);

    /* the sweep's script runs: #sort=3 sorts by duration ascending (run2: 120 s before run:
     * 900 s), #sort=-3 descending */
    free(url);
    url = th_fmt("file://%s#sort=3", sweep);
    CU_ASSERT_FATAL(chromium(bin, profile, "--dump-dom", url, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT(strstr(r.out, "data-sortable=\"ready\"") != NULL);
    CU_ASSERT(strstr(r.out, "aria-sort=\"ascending\"") != NULL);
    const char *a = strstr(r.out, ">run2<"), *b = strstr(r.out, ">run</a>");
    CU_ASSERT(a && b && a < b);
    th_result_free(&r);
    free(url);
    url = th_fmt("file://%s#sort=-3", sweep);
    CU_ASSERT_FATAL(chromium(bin, profile, "--dump-dom", url, &r) == 0);
    a = strstr(r.out, ">run2<"), b = strstr(r.out, ">run</a>");
    CU_ASSERT(a && b && b < a);
    CU_ASSERT(strstr(r.out, "aria-sort=\"descending\"") != NULL);
    th_result_free(&r);

    /* a screenshot that is not blank: much larger than the empty page's */
    char *shot = th_fmt("%s/report.png", dir), *shot0 = th_fmt("%s/blank.png", dir);
    char *flag = th_fmt("--screenshot=%s", shot), *flag0 = th_fmt("--screenshot=%s", shot0);
    free(url);
    url = th_fmt("file://%s", report);
    CU_ASSERT(chromium(bin, profile, flag, url, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    free(url);
    url = th_fmt("file://%s", blank);
    CU_ASSERT(chromium(bin, profile, flag0, url, &r) == 0);
    th_result_free(&r);
    long n = file_size(shot), n0 = file_size(shot0);
    fprintf(stderr, "\n    screenshot %ld bytes, blank page %ld bytes\n", n, n0);
    CU_ASSERT(is_png(shot));
    CU_ASSERT(is_png(shot0));
    CU_ASSERT(n0 > 0 && n > 10 * n0);
    /* keep it in the build tree for a look */
    const char *build = getenv("HWRUN_BUILD_DIR");
    if (build && n > 0) {
        char *keep = th_fmt("%s/tests/html/report-screenshot.png", build);
        size_t len;
        char *png = th_read_file(shot, &len);
        if (png)
            th_write_file(keep, png, len);
        free(png);
        free(keep);
    }
    free(shot);
    free(shot0);
    free(flag);
    free(flag0);
    free(url);

    /* at 1280 px nothing overflows the page (the phase table of the H100 run went to 1410 px):
     * a copy of each page with a script that writes the document's scrollWidth and clientWidth
     * into the DOM (the page itself runs no script: its CSP is left out of the copy) */
    const char *cases[] = {run, getenv("HWRUN_TESTDATA") ? th_fmt("%s/runs/h100-real",
                                                                  getenv("HWRUN_TESTDATA"))
                                                         : NULL};
    for (size_t c = 0; c < 2 && cases[c]; c++) {
        struct page pw = {0};
        render(&pw, cases[c], 0);
        char *csp = strstr(pw.html, "http-equiv=\"Content-Security-Policy\"");
        char *end = strstr(pw.html, "</body>");
        CU_ASSERT_FATAL(csp && end);
        memcpy(csp, "data-nocsp", 10); /* "http-equiv": a meta that says nothing */
        *end = '\0';
        char *copy = th_fmt("%s<script>document.body.setAttribute('data-w', "
                            "document.documentElement.scrollWidth + ' ' + "
                            "document.documentElement.clientWidth)</script></body></html>",
                            pw.html);
        char *wpath = th_fmt("%s/width%zu.html", dir, c);
        CU_ASSERT_EQUAL(th_write_file(wpath, copy, strlen(copy)), 0);
        url = th_fmt("file://%s", wpath);
        CU_ASSERT_FATAL(chromium(bin, profile, "--dump-dom", url, &r) == 0);
        const char *w = strstr(r.out, "data-w=\"");
        int sw = 0, cw = 0;
        CU_ASSERT(w && sscanf(w + 8, "%d %d", &sw, &cw) == 2);
        fprintf(stderr, "    page %zu at 1280 px: scrollWidth %d, clientWidth %d\n", c, sw, cw);
        CU_ASSERT(cw > 0 && sw <= cw);
        th_result_free(&r);
        free(url);
        free(wpath);
        free(copy);
        free(pw.html);
    }
    free((char *)cases[1]);
    free(profile);
    free(report);
    free(sweep);
    free(blank);
    free(run);
    free(run2);
    th_rmtree(dir);
    free(dir);
}

/* ---- suite: cli (summarize --html, through the built binary) -------------------------------- */

static int run_summarize(struct th_result *r, const char *const *args)
{
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)th_env("HWRUN_SUMMARIZE_BIN");
    for (; *args && n < 15; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    return th_run(argv, NULL, NULL, 60, r);
}
#define SUMMARIZE(r, ...) run_summarize((r), (const char *const[]){__VA_ARGS__, NULL})

static void test_cli_run_and_sweep(void)
{
    char *a = mkrun("html-cli-a", true), *b = mkrun("html-cli-b", false);
    char *out = th_tmpdir("html-cli-out");
    char *report = th_fmt("%s/report.html", a);
    struct th_result r;

    /* One run: only the page is written, nothing on stdout. */
    CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&r, "-q", "--html", report, a), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(r.out_len, 0);
    th_result_free(&r);
    size_t len = 0;
    char *html = th_read_file(report, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_EQUAL(count(html, "<figure class=\"chart\""), NCHARTS);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "Per phase")); /* the tables came from the summary */
    free(html);
    struct stat st;
    CU_ASSERT_EQUAL(stat(report, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0644);

    /* With --format, the usual output is printed as well. */
    char *page2 = th_fmt("%s/again.html", out);
    SUMMARIZE(&r, "-q", "--format", "csv", "--html", page2, a);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(th_count_lines(r.out), 2); /* header + one row */
    th_result_free(&r);

    /* A sweep: one row per run; a links to its report (relative to the page), b has none. */
    char *sweep = th_fmt("%s/sweep.html", out);
    SUMMARIZE(&r, "-q", "--html", sweep, a, b);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    html = th_read_file(sweep, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    char *base = strrchr(a, '/') + 1;
    char *link = th_fmt("href=\"../%s/report.html\"", base);
    CU_ASSERT_EQUAL(count(html, link), 1);
    CU_ASSERT_EQUAL(count(html, "report.html\""), 1);
    free(link);
    free(html);

    /* Usage and write errors. */
    SUMMARIZE(&r, "--html", sweep, "--format", "pytyche", a);
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    SUMMARIZE(&r, "--html");
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "summarize: option '--html' needs a value"));
    th_result_free(&r);
    SUMMARIZE(&r, "-q", "--html", "/no/such/dir/r.html", a);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "write /no/such/dir/r.html"));
    th_result_free(&r);

    free(sweep);
    free(page2);
    free(report);
    th_rmtree(out);
    th_rmtree(a);
    th_rmtree(b);
    free(out);
    free(a);
    free(b);
}

/* Every data-v="..." of html, in order, as one string (malloc'd). */
static char *data_vs(const char *html)
{
    size_t cap = strlen(html) + 1, len = 0;
    char *out = malloc(cap);
    CU_ASSERT_FATAL(out != NULL);
    for (const char *c = html; (c = strstr(c, "data-v=\"")); c += 8) {
        const char *q = strchr(c + 8, '"');
        size_t k = q ? (size_t)(q - c) + 1 : 8;
        memcpy(out + len, c, k);
        len += k;
    }
    out[len] = '\0';
    return out;
}

/* --units: the figures people read change unit, the data-* attributes do not. */
static void test_cli_units(void)
{
    char *a = mkrun("html-units-a", true), *b = mkrun("html-units-b", false);
    char *out = th_tmpdir("html-units-out");
    char *p1 = th_fmt("%s/plain.html", out), *p2 = th_fmt("%s/units.html", out);
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&r, "-q", "--html", p1, a), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&r, "-q", "--units", "mem=GiB,energy=kWh", "--html", p2, a), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *h1 = th_read_file(p1, NULL), *h2 = th_read_file(p2, NULL);
    CU_ASSERT_FATAL(h1 != NULL && h2 != NULL);
    /* the run table: 13.75 Wh, 0.0138 kWh; the process' peak RSS in GiB */
    CU_ASSERT(strstr(h1, ">13.8 Wh</td>") != NULL || strstr(h1, ">13.7 Wh</td>"));
    CU_ASSERT(strstr(h2, ">0.0138 kWh</td>") != NULL || strstr(h2, ">0.0137 kWh</td>"));
    CU_ASSERT(strstr(h2, " Wh</td>") == NULL);
    CU_ASSERT(strstr(h1, " MiB</td>") != NULL);
    CU_ASSERT(strstr(h2, " MiB</td>") == NULL);
    CU_ASSERT(strstr(h2, " GiB</td>") != NULL);
    /* the charts: the energy axis and legends in kWh, memory axes in GiB */
    char *pw1 = figure(h1, "gpu-power"), *pw2 = figure(h2, "gpu-power");
    CU_ASSERT_FATAL(pw1 != NULL && pw2 != NULL);
    CU_ASSERT(strstr(pw1, ">[Wh]</text>") != NULL);
    CU_ASSERT(strstr(pw2, ">[kWh]</text>") != NULL);
    CU_ASSERT(strstr(pw2, "GPU 0 \xC2\xB7 0.0055 kWh") != NULL);
    CHECK_NEAR(attr_num(pw2, "data-y2-1"), attr_num(pw1, "data-y2-1") / 1000, 1e-9);
    char *rss2 = figure(h2, "proc-rss");
    CU_ASSERT_FATAL(rss2 != NULL);
    CU_ASSERT(strstr(rss2, ">[GiB]</text>") != NULL);
    /* the data attributes keep the JSON's units */
    CU_ASSERT(attr_num(pw1, "data-energy-wh") > 13);
    CU_ASSERT_EQUAL(attr_num(pw1, "data-energy-wh"), attr_num(pw2, "data-energy-wh"));
    char *v1 = data_vs(h1), *v2 = data_vs(h2);
    CU_ASSERT(strlen(v1) > 100);
    CU_ASSERT_STRING_EQUAL(v1, v2);
    free(v1);
    free(v2);
    free(rss2);
    free(pw1);
    free(pw2);

    /* the sweep table: headers and cells in --units, data-v (sorting) in the JSON's */
    char *s1 = th_fmt("%s/s1.html", out), *s2 = th_fmt("%s/s2.html", out);
    CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&r, "-q", "--html", s1, a, b), 0);
    th_result_free(&r);
    CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&r, "-q", "--units", "mem=GiB,energy=kWh", "--html", s2, a, b),
                          0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *w1 = th_read_file(s1, NULL), *w2 = th_read_file(s2, NULL);
    CU_ASSERT_FATAL(w1 != NULL && w2 != NULL);
    CU_ASSERT(strstr(w1, "Energy <small>[Wh]</small>") != NULL);
    CU_ASSERT(strstr(w2, "Energy <small>[kWh]</small>") != NULL);
    CU_ASSERT(strstr(w2, "Peak VRAM <small>[GiB]</small>") != NULL);
    CU_ASSERT(strstr(w2, ">0.0138</td>") != NULL || strstr(w2, ">0.0137</td>"));
    v1 = data_vs(w1);
    v2 = data_vs(w2);
    CU_ASSERT_STRING_EQUAL(v1, v2);
    free(v1);
    free(v2);
    free(w1);
    free(w2);

    /* a bad --units with --html is a usage error, and nothing is written */
    char *p3 = th_fmt("%s/bad.html", out);
    CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&r, "--units", "mem=parsecs", "--html", p3, a), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--units"));
    th_result_free(&r);
    CU_ASSERT(access(p3, F_OK) != 0);

    free(p3);
    free(s1);
    free(s2);
    free(h1);
    free(h2);
    free(p1);
    free(p2);
    th_rmtree(out);
    th_rmtree(a);
    th_rmtree(b);
    free(out);
    free(a);
    free(b);
}

/* ---- suite: agree (the page states the JSON's figures) -------------------------------------- */

static double jnum(struct json_object *o, const char *k1, const char *k2)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, k1, &v))
        return NAN;
    if (k2 && (!v || !json_object_object_get_ex(v, k2, &v)))
        return NAN;
    return v ? json_object_get_double(v) : NAN;
}

/* The number after `key` in s (an attribute's value or the text after a label), NAN if none. */
static double num_after(const char *s, const char *key)
{
    const char *p = s ? strstr(s, key) : NULL;
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* hw_energy.csv: GPU 0's energy counter growing at watts from g's first sample to its last. */
static void write_counter(const char *dir, const struct gen_run *g, double watts)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, "timestamp,index,energy_mj,edge\n");
    for (double rel = 0; rel <= g->seconds + 1e-9; rel += g->interval) {
        char iso[64];
        gen_iso(iso, sizeof iso, g->t0 + rel);
        hw_buf_printf(&b, "%s,0,%.0f,\n", iso, 1e9 + watts * rel * 1000);
    }
    char *p = th_fmt("%s/%s", dir, HW_ENERGY_FILE);
    CU_ASSERT_EQUAL(th_write_file(p, b.p, b.len), 0);
    free(p);
    hw_buf_free(&b);
}

/* The page of DIR (summarize --html) against its JSON (summarize --format json): the energy
 * (exact in the data attribute, and the label to its shown digits, and where the energy line
 * ends), the sampling interval, the gap count and the breaks drawn in each GPU's power line, the
 * event markers. counter_w > 0: GPU 0 has an energy counter at that many watts, GPU 1 none. */
static void check_agree(const char *tag, const struct gen_run *g, double counter_w)
{
    char *dir = th_tmpdir(tag);
    CU_ASSERT_FATAL(gen_write_run(dir, g) == 0);
    if (counter_w > 0)
        write_counter(dir, g, counter_w);
    struct json_object *js = real_summary(dir);
    CU_ASSERT_FATAL(js != NULL);
    char *page = th_fmt("%s/report.html", dir);
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&r, "-q", "--html", page, dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_FATAL(html != NULL);
    char *pw = figure(html, "gpu-power");
    CU_ASSERT_FATAL(pw != NULL);

    double wh = jnum(js, "energy_wh", NULL);
    CU_ASSERT(isfinite(wh));
    /* the label, as shown (3 significant digits), then the exact value */
    double label = num_after(pw, "energy so far \xC2\xB7 ");
    CU_ASSERT(fabs(label - wh) <= 0.05 * pow(10, floor(log10(fabs(wh))) - 1) + 1e-9);
    if (fabs(label - wh) > 0.05 * pow(10, floor(log10(fabs(wh))) - 1) + 1e-9)
        fprintf(stderr, "\n    %s: page says %g Wh, JSON %.12g Wh\n", tag, label, wh);
    CU_ASSERT_EQUAL(num_after(pw, "data-energy-wh=\""), wh);

    struct json_object *gpus = NULL;
    CU_ASSERT_FATAL(json_object_object_get_ex(js, "gpus", &gpus) && gpus);
    size_t ng = json_object_array_length(gpus);
    CU_ASSERT_EQUAL(ng, (size_t)g->ngpus);
    double gaps = 0;
    for (size_t i = 0; i < ng; i++) {
        struct json_object *gp = json_object_array_get_idx(gpus, i);
        double ngap = jnum(gp, "energy", "gaps");
        gaps += ngap;
        /* one break in the power line per gap (each longer than a pixel column here) */
        char cls[24];
        snprintf(cls, sizeof cls, "g%zu", i);
        char *d = series_d(pw, cls);
        CU_ASSERT_FATAL(d != NULL);
        CU_ASSERT_EQUAL((double)count(d, "M") - 1, ngap);
        free(d);
        /* the GPU's label is its JSON energy, to the digits shown */
        char key[32];
        snprintf(key, sizeof key, "GPU %zu \xC2\xB7 ", i);
        double e = jnum(gp, "energy_wh", NULL);
        CU_ASSERT(fabs(num_after(pw, key) - e) <= 0.05 * pow(10, floor(log10(fabs(e))) - 1) + 1e-9);
    }
    struct json_object *g0 = json_object_array_get_idx(gpus, 0);
    if (counter_w > 0) { /* GPU 0's energy is its counter's, GPU 1's its power integrated */
        CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(g0, "energy_source")),
                               "counter");
        CHECK_NEAR(jnum(g0, "energy_wh", NULL), counter_w * g->seconds / 3600, 1e-6);
        /* the sweep row says its energy mixes readings */
        struct th_result rr;
        CU_ASSERT_EQUAL_FATAL(SUMMARIZE(&rr, "-q", "-f", "jsonl", dir), 0);
        struct json_object *row = json_tokener_parse(rr.out), *src = NULL;
        CU_ASSERT(row && json_object_object_get_ex(row, "energy_source", &src) &&
                  !strcmp(json_object_get_string(src), "mixed"));
        json_object_put(row);
        th_result_free(&rr);
    }
    CU_ASSERT_EQUAL(num_after(html, "id=\"interval\" data-s=\""), jnum(g0, "energy", "interval_sec"));
    CU_ASSERT_EQUAL(num_after(html, "id=\"gaps\" data-n=\""), gaps);
    /* the energy line breaks where GPU 0's power does, and ends at the JSON's energy (to the
     * 0.1 px the path is written in) */
    char *d = series_d(pw, "en");
    CU_ASSERT_FATAL(d != NULL);
    CU_ASSERT_EQUAL((double)count(d, "M") - 1, jnum(g0, "energy", "gaps"));
    struct pts *pt = malloc(sizeof *pt);
    CU_ASSERT_FATAL(pt != NULL);
    parse_d(d, pt);
    CU_ASSERT_FATAL(pt->n > 0);
    double e0 = attr_num(pw, "data-y2-0"), e1 = attr_num(pw, "data-y2-1");
    double last = e0 + (MT_PX + PLOT_PX - pt->y[pt->n - 1]) / PLOT_PX * (e1 - e0);
    if (!(fabs(last - wh) <= 0.051 * (e1 - e0) / PLOT_PX))
        fprintf(stderr, "\n    %s: the energy line ends at %g Wh, the JSON says %.12g Wh\n", tag,
                last, wh);
    CU_ASSERT(fabs(last - wh) <= 0.051 * (e1 - e0) / PLOT_PX);
    /* energy so far never falls, from the first samples on (while each GPU's first rows
     * waited for its interval it sawed between 0 and the early total): y only goes up the page */
    size_t falls = 0;
    for (size_t k = 1; k < pt->n; k++)
        falls += pt->y[k] > pt->y[k - 1] + 0.05;
    CU_ASSERT_EQUAL(falls, 0);
    free(pt);
    free(d);

    /* every event is a marker; the error-like ones are marked so */
    double total = jnum(js, "events", "total"), errors = jnum(js, "events", "errors_total");
    CU_ASSERT_EQUAL((double)(count(html, "<path class=\"ev\"") + count(html, "<path class=\"ev bad\"")),
                    total);
    CU_ASSERT_EQUAL((double)count(html, "<path class=\"ev bad\""), errors);
    CU_ASSERT_EQUAL(num_after(html, "id=\"n-events\" data-n=\""), total);
    CU_ASSERT_EQUAL(num_after(html, "id=\"t-events\" data-total=\""), total);

    free(pw);
    free(html);
    free(page);
    json_object_put(js);
    th_rmtree(dir);
    free(dir);
}

/* The generated runs of the agree suite: 600 s, 2 GPUs, CPU and process files, and each case's
 * trouble. */
static const struct agree_case {
    const char *tag;
    double interval, hint, gap_from, gap_to, restart_at, restart_delay;
    bool partial;
    double counter_w; /* GPU 0's energy counter (0: none) */
} agree_cases[] = {
    /* the user's case: the start event says 1 s, rows come every 0.5 s, with a 2 s hole */
    {"agree-hint", 0.5, 1.0, 300, 302, 0, 0, false},
    {"agree-nohint", 0.5, -1, 100, 130, 0, 0, false},     /* the interval from the rows */
    {"agree-holes", 1, 0, 200, 260, 0, 0, false},         /* a minute without samples */
    {"agree-restart", 0.5, 0, 0, 0, 250, 5, false},       /* a child restarted: a torn row */
    {"agree-truncated", 0.5, 0, 50, 60, 0, 0, true},      /* files end in a partial line */
    /* GPU 0 with an energy counter far from its power field: the line follows the counter */
    {"agree-counter", 0.5, 0, 0, 0, 0, 0, false, 900},
};

static void check_case(size_t i)
{
    const struct agree_case *c = &agree_cases[i];
    struct gen_run g = {.t0 = T0,
                        .seconds = 600,
                        .interval = c->interval,
                        .ngpus = 2,
                        .cpu = true,
                        .proc = true,
                        .jsonl_start = true,
                        .gpu_values = basic_values,
                        .hint_interval = c->hint,
                        .gap_from = c->gap_from,
                        .gap_to = c->gap_to,
                        .restart_at = c->restart_at,
                        .restart_delay = c->restart_delay,
                        .partial_last = c->partial};
    check_agree(c->tag, &g, c->counter_w);
}

static void test_agree_wrong_hint(void) { check_case(0); }
static void test_agree_no_hint(void) { check_case(1); }
static void test_agree_holes(void) { check_case(2); }
static void test_agree_restart(void) { check_case(3); }
static void test_agree_truncated(void) { check_case(4); }
static void test_agree_counter(void) { check_case(5); }

/* ---- registration ---------------------------------------------------------------------------- */

/* ---- suite: glance (issue 49: which run, and at what cost) ---------------------------------- */

static double th_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define GL_NLR 2
#define GL_NBS 3
#define GL_N (GL_NLR * GL_NBS)
#define GL_FAILED 4 /* lr0.0009-bs32 raises in its second epoch */

struct glance {
    char *base, *page, *html;
    char *dirs[GL_N];
    struct gen_sweep_run run[GL_N];
    double energy[GL_N]; /* what the generator drew: watts x seconds */
};

static void glance_make(struct glance *g)
{
    memset(g, 0, sizeof *g);
    g->base = th_tmpdir("html-glance");
    CU_ASSERT_FATAL(gen_sweep(g->base, GL_NLR, GL_NBS, GL_FAILED) == 0);
    for (int k = 0; k < GL_N; k++) {
        gen_sweep_run(GL_NLR, GL_NBS, GL_FAILED, k, &g->run[k]);
        g->dirs[k] = th_fmt("%s/%s", g->base, g->run[k].name);
        int bs = g->run[k].batch; /* gen_sweep's power and length */
        g->energy[k] = fmin(80 + 4.0 * bs, 650) * (20 + bs / 4) / 3600;
    }
    g->page = th_fmt("%s/sweep.html", g->base);
    struct th_result r;
    CU_ASSERT_FATAL(run_summarize(&r, (const char *const[]){"-q", "--html", g->page, g->dirs[0],
                                                             g->dirs[1], g->dirs[2], g->dirs[3],
                                                             g->dirs[4], g->dirs[5], NULL}) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    g->html = th_read_file(g->page, NULL);
    CU_ASSERT_FATAL(g->html != NULL);
}

static void glance_free(struct glance *g)
{
    for (int k = 0; k < GL_N; k++)
        free(g->dirs[k]);
    free(g->html);
    free(g->page);
    th_rmtree(g->base);
    free(g->base);
}

/* The non-dominated runs of (loss, energy), lower both, among those that ended ok: by brute
 * force, from what the generator wrote (not from the page's arithmetic). */
static void glance_front(const struct glance *g, bool on[GL_N])
{
    for (int i = 0; i < GL_N; i++) {
        on[i] = !g->run[i].failed;
        for (int j = 0; j < GL_N && on[i]; j++) {
            if (j == i || g->run[j].failed)
                continue;
            double ei = g->energy[i], ej = g->energy[j], li = g->run[i].loss, lj = g->run[j].loss;
            if (ej <= ei + 1e-9 && lj <= li && (ej < ei - 1e-9 || lj < li))
                on[i] = false;
        }
    }
}

/* The text of the first <figure> whose id starts with prefix (malloc'd), or NULL. */
static char *figure_of(const char *html, const char *prefix)
{
    char key[128];
    snprintf(key, sizeof key, "id=\"%s", prefix);
    const char *a = html ? strstr(html, key) : NULL;
    const char *b = a ? strstr(a, "</figure>") : NULL;
    return b ? strndup(a, (size_t)(b - a)) : NULL;
}

/* The default metric's plots: the <div class="bymetric"> not hidden (malloc'd text), or NULL. */
static char *shown_plots(const char *html)
{
    for (const char *p = html; (p = strstr(p, "<div class=\"bymetric\" data-metric=\""));) {
        const char *close = strchr(p, '>');
        if (close && !memmem(p, (size_t)(close - p), "hidden", 6)) {
            const char *end = strstr(close, "<div class=\"bymetric\"");
            if (!end)
                end = strstr(close, "</section>");
            return end ? strndup(p, (size_t)(end - p)) : NULL;
        }
        p++;
    }
    return NULL;
}

static void test_glance_page(void)
{
    struct glance g;
    glance_make(&g);
    const char *h = g.html;
    /* the params that vary are columns; those the same in every run are said once above */
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "title=\"param.lr (varies"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "title=\"param.batch (varies"));
    CU_ASSERT_PTR_NULL(strstr(h, "title=\"param.model"));
    CU_ASSERT_PTR_NULL(strstr(h, "title=\"param.seed"));
    const char *same = strstr(h, "id=\"same\"");
    CU_ASSERT(same && strstr(same, "model <b>resnet18</b>") && strstr(same, "seed <b>0</b>"));
    /* every metric a column, loss lower-is-better, acc higher */
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "title=\"metric.loss (its last value; lower is better)\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "title=\"metric.acc (its last value; higher is better)\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "title=\"metric.epoch"));
    /* the columns in order: Run, Status, params, metrics, then Energy */
    const char *st = strstr(h, ">Status</th>"), *lr = strstr(h, "title=\"param.lr"),
               *loss = strstr(h, "title=\"metric.loss"), *en = strstr(h, ">Energy <small>");
    CU_ASSERT(st && lr && loss && en && st < lr && lr < loss && loss < en);
    /* 4 significant digits for the metrics, the same down the column (0.3 to 0.7: 4 decimals) */
    for (int k = 0; k < GL_N; k++) {
        char cell[64];
        snprintf(cell, sizeof cell, "\">%.4f</td>", g.run[k].loss);
        CU_ASSERT_PTR_NOT_NULL(strstr(h, cell));
    }
    CU_ASSERT_PTR_NULL(strstr(h, "\">0.4750000")); /* no 17 digits */
    /* the failed run: its status says the exception, its metrics are its last good epoch's */
    const char *fr = strstr(h, "<span class=\"rn\">lr0.0009-bs32</span>");
    const char *fe = fr ? strstr(fr, "</tr>") : NULL;
    CU_ASSERT_FATAL(fr && fe);
    char *row = strndup(fr, (size_t)(fe - fr));
    CU_ASSERT_PTR_NOT_NULL(strstr(row, "class=\"badstatus\">failed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(row, "ValueError: loss diverged at lr 0.0009"));
    CU_ASSERT_PTR_NULL(strstr(row, "1000000")); /* the failed epoch's loss=1e6 is no metric */
    free(row);
    /* the rows' status_reason carries it too; metric.epoch is the last good epoch's */
    struct th_result r;
    CU_ASSERT_FATAL(run_summarize(&r, (const char *const[]){"-f", "jsonl", g.dirs[GL_FAILED],
                                                             NULL}) == 0);
    struct json_object *j = json_tokener_parse(r.out), *v;
    CU_ASSERT_FATAL(j != NULL);
    CU_ASSERT(json_object_object_get_ex(j, "status_reason", &v) &&
              strstr(json_object_get_string(v), "ValueError: loss diverged at lr 0.0009"));
    CU_ASSERT(json_object_object_get_ex(j, "metric.epoch", &v) && json_object_get_int(v) == 1);
    json_object_put(j);
    th_result_free(&r);
    /* the default metric (loss: epoch is a counter) against energy: one data-run element per
     * plotted run, the front exactly the non-dominated runs */
    char *shown = shown_plots(h);
    CU_ASSERT_FATAL(shown != NULL);
    char *fig = figure_of(shown, "scatter-energy-");
    CU_ASSERT_FATAL(fig != NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(fig, "data-metric=\"loss\""));
    CU_ASSERT_EQUAL(count(fig, "data-run=\""), GL_N);
    bool on[GL_N];
    glance_front(&g, on);
    size_t non = 0;
    for (int k = 0; k < GL_N; k++) {
        char key[128];
        snprintf(key, sizeof key, "data-run=\"%s\"", g.run[k].name);
        const char *p = strstr(fig, key);
        CU_ASSERT_FATAL(p != NULL);
        CU_ASSERT_EQUAL(count(fig, key), 1);
        const char *gt = strchr(p, '>');
        bool marked = gt && memmem(p, (size_t)(gt - p), "data-pareto=\"1\"", 15);
        if (marked != on[k])
            fprintf(stderr, "\n    %s: on the page's front %d, by brute force %d\n", g.run[k].name,
                    marked, on[k]);
        CU_ASSERT_EQUAL(marked, on[k]);
        non += on[k];
        /* the failed run drawn apart, hover names each */
        if (g.run[k].failed)
            CU_ASSERT(memmem(p - 60, 60, "pt bad", 6) != NULL);
    }
    CU_ASSERT(non >= 2); /* a trade-off, not one best run */
    CU_ASSERT_EQUAL(count(fig, "data-pareto=\"1\""), non);
    CU_ASSERT_PTR_NOT_NULL(strstr(fig, "<title>lr0.0003-bs16 (ok): loss "));
    CU_ASSERT_PTR_NOT_NULL(strstr(fig, "<a href=\"#run-0\">")); /* a click goes to its row */
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr id=\"run-0\">"));
    free(fig);
    /* the front listed; each varying param's rank correlation over the 5 good runs */
    char key[64];
    snprintf(key, sizeof key, "data-n=\"%zu\">Pareto front of loss", non);
    CU_ASSERT_PTR_NOT_NULL(strstr(shown, key));
    const char *imp = strstr(shown, "<tr data-param=\"batch\">");
    CU_ASSERT(imp && strstr(imp, "<td class=\"n\">5</td>"));
    /* batch goes with a lower loss in the generator: rho is negative */
    const char *rho = imp ? strstr(imp, "data-rho=\"") : NULL;
    CU_ASSERT(rho && strtod(rho + 10, NULL) < -0.5);
    CU_ASSERT_PTR_NOT_NULL(strstr(shown, "id=\"parallel-"));
    free(shown);
    CU_ASSERT(clean_utf8((const unsigned char *)h, strlen(h)));
    glance_free(&g);
}

/* The committed sweep of the README's picture (testdata/sweep, tests/html/sweep-screenshot.sh)
 * still draws as the picture shows: 9 runs plotted, one hollow, a front of several. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_glance_fixture(void)
{
    char *top = th_fmt("%s/sweep", th_env("HWRUN_TESTDATA"));
    DIR *d = opendir(top);
    CU_ASSERT_FATAL(d != NULL);
    char *dirs[16];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 16)
        if (e->d_name[0] != '.')
            dirs[n++] = th_fmt("%s/%s", top, e->d_name);
    closedir(d);
    qsort(dirs, n, sizeof *dirs, by_name);
    CU_ASSERT_EQUAL_FATAL(n, 9);
    char *out = th_tmpdir("html-fixture");
    char *page = th_fmt("%s/sweep.html", out);
    struct th_result r;
    const char *args[16] = {"-q", "--html", page};
    for (size_t i = 0; i < n; i++)
        args[3 + i] = dirs[i];
    args[3 + n] = NULL;
    CU_ASSERT_FATAL(run_summarize(&r, args) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *html = th_read_file(page, NULL);
    char *shown = html ? shown_plots(html) : NULL;
    char *fig = shown ? figure_of(shown, "scatter-energy-") : NULL;
    CU_ASSERT_FATAL(fig != NULL);
    CU_ASSERT_EQUAL(count(fig, "data-run=\""), 9);
    CU_ASSERT_EQUAL(count(fig, "class=\"pt bad\""), 1);
    CU_ASSERT(count(fig, "data-pareto=\"1\"") >= 2);
    free(fig);
    free(shown);
    free(html);
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    th_rmtree(out);
    free(out);
    free(page);
    free(top);
}

/* The page's arithmetic on its own: decimals, lower-is-better, the front with ties, Spearman. */
static void test_glance_arith(void)
{
    double a[] = {0.4750, 0.4155, NAN, 0.3127};
    CU_ASSERT_EQUAL(sum_sweep_decimals(a, 4, sizeof *a, 4), 4);
    double b[] = {1240, 1360};
    CU_ASSERT_EQUAL(sum_sweep_decimals(b, 2, sizeof *b, 3), 0);
    double c[] = {0.12340001, 0.12340005}; /* closer than 4 digits tell: more */
    CU_ASSERT_EQUAL(sum_sweep_decimals(c, 2, sizeof *c, 4), 8);
    double d[] = {123.456, 0.5};
    CU_ASSERT_EQUAL(sum_sweep_decimals(d, 2, sizeof *d, 4), 1);
    double e[] = {1e-7, 3e-7};
    CU_ASSERT_EQUAL(sum_sweep_decimals(e, 2, sizeof *e, 4), -1);
    CU_ASSERT(sum_sweep_lower_is_better("val_loss") && sum_sweep_lower_is_better("WER") &&
              sum_sweep_lower_is_better("ppl") && !sum_sweep_lower_is_better("accuracy") &&
              !sum_sweep_lower_is_better("score"));
    CU_ASSERT(sum_sweep_counter("epoch") && !sum_sweep_counter("loss"));
    /* equal energy: the better metric only; equal both: both; a failed run never */
    double m[] = {0.5, 0.4, 0.4, 0.3, 0.1, 0.2}, en[] = {1, 1, 2, 2, 5, 3};
    bool good[] = {true, true, true, true, false, true}, on[6];
    CU_ASSERT_EQUAL(sum_sweep_pareto(m, en, good, 6, true, on), 3);
    CU_ASSERT(!on[0] && on[1] && !on[2] && on[3] && !on[4] && on[5]);
    /* higher is better: the other end */
    CU_ASSERT_EQUAL(sum_sweep_pareto(m, en, good, 6, false, on), 1);
    CU_ASSERT(on[0] && !on[1]);
    size_t used;
    double x[] = {1, 2, 3, 4, NAN}, y[] = {10, 20, 30, 40, 1};
    CU_ASSERT_DOUBLE_EQUAL(sum_sweep_spearman(x, y, 5, &used), 1, 1e-12);
    CU_ASSERT_EQUAL(used, 4);
    double y2[] = {4, 3, 3, 1, 0}; /* ties share a rank */
    double rho = sum_sweep_spearman(x, y2, 5, &used);
    CU_ASSERT(rho < -0.9 && rho > -1);
    CU_ASSERT(isnan(sum_sweep_spearman(x, y, 2, &used)));
}

/* A copy of the sweep page with a script that measures it once laid out (the page allows inline
 * script): the document's scrollWidth and clientWidth, the right edge of the rightmost param or
 * metric header, the data-run elements of the metric shown against energy, and which metric
 * shows after the select switches to its last option. */
static const char glance_probe[] =
    "<script>(function(){var d=document.documentElement,r=0;"
    "document.querySelectorAll('#runs th.param,#runs th.metric').forEach(function(h){"
    "r=Math.max(r,h.getBoundingClientRect().right);});"
    "var n=document.querySelectorAll('.bymetric:not([hidden]) figure[data-x=energy_wh] "
    "[data-run]').length;var s=document.getElementById('metric');"
    "var before=document.querySelector('.bymetric:not([hidden])').getAttribute('data-metric');"
    "s.value=s.options[s.options.length-1].value;s.dispatchEvent(new Event('change'));"
    "var vis=document.querySelectorAll('.bymetric:not([hidden])');"
    "var m=d.scrollWidth+' '+d.clientWidth+' '+Math.ceil(r)+' '+n+"
    "' '+vis.length+' '+(vis[0].getAttribute('data-metric')===s.value?1:0)+' '+"
    "(before!==s.value?1:0);"
    "if(window.parent!==window)parent.postMessage(m,'*');"
    "else document.body.setAttribute('data-m',m);})();</script></body>";

/* A phone's width: headless chromium's window is at least 500 px wide, so the page is laid out
 * in a 390 x 844 frame, which reports back what the probe measured. */
static const char glance_phone[] =
    "<!DOCTYPE html><html><body style=\"margin:0\"><script>window.addEventListener('message',"
    "function(e){document.body.setAttribute('data-m',e.data);});</script><iframe "
    "src=\"probe.html\" width=\"390\" height=\"844\" style=\"border:0\"></iframe></body></html>\n";

static void test_glance_browser(void)
{
    const char *bin = find_chromium();
    if (!bin) {
        th_skip("chromium not found (/usr/bin/chromium or $HWRUN_CHROMIUM): bash .ci/install-deps "
                "--browser installs Debian's");
        return;
    }
    struct glance g;
    glance_make(&g);
    char *end = strstr(g.html, "</body>");
    CU_ASSERT_FATAL(end != NULL);
    *end = '\0';
    char *copy = th_fmt("%s%s</html>\n", g.html, glance_probe);
    char *probe = th_fmt("%s/probe.html", g.base), *profile = th_fmt("%s/profile", g.base);
    CU_ASSERT_EQUAL_FATAL(th_write_file(probe, copy, strlen(copy)), 0);
    char *phone = th_fmt("%s/phone.html", g.base);
    CU_ASSERT_EQUAL_FATAL(th_write_file(phone, glance_phone, strlen(glance_phone)), 0);
    char *urls[2] = {th_fmt("file://%s", probe), th_fmt("file://%s", phone)};
    static const char *const sizes[] = {"1280,800", "390,844"};
    for (size_t i = 0; i < 2; i++) {
        struct th_result r;
        CU_ASSERT_FATAL(chromium_settled(bin, profile, i ? "1280,1000" : sizes[i], urls[i], &r) ==
                        0);
        CU_ASSERT_EQUAL(r.status, 0);
        const char *m = strstr(r.out, "data-m=\"");
        int sw = 0, cw = 0, right = 0, nrun = 0, nvis = 0, switched = 0, other = 0;
        CU_ASSERT(m && sscanf(m + 8, "%d %d %d %d %d %d %d", &sw, &cw, &right, &nrun, &nvis,
                              &switched, &other) == 7);
        fprintf(stderr, "\n    sweep page at %s: scrollWidth %d, clientWidth %d, params and "
                        "metrics end at %d px, %d runs plotted",
                sizes[i], sw, cw, right, nrun);
        CU_ASSERT(cw > 0 && sw <= cw); /* the page never scrolls sideways */
        CU_ASSERT_EQUAL(nrun, GL_N);
        CU_ASSERT(nvis == 1 && switched == 1 && other == 1); /* the select switches the plots */
        if (i == 0) {
            CU_ASSERT(cw >= 1200); /* the window was as wide as asked */
            CU_ASSERT(right > 0 && right <= 1280);
        } else {
            CU_ASSERT(cw <= 400); /* a phone's width, not a desktop's minimum */
        }
        if (i == 0)
            CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "data-sortable=\"ready\""));
        th_result_free(&r);
    }
    free(urls[0]);
    free(urls[1]);
    free(phone);
    free(probe);
    free(profile);
    free(copy);
    glance_free(&g);
}

/* A job's page (two nodes: the H100 runs) on a phone: the page never scrolls sideways; the lanes
 * and the tables wider than the screen scroll in their own boxes (before, the nodes' table
 * widened the page and the lanes shrank to illegible). Measured in a 390 px frame. */
static const char width_probe[] =
    "<script>(function(){var d=document.documentElement,m=d.scrollWidth+' '+d.clientWidth+' '+"
    "document.querySelectorAll('.lanes svg').length;"
    "if(window.parent!==window)parent.postMessage(m,'*');"
    "else document.body.setAttribute('data-m',m);})();</script></body>";

static void test_job_phone(void)
{
    const char *bin = find_chromium(), *data = getenv("HWRUN_TESTDATA");
    if (!bin || !data) {
        th_skip(!bin ? "chromium not found (/usr/bin/chromium or $HWRUN_CHROMIUM): bash "
                       ".ci/install-deps --browser installs Debian's"
                     : "HWRUN_TESTDATA is not set (run the tests through ctest)");
        return;
    }
    char *base = th_tmpdir("html-job-phone"), *job = th_fmt("%s/job", base);
    CU_ASSERT_FATAL(mkdir(job, 0755) == 0);
    static const char *const runs[] = {"h100-real", "h100-real-sigterm"};
    for (int i = 0; i < 2; i++) {
        char *src = th_fmt("%s/runs/%s", data, runs[i]), *dst = th_fmt("%s/r%d", job, i);
        struct th_result r;
        CU_ASSERT_FATAL(th_run((char *[]){"/bin/cp", "-r", src, dst, NULL}, NULL, NULL, 30, &r) ==
                        0);
        CU_ASSERT_EQUAL(r.status, 0);
        th_result_free(&r);
        free(src);
        free(dst);
    }
    char *page = th_fmt("%s/job.html", base);
    struct th_result r;
    CU_ASSERT_FATAL(run_summarize(&r, (const char *const[]){"--html", page, job, NULL}) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_FATAL(html != NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "Phases across the nodes")); /* a job's page */
    /* the copy runs a script: the page's CSP left out ("http-equiv": a meta that says nothing) */
    char *csp = strstr(html, "http-equiv=\"Content-Security-Policy\"");
    char *end = strstr(html, "</body>");
    CU_ASSERT_FATAL(csp && end);
    memcpy(csp, "data-nocsp", 10);
    *end = '\0';
    char *copy = th_fmt("%s%s</html>\n", html, width_probe);
    char *probe = th_fmt("%s/probe.html", base), *phone = th_fmt("%s/phone.html", base);
    char *profile = th_fmt("%s/profile", base);
    CU_ASSERT_EQUAL_FATAL(th_write_file(probe, copy, strlen(copy)), 0);
    CU_ASSERT_EQUAL_FATAL(th_write_file(phone, glance_phone, strlen(glance_phone)), 0);
    char *url = th_fmt("file://%s", phone);
    CU_ASSERT_FATAL(chromium_settled(bin, profile, "1280,1000", url, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    const char *m = strstr(r.out, "data-m=\"");
    int sw = 0, cw = 0, lanes = 0;
    CU_ASSERT(m && sscanf(m + 8, "%d %d %d", &sw, &cw, &lanes) == 3);
    fprintf(stderr, "\n    job page at 390 px: scrollWidth %d, clientWidth %d", sw, cw);
    CU_ASSERT(cw > 0 && cw <= 400 && sw <= cw);
    CU_ASSERT_EQUAL(lanes, 1);
    th_result_free(&r);
    free(url);
    free(profile);
    free(phone);
    free(probe);
    free(copy);
    free(html);
    free(page);
    th_rmtree(base);
    free(job);
    free(base);
}

/* A thousand runs: the page is written in under 3 s and is under 5 MB (the summaries taken
 * before: the page's own work), and through the CLI as a whole. */
static void test_glance_thousand(void)
{
    char *base = th_tmpdir("html-thousand");
    CU_ASSERT_FATAL(gen_sweep(base, 10, 100, 17) == 0);
    size_t n = 1000;
    struct sum_sweep_row *rows = calloc(n, sizeof *rows);
    char **argv = calloc(n + 6, sizeof *argv);
    CU_ASSERT_FATAL(rows && argv);
    char *page = th_fmt("%s/sweep.html", base);
    argv[0] = (char *)th_env("HWRUN_SUMMARIZE_BIN");
    argv[1] = "-q";
    argv[2] = "--html";
    argv[3] = page;
    for (size_t k = 0; k < n; k++) {
        struct gen_sweep_run gr;
        gen_sweep_run(10, 100, 17, (int)k, &gr);
        char *dir = th_fmt("%s/%s", base, gr.name);
        struct sum_run *run;
        int rc = sum_html_summarize(dir, NULL, true, &run);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_EQUAL(sum_html_sweep_take(&rows[k], dir, run, rc, NULL), 0);
        sum_run_free(run);
        argv[4 + k] = dir;
    }
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    CU_ASSERT_FATAL(f != NULL);
    double t0 = th_now();
    CU_ASSERT_EQUAL(sum_html_sweep(f, rows, n, NULL, NULL, 0), 0);
    fclose(f);
    double took = th_now() - t0;
    fprintf(stderr, "\n    1000-run sweep page: %.3f s, %zu bytes", took, len);
    CU_ASSERT(took < 3.0);
    CU_ASSERT(len < 5u * 1000 * 1000);
    CU_ASSERT_EQUAL(count(html, "<tr id=\"run-"), n);
    char *shown = shown_plots(html);
    char *fig = shown ? figure_of(shown, "scatter-energy-") : NULL;
    CU_ASSERT_FATAL(fig != NULL);
    CU_ASSERT_EQUAL(count(fig, "data-run=\""), n);
    CU_ASSERT(count(fig, "data-pareto=\"1\"") >= 1);
    free(fig);
    free(shown);
    free(html);
    /* the whole command: every summary, then the page */
    struct th_result r;
    t0 = th_now();
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 300, &r) == 0);
    double cli = th_now() - t0;
    CU_ASSERT_EQUAL(r.status, 0);
    long size = file_size(page);
    fprintf(stderr, "; summarize --html of 1000 runs: %.2f s, %ld bytes\n", cli, size);
    CU_ASSERT(size > 0 && size < 5 * 1000 * 1000);
    th_result_free(&r);
    for (size_t k = 0; k < n; k++) {
        sum_html_sweep_row_free(&rows[k]);
        free(argv[4 + k]);
    }
    free(rows);
    free(argv);
    free(page);
    th_rmtree(base);
    free(base);
}

void cu_register_all(void)
{
    CU_pSuite s = th_add_suite("structure", NULL, NULL, 60);
    CU_add_test(s, "counts", test_structure_counts);
    CU_add_test(s, "axes", test_structure_axes);
    CU_add_test(s, "gap", test_structure_gap);
    CU_add_test(s, "partial", test_structure_partial);
    CU_add_test(s, "dmon", test_structure_dmon);
    CU_add_test(s, "gpm", test_structure_gpm);
    CU_add_test(s, "many_phases", test_structure_many_phases);
    CU_add_test(s, "name_lanes", test_structure_name_lanes);
    CU_add_test(s, "phase_ends", test_structure_phase_ends);
    s = th_add_suite("escape", NULL, NULL, 60);
    CU_add_test(s, "names", test_escape_names);
    CU_add_test(s, "params_at_top", test_params_at_top);
    s = th_add_suite("downsample", NULL, NULL, 60);
    CU_add_test(s, "spike", test_downsample_spike);
    CU_add_test(s, "width", test_downsample_width);
    s = th_add_suite("timeline", NULL, NULL, 60);
    CU_add_test(s, "buckets", test_timeline_buckets);
    s = th_add_suite("longrun", NULL, NULL, 600);
    CU_add_test(s, "size", test_longrun_size);
    CU_add_test(s, "steps", test_steps_size);
    CU_add_test(s, "back_to_back", test_back_to_back_bound);
    s = th_add_suite("sweep", NULL, NULL, 60);
    CU_add_test(s, "page", test_sweep_page);
    s = th_add_suite("errors", NULL, NULL, 60);
    CU_add_test(s, "api", test_errors);
    CU_add_test(s, "bad_input", test_errors_bad_input);
    s = th_add_suite("summary", NULL, NULL, 60);
    CU_add_test(s, "tables", test_summary_tables);
    CU_add_test(s, "phase_names", test_phase_names_table);
    CU_add_test(s, "phase_names_single", test_phase_names_single);
    s = th_add_suite("cli", NULL, NULL, 60);
    CU_add_test(s, "run_and_sweep", test_cli_run_and_sweep);
    CU_add_test(s, "units", test_cli_units);
    s = th_add_suite("agree", NULL, NULL, 60);
    CU_add_test(s, "wrong_hint", test_agree_wrong_hint);
    CU_add_test(s, "no_hint", test_agree_no_hint);
    CU_add_test(s, "holes", test_agree_holes);
    CU_add_test(s, "restart", test_agree_restart);
    CU_add_test(s, "truncated", test_agree_truncated);
    CU_add_test(s, "counter", test_agree_counter);
    s = th_add_suite("glance", NULL, NULL, 120);
    CU_add_test(s, "page", test_glance_page);
    CU_add_test(s, "arith", test_glance_arith);
    CU_add_test(s, "fixture", test_glance_fixture);
    s = th_add_suite("glance_large", NULL, NULL, 600);
    CU_add_test(s, "thousand", test_glance_thousand);
    s = th_add_suite("browser", NULL, NULL, 240);
    CU_add_test(s, "chromium", test_browser);
    CU_add_test(s, "sweep_glance", test_glance_browser);
    CU_add_test(s, "job_phone", test_job_phone);
}
