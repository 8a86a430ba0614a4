/* AMD GPUs through the kernel's amdgpu files (amdgpu.h). */
#include "amdgpu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "drmfdinfo.h"
#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "hwrun/rundir.h"

/* hw_health.csv's columns from AMD's files (relative to device/, "H/": its hwmon/hwmonN/), read
 * at each row. how: a number (times scale, with decimals), a PCIe speed as its generation, the
 * column before's value again (the power cap is both limits), the highest shader clock level
 * read once at the start. */
enum amd_how { AMD_NUM, AMD_LINK_GEN, AMD_AS_BEFORE, AMD_SCLK_MAX };
static const struct amd_health {
    int col; /* enum hw_health_col */
    const char *file;
    enum amd_how how;
    double scale;
    int decimals;
} amd_health[MON_AMD_HEALTH_COLS] = {
    {HW_HEALTH_UTIL, "gpu_busy_percent", AMD_NUM, 1, 0},
    {HW_HEALTH_SM_CLOCK, "H/freq1_input", AMD_NUM, 1e-6, 0},
    {HW_HEALTH_SM_CLOCK_MAX, NULL, AMD_SCLK_MAX, 1, 0},
    {HW_HEALTH_POWER_LIMIT, "H/power1_cap", AMD_NUM, 1e-6, 2},
    {HW_HEALTH_POWER_ENFORCED, NULL, AMD_AS_BEFORE, 1, 2},
    {HW_HEALTH_PCIE_GEN, "current_link_speed", AMD_LINK_GEN, 1, 0},
    {HW_HEALTH_PCIE_GEN_MAX, "max_link_speed", AMD_LINK_GEN, 1, 0},
    {HW_HEALTH_PCIE_WIDTH, "current_link_width", AMD_NUM, 1, 0},
    {HW_HEALTH_PCIE_WIDTH_MAX, "max_link_width", AMD_NUM, 1, 0},
};

/* The cells of a row after its timestamp, in hwmon's default field list's order
 * (hw_gpu_fields_default()): a figure (enum hw_gpu_metric), the card's index or its uuid. The
 * list is the one definition of the layout, so a figure that joins it (hwrun/rundir.h's since)
 * gets its cell here: its .amd file's value, else "[N/A]". How many; 0 if the list names
 * something else (test_hwmon.amd.row_by_list requires not). */
