/* fake_nvidia_smi: a stand-in for nvidia-smi in the tests (there is no GPU on the build machines).
 *
 * It prints what a 610.57.04 driver prints on N "NVIDIA H100 80GB HBM3" boards, in the exact
 * formats of the real captures in shared/nvsmi-real/ (see FORMATS.md there), with values that are
 * deterministic functions of the GPU index and the sample number, so tests can check numbers.
 * Every output line is one write(2) to stdout (no stdio buffering): a reader sees each line whole
 * as soon as it exists, and never half a line (except FAKE_SMI_DIE_AFTER's, on purpose).
 *
 * COMMANDS
 *   --query-gpu=F1,F2,... --format=csv[,noheader][,nounits] [-l [N] | -lms N] [-i IDS]
 *       One header line (unless noheader), then per interval one row per selected GPU in index
 *       order; no separator between intervals. Without -l/-lms: one interval, exit 0.
 *       -l N / --loop=N repeats every N seconds (-l not followed by a number: 5 s, as
 *       documented), -lms N / --loop-ms=N every N ms; it then runs until a signal.
 *       Cells are joined by ", "; the header shows each field's canonical name (even when an
 *       alias was asked for) plus " [unit]" where the field has a unit, also under nounits.
 *       Values carry " unit" unless nounits. The option value may also be the next argument
 *       (--query-gpu F1,F2). Spaces around field names are ignored.
 *       Fields (alias in parentheses, [unit]):
 *         timestamp, driver_version, kmd_version, count, name (gpu_name), serial (gpu_serial),
 *         uuid (gpu_uuid), pci.bus_id (gpu_bus_id), index, vbios_version, fan.speed [%],
 *         pstate, clocks_event_reasons.active (clocks_throttle_reasons.active),
 *         memory.total/.reserved/.used/.free [MiB], compute_cap, utilization.gpu/.memory/
 *         .encoder/.decoder/.jpeg/.ofa [%], temperature.gpu, temperature.memory,
 *         power.draw [W], power.draw.average (gpu.power.draw.average) [W],
 *         power.draw.instant (gpu.power.draw.instant) [W], power.limit
 *         (gpu.power.requested_limit) [W], enforced.power.limit (gpu.power.current_limit) [W],
 *         power.default_limit (gpu.power.default_limit) [W], clocks.current.graphics
 *         (clocks.gr), clocks.current.sm (clocks.sm), clocks.current.memory (clocks.mem),
 *         clocks.current.video (clocks.video), clocks.max.graphics (clocks.max.gr),
 *         clocks.max.sm, clocks.max.memory (clocks.max.mem) [MHz],
 *         clocks_event_reasons_counters.{sw_power_cap,sync_boost,sw_thermal_slowdown,
 *         hw_thermal_slowdown,hw_power_brake_slowdown} [us], ecc.errors.{corrected,uncorrected}
 *         .volatile.total, retired_pages.pending ([N/A], as on the H100), remapped_rows.pending
 *         and .failure (No), pcie.link.gen.current/.max (5), pcie.link.width.current/.max (16),
 *         temperature.gpu.tlimit (26).
 *       Any other name: stdout gets `Field "<name>" is not a valid field to query.` and an empty
 *       line, nothing else, exit 2 (as error_invalid-field_device_minor_stdout_exit2.txt).
 *   --query-compute-apps=F,... --format=... [-l N | -lms N] [-i IDS]
 *       Fields: timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name
 *       (name), used_gpu_memory (used_memory) [MiB]. Per interval one row per FAKE_SMI_APPS entry
 *       on a selected GPU, then per FAKE_SMI_APPS_FILE line (see pmon), GPUs in index order,
 *       then in FAKE_SMI_APPS and the file's order. No apps: the header alone (nothing with
 *       noheader), as in query-compute-apps_h100_drv590_idle-empty.csv.
 *   dmon [-s LETTERS] [--gpm-metrics IDS] [-d N] [-c COUNT] [-i IDS] [-o D|T|DT] [-f FILE]
 *       Modern (590+) layout: "# gpu " header line and "# Idx " units line, the gpu column 5
 *       wide and every other column right-aligned 6 wide, each column followed by one space (so
 *       every line ends in a space). The header pair is re-printed after every 44 data lines,
 *       so a block is 46 lines (counted in lines, not intervals: with a GPU count that does not
 *       divide 44 the header can land inside an interval; no capture shows that case).
 *       Column groups follow the order of the -s letters (default puc; a repeated letter is
 *       ignored):
 *         p pwr gtemp mtemp (W C C)           u sm mem enc dec jpg ofa (% % % % % %)
 *         c mclk pclk (MHz MHz)               v pviol tviol (% bool)
 *         m fb bar1 ccpm (MB MB MB)           e sbecc dbecc pci (errs errs errs)
 *         t rxpci txpci (MB/s MB/s)
 *       -d N: every N whole seconds (default 1); -c N: stop after N intervals (default: never);
 *       -o D / T / DT (or TD): prepend a YYYYMMDD and/or HH:MM:SS column (local time); the
 *       header lines then start "#Date       Time        gpu" / "#YYYYMMDD   HH:MM:SS    Idx"
 *       and data lines " 20240104   13:54:35      0" (dmon_s-mutc_o-TD_a10_ccpm-jpg-ofa.txt;
 *       the layout of -o D or -o T alone is extrapolated from it: "#Date         gpu ...");
 *       -f FILE: write to FILE (truncated) instead of stdout. Long forms --select, --delay,
 *       --count, --id, --options, --filename are accepted too.
 *       --gpm-metrics=IDS (or --gpm-metrics IDS): GPM columns after the -s columns, in the
 *       order given, each right-aligned 10 wide with no space between them (so such a line
 *       ends without a space), units "GPM:%" or "GPM:MiB/s"
 *       (dmon_gpm-metrics_h800-x8_drv570_trailing-ws-stripped.txt): 1 gract, 2 smutil,
 *       3 smocc, 4 intutil, 5 mmaact, 10 dram, 11 fp64, 12 fp32, 13 fp16 (GPM:%), 20 pcitx,
 *       21 pcirx, 60 nvlrx, 61 nvltx (GPM:MiB/s). Any other id: an invalid-value error.
 *   --version   the six lines of version_drv610.57.04.txt.
 *   --help-query-gpu  the fields below as the 590 driver's help lists them (FAKE_SMI_REJECT's
 *               left out).
 *   -L, --list-gpus   "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)" per selected GPU, and
 *       under a GPU in MIG mode (FAKE_SMI_MIG) its MIG devices as list-gpus_h200-mig_drv590.txt
 *       shows them: "  MIG 1g.10gb     Device  K: (UUID: MIG-...)". -i does not take a MIG
 *       UUID (the captures are silent on it; hwmon maps MIG devices to their GPU itself).
 *   -h, --help  a short usage text, exit 0.
 *   No arguments (the default summary table) is not implemented: a message on stderr, exit 255.
 *   Anything else: stdout gets "ERROR: Option <x> is not recognized. Please run 'nvidia-smi -h'
 *   for help." and an empty line, exit 255. An option without its value gives "ERROR: Option
 *   <x> is missing its value. ..." the same way; a bad number "ERROR: Option <x> has an invalid
 *   value <v>. ..." (this wording is the fake's own), also exit 255. A --query-* without
 *   --format, or --format without csv, gives "ERROR: Option --format=csv is missing. ..."
 *   (also the fake's own wording), exit 255.
 *   -i IDS (all commands): comma-separated GPU indexes, PCI bus ids (case-insensitive, also
 *   without the domain) or UUIDs. Output stays in index order. An id that matches no GPU, or
 *   FAKE_SMI_GPUS=0, prints "No devices were found" and exits 6.
 *
 * GPUS AND VALUES
 *   FAKE_SMI_GPUS=N (default 2, 0..16, larger is clamped to 16). GPU g (0-based):
 *     name NVIDIA H100 80GB HBM3, uuid GPU-5e7c1dGG-3a9b-4f2e-8d61-0c4b2a9f70GG (GG = g as two
 *     lowercase hex digits), pci.bus_id 00000000:GG:00.0 (GG = g, two uppercase hex digits),
 *     serial 13240230000GG (GG = g in decimal, 2 digits), driver_version and kmd_version
 *     610.57.04, vbios_version 96.00.A5.00.01, compute_cap 9.0, count = N.
 *   Sample k (0-based: the k-th interval of this process, the same k for every GPU/app in it):
 *     utilization.gpu    = (7k + 31g) % 101           utilization.memory = (3k + 11g) % 101
 *     memory.total       = 81559                      memory.reserved    = 479
 *     memory.used        = min(1000 + 100k + 10g, 81559)
 *     memory.free        = memory.total - memory.used
 *     power.draw         = 100 + 1.25k + g, printed %.2f (also .average and .instant)
 *     power.limit        = 700.00 (also enforced.power.limit and power.default_limit)
 *     temperature.gpu    = 40 + (k + g) % 30          temperature.memory = 50
 *     clocks.current.sm = clocks.current.graphics = clocks.max.sm/.graphics = 1980,
 *     clocks.current.memory = clocks.max.memory = 2619, clocks.current.video = 1545
 *     utilization.encoder/.decoder/.jpeg/.ofa = 0, pstate P0,
 *     clocks_event_reasons.active 0x0000000000000000, fan.speed [N/A] (datacenter board).
 *   FAKE_SMI_HEALTH_FILE=PATH, FAKE_SMI_HEALTH_GPU=g, FAKE_SMI_HEALTH_MASK=0x4 (NVML's reason
 *     bits), FAKE_SMI_HEALTH_ECC=n, FAKE_SMI_HEALTH_PCIE=gen:width: at each interval that finds
 *     PATH, GPU g has those reasons active (clocks_event_reasons.active), their counters grow by
 *     the time since the previous interval (if it found PATH too), its SM clock is 1410 MHz when a
 *     power or thermal bit is set, its link runs at gen x width; from the first such interval
 *     on, ecc.errors.uncorrected.volatile.total is n. Each nvidia-smi process looks by itself.
 *   All rows of one interval share one timestamp "YYYY/MM/DD HH:MM:SS.mmm" in local time
 *   (localtime_r: TZ is honoured).
 *   dmon, same k and g: sm = utilization.gpu, mem = utilization.memory, fb = memory.used,
 *   pwr = power.draw rounded half up, gtemp = temperature.gpu, mclk 2619, pclk 1980, mtemp
 *   always "-" (as on GeForce/L40S), every other column 0.
 *   GPM (integer division): gract = sm, smutil = sm / 2, smocc = sm / 4, mmaact = sm / 8,
 *   dram = mem / 2, fp32 = sm / 3, fp16 = sm / 5, every other GPM column 0.
 *   Compute apps: FAKE_SMI_APPS=pid:gpu:mib[:name],... (name defaults to python3 and runs to
 *   the next comma, so it may contain ':' and spaces). used_gpu_memory = mib. Entries whose gpu
 *   is >= N are ignored. At most 64 entries. FAKE_SMI_APPS_FILE=PATH: more of them, one
 *   pid:gpu:mib[:name] per line, read again at every interval of --query-compute-apps and pmon
 *   (a test's job adds its own pids while it runs); at most 64 lines.
 *
 * ENVIRONMENT CONTROLS (all optional)
 *   FAKE_SMI_MODE=ok|nodriver|mismatch  nodriver: the one-line "NVIDIA-SMI has failed because it
 *       couldn't communicate with the NVIDIA driver. ..." message, exit 9; mismatch: "Failed to
 *       initialize NVML: Driver/library version mismatch", exit 18. Both on stdout, for every
 *       command (also --version), before the arguments are looked at.
 *   FAKE_SMI_REJECT=f1,f2   these query fields (by the name asked for or its canonical name)
 *       are unknown, as on an older driver: the invalid-field error above.
 *   FAKE_SMI_NA=f1,f2 and FAKE_SMI_NA_TOKEN (default "[N/A]", may be empty): these query fields
 *       (asked-for or canonical name) print the token instead of a value, with no unit; the
 *       token is printed as is under nounits too.
 *   FAKE_SMI_NA_DMON=col1,col2   these dmon columns print "-" (mtemp always does).
 *   FAKE_SMI_MIG=g:n,...    GPU g is in MIG mode with n MIG devices (UUIDs
 *       MIG-5e7c1dGG-0000-4000-8000-0000000000KK, GG the GPU and KK the device, in hex).
 *   FAKE_SMI_GPM=all|none|g1,g2   which GPUs have GPM (default all). none: a driver that
 *       predates GPM, so --gpm-metrics is an unrecognized option; a list of GPU indexes: the
 *       other GPUs print "-" in every GPM column (GPU 0 in the H800 capture).
 *   FAKE_SMI_DIE_AFTER=K    after K data rows (rows of --query-gpu, --query-compute-apps and
 *       dmon; header lines do not count; K=0: the first row), write the first half of the
 *       next row, without newline, and exit 1.
 *   FAKE_SMI_DIE_ONCE=PATH  with DIE_AFTER: die only if PATH can be created (O_EXCL), so a
 *       restarted fake finds it and runs normally.
 *   FAKE_SMI_HANG_AFTER=K   after K data rows stop writing but stay alive; signals act as
 *       usual (SIGTERM exits 0 unless FAKE_SMI_IGNORE_TERM).
 *   FAKE_SMI_IGNORE_TERM=1  ignore SIGTERM and SIGINT: only SIGKILL stops it.
 *   FAKE_SMI_SPEED=N  (1..1000, default 1) the fake's clock runs N times as fast: every loop
 *       (-l, -lms, dmon's and pmon's -d) prints its intervals N times as often, and the health
 *       counters grow by N times the real time between two intervals (so 0.2 real seconds of
 *       throttling at N=5 count one second, as the throttling the test meant). Timestamps stay
 *       the real time a row is printed: hwmon lines rows up by when it reads them. For tests
 *       that wait for a number of intervals, not for seconds (dmon's whole-second -d).
 *   FAKE_SMI_START_DELAY_MS=N  every invocation takes N ms before it does anything (a busy
 *       node's nvidia-smi, or one without persistence mode, takes a second or more to start).
 *   FAKE_SMI_FAULT=g:reset|lost and FAKE_SMI_FAULT_FILE=PATH (optional: without it, from the
 *       start): at each interval of --query-gpu that finds PATH, GPU g is faulted.
 *       reset: its row prints "[GPU requires reset]" in every field but timestamp, name, index,
 *       uuid, pci.bus_id, serial, count, driver and vbios versions, and memory.used reads 0 MiB
 *       (query-gpu_h100_GPU-requires-reset.csv). lost: stderr gets "Unable to determine the
 *       device handle for GPU 0000:GG:00.0: GPU is lost.  Reboot the system to recover this
 *       GPU" and it exits 15 (the man page's "GPU fell off the bus"); no capture shows a loop
 *       meeting a lost GPU, nor which stream the message takes there (it is seen on terminals
 *       only): both are the fake's choice, and the message form is the one seen (two spaces
 *       included).
 *   FAKE_SMI_LOG=PATH       on start, append "<pid> <argv[0]> <argv[1]> ...\n" to PATH with one
 *       O_APPEND write (count starts and restarts with it).
 *
 * SIGNALS, TIMING, EXIT
 *   SIGTERM/SIGINT: exit 0 at once (unless FAKE_SMI_IGNORE_TERM). Both are unblocked at start.
 *   SIGPIPE is ignored; a failed write to stdout (EPIPE included) ends the process with exit 1
 *   (a message on stderr unless it was EPIPE). Loops run on absolute deadlines of
 *   CLOCK_MONOTONIC (start + k * period / FAKE_SMI_SPEED); the first interval is printed at once.
 *   Exit codes: 0 ok, 1 write failure or FAKE_SMI_DIE_AFTER, 2 invalid field, 6 no device,
 *   9 nodriver, 15 a lost GPU (FAKE_SMI_FAULT), 18 mismatch, 255 usage error or a malformed FAKE_SMI_* variable (message on
 *   stderr for the latter).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MAX_GPUS 16
#define DEFAULT_GPUS 2
#define MAX_APPS 64
#define DMON_BLOCK_ROWS 44 /* data lines between two dmon header pairs */
#define GPU_NAME "NVIDIA H100 80GB HBM3"
#define DRIVER_VERSION "610.57.04"
#define MEM_TOTAL_MIB 81559
#define EXIT_USAGE 255

