/* Output every consumer can read, with the user's permissions.
 *
 *   umask: under `umask 077` every file the tools create is private, including those replaced by
 *          rename (summary.json, summarize -o and --html, the Prometheus file); a file that is
 *          replaced keeps the mode its owner gave it.
 *   absurd: a run.jsonl summarize did not write (a phase of 1e300 s, an integer beyond 64 bits)
 *          gives a reason in the quality section and valid output, never garbage nor UB (the
 *          sanitizer build aborts on UB, so this test fails there).
 *   locale: under LC_ALL=de_DE.UTF-8 (a comma decimal) hwmon's files hold dot decimals, and
 *          every summarize output is byte for byte what it is under LC_ALL=C. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hostile.h"
#include "testutil.h"

static mode_t mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void expect_mode(const char *path, mode_t want)
{
    mode_t got = mode_of(path);
    if (got != want)
        fprintf(stderr, "%s: mode %04o, want %04o\n", path, (unsigned)got, (unsigned)want);
    CU_ASSERT_EQUAL(got, want);
}

/* One hwmon run and every summarize output, all under umask 077: nothing readable by others. */
static void test_umask_private(void)
{
    const char *hwmon = th_env("HWRUN_HWMON_BIN"), *smi = th_env("HWRUN_FAKE_SMI");
    const char *sum = th_env("HWRUN_SUMMARIZE_BIN");
    char *root = th_tmpdir("umask");
    char *run = th_fmt("%s/run", root), *prom = th_fmt("%s/node.prom", root);
    char *out = th_fmt("%s/summary-copy.json", root), *html = th_fmt("%s/report.html", root);
    mode_t old = umask(077);
    /* the export lives while the run does: its mode is seen from the command */
    char *cmd = th_fmt("sleep 1.2; stat -c %%a '%s'", prom);
    char *hw[] = {(char *)hwmon, "-q", "--nvidia-smi", (char *)smi, "-i", "0.1",
                  "--prom-textfile", prom, "--prom-interval", "1", "-o", run, "--",
                  "/bin/sh", "-c", cmd, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(hw, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out, "600\n");
    th_result_free(&r);
    free(cmd);
    char *w[] = {(char *)sum, "--write", "-o", out, "--html", html, run, NULL};
    CU_ASSERT_FATAL(th_run(w, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    umask(old);

    CU_ASSERT_EQUAL(mode_of(prom), (mode_t)-1); /* gone with the run */
    expect_mode(out, 0600);
    expect_mode(html, 0600);
    for (int i = 0; i < HW_FILE_COUNT; i++) {
        char *p = th_fmt("%s/%s", run, hw_file_names[i]);
        if (mode_of(p) != (mode_t)-1)
            expect_mode(p, 0600);
        free(p);
    }
    char *summary = th_fmt("%s/%s", run, HW_SUMMARY_FILE);
    expect_mode(summary, 0600);

    /* a replaced file keeps its owner's chmod, whatever the umask of the run that replaces it */
    CU_ASSERT_FATAL(chmod(summary, 0640) == 0);
    CU_ASSERT_FATAL(chmod(out, 0664) == 0);
    old = umask(022);
    CU_ASSERT_FATAL(th_run(w, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    umask(old);
    expect_mode(summary, 0640);
    expect_mode(out, 0664);
    expect_mode(html, 0600);

    free(summary);
    th_rmtree(root);
    free(root);
    free(run);
    free(prom);
    free(out);
    free(html);
}

static const char absurd_lines[] =
    "{\"ts\": \"2026-11-21T15:27:48.600+00:00\", \"type\": \"phase\", \"name\": \"huge\", "
    "\"seconds\": 1e300}\n"
    "{\"ts\": \"2026-11-21T15:27:48.700+00:00\", \"type\": \"phase\", \"name\": \"bigint\", "
    "\"seconds\": 99999999999999999999999}\n"
    "{\"ts\": \"2026-11-21T15:27:48.800+00:00\", \"type\": \"phase\", \"name\": \"ancient\", "
    "\"seconds\": 999999999999}\n";

static void test_absurd_values(void)
{
    const char *sum = th_env("HWRUN_SUMMARIZE_BIN");
    char *root = th_tmpdir("absurd");
    char *run = th_fmt("%s/run", root), *html = th_fmt("%s/r.html", root);
    CU_ASSERT_FATAL(mkdir(run, 0755) == 0);
    for (int i = 0; i < HW_FILE_COUNT; i++) {
        char *src = th_fmt("%s/runs/basic/%s", th_env("HWRUN_TESTDATA"), hw_file_names[i]);
        size_t n;
        char *data = th_read_file(src, &n);
        if (data) {
            char *dst = th_fmt("%s/%s", run, hw_file_names[i]);
            if (strcmp(hw_file_names[i], HW_RUNLOG_FILE) == 0) { /* its 6 lines, then ours */
                char *all = th_fmt("%s%s", data, absurd_lines);
                free(data);
                data = all;
                n = strlen(all);
            }
            CU_ASSERT_FATAL(th_write_file(dst, data, n) == 0);
            free(dst);
            free(data);
        }
        free(src);
    }
    static const char *const formats[] = {"json", "text", "csv", "jsonl"};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
        char *argv[] = {(char *)sum, "--format", (char *)formats[f], "--html", html, run, NULL};
        struct th_result r;
        CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 60, &r) == 0);
        if (r.status != 0)
            fprintf(stderr, "summarize --format %s: %d\n%s", formats[f], r.status, r.err);
        CU_ASSERT_EQUAL(r.status, 0);
        /* each refused phase is named with its reason, once per format */
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "run.jsonl:7: not a run log entry (phase of more"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "run.jsonl:8: not a run log entry (phase of more"));
        if (strcmp(formats[f], "json") == 0) {
            struct json_object *o = json_tokener_parse(r.out), *phases, *runlog_q;
            CU_ASSERT_PTR_NOT_NULL_FATAL(o);
            CU_ASSERT_FATAL(json_object_object_get_ex(o, "phases", &phases));
            bool ancient = false;
            for (size_t i = 0; i < json_object_array_length(phases); i++) {
                struct json_object *p = json_object_array_get_idx(phases, i), *v;
                const char *name = json_object_get_string(
                    json_object_object_get_ex(p, "name", &v) ? v : NULL);
                CU_ASSERT(strcmp(name, "huge") != 0 && strcmp(name, "bigint") != 0);
                if (strcmp(name, "ancient") == 0) {
                    ancient = true;
                    /* it would start 31,700 years ago: no ISO date for that, so null */
                    CU_ASSERT(json_object_object_get_ex(p, "start", &v) && v == NULL);
                }
            }
            CU_ASSERT(ancient);
            CU_ASSERT(json_object_object_get_ex(o, "quality", &runlog_q));
            json_object_put(o);
        } else {
            /* text and rows: printable, no stray bytes from an unwritten buffer */
            for (size_t i = 0; i < r.out_len; i++)
                if ((unsigned char)r.out[i] < 0x20 && r.out[i] != '\n' && r.out[i] != '\t' &&
                    r.out[i] != 0x1b) {
                    fprintf(stderr, "%s: control byte %#x at %zu\n", formats[f],
                            (unsigned char)r.out[i], i);
                    CU_FAIL("control byte in output");
                    break;
                }
        }
        th_result_free(&r);
        struct stat st;
        CU_ASSERT(stat(html, &st) == 0 && st.st_size > 0);
    }
    th_rmtree(root);
    free(root);
    free(run);
    free(html);
}

