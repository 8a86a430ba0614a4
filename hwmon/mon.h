/* hwmon's top level: the configuration main.c fills in, and the run that wires the sampler
 * thread, the nvidia-smi children, the wrapped command and the run log together. */
#ifndef HWMON_MON_H
#define HWMON_MON_H

#include <stdbool.h>
#include <sys/types.h>

/* the one version, include/runlog.h's RL_VERSION_*, as CMake passes it to every target */
#define MON_VERSION HWRUN_VERSION

/* The share of one core PSS reads may take when not asked for every sample (--pss). */
#define MON_PSS_BUDGET 0.01

/* --gpm / --no-gpm. AUTO and ON both start the GPM child when the probe finds a GPU with GPM;
 * ON also warns on stderr when none has it. */
enum mon_gpm { MON_GPM_AUTO, MON_GPM_ON, MON_GPM_OFF };

/* hwmon's own failure (bad pid, unusable output directory, ...): 125, as timeout(1) and env(1)
 * do, because in wrap mode hwmon's status is otherwise the job's, and a job never exits 125 by
 * accident the way it exits 1. */
#define MON_EXIT_SELF 125

/* --kill-grace when not given (times the test-only time scale, timescale.h) */
#define MON_GRACE_DEFAULT_S 5.0
/* --prom-interval's least value (times the test-only time scale: a test of the textfile's
 * rewrites waits for fewer seconds; the value given is never scaled) */
#define MON_PROM_INTERVAL_MIN_S 1.0

struct mon_config {
    const char *out_dir; /* NULL: a new hwmon-<UTC time> directory in the working directory */
    double interval_s;   /* 0.05 .. 3600 */
    double duration_s;   /* 0: until stopped (system and attach modes only) */
    bool no_gpu, gpu_procs, pss, quiet;
    bool shared_once; /* --shared-once: gpu_tracker's shared memory (sharedonce.h); implies pss */
    bool leave_running; /* --leave-running: what of the job outlives its command is not stopped */
    const char *smi;         /* nvidia-smi name or path */
    pid_t attach_pid;        /* -p PID, or 0 */
    char **command;          /* -- COMMAND ARG..., or NULL */
    const char *proc_root;   /* /proc (tests: testdata/proc) */
    const char *lock_dir;    /* where the node's GPU sampler lock is (nodelock.h): /dev/shm */
    const char *sys_root;    /* where mount points and /sys are: "/" (tests: a fixture) */
    double grace_s;          /* SIGTERM to SIGKILL for the children: MON_GRACE_DEFAULT_S */
    bool grace_given;        /* --kill-grace was given: it applies under a scheduler too */
    enum mon_gpm gpm;        /* GPM metrics (hw_gpm.csv): auto (default), on, off */
    /* --gpu-source: the word of a GPU source of gpusrc.h's list (nvidia-smi's, AMD's amdgpu
     * files); NULL: auto, the first source there is on the machine */
    const char *gpu_source;
    bool no_health;          /* --no-health: no hw_health.csv child */
    bool no_nvml;            /* --no-nvml: no energy counters (hw_energy.csv) */
    bool pmon;               /* --pmon: per-process GPU use (hw_pmon.csv) */
    const char *prom_path;   /* --prom-textfile FILE or DIR, or NULL */
    double prom_interval_s;  /* how often it is rewritten (removed at stop) */
    const char *gpus;        /* --gpus LIST or "all"; NULL: CUDA_VISIBLE_DEVICES, else all */
    bool no_pss;             /* --no-pss; default: PSS within MON_PSS_BUDGET (--pss: always) */
    bool alone;              /* --no-children: the tracked process alone, not its descendants */
};

/* Run until the command exits (wrap), the process exits (attach), the duration ends or a
 * signal stops it. Prints its own diagnostics (hw_warn). Returns the exit status: the
 * command's in wrap mode (126/127 if it could not run, 128+N if killed by signal N), else 0,
 * or 1 on a runtime failure. Call from the main thread, before any other thread exists. */
int mon_run(const struct mon_config *cfg);

#endif
