/* The verdicts' rules (verdicts.h): one table, each rule's thresholds with their source, and
 * the judges that read the summary's own figures (never a second computation of a figure). */
#include "verdicts.h"
#include "oom.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hwrun/buf.h"
#include "energy.h"
#include "figures.h"
#include "summary.h"

const char *const sum_severity_names[2] = {"info", "warning"};

static void judge_gpu_idle(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_gpu_underused(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_input_bound(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_throttled(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_mem_oversized(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_mem_near_limit(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_vram_oversized(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_cpu_underused(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);
static void judge_energy_idle(const struct sum_run *, const struct sum_rule_cfg *, struct sum_verdicts *);

/* The thresholds' indexes, by rule (the order of each entry's thr[] below). */
enum { T_MIN_SAMPLES };
enum { T_IDLE_UTIL, T_IDLE_STRETCH };
enum { T_UNDER_WARN, T_UNDER_INFO, T_UNDER_SM };
enum { T_IN_MOD, T_IN_HIGH, T_IN_NAMES, T_IN_STEPS, T_IN_GPU, T_IN_CPU };
enum { T_THR_THERMAL, T_THR_POWER };
enum { T_MEM_USED, T_MEM_MARGIN };
enum { T_NEAR_PCT };
enum { T_VRAM_USED, T_VRAM_MIN_TOTAL, T_VRAM_MARGIN };
enum { T_CPU_EFF, T_CPU_MIN_CORES, T_CPU_MARGIN };
enum { T_EIDLE_INFO, T_EIDLE_WARN };

#define INPUT_NAMES "data,input,dataloader,data_loader,data_load,load_batch,fetch,prefetch,next_batch"
#define STEP_NAMES "step,train_step,training_step,train,iteration,iter,batch,forward,backward,optimizer_step"

const struct sum_rule sum_rules[SUM_RULE_COUNT] = {
    [SUM_RULE_ALL] = {
        .id = "all",
        .sev = SUM_SEV_INFO,
        .what = "what every rule needs: a run shorter than this is not judged",
        .source = "Princeton jobstats judges only jobs over a minimum length; hwrun: a few "
                  "sampling intervals",
        .thr = {{.key = "min_samples", .def = 5, .unit = "samples",
                 .what = "samples the run (or the GPU) needs before a rule judges it"}},
    },
    [SUM_RULE_GPU_IDLE] = {
        .id = "gpu_idle",
        .sev = SUM_SEV_WARNING,
        .what = "a GPU of the job that did no work all run, or sat idle for a long stretch",
        .source = "Princeton jobstats: a GPU with mean utilization 0 is unused; Job Defense "
                  "Shield: GPUs idle over a sliding window (120 min at a site; hwrun: 10 min)",
        .thr = {{.key = "util_pct", .def = 0, .unit = "%",
                 .what = "a sample at or below this utilization.gpu is idle"},
                {.key = "stretch_sec", .def = 600, .unit = "s",
                 .what = "an idle stretch this long is a verdict even when the GPU worked "
                         "before or after"}},
        .judge = judge_gpu_idle,
    },
    [SUM_RULE_GPU_UNDERUSED] = {
        .id = "gpu_underused",
        .sev = SUM_SEV_WARNING,
        .what = "the GPUs that worked were busy only a small share of the time",
        .source = "Princeton jobstats: GPU utilization <= 15% red, < 25% somewhat low; NVIDIA "
                  "DCGM: SM activity under 0.5 likely ineffective",
        .thr = {{.key = "warn_pct", .def = 15, .unit = "%",
                 .what = "mean utilization at or below: a warning"},
                {.key = "info_pct", .def = 25, .unit = "%",
                 .what = "mean utilization below: a note"},
                {.key = "sm_active_pct", .def = 50, .unit = "%",
                 .what = "mean SM activity (GPM) below: a note, where GPM was recorded"}},
        .judge = judge_gpu_underused,
    },
    [SUM_RULE_INPUT_BOUND] = {
        .id = "input_bound",
        .sev = SUM_SEV_WARNING,
        .what = "the loop waited for its input: time in data phases against step phases, or "
                "a step phase with an idle GPU and a busy CPU",
        .source = "TensorFlow Profiler: input wait >= 5% of step time moderately, >= 20% highly "
                  "input-bound; PyTorch Profiler flags DataLoader time > 5%",
        .thr = {{.key = "moderate_pct", .def = 5, .unit = "%",
                 .what = "input share of the loop's time at or above: moderately (a note)"},
                {.key = "high_pct", .def = 20, .unit = "%",
                 .what = "input share at or above: highly (a warning)"},
                {.key = "phases", .unit = "names", .sdef = INPUT_NAMES,
                 .what = "phase names that wait for input"},
                {.key = "step_phases", .unit = "names", .sdef = STEP_NAMES,
                 .what = "phase names of the loop's own work"},
                {.key = "gpu_util_pct", .def = 25, .unit = "%",
                 .what = "a step phase with GPU utilization below this ..."},
                {.key = "cpu_pct", .def = 90, .unit = "% of a core",
                 .what = "... while the job's CPU was at or above this waits for the host"}},
        .judge = judge_input_bound,
    },
    [SUM_RULE_THROTTLED] = {
        .id = "throttled",
        .sev = SUM_SEV_WARNING,
        .what = "the GPUs' clocks were held down by heat or by the power limit",
        .source = "NVIDIA clock event reasons (nvidia-smi -q -d PERFORMANCE); shares: hwrun",
        .thr = {{.key = "thermal_pct", .def = 10, .unit = "%",
                 .what = "GPU time slowed for heat at or above: a warning"},
                {.key = "power_pct", .def = 50, .unit = "%",
                 .what = "GPU time under the power cap at or above: a note"}},
        .judge = judge_throttled,
    },
    [SUM_RULE_MEMORY_OVERSIZED] = {
        .id = "memory_oversized",
        .sev = SUM_SEV_INFO,
        .what = "the container's memory limit was far above what the job used",
        .source = "Princeton jobstats: memory used < 70% of the request; ask for 1.2 x the "
                  "peak",
        .thr = {{.key = "used_pct", .def = 70, .unit = "%",
                 .what = "peak below this share of the limit"},
                {.key = "margin", .def = 1.2, .unit = "x",
                 .what = "the request it suggests: this times the peak, rounded up to a GiB"}},
        .judge = judge_mem_oversized,
    },
    [SUM_RULE_MEMORY_NEAR_LIMIT] = {
        .id = "memory_near_limit",
        .sev = SUM_SEV_WARNING,
        .what = "the container's memory came close to its limit (the OOM killer's)",
        .source = "hwrun: within 10% of the limit",
        .thr = {{.key = "used_pct", .def = 90, .unit = "%",
                 .what = "peak at or above this share of the limit"}},
        .judge = judge_mem_near_limit,
    },
    [SUM_RULE_VRAM_OVERSIZED] = {
        .id = "vram_oversized",
        .sev = SUM_SEV_INFO,
        .what = "the job's GPU memory peak would fit a smaller card or a MIG slice",
        .source = "Princeton jobstats' 1.2 x peak; NVIDIA MIG slices hold 1/8 to 1/2 of a "
                  "card's memory",
        .thr = {{.key = "used_pct", .def = 50, .unit = "%",
                 .what = "peak memory.used below this share of memory.total"},
                {.key = "min_total_gib", .def = 16, .unit = "GiB",
                 .what = "only cards of at least this much memory"},
                {.key = "margin", .def = 1.2, .unit = "x",
                 .what = "the memory it suggests: this times the peak, rounded up to a GiB"}},
        .judge = judge_vram_oversized,
    },
    [SUM_RULE_CPU_UNDERUSED] = {
        .id = "cpu_underused",
        .sev = SUM_SEV_INFO,
        .what = "the job used few of the cores it was given (--cores, the cgroup's quota, or "
                "a scheduler's allocation)",
        .source = "Princeton jobstats: CPU efficiency < 65%",
        .thr = {{.key = "efficiency_pct", .def = 65, .unit = "%",
                 .what = "mean CPU in % of the cores given, below"},
                {.key = "min_cores", .def = 2, .unit = "cores",
                 .what = "only jobs given at least this many"},
                {.key = "margin", .def = 1.2, .unit = "x",
                 .what = "the cores it suggests: this times the peak, rounded up"}},
        .judge = judge_cpu_underused,
    },
    [SUM_RULE_ENERGY_IDLE] = {
        .id = "energy_idle",
        .sev = SUM_SEV_WARNING,
        .what = "energy the GPUs drew while they did no work",
        .source = "Kepler and Zeus split idle from active GPU energy; shares: hwrun",
        .thr = {{.key = "info_pct", .def = 10, .unit = "%",
                 .what = "idle share of the GPUs' energy at or above: a note"},
                {.key = "warn_pct", .def = 30, .unit = "%",
                 .what = "at or above: a warning"}},
        .judge = judge_energy_idle,
    },
    [SUM_RULE_DATA_MISSING] = {
        .id = "data_missing",
        .sev = SUM_SEV_INFO,
        .what = "rules that could not judge the run for lack of data, and why (not a verdict "
                "on the job)",
        .source = "hwrun: unmeasured is not zero",
    },
};

const struct sum_vfig_def sum_vfigs[SUM_VFIG_COUNT] = {
    [SUM_VFIG_GPU_IDLE_GPU_H] = {"gpu_idle_gpu_h",
                                 "GPU-hours of the job's GPUs in idle samples (gpu_idle.util_pct)",
                                 SUM_RULE_GPU_IDLE, SUM_DIM_GPU_H},
    [SUM_VFIG_INPUT_WAIT_PCT] = {"input_wait_pct",
                                 "share of the loop's time in input phases (input_bound.phases)",
                                 SUM_RULE_INPUT_BOUND, SUM_DIM_PCT},
    [SUM_VFIG_MEM_USED_OF_LIMIT_PCT] = {"mem_used_of_limit_pct",
                                        "the container's memory peak in % of its limit",
                                        SUM_RULE_MEMORY_OVERSIZED, SUM_DIM_PCT},
    [SUM_VFIG_VRAM_USED_PCT] = {"vram_used_pct",
                                "the fullest working GPU's memory.used peak in % of its memory.total",
                                SUM_RULE_VRAM_OVERSIZED, SUM_DIM_PCT},
    [SUM_VFIG_CPU_EFFICIENCY_PCT] = {"cpu_efficiency_pct",
                                     "the job's mean CPU in % of the cores it was given",
                                     SUM_RULE_CPU_UNDERUSED, SUM_DIM_PCT},
    [SUM_VFIG_ENERGY_IDLE_WH] = {"energy_idle_wh",
                                 "GPU energy in idle samples (power.draw integrated)",
                                 SUM_RULE_ENERGY_IDLE, SUM_DIM_ENERGY},
};

/* ---- thresholds ---------------------------------------------------------------------- */

void sum_rule_cfg_init(struct sum_rule_cfg *c)
{
    memset(c, 0, sizeof *c);
    for (int r = 0; r < SUM_RULE_COUNT; r++)
        for (int k = 0; k < SUM_RULE_MAX_THR; k++)
            c->v[r][k] = sum_rules[r].thr[k].def;
}

void sum_rule_cfg_free(struct sum_rule_cfg *c)
{
    for (int r = 0; r < SUM_RULE_COUNT; r++)
        for (int k = 0; k < SUM_RULE_MAX_THR; k++) {
            free(c->s[r][k]);
            c->s[r][k] = NULL;
        }
}

double sum_rule_thr(const struct sum_rule_cfg *c, enum sum_rule_id r, int k)
{
    return c ? c->v[r][k] : sum_rules[r].thr[k].def;
}

const char *sum_rule_thr_str(const struct sum_rule_cfg *c, enum sum_rule_id r, int k)
{
    return c && c->s[r][k] ? c->s[r][k] : sum_rules[r].thr[k].sdef;
}

static int rule_by_id(const char *id, size_t n)
{
    for (int r = 0; r < SUM_RULE_COUNT; r++)
        if (strlen(sum_rules[r].id) == n && !strncmp(sum_rules[r].id, id, n))
            return r;
    return -1;
}

int sum_rule_cfg_set(struct sum_rule_cfg *c, const char *spec, char *err, size_t errlen)
{
    const char *eq = strchr(spec, '=');
    if (!eq) {
        snprintf(err, errlen, "'%s': expected ID.KEY=VALUE or ID=off", spec);
        return -1;
    }
    const char *dot = memchr(spec, '.', (size_t)(eq - spec));
    size_t idn = (size_t)((dot ? dot : eq) - spec);
    while (idn && isspace((unsigned char)spec[idn - 1]))
        idn--;
    int r = rule_by_id(spec, idn);
    if (r < 0) {
        snprintf(err, errlen, "unknown rule '%.*s' (summarize --list-rules lists them)", (int)idn,
                 spec);
        return -1;
    }
    const char *val = eq + 1;
    while (isspace((unsigned char)*val))
        val++;
    size_t vn = strlen(val);
    while (vn && isspace((unsigned char)val[vn - 1]))
        vn--;
    if (!dot) {
        if (vn == 3 && !strncmp(val, "off", 3) && r != SUM_RULE_ALL)
            c->off[r] = true;
        else if (vn == 2 && !strncmp(val, "on", 2) && r != SUM_RULE_ALL)
            c->off[r] = false;
        else {
            snprintf(err, errlen, "'%s': a rule is turned 'off' or 'on'", spec);
            return -1;
        }
        return 0;
    }
    const char *key = dot + 1;
    size_t kn = (size_t)(eq - key);
    while (kn && isspace((unsigned char)key[kn - 1]))
        kn--;
    for (int k = 0; k < SUM_RULE_MAX_THR && sum_rules[r].thr[k].key; k++) {
        const struct sum_rule_thr *t = &sum_rules[r].thr[k];
        if (strlen(t->key) != kn || strncmp(t->key, key, kn))
            continue;
        if (t->sdef) {
            char *s = strndup(val, vn);
            if (!s) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            free(c->s[r][k]);
            c->s[r][k] = s;
            return 0;
        }
        char num[64];
        if (vn == 0 || vn >= sizeof num) {
            snprintf(err, errlen, "'%s': not a number", spec);
            return -1;
        }
        memcpy(num, val, vn);
        num[vn] = 0;
        /* strtod follows LC_NUMERIC; summarize never sets a locale, so '.' is the point */
        char *end;
        errno = 0;
        double v = strtod(num, &end);
        if (*end || errno || !isfinite(v) || v < 0) {
            snprintf(err, errlen, "'%s': not a number >= 0", spec);
            return -1;
        }
        c->v[r][k] = v;
        return 0;
    }
    snprintf(err, errlen, "rule %s has no threshold '%.*s' (summarize --list-rules lists them)",
             sum_rules[r].id, (int)kn, key);
    return -1;
}

int sum_rule_cfg_load(struct sum_rule_cfg *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024], why[256];
    int rc = 0;
    for (unsigned long n = 1; fgets(line, sizeof line, f); n++) {
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            snprintf(err, errlen, "%s:%lu: line too long", path, n);
            rc = -1;
            break;
        }
        char *p = line;
        p[strcspn(p, "#\r\n")] = 0;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        if (sum_rule_cfg_set(c, p, why, sizeof why) < 0) {
            snprintf(err, errlen, "%s:%lu: %s", path, n, why);
            rc = -1;
            break;
        }
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    return rc;
}

void sum_rules_list(const struct sum_rule_cfg *c, struct hw_buf *out)
{
    hw_buf_puts(out, "rule\tseverity\tthreshold\tvalue\tunit\twhat\tsource\n");
    for (int r = 0; r < SUM_RULE_COUNT; r++) {
        const struct sum_rule *R = &sum_rules[r];
        bool any = false;
        for (int k = 0; k < SUM_RULE_MAX_THR && R->thr[k].key; k++, any = true) {
            const struct sum_rule_thr *t = &R->thr[k];
            hw_buf_printf(out, "%s\t%s\t%s\t", R->id, sum_severity_names[R->sev], t->key);
            if (t->sdef)
                hw_buf_puts(out, sum_rule_thr_str(c, (enum sum_rule_id)r, k));
            else
                hw_buf_printf(out, "%.12g", sum_rule_thr(c, (enum sum_rule_id)r, k));
            hw_buf_printf(out, "\t%s\t%s\t%s\n", t->unit, t->what, R->source);
        }
        if (!any)
            hw_buf_printf(out, "%s\t%s\t\t\t\t%s\t%s\n", R->id, sum_severity_names[R->sev],
                          R->what, R->source);
    }
}

double sum_idle_threshold(const struct sum_rule_cfg *c)
{
    return sum_rule_thr(c, SUM_RULE_GPU_IDLE, T_IDLE_UTIL);
}

double sum_idle_stretch(const struct sum_rule_cfg *c)
{
    return sum_rule_thr(c, SUM_RULE_GPU_IDLE, T_IDLE_STRETCH);
}

/* ---- the judges -------------------------------------------------------------------------- */

const char *sum_verdict_dur(double s, char *buf, size_t cap)
{
    if (!isfinite(s))
        snprintf(buf, cap, "-");
    else if (s < 120)
        snprintf(buf, cap, "%.3g s", s);
    else if (s < 7200)
        snprintf(buf, cap, "%.1f min", s / 60);
    else
        snprintf(buf, cap, "%.2f h", s / 3600);
    return buf;
}

static struct sum_verdict *add(struct sum_verdicts *out, enum sum_rule_id r, enum sum_severity sev,
                               int thr, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static struct sum_verdict *add(struct sum_verdicts *out, enum sum_rule_id r, enum sum_severity sev,
                               int thr, const char *fmt, ...)
{
    if (out->n >= SUM_MAX_VERDICTS) {
        out->dropped++;
        return NULL;
    }
    struct sum_verdict *v = &out->v[out->n++];
    memset(v, 0, sizeof *v);
    v->rule = r;
    v->sev = sev;
    v->gpu = -1;
    v->thr = thr;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->text, sizeof v->text, fmt, ap);
    va_end(ap);
    return v;
}

static void ev(struct sum_verdict *v, const char *key, double x, const char *unit)
{
    if (!v || v->nev >= SUM_VERDICT_MAX_EV)
        return;
    v->ev[v->nev].key = key;
    v->ev[v->nev].v = sum_fig_num(x);
    v->ev[v->nev++].unit = unit;
}

static void missing(struct sum_verdicts *out, enum sum_rule_id r, const char *why)
{
    snprintf(out->missing[r], sizeof out->missing[r], "%s", why);
}

/* The phase name the window [a, b] fell in most (the full phases and the brief ones), "" none. */
static void phase_of(const struct sum_run *run, double a, double b, char *buf, size_t cap)
{
    double best = 0;
    buf[0] = 0;
    for (size_t i = 0; i < run->nphase + run->nbrief; i++) {
        const char *name = i < run->nphase ? run->phase[i].name : run->brief[i - run->nphase].name;
        double t0 = i < run->nphase ? run->phase[i].t0 : run->brief[i - run->nphase].t0;
        double t1 = i < run->nphase ? run->phase[i].t1 : run->brief[i - run->nphase].t1;
        double o = fmin(b, t1) - fmax(a, t0);
        if (o > best && name) {
            best = o;
            snprintf(buf, cap, "%s", name);
        }
    }
}

static double min_samples(const struct sum_rule_cfg *c)
{
    return sum_rule_thr(c, SUM_RULE_ALL, T_MIN_SAMPLES);
}

/* A GPU that did no work in any measured sample (and had enough of them). */
static bool gpu_idle_all(const struct sum_run *run, int g, const struct sum_rule_cfg *c)
{
    const struct sum_gpu *gp = run->gpu[g];
    return gp && gp->idle.rows >= min_samples(c) && gp->idle.idle_rows == gp->idle.rows;
}

/* Some GPU had enough samples of utilization (every one may have idled: gpu_idle's). */
static bool any_util(const struct sum_run *run, const struct sum_rule_cfg *c)
{
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g] && run->gpu[g]->idle.rows >= min_samples(c))
            return true;
    return false;
}

static bool any_gpu(const struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g])
            return true;
    return false;
}

static void judge_gpu_idle(const struct sum_run *run, const struct sum_rule_cfg *c,
                           struct sum_verdicts *out)
{
    double t0 = NAN, t1 = NAN;
    if (!sum_run_span(run, &t0, &t1))
        t0 = NAN;
    double idle_s = 0, stretch = sum_rule_thr(c, SUM_RULE_GPU_IDLE, T_IDLE_STRETCH);
    double util = sum_rule_thr(c, SUM_RULE_GPU_IDLE, T_IDLE_UTIL);
    bool judged = false;
    char d[32], d2[32], ph[64];
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || gp->idle.rows < min_samples(c))
            continue;
        judged = true;
        idle_s += gp->idle.idle_s;
        if (gpu_idle_all(run, g, c)) {
            struct sum_verdict *v = add(
                out, SUM_RULE_GPU_IDLE, SUM_SEV_WARNING, T_IDLE_UTIL,
                "GPU %d did no work, utilization %s%.3g%% in all %llu samples over %s "
                "(%.3g idle GPU-hours)",
                g, util > 0 ? "at most " : "", util, (unsigned long long)gp->idle.rows,
                sum_verdict_dur(gp->idle.measured_s, d, sizeof d), gp->idle.idle_s / 3600);
            if (v) {
                v->gpu = g;
                ev(v, "samples", (double)gp->idle.rows, "samples");
                ev(v, "idle_sec", gp->idle.idle_s, "s");
                ev(v, "idle_gpu_h", gp->idle.idle_s / 3600, "GPU-h");
                ev(v, "util_max_pct", sum_fig_max(&gp->m[HW_GM_UTIL]), "%");
            }
            continue;
        }
        double len = gp->idle.best_t1 - gp->idle.best_t0;
        if (!(len >= stretch))
            continue;
        phase_of(run, gp->idle.best_t0, gp->idle.best_t1, ph, sizeof ph);
        char where[128] = "";
        if (ph[0]) {
            char pb[64];
            snprintf(where, sizeof where, ", in phase `%s`", sum_fig_printable(ph, pb, sizeof pb));
        }
        struct sum_verdict *v = add(
            out, SUM_RULE_GPU_IDLE, SUM_SEV_WARNING, T_IDLE_STRETCH,
            "GPU %d sat idle for %s from %s into the run%s (%.3g idle GPU-hours; at least %s "
            "is a verdict)",
            g, sum_verdict_dur(len, d, sizeof d),
            sum_verdict_dur(gp->idle.best_t0 - t0, d2, sizeof d2), where, len / 3600,
            sum_verdict_dur(stretch, (char[32]){0}, 32));
        if (v) {
            v->gpu = g;
            snprintf(v->phase, sizeof v->phase, "%s", ph);
            ev(v, "stretch_sec", len, "s");
            ev(v, "stretch_start_sec", gp->idle.best_t0 - t0, "s");
            ev(v, "idle_gpu_h", len / 3600, "GPU-h");
        }
    }
    if (judged)
        out->figure[SUM_VFIG_GPU_IDLE_GPU_H] = idle_s / 3600;
    else if (any_gpu(run))
        missing(out, SUM_RULE_GPU_IDLE, "no GPU had enough samples of utilization.gpu");
}

