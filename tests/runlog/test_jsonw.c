/* The JSON writer (hwrun/jsonw.h) and librunlog's structured fields (RL_T_STRV, RL_T_OBJ,
 * RL_T_ARR): exact bytes, escaping, nesting bounds, duplicate keys. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hwrun/jsonw.h"
#include "hwrun/buf.h"
#include "runlog.h"
#include "testutil.h"

static char line[65536];

/* The line from "data" on: the timestamp before it changes every call. */
static const char *after_event(long n)
{
    CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof line);
    const char *d = strstr(line, "\"event\": ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    return d;
}

static bool valid_json_line(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || s[n - 1] != '\n')
        return false;
    struct json_tokener *tok = json_tokener_new_ex(HW_JSON_MAX_DEPTH); /* default: 32 */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *o = json_tokener_parse_ex(tok, s, (int)n - 1);
    bool ok = o && json_tokener_get_parse_end(tok) == n - 1;
    json_object_put(o);
    json_tokener_free(tok);
    return ok;
}

static void test_structured_shape(void)
{
    const char *argv[] = {"python", "train.py", NULL, "--lr=3e-4"};
    rl_field_t gpu0[] = {RL_INT("index", 0), RL_STR("name", "H100"), RL_NULL("uuid")};
    rl_field_t gpu1[] = {RL_INT("index", 3), RL_STR("name", "A\"B"), RL_STR("uuid", "GPU-1")};
    rl_field_t gpus[] = {RL_OBJ(NULL, gpu0, 3), RL_OBJ(NULL, gpu1, 3)};
    rl_field_t ids[] = {RL_INT(NULL, 0), RL_DBL(NULL, 0.5), RL_BOOL(NULL, true),
                        RL_JSON(NULL, "{\"x\":[1,2]}"), RL_STRV(NULL, argv, 2)};
    rl_field_t samples[] = {RL_INT("cpu", 10), RL_INT("proc", 9)};
    rl_field_t d[] = {RL_STRV("command", argv, 4), RL_ARR("gpus", gpus, 2),
                      RL_ARR("mixed", ids, 5),     RL_OBJ("samples", samples, 2),
                      RL_STRV("none", NULL, 0),    RL_OBJ("empty", NULL, 0),
                      RL_ARR("empty_arr", NULL, 0)};
    long n = rl_format_event(line, sizeof line, "start", d, 7);
    CU_ASSERT_STRING_EQUAL(
        after_event(n),
        "\"event\": \"start\", \"data\": {\"command\": [\"python\", \"train.py\", null, "
        "\"--lr=3e-4\"], \"gpus\": [{\"index\": 0, \"name\": \"H100\", \"uuid\": null}, "
        "{\"index\": 3, \"name\": \"A\\\"B\", \"uuid\": \"GPU-1\"}], \"mixed\": [0, 0.5, true, "
        "{\"x\": [1, 2]}, [\"python\", \"train.py\"]], \"samples\": {\"cpu\": 10, \"proc\": 9}, "
        "\"none\": [], \"empty\": {}, \"empty_arr\": []}}\n");
    CU_ASSERT_TRUE(valid_json_line(line));
    /* the same fields in a phase */
    n = rl_format_phase(line, sizeof line, "p", 1, d, 1);
    CU_ASSERT(n > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(
        line, "\"seconds\": 1.0, \"command\": [\"python\", \"train.py\", null, \"--lr=3e-4\"]}\n"));
}

