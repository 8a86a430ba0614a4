/* Benchmark: cost per entry of librunlog calls vs a raw write(2) of the same bytes to the same
 * kind of file, with 1 and 8 threads. Goal (issue 2): runlog <= 2x the raw write. The log as
 * rl_open() makes it follows its name (one fstatat per line, issue 34); the same log from
 * rl_fdopen() without rl_follow() does not: the difference is that check's cost.
 * Then formatting alone (no write): a phase line, and an event like hwmon's start event with
 * its arrays and objects handed over as JSON text (RL_T_JSON: parsed and printed again) vs as
 * structured fields (RL_T_STRV, RL_T_OBJ, RL_T_ARR), which give the same bytes (issue 8).
 *
 *   bench_runlog [-n ENTRIES_PER_THREAD] [-d DIR]
 *
 * DIR defaults to $TMPDIR or /tmp. Each case appends to a fresh file that is removed after. */
#include <fcntl.h>
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

enum { CASE_RUNLOG, CASE_RAW, CASE_NO_FOLLOW };

/* ns per entry for nthreads threads each writing n entries. */
static double run_case(const char *dir, int nthreads, long n, int mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-runlog-%d.jsonl", dir, (int)getpid());
    unlink(path);
    rl_log_t *log = NULL;
    int fd = mode == CASE_NO_FOLLOW ? hw_open_file(AT_FDCWD, path, HW_OPEN_CREATE) : -1;
    if (mode == CASE_NO_FOLLOW ? rl_fdopen(&log, fd, 0) < 0 : rl_open(&log, path, 0) < 0) {
        perror(path);
        exit(1);
    }
    int raw = mode == CASE_RAW;
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

/* ns per call of fn, best of 3 runs of n calls */
static double time_format(long (*fn)(char *, size_t), long n)
{
    char line[4096];
    double best = 1e18;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = hw_mono_now();
        for (long i = 0; i < n; i++)
            if (fn(line, sizeof line) <= 0)
                abort();
        double ns = (hw_mono_now() - t0) * 1e9 / (double)n;
        best = ns < best ? ns : best;
    }
    return best;
}

static long fmt_phase(char *line, size_t cap)
{
    rl_field_t f[] = {RL_INT("step", 123456), RL_DBL("loss", 0.123456), RL_STR("split", "train")};
    return rl_format_phase(line, cap, "train_step", 0.0123, f, 3);
}

static const char *const argv_q[] = {
    "/usr/bin/nvidia-smi", ("--query-gpu=timestamp,utilization.gpu,memory.used,power.draw,index,uuid"),
    "--format=csv,noheader,nounits", "-l", "1"};
static const char *const argv_d[] = {"/usr/bin/nvidia-smi", "dmon", "-s", "um", "-d", "1"};
static const char *const command[] = {"python", "train.py", "--lr", "3e-4"};

static long fmt_start_json(char *line, size_t cap)
{
    rl_field_t f[] = {
        RL_STR("tool", "hwmon"),
        RL_JSON("command", "[\"python\", \"train.py\", \"--lr\", \"3e-4\"]"),
        RL_JSON("children", "[{\"name\": \"query\", \"argv\": [\"/usr/bin/nvidia-smi\", "
                            "\"--query-gpu=timestamp,utilization.gpu,memory.used,power.draw,index,"
                            "uuid\", \"--format=csv,noheader,nounits\", \"-l\", \"1\"], \"file\": "
                            "\"hw_metrics.csv\"}, {\"name\": \"dmon\", \"argv\": "
                            "[\"/usr/bin/nvidia-smi\", \"dmon\", \"-s\", \"um\", \"-d\", \"1\"], "
                            "\"file\": \"hw_dmon.csv\"}]"),
        RL_JSON("cgroup", "{\"path\": \"/pod.slice/job\", \"version\": 2}"),
        RL_JSON("samples", "{\"cpu\": 600, \"proc\": 600}"),
    };
    return rl_format_event(line, cap, "start", f, 5);
}

static long fmt_start_struct(char *line, size_t cap)
{
    rl_field_t q[] = {RL_STR("name", "query"), RL_STRV("argv", argv_q, 5),
                      RL_STR("file", "hw_metrics.csv")};
    rl_field_t d[] = {RL_STR("name", "dmon"), RL_STRV("argv", argv_d, 6),
                      RL_STR("file", "hw_dmon.csv")};
    rl_field_t ch[] = {RL_OBJ(NULL, q, 3), RL_OBJ(NULL, d, 3)};
    rl_field_t cg[] = {RL_STR("path", "/pod.slice/job"), RL_INT("version", 2)};
    rl_field_t sm[] = {RL_INT("cpu", 600), RL_INT("proc", 600)};
    rl_field_t f[] = {RL_STR("tool", "hwmon"), RL_STRV("command", command, 4),
                      RL_ARR("children", ch, 2), RL_OBJ("cgroup", cg, 2), RL_OBJ("samples", sm, 2)};
    return rl_format_event(line, cap, "start", f, 5);
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
    printf("%-8s %14s %14s %8s %18s\n", "threads", "raw ns/entry", "runlog ns/entry", "ratio",
           "no-follow ns/entry");
    int threads[] = {1, 8};
    for (int i = 0; i < 2; i++) {
        /* Alternate and keep the best of 3, so page-cache warm-up does not favour either. */
        double raw = 1e18, rl = 1e18, nf = 1e18;
        for (int rep = 0; rep < 3; rep++) {
            double a = run_case(dir, threads[i], n / threads[i], CASE_RAW);
            double b = run_case(dir, threads[i], n / threads[i], CASE_RUNLOG);
            double d = run_case(dir, threads[i], n / threads[i], CASE_NO_FOLLOW);
            raw = a < raw ? a : raw;
            rl = b < rl ? b : rl;
            nf = d < nf ? d : nf;
        }
        printf("%-8d %14.0f %14.0f %8.2f %18.0f\n", threads[i], raw, rl, rl / raw, nf);
    }
    char a[4096], b[4096];
    fmt_start_json(a, sizeof a);
    fmt_start_struct(b, sizeof b);
    if (strcmp(strchr(a, ','), strchr(b, ','))) { /* the same line, but for the timestamp */
        fprintf(stderr, "the two start events differ:\n%s%s", a, b);
        return 1;
    }
    double ph = time_format(fmt_phase, n);
    double sj = time_format(fmt_start_json, n / 4), ss = time_format(fmt_start_struct, n / 4);
    printf("format only: phase line %.0f ns; start event as JSON text %.0f ns, as structured "
           "fields %.0f ns (ratio %.2f)\n", ph, sj, ss, ss / sj);
    return 0;
}
