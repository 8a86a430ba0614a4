/* Synthetic run directories (gen.h). */
#include "gen.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QUERY_FIELDS                                                                               \
    "timestamp,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,"            \
    "temperature.gpu,clocks.current.sm,clocks.current.memory,index,uuid"

/* Formats "YYYY/MM/DD HH:MM:SS" (sep '/', ' ') or "YYYY-MM-DDTHH:MM:SS" for t, caching the
 * second. */
struct tcache {
    long long sec;
    char text[80]; /* room for any int in each field: -O3 checks the bound */
};

static const char *fmt_sec(struct tcache *c, double t, bool iso)
{
    long long s = (long long)floor(t);
    if (s != c->sec || !c->text[0]) {
        time_t tt = (time_t)s;
        struct tm tm;
        gmtime_r(&tt, &tm);
        snprintf(c->text, sizeof c->text,
                 iso ? "%04d-%02d-%02dT%02d:%02d:%02d" : "%04d/%02d/%02d %02d:%02d:%02d",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        c->sec = s;
    }
    return c->text;
}

static int ms_of(double t)
{
    int ms = (int)((t - floor(t)) * 1000 + 0.5);
    return ms > 999 ? 999 : ms;
}

void gen_iso(char *buf, size_t cap, double t)
{
    struct tcache c = {.sec = -1};
    /* Milliseconds first, so that rounding up to the next second stays consistent. */
    double r = round(t * 1000) / 1000;
    snprintf(buf, cap, "%s.%03d+00:00", fmt_sec(&c, r, true), ms_of(r));
}

static void put_val(FILE *f, double v, int decimals)
{
    if (isnan(v))
        fputs("[N/A]", f);
    else
        fprintf(f, "%.*f", decimals, v);
}

static void plain_values(int gpu, long i, double rel, double v[GV_COUNT])
{
    (void)rel;
    v[GV_UTIL] = (double)((i * 7 + gpu * 13) % 100);
    v[GV_MEMUTIL] = v[GV_UTIL] / 2;
    v[GV_MEMUSED] = 1000 + (double)(i % 50) * 10;
    v[GV_MEMTOTAL] = 81559;
    v[GV_POWER] = 100 + gpu * 10;
    v[GV_TEMP] = 50;
    v[GV_SMCLK] = 1410;
    v[GV_MEMCLK] = 2619;
}

static FILE *open_in(const char *dir, const char *name, const char *mode)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path)
        return NULL;
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    free(path);
    return f;
}

static int close_checked(FILE *f)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return -EIO;
    return 0;
}

int gen_jsonl(const char *dir, const char *line)
{
    FILE *f = open_in(dir, "run.jsonl", "a");
    if (!f)
        return -errno;
    fprintf(f, "%s\n", line);
    return close_checked(f);
}

int gen_phase(const char *dir, double t_end, double seconds, const char *name_json)
{
    char ts[40], line[4096];
    gen_iso(ts, sizeof ts, t_end);
    snprintf(line, sizeof line,
             "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"%s\", "
             "\"seconds\": %.3f}",
             ts, name_json, seconds);
    return gen_jsonl(dir, line);
}

static void steps_phase(FILE *f, const char *name, double t0, double t1)
{
    char ts[40];
    gen_iso(ts, sizeof ts, t1);
    fprintf(f, "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"%s\", \"seconds\": %.3f}\n", ts,
            name, t1 - t0);
}

int gen_steps(const char *dir, double t0, long steps, double dt, double *t_end)
{
    FILE *f = open_in(dir, "run.jsonl", "a");
    if (!f)
        return -errno;
    double t = t0, epoch0 = t;
    for (long i = 0; i < steps; i++) {
        steps_phase(f, "step", t, t + dt);
        t += dt;
        if ((i + 1) % 2500 == 0) {
            steps_phase(f, "eval", t, t + 20 * dt);
            t += 20 * dt;
        }
        if ((i + 1) % 1000 == 0 || i + 1 == steps) {
            steps_phase(f, "epoch", epoch0, t);
            epoch0 = t;
        }
    }
    steps_phase(f, "train", t0, t);
    if (t_end)
        *t_end = t;
    return close_checked(f);
}

