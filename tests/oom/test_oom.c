/* Out of memory, at every allocation: summarize either says so (exit status 1, "Cannot
 * allocate memory") or prints exactly what it prints with memory to spare. A figure that
 * silently comes out different, a crash or a leak-sized hang is a failure. Each try runs in a
 * child process (a failure may end it through hw_die), against every run of testdata/runs in
 * every format of the -f table (sum_formats[]). */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* Summarize dir as fmt with the nth allocation failing, in this (child) process: the output to
 * out_fd, the count to *calls; the exit status. */
static int summarize_once(const char *dir, enum sum_fmt fmt, unsigned long nth, int out_fd,
                          unsigned long *calls)
{
    static struct sum_jobs c;
    static struct sum_rule_cfg rules;
    static struct sum_job job;
    sum_units_init(&c.units);
    sum_rule_cfg_init(&rules);
    c.cfg.rules = &rules;
    c.fmt = fmt;
    c.print = true;
    c.quiet = true;
    job.dir = dir;
    c.jobs = &job;
    c.njobs = 1;
    struct hw_buf all;
    fa_arm(nth);
    sum_jobs_run(&c, 1);
    hw_buf_init(&all, NULL, 0);
    int status = sum_jobs_collect(&c, &all);
    *calls = fa_disarm();
    if (all.oom)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize"); /* as main.c's put_output */
    if (all.len && write(out_fd, all.p, all.len) != (ssize_t)all.len)
        return 99;
    return status;
}

static struct try try_once(const char *dir, enum sum_fmt fmt, unsigned long nth)
{
    struct try t = {0};
    char *tmp = th_tmpdir("oom");
    char *outp = th_fmt("%s/out", tmp), *errp = th_fmt("%s/err", tmp);
    unsigned long *calls = mmap(NULL, sizeof *calls, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CU_ASSERT_FATAL(calls != MAP_FAILED);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0 || dup2(e, STDERR_FILENO) < 0)
            _exit(98);
        hw_set_progname("summarize");
        int st = summarize_once(dir, fmt, nth, o, calls);
        fflush(NULL);
        _exit(st);
    }
    int ws = 0;
    CU_ASSERT_FATAL(waitpid(pid, &ws, 0) == pid);
    t.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    t.sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    t.calls = *calls;
    munmap(calls, sizeof *calls);
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
static unsigned long sweep(const char *dir, enum sum_fmt fmt, unsigned long budget)
{
    struct try ref = try_once(dir, fmt, 0);
    CU_ASSERT_FATAL(ref.sig == 0 && ref.out != NULL);
    unsigned long n = ref.calls, tried = 0;
    unsigned long step = budget && n > budget ? (n + budget - 1) / budget : 1;
    for (unsigned long k = 1; k <= n; k += (k + 4 > n ? 1 : step)) {
        struct try t = try_once(dir, fmt, k);
        tried++;
        bool said = t.status == HW_EXIT_FAIL && t.err && strstr(t.err, strerror(ENOMEM));
        bool same = t.status == ref.status && t.out && !strcmp(t.out, ref.out);
        if (!(t.sig == 0 && (said || same))) {
            fprintf(stderr,
                    "oom: %s -f %s, allocation %lu of %lu failing: %s%d, status %d (%d with "
                    "memory), %s\n--- stderr:\n%s\n",
                    dir, sum_formats[fmt].name, k, n, t.sig ? "killed by signal " : "signal ",
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

/* testdata/runs' run directories. */
static size_t list_runs(const char *td, char ***names)
{
    char *cmd = th_fmt("ls -1 '%s/runs'", td);
    FILE *p = popen(cmd, "r");
    free(cmd);
    size_t n = 0;
    *names = NULL;
    char line[512];
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        *names = realloc(*names, (n + 1) * sizeof **names);
        (*names)[n++] = th_fmt("%s/runs/%s", td, line);
    }
    if (p)
        pclose(p);
    return n;
}

static void test_every_run_every_format(void)
{
    const char *td = th_env("HWRUN_TESTDATA");
    char **runs;
    size_t nruns = list_runs(td, &runs);
    CU_ASSERT_FATAL(nruns > 0);
    unsigned long budget = strtoul(getenv("HWRUN_OOM_BUDGET") ? getenv("HWRUN_OOM_BUDGET") : "30",
                                   NULL, 10);
    unsigned long tried = 0;
    for (size_t r = 0; r < nruns; r++) {
        for (int f = 0; f < SUM_FMT_COUNT; f++)
            tried += sweep(runs[r], (enum sum_fmt)f, budget);
        free(runs[r]);
    }
    free(runs);
    printf("\n  %lu allocation failures tried over %zu runs and %d formats\n", tried, nruns,
           SUM_FMT_COUNT);
}

void cu_register_all(void)
{
    CU_pSuite s = th_add_suite("summarize", NULL, NULL, 600);
    CU_add_test(s, "every_run_every_format", test_every_run_every_format);
}
