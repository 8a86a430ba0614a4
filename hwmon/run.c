/* hwmon's run: set up the directory and the run log, ask nvidia-smi once what it has, start the
 * wrapped command, the sampler thread and the nvidia-smi children, then serve one poll(2) loop
 * on a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP), the children's stderr pipes, the sampler's
 * eventfd and the attached process's pidfd, until it is time to stop; then stop everything,
 * reap everything and log the stop event. Everything but the sampler runs on this thread. */
#include "mon.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "children.h"
#include "gpusel.h"
#include "hwrun/array.h"
#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "hwrun/msg.h"
#include "hwrun/rundir.h"
#include "hwrun/timeutil.h"
#include "procfs.h"
#include "jobtree.h"
#include "prom.h"
#include "runlog.h"
#include "sampler.h"

extern char **environ;

enum { CH_QUERY, CH_DMON, CH_APPS, CH_GPM, CH_N };

/* The one-time questions to nvidia-smi delay the start (the command starts after them), so a
 * wedged driver gets little time: one timeout and GPU monitoring is off. */
#define MON_PROBE_TIMEOUT_S 5.0

struct run {
    const struct mon_config *cfg;
    char dir[PATH_MAX];
    rl_log_t *log;
    bool log_warned;
    sigset_t mask, oldmask;
    bool pipe_was_ignored;
    int sfd, efd, pidfd;
    /* GPU */
    bool gpu_ok;
    char smi_path[PATH_MAX];
    char **smi_env;
    char fields[512];
    char driver_version[128];
    char gpus_json[4096];
    char *argv_store[CH_N][10];
    char query_arg[640];
    char loop_flag[8], loop_val[24], dmon_val[24];
    char out_paths[CH_N][PATH_MAX + 32];
    struct mon_child ch[CH_N];
    int n_ch;
    /* tracked process */
    pid_t cmd_pid;
    int cmd_status;
    bool cmd_done;
    pid_t track_pid;
    /* samplers */
    struct mon_sys sys;
    bool sys_open;
    struct mon_tree tree;
    bool tree_open;
    struct mon_sampler sampler;
    int cpu_fd, proc_fd;
    /* lifecycle */
    double t0;
    const char *stop_reason;
    bool stopping, signals_seen;
    double stop_deadline;
    /* GPM: probed once; its child takes the next free slot of ch[] */
    bool gpm_ok;
    char gpm_why[PATH_MAX + 64];
    char gpm_missing[512]; /* JSON array of the GPUs without GPM, "" when none */
    char *gpm_argv[14];
    const char *ch_file[CH_N];
    /* Prometheus export */
    struct mon_prom prom;
    bool prom_open, prom_warned;
    double prom_next;
    int tree_pids_fd; /* tree_pids.csv, beside proc_metrics.csv */
    struct mon_gpusel gsel;
    char gpu_sel_json[512]; /* the selected GPUs' indexes as nvidia-smi -i resolved them */
    /* a stop signal forwarded to the job's whole tree (jobtree.h) */
    bool fwd;
    int fwd_sig;
    double fwd_deadline;   /* then SIGKILL whatever of the job is left */
    long fwd_n;            /* processes the signal reached */
    bool fwd_killed;       /* the SIGKILL round was made */
    pid_t killed[64];      /* what it killed (the first 64) */
    long n_killed;
    bool made_dir, made_log; /* created by this start: removed again if it fails */
    bool started;            /* the start event was logged */
    bool dir_ok;             /* the directory held no run's samples: any there now are ours */
};

static void log_event(struct run *r, const char *type, const rl_field_t *f, size_t n)
{
    int rc = rl_event(r->log, type, f, n);
    if (rc < 0 && !r->log_warned) { /* once: a full disk would otherwise flood stderr */
        hw_warn(-rc, "write %s/run.jsonl", r->dir);
        r->log_warned = true;
    }
}

/* dir + "/" + name into out (cut if too long; paths under PATH_MAX never are). */
static void join_path(char *out, size_t cap, const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    if (dl + 1 + nl + 1 > cap) {
        out[0] = '\0';
        return;
    }
    memcpy(out, dir, dl);
    out[dl] = '/';
    memcpy(out + dl + 1, name, nl + 1);
}

/* A member of an event that is there only when on: an event's possible members are one static
 * list, and the array handed to librunlog has room for all of them by construction. */
struct opt_field {
    bool on;
    rl_field_t f;
};

static size_t pick_fields(const struct opt_field *all, size_t n_all, rl_field_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < n_all; i++)
        if (all[i].on)
            out[n++] = all[i].f;
    return n;
}

/* ---- nvidia-smi: one-time questions ---- */

static bool says_no_driver(const char *out)
{
    return strstr(out, "has failed") || strstr(out, "Failed to initialize NVML") ||
           strstr(out, "couldn't communicate with the NVIDIA driver") ||
           strstr(out, "No devices were found");
}

