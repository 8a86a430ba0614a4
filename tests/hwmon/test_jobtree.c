/* A stop signal sent to hwmon reaches the job's whole process tree: workers, orphans whose parent
 * already exited, and after the grace period SIGKILL for whatever ignored it (hwmon/jobtree.c).
 * What `timeout`, SLURM and Kubernetes do to a wrapped training job. */
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hwtest.h"

void add_jobtree_suite(void);

/* Up to cap pids from dir/pids (written by the job), once dir/ready exists. */
static size_t job_pids(const char *dir, pid_t *pids, size_t cap)
{
    char *ready = th_fmt("%s/ready", dir), *path = th_fmt("%s/pids", dir);
    for (int k = 0; k < 800 && access(ready, F_OK) != 0; k++)
        th_sleep(0.025);
    char *text = th_read_file(path, NULL);
    size_t n = 0;
    for (char *p = text, *end; p && *p && n < cap; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        pids[n++] = (pid_t)v;
    }
    free(text);
    free(path);
    free(ready);
    return n;
}

static bool all_gone(const pid_t *pids, size_t n)
{
    bool gone = true;
    for (size_t i = 0; i < n; i++)
        if (th_pid_alive(pids[i])) {
            fprintf(stderr, "job process %d still alive\n", (int)pids[i]);
            kill(pids[i], SIGKILL);
            gone = false;
        }
    return gone;
}

/* Run the job under hwmon (--kill-grace 0.3: a worker that ignores SIGTERM is killed then),
 * SIGTERM hwmon, and return hwmon's status; the job's pids in pids. */
static int term_job(const char *dir, const char *script, pid_t *pids, size_t cap, size_t *n)
{
    char **argv = ht_argv(dir, "-i", "0.1", "--no-gpu", "--kill-grace", "0.3", "--", "/bin/sh",
                          "-c", script, NULL);
    pid_t hw = th_spawn(argv, NULL, NULL, NULL);
    free(argv);
    CU_ASSERT_FATAL(hw > 0);
    *n = job_pids(dir, pids, cap);
    /* the sampler has seen the tree: a second row after the job was ready (the first may have
     * been sampled before) */
    CU_ASSERT(ht_wait_lines(dir, HW_PROC_FILE, ht_lines(dir, HW_PROC_FILE) + 2, 30));
    kill(hw, SIGTERM);
    int st = th_wait(hw, 30);
    if (st < 0)
        kill(hw, SIGKILL), th_wait(hw, 5);
    return st;
}

