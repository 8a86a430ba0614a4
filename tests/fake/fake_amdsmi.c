/* A fake libamd_smi.so for hwmon's AMD energy counters (hwmon/amdsmi.h), selected with
 * HWMON_AMDSMI_LIBRARY. It has the entry points hwmon uses, with AMD SMI's signatures and status
 * codes (0 success, 2 not supported, 18 init error), one GPU per socket as on an MI300X node,
 * and a counter whose truth the tests know:
 *   FAKE_AMDSMI_MODE=ok|init_fail         amdsmi_init returns 0 or 18
 *   FAKE_AMDSMI_BDFS=addr,...             its GPUs, in its order, by PCI address
 *                                         ("0000:c1:00.0"); default none
 *   FAKE_AMDSMI_NO_COUNTER=g,...          these GPUs answer the counter with 2 (not supported)
 *   FAKE_AMDSMI_POWER_W=W (default 200)   GPU g draws W + 10 g watts, always
 *   FAKE_AMDSMI_MARKET=name               every GPU's market name (else none: an empty one)
 * GPU g's counter at wall time t (ms since the epoch), in counts of 15.259 microjoules, is
 *   floor((W + 10 g) * (t - 1.7e12) * 1000 / 15.259),
 * so the energy between two wall times is the watts times the time, to within a count. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_AMDSMI_MAX 16
#define RESOLUTION_UJ 15.259f

struct gpu {
    int g;
    uint64_t bdf;
};
static struct gpu gpus[FAKE_AMDSMI_MAX];
static int ngpu, initialized;

static int listed(const char *list, int g)
{
    for (const char *p = list; p && *p;) {
        if (*p >= '0' && *p <= '9' && strtol(p, NULL, 10) == g)
            return 1;
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

/* "dddd:bb:dd.f" as AMD SMI's BDF id: domain << 32 | bus << 8 | device << 3 | function */
static int parse_bdf(const char *s, uint64_t *id)
{
    unsigned dom, bus, dev, fn;
    if (sscanf(s, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return 0;
    *id = (uint64_t)dom << 32 | (uint64_t)(bus & 0xff) << 8 | (dev & 0x1f) << 3 | (fn & 7);
    return 1;
}

int amdsmi_init(uint64_t flags);
int amdsmi_init(uint64_t flags)
{
    (void)flags;
    const char *mode = getenv("FAKE_AMDSMI_MODE");
    if (mode && !strcmp(mode, "init_fail"))
        return 18;
    ngpu = 0;
    const char *list = getenv("FAKE_AMDSMI_BDFS");
    for (const char *p = list; p && *p && ngpu < FAKE_AMDSMI_MAX;) {
        if (parse_bdf(p, &gpus[ngpu].bdf)) {
            gpus[ngpu].g = ngpu;
            ngpu++;
        }
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    initialized = 1;
    return 0;
}

int amdsmi_shut_down(void);
int amdsmi_shut_down(void)
{
    initialized = 0;
    return 0;
}

/* Sockets and processors: GPU g is socket g's only processor; the handles are pointers into
 * gpus[]. As the real call: with handles NULL, only the count. */
int amdsmi_get_socket_handles(uint32_t *count, void **sockets);
int amdsmi_get_socket_handles(uint32_t *count, void **sockets)
{
    if (!initialized || !count)
        return 1;
    if (sockets)
        for (int g = 0; g < ngpu && (uint32_t)g < *count; g++)
            sockets[g] = &gpus[g];
    *count = sockets && *count < (uint32_t)ngpu ? *count : (uint32_t)ngpu;
    return 0;
}

int amdsmi_get_processor_handles(void *socket, uint32_t *count, void **handles);
int amdsmi_get_processor_handles(void *socket, uint32_t *count, void **handles)
{
    if (!initialized || !socket || !count)
        return 1;
    if (handles && *count >= 1)
        handles[0] = socket;
    *count = 1;
    return 0;
}

int amdsmi_get_gpu_bdf_id(void *h, uint64_t *bdfid);
int amdsmi_get_gpu_bdf_id(void *h, uint64_t *bdfid)
{
    if (!initialized || !h || !bdfid)
        return 1;
    *bdfid = ((struct gpu *)h)->bdf;
    return 0;
}

int amdsmi_get_energy_count(void *h, uint64_t *acc, float *res, uint64_t *ns);
int amdsmi_get_energy_count(void *h, uint64_t *acc, float *res, uint64_t *ns)
{
    if (!initialized || !h || !acc || !res || !ns)
        return 1;
    int g = ((struct gpu *)h)->g;
    if (listed(getenv("FAKE_AMDSMI_NO_COUNTER"), g))
        return 2;
    const char *w = getenv("FAKE_AMDSMI_POWER_W");
    double watts = (w && *w ? atof(w) : 200) + 10.0 * g;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    double ms = (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6 - 1.7e12;
    *acc = (uint64_t)floor(watts * ms * 1000.0 / (double)RESOLUTION_UJ);
    *res = RESOLUTION_UJ;
    *ns = (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
    return 0;
}

/* ROCm 6.2's amdsmi_asic_info_t starts with char market_name[256]; the caller's struct is at
 * least that large. */
int amdsmi_get_gpu_asic_info(void *h, void *info);
int amdsmi_get_gpu_asic_info(void *h, void *info)
{
    if (!initialized || !h || !info)
        return 1;
    const char *name = getenv("FAKE_AMDSMI_MARKET");
    memset(info, 0, 256);
    snprintf(info, 256, "%s", name ? name : "");
    return 0;
}

int amdsmi_status_code_to_string(int status, const char **text);
int amdsmi_status_code_to_string(int status, const char **text)
{
    *text = status == 18   ? "AMDSMI_STATUS_INIT_ERROR - An error occurred when initializing "
                             "internal data structures"
            : status == 2  ? "AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported"
            : status == 0  ? "AMDSMI_STATUS_SUCCESS - Call succeeded"
                           : "AMDSMI_STATUS_UNKNOWN_ERROR - An unknown error occurred";
    return 0;
}
