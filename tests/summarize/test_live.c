/* summarize --live and the live state under it (runlog/rundir/live.h, summarize/liveview.h): a
 * run directory followed while it is written (not there yet, half lines, files that appear
 * late, a FIFO where a file should be), every byte read once, the energy of the summary, phases
 * and their previous durations, and the views as a person sees them (status, open phase, the
 * latest GPU values, widths, hostile names). The terminal itself: tests/summarize/live_tmux.sh. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "sumtest.h"
#include "gpurow.h"
#include "live.h"
#include "liveview.h"
#include "hwrun/io.h"
#include "hwrun/timeutil.h"

#define T0 "2026-11-21T10:00:"

/* hwmon's start event, with its default field list (built once, kept) */
static const char *start_line(void)
{
    static char *line;
    if (!line)
        line = th_fmt("{\"ts\": \"" T0 "00.000+00:00\", \"type\": \"event\", \"event\": "
                      "\"start\", \"data\": {\"interval_s\": 0.5, \"smi_tz\": \"UTC\", \"host\": "
                      "\"node7\", \"hwmon_pid\": 1, \"command\": [\"python3\", \"train.py\"], "
                      "\"gpu_query_fields\": \"%s\"}}\n",
                      hw_gpu_fields_default());
    return line;
}

/* hwmon's hw_metrics.csv row (the default fields) for GPU g at second s (half seconds) */
static char *gpu_row(int g, int half, double util, double watts)
{
    char ts[40], uuid[16];
    snprintf(ts, sizeof ts, "2026/11/21 10:00:%02d.%03d", half / 2, (half % 2) * 500);
    snprintf(uuid, sizeof uuid, "GPU-%d", g);
    struct th_gpu_vals v = th_gpu_vals_h100();
    v.v[HW_GM_UTIL] = util;
    v.v[HW_GM_POWER] = watts;
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    th_gpu_row(&b, NULL, ts, g, uuid, &v);
    char *row = th_fmt("%.*s", (int)b.len, b.p);
    hw_buf_free(&b);
    return row;
}

static void append(const char *dir, const char *name, const char *text)
{
    char *p = th_fmt("%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    free(p);
}

static void append_rows(const char *dir, int from, int to)
{
    for (int h = from; h < to; h++)
        for (int g = 0; g < 2; g++) {
            char *r = gpu_row(g, h, 10 * g + h % 90, 100 + 10 * h + g);
            append(dir, "hw_metrics.csv", r);
            free(r);
        }
}

static uint64_t dir_bytes(const char *dir)
{
    uint64_t n = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        char *p = th_fmt("%s/%s", dir, hw_file_names[k]);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            n += (uint64_t)st.st_size;
        free(p);
    }
    return n;
}

/* A run followed from before its directory exists to its end: at every step the state is what
 * the bytes so far say, each byte is read once, and the energy is the summary's. */