static void test_structured_escaping(void)
{
    /* every byte value in an array element and in a nested key */
    char hostile[300];
    size_t k = 0;
    for (int c = 1; c < 256; c++)
        hostile[k++] = (char)c;
    hostile[k] = '\0';
    const char *v[] = {hostile, "\xc0\xaf"};
    rl_field_t in[] = {RL_STR(hostile, hostile)};
    rl_field_t d[] = {RL_STRV("v", v, 2), RL_OBJ("o", in, 1)};
    long n = rl_format_event(line, sizeof line, "e", d, 2);
    CU_ASSERT_FATAL(n > 0);
    CU_ASSERT_PTR_NULL(memchr(line, '\n', (size_t)n - 1));
    CU_ASSERT_TRUE(valid_json_line(line));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"\xef\xbf\xbd\xef\xbf\xbd\"]")); /* bad UTF-8: U+FFFD */
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\\u0001\\u0002"));
    /* doubles: repr, non-finite null */
    rl_field_t nums[] = {RL_DBL(NULL, 0.1), RL_DBL(NULL, 1e16), RL_DBL(NULL, NAN),
                         RL_DBL(NULL, -INFINITY), RL_INT(NULL, INT64_MIN)};
    rl_field_t a[] = {RL_ARR("n", nums, 5)};
    n = rl_format_event(line, sizeof line, "e", a, 1);
    CU_ASSERT_STRING_EQUAL(after_event(n), "\"event\": \"e\", \"data\": {\"n\": [0.1, 1e+16, "
                                           "null, null, -9223372036854775808]}}\n");
}

static void test_structured_rejects(void)
{
    /* duplicate keys inside a nested object, at any depth */
    rl_field_t dup[] = {RL_INT("a", 1), RL_INT("a", 2)};
    rl_field_t d1[] = {RL_OBJ("o", dup, 2)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d1, 1), -EINVAL);
    rl_field_t deep[] = {RL_OBJ("o", d1, 1)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", deep, 1), -EINVAL);
    rl_field_t in_arr[] = {RL_OBJ(NULL, dup, 2)};
    rl_field_t d2[] = {RL_ARR("a", in_arr, 1)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d2, 1), -EINVAL);
    rl_field_t dup_merge[] = {RL_INT("a", 1), RL_MERGE("{\"a\": 2}")};
    rl_field_t d3[] = {RL_OBJ("o", dup_merge, 2)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d3, 1), -EINVAL);
    /* the same key in two different objects is fine, and a merge inside an object works */
    rl_field_t a1[] = {RL_INT("a", 1)}, a2[] = {RL_INT("a", 2), RL_MERGE("{\"b\": [1]}")};
    rl_field_t ok[] = {RL_INT("a", 0), RL_OBJ("x", a1, 1), RL_OBJ("y", a2, 2)};
    long n = rl_format_event(line, sizeof line, "e", ok, 3);
    CU_ASSERT_STRING_EQUAL(after_event(n), "\"event\": \"e\", \"data\": {\"a\": 0, \"x\": {\"a\": "
                                           "1}, \"y\": {\"a\": 2, \"b\": [1]}}}\n");
    /* a member without a key, a merge as an array element, NULL arrays with a count */
    rl_field_t nokey[] = {RL_INT(NULL, 1)};
    rl_field_t d4[] = {RL_OBJ("o", nokey, 1)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d4, 1), -EINVAL);
    rl_field_t merge[] = {RL_MERGE("{}")};
    rl_field_t d5[] = {RL_ARR("a", merge, 1)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d5, 1), -EINVAL);
    rl_field_t d6[] = {RL_STRV("v", NULL, 2)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d6, 1), -EINVAL);
    rl_field_t d7[] = {RL_OBJ("v", NULL, 1)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d7, 1), -EINVAL);
    rl_field_t d8[] = {RL_ARR("v", NULL, 1)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d8, 1), -EINVAL);
    rl_field_t bad_json[] = {RL_JSON(NULL, "[")};
    rl_field_t d9[] = {RL_ARR("a", bad_json, 1)};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", d9, 1), -EINVAL);
    rl_field_t bad_type[] = {{.key = "t", .type = (rl_type)99}};
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", bad_type, 1), -EINVAL);
    /* a reserved phase key nested in an object is the object's own: fine */
    rl_field_t ts[] = {RL_INT("ts", 1)};
    rl_field_t d10[] = {RL_OBJ("o", ts, 1)};
    CU_ASSERT(rl_format_phase(line, sizeof line, "p", 1, d10, 1) > 0);
}

