/* Full disks lose at most the line being written.
 *
 * The test program moves into a mount namespace of its own and mounts a small tmpfs, where a
 * filler file takes every free page and is removed again: a disk that fills and comes back, as
 * often as we like. tmpfs cuts a write short at a page it cannot allocate, exactly as a full
 * ext4 does, so each episode tears the line that crosses the last page.
 *
 *   runlog:  two writers (two processes' worth of rl_log handles) append through five episodes;
 *            summarize's reader gives back every entry whose rl_event() returned 0, with the
 *            torn ones counted as "torn", never glued to the next;
 *   csv:     hwmon samples every 50 ms into the tmpfs through five episodes; its CSVs end every
 *            episode on a whole row (cut back), so summarize skips nothing in them, and the
 *            samples taken but not written are counted: the stop event's samples less its
 *            samples_lost are the rows each file holds, and summarize says the sum;
 *   glued:   nvidia-smi's files have a writer we cannot cut back: a torn row with the next row
 *            glued on (several, even) loses only the torn part. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"
#include "hwrun/rundir.h"
#include "readers.h"
#include "runlog.h"
#include "testutil.h"

#define EPISODES 5

static char *mnt; /* the tmpfs, or NULL when it could not be made */

/* A tmpfs of its own, in a mount namespace of its own (root only). */
static int fs_make(void)
{
    if (geteuid() != 0)
        return -EPERM;
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return -errno;
    mnt = th_tmpdir("fulldisk");
    if (mount("hwrun-fulldisk", mnt, "tmpfs", 0, "size=256k,mode=0755") < 0) {
        int e = errno;
        th_rmtree(mnt);
        free(mnt);
        mnt = NULL;
        return -e;
    }
    return 0;
}

/* Fill every free page (the disk is full); fs_free() gives the room back. */
static void fs_fill(void)
{
    char *path = th_fmt("%s/filler", mnt);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    free(path);
    if (fd < 0)
        return;
    static char block[4096];
    while (write(fd, block, sizeof block) > 0)
        ;
    while (write(fd, block, 1) > 0) /* the last bytes of a page */
        ;
    close(fd);
}

static void fs_free(void)
{
    char *path = th_fmt("%s/filler", mnt);
    unlink(path);
    free(path);
}

/* ---- librunlog's shared file ---- */

struct got {
    bool seen[4096];
    uint64_t n;
};

static void on_event(void *ctx, const struct rd_event *e)
{
    struct got *g = ctx;
    struct json_object *v;
    if (e->data && json_object_object_get_ex(e->data, "i", &v)) {
        int i = json_object_get_int(v);
        if (i >= 0 && i < 4096)
            g->seen[i] = true;
        g->n++;
    }
}

