/* nvidia-smi as a GPU source (gpusrc.h): the start questions are smiprobe.c's; here the
 * children hwmon runs and the files they write, and NVML's energy counters (nvml.h), read in the
 * sampler thread into hw_energy.csv. The field lists and file names are the run directory's
 * contract (hwrun/rundir.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpusrc.h"
#include "hwrun/rundir.h"
#include "nvml.h"
#include "smiprobe.h"

struct nvsmi {
    struct mon_gpu_source base; /* first: the source's pointer is the state's */
    struct mon_smi smi;         /* what the start questions found */
    bool gpu_ok, gpm_ok, health_ok;
    /* the children's command lines */
    char *argv[MON_GPU_CHILDREN_MAX][14];
    char query_arg[640], health_arg[1100];
    char loop_flag[8], loop_val[24], dmon_val[24], pmon_val[24];
    struct mon_nvml nvml; /* the selected GPUs' energy counters; nvml.n 0: none */
    bool energy_asked;
    char energy_json[512]; /* the start event's energy_counter */
};

/* nvidia-smi's loop option for an interval: -l SECONDS when whole, else -lms MILLISECONDS. */
static void loop_args(double iv, char *flag, size_t fcap, char *val, size_t vcap)
{
    if (iv >= 1 && fabs(iv - round(iv)) < 1e-9) {
        snprintf(flag, fcap, "-l");
        snprintf(val, vcap, "%ld", (long)round(iv));
    } else {
        snprintf(flag, fcap, "-lms");
        long ms = lround(iv * 1000);
        snprintf(val, vcap, "%ld", ms < 1 ? 1L : ms);
    }
}

/* One child: argv from a[0..na) plus the GPU selection (-i). */
static void add(struct mon_gpu_child *ch, int *nch, const struct mon_gpu_want *w, char **a,
                int na, const char *name, enum hw_file file, double line_interval_s)
{
    mon_gpusel_args(w->gsel, a, &na);
    a[na] = NULL;
    ch[(*nch)++] = (struct mon_gpu_child){name, a, file, line_interval_s};
}

static int nvsmi_children(struct mon_gpu_source *s, const struct mon_gpu_want *w,
                          struct mon_gpu_child *ch, int cap)
{
    struct nvsmi *n = (struct nvsmi *)s;
    if (!n->gpu_ok || cap < MON_GPU_CHILDREN_MAX)
        return 0;
    double iv = w->interval_s;
    loop_args(iv, n->loop_flag, sizeof n->loop_flag, n->loop_val, sizeof n->loop_val);
    long d = lround(iv); /* dmon and pmon take whole seconds */
    if (d < 1)
        d = 1;
    snprintf(n->dmon_val, sizeof n->dmon_val, "%ld", d);
    int nch = 0;

    snprintf(n->query_arg, sizeof n->query_arg, "--query-gpu=%s", n->smi.fields);
    char **a = n->argv[nch];
    a[0] = n->smi.path;
    a[1] = n->query_arg;
    a[2] = "--format=csv,noheader,nounits";
    a[3] = n->loop_flag;
    a[4] = n->loop_val;
    add(ch, &nch, w, a, 5, "query", HW_FILE_GPU, iv);

    a = n->argv[nch];
    a[0] = n->smi.path;
    a[1] = "dmon";
    a[2] = "-s";
    a[3] = "um";
    a[4] = "-d";
    a[5] = n->dmon_val;
    add(ch, &nch, w, a, 6, "dmon", HW_FILE_DMON, (double)d);

    if (w->gpu_procs) {
        a = n->argv[nch];
        a[0] = n->smi.path;
        a[1] = "--query-compute-apps=" HW_GPU_PROCS_FIELDS;
        a[2] = "--format=csv,noheader,nounits";
        a[3] = n->loop_flag;
        a[4] = n->loop_val;
        /* no GPU processes, no lines: silence is normal */
        add(ch, &nch, w, a, 5, "apps", HW_FILE_GPU_PROCS, 0);
    }
    if (n->health_ok) { /* a child of its own: a field it fails on never stops the query's */
        snprintf(n->health_arg, sizeof n->health_arg,
                 "--query-gpu=" HW_COL_TIMESTAMP ",index,%s", n->smi.health);
        a = n->argv[nch];
        a[0] = n->smi.path;
        a[1] = n->health_arg;
        a[2] = "--format=csv,nounits";
        a[3] = n->loop_flag;
        a[4] = n->loop_val;
        add(ch, &nch, w, a, 5, "health", HW_FILE_HEALTH, iv);
    }
    if (w->pmon) { /* per-process SM and memory shares: pmon's -d is 1 to 10 s */
        snprintf(n->pmon_val, sizeof n->pmon_val, "%ld",
                 d > HW_PMON_MAX_D ? (long)HW_PMON_MAX_D : d);
        a = n->argv[nch];
        a[0] = n->smi.path;
        a[1] = "pmon";
        a[2] = "-s";
        a[3] = HW_PMON_SELECT;
        a[4] = "-o";
        a[5] = "DT";
        a[6] = "-d";
        a[7] = n->pmon_val;
        /* a GPU without processes still prints its "-" line, but the lines of one interval
         * come together: the hang rule of a loop does not fit it */
        add(ch, &nch, w, a, 8, "pmon", HW_FILE_PMON, 0);
    }
    if (n->gpm_ok) {
        a = n->argv[nch];
        char *gpm[] = {n->smi.path, "dmon", "-s", HW_GPM_SELECT, "--gpm-metrics",
                       HW_GPM_METRIC_IDS, "-o", "DT", "-d", n->dmon_val};
        memcpy(a, gpm, sizeof gpm);
        add(ch, &nch, w, a, 10, "gpm", HW_FILE_GPM, (double)d);
    }
    return nch;
}

