/* Right at the edges of a run and of its phases (issue 23): what a job does in its last
 * moments is counted, and a phase's CPU comes from what happened inside it, not from the
 * interval it shares with its neighbour. End to end: the built hwmon wraps a job, summarize's
 * library reads the directory. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/rundir.h"
#include "hwrun/timeutil.h"

/* Under ThreadSanitizer hwmon's samples come tens of milliseconds late: a dd that starts with
 * its phase may have ended and been reaped by then. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif
#include "hwtest.h"
#include "report.h"
#include "summary.h"

static struct sum_run *summarize(const char *dir)
{
    struct sum_run *run = sum_run_new();
    char *storage[HW_FILE_COUNT] = {0};
    struct sum_inputs in;
    sum_inputs_from_dir(&in, dir, storage);
    struct sum_config cfg = {0};
    CU_ASSERT_EQUAL(sum_run_summarize(run, &in, &cfg), 0);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(storage[k]);
    return run;
}

/* 40 MiB written and fsync'd after the first cadence sample of a job at -i 0.5, the job exiting
 * before the second (dd takes 0.05 s on an idle disk; one still flushing a build may push it past
 * that sample, and the bytes must be there all the same): the sample taken when the job has
 * exited counts them (before, the interval the stop cut short was lost, and the run said 0 MiB). */
