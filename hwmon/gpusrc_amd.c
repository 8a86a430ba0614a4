/* AMD's GPUs as a GPU source (gpusrc.h), through the kernel's amdgpu files (amdgpu.h): no tool
 * and no child; the sampler thread reads each card's files at the cadence into hw_metrics.csv,
 * in the layout nvidia-smi's query child writes, into hw_health.csv (clocks against their
 * highest level, the power cap, the PCIe link; not with --no-health), and with --gpu-procs the
 * job's processes' VRAM from DRM fdinfo into gpu_procs.csv. Where ROCm's AMD SMI library is
 * there (amdsmi.h), the cards' energy counters go into hw_energy.csv as NVML's do, and a card
 * without a product_name gets the library's market name. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amdgpu.h"
#include "amdsmi.h"
#include "gpusrc.h"
#include "hwrun/io.h"
#include "hwrun/rundir.h"
#include "proctree.h"

struct amd_src {
    struct mon_gpu_source base; /* first: the source's pointer is the state's */
    struct mon_amd amd;
    struct mon_amdsmi smi; /* the cards' energy counters; smi.n 0: none */
    char gpus_json[4096], driver[64], health_fields[512], energy_json[512];
    bool health;
    enum hw_file file[MON_GPU_THREAD_FILES]; /* thread file i */
    int fdinfo_proc; /* HWMON_SYSFS_ROOT's proc/ for the processes' fdinfo; -1: the tree's */
};

static const char *sysfs_root(void)
{
    return getenv(MON_AMD_ROOT_ENV);
}

/* Any AMD card at all (which of them the job may use is the probe's question). */
static bool amd_present(const struct mon_gpu_source *s, const struct mon_gpu_want *w)
{
    (void)s, (void)w;
    return mon_amd_count(sysfs_root()) > 0;
}

/* The cards the job may use: --gpus (positions in card order, or all), else what the job's
 * environment lets it see: ROCR_VISIBLE_DEVICES, then within those HIP_VISIBLE_DEVICES (else
 * CUDA_VISIBLE_DEVICES, which HIP honours too), as ROCm applies them. */
