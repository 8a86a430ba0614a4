/* Suite "captures": every query-gpu, query-compute-apps and dmon capture of real nvidia-smi
 * output (testdata/nvsmi-real, copied from shared/nvsmi-real) goes through the readers, and
 * what they hand over is checked against an independent, naive reading of the same file
 * (split on ", " or on blanks, as FORMATS.md describes): rows, the sum and count of every
 * metric, and the placeholder cells. Noheader captures get their field list from SOURCES.md,
 * as hwmon's start event would give it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sumtest.h"

struct capture {
    const char *file;
    enum hw_file kind;
    const char *fields;  /* noheader: the --query-* field list */
    size_t rows;         /* rows expected (hand-counted) */
    size_t placeholders; /* placeholder cells expected (hand-counted) */
};

static const char zabbix[] =
    "timestamp,index,name,uuid,f5,f6,f7,memory.total,memory.free,memory.used,f11,f12,"
    "utilization.gpu,temperature.gpu,f15,f16,f17,f18,f19,f20,pstate,f22,f23,f24,f25,f26,f27";

static const struct capture caps[] = {
    {"query-gpu_a10_loop-lms_header-units.csv", HW_FILE_GPU, NULL, 5, 0},
    /* fan.speed [N/A]: a board without a fan reading, no placeholder (HW_GF_MAY_NA); the older
     * driver's [Not Supported] still counts */
    {"query-gpu_geforce-2GB_noheader-nounits_fan-NA_newer-driver.csv", HW_FILE_GPU,
     "memory.total,memory.free,memory.used,temperature.gpu,fan.speed,utilization.gpu,"
     "utilization.memory", 1, 0},
    {"query-gpu_geforce-2GB_noheader-nounits_fan-Not-Supported_older-driver.csv", HW_FILE_GPU,
     "memory.total,memory.free,memory.used,temperature.gpu,fan.speed,utilization.gpu,"
     "utilization.memory", 1, 1},
    {"query-gpu_gtx-titan-x-x8_noheader-nounits_index-uuid-name-temp-util-mem.csv", HW_FILE_GPU,
     "index,uuid,name,temperature.gpu,utilization.gpu,memory.used,memory.total", 8, 0},
    {"query-gpu_gtx1080ti-gtx1060_2gpus_header-units_alias-clocks-gr-mem.csv", HW_FILE_GPU, NULL,
     2, 0},
    {"query-gpu_gtx650_utilization-gpu_Not-Supported_header.csv", HW_FILE_GPU, NULL, 1, 1},
    {"query-gpu_gtx770_noheader_many-Not-Supported_windows.csv", HW_FILE_GPU,
     "gpu_name,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,"
     "fan.speed,pstate,clocks.current.graphics,clocks.current.memory,power.max_limit,"
     "power.default_limit", 1, 8},
    {"query-gpu_h100-80gb_drv590_all-fields_idle.csv", HW_FILE_GPU, NULL, 1, (size_t)-1},
    {"query-gpu_h100-80gb_drv590_all-fields_load.csv", HW_FILE_GPU, NULL, 1, (size_t)-1},
    {"query-gpu_h100-mig_drv590_all-fields_load.csv", HW_FILE_GPU, NULL, 1, (size_t)-1},
    {"query-gpu_h100_GPU-requires-reset.csv", HW_FILE_GPU, NULL, 1, 2},
    {"query-gpu_h200-x8_index-uuid-memused-memtotal-util.csv", HW_FILE_GPU, NULL, 8, 0},
    {"query-gpu_quadro-p5000-p2000_noheader_pci-bus-temp.csv", HW_FILE_GPU,
     "pci.bus,temperature.gpu", 2, 0},
    {"query-gpu_rtx2080super-windows_drv610.62_all-fields_load.csv", HW_FILE_GPU, NULL, 1,
     (size_t)-1},
    {"query-gpu_rtx2080super_drv610_all-fields_load.csv", HW_FILE_GPU, NULL, 1, (size_t)-1},
    {"query-gpu_rtx2080ti_nounits_Unknown-Error_windows-drv442.19.csv", HW_FILE_GPU, NULL, 1,
     1},
    {"query-gpu_rtx3080_noheader_many-NA_zabbix-fields.csv", HW_FILE_GPU, zabbix, 1, 16},
    {"query-gpu_rtx3090_header-line-only_data-omitted-by-author.csv", HW_FILE_GPU, NULL, 0, 0},
    {"query-gpu_rtx3090_noheader-nounits_pstate-clocks_event_reasons.csv", HW_FILE_GPU,
     "index,name,utilization.gpu,utilization.memory,memory.total,memory.free,memory.used,"
     "temperature.gpu,clocks.gr,power.draw,power.limit,pstate,clocks_event_reasons.active",
     1, 0},
    {"query-gpu_tesla-k40m-x2_index-name-uuid-serial_masked_header-omitted-by-author.csv",
     HW_FILE_GPU, "index,name,uuid,serial", 2, 0},
    {"query-gpu_tesla-p100_drv510_nounits_header-keeps-units_no-trailing-newline.csv",
     HW_FILE_GPU, NULL, 1, 0}, /* its one placeholder is fan.speed's [N/A] */
    {"query-gpu_tesla-p40_alias-fields-gpu_name-gpu_bus_id.csv", HW_FILE_GPU, NULL, 1, 0},
    {"query-gpu_v100-32gb_loop-l5_index-timestamp-util-mem.csv", HW_FILE_GPU, NULL, 17, 0},
    {"query-compute-apps_h100_drv590_idle-empty.csv", HW_FILE_GPU_PROCS, NULL, 0, 0},
    {"query-compute-apps_h100_drv590_load.csv", HW_FILE_GPU_PROCS, NULL, 3, 0},
    {"query-compute-apps_h200-x8_gpu_uuid-pid-name-mem_Not-Found.csv", HW_FILE_GPU_PROCS, NULL,
     8, 1},
    {"query-compute-apps_pid-name-used_memory_vllm.csv", HW_FILE_GPU_PROCS, NULL, 2, 0},
    {"query-compute-apps_rtx2080super-windows_drv591_load_mem-NA.csv", HW_FILE_GPU_PROCS, NULL,
     (size_t)-1, (size_t)-1},
    {"query-compute-apps_rtx3090_noheader-nounits.csv", HW_FILE_GPU_PROCS,
     "timestamp,gpu_name,pid,process_name,used_gpu_memory", 1, 0},
    {"query-compute-apps_rtx3090_timestamp-name-pid-proc-mem_header.csv", HW_FILE_GPU_PROCS,
     NULL, 1, 0},
    {"query-compute-apps_rtx4080super_drv595_load.csv", HW_FILE_GPU_PROCS, NULL, (size_t)-1,
     (size_t)-1},
    {"query-compute-apps_windows_pid-name_Insufficient-Permissions_CRLF.csv",
     HW_FILE_GPU_PROCS, "pid,process_name", 3, 1},
};

