/* The Prometheus export (--prom-textfile, prom.c): the exposition text from a run's files
 * (base units, escaping, unmeasured values absent, energy with the gap rule, only whole lines
 * used), the path rules and failures, and the real thing: Debian's prometheus-node-exporter
 * serving hwmon's file over HTTP on 127.0.0.1 while hwmon runs, and `promtool check metrics`
 * accepting every version of the file hwmon wrote. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpurow.h"
#include "hwtest.h"
#include "mon.h"
#include "prom.h"
#include "summary.h"
#include "timescale.h"
#include "verdicts.h" /* sum_run_summarize */
#include "hwrun/timeutil.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"

static bool have_program(const char *name)
{
    char *cmd = th_fmt("command -v %s >/dev/null 2>&1", name);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    struct th_result r;
    bool ok = th_run(argv, NULL, NULL, 10, &r) == 0 && r.status == 0;
    if (ok)
        th_result_free(&r);
    free(cmd);
    return ok;
}

/* promtool check metrics < path: 0 when it accepts the file, else its complaint on stderr. */
static int promtool_check(const char *path)
{
    char *cmd = th_fmt("promtool check metrics < '%s'", path);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    struct th_result r;
    int st = -1;
    if (th_run(argv, NULL, NULL, 30, &r) == 0) {
        st = r.status;
        if (st != 0)
            fprintf(stderr, "promtool on %s: %s%s\n", path, r.out, r.err);
        th_result_free(&r);
    }
    free(cmd);
    return st;
}

static void put(const char *dir, const char *name, const char *text, bool append)
{
    char *p = th_fmt("%s/%s", dir, name);
    FILE *f = fopen(p, append ? "a" : "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

/* Append to b a row of the default list (gpurow.h): GPU g at ts, the fixtures' figures with
 * these (power NAN: [N/A]). */
static void prow(struct hw_buf *b, const char *ts, int g, double util, double mem_util,
                 double used, double watts, double temp)
{
    struct th_gpu_vals v = th_gpu_vals_h100();
    v.v[HW_GM_UTIL] = util;
    v.v[HW_GM_MEM_UTIL] = mem_util;
    v.v[HW_GM_MEM_USED] = used;
    v.v[HW_GM_POWER] = watts;
    v.v[HW_GM_TEMP] = temp;
    char uuid[16];
    snprintf(uuid, sizeof uuid, "GPU-%d", g);
    th_gpu_row(b, hw_gpu_fields_default(), ts, g, uuid, &v);
}

/* ---------------------------------------------------------------- the exposition */

/* The value of a sample line "name{run="run",gpu="g"} v" in text; NAN when absent. */
static double sample_value(const char *text, const char *name, const char *run, int gpu)
{
    char *key = th_fmt("%s{run=\"%s\",gpu=\"%d\"} ", name, run, gpu);
    const char *at = strstr(text, key);
    double v = at ? strtod(at + strlen(key), NULL) : NAN;
    free(key);
    return v;
}

/* Every figure of hw_metrics.csv's table (hw_gpu_figs) is a family of the export, named
 * hwrun_<stem>_<base unit>, in the base unit, its HELP naming the nvidia-smi field; and the
 * power limit, the SM clock's maximum and the PCIe link from hw_health.csv. */
static void test_every_gpu_figure(void)
{
    /* each dimension's base unit and scale, written out: the oracle, not the table's */
    static const struct {
        const char *unit;
        double scale;
    } base[HW_GPU_DIM_COUNT] = {
        [HW_GPU_DIM_PCT] = {"ratio", 0.01}, [HW_GPU_DIM_MIB] = {"bytes", 1048576.0},
        [HW_GPU_DIM_W] = {"watts", 1.0},    [HW_GPU_DIM_C] = {"celsius", 1.0},
        [HW_GPU_DIM_MHZ] = {"hertz", 1e6},
    };
    struct {
        const char *stem, *field, *unit;
        double scale;
    } fig[HW_GPU_FIG_COUNT];
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[k];
        CU_ASSERT_PTR_NOT_NULL_FATAL(base[f->dim].unit);
        fig[k].stem = f->stem, fig[k].field = f->field;
        fig[k].unit = base[f->dim].unit, fig[k].scale = base[f->dim].scale;
    }
    char *dir = th_tmpdir("prom-figs");
    struct hw_buf list, row;
    hw_buf_init(&list, NULL, 0);
    hw_buf_init(&row, NULL, 0);
    hw_buf_puts(&list, "timestamp");
    hw_buf_puts(&row, "2026/11/21 10:00:00.000");
    for (size_t i = 0; i < sizeof fig / sizeof fig[0]; i++) {
        hw_buf_printf(&list, ",%s", fig[i].field);
        hw_buf_printf(&row, ", %zu", 10 + i);
    }
    hw_buf_puts(&list, ",index,uuid");
    hw_buf_puts(&row, ", 0, GPU-0\n");
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n",
        false);
    put(dir, "hw_metrics.csv", row.p, false);
    /* and the health columns a fleet alerts on */
    put(dir, "hw_health.csv",
        "timestamp, index, enforced.power.limit [W], clocks.max.sm [MHz], pcie.link.gen.current, "
        "pcie.link.gen.max, pcie.link.width.current, pcie.link.width.max\n"
        "2026/11/21 10:00:00.000, 0, 700.00, 1980, 4, 5, 8, 16\n",
        false);
    struct mon_prom p;
    memset(&p, 0, sizeof p);
    char *out = th_fmt("%s/x.prom", dir);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&p, out, dir), 0);
    snprintf(p.run, sizeof p.run, "r");
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, list.p, 1.0, "h", NULL), 0);
    struct mon_prom_counters c = {0};
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c, 1764085545.0), 0);
    char *text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (size_t i = 0; i < sizeof fig / sizeof fig[0]; i++) {
        char *name = th_fmt("hwrun_%s_%s", fig[i].stem, fig[i].unit);
        double v = sample_value(text, name, "r", 0);
        if (!(fabs(v - (double)(10 + i) * fig[i].scale) <= 1e-9 * fabs(v)))
            fprintf(stderr, "%s: %g, not %g\n", name, v, (double)(10 + i) * fig[i].scale);
        CU_ASSERT_DOUBLE_EQUAL(v, (double)(10 + i) * fig[i].scale, 1e-9 * fabs(v));
        char *help = th_fmt("# HELP %s ", name);
        const char *h = strstr(text, help);
        CU_ASSERT_PTR_NOT_NULL(h);
        if (h)
            CU_ASSERT_PTR_NOT_NULL(memmem(h, strcspn(h, "\n"), fig[i].field, strlen(fig[i].field)));
        free(help);
        free(name);
    }
    static const struct {
        const char *name;
        double v;
    } health[] = {
        {"hwrun_gpu_power_limit_watts", 700},        {"hwrun_gpu_sm_clock_max_hertz", 1.98e9},
        {"hwrun_gpu_pcie_link_generation", 4},       {"hwrun_gpu_pcie_link_generation_max", 5},
        {"hwrun_gpu_pcie_link_width", 8},            {"hwrun_gpu_pcie_link_width_max", 16},
    };
    for (size_t i = 0; i < sizeof health / sizeof health[0]; i++) {
        double v = sample_value(text, health[i].name, "r", 0);
        if (v != health[i].v)
            fprintf(stderr, "%s: %g, not %g\n", health[i].name, v, health[i].v);
        CU_ASSERT_EQUAL(v, health[i].v);
    }
    mon_prom_close(&p);
    free(text);
    free(out);
    hw_buf_free(&list);
    hw_buf_free(&row);
    th_rmtree(dir);
    free(dir);
}

