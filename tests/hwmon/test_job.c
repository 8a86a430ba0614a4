/* A job on two nodes, simulated on this machine: each "node" is hwmon in a UTS namespace of its
 * own (its own host name) with its own node-lock directory (its own /dev/shm) and two fake GPUs;
 * node gpu-b is slower in `train`; a second rank on gpu-a finds gpu-a's sampler and records no
 * GPU. summarize's job summary (JSON, text, CSV, HTML; JOBDIR and --job) is checked against the
 * nodes' own summaries. A second job has a node SIGKILLed mid-phase: incomplete, named, summed. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hwtest.h"

/* How this machine gives a process a host name of its own: "unshare -u" as root, else in a user
 * namespace ("unshare -r -u"); NULL when neither works (the test skips). */
static const char *uts_flag(void)
{
    static const char *const ways[] = {"-u", "-ru"};
    for (size_t i = 0; i < 2; i++) {
        char *argv[] = {"/usr/bin/unshare", (char *)ways[i], "--", "/bin/sh", "-c",
                        "hostname hwrun-probe", NULL};
        struct th_result r;
        if (th_run(argv, NULL, NULL, 10, &r) == 0 && r.status == 0) {
            th_result_free(&r);
            return ways[i];
        }
        th_result_free(&r);
    }
    return NULL;
}

/* hwmon as host `host`, rank `rank` of job `job`, with the node's lock directory, running sh -c
 * script (RUNLOG_FILE is the run's log). */
static pid_t start_node(const char *flag, const char *host, const char *job, int node, int rank,
                        const char *lockdir, const char *dir, const char *script)
{
    char *jobv = th_fmt("SLURM_JOB_ID=%s", job), *nodev = th_fmt("SLURM_NODEID=%d", node);
    char *rankv = th_fmt("SLURM_PROCID=%d", rank), *path = th_fmt("PATH=%s", getenv("PATH"));
    char *env[] = {jobv, nodev, rankv, "SLURM_NODELIST=gpu-[a-b]", path, NULL};
    char *argv[] = {"/usr/bin/unshare", (char *)flag, "--", "/bin/sh", "-c",
                    "hostname \"$0\" && exec \"$@\"", (char *)host,
                    (char *)th_env("HWRUN_HWMON_BIN"), "-q", "--nvidia-smi",
                    (char *)th_env("HWRUN_FAKE_SMI"), "--lock-dir", (char *)lockdir, "-i", "0.1",
                    "-o", (char *)dir, "--", "/bin/sh", "-c", (char *)script, NULL};
    pid_t pid = th_spawn(argv, env, NULL, NULL);
    free(jobv);
    free(nodev);
    free(rankv);
    free(path);
    return pid;
}

/* summarize -f json ARGS (exit status want); its document, or NULL. */
static json_object *summarize_json_st(char **args, int want)
{
    char *argv[16] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "json"};
    int n = 4;
    for (; args[n - 4] && n < 15; n++)
        argv[n] = args[n - 4];
    argv[n] = NULL;
    struct th_result r;
    if (th_run(argv, NULL, NULL, 60, &r) != 0)
        return NULL;
    json_object *o = r.status == want ? json_tokener_parse(r.out) : NULL;
    if (!o)
        fprintf(stderr, "summarize exit %d: %s\n", r.status, r.err);
    th_result_free(&r);
    return o;
}

static json_object *summarize_json(char **args)
{
    return summarize_json_st(args, 0);
}




static bool has_start(void *dir)
{
    json_object *e = ht_event(dir, "start", 0);
    json_object_put(e);
    return e != NULL;
}

