/* librunlog keeps to its name (rl_follow): a log renamed, deleted or moved away by a rotation is
 * made again, its first line saying where the earlier lines are; a name that cannot be opened
 * again gets no line at all; many writers rotating under each other lose and split no line. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "runlog.h"
#include "testutil.h"

static char *dir;

static int rot_init(void)
{
    dir = th_tmpdir("runlog-rotation");
    return 0;
}

static int rot_clean(void)
{
    th_rmtree(dir);
    free(dir);
    return 0;
}

/* The n-th line (0-based) of path, parsed; NULL when there is none. */
static json_object *line_of(const char *path, int n)
{
    char *text = th_read_file(path, NULL);
    if (!text)
        return NULL;
    char *s = text;
    for (int i = 0; i < n && s; i++) {
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    json_object *o = s && *s ? json_tokener_parse(s) : NULL;
    free(text);
    return o;
}

static const char *get(json_object *o, const char *a, const char *b)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, a, &v))
        return NULL;
    if (b && !json_object_object_get_ex(v, b, &v))
        return NULL;
    return json_object_get_string(v);
}

/* The first line of a log made again says log_continued, with previous as expected (NULL: the
 * JSON null), the writer's pid and severity info; the line after it is the event "next". */
static void check_continued(const char *path, const char *previous, const char *next)
{
    json_object *first = line_of(path, 0), *second = line_of(path, 1), *p;
    CU_ASSERT_STRING_EQUAL(get(first, "event", NULL), HW_EV_LOG_CONTINUED);
    CU_ASSERT_TRUE(first && json_object_object_get_ex(json_object_object_get(first, "data"),
                                                      HW_LOG_PREVIOUS, &p));
    if (previous) {
        CU_ASSERT_STRING_EQUAL(get(first, "data", HW_LOG_PREVIOUS), previous);
        if (strcmp(get(first, "data", HW_LOG_PREVIOUS) ?: "", previous))
            fprintf(stderr, "previous: %s, not %s\n", get(first, "data", HW_LOG_PREVIOUS), previous);
    } else {
        CU_ASSERT_TRUE(first && json_object_is_type(p, json_type_null));
    }
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    CU_ASSERT_STRING_EQUAL(get(first, "data", "pid"), pid);
    CU_ASSERT_STRING_EQUAL(get(first, "data", HW_EV_SEVERITY), HW_EV_SEVERITY_INFO);
    CU_ASSERT_STRING_EQUAL(get(second, "event", NULL), next);
    json_object_put(first);
    json_object_put(second);
}

/* Renamed (logrotate's default), deleted, moved to another directory: each time the next line
 * makes the name again, and the earlier lines stay where the rotation put them. The umask is
 * kept. */
static void test_renamed_deleted_moved(void)
{
    char *path = th_fmt("%s/run.jsonl", dir), *p1 = th_fmt("%s/run.jsonl.1", dir);
    char *sub = th_fmt("%s/archive", dir), *moved = th_fmt("%s/archive/old.jsonl", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
    mode_t old_mask = umask(027);
    rl_log_t *log = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, path, 0), 0);
    CU_ASSERT_EQUAL(rl_event(log, "a", NULL, 0), 0);
    CU_ASSERT_EQUAL(rename(path, p1), 0);
    CU_ASSERT_EQUAL(rl_event(log, "b", NULL, 0), 0);
    check_continued(path, "run.jsonl.1", "b");
    char *first = th_read_file(p1, NULL);
    CU_ASSERT_EQUAL(th_count_lines(first), 1); /* a alone */
    free(first);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);

    CU_ASSERT_EQUAL(unlink(path), 0);
    CU_ASSERT_EQUAL(rl_event(log, "c", NULL, 0), 0);
    check_continued(path, NULL, "c");

    CU_ASSERT_EQUAL(rename(path, moved), 0);
    CU_ASSERT_EQUAL(rl_event(log, "d", NULL, 0), 0);
    check_continued(path, moved, "d");
    /* nothing more is made while the name stays */
    CU_ASSERT_EQUAL(rl_event(log, "e", NULL, 0), 0);
    char *text = th_read_file(path, NULL);
    CU_ASSERT_EQUAL(th_count_lines(text), 3);
    free(text);
    /* a plain name: a link put there after a rotation (another user, a shared directory) is
     * not followed, and no line goes anywhere */
    char *victim = th_fmt("%s/victim", dir);
    CU_ASSERT_EQUAL(th_write_file(victim, "", 0), 0);
    CU_ASSERT_EQUAL(unlink(path), 0);
    CU_ASSERT_EQUAL(symlink(victim, path), 0);
    CU_ASSERT_EQUAL(rl_event(log, "f", NULL, 0), -ELOOP);
    size_t n = 1;
    free(th_read_file(victim, &n));
    CU_ASSERT_EQUAL(n, 0);
    free(victim);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    umask(old_mask);
    free(path);
    free(p1);
    free(sub);
    free(moved);
}

