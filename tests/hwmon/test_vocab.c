/* The run directory's vocabulary (hwrun/rundir.h) seen from both sides: what hwmon writes is
 * exactly what summarize's default layout expects. Every file hwmon creates has a reader, every
 * CSV header cell is a column summarize knows, in its table's order, every value lands in the
 * column summarize reads it from, and every event hwmon logs is one the table names. */
#include <CUnit/CUnit.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvout.h"
#include "runfiles.h"
#include "hwrun/rundir.h"
#include "hwrun/buf.h"
#include "hwtest.h"
#include "readers.h"
#include "summary.h"
#include "timescale.h"
#include "verdicts.h" /* sum_run_summarize */

/* Is header ("timestamp,a,b\n") HW_COL_TIMESTAMP followed by names[] in order, with exactly
 * the ones in want[] (a mask over names)? */
static void check_header(const char *header, const char *const *names, size_t n, const bool *want)
{
    char *h = strdup(header);
    size_t len = strlen(h);
    CU_ASSERT_FATAL(len > 0 && h[len - 1] == '\n');
    h[len - 1] = '\0';
    char *save = NULL, *cell = strtok_r(h, ",", &save);
    CU_ASSERT_STRING_EQUAL(cell, HW_COL_TIMESTAMP);
    size_t next = 0; /* every cell must be a later name of the table than the one before */
    bool seen[64] = {false};
    while ((cell = strtok_r(NULL, ",", &save))) {
        if (!strcmp(cell, HW_COL_EDGE)) { /* the last column, the reader's own (not a figure) */
            CU_ASSERT_PTR_NULL(strtok_r(NULL, ",", &save));
            break;
        }
        size_t k = next;
        while (k < n && strcmp(names[k], cell))
            k++;
        CU_ASSERT(k < n); /* known to the reader, and not out of the table's order */
        if (k >= n) {
            fprintf(stderr, "header cell \"%s\" is not where summarize's table has it\n", cell);
            break;
        }
        seen[k] = true;
        next = k + 1;
    }
    for (size_t k = 0; k < n; k++)
        CU_ASSERT_EQUAL(seen[k], want[k]);
    free(h);
}

struct rows {
    struct rd_cpu_row cpu;
    struct rd_proc_row proc;
    int n_cpu, n_proc;
};

static void on_cpu(void *ctx, const struct rd_cpu_row *r)
{
    struct rows *x = ctx;
    x->cpu = *r;
    x->n_cpu++;
}

static void on_proc(void *ctx, const struct rd_proc_row *r)
{
    struct rows *x = ctx;
    x->proc = *r;
    x->n_proc++;
}

/* Feed text to a summarize reader of kind; the last row lands in rows. */
static void read_back(enum hw_file kind, const char *text, struct rows *rows)
{
    struct rd_sink sink = {.ctx = rows, .cpu = on_cpu, .proc = on_proc};
    struct rd_quality q;
    struct rd_reader *r = rd_reader_new(kind, NULL, NULL, &sink, &q);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    rd_reader_feed(r, text, strlen(text));
    rd_reader_finish(r);
    rd_reader_free(r);
    CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
    CU_ASSERT_EQUAL(q.bad_cells, 0);
}

/* hwmon's header and line writers against summarize's tables and reader, for every variant
 * (inside a cgroup or not, with PSS or not). Each value is distinct, so a column written
 * under another's name would be read back wrong. */
