/* smiprobe.c: the start questions to nvidia-smi. The parsers on real captures and on the text
 * the drivers print; the probes against the fake nvidia-smi (a rejected field dropped and the
 * query asked again, no driver, a selection naming no GPU, GPM on some GPUs, on none). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/rundir.h"
#include "launch.h"
#include "smiprobe.h"
#include "testutil.h"

static void test_drop_field(void)
{
    char l[128];
    const struct {
        const char *list, *name, *want;
        bool found;
    } cases[] = {
        {"a,b,c", "a", "b,c", true},
        {"a,b,c", "b", "a,c", true},
        {"a,b,c", "c", "a,b", true},
        {"a", "a", "", true},
        {"a,b,c", "d", "a,b,c", false},
        {"index,index2", "index2", "index", true},
        {"index2,index", "index", "index2", true},
        {"ab,a", "a", "ab", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(l, sizeof l, "%s", cases[i].list);
        CU_ASSERT_EQUAL(mon_smi_drop_field(l, cases[i].name, strlen(cases[i].name)),
                        cases[i].found);
        CU_ASSERT_STRING_EQUAL(l, cases[i].want);
    }
}

/* The hw_health.csv fields each driver's --help-query-gpu lists (the real captures): all of
 * them on 590, 595 and 610; before the rename (the netdata fixture, pre-530) the reasons under
 * their old name, and none of the counters, T.Limit, instant/average power or remapped rows. */
