/* Suite "readers": the streaming readers on small hand-made inputs: chunk boundaries, headers,
 * placeholders, CRLF, partial and over-long lines, dmon headers, named CSV columns, gpu_procs
 * names with ", ", run.jsonl entries and time zones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_int.h"
#include "sumtest.h"
#include "gpurow.h"

static const char gpu11[] =
    "2026/11/21 15:27:49.697, 45, 12, 30000, 81559, 250.50, 55, 1980, 2619, 0, GPU-aaa\n"
    "2026/11/21 15:27:49.697, 55, 14, 31000, 81559, [N/A], 56, 1980, 2619, 1, GPU-bbb\n"
    "2026/11/21 15:27:51.697, 100, 50, 40000, 81559, 650.25, 60, 1980, 2619, 0, GPU-aaa\n"
    "2026/11/21 15:27:51.697, 90, 40, 41000, 81559, 600.00, 61, [N/A], 2619, 1, GPU-bbb\n";

static void test_gpu_default_layout(void)
{
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, gpu11, strlen(gpu11), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.gpu_rows, 4);
    CU_ASSERT_EQUAL(q.parsed, 4);
    CU_ASSERT_EQUAL(q.lines, 4);
    CU_ASSERT_EQUAL(r.max_gpu, 1);
    CU_ASSERT_EQUAL(r.gn[HW_GM_POWER], 3); /* [N/A] drops only that cell */
    CHECK_NEAR(r.gsum[HW_GM_POWER], 1500.75, 1e-9);
    CU_ASSERT_EQUAL(r.gn[HW_GM_SM_CLOCK], 3);
    CU_ASSERT_EQUAL(r.gn[HW_GM_UTIL], 4);
    CHECK_NEAR(r.gsum[HW_GM_UTIL], 290, 0);
    CU_ASSERT_EQUAL(token_count(&q, "[N/A]"), 2);
    /* 2026-11-21T15:27:49.697Z */
    CHECK_NEAR(r.first_t, 1795274869.697, 1e-6);
    CU_ASSERT_STRING_EQUAL(r.last_uuid, "GPU-bbb");
    CU_ASSERT_FALSE(q.partial_last);
}

/* A headerless file with no field list is read by its width as one of the default list's
 * versions (hwrun/rundir.h's since): a file of an older hwmon, of any version so far, still
 * reads after a field is appended, each figure from its own column; a width of no version is
 * skipped as such. The rows come from the table (gpurow.h). */
static void test_gpu_legacy_versions(void)
{
    for (int v = 1; v <= hw_gpu_field_version(); v++) {
        const char *list = hw_gpu_fields(v);
        struct th_gpu_vals val;
        for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
            val.v[k] = 10 + k;
        struct hw_buf b;
        hw_buf_init(&b, NULL, 0);
        th_gpu_row(&b, list, "2026/11/21 15:27:49.697", 0, "GPU-aaa", &val);
        th_gpu_row(&b, list, "2026/11/21 15:27:49.697", 1, "GPU-bbb", &val);
        struct rec r;
        struct rd_quality q;
        feed_all(HW_FILE_GPU, b.p, b.len, 0, NULL, &r, &q);
        CU_ASSERT_EQUAL(r.gpu_rows, 2);
        CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
        CU_ASSERT_EQUAL(r.max_gpu, 1);
        for (int k = 0; k < HW_GPU_FIG_COUNT; k++) {
            char *in = th_fmt(",%s,", hw_gpu_figs[k].field);
            char *l = th_fmt("%s,", list);
            bool listed = strstr(l, in) != NULL;
            CU_ASSERT_EQUAL(r.gn[k], listed ? 2 : 0);
            CHECK_NEAR(r.gsum[k], listed ? 2 * (10 + k) : 0, 0);
            free(in);
            free(l);
        }
        /* one cell more than the list: no version's width */
        hw_buf_reset(&b);
        th_gpu_row(&b, list, "2026/11/21 15:27:49.697", 0, "GPU-aaa", &val);
        b.len--; /* its newline */
        hw_buf_puts(&b, ", 7\n");
        feed_all(HW_FILE_GPU, b.p, b.len, 0, NULL, &r, &q);
        size_t n = 0, wider = 0;
        for (const char *p = list; *p; p++)
            n += *p == ',';
        for (int w = 1; w <= hw_gpu_field_version(); w++) {
            size_t nw = 0;
            for (const char *p = hw_gpu_fields(w); *p; p++)
                nw += *p == ',';
            wider += nw == n + 1;
        }
        CU_ASSERT_EQUAL(r.gpu_rows, wider ? 1 : 0);
        CU_ASSERT_EQUAL(q.skipped[RD_SKIP_LAYOUT], wider ? 0 : 1);
        hw_buf_free(&b);
    }
}

/* The field lists built from the table are a file format: the files of older hwmons, headerless,
 * are read by their width as these, so versions 1 and 2 and pytyche's are spelt out here. A
 * field joining the table with the next version is appended after uuid and every older field:
 * each field of version v is in list v, after every field of version v - 1 (checked on the table
 * and on a copy with such an entry added). */
static bool list_has(const char *list, const char *field, size_t *at)
{
    char *l = th_fmt(",%s,", list), *f = th_fmt(",%s,", field);
    const char *p = strstr(l, f);
    if (p && at)
        *at = (size_t)(p - l);
    free(l);
    free(f);
    return p != NULL;
}