int gen_back_to_back(const char *dir, const char *name, double t0, long n, double dt,
                     double *t_end)
{
    FILE *f = open_in(dir, "run.jsonl", "a");
    if (!f)
        return -errno;
    char ts[40];
    gen_iso(ts, sizeof ts, t0 - 1);
    fprintf(f,
            "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"start\", \"data\": "
            "{\"tool\": \"hwmon\", \"interval_s\": 1, \"smi_tz\": \"UTC\"}}\n",
            ts);
    double t = t0;
    for (long i = 0; i < n; i++) {
        t = t0 + (double)(i + 1) * dt; /* not summed: no drift over a million steps */
        steps_phase(f, name, t - dt, t);
    }
    gen_iso(ts, sizeof ts, t + 1);
    fprintf(f,
            "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"stop\", \"data\": "
            "{\"duration_s\": %.3f}}\n",
            ts, t + 2 - t0);
    if (t_end)
        *t_end = t;
    return close_checked(f);
}

int gen_event(const char *dir, double t, const char *name_json, const char *data_json)
{
    char ts[40], line[8192];
    gen_iso(ts, sizeof ts, t);
    snprintf(line, sizeof line,
             "{\"ts\": \"%s\", \"type\": \"event\", \"event\": \"%s\", "
             "\"data\": %s}",
             ts, name_json, data_json ? data_json : "{}");
    return gen_jsonl(dir, line);
}

struct cpu_vals {
    double usr, sys, iowait, mem_used, cg_mem, cg_max;
    double pcpu, rss;
};

static void plain_cpu(long i, double rel, struct cpu_vals *c)
{
    (void)rel;
    c->usr = 20 + (double)(i % 10);
    c->sys = 5;
    c->iowait = (double)(i % 7 == 0 ? 3 : 0);
    c->mem_used = 20000;
    c->cg_mem = 3000 + (double)(i % 100) * 10;
    c->cg_max = 8192;
    c->pcpu = 150 + (double)(i % 20);
    c->rss = 2000 + (double)(i % 100);
}

