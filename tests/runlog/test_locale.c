/* librunlog inside a job that called setlocale(LC_ALL, "") under a comma-decimal locale: every
 * line is still JSON, its numbers with a dot, and the job's locale is as the job set it. */
#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runlog.h"
#include "testutil.h"

static char *dir;

static int loc_init(void)
{
    dir = th_tmpdir("locale");
    return 0;
}

static int loc_clean(void)
{
    th_rmtree(dir);
    free(dir);
    return 0;
}

static bool comma_now(void)
{
    return strcmp(localeconv()->decimal_point, ",") == 0;
}

/* What a job does: log phases, events with doubles, a JSON value with decimals, a span. */
static void *log_some(void *arg)
{
    rl_log_t *log = arg;
    rl_field_t f[] = {RL_DBL("lr", 0.001), RL_DBL("loss", 2.5e-7), RL_DBL("big", 1.5e20),
                      RL_DBL("odd", 0.1 + 0.2), RL_JSON("arr", "[1, 2.50, -3.25e-3]")};
    CU_ASSERT_EQUAL(rl_phase(log, "train", 1.25, f, 5), 0);
    CU_ASSERT_EQUAL(rl_event(log, "metric", f, 5), 0);
    rl_span_t sp;
    CU_ASSERT_EQUAL(rl_phase_begin(log, &sp, "eval", f, 2), 0);
    CU_ASSERT_EQUAL(rl_phase_end(log, &sp, f + 2, 3, NULL), 0);
    return NULL;
}

static void test_comma_locale_lines_are_json(void)
{
    const char *name = th_comma_locale();
    if (!name) {
        th_skip("no de_DE.UTF-8 locale, and localedef (Debian's locales) could not make one");
        return;
    }
    char *path = th_fmt("%s/run.jsonl", dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(setlocale(LC_ALL, name));
    CU_ASSERT_FATAL(comma_now()); /* else this tests nothing */
    rl_log_t *log = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, path, 0), 0);
    log_some(log);
    /* and from another thread, whose locale is the process's (uselocale is per thread) */
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, log_some, log), 0);
    pthread_join(t, NULL);
    char line[4096];
    CU_ASSERT(rl_format_phase(line, sizeof line, "p", 0.5, NULL, 0) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"seconds\": 0.5}"));
    CU_ASSERT_EQUAL(rl_close(log), 0);
    /* the job's own locale is untouched */
    CU_ASSERT(comma_now());
    char num[32];
    snprintf(num, sizeof num, "%.2f", 1.25);
    CU_ASSERT_STRING_EQUAL(num, "1,25");
    setlocale(LC_ALL, "C"); /* json-c reads numbers with strtod */

    size_t len;
    char *text = th_read_file(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(th_count_lines(text), 8);
    int phases = 0;
    for (char *s = text, *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        *nl = '\0';
        struct json_tokener *tok = json_tokener_new();
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
        struct json_object *o = json_tokener_parse_ex(tok, s, (int)(nl - s));
        bool ok = o && json_tokener_get_error(tok) == json_tokener_success &&
                  json_tokener_get_parse_end(tok) == (size_t)(nl - s);
        if (!ok)
            fprintf(stderr, "not JSON under %s: %s\n", name, s);
        CU_ASSERT(ok);
        struct json_object *v;
        if (ok && json_object_object_get_ex(o, "seconds", &v)) {
            phases++;
            CU_ASSERT(json_object_is_type(v, json_type_double));
        }
        if (ok && json_object_object_get_ex(o, "lr", &v))
            CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 0.001, 1e-12);
        CU_ASSERT_PTR_NULL(strstr(s, "0,001"));
        json_object_put(o);
        json_tokener_free(tok);
    }
    CU_ASSERT_EQUAL(phases, 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"seconds\": 1.25, \"lr\": 0.001, \"loss\": 2.5e-07, "
                                        "\"big\": 1.5e+20, \"odd\": 0.30000000000000004, "
                                        "\"arr\": [1, 2.5, -0.00325]}"));
    free(text);
    free(path);
}

void add_locale_suite(void);
void add_locale_suite(void)
{
    CU_pSuite s = th_add_suite("locale", loc_init, loc_clean, 180);
    CU_add_test(s, "comma_locale_lines_are_json", test_comma_locale_lines_are_json);
}