/* A figure a board may not have (HW_GF_MAY_NA: a fan) that it answers [N/A] for, in hwmon's
 * default list, is no family of the export (unmeasured is absent, never 0), beside the figures
 * it measured. */
static void test_may_na_absent(void)
{
    char *dir = th_tmpdir("prom-na");
    struct hw_buf rows;
    hw_buf_init(&rows, NULL, 0);
    prow(&rows, "2026/11/21 10:00:00.000", 0, 50, 30, 2048, 300, 50);
    hw_buf_putc(&rows, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(rows.p, "[N/A]"));
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n",
        false);
    put(dir, "hw_metrics.csv", rows.p, false);
    struct mon_prom p;
    memset(&p, 0, sizeof p);
    char *out = th_fmt("%s/x.prom", dir);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&p, out, dir), 0);
    snprintf(p.run, sizeof p.run, "r");
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, hw_gpu_fields_default(), 1.0, "h", NULL), 0);
    struct mon_prom_counters c = {0};
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c, 1764085545.0), 0);
    char *text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int may = 0;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        const struct hw_gpu_fig *f = &hw_gpu_figs[m];
        char *name = th_fmt("hwrun_%s_%s", f->stem, hw_gpu_dims[f->dim].prom_unit);
        if (f->flags & HW_GF_MAY_NA) {
            may++;
            CU_ASSERT_PTR_NULL(strstr(text, name));
        } else if (strstr(hw_gpu_fields_default(), f->field)) {
            CU_ASSERT(isfinite(sample_value(text, name, "r", 0)));
        }
        free(name);
    }
    CU_ASSERT(may > 0);
    mon_prom_close(&p);
    free(text);
    free(out);
    hw_buf_free(&rows);
    th_rmtree(dir);
    free(dir);
}

/* The export's energy is summarize's, also when nvidia-smi sampled slower than hwmon asked (it
 * falls behind with many GPUs or a short -i): 0.2 s rows where -i said 0.05 s are steps, not
 * gaps, for both; the 3 s hole is a gap for both. */
static void test_energy_agrees(void)
{
    char *dir = th_tmpdir("prom-agree");
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"interval_s\": 0.05, \"smi_tz\": \"UTC\"}}\n",
        false);
    struct hw_buf rows;
    hw_buf_init(&rows, NULL, 0);
    for (int i = 0; i < 40; i++) {
        int ms = i * 200 + (i >= 30 ? 3000 : 0); /* a 3.2 s step after row 29 */
        char ts[40];
        snprintf(ts, sizeof ts, "2026/11/21 10:00:%02d.%03d", ms / 1000, ms % 1000);
        for (int g = 0; g < 2; g++)
            prow(&rows, ts, g, 90, 30, 1024, 200 + 7 * i + 50 * g + (13 * i) % 100 / 100.0, 50);
    }
    put(dir, "hw_metrics.csv", rows.p, false);
    hw_buf_free(&rows);
    /* GPU 0 has an energy counter (NVML's or AMD SMI's): 4000 J over the run, a reset between */
    put(dir, HW_ENERGY_FILE,
        HW_ENERGY_HEADER "\n"
        "2026-11-21T10:00:00.000+00:00,0,9000000,\n"
        "2026-11-21T10:00:05.000+00:00,0,10500000,\n"
        "2026-11-21T10:00:06.000+00:00,0,1000,\n"
        "2026-11-21T10:00:11.000+00:00,0,2501000,\n",
        false);

    struct mon_prom p;
    memset(&p, 0, sizeof p);
    char *out = th_fmt("%s/x.prom", dir);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&p, out, dir), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, hw_gpu_fields_default(), 0.05, "node", NULL), 0);
    struct mon_prom_counters c = {.samples = 40};
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c, 1e9), 0);
    char *live = th_read_file(out, NULL); /* every step judged as its row came */
    CU_ASSERT_PTR_NOT_NULL_FATAL(live);
    mon_prom_close(&p);

    struct sum_inputs in;
    char *paths[HW_FILE_COUNT];
    sum_inputs_from_dir(&in, dir, paths);
    struct sum_run *run = sum_run_new();
    struct sum_config cfg = {0};
    CU_ASSERT_EQUAL_FATAL(sum_run_summarize(run, &in, &cfg), 0);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(paths[k]);
    for (int g = 0; g < 2; g++) {
        const struct rd_energy *e = &run->gpu[g]->energy;
        CU_ASSERT_EQUAL(e->gaps, 1);
        CU_ASSERT(e->joules > 1000); /* 36 bridged steps of about 0.2 s at 200 W and more */
        double j = sample_value(live, "hwrun_gpu_energy_joules_total", p.run, g);
        /* summarize's energy for both, by its rule: GPU 0's counter, GPU 1's integral */
        double want = g ? e->joules : 4000.0;
        CU_ASSERT_DOUBLE_EQUAL(j, want, 1e-9 * want);
        CU_ASSERT_DOUBLE_EQUAL(j, sum_gpu_energy_wh(run, g, NULL) * 3600, 1e-9 * want);
    }
    sum_run_free(run);
    free(live);
    free(out);
    th_rmtree(dir);
    free(dir);
}

