/* Benchmark: cost per entry of librunlog calls vs a raw write(2) of the same bytes to the same
 * kind of file, with 1 and 8 threads. Goal (issue 2): runlog <= 2x the raw write.
 *
 *   bench_runlog [-n ENTRIES_PER_THREAD] [-d DIR]
 *
 * DIR defaults to $TMPDIR or /tmp. Each case appends to a fresh file that is removed after. */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/timeutil.h"
#include "runlog.h"

struct job {
    rl_log_t *log;
    int fd;
    const char *line;
    size_t len;
    long n;
    int raw;
};

static void *worker(void *arg)
{
    struct job *j = arg;
    rl_field_t f[] = {RL_INT("step", 0), RL_DBL("loss", 0.123456), RL_STR("split", "train")};
    for (long i = 0; i < j->n; i++) {
        if (j->raw) {
            if (hw_write_all(j->fd, j->line, j->len, NULL) < 0)
                abort();
        } else {
            f[0].v.i = i;
            if (rl_phase(j->log, "train_step", 0.0123, f, 3) < 0)
                abort();
        }
    }
    return NULL;
}

/* ns per entry for nthreads threads each writing n entries. */
static double run_case(const char *dir, int nthreads, long n, int raw)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-runlog-%d.jsonl", dir, (int)getpid());
    unlink(path);
    rl_log_t *log = NULL;
    if (rl_open(&log, path, 0) < 0) {
        perror(path);
        exit(1);
    }
    /* The raw case writes exactly the bytes runlog would. */
    char line[512];
    rl_field_t f[] = {RL_INT("step", 123456), RL_DBL("loss", 0.123456), RL_STR("split", "train")};
    long len = rl_format_phase(line, sizeof line, "train_step", 0.0123, f, 3);
    pthread_t th[64];
    struct job jobs[64];
    double t0 = hw_mono_now();
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (struct job){log, rl_fileno(log), line, (size_t)len, n, raw};
        pthread_create(&th[i], NULL, worker, &jobs[i]);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    double el = hw_mono_now() - t0;
    rl_close(log);
    unlink(path);
    return el * 1e9 / (double)(n * nthreads);
}

int main(int argc, char **argv)
{
    long n = 200000;
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    int c;
    while ((c = getopt(argc, argv, "n:d:")) != -1) {
        if (c == 'n')
            n = strtol(optarg, NULL, 10);
        else if (c == 'd')
            dir = optarg;
        else {
            fprintf(stderr, "usage: bench_runlog [-n ENTRIES_PER_THREAD] [-d DIR]\n");
            return 2;
        }
    }
    printf("entries per thread: %ld, dir: %s\n", n, dir);
    printf("%-8s %14s %14s %8s\n", "threads", "raw ns/entry", "runlog ns/entry", "ratio");
    int threads[] = {1, 8};
    for (int i = 0; i < 2; i++) {
        /* Alternate and keep the best of 3, so page-cache warm-up does not favour either. */
        double raw = 1e18, rl = 1e18;
        for (int rep = 0; rep < 3; rep++) {
            double a = run_case(dir, threads[i], n / threads[i], 1);
            double b = run_case(dir, threads[i], n / threads[i], 0);
            raw = a < raw ? a : raw;
            rl = b < rl ? b : rl;
        }
        printf("%-8d %14.0f %14.0f %8.2f\n", threads[i], raw, rl, rl / raw);
    }
    return 0;
}
