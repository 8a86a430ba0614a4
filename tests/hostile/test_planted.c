/* Planted files. Under every name a tool writes or reads in a run directory, plant what an
 * attacker with write access to a shared scratch directory (or an accident) leaves there: a
 * symlink to a file outside, a dangling symlink, a hard link, a FIFO, a directory, a link to
 * /dev/zero. The names come from the run directory's vocabulary (hw_file_names[] and
 * HW_SUMMARY_FILE), so a file kind added there is covered here without editing this test.
 *
 * What every tool must do, whatever is planted:
 *   - finish in bounded time (no open() of a FIFO, no read of /dev/zero for ever);
 *   - leave everything outside the run directory as it was (no write through a link, no file
 *     created at a dangling link's target);
 *   - hwmon never writes into a directory where any run file is planted: it names the file and
 *     runs the job with its run in the next free name (DIR-2), as for a directory that holds a
 *     run already;
 *   - summarize reads what is a regular file, names what it refused, and `--write` replaces
 *     summary.json rather than writing through whatever stands there;
 *   - runlog refuses a run.jsonl that is a FIFO or a directory (exit 1, the reason printed). */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hostile.h"
#include "testutil.h"

enum plant { P_LINK_FILE, P_LINK_DANGLING, P_HARDLINK, P_FIFO, P_DIR, P_DEVZERO, P_COUNT };
static const char *const plant_names[P_COUNT] = {"symlink to a file outside", "dangling symlink",
                                                 "hard link to a file outside", "FIFO",
                                                 "directory", "symlink to /dev/zero"};

/* The names a run directory holds: every run file, then summarize's own output. */
#define N_NAMES (HW_FILE_COUNT + 1)
static const char *name_at(int i)
{
    return i < HW_FILE_COUNT ? hw_file_names[i] : HW_SUMMARY_FILE;
}

/* A tool that is stuck (the bug) is killed after this long; a finished one takes well under a
 * second even on a loaded machine. */
#define BOUND_S 30.0
#define KILLED_BY_TIMEOUT (128 + 9)

static const char precious[] = "precious: not the tool's to write\n";

struct scene {
    char *root;   /* the temporary tree */
    char *run;    /* root/run: the run directory */
    char *victim; /* root/outside/victim: must stay as it was */
    char *ghost;  /* root/outside/ghost: a dangling link's target, must not appear */
    char *planted;
};

static void scene_free(struct scene *s)
{
    th_rmtree(s->root);
    free(s->root);
    free(s->run);
    free(s->victim);
    free(s->ghost);
    free(s->planted);
}

/* Copy the committed run `from` (NULL: none) into a fresh run directory, then put plant p
 * where `name` stands. */
static int scene_make(struct scene *s, const char *from, const char *name, enum plant p)
{
    memset(s, 0, sizeof *s);
    s->root = th_tmpdir("planted");
    s->run = th_fmt("%s/run", s->root);
    char *outside = th_fmt("%s/outside", s->root);
    s->victim = th_fmt("%s/victim", outside);
    s->ghost = th_fmt("%s/ghost", outside);
    s->planted = th_fmt("%s/%s", s->run, name);
    int rc = 0;
    if (mkdir(s->run, 0755) < 0 || mkdir(outside, 0755) < 0)
        rc = -errno;
    free(outside);
    if (rc == 0)
        rc = th_write_file(s->victim, precious, sizeof precious - 1);
    if (rc == 0 && from) {
        char *src_dir = th_fmt("%s/runs/%s", th_env("HWRUN_TESTDATA"), from);
        for (int i = 0; i < HW_FILE_COUNT && rc == 0; i++) {
            char *src = th_fmt("%s/%s", src_dir, hw_file_names[i]);
            size_t n;
            char *data = th_read_file(src, &n);
            if (data) {
                char *dst = th_fmt("%s/%s", s->run, hw_file_names[i]);
                rc = th_write_file(dst, data, n);
                free(dst);
                free(data);
            }
            free(src);
        }
        free(src_dir);
    }
    if (rc < 0)
        return rc;
    unlink(s->planted); /* the copy's own file, if any, makes way for the plant */
    switch (p) {
    case P_LINK_FILE: rc = symlink(s->victim, s->planted); break;
    case P_LINK_DANGLING: rc = symlink(s->ghost, s->planted); break;
    case P_HARDLINK: rc = link(s->victim, s->planted); break;
    case P_FIFO: rc = mkfifo(s->planted, 0644); break;
    case P_DIR: rc = mkdir(s->planted, 0755); break;
    case P_DEVZERO: rc = symlink("/dev/zero", s->planted); break;
    default: rc = -1; errno = EINVAL;
    }
    return rc < 0 ? -errno : 0;
}

