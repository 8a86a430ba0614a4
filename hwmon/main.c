/* hwmon: sample GPUs (nvidia-smi's children, AMD's kernel files), CPUs and a process tree into
 * a run directory, wrapping a command, attaching to a process, or watching the whole system.
 * main() only parses the command line; mon_run() (run.c) does the work. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "gpusel.h"
#include "gpusrc.h"
#include "hwrun/msg.h"
#include "hwrun/parse.h"
#include "hwrun/rundir.h"
#include "context.h"
#include "mon.h"
#include "timescale.h"

/* hwmon's exit statuses: the one table, printed by --help and listed in hwmon(1). */
static const struct hw_exit_doc exit_codes[] = {
    {HW_EXIT_OK, "monitoring ended normally (system and -p modes)"},
    {MON_EXIT_SELF, "hwmon itself failed (see hwmon(1))"},
    {HW_EXIT_USAGE, "usage error"},
    {HW_EXIT_PASSED, "with a COMMAND: its exit status (126 cannot execute, 127 not found,\n"
                     "128+N killed by signal N)"},
};

static void usage(void)
{
    printf("Usage: hwmon [OPTION]... [-p PID | -- COMMAND [ARG]...]\n"
           "Sample GPUs, CPUs and a process tree into a run directory.\n"
           "\n"
           "  -- COMMAND [ARG]...    run COMMAND (no shell) and monitor it and its descendants\n"
           "                         until it exits; exit with its status\n"
           "  -p, --pid PID          monitor a running process and its descendants\n"
           "                         (neither: the whole system until SIGINT/SIGTERM)\n"
           "  -o, --output DIR       write into DIR, created if missing (DIR-2, DIR-3, ...\n"
           "                         when DIR already holds a run)\n"
           "                         (default: a new hwmon-<UTC time> directory here); DIR\n"
           "                         may hold {host} {node} {jobid} {stepid} {nodeid} {rank}\n"
           "                         {localrank} {localid} {restart} {time} {pid}, from\n"
           "                         SLURM's and the launcher's variables ({stepid}: batch\n"
           "                         in a batch script; {restart}: SLURM_RESTART_COUNT, 0\n"
           "                         before a requeue)\n"
           "  -i, --interval SECONDS sampling interval, 0.05 to 3600 (default 1)\n"
           "  -d, --duration SECONDS stop after this long (system and -p modes)\n"
           "      --leave-running    when COMMAND exits, leave what remains of its process\n"
           "                         tree (daemons it started) running; default: stop it\n"
           "                         (SIGTERM, then SIGKILL after the grace), as on a stop\n"
           "                         signal\n"
           "      --kill-grace SECONDS  how long the job has between SIGTERM and SIGKILL, and\n"
           "                         nvidia-smi children on stop, 0 to 600 (default 5)\n"
           "      --no-gpu           do not start nvidia-smi\n"
           "      --nvidia-smi PATH  the nvidia-smi to run (default: nvidia-smi on PATH)\n"
           "      --gpu-source auto");
    /* the sources from their table, in auto's order */
    for (int i = 0; i < MON_GPU_SOURCES; i++)
        printf("|%s", mon_gpu_sources[i].option);
    printf("  whose GPUs:\n");
    for (int i = 0; i < MON_GPU_SOURCES; i++)
        printf("                         %s: %s\n", mon_gpu_sources[i].option,
               mon_gpu_sources[i].help);
    printf("                         auto (default): the first of these that is there\n"
           "      --gpu-procs        also record per-process GPU memory (gpu_procs.csv)\n"
           "      --pss              record PSS every sample (reads smaps_rollup: about 30 ms\n"
           "                         for 4 GiB); default: as often as 1%% of a core allows\n"
           "      --no-pss           do not record PSS\n"
           "      --shared-once      also record shared memory counted once per mapped path, as\n"
           "                         gpu_tracker does (reads each process's smaps every sample;\n"
           "                         implies --pss)\n"
           "      --no-children      measure the command or PID alone, not its descendants\n"
           "                         (proc_metrics.csv; stopping still covers the whole job)\n"
           "      --gpus LIST        record only these GPUs (indexes or UUIDs, comma-separated,\n"
           "                         or all); default: CUDA_VISIBLE_DEVICES if set, else all\n"
           "      --gpm              record GPM activity (SM, tensor, DRAM) into hw_gpm.csv;\n"
           "                         on by default when the GPUs support it\n"
           "      --no-gpm           do not record GPM activity\n"
           "      --no-health        do not record clocks, throttling, power limits, ECC\n"
           "                         errors and the PCIe link (hw_health.csv)\n"
           "      --pmon             also record each process's SM and memory share of the\n"
           "                         GPUs (nvidia-smi pmon: hw_pmon.csv), to tell the job's\n"
           "                         own use of a shared GPU from the others'\n"
           "      --no-nvml          do not read the GPUs' energy counters (NVML, AMD SMI)\n"
           "                         (hw_energy.csv; $HWMON_NVML_LIBRARY names the library)\n"
           "      --prom-textfile PATH  keep the latest values in Prometheus' text format in\n"
           "                         PATH (a file, or a directory: PATH/hwrun_<run>.prom)\n"
           "                         for node_exporter's textfile collector\n"
           "      --prom-interval SECONDS  how often to rewrite it, 1 to 3600 (default 10)\n"
           "  -q, --quiet            no informational messages\n"
           "  -h, --help             show this help and exit\n"
           "  -V, --version          show the version and exit\n"
           "\n");
    /* the run files' table, every entry (hwrun/rundir.h), lines under 80 columns */
    int col = printf("Files:");
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const char *sep = " ";
        if (col + 2 + (int)strlen(hw_file_names[k]) > 78) {
            col = printf("\n") - 1;
            sep = "";
        }
        col += printf("%s%s%s", sep, hw_file_names[k], k + 1 < HW_FILE_COUNT ? "," : "");
    }
    printf(" (see hwmon(1)).\n"
           "The command gets RUNLOG_FILE and HWMON_DIR.\n"
           "SIGINT, SIGTERM and SIGHUP sent to hwmon are forwarded to the command.\n"
           "\n");
    hw_print_exit_codes(stdout, exit_codes, sizeof exit_codes / sizeof exit_codes[0]);
}

