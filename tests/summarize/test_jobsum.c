/* The job of many nodes (jobsum.h, jobseries.h) on nodes made by hand: the series' bins and
 * their doubling, the peak of the summed series against the sum of the nodes' peaks, nodes whose
 * clocks differ, a node's missing sample held and a long gap left unmeasured, GPUs recorded twice
 * on one host, the phases' spread and the straggler, the outcome of a job with a dead node. */
#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "jobreport.h"
#include "jobsum.h"
#include "report.h"
#include "sumtest.h"
#include "hwrun/buf.h"



static void test_series_bins(void)
{
    struct sum_jseries *s = sum_jser_new();
    CU_ASSERT_FATAL(s != NULL);
    sum_jser_anchor(s, 1000);
    sum_jser_add(s, 999.99, 2, 10, 100); /* before the start: bin 0 */
    sum_jser_add(s, 1000.03, 2, 30, 300);
    sum_jser_add(s, 1000.04, 1, 99, 999); /* one GPU only: the bin keeps the whole instants */
    CU_ASSERT_EQUAL(s->hi, 0);
    CU_ASSERT_EQUAL(s->bin[0].k, 2);
    CHECK_NEAR(s->bin[0].mem_max, 30, 0);
    CHECK_NEAR(sum_jser_power(&s->bin[0]), 200, 1e-12);
    /* beyond the last bin: the width doubles until it fits, neighbours merge */
    double far = 1000 + SUM_JSER_BASE_S * SUM_JSER_BINS * 3.5;
    sum_jser_add(s, far, 2, 5, 50);
    CHECK_NEAR(s->width, SUM_JSER_BASE_S * 4, 1e-12);
    CU_ASSERT_EQUAL(s->hi, (int)((far - 1000) / s->width));
    CHECK_NEAR(s->bin[0].mem_max, 30, 0);
    CU_ASSERT_EQUAL(s->bin[0].n_power, 2);
    CU_ASSERT_EQUAL(s->bin[s->hi].k, 2);
    for (int b = 1; b < s->hi; b++)
        CU_ASSERT_EQUAL(s->bin[b].k, 0);
    sum_jser_add(s, 1000 + 2 * SUM_JSER_MAX_S, 2, 1, 1); /* a bad clock: not placed */
    CU_ASSERT_EQUAL(s->dropped, 1);
    int hi = s->hi;
    sum_jser_compact(s);
    CU_ASSERT_EQUAL(s->cap, hi + 1);
    CU_ASSERT_EQUAL(s->bin[hi].k, 2);
    sum_jser_widen(s, s->width * 8); /* the job's width: fewer bins, the same values */
    CU_ASSERT_EQUAL(s->hi, hi / 8);
    CHECK_NEAR(s->bin[0].mem_max, 30, 0);
    CU_ASSERT_EQUAL(s->bin[s->hi].n_mem, 1);
    sum_jser_free(s);
}

/* A node of host host with ngpu GPUs, started at t0 by its clock, whose GPUs together hold
 * mem(i) MiB and draw 100 W each at instant i (every interval seconds, n instants). */