static void test_csv_columns(void)
{
    CU_ASSERT_EQUAL(HW_CPU_COL_COUNT, HW_CPU_COL_COUNT);
    CU_ASSERT_EQUAL(HW_PROC_COL_COUNT, HW_PROC_COL_COUNT);
    for (int cg = 0; cg <= 1; cg++) {
        struct hw_buf b;
        hw_buf_init(&b, NULL, 0);
        mon_csv_cpu_header(&b, cg);
        bool want[HW_CPU_COL_COUNT];
        for (int k = 0; k < HW_CPU_COL_COUNT; k++) /* the cgroup group only inside one */
            want[k] = cg || k < HW_CPU_COL_FIRST_CGROUP || k >= HW_CPU_COL_FIRST_IO;
        check_header(b.p, hw_cpu_cols, HW_CPU_COL_COUNT, want);
        struct mon_sys_sample s = {
            .have_cpu = true,
            .have_mem = true,
            .usr_pct = 1.5,
            .idle_pct = 2.5,
            .sys_pct = 3.5,
            .iowait_pct = 4.5,
            .steal_pct = 5.5,
            .mem_used_mib = 6.5,
            .mem_avail_mib = 7.5,
            .cg = {.have_limit = true, .have_cpu = true, .have_mem = true, .have_mem_max = true,
                   .have_mem_peak = true, .limit_cores = 0.25, .cpu_pct = 9.5,
                   .mem_cur_mib = 10.5, .mem_max_mib = 11.5, .mem_peak_mib = 12.5},
            .io = {.have_disk = true, .have_net = true, .have_fs = true, .disk_read_bytes = 13,
                   .disk_write_bytes = 14, .net_rx_bytes = 15, .net_tx_bytes = 16,
                   .fs_free_mib = 17.5},
            .have_mem_parts = true,
            .mem_total_mib = 18.5,
            .mem_free_mib = 19.5,
            .mem_buffers_mib = 20.5,
            .mem_cached_mib = 21.5,
            .mem_active_anon_mib = 22.5,
            .mem_inactive_anon_mib = 23.5,
            .have_sreclaimable = true,
            .mem_sreclaimable_mib = 24.5};
        mon_csv_cpu_line(&b, "2026-11-21T15:27:49.697+00:00", &s, cg, false);
        struct rows rows = {0};
        read_back(HW_FILE_CPU, b.p, &rows);
        CU_ASSERT_EQUAL_FATAL(rows.n_cpu, 1);
        const double want_v[HW_CPU_COL_COUNT] = {
            [HW_CPU_COL_USR] = 1.5,       [HW_CPU_COL_IDLE] = 2.5,       [HW_CPU_COL_SYS] = 3.5,
            [HW_CPU_COL_IOWAIT] = 4.5,    [HW_CPU_COL_STEAL] = 5.5,      [HW_CPU_COL_MEM_USED] = 6.5,
            [HW_CPU_COL_MEM_AVAIL] = 7.5, [HW_CPU_COL_CG_LIMIT] = 0.25,  [HW_CPU_COL_CG_PCT] = 9.5,
            [HW_CPU_COL_CG_MEM] = 10.5,   [HW_CPU_COL_CG_MEM_MAX] = 11.5, [HW_CPU_COL_CG_MEM_PEAK] = 12.5,
            [HW_CPU_COL_DISK_READ] = 13,  [HW_CPU_COL_DISK_WRITE] = 14,   [HW_CPU_COL_NET_RX] = 15,
            [HW_CPU_COL_NET_TX] = 16,     [HW_CPU_COL_FS_FREE] = 17.5,    [HW_CPU_COL_MEM_TOTAL] = 18.5,
            [HW_CPU_COL_MEM_FREE] = 19.5, [HW_CPU_COL_MEM_BUFFERS] = 20.5,
            [HW_CPU_COL_MEM_CACHED] = 21.5, [HW_CPU_COL_MEM_ACTIVE_ANON] = 22.5,
            [HW_CPU_COL_MEM_INACTIVE_ANON] = 23.5, [HW_CPU_COL_MEM_SRECLAIMABLE] = 24.5};
        for (int k = 0; k < HW_CPU_COL_COUNT; k++) {
            if (want[k]) {
                CU_ASSERT_DOUBLE_EQUAL(rows.cpu.v[k], want_v[k], 1e-9);
            } else {
                CU_ASSERT_TRUE(isnan(rows.cpu.v[k]));
            }
        }
        hw_buf_free(&b);
    }
    for (int pss = 0; pss <= 1; pss++) {
        struct hw_buf b;
        hw_buf_init(&b, NULL, 0);
        mon_csv_proc_header(&b, pss);
        bool want[HW_PROC_COL_COUNT];
        for (int k = 0; k < HW_PROC_COL_COUNT; k++)
            want[k] = pss || k != HW_PROC_COL_PSS;
        check_header(b.p, hw_proc_cols, HW_PROC_COL_COUNT, want);
        struct mon_tree_sample s = {.have_cpu = true,
                                    .have_pss = true,
                                    .procs = 1,
                                    .threads = 2,
                                    .cpu_pct = 3.5,
                                    .rss_mib = 4.5,
                                    .io = {[MON_IO_READ_BYTES] = 5, [MON_IO_WRITE_BYTES] = 6,
                                           [MON_IO_RCHAR] = 15, [MON_IO_WCHAR] = 16,
                                           [MON_IO_SYSCR] = 17, [MON_IO_SYSCW] = 18,
                                           [MON_IO_CANCELLED] = 19},
                                    .private_mib = 13.5,
                                    .shared_mib = 14.5,
                                    .pss_mib = 7.5,
                                    .main_rss_mib = 8.5,
                                    .main_cpu_pct = 9.5,
                                    .main_threads = 10,
                                    .usr_cpu_pct = 11.5,
                                    .sys_cpu_pct = 12.5,
                                    .have_main_pss = true,
                                    .main_private_mib = 20.5,
                                    .main_shared_mib = 21.5,
                                    .have_shared_once = {true, true, true},
                                    .shared_once_mib = {[MON_SO_MAIN] = 22.5, [MON_SO_DESC] = 23.5,
                                                        [MON_SO_ALL] = 24.5}};
        mon_csv_proc_line(&b, "2026-11-21T15:27:49.697+00:00", &s, pss, false);
        struct rows rows = {0};
        read_back(HW_FILE_PROC, b.p, &rows);
        CU_ASSERT_EQUAL_FATAL(rows.n_proc, 1);
        const double want_v[HW_PROC_COL_COUNT] = {
            [HW_PROC_COL_PROCS] = 1,         [HW_PROC_COL_THREADS] = 2,    [HW_PROC_COL_CPU] = 3.5,
            [HW_PROC_COL_RSS] = 4.5,         [HW_PROC_COL_READ] = 5,       [HW_PROC_COL_WRITE] = 6,
            [HW_PROC_COL_PSS] = 7.5,         [HW_PROC_COL_MAIN_RSS] = 8.5, [HW_PROC_COL_MAIN_CPU] = 9.5,
            [HW_PROC_COL_MAIN_THREADS] = 10, [HW_PROC_COL_USR_CPU] = 11.5, [HW_PROC_COL_SYS_CPU] = 12.5,
            [HW_PROC_COL_PRIVATE] = 13.5,    [HW_PROC_COL_SHARED] = 14.5,  [HW_PROC_COL_RCHAR] = 15,
            [HW_PROC_COL_WCHAR] = 16,        [HW_PROC_COL_SYSCR] = 17,     [HW_PROC_COL_SYSCW] = 18,
            [HW_PROC_COL_CANCELLED] = 19,    [HW_PROC_COL_MAIN_PRIVATE] = 20.5,
            [HW_PROC_COL_MAIN_SHARED] = 21.5, [HW_PROC_COL_SHARED_ONCE] = 24.5,
            [HW_PROC_COL_MAIN_SHARED_ONCE] = 22.5, [HW_PROC_COL_DESC_SHARED_ONCE] = 23.5};
        for (int k = 0; k < HW_PROC_COL_COUNT; k++) {
            if (want[k]) {
                CU_ASSERT_DOUBLE_EQUAL(rows.proc.v[k], want_v[k], 1e-9);
            } else {
                CU_ASSERT_TRUE(isnan(rows.proc.v[k]));
            }
        }
        hw_buf_free(&b);
    }
}