static void test_exposition(void)
{
    char *dir = th_tmpdir("prom-run");
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n"
        "{\"ts\": \"2026-11-21T10:00:02.000+00:00\", \"type\": \"phase\", "
        "\"name\": \"a\\\"b\\\\c\\nd\", \"seconds\": 1.0}\n",
        false);
    /* GPU 0: 100, 110, 120 W one second apart (energy 105 + 115 J), then a 10 s gap (not
     * bridged) to 130 W. GPU 1: power never measured. A GPU's first 3 steps wait for the gap
     * rule's interval (their median): the counter is 0 until then, absent without power. */
    struct hw_buf rows;
    hw_buf_init(&rows, NULL, 0);
    prow(&rows, "2026/11/21 10:00:00.000", 0, 35, 5, 1024, 100, 50);
    prow(&rows, "2026/11/21 10:00:00.000", 1, 7, 1, 2048, NAN, 51);
    prow(&rows, "2026/11/21 10:00:01.000", 0, 35, 5, 1024, 110, 50);
    prow(&rows, "2026/11/21 10:00:02.000", 0, 35, 5, 1024, 120, 50);
    put(dir, "hw_metrics.csv", rows.p, false);
    put(dir, "cpu_metrics.csv",
        "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,"
        "mem_available_mib,disk_read_bytes,disk_write_bytes,net_rx_bytes,net_tx_bytes,"
        "fs_free_mib\n"
        "2026-11-21T10:00:00.500+00:00,12.5,80.0,7.5,,0.0,1024.0,2048.5,4096,0,,,10.0\n"
        "2026-11-21T10:00:01.000+00:00,12.5,80.0,7.5,,0.0,1024.0,2048.5,1000,0,,,20.0\n",
        false);
    struct mon_prom p;
    memset(&p, 0, sizeof p);
    char *out = th_fmt("%s/x.prom", dir);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&p, out, dir), 0);
    CU_ASSERT_STRING_EQUAL(p.path, out);
    snprintf(p.run, sizeof p.run, "r\"7"); /* the label of every series */
    CU_ASSERT_EQUAL_FATAL(
        mon_prom_open(&p, dir, hw_gpu_fields_default(), 1.0, "node\"7", "/usr/bin/python3"), 0);
    struct mon_context ctx;
    static const char env[] = "SLURM_JOB_ID=812345\0RANK=3\0POD_NAME=trainer-\"0\0";
    mon_context_parse(&ctx, env, sizeof env - 1, "node\"7");
    mon_prom_set_context(&p, &ctx);
    struct mon_prom_counters c = {.samples = 3, .skipped_slots = 1, .child_restarts = 2};
    for (int k = 0; k < HW_FILE_COUNT; k++) /* every file's own count, 4 for cpu, 5 for proc */
        c.lost[k] = (uint64_t)(4 + k - HW_FILE_CPU);
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c, 1764085545.25), 0);
    char *text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    static const char *const want[] = {
        "hwrun_run_info{run=\"r\\\"7\",host=\"node\\\"7\",command=\"python3\","
        "slurm_job_id=\"812345\",k8s_pod=\"trainer-\\\"0\",rank=\"3\"} 1\n",
        "# TYPE hwrun_phase_info gauge\nhwrun_phase_info{run=\"r\\\"7\",phase=\"a\\\"b\\\\c\\nd\"} 1\n",
        "# TYPE hwrun_gpu_power_watts gauge\nhwrun_gpu_power_watts{run=\"r\\\"7\",gpu=\"0\"} 120.0\n"
        "# HELP hwrun_gpu_temperature_celsius",
        "hwrun_gpu_utilization_ratio{run=\"r\\\"7\",gpu=\"0\"} 0.35\n"
        "hwrun_gpu_utilization_ratio{run=\"r\\\"7\",gpu=\"1\"} 0.07\n",
        "hwrun_gpu_memory_used_bytes{run=\"r\\\"7\",gpu=\"1\"} 2147483648.0\n",
        "hwrun_gpu_sm_clock_hertz{run=\"r\\\"7\",gpu=\"0\"} 1980000000.0\n",
        "hwrun_cpu_usage_ratio{run=\"r\\\"7\",mode=\"user\"} 0.125\n"
        "hwrun_cpu_usage_ratio{run=\"r\\\"7\",mode=\"system\"} 0.075\n"
        "hwrun_cpu_usage_ratio{run=\"r\\\"7\",mode=\"steal\"} 0.0\n",
        "hwrun_memory_available_bytes{run=\"r\\\"7\"} 2148007936.0\n",
        "hwrun_disk_read_bytes_total{run=\"r\\\"7\"} 5096.0\n",
        "hwrun_disk_written_bytes_total{run=\"r\\\"7\"} 0.0\n",
        "hwrun_output_fs_free_bytes{run=\"r\\\"7\"} 20971520.0\n",
        "hwrun_samples_total{run=\"r\\\"7\"} 3.0\n", "hwrun_skipped_slots_total{run=\"r\\\"7\"} 1.0\n",
        "hwrun_child_restarts_total{run=\"r\\\"7\"} 2.0\n",
        "hwrun_samples_lost_total{run=\"r\\\"7\",file=\"cpu\"} 4.0\n"
        "hwrun_samples_lost_total{run=\"r\\\"7\",file=\"proc\"} 5.0\n",
        "hwrun_phases_total{run=\"r\\\"7\"} 1.0\n",
        "hwrun_export_timestamp_seconds{run=\"r\\\"7\"} 1764085545.25\n",
        /* 2 steps of GPU 0 wait for a third: 0 so far, and no counter for GPU 1 (no power) */
        "# TYPE hwrun_gpu_energy_joules_total counter\n"
        "hwrun_gpu_energy_joules_total{run=\"r\\\"7\",gpu=\"0\"} 0.0\n# HELP",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
        if (!strstr(text, want[i]))
            fprintf(stderr, "missing: [%s]\n", want[i]);
    }
    /* one lost series per file hwmon writes itself (the run files' table), by its stem, and
     * none for the others */
    int own = 0, series = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        char *one = th_fmt("hwrun_samples_lost_total{run=\"r\\\"7\",file=\"%s\"} %d.0\n",
                           hw_run_files[k].stem, 4 + k - HW_FILE_CPU);
        bool mine = hw_run_files[k].by == HW_BY_HWMON;
        own += mine;
        CU_ASSERT_EQUAL(strstr(text, one) != NULL, mine);
        if ((strstr(text, one) != NULL) != mine)
            fprintf(stderr, "%s: [%s] %s\n", hw_file_names[k], one, mine ? "missing" : "written");
        free(one);
    }
    for (const char *at = text; (at = strstr(at, "\nhwrun_samples_lost_total{")); at++)
        series++;
    CU_ASSERT(own >= 2); /* cpu and proc at least */
    CU_ASSERT_EQUAL(series, own);
    /* unmeasured is absent, never 0: GPU 1's power and energy, iowait, GPM, the tree; the
     * export interval (no owner: the file was not claimed) */
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_energy_joules_total{run=\"r\\\"7\",gpu=\"1\"}"));
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_power_watts{run=\"r\\\"7\",gpu=\"1\"}"));
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_export_interval_seconds"));
    CU_ASSERT_PTR_NULL(strstr(text, "# hwrun-owner"));
    CU_ASSERT_PTR_NULL(strstr(text, "mode=\"iowait\""));
    CU_ASSERT_PTR_NULL(strstr(text, "sm_active"));
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_tree_"));
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_network_")); /* empty cells: never measured */
    free(text);
    if (have_program("promtool")) {
        CU_ASSERT_EQUAL(promtool_check(out), 0);
    } else {
        th_skip("promtool (Debian package prometheus) is not installed");
    }

    /* The current phase is the innermost begun and not ended, then the last completed again. */
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:03.000+00:00\", \"type\": \"phase_begin\", "
        "\"name\": \"epoch\", \"phase_id\": \"7.1\"}\n"
        "{\"ts\": \"2026-11-21T10:00:03.100+00:00\", \"type\": \"phase_begin\", "
        "\"name\": \"checkpoint\", \"phase_id\": \"7.2\"}\n",
        true);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c, 1764085546.0), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phase_info{run=\"r\\\"7\",phase=\"checkpoint\"} 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_open{run=\"r\\\"7\"} 2.0\n"));
    free(text);
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:04.000+00:00\", \"type\": \"phase\", "
        "\"name\": \"checkpoint\", \"seconds\": 0.9, \"phase_id\": \"7.2\"}\n",
        true);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c, 1764085546.0), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phase_info{run=\"r\\\"7\",phase=\"epoch\"} 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_open{run=\"r\\\"7\"} 1.0\n"));
    free(text);
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:05.000+00:00\", \"type\": \"phase\", "
        "\"name\": \"epoch\", \"seconds\": 2.0, \"phase_id\": \"7.1\"}\n",
        true);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c, 1764085546.0), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phase_info{run=\"r\\\"7\",phase=\"epoch\"} 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_open{run=\"r\\\"7\"} 0.0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_total{run=\"r\\\"7\"} 3.0\n"));
    free(text);

    /* Only what was appended is read; a row without its '\n' yet waits for the next export.
     * The 4th row decides: steps 1, 1, 10 s, median 1 s, the 10 s one a gap; then 1 s more. */
    hw_buf_reset(&rows);
    prow(&rows, "2026/11/21 10:00:12.000", 0, 35, 5, 1024, 130, 50);
    prow(&rows, "2026/11/21 10:00:13.000", 0, 35, 5, 1024, 140, 50);
    /* the second row without its last 4 bytes (its newline among them): not written yet */
    char tail[5];
    memcpy(tail, rows.p + rows.len - 4, 4);
    tail[4] = '\0';
    rows.p[rows.len -= 4] = '\0';
    put(dir, "hw_metrics.csv", rows.p, true);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c, 1764085546.0), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_DOUBLE_EQUAL(sample_value(text, "hwrun_gpu_energy_joules_total", "r\\\"7", 0), 220,
                           1e-9);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_gpu_power_watts{run=\"r\\\"7\",gpu=\"0\"} 130.0\n"));
    free(text);
    put(dir, "hw_metrics.csv", tail, true);
    hw_buf_free(&rows);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c, 1764085547.0), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_DOUBLE_EQUAL(sample_value(text, "hwrun_gpu_energy_joules_total", "r\\\"7", 0), 355,
                           1e-9);
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_energy_joules_total{run=\"r\\\"7\",gpu=\"1\"}"));
    free(text);
    mon_prom_close(&p);
    free(out);
    th_rmtree(dir);
    free(dir);
}

