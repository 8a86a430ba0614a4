/* bench_summarize: how fast summarize reads a large hw_metrics.csv, against a bare libcsv parse
 * of the same file and against the pytyche oracle, and how much memory it needs.
 *
 *   build/tests/bench/bench_summarize [--size 1G] [--oracle-size 64M] [--gpus 8]
 *       [--tmp DIR] [--summarize PATH] [--oracle PATH] [--no-oracle] [--runs N] [--keep]
 *   build/tests/bench/bench_summarize --bare FILE     (bare libcsv on FILE only)
 *
 * It generates hwmon-style rows (11 columns, N GPUs per timestamp, slowly varying values, a few
 * [N/A]) into a temporary directory, then measures (best of --runs runs, default 3, bare libcsv
 * and the library interleaved; file in page cache), by wall time and by CPU time (user + system,
 * which the machine's other load disturbs least):
 *   1. bare libcsv: read(2) in 256 KiB chunks + csv_parse with empty callbacks;
 *   2. summarize's library on the same file (sum_run_summarize: readers + all statistics),
 *      as shipped and with every line split by libcsv (the fast path for quote-free lines off);
 *   3. the summarize binary (--format csv) for wall time and peak RSS (wait4), on prefixes of
 *      10 MB, 100 MB and the full size, to show RSS is flat; its baseline is bare libcsv on the
 *      same prefix run as a process of its own (this program with --bare FILE), interleaved,
 *      since a new process starts slower than a warm loop;
 *   4. the oracle (python3 pytyche_summary.py) on a --oracle-size prefix, scaled to MB/s (only
 *      when the oracle is there: it lives outside this repository);
 *   5. a sweep: --sweep run directories (default 1000) of --sweep-rows rows each, summarized by
 *      one binary with -j 1 and -j 2 (wall time, directories per second, speed-up).
 * Every throughput is also printed as a ratio to bare libcsv and to the oracle measured in the
 * same run. The temporary directory is removed at the end. Goals (issue 10): the library >= 2x
 * bare libcsv and >= 10x the oracle on one thread, peak RSS flat from 10 MB to 1 GB, -j 2
 * close to 2x -j 1 on a sweep. --keep leaves the generated files (hw_metrics.csv and its 10 MB
 * and 100 MB prefixes) in place for profiling and prints where they are. */
#include <csv.h>
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

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "report.h"
#include "summary.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU seconds (user + system) this process has used: what the machine's other load changes
 * least, so ratios of it are steadier than of wall time on a shared machine. */
static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* How long one measured step took, and the best (least) of several. */
struct took {
    double wall, cpu;
};

static struct took took_since(double wall0, double cpu0)
{
    return (struct took){now() - wall0, cpu_now() - cpu0};
}

static void took_best(struct took *best, struct took t)
{
    best->wall = fmin(best->wall, t.wall);
    best->cpu = fmin(best->cpu, t.cpu);
}

