/* What the GPU sources share (gpusrc.h): the energy counters' start-event JSON and rows, and
 * finding a tool on PATH. Under the sources; gpusrc.c's list of them stands above. */
#include "gpusrc.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/jsonw.h"

void mon_gpu_energy_json(char *out, size_t cap, const char *source, const int *index, int n,
                         const char *why)
{
    struct hw_buf b; /* on the heap: the writer reserves room for the worst escaping */
    hw_buf_init(&b, NULL, 0);
    struct hw_json w;
    hw_json_init(&w, &b, HW_JSON_LINE, HW_NUM_REPR);
    hw_json_open(&w, NULL, '{');
    if (n) {
        hw_json_str(&w, "source", source);
        hw_json_open(&w, "gpus", '[');
        for (int i = 0; i < n; i++)
            hw_json_u64(&w, NULL, (uint64_t)index[i]);
        hw_json_close(&w);
    }
    hw_json_str(&w, n ? "note" : "error", why && why[0] ? why : NULL);
    hw_json_close(&w);
    if (cap) /* more than fits: not said */
        snprintf(out, cap, "%s", !b.oom && b.p && b.len < cap ? b.p : "");
    hw_buf_free(&b);
}

void mon_gpu_energy_rows(const int *index, int n,
                         bool (*read)(const void *state, int i, unsigned long long *mj),
                         const void *state, const struct mon_gpu_tick *t, struct hw_buf *b)
{
    const char *edge = t->when == MON_GPU_EDGE ? "1" : "";
    for (int g = 0; g < n; g++) {
        unsigned long long mj;
        if (read(state, g, &mj))
            hw_buf_printf(b, "%s,%d,%llu,%s\n", t->iso, index[g], mj, edge);
        else
            hw_buf_printf(b, "%s,%d,,%s\n", t->iso, index[g], edge);
    }
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
