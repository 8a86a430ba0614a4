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
#include <sys/stat.h>
#include <unistd.h>

#include "hwtest.h"
#include "mon.h"
#include "prom.h"
#include "summary.h"

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

static const char *const fields = HW_GPU_FIELDS_DEFAULT;

/* ---------------------------------------------------------------- the exposition */

/* The value of a sample line "name{gpu="g"} v" in text; NAN when absent. */
static double sample_value(const char *text, const char *name, int gpu)
{
    char *key = th_fmt("%s{gpu=\"%d\"} ", name, gpu);
    const char *at = strstr(text, key);
    double v = at ? strtod(at + strlen(key), NULL) : NAN;
    free(key);
    return v;
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
        for (int g = 0; g < 2; g++)
            hw_buf_printf(&rows,
                          "2026/11/21 10:00:%02d.%03d, 90, 30, 1024, 81559, %d.%02d, 50, 1980, "
                          "2619, %d, GPU-%d\n",
                          ms / 1000, ms % 1000, 200 + 7 * i + 50 * g, (13 * i) % 100, g, g);
    }
    put(dir, "hw_metrics.csv", rows.p, false);
    hw_buf_free(&rows);

    struct mon_prom p;
    memset(&p, 0, sizeof p);
    char *out = th_fmt("%s/x.prom", dir);
    CU_ASSERT_EQUAL_FATAL(mon_prom_resolve(&p, out, dir), 0);
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, fields, 0.05, "node", NULL), 0);
    struct mon_prom_counters c = {.samples = 40, .running = true};
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c), 0);
    char *live = th_read_file(out, NULL); /* 40 rows: the interval is known while running */
    c.running = false;
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c), 0);
    char *last = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(live);
    CU_ASSERT_PTR_NOT_NULL_FATAL(last);
    mon_prom_close(&p);

    struct sum_inputs in;
    char *paths[SUM_KIND_COUNT];
    sum_inputs_from_dir(&in, dir, paths);
    struct sum_run *run = sum_run_new();
    struct sum_config cfg = {0};
    CU_ASSERT_EQUAL_FATAL(sum_run_summarize(run, &in, &cfg), 0);
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        free(paths[k]);
    for (int g = 0; g < 2; g++) {
        const struct sum_energy *e = &run->gpu[g]->energy;
        CU_ASSERT_EQUAL(e->gaps, 1);
        CU_ASSERT(e->joules > 1000); /* 36 bridged steps of about 0.2 s at 200 W and more */
        double j = sample_value(last, "hwrun_gpu_energy_joules_total", g);
        CU_ASSERT_DOUBLE_EQUAL(j, e->joules, 1e-6 * e->joules);
        CU_ASSERT_DOUBLE_EQUAL(sample_value(live, "hwrun_gpu_energy_joules_total", g), j,
                               1e-6 * j);
    }
    sum_run_free(run);
    free(live);
    free(last);
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
     * bridged) to 130 W. GPU 1: power never measured. Energy waits for a GPU's interval: its
     * first 17 rows, or the stop. */
    put(dir, "hw_metrics.csv",
        "2026/11/21 10:00:00.000, 35, 5, 1024, 81559, 100.00, 50, 1980, 2619, 0, GPU-0\n"
        "2026/11/21 10:00:00.000, 7, 1, 2048, 81559, [N/A], 51, 1980, 2619, 1, GPU-1\n"
        "2026/11/21 10:00:01.000, 35, 5, 1024, 81559, 110.00, 50, 1980, 2619, 0, GPU-0\n"
        "2026/11/21 10:00:02.000, 35, 5, 1024, 81559, 120.00, 50, 1980, 2619, 0, GPU-0\n",
        false);
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
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, fields, 1.0, "node\"7", "/usr/bin/python3"), 0);
    struct mon_prom_counters c = {.samples = 3, .skipped_slots = 1, .child_restarts = 2,
                                  .running = true};
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c), 0);
    char *text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    static const char *const want[] = {
        "hwrun_run_info{run=\"", "\",host=\"node\\\"7\",command=\"python3\"} 1\n",
        "# TYPE hwrun_phase_info gauge\nhwrun_phase_info{phase=\"a\\\"b\\\\c\\nd\"} 1\n",
        "# TYPE hwrun_gpu_power_watts gauge\nhwrun_gpu_power_watts{gpu=\"0\"} 120.0\n"
        "# HELP hwrun_gpu_temperature_celsius",
        "hwrun_gpu_utilization_ratio{gpu=\"0\"} 0.35\nhwrun_gpu_utilization_ratio{gpu=\"1\"} 0.07\n",
        "hwrun_gpu_memory_used_bytes{gpu=\"1\"} 2147483648.0\n",
        "hwrun_gpu_sm_clock_hertz{gpu=\"0\"} 1980000000.0\n",
        "hwrun_cpu_usage_ratio{mode=\"user\"} 0.125\nhwrun_cpu_usage_ratio{mode=\"system\"} 0.075\n"
        "hwrun_cpu_usage_ratio{mode=\"steal\"} 0.0\n",
        "hwrun_memory_available_bytes 2148007936.0\n",
        "hwrun_disk_read_bytes_total 5096.0\n", "hwrun_disk_written_bytes_total 0.0\n",
        "hwrun_output_fs_free_bytes 20971520.0\n",
        "hwrun_samples_total 3.0\n", "hwrun_skipped_slots_total 1.0\n",
        "hwrun_child_restarts_total 2.0\n", "hwrun_phases_total 1.0\n", "hwrun_running 1.0\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
        if (!strstr(text, want[i]))
            fprintf(stderr, "missing: [%s]\n", want[i]);
    }
    /* unmeasured is absent, never 0: GPU 1's power and energy, iowait, GPM, the tree; energy
     * while the interval is not known yet (3 rows, running) */
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_energy_joules_total"));
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_power_watts{gpu=\"1\"}"));
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_energy_joules_total{gpu=\"1\"}"));
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
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phase_info{phase=\"checkpoint\"} 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_open 2.0\n"));
    free(text);
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:04.000+00:00\", \"type\": \"phase\", "
        "\"name\": \"checkpoint\", \"seconds\": 0.9, \"phase_id\": \"7.2\"}\n",
        true);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phase_info{phase=\"epoch\"} 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_open 1.0\n"));
    free(text);
    put(dir, "run.jsonl",
        "{\"ts\": \"2026-11-21T10:00:05.000+00:00\", \"type\": \"phase\", "
        "\"name\": \"epoch\", \"seconds\": 2.0, \"phase_id\": \"7.1\"}\n",
        true);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phase_info{phase=\"epoch\"} 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_open 0.0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_phases_total 3.0\n"));
    free(text);

    /* Only what was appended is read; a row without its '\n' yet waits for the next export. */
    put(dir, "hw_metrics.csv",
        "2026/11/21 10:00:12.000, 35, 5, 1024, 81559, 130.00, 50, 1980, 2619, 0, GPU-0\n"
        "2026/11/21 10:00:13.000, 35, 5, 1024, 81559, 140.00, 50, 1980, 2619, 0, GP",
        true);
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c), 0);
    text = th_read_file(out, NULL);
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_energy_joules_total"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_gpu_power_watts{gpu=\"0\"} 130.0\n"));
    free(text);
    put(dir, "hw_metrics.csv", "U-0\n", true);
    c.running = false;
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c), 0);
    text = th_read_file(out, NULL);
    /* at the stop the rows there are decide: steps 1, 1, 10, 1 s, median 1 s, the 10 s one a
     * gap */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE hwrun_gpu_energy_joules_total counter\n"
                                        "hwrun_gpu_energy_joules_total{gpu=\"0\"} 355.0\n# HELP"));
    CU_ASSERT_PTR_NULL(strstr(text, "hwrun_gpu_energy_joules_total{gpu=\"1\"}"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "hwrun_running 0.0\n"));
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
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, fields, 1.0, "node\xff\xfe-\xc3", "/opt/tr\xe9in"),
                          0);
    struct mon_prom_counters c = {.samples = 1, .running = true};
    CU_ASSERT_EQUAL_FATAL(mon_prom_update(&p, &c), 0);
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
    CU_ASSERT_EQUAL_FATAL(mon_prom_open(&p, dir, fields, 1.0, "h", NULL), 0);
    struct mon_prom_counters c = {.running = true};
    CU_ASSERT_EQUAL(mon_prom_update(&p, &c), -ENOENT);
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