/* A log opened by the caller (hwmon's run.jsonl, no link followed) follows its name only once
 * asked; something other than a regular file put at the name gets no line: the call fails and
 * neither the link's target nor the renamed file receives it. */
static void test_follow_refusals(void)
{
    char *path = th_fmt("%s/own.jsonl", dir), *p1 = th_fmt("%s/own.jsonl.1", dir);
    char *target = th_fmt("%s/elsewhere", dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    CU_ASSERT_FATAL(dfd >= 0 && fd >= 0);
    rl_log_t *log = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_fdopen(&log, fd, 0), 0);
    CU_ASSERT_EQUAL(rl_follow(log, dfd, "a/b"), -EINVAL);
    CU_ASSERT_EQUAL(rl_follow(log, dfd, ""), -EINVAL);
    CU_ASSERT_EQUAL(rl_follow(NULL, dfd, "own.jsonl"), -EINVAL);
    /* not following yet: the line goes where the descriptor points, as documented */
    CU_ASSERT_EQUAL(rename(path, p1), 0);
    CU_ASSERT_EQUAL(rl_event(log, "a", NULL, 0), 0);
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
    CU_ASSERT_EQUAL(rename(p1, path), 0);
    CU_ASSERT_EQUAL(rl_follow(log, dfd, "own.jsonl"), 0);
    CU_ASSERT_EQUAL(rl_follow(log, dfd, "own.jsonl"), -EINVAL); /* once */
    CU_ASSERT_EQUAL(rename(path, p1), 0);
    CU_ASSERT_EQUAL(th_write_file(target, "", 0), 0);
    CU_ASSERT_EQUAL(symlink(target, path), 0);
    CU_ASSERT_EQUAL(rl_event(log, "b", NULL, 0), -ELOOP);
    size_t n = 1;
    free(th_read_file(target, &n));
    CU_ASSERT_EQUAL(n, 0);
    char *old = th_read_file(p1, NULL);
    CU_ASSERT_EQUAL(th_count_lines(old), 1);
    free(old);
    /* the link gone, the name is made again */
    CU_ASSERT_EQUAL(unlink(path), 0);
    CU_ASSERT_EQUAL(rl_event(log, "c", NULL, 0), 0);
    check_continued(path, "own.jsonl.1", "c");
    CU_ASSERT_EQUAL(rl_close(log), 0);
    /* a character device has no name to lose */
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, "/dev/null", 0), 0);
    CU_ASSERT_EQUAL(rl_follow(log, dfd, "null"), -EINVAL);
    CU_ASSERT_EQUAL(rl_event(log, "d", NULL, 0), 0);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    close(dfd);
    free(path);
    free(p1);
    free(target);
}

/* A log reached through the caller's own link (RUNLOG_FILE=logs/latest.jsonl -> run.jsonl):
 * its file renamed away by a rotation, the link's target is made again, as rl_open() made it,
 * with the log_continued line first (previous: where the old file is now). What is watched is
 * the directory holding the name (rl_follow): here the link's and the file's are one. */
