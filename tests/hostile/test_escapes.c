/* Names built to drive a terminal (OSC 52 writes the clipboard, CSI 6n makes the terminal type an
 * answer, U+009B and U+009D are CSI and OSC for a terminal that takes C1 in UTF-8, a raw 0x9b
 * byte) in a run dir, phase names, metric and param keys, RUNLOG_FILE, a runlog token and
 * CUDA_VISIBLE_DEVICES: every byte the three tools print (text report, --compare, the job text,
 * every message) follows the one rule (hwrun/utf8.h): no control character, C0, DEL or C1,
 * reaches the terminal, and what is not UTF-8 is U+FFFD. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hostile.h"
#include "hwrun/rundir.h"
#include "hwrun/utf8.h"
#include "testutil.h"

/* as raw bytes (a file name) and as a JSON string's body */
#define EVIL_RAW "\x1b]52;c;SGVsbG8=\x07\x1b[6n\xc2\x9b" "2J\xc2\x9d" "0;t\x07\x7f"
#define EVIL_JSON "\\u001b]52;c;SGVsbG8=\\u0007\\u001b[6n\\u009b2J\\u009d0;t\\u0007\\u007f"
/* what the rule makes of it */
#define EVIL_SAFE "?]52;c;SGVsbG8=??[6n?2J?0;t??"

/* Nothing a terminal would act on: UTF-8 throughout, no control but '\n'. */
static bool term_clean(const char *what, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = hw_utf8_decode(s + i, n - i, &cp);
        if (k == 0 || k == HW_UTF8_SHORT || (cp < 0x20 && cp != '\n') || cp == 0x7f ||
            (cp >= 0x80 && cp < 0xa0)) {
            fprintf(stderr, "%s: byte %#x at %zu: %.*s\n", what, (unsigned char)s[i], i,
                    (int)(n - i < 80 ? n - i : 80), s + i);
            return false;
        }
        i += k;
    }
    return true;
}

static void put_plain_file(const char *root)
{
    char *f = th_fmt("%s/file", root);
    CU_ASSERT_FATAL(th_write_file(f, "x\n", 2) == 0);
    free(f);
}

static struct th_result run_tool(char *const *argv, char *const *env)
{
    struct th_result r;
    if (th_run(argv, env, NULL, 60, &r) != 0) {
        CU_FAIL("cannot run");
        memset(&r, 0, sizeof r);
        r.status = -1;
    }
    CU_ASSERT(term_clean("stdout", r.out ? r.out : "", r.out_len));
    CU_ASSERT(term_clean("stderr", r.err ? r.err : "", r.err_len));
    return r;
}

/* testdata's basic run under dir, with an evil phase, metric and param before its stop */
static void make_run(const char *dir, double metric)
{
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    for (int i = 0; i < HW_FILE_COUNT; i++) {
        char *src = th_fmt("%s/runs/basic/%s", th_env("HWRUN_TESTDATA"), hw_file_names[i]);
        size_t n;
        char *data = th_read_file(src, &n);
        free(src);
        if (!data)
            continue;
        if (strcmp(hw_file_names[i], HW_RUNLOG_FILE) == 0) {
            char *stop = strstr(data, "{\"ts\": \"2026-11-21T15:27:49.000+00:00\", \"type\": "
                                      "\"event\", \"event\": \"stop\"");
            CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
            char *stop_line = th_fmt("%s", stop);
            *stop = '\0';
            char *all = th_fmt(
                "%s{\"ts\": \"2026-11-21T15:27:48.600+00:00\", \"type\": \"event\", \"event\": "
                "\"config\", \"data\": {\"lr" EVIL_JSON "\": 0.1}}\n"
                "{\"ts\": \"2026-11-21T15:27:48.700+00:00\", \"type\": \"phase\", \"name\": "
                "\"ph" EVIL_JSON "\", \"seconds\": 0.1}\n"
                "{\"ts\": \"2026-11-21T15:27:48.800+00:00\", \"type\": \"event\", \"event\": "
                "\"metric\", \"data\": {\"acc" EVIL_JSON "\": %g}}\n%s",
                data, metric, stop_line);
            free(stop_line);
            free(data);
            data = all;
            n = strlen(all);
        }
        char *dst = th_fmt("%s/%s", dir, hw_file_names[i]);
        CU_ASSERT_FATAL(th_write_file(dst, data, n) == 0);
        free(dst);
        free(data);
    }
}