enum { CELL_INDEX = -1, CELL_UUID = -2, ROW_MAX = HW_GPU_FIG_COUNT + 2 };
static size_t row_cells(int cell[ROW_MAX])
{
    size_t n = 0;
    const char *p = strchr(hw_gpu_fields_default(), ','); /* after the timestamp */
    while (p && *p == ',') {
        p++;
        size_t len = strcspn(p, ",");
        int c = len == 5 && !memcmp(p, "index", 5) ? CELL_INDEX
                : len == 4 && !memcmp(p, "uuid", 4) ? CELL_UUID
                                                     : HW_GPU_FIG_COUNT;
        for (int k = 0; c == HW_GPU_FIG_COUNT && k < HW_GPU_FIG_COUNT; k++)
            if (strlen(hw_gpu_figs[k].field) == len && !memcmp(hw_gpu_figs[k].field, p, len))
                c = k;
        if (c == HW_GPU_FIG_COUNT || n == ROW_MAX)
            return 0;
        cell[n++] = c;
        p += len;
    }
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* cardN exactly (not card0-DP-1, a connector): N, else -1 */
static int card_number(const char *name)
{
    if (strncmp(name, "card", 4) || !name[4])
        return -1;
    int n = 0;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9' || n > 100000)
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* the card's hwmon directory, relative to its device directory dfd: "hwmon/hwmonN", or "" */
static void find_hwmon(int dfd, char *out, size_t cap)
{
    out[0] = '\0';
    int hfd = openat(dfd, "hwmon", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = hfd >= 0 ? fdopendir(hfd) : NULL;
    if (!d) {
        if (hfd >= 0)
            close(hfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "hwmon", 5)) {
            snprintf(out, cap, "hwmon/%.200s", e->d_name);
            break;
        }
    closedir(d);
}

static int open_field(int dfd, const char *hwmon, const char *file)
{
    char path[320];
    if (!strncmp(file, "H/", 2)) {
        if (!hwmon[0])
            return -1;
        snprintf(path, sizeof path, "%s/%s", hwmon, file + 2);
    } else {
        snprintf(path, sizeof path, "%s", file);
    }
    return openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

/* Keep of sel[0..*n) the entries list names by their position in it ("1,3": the second and
 * the fourth), in the list's order; NULL keeps all. An entry that is not such a position (a
 * UUID, a number past the end) keeps nothing: which card it means is not known here. */
static void select_by(int *sel, int *n, const char *list)
{
    if (!list)
        return;
    int out[MON_AMD_MAX], k = 0;
    for (const char *p = list; *p && k < MON_AMD_MAX;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end) || v < 0 || v >= *n) {
            *n = 0;
            return;
        }
        out[k++] = sel[v];
        p = *end ? end + 1 : end;
    }
    memcpy(sel, out, (size_t)k * sizeof *sel);
    *n = k;
}

double mon_amd_sclk_levels_max(const char *text)
{
    double best = NAN;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        if (!nl)
            nl = line + strlen(line);
        const char *colon = memchr(line, ':', (size_t)(nl - line));
        char *end;
        double mhz = colon ? strtod(colon + 1, &end) : NAN;
        if (colon && end != colon + 1 && nl - end >= 3 && /* "Mhz" in the line */
            !strncasecmp(end, "mhz", 3) && mhz > 0 && mhz < 1e6 && !(mhz <= best))
            best = mhz;
        line = *nl ? nl + 1 : nl;
    }
    return best;
}

static double sclk_max(int dfd)
{
    char text[4096];
    return hw_read_small(dfd, "pp_dpm_sclk", text, sizeof text) > 0 ? mon_amd_sclk_levels_max(text)
                                                                    : NAN;
}

int mon_amd_link_gen(const char *s)
{
    static const double gts[] = {2.5, 5, 8, 16, 32, 64};
    char *end;
    double v = strtod(s, &end);
    if (end == s || strncmp(end, " GT/s", 5) != 0)
        return 0;
    for (size_t i = 0; i < sizeof gts / sizeof gts[0]; i++)
        if (v == gts[i])
            return (int)i + 1;
    return 0;
}

static void open_card(struct mon_amd_card *c, int dfd, int card)
{
    char buf[128], hwmon[256];
    c->card = card;
    find_hwmon(dfd, hwmon, sizeof hwmon);
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++) {
        /* each figure's file, as its entry of hw_gpu_figs says (hwrun/rundir.h's .amd) */
        const struct hw_gpu_amd *src = &hw_gpu_figs[k].amd;
        c->fd[k] = src->file ? open_field(dfd, hwmon, src->file) : -1;
        if (c->fd[k] < 0 && src->alt)
            c->fd[k] = open_field(dfd, hwmon, src->alt);
    }
    for (int k = 0; k < MON_AMD_HEALTH_COLS; k++)
        c->hfd[k] = amd_health[k].file ? open_field(dfd, hwmon, amd_health[k].file) : -1;
    c->sclk_max = sclk_max(dfd);
    c->named = hw_read_small(dfd, "product_name", buf, sizeof buf) > 0 && (trim(buf), buf[0]);
    if (c->named) {
        snprintf(c->name, sizeof c->name, "%.*s", (int)sizeof c->name - 1, buf); /* cut */
    } else {
        char id[32] = "";
        if (hw_read_small(dfd, "device", id, sizeof id) > 0)
            trim(id);
        snprintf(c->name, sizeof c->name, "AMD GPU %s", id[0] ? id : "(unknown)");
    }
    c->uuid[0] = '\0';
    if (hw_read_small(dfd, "unique_id", buf, sizeof buf) > 0 && (trim(buf), buf[0]))
        snprintf(c->uuid, sizeof c->uuid, "AMD-%.58s", buf);
    /* the address DRM fdinfo's drm-pdev names the card by */
    char ev[1024];
    const char *slot = hw_read_small(dfd, "uevent", ev, sizeof ev) > 0 ? strstr(ev, "PCI_SLOT_NAME=")
                                                                       : NULL;
    c->pci[0] = '\0';
    if (slot)
        snprintf(c->pci, sizeof c->pci, "%.*s", (int)strcspn(slot + 14, "\n"), slot + 14);
}