static bool in_table(const char *const *t, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] && !strcmp(t[i], s))
            return true;
    return false;
}

/* The events of dir/run.jsonl: each must be one hw_events names; returns which were seen. */
static void check_events(const char *dir, bool seen[HW_EV_COUNT])
{
    char *p = th_fmt("%s/" HW_RUNLOG_FILE, dir);
    char *text = th_read_file(p, NULL);
    free(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
        *nl = '\0';
        json_object *o = json_tokener_parse(line), *ev;
        CU_ASSERT_PTR_NOT_NULL(o);
        if (o && json_object_object_get_ex(o, "event", &ev)) {
            const char *name = json_object_get_string(ev);
            bool known = false;
            for (int i = 0; i < HW_EV_COUNT; i++)
                if (!strcmp(hw_events[i], name))
                    known = seen[i] = true;
            CU_ASSERT_TRUE(known);
            if (!known)
                fprintf(stderr, "hwmon logged \"%s\", which hwrun/rundir.h does not name\n", name);
        }
        json_object_put(o);
        line = nl + 1;
    }
    free(text);
}

/* Every file in dir is one summarize reads. */
static void check_files(const char *dir, int *n_files)
{
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct dirent *e;
    *n_files = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "smi.log") || !strcmp(e->d_name, "die"))
            continue; /* the test's own */
        CU_ASSERT_TRUE(in_table(hw_file_names, HW_FILE_COUNT, e->d_name));
        (*n_files)++;
    }
    closedir(d);
}

/* hwmon with every optional file (--gpu-procs, --pmon, GPM on some GPUs, the fake NVML's
 * energy counters, the health child), a driver that rejects a
 * field and a child that dies once (child_exit, child_restart): then summarize's readers take
 * every file whole with their default layouts. */