/* Every cell of a CSV line a number, a dot decimal, or not a number at all: no "1,25" split
 * over two cells can be told from two cells, so each cell is checked against the header's count. */
static void check_csv_dots(const char *path)
{
    size_t n;
    char *text = th_read_file(path, &n);
    if (!text)
        return; /* not written in this run */
    regex_t comma_num;
    /* a cell that is a decimal with a comma, whole (quoted, as a locale's printf would not be) */
    regcomp(&comma_num, "\"-?[0-9]+,[0-9]+\"", REG_EXTENDED | REG_NOSUB);
    CU_ASSERT(regexec(&comma_num, text, 0, NULL, 0) != 0);
    regfree(&comma_num);
    long cols = -1;
    int lineno = 0;
    for (char *s = text, *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        *nl = '\0';
        lineno++;
        long c = 1;
        bool q = false;
        for (char *p = s; *p; p++) {
            if (*p == '"')
                q = !q;
            else if (*p == ',' && !q)
                c++;
        }
        if (cols < 0)
            cols = c;
        if (c != cols)
            fprintf(stderr, "%s:%d: %ld cells, the header has %ld\n", path, lineno, c, cols);
        CU_ASSERT_EQUAL(c, cols);
    }
    CU_ASSERT(lineno >= 2);
    free(text);
}