static void test_last_interval_counted(void)
{
    char *dir = th_tmpdir("edges-last");
    char *script = th_fmt("sleep 0.6; dd if=/dev/zero of=%s/blob bs=1M count=40 conv=fsync "
                          "status=none", dir);
    char **argv = ht_argv(dir, "--no-gpu", "-i", "0.5", "--", "/bin/sh", "-c", script, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
    struct sum_run *run = summarize(dir);
    double written = sum_system_mib(&run->sys, SUM_IO_DISK_WRITE);
    if (!(written >= 39))
        fprintf(stderr, "disk written over the run: %.1f MiB\n", written);
    CU_ASSERT(written >= 39);
    sum_run_free(run);
    free(argv);
    free(script);
    th_rmtree(dir);
    free(dir);
}

/* Percentage points a phase's CPU may exceed what the job timed around it: its edge samples
 * come a few milliseconds after its lines (the busy phase before it showed 13-30%). */
#define IDLE_CPU_SLACK 2

static const struct sum_phase_acc *phase_named(const struct sum_run *run, const char *name)
{
    for (size_t i = 0; i < run->nphase; i++)
        if (!strcmp(run->phase[i].name, name))
            return &run->phase[i];
    return NULL;
}

static bool file_exists(void *path)
{
    return access(path, F_OK) == 0;
}

/* A 1 s sleep right after a phase that kept 2 cores busy for 0.75 s, then a busy 0.5 s
 * single-threaded phase, at -i 0.5 (the sleep two intervals, as 2 s at -i 1 were): hwmon
 * samples at each phase's begin and end (it follows run.jsonl), so the sleep shows no CPU (it
 * showed 13-30%: the busy phase's interval) and the 0.5 s phase shows what it used itself,
 * which the job measures with bash's `time` (so that a loaded machine, which gives the loop
 * less than a core, does not fail the test). */
static void test_phase_cpu_at_edges(void)
{
    char *dir = th_tmpdir("edges-cpu");
    char *script = th_fmt("%s/job.sh", dir), *own = th_fmt("%s/own_busy1", dir),
         *own_idle = th_fmt("%s/own_idle", dir);
    FILE *f = fopen(script, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("R=\"$1\"\n"
          "\"$R\" time busy2 -- bash -c 'for i in 1 2; do timeout 0.75 bash -c \"while :; do :; "
          "done\" & done; wait; true'\n"
          "TIMEFORMAT='%3R %3U %3S'; { time \"$R\" time idle -- sleep 1; } 2>\"$3\"\n"
          "\"$R\" time busy1 -- bash -c 'TIMEFORMAT=\"%3R %3U %3S\"; { time timeout 0.5 bash -c "
          "\"while :; do :; done\"; } 2>\"$0\"; true' \"$2\"\n",
          f);
    fclose(f);
    char **argv = ht_argv(dir, "--no-gpu", "-i", "0.5", "--", "/bin/bash", script,
                          th_env("HWRUN_RUNLOG_BIN"), own, own_idle, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
    struct sum_run *run = summarize(dir);
    const struct sum_phase_acc *idle = phase_named(run, "idle"), *busy = phase_named(run, "busy1");
    CU_ASSERT_FATAL(idle && busy && phase_named(run, "busy2"));
    double idle_cpu = sum_stat_mean(&idle->proc_cpu), busy_cpu = sum_stat_mean(&busy->proc_cpu);
    double real = 0, usr = 0, sys = 0;
    char *t = th_read_file(own, NULL);
    CU_ASSERT_FATAL(t && sscanf(t, "%lf %lf %lf", &real, &usr, &sys) == 3 && real > 0);
    double own_cpu = 100 * (usr + sys) / real;
    /* the sleep's phase as the job timed it: the runlog CLI around it included (a sanitizer's
     * start-up and TSan's background thread, which wakes every 100 ms, are its CPU: 3.2% seen) */
    free(t);
    t = th_read_file(own_idle, NULL);
    CU_ASSERT_FATAL(t && sscanf(t, "%lf %lf %lf", &real, &usr, &sys) == 3 && real > 0);
    double own_idle_cpu = 100 * (usr + sys) / real;
    fprintf(stderr, "idle %.1f%% (its own: %.1f%%), busy1 %.1f%% (its own: %.1f%%), edges %s %s %s\n",
            idle_cpu, own_idle_cpu, busy_cpu, own_cpu, sum_phase_edges(phase_named(run, "busy2")),
            sum_phase_edges(idle), sum_phase_edges(busy));
    CU_ASSERT(idle_cpu <= own_idle_cpu + IDLE_CPU_SLACK);
    CU_ASSERT(fabs(busy_cpu - own_cpu) <= 10);
    CU_ASSERT_STRING_EQUAL(sum_phase_edges(idle), "measured");
    CU_ASSERT_STRING_EQUAL(sum_phase_edges(busy), "measured");
    CU_ASSERT(run->edge_rows >= 3);
    /* the cadence is untouched: its own rows, one per interval */
    CU_ASSERT(sum_run_num_samples(run) <= 8);
    free(t);
    sum_run_free(run);
    free(argv);
    free(script);
    free(own);
    free(own_idle);
    th_rmtree(dir);
    free(dir);
}

/* The next phase begins 0.15 s after a long one ended (a loaded machine starting the next
 * `runlog time`): farther than the edge tolerance (0.1 s) from the end's sample, nearer than a
 * quarter interval (a burst of boundaries). Its begin is read where it is, not left to the end's
 * sample (CI saw "edges: end" for such a phase). Whatever the machine's load does to the gap,
 * both edges are measured: past 0.25 s it is no burst and was always read. */
static void test_begin_after_end(void)
{
    char *dir = th_tmpdir("edges-next");
    char *script = th_fmt("%s/job.sh", dir);
    FILE *f = fopen(script, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* each phase longer than a quarter interval (0.25 s): both its edges are sampled */
    fputs("\"$1\" time first -- sleep 0.3\nsleep 0.15\n\"$1\" time second -- sleep 0.3\n", f);
    fclose(f);
    char **argv = ht_argv(dir, "--no-gpu", "-i", "1", "--", "/bin/bash", script,
                          th_env("HWRUN_RUNLOG_BIN"), NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
    struct sum_run *run = summarize(dir);
    const struct sum_phase_acc *first = phase_named(run, "first"),
                               *second = phase_named(run, "second");
    CU_ASSERT_FATAL(first && second);
    fprintf(stderr, "gap %.3f s, edges %s %s\n", second->t0 - first->t1, sum_phase_edges(first),
            sum_phase_edges(second));
    CU_ASSERT(second->t0 - first->t1 > hw_edge_tol(1));
    CU_ASSERT_STRING_EQUAL(sum_phase_edges(first), "measured");
    CU_ASSERT_STRING_EQUAL(sum_phase_edges(second), "measured");
    sum_run_free(run);
    free(argv);
    free(script);
    th_rmtree(dir);
    free(dir);
}

/* A checkpoint of 5 MiB written and fsync'd by a child of the job in its last moments, the job
 * exiting at once (-i 1, well inside the first interval): the process tree's bytes come from the
 * job's final /proc totals, read after it exited and before hwmon reaped it (the child it reaped
 * is in them), to 2% (before: the last row preceded the write, and the tree said 0). wchar, not
 * write_bytes, so that the test means the same on tmpfs. */
static void test_tree_final_io(void)
{
    char *dir = th_tmpdir("edges-tree-io");
    char *script = th_fmt("sleep 0.3; dd if=/dev/zero of=%s/ckpt bs=1M count=5 conv=fsync "
                          "status=none", dir);
    char **argv = ht_argv(dir, "--no-gpu", "-i", "1", "--", "/bin/sh", "-c", script, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
    struct sum_run *run = summarize(dir);
    double w = run->proc[HW_PROC_COL_WCHAR].max, want = 5 << 20;
    if (!(w >= want && w <= want * 1.02))
        fprintf(stderr, "the tree wrote %.0f bytes, the job %.0f\n", w, want);
    CU_ASSERT(w >= want && w <= want * 1.02);
    /* the job ran for less than an interval: its one row is the exited job's, with CPU and
     * I/O, and memory unmeasured, not 0 (the kernel's peak is in the stop event) */
    CU_ASSERT_EQUAL(run->proc[HW_PROC_COL_WCHAR].n, 1);
    CU_ASSERT_EQUAL(run->proc[HW_PROC_COL_RSS].n, 0);
    CU_ASSERT_EQUAL(run->proc[HW_PROC_COL_PROCS].n, 0);
    CU_ASSERT(run->info.main_peak_kernel_mib > 0);
    sum_run_free(run);
    free(argv);
    free(script);
    th_rmtree(dir);
    free(dir);
}

/* Many short children writing known bytes, reaped as fast as they come, under four parallel
 * loops, sampled at -i 0.05 (a reap between hwmon's read of a parent and of its child loses the
 * child's bytes from that reading: proctree.c reads again, then holds the highest): no row's I/O
 * falls, and the exited job's last row is the job's own truth, the shell's /proc/$$/io read by
 * itself after waiting for them all (its echo of it after: wchar by the bytes printed, through
 * a pipe, which write_bytes does not count). */
static void test_tree_io_never_falls(void)
{
    char *dir = th_tmpdir("edges-io-falls");
    char **argv = ht_argv(dir, "--no-gpu", "-i", "0.05", "--", "/bin/sh", "-c",
                          "mkdir \"$HWMON_DIR/f\"\n"
                          "for j in 1 2 3 4; do (i=0; while [ $i -lt 60 ]; do i=$((i+1));\n"
                          "  (dd if=/dev/zero of=\"$HWMON_DIR/f/$j.$i\" bs=16k count=1 "
                          "status=none); done) & done; wait\n"
                          "while read k v; do echo \"$k $v\"; done < /proc/$$/io\n",
                          NULL);
    struct th_result res;
    CU_ASSERT_EQUAL_FATAL(ht_run(argv, NULL, 120, &res), 0);
    unsigned long long wchar = 0, wbytes = 0;
    const char *wc = strstr(res.out, "wchar: "), *wb = strstr(res.out, "\nwrite_bytes: ");
    CU_ASSERT_FATAL(wc && wb);
    wchar = strtoull(wc + 7, NULL, 10) + res.out_len; /* and what it echoed after */
    wbytes = strtoull(wb + 14, NULL, 10);
    CU_ASSERT(wchar >= 240 * 16384ULL);
    char *path = th_fmt("%s/" HW_PROC_FILE, dir), *csv = th_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    /* the columns of the I/O counters, by the header's names */
    static const char *const cols[] = {"read_bytes", "write_bytes", "rchar", "wchar",
                                       "syscr", "syscw", "cancelled_write_bytes"};
    enum { NCOL = sizeof cols / sizeof cols[0] };
    int at[NCOL];
    char *save = NULL, *line = strtok_r(csv, "\n", &save);
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    for (int c = 0; c < NCOL; c++) {
        at[c] = -1;
        int i = 0;
        for (const char *p = line; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++) {
            size_t n = strlen(cols[c]);
            if (!strncmp(p, cols[c], n) && (p[n] == ',' || !p[n]))
                at[c] = i;
        }
        CU_ASSERT_FATAL(at[c] > 0);
    }
    unsigned long long last[NCOL] = {0}, v[NCOL];
    int rows = 0, falls = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        int i = 0;
        for (const char *p = line; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++)
            for (int c = 0; c < NCOL; c++)
                if (i == at[c])
                    v[c] = strtoull(p, NULL, 10);
        for (int c = 0; c < NCOL; c++) {
            if (v[c] < last[c]) {
                fprintf(stderr, "row %d: %s fell from %llu to %llu\n", rows + 1, cols[c],
                        last[c], v[c]);
                falls++;
            }
            last[c] = v[c];
        }
        rows++;
    }
    CU_ASSERT(rows >= 3);
    CU_ASSERT_EQUAL(falls, 0);
    if (last[3] != wchar || last[1] != wbytes)
        fprintf(stderr, "the tree's last row: wchar %llu, write_bytes %llu; the job's: %llu, %llu\n",
                last[3], last[1], wchar, wbytes);
    CU_ASSERT_EQUAL(last[3], wchar);
    CU_ASSERT_EQUAL(last[1], wbytes);
    free(csv);
    free(path);
    th_result_free(&res);
    free(argv);
    th_rmtree(dir);
    free(dir);
}

/* Three short checkpoint phases (dd of 2 MiB with fsync, a few ms to tens of ms each), each
 * after a quiet 0.3 s, at -i 1: hwmon reads the counters at both edges of each (the end too,
 * though shorter than the quarter interval that steps are held to), so each phase is
 * "measured" and its tree wrote its own 2 MiB, within 10% (before: only its begin was read, and
 * its bytes were a share of the rows around it). The first and third dd start 50 ms into their
 * phases, the second at once (under ThreadSanitizer 50 ms in too; the third begins near the
 * 1 s cadence sample, and a race between that sample and the begin line lost 17% of its bytes
 * once on a loaded CI machine when its dd started at once): hwmon's begin sample comes a moment
 * after the begin line (a millisecond; tens under ThreadSanitizer), so what dd wrote before it
 * is held out of that sample's row (dd and its parent are new since the previous sample:
 * sampler.c), and summarize gives the row between the phase's two readings wholly to the phase
 * (sink_host.c io_owner: shared by time, a 4 ms phase kept 75-80%). The files go under the test's working directory (the build tree, a disk):
 * on tmpfs nothing is written to storage. */
static void test_short_phases_measured(void)
{
    char *dir = th_tmpdir("edges-short");
    char out[] = "edges-short-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(out) != NULL);
    char *script = th_fmt("for i in 1 2 3; do sleep 0.3; d=0; [ $i != 2 ] && d=0.05; "
                          "[ %d = 1 ] && d=0.05; \"$0\" time ckpt$i -- sh -c 'sleep '$d'; "
                          "dd if=/dev/zero of=%s/ckpt'$i' bs=2M count=1 conv=fsync status=none'; "
                          "done", UNDER_TSAN, out);
    char **argv = ht_argv(dir, "--no-gpu", "-i", "1", "--", "/bin/sh", "-c", script,
                          th_env("HWRUN_RUNLOG_BIN"), NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
    struct sum_run *run = summarize(dir);
    int short_ones = 0;
    for (int i = 1; i <= 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "ckpt%d", i);
        const struct sum_phase_acc *p = phase_named(run, name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        double w = p->proc_io[1], want = 2 << 20;
        fprintf(stderr, "%s: %.3f s, edges %s, tree wrote %.0f bytes\n", name, p->t1 - p->t0,
                sum_phase_edges(p), w);
        short_ones += p->t1 - p->t0 < 0.25; /* shorter than the quarter interval */
        CU_ASSERT_STRING_EQUAL(sum_phase_edges(p), "measured");
        CU_ASSERT(fabs(w - want) <= want * 0.1);
    }
    /* the case under test: a phase shorter than the quarter interval. An fsync can take longer
     * on a disk still flushing a build; of three, one short is what the test needs. */
    CU_ASSERT(short_ones >= 1);
    sum_run_free(run);
    free(argv);
    free(script);
    char *rm = th_fmt("rm -rf '%s'", out);
    CU_ASSERT_EQUAL(system(rm), 0);
    free(rm);
    th_rmtree(dir);
    free(dir);
}

/* nvidia-smi taking 0.15 s per call (a busy node, no persistence mode): the job starts
 * before the probes end (it finds no trace of nvidia-smi having answered yet: hwmon starts it
 * before their first call), its GPUs are sampled once they answer, and a stop signal meanwhile
 * is not held behind them (2 s a call: 10 s of probes). */
static void test_job_starts_first(void)
{
    char *dir = th_tmpdir("edges-first");
    char *log = th_fmt("%s/smi.log", dir), *out = th_fmt("%s/run", dir);
    char *e_log = th_fmt("FAKE_SMI_LOG=%s", log);
    char *env[] = {e_log, (char *)"FAKE_SMI_START_DELAY_MS=150", NULL};
    /* it lasts until 2 GPU rows were written (8 s were not always enough for a loaded TSan
     * hwmon's probes of a fake that took 1 s per call) */
    char *rows = ht_job_wait_lines(HW_GPU_FILE, 2);
    char *script = th_fmt("if [ -e '%s' ]; then echo late; else echo first; fi > '%s/order'; "
                          "%s",
                          log, dir, rows);
    free(rows);
    char **argv = ht_argv(out, "-i", "0.2", "--", "/bin/sh", "-c", script, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env, 120, NULL), 0);
    char *order_p = th_fmt("%s/order", dir);
    char *order = th_read_file(order_p, NULL);
    CU_ASSERT_STRING_EQUAL(order ? order : "", "first\n");
    CU_ASSERT(ht_lines(out, "hw_metrics.csv") >= 2); /* sampled once the probes answered */
    json_object *st = ht_event(out, "start", 0);
    CU_ASSERT_PTR_NOT_NULL(ht_data(st, "gpus"));
    json_object_put(st);
    free(order);
    free(argv);
    free(script);

    /* SIGTERM once the job runs (its trap set), while the probes (5 x 2 s) run: the job has it
     * at once */
    char *out2 = th_fmt("%s/run2", dir);
    char *env2[] = {e_log, (char *)"FAKE_SMI_START_DELAY_MS=2000", NULL};
    char *ready = th_fmt("%s/ready", dir);
    char *script2 = th_fmt("trap 'date +%%s.%%N > \"%s/got\"; exit 0' TERM; : > '%s'; "
                           "while :; do sleep 0.05; done", dir, ready);
    argv = ht_argv(out2, "-i", "0.2", "--", "/bin/sh", "-c", script2, NULL);
    pid_t pid = th_spawn(argv, env2, NULL, NULL);
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT(ht_wait_until(file_exists, ready, 60));
    double t0 = hw_real_now();
    kill(pid, SIGTERM);
    CU_ASSERT_EQUAL(th_wait(pid, 60), 0);
    char *got_p = th_fmt("%s/got", dir);
    char *got = th_read_file(got_p, NULL);
    CU_ASSERT_PTR_NOT_NULL(got);
    double when = got ? atof(got) - t0 : NAN;
    if (!(when < 5))
        fprintf(stderr, "the job had SIGTERM %.2f s after it was sent to hwmon\n", when);
    CU_ASSERT(when < 5); /* not after the 10 s of probes */
    json_object *u = ht_event(out2, "gpu_unavailable", 0);
    CU_ASSERT_PTR_NOT_NULL(u); /* the probes were cut short: said */
    json_object_put(u);
    free(got);
    free(got_p);
    free(argv);
    free(script2);
    free(ready);
    free(out2);
    free(order_p);
    free(e_log);
    free(out);
    free(log);
    th_rmtree(dir);
    free(dir);
}

/* A job whose memory peaks between two samples: the kernel's high-water mark of the command
 * (wait4's ru_maxrss, in the stop event) has it, whatever the sampling saw. */
static void test_main_peak_from_kernel(void)
{
    char *dir = th_tmpdir("edges-hwm");
    char **argv = ht_argv(dir, "--no-gpu", "-i", "1", "--", "python3", "-c",
                          "import time\n"
                          "b = bytearray(128 << 20)\n"
                          "for i in range(0, len(b), 4096): b[i] = 1\n"
                          "del b\n"
                          "time.sleep(0.3)\n",
                          NULL);
    int st = ht_run(argv, NULL, 60, NULL);
    if (st == 127 && !getenv("CI")) {
        th_skip("python3 is not installed");
    } else {
        CU_ASSERT_EQUAL(st, 0);
        struct sum_run *run = summarize(dir);
        double k = run->info.main_peak_kernel_mib;
        if (!(k >= 128))
            fprintf(stderr, "kernel's peak %.1f MiB, sampled %.1f MiB\n", k,
                    run->proc[HW_PROC_COL_MAIN_RSS].max);
        CU_ASSERT(k >= 128);
        sum_run_free(run);
    }
    free(argv);
    th_rmtree(dir);
    free(dir);
}

/* A python job (no shim: th_python3) its own tests run: NULL and a visible skip without one. */
static char **python_job(const char *dir, const char *iv, const char *code, const char *arg)
{
    const char *py = th_python3();
    if (!py) {
        th_skip("python3 (>= 3.11) is not installed");
        return NULL;
    }
    return ht_argv(dir, "--no-gpu", "-i", iv, "--", py, "-c", code, arg, NULL);
}

/* One thread busy for 1 s at -i 0.5, then exiting right after a cadence row, so that the row of
 * the exited job stands for a few ms: its CPU, read in clock ticks over those ms, said 0 or 200%
 * and counted as a whole row (a mean of 105.6%, a max of 125.5% where the job's own was 98.1%).
 * The run's mean is within 3 points of the job's own os.times() over its own life (from its
 * start in /proc/self/stat: the interpreter's start-up is the run's too, and on a loaded
 * machine its CPU share is not the loop's), and no row says
 * more than a core but for one tick's quantization over the shortest row summarize keeps (half
 * an interval: 4 points at -i 0.5; 103.1% seen on a row cut short by a late one before it:
 * /proc's CPU times are whole ticks of 10 ms). */
static void test_busy_loop_cpu(void)
{
    char *dir = th_tmpdir("edges-busy");
    char *own = th_fmt("%s/own", dir), *csv = th_fmt("%s/proc_metrics.csv", dir);
    char *arg = th_fmt("%s\n%s", own, csv);
    char **argv = python_job(dir, "0.5",
                             "import os, sys, time\n"
                             "own, csv = sys.argv[1].split('\\n')\n"
                             "stat = open('/proc/self/stat').read().rsplit(')', 1)[1].split()\n"
                             "born = int(stat[19]) / os.sysconf('SC_CLK_TCK')\n"
                             "t0 = time.monotonic()\n"
                             "while time.monotonic() - t0 < 1: pass\n"
                             "n = os.path.getsize(csv)\n"
                             "while os.path.getsize(csv) == n: pass\n"
                             "c1, t1 = os.times(), time.clock_gettime(time.CLOCK_BOOTTIME)\n"
                             "open(own, 'w').write('%f\\n' % (100 * (c1.user + c1.system) / "
                             "(t1 - born)))\n",
                             arg);
    if (argv) {
        CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
        struct sum_run *run = summarize(dir);
        char *t = th_read_file(own, NULL);
        double truth = NAN;
        CU_ASSERT_FATAL(t && sscanf(t, "%lf", &truth) == 1);
        const struct sum_stat *cpu = &run->proc[HW_PROC_COL_CPU];
        double mean = sum_stat_mean(cpu);
        fprintf(stderr, "process CPU mean %.1f%%, max %.1f%%; the job's own %.1f%%\n", mean,
                cpu->max, truth);
        CU_ASSERT(mean <= 100.5);
        CU_ASSERT(fabs(mean - truth) <= 3);
        CU_ASSERT(cpu->max <= 100 + 100 * 0.01 / 0.25 + 0.05);
        CU_ASSERT(run->proc[HW_PROC_COL_RSS].min > 0); /* the exited job's row is no reading */
        free(t);
        sum_run_free(run);
    }
    free(argv);
    free(arg);
    free(csv);
    free(own);
    th_rmtree(dir);
    free(dir);
}

/* A job that grows from ~10 to ~130 MiB and exits: its memory growth is the job's own RSS at
 * its end less at its start (read by itself in /proc/self/status), within 10%; never from a
 * row of the process exiting (the interpreter freeing its memory, or its memory already gone:
 * 0) or exited (before: -16 MiB for a job that grew by 600, -282 MiB in issue 47). Each
 * chunk is filled by repetition, one pass over its pages: a page fault costs this machine's VMs
 * microseconds, and 600 MiB filled twice took 6 s. */
static void test_memory_growth(void)
{
    char *dir = th_tmpdir("edges-growth");
    char *own = th_fmt("%s/own", dir);
    char **argv = python_job(dir, "0.1",
                             "import sys, time\n"
                             "def rss():\n"
                             "    for l in open('/proc/self/status'):\n"
                             "        if l.startswith('VmRSS:'): return int(l.split()[1]) / 1024\n"
                             "r0 = rss()\n"
                             "time.sleep(0.15)\n"
                             "keep = [bytearray(b'x') * (40 << 20)]\n"
                             "time.sleep(0.15)\n"
                             "for i in range(2):\n"
                             "    keep.append(bytearray(b'x') * (40 << 20))\n"
                             "    time.sleep(0.025)\n"
                             "time.sleep(0.2)\n"
                             "open(sys.argv[1], 'w').write('%f %f\\n' % (r0, rss()))\n",
                             own);
    if (argv) {
        CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
        struct sum_run *run = summarize(dir);
        char *t = th_read_file(own, NULL);
        double r0 = NAN, r1 = NAN;
        CU_ASSERT_FATAL(t && sscanf(t, "%lf %lf", &r0, &r1) == 2 && r1 > r0 + 115);
        const struct sum_stat *rss = &run->proc[HW_PROC_COL_RSS];
        double growth = sum_run_memory_growth(run);
        fprintf(stderr, "memory growth %.1f MiB (the job's own %.1f to %.1f MiB), min %.1f\n",
                growth, r0, r1, rss->min);
        CU_ASSERT(fabs(growth - (r1 - r0)) <= 0.1 * (r1 - r0));
        CU_ASSERT(rss->min > 0);
        free(t);
        sum_run_free(run);
    }
    free(argv);
    free(own);
    th_rmtree(dir);
    free(dir);
}

/* A Python job's phases as the Python package logs them (one O_APPEND write a line), written
 * here so that the tests run with any build's librunlog, a sanitizer's too; io() is the job's
 * own write_bytes, its truth. sys.argv[1]: where the job writes its own figures (out). */
#define PY_PHASES                                                                                  \
    "import datetime, json, os, sys, time\n"                                                       \
    "out = sys.argv[1]\n"                                                                          \
    "fd = os.open(os.environ['RUNLOG_FILE'], os.O_WRONLY | os.O_APPEND)\n"                         \
    "ids = iter(range(1, 100000))\n"                                                               \
    "def line(**d):\n"                                                                             \
    "    d = dict(ts=datetime.datetime.now(datetime.timezone.utc)"                                 \
    ".isoformat(timespec='milliseconds'), **d)\n"                                                  \
    "    os.write(fd, (json.dumps(d) + '\\n').encode())\n"                                        \
    "def phase(name, body):\n"                                                                     \
    "    pid = str(next(ids))\n"                                                                   \
    "    line(type='phase_begin', name=name, phase_id=pid)\n"                                      \
    "    t = time.monotonic(); body()\n"                                                           \
    "    line(type='phase', name=name, phase_id=pid,\n"                                            \
    "         seconds=round(time.monotonic() - t, 6))\n"                                           \
    "def io():\n"                                                                                  \
    "    for l in open('/proc/self/io'):\n"                                                        \
    "        if l.startswith('write_bytes:'): return int(l.split()[1])\n"

/* The PyTorch-like loop of issue 47: 3 epochs of a `train` phase (0.3 s waiting on its GPU, no
 * writes: more than a quarter interval, so no burst) and a `checkpoint` phase (3 MiB written and
 * fsync'd, 10-40 ms), logged as the Python package does, the train's end and the checkpoint's
 * begin a few microseconds apart. Each checkpoint's proc_write_bytes is within 10% of the job's
 * own /proc/self/io delta around it, each train's within 5% of a checkpoint of 0. Before, the
 * checkpoint's end line came while hwmon held run.jsonl after the burst of the train's end and
 * its begin (0.1 s), its end was not sampled, and the row's bytes were shared by time:
 * checkpoints got 3-35%, trains the rest. */
static void test_checkpoint_io(void)
{
    char *dir = th_tmpdir("edges-ckpt");
    char *own = th_fmt("%s/own", dir);
    char **argv = python_job(dir, "1",
                             PY_PHASES
                             "def train():\n"
                             "    time.sleep(0.3)\n"
                             "def checkpoint():\n"
                             "    with open(out + '.ck', 'wb') as f:\n"
                             "        f.write(os.urandom(3 << 20)); f.flush(); os.fsync(f.fileno())\n"
                             "res = []\n"
                             "for ep in range(3):\n"
                             "    w0 = io(); phase('train', train)\n"
                             "    w1 = io(); phase('checkpoint', checkpoint)\n"
                             "    w2 = io()\n"
                             "    res.append('%d %d' % (w1 - w0, w2 - w1))\n"
                             "time.sleep(0.25)\n"
                             "open(out, 'w').write('\\n'.join(res) + '\\n')\n",
                             own);
    if (argv) {
        CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
        struct sum_run *run = summarize(dir);
        char *t = th_read_file(own, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        double truth[6] = {0};
        const char *c = t;
        for (int i = 0; i < 6; i++) {
            char *e;
            truth[i] = strtod(c, &e);
            CU_ASSERT_FATAL(e != c);
            c = e;
        }
        if (truth[1] < (1 << 20)) {
            th_skip("the temporary directory's filesystem counts no write_bytes (tmpfs?)");
        } else {
            CU_ASSERT_EQUAL_FATAL(run->nphase, 6);
            for (int i = 0; i < 6; i++) {
                const struct sum_phase_acc *p = &run->phase[i];
                double got = p->proc_io_seen ? p->proc_io[1] : NAN, want = truth[i];
                bool ckpt = i % 2;
                CU_ASSERT_STRING_EQUAL(p->name, ckpt ? "checkpoint" : "train");
                fprintf(stderr, "%s %.3f s: wrote %.0f, its own %.0f, edges %s\n", p->name,
                        p->t1 - p->t0, got, want, sum_phase_edges(p));
                /* a checkpoint's: 10% of its own; a train's: 5% of a checkpoint */
                CU_ASSERT(fabs(got - want) <= (ckpt ? 0.1 * want : 0.05 * (3 << 20)));
            }
        }
        free(t);
        sum_run_free(run);
    }
    free(argv);
    free(own);
    th_rmtree(dir);
    free(dir);
}

/* The training loop of most jobs: a `step` phase per step (30 ms of CPU, no writes), and every
 * 10 steps a `checkpoint` (its state serialized for 50 ms, then 3 MiB written and fsync'd),
 * at -i 1. The steps' boundaries come faster than a quarter interval, so hwmon reads run.jsonl
 * every 10 ms and merges the steps' ends; the checkpoint, a name none of the last 8 phases had,
 * has both its edges sampled. Each checkpoint's proc_write_bytes is within 10% of the job's own
 * /proc/self/io delta, the steps' within 5% of a checkpoint of 0. Before, a begin inside the
 * loop was never sampled and the log was read every 0.1 s: checkpoints got 10-25% of their
 * bytes, all "measured". */
static void test_checkpoint_in_step_loop(void)
{
    char *dir = th_tmpdir("edges-steps");
    char *own = th_fmt("%s/own", dir);
    char **argv = python_job(dir, "1",
                             PY_PHASES
                             "def step():\n"
                             "    t = time.monotonic()\n"
                             "    while time.monotonic() - t < 0.03: pass\n"
                             "def checkpoint():\n"
                             "    time.sleep(0.05)\n"
                             "    with open(out + '.ck', 'wb') as f:\n"
                             "        f.write(os.urandom(3 << 20)); f.flush(); os.fsync(f.fileno())\n"
                             "res, steps = [], 0\n"
                             "for s in range(1, 21):\n"
                             "    w0 = io(); phase('step', step); steps += io() - w0\n"
                             "    if s % 10 == 0:\n"
                             "        w1 = io(); phase('checkpoint', checkpoint)\n"
                             "        res.append(io() - w1)\n"
                             "time.sleep(0.25)\n"
                             "open(out, 'w').write(' '.join(map(str, res + [steps])) + '\\n')\n",
                             own);
    if (argv) {
        CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
        struct sum_run *run = summarize(dir);
        char *t = th_read_file(own, NULL);
        double truth[3]; /* the two checkpoints' bytes, the steps' */
        CU_ASSERT_FATAL(t && sscanf(t, "%lf %lf %lf", &truth[0], &truth[1], &truth[2]) == 3);
        if (truth[0] < (1 << 20)) {
            th_skip("the temporary directory's filesystem counts no write_bytes (tmpfs?)");
        } else {
            CU_ASSERT_EQUAL_FATAL(run->nphase, 22);
            double steps = 0;
            int k = 0;
            for (size_t i = 0; i < run->nphase; i++) {
                const struct sum_phase_acc *p = &run->phase[i];
                double got = p->proc_io_seen ? p->proc_io[1] : NAN;
                if (strcmp(p->name, "checkpoint")) {
                    steps += got;
                    continue;
                }
                fprintf(stderr, "checkpoint %.3f s: wrote %.0f, its own %.0f, edges %s\n",
                        p->t1 - p->t0, got, truth[k], sum_phase_edges(p));
                CU_ASSERT(fabs(got - truth[k]) <= 0.1 * truth[k]);
                k++;
            }
            CU_ASSERT_EQUAL(k, 2);
            fprintf(stderr, "steps: wrote %.0f, their own %.0f\n", steps, truth[2]);
            CU_ASSERT(fabs(steps - truth[2]) <= 0.05 * (3 << 20));
        }
        free(t);
        sum_run_free(run);
    }
    free(argv);
    free(own);
    th_rmtree(dir);
    free(dir);
}

/* The job's CPU seconds and its write() bytes as SLURM's accounting counts them (issue 51): the
 * stop event's cpu_s is what the shell's own `times` says of it and its children, and wchar
 * holds dd's 8 MiB written by write(). The shell waits for two more proc_metrics.csv rows after
 * dd, so that a sample has seen dd's bytes in its parent's counters. */
static void test_cpu_and_wchar(void)
{
    char *dir = th_tmpdir("edges-cpu");
    char **argv = ht_argv(dir, "--no-gpu", "-i", "0.1", "--", "/bin/sh", "-c",
                          "dd if=/dev/zero of=\"$HWMON_DIR/w\" bs=1048576 count=8 2>/dev/null\n"
                          "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done\n"
                          "p=\"$HWMON_DIR/" HW_PROC_FILE "\"; n=$(wc -l < \"$p\"); k=0\n"
                          "while [ $(wc -l < \"$p\") -lt $((n+2)) ] && [ $k -lt 1200 ]; do\n"
                          "  sleep 0.05; k=$((k+1)); done\n"
                          "times > \"$HWMON_DIR/times.txt\"\n",
                          NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 120, NULL), 0);
    char *tp = th_fmt("%s/times.txt", dir);
    char *t = th_read_file(tp, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* "0m0.52s 0m0.01s\n0m0.00s 0m0.03s\n": the shell's user and system, its children's */
    int m[4];
    double sec[4];
    CU_ASSERT_FATAL(sscanf(t, "%dm%lfs %dm%lfs %dm%lfs %dm%lfs", &m[0], &sec[0], &m[1], &sec[1],
                           &m[2], &sec[2], &m[3], &sec[3]) == 8);
    double truth = 0;
    for (int i = 0; i < 4; i++)
        truth += 60.0 * m[i] + sec[i];
    struct sum_run *run = summarize(dir);
    double cpu = run->info.cpu_s;
    /* times: 4 readings in 10 ms ticks; after it, the shell's exit */
    bool near = cpu >= truth - 0.04 && cpu <= truth + 0.1;
    if (!near)
        fprintf(stderr, "stop event's cpu_s %.3f, times says %.3f\n", cpu, truth);
    CU_ASSERT(truth > 0.05); /* the loop did burn CPU */
    CU_ASSERT(near);
    double wchar = run->proc[HW_PROC_COL_WCHAR].max;
    CU_ASSERT(wchar >= 8 * 1048576.0 && wchar < 9 * 1048576.0);
    sum_run_free(run);
    free(t);
    free(tp);
    free(argv);
    th_rmtree(dir);
    free(dir);
}

/* run.jsonl rotated while the job runs, as logrotate does it (at -i 1, so that a phase measured
 * at both edges after the rotation proves hwmon followed the name, not its cadence):
 * - renamed to run.jsonl.1, the next line makes it again: one run, both halves' phases, the
 *   part read first, status ok (hwmon's stop event is in the new file, its start in the old),
 *   hwmon's log_rotated event, and p2 measured at its edges;
 * - copied and truncated in place (copytruncate), or deleted: the run goes on in the file, and
 *   the summary says the lines before are not in it. */
static void test_log_rotated(void)
{
    static const struct {
        const char *rotate, *how;
        unsigned parts;
        const char *phases[2], *note;
    } cases[] = {
        {"mv \"$RUNLOG_FILE\" \"$RUNLOG_FILE.1\"", HW_LOG_HOW_RENAMED, 1, {"p1", "p2"},
         "rotated while the run went on: its 1 earlier part"},
        {"cp \"$RUNLOG_FILE\" \"$RUNLOG_FILE.1\"; : > \"$RUNLOG_FILE\"", HW_LOG_HOW_TRUNCATED, 0,
         {"p2", NULL}, "was truncated while the run went on"},
        {"rm \"$RUNLOG_FILE\"", HW_LOG_HOW_DELETED, 0, {"p2", NULL},
         "was deleted while the run went on"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *dir = th_tmpdir("edges-rotated");
        /* all before the first cadence sample (1 s): p2's edges are read only by following
         * run.jsonl's name; p2 lasts more than a quarter interval, so both are sampled */
        char *script = th_fmt("\"$0\" time p1 -- sleep 0.05; %s; sleep 0.05; "
                              "\"$0\" time p2 -- sleep 0.3",
                              cases[c].rotate);
        char **argv = ht_argv(dir, "--no-gpu", "-i", "1", "--", "/bin/sh", "-c", script,
                              th_env("HWRUN_RUNLOG_BIN"), NULL);
        CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 0);
        json_object *rot = ht_event(dir, HW_EV_LOG_ROTATED, 0), *stop = ht_event(dir, HW_EV_STOP, 0);
        CU_ASSERT_PTR_NOT_NULL(stop);
        CU_ASSERT_STRING_EQUAL(ht_data_str(rot, HW_LOG_HOW) ?: "", cases[c].how);
        struct sum_run *run = summarize(dir);
        CU_ASSERT_EQUAL(run->outcome.status, SUM_STATUS_OK);
        CU_ASSERT_EQUAL(run->q[HW_FILE_RUNLOG].parts, cases[c].parts);
        CU_ASSERT_EQUAL(run->info.starts, cases[c].parts ? 1 : 0);
        for (int i = 0; i < 2 && cases[c].phases[i]; i++) {
            const struct sum_phase_acc *p = phase_named(run, cases[c].phases[i]);
            CU_ASSERT_PTR_NOT_NULL_FATAL(p);
            if (!strcmp(p->name, "p2")) /* after the rotation: followed */
                CU_ASSERT_STRING_EQUAL(sum_phase_edges(p), "measured");
        }
        char note[300] = "";
        for (int i = 0; i < SUM_NOTE_COUNT && !strstr(note, HW_RUNLOG_FILE); i++)
            sum_run_note(run, i, note, sizeof note);
        CU_ASSERT_PTR_NOT_NULL(strstr(note, cases[c].note));
        if (!strstr(note, cases[c].note))
            fprintf(stderr, "%s: note \"%s\"\n", cases[c].how, note);
        sum_run_free(run);
        json_object_put(rot);
        json_object_put(stop);
        free(argv);
        free(script);
        th_rmtree(dir);
        free(dir);
    }
}

void add_edges_suite(void);
void add_edges_suite(void)
{
    CU_pSuite s = th_add_suite("edges", NULL, NULL, 240);
    CU_add_test(s, "last_interval_counted", test_last_interval_counted);
    CU_add_test(s, "tree_final_io", test_tree_final_io);
    CU_add_test(s, "tree_io_never_falls", test_tree_io_never_falls);
    CU_add_test(s, "job_starts_first", test_job_starts_first);
    CU_add_test(s, "phase_cpu_at_edges", test_phase_cpu_at_edges);
    CU_add_test(s, "short_phases_measured", test_short_phases_measured);
    CU_add_test(s, "begin_after_end", test_begin_after_end);
    CU_add_test(s, "main_peak_from_kernel", test_main_peak_from_kernel);
    CU_add_test(s, "busy_loop_cpu", test_busy_loop_cpu);
    CU_add_test(s, "memory_growth", test_memory_growth);
    CU_add_test(s, "checkpoint_io", test_checkpoint_io);
    CU_add_test(s, "checkpoint_in_step_loop", test_checkpoint_in_step_loop);
    CU_add_test(s, "cpu_and_wchar", test_cpu_and_wchar);
    CU_add_test(s, "log_rotated", test_log_rotated);
}