static void judge_gpu_underused(const struct sum_run *run, const struct sum_rule_cfg *c,
                                struct sum_verdicts *out)
{
    double sum = 0, sm_sum = 0;
    uint64_t n = 0, sm_n = 0;
    int ngpu = 0;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || gp->idle.rows < min_samples(c) || gpu_idle_all(run, g, c))
            continue; /* gpu_idle says those */
        ngpu++;
        sum += gp->m[HW_GM_UTIL].sum;
        n += gp->m[HW_GM_UTIL].n;
        if (gp->gpm[1].n) { /* sm_active_pct (HW_GPM_KEYS) */
            sm_sum += gp->gpm[1].sum;
            sm_n += gp->gpm[1].n;
        }
    }
    if (!n) {
        if (any_gpu(run) && !any_util(run, c))
            missing(out, SUM_RULE_GPU_UNDERUSED, "no GPU had enough samples of utilization.gpu");
        return;
    }
    double mean = sum / (double)n;
    double warn = sum_rule_thr(c, SUM_RULE_GPU_UNDERUSED, T_UNDER_WARN);
    double info = sum_rule_thr(c, SUM_RULE_GPU_UNDERUSED, T_UNDER_INFO);
    struct sum_verdict *v = NULL;
    if (mean <= warn)
        v = add(out, SUM_RULE_GPU_UNDERUSED, SUM_SEV_WARNING, T_UNDER_WARN,
                "GPU utilization %.3g%% on average over %d working GPU%s (at most %.3g%% is "
                "low: jobstats)",
                mean, ngpu, ngpu == 1 ? "" : "s", warn);
    else if (mean < info)
        v = add(out, SUM_RULE_GPU_UNDERUSED, SUM_SEV_INFO, T_UNDER_INFO,
                "GPU utilization %.3g%% on average over %d working GPU%s (under %.3g%% is "
                "somewhat low: jobstats)",
                mean, ngpu, ngpu == 1 ? "" : "s", info);
    else if (sm_n && sm_sum / (double)sm_n < sum_rule_thr(c, SUM_RULE_GPU_UNDERUSED, T_UNDER_SM))
        v = add(out, SUM_RULE_GPU_UNDERUSED, SUM_SEV_INFO, T_UNDER_SM,
                "SM activity %.3g%% on average although utilization read %.3g%%: kernels ran "
                "on few of the SMs (under %.3g%% is likely ineffective: DCGM)",
                sm_sum / (double)sm_n, mean,
                sum_rule_thr(c, SUM_RULE_GPU_UNDERUSED, T_UNDER_SM));
    ev(v, "util_mean_pct", mean, "%");
    ev(v, "gpus", ngpu, "GPUs");
    if (sm_n)
        ev(v, "sm_active_mean_pct", sm_sum / (double)sm_n, "%");
}