static unsigned long long parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    switch (*end) {
    case 'k': case 'K': v *= 1e3; break;
    case 'm': case 'M': v *= 1e6; break;
    case 'g': case 'G': v *= 1e9; break;
    default: break;
    }
    return (unsigned long long)v;
}

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Write `size` bytes (whole lines) of hwmon rows; returns the bytes written. */
static unsigned long long generate(const char *path, unsigned long long size, int gpus)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    unsigned long long written = 0;
    double t = 1795274869.0;
    unsigned util[64] = {0}, mem[64], power[64], temp[64];
    for (int g = 0; g < gpus; g++)
        mem[g] = 20000 + 1000 * (unsigned)g, power[g] = 30000, temp[g] = 50;
    while (written < size) {
        time_t s = (time_t)t;
        struct tm tm;
        gmtime_r(&s, &tm);
        char ts[80];
        snprintf(ts, sizeof ts, "%04d/%02d/%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 (int)((t - (double)s) * 1000));
        for (int g = 0; g < gpus; g++) {
            util[g] = rnd(10) ? (rnd(4) ? 100 : 95 + rnd(6)) : rnd(101);
            mem[g] = mem[g] + rnd(64) - 31;
            if (mem[g] > 81000)
                mem[g] = 81000;
            power[g] = 20000 + rnd(50000);
            temp[g] = 40 + rnd(40);
            char line[300];
            int n;
            if (rnd(1000) == 0)
                n = snprintf(line, sizeof line,
                             "%s, %u, %u, %u, 81559, [N/A], %u, 1980, 2619, %d, "
                             "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42%02d\n",
                             ts, util[g], util[g] / 3, mem[g], temp[g], g, g);
            else
                n = snprintf(line, sizeof line,
                             "%s, %u, %u, %u, 81559, %u.%02u, %u, 1980, 2619, %d, "
                             "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42%02d\n",
                             ts, util[g], util[g] / 3, mem[g], power[g] / 100, power[g] % 100,
                             temp[g], g, g);
            fwrite(line, 1, (size_t)n, f);
            written += (unsigned long long)n;
        }
        t += 0.1 + (double)rnd(3) * 0.0005;
    }
    if (fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    return written;
}

/* A prefix of `path` of about `size` bytes, cut at a line end. */
static unsigned long long make_prefix(const char *path, const char *out, unsigned long long size)
{
    FILE *in = fopen(path, "r"), *o = fopen(out, "w");
    if (!in || !o) {
        perror(out);
        exit(1);
    }
    char line[4096];
    unsigned long long n = 0;
    while (n < size && fgets(line, sizeof line, in)) {
        size_t l = strlen(line);
        fwrite(line, 1, l, o);
        n += l;
    }
    fclose(in);
    fclose(o);
    return n;
}

static void nop_field(void *s, size_t n, void *c)
{
    (void)s, (void)n;
    ++*(unsigned long long *)c;
}

static void nop_row(int ch, void *c)
{
    (void)ch, (void)c;
}

static struct took bare_libcsv(const char *path)
{
    double t0 = now(), c0 = cpu_now();
    int fd = open(path, O_RDONLY);
    struct csv_parser p;
    csv_init(&p, 0);
    static char buf[256 * 1024];
    unsigned long long fields = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        csv_parse(&p, buf, (size_t)n, nop_field, nop_row, &fields);
    csv_fini(&p, nop_field, nop_row, &fields);
    csv_free(&p);
    close(fd);
    struct took dt = took_since(t0, c0);
    if (!fields)
        fprintf(stderr, "bare libcsv read nothing\n");
    return dt;
}

/* libcsv_only: every line split by libcsv, no fast path for quote-free lines (the baseline). */
static struct took library(const char *path, bool libcsv_only)
{
    double t0 = now(), c0 = cpu_now();
    struct sum_inputs in = {0};
    in.path[HW_FILE_GPU] = path;
    struct sum_run *run = sum_run_new();
    struct sum_config cfg = {.libcsv_only = libcsv_only};
    sum_run_summarize(run, &in, &cfg);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_json(run, &b);
    sum_run_free(run);
    hw_buf_free(&b);
    return took_since(t0, c0);
}

/* Run argv, return its wall and CPU seconds; *rss_kb = peak RSS of the child. */
static struct took run_child(char *const argv[], long *rss_kb)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return (struct took){NAN, NAN};
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "%s exited with status %d\n", argv[0], WEXITSTATUS(st));
    *rss_kb = ru.ru_maxrss;
    return (struct took){now() - t0, (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                                         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6};
}

/* n run directories under root (run-0000 ...), each a short hwmon run: hw_metrics.csv with
 * `rows` rows of 2 GPUs, cpu_metrics.csv and run.jsonl. Their paths go into dirs[]. */
