/* Issue 33: every figure of gpu_tracker's Tracker (summarize --format gpu-tracker): GPU memory
 * of the main process, its descendants and both, each the peak over time of its sum at one
 * sample; the main process's own private and shared RSS and the descendants' (tree - main);
 * descendants not tracked (hwmon --no-children) are unmeasured, never 0; --tracked-gpus
 * restricts the utilization while the system's GPU figures stay every GPU's. Through the CLI,
 * as the Python package reads it. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sumtest.h"
#include "hwrun/buf.h"
#include "hwrun/rundir.h"

void add_gputracker_suite(void);

static const char *T = "2026-01-01T00:00:0"; /* + one digit of seconds */

static struct json_object *jget(struct json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, "."))
        if (!json_object_object_get_ex(o, k, &o))
            o = NULL;
    return o;
}

/* A number of the document, NAN for null (or absent: the test then fails on the key). */
static double jnum(struct json_object *doc, const char *path)
{
    struct json_object *v = jget(doc, path);
    return v ? json_object_get_double(v) : NAN;
}

static bool jnull(struct json_object *doc, const char *path)
{
    struct json_object *v = NULL;
    char buf[256], *dot;
    snprintf(buf, sizeof buf, "%s", path);
    struct json_object *parent = doc;
    if ((dot = strrchr(buf, '.'))) {
        *dot = '\0';
        parent = jget(doc, buf);
    }
    /* present and null */
    return parent && json_object_object_get_ex(parent, dot ? dot + 1 : buf, &v) && v == NULL;
}

/* summarize -q ARGS... DIR, its JSON (NULL on failure, with the failure asserted). */
static struct json_object *sum_json(const char *dir, const char *a1, const char *a2,
                                    const char *a3, const char *a4)
{
    char *args[8] = {0};
    int n = 0;
    for (const char *a[] = {a1, a2, a3, a4}, **p = a; p < a + 4; p++)
        if (*p)
            args[n++] = (char *)*p;
    args[n] = (char *)dir;
    struct th_result r = run_summarize(args);
    CU_ASSERT_EQUAL(r.status, 0);
    struct json_object *doc = r.status == 0 ? json_tokener_parse(r.out) : NULL;
    CU_ASSERT_PTR_NOT_NULL(doc);
    th_result_free(&r);
    return doc;
}

/* gpu-tracker in MiB (no unit conversion to check against) */
static struct json_object *tracker(const char *dir)
{
    return sum_json(dir, "--format", "gpu-tracker", "--units", "mem=MiB,gpumem=MiB");
}

static void start_event(const char *dir, const char *extra)
{
    char *log = th_fmt("{\"ts\": \"%s0.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
                       "\"data\": {\"tool\": \"hwmon\", \"smi_tz\": \"UTC\", \"interval_s\": 1%s}}\n",
                       T, extra);
    put_file(dir, "run.jsonl", log);
    free(log);
}

/* ---- GPU memory: main, descendants, combined -------------------------------------------- */

/* The tree: 100 (the tracked process) from t=0, its children 101 and 102 from t=1; 200 is a
 * stranger. Per sample, main / descendants / combined:
 *   t=2: 500 / 1000 + 300 / 1800      t=3: 900 / 200 / 1100      t=4: 0 / 1600 + 400 / 2000
 * so the peaks of the sums are 900, 2000 and 2000 (not 900 + 2000: the peaks fall apart). */
enum { MAIN_PEAK = 900, DESC_PEAK = 2000, TREE_PEAK = 2000 };
static const char *GP = "2026/01/01 00:00:02.000, GPU-a, 100, 500, python3\n"
                        "2026/01/01 00:00:02.000, GPU-a, 101, 1000, python3\n"
                        "2026/01/01 00:00:02.000, GPU-b, 102, 300, python3\n"
                        "2026/01/01 00:00:02.000, GPU-b, 200, 50000, stranger\n"
                        "2026/01/01 00:00:03.000, GPU-a, 100, 900, python3\n"
                        "2026/01/01 00:00:03.000, GPU-a, 101, 200, python3\n"
                        "2026/01/01 00:00:04.000, GPU-a, 101, 1600, python3\n"
                        "2026/01/01 00:00:04.000, GPU-b, 102, 400, python3\n";