static void check_versions(const struct hw_gpu_fig *figs, size_t n, int versions)
{
    char prev[1024] = "", cur[1024];
    for (int v = 1; v <= versions + 1; v++) {
        CU_ASSERT_FATAL(hw_gpu_fields_of(figs, n, v, cur, sizeof cur) < sizeof cur);
        /* the list before extends to this one */
        CU_ASSERT(v == 1 || !strncmp(cur, prev, strlen(prev)));
        size_t uuid_at = 0;
        CU_ASSERT(list_has(cur, "uuid", &uuid_at) && list_has(cur, "index", NULL));
        for (size_t k = 0; k < n; k++) {
            size_t at = 0;
            bool in = list_has(cur, figs[k].field, &at);
            /* in list v exactly when it joined at or before v (0: never) */
            CU_ASSERT_EQUAL(in, figs[k].since >= 1 && figs[k].since <= v);
            /* a later version's field after uuid and after every field of the version before */
            if (in && figs[k].since > 1)
                CU_ASSERT(at > uuid_at);
            for (size_t j = 0; in && j < n; j++) {
                size_t at_j = 0;
                if (figs[j].since >= 1 && figs[j].since < figs[k].since &&
                    list_has(cur, figs[j].field, &at_j))
                    CU_ASSERT(at_j < at);
            }
        }
        /* a version past the table's adds nothing */
        if (v == versions + 1)
            CU_ASSERT_STRING_EQUAL(cur, prev);
        snprintf(prev, sizeof prev, "%s", cur);
    }
}

static void test_gpu_field_lists(void)
{
    static const char v1[] = "timestamp,utilization.gpu,utilization.memory,memory.used,"
                             "memory.total,power.draw,temperature.gpu,clocks.current.sm,"
                             "clocks.current.memory,index,uuid";
    CU_ASSERT_FATAL(hw_gpu_field_version() >= 2);
    CU_ASSERT_STRING_EQUAL(hw_gpu_fields(1), v1);
    CU_ASSERT_STRING_EQUAL(hw_gpu_fields(2), "timestamp,utilization.gpu,utilization.memory,"
                                             "memory.used,memory.total,power.draw,"
                                             "temperature.gpu,clocks.current.sm,"
                                             "clocks.current.memory,index,uuid,fan.speed");
    CU_ASSERT_STRING_EQUAL(hw_gpu_fields_pytyche(),
                           "timestamp,utilization.gpu,utilization.memory,memory.used,"
                           "memory.total,power.draw,temperature.gpu,clocks.current.sm,"
                           "clocks.current.memory");
    CU_ASSERT_PTR_NULL(hw_gpu_fields(0));
    CU_ASSERT_PTR_NULL(hw_gpu_fields(hw_gpu_field_version() + 1));
    CU_ASSERT_STRING_EQUAL(hw_gpu_fields_default(), hw_gpu_fields(hw_gpu_field_version()));
    /* built once: the same string at every call */
    CU_ASSERT_PTR_EQUAL(hw_gpu_fields(1), hw_gpu_fields(1));
    /* the table's highest since is the version hwmon writes */
    int top = 0;
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
        top = hw_gpu_figs[k].since > top ? hw_gpu_figs[k].since : top;
    CU_ASSERT_EQUAL(hw_gpu_field_version(), top);
    char buf[1024];
    for (int v = 1; v <= top; v++) {
        hw_gpu_fields_of(hw_gpu_figs, HW_GPU_FIG_COUNT, v, buf, sizeof buf);
        CU_ASSERT_STRING_EQUAL(buf, hw_gpu_fields(v));
    }
    check_versions(hw_gpu_figs, HW_GPU_FIG_COUNT, top);

    /* the table with a new figure of the next version, placed first: appended after the rest */
    struct hw_gpu_fig more[HW_GPU_FIG_COUNT + 1];
    more[0] = (struct hw_gpu_fig){.key = "x_pct", .field = "x.new", .since = top + 1};
    memcpy(more + 1, hw_gpu_figs, sizeof hw_gpu_figs);
    check_versions(more, HW_GPU_FIG_COUNT + 1, top + 1);
    size_t len = hw_gpu_fields_of(more, HW_GPU_FIG_COUNT + 1, top + 1, buf, sizeof buf);
    char *want = th_fmt("%s,x.new", hw_gpu_fields_default());
    CU_ASSERT_STRING_EQUAL(buf, want);
    CU_ASSERT_EQUAL(len, strlen(want));
    /* too small a buffer: cut, '\0'-ended, the length it needed */
    char small[16];
    CU_ASSERT_EQUAL(
        hw_gpu_fields_of(more, HW_GPU_FIG_COUNT + 1, top + 1, small, sizeof small), len);
    CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
    free(want);
}

static void test_gpu_chunking(void)
{
    /* every split point gives the same result, including inside "\r\n" */
    char *crlf = malloc(2 * sizeof gpu11);
    size_t o = 0;
    for (const char *p = gpu11; *p; p++) {
        if (*p == '\n')
            crlf[o++] = '\r';
        crlf[o++] = *p;
    }
    for (size_t step = 1; step < 40; step += 3) {
        struct rec r;
        struct rd_quality q;
        feed_all(HW_FILE_GPU, crlf, o, step, NULL, &r, &q);
        CU_ASSERT_EQUAL(r.gpu_rows, 4);
        CHECK_NEAR(r.gsum[HW_GM_POWER], 1500.75, 1e-9);
        CU_ASSERT_EQUAL(q.lines, 4);
        CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
    }
    free(crlf);
}

static void test_gpu_header_units(void)
{
    const char *s = "timestamp, index, power.draw [W], utilization.gpu [%], memory.used [MiB]\n"
                    "2024/01/16 14:44:16.977, 0, 100.50 W, 7 %, 21 MiB\n"
                    "2024/01/16 14:44:16.977, 1, [N/A], 9 %, 23 MiB\n";
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, s, strlen(s), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(q.headers, 1);
    CU_ASSERT_EQUAL(r.gpu_rows, 2);
    CHECK_NEAR(r.gsum[HW_GM_POWER], 100.5, 0);
    CHECK_NEAR(r.gsum[HW_GM_UTIL], 16, 0);
    CHECK_NEAR(r.gsum[HW_GM_MEM_USED], 44, 0);
    CU_ASSERT_EQUAL(r.max_gpu, 1);
}