/* Is name in the comma-separated list (any case)? */
static bool in_list(const char *list, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        const char *q = p;
        size_t m = n;
        while (m && isspace((unsigned char)*q))
            q++, m--;
        while (m && isspace((unsigned char)q[m - 1]))
            m--;
        if (m && m == nl && !strncasecmp(q, name, m))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

static void judge_input_bound(const struct sum_run *run, const struct sum_rule_cfg *c,
                              struct sum_verdicts *out)
{
    const char *inputs = sum_rule_thr_str(c, SUM_RULE_INPUT_BOUND, T_IN_NAMES);
    const char *steps = sum_rule_thr_str(c, SUM_RULE_INPUT_BOUND, T_IN_STEPS);
    double in_s = 0, step_s = 0;
    const struct sum_name_acc *top_in = NULL;
    bool any_in = false;
    for (size_t i = 0; i < run->names.n; i++) {
        const struct sum_name_acc *a = &run->names.v[i];
        if (!(a->d_sum >= 0))
            continue;
        if (in_list(inputs, a->name)) {
            any_in = true;
            in_s += a->d_sum;
            if (!top_in || a->d_sum > top_in->d_sum)
                top_in = a;
        } else if (in_list(steps, a->name)) {
            step_s += a->d_sum;
        }
    }
    char d[32], d2[32], nb[64];
    if (any_in) {
        double whole = step_s > 0 ? in_s + step_s : sum_run_duration(run);
        double share = whole > 0 ? 100 * in_s / whole : NAN;
        out->figure[SUM_VFIG_INPUT_WAIT_PCT] = share;
        double hi = sum_rule_thr(c, SUM_RULE_INPUT_BOUND, T_IN_HIGH);
        double mod = sum_rule_thr(c, SUM_RULE_INPUT_BOUND, T_IN_MOD);
        if (share >= mod) {
            bool high = share >= hi;
            struct sum_verdict *v = add(
                out, SUM_RULE_INPUT_BOUND, high ? SUM_SEV_WARNING : SUM_SEV_INFO,
                high ? T_IN_HIGH : T_IN_MOD,
                "%s input-bound: %.3g%% of the %s in input phases (`%s` and the like: %s of "
                "%s; at least %.3g%% is %s: TensorFlow Profiler)",
                high ? "highly" : "moderately", share,
                step_s > 0 ? "loop's time" : "run", sum_fig_printable(top_in->name, nb, sizeof nb),
                sum_verdict_dur(in_s, d, sizeof d), sum_verdict_dur(whole, d2, sizeof d2),
                high ? hi : mod, high ? "highly" : "moderately");
            if (v) {
                v->grade = high ? "highly" : "moderately";
                snprintf(v->phase, sizeof v->phase, "%s", top_in->name);
                ev(v, "input_wait_pct", share, "%");
                ev(v, "input_sec", in_s, "s");
                ev(v, "step_sec", step_s, "s");
            }
            return;
        }
    }
    /* the other sign: a step phase whose GPU idled while the job's CPU was busy */
    double gmax = sum_rule_thr(c, SUM_RULE_INPUT_BOUND, T_IN_GPU);
    double cmin = sum_rule_thr(c, SUM_RULE_INPUT_BOUND, T_IN_CPU);
    for (size_t i = 0; i < run->names.n; i++) {
        const struct sum_name_acc *a = &run->names.v[i];
        if (!in_list(steps, a->name) || a->util.n < min_samples(c) || !a->proc_cpu.n)
            continue;
        double u = sum_stat_mean(&a->util), cpu = sum_stat_mean(&a->proc_cpu);
        if (!(u < gmax && cpu >= cmin))
            continue;
        struct sum_verdict *v = add(
            out, SUM_RULE_INPUT_BOUND, SUM_SEV_WARNING, T_IN_GPU,
            "in `%s` the GPUs were busy %.3g%% of the time while the job's CPU ran at %.3g%% "
            "of a core: the GPU waits for the host (data loading, Python)",
            sum_fig_printable(a->name, nb, sizeof nb), u, cpu);
        if (v) {
            snprintf(v->phase, sizeof v->phase, "%s", a->name);
            ev(v, "gpu_util_mean_pct", u, "%");
            ev(v, "proc_cpu_mean_pct", cpu, "% of a core");
        }
        return;
    }
}

static void judge_throttled(const struct sum_run *run, const struct sum_rule_cfg *c,
                            struct sum_verdicts *out)
{
    struct sum_clk_figs clk;
    if (!sum_run_clocks(run, &clk)) {
        if (any_gpu(run))
            missing(out, SUM_RULE_THROTTLED, "hw_health.csv has no clock event reasons");
        return;
    }
    double th = sum_rule_thr(c, SUM_RULE_THROTTLED, T_THR_THERMAL);
    double pw = sum_rule_thr(c, SUM_RULE_THROTTLED, T_THR_POWER);
    struct sum_verdict *v = NULL;
    if (clk.thermal_pct >= th)
        v = add(out, SUM_RULE_THROTTLED, SUM_SEV_WARNING, T_THR_THERMAL,
                "the GPUs were slowed for heat %.3g%% of their time (at least %.3g%% is a "
                "verdict): check cooling and the GPUs' temperatures",
                clk.thermal_pct, th);
    else if (clk.power_pct >= pw)
        v = add(out, SUM_RULE_THROTTLED, SUM_SEV_INFO, T_THR_POWER,
                "the GPUs ran at their power limit %.3g%% of their time (at least %.3g%% is a "
                "note): a higher limit would let them clock higher",
                clk.power_pct, pw);
    ev(v, "thermal_pct", clk.thermal_pct, "%");
    ev(v, "power_capped_pct", clk.power_pct, "%");
    ev(v, "sm_clock_pct_of_max", clk.sm_pct_of_max, "%");
}

static double gib_up(double mib, double margin)
{
    return ceil(mib * margin / 1024.0);
}

static void judge_mem_oversized(const struct sum_run *run, const struct sum_rule_cfg *c,
                                struct sum_verdicts *out)
{
    double limit = run->cg_mem_max_mib;
    if (!(limit > 0))
        return; /* no limit asked for: nothing to size */
    const char *src;
    double peak = sum_system_mem_peak(&run->sys, &src);
    if (isnan(peak)) {
        missing(out, SUM_RULE_MEMORY_OVERSIZED, "the container's memory was not sampled");
        return;
    }
    double pct = 100 * peak / limit;
    out->figure[SUM_VFIG_MEM_USED_OF_LIMIT_PCT] = pct;
    if (sum_run_num_samples(run) < min_samples(c) ||
        !(pct < sum_rule_thr(c, SUM_RULE_MEMORY_OVERSIZED, T_MEM_USED)))
        return;
    double margin = sum_rule_thr(c, SUM_RULE_MEMORY_OVERSIZED, T_MEM_MARGIN);
    double ask = gib_up(peak, margin);
    struct sum_verdict *v = add(
        out, SUM_RULE_MEMORY_OVERSIZED, SUM_SEV_INFO, T_MEM_USED,
        "the container's memory peaked at %.4g GiB of its %.4g GiB limit (%.3g%%), so %.0f GiB "
        "would do (%.3g x the peak, jobstats)",
        peak / 1024, limit / 1024, pct, ask, margin);
    ev(v, "peak_mib", peak, "MiB");
    ev(v, "limit_mib", limit, "MiB");
    ev(v, "used_pct", pct, "%");
    ev(v, "suggest_gib", ask, "GiB");
}

static void judge_mem_near_limit(const struct sum_run *run, const struct sum_rule_cfg *c,
                                 struct sum_verdicts *out)
{
    double limit = run->cg_mem_max_mib;
    if (!(limit > 0))
        return;
    const char *src;
    double peak = sum_system_mem_peak(&run->sys, &src);
    if (isnan(peak)) {
        missing(out, SUM_RULE_MEMORY_NEAR_LIMIT, "the container's memory was not sampled");
        return;
    }
    double pct = 100 * peak / limit, thr = sum_rule_thr(c, SUM_RULE_MEMORY_NEAR_LIMIT, T_NEAR_PCT);
    if (!(pct >= thr))
        return;
    struct sum_verdict *v = add(
        out, SUM_RULE_MEMORY_NEAR_LIMIT, SUM_SEV_WARNING, T_NEAR_PCT,
        "the container's memory reached %.4g GiB of its %.4g GiB limit (%.3g%%; at least "
        "%.3g%% is close to the OOM killer)",
        peak / 1024, limit / 1024, pct, thr);
    ev(v, "peak_mib", peak, "MiB");
    ev(v, "limit_mib", limit, "MiB");
    ev(v, "used_pct", pct, "%");
}

static void judge_vram_oversized(const struct sum_run *run, const struct sum_rule_cfg *c,
                                 struct sum_verdicts *out)
{
    double peak = NAN, total = NAN;
    int gpu = -1;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || !gp->m[HW_GM_MEM_USED].n || !gp->m[HW_GM_MEM_TOTAL].n ||
            gpu_idle_all(run, g, c))
            continue;
        double u = gp->m[HW_GM_MEM_USED].max, tot = gp->m[HW_GM_MEM_TOTAL].max;
        if (!(tot > 0))
            continue;
        if (gpu < 0 || u / tot > peak / total)
            peak = u, total = tot, gpu = g;
    }
    if (gpu < 0) {
        bool idle_all = false; /* every GPU idled: gpu_idle's verdict, not a lack of data */
        for (int g = 0; g < RD_MAX_GPUS; g++)
            idle_all |= gpu_idle_all(run, g, c);
        if (any_gpu(run) && !idle_all)
            missing(out, SUM_RULE_VRAM_OVERSIZED, "no GPU had memory.used and memory.total");
        return;
    }
    double pct = 100 * peak / total;
    out->figure[SUM_VFIG_VRAM_USED_PCT] = pct;
    if (run->gpu[gpu]->samples < min_samples(c) ||
        !(pct < sum_rule_thr(c, SUM_RULE_VRAM_OVERSIZED, T_VRAM_USED)) ||
        !(total / 1024 >= sum_rule_thr(c, SUM_RULE_VRAM_OVERSIZED, T_VRAM_MIN_TOTAL)))
        return;
    double margin = sum_rule_thr(c, SUM_RULE_VRAM_OVERSIZED, T_VRAM_MARGIN);
    double ask = gib_up(peak, margin);
    struct sum_verdict *v = add(
        out, SUM_RULE_VRAM_OVERSIZED, SUM_SEV_INFO, T_VRAM_USED,
        "GPU memory peaked at %.4g GiB of the card's %.4g GiB (%.3g%%, GPU %d): a smaller card "
        "or a MIG slice of %.0f GiB would hold it (%.3g x the peak)",
        peak / 1024, total / 1024, pct, gpu, ask, margin);
    if (v)
        v->gpu = gpu;
    ev(v, "peak_mib", peak, "MiB");
    ev(v, "total_mib", total, "MiB");
    ev(v, "used_pct", pct, "%");
    ev(v, "suggest_gib", ask, "GiB");
}