static void make_sweep(const char *root, int n, int rows, char **dirs)
{
    for (int i = 0; i < n; i++) {
        char d[800], p[900];
        snprintf(d, sizeof d, "%s/run-%04d", root, i);
        if (mkdir(d, 0755) != 0) {
            perror(d);
            exit(1);
        }
        dirs[i] = strdup(d);
        snprintf(p, sizeof p, "%s/hw_metrics.csv", d);
        FILE *f = fopen(p, "w");
        snprintf(p, sizeof p, "%s/cpu_metrics.csv", d);
        FILE *c = fopen(p, "w");
        snprintf(p, sizeof p, "%s/run.jsonl", d);
        FILE *r = fopen(p, "w");
        if (!f || !c || !r) {
            perror(p);
            exit(1);
        }
        fprintf(f, "timestamp, index, utilization.gpu [%%], utilization.memory [%%], "
                   "memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu\n");
        fprintf(c, "timestamp,usr_pct,idle_pct\n");
        fprintf(r, "{\"t\": 1795274869.0, \"event\": \"start\", \"data\": {\"lr\": %g}}\n",
                1e-4 * (i % 7 + 1));
        for (int k = 0; k < rows; k++) {
            int s = 49 + k / 10;
            for (int g = 0; g < 2; g++)
                fprintf(f, "2026/11/21 15:%02d:%02d.%d00, %d, %u, %u, %u, 81559, %u.%02u, %u\n",
                        27 + s / 60 % 30, s % 60, k % 10, g, rnd(101), rnd(40), 20000 + rnd(60000),
                        200 + rnd(500), rnd(100), 40 + rnd(40));
            if (k % 10 == 0)
                fprintf(c, "2026-11-21T15:%02d:%02d.000+00:00,%u.%u,%u.%u\n", 27 + s / 60 % 30,
                        s % 60, rnd(100), rnd(10), rnd(100), rnd(10));
        }
        fprintf(r, "{\"t\": %.1f, \"event\": \"end\", \"data\": {\"exit_status\": 0}}\n",
                1795274869.0 + rows / 10.0);
        fclose(f);
        fclose(c);
        fclose(r);
    }
}

static void remove_sweep(int n, char **dirs)
{
    static const char *const files[] = {"hw_metrics.csv", "cpu_metrics.csv", "run.jsonl"};
    for (int i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
            char p[900];
            snprintf(p, sizeof p, "%s/%s", dirs[i], files[k]);
            unlink(p);
        }
        rmdir(dirs[i]);
        free(dirs[i]);
    }
}

