/* Suite "cli": the built summarize binary: exit codes, messages, --help/--version, --write
 * (atomic DIR/summary.json), csv/jsonl one row per directory with the header once, -j giving
 * the same output as one job, -o, --smi-tz, explicit file options, and the JSON being valid. */
#include <dirent.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwrun/buf.h"
#include "hwrun/timeutil.h"
#include "jobreport.h"
#include "report.h"
#include "sumtest.h"

static const char gpu_rows[] =
    "2026/11/21 15:27:49.697, 45, 12, 30000, 81559, 250.50, 55, 1980, 2619, 0, GPU-aaa\n"
    "2026/11/21 15:27:51.697, 100, 50, 40000, 81559, 650.25, 60, 1980, 2619, 0, GPU-aaa\n"
    "2026/11/21 15:27:53.697, 100, 50, 40000, 81559, [N/A], 60, 1980, 2619, 0, GPU-aaa\n"
    "bad line\n";

static struct th_result run(const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)th_env("HWRUN_SUMMARIZE_BIN");
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    struct th_result r;
    if (th_run(argv, NULL, NULL, 60, &r) != 0) {
        CU_FAIL("cannot run summarize");
        memset(&r, 0, sizeof r);
        r.status = -1;
    }
    return r;
}

static char *make_dir(int variant)
{
    char *dir = th_tmpdir("cli");
    put_file(dir, "hw_metrics.csv", gpu_rows);
    char *cpu = th_fmt("timestamp,usr_pct,idle_pct\n2026-11-21T15:27:50.000+00:00,%d.5,80.0\n",
                       10 + variant);
    put_file(dir, "cpu_metrics.csv", cpu);
    free(cpu);
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-21T15:27:52.000+00:00\", \"type\": \"phase\", \"name\": "
             "\"train\", \"seconds\": 2.5}\n");
    return dir;
}

