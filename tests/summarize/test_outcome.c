/* How a run ended (summarize/outcome.c): status, exit status and signal, failed phases, kept
 * phase extras; through the library on written logs, and end to end on real hwmon runs (a
 * failing command, one still running, a killed hwmon). */
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outcome.h"
#include "sumtest.h"

#define START(extra) \
    "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", " \
    "\"data\": {\"tool\": \"hwmon\", \"hwmon_pid\": 1, \"host\": \"@HOST@\"" extra "}}\n"
#define STOP(exit_part) \
    "{\"ts\": \"2026-11-21T10:00:09.000+00:00\", \"type\": \"event\", \"event\": \"stop\", " \
    "\"data\": {\"duration_s\": 9.0" exit_part ", \"reason\": \"command_exit\"}}\n"
#define PHASE(name, extra) \
    "{\"ts\": \"2026-11-21T10:00:05.000+00:00\", \"type\": \"phase\", \"name\": \"" name "\", " \
    "\"seconds\": 2.0" extra "}\n"

/* log with its @HOST@ as host (this host, unless another is named), and age_s: how long ago
 * the run's files were last written */
static struct sum_run *run_aged(const char *log, const char *host, double age_s)
{
    char here[256] = "";
    gethostname(here, sizeof here - 1);
    char *text = strdup(log);
    for (char *at; (at = strstr(text, "@HOST@"));) {
        char *t = th_fmt("%.*s%s%s", (int)(at - text), text, host ? host : here, at + 6);
        free(text);
        text = t;
    }
    char *dir = th_tmpdir("outcome");
    put_file(dir, "run.jsonl", text);
    free(text);
    put_file(dir, "cpu_metrics.csv", "timestamp,usr_pct,idle_pct\n"
                                     "2026-11-21T10:00:01.000+00:00,10,90\n"
                                     "2026-11-21T10:00:02.000+00:00,10,90\n");
    if (age_s > 0) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        struct timespec ts[2] = {{now.tv_sec - (time_t)age_s, 0}, {now.tv_sec - (time_t)age_s, 0}};
        const char *names[] = {"run.jsonl", "cpu_metrics.csv"};
        for (int i = 0; i < 2; i++) {
            char *p = th_fmt("%s/%s", dir, names[i]);
            CU_ASSERT_EQUAL(utimensat(AT_FDCWD, p, ts, 0), 0);
            free(p);
        }
    }
    struct sum_run *run = summarize_dir(dir);
    th_rmtree(dir);
    free(dir);
    return run;
}

static struct sum_run *run_of(const char *log)
{
    return run_aged(log, NULL, 0);
}

static void test_status_from_events(void)
{
    static const struct {
        const char *log;
        enum sum_status status;
        int exit_status, signal;
    } cases[] = {
        {START("") STOP(", \"exit_status\": 0"), SUM_STATUS_OK, 0, 0},
        {START("") STOP(", \"exit_status\": 3"), SUM_STATUS_FAILED, 3, 0},
        {START("") STOP(", \"exit_status\": 137"), SUM_STATUS_KILLED, 137, 9},
        {START("") STOP(""), SUM_STATUS_OK, -1, 0},               /* attach/system mode */
        {START(""), SUM_STATUS_INCOMPLETE, -1, 0},               /* no stop: hwmon died */
        {START("") STOP(", \"exit_status\": 0") START(""), SUM_STATUS_INCOMPLETE, -1, 0},
        {PHASE("p", ""), SUM_STATUS_UNKNOWN, -1, 0},             /* not hwmon's: nothing says */
        /* hwmon -p: the process is not its child, its exit status unknowable: never "ok" */
        {START(", \"mode\": \"attach\"")
             "{\"ts\": \"2026-11-21T10:00:09.000+00:00\", \"type\": \"event\", \"event\": \"stop\", "
             "\"data\": {\"reason\": \"process_exit\", \"process_alive\": false}}\n",
         SUM_STATUS_EXITED, -1, 0},
        {START(", \"mode\": \"attach\"")
             "{\"ts\": \"2026-11-21T10:00:09.000+00:00\", \"type\": \"event\", \"event\": \"stop\", "
             "\"data\": {\"reason\": \"signal\", \"process_alive\": true}}\n",
         SUM_STATUS_DETACHED, -1, 0},
        {START(", \"mode\": \"attach\"") /* an older hwmon: the reason tells */
             "{\"ts\": \"2026-11-21T10:00:09.000+00:00\", \"type\": \"event\", \"event\": \"stop\", "
             "\"data\": {\"reason\": \"duration\"}}\n",
         SUM_STATUS_DETACHED, -1, 0},
        {START(", \"mode\": \"system\"") STOP(""), SUM_STATUS_OK, -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sum_run *run = run_of(cases[i].log);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run);
        if (run->outcome.status != cases[i].status)
            fprintf(stderr, "case %zu: status %s\n", i, sum_status_names[run->outcome.status]);
        CU_ASSERT_EQUAL(run->outcome.status, cases[i].status);
        CU_ASSERT_EQUAL(run->outcome.exit_status, cases[i].exit_status);
        CU_ASSERT_EQUAL(run->outcome.signal, cases[i].signal);
        CU_ASSERT(isfinite(run->outcome.last_t));
        sum_run_free(run);
    }
}

