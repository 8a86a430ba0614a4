/* Suite "amd": AMD GPUs through the kernel's amdgpu files (hwmon/amdgpu.h), on a tree standing
 * for / (HWMON_SYSFS_ROOT) whose values the test changes while hwmon runs, with no nvidia-smi on
 * PATH. End to end: the built hwmon, then summarize's JSON. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amdgpu.h"
#include "drmfdinfo.h"
#include "hwrun/buf.h"
#include "hwrun/io.h"
#include "hwrun/rundir.h"
#include "hwtest.h"

static void put(const char *dir, const char *name, const char *text)
{
    char *p = th_fmt("%s/%s", dir, name);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    CU_ASSERT_FATAL(hw_mkdir_p(p, NULL) == 0);
    *slash = '/';
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
    free(p);
}

/* In place, as the kernel's files change under a reader that keeps them open: same length. */
static void poke(const char *dir, const char *name, const char *text)
{
    char *p = th_fmt("%s/%s", dir, name);
    int fd = open(p, O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT(pwrite(fd, text, strlen(text), 0) == (ssize_t)strlen(text));
    close(fd);
    free(p);
}

/* Two AMD cards, an NVIDIA one and a connector under root/sys/class/drm. card0 (an MI300X with
 * every file) and card1 (an older kernel's: no mem_busy_percent, no product_name, power in
 * power1_input, no clock levels, power cap or link files): busy 20 %, 100 W, 1 GiB used of
 * 192 GiB. */
static void make_tree(const char *root)
{
    static const char *const cards[] = {"card0", "card1"};
    for (int c = 0; c < 2; c++) {
        char *d = th_fmt("%s/sys/class/drm/%s/device", root, cards[c]);
        put(d, "vendor", "0x1002\n");
        put(d, "device", c ? "0x740f\n" : "0x74a1\n");
        put(d, "gpu_busy_percent", "20\n");
        if (c == 0) {
            put(d, "mem_busy_percent", "5\n");
            put(d, "product_name", "AMD Instinct MI300X\n");
            put(d, "unique_id", "1a2b3c4d5e6f7788\n");
            /* its clock levels (the current one marked), power cap and PCIe link (gen 5 x16,
             * running at gen 4 x16) */
            put(d, "pp_dpm_sclk", "S: 19Mhz\n0: 500Mhz\n1: 1700Mhz *\n2: 2100Mhz\n");
            put(d, "hwmon/hwmon4/power1_cap", "750000000\n");
            put(d, "current_link_speed", "16.0 GT/s PCIe\n");
            put(d, "max_link_speed", "32.0 GT/s PCIe\n");
            put(d, "current_link_width", "16\n");
            put(d, "max_link_width", "16\n");
        }
        put(d, "uevent", c ? "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:03:00.0\n"
                           : "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n");
        put(d, "mem_info_vram_used", "1073741824\n");
        put(d, "mem_info_vram_total", "206158430208\n");
        put(d, c ? "hwmon/hwmon5/power1_input" : "hwmon/hwmon4/power1_average", "100000000\n");
        put(d, c ? "hwmon/hwmon5/temp1_input" : "hwmon/hwmon4/temp1_input", "45000\n");
        put(d, c ? "hwmon/hwmon5/freq1_input" : "hwmon/hwmon4/freq1_input", "1700000000\n");
        put(d, c ? "hwmon/hwmon5/freq2_input" : "hwmon/hwmon4/freq2_input", "1300000000\n");
        if (c) /* a fan: a board of a workstation (the MI300X has none) */
            put(d, "hwmon/hwmon5/pwm1", "153\n");
        free(d);
    }
    char *nv = th_fmt("%s/sys/class/drm/card2/device", root);
    put(nv, "vendor", "0x10de\n");
    put(nv, "gpu_busy_percent", "99\n");
    free(nv);
    char *conn = th_fmt("%s/sys/class/drm/card0-DP-1", root);
    put(conn, "status", "disconnected\n");
    free(conn);
}

static json_object *gpu_of(json_object *s, int index)
{
    json_object *gpus = ht_get(s, "gpus");
    for (size_t i = 0; gpus && i < json_object_array_length(gpus); i++) {
        json_object *g = json_object_array_get_idx(gpus, i);
        if (ht_num(g, "index") == index)
            return g;
    }
    return NULL;
}

static bool file_exists(void *path)
{
    return access(path, F_OK) == 0;
}

/* The job of two_cards: until hw_metrics.csv holds 6 rows of each card, then says so (low,
 * beside the run's directory) and waits for the test's poked; then until 6 rows more of each
 * (60 s at most each). */
#define TWO_CARDS_JOB                                                                              \
    "d=\"$(dirname \"$RUNLOG_FILE\")\"; f=\"$d/hw_metrics.csv\"; rows() { cat \"$f\" 2>/dev/null | "     \
    "wc -l; }; i=0; until [ $(rows) -ge 12 ] || [ $i -ge 3000 ]; do i=$((i+1)); sleep 0.02; "    \
    "done; touch \"$d/../low\"; i=0; until [ -e \"$d/../poked\" ] || [ $i -ge 3000 ]; do i=$((i+1)); "  \
    "sleep 0.02; done; n=$(($(rows) + 12)); i=0; until [ $(rows) -ge $n ] || [ $i -ge 3000 ]; "    \
    "do i=$((i+1)); sleep 0.02; done"

/* busy 20 -> 80 % and 100 -> 300 W after 6 rows of each card, 6 rows before the run ends: both
 * cards summarized, their means inside those ranges, card0's peak VRAM as written, energy > 0,
 * the vendor and model named, card1's missing file unmeasured (not 0). */
static void test_two_cards(void)
{
    char *dir = th_tmpdir("amd");
    char *root = th_fmt("%s/root", dir), *out = th_fmt("%s/run", dir);
    make_tree(root);
    char *e_root = th_fmt("HWMON_SYSFS_ROOT=%s", root);
    char *env[] = {e_root, (char *)"PATH=/usr/bin:/bin", (char *)"CUDA_VISIBLE_DEVICES=",
                   (char *)"HIP_VISIBLE_DEVICES=", (char *)"ROCR_VISIBLE_DEVICES=", NULL};
    char **argv = ht_argv_nosmi(out, "-i", "0.1", "--gpu-procs", "--", "/bin/sh", "-c",
                                TWO_CARDS_JOB, NULL);
    pid_t pid = th_spawn(argv, env, NULL, NULL);
    CU_ASSERT_FATAL(pid > 0);
    char *low = th_fmt("%s/low", dir), *poked = th_fmt("%s/poked", dir);
    CU_ASSERT(ht_wait_until(file_exists, low, 60));
    for (int c = 0; c < 2; c++) {
        char *d = th_fmt("%s/sys/class/drm/card%d/device", root, c);
        poke(d, "gpu_busy_percent", "80\n");
        poke(d, c ? "hwmon/hwmon5/power1_input" : "hwmon/hwmon4/power1_average", "300000000\n");
        if (c == 0)
            poke(d, "mem_info_vram_used", "8589934592\n"); /* 8 GiB */
        free(d);
    }
    put(dir, "poked", "");
    CU_ASSERT_EQUAL(th_wait(pid, 90), 0);
    free(low);
    free(poked);

    json_object *st = ht_event(out, "start", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_STRING_EQUAL(ht_data_str(st, HW_START_GPU_SOURCE) ? ht_data_str(st, HW_START_GPU_SOURCE) : "",
                           "amdgpu");
    json_object *gl = ht_data(st, "gpus");
    CU_ASSERT_FATAL(gl && json_object_array_length(gl) == 2); /* not the NVIDIA card */
    /* --gpu-procs: the file is there, empty (sleep holds no GPU memory), and said so */
    CU_ASSERT_EQUAL(ht_lines(out, HW_GPU_PROCS_FILE), 0);
    char *gp = th_fmt("%s/%s", out, HW_GPU_PROCS_FILE);
    CU_ASSERT_EQUAL(access(gp, F_OK), 0);
    free(gp);
    json_object *g0 = json_object_array_get_idx(gl, 0);
    CU_ASSERT_STRING_EQUAL(ht_str(g0, "vendor"), "amd");
    CU_ASSERT_STRING_EQUAL(ht_str(g0, "name"), "AMD Instinct MI300X");
    CU_ASSERT_STRING_EQUAL(ht_str(g0, "uuid"), "AMD-1a2b3c4d5e6f7788");
    CU_ASSERT_STRING_EQUAL(ht_str(json_object_array_get_idx(gl, 1), "name"), "AMD GPU 0x740f");
    json_object_put(st);
    CU_ASSERT_EQUAL(ht_count_events(out, "gpu_unavailable"), 0);

    char *sum[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", out, NULL};
    struct th_result r;
    CU_ASSERT_EQUAL(th_run(sum, NULL, NULL, 60, &r), 0);
    json_object *s = json_tokener_parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    for (int c = 0; c < 2; c++) {
        json_object *g = gpu_of(s, c);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        json_object *u = ht_get(g, "util_pct"), *p = ht_get(g, "power_w");
        CU_ASSERT(ht_num(u, "min") == 20 && ht_num(u, "max") == 80);
        CU_ASSERT(ht_num(u, "mean") > 20 && ht_num(u, "mean") < 80);
        CU_ASSERT(ht_num(p, "min") == 100 && ht_num(p, "max") == 300);
        CU_ASSERT(ht_num(p, "mean") > 100 && ht_num(p, "mean") < 300);
        CU_ASSERT(ht_num(g, "energy_wh") > 0);
        CU_ASSERT_STRING_EQUAL(ht_str(g, "vendor"), "amd");
        CU_ASSERT(ht_num(ht_get(g, "temp_c"), "max") == 45);
        CU_ASSERT(ht_num(ht_get(g, "sm_clock_mhz"), "max") == 1700);
        CU_ASSERT(ht_num(ht_get(g, "mem_total_mib"), "max") == 196608);
    }
    CU_ASSERT_STRING_EQUAL(ht_str(gpu_of(s, 0), "name"), "AMD Instinct MI300X");
    CU_ASSERT_EQUAL(ht_num(ht_get(gpu_of(s, 0), "mem_used_mib"), "max"), 8192);
    CU_ASSERT_EQUAL(ht_num(ht_get(gpu_of(s, 1), "mem_used_mib"), "max"), 1024);
    CU_ASSERT_EQUAL(ht_num(ht_get(gpu_of(s, 0), "mem_util_pct"), "max"), 5);
    CU_ASSERT_PTR_NULL(ht_get(gpu_of(s, 1), "mem_util_pct")); /* no such file: null, not 0 */
    CU_ASSERT_EQUAL(ht_num(s, "peak_vram_mib"), 8192);
    /* hw_health.csv from card0's files: its clock against its highest level, its power cap, its
     * link (gen 4 of 5 under load: a warning); card1 has none of those files: null. How long
     * the clocks were held down is not in AMD's files: null, not 100%. */
    json_object *c0 = ht_get(gpu_of(s, 0), "clocks"), *h0 = ht_get(gpu_of(s, 0), "health");
    CU_ASSERT_EQUAL(ht_num(c0, "sm_clock_max_mhz"), 2100);
    CU_ASSERT(fabs(ht_num(c0, "sm_clock_pct_of_max") - 100.0 * 1700 / 2100) < 1e-6);
    CU_ASSERT_PTR_NULL(ht_get(c0, "power_capped_pct"));
    CU_ASSERT_EQUAL(ht_num(h0, "power_limit_w"), 750);
    CU_ASSERT_EQUAL(ht_num(h0, "pcie_gen_min"), 4);
    CU_ASSERT_EQUAL(ht_num(h0, "pcie_gen_max"), 5);
    CU_ASSERT(ht_num(h0, "pcie_below_max_under_load_samples") > 0);
    json_object *h1 = ht_get(gpu_of(s, 1), "health");
    CU_ASSERT_PTR_NULL(ht_get(h1, "power_limit_w"));
    CU_ASSERT_PTR_NULL(ht_get(h1, "pcie_gen_min"));
    CU_ASSERT_PTR_NULL(ht_get(ht_get(gpu_of(s, 1), "clocks"), "sm_clock_max_mhz"));
    json_object *hw = ht_get(s, "health_warnings");
    CU_ASSERT(hw && json_object_array_length(hw) == 1);
    CU_ASSERT(hw && strstr(json_object_get_string(json_object_array_get_idx(hw, 0)),
                           "GPU 0: the PCIe link ran below its maximum under load"));
    json_object *q = ht_get(ht_get(ht_get(s, "quality"), "files"), "hw_metrics.csv");
    CU_ASSERT_EQUAL(ht_num(q, "bad_cells"), 0);
    CU_ASSERT(ht_num(q, "parsed") >= 2 * 12);
    json_object_put(s);
    th_result_free(&r);
    /* the text report names no nvidia-smi zone for rows hwmon wrote itself */
    char *txt[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", (char *)"-f",
                   (char *)"text", out, NULL};
    CU_ASSERT_EQUAL(th_run(txt, NULL, NULL, 60, &r), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\n  GPUs: peak VRAM 8192.0 MiB, GPU util mean "));
    CU_ASSERT_PTR_NULL(strstr(r.out, "nvidia-smi times"));
    th_result_free(&r);
    /* nor does the run page: no nvidia-smi clock */
    char *page = th_fmt("%s/report.html", dir);
    char *html[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", (char *)"--html", page,
                    out, NULL};
    CU_ASSERT_EQUAL(th_run(html, NULL, NULL, 60, &r), 0);
    th_result_free(&r);
    char *text = th_read_file(page, NULL);
    CU_ASSERT_PTR_NOT_NULL(text);
    CU_ASSERT(text && strstr(text, "AMD Instinct MI300X"));
    CU_ASSERT_PTR_NULL(text ? strstr(text, "nvidia-smi") : NULL);
    free(text);
    free(page);
    free(argv);
    free(e_root);
    free(root);
    free(out);
    th_rmtree(dir);
    free(dir);
}

/* The two files amdgpu writes as text to be parsed (the kernel's amdgpu documentation shows
 * pp_dpm_sclk as "0: 300Mhz *" lines, the current level marked; the PCI core's link speed as
 * "16.0 GT/s PCIe"). */
static void test_text_files(void)
{
    static const struct {
        const char *text;
        double mhz;
    } sclk[] = {
        {"0: 500Mhz\n1: 800Mhz *\n2: 1000Mhz\n", 1000},
        {"S: 19Mhz *\n0: 500Mhz\n1: 2100Mhz\n", 2100},
        {"0: 300MHz\n", 300},
        {"0: 500Mhz", 500},
        {"", NAN},
        {"0:\n500Mhz\n", NAN},
        {"1: 0Mhz\n", NAN},
        {"0: 500 Mhz\n", NAN},
        {"garbage\n", NAN},
        {"0: infMhz\n", NAN},
    };
    for (size_t i = 0; i < sizeof sclk / sizeof sclk[0]; i++) {
        double v = mon_amd_sclk_levels_max(sclk[i].text);
        CU_ASSERT(isnan(sclk[i].mhz) ? isnan(v) : v == sclk[i].mhz);
    }
    static const struct {
        const char *text;
        int gen;
    } link[] = {{"2.5 GT/s PCIe\n", 1}, {"5.0 GT/s PCIe\n", 2}, {"8.0 GT/s PCIe\n", 3},
                {"16.0 GT/s PCIe\n", 4}, {"32.0 GT/s PCIe\n", 5}, {"64.0 GT/s PCIe\n", 6},
                {"8 GT/s\n", 3},         {"Unknown\n", 0},       {"20.0 GT/s PCIe\n", 0},
                {"16.0\n", 0},           {"", 0}};
    for (size_t i = 0; i < sizeof link / sizeof link[0]; i++)
        CU_ASSERT_EQUAL(mon_amd_link_gen(link[i].text), link[i].gen);
}

/* mon_amd_rows writes a row in the default field list's order (hw_gpu_fields_default()), cell by
 * field: each figure's value from make_tree's files, "[N/A]" for a figure the card has no file
 * for, the card's index and uuid. The first cells are version 1's layout, byte for byte as
 * hwmon wrote them before the list had versions, whatever joins it later. */
static void test_row_by_list(void)
{
    char *dir = th_tmpdir("amd-row");
    make_tree(dir);
    struct mon_amd *a = calloc(1, sizeof *a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL_FATAL(mon_amd_open(a, dir, NULL, 0), 2);
    static const char ts[] = "2026/01/01 00:00:00.000";
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    mon_amd_rows(a, ts, &b);
    /* make_tree's values, by figure; card1 has no mem_busy_percent, card0 no fan (card1's pwm1,
     * 153 of 255, is 60%) */
    static const char *const want[2][HW_GPU_FIG_COUNT] = {
        {[HW_GM_UTIL] = "20", [HW_GM_MEM_UTIL] = "5", [HW_GM_MEM_USED] = "1024",
         [HW_GM_MEM_TOTAL] = "196608", [HW_GM_POWER] = "100.00", [HW_GM_TEMP] = "45",
         [HW_GM_SM_CLOCK] = "1700", [HW_GM_MEM_CLOCK] = "1300"},
        {[HW_GM_UTIL] = "20", [HW_GM_MEM_USED] = "1024", [HW_GM_MEM_TOTAL] = "196608",
         [HW_GM_POWER] = "100.00", [HW_GM_TEMP] = "45", [HW_GM_SM_CLOCK] = "1700",
         [HW_GM_MEM_CLOCK] = "1300", [HW_GM_FAN] = "60"}};
    static const char *const v1[2] = {
        "2026/01/01 00:00:00.000, 20, 5, 1024, 196608, 100.00, 45, 1700, 1300, 0, "
        "AMD-1a2b3c4d5e6f7788",
        "2026/01/01 00:00:00.000, 20, [N/A], 1024, 196608, 100.00, 45, 1700, 1300, 1, [N/A]"};
    char *rows = b.p ? strdup(b.p) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
    char *save = NULL, *line = strtok_r(rows, "\n", &save);
    for (int c = 0; c < 2; c++, line = strtok_r(NULL, "\n", &save)) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(line);
        size_t n1 = strlen(v1[c]);
        CU_ASSERT(!strncmp(line, v1[c], n1) && (!line[n1] || !strncmp(line + n1, ", ", 2)));
        char *cells = strdup(line), *fields = strdup(hw_gpu_fields_default());
        char *cs = NULL, *fs = NULL;
        char *cell = strtok_r(cells, ",", &cs), *f = strtok_r(fields, ",", &fs);
        int n = 0;
        for (; cell && f; cell = strtok_r(NULL, ",", &cs), f = strtok_r(NULL, ",", &fs), n++) {
            cell += *cell == ' ';
            const char *w = "[N/A]";
            if (!strcmp(f, HW_COL_TIMESTAMP))
                w = ts;
            else if (!strcmp(f, "index"))
                w = c ? "1" : "0";
            else if (!strcmp(f, "uuid"))
                w = c ? "[N/A]" : "AMD-1a2b3c4d5e6f7788";
            for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
                if (!strcmp(f, hw_gpu_figs[k].field) && want[c][k])
                    w = want[c][k];
            if (strcmp(cell, w))
                fprintf(stderr, "card %d, %s: \"%s\", not \"%s\"\n", c, f, cell, w);
            CU_ASSERT_STRING_EQUAL(cell, w);
        }
        CU_ASSERT(!cell && !f); /* as many cells as fields */
        CU_ASSERT(n > 0);
        free(cells);
        free(fields);
    }
    CU_ASSERT_PTR_NULL(line); /* a row per card */
    free(rows);
    hw_buf_free(&b);
    mon_amd_close(a);
    free(a);
    th_rmtree(dir);
    free(dir);
}

/* Which cards a job sees: ROCR_VISIBLE_DEVICES first, then HIP_VISIBLE_DEVICES within what it
 * left (ROCm's order; PyTorch's _parse_visible_devices reads them so), positions in card order
 * (the NVIDIA card2 is not one); what names no position (a UUID, past the end, empty) keeps
 * none. */
static void test_selection(void)
{
    char *dir = th_tmpdir("amd-sel");
    make_tree(dir);
    static const struct {
        const char *rocr, *hip;
        int n, first_card;
    } cases[] = {
        {NULL, NULL, 2, 0},  {"1", NULL, 1, 1},  {"0,1", "1", 1, 1},       {"1,0", "0", 1, 1},
        {NULL, "0", 1, 0},   {"1,0", NULL, 2, 1}, {"2", NULL, 0, -1},       {"", NULL, 0, -1},
        {"0", "1", 0, -1},   {"GPU-4b2c", NULL, 0, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mon_amd *a = calloc(1, sizeof *a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        const char *lists[2] = {cases[i].rocr, cases[i].hip};
        int n = mon_amd_open(a, dir, lists, 2);
        if (n != cases[i].n)
            fprintf(stderr, "case %zu: %d cards, not %d\n", i, n, cases[i].n);
        CU_ASSERT_EQUAL(n, cases[i].n);
        if (n > 0)
            CU_ASSERT_EQUAL(a->c[0].card, cases[i].first_card);
        mon_amd_close(a);
        free(a);
    }
    th_rmtree(dir);
    free(dir);
}

/* Cards there, none of them the job's: --gpus that names none is the run's error (125, as for
 * nvidia-smi); a job's ROCR_VISIBLE_DEVICES that leaves none is the job's business: it runs, a
 * gpu_unavailable event says which variables left none. */
static void test_selected_none(void)
{
    char *dir = th_tmpdir("amd-selnone");
    char *root = th_fmt("%s/root", dir), *out = th_fmt("%s/run", dir);
    make_tree(root);
    char *e_root = th_fmt("HWMON_SYSFS_ROOT=%s", root);
    char *env[] = {e_root, (char *)"PATH=/usr/bin:/bin", (char *)"CUDA_VISIBLE_DEVICES=",
                   (char *)"HIP_VISIBLE_DEVICES=", (char *)"ROCR_VISIBLE_DEVICES=", NULL};
    char **argv = ht_argv_nosmi(out, "-i", "0.2", "--gpus", "5", "--", "/bin/true", NULL);
    struct th_result r;
    CU_ASSERT_EQUAL(ht_run(argv, env, 30, &r), 125);
    CU_ASSERT(r.err && strstr(r.err, "--gpus 5 names none of the 2 AMD GPUs here"));
    th_result_free(&r);
    free(argv);
    char *env2[] = {e_root, (char *)"PATH=/usr/bin:/bin", (char *)"CUDA_VISIBLE_DEVICES=",
                    (char *)"HIP_VISIBLE_DEVICES=", (char *)"ROCR_VISIBLE_DEVICES=3", NULL};
    char *out2 = th_fmt("%s/run2", dir);
    argv = ht_argv_nosmi(out2, "-i", "0.2", "--", "/bin/true", NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env2, 30, NULL), 0);
    json_object *u = ht_event(out2, "gpu_unavailable", 0);
    CU_ASSERT_PTR_NOT_NULL(u);
    const char *why = u ? ht_data_str(u, "reason") : NULL;
    CU_ASSERT(why && strstr(why, "ROCR_VISIBLE_DEVICES \"3\" then CUDA_VISIBLE_DEVICES "
                                 "\"(unset)\" leave none of the 2 AMD GPUs"));
    if (u)
        json_object_put(u);
    free(argv);
    free(out2);
    free(e_root);
    free(root);
    free(out);
    th_rmtree(dir);
    free(dir);
}

/* --gpu-source amd without a card: the job runs, a gpu_unavailable event says why. */
static void test_no_card(void)
{
    char *dir = th_tmpdir("amd-none");
    char *out = th_fmt("%s/run", dir);
    char *e_root = th_fmt("HWMON_SYSFS_ROOT=%s", dir);
    char *env[] = {e_root, NULL};
    char **argv = ht_argv_nosmi(out, "-i", "0.2", "--gpu-source", "amd", "--", "/bin/true", NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env, 30, NULL), 0);
    json_object *u = ht_event(out, "gpu_unavailable", 0);
    CU_ASSERT_PTR_NOT_NULL(u);
    const char *why = ht_data_str(u, "reason");
    CU_ASSERT_TRUE(why && strstr(why, "no AMD GPU"));
    json_object_put(u);
    free(argv);
    free(e_root);
    free(out);
    th_rmtree(dir);
    free(dir);
}

/* A machine with both vendors (gpusrc.h's list): auto takes the first source there is,
 * nvidia-smi (the fake's two H100s, its children's files); --gpu-source amd takes the AMD cards
 * and runs no nvidia-smi child; --gpu-source with a word no source has is a usage error. */
static void test_both_vendors(void)
{
    char *dir = th_tmpdir("amd-both");
    char *root = th_fmt("%s/root", dir);
    make_tree(root);
    char *e_root = th_fmt("HWMON_SYSFS_ROOT=%s", root);
    char *env[] = {e_root, (char *)"PATH=/usr/bin:/bin", (char *)"CUDA_VISIBLE_DEVICES=",
                   (char *)"HIP_VISIBLE_DEVICES=", (char *)"ROCR_VISIBLE_DEVICES=", NULL};
    static const struct {
        const char *word, *source, *name;
        bool dmon;
    } cases[] = {{NULL, "nvidia-smi", "NVIDIA H100 80GB HBM3", true},
                 {"amd", "amdgpu", "AMD Instinct MI300X", false},
                 {"nvidia", "nvidia-smi", "NVIDIA H100 80GB HBM3", true}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = th_fmt("%s/run%zu", dir, i);
        /* the job lasts until a row per GPU is written (an event: under a sanitizer on a loaded
         * machine nvidia-smi's children start late), 30 s at most */
        const char *job = "i=0; while [ \"$(cat \"$HWMON_DIR/" HW_GPU_FILE "\" 2>/dev/null | "
                          "wc -l)\" -lt 2 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done";
        char **argv = cases[i].word ? ht_argv(out, "-i", "0.2", "--gpu-source", cases[i].word,
                                              "--", "/bin/sh", "-c", job, NULL)
                                    : ht_argv(out, "-i", "0.2", "--", "/bin/sh", "-c", job, NULL);
        CU_ASSERT_EQUAL(ht_run(argv, env, 30, NULL), 0);
        json_object *st = ht_event(out, "start", 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(st);
        const char *src = ht_data_str(st, HW_START_GPU_SOURCE);
        CU_ASSERT_STRING_EQUAL(src ? src : "", cases[i].source);
        json_object *gl = ht_data(st, "gpus");
        CU_ASSERT_FATAL(gl && json_object_array_length(gl) == 2);
        CU_ASSERT_STRING_EQUAL(ht_str(json_object_array_get_idx(gl, 0), "name"), cases[i].name);
        json_object_put(st);
        char *dmon = th_fmt("%s/%s", out, HW_DMON_FILE);
        CU_ASSERT_EQUAL(access(dmon, F_OK) == 0, cases[i].dmon);
        CU_ASSERT(ht_lines(out, HW_GPU_FILE) >= 2); /* a row per GPU at least */
        CU_ASSERT_EQUAL(ht_count_events(out, "gpu_unavailable"), 0);
        free(dmon);
        free(argv);
        free(out);
    }
    char *out = th_fmt("%s/bad", dir);
    char **argv = ht_argv(out, "--gpu-source", "intel", "--", "/bin/true", NULL);
    struct th_result r;
    CU_ASSERT_EQUAL(ht_run(argv, env, 30, &r), 2);
    CU_ASSERT(r.err && strstr(r.err, "auto, nvidia or amd"));
    th_result_free(&r);
    free(argv);
    free(out);
    free(e_root);
    free(root);
    th_rmtree(dir);
    free(dir);
}

/* A process's VRAM per card from DRM fdinfo (drmfdinfo.h), on a /proc standing in: pid 100
 * holds one amdgpu client on card0 through two descriptors (counted once), a second client on
 * card0, one on card1 (the newer key, in MiB), a render node whose fdinfo says no VRAM, and
 * descriptors that are no GPU's; pid 200 has none; pid 300 is gone. gpu_procs.csv rows as
 * nvidia-smi writes them, for the cards with a uuid. The fdinfo texts follow the kernel's
 * Documentation/gpu/drm-usage-stats.rst: no real capture was at hand. */
static void fdinfo_put(const char *proc, int pid, int fd, const char *target, const char *text)
{
    char *dir = th_fmt("%s/%d/fd", proc, pid), *fdinfo = th_fmt("%s/%d/fdinfo", proc, pid);
    CU_ASSERT_FATAL(hw_mkdir_p(dir, NULL) == 0 && hw_mkdir_p(fdinfo, NULL) == 0);
    free(fdinfo);
    char *link = th_fmt("%s/%d", dir, fd);
    CU_ASSERT_FATAL(symlink(target, link) == 0);
    if (text) {
        char *name = th_fmt("%d/fdinfo/%d", pid, fd);
        put(proc, name, text);
        free(name);
    }
    free(link);
    free(dir);
}

static void test_drm_fdinfo(void)
{
    char *root = th_tmpdir("amd-fdinfo");
    char *proc = th_fmt("%s/proc", root);
    static const char c0[] = "pos:\t0\nflags:\t02100002\nmnt_id:\t27\nino:\t1057\n"
                             "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t41\n"
                             "drm-memory-vram:\t1048576 KiB\ndrm-memory-gtt:\t2048 KiB\n"
                             "drm-engine-gfx:\t123456789 ns\n";
    static const char c0b[] = "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\n"
                              "drm-client-id:\t42\ndrm-memory-vram:\t524288 KiB\n";
    static const char c1[] = "drm-driver:\tamdgpu\ndrm-pdev:\t0000:83:00.0\n"
                             "drm-client-id:\t7\ndrm-total-vram:\t600 MiB\n"
                             "drm-resident-vram:\t512 MiB\n";
    static const char novram[] = "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\n"
                                 "drm-client-id:\t43\n";
    fdinfo_put(proc, 100, 3, "/dev/dri/renderD128", c0);
    fdinfo_put(proc, 100, 4, "/dev/dri/renderD128", c0); /* the same client again */
    fdinfo_put(proc, 100, 5, "/dev/dri/renderD128", c0b);
    fdinfo_put(proc, 100, 6, "/dev/dri/renderD129", c1);
    fdinfo_put(proc, 100, 7, "/dev/dri/renderD128", novram);
    fdinfo_put(proc, 100, 8, "/dev/null", "pos:\t0\n");
    fdinfo_put(proc, 100, 9, "socket:[12345]", NULL);
    fdinfo_put(proc, 200, 0, "/dev/pts/0", "pos:\t0\n");
    put(proc, "100/comm", "python3\n");
    put(proc, "200/comm", "sh\n");
    int pfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CU_ASSERT_FATAL(pfd >= 0);
    struct mon_drm_use use[MON_DRM_MAX_CARDS];
    CU_ASSERT_EQUAL(mon_drm_proc(pfd, 100, use, MON_DRM_MAX_CARDS), 2);
    CU_ASSERT_STRING_EQUAL(use[0].pdev, "0000:03:00.0");
    CU_ASSERT_EQUAL(use[0].vram_bytes, (uint64_t)1536 << 20); /* 1 GiB + 512 MiB, client 41 once */
    CU_ASSERT_STRING_EQUAL(use[1].pdev, "0000:83:00.0");
    CU_ASSERT_EQUAL(use[1].vram_bytes, (uint64_t)512 << 20); /* no drm-memory-: the resident */
    CU_ASSERT_EQUAL(mon_drm_proc(pfd, 200, use, MON_DRM_MAX_CARDS), 0);
    CU_ASSERT(mon_drm_proc(pfd, 300, use, MON_DRM_MAX_CARDS) < 0);
    /* not a size: refused, not a number */
    char pdev[16];
    uint64_t id, vram;
    CU_ASSERT_FALSE(mon_drm_fdinfo_parse("drm-driver:\tx\ndrm-pdev:\ta\ndrm-memory-vram:\t-5\n",
                                         pdev, &id, &vram));
    CU_ASSERT_FALSE(mon_drm_fdinfo_parse("drm-pdev:\t0000:03:00.0\ndrm-memory-vram:\t5\n", pdev,
                                         &id, &vram)); /* no drm-driver: not the spec's */
    CU_ASSERT_TRUE(mon_drm_fdinfo_parse("drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\n"
                                        "drm-memory-vram:\t4096\n",
                                        pdev, &id, &vram));
    CU_ASSERT_EQUAL(vram, 4096); /* bytes when no unit */

    /* the rows: card0 with a uuid and its address, card1 with its address and no uuid */
    struct mon_amd a = {0};
    a.n = 2;
    snprintf(a.c[0].uuid, sizeof a.c[0].uuid, "AMD-1a2b3c4d5e6f7788");
    snprintf(a.c[0].pci, sizeof a.c[0].pci, "0000:03:00.0");
    snprintf(a.c[1].pci, sizeof a.c[1].pci, "0000:83:00.0");
    const pid_t pids[] = {100, 200, 300};
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    mon_amd_proc_rows(&a, pfd, pids, 3, "2026/11/21 10:00:01.000", &b);
    CU_ASSERT_STRING_EQUAL(b.p ? b.p : "",
                           "2026/11/21 10:00:01.000, AMD-1a2b3c4d5e6f7788, 100, 1536, python3\n");
    hw_buf_free(&b);
    close(pfd);
    th_rmtree(root);
    free(proc);
    free(root);
}

/* hwmon on make_tree's two cards with the fake AMD SMI library (HWRUN_FAKE_AMDSMI) and its
 * settings extra, around warm (until SMI_ROWS rows a card; 5 with sum) and, with sum, train
 * 0.3 s (3 intervals: each phase's energy is checked to a sample at each end, whatever its
 * length); the start event's energy_counter and, with sum, summarize's JSON. Without sum no phase
 * is looked at: no train phase to wait for, and a few rows show the cards sampled. */
#define SMI_ROWS 2
static json_object *smi_run(const char *tag, const char *lib, char *const *extra,
                            const char *opt, json_object **sum, char **dir_out)
{
    char *base = th_tmpdir(tag);
    char *root = th_fmt("%s/root", base), *out = th_fmt("%s/run", base);
    make_tree(root);
    char *e_root = th_fmt("HWMON_SYSFS_ROOT=%s", root);
    char *e_lib = th_fmt("HWMON_AMDSMI_LIBRARY=%s", lib ? lib : "/nonexistent/libamd_smi.so");
    char *env[12] = {e_root, e_lib, (char *)"PATH=/usr/bin:/bin", (char *)"CUDA_VISIBLE_DEVICES=",
                     (char *)"HIP_VISIBLE_DEVICES=", (char *)"ROCR_VISIBLE_DEVICES="};
    int k = 6;
    for (int i = 0; extra && extra[i] && k < 11; i++)
        env[k++] = extra[i];
    env[k] = NULL;
    /* warm lasts until the rows the tests count were written; train 0.3 s, with sum */
    char *wait = ht_job_wait_lines(HW_GPU_FILE, 2 * (sum ? 5 : SMI_ROWS));
    char *script = th_fmt("R=\"%s -f $RUNLOG_FILE time\"; $R warm -- %s%s",
                          th_env("HWRUN_RUNLOG_BIN"), wait,
                          sum ? " && $R train -- sleep 0.3" : "");
    free(wait);
    char **argv = opt ? ht_argv_nosmi(out, "-i", "0.1", opt, "--", "/bin/sh", "-c", script, NULL)
                      : ht_argv_nosmi(out, "-i", "0.1", "--", "/bin/sh", "-c", script, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, env, 60, NULL), 0);
    json_object *st = ht_event(out, "start", 0);
    if (sum) {
        char *cmd[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", out, NULL};
        struct th_result r;
        *sum = th_run(cmd, NULL, NULL, 60, &r) == 0 && r.status == 0 ? json_tokener_parse(r.out)
                                                                    : NULL;
        th_result_free(&r);
    }
    free(argv);
    free(script);
    free(e_lib);
    free(e_root);
    free(root);
    free(out);
    *dir_out = base;
    return st;
}

/* AMD SMI's energy counters, matched to the cards by PCI address (the library lists card1 first
 * and a GPU that is not selected): per phase, each card's counter energy is its watts times the
 * phase's seconds; card1, with no product_name, takes the library's market name; card0 keeps
 * its own. */
static void test_amdsmi_counter(void)
{
    char *extra[] = {(char *)"FAKE_AMDSMI_BDFS=0000:03:00.0,0000:c1:00.0,0000:44:00.0",
                     (char *)"FAKE_AMDSMI_POWER_W=200",
                     (char *)"FAKE_AMDSMI_MARKET=AMD Radeon PRO W7900", NULL};
    json_object *sum = NULL;
    char *base;
    json_object *st = smi_run("amd-smi", th_env("HWRUN_FAKE_AMDSMI"), extra, NULL, &sum, &base);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    json_object *ec = ht_get(ht_get(st, "data"), HW_START_ENERGY_COUNTER);
    CU_ASSERT_STRING_EQUAL(ht_str(ec, "source") ? ht_str(ec, "source") : "", "amdsmi");
    CU_ASSERT(ht_get(ec, "gpus") && json_object_array_length(ht_get(ec, "gpus")) == 2);
    json_object *gl = ht_data(st, "gpus");
    CU_ASSERT_FATAL(gl && json_object_array_length(gl) == 2);
    CU_ASSERT_STRING_EQUAL(ht_str(json_object_array_get_idx(gl, 0), "name"),
                           "AMD Instinct MI300X");
    CU_ASSERT_STRING_EQUAL(ht_str(json_object_array_get_idx(gl, 1), "name"),
                           "AMD Radeon PRO W7900");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    /* the library's GPU 0 is card1 (200 W), its GPU 1 card0 (210 W) */
    static const double watts[] = {210, 200};
    json_object *phases = ht_get(sum, "phases");
    CU_ASSERT_FATAL(phases && json_object_array_length(phases) == 2);
    for (size_t p = 0; p < 2; p++) {
        json_object *ph = json_object_array_get_idx(phases, p);
        double secs = ht_num(ph, "seconds");
        for (size_t g = 0; g < 2; g++) {
            json_object *pg = json_object_array_get_idx(ht_get(ph, "gpus"), g);
            /* the first phase's part before the GPUs' probe answered (beside the job) is not
             * read: the seconds read are the phase's energy_covered_sec */
            double cov = ht_num(pg, "energy_covered_sec");
            CU_ASSERT(cov > 0 && cov <= secs + 1e-6);
            double truth = watts[g] * cov / 3600, e = ht_num(pg, "energy_wh");
            double tol = watts[g] * 0.1 * 2 / 3600; /* a sample each end */
            CU_ASSERT_STRING_EQUAL(ht_str(pg, "energy_source") ? ht_str(pg, "energy_source") : "",
                                   "counter");
            if (!(fabs(e - truth) <= tol))
                fprintf(stderr, "phase %zu GPU %zu: %g Wh over %g of %g s, truth %g Wh\n", p, g,
                        e, cov, secs, truth);
            CU_ASSERT(fabs(e - truth) <= tol);
        }
    }
    CU_ASSERT_STRING_EQUAL(ht_str(gpu_of(sum, 1), "name"), "AMD Radeon PRO W7900");
    CU_ASSERT_STRING_EQUAL(ht_str(gpu_of(sum, 0), "energy_source"), "counter");
    json_object *q = ht_get(ht_get(ht_get(sum, "quality"), "files"), HW_ENERGY_FILE);
    CU_ASSERT_EQUAL(ht_num(q, "bad_cells"), 0);
    CU_ASSERT(ht_num(q, "parsed") >= 2 * 5);
    json_object_put(sum);
    json_object_put(st);
    th_rmtree(base);
    free(base);
}

/* Where AMD SMI gives no counter, nothing else changes and the start event says why: no
 * library, an init that fails, a GPU that answers "not supported", two of the library's GPUs
 * at one card's address (partitions sharing a socket's counter: never counted twice), and
 * --no-nvml (no counter asked for: no energy_counter). */
static void test_amdsmi_none(void)
{
    static const struct {
        const char *tag, *env1, *env2, *opt;
        bool lib;
        const char *key, *says;
        int gpus; /* in energy_counter's gpus */
    } cases[] = {
        {"amd-smi-nolib", NULL, NULL, NULL, false, "error", "no AMD SMI library", 0},
        {"amd-smi-init", "FAKE_AMDSMI_MODE=init_fail", NULL, NULL, true, "error",
         "AMD SMI init failed: AMDSMI_STATUS_INIT_ERROR", 0},
        {"amd-smi-unsup", "FAKE_AMDSMI_BDFS=0000:03:00.0,0000:c1:00.0",
         "FAKE_AMDSMI_NO_COUNTER=0", NULL, true, "note", "1 card without an energy counter", 1},
        {"amd-smi-parts", "FAKE_AMDSMI_BDFS=0000:c1:00.0,0000:c1:00.0,0000:03:00.0", NULL, NULL,
         true, "note", "1 card sharing a PCI address", 1},
        {"amd-smi-off", "FAKE_AMDSMI_BDFS=0000:03:00.0,0000:c1:00.0", NULL, "--no-nvml", true,
         NULL, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *extra[] = {(char *)cases[i].env1, (char *)cases[i].env2, NULL};
        char *base;
        json_object *st = smi_run(cases[i].tag, cases[i].lib ? th_env("HWRUN_FAKE_AMDSMI") : NULL,
                                  extra, cases[i].opt, NULL, &base);
        CU_ASSERT_PTR_NOT_NULL_FATAL(st);
        json_object *ec = ht_get(ht_get(st, "data"), HW_START_ENERGY_COUNTER);
        char *run = th_fmt("%s/run", base);
        if (!cases[i].key) {
            CU_ASSERT_PTR_NULL(ec);
        } else {
            const char *said = ht_str(ec, cases[i].key);
            if (!said || !strstr(said, cases[i].says))
                fprintf(stderr, "%s: %s\n", cases[i].tag, json_object_to_json_string(ec));
            CU_ASSERT(said && strstr(said, cases[i].says));
            json_object *g = ht_get(ec, "gpus");
            CU_ASSERT_EQUAL(g ? (int)json_object_array_length(g) : 0, cases[i].gpus);
        }
        /* the file only with a counter; the cards sampled all the same */
        CU_ASSERT_EQUAL(ht_lines(run, HW_ENERGY_FILE) > 0, cases[i].gpus > 0);
        CU_ASSERT(ht_lines(run, HW_GPU_FILE) >= 2 * SMI_ROWS);
        /* card1's name from its device id when the library names nothing */
        CU_ASSERT_STRING_EQUAL(ht_str(json_object_array_get_idx(ht_data(st, "gpus"), 1), "name"),
                               "AMD GPU 0x740f");
        json_object_put(st);
        free(run);
        th_rmtree(base);
        free(base);
    }
}

/* --pmon on AMD: no per-process share is measurable for ROCm's compute, so none is written:
 * the start event's pmon is false, a pmon_unavailable event says why, no hw_pmon.csv, and the
 * cards are sampled as without it. */
static void test_pmon_unavailable(void)
{
    char *base;
    json_object *st = smi_run("amd-pmon", NULL, NULL, "--pmon", NULL, &base);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    char *run = th_fmt("%s/run", base);
    json_object *pm = ht_get(ht_get(st, "data"), "pmon");
    CU_ASSERT(pm && json_object_is_type(pm, json_type_boolean) && !json_object_get_boolean(pm));
    json_object *u = ht_event(run, HW_EV_PMON_UNAVAILABLE, 0);
    const char *why = u ? ht_data_str(u, "reason") : NULL;
    CU_ASSERT(why && strstr(why, "/dev/kfd"));
    CU_ASSERT_EQUAL(ht_count_events(run, HW_EV_PMON_UNAVAILABLE), 1);
    char *pf = th_fmt("%s/%s", run, HW_PMON_FILE);
    CU_ASSERT_NOT_EQUAL(access(pf, F_OK), 0);
    CU_ASSERT(ht_lines(run, HW_GPU_FILE) >= 2 * SMI_ROWS);
    json_object_put(u);
    json_object_put(st);
    free(pf);
    free(run);
    th_rmtree(base);
    free(base);
}

void add_amd_suite(void);
void add_amd_suite(void)
{
    CU_pSuite s = th_add_suite("amd", NULL, NULL, 120);
    CU_add_test(s, "two_cards", test_two_cards);
    CU_add_test(s, "no_card", test_no_card);
    CU_add_test(s, "selection", test_selection);
    CU_add_test(s, "row_by_list", test_row_by_list);
    CU_add_test(s, "text_files", test_text_files);
    CU_add_test(s, "selected_none", test_selected_none);
    CU_add_test(s, "both_vendors", test_both_vendors);
    CU_add_test(s, "drm_fdinfo", test_drm_fdinfo);
    CU_add_test(s, "amdsmi_counter", test_amdsmi_counter);
    CU_add_test(s, "amdsmi_none", test_amdsmi_none);
    CU_add_test(s, "pmon_unavailable", test_pmon_unavailable);
}
