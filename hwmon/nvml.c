/* The GPUs' energy counters through NVML (nvml.h). */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/parse.h"

/* From NVML's public API (nvml.h of the driver's SDK): return codes used here, and the
 * signatures of the entry points. nvmlDevice_t is an opaque pointer. */
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
};
typedef int nvml_init_fn(void);
typedef int nvml_count_fn(unsigned int *count);
typedef int nvml_by_index_fn(unsigned int index, void **dev);
typedef int nvml_by_uuid_fn(const char *uuid, void **dev);
typedef int nvml_dev_index_fn(void *dev, unsigned int *index);
typedef int nvml_energy_fn(void *dev, unsigned long long *mj);
typedef const char *nvml_errstr_fn(int rc);

static const char *error_words(nvml_errstr_fn *errstr, int rc)
{
    const char *s = errstr ? errstr(rc) : NULL;
    if (s && *s)
        return s;
    return rc == NVML_ERROR_DRIVER_NOT_LOADED         ? "Driver Not Loaded"
           : rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH ? "Driver/library version mismatch"
                                                      : "error";
}

/* Add the GPU dev (its index idx) when its counter reads. */
static void add_gpu(struct mon_nvml *m, void *dev, unsigned int idx, int *unsupported)
{
    unsigned long long mj;
    int rc = m->energy(dev, &mj);
    if (rc != NVML_SUCCESS) {
        (*unsupported)++;
        return;
    }
    for (int i = 0; i < m->n; i++)
        if (m->index[i] == (int)idx)
            return; /* named twice (an index and its UUID) */
    if (m->n < MON_NVML_MAX_GPUS) {
        m->index[m->n] = (int)idx;
        m->dev[m->n++] = dev;
    }
}

int mon_nvml_open(struct mon_nvml *m, const struct mon_gpusel *sel)
{
    memset(m, 0, sizeof *m);
    const char *path = getenv(MON_NVML_LIBRARY_ENV);
    if (!path || !*path)
        path = MON_NVML_LIBRARY;
    m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m->lib) {
        snprintf(m->why, sizeof m->why, "no NVML (%s)", path);
        return 0;
    }
    nvml_init_fn *init = (nvml_init_fn *)dlsym(m->lib, "nvmlInit_v2");
    nvml_count_fn *count = (nvml_count_fn *)dlsym(m->lib, "nvmlDeviceGetCount_v2");
    nvml_by_index_fn *by_index =
        (nvml_by_index_fn *)dlsym(m->lib, "nvmlDeviceGetHandleByIndex_v2");
    nvml_by_uuid_fn *by_uuid = (nvml_by_uuid_fn *)dlsym(m->lib, "nvmlDeviceGetHandleByUUID");
    nvml_dev_index_fn *dev_index = (nvml_dev_index_fn *)dlsym(m->lib, "nvmlDeviceGetIndex");
    nvml_errstr_fn *errstr = (nvml_errstr_fn *)dlsym(m->lib, "nvmlErrorString");
    m->shutdown = (int (*)(void))dlsym(m->lib, "nvmlShutdown");
    m->energy = (nvml_energy_fn *)dlsym(m->lib, "nvmlDeviceGetTotalEnergyConsumption");
    if (!init || !count || !by_index || !by_uuid || !dev_index || !m->shutdown || !m->energy) {
        snprintf(m->why, sizeof m->why, "%s lacks an NVML entry point", path);
        dlclose(m->lib);
        m->lib = NULL;
        return 0;
    }
    int rc = init();
    if (rc != NVML_SUCCESS) {
        snprintf(m->why, sizeof m->why, "NVML init failed: %s (%d)", error_words(errstr, rc), rc);
        dlclose(m->lib);
        m->lib = NULL;
        return 0;
    }
    int unsupported = 0;
    if (sel && sel->ids) { /* indexes or UUIDs, as nvidia-smi -i takes them */
        for (const char *p = sel->ids; *p;) {
            size_t len = strcspn(p, ",");
            char id[128];
            snprintf(id, sizeof id, "%.*s", (int)(len < sizeof id ? len : sizeof id - 1), p);
            void *dev = NULL;
            unsigned int idx = 0;
            uint64_t v = 0;
            const char *id_end = id + strlen(id);
            bool numeric = hw_scan_u64(id, id_end, &v, NULL) == id_end && v <= UINT32_MAX;
            int hr = numeric ? by_index((unsigned int)v, &dev) : by_uuid(id, &dev);
            if (hr == NVML_SUCCESS && dev_index(dev, &idx) == NVML_SUCCESS)
                add_gpu(m, dev, idx, &unsupported);
            p += len + (p[len] == ',');
        }
    } else {
        unsigned int n = 0;
        if (count(&n) == NVML_SUCCESS)
            for (unsigned int i = 0; i < n && i < MON_NVML_MAX_GPUS; i++) {
                void *dev = NULL;
                if (by_index(i, &dev) == NVML_SUCCESS)
                    add_gpu(m, dev, i, &unsupported);
            }
    }
    /* NVML numbers GPUs as nvidia-smi does (PCI bus order): keep that order */
    for (int i = 1; i < m->n; i++)
        for (int k = i; k > 0 && m->index[k - 1] > m->index[k]; k--) {
            int ti = m->index[k];
            void *td = m->dev[k];
            m->index[k] = m->index[k - 1], m->dev[k] = m->dev[k - 1];
            m->index[k - 1] = ti, m->dev[k - 1] = td;
        }
    if (unsupported)
        snprintf(m->why, sizeof m->why, "%d GPU%s without an energy counter (before Volta?)",
                 unsupported, unsupported == 1 ? "" : "s");
    if (!m->n) {
        if (!unsupported)
            snprintf(m->why, sizeof m->why, "NVML found none of the GPUs");
        mon_nvml_close(m);
    }
    return m->n;
}

bool mon_nvml_read(const struct mon_nvml *m, int i, unsigned long long *mj)
{
    return m->lib && i >= 0 && i < m->n && m->energy(m->dev[i], mj) == NVML_SUCCESS;
}

void mon_nvml_close(struct mon_nvml *m)
{
    if (m->lib) {
        m->shutdown();
        dlclose(m->lib);
    }
    m->lib = NULL;
    m->n = 0;
}
