/* bench_steps: summarize on a run that logs a phase per training step, back to back (issue 54):
 * its wall time, peak RSS (getrusage's ru_maxrss of the summarize child) and output size, for
 * the default JSON, --phases all and the --html page, at N steps and at N/1000 (the memory must
 * not grow with the steps: the two peaks side by side). A program, not a test:
 *
 *   cmake --build build --target bench_steps summarize
 *   build/tests/bench/bench_steps [--steps 1000000] [--dt 0.001] [--gpus G] [--summarize PATH]
 *       [--tmp DIR]
 *
 * The run: hwmon's start and stop events around N `step` phases of dt seconds each (1 ms by
 * default, as the issue measured), run.jsonl alone; with --gpus, G GPUs sampled every second
 * over them with cpu_metrics.csv and proc_metrics.csv (the day of 864 000 steps on 8
 * GPUs: --steps 864000 --dt 0.1 --gpus 8). Each case runs 3 times; the best wall time
 * is printed with that run's CPU time (steadier on a shared machine) and peak RSS. The temporary directories are removed at the end
 * (BENCH_KEEP=1 keeps them). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"

static const double T0 = 1795274869.0;

/* The best of 3 runs of argv (its output to out). */
static struct gen_usage best_of(char *const argv[], const char *out)
{
    struct gen_usage best = {.wall_s = INFINITY, .status = -1};
    for (int rep = 0; rep < 3; rep++) {
        struct gen_usage u;
        if (gen_measure(argv, out, &u) < 0 || u.status != 0) {
            fprintf(stderr, "bench_steps: %s failed (status %d)\n", argv[0], u.status);
            exit(1);
        }
        if (u.wall_s < best.wall_s)
            best = u;
    }
    return best;
}

static void report(const char *what, long n, const struct gen_usage *u)
{
    printf("%-18s %8ld phases %7.3f s wall %7.3f s CPU  peak RSS %6.1f MiB  output %10lld bytes\n",
           what, n, u->wall_s, u->cpu_s, (double)u->maxrss_kib / 1024.0, u->out_bytes);
}

int main(int argc, char **argv)
{
    long steps = 1000000;
    int gpus = 0;
    double dt = 0.001;
    const char *bin = SUMMARIZE_BIN;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    static const struct option opts[] = {
        {"steps", required_argument, NULL, 's'},     {"dt", required_argument, NULL, 'd'},
        {"summarize", required_argument, NULL, 'b'}, {"tmp", required_argument, NULL, 't'},
        {"gpus", required_argument, NULL, 'g'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
        switch (o) {
        case 's':
            steps = atol(optarg) >= 1000 ? atol(optarg) : steps;
            break;
        case 'd':
            dt = atof(optarg) > 0 ? atof(optarg) : dt;
            break;
        case 'g':
            gpus = atoi(optarg) >= 0 && atoi(optarg) <= 64 ? atoi(optarg) : gpus;
            break;
        case 'b':
            bin = optarg;
            break;
        case 't':
            tmp = optarg;
            break;
        default:
            fputs("usage: bench_steps [--steps N (>= 1000)] [--dt S] [--gpus G] [--summarize PATH] "
                  "[--tmp DIR]\n",
                  o == 'h' ? stdout : stderr);
            return o == 'h' ? 0 : 2;
        }
    }
    char base[4096];
    snprintf(base, sizeof base, "%s/bench_steps.XXXXXX", tmp);
    if (!mkdtemp(base)) {
        perror(base);
        return 1;
    }
    long ns[2] = {steps / 1000, steps};
    printf("summarize %s; back-to-back `step` phases of %g s; %d GPUs\n", bin, dt, gpus);
    for (int k = 0; k < 2; k++) {
        char dir[4200], json[4300], all[4300], html[4300];
        snprintf(dir, sizeof dir, "%s/run%d", base, k);
        snprintf(json, sizeof json, "%s/summary.json", base);
        snprintf(all, sizeof all, "%s/all.json", base);
        snprintf(html, sizeof html, "%s/report.html", base);
        struct gen_run g = {.t0 = T0 - 1, .seconds = (double)ns[k] * dt + 2, .interval = 1,
                            .ngpus = gpus, .cpu = true, .proc = true};
        if (mkdir(dir, 0755) < 0 || gen_back_to_back(dir, "step", T0, ns[k], dt, NULL) < 0 ||
            (gpus && gen_write_run(dir, &g) < 0)) {
            perror(dir);
            return 1;
        }
        struct gen_usage u = best_of((char *[]){(char *)bin, "-q", dir, NULL}, json);
        report("default JSON", ns[k], &u);
        u = best_of((char *[]){(char *)bin, "-q", "--phases", "all", dir, NULL}, all);
        report("--phases all", ns[k], &u);
        u = best_of((char *[]){(char *)bin, "-q", "--html", html, dir, NULL}, NULL);
        struct stat sb;
        u.out_bytes = stat(html, &sb) == 0 ? (long long)sb.st_size : -1;
        report("--html (the page)", ns[k], &u);
    }
    if (getenv("BENCH_KEEP")) {
        printf("kept %s\n", base);
        return 0;
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : 1;
}
