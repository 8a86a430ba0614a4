/* bench_hwmon: what hwmon costs and how well it keeps time (a program, not a test).
 *
 *   bench_hwmon [-b HWMON] [-d SECONDS] [-i SECONDS] [-s FAKE_SMI] [-n FAKE_NVML]
 *
 * 1. hwmon -p <one busy process> --no-gpu at -i (default 0.1 s = 10 Hz) for -d seconds (default
 *    60): hwmon's own CPU time per sample (utime+stime from wait4(), which with --no-gpu has no
 *    children to include; and the steady state between 2 s and d-1 s, which leaves out
 *    start-up, from /proc/<hwmon>/stat ticks and exactly from task/TID/schedstat), and its peak
 *    RSS (ru_maxrss = VmHWM).
 * 2. hwmon in system mode with every core busy: samples taken vs expected (d / i), skipped
 *    slots.
 * 3. the Prometheus export's cost (issue 12): run 1 again, once without and once with
 *    --prom-textfile (rewritten every second, 10 times the default rate), same duration:
 *    steady-state CPU per sample of each and their ratio. With -s FAKE_SMI both runs also have
 *    the fake nvidia-smi's GPU files to follow (hwmon's own CPU only: children not counted).
 * 4. with -s FAKE_SMI, issue 21's recording: run 1 with --no-health --no-nvml and with both
 *    (the fake libnvidia-ml.so of -n for the counters), twice each, interleaved: hwmon's
 *    steady-state CPU per sample and the ratio.
 * Goals (issue 3): <= 40 us CPU per sample, peak RSS <= 4 MB, samples = expected +- 1.
 * HWMON defaults to $HWRUN_HWMON_BIN, then ./hwmon/hwmon. Exit 0 when all goals are met. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    for (double d; (d = t - now()) > 0;) {
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

static pid_t busy(void)
{
    pid_t p = fork();
    if (p == 0) {
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    return p;
}

static long long ticks_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return -1;
    p += 3; /* past ") S" */
    long long v[13];
    for (int i = 0; i < 13; i++) /* fields 4 .. 16: ppid .. cutime; utime = 14, stime = 15 */
        v[i] = strtoll(p, &p, 10);
    return v[10] + v[11];
}

/* CPU time of all of pid's threads in ns, from task/TID/schedstat (exact, unlike the 10 ms
 * ticks of stat). -1 if unavailable. */