/* summarize: the text report, --compare text, the job text and its messages */
static void test_summarize_escapes(void)
{
    const char *sum = th_env("HWRUN_SUMMARIZE_BIN");
    char *root = th_tmpdir("escapes");
    char *a = th_fmt("%s/a" EVIL_RAW "\x9b", root), *b = th_fmt("%s/b" EVIL_RAW, root);
    make_run(a, 0.5);
    make_run(b, 0.75);
    char *argv[] = {(char *)sum, "-f", "text", a, NULL};
    struct th_result r = run_tool(argv, NULL);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "ph" EVIL_SAFE));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "a" EVIL_SAFE "\xEF\xBF\xBD")); /* the dir, 0x9b as U+FFFD */
    th_result_free(&r);

    char *cmp[] = {(char *)sum, "--compare", a, b, "-f", "text", NULL};
    r = run_tool(cmp, NULL);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "acc" EVIL_SAFE));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "ph" EVIL_SAFE));
    th_result_free(&r);

    char *job[] = {(char *)sum, "--job", "-f", "text", a, b, NULL};
    r = run_tool(job, NULL);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT(r.out_len > 0);
    th_result_free(&r);

    /* messages: a dir that is not there, and an -o that cannot be written */
    char *missing = th_fmt("%s/missing" EVIL_RAW, root), *bad_o = th_fmt("%s/x", a);
    char *m1[] = {(char *)sum, "-f", "text", missing, NULL};
    r = run_tool(m1, NULL);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "missing" EVIL_SAFE));
    th_result_free(&r);
    char *m2[] = {(char *)sum, "-o", root, a, NULL};
    r = run_tool(m2, NULL);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    th_result_free(&r);
    free(missing);
    free(bad_o);
    th_rmtree(root);
    free(root);
    free(a);
    free(b);
}

/* runlog and hwmon: RUNLOG_FILE, a token, CUDA_VISIBLE_DEVICES, an -o they cannot use */
static void test_messages_escapes(void)
{
    const char *rl = th_env("HWRUN_RUNLOG_BIN"), *hwmon = th_env("HWRUN_HWMON_BIN");
    const char *smi = th_env("HWRUN_FAKE_SMI");
    char *root = th_tmpdir("escapes");
    put_plain_file(root);
    char *log = th_fmt("%s/file/" EVIL_RAW ".jsonl", root); /* under a file: ENOTDIR */
    char *env_log = th_fmt("RUNLOG_FILE=%s", log);
    char *e1[] = {env_log, NULL};
    char *p1[] = {(char *)rl, "phase", "p", "1", NULL};
    struct th_result r = run_tool(p1, e1);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, EVIL_SAFE ".jsonl"));
    th_result_free(&r);

    char *p2[] = {(char *)rl, "-f", "/dev/null", "end", "tok" EVIL_RAW "\x9b", NULL};
    r = run_tool(p2, NULL);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT(r.err_len > 0);
    th_result_free(&r);

    char *dir = th_fmt("%s/run", root);
    char *e3[] = {"CUDA_VISIBLE_DEVICES=" EVIL_RAW "\x9b", NULL};
    char *p3[] = {(char *)hwmon, "--nvidia-smi", (char *)smi, "-i", "0.1", "-o", dir, "--",
                  "/bin/true", NULL};
    r = run_tool(p3, e3);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "CUDA_VISIBLE_DEVICES=\"" EVIL_SAFE "\xEF\xBF\xBD\""));
    th_result_free(&r);

    char *bad = th_fmt("%s/file/" EVIL_RAW, root);
    char *p4[] = {(char *)hwmon, "--nvidia-smi", (char *)smi, "-o", bad, "--", "/bin/true", NULL};
    r = run_tool(p4, NULL);
    CU_ASSERT(r.err_len > 0);
    th_result_free(&r);
    free(bad);
    free(dir);
    free(log);
    free(env_log);
    th_rmtree(root);
    free(root);
}

void hostile_register_escapes(void)
{
    CU_pSuite s = th_add_suite("escapes", NULL, NULL, 300);
    CU_add_test(s, "summarize", test_summarize_escapes);
    CU_add_test(s, "messages", test_messages_escapes);
}
