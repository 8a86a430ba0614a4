/* The runlog command, run as a user runs it: exit codes, messages, what lands in the file, and
 * that jq and pytyche's reader (Python's json.loads per line) read the result. */
#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char *dir, *logpath;
static const char *bin;

static int cli_init(void)
{
    dir = th_tmpdir("runlog-cli");
    logpath = th_fmt("%s/run.jsonl", dir);
    bin = th_env("HWRUN_RUNLOG_BIN");
    return 0;
}

static int cli_clean(void)
{
    th_rmtree(dir);
    free(dir);
    free(logpath);
    return 0;
}

/* Run runlog with the given arguments (NULL-terminated) and RUNLOG_FILE set to env_file (NULL:
 * unset). */
static int run(struct th_result *r, const char *env_file, const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; *args && n < 31; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    char *envs = th_fmt("RUNLOG_FILE=%s", env_file ? env_file : "");
    char *env[] = {envs, NULL};
    int rc = th_run(argv, env, NULL, 30, r);
    free(envs);
    return rc;
}

#define RUN(r, envf, ...) run((r), (envf), (const char *const[]){__VA_ARGS__, NULL})

/* The last line of the log, parsed. */
static struct json_object *last_entry(void)
{
    char *text = th_read_file(logpath, NULL);
    if (!text || !*text) {
        free(text);
        return NULL;
    }
    size_t len = strlen(text);
    CU_ASSERT_EQUAL(text[len - 1], '\n');
    text[len - 1] = '\0';
    char *lastnl = strrchr(text, '\n');
    struct json_object *o = json_tokener_parse(lastnl ? lastnl + 1 : text);
    free(text);
    return o;
}

static struct json_object *get(struct json_object *o, const char *path)
{
    /* "a.b.c" */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save, *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
        if (!json_object_object_get_ex(o, k, &o))
            return NULL;
    return o;
}

static void test_phase_and_event(void)
{
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(RUN(&r, NULL, "-f", logpath, "phase", "train", "1.5", "lr=0.1",
                              "steps=3", "tag=x y", "flag=false"),
                          0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(r.out_len, 0);
    CU_ASSERT_EQUAL(r.err_len, 0);
    th_result_free(&r);
    struct json_object *o = last_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "type")), "phase");
    CU_ASSERT_EQUAL(json_object_get_double(get(o, "seconds")), 1.5);
    CU_ASSERT_TRUE(json_object_is_type(get(o, "lr"), json_type_double));
    CU_ASSERT_TRUE(json_object_is_type(get(o, "steps"), json_type_int));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "tag")), "x y");
    CU_ASSERT_TRUE(json_object_is_type(get(o, "flag"), json_type_boolean));
    json_object_put(o);

    /* RUNLOG_FILE is the default; KEY=VALUE and --data both go into "data". */
    RUN(&r, logpath, "event", "checkpoint", "step=10", "--data", "{\"path\": \"/ckpt/1\", \"n\": [1,2]}");
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    o = last_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "event")), "checkpoint");
    CU_ASSERT_EQUAL(json_object_get_int(get(o, "data.step")), 10);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "data.path")), "/ckpt/1");
    CU_ASSERT_EQUAL(json_object_array_length(get(o, "data.n")), 2);
    json_object_put(o);
}

static void test_usage_errors(void)
{
    struct th_result r;
    const char *const *cases[] = {
        (const char *const[]){"phase", "x", "1", NULL},                /* no file anywhere */
        (const char *const[]){"-f", "F", NULL},                        /* no command */
        (const char *const[]){"-f", "F", "bogus", NULL},               /* unknown command */
        (const char *const[]){"-f", "F", "phase", "x", NULL},          /* no seconds */
        (const char *const[]){"-f", "F", "phase", "x", "abc", NULL},   /* bad seconds */
        (const char *const[]){"-f", "F", "phase", "x", "-1", NULL},    /* negative seconds */
        (const char *const[]){"-f", "F", "phase", "x", "1", "novalue", NULL},
        (const char *const[]){"-f", "F", "phase", "x", "1", "ts=1", NULL}, /* reserved key */
        (const char *const[]){"-f", "F", "event", "x", "--data", "{bad", NULL},
        (const char *const[]){"-f", "F", "event", "x", "--data", "[1]", NULL},
        (const char *const[]){"-f", "F", "event", "x", "--data", NULL},
        (const char *const[]){"-f", "F", "time", "x", NULL},           /* no -- COMMAND */
        (const char *const[]){"-f", "F", "time", "x", "--", NULL},
        (const char *const[]){"--no-such-option", NULL},
        (const char *const[]){"-f", "F", "phase", "x", "1e300", NULL}, /* absurd seconds */
        (const char *const[]){"-f", "F", "phase", "x", "nan", NULL},
        (const char *const[]){"-f", "F", "event", "x", "a=1", "a=2", NULL}, /* repeated key */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[16];
        size_t n = 0;
        for (const char *const *a = cases[i]; *a; a++)
            args[n++] = strcmp(*a, "F") == 0 ? logpath : *a;
        args[n] = NULL;
        unlink(logpath);
        CU_ASSERT_EQUAL_FATAL(run(&r, NULL, args), 0);
        if (r.status != 2)
            fprintf(stderr, "case %zu: status %d, stderr: %s\n", i, r.status, r.err);
        CU_ASSERT_EQUAL(r.status, 2);
        CU_ASSERT_EQUAL(strncmp(r.err, "runlog: ", 8), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "Try 'runlog --help'"));
        /* the message is about what was given: no --data, no word of --data */
        bool data = false;
        for (size_t k = 0; k < n; k++)
            data |= strcmp(args[k], "--data") == 0;
        if (!data && strstr(r.err, "--data"))
            fprintf(stderr, "case %zu speaks of --data: %s\n", i, r.err);
        CU_ASSERT(data || !strstr(r.err, "--data"));
        th_result_free(&r);
        CU_ASSERT_EQUAL(access(logpath, F_OK), -1); /* nothing was written */
    }
}