static long long sched_ns(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    long long sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char p2[320], buf[128];
        snprintf(p2, sizeof p2, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
        int fd = open(p2, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            sum += strtoll(buf, NULL, 10);
        }
    }
    closedir(d);
    return sum;
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static long skipped_slots(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/run.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    long s = -1;
    while (fgets(line, sizeof line, f)) {
        char *p = strstr(line, "\"skipped_slots\": ");
        if (p)
            s = strtol(p + 17, NULL, 10);
    }
    fclose(f);
    return s;
}

static pid_t start_hwmon(const char *bin, char *const argv[]);

/* Steady-state CPU per sample (us, schedstat) of hwmon -p <busy> with extra options. */
static double export_cost(const char *bin, const char *dir, const char *is, const char *ds,
                          double iv, double dur, const char *smi, const char *prom_dir,
                          const char *extra)
{
    pid_t work = busy();
    char ps[32];
    snprintf(ps, sizeof ps, "%d", (int)work);
    char *a[24];
    int n = 0;
    a[n++] = (char *)bin;
    a[n++] = "-q";
    if (smi) {
        a[n++] = "--nvidia-smi";
        a[n++] = (char *)smi;
    } else {
        a[n++] = "--no-gpu";
    }
    a[n++] = "-i";
    a[n++] = (char *)is;
    a[n++] = "-d";
    a[n++] = (char *)ds;
    a[n++] = "-o";
    a[n++] = (char *)dir;
    a[n++] = "-p";
    a[n++] = ps;
    for (const char *e = extra; e && *e;) { /* space-separated options */
        static char words[4][32];
        static int nw;
        size_t l = strcspn(e, " ");
        snprintf(words[nw % 4], sizeof words[0], "%.*s", (int)l, e);
        a[n++] = words[nw++ % 4];
        e += l + (e[l] == ' ');
    }
    if (prom_dir) {
        a[n++] = "--prom-textfile";
        a[n++] = (char *)prom_dir;
        a[n++] = "--prom-interval";
        a[n++] = "1";
    }
    a[n] = NULL;
    double t0 = now();
    pid_t h = start_hwmon(bin, a);
    sleep_until(t0 + 2);
    long long n0 = sched_ns(h);
    double m0 = now();
    sleep_until(t0 + dur - 1);
    long long n1 = sched_ns(h);
    double m1 = now();
    while (waitpid(h, NULL, 0) < 0 && errno == EINTR)
        ;
    kill(work, SIGKILL);
    waitpid(work, NULL, 0);
    return n0 >= 0 && n1 >= n0 ? (double)(n1 - n0) / 1e3 / ((m1 - m0) / iv) : -1;
}

static pid_t start_hwmon(const char *bin, char *const argv[])
{
    pid_t p = fork();
    if (p == 0) {
        int fd = open("/dev/null", O_RDWR);
        dup2(fd, 0);
        dup2(fd, 1);
        execv(bin, argv);
        _exit(127);
    }
    (void)bin;
    return p;
}

int main(int argc, char **argv)
{
    const char *bin = getenv("HWRUN_HWMON_BIN");
    if (!bin)
        bin = "./hwmon/hwmon";
    double dur = 60, iv = 0.1;
    const char *smi = NULL, *nvml = NULL;
    int c;
    while ((c = getopt(argc, argv, "b:d:i:s:n:h")) != -1) {
        switch (c) {
        case 'b':
            bin = optarg;
            break;
        case 'd':
            dur = strtod(optarg, NULL);
            break;
        case 'i':
            iv = strtod(optarg, NULL);
            break;
        case 's':
            smi = optarg;
            break;
        case 'n':
            nvml = optarg;
            break;
        default:
            fprintf(stderr, "usage: %s [-b HWMON] [-d SECONDS] [-i SECONDS] [-s FAKE_SMI]\n",
                    argv[0]);
            return 2;
        }
    }
    if (dur < 4 || iv <= 0) {
        fprintf(stderr, "bench_hwmon: -d must be >= 4 s and -i > 0\n");
        return 2;
    }
    long tck = sysconf(_SC_CLK_TCK);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    char tmpl[] = "/tmp/bench-hwmon-XXXXXX";
    char *base = mkdtemp(tmpl);
    if (!base) {
        perror("mkdtemp");
        return 1;
    }
    char d1[4200], d2[4200], ds[32], is[32], ps[32];
    snprintf(d1, sizeof d1, "%s/cost", base);
    snprintf(d2, sizeof d2, "%s/load", base);
    snprintf(ds, sizeof ds, "%g", dur);
    snprintf(is, sizeof is, "%g", iv);
    long expected = (long)(dur / iv + 1e-9);
    int ok = 1;

    /* 1. cost: one busy process tracked at -i for dur seconds */
    pid_t work = busy();
    snprintf(ps, sizeof ps, "%d", (int)work);
    char *a1[] = {(char *)bin, "-q", "--no-gpu", "-i", is, "-d", ds, "-o", d1, "-p", ps, NULL};
    double t0 = now();
    pid_t h = start_hwmon(bin, a1);
    sleep_until(t0 + 2);
    long long k0 = ticks_of(h), n0 = sched_ns(h);
    double m0 = now();
    sleep_until(t0 + dur - 1);
    long long k1 = ticks_of(h), n1 = sched_ns(h);
    double m1 = now();
    int st;
    struct rusage ru;
    while (wait4(h, &st, 0, &ru) < 0 && errno == EINTR)
        ;
    kill(work, SIGKILL);
    waitpid(work, NULL, 0);
    char p1[4300];
    snprintf(p1, sizeof p1, "%s/cpu_metrics.csv", d1);
    long got1 = count_lines(p1) - 1;
    double cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                   (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    double us_total = got1 > 0 ? cpu_s * 1e6 / (double)got1 : -1;
    double steady_samples = (m1 - m0) / iv;
    double us_steady =
        k0 >= 0 && k1 >= k0 ? (double)(k1 - k0) / (double)tck * 1e6 / steady_samples : -1;
    printf("hwmon cost, -p one busy process, --no-gpu, -i %g, %g s (exit %d):\n", iv, dur,
           WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    printf("  samples            %ld (expected %ld)\n", got1, expected);
    printf("  CPU total          %.3f s (user %.3f, sys %.3f), incl. start-up\n", cpu_s,
           ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
           ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
    printf("  CPU per sample     %.1f us (whole run), %.1f us (steady state, %lld ticks over "
           "%.0f samples; %ld ticks/s)\n",
           us_total, us_steady, k1 - k0, steady_samples, tck);
    if (n0 >= 0 && n1 >= n0)
        printf("  CPU per sample     %.1f us (steady state, exact: task/*/schedstat)\n",
               (double)(n1 - n0) / 1e3 / steady_samples);
    printf("  peak RSS (VmHWM)   %ld KiB\n", ru.ru_maxrss);
    if (us_total > 40 || ru.ru_maxrss > 4096 || labs(got1 - expected) > 1)
        ok = 0;

    /* 2. timekeeping with every core busy */
    pid_t hogs[64];
    long nh = ncpu < 64 ? ncpu : 64;
    for (long i = 0; i < nh; i++)
        hogs[i] = busy();
    char *a2[] = {(char *)bin, "-q", "--no-gpu", "-i", is, "-d", ds, "-o", d2, NULL};
    t0 = now();
    h = start_hwmon(bin, a2);
    while (waitpid(h, &st, 0) < 0 && errno == EINTR)
        ;
    double el = now() - t0;
    for (long i = 0; i < nh; i++) {
        kill(hogs[i], SIGKILL);
        waitpid(hogs[i], NULL, 0);
    }
    char p2[4300];
    snprintf(p2, sizeof p2, "%s/cpu_metrics.csv", d2);
    long got2 = count_lines(p2) - 1;
    printf("timekeeping, system mode, %ld busy processes on %ld cores, -i %g, %g s:\n", nh, ncpu,
           iv, dur);
    printf("  samples            %ld (expected %ld), skipped slots %ld, wall %.2f s\n", got2,
           expected, skipped_slots(d2), el);
    if (labs(got2 - expected) > 1)
        ok = 0;

    /* 3. the Prometheus export: the same run without and with it */
    char d3[4200], d4[4200], pd[4200];
    snprintf(d3, sizeof d3, "%s/noexport", base);
    snprintf(d4, sizeof d4, "%s/export", base);
    snprintf(pd, sizeof pd, "%s/textfile", base);
    mkdir(pd, 0755);
    double without = export_cost(bin, d3, is, ds, iv, dur, smi, NULL, NULL);
    double with = export_cost(bin, d4, is, ds, iv, dur, smi, pd, NULL);
    printf("Prometheus export, -p one busy process, %s, -i %g, %g s, rewritten every 1 s:\n",
           smi ? "fake nvidia-smi (2 GPUs)" : "--no-gpu", iv, dur);
    printf("  CPU per sample     %.1f us without, %.1f us with --prom-textfile (ratio %.2f)\n",
           without, with, without > 0 ? with / without : -1);
    /* 4. issue 21's recording (hw_health.csv's child, NVML's counters read by the sampler):
     * the same run with --no-health --no-nvml and with both (the fake NVML of -n); hwmon's own
     * CPU (the health child is nvidia-smi's, one process for the run, not per sample) */
    if (smi) {
        char d5[4200], d6[4200];
        snprintf(d5, sizeof d5, "%s/off", base);
        snprintf(d6, sizeof d6, "%s/on", base);
        if (nvml)
            setenv("HWMON_NVML_LIBRARY", nvml, 1);
        double off = 0, on = 0;
        for (int rep = 0; rep < 2; rep++) { /* interleaved: the machine's load drifts */
            off += export_cost(bin, d5, is, ds, iv, dur, smi, NULL, "--no-health --no-nvml");
            on += export_cost(bin, d6, is, ds, iv, dur, smi, NULL, NULL);
            char cmd[9000];
            snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", d5, d6);
            if (system(cmd) != 0)
                break;
        }
        printf("health child and NVML counters (%s), -p one busy process, fake nvidia-smi "
               "(2 GPUs), -i %g, %g s x 2:\n",
               nvml ? "fake NVML" : "no NVML", iv, dur);
        printf("  CPU per sample     %.1f us off, %.1f us on (ratio %.2f)\n", off / 2, on / 2,
               off > 0 ? on / off : -1);
    }
    printf("goals (<= 40 us/sample, <= 4096 KiB, expected +-1): %s\n", ok ? "met" : "NOT met");
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_hwmon: could not remove %s\n", base);
    return ok ? 0 : 1;
}
