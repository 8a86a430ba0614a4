/* Suite "page_span": the run page's header says the run's own span, the JSON's: a wrapped job's
 * start event comes setup_s after hwmon began (nvidia-smi's probes), and the header once took
 * the start event as the run's start ("duration 11.7 s" above the Run table's "12.8 s"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/buf.h"
#include "sumtest.h"

static void test_header(void)
{
    char *dir = th_tmpdir("page-span");
    /* hwmon began at 10:00:00.000; its start event at +0.75 s (setup_s); the stop event at
     * +12.8 s says 12.8 s in all; CPU rows from +1 s */
    put_file(dir, "run.jsonl",
             "{\"ts\": \"2026-11-21T10:00:00.750+00:00\", \"type\": \"event\", \"event\": "
             "\"start\", \"data\": {\"interval_s\": 1.0, \"setup_s\": 0.75}}\n"
             "{\"ts\": \"2026-11-21T10:00:12.800+00:00\", \"type\": \"event\", \"event\": "
             "\"stop\", \"data\": {\"reason\": \"exit\", \"exit_status\": 0, \"duration_s\": "
             "12.8}}\n");
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    hw_buf_puts(&b, "timestamp,usr_pct,idle_pct\n");
    for (int i = 1; i <= 12; i++)
        hw_buf_printf(&b, "2026-11-21T10:00:%02d.000+00:00,50,50\n", i);
    hw_buf_putc(&b, '\0');
    put_file(dir, "cpu_metrics.csv", b.p);
    hw_buf_free(&b);
    char *page = th_fmt("%s/report.html", dir);
    struct th_result r = run_summarize((char *[]){"--html", page, dir, NULL});
    CU_ASSERT_EQUAL(r.status, 0);
    th_result_free(&r);
    r = run_summarize((char *[]){"-f", "json", dir, NULL});
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"duration_sec\": 12.8,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"start\": \"2026-11-21T10:00:00.000+00:00\""));
    th_result_free(&r);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "Start <b>2026-11-21 10:00:00"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "duration <b id=\"duration\" data-s=\"12.8"));
    free(html);
    free(page);
    th_rmtree(dir);
    free(dir);
}

void add_page_span_suite(void)
{
    CU_pSuite s = th_add_suite("page_span", NULL, NULL, 60);
    CU_add_test(s, "header", test_header);
}