static void test_help_version_usage(void)
{
    struct th_result r = run((const char *[]){"--version", NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out, "summarize (hwrun) " HWRUN_VERSION "\n");
    th_result_free(&r);
    r = run((const char *[]){"--help", NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Exit status"));
    th_result_free(&r);
    r = run((const char *[]){NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "summarize: no run directory given"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "Try 'summarize --help'"));
    th_result_free(&r);
    r = run((const char *[]){"--format", "xml", "/tmp", NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    r = run((const char *[]){"--bogus", NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    r = run((const char *[]){"-j", "0", "/tmp", NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    r = run((const char *[]){"--smi-tz", "Mars/Base", "/tmp", NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
}

static void test_exit_codes(void)
{
    struct th_result r = run((const char *[]){"/nonexistent/run", NULL});
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "summarize: /nonexistent/run:"));
    th_result_free(&r);
    char *empty = th_tmpdir("cli-empty");
    r = run((const char *[]){empty, NULL});
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "nothing usable"));
    th_result_free(&r);
    /* an unreadable file: a directory where a file should be */
    char *sub = th_fmt("%s/hw_metrics.csv", empty);
    mkdir(sub, 0755);
    put_file(empty, "cpu_metrics.csv", "timestamp,usr_pct,idle_pct\n2026-11-21T15:27:50Z,1,2\n");
    r = run((const char *[]){empty, NULL});
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "hw_metrics.csv: is a directory"));
    th_result_free(&r);
    th_rmtree(empty);
    free(empty);
    free(sub);
}

static void test_json_and_messages(void)
{
    char *dir = make_dir(0);
    struct th_result r = run((const char *[]){dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    /* bad line reported as FILE:LINE */
    char *want = th_fmt("summarize: %s/hw_metrics.csv:4: ", dir);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, want));
    free(want);
    struct json_object *o = json_tokener_parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    struct json_object *v;
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "power_watts_max", &v));
    CU_ASSERT_EQUAL(json_object_get_double(v), 650.25);
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "peak_rss_mb", &v));
    CU_ASSERT_PTR_NULL(v); /* never measured: null */
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "phases", &v));
    CU_ASSERT_EQUAL(json_object_array_length(v), 1);
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "quality", &v));
    json_object_put(o);
    th_result_free(&r);
    /* -q: no messages */
    r = run((const char *[]){"-q", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(r.err_len, 0);
    th_result_free(&r);
    /* text */
    r = run((const char *[]){"-q", "-f", "text", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "phase train"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

static void test_write(void)
{
    char *dir = make_dir(0);
    struct th_result r = run((const char *[]){"-q", "--write", "-f", "csv", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    char *path = th_fmt("%s/summary.json", dir);
    size_t len;
    char *s = th_read_file(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    struct json_object *o = json_tokener_parse(s);
    CU_ASSERT_PTR_NOT_NULL(o);
    json_object_put(o);
    free(s);
    /* no temporary file left behind */
    DIR *d = opendir(dir);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    CU_ASSERT_EQUAL(entries, 4);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0644);
    th_result_free(&r);
    free(path);
    r = run((const char *[]){"--write", NULL});
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

struct fifo_reader {
    const char *path;
    char *data;
    size_t len;
};

static void *read_fifo(void *arg)
{
    struct fifo_reader *f = arg;
    f->data = th_read_file(f->path, &f->len); /* open waits for the writer */
    return NULL;
}

/* -o FILE and --html FILE write into what is not a regular file, as `tee` does, and never
 * replace it: /dev/null stays a character device, a FIFO's reader gets the report, a link to
 * /proc/self/fd/1 writes to standard output and stays a link; a link to a regular file replaces
 * the file and keeps the link; a directory is refused with its reason. */
static void test_output_targets(void)
{
    char *dir = make_dir(0);
    char *root = th_tmpdir("outputs");
    struct stat st;
    for (int html = 0; html < 2; html++) {
        const char *opt = html ? "--html" : "-o";
        struct th_result r = run((const char *[]){"-q", opt, "/dev/null", dir, NULL});
        CU_ASSERT_EQUAL(r.status, 0);
        th_result_free(&r);
        CU_ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

        char *fifo = th_fmt("%s/fifo%d", root, html);
        CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
        struct fifo_reader fr = {.path = fifo};
        pthread_t t;
        CU_ASSERT_FATAL(pthread_create(&t, NULL, read_fifo, &fr) == 0);
        r = run((const char *[]){"-q", "-f", "json", opt, fifo, dir, NULL});
        CU_ASSERT_EQUAL(r.status, 0);
        th_result_free(&r);
        pthread_join(t, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fr.data);
        CU_ASSERT_PTR_NOT_NULL(strstr(fr.data, html ? "<!DOCTYPE html>" : "\"phases\""));
        free(fr.data);
        CU_ASSERT(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
        free(fifo);

        char *link = th_fmt("%s/stdout%d", root, html);
        CU_ASSERT_FATAL(symlink("/proc/self/fd/1", link) == 0);
        r = run((const char *[]){"-q", "-f", "json", opt, link, dir, NULL});
        CU_ASSERT_EQUAL(r.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, html ? "<!DOCTYPE html>" : "\"phases\""));
        th_result_free(&r);
        CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
        free(link);

        char *file = th_fmt("%s/file%d", root, html), *flink = th_fmt("%s/flink%d", root, html);
        put_file(root, html ? "file1" : "file0", "old\n");
        CU_ASSERT_FATAL(symlink(file, flink) == 0);
        r = run((const char *[]){"-q", "-f", "json", opt, flink, dir, NULL});
        CU_ASSERT_EQUAL(r.status, 0);
        th_result_free(&r);
        CU_ASSERT(lstat(flink, &st) == 0 && S_ISLNK(st.st_mode));
        size_t n;
        char *got = th_read_file(file, &n);
        CU_ASSERT(got && strstr(got, html ? "<!DOCTYPE html>" : "\"phases\""));
        free(got);
        free(file);
        free(flink);

        r = run((const char *[]){"-q", opt, root, dir, NULL});
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "Is a directory"));
        th_result_free(&r);
        CU_ASSERT(lstat(root, &st) == 0 && S_ISDIR(st.st_mode));
    }
    th_rmtree(root);
    free(root);
    th_rmtree(dir);
    free(dir);
}

/* A link another user owns (in a shared /tmp, theirs to point anywhere) is never followed. */
static void test_output_foreign_link(void)
{
    if (geteuid() != 0) {
        th_skip("needs root, to make a link that another user owns (lchown)");
        return;
    }
    char *dir = make_dir(0);
    char *root = th_tmpdir("outputs");
    char *victim = th_fmt("%s/victim", root), *link = th_fmt("%s/theirs", root);
    put_file(root, "victim", "keep\n");
    CU_ASSERT_FATAL(symlink(victim, link) == 0);
    CU_ASSERT_FATAL(lchown(link, 65534, 65534) == 0);
    for (int html = 0; html < 2; html++) {
        struct th_result r = run((const char *[]){"-q", html ? "--html" : "-o", link, dir, NULL});
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "owned by another user (uid 65534)"));
        th_result_free(&r);
    }
    size_t n;
    char *got = th_read_file(victim, &n);
    CU_ASSERT(got && strcmp(got, "keep\n") == 0);
    free(got);
    struct stat st;
    CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    free(victim);
    free(link);
    th_rmtree(root);
    free(root);
    th_rmtree(dir);
    free(dir);
}

/* A sweep table any CSV reader takes whole: header cells quoted like any cell (a key with a
 * comma, a quote, a newline), bytes that are not UTF-8 as U+FFFD (a run dir), checked with
 * Python's csv module reading strict UTF-8 (and pandas, where it is installed). */
static void test_csv_hostile_keys(void)
{
    const char *py = th_python3();
    if (!py) {
        th_skip("no python3 >= 3.11 to read the CSV with");
        return;
    }
    char *root = th_tmpdir("csvkeys");
    char *a = th_fmt("%s/run\xff" "a", root), *b = th_fmt("%s/run,b", root);
    static const char lines[] =
        "{\"ts\": \"2026-11-21T15:27:50.000+00:00\", \"type\": \"event\", \"event\": \"config\", "
        "\"data\": {\"a,b\\\"c\\nd\": 1, \"lr\": 0.5}}\n"
        "{\"ts\": \"2026-11-21T15:27:51.000+00:00\", \"type\": \"event\", \"event\": \"metric\", "
        "\"data\": {\"m,\\\"x\": 2}}\n"
        "{\"ts\": \"2026-11-21T15:27:52.000+00:00\", \"type\": \"phase\", \"name\": "
        "\"p,\\\"q\\nr\", \"seconds\": 2.5}\n";
    for (int i = 0; i < 2; i++) {
        const char *d = i ? b : a;
        CU_ASSERT_FATAL(mkdir(d, 0755) == 0);
        put_file(d, "hw_metrics.csv", gpu_rows);
        put_file(d, "run.jsonl", lines);
    }
    char *out = th_fmt("%s/sweep.csv", root);
    struct th_result r = run((const char *[]){"-q", "-f", "csv", "-o", out, a, b, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *code = th_fmt(
        "import csv, sys\n"
        "with open(sys.argv[1], newline='', encoding='utf-8') as f:\n"
        "    rows = list(csv.reader(f))\n"
        "h = rows[0]\n"
        "assert len(rows) == 3, rows\n"
        "assert all(len(x) == len(h) for x in rows), [len(x) for x in rows]\n"
        "for k in ('param.a,b\"c\\nd', 'param.lr', 'metric.m,\"x'):\n"
        "    assert h.count(k) == 1, (k, h)\n"
        "assert any(c.startswith('phase.p,\"q\\nr.') for c in h), h\n"
        "d = h.index('dir')\n"
        "assert rows[1][d].endswith('run\\ufffda') and rows[2][d].endswith('run,b'), rows\n"
        "assert rows[1][h.index('param.a,b\"c\\nd')] == '1'\n"
        "assert rows[2][h.index('metric.m,\"x')] == '2'\n"
        "try:\n"
        "    import pandas\n"
        "except ImportError:\n"
        "    pandas = None\n"
        "if pandas is not None:\n"
        "    t = pandas.read_csv(sys.argv[1])\n"
        "    assert t.shape == (2, len(h)) and list(t.columns) == h\n"
        "print('ok')\n");
    char *argv[] = {(char *)py, "-c", code, out, NULL};
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 60, &r) == 0);
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out, "ok\n");
    th_result_free(&r);
    free(code);
    free(out);
    th_rmtree(root);
    free(root);
    free(a);
    free(b);
}

/* A config of 130 keys (a Hugging Face TrainingArguments dump) keeps every key and the metrics
 * after it (a table of 128 lost them all, silently); two keys of one event that flatten to one
 * ({"a.b": 5, "a": {"b": 6}}) are counted and named, in the JSON and the text. */
static void test_many_params_and_collisions(void)
{
    char *dir = th_tmpdir("params");
    put_file(dir, "hw_metrics.csv", gpu_rows);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, "{\"ts\": \"2026-11-21T15:27:50.000+00:00\", \"type\": \"event\", \"event\": "
                    "\"config\", \"data\": {");
    for (int i = 0; i < 130; i++)
        hw_buf_printf(&b, "%s\"k%03d\": %d", i ? ", " : "", i, i);
    hw_buf_puts(&b, ", \"a.b\": 5, \"a\": {\"b\": 6}}}\n"
                    "{\"ts\": \"2026-11-21T15:27:51.000+00:00\", \"type\": \"event\", \"event\": "
                    "\"metric\", \"data\": {\"acc\": 0.5}}\n"
                    "{\"ts\": \"2026-11-21T15:27:52.000+00:00\", \"type\": \"event\", \"event\": "
                    "\"config\", \"data\": {\"k000\": 7}}\n");
    hw_buf_putc(&b, '\0');
    put_file(dir, "run.jsonl", b.p);
    hw_buf_free(&b);
    struct th_result r = run((const char *[]){"-q", "-f", "json", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    struct json_object *o = json_tokener_parse(r.out), *params, *metrics, *q, *v;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "params", &params));
    CU_ASSERT_EQUAL(json_object_object_length(params), 131); /* k000..k129 and a.b */
    CU_ASSERT(json_object_object_get_ex(params, "k129", &v) && json_object_get_int(v) == 129);
    /* a later event setting a key again is no collision: the last value */
    CU_ASSERT(json_object_object_get_ex(params, "k000", &v) && json_object_get_int(v) == 7);
    CU_ASSERT(json_object_object_get_ex(params, "a.b", &v) && json_object_get_int(v) == 6);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "metrics", &metrics));
    CU_ASSERT(json_object_object_get_ex(metrics, "acc", &v) &&
              json_object_get_double(v) == 0.5);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "quality", &q));
    CU_ASSERT(json_object_object_get_ex(q, "param_collisions", &v) && json_object_get_int(v) == 1);
    CU_ASSERT(json_object_object_get_ex(q, "param_collision_first", &v) &&
              !strcmp(json_object_get_string(v), "param.a.b"));
    CU_ASSERT(json_object_object_get_ex(q, "params_dropped", &v) && json_object_get_int(v) == 0);
    json_object_put(o);
    th_result_free(&r);
    r = run((const char *[]){"-q", "-f", "text", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "1 param or metric key given twice in one event once "
                                         "nested objects are flattened with dots (first: "
                                         "`param.a.b`)"));
    th_result_free(&r);
    r = run((const char *[]){"-q", "-f", "csv", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",param.k129,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",metric.acc"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* hwmon stopped for 20 s (SIGSTOP, a frozen container): the text report names the gap, as the
 * JSON's quality.files[].gaps counts it. */
static void test_text_names_gaps(void)
{
    char *dir = th_tmpdir("gaps");
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, "timestamp,usr_pct,idle_pct\n");
    for (int i = 0; i < 30; i++) {
        int t = i < 10 ? i : i + 20; /* 10 samples, 20 s of none, 20 more */
        hw_buf_printf(&b, "2026-11-21T15:%02d:%02d.000+00:00,10.5,80.0\n", 27 + t / 60, t % 60);
    }
    hw_buf_putc(&b, '\0');
    put_file(dir, "cpu_metrics.csv", b.p);
    hw_buf_free(&b);
    struct th_result r = run((const char *[]){"-q", "-f", "text", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(unwrap_text(r.out), "warning: cpu_metrics.csv: 1 gap in "
                                                      "sampling (longest 21 s, the median step "
                                                      "1 s)"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* One run's JSON to standard output streams (hw_buf_spill, every SUM_SPILL_BYTES): a run of
 * 20000 phases, whose summary is several times that, prints the same bytes as the same summary
 * kept whole and written with -o; standard output that cannot be written (a full disk) is an
 * error, exit status 1, not a silent cut. */
static void test_streamed(void)
{
    char *dir = th_tmpdir("cli-stream");
    put_file(dir, "hw_metrics.csv", gpu_rows);
    struct hw_buf log;
    hw_buf_init(&log, NULL, 0);
    for (int i = 0; i < 20000; i++)
        hw_buf_printf(&log, "{\"ts\": \"2026-11-21T15:28:%02d.%03d+00:00\", \"type\": "
                      "\"phase\", \"name\": \"step\", \"seconds\": 0.001, \"step\": %d}\n",
                      i / 1000, i % 1000, i);
    hw_buf_putc(&log, '\0');
    put_file(dir, "run.jsonl", log.p);
    hw_buf_free(&log);
    char *file = th_fmt("%s/kept.json", dir);
    /* every phase listed (by default past 1000 only the kept ones are: a small summary) */
    struct th_result a = run((const char *[]){"-q", "--phases", "all", dir, NULL});
    struct th_result b = run((const char *[]){"-q", "--phases", "all", "-o", file, dir, NULL});
    CU_ASSERT_EQUAL(a.status, 0);
    CU_ASSERT_EQUAL(b.status, 0);
    size_t len = 0;
    char *kept = th_read_file(file, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
    CU_ASSERT(a.out_len > 2 * SUM_SPILL_BYTES); /* it did spill */
    CU_ASSERT_EQUAL(a.out_len, len);
    CU_ASSERT(a.out && memcmp(a.out, kept, len) == 0);
    free(kept);
    th_result_free(&a);
    th_result_free(&b);
    if (access("/dev/full", W_OK) == 0) {
        char *cmd = th_fmt("'%s' -q --phases all '%s' > /dev/full 2> '%s/err'",
                           th_env("HWRUN_SUMMARIZE_BIN"), dir, dir);
        int st = system(cmd);
        CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        char *errp = th_fmt("%s/err", dir), *err = th_read_file(errp, NULL);
        CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "No space left on device") : NULL);
        free(err);
        free(errp);
        free(cmd);
    }
    free(file);
    th_rmtree(dir);
    free(dir);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* The cell of column name in a CSV row of header h (cells without quotes), malloc'd; NULL when
 * the header has no such column. */
static char *csv_cell(const char *h, const char *row, const char *name)
{
    size_t nl = strlen(name);
    for (;;) {
        size_t hl = strcspn(h, ","), rl = strcspn(row, ",");
        if (hl == nl && !strncmp(h, name, nl))
            return strndup(row, rl);
        if (!h[hl])
            return NULL;
        h += hl + 1;
        row += rl + (row[rl] ? 1 : 0);
    }
}

/* A node of a job: run.jsonl saying its host and rank, its config (lr, bs, extra), its train
 * phase's exit status and the loss it logged; a CPU file. */
static void job_node(const char *job, const char *host, int rank, double lr, double loss,
                     int exit_status, const char *extra)
{
    char *dir = th_fmt("%s/%s", job, host);
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    char *log = th_fmt(
        "{\"ts\": \"2026-11-21T15:27:40.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"tool\": \"hwmon\", \"mode\": \"wrap\", \"interval_s\": 1, \"host\": \"%s\", "
        "\"context\": {\"host\": \"%s\", \"slurm_job_id\": \"77\", \"slurm_proc_id\": \"%d\"}}}\n"
        "{\"ts\": \"2026-11-21T15:27:40.100+00:00\", \"type\": \"event\", \"event\": \"config\", "
        "\"data\": {\"lr\": %g, \"bs\": 32%s}}\n"
        "{\"ts\": \"2026-11-21T15:27:45.000+00:00\", \"type\": \"phase\", \"name\": \"train\", "
        "\"seconds\": 4.5, \"exit_status\": %d}\n"
        "{\"ts\": \"2026-11-21T15:27:45.100+00:00\", \"type\": \"event\", \"event\": \"metric\", "
        "\"data\": {\"loss\": %g}}\n"
        "{\"ts\": \"2026-11-21T15:27:46.000+00:00\", \"type\": \"event\", \"event\": \"stop\", "
        "\"data\": {\"duration_s\": 6.0, \"exit_status\": %d}}\n",
        host, host, rank, lr, extra, exit_status, loss, exit_status);
    put_file(dir, "run.jsonl", log);
    put_file(dir, "cpu_metrics.csv", "timestamp,usr_pct,idle_pct\n"
                                     "2026-11-21T15:27:41.000+00:00,10.0,90.0\n"
                                     "2026-11-21T15:27:42.000+00:00,10.0,90.0\n");
    free(log);
    free(dir);
}

/* A sweep of two jobs of two ranks each: the job rows carry param.KEY and metric.KEY as a run's
 * row does, rank 0's (whichever node it ran on), lined up across the jobs in CSV (a key only one
 * job has is empty in the other's row); the failed phase and the node it failed on; the JSON
 * document has params and metrics objects, the text says them. */
static void test_job_rows(void)
{
    char *base = th_tmpdir("cli-jobrows");
    char *j1 = th_fmt("%s/job1", base), *j2 = th_fmt("%s/job2", base);
    CU_ASSERT_FATAL(mkdir(j1, 0755) == 0 && mkdir(j2, 0755) == 0);
    job_node(j1, "gpu-a", 0, 0.1, 1.5, 0, "");
    job_node(j1, "gpu-b", 1, 0.1, 1.7, 0, "");
    job_node(j2, "gpu-a", 1, 0.2, 2.5, 3, ", \"wd\": 0.01"); /* rank 1 fails */
    job_node(j2, "gpu-b", 0, 0.2, 2.0, 0, ", \"wd\": 0.01");
    struct th_result r = run((const char *[]){"-q", "-f", "csv", j1, j2, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    /* header, then the two rows: the last columns are the job's own tail, then the params */
    char *h = r.out, *row1 = h ? strchr(h, '\n') : NULL, *row2 = row1 ? strchr(row1 + 1, '\n') : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(row2);
    *row1++ = '\0';
    *row2++ = '\0';
    CU_ASSERT_TRUE_FATAL(ends_with(row2, "\n"));
    row2[strlen(row2) - 1] = '\0'; /* the last row, the document's end */
    /* the header: the job row's columns as its table says them (the run row's figures with a
     * job rule after the job's own), then the params */
    size_t nd;
    const struct sum_row_def *def = sum_job_row_defs(&nd);
    struct hw_buf want;
    hw_buf_init(&want, NULL, 0);
    for (size_t i = 0; i < nd; i++)
        hw_buf_printf(&want, "%s%s", i ? "," : "", def[i].key);
    hw_buf_puts(&want, ",param.lr,param.bs,metric.loss,param.wd");
    CU_ASSERT_FATAL(!want.oom);
    CU_ASSERT_STRING_EQUAL(h, want.p);
    hw_buf_free(&want);
    static const char *const cols[] = {"failed_phase", "failed_phase_node", "params_node",
                                       "running_nodes", "attempts", "proc_cpu_sec",
                                       "gpus_unsampled_sec", "cpu_usr_mean_pct", "param.lr",
                                       "param.bs", "metric.loss", "param.wd"};
    static const char *const want1[] = {"", "", "gpu-a", "0", "1", "", "", "10.0", "0.1", "32",
                                        "1.5", ""};
    static const char *const want2[] = {"train", "gpu-a", "gpu-b", "0", "1", "", "", "10.0",
                                        "0.2", "32", "2", "0.01"};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        char *c1 = csv_cell(h, row1, cols[k]), *c2 = csv_cell(h, row2, cols[k]);
        CU_ASSERT_STRING_EQUAL(c1 ? c1 : "(none)", want1[k]);
        CU_ASSERT_STRING_EQUAL(c2 ? c2 : "(none)", want2[k]);
        free(c1);
        free(c2);
    }
    th_result_free(&r);
    r = run((const char *[]){"-q", "-f", "jsonl", j2, NULL});
    json_object *o = json_tokener_parse(r.out ? r.out : "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    json_object *v;
    CU_ASSERT(json_object_object_get_ex(o, "param.wd", &v) && json_object_get_double(v) == 0.01);
    CU_ASSERT(json_object_object_get_ex(o, "metric.loss", &v) && json_object_get_double(v) == 2.0);
    CU_ASSERT(json_object_object_get_ex(o, "failed_phase", &v) &&
              !strcmp(json_object_get_string(v), "train"));
    json_object_put(o);
    th_result_free(&r);
    r = run((const char *[]){"-q", "-f", "json", j2, NULL});
    o = json_tokener_parse(r.out ? r.out : "");
    json_object *p = NULL, *m = NULL;
    CU_ASSERT(o && json_object_object_get_ex(o, "params", &p) &&
              json_object_object_get_ex(o, "metrics", &m));
    CU_ASSERT(p && json_object_object_get_ex(p, "lr", &v) && json_object_get_double(v) == 0.2);
    CU_ASSERT(m && json_object_object_get_ex(m, "loss", &v) && json_object_get_double(v) == 2.0);
    json_object_put(o);
    th_result_free(&r);
    r = run((const char *[]){"-q", "-f", "text", j2, NULL});
    CU_ASSERT_PTR_NOT_NULL(r.out ? strstr(r.out, "\n  failed phase: train (on gpu-a)\n"
                                                 "  params: lr 0.2, bs 32, wd 0.01 (from gpu-b)\n"
                                                 "  metrics: loss 2 (from gpu-b)\n")
                                 : NULL);
    th_result_free(&r);
    th_rmtree(base);
    free(base);
    free(j1);
    free(j2);
}

static void test_sweep_rows(void)
{
    char *dirs[5];
    for (int i = 0; i < 5; i++)
        dirs[i] = make_dir(i);
    const char *a1[] = {"-q", "-f", "csv", dirs[0], dirs[1], dirs[2], dirs[3], dirs[4], NULL};
    struct th_result r1 = run(a1);
    CU_ASSERT_EQUAL(r1.status, 0);
    CU_ASSERT_EQUAL(th_count_lines(r1.out), 6);
    CU_ASSERT_EQUAL(strncmp(r1.out, "dir,status,exit_status,signal,phases_failed,failed_phase,"
                            "failed_phase_reason,errors,open_phase,open_phase_sec,"
                            "outside_phases_sec,steps,sec_per_step,energy_wh_per_step,gpus,"
                            "num_samples,", 184), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r1.out, "\n" /* row order kept */));
    const char *a2[] = {"-q", "-j", "4", "-f", "csv", dirs[0], dirs[1], dirs[2], dirs[3],
                        dirs[4], NULL};
    struct th_result r2 = run(a2);
    CU_ASSERT_EQUAL(r2.status, 0);
    CU_ASSERT_STRING_EQUAL(r1.out, r2.out);
    /* rows in argument order */
    char *p0 = strstr(r1.out, dirs[0]), *p4 = strstr(r1.out, dirs[4]);
    CU_ASSERT(p0 && p4 && p0 < p4);
    th_result_free(&r1);
    th_result_free(&r2);
    const char *a3[] = {"-q", "-j", "3", "-f", "jsonl", dirs[0], dirs[1], dirs[2], NULL};
    r1 = run(a3);
    CU_ASSERT_EQUAL(r1.status, 0);
    CU_ASSERT_EQUAL(th_count_lines(r1.out), 3);
    char *line = strtok(r1.out, "\n");
    int n = 0;
    while (line) {
        struct json_object *o = json_tokener_parse(line);
        CU_ASSERT_PTR_NOT_NULL(o);
        struct json_object *v;
        CU_ASSERT_TRUE(json_object_object_get_ex(o, "cpu_usr_mean_pct", &v));
        CU_ASSERT_EQUAL(json_object_get_double(v), 10.5 + n);
        json_object_put(o);
        line = strtok(NULL, "\n");
        n++;
    }
    th_result_free(&r1);
    /* -o writes the file, nothing on stdout */
    char *out = th_fmt("%s/table.csv", dirs[0]);
    const char *a4[] = {"-q", "-f", "csv", "-o", out, dirs[1], dirs[2], NULL};
    r1 = run(a4);
    CU_ASSERT_EQUAL(r1.status, 0);
    CU_ASSERT_EQUAL(r1.out_len, 0);
    size_t len;
    char *s = th_read_file(out, &len);
    CU_ASSERT_PTR_NOT_NULL(s);
    CU_ASSERT_EQUAL(th_count_lines(s), 3);
    free(s);
    free(out);
    th_result_free(&r1);
    /* one good directory and one missing: rows for the good one, exit 1 */
    const char *a5[] = {"-q", "-f", "csv", dirs[1], "/nonexistent/x", NULL};
    r1 = run(a5);
    CU_ASSERT_EQUAL(r1.status, 1);
    CU_ASSERT_EQUAL(th_count_lines(r1.out), 2);
    th_result_free(&r1);
    for (int i = 0; i < 5; i++) {
        th_rmtree(dirs[i]);
        free(dirs[i]);
    }
}

static void test_file_options_and_tz(void)
{
    char *dir = make_dir(0);
    char *gpu = th_fmt("%s/hw_metrics.csv", dir);
    /* files given one by one; no start event: UTC by default, --smi-tz moves the samples */
    const char *a1[] = {"-q", "--gpu-csv", gpu, NULL};
    struct th_result r = run(a1);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"start\": \"2026-11-21T15:27:49.697+00:00\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"source\": \"default\""));
    th_result_free(&r);
    const char *a2[] = {"-q", "--smi-tz", "+05:30", "--gpu-csv", gpu, NULL};
    r = run(a2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"start\": \"2026-11-21T09:57:49.697+00:00\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"source\": \"option\""));
    th_result_free(&r);
    const char *a3[] = {"-q", "--smi-tz", "America/New_York", "--gpu-csv", gpu, NULL};
    r = run(a3);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"start\": \"2026-11-21T20:27:49.697+00:00\""));
    th_result_free(&r);
    /* the start event's smi_tz wins over the option */
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-21T15:27:40.000+00:00\", \"type\": \"event\", \"event\": "
             "\"start\", \"data\": {\"smi_tz\": \"UTC\"}}\n");
    const char *a4[] = {"-q", "--smi-tz", "+05:30", dir, NULL};
    r = run(a4);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"source\": \"start_event\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"end\": \"2026-11-21T15:27:53.697+00:00\""));
    th_result_free(&r);
    const char *a5[] = {"--gpu-csv", gpu, dir, dir, NULL};
    r = run(a5);
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    free(gpu);
    th_rmtree(dir);
    free(dir);
}