static void judge_cpu_underused(const struct sum_run *run, const struct sum_rule_cfg *c,
                                struct sum_verdicts *out)
{
    const char *src;
    double cores = sum_run_expected_cores(run, &src);
    /* the affinity mask is what was given only where a scheduler gave it */
    bool sched = run->info.ctx[HW_CTX_SLURM_JOB_ID][0] || run->info.ctx[HW_CTX_K8S][0];
    if (!(cores > 0) || !src || (!strcmp(src, "affinity") && !sched))
        return;
    const struct sum_stat *cpu = &run->proc[HW_PROC_COL_CPU];
    if (cpu->n < min_samples(c)) {
        missing(out, SUM_RULE_CPU_UNDERUSED, "the job's process tree was not sampled enough");
        return;
    }
    double used = sum_stat_mean(cpu) / 100, peak = cpu->max / 100;
    double eff = 100 * used / cores;
    out->figure[SUM_VFIG_CPU_EFFICIENCY_PCT] = eff;
    if (cores < sum_rule_thr(c, SUM_RULE_CPU_UNDERUSED, T_CPU_MIN_CORES) ||
        !(eff < sum_rule_thr(c, SUM_RULE_CPU_UNDERUSED, T_CPU_EFF)))
        return;
    double margin = sum_rule_thr(c, SUM_RULE_CPU_UNDERUSED, T_CPU_MARGIN);
    double ask = fmax(1, ceil(peak * margin));
    if (ask >= cores)
        return; /* its peak needed them */
    struct sum_verdict *v = add(
        out, SUM_RULE_CPU_UNDERUSED, SUM_SEV_INFO, T_CPU_EFF,
        "the job used %.3g of its %.4g cores on average (%.3g%%, peak %.3g; cores from %s): %.0f "
        "would do (%.3g x the peak)",
        used, cores, eff, peak, src, ask, margin);
    ev(v, "cores_used_mean", used, "cores");
    ev(v, "cores_used_peak", peak, "cores");
    ev(v, "cores_given", cores, "cores");
    ev(v, "efficiency_pct", eff, "%");
    ev(v, "suggest_cores", ask, "cores");
}