static void test_health_fields(void)
{
    static const struct {
        const char *file;
        int n;
        const char *has, *lacks;
    } cases[] = {
        {"help-query-gpu_drv590.48.01_linux.txt", HW_HEALTH_COUNT,
         ",clocks_event_reasons.active,", "clocks_throttle"},
        {"help-query-gpu_drv595.71.05_linux.txt", HW_HEALTH_COUNT, ",remapped_rows.failure,", NULL},
        {"help-query-gpu_drv610.57.04_linux.txt", HW_HEALTH_COUNT,
         ",clocks_event_reasons_counters.sw_power_cap,", NULL},
        {"help-query-gpu_drv-pre530_netdata-fixture.txt", HW_HEALTH_COUNT - 10,
         ",clocks_throttle_reasons.active,", "counters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = th_fmt("%s/nvsmi-real/%s", th_env("HWRUN_TESTDATA"), cases[i].file);
        char *help = th_read_file(path, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(help);
        char list[1024], framed[1030];
        int n = mon_smi_health_fields(help, list, sizeof list);
        snprintf(framed, sizeof framed, ",%s,", list);
        if (n != cases[i].n)
            fprintf(stderr, "%s: %d fields: %s\n", cases[i].file, n, list);
        CU_ASSERT_EQUAL(n, cases[i].n);
        CU_ASSERT_PTR_NOT_NULL(strstr(framed, cases[i].has));
        if (cases[i].lacks)
            CU_ASSERT_PTR_NULL(strstr(framed, cases[i].lacks));
        CU_ASSERT_TRUE(strncmp(list, "utilization.gpu,pstate,", 23) == 0); /* the table's order */
        free(help);
        free(path);
    }
    /* a name inside another's description is not a listing */
    char list[256];
    CU_ASSERT_EQUAL(mon_smi_health_fields("\"name\"\nSee \"pstate\" for more.\n", list, sizeof list),
                    0);
}

static void test_parsers(void)
{
    const char *name;
    size_t len;
    CU_ASSERT(mon_smi_rejected_field("Field \"power.draw.average\" is not a valid field to "
                                     "query.\n\n",
                                     &name, &len));
    CU_ASSERT_EQUAL(len, strlen("power.draw.average"));
    CU_ASSERT_NSTRING_EQUAL(name, "power.draw.average", len);
    CU_ASSERT_FALSE(mon_smi_rejected_field("No devices were found\n", &name, &len));
    CU_ASSERT_FALSE(mon_smi_rejected_field("Field \"x", &name, &len));

    char v[32];
    /* 610: DRIVER version deprecated in favour of KMD version */
    CU_ASSERT(mon_smi_driver_version("NVIDIA-SMI version  : 610.57.04\n"
                                     "DRIVER version      : Deprecated, see \"KMD version\"\n"
                                     "KMD version         : 610.57.04\r\n",
                                     v, sizeof v));
    CU_ASSERT_STRING_EQUAL(v, "610.57.04");
    CU_ASSERT(mon_smi_driver_version("NVIDIA-SMI version  : 570.86.15\n"
                                     "DRIVER version      : 570.86.15  \n",
                                     v, sizeof v));
    CU_ASSERT_STRING_EQUAL(v, "570.86.15");
    CU_ASSERT_FALSE(mon_smi_driver_version("NVIDIA-SMI has failed\n", v, sizeof v));

    char json[256];
    mon_smi_parse_gpu_list("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aa)\n"
                           "GPU 1: Tesla \"K80\"\n",
                           json, sizeof json);
    CU_ASSERT_STRING_EQUAL(json, "[{\"index\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": "
                                 "\"GPU-aa\"}, {\"index\": 1, \"name\": \"Tesla \\\"K80\\\"\", "
                                 "\"uuid\": null}]");
    char small[16];
    mon_smi_parse_gpu_list("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aa)\n", small, sizeof small);
    CU_ASSERT_STRING_EQUAL(small, "[]"); /* too many GPUs for the buffer: still valid JSON */
}

/* The H800 capture: GPU 0 of 8 prints `-` for every GPM metric. */
static void test_parse_gpm(void)
{
    char *p = th_fmt("%s/nvsmi-real/dmon_gpm-metrics_h800-x8_drv570_trailing-ws-stripped.txt",
                     th_env("HWRUN_TESTDATA"));
    char *text = th_read_file(p, NULL);
    free(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char missing[64];
    CU_ASSERT_EQUAL(mon_smi_parse_gpm(text, missing, sizeof missing), 7);
    CU_ASSERT_STRING_EQUAL(missing, "[0]");
    char tiny[3];
    CU_ASSERT_EQUAL(mon_smi_parse_gpm(text, tiny, sizeof tiny), 7);
    CU_ASSERT_STRING_EQUAL(tiny, "1"); /* the list does not fit: how many */
    free(text);
    /* a row that does not start with a GPU index is not a GPU's (found by fuzz_smi: its first
     * token went into the event's JSON as it was) */
    CU_ASSERT_EQUAL(mon_smi_parse_gpm("# gpu smutil\n# Idx GPM:%\n 0 -\n2026/07/14 -\n007 -\n"
                                      " 1 5\n",
                                      missing, sizeof missing),
                    1);
    CU_ASSERT_STRING_EQUAL(missing, "[0]");
    CU_ASSERT_EQUAL(mon_smi_parse_gpm("# gpu sm mem\n# Idx % %\n 0 1 2\n", missing, sizeof missing),
                    -1);
    CU_ASSERT_STRING_EQUAL(missing, "");
}

struct probe {
    struct mon_smi smi;
    struct mon_gpusel gsel;
    char **env;
    char why[PATH_MAX + 64];
    char out[16384];
};

/* A probe of the fake nvidia-smi with extra FAKE_SMI_* settings (NULL-terminated). */
static int probe_fake(struct probe *p, const char *ids, const char *const extra[])
{
    memset(p, 0, sizeof *p);
    p->env = mon_env_with(extra);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->env);
    mon_gpusel_resolve(ids, NULL, &p->gsel);
    p->smi.envp = p->env;
    p->smi.gsel = &p->gsel;
    snprintf(p->smi.fields, sizeof p->smi.fields, "timestamp,power.draw,index,uuid,memory.used");
    return mon_smi_probe(&p->smi, th_env("HWRUN_FAKE_SMI"), p->why, sizeof p->why, p->out,
                         sizeof p->out);
}

static void test_probe_fallback(void)
{
    struct probe *p = malloc(sizeof *p);
    const char *env[] = {"FAKE_SMI_REJECT=uuid,power.draw", NULL};
    CU_ASSERT_EQUAL(probe_fake(p, NULL, env), 0);
    CU_ASSERT_STRING_EQUAL(p->smi.fields, "timestamp,index,memory.used");
    CU_ASSERT_EQUAL_FATAL(p->smi.n_fb, 2);
    CU_ASSERT_STRING_EQUAL(p->smi.fb[0].dropped, "power.draw");
    CU_ASSERT_STRING_EQUAL(p->smi.fb[0].fields, "timestamp,index,uuid,memory.used");
    CU_ASSERT_STRING_EQUAL(p->smi.fb[1].dropped, "uuid");
    CU_ASSERT_STRING_EQUAL(p->smi.fb[1].fields, "timestamp,index,memory.used");
    CU_ASSERT_STRING_EQUAL(p->smi.driver_version, "610.57.04");
    CU_ASSERT_PTR_NOT_NULL(strstr(p->smi.gpus_json, "\"index\": 1"));
    CU_ASSERT_STRING_EQUAL(p->smi.gpu_sel_json, ""); /* no -i */
    mon_env_free(p->env);

    /* every field rejected: no GPU data, and why */
    const char *all[] = {"FAKE_SMI_REJECT=timestamp,power.draw,index,uuid,memory.used", NULL};
    CU_ASSERT_EQUAL(probe_fake(p, NULL, all), -1);
    CU_ASSERT_STRING_EQUAL(p->why, "the driver rejected every --query-gpu field");
    CU_ASSERT_EQUAL(p->smi.n_fb, 5);
    mon_env_free(p->env);
    free(p);
}

static void test_probe_failures(void)
{
    struct probe *p = malloc(sizeof *p);
    const char *nodrv[] = {"FAKE_SMI_MODE=nodriver", NULL};
    CU_ASSERT_EQUAL(probe_fake(p, NULL, nodrv), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(p->why, "--version failed (status 9)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p->out, "NVIDIA-SMI has failed"));
    mon_env_free(p->env);

    /* -i 5 on a 2-GPU machine: an error for the run (-2), not "no GPU data" */
    CU_ASSERT_EQUAL(probe_fake(p, "5", NULL), -2);
    CU_ASSERT_PTR_NOT_NULL(strstr(p->why, "--gpus=\"5\" names no GPU here"));
    mon_env_free(p->env);
    CU_ASSERT_EQUAL(probe_fake(p, "1", NULL), 0);
    CU_ASSERT_STRING_EQUAL(p->smi.gpu_sel_json, "[1]");
    mon_env_free(p->env);

    memset(p, 0, sizeof *p);
    CU_ASSERT_EQUAL(mon_smi_probe(&p->smi, "/nonexistent/nvidia-smi", p->why, sizeof p->why, p->out,
                                  sizeof p->out),
                    -1);
    CU_ASSERT_STRING_EQUAL(p->why, "/nonexistent/nvidia-smi: not found");
    free(p);
}

static void test_probe_gpm(void)
{
    struct probe *p = malloc(sizeof *p);
    const char *some[] = {"FAKE_SMI_GPM=1", NULL};
    CU_ASSERT_EQUAL_FATAL(probe_fake(p, NULL, some), 0);
    CU_ASSERT_EQUAL(mon_smi_probe_gpm(&p->smi, p->out, sizeof p->out), 0);
    CU_ASSERT_STRING_EQUAL(p->smi.gpm_missing, "[0]");
    mon_env_free(p->env);

    const char *none[] = {"FAKE_SMI_GPM=none", NULL};
    CU_ASSERT_EQUAL_FATAL(probe_fake(p, NULL, none), 0);
    CU_ASSERT_EQUAL(mon_smi_probe_gpm(&p->smi, p->out, sizeof p->out), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(p->smi.gpm_why, "dmon --gpm-metrics failed (status 255)"));
    CU_ASSERT_STRING_EQUAL(p->smi.gpm_missing, "");
    mon_env_free(p->env);
    free(p);
}

void add_smiprobe_suite(void);
void add_smiprobe_suite(void)
{
    CU_pSuite s = th_add_suite("smiprobe", NULL, NULL, 60);
    CU_add_test(s, "drop_field", test_drop_field);
    CU_add_test(s, "parsers", test_parsers);
    CU_add_test(s, "health_fields", test_health_fields);
    CU_add_test(s, "parse_gpm", test_parse_gpm);
    CU_add_test(s, "probe_fallback", test_probe_fallback);
    CU_add_test(s, "probe_failures", test_probe_failures);
    CU_add_test(s, "probe_gpm", test_probe_gpm);
}