/* ------------------------------------------------------------------------------------------ */
/* Output: whole lines, one write(2) each.                                                      */

/* A growable, NUL-terminated line. */
struct line {
    char *p;
    size_t len, cap;
};

static void die_errno(const char *what)
{
    fprintf(stderr, "fake_nvidia_smi: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void line_addf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_addf(struct line *l, const char *fmt, ...)
{
    for (;;) {
        size_t room = l->cap - l->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(l->p ? l->p + l->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            die_errno("vsnprintf");
        if ((size_t)n < room) {
            l->len += (size_t)n;
            return;
        }
        size_t cap = l->cap ? l->cap * 2 : 256;
        while (cap < l->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(l->p, cap);
        if (!p)
            die_errno("realloc");
        l->p = p;
        l->cap = cap;
    }
}

static void line_adds(struct line *l, const char *s)
{
    line_addf(l, "%s", s);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EPIPE)
                fprintf(stderr, "fake_nvidia_smi: write: %s\n", strerror(errno));
            _exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Terminate the line, write it to stdout in one write(2) and empty it for reuse. */
static void out_line(struct line *l)
{
    line_adds(l, "\n");
    write_all(STDOUT_FILENO, l->p, l->len);
    l->len = 0;
    l->p[0] = '\0';
}

/* A message of nvidia-smi's own (on stdout, like the real one), then exit. */
static _Noreturn void smi_exit(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static _Noreturn void smi_exit(int status, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        write_all(STDOUT_FILENO, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    exit(status);
}

#define SMI_HELP_HINT " Please run 'nvidia-smi -h' for help.\n\n"

static _Noreturn void die_unrecognized(const char *opt)
{
    smi_exit(EXIT_USAGE, "ERROR: Option %s is not recognized." SMI_HELP_HINT, opt);
}

static _Noreturn void die_missing_value(const char *opt)
{
    smi_exit(EXIT_USAGE, "ERROR: Option %s is missing its value." SMI_HELP_HINT, opt);
}

static _Noreturn void die_invalid_value(const char *opt, const char *val)
{
    smi_exit(EXIT_USAGE, "ERROR: Option %s has an invalid value %s." SMI_HELP_HINT, opt, val);
}

static _Noreturn void die_no_devices(void)
{
    smi_exit(6, "No devices were found\n");
}

/* A mistake in a FAKE_SMI_* variable: the test is wrong, so say so on stderr. */
static _Noreturn void die_env(const char *var, const char *val)
{
    fprintf(stderr, "fake_nvidia_smi: bad %s=%s\n", var, val);
    exit(EXIT_USAGE);
}

/* ------------------------------------------------------------------------------------------ */
/* Configuration from the environment.                                                          */

struct app {
    long long pid;
    int gpu;
    long long mib;
    const char *name;
};

static struct {
    int ngpus;
    long long die_after, hang_after; /* -1: never */
    const char *die_once;
    const char *reject, *na, *na_token, *na_dmon; /* comma-separated lists, or NULL */
    const char *gpm; /* FAKE_SMI_GPM: NULL/"all", "none", or GPU indexes */
    /* FAKE_SMI_HEALTH_*: while the file exists, GPU health_gpu has these clock event reasons
     * (and their counters run), its PCIe link at health_gen x health_width (0: unchanged); from
     * the first sample that sees it, health_ecc more uncorrected ECC errors */
    const char *health_file;
    int health_gpu;
    unsigned long long health_mask;
    long long health_ecc, health_gen, health_width;
    struct app apps[MAX_APPS];
    int napps;
    int fault_gpu; /* FAKE_SMI_FAULT: -1 none */
    bool fault_lost;
    const char *fault_file;
    long long speed; /* FAKE_SMI_SPEED: the fake's seconds pass this many times faster */
} cfg = {.speed = 1};

static long long rows_written; /* data rows written so far, all commands */

/* Is name one of the comma-separated items of list (spaces around items ignored)? */
static bool list_has(const char *list, const char *name)
{
    if (!list || !name)
        return false;
    size_t nlen = strlen(name);
    const char *p = list;
    for (;;) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if (len == nlen && memcmp(p, name, len) == 0)
            return true;
        if (!end)
            return false;
        p = end + 1;
    }
}

/* Parse a decimal integer in [min, max]; false if s is not exactly that. */
static bool parse_ll(const char *s, long long min, long long max, long long *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static long long env_count(const char *var)
{
    const char *s = getenv(var);
    long long v;
    if (!s || !*s)
        return -1;
    if (!parse_ll(s, 0, 1000000000000LL, &v))
        die_env(var, s);
    return v;
}

/* FAKE_SMI_APPS=pid:gpu:mib[:name],... */
static void parse_apps(const char *spec)
{
    static char *copy; /* the app names point into it for the whole run */
    copy = strdup(spec);
    if (!copy)
        die_errno("strdup");
    char *rest = copy, *item;
    while ((item = strsep(&rest, ",")) != NULL) {
        if (!*item)
            continue;
        if (cfg.napps == MAX_APPS)
            die_env("FAKE_SMI_APPS", spec);
        struct app *a = &cfg.apps[cfg.napps++];
        char *parts[3];
        for (int i = 0; i < 3; i++)
            parts[i] = strsep(&item, ":");
        long long gpu;
        if (!parts[2] || !parse_ll(parts[0], 1, 4194304, &a->pid) ||
            !parse_ll(parts[1], 0, 1000000, &gpu) || !parse_ll(parts[2], 0, 1000000000, &a->mib))
            die_env("FAKE_SMI_APPS", spec);
        a->gpu = (int)gpu;
        a->name = item ? item : "python3"; /* the rest, colons and all */
    }
}

static void load_config(void)
{
    const char *s = getenv("FAKE_SMI_GPUS");
    long long n = DEFAULT_GPUS;
    if (s && *s && !parse_ll(s, 0, 1000000, &n))
        die_env("FAKE_SMI_GPUS", s);
    cfg.ngpus = n > MAX_GPUS ? MAX_GPUS : (int)n;

    cfg.die_after = env_count("FAKE_SMI_DIE_AFTER");
    cfg.hang_after = env_count("FAKE_SMI_HANG_AFTER");
    const char *sp = getenv("FAKE_SMI_SPEED");
    if (sp && *sp && !parse_ll(sp, 1, 1000, &cfg.speed))
        die_env("FAKE_SMI_SPEED", sp);
    cfg.die_once = getenv("FAKE_SMI_DIE_ONCE");
    cfg.reject = getenv("FAKE_SMI_REJECT");
    cfg.na = getenv("FAKE_SMI_NA");
    cfg.na_token = getenv("FAKE_SMI_NA_TOKEN");
    if (!cfg.na_token)
        cfg.na_token = "[N/A]";
    cfg.na_dmon = getenv("FAKE_SMI_NA_DMON");
    cfg.gpm = getenv("FAKE_SMI_GPM");
    cfg.health_file = getenv("FAKE_SMI_HEALTH_FILE");
    cfg.health_gpu = (int)env_count("FAKE_SMI_HEALTH_GPU");
    const char *hm = getenv("FAKE_SMI_HEALTH_MASK");
    if (hm && *hm) {
        char *end;
        errno = 0;
        cfg.health_mask = strtoull(hm, &end, 0);
        if (errno || *end)
            die_env("FAKE_SMI_HEALTH_MASK", hm);
    }
    cfg.health_ecc = env_count("FAKE_SMI_HEALTH_ECC");
    const char *hp = getenv("FAKE_SMI_HEALTH_PCIE");
    if (hp && *hp && sscanf(hp, "%lld:%lld", &cfg.health_gen, &cfg.health_width) != 2)
        die_env("FAKE_SMI_HEALTH_PCIE", hp);
    s = getenv("FAKE_SMI_APPS");
    if (s)
        parse_apps(s);
    cfg.fault_gpu = -1;
    s = getenv("FAKE_SMI_FAULT");
    if (s && *s) {
        char kind[16];
        if (sscanf(s, "%d:%15s", &cfg.fault_gpu, kind) != 2 || cfg.fault_gpu < 0 ||
            (strcmp(kind, "reset") && strcmp(kind, "lost")))
            die_env("FAKE_SMI_FAULT", s);
        cfg.fault_lost = !strcmp(kind, "lost");
    }
    cfg.fault_file = getenv("FAKE_SMI_FAULT_FILE");
}

/* Is GPU g faulted now (FAKE_SMI_FAULT)? */
static bool faulted(int g)
{
    return g == cfg.fault_gpu && (!cfg.fault_file || access(cfg.fault_file, F_OK) == 0);
}

/* FAKE_SMI_LOG: one line per start, one O_APPEND write. */
static void log_start(int argc, char **argv)
{
    const char *path = getenv("FAKE_SMI_LOG");
    if (!path || !*path)
        return;
    struct line l = {0};
    line_addf(&l, "%ld", (long)getpid());
    for (int i = 0; i < argc; i++)
        line_addf(&l, " %s", argv[i]);
    line_adds(&l, "\n");
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        die_errno(path);
    write_all(fd, l.p, l.len);
    close(fd);
    free(l.p);
}

static void check_mode(void)
{
    const char *mode = getenv("FAKE_SMI_MODE");
    if (!mode || !*mode || strcmp(mode, "ok") == 0)
        return;
    if (strcmp(mode, "nodriver") == 0)
        smi_exit(9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                    "driver. Make sure that the latest NVIDIA driver is installed and running.\n");
    if (strcmp(mode, "mismatch") == 0)
        smi_exit(18, "Failed to initialize NVML: Driver/library version mismatch\n");
    die_env("FAKE_SMI_MODE", mode);
}

static void on_term(int sig)
{
    (void)sig;
    _exit(0);
}

static void setup_signals(void)
{
    const char *ign = getenv("FAKE_SMI_IGNORE_TERM");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = ign && strcmp(ign, "1") == 0 ? SIG_IGN : on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* EPIPE from write() ends us instead */

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* A data row: the place where FAKE_SMI_DIE_AFTER and FAKE_SMI_HANG_AFTER strike. */
static void out_row(struct line *l)
{
    if (cfg.die_after >= 0 && rows_written == cfg.die_after) {
        bool die = true;
        if (cfg.die_once) {
            int fd = open(cfg.die_once, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            die = fd >= 0; /* it existed already (or cannot be made): a restarted run lives */
            if (fd >= 0)
                close(fd);
        }
        if (die) {
            write_all(STDOUT_FILENO, l->p, l->len / 2);
            _exit(1);
        }
    }
    if (cfg.hang_after >= 0 && rows_written == cfg.hang_after)
        for (;;)
            pause();
    rows_written++;
    out_line(l);
}

/* ------------------------------------------------------------------------------------------ */
/* GPUs, samples and their values.                                                              */

static bool selected[MAX_GPUS];

static void gpu_uuid(int g, char *buf, size_t n)
{
    snprintf(buf, n, "GPU-5e7c1d%02x-3a9b-4f2e-8d61-0c4b2a9f70%02x", (unsigned)g, (unsigned)g);
}

static void gpu_bus_id(int g, char *buf, size_t n)
{
    snprintf(buf, n, "00000000:%02X:00.0", (unsigned)g);
}

/* Does id name GPU g? An index, a UUID or a PCI bus id: "00000000:0G:00.0", "0000:0G:00.0" or
 * "0G:00.0" (any case; every fake GPU is in domain 0). */
static bool id_matches(const char *id, int g)
{
    char buf[64];
    long long idx;
    if (parse_ll(id, 0, MAX_GPUS, &idx))
        return idx == g;
    gpu_uuid(g, buf, sizeof buf);
    if (strcasecmp(id, buf) == 0)
        return true;
    const char *colon = strchr(id, ':');
    if (colon && strchr(colon + 1, ':')) { /* a domain: it must be all zeros */
        if (strspn(id, "0") != (size_t)(colon - id))
            return false;
        id = colon + 1;
    }
    gpu_bus_id(g, buf, sizeof buf);
    return strcasecmp(strchr(buf, ':') + 1, id) == 0;
}

/* -i IDS, or every GPU. */
static void select_gpus(const char *ids)
{
    if (cfg.ngpus == 0)
        die_no_devices();
    for (int g = 0; g < cfg.ngpus; g++)
        selected[g] = ids == NULL;
    if (!ids)
        return;
    char *copy = strdup(ids);
    if (!copy)
        die_errno("strdup");
    char *rest = copy, *id;
    while ((id = strsep(&rest, ",")) != NULL) {
        bool found = false;
        for (int g = 0; g < cfg.ngpus; g++) {
            if (id_matches(id, g))
                selected[g] = found = true;
        }
        if (!found)
            die_no_devices();
    }
    free(copy);
}

struct sample {
    long long k;           /* interval number within this process, from 0 */
    int g;                 /* GPU index */
    const char *ts;        /* the interval's timestamp, YYYY/MM/DD HH:MM:SS.mmm */
    const struct app *app; /* the process, for compute-apps rows */
};

static long long util_gpu(const struct sample *s)
{
    return (7 * s->k + 31 * s->g) % 101;
}

static long long util_mem(const struct sample *s)
{
    return (3 * s->k + 11 * s->g) % 101;
}

static long long mem_used(const struct sample *s)
{
    long long v = 1000 + 100 * s->k + 10 * s->g;
    return v > MEM_TOTAL_MIB ? MEM_TOTAL_MIB : v;
}

static long long power_cw(const struct sample *s) /* centiwatts: exact 2-decimal output */
{
    return 10000 + 125 * s->k + 100 * s->g;
}

static long long power_rounded(const struct sample *s)
{
    return (power_cw(s) + 50) / 100;
}

static long long temp_gpu(const struct sample *s)
{
    return 40 + (s->k + s->g) % 30;
}

static long long zero(const struct sample *s)
{
    (void)s;
    return 0;
}

static long long clock_sm(const struct sample *s)
{
    (void)s;
    return 1980;
}

static long long clock_mem(const struct sample *s)
{
    (void)s;
    return 2619;
}

/* The health trigger, looked at once per interval of this process (k) and per GPU: is the GPU
 * in its event now, has it been, and the counters (us) of the reasons it has had. */
static struct {
    long long k;
    bool now[16], seen[16];
    long long counter_us[16][8]; /* per reason bit 0..7 */
    double last_t[16];
} hstate = {.k = -1};

static void health_at(const struct sample *s)
{
    if (hstate.k == s->k || s->g >= 16)
        return;
    if (s->g == 0 || hstate.k != s->k) { /* a new interval: every GPU anew */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        double now = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
        for (int g = 0; g < 16; g++) {
            bool on = cfg.health_file && g == cfg.health_gpu && access(cfg.health_file, F_OK) == 0;
            if (on && hstate.now[g] && hstate.last_t[g] > 0) /* counted as the hardware does */
                for (int b = 0; b < 8; b++)
                    if (cfg.health_mask & (1ull << b))
                        hstate.counter_us[g][b] +=
                            (long long)((now - hstate.last_t[g]) * 1e6 * (double)cfg.speed);
            hstate.now[g] = on;
            hstate.seen[g] |= on;
            hstate.last_t[g] = now;
        }
        hstate.k = s->k;
    }
}

static bool v_reasons(struct line *o, const struct sample *s)
{
    health_at(s);
    unsigned long long m = s->g < 16 && hstate.now[s->g] ? cfg.health_mask : 0;
    line_addf(o, "0x%016llX", m);
    return true;
}

static bool counter(struct line *o, const struct sample *s, int bit)
{
    health_at(s);
    line_addf(o, "%lld", s->g < 16 ? hstate.counter_us[s->g][bit] : 0);
    return true;
}
static bool v_cnt_power(struct line *o, const struct sample *s) { return counter(o, s, 2); }
static bool v_cnt_sync(struct line *o, const struct sample *s) { return counter(o, s, 4); }
static bool v_cnt_sw_thermal(struct line *o, const struct sample *s) { return counter(o, s, 5); }
static bool v_cnt_hw_thermal(struct line *o, const struct sample *s) { return counter(o, s, 6); }
static bool v_cnt_brake(struct line *o, const struct sample *s) { return counter(o, s, 7); }

static bool v_ecc_uncorrected(struct line *o, const struct sample *s)
{
    health_at(s);
    bool add = s->g < 16 && hstate.seen[s->g] && cfg.health_ecc > 0;
    line_addf(o, "%lld", add ? cfg.health_ecc : 0);
    return true;
}

static bool v_pcie(struct line *o, const struct sample *s, long long normal, long long down)
{
    health_at(s);
    line_addf(o, "%lld", s->g < 16 && hstate.now[s->g] && down > 0 ? down : normal);
    return true;
}
static bool v_pcie_gen(struct line *o, const struct sample *s) { return v_pcie(o, s, 5, cfg.health_gen); }
static bool v_pcie_width(struct line *o, const struct sample *s) { return v_pcie(o, s, 16, cfg.health_width); }

/* The SM clock drops while its clocks are capped (power or thermal bits). */
static long long clock_sm_now(const struct sample *s)
{
    health_at(s);
    bool capped = s->g < 16 && hstate.now[s->g] && (cfg.health_mask & 0xECull);
    return capped ? 1410 : clock_sm(s);
}

/* ------------------------------------------------------------------------------------------ */
/* --query-gpu and --query-compute-apps                                                         */

/* Appends a field's value; returns false when it printed a placeholder (no unit follows). */
typedef bool (*value_fn)(struct line *out, const struct sample *s);

struct field {
    const char *name;  /* canonical: what the header shows */
    const char *alias; /* also accepted, or NULL */
    const char *unit;  /* header " [unit]", value " unit"; NULL for none */
    value_fn value;
};

#define NUMBER_FN(fn, expr)                                                                        \
    static bool fn(struct line *o, const struct sample *s)                                         \
    {                                                                                              \
        (void)s;                                                                                   \
        line_addf(o, "%lld", (long long)(expr));                                                   \
        return true;                                                                               \
    }
#define TEXT_FN(fn, text)                                                                          \
    static bool fn(struct line *o, const struct sample *s)                                         \
    {                                                                                              \
        (void)s;                                                                                   \
        line_adds(o, text);                                                                        \
        return true;                                                                               \
    }

NUMBER_FN(v_index, s->g)
NUMBER_FN(v_count, cfg.ngpus)
NUMBER_FN(v_util_gpu, util_gpu(s))
NUMBER_FN(v_util_mem, util_mem(s))
NUMBER_FN(v_zero, zero(s))
NUMBER_FN(v_mem_total, MEM_TOTAL_MIB)
NUMBER_FN(v_mem_reserved, 479)
NUMBER_FN(v_mem_used, mem_used(s))
NUMBER_FN(v_mem_free, MEM_TOTAL_MIB - mem_used(s))
NUMBER_FN(v_temp_gpu, temp_gpu(s))
NUMBER_FN(v_temp_mem, 50)
NUMBER_FN(v_clock_sm, clock_sm_now(s))
NUMBER_FN(v_clock_sm_max, clock_sm(s))
NUMBER_FN(v_tlimit, 26) /* the H100 capture's "GPU T.Limit Temp: 26 C" */
NUMBER_FN(v_clock_mem, clock_mem(s))
NUMBER_FN(v_clock_video, 1545)
NUMBER_FN(v_pid, s->app->pid)
NUMBER_FN(v_used_gpu_memory, s->app->mib)
TEXT_FN(v_driver, DRIVER_VERSION)
TEXT_FN(v_name, GPU_NAME)
TEXT_FN(v_vbios, "96.00.A5.00.01")
TEXT_FN(v_pstate, "P0")
TEXT_FN(v_no, "No")
TEXT_FN(v_compute_cap, "9.0")
TEXT_FN(v_zero_text, "0")
TEXT_FN(v_five, "5")
TEXT_FN(v_sixteen, "16")

static bool v_timestamp(struct line *o, const struct sample *s)
{
    line_adds(o, s->ts);
    return true;
}

static bool v_serial(struct line *o, const struct sample *s)
{
    line_addf(o, "13240230000%02d", s->g);
    return true;
}

static bool v_uuid(struct line *o, const struct sample *s)
{
    char buf[64];
    gpu_uuid(s->g, buf, sizeof buf);
    line_adds(o, buf);
    return true;
}

static bool v_bus_id(struct line *o, const struct sample *s)
{
    char buf[32];
    gpu_bus_id(s->g, buf, sizeof buf);
    line_adds(o, buf);
    return true;
}

static bool v_not_available(struct line *o, const struct sample *s)
{
    (void)s;
    line_adds(o, "[N/A]");
    return false;
}

static bool v_power_draw(struct line *o, const struct sample *s)
{
    long long cw = power_cw(s);
    line_addf(o, "%lld.%02lld", cw / 100, cw % 100);
    return true;
}

static bool v_power_limit(struct line *o, const struct sample *s)
{
    (void)s;
    line_adds(o, "700.00");
    return true;
}

static bool v_process_name(struct line *o, const struct sample *s)
{
    line_adds(o, s->app->name);
    return true;
}

static const struct field gpu_fields[] = {
    {"timestamp", NULL, NULL, v_timestamp},
    {"driver_version", NULL, NULL, v_driver},
    {"kmd_version", NULL, NULL, v_driver},
    {"count", NULL, NULL, v_count},
    {"name", "gpu_name", NULL, v_name},
    {"serial", "gpu_serial", NULL, v_serial},
    {"uuid", "gpu_uuid", NULL, v_uuid},
    {"pci.bus_id", "gpu_bus_id", NULL, v_bus_id},
    {"index", NULL, NULL, v_index},
    {"vbios_version", NULL, NULL, v_vbios},
    {"fan.speed", NULL, "%", v_not_available},
    {"pstate", NULL, NULL, v_pstate},
    {"clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL, v_reasons},
    {"clocks_event_reasons_counters.sw_power_cap", NULL, "us", v_cnt_power},
    {"clocks_event_reasons_counters.sync_boost", NULL, "us", v_cnt_sync},
    {"clocks_event_reasons_counters.sw_thermal_slowdown", NULL, "us", v_cnt_sw_thermal},
    {"clocks_event_reasons_counters.hw_thermal_slowdown", NULL, "us", v_cnt_hw_thermal},
    {"clocks_event_reasons_counters.hw_power_brake_slowdown", NULL, "us", v_cnt_brake},
    {"ecc.errors.corrected.volatile.total", NULL, NULL, v_zero_text},
    {"ecc.errors.uncorrected.volatile.total", NULL, NULL, v_ecc_uncorrected},
    {"retired_pages.pending", NULL, NULL, v_not_available},
    {"remapped_rows.pending", NULL, NULL, v_no},
    {"remapped_rows.failure", NULL, NULL, v_no},
    {"pcie.link.gen.current", NULL, NULL, v_pcie_gen},
    {"pcie.link.gen.max", NULL, NULL, v_five},
    {"pcie.link.width.current", NULL, NULL, v_pcie_width},
    {"pcie.link.width.max", NULL, NULL, v_sixteen},
    {"temperature.gpu.tlimit", NULL, NULL, v_tlimit},
    {"memory.total", NULL, "MiB", v_mem_total},
    {"memory.reserved", NULL, "MiB", v_mem_reserved},
    {"memory.used", NULL, "MiB", v_mem_used},
    {"memory.free", NULL, "MiB", v_mem_free},
    {"compute_cap", NULL, NULL, v_compute_cap},
    {"utilization.gpu", NULL, "%", v_util_gpu},
    {"utilization.memory", NULL, "%", v_util_mem},
    {"utilization.encoder", NULL, "%", v_zero},
    {"utilization.decoder", NULL, "%", v_zero},
    {"utilization.jpeg", NULL, "%", v_zero},
    {"utilization.ofa", NULL, "%", v_zero},
    {"temperature.gpu", NULL, NULL, v_temp_gpu},
    {"temperature.memory", NULL, NULL, v_temp_mem},
    {"power.draw", NULL, "W", v_power_draw},
    {"power.draw.average", "gpu.power.draw.average", "W", v_power_draw},
    {"power.draw.instant", "gpu.power.draw.instant", "W", v_power_draw},
    {"power.limit", "gpu.power.requested_limit", "W", v_power_limit},
    {"enforced.power.limit", "gpu.power.current_limit", "W", v_power_limit},
    {"power.default_limit", "gpu.power.default_limit", "W", v_power_limit},
    {"clocks.current.graphics", "clocks.gr", "MHz", v_clock_sm},
    {"clocks.current.sm", "clocks.sm", "MHz", v_clock_sm},
    {"clocks.current.memory", "clocks.mem", "MHz", v_clock_mem},
    {"clocks.current.video", "clocks.video", "MHz", v_clock_video},
    {"clocks.max.graphics", "clocks.max.gr", "MHz", v_clock_sm_max},
    {"clocks.max.sm", NULL, "MHz", v_clock_sm_max},
    {"clocks.max.memory", "clocks.max.mem", "MHz", v_clock_mem},
    {NULL, NULL, NULL, NULL},
};

static const struct field app_fields[] = {
    {"timestamp", NULL, NULL, v_timestamp},
    {"gpu_name", NULL, NULL, v_name},
    {"gpu_bus_id", NULL, NULL, v_bus_id},
    {"gpu_serial", NULL, NULL, v_serial},
    {"gpu_uuid", NULL, NULL, v_uuid},
    {"pid", NULL, NULL, v_pid},
    {"process_name", "name", NULL, v_process_name},
    {"used_gpu_memory", "used_memory", "MiB", v_used_gpu_memory},
    {NULL, NULL, NULL, NULL},
};

struct query {
    bool apps; /* --query-compute-apps rather than --query-gpu */
    const struct field **fields;
    bool *na; /* per field: print FAKE_SMI_NA_TOKEN */
    int nfields;
    bool noheader, nounits;
    struct line buf;
};

static const struct field *find_field(const struct field *table, const char *name)
{
    for (const struct field *f = table; f->name; f++)
        if (strcmp(name, f->name) == 0 || (f->alias && strcmp(name, f->alias) == 0))
            return f;
    return NULL;
}

/* Resolve the comma-separated field list; an unknown (or rejected) one ends the program. */
static void parse_fields(struct query *q, const char *list)
{
    char *copy = strdup(list);
    size_t max = 1;
    for (const char *p = list; *p; p++)
        max += *p == ',';
    q->fields = calloc(max, sizeof *q->fields);
    q->na = calloc(max, sizeof *q->na);
    if (!copy || !q->fields || !q->na)
        die_errno("calloc");
    char *rest = copy, *name;
    while ((name = strsep(&rest, ",")) != NULL) {
        while (*name == ' ')
            name++;
        size_t len = strlen(name);
        while (len > 0 && name[len - 1] == ' ')
            name[--len] = '\0';
        if (!*name)
            continue;
        const struct field *f = find_field(q->apps ? app_fields : gpu_fields, name);
        if (!f || list_has(cfg.reject, name) || list_has(cfg.reject, f->name))
            smi_exit(2, "Field \"%s\" is not a valid field to query.\n\n", name);
        q->na[q->nfields] = list_has(cfg.na, name) || list_has(cfg.na, f->name);
        q->fields[q->nfields++] = f;
    }
    free(copy);
    if (q->nfields == 0)
        die_missing_value(q->apps ? "--query-compute-apps" : "--query-gpu");
}

/* --format=csv[,noheader][,nounits] */
static void parse_format(struct query *q, const char *spec, bool *csv)
{
    char *copy = strdup(spec);
    if (!copy)
        die_errno("strdup");
    char *rest = copy, *tok;
    while ((tok = strsep(&rest, ",")) != NULL) {
        if (strcmp(tok, "csv") == 0)
            *csv = true;
        else if (strcmp(tok, "noheader") == 0)
            q->noheader = true;
        else if (strcmp(tok, "nounits") == 0)
            q->nounits = true;
        else
            die_unrecognized(tok);
    }
    free(copy);
}

static void query_header(struct query *q)
{
    for (int i = 0; i < q->nfields; i++) {
        const struct field *f = q->fields[i];
        line_addf(&q->buf, "%s%s", i ? ", " : "", f->name);
        if (f->unit)
            line_addf(&q->buf, " [%s]", f->unit);
    }
    out_line(&q->buf);
}

/* The fields a GPU that requires a reset still reports (the capture's index and memory.used,
 * and what identifies the board) */
static bool reset_keeps(const struct field *f)
{
    static const char *const keep[] = {"timestamp", "name", "index", "uuid", "pci.bus_id",
                                       "serial", "count", "driver_version", "kmd_version",
                                       "vbios_version"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (!strcmp(f->name, keep[i]))
            return true;
    return false;
}

static void query_row(struct query *q, const struct sample *s)
{
    bool reset = !q->apps && faulted(s->g);
    for (int i = 0; i < q->nfields; i++) {
        const struct field *f = q->fields[i];
        if (i)
            line_adds(&q->buf, ", ");
        if (reset && !strcmp(f->name, "memory.used"))
            line_adds(&q->buf, q->nounits ? "0" : "0 MiB");
        else if (reset && !reset_keeps(f))
            line_adds(&q->buf, "[GPU requires reset]");
        else if (q->na[i])
            line_adds(&q->buf, cfg.na_token);
        else if (f->value(&q->buf, s) && f->unit && !q->nounits)
            line_addf(&q->buf, " %s", f->unit);
    }
    out_row(&q->buf);
}

/* "YYYY/MM/DD HH:MM:SS.mmm" in local time, and the struct tm for dmon's -o columns. */
static void now_local(char *buf, size_t n, struct tm *tm)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    time_t t = ts.tv_sec;
    localtime_r(&t, tm);
    size_t len = strftime(buf, n, "%Y/%m/%d %H:%M:%S", tm);
    snprintf(buf + len, n - len, ".%03ld", ts.tv_nsec / 1000000);
}

static int file_apps(struct app *apps, char (*store)[64]);

static void query_interval(long long k, void *arg)
{
    struct query *q = arg;
    char ts[64];
    struct tm tm;
    now_local(ts, sizeof ts, &tm);
    /* FAKE_SMI_APPS_FILE's processes, read again at every interval (a job adds its own pid) */
    static struct app more[MAX_APPS];
    static char names[MAX_APPS][64];
    int nmore = q->apps ? file_apps(more, names) : 0;
    for (int g = 0; g < cfg.ngpus; g++) {
        if (!selected[g])
            continue;
        if (!q->apps && cfg.fault_lost && faulted(g)) {
            char bus[32];
            gpu_bus_id(g, bus, sizeof bus);
            fprintf(stderr,
                    "Unable to determine the device handle for GPU %s: GPU is lost.  Reboot the "
                    "system to recover this GPU\n",
                    bus + 4); /* the message's 4-digit domain */
            exit(15);
        }
        if (!q->apps) {
            query_row(q, &(struct sample){.k = k, .g = g, .ts = ts});
            continue;
        }
        for (int a = 0; a < cfg.napps; a++)
            if (cfg.apps[a].gpu == g)
                query_row(q, &(struct sample){.k = k, .g = g, .ts = ts, .app = &cfg.apps[a]});
        for (int a = 0; a < nmore; a++)
            if (more[a].gpu == g)
                query_row(q, &(struct sample){.k = k, .g = g, .ts = ts, .app = &more[a]});
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Intervals on absolute deadlines.                                                             */

typedef void (*interval_fn)(long long k, void *arg);

/* Call fn for k = 0, 1, ... (count < 0: forever), interval k at start + k * period_ms
 * (divided by FAKE_SMI_SPEED). */
static void run_intervals(long long period_ms, long long count, interval_fn fn, void *arg)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long long period_ns = period_ms * 1000000 / cfg.speed;
    for (long long k = 0; count < 0 || k < count; k++) {
        if (k > 0) {
            long long ns = start.tv_nsec + k * period_ns % 1000000000;
            struct timespec due = {.tv_sec = start.tv_sec + k * period_ns / 1000000000 +
                                             ns / 1000000000,
                                   .tv_nsec = ns % 1000000000};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR)
                ;
        }
        fn(k, arg);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* dmon                                                                                         */

struct dmon_col {
    char group; /* the -s letter */
    const char *name, *unit;
    long long (*value)(const struct sample *); /* NULL: always "-" */
};

/* One line per -s letter, in the order dmon prints a group's columns. */
/* clang-format off */
static const struct dmon_col dmon_cols[] = {
    {'p', "pwr", "W", power_rounded}, {'p', "gtemp", "C", temp_gpu}, {'p', "mtemp", "C", NULL},
    {'u', "sm", "%", util_gpu}, {'u', "mem", "%", util_mem}, {'u', "enc", "%", zero},
        {'u', "dec", "%", zero}, {'u', "jpg", "%", zero}, {'u', "ofa", "%", zero},
    {'c', "mclk", "MHz", clock_mem}, {'c', "pclk", "MHz", clock_sm},
    {'v', "pviol", "%", zero}, {'v', "tviol", "bool", zero},
    {'m', "fb", "MB", mem_used}, {'m', "bar1", "MB", zero}, {'m', "ccpm", "MB", zero},
    {'e', "sbecc", "errs", zero}, {'e', "dbecc", "errs", zero}, {'e', "pci", "errs", zero},
    {'t', "rxpci", "MB/s", zero}, {'t', "txpci", "MB/s", zero},
};
/* clang-format on */
#define N_DMON_COLS (sizeof dmon_cols / sizeof dmon_cols[0])

static long long gpm_half_sm(const struct sample *s) { return util_gpu(s) / 2; }
static long long gpm_quarter_sm(const struct sample *s) { return util_gpu(s) / 4; }
static long long gpm_eighth_sm(const struct sample *s) { return util_gpu(s) / 8; }
static long long gpm_third_sm(const struct sample *s) { return util_gpu(s) / 3; }
static long long gpm_fifth_sm(const struct sample *s) { return util_gpu(s) / 5; }
static long long gpm_half_mem(const struct sample *s) { return util_mem(s) / 2; }

struct gpm_metric {
    int id;
    struct dmon_col col; /* group unused */
};

/* --gpm-metrics ids and their columns (the dmon --help text and the H800 capture). */
/* clang-format off */
static const struct gpm_metric gpm_metrics[] = {
    {1, {0, "gract", "GPM:%", util_gpu}}, {2, {0, "smutil", "GPM:%", gpm_half_sm}},
    {3, {0, "smocc", "GPM:%", gpm_quarter_sm}}, {4, {0, "intutil", "GPM:%", zero}},
    {5, {0, "mmaact", "GPM:%", gpm_eighth_sm}}, {10, {0, "dram", "GPM:%", gpm_half_mem}},
    {11, {0, "fp64", "GPM:%", zero}}, {12, {0, "fp32", "GPM:%", gpm_third_sm}},
    {13, {0, "fp16", "GPM:%", gpm_fifth_sm}}, {20, {0, "pcitx", "GPM:MiB/s", zero}},
    {21, {0, "pcirx", "GPM:MiB/s", zero}}, {60, {0, "nvlrx", "GPM:MiB/s", zero}},
    {61, {0, "nvltx", "GPM:MiB/s", zero}},
};
/* clang-format on */
#define N_GPM (sizeof gpm_metrics / sizeof gpm_metrics[0])

struct dmon {
    const struct dmon_col *cols[N_DMON_COLS];
    int ncols;
    const struct dmon_col *gpm[N_GPM];
    int ngpm;
    bool date, time;
    int rows_since_header;
    struct line buf;
};

static void dmon_select(struct dmon *d, const char *letters)
{
    char seen[16] = "";
    for (const char *p = letters; *p; p++) {
        if (!strchr("pucvmet", *p))
            die_invalid_value("-s", letters);
        if (strchr(seen, *p))
            continue;
        seen[strlen(seen)] = *p;
        for (size_t i = 0; i < N_DMON_COLS; i++)
            if (dmon_cols[i].group == *p)
                d->cols[d->ncols++] = &dmon_cols[i];
    }
    if (d->ncols == 0)
        die_invalid_value("-s", letters);
}

static void dmon_header(struct dmon *d)
{
    for (int units = 0; units < 2; units++) {
        if (d->date || d->time) {
            line_adds(&d->buf, "#");
            if (d->date)
                line_addf(&d->buf, "%-11s", units ? "YYYYMMDD" : "Date");
            if (d->time)
                line_addf(&d->buf, "%-10s", units ? "HH:MM:SS" : "Time");
            line_addf(&d->buf, "%5s ", units ? "Idx" : "gpu");
        } else {
            line_addf(&d->buf, "#%4s ", units ? "Idx" : "gpu"); /* '#' takes the first cell */
        }
        for (int i = 0; i < d->ncols; i++)
            line_addf(&d->buf, "%6s ", units ? d->cols[i]->unit : d->cols[i]->name);
        for (int i = 0; i < d->ngpm; i++)
            line_addf(&d->buf, "%10s", units ? d->gpm[i]->unit : d->gpm[i]->name);
        out_line(&d->buf);
    }
    d->rows_since_header = 0;
}

static void dmon_interval(long long k, void *arg)
{
    struct dmon *d = arg;
    char ts[64], date[16], hms[16];
    struct tm tm;
    now_local(ts, sizeof ts, &tm);
    strftime(date, sizeof date, "%Y%m%d", &tm);
    strftime(hms, sizeof hms, "%H:%M:%S", &tm);
    for (int g = 0; g < cfg.ngpus; g++) {
        if (!selected[g])
            continue;
        if (d->rows_since_header == DMON_BLOCK_ROWS)
            dmon_header(d);
        struct sample s = {.k = k, .g = g, .ts = ts};
        if (d->date || d->time) {
            line_adds(&d->buf, " ");
            if (d->date)
                line_addf(&d->buf, "%-11s", date);
            if (d->time)
                line_addf(&d->buf, "%-10s", hms);
        }
        line_addf(&d->buf, "%5d ", g);
        for (int i = 0; i < d->ncols; i++) {
            const struct dmon_col *c = d->cols[i];
            if (!c->value || list_has(cfg.na_dmon, c->name))
                line_addf(&d->buf, "%6s ", "-");
            else
                line_addf(&d->buf, "%6lld ", c->value(&s));
        }
        char gs[8];
        snprintf(gs, sizeof gs, "%d", g);
        bool has_gpm = !cfg.gpm || !strcmp(cfg.gpm, "all") || list_has(cfg.gpm, gs);
        for (int i = 0; i < d->ngpm; i++) {
            if (has_gpm)
                line_addf(&d->buf, "%10lld", d->gpm[i]->value(&s));
            else
                line_addf(&d->buf, "%10s", "-");
        }
        out_row(&d->buf);
        d->rows_since_header++;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Command line                                                                                 */

/* If argv[*i] is the option (short form sopt, or lopt as "--x VALUE" / "--x=VALUE"), return its
 * value, consuming the next argument when needed; NULL if argv[*i] is another option. */
static const char *opt_value(int argc, char **argv, int *i, const char *sopt, const char *lopt)
{
    const char *a = argv[*i];
    size_t llen = lopt ? strlen(lopt) : 0;
    const char *v = NULL;
    if (lopt && strncmp(a, lopt, llen) == 0 && a[llen] == '=')
        v = a + llen + 1;
    else if ((sopt && strcmp(a, sopt) == 0) || (lopt && strcmp(a, lopt) == 0))
        v = *i + 1 < argc ? argv[++*i] : "";
    else
        return NULL;
    if (!*v)
        die_missing_value(sopt ? sopt : lopt);
    return v;
}

static long long opt_number(const char *opt, const char *val, long long min, long long max)
{
    long long v;
    if (!parse_ll(val, min, max, &v))
        die_invalid_value(opt, val);
    return v;
}

static int usage(void)
{
    static const char text[] =
        "fake_nvidia_smi: a test double for nvidia-smi (see the top of fake_nvidia_smi.c)\n"
        "  --query-gpu=F,... --format=csv[,noheader][,nounits] [-l N | -lms N] [-i IDS]\n"
        "  --query-compute-apps=F,... --format=... [-l N | -lms N] [-i IDS]\n"
        "  dmon [-s pucvmet] [--gpm-metrics IDS] [-d N] [-c N] [-i IDS] [-o DT] [-f FILE]\n"
        "  --version | -L\n";
    write_all(STDOUT_FILENO, text, sizeof text - 1);
    return 0;
}

/* --gpm-metrics "2,5,10": the columns in the order given. */
static void dmon_gpm(struct dmon *d, const char *ids)
{
    if (cfg.gpm && !strcmp(cfg.gpm, "none"))
        die_unrecognized("--gpm-metrics"); /* a driver from before GPM */
    for (const char *p = ids; *p;) {
        const char *end = strchr(p, ',');
        char one[16];
        size_t len = end ? (size_t)(end - p) : strlen(p);
        long long id;
        if (len == 0 || len >= sizeof one)
            die_invalid_value("--gpm-metrics", ids);
        memcpy(one, p, len);
        one[len] = '\0';
        if (!parse_ll(one, 0, 1000, &id))
            die_invalid_value("--gpm-metrics", ids);
        size_t i = 0;
        while (i < N_GPM && gpm_metrics[i].id != id)
            i++;
        if (i == N_GPM || d->ngpm == (int)N_GPM)
            die_invalid_value("--gpm-metrics", ids);
        d->gpm[d->ngpm++] = &gpm_metrics[i].col;
        if (!end)
            break;
        p = end + 1;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* pmon                                                                                         */

/* pmon -s um [-o DT]: the modern layout of pmon_s-um_rtx3090 and pmon_default_h200 (6-wide
 * right-aligned columns, the name left-justified in 15, "-" lines for a GPU with no process).
 * The processes are FAKE_SMI_APPS's, and FAKE_SMI_APPS_FILE's (pid:gpu:mib[:name] lines, read
 * again at every interval: a test's job adds its own pid); the i-th process on a GPU has sm
 * 20 + 10 i % and mem 5 + i %; FAKE_SMI_PMON_DASH=pid prints "-" for that process's sm and mem. */
struct pmon {
    bool date, time, fbcols;
    struct line buf;
};

static void pmon_header(struct pmon *p)
{
    for (int units = 0; units < 2; units++) {
        if (p->date || p->time) {
            line_adds(&p->buf, "#");
            if (p->date)
                line_addf(&p->buf, "%-11s", units ? "YYYYMMDD" : "Date");
            if (p->time)
                line_addf(&p->buf, "%-10s", units ? "HH:MM:SS" : "Time");
            line_addf(&p->buf, "%5s ", units ? "Idx" : "gpu");
        } else {
            line_addf(&p->buf, "#%4s ", units ? "Idx" : "gpu");
        }
        line_addf(&p->buf, "%10s %6s ", units ? "#" : "pid", units ? "C/G" : "type");
        if (p->fbcols)
            line_addf(&p->buf, "%6s %6s ", units ? "MB" : "fb", units ? "MB" : "ccpm");
        static const char *const cols[] = {"sm", "mem", "enc", "dec", "jpg", "ofa"};
        for (size_t i = 0; i < 6; i++)
            line_addf(&p->buf, "%6s ", units ? "%" : cols[i]);
        line_addf(&p->buf, "   %s", units ? "name" : "command");
        out_line(&p->buf);
    }
}

/* FAKE_SMI_APPS_FILE's processes (up to MAX_APPS), names copied into store. */
static int file_apps(struct app *apps, char (*store)[64])
{
    const char *path = getenv("FAKE_SMI_APPS_FILE");
    FILE *f = path ? fopen(path, "r") : NULL;
    int n = 0;
    char line[256];
    while (f && n < MAX_APPS && fgets(line, sizeof line, f)) {
        long long pid, gpu, mib;
        char name[64] = "python3";
        if (sscanf(line, "%lld:%lld:%lld:%63[^\n]", &pid, &gpu, &mib, name) < 3)
            continue;
        snprintf(store[n], sizeof store[n], "%s", name);
        apps[n] = (struct app){pid, (int)gpu, mib, store[n]};
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

static void pmon_interval(long long k, void *arg)
{
    struct pmon *p = arg;
    (void)k;
    char ts[64], date[16], hms[16];
    struct tm tm;
    now_local(ts, sizeof ts, &tm);
    strftime(date, sizeof date, "%Y%m%d", &tm);
    strftime(hms, sizeof hms, "%H:%M:%S", &tm);
    static struct app more[MAX_APPS];
    static char names[MAX_APPS][64];
    int nmore = file_apps(more, names);
    const char *dash = getenv("FAKE_SMI_PMON_DASH");
    for (int g = 0; g < cfg.ngpus; g++) {
        if (!selected[g])
            continue;
        /* this GPU's processes, ascending pid (as pmon lists them) */
        const struct app *on[2 * MAX_APPS];
        int n = 0;
        for (int a = 0; a < cfg.napps; a++)
            if (cfg.apps[a].gpu == g)
                on[n++] = &cfg.apps[a];
        for (int a = 0; a < nmore; a++)
            if (more[a].gpu == g)
                on[n++] = &more[a];
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && on[j - 1]->pid > on[j]->pid; j--) {
                const struct app *t = on[j];
                on[j] = on[j - 1];
                on[j - 1] = t;
            }
        for (int i = 0; i < (n ? n : 1); i++) {
            if (p->date || p->time) {
                line_adds(&p->buf, " ");
                if (p->date)
                    line_addf(&p->buf, "%-11s", date);
                if (p->time)
                    line_addf(&p->buf, "%-10s", hms);
            }
            line_addf(&p->buf, "%5d ", g);
            if (!n) { /* no process: a line of "-" */
                line_addf(&p->buf, "%10s %6s ", "-", "-");
                for (int c = 0; c < (p->fbcols ? 8 : 6); c++)
                    line_addf(&p->buf, "%6s ", "-");
                line_addf(&p->buf, "   %-15s", "-");
                out_line(&p->buf);
                break;
            }
            const struct app *a = on[i];
            char pid[24];
            snprintf(pid, sizeof pid, "%lld", a->pid);
            bool no_value = dash && !strcmp(dash, pid);
            line_addf(&p->buf, "%10lld %6s ", a->pid, "C");
            if (p->fbcols)
                line_addf(&p->buf, "%6lld %6d ", a->mib, 0);
            if (no_value)
                line_addf(&p->buf, "%6s %6s ", "-", "-");
            else
                line_addf(&p->buf, "%6d %6d ", 20 + 10 * i, 5 + i);
            line_addf(&p->buf, "%6s %6s %6s %6s ", "-", "-", "-", "-");
            line_addf(&p->buf, "   %-15.15s", a->name);
            out_line(&p->buf);
        }
    }
}

static int cmd_pmon(int argc, char **argv)
{
    static struct pmon p;
    const char *ids = NULL, *select = "u";
    long long delay = 1, count = -1;
    for (int i = 2; i < argc; i++) {
        const char *v;
        if ((v = opt_value(argc, argv, &i, "-d", "--delay")))
            delay = opt_number("-d", v, 1, 10); /* pmon's maximum */
        else if ((v = opt_value(argc, argv, &i, "-c", "--count")))
            count = opt_number("-c", v, 1, 1000000000000LL);
        else if ((v = opt_value(argc, argv, &i, "-i", "--id")))
            ids = v;
        else if ((v = opt_value(argc, argv, &i, "-s", "--select")))
            select = v;
        else if ((v = opt_value(argc, argv, &i, "-o", "--options"))) {
            for (const char *q = v; *q; q++) {
                if (*q == 'D')
                    p.date = true;
                else if (*q == 'T')
                    p.time = true;
                else
                    die_invalid_value("-o", v);
            }
        } else
            die_unrecognized(argv[i]);
    }
    p.fbcols = strchr(select, 'm') != NULL;
    select_gpus(ids);
    pmon_header(&p);
    run_intervals(delay * 1000, count, pmon_interval, &p);
    return 0;
}

static int cmd_dmon(int argc, char **argv)
{
    static struct dmon d;
    const char *select = "puc", *ids = NULL, *file = NULL;
    long long delay = 1, count = -1;
    for (int i = 2; i < argc; i++) {
        const char *v;
        if ((v = opt_value(argc, argv, &i, "-s", "--select")))
            select = v;
        else if ((v = opt_value(argc, argv, &i, "-d", "--delay")))
            delay = opt_number("-d", v, 1, 86400);
        else if ((v = opt_value(argc, argv, &i, "-c", "--count")))
            count = opt_number("-c", v, 1, 1000000000000LL);
        else if ((v = opt_value(argc, argv, &i, "-i", "--id")))
            ids = v;
        else if ((v = opt_value(argc, argv, &i, "-f", "--filename")))
            file = v;
        else if ((v = opt_value(argc, argv, &i, NULL, "--gpm-metrics")))
            dmon_gpm(&d, v);
        else if ((v = opt_value(argc, argv, &i, "-o", "--options"))) {
            d.date = d.time = false;
            for (const char *p = v; *p; p++) {
                if (*p == 'D')
                    d.date = true;
                else if (*p == 'T')
                    d.time = true;
                else
                    die_invalid_value("-o", v);
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage();
        else
            die_unrecognized(argv[i]);
    }
    dmon_select(&d, select);
    select_gpus(ids);
    if (file) {
        int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
            die_errno(file);
        close(fd);
    }
    dmon_header(&d);
    run_intervals(delay * 1000, count, dmon_interval, &d);
    return 0;
}

/* --help-query-gpu as help-query-gpu_drv590.48.01_linux.txt lays it out: each field quoted on a
 * line of its own (`"name" or "alias"`), a line about it, a blank line; without the fields
 * FAKE_SMI_REJECT names (a driver that does not have them). */
static void help_query_gpu(void)
{
    printf("List of valid properties to query for the switch \"--query-gpu\":\n\n");
    for (const struct field *f = gpu_fields; f->name; f++) {
        if (list_has(cfg.reject, f->name))
            continue;
        if (f->alias)
            printf("\"%s\" or \"%s\"\n", f->name, f->alias);
        else
            printf("\"%s\"\n", f->name);
        printf("The fake's %s.\n\n", f->name);
    }
}

static void print_version(void)
{
    static const char text[] =
        "NVIDIA-SMI version  : " DRIVER_VERSION "\n"
        "NVML version        : 610.57\n"
        "DRIVER version      : Deprecated, see \"KMD version\" instead\n"
        "CUDA version        : Deprecated, see \"CUDA UMD version\" instead\n"
        "KMD version         : " DRIVER_VERSION "\n"
        "CUDA UMD version    : 13.3\n";
    write_all(STDOUT_FILENO, text, sizeof text - 1);
}

/* FAKE_SMI_MIG: how many MIG devices GPU g has (0: not in MIG mode). */
static int mig_devices(int g)
{
    const char *s = getenv("FAKE_SMI_MIG");
    for (; s && *s;) {
        int gg, n, used = 0;
        if (sscanf(s, "%d:%d%n", &gg, &n, &used) != 2 || n < 0 || n > 7)
            die_env("FAKE_SMI_MIG", getenv("FAKE_SMI_MIG"));
        if (gg == g)
            return n;
        s += used;
        s += *s == ',';
    }
    return 0;
}

static void list_gpus(void)
{
    struct line l = {0};
    char uuid[64];
    for (int g = 0; g < cfg.ngpus; g++) {
        if (!selected[g])
            continue;
        gpu_uuid(g, uuid, sizeof uuid);
        line_addf(&l, "GPU %d: %s (UUID: %s)", g, GPU_NAME, uuid);
        out_line(&l);
        for (int k = 0; k < mig_devices(g); k++) {
            line_addf(&l, "  MIG 1g.10gb     Device  %d: (UUID: MIG-5e7c1d%02x-0000-4000-8000-0000000000%02x)",
                      k, (unsigned)g, (unsigned)k);
            out_line(&l);
        }
    }
    free(l.p);
}

static int cmd_main(int argc, char **argv)
{
    static struct query q;
    const char *fields = NULL, *ids = NULL;
    bool csv = false, have_format = false, version = false, list = false;
    long long period_ms = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if ((v = opt_value(argc, argv, &i, NULL, "--query-gpu"))) {
            fields = v;
            q.apps = false;
        } else if ((v = opt_value(argc, argv, &i, NULL, "--query-compute-apps"))) {
            fields = v;
            q.apps = true;
        } else if ((v = opt_value(argc, argv, &i, NULL, "--format"))) {
            parse_format(&q, v, &csv);
            have_format = true;
        } else if ((v = opt_value(argc, argv, &i, "-lms", "--loop-ms"))) {
            period_ms = opt_number("-lms", v, 1, 86400000);
        } else if (strncmp(a, "--loop=", 7) == 0) {
            period_ms = 1000 * opt_number("-l", a + 7, 1, 86400);
        } else if (strcmp(a, "-l") == 0 || strcmp(a, "--loop") == 0) {
            long long sec = 5; /* the documented default when no number follows */
            if (i + 1 < argc && parse_ll(argv[i + 1], 0, 1000000000, &sec))
                sec = opt_number("-l", argv[++i], 1, 86400);
            period_ms = 1000 * sec;
        } else if ((v = opt_value(argc, argv, &i, "-i", "--id"))) {
            ids = v;
        } else if (strcmp(a, "-L") == 0 || strcmp(a, "--list-gpus") == 0) {
            list = true;
        } else if (strcmp(a, "--version") == 0) {
            version = true;
        } else if (strcmp(a, "--help-query-gpu") == 0) {
            help_query_gpu();
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            return usage();
        } else {
            die_unrecognized(a);
        }
    }
    if (version) {
        print_version();
        return 0;
    }
    if (fields) {
        parse_fields(&q, fields);
        if (!have_format || !csv)
            smi_exit(EXIT_USAGE, "ERROR: Option --format=csv is missing." SMI_HELP_HINT);
        select_gpus(ids);
        if (!q.noheader)
            query_header(&q);
        run_intervals(period_ms, period_ms ? -1 : 1, query_interval, &q);
        return 0;
    }
    if (list) {
        select_gpus(ids);
        list_gpus();
        return 0;
    }
    fprintf(stderr, "fake_nvidia_smi: the default summary table is not implemented\n");
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    setup_signals(); /* first: a test may signal us the moment we exist */
    const char *delay = getenv("FAKE_SMI_START_DELAY_MS");
    if (delay && *delay) {
        long ms = strtol(delay, NULL, 10);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
    }
    log_start(argc, argv);
    check_mode();
    load_config();
    tzset();
    if (argc > 1 && strcmp(argv[1], "dmon") == 0)
        return cmd_dmon(argc, argv);
    if (argc > 1 && strcmp(argv[1], "pmon") == 0)
        return cmd_pmon(argc, argv);
    return cmd_main(argc, argv);
}