int main(int argc, char **argv)
{
    unsigned long long size = 1000000000ULL, oracle_size = 64000000ULL;
    int gpus = 8, sweep = 1000, sweep_rows = 300, runs = 3;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *bin = NULL, *oracle = NULL;
    bool use_oracle = true, keep = false;
    static const struct option opts[] = {{"size", required_argument, NULL, 's'},
                                         {"oracle-size", required_argument, NULL, 'O'},
                                         {"gpus", required_argument, NULL, 'g'},
                                         {"tmp", required_argument, NULL, 't'},
                                         {"summarize", required_argument, NULL, 'b'},
                                         {"oracle", required_argument, NULL, 'p'},
                                         {"no-oracle", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"sweep", required_argument, NULL, 'S'},
                                         {"sweep-rows", required_argument, NULL, 'R'},
                                         {"keep", no_argument, NULL, 'k'},
                                         {"runs", required_argument, NULL, 'r'},
                                         {"bare", required_argument, NULL, 'B'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "s:g:h", opts, NULL)) != -1) {
        switch (c) {
        case 's': size = parse_size(optarg); break;
        case 'O': oracle_size = parse_size(optarg); break;
        case 'g': gpus = atoi(optarg) > 0 && atoi(optarg) <= 64 ? atoi(optarg) : 8; break;
        case 't': tmp = optarg; break;
        case 'b': bin = optarg; break;
        case 'p': oracle = optarg; break;
        case 'n': use_oracle = false; break;
        case 'k': keep = true; break;
        case 'B': bare_libcsv(optarg); return 0; /* the baseline as a process of its own */
        case 'r': runs = atoi(optarg) > 0 && atoi(optarg) <= 100 ? atoi(optarg) : 3; break;
        case 'S':
            sweep = atoi(optarg) >= 0 && atoi(optarg) <= 100000 ? atoi(optarg) : 1000;
            break;
        case 'R':
            sweep_rows = atoi(optarg) > 0 && atoi(optarg) <= 1000000 ? atoi(optarg) : 300;
            break;
        default:
            fprintf(stderr,
                    "usage: %s [--size 1G] [--oracle-size 64M] [--gpus 8] [--tmp DIR] "
                    "[--summarize PATH] [--oracle PATH] [--no-oracle] [--sweep N] "
                    "[--sweep-rows N] [--runs N] [--keep] | --bare FILE\n",
                    argv[0]);
            return c == 'h' ? 0 : 2;
        }
    }
    if (!bin)
        bin = SUMMARIZE_BIN;
    if (!oracle)
        oracle = ORACLE_PY;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/bench-summarize-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    char full[600], p10[600], p100[600], pora[600];
    snprintf(full, sizeof full, "%s/hw_metrics.csv", dir);
    snprintf(p10, sizeof p10, "%s/p10.csv", dir);
    snprintf(p100, sizeof p100, "%s/p100.csv", dir);
    snprintf(pora, sizeof pora, "%s/oracle.csv", dir);
    fprintf(stderr, "generating %.0f MB of hw_metrics.csv (%d GPUs) in %s ...\n", size / 1e6,
            gpus, dir);
    double t0 = now();
    unsigned long long bytes = generate(full, size, gpus);
    sync();
    fprintf(stderr, "  done in %.1f s\n", now() - t0);
    double mb = (double)bytes / 1e6;

    if (use_oracle && access(oracle, R_OK) != 0) {
        fprintf(stderr, "no pytyche oracle at %s: no ratios to it\n", oracle);
        use_oracle = false;
    }
    double ora = NAN; /* oracle MB/s */
    unsigned long long ob = 0;
    double ora_t = NAN;
    long ora_rss = 0;
    if (use_oracle) {
        ob = make_prefix(full, pora, oracle_size < bytes ? oracle_size : bytes);
        char *av[] = {"python3", (char *)oracle, "--gpu-csv", pora, NULL};
        ora_t = run_child(av, &ora_rss).wall;
        ora = ob / 1e6 / ora_t;
    }

    struct took bare = {INFINITY, INFINITY}, lib = {INFINITY, INFINITY};
    for (int i = 0; i < runs; i++) { /* interleaved, so both see the same machine */
        took_best(&bare, bare_libcsv(full));
        took_best(&lib, library(full, false));
    }
    double bare_mbs = mb / bare.wall;
    /* the ratios of a step's throughput to bare libcsv's on the same input (base), by wall and
     * by CPU time, and to the oracle's (t: the step's struct took for `bytes` of input) */
