/* bench_edges: what following run.jsonl for edge samples costs hwmon (issue 23), a program,
 * not a test.
 *
 *   bench_edges [-b HWMON] [-d SECONDS] [-r BOUNDARIES_PER_S] [-n RUNS]
 *
 * A job (this program with --job) runs for -d seconds (default 20) and logs, through librunlog,
 * phases of a training loop: `step` phases of 20 ms back to back at -r boundaries per second
 * (default 50: 25 steps), inside 5 s `epoch` phases. The baseline job sleeps as long and logs
 * nothing. hwmon watches each with -p PID --no-gpu -i 1 (attach mode: wait4() then gives
 * hwmon's own CPU, not the job's), the two interleaved -n times (default 3); printed: hwmon's
 * CPU ms per second of run (best of the runs) for each, their ratio, and the edge samples
 * taken. Goal: the ratio close to 1 (steps are too short to be sampled; epochs' edges are). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runlog.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR)
        ;
}

/* The job: waits for its log to exist, then logs steps inside epochs until the end. */
static int job(double seconds, double rate)
{
    const char *path = getenv("RUNLOG_FILE");
    double end = now() + seconds;
    while (access(path, F_OK) != 0 && now() < end)
        sleep_s(0.01);
    if (rate <= 0) {
        sleep_s(end - now());
        return 0;
    }
    rl_log_t *log;
    if (rl_open(&log, path, 0) < 0)
        return 1;
    double step = 2.0 / rate; /* a begin and an end per step */
    while (now() < end) {
        rl_span_t epoch;
        rl_phase_begin(log, &epoch, "epoch", NULL, 0);
        double epoch_end = now() + 5;
        while (now() < epoch_end && now() < end) {
            rl_span_t s;
            double t0 = now();
            rl_phase_begin(log, &s, "step", NULL, 0);
            sleep_s(t0 + step / 2 - now());
            rl_phase_end(log, &s, NULL, 0, NULL);
            sleep_s(t0 + step - now());
        }
        rl_phase_end(log, &epoch, NULL, 0, NULL);
    }
    rl_close(log);
    return 0;
}

struct result {
    double cpu_ms_per_s;
    long edges;
};

static long count_edges(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cpu_metrics.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        n += len >= 3 && !strcmp(line + len - 3, ",1\n");
    }
    fclose(f);
    return n;
}

static int measure(const char *self, const char *hwmon, double seconds, double rate, int k,
                   struct result *res)
{
    char dir[256], rate_s[32], sec_s[32], pid_s[32], logp[300];
    snprintf(dir, sizeof dir, "%s/bench-edges-%ld-%d-%g", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid(), k, rate);
    snprintf(logp, sizeof logp, "%s/run.jsonl", dir);
    snprintf(rate_s, sizeof rate_s, "%g", rate);
    snprintf(sec_s, sizeof sec_s, "%g", seconds);
    pid_t jp = fork();
    if (jp == 0) {
        setenv("RUNLOG_FILE", logp, 1);
        execl(self, self, "--job", sec_s, rate_s, (char *)NULL);
        _exit(127);
    }
    snprintf(pid_s, sizeof pid_s, "%ld", (long)jp);
    double t0 = now();
    pid_t hp = fork();
    if (hp == 0) {
        execl(hwmon, hwmon, "-q", "--no-gpu", "-i", "1", "-o", dir, "-p", pid_s, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(jp, &st, 0);
    struct rusage ru;
    if (wait4(hp, &st, 0, &ru) < 0)
        return -1;
    double run_s = now() - t0;
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    res->cpu_ms_per_s = cpu * 1000 / run_s;
    res->edges = count_edges(dir);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_edges: could not remove %s\n", dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--job"))
        return job(atof(argv[2]), atof(argv[3]));
    const char *hwmon = getenv("HWRUN_HWMON_BIN") ? getenv("HWRUN_HWMON_BIN") : "./hwmon/hwmon";
    double seconds = 20, rate = 50;
    int runs = 3, c;
    while ((c = getopt(argc, argv, "b:d:r:n:")) != -1) {
        switch (c) {
        case 'b': hwmon = optarg; break;
        case 'd': seconds = atof(optarg); break;
        case 'r': rate = atof(optarg); break;
        case 'n': runs = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: bench_edges [-b HWMON] [-d SECONDS] [-r RATE] [-n RUNS]\n");
            return 2;
        }
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    double best[2] = {1e9, 1e9};
    long edges[2] = {0, 0};
    for (int k = 0; k < runs; k++)
        for (int w = 0; w < 2; w++) {
            struct result r;
            if (measure(self, hwmon, seconds, w ? rate : 0, k, &r) < 0) {
                fprintf(stderr, "bench_edges: run failed\n");
                return 1;
            }
            printf("run %d, %s: hwmon %.3f ms CPU per second, %ld edge samples\n", k + 1,
                   w ? "phases" : "no phases", r.cpu_ms_per_s, r.edges);
            if (r.cpu_ms_per_s < best[w])
                best[w] = r.cpu_ms_per_s;
            edges[w] = r.edges;
        }
    printf("hwmon -i 1, %g s: no phases %.3f ms/s; %g phase boundaries/s (20 ms steps in 5 s "
           "epochs) %.3f ms/s, %ld edge samples; ratio %.2f (best of %d)\n",
           seconds, best[0], rate, best[1], edges[1], best[1] / best[0], runs);
    return 0;
}