static void test_follows(void)
{
    char *base = th_tmpdir("live");
    char *dir = th_fmt("%s/run", base);
    struct rd_live l;
    CU_ASSERT_EQUAL_FATAL(rd_live_open(&l, dir, NULL), 0);
    CU_ASSERT_EQUAL(rd_live_update(&l), 0); /* not there yet: nothing, no error */
    CU_ASSERT_FALSE(rd_live_started(&l));
    CU_ASSERT_EQUAL(mkdir(dir, 0755), 0);
    /* the job's own entry before hwmon's start event (the job starts first) */
    append(dir, "run.jsonl",
           "{\"ts\": \"" T0 "00.000+00:00\", \"type\": \"phase_begin\", \"name\": \"warmup\", "
           "\"phase_id\": \"1\"}\n");
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.nopen, 1);
    CU_ASSERT_STRING_EQUAL(rd_live_current(&l)->name, "warmup");
    append(dir, "run.jsonl", start_line());
    append_rows(dir, 0, 3);
    char *torn = gpu_row(0, 3, 77, 130);
    size_t half = strlen("2026/11/21 10:00:01.500, 77, 30");
    CU_ASSERT_FATAL(!strncmp(torn, "2026/11/21 10:00:01.500, 77, 30, ", half + 2));
    torn[half] = '\0';
    append(dir, "hw_metrics.csv", torn); /* half a line */
    torn[half] = ',';
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.ngpus, 2);
    CU_ASSERT_DOUBLE_EQUAL(l.gpu[1].v[HW_GM_UTIL], 10 + 2, 1e-9); /* row 2, not the half one */
    CU_ASSERT_DOUBLE_EQUAL(l.info.interval_s, 0.5, 1e-12);
    append(dir, "hw_metrics.csv", torn + half);
    free(torn);
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_DOUBLE_EQUAL(l.gpu[0].v[HW_GM_UTIL], 77, 1e-9); /* the line, once whole */
    char *row = gpu_row(1, 3, 13, 131);
    append(dir, "hw_metrics.csv", row);
    free(row);
    append_rows(dir, 4, 40);
    append(dir, "run.jsonl",
           "{\"ts\": \"" T0 "05.000+00:00\", \"type\": \"phase\", \"name\": \"warmup\", "
           "\"phase_id\": \"1\", \"seconds\": 5.0, \"steps\": 50}\n"
           "{\"ts\": \"" T0 "05.000+00:00\", \"type\": \"phase_begin\", \"name\": \"train\", "
           "\"phase_id\": \"2\"}\n"
           "{\"ts\": \"" T0 "12.000+00:00\", \"type\": \"phase\", \"name\": \"train\", "
           "\"phase_id\": \"2\", \"seconds\": 7.0, \"steps\": 70}\n"
           "{\"ts\": \"" T0 "12.000+00:00\", \"type\": \"phase_begin\", \"name\": \"train\", "
           "\"phase_id\": \"3\"}\n");
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.phases, 2);
    CU_ASSERT_EQUAL(l.nopen, 1);
    CU_ASSERT_STRING_EQUAL(rd_live_current(&l)->name, "train");
    const struct rd_live_name *n = rd_live_name(&l, "train");
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    CU_ASSERT_EQUAL(n->nprev, 1);
    CU_ASSERT_DOUBLE_EQUAL(n->prev[0], 7.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(l.steps, 120, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(l.step_rate, 10, 1e-9);
    CU_ASSERT_EQUAL(l.bytes, dir_bytes(dir)); /* every byte read, once */
    rd_live_update(&l);
    CU_ASSERT_EQUAL(l.bytes, dir_bytes(dir));

    /* the energy so far is the summary's, to the last digit */
    struct sum_run *run = summarize_dir(dir);
    for (int g = 0; g < 2; g++)
        CU_ASSERT_DOUBLE_EQUAL(l.gpu[g].energy.joules, run->gpu[g]->energy.joules,
                               1e-12 * run->gpu[g]->energy.joules);
    sum_run_free(run);
    /* the last minute: the newest second's mean utilization of GPU 1 (rows 38, 39: 10 + 38,
     * 10 + 39) */
    double h[RD_LIVE_HIST];
    rd_live_history(&l.gpu[1], false, 1795255219, h); /* 2026-11-21T10:00:19Z */
    CU_ASSERT_DOUBLE_EQUAL(h[RD_LIVE_HIST - 1], 48.5, 1e-4);
    CU_ASSERT(isnan(h[0]));
    rd_live_close(&l);
    th_rmtree(base);
    free(dir);
    free(base);
}

/* run.jsonl rotated while followed (rotation.c): renamed and made again, the old file's last
 * lines are read, then the new one from its start; truncated in place, read again from 0; and a
 * view started after a rotation reads the earlier part first (the same phases, once each). */
static void test_rotated(void)
{
    char *dir = th_tmpdir("live-rotated");
    char *log = th_fmt("%s/run.jsonl", dir), *old = th_fmt("%s/run.jsonl.1", dir);
    static const char p1[] = "{\"ts\": \"" T0 "01.000+00:00\", \"type\": \"phase\", \"name\": "
                             "\"a\", \"seconds\": 1.0}\n";
    static const char p2[] = "{\"ts\": \"" T0 "02.000+00:00\", \"type\": \"phase\", \"name\": "
                             "\"b\", \"seconds\": 1.0}\n";
    static const char p3[] = "{\"ts\": \"" T0 "03.000+00:00\", \"type\": \"phase\", \"name\": "
                             "\"c\", \"seconds\": 1.0}\n";
    append(dir, "run.jsonl", start_line());
    append(dir, "run.jsonl", p1);
    struct rd_live l;
    CU_ASSERT_EQUAL_FATAL(rd_live_open(&l, dir, NULL), 0);
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.phases, 1);
    /* a line written into the old file after we read it, then the rename, then the new file */
    append(dir, "run.jsonl", p2);
    CU_ASSERT_EQUAL(rename(log, old), 0);
    char *cont = th_fmt("{\"ts\": \"" T0 "02.500+00:00\", \"type\": \"event\", \"event\": "
                        "\"log_continued\", \"data\": {\"previous\": \"run.jsonl.1\", \"pid\": 1, "
                        "\"severity\": \"info\"}}\n%s", p3);
    append(dir, "run.jsonl", cont);
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.phases, 3); /* a, b (the old file's last), c (the new one's) */
    CU_ASSERT_STRING_EQUAL(l.recent[l.nrecent - 1].name, "c");
    /* copytruncate: cut in place, then written again from its start */
    CU_ASSERT_EQUAL(truncate(log, 0), 0);
    append(dir, "run.jsonl", p1);
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.phases, 4);
    rd_live_close(&l);
    /* a view started now: the part named first, then the file */
    CU_ASSERT_EQUAL(truncate(log, 0), 0);
    append(dir, "run.jsonl", cont);
    CU_ASSERT_EQUAL_FATAL(rd_live_open(&l, dir, NULL), 0);
    CU_ASSERT_EQUAL(rd_live_update(&l), 0);
    CU_ASSERT_EQUAL(l.phases, 3);
    CU_ASSERT_TRUE(rd_live_started(&l)); /* the start event was in the part */
    rd_live_close(&l);
    free(cont);
    free(log);
    free(old);
    th_rmtree(dir);
    free(dir);
}

