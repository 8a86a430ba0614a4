/* Test helpers: see testutil.h. */
#include "testutil.h"

#include <CUnit/CUnit.h>

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *th_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        fprintf(stderr, "test setup: %s is not set (run the tests through ctest)\n", name);
        exit(70);
    }
    return v;
}

char *th_tmpdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char *path = th_fmt("%s/hwrun-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    if (!mkdtemp(path)) {
        perror("mkdtemp");
        exit(70);
    }
    return path;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* HWRUN_TEST_KEEP=1 keeps the tests' directories, to read what a failing run wrote */
void th_rmtree(const char *path)
{
    const char *keep = getenv("HWRUN_TEST_KEEP");
    if (path && keep && *keep && strcmp(keep, "0")) {
        fprintf(stderr, "kept %s\n", path);
        return;
    }
    if (path)
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *th_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s;
    if (vasprintf(&s, fmt, ap) < 0)
        abort();
    va_end(ap);
    return s;
}

void th_sleep(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR)
        ;
}

/* environ plus the extra entries (overriding by name; "K=" removes K). Caller frees the array. */
static char **build_env(char *const extra[])
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **e = calloc(n + m + 1, sizeof *e);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        bool overridden = false;
        for (size_t j = 0; j < m; j++)
            if (strncmp(extra[j], environ[i], kl) == 0 && extra[j][kl] == '=')
                overridden = true;
        if (!overridden)
            e[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++) {
        const char *eq = strchr(extra[j], '=');
        if (eq && eq[1] != '\0')
            e[k++] = extra[j];
    }
    e[k] = NULL;
    return e;
}

static int status_of(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

int th_wait(pid_t pid, double timeout_s)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return status_of(st);
        if (r < 0 && errno != EINTR)
            return -errno;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 > timeout_s)
            return -ETIMEDOUT;
        th_sleep(0.005);
    }
}

/* Every child starts with every signal at its default and none blocked, whoever started the test:
 * a shell that runs it in the background ignores SIGINT and SIGQUIT, and a job inheriting that
 * could not trap them (signals.forward_signals hung so under `test_wall.sh &`). */
static void spawn_attr_init(posix_spawnattr_t *at)
{
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_init(at);
    posix_spawnattr_setsigdefault(at, &all);
    posix_spawnattr_setsigmask(at, &none);
    posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
}

static int spawn(pid_t *pid, char *const argv[], const posix_spawn_file_actions_t *fa,
                 char *const env[])
{
    posix_spawnattr_t at;
    spawn_attr_init(&at);
    char **e = build_env(env);
    int rc = posix_spawn(pid, argv[0], fa, &at, argv, e);
    free(e);
    posix_spawnattr_destroy(&at);
    return rc;
}

pid_t th_spawn(char *const argv[], char *const env[], const char *out_path, const char *err_path)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path ? err_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = spawn(&pid, argv, &fa, env);
    posix_spawn_file_actions_destroy(&fa);
    return rc ? -rc : pid;
}

struct sink {
    int fd;
    char *buf;
    size_t len, cap;
};

static void sink_read(struct sink *s)
{
    if (s->cap - s->len < 4097) {
        s->cap = s->cap * 2 + 8192;
        s->buf = realloc(s->buf, s->cap);
    }
    ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
    if (n > 0)
        s->len += (size_t)n;
    else if (n == 0 || errno != EINTR) {
        close(s->fd);
        s->fd = -1;
    }
}

int th_run(char *const argv[], char *const env[], const char *in_data, double timeout_s,
           struct th_result *r)
{
    memset(r, 0, sizeof *r);
    int po[2], pe[2], pi[2] = {-1, -1};
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
        return -errno;
    if (in_data && pipe2(pi, O_CLOEXEC) < 0)
        return -errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in_data)
        posix_spawn_file_actions_adddup2(&fa, pi[0], 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    pid_t pid;
    int rc = spawn(&pid, argv, &fa, env);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    if (in_data) {
        close(pi[0]);
        if (rc == 0) {
            /* Test inputs are small; a closed pipe just means the program did not read it all. */
            signal(SIGPIPE, SIG_IGN);
            size_t len = strlen(in_data), off = 0;
            while (off < len) {
                ssize_t n = write(pi[1], in_data + off, len - off);
                if (n <= 0)
                    break;
                off += (size_t)n;
            }
        }
        close(pi[1]);
    }
    if (rc) {
        close(po[0]);
        close(pe[0]);
        return -rc;
    }
    struct sink so = {po[0], NULL, 0, 0}, se = {pe[0], NULL, 0, 0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool killed = false;
    while (so.fd >= 0 || se.fd >= 0) {
        struct pollfd p[2] = {{so.fd, POLLIN, 0}, {se.fd, POLLIN, 0}};
        int n = poll(p, 2, 100);
        if (n > 0) {
            if (p[0].revents)
                sink_read(&so);
            if (p[1].revents)
                sink_read(&se);
        }
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        double el = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
        if (!killed && el > timeout_s) {
            fprintf(stderr, "th_run: %s timed out after %.1f s, killing it\n", argv[0], el);
            kill(pid, SIGKILL);
            killed = true;
        }
        if (killed && el > timeout_s + 5)
            break; /* a grandchild keeps the pipe open: stop reading */
    }
    if (so.fd >= 0)
        close(so.fd);
    if (se.fd >= 0)
        close(se.fd);
    int st = th_wait(pid, killed ? 5 : timeout_s + 5);
    if (st == -ETIMEDOUT) {
        kill(pid, SIGKILL);
        st = th_wait(pid, 5);
    }
    r->status = st;
    r->out = so.buf ? so.buf : calloc(1, 1);
    r->out[so.len] = '\0';
    r->out_len = so.len;
    r->err = se.buf ? se.buf : calloc(1, 1);
    r->err[se.len] = '\0';
    r->err_len = se.len;
    return 0;
}

void th_result_free(struct th_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

char *th_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r > 0)
            n += (size_t)r;
        else if (r == 0)
            break;
        else if (errno != EINTR) {
            free(buf);
            close(fd);
            return NULL;
        }
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int th_write_file(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            return -e;
        }
        off += (size_t)n;
    }
    return close(fd) < 0 ? -errno : 0;
}