static void test_through_a_link(void)
{
    char *logs = th_fmt("%s/logs", dir), *target = th_fmt("%s/logs/run.jsonl", dir);
    char *old = th_fmt("%s/logs/run.jsonl.1", dir), *link = th_fmt("%s/logs/latest.jsonl", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(logs, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(symlink("run.jsonl", link), 0);
    rl_log_t *log = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_open(&log, link, 0), 0); /* makes logs/run.jsonl */
    CU_ASSERT_EQUAL(rl_event(log, "a", NULL, 0), 0);
    CU_ASSERT_EQUAL(rename(target, old), 0);
    CU_ASSERT_EQUAL(rl_event(log, "b", NULL, 0), 0);
    check_continued(target, "run.jsonl.1", "b");
    struct stat st;
    CU_ASSERT_EQUAL(lstat(link, &st), 0);
    CU_ASSERT_TRUE(S_ISLNK(st.st_mode)); /* the link stays a link */
    char *o = th_read_file(old, NULL);
    CU_ASSERT_EQUAL(th_count_lines(o), 1);
    free(o);
    CU_ASSERT_EQUAL(rl_close(log), 0);
    free(logs);
    free(target);
    free(old);
    free(link);
}

/* ---- many writers while the log is rotated under them ---- */

enum { RPROCS = 4, RTHREADS = 3, RLINES = 400, ROTATIONS = 6 };

struct rwriter {
    rl_log_t *log;
    int proc, thread;
};

static void *rwriter_main(void *arg)
{
    struct rwriter *w = arg;
    for (int i = 0; i < RLINES; i++) {
        rl_field_t f[] = {RL_INT("proc", w->proc), RL_INT("thread", w->thread),
                          RL_INT("seq", i)};
        if (rl_event(w->log, "load", f, 3) < 0)
            return (void *)1;
        if (i % 50 == 0)
            usleep(1000);
    }
    return NULL;
}

/* Every file of the rotation, read: each line whole, each writer's line once; each file made
 * again starts with one log_continued that names the file before it. */
static void test_rotated_under_writers(void)
{
    char *path = th_fmt("%s/busy.jsonl", dir);
    pid_t pids[RPROCS];
    for (int p = 0; p < RPROCS; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            rl_log_t *log = NULL;
            if (rl_open(&log, path, 0) < 0)
                _exit(2);
            pthread_t th[RTHREADS];
            struct rwriter w[RTHREADS];
            for (int t = 0; t < RTHREADS; t++) {
                w[t] = (struct rwriter){log, p, t};
                pthread_create(&th[t], NULL, rwriter_main, &w[t]);
            }
            int bad = 0;
            for (int t = 0; t < RTHREADS; t++) {
                void *r;
                pthread_join(th[t], &r);
                bad |= r != NULL;
            }
            _exit(rl_close(log) < 0 || bad);
        }
    }
    int rotated = 0;
    for (int k = 1; k <= ROTATIONS; k++) {
        th_sleep(0.03);
        char *to = th_fmt("%s.%d", path, k);
        rotated += rename(path, to) == 0;
        free(to);
    }
    for (int p = 0; p < RPROCS; p++) {
        int st;
        waitpid(pids[p], &st, 0);
        CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CU_ASSERT(rotated >= 1);
    static unsigned char seen[RPROCS][RTHREADS][RLINES];
    memset(seen, 0, sizeof seen);
    size_t bad = 0, continued = 0, files = 0;
    for (int k = 0; k <= ROTATIONS; k++) {
        char *p = k ? th_fmt("%s.%d", path, k) : th_fmt("%s", path);
        char *text = th_read_file(p, NULL);
        if (!text) {
            free(p);
            continue;
        }
        files++;
        int n = 0;
        for (char *s = text; *s; n++) {
            char *nl = strchr(s, '\n');
            CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
            *nl = '\0';
            json_object *o = json_tokener_parse(s);
            const char *ev = get(o, "event", NULL);
            if (ev && !strcmp(ev, HW_EV_LOG_CONTINUED)) {
                continued++;
                CU_ASSERT_EQUAL(n, 0); /* first, always */
                const char *prev = get(o, "data", HW_LOG_PREVIOUS);
                CU_ASSERT_TRUE(prev && !strncmp(prev, "busy.jsonl.", 11));
            } else {
                const char *pp = get(o, "data", "proc"), *tt = get(o, "data", "thread"),
                           *qq = get(o, "data", "seq");
                int a = pp ? atoi(pp) : -1, b = tt ? atoi(tt) : -1, c = qq ? atoi(qq) : -1;
                if (!o || a < 0 || a >= RPROCS || b < 0 || b >= RTHREADS || c < 0 || c >= RLINES)
                    bad++;
                else
                    seen[a][b][c]++;
            }
            json_object_put(o);
            s = nl + 1;
        }
        free(text);
        free(p);
    }
    CU_ASSERT_EQUAL(bad, 0);
    size_t once = 0;
    for (int a = 0; a < RPROCS; a++)
        for (int b = 0; b < RTHREADS; b++)
            for (int c = 0; c < RLINES; c++)
                once += seen[a][b][c] == 1;
    CU_ASSERT_EQUAL(once, (size_t)RPROCS * RTHREADS * RLINES);
    /* every rotation that found the file made one new one, with one log_continued */
    CU_ASSERT_EQUAL(continued, files - 1);
    free(path);
}

void add_rotation_suite(void);
void add_rotation_suite(void)
{
    CU_pSuite s = th_add_suite("rotation", rot_init, rot_clean, 120);
    CU_add_test(s, "renamed_deleted_moved", test_renamed_deleted_moved);
    CU_add_test(s, "follow_refusals", test_follow_refusals);
    CU_add_test(s, "through_a_link", test_through_a_link);
    CU_add_test(s, "rotated_under_writers", test_rotated_under_writers);
}