/* Every field of the one table of GPU figures (hw_gpu_figs) and each of its other names (its
 * aliases), as a header names it, is read as its figure: the table is the reader's map, whatever
 * a new entry is. */
static void test_gpu_fields_of_the_table(void)
{
    int checked = 0;
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[k];
        for (int a = -1; a < 0 || (f->aliases && f->aliases[a].field); a++) {
            const char *field = a < 0 ? f->field : f->aliases[a].field;
            char *s = th_fmt("timestamp, index, %s\n2024/01/16 14:44:16.977, 0, 42\n", field);
            struct rec r;
            struct rd_quality q;
            feed_all(HW_FILE_GPU, s, strlen(s), 0, NULL, &r, &q);
            CU_ASSERT_EQUAL(r.gpu_rows, 1);
            CU_ASSERT_EQUAL(q.headers, 1);
            for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
                CHECK_NEAR(r.gsum[m], m == k ? 42 : 0, 0);
            free(s);
            checked++;
        }
    }
    CU_ASSERT(checked > HW_GPU_FIG_COUNT); /* aliases were read too */
    /* and pytyche's list is the table's fields flagged so, in its order */
    char *want = th_fmt("%s", HW_COL_TIMESTAMP);
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        if (hw_gpu_figs[m].flags & HW_GF_PYTYCHE) {
            char *w = th_fmt("%s,%s", want, hw_gpu_figs[m].field);
            free(want);
            want = w;
        }
    CU_ASSERT_STRING_EQUAL(hw_gpu_fields_pytyche(), want);
    free(want);
}

static void test_gpu_fields_and_position(void)
{
    /* fields from the start event; no index: GPUs by position within a timestamp */
    const char *s = "2026/01/01 00:00:00.000, 10, 100\n"
                    "2026/01/01 00:00:00.000, 20, 200\n"
                    "2026/01/01 00:00:01.000, 30, 300\n"
                    "2026/01/01 00:00:01.000, 40, 400\n";
    struct rd_read_opts o = {.gpu_fields = "timestamp,utilization.gpu,power.draw"};
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, s, strlen(s), 7, &o, &r, &q);
    CU_ASSERT_EQUAL(r.gpu_rows, 4);
    CU_ASSERT_EQUAL(r.gpus_seen[0], 2);
    CU_ASSERT_EQUAL(r.gpus_seen[1], 2);
    CHECK_NEAR(r.gsum[HW_GM_POWER], 1000, 0);
    /* without the field list 3 cells say nothing: skipped as layout */
    feed_all(HW_FILE_GPU, s, strlen(s), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.gpu_rows, 0);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_LAYOUT], 4);
    CU_ASSERT_EQUAL(r.diags, 4);
}

static void test_gpu_bad_lines(void)
{
    const char *s =
        "2026/11/21 15:27:49.697, 45, 12, 30000, 81559, 250.50, 55, 1980, 2619\n" /* 9 cells */
        "garbage\n"
        "\n"
        "2026/13/21 15:27:49.697, 45, 12, 30000, 81559, 250.50, 55, 1980, 2619\n" /* month 13 */
        "2026/11/21 15:27:50.697, 45, x, 30000, 81559, 250.50, 55, 1980, 2619\n"  /* bad cell */
        "2026/11/21 15:27:51.697, 45, 12, 30000, 81559, 2";                        /* partial */
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, s, strlen(s), 5, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.gpu_rows, 2);
    CU_ASSERT_EQUAL(q.blank, 1);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_LAYOUT], 1);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_TIMESTAMP], 1);
    CU_ASSERT_EQUAL(q.bad_cells, 1);
    CU_ASSERT_TRUE(q.partial_last);
    CU_ASSERT_EQUAL(q.partial_bytes, 48);
    CU_ASSERT_EQUAL(q.lines, 5);

    /* a partial line beyond the reader's limit (1 MiB) is said at its real size, fed whole or
     * in pieces; after an over-long line that ended, the next partial line's own size */
    size_t big = 3u << 20;
    char *data = malloc(big + 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    memset(data, 'x', big);
    for (size_t step = 0; step <= 65536; step += 65536) {
        feed_all(HW_FILE_GPU, data, big, step, NULL, &r, &q);
        CU_ASSERT_TRUE(q.partial_last);
        CU_ASSERT_EQUAL(q.partial_bytes, big);
        CU_ASSERT_EQUAL(q.lines, 0);
    }
    data[big - 4] = '\n';
    feed_all(HW_FILE_GPU, data, big, 4096, NULL, &r, &q);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_TOO_LONG], 1);
    CU_ASSERT_TRUE(q.partial_last);
    CU_ASSERT_EQUAL(q.partial_bytes, 3);
    free(data);
}

/* A driver's sentinels (0xFFFFFFFF, -1) and readings no GPU can give are bad cells, named by
 * figure, never numbers: DCGM issue 199's 4294967295 % utilization, nvidia-smi's -1. */
