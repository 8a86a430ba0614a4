/* bench_job: the job summary of a many-node job (summarize JOBDIR) against summarizing its node
 * directories one by one (the sum of single-node summaries) and as a sweep in one process
 * (summarize -f csv NODEDIR...), by wall time, CPU time and peak RSS.
 *
 *   build/tests/bench/bench_job [--nodes 64] [--gpus 8] [--hours 2] [--interval 1] [-j 2]
 *       [--tmp DIR] [--summarize PATH] [--keep]
 *
 * It writes --nodes run directories under one job directory: hwmon's start and stop events, a
 * phase per node per 10 minutes (one node 5% slower: the straggler), and nvidia-smi query rows of
 * --gpus GPUs every --interval seconds for --hours (64 x 8 x 2 h at 1 s: 3.7 million GPU rows,
 * about 400 MB). Node clocks are set up to 2 s apart. Each measurement is the best of 3 runs
 * (files in the page cache). The job summary is expected to cost what the sweep costs (it reads
 * the same files once, on the same -j pool) plus its joins, with a peak RSS that grows with the
 * nodes, not with the rows. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
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

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
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

static FILE *open_w(const char *dir, const char *name)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        exit(1);
    }
    return f;
}

/* One node's run directory; returns its GPU rows. */
static unsigned long long write_node(const char *dir, int node, int gpus, double hours,
                                     double interval, bool slow)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        exit(1);
    }
    double t0 = 1795274869.0 + node * 0.031; /* launch delay and clock offset */
    double dur = hours * 3600;
    FILE *r = open_w(dir, "run.jsonl"), *f = open_w(dir, "hw_metrics.csv");
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    char ts[64];
    iso(ts, sizeof ts, t0);
    fprintf(r, "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": {\"tool\": "
               "\"hwmon\", \"interval_s\": %g, \"host\": \"node%03d\", \"smi_tz\": \"UTC\", "
               "\"gpu_query_fields\": \"timestamp,utilization.gpu,utilization.memory,memory.used,"
               "memory.total,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,"
               "index,uuid\", \"context\": {\"host\": \"node%03d\", \"slurm_job_id\": \"4242\", "
               "\"slurm_node_id\": \"%d\"}}}\n",
            ts, interval, node, node, node);
    double step = 600;
    for (double p = 0; p + step <= dur; p += step) {
        double len = step * (slow ? 1.0 : 0.95);
        iso(ts, sizeof ts, t0 + p + len);
        fprintf(r, "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"epoch\", \"seconds\": %.3f}\n",
                ts, len);
    }
    unsigned long long rows = 0;
    unsigned mem[64];
    for (int g = 0; g < gpus; g++)
        mem[g] = 20000 + 1000 * (unsigned)g;
    for (double t = t0; t < t0 + dur; t += interval) {
        time_t s = (time_t)t;
        struct tm tm;
        gmtime_r(&s, &tm);
        char st[64];
        snprintf(st, sizeof st, "%04d/%02d/%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 (int)((t - (double)s) * 1000));
        for (int g = 0; g < gpus; g++) {
            mem[g] += rnd(64) - 31;
            if (mem[g] > 81000)
                mem[g] = 81000;
            unsigned pw = 20000 + rnd(50000);
            fprintf(f, "%s, %u, %u, %u, 81559, %u.%02u, %u, 1980, 2619, %d, "
                       "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3e%03d%02d\n",
                    st, rnd(101), rnd(60), mem[g], pw / 100, pw % 100, 40 + rnd(40), g, node, g);
            rows++;
        }
    }
    iso(ts, sizeof ts, t0 + dur);
    fprintf(r, "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
               "{\"duration_s\": %.3f, \"exit_status\": 0, \"reason\": \"command_exit\"}}\n",
            ts, dur);
    fclose(r);
    if (fclose(f) != 0) {
        perror(dir);
        exit(1);
    }
    return rows;
}

struct meas {
    double wall, cpu, rss_mib;
};

/* Run argv with stdout to /dev/null; its wall time, CPU time and peak RSS. */
static struct meas run(char **argv)
{
    fflush(stdout); /* the child's freopen would write our buffer out again */
    double t = now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_job: %s failed\n", argv[0]);
        exit(1);
    }
    return (struct meas){now() - t,
                         (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                             (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6,
                         (double)ru.ru_maxrss / 1024};
}

static void best(struct meas *b, struct meas m)
{
    if (!(b->wall <= m.wall))
        b->wall = m.wall;
    if (!(b->cpu <= m.cpu))
        b->cpu = m.cpu;
    if (!(b->rss_mib >= m.rss_mib))
        b->rss_mib = m.rss_mib;
}

int main(int argc, char **argv)
{
    int nodes = 64, gpus = 8, jobs = 2;
    double hours = 2, interval = 1;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *bin = SUMMARIZE_BIN;
    bool keep = false;
    static const struct option lo[] = {
        {"nodes", required_argument, NULL, 'n'}, {"gpus", required_argument, NULL, 'g'},
        {"hours", required_argument, NULL, 'H'}, {"interval", required_argument, NULL, 'i'},
        {"jobs", required_argument, NULL, 'j'},  {"tmp", required_argument, NULL, 't'},
        {"summarize", required_argument, NULL, 's'}, {"keep", no_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = getopt_long(argc, argv, "n:g:H:i:j:t:s:kh", lo, NULL)) != -1) {
        switch (o) {
        case 'n': nodes = atoi(optarg); break;
        case 'g': gpus = atoi(optarg); break;
        case 'H': hours = atof(optarg); break;
        case 'i': interval = atof(optarg); break;
        case 'j': jobs = atoi(optarg); break;
        case 't': tmp = optarg; break;
        case 's': bin = optarg; break;
        case 'k': keep = true; break;
        default:
            fprintf(o == 'h' ? stdout : stderr,
                    "usage: bench_job [--nodes 64] [--gpus 8] [--hours 2] [--interval 1] [-j 2] "
                    "[--tmp DIR] [--summarize PATH] [--keep]\n");
            return o == 'h' ? 0 : 2;
        }
    }
    if (nodes < 1 || nodes > 4096 || gpus < 1 || gpus > 64 || !(hours > 0) || !(interval > 0) ||
        jobs < 1) {
        fprintf(stderr, "bench_job: bad sizes\n");
        return 2;
    }
    char job[4096];
    snprintf(job, sizeof job, "%s/bench_job.XXXXXX", tmp);
    if (!mkdtemp(job)) {
        perror(job);
        return 1;
    }
    char **dirs = calloc((size_t)nodes, sizeof *dirs);
    unsigned long long rows = 0;
    double tg = now();
    for (int i = 0; i < nodes; i++) {
        if (asprintf(&dirs[i], "%s/node%03d", job, i) < 0)
            return 1;
        rows += write_node(dirs[i], i, gpus, hours, interval, i == nodes / 2);
    }
    printf("job: %d nodes x %d GPUs x %.1f h at %g s: %llu GPU rows (written in %.1f s)\n", nodes,
           gpus, hours, interval, rows, now() - tg);

    char jarg[16];
    snprintf(jarg, sizeof jarg, "%d", jobs);
    struct meas mj = {0}, ms = {0}, mn = {0};
    mj.wall = ms.wall = mn.wall = mj.cpu = ms.cpu = mn.cpu = NAN;
    char **sweep = calloc((size_t)nodes + 8, sizeof *sweep);
    int k = 0;
    sweep[k++] = (char *)bin, sweep[k++] = "-q", sweep[k++] = "-j", sweep[k++] = jarg;
    sweep[k++] = "-f", sweep[k++] = "csv";
    for (int i = 0; i < nodes; i++)
        sweep[k++] = dirs[i];
    for (int rep = 0; rep < 3; rep++) {
        char *ja[] = {(char *)bin, "-q", "-j", jarg, "-f", "json", job, NULL};
        best(&mj, run(ja));
        best(&ms, run(sweep));
        struct meas sum = {0, 0, 0};
        for (int i = 0; i < nodes; i++) { /* one process per node, one after the other */
            char *na[] = {(char *)bin, "-q", "-f", "json", dirs[i], NULL};
            struct meas m = run(na);
            sum.wall += m.wall;
            sum.cpu += m.cpu;
            sum.rss_mib = fmax(sum.rss_mib, m.rss_mib);
        }
        best(&mn, sum);

    }
    printf("%-44s %9s %9s %12s %10s\n", "", "wall s", "CPU s", "peak RSS MiB", "Mrows/s");
    printf("%-44s %9.2f %9.2f %12.1f %10.2f\n", "job summary (summarize -j JOBDIR)", mj.wall,
           mj.cpu, mj.rss_mib, rows / mj.wall / 1e6);
    printf("%-44s %9.2f %9.2f %12.1f %10.2f\n", "sweep of the nodes, one process (-j, csv)",
           ms.wall, ms.cpu, ms.rss_mib, rows / ms.wall / 1e6);
    printf("%-44s %9.2f %9.2f %12.1f %10.2f\n", "sum of single-node summaries (1 process each)",
           mn.wall, mn.cpu, mn.rss_mib, rows / mn.wall / 1e6);
    printf("ratios: job / sweep wall %.3f, CPU %.3f; job / sum of single-node CPU %.3f; job RSS "
           "%.1f MiB = %.2f x one node's, %.2f MiB per node beyond one\n",
           mj.wall / ms.wall, mj.cpu / ms.cpu, mj.cpu / mn.cpu, mj.rss_mib, mj.rss_mib / mn.rss_mib,
           (mj.rss_mib - mn.rss_mib) / (nodes > 1 ? nodes - 1 : 1));
    if (keep) {
        printf("kept: %s\n", job);
    } else {
        char *rm[] = {"/bin/rm", "-rf", job, NULL};
        run(rm);
    }
    for (int i = 0; i < nodes; i++)
        free(dirs[i]);
    free(dirs);
    free(sweep);
    return 0;
}
