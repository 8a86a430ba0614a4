/* Nothing is left behind, and every run that started ends.
 *
 *   daemon_stopped: a job that double-forks a setsid daemon (which ignores SIGTERM) and exits:
 *                   hwmon, the job's subreaper, stops the daemon (SIGTERM, grace, SIGKILL)
 *                   before it exits, exits with the command's status, and the stop event says
 *                   how many processes outlived the command and which needed SIGKILL;
 *   daemon_left:    with --leave-running the daemon keeps running and the stop event names it;
 *   sampler_failed: a sampler thread that cannot start (RLIMIT_NPROC reached, as under a small
 *                   ulimit -v) still ends the run with a stop event that says why; the job is not
 *                   stopped for it (wrap mode), and a system-mode run stops with status 125. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostile.h"
#include "hwrun/rundir.h"
#include "testutil.h"

/* The last line of run.jsonl as JSON (the stop event), or NULL. */
static struct json_object *last_event(const char *run, const char *type)
{
    char *path = th_fmt("%s/%s", run, HW_RUNLOG_FILE);
    char *text = th_read_file(path, NULL);
    free(path);
    if (!text)
        return NULL;
    struct json_object *found = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        struct json_object *o = json_tokener_parse(line), *ev;
        if (o && json_object_object_get_ex(o, "event", &ev) &&
            strcmp(json_object_get_string(ev), type) == 0) {
            json_object_put(found);
            found = o;
        } else {
            json_object_put(o);
        }
    }
    free(text);
    return found;
}

static struct json_object *data_of(struct json_object *ev, const char *key)
{
    struct json_object *d, *v;
    if (!ev || !json_object_object_get_ex(ev, "data", &d) || !json_object_object_get_ex(d, key, &v))
        return NULL;
    return v;
}

/* Does the JSON array of pids hold pid? */
static bool names_pid(struct json_object *pids, pid_t pid)
{
    for (size_t i = 0; pids && i < json_object_array_length(pids); i++)
        if (json_object_get_int(json_object_array_get_idx(pids, i)) == pid)
            return true;
    return false;
}

/* summarize's text report of run contains want (the outcome line says it in words). */
static void summary_says(const char *run, const char *want)
{
    char *argv[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "--format", "text",
                    (char *)run, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 60, &r) == 0);
    if (!strstr(r.out, want))
        fprintf(stderr, "summarize does not say \"%s\":\n%s", want, r.out);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    th_result_free(&r);
}

static pid_t read_pid(const char *path)
{
    char *s = th_read_file(path, NULL);
    pid_t p = s ? (pid_t)atoi(s) : 0;
    free(s);
    return p;
}

/* The job: start a daemon the classic way (fork, setsid, the parent exits at once, output away
 * from the job's), which ignores SIGTERM and writes its pid, then exit 3 while it runs. */
static char *daemon_job(const char *pidfile)
{
    return th_fmt("( setsid sh -c 'trap \"\" TERM; echo $$ > \"%s.tmp\"; mv \"%s.tmp\" \"%s\"; "
                  "while :; do sleep 0.1; done' </dev/null >/dev/null 2>&1 & ); "
                  "i=0; while [ ! -s '%s' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; "
                  "exit 3",
                  pidfile, pidfile, pidfile, pidfile);
}

static void test_daemon_stopped(void)
{
    const char *hwmon = th_env("HWRUN_HWMON_BIN");
    char *root = th_tmpdir("daemon");
    char *run = th_fmt("%s/run", root), *pidfile = th_fmt("%s/daemon.pid", root);
    char *job = daemon_job(pidfile);
    char *argv[] = {(char *)hwmon, "-q", "--no-gpu", "-i", "0.1", "--kill-grace", "0.5",
                    "-o", run, "--", "sh", "-c", job, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 3); /* the command's status, as always */
    pid_t d = read_pid(pidfile);
    CU_ASSERT_FATAL(d > 0);
    bool alive = th_pid_alive(d);
    if (alive)
        kill(d, SIGKILL);
    CU_ASSERT(!alive); /* hwmon did not leave it behind */
    struct json_object *stop = last_event(run, HW_EV_STOP);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    struct json_object *left = data_of(stop, HW_STOP_PROCESSES_LEFT);
    CU_ASSERT(left && json_object_get_int(left) >= 1);
    CU_ASSERT_EQUAL(json_object_get_int(data_of(stop, "signal_forwarded")), SIGTERM);
    /* it ignored SIGTERM: SIGKILL after the grace, and its pid is on record */
    CU_ASSERT(names_pid(data_of(stop, "killed_after_grace"), d));
    summary_says(run, "outlived the command and were stopped");
    CU_ASSERT_PTR_NULL(data_of(stop, HW_STOP_LEFT_RUNNING));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(data_of(stop, HW_STOP_REASON)),
                           "command_exit");
    json_object_put(stop);
    th_result_free(&r);
    th_rmtree(root);
    free(root);
    free(run);
    free(pidfile);
    free(job);
}