static void test_sentinels(void)
{
    const char *s =
        "2026/11/21 15:27:49.697, 45, 12, 30000, 81559, 250.50, 55, 1980, 2619\n"
        "2026/11/21 15:27:50.697, 4294967295, 12, 30000, 81559, -1, 55, 1980, 2619\n"
        "2026/11/21 15:27:51.697, 100, 101, 4294967295, 81559, 250.50, 4294967295, 1980, 2619\n"
        "2026/11/21 15:27:52.697, 0, 0, 0, 81559, 0, 0, 0, 2619\n"; /* 0 is a reading */
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, s, strlen(s), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.gpu_rows, 4); /* a row keeps its other cells */
    CU_ASSERT_EQUAL(q.bad_cells, 5);
    CU_ASSERT_EQUAL(r.gn[HW_GM_UTIL], 3);
    CHECK_NEAR(r.gsum[HW_GM_UTIL], 145, 0);
    CU_ASSERT_EQUAL(r.gn[HW_GM_POWER], 3);
    CHECK_NEAR(r.gsum[HW_GM_POWER], 501, 0);
    CU_ASSERT_EQUAL(r.gn[HW_GM_MEM_UTIL], 3); /* 101 % */
    CU_ASSERT_EQUAL(r.gn[HW_GM_MEM_USED], 3);
    CU_ASSERT_EQUAL(r.gn[HW_GM_TEMP], 3);
    static const struct {
        const char *column;
        double value;
        uint64_t line;
    } want[] = {{"util_pct", 4294967295.0, 2}, {"power_w", -1, 2}, {"mem_util_pct", 101, 3},
                {"mem_used_mib", 4294967295.0, 3}, {"temp_c", 4294967295.0, 3}};
    CU_ASSERT_EQUAL_FATAL(q.n_ranged, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < q.n_ranged; i++) {
        CU_ASSERT_STRING_EQUAL(q.out_of_range[i].column, want[i].column);
        CHECK_NEAR(q.out_of_range[i].value, want[i].value, 0);
        CU_ASSERT_EQUAL(q.out_of_range[i].line, want[i].line);
        CU_ASSERT_EQUAL(q.out_of_range[i].n, 1);
    }
    /* dmon (and GPM's columns, which it reads alike): the same rule by column */
    const char *d = "# gpu    pwr  gtemp  mtemp     sm    mem\n"
                    "# Idx      W      C      C      %      %\n"
                    "    0     70     42      -     10      5\n"
                    "    0     -1     42      - 4294967295 5\n";
    feed_all(HW_FILE_DMON, d, strlen(d), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.dmon_rows, 2);
    CU_ASSERT_EQUAL(q.bad_cells, 2);
    CU_ASSERT_EQUAL(r.dn[RD_DM_SM], 1);
    CU_ASSERT_EQUAL(r.dn[RD_DM_PWR], 1);
    CU_ASSERT_EQUAL_FATAL(q.n_ranged, 2);
    CU_ASSERT_STRING_EQUAL(q.out_of_range[0].column, "pwr");
    CU_ASSERT_STRING_EQUAL(q.out_of_range[1].column, "sm");
}

static void test_too_long_and_binary(void)
{
    size_t n = 5000;
    char *s = malloc(n + 200);
    memset(s, 'x', n);
    s[n] = '\n';
    const char *tail = "2026/11/21 15:27:49.697, 45, 12, 30000, 81559, 250.50, 55, 1980, 2619\n";
    memcpy(s + n + 1, tail, strlen(tail));
    size_t len = n + 1 + strlen(tail);
    struct rd_read_opts o = {.max_line = 1000};
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, s, len, 333, &o, &r, &q);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_TOO_LONG], 1);
    CU_ASSERT_EQUAL(r.gpu_rows, 1);
    CU_ASSERT_EQUAL(q.lines, 2);
    /* an over-long unterminated tail is a partial line */
    feed_all(HW_FILE_GPU, s, n, 100, &o, &r, &q);
    CU_ASSERT_TRUE(q.partial_last);
    CU_ASSERT_EQUAL(q.lines, 0);
    free(s);
    const char nul[] = "2026/11/21 15:27:49.697, 4\0005, 12\n";
    feed_all(HW_FILE_GPU, nul, sizeof nul - 1, 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_BINARY], 1);
}

static void test_dmon(void)
{
    const char *s = "# gpu    pwr  gtemp  mtemp     sm    mem\n"
                    "# Idx      W      C      C      %      %\n"
                    "    0     70     42      -     10      5\n"
                    "    1     80     43      -     20      -\n"
                    "\n"
                    "# gpu    pwr  gtemp  mtemp     sm    mem\n"
                    "# Idx      W      C      C      %      %\n"
                    "    0     71     42      -     30      7\n"
                    "    0     71     42\n";
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_DMON, s, strlen(s), 11, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.dmon_rows, 3);
    CU_ASSERT_EQUAL(q.headers, 4);
    CU_ASSERT_EQUAL(q.blank, 1);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_CELLS], 1);
    CU_ASSERT_EQUAL(token_count(&q, "-"), 4);
    CHECK_NEAR(r.dsum[RD_DM_SM], 60, 0);
    CU_ASSERT_EQUAL(r.dn[RD_DM_MEM], 2);
    CHECK_NEAR(r.dsum[RD_DM_MEM], 12, 0);
    CU_ASSERT_EQUAL(r.dn[RD_DM_MTEMP], 0);
    CU_ASSERT_EQUAL(r.max_gpu, 1);
    /* no header before data */
    feed_all(HW_FILE_DMON, "    0 1 2\n", 10, 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_LAYOUT], 1);
}

static void test_dmon_date_time(void)
{
    const char *s = "#Date       Time        gpu     sm    mem\n"
                    "#YYYYMMDD   HH:MM:SS    Idx      %      %\n"
                    " 20240104   13:54:35      0      6      1\n"
                    " 20240104   13:54:36      0      0      0\n";
    struct rd_read_opts o;
    memset(&o, 0, sizeof o);
    CU_ASSERT_EQUAL(rd_tz_parse("+01:00", false, &o.tz), 0);
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_DMON, s, strlen(s), 0, &o, &r, &q);
    CU_ASSERT_EQUAL(r.dmon_rows, 2);
    /* 2024-01-04T12:54:35Z */
    CHECK_NEAR(r.first_t, 1704372875.0, 0);
    CHECK_NEAR(r.last_t - r.first_t, 1.0, 0);
}

