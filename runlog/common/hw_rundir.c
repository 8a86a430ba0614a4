/* The run directory's tables: see include/hwrun/rundir.h. */
#include "hwrun/rundir.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const hw_health_fields[HW_HEALTH_COUNT] = {
    [HW_HEALTH_UTIL] = "utilization.gpu",
    [HW_HEALTH_PSTATE] = "pstate",
    [HW_HEALTH_SM_CLOCK] = "clocks.current.sm",
    [HW_HEALTH_SM_CLOCK_MAX] = "clocks.max.sm",
    [HW_HEALTH_TLIMIT] = "temperature.gpu.tlimit",
    [HW_HEALTH_POWER_INSTANT] = "power.draw.instant",
    [HW_HEALTH_POWER_AVERAGE] = "power.draw.average",
    [HW_HEALTH_POWER_LIMIT] = "power.limit",
    [HW_HEALTH_POWER_ENFORCED] = "enforced.power.limit",
    [HW_HEALTH_REASONS] = "clocks_event_reasons.active",
    [HW_HEALTH_CNT_SW_POWER] = "clocks_event_reasons_counters.sw_power_cap",
    [HW_HEALTH_CNT_HW_POWER_BRAKE] = "clocks_event_reasons_counters.hw_power_brake_slowdown",
    [HW_HEALTH_CNT_SW_THERMAL] = "clocks_event_reasons_counters.sw_thermal_slowdown",
    [HW_HEALTH_CNT_HW_THERMAL] = "clocks_event_reasons_counters.hw_thermal_slowdown",
    [HW_HEALTH_CNT_SYNC_BOOST] = "clocks_event_reasons_counters.sync_boost",
    [HW_HEALTH_ECC_CORRECTED] = "ecc.errors.corrected.volatile.total",
    [HW_HEALTH_ECC_UNCORRECTED] = "ecc.errors.uncorrected.volatile.total",
    [HW_HEALTH_RETIRED_PENDING] = "retired_pages.pending",
    [HW_HEALTH_REMAP_PENDING] = "remapped_rows.pending",
    [HW_HEALTH_REMAP_FAILURE] = "remapped_rows.failure",
    [HW_HEALTH_PCIE_GEN] = "pcie.link.gen.current",
    [HW_HEALTH_PCIE_GEN_MAX] = "pcie.link.gen.max",
    [HW_HEALTH_PCIE_WIDTH] = "pcie.link.width.current",
    [HW_HEALTH_PCIE_WIDTH_MAX] = "pcie.link.width.max",
};