/* ---- the naive reference reading ------------------------------------------------------- */

struct ref {
    size_t rows, placeholders;
    double sum[HW_GPU_FIG_COUNT];
    size_t n[HW_GPU_FIG_COUNT];
    double mem_sum;
    size_t mem_n;
};

/* The field each figure is read from: the table's own fields and nvidia-smi's short aliases
 * (the table is the map; a captured column a new entry names is counted, not passed over);
 * power's other names, which the reader weighs against power.draw, are left out: the captures
 * have power.draw. */
static int ref_metric(const char *name)
{
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
        if (!strcmp(name, hw_gpu_figs[m].field))
            return m;
        for (const struct hw_gpu_alias *a = hw_gpu_figs[m].aliases; a && a->field; a++)
            if (!a->pref && !strcmp(name, a->field))
                return m;
    }
    return -1;
}

/* Split line on ", " into cells (in place). */
static size_t split_cs(char *line, char **cells, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n < max)
            cells[n] = p;
        n++;
        char *c = strstr(p, ", ");
        if (!c)
            break;
        *c = '\0';
        p = c + 2;
    }
    return n;
}

static void header_to_names(char **cells, size_t n, char (*names)[64])
{
    for (size_t i = 0; i < n && i < 512; i++) {
        snprintf(names[i], 64, "%s", cells[i]);
        char *br = strstr(names[i], " [");
        if (br)
            *br = '\0';
    }
}