static int write_files(const char *dir, const struct gen_run *g,
                       void (*cpu_values)(long i, double rel, struct cpu_vals *c))
{
    int rc = 0;
    FILE *gf = open_in(dir, "hw_metrics.csv", "w");
    FILE *cf = g->cpu ? open_in(dir, "cpu_metrics.csv", "w") : NULL;
    FILE *pf = g->proc ? open_in(dir, "proc_metrics.csv", "w") : NULL;
    if (!gf || (g->cpu && !cf) || (g->proc && !pf)) {
        rc = -errno;
        goto out;
    }
    static char b1[1 << 16], b2[1 << 16], b3[1 << 16];
    setvbuf(gf, b1, _IOFBF, sizeof b1);
    if (cf) {
        setvbuf(cf, b2, _IOFBF, sizeof b2);
        fprintf(cf,
                "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,"
                "mem_available_mib%s\n",
                g->cgroup ? ",cgroup_cpu_limit_cores,cgroup_cpu_pct,cgroup_mem_current_mib,"
                            "cgroup_mem_max_mib"
                          : "");
    }
    if (pf) {
        setvbuf(pf, b3, _IOFBF, sizeof b3);
        fputs("timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes\n", pf);
    }
    struct tcache smi = {.sec = -1}, iso = {.sec = -1};
    long n = (long)floor(g->seconds / g->interval + 1e-9) + 1;
    for (long i = 0; i < n; i++) {
        double rel = (double)i * g->interval;
        if (g->gap_to > g->gap_from && rel >= g->gap_from && rel < g->gap_to)
            continue;
        if (g->restart_at > 0 && rel >= g->restart_at && rel < g->restart_at + g->restart_delay) {
            if (rel - g->interval < g->restart_at) /* the dying child's torn row, ended by hwmon */
                fputs("2026/11/22 08:4\n", gf);
            continue;
        }
        double t = round((g->t0 + rel) * 1000) / 1000;
        const char *ts = fmt_sec(&smi, t, false);
        int ms = ms_of(t);
        for (int k = 0; k < g->ngpus; k++) {
            double v[GV_COUNT];
            if (g->gpu_values)
                g->gpu_values(g->ctx, k, i, rel, v);
            else
                plain_values(k, i, rel, v);
            fprintf(gf, "%s.%03d, ", ts, ms);
            put_val(gf, v[GV_UTIL], 0);
            fputs(", ", gf);
            put_val(gf, v[GV_MEMUTIL], 0);
            fputs(", ", gf);
            put_val(gf, v[GV_MEMUSED], 0);
            fputs(", ", gf);
            put_val(gf, v[GV_MEMTOTAL], 0);
            fputs(", ", gf);
            put_val(gf, v[GV_POWER], 2);
            fputs(", ", gf);
            put_val(gf, v[GV_TEMP], 0);
            fputs(", ", gf);
            put_val(gf, v[GV_SMCLK], 0);
            fputs(", ", gf);
            put_val(gf, v[GV_MEMCLK], 0);
            fprintf(gf, ", %d, GPU-%08x-0000-4000-8000-00000000000%d\n", k,
                    0x5eed0000u + (unsigned)k, k % 10);
        }
        if (cf || pf) {
            struct cpu_vals c;
            cpu_values(i, rel, &c);
            const char *its = fmt_sec(&iso, t, true);
            if (cf) {
                fprintf(cf, "%s.%03d+00:00,%.1f,%.1f,%.1f,%.1f,0.0,%.0f,%.0f", its, ms, c.usr,
                        100 - c.usr - c.sys - c.iowait, c.sys, c.iowait, c.mem_used,
                        200000 - c.mem_used);
                if (g->cgroup)
                    fprintf(cf, ",16,%.1f,%.0f,%.0f", c.pcpu, c.cg_mem, c.cg_max);
                fputc('\n', cf);
            }
            if (pf)
                fprintf(pf, "%s.%03d+00:00,3,%d,%.1f,%.1f,%ld,%ld\n", its, ms, 40 + (int)(i % 3),
                        c.pcpu, c.rss, i * 4096, i * 8192);
        }
    }
    if (g->partial_last) { /* rows being written when the directory was read */
        fputs("2026/11/22 08:40:00.000, 5", gf);
        if (cf)
            fputs("2026-11-22T08:40:00.000+00:00,1", cf);
        if (pf)
            fputs("2026-11-22T08:40", pf);
    }
out:
    if (gf && close_checked(gf) < 0 && !rc)
        rc = -EIO;
    if (cf && close_checked(cf) < 0 && !rc)
        rc = -EIO;
    if (pf && close_checked(pf) < 0 && !rc)
        rc = -EIO;
    if (rc == 0 && g->jsonl_start) {
        char data[1024], hint[64] = "";
        if (g->hint_interval >= 0)
            snprintf(hint, sizeof hint, "\"interval_s\": %g, ",
                     g->hint_interval > 0 ? g->hint_interval : g->interval);
        snprintf(data, sizeof data,
                 "{\"tool\": \"hwmon\", \"version\": \"0.1.0\", \"mode\": \"wrap\", "
                 "%s\"smi_tz\": \"UTC\", \"gpu_query_fields\": \"%s\", "
                 "\"host\": \"gpu-node-07\", \"command\": [\"python\", \"train.py\", "
                 "\"--config\", \"llama-7b.yaml\"]}",
                 hint, QUERY_FIELDS);
        rc = gen_event(dir, g->t0, "start", data);
        if (rc == 0 && g->restart_at > 0)
            rc = gen_event(dir, g->t0 + g->restart_at, "child_exit",
                           "{\"child\": \"query\", \"status\": 139, \"file\": "
                           "\"hw_metrics.csv\"}");
        if (rc == 0 && g->restart_at > 0)
            rc = gen_event(dir, g->t0 + g->restart_at + g->restart_delay / 2, "child_restart",
                           "{\"child\": \"query\", \"attempt\": 1, \"delay_s\": 1}");
        if (rc == 0) {
            char stop[128];
            snprintf(stop, sizeof stop, "{\"reason\": \"command_exit\", \"exit_status\": %d}",
                     g->exit_status);
            rc = gen_event(dir, g->t0 + g->seconds, "stop", stop);
        }
    }
    return rc;
}

