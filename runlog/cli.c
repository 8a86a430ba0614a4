/* runlog's command-line logic: typed KEY=VALUE arguments and running a timed command. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "hwrun/parse.h"
#include "hwrun/timeutil.h"

extern char **environ;

/* JSON's number grammar exactly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *s, bool *integral)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return false;
    *integral = true;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
        *integral = false;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
        *integral = false;
    }
    return *p == '\0';
}

int rl_cli_parse_kv(char *arg, rl_field_t *out)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return -EINVAL;
    *eq = '\0';
    const char *val = eq + 1;
    rl_field_t f = RL_STR(arg, val);
    bool integral;
    int64_t i;
    double d;
    if (strcmp(val, "true") == 0 || strcmp(val, "false") == 0)
        f = RL_BOOL(arg, val[0] == 't');
    else if (strcmp(val, "null") == 0)
        f = RL_NULL(arg);
    else if (is_json_number(val, &integral)) {
        if (integral && hw_parse_i64(val, INT64_MIN, INT64_MAX, &i) == 0)
            f = RL_INT(arg, i);
        else if (hw_parse_double(val, -HUGE_VAL, HUGE_VAL, &d) == 0)
            f = RL_DBL(arg, d);
        /* else: a number no double can hold (1e999) stays the text it was */
    }
    *out = f;
    return 0;
}

int rl_cli_token_format(const rl_span_t *span, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    int n = snprintf(buf, cap, "%s/%lld.%09ld/", span->id, (long long)span->start.tv_sec,
                     span->start.tv_nsec);
    if (n < 0 || (size_t)n >= cap)
        return -ENAMETOOLONG;
    size_t len = (size_t)n;
    for (const unsigned char *p = (const unsigned char *)span->name; *p; p++) {
        if (len + 3 > cap)
            return -ENAMETOOLONG;
        buf[len++] = hex[*p >> 4];
        buf[len++] = hex[*p & 15];
    }
    buf[len] = '\0';
    return (int)len;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int rl_cli_token_parse(const char *tok, rl_span_t *span, char *name, size_t cap)
{
    const char *s1 = strchr(tok, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    if (!s1 || !s2 || s1 == tok || (size_t)(s1 - tok) >= sizeof span->id)
        return -EINVAL;
    /* the id as rl_span_start() writes it: PID.N */
    for (const char *p = tok; p < s1; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return -EINVAL;
    char t[48];
    if ((size_t)(s2 - s1 - 1) >= sizeof t)
        return -EINVAL;
    memcpy(t, s1 + 1, (size_t)(s2 - s1 - 1));
    t[s2 - s1 - 1] = '\0';
    char *dot = strchr(t, '.');
    int64_t sec, nsec;
    if (!dot || strlen(dot + 1) != 9)
        return -EINVAL;
    *dot = '\0';
    if (hw_parse_i64(t, 0, INT64_MAX / 2, &sec) < 0 || hw_parse_i64(dot + 1, 0, 999999999, &nsec) < 0)
        return -EINVAL;
    size_t hl = strlen(s2 + 1);
    if (hl % 2 || hl / 2 >= cap)
        return -EINVAL;
    for (size_t i = 0; i < hl / 2; i++) {
        int a = hexval(s2[1 + 2 * i]), b = hexval(s2[2 + 2 * i]);
        if (a < 0 || b < 0 || (a == 0 && b == 0))
            return -EINVAL;
        name[i] = (char)(a << 4 | b);
    }
    name[hl / 2] = '\0';
    memset(span, 0, sizeof *span);
    memcpy(span->id, tok, (size_t)(s1 - tok));
    span->start.tv_sec = (time_t)sec;
    span->start.tv_nsec = (long)nsec;
    span->name = name;
    return 0;
}

int rl_cli_run_command(char *const argv[], struct rl_cli_run *r)
{
    memset(r, 0, sizeof *r);
    /* tini's loop: SIGTERM and SIGHUP stay blocked and are taken with sigtimedwait, then sent
     * on to the command; SIGCHLD (blocked, so kept pending) ends the wait when it exits. No
     * handler runs, so no signal is lost between spawning and waiting, whatever runs us. */
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    struct sigaction old_int, old_quit;
    sigset_t block, oldmask;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &oldmask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);

    /* The child starts with default dispositions and our original mask. */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGQUIT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGHUP);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setsigmask(&attr, &oldmask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    double t0 = hw_mono_now();
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], NULL, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    int ret = 0;
    if (rc != 0) {
        r->spawn_err = rc;
        r->status = rc == ENOENT ? 127 : 126; /* as sh(1) reports them */
    } else {
        int st;
        pid_t w;
        for (;;) {
            do
                w = waitpid(pid, &st, WNOHANG);
            while (w < 0 && errno == EINTR);
            if (w != 0)
                break;
            /* a second at most: a SIGCHLD taken by someone else costs a second, never a hang */
            struct timespec tick = {1, 0};
            int sig = sigtimedwait(&block, NULL, &tick);
            if (sig == SIGTERM || sig == SIGHUP)
                kill(pid, sig);
        }
        if (w < 0) {
            ret = -errno;
        } else if (WIFEXITED(st)) {
            r->status = WEXITSTATUS(st);
        } else if (WIFSIGNALED(st)) {
            r->signal = WTERMSIG(st);
            r->status = 128 + r->signal;
        }
    }
    r->seconds = hw_mono_now() - t0;
    /* a signal that came after the command ended has no one to go to: taken, not delivered
     * (but one our caller itself blocks stays pending for it) */
    sigset_t drain = block;
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&oldmask, sig) == 1)
            sigdelset(&drain, sig);
    struct timespec now = {0, 0};
    while (sigtimedwait(&drain, NULL, &now) > 0)
        ;
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return ret;
}