/* A worker, an orphan whose parent exited, and a worker that ignores SIGTERM. */
static void test_workers_orphans_and_stubborn(void)
{
    char *dir = th_tmpdir("hwmon-jobtree");
    const char *script =
        "d=\"$HWMON_DIR\"; sleep 300 & echo $! > \"$d/pids\"; "
        "(sleep 301 & echo $! >> \"$d/pids\") ; "                  /* orphaned at once */
        "(trap '' TERM; exec sleep 302) & echo $! >> \"$d/pids\"; " /* ignores SIGTERM */
        "touch \"$d/ready\"; wait";
    pid_t pids[8];
    size_t n;
    int st = term_job(dir, script, pids, 8, &n);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(st, 128 + SIGTERM); /* the job's own status: sh died of the signal */
    CU_ASSERT_TRUE(all_gone(pids, n));
    json_object *stop = ht_event(dir, "stop", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    CU_ASSERT_EQUAL(ht_data_int(stop, "signal_forwarded"), SIGTERM);
    CU_ASSERT(ht_data_int(stop, "processes_signalled") >= 4);
    json_object *killed = ht_data(stop, "killed_after_grace");
    CU_ASSERT_FATAL(killed && json_object_is_type(killed, json_type_array));
    CU_ASSERT_EQUAL(json_object_array_length(killed), 1); /* only the one that ignored it */
    if (n == 3 && json_object_array_length(killed) == 1)
        CU_ASSERT_EQUAL(json_object_get_int(json_object_array_get_idx(killed, 0)), pids[2]);
    json_object_put(stop);
    th_rmtree(dir);
    free(dir);
}

/* multiprocessing-style: forked Python workers die with the job, none is left to PID 1. */
static void test_python_multiprocessing(void)
{
    if (access("/usr/bin/python3", X_OK) != 0) {
        th_skip("no /usr/bin/python3");
        return;
    }
    char *dir = th_tmpdir("hwmon-jobtree");
    const char *script =
        "exec /usr/bin/python3 -c '\n"
        "import multiprocessing as mp, os, time\n"
        "ctx = mp.get_context(\"fork\")\n"
        "ps = [ctx.Process(target=time.sleep, args=(300,)) for _ in range(3)]\n"
        "[p.start() for p in ps]\n"
        "d = os.environ[\"HWMON_DIR\"]\n"
        "open(d + \"/pids\", \"w\").write(\" \".join(str(p.pid) for p in ps))\n"
        "open(d + \"/ready\", \"w\").close()\n"
        "time.sleep(300)\n'";
    pid_t pids[8];
    size_t n;
    int st = term_job(dir, script, pids, 8, &n);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(st, 128 + SIGTERM);
    CU_ASSERT_TRUE(all_gone(pids, n));
    json_object *stop = ht_event(dir, "stop", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    json_object *killed = ht_data(stop, "killed_after_grace");
    CU_ASSERT(killed && json_object_array_length(killed) == 0); /* all stopped on SIGTERM */
    json_object_put(stop);
    th_rmtree(dir);
    free(dir);
}

static bool exists_in(void *arg)
{
    return access(arg, F_OK) == 0;
}

/* torchrun's way (torch.distributed.elastic's SubprocessHandler): the workers in sessions of
 * their own, and on SIGTERM the launcher signals each worker's group itself. hwmon passes a
 * stop to the main process's group, so every worker's SIGTERM comes from the launcher, once,
 * never from hwmon first (issue 51: 5 of 6 workers got it from hwmon and again from torchrun).
 * A worker dequeues its signals with sigtimedwait and writes each one's sender: a TERM of
 * hwmon's would be the first, whatever the timing. */
static void test_launcher_forwards_once(void)
{
    if (access("/usr/bin/python3", X_OK) != 0) {
        th_skip("no /usr/bin/python3");
        return;
    }
    char *dir = th_tmpdir("hwmon-launcher");
    static const char worker[] =
        "import os, signal, sys, time\n"
        "d = sys.argv[1]\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})\n"
        "open(d + '/workers', 'a').write('%d\\n' % os.getpid())\n"
        "end = None\n"
        "while end is None or time.monotonic() < end:\n"
        "    i = signal.sigtimedwait({signal.SIGTERM}, 0.05)\n"
        "    if i:\n"
        "        open(d + '/term', 'a').write('%d %d\\n' % (os.getpid(), i.si_pid))\n"
        "        end = end or time.monotonic() + 0.3  # a second one would come by then\n";
    static const char launcher[] =
        "import os, signal, subprocess, sys, time\n"
        "d = sys.argv[1]\n"
        "got = []\n"
        "signal.signal(signal.SIGTERM, lambda s, f: got.append(s))\n"
        "ws = [subprocess.Popen([sys.executable, d + '/worker.py', d], start_new_session=True)\n"
        "      for _ in range(2)]\n"
        "while not os.path.exists(d + '/workers') or len(open(d + '/workers').read().split()) < 2:\n"
        "    time.sleep(0.02)\n"
        "open(d + '/ready', 'w').close()\n"
        "while not got:\n"
        "    time.sleep(0.02)\n"
        "for w in ws:\n"
        "    os.killpg(w.pid, signal.SIGTERM)\n"
        "for w in ws:\n"
        "    w.wait()\n";
    char *wp = th_fmt("%s/worker.py", dir), *lp = th_fmt("%s/launcher.py", dir);
    th_write_file(wp, worker, sizeof worker - 1);
    th_write_file(lp, launcher, sizeof launcher - 1);
    char **argv = ht_argv(dir, "-i", "0.2", "--no-gpu", "--kill-grace", "20", "--",
                          "/usr/bin/python3", lp, dir, NULL);
    pid_t hw = th_spawn(argv, NULL, NULL, NULL);
    free(argv);
    CU_ASSERT_FATAL(hw > 0);
    char *ready = th_fmt("%s/ready", dir);
    CU_ASSERT_FATAL(ht_wait_until(exists_in, ready, 30));
    kill(hw, SIGTERM);
    int st = th_wait(hw, 30);
    CU_ASSERT_EQUAL(st, 0);
    if (st < 0)
        kill(hw, SIGKILL), th_wait(hw, 5);
    json_object *req = ht_event(dir, "stop_request", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    CU_ASSERT_EQUAL(ht_data_int(req, "processes_signalled"), 1); /* the launcher's group */
    json_object_put(req);
    char *wf = th_fmt("%s/workers", dir), *tf = th_fmt("%s/term", dir);
    char *wt = th_read_file(wf, NULL), *tt = th_read_file(tf, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(wt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tt);
    long wpid[2] = {0, 0};
    sscanf(wt, "%ld %ld", &wpid[0], &wpid[1]);
    int lines = 0;
    for (char *p = tt; *p;) {
        long who, from;
        int used;
        if (sscanf(p, "%ld %ld%n", &who, &from, &used) != 2)
            break;
        lines++;
        CU_ASSERT(who == wpid[0] || who == wpid[1]);
        CU_ASSERT_NOT_EQUAL(from, (long)hw); /* the launcher's, never hwmon's */
        p += used;
        while (*p == '\n')
            p++;
    }
    CU_ASSERT_EQUAL(lines, 2); /* each worker once */
    free(wt);
    free(tt);
    free(wf);
    free(tf);
    free(ready);
    free(wp);
    free(lp);
    th_rmtree(dir);
    free(dir);
}

/* Without a stop signal nothing changes: the command's exit ends the run, no kill round. */
static void test_plain_exit_untouched(void)
{
    char *dir = th_tmpdir("hwmon-jobtree");
    char **argv = ht_argv(dir, "-i", "0.2", "--no-gpu", "--", "/bin/sh", "-c", "exit 4", NULL);
    struct th_result r;
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 30, &r), 4);
    th_result_free(&r);
    free(argv);
    json_object *stop = ht_event(dir, "stop", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    CU_ASSERT_PTR_NULL(ht_data(stop, "signal_forwarded"));
    json_object_put(stop);
    th_rmtree(dir);
    free(dir);
}

/* hwmon's own failure is 125 (never a job's status by accident), and a start that failed leaves
 * nothing that would make a retry into the same -o DIR refuse it. */
static void test_failed_start_leaves_nothing(void)
{
    char *base = th_tmpdir("hwmon-failstart"), *dir = th_fmt("%s/run", base);
    char **argv = ht_argv(dir, "--no-gpu", "-p", "4000000", NULL); /* no such process */
    struct th_result r;
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 30, &r), 125);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no process 4000000"));
    th_result_free(&r);
    free(argv);
    CU_ASSERT_EQUAL(access(dir, F_OK), -1); /* the directory it made is gone again */
    argv = ht_argv(dir, "--no-gpu", "-i", "0.1", "--", "true", NULL); /* the retry works */
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 30, NULL), 0);
    free(argv);
    th_rmtree(dir);

    /* a directory with the user's own run.jsonl: kept as it was, nothing added */
    mkdir(dir, 0755);
    char *log = th_fmt("%s/run.jsonl", dir);
    const char *config = "{\"ts\": \"2026-01-01T00:00:00.000+00:00\", \"type\": \"event\", "
                         "\"event\": \"config\"}\n";
    th_write_file(log, config, strlen(config));
    argv = ht_argv(dir, "--no-gpu", "-p", "4000000", NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 30, NULL), 125);
    free(argv);
    char *text = th_read_file(log, NULL);
    CU_ASSERT(text && !strcmp(text, config));
    free(text);
    char *cpu = th_fmt("%s/cpu_metrics.csv", dir);
    CU_ASSERT_EQUAL(access(cpu, F_OK), -1);
    free(cpu);
    free(log);
    th_rmtree(base);
    free(dir);
    free(base);
}

void add_jobtree_suite(void)
{
    CU_add_test(th_add_suite("own_failures", NULL, NULL, 60), "failed_start_leaves_nothing",
                test_failed_start_leaves_nothing);
    CU_pSuite s = th_add_suite("jobtree", NULL, NULL, 120);
    CU_add_test(s, "workers_orphans_and_stubborn", test_workers_orphans_and_stubborn);
    CU_add_test(s, "python_multiprocessing", test_python_multiprocessing);
    CU_add_test(s, "plain_exit_untouched", test_plain_exit_untouched);
    CU_add_test(s, "launcher_forwards_once", test_launcher_forwards_once);
}