/* Nothing outside the run directory changed: the victim holds what it held, with one link
 * more only where the test itself made a hard link, and the ghost was never created. */
static void check_outside(const struct scene *s, const char *tool, const char *name,
                          enum plant p)
{
    size_t n = 0;
    char *v = th_read_file(s->victim, &n);
    bool same = v && n == sizeof precious - 1 && memcmp(v, precious, n) == 0;
    free(v);
    if (!same)
        fprintf(stderr, "%s wrote through %s planted as %s\n", tool, name, plant_names[p]);
    CU_ASSERT(same);
    struct stat st;
    bool ghost = lstat(s->ghost, &st) == 0;
    if (ghost)
        fprintf(stderr, "%s created the target of %s planted as %s\n", tool, name,
                plant_names[p]);
    CU_ASSERT(!ghost);
}

static void check_bounded(const struct th_result *r, const char *tool, const char *name,
                          enum plant p)
{
    bool stuck = r->status == KILLED_BY_TIMEOUT;
    if (stuck)
        fprintf(stderr, "%s hung on %s planted as %s\n", tool, name, plant_names[p]);
    CU_ASSERT_FATAL(!stuck);
    /* never a crash: a status the man page documents, not a signal */
    bool crashed = r->status > 128;
    if (crashed)
        fprintf(stderr, "%s died (status %d) on %s planted as %s\n%s", tool, r->status, name,
                plant_names[p], r->err ? r->err : "");
    CU_ASSERT(!crashed);
}

/* ---- hwmon ---- */

static void test_hwmon(void)
{
    const char *hwmon = th_env("HWRUN_HWMON_BIN"), *smi = th_env("HWRUN_FAKE_SMI");
    for (int i = 0; i < N_NAMES; i++) {
        const char *name = name_at(i);
        for (int p = 0; p < P_COUNT; p++) {
            struct scene s;
            CU_ASSERT_FATAL(scene_make(&s, NULL, name, (enum plant)p) == 0);
            char *marker = th_fmt("%s/job-ran", s.root);
            char *job = th_fmt("touch '%s'", marker);
            char *argv[] = {(char *)hwmon, "-q",  "--nvidia-smi", (char *)smi, "-i", "0.1",
                            "-o",          s.run, "--",           "sh",        "-c", job,
                            NULL};
            struct th_result r;
            CU_ASSERT_FATAL(th_run(argv, NULL, NULL, BOUND_S, &r) == 0);
            check_bounded(&r, "hwmon", name, (enum plant)p);
            check_outside(&s, "hwmon", name, (enum plant)p);
            struct stat st;
            bool ran = stat(marker, &st) == 0;
            if (i < HW_FILE_COUNT) {
                /* a run file is in the way: said which, and the job runs all the same, its run
                 * whole in the next name */
                char *next = th_fmt("%s-2/%s", s.run, HW_RUNLOG_FILE);
                char *log = th_read_file(next, NULL);
                bool whole = log && strstr(log, "\"event\": \"" HW_EV_STOP "\"");
                if (r.status != 0 || !ran || !strstr(r.err, name) || !whole)
                    fprintf(stderr, "hwmon with %s planted as %s: status %d, job %s\n%s", name,
                            plant_names[p], r.status, ran ? "ran" : "did not run", r.err);
                CU_ASSERT(r.status == 0);
                CU_ASSERT(ran);
                CU_ASSERT(strstr(r.err, name) != NULL);
                CU_ASSERT(whole);
                free(log);
                free(next);
            } else {
                /* summary.json is summarize's: hwmon runs around it */
                CU_ASSERT(r.status == 0);
                CU_ASSERT(ran);
            }
            th_result_free(&r);
            free(job);
            free(marker);
            scene_free(&s);
        }
    }
}

