/* bench_html: what `summarize --html` costs on a long run, against the summary alone.
 *
 *   build/tests/bench/bench_html [--hours 6] [--gpus 8] [--tmp DIR] [--summarize PATH]...
 *
 * It writes a run (tests/html/gen.h: N GPUs at 10 Hz, CPU and process files, start/stop events
 * and a few phases) into a temporary directory, then runs each summarize binary given (default:
 * this build's; give --summarize several times to compare builds, e.g. main's), file in
 * page cache, best of 5:
 *   1. `summarize --format json DIR` (the baseline: one pass over every file, the summary);
 *   2. `summarize -q --html PAGE DIR` (the page, with the summary it draws from);
 * and prints wall and CPU time and peak RSS (wait4) of each and the ratio page/summary. The HTML
 * report is built in the summary's one pass (timeline.h), so the ratio should stay near 1; it was
 * about 3 when the report read every CSV again. The temporary directory is removed at the end. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Run argv with stdout to /dev/null; wall seconds (NAN on failure), CPU seconds (user + system:
 * steadier than wall time on a busy machine) and peak RSS in KiB. */
static double run(char *const argv[], double *cpu_s, long *rss_kb)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0)
        return NAN;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return NAN;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "%s exited with status %d\n", argv[0], WEXITSTATUS(st));
        return NAN;
    }
    *rss_kb = ru.ru_maxrss;
    *cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
             (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    return now() - t0;
}

/* The best wall and CPU times of n runs, the largest peak RSS. */
static double best_of(int n, char *const argv[], double *cpu_s, long *rss_kb)
{
    double best = INFINITY;
    *cpu_s = INFINITY;
    for (int i = 0; i < n; i++) {
        long rss = 0;
        double cpu = 0, t = run(argv, &cpu, &rss);
        if (isnan(t))
            return NAN;
        if (t < best)
            best = t;
        if (cpu < *cpu_s)
            *cpu_s = cpu;
        if (rss > *rss_kb)
            *rss_kb = rss;
    }
    return best;
}

static long long du(const char dir[4096])
{
    static const char *const names[] = {"hw_metrics.csv", "cpu_metrics.csv", "proc_metrics.csv",
                                        "run.jsonl"};
    long long n = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (stat(p, &st) == 0)
            n += st.st_size;
    }
    return n;
}

int main(int argc, char **argv)
{
    double hours = 6;
    int gpus = 8;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *bins[8];
    int nbins = 0;
    static const struct option opts[] = {
        {"hours", required_argument, NULL, 'H'}, {"gpus", required_argument, NULL, 'g'},
        {"tmp", required_argument, NULL, 't'},   {"summarize", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'H':
            hours = strtod(optarg, NULL);
            break;
        case 'g':
            gpus = atoi(optarg);
            break;
        case 't':
            tmp = optarg;
            break;
        case 'b':
            if (nbins < 8)
                bins[nbins++] = optarg;
            break;
        default:
            fprintf(stderr, "usage: bench_html [--hours H] [--gpus N] [--tmp DIR] "
                            "[--summarize PATH]...\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (!nbins)
        bins[nbins++] = SUMMARIZE_BIN;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bench_html.XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    struct gen_run g = {.t0 = 1795336800.0,
                        .seconds = hours * 3600,
                        .interval = 0.1,
                        .ngpus = gpus,
                        .cpu = true,
                        .proc = true,
                        .jsonl_start = true};
    int rc = gen_write_run(dir, &g);
    for (int i = 0; rc == 0 && i < 20; i++)
        rc = gen_phase(dir, g.t0 + g.seconds * (i + 1) / 20, g.seconds / 20 * 0.9,
                       i % 2 ? "train" : "eval");
    if (rc < 0) {
        fprintf(stderr, "bench_html: %s: %s\n", dir, strerror(-rc));
        return 1;
    }
    printf("run: %.3g h, %d GPUs at 10 Hz, %.0f MB of files\n", hours, gpus, du(dir) / 1e6);
    char page[4200];
    snprintf(page, sizeof page, "%s/report.html", dir);
    for (int b = 0; b < nbins; b++) {
        long rss_j = 0, rss_h = 0;
        double cj, ch;
        char *jargv[] = {(char *)bins[b], "--format", "json", dir, NULL};
        char *hargv[] = {(char *)bins[b], "-q", "--html", page, dir, NULL};
        double tj = best_of(5, jargv, &cj, &rss_j), th = best_of(5, hargv, &ch, &rss_h);
        struct stat st;
        long long psize = stat(page, &st) == 0 ? st.st_size : -1;
        printf("%s\n  summary (--format json): %6.2f s wall, %6.2f s CPU, peak RSS %5.1f MiB\n"
               "  page    (--html):        %6.2f s wall, %6.2f s CPU, peak RSS %5.1f MiB, page "
               "%lld bytes\n  page / summary:          %6.2f x wall, %5.2f x CPU\n",
               bins[b], tj, cj, rss_j / 1024.0, th, ch, rss_h / 1024.0, psize, th / tj, ch / cj);
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