/* A FIFO where a file should be is not opened (an update never blocks on it); the other files
 * are read. */
static void test_fifo(void)
{
    char *dir = th_tmpdir("live-fifo");
    put_file(dir, "run.jsonl", start_line());
    char *p = th_fmt("%s/hw_metrics.csv", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(p, 0644), 0);
    struct rd_live l;
    CU_ASSERT_EQUAL_FATAL(rd_live_open(&l, dir, NULL), 0);
    double t = hw_mono_now();
    CU_ASSERT(rd_live_update(&l) < 0); /* said, not waited on */
    CU_ASSERT(hw_mono_now() - t < 5);
    CU_ASSERT_EQUAL(l.info.starts, 1);
    rd_live_close(&l);
    free(p);
    th_rmtree(dir);
    free(dir);
}

/* A finished run as the screen shows it: the status and why, the phases, each GPU's latest
 * values; no line wider than the terminal, no more lines than it has. */
static void test_screen(void)
{
    char *dir = th_tmpdir("live-screen");
    append(dir, "run.jsonl", start_line());
    append_rows(dir, 0, 19);
    append(dir, "hw_metrics.csv", "not, a, row\n"); /* skipped, and counted on the screen */
    append_rows(dir, 19, 20);
    append(dir, "run.jsonl",
           "{\"ts\": \"" T0 "04.000+00:00\", \"type\": \"phase\", \"name\": \"load_data\", "
           "\"seconds\": 4.0}\n"
           "{\"ts\": \"" T0 "09.000+00:00\", \"type\": \"phase\", \"name\": \"train\", "
           "\"seconds\": 5.0, \"exit_status\": 3}\n"
           "{\"ts\": \"" T0 "09.500+00:00\", \"type\": \"event\", \"event\": \"clock_step\", "
           "\"data\": {\"step_s\": 3600.0, \"severity\": \"info\"}}\n"
           "{\"ts\": \"" T0 "10.000+00:00\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
           "{\"exit_status\": 3, \"duration_s\": 10.0}}\n");
    /* the same run summarized: its text and its page say the clock stepped */
    struct sum_run *sr = summarize_dir(dir);
    struct hw_buf txt;
    hw_buf_init(&txt, NULL, 0);
    sum_report_text(sr, &txt);
    hw_buf_putc(&txt, '\0');
    unwrap_text(txt.p);
    CU_ASSERT_PTR_NOT_NULL(strstr(txt.p, "note: the wall clock stepped once during the run "
                                         "(+3600.0 s in all)"));
    CU_ASSERT_EQUAL(sr->clock_steps, 1);
    hw_buf_free(&txt);
    sum_run_free(sr);
    struct sum_live *v = sum_live_new(dir, "exp-1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(sum_live_update(v), 0);
    CU_ASSERT_EQUAL(sum_live_status(v), SUM_STATUS_FAILED);
    struct sum_units u;
    sum_units_init(&u);
    struct hw_buf out;
    hw_buf_init(&out, NULL, 0);
    sum_live_screen(v, 1795255300, 40, 132, &u, &out);
    hw_buf_putc(&out, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "FAILED  10.0 s  exp-1 on node7  $ python3 train.py"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "train 5.0 s FAILED"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "load_data 4.0 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "phase train failed")); /* a warning */
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "   lines skipped 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "the wall clock stepped +3600.0 s"));
    /* GPU 1's latest row (19): util 10 + 19, power 100 + 190 + 1 */
    char *want = th_fmt("\n1   29%%");
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "291 W"));
    free(want);
    for (int cols = 20; cols <= 200; cols += 30)
        for (int rows = 1; rows <= 30; rows += 7) {
            hw_buf_reset(&out);
            sum_live_screen(v, 1795255300, rows, cols, &u, &out);
            hw_buf_putc(&out, '\0');
            int nlines = 0;
            for (char *s = out.p, *e; *s; s = e + 1) {
                e = strchr(s, '\n');
                CU_ASSERT_FATAL(e != NULL);
                int chars = 0;
                for (char *c = s; c < e; c++)
                    chars += ((unsigned char)*c & 0xC0) != 0x80;
                CU_ASSERT(chars <= cols);
                nlines++;
            }
            CU_ASSERT(nlines <= rows);
        }
    hw_buf_free(&out);
    sum_live_free(v);
    th_rmtree(dir);
    free(dir);
}

