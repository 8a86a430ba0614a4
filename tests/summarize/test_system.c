/* system suite: the machine and the container in the summary (issue 9). cpu_metrics.csv's
 * disk and network bytes per row become totals and the busiest interval's rate, per run and per
 * phase (a phase gets the share of an interval inside it); free space its minimum; the
 * container's memory peak is max(the kernel's peak where it rose during the run, the highest
 * sample), with its source; the main process vs the tree per phase and in the sweep row. Every
 * output (JSON, text, CSV/JSONL rows) shows the same figures, and unmeasured is null. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sumtest.h"
#include "hwrun/buf.h"

#define MIB 1048576.0

/* run.jsonl: a start event (interval 1 s, the given cgroup object or none) and phases. */
static void write_log(const char *dir, const char *cgroup, const char *phases)
{
    char *log = th_fmt(
        "{\"ts\": \"2026-01-01T00:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"tool\": \"hwmon\", \"smi_tz\": \"UTC\", \"interval_s\": 1.0%s%s}}\n%s",
        cgroup ? ", \"cgroup\": " : "", cgroup ? cgroup : "", phases ? phases : "");
    put_file(dir, "run.jsonl", log);
    free(log);
}

#define CPU_HEAD                                                                                   \
    "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,mem_available_mib,"      \
    "cgroup_cpu_limit_cores,cgroup_cpu_pct,cgroup_mem_current_mib,cgroup_mem_max_mib,"             \
    "cgroup_mem_peak_mib,disk_read_bytes,disk_write_bytes,net_rx_bytes,net_tx_bytes,fs_free_mib\n"

/* rows at t = 1..4 s: disk read 1, 4, 0, 2 MiB; written 0 then unmeasured; network unmeasured;
 * free space 900, 800, 850, 950; cgroup memory 300, 450, 350, 320 with the kernel's peak 500,
 * 500, 600, 600 (it rose at t = 3); limit 2048. */
static const char *cpu_rows =
    CPU_HEAD "2026-01-01T00:00:01.000+00:00,1.0,99.0,0,0,0,1,1,1.50,10,300.0,2048.0,500.0,"
             "1048576,0,,,900.0\n"
             "2026-01-01T00:00:02.000+00:00,1.0,99.0,0,0,0,1,1,1.50,10,450.0,2048.0,500.0,"
             "4194304,,,,800.0\n"
             "2026-01-01T00:00:03.000+00:00,1.0,99.0,0,0,0,1,1,1.50,10,350.0,2048.0,600.0,"
             "0,,,,850.0\n"
             "2026-01-01T00:00:04.000+00:00,1.0,99.0,0,0,0,1,1,1.50,10,320.0,2048.0,600.0,"
             "2097152,,,,950.0\n";

/* two phases: a = [1.5, 2.5] s, b = [2.5, 4] s */
static const char *phases =
    "{\"ts\": \"2026-01-01T00:00:02.500+00:00\", \"type\": \"phase\", \"name\": \"a\", "
    "\"seconds\": 1.0}\n"
    "{\"ts\": \"2026-01-01T00:00:04.000+00:00\", \"type\": \"phase\", \"name\": \"b\", "
    "\"seconds\": 1.5}\n";

/* o's value at a dotted path ("phases.0.system.disk_read_mib"); *present says whether the
 * key is there (json-c gives JSON null as a NULL object). */
static struct json_object *get_ex(struct json_object *o, const char *path, bool *present)
{
    char key[128];
    *present = false;
    for (const char *p = path; o && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, p);
        if (json_object_is_type(o, json_type_array))
            o = json_object_array_get_idx(o, (size_t)atoi(key));
        else if (!json_object_object_get_ex(o, key, &o))
            return NULL;
        p += n + (p[n] == '.');
        *present = !*p;
    }
    return o;
}

static struct json_object *get(struct json_object *o, const char *path)
{
    bool present;
    return get_ex(o, path, &present);
}

static double num(struct json_object *o, const char *path)
{
    struct json_object *v = get(o, path);
    return v && !json_object_is_type(v, json_type_null) ? json_object_get_double(v) : NAN;
}

static bool is_null(struct json_object *o, const char *path)
{
    bool present;
    struct json_object *v = get_ex(o, path, &present);
    return present && !v; /* there, and null */
}

