/* GPU selection (see gpusel.h). */
#include "gpusel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool list_ok(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s;; p++) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0)
            return false;
        if (!c)
            return true;
        p = c;
    }
}

int mon_gpusel_resolve(const char *opt, const char *cuda, struct mon_gpusel *out)
{
    memset(out, 0, sizeof *out);
    out->source = "default";
    if (opt) {
        out->source = "option";
        out->asked = opt;
        if (!strcmp(opt, "all"))
            return 0;
        if (!list_ok(opt))
            return -EINVAL;
        out->ids = opt;
        return 0;
    }
    if (cuda) {
        out->source = "CUDA_VISIBLE_DEVICES";
        out->asked = cuda;
        if (!*cuda) { /* CUDA's meaning: no device */
            out->none = true;
            return 0;
        }
        if (!list_ok(cuda)) { /* nothing can be mapped: no GPU is measured */
            out->none = true;
            snprintf(out->unmapped, sizeof out->unmapped, "%s", cuda);
            return -EINVAL;
        }
        out->ids = cuda;
    }
    return 0;
}

/* The index of the "GPU N: ... (UUID: uuid)" line that uuid (len bytes) names, or the GPU a
 * MIG device line naming it is listed under; -1 when none. */
static long parent_of(const char *list, const char *uuid, size_t len)
{
    long gpu = -1;
    for (const char *line = list; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (n > 4 && !strncmp(line, "GPU ", 4))
            gpu = strtol(line + 4, NULL, 10);
        const char *u = n > 8 ? memmem(line, n, "(UUID: ", 7) : NULL;
        if (u && gpu >= 0 && (size_t)(line + n - (u + 7)) > len && !memcmp(u + 7, uuid, len) &&
            u[7 + len] == ')')
            return gpu;
        line = nl ? nl + 1 : NULL;
    }
    return -1;
}

void mon_gpusel_map(struct mon_gpusel *s, const char *list_out)
{
    if (!s->ids || !list_out)
        return;
    char out[sizeof s->mapped] = "";
    size_t o = 0;
    for (const char *p = s->ids; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        if (!strncmp(item, "MIG-", 4)) {
            /* MIG-GPU-<uuid>/gi/ci names its GPU; MIG-<uuid> is listed under it */
            const char *u = !strncmp(item, "MIG-GPU-", 8) ? item + 4 : item;
            size_t ul = !strncmp(item, "MIG-GPU-", 8) ? strcspn(u, "/") : strlen(u);
            long g = parent_of(list_out, u, ul);
            if (g >= 0)
                snprintf(item, sizeof item, "%ld", g);
        }
        /* the same GPU twice (two MIG devices of one GPU) is one -i id */
        bool dup = false;
        for (const char *q = out; *q && !dup;) {
            size_t ql = strcspn(q, ",");
            dup = ql == strlen(item) && !strncmp(q, item, ql);
            q += ql + (q[ql] == ',');
        }
        if (!dup) {
            int w = snprintf(out + o, sizeof out - o, "%s%s", o ? "," : "", item);
            if (w < 0 || (size_t)w >= sizeof out - o)
                return; /* too long to rewrite: left as given */
            o += (size_t)w;
        }
        p = c ? c + 1 : p + len;
    }
    memcpy(s->mapped, out, sizeof out);
    s->ids = s->mapped;
}

void mon_gpusel_args(const struct mon_gpusel *s, char **argv, int *n)
{
    if (!s->ids)
        return;
    argv[(*n)++] = "-i";
    argv[(*n)++] = (char *)s->ids;
}