static void test_hwmon_writes_what_summarize_reads(void)
{
    char *dir = th_tmpdir("hwmon-vocab");
    char *out = th_fmt("%s/run", dir);
    char *env[] = {th_fmt("FAKE_SMI_LOG=%s/smi.log", dir),
                   "FAKE_SMI_REJECT=clocks.current.memory",
                   "FAKE_SMI_GPM=0",
                   th_fmt("FAKE_SMI_APPS=%ld:0:512:python3", (long)getpid()),
                   "FAKE_SMI_DIE_AFTER=2",
                   th_fmt("FAKE_SMI_DIE_ONCE=%s/die", dir),
                   th_fmt("HWMON_NVML_LIBRARY=%s", th_env("HWRUN_FAKE_NVML")),
                   /* the restart's backoff (1 s) at a tenth: no figure here is a duration */
                   MON_TIME_SCALE_ENV "=0.1",
                   NULL};
    /* the job lasts until the dead child was restarted, every CSV of the table is there and each
     * has a row (2.4 s were not enough for a loaded ASan hwmon); its grep looks for the event
     * (event[^a-z]*NAME), not for its own command line, which the start event quotes */
    int csvs = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        size_t n = strlen(hw_file_names[k]);
        csvs += n > 4 && !strcmp(hw_file_names[k] + n - 4, ".csv");
    }
    char *job = th_fmt("timeout 60 sh -c 'd=$(dirname \"$RUNLOG_FILE\"); "
                       "until grep -q \"event[^a-z]*%s\" \"$RUNLOG_FILE\" && "
                       "[ $(ls \"$d\" | grep -c \"[.]csv$\") -ge %d ]; do sleep 0.05; done; "
                       "for f in \"$d\"/*.csv; do until [ $(wc -l < \"$f\") -ge 2 ]; do sleep 0.05; "
                       "done; done'",
                       HW_EV_CHILD_RESTART, csvs);
    char **argv = ht_argv(out, "-i", "0.2", "--gpu-procs", "--pmon", "--", "sh", "-c", job, NULL);
    struct th_result res;
    CU_ASSERT_EQUAL(ht_run(argv, env, 120, &res), 0);
    th_result_free(&res);
    free(job);

    int n_files;
    check_files(out, &n_files);
    CU_ASSERT_EQUAL(n_files, HW_FILE_COUNT); /* every file of the table, nothing else */
    bool seen[HW_EV_COUNT] = {false};
    check_events(out, seen);
    const char *expect[] = {HW_EV_START,           HW_EV_STOP,       HW_EV_GPU_FIELDS_FALLBACK,
                            HW_EV_GPM_UNAVAILABLE, HW_EV_CHILD_EXIT, HW_EV_CHILD_RESTART};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        for (int k = 0; k < HW_EV_COUNT; k++)
            if (!strcmp(hw_events[k], expect[i]) && !seen[k]) {
                CU_FAIL("an expected event is missing");
                fprintf(stderr, "no %s event\n", expect[i]);
            }

    /* the headers */
    char *p = th_fmt("%s/" HW_CPU_FILE, out);
    char *text = th_read_file(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    *strchr(text, '\n') = '\0';
    strcat(text, "\n");
    bool want_cpu[HW_CPU_COL_COUNT];
    bool cg = strstr(text, hw_cpu_cols[HW_CPU_COL_FIRST_CGROUP]) != NULL;
    for (int k = 0; k < HW_CPU_COL_COUNT; k++)
        want_cpu[k] = cg || k < HW_CPU_COL_FIRST_CGROUP || k >= HW_CPU_COL_FIRST_IO;
    check_header(text, hw_cpu_cols, HW_CPU_COL_COUNT, want_cpu);
    free(text);
    free(p);
    p = th_fmt("%s/" HW_PROC_FILE, out);
    text = th_read_file(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    *strchr(text, '\n') = '\0';
    strcat(text, "\n");
    bool want_proc[HW_PROC_COL_COUNT];
    for (int k = 0; k < HW_PROC_COL_COUNT; k++)
        want_proc[k] = true;
    check_header(text, hw_proc_cols, HW_PROC_COL_COUNT, want_proc);
    free(text);
    free(p);

    /* summarize reads it all: nothing skipped but the row the dying child tore */
    struct sum_run *run = sum_run_new();
    char *storage[HW_FILE_COUNT] = {0};
    struct sum_inputs in;
    sum_inputs_from_dir(&in, out, storage);
    struct sum_config cfg = {0};
    CU_ASSERT_EQUAL(sum_run_summarize(run, &in, &cfg), 0);
    uint64_t skipped = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const struct rd_quality *q = &run->q[k];
        CU_ASSERT_TRUE(q->present);
        CU_ASSERT(q->parsed > 0);
        CU_ASSERT_EQUAL(q->bad_cells, 0);
        CU_ASSERT_EQUAL(q->skipped[RD_SKIP_LAYOUT], 0);
        CU_ASSERT_EQUAL(q->skipped[RD_SKIP_TIMESTAMP], 0);
        skipped += rd_quality_skipped_total(q);
        if (rd_quality_skipped_total(q))
            fprintf(stderr, "%s: %llu lines skipped\n", hw_file_names[k],
                    (unsigned long long)rd_quality_skipped_total(q));
    }
    CU_ASSERT(skipped <= 1);
    CU_ASSERT_TRUE(run->info.have_fields); /* the fallback's field list was found */
    CU_ASSERT_PTR_NULL(strstr(run->info.gpu_fields, "clocks.current.memory"));
    CU_ASSERT(isfinite(run->info.interval_s));
    CU_ASSERT_TRUE(run->info.have_tz);
    CU_ASSERT_EQUAL(run->info.child_restarts, 1);
    CU_ASSERT(run->info.pid_ns != 0);
    CU_ASSERT_EQUAL(run->outcome.exit_status, 0);
    CU_ASSERT_STRING_EQUAL(run->outcome.stop_reason, "command_exit");
    CU_ASSERT(run->outcome.hwmon_pid > 0);
    CU_ASSERT(run->cgroup_json == NULL || strstr(run->cgroup_json, "\"path\"") != NULL);

    /* the stop event counts the rows of every file hwmon writes itself, keyed by the table's
     * stems, and nothing else: each file holds its count (nothing lost on this disk) */
    json_object *stop = ht_event(out, HW_EV_STOP, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    json_object *rows = ht_data(stop, HW_STOP_SAMPLES), *lost = ht_data(stop, HW_STOP_SAMPLES_LOST);
    CU_ASSERT_FATAL(rows && lost && json_object_is_type(rows, json_type_object) &&
                    json_object_is_type(lost, json_type_object));
    int own = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        if (hw_run_files[k].by != HW_BY_HWMON)
            continue;
        own++;
        json_object *n = NULL, *l = NULL;
        bool both = json_object_object_get_ex(rows, hw_run_files[k].stem, &n) &&
                    json_object_object_get_ex(lost, hw_run_files[k].stem, &l);
        CU_ASSERT_TRUE(both);
        if (!both) {
            fprintf(stderr, "stop event: no %s in %s or %s\n", hw_run_files[k].stem,
                    HW_STOP_SAMPLES, HW_STOP_SAMPLES_LOST);
            continue;
        }
        CU_ASSERT_EQUAL(json_object_get_int64(l), 0);
        CU_ASSERT_EQUAL(json_object_get_int64(n), (int64_t)run->q[k].parsed);
        if (json_object_get_int64(n) != (int64_t)run->q[k].parsed)
            fprintf(stderr, "stop event: %s %lld rows, %s holds %llu\n", hw_run_files[k].stem,
                    (long long)json_object_get_int64(n), hw_file_names[k],
                    (unsigned long long)run->q[k].parsed);
    }
    CU_ASSERT(own >= 3); /* cpu, proc, tree_pids at least */
    CU_ASSERT_EQUAL(json_object_object_length(rows), own);
    CU_ASSERT_EQUAL(json_object_object_length(lost), own);
    CU_ASSERT_EQUAL(run->info.samples_lost, 0);
    json_object_put(stop);

    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(storage[k]);
    sum_run_free(run);

    free(env[0]);
    free(env[3]);
    free(env[5]);
    free(env[6]);
    free(argv);
    free(out);
    th_rmtree(dir);
    free(dir);
}

