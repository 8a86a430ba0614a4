/* libFuzzer target for a whole run: the input is cut at "\n@@\n" into run.jsonl,
 * hw_metrics.csv, hw_dmon.csv, cpu_metrics.csv, proc_metrics.csv, gpu_procs.csv, hw_gpm.csv,
 * tree_pids.csv, hw_health.csv, hw_energy.csv and hw_pmon.csv,
 * written to a private temporary directory, summarized (with the HTML report's timeline) and
 * printed in every format (also in --units and as --compare of the run with itself), the HTML
 * page included; and followed by summarize --live (liveview.h): its screen at a few sizes, its
 * line and its sweep row, whose bytes must all be safe for a terminal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "html.h"
#include "liveview.h"
#include "report.h"
#include "summary.h"
#include "hwrun/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void cleanup(void)
{
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, hw_file_names[k]);
        unlink(path);
    }
    rmdir(dir);
}

static void put(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-sum-run-XXXXXX");
        if (!mkdtemp(dir))
            abort();
        atexit(cleanup);
    }
    static const enum hw_file order[] = {HW_FILE_RUNLOG, HW_FILE_GPU,  HW_FILE_DMON,
                                          HW_FILE_CPU,    HW_FILE_PROC, HW_FILE_GPU_PROCS,
                                          HW_FILE_GPM,    HW_FILE_TREE_PIDS, HW_FILE_HEALTH,
                                          HW_FILE_ENERGY, HW_FILE_PMON};
    const uint8_t *p = data, *end = data + size;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        const uint8_t *cut = p;
        while (cut + 4 <= end && memcmp(cut, "\n@@\n", 4))
            cut++;
        if (cut + 4 > end)
            cut = end;
        put(hw_file_names[order[k]], p, (size_t)(cut - p));
        p = cut + 4 <= end ? cut + 4 : end;
    }
    struct sum_inputs in;
    char *storage[HW_FILE_COUNT];
    sum_inputs_from_dir(&in, dir, storage);
    struct sum_run *run = sum_run_new();
    if (!run)
        return 0;
    struct sum_html_opts o;
    sum_html_opts_init(&o);
    o.width = SUM_HTML_WIDTH_MIN; /* the fewest columns: the most merging */
    struct sum_config cfg = {.max_line = 4096, .timeline_cols = sum_html_cols(&o)};
    sum_run_summarize(run, &in, &cfg);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_report_json(run, &b);
    sum_report_text(run, &b);
    sum_report_csv_row(run, &b);
    sum_report_jsonl_row(run, &b);
    /* the phase names, --units and --compare over whatever the phases were */
    struct sum_units u;
    char err[64];
    sum_units_init(&u);
    sum_units_parse(&u, "mem=GB,time=h,energy=J", err, sizeof err);
    sum_report_text_u(run, &u, &b);
    sum_report_csv_row_u(run, &u, &b);
    sum_report_jsonl_row_u(run, &u, &b);
    sum_compare_json(run, run, &u, &b);
    sum_compare_text(run, run, NULL, false, &b);
    sum_compare_text(run, run, NULL, true, &b);
    hw_buf_free(&b);
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    if (f) {
        sum_html_run(f, run, &o, NULL, 0);
        fclose(f);
    }
    free(page);
    struct sum_live *v = sum_live_new(dir, NULL);
    if (v) {
        sum_live_update(v);
        hw_buf_init(&b, NULL, 0);
        static const int size[][2] = {{1, 1}, {24, 80}, {60, 200}};
        for (size_t i = 0; i < sizeof size / sizeof size[0]; i++)
            sum_live_screen(v, 1795255300, size[i][0], size[i][1], &u, &b);
        sum_live_line(v, 1795255300, &b);
        sum_live_sweep_row(v, 1795255300, 120, NULL, &b);
        for (size_t i = 0; i < b.len; i++) /* no escape sequence, no control byte but '\n' */
            if (b.p[i] != '\n' && ((unsigned char)b.p[i] < 0x20 || b.p[i] == 0x7f))
                abort();
        hw_buf_free(&b);
        sum_live_free(v);
    }
    sum_run_free(run);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(storage[k]);
    return 0;
}