static int amd_probe(struct mon_gpu_source *s, const struct mon_gpu_want *w, char *why,
                     size_t why_cap, char *out, size_t out_cap)
{
    struct amd_src *x = (struct amd_src *)s;
    const char *lists[2] = {NULL, NULL}, *then = "HIP_VISIBLE_DEVICES";
    if (w->gpus) {
        lists[0] = strcmp(w->gpus, "all") ? w->gpus : NULL;
    } else {
        lists[0] = getenv("ROCR_VISIBLE_DEVICES");
        lists[1] = getenv(then);
        if (!lists[1])
            lists[1] = getenv(then = "CUDA_VISIBLE_DEVICES");
    }
    const char *root = sysfs_root();
    if (out_cap)
        out[0] = '\0';
    if (mon_amd_open(&x->amd, root, lists, 2) <= 0) {
        if (!x->amd.found) {
            snprintf(why, why_cap, "no AMD GPU under %s/sys/class/drm", root ? root : "");
            return -1;
        }
        if (w->gpus) { /* asked for by name: an error of the run, as for nvidia-smi */
            snprintf(why, why_cap, "--gpus %s names none of the %d AMD GPUs here", w->gpus,
                     x->amd.found);
            return -2;
        }
        /* the job's environment: it runs, a gpu_unavailable event says why */
        snprintf(why, why_cap,
                 "ROCR_VISIBLE_DEVICES \"%s\" then %s \"%s\" leave none of the %d AMD GPUs",
                 lists[0] ? lists[0] : "(unset)", then, lists[1] ? lists[1] : "(unset)",
                 x->amd.found);
        return -1;
    }
    if (w->energy) { /* before the list: a market name may come with the counters */
        mon_amdsmi_open(&x->smi, &x->amd);
        mon_gpu_energy_json(x->energy_json, sizeof x->energy_json, "amdsmi", x->smi.index,
                            x->smi.n, x->smi.why);
    }
    struct hw_buf b; /* on the heap: the JSON writer reserves room for the worst escaping */
    hw_buf_init(&b, NULL, 0);
    mon_amd_gpus_json(&x->amd, &b); /* more than fits: the list is not said */
    snprintf(x->gpus_json, sizeof x->gpus_json, "%s",
             !b.oom && b.p && b.len < sizeof x->gpus_json ? b.p : "");
    hw_buf_free(&b);
    char path[4096];
    if (root && x->fdinfo_proc < 0) { /* the root stands for /: its proc/ holds the fdinfo */
        snprintf(path, sizeof path, "%s/proc", root);
        x->fdinfo_proc = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    snprintf(path, sizeof path, "%s/sys/module/amdgpu/version", root ? root : "");
    if (hw_read_small(AT_FDCWD, path, x->driver, sizeof x->driver) > 0)
        x->driver[strcspn(x->driver, "\n")] = '\0';
    x->health = w->health;
    hw_buf_init(&b, x->health_fields, sizeof x->health_fields);
    mon_amd_health_fields(&b, ",");
    if (b.p != x->health_fields) { /* cannot happen: nine short names */
        hw_buf_free(&b);
        x->health_fields[0] = '\0';
    }
    return 0;
}

static int amd_children(struct mon_gpu_source *s, const struct mon_gpu_want *w,
                        struct mon_gpu_child *ch, int cap)
{
    (void)s, (void)w, (void)ch, (void)cap;
    return 0;
}

/* Everything AMD's GPUs give is read in the thread: the metrics, health, processes' memory and
 * energy files, each when there is what it needs. */
static int amd_thread_files(struct mon_gpu_source *s, const struct mon_gpu_want *w,
                            enum hw_file *files, int cap)
{
    struct amd_src *x = (struct amd_src *)s;
    const bool on[HW_FILE_COUNT] = {[HW_FILE_GPU] = true, [HW_FILE_HEALTH] = x->health,
                                    [HW_FILE_GPU_PROCS] = w->gpu_procs,
                                    [HW_FILE_ENERGY] = x->smi.n > 0};
    int n = 0;
    for (int k = 0; k < HW_FILE_COUNT && n < cap && n < MON_GPU_THREAD_FILES; k++)
        if (on[k]) {
            x->file[n] = (enum hw_file)k;
            files[n++] = (enum hw_file)k;
        }
    return n;
}

/* hw_health.csv's header, as nvidia-smi's health child has one, and hw_energy.csv's, as for
 * NVML's counters; the others have none (nvidia-smi's noheader layouts) */
static void amd_thread_header(const struct mon_gpu_source *s, int i, struct hw_buf *b)
{
    const struct amd_src *x = (const struct amd_src *)s;
    if (x->file[i] == HW_FILE_ENERGY)
        hw_buf_puts(b, HW_ENERGY_HEADER "\n");
    if (x->file[i] != HW_FILE_HEALTH)
        return;
    hw_buf_puts(b, HW_COL_TIMESTAMP ", index, ");
    mon_amd_health_fields(b, ", ");
    hw_buf_putc(b, '\n');
}

static bool amd_energy_read(const void *smi, int i, unsigned long long *mj)
{
    return mon_amdsmi_read(smi, i, mj);
}

/* At the cadence, as nvidia-smi's rows come: a row per card; the tree's processes' VRAM. The
 * energy counters as NVML's: also at the first reading and at the edges (marked). */
static void amd_thread_rows(const struct mon_gpu_source *s, int i, const struct mon_gpu_tick *t,
                            struct hw_buf *b)
{
    const struct amd_src *x = (const struct amd_src *)s;
    if (x->file[i] == HW_FILE_ENERGY) {
        mon_gpu_energy_rows(x->smi.index, x->smi.n, amd_energy_read, &x->smi, t, b);
        return;
    }
    if (t->when != MON_GPU_CADENCE)
        return;
    if (x->file[i] == HW_FILE_GPU) {
        mon_amd_rows(&x->amd, t->iso, b);
        return;
    }
    if (x->file[i] == HW_FILE_HEALTH) {
        mon_amd_health_rows(&x->amd, t->iso, b);
        return;
    }
    const struct mon_tree *tree = t->tree;
    for (size_t k = 0; tree && k < tree->n;) { /* a stack array of the tree's pids at a time */
        pid_t pids[256];
        size_t n = 0;
        while (k < tree->n && n < sizeof pids / sizeof pids[0])
            pids[n++] = tree->p[k++].pid;
        mon_amd_proc_rows(&x->amd, x->fdinfo_proc >= 0 ? x->fdinfo_proc : tree->proc_fd, pids,
                          n, t->iso, b);
    }
}

static void amd_facts(const struct mon_gpu_source *s, struct mon_gpu_facts *f)
{
    const struct amd_src *x = (const struct amd_src *)s;
    *f = (struct mon_gpu_facts){
        .source = s->name,
        .tool_path = "",
        .fields = hw_gpu_fields_default(),
        .driver_version = x->driver,
        .gpus_json = x->gpus_json,
        .gpu_sel_json = "",
        .gpm_why = "",
        .gpm_missing = "",
        .health = x->health,
        .health_fields = x->health_fields,
        .energy_json = x->energy_json,
        .pmon_why = "ROCm's compute queues (/dev/kfd) are not in DRM fdinfo's engine times nor "
                    "in amd-smi's per-process GFX time: no per-process share of AMD GPUs",
    };
}

static void amd_free(struct mon_gpu_source *s)
{
    if (((struct amd_src *)s)->fdinfo_proc >= 0)
        close(((struct amd_src *)s)->fdinfo_proc);
    mon_amdsmi_close(&((struct amd_src *)s)->smi);
    mon_amd_close(&((struct amd_src *)s)->amd);
    free(s);
}

struct mon_gpu_source *mon_gpu_source_amd(void)
{
    struct amd_src *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->fdinfo_proc = -1;
    x->base = (struct mon_gpu_source){
        .name = "amdgpu",
        .present = amd_present,
        .probe = amd_probe,
        .children = amd_children,
        .thread_files = amd_thread_files,
        .thread_header = amd_thread_header,
        .thread_rows = amd_thread_rows,
        .facts = amd_facts,
        .free = amd_free,
    };
    return &x->base;
}
