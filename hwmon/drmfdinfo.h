/* A process's GPU memory from DRM fdinfo, vendor-neutral (the kernel's drm-usage-stats, as
 * htop's linux/GPU.c and nvtop read it): of each descriptor that is a DRM device (its link names
 * /dev/dri/...), the fdinfo's drm-pdev (the card's PCI address), drm-client-id (one client open
 * on several descriptors is counted once) and its VRAM: drm-memory-vram (amdgpu since 5.19,
 * the older key), else drm-resident-vram, else drm-total-vram (the newer keys, 6.5 on), in
 * bytes unless a unit says KiB or MiB. No capture of a real fdinfo was at hand: the parser
 * follows Documentation/gpu/drm-usage-stats.rst, and a file it cannot read is no use (never
 * 0 MiB). */
#ifndef HWMON_DRMFDINFO_H
#define HWMON_DRMFDINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define MON_DRM_MAX_CARDS 16   /* per process */
#define MON_DRM_MAX_CLIENTS 64 /* per process: clients beyond are not counted */

struct mon_drm_use {
    char pdev[16];       /* "0000:03:00.0" */
    uint64_t vram_bytes; /* its clients' VRAM together */
};

/* One fdinfo's text: its card, client and VRAM. false when it is no DRM client's (no
 * drm-driver or drm-pdev) or says no VRAM. */
bool mon_drm_fdinfo_parse(const char *text, char pdev[16], uint64_t *client, uint64_t *vram);

/* pid's VRAM per card under the proc directory proc_fd (at most cap cards, into out). Returns
 * how many cards (0: no DRM client), or -errno when its descriptors cannot be listed (gone, or
 * not ours to see). */
int mon_drm_proc(int proc_fd, pid_t pid, struct mon_drm_use *out, int cap);

#endif
