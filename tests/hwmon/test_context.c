/* Where a run runs (context.c): the scheduler's and launcher's variables in the start event,
 * summarize's context and job.* columns, and -o's placeholders. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "timescale.h"
#include "hwtest.h"
#include "hwrun/buf.h"

static const char env_block[] = "PATH=/bin\0SLURM_JOBID=old\0SLURM_JOB_ID=812345\0"
                                "SLURM_ARRAY_JOB_ID=812340\0SLURM_ARRAY_TASK_ID=5\0"
                                "SLURM_NODEID=1\0SLURM_PROCID=3\0SLURM_LOCALID=1\0"
                                "OMPI_COMM_WORLD_RANK=9\0RANK=3\0KUBERNETES_SERVICE_HOST=10.0.0.1\0"
                                "MY_POD_NAME=trainer-1\0NOT_A_VAR\0SLURM_JOB_NAME=a/b c\0";

/* The first variable of a key's list wins, whatever their order; KUBERNETES_SERVICE_HOST says
 * "inside a pod"; a name without '=' is ignored. */
static void test_parse(void)
{
    struct mon_context c;
    mon_context_parse(&c, env_block, sizeof env_block - 1, "node7");
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_HOST], "node7");
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_SLURM_JOB_ID], "812345");
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_SLURM_ARRAY_TASK_ID], "5");
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_SLURM_NODE_ID], "1");
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_RANK], "3"); /* RANK before OMPI_COMM_WORLD_RANK */
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_K8S], "true");
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_K8S_POD], "trainer-1");
    CU_ASSERT_STRING_EQUAL(c.v[HW_CTX_WORLD_SIZE], "");
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    mon_context_json(&c, &b);
    json_object *o = json_tokener_parse(b.p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    json_object *v;
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "slurm_job_id", &v) &&
                   !strcmp(json_object_get_string(v), "812345"));
    CU_ASSERT_FALSE(json_object_object_get_ex(o, "world_size", &v)); /* not set: absent */
    json_object_put(o);
    hw_buf_free(&b);
}