static char *gp_dir(const char *base, const char *name, const char *start_extra, bool procs)
{
    char *dir = th_fmt("%s/%s", base, name);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    start_event(dir, start_extra);
    put_file(dir, HW_TREE_PIDS_FILE,
             HW_TREE_PIDS_HEADER "\n"
                                 "2026-01-01T00:00:00.000+00:00,100,1\n"
                                 "2026-01-01T00:00:01.000+00:00,101,1\n"
                                 "2026-01-01T00:00:01.000+00:00,102,1\n");
    if (procs)
        put_file(dir, HW_GPU_PROCS_FILE, GP);
    return dir;
}

static void check_gpu_mem(struct json_object *doc, double main, double desc, double tree)
{
    const char *keys[] = {"max_gpu_ram.main", "max_gpu_ram.descendants", "max_gpu_ram.combined"};
    double want[] = {main, desc, tree};
    for (int k = 0; k < 3; k++) {
        if (isnan(want[k])) {
            CU_ASSERT_TRUE(jnull(doc, keys[k]));
        } else {
            CHECK_NEAR(jnum(doc, keys[k]), want[k], 1e-9);
        }
    }
}

static void test_gpu_mem_parts(void)
{
    char *base = th_tmpdir("gputracker");
    /* the start event names the tracked process */
    char *dir = gp_dir(base, "init", ", \"pid\": 100, \"pid_namespace\": \"init\"", true);
    struct json_object *doc = tracker(dir);
    check_gpu_mem(doc, MAIN_PEAK, DESC_PEAK, TREE_PEAK);
    json_object_put(doc);
    /* the same figures in summary.json */
    doc = sum_json(dir, "--format", "json", NULL, NULL);
    CHECK_NEAR(jnum(doc, "process.main_gpu_mem_peak_mib"), MAIN_PEAK, 1e-9);
    CHECK_NEAR(jnum(doc, "process.descendants_gpu_mem_peak_mib"), DESC_PEAK, 1e-9);
    CHECK_NEAR(jnum(doc, "process.gpu_mem_peak_mib"), TREE_PEAK, 1e-9);
    json_object_put(doc);
    free(dir);

    /* an older start event without pid: tree_pids.csv's first pid is the tracked process */
    dir = gp_dir(base, "nopid", ", \"pid_namespace\": \"init\"", true);
    doc = tracker(dir);
    check_gpu_mem(doc, MAIN_PEAK, DESC_PEAK, TREE_PEAK);
    json_object_put(doc);
    free(dir);

    /* --no-children: the descendants were not measured (null), the main process was */
    dir = gp_dir(base, "alone", ", \"pid\": 100, \"descendants\": false", true);
    doc = tracker(dir);
    check_gpu_mem(doc, MAIN_PEAK, NAN, TREE_PEAK);
    json_object_put(doc);
    doc = sum_json(dir, "--format", "json", NULL, NULL);
    CU_ASSERT_TRUE(jnull(doc, "process.descendants_gpu_mem_peak_mib"));
    json_object_put(doc);
    free(dir);

    /* a container's PID namespace: nvidia-smi's pids are the host's, nothing can be matched */
    dir = gp_dir(base, "container", ", \"pid\": 100, \"pid_namespace\": \"other\"", true);
    doc = tracker(dir);
    check_gpu_mem(doc, NAN, NAN, NAN);
    json_object_put(doc);
    free(dir);

    /* no gpu_procs.csv (hwmon without --gpu-procs): null, never 0 */
    dir = gp_dir(base, "noprocs", ", \"pid\": 100, \"pid_namespace\": \"init\"", false);
    doc = tracker(dir);
    check_gpu_mem(doc, NAN, NAN, NAN);
    json_object_put(doc);
    free(dir);

    th_rmtree(base);
    free(base);
}

/* ---- private and shared RSS of main and descendants --------------------------------------- */