static void make_node(struct sum_jnode *n, const char *host, const char *dir, double t0,
                      double interval, int n_inst, int ngpu, double (*mem)(int), bool complete)
{
    CU_ASSERT_FATAL(sum_jnode_take(n, dir, NULL) == 0);
    n->summarized = true;
    n->status = complete ? SUM_STATUS_OK : SUM_STATUS_INCOMPLETE;
    n->complete = complete;
    snprintf(n->host, sizeof n->host, "%s", host);
    snprintf(n->ctx[HW_CTX_HOST], sizeof n->ctx[0], "%s", host);
    snprintf(n->ctx[HW_CTX_SLURM_JOB_ID], sizeof n->ctx[0], "4242");
    n->t_start = t0;
    n->t_stop = complete ? t0 + interval * n_inst : NAN;
    n->duration_s = interval * n_inst;
    n->interval_s = interval;
    n->ngpu = ngpu;
    n->gpu = calloc((size_t)ngpu, sizeof *n->gpu);
    CU_ASSERT_FATAL(n->gpu != NULL);
    for (int g = 0; g < ngpu; g++) {
        n->gpu[g].index = g;
        snprintf(n->gpu[g].uuid, sizeof n->gpu[g].uuid, "GPU-%s-%d", host, g);
        n->gpu[g].energy_wh = 100.0 * interval * (n_inst - 1) / 3600;
        n->gpu[g].util_mean_pct = 50;
        n->gpu[g].util_n = (uint64_t)n_inst;
        n->gpu[g].samples = (uint64_t)n_inst;
    }
    n->ser = sum_jser_new();
    CU_ASSERT_FATAL(n->ser != NULL);
    sum_jser_anchor(n->ser, t0);
    n->mem_peak_mib = 0;
    for (int i = 0; i < n_inst; i++) {
        double m = mem(i);
        if (isnan(m))
            continue; /* a lost sample */
        sum_jser_add(n->ser, t0 + i * interval, ngpu, m, 100.0 * ngpu);
        n->mem_peak_mib = fmax(n->mem_peak_mib, m);
    }
    sum_jser_compact(n->ser);
}

/* Node A: low then high; node B: high then low. Alone each peaks at 1000; together never. */
static double mem_a(int i) { return i < 40 ? 200 : 1000; }
static double mem_b(int i) { return i < 40 ? 1000 : 300; }
static double mem_gap(int i) { return i >= 20 && i < 30 ? NAN : i == 35 ? NAN : 400; }

/* The node's run row figure of column key (one the job makes a figure of), the others not
 * measured. */
static void node_fig(struct sum_jnode *n, const char *key, double v)
{
    size_t nc, nd;
    const size_t *rc = sum_job_run_cols(&nc);
    const struct sum_row_def *def = sum_report_row_defs(&nd);
    if (!n->fig) {
        n->fig = malloc((nc ? nc : 1) * sizeof *n->fig);
        CU_ASSERT_FATAL(n->fig != NULL);
        for (size_t k = 0; k < nc; k++)
            n->fig[k] = NAN;
    }
    for (size_t k = 0; k < nc; k++)
        if (!strcmp(def[rc[k]].key, key)) {
            n->fig[k] = v;
            return;
        }
    CU_FAIL("not a column a job makes a figure of");
}

static void add_names(struct sum_jnode *n, const char *name, double total_s)
{
    size_t k = n->nnames++;
    n->names = realloc(n->names, n->nnames * sizeof *n->names);
    CU_ASSERT_FATAL(n->names != NULL);
    n->names[k] = (struct sum_jname){strdup(name), 1, total_s, NAN};
}

static void test_aligned_peaks(void)
{
    struct sum_jobsum j = {0};
    j.nnode = 2;
    j.node = calloc(2, sizeof *j.node);
    /* B's clock is 5000 s ahead: aligned at each node's own start */
    make_node(&j.node[0], "a", "job/a", 1000, 0.25, 80, 2, mem_a, true);
    make_node(&j.node[1], "b", "job/b", 6000.1, 0.25, 80, 2, mem_b, true);
    add_names(&j.node[0], "train", 10);
    add_names(&j.node[1], "train", 14);
    add_names(&j.node[0], "eval", 3);
    add_names(&j.node[1], "eval", 3);
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_EQUAL(j.status, SUM_STATUS_OK);
    CU_ASSERT_EQUAL(j.gpus, 4);
    CU_ASSERT_EQUAL(j.hosts, 2);
    CHECK_NEAR(j.mem_sum_of_peaks_mib, 2000, 0);
    CHECK_NEAR(j.mem_peak_mib, 1300, 0); /* 1000 + 300 or 200 + 1000: never 2000 */
    CHECK_NEAR(j.mem_peak_at_s, 10, 0.25 + 1e-9); /* where A rises and B falls */
    CHECK_NEAR(j.power_peak_w, 400, 1e-9);
    CHECK_NEAR(j.start_spread_s, 5000.1, 1e-6);
    CHECK_NEAR(j.energy_wh, 4 * 100.0 * 0.25 * 79 / 3600, 1e-12);
    CU_ASSERT_EQUAL(j.bins_unmeasured, 0);
    CU_ASSERT_STRING_EQUAL(j.ctx[HW_CTX_SLURM_JOB_ID], "4242");
    CU_ASSERT_STRING_EQUAL(j.ctx[HW_CTX_HOST], ""); /* differs: not the job's */
    CU_ASSERT_FATAL(j.nph == 2 && j.straggler == 0);
    CU_ASSERT_STRING_EQUAL(j.ph[0].name, "train");
    CHECK_NEAR(j.ph[0].median_s, 12, 1e-12);
    CHECK_NEAR(j.ph[0].over_median_s, 2, 1e-12);
    CU_ASSERT_EQUAL(j.ph[0].slowest, 1);
    CHECK_NEAR(j.ph[1].over_median_s, 0, 0);

    /* the text and the row say the same figures */
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_job_text(&j, NULL, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "straggler: b in `train`: 14.000 s, 2.000 s (16.7%)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "peak VRAM 1300.0 MiB"));
    b.len = 0;
    sum_job_jsonl_row(&j, NULL, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"gpus_mem_used_peak_mib\": 1300.0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"straggler_node\": \"b\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"job.slurm_job_id\": \"4242\""));
    hw_buf_free(&b);
    sum_job_free(&j);
}