const struct hw_gpu_dim_def hw_gpu_dims[HW_GPU_DIM_COUNT] = {
/* (the parameters are named apart from the members, which a macro would replace too) */
#define DIM_OF(id, unit_, prom_unit_, prom_scale_)                                                 \
    [HW_GPU_DIM_##id] = {.unit = unit_, .prom_unit = prom_unit_, .prom_scale = prom_scale_},
    HW_GPU_DIMS(DIM_OF)
#undef DIM_OF
};

/* hw_metrics.csv's figures (hwrun/rundir.h's enum hw_gpu_metric), in the file's order. */
/* The views' flags: every figure but the total memory, which the page and the live view show as
 * the used memory's "of" (the text report, JSON and Prometheus show every figure). */
#define VIEWS (HW_GF_PAGE | HW_GF_LIVE)
const struct hw_gpu_fig hw_gpu_figs[HW_GPU_FIG_COUNT] = {
    [HW_GM_UTIL] = {.key = "util_pct", .field = "utilization.gpu", .since = 1,
                    .dim = HW_GPU_DIM_PCT, .flags = HW_GF_PYTYCHE | VIEWS,
                    .stem = "gpu_utilization", .label = "util", .head = "UTIL",
                    .help = "Share of the interval in which a kernel ran",
                    .amd = {"gpu_busy_percent", NULL, 1}},
    [HW_GM_MEM_UTIL] = {.key = "mem_util_pct", .field = "utilization.memory", .since = 1,
                        .dim = HW_GPU_DIM_PCT, .flags = HW_GF_PYTYCHE | VIEWS,
                        .stem = "gpu_memory_utilization", .label = "mem util", .head = "MEM%",
                        .help = "Share of the interval in which device memory was read or "
                                "written",
                        .amd = {"mem_busy_percent", NULL, 1}},
    [HW_GM_MEM_USED] = {.key = "mem_used_mib", .field = "memory.used", .since = 1,
                        .dim = HW_GPU_DIM_MIB, .flags = HW_GF_PYTYCHE | VIEWS,
                        .stem = "gpu_memory_used", .label = "mem used", .head = "VRAM GiB",
                        .word = "gpu_mem_used_gib", .help = "Device memory in use",
                        .amd = {"mem_info_vram_used", NULL, 1.0 / 1048576}},
    [HW_GM_MEM_TOTAL] = {.key = "mem_total_mib", .field = "memory.total", .since = 1,
                         .dim = HW_GPU_DIM_MIB, .flags = HW_GF_PYTYCHE,
                         .stem = "gpu_memory_total", .label = "mem total",
                         .help = "Device memory in all",
                         .amd = {"mem_info_vram_total", NULL, 1.0 / 1048576}},
    /* power.draw is the average on older drivers and the same as power.draw.instant or
       .average on newer ones (which one, the driver's help says) */
    [HW_GM_POWER] = {.key = "power_w", .field = "power.draw", .since = 1, .pref = 3,
                     .aliases = (const struct hw_gpu_alias[]){{"power.draw.instant", 2},
                                                              {"power.draw.average", 1},
                                                              {NULL, 0}},
                     .dim = HW_GPU_DIM_W, .flags = HW_GF_PYTYCHE | VIEWS, .stem = "gpu_power",
                     .label = "power", .head = "POWER/LIMIT", .help = "Power draw",
                     .decimals = 2, .amd = {"H/power1_average", "H/power1_input", 1e-6}},
    [HW_GM_TEMP] = {.key = "temp_c", .field = "temperature.gpu", .since = 1,
                    .dim = HW_GPU_DIM_C, .flags = HW_GF_PYTYCHE | VIEWS,
                    .stem = "gpu_temperature", .label = "temperature", .head = "TEMP",
                    .help = "GPU core temperature", .amd = {"H/temp1_input", NULL, 1e-3}},
    /* the short clock names are nvidia-smi's aliases */
    [HW_GM_SM_CLOCK] = {.key = "sm_clock_mhz", .field = "clocks.current.sm", .since = 1,
                        .aliases = (const struct hw_gpu_alias[]){{"clocks.sm", 0}, {NULL, 0}},
                        .dim = HW_GPU_DIM_MHZ, .flags = HW_GF_PYTYCHE | VIEWS,
                        .stem = "gpu_sm_clock", .label = "SM clock", .head = "SM MHz",
                        .word = "gpu_sm_mhz", .help = "Current SM clock",
                        .amd = {"H/freq1_input", NULL, 1e-6}},
    [HW_GM_MEM_CLOCK] = {.key = "mem_clock_mhz", .field = "clocks.current.memory", .since = 1,
                         .aliases = (const struct hw_gpu_alias[]){{"clocks.mem", 0}, {NULL, 0}},
                         .dim = HW_GPU_DIM_MHZ, .flags = HW_GF_PYTYCHE | VIEWS,
                         .stem = "gpu_memory_clock", .label = "mem clock", .head = "MEM MHz",
                         .help = "Current memory clock", .amd = {"H/freq2_input", NULL, 1e-6}},
    /* not recorded by default (since 0); no AMD file: amdgpu's sclk is freq1, the SM clock's */
    [HW_GM_GR_CLOCK] = {.key = "gr_clock_mhz", .field = "clocks.current.graphics", .since = 0,
                        .aliases = (const struct hw_gpu_alias[]){{"clocks.gr", 0}, {NULL, 0}},
                        .dim = HW_GPU_DIM_MHZ, .flags = HW_GF_WHEN_SEEN | VIEWS,
                        .stem = "gpu_graphics_clock", .label = "gr clock",
                        .help = "Current graphics clock"},
    /* boards without a fan (datacenter ones: the H100, AMD's MI series) answer [N/A]; AMD's
       pwm1 is the fan's duty cycle, 0 to 255 (the kernel's hwmon ABI): the speed it is meant to
       run at, as nvidia-smi's fan.speed is */
    [HW_GM_FAN] = {.key = "fan_pct", .field = "fan.speed", .since = 2, .dim = HW_GPU_DIM_PCT,
                   .flags = HW_GF_MAY_NA | HW_GF_WHEN_SEEN | VIEWS, .stem = "gpu_fan_speed",
                   .label = "fan", .help = "Fan speed, as a share of its maximum",
                   .amd = {"H/pwm1", NULL, 100.0 / 255}},
};
#undef VIEWS

size_t hw_gpu_fields_of(const struct hw_gpu_fig *figs, size_t n, int v, char *out, size_t cap)
{
    size_t len = 0;
#define PUT(s)                                                                                     \
    do {                                                                                           \
        for (const char *p_ = (s); *p_; p_++, len++)                                               \
            if (len + 1 < cap)                                                                     \
                out[len] = *p_;                                                                    \
    } while (0)
    PUT(HW_COL_TIMESTAMP);
    /* version w's fields, in the table's order; after version 1's, what tells GPUs apart */
    for (int w = 1; w <= (v ? v : 1); w++) {
        for (size_t k = 0; k < n; k++)
            if (figs[k].since == w) {
                PUT(",");
                PUT(figs[k].field);
            }
        if (w == 1 && v)
            PUT(",index,uuid");
    }
#undef PUT
    if (cap)
        out[len < cap ? len : cap - 1] = '\0';
    return len;
}

/* The lists of hw_gpu_figs, built once: [0] pytyche's, [v] version v's. */
static struct {
    pthread_once_t once;
    int version;
    char list[HW_GPU_FIELD_VERSIONS_MAX + 1][1024];
} fields = {.once = PTHREAD_ONCE_INIT};

static void fields_build(void)
{
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++) {
        int since = hw_gpu_figs[k].since;
        if (since < 0 || since > HW_GPU_FIELD_VERSIONS_MAX) {
            /* a table no list can spell: every program and test stops at once */
            fprintf(stderr, "hw_gpu_figs: %s: since %d is not 0 to %d\n", hw_gpu_figs[k].field,
                    since, HW_GPU_FIELD_VERSIONS_MAX);
            abort();
        }
        if (since > fields.version)
            fields.version = since;
    }
    for (int v = 0; v <= fields.version; v++)
        if (hw_gpu_fields_of(hw_gpu_figs, HW_GPU_FIG_COUNT, v, fields.list[v],
                             sizeof fields.list[v]) >= sizeof fields.list[v]) {
            fprintf(stderr, "hw_gpu_figs: version %d's field list is over %zu bytes\n", v,
                    sizeof fields.list[v] - 1);
            abort();
        }
}

