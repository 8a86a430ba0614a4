/* hwmon's run: set up the directory and the run log, pick a GPU source and ask it once what it
 * has (gpusrc.h), start the wrapped command, the sampler thread and the source's children
 * (children.c), then serve one poll(2) loop on a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP), the
 * children's stderr pipes, the sampler's eventfd and the attached process's pidfd, until it is
 * time to stop; then stop everything, reap everything and log the stop event. This file wires
 * those together and turns what they report into run.jsonl events. Everything but the sampler
 * runs on this thread, which owns the clock: children.c is handed the time. */
#include "mon.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sys/resource.h>
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
#include "hwrun/buf.h"
#include "machine.h"
#include "proctree.h"
#include "jobtree.h"
#include "launch.h"
#include "context.h"
#include "nodelock.h"
#include "hwrun/utf8.h"
#include "fsspace.h"
#include "prom.h"
#include "runlog.h"
#include "sampler.h"
#include "gpusrc.h"
#include "stopsig.h"
#include "timescale.h"

extern char **environ;

_Static_assert(MON_GPU_CHILDREN_MAX <= MON_CHILDREN_MAX, "children.h holds too few children");

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
    char **smi_env;
    struct mon_gpu_source *gsrc; /* the GPU source (gpusrc.h), picked from the list */
    bool no_source;              /* auto found none on the machine (a CPU-only node) */
    struct mon_gpu_facts gf;     /* what it found */
    enum hw_file th_file[MON_GPU_THREAD_FILES]; /* the files it writes from the sampler thread */
    struct mon_sampler_gpus gth;                /* ... and their descriptors (out[]'s) */
    struct mon_cgroup cg_at_start; /* r->sys.cg before the sampler thread took r->sys */
    char out_paths[MON_GPU_CHILDREN_MAX][PATH_MAX + 32];
    struct mon_children children; /* their lifecycle (children.h) */
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
    /* The run's files, by enum hw_file (HW_RUN_FILES): each one's descriptor (-1: not open;
     * run.jsonl's is the log's own), and whether this start created it (a start that fails
     * removes what it made and only that). */
    struct run_file {
        int fd;
        bool created;
    } out[HW_FILE_COUNT];
    /* lifecycle */
    double t0;
    const char *stop_reason;
    bool stopping, signals_seen;
    double stop_deadline;
    enum hw_file ch_file[MON_GPU_CHILDREN_MAX]; /* the run file of children.ch[i] */
    /* the file systems the job can write (fsspace.h), for the start and stop events */
    struct mon_fs fs[MON_FS_MAX];
    int nfs;
    /* Prometheus export */
    struct mon_prom prom;
    bool prom_open, prom_warned;
    /* the GPU faults logged (one event per fault and GPU: a lost GPU's every row says it) */
    struct {
        int fault;
        char gpu[96];
    } faults[16];
    int nfaults;
    double prom_next;
    struct mon_gpusel gsel;
    /* the first stop signal that reached hwmon while the job ran, and who sent it (stopsig.h) */
    bool stop_req_seen;
    struct mon_stop_req stop_req;
    char proctrack[64];   /* SLURM's ProctrackType where the job runs ("": not SLURM, unknown) */
    const char *life_owner; /* who gives a stop's grace instead of hwmon (mon_life_owner), or NULL */
    struct mon_witness witness; /* tells a signal to hwmon's whole group from one to hwmon (jobtree.h) */
    struct hw_clock_watch clock; /* the wall clock's offset, to say when it stepped */
    /* a stop signal forwarded to the job's whole tree (jobtree.h) */
    bool fwd;
    int fwd_sig;
    pid_t fwd_group;       /* the process group it went to (job_send), until the rest had it */
    double fwd_deadline;   /* then SIGKILL whatever of the job is left (INFINITY: never, the
                              one who asked for the stop does it) */
    long fwd_n;            /* processes the signal reached */
    bool fwd_killed;       /* the SIGKILL round was made */
    pid_t killed[64];      /* what it killed (the first 64) */
    long n_killed;
    /* what of the job was still running when its main process exited (a daemon it
     * double-forked, workers it did not wait for): stopped as above unless --leave-running */
    pid_t left[64];
    long n_left;
    int sampler_err; /* the sampler thread could not start: no CPU or process samples */
    bool have_oom0;  /* the cgroup's OOM kill count at the start, to tell the run's own kills */
    uint64_t oom0;
    /* The run directory, opened once: every file of the run is created relative to it. */
    int dirfd;
    double last_tick; /* hw_mono_now() of the main loop's last tick, 0 before the first */
    char given[PATH_MAX]; /* -o as given (or the default name), placeholders expanded; then the
                           * name taken: asked, or asked-2, ... when that holds a run */
    char asked[PATH_MAX];
    struct mon_context ctx; /* where it runs: the job's scheduler and launcher (context.h) */
    struct mon_nodelock nodelock; /* the node's GPU sampler for this job (nodelock.h) */
    size_t dir_made;      /* hw_mkdir_p: the prefix of given that existed before this start */
    bool started;         /* the start event was logged */
    int runlog_rd;        /* run.jsonl read-only: the sampler follows it (edge samples) */
    long cmd_maxrss_kib;  /* the command's ru_maxrss when it was reaped (0: not known) */
    double cmd_cpu_s;     /* its ru_utime + ru_stime then (< 0: not known) */
    bool wrap;            /* a command is run (not -p, not the system alone) */
    bool gpu_wanted;      /* GPUs are to be sampled here (not --no-gpu, not a secondary) */
    char why[PATH_MAX + 64];  /* why the GPU source cannot sample */
    char probe_out[16384];    /* what the tool answered then */
    double end_at;            /* a --duration timer's deadline, or 0 */
    double lock_next;         /* a secondary: when it next tries the node's lock (takeover) */
};

static const char *run_mode(const struct run *r)
{
    return r->wrap ? "wrap" : r->cfg->attach_pid ? "attach" : "system";
}

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

/* ---- the GPU source: what its start questions found ---- */

/* No GPU data. On a machine with no GPU tool at all (a CPU-only node), with no GPU asked for by
 * name (--gpus, --gpu-source, --nvidia-smi), a fact, not an error: a CPU job's run is ok. A tool
 * that is there and fails (a driver mismatch) is an error. */