/* ---- summarize ---- */

static void test_summarize_reads(void)
{
    const char *sum = th_env("HWRUN_SUMMARIZE_BIN");
    for (int i = 0; i < HW_FILE_COUNT; i++) {
        const char *name = name_at(i);
        for (int p = 0; p < P_COUNT; p++) {
            struct scene s;
            CU_ASSERT_FATAL(scene_make(&s, "basic", name, (enum plant)p) == 0);
            char *argv[] = {(char *)sum, "--format", "json", s.run, NULL};
            struct th_result r;
            CU_ASSERT_FATAL(th_run(argv, NULL, NULL, BOUND_S, &r) == 0);
            check_bounded(&r, "summarize", name, (enum plant)p);
            check_outside(&s, "summarize", name, (enum plant)p);
            /* the rest of the run is still summarized; a file that cannot be read is exit
             * status 1 (summarize(1)), a link to a regular file is read as the file */
            bool unreadable = p == P_FIFO || p == P_DIR || p == P_DEVZERO;
            CU_ASSERT(r.status == (unreadable ? 1 : 0));
            CU_ASSERT(r.out && strstr(r.out, "\"gpus\"") != NULL);
            /* what is not a regular file is named, never read */
            if (unreadable) {
                bool named = (r.err && strstr(r.err, name)) || (r.out && strstr(r.out, name));
                if (!named)
                    fprintf(stderr, "summarize did not name %s planted as %s\n%s", name,
                            plant_names[p], r.err);
                CU_ASSERT(named);
            }
            th_result_free(&r);
            /* pytyche's reader too (its own read path): bounded, and a FIFO named */
            char *py[] = {(char *)sum, "--format", "pytyche", s.run, NULL};
            CU_ASSERT_FATAL(th_run(py, NULL, NULL, BOUND_S, &r) == 0);
            check_bounded(&r, "summarize --format pytyche", name, (enum plant)p);
            if (unreadable && r.status != 1 && r.status != 0)
                fprintf(stderr, "pytyche format with %s as %s: %d\n", name, plant_names[p],
                        r.status);
            CU_ASSERT(r.status == 0 || r.status == 1);
            if (unreadable && r.status == 1)
                CU_ASSERT(r.err && strstr(r.err, name) != NULL);
            th_result_free(&r);
            scene_free(&s);
        }
    }
}

/* summarize --write puts summary.json in the run directory: it replaces what stands there
 * (rename(2) replaces a link, it does not follow it) and never opens a FIFO. */
