/* The GPUs' energy counters through NVML (nvmlDeviceGetTotalEnergyConsumption: millijoules
 * since the driver loaded, Volta and newer), which nvidia-smi cannot query. NVML is loaded at
 * run time (dlopen of libnvidia-ml.so.1, or $HWMON_NVML_LIBRARY: the tests' fake): no build or
 * package dependency, and a machine without it only lacks the counter. The few entry points used
 * are declared here from NVML's public API documentation. Without NVML, with an init that
 * fails (no driver, a driver/library version mismatch) or on GPUs without the counter, nothing
 * else changes: the GPUs are still sampled by nvidia-smi. Nothing here prints or logs. */
#ifndef HWMON_NVML_H
#define HWMON_NVML_H

#include <stdbool.h>

#include "gpusel.h"

#define MON_NVML_MAX_GPUS 64
#define MON_NVML_LIBRARY "libnvidia-ml.so.1"
#define MON_NVML_LIBRARY_ENV "HWMON_NVML_LIBRARY"

struct mon_nvml {
    void *lib;
    int (*shutdown)(void);
    int (*energy)(void *dev, unsigned long long *mj);
    int n;                 /* GPUs with a counter */
    int index[MON_NVML_MAX_GPUS]; /* their indexes, ascending as NVML numbers them */
    void *dev[MON_NVML_MAX_GPUS];
    char why[200]; /* why there is none (or why some GPUs lack it) */
};

/* Load NVML and find the counters of the selected GPUs (sel->ids: indexes or UUIDs; NULL:
 * every GPU). Returns how many GPUs have one (0 with why set: then m holds nothing to close). */
int mon_nvml_open(struct mon_nvml *m, const struct mon_gpusel *sel);
/* GPU i's (0 .. m->n - 1) counter now; false when NVML could not read it. Thread-safe as NVML is. */
bool mon_nvml_read(const struct mon_nvml *m, int i, unsigned long long *mj);
void mon_nvml_close(struct mon_nvml *m); /* accepts a closed or never opened one */

#endif