/* The text without its lines holding key (a path the two ways of naming files print apart). */
static char *drop_lines(const char *s, const char *key)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    for (const char *p = s; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        const char *hit = strstr(p, key);
        if (!hit || hit >= p + n)
            hw_buf_put(&b, p, n);
        p += n;
    }
    hw_buf_putc(&b, '\0');
    return b.p;
}

/* Every run file has its option (the run files' table, HW_RUN_FILES): each golden run's files,
 * copied under other names and given one by one, summarize as the directory does. */
static void test_every_file_option(void)
{
    const char *td = th_env("HWRUN_TESTDATA");
    const char *cases[] = {"h100-real", "basic", "jax"};
    size_t named = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *dir = th_fmt("%s/runs/%s", td, cases[c]);
        char *tmp = th_tmpdir("fileopt");
        char *path[HW_FILE_COUNT] = {0}, *opt[HW_FILE_COUNT] = {0};
        const char *args[2 * HW_FILE_COUNT + 4] = {"-q", "-f", "json"};
        size_t a = 3;
        for (int k = 0; k < HW_FILE_COUNT; k++) {
            char *src = th_fmt("%s/%s", dir, hw_file_names[k]);
            size_t len;
            char *text = th_read_file(src, &len);
            if (text) {
                opt[k] = th_fmt("--%s", hw_run_files[k].option);
                path[k] = th_fmt("%s/file-%d", tmp, k);
                th_write_file(path[k], text, len);
                args[a++] = opt[k];
                args[a++] = path[k];
                named++;
            }
            free(text);
            free(src);
        }
        args[a] = NULL;
        struct th_result by_option = run(args);
        struct th_result by_dir = run((const char *[]){"-q", "-f", "json", dir, NULL});
        CU_ASSERT_EQUAL(by_option.status, 0);
        CU_ASSERT_EQUAL(by_dir.status, 0);
        char *x = drop_lines(by_option.out ? by_option.out : "", "\"path\": ");
        char *y = drop_lines(by_dir.out ? by_dir.out : "", "\"path\": ");
        char *x2 = drop_lines(x, "\"dir\": "), *y2 = drop_lines(y, "\"dir\": ");
        if (strcmp(x2, y2))
            fprintf(stderr, "%s: its files named by option summarize otherwise\n", dir);
        CU_ASSERT_STRING_EQUAL(x2, y2);
        free(x), free(y), free(x2), free(y2);
        th_result_free(&by_option);
        th_result_free(&by_dir);
        for (int k = 0; k < HW_FILE_COUNT; k++)
            free(path[k]), free(opt[k]);
        th_rmtree(tmp);
        free(tmp);
        free(dir);
    }
    CU_ASSERT(named >= 10 + 7 + 3); /* h100-real has 10 files, basic 7; jax its own few */
}