static void test_summarize_writes(void)
{
    const char *sum = th_env("HWRUN_SUMMARIZE_BIN");
    for (int p = 0; p < P_COUNT; p++) {
        struct scene s;
        CU_ASSERT_FATAL(scene_make(&s, "basic", HW_SUMMARY_FILE, (enum plant)p) == 0);
        char *argv[] = {(char *)sum, "--write", s.run, NULL};
        struct th_result r;
        CU_ASSERT_FATAL(th_run(argv, NULL, NULL, BOUND_S, &r) == 0);
        check_bounded(&r, "summarize --write", HW_SUMMARY_FILE, (enum plant)p);
        check_outside(&s, "summarize --write", HW_SUMMARY_FILE, (enum plant)p);
        struct stat st;
        if (p == P_DIR) {
            /* a directory cannot be replaced by a file: an error, and nothing written */
            CU_ASSERT(r.status == 1);
            CU_ASSERT(strstr(r.err, HW_SUMMARY_FILE) != NULL);
        } else {
            CU_ASSERT(r.status == 0);
            CU_ASSERT(lstat(s.planted, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1);
        }
        th_result_free(&r);
        scene_free(&s);
    }
}

/* ---- runlog ---- */

static void test_runlog(void)
{
    const char *runlog = th_env("HWRUN_RUNLOG_BIN");
    for (int p = 0; p < P_COUNT; p++) {
        struct scene s;
        CU_ASSERT_FATAL(scene_make(&s, NULL, HW_RUNLOG_FILE, (enum plant)p) == 0);
        char *env_file = th_fmt("RUNLOG_FILE=%s", s.planted);
        char *env[] = {env_file, NULL};
        char *argv[] = {(char *)runlog, "event", "planted", "k=1", NULL};
        struct th_result r;
        CU_ASSERT_FATAL(th_run(argv, env, NULL, BOUND_S, &r) == 0);
        check_bounded(&r, "runlog", HW_RUNLOG_FILE, (enum plant)p);
        if (p == P_FIFO || p == P_DIR) {
            /* not a file a log can be: refused with the reason (a character device such as
             * /dev/null is a log that discards, and is accepted) */
            CU_ASSERT(r.status == 1);
            CU_ASSERT(r.err && strstr(r.err, HW_RUNLOG_FILE) != NULL);
        }
        th_result_free(&r);
        free(env_file);
        scene_free(&s);
    }
}

/* ---- claiming a run directory ---- */

/* Two hwmon started at the same moment on the same new directory: exactly one takes it, the
 * other takes DIR-2; both jobs run, and neither run touches the other's files. Twenty rounds:
 * the race was lost in 1 to 12 of 20 before the claim was atomic. */
static void test_race(void)
{
    const char *hwmon = th_env("HWRUN_HWMON_BIN"), *smi = th_env("HWRUN_FAKE_SMI");
    char *root = th_tmpdir("race");
    for (int round = 0; round < 20; round++) {
        char *run = th_fmt("%s/r%d/run", root, round);
        char *marks = th_fmt("%s/r%d.ran", root, round);
        char *job = th_fmt("echo x >> '%s'", marks);
        char *argv[] = {(char *)hwmon, "-q", "--nvidia-smi", (char *)smi, "-i", "0.1", "-o", run,
                        "--", "sh", "-c", job, NULL};
        char *e0 = th_fmt("%s/r%d.err0", root, round), *e1 = th_fmt("%s/r%d.err1", root, round);
        pid_t a = th_spawn(argv, NULL, NULL, e0), b = th_spawn(argv, NULL, NULL, e1);
        CU_ASSERT_FATAL(a > 0 && b > 0);
        int sa = th_wait(a, BOUND_S), sb = th_wait(b, BOUND_S);
        size_t n = 0;
        char *ran = th_read_file(marks, &n);
        size_t jobs = ran ? th_count_lines(ran) : 0;
        if (sa != 0 || sb != 0 || jobs != 2)
            fprintf(stderr, "round %d: statuses %d and %d, the job ran %zu times\n", round, sa, sb,
                    jobs);
        CU_ASSERT(sa == 0 && sb == 0);
        CU_ASSERT_EQUAL(jobs, 2);
        /* each run is whole, in a directory of its own: its start and stop events, its samples */
        for (int k = 0; k < 2; k++) {
            char *dir = k ? th_fmt("%s-2", run) : th_fmt("%s", run);
            char *log = th_fmt("%s/%s", dir, HW_RUNLOG_FILE);
            char *text = th_read_file(log, &n);
            CU_ASSERT(text && th_count_lines(text) == 2);
            CU_ASSERT(text && strstr(text, "\"event\": \"" HW_EV_START "\""));
            CU_ASSERT(text && strstr(text, "\"event\": \"" HW_EV_STOP "\""));
            char *cpu = th_fmt("%s/%s", dir, HW_CPU_FILE);
            struct stat st;
            CU_ASSERT(stat(cpu, &st) == 0);
            free(cpu);
            free(text);
            free(log);
            free(dir);
        }
        free(ran);
        free(e0);
        free(e1);
        free(job);
        free(marks);
        free(run);
    }
    th_rmtree(root);
    free(root);
}

/* A -o path too long for the run's files is refused before anything is made. */
static void test_long_path(void)
{
    const char *hwmon = th_env("HWRUN_HWMON_BIN");
    char *root = th_tmpdir("longpath");
    char deep[4200];
    int n = snprintf(deep, sizeof deep, "%s", root);
    while (n < 4080)
        n += snprintf(deep + n, sizeof deep - (size_t)n, "/%s", "dddddddddddddddddddddddddddddd");
    char *argv[] = {(char *)hwmon, "-q", "--no-gpu", "-o", deep, "--", "true", NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, BOUND_S, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 125);
    char *first = th_fmt("%s/dddddddddddddddddddddddddddddd", root);
    struct stat st;
    bool left = stat(first, &st) == 0;
    if (left)
        fprintf(stderr, "hwmon left %s behind\n%s", first, r.err);
    CU_ASSERT(!left);
    /* and a start that fails later (no such process to attach to) removes what it made */
    char *made = th_fmt("%s/a/b/c", root);
    char *argv2[] = {(char *)hwmon, "-q", "--no-gpu", "-o", made, "-p", "999999999", NULL};
    th_result_free(&r);
    CU_ASSERT_FATAL(th_run(argv2, NULL, NULL, BOUND_S, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 125);
    char *a = th_fmt("%s/a", root);
    CU_ASSERT(stat(a, &st) < 0 && errno == ENOENT);
    free(a);
    free(made);
    th_result_free(&r);
    free(first);
    th_rmtree(root);
    free(root);
}

/* Another user's file or link in a shared directory: a run.jsonl that is not the user's own, and
 * a -o that is another user's symbolic link, are never written through: the run goes to the next
 * free name, said. Needs root, to make such files. */
static void test_other_users(void)
{
    if (geteuid() != 0) {
        th_skip("making another user's files needs root");
        return;
    }
    const char *hwmon = th_env("HWRUN_HWMON_BIN");
    char *root = th_tmpdir("owners");
    char *run = th_fmt("%s/run", root);
    CU_ASSERT_FATAL(mkdir(run, 0777) == 0);
    char *log = th_fmt("%s/%s", run, HW_RUNLOG_FILE);
    CU_ASSERT_FATAL(th_write_file(log, "", 0) == 0);
    CU_ASSERT_FATAL(chown(log, 65534, 65534) == 0);
    char *argv[] = {(char *)hwmon, "-q", "--no-gpu", "-o", run, "--", "true", NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, BOUND_S, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "belongs to another user"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "it was taken"));
    th_result_free(&r);
    /* their link as -o: sends the run where they chose */
    char *theirs = th_fmt("%s/theirs", root), *link = th_fmt("%s/link", root);
    CU_ASSERT_FATAL(mkdir(theirs, 0777) == 0);
    CU_ASSERT_FATAL(symlink(theirs, link) == 0);
    CU_ASSERT_FATAL(lchown(link, 65534, 65534) == 0);
    argv[4] = link;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, BOUND_S, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "symbolic link owned by another user"));
    char *cpu = th_fmt("%s/%s", theirs, HW_CPU_FILE);
    struct stat st;
    CU_ASSERT(stat(cpu, &st) < 0);
    th_result_free(&r);
    /* the user's own link is the user's choice: followed */
    CU_ASSERT_FATAL(lchown(link, 0, 0) == 0);
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, BOUND_S, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT(stat(cpu, &st) == 0);
    th_result_free(&r);
    free(cpu);
    free(theirs);
    free(link);
    free(log);
    free(run);
    th_rmtree(root);
    free(root);
}

void cu_register_all(void)
{
    CU_pSuite s = th_add_suite("planted", NULL, NULL, 600);
    CU_add_test(s, "hwmon", test_hwmon);
    CU_add_test(s, "summarize_reads", test_summarize_reads);
    CU_add_test(s, "summarize_writes", test_summarize_writes);
    CU_add_test(s, "runlog", test_runlog);
    s = th_add_suite("claim", NULL, NULL, 300);
    CU_add_test(s, "race", test_race);
    CU_add_test(s, "long_path", test_long_path);
    CU_add_test(s, "other_users", test_other_users);
    hostile_register_output();
    hostile_register_lifecycle();
    hostile_register_fulldisk();
    hostile_register_escapes();
}
