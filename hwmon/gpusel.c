/* GPU selection (see gpusel.h). */
#include "gpusel.h"

#include <errno.h>
#include <stdio.h>
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

void mon_gpusel_args(const struct mon_gpusel *s, char **argv, int *n)
{
    if (!s->ids)
        return;
    argv[(*n)++] = "-i";
    argv[(*n)++] = (char *)s->ids;
}