static void test_placeholders(void)
{
    struct mon_context c;
    mon_context_parse(&c, env_block, sizeof env_block - 1, "gpu/node 7");
    char out[256], err[256];
    int unset;
    CU_ASSERT_EQUAL(mon_expand_output("runs/{jobid}/{host}-{rank}.{localrank}-{nodeid}", &c,
                                      "20261125T180102Z", 42, out, sizeof out, &unset, err,
                                      sizeof err),
                    0);
    /* the array job's ID_TASK, the host's '/' and blank made '_' */
    CU_ASSERT_STRING_EQUAL(out, "runs/812340_5/gpu_node_7-3.1-1");
    CU_ASSERT_EQUAL(unset, 0);
    CU_ASSERT_EQUAL(mon_expand_output("{time}-{pid}", &c, "20261125T180102Z", 42, out,
                                      sizeof out, &unset, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "20261125T180102Z-42");
    struct mon_context none;
    memset(&none, 0, sizeof none);
    CU_ASSERT_EQUAL(mon_expand_output("r/{jobid}/{rank}", &none, "T", 1, out, sizeof out, &unset,
                                      err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "r/none/none");
    CU_ASSERT_EQUAL(unset, 2);
    CU_ASSERT_EQUAL(mon_expand_output("r/{jobi}", &c, "T", 1, out, sizeof out, &unset, err,
                                      sizeof err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown placeholder {jobi}"));
    CU_ASSERT_EQUAL(mon_expand_output("r/{rank", &c, "T", 1, out, sizeof out, &unset, err,
                                      sizeof err),
                    -1);
    CU_ASSERT_EQUAL(mon_expand_output("{host}{host}", &c, "T", 1, out, 8, &unset, err, sizeof err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "too long"));
    /* SLURM's step and node name; without SLURMD_NODENAME, {node} is the host */
    struct mon_context sl;
    static const char step_env[] = "SLURM_STEP_ID=2\0SLURMD_NODENAME=gpu-a17\0";
    mon_context_parse(&sl, step_env, sizeof step_env - 1, "a17.cluster");
    CU_ASSERT_EQUAL(mon_expand_output("r/{stepid}/{node}-{host}", &sl, "T", 1, out, sizeof out,
                                      &unset, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "r/2/gpu-a17-a17.cluster");
    CU_ASSERT_STRING_EQUAL(sl.v[HW_CTX_SLURM_NODE_NAME], "gpu-a17");
    CU_ASSERT_EQUAL(mon_expand_output("{node}", &c, "T", 1, out, sizeof out, &unset, err,
                                      sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "gpu_node_7");
    /* a variable holding "." or "..": never a path step out of the pattern's directory */
    static const char dots_env[] = "RANK=..\0LOCAL_RANK=.\0SLURM_STEP_ID=..x\0";
    struct mon_context dc;
    mon_context_parse(&dc, dots_env, sizeof dots_env - 1, "h");
    CU_ASSERT_EQUAL(mon_expand_output("runs/{rank}/{localrank}/{stepid}", &dc, "T", 1, out,
                                      sizeof out, &unset, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "runs/__/_/..x");
    /* SLURM's own name, {localid}, beside {localrank}; a batch script's {stepid} is "batch"
     * (its processes have a job and no SLURM_STEP_ID), outside SLURM "none" (issue 51) */
    static const char batch_env[] = "SLURM_JOB_ID=77\0SLURM_LOCALID=3\0LOCAL_RANK=1\0";
    struct mon_context bc;
    mon_context_parse(&bc, batch_env, sizeof batch_env - 1, "h");
    CU_ASSERT_EQUAL(mon_expand_output("{jobid}.{stepid}/{localid}-{localrank}", &bc, "T", 1, out,
                                      sizeof out, &unset, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "77.batch/3-1");
    CU_ASSERT_EQUAL(unset, 0);
    CU_ASSERT_EQUAL(mon_expand_output("{stepid}-{localid}", &none, "T", 1, out, sizeof out,
                                      &unset, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "none-none");
    CU_ASSERT_EQUAL(unset, 2);
    /* {restart}: SLURM_RESTART_COUNT, which SLURM sets from the first requeue on; 0 before it
     * (the first attempt), never "none" */
    CU_ASSERT_EQUAL(mon_expand_output("{jobid}-a{restart}", &bc, "T", 1, out, sizeof out, &unset,
                                      err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "77-a0");
    CU_ASSERT_EQUAL(unset, 0);
    static const char requeued_env[] = "SLURM_JOB_ID=77\0SLURM_RESTART_COUNT=2\0";
    struct mon_context rc;
    mon_context_parse(&rc, requeued_env, sizeof requeued_env - 1, "h");
    CU_ASSERT_STRING_EQUAL(rc.v[HW_CTX_SLURM_RESTART_COUNT], "2");
    CU_ASSERT_EQUAL(mon_expand_output("{jobid}-a{restart}", &rc, "T", 1, out, sizeof out, &unset,
                                      err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(out, "77-a2");
    CU_ASSERT_EQUAL(unset, 0);
}

/* The real thing: a wrapped command under SLURM's and torchrun's variables gets its directory
 * from the placeholders; the start event and summarize's JSON, text and rows carry the context;
 * attached with -p, the context is the watched process's, not hwmon's; a misspelled placeholder
 * is a usage error (exit 2) and nothing runs. */
static void test_end_to_end(void)
{
    char *base = th_tmpdir("hwmon-ctx");
    char *pattern = th_fmt("%s/{jobid}/{host}-r{rank}", base);
    char *env[] = {"SLURM_JOB_ID=900001", "SLURM_NODEID=0", "SLURM_PROCID=2",
                   "SLURM_NODELIST=gpu-[01-02]", "RANK=2", "WORLD_SIZE=4",
                   "KUBERNETES_SERVICE_HOST=10.0.0.1", "POD_NAME=trainer-2",
                   "POD_NAMESPACE=ml-team", "PATH=/usr/bin:/bin", NULL};
    char **argv = ht_argv_nosmi(pattern, "--no-gpu", "-i", "0.1", "--", "/bin/sleep", "0.3", NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env, 30, NULL), 0);
    char host[256] = "";
    gethostname(host, sizeof host);
    for (char *h = host; *h; h++)
        if (!hw_name_byte(*h))
            *h = '_';
    char *dir = th_fmt("%s/900001/%s-r2", base, host);
    json_object *start = ht_event(dir, "start", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(start);
    json_object *ctx = ht_data(start, HW_START_CONTEXT), *v;
    CU_ASSERT_TRUE(ctx && json_object_object_get_ex(ctx, "slurm_nodelist", &v) &&
                   !strcmp(json_object_get_string(v), "gpu-[01-02]"));
    CU_ASSERT_TRUE(ctx && json_object_object_get_ex(ctx, "world_size", &v) &&
                   !strcmp(json_object_get_string(v), "4"));
    json_object_put(start);
    char *sum[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "csv", dir, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(sum, NULL, NULL, 30, &r) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",job.slurm_job_id,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",900001,"));
    th_result_free(&r);
    /* the JSON Lines row: each context key under its job.* name */
    sum[3] = "jsonl";
    CU_ASSERT_FATAL(th_run(sum, NULL, NULL, 30, &r) == 0);
    json_object *row = json_tokener_parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    static const char *const kv[][2] = {
        {"job.slurm_job_id", "900001"}, {"job.slurm_node_id", "0"}, {"job.slurm_proc_id", "2"},
        {"job.rank", "2"},              {"job.world_size", "4"},   {"job.kubernetes", "true"},
        {"job.k8s_pod", "trainer-2"},   {"job.k8s_namespace", "ml-team"},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        CU_ASSERT_TRUE(json_object_object_get_ex(row, kv[i][0], &v) &&
                       json_object_is_type(v, json_type_string) &&
                       !strcmp(json_object_get_string(v), kv[i][1]));
    }
    CU_ASSERT_TRUE(json_object_object_get_ex(row, "job.k8s_node", &v) && v == NULL);
    json_object_put(row);
    th_result_free(&r);
    free(dir);
    free(argv);

    /* -p: the watched process's variables, not hwmon's */
    char *sl[] = {"/bin/sleep", "30", NULL};
    char *target_env[] = {"SLURM_JOB_ID=777", "RANK=5", NULL};
    pid_t target = th_spawn(sl, target_env, NULL, NULL);
    CU_ASSERT_FATAL(target > 0);
    /* until it has exec'd, its environment is still ours */
    char *envp_path = th_fmt("/proc/%d/environ", (int)target);
    for (int i = 0; i < 400; i++) {
        size_t len = 0;
        char *e = th_read_file(envp_path, &len);
        /* anywhere in it (th_spawn puts the variables it is given after ours) */
        bool ready = e && ((len >= 17 && !memcmp(e, "SLURM_JOB_ID=777", 17)) ||
                           memmem(e, len, "\0SLURM_JOB_ID=777\0", 18));
        free(e);
        if (ready)
            break;
        usleep(5000);
    }
    free(envp_path);
    char *ps = th_fmt("%d", (int)target);
    char *adir = th_fmt("%s/attached-{jobid}-{rank}", base);
    argv = ht_argv_nosmi(adir, "--no-gpu", "-i", "0.1", "-d", "0.3", "-p", ps, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env, 30, NULL), 0);
    char *want = th_fmt("%s/attached-777-5", base);
    CU_ASSERT_EQUAL(access(want, F_OK), 0);
    kill(target, SIGKILL);
    th_wait(target, 5);
    free(want);
    free(argv);
    free(adir);
    free(ps);

    /* a typo: usage error, nothing made, nothing run */
    char *typo = th_fmt("%s/{jobidd}", base);
    char *marker = th_fmt("%s/ran", base);
    char *touch = th_fmt("touch '%s'", marker);
    argv = ht_argv_nosmi(typo, "--no-gpu", "--", "/bin/sh", "-c", touch, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env, 30, &r), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "unknown placeholder {jobidd}"));
    th_result_free(&r);
    CU_ASSERT_NOT_EQUAL(access(marker, F_OK), 0);
    free(argv);
    free(touch);
    free(marker);
    free(typo);
    free(pattern);
    th_rmtree(base);
    free(base);
}

struct lockwait {
    const char *lock, *run; /* the lock directory; the run whose start event says it is primary */
    bool present;           /* wait for: a regular file there (and the run started), or none */
};

static bool lock_file_is(void *arg)
{
    struct lockwait *w = arg;
    if (w->present) {
        json_object *st = ht_event(w->run, "start", 0);
        json_object_put(st);
        if (!st)
            return false;
    }
    int regular = 0;
    DIR *d = opendir(w->lock);
    for (struct dirent *e; d && (e = readdir(d));) {
        struct stat lst;
        char *p = th_fmt("%s/%s", w->lock, e->d_name);
        regular += lstat(p, &lst) == 0 && S_ISREG(lst.st_mode);
        free(p);
    }
    if (d)
        closedir(d);
    return w->present ? regular > 0 : regular == 0;
}

/* The test-only time scale that lets a textfile be rewritten every 0.5 s (timescale.h: the least
 * --prom-interval is 1 s) */
#define PROM_SCALE MON_TIME_SCALE_ENV "=0.5"

/* A job that lasts until the test says so: `cat FIFO` ends at the EOF of the test's release;
 * with prom, the rank's textfile every 0.5 s too (its hwmon needs PROM_SCALE). */
static char **job_until_released(const char *dir, const char *lock, const char *fifo,
                                  const char *prom)
{
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    if (prom) /* the rank's Prometheus textfile too */
        return ht_argv(dir, "--lock-dir", lock, "-i", "0.1", "--prom-textfile", prom,
                       "--prom-interval", "0.5", "--", "/bin/sh", "-c",
                       "exec cat \"$0\" >/dev/null", fifo, NULL);
    return ht_argv(dir, "--lock-dir", lock, "-i", "0.1", "--", "/bin/sh", "-c",
                   "exec cat \"$0\" >/dev/null", fifo, NULL);
}

/* A Prometheus textfile that holds a series (or, with `without`, that exists without it). */
struct promwait {
    const char *path, *series;
    bool without;
};

static bool prom_has(void *arg)
{
    const struct promwait *w = arg;
    char *t = th_read_file(w->path, NULL);
    bool ok = t && (strstr(t, w->series) != NULL) != w->without;
    free(t);
    return ok;
}

/* The job reads its FIFO: opened for writing (no blocking: not before the job has it) and
 * closed, it reads EOF and exits 0. */
static bool released(void *fifo)
{
    int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

struct runwait {
    const char *dir, *event; /* an event in dir's run.jsonl (NULL: none) */
    const char *file;        /* and at least lines lines in dir/file */
    size_t lines;
};

static bool run_has(void *arg)
{
    const struct runwait *w = arg;
    if (w->event) {
        json_object *e = ht_event(w->dir, w->event, 0);
        json_object_put(e);
        if (!e)
            return false;
    }
    return !w->file || ht_lines(w->dir, w->file) >= w->lines;
}

/* Four ranks of one job on one node each start hwmon (srun --ntasks-per-node=4 with the
 * node's GPUs for every task): exactly one samples the GPUs, the others run no nvidia-smi, time
 * their own tree and say which hwmon sampled them (one of them may take the GPUs over when the
 * sampler's job ends first: then it says so). Ranks given GPUs of their own each sample theirs;
 * a run without a job takes no lock. */
static void test_one_sampler(void)
{
    char *base = th_tmpdir("hwmon-nodelock");
    char *lock = th_fmt("%s/lock", base);
    CU_ASSERT_FATAL(mkdir(lock, 0700) == 0);
    char *job = th_fmt("SLURM_JOB_ID=%d", (int)getpid());
    char *env[] = {job, "PATH=/usr/bin:/bin", NULL};
    pid_t pids[4];
    char *dirs[4], **argv[4], *fifos[4];
    for (int i = 0; i < 4; i++) {
        dirs[i] = th_fmt("%s/rank%d", base, i);
        fifos[i] = th_fmt("%s/go%d", base, i);
        argv[i] = job_until_released(dirs[i], lock, fifos[i], NULL);
        pids[i] = th_spawn(argv[i], env, NULL, NULL);
        CU_ASSERT_FATAL(pids[i] > 0);
    }
    /* every rank started and timed its tree a few times before the jobs end */
    for (int i = 0; i < 4; i++) {
        struct runwait w = {dirs[i], "start", HW_PROC_FILE, 4};
        CU_ASSERT_FATAL(ht_wait_until(run_has, &w, 30));
    }
    for (int i = 0; i < 4; i++)
        CU_ASSERT_FATAL(ht_wait_until(released, fifos[i], 30));
    int primary = -1, secondaries = 0;
    long primary_pid = 0;
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(th_wait(pids[i], 30), 0);
        json_object *start = ht_event(dirs[i], "start", 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(start);
        json_object *gs = ht_data(start, HW_START_GPU_SAMPLER), *v;
        CU_ASSERT_PTR_NOT_NULL_FATAL(gs);
        CU_ASSERT_FATAL(json_object_object_get_ex(gs, HW_SAMPLER_ROLE, &v));
        bool is_primary = !strcmp(json_object_get_string(v), HW_SAMPLER_PRIMARY);
        bool took_over = ht_count_events(dirs[i], HW_EV_GPU_SAMPLER) > 0;
        CU_ASSERT_FALSE(is_primary && took_over);
        char *gpu = th_fmt("%s/%s", dirs[i], HW_GPU_FILE);
        /* only a sampler's GPU rows: the first, or one that took over */
        CU_ASSERT_EQUAL(access(gpu, F_OK) == 0, is_primary || took_over);
        free(gpu);
        CU_ASSERT(ht_lines(dirs[i], HW_PROC_FILE) >= 4); /* every rank times its own tree */
        if (is_primary) {
            primary = i;
            primary_pid = (long)ht_data_int(start, HW_START_HWMON_PID);
        } else {
            secondaries++;
        }
        json_object_put(start);
    }
    CU_ASSERT_FATAL(primary >= 0);
    CU_ASSERT_EQUAL(secondaries, 3);
    for (int i = 0; i < 4; i++) {
        if (i == primary)
            continue;
        json_object *start = ht_event(dirs[i], "start", 0);
        json_object *gs = ht_data(start, HW_START_GPU_SAMPLER), *v;
        CU_ASSERT_TRUE(json_object_object_get_ex(gs, HW_SAMPLER_PID, &v) &&
                       json_object_get_int64(v) == primary_pid);
        CU_ASSERT_TRUE(json_object_object_get_ex(gs, HW_SAMPLER_DIR, &v) &&
                       strstr(json_object_get_string(v), "/rank"));
        json_object_put(start);
    }
    for (int i = 0; i < 4; i++) {
        free(dirs[i]);
        free(argv[i]);
        free(fifos[i]);
    }

    /* a GPU of its own per rank: both sample (each job lasts until its run has a GPU row) */
    char *gpu_row = ht_job_wait_lines(HW_GPU_FILE, 1);
    char *own[2];
    for (int i = 0; i < 2; i++) {
        own[i] = th_fmt("%s/own%d", base, i);
        char *cvd = th_fmt("CUDA_VISIBLE_DEVICES=%d", i);
        char *env2[] = {job, cvd, "PATH=/usr/bin:/bin", NULL};
        char **a = ht_argv(own[i], "--lock-dir", lock, "-i", "0.1", "--", "/bin/sh", "-c",
                           gpu_row, NULL);
        pids[i] = th_spawn(a, env2, NULL, NULL);
        free(a);
        free(cvd);
    }
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(th_wait(pids[i], 30), 0);
        char *gpu = th_fmt("%s/%s", own[i], HW_GPU_FILE);
        CU_ASSERT_EQUAL(access(gpu, F_OK), 0);
        free(gpu);
        free(own[i]);
    }

    /* a link or a FIFO planted at the lock's name: not followed, not opened blocking; the run
     * samples its GPUs and says nothing of a sampler */
    static const char *const planted[] = {"link", "fifo"};
    for (int i = 0; i < 2; i++) {
        char *pjob = th_fmt("SLURM_JOB_ID=planted%d%d", (int)getpid(), i);
        char *lk = th_fmt("%s/hwrun-gpu-%lu-planted%d%d-all.lock", lock, (unsigned long)geteuid(),
                          (int)getpid(), i);
        char *target = th_fmt("%s/target", base);
        CU_ASSERT_FATAL(i == 0 ? symlink(target, lk) == 0 : mkfifo(lk, 0600) == 0);
        char *pdir = th_fmt("%s/planted-%s", base, planted[i]);
        char *penv[] = {pjob, "PATH=/usr/bin:/bin", NULL};
        char **pa = ht_argv(pdir, "--lock-dir", lock, "-i", "0.1", "--", "/bin/sh", "-c",
                            gpu_row, NULL);
        CU_ASSERT_EQUAL(ht_run(pa, penv, 30, NULL), 0);
        char *gpu = th_fmt("%s/%s", pdir, HW_GPU_FILE);
        CU_ASSERT_EQUAL(access(gpu, F_OK), 0);
        CU_ASSERT_NOT_EQUAL(access(target, F_OK), 0); /* the link's target was not made */
        json_object *st = ht_event(pdir, "start", 0);
        CU_ASSERT_PTR_NOT_NULL(st);
        CU_ASSERT_PTR_NULL(ht_data(st, HW_START_GPU_SAMPLER));
        json_object_put(st);
        free(gpu);
        free(pa);
        free(pdir);
        free(target);
        free(lk);
        free(pjob);
    }

    /* no lock file of a finished job is left behind, and one an hwmon killed with SIGKILL left
     * (a regular file nobody holds) is swept by the next take; the planted link and FIFO are
     * not lock files of ours and stay */
    char *stale = th_fmt("%s/hwrun-gpu-%lu-stale%d-all.lock", lock, (unsigned long)geteuid(),
                         (int)getpid());
    CU_ASSERT_FATAL(th_write_file(stale, "1 /gone\n", 8) == 0);
    char *sweeper = th_fmt("%s/sweeper", base);
    char **sw = ht_argv(sweeper, "--lock-dir", lock, "-i", "0.1", "--", "/bin/true", NULL);
    CU_ASSERT_EQUAL(ht_run(sw, env, 30, NULL), 0);
    CU_ASSERT_NOT_EQUAL(access(stale, F_OK), 0);
    DIR *ld = opendir(lock);
    CU_ASSERT_FATAL(ld != NULL);
    int regular = 0;
    for (struct dirent *e; (e = readdir(ld));) {
        struct stat lst;
        char *p = th_fmt("%s/%s", lock, e->d_name);
        if (lstat(p, &lst) == 0 && S_ISREG(lst.st_mode)) {
            fprintf(stderr, "left in the lock directory: %s\n", e->d_name);
            regular++;
        }
        free(p);
    }
    closedir(ld);
    CU_ASSERT_EQUAL(regular, 0);
    free(sw);
    free(sweeper);
    free(gpu_row);
    free(stale);

    /* an hwmon killed with SIGKILL: its lock file goes with it (its witness removes it), and
     * the next hwmon of the job samples the GPUs at once (issue 51) */
    char *k9 = th_fmt("%s/k9", base);
    const char *k9job = "echo $$ > \"$HWMON_DIR/job.pid\"; exec sleep 300";
    char **ka = ht_argv(k9, "--lock-dir", lock, "-i", "0.1", "--", "/bin/sh", "-c", k9job, NULL);
    pid_t kp = th_spawn(ka, env, NULL, NULL);
    CU_ASSERT_FATAL(kp > 0);
    struct lockwait lw = {lock, k9, true};
    CU_ASSERT_FATAL(ht_wait_until(lock_file_is, &lw, 30));
    kill(kp, SIGKILL);
    CU_ASSERT(th_wait(kp, 10) == 128 + SIGKILL);
    lw.present = false;
    CU_ASSERT(ht_wait_until(lock_file_is, &lw, 10)); /* nothing left in the lock directory */
    char *jp = th_fmt("%s/job.pid", k9);
    char *jt = th_read_file(jp, NULL);
    if (jt && atoi(jt) > 0)
        kill(atoi(jt), SIGKILL); /* the orphaned job: hwmon's death does not end a job */
    free(jt);
    free(jp);
    char *next = th_fmt("%s/next", base);
    char **na = ht_argv(next, "--lock-dir", lock, "-i", "0.1", "--", "/bin/true", NULL);
    CU_ASSERT_EQUAL(ht_run(na, env, 30, NULL), 0);
    json_object *ns = ht_event(next, "start", 0);
    json_object *ngs = ht_data(ns, HW_START_GPU_SAMPLER), *nv;
    CU_ASSERT_TRUE(ngs && json_object_object_get_ex(ngs, HW_SAMPLER_ROLE, &nv) &&
                   !strcmp(json_object_get_string(nv), HW_SAMPLER_PRIMARY));
    json_object_put(ns);
    free(na);
    free(next);
    free(ka);
    free(k9);

    /* no job: no lock, no gpu_sampler */
    char *solo = th_fmt("%s/solo", base);
    char **a = ht_argv(solo, "--lock-dir", lock, "-i", "0.1", "--", "/bin/true", NULL);
    char *env3[] = {"PATH=/usr/bin:/bin", NULL};
    CU_ASSERT_EQUAL(ht_run(a, env3, 30, NULL), 0);
    json_object *start = ht_event(solo, "start", 0);
    CU_ASSERT_PTR_NOT_NULL(start);
    CU_ASSERT_PTR_NULL(ht_data(start, HW_START_GPU_SAMPLER));
    json_object_put(start);
    free(a);
    free(solo);
    free(job);
    free(lock);
    th_rmtree(base);
    free(base);
}

/* An event's time (ISO 8601 UTC, as librunlog writes it) in epoch seconds; NAN if unreadable. */
static double event_time(json_object *ev)
{
    const char *ts = ev ? ht_str(ev, "ts") : NULL;
    struct tm tm = {0};
    double sec;
    if (!ts || sscanf(ts, "%d-%d-%dT%d:%d:%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                      &tm.tm_hour, &tm.tm_min, &sec) != 6)
        return NAN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) + sec;
}

/* The GPU rows' timestamps in dir (nvidia-smi's "YYYY/MM/DD hh:mm:ss.mmm", UTC: the start's
 * smi_tz): the first and the last, as ISO strings comparable with an event's ts. */
static bool gpu_row_span(const char *dir, char first[24], char last[24])
{
    char *p = th_fmt("%s/%s", dir, HW_GPU_FILE);
    char *text = th_read_file(p, NULL);
    free(p);
    first[0] = last[0] = '\0';
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl && nl - line >= 23 && line[4] == '/') {
            char iso[24];
            memcpy(iso, line, 23);
            iso[23] = '\0';
            iso[4] = iso[7] = '-';
            iso[10] = 'T';
            if (!first[0])
                memcpy(first, iso, 24);
            memcpy(last, iso, 24);
        }
        line = nl ? nl + 1 : line + strlen(line);
    }
    free(text);
    return first[0] != '\0';
}

/* summarize -f FORMAT args...: its output (status 0), or NULL. */
static char *summarize_out(const char *format, const char *a, const char *b)
{
    char *argv[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", (char *)format,
                    (char *)a, (char *)b, NULL};
    struct th_result r;
    if (th_run(argv, NULL, NULL, 60, &r) != 0)
        return NULL;
    char *out = r.status == 0 ? strdup(r.out) : NULL;
    if (!out)
        fprintf(stderr, "summarize exit %d: %s\n", r.status, r.err);
    th_result_free(&r);
    return out;
}

static json_object *summarize_doc(const char *dir)
{
    char *out = summarize_out("json", dir, NULL);
    json_object *o = out ? json_tokener_parse(out) : NULL;
    free(out);
    return o;
}

/* Issue 50: two ranks of one job on one node; the sampling rank's job ends first, the other
 * takes the node's GPUs over within an interval or two: its GPU rows begin at its gpu_sampler
 * event, which names the sampler before; the job summary says who sampled when, counts each
 * GPU once with both spans' energy, and the handover's gap as the events' times measure it.
 * The same directories without the takeover (the second rank's events and GPU files removed):
 * the job summary warns of the time the node's GPUs went unsampled while the rank ran on. */
static void test_takeover(void)
{
    char *base = th_tmpdir("hwmon-takeover");
    char *lock = th_fmt("%s/lock", base), *jobdir = th_fmt("%s/job", base);
    CU_ASSERT_FATAL(mkdir(lock, 0700) == 0 && mkdir(jobdir, 0700) == 0);
    char *job = th_fmt("SLURM_JOB_ID=takeover%d", (int)getpid());
    char *dirs[2], *fifos[2], **argv[2], *rankv[2], *proms[2];
    pid_t pids[2];
    for (int i = 0; i < 2; i++) {
        dirs[i] = th_fmt("%s/r%d", jobdir, i);
        fifos[i] = th_fmt("%s/go%d", base, i);
        rankv[i] = th_fmt("SLURM_PROCID=%d", i);
        proms[i] = th_fmt("%s/rank%d.prom", base, i);
        argv[i] = job_until_released(dirs[i], lock, fifos[i], proms[i]);
        char *env[] = {job, rankv[i], "PATH=/usr/bin:/bin", PROM_SCALE, NULL};
        pids[i] = th_spawn(argv[i], env, NULL, NULL);
        CU_ASSERT_FATAL(pids[i] > 0);
        /* rank 0 first: it holds the lock before rank 1 asks */
        struct runwait w = {dirs[i], "start", NULL, 0};
        CU_ASSERT_FATAL(ht_wait_until(run_has, &w, 30));
    }
    json_object *st[2];
    for (int i = 0; i < 2; i++) {
        st[i] = ht_event(dirs[i], "start", 0);
        json_object *gs = ht_data(st[i], HW_START_GPU_SAMPLER);
        CU_ASSERT_FATAL(gs != NULL);
        CU_ASSERT_STRING_EQUAL(ht_str(gs, HW_SAMPLER_ROLE),
                               i ? HW_SAMPLER_SECONDARY : HW_SAMPLER_PRIMARY);
    }
    long pid0 = (long)ht_data_int(st[0], HW_START_HWMON_PID);
    long pid1 = (long)ht_data_int(st[1], HW_START_HWMON_PID);
    /* rank 0 samples a few rows, rank 1 none; then rank 0's job ends */
    struct runwait w0 = {dirs[0], NULL, HW_GPU_FILE, 6};
    CU_ASSERT_FATAL(ht_wait_until(run_has, &w0, 30));
    CU_ASSERT_EQUAL(ht_lines(dirs[1], HW_GPU_FILE), 0);
    /* the textfiles: the sampler's has the GPUs' series, the other rank's none (it is written
     * all the same: its own process tree) */
    static const char gpu_series[] = "hwrun_gpu_utilization_ratio{";
    struct promwait p0 = {proms[0], gpu_series, false}, p1 = {proms[1], gpu_series, true};
    CU_ASSERT(ht_wait_until(prom_has, &p0, 30));
    CU_ASSERT(ht_wait_until(prom_has, &p1, 30));
    CU_ASSERT_FATAL(ht_wait_until(released, fifos[0], 30));
    CU_ASSERT_EQUAL(th_wait(pids[0], 30), 0);
    /* rank 1 takes over and samples a few rows of its own, its textfile the GPUs' series from
     * then on; then its job ends */
    struct runwait w1 = {dirs[1], HW_EV_GPU_SAMPLER, HW_GPU_FILE, 6};
    CU_ASSERT_FATAL(ht_wait_until(run_has, &w1, 30));
    p1.without = false;
    CU_ASSERT(ht_wait_until(prom_has, &p1, 30));
    CU_ASSERT_FATAL(ht_wait_until(released, fifos[1], 30));
    CU_ASSERT_EQUAL(th_wait(pids[1], 30), 0);

    json_object *tk = ht_event(dirs[1], HW_EV_GPU_SAMPLER, 0);
    json_object *stop0 = ht_event(dirs[0], "stop", 0), *stop1 = ht_event(dirs[1], "stop", 0);
    CU_ASSERT_FATAL(tk && stop0 && stop1);
    CU_ASSERT_EQUAL(ht_count_events(dirs[1], HW_EV_GPU_SAMPLER), 1);
    CU_ASSERT_EQUAL(ht_count_events(dirs[0], HW_EV_GPU_SAMPLER), 0);
    CU_ASSERT_STRING_EQUAL(ht_data_str(tk, HW_SAMPLER_ROLE), HW_SAMPLER_PRIMARY);
    CU_ASSERT_EQUAL(ht_data_int(tk, HW_SAMPLER_PID), pid1);
    json_object *prev = ht_data(tk, HW_SAMPLER_PREVIOUS);
    CU_ASSERT_EQUAL((long)ht_num(prev, HW_SAMPLER_PID), pid0);
    CU_ASSERT_STRING_EQUAL(ht_str(prev, HW_SAMPLER_DIR), ht_data_str(st[0], "output_dir"));
    CU_ASSERT_STRING_EQUAL(ht_data_str(tk, HW_START_GPU_SOURCE), "nvidia-smi");
    CU_ASSERT_PTR_NOT_NULL(ht_data(tk, HW_START_GPUS));
    /* the takeover came after the sampler's end, and rank 1's GPU rows from it on; rank 0's
     * ended before its stop */
    double t_stop0 = event_time(stop0), t_take = event_time(tk), t_stop1 = event_time(stop1);
    CU_ASSERT(t_take >= t_stop0);
    char first[24], last[24];
    CU_ASSERT_FATAL(gpu_row_span(dirs[1], first, last));
    CU_ASSERT(strncmp(first, ht_str(tk, "ts"), 23) >= 0);
    CU_ASSERT_FATAL(gpu_row_span(dirs[0], first, last));
    CU_ASSERT(strncmp(last, ht_str(stop0, "ts"), 23) <= 0);
    /* nothing of the job is left in the lock directory */
    struct lockwait lw = {lock, NULL, false};
    CU_ASSERT(lock_file_is(&lw));

    /* the job summary: who sampled when, the GPUs once, the energy of both spans */
    double e_own = 0;
    for (int i = 0; i < 2; i++) {
        json_object *r = summarize_doc(dirs[i]);
        CU_ASSERT_FATAL(r != NULL);
        CU_ASSERT(isfinite(ht_num(r, "energy_wh")) && ht_num(r, "energy_wh") > 0);
        e_own += ht_num(r, "energy_wh");
        json_object_put(r);
    }
    json_object *s = summarize_doc(jobdir);
    CU_ASSERT_FATAL(s != NULL);
    CU_ASSERT_STRING_EQUAL(ht_str(s, "status"), "ok");
    CU_ASSERT_EQUAL(ht_num(s, "gpus"), 2); /* the fake's two GPUs, once */
    CU_ASSERT_EQUAL(ht_num(s, "gpus_counted_twice"), 0);
    CU_ASSERT(fabs(ht_num(s, "energy_wh") - e_own) <= 1e-9 * e_own);
    /* the handover's gap as the events measure it: unsampled only beyond two intervals and the
     * takeover's probe */
    double gap = t_take - t_stop0;
    double want_unsampled = gap > 2 * 0.1 + ht_num(ht_get(tk, "data"), HW_SAMPLER_PROBE) ? gap : 0;
    CU_ASSERT(fabs(ht_num(s, "gpus_unsampled_sec") - want_unsampled) < 1e-6);
    json_object *gsa = ht_get(s, "gpu_samplers");
    CU_ASSERT_FATAL(gsa && json_object_array_length(gsa) == 1);
    json_object *host = json_object_array_get_idx(gsa, 0);
    CU_ASSERT_EQUAL(ht_num(host, "ranks"), 2);
    CU_ASSERT(fabs(ht_num(host, "unsampled_s") - want_unsampled) < 1e-6);
    json_object *smp = ht_get(host, "samplers");
    CU_ASSERT_FATAL(smp && json_object_array_length(smp) == 2);
    for (int i = 0; i < 2; i++) {
        json_object *x = json_object_array_get_idx(smp, (size_t)i);
        char want_rank[4];
        snprintf(want_rank, sizeof want_rank, "%d", i);
        CU_ASSERT_STRING_EQUAL(ht_str(x, "rank"), want_rank);
        CU_ASSERT_EQUAL((long)ht_num(x, "hwmon_pid"), i ? pid1 : pid0);
        CU_ASSERT_EQUAL(json_object_get_boolean(ht_get(x, "took_over")), i == 1);
        CU_ASSERT_STRING_EQUAL(ht_str(x, "dir"), dirs[i]);
    }
    json_object *x1 = json_object_array_get_idx(smp, 1);
    CU_ASSERT(fabs(ht_num(x1, "gap_before_s") - gap) < 1e-6);
    CU_ASSERT(fabs(ht_num(x1, "to_s") - ht_num(x1, "from_s") - (t_stop1 - t_take)) < 1e-5);
    json_object_put(s);
    char *text = summarize_out("text", jobdir, NULL);
    CU_ASSERT_FATAL(text != NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "sampled by rank 0 (r0) from +"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "then rank 1 (r1) from its takeover at +"));
    CU_ASSERT_EQUAL(strstr(text, "went unsampled") != NULL, want_unsampled > 0);
    free(text);

    /* without the takeover: rank 1 a secondary to its end, rank 0's GPUs unsampled from its
     * stop to rank 1's, and said */
    char *job2 = th_fmt("%s/job2", base), *d2 = th_fmt("%s/r1", job2);
    char *cp[] = {"/bin/cp", "-r", jobdir, job2, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(cp, NULL, NULL, 30, &r) == 0 && r.status == 0);
    th_result_free(&r);
    for (int k = 0; k < HW_FILE_COUNT; k++) { /* the GPU sampler's files (the table's) */
        if (hw_run_files[k].by != HW_BY_GPU)
            continue;
        char *f = th_fmt("%s/%s", d2, hw_run_files[k].name);
        unlink(f);
        free(f);
    }
    char *log = th_fmt("%s/%s", d2, HW_RUNLOG_FILE);
    char *lines = th_read_file(log, NULL);
    CU_ASSERT_FATAL(lines != NULL);
    struct hw_buf kept;
    hw_buf_init(&kept, NULL, 0);
    for (char *line = lines; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (!memmem(line, n, "\"event\": \"" HW_EV_GPU_SAMPLER "\"", strlen(HW_EV_GPU_SAMPLER) + 11))
            hw_buf_put(&kept, line, n);
        line += n;
    }
    CU_ASSERT_FATAL(th_write_file(log, kept.p, kept.len) == 0);
    CU_ASSERT_EQUAL(ht_count_events(d2, HW_EV_GPU_SAMPLER), 0);
    hw_buf_free(&kept);
    free(lines);
    double tail = t_stop1 - t_stop0;
    CU_ASSERT_FATAL(tail > 2 * 0.1); /* rank 1 sampled six rows after rank 0's end */
    s = summarize_doc(job2);
    CU_ASSERT_FATAL(s != NULL);
    CU_ASSERT(fabs(ht_num(s, "gpus_unsampled_sec") - tail) < 1e-6);
    host = json_object_array_get_idx(ht_get(s, "gpu_samplers"), 0);
    CU_ASSERT(fabs(ht_num(host, "unsampled_after_last_s") - tail) < 1e-6);
    CU_ASSERT_EQUAL(json_object_array_length(ht_get(host, "samplers")), 1);
    CU_ASSERT_EQUAL(ht_num(s, "gpus"), 2);
    json_object_put(s);
    text = summarize_out("text", job2, NULL);
    CU_ASSERT_FATAL(text != NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "warning: the GPUs of "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "after the last sampler ended, no rank took over"));
    free(text);

    free(log);
    free(d2);
    free(job2);
    json_object_put(tk);
    json_object_put(stop0);
    json_object_put(stop1);
    for (int i = 0; i < 2; i++) {
        json_object_put(st[i]);
        free(dirs[i]);
        free(fifos[i]);
        free(argv[i]);
        free(rankv[i]);
        free(proms[i]);
    }
    free(job);
    free(lock);
    free(jobdir);
    th_rmtree(base);
    free(base);
}

void add_context_suite(void);
void add_context_suite(void)
{
    CU_pSuite s = th_add_suite("context", NULL, NULL, 60);
    CU_add_test(s, "parse", test_parse);
    CU_add_test(s, "placeholders", test_placeholders);
    CU_add_test(s, "end_to_end", test_end_to_end);
    CU_add_test(s, "one_sampler", test_one_sampler);
    CU_add_test(s, "takeover", test_takeover);
}