/* Bytes that are not UTF-8 in a host name, a command or a phase name (all come from outside):
 * each label stays valid UTF-8 (U+FFFD per bad byte), so promtool and node_exporter keep the
 * file. Today's printf of the raw bytes made promtool reject the whole file. */
static void test_label_utf8(void)
{
    char *dir = th_tmpdir("prom-utf8");
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:00.000+00:00\", \"type\": \"event\", \"event\": \"start\", "
        "\"data\": {\"interval_s\": 1.0, \"smi_tz\": \"UTC\"}}\n",
        false);
    struct mon_prom p;
    memset(&p, 0, sizeof p);
    char *out = th_fmt("%s/x.prom", dir);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&p, out, dir), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, hw_gpu_fields_default(), 1.0, "node\xff\xfe-\xc3",
                                        "/opt/tr\xe9in"),
                          0);
    struct mon_prom_counters c = {.samples = 1};
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c, 1764085545.0), 0);
    char *text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "host=\"node\xEF\xBF\xBD\xEF\xBF\xBD-\xEF\xBF\xBD\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "command=\"tr\xEF\xBF\xBDin\""));
    /* the whole file is UTF-8 */
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t k = hw_utf8_decode(text + i, len - i, &cp);
        if (k == 0 || k == HW_UTF8_SHORT) {
            fprintf(stderr, "byte %zu of the export is not UTF-8\n", i);
            CU_FAIL("not UTF-8");
            break;
        }
        i += k;
    }
    free(text);
    if (have_program("promtool")) {
        CU_ASSERT_EQUAL(promtool_check(out), 0);
    } else {
        th_skip("promtool (Debian package prometheus) is not installed");
    }
    mon_prom_close(&p);
    free(out);
    th_rmtree(dir);
    free(dir);
}

