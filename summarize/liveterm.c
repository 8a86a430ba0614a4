/* summarize --live on a terminal (liveview.h): the loop that follows the runs on an absolute
 * deadline and draws the views. Full screen, it takes the terminal's alternate screen and
 * non-canonical input (for `q`) and gives both back on every way out: q, Ctrl-C, SIGTERM,
 * SIGHUP, exit(3), and around Ctrl-Z. Without a terminal (or with --plain) it prints one line
 * per run and interval, and stops once every run has ended. */
#include "liveview.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "jobsum.h" /* sum_job_is_dir, sum_job_list */
#include "hwrun/io.h"
#include "hwrun/msg.h"
#include "hwrun/timeutil.h"

static volatile sig_atomic_t got_stop, got_winch, got_tstp;

static void on_signal(int sig)
{
    if (sig == SIGWINCH)
        got_winch = 1;
    else if (sig == SIGTSTP)
        got_tstp = 1;
    else
        got_stop = 1;
}

/* ---- the terminal ----------------------------------------------------------------------- */

static struct termios saved;
static bool have_saved, drawn;

static int out_all(const char *s, size_t n)
{
    return hw_write_all(STDOUT_FILENO, s, n, NULL);
}

static void term_leave(void)
{
    if (drawn) /* the cursor back, the screen the user had before */
        out_all("\033[?25h\033[?1049l", 14);
    drawn = false;
    if (have_saved)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    have_saved = false;
}

static void term_enter(void)
{
    struct termios t;
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0) {
        have_saved = true;
        t = saved;
        t.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* keys one by one, unseen; ISIG kept: Ctrl-C */
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &t);
    }
    out_all("\033[?1049h\033[?25l", 14); /* the alternate screen, no cursor */
    drawn = true;
}

static void term_size(int *rows, int *cols)
{
    struct winsize w;
    *rows = 24;
    *cols = 80;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_row > 0 && w.ws_col > 0) {
        *rows = w.ws_row;
        *cols = w.ws_col;
    }
}

/* The screen's lines at the top-left, each row's rest cleared, then everything below. */
static void draw(const struct hw_buf *lines, struct hw_buf *frame)
{
    hw_buf_reset(frame);
    hw_buf_puts(frame, "\033[H");
    const char *p = lines->p, *end = lines->p + lines->len;
    bool first = true;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        if (!first)
            hw_buf_puts(frame, "\r\n");
        first = false;
        hw_buf_put(frame, p, (size_t)(nl - p));
        hw_buf_puts(frame, "\033[K");
        p = nl + 1;
    }
    hw_buf_puts(frame, "\033[J");
    out_all(frame->p, frame->len);
}

/* ---- the runs --------------------------------------------------------------------------- */

struct runs {
    struct sum_live **v;
    size_t n, cap;
    const struct sum_rule_cfg *rules; /* each run's verdict thresholds */
};

static int add_run(struct runs *r, const char *dir, const char *name)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        struct sum_live **v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    struct sum_live *x = sum_live_new(dir, name);
    if (!x)
        return -ENOMEM;
    sum_live_rules(x, r->rules);
    r->v[r->n++] = x;
    return 0;
}

/* A job directory shows its nodes, each named job/node. */
static int add_dir(struct runs *r, const char *dir)
{
    if (!sum_job_is_dir(dir))
        return add_run(r, dir, NULL);
    char **paths = NULL;
    size_t n = 0;
    int rc = sum_job_list(dir, &paths, &n);
    if (rc < 0 || n == 0)
        return rc < 0 ? rc : add_run(r, dir, NULL);
    const char *job = strrchr(dir, '/');
    job = job && job[1] ? job + 1 : dir;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *node = strrchr(paths[i], '/');
        char name[256];
        snprintf(name, sizeof name, "%s/%s", job, node ? node + 1 : paths[i]);
        rc = add_run(r, paths[i], name);
    }
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

/* A run whose end is known: stopped, or its hwmon gone; a directory with no hwmon start that
 * nobody wrote for SUM_ALIVE_MIN_S. A directory not created yet is not over. The status is the
 * one its line of this refresh was printed with (sum_live_line judged it). */
static bool run_over(const struct sum_live *v)
{
    enum sum_status st = v->now.status;
    if (st == SUM_STATUS_RUNNING || !rd_live_started(&v->live))
        return false;
    if (st != SUM_STATUS_UNKNOWN)
        return true;
    return hw_real_now() - v->live.t_last > SUM_ALIVE_MIN_S;
}