/* "KEY   : value" line of nvidia-smi --version. */
static bool version_value(const char *out, const char *key, char *val, size_t cap)
{
    for (const char *line = out; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        size_t kl = strlen(key);
        if (len > kl && strncmp(line, key, kl) == 0) {
            const char *c = memchr(line, ':', len);
            if (c) {
                c++;
                while (*c == ' ')
                    c++;
                size_t vl = (size_t)(line + len - c);
                while (vl && (c[vl - 1] == ' ' || c[vl - 1] == '\r'))
                    vl--;
                if (vl + 1 > cap)
                    vl = cap - 1;
                memcpy(val, c, vl);
                val[vl] = '\0';
                return vl > 0;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return false;
}

/* "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)" lines of -L into a JSON array. */
static void parse_gpu_list(const char *out, char *json, size_t cap)
{
    struct hw_buf b;
    hw_buf_init(&b, json, cap);
    hw_buf_putc(&b, '[');
    int n = 0;
    for (const char *line = out; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > 6 && strncmp(line, "GPU ", 4) == 0) {
            const char *colon = memchr(line, ':', len);
            const char *uu = NULL;
            for (const char *q = line; q + 7 <= line + len; q++)
                if (strncmp(q, " (UUID: ", 8) == 0) {
                    uu = q;
                    break;
                }
            if (colon) {
                long idx = strtol(line + 4, NULL, 10);
                const char *name = colon + 2 <= line + len ? colon + 2 : colon + 1;
                const char *name_end = uu ? uu : line + len;
                if (n++)
                    hw_buf_puts(&b, ", ");
                hw_buf_printf(&b, "{\"index\": %ld, \"name\": ", idx);
                hw_buf_json_str(&b, name, name_end > name ? (size_t)(name_end - name) : 0);
                hw_buf_puts(&b, ", \"uuid\": ");
                if (uu) {
                    const char *us = uu + 8, *ue = memchr(us, ')', (size_t)(line + len - us));
                    hw_buf_json_str(&b, us, ue ? (size_t)(ue - us) : (size_t)(line + len - us));
                } else {
                    hw_buf_puts(&b, "null");
                }
                hw_buf_putc(&b, '}');
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    hw_buf_putc(&b, ']');
    if (b.heap || b.oom) { /* too many GPUs for the buffer: keep valid JSON */
        hw_buf_free(&b);
        snprintf(json, cap, "[]");
    }
}

static void gpu_unavailable(struct run *r, const char *reason, const char *output)
{
    rl_field_t f[] = {RL_STR("reason", reason), RL_STR("output", output ? output : "")};
    log_event(r, HW_EV_GPU_UNAVAILABLE, f, 2);
    if (!r->cfg->quiet)
        hw_warn(0, "no GPU data: %s", reason);
    r->gpu_ok = false;
}

static void strip_trailing_space(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* Remove field name from the comma-separated list. true if it was there. */
static bool drop_field(char *list, const char *name, size_t nl)
{
    char *p = list;
    while (*p) {
        char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == nl && strncmp(p, name, nl) == 0) {
            if (c)
                memmove(p, c + 1, strlen(c + 1) + 1);
            else if (p > list)
                p[-1] = '\0';
            else
                *p = '\0';
            return true;
        }
        if (!c)
            break;
        p = c + 1;
    }
    return false;
}

/* The pending gpu_fields_fallback events are logged after the start event. */
struct fallback {
    char dropped[64];
    char fields[512];
};

/* Do the selected ids name GPUs? nvidia-smi answers an unknown -i id with "No devices were
 * found" (exit 6): that is an error at start, not an empty hw_metrics.csv. The indexes it
 * prints go into the start event. Returns 0, or -1 with why set. */
static int probe_selection(struct run *r, char *why, size_t why_cap, char *out, size_t cap)
{
    char *av[] = {r->smi_path, "--query-gpu=index", "--format=csv,noheader,nounits", "-i",
                  (char *)r->gsel.ids, NULL};
    int st;
    int rc = mon_probe(r->smi_path, av, r->smi_env, MON_PROBE_TIMEOUT_S, out, cap, &st);
    if (rc < 0 || st != 0) {
        if (rc == 0)
            strip_trailing_space(out);
        snprintf(why, why_cap, "%s=\"%s\" names no GPU here (nvidia-smi -i: %s)",
                 strcmp(r->gsel.source, "option") ? r->gsel.source : "--gpus", r->gsel.ids,
                 rc < 0 ? strerror(-rc) : out[0] ? out : "failed");
        return -1;
    }
    struct hw_buf b;
    hw_buf_init(&b, r->gpu_sel_json, sizeof r->gpu_sel_json);
    hw_buf_putc(&b, '[');
    int n = 0;
    for (const char *p = out; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end > p && v >= 0)
            hw_buf_printf(&b, "%s%ld", n++ ? ", " : "", v);
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    hw_buf_putc(&b, ']');
    hw_buf_putc(&b, '\0');
    if (b.heap || b.oom) /* more GPUs than fit: leave the list out */
        r->gpu_sel_json[0] = '\0';
    hw_buf_free(&b);
    return 0;
}

static int probe_gpu(struct run *r, struct fallback *fb, int *n_fb, char *why, size_t why_cap,
                     char *outbuf, size_t outcap)
{
    const struct mon_config *cfg = r->cfg;
    int rc = mon_find_exec(cfg->smi, r->smi_path, sizeof r->smi_path);
    if (rc < 0) {
        snprintf(why, why_cap, "%s: %s", cfg->smi, rc == -ENOENT ? "not found" : strerror(-rc));
        outbuf[0] = '\0';
        return -1;
    }
    int st;
    char *av_ver[] = {r->smi_path, "--version", NULL};
    rc = mon_probe(r->smi_path, av_ver, r->smi_env, MON_PROBE_TIMEOUT_S, outbuf, outcap, &st);
    if (rc < 0) {
        snprintf(why, why_cap, "cannot run %s: %s", r->smi_path, strerror(-rc));
        outbuf[0] = '\0';
        return -1;
    }
    if (st != 0 || says_no_driver(outbuf)) {
        if (st == 124)
            snprintf(why, why_cap, "%s --version did not answer within %g s", r->smi_path,
                     MON_PROBE_TIMEOUT_S);
        else
            snprintf(why, why_cap, "%s --version failed (status %d)", r->smi_path, st);
        strip_trailing_space(outbuf);
        return -1;
    }
    char v[128];
    if (version_value(outbuf, "DRIVER version", v, sizeof v) && strncmp(v, "Deprecated", 10) != 0)
        snprintf(r->driver_version, sizeof r->driver_version, "%s", v);
    else if (version_value(outbuf, "KMD version", v, sizeof v))
        snprintf(r->driver_version, sizeof r->driver_version, "%s", v);

    char *av_list[] = {r->smi_path, "-L", NULL};
    rc = mon_probe(r->smi_path, av_list, r->smi_env, MON_PROBE_TIMEOUT_S, outbuf, outcap, &st);
    if (rc == 0 && (st != 0 || says_no_driver(outbuf))) {
        snprintf(why, why_cap, "%s -L failed (status %d)", r->smi_path, st);
        strip_trailing_space(outbuf);
        return -1;
    }
    if (rc == 0)
        parse_gpu_list(outbuf, r->gpus_json, sizeof r->gpus_json);
    if (r->gsel.ids && probe_selection(r, why, why_cap, outbuf, outcap) < 0)
        return -2;

    /* Does the driver take every field? An unknown one aborts the whole query with
     * `Field "x" is not a valid field to query.` on stdout (exit 2): drop it and ask again. */
    for (int tries = 0; tries < 16 && r->fields[0]; tries++) {
        char qarg[600];
        snprintf(qarg, sizeof qarg, "--query-gpu=%s", r->fields);
        char *av_q[] = {r->smi_path, qarg, "--format=csv,noheader,nounits", NULL};
        rc = mon_probe(r->smi_path, av_q, r->smi_env, MON_PROBE_TIMEOUT_S, outbuf, outcap, &st);
        if (rc < 0 || st == 0)
            break;
        const char *f = strstr(outbuf, "Field \"");
        const char *e = f ? strstr(f + 7, "\" is not a valid field") : NULL;
        if (!e)
            break; /* some other failure: the query child will report it */
        const char *name = f + 7;
        size_t nl = (size_t)(e - name);
        if (!drop_field(r->fields, name, nl))
            break;
        if (*n_fb < 16) {
            struct fallback *x = &fb[(*n_fb)++];
            snprintf(x->dropped, sizeof x->dropped, "%.*s", (int)nl, name);
            snprintf(x->fields, sizeof x->fields, "%s", r->fields);
        }
    }
    if (!r->fields[0]) {
        snprintf(why, why_cap, "the driver rejected every --query-gpu field");
        return -1;
    }
    return 0;
}

/* Which GPUs have GPM? `dmon -s u --gpm-metrics 2 -c 1` prints one row per GPU; SM activity is
 * a number on a GPU with GPM and `-` on one without (GPU 0 of the H800 capture); a driver from
 * before GPM rejects the option. Returns 0 when at least one GPU has it (r->gpm_missing lists
 * the others), else -1 with r->gpm_why set; out keeps dmon's output for the event. */
static int probe_gpm(struct run *r, char *out, size_t cap)
{
    char *av[12] = {r->smi_path, "dmon", "-s", HW_GPM_SELECT, "--gpm-metrics", HW_GPM_PROBE_ID,
                    "-c", "1"};
    int na = 8;
    mon_gpusel_args(&r->gsel, av, &na);
    av[na] = NULL;
    int st;
    int rc = mon_probe(r->smi_path, av, r->smi_env, MON_PROBE_TIMEOUT_S, out, cap, &st);
    if (rc < 0) {
        snprintf(r->gpm_why, sizeof r->gpm_why, "cannot run %s: %s", r->smi_path, strerror(-rc));
        out[0] = '\0';
        return -1;
    }
    strip_trailing_space(out);
    if (st != 0) {
        snprintf(r->gpm_why, sizeof r->gpm_why, "%s dmon --gpm-metrics failed (status %d)",
                 r->smi_path, st);
        return -1;
    }
    char mstore[512];
    struct hw_buf miss;
    hw_buf_init(&miss, mstore, sizeof mstore);
    int col = -1, have = 0, lacking = 0;
    for (const char *line = out; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        /* tokens of this line */
        const char *tok[64];
        size_t tl[64];
        int nt = 0;
        for (size_t i = 0; i < len && nt < 64;) {
            while (i < len && (line[i] == ' ' || line[i] == '\t'))
                i++;
            size_t b = i;
            while (i < len && line[i] != ' ' && line[i] != '\t')
                i++;
            if (i > b) {
                tok[nt] = line + b;
                tl[nt++] = i - b;
            }
        }
        if (nt >= 2 && tl[0] == 1 && tok[0][0] == '#' && tl[1] == 3 && !memcmp(tok[1], "gpu", 3)) {
            for (int i = 1; i < nt; i++)
                if (tl[i] == strlen(HW_GPM_PROBE_COLUMN) &&
                    !memcmp(tok[i], HW_GPM_PROBE_COLUMN, tl[i]))
                    col = i - 1; /* data rows have no '#' token */
        } else if (nt && tok[0][0] != '#' && col >= 0 && col < nt) {
            if (tl[col] == 1 && tok[col][0] == '-') {
                hw_buf_puts(&miss, lacking++ ? ", " : "[");
                hw_buf_put(&miss, tok[0], tl[0]);
            } else {
                have++;
            }
        }
        line = eol ? eol + 1 : line + len;
    }
    if (lacking) {
        hw_buf_putc(&miss, ']');
        hw_buf_putc(&miss, '\0');
        /* more GPUs than fit: the list is cut, so say only how many */
        if (miss.len <= sizeof r->gpm_missing)
            memcpy(r->gpm_missing, miss.p, miss.len);
        else
            snprintf(r->gpm_missing, sizeof r->gpm_missing, "%d", lacking);
    }
    hw_buf_free(&miss);
    if (!have) {
        r->gpm_missing[0] = '\0';
        snprintf(r->gpm_why, sizeof r->gpm_why, "%s", col < 0 ? "dmon printed no smutil column"
                                                              : "no GPU reports GPM metrics");
        return -1;
    }
    return 0;
}

/* Logged once, after start: GPM is off (why), or on but some GPUs lack it (their columns in
 * hw_gpm.csv stay `-`). */
static void gpm_unavailable(struct run *r, const char *output)
{
    if (!r->gpm_ok && r->cfg->gpm == MON_GPM_ON)
        hw_warn(0, "--gpm: %s; not recording GPM metrics", r->gpm_why);
    const struct opt_field all[] = {
        {!r->gpm_ok, RL_STR("reason", r->gpm_why)},
        {!r->gpm_ok, RL_STR("output", output)},
        {r->gpm_ok, RL_STR("reason", "some GPUs report no GPM metrics")},
        {r->gpm_ok, RL_JSON("gpus", r->gpm_missing)},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_GPM_UNAVAILABLE, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
}

/* ---- the children's command lines ---- */

static void loop_args(double iv, char *flag, size_t fcap, char *val, size_t vcap)
{
    if (iv >= 1 && fabs(iv - round(iv)) < 1e-9) {
        snprintf(flag, fcap, "-l");
        snprintf(val, vcap, "%ld", (long)round(iv));
    } else {
        snprintf(flag, fcap, "-lms");
        long ms = lround(iv * 1000);
        snprintf(val, vcap, "%ld", ms < 1 ? 1L : ms);
    }
}

static void setup_children(struct run *r)
{
    double iv = r->cfg->interval_s;
    char *lflag = r->loop_flag, *lval = r->loop_val, *dval = r->dmon_val;
    loop_args(iv, r->loop_flag, sizeof r->loop_flag, r->loop_val, sizeof r->loop_val);
    long d = lround(iv);
    snprintf(r->dmon_val, sizeof r->dmon_val, "%ld", d < 1 ? 1L : d);

    struct mon_child *c = &r->ch[CH_QUERY];
    snprintf(r->query_arg, sizeof r->query_arg, "--query-gpu=%s", r->fields);
    char **a = r->argv_store[CH_QUERY];
    a[0] = r->smi_path;
    a[1] = r->query_arg;
    a[2] = "--format=csv,noheader,nounits";
    a[3] = lflag;
    a[4] = lval;
    int na = 5;
    mon_gpusel_args(&r->gsel, a, &na);
    a[na] = NULL;
    c->name = "query";
    c->argv = a;
    c->interval_s = iv;
    r->ch_file[CH_QUERY] = HW_GPU_FILE;

    c = &r->ch[CH_DMON];
    a = r->argv_store[CH_DMON];
    a[0] = r->smi_path;
    a[1] = "dmon";
    a[2] = "-s";
    a[3] = "um";
    a[4] = "-d";
    a[5] = dval;
    na = 6;
    mon_gpusel_args(&r->gsel, a, &na);
    a[na] = NULL;
    c->name = "dmon";
    c->argv = a;
    c->interval_s = (double)(d < 1 ? 1 : d);
    r->ch_file[CH_DMON] = HW_DMON_FILE;

    r->n_ch = 2;
    if (r->cfg->gpu_procs) {
        c = &r->ch[CH_APPS];
        a = r->argv_store[CH_APPS];
        a[0] = r->smi_path;
        a[1] = "--query-compute-apps=" HW_GPU_PROCS_FIELDS;
        a[2] = "--format=csv,noheader,nounits";
        a[3] = lflag;
        a[4] = lval;
        na = 5;
        mon_gpusel_args(&r->gsel, a, &na);
        a[na] = NULL;
        c->name = "apps";
        c->argv = a;
        c->interval_s = 0; /* no GPU processes, no lines: silence is normal */
        r->ch_file[CH_APPS] = HW_GPU_PROCS_FILE;
        r->n_ch = 3;
    }
    if (r->gpm_ok) {
        char *gpm[] = {r->smi_path,       "dmon", "-s", HW_GPM_SELECT, "--gpm-metrics",
                       HW_GPM_METRIC_IDS, "-o",   "DT", "-d",          dval,
                       NULL};
        _Static_assert(sizeof gpm <= sizeof r->gpm_argv, "gpm_argv too small");
        memcpy(r->gpm_argv, gpm, sizeof gpm);
        c = &r->ch[r->n_ch];
        na = 10;
        mon_gpusel_args(&r->gsel, r->gpm_argv, &na);
        r->gpm_argv[na] = NULL;
        c->name = "gpm";
        c->argv = r->gpm_argv;
        c->interval_s = (double)(d < 1 ? 1 : d);
        r->ch_file[r->n_ch++] = HW_GPM_FILE;
    }
}

/* ---- child lifecycle ---- */

static double backoff(unsigned fails)
{
    double d = 1.0;
    for (unsigned i = 1; i < fails && d < 30; i++)
        d *= 2;
    return d > 30 ? 30 : d;
}

static void child_start(struct run *r, struct mon_child *c)
{
    int ep[2];
    c->err_len = 0;
    c->err_tail[0] = '\0';
    c->term_sent = c->hung = false;
    if (pipe2(ep, O_CLOEXEC) < 0) {
        ep[0] = ep[1] = -1;
    } else {
        fcntl(ep[0], F_SETFL, O_NONBLOCK);
    }
    pid_t pid;
    int rc = mon_spawn(r->smi_path, c->argv, r->smi_env, c->out_fd, ep[1], &pid);
    if (ep[1] >= 0)
        close(ep[1]);
    double now = hw_mono_now();
    if (rc < 0) {
        if (ep[0] >= 0)
            close(ep[0]);
        c->err_fd = -1;
        rl_field_t f[] = {RL_STR("child", c->name), RL_INT("pid", 0), RL_INT("status", 127),
                          RL_STR("stderr", strerror(-rc))};
        log_event(r, "child_exit", f, 4);
        c->quick_fails++;
        c->state = MON_CHILD_WAIT_RESTART;
        c->restart_at = now + backoff(c->quick_fails);
        return;
    }
    c->pid = pid;
    c->err_fd = ep[0];
    c->state = MON_CHILD_RUNNING;
    c->started = c->last_growth = now;
    struct stat st;
    c->last_size = fstat(c->out_fd, &st) == 0 ? (long long)st.st_size : 0;
}

static void child_read_err(struct mon_child *c)
{
    if (c->err_fd < 0)
        return;
    for (;;) {
        char tmp[1024];
        ssize_t n = read(c->err_fd, tmp, sizeof tmp);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            close(c->err_fd);
            c->err_fd = -1;
            return;
        }
        /* keep the last sizeof err_tail - 1 bytes */
        size_t cap = sizeof c->err_tail - 1, k = (size_t)n;
        if (k >= cap) {
            memcpy(c->err_tail, tmp + k - cap, cap);
            c->err_len = cap;
        } else {
            if (c->err_len + k > cap) {
                size_t drop = c->err_len + k - cap;
                memmove(c->err_tail, c->err_tail + drop, c->err_len - drop);
                c->err_len -= drop;
            }
            memcpy(c->err_tail + c->err_len, tmp, k);
            c->err_len += k;
        }
        c->err_tail[c->err_len] = '\0';
    }
}

/* A child that died mid-line (nvidia-smi killed, or crashed) leaves a row without '\n'; its
 * restarted successor would glue its first row onto it. hwmon is the only writer while no
 * child runs, so it ends the torn row: one bad line instead of two. */
static void end_torn_line(struct mon_child *c)
{
    struct stat st;
    char last;
    if (fstat(c->out_fd, &st) == 0 && st.st_size > 0 &&
        pread(c->out_fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
        (void)hw_write_all(c->out_fd, "\n", 1, NULL);
}

static void child_exited(struct run *r, struct mon_child *c, int status)
{
    child_read_err(c);
    end_torn_line(c);
    if (c->err_fd >= 0) { /* a grandchild may hold the pipe: don't wait for its EOF */
        close(c->err_fd);
        c->err_fd = -1;
    }
    double now = hw_mono_now();
    pid_t pid = c->pid;
    c->pid = 0;
    if (c->stopping) {
        c->state = MON_CHILD_IDLE;
        return;
    }
    if (!c->hung) {
        strip_trailing_space(c->err_tail);
        rl_field_t f[] = {RL_STR("child", c->name), RL_INT("pid", pid), RL_INT("status", status),
                          RL_STR("stderr", c->err_tail)};
        log_event(r, "child_exit", f, c->err_tail[0] ? 4 : 3);
    }
    /* a child that ran a good while before failing starts its backoff afresh */
    if (now - c->started > 60)
        c->quick_fails = 0;
    c->quick_fails++;
    c->state = MON_CHILD_WAIT_RESTART;
    c->restart_at = now + backoff(c->quick_fails);
}

static void child_tick(struct run *r, struct mon_child *c, double now)
{
    if (c->state == MON_CHILD_WAIT_RESTART && !r->stopping && now >= c->restart_at) {
        c->attempts++;
        rl_field_t f[] = {RL_STR("child", c->name), RL_INT("attempt", c->attempts),
                          RL_DBL("delay_s", backoff(c->quick_fails))};
        log_event(r, "child_restart", f, 3);
        child_start(r, c);
        return;
    }
    if (c->state != MON_CHILD_RUNNING)
        return;
    if (c->term_sent) {
        if (now >= c->kill_at) {
            kill(-c->pid, SIGKILL);
            c->kill_at = now + 3600; /* once */
        }
        return;
    }
    if (c->interval_s <= 0)
        return;
    struct stat st;
    if (fstat(c->out_fd, &st) == 0 && (long long)st.st_size != c->last_size) {
        c->last_size = (long long)st.st_size;
        c->last_growth = now;
        return;
    }
    double hang_s = 5 * c->interval_s < 3 ? 3 : 5 * c->interval_s;
    if (now - c->last_growth > hang_s) {
        rl_field_t f[] = {RL_STR("child", c->name), RL_INT("pid", c->pid),
                          RL_DBL("silent_s", round((now - c->last_growth) * 1000) / 1000)};
        log_event(r, "child_hung", f, 3);
        c->hung = c->term_sent = true;
        kill(-c->pid, SIGTERM);
        c->kill_at = now + 2.0;
    }
}

static void children_stop(struct run *r, double grace)
{
    double now = hw_mono_now();
    for (int i = 0; i < r->n_ch; i++) {
        struct mon_child *c = &r->ch[i];
        c->stopping = true;
        if (c->state == MON_CHILD_RUNNING) {
            kill(-c->pid, SIGTERM);
            if (!c->term_sent || c->kill_at > now + grace) /* a hung child keeps its deadline */
                c->kill_at = now + grace;
            c->term_sent = true;
        } else {
            c->state = MON_CHILD_IDLE;
        }
    }
}

static bool children_running(const struct run *r)
{
    for (int i = 0; i < r->n_ch; i++)
        if (r->ch[i].state == MON_CHILD_RUNNING)
            return true;
    return false;
}

/* ---- the wrapped command ---- */

static int spawn_command(struct run *r)
{
    char e1[PATH_MAX + 32], e2[PATH_MAX + 32];
    memcpy(e1, "RUNLOG_FILE=", 13);
    join_path(e1 + 12, sizeof e1 - 12, r->dir, HW_RUNLOG_FILE);
    memcpy(e2, "HWMON_DIR=", 11);
    memcpy(e2 + 10, r->dir, strlen(r->dir) + 1);
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    if (!env)
        return -ENOMEM;
    size_t k = 0;
    env[k++] = e1;
    env[k++] = e2;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "RUNLOG_FILE=", 12) != 0 &&
            strncmp(environ[i], "HWMON_DIR=", 10) != 0)
            env[k++] = environ[i];
    env[k] = NULL;

    /* The command is the user's job: it keeps hwmon's process group (the terminal's Ctrl-C
     * reaches it directly), gets the signal mask hwmon started with and default dispositions,
     * and deliberately no parent-death signal: a monitor's death must not kill a training run. */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGCHLD);
    if (!r->pipe_was_ignored)
        sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setsigmask(&at, &r->oldmask);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawnp(&pid, r->cfg->command[0], NULL, &at, r->cfg->command, env);
    posix_spawnattr_destroy(&at);
    free(env);
    if (rc != 0)
        return -rc;
    r->cmd_pid = pid;
    return 0;
}

/* ---- start and stop events ---- */

static size_t argv_len(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

static void log_start(struct run *r, const char *mode)
{
    r->started = true;
    struct utsname u;
    if (uname(&u) < 0)
        memset(&u, 0, sizeof u);
    const struct mon_config *cfg = r->cfg;
    /* children: [{"name", "argv", "file"}, ...] */
    rl_field_t ch_members[CH_N][3], ch[CH_N];
    int n_ch = r->gpu_ok ? r->n_ch : 0;
    for (int i = 0; i < n_ch; i++) {
        const struct mon_child *c = &r->ch[i];
        const char *base = strrchr(c->out_path, '/');
        ch_members[i][0] = RL_STR("name", c->name);
        ch_members[i][1] = RL_STRV("argv", (const char *const *)c->argv, argv_len(c->argv));
        ch_members[i][2] = RL_STR("file", base ? base + 1 : c->out_path);
        ch[i] = RL_OBJ(NULL, ch_members[i], HW_ARRAY_SIZE(ch_members[i]));
    }
    rl_field_t cg[MON_CGROUP_NFIELDS];
    size_t n_cg = 0;
    if (r->sys.cg.found) {
        struct mon_cg_sample x; /* a reading of its own: the sampler thread owns r->sys */
        struct mon_cgroup tmp = r->sys.cg;
        tmp.have_prev = false;
        mon_cgroup_sample(&tmp, 0, &x);
        n_cg = mon_cgroup_fields(&r->sys.cg, &x, cg);
    }
    cpu_set_t aff; /* the job's CPUs: its own mask, else hwmon's (the job inherits it) */
    bool have_aff = sched_getaffinity(r->track_pid, sizeof aff, &aff) == 0 ||
                    sched_getaffinity(0, sizeof aff, &aff) == 0;
    /* nvidia-smi prints the host's pids: in another PID namespace they match none of ours */
    int ns = mon_pid_ns_is_init(cfg->proc_root);
    const struct opt_field all[] = {
        {true, RL_STR("tool", "hwmon")},
        {true, RL_STR("version", MON_VERSION)},
        {true, RL_STR("mode", mode)},
        {true, RL_DBL(HW_START_INTERVAL, cfg->interval_s)},
        {cfg->command, RL_STRV(HW_START_COMMAND, (const char *const *)cfg->command,
                               argv_len(cfg->command))},
        {r->track_pid, RL_INT("pid", r->track_pid)},
        {true, RL_INT(HW_START_HWMON_PID, getpid())},
        {cfg->duration_s > 0, RL_DBL("duration_s", cfg->duration_s)},
        {true, RL_STR("output_dir", r->dir)},
        {true, RL_STR(HW_START_HOST, u.nodename)},
        {true, RL_STR("kernel", u.release)},
        {true, RL_INT("cpus", sysconf(_SC_NPROCESSORS_ONLN))},
        {have_aff, RL_INT(HW_CPUS_ALLOWED_KEY, have_aff ? CPU_COUNT(&aff) : 0)},
        {true, RL_STR(HW_START_SMI_TZ, "UTC")},
        {true, RL_STR(HW_START_GPU_FIELDS, r->fields)},
        {true, RL_ARR("children", ch, (size_t)n_ch)},
        {r->gpu_ok && r->driver_version[0], RL_STR("driver_version", r->driver_version)},
        {r->gpu_ok && r->gpus_json[0], RL_JSON("gpus", r->gpus_json)},
        {r->sys.cg.found, RL_OBJ(HW_START_CGROUP, cg, n_cg)},
        {true, RL_BOOL("pss", !cfg->no_pss)},
        {!cfg->no_pss && !cfg->pss, RL_DBL("pss_budget", MON_PSS_BUDGET)},
        {true, RL_BOOL("gpu_procs", cfg->gpu_procs)},
        {true, RL_BOOL("no_gpu", cfg->no_gpu)},
        {true, RL_BOOL("gpm", r->gpm_ok)},
        /* which GPUs and why: --gpus, the job's CUDA_VISIBLE_DEVICES, or every GPU */
        {true, RL_STR("gpus_selected", r->gsel.none ? "" : r->gsel.ids ? r->gsel.ids : "all")},
        {true, RL_STR("gpus_source", r->gsel.source)},
        {r->gpu_ok && r->gpu_sel_json[0], RL_JSON("gpu_indexes", r->gpu_sel_json)},
        {ns >= 0, RL_STR(HW_PIDNS_KEY, ns > 0 ? HW_PIDNS_INIT : HW_PIDNS_OTHER)},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_START, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
}

static void log_stop(struct run *r, bool wrap, int exit_status)
{
    rl_field_t samples[] = {RL_INT("cpu", (int64_t)atomic_load(&r->sampler.n_cpu)),
                            RL_INT("proc", (int64_t)atomic_load(&r->sampler.n_proc))};
    rl_field_t killed[HW_ARRAY_SIZE(r->killed)];
    size_t n_killed = (size_t)r->n_killed < HW_ARRAY_SIZE(killed) ? (size_t)r->n_killed
                                                                   : HW_ARRAY_SIZE(killed);
    for (size_t i = 0; i < n_killed; i++)
        killed[i] = RL_INT(NULL, r->killed[i]);
    const struct opt_field all[] = {
        {true, RL_DBL(HW_STOP_DURATION, round((hw_mono_now() - r->t0) * 1000) / 1000)},
        {true, RL_OBJ("samples", samples, HW_ARRAY_SIZE(samples))},
        {true, RL_INT("skipped_slots", (int64_t)atomic_load(&r->sampler.skipped))},
        {wrap, RL_INT(HW_STOP_EXIT_STATUS, exit_status)},
        {true, RL_STR(HW_STOP_REASON, r->stop_reason ? r->stop_reason : "signal")},
        /* a stop signal went to the job's whole tree */
        {r->fwd, RL_INT("signal_forwarded", r->fwd_sig)},
        {r->fwd, RL_INT("processes_signalled", r->fwd_n)},
        {r->fwd, RL_ARR("killed_after_grace", killed, n_killed)},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_STOP, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
}

/* ---- the main loop ---- */

static struct mon_child *child_by_pid(struct run *r, pid_t pid)
{
    for (int i = 0; i < r->n_ch; i++)
        if (r->ch[i].pid == pid && r->ch[i].state == MON_CHILD_RUNNING)
            return &r->ch[i];
    return NULL;
}

static void begin_stop(struct run *r, const char *reason)
{
    if (r->stopping)
        return;
    r->stopping = true;
    if (!r->stop_reason)
        r->stop_reason = reason;
    mon_sampler_stop(&r->sampler);
    children_stop(r, r->cfg->grace_s);
    r->stop_deadline = hw_mono_now() + r->cfg->grace_s + 3;
}

static void reap(struct run *r)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid == 0 || (pid < 0 && errno == ECHILD))
            break;
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            hw_warn(errno, "waitpid");
            break;
        }
        if (!WIFEXITED(st) && !WIFSIGNALED(st))
            continue;
        int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (pid == r->cmd_pid) {
            r->cmd_done = true;
            r->cmd_status = status;
            begin_stop(r, "command_exit");
            continue;
        }
        struct mon_child *c = child_by_pid(r, pid);
        if (c)
            child_exited(r, c, status);
    }
}

/* The process groups of hwmon's own nvidia-smi children: not the job's, never signalled here. */
static size_t own_groups(const struct run *r, pid_t *pg, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < r->n_ch && n < cap; i++)
        if (r->ch[i].pid > 0)
            pg[n++] = r->ch[i].pid;
    return n;
}

/* A stop signal sent to hwmon (kill, timeout, SLURM, Kubernetes) goes to every process of the
 * job, the workers too; what is left after the grace period gets SIGKILL (job_tick). */
static void job_forward(struct run *r, int sig)
{
    pid_t pg[CH_N];
    size_t npg = own_groups(r, pg, CH_N);
    long n = mon_job_signal(r->cfg->proc_root, getpid(), pg, npg, sig, NULL, 0);
    if (n < 0) /* no /proc: the main process at least */
        n = kill(r->cmd_pid, sig) == 0;
    if (!r->fwd) {
        r->fwd = true;
        r->fwd_sig = sig;
        r->fwd_deadline = hw_mono_now() + r->cfg->grace_s;
    }
    r->fwd_n = n > r->fwd_n ? n : r->fwd_n;
}

/* After the grace period, SIGKILL what is left of the job. Returns whether nothing of it is
 * left (always true when no stop signal was forwarded: a job's daemons are its own business). */
static bool job_tick(struct run *r, double now)
{
    if (!r->fwd)
        return true;
    pid_t pg[CH_N], left[1];
    size_t npg = own_groups(r, pg, CH_N);
    if (!r->fwd_killed && now >= r->fwd_deadline) {
        r->fwd_killed = true;
        long n = mon_job_signal(r->cfg->proc_root, getpid(), pg, npg, SIGKILL, r->killed,
                                sizeof r->killed / sizeof r->killed[0]);
        r->n_killed = n > 0 ? n : 0;
        if (n > 0)
            hw_warn(0, "%ld process%s of the job did not stop within %.3g s of signal %d: killed",
                    n, n == 1 ? "" : "es", r->cfg->grace_s, r->fwd_sig);
    }
    return mon_job_scan(r->cfg->proc_root, getpid(), pg, npg, left, 1) <= 0;
}

static void on_signal(struct run *r, const struct signalfd_siginfo *si)
{
    int sig = (int)si->ssi_signo;
    if (sig == SIGCHLD) {
        reap(r);
        return;
    }
    if (r->cmd_pid && !r->cmd_done) {
        /* The terminal (SI_KERNEL) already sent it to the whole foreground group, the command
         * included; only a signal sent to hwmon alone (kill) is passed on. */
        if (si->ssi_code != SI_KERNEL)
            job_forward(r, sig);
        return;
    }
    if (r->stopping && r->signals_seen) {
        /* second stop request: no more grace */
        for (int i = 0; i < r->n_ch; i++)
            if (r->ch[i].state == MON_CHILD_RUNNING)
                kill(-r->ch[i].pid, SIGKILL);
        return;
    }
    r->signals_seen = true;
    begin_stop(r, "signal");
}

/* How long the main loop may sleep: 4 times a second while children need watching (hang
 * checks, restarts, grace periods) or while stopping; otherwise until a descriptor wakes it,
 * so that with --no-gpu hwmon's main thread costs nothing between samples. */
static int loop_timeout_ms(const struct run *r, double end_at)
{
    if (r->stopping)
        return 100;
    double wait = -1;
    for (int i = 0; i < r->n_ch; i++) {
        const struct mon_child *c = &r->ch[i];
        if (c->state == MON_CHILD_RUNNING && (c->interval_s > 0 || c->term_sent))
            wait = 0.25;
        else if (c->state == MON_CHILD_WAIT_RESTART) {
            double d = c->restart_at - hw_mono_now();
            d = d < 0 ? 0 : d > 0.25 ? 0.25 : d;
            if (wait < 0 || d < wait)
                wait = d;
        }
    }
    if (end_at > 0) {
        double d = end_at - hw_mono_now();
        d = d < 0 ? 0 : d;
        if (wait < 0 || d < wait)
            wait = d;
    }
    return wait < 0 ? -1 : (int)(wait * 1000) + 1;
}

static int open_outputs(struct run *r)
{
    char path[PATH_MAX + 32];
    join_path(path, sizeof path, r->dir, HW_CPU_FILE);
    r->cpu_fd = hw_open_append(path);
    if (r->cpu_fd < 0) {
        hw_warn(-r->cpu_fd, "open %s", path);
        return -1;
    }
    if (r->track_pid || r->cfg->command) {
        join_path(path, sizeof path, r->dir, HW_PROC_FILE);
        r->proc_fd = hw_open_append(path);
        if (r->proc_fd < 0) {
            hw_warn(-r->proc_fd, "open %s", path);
            return -1;
        }
        join_path(path, sizeof path, r->dir, HW_TREE_PIDS_FILE);
        r->tree_pids_fd = hw_open_append(path);
        if (r->tree_pids_fd < 0) {
            hw_warn(-r->tree_pids_fd, "open %s", path);
            return -1;
        }
    }
    return 0;
}

static int open_child_outputs(struct run *r)
{
    char(*paths)[PATH_MAX + 32] = r->out_paths;
    for (int i = 0; i < r->n_ch; i++) {
        join_path(paths[i], sizeof paths[i], r->dir, r->ch_file[i]);
        r->ch[i].out_path = paths[i];
        r->ch[i].err_fd = -1;
        /* read-write, so end_torn_line() can look at the last byte */
        int fd;
        do
            fd = open(paths[i], O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        while (fd < 0 && errno == EINTR);
        r->ch[i].out_fd = fd < 0 ? -errno : fd;
        if (r->ch[i].out_fd < 0) {
            hw_warn(-r->ch[i].out_fd, "open %s", paths[i]);
            return -1;
        }
    }
    return 0;
}

/* The files of a run's samples (run.jsonl aside): one run per directory. */
static const char *const samples[] = {HW_CPU_FILE,  HW_PROC_FILE,      HW_GPU_FILE,
                                      HW_DMON_FILE, HW_GPU_PROCS_FILE, HW_GPM_FILE,
                                      HW_TREE_PIDS_FILE};

/* A start that failed before the start event leaves nothing behind that would make a retry into
 * the same -o DIR refuse it ("already holds a run"): the sample files it created, run.jsonl if
 * it created it, and the directory if it made it and nothing else is in it. */
static void discard_unstarted(struct run *r)
{
    if (r->started || !r->dir_ok)
        return;
    char path[PATH_MAX + 32];
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        join_path(path, sizeof path, r->dir, samples[i]);
        unlink(path);
    }
    if (r->made_log) {
        join_path(path, sizeof path, r->dir, HW_RUNLOG_FILE);
        unlink(path);
    }
    if (r->made_dir)
        rmdir(r->dir);
}

static int make_dir(struct run *r)
{
    const struct mon_config *cfg = r->cfg;
    char name[PATH_MAX];
    if (cfg->out_dir) {
        snprintf(name, sizeof name, "%s", cfg->out_dir);
    } else {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        struct tm tm;
        gmtime_r(&t.tv_sec, &tm);
        strftime(name, sizeof name, "hwmon-%Y%m%dT%H%M%SZ", &tm);
    }
    r->made_dir = access(name, F_OK) != 0;
    int rc = hw_mkdir_p(name);
    if (rc < 0) {
        hw_warn(-rc, "create directory %s", name);
        return -1;
    }
    if (!realpath(name, r->dir)) {
        hw_warn(errno, "resolve %s", name);
        return -1;
    }
    /* Appending a second run's samples to a first run's files would make one summary of two
     * runs. A run.jsonl alone is fine: the user may have logged a config event before. */
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        char path[PATH_MAX + 32];
        join_path(path, sizeof path, r->dir, samples[i]);
        if (access(path, F_OK) == 0) {
            hw_warn(0, "%s already holds a run (%s): choose another -o DIR", r->dir, samples[i]);
            return -1;
        }
    }
    r->dir_ok = true;
    if (!cfg->out_dir && !cfg->quiet)
        hw_warn(0, "writing to %s", r->dir);
    return 0;
}

/* ---- Prometheus export ---- */

static void prom_write(struct run *r, bool running)
{
    if (!r->prom_open)
        return;
    struct mon_prom_counters c = {
        .samples = atomic_load(&r->sampler.n_cpu),
        .skipped_slots = atomic_load(&r->sampler.skipped),
        .running = running,
    };
    for (int i = 0; i < r->n_ch; i++)
        c.child_restarts += r->ch[i].attempts;
    int rc = mon_prom_update(&r->prom, &c);
    if (rc < 0 && !r->prom_warned) { /* once: a full disk would otherwise flood stderr */
        hw_warn(-rc, "write %s", r->prom.path);
        r->prom_warned = true;
    }
}

/* Before the command starts: a path that cannot be written fails the run, not its end. */
static int prom_start(struct run *r)
{
    const struct mon_config *cfg = r->cfg;
    int rc = mon_prom_resolve(&r->prom, cfg->prom_path, r->dir);
    if (rc < 0) {
        hw_warn(-rc, "--prom-textfile %s", cfg->prom_path);
        return -1;
    }
    struct utsname u;
    if (uname(&u) < 0)
        memset(&u, 0, sizeof u);
    rc = mon_prom_open(&r->prom, r->dir, r->fields, cfg->interval_s, u.nodename,
                       cfg->command ? cfg->command[0] : NULL);
    if (rc < 0) {
        hw_warn(-rc, "--prom-textfile");
        return -1;
    }
    r->prom_open = true;
    struct mon_prom_counters c = {.running = true};
    rc = mon_prom_update(&r->prom, &c);
    if (rc < 0) {
        hw_warn(-rc, "write %s", r->prom.path);
        return -1;
    }
    r->prom_next = hw_mono_now() + cfg->prom_interval_s;
    return 0;
}

static void cleanup(struct run *r)
{
    mon_sampler_stop(&r->sampler);
    for (int i = 0; i < r->n_ch; i++) {
        if (r->ch[i].err_fd >= 0)
            close(r->ch[i].err_fd);
        if (r->ch[i].out_fd >= 0)
            close(r->ch[i].out_fd);
    }
    if (r->tree_open)
        mon_tree_close(&r->tree);
    if (r->sys_open)
        mon_sys_close(&r->sys);
    if (r->cpu_fd >= 0)
        close(r->cpu_fd);
    if (r->proc_fd >= 0)
        close(r->proc_fd);
    if (r->tree_pids_fd >= 0)
        close(r->tree_pids_fd);
    if (r->sfd >= 0)
        close(r->sfd);
    if (r->efd >= 0)
        close(r->efd);
    if (r->pidfd >= 0)
        close(r->pidfd);
    mon_env_free(r->smi_env);
    if (r->prom_open)
        mon_prom_close(&r->prom);
    if (r->log) {
        int rc = rl_close(r->log);
        if (rc < 0)
            hw_warn(-rc, "close %s/run.jsonl", r->dir);
    }
    pthread_sigmask(SIG_SETMASK, &r->oldmask, NULL);
}

int mon_run(const struct mon_config *cfg)
{
    static struct run run; /* big (paths, buffers): keep it off the stack */
    struct run *r = &run;
    memset(r, 0, sizeof *r);
    r->cfg = cfg;
    r->sfd = r->efd = r->pidfd = r->cpu_fd = r->proc_fd = r->tree_pids_fd = -1;
    for (int i = 0; i < CH_N; i++)
        r->ch[i].out_fd = r->ch[i].err_fd = -1;
    r->t0 = hw_mono_now();
    bool wrap = cfg->command != NULL;
    const char *mode = wrap ? "wrap" : cfg->attach_pid ? "attach" : "system";
    int status = MON_EXIT_SELF;

    /* Signals: blocked before any thread or child exists, so the sampler inherits the mask and
     * they all arrive on the signalfd. An ignored SIGHUP (nohup) stays ignored. */
    struct sigaction sa;
    sigaction(SIGPIPE, NULL, &sa);
    r->pipe_was_ignored = sa.sa_handler == SIG_IGN;
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&r->mask);
    sigaddset(&r->mask, SIGCHLD);
    sigaddset(&r->mask, SIGINT);
    sigaddset(&r->mask, SIGTERM);
    sigaction(SIGHUP, NULL, &sa);
    if (sa.sa_handler != SIG_IGN)
        sigaddset(&r->mask, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &r->mask, &r->oldmask);
    r->sfd = signalfd(-1, &r->mask, SFD_CLOEXEC | SFD_NONBLOCK);
    r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (r->sfd < 0 || r->efd < 0) {
        hw_warn(errno, "signalfd/eventfd");
        goto out;
    }

    if (make_dir(r) < 0)
        goto out;
    char path[PATH_MAX + 32];
    join_path(path, sizeof path, r->dir, HW_RUNLOG_FILE);
    r->made_log = access(path, F_OK) != 0;
    int rc = rl_open(&r->log, path, 0);
    if (rc < 0) {
        r->log = NULL;
        hw_warn(-rc, "open %s", path);
        goto out;
    }
    rc = mon_sys_open(&r->sys, cfg->proc_root, cfg->sys_root, r->dir);
    if (rc < 0) {
        hw_warn(-rc, "open %s/stat", cfg->proc_root);
        goto out;
    }
    r->sys_open = true;
    if (cfg->attach_pid) { /* -p: the container is the tracked process's cgroup, not ours */
        mon_cgroup_close(&r->sys.cg);
        mon_cgroup_open(&r->sys.cg, cfg->proc_root, cfg->sys_root, cfg->attach_pid);
    }

    /* GPU: ask once, before sampling, with a timeout. */
    snprintf(r->fields, sizeof r->fields, "%s", HW_GPU_FIELDS_DEFAULT);
    struct fallback fb[16];
    int n_fb = 0;
    char why[PATH_MAX + 64] = "";
    static char probe_out[16384];
    bool gpu_wanted = !cfg->no_gpu;
    const char *cuda = getenv("CUDA_VISIBLE_DEVICES");
    if (mon_gpusel_resolve(cfg->gpus, cuda, &r->gsel) < 0) {
        hw_warn(0, "CUDA_VISIBLE_DEVICES=\"%s\" is not a list of GPU ids; use --gpus", cuda);
        goto out;
    }
    if (r->gsel.none)
        gpu_wanted = false; /* the job was given no GPU */
    if (gpu_wanted) {
        r->smi_env = mon_env_with(NULL);
        if (!r->smi_env) {
            hw_warn(ENOMEM, "environment");
            goto out;
        }
        int prc = probe_gpu(r, fb, &n_fb, why, sizeof why, probe_out, sizeof probe_out);
        if (prc == -2) {
            hw_warn(0, "%s", why);
            goto out;
        }
        r->gpu_ok = prc == 0;
        if (r->gpu_ok && cfg->gpm != MON_GPM_OFF)
            r->gpm_ok = probe_gpm(r, probe_out, sizeof probe_out) == 0;
        if (r->gpu_ok)
            setup_children(r);
    }

    /* Every output file opens before the command starts: a run that cannot be recorded
     * fails before the user's job is launched, not after. */
    r->track_pid = cfg->attach_pid;
    if (open_outputs(r) < 0 || (r->gpu_ok && open_child_outputs(r) < 0))
        goto out;
    if (cfg->prom_path && prom_start(r) < 0)
        goto out;

    /* What to track. */
    if (wrap) {
        /* The job's orphaned workers stay ours to stop (jobtree.h); without it (old kernels)
         * only the main process and its live descendants can be reached. */
        (void)mon_job_subreaper();
        rc = spawn_command(r);
        if (rc < 0) {
            hw_warn(-rc, "cannot run '%s'", cfg->command[0]);
            status = rc == -ENOENT ? 127 : 126;
            log_start(r, mode);
            r->stop_reason = "command_exit";
            log_stop(r, true, status);
            goto out;
        }
        r->track_pid = r->cmd_pid;
    }
    if (r->track_pid) {
        rc = mon_tree_open(&r->tree, cfg->proc_root, r->track_pid, !cfg->no_pss);
        if (rc < 0 && !wrap) {
            hw_warn(0, "no process %d to attach to", (int)r->track_pid);
            goto out;
        }
        r->tree_open = rc == 0;
        r->tree.pss_budget = cfg->pss ? 0 : MON_PSS_BUDGET;
        if (cfg->attach_pid)
            r->pidfd = (int)syscall(SYS_pidfd_open, cfg->attach_pid, 0);
    }
    log_start(r, mode);
    if (gpu_wanted && !r->gpu_ok)
        gpu_unavailable(r, why, probe_out);
    for (int i = 0; i < n_fb; i++) {
        rl_field_t f[] = {RL_STR("dropped", fb[i].dropped),
                          RL_STR(HW_FALLBACK_FIELDS, fb[i].fields)};
        log_event(r, HW_EV_GPU_FIELDS_FALLBACK, f, HW_ARRAY_SIZE(f));
    }
    if (r->gpu_ok && cfg->gpm != MON_GPM_OFF && (!r->gpm_ok || r->gpm_missing[0]))
        gpm_unavailable(r, probe_out);

    uint64_t max_slots = 0;
    if (cfg->duration_s > 0 && !wrap)
        max_slots = (uint64_t)floor(cfg->duration_s / cfg->interval_s + 1e-9);
    struct mon_sampler_cfg sc = {
        .interval_s = cfg->interval_s,
        .max_slots = max_slots,
        .sys = &r->sys,
        .tree = r->tree_open ? &r->tree : NULL,
        .cpu_fd = r->cpu_fd,
        .proc_fd = r->proc_fd,
        .cgroup_cols = r->sys.cg.found,
        .pss = !cfg->no_pss,
        .notify_fd = r->efd,
        .tree_pids_fd = r->tree_open ? r->tree_pids_fd : -1,
    };
    rc = mon_sampler_start(&r->sampler, &sc);
    if (rc < 0) {
        hw_warn(-rc, "start the sampler");
        if (wrap)
            kill(r->cmd_pid, SIGTERM);
        goto out;
    }
    for (int i = 0; r->gpu_ok && i < r->n_ch; i++)
        child_start(r, &r->ch[i]);
    /* --duration shorter than one interval: no slot to count, just a timer */
    double end_at = cfg->duration_s > 0 && !wrap && max_slots == 0 ? r->t0 + cfg->duration_s : 0;

    for (;;) {
        double now = hw_mono_now();
        if (!r->stopping) {
            for (int i = 0; i < r->n_ch; i++)
                child_tick(r, &r->ch[i], now);
            job_tick(r, now); /* a command that ignores the forwarded signal: SIGKILL in time */
            if (end_at && now >= end_at)
                begin_stop(r, "duration");
            if (r->prom_open && now >= r->prom_next) {
                prom_write(r, true);
                /* absolute deadlines; after a stall, the next one from now */
                r->prom_next += cfg->prom_interval_s;
                if (r->prom_next <= now)
                    r->prom_next = now + cfg->prom_interval_s;
            }
        } else {
            for (int i = 0; i < r->n_ch; i++)
                child_tick(r, &r->ch[i], now);
            if (!children_running(r) && (!wrap || r->cmd_done) && job_tick(r, now))
                break;
            if (now > r->stop_deadline && (!wrap || r->cmd_done)) {
                hw_warn(0, "a child did not exit after SIGKILL; giving up on it");
                break;
            }
        }
        struct pollfd pf[3 + CH_N];
        int np = 0;
        pf[np++] = (struct pollfd){r->sfd, POLLIN, 0};
        pf[np++] = (struct pollfd){r->efd, POLLIN, 0};
        int pid_slot = -1;
        if (r->pidfd >= 0 && !r->stopping) {
            pid_slot = np;
            pf[np++] = (struct pollfd){r->pidfd, POLLIN, 0};
        }
        int ch_slot[CH_N];
        for (int i = 0; i < r->n_ch; i++) {
            ch_slot[i] = -1;
            if (r->ch[i].err_fd >= 0) {
                ch_slot[i] = np;
                pf[np++] = (struct pollfd){r->ch[i].err_fd, POLLIN, 0};
            }
        }
        double wake = end_at;
        if (r->prom_open && !r->stopping && (wake == 0 || r->prom_next < wake))
            wake = r->prom_next;
        if (r->fwd && !r->fwd_killed && (wake == 0 || r->fwd_deadline < wake))
            wake = r->fwd_deadline;
        int n = poll(pf, (nfds_t)np, loop_timeout_ms(r, wake));
        if (n < 0 && errno != EINTR) {
            hw_warn(errno, "poll");
            break;
        }
        if (n <= 0)
            continue;
        if (pf[0].revents) {
            struct signalfd_siginfo si;
            while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si)
                on_signal(r, &si);
        }
        if (pf[1].revents) {
            uint64_t v;
            (void)!read(r->efd, &v, sizeof v);
            int fin = atomic_load(&r->sampler.finished);
            if (fin == MON_SAMPLER_DONE_SLOTS)
                begin_stop(r, "duration");
            else if (fin == MON_SAMPLER_DONE_ROOT_GONE && !wrap)
                begin_stop(r, "process_exit");
        }
        if (pid_slot >= 0 && pf[pid_slot].revents)
            begin_stop(r, "process_exit");
        for (int i = 0; i < r->n_ch; i++)
            if (ch_slot[i] >= 0 && pf[ch_slot[i]].revents)
                child_read_err(&r->ch[i]);
    }
    /* anything left (a child stuck past SIGKILL): one last non-blocking reap */
    reap(r);
    status = wrap ? r->cmd_status : HW_EXIT_OK;
    int werr = atomic_load(&r->sampler.write_err);
    if (werr < 0) {
        hw_warn(-werr, "write to %s", r->dir);
        if (!wrap)
            status = MON_EXIT_SELF;
    }
    log_stop(r, wrap, status);
    prom_write(r, false); /* the children have stopped: their last rows are in */
out:
    cleanup(r);
    discard_unstarted(r);
    return status;
}
