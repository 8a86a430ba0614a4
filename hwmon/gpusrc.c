/* The GPU sources (gpusrc.h), in auto's order: the list above them; what they share is
 * gpusrc_common.c's, under them. */
#include "gpusrc.h"

#include <string.h>

const struct mon_gpu_source_def mon_gpu_sources[MON_GPU_SOURCES] = {
    {.option = "nvidia", .help = "NVIDIA's, through nvidia-smi", .make = mon_gpu_source_nvsmi},
    {.option = "amd",
     .help = "AMD's, through the kernel's amdgpu files (/sys/class/drm)",
     .make = mon_gpu_source_amd},
};

int mon_gpu_source_find(const char *option)
{
    for (int i = 0; i < MON_GPU_SOURCES; i++)
        if (!strcmp(option, mon_gpu_sources[i].option))
            return i;
    return -1;
}