/* A node that lost one sample holds its value; one silent for 10 intervals leaves those bins
 * unmeasured (no guess); a node that died is named and its energy still counts. */
static void test_holes_and_death(void)
{
    struct sum_jobsum j = {0};
    j.nnode = 3;
    j.node = calloc(3, sizeof *j.node);
    make_node(&j.node[0], "a", "job/a", 0.0, 0.25, 80, 1, mem_a, true);
    make_node(&j.node[1], "b", "job/b", 0.0, 0.25, 80, 1, mem_gap, false);
    CU_ASSERT_EQUAL(sum_jnode_take(&j.node[2], "job/c", NULL), 0); /* unreadable */
    double e_b = j.node[1].gpu[0].energy_wh;
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_EQUAL(j.status, SUM_STATUS_INCOMPLETE);
    CU_ASSERT_EQUAL(j.incomplete, 1);
    CU_ASSERT_EQUAL(j.unreadable, 1);
    CHECK_NEAR(j.energy_wh, j.node[0].energy_wh + e_b, 1e-15);
    /* 10 lost samples of 0.25 s: beyond 3 intervals the bins are not measured */
    CU_ASSERT(j.bins_unmeasured > 0 && j.bins_unmeasured < 40);
    CHECK_NEAR(j.mem_peak_mib, 1400, 0);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_job_incomplete_list(&j, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_STRING_EQUAL(b.p, "b, c");
    hw_buf_free(&b);
    sum_job_free(&j);
}

/* Two directories of one host that recorded the same GPUs (two hwmon without a job lock): the
 * GPUs, their energy and their series count once. */
static void test_gpus_twice(void)
{
    struct sum_jobsum j = {0};
    j.nnode = 2;
    j.node = calloc(2, sizeof *j.node);
    make_node(&j.node[0], "a", "job/r0", 0.0, 0.25, 80, 2, mem_a, true);
    make_node(&j.node[1], "a", "job/r1", 0.0, 0.25, 80, 2, mem_a, true);
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_EQUAL(j.gpus, 2);
    CU_ASSERT_EQUAL(j.gpus_twice, 2);
    CU_ASSERT_EQUAL(j.hosts, 1);
    CHECK_NEAR(j.energy_wh, j.node[0].energy_wh, 0);
    CU_ASSERT(isnan(j.node[1].energy_wh));
    CHECK_NEAR(j.mem_peak_mib, 1000, 0);
    CU_ASSERT_STRING_EQUAL(j.node[0].label, "r0"); /* one host: the directories' names */
    sum_job_free(&j);
}

/* A requeued job (issue 51): the first attempt on host vm killed (and told nothing of a
 * restart: SLURM sets SLURM_RESTART_COUNT from the first requeue on), the second, restart count
 * 1, on the same host, GPU and rank, ended ok. One job: one rank on one node, one GPU, status
 * ok; energy and duration summed; each attempt listed with its own figures. */
static void test_requeue_restart_count(void)
{
    struct sum_jobsum j = {0};
    j.nnode = 2;
    j.node = calloc(2, sizeof *j.node);
    make_node(&j.node[0], "vm", "job/vm", 1000, 0.5, 100, 1, mem_a, true);
    make_node(&j.node[1], "vm", "job/vm-2", 1200, 0.5, 300, 1, mem_b, true);
    j.node[0].status = SUM_STATUS_KILLED;
    snprintf(j.node[1].ctx[HW_CTX_SLURM_RESTART_COUNT], sizeof j.node[1].ctx[0], "1");
    node_fig(&j.node[0], "proc_cpu_sec", 20.5); /* its stop event said it; wchar not measured */
    node_fig(&j.node[1], "proc_cpu_sec", 40.25);
    node_fig(&j.node[1], "proc_wchar_mib", 3);
    node_fig(&j.node[0], "proc_disk_write_mib", 1);
    node_fig(&j.node[1], "proc_disk_write_mib", 1);
    double e0 = j.node[0].gpu[0].energy_wh, e1 = j.node[1].gpu[0].energy_wh;
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_FATAL(j.nattempt == 2);
    CU_ASSERT_EQUAL(j.node[0].attempt, 0);
    CU_ASSERT_EQUAL(j.node[1].attempt, 1);
    CU_ASSERT_EQUAL(j.status, SUM_STATUS_OK);
    CU_ASSERT_EQUAL(j.ranks, 1);
    CU_ASSERT_EQUAL(j.nodes, 1);
    CU_ASSERT_EQUAL(j.gpus, 1);
    CU_ASSERT_EQUAL(j.gpus_twice, 0); /* the same GPU, used again: its energy counts twice */
    CHECK_NEAR(j.energy_wh, e0 + e1, 1e-12);
    CHECK_NEAR(j.duration_s, 50 + 150, 1e-9);
    CHECK_NEAR(j.t_start, 1000, 0);
    CHECK_NEAR(j.start_spread_s, 0, 0); /* within an attempt, not 200 s between them */
    CHECK_NEAR(j.mem_peak_mib, 1000, 0); /* each attempt's own peak, never their sum */
    CU_ASSERT_EQUAL(j.att[0].status, SUM_STATUS_KILLED);
    CU_ASSERT_EQUAL(j.att[0].restart_count, -1);
    CHECK_NEAR(j.att[0].energy_wh, e0, 1e-12);
    CHECK_NEAR(j.att[0].duration_s, 50, 1e-9);
    CU_ASSERT_EQUAL(j.att[1].status, SUM_STATUS_OK);
    CU_ASSERT_EQUAL(j.att[1].restart_count, 1);
    CHECK_NEAR(j.att[1].t_start, 1200, 0);
    CHECK_NEAR(j.att[1].energy_wh, e1, 1e-12);
    CU_ASSERT_STRING_EQUAL(j.ctx[HW_CTX_SLURM_RESTART_COUNT], ""); /* differs: not the job's */

    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_job_text(&j, NULL, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, ": 1 node, 1 GPU, status ok\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "  attempts: 2 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "    attempt 1: start +0.000 s, 50.000 s, killed, "));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "    attempt 2 (restart 1): start +3 min 20 s, 2 min 30 s, ok, "));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "(the nodes' own peaks add up to 1000.0 MiB)"));
    CU_ASSERT_PTR_NULL(strstr(b.p, "incomplete"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "processes: CPU time 1 min 01 s (user + system), written by "
                                       "write() 3.0 MiB (wchar, as sacct counts), to storage "
                                       "2.0 MiB"));
    b.len = 0;
    sum_job_jsonl_row(&j, NULL, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"ranks\": 1,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"attempts\": 2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"duration_sec\": 200.0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"proc_cpu_sec\": 60.75, \"proc_disk_write_mib\": 2.0, "
                                       "\"proc_wchar_mib\": 3.0"));
    /* the later context keys after the columns added before them */
    const char *att = strstr(b.p, "\"attempts\""), *rc = strstr(b.p, "\"job.slurm_restart_count\"");
    CU_ASSERT(att && rc && strstr(b.p, "\"running_nodes\"") < att && att < rc);
    CU_ASSERT(strstr(b.p, "\"job.local_world_size\"") < strstr(b.p, "\"failed_phase\""));
    b.len = 0;
    sum_job_json(&j, &b);
    hw_buf_putc(&b, '\0');
    json_object *doc = json_tokener_parse(b.p), *a = NULL, *v;
    CU_ASSERT_FATAL(doc != NULL);
    CU_ASSERT_FATAL(json_object_object_get_ex(doc, "attempts", &a));
    CU_ASSERT_FATAL(json_object_is_type(a, json_type_array) && json_object_array_length(a) == 2);
    json_object *a0 = json_object_array_get_idx(a, 0), *a1 = json_object_array_get_idx(a, 1);
