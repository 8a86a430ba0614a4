/* Out of memory, at every allocation: summarize either says so (exit status 1, "Cannot
 * allocate memory") or prints exactly what it prints with memory to spare. A figure that
 * silently comes out different, or a crash, is a failure. Each try runs in a child process (a
 * failure may end it through hw_die), against every run of testdata/runs in every format of
 * the -f table (sum_formats[]), on their HTML pages and sweep page, and on --compare.
 * $HWRUN_OOM_BUDGET: how many allocations to fail per run and output, spread over all of
 * them (0: every one; default 30, 8 under a sanitizer); $HWRUN_OOM_AT=K tries the Kth alone, $HWRUN_OOM_TRACE=1 prints the
 * failing call's stack (failalloc.c). */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failalloc.h"
#include "hwrun/buf.h"
#include "hwrun/msg.h"
#include "jobs.h"
#include "testutil.h"
#include "verdicts.h"

/* What one try gave. */
struct try {
    int status;          /* the child's exit status; -1: killed by a signal */
    int sig;
    unsigned long calls; /* allocations made while armed */
    char *out, *err;     /* its output, its standard error (malloc'd) */
};

/* What a try asks of summarize: one run in a -f format, its HTML page, the sweep page of
 * several runs, --compare of two, or the runs as the nodes of one job (--job) in a format or
 * as its page. */
enum ask { ASK_FORMAT, ASK_PAGE, ASK_COMPARE, ASK_JOB };
struct what {
    enum ask ask;
    enum sum_fmt fmt;  /* ASK_FORMAT's; ASK_COMPARE: text or json */
    char **dirs;       /* one run, or several (a sweep page, the two compared) */
    size_t ndirs;
    const char *page;  /* ASK_PAGE: the file it writes */
};

/* Do w with the nth allocation failing, in this (child) process, as main.c does: the output
 * to out_fd (the page's bytes for a page), the count to *calls; the exit status. */
static int summarize_once(const struct what *w, unsigned long nth, int out_fd,
                          unsigned long *calls)
{
    static struct sum_jobs c;
    static struct sum_rule_cfg rules;
    sum_units_init(&c.units);
    sum_rule_cfg_init(&rules);
    c.cfg.rules = &rules;
    c.fmt = w->fmt;
    c.quiet = true;
    c.njobs = w->ndirs;
    c.jobs = calloc(w->ndirs, sizeof *c.jobs);
    if (!c.jobs)
        return 97;
    for (size_t i = 0; i < w->ndirs; i++)
        c.jobs[i].dir = w->dirs[i];
    c.print = !w->page;
    c.html = w->page;
    struct hw_buf all;
    hw_buf_init(&all, NULL, 0);
    int status;
    fa_arm(nth);
    if (w->ask == ASK_COMPARE) {
        status = sum_jobs_compare(&c, w->dirs[0], w->dirs[1], &all);
    } else if (w->ask == ASK_JOB) {
        free(c.jobs);
        status = sum_jobs_multi(&c, w->dirs, w->ndirs, true, 1, &all);
    } else {
        sum_jobs_run(&c, 1);
        status = w->ask == ASK_PAGE ? sum_jobs_html(&c) : HW_EXIT_OK;
        if (sum_jobs_collect(&c, &all) != HW_EXIT_OK)
            status = HW_EXIT_FAIL;
    }
    *calls = fa_disarm();
    if (all.oom)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize"); /* as main.c's put_output */
    if (w->page) {
        hw_buf_free(&all);
        char *page = th_read_file(w->page, &all.len);
        all.p = page;
    }
    if (all.len && write(out_fd, all.p, all.len) != (ssize_t)all.len)
        return 99;
    return status;
}