/* --smi-tz on every path of nvidia-smi's times: fractions longer than 9 digits were
 * read by a UTC-only fallback (5 h off under +05:00); dmon -o DT goes through the same parser;
 * a bad date or time is a skipped line. */
static void test_smi_tz_every_path(void)
{
    const char *gpu = "2026/11/21 15:27:49.697, 45, 12, 3000, 81559, 250.5, 60, 1980, 2619\n"
                      "2026/11/21 15:27:50.1234567890, 45, 12, 3000, 81559, 250.5, 60, 1980, 2619\n"
                      "2026/11/21 15:27:51.500000000000, 45, 12, 3000, 81559, 250.5, 60, 1980, 2619\n"
                      "2026/11/21 15:27:52.12x, 45, 12, 3000, 81559, 250.5, 60, 1980, 2619\n";
    struct rd_read_opts o;
    memset(&o, 0, sizeof o);
    CU_ASSERT_EQUAL(rd_tz_parse("+05:00", false, &o.tz), 0);
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, gpu, strlen(gpu), 0, &o, &r, &q);
    CU_ASSERT_EQUAL(r.gpu_rows, 3);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_TIMESTAMP], 1);
    /* 2026-11-21T10:27:49.697Z, then 10:27:51.5Z */
    CHECK_NEAR(r.first_t, 1795256869.697, 1e-6);
    CHECK_NEAR(r.last_t, 1795256871.5, 1e-6);
    /* the 10-digit row sits between them, not 5 h later */
    for (size_t step = 1; step < 30; step += 7) {
        feed_all(HW_FILE_GPU, gpu, strlen(gpu), step, &o, &r, &q);
        CHECK_NEAR(r.last_t - r.first_t, 1.803, 1e-6);
    }
    const char *dt = "#Date       Time        gpu     sm    mem\n"
                     "#YYYYMMDD   HH:MM:SS    Idx      %      %\n"
                     " 20261121   15:59:59      0      6      1\n"
                     " 2026112x   16:00:00      0      6      1\n"
                     " 20261121   16:0:00x      0      6      1\n"
                     " 20261121   16:00:01      0      0      0\n";
    feed_all(HW_FILE_DMON, dt, strlen(dt), 0, &o, &r, &q);
    CU_ASSERT_EQUAL(r.dmon_rows, 2);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_TIMESTAMP], 2);
    CHECK_NEAR(r.first_t, 1795258799.0, 0); /* 2026-11-21T10:59:59Z */
    CHECK_NEAR(r.last_t - r.first_t, 2.0, 0);  /* across the cached hour */
}

