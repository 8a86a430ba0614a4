/* A fake libnvidia-ml.so for hwmon's NVML energy counters (hwmon/nvml.h), selected with
 * HWMON_NVML_LIBRARY. It has the entry points hwmon uses, with NVML's return codes, and a
 * counter whose truth the tests know:
 *   FAKE_NVML_MODE=ok|init_fail|mismatch   nvmlInit_v2 returns 0, 9 (driver not loaded) or 18
 *                                          (driver/library version mismatch)
 *   FAKE_NVML_GPUS=N (default 2)           GPUs 0..N-1, UUIDs as the fake nvidia-smi's
 *   FAKE_NVML_NO_COUNTER=g,...             these GPUs answer the counter with 3 (not supported)
 *   FAKE_NVML_POWER_W=W (default 300)      GPU g draws W + 10 g watts, always
 *   FAKE_NVML_PERIOD_MS=P (default 100)    the counter moves every P ms of CLOCK_REALTIME
 * GPU g's counter at wall time t (ms since the epoch) is
 *   (W + 10 g) * P * floor((t - 1.7e12) / P)   millijoules,
 * so the energy between two wall times is the watts times the time, to within one period. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_NVML_MAX 16

struct dev {
    int index;
};
static struct dev devs[FAKE_NVML_MAX];
static int ngpu = 2, initialized;

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : dflt;
    return s && *s && *end ? dflt : v;
}

static int listed(const char *list, int g)
{
    for (const char *p = list; p && *p;) {
        if (strtol(p, NULL, 10) == g && *p >= '0' && *p <= '9')
            return 1;
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
    const char *mode = getenv("FAKE_NVML_MODE");
    if (mode && !strcmp(mode, "init_fail"))
        return 9;
    if (mode && !strcmp(mode, "mismatch"))
        return 18;
    ngpu = (int)env_long("FAKE_NVML_GPUS", 2);
    if (ngpu < 0 || ngpu > FAKE_NVML_MAX)
        ngpu = FAKE_NVML_MAX;
    for (int g = 0; g < ngpu; g++)
        devs[g].index = g;
    initialized = 1;
    return 0;
}

int nvmlShutdown(void);
int nvmlShutdown(void)
{
    initialized = 0;
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!initialized)
        return 1;
    *count = (unsigned int)ngpu;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **dev);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **dev)
{
    if (!initialized)
        return 1;
    if (index >= (unsigned int)ngpu)
        return 2;
    *dev = &devs[index];
    return 0;
}

int nvmlDeviceGetHandleByUUID(const char *uuid, void **dev);
int nvmlDeviceGetHandleByUUID(const char *uuid, void **dev)
{
    if (!initialized)
        return 1;
    for (int g = 0; g < ngpu; g++) {
        char u[64];
        snprintf(u, sizeof u, "GPU-5e7c1d%02x-3a9b-4f2e-8d61-0c4b2a9f70%02x", g, g);
        if (!strcmp(u, uuid)) {
            *dev = &devs[g];
            return 0;
        }
    }
    return 6; /* not found */
}

int nvmlDeviceGetIndex(void *dev, unsigned int *index);
int nvmlDeviceGetIndex(void *dev, unsigned int *index)
{
    *index = (unsigned int)((struct dev *)dev)->index;
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj);
int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj)
{
    int g = ((struct dev *)dev)->index;
    if (!initialized)
        return 1;
    if (listed(getenv("FAKE_NVML_NO_COUNTER"), g))
        return 3;
    long w = env_long("FAKE_NVML_POWER_W", 300) + 10L * g;
    long period = env_long("FAKE_NVML_PERIOD_MS", 100);
    if (period < 1)
        period = 1;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long long ms = (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000 - 1700000000000LL;
    *mj = (unsigned long long)(w * period * (ms / period));
    return 0;
}

const char *nvmlErrorString(int rc);
const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    case 18: return "Driver/library version mismatch";
    default: return "Unknown Error";
    }
}