size_t th_count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

bool th_pid_alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static bool skipped;

bool th_in_ci(void)
{
    const char *v = getenv("CI");
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0;
}

void th_skip_at(const char *why, const char *file, int line)
{
    if (th_in_ci()) {
        char *msg = th_fmt("cannot run under CI (nothing may skip there): %s", why);
        fprintf(stderr, "%s:%d: %s\n", file, line, msg);
        CU_assertImplementation(CU_FALSE, (unsigned)line, msg, file, "", CU_FALSE);
        free(msg);
        return;
    }
    fprintf(stderr, "%s:%d: SKIPPED: %s\n", file, line, why);
    skipped = true;
}

bool th_skipped(void)
{
    return skipped;
}

const char *th_python3(void)
{
    /* Resolved once: python3 on PATH may be a shim (pyenv) that costs a dozen processes per
     * start, which the oracle comparisons would pay hundreds of times. */
    static char exe[4096];
    static int state; /* 0 not asked, 1 found, -1 none */
    if (state)
        return state > 0 ? exe : NULL;
    state = -1;
    char *argv[] = {"/bin/sh", "-c",
                    "exec python3 -c 'import sys; sys.version_info >= (3, 11) or sys.exit(1); "
                    "sys.stdout.write(sys.executable)'",
                    NULL};
    struct th_result r;
    if (th_run(argv, NULL, NULL, 30, &r) != 0)
        return NULL;
    if (r.status == 0 && r.out_len > 0 && r.out_len < sizeof exe && r.out[0] == '/') {
        memcpy(exe, r.out, r.out_len + 1);
        state = 1;
    }
    th_result_free(&r);
    return state > 0 ? exe : NULL;
}

char *th_pytyche_oracle(void)
{
    const char *shared = getenv("HWRUN_SHARED_DIR");
    if (!shared || !*shared)
        return NULL;
    char *path = th_fmt("%s/oracle/pytyche_summary.py", shared);
    if (access(path, R_OK) != 0 || !th_python3()) {
        free(path);
        return NULL;
    }
    return path;
}

/* Can this process load name (with the LOCPATH it has now)? Asked with newlocale, so that the
 * process's own locale stays "C". */
static bool locale_loads(const char *name)
{
    locale_t l = newlocale(LC_ALL_MASK, name, (locale_t)0);
    if (!l)
        return false;
    /* a comma decimal, or it is no test of anything */
    bool comma = strcmp(nl_langinfo_l(RADIXCHAR, l), ",") == 0;
    freelocale(l);
    return comma;
}

const char *th_comma_locale(void)
{
    static const char name[] = "de_DE.UTF-8";
    static int state; /* 0 not asked, 1 loadable, -1 not */
    if (state)
        return state > 0 ? name : NULL;
    state = -1;
    if (locale_loads(name)) {
        state = 1;
        return name;
    }
    const char *build = getenv("HWRUN_BUILD_DIR");
    if (!build || !*build)
        return NULL;
    char *dir = th_fmt("%s/test-locale", build);
    char *made = th_fmt("%s/%s/LC_NUMERIC", dir, name);
    if (access(made, R_OK) != 0) {
        /* compiled into a directory of its own, then renamed into place: parallel tests each
         * either make it or find it whole */
        mkdir(dir, 0755);
        char *tmp = th_fmt("%s/tmp.XXXXXX", dir);
        if (mkdtemp(tmp)) {
            char *out = th_fmt("%s/%s", tmp, name);
            char *final = th_fmt("%s/%s", dir, name);
            char *argv[] = {"/bin/sh", "-c", "exec localedef -i de_DE -f UTF-8 \"$0\"", out, NULL};
            struct th_result r;
            /* localedef exits 1 for warnings too; what matters is whether the locale loads */
            if (th_run(argv, NULL, NULL, 120, &r) == 0) {
                if (access(made, R_OK) != 0 && rename(out, final) != 0)
                    fprintf(stderr, "th_comma_locale: localedef: %s%s", r.err,
                            r.err_len ? "" : "(no message)\n");
                th_result_free(&r);
            }
            th_rmtree(tmp);
            free(out);
            free(final);
        }
        free(tmp);
    }
    free(made);
    setenv("LOCPATH", dir, 1);
    free(dir);
    if (locale_loads(name))
        state = 1;
    else
        unsetenv("LOCPATH");
    return state > 0 ? name : NULL;
}