static bool is_ph(const char *c)
{
    return c[0] == '[' || !strcmp(c, "N/A");
}

static void ref_csv(const struct capture *cap, char *data, struct ref *ref)
{
    static char names[512][64];
    static char *cells[512];
    size_t ncols = 0;
    memset(ref, 0, sizeof *ref);
    if (cap->fields) {
        char *f = strdup(cap->fields);
        char *save = NULL;
        for (char *t = strtok_r(f, ",", &save); t; t = strtok_r(NULL, ",", &save))
            snprintf(names[ncols++], 64, "%s", t);
        free(f);
    }
    bool header_next = cap->fields == NULL;
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (!len)
            continue;
        size_t n = split_cs(line, cells, 512);
        if (header_next) {
            header_to_names(cells, n, names);
            ncols = n;
            header_next = false;
            continue;
        }
        if (n < ncols || (n > ncols && cap->kind == HW_FILE_GPU))
            continue;
        ref->rows++;
        /* a row that says its GPU faulted (a cell "[GPU requires reset]") measured nothing */
        bool faulted = false;
        for (size_t i = 0; i < n; i++)
            faulted |= !strcmp(cells[i], "[GPU requires reset]") || !strcmp(cells[i], "[GPU is lost]");
        for (size_t i = 0; i < n; i++) {
            const char *nm = i < ncols ? names[i] : "";
            /* a figure a board may not have (a fan) answering N/A is no placeholder */
            int na = cap->kind == HW_FILE_GPU ? ref_metric(nm) : -1;
            bool na_normal = na >= 0 && (hw_gpu_figs[na].flags & HW_GF_MAY_NA) &&
                             (!strcmp(cells[i], "[N/A]") || !strcmp(cells[i], "N/A"));
            if (is_ph(cells[i]) && !na_normal)
                ref->placeholders++;
            if (cap->kind == HW_FILE_GPU && faulted)
                continue;
            if (cap->kind == HW_FILE_GPU) {
                int m = ref_metric(nm);
                char *end;
                double v = strtod(cells[i], &end);
                if (m >= 0 && end != cells[i] && (*end == '\0' || *end == ' ')) {
                    ref->sum[m] += v;
                    ref->n[m]++;
                }
            } else if (!strcmp(nm, "used_gpu_memory") || !strcmp(nm, "used_memory")) {
                char *end;
                double v = strtod(cells[i], &end);
                if (end != cells[i]) {
                    ref->mem_sum += v;
                    ref->mem_n++;
                }
            }
        }
    }
}

static char *load(const char *file, size_t *len)
{
    char *path = th_fmt("%s/nvsmi-real/%s", th_env("HWRUN_TESTDATA"), file);
    char *s = th_read_file(path, len);
    if (!s)
        fprintf(stderr, "cannot read %s\n", path);
    free(path);
    return s;
}