static void test_cpu_proc(void)
{
    const char *cpu = "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,"
                      "mem_available_mib,cgroup_cpu_limit_cores,cgroup_cpu_pct,"
                      "cgroup_mem_current_mib,cgroup_mem_max_mib\n"
                      "2026-11-21T15:27:49.697+00:00,10.0,80.0,5.0,1.0,0.0,1000,3000,,,200,\n"
                      "2026-11-21T15:27:51.697Z,20.0,70.0,5.0,1.0,0.0,1100,2900,2.5,70.0,300,"
                      "1024\n"
                      "2026-11-21T15:27:53.697+00:00,1,2\n";
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_CPU, cpu, strlen(cpu), 13, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.cpu_rows, 2);
    CU_ASSERT_EQUAL(q.headers, 1);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_CELLS], 1);
    CHECK_NEAR(r.csum[HW_CPU_COL_USR], 30, 0);
    CU_ASSERT_EQUAL(r.cn[HW_CPU_COL_CG_LIMIT], 1);
    /* an empty cgroup_cpu_pct is not measured; empty limits are no limit, not placeholders */
    CU_ASSERT_EQUAL(token_count(&q, ""), 1);
    /* pytyche's 3-column file */
    const char *py = "timestamp,usr_pct,idle_pct\n2026-11-21T15:27:49.697+00:00,1.5,98.5\n";
    feed_all(HW_FILE_CPU, py, strlen(py), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.cpu_rows, 1);
    CHECK_NEAR(r.csum[HW_CPU_COL_IDLE], 98.5, 0);
    const char *proc = "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes\n"
                       "2026-11-21T15:27:49.697+00:00,3,40,150.5,2048,100,200\n"
                       "2026-11-21T15:27:51.697+00:00,4,44,180.5,4096,300,400\n";
    feed_all(HW_FILE_PROC, proc, strlen(proc), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.proc_rows, 2);
    CHECK_NEAR(r.psum[HW_PROC_COL_RSS], 6144, 0);
    CHECK_NEAR(r.psum[HW_PROC_COL_THREADS], 84, 0);
    /* a column written under an option that no row filled was not recorded (hwmon without
     * --shared-once): its empty cells are no placeholders; a recorded column's empty cell (a PSS
     * read skipped) is one, and so is every empty cell of a column every run writes (disk
     * bytes hwmon could not read: test_summarize.system.mem_peak_source). The README's demo
     * said "133 placeholder cells" of 36 rows, 108 of them --shared-once's columns. */
    const char *once = "timestamp,procs,rss_mib,pss_mib,shared_once_mib,main_shared_once_mib\n"
                       "2026-11-21T15:27:49.697+00:00,3,2048,1900,,\n"
                       "2026-11-21T15:27:51.697+00:00,4,4096,,,\n"
                       "2026-11-21T15:27:53.697+00:00,4,4096,3900,,\n";
    feed_all(HW_FILE_PROC, once, strlen(once), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.proc_rows, 3);
    CU_ASSERT_EQUAL(token_count(&q, ""), 1);
    CU_ASSERT_EQUAL(rd_quality_placeholders_total(&q), 1);
    /* recorded once, missed twice: both are placeholders */
    const char *some = "timestamp,procs,rss_mib,shared_once_mib\n"
                       "2026-11-21T15:27:49.697+00:00,3,2048,\n"
                       "2026-11-21T15:27:51.697+00:00,4,4096,10.5\n"
                       "2026-11-21T15:27:53.697+00:00,4,4096,\n";
    feed_all(HW_FILE_PROC, some, strlen(some), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(token_count(&q, ""), 2);
    /* nothing empty but an unrecorded column: no "(empty)" token at all */
    const char *none = "timestamp,procs,rss_mib,shared_once_mib\n"
                       "2026-11-21T15:27:49.697+00:00,3,2048,\n";
    feed_all(HW_FILE_PROC, none, strlen(none), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(q.n_tokens, 0);
    CU_ASSERT_EQUAL(rd_quality_placeholders_total(&q), 0);
    /* a column every run writes (read bytes), empty in every row: still unmeasured */
    const char *always = "timestamp,procs,rss_mib,read_bytes\n"
                         "2026-11-21T15:27:49.697+00:00,3,2048,\n"
                         "2026-11-21T15:27:51.697+00:00,3,2048,\n";
    feed_all(HW_FILE_PROC, always, strlen(always), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(token_count(&q, ""), 2);
}

static void test_gpu_procs(void)
{
    const char *s = "2026/07/14 08:12:53.500, GPU-1, 11327, 2566, /usr/bin/python3\n"
                    "2026/07/14 08:12:53.500, GPU-1, 11328, [N/A], C:\\Program Files\\a, b.exe\n";
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU_PROCS, s, strlen(s), 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.gp_rows, 2);
    CU_ASSERT_EQUAL(r.gp_mem_n, 1);
    CHECK_NEAR(r.gp_mem_sum, 2566, 0);
    CU_ASSERT_STRING_EQUAL(r.last_name, "C:\\Program Files\\a, b.exe");
    CU_ASSERT_EQUAL(r.last_pid, 11328);
    CU_ASSERT_EQUAL(token_count(&q, "[N/A]"), 1);
}

static void test_runlog(void)
{
    const char *s =
        "{\"ts\": \"2026-11-21T15:27:49.697+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"smi_tz\": \"+05:30\", \"interval_s\": 0.5, \"gpu_query_fields\": "
        "\"timestamp,power.draw\"}}\n"
        "{\"ts\": \"2026-11-21T15:27:59.697+00:00\", \"type\": \"phase\", \"name\": \"tr\\\"ain\", "
        "\"seconds\": 10, \"step\": 3}\n"
        "{\"ts\": 5, \"type\": \"phase\"}\n"
        "[1, 2]\n"
        "{\"ts\": \"2026-11-21T15:27:49.697+00:00\", \"type\": \"event\", \"event\": \"x\"} junk\n"
        "{\"ts\": \"yesterday\", \"type\": \"event\", \"event\": \"x\"}\n"
        "{\"ts\": \"2026-11-21T15:28:00.000+00:00\", \"type\": \"event\", \"event\": "
        "\"child_restart\", \"data\": {\"child\": \"dmon\"}}\n"
        "{\"ts\": \"2026-11-21T15:28:00.000+00:00\", \"type\": \"other\"}\n"
        "{\"ts\": \"2026-11-21T15:28:01";
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_RUNLOG, s, strlen(s), 17, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.phases, 1);
    CU_ASSERT_EQUAL(r.events, 2);
    CU_ASSERT_EQUAL(q.parsed, 4);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_SHAPE], 2);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_JSON], 1);
    CU_ASSERT_EQUAL(q.skipped[RD_SKIP_TIMESTAMP], 1);
    CU_ASSERT_TRUE(q.partial_last);
}

/* The names of the phases read, in order, joined by ' ' */
static void parts_phase(void *ctx, const struct rd_phase *p)
{
    char *names = ctx;
    strcat(names, p->name);
    strcat(names, " ");
}

static void parts_diag(void *ctx, const char *name, uint64_t line, const char *reason)
{
    (void)ctx;
    fprintf(stderr, "diag: %s:%llu: %s\n", name, (unsigned long long)line, reason);
}

/* A run log rotated twice: run.jsonl names run.jsonl.1 in its first line (librunlog's
 * log_continued), run.jsonl.1 names run.jsonl.2 further down (hwmon's log_rotated, after a
 * line of the job's): the three are read oldest first as one log, and the counts are all of
 * them. Names that would lead out of the directory, a deleted part, a part naming itself and a
 * part that is not there are not followed. */
