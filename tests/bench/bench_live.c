/* bench_live: what `summarize --live` costs while a run is written (issue 32): 8 GPUs sampled
 * at 10 Hz (hw_metrics.csv), health at 1 Hz, CPU and process rows at 10 Hz, a phase every 30 s,
 * for --minutes of run time (default 60), refreshed once per second of it.
 *
 *   cmake --build build --target bench_live summarize
 *   build/tests/bench/bench_live [--minutes 60] [--gpus 8]
 *
 * Each simulated second appends that second's rows (not timed), then times one refresh as the
 * full screen does it (sum_live_update + sum_live_screen, written to /dev/null) and as the
 * plain line does, in thread CPU time. Prints the mean and the worst refresh, the share of a
 * core at 1 refresh/s, the RSS after the first minute and at the end (memory must stay flat),
 * and, as the baseline in the same run, one `summarize --format text` of the whole run at its
 * end (what `watch summarize` pays every refresh). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "liveview.h"
#include "hwrun/rundir.h"

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static FILE *open_a(const char *dir, const char *name)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "a");
    if (!f) {
        perror(p);
        exit(1);
    }
    return f;
}

static void smi_time(char *buf, size_t cap, double t)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(buf, cap, "%04d/%02d/%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((t - (double)s) * 1000));
}

static void iso(char *buf, size_t cap, double t)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03d+00:00", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)((t - (double)s) * 1000));
}

/* One second [t, t + 1) of the run appended to its files. */
static void write_second(const char *dir, double t, int gpus)
{
    FILE *g = open_a(dir, "hw_metrics.csv"), *h = open_a(dir, "hw_health.csv"),
         *c = open_a(dir, "cpu_metrics.csv"), *p = open_a(dir, "proc_metrics.csv");
    char ts[64];
    for (int k = 0; k < 10; k++) {
        double tk = t + k * 0.1;
        smi_time(ts, sizeof ts, tk);
        for (int i = 0; i < gpus; i++)
            fprintf(g, "%s, %u, %u, %u, 81559, %u.%02u, %u, 1980, 2619, %d, GPU-%d\n", ts,
                    rnd(101), rnd(60), 40000 + rnd(2000), 300 + rnd(400), rnd(100), 40 + rnd(40),
                    i, i);
        iso(ts, sizeof ts, tk);
        fprintf(c, "%s", ts);
        for (int i = 0; i < HW_CPU_COL_COUNT; i++)
            fprintf(c, ",%u.%u", rnd(100), rnd(10));
        fprintf(c, ",0\n");
        fprintf(p, "%s", ts);
        for (int i = 0; i < HW_PROC_COL_COUNT; i++)
            fprintf(p, ",%u", 1 + rnd(1000));
        fprintf(p, ",0\n");
    }
    smi_time(ts, sizeof ts, t);
    for (int i = 0; i < gpus; i++)
        fprintf(h, "%s, %d, %u, P0, 1980, 1980, 20, 650.00, 640.00, 700.00, 700.00, "
                   "0x0000000000000004, 0, 0, 0, 0, 0, 0, 0, [N/A], No, No, 5, 5, 16, 16\n",
                ts, i, rnd(101));
    fclose(g);
    fclose(h);
    fclose(c);
    fclose(p);
    if ((long)t % 30 == 0) {
        FILE *r = open_a(dir, "run.jsonl");
        iso(ts, sizeof ts, t);
        fprintf(r, "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"epoch\", \"seconds\": 30.0, "
                   "\"steps\": 300}\n{\"ts\": \"%s\", \"type\": \"phase_begin\", \"name\": "
                   "\"epoch\", \"phase_id\": \"%ld\"}\n",
                ts, ts, (long)t);
        fclose(r);
    }
}

