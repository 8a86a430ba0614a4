/* AMD GPUs' energy counters, and their market names, through AMD SMI's library (libamd_smi.so:
 * ROCm's, the library amd-smi itself runs on), for what the kernel's amdgpu files lack. Read
 * in-process as NVML is (nvml.h), never by running amd-smi: one call per GPU per sample, no
 * child. Loaded at run time (dlopen of libamd_smi.so, or $HWMON_AMDSMI_LIBRARY: the tests'
 * fake), so a machine without ROCm only lacks the counter. The entry points used are declared
 * here from AMD SMI's public header (amdsmi.h); they are the same from ROCm 6.0 on.
 *
 * The library's GPUs are matched to the cards hwmon reads (amdgpu.h) by PCI address, never by
 * position (its order need not be the kernel's). A card the library does not name once (not
 * found; a partitioned GPU whose partitions share one address and one socket counter) has no
 * counter: energy counted twice is worse than energy integrated from power. Nothing here prints. */
#ifndef HWMON_AMDSMI_H
#define HWMON_AMDSMI_H

#include <stdbool.h>
#include <stdint.h>

#include "amdgpu.h"

#define MON_AMDSMI_LIBRARY "libamd_smi.so"
#define MON_AMDSMI_LIBRARY_ENV "HWMON_AMDSMI_LIBRARY"

struct mon_amdsmi {
    void *lib;
    int (*shutdown)(void);
    int (*energy)(void *h, uint64_t *acc, float *res, uint64_t *ns);
    int n;                      /* cards with a counter */
    int index[MON_AMD_MAX];     /* their positions in struct mon_amd (hw_metrics.csv's index) */
    void *h[MON_AMD_MAX];       /* their processor handles */
    char why[200];              /* why there is none, or why some cards lack one */
};

/* Load the library and find the counters of a's cards; where a card's name was not the
 * kernel's product_name, take the library's market name. Returns how many cards have a
 * counter (0 with why set: then m holds nothing to close). */
int mon_amdsmi_open(struct mon_amdsmi *m, struct mon_amd *a);
/* Card i's (0 .. m->n - 1) counter now, in millijoules; false when it could not be read. */
bool mon_amdsmi_read(const struct mon_amdsmi *m, int i, unsigned long long *mj);
void mon_amdsmi_close(struct mon_amdsmi *m); /* accepts a closed or never opened one */

/* "0000:c1:00.0" from the library's 64-bit BDF id (domain in bits 63..32, bus 15..8, device
 * 7..3, function 2..0), into buf[cap]. */
void mon_amdsmi_bdf(unsigned long long id, char *buf, size_t cap);

#endif