static double parse_seconds(const char *opt, const char *s, double min, double max)
{
    double v;
    if (hw_parse_double(s, min, max, &v) < 0)
        hw_usage_error("invalid %s value \"%s\" (expected seconds, %g to %g)", opt, s, min, max);
    return v;
}

int main(int argc, char **argv)
{
    hw_set_progname("hwmon");
    struct mon_config cfg = {
        .interval_s = 1.0,
        .smi = "nvidia-smi",
        .proc_root = "/proc",
        .sys_root = "/",
        .grace_s = MON_GRACE_DEFAULT_S,
        .prom_interval_s = 10.0,
    };
    enum {
        OPT_NO_GPU = 256,
        OPT_SMI,
        OPT_GPU_PROCS,
        OPT_PSS,
        OPT_PROC_ROOT,
        OPT_SYS_ROOT,
        OPT_LOCK_DIR,
        OPT_GRACE,
        OPT_GPM,
        OPT_NO_GPM,
        OPT_NO_HEALTH,
        OPT_NO_NVML,
        OPT_PMON,
        OPT_GPUS,
        OPT_NO_PSS,
        OPT_SHARED_ONCE,
        OPT_NO_CHILDREN,
        OPT_PROM,
        OPT_PROM_INTERVAL,
        OPT_LEAVE_RUNNING,
        OPT_GPU_SOURCE
    };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"interval", required_argument, NULL, 'i'},
        {"duration", required_argument, NULL, 'd'},
        {"pid", required_argument, NULL, 'p'},
        {"no-gpu", no_argument, NULL, OPT_NO_GPU},
        {"nvidia-smi", required_argument, NULL, OPT_SMI},
        {"gpu-procs", no_argument, NULL, OPT_GPU_PROCS},
        {"pss", no_argument, NULL, OPT_PSS},
        {"no-pss", no_argument, NULL, OPT_NO_PSS},
        {"shared-once", no_argument, NULL, OPT_SHARED_ONCE},
        {"no-children", no_argument, NULL, OPT_NO_CHILDREN},
        {"gpm", no_argument, NULL, OPT_GPM},
        {"no-gpm", no_argument, NULL, OPT_NO_GPM},
        {"no-health", no_argument, NULL, OPT_NO_HEALTH},
        {"no-nvml", no_argument, NULL, OPT_NO_NVML},
        {"pmon", no_argument, NULL, OPT_PMON},
        {"gpus", required_argument, NULL, OPT_GPUS},
        {"gpu-source", required_argument, NULL, OPT_GPU_SOURCE},
        {"prom-textfile", required_argument, NULL, OPT_PROM},
        {"prom-interval", required_argument, NULL, OPT_PROM_INTERVAL},
        {"leave-running", no_argument, NULL, OPT_LEAVE_RUNNING},
        {"kill-grace", required_argument, NULL, OPT_GRACE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        /* hidden, for tests */
        {"proc-root", required_argument, NULL, OPT_PROC_ROOT},
        {"sys-root", required_argument, NULL, OPT_SYS_ROOT},
        {"lock-dir", required_argument, NULL, OPT_LOCK_DIR},
        {NULL, 0, NULL, 0},
    };
    int c;
    /* read before any thread starts (and before --prom-interval's floor is checked); a value
     * refused is said after the options, so that --help and usage errors come first */
    const char *bad_scale = mon_time_scale_load();
    /* '+': stop at the first non-option, so "hwmon cmd -x" never eats -x */
    while ((c = getopt_long(argc, argv, "+o:i:d:p:qhV", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!*optarg)
                hw_usage_error("empty output directory");
            cfg.out_dir = optarg;
            { /* a placeholder's spelling is checked now: a typo is a usage error, not a run */
                struct mon_context none;
                memset(&none, 0, sizeof none);
                char tmp[4096], err[512];
                int unset;
                if (mon_expand_output(optarg, &none, "T", 1, tmp, sizeof tmp, &unset, err,
                                      sizeof err) < 0 &&
                    !strstr(err, "too long"))
                    hw_usage_error("%s", err);
            }
            break;
        case 'i':
            cfg.interval_s = parse_seconds("interval", optarg, 0.05, 3600);
            break;
        case 'd':
            cfg.duration_s = parse_seconds("duration", optarg, 0.001, 1e9);
            break;
        case 'p': {
            int64_t v;
            if (hw_parse_i64(optarg, 1, 0x7fffffff, &v) < 0)
                hw_usage_error("invalid PID \"%s\"", optarg);
            cfg.attach_pid = (pid_t)v;
            break;
        }
        case OPT_NO_GPU:
            cfg.no_gpu = true;
            break;
        case OPT_SMI:
            if (!*optarg)
                hw_usage_error("empty --nvidia-smi path");
            cfg.smi = optarg;
            break;
        case OPT_GPU_PROCS:
            cfg.gpu_procs = true;
            break;
        case OPT_PSS:
            cfg.pss = true;
            cfg.no_pss = false;
            break;
        case OPT_NO_CHILDREN:
            cfg.alone = true;
            break;
        case OPT_NO_PSS:
            cfg.no_pss = true;
            cfg.pss = false;
            break;
        case OPT_SHARED_ONCE:
            cfg.shared_once = true;
            break;
        case OPT_GPM:
            cfg.gpm = MON_GPM_ON;
            break;
        case OPT_NO_HEALTH:
            cfg.no_health = true;
            break;
        case OPT_NO_NVML:
            cfg.no_nvml = true;
            break;
        case OPT_PMON:
            cfg.pmon = true;
            break;
        case OPT_NO_GPM:
            cfg.gpm = MON_GPM_OFF;
            break;
        case OPT_GPU_SOURCE:
            if (!strcmp(optarg, "auto")) {
                cfg.gpu_source = NULL;
            } else if (mon_gpu_source_find(optarg) >= 0) {
                cfg.gpu_source = optarg;
            } else {
                char words[128] = "auto";
                for (int i = 0; i < MON_GPU_SOURCES; i++)
                    snprintf(words + strlen(words), sizeof words - strlen(words), "%s %s",
                             i == MON_GPU_SOURCES - 1 ? " or" : ",", mon_gpu_sources[i].option);
                hw_usage_error("invalid --gpu-source \"%s\": %s", optarg, words);
            }
            break;
        case OPT_GPUS: {
            struct mon_gpusel sel;
            if (mon_gpusel_resolve(optarg, NULL, &sel) < 0)
                hw_usage_error("invalid --gpus \"%s\": indexes or UUIDs separated by commas, "
                               "or all",
                               optarg);
            cfg.gpus = optarg;
            break;
        }
        case OPT_PROM:
            if (!*optarg)
                hw_usage_error("empty --prom-textfile path");
            cfg.prom_path = optarg;
            break;
        case OPT_PROM_INTERVAL:
            cfg.prom_interval_s =
                parse_seconds("prom-interval", optarg, mon_scaled(MON_PROM_INTERVAL_MIN_S), 3600);
            break;
        case OPT_LEAVE_RUNNING:
            cfg.leave_running = true;
            break;
        case 'q':
            cfg.quiet = true;
            break;
        case OPT_PROC_ROOT:
            cfg.proc_root = optarg;
            break;
        case OPT_LOCK_DIR:
            cfg.lock_dir = optarg;
            break;
        case OPT_SYS_ROOT:
            cfg.sys_root = optarg;
            break;
        case OPT_GRACE:
            cfg.grace_s = parse_seconds("kill-grace", optarg, 0, 600);
            cfg.grace_given = true;
            break;
        case 'h':
            usage();
            return hw_close_stdout(HW_EXIT_OK);
        case 'V':
            printf("hwmon (hwrun) %s\n", MON_VERSION);
            return hw_close_stdout(HW_EXIT_OK);
        default:
            fprintf(stderr, "Try 'hwmon --help' for more information.\n");
            return HW_EXIT_USAGE;
        }
    }
    if (optind < argc)
        cfg.command = argv + optind;
    if (bad_scale) {
        char shown[33]; /* its first bytes, printable ones only: it reaches a terminal */
        size_t n = 0;
        for (; bad_scale[n] && n < sizeof shown - 1; n++)
            shown[n] = bad_scale[n] > ' ' && bad_scale[n] < 127 ? bad_scale[n] : '?';
        shown[n] = '\0';
        hw_warn(0, "%s=\"%s%s\" ignored (test-only: a number from %g to 1); time is not scaled",
                MON_TIME_SCALE_ENV, shown, bad_scale[n] ? "..." : "", MON_TIME_SCALE_MIN);
    }
    if (!cfg.grace_given) /* a user's --kill-grace is never scaled */
        cfg.grace_s = mon_scaled(MON_GRACE_DEFAULT_S);
    if (cfg.command && cfg.attach_pid)
        hw_usage_error("-p and a COMMAND exclude each other");
    if (cfg.command && cfg.duration_s > 0)
        hw_usage_error("--duration is for system and -p modes; a COMMAND runs until it exits");
    if (cfg.shared_once && cfg.no_pss)
        hw_usage_error("--shared-once reads smaps with PSS: it excludes --no-pss");
    if (cfg.shared_once) /* read at every sample, as gpu_tracker reads it */
        cfg.pss = true;
    /* One process keeps 2-3 /proc files open: raise the soft limit for large trees. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    return mon_run(&cfg);
}
