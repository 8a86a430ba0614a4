/* librunlog tests: line shape, escaping, failure paths, concurrent appenders. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "hwrun/timeutil.h"
#include "hwrun/buf.h"
#include "runlog.h"
#include "testutil.h"

/* Parse one line (without its '\n') with json-c, strictly; NULL if it is not one JSON value. */
static struct json_object *parse_line(const char *s, size_t n)
{
    struct json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *o = json_tokener_parse_ex(tok, s, (int)n);
    bool ok = o && json_tokener_get_error(tok) == json_tokener_success &&
              json_tokener_get_parse_end(tok) == n;
    json_tokener_free(tok);
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static const char *jstr(struct json_object *o, const char *key)
{
    struct json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* Format a phase into a fixed buffer (asserting success); returns the static buffer. */
static char line[65536];

static void check_ts(const char *ts)
{
    regex_t re;
    regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}\\+00:00$",
            REG_EXTENDED | REG_NOSUB);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL(regexec(&re, ts, 0, NULL, 0), 0);
    regfree(&re);
    double t;
    CU_ASSERT_TRUE(hw_parse_iso(ts, strlen(ts), &t));
    CU_ASSERT_TRUE(fabs(t - hw_real_now()) < 60);
}

static void test_phase_shape(void)
{
    rl_field_t extra[] = {RL_STR("model", "gpt2"), RL_INT("step", -42), RL_DBL("lr", 0.001),
                          RL_BOOL("ok", true), RL_NULL("none"), RL_JSON("arr", "[1, 2.50, \"x\"]")};
    long n = rl_format_phase(line, sizeof line, "train", 12.3456, extra, 6);
    CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof line);
    CU_ASSERT_EQUAL(line[n - 1], '\n');
    CU_ASSERT_PTR_NULL(memchr(line, '\n', (size_t)n - 1));
    /* pytyche's exact shape: key order, ", " and ": " separators, Python float repr. */
    const char *rest = strstr(line, "\", \"type\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rest);
    CU_ASSERT_STRING_EQUAL(rest, "\", \"type\": \"phase\", \"name\": \"train\", \"seconds\": 12.346, "
                                 "\"model\": \"gpt2\", \"step\": -42, \"lr\": 0.001, \"ok\": true, "
                                 "\"none\": null, \"arr\": [1, 2.5, \"x\"]}\n");
    CU_ASSERT_EQUAL(strncmp(line, "{\"ts\": \"", 8), 0);
    struct json_object *o = parse_line(line, (size_t)n - 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    check_ts(jstr(o, "ts"));
    json_object_put(o);
}

/* A duration that is not one (NaN, negative, beyond RL_MAX_SECONDS) is refused and nothing is
 * written: a reader must never have to make sense of a phase of 1e300 seconds. */
static void test_seconds_refused(void)
{
    static const double bad[] = {NAN, INFINITY, -INFINITY, -1, -0.0005, 1e300, 1.0000001e12};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(rl_format_phase(line, sizeof line, "p", bad[i], NULL, 0), -EINVAL);
    CU_ASSERT(rl_format_phase(line, sizeof line, "p", 0, NULL, 0) > 0);
    CU_ASSERT(rl_format_phase(line, sizeof line, "p", RL_MAX_SECONDS, NULL, 0) > 0);
    char *dir = th_tmpdir("seconds");
    char *path = th_fmt("%s/run.jsonl", dir);
    rl_log_t *log = NULL;
    CU_ASSERT_FATAL(rl_open(&log, path, 0) == 0);
    CU_ASSERT_EQUAL(rl_phase(log, "p", NAN, NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(rl_phase(log, "p", 1e300, NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    struct stat st;
    CU_ASSERT(stat(path, &st) == 0 && st.st_size == 0);
    th_rmtree(dir);
    free(dir);
    free(path);
}

/* rl_write_line(): a caller's line, written whole and as it is; what is not one JSON object
 * (or holds a newline, or an integer json-c would change) is refused and nothing written. */
static void test_write_line(void)
{
    char *dir = th_tmpdir("write_line");
    char *path = th_fmt("%s/run.jsonl", dir);
    rl_log_t *log = NULL;
    CU_ASSERT_FATAL(rl_open(&log, path, 0) == 0);
    static const char *const bad[] = {"", "[1, 2]", "\"x\"", "{\"a\": 1}\n{}",
                                      "{\"a\": NaN}", "{\"a\": [1, -Infinity]}", "{\"a\": 1", "{\"a\": 1} x",
                                      "{\"big\": 18446744073709551616}",
                                      "{\"neg\": -9223372036854775809}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(rl_write_line(log, bad[i], strlen(bad[i])), -EINVAL);
    CU_ASSERT_EQUAL(rl_write_line(log, "{\"a\": 1}\0x", 10), -EINVAL);
    CU_ASSERT_EQUAL(rl_write_line(NULL, "{}", 2), -EINVAL);
    CU_ASSERT_EQUAL(rl_write_line(log, NULL, 0), -EINVAL);
    const char *ok = "{\"ts\": 5, \"type\": \"mine\", \"seconds\": -0.0, "
                     "\"seed\": 18446744073709551615}";
    CU_ASSERT_EQUAL(rl_write_line(log, ok, strlen(ok)), 0);
    CU_ASSERT_EQUAL(rl_write_line(log, "{}trailing", 2), 0); /* len bytes only */
    CU_ASSERT_EQUAL(rl_close(log), 0);
    size_t n = 0;
    char *got = th_read_file(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    char *want = th_fmt("%s\n{}\n", ok);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(want);
    free(got);
    th_rmtree(dir);
    free(dir);
    free(path);
}

static void test_seconds_rounding(void)
{
    /* Python: round(x, 3) then repr. */
    static const struct {
        double in;
        const char *out;
    } cases[] = {
        {0, "0.0"},          {1, "1.0"},         {0.0004, "0.0"},      {0.0005, "0.001"},
        {2.675, "2.675"},    {1.0005, "1.0"},    {1.2345, "1.234"},    {123456.78951, "123456.79"},
        {1e12, "1000000000000.0"}, {86400.5, "86400.5"}, {0.1, "0.1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long n = rl_format_phase(line, sizeof line, "p", cases[i].in, NULL, 0);
        CU_ASSERT_FATAL(n > 0);
        char want[128];
        snprintf(want, sizeof want, "\"seconds\": %s}\n", cases[i].out);
        if (!strstr(line, want))
            fprintf(stderr, "seconds %.17g: got %s wanted %s\n", cases[i].in, line, want);
        CU_ASSERT_PTR_NOT_NULL(strstr(line, want));
    }
}

static void test_double_repr(void)
{
    static const struct {
        double in;
        const char *out;
    } cases[] = {
        {0.1, "0.1"},         {1.0 / 3, "0.3333333333333333"}, {1e-5, "1e-05"},
        {1.5e-5, "1.5e-05"},  {0.0001, "0.0001"},              {123.0, "123.0"},
        {-2.5, "-2.5"},       {1e22, "1e+22"},                 {9007199254740993.0, "9007199254740992.0"},
        {5e-324, "5e-324"},   {1.7976931348623157e308, "1.7976931348623157e+308"},
        {INFINITY, "null"},   {-INFINITY, "null"},             {0.0, "0.0"},
        {-0.0, "-0.0"},       {95.25, "95.25"},                {1024.5, "1024.5"},
        {1e15, "1000000000000000.0"}, {1e16, "1e+16"},        {-0.001, "-0.001"},
        {4503599627370495.0, "4503599627370495.0"},           {0.00012345678, "0.00012345678"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct hw_buf b;
        hw_buf_init(&b, NULL, 0);
        hw_buf_py_double(&b, cases[i].in);
        if (strcmp(b.p, cases[i].out) != 0)
            fprintf(stderr, "repr %.17g: got %s wanted %s\n", cases[i].in, b.p, cases[i].out);
        CU_ASSERT_STRING_EQUAL(b.p, cases[i].out);
        hw_buf_free(&b);
    }
}

/* Our repr() and round(x, 3) against Python's own, on doubles of every magnitude (random bit
 * patterns, including subnormals) and on decimal-looking ones, where rounding ties live. */
static void test_repr_matches_python(void)
{
    char *tmp = th_tmpdir("repr");
    char *path = th_fmt("%s/repr.txt", tmp);
    struct hw_buf out;
    hw_buf_init(&out, NULL, 0);
    unsigned seed = 12345;
    for (int i = 0; i < 20000; i++) {
        double x;
        uint64_t u = (uint64_t)rand_r(&seed) << 42 ^ (uint64_t)rand_r(&seed) << 21 ^
                     (uint64_t)rand_r(&seed) ^ (uint64_t)rand_r(&seed) << 62;
        memcpy(&x, &u, sizeof x);
        if (i % 4 == 3) /* a reading with few decimals (the fast way), of any size */
            x = (double)((uint64_t)rand_r(&seed) << (rand_r(&seed) % 30)) /
                pow(10, rand_r(&seed) % 10) * (rand_r(&seed) % 2 ? -1 : 1);
        else if (i % 3 == 0)
            x = (double)(rand_r(&seed) % 2000000) / 2000.0; /* many exact ...5 ties */
        else if (i % 3 == 1)
            x = rand_r(&seed) / (double)RAND_MAX * pow(10, rand_r(&seed) % 40 - 20);
        if (!isfinite(x))
            continue;
        hw_buf_printf(&out, "%a ", x);
        hw_buf_py_double(&out, x);
        hw_buf_putc(&out, ' ');
        hw_buf_py_round(&out, x, 3);
        hw_buf_putc(&out, '\n');
    }
    CU_ASSERT_FALSE_FATAL(out.oom);
    CU_ASSERT_EQUAL_FATAL(th_write_file(path, out.p, out.len), 0);
    hw_buf_free(&out);
    char *py = th_fmt("import sys\n"
                      "bad = 0\n"
                      "for line in open(sys.argv[1]):\n"
                      "    h, r, r3 = line.split()\n"
                      "    x = float.fromhex(h)\n"
                      "    if repr(x) != r or repr(round(x, 3)) != r3:\n"
                      "        bad += 1\n"
                      "        if bad < 5: print('mismatch', h, r, repr(x), r3, repr(round(x, 3)))\n"
                      "print('mismatches', bad)\n");
    char *argv[] = {(char *)"/usr/bin/env", (char *)"python3", (char *)"-c", py, path, NULL};
    struct th_result r;
    CU_ASSERT_EQUAL(th_run(argv, NULL, NULL, 120, &r), 0);
    if (r.status == 127 && getenv("CI") == NULL) {
        fprintf(stderr, "python3 not found: repr cross-check skipped\n");
    } else {
        if (strcmp(r.out, "mismatches 0\n") != 0)
            fprintf(stderr, "%s%s", r.out, r.err);
        CU_ASSERT_STRING_EQUAL(r.out, "mismatches 0\n");
    }
    th_result_free(&r);
    free(py);
    free(path);
    th_rmtree(tmp);
    free(tmp);
}

static void test_event_shape(void)
{
    long n = rl_format_event(line, sizeof line, "start", NULL, 0);
    CU_ASSERT_FATAL(n > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\", \"type\": \"event\", \"event\": \"start\"}\n"));
    rl_field_t d[] = {RL_INT("a", 1), RL_MERGE("{\"b\": {\"c\": [true, null]}, \"d\": 1e2}")};
    n = rl_format_event(line, sizeof line, "cfg", d, 2);
    CU_ASSERT_FATAL(n > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"event\": \"cfg\", \"data\": {\"a\": 1, \"b\": {\"c\": "
                                        "[true, null]}, \"d\": 100.0}}\n"));
    /* An empty merge leaves "data" out, like pytyche's `if data:`. */
    rl_field_t e[] = {RL_MERGE("{}")};
    rl_format_event(line, sizeof line, "x", e, 1);
    CU_ASSERT_PTR_NULL(strstr(line, "data"));
}

static void test_hostile_strings(void)
{
    /* Every byte value, quotes, backslashes, invalid UTF-8 and valid multibyte text. */
    char hostile[300];
    size_t k = 0;
    for (int c = 1; c < 256; c++)
        hostile[k++] = (char)c;
    static const char tail[] = "\"\\\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80\xc0\xaf";
    memcpy(hostile + k, tail, sizeof tail - 1);
    k += sizeof tail - 1;
    hostile[k] = '\0';
    rl_field_t f[] = {RL_STR(hostile, hostile)};
    long n = rl_format_phase(line, sizeof line, hostile, 1, f, 1);
    CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof line);
    CU_ASSERT_PTR_NULL(memchr(line, '\n', (size_t)n - 1));
    struct json_object *o = parse_line(line, (size_t)n - 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    const char *name = jstr(o, "name");
    CU_ASSERT_PTR_NOT_NULL_FATAL(name);
    /* ASCII comes back unchanged, valid UTF-8 too; bad bytes became U+FFFD. */
    CU_ASSERT_EQUAL(memcmp(name, hostile, 127), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(name, "\"\\\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
    CU_ASSERT_PTR_NOT_NULL(strstr(name, "\xef\xbf\xbd"));
    CU_ASSERT_PTR_NULL(strstr(name, "\xed\xa0\x80")); /* a surrogate is not valid UTF-8 */
    CU_ASSERT_PTR_NOT_NULL(jstr(o, name));            /* the key went through the same path */
    json_object_put(o);
}

static void test_rejects(void)
{
    rl_field_t reserved[] = {RL_INT("ts", 1)};
    CU_ASSERT_EQUAL(rl_format_phase(line, sizeof line, "p", 1, reserved, 1), -EINVAL);
    rl_field_t type_key[] = {RL_INT("type", 1)};
    CU_ASSERT_EQUAL(rl_format_phase(line, sizeof line, "p", 1, type_key, 1), -EINVAL);
    rl_field_t dup[] = {RL_INT("a", 1), RL_INT("a", 2)};
    CU_ASSERT_EQUAL(rl_format_phase(line, sizeof line, "p", 1, dup, 2), -EINVAL);
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", dup, 2), -EINVAL);
    rl_field_t dup_merge[] = {RL_INT("a", 1), RL_MERGE("{\"a\": 2}")};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", dup_merge, 2), -EINVAL);
    rl_field_t bad_json[] = {RL_JSON("j", "{\"a\":")};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", bad_json, 1), -EINVAL);
    rl_field_t junk[] = {RL_JSON("j", "[1] x")};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", junk, 1), -EINVAL);
    /* integers json-c would saturate are refused, not logged as another number */
    static const char *const too_big[] = {"100000000000000000000000", "[18446744073709551616]",
                                          "{\"n\": -9223372036854775809}"};
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
        rl_field_t big[] = {RL_JSON("j", too_big[i])};
        CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", big, 1), -EINVAL);
        rl_field_t bigm[] = {RL_MERGE("{\"n\": 99999999999999999999999}")};
        CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", bigm, 1), -EINVAL);
    }
    /* the extremes that fit, doubles and digits inside strings go through exactly */
    rl_field_t edge[] = {RL_JSON("j", "[18446744073709551615, -9223372036854775808, 1e23, "
                                      "\"123456789012345678901234\", \"a\\\"1\"]")};
    CU_ASSERT(rl_format_event(line, sizeof line, "e", edge, 1) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "[18446744073709551615, -9223372036854775808, 1e+23, "
                                        "\"123456789012345678901234\", \"a\\\"1\"]"));
    rl_field_t not_obj[] = {RL_MERGE("[1]")};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", not_obj, 1), -EINVAL);
    rl_field_t no_key[] = {{.key = NULL, .type = RL_T_INT}};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", no_key, 1), -EINVAL);
    CU_ASSERT_EQUAL(rl_format_phase(line, sizeof line, NULL, 1, NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, NULL, NULL, 0), -EINVAL);
    /* "null" is valid JSON text and must not be mistaken for a parse failure. */
    rl_field_t jnull[] = {RL_JSON("j", " null ")};
    CU_ASSERT(rl_format_event(line, sizeof line, "e", jnull, 1) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"data\": {\"j\": null}"));
    /* A reserved top-level phase key is fine inside event data. */
    rl_field_t ok[] = {RL_INT("name", 1), RL_INT("ts", 2)};
    CU_ASSERT(rl_format_event(line, sizeof line, "e", ok, 2) > 0);
}

static void test_long_line(void)
{
    /* Past the 4 KiB stack buffer: the heap path must give the same shape. */
    size_t len = 100000;
    char *big = malloc(len + 1);
    memset(big, 'x', len);
    big[len] = '\0';
    rl_field_t f[] = {RL_STR("big", big)};
    char *out = malloc(len + 1000);
    long n = rl_format_event(out, len + 1000, "e", f, 1);
    CU_ASSERT_FATAL(n > (long)len);
    struct json_object *o = parse_line(out, (size_t)n - 1);
    CU_ASSERT_PTR_NOT_NULL(o);
    json_object_put(o);
    /* A too-small buffer reports the full length and stays NUL-terminated. */
    char small[16];
    CU_ASSERT_EQUAL(rl_format_event(small, sizeof small, "e", f, 1), n);
    CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
    free(out);
    free(big);
}

static void test_kv_typing(void)
{
    static const struct {
        const char *arg;
        rl_type type;
    } cases[] = {
        {"a=1", RL_T_INT},          {"a=-0", RL_T_INT},        {"a=1.5", RL_T_DOUBLE},
        {"a=1e3", RL_T_DOUBLE},     {"a=true", RL_T_BOOL},     {"a=false", RL_T_BOOL},
        {"a=null", RL_T_NULL},      {"a=01", RL_T_STRING},     {"a=1.", RL_T_STRING},
        {"a=.5", RL_T_STRING},      {"a=+1", RL_T_STRING},     {"a=NaN", RL_T_STRING},
        {"a=True", RL_T_STRING},    {"a=", RL_T_STRING},       {"a=x=y", RL_T_STRING},
        {"a=1e999", RL_T_STRING},   {"a=99999999999999999999", RL_T_DOUBLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", cases[i].arg);
        rl_field_t f;
        CU_ASSERT_EQUAL_FATAL(rl_cli_parse_kv(buf, &f), 0);
        if (f.type != cases[i].type)
            fprintf(stderr, "%s: type %d, wanted %d\n", cases[i].arg, f.type, cases[i].type);
        CU_ASSERT_EQUAL(f.type, cases[i].type);
        CU_ASSERT_STRING_EQUAL(f.key, "a");
    }
    char noeq[] = "novalue", nokey[] = "=1";
    rl_field_t f;
    CU_ASSERT_EQUAL(rl_cli_parse_kv(noeq, &f), -EINVAL);
    CU_ASSERT_EQUAL(rl_cli_parse_kv(nokey, &f), -EINVAL);
}

/* ---- files and failure paths ---- */

static char *dir;

static int io_init(void)
{
    dir = th_tmpdir("runlog");
    return 0;
}

static int io_clean(void)
{
    th_rmtree(dir);
    free(dir);
    return 0;
}

static void test_append_and_env(void)
{
    char *path = th_fmt("%s/env.jsonl", dir);
    unsetenv("RUNLOG_FILE");
    rl_log_t *log = (rl_log_t *)0x1;
    CU_ASSERT_EQUAL(rl_open(&log, NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(log, (rl_log_t *)0x1); /* untouched on failure */
    setenv("RUNLOG_FILE", path, 1);
    log = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, NULL, RL_FSYNC_LINE | RL_FSYNC_CLOSE), 0);
    CU_ASSERT_EQUAL(rl_phase(log, "a", 1, NULL, 0), 0);
    rl_timer_t t;
    CU_ASSERT_EQUAL(rl_timer_begin(&t, "timed"), 0);
    th_sleep(0.05);
    double s = 0;
    CU_ASSERT_EQUAL(rl_timer_end(log, &t, NULL, 0, &s), 0);
    CU_ASSERT(s >= 0.05 && s < 5);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    unsetenv("RUNLOG_FILE");
    /* Reopening appends; the mode is 0644. */
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, path, 0), 0);
    CU_ASSERT_EQUAL(rl_event(log, "e", NULL, 0), 0);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    CU_ASSERT_EQUAL(rl_close(NULL), 0);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0644);
    size_t len;
    char *text = th_read_file(path, &len);
    CU_ASSERT_EQUAL(th_count_lines(text), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\": \"timed\", \"seconds\": 0.0"));
    free(text);
    free(path);
}

/* A phase logged at its begin and its end: the shapes, the pairing id, the keys it refuses,
 * the CLI's token round trip, and a span that still ends when its begin could not be written. */
static void test_phase_spans(void)
{
    char *path = th_fmt("%s/spans.jsonl", dir);
    rl_log_t *log = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, path, 0), 0);
    rl_span_t outer, inner;
    rl_field_t x[] = {RL_INT("epoch", 3)};
    CU_ASSERT_EQUAL(rl_phase_begin(log, &outer, "epoch", x, 1), 0);
    CU_ASSERT_EQUAL(rl_phase_begin(log, &inner, "ckpt", NULL, 0), 0);
    CU_ASSERT_STRING_NOT_EQUAL(outer.id, inner.id);
    th_sleep(0.02);
    double s = 0;
    CU_ASSERT_EQUAL(rl_phase_end(log, &inner, x, 1, &s), 0);
    CU_ASSERT(s >= 0.02 && s < 5);
    CU_ASSERT_EQUAL(rl_phase_end(log, &outer, NULL, 0, NULL), 0);
    /* phase_id is the library's: refused as an extra of begin and end, nothing written */
    rl_field_t bad[] = {RL_STR(RL_PHASE_ID, "mine")}, sec[] = {RL_DBL("seconds", 1)};
    rl_span_t sp;
    CU_ASSERT_EQUAL(rl_phase_begin(log, &sp, "x", bad, 1), -EINVAL);
    CU_ASSERT_EQUAL(rl_phase_begin(log, &sp, "x", sec, 1), -EINVAL);
    CU_ASSERT_EQUAL(rl_phase_end(log, &outer, bad, 1, NULL), -EINVAL);
    CU_ASSERT_EQUAL(rl_phase_begin(log, NULL, "x", NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(rl_phase_begin(log, &sp, NULL, NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    char *text = th_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(th_count_lines(text), 4);
    char want[512];
    snprintf(want, sizeof want, "\"type\": \"phase_begin\", \"name\": \"epoch\", \"phase_id\": \"%s\", "
             "\"epoch\": 3}\n", outer.id);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
    snprintf(want, sizeof want, "\"type\": \"phase\", \"name\": \"ckpt\", \"seconds\": ");
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
    snprintf(want, sizeof want, ", \"phase_id\": \"%s\", \"epoch\": 3}\n", inner.id);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
    /* begin before end, the inner's inside the outer's */
    char *b_out = strstr(text, outer.id), *b_in = strstr(text, inner.id);
    CU_ASSERT(b_out && b_in && b_out < b_in);
    free(text);
    /* the id is PID.N, unique per call */
    char pid[32];
    snprintf(pid, sizeof pid, "%ld.", (long)getpid());
    CU_ASSERT_EQUAL(strncmp(outer.id, pid, strlen(pid)), 0);

    /* runlog begin's token carries the span to runlog end: any bytes in the name */
    rl_span_t t, back;
    CU_ASSERT_EQUAL(rl_span_start(&t, "odd \"name\"/\n\xff"), 0);
    char tok[RL_CLI_TOKEN_MAX], name[RL_CLI_TOKEN_MAX];
    CU_ASSERT_FATAL(rl_cli_token_format(&t, tok, sizeof tok) > 0);
    CU_ASSERT_PTR_NULL(strpbrk(tok, " \n\"'\\"));
    CU_ASSERT_EQUAL_FATAL(rl_cli_token_parse(tok, &back, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(back.name, t.name);
    CU_ASSERT_STRING_EQUAL(back.id, t.id);
    CU_ASSERT(back.start.tv_sec == t.start.tv_sec && back.start.tv_nsec == t.start.tv_nsec);
    static const char *const badtok[] = {"", "x", "1.2/3.4/61", "1.2/3.000000000/6",
                                         "1.2/3.000000000/0061", "a.b/3.000000000/61",
                                         "1.2/-3.000000000/61", "1.2/3.0/61"};
    for (size_t i = 0; i < sizeof badtok / sizeof badtok[0]; i++)
        CU_ASSERT_EQUAL(rl_cli_token_parse(badtok[i], &back, name, sizeof name), -EINVAL);

    /* A full disk: the begin fails, the span has started all the same */
    int fd = open("/dev/full", O_WRONLY | O_APPEND);
    if (fd >= 0) {
        CU_ASSERT_EQUAL_FATAL(rl_fdopen(&log, fd, 0), 0);
        CU_ASSERT_EQUAL(rl_phase_begin(log, &sp, "x", NULL, 0), -ENOSPC);
        CU_ASSERT(sp.id[0] != '\0' && sp.name && !strcmp(sp.name, "x"));
        CU_ASSERT_EQUAL(rl_phase_end(log, &sp, NULL, 0, &s), -ENOSPC);
        CU_ASSERT(s >= 0 && s < 5);
        rl_close(log);
    }
    free(path);
}

static void test_open_errors(void)
{
    rl_log_t *log = NULL;
    CU_ASSERT_EQUAL(rl_open(&log, dir, 0), -EISDIR);
    char *missing = th_fmt("%s/no/such/dir/x.jsonl", dir);
    CU_ASSERT_EQUAL(rl_open(&log, missing, 0), -ENOENT);
    free(missing);
    CU_ASSERT_PTR_NULL(log);
    CU_ASSERT_EQUAL(rl_phase(NULL, "x", 1, NULL, 0), -EINVAL);

    /* Permission denied. Root ignores file modes, so try as an unprivileged user in a child. */
    char *ro = th_fmt("%s/ro", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(ro, 0555), 0);
    char *target = th_fmt("%s/x.jsonl", ro);
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0) {
            struct passwd *pw = getpwnam("nobody");
            if (!pw || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                _exit(3);
        }
        rl_log_t *l2 = NULL;
        _exit(rl_open(&l2, target, 0) == -EACCES ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    free(target);
    free(ro);
}

/* A log is a file: a FIFO is refused without waiting for a reader (open(2) on a FIFO blocks
 * until one comes, and a process stuck there ignores everything but SIGKILL), and so is one that
 * has a reader; a character device such as /dev/null is a log that discards. */
static void test_open_not_a_file(void)
{
    rl_log_t *log = NULL;
    char *fifo = th_fmt("%s/fifo.jsonl", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    CU_ASSERT_EQUAL(rl_open(&log, fifo, 0), -EINVAL); /* today: blocks for ever */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);       /* now with a reader */
    CU_ASSERT_FATAL(rd >= 0);
    CU_ASSERT_EQUAL(rl_open(&log, fifo, 0), -EINVAL);
    CU_ASSERT_PTR_NULL(log);
    char why[96];
    CU_ASSERT_STRING_EQUAL(hw_open_reason(AT_FDCWD, fifo, EINVAL, why, sizeof why), "is a FIFO");
    close(rd);
    CU_ASSERT_EQUAL(rl_open(&log, "/dev/null", 0), 0);
    CU_ASSERT_EQUAL(rl_event(log, "x", NULL, 0), 0);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    /* rl_fdopen: a descriptor opened without O_APPEND could tear lines; it is refused, and
     * closed (the log owns it from the call on) */
    char *plain = th_fmt("%s/plain.jsonl", dir);
    int fd = open(plain, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    log = NULL;
    CU_ASSERT_EQUAL(rl_fdopen(&log, fd, 0), -EINVAL);
    CU_ASSERT_PTR_NULL(log);
    CU_ASSERT(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
    fd = open(plain, O_WRONLY | O_APPEND | O_CLOEXEC);
    CU_ASSERT_EQUAL(rl_fdopen(&log, fd, 0), 0);
    CU_ASSERT_EQUAL(rl_event(log, "x", NULL, 0), 0);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    free(plain);
    free(fifo);
}

/* hw_open_file, the one way a run's files are opened: exclusively, never through a link, never
 * a hard link or another user's file when owned files are asked for. */
static void test_open_file_rules(void)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CU_ASSERT_FATAL(dfd >= 0);
    char *outside = th_fmt("%s/outside", dir);
    CU_ASSERT_EQUAL_FATAL(th_write_file(outside, "x\n", 2), 0);
    CU_ASSERT_EQUAL(symlinkat("outside-ghost", dfd, "dangling"), 0);
    CU_ASSERT_EQUAL(hw_open_file(dfd, "dangling", HW_OPEN_EXCL), -EEXIST);
    CU_ASSERT_EQUAL(hw_open_file(dfd, "dangling", HW_OPEN_CREATE), -ELOOP);
    struct stat st;
    CU_ASSERT(fstatat(dfd, "outside-ghost", &st, 0) < 0 && errno == ENOENT);
    CU_ASSERT_EQUAL(linkat(dfd, "outside", dfd, "hard", 0), 0);
    CU_ASSERT_EQUAL(hw_open_file(dfd, "hard", HW_OPEN_OWNED), -EPERM);
    char why[96];
    CU_ASSERT_PTR_NOT_NULL(strstr(hw_open_reason(dfd, "hard", EPERM, why, sizeof why), "2 links"));
    int fd = hw_open_file(dfd, "new", HW_OPEN_EXCL);
    CU_ASSERT(fd >= 0 && (fcntl(fd, F_GETFL) & (O_APPEND | O_NONBLOCK)) == O_APPEND);
    close(fd);
    CU_ASSERT_EQUAL(hw_open_file(dfd, "new", HW_OPEN_EXCL), -EEXIST);
    fd = hw_open_file(dfd, "new", HW_OPEN_OWNED);
    CU_ASSERT(fd >= 0);
    close(fd);
    close(dfd);
    free(outside);
}

/* hw_mkdir_p says what it made, and hw_rmdir_made removes that and nothing more. */
static void test_mkdir_made(void)
{
    char *path = th_fmt("%s/m1//m2/m3", dir);
    size_t made = 0;
    CU_ASSERT_EQUAL(hw_mkdir_p(path, &made), 0);
    CU_ASSERT_EQUAL(made, strlen(dir) + 1);
    hw_rmdir_made(path, made);
    struct stat st;
    char *first = th_fmt("%s/m1", dir);
    CU_ASSERT(stat(first, &st) < 0 && errno == ENOENT);
    CU_ASSERT(stat(dir, &st) == 0);
    CU_ASSERT_EQUAL(hw_mkdir_p(path, &made), 0);
    CU_ASSERT_EQUAL(hw_mkdir_p(path, &made), 0);
    CU_ASSERT_EQUAL(made, strlen(path)); /* nothing made the second time */
    char *keep = th_fmt("%s/m1/keep", dir);
    CU_ASSERT_EQUAL(th_write_file(keep, "", 0), 0);
    hw_rmdir_made(path, strlen(dir) + 1); /* m1 holds a file: m3 and m2 go, m1 stays */
    CU_ASSERT(stat(first, &st) == 0);
    char *m2 = th_fmt("%s/m1/m2", dir);
    CU_ASSERT(stat(m2, &st) < 0 && errno == ENOENT);
    free(m2);
    free(keep);
    free(first);
    free(path);
}

static void test_disk_full(void)
{
    rl_log_t *log = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, "/dev/full", 0), 0);
    CU_ASSERT_EQUAL(rl_phase(log, "x", 1, NULL, 0), -ENOSPC);
    rl_field_t f[] = {RL_STR("k", "v")};
    CU_ASSERT_EQUAL(rl_event(log, "x", f, 1), -ENOSPC);
    rl_close(log);
}

static void test_file_size_limit(void)
{
    /* A write cut short by RLIMIT_FSIZE: the caller must get the error, not a silent half line. */
    char *path = th_fmt("%s/limited.jsonl", dir);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {200, 200};
        setrlimit(RLIMIT_FSIZE, &rl);
        rl_log_t *log = NULL;
        if (rl_open(&log, path, 0) < 0)
            _exit(2);
        char big[400];
        memset(big, 'y', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        rl_field_t f[] = {RL_STR("pad", big)};
        int rc = rl_event(log, "x", f, 1);
        _exit(rc == -EFBIG ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    free(path);
}

/* ---- concurrency: 8 processes x 4 threads, lines of 50..3000 bytes ---- */

enum { PROCS = 8, THREADS = 4, LINES = 300 };

struct writer {
    rl_log_t *log;
    int proc, thread;
};

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    char pad[3100];
    unsigned seed = (unsigned)(w->proc * 131 + w->thread);
    for (int i = 0; i < LINES; i++) {
        size_t len = 50 + (size_t)(rand_r(&seed) % 2950);
        memset(pad, 'a' + (w->proc + w->thread + i) % 26, len);
        pad[len] = '\0';
        rl_field_t f[] = {RL_INT("proc", w->proc), RL_INT("thread", w->thread),
                          RL_INT("seq", i), RL_STR("pad", pad)};
        if (rl_event(w->log, "load", f, 4) < 0)
            return (void *)1;
    }
    return NULL;
}

static void test_concurrent_appenders(void)
{
    char *path = th_fmt("%s/concurrent.jsonl", dir);
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            rl_log_t *log = NULL;
            if (rl_open(&log, path, 0) < 0)
                _exit(2);
            pthread_t th[THREADS];
            struct writer w[THREADS];
            for (int t = 0; t < THREADS; t++) {
                w[t] = (struct writer){log, p, t};
                pthread_create(&th[t], NULL, writer_main, &w[t]);
            }
            int bad = 0;
            for (int t = 0; t < THREADS; t++) {
                void *r;
                pthread_join(th[t], &r);
                bad |= r != NULL;
            }
            _exit(rl_close(log) < 0 || bad);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int st;
        waitpid(pids[p], &st, 0);
        CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    size_t len;
    char *text = th_read_file(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    static unsigned char seen[PROCS][THREADS][LINES];
    memset(seen, 0, sizeof seen);
    size_t nlines = 0, bad = 0;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        CU_ASSERT_PTR_NOT_NULL_FATAL(nl); /* the file ends with a whole line */
        struct json_object *o = parse_line(s, (size_t)(nl - s));
        struct json_object *data, *v;
        if (!o || !json_object_object_get_ex(o, "data", &data)) {
            bad++;
        } else {
            int p = json_object_object_get_ex(data, "proc", &v) ? json_object_get_int(v) : -1;
            int t = json_object_object_get_ex(data, "thread", &v) ? json_object_get_int(v) : -1;
            int q = json_object_object_get_ex(data, "seq", &v) ? json_object_get_int(v) : -1;
            if (p < 0 || p >= PROCS || t < 0 || t >= THREADS || q < 0 || q >= LINES)
                bad++;
            else
                seen[p][t][q]++;
        }
        json_object_put(o);
        nlines++;
        s = nl + 1;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(nlines, (size_t)PROCS * THREADS * LINES);
    size_t once = 0;
    for (int p = 0; p < PROCS; p++)
        for (int t = 0; t < THREADS; t++)
            for (int q = 0; q < LINES; q++)
                once += seen[p][t][q] == 1;
    CU_ASSERT_EQUAL(once, (size_t)PROCS * THREADS * LINES);
    free(text);
    free(path);
}

void add_runlog_suites(void);
void add_runlog_suites(void)
{
    CU_pSuite s = th_add_suite("format", NULL, NULL, 60);
    CU_add_test(s, "phase_shape", test_phase_shape);
    CU_add_test(s, "seconds_rounding", test_seconds_rounding);
    CU_add_test(s, "seconds_refused", test_seconds_refused);
    CU_add_test(s, "write_line", test_write_line);
    CU_add_test(s, "double_repr", test_double_repr);
    CU_add_test(s, "repr_matches_python", test_repr_matches_python);
    CU_add_test(s, "event_shape", test_event_shape);
    CU_add_test(s, "hostile_strings", test_hostile_strings);
    CU_add_test(s, "rejects", test_rejects);
    CU_add_test(s, "long_line", test_long_line);
    CU_add_test(s, "kv_typing", test_kv_typing);
    s = th_add_suite("files", io_init, io_clean, 120);
    CU_add_test(s, "append_and_env", test_append_and_env);
    CU_add_test(s, "phase_spans", test_phase_spans);
    CU_add_test(s, "open_errors", test_open_errors);
    CU_add_test(s, "open_not_a_file", test_open_not_a_file);
    CU_add_test(s, "open_file_rules", test_open_file_rules);
    CU_add_test(s, "mkdir_made", test_mkdir_made);
    CU_add_test(s, "disk_full", test_disk_full);
    CU_add_test(s, "file_size_limit", test_file_size_limit);
    s = th_add_suite("concurrency", io_init, io_clean, 300);
    CU_add_test(s, "concurrent_appenders", test_concurrent_appenders);
}