int gen_write_run(const char *dir, const struct gen_run *g)
{
    if (!(g->interval > 0) || g->ngpus < 0)
        return -EINVAL;
    return write_files(dir, g, plain_cpu);
}

/* ---- the demo run ---------------------------------------------------------------------------- */

struct demo_phase {
    const char *name;
    double from, to;
};

static const struct demo_phase demo_phases[] = {
    {"load", 0, 55},          {"compile", 55, 110}, {"train", 110, 470}, {"eval", 470, 530},
    {"checkpoint", 530, 575}, {"train", 575, 840},  {"eval", 840, 900},
};

static const char *demo_phase_at(double rel)
{
    for (size_t i = 0; i < sizeof demo_phases / sizeof demo_phases[0]; i++)
        if (rel >= demo_phases[i].from && rel < demo_phases[i].to)
            return demo_phases[i].name;
    return "eval";
}

/* splitmix64: a well-mixed value in [-1, 1) from the state. */
static double noise(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 53) * 2 - 1;
}

static void demo_gpu(void *ctx, int gpu, long i, double rel, double v[GV_COUNT])
{
    (void)ctx;
    uint64_t s = (uint64_t)i * 2654435761u + (uint64_t)gpu * 97 + 1;
    noise(&s);
    const char *ph = demo_phase_at(rel);
    double util, mem, pw, clk;
    if (!strcmp(ph, "load")) {
        util = 3 + 3 * fabs(noise(&s));
        mem = 600 + rel / 55 * 17000;
        pw = 85;
        clk = 1410;
    } else if (!strcmp(ph, "compile")) {
        util = 25 + 25 * fabs(noise(&s));
        mem = 17600 + (rel - 55) * 60;
        pw = 180 + 80 * fabs(noise(&s));
        clk = 1755;
    } else if (!strcmp(ph, "train")) {
        util = 93 + 5 * noise(&s);
        if (i % 60 == 7) /* a data-loader stall every minute */
            util = 18;
        mem = 61400 + 900 * fabs(noise(&s)) + gpu * 1200;
        pw = 610 + 45 * noise(&s) - gpu * 25;
        if (i % 60 == 7)
            pw = 240;
        clk = 1980 - 30 * fabs(noise(&s));
    } else if (!strcmp(ph, "eval")) {
        util = 62 + 10 * noise(&s);
        mem = 44800 + gpu * 800;
        pw = 380 + 30 * noise(&s);
        clk = 1980;
    } else { /* checkpoint */
        util = 6 + 4 * fabs(noise(&s));
        mem = 61400 + gpu * 1200;
        pw = 150;
        clk = 1410;
    }
    v[GV_UTIL] = round(util < 0 ? 0 : util > 100 ? 100 : util);
    v[GV_MEMUTIL] = round(v[GV_UTIL] * 0.45 + 3 * fabs(noise(&s)));
    v[GV_MEMUSED] = round(mem);
    v[GV_MEMTOTAL] = 81559;
    v[GV_POWER] = pw;
    v[GV_TEMP] = round(35 + pw / 20);
    v[GV_SMCLK] = round(clk);
    v[GV_MEMCLK] = 2619;
    if (gpu == 1 && i == 333) /* one [N/A] power reading, as drivers do */
        v[GV_POWER] = NAN;
}