/* proc_metrics.csv with hwmon's columns (all of hw_proc_cols, or the first ncols of them), one
 * row per entry of rows: its values by column, NAN for an empty cell. */
static void put_proc(const char *dir, int ncols, const double (*rows)[HW_PROC_COL_COUNT],
                     int nrows)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, HW_COL_TIMESTAMP);
    for (int c = 0; c < ncols; c++)
        hw_buf_printf(&b, ",%s", hw_proc_cols[c]);
    hw_buf_puts(&b, "," HW_COL_EDGE "\n");
    for (int i = 0; i < nrows; i++) {
        hw_buf_printf(&b, "%s%d.000+00:00", T, i + 1);
        for (int c = 0; c < ncols; c++) {
            hw_buf_putc(&b, ',');
            if (!isnan(rows[i][c]))
                hw_buf_printf(&b, "%.1f", rows[i][c]);
        }
        hw_buf_puts(&b, ",\n");
    }
    CU_ASSERT_FATAL(!b.oom);
    put_file(dir, HW_PROC_FILE, b.p);
    hw_buf_free(&b);
}

/* Two rows: the tree's private 300 then 500, the main process's 100 then 450, so the
 * descendants' (tree - main at each row) are 200 then 50: their peak is 200, not 500 - 450. */
static void proc_rows(double (*rows)[HW_PROC_COL_COUNT])
{
    static const double v[2][6] = {
        /* rss, main_rss, private, shared, main_private, main_shared */
        {400, 150, 300, 100, 100, 50},
        {600, 500, 500, 100, 450, 40},
    };
    for (int i = 0; i < 2; i++) {
        for (int c = 0; c < HW_PROC_COL_COUNT; c++)
            rows[i][c] = 0;
        rows[i][HW_PROC_COL_PROCS] = 2;
        rows[i][HW_PROC_COL_THREADS] = 4;
        rows[i][HW_PROC_COL_MAIN_THREADS] = 2;
        rows[i][HW_PROC_COL_CPU] = rows[i][HW_PROC_COL_MAIN_CPU] = NAN;
        rows[i][HW_PROC_COL_USR_CPU] = rows[i][HW_PROC_COL_SYS_CPU] = NAN;
        rows[i][HW_PROC_COL_RSS] = v[i][0];
        rows[i][HW_PROC_COL_MAIN_RSS] = v[i][1];
        rows[i][HW_PROC_COL_PRIVATE] = v[i][2];
        rows[i][HW_PROC_COL_SHARED] = v[i][3];
        rows[i][HW_PROC_COL_MAIN_PRIVATE] = v[i][4];
        rows[i][HW_PROC_COL_MAIN_SHARED] = v[i][5];
        /* hwmon without --shared-once */
        rows[i][HW_PROC_COL_SHARED_ONCE] = rows[i][HW_PROC_COL_MAIN_SHARED_ONCE] =
            rows[i][HW_PROC_COL_DESC_SHARED_ONCE] = NAN;
    }
}