static void test_help_version(void)
{
    struct th_result r;
    RUN(&r, NULL, "--help");
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Usage: runlog"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Exit status"));
    th_result_free(&r);
    RUN(&r, NULL, "--version");
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out, "runlog (hwrun) " HWRUN_VERSION "\n");
    th_result_free(&r);
    /* A full stdout is a failure, not silence. */
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", NULL, NULL};
    argv[2] = th_fmt("'%s' --help > /dev/full", bin);
    th_run(argv, NULL, NULL, 30, &r);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "write error"));
    th_result_free(&r);
    free(argv[2]);
}

static void test_runtime_errors(void)
{
    struct th_result r;
    RUN(&r, NULL, "-f", "/dev/full", "event", "x");
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_STRING_EQUAL(r.err, "runlog: write /dev/full: No space left on device\n");
    th_result_free(&r);
    RUN(&r, NULL, "-f", dir, "event", "x");
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "is a directory"));
    th_result_free(&r);
}

/* `runlog time` runs the command whatever happens to the log, and exits with its status: a
 * script instrumented with it keeps working outside hwmon, on a full disk, with a typo. */
static void test_time_always_runs(void)
{
    struct th_result r;
    char *marker = th_fmt("%s/ran", dir);
    char *cmd = th_fmt("touch %s; exit 3", marker);
    struct {
        const char *why, *file, *extra, *warning;
    } cases[] = {
        {"unopenable log", "/no/such/dir/log", "k=1", "runlog: not logging phase 'x': open /no/such/dir/log: No such file or directory\n"},
        {"no log file", NULL, "k=1", "runlog: not logging phase 'x': no log file (give -f FILE or set RUNLOG_FILE)\n"},
        {"full disk", "/dev/full", "k=1", "runlog: phase 'x' not logged: write /dev/full: No space left on device\n"},
        {"bad extra", logpath, "novalue", "runlog: not logging phase 'x': expected KEY=VALUE, got 'novalue'\n"},
        {"reserved key", logpath, "exit_status=0", "runlog: not logging phase 'x': keys may not repeat nor be ts, type, name, seconds, phase_id, exit_status, signal\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unlink(marker);
        unlink(logpath);
        const char *args[] = {"-f", cases[i].file, "time", "x", cases[i].extra, "--", "/bin/sh", "-c", cmd, NULL};
        CU_ASSERT_EQUAL_FATAL(run(&r, NULL, cases[i].file ? args : args + 2), 0);
        if (r.status != 3 || strcmp(r.err, cases[i].warning) != 0)
            fprintf(stderr, "%s: status %d, stderr: %s", cases[i].why, r.status, r.err);
        CU_ASSERT_EQUAL(r.status, 3);                  /* the command's own status */
        CU_ASSERT_EQUAL(access(marker, F_OK), 0);      /* it ran */
        CU_ASSERT_STRING_EQUAL(r.err, cases[i].warning);
        CU_ASSERT_EQUAL(access(logpath, F_OK), -1);    /* and nothing half-made was logged */
        th_result_free(&r);
    }
    /* A command that succeeds while the log fails: 0, not 1. */
    RUN(&r, NULL, "-f", "/dev/full", "time", "x", "--", "true");
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    free(cmd);
    free(marker);
}

static void test_time(void)
{
    struct th_result r;
    RUN(&r, NULL, "-f", logpath, "time", "work", "epoch=2", "--", "/bin/sh", "-c",
        "sleep 0.3; exit 7");
    CU_ASSERT_EQUAL(r.status, 7);
    th_result_free(&r);
    struct json_object *o = last_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "name")), "work");
    double s = json_object_get_double(get(o, "seconds"));
    CU_ASSERT(s >= 0.3 && s < 5);
    CU_ASSERT_EQUAL(json_object_get_int(get(o, "exit_status")), 7);
    CU_ASSERT_EQUAL(json_object_get_int(get(o, "epoch")), 2);
    CU_ASSERT_PTR_NULL(get(o, "signal"));
    json_object_put(o);

    /* Not found: 127, and the phase is still logged. Not executable: 126. */
    RUN(&r, NULL, "-f", logpath, "time", "nope", "--", "/no/such/program");
    CU_ASSERT_EQUAL(r.status, 127);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "No such file or directory"));
    th_result_free(&r);
    o = last_entry();
    CU_ASSERT_EQUAL(json_object_get_int(get(o, "exit_status")), 127);
    json_object_put(o);
    RUN(&r, NULL, "-f", logpath, "time", "noexec", "--", logpath);
    CU_ASSERT_EQUAL(r.status, 126);
    th_result_free(&r);

    /* PATH is searched; no shell is involved (the argument is not split or expanded). */
    RUN(&r, NULL, "-f", logpath, "time", "echo", "--", "echo", "$HOME *");
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out, "$HOME *\n");
    th_result_free(&r);

    /* Killed by a signal: 128+N and the signal in the entry. */
    RUN(&r, NULL, "-f", logpath, "time", "killed", "--", "/bin/sh", "-c", "kill -9 $$");
    CU_ASSERT_EQUAL(r.status, 137);
    th_result_free(&r);
    o = last_entry();
    CU_ASSERT_EQUAL(json_object_get_int(get(o, "exit_status")), 137);
    CU_ASSERT_EQUAL(json_object_get_int(get(o, "signal")), 9);
    json_object_put(o);
}