/* A directory gets hwrun_<run>.prom (odd characters made '_'); a write that fails leaves the
 * previous file in place and no temporary file behind. */
static void test_paths(void)
{
    char *dir = th_tmpdir("prom-path");
    struct mon_prom p;
    memset(&p, 0, sizeof p);
    CU_ASSERT_EQUAL(mon_prom_resolve(&p, dir, "/runs/exp 4\"2"), 0);
    char *want = th_fmt("%s/hwrun_exp_4_2.prom", dir);
    CU_ASSERT_STRING_EQUAL(p.path, want);
    free(want);
    CU_ASSERT_EQUAL(mon_prom_resolve(&p, "/nonexistent-hwrun/x.prom", dir), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, hw_gpu_fields_default(), 1.0, "h", NULL), 0);
    struct mon_prom_counters c = {0};
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c, 1764085545.0), -ENOENT);
    mon_prom_close(&p);
    th_rmtree(dir);
    free(dir);
}

/* hwmon refuses to start the command when the export cannot be written. */
static void test_unwritable(void)
{
    char *dir = th_tmpdir("prom-unwritable");
    char *marker = th_fmt("%s/ran", dir);
    char *run = th_fmt("%s/run", dir);
    char *touch = th_fmt("touch '%s'", marker);
    char **argv = ht_argv(run, "--prom-textfile", "/nonexistent-hwrun/x.prom", "--", "/bin/sh",
                          "-c", touch, NULL);
    struct th_result r;
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, &r), 125);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "hwmon: write /nonexistent-hwrun/x.prom: "));
    CU_ASSERT_NOT_EQUAL(access(marker, F_OK), 0);
    th_result_free(&r);
    free(argv);
    free(touch);
    free(run);
    free(marker);
    th_rmtree(dir);
    free(dir);
}

/* A new file named relative to the working directory is claimed under its own name, without a
 * word about another run (the claim names it "./new.prom", which is no other name). */
static void test_new_relative_file(void)
{
    char *dir = th_tmpdir("prom-relative");
    char *cmd = th_fmt("cd '%s' && exec '%s' --nvidia-smi '%s' -i 0.1 --prom-textfile new.prom "
                       "--prom-interval 1 -o run -- /bin/sh -c 'test -s new.prom'",
                       dir, th_env("HWRUN_HWMON_BIN"), th_env("HWRUN_FAKE_SMI"));
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    struct th_result r;
    CU_ASSERT_FATAL(th_run(argv, NULL, NULL, 60, &r) == 0);
    CU_ASSERT_EQUAL(r.status, 0); /* the command found the export under the name asked */
    if (strstr(r.err, "another live run"))
        fprintf(stderr, "%s", r.err);
    CU_ASSERT_PTR_NULL(strstr(r.err, "another live run"));
    th_result_free(&r);
    free(cmd);
    th_rmtree(dir);
    free(dir);
}

/* ---------------------------------------------------------------- node_exporter */

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

/* GET /metrics from 127.0.0.1:port; the body (malloc'd) or NULL when nobody answers. */
static char *scrape(int port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        if (s >= 0)
            close(s);
        return NULL;
    }
    static const char req[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(s, req, sizeof req - 1) != (ssize_t)(sizeof req - 1)) {
        close(s);
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 4096 > cap)
            buf = realloc(buf, cap *= 2);
        ssize_t n = read(s, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(s);
    buf[len] = '\0';
    char *body = strstr(buf, "\r\n\r\n");
    if (!body || strncmp(buf, "HTTP/1.", 7) || strncmp(buf + 9, "200", 3)) {
        free(buf);
        return NULL;
    }
    memmove(buf, body + 4, strlen(body + 4) + 1);
    return buf;
}

struct watch {
    char *file, *copies;
    struct timespec last;
    ino_t ino;
    int n;
};