/* The fake nvidia-smi answers every field of the GPU figures' table (and each other name), as
 * the real one does on its H100 (a number, or [N/A] where the board has none, fan.speed), its
 * header's unit, where it prints one, the figure's; and the default list whole, a cell a field,
 * whatever entries join it. A name it does not know fails as nvidia-smi's does. */
static void test_fake_answers_every_figure(void)
{
    struct {
        const char *field;
        int fig;
    } all[64];
    size_t nall = 0;
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++) {
        CU_ASSERT_FATAL(nall < sizeof all / sizeof all[0]);
        all[nall].field = hw_gpu_figs[k].field, all[nall++].fig = k;
        for (const struct hw_gpu_alias *a = hw_gpu_figs[k].aliases; a && a->field; a++) {
            CU_ASSERT_FATAL(nall < sizeof all / sizeof all[0]);
            all[nall].field = a->field, all[nall++].fig = k;
        }
    }
    char *smi = (char *)th_env("HWRUN_FAKE_SMI");
    for (size_t i = 0; i < nall; i++) {
        char *q = th_fmt("--query-gpu=%s", all[i].field);
        char *argv[] = {smi, q, (char *)"--format=csv", (char *)"-i", (char *)"0", NULL};
        struct th_result r;
        CU_ASSERT_EQUAL(th_run(argv, NULL, NULL, 30, &r), 0);
        CU_ASSERT_EQUAL(r.status, 0);
        const char *unit = hw_gpu_dims[hw_gpu_figs[all[i].fig].dim].unit;
        /* header: the canonical name, then " [unit]" or nothing */
        const char *nl = r.out ? strchr(r.out, '\n') : NULL;
        const char *br = r.out ? strchr(r.out, '[') : NULL;
        CU_ASSERT_PTR_NOT_NULL(nl);
        if (br && nl && br < nl) {
            char *want = th_fmt("[%s]\n", unit);
            CU_ASSERT(!strncmp(br, want, strlen(want)));
            if (strncmp(br, want, strlen(want)))
                fprintf(stderr, "%s: header %.*s, unit %s\n", all[i].field, (int)(nl - r.out),
                        r.out, unit);
            free(want);
        }
        /* one row: a number, or the board's [N/A] */
        const char *row = nl ? nl + 1 : "";
        char *end;
        double v = strtod(row, &end);
        CU_ASSERT((end != row && isfinite(v)) || !strncmp(row, "[N/A]", 5));
        th_result_free(&r);
        free(q);
    }
    char *q = th_fmt("--query-gpu=%s", hw_gpu_fields_default());
    char *argv[] = {smi, q, (char *)"--format=csv,noheader,nounits", (char *)"-i", (char *)"1",
                    NULL};
    struct th_result r;
    CU_ASSERT_EQUAL(th_run(argv, NULL, NULL, 30, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    size_t fields = 1, cells = 1;
    for (const char *p = hw_gpu_fields_default(); *p; p++)
        fields += *p == ',';
    for (const char *p = r.out ? r.out : ""; *p && *p != '\n'; p++)
        cells += *p == ',';
    CU_ASSERT_EQUAL(cells, fields);
    th_result_free(&r);
    free(q);
    char *bad[] = {smi, (char *)"--query-gpu=timestamp,fan.speeed", (char *)"--format=csv", NULL};
    CU_ASSERT_EQUAL(th_run(bad, NULL, NULL, 30, &r), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT(r.out && !strcmp(r.out, "Field \"fan.speeed\" is not a valid field to query.\n\n"));
    th_result_free(&r);
}

/* The fake's H100s have no fan: every row of hwmon's default list says [N/A] for fan.speed.
 * summarize counts no placeholder for it and fires nothing, but its data-quality notes say it
 * once, with the rows: the text's note and the JSON's quality.files[].not_reported. */
static void test_fake_fan_not_reported(void)
{
    char *smi = (char *)th_env("HWRUN_FAKE_SMI");
    char *q = th_fmt("--query-gpu=%s", hw_gpu_fields_default());
    char *argv[] = {smi, q, (char *)"--format=csv,noheader,nounits", (char *)"-i", (char *)"0,1",
                    NULL};
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(th_run(argv, NULL, NULL, 30, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.out);
    int rows = 0, na = 0;
    for (const char *p = r.out; (p = strchr(p, '\n')); p++)
        rows++;
    for (const char *p = r.out; (p = strstr(p, "[N/A]")); p++)
        na++;
    CU_ASSERT_EQUAL(rows, 2);
    CU_ASSERT_EQUAL(na, 2); /* fan.speed, and nothing else */
    char *dir = th_tmpdir("hwmon-vocab-fan");
    char *csv = th_fmt("%s/%s", dir, HW_GPU_FILE);
    CU_ASSERT_EQUAL_FATAL(th_write_file(csv, r.out, r.out_len), 0);
    th_result_free(&r);
    char *text[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", (char *)"-f",
                    (char *)"text", dir, NULL};
    CU_ASSERT_EQUAL_FATAL(th_run(text, NULL, NULL, 60, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    char *note = th_fmt("  note: %s: %s: not reported by the board ([N/A] in 2 rows)\n",
                        HW_GPU_FILE, hw_gpu_figs[HW_GM_FAN].label);
    CU_ASSERT(r.out && strstr(r.out, note));
    CU_ASSERT_PTR_NULL(r.out ? strstr(r.out, "placeholder") : NULL);
    if (!r.out || !strstr(r.out, note))
        fprintf(stderr, "text lacks '%s':\n%s", note, r.out ? r.out : "");
    th_result_free(&r);
    char *json[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", dir, NULL};
    CU_ASSERT_EQUAL_FATAL(th_run(json, NULL, NULL, 60, &r), 0);
    json_object *doc = r.out ? json_tokener_parse(r.out) : NULL, *o;
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "quality", &o) &&
                    json_object_object_get_ex(o, "placeholders", &o));
    CU_ASSERT_EQUAL(json_object_get_int64(o), 0);
    json_object *nr, *fan;
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "quality", &o) &&
                    json_object_object_get_ex(o, "files", &o) &&
                    json_object_object_get_ex(o, HW_GPU_FILE, &o) &&
                    json_object_object_get_ex(o, "not_reported", &nr));
    CU_ASSERT_EQUAL(json_object_object_length(nr), 1);
    CU_ASSERT_FATAL(json_object_object_get_ex(nr, hw_gpu_figs[HW_GM_FAN].key, &fan));
    CU_ASSERT_EQUAL(json_object_get_int64(fan), 2);
    /* no verdict of the run speaks of it */
    json_object *notes;
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "notes", &notes));
    const char *ns = json_object_to_json_string(notes);
    CU_ASSERT(ns && !strstr(ns, "fan") && !strstr(ns, "placeholder"));
    json_object_put(doc);
    th_result_free(&r);
    free(note);
    free(csv);
    free(q);
    th_rmtree(dir);
    free(dir);
}