static void test_pytyche_cli(void)
{
    char *dir = make_dir(0);
    struct th_result r = run((const char *[]){"-f", "pytyche", dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out,
                           "{\"cpu_idle_mean_pct\": 80.0, \"cpu_usr_mean_pct\": 10.5, "
                           "\"gpu_util_max_pct\": 100.0, \"gpu_util_mean_pct\": 72.5, "
                           "\"peak_vram_mb\": 40000.0, \"power_watts_max\": 650.2, "
                           "\"power_watts_mean\": 450.4}\n");
    th_result_free(&r);
    char *empty = th_tmpdir("cli-empty");
    r = run((const char *[]){"-f", "pytyche", empty, NULL});
    CU_ASSERT_EQUAL(r.status, 1); /* nothing there, but pytyche's zeros are printed */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"peak_vram_mb\": 0.0"));
    th_result_free(&r);
    th_rmtree(empty);
    free(empty);
    th_rmtree(dir);
    free(dir);
}

/* Replace every occurrence of from in s (malloc'd result). */
static char *replace_all(const char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = s; (p = strstr(p, from)); p += fl)
        n++;
    char *out = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1), *o = out;
    for (const char *p = s;;) {
        const char *q = strstr(p, from);
        if (!q) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, tl);
        o += tl;
        p = q + fl;
    }
    return out;
}