/* A phase name from the job is shown, never obeyed: an escape sequence or a byte that is not
 * UTF-8 reaches the terminal as '?' and U+FFFD. */
static void test_hostile_names(void)
{
    char *dir = th_tmpdir("live-names");
    append(dir, "run.jsonl", start_line());
    append(dir, "run.jsonl",
           "{\"ts\": \"" T0 "01.000+00:00\", \"type\": \"phase_begin\", \"name\": "
           "\"ep\\u001b[2J\\u0007och\\u009b\", \"phase_id\": \"9\"}\n");
    struct sum_live *v = sum_live_new(dir, "bad\xff\x1b]0;x\x07name");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    sum_live_update(v);
    struct hw_buf out;
    hw_buf_init(&out, NULL, 0);
    sum_live_screen(v, 1795255300, 30, 120, NULL, &out);
    sum_live_line(v, 1795255300, &out);
    sum_live_sweep_row(v, 1795255300, 120, NULL, &out);
    hw_buf_putc(&out, '\0');
    for (size_t i = 0; i + 1 < out.len; i++)
        CU_ASSERT(out.p[i] == '\n' || ((unsigned char)out.p[i] >= 0x20 && out.p[i] != 0x7f));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "ep?[2J?och?"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "bad\xEF\xBF\xBD?]0;x?name"));
    hw_buf_free(&out);
    sum_live_free(v);
    th_rmtree(dir);
    free(dir);
}