#define MEMBER(o, k) (json_object_object_get_ex(o, k, &v) ? v : NULL)
    CU_ASSERT_EQUAL(json_object_get_int64(MEMBER(a1, "attempt")), 2);
    CU_ASSERT_EQUAL(json_object_get_int64(MEMBER(a1, "restart_count")), 1);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(MEMBER(a1, "status")), "ok");
    CHECK_NEAR(json_object_get_double(MEMBER(a1, "duration_s")), 150, 1e-9);
    CHECK_NEAR(json_object_get_double(MEMBER(a1, "energy_wh")), e1, 1e-9);
    CU_ASSERT(json_object_object_get_ex(a0, "restart_count", &v) && v == NULL); /* null */
    CU_ASSERT_STRING_EQUAL(json_object_get_string(MEMBER(a0, "status")), "killed");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(MEMBER(doc, "status")), "ok");
#undef MEMBER
    json_object_put(doc);
    hw_buf_free(&b);
    sum_job_free(&j);
}

/* No restart count recorded: a directory of the same host and rank that started after another
 * had ended is the next attempt; the first, killed with no stop event, is not the job's
 * incompleteness. Two ranks of one host at once stay one attempt. */
static void test_requeue_by_time(void)
{
    struct sum_jobsum j = {0};
    j.nnode = 4;
    j.node = calloc(4, sizeof *j.node);
    make_node(&j.node[0], "vm", "job/vm-r0", 0, 0.5, 100, 1, mem_a, false); /* 0..50 s */
    make_node(&j.node[1], "vm", "job/vm-r1", 0, 0.5, 100, 1, mem_a, false);
    make_node(&j.node[2], "vm", "job/vm-r0-2", 60, 0.5, 100, 1, mem_a, true);
    make_node(&j.node[3], "vm", "job/vm-r1-2", 60.5, 0.5, 100, 1, mem_a, true);
    for (int i = 0; i < 4; i++) {
        snprintf(j.node[i].ctx[HW_CTX_SLURM_PROC_ID], sizeof j.node[i].ctx[0], "%d", i % 2);
        snprintf(j.node[i].gpu[0].uuid, sizeof j.node[i].gpu[0].uuid, "GPU-vm-%d", i % 2);
    }
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_FATAL(j.nattempt == 2);
    CU_ASSERT_EQUAL(j.node[1].attempt, 0);
    CU_ASSERT_EQUAL(j.node[3].attempt, 1);
    CU_ASSERT_EQUAL(j.ranks, 2);
    CU_ASSERT_EQUAL(j.att[0].ranks, 2);
    CU_ASSERT_EQUAL(j.att[0].status, SUM_STATUS_INCOMPLETE);
    CU_ASSERT_EQUAL(j.status, SUM_STATUS_OK);
    CU_ASSERT_EQUAL(j.incomplete, 0);
    CU_ASSERT_EQUAL(j.gpus, 2);
    CHECK_NEAR(j.energy_wh, 4 * j.node[0].energy_wh, 1e-12);
    CHECK_NEAR(j.start_spread_s, 0.5, 1e-12);
    CHECK_NEAR(j.mem_peak_mib, 2000, 0); /* the two ranks of one attempt together */
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_job_incomplete_list(&j, &b);
    CU_ASSERT_EQUAL(b.len, 0);
    hw_buf_free(&b);
    sum_job_free(&j);

    /* overlapping runs of one rank (a second hwmon at once, not a requeue): one attempt */
    struct sum_jobsum k = {0};
    k.nnode = 2;
    k.node = calloc(2, sizeof *k.node);
    make_node(&k.node[0], "vm", "job/a", 0, 0.5, 100, 1, mem_a, true);
    make_node(&k.node[1], "vm", "job/b", 49, 0.5, 100, 1, mem_a, true);
    CU_ASSERT_EQUAL(sum_job_build(&k), 0);
    CU_ASSERT_EQUAL(k.nattempt, 1);
    CU_ASSERT_EQUAL(k.gpus_twice, 1);
    CU_ASSERT_EQUAL(k.ranks, 2);
    sum_job_free(&k);
}