static void check_csv_capture(const struct capture *cap)
{
    size_t len;
    char *data = load(cap->file, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    bool unterminated = len && data[len - 1] != '\n';
    /* as found: an unterminated last line is "not yet written" */
    struct rd_read_opts o = {0};
    if (cap->kind == HW_FILE_GPU)
        o.gpu_fields = cap->fields;
    else
        o.gpu_procs_fields = cap->fields;
    struct rec r;
    struct rd_quality q;
    feed_all(cap->kind, data, len, 0, &o, &r, &q);
    CU_ASSERT_EQUAL(q.partial_last, unterminated);
    /* complete: every row is read */
    char *full = malloc(len + 2);
    memcpy(full, data, len);
    if (unterminated)
        full[len++] = '\n';
    full[len] = '\0';
    for (size_t step = 0; step <= 7; step += 7) {
        feed_all(cap->kind, full, len, step, &o, &r, &q);
        struct ref ref;
        char *copy = strdup(full);
        ref_csv(cap, copy, &ref);
        free(copy);
        size_t rows = cap->kind == HW_FILE_GPU ? r.gpu_rows : r.gp_rows;
        if (rows != ref.rows || rd_quality_skipped_total(&q) != 0)
            fprintf(stderr, "%s: rows %zu, reference %zu, skipped %llu\n", cap->file, rows,
                    ref.rows, (unsigned long long)rd_quality_skipped_total(&q));
        CU_ASSERT_EQUAL(rows, ref.rows);
        CU_ASSERT_EQUAL(q.parsed, ref.rows);
        CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
        CU_ASSERT_EQUAL(q.bad_cells, 0);
        if (cap->rows != (size_t)-1)
            CU_ASSERT_EQUAL(rows, cap->rows);
        uint64_t ph = rd_quality_placeholders_total(&q);
        if (ph != ref.placeholders)
            fprintf(stderr, "%s: placeholders %llu, reference %zu\n", cap->file,
                    (unsigned long long)ph, ref.placeholders);
        CU_ASSERT_EQUAL(ph, ref.placeholders);
        if (cap->placeholders != (size_t)-1)
            CU_ASSERT_EQUAL(ph, cap->placeholders);
        if (cap->kind == HW_FILE_GPU) {
            for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
                if (r.gn[m] != ref.n[m] || fabs(r.gsum[m] - ref.sum[m]) > 1e-6)
                    fprintf(stderr, "%s: %s n %zu sum %g, reference n %zu sum %g\n", cap->file,
                            hw_gpu_figs[m].key, r.gn[m], r.gsum[m], ref.n[m], ref.sum[m]);
                CU_ASSERT_EQUAL(r.gn[m], ref.n[m]);
                CHECK_NEAR(r.gsum[m], ref.sum[m], 1e-6);
            }
        } else {
            CU_ASSERT_EQUAL(r.gp_mem_n, ref.mem_n);
            CHECK_NEAR(r.gp_mem_sum, ref.mem_sum, 1e-6);
        }
    }
    free(full);
    free(data);
}

/* The captures in testdata/nvsmi-real whose names start with prefix, sorted: a capture dropped
 * there is read by the suite without a C edit. Returns how many; free with free_names. */