/* Every testdata/runs/X against testdata/expected/X.SUFFIX for every format of
 * testdata/expected/FORMATS (written by tests/golden/regen-summaries.sh and reviewed when it
 * changes) and, where the oracle printed one, X.pytyche.json: a run directory dropped into
 * testdata/runs, or a format added to FORMATS, is tested with no C edit. */
static int is_run_dir(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

struct golden_format {
    char suffix[32];
    char *argv[8]; /* summarize's arguments before the directory (into words) */
    char words[96];
};

/* FORMATS: "SUFFIX<TAB>ARGS" per line, '#' comments. Returns how many. */
static size_t golden_formats(const char *td, struct golden_format *f, size_t cap)
{
    char *p = th_fmt("%s/expected/FORMATS", td);
    char *text = th_read_file(p, NULL);
    free(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line && n < cap; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab)
            continue;
        *tab = '\0';
        snprintf(f[n].suffix, sizeof f[n].suffix, "%s", line);
        snprintf(f[n].words, sizeof f[n].words, "%s", tab + 1);
        int k = 0;
        for (char *w = strtok_r(f[n].words, " ", &tab); w && k < 6; w = strtok_r(NULL, " ", &tab))
            f[n].argv[k++] = w;
        f[n].argv[k] = NULL;
        n++;
    }
    free(text);
    return n;
}

static void test_golden(void)
{
    const char *td = th_env("HWRUN_TESTDATA");
    struct golden_format fmt[16];
    size_t nfmt = golden_formats(td, fmt, 16);
    CU_ASSERT(nfmt >= 4); /* summary.json, txt, csv, jsonl at least */
    char *runs_dir = th_fmt("%s/runs", td);
    struct dirent **ents;
    int n = scandir(runs_dir, &ents, is_run_dir, alphasort);
    CU_ASSERT_FATAL(n >= 4); /* basic, broken, jax, pytyche at least */
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        char *dir = th_fmt("%s/%s", runs_dir, name);
        char *exp_py = th_fmt("%s/expected/%s.pytyche.json", td, name);
        size_t len;
        char *want = th_read_file(exp_py, &len);
        if (want) {
            struct th_result r = run((const char *[]){"-f", "pytyche", dir, NULL});
            CU_ASSERT_EQUAL(r.status, 0);
            CU_ASSERT_STRING_EQUAL(r.out, want);
            th_result_free(&r);
            free(want);
        }
        for (size_t k = 0; k < nfmt; k++) {
            char *exp = th_fmt("%s/expected/%s.%s", td, name, fmt[k].suffix);
            want = th_read_file(exp, &len);
            if (!want)
                fprintf(stderr, "%s: no %s (tests/golden/regen-summaries.sh writes it)\n", dir,
                        exp);
            CU_ASSERT_PTR_NOT_NULL_FATAL(want);
            const char *args[10];
            size_t a = 0;
            for (; fmt[k].argv[a]; a++)
                args[a] = fmt[k].argv[a];
            args[a++] = dir;
            args[a] = NULL;
            struct th_result r = run(args);
            char *got = replace_all(r.out ? r.out : "", td, "TESTDATA");
            if (strcmp(got, want))
                fprintf(stderr, "%s (%s) differs from %s\n", dir, fmt[k].suffix, exp);
            CU_ASSERT_STRING_EQUAL(got, want);
            free(got);
            th_result_free(&r);
            free(want);
            free(exp);
        }
        free(dir);
        free(exp_py);
        free(ents[i]);
    }
    free(ents);
    free(runs_dir);
}