static void test_private_shared(void)
{
    char *base = th_tmpdir("gputracker");
    double rows[2][HW_PROC_COL_COUNT];
    proc_rows(rows);

    char *dir = th_fmt("%s/new", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    start_event(dir, ", \"pid\": 100");
    put_proc(dir, HW_PROC_COL_COUNT, rows, 2);
    struct json_object *doc = tracker(dir);
    CHECK_NEAR(jnum(doc, "max_ram.main.private_rss"), 450, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.main.shared_rss"), 50, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.descendants.private_rss"), 200, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.descendants.shared_rss"), 60, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.descendants.total_rss"), 250, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.combined.private_rss"), 500, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.combined.shared_rss"), 100, 1e-9);
    json_object_put(doc);
    doc = sum_json(dir, "--format", "json", NULL, NULL);
    CHECK_NEAR(jnum(doc, "process.main_private_peak_mib"), 450, 1e-9);
    CHECK_NEAR(jnum(doc, "process.main_shared_peak_mib"), 50, 1e-9);
    CHECK_NEAR(jnum(doc, "process.descendants_private_peak_mib"), 200, 1e-9);
    CHECK_NEAR(jnum(doc, "process.descendants_shared_peak_mib"), 60, 1e-9);
    json_object_put(doc);
    free(dir);

    /* an older hwmon's file ends before the main process's columns: they are null, the tree's
     * are read as before */
    dir = th_fmt("%s/old", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    start_event(dir, ", \"pid\": 100");
    put_proc(dir, HW_PROC_COL_MAIN_PRIVATE, rows, 2);
    doc = tracker(dir);
    static const char *const unmeasured[] = {
        "max_ram.main.private_rss",        "max_ram.main.shared_rss",
        "max_ram.descendants.private_rss", "max_ram.descendants.shared_rss"};
    for (size_t i = 0; i < sizeof unmeasured / sizeof unmeasured[0]; i++)
        CU_ASSERT_TRUE(jnull(doc, unmeasured[i]));
    CHECK_NEAR(jnum(doc, "max_ram.combined.private_rss"), 500, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.main.total_rss"), 500, 1e-9);
    json_object_put(doc);
    free(dir);

    /* hwmon --shared-once: shared memory counted once per path; total = private + that at one
     * row (main 100 + 30, 450 + 30; descendants 200 + 35, 50 + 35; tree 300 + 40, 500 + 40) */
    dir = th_fmt("%s/once", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    start_event(dir, ", \"pid\": 100");
    double once[2][HW_PROC_COL_COUNT];
    memcpy(once, rows, sizeof once);
    for (int i = 0; i < 2; i++) {
        once[i][HW_PROC_COL_SHARED_ONCE] = 40;
        once[i][HW_PROC_COL_MAIN_SHARED_ONCE] = 30;
        once[i][HW_PROC_COL_DESC_SHARED_ONCE] = 35;
    }
    put_proc(dir, HW_PROC_COL_COUNT, once, 2);
    doc = tracker(dir);
    CHECK_NEAR(jnum(doc, "max_ram.main.total_rss"), 480, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.main.shared_rss"), 30, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.descendants.total_rss"), 235, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.descendants.shared_rss"), 35, 1e-9);
    CHECK_NEAR(jnum(doc, "max_ram.combined.total_rss"), 540, 1e-9); /* not RSS's 600 */
    CHECK_NEAR(jnum(doc, "max_ram.combined.shared_rss"), 40, 1e-9); /* not the summed 100 */
    CHECK_NEAR(jnum(doc, "max_ram.combined.private_rss"), 500, 1e-9);
    json_object_put(doc);
    free(dir);

    /* --no-children: every descendants' figure is null, not 0 */
    dir = th_fmt("%s/alone", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    start_event(dir, ", \"pid\": 100, \"descendants\": false");
    put_proc(dir, HW_PROC_COL_COUNT, rows, 2);
    doc = tracker(dir);
    static const char *const desc[] = {
        "max_ram.descendants.total_rss", "max_ram.descendants.private_rss",
        "max_ram.descendants.shared_rss", "cpu_utilization.descendants_n_threads",
        "max_gpu_ram.descendants"};
    for (size_t i = 0; i < sizeof desc / sizeof desc[0]; i++)
        CU_ASSERT_TRUE(jnull(doc, desc[i]));
    CHECK_NEAR(jnum(doc, "max_ram.main.private_rss"), 450, 1e-9);
    json_object_put(doc);
    free(dir);

    th_rmtree(base);
    free(base);
}

/* ---- --tracked-gpus ---------------------------------------------------------------------- */

/* Two GPUs, three instants: GPU g at instant i has util[g][i] % and mem[g][i] MiB of CAP. */
enum { NGPU = 2, NINST = 3, CAP = 81559 };
static const double util[NGPU][NINST] = {{10, 20, 30}, {50, 60, 70}};
static const double mem[NGPU][NINST] = {{1000, 3000, 2000}, {4000, 1000, 1000}};

static void test_tracked_gpus(void)
{
    char *base = th_tmpdir("gputracker");
    char *dir = th_fmt("%s/run", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    start_event(dir, ", \"gpus\": [{\"index\": 0, \"uuid\": \"GPU-a\"}, "
                     "{\"index\": 1, \"uuid\": \"GPU-b\"}]");
    struct hw_buf g;
    hw_buf_init(&g, NULL, 0);
    double sys_peak = 0, sum_all_max = 0;
    for (int i = 0; i < NINST; i++) {
        double m = 0, u = 0;
        for (int k = 0; k < NGPU; k++) {
            hw_buf_printf(&g, "2026/01/01 00:00:0%d.000, %.0f, 0, %.0f, %d, 100.00, 40, 1980, "
                              "2619, %d, GPU-%c\n",
                          i + 1, util[k][i], mem[k][i], CAP, k, 'a' + k);
            m += mem[k][i];
            u += util[k][i];
        }
        sys_peak = m > sys_peak ? m : sys_peak;
        sum_all_max = u > sum_all_max ? u : sum_all_max;
    }
    put_file(dir, HW_GPU_FILE, g.p);
    hw_buf_free(&g);

    /* every GPU: the default */
    struct json_object *doc = tracker(dir);
    CHECK_NEAR(jnum(doc, "gpu_utilization.system_gpu_count"), NGPU, 0);
    CHECK_NEAR(jnum(doc, "gpu_utilization.n_expected_gpus"), NGPU, 0);
    CHECK_NEAR(jnum(doc, "gpu_utilization.gpu_percentages.max_sum_percent"), sum_all_max, 1e-9);
    CHECK_NEAR(jnum(doc, "max_gpu_ram.system"), sys_peak, 1e-9);
    CHECK_NEAR(jnum(doc, "max_gpu_ram.system_capacity"), (double)NGPU * CAP, 1e-9);
    json_object_put(doc);

    /* one GPU tracked, by UUID (any case) or by index: its utilization alone, the system's
     * memory still both GPUs' */
    const char *which[] = {"gpu-b", "1"};
    for (int w = 0; w < 2; w++) {
        doc = sum_json(dir, "--format", "gpu-tracker", "--tracked-gpus", which[w]);
        /* the default units (GB) for memory: compare in MiB */
        double mib = 1048576 / 1e9;
        double max = 0, sum = 0;
        for (int i = 0; i < NINST; i++) {
            max = util[1][i] > max ? util[1][i] : max;
            sum += util[1][i];
        }
        CHECK_NEAR(jnum(doc, "gpu_utilization.system_gpu_count"), NGPU, 0);
        CHECK_NEAR(jnum(doc, "gpu_utilization.n_expected_gpus"), 1, 0);
        CHECK_NEAR(jnum(doc, "gpu_utilization.gpu_percentages.max_sum_percent"), max, 1e-9);
        CHECK_NEAR(jnum(doc, "gpu_utilization.gpu_percentages.mean_sum_percent"), sum / NINST,
                   1e-9);
        CHECK_NEAR(jnum(doc, "gpu_utilization.gpu_percentages.max_hardware_percent"), max, 1e-9);
        CHECK_NEAR(jnum(doc, "max_gpu_ram.system"), sys_peak * mib, 1e-9);
        CHECK_NEAR(jnum(doc, "max_gpu_ram.system_capacity"), (double)NGPU * CAP * mib, 1e-9);
        json_object_put(doc);
    }
    /* both, listed: as the default */
    doc = sum_json(dir, "--format", "gpu-tracker", "--tracked-gpus", "GPU-a,1");
    CHECK_NEAR(jnum(doc, "gpu_utilization.n_expected_gpus"), NGPU, 0);
    CHECK_NEAR(jnum(doc, "gpu_utilization.gpu_percentages.max_sum_percent"), sum_all_max, 1e-9);
    json_object_put(doc);
    /* none of the run's: no utilization measured (null), the system's figures still there */
    doc = sum_json(dir, "--format", "gpu-tracker", "--tracked-gpus", "GPU-zz");
    CU_ASSERT_TRUE(jnull(doc, "gpu_utilization.n_expected_gpus"));
    CU_ASSERT_TRUE(jnull(doc, "gpu_utilization.gpu_percentages.max_sum_percent"));
    CU_ASSERT_FALSE(jnull(doc, "max_gpu_ram.system"));
    json_object_put(doc);

    /* usage errors: another format, an empty entry */
    static const char *const bad[][4] = {
        {"--format", "json", "--tracked-gpus", "0"},
        {"--format", "gpu-tracker", "--tracked-gpus", "0,,1"},
        {"--format", "gpu-tracker", "--tracked-gpus", ",0"},
        {"--format", "gpu-tracker", "--tracked-gpus", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct th_result r = run_summarize((char *[]){(char *)bad[i][0], (char *)bad[i][1],
                                                      (char *)bad[i][2], (char *)bad[i][3], dir,
                                                      NULL});
        CU_ASSERT_EQUAL(r.status, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--tracked-gpus"));
        th_result_free(&r);
    }
    th_rmtree(base);
    free(dir);
    free(base);
}

/* max_ram.system is psutil's "used" as gpu_tracker reads it: MemTotal - MemFree - Buffers -
 * Cached - SReclaimable (or MemTotal - MemFree where that is negative), the most of it over the
 * rows; a run recorded before hwmon wrote SReclaimable has MemTotal - MemAvailable. */
static void test_system_ram(void)
{
    char *base = th_tmpdir("gt-ram");
    char *dir = th_fmt("%s/r", base);
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    start_event(dir, "");
    static const char head[] = "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,"
                               "mem_used_mib,mem_available_mib,mem_total_mib,mem_free_mib,"
                               "mem_buffers_mib,mem_cached_mib,mem_active_anon_mib,"
                               "mem_inactive_anon_mib";
    /* used (total - available) 1085 and 900; psutil's 1000 - 100 - 50 - 300 - 80 = 470 and
     * 1000 - 40 - 50 - 300 - 80 = 530; the third row's parts outgrow total: total - free, 900 */
    char *csv = th_fmt("%s,mem_sreclaimable_mib\n"
                       "%s1.000+00:00,1,99,0,0,0,1085,915,1000,100,50,300,10,10,80\n"
                       "%s2.000+00:00,1,99,0,0,0,900,100,1000,40,50,300,10,10,80\n"
                       "%s3.000+00:00,1,99,0,0,0,500,500,1000,100,50,900,10,10,80\n",
                       head, T, T, T);
    put_file(dir, HW_CPU_FILE, csv);
    struct json_object *doc = tracker(dir);
    CHECK_NEAR(jnum(doc, "max_ram.system"), 900, 1e-9);
    json_object_put(doc);
    free(csv);
    csv = th_fmt("%s,mem_sreclaimable_mib\n"
                 "%s1.000+00:00,1,99,0,0,0,1085,915,1000,100,50,300,10,10,80\n"
                 "%s2.000+00:00,1,99,0,0,0,900,100,1000,40,50,300,10,10,80\n",
                 head, T, T);
    put_file(dir, HW_CPU_FILE, csv);
    doc = tracker(dir);
    CHECK_NEAR(jnum(doc, "max_ram.system"), 530, 1e-9);
    json_object_put(doc);
    free(csv);
    /* an older run: no SReclaimable column */
    csv = th_fmt("%s\n%s1.000+00:00,1,99,0,0,0,1085,915,1000,100,50,300,10,10\n", head, T);
    put_file(dir, HW_CPU_FILE, csv);
    doc = tracker(dir);
    CHECK_NEAR(jnum(doc, "max_ram.system"), 1085, 1e-9);
    json_object_put(doc);
    free(csv);
    th_rmtree(base);
    free(dir);
    free(base);
}

void add_gputracker_suite(void)
{
    CU_pSuite s = th_add_suite("gputracker", NULL, NULL, 60);
    CU_add_test(s, "gpu_mem_parts", test_gpu_mem_parts);
    CU_add_test(s, "private_shared", test_private_shared);
    CU_add_test(s, "tracked_gpus", test_tracked_gpus);
    CU_add_test(s, "system_ram", test_system_ram);
}