int hw_gpu_field_version(void)
{
    pthread_once(&fields.once, fields_build);
    return fields.version;
}

const char *hw_gpu_fields(int v)
{
    return v >= 1 && v <= hw_gpu_field_version() ? fields.list[v] : NULL;
}

const char *hw_gpu_fields_default(void)
{
    return hw_gpu_fields(hw_gpu_field_version());
}

const char *hw_gpu_fields_pytyche(void)
{
    hw_gpu_field_version();
    return fields.list[0];
}

const char *const hw_file_names[HW_FILE_COUNT] = {
#define NAME_OF(ID, stem, name, reader, by, stage, optional, normal, opt, what)                    \
    [HW_FILE_##ID] = name,
    HW_RUN_FILES(NAME_OF)
#undef NAME_OF
};

const struct hw_run_file hw_run_files[HW_FILE_COUNT] = {
#define FILE_OF(ID, stem_, name_, reader, by_, stage_, optional_, normal, opt, what_)              \
    [HW_FILE_##ID] = {.stem = stem_,                                                               \
                      .name = name_,                                                               \
                      .by = HW_BY_##by_,                                                           \
                      .stage = stage_,                                                             \
                      .optional = optional_,                                                       \
                      .placeholders_normal = normal,                                               \
                      .option = opt,                                                               \
                      .what = what_},
    HW_RUN_FILES(FILE_OF)
#undef FILE_OF
};

const char *const hw_cpu_cols[HW_CPU_COL_COUNT] = {
    [HW_CPU_COL_USR] = "usr_pct",
    [HW_CPU_COL_IDLE] = "idle_pct",
    [HW_CPU_COL_SYS] = "sys_pct",
    [HW_CPU_COL_IOWAIT] = "iowait_pct",
    [HW_CPU_COL_STEAL] = "steal_pct",
    [HW_CPU_COL_MEM_USED] = "mem_used_mib",
    [HW_CPU_COL_MEM_AVAIL] = "mem_available_mib",
    [HW_CPU_COL_CG_LIMIT] = HW_CPU_CG_LIMIT,
    [HW_CPU_COL_CG_PCT] = HW_CPU_CG_PCT,
    [HW_CPU_COL_CG_MEM] = HW_CPU_CG_MEM,
    [HW_CPU_COL_CG_MEM_MAX] = HW_CPU_CG_MEM_MAX,
    [HW_CPU_COL_CG_MEM_PEAK] = HW_CPU_CG_MEM_PEAK,
    [HW_CPU_COL_DISK_READ] = HW_CPU_DISK_READ,
    [HW_CPU_COL_DISK_WRITE] = HW_CPU_DISK_WRITE,
    [HW_CPU_COL_NET_RX] = HW_CPU_NET_RX,
    [HW_CPU_COL_NET_TX] = HW_CPU_NET_TX,
    [HW_CPU_COL_FS_FREE] = HW_CPU_FS_FREE,
    [HW_CPU_COL_MEM_TOTAL] = "mem_total_mib",
    [HW_CPU_COL_MEM_FREE] = "mem_free_mib",
    [HW_CPU_COL_MEM_BUFFERS] = "mem_buffers_mib",
    [HW_CPU_COL_MEM_CACHED] = "mem_cached_mib",
    [HW_CPU_COL_MEM_ACTIVE_ANON] = "mem_active_anon_mib",
    [HW_CPU_COL_MEM_INACTIVE_ANON] = "mem_inactive_anon_mib",
    [HW_CPU_COL_MEM_SRECLAIMABLE] = "mem_sreclaimable_mib",
};

const char *const hw_proc_cols[HW_PROC_COL_COUNT] = {
    [HW_PROC_COL_PROCS] = "procs",           [HW_PROC_COL_THREADS] = "threads",
    [HW_PROC_COL_CPU] = "cpu_pct",           [HW_PROC_COL_RSS] = "rss_mib",
    [HW_PROC_COL_READ] = "read_bytes",       [HW_PROC_COL_WRITE] = "write_bytes",
    [HW_PROC_COL_PSS] = "pss_mib",           [HW_PROC_COL_MAIN_RSS] = "main_rss_mib",
    [HW_PROC_COL_MAIN_CPU] = "main_cpu_pct", [HW_PROC_COL_MAIN_THREADS] = "main_threads",
    [HW_PROC_COL_USR_CPU] = "usr_cpu_pct",   [HW_PROC_COL_SYS_CPU] = "sys_cpu_pct",
    [HW_PROC_COL_PRIVATE] = "private_mib", [HW_PROC_COL_SHARED] = "shared_mib",
    [HW_PROC_COL_RCHAR] = "rchar",           [HW_PROC_COL_WCHAR] = "wchar",
    [HW_PROC_COL_SYSCR] = "syscr",           [HW_PROC_COL_SYSCW] = "syscw",
    [HW_PROC_COL_CANCELLED] = "cancelled_write_bytes",
    [HW_PROC_COL_MAIN_PRIVATE] = "main_private_mib", [HW_PROC_COL_MAIN_SHARED] = "main_shared_mib",
    [HW_PROC_COL_SHARED_ONCE] = "shared_once_mib",
    [HW_PROC_COL_MAIN_SHARED_ONCE] = "main_shared_once_mib",
    [HW_PROC_COL_DESC_SHARED_ONCE] = "desc_shared_once_mib",
};

const char *const hw_proc_col_option[HW_PROC_COL_COUNT] = {
    [HW_PROC_COL_PSS] = "--no-pss",           [HW_PROC_COL_PRIVATE] = "--no-pss",
    [HW_PROC_COL_SHARED] = "--no-pss",        [HW_PROC_COL_MAIN_PRIVATE] = "--no-pss",
    [HW_PROC_COL_MAIN_SHARED] = "--no-pss",   [HW_PROC_COL_SHARED_ONCE] = "--shared-once",
    [HW_PROC_COL_MAIN_SHARED_ONCE] = "--shared-once",
    [HW_PROC_COL_DESC_SHARED_ONCE] = "--shared-once",
};

const char *const hw_events[HW_EV_COUNT] = {
    HW_EV_START,      HW_EV_STOP,          HW_EV_GPU_UNAVAILABLE, HW_EV_GPU_FIELDS_FALLBACK,
    HW_EV_CHILD_EXIT, HW_EV_CHILD_RESTART, HW_EV_CHILD_HUNG,      HW_EV_GPM_UNAVAILABLE,
    HW_EV_GPU_SELECTION_FALLBACK, HW_EV_STOP_REQUEST, HW_EV_CLOCK_STEP, HW_EV_LOG_CONTINUED,
    HW_EV_LOG_ROTATED, HW_EV_PMON_UNAVAILABLE, HW_EV_GPU_LOST, HW_EV_GPU_RESET_REQUIRED,
    HW_EV_GPU_SAMPLER, HW_EV_SIGNAL,
};

const struct hw_gpu_fault_def hw_gpu_faults[HW_GPU_FAULT_COUNT] = {
    [HW_GPU_FAULT_LOST] = {.words = "GPU is lost", .event = HW_EV_GPU_LOST, .key = "lost",
                           .todo = "the GPU fell off the bus: drain the node and reboot it"},
    [HW_GPU_FAULT_RESET] = {.words = "GPU requires reset", .event = HW_EV_GPU_RESET_REQUIRED,
                            .key = "reset_required",
                            .todo = "reset the GPU (nvidia-smi -r) or reboot the node"},
};

int hw_gpu_fault_in(const char *s, size_t n)
{
    for (int k = HW_GPU_FAULT_NONE + 1; k < HW_GPU_FAULT_COUNT; k++) {
        size_t w = strlen(hw_gpu_faults[k].words);
        for (size_t i = 0; i + w <= n; i++)
            if (s[i] == 'G' && !memcmp(s + i, hw_gpu_faults[k].words, w))
                return k;
    }
    return HW_GPU_FAULT_NONE;
}

const struct hw_ctx_def hw_ctx_defs[HW_CTX_COUNT] = {
    [HW_CTX_HOST] = {"host", {NULL}},
    [HW_CTX_SLURM_JOB_ID] = {"slurm_job_id", {"SLURM_JOB_ID", "SLURM_JOBID"}},
    [HW_CTX_SLURM_ARRAY_JOB_ID] = {"slurm_array_job_id", {"SLURM_ARRAY_JOB_ID"}},
    [HW_CTX_SLURM_ARRAY_TASK_ID] = {"slurm_array_task_id", {"SLURM_ARRAY_TASK_ID"}},
    [HW_CTX_SLURM_STEP_ID] = {"slurm_step_id", {"SLURM_STEP_ID", "SLURM_STEPID"}},
    [HW_CTX_SLURM_NODE_ID] = {"slurm_node_id", {"SLURM_NODEID"}},
    [HW_CTX_SLURM_NODE_NAME] = {"slurm_node_name", {"SLURMD_NODENAME"}},
    [HW_CTX_SLURM_PROC_ID] = {"slurm_proc_id", {"SLURM_PROCID"}},
    [HW_CTX_SLURM_LOCAL_ID] = {"slurm_local_id", {"SLURM_LOCALID"}},
    [HW_CTX_SLURM_NTASKS] = {"slurm_ntasks", {"SLURM_NTASKS", "SLURM_NPROCS"}},
    [HW_CTX_SLURM_NODELIST] = {"slurm_nodelist", {"SLURM_JOB_NODELIST", "SLURM_NODELIST"}},
    [HW_CTX_SLURM_JOB_NAME] = {"slurm_job_name", {"SLURM_JOB_NAME"}},
    [HW_CTX_K8S] = {"kubernetes", {"KUBERNETES_SERVICE_HOST"}},
    [HW_CTX_K8S_POD] = {"k8s_pod", {"POD_NAME", "MY_POD_NAME", "K8S_POD_NAME"}},
    [HW_CTX_K8S_NAMESPACE] = {"k8s_namespace",
                              {"POD_NAMESPACE", "MY_POD_NAMESPACE", "K8S_NAMESPACE"}},
    [HW_CTX_K8S_NODE] = {"k8s_node", {"NODE_NAME", "MY_NODE_NAME", "K8S_NODE_NAME"}},
    [HW_CTX_RANK] = {"rank", {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}},
    [HW_CTX_LOCAL_RANK] = {"local_rank",
                           {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}},
    [HW_CTX_WORLD_SIZE] = {"world_size", {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}},
    [HW_CTX_LOCAL_WORLD_SIZE] = {"local_world_size",
                                 {"LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"}},
    [HW_CTX_SLURM_RESTART_COUNT] = {"slurm_restart_count", {"SLURM_RESTART_COUNT"}},
};