static void judge_energy_idle(const struct sum_run *run, const struct sum_rule_cfg *c,
                              struct sum_verdicts *out)
{
    double idle = 0, all = 0, top = 0;
    int top_g = -1;
    bool measured = false;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || gp->idle.rows < min_samples(c) || !(gp->idle.power_j > 0))
            continue;
        measured = true;
        idle += gp->idle.idle_j;
        all += gp->idle.power_j;
        if (gp->idle.idle_j > top)
            top = gp->idle.idle_j, top_g = g;
    }
    if (!measured) {
        if (any_gpu(run))
            missing(out, SUM_RULE_ENERGY_IDLE, "no GPU had both power.draw and "
                                               "utilization.gpu in enough samples");
        return;
    }
    out->figure[SUM_VFIG_ENERGY_IDLE_WH] = idle / 3600;
    double share = 100 * idle / all;
    double wpct = sum_rule_thr(c, SUM_RULE_ENERGY_IDLE, T_EIDLE_WARN);
    double ipct = sum_rule_thr(c, SUM_RULE_ENERGY_IDLE, T_EIDLE_INFO);
    if (!(share >= ipct))
        return;
    bool warn = share >= wpct;
    struct sum_verdict *v = add(
        out, SUM_RULE_ENERGY_IDLE, warn ? SUM_SEV_WARNING : SUM_SEV_INFO,
        warn ? T_EIDLE_WARN : T_EIDLE_INFO,
        "the GPUs drew %.4g Wh of their %.4g Wh (%.3g%%) while doing no work, GPU %d the most "
        "(%.4g Wh)",
        idle / 3600, all / 3600, share, top_g, top / 3600);
    ev(v, "energy_idle_wh", idle / 3600, "Wh");
    ev(v, "energy_wh", all / 3600, "Wh");
    ev(v, "idle_pct", share, "%");
}