static void test_structured_depth(void)
{
    /* RL_MAX_DEPTH levels of objects nest; one more is refused */
    rl_field_t chain[RL_MAX_DEPTH + 2];
    chain[0] = RL_INT("leaf", 1);
    for (int i = 1; i < RL_MAX_DEPTH + 2; i++)
        chain[i] = RL_OBJ("o", &chain[i - 1], 1);
    long n = rl_format_event(line, sizeof line, "e", &chain[RL_MAX_DEPTH], 1);
    CU_ASSERT_FATAL(n > 0);
    CU_ASSERT_TRUE(valid_json_line(line));
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", &chain[RL_MAX_DEPTH + 1], 1), -EINVAL);
    /* arrays count too */
    rl_field_t arr[RL_MAX_DEPTH + 2];
    arr[0] = RL_INT(NULL, 1);
    for (int i = 1; i < RL_MAX_DEPTH + 2; i++)
        arr[i] = RL_ARR("a", &arr[i - 1], 1);
    CU_ASSERT(rl_format_event(line, sizeof line, "e", &arr[RL_MAX_DEPTH], 1) > 0);
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", &arr[RL_MAX_DEPTH + 1], 1), -EINVAL);
    /* a field array that contains itself ends at the bound instead of recursing for ever */
    rl_field_t self[1];
    self[0] = RL_OBJ("self", self, 1);
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", self, 1), -EINVAL);
    rl_field_t selfa[1];
    selfa[0] = RL_ARR("self", selfa, 1);
    CU_ASSERT_EQUAL(rl_format_event(line, sizeof line, "e", selfa, 1), -EINVAL);
    /* json-c's deepest text (32 levels) inside the deepest objects still prints */
    char deepjson[80];
    memset(deepjson, '[', 31);
    memset(deepjson + 31, ']', 31);
    deepjson[62] = '\0';
    rl_field_t j[RL_MAX_DEPTH + 1];
    j[0] = RL_JSON("j", deepjson);
    for (int i = 1; i <= RL_MAX_DEPTH; i++)
        j[i] = RL_OBJ("o", &j[i - 1], 1);
    CU_ASSERT(rl_format_event(line, sizeof line, "e", &j[RL_MAX_DEPTH], 1) > 0);
    CU_ASSERT_TRUE(valid_json_line(line));
}

/* ---- the writer itself ---- */

static void test_writer_modes(void)
{
    char store[16];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store); /* starts small: the writer must grow the buffer */
    struct hw_json w;
    for (int style = HW_JSON_LINE; style <= HW_JSON_PRETTY; style++) {
        hw_buf_reset(&b);
        hw_json_init(&w, &b, (enum hw_json_style)style, HW_NUM_SIG12);
        hw_json_open(&w, NULL, '{');
        hw_json_str(&w, "s", "a\"\n");
        hw_json_num(&w, "x", 951.1000000000001);
        hw_json_num(&w, "nan", NAN);
        hw_json_open(&w, "e", '[');
        hw_json_close(&w);
        hw_json_open(&w, "a", '[');
        hw_json_u64(&w, NULL, UINT64_MAX);
        hw_json_i64(&w, NULL, -1);
        hw_json_open(&w, NULL, '{');
        hw_json_bool(&w, "t", true);
        hw_json_null(&w, "n");
        hw_json_close(&w);
        hw_json_close(&w);
        hw_json_raw(&w, "r", "{\"k\":1}");
        hw_json_str(&w, "z", NULL);
        hw_json_close(&w);
        CU_ASSERT_FALSE(w.err);
        CU_ASSERT_EQUAL(w.depth, 0);
        CU_ASSERT_STRING_EQUAL(
            b.p, style == HW_JSON_LINE
                     ? "{\"s\": \"a\\\"\\n\", \"x\": 951.1, \"nan\": null, \"e\": [], \"a\": "
                       "[18446744073709551615, -1, {\"t\": true, \"n\": null}], \"r\": "
                       "{\"k\":1}, \"z\": null}"
                     : "{\n  \"s\": \"a\\\"\\n\",\n  \"x\": 951.1,\n  \"nan\": null,\n  \"e\": "
                       "[],\n  \"a\": [\n    18446744073709551615,\n    -1,\n    {\n      "
                       "\"t\": true,\n      \"n\": null\n    }\n  ],\n  \"r\": {\"k\":1},\n  "
                       "\"z\": null\n}");
    }
    hw_buf_free(&b);
}