int sum_live_main(char **dirs, size_t ndirs, double interval_s, bool plain,
                  const struct sum_units *u, const struct sum_rule_cfg *rules)
{
    struct runs runs = {.rules = rules};
    for (size_t i = 0; i < ndirs; i++) {
        /* a directory not created yet is waited for; anything else at the name is an error */
        struct stat st;
        if (stat(dirs[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
            hw_warn(ENOTDIR, "%s", dirs[i]);
            return HW_EXIT_FAIL;
        }
    }
    int status = HW_EXIT_OK;
    for (size_t i = 0; i < ndirs && status == HW_EXIT_OK; i++)
        if (add_dir(&runs, dirs[i]) < 0) {
            hw_warn(ENOMEM, "follow %s", dirs[i]);
            status = HW_EXIT_FAIL;
        }
    bool screen = status == HW_EXIT_OK && !plain && isatty(STDOUT_FILENO);
    struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: poll wakes */
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal the caller ignores stays ignored (nohup's SIGHUP): a hang-up is then seen on
         * the terminal itself */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        if (screen || (sigs[i] != SIGWINCH && sigs[i] != SIGTSTP))
            sigaction(sigs[i], &sa, NULL);
    }
    if (screen) {
        atexit(term_leave);
        term_enter();
    }
    struct hw_buf lines, frame;
    hw_buf_init(&lines, NULL, 0);
    hw_buf_init(&frame, NULL, 0);
    double next = hw_mono_now();
    for (; status == HW_EXIT_OK;) {
        for (size_t i = 0; i < runs.n; i++)
            sum_live_update(runs.v[i]);
        double now = hw_real_now();
        hw_buf_reset(&lines);
        bool all_over = true;
        if (screen) {
            int rows, cols;
            term_size(&rows, &cols);
            if (runs.n == 1) {
                sum_live_screen(runs.v[0], now, rows - 1, cols, u, &lines);
            } else {
                sum_live_sweep_header(cols, &lines);
                for (size_t i = 0; i < runs.n && (int)i < rows - 2; i++)
                    sum_live_sweep_row(runs.v[i], now, cols, u, &lines);
            }
            draw(&lines, &frame);
            all_over = false; /* the screen stays until q */
        } else {
            for (size_t i = 0; i < runs.n; i++) {
                sum_live_line(runs.v[i], now, &lines);
                all_over &= run_over(runs.v[i]);
            }
            int rc = lines.len ? out_all(lines.p, lines.len) : 0;
            if (rc < 0) { /* a full disk or a closed pipe: said, not a silent success */
                hw_warn(-rc, "write standard output");
                status = HW_EXIT_FAIL;
                break;
            }
        }
        if (all_over || got_stop)
            break;
        /* the next refresh on an absolute deadline; a key, a resize or a stop wakes it early */
        next += interval_s;
        double mono = hw_mono_now();
        if (next < mono)
            next = mono + interval_s; /* behind (a suspended terminal): no burst of redraws */
        bool redraw = false;
        while (!redraw && !got_stop) {
            double wait = next - hw_mono_now();
            if (wait <= 0)
                break;
            struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
            int n = poll(&pfd, screen && have_saved ? 1 : 0, (int)ceil(wait * 1000));
            if (got_winch) {
                got_winch = 0;
                redraw = true;
            }
            if (got_tstp) { /* give the terminal back while stopped, take it again after */
                got_tstp = 0;
                term_leave();
                signal(SIGTSTP, SIG_DFL);
                raise(SIGTSTP);
                sigaction(SIGTSTP, &sa, NULL);
                term_enter();
                redraw = true;
            }
            if (n > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)))
                got_stop = 1; /* the terminal is gone (and SIGHUP ignored): never spin on it */
            if (n > 0 && (pfd.revents & POLLIN)) {
                char keys[64];
                ssize_t k = read(STDIN_FILENO, keys, sizeof keys);
                for (ssize_t i = 0; i < k; i++)
                    if (keys[i] == 'q' || keys[i] == 'Q')
                        got_stop = 1;
            }
        }
        if (redraw)
            next = hw_mono_now();
    }
    if (screen)
        term_leave();
    hw_buf_free(&lines);
    hw_buf_free(&frame);
    for (size_t i = 0; i < runs.n; i++)
        sum_live_free(runs.v[i]);
    free(runs.v);
    return status;
}