static void test_runlog(void)
{
    if (!mnt) {
        th_skip("needs root for a tmpfs in a mount namespace of its own");
        return;
    }
    char *path = th_fmt("%s/run.jsonl", mnt);
    rl_log_t *a = NULL, *b = NULL;
    CU_ASSERT_FATAL(rl_open(&a, path, 0) == 0 && rl_open(&b, path, 0) == 0);
    static bool ok[4096];
    int next = 0, failed = 0;
    /* a payload that makes lines of ~300 bytes: about one in 14 crosses a page */
    char pad[240];
    memset(pad, 'x', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    for (int ep = 0; ep <= EPISODES; ep++) {
        for (int k = 0; k < 40 && next < 4096; k++, next++) {
            rl_field_t f[] = {RL_INT("i", next), RL_STR("pad", pad)};
            int rc = rl_event(next % 2 ? b : a, "line", f, 2);
            ok[next] = rc == 0;
            if (rc < 0) {
                CU_ASSERT_EQUAL(rc, -ENOSPC);
                failed++;
            }
        }
        if (ep < EPISODES) {
            fs_fill();
            /* the disk is full: the lines that fit in the last page's slack land, the one that
             * crosses into the next page is torn, the rest fail */
            for (int k = 0; k < 40 && next < 4096; k++, next++) {
                rl_field_t f[] = {RL_INT("i", next), RL_STR("pad", pad)};
                int rc = rl_event(next % 2 ? b : a, "line", f, 2);
                ok[next] = rc == 0;
                failed += rc < 0;
            }
            fs_free();
        }
    }
    CU_ASSERT(rl_close(a) == 0 && rl_close(b) == 0);
    CU_ASSERT(failed >= EPISODES); /* the episodes happened */

    struct got g = {0};
    struct rd_sink sink = {.ctx = &g, .event = on_event};
    struct rd_quality q;
    CU_ASSERT_FATAL(rd_read_file(HW_FILE_RUNLOG, path, NULL, &sink, &q) == 0);
    int lost = 0, written = 0;
    for (int i = 0; i < next; i++) {
        written += ok[i];
        if (ok[i] && !g.seen[i]) {
            fprintf(stderr, "entry %d was written in full and not read back\n", i);
            lost++;
        }
    }
    CU_ASSERT_EQUAL(lost, 0);
    CU_ASSERT_EQUAL(g.n, (uint64_t)written); /* and nothing else was read as an entry */
    CU_ASSERT(q.torn + q.skipped[RD_SKIP_JSON] >= 1); /* torn ones counted */
    /* every line once: a torn line with a whole entry glued on counts as that entry */
    CU_ASSERT_EQUAL(q.parsed + rd_quality_skipped_total(&q) + q.headers + q.blank, q.lines);
    free(path);
}

/* ---- hwmon's own CSVs ---- */

/* The stop event's data in run's run.jsonl (a reference the caller puts), or NULL. */
static struct json_object *stop_data(const char *run)
{
    char *p = th_fmt("%s/%s", run, HW_RUNLOG_FILE);
    char *text = th_read_file(p, NULL);
    free(p);
    struct json_object *data = NULL;
    for (char *line = text, *nl; line && *line && !data; line = nl ? nl + 1 : line + strlen(line)) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        struct json_object *o = json_tokener_parse(line), *ev, *d;
        if (o && json_object_object_get_ex(o, "event", &ev) &&
            !strcmp(json_object_get_string(ev), HW_EV_STOP) &&
            json_object_object_get_ex(o, "data", &d))
            data = json_object_get(d);
        json_object_put(o);
    }
    free(text);
    return data;
}

/* obj.key.sub as an integer, or -1 */
static long long int_at(struct json_object *obj, const char *key, const char *sub)
{
    struct json_object *a, *b;
    return obj && json_object_object_get_ex(obj, key, &a) &&
                   json_object_object_get_ex(a, sub, &b) && json_object_is_type(b, json_type_int)
               ? (long long)json_object_get_int64(b)
               : -1;
}

/* hwmon's live counters (--prom-textfile): samples taken and rows lost, by enum hw_file (the
 * series' file label is the table's stem) */
struct prom_counts {
    double samples, lost[HW_FILE_COUNT];
};

static bool prom_read(const char *path, struct prom_counts *c)
{
    char *text = th_read_file(path, NULL);
    if (!text)
        return false;
    int got = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *sp = strrchr(line, ' ');
        if (line[0] == '#' || !sp)
            continue;
        double v = strtod(sp + 1, NULL);
        if (!strncmp(line, "hwrun_samples_total{", 20))
            c->samples = v, got |= 1;
        else if (strstr(line, "hwrun_samples_lost_total{") == line)
            for (int k = 0; k < HW_FILE_COUNT; k++) {
                char *label = th_fmt("file=\"%s\"}", hw_run_files[k].stem);
                if (strstr(line, label))
                    c->lost[k] = v, got |= 2;
                free(label);
            }
    }
    free(text);
    return got == 3;
}

/* Wait (60 s at most: an event, not a clock) until both files lost at least lost_cpu and
 * lost_proc samples and at least samples were taken; c gets the counters then. */
static bool prom_wait(const char *path, struct prom_counts *c, double lost_cpu, double lost_proc,
                      double samples)
{
    for (int i = 0; i < 1200; i++) {
        struct prom_counts now;
        if (prom_read(path, &now) && now.lost[HW_FILE_CPU] >= lost_cpu &&
            now.lost[HW_FILE_PROC] >= lost_proc &&
            now.samples >= samples) {
            *c = now;
            return true;
        }
        th_sleep(0.05);
    }
    fprintf(stderr, "%s: no %g cpu and %g proc samples lost, %g taken, in 60 s\n", path,
            lost_cpu, lost_proc, samples);
    return false;
}