static void start_run(const char *dir, double t0)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        exit(1);
    }
    FILE *r = open_a(dir, "run.jsonl"), *c = open_a(dir, "cpu_metrics.csv"),
         *p = open_a(dir, "proc_metrics.csv"), *h = open_a(dir, "hw_health.csv");
    char ts[64];
    iso(ts, sizeof ts, t0);
    fprintf(r, "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
               "{\"interval_s\": 0.1, \"smi_tz\": \"UTC\", \"host\": \"bench\", \"hwmon_pid\": 1, "
               "\"gpu_query_fields\": \"%s\"}}\n",
            ts, hw_gpu_fields_default());
    fprintf(c, HW_COL_TIMESTAMP);
    for (int i = 0; i < HW_CPU_COL_COUNT; i++)
        fprintf(c, ",%s", hw_cpu_cols[i]);
    fprintf(c, "," HW_COL_EDGE "\n");
    fprintf(p, HW_COL_TIMESTAMP);
    for (int i = 0; i < HW_PROC_COL_COUNT; i++)
        fprintf(p, ",%s", hw_proc_cols[i]);
    fprintf(p, "," HW_COL_EDGE "\n");
    fprintf(h, "timestamp, index");
    for (int i = 0; i < HW_HEALTH_COUNT; i++)
        fprintf(h, ", %s", hw_health_fields[i]);
    fprintf(h, "\n");
    fclose(r);
    fclose(c);
    fclose(p);
    fclose(h);
}

int main(int argc, char **argv)
{
    int minutes = 60, gpus = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--minutes"))
            minutes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--gpus"))
            gpus = atoi(argv[i + 1]);
    }
    if (minutes < 1 || gpus < 1 || gpus > 64) {
        fprintf(stderr, "usage: bench_live [--minutes N] [--gpus 1-64]\n");
        return 2;
    }
    char dir[] = "/tmp/bench_live-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    double t0 = 1795274869.0;
    start_run(dir, t0);
    struct sum_live *screen = sum_live_new(dir, "bench"), *plain = sum_live_new(dir, "bench");
    struct sum_units u;
    sum_units_init(&u);
    struct hw_buf out;
    hw_buf_init(&out, NULL, 0);
    int devnull = open("/dev/null", O_WRONLY);
    double s_sum = 0, s_max = 0, p_sum = 0, p_max = 0;
    long rss_1min = 0;
    int n = minutes * 60;
    for (int s = 0; s < n; s++) {
        double t = t0 + s;
        write_second(dir, t, gpus);
        double c0 = thread_cpu();
        sum_live_update(screen);
        hw_buf_reset(&out);
        sum_live_screen(screen, t + 1, 50, 160, &u, &out);
        if (write(devnull, out.p, out.len) < 0)
            return 1;
        double c1 = thread_cpu();
        sum_live_update(plain);
        hw_buf_reset(&out);
        sum_live_line(plain, t + 1, &out);
        if (write(devnull, out.p, out.len) < 0)
            return 1;
        double c2 = thread_cpu();
        s_sum += c1 - c0;
        s_max = fmax(s_max, c1 - c0);
        p_sum += c2 - c1;
        p_max = fmax(p_max, c2 - c1);
        if (s == 59)
            rss_1min = rss_kib();
    }
    long rss_end = rss_kib();
    printf("run: %d GPUs at 10 Hz, %d min, %.1f MiB of files; one refresh per second of run\n",
           gpus, minutes, (double)screen->live.bytes / 1048576);
    const struct rd_live *l = &screen->live;
    unsigned long long parsed = 0, skipped = 0;
    for (int i = 0; i < RD_LIVE_SRC_COUNT; i++) {
        parsed += l->src[i].q.parsed;
        skipped += rd_quality_skipped_total(&l->src[i].q);
    }
    printf("read: %llu lines parsed, %llu skipped, %d GPUs, %llu phases, GPU 0 %.1f Wh\n",
           parsed, skipped, l->ngpus, (unsigned long long)l->phases,
           l->gpu[0].energy.joules / 3600);
    printf("full screen: mean %.3f ms, worst %.3f ms per refresh = %.3f%% of a core\n",
           s_sum / n * 1e3, s_max * 1e3, s_sum / n * 100);
    printf("plain line:  mean %.3f ms, worst %.3f ms per refresh = %.3f%% of a core\n",
           p_sum / n * 1e3, p_max * 1e3, p_sum / n * 100);
    printf("RSS: %ld KiB after 1 min, %ld KiB after %d min\n", rss_1min, rss_end, minutes);

    /* the baseline: what a refresh costs the way the issue found users doing it (a whole
     * summary every second) */
    double w0 = mono();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(devnull, 1);
        execl(SUMMARIZE_BIN, "summarize", "-q", "--format", "text", dir, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    double whole = mono() - w0;
    printf("baseline: summarize --format text of the whole run: %.3f s wall (x%.0f one full-screen "
           "refresh)\n",
           whole, whole / (s_sum / n));
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    sum_live_free(screen);
    sum_live_free(plain);
    hw_buf_free(&out);
    close(devnull);
    return system(cmd) == 0 ? 0 : 1;
}