/* Every run's start has milliseconds and end - start is its duration to 1 ms, hwmon's runs
 * (whose pmon rows are stamped in whole seconds) and pytyche's alike. */
static void test_span(void)
{
    const char *td = th_env("HWRUN_TESTDATA");
    char *runs_dir = th_fmt("%s/runs", td);
    struct dirent **ents;
    int n = scandir(runs_dir, &ents, is_run_dir, alphasort);
    CU_ASSERT_FATAL(n >= 4);
    int with_ms = 0;
    for (int i = 0; i < n; i++) {
        char *dir = th_fmt("%s/%s", runs_dir, ents[i]->d_name);
        struct th_result r = run((const char *[]){"-q", dir, NULL});
        struct json_object *o = json_tokener_parse(r.out), *v;
        double t[2] = {NAN, NAN}, dur = NAN;
        for (int k = 0; k < 2 && o; k++)
            if (json_object_object_get_ex(o, k ? "end" : "start", &v) && v) {
                const char *ts = json_object_get_string(v);
                CU_ASSERT_TRUE(strlen(ts) == 29 && ts[19] == '.'); /* ...T15:27:40.000+00:00 */
                CU_ASSERT_TRUE(hw_parse_iso(ts, strlen(ts), &t[k]));
            }
        if (o && json_object_object_get_ex(o, "duration_sec", &v) && v)
            dur = json_object_get_double(v);
        if (isfinite(dur)) {
            if (fabs(t[1] - t[0] - dur) > 0.0015)
                fprintf(stderr, "%s: end - start %.3f, duration %.3f\n", dir, t[1] - t[0], dur);
            CU_ASSERT_TRUE(fabs(t[1] - t[0] - dur) <= 0.0015);
        }
        with_ms += isfinite(t[0]) && t[0] != floor(t[0]);
        json_object_put(o);
        th_result_free(&r);
        free(dir);
        free(ents[i]);
    }
    CU_ASSERT(with_ms >= 1); /* the real H100 run's start is not on a whole second */
    free(ents);
    free(runs_dir);
}

/* --columns: the table the rows come from, in the rows' order, with and without --units; every
 * column has a type and a description; no DIR with it. */
static void test_columns(void)
{
    const char *td = th_env("HWRUN_TESTDATA");
    char *dir = th_fmt("%s/runs/basic", td);
    for (int units = 0; units < 2; units++) {
        const char *uo = units ? "--units" : "-q", *uv = units ? "mem=GiB,energy=kWh" : "-q";
        struct th_result cols = run((const char *[]){"--columns", uo, uv, NULL});
        CU_ASSERT_EQUAL_FATAL(cols.status, 0);
        struct th_result row = run((const char *[]){"-q", "-f", "csv", uo, uv, dir, NULL});
        CU_ASSERT_EQUAL_FATAL(row.status, 0);
        /* the csv header's names, up to the param. and phase. columns */
        char *hdr = strndup(row.out, strcspn(row.out, "\n"));
        char *line = strchr(cols.out, '\n');
        CU_ASSERT_FATAL(line != NULL);
        static const char head[] = "column\ttype\tunit\tdescription\tjob_rule\n";
        CU_ASSERT(!strncmp(cols.out, head, sizeof head - 1));
        size_t n = 0;
        char *save = NULL;
        for (char *name = strtok_r(hdr, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            if (!strncmp(name, "phase.", 6) || !strncmp(name, "param.", 6) ||
                !strncmp(name, "metric.", 7))
                break;
            line++;
            size_t len = strcspn(line, "\t");
            if (len != strlen(name) || strncmp(line, name, len))
                fprintf(stderr, "--columns line %zu is not the row's %s\n", n + 1, name);
            CU_ASSERT_EQUAL(len, strlen(name));
            CU_ASSERT(!strncmp(line, name, len));
            char *end = strchr(line, '\n');
            CU_ASSERT_FATAL(end != NULL);
            int tabs = 0;
            for (char *p = line; p < end; p++)
                tabs += *p == '\t';
            CU_ASSERT_EQUAL(tabs, 4);
            /* a description, then a job rule by its name */
            const char *rule = end;
            while (rule[-1] != '\t')
                rule--;
            CU_ASSERT(rule[-2] != '\t');
            bool named = false;
            for (int r = SUM_JOB_UNSET + 1; r < SUM_JOB_RULE_COUNT; r++)
                named |= (size_t)(end - rule) == strlen(sum_job_rules[r].name) &&
                         !strncmp(rule, sum_job_rules[r].name, (size_t)(end - rule));
            CU_ASSERT(named);
            line = end;
            n++;
        }
        CU_ASSERT(n > 90);
        CU_ASSERT_EQUAL(line[1], '\0'); /* nothing beyond the row's columns */
        /* how a job makes its figure: summed per host, the least, its own */
        CU_ASSERT_PTR_NOT_NULL(strstr(cols.out, "\tsum_hosts\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(cols.out, "space on the run directory's file system\tmin\n"));
        if (units) {
            CU_ASSERT_PTR_NOT_NULL(strstr(cols.out, "\nenergy_kwh\tnumber\tkWh\t"));
            CU_ASSERT_PTR_NOT_NULL(strstr(cols.out, "\npeak_rss_gib\tnumber\tGiB\t"));
        } else {
            CU_ASSERT_PTR_NOT_NULL(strstr(cols.out, "\nenergy_wh\tnumber\tWh\t"));
            CU_ASSERT_PTR_NOT_NULL(strstr(cols.out, "\ngpu_util_mean_pct\tnumber\t%\t"));
        }
        free(hdr);
        th_result_free(&cols);
        th_result_free(&row);
    }
    struct th_result bad = run((const char *[]){"--columns", dir, NULL});
    CU_ASSERT_EQUAL(bad.status, 2);
    th_result_free(&bad);
    free(dir);
}

/* Two hwmon runs in one run.jsonl (written into one directory by hand, or by an hwmon from
 * before it refused used directories) are reported, not silently summarized as one run. */
static void test_two_runs_in_one_log(void)
{
    char *dir = th_tmpdir("sum-tworuns");
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": "
             "\"start\", \"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n"
             "{\"ts\": \"2026-11-21T10:00:05.000+00:00\", \"type\": \"event\", \"event\": "
             "\"stop\", \"data\": {\"duration_s\": 5.0}}\n"
             "{\"ts\": \"2026-11-21T11:00:00.000+00:00\", \"type\": \"event\", \"event\": "
             "\"start\", \"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n");
    put_file(dir, "cpu_metrics.csv", "timestamp,usr_pct,idle_pct\n"
                                     "2026-11-21T10:00:01.000+00:00,10.0,90.0\n"
                                     "2026-11-21T11:00:01.000+00:00,20.0,80.0\n");
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->info.starts, 2);
    sum_run_free(run);
    char *argv[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-f", (char *)"text", dir, NULL};
    struct th_result r;
    CU_ASSERT_EQUAL(th_run(argv, NULL, NULL, 60, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "run.jsonl holds 2 hwmon runs"));
    th_result_free(&r);
    char *argv2[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), dir, NULL};
    CU_ASSERT_EQUAL(th_run(argv2, NULL, NULL, 60, &r), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"hwmon_runs\": 2"));
    th_result_free(&r);
    th_rmtree(dir);
    free(dir);
}

/* A rank of a job on host host, for secs seconds from 15:27:40: its proc_metrics.csv rows each
 * second (RSS rss[i] MiB, write_bytes wr[i]), its machine's user CPU usr throughout. */
