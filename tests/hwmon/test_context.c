/* Where a run runs (context.c): the scheduler's and launcher's variables in the start event,
 * summarize's context and job.* columns, and -o's placeholders. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
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
        bool ready = e && len >= 16 && !memcmp(e, "SLURM_JOB_ID=777", 16);
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

/* Four ranks of one job on one node each start hwmon (srun --ntasks-per-node=4 with the
 * node's GPUs for every task): exactly one samples the GPUs, the others run no nvidia-smi, time
 * their own tree and say which hwmon sampled them. Ranks given GPUs of their own each sample
 * theirs; a run without a job takes no lock. */
static void test_one_sampler(void)
{
    char *base = th_tmpdir("hwmon-nodelock");
    char *lock = th_fmt("%s/lock", base);
    CU_ASSERT_FATAL(mkdir(lock, 0700) == 0);
    char *job = th_fmt("SLURM_JOB_ID=%d", (int)getpid());
    char *env[] = {job, "PATH=/usr/bin:/bin", NULL};
    pid_t pids[4];
    char *dirs[4], **argv[4];
    for (int i = 0; i < 4; i++) {
        dirs[i] = th_fmt("%s/rank%d", base, i);
        argv[i] = ht_argv(dirs[i], "--lock-dir", lock, "-i", "0.1", "--", "/bin/sleep", "0.8",
                          NULL);
        pids[i] = th_spawn(argv[i], env, NULL, NULL);
        CU_ASSERT_FATAL(pids[i] > 0);
    }
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
        char *gpu = th_fmt("%s/%s", dirs[i], HW_GPU_FILE);
        CU_ASSERT_EQUAL(access(gpu, F_OK) == 0, is_primary); /* only the sampler's GPU rows */
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
    }

    /* a GPU of its own per rank: both sample */
    char *own[2];
    for (int i = 0; i < 2; i++) {
        own[i] = th_fmt("%s/own%d", base, i);
        char *cvd = th_fmt("CUDA_VISIBLE_DEVICES=%d", i);
        char *env2[] = {job, cvd, "PATH=/usr/bin:/bin", NULL};
        char **a = ht_argv(own[i], "--lock-dir", lock, "-i", "0.1", "--", "/bin/sleep", "0.5",
                           NULL);
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
        char **pa = ht_argv(pdir, "--lock-dir", lock, "-i", "0.1", "--", "/bin/sleep", "0.3",
                            NULL);
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

void add_context_suite(void);
void add_context_suite(void)
{
    CU_pSuite s = th_add_suite("context", NULL, NULL, 60);
    CU_add_test(s, "parse", test_parse);
    CU_add_test(s, "placeholders", test_placeholders);
    CU_add_test(s, "end_to_end", test_end_to_end);
    CU_add_test(s, "one_sampler", test_one_sampler);
}