/* Keep a copy of every version of the export file (it is replaced by rename: a new inode). */
static void keep_version(struct watch *w)
{
    struct stat st;
    if (stat(w->file, &st) < 0 || (st.st_ino == w->ino && st.st_mtim.tv_sec == w->last.tv_sec &&
                                   st.st_mtim.tv_nsec == w->last.tv_nsec))
        return;
    size_t len;
    char *text = th_read_file(w->file, &len);
    if (!text)
        return;
    char *p = th_fmt("%s/v%03d.prom", w->copies, w->n++);
    th_write_file(p, text, len);
    free(p);
    free(text);
    w->ino = st.st_ino;
    w->last = st.st_mtim;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        entries += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return entries;
}

static bool wait_for_file(const char *path, double timeout_s)
{
    for (int i = 0; i < (int)(timeout_s * 20); i++) {
        if (access(path, F_OK) == 0)
            return true;
        usleep(50000);
    }
    return false;
}

/* Three runs on one node exporting into node_exporter's one textfile directory: one killed with
 * SIGKILL (its file left behind), then two live runs whose directories share a name. node_exporter
 * gathers without error, each live run's series carry a run label of their own, the killed
 * run's file is gone (the next hwmon's export removed it), every version of a file passes
 * promtool, and when the runs end their files go with them. */
static void test_node_exporter(void)
{
    if (!have_program("prometheus-node-exporter") || !have_program("promtool")) {
        th_skip("prometheus-node-exporter and promtool (Debian packages "
                "prometheus-node-exporter, prometheus) are not installed");
        return;
    }
    char *base = th_tmpdir("prom-ne");
    char *tdir = th_fmt("%s/textfile", base), *copies = th_fmt("%s/copies", base);
    char *run_k = th_fmt("%s/killed", base);
    char *run_a = th_fmt("%s/a/exp42", base), *run_b = th_fmt("%s/b/exp42", base);
    CU_ASSERT_EQUAL_FATAL(mkdir(tdir, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(copies, 0755), 0);
    int port = free_port();
    CU_ASSERT_FATAL(port > 0);
    char *listen = th_fmt("--web.listen-address=127.0.0.1:%d", port);
    char *tflag = th_fmt("--collector.textfile.directory=%s", tdir);
    char *ne_argv[] = {"/usr/bin/env", "prometheus-node-exporter", listen,
                       "--collector.disable-defaults", "--collector.textfile", tflag, NULL};
    char *ne_log = th_fmt("%s/ne.log", base);
    pid_t ne = th_spawn(ne_argv, NULL, ne_log, ne_log);
    CU_ASSERT_FATAL(ne > 0);

    /* every run's textfile rewritten every 0.5 s, which the test-only time scale allows (the
     * least --prom-interval is 1 s) */
    char *scale[] = {MON_TIME_SCALE_ENV "=0.5", NULL};
    /* the killed run: its file stays behind, as a SIGKILL leaves it */
    char **argv_k = ht_argv(run_k, "-i", "0.2", "--prom-textfile", tdir, "--prom-interval", "0.5",
                            "--", "/bin/sleep", "2", NULL);
    pid_t hk = th_spawn(argv_k, scale, NULL, NULL);
    CU_ASSERT_FATAL(hk > 0);
    char *file_k = th_fmt("%s/hwrun_killed.prom", tdir);
    CU_ASSERT_FATAL(wait_for_file(file_k, 30));
    kill(hk, SIGKILL);
    th_wait(hk, 10);
    CU_ASSERT_EQUAL(access(file_k, F_OK), 0);

    /* both runs last until the test has seen what it looks for (a loaded TSan hwmon's GPU
     * rows came later than a 3 s job's end) */
    char *go = th_fmt("%s/go", base);
    char *job = th_fmt("until [ -e '%s' ]; do sleep 0.05; done", go);
    char **argv_a = ht_argv(run_a, "-i", "0.2", "--prom-textfile", tdir, "--prom-interval", "0.5",
                            "--", "/bin/sh", "-c", job, NULL);
    pid_t ha = th_spawn(argv_a, scale, NULL, NULL);
    CU_ASSERT_FATAL(ha > 0);
    struct watch w = {th_fmt("%s/hwrun_exp42.prom", tdir), copies, {0, 0}, 0, 0};
    CU_ASSERT_FATAL(wait_for_file(w.file, 30));
    char *err_b = th_fmt("%s/b.err", base);
    char **argv_b = ht_argv(run_b, "-i", "0.2", "--prom-textfile", tdir, "--prom-interval", "0.5",
                            "--", "/bin/sh", "-c", job, NULL);
    pid_t hb = th_spawn(argv_b, scale, NULL, err_b);
    CU_ASSERT_FATAL(hb > 0);

    char *seen = NULL;
    int st_a = -ETIMEDOUT, st_b = -ETIMEDOUT;
    bool released = false;
    for (int i = 0; i < 4800 && (st_a == -ETIMEDOUT || st_b == -ETIMEDOUT); i++) {
        keep_version(&w);
        bool both = seen && strstr(seen, "hwrun_gpu_power_watts{gpu=\"1\",run=\"exp42\"}") &&
                    strstr(seen, "hwrun_gpu_power_watts{gpu=\"1\",run=\"exp42-2\"}") &&
                    strstr(seen, "hwrun_gpu_energy_joules_total{gpu=\"0\",run=\"exp42-2\"}");
        if (!both && !released) {
            free(seen);
            seen = scrape(port);
        }
        /* the runs end once both were served and a's file was rewritten 3 times (60 s at most) */
        if (!released && ((both && w.n >= 3) || i >= 2400)) {
            th_write_file(go, "", 0);
            released = true;
        }
        if (!released) {
            th_sleep(0.025);
            continue;
        }
        if (st_a == -ETIMEDOUT)
            st_a = th_wait(ha, 0.025);
        if (st_b == -ETIMEDOUT)
            st_b = th_wait(hb, 0.025);
    }
    CU_ASSERT_EQUAL(st_a, 0);
    CU_ASSERT_EQUAL(st_b, 0);
    /* node_exporter served both live runs at once, each under its own label, without error */
    CU_ASSERT_PTR_NOT_NULL(seen);
    if (seen) {
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "hwrun_gpu_power_watts{gpu=\"1\",run=\"exp42\"}"));
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "hwrun_gpu_power_watts{gpu=\"1\",run=\"exp42-2\"}"));
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "hwrun_run_info{command=\"sh\",host=\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "hwrun_gpu_energy_joules_total{gpu=\"0\",run=\"exp42-2\"}"));
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "node_textfile_scrape_error 0"));
        CU_ASSERT_PTR_NULL(strstr(seen, "run=\"killed\""));
        char *copy = th_fmt("%s/scrape.txt", base);
        th_write_file(copy, seen, strlen(seen));
        CU_ASSERT_EQUAL(promtool_check(copy), 0);
        free(copy);
    }
    char *err = th_read_file(err_b, NULL);
    CU_ASSERT_TRUE(err && strstr(err, "is another live run's export"));
    free(err);
    CU_ASSERT_NOT_EQUAL(access(file_k, F_OK), 0); /* the killed run's file was swept */
    /* ended runs are not served: their files are gone */
    char *last = scrape(port);
    CU_ASSERT_TRUE(last && !strstr(last, "hwrun_"));
    free(last);
    free(seen);
    kill(ne, SIGTERM);
    th_wait(ne, 10);
    /* the first, about twice a second; the last is gone with the run */
    CU_ASSERT(w.n >= 3);
    for (int i = 0; i < w.n; i++) {
        char *p = th_fmt("%s/v%03d.prom", copies, i);
        CU_ASSERT_EQUAL(promtool_check(p), 0);
        free(p);
    }
    /* nothing left in the directory: no export, no temporary file */
    CU_ASSERT_EQUAL(count_entries(tdir), 0);
    free(w.file);
    free(go);
    free(job);
    free(argv_k);
    free(argv_a);
    free(argv_b);
    free(file_k);
    free(err_b);
    free(ne_log);
    free(tflag);
    free(listen);
    free(run_k);
    free(run_a);
    free(run_b);
    free(copies);
    free(tdir);
    th_rmtree(base);
    free(base);
}