static void rule_node(const char *job, const char *host, int secs, const double *rss,
                      const double *wr, double usr)
{
    char *dir = th_fmt("%s/%s", job, host);
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    char *log = th_fmt(
        "{\"ts\": \"2026-11-21T15:27:40.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"tool\": \"hwmon\", \"mode\": \"wrap\", \"interval_s\": 1, \"host\": \"%s\", "
        "\"context\": {\"host\": \"%s\", \"slurm_job_id\": \"78\"}}}\n"
        "{\"ts\": \"2026-11-21T15:27:4%d.000+00:00\", \"type\": \"event\", \"event\": \"stop\", "
        "\"data\": {\"duration_s\": %d, \"exit_status\": 0}}\n",
        host, host, secs, secs);
    put_file(dir, "run.jsonl", log);
    struct hw_buf p, c;
    hw_buf_init(&p, NULL, 0);
    hw_buf_init(&c, NULL, 0);
    hw_buf_puts(&p, "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes\n");
    hw_buf_puts(&c, "timestamp,usr_pct,idle_pct\n");
    for (int i = 0; i <= secs; i++) {
        hw_buf_printf(&p, "2026-11-21T15:27:4%d.000+00:00,1,1,50.0,%.1f,0,%.0f\n", i, rss[i],
                      wr[i]);
        hw_buf_printf(&c, "2026-11-21T15:27:4%d.000+00:00,%.1f,%.1f\n", i, usr, 100 - usr);
    }
    CU_ASSERT_FATAL(!p.oom && !c.oom);
    put_file(dir, "proc_metrics.csv", p.p);
    put_file(dir, "cpu_metrics.csv", c.p);
    hw_buf_free(&p);
    hw_buf_free(&c);
    free(log);
    free(dir);
}

/* The job's row takes the run row's figures by each one's rule, checked against what the two
 * ranks' files hold: a counter summed (storage writes: 2 + 3 MiB), a peak the highest (RSS:
 * 700 MiB, rank b's), a mean weighted by time (user CPU 10% for 2 s and 30% for 4 s: 23.33%,
 * not 20%); and in --units, renamed and converted as a run's row. */