/* The node's GPU sampler on host a: rank dir sampled from `from` to `to` (NAN: it sampled none),
 * by its start (took false) or a takeover. */
static void sampled(struct sum_jnode *n, const char *rank, double from, double to, bool took)
{
    snprintf(n->ctx[HW_CTX_SLURM_PROC_ID], sizeof n->ctx[0], "%s", rank);
    snprintf(n->sampler_role, sizeof n->sampler_role, "%s",
             isfinite(from) ? HW_SAMPLER_PRIMARY : HW_SAMPLER_SECONDARY);
    n->gpu_from = from;
    n->gpu_to = to;
    n->took_over = took;
    n->start_interval_s = n->interval_s;
}

static double mem_400(int i) { (void)i; return 400; }
static double mem_700(int i) { (void)i; return 700; }

static char *job_text(const struct sum_jobsum *j)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_job_text(j, NULL, &b);
    hw_buf_putc(&b, '\0');
    return b.p;
}

/* Rank 0 sampled host a's two GPUs for 4 s and ended; rank 1 took over 0.1 s later (under two
 * intervals of 0.25 s) and sampled 6 s more; rank 2 never sampled. The GPUs count once, their
 * energy is both spans', the memory peaks are the higher one's, nothing went unsampled. */
static void test_sampler_takeover(void)
{
    struct sum_jobsum j = {0};
    j.nnode = 3;
    j.node = calloc(3, sizeof *j.node);
    make_node(&j.node[0], "a", "job/r0", 0.0, 0.25, 16, 2, mem_400, true);
    make_node(&j.node[1], "a", "job/r1", 0.0, 0.25, 40, 2, mem_700, true);
    make_node(&j.node[2], "a", "job/r2", 0.0, 0.25, 40, 0, mem_400, true);
    /* r1's rows begin at its takeover, 4.1 s in: its series before then is empty */
    sum_jser_free(j.node[1].ser);
    j.node[1].ser = sum_jser_new();
    sum_jser_anchor(j.node[1].ser, 0.0);
    for (int i = 0; i < 24; i++)
        sum_jser_add(j.node[1].ser, 4.1 + i * 0.25, 2, 700, 200);
    sum_jser_compact(j.node[1].ser);
    sampled(&j.node[0], "0", 0.0, 4.0, false);
    sampled(&j.node[1], "1", 4.1, 10.0, true);
    sampled(&j.node[2], "2", NAN, NAN, false);
    double e = 2 * j.node[0].gpu[0].energy_wh + 2 * j.node[1].gpu[0].energy_wh;
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_EQUAL(j.gpus, 2);
    CU_ASSERT_EQUAL(j.gpus_twice, 0);
    CU_ASSERT_TRUE(j.node[1].gpu[0].turn && j.node[1].gpu[1].turn && !j.node[0].gpu[0].turn);
    CHECK_NEAR(j.energy_wh, e, 1e-12);
    CHECK_NEAR(j.mem_sum_of_peaks_mib, 700, 0); /* the same GPUs: the higher peak, once */
    CHECK_NEAR(j.mem_peak_mib, 700, 0);
    CHECK_NEAR(j.power_peak_w, 200, 1e-9); /* never both ranks' power in one bin */
    CU_ASSERT_FATAL(j.nsamp == 1 && j.samp[0].n == 2);
    const struct sum_jsampled *s = &j.samp[0];
    CU_ASSERT_EQUAL(s->ranks, 3);
    CU_ASSERT_EQUAL(s->by[0], 0);
    CU_ASSERT_EQUAL(s->by[1], 1);
    CHECK_NEAR(s->gap_before[1], 0.1, 1e-9);
    CHECK_NEAR(s->unsampled_s, 0, 0); /* measured: none */
    CHECK_NEAR(j.unsampled_s, 0, 0);
    char *t = job_text(&j);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "GPUs of a sampled by rank 0 (r0) from +0.000 s to +4.000 s, "
                                     "then rank 1 (r1) from its takeover at +4.100 s to "
                                     "+10.000 s (0.100 s after the one before)"));
    CU_ASSERT_PTR_NULL(strstr(t, "unsampled"));
    free(t);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_job_json(&j, &b);
    hw_buf_putc(&b, '\0');
    json_object *o = json_tokener_parse(b.p);
    CU_ASSERT_FATAL(o != NULL);
    json_object *gs, *v;
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "gpu_samplers", &gs) &&
                    json_object_array_length(gs) == 1);
    json_object *h = json_object_array_get_idx(gs, 0);
    CU_ASSERT(json_object_object_get_ex(h, "unsampled_s", &v) && json_object_get_double(v) == 0);
    CU_ASSERT(json_object_object_get_ex(h, "samplers", &v) && json_object_array_length(v) == 2);
    json_object *second = json_object_array_get_idx(v, 1);
    CU_ASSERT(json_object_object_get_ex(second, "took_over", &v) && json_object_get_boolean(v));
    CU_ASSERT(json_object_object_get_ex(second, "rank", &v) &&
              !strcmp(json_object_get_string(v), "1"));
    CU_ASSERT(json_object_object_get_ex(second, "from_s", &v) &&
              fabs(json_object_get_double(v) - 4.1) < 1e-9);
    CU_ASSERT(json_object_object_get_ex(o, "gpus_unsampled_sec", &v) &&
              json_object_get_double(v) == 0);
    json_object_put(o);
    hw_buf_free(&b);
    sum_job_free(&j);
}