/* The log line: one value per GPU for each figure, words without blanks, the status; unmeasured
 * is "-". */
static void test_line(void)
{
    char *dir = th_tmpdir("live-line");
    append(dir, "run.jsonl", start_line());
    append_rows(dir, 0, 4);
    char *row = gpu_row(0, 4, 50, NAN); /* power [N/A] */
    append(dir, "hw_metrics.csv", row);
    free(row);
    struct sum_live *v = sum_live_new(dir, "my run");
    sum_live_update(v);
    struct hw_buf out;
    hw_buf_init(&out, NULL, 0);
    sum_live_line(v, 1795255300, &out);
    hw_buf_putc(&out, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, " run=my_run status="));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, " gpu_util_pct=50,13 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, " gpu_power_w=-,131.0 "));
    CU_ASSERT_EQUAL(out.p[out.len - 2], '\n');
    sum_live_free(v);
    /* a directory not created yet waits (the real H100's first line said unknown and nan) */
    char *later = th_fmt("%s/not-yet", dir);
    v = sum_live_new(later, NULL);
    sum_live_update(v);
    hw_buf_reset(&out);
    sum_live_line(v, 1795255300, &out);
    hw_buf_putc(&out, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, " run=not-yet status=waiting elapsed_s=- phases=0\n"));
    free(later);
    hw_buf_free(&out);
    sum_live_free(v);
    th_rmtree(dir);
    free(dir);
}

/* hw_health.csv as it happens: the reasons a GPU's clocks are held down now, its power limit,
 * and a warning, once, when uncorrected ECC errors grow or a row remap is pending. */
static void test_health(void)
{
    char *dir = th_tmpdir("live-health");
    append(dir, "run.jsonl", start_line());
    append_rows(dir, 0, 4);
    struct hw_buf h;
    hw_buf_init(&h, NULL, 0);
    hw_buf_puts(&h, "timestamp, index");
    for (int i = 0; i < HW_HEALTH_COUNT; i++)
        hw_buf_printf(&h, ", %s", hw_health_fields[i]);
    hw_buf_puts(&h, "\n");
    static const char *const rows[] = {
        /* reasons: none, ECC 5 (before the run: not news) */
        "2026/11/21 10:00:00.000, 0, 90, P0, 1980, 1980, 20, 650.00, 640.00, 700.00, 690.00, "
        "0x0000000000000000, 0, 0, 0, 0, 0, 0, 5, [N/A], No, No, 5, 5, 16, 16\n",
        /* power cap and HW thermal; ECC 7; a remap pending */
        "2026/11/21 10:00:01.000, 0, 90, P0, 1410, 1980, 2, 700.00, 690.00, 700.00, 690.00, "
        "0x0000000000000044, 0, 0, 0, 0, 0, 0, 7, [N/A], Yes, No, 5, 5, 16, 16\n",
        "2026/11/21 10:00:02.000, 0, 90, P0, 1410, 1980, 2, 700.00, 690.00, 700.00, 690.00, "
        "0x0000000000000044, 0, 0, 0, 0, 0, 0, 7, [N/A], Yes, No, 5, 5, 16, 16\n",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        hw_buf_puts(&h, rows[i]);
    hw_buf_putc(&h, '\0');
    append(dir, "hw_health.csv", h.p);
    hw_buf_free(&h);
    struct sum_live *v = sum_live_new(dir, NULL);
    sum_live_update(v);
    sum_live_update(v);
    struct hw_buf out;
    hw_buf_init(&out, NULL, 0);
    sum_live_screen(v, 1795255300, 40, 160, NULL, &out);
    hw_buf_putc(&out, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "power+hw-thermal"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "/690 W")); /* the enforced limit */
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "GPU 0: 2 uncorrected ECC errors since the run began"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.p, "GPU 0: a memory row remap is pending"));
    CU_ASSERT_EQUAL(v->warnings, 2); /* once each, over two updates and two rows */
    hw_buf_free(&out);
    sum_live_free(v);
    th_rmtree(dir);
    free(dir);
}