static void gpu_unavailable(struct run *r, const char *reason, const char *output)
{
    const struct mon_config *cfg = r->cfg;
    bool cpu_node = !cfg->gpus && !cfg->gpu_source && !strcmp(cfg->smi, "nvidia-smi") &&
                    r->no_source;
    const struct opt_field all[] = {
        {true, RL_STR("reason", reason)},
        {true, RL_STR("output", output ? output : "")},
        {cpu_node, RL_STR(HW_EV_SEVERITY, HW_EV_SEVERITY_INFO)},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_GPU_UNAVAILABLE, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
    if (!r->cfg->quiet)
        hw_warn(0, "no GPU data: %s", reason);
    r->gpu_ok = false;
}

/* The job's CUDA_VISIBLE_DEVICES names GPUs this node does not have (or is not a list): the
 * job runs all the same, those GPUs are unmeasured, and this says which. */
static void gpu_selection_fallback(struct run *r)
{
    rl_field_t f[] = {RL_STR("source", r->gsel.source), RL_STR("asked", r->gsel.asked),
                      RL_STR("selected", r->gsel.ids ? r->gsel.ids : ""),
                      RL_STR("unmapped", r->gsel.unmapped)};
    log_event(r, HW_EV_GPU_SELECTION_FALLBACK, f, HW_ARRAY_SIZE(f));
    if (!r->cfg->quiet)
        hw_warn(0, "%s=\"%s\": no GPU here for \"%s\" (not measured); the job runs",
                r->gsel.source, r->gsel.asked, r->gsel.unmapped);
}

/* The source cannot give --pmon's per-process shares (gf.pmon_why says why). */
static bool pmon_missing(const struct run *r)
{
    return r->gf.pmon_why && r->gf.pmon_why[0];
}

/* Logged once, after start: GPM is off (why), or on but some GPUs lack it (their columns in
 * hw_gpm.csv stay `-`). Unless --gpm asked for it, a fact, not an error: most GPUs (before
 * Hopper, or a Hopper in a VM, as the real-GPU check found) have no GPM. */
static void gpm_unavailable(struct run *r, const char *output)
{
    if (!r->gf.gpm && r->cfg->gpm == MON_GPM_ON)
        hw_warn(0, "--gpm: %s; not recording GPM metrics", r->gf.gpm_why);
    const struct opt_field all[] = {
        {!r->gf.gpm, RL_STR("reason", r->gf.gpm_why)},
        {!r->gf.gpm, RL_STR("output", output)},
        {r->gf.gpm, RL_STR("reason", "some GPUs report no GPM metrics")},
        {r->gf.gpm, RL_JSON("gpus", r->gf.gpm_missing)},
        {r->cfg->gpm != MON_GPM_ON, RL_STR(HW_EV_SEVERITY, HW_EV_SEVERITY_INFO)},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_GPM_UNAVAILABLE, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
}

/* ---- the children's events ---- */

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The GPU a line of nvidia-smi names: a UUID ("GPU-" and hex digits, as the rows of hwmon's
 * query hold), else a PCI bus id ("0000:02:00.0", as its messages say); "" when none. */
static void fault_gpu(const char *line, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *p = line; (p = strstr(p, "GPU-")); p += 4) {
        size_t n = 4;
        while (is_hex(p[n]) || p[n] == '-')
            n++;
        if (n >= 12) {
            snprintf(out, cap, "%.*s", (int)n, p);
            return;
        }
    }
    for (const char *p = line; *p; p++) {
        size_t d = 0;
        while (is_hex(p[d]))
            d++;
        if (d >= 4 && d <= 8 && p[d] == ':' && is_hex(p[d + 1]) && is_hex(p[d + 2]) &&
            p[d + 3] == ':' && is_hex(p[d + 4]) && is_hex(p[d + 5]) && p[d + 6] == '.' &&
            is_hex(p[d + 7])) {
            snprintf(out, cap, "%.*s", (int)d + 8, p);
            return;
        }
        if (d)
            p += d - 1;
    }
}

/* A GPU fault in nvidia-smi's words: its event once per fault and GPU, and a warning. */
static void gpu_fault(struct run *r, const struct mon_child_event *ev)
{
    char gpu[96];
    fault_gpu(ev->said, gpu, sizeof gpu);
    for (int i = 0; i < r->nfaults; i++)
        if (r->faults[i].fault == ev->fault && !strcmp(r->faults[i].gpu, gpu))
            return;
    if (r->nfaults == (int)HW_ARRAY_SIZE(r->faults))
        return; /* bounded: sixteen GPUs' faults said, the rest are in the files */
    r->faults[r->nfaults].fault = ev->fault;
    snprintf(r->faults[r->nfaults].gpu, sizeof r->faults[r->nfaults].gpu, "%s", gpu);
    r->nfaults++;
    const struct hw_gpu_fault_def *d = &hw_gpu_faults[ev->fault];
    rl_field_t f[] = {RL_STR(HW_FAULT_SAID, ev->said), RL_STR("child", ev->child->name),
                      RL_STR(HW_FAULT_GPU, gpu)};
    log_event(r, d->event, f, gpu[0] ? 3 : 2);
    if (!r->cfg->quiet) {
        char g[128], w[256];
        hw_warn(0, "nvidia-smi says %s%s%s (%s)", hw_term_str(gpu, g, sizeof g),
                gpu[0] ? ": " : "", d->words, hw_term_str(d->todo, w, sizeof w));
    }
}

/* What children.c reports, as run.jsonl events: child_exit (also for a start that failed,
 * with pid 0 and status 127; not for the exit of a child killed as hung, whose child_hung
 * said it), child_restart and child_hung. */
static void on_child(void *arg, const struct mon_child_event *ev)
{
    struct run *r = arg;
    const char *name = ev->child->name;
    switch (ev->what) {
    case MON_CHILD_START_FAILED: {
        rl_field_t f[] = {RL_STR("child", name), RL_INT("pid", 0), RL_INT("status", ev->status),
                          RL_STR("stderr", strerror(-ev->err))};
        log_event(r, HW_EV_CHILD_EXIT, f, 4);
        break;
    }
    case MON_CHILD_EXITED: {
        if (ev->hung)
            break;
        rl_field_t f[] = {RL_STR("child", name), RL_INT("pid", ev->pid),
                          RL_INT("status", ev->status), RL_STR("stderr", ev->stderr_tail)};
        log_event(r, HW_EV_CHILD_EXIT, f, ev->stderr_tail[0] ? 4 : 3);
        break;
    }
    case MON_CHILD_RESTARTING: {
        rl_field_t f[] = {RL_STR("child", name), RL_INT("attempt", ev->attempt),
                          RL_DBL("delay_s", ev->delay_s)};
        log_event(r, HW_EV_CHILD_RESTART, f, 3);
        break;
    }
    case MON_CHILD_HUNG: {
        rl_field_t f[] = {RL_STR("child", name), RL_INT("pid", ev->pid),
                          RL_DBL("silent_s", round(ev->silent_s * 1000) / 1000)};
        log_event(r, HW_EV_CHILD_HUNG, f, 3);
        break;
    }
    case MON_CHILD_GPU_FAULT:
        gpu_fault(r, ev);
        break;
    case MON_CHILD_STARTED:
    case MON_CHILD_KILLED:
    case MON_CHILD_STOPPED:
        break;
    }
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

/* A command that starts the job's ranks under another process (srun's slurmstepd, mpirun's
 * daemons, possibly on other nodes): hwmon sees the launcher, not the ranks. NULL when not. */
static const char *remote_launcher(const struct run *r)
{
    static const char *const names[] = {"srun", "mpirun", "mpiexec", "mpiexec.hydra", "prterun",
                                        "aprun", "jsrun", "flux"};
    if (!r->wrap || !r->cfg->command || !r->cfg->command[0])
        return NULL;
    const char *slash = strrchr(r->cfg->command[0], '/');
    const char *base = slash ? slash + 1 : r->cfg->command[0];
    for (size_t i = 0; i < HW_ARRAY_SIZE(names); i++)
        if (!strcmp(base, names[i]))
            return names[i];
    return NULL;
}

/* What the GPU source found and runs, as the start event says it, and a takeover's gpu_sampler
 * event again: one list. The children's objects are built in g. */
enum { GPU_FACTS = 10 };
struct gpu_facts_store {
    rl_field_t members[MON_GPU_CHILDREN_MAX][3], ch[MON_GPU_CHILDREN_MAX];
};

static size_t gpu_facts(const struct run *r, struct gpu_facts_store *g, rl_field_t *out)
{
    /* children: [{"name", "argv", "file"}, ...] */
    int n_ch = r->gpu_ok ? r->children.n : 0;
    for (int i = 0; i < n_ch; i++) {
        const struct mon_child *c = &r->children.ch[i];
        const char *base = strrchr(c->out_path, '/');
        g->members[i][0] = RL_STR("name", c->name);
        g->members[i][1] = RL_STRV("argv", (const char *const *)c->argv, argv_len(c->argv));
        g->members[i][2] = RL_STR("file", base ? base + 1 : c->out_path);
        g->ch[i] = RL_OBJ(NULL, g->members[i], HW_ARRAY_SIZE(g->members[i]));
    }
    const struct opt_field all[GPU_FACTS] = {
        {true, RL_STR(HW_START_GPU_FIELDS, r->gf.fields)},
        {r->gpu_ok, RL_STR(HW_START_GPU_SOURCE, r->gf.source)},
        {true, RL_ARR("children", g->ch, (size_t)n_ch)},
        {r->gpu_ok && r->gf.driver_version[0], RL_STR("driver_version", r->gf.driver_version)},
        {r->gpu_ok && r->gf.gpus_json[0], RL_JSON(HW_START_GPUS, r->gf.gpus_json)},
        {true, RL_BOOL("gpm", r->gf.gpm)},
        {true, RL_BOOL("pmon", r->gpu_ok && r->cfg->pmon && !pmon_missing(r))},
        {r->gf.health, RL_STR(HW_START_HEALTH_FIELDS, r->gf.health_fields)},
        {r->gpu_ok && r->gf.gpu_sel_json[0], RL_JSON("gpu_indexes", r->gf.gpu_sel_json)},
        {r->gpu_ok && r->gf.energy_json[0], RL_JSON(HW_START_ENERGY_COUNTER, r->gf.energy_json)},
    };
    return pick_fields(all, GPU_FACTS, out);
}

static void log_start(struct run *r, const char *mode)
{
    r->started = true;
    struct utsname u;
    if (uname(&u) < 0)
        memset(&u, 0, sizeof u);
    const struct mon_config *cfg = r->cfg;
    rl_field_t cg[MON_CGROUP_NFIELDS];
    size_t n_cg = 0;
    if (r->cg_at_start.found) {
        /* a reading of its own, from the copy taken before the sampler thread (which owns
         * r->sys) started: the job may start first (mon_run) */
        struct mon_cg_sample x;
        struct mon_cgroup tmp = r->cg_at_start;
        tmp.have_prev = false;
        mon_cgroup_sample(&tmp, 0, &x);
        n_cg = mon_cgroup_fields(&r->cg_at_start, &x, cg);
    }
    cpu_set_t aff; /* the job's CPUs: its own mask, else hwmon's (the job inherits it) */
    bool have_aff = sched_getaffinity(r->track_pid, sizeof aff, &aff) == 0 ||
                    sched_getaffinity(0, sizeof aff, &aff) == 0;
    /* nvidia-smi prints the host's pids: in another PID namespace they match none of ours */
    r->nfs = mon_fs_list(cfg->proc_root, r->fs, MON_FS_MAX);
    bool locked = r->nodelock.fd >= 0 || r->nodelock.secondary;
    rl_field_t sampler[] = {
        RL_STR(HW_SAMPLER_ROLE, r->nodelock.secondary ? HW_SAMPLER_SECONDARY : HW_SAMPLER_PRIMARY),
        RL_INT(HW_SAMPLER_PID, r->nodelock.secondary ? r->nodelock.primary_pid : getpid()),
        RL_STR(HW_SAMPLER_DIR, r->nodelock.secondary ? r->nodelock.primary_dir : r->dir),
    };
    char ctx_store[1024];
    struct hw_buf ctxj;
    hw_buf_init(&ctxj, ctx_store, sizeof ctx_store);
    mon_context_json(&r->ctx, &ctxj);
    char fs_store[2048];
    struct hw_buf fsj;
    hw_buf_init(&fsj, fs_store, sizeof fs_store);
    if (r->nfs > 0)
        mon_fs_json(r->fs, r->nfs, &fsj);
    int ns = mon_pid_ns_is_init(cfg->proc_root);
    const struct opt_field all[] = {
        {true, RL_STR("tool", "hwmon")},
        {true, RL_STR("version", MON_VERSION)},
        {true, RL_STR(HW_START_MODE, mode)},
        {true, RL_DBL(HW_START_INTERVAL, cfg->interval_s)},
        {true, RL_DBL(HW_START_SETUP, round((hw_mono_now() - r->t0) * 1000) / 1000)},
        {cfg->command, RL_STRV(HW_START_COMMAND, (const char *const *)cfg->command,
                               argv_len(cfg->command))},
        {r->track_pid, RL_INT(HW_START_PID, r->track_pid)},
        {true, RL_INT(HW_START_HWMON_PID, getpid())},
        {cfg->duration_s > 0, RL_DBL("duration_s", cfg->duration_s)},
        {true, RL_STR("output_dir", r->dir)},
        {strcmp(r->given, r->asked) != 0, RL_STR("dir_asked", r->asked)},
        {remote_launcher(r) != NULL, RL_STR(HW_START_LAUNCHER, remote_launcher(r) ? remote_launcher(r) : "")},
        {r->proctrack[0] != '\0', RL_STR(HW_START_SLURM_PROCTRACK, r->proctrack)},
        {true, RL_STR(HW_START_HOST, u.nodename)},
        {true, RL_STR("kernel", u.release)},
        {true, RL_INT(HW_START_CPUS, sysconf(_SC_NPROCESSORS_ONLN))},
        {have_aff, RL_INT(HW_CPUS_ALLOWED_KEY, have_aff ? CPU_COUNT(&aff) : 0)},
        {true, RL_STR(HW_START_SMI_TZ, "UTC")},
        {r->cg_at_start.found, RL_OBJ(HW_START_CGROUP, cg, n_cg)},
        {true, RL_BOOL("pss", !cfg->no_pss)},
        {cfg->shared_once, RL_BOOL("shared_once", true)},
        {r->track_pid, RL_BOOL(HW_START_DESCENDANTS, !cfg->alone)},
        {!cfg->no_pss && !cfg->pss, RL_DBL("pss_budget", MON_PSS_BUDGET)},
        /* a process whose RSS did not move keeps its PSS reading, at most this long */
        {!cfg->no_pss && !cfg->pss, RL_DBL("pss_max_age_s", MON_PSS_MAX_AGE_S)},
        /* the cgroup's limits are read again at most this often (cgroup.h) */
        {r->cg_at_start.found, RL_DBL("cgroup_limits_max_age_s", MON_CG_LIMITS_MAX_AGE_S)},
        /* the tree is walked when a pid was handed out, and at least this often (proctree.h) */
        {r->track_pid, RL_DBL("tree_walk_max_age_s", MON_TREE_WALK_MAX_AGE_S)},
        {true, RL_BOOL("gpu_procs", cfg->gpu_procs)},
        {true, RL_BOOL("no_gpu", cfg->no_gpu)},
        /* which GPUs and why: --gpus, the job's CUDA_VISIBLE_DEVICES, or every GPU */
        {true, RL_STR("gpus_selected", r->gsel.none ? "" : r->gsel.ids ? r->gsel.ids : "all")},
        {true, RL_STR("gpus_source", r->gsel.source)},
        {r->gsel.asked != NULL, RL_STR("gpus_asked", r->gsel.asked ? r->gsel.asked : "")},
        {ns >= 0, RL_STR(HW_PIDNS_KEY, ns > 0 ? HW_PIDNS_INIT : HW_PIDNS_OTHER)},
        {r->nfs > 0 && !fsj.oom, RL_JSON(HW_EV_FILESYSTEMS, r->nfs > 0 ? fsj.p : "")},
        {!ctxj.oom, RL_JSON(HW_START_CONTEXT, ctxj.oom ? "" : ctxj.p)},
        {locked, RL_OBJ(HW_START_GPU_SAMPLER, sampler, HW_ARRAY_SIZE(sampler))},
    };
    rl_field_t f[HW_ARRAY_SIZE(all) + GPU_FACTS];
    struct gpu_facts_store gs;
    size_t n = pick_fields(all, HW_ARRAY_SIZE(all), f);
    n += gpu_facts(r, &gs, f + n);
    log_event(r, HW_EV_START, f, n);
    hw_buf_free(&fsj);
    hw_buf_free(&ctxj);
}

/* Attach mode: does the watched process still run? Its pidfd turns readable when it exits
 * (no pid reuse can fool it); without one, kill(pid, 0). */
static bool watched_alive(const struct run *r)
{
    if (r->pidfd >= 0) {
        struct pollfd p = {r->pidfd, POLLIN, 0};
        return poll(&p, 1, 0) == 0;
    }
    return kill(r->cfg->attach_pid, 0) == 0 || errno == EPERM;
}

static void log_stop(struct run *r, bool wrap, int exit_status)
{
    /* the same file systems' space at the end (one that went away since is left out) */
    struct mon_fs now[MON_FS_MAX];
    int nnow = 0;
    for (int k = 0; k < r->nfs; k++) {
        now[nnow] = r->fs[k];
        nnow += mon_fs_space(&now[nnow]) == 0;
    }
    char fs_store[2048];
    struct hw_buf fsj;
    hw_buf_init(&fsj, fs_store, sizeof fs_store);
    if (nnow > 0)
        mon_fs_json(now, nnow, &fsj);
    const struct mon_sampler *sa = &r->sampler;
    /* rows per file hwmon writes, by the table's stems: every such file, made or not */
    rl_field_t samples[HW_FILE_COUNT], lost[HW_FILE_COUNT];
    size_t n_own = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (hw_run_files[k].by == HW_BY_HWMON) {
            samples[n_own] = RL_INT(hw_run_files[k].stem, (int64_t)atomic_load(&sa->rows[k]));
            lost[n_own++] = RL_INT(hw_run_files[k].stem, (int64_t)atomic_load(&sa->lost[k]));
        }
    rl_field_t killed[HW_ARRAY_SIZE(r->killed)];
    size_t n_killed = (size_t)r->n_killed < HW_ARRAY_SIZE(killed) ? (size_t)r->n_killed
                                                                   : HW_ARRAY_SIZE(killed);
    for (size_t i = 0; i < n_killed; i++)
        killed[i] = RL_INT(NULL, r->killed[i]);
    rl_field_t left[HW_ARRAY_SIZE(r->left)];
    size_t n_left = (size_t)r->n_left < HW_ARRAY_SIZE(left) ? (size_t)r->n_left
                                                             : HW_ARRAY_SIZE(left);
    for (size_t i = 0; i < n_left; i++)
        left[i] = RL_INT(NULL, r->left[i]);
    /* the kernel's OOM killer, named where the job's end would say only "signal 9" */
    bool memcg = r->sys_open && r->sys.cg.mem_ver > 0;
    uint64_t oom1 = 0;
    bool have_oom = memcg && r->have_oom0 && mon_cgroup_oom_kills(&r->sys.cg, &oom1);
    double mem_max = 0;
    bool have_max = memcg && mon_cgroup_mem_max(&r->sys.cg, &mem_max);
    int64_t oom_kills = have_oom && oom1 > r->oom0 ? (int64_t)(oom1 - r->oom0) : 0;
    const struct opt_field all[] = {
        {true, RL_DBL(HW_STOP_DURATION, round((hw_mono_now() - r->t0) * 1000) / 1000)},
        {true, RL_OBJ(HW_STOP_SAMPLES, samples, n_own)},
        {true, RL_OBJ(HW_STOP_SAMPLES_LOST, lost, n_own)},
        {true, RL_INT("skipped_slots", (int64_t)atomic_load(&r->sampler.skipped))},
        {wrap, RL_INT(HW_STOP_EXIT_STATUS, exit_status)},
        {true, RL_STR(HW_STOP_REASON, r->stop_reason ? r->stop_reason : "signal")},
        /* a stop signal went to the job's whole tree */
        {r->fwd, RL_INT("signal_forwarded", r->fwd_sig)},
        {r->fwd, RL_INT("processes_signalled", r->fwd_n)},
        {r->fwd, RL_ARR("killed_after_grace", killed, n_killed)},
        /* what of the job outlived its main process, and whether it was left running */
        {wrap, RL_INT(HW_STOP_PROCESSES_LEFT, r->n_left)},
        {wrap && r->cmd_maxrss_kib > 0, RL_INT(HW_STOP_MAIN_PEAK_RSS_KIB, r->cmd_maxrss_kib)},
        {wrap && r->cmd_cpu_s >= 0, RL_DBL(HW_STOP_CPU_S, round(r->cmd_cpu_s * 1e6) / 1e6)},
        {r->n_left > 0 && r->cfg->leave_running, RL_ARR(HW_STOP_LEFT_RUNNING, left, n_left)},
        {memcg, have_oom ? RL_INT(HW_STOP_OOM_KILLS, oom_kills) : RL_NULL(HW_STOP_OOM_KILLS)},
        {memcg, have_max ? RL_DBL(HW_STOP_CGROUP_MEMORY_MAX_MIB, hw_py_round_value(mem_max, 2))
                         : RL_NULL(HW_STOP_CGROUP_MEMORY_MAX_MIB)},
        {r->sampler_err < 0, RL_STR(HW_STOP_SAMPLER_ERROR, strerror(-r->sampler_err))},
        {r->cfg->attach_pid > 0, RL_BOOL(HW_STOP_PROCESS_ALIVE, watched_alive(r))},
        {nnow > 0 && !fsj.oom, RL_JSON(HW_EV_FILESYSTEMS, nnow > 0 ? fsj.p : "")},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_STOP, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
    hw_buf_free(&fsj);
}

/* ---- the main loop ---- */

static void begin_stop(struct run *r, const char *reason)
{
    if (r->stopping)
        return;
    r->stopping = true;
    if (!r->stop_reason)
        r->stop_reason = reason;
    mon_sampler_stop(&r->sampler, true); /* the last partial interval is the job's too */
    double now = hw_mono_now();
    mon_children_stop(&r->children, r->cfg->grace_s, now);
    r->stop_deadline = now + r->cfg->grace_s + 3;
}

static void job_forward(struct run *r, int sig, bool escalate);

/* What of hwmon's descendants is not the job: its nvidia-smi children's groups, its witness. */
static size_t not_job(const struct run *r, pid_t pg[MON_CHILDREN_MAX + 1])
{
    size_t n = mon_children_groups(&r->children, pg, MON_CHILDREN_MAX);
    if (r->witness.pid > 0)
        pg[n++] = r->witness.pid;
    return n;
}

/* The command has exited. What remains of its tree (a daemon it double-forked with setsid,
 * workers it did not wait for) is hwmon's to stop, as on a stop signal (forward SIGTERM, grace,
 * SIGKILL; the loop waits for it), so that nothing of the job outlives the run unrecorded.
 * --leave-running leaves it, and the stop event names it either way. */
static void stop_leftovers(struct run *r)
{
    pid_t pg[MON_CHILDREN_MAX + 1];
    size_t npg = not_job(r, pg);
    long n = mon_job_scan(r->cfg->proc_root, getpid(), pg, npg, r->left, HW_ARRAY_SIZE(r->left));
    if (n <= 0)
        return;
    r->n_left = n;
    if (r->cfg->leave_running) {
        if (!r->cfg->quiet)
            hw_warn(0, "the command exited; %ld process%s of its tree left running "
                       "(--leave-running)", n, n == 1 ? "" : "es");
        return;
    }
    /* after a stop signal they have had theirs (the terminal's too) */
    if (!r->fwd && !(r->stop_req_seen && mon_stop_job_has_it(&r->stop_req, r->proctrack))) {
        job_forward(r, SIGTERM, true);
    } else if (r->fwd && r->fwd_group > 0) {
        /* the stop went to the main process's group: now the rest of the job (a daemon in a
         * session of its own, workers their launcher left), once */
        long m = mon_job_signal_group(r->cfg->proc_root, getpid(), pg, npg, r->fwd_sig,
                                      r->fwd_group, false, NULL, 0);
        r->fwd_group = 0;
        if (m > 0)
            r->fwd_n += m;
    }
}

static void reap(struct run *r)
{
    siginfo_t si = {0};
    if (!r->cmd_done && r->cmd_pid > 0 &&
        waitid(P_PID, r->cmd_pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == r->cmd_pid)
        /* the command exited and is not reaped yet: its /proc files still hold its final CPU
         * time and I/O, with those of the descendants it reaped. The sampler's last sample reads
         * them now; the checkpoint written in the job's last moment counts. */
        mon_sampler_stop(&r->sampler, true);
    for (;;) {
        int st;
        struct rusage ru;
        pid_t pid = wait4(-1, &st, WNOHANG, &ru);
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
        if (pid == r->witness.pid) { /* killed by someone: signals are judged without it */
            mon_witness_stop(&r->witness, false);
            continue;
        }
        if (pid == r->cmd_pid) {
            r->cmd_done = true;
            /* the kernel's high-water mark of its RSS (and of the children it waited for):
             * the true peak, which sampling can miss */
            r->cmd_maxrss_kib = ru.ru_maxrss;
            r->cmd_cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
            r->cmd_status = status;
            stop_leftovers(r);
            begin_stop(r, "command_exit");
            continue;
        }
        mon_children_exited(&r->children, pid, status, hw_mono_now());
    }
}

/* The job's processes a signal is passed on to while its main process runs: those of the main
 * process's group, as a terminal, tini -g or timeout(1) signal it (jobtree.h); once it has
 * exited, all of them. Returns how many were signalled. */
static long job_send(struct run *r, int sig, pid_t *group)
{
    pid_t pg[MON_CHILDREN_MAX + 1];
    size_t npg = not_job(r, pg);
    pid_t g = r->cmd_pid > 0 && !r->cmd_done ? getpgid(r->cmd_pid) : 0;
    *group = g > 0 ? g : 0;
    long n = mon_job_signal_group(r->cfg->proc_root, getpid(), pg, npg, sig, *group, true, NULL, 0);
    if (n < 0) /* no /proc: the main process at least */
        n = r->cmd_pid > 0 && !r->cmd_done && kill(r->cmd_pid, sig) == 0;
    return n;
}

/* A stop signal sent to hwmon alone (kill, timeout, a container runtime) goes to the job (its
 * main process's group: job_send); with escalate, what is left of the whole job after the grace
 * period gets SIGKILL (job_tick). */
static void job_forward(struct run *r, int sig, bool escalate)
{
    pid_t group;
    long n = job_send(r, sig, &group);
    if (!r->fwd) {
        r->fwd = true;
        r->fwd_sig = sig;
        r->fwd_group = group;
        r->fwd_deadline = INFINITY;
    }
    if (escalate && isinf(r->fwd_deadline))
        r->fwd_deadline = hw_mono_now() + r->cfg->grace_s;
    r->fwd_n = n > r->fwd_n ? n : r->fwd_n;
}

/* After the grace period, SIGKILL what is left of the job. Returns whether nothing of it is
 * left (always true when no stop signal was forwarded: a job's daemons are its own business). */
static bool job_tick(struct run *r, double now)
{
    if (!r->fwd)
        return true;
    pid_t pg[MON_CHILDREN_MAX + 1], left[1];
    size_t npg = not_job(r, pg);
    if (!r->fwd_killed && now >= r->fwd_deadline) {
        r->fwd_killed = true;
        long n = mon_job_signal(r->cfg->proc_root, getpid(), pg, npg, SIGKILL, r->killed,
                                sizeof r->killed / sizeof r->killed[0]);
        r->n_killed = n > 0 ? n : 0;
        if (n > 0)
            hw_warn(0, "%ld process%s of the job did not stop within %.3g s of signal %d: killed",
                    n, n == 1 ? "" : "es", r->cfg->grace_s, r->fwd_sig);
    }
    /* a stop hwmon does not escalate: once the command is done, what is left is the business of
     * the one who asked (the runtime kills it after its own grace), not a reason to wait */
    if (isinf(r->fwd_deadline) && r->cmd_done)
        return true;
    return mon_job_scan(r->cfg->proc_root, getpid(), pg, npg, left, 1) <= 0;
}

/* Who sent si, and whether it went to hwmon's whole process group with the job's main process
 * in it (the witness had it too): then the job has it, as from a terminal. Every signal is
 * judged, so that the witness never keeps one that a later signal would be mistaken for. */
static void classify(struct run *r, const struct signalfd_siginfo *si, struct mon_stop_req *q)
{
    mon_stop_classify(q, r->cfg->proc_root, (int)si->ssi_signo, si->ssi_code, si->ssi_pid,
                      getpid());
    bool group = mon_witness_group_signal(&r->witness, r->cfg->proc_root, q->sig);
    q->group = group && r->cmd_pid > 0 && !r->cmd_done && getpgid(r->cmd_pid) == getpgrp();
}

/* Why the scheduler stops the job (stopsig.h): the job's end time where SLURM says it in the
 * environment, else its record as slurmctld has it now (scontrol, 3 s at most, once). */
static const char *stop_cause(const struct run *r)
{
    const char *jobid = r->ctx.v[HW_CTX_SLURM_JOB_ID];
    if (!jobid[0])
        return NULL;
    const char *end = getenv("SLURM_JOB_END_TIME");
    if (end && *end)
        return mon_slurm_cause_from_end_time(end, hw_real_now());
    char path[PATH_MAX], out[8192];
    if (mon_find_exec("scontrol", path, sizeof path) < 0)
        return NULL;
    char *argv[] = {path, (char *)"show", (char *)"job", (char *)"-o", (char *)jobid, NULL};
    int st = 0;
    if (mon_probe(path, argv, r->smi_env ? r->smi_env : environ, 3, out, sizeof out, &st) < 0 ||
        st != 0)
        return NULL;
    return mon_slurm_cause_from_scontrol(out);
}

/* A stop signal while the job runs: said in a stop_request event, passed on unless the job has
 * it already (stopsig.h), and no nvidia-smi child is restarted from now on: the scheduler's
 * signal reaches them too, and their exits are not failures. */
static void stop_requested(struct run *r, const struct signalfd_siginfo *si)
{
    struct mon_stop_req q;
    classify(r, si, &q);
    const char *cause = NULL;
    if (!r->stop_req_seen) {
        r->stop_req_seen = true;
        r->stop_req = q;
        if (q.from == MON_STOP_SCHEDULER)
            cause = stop_cause(r);
    }
    mon_children_hold(&r->children);
    bool fwd = !mon_stop_job_has_it(&q, r->proctrack);
    /* hwmon escalates only what it sent */
    bool esc = fwd && mon_stop_hwmon_escalates(&q, r->life_owner, r->cfg->grace_given);
    if (fwd)
        job_forward(r, q.sig, esc);
    const char *abbrev = sigabbrev_np(q.sig);
    const struct opt_field all[] = {
        {true, RL_INT(HW_STOPREQ_SIGNAL, q.sig)},
        {abbrev != NULL, RL_STR(HW_STOPREQ_SIGNAL_NAME, abbrev ? abbrev : "")},
        {true, RL_STR(HW_STOPREQ_FROM, mon_stop_from_names[q.from])},
        {q.sender_pid > 0, RL_INT(HW_STOPREQ_SENDER_PID, q.sender_pid)},
        {q.sender[0] != '\0', RL_STR(HW_STOPREQ_SENDER, q.sender)},
        {true, RL_BOOL(HW_STOPREQ_FORWARDED, fwd)},
        {q.group, RL_BOOL(HW_STOPREQ_GROUP, true)},
        {fwd, RL_INT("processes_signalled", r->fwd_n)},
        {esc, RL_DBL(HW_STOPREQ_KILL_AFTER, r->cfg->grace_s)},
        {!esc && r->life_owner, RL_STR(HW_STOPREQ_GRACE_OF, r->life_owner ? r->life_owner : "")},
        {cause != NULL, RL_STR(HW_STOPREQ_CAUSE, cause ? cause : "")},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_STOP_REQUEST, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
}

/* A signal that is the job's, not hwmon's (stopsig.h's MON_SIG_PASS: SLURM's --signal=USR1@N,
 * scancel --signal, a resize): passed on once to the job, unless it has it already, and said in
 * a signal event; hwmon goes on. Without a running command (system or -p mode) it is only
 * recorded: the process hwmon watches is not hwmon's to signal. */
static void pass_signal(struct run *r, const struct signalfd_siginfo *si)
{
    struct mon_stop_req q;
    classify(r, si, &q);
    bool running = r->cmd_pid > 0 && !r->cmd_done;
    /* In a batch script's step (a job, no step id) SLURM sends a signal that is not a cancel to
     * the script alone (--signal=B:, scancel --batch) or to its process group (--full, which
     * the witness tells), whatever the proctrack plugin: tests/slurm/FINDINGS.md b. */
    bool batch = r->ctx.v[HW_CTX_SLURM_JOB_ID][0] && !r->ctx.v[HW_CTX_SLURM_STEP_ID][0];
    bool fwd = running && !mon_stop_job_has_it(&q, batch ? "" : r->proctrack);
    long n = 0;
    pid_t group;
    if (fwd)
        n = job_send(r, q.sig, &group);
    const char *abbrev = sigabbrev_np(q.sig);
    char rt[16];
    if (!abbrev && q.sig >= SIGRTMIN && q.sig <= SIGRTMAX) { /* glibc names none of them */
        snprintf(rt, sizeof rt, "RTMIN+%d", q.sig - SIGRTMIN);
        abbrev = rt;
    }
    const struct opt_field all[] = {
        {true, RL_INT(HW_STOPREQ_SIGNAL, q.sig)},
        {abbrev != NULL, RL_STR(HW_STOPREQ_SIGNAL_NAME, abbrev ? abbrev : "")},
        {true, RL_STR(HW_STOPREQ_FROM, mon_stop_from_names[q.from])},
        {q.sender_pid > 0, RL_INT(HW_STOPREQ_SENDER_PID, q.sender_pid)},
        {q.sender[0] != '\0', RL_STR(HW_STOPREQ_SENDER, q.sender)},
        {true, RL_BOOL(HW_STOPREQ_FORWARDED, fwd)},
        {q.group, RL_BOOL(HW_STOPREQ_GROUP, true)},
        {fwd, RL_INT("processes_signalled", n)},
        {true, RL_STR(HW_EV_SEVERITY, HW_EV_SEVERITY_INFO)},
    };
    rl_field_t f[HW_ARRAY_SIZE(all)];
    log_event(r, HW_EV_SIGNAL, f, pick_fields(all, HW_ARRAY_SIZE(all), f));
}

static void on_signal(struct run *r, const struct signalfd_siginfo *si)
{
    int sig = (int)si->ssi_signo;
    if (sig == SIGCHLD) {
        reap(r);
        return;
    }
    if (mon_sig_role(sig) == MON_SIG_PASS) {
        pass_signal(r, si);
        return;
    }
    if (r->cmd_pid && !r->cmd_done) {
        stop_requested(r, si);
        return;
    }
    if (r->stopping && r->signals_seen) {
        mon_children_kill(&r->children); /* second stop request: no more grace */
        if (r->fwd && !r->fwd_killed)
            r->fwd_deadline = hw_mono_now(); /* nor for what is left of the job */
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
    double now = hw_mono_now();
    double wait = mon_children_wait(&r->children, now);
    if (end_at > 0) {
        double d = end_at - now;
        d = d < 0 ? 0 : d;
        if (wait < 0 || d < wait)
            wait = d;
    }
    if (wait > 3600) /* poll's int milliseconds: an hour is as good as forever */
        wait = 3600;
    return wait < 0 ? -1 : (int)(wait * 1000) + 1;
}

/* Say why name in the run directory was refused, as "DIR/NAME: reason". */
static void refuse(const struct run *r, const char *name, int rc)
{
    char why[96];
    hw_warn(0, "%s/%s: %s", r->dir, name, hw_open_reason(r->dirfd, name, -rc, why, sizeof why));
}

/* Create file k of this run: exclusively (whatever stands at the name, a file, a planted link
 * or a FIFO, means another run or a trap, and refuses the run), never through a link, and
 * remembered, so that a failed start removes what it made and only that. */
static int create_file(struct run *r, enum hw_file k, unsigned how)
{
    const char *name = hw_file_names[k];
    int fd = hw_open_file(r->dirfd, name, HW_OPEN_EXCL | how);
    if (fd == -EEXIST)
        hw_warn(0, "%s already holds a run (%s): choose another -o DIR", r->dir, name);
    else if (fd < 0)
        refuse(r, name, fd);
    else
        r->out[k] = (struct run_file){.fd = fd, .created = true};
    return fd;
}

/* What hwmon's own files need to know of the run (runfiles.h). */
static struct mon_file_run file_run(const struct run *r)
{
    return (struct mon_file_run){.tree = r->track_pid || r->cfg->command,
                                 .cgroup = r->sys.cg.found,
                                 .pss = !r->cfg->no_pss};
}

/* hwmon's own files that this run makes (cpu_metrics.csv, the claim, is open already). */
static int open_outputs(struct run *r)
{
    const struct mon_file_run run = file_run(r);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (r->out[k].fd < 0 && mon_file_wanted(k, &run) && create_file(r, k, 0) < 0)
            return -1;
    return 0;
}

/* The GPU source's files: those of its children and those of the sampler thread. */
static int open_gpu_outputs(struct run *r)
{
    for (int i = 0; i < r->gth.n; i++)
        if ((r->gth.fd[i] = create_file(r, r->th_file[i], 0)) < 0)
            return -1;
    char(*paths)[PATH_MAX + 32] = r->out_paths;
    for (int i = 0; i < r->children.n; i++) {
        join_path(paths[i], sizeof paths[i], r->dir, hw_file_names[r->ch_file[i]]);
        r->children.ch[i].out_path = paths[i];
        /* read-write, so children.c can look at the last byte (a torn row); children.c closes
         * it (mon_children_close), not the run */
        int fd = create_file(r, r->ch_file[i], HW_OPEN_RDWR);
        if (fd < 0)
            return -1;
        r->children.ch[i].out_fd = fd;
        r->out[r->ch_file[i]].fd = -1;
    }
    return 0;
}

/* A start that failed before the start event leaves nothing behind that would make a retry into
 * the same -o DIR refuse it ("already holds a run"): the files it created, run.jsonl if it
 * created it, and the directories it made, as far as nothing else is in them. What another
 * hwmon created in the same directory (the one that won the race for it) is not touched. */
static void discard_unstarted(struct run *r)
{
    if (r->started || r->dirfd < 0)
        return;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (r->out[k].created)
            unlinkat(r->dirfd, hw_file_names[k], 0);
    hw_rmdir_made(r->given, r->dir_made);
}

/* The longest name hwmon puts in the run directory, with room for a temporary suffix: a -o path
 * too long for it is refused before anything is made. */
#define RUN_FILE_ROOM 64
#define MON_DIR_TRIES 1000 /* DIR-2 ... DIR-1000 */

static int claim_dir(struct run *r, const char *name, char *why, size_t cap);
static int next_dir_name(char *name, size_t cap, const char *asked, int k);

/* Make and open the run directory, and claim it: the first sample file is created exclusively,
 * so of two hwmon started on the same new directory at once exactly one runs (the other finds
 * the file and refuses, as for a directory that holds a finished run). */
static int make_dir(struct run *r)
{
    const struct mon_config *cfg = r->cfg;
    char *name = r->given;
    int n;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    struct tm tm;
    gmtime_r(&t.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    if (cfg->out_dir) {
        char err[512];
        int unset = 0;
        if (mon_expand_output(cfg->out_dir, &r->ctx, stamp, getpid(), name, sizeof r->given,
                              &unset, err, sizeof err) < 0) {
            hw_warn(0, "%s", err);
            return -1;
        }
        if (unset && !cfg->quiet)
            hw_warn(0, "-o %s: %d placeholder%s not set here, written as \"none\": %s", cfg->out_dir,
                    unset, unset == 1 ? "" : "s", name);
        n = (int)strlen(name);
    } else {
        n = snprintf(name, sizeof r->given, "hwmon-%s", stamp);
    }
    if (n <= 0 || (size_t)n + RUN_FILE_ROOM >= sizeof r->given) {
        hw_warn(ENAMETOOLONG, "-o %s", cfg->out_dir ? cfg->out_dir : "");
        return -1;
    }
    /* A directory that holds a run already (an earlier run, a second SLURM step with the same
     * -o, a file planted in a shared scratch directory) never keeps the job from running: the
     * next free name, DIR-2, DIR-3, ..., is taken, and said (the start event's dir_asked). */
    memcpy(r->asked, name, (size_t)n + 1);
    char first_why[PATH_MAX + 96] = "";
    for (int k = 1;; k++) {
        if (k > 1 && (k > MON_DIR_TRIES ||
                      next_dir_name(name, sizeof r->given - RUN_FILE_ROOM, r->asked, k) < 0)) {
            hw_warn(0, "%s: no free run directory name up to %s-%d", r->asked, r->asked,
                    MON_DIR_TRIES);
            return -1;
        }
        char why[PATH_MAX + 96];
        int rc = claim_dir(r, name, why, sizeof why);
        if (rc == 0)
            break;
        if (rc < 0)
            return -1;
        if (k == 1)
            memcpy(first_why, why, sizeof first_why);
        else if (!cfg->quiet)
            hw_warn(0, "%s: %s", name, why);
    }
    if (strcmp(r->given, r->asked) != 0) /* said even with -q: the run is not where asked */
        hw_warn(0, "%s: %s: writing to %s instead (it was taken)", r->asked, first_why, r->dir);
    else if (!cfg->out_dir && !cfg->quiet)
        hw_warn(0, "writing to %s", r->dir);
    return 0;
}

/* The k-th name to try for asked, "asked-k", into name[cap]: when asked's last component is so
 * long that "-k" would pass NAME_MAX (a 254-byte -o), the component is cut (at a UTF-8
 * character) to make room, so that a taken long name still gets a free one. 0, or -1 when it
 * does not fit cap. */
static int next_dir_name(char *name, size_t cap, const char *asked, int k)
{
    char suffix[16];
    int sl = snprintf(suffix, sizeof suffix, "-%d", k);
    size_t n = strlen(asked);
    while (n > 1 && asked[n - 1] == '/') /* "out/": the directory "out" */
        n--;
    size_t base = n;
    while (base > 0 && asked[base - 1] != '/')
        base--;
    size_t comp = n - base;
    if (comp + (size_t)sl > NAME_MAX) {
        comp = NAME_MAX > (size_t)sl ? NAME_MAX - (size_t)sl : 0;
        while (comp > 0 && ((unsigned char)asked[base + comp] & 0xC0) == 0x80)
            comp--; /* not inside a character */
    }
    if (base + comp + (size_t)sl >= cap)
        return -1;
    memcpy(name, asked, base + comp);
    memcpy(name + base + comp, suffix, (size_t)sl + 1);
    return 0;
}

/* Make, open and claim name as the run directory: 0; 1 when it is taken (why says by what: a
 * run's file, another user's link, a run log not the user's; nothing of it is touched), -1 on an
 * error that another name would not cure. */
static int claim_dir(struct run *r, const char *name, char *why, size_t cap)
{
    r->dir_made = strlen(name);
    int rc = hw_mkdir_p(name, &r->dir_made);
    if (rc < 0) {
        hw_warn(-rc, "create directory %s", name);
        hw_rmdir_made(name, r->dir_made);
        return -1;
    }
    /* A link as the directory itself is followed only when it is the user's own: in a shared
     * scratch directory another user's link would send the run into their chosen place. */
    struct stat st;
    if (lstat(name, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != geteuid()) {
        snprintf(why, cap, "is a symbolic link owned by another user (uid %lu)",
                 (unsigned long)st.st_uid);
        return 1;
    }
    int fd;
    do
        fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        hw_warn(errno, "open directory %s", name);
        hw_rmdir_made(name, r->dir_made);
        return -1;
    }
    /* Appending a second run's samples to a first run's files would make one summary of two
     * runs. A run.jsonl alone is fine: the user may have logged a config event before, but it
     * must be a regular file of the user's with one link. Anything at a sample's name counts,
     * a dangling link included. */
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const char *f = hw_file_names[k];
        if (hw_run_files[k].by != HW_BY_LOG &&
            (fstatat(fd, f, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)) {
            snprintf(why, cap, "already holds a run (%s)", f);
            close(fd);
            return 1;
        }
    }
    if (fstatat(fd, HW_RUNLOG_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1)) {
        char w[96];
        snprintf(why, cap, "%s: %s", HW_RUNLOG_FILE,
                 hw_open_reason(fd, HW_RUNLOG_FILE, EPERM, w, sizeof w));
        close(fd);
        return 1;
    }
    r->dirfd = fd;
    if (!realpath(name, r->dir)) {
        hw_warn(errno, "resolve %s", name);
        return -1;
    }
    /* the claim: of two hwmon on one new directory, one creates this file, the other moves on */
    int cfd = hw_open_file(r->dirfd, HW_CPU_FILE, HW_OPEN_EXCL);
    if (cfd == -EEXIST) {
        snprintf(why, cap, "already holds a run (%s)", HW_CPU_FILE);
        close(r->dirfd);
        r->dirfd = -1;
        return 1;
    }
    if (cfd < 0) {
        refuse(r, HW_CPU_FILE, cfd);
        return -1;
    }
    r->out[HW_FILE_CPU] = (struct run_file){.fd = cfd, .created = true};
    return 0;
}

/* run.jsonl: made by this start, or one the user made before (the job's own config event), which
 * must then be a regular file of the user's with one link: never a link to a file elsewhere. */
static int open_runlog(struct run *r)
{
    int fd = hw_open_file(r->dirfd, HW_RUNLOG_FILE, HW_OPEN_EXCL);
    r->out[HW_FILE_RUNLOG].created = fd >= 0;
    if (fd == -EEXIST)
        fd = hw_open_file(r->dirfd, HW_RUNLOG_FILE, HW_OPEN_OWNED);
    if (fd < 0) {
        refuse(r, HW_RUNLOG_FILE, fd);
        return -1;
    }
    int rc = rl_fdopen(&r->log, fd, 0);
    /* hwmon's own events keep to the name through a rotation, as the job's do */
    int frc = rc == 0 ? rl_follow(r->log, r->dirfd, HW_RUNLOG_FILE) : 0;
    if (frc < 0)
        hw_warn(-frc, "%s/%s: its name will not be followed through a rotation", r->dir,
                HW_RUNLOG_FILE);
    if (rc < 0) {
        r->log = NULL;
        hw_warn(-rc, "%s/%s", r->dir, HW_RUNLOG_FILE);
        return -1;
    }
    return 0;
}

/* ---- Prometheus export ---- */

static void prom_write(struct run *r)
{
    if (!r->prom_open)
        return;
    struct mon_prom_counters c = {
        .samples = atomic_load(&r->sampler.rows[HW_FILE_CPU]),
        .skipped_slots = atomic_load(&r->sampler.skipped),
    };
    for (int k = 0; k < HW_FILE_COUNT; k++)
        c.lost[k] = atomic_load(&r->sampler.lost[k]);
    c.child_restarts = mon_children_restarts(&r->children);
    int rc = mon_prom_update(&r->prom, &c, hw_real_now());
    if (rc < 0 && !r->prom_warned) { /* once: a full disk would otherwise flood stderr */
        hw_warn(-rc, "write %s", r->prom.path);
        r->prom_warned = true;
    }
}

/* Before the command starts: a path that cannot be written fails the run, not its end. The
 * file is this run's alone (mon_prom_claim) and goes when the run ends (cleanup). */
static int prom_start(struct run *r)
{
    const struct mon_config *cfg = r->cfg;
    int rc = mon_prom_resolve(&r->prom, cfg->prom_path, r->dir);
    if (rc < 0) {
        hw_warn(-rc, "--prom-textfile %s", cfg->prom_path);
        return -1;
    }
    struct mon_prom_owner me;
    if (mon_prom_owner_self(&me, cfg->prom_interval_s) < 0) /* no /proc: judged by age only */
        me.start = 0;
    char asked[sizeof r->prom.path], label[sizeof r->prom.run];
    snprintf(asked, sizeof asked, "%s", r->prom.path);
    snprintf(label, sizeof label, "%s", r->prom.run);
    rc = mon_prom_claim(&r->prom, &me);
    if (rc < 0) {
        hw_warn(-rc, "write %s", asked);
        return -1;
    }
    /* another name was taken only when the label got its -K (the path itself may just have
     * gained its directory: "new.prom" is claimed as "./new.prom") */
    if (strcmp(label, r->prom.run))
        hw_warn(0, "%s is another live run's export: exporting to %s (label run=\"%s\")", asked,
                r->prom.path, r->prom.run);
    struct utsname u;
    if (uname(&u) < 0)
        memset(&u, 0, sizeof u);
    rc = mon_prom_open(&r->prom, r->dir, r->gf.fields, cfg->interval_s, u.nodename,
                       cfg->command ? cfg->command[0] : NULL);
    if (rc < 0) {
        hw_warn(-rc, "--prom-textfile");
        mon_prom_remove(&r->prom);
        return -1;
    }
    r->prom_open = true;
    mon_prom_set_context(&r->prom, &r->ctx);
    struct mon_prom_counters c = {0};
    rc = mon_prom_update(&r->prom, &c, hw_real_now());
    if (rc < 0) {
        hw_warn(-rc, "write %s", r->prom.path);
        return -1;
    }
    r->prom_next = hw_mono_now() + cfg->prom_interval_s;
    return 0;
}

static void cleanup(struct run *r)
{
    mon_witness_stop(&r->witness, true);
    mon_sampler_stop(&r->sampler, false);
    mon_children_close(&r->children);
    if (r->tree_open)
        mon_tree_close(&r->tree);
    if (r->sys_open)
        mon_sys_close(&r->sys);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (r->out[k].fd >= 0)
            close(r->out[k].fd);
    if (r->sfd >= 0)
        close(r->sfd);
    if (r->efd >= 0)
        close(r->efd);
    if (r->pidfd >= 0)
        close(r->pidfd);
    if (r->runlog_rd >= 0)
        close(r->runlog_rd);
    mon_env_free(r->smi_env);
    if (r->gsrc)
        r->gsrc->free(r->gsrc);
    mon_nodelock_release(&r->nodelock);
    if (r->prom_open) { /* a finished run is not served as live: its file goes */
        int rc = mon_prom_remove(&r->prom);
        if (rc < 0)
            hw_warn(-rc, "remove %s", r->prom.path);
        mon_prom_close(&r->prom);
    }
    if (r->log) {
        int rc = rl_close(r->log);
        if (rc < 0)
            hw_warn(-rc, "close %s/run.jsonl", r->dir);
    }
    pthread_sigmask(SIG_SETMASK, &r->oldmask, NULL);
}

/* ---- the run, step by step (tini's main loop: each step one function, the loop last) ---- */

static void run_init(struct run *r, const struct mon_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->cfg = cfg;
    r->sfd = r->efd = r->pidfd = r->dirfd = -1;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        r->out[k].fd = -1;
    for (int i = 0; i < MON_GPU_THREAD_FILES; i++)
        r->gth.fd[i] = -1;
    r->nodelock.fd = -1; /* no lock until the GPUs are chosen */
    r->runlog_rd = -1;
    r->cmd_cpu_s = -1;
    mon_children_init(&r->children, NULL, NULL, on_child, r); /* the tool: after the probe */
    r->t0 = hw_mono_now();
    r->wrap = cfg->command != NULL;
}

/* Signals: blocked before any thread or child exists, so the sampler inherits the mask and
 * they all arrive on the signalfd. An ignored SIGHUP (nohup) stays ignored. */
static int setup_signals(struct run *r)
{
    struct sigaction sa;
    sigaction(SIGPIPE, NULL, &sa);
    r->pipe_was_ignored = sa.sa_handler == SIG_IGN;
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&r->mask);
    /* every signal of the table (stopsig.h), and the real-time ones: an ignored one (nohup's
     * SIGHUP) stays ignored, for hwmon and the job that inherits it */
    for (int sig = 1; sig < NSIG; sig++) {
        enum mon_sig_role role = mon_sig_role(sig);
        if (role == MON_SIG_NONE)
            continue;
        sigaction(sig, NULL, &sa);
        if (role == MON_SIG_OWN || sa.sa_handler != SIG_IGN)
            sigaddset(&r->mask, sig);
    }
    pthread_sigmask(SIG_BLOCK, &r->mask, &r->oldmask);
    r->sfd = signalfd(-1, &r->mask, SFD_CLOEXEC | SFD_NONBLOCK);
    r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (r->sfd < 0 || r->efd < 0) {
        hw_warn(errno, "signalfd/eventfd");
        return -1;
    }
    return 0;
}

/* Where it runs (the job's environment; with -p the process's, when hwmon may read it), the
 * run directory and its log, and the system's counters. */
static int open_run(struct run *r)
{
    const struct mon_config *cfg = r->cfg;
    struct utsname un;
    if (uname(&un) < 0)
        memset(&un, 0, sizeof un);
    if (!cfg->attach_pid ||
        mon_context_of_pid(&r->ctx, cfg->proc_root, cfg->attach_pid, un.nodename) < 0)
        mon_context_self(&r->ctx, un.nodename);
    /* under SLURM: whether a cancel signals the job itself, or hwmon alone (stopsig.h) */
    if (r->ctx.v[HW_CTX_SLURM_JOB_ID][0])
        mon_slurm_proctrack(r->proctrack, sizeof r->proctrack);
    r->life_owner = mon_life_owner(r->ctx.v[HW_CTX_SLURM_JOB_ID][0] != '\0',
                                   r->ctx.v[HW_CTX_K8S][0] != '\0', getenv("INVOCATION_ID"));
    if (make_dir(r) < 0 || open_runlog(r) < 0)
        return -1;
    int rc = mon_sys_open(&r->sys, cfg->proc_root, cfg->sys_root, r->dir);
    if (rc < 0) {
        hw_warn(-rc, "open %s/stat", cfg->proc_root);
        return -1;
    }
    r->sys_open = true;
    if (cfg->attach_pid) { /* -p: the container is the tracked process's cgroup, not ours */
        mon_cgroup_close(&r->sys.cg);
        mon_cgroup_open(&r->sys.cg, cfg->proc_root, cfg->sys_root, cfg->attach_pid);
    }
    r->have_oom0 = mon_cgroup_oom_kills(&r->sys.cg, &r->oom0);
    return 0;
}

/* Which GPUs, and whether this hwmon samples them: several ranks of one job on this node
 * share one GPU sampler (nodelock.h). */
static int choose_gpus(struct run *r)
{
    const struct mon_config *cfg = r->cfg;
    r->gpu_wanted = !cfg->no_gpu;
    const char *cuda = getenv("CUDA_VISIBLE_DEVICES");
    if (mon_gpusel_resolve(cfg->gpus, cuda, &r->gsel) < 0 && !mon_gpusel_from_env(&r->gsel)) {
        hw_warn(0, "--gpus \"%s\" is not a list of GPU ids", cfg->gpus);
        return -1;
    } /* a job's CUDA_VISIBLE_DEVICES that is not a list: it runs, no GPU is measured */
    if (r->gsel.none)
        r->gpu_wanted = false; /* the job was given no GPU */
    if (!r->gpu_wanted)
        return 0;
    char buf[2 * MON_CTX_VALUE];
    const char *job = mon_context_job(&r->ctx, buf, sizeof buf); /* else the pod */
    if (!*job)
        job = r->ctx.v[HW_CTX_K8S_POD];
    int lrc = mon_nodelock_take(&r->nodelock, cfg->lock_dir ? cfg->lock_dir : "/dev/shm", job,
                                r->gsel.ids ? r->gsel.ids : "all", r->dir);
    if (lrc < 0 && !cfg->quiet)
        hw_warn(-lrc, "%s: no node GPU sampler lock; this run samples its GPUs", r->nodelock.path);
    if (r->nodelock.secondary) {
        r->gpu_wanted = false;
        if (!cfg->quiet)
            hw_warn(0, "the GPUs of job %s on this node are sampled by hwmon %d (%s): not "
                       "again here, unless it ends first",
                    job, (int)r->nodelock.primary_pid,
                    r->nodelock.primary_dir[0] ? r->nodelock.primary_dir : "?");
    }
    return 0;
}

/* The source --gpu-source names; else (auto) the first of gpusrc.h's list that is on this
 * machine; else the first, whose probe says why there is none. */
static struct mon_gpu_source *pick_source(struct run *r, const struct mon_gpu_want *w)
{
    int k = r->cfg->gpu_source ? mon_gpu_source_find(r->cfg->gpu_source) : -1;
    if (k >= 0 || !r->gpu_wanted)
        return mon_gpu_sources[k >= 0 ? k : 0].make();
    for (int i = 0; i < MON_GPU_SOURCES; i++) {
        struct mon_gpu_source *s = mon_gpu_sources[i].make();
        if (!s || s->present(s, w))
            return s;
        s->free(s);
    }
    r->no_source = true;
    return mon_gpu_sources[0].make();
}

/* Ask the GPU source once, before sampling, with timeouts; its children join the set, its
 * thread files are the sampler's. */
static int probe_gpus(struct run *r)
{
    const struct mon_config *cfg = r->cfg;
    r->smi_env = mon_env_with(NULL);
    if (!r->smi_env) {
        hw_warn(ENOMEM, "environment");
        return -1;
    }
    const struct mon_gpu_want want = {
        .tool = cfg->smi,
        .interval_s = cfg->interval_s,
        .gpm = cfg->gpm != MON_GPM_OFF,
        .health = !cfg->no_health,
        .pmon = cfg->pmon,
        .gpu_procs = cfg->gpu_procs,
        .energy = !cfg->no_nvml,
        .envp = r->smi_env,
        .gsel = &r->gsel,
        .gpus = cfg->gpus,
    };
    r->gsrc = pick_source(r, &want);
    if (!r->gsrc) {
        hw_warn(ENOMEM, "GPU source");
        return -1;
    }
    r->gsrc->facts(r->gsrc, &r->gf);
    if (!r->gpu_wanted)
        return 0;
    int prc = r->gsrc->probe(r->gsrc, &want, r->why, sizeof r->why, r->probe_out,
                             sizeof r->probe_out);
    r->gsrc->facts(r->gsrc, &r->gf);
    if (prc == -2) {
        hw_warn(0, "%s", r->why);
        return -1;
    }
    r->gpu_ok = prc == 0; /* else a gpu_unavailable event says why, and the job runs */
    if (!r->gpu_ok)
        return 0;
    struct mon_gpu_child ch[MON_GPU_CHILDREN_MAX];
    int nch = r->gsrc->children(r->gsrc, &want, ch, MON_GPU_CHILDREN_MAX);
    r->children.path = r->gf.tool_path;
    r->children.envp = r->smi_env;
    for (int i = 0; i < nch; i++) {
        r->ch_file[r->children.n] = ch[i].file;
        struct mon_child *c =
            mon_children_add(&r->children, ch[i].name, ch[i].argv, ch[i].line_interval_s);
        /* the GPUs' rows, which name each GPU by its UUID: a fault in them is the GPU's */
        if (c)
            c->scan_rows = ch[i].file == HW_FILE_GPU;
    }
    r->gth.n = r->gsrc->thread_files(r->gsrc, &want, r->th_file, MON_GPU_THREAD_FILES);
    r->gth.src = r->gth.n > 0 ? r->gsrc : NULL;
    return 0;
}

/* Every output file opens before the command starts (the GPU source's, when its probe came
 * first: see mon_run and probe_beside_job): a run that cannot be recorded fails
 * before the user's job is launched, not after. */
static int open_all_outputs(struct run *r)
{
    r->track_pid = r->cfg->attach_pid;
    if (open_outputs(r) < 0 || (r->gpu_ok && open_gpu_outputs(r) < 0))
        return -1;
    if (r->cfg->prom_path && prom_start(r) < 0)
        return -1;
    return 0;
}

/* What to track: the command started (wrap mode) or the process attached to, and its tree.
 * A command that cannot run ends the run here: *status is its 126 or 127. */
static int start_tracking(struct run *r, int *status)
{
    const struct mon_config *cfg = r->cfg;
    int rc;
    if (r->wrap) {
        /* The job's orphaned workers stay ours to stop (jobtree.h); without it (old kernels)
         * only the main process and its live descendants can be reached. */
        (void)mon_job_subreaper();
        rc = spawn_command(r);
        if (rc < 0) {
            hw_warn(-rc, "cannot run '%s'", cfg->command[0]);
            *status = rc == -ENOENT ? 127 : 126;
            log_start(r, run_mode(r));
            r->stop_reason = "command_exit";
            log_stop(r, true, *status);
            return -1;
        }
        r->track_pid = r->cmd_pid;
        /* after the job, which comes first where processes are few (RLIMIT_NPROC); the kernel
         * signals a group's newest members first, so the witness before hwmon (jobtree.h);
         * without it every signal is passed on */
        (void)mon_witness_start(&r->witness, r->nodelock.fd >= 0 || r->nodelock.secondary
                                                 ? r->nodelock.path /* a takeover's too */
                                                 : NULL);
    }
    if (r->track_pid) {
        rc = mon_tree_open(&r->tree, cfg->proc_root, r->track_pid, !cfg->no_pss);
        if (rc < 0 && !r->wrap) {
            hw_warn(0, "no process %d to attach to", (int)r->track_pid);
            return -1;
        }
        r->tree_open = rc == 0;
        r->tree.pss_budget = cfg->pss ? 0 : MON_PSS_BUDGET;
        if (r->tree_open && cfg->shared_once)
            mon_tree_shared_once(&r->tree);
        if (r->tree_open) /* hwmon -p $PPID: the monitor is not the job */
            mon_tree_exclude(&r->tree, getpid());
        if (r->tree_open && cfg->alone)
            mon_tree_alone(&r->tree);
        if (cfg->attach_pid)
            r->pidfd = (int)syscall(SYS_pidfd_open, cfg->attach_pid, 0);
    }
    return 0;
}

static void log_gpu_events(struct run *r);

/* The start event, then what the GPU source could not do. */
static void log_start_events(struct run *r)
{
    const char *l = remote_launcher(r);
    if (l && !r->cfg->quiet)
        hw_warn(0, "%s starts the job's ranks under its own daemons (possibly on other nodes): "
                   "this run records %s itself and the ranks' logs, not the ranks' processes; "
                   "run hwmon inside the launcher instead: %s ... hwmon -o DIR -- COMMAND",
                l, l, l);
    log_start(r, run_mode(r));
    if (r->gsel.unmapped[0])
        gpu_selection_fallback(r);
    log_gpu_events(r);
}

/* What the GPU source could not do, after the start event or a takeover's gpu_sampler event. */
static void log_gpu_events(struct run *r)
{
    if (r->gpu_wanted && !r->gpu_ok)
        gpu_unavailable(r, r->why, r->probe_out);
    for (int i = 0; i < r->gf.n_fallbacks; i++) {
        const struct mon_gpu_fallback *fb = &r->gf.fallbacks[i];
        rl_field_t f[] = {RL_STR("dropped", fb->dropped), RL_STR(HW_FALLBACK_FIELDS, fb->fields)};
        log_event(r, HW_EV_GPU_FIELDS_FALLBACK, f, HW_ARRAY_SIZE(f));
    }
    if (r->gpu_ok && r->gf.gpm_applies && r->cfg->gpm != MON_GPM_OFF &&
        (!r->gf.gpm || r->gf.gpm_missing[0]))
        gpm_unavailable(r, r->probe_out);
    if (r->gpu_ok && r->cfg->pmon && pmon_missing(r)) { /* asked for: said, and warned */
        rl_field_t f[] = {RL_STR("reason", r->gf.pmon_why)};
        log_event(r, HW_EV_PMON_UNAVAILABLE, f, HW_ARRAY_SIZE(f));
        if (!r->cfg->quiet)
            hw_warn(0, "--pmon: %s", r->gf.pmon_why);
    }
}

/* The sampler thread and the GPU children. */
static void start_sampling(struct run *r, bool sys_baseline)
{
    const struct mon_config *cfg = r->cfg;
    /* --duration of whole intervals: the sampler stops after its last slot; any other (1.7 s
     * at -i 0.5) is a timer, the stop taking the last partial interval's sample */
    uint64_t max_slots = r->wrap ? 0 : mon_cadence_max_slots(cfg->duration_s, cfg->interval_s);
    struct mon_sampler_cfg sc = {
        .interval_s = cfg->interval_s,
        .max_slots = max_slots,
        .sys = &r->sys,
        .tree = r->tree_open ? &r->tree : NULL,
        .files = file_run(r),
        .notify_fd = r->efd,
        .sys_baseline = sys_baseline,
        .baseline_row = cfg->attach_pid > 0,
        /* the very file of the log (not a name that could be swapped meanwhile) */
        .runlog_fd = r->log ? (r->runlog_rd = hw_reopen_read(rl_fileno(r->log))) : -1,
        .runlog_dirfd = r->dirfd,
        .log = r->log,
        .gpus = r->gth, /* none yet when the job starts before the probes */
    };
    /* hwmon's own files; those of the tree only when there is one to sample (a command whose
     * tree could not be read: its file stays empty) */
    for (int k = 0; k < HW_FILE_COUNT; k++)
        sc.fd[k] = mon_files[k] && (r->tree_open || !mon_files[k]->with_tree) ? r->out[k].fd
                                                                               : -1;
    /* a --duration timer counts from the sampler's start, as its slots do */
    r->end_at = cfg->duration_s > 0 && !r->wrap && max_slots == 0 ? hw_mono_now() + cfg->duration_s
                                                                  : 0;
    int rc = mon_sampler_start(&r->sampler, &sc);
    if (rc < 0) {
        /* (a thread under a small ulimit -v, say) The start event is out: the run must end
         * with a stop event that says why, or a retry into the directory is refused. A running
         * job is not stopped for it: its GPU rows and its own log still record it. */
        r->sampler_err = rc;
        hw_warn(-rc, "start the sampler: no CPU or process samples for this run");
        if (!r->wrap)
            begin_stop(r, "sampler_failed");
    }
}

/* The GPUs, once known: the source's children start, the sampler thread takes what it reads. */
static void start_gpus(struct run *r)
{
    if (!r->gpu_ok)
        return;
    mon_children_start(&r->children, hw_mono_now());
    mon_sampler_set_gpus(&r->sampler, &r->gth);
}

/* A job that started before the probes (mon_run): ask them now, beside it. What goes wrong is
 * the GPUs' loss, not the job's: said in a gpu_unavailable event. */
static void probe_beside_job(struct run *r)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    mon_probe_abort_on(&stop); /* a stop signal is the job's first: no waiting for nvidia-smi */
    int rc = probe_gpus(r);
    mon_probe_abort_on(NULL);
    if (rc < 0 || (r->gpu_ok && open_gpu_outputs(r) < 0)) {
        if (r->gpu_ok || !r->why[0])
            snprintf(r->why, sizeof r->why, "the GPUs' files could not be set up");
        r->gpu_ok = false;
        r->gth.src = NULL;
        r->gth.n = 0;
        r->probe_out[0] = '\0';
    }
}

/* Has the job ended: its command exited (reaped or not yet), the attached process is gone? */
static bool job_over(const struct run *r)
{
    if (r->wrap) {
        siginfo_t si = {0};
        return r->cmd_done || r->cmd_pid <= 0 ||
               (waitid(P_PID, r->cmd_pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == r->cmd_pid);
    }
    return r->cfg->attach_pid > 0 && !watched_alive(r);
}

/* A secondary, once an interval while its job runs: when the hwmon that sampled the node's GPUs
 * has ended (its lock is free), this one becomes the sampler (nodelock.h): the GPU source is
 * asked as at a start, its files begin in this run's directory, a gpu_sampler event says so.
 * The probe runs on this loop, as for a job that starts before it (probe_beside_job): its calls
 * have timeouts, and a stop signal aborts them at once, so the job's stop is passed on without
 * waiting; a signal that is the job's (USR1) waits for the probe's end, seconds at most. A
 * thread would spare that wait at the cost of a second owner of the run's state. */
static void take_over(struct run *r, double now)
{
    r->lock_next = now + r->cfg->interval_s;
    if (r->stopping || job_over(r) || mon_nodelock_try(&r->nodelock, r->dir) <= 0)
        return;
    double t0 = hw_mono_now();
    if (r->gsrc) /* the one a secondary picked, unasked: asked now as a sampler's */
        r->gsrc->free(r->gsrc);
    r->gsrc = NULL;
    mon_env_free(r->smi_env);
    r->smi_env = NULL;
    r->gpu_wanted = true;
    r->no_source = false;
    r->why[0] = r->probe_out[0] = '\0';
    probe_beside_job(r);
    const struct mon_nodelock *l = &r->nodelock;
    const rl_field_t prev[] = {RL_INT(HW_SAMPLER_PID, l->prev_pid),
                               RL_STR(HW_SAMPLER_DIR, l->prev_dir)};
    const rl_field_t own[] = {
        RL_STR(HW_SAMPLER_ROLE, HW_SAMPLER_PRIMARY),
        RL_INT(HW_SAMPLER_PID, getpid()),
        RL_STR(HW_SAMPLER_DIR, r->dir),
        RL_OBJ(HW_SAMPLER_PREVIOUS, prev, HW_ARRAY_SIZE(prev)),
        RL_DBL(HW_SAMPLER_PROBE, round((hw_mono_now() - t0) * 1000) / 1000),
        RL_STR(HW_EV_SEVERITY, HW_EV_SEVERITY_INFO),
    };
    rl_field_t f[HW_ARRAY_SIZE(own) + GPU_FACTS];
    memcpy(f, own, sizeof own);
    struct gpu_facts_store gs;
    size_t n = HW_ARRAY_SIZE(own) + gpu_facts(r, &gs, f + HW_ARRAY_SIZE(own));
    log_event(r, HW_EV_GPU_SAMPLER, f, n);
    log_gpu_events(r);
    start_gpus(r);
    if (!r->cfg->quiet)
        hw_warn(0, "hwmon %d (%s), the sampler of this node's GPUs, has ended: sampling them "
                   "here from now on",
                (int)l->prev_pid, l->prev_dir[0] ? l->prev_dir : "?");
}

/* Due work at now: children's restarts and hangs, the job's SIGKILL deadline, --duration, the
 * Prometheus file. false once the run is over (stopping, and everything has ended). */
static bool tick(struct run *r, double now)
{
    const struct mon_config *cfg = r->cfg;
    /* The loop wakes every MON_CHILD_POLL_S while children are watched: a longer gap is hwmon
     * not running (a frozen container), which is no child's silence (mon_children_paused). */
    if (r->last_tick > 0 && now - r->last_tick > mon_scaled(MON_CHILD_PAUSE_S) &&
        mon_children_wait(&r->children, r->last_tick) >= 0)
        mon_children_paused(&r->children, now - r->last_tick - mon_scaled(MON_CHILD_POLL_S));
    r->last_tick = now;
    mon_children_tick(&r->children, now);
    if (r->stopping) {
        if (!mon_children_running(&r->children) && (!r->wrap || r->cmd_done) && job_tick(r, now))
            return false;
        if (now > r->stop_deadline && (!r->wrap || r->cmd_done)) {
            hw_warn(0, "a child did not exit after SIGKILL; giving up on it");
            return false;
        }
        return true;
    }
    job_tick(r, now); /* a command that ignores the forwarded signal: SIGKILL in time */
    if (r->nodelock.secondary && now >= r->lock_next)
        take_over(r, now);
    double step = hw_clock_step(&r->clock, hw_real_now(), now);
    if (step != 0) { /* the rows jump by it: say so (durations are the monotonic clock's) */
        const rl_field_t f[] = {RL_DBL(HW_CLOCK_STEP_KEY, round(step * 1000) / 1000),
                                RL_STR(HW_EV_SEVERITY, HW_EV_SEVERITY_INFO)};
        log_event(r, HW_EV_CLOCK_STEP, f, 2);
    }
    if (r->end_at && now >= r->end_at)
        begin_stop(r, "duration");
    if (r->prom_open && now >= r->prom_next) {
        prom_write(r);
        /* absolute deadlines; after a stall, the next one from now */
        r->prom_next += cfg->prom_interval_s;
        if (r->prom_next <= now)
            r->prom_next = now + cfg->prom_interval_s;
    }
    return true;
}

/* One wait on everything that can wake the run (signals, the sampler, the attached pid, the
 * children's stderr, the next deadline), and what it brought. false on a poll error. */
static bool wait_and_dispatch(struct run *r)
{
    struct pollfd pf[3 + MON_CHILDREN_MAX];
    int np = 0;
    pf[np++] = (struct pollfd){r->sfd, POLLIN, 0};
    pf[np++] = (struct pollfd){r->efd, POLLIN, 0};
    int pid_slot = -1;
    if (r->pidfd >= 0 && !r->stopping) {
        pid_slot = np;
        pf[np++] = (struct pollfd){r->pidfd, POLLIN, 0};
    }
    int ch_slot[MON_CHILDREN_MAX];
    for (int i = 0; i < r->children.n; i++) {
        ch_slot[i] = -1;
        if (r->children.ch[i].err_fd >= 0) {
            ch_slot[i] = np;
            pf[np++] = (struct pollfd){r->children.ch[i].err_fd, POLLIN, 0};
        }
    }
    double wake = r->end_at;
    if (r->prom_open && !r->stopping && (wake == 0 || r->prom_next < wake))
        wake = r->prom_next;
    /* INFINITY: the stop is the scheduler's or the runtime's to escalate; nothing to wake for */
    if (r->fwd && !r->fwd_killed && isfinite(r->fwd_deadline) &&
        (wake == 0 || r->fwd_deadline < wake))
        wake = r->fwd_deadline;
    if (r->nodelock.secondary && !r->stopping && (wake == 0 || r->lock_next < wake))
        wake = r->lock_next; /* the next try of the node's lock */
    int n = poll(pf, (nfds_t)np, loop_timeout_ms(r, wake));
    if (n < 0 && errno != EINTR) {
        hw_warn(errno, "poll");
        return false;
    }
    if (n <= 0)
        return true;
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
        else if (fin == MON_SAMPLER_DONE_ROOT_GONE && !r->wrap)
            begin_stop(r, "process_exit");
    }
    if (pid_slot >= 0 && pf[pid_slot].revents)
        begin_stop(r, "process_exit");
    for (int i = 0; i < r->children.n; i++)
        if (ch_slot[i] >= 0 && pf[ch_slot[i]].revents)
            mon_children_read_err(&r->children, &r->children.ch[i]);
    return true;
}

/* The run's exit status, and the stop event. */
static int finish(struct run *r)
{
    /* anything left (a child stuck past SIGKILL): one last non-blocking reap */
    reap(r);
    int status = r->wrap ? r->cmd_status : HW_EXIT_OK;
    int werr = atomic_load(&r->sampler.write_err);
    if (r->sampler_err < 0 && !r->wrap)
        status = MON_EXIT_SELF;
    if (werr < 0) {
        hw_warn(-werr, "write to %s", r->dir);
        if (!r->wrap)
            status = MON_EXIT_SELF;
    }
    log_stop(r, r->wrap, status);
    return status;
}

int mon_run(const struct mon_config *cfg)
{
    static struct run run; /* big (paths, buffers): keep it off the stack */
    struct run *r = &run;
    run_init(r, cfg);
    int status = MON_EXIT_SELF;
    /* A wrapped job starts first and is sampled from its first moment; nvidia-smi's probes
     * (five calls, seconds each on a busy node without persistence mode) run beside it, and its
     * GPUs are sampled from when they answer. So is an attached process (-p): the Python
     * monitors return at once and their block is sampled from then. Not when --gpus names
     * GPUs: a wrong id is an error of the run, said before the job starts ("all" names none:
     * gpu_tracker's Tracker records every GPU and returns at once). */
    bool job_first =
        (r->wrap || cfg->attach_pid > 0) && (!cfg->gpus || !strcmp(cfg->gpus, "all"));
    if (setup_signals(r) < 0 || open_run(r) < 0 || choose_gpus(r) < 0 ||
        (!job_first && probe_gpus(r) < 0) || open_all_outputs(r) < 0)
        goto out;
    /* The system counters' baseline before the job begins: its first moments are the first
     * interval's. */
    struct mon_sys_sample base;
    bool sys_baseline = mon_sys_sample(&r->sys, hw_mono_now(), &base) == 0;
    r->cg_at_start = r->sys.cg;
    if (start_tracking(r, &status) < 0)
        goto out;
    if (job_first) {
        start_sampling(r, sys_baseline);
        probe_beside_job(r);
    }
    log_start_events(r);
    if (!job_first)
        start_sampling(r, sys_baseline);
    start_gpus(r);
    while (tick(r, hw_mono_now()) && wait_and_dispatch(r))
        ;
    status = finish(r);
out:
    cleanup(r);
    discard_unstarted(r);
    if (r->dirfd >= 0)
        close(r->dirfd);
    return status;
}