static void test_failed_phases_and_extras(void)
{
    struct sum_run *run = run_of(START("") PHASE("ok", ", \"steps\": 10, \"exit_status\": 0")
                                     PHASE("bad", ", \"exit_status\": 2")
                                     PHASE("sig", ", \"exit_status\": 143, \"signal\": 15")
                                     PHASE("py", ", \"exception\": \"KeyError\"")
                                     PHASE("plain", "") STOP(", \"exit_status\": 0"));
    /* the last failure, named with how it failed, in every output's words */
    char note[512];
    CU_ASSERT_STRING_EQUAL(sum_outcome_failed_note(&run->outcome, note, sizeof note),
                           "3 phases failed, the last `py`, KeyError");
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_OK);
    CU_ASSERT_EQUAL(run->outcome.phases_failed, 3);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 5);
    CU_ASSERT(!run->phase[0].failed && run->phase[0].exit_status == 0);
    CU_ASSERT(run->phase[1].failed && run->phase[1].exit_status == 2);
    CU_ASSERT(run->phase[2].failed && run->phase[2].signal == 15);
    CU_ASSERT(run->phase[3].failed && run->phase[3].exit_status == -1);
    CU_ASSERT(!run->phase[4].failed);
    /* the entry's own keys are kept, as JSON */
    CU_ASSERT_PTR_NOT_NULL_FATAL(run->phase[0].extra);
    struct json_object *x = json_tokener_parse(run->phase[0].extra), *v;
    CU_ASSERT_TRUE(json_object_object_get_ex(x, "steps", &v) && json_object_get_int(v) == 10);
    CU_ASSERT_FALSE(json_object_object_get_ex(x, "ts", &v));
    json_object_put(x);
    CU_ASSERT_PTR_NULL(run->phase[4].extra);
    sum_run_free(run);
    run = run_of(START("") PHASE("train", ", \"exception\": \"RuntimeError\", "
                                          "\"exception_message\": \"loss is NaN\"")
                     STOP(", \"exit_status\": 1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_STRING_EQUAL(sum_outcome_failed_note(&run->outcome, note, sizeof note),
                           "1 phase failed: `train`, RuntimeError: loss is NaN");
    CU_ASSERT_EQUAL(sum_outcome_errors(&run->outcome, run->err_total), 1);
    sum_run_free(run);
}

static const struct sum_param *metric_of(const struct sum_run *run, const char *key)
{
    for (size_t i = 0; i < run->nparams; i++)
        if (run->params[i].metric && !strcmp(run->params[i].key, key))
            return &run->params[i];
    return NULL;
}

/* A run that raised in its second epoch (the Python package's failed phase, then the command's
 * exit status 1): the failed phase's extras (epoch=2, loss) are not the run's metrics, the last
 * good phase's are; the run's reason carries the exception's first line, not only "exited with
 * status 1" (issue 49). */