static void test_csv(void)
{
    if (!mnt) {
        th_skip("needs root for a tmpfs in a mount namespace of its own");
        return;
    }
    const char *hwmon = th_env("HWRUN_HWMON_BIN"), *sum = th_env("HWRUN_SUMMARIZE_BIN");
    char *run = th_fmt("%s/run", mnt);
    /* the live counters, on a disk that is not full: each episode lasts until a sample of
     * each file was lost (a row that still fits the file's last page is written: how long
     * that takes depends on the machine's speed, not on a clock) */
    char *pdir = th_tmpdir("fulldisk-prom"), *prom = th_fmt("%s/run.prom", pdir);
    char *argv[] = {(char *)hwmon, "-q", "--no-gpu", "-i", "0.05", "--prom-textfile", prom,
                    "--prom-interval", "1", "-o", run, "--", "sleep", "600", NULL};
    pid_t pid = th_spawn(argv, NULL, NULL, NULL);
    CU_ASSERT_FATAL(pid > 0);
    struct prom_counts at = {0};
    bool ok = prom_wait(prom, &at, 0, 0, 3);
    for (int ep = 0; ok && ep < EPISODES; ep++) {
        fs_fill();
        ok = prom_wait(prom, &at, at.lost[HW_FILE_CPU] + 1, at.lost[HW_FILE_PROC] + 1, 0);
        fs_free();
        ok = ok && prom_wait(prom, &at, 0, 0, at.samples + 3); /* rows written again */
    }
    CU_ASSERT(ok);
    kill(pid, SIGTERM);
    CU_ASSERT(th_wait(pid, 60) >= 0);
    struct json_object *stop = stop_data(run);
    CU_ASSERT_PTR_NOT_NULL(stop);
    long long lost_total = 0;
    char lost_in[512] = ""; /* the files that lost rows, as the text report names them */
    for (int i = 0; i < HW_FILE_COUNT; i++) { /* every file hwmon writes itself */
        const char *name = hw_file_names[i];
        if (hw_run_files[i].by != HW_BY_HWMON)
            continue;
        char *p = th_fmt("%s/%s", run, name);
        size_t n = 0;
        char *text = th_read_file(p, &n);
        CU_ASSERT_FATAL(text && n > 0);
        CU_ASSERT_EQUAL(text[n - 1], '\n'); /* ends on a whole row */
        struct rd_quality q;
        struct rd_sink sink = {0};
        CU_ASSERT(rd_read_file(i, p, NULL, &sink, &q) == 0);
        uint64_t skipped = rd_quality_skipped_total(&q);
        if (skipped)
            fprintf(stderr, "%s: %llu rows skipped after full-disk episodes\n", name,
                    (unsigned long long)skipped);
        CU_ASSERT_EQUAL(skipped, 0);
        /* a row each sample: cpu and proc (tree_pids' rows are the tree's changes: the
         * sleep's first reading, before any episode) */
        bool every = i == HW_FILE_CPU || i == HW_FILE_PROC;
        CU_ASSERT(q.parsed > (every ? 20 : 0));
        /* every row given is in the file, or counted lost: the job's own truth is the file */
        const char *sub = hw_run_files[i].stem;
        long long taken = int_at(stop, HW_STOP_SAMPLES, sub),
                  lost = int_at(stop, HW_STOP_SAMPLES_LOST, sub);
        if (taken - lost != (long long)q.parsed)
            fprintf(stderr, "%s: %lld samples taken, %lld lost, %llu rows\n", name, taken, lost,
                    (unsigned long long)q.parsed);
        if (every)
            CU_ASSERT(lost > 0); /* each episode lasted until a row of each was lost */
        CU_ASSERT_EQUAL(taken - lost, (long long)q.parsed);
        lost_total += lost > 0 ? lost : 0;
        if (lost > 0)
            snprintf(lost_in + strlen(lost_in), sizeof lost_in - strlen(lost_in), "%s%s",
                     *lost_in ? ", " : "", name);
        free(text);
        free(p);
    }
    /* and the tool says so: no "skipped" from summarize on these files */
    char *sargv[] = {(char *)sum, "--format", "json", run, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(sargv, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_PTR_NULL(strstr(r.err, HW_CPU_FILE));
    CU_ASSERT_PTR_NULL(strstr(r.err, HW_PROC_FILE));
    struct json_object *js = json_tokener_parse(r.out);
    CU_ASSERT_EQUAL(int_at(js, "quality", "samples_lost"), lost_total);
    json_object_put(js);
    th_result_free(&r);
    char *targv[] = {(char *)sum, "--format", "text", run, NULL};
    CU_ASSERT_FATAL(th_run(targv, NULL, NULL, 60, &r) == 0);
    char *want = th_fmt("warning: %lld samples taken but not written (%s: a full disk?)",
                        lost_total, lost_in);
    if (!strstr(r.out, want))
        fprintf(stderr, "no \"%s\" in:\n%s\n", want, r.out);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    free(want);
    th_result_free(&r);
    json_object_put(stop);
    th_rmtree(pdir);
    free(pdir);
    free(prom);
    free(run);
}

static void count_gpu(void *ctx, const struct rd_gpu_row *r)
{
    (void)r;
    ++*(int *)ctx;
}

static void count_cpu(void *ctx, const struct rd_cpu_row *r)
{
    (void)r;
    ++*(int *)ctx;
}

static void test_glued(void)
{
    char *dir = th_tmpdir("glued");
    char *gpu = th_fmt("%s/%s", dir, HW_GPU_FILE), *cpu = th_fmt("%s/%s", dir, HW_CPU_FILE);
    static const char rows[] =
        "2026/11/21 15:27:40.500, 4, 1, 1000, 81559, 65.11, 40, 345, 2619, 0, GPU-0\n"
        "2026/11/21 15:27:41.500, 1, 0, 5000, 81559, 6" /* torn in a cell */
        "2026/11/21 15:27:42.500, 1, 0, 5000, 81559, 67.62, 41, 345, 2619, 0, GPU-0\n"
        "2026/11/2" /* torn in the date, then again */
        "2026/11/21 15:27:43.500, 1, 0, 50" "2026/11/21 15:27:44.500, 1, 0, 5000, 81559, [N/A], "
        "41, 345, 2619, 0, GPU-0\n";
    CU_ASSERT_FATAL(th_write_file(gpu, rows, sizeof rows - 1) == 0);
    int n = 0;
    struct rd_sink sink = {.ctx = &n, .gpu = count_gpu};
    struct rd_quality q;
    CU_ASSERT_FATAL(rd_read_file(HW_FILE_GPU, gpu, NULL, &sink, &q) == 0);
    CU_ASSERT_EQUAL(n, 3); /* 40.5, 42.5, 44.5 */
    CU_ASSERT_EQUAL(q.torn, 2);
    CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
    CU_ASSERT_EQUAL(q.parsed, q.lines);
    static const char cpu_rows[] = "timestamp,usr_pct,idle_pct\n"
                                   "2026-11-21T15:27:50.000+00:00,1,2\n"
                                   "2026-11-21T15:27:51.000+00:00,-1"
                                   "2026-11-21T15:27:52.000+00:00,3,4\n";
    CU_ASSERT_FATAL(th_write_file(cpu, cpu_rows, sizeof cpu_rows - 1) == 0);
    n = 0;
    sink = (struct rd_sink){.ctx = &n, .cpu = count_cpu};
    CU_ASSERT_FATAL(rd_read_file(HW_FILE_CPU, cpu, NULL, &sink, &q) == 0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(q.torn, 1);
    th_rmtree(dir);
    free(dir);
    free(gpu);
    free(cpu);
}

static int suite_init(void)
{
    int rc = fs_make();
    if (rc < 0)
        fprintf(stderr, "fulldisk: no tmpfs: %s\n", strerror(-rc));
    return 0;
}

static int suite_clean(void)
{
    if (mnt) {
        umount2(mnt, MNT_DETACH);
        th_rmtree(mnt);
        free(mnt);
        mnt = NULL;
    }
    return 0;
}

void hostile_register_fulldisk(void)
{
    CU_pSuite s = th_add_suite("fulldisk", suite_init, suite_clean, 300);
    CU_add_test(s, "runlog", test_runlog);
    CU_add_test(s, "csv", test_csv);
    CU_add_test(s, "glued", test_glued);
}