static void demo_cpu(long i, double rel, struct cpu_vals *c)
{
    uint64_t s = (uint64_t)i * 40503u + 7;
    noise(&s);
    const char *ph = demo_phase_at(rel);
    bool io = !strcmp(ph, "load") || !strcmp(ph, "checkpoint");
    c->usr = 18 + 6 * fabs(noise(&s)) + (!strcmp(ph, "compile") ? 35 : 0);
    c->sys = 4 + 2 * fabs(noise(&s));
    c->iowait = io ? 12 + 8 * fabs(noise(&s)) : fabs(noise(&s));
    c->mem_used = 42000;
    double rss = !strcmp(ph, "load") ? 2200 + rel / 55 * 9000 : 11200 + 1.6 * rel;
    if (!strcmp(ph, "checkpoint"))
        rss += 6000 * sin((rel - 530) / 45 * M_PI);
    c->rss = rss + 40 * noise(&s);
    c->pcpu = (!strcmp(ph, "compile") ? 780 : io ? 240 : 310) + 40 * noise(&s);
    c->cg_mem = c->rss + 5200 + (io ? 9000 : 3000);
    c->cg_max = 65536;
}

int gen_demo_run(const char *dir)
{
    double t0 = 1795336800.0 + 0.25; /* 2026-11-21 06:40:00.250 UTC */
    struct gen_run g = {.t0 = t0,
                        .seconds = 900,
                        .interval = 1,
                        .ngpus = 2,
                        .gap_from = 700,
                        .gap_to = 731,
                        .cpu = true,
                        .proc = true,
                        .cgroup = true,
                        .jsonl_start = true,
                        .gpu_values = demo_gpu};
    int rc = write_files(dir, &g, demo_cpu);
    for (size_t i = 0; rc == 0 && i < sizeof demo_phases / sizeof demo_phases[0]; i++)
        rc = gen_phase(dir, t0 + demo_phases[i].to, demo_phases[i].to - demo_phases[i].from,
                       demo_phases[i].name);
    if (rc == 0)
        rc = gen_event(dir, t0 + 300, "lr_warmup_done", "{\"lr\": 0.0003}");
    if (rc == 0)
        rc = gen_event(dir, t0 + 575, "checkpoint_saved", "{\"path\": \"ckpt/step-2000.pt\"}");
    if (rc == 0)
        rc = gen_event(dir, t0 + 700, "child_exit",
                       "{\"child\": \"query\", \"pid\": 4242, \"status\": 137}");
    if (rc == 0)
        rc = gen_event(dir, t0 + 731, "child_restart",
                       "{\"child\": \"query\", \"attempt\": 1, \"delay_s\": 30}");
    return rc;
}

int gen_measure(char *const argv[], const char *out_path, struct gen_usage *u)
{
    *u = (struct gen_usage){.status = -1, .out_bytes = -1};
    char res[] = "/tmp/gen_measure.XXXXXX";
    int rfd = mkstemp(res);
    if (rfd < 0)
        return -errno;
    close(rfd);
    size_t n = 0;
    while (argv[n])
        n++;
    char **v = calloc(n + 4, sizeof *v);
    if (!v) {
        unlink(res);
        return -ENOMEM;
    }
    v[0] = (char *)GEN_RSS_RUN; /* small: the command's peak RSS is its own (rss_run.c) */
    v[1] = res;
    v[2] = (char *)(out_path ? out_path : "-");
    memcpy(v + 3, argv, n * sizeof *v);
    int err = 0;
    pid_t pid = fork();
    if (pid == 0) {
        execv(v[0], v);
        _exit(127);
    }
    if (pid < 0)
        err = errno;
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    free(v);
    FILE *r = err ? NULL : fopen(res, "r");
    if (!err && !(r && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
                  fscanf(r, "%ld %lf %d %lf", &u->maxrss_kib, &u->wall_s, &u->status,
                         &u->cpu_s) == 4))
        err = EIO;
    if (r)
        fclose(r);
    unlink(res);
    struct stat sb;
    if (out_path && stat(out_path, &sb) == 0)
        u->out_bytes = (long long)sb.st_size;
    return -err;
}