static void test_daemon_left(void)
{
    const char *hwmon = th_env("HWRUN_HWMON_BIN");
    char *root = th_tmpdir("daemon-left");
    char *run = th_fmt("%s/run", root), *pidfile = th_fmt("%s/daemon.pid", root);
    char *job = daemon_job(pidfile);
    char *argv[] = {(char *)hwmon, "--no-gpu", "-i", "0.1", "--leave-running", "-o", run, "--",
                    "sh", "-c", job, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "left running (--leave-running)"));
    pid_t d = read_pid(pidfile);
    CU_ASSERT_FATAL(d > 0);
    CU_ASSERT(th_pid_alive(d)); /* as asked */
    struct json_object *stop = last_event(run, HW_EV_STOP);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    CU_ASSERT(names_pid(data_of(stop, HW_STOP_LEFT_RUNNING), d));
    summary_says(run, "outlived the command and were left running");
    CU_ASSERT_PTR_NULL(data_of(stop, "signal_forwarded"));
    json_object_put(stop);
    kill(d, SIGKILL);
    th_result_free(&r);
    th_rmtree(root);
    free(root);
    free(run);
    free(pidfile);
    free(job);
}

/* RLIMIT_NPROC counts threads: as a user of its own with a limit of 2 processes, hwmon and its
 * command fit and the sampler thread does not. Root ignores the limit, hence the other user. */
static void test_sampler_failed(void)
{
    if (geteuid() != 0) {
        th_skip("needs root to run hwmon as another user under RLIMIT_NPROC");
        return;
    }
    const char *hwmon = th_env("HWRUN_HWMON_BIN");
    char *root = th_tmpdir("sampler");
    CU_ASSERT_FATAL(chmod(root, 0777) == 0);
    char *run = th_fmt("%s/run", root), *sys = th_fmt("%s/sys", root);
    char *env[] = {"ASAN_OPTIONS=detect_leaks=0", NULL}; /* LSan needs a thread at exit */
    char *wrap[] = {"/usr/bin/prlimit", "--nproc=2:2", "/usr/bin/setpriv", "--reuid=54321",
                    "--regid=54321", "--clear-groups", (char *)hwmon, "-q", "--no-gpu", "-i",
                    "0.1", "-o", run, "--", "sleep", "0.5", NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(wrap, env, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0); /* the job ran to its end, untouched */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "start the sampler"));
    struct json_object *stop = last_event(run, HW_EV_STOP);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    CU_ASSERT_PTR_NOT_NULL(data_of(stop, HW_STOP_SAMPLER_ERROR));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(data_of(stop, HW_STOP_REASON)),
                           "command_exit");
    summary_says(run, "no CPU or process samples: the sampler did not start");
    json_object_put(stop);
    th_result_free(&r);

    /* system mode: nothing else to watch, so the run stops at once, with the reason */
    char *sysm[] = {"/usr/bin/prlimit", "--nproc=1:1", "/usr/bin/setpriv", "--reuid=54321",
                    "--regid=54321", "--clear-groups", (char *)hwmon, "-q", "--no-gpu", "-i",
                    "0.1", "-d", "30", "-o", sys, NULL};
    CU_ASSERT_FATAL(th_run(sysm, env, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 125); /* hwmon itself failed (hwmon(1)) */
    stop = last_event(sys, HW_EV_STOP);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(data_of(stop, HW_STOP_REASON)),
                           "sampler_failed");
    CU_ASSERT_PTR_NOT_NULL(data_of(stop, HW_STOP_SAMPLER_ERROR));
    json_object_put(stop);
    th_result_free(&r);
    th_rmtree(root);
    free(root);
    free(run);
    free(sys);
}

void hostile_register_lifecycle(void)
{
    CU_pSuite s = th_add_suite("lifecycle", NULL, NULL, 300);
    CU_add_test(s, "daemon_stopped", test_daemon_stopped);
    CU_add_test(s, "daemon_left", test_daemon_left);
    CU_add_test(s, "sampler_failed", test_sampler_failed);
}
