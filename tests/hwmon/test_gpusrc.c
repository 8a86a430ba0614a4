/* gpusrc suite: the GPU source interface as run.c uses it, on the fake nvidia-smi: what the
 * probe finds, the children asked for each option set, each writing a run file of the contract
 * with the found tool as argv[0], and the failures (no tool, a selection naming no GPU). */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gpusel.h"
#include "gpusrc.h"
#include "hwrun/rundir.h"
#include "launch.h"
#include "testutil.h"

struct src_run {
    struct mon_gpu_source *s;
    struct mon_gpusel gsel;
    char **env;
    struct mon_gpu_want want;
    struct mon_gpu_facts f;
    struct mon_gpu_child ch[MON_GPU_CHILDREN_MAX];
    int nch;
    char why[PATH_MAX + 64];
    char out[16384];
};

static int src_probe(struct src_run *r, const char *tool, const char *ids, double iv, bool gpm,
                     bool health, bool pmon, bool procs)
{
    memset(r, 0, sizeof *r);
    r->s = mon_gpu_source_nvsmi();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->s);
    r->env = mon_env_with(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->env);
    CU_ASSERT_EQUAL_FATAL(mon_gpusel_resolve(ids, NULL, &r->gsel), 0);
    r->want = (struct mon_gpu_want){.tool = tool, .interval_s = iv, .gpm = gpm,
                                    .health = health, .pmon = pmon, .gpu_procs = procs,
                                    .envp = r->env, .gsel = &r->gsel};
    int rc = r->s->probe(r->s, &r->want, r->why, sizeof r->why, r->out, sizeof r->out);
    r->s->facts(r->s, &r->f);
    if (rc == 0)
        r->nch = r->s->children(r->s, &r->want, r->ch, MON_GPU_CHILDREN_MAX);
    return rc;
}

static void src_free(struct src_run *r)
{
    r->s->free(r->s);
    mon_env_free(r->env);
}

static const struct mon_gpu_child *child(const struct src_run *r, const char *name)
{
    for (int i = 0; i < r->nch; i++)
        if (!strcmp(r->ch[i].name, name))
            return &r->ch[i];
    return NULL;
}

/* A file of the run files' table that the GPU source writes (HW_RUN_FILES' GPU). */
static bool is_gpu_file(enum hw_file k)
{
    return (unsigned)k < HW_FILE_COUNT && hw_run_files[k].by == HW_BY_GPU;
}

/* Before any probe the facts hold the fields a metrics file would be asked for. */
static void test_facts_before_probe(void)
{
    struct mon_gpu_source *s = mon_gpu_source_nvsmi();
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    struct mon_gpu_facts f;
    s->facts(s, &f);
    CU_ASSERT_STRING_EQUAL(f.fields, hw_gpu_fields_default());
    CU_ASSERT_FALSE(f.gpm);
    CU_ASSERT_FALSE(f.health);
    CU_ASSERT_EQUAL(f.n_fallbacks, 0);
    CU_ASSERT_STRING_EQUAL(s->name, "nvidia-smi");
    s->free(s);
}

/* Every option: six children, each a run file of the contract, the found tool first; the
 * query's loop follows the interval (-lms under 1 s), dmon's whole seconds. */