/* ---- all of them ----------------------------------------------------------------------- */

struct sum_verdicts *sum_verdicts_make(const struct sum_run *run, const struct sum_rule_cfg *cfg)
{
    struct sum_verdicts *out = calloc(1, sizeof *out);
    if (!out)
        return NULL;
    for (int f = 0; f < SUM_VFIG_COUNT; f++)
        out->figure[f] = NAN;
    uint64_t ns = sum_run_num_samples(run);
    double need = min_samples(cfg);
    for (int r = 0; r < SUM_RULE_COUNT; r++) {
        if (!sum_rules[r].judge || (cfg && cfg->off[r]))
            continue;
        if ((double)ns < need) {
            char why[120];
            snprintf(why, sizeof why, "the run has %llu samples, fewer than all.min_samples "
                     "(%.12g)", (unsigned long long)ns, need);
            missing(out, (enum sum_rule_id)r, why);
            continue;
        }
        sum_rules[r].judge(run, cfg, out);
    }
    /* warnings first, then the table's order (the add order within a rule) */
    for (size_t i = 1; i < out->n; i++) {
        struct sum_verdict t = out->v[i];
        size_t j = i;
        while (j > 0 && out->v[j - 1].sev < t.sev) {
            out->v[j] = out->v[j - 1];
            j--;
        }
        out->v[j] = t;
    }
    if (!(cfg && cfg->off[SUM_RULE_DATA_MISSING])) {
        /* one line: each reason once, with the rules it kept from judging */
        struct hw_buf b;
        hw_buf_init(&b, NULL, 0);
        bool done[SUM_RULE_COUNT] = {0};
        int nmiss = 0;
        for (int r = 0; r < SUM_RULE_COUNT; r++) {
            if (done[r] || !out->missing[r][0])
                continue;
            hw_buf_puts(&b, nmiss++ ? "; " : "not judged, for lack of data: ");
            for (int q = r, k = 0; q < SUM_RULE_COUNT; q++)
                if (!done[q] && !strcmp(out->missing[q], out->missing[r])) {
                    hw_buf_printf(&b, "%s%s", k++ ? ", " : "", sum_rules[q].id);
                    done[q] = true;
                }
            hw_buf_printf(&b, " (%s)", out->missing[r]);
        }
        if (b.oom)
            sum_oom_note();
        else if (nmiss) {
            struct sum_verdict *v = add(out, SUM_RULE_DATA_MISSING, SUM_SEV_INFO, 0, "%s", b.p);
            ev(v, "rules", nmiss, "reasons");
        }
        hw_buf_free(&b);
    }
    sum_verdicts_ids(out, out->ids, sizeof out->ids);
    return out;
}

int sum_run_summarize(struct sum_run *run, const struct sum_inputs *in,
                      const struct sum_config *cfg)
{
    const struct sum_rule_cfg *rules = cfg ? cfg->rules : NULL;
    unsigned long oom_before = sum_oom_count();
    int rc = sum_run_read(run, in, cfg, sum_idle_threshold(rules)); /* the threshold: once */
    free(run->verdicts); /* judged from the figures, once, for every output */
    run->verdicts = sum_verdicts_make(run, rules);
    if (!run->verdicts || sum_oom_count() != oom_before)
        run->oom = true;
    return rc < 0 ? rc : run->oom ? -ENOMEM : rc;
}

const char *sum_verdicts_ids(const struct sum_verdicts *v, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; v && i < v->n; i++) {
        const char *id = sum_rules[v->v[i].rule].id;
        bool seen = v->v[i].rule == SUM_RULE_DATA_MISSING;
        for (size_t j = 0; j < i && !seen; j++)
            seen = v->v[j].rule == v->v[i].rule;
        if (seen)
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s", len ? " " : "", id);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
    return buf;
}

size_t sum_verdicts_count(const struct sum_verdicts *v, enum sum_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; v && i < v->n; i++)
        n += v->v[i].sev >= sev;
    return n;
}