static int nvsmi_probe(struct mon_gpu_source *s, const struct mon_gpu_want *w, char *why,
                       size_t why_cap, char *out, size_t out_cap)
{
    struct nvsmi *n = (struct nvsmi *)s;
    n->smi.envp = w->envp;
    n->smi.gsel = w->gsel;
    int rc = mon_smi_probe(&n->smi, w->tool, why, why_cap, out, out_cap);
    n->gpu_ok = rc == 0;
    if (n->gpu_ok && w->gpm)
        n->gpm_ok = mon_smi_probe_gpm(&n->smi, out, out_cap) == 0;
    if (n->gpu_ok && w->health)
        n->health_ok = mon_smi_probe_health(&n->smi) == 0;
    n->energy_asked = n->gpu_ok && w->energy;
    if (n->energy_asked) /* the GPUs sampled: their counters */
        mon_nvml_open(&n->nvml, w->gsel);
    if (n->energy_asked)
        mon_gpu_energy_json(n->energy_json, sizeof n->energy_json, "nvml", n->nvml.index,
                            n->nvml.n, n->nvml.why);
    return rc;
}

static bool nvsmi_present(const struct mon_gpu_source *s, const struct mon_gpu_want *w)
{
    (void)s;
    return mon_tool_found(w->tool);
}

/* hw_energy.csv, when NVML has a counter for any of the GPUs. */
static int nvsmi_thread_files(struct mon_gpu_source *s, const struct mon_gpu_want *w,
                              enum hw_file *files, int cap)
{
    (void)w;
    struct nvsmi *n = (struct nvsmi *)s;
    if (!n->nvml.n || cap < 1)
        return 0;
    files[0] = HW_FILE_ENERGY;
    return 1;
}

static void nvsmi_thread_header(const struct mon_gpu_source *s, int i, struct hw_buf *b)
{
    (void)s, (void)i;
    hw_buf_puts(b, HW_ENERGY_HEADER "\n");
}

static bool nvml_read(const void *m, int i, unsigned long long *mj)
{
    return mon_nvml_read(m, i, mj);
}

/* The energy counters now, one row per GPU (edge rows marked): at the first reading, at every
 * sample of the cadence and at the edges. */
static void nvsmi_thread_rows(const struct mon_gpu_source *s, int i, const struct mon_gpu_tick *t,
                              struct hw_buf *b)
{
    (void)i;
    const struct mon_nvml *m = &((const struct nvsmi *)s)->nvml;
    mon_gpu_energy_rows(m->index, m->n, nvml_read, m, t, b);
}

static void nvsmi_facts(const struct mon_gpu_source *s, struct mon_gpu_facts *f)
{
    const struct nvsmi *n = (const struct nvsmi *)s;
    *f = (struct mon_gpu_facts){
        .source = s->name,
        .tool_path = n->smi.path,
        .fields = n->smi.fields,
        .driver_version = n->gpu_ok ? n->smi.driver_version : "",
        .gpus_json = n->gpu_ok ? n->smi.gpus_json : "",
        .gpu_sel_json = n->gpu_ok ? n->smi.gpu_sel_json : "",
        .gpm = n->gpm_ok,
        .gpm_why = n->smi.gpm_why,
        .gpm_missing = n->smi.gpm_missing,
        .health = n->health_ok,
        .health_fields = n->smi.health,
        .fallbacks = n->smi.fb,
        .n_fallbacks = n->smi.n_fb,
        .gpm_applies = true,
        .energy_json = n->energy_json,
        .pmon_why = "",
    };
}

static void nvsmi_free(struct mon_gpu_source *s)
{
    mon_nvml_close(&((struct nvsmi *)s)->nvml);
    free(s);
}

struct mon_gpu_source *mon_gpu_source_nvsmi(void)
{
    struct nvsmi *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->base = (struct mon_gpu_source){
        .name = "nvidia-smi",
        .present = nvsmi_present,
        .probe = nvsmi_probe,
        .children = nvsmi_children,
        .thread_files = nvsmi_thread_files,
        .thread_header = nvsmi_thread_header,
        .thread_rows = nvsmi_thread_rows,
        .facts = nvsmi_facts,
        .free = nvsmi_free,
    };
    snprintf(n->smi.fields, sizeof n->smi.fields, "%s", hw_gpu_fields_default());
    return &n->base;
}