/* The AMD cards' numbers N (cardN) under drm, ascending, into amd[MON_AMD_MAX]; how many. */
static int find_amd(const char *drm, int *amd)
{
    DIR *d = opendir(drm);
    if (!d)
        return 0;
    int cards[MON_AMD_MAX], nc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nc < MON_AMD_MAX) {
        int n = card_number(e->d_name);
        if (n >= 0)
            cards[nc++] = n;
    }
    closedir(d);
    qsort(cards, (size_t)nc, sizeof cards[0], cmp_int);
    int na = 0;
    for (int i = 0; i < nc; i++) {
        char dev[4200], vendor[16] = "";
        snprintf(dev, sizeof dev, "%s/card%d/device/vendor", drm, cards[i]);
        if (hw_read_small(AT_FDCWD, dev, vendor, sizeof vendor) > 0 &&
            !strncmp(vendor, "0x1002", 6))
            amd[na++] = cards[i];
    }
    return na;
}

static void drm_dir(char *drm, size_t cap, const char *root)
{
    snprintf(drm, cap, "%s/sys/class/drm", root && *root ? root : "");
}

int mon_amd_count(const char *root)
{
    char drm[4096];
    int amd[MON_AMD_MAX];
    drm_dir(drm, sizeof drm, root);
    return find_amd(drm, amd);
}

int mon_amd_open(struct mon_amd *a, const char *root, const char *const *lists, int nlists)
{
    memset(a, 0, sizeof *a);
    char drm[4096];
    drm_dir(drm, sizeof drm, root);
    int amd[MON_AMD_MAX], na = find_amd(drm, amd); /* in card order */
    a->found = na;
    for (int l = 0; l < nlists; l++)
        select_by(amd, &na, lists[l]);
    for (int i = 0; i < na; i++) {
        char dev[4200];
        snprintf(dev, sizeof dev, "%s/card%d/device", drm, amd[i]);
        int dfd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
            continue;
        open_card(&a->c[a->n++], dfd, amd[i]);
        close(dfd);
    }
    return a->n;
}

void mon_amd_close(struct mon_amd *a)
{
    for (int i = 0; i < a->n; i++) {
        for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
            if (a->c[i].fd[k] >= 0)
                close(a->c[i].fd[k]);
        for (int k = 0; k < MON_AMD_HEALTH_COLS; k++)
            if (a->c[i].hfd[k] >= 0)
                close(a->c[i].hfd[k]);
    }
    a->n = 0;
}

void mon_amd_rows(const struct mon_amd *a, const char *ts, struct hw_buf *b)
{
    int cell[ROW_MAX];
    size_t ncell = row_cells(cell);
    for (int i = 0; i < a->n; i++) {
        const struct mon_amd_card *c = &a->c[i];
        hw_buf_puts(b, ts);
        for (size_t j = 0; j < ncell; j++) {
            int k = cell[j];
            if (k == CELL_INDEX) {
                hw_buf_printf(b, ", %d", i);
                continue;
            }
            if (k == CELL_UUID) {
                hw_buf_printf(b, ", %s", c->uuid[0] ? c->uuid : "[N/A]");
                continue;
            }
            char v[64];
            char *end;
            double x = 0;
            bool ok = c->fd[k] >= 0 && hw_pread_all(c->fd[k], v, sizeof v) > 0 &&
                      (x = strtod(v, &end), end != v && (*end == '\n' || !*end));
            if (ok)
                hw_buf_printf(b, ", %.*f", hw_gpu_figs[k].decimals, x * hw_gpu_figs[k].amd.scale);
            else
                hw_buf_puts(b, ", [N/A]"); /* no such file, or a read that failed: unmeasured */
        }
        hw_buf_puts(b, "\n");
    }
}