static void test_node_exporter(void)
{
    if (!have_program("prometheus-node-exporter") || !have_program("promtool")) {
        th_skip("prometheus-node-exporter and promtool (Debian packages "
                "prometheus-node-exporter, prometheus) are not installed");
        return;
    }
    char *base = th_tmpdir("prom-ne");
    char *tdir = th_fmt("%s/textfile", base), *copies = th_fmt("%s/copies", base);
    char *run = th_fmt("%s/exp42", base);
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

    char **argv = ht_argv(run, "-i", "0.2", "--prom-textfile", tdir, "--prom-interval", "1",
                          "--", "/bin/sh", "-c", "sleep 4.5", NULL);
    pid_t hw = th_spawn(argv, NULL, NULL, NULL);
    CU_ASSERT_FATAL(hw > 0);
    struct watch w = {th_fmt("%s/hwrun_exp42.prom", tdir), copies, {0, 0}, 0, 0};
    char *seen = NULL;
    int st = -1;
    for (int i = 0; i < 400; i++) {
        keep_version(&w);
        if (!seen || !strstr(seen, "hwrun_gpu_power_watts{gpu=\"1\"}")) {
            free(seen);
            seen = scrape(port);
        }
        st = th_wait(hw, 0.05);
        if (st != -ETIMEDOUT)
            break;
    }
    keep_version(&w);
    CU_ASSERT_EQUAL(st, 0);
    /* node_exporter served hwmon's values while hwmon ran, and read the file without error */
    CU_ASSERT_PTR_NOT_NULL(seen);
    if (seen) {
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "hwrun_gpu_power_watts{gpu=\"1\"}"));
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "hwrun_run_info{command=\"sh\",host=\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "node_textfile_scrape_error 0"));
        CU_ASSERT_PTR_NOT_NULL(strstr(seen, "hwrun_running 1"));
    }
    char *last = scrape(port);
    CU_ASSERT_TRUE(last && strstr(last, "hwrun_running 0"));
    free(last);
    free(seen);
    kill(ne, SIGTERM);
    th_wait(ne, 10);
    /* at start, about once a second, at stop */
    CU_ASSERT(w.n >= 4);
    for (int i = 0; i < w.n; i++) {
        char *p = th_fmt("%s/v%03d.prom", copies, i);
        CU_ASSERT_EQUAL(promtool_check(p), 0);
        free(p);
    }
    /* nothing but the export in the directory: no temporary file left */
    DIR *d = opendir(tdir);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        entries += e->d_name[0] != '.';
    if (d)
        closedir(d);
    CU_ASSERT_EQUAL(entries, 1);
    free(w.file);
    free(argv);
    free(ne_log);
    free(tflag);
    free(listen);
    free(run);
    free(copies);
    free(tdir);
    th_rmtree(base);
    free(base);
}

void add_prom_suite(void);
void add_prom_suite(void)
{
    CU_pSuite s = CU_add_suite("prom", NULL, NULL);
    CU_add_test(s, "exposition", test_exposition);
    CU_add_test(s, "label_utf8", test_label_utf8);
    CU_add_test(s, "energy_agrees", test_energy_agrees);
    CU_add_test(s, "paths", test_paths);
    CU_add_test(s, "unwritable", test_unwritable);
    CU_add_test(s, "node_exporter", test_node_exporter);
}