/* The name of w in a failure's message. */
static const char *what_name(const struct what *w)
{
    if (w->ask == ASK_JOB)
        return w->page ? "--html" : sum_formats[w->fmt].name; /* after "--job" below */
    return w->ask == ASK_PAGE      ? (w->ndirs > 1 ? "--html (sweep)" : "--html")
           : w->ask == ASK_COMPARE ? (w->fmt == SUM_FMT_TEXT ? "--compare -f text"
                                                              : "--compare -f json")
                                   : sum_formats[w->fmt].name;
}

/* The child's part of try_once. */
struct child_try {
    const struct what *w;
    unsigned long nth;
    const char *outp, *errp;
};

static int summarize_child(void *arg, void *shared)
{
    const struct child_try *c = arg;
    int o = open(c->outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(c->errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || dup2(e, STDERR_FILENO) < 0)
        return 98;
    hw_set_progname("summarize");
    return summarize_once(c->w, c->nth, o, shared);
}

static struct try try_once(const struct what *w, unsigned long nth)
{
    struct try t = {0};
    char *tmp = th_tmpdir("oom");
    char *outp = th_fmt("%s/out", tmp), *errp = th_fmt("%s/err", tmp);
    struct child_try c = {w, nth, outp, errp};
    int ws = fa_in_child(summarize_child, &c, &t.calls, sizeof t.calls);
    CU_ASSERT_FATAL(ws != -1);
    t.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    t.sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    t.out = th_read_file(outp, NULL);
    t.err = th_read_file(errp, NULL);
    unlink(outp);
    unlink(errp);
    rmdir(tmp);
    free(outp);
    free(errp);
    free(tmp);
    return t;
}

static void try_free(struct try *t)
{
    free(t->out);
    free(t->err);
}

/* Every allocation of one run in one format, or every step-th (and the last few) where a run
 * makes many: the number tried. */
static unsigned long sweep(const struct what *w, unsigned long budget)
{
    struct try ref = try_once(w, 0);
    CU_ASSERT_FATAL(ref.sig == 0 && ref.out != NULL);
    unsigned long n = ref.calls, tried = 0;
    unsigned long step = budget && n > budget ? (n + budget - 1) / budget : 1;
    const char *at = getenv("HWRUN_OOM_AT"); /* one allocation only, to look at it */
    unsigned long k0 = at ? strtoul(at, NULL, 10) : 1;
    for (unsigned long k = k0; k <= n && (!at || k == k0); k += (k + 4 > n ? 1 : step)) {
        struct try t = try_once(w, k);
        tried++;
        bool said = t.status == HW_EXIT_FAIL && t.err && strstr(t.err, strerror(ENOMEM));
        bool same = t.status == ref.status && t.out && !strcmp(t.out, ref.out);
        if (!(t.sig == 0 && (said || same))) {
            fprintf(stderr,
                    "oom: %s%s %s, allocation %lu of %lu failing: %s%d, status %d (%d with "
                    "memory), %s\n--- stderr:\n%s\n",
                    w->dirs[0], w->ask == ASK_JOB ? " (a job's first node) --job" : "",
                    what_name(w), k, n, t.sig ? "killed by signal " : "signal ",
                    t.sig, t.status, ref.status,
                    said ? "said so" : same ? "same output" : "output differs, nothing said",
                    t.err ? t.err : "");
            CU_FAIL("an allocation failure was neither reported nor harmless");
            try_free(&t);
            break;
        }
        try_free(&t);
    }
    try_free(&ref);
    return tried;
}

/* What each test sweeps: testdata/runs' run directories, and a page's path in a scratch
 * directory. */
struct fixture {
    char **runs;
    size_t n;
    char *tmp, *page;
};

static struct fixture fixture_open(void)
{
    const char *td = th_env("HWRUN_TESTDATA");
    struct fixture x = {NULL, 0, th_tmpdir("oom"), NULL};
    x.page = th_fmt("%s/page.html", x.tmp);
    char *cmd = th_fmt("ls -1 '%s/runs'", td);
    FILE *p = popen(cmd, "r");
    free(cmd);
    char line[512];
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        x.runs = realloc(x.runs, (x.n + 1) * sizeof *x.runs);
        x.runs[x.n++] = th_fmt("%s/runs/%s", td, line);
    }
    if (p)
        pclose(p);
    CU_ASSERT_FATAL(x.n > 1);
    return x;
}