static void test_runlog_parts(void)
{
    char *dir = th_tmpdir("readers-parts");
#define TS "{\"ts\": \"2026-11-21T15:27:%02d.000+00:00\", "
#define PH(s, n) TS "\"type\": \"phase\", \"name\": \"" n "\", \"seconds\": 1}\n", s
#define CONT(s, prev) TS "\"type\": \"event\", \"event\": \"log_continued\", \"data\": " \
                      "{\"previous\": " prev ", \"pid\": 1, \"severity\": \"info\"}}\n", s
#define ROT(s, how, prev) TS "\"type\": \"event\", \"event\": \"log_rotated\", \"data\": " \
                          "{\"how\": \"" how "\", \"previous\": " prev ", \"bytes\": 9}}\n", s
    struct { const char *name; char text[1024]; } files[] = {{"run.jsonl.2", ""}, {"run.jsonl.1", ""},
                                                              {"run.jsonl", ""}};
    snprintf(files[0].text, sizeof files[0].text, PH(1, "a"));
    snprintf(files[1].text, sizeof files[1].text, PH(2, "b"));
    snprintf(files[1].text + strlen(files[1].text), 512, ROT(3, "renamed", "\"run.jsonl.2\""));
    snprintf(files[1].text + strlen(files[1].text), 256, PH(4, "c"));
    snprintf(files[2].text, sizeof files[2].text, CONT(5, "\"run.jsonl.1\""));
    snprintf(files[2].text + strlen(files[2].text), 256, PH(6, "d"));
    for (size_t i = 0; i < 3; i++) {
        char *p = th_fmt("%s/%s", dir, files[i].name);
        CU_ASSERT_EQUAL(th_write_file(p, files[i].text, strlen(files[i].text)), 0);
        free(p);
    }
    char names[256] = "";
    struct rd_sink sink = {.ctx = names, .phase = parts_phase, .diag = parts_diag};
    struct rd_quality q;
    char *log = th_fmt("%s/run.jsonl", dir);
    CU_ASSERT_EQUAL(rd_read_file(HW_FILE_RUNLOG, log, NULL, &sink, &q), 0);
    CU_ASSERT_STRING_EQUAL(names, "a b c d ");
    CU_ASSERT_EQUAL(q.parts, 2);
    CU_ASSERT_EQUAL(q.parsed, 6);
    CU_ASSERT_EQUAL(q.lines, 6);

    /* what is not followed: each case as run.jsonl's first line, before phase "z" */
    const char *bad[] = {"\"../run.jsonl.1\"", "\"/etc/passwd\"", "\"..\"", "null",
                         "\"run.jsonl\"", "\"missing.jsonl\"", "7"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        int n = snprintf(text, sizeof text, CONT(7, "%s"), bad[i]);
        snprintf(text + n, sizeof text - (size_t)n, PH(8, "z"));
        CU_ASSERT_EQUAL(th_write_file(log, text, strlen(text)), 0);
        names[0] = '\0';
        CU_ASSERT_EQUAL(rd_read_file(HW_FILE_RUNLOG, log, NULL, &sink, &q), 0);
        CU_ASSERT_STRING_EQUAL(names, "z ");
        CU_ASSERT_EQUAL(q.parts, 0);
    }
    /* hwmon's word that the old file was deleted or truncated names nothing to read */
    for (size_t i = 0; i < 2; i++) {
        char text[512];
        int n = i ? snprintf(text, sizeof text, ROT(7, "truncated", "\"run.jsonl.1\""))
                  : snprintf(text, sizeof text, ROT(7, "deleted", "\"run.jsonl.1\""));
        snprintf(text + n, sizeof text - (size_t)n, PH(8, "z"));
        CU_ASSERT_EQUAL(th_write_file(log, text, strlen(text)), 0);
        names[0] = '\0';
        CU_ASSERT_EQUAL(rd_read_file(HW_FILE_RUNLOG, log, NULL, &sink, &q), 0);
        CU_ASSERT_STRING_EQUAL(names, "z ");
    }
#undef TS
#undef PH
#undef CONT
#undef ROT
    free(log);
    th_rmtree(dir);
    free(dir);
}

static struct rd_run_info *g_info;
static void info_event(void *ctx, const struct rd_event *e)
{
    (void)ctx;
    rd_run_info_event(g_info, e);
}

static void test_run_info(void)
{
    const char *s =
        "{\"ts\": \"2026-11-21T15:27:49.697+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"smi_tz\": \"+05:30\", \"interval_s\": 0.5, \"gpu_query_fields\": "
        "\"timestamp,power.draw\"}}\n"
        "{\"ts\": \"2026-11-21T15:27:50.697+00:00\", \"type\": \"event\", \"event\": "
        "\"gpu_fields_fallback\", \"data\": {\"fields\": \"timestamp,utilization.gpu\"}}\n"
        "{\"ts\": \"2026-11-21T15:28:00.000+00:00\", \"type\": \"event\", \"event\": "
        "\"child_restart\"}\n"
        "{\"ts\": \"2026-11-21T15:28:09.697+00:00\", \"type\": \"event\", \"event\": \"stop\", "
        "\"data\": {\"duration_s\": 20.0}}\n";
    struct rd_run_info info;
    rd_run_info_init(&info);
    g_info = &info;
    struct rd_sink sink = {.event = info_event};
    struct rd_quality q;
    struct rd_reader *rd = rd_reader_new(HW_FILE_RUNLOG, "run.jsonl", NULL, &sink, &q);
    rd_reader_feed(rd, s, strlen(s));
    rd_reader_finish(rd);
    rd_reader_free(rd);
    CU_ASSERT_TRUE(info.have_start);
    CU_ASSERT_TRUE(info.have_tz);
    CU_ASSERT_EQUAL(info.tz.kind, RD_TZ_FIXED);
    CU_ASSERT_EQUAL(info.tz.offset_s, 19800);
    CU_ASSERT_STRING_EQUAL(info.gpu_fields, "timestamp,utilization.gpu");
    CHECK_NEAR(info.interval_s, 0.5, 0);
    CHECK_NEAR(info.stop_duration_s, 20, 0);
    CU_ASSERT_EQUAL(info.child_restarts, 1);
}

static void test_tz(void)
{
    struct rd_tz tz;
    CU_ASSERT_EQUAL(rd_tz_parse("UTC", false, &tz), 0);
    CU_ASSERT_EQUAL(tz.kind, RD_TZ_UTC);
    CU_ASSERT_EQUAL(rd_tz_parse("-0800", false, &tz), 0);
    CU_ASSERT_EQUAL(tz.offset_s, -28800);
    CU_ASSERT_EQUAL(rd_tz_parse("+05:30", false, &tz), 0);
    CU_ASSERT_EQUAL(tz.offset_s, 19800);
    CU_ASSERT_EQUAL(rd_tz_parse("UTC+01:00", false, &tz), 0);
    CU_ASSERT_EQUAL(tz.offset_s, 3600);
    CU_ASSERT_NOT_EQUAL(rd_tz_parse("Europe/Paris", false, &tz), 0);
    CU_ASSERT_NOT_EQUAL(rd_tz_parse("+5", false, &tz), 0);
    CU_ASSERT_NOT_EQUAL(rd_tz_parse("Not/AZone", true, &tz), 0);
    CU_ASSERT_NOT_EQUAL(rd_tz_parse("../etc/passwd", true, &tz), 0);
    /* 2026/07/14 08:12:53 at -08:00 is 16:12:53Z */
    CU_ASSERT_EQUAL(rd_tz_parse("-08:00", false, &tz), 0);
    CHECK_NEAR(rd_tz_to_utc(&tz, 2026, 7, 14, 8, 12, 53), 1784045573.0, 0);
}