static void test_job_rules(void)
{
    char *base = th_tmpdir("cli-jobrules");
    char *job = th_fmt("%s/job", base);
    CU_ASSERT_FATAL(mkdir(job, 0755) == 0);
    static const double rss_a[] = {100, 300, 200}, wr_a[] = {0, 1048576, 2097152};
    static const double rss_b[] = {400, 700, 650, 500, 450},
                        wr_b[] = {0, 1048576, 1048576, 2097152, 3145728};
    rule_node(job, "gpu-a", 2, rss_a, wr_a, 10);
    rule_node(job, "gpu-b", 4, rss_b, wr_b, 30);
    struct th_result r = run((const char *[]){"-q", "-f", "json", job, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    json_object *o = json_tokener_parse(r.out ? r.out : ""), *v;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT(json_object_object_get_ex(o, "nodes", &v) && json_object_get_int(v) == 2);
    CU_ASSERT(json_object_object_get_ex(o, "proc_disk_write_mib", &v) &&
              fabs(json_object_get_double(v) - 5.0) < 1e-9);
    CU_ASSERT(json_object_object_get_ex(o, "peak_rss_mb", &v) &&
              json_object_get_double(v) == 700);
    CU_ASSERT(json_object_object_get_ex(o, "cpu_usr_mean_pct", &v) &&
              fabs(json_object_get_double(v) - (10.0 * 2 + 30.0 * 4) / 6) < 1e-6);
    /* a rank's own mean (its tree's RSS: 200 MiB for 2 s, 540 MiB for 4 s), not the host's */
    CU_ASSERT(json_object_object_get_ex(o, "mean_rss_mb", &v) &&
              fabs(json_object_get_double(v) - (200.0 * 2 + 540.0 * 4) / 6) < 1e-6);
    json_object_put(o);
    th_result_free(&r);
    /* the page: the same figures, each with its rule */
    char *page = th_fmt("%s/job.html", base);
    r = run((const char *[]){"-q", "-f", "csv", "--html", page, job, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<tr><th>process peak RSS</th><td class=\"n\">700.0 MiB"
                                        "</td><td>the highest of any rank</td></tr>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<tr><th>proc_disk_write_mib</th><td class=\"n\">5.0 MiB"
                                        "</td><td>summed over the ranks</td></tr>"));
    free(html);
    free(page);
    r = run((const char *[]){"-q", "-f", "jsonl", "--units", "mem=GiB", job, NULL});
    o = json_tokener_parse(r.out ? r.out : "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT(json_object_object_get_ex(o, "peak_rss_gib", &v) &&
              fabs(json_object_get_double(v) - 700 / 1024.0) < 1e-9);
    CU_ASSERT(!json_object_object_get_ex(o, "peak_rss_mb", &v));
    json_object_put(o);
    th_result_free(&r);
    th_rmtree(base);
    free(job);
    free(base);
}

/* A rank of a job on a host (NULL: it says none) for the seconds t0 to t0 + secs since
 * 15:27:00, of attempt restart (NULL: SLURM_RESTART_COUNT unset). Its cpu_metrics.csv has a
 * row a second with its host's traffic in that second, which every rank of the host sees alike
 * (disk read scale * (t + 1) * 64 KiB, written, received and sent 2, 3 and 4 times that; no
 * network cells without net), its host's free space (fs - 5 t MiB) and its host's user CPU
 * (usr %, idle the rest). What its rows hold is
 * added to io[4] (bytes) and the least free space to *fs_min: the rank's own truth. */
struct host_rank {
    const char *name, *host, *restart;
    int t0, secs;
    double scale, fs, usr;
    bool net;
    double io[SUM_IO_COUNT]; /* out: bytes of the rank's rows, NAN: no cell */
};

static char *rank_ts(int t)
{
    return th_fmt("2026-11-21T15:%02d:%02d.000+00:00", 27 + t / 60, t % 60);
}

static void host_rank_write(const char *job, struct host_rank *r, double *fs_min)
{
    char *dir = th_fmt("%s/%s", job, r->name);
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    char *t0 = rank_ts(r->t0), *t1 = rank_ts(r->t0 + r->secs);
    char *host = r->host ? th_fmt("\"host\": \"%s\", ", r->host) : th_fmt("%s", "");
    char *restart = r->restart ? th_fmt(", \"slurm_restart_count\": \"%s\"", r->restart)
                               : th_fmt("%s", "");
    char *log = th_fmt(
        "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": {\"tool\": "
        "\"hwmon\", \"mode\": \"wrap\", \"interval_s\": 1, %s\"context\": {%s\"slurm_job_id\": "
        "\"79\"%s}}}\n"
        "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": {\"duration_s\": "
        "%d, \"exit_status\": 0}}\n",
        t0, host, host, restart, t1, r->secs);
    put_file(dir, "run.jsonl", log);
    struct hw_buf c;
    hw_buf_init(&c, NULL, 0);
    hw_buf_puts(&c, "timestamp,usr_pct,idle_pct,disk_read_bytes,disk_write_bytes,net_rx_bytes,"
                    "net_tx_bytes,fs_free_mib\n");
    for (int k = 0; k < SUM_IO_COUNT; k++)
        r->io[k] = k >= SUM_IO_NET_RX && !r->net ? NAN : 0;
    for (int i = 0; i <= r->secs; i++) {
        int t = r->t0 + i;
        double b = r->scale * (t + 1) * 65536, fs = r->fs - 5.0 * t;
        char *ts = rank_ts(t);
        hw_buf_printf(&c, "%s,%.1f,%.1f,%.0f,%.0f,", ts, r->usr, 100 - r->usr, b, 2 * b);
        if (r->net)
            hw_buf_printf(&c, "%.0f,%.0f", 3 * b, 4 * b);
        else
            hw_buf_puts(&c, ",");
        hw_buf_printf(&c, ",%.1f\n", fs);
        for (int k = 0; k < SUM_IO_COUNT; k++)
            r->io[k] += (k + 1) * b;
        *fs_min = isnan(*fs_min) || fs < *fs_min ? fs : *fs_min;
        free(ts);
    }
    CU_ASSERT_FATAL(!c.oom);
    put_file(dir, "cpu_metrics.csv", c.p);
    hw_buf_free(&c);
    free(log);
    free(restart);
    free(host);
    free(t0);
    free(t1);
    free(dir);
}

/* A host's own counters (its disks' and network's bytes) are summed over the job's hosts, each
 * host of each attempt once, by its rank whose run spans the longest among those that measured
 * them: two ranks of gpu-a (the shorter first by name, its window inside the longer's; the
 * longer measured no network), gpu-b, two ranks that say no host (each a host of its own), and
 * gpu-b again in a requeued attempt (other seconds: its bytes count again). The machines' CPU
 * is the hosts' means so chosen, each for as long as its rank ran (gpu-a once, not once a
 * rank). The least free space is the least of any rank's. Checked against the ranks' own rows
 * in the job's JSON, its CSV row and its page. */
static void test_job_host_rules(void)
{
    char *base = th_tmpdir("cli-jobhosts");
    char *job = th_fmt("%s/job", base);
    CU_ASSERT_FATAL(mkdir(job, 0755) == 0);
    struct host_rank r[] = {
        {.name = "a0-short", .host = "gpu-a", .t0 = 1, .secs = 3, .scale = 3, .fs = 9000,
         .usr = 20, .net = true},
        {.name = "a1-long", .host = "gpu-a", .t0 = 0, .secs = 6, .scale = 3, .fs = 9000,
         .usr = 20},
        {.name = "b0", .host = "gpu-b", .t0 = 0, .secs = 4, .scale = 5, .fs = 5000, .usr = 50,
         .net = true},
        {.name = "c0", .t0 = 0, .secs = 2, .scale = 7, .fs = 7000, .usr = 80, .net = true},
        {.name = "c1", .t0 = 0, .secs = 1, .scale = 11, .fs = 6000, .usr = 40, .net = true},
        {.name = "d0-requeued", .host = "gpu-b", .restart = "1", .t0 = 30, .secs = 3, .scale = 5,
         .fs = 5000, .usr = 60, .net = true},
    };
    enum { A_SHORT, A_LONG, B, C, C1, B_AGAIN };
    double fs_min = NAN;
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        host_rank_write(job, &r[i], &fs_min);
    /* each host once: gpu-a by its longer rank (by its shorter for the network it alone
     * measured), gpu-b in each attempt, each rank without a host */
    double want[SUM_IO_COUNT];
    for (int k = 0; k < SUM_IO_COUNT; k++)
        want[k] = ((k < SUM_IO_NET_RX ? r[A_LONG].io[k] : r[A_SHORT].io[k]) + r[B].io[k] +
                   r[C].io[k] + r[C1].io[k] + r[B_AGAIN].io[k]) / 1048576.0;
    /* the machines' CPU: each host's mean once, for as long as its rank that ran longest */
    double usr_s = 0, secs = 0;
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (i != A_SHORT) {
            usr_s += r[i].usr * r[i].secs;
            secs += r[i].secs;
        }
    double want_usr = usr_s / secs;

    struct th_result res = run((const char *[]){"-q", "-f", "json", job, NULL});
    CU_ASSERT_EQUAL(res.status, 0);
    json_object *o = json_tokener_parse(res.out ? res.out : ""), *v;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT(json_object_object_get_ex(o, "attempts", &v) &&
              json_object_array_length(v) == 2);
    for (int k = 0; k < SUM_IO_COUNT; k++) {
        bool ok = json_object_object_get_ex(o, sum_io_defs[k].mib_key, &v) &&
                  fabs(json_object_get_double(v) - want[k]) < 1e-9;
        if (!ok)
            fprintf(stderr, "job %s: %s, not %.9g\n", sum_io_defs[k].mib_key,
                    v ? json_object_get_string(v) : "(none)", want[k]);
        CU_ASSERT(ok);
    }
    CU_ASSERT(json_object_object_get_ex(o, "fs_free_min_mib", &v) &&
              json_object_get_double(v) == fs_min);
    CU_ASSERT(json_object_object_get_ex(o, "cpu_usr_mean_pct", &v) &&
              fabs(json_object_get_double(v) - want_usr) < 1e-9);
    CU_ASSERT(json_object_object_get_ex(o, "cpu_idle_mean_pct", &v) &&
              fabs(json_object_get_double(v) - (100 - want_usr)) < 1e-9);
    json_object_put(o);
    th_result_free(&res);

    /* the row and the page: the same figures, the page with each rule in words */
    char *page = th_fmt("%s/job.html", base);
    res = run((const char *[]){"-q", "-f", "csv", "--html", page, job, NULL});
    CU_ASSERT_EQUAL(res.status, 0);
    char *row = res.out ? strchr(res.out, '\n') : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    for (int k = 0; k <= SUM_IO_COUNT; k++) {
        const char *key = k < SUM_IO_COUNT ? sum_io_defs[k].mib_key : "fs_free_min_mib";
        char *cell = csv_cell(res.out, row + 1, key);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
        CU_ASSERT(fabs(strtod(cell, NULL) - (k < SUM_IO_COUNT ? want[k] : fs_min)) < 1e-9);
        free(cell);
    }
    th_result_free(&res);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    for (int k = 0; k < SUM_IO_COUNT; k++) {
        char *want_row = th_fmt("<tr><th>%s</th><td class=\"n\">%.1f MiB</td><td>summed over the "
                                "hosts, each by its longest-running rank</td></tr>",
                                sum_io_defs[k].mib_words, want[k]);
        if (!strstr(html, want_row))
            fprintf(stderr, "the job page lacks %s\n", want_row);
        CU_ASSERT_PTR_NOT_NULL(strstr(html, want_row));
        free(want_row);
    }
    char *fs_row = th_fmt("<tr><th>free space min</th><td class=\"n\">%.1f MiB</td><td>the "
                          "lowest of any rank</td></tr>", fs_min);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, fs_row));
    free(fs_row);
    free(html);
    free(page);
    th_rmtree(base);
    free(job);
    free(base);
}

void add_cli_suite(void)
{
    CU_pSuite s = th_add_suite("cli", NULL, NULL, 120);
    CU_add_test(s, "help_version_usage", test_help_version_usage);
    CU_add_test(s, "exit_codes", test_exit_codes);
    CU_add_test(s, "json_and_messages", test_json_and_messages);
    CU_add_test(s, "write", test_write);
    CU_add_test(s, "output_targets", test_output_targets);
    CU_add_test(s, "output_foreign_link", test_output_foreign_link);
    CU_add_test(s, "streamed", test_streamed);
    CU_add_test(s, "job_rows", test_job_rows);
    CU_add_test(s, "job_rules", test_job_rules);
    CU_add_test(s, "job_host_rules", test_job_host_rules);
    CU_add_test(s, "sweep_rows", test_sweep_rows);
    CU_add_test(s, "csv_hostile_keys", test_csv_hostile_keys);
    CU_add_test(s, "many_params_and_collisions", test_many_params_and_collisions);
    CU_add_test(s, "text_names_gaps", test_text_names_gaps);
    CU_add_test(s, "two_runs_in_one_log", test_two_runs_in_one_log);
    CU_add_test(s, "file_options_and_tz", test_file_options_and_tz);
    CU_add_test(s, "every_file_option", test_every_file_option);
    CU_add_test(s, "pytyche_cli", test_pytyche_cli);
    CU_add_test(s, "golden", test_golden);
    CU_add_test(s, "span", test_span);
    CU_add_test(s, "columns", test_columns);
}