/* The one event the run above cannot show: nvidia-smi there but without a driver. */
static void test_gpu_unavailable_named(void)
{
    char *dir = th_tmpdir("hwmon-vocab");
    char *env[] = {"FAKE_SMI_MODE=nodriver", NULL};
    /* the event comes of the probe, before the first sample */
    char **argv = ht_argv(dir, "-i", "0.1", "-d", "0.1", NULL);
    struct th_result res;
    CU_ASSERT_EQUAL(ht_run(argv, env, 60, &res), 0);
    th_result_free(&res);
    bool seen[HW_EV_COUNT] = {false};
    check_events(dir, seen);
    bool gpu_unavailable = false;
    for (int k = 0; k < HW_EV_COUNT; k++)
        gpu_unavailable |= seen[k] && !strcmp(hw_events[k], HW_EV_GPU_UNAVAILABLE);
    CU_ASSERT_TRUE(gpu_unavailable);
    free(argv);
    th_rmtree(dir);
    free(dir);
}


/* Every file of the table has its writer: hwmon's own a descriptor (runfiles.h) whose header is
 * one line of columns and whose rows are nothing when the tick read nothing, the others none
 * (the GPU source's name their files by the table: test_hwmon.gpusrc). A new entry written by
 * HWMON without its descriptor does not build; this checks what the build cannot. */
static void test_own_files(void)
{
    const struct mon_file_run runs[] = {{.tree = false},
                                        {.tree = true, .cgroup = true, .pss = true}};
    int own = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const struct mon_file_def *d = mon_files[k];
        CU_ASSERT_EQUAL(d != NULL, hw_run_files[k].by == HW_BY_HWMON);
        if (!d)
            continue;
        own++;
        CU_ASSERT_PTR_NOT_NULL_FATAL(d->row);
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            CU_ASSERT_EQUAL(mon_file_wanted(k, &runs[r]), runs[r].tree || !d->with_tree);
            char store[1024];
            struct hw_buf b;
            hw_buf_init(&b, store, sizeof store);
            if (d->head) { /* one line: the timestamp first */
                d->head(&b, &runs[r]);
                CU_ASSERT_FATAL(b.len > 0 && b.p[b.len - 1] == '\n');
                CU_ASSERT_PTR_EQUAL(strchr(b.p, '\n'), b.p + b.len - 1);
                CU_ASSERT_EQUAL(strncmp(b.p, HW_COL_TIMESTAMP ",", strlen(HW_COL_TIMESTAMP) + 1),
                                0);
            }
            CU_ASSERT_EQUAL(d->open != NULL, d->close != NULL);
            void *state = d->open ? d->open(&runs[r]) : NULL;
            for (int w = MON_GPU_FIRST; w <= MON_GPU_EDGE && !d->open; w++) {
                /* a tick that read nothing (a file with its own source reads at every tick) */
                hw_buf_reset(&b);
                d->row(&b, &runs[r],
                       &(struct mon_file_tick){.iso = "2026-01-01T00:00:00.000Z", .when = w},
                       state);
                CU_ASSERT_EQUAL(b.len, 0);
            }
            if (state)
                d->close(state);
            hw_buf_free(&b);
        }
    }
    CU_ASSERT(own > 0);
    /* each file's stem names it in the stop event and Prometheus: distinct, a JSON key and a
     * label value without escapes; cpu's and proc's are documented (hwmon(1), FORMAT.md) */
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const char *st = hw_run_files[k].stem;
        CU_ASSERT_FATAL(st && *st);
        CU_ASSERT_EQUAL(strspn(st, "abcdefghijklmnopqrstuvwxyz0123456789_"), strlen(st));
        for (int j = 0; j < k; j++)
            CU_ASSERT_STRING_NOT_EQUAL(hw_run_files[j].stem, st);
    }
    CU_ASSERT_STRING_EQUAL(hw_run_files[HW_FILE_CPU].stem, "cpu");
    CU_ASSERT_STRING_EQUAL(hw_run_files[HW_FILE_PROC].stem, "proc");
    CU_ASSERT_PTR_NOT_NULL(mon_files[HW_FILE_CPU]); /* the claim of a run directory (run.c) */
    CU_ASSERT_FALSE(mon_files[HW_FILE_CPU] && mon_files[HW_FILE_CPU]->with_tree);
}