static void test_writer_numbers(void)
{
    static const struct {
        double x;
        const char *repr, *sig12, *pyjson;
    } cases[] = {
        {0.1 + 0.2, "0.30000000000000004", "0.3", "0.30000000000000004"},
        {12, "12.0", "12.0", "12.0"},
        {1e16, "1e+16", "1e+16", "1e+16"},
        {1.5e-05, "1.5e-05", "1.5e-05", "1.5e-05"},
        {-0.0, "-0.0", "-0.0", "-0.0"},
        {123456789.123456789, "123456789.12345679", "123456789.123", "123456789.12345679"},
        {NAN, "null", "null", "NaN"},
        {INFINITY, "null", "null", "Infinity"},
        {-INFINITY, "null", "null", "-Infinity"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *want[] = {cases[i].repr, cases[i].sig12, cases[i].pyjson};
        for (int m = HW_NUM_REPR; m <= HW_NUM_PYJSON; m++) {
            struct hw_buf b;
            hw_buf_init(&b, NULL, 0);
            hw_buf_json_num(&b, cases[i].x, (enum hw_json_num)m);
            CU_ASSERT_STRING_EQUAL(b.p, want[m]);
            if (strcmp(b.p, want[m]))
                fprintf(stderr, "case %zu mode %d: %s, want %s\n", i, m, b.p, want[m]);
            hw_buf_free(&b);
        }
    }
}

/* The 12-digit mode's fast path (a number of at most 12 significant digits printed from its
 * digits) against the slow one it stands for (snprintf "%.12g", strtod, then the shortest repr),
 * on 400,000 numbers: decimals of 1 to 16 digits at every scale the path takes, the sums and
 * means a summary prints (binary noise included), and random doubles of every size. */
static void test_writer_sig12_fast_path(void)
{
    static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    uint64_t s = 0x9E3779B97F4A7C15u;
    size_t bad = 0;
    for (int i = 0; i < 400000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double x;
        switch (i % 4) {
        case 0: { /* m / 10^k, m of 1 to 16 digits */
            uint64_t m = s % (uint64_t)(p10[1 + (s >> 40) % 9] * p10[1 + (s >> 50) % 7]);
            x = (double)m / p10[(s >> 20) % 10];
            break;
        }
        case 1: /* a mean of readings: noise in the last bits */
            x = ((double)(s % 100000) / 100 + 0.1 + 0.2) / 3;
            break;
        case 2: { /* any double of ordinary size */
            union { uint64_t u; double d; } v = {.u = s};
            x = v.d;
            if (!isfinite(x))
                x = 1.0;
            break;
        }
        default: /* readings in watts and MiB, negative too */
            x = (double)((int64_t)(s % 20000001) - 10000000) / 1000;
        }
        struct hw_buf a, b;
        hw_buf_init(&a, NULL, 0);
        hw_buf_init(&b, NULL, 0);
        hw_buf_json_num(&a, x, HW_NUM_SIG12);
        hw_buf_py_double(&b, hw_num_sig12(x));
        if (strcmp(a.p, b.p) && bad++ < 5)
            fprintf(stderr, "%.17g: fast %s, slow %s\n", x, a.p, b.p);
        hw_buf_free(&a);
        hw_buf_free(&b);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static void test_writer_bounds(void)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    struct hw_json w;
    hw_json_init(&w, &b, HW_JSON_LINE, HW_NUM_REPR);
    for (int i = 0; i < HW_JSON_MAX_DEPTH; i++)
        hw_json_open(&w, NULL, '[');
    CU_ASSERT_FALSE(w.err);
    hw_json_open(&w, NULL, '['); /* one too many: refused, and said */
    CU_ASSERT_TRUE(w.err);
    for (int i = 0; i <= HW_JSON_MAX_DEPTH; i++)
        hw_json_close(&w);
    CU_ASSERT_EQUAL(w.depth, 0);
    CU_ASSERT_EQUAL(b.len, 2 * (size_t)HW_JSON_MAX_DEPTH);
    /* a close without an open */
    hw_json_init(&w, &b, HW_JSON_LINE, HW_NUM_REPR);
    hw_json_close(&w);
    CU_ASSERT_TRUE(w.err);
    /* rewind: what came after the mark is gone, separators included */
    hw_buf_reset(&b);
    hw_json_init(&w, &b, HW_JSON_PRETTY, HW_NUM_REPR);
    hw_json_open(&w, NULL, '{');
    hw_json_i64(&w, "a", 1);
    struct hw_json_mark m = hw_json_mark(&w);
    hw_json_open(&w, "data", '{');
    hw_json_i64(&w, "x", 1);
    hw_json_close(&w);
    hw_json_rewind(&w, m);
    hw_json_i64(&w, "b", 2);
    hw_json_close(&w);
    CU_ASSERT_STRING_EQUAL(b.p, "{\n  \"a\": 1,\n  \"b\": 2\n}");
    hw_json_init(&w, &b, HW_JSON_LINE, HW_NUM_REPR);
    hw_buf_reset(&b);
    hw_json_open(&w, NULL, '{');
    m = hw_json_mark(&w);
    hw_json_i64(&w, "x", 1);
    hw_json_rewind(&w, m);
    hw_json_i64(&w, "b", 2);
    hw_json_close(&w);
    CU_ASSERT_STRING_EQUAL(b.p, "{\"b\": 2}");
    /* a flat container in a pretty document: on one line, with all it holds; the next member
     * is pretty again */
    hw_buf_reset(&b);
    hw_json_init(&w, &b, HW_JSON_PRETTY, HW_NUM_REPR);
    hw_json_open(&w, NULL, '[');
    for (int i = 0; i < 2; i++) {
        hw_json_open_flat(&w, NULL, '{');
        hw_json_i64(&w, "a", i);
        hw_json_open(&w, "b", '[');
        hw_json_i64(&w, NULL, 1);
        hw_json_i64(&w, NULL, 2);
        hw_json_close(&w);
        hw_json_close(&w);
    }
    hw_json_open(&w, NULL, '{');
    hw_json_i64(&w, "c", 3);
    hw_json_close(&w);
    hw_json_close(&w);
    CU_ASSERT_STRING_EQUAL(b.p, "[\n  {\"a\": 0, \"b\": [1, 2]},\n  {\"a\": 1, \"b\": [1, 2]},\n"
                                "  {\n    \"c\": 3\n  }\n]");
    CU_ASSERT_EQUAL(w.flat, 0);
    /* a rewind past a flat open takes its flatness back too */
    hw_buf_reset(&b);
    hw_json_init(&w, &b, HW_JSON_PRETTY, HW_NUM_REPR);
    hw_json_open(&w, NULL, '[');
    m = hw_json_mark(&w);
    hw_json_open_flat(&w, NULL, '{');
    hw_json_rewind(&w, m);
    hw_json_open(&w, NULL, '{');
    hw_json_i64(&w, "c", 3);
    hw_json_close(&w);
    hw_json_close(&w);
    CU_ASSERT_STRING_EQUAL(b.p, "[\n  {\n    \"c\": 3\n  }\n]");
    hw_buf_free(&b);
}

void add_jsonw_suites(void);
void add_jsonw_suites(void)
{
    CU_pSuite s = th_add_suite("structured", NULL, NULL, 60);
    CU_add_test(s, "shape", test_structured_shape);
    CU_add_test(s, "escaping", test_structured_escaping);
    CU_add_test(s, "rejects", test_structured_rejects);
    CU_add_test(s, "depth", test_structured_depth);
    s = th_add_suite("jsonw", NULL, NULL, 60);
    CU_add_test(s, "modes", test_writer_modes);
    CU_add_test(s, "numbers", test_writer_numbers);
    CU_add_test(s, "sig12_fast_path", test_writer_sig12_fast_path);
    CU_add_test(s, "bounds", test_writer_bounds);
}