static void fixture_close(struct fixture *x)
{
    unlink(x->page);
    rmdir(x->tmp);
    free(x->page);
    free(x->tmp);
    for (size_t r = 0; r < x->n; r++)
        free(x->runs[r]);
    free(x->runs);
}

/* Under a sanitizer each try's fork costs tens of milliseconds (its shadow memory): fewer tries
 * there, spread the same way; the plain build tries 30 per run and output. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OOM_BUDGET "8"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OOM_BUDGET "8"
#endif
#endif
#ifndef OOM_BUDGET
#define OOM_BUDGET "30"
#endif

static unsigned long budget(void)
{
    const char *b = getenv("HWRUN_OOM_BUDGET");
    return strtoul(b ? b : OOM_BUDGET, NULL, 10);
}

static void test_every_run_every_format(void)
{
    struct fixture x = fixture_open();
    unsigned long tried = 0;
    for (size_t r = 0; r < x.n; r++)
        for (int f = 0; f < SUM_FMT_COUNT; f++) {
            struct what w = {ASK_FORMAT, (enum sum_fmt)f, &x.runs[r], 1, NULL};
            tried += sweep(&w, budget());
        }
    printf("\n  %lu allocation failures tried over %zu runs and %d formats\n", tried, x.n,
           SUM_FMT_COUNT);
    fixture_close(&x);
}

/* Each run's page, the sweep page of them all, and --compare of each run with the next. */
static void test_pages_and_compare(void)
{
    struct fixture x = fixture_open();
    unsigned long tried = 0;
    for (size_t r = 0; r < x.n; r++) {
        struct what w = {ASK_PAGE, SUM_FMT_JSON, &x.runs[r], 1, x.page};
        tried += sweep(&w, budget());
        char *two[2] = {x.runs[r], x.runs[(r + 1) % x.n]};
        struct what cj = {ASK_COMPARE, SUM_FMT_JSON, two, 2, NULL};
        struct what ct = {ASK_COMPARE, SUM_FMT_TEXT, two, 2, NULL};
        tried += sweep(&cj, budget()) + sweep(&ct, budget());
    }
    struct what sw = {ASK_PAGE, SUM_FMT_JSON, x.runs, x.n, x.page};
    tried += sweep(&sw, budget());
    printf("\n  %lu allocation failures tried over %zu pages, a sweep page and %zu comparisons\n",
           tried, x.n, 2 * x.n);
    fixture_close(&x);
}

/* The runs as the nodes of one job: every format a job prints, and its page. */
static void test_job(void)
{
    struct fixture x = fixture_open();
    unsigned long tried = 0;
    int nfmt = 0;
    for (int f = 0; f < SUM_FMT_COUNT; f++)
        if (sum_formats[f].flags & SUM_FF_JOB) {
            struct what w = {ASK_JOB, (enum sum_fmt)f, x.runs, x.n, NULL};
            tried += sweep(&w, budget());
            nfmt++;
        }
    struct what wp = {ASK_JOB, SUM_FMT_JSON, x.runs, x.n, x.page};
    tried += sweep(&wp, budget());
    CU_ASSERT(nfmt >= 2);
    printf("\n  %lu allocation failures tried over a job of %zu nodes in %d formats and its "
           "page\n", tried, x.n, nfmt);
    fixture_close(&x);
}

void add_runlog_suite(void);

void cu_register_all(void)
{
    add_runlog_suite();
    CU_pSuite s = th_add_suite("summarize", NULL, NULL, 600);
    CU_add_test(s, "every_run_every_format", test_every_run_every_format);
    CU_add_test(s, "pages_and_compare", test_pages_and_compare);
    CU_add_test(s, "job", test_job);
}