/* `runlog begin` / `runlog end` for shell scripts: the token carries the span between the two
 * processes; `time` logs its begin too. */
static void test_begin_end(void)
{
    struct th_result r;
    unlink(logpath);
    RUN(&r, NULL, "-f", logpath, "begin", "pre process", "files=12");
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    char tok[4096];
    snprintf(tok, sizeof tok, "%s", r.out);
    tok[strcspn(tok, "\n")] = '\0';
    th_result_free(&r);
    th_sleep(0.2);
    RUN(&r, NULL, "-f", logpath, "end", tok, "ok=true");
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    struct json_object *o = last_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "type")), "phase");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "name")), "pre process");
    double s = json_object_get_double(get(o, "seconds"));
    CU_ASSERT(s >= 0.2 && s < 5);
    CU_ASSERT_TRUE(json_object_get_boolean(get(o, "ok")));
    CU_ASSERT_PTR_NULL(get(o, "files")); /* the begin's keys are the begin's */
    char id[64];
    snprintf(id, sizeof id, "%s", json_object_get_string(get(o, "phase_id")));
    json_object_put(o);
    CU_ASSERT_EQUAL(strncmp(tok, id, strlen(id)), 0);
    char *text = th_read_file(logpath, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(th_count_lines(text), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"type\": \"phase_begin\", \"name\": \"pre process\""));
    free(text);
    /* a token runlog did not print, a reserved key, no log: usage errors, nothing written */
    RUN(&r, NULL, "-f", logpath, "end", "12.3/4.5/66");
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    RUN(&r, NULL, "-f", logpath, "begin", "x", "phase_id=1");
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "phase_id"));
    CU_ASSERT_STRING_EQUAL(r.out, "");
    th_result_free(&r);
    RUN(&r, NULL, "begin", "x");
    CU_ASSERT_EQUAL(r.status, 2);
    th_result_free(&r);
    text = th_read_file(logpath, NULL);
    CU_ASSERT_EQUAL(th_count_lines(text), 2);
    free(text);
    /* a token that cannot be printed (stdout on a full disk): exit 1, and no begin line left
     * behind whose phase could never end */
    if (access("/dev/full", W_OK) == 0) {
        char *argv[] = {(char *)"/bin/sh", (char *)"-c", NULL, NULL};
        argv[2] = th_fmt("'%s' -f '%s' begin lost > /dev/full", bin, logpath);
        CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 30, &r) == 0);
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "runlog: write the token to standard output (no "
                                             "begin logged): No space left on device"));
        th_result_free(&r);
        free(argv[2]);
        text = th_read_file(logpath, NULL);
        CU_ASSERT_EQUAL(th_count_lines(text), 2);
        free(text);
    } else {
        th_skip("no /dev/full");
    }
    /* time: begin, then the phase with the same id */
    RUN(&r, NULL, "-f", logpath, "time", "t", "--", "true");
    th_result_free(&r);
    text = th_read_file(logpath, NULL);
    CU_ASSERT_EQUAL(th_count_lines(text), 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"type\": \"phase_begin\", \"name\": \"t\""));
    free(text);
}