#define RATIOS(t, base, bytes)                                                                     \
    printf(" = %.2fx bare libcsv (CPU time: %.2fx)", (base).wall / (t).wall, (base).cpu / (t).cpu); \
    if (use_oracle)                                                                                \
        printf(", %.1fx pytyche", (bytes) / 1e6 / (t).wall / ora);                                \
    printf("\n")
    double bytes_all = (double)bytes;
    printf("input: %.1f MB, %d GPUs; best of %d runs\n", mb, gpus, runs);
    printf("bare libcsv parse:           %7.1f MB/s (%.2f s, CPU %.2f s)\n", bare_mbs, bare.wall,
           bare.cpu);
    if (use_oracle)
        printf("pytyche oracle, %7.1f MB:   %7.1f MB/s (%.2f s), peak RSS %5.1f MB\n", ob / 1e6,
               ora, ora_t, ora_rss / 1024.0);
    printf("summarize (library):         %7.1f MB/s (%.2f s)", mb / lib.wall, lib.wall);
    RATIOS(lib, bare, bytes_all);
    /* the same with every line split by libcsv (no fast path for quote-free lines) */
    struct took lib2 = {INFINITY, INFINITY};
    for (int i = 0; i < 2; i++)
        took_best(&lib2, library(full, true));
    printf("  ... every line via libcsv: %7.1f MB/s (%.2f s)", mb / lib2.wall, lib2.wall);
    RATIOS(lib2, bare, bytes_all);

    struct {
        const char *path;
        unsigned long long bytes;
    } sizes[3] = {{p10, 0}, {p100, 0}, {full, bytes}};
    sizes[0].bytes = make_prefix(full, p10, 10000000ULL);
    sizes[1].bytes = make_prefix(full, p100, 100000000ULL);
    sync(); /* the prefixes' writeback would otherwise run while the binary is timed */
    for (int i = 0; i < 3; i++) {
        if (i < 2 && sizes[i].bytes * 10 >= bytes * 9) /* not a prefix: the full file */
            continue;
        char *av[] = {(char *)bin, "-q", "-f", "csv", "--gpu-csv", (char *)sizes[i].path, NULL};
        long rss = 0;
        /* bare libcsv on the same file in a process of its own (this program with --bare),
         * interleaved: a new process starts slower than a warm loop, for both alike */
        char *bare_av[] = {"/proc/self/exe", "--bare", (char *)sizes[i].path, NULL};
        struct took t = {INFINITY, INFINITY}, base = {INFINITY, INFINITY};
        for (int k = 0; k < runs; k++) {
            long r1 = 0;
            took_best(&base, run_child(bare_av, &r1));
            took_best(&t, run_child(av, &r1));
            rss = r1 > rss ? r1 : rss;
        }
        printf("summarize binary, %7.1f MB: %6.2f s, %7.1f MB/s, peak RSS %5.1f MB",
               sizes[i].bytes / 1e6, t.wall, sizes[i].bytes / 1e6 / t.wall, rss / 1024.0);
        RATIOS(t, base, (double)sizes[i].bytes);
    }

    if (sweep > 0) {
        char sroot[700];
        snprintf(sroot, sizeof sroot, "%s/sweep", dir);
        mkdir(sroot, 0755);
        char **dirs = calloc((size_t)sweep, sizeof *dirs);
        make_sweep(sroot, sweep, sweep_rows, dirs);
        char **av = calloc((size_t)sweep + 8, sizeof *av);
        double t1 = NAN;
        for (int jobs = 1; jobs <= 2; jobs++) {
            int k = 0;
            av[k++] = (char *)bin;
            av[k++] = "-q";
            av[k++] = "-f";
            av[k++] = "csv";
            av[k++] = "-j";
            av[k++] = jobs == 1 ? "1" : "2";
            for (int i = 0; i < sweep; i++)
                av[k++] = dirs[i];
            av[k] = NULL;
            long rss = 0, rss2 = 0;
            double t = fmin(run_child(av, &rss).wall, run_child(av, &rss2).wall);
            if (jobs == 1)
                t1 = t;
            printf("sweep of %d run directories (%d rows x 2 GPUs), -j %d: %6.2f s, %6.0f dirs/s, "
                   "peak RSS %5.1f MB%s",
                   sweep, sweep_rows, jobs, t, sweep / t, (rss > rss2 ? rss : rss2) / 1024.0,
                   jobs == 2 ? "" : "\n");
            if (jobs == 2)
                printf(", %.2fx -j 1\n", t1 / t);
        }
        free(av);
        remove_sweep(sweep, dirs);
        free(dirs);
        rmdir(sroot);
    }
    if (keep) { /* leave the generated files for profiling (callgrind, perf) */
        fprintf(stderr, "kept %s\n", dir);
        return 0;
    }
    unlink(full);
    unlink(p10);
    unlink(p100);
    unlink(pora);
    rmdir(dir);
    return 0;
}