/* ---- a sweep --------------------------------------------------------------------------------- */

struct sweep_ctx {
    double watts;
};

static void sweep_gpu(void *ctx, int gpu, long i, double rel, double v[GV_COUNT])
{
    const struct sweep_ctx *c = ctx;
    plain_values(gpu, i, rel, v);
    v[GV_UTIL] = 60 + (double)(i % 30);
    v[GV_POWER] = c->watts;
}

void gen_sweep_run(int nlr, int nbs, int failed, int k, struct gen_sweep_run *r)
{
    int a = k / nbs, b = k % nbs;
    (void)nlr;
    r->lr = 0.0003 * pow(3, a);
    r->batch = nbs <= 6 ? 16 << b : 8 * (b + 1);
    snprintf(r->name, sizeof r->name, "lr%g-bs%d", r->lr, r->batch);
    r->failed = false;
    /* best near lr 0.003; a larger batch a little better; a run's own noise */
    r->loss = 0.2 + 0.15 * fabs(log10(r->lr / 0.003)) + 2.0 / r->batch +
              0.01 * (double)((a * 7 + b * 13) % 10) / 10;
    r->failed = k == failed;
    if (r->failed) /* its metrics are its first epoch's */
        r->loss += 0.3;
    r->acc = 0.99 - r->loss / 4;
}

int gen_sweep(const char *base, int nlr, int nbs, int failed)
{
    for (int k = 0; k < nlr * nbs; k++) {
        struct gen_sweep_run r;
        gen_sweep_run(nlr, nbs, -1, k, &r); /* the good run's figures: the failed one's below */
        char dir[4096], line[1024], ts[40];
        snprintf(dir, sizeof dir, "%s/%s", base, r.name);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
            return -errno;
        struct sweep_ctx c = {fmin(80 + 4.0 * r.batch, 650)};
        double t0 = 1795336800.0 + 600.0 * k, secs = 20 + r.batch / 4;
        struct gen_run g = {.t0 = t0,
                            .seconds = secs,
                            .interval = 1,
                            .ngpus = 1,
                            .cpu = true,
                            .proc = true,
                            .jsonl_start = true,
                            .exit_status = k == failed ? 1 : 0,
                            .gpu_values = sweep_gpu,
                            .ctx = &c};
        int rc = gen_write_run(dir, &g);
        snprintf(line, sizeof line, "{\"lr\": %g, \"batch\": %d, \"model\": \"resnet18\", "
                 "\"seed\": 0}", r.lr, r.batch);
        if (rc == 0)
            rc = gen_event(dir, t0 + 1, "config", line);
        for (int e = 1; rc == 0 && e <= 2; e++) {
            bool raise = k == failed && e == 2;
            double loss = r.loss + (e == 1 ? 0.3 : 0), acc = 0.99 - loss / 4;
            gen_iso(ts, sizeof ts, t0 + 2 + (secs - 2) * e / 2);
            if (raise)
                snprintf(line, sizeof line,
                         "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"epoch\", "
                         "\"seconds\": %.3f, \"epoch\": %d, \"loss\": 1e6, \"exception\": "
                         "\"ValueError\", \"exception_message\": \"loss diverged at lr %g\"}",
                         ts, (secs - 2) / 2, e, r.lr);
            else
                snprintf(line, sizeof line,
                         "{\"ts\": \"%s\", \"type\": \"phase\", \"name\": \"epoch\", "
                         "\"seconds\": %.3f, \"epoch\": %d, \"loss\": %.6f, \"acc\": %.6f}",
                         ts, (secs - 2) / 2, e, loss, acc);
            rc = gen_jsonl(dir, line);
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}