static void test_failed_run_reason_and_metrics(void)
{
    struct sum_run *run = run_of(
        START("") PHASE("epoch", ", \"epoch\": 1, \"loss\": 0.5")
            PHASE("epoch", ", \"epoch\": 2, \"loss\": 9.5, \"exception\": \"ValueError\", "
                           "\"exception_message\": \"lr 3.0 diverged\\nat step 7\"")
                STOP(", \"exit_status\": 1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_FAILED);
    const struct sum_param *ep = metric_of(run, "epoch"), *loss = metric_of(run, "loss");
    CU_ASSERT_FATAL(ep && loss && ep->v && loss->v);
    CU_ASSERT_EQUAL(json_object_get_int(ep->v), 1);
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(loss->v), 0.5, 1e-12);
    CU_ASSERT_STRING_EQUAL(run->outcome.reason, "the command exited with status 1; phase `epoch` "
                                                "raised ValueError: lr 3.0 diverged");
    sum_run_free(run);
    /* killed after raising: both said; a later failure without an exception drops it */
    run = run_of(START("") PHASE("train", ", \"exception\": \"KeyError\"")
                     STOP(", \"exit_status\": 137, \"signal\": 9"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_KILLED);
    CU_ASSERT_PTR_NOT_NULL(strstr(run->outcome.reason, "; phase `train` raised KeyError"));
    sum_run_free(run);
    run = run_of(START("") PHASE("train", ", \"exception\": \"KeyError\"")
                     PHASE("eval", ", \"exit_status\": 3") STOP(", \"exit_status\": 1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_STRING_EQUAL(run->outcome.reason, "the command exited with status 1");
    sum_run_free(run);
}

#define BEGIN(sec, name, id) \
    "{\"ts\": \"2026-11-21T10:00:0" sec "+00:00\", \"type\": \"phase_begin\", \"name\": \"" \
    name "\", \"phase_id\": \"" id "\", \"k\": 1}\n"
#define END(sec, name, secs, id) \
    "{\"ts\": \"2026-11-21T10:00:0" sec "+00:00\", \"type\": \"phase\", \"name\": \"" name \
    "\", \"seconds\": " secs ", \"phase_id\": \"" id "\"}\n"

static const struct sum_phase_acc *phase_named(const struct sum_run *run, const char *name)
{
    for (size_t i = 0; i < run->nphase; i++)
        if (!strcmp(run->phase[i].name, name))
            return &run->phase[i];
    return NULL;
}

/* Begin entries pair with their ends by phase_id, whatever the order (nested, interleaved by
 * threads): a begin without an end is an open phase, cut by the stop event, and the outcome
 * names the innermost. */
static void test_open_phases(void)
{
    struct sum_run *run = run_of(START("")
        BEGIN("1.000", "load", "5.1") END("2.000", "load", "1.0", "5.1")
        BEGIN("2.000", "epoch", "5.2") BEGIN("2.500", "step", "6.1") /* another thread */
        BEGIN("3.000", "checkpoint", "5.3") END("3.500", "step", "1.0", "6.1")
        "{\"ts\": \"2026-11-21T10:00:04.000+00:00\", \"type\": \"phase\", \"name\": \"x\", "
        "\"seconds\": 0.5, \"phase_id\": \"no-such-begin\"}\n"
        STOP(", \"exit_status\": 137"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    const struct sum_outcome *o = &run->outcome;
    CU_ASSERT_EQUAL(o->status, SUM_STATUS_KILLED);
    CU_ASSERT_EQUAL(o->phases_open, 2);
    CU_ASSERT_STRING_EQUAL(o->open_phase, "checkpoint"); /* the innermost: latest begun */
    CHECK_NEAR(o->open_phase_t1 - o->open_phase_t0, 6.0, 1e-6); /* 10:00:03 to the stop, :09 */
    char where[200];
    CU_ASSERT_STRING_EQUAL(sum_outcome_where(o, where, sizeof where),
                           "in phase `checkpoint` after 6.0 s");
    const struct sum_phase_acc *ep = phase_named(run, "epoch"), *ck = phase_named(run, "checkpoint");
    const struct sum_phase_acc *ld = phase_named(run, "load"), *st = phase_named(run, "step");
    CU_ASSERT_FATAL(ep && ck && ld && st);
    CU_ASSERT(ep->open && ck->open && !ld->open && !st->open);
    CHECK_NEAR(ep->t1 - ep->t0, 7.0, 1e-6);
    CU_ASSERT_STRING_EQUAL(ck->extra, "{\"k\":1}"); /* the begin's keys, without phase_id */
    CU_ASSERT_EQUAL(run->nphase, 5);
    /* the names count the open ones with their length so far */
    const struct sum_name_acc *na = sum_names_find(&run->names, "checkpoint");
    CU_ASSERT_FATAL(na != NULL);
    CU_ASSERT_EQUAL(na->count, 1);
    CHECK_NEAR(na->d_sum, 6.0, 1e-6);
    /* in a phase from :01 to :09 (load, epoch and what is inside): 1 s of 9 outside */
    CHECK_NEAR(run->outside_phases_s, 1.0, 1e-6);
    sum_run_free(run);

    /* No stop event (hwmon died too): open until the last sample (cpu rows at :01, :02),
     * the end only known once every file was read. */
    run = run_of(START("") BEGIN("0.500", "train", "7.1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_INCOMPLETE);
    CU_ASSERT_STRING_EQUAL(run->outcome.open_phase, "train");
    CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
    CHECK_NEAR(run->phase[0].t1 - run->phase[0].t0, 1.5, 1e-6);
    CHECK_NEAR(run->outcome.open_phase_t1 - run->outcome.open_phase_t0, 1.5, 1e-6);
    na = sum_names_find(&run->names, "train");
    CU_ASSERT_FATAL(na != NULL);
    CHECK_NEAR(na->d_sum, 1.5, 1e-6);
    CHECK_NEAR(na->span_s, 1.5, 1e-6);
    /* the samples inside it count: both cpu rows */
    CU_ASSERT_EQUAL(na->cpu_usr.n, 2);
    CU_ASSERT_EQUAL(run->phase[0].cpu_usr.n, 2);
    sum_run_free(run);

    /* A phase left open by an earlier run in the same log ends at the next run's start and is
     * not the last run's open phase. */
    run = run_of(START("") BEGIN("1.000", "old", "8.1") START("") STOP(", \"exit_status\": 0"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_OK);
    CU_ASSERT_STRING_EQUAL(run->outcome.open_phase, "");
    CU_ASSERT_EQUAL(run->outcome.phases_open, 1);
    sum_run_free(run);

    /* The command hwmon started logs its begin a moment before hwmon logs its start event: the
     * phase is this run's, one phase, ended by its end (it was cut at the start before). */
    run = run_of("{\"ts\": \"2026-11-21T09:59:59.999+00:00\", \"type\": \"phase_begin\", "
                 "\"name\": \"train\", \"phase_id\": \"10.1\"}\n" START("")
                     END("3.000", "train", "3.001", "10.1") STOP(", \"exit_status\": 0"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.phases_open, 0);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
    CU_ASSERT_FALSE(run->phase[0].open);
    CHECK_NEAR(run->phase[0].t1 - run->phase[0].t0, 3.001, 1e-6);
    sum_run_free(run);

    /* Every phase ended: nothing open; no phase at all: no time outside phases (null). */
    run = run_of(START("") BEGIN("1.000", "a", "9.1") END("2.000", "a", "1.0", "9.1")
                     STOP(", \"exit_status\": 0"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.phases_open, 0);
    CU_ASSERT_STRING_EQUAL(sum_outcome_where(&run->outcome, where, sizeof where), "");
    CHECK_NEAR(run->outside_phases_s, 8.0, 1e-6);
    sum_run_free(run);
    run = run_of(START("") STOP(", \"exit_status\": 0"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT(isnan(run->outside_phases_s));
    sum_run_free(run);
}

/* Runs of different lengths compare per step: the steps the phases said (steps=N), else one per
 * phase named "step"; none: no per-step figures (null, never 0). */
static void test_per_step(void)
{
    struct sum_run *run = run_of(START("") PHASE("train", ", \"steps\": 600")
                                     PHASE("eval", ", \"steps\": 300") STOP(", \"exit_status\": 0"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CHECK_NEAR(run->steps, 900, 0);
    CHECK_NEAR(sum_run_sec_per_step(run), 9.0 / 900, 1e-12); /* the stop's duration_s 9 */
    CHECK_NEAR(sum_run_step_phase_sec_per_step(run), 4.0 / 900, 1e-12); /* their 2 s each */
    CU_ASSERT(isnan(sum_run_energy_wh_per_step(run)));         /* no GPU: no energy */
    sum_run_free(run);
    /* the step phases' own time leaves out the eval between them, and a failed phase's planned
     * steps (and its time) are no steps done */
    run = run_of(START("") PHASE("train", ", \"steps\": 100") PHASE("eval", "")
                     PHASE("train", ", \"steps\": 100")
                         PHASE("train", ", \"steps\": 100, \"exit_status\": 1")
                             STOP(", \"exit_status\": 1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CHECK_NEAR(run->steps, 200, 0);
    CHECK_NEAR(sum_run_step_phase_sec_per_step(run), 4.0 / 200, 1e-12);
    CHECK_NEAR(sum_run_sec_per_step(run), 9.0 / 200, 1e-12);
    sum_run_free(run);
    run = run_of(START("") PHASE("step", "") PHASE("step", "") PHASE("step", "")
                     STOP(", \"exit_status\": 0"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CHECK_NEAR(sum_run_sec_per_step(run), 3.0, 1e-12);
    CHECK_NEAR(sum_run_step_phase_sec_per_step(run), 2.0, 1e-12); /* each "step" 2 s */
    sum_run_free(run);
    run = run_of(START("") PHASE("train", "") STOP(", \"exit_status\": 0"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT(isnan(sum_run_sec_per_step(run)));
    CU_ASSERT(isnan(sum_run_step_phase_sec_per_step(run)));
    sum_run_free(run);
}

/* A crashed run must not look like a good one in any output. */
static void test_hwmon_failed_command(void)
{
    char *dir = th_tmpdir("outcome-e2e"), *run = th_fmt("%s/run", dir);
    char *argv[] = {(char *)th_env("HWRUN_HWMON_BIN"), (char *)"-q", (char *)"--no-gpu",
                    (char *)"-i", (char *)"0.2", (char *)"-o", run, (char *)"--",
                    (char *)"/bin/sh", (char *)"-c", (char *)"sleep 0.5; exit 3", NULL};
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(th_run(argv, NULL, NULL, 60, &r), 0);
    CU_ASSERT_EQUAL(r.status, 3);
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "text", run, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "status FAILED: the command exited with status 3"));
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "csv", run, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",failed,3,,0,"));
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "json", run, NULL});
    struct json_object *o = json_tokener_parse(r.out), *v;
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "status", &v) &&
                   !strcmp(json_object_get_string(v), "failed"));
    json_object_put(o);
    th_result_free(&r);
    /* the HTML report says it at the top */
    char *page = th_fmt("%s/report.html", dir);
    char *hargv[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", (char *)"--html", page,
                     run, NULL};
    CU_ASSERT_EQUAL(th_run(hargv, NULL, NULL, 60, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<p class=\"banner bad\" id=\"status\" data-status=\"failed\">"
                                        "Run <b>failed</b>: the command exited with status 3</p>"));
    free(html);
    free(page);
    th_rmtree(dir);
    free(run);
    free(dir);
}

/* While hwmon writes, the run is "running"; after hwmon is killed -9, "incomplete". */
static void test_hwmon_running_then_killed(void)
{
    char *dir = th_tmpdir("outcome-e2e"), *run = th_fmt("%s/run", dir);
    char *log = th_fmt("%s/run.jsonl", run);
    char *argv[] = {(char *)th_env("HWRUN_HWMON_BIN"), (char *)"-q", (char *)"--no-gpu",
                    (char *)"-i", (char *)"0.2", (char *)"-o", run, (char *)"--",
                    (char *)"sleep", (char *)"60", NULL};
    pid_t pid = th_spawn(argv, NULL, NULL, NULL);
    CU_ASSERT_FATAL(pid > 0);
    for (int i = 0; i < 100; i++) { /* until the start event is there */
        char *t = th_read_file(log, NULL);
        bool started = t && strstr(t, "\"event\": \"start\"");
        free(t);
        if (started)
            break;
        th_sleep(0.1);
    }
    th_sleep(0.5);
    struct th_result r = run_summarize((char *[]){"--format", "text", run, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "status RUNNING: hwmon (pid "));
    th_result_free(&r);
    kill(pid, SIGKILL);
    th_wait(pid, 30);
    r = run_summarize((char *[]){"--format", "text", run, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "status INCOMPLETE: no stop event"));
    th_result_free(&r);
    r = run_summarize((char *[]){"--format", "csv", run, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",incomplete,,,0,"));
    th_result_free(&r);
    /* hwmon's wrapped sleep had its parent-death signal: nothing left behind to wait for */
    th_rmtree(dir);
    free(log);
    free(run);
    free(dir);
}

#define STOPREQ(data) \
    "{\"ts\": \"2026-11-21T10:00:04.000+00:00\", \"type\": \"event\", \"event\": \"stop_request\", " \
    "\"data\": {" data "}}\n"
#define MONEND(data) \
    "{\"ts\": \"2026-11-21T10:00:08.000+00:00\", \"type\": \"event\", \"event\": \"monitor_end\", " \
    "\"data\": {" data "}}\n"
#define ATTACH_STOP \
    "{\"ts\": \"2026-11-21T10:00:09.000+00:00\", \"type\": \"event\", \"event\": \"stop\", " \
    "\"data\": {\"reason\": \"signal\", \"process_alive\": true}}\n"

/* Who stopped the job, and how the owner of a monitor said its block ended: the status and the
 * words every output prints after it (sum_outcome_reason). */
static void test_stopped_from_outside(void)
{
    static const struct {
        const char *log;
        enum sum_status status;
        const char *reason;
    } cases[] = {
        /* SLURM's scancel: the job's own SIGTERM handler ran and it exited 0: still not "ok" */
        {START("") STOPREQ("\"signal\": 15, \"from\": \"scheduler\", \"sender_pid\": 812, "
                           "\"sender\": \"slurmstepd\", \"forwarded\": false")
             STOP(", \"exit_status\": 0"),
         SUM_STATUS_KILLED, "the command exited with status 0 after signal 15 (TERM) from the "
                            "scheduler (slurmstepd, pid 812)"},
        {START("") STOPREQ("\"signal\": 15, \"from\": \"scheduler\", \"sender\": \"slurmstepd\"")
             STOP(", \"exit_status\": 143"),
         SUM_STATUS_KILLED, "the command was killed by signal 15 (TERM) from the scheduler "
                            "(slurmstepd)"},
        /* kill hwmon, then hwmon's own SIGKILL after the grace */
        {START("") STOPREQ("\"signal\": 15, \"from\": \"process\", \"sender_pid\": 77, "
                           "\"sender\": \"bash\", \"kill_after_s\": 5")
             STOP(", \"exit_status\": 137"),
         SUM_STATUS_KILLED, "the command was killed by signal 9 (KILL) after signal 15 (TERM) "
                            "from process bash, pid 77"},
        {START("") STOPREQ("\"signal\": 2, \"from\": \"terminal\"") STOP(", \"exit_status\": 130"),
         SUM_STATUS_KILLED, "the command was killed by signal 2 (INT) from the terminal"},
        {START("") STOPREQ("\"signal\": 15, \"from\": \"container\"") STOP(", \"exit_status\": 1"),
         SUM_STATUS_KILLED, "the command exited with status 1 after signal 15 (TERM) from the "
                            "container runtime"},
        /* a nonsense signal says nothing */
        {START("") STOPREQ("\"signal\": 0, \"from\": \"process\"") STOP(", \"exit_status\": 0"),
         SUM_STATUS_OK, "the command exited 0"},
        /* the Python Monitor: its owner says how the block ended */
        {START(", \"mode\": \"attach\"") MONEND("\"status\": \"ok\"") ATTACH_STOP, SUM_STATUS_OK,
         "the monitored block ended normally"},
        {START(", \"mode\": \"attach\"")
             MONEND("\"status\": \"failed\", \"exception\": \"ValueError\", \"message\": \"boom\"")
                 ATTACH_STOP,
         SUM_STATUS_FAILED, "the monitored block raised ValueError: boom"},
        {START(", \"mode\": \"attach\"") ATTACH_STOP, SUM_STATUS_DETACHED,
         "hwmon stopped watching (signal) while the process ran on"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sum_run *run = run_of(cases[i].log);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run);
        char why[600];
        sum_outcome_reason(&run->outcome, why, sizeof why);
        if (run->outcome.status != cases[i].status || strcmp(why, cases[i].reason))
            fprintf(stderr, "case %zu: status %s: %s\n", i, sum_status_names[run->outcome.status],
                    why);
        CU_ASSERT_EQUAL(run->outcome.status, cases[i].status);
        CU_ASSERT_STRING_EQUAL(why, cases[i].reason);
        sum_run_free(run);
    }
}

/* The kernel's OOM killer named from the stop event's oom_kills (hwmon's count of the cgroup's
 * oom_kill while the job ran): the reason when it killed the command, a note when it killed
 * another process of the cgroup; nothing claimed when it killed nothing or was not counted. */
static void test_oom_killer(void)
{
#define OOM(st, kills, max) STOP(", \"exit_status\": " st ", \"oom_kills\": " kills \
                                  ", \"cgroup_memory_max_mib\": " max)
    static const struct {
        const char *log;
        enum sum_status status;
        const char *reason, *note;
    } cases[] = {
        {START("") OOM("137", "1", "4096.0"), SUM_STATUS_KILLED,
         "the command was killed by the kernel's OOM killer (cgroup memory limit 4096 MiB)", ""},
        {START("") OOM("137", "2", "null"), SUM_STATUS_KILLED,
         "the command was killed by the kernel's OOM killer", ""},
        {START("") OOM("137", "0", "4096.0"), SUM_STATUS_KILLED,
         "the command was killed by signal 9 (KILL)", ""},
        {START("") OOM("137", "null", "4096.0"), SUM_STATUS_KILLED,
         "the command was killed by signal 9 (KILL)", ""},
        {START("") STOP(", \"exit_status\": 137"), SUM_STATUS_KILLED,
         "the command was killed by signal 9 (KILL)", ""},
        /* a dataloader worker killed, the command failed on its own */
        {START("") OOM("1", "2", "512.0"), SUM_STATUS_FAILED,
         "the command exited with status 1",
         "the kernel's OOM killer killed 2 processes of the job's cgroup (cgroup memory limit "
         "512 MiB)"},
        /* hwmon's own SIGKILL after a stop request's grace could have been it: a note only */
        {START("") STOPREQ("\"signal\": 15, \"from\": \"process\", \"sender_pid\": 77, "
                           "\"sender\": \"bash\", \"kill_after_s\": 5")
             OOM("137", "1", "null"),
         SUM_STATUS_KILLED, "the command was killed by signal 9 (KILL) after signal 15 (TERM) "
                            "from process bash, pid 77",
         "the kernel's OOM killer killed 1 process of the job's cgroup"},
    };
#undef OOM
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sum_run *run = run_of(cases[i].log);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run);
        char why[600], note[600];
        sum_outcome_reason(&run->outcome, why, sizeof why);
        sum_outcome_note(&run->outcome, note, sizeof note);
        if (run->outcome.status != cases[i].status || strcmp(why, cases[i].reason) ||
            strcmp(note, cases[i].note))
            fprintf(stderr, "case %zu: status %s: %s / %s\n", i,
                    sum_status_names[run->outcome.status], why, note);
        CU_ASSERT_EQUAL(run->outcome.status, cases[i].status);
        CU_ASSERT_STRING_EQUAL(why, cases[i].reason);
        CU_ASSERT_STRING_EQUAL(run->outcome.reason, cases[i].reason);
        CU_ASSERT_STRING_EQUAL(note, cases[i].note);
        sum_run_free(run);
    }
}

/* The stop event's samples_lost (rows taken whose write a full disk failed, by file) summed for
 * the quality section, and kept per file of the run files' table (by its stem); without it, not
 * said (-1: null), never 0. */
static void test_samples_lost(void)
{
    static const struct {
        const char *log;
        long long lost, cpu, tree_pids;
    } cases[] = {
        {START("") STOP(", \"exit_status\": 0, \"samples_lost\": {\"cpu\": 3, \"proc\": 2}"), 5, 3, 0},
        /* every file of the table by its stem; a key no file has is not hwmon's count */
        {START("") STOP(", \"samples_lost\": {\"cpu\": 1, \"tree_pids\": 4, \"disk\": 9}"), 5, 1, 4},
        {START("") STOP(", \"exit_status\": 0, \"samples_lost\": {\"cpu\": 0, \"proc\": 0}"), 0, 0, 0},
        {START("") STOP(", \"exit_status\": 0"), -1, 0, 0},
        {START(""), -1, 0, 0},
        /* nonsense counts add nothing */
        {START("") STOP(", \"samples_lost\": {\"cpu\": -4, \"proc\": \"x\"}"), 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sum_run *run = run_of(cases[i].log);
        CU_ASSERT_PTR_NOT_NULL_FATAL(run);
        if (run->info.samples_lost != cases[i].lost)
            fprintf(stderr, "case %zu: samples_lost %lld\n", i,
                    (long long)run->info.samples_lost);
        CU_ASSERT_EQUAL(run->info.samples_lost, cases[i].lost);
        CU_ASSERT_EQUAL(run->info.lost_rows[HW_FILE_CPU], cases[i].cpu);
        CU_ASSERT_EQUAL(run->info.lost_rows[HW_FILE_TREE_PIDS], cases[i].tree_pids);
        sum_run_free(run);
    }
}

/* A run without a stop event, summarized on another host (a login node over a shared file
 * system): hwmon's pid cannot be checked from here. Running while its files are written, else
 * unknown, never a confident "incomplete". */
static void test_other_host(void)
{
    const char *log = START("") BEGIN("0.500", "train", "7.1");
    struct sum_run *run = run_aged(log, "gpu-node-17", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_RUNNING);
    char why[600];
    CU_ASSERT_PTR_NOT_NULL(strstr(sum_outcome_reason(&run->outcome, why, sizeof why),
                                  "hwmon runs on gpu-node-17, not here: its files were written"));
    sum_run_free(run);
    /* quiet for longer than the rule allows (SUM_ALIVE_MIN_S, at least): unknown */
    run = run_aged(log, "gpu-node-17", 3 * SUM_ALIVE_MIN_S);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_UNKNOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(sum_outcome_reason(&run->outcome, why, sizeof why),
                                  "cannot be checked from this host"));
    CU_ASSERT_STRING_EQUAL(run->outcome.open_phase, "train"); /* where it was, all the same */
    sum_run_free(run);
    /* on its own host, with no hwmon at that pid: incomplete, whatever the files' age */
    run = run_aged(log, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_INCOMPLETE);
    sum_run_free(run);
}

void add_outcome_suite(void);
void add_outcome_suite(void)
{
    CU_pSuite s = th_add_suite("outcome", NULL, NULL, 120);
    CU_add_test(s, "status_from_events", test_status_from_events);
    CU_add_test(s, "failed_phases_and_extras", test_failed_phases_and_extras);
    CU_add_test(s, "failed_run_reason_and_metrics", test_failed_run_reason_and_metrics);
    CU_add_test(s, "open_phases", test_open_phases);
    CU_add_test(s, "stopped_from_outside", test_stopped_from_outside);
    CU_add_test(s, "oom_killer", test_oom_killer);
    CU_add_test(s, "samples_lost", test_samples_lost);
    CU_add_test(s, "other_host", test_other_host);
    CU_add_test(s, "per_step", test_per_step);
    CU_add_test(s, "hwmon_failed_command", test_hwmon_failed_command);
    CU_add_test(s, "hwmon_running_then_killed", test_hwmon_running_then_killed);
}