/* The nodes' own summaries: their energies summed, their peaks. */
static double node_energy_sum(char *const *dirs, int n, double *peak_max, double *peak_sum)
{
    double e = 0;
    *peak_max = *peak_sum = 0;
    for (int i = 0; i < n; i++) {
        char *a[] = {dirs[i], NULL};
        json_object *s = summarize_json(a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        if (isfinite(ht_num(s, "energy_wh")))
            e += ht_num(s, "energy_wh");
        json_object *tg = ht_get(s, "gpus_together");
        double p = tg ? ht_num(tg, "mem_used_peak_mib") : NAN;
        if (isfinite(p)) {
            *peak_sum += p;
            *peak_max = fmax(*peak_max, p);
        }
        json_object_put(s);
    }
    return e;
}

/* A job's directories: base/job (the node directories go there) and a lock directory per
 * node (each node's own /dev/shm). */
struct jobdirs {
    const char *flag; /* unshare's, uts_flag() */
    char *base, *job, *lock_a, *lock_b;
};

/* false (the test skipped) when this machine cannot give hwmon a host name of its own */
static bool jobdirs_make(struct jobdirs *d, const char *tag)
{
    d->flag = uts_flag();
    if (!d->flag) {
        th_skip("no UTS namespace here (unshare -u, unshare -ru): one host name for all");
        return false;
    }
    d->base = th_tmpdir(tag);
    d->job = th_fmt("%s/job", d->base);
    d->lock_a = th_fmt("%s/lock-a", d->base);
    d->lock_b = th_fmt("%s/lock-b", d->base);
    CU_ASSERT_FATAL(mkdir(d->job, 0700) == 0 && mkdir(d->lock_a, 0700) == 0 &&
                    mkdir(d->lock_b, 0700) == 0);
    return true;
}

static void jobdirs_free(struct jobdirs *d)
{
    th_rmtree(d->base);
    free(d->base);
    free(d->job);
    free(d->lock_a);
    free(d->lock_b);
}

static void test_two_nodes(void)
{
    struct jobdirs d;
    if (!jobdirs_make(&d, "hwmon-job"))
        return;
    const char *flag = d.flag;
    char *base = d.base, *job = d.job, *lock_a = d.lock_a, *lock_b = d.lock_b;
    char *jobid = th_fmt("job%d", (int)getpid());
    char *dirs[3] = {th_fmt("%s/gpu-a-r0", job), th_fmt("%s/gpu-b-r1", job),
                     th_fmt("%s/gpu-a-r2", job)};
    char *rl = th_fmt("%s -f \"$RUNLOG_FILE\" time", th_env("HWRUN_RUNLOG_BIN"));
    /* the straggler's train 0.8 s over the others' (0.5 s checked: a loaded machine's sleeps
     * overrun, the fast ones' too). Not shorter: the job's series are summed at the same time
     * since each node's start (jobseries.h), and gpu-b's run must outlast gpu-a's in that time
     * for the summed peak to be below the peaks' sum; gpu-b's hwmon starts after gpu-a's start
     * event, late by as much as a loaded TSan start-up (0.85 s of train and eval failed so) */
    char *fast = th_fmt("%s train -- sleep 0.2 && %s eval -- sleep 0.1", rl, rl);
    char *slow = th_fmt("%s train -- sleep 1.0 && %s eval -- sleep 0.1", rl, rl);
    char *third = th_fmt("%s train -- sleep 0.2", rl);
    /* gpu-a's sampler outlives the third rank (it waits for that run's stop event): a rank that
     * outlived it would take its GPUs over (nodelock.h), which test_context.takeover checks */
    char *fast_a = th_fmt("%s && while ! grep -q '\"event\": \"stop\"' '%s/run.jsonl'; do "
                          "sleep 0.05; done",
                          fast, dirs[2]);
    pid_t pa = start_node(flag, "gpu-a", jobid, 0, 0, lock_a, dirs[0], fast_a);
    CU_ASSERT_FATAL(pa > 0);
    CU_ASSERT_FATAL(ht_wait_until(has_start, dirs[0], 30)); /* gpu-a's sampler holds its lock */
    /* gpu-b's phases begin once gpu-a's sampler has stopped, so that gpu-b's memory peaks
     * when gpu-a's is gone, however late a loaded TSan hwmon starts the third rank */
    char *slow_b = th_fmt("while ! grep -q '\"event\": \"stop\"' '%s/run.jsonl'; do sleep 0.05; "
                          "done; %s",
                          dirs[0], slow);
    pid_t pb = start_node(flag, "gpu-b", jobid, 1, 1, lock_b, dirs[1], slow_b);
    pid_t pc = start_node(flag, "gpu-a", jobid, 0, 2, lock_a, dirs[2], third);
    CU_ASSERT_FATAL(pb > 0 && pc > 0);
    CU_ASSERT_EQUAL(th_wait(pa, 60), 0);
    CU_ASSERT_EQUAL(th_wait(pb, 60), 0);
    CU_ASSERT_EQUAL(th_wait(pc, 60), 0);

    double peak_max, peak_sum;
    double e_nodes = node_energy_sum(dirs, 3, &peak_max, &peak_sum);
    char *a1[] = {job, NULL};
    json_object *s = summarize_json(a1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(ht_str(s, "status"), "ok");
    CU_ASSERT_EQUAL(ht_num(s, "ranks"), 3); /* SLURM's words: run directories are ranks */
    CU_ASSERT_EQUAL(ht_num(s, "nodes"), 2);
    CU_ASSERT_EQUAL(ht_num(s, "hosts"), 2);
    CU_ASSERT_EQUAL(ht_num(s, "gpus"), 4); /* the third rank's node is gpu-a: its GPUs once */
    CU_ASSERT_EQUAL(ht_num(s, "gpus_counted_twice"), 0);
    CU_ASSERT_EQUAL(ht_num(s, "incomplete_nodes"), 0);
    /* energy: the sum of the nodes' own summaries */
    CU_ASSERT(e_nodes > 0);
    CU_ASSERT(fabs(ht_num(s, "energy_wh") - e_nodes) <= 1e-9 * e_nodes);
    /* the peak of the summed series: gpu-a's memory was gone when gpu-b's peaked */
    double pk = ht_num(s, "gpus_mem_used_peak_mib");
    CU_ASSERT(pk >= peak_max);
    CU_ASSERT(pk < peak_sum);
    CU_ASSERT_EQUAL(ht_num(s, "gpus_mem_used_node_peaks_sum_mib"), peak_sum);
    /* the slow node and phase */
    CU_ASSERT_STRING_EQUAL(ht_str(s, "straggler_phase"), "train");
    CU_ASSERT_STRING_EQUAL(ht_str(s, "straggler_node"), "gpu-b");
    CU_ASSERT(ht_num(s, "straggler_over_median_sec") > 0.5);
    json_object *ctx = ht_get(s, "context");
    CU_ASSERT_STRING_EQUAL(ht_str(ctx, "slurm_job_id"), jobid);
    CU_ASSERT_STRING_EQUAL(ht_str(ctx, "slurm_nodelist"), "gpu-[a-b]");
    CU_ASSERT_PTR_NULL(ht_get(ctx, "host") ? json_object_get_string(ht_get(ctx, "host")) : NULL);
    json_object *nodes = ht_get(s, "per_node");
    CU_ASSERT_FATAL(nodes && json_object_array_length(nodes) == 3);
    const char *want_label[3] = {"gpu-a-r0", "gpu-a-r2", "gpu-b"}; /* sorted by directory */
    const char *want_role[3] = {HW_SAMPLER_PRIMARY, HW_SAMPLER_SECONDARY, HW_SAMPLER_PRIMARY};
    int want_gpus[3] = {2, 0, 2};
    for (int i = 0; i < 3; i++) {
        json_object *n = json_object_array_get_idx(nodes, (size_t)i);
        CU_ASSERT_STRING_EQUAL(ht_str(n, "node"), want_label[i]);
        CU_ASSERT_STRING_EQUAL(ht_str(n, "gpu_sampler_role"), want_role[i]);
        CU_ASSERT_EQUAL(ht_num(n, "gpus"), want_gpus[i]);
    }

    /* --job over the node directories: the same job */
    char *a2[] = {"--job", dirs[0], dirs[1], dirs[2], NULL};
    json_object *s2 = summarize_json(a2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
    CU_ASSERT_EQUAL(ht_num(s2, "energy_wh"), ht_num(s, "energy_wh"));
    CU_ASSERT_EQUAL(ht_num(s2, "gpus_mem_used_peak_mib"), pk);
    json_object_put(s2);

    /* text, one CSV row, the HTML page: the same figures */
    char *html = th_fmt("%s/job.html", base);
    char *tx[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "text", "--html", html, job,
                  NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(tx, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "straggler: rank 1 on gpu-b in `train`"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ": 3 ranks on 2 nodes, 4 GPUs, status ok"));
    th_result_free(&r);
    char *page = th_read_file(html, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    CU_ASSERT_PTR_NOT_NULL(strstr(page, "Straggler: <b>gpu-b</b> in <b>train</b>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(page, "<th>gpu-a-r2</th>"));
    free(page);
    char *cv[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "csv", job, NULL};
    CU_ASSERT_FATAL(th_run(cv, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(th_count_lines(r.out), 2); /* header, one row per job */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",straggler_node,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",job.slurm_job_id,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",gpu-b,"));
    th_result_free(&r);
    json_object_put(s);

    free(html);
    for (int i = 0; i < 3; i++)
        free(dirs[i]);
    free(rl);
    free(fast);
    free(fast_a);
    free(slow);
    free(slow_b);
    free(third);
    free(jobid);
    jobdirs_free(&d);
}

static bool has_train_begin(void *dir)
{
    char *p = th_fmt("%s/%s", (char *)dir, HW_RUNLOG_FILE);
    char *s = th_read_file(p, NULL);
    bool ok = s && strstr(s, "phase_begin") && ht_lines(dir, HW_GPU_FILE) >= 8;
    free(s);
    free(p);
    return ok;
}

/* A node dies (SIGKILL to its hwmon and job) in the middle of `train`: the job is incomplete,
 * names it, and still sums what it measured. */
static void test_node_died(void)
{
    struct jobdirs d;
    if (!jobdirs_make(&d, "hwmon-jobdied"))
        return;
    const char *flag = d.flag;
    char *job = d.job, *lock_a = d.lock_a, *lock_b = d.lock_b;
    char *jobid = th_fmt("died%d", (int)getpid());
    char *dirs[2] = {th_fmt("%s/a", job), th_fmt("%s/b", job)};
    char *rl = th_fmt("%s -f \"$RUNLOG_FILE\" time", th_env("HWRUN_RUNLOG_BIN"));
    /* node-a's train lasts until its two GPUs were sampled twice (an event: under TSan on a
     * loaded machine nvidia-smi's children started after a fixed 0.5 s job had ended) */
    char *ok = th_fmt("%s train -- sh -c 'i=0; while [ \"$(cat \"$HWMON_DIR/" HW_GPU_FILE
                      "\" 2>/dev/null | wc -l)\" -lt 4 ] && [ $i -lt 600 ]; do sleep 0.05; "
                      "i=$((i+1)); done'",
                      rl);
    char *sleeper = th_fmt("sleep 30.%d", (int)getpid()); /* a name to find it by */
    char *dies = th_fmt("%s train -- %s", rl, sleeper);
    pid_t pa = start_node(flag, "node-a", jobid, 0, 0, lock_a, dirs[0], ok);
    pid_t pb = start_node(flag, "node-b", jobid, 1, 1, lock_b, dirs[1], dies);
    CU_ASSERT_FATAL(pa > 0 && pb > 0);
    CU_ASSERT_EQUAL(th_wait(pa, 60), 0);
    CU_ASSERT_FATAL(ht_wait_until(has_train_begin, dirs[1], 30));
    kill(pb, SIGKILL); /* unshare exec'd sh which exec'd hwmon: pb is hwmon */
    th_wait(pb, 30);
    /* its children die with it (PR_SET_PDEATHSIG); the job's grandchild is stopped here */
    char *pk[] = {"/usr/bin/pkill", "-KILL", "-f", sleeper, NULL};
    struct th_result r;
    th_run(pk, NULL, NULL, 10, &r);
    th_result_free(&r);

    double peak_max, peak_sum;
    double e_nodes = node_energy_sum(dirs, 2, &peak_max, &peak_sum);
    char *a1[] = {job, NULL};
    json_object *s = summarize_json(a1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    /* summarized from this host, not node-b: its hwmon's pid cannot be checked, and its files
     * were written a moment ago, as a live run's are: a running node, not an incomplete one
     * (issue 51: a running job listed its live nodes as incomplete) */
    CU_ASSERT_STRING_EQUAL(ht_str(s, "status"), "running");
    CU_ASSERT_EQUAL(ht_num(s, "running_nodes"), 1);
    CU_ASSERT_EQUAL(ht_num(s, "incomplete_nodes"), 0);
    CU_ASSERT_PTR_NULL(ht_get(s, "incomplete_node_list"));
    json_object_put(s);
    /* an hour later, nothing written since: unknown, never a confident "incomplete" */
    struct timespec now, t[2];
    clock_gettime(CLOCK_REALTIME, &now);
    t[0] = t[1] = (struct timespec){now.tv_sec - 3600, 0};
    int dfd = open(dirs[1], O_RDONLY | O_DIRECTORY);
    CU_ASSERT_FATAL(dfd >= 0);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        utimensat(dfd, hw_file_names[k], t, 0);
    close(dfd);
    s = summarize_json(a1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(ht_str(s, "status"), "unknown");
    CU_ASSERT_EQUAL(ht_num(s, "incomplete_nodes"), 1);
    CU_ASSERT_EQUAL(ht_num(s, "running_nodes"), 0);
    json_object_put(s);
    /* a third node whose hwmon died before it wrote anything: named too, and exit status 1
     * (nothing could be read there); a directory of something else is not a node */
    char *empty = th_fmt("%s/c", job), *other = th_fmt("%s/notes", job);
    char *note = th_fmt("%s/readme.txt", other);
    CU_ASSERT_FATAL(mkdir(empty, 0700) == 0 && mkdir(other, 0700) == 0);
    CU_ASSERT_FATAL(th_write_file(note, "x\n", 2) == 0);
    s = summarize_json_st(a1, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(ht_num(s, "ranks"), 3);
    CU_ASSERT_EQUAL(ht_num(s, "incomplete_nodes"), 2);
    CU_ASSERT_STRING_EQUAL(ht_str(s, "incomplete_node_list"), "node-b, c");
    CU_ASSERT(e_nodes > 0);
    CU_ASSERT(fabs(ht_num(s, "energy_wh") - e_nodes) <= 1e-9 * e_nodes);
    CU_ASSERT_EQUAL(ht_num(s, "gpus"), 4);
    json_object_put(s);
    for (int i = 0; i < 2; i++)
        free(dirs[i]);
    free(rl);
    free(ok);
    free(dies);
    free(sleeper);
    free(empty);
    free(other);
    free(note);
    free(jobid);
    jobdirs_free(&d);
}

/* A requeued job (issue 51): the README's -o runs/{jobid}.{stepid}/{node} on the same node
 * twice, the first attempt failing (before SLURM sets SLURM_RESTART_COUNT), the second, restart
 * count 1, writing DIR-2 and ending ok. One job of one rank: two attempts, status ok, energy and
 * duration the sums of the two runs' own summaries. */
static void test_requeued(void)
{
    char *base = th_tmpdir("hwmon-requeue");
    char *lock = th_fmt("%s/lock", base), *pattern = th_fmt("%s/runs/{jobid}.{stepid}/{node}", base);
    CU_ASSERT_FATAL(mkdir(lock, 0700) == 0);
    char *jobid = th_fmt("rq%d", (int)getpid());
    char *jobv = th_fmt("SLURM_JOB_ID=%s", jobid), *path = th_fmt("PATH=%s", getenv("PATH"));
    /* each attempt lasts until its GPUs were sampled twice: an event, not a clock */
    const char *wait = "i=0; while [ \"$(cat \"$HWMON_DIR/" HW_GPU_FILE "\" 2>/dev/null | wc -l)\" "
                       "-lt 4 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done";
    char *fail = th_fmt("%s; exit 3", wait), *ok = th_fmt("%s; exit 0", wait);
    char *scripts[2] = {fail, ok};
    char *envs[2][6] = {{jobv, "SLURM_STEP_ID=0", "SLURM_PROCID=0", path, NULL},
                        {jobv, "SLURM_STEP_ID=0", "SLURM_PROCID=0", "SLURM_RESTART_COUNT=1", path,
                         NULL}};
    for (int a = 0; a < 2; a++) {
        char *argv[] = {(char *)th_env("HWRUN_HWMON_BIN"), "-q", "--nvidia-smi",
                        (char *)th_env("HWRUN_FAKE_SMI"), "--lock-dir", lock, "-i", "0.1", "-o",
                        pattern, "--", "/bin/sh", "-c", scripts[a], NULL};
        pid_t pid = th_spawn(argv, envs[a], NULL, NULL);
        CU_ASSERT_FATAL(pid > 0);
        CU_ASSERT_EQUAL(th_wait(pid, 60), a == 0 ? 3 : 0);
    }
    char *jobdir = th_fmt("%s/runs/%s.0", base, jobid);
    struct th_result lr;
    char *ls[] = {"/bin/ls", jobdir, NULL};
    CU_ASSERT_FATAL(th_run(ls, NULL, NULL, 10, &lr) == 0);
    char *first = strtok(lr.out, "\n"), *second = strtok(NULL, "\n");
    CU_ASSERT_FATAL(first && second && strtok(NULL, "\n") == NULL);
    char *dirs[2] = {th_fmt("%s/%s", jobdir, first), th_fmt("%s/%s", jobdir, second)};
    /* each attempt's own summary: the job's truth */
    double e = 0, dur = 0, cpu = 0;
    const char *want_status[2] = {"failed", "ok"};
    for (int a = 0; a < 2; a++) {
        char *arg[] = {dirs[a], NULL};
        json_object *r = summarize_json_st(arg, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_STRING_EQUAL(ht_str(r, "status"), want_status[a]);
        CU_ASSERT(ht_num(r, "energy_wh") > 0);
        e += ht_num(r, "energy_wh");
        dur += ht_num(r, "duration_sec");
        json_object *proc = ht_get(r, "process");
        CU_ASSERT_FATAL(proc != NULL);
        CU_ASSERT(ht_num(proc, "cpu_s") >= 0);
        cpu += ht_num(proc, "cpu_s");
        json_object_put(r);
    }
    char *arg[] = {jobdir, NULL};
    json_object *s = summarize_json(arg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(ht_str(s, "status"), "ok"); /* the last attempt's, not "failed" */
    CU_ASSERT_EQUAL(ht_num(s, "ranks"), 1);
    CU_ASSERT_EQUAL(ht_num(s, "nodes"), 1);
    CU_ASSERT_EQUAL(ht_num(s, "gpus"), 2);
    CU_ASSERT_EQUAL(ht_num(s, "gpus_counted_twice"), 0);
    CU_ASSERT(fabs(ht_num(s, "energy_wh") - e) <= 1e-9 * e);
    CU_ASSERT(fabs(ht_num(s, "duration_sec") - dur) <= 1e-5);
    if (!(fabs(ht_num(s, "duration_sec") - dur) <= 1e-5))
        fprintf(stderr, "job duration %.6f, the attempts' %.6f\n", ht_num(s, "duration_sec"), dur);
    CU_ASSERT(fabs(ht_num(s, "proc_cpu_sec") - cpu) <= 1e-6);
    json_object *att = ht_get(s, "attempts");
    CU_ASSERT_FATAL(att && json_object_array_length(att) == 2);
    json_object *a0 = json_object_array_get_idx(att, 0), *a1 = json_object_array_get_idx(att, 1);
    CU_ASSERT_STRING_EQUAL(ht_str(a0, "status"), "failed");
    CU_ASSERT_PTR_NULL(ht_get(a0, "restart_count"));
    CU_ASSERT_STRING_EQUAL(ht_str(a1, "status"), "ok");
    CU_ASSERT_EQUAL(ht_num(a1, "restart_count"), 1);
    CU_ASSERT(ht_num(a0, "energy_wh") > 0 && ht_num(a1, "energy_wh") > 0);
    json_object_put(s);
    th_result_free(&lr);
    for (int a = 0; a < 2; a++)
        free(dirs[a]);
    free(jobdir);
    free(fail);
    free(ok);
    free(jobv);
    free(path);
    free(jobid);
    free(lock);
    free(pattern);
    th_rmtree(base);
    free(base);
}

void add_job_suite(void);
void add_job_suite(void)
{
    CU_pSuite s = th_add_suite("job", NULL, NULL, 180);
    CU_add_test(s, "two_nodes", test_two_nodes);
    CU_add_test(s, "node_died", test_node_died);
    CU_add_test(s, "requeued", test_requeued);
}