static void test_children_all(void)
{
    struct src_run *r = malloc(sizeof *r);
    CU_ASSERT_EQUAL_FATAL(src_probe(r, th_env("HWRUN_FAKE_SMI"), NULL, 0.25, true, true, true,
                                    true),
                          0);
    CU_ASSERT_EQUAL(r->nch, 6);
    CU_ASSERT_TRUE(r->f.gpm);
    CU_ASSERT_TRUE(r->f.health);
    CU_ASSERT_NOT_EQUAL(r->f.driver_version[0], '\0');
    CU_ASSERT_NOT_EQUAL(r->f.gpus_json[0], '\0');
    static const char *const want[][2] = {{"query", HW_GPU_FILE},      {"dmon", HW_DMON_FILE},
                                          {"apps", HW_GPU_PROCS_FILE}, {"health", HW_HEALTH_FILE},
                                          {"pmon", HW_PMON_FILE},      {"gpm", HW_GPM_FILE}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct mon_gpu_child *c = child(r, want[i][0]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_TRUE_FATAL(is_gpu_file(c->file));
        CU_ASSERT_STRING_EQUAL(hw_file_names[c->file], want[i][1]);
        CU_ASSERT_STRING_EQUAL(c->argv[0], r->f.tool_path);
    }
    const struct mon_gpu_child *q = child(r, "query");
    CU_ASSERT_STRING_EQUAL(q->argv[3], "-lms");
    CU_ASSERT_STRING_EQUAL(q->argv[4], "250");
    CU_ASSERT_DOUBLE_EQUAL(q->line_interval_s, 0.25, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(child(r, "dmon")->line_interval_s, 1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(child(r, "apps")->line_interval_s, 0, 0); /* silence is normal */
    CU_ASSERT_DOUBLE_EQUAL(child(r, "pmon")->line_interval_s, 0, 0);
    src_free(r);
    free(r);
}

/* The least: the query and dmon, on the GPU asked for (-i 1 on each). */
static void test_children_least(void)
{
    struct src_run *r = malloc(sizeof *r);
    CU_ASSERT_EQUAL_FATAL(src_probe(r, th_env("HWRUN_FAKE_SMI"), "1", 2, false, false, false,
                                    false),
                          0);
    CU_ASSERT_EQUAL(r->nch, 2);
    CU_ASSERT_PTR_NOT_NULL(child(r, "query"));
    CU_ASSERT_PTR_NOT_NULL(child(r, "dmon"));
    for (int i = 0; i < r->nch; i++) {
        bool sel = false;
        for (int k = 1; r->ch[i].argv[k]; k++)
            sel |= !strcmp(r->ch[i].argv[k - 1], "-i") && !strcmp(r->ch[i].argv[k], "1");
        CU_ASSERT_TRUE(sel);
    }
    CU_ASSERT_STRING_EQUAL(child(r, "query")->argv[3], "-l");
    CU_ASSERT_STRING_EQUAL(child(r, "query")->argv[4], "2");
    src_free(r);
    free(r);
}

/* No tool: -1 with the reason, no children; a selection that names no GPU here: -2. */
static void test_failures(void)
{
    struct src_run *r = malloc(sizeof *r);
    CU_ASSERT_EQUAL(src_probe(r, "/nonexistent/nvidia-smi", NULL, 1, true, true, false, false),
                    -1);
    CU_ASSERT_NOT_EQUAL(r->why[0], '\0');
    CU_ASSERT_EQUAL(r->nch, 0);
    CU_ASSERT_EQUAL(r->s->children(r->s, &r->want, r->ch, MON_GPU_CHILDREN_MAX), 0);
    CU_ASSERT_STRING_EQUAL(r->f.driver_version, ""); /* nothing claimed of GPUs not probed */
    src_free(r);
    CU_ASSERT_EQUAL(src_probe(r, th_env("HWRUN_FAKE_SMI"), "7", 1, false, false, false, false),
                    -2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "7"));
    src_free(r);
    free(r);
}

/* --help and hwmon.1 list the GPU sources of the table (mon_gpu_sources), in its order: a
 * source added there is offered in both, or this fails; each has a maker whose source names
 * itself (the start event's gpu_source, which summarize prints as the GPUs' tool). */
static void test_sources_documented(void)
{
    char words[256] = "auto";
    for (int i = 0; i < MON_GPU_SOURCES; i++) {
        const struct mon_gpu_source_def *d = &mon_gpu_sources[i];
        CU_ASSERT_FATAL(d->option && *d->option && d->help && *d->help && d->make);
        CU_ASSERT_EQUAL(mon_gpu_source_find(d->option), i);
        snprintf(words + strlen(words), sizeof words - strlen(words), "|%s", d->option);
        struct mon_gpu_source *src = d->make();
        CU_ASSERT_PTR_NOT_NULL_FATAL(src);
        CU_ASSERT(src->name && *src->name);
        src->free(src);
    }
    CU_ASSERT_EQUAL(mon_gpu_source_find("auto"), -1);

    char *argv[] = {(char *)th_env("HWRUN_HWMON_BIN"), "--help", NULL};
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(th_run(argv, NULL, NULL, 10, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    char *line = th_fmt("  --gpu-source %s  ", words);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, line));
    free(line);
    for (int i = 0; i < MON_GPU_SOURCES; i++) {
        line = th_fmt(" %s: %s\n", mon_gpu_sources[i].option, mon_gpu_sources[i].help);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, line));
        free(line);
    }
    th_result_free(&r);

    /* the man page's option line: .BI \-\-gpu\-source " auto|nvidia|amd" */
    char *path = th_fmt("%s/../hwmon/hwmon.1", th_env("HWRUN_TESTDATA"));
    char *man = th_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(man);
    line = th_fmt(".BI \\-\\-gpu\\-source \" %s\"\n", words);
    CU_ASSERT_PTR_NOT_NULL(strstr(man, line));
    free(line);
    for (int i = 0; i < MON_GPU_SOURCES; i++) { /* and each source's word in its paragraph */
        line = th_fmt("\n.B %s\n", mon_gpu_sources[i].option);
        CU_ASSERT_PTR_NOT_NULL(strstr(man, line));
        free(line);
    }
    free(man);
    free(path);
}

void add_gpusrc_suite(void);
void add_gpusrc_suite(void)
{
    CU_pSuite s = th_add_suite("gpusrc", NULL, NULL, 60);
    CU_add_test(s, "facts_before_probe", test_facts_before_probe);
    CU_add_test(s, "children_all", test_children_all);
    CU_add_test(s, "children_least", test_children_least);
    CU_add_test(s, "failures", test_failures);
    CU_add_test(s, "sources_documented", test_sources_documented);
}