static const char *str(struct json_object *o, const char *path)
{
    struct json_object *v = get(o, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static struct json_object *summary_json(const struct sum_run *run)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_json(run, &b);
    hw_buf_putc(&b, '\0');
    struct json_object *o = json_tokener_parse(b.p);
    hw_buf_free(&b);
    CU_ASSERT_PTR_NOT_NULL(o);
    return o;
}

static void test_traffic(void)
{
    char *dir = th_tmpdir("system");
    write_log(dir,
              "{\"version\": 1, \"path\": \"/docker/abc\", \"memory_peak_mib\": 500.0, "
              "\"memory_peak_since_start\": false}",
              phases);
    put_file(dir, "cpu_metrics.csv", cpu_rows);
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    struct json_object *o = summary_json(run);
    /* the run: 7 MiB read; the busiest interval 4 MiB in 1 s (the first row's interval is the
     * start event's 1 s); written 0 (measured once); the network never measured: null */
    CHECK_NEAR(num(o, "system.disk_read_mib"), 7.0, 1e-9);
    CHECK_NEAR(num(o, "system.disk_read_peak_mib_s"), 4.0, 1e-9);
    CHECK_NEAR(num(o, "system.disk_write_mib"), 0.0, 1e-9);
    CU_ASSERT_TRUE(is_null(o, "system.net_rx_mib"));
    CU_ASSERT_TRUE(is_null(o, "system.net_tx_peak_mib_s"));
    CHECK_NEAR(num(o, "system.fs_free_min_mib"), 800.0, 1e-9);
    /* phase a = [1.5, 2.5]: half of (1, 2] (4 MiB) and half of (2, 3] (0) */
    CU_ASSERT_STRING_EQUAL(str(o, "phases.0.name"), "a");
    CHECK_NEAR(num(o, "phases.0.system.disk_read_mib"), 2.0, 1e-9);
    CHECK_NEAR(num(o, "phases.0.system.disk_read_peak_mib_s"), 4.0, 1e-9);
    CHECK_NEAR(num(o, "phases.0.system.fs_free_min_mib"), 800.0, 1e-9);
    /* phase b = [2.5, 4]: half of (2, 3] and all of (3, 4] (2 MiB) */
    CHECK_NEAR(num(o, "phases.1.system.disk_read_mib"), 2.0, 1e-9);
    CHECK_NEAR(num(o, "phases.1.system.disk_read_peak_mib_s"), 2.0, 1e-9);
    CHECK_NEAR(num(o, "phases.1.system.fs_free_min_mib"), 850.0, 1e-9);
    CU_ASSERT_TRUE(is_null(o, "phases.1.system.net_rx_mib"));
    /* the container: the kernel's peak rose to 600 during the run, above every sample (450) */
    CHECK_NEAR(num(o, "container.mem_peak_mib"), 600.0, 1e-9);
    CU_ASSERT_STRING_EQUAL(str(o, "container.mem_peak_source"), "kernel");
    CHECK_NEAR(num(o, "container.mem_peak_sampled_mib"), 450.0, 1e-9);
    CHECK_NEAR(num(o, "container.mem_max_mib"), 2048.0, 1e-9);
    CHECK_NEAR(num(o, "container.cpu_limit_cores"), 1.5, 1e-9);
    /* phase a saw samples 450 (t=2) only, and the kernel's peak did not rise in it */
    CHECK_NEAR(num(o, "phases.0.container.mem_peak_mib"), 450.0, 1e-9);
    CU_ASSERT_STRING_EQUAL(str(o, "phases.0.container.mem_peak_source"), "sampled");
    CHECK_NEAR(num(o, "phases.1.container.mem_peak_mib"), 600.0, 1e-9); /* rose at t=3 */
    CU_ASSERT_STRING_EQUAL(str(o, "phases.1.container.mem_peak_source"), "kernel");
    CHECK_NEAR(num(o, "phases.1.container.mem_max_mib"), 2048.0, 1e-9);
    json_object_put(o);

    /* the text report and the sweep rows print the same figures */
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_text(run, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "  disks: read 7.0 MiB (peak 4.0 MiB/s), written 0.0 MiB"));
    CU_ASSERT_PTR_NULL(strstr(b.p, "network: received")); /* never measured: not printed */
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "free space min 800.0 MiB"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(b.p, "  container: memory peak 600.0 MiB (kernel), limit 2048.0 MiB, CPU limit "
                    "1.5 cores\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "    disks: read 2.0 MiB (peak 4.0 MiB/s)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "    container: memory peak 450.0 MiB (sampled)"));
    hw_buf_reset(&b);
    sum_report_jsonl_row(run, &b);
    hw_buf_putc(&b, '\0');
    struct json_object *row = json_tokener_parse(b.p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CHECK_NEAR(num(row, "disk_read_mib"), 7.0, 1e-9);
    CHECK_NEAR(num(row, "disk_read_peak_mib_s"), 4.0, 1e-9);
    CU_ASSERT_TRUE(is_null(row, "net_rx_mib"));
    CHECK_NEAR(num(row, "fs_free_min_mib"), 800.0, 1e-9);
    CHECK_NEAR(num(row, "container_mem_peak_mib"), 600.0, 1e-9);
    CU_ASSERT_STRING_EQUAL(str(row, "container_mem_peak_source"), "kernel");
    CHECK_NEAR(num(row, "container_mem_max_mib"), 2048.0, 1e-9);
    json_object_put(row);
    /* CSV: the header names the columns, the row has the values (empty = unmeasured) */
    hw_buf_reset(&b);
    sum_report_csv_header(&b);
    sum_report_csv_row(run, &b);
    hw_buf_putc(&b, '\0');
    char *nl = strchr(b.p, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
    *nl = '\0';
    int col = -1, i = 0;
    for (char *p = b.p, *c; p; p = c ? c + 1 : NULL, i++) {
        c = strchr(p, ',');
        if (c)
            *c = '\0';
        if (strcmp(p, "net_rx_mib") == 0)
            col = i;
    }
    CU_ASSERT(col > 0);
    char *cell = nl + 1;
    for (i = 0; i < col && cell; i++)
        cell = strchr(cell, ',') ? strchr(cell, ',') + 1 : NULL;
    CU_ASSERT_PTR_NOT_NULL(cell);
    CU_ASSERT(cell && *cell == ','); /* unmeasured: an empty cell, never 0 */
    hw_buf_free(&b);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* The kernel's peak counts only where it rose during the run: one that stood at 500 before
 * the run (the start event says so) and never moved is not the run's; reset at start, it is. */
static void test_mem_peak_source(void)
{
    static const char *rows =
        CPU_HEAD "2026-01-01T00:00:01.000+00:00,1,99,0,0,0,1,1,,,300.0,,500.0,,,,,\n"
                 "2026-01-01T00:00:02.000+00:00,1,99,0,0,0,1,1,,,450.0,,500.0,,,,,\n";
    const char *cases[][3] = {
        /* start event's cgroup object, expected peak, source */
        {"{\"version\": 2, \"memory_peak_mib\": 500.0, \"memory_peak_since_start\": false}", "450",
         "sampled"},
        {"{\"version\": 2, \"memory_peak_mib\": 480.0, \"memory_peak_since_start\": true}", "500",
         "kernel"},
        {"{\"version\": 2, \"memory_peak_mib\": 480.04}", "500", "kernel"}, /* rose at t=1 */
        {NULL, "450", "sampled"}, /* no start figure: the first row is the baseline */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *dir = th_tmpdir("system-peak");
        write_log(dir, cases[k][0], NULL);
        put_file(dir, "cpu_metrics.csv", rows);
        struct sum_run *run = summarize_dir(dir);
        struct json_object *o = summary_json(run);
        CHECK_NEAR(num(o, "container.mem_peak_mib"), atof(cases[k][1]), 1e-9);
        CU_ASSERT_STRING_EQUAL(str(o, "container.mem_peak_source"), cases[k][2]);
        CU_ASSERT_TRUE(is_null(o, "container.mem_max_mib")); /* no limit */
        /* empty limits mean no limit, not unmeasured: 6 placeholders a row (cgroup_cpu_pct,
         * disk, network, free space), not 8 */
        CU_ASSERT_EQUAL(rd_quality_placeholders_total(&run->q[HW_FILE_CPU]), 12);
        json_object_put(o);
        sum_run_free(run);
        th_rmtree(dir);
        free(dir);
    }
    /* a run without any container figure: all null, no source */
    char *dir = th_tmpdir("system-none");
    write_log(dir, NULL, NULL);
    put_file(dir, "cpu_metrics.csv",
             "timestamp,usr_pct,idle_pct\n2026-01-01T00:00:01.000+00:00,1,99\n");
    struct sum_run *run = summarize_dir(dir);
    struct json_object *o = summary_json(run);
    CU_ASSERT_TRUE(is_null(o, "container.mem_peak_mib"));
    CU_ASSERT_TRUE(is_null(o, "container.mem_peak_source"));
    CU_ASSERT_TRUE(is_null(o, "system.disk_read_mib"));
    CU_ASSERT_TRUE(is_null(o, "system.fs_free_min_mib"));
    json_object_put(o);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_text(run, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NULL(strstr(b.p, "container:"));
    CU_ASSERT_PTR_NULL(strstr(b.p, "disks:"));
    hw_buf_free(&b);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* The main process vs the tree, per phase (JSON, text) and in the sweep row. Rows cover
 * (1, 2], (2, 3], (3, 4]: a phase's CPU weighs each by the time it shares with the phase
 * (a = [1.5, 2.5]: half of each of the first two; b = [2.5, 4]: half of the second, all of the
 * third); its peaks are the readings taken inside it. */
static void test_main_split(void)
{
    char *dir = th_tmpdir("system-main");
    write_log(dir, NULL, phases);
    put_file(dir, "proc_metrics.csv",
             "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes,"
             "main_rss_mib,main_cpu_pct,main_threads,usr_cpu_pct,sys_cpu_pct\n"
             "2026-01-01T00:00:02.000+00:00,3,9,150.0,320.0,0,0,120.0,90.0,5,120.0,30.0\n"
             "2026-01-01T00:00:03.000+00:00,3,9,100.0,300.0,0,0,100.0,50.0,4,60.0,40.0\n"
             "2026-01-01T00:00:04.000+00:00,3,9,80.0,310.0,0,0,110.0,30.0,4,40.0,40.0\n");
    struct sum_run *run = summarize_dir(dir);
    struct json_object *o = summary_json(run);
    CHECK_NEAR(num(o, "phases.0.proc_main_peak_rss_mib"), 120.0, 1e-9);
    CHECK_NEAR(num(o, "phases.0.proc_main_cpu_mean_pct"), (90.0 + 50.0) / 2, 1e-9);
    CHECK_NEAR(num(o, "phases.0.proc_main_threads_max"), 5.0, 1e-9);
    CHECK_NEAR(num(o, "phases.0.proc_usr_cpu_mean_pct"), (120.0 + 60.0) / 2, 1e-9);
    CHECK_NEAR(num(o, "phases.1.proc_main_peak_rss_mib"), 110.0, 1e-9);
    CHECK_NEAR(num(o, "phases.1.proc_main_cpu_mean_pct"), (50.0 * 0.5 + 30.0) / 1.5, 1e-9);
    CHECK_NEAR(num(o, "phases.1.proc_sys_cpu_mean_pct"), 40.0, 1e-9);
    CU_ASSERT_TRUE(is_null(o, "phases.0.system.disk_read_mib")); /* no cpu_metrics.csv */
    json_object_put(o);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_text(run, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "    main process peak RSS 120.0 MiB, CPU mean 70.0%; "
                                       "tree CPU user 90.0%, system 35.0%\n"));
    hw_buf_reset(&b);
    sum_report_jsonl_row(run, &b);
    hw_buf_putc(&b, '\0');
    struct json_object *row = json_tokener_parse(b.p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CHECK_NEAR(num(row, "main_peak_rss_mib"), 120.0, 1e-9);
    CHECK_NEAR(num(row, "main_cpu_mean_pct"), 170.0 / 3, 1e-9);
    CHECK_NEAR(num(row, "main_threads_max"), 5.0, 1e-9);
    CHECK_NEAR(num(row, "usr_cpu_mean_pct"), 220.0 / 3, 1e-9);
    CHECK_NEAR(num(row, "sys_cpu_mean_pct"), 110.0 / 3, 1e-9);
    json_object_put(row);
    hw_buf_free(&b);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* Edge rows (hwmon's samples at phase edges): a phase's CPU and bytes come from the parts of
 * the rows inside it; a cadence row after edge rows covers its whole interval, so its own part
 * is what remains once theirs are taken out; the run-wide figures are the cadence's alone. */
static void test_edge_rows(void)
{
    char *dir = th_tmpdir("system-edges");
    /* a = [1.25, 1.75]: busy; the rest of the run idle */
    write_log(dir, NULL,
              "{\"ts\": \"2026-01-01T00:00:01.250+00:00\", \"type\": \"phase_begin\", \"name\": "
              "\"a\", \"phase_id\": \"1.1\"}\n"
              "{\"ts\": \"2026-01-01T00:00:01.750+00:00\", \"type\": \"phase\", \"name\": \"a\", "
              "\"seconds\": 0.5, \"phase_id\": \"1.1\"}\n");
    /* (1, 2] at 50% usr as a whole, 4 MiB read: (1, 1.25] 0%, (1.25, 1.75] 100% and 4 MiB,
     * (1.75, 2] 0% */
    put_file(dir, "cpu_metrics.csv",
             "timestamp,usr_pct,idle_pct,disk_read_bytes,edge\n"
             "2026-01-01T00:00:01.000+00:00,0.0,100.0,0,\n"
             "2026-01-01T00:00:01.250+00:00,0.0,100.0,0,1\n"
             "2026-01-01T00:00:01.750+00:00,100.0,0.0,4194304,1\n"
             "2026-01-01T00:00:02.000+00:00,50.0,50.0,4194304,\n"
             "2026-01-01T00:00:03.000+00:00,0.0,100.0,0,\n");
    put_file(dir, "proc_metrics.csv",
             "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes,edge\n"
             "2026-01-01T00:00:01.000+00:00,1,1,0.0,10.0,0,0,\n"
             "2026-01-01T00:00:01.250+00:00,1,1,0.0,10.0,0,0,1\n"
             "2026-01-01T00:00:01.750+00:00,1,1,100.0,50.0,0,0,1\n"
             "2026-01-01T00:00:02.000+00:00,1,1,50.0,12.0,0,0,\n"
             "2026-01-01T00:00:03.000+00:00,1,1,0.0,12.0,0,0,\n");
    struct sum_run *run = summarize_dir(dir);
    CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
    const struct sum_phase_acc *p = &run->phase[0];
    CHECK_NEAR(sum_stat_mean(&p->cpu_usr), 100.0, 1e-9);
    CHECK_NEAR(sum_stat_mean(&p->proc_cpu), 100.0, 1e-9);
    CHECK_NEAR(p->proc_rss.max, 50.0, 0);
    CHECK_NEAR(sum_system_mib(&p->sys, SUM_IO_DISK_READ), 4.0, 1e-9);
    CU_ASSERT_STRING_EQUAL(sum_phase_edges(p), "measured");
    /* the run: three cadence rows, their values as written */
    CU_ASSERT_EQUAL(sum_run_num_samples(run), 3);
    CU_ASSERT_EQUAL(run->edge_rows, 2);
    CHECK_NEAR(sum_stat_mean(&run->cpu[HW_CPU_COL_USR]), 50.0 / 3, 1e-9);
    CHECK_NEAR(sum_system_mib(&run->sys, SUM_IO_DISK_READ), 4.0, 1e-9);
    CU_ASSERT_EQUAL(run->proc[HW_PROC_COL_CPU].n, 3);
    sum_run_free(run);
    th_rmtree(dir);
    free(dir);
}

/* A 10 ms phase with one edge row, just after its begin: that row read its begin, not also its
 * end (it lies within the tolerance of both): "begin", not "measured" (issue 34). A second
 * row at its end makes it measured. */
static void test_short_phase_one_edge(void)
{
    for (int rows = 1; rows <= 2; rows++) {
        char *dir = th_tmpdir("system-short-edge");
        write_log(dir, NULL,
                  "{\"ts\": \"2026-01-01T00:00:01.250+00:00\", \"type\": \"phase_begin\", "
                  "\"name\": \"ckpt\", \"phase_id\": \"1.1\"}\n"
                  "{\"ts\": \"2026-01-01T00:00:01.260+00:00\", \"type\": \"phase\", \"name\": "
                  "\"ckpt\", \"seconds\": 0.01, \"phase_id\": \"1.1\"}\n");
        put_file(dir, "cpu_metrics.csv",
                 rows == 1 ? "timestamp,usr_pct,idle_pct,edge\n"
                             "2026-01-01T00:00:01.000+00:00,0.0,100.0,\n"
                             "2026-01-01T00:00:01.251+00:00,0.0,100.0,1\n"
                             "2026-01-01T00:00:02.000+00:00,10.0,90.0,\n"
                           : "timestamp,usr_pct,idle_pct,edge\n"
                             "2026-01-01T00:00:01.000+00:00,0.0,100.0,\n"
                             "2026-01-01T00:00:01.251+00:00,0.0,100.0,1\n"
                             "2026-01-01T00:00:01.261+00:00,50.0,50.0,1\n"
                             "2026-01-01T00:00:02.000+00:00,10.0,90.0,\n");
        struct sum_run *run = summarize_dir(dir);
        CU_ASSERT_EQUAL_FATAL(run->nphase, 1);
        CU_ASSERT_STRING_EQUAL(sum_phase_edges(&run->phase[0]), rows == 1 ? "begin" : "measured");
        sum_run_free(run);
        th_rmtree(dir);
        free(dir);
    }
}

/* The HTML report draws the disk and network rates and lists the run's totals; a run
 * without them has no such chart. */
static void test_html(void)
{
    char *dir = th_tmpdir("system-html");
    write_log(dir, NULL, phases);
    put_file(dir, "cpu_metrics.csv", cpu_rows);
    char *out = th_fmt("%s/r.html", dir);
    struct th_result r = run_summarize((char *[]){"--html", out, dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    char *html = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure class=\"chart\" id=\"disk-net\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, ">node disk read</th>")); /* the node's, named so */
    CU_ASSERT(strstr(html, "data-v=\"7\"") || strstr(html, "data-v=\"7.0\"")); /* 7 MiB */
    free(html);
    put_file(dir, "cpu_metrics.csv",
             "timestamp,usr_pct,idle_pct\n2026-01-01T00:00:01.000+00:00,1,99\n"
             "2026-01-01T00:00:02.000+00:00,1,99\n");
    r = run_summarize((char *[]){"--html", out, dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    html = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NULL(strstr(html, "id=\"disk-net\""));
    free(html);
    free(out);
    th_rmtree(dir);
    free(dir);
}

/* The node's I/O counters' table: every entry has every name and label (a forgotten one would
 * print "(null)" or crash), and summary.json's and the rows' keys are distinct and carry their
 * unit (MiB, MiB/s). */
static void test_io_table(void)
{
    for (int i = 0; i < SUM_IO_COUNT; i++) {
        const struct sum_io_def *d = &sum_io_defs[i];
        const char *const member[] = {d->mib_key,   d->peak_key,   d->mib_what, d->peak_what,
                                      d->mib_words, d->peak_words, d->text_run, d->text_system};
        for (size_t k = 0; k < sizeof member / sizeof member[0]; k++)
            CU_ASSERT(member[k] && *member[k]);
        if (!d->mib_key || !d->peak_key)
            continue;
        size_t n = strlen(d->mib_key), p = strlen(d->peak_key);
        CU_ASSERT(n > 4 && !strcmp(d->mib_key + n - 4, "_mib"));
        CU_ASSERT(p > 6 && !strcmp(d->peak_key + p - 6, "_mib_s"));
        for (int k = 0; k < i; k++) {
            CU_ASSERT(strcmp(sum_io_defs[k].mib_key, d->mib_key) != 0);
            CU_ASSERT(strcmp(sum_io_defs[k].peak_key, d->peak_key) != 0);
        }
    }
}

void add_system_suite(void)
{
    CU_pSuite s = th_add_suite("system", NULL, NULL, 60);
    CU_add_test(s, "traffic", test_traffic);
    CU_add_test(s, "mem_peak_source", test_mem_peak_source);
    CU_add_test(s, "main_split", test_main_split);
    CU_add_test(s, "edge_rows", test_edge_rows);
    CU_add_test(s, "short_phase_one_edge", test_short_phase_one_edge);
    CU_add_test(s, "html", test_html);
    CU_add_test(s, "io_table", test_io_table);
}