/* rd_parse_smi_ts remembers the last text it parsed (the GPUs of a sample share it): a clock
 * used for a whole sequence must answer every text as a fresh clock does, whichever byte the
 * next text differs in (first or last 16 bytes, the middle, the length). */
static void test_smi_ts_repeat(void)
{
    static const char *const pool[] = {
        "2026/11/21 15:27:49.123", "2026/11/21 15:27:49.124", "2026/11/21 15:27:48.123",
        "2026/11/21 15:28:49.123", "2026/11/21 16:27:49.123", "2026/11/22 15:27:49.123",
        "2027/11/21 15:27:49.123", "2026/11/21 15:27:49",     "2026/11/21 15:27:49.1234",
        "2026/11/21 15:27:49.12x", "2026/11/21 15:27:61.123", "2026/11/21 15:27:49.123456789012",
        "2026/11/21 15:27:49.12345678901234", "2026/11/21 15:27:49,123",
    };
    const size_t np = sizeof pool / sizeof pool[0];
    struct rd_tz tz;
    CU_ASSERT_EQUAL_FATAL(rd_tz_parse("+05:30", false, &tz), 0);
    struct rd_smi_clock c = {0};
    srand(11);
    unsigned long bad = 0;
    for (int i = 0; i < 20000; i++) {
        const char *t = pool[(size_t)rand() % np];
        char buf[64] = {0}; /* the parser may read 16 bytes from the start */
        size_t n = strlen(t);
        memcpy(buf, t, n);
        struct rd_smi_clock fresh = {0};
        double a = -1, b = -1;
        bool oka = rd_parse_smi_ts(&c, &tz, buf, n, &a);
        bool okb = rd_parse_smi_ts(&fresh, &tz, buf, n, &b);
        if (oka != okb || (oka && a != b)) {
            if (bad++ < 3)
                fprintf(stderr, "%s: reused clock %d %.17g, fresh %d %.17g\n", t, oka, a, okb, b);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* The fast splitter must give exactly libcsv's cells for every line it takes. */
static void test_split_equivalence(void)
{
    static const char alphabet[] = "a1 ,\t.[]-x,, ";
    struct rd_quality q;
    struct rd_reader *r = rd_reader_new(HW_FILE_GPU, "t", NULL, NULL, &q);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    srand(3);
    char line[64];
    char cells[RD_MAX_COLS][64];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(rand() % 40);
        for (size_t i = 0; i < n; i++)
            line[i] = alphabet[rand() % (int)(sizeof alphabet - 1)];
        line[n] = '\0';
        if (strspn(line, " \t") >= n)
            continue; /* blank lines never reach a splitter */
        CU_ASSERT_TRUE(rd_split_csv(r, line, n));
        size_t nc = r->cells.n;
        for (size_t i = 0; i < nc; i++) {
            CU_ASSERT_EQUAL(strlen(r->cells.s[i]), r->cells.len[i]);
            snprintf(cells[i], 64, "%s", r->cells.s[i]);
        }
        CU_ASSERT_TRUE(rd_split_libcsv(r, line, n));
        bool same = r->cells.n == nc;
        for (size_t i = 0; same && i < nc; i++)
            same = !strcmp(cells[i], r->cells.s[i]);
        if (!same) {
            fprintf(stderr, "split differs on '%.*s'\n", (int)n, line);
            CU_FAIL("fast split != libcsv");
            break;
        }
    }
    rd_reader_free(r);
}

void add_readers_suite(void)
{
    CU_pSuite s = th_add_suite("readers", NULL, NULL, 60);
    CU_add_test(s, "gpu_default_layout", test_gpu_default_layout);
    CU_add_test(s, "gpu_chunking", test_gpu_chunking);
    CU_add_test(s, "gpu_legacy_versions", test_gpu_legacy_versions);
    CU_add_test(s, "gpu_field_lists", test_gpu_field_lists);
    CU_add_test(s, "gpu_header_units", test_gpu_header_units);
    CU_add_test(s, "gpu_fields_and_position", test_gpu_fields_and_position);
    CU_add_test(s, "gpu_fields_of_the_table", test_gpu_fields_of_the_table);
    CU_add_test(s, "gpu_bad_lines", test_gpu_bad_lines);
    CU_add_test(s, "sentinels", test_sentinels);
    CU_add_test(s, "too_long_and_binary", test_too_long_and_binary);
    CU_add_test(s, "dmon", test_dmon);
    CU_add_test(s, "dmon_date_time", test_dmon_date_time);
    CU_add_test(s, "smi_tz_every_path", test_smi_tz_every_path);
    CU_add_test(s, "cpu_proc", test_cpu_proc);
    CU_add_test(s, "gpu_procs", test_gpu_procs);
    CU_add_test(s, "runlog", test_runlog);
    CU_add_test(s, "runlog_parts", test_runlog_parts);
    CU_add_test(s, "run_info", test_run_info);
    CU_add_test(s, "tz", test_tz);
    CU_add_test(s, "smi_ts_repeat", test_smi_ts_repeat);
    CU_add_test(s, "split_equivalence", test_split_equivalence);
}