static size_t capture_names(const char *prefix, char ***out)
{
    char *dir = th_fmt("%s/nvsmi-real", th_env("HWRUN_TESTDATA"));
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    free(dir);
    CU_ASSERT_FATAL(n > 0);
    char **names = calloc((size_t)n, sizeof *names);
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        if (!strncmp(ents[i]->d_name, prefix, strlen(prefix)))
            names[k++] = strdup(ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
    *out = names;
    return k;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Every query capture: its hand counts and field list from caps[] when it is there; one with a
 * header needs nothing else (the naive reading is its reference); one without needs its field
 * list in caps[], which the data cannot tell. */
static void test_query_captures(void)
{
    static const struct {
        const char *prefix;
        enum hw_file kind;
    } kinds[] = {{"query-gpu_", HW_FILE_GPU}, {"query-compute-apps_", HW_FILE_GPU_PROCS}};
    size_t seen = 0, total = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char **names;
        size_t n = capture_names(kinds[k].prefix, &names);
        total += n;
        for (size_t i = 0; i < n; i++) {
            struct capture cap = {names[i], kinds[k].kind, NULL, (size_t)-1, (size_t)-1};
            bool listed = false;
            for (size_t c = 0; c < sizeof caps / sizeof caps[0] && !listed; c++)
                if (!strcmp(caps[c].file, names[i])) {
                    cap = caps[c];
                    listed = true;
                    seen++;
                }
            if (!listed && strstr(names[i], "noheader")) {
                fprintf(stderr, "%s: a capture without a header needs its fields in caps[]\n",
                        names[i]);
                CU_FAIL("a noheader capture without its field list");
                continue;
            }
            check_csv_capture(&cap);
        }
        free_names(names, n);
    }
    CU_ASSERT(total >= 30);
    CU_ASSERT_EQUAL(seen, sizeof caps / sizeof caps[0]); /* no entry names a missing file */
}

static void test_query_specifics(void)
{
    /* a few numbers read by eye from the files */
    size_t len;
    char *d = load("query-gpu_h200-x8_index-uuid-memused-memtotal-util.csv", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_GPU, d, len, 0, NULL, &r, &q);
    CHECK_NEAR(r.gsum[HW_GM_MEM_USED],
               130013 + 130053 + 105851 + 129993 + 106091 + 105851 + 106139 + 58071, 0);
    CHECK_NEAR(r.gsum[HW_GM_UTIL], 700, 0);
    CU_ASSERT_EQUAL(r.max_gpu, 7);
    free(d);
    d = load("query-gpu_v100-32gb_loop-l5_index-timestamp-util-mem.csv", &len);
    feed_all(HW_FILE_GPU, d, len, 0, NULL, &r, &q);
    /* 2020/11/12 13:48:11.412 .. 13:49:31.451, UTC by default */
    CHECK_NEAR(r.first_t, 1605188891.412, 1e-6);
    CHECK_NEAR(r.last_t - r.first_t, 80.039, 1e-6);
    free(d);
    d = load("query-gpu_h100_GPU-requires-reset.csv", &len);
    feed_all(HW_FILE_GPU, d, len, 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(token_count(&q, "[GPU requires reset]"), 2);
    CU_ASSERT_EQUAL(r.gpu_rows, 1);
    CU_ASSERT_EQUAL(r.gn[HW_GM_MEM_USED], 0); /* its "0 MiB" is no reading: the GPU faulted */
    CU_ASSERT_EQUAL(r.gn[HW_GM_UTIL], 0);
    free(d);
    d = load("query-gpu_h100-mig_drv590_all-fields_load.csv", &len);
    feed_all(HW_FILE_GPU, d, len, 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.gn[HW_GM_UTIL], 0); /* [N/A] under MIG */
    CU_ASSERT_EQUAL(r.gn[HW_GM_POWER], 1);
    free(d);
    d = load("query-compute-apps_h100_drv590_load.csv", &len);
    feed_all(HW_FILE_GPU_PROCS, d, len, 0, NULL, &r, &q);
    CHECK_NEAR(r.gp_mem_sum, 2566 + 1542 + 15690, 0);
    CU_ASSERT_STRING_EQUAL(r.last_name, "./gpu_burn");
    CU_ASSERT_EQUAL(r.last_pid, 11345);
    free(d);
}

/* ---- dmon ------------------------------------------------------------------------------- */

static void test_dmon_captures(void)
{
    static const char *const cols[] = {"pwr", "sm", "mem", "fb", "mclk"};
    static const int idx[] = {RD_DM_PWR, RD_DM_SM, RD_DM_MEM, RD_DM_FB, RD_DM_MCLK};
    char **dmon_files;
    size_t ndmon = capture_names("dmon_", &dmon_files);
    CU_ASSERT(ndmon >= 16);
    for (size_t f = 0; f < ndmon; f++) {
        size_t len;
        char *data = load(dmon_files[f], &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(data);
        struct rec r;
        struct rd_quality q;
        feed_all(HW_FILE_DMON, data, len, 5, NULL, &r, &q);
        /* reference: whitespace split; names from the '#' line holding "gpu" */
        size_t rows = 0, dashes = 0, ncols = 0;
        int colpos[5] = {-1, -1, -1, -1, -1};
        double sum[5] = {0};
        size_t cnt[5] = {0};
        char *copy = strdup(data), *save = NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *tok[128];
            size_t n = 0;
            char *s2 = NULL;
            for (char *t = strtok_r(line, " \t\r", &s2); t && n < 128;
                 t = strtok_r(NULL, " \t\r", &s2))
                tok[n++] = t;
            if (!n)
                continue;
            if (tok[0][0] == '#') {
                bool names = false;
                for (size_t i = 0; i < n; i++)
                    names |= !strcmp(tok[i], "gpu");
                if (!names)
                    continue;
                /* "#Date" glues the first label to '#' */
                size_t shift = strcmp(tok[0], "#") ? 0 : 1;
                ncols = n - shift;
                for (int c = 0; c < 5; c++) {
                    colpos[c] = -1;
                    for (size_t i = shift; i < n; i++)
                        if (!strcmp(tok[i], cols[c]))
                            colpos[c] = (int)(i - shift);
                }
                continue;
            }
            if (n != ncols)
                continue;
            rows++;
            for (size_t i = 0; i < n; i++)
                dashes += !strcmp(tok[i], "-");
            for (int c = 0; c < 5; c++)
                if (colpos[c] >= 0 && strcmp(tok[colpos[c]], "-")) {
                    sum[c] += strtod(tok[colpos[c]], NULL);
                    cnt[c]++;
                }
        }
        free(copy);
        if (r.dmon_rows != rows || token_count(&q, "-") != dashes)
            fprintf(stderr, "%s: rows %zu/%zu dashes %llu/%zu\n", dmon_files[f], r.dmon_rows,
                    rows, (unsigned long long)token_count(&q, "-"), dashes);
        CU_ASSERT(rows > 0);
        CU_ASSERT_EQUAL(r.dmon_rows, rows);
        CU_ASSERT_EQUAL(rd_quality_skipped_total(&q), 0);
        CU_ASSERT_EQUAL(q.bad_cells, 0);
        CU_ASSERT_EQUAL(token_count(&q, "-"), dashes);
        for (int c = 0; c < 5; c++) {
            CU_ASSERT_EQUAL(r.dn[idx[c]], cnt[c]);
            CHECK_NEAR(r.dsum[idx[c]], sum[c], 1e-9);
        }
        free(data);
    }
    free_names(dmon_files, ndmon);
}

static void test_dmon_specifics(void)
{
    size_t len;
    char *d = load(
        "dmon_default_v100-sxm2-16gb_old-layout_header-repeats-every-46-lines_first-140-lines.txt",
        &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct rec r;
    struct rd_quality q;
    feed_all(HW_FILE_DMON, d, len, 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.dmon_rows + q.headers, q.lines - q.blank);
    CU_ASSERT(q.headers >= 6); /* the header pair repeats */
    CU_ASSERT(r.dn[RD_DM_GTEMP] == r.dmon_rows); /* "temp" in old layouts */
    free(d);
    d = load("dmon_s-pucet_i-0_o-DT_d-2_2021.txt", &len);
    feed_all(HW_FILE_DMON, d, len, 0, NULL, &r, &q);
    CHECK_NEAR(r.last_t - r.first_t, 4, 0); /* -d 2, three rows */
    CHECK_NEAR(r.first_t, 1609614751.0, 0); /* 2021-01-02T19:12:31Z */
    free(d);
    d = load("dmon_gpm-metrics_h800-x8_drv570_trailing-ws-stripped.txt", &len);
    feed_all(HW_FILE_DMON, d, len, 0, NULL, &r, &q);
    CU_ASSERT_EQUAL(r.max_gpu, 7);
    CU_ASSERT_EQUAL(token_count(&q, "-"), 13); /* GPM columns of GPU 0 */
    free(d);
}

void add_captures_suite(void)
{
    CU_pSuite s = th_add_suite("captures", NULL, NULL, 60);
    CU_add_test(s, "query_captures", test_query_captures);
    CU_add_test(s, "query_specifics", test_query_specifics);
    CU_add_test(s, "dmon_captures", test_dmon_captures);
    CU_add_test(s, "dmon_specifics", test_dmon_specifics);
}