/* The command line: a file where a run directory should be is an error (exit 1, the name and
 * why); one not created yet is waited for; --plain and --refresh go with --live; a finished
 * run piped prints its final line and exits 0. */
static void test_cli(void)
{
    char *dir = th_tmpdir("live-cli");
    char *file = th_fmt("%s/notes.txt", dir);
    put_file(dir, "notes.txt", "x\n");
    struct th_result r = run_summarize((char *[]){"--live", file, NULL});
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "notes.txt: Not a directory"));
    th_result_free(&r);
    r = run_summarize((char *[]){"--plain", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    r = run_summarize((char *[]){"--live", "--refresh", "0", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    append(dir, "run.jsonl", start_line());
    append_rows(dir, 0, 2);
    append(dir, "run.jsonl", "{\"ts\": \"" T0 "01.000+00:00\", \"type\": \"event\", \"event\": "
                             "\"stop\", \"data\": {\"exit_status\": 0, \"duration_s\": 1.0}}\n");
    r = run_summarize((char *[]){"--live", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(th_count_lines(r.out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " status=ok elapsed_s=1 phases=0 gpu_util_pct=1,11 "));
    th_result_free(&r);
    /* lines that cannot be written (a full disk): exit 1 and why, not a silent success */
    if (access("/dev/full", W_OK) == 0) {
        char *cmd = th_fmt("exec '%s' --live --plain '%s' > /dev/full",
                           th_env("HWRUN_SUMMARIZE_BIN"), dir);
        char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 30, &r) == 0);
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "summarize: write standard output: No space left"));
        th_result_free(&r);
        free(cmd);
    } else {
        th_skip("no /dev/full");
    }
    free(file);
    th_rmtree(dir);
    free(dir);
}

/* A failed phase's steps were planned, not done: the live view's count is summarize's. */
static void test_failed_steps(void)
{
    char *dir = th_tmpdir("live-steps");
    append(dir, "run.jsonl", start_line());
    append(dir, "run.jsonl",
           "{\"ts\": \"" T0 "02.000+00:00\", \"type\": \"phase\", \"name\": \"epoch\", "
           "\"seconds\": 2.0, \"steps\": 47}\n"
           "{\"ts\": \"" T0 "04.000+00:00\", \"type\": \"phase\", \"name\": \"epoch\", "
           "\"seconds\": 2.0, \"steps\": 47, \"exception\": \"RuntimeError: boom\"}\n");
    struct sum_live *v = sum_live_new(dir, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(sum_live_update(v), 0);
    CU_ASSERT_EQUAL(v->live.steps, 47);
    CHECK_NEAR(v->live.step_rate, 23.5, 1e-9); /* the good epoch's */
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL(run->steps, v->live.steps);
    sum_run_free(run);
    sum_live_free(v);
    th_rmtree(dir);
    free(dir);
}

void add_live_suite(void)
{
    CU_pSuite s = th_add_suite("live", NULL, NULL, 60);
    CU_add_test(s, "failed_steps", test_failed_steps);
    CU_add_test(s, "follows", test_follows);
    CU_add_test(s, "fifo", test_fifo);
    CU_add_test(s, "rotated", test_rotated);
    CU_add_test(s, "screen", test_screen);
    CU_add_test(s, "hostile_names", test_hostile_names);
    CU_add_test(s, "line", test_line);
    CU_add_test(s, "health", test_health);
    CU_add_test(s, "cli", test_cli);
}