void mon_amd_health_fields(struct hw_buf *b, const char *sep)
{
    for (int k = 0; k < MON_AMD_HEALTH_COLS; k++)
        hw_buf_printf(b, "%s%s", k ? sep : "", hw_health_fields[amd_health[k].col]);
}

void mon_amd_health_rows(const struct mon_amd *a, const char *ts, struct hw_buf *b)
{
    for (int i = 0; i < a->n; i++) {
        const struct mon_amd_card *c = &a->c[i];
        hw_buf_printf(b, "%s, %d", ts, i);
        double prev = NAN;
        for (int k = 0; k < MON_AMD_HEALTH_COLS; k++) {
            const struct amd_health *h = &amd_health[k];
            char v[64];
            char *end;
            double x = NAN;
            if (h->how == AMD_SCLK_MAX) {
                x = c->sclk_max;
            } else if (h->how == AMD_AS_BEFORE) {
                x = prev;
            } else if (c->hfd[k] >= 0 && hw_pread_all(c->hfd[k], v, sizeof v) > 0) {
                if (h->how == AMD_LINK_GEN) {
                    int g = mon_amd_link_gen(v);
                    x = g ? g : NAN;
                } else {
                    x = strtod(v, &end);
                    if (end == v || (*end != '\n' && *end))
                        x = NAN;
                    else
                        x *= h->scale;
                }
            }
            prev = x;
            if (isfinite(x))
                hw_buf_printf(b, ", %.*f", h->decimals, x);
            else
                hw_buf_puts(b, ", [N/A]"); /* no such file, or a read that failed */
        }
        hw_buf_putc(b, '\n');
    }
}

void mon_amd_proc_rows(const struct mon_amd *a, int proc_fd, const pid_t *pids, size_t n,
                       const char *ts, struct hw_buf *b)
{
    for (size_t i = 0; i < n; i++) {
        struct mon_drm_use use[MON_DRM_MAX_CARDS];
        int nu = mon_drm_proc(proc_fd, pids[i], use, MON_DRM_MAX_CARDS);
        char comm[64] = "", path[40];
        snprintf(path, sizeof path, "%d/comm", (int)pids[i]);
        if (nu > 0 && hw_read_small(proc_fd, path, comm, sizeof comm) > 0)
            trim(comm);
        for (int u = 0; u < nu; u++)
            for (int k = 0; k < a->n; k++) {
                const struct mon_amd_card *c = &a->c[k];
                if (!c->uuid[0] || strcmp(c->pci, use[u].pdev) != 0)
                    continue;
                /* nvidia-smi's used_gpu_memory: whole MiB; the name last (it may hold ", ") */
                hw_buf_printf(b, "%s, %s, %d, %llu, %s\n", ts, c->uuid, (int)pids[i],
                              (unsigned long long)(use[u].vram_bytes >> 20),
                              comm[0] ? comm : "[N/A]");
            }
    }
}

void mon_amd_gpus_json(const struct mon_amd *a, struct hw_buf *b)
{
    struct hw_json w;
    hw_json_init(&w, b, HW_JSON_LINE, HW_NUM_REPR);
    hw_json_open(&w, NULL, '[');
    for (int i = 0; i < a->n; i++) {
        hw_json_open(&w, NULL, '{');
        hw_json_u64(&w, "index", (uint64_t)i);
        hw_json_str(&w, "name", a->c[i].name);
        hw_json_str(&w, "uuid", a->c[i].uuid[0] ? a->c[i].uuid : NULL);
        hw_json_str(&w, "vendor", "amd");
        hw_json_u64(&w, "card", (uint64_t)a->c[i].card);
        hw_json_close(&w);
    }
    hw_json_close(&w);
}
