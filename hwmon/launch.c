/* Starting and probing nvidia-smi (see launch.h). After libuv's process.c and tini: signals
 * blocked around fork, the child resets dispositions and mask, and reports an exec failure as
 * an errno over an O_CLOEXEC pipe; only async-signal-safe calls between fork and exec, since
 * hwmon has a sampler thread. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwrun/timeutil.h"

extern char **environ;

int mon_find_exec(const char *name, char *out, size_t cap)
{
    if (strchr(name, '/')) {
        if (strlen(name) + 1 > cap)
            return -ENAMETOOLONG;
        if (access(name, X_OK) < 0)
            return -errno;
        strcpy(out, name); /* length checked above */
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int err = -ENOENT;
    for (const char *p = path;;) {
        const char *c = strchr(p, ':');
        size_t dl = c ? (size_t)(c - p) : strlen(p);
        char buf[PATH_MAX];
        int n = dl ? snprintf(buf, sizeof buf, "%.*s/%s", (int)dl, p, name)
                   : snprintf(buf, sizeof buf, "./%s", name);
        if (n > 0 && (size_t)n < sizeof buf) {
            struct stat st;
            if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
                if (access(buf, X_OK) == 0) {
                    if ((size_t)n + 1 > cap)
                        return -ENAMETOOLONG;
                    memcpy(out, buf, (size_t)n + 1);
                    return 0;
                }
                err = -EACCES;
            }
        }
        if (!c)
            break;
        p = c + 1;
    }
    return err;
}

/* Is entry "K=..." named by one of over[0..n)? */
static bool overridden(const char *entry, char *const over[], size_t n)
{
    const char *eq = strchr(entry, '=');
    size_t kl = eq ? (size_t)(eq - entry) : strlen(entry);
    for (size_t j = 0; j < n; j++)
        if (strncmp(over[j], entry, kl) == 0 && over[j][kl] == '=')
            return true;
    return false;
}

char **mon_env_with(const char *const extra[])
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **e = calloc(n + m + 2, sizeof *e);
    if (!e)
        return NULL;
    size_t k = 0;
    if (!(e[k++] = strdup("TZ=UTC")))
        goto oom;
    for (size_t i = 0; i < m; i++)
        if (!(e[k++] = strdup(extra[i])))
            goto oom;
    size_t ours = k;
    for (size_t i = 0; i < n; i++)
        if (!overridden(environ[i], e, ours) && !(e[k++] = strdup(environ[i])))
            goto oom;
    return e;
oom:
    mon_env_free(e);
    return NULL;
}

void mon_env_free(char **env)
{
    if (!env)
        return;
    for (size_t i = 0; env[i]; i++)
        free(env[i]);
    free(env);
}

static _Noreturn void child_exec(const char *path, char *const argv[], char *const envp[],
                                 int in_fd, int out_fd, int err_fd, int ep_w, pid_t parent)
{
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL); /* undo SIG_IGN of SIGPIPE and friends */
    sigset_t none;
    sigemptyset(&none);
    int e = 0;
    if (setpgid(0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        e = errno;
    else if (getppid() != parent) /* hwmon died before the prctl: don't outlive it */
        _exit(127);
    else if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
             dup2(err_fd, STDERR_FILENO) < 0 || sigprocmask(SIG_SETMASK, &none, NULL) < 0)
        e = errno;
    else {
        execve(path, argv, envp);
        e = errno;
    }
    (void)!write(ep_w, &e, sizeof e);
    _exit(127);
}

int mon_spawn(const char *path, char *const argv[], char *const envp[], int out_fd, int err_fd,
              pid_t *pid_out)
{
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0)
        return -errno;
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) < 0) {
        int e = errno;
        close(null_fd);
        return -e;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(path, argv, envp, null_fd, out_fd >= 0 ? out_fd : null_fd,
                   err_fd >= 0 ? err_fd : null_fd, ep[1], parent);
    int fork_err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(ep[1]);
    close(null_fd);
    if (pid < 0) {
        close(ep[0]);
        return -fork_err;
    }
    /* By the time the exec pipe reports, the child has run setpgid(0, 0): kill(-pid) works. */
    int child_err = 0;
    ssize_t n;
    do
        n = read(ep[0], &child_err, sizeof child_err);
    while (n < 0 && errno == EINTR);
    close(ep[0]);
    if (n == (ssize_t)sizeof child_err) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return -(child_err ? child_err : ECHILD);
    }
    *pid_out = pid;
    return 0;
}

static sigset_t probe_abort;
static bool probe_abort_set;

void mon_probe_abort_on(const sigset_t *abort)
{
    probe_abort_set = abort != NULL;
    if (abort)
        probe_abort = *abort;
}

/* one of the probe's abort signals is pending */
static bool probe_aborted(void)
{
    sigset_t pend;
    if (!probe_abort_set || sigpending(&pend) < 0)
        return false;
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&probe_abort, sig) == 1 && sigismember(&pend, sig) == 1)
            return true;
    return false;
}

int mon_probe(const char *path, char *const argv[], char *const envp[], double timeout_s, char *out,
              size_t cap, int *status)
{
    if (probe_aborted())
        return -EINTR;
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    pid_t pid;
    int rc = mon_spawn(path, argv, envp, p[1], p[1], &pid);
    close(p[1]);
    if (rc < 0) {
        close(p[0]);
        return rc;
    }
    size_t len = 0;
    double deadline = hw_mono_now() + timeout_s;
    bool timed_out = false, aborted = false;
    for (;;) {
        double left = deadline - hw_mono_now();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        if (probe_aborted()) {
            timed_out = aborted = true;
            break;
        }
        if (probe_abort_set && left > 0.05)
            left = 0.05;
        struct pollfd pf = {p[0], POLLIN, 0};
        int r = poll(&pf, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        char tmp[4096];
        ssize_t n = read(p[0], tmp, sizeof tmp);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t take = (size_t)n;
        if (cap && take > cap - 1 - len)
            take = cap - 1 - len;
        memcpy(out + len, tmp, take);
        len += take;
    }
    close(p[0]);
    if (cap)
        out[len] = '\0';
    if (timed_out)
        kill(-pid, SIGKILL);
    int st = 0;
    pid_t w;
    /* EOF can come before exit (a grandchild holding the pipe): give it the rest of the time */
    double hard = hw_mono_now() + (timed_out ? 5 : timeout_s);
    while ((w = waitpid(pid, &st, WNOHANG)) == 0 && hw_mono_now() < hard) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    if (w == 0) {
        kill(-pid, SIGKILL);
        timed_out = true;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    *status = timed_out ? 124 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return aborted ? -EINTR : 0;
}
