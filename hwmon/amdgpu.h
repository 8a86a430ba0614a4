/* AMD GPUs through the kernel's amdgpu files, no ROCm needed (a pod has /sys, not always ROCm):
 * a card under /sys/class/drm/cardN/device whose vendor is 0x1002. The sampler thread reads each
 * card's files (kept open, pread from 0) and writes one hw_metrics.csv row per card in the layout
 * nvidia-smi's query child writes (hw_gpu_fields_default(), nvidia-smi's time format in UTC), so
 * that summarize, the Prometheus export and pytyche read AMD rows as they read NVIDIA's, by
 * meaning. A file the kernel lacks (older kernels, some boards) is a "[N/A]" cell: unmeasured,
 * never 0.
 *
 * The files (Documentation/gpu/amdgpu/thermal.rst and driver-misc.rst of the kernel):
 * gpu_busy_percent, mem_busy_percent (%), mem_info_vram_used and _total (bytes), and under
 * hwmon/hwmonN/: power1_average (µW; power1_input on newer boards that report instant power
 * only), temp1_input (edge, m°C), freq1_input (sclk, Hz), freq2_input (mclk, Hz). */
#ifndef HWMON_AMDGPU_H
#define HWMON_AMDGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hwrun/buf.h"
#include "hwrun/rundir.h" /* enum hw_gpu_metric */

#define MON_AMD_MAX 64
/* HWMON_SYSFS_ROOT: a directory standing for / when hwmon looks for AMD cards under
 * /sys/class/drm, and, where it has a proc/, for the job's processes' DRM fdinfo (a test and
 * replay hook, like --proc-root) */
#define MON_AMD_ROOT_ENV "HWMON_SYSFS_ROOT"

/* hw_health.csv's columns AMD's files hold (hwrun/rundir.h's enum hw_health_col), in order */
#define MON_AMD_HEALTH_COLS 9

struct mon_amd_card {
    int card;            /* N of cardN */
    char name[96];       /* product_name, else "AMD GPU <device id>" */
    bool named;          /* name is the product_name */
    char uuid[64];       /* "AMD-" unique_id, else "" */
    char pci[16];        /* its PCI address (uevent's PCI_SLOT_NAME), else "" */
    int fd[HW_GPU_FIG_COUNT]; /* by figure (hw_gpu_figs); -1: the kernel has no such file */
    int hfd[MON_AMD_HEALTH_COLS]; /* hw_health.csv's columns from files read each time; -1 */
    double sclk_max;     /* the highest level of pp_dpm_sclk, MHz (NAN: not known) */
};

struct mon_amd {
    int found; /* AMD cards on the machine, before the selection */
    int n;
    struct mon_amd_card c[MON_AMD_MAX];
};

/* Find the AMD cards under root (NULL or "": "/"), in card order, and keep those the lists
 * select, each list naming positions in what the one before kept ("2,3" then "0": the third
 * card), as ROCm applies ROCR_VISIBLE_DEVICES and then HIP's; a NULL list keeps all, an entry
 * that is no such position keeps none. Returns how many (0: none; their files are open). */
int mon_amd_open(struct mon_amd *a, const char *root, const char *const *lists, int nlists);
void mon_amd_close(struct mon_amd *a);
/* How many AMD cards there are under root, none opened. */
int mon_amd_count(const char *root);

/* One row per card at this time (ts as nvidia-smi prints it, UTC), appended to b. */
void mon_amd_rows(const struct mon_amd *a, const char *ts, struct hw_buf *b);

/* hw_health.csv, in nvidia-smi's layout with its header: utilization, the shader clock and its
 * highest level (pp_dpm_sclk), the power cap (hwmon's power1_cap, in µW: both power.limit and
 * enforced.power.limit) and the PCIe link now and at best (the PCI device's current_ and
 * max_link_speed and _width; the speed as its generation). No throttle reasons, ECC or page
 * retirement: amdgpu's text files have none. */
void mon_amd_health_rows(const struct mon_amd *a, const char *ts, struct hw_buf *b);
/* Their fields after timestamp and index, joined by sep: ", " for the file's header line (with
 * "timestamp, index, " before), "," for the start event's health_fields. */
void mon_amd_health_fields(struct hw_buf *b, const char *sep);

/* gpu_procs.csv rows (HW_GPU_PROCS_FIELDS, as nvidia-smi's --query-compute-apps writes them):
 * the VRAM each of the pids holds on each card, from DRM fdinfo (drmfdinfo.h) under the proc
 * directory proc_fd, in MiB, with the process's name. A card without a uuid (no unique_id)
 * cannot be told apart in the file: its processes are left out. */
void mon_amd_proc_rows(const struct mon_amd *a, int proc_fd, const pid_t *pids, size_t n,
                       const char *ts, struct hw_buf *b);

/* The parsers of two files' text: pp_dpm_sclk's highest level in MHz ("0: 500Mhz\n1: 2100Mhz
 * *\n"; some kernels add "S: 19Mhz"), NAN when no line is a level; a PCI device's link speed
 * as its generation ("16.0 GT/s PCIe" -> 4, for 2.5, 5, 8, 16, 32 and 64 GT/s), 0 when it is
 * none of those ("Unknown"). */
double mon_amd_sclk_levels_max(const char *text);
int mon_amd_link_gen(const char *s);

/* The cards as the start event's gpus: [{"index", "name", "uuid", "vendor": "amd"}, ...]. */
void mon_amd_gpus_json(const struct mon_amd *a, struct hw_buf *b);

#endif