/* hwmon --help and hwmon(1)'s FILES name every file of the table, once, and nothing else. */
static void test_files_documented(void)
{
    char *argv[] = {(char *)th_env("HWRUN_HWMON_BIN"), "--help", NULL};
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(th_run(argv, NULL, NULL, 10, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    char *files = strstr(r.out, "\nFiles: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(files);
    char *end = strstr(files, " (see hwmon(1)).\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    *end = '\0';
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(files + 8, ", \n", &save); w; w = strtok_r(NULL, ", \n", &save)) {
        CU_ASSERT_TRUE(in_table(hw_file_names, HW_FILE_COUNT, w));
        n++;
    }
    CU_ASSERT_EQUAL(n, HW_FILE_COUNT);
    th_result_free(&r);

    /* the man page: ".TP\n.I NAME\n" for each, in FILES (up to the next section) */
    char *path = th_fmt("%s/../hwmon/hwmon.1", th_env("HWRUN_TESTDATA"));
    char *man = th_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(man);
    char *sec = strstr(man, "\n.SH FILES\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    char *next = strstr(sec + 1, "\n.SH ");
    if (next)
        *next = '\0';
    int seen[HW_FILE_COUNT] = {0};
    n = 0;
    for (char *e = sec; (e = strstr(e, "\n.TP\n.I ")); e += 8) {
        char name[64];
        CU_ASSERT_EQUAL_FATAL(sscanf(e + 8, "%63s", name), 1);
        n++;
        bool known = false;
        for (int k = 0; k < HW_FILE_COUNT; k++)
            if (!strcmp(hw_file_names[k], name))
                known = true, seen[k]++;
        CU_ASSERT_TRUE(known);
        if (!known)
            fprintf(stderr, "hwmon.1 names %s, which hwrun/rundir.h does not\n", name);
    }
    CU_ASSERT_EQUAL(n, HW_FILE_COUNT);
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        CU_ASSERT_EQUAL(seen[k], 1);
        if (seen[k] != 1)
            fprintf(stderr, "hwmon.1's FILES has %s %d times\n", hw_file_names[k], seen[k]);
    }
    free(man);
    free(path);
}

/* The columns of run file k as hwrun/rundir.h defines them, comma-separated into b: its header's
 * or its fields; run.jsonl's are the events hwmon logs (hw_events). Nothing for the files whose
 * columns are nvidia-smi's own text (dmon, pmon: read by their header's names). No default: a
 * new entry of the table does not build until it says its columns here. */
static void file_columns(enum hw_file k, struct hw_buf *b)
{
    static const char *const gpm[] = {HW_GPM_COLUMNS};
    switch (k) {
    case HW_FILE_GPU:
        hw_buf_puts(b, hw_gpu_fields_default());
        break;
    case HW_FILE_CPU:
    case HW_FILE_PROC:
        hw_buf_puts(b, HW_COL_TIMESTAMP);
        for (int c = 0; c < (k == HW_FILE_CPU ? HW_CPU_COL_COUNT : HW_PROC_COL_COUNT); c++)
            hw_buf_printf(b, ",%s", k == HW_FILE_CPU ? hw_cpu_cols[c] : hw_proc_cols[c]);
        hw_buf_puts(b, "," HW_COL_EDGE);
        break;
    case HW_FILE_TREE_PIDS:
        hw_buf_puts(b, HW_TREE_PIDS_HEADER);
        break;
    case HW_FILE_ENERGY:
        hw_buf_puts(b, HW_ENERGY_HEADER);
        break;
    case HW_FILE_GPU_PROCS:
        hw_buf_puts(b, HW_GPU_PROCS_FIELDS);
        break;
    case HW_FILE_HEALTH:
        hw_buf_puts(b, HW_COL_TIMESTAMP ",index");
        for (int c = 0; c < HW_HEALTH_COUNT; c++)
            hw_buf_printf(b, ",%s", hw_health_fields[c]);
        break;
    case HW_FILE_GPM:
        for (size_t c = 0; c < sizeof gpm / sizeof gpm[0]; c++)
            hw_buf_printf(b, "%s%s", c ? "," : "", gpm[c]);
        break;
    case HW_FILE_RUNLOG:
        for (int e = 0; e < HW_EV_COUNT; e++)
            hw_buf_printf(b, "%s%s", e ? "," : "", hw_events[e]);
        break;
    case HW_FILE_DMON:
    case HW_FILE_PMON:
    case HW_FILE_COUNT:
        break;
    }
}

/* Does text name w as a word of its own (not part of a longer name: "edge" is not in
 * "edge_s", "clocks.max.sm" not in "clocks.max.sm.x")? */
static bool names_word(const char *text, const char *w)
{
    size_t n = strlen(w);
    for (const char *at = text; (at = strstr(at, w)); at++) {
        char before = at > text ? at[-1] : ' ', after = at[n];
        bool in_before = isalnum((unsigned char)before) || before == '_' || before == '.';
        bool in_after = isalnum((unsigned char)after) || after == '_' ||
                        (after == '.' && isalnum((unsigned char)at[n + 1]));
        if (!in_before && !in_after)
            return true;
    }
    return false;
}

/* The columns of file k that text does not name, listed on stderr as WHERE's; how many. */
static int unnamed_columns(enum hw_file k, const char *text, const char *where)
{
    char store[2048];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    file_columns(k, &b);
    CU_ASSERT_FALSE_FATAL(b.oom);
    int missing = 0;
    char *save = NULL;
    for (char *w = b.len ? strtok_r(b.p, ",", &save) : NULL; w; w = strtok_r(NULL, ",", &save))
        if (!names_word(text, w)) {
            fprintf(stderr, "%s%s", missing++ ? ", " : where, w);
        }
    if (missing)
        fputc('\n', stderr);
    hw_buf_free(&b);
    return missing;
}

/* The man page's text as words: fonts (\fB ... \fR), \- and \& taken off. */
static void man_plain(char *s)
{
    char *o = s;
    for (const char *i = s; *i;) {
        if (i[0] == '\\' && i[1] == 'f' && i[2]) {
            i += 3;
        } else if (i[0] == '\\' && (i[1] == '-' || i[1] == '&')) {
            if (i[1] == '-')
                *o++ = '-';
            i += 2;
        } else {
            *o++ = *i++;
        }
    }
    *o = '\0';
}

/* hwmon(1)'s FILES entry of each file (from its ".TP\n.I NAME" to the next .TP or .PP) and
 * FORMAT.md's section of each ("## NAME", to the next "## ") name every column of the file's
 * table in hwrun/rundir.h (file_columns); FORMAT.md has a section for every file of the table,
 * one each. The names missing are listed. */
static void test_columns_documented(void)
{
    char *path = th_fmt("%s/../hwmon/hwmon.1", th_env("HWRUN_TESTDATA"));
    char *man = th_read_file(path, NULL);
    free(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(man);
    char *sec = strstr(man, "\n.SH FILES\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    char *next = strstr(sec + 1, "\n.SH ");
    if (next)
        *next = '\0';
    path = th_fmt("%s/../hwmon/FORMAT.md", th_env("HWRUN_TESTDATA"));
    char *doc = th_read_file(path, NULL);
    free(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    int missing = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const char *name = hw_file_names[k];
        char *head = th_fmt("\n.TP\n.I %s\n", name);
        char *at = strstr(sec, head);
        CU_ASSERT_PTR_NOT_NULL(at); /* test_files_documented says which */
        if (at) {
            at += strlen(head);
            char *tp = strstr(at, "\n.TP\n"), *pp = strstr(at, "\n.PP\n");
            char *end = tp && (!pp || tp < pp) ? tp : pp;
            char *entry = end ? strndup(at, (size_t)(end - at)) : strdup(at);
            man_plain(entry);
            char *where = th_fmt("hwmon.1 FILES, %s: does not name ", name);
            missing += unnamed_columns(k, entry, where);
            free(where);
            free(entry);
        }
        free(head);
        /* FORMAT.md: "## NAME" then a space, a colon or the line's end */
        int sections = 0;
        char *section = NULL;
        head = th_fmt("\n## %s", name);
        for (char *h = doc; (h = strstr(h, head)); h++) {
            char c = h[strlen(head)];
            if (c != ' ' && c != ':' && c != '\n')
                continue;
            sections++;
            char *end = strstr(h + 1, "\n## ");
            free(section);
            section = end ? strndup(h, (size_t)(end - h)) : strdup(h);
        }
        CU_ASSERT_EQUAL(sections, 1);
        if (sections != 1)
            fprintf(stderr, "FORMAT.md has %d sections \"## %s\"\n", sections, name);
        if (section) {
            char *where = th_fmt("FORMAT.md, %s: does not name ", name);
            missing += unnamed_columns(k, section, where);
            free(where);
        }
        free(section);
        free(head);
    }
    CU_ASSERT_EQUAL(missing, 0);
    free(doc);
    free(man);
}

void add_vocab_suite(void);
void add_vocab_suite(void)
{
    CU_pSuite s = th_add_suite("vocabulary", NULL, NULL, 120);
    CU_add_test(s, "csv_columns", test_csv_columns);
    CU_add_test(s, "hwmon_writes_what_summarize_reads", test_hwmon_writes_what_summarize_reads);
    CU_add_test(s, "gpu_unavailable_named", test_gpu_unavailable_named);
    CU_add_test(s, "fake_answers_every_figure", test_fake_answers_every_figure);
    CU_add_test(s, "fake_fan_not_reported", test_fake_fan_not_reported);
    CU_add_test(s, "own_files", test_own_files);
    CU_add_test(s, "files_documented", test_files_documented);
    CU_add_test(s, "columns_documented", test_columns_documented);
}
