/* The GPU sources (gpusrc.h), in auto's order, and what they share. */
#include "gpusrc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct mon_gpu_source_def mon_gpu_sources[MON_GPU_SOURCES] = {
    {"nvidia", mon_gpu_source_nvsmi},
    {"amd", mon_gpu_source_amd},
};

int mon_gpu_source_find(const char *option)
{
    for (int i = 0; i < MON_GPU_SOURCES; i++)
        if (!strcmp(option, mon_gpu_sources[i].option))
            return i;
    return -1;
}

bool mon_tool_found(const char *tool)
{
    if (strchr(tool, '/'))
        return access(tool, X_OK) == 0;
    const char *path = getenv("PATH");
    char p[PATH_MAX];
    for (const char *s = path && *path ? path : "/usr/bin:/bin"; s;) {
        const char *e = strchr(s, ':');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n && n < sizeof p - strlen(tool) - 2) {
            snprintf(p, sizeof p, "%.*s/%s", (int)n, s, tool);
            if (access(p, X_OK) == 0)
                return true;
        }
        s = e ? e + 1 : NULL;
    }
    return false;
}
