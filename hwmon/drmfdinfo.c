/* A process's GPU memory from DRM fdinfo: see drmfdinfo.h. */
#include "drmfdinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/io.h"

/* The value of key in text ("key:<blanks>value" at a line's start), or NULL. */
static const char *value_of(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, key, n) && p[n] == ':') {
            p += n + 1;
            while (*p == ' ' || *p == '\t')
                p++;
            return p;
        }
    return NULL;
}

/* "<uint>[ KiB| MiB| GiB]" as bytes; false when it is no such number. */
static bool parse_size(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || errno || *v == '-')
        return false;
    while (*end == ' ' || *end == '\t')
        end++;
    static const struct {
        const char *unit;
        unsigned shift;
    } units[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
    unsigned shift = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strncmp(end, units[i].unit, 3))
            shift = units[i].shift, end += 3;
    if (*end && *end != '\n')
        return false;
    if (x > UINT64_MAX >> shift)
        return false;
    *out = (uint64_t)x << shift;
    return true;
}

bool mon_drm_fdinfo_parse(const char *text, char pdev[16], uint64_t *client, uint64_t *vram)
{
    const char *drv = value_of(text, "drm-driver"), *pd = value_of(text, "drm-pdev");
    if (!drv || !pd)
        return false;
    size_t n = strcspn(pd, " \t\n");
    if (n == 0 || n >= 16)
        return false;
    memcpy(pdev, pd, n);
    pdev[n] = '\0';
    const char *id = value_of(text, "drm-client-id");
    *client = id ? strtoull(id, NULL, 10) : 0;
    static const char *const keys[] = {"drm-memory-vram", "drm-resident-vram", "drm-total-vram"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *v = value_of(text, keys[k]);
        if (v && parse_size(v, vram))
            return true;
    }
    return false;
}

int mon_drm_proc(int proc_fd, pid_t pid, struct mon_drm_use *out, int cap)
{
    char path[64];
    snprintf(path, sizeof path, "%d/fd", (int)pid);
    int dfd = openat(proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        return -e;
    }
    struct {
        char pdev[16];
        uint64_t id;
    } seen[MON_DRM_MAX_CLIENTS];
    int nseen = 0, ncards = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char link[64], text[4096];
        if (e->d_name[0] == '.')
            continue;
        ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = '\0';
        if (strncmp(link, "/dev/dri/", 9) != 0)
            continue; /* not a GPU's: most of a training process's descriptors */
        snprintf(path, sizeof path, "%d/fdinfo/%.20s", (int)pid, e->d_name);
        if (hw_read_small(proc_fd, path, text, sizeof text) <= 0)
            continue; /* closed meanwhile */
        char pdev[16];
        uint64_t id, vram;
        if (!mon_drm_fdinfo_parse(text, pdev, &id, &vram))
            continue;
        int s = 0;
        while (s < nseen && !(seen[s].id == id && !strcmp(seen[s].pdev, pdev)))
            s++;
        if (s < nseen || nseen == MON_DRM_MAX_CLIENTS)
            continue; /* a client already counted (another descriptor of it) */
        memcpy(seen[nseen].pdev, pdev, sizeof pdev);
        seen[nseen++].id = id;
        int c = 0;
        while (c < ncards && strcmp(out[c].pdev, pdev))
            c++;
        if (c == ncards) {
            if (ncards == cap)
                continue;
            memcpy(out[c].pdev, pdev, sizeof pdev);
            out[c].vram_bytes = 0;
            ncards++;
        }
        out[c].vram_bytes += vram;
    }
    closedir(d);
    return ncards;
}