/* ---------------------------------------------------------------- owners and stale files */

static void plant(const char *dir, const char *name, const struct mon_prom_owner *o,
                  double age_s)
{
    char *text;
    if (o)
        text = th_fmt("# hwrun-owner pid=%d start=%llu boot=%s pidns=%llu interval=%g host=%s\n"
                      "hwrun_samples_total{run=\"x\"} 1\n",
                      (int)o->pid, (unsigned long long)o->start, o->boot,
                      (unsigned long long)o->pidns, o->interval_s, o->host);
    else
        text = th_fmt("hwrun_running 0\n");
    put(dir, name, text, false);
    free(text);
    if (age_s > 0) {
        char *p = th_fmt("%s/%s", dir, name);
        struct timespec t[2];
        clock_gettime(CLOCK_REALTIME, &t[0]);
        t[0].tv_sec -= (time_t)age_s;
        t[1] = t[0];
        CU_ASSERT_EQUAL(utimensat(AT_FDCWD, p, t, 0), 0);
        free(p);
    }
}

static bool exists(const char *dir, const char *name)
{
    char *p = th_fmt("%s/%s", dir, name);
    bool e = access(p, F_OK) == 0 || errno != ENOENT;
    free(p);
    return e;
}

/* Which files a hwmon takes for stale: a dead owner in its PID namespace (pid gone, or reused
 * by a process that started later), another boot of its host; elsewhere (another namespace, a
 * host sharing the directory) only silence: no rewrite for 3 intervals + 30 s. A file without
 * an owner line, a symbolic link, a live run's file and its own are never touched. A name a
 * live run holds makes the claim take <stem>-2, and the label follows; a stale one is taken
 * over as it is. */