static char *run_out(const char *const *argv, const char *lc_all)
{
    char *env_lc = th_fmt("LC_ALL=%s", lc_all);
    char *env[] = {env_lc, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run((char *const *)argv, env, NULL, 60, &r) == 0);
    if (r.status != 0)
        fprintf(stderr, "%s under %s: %d\n%s", argv[0], lc_all, r.status, r.err);
    CU_ASSERT_EQUAL(r.status, 0);
    free(r.err);
    free(env_lc);
    return r.out;
}

static void test_comma_locale(void)
{
    const char *loc = th_comma_locale(); /* sets LOCPATH for the programs, when it must */
    if (!loc) {
        th_skip("no de_DE.UTF-8 locale, and localedef (Debian's locales) could not make one");
        return;
    }
    const char *hwmon = th_env("HWRUN_HWMON_BIN"), *smi = th_env("HWRUN_FAKE_SMI");
    const char *sum = th_env("HWRUN_SUMMARIZE_BIN"), *rl = th_env("HWRUN_RUNLOG_BIN");
    char *root = th_tmpdir("locale");
    char *run = th_fmt("%s/run", root);
    /* the job's own phases through the CLI, which runs in the job's locale too */
    /* and it lasts until every CSV of the run has a row (a loaded ASan hwmon's GPU probes took
     * longer than a 0.5 s job) */
    char *cmd = th_fmt("'%s' phase load 1.25 lr=0.001 && sleep 0.5 && '%s' phase train 0.75 && "
                       "timeout 60 sh -c 'd=$(dirname \"$RUNLOG_FILE\"); "
                       "until [ -e \"$d/%s\" ]; do sleep 0.05; done; for f in \"$d\"/*.csv; do "
                       "until [ $(wc -l < \"$f\") -ge 2 ]; do sleep 0.05; done; done'; true",
                       rl, rl, HW_GPU_FILE);
    const char *hw[] = {hwmon, "-q", "--nvidia-smi", smi, "-i", "0.1", "-o", run, "--",
                        "/bin/sh", "-c", cmd, NULL};
    free(run_out(hw, loc));
    free(cmd);
    char *jsonl = th_fmt("%s/%s", run, HW_RUNLOG_FILE);
    size_t n;
    char *text = th_read_file(jsonl, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"seconds\": 1.25, \"lr\": 0.001}"));
    free(text);
    free(jsonl);
    for (int i = 0; i < HW_FILE_COUNT; i++) {
        size_t len = strlen(hw_file_names[i]);
        if (len > 4 && strcmp(hw_file_names[i] + len - 4, ".csv") == 0) {
            char *p = th_fmt("%s/%s", run, hw_file_names[i]);
            check_csv_dots(p);
            free(p);
        }
    }
    /* summarize's every output, byte for byte as under C */
    static const char *const formats[] = {"json", "text", "csv", "jsonl"};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
        const char *argv[] = {sum, "--format", formats[f], run, NULL};
        char *c = run_out(argv, "C"), *de = run_out(argv, loc);
        CU_ASSERT(strlen(c) > 100);
        if (strcmp(c, de) != 0)
            fprintf(stderr, "summarize --format %s differs under %s\n", formats[f], loc);
        CU_ASSERT_STRING_EQUAL(c, de);
        free(c);
        free(de);
    }
    char *html_c = th_fmt("%s/c.html", root), *html_de = th_fmt("%s/de.html", root);
    const char *hc[] = {sum, "--html", html_c, run, NULL}, *hd[] = {sum, "--html", html_de, run,
                                                                    NULL};
    free(run_out(hc, "C"));
    free(run_out(hd, loc));
    char *a = th_read_file(html_c, &n), *b = th_read_file(html_de, &n);
    CU_ASSERT(a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    free(html_c);
    free(html_de);
    th_rmtree(root);
    free(root);
    free(run);
}

void hostile_register_output(void)
{
    CU_pSuite s = th_add_suite("output", NULL, NULL, 300);
    CU_add_test(s, "umask", test_umask_private);
    CU_add_test(s, "absurd", test_absurd_values);
    CU_add_test(s, "locale", test_comma_locale);
}