/* The sampling rank ended at 1.4 s of a 6.04 s job (issue 50: GPU rows covered 1.4 s) and no
 * rank took over while the other ran on: 4.64 s unsampled, said; a handover 1 s late (four
 * intervals) is counted and said the same way; a host whose sampler's directory is not among
 * the ranks is not measured (null). */
static void test_sampler_unsampled(void)
{
    struct sum_jobsum j = {0};
    j.nnode = 2;
    j.node = calloc(2, sizeof *j.node);
    make_node(&j.node[0], "a", "job/r0", 0.0, 0.25, 6, 2, mem_400, true);
    make_node(&j.node[1], "a", "job/r1", 0.0, 0.25, 24, 0, mem_400, true);
    j.node[0].t_stop = 1.4;
    j.node[1].t_stop = 6.04;
    sampled(&j.node[0], "0", 0.0, 1.4, false);
    sampled(&j.node[1], "1", NAN, NAN, false);
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_EQUAL(j.gpus, 2);
    CU_ASSERT_FATAL(j.nsamp == 1);
    CHECK_NEAR(j.samp[0].unsampled_s, 6.04 - 1.4, 1e-9);
    CHECK_NEAR(j.samp[0].tail_s, 6.04 - 1.4, 1e-9);
    CHECK_NEAR(j.unsampled_s, 6.04 - 1.4, 1e-9);
    char *t = job_text(&j);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "warning: the GPUs of a went unsampled for 4.640 s while "
                                     "ranks of the job ran there (4.640 s after the last sampler "
                                     "ended, no rank took over, until +6.040 s)"));
    free(t);
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_job_jsonl_row(&j, NULL, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"gpus_unsampled_sec\": 4.64"));
    hw_buf_free(&b);
    /* the page says it too, as a warning's banner */
    char *dir = th_tmpdir("jobsum-page"), *page = th_fmt("%s/job.html", dir), err[256];
    CU_ASSERT_EQUAL(sum_html_write_job_file(page, &j, NULL, err, sizeof err), 0);
    char *html = th_read_file(page, NULL);
    CU_ASSERT_TRUE(html && strstr(html, "<p class=\"banner bad\">warning: the GPUs of a "
                                                "went unsampled for 4.640 s while ranks"));
    free(html);
    free(page);
    th_rmtree(dir);
    free(dir);
    sum_job_free(&j);

    /* r1 took over at 3.0 s, 1 s after r0 ended at 2.0: four intervals, unsampled */
    j = (struct sum_jobsum){0};
    j.nnode = 2;
    j.node = calloc(2, sizeof *j.node);
    make_node(&j.node[0], "a", "job/r0", 0.0, 0.25, 8, 2, mem_400, true);
    make_node(&j.node[1], "a", "job/r1", 0.0, 0.25, 24, 2, mem_400, true);
    sampled(&j.node[0], "0", 0.0, 2.0, false);
    sampled(&j.node[1], "1", 3.0, 6.0, true);
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_EQUAL(j.gpus, 2);
    CU_ASSERT_FATAL(j.nsamp == 1);
    CHECK_NEAR(j.samp[0].unsampled_s, 1.0, 1e-9);
    CHECK_NEAR(j.samp[0].tail_s, 0, 0);
    t = job_text(&j);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "warning: the GPUs of a went unsampled for 1.000 s while "
                                     "ranks of the job ran there: their energy"));
    free(t);
    sum_job_free(&j);

    /* the same 1 s, of which the takeover's probe took 0.6 s: within 2 intervals beyond it */
    j = (struct sum_jobsum){0};
    j.nnode = 2;
    j.node = calloc(2, sizeof *j.node);
    make_node(&j.node[0], "a", "job/r0", 0.0, 0.25, 8, 2, mem_400, true);
    make_node(&j.node[1], "a", "job/r1", 0.0, 0.25, 24, 2, mem_400, true);
    sampled(&j.node[0], "0", 0.0, 2.0, false);
    sampled(&j.node[1], "1", 3.0, 6.0, true);
    j.node[1].probe_s = 0.6;
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_FATAL(j.nsamp == 1);
    CHECK_NEAR(j.samp[0].unsampled_s, 0, 0);
    CHECK_NEAR(j.samp[0].gap_before[1], 1.0, 1e-9);
    sum_job_free(&j);

    /* secondaries only: the sampler ran elsewhere (another -o): not known, no warning */
    j = (struct sum_jobsum){0};
    j.nnode = 1;
    j.node = calloc(1, sizeof *j.node);
    make_node(&j.node[0], "a", "job/r1", 0.0, 0.25, 8, 0, mem_400, true);
    sampled(&j.node[0], "1", NAN, NAN, false);
    CU_ASSERT_EQUAL(sum_job_build(&j), 0);
    CU_ASSERT_FATAL(j.nsamp == 1);
    CU_ASSERT(isnan(j.samp[0].unsampled_s));
    CU_ASSERT(isnan(j.unsampled_s));
    t = job_text(&j);
    CU_ASSERT_PTR_NULL(strstr(t, "unsampled"));
    free(t);
    hw_buf_init(&b, NULL, 0);
    sum_job_jsonl_row(&j, NULL, &b);
    hw_buf_putc(&b, '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "\"gpus_unsampled_sec\": null"));
    hw_buf_free(&b);
    sum_job_free(&j);
}

void add_jobsum_suite(void)
{
    CU_pSuite s = th_add_suite("jobsum", NULL, NULL, 60);
    CU_add_test(s, "series_bins", test_series_bins);
    CU_add_test(s, "aligned_peaks", test_aligned_peaks);
    CU_add_test(s, "holes_and_death", test_holes_and_death);
    CU_add_test(s, "gpus_twice", test_gpus_twice);
    CU_add_test(s, "requeue_restart_count", test_requeue_restart_count);
    CU_add_test(s, "requeue_by_time", test_requeue_by_time);
    CU_add_test(s, "sampler_takeover", test_sampler_takeover);
    CU_add_test(s, "sampler_unsampled", test_sampler_unsampled);
}