static void test_owners(void)
{
    char *dir = th_tmpdir("prom-owners");
    struct mon_prom_owner me;
    CU_ASSERT_EQUAL_FATAL(mon_prom_owner_self(&me, 10), 0);
    CU_ASSERT(me.pidns > 0);

    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CU_ASSERT_FATAL(child > 0);
    th_wait(child, 10);
    struct mon_prom_owner dead = me, reused = me, reboot = me, pod = me, pod_old = me,
                          other_host = me, live = me;
    dead.pid = child;
    reused.start = me.start - 1; /* my pid, but the owner started earlier: pid reused */
    snprintf(reboot.boot, sizeof reboot.boot, "00000000-1111-2222-3333-444444444444");
    pod.pidns = me.pidns + 1;
    pod.pid = 1;
    pod_old = pod;
    snprintf(other_host.boot, sizeof other_host.boot, "%s", reboot.boot);
    snprintf(other_host.host, sizeof other_host.host, "elsewhere");
    plant(dir, "hwrun_dead.prom", &dead, 0);
    plant(dir, "hwrun_reused.prom", &reused, 0);
    plant(dir, "hwrun_reboot.prom", &reboot, 0);
    plant(dir, "hwrun_pod.prom", &pod, 50);          /* 50 s < 3 * 10 + 30 */
    plant(dir, "hwrun_pod_old.prom", &pod_old, 70); /* 70 s > 60 */
    plant(dir, "hwrun_far.prom", &other_host, 20);
    plant(dir, "hwrun_live.prom", &live, 3600);     /* an old mtime, but its owner runs */
    struct mon_prom_owner blind = me; /* an owner that could not read its /proc: age only */
    blind.start = 0;
    plant(dir, "hwrun_blind.prom", &blind, 20);
    plant(dir, "hwrun_legacy.prom", NULL, 3600);
    plant(dir, "other.prom", &dead, 0);             /* not an hwrun export name */
    char *target = th_fmt("%s/hwrun_dead.prom", dir), *link = th_fmt("%s/hwrun_link.prom", dir);
    CU_ASSERT_EQUAL(symlink(target, link), 0);

    /* the claim: hwrun_dead.prom is stale, taken over under its own name */
    struct mon_prom p;
    memset(&p, 0, sizeof p);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&p, dir, "/runs/dead"), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_claim(&p, &me), 0);
    CU_ASSERT_STRING_EQUAL(p.path, target);
    CU_ASSERT_STRING_EQUAL(p.run, "dead");
    char *text = th_read_file(target, NULL);
    struct mon_prom_owner back;
    CU_ASSERT_TRUE(text && mon_prom_owner_parse(text, &back) && back.pid == me.pid &&
                   back.start == me.start && back.pidns == me.pidns);
    free(text);

    CU_ASSERT_EQUAL(mon_prom_sweep(&p, hw_real_now()), 3);
    CU_ASSERT_FALSE(exists(dir, "hwrun_reused.prom"));
    CU_ASSERT_FALSE(exists(dir, "hwrun_reboot.prom"));
    CU_ASSERT_FALSE(exists(dir, "hwrun_pod_old.prom"));
    CU_ASSERT_TRUE(exists(dir, "hwrun_dead.prom"));  /* mine now */
    CU_ASSERT_TRUE(exists(dir, "hwrun_pod.prom"));
    CU_ASSERT_TRUE(exists(dir, "hwrun_far.prom"));
    CU_ASSERT_TRUE(exists(dir, "hwrun_live.prom"));
    CU_ASSERT_TRUE(exists(dir, "hwrun_blind.prom"));
    CU_ASSERT_TRUE(exists(dir, "hwrun_legacy.prom"));
    CU_ASSERT_TRUE(exists(dir, "other.prom"));
    struct stat lst;
    CU_ASSERT_TRUE(lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode)); /* never followed */

    /* a live run's name: the next one, and the label follows */
    struct mon_prom q;
    memset(&q, 0, sizeof q);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&q, dir, "/other/dead"), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_claim(&q, &me), 0);
    char *want = th_fmt("%s/hwrun_dead-2.prom", dir);
    CU_ASSERT_STRING_EQUAL(q.path, want);
    CU_ASSERT_STRING_EQUAL(q.run, "dead-2");
    free(want);
    /* a legacy file (no owner line) is not ours to judge either */
    struct mon_prom l;
    memset(&l, 0, sizeof l);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&l, dir, "/r/legacy"), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_claim(&l, &me), 0);
    CU_ASSERT_STRING_EQUAL(l.run, "legacy-2");

    /* at stop each removes its own file only; one another hwmon took over is left */
    CU_ASSERT_EQUAL(mon_prom_remove(&q), 0);
    CU_ASSERT_FALSE(exists(dir, "hwrun_dead-2.prom"));
    plant(dir, "hwrun_dead.prom", &pod, 0); /* someone took the name over */
    CU_ASSERT_EQUAL(mon_prom_remove(&p), 0);
    CU_ASSERT_TRUE(exists(dir, "hwrun_dead.prom"));
    CU_ASSERT_EQUAL(mon_prom_remove(&l), 0);
    CU_ASSERT_FALSE(exists(dir, "hwrun_legacy-2.prom"));

    /* a file target: <stem>-2.prom next to it */
    struct mon_prom f;
    memset(&f, 0, sizeof f);
    char *file = th_fmt("%s/gpu.prom", dir);
    plant(dir, "gpu.prom", &live, 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&f, file, "/r/x"), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_claim(&f, &me), 0);
    want = th_fmt("%s/gpu-2.prom", dir);
    CU_ASSERT_STRING_EQUAL(f.path, want);
    CU_ASSERT_STRING_EQUAL(f.run, "x-2");
    CU_ASSERT_EQUAL(mon_prom_remove(&f), 0);
    free(want);
    free(file);
    free(target);
    free(link);
    th_rmtree(dir);
    free(dir);
}

/* hwmon takes its export file away when it stops, also when its command fails; the owner line
 * is the file's first line while it runs. */
static void test_file_goes(void)
{
    char *dir = th_tmpdir("prom-goes");
    char *tdir = th_fmt("%s/t", dir), *run = th_fmt("%s/run", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(tdir, 0755), 0);
    char *file = th_fmt("%s/hwrun_run.prom", tdir);
    char *probe = th_fmt("head -c 14 '%s'; exit 3", file);
    char **argv = ht_argv(run, "--prom-textfile", tdir, "--", "/bin/sh", "-c", probe, NULL);
    struct th_result r;
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, &r), 3);
    CU_ASSERT_STRING_EQUAL(r.out, "# hwrun-owner ");
    th_result_free(&r);
    CU_ASSERT_EQUAL(count_entries(tdir), 0);
    free(argv);
    free(probe);
    free(file);
    free(run);
    free(tdir);
    th_rmtree(dir);
    free(dir);
}

void add_prom_suite(void);
void add_prom_suite(void)
{
    CU_pSuite s = th_add_suite("prom", NULL, NULL, 120);
    CU_add_test(s, "exposition", test_exposition);
    CU_add_test(s, "every_gpu_figure", test_every_gpu_figure);
    CU_add_test(s, "may_na_absent", test_may_na_absent);
    CU_add_test(s, "label_utf8", test_label_utf8);
    CU_add_test(s, "energy_agrees", test_energy_agrees);
    CU_add_test(s, "paths", test_paths);
    CU_add_test(s, "unwritable", test_unwritable);
    CU_add_test(s, "new_relative_file", test_new_relative_file);
    CU_add_test(s, "owners", test_owners);
    CU_add_test(s, "file_goes", test_file_goes);
    CU_add_test(s, "node_exporter", test_node_exporter);
}