static void test_time_forwards_sigterm(void)
{
    char *out = th_fmt("%s/fwd.out", dir), *ready = th_fmt("%s/fwd.ready", dir);
    /* the command says when its trap is set: a slow start (a loaded machine, a sanitizer) must
     * not let the signal arrive before it */
    char *script = th_fmt("trap 'kill $!; echo got-term; exit 42' TERM; : > '%s'; "
                          "sleep 30 & wait", ready);
    char *argv[] = {(char *)bin, (char *)"-f", logpath, (char *)"time", (char *)"fwd",
                    (char *)"--", (char *)"/bin/sh", (char *)"-c", script, NULL};
    pid_t pid = th_spawn(argv, NULL, out, NULL);
    CU_ASSERT_FATAL(pid > 0);
    struct stat rs;
    for (int i = 0; i < 3000 && stat(ready, &rs) != 0; i++)
        th_sleep(0.01);
    CU_ASSERT_FATAL(stat(ready, &rs) == 0);
    kill(pid, SIGTERM);
    int st = th_wait(pid, 10);
    CU_ASSERT_EQUAL(st, 42);
    char *text = th_read_file(out, NULL);
    CU_ASSERT(text != NULL && strstr(text, "got-term") != NULL);
    free(text);
    struct json_object *o = last_entry();
    CU_ASSERT_STRING_EQUAL(json_object_get_string(get(o, "name")), "fwd");
    CU_ASSERT_EQUAL(json_object_get_int(get(o, "exit_status")), 42);
    json_object_put(o);
    free(script);
    free(ready);
    free(out);
}

/* The log must be readable by jq and by pytyche's own reader semantics: each line json.loads,
 * with "ts" and "type". Both tools are optional on a developer machine, required in CI. */
static void test_external_readers(void)
{
    struct th_result r;
    unlink(logpath);
    RUN(&r, NULL, "-f", logpath, "event", "hostile\"\\\n\t\x01\xff", "k\xfe=v\x80", "n=1");
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    RUN(&r, NULL, "-f", logpath, "phase", "p</script>", "0.0005", "x=-1.5e-7");
    th_result_free(&r);
    RUN(&r, NULL, "-f", logpath, "time", "t", "--", "true");
    th_result_free(&r);

    char *py = th_fmt(
        "import json,sys\n"
        "n=0\n"
        "for line in open(sys.argv[1], encoding='utf-8'):\n"
        "    e=json.loads(line); assert 'ts' in e and 'type' in e, e; n+=1\n"
        "assert n==4, n\n" /* time's begin entry too */
        "print('ok', n)\n");
    char *argv[] = {(char *)"/usr/bin/env", (char *)"python3", (char *)"-c", py, logpath, NULL};
    CU_ASSERT_EQUAL(th_run(argv, NULL, NULL, 60, &r), 0);
    if (r.status == 127 && getenv("CI") == NULL) {
        fprintf(stderr, "python3 not found: pytyche reader check skipped\n");
    } else {
        if (r.status != 0)
            fprintf(stderr, "python3: %s\n", r.err);
        CU_ASSERT_EQUAL(r.status, 0);
        CU_ASSERT_STRING_EQUAL(r.out, "ok 4\n");
    }
    th_result_free(&r);
    free(py);

    char *jq[] = {(char *)"/usr/bin/env", (char *)"jq", (char *)"-c",
                  (char *)"select(.type == \"event\") | .data.n", logpath, NULL};
    CU_ASSERT_EQUAL(th_run(jq, NULL, NULL, 60, &r), 0);
    if (r.status == 127 && getenv("CI") == NULL) {
        fprintf(stderr, "jq not found: jq check skipped\n");
    } else {
        CU_ASSERT_EQUAL(r.status, 0);
        CU_ASSERT_STRING_EQUAL(r.out, "1\n");
    }
    th_result_free(&r);
}

void add_runlog_cli_suites(void);
void add_runlog_cli_suites(void)
{
    CU_pSuite s = th_add_suite("cli", cli_init, cli_clean, 120);
    CU_add_test(s, "phase_and_event", test_phase_and_event);
    CU_add_test(s, "usage_errors", test_usage_errors);
    CU_add_test(s, "help_version", test_help_version);
    CU_add_test(s, "runtime_errors", test_runtime_errors);
    CU_add_test(s, "time", test_time);
    CU_add_test(s, "time_always_runs", test_time_always_runs);
    CU_add_test(s, "begin_end", test_begin_end);
    CU_add_test(s, "time_forwards_sigterm", test_time_forwards_sigterm);
    CU_add_test(s, "external_readers", test_external_readers);
}
