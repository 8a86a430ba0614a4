/* The file systems the job can write, and their space (fsspace.h). */
#include "fsspace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hwrun/jsonw.h"
#include "hwrun/rundir.h"
#include "hwrun/buf.h"

/* The next blank-separated field of line[*i..len) into out (octal escapes undone). */
static bool field(const char *line, size_t len, size_t *i, char *out, size_t cap)
{
    while (*i < len && (line[*i] == ' ' || line[*i] == '\t'))
        (*i)++;
    if (*i >= len || line[*i] == '\n')
        return false;
    size_t o = 0;
    while (*i < len && line[*i] != ' ' && line[*i] != '\t' && line[*i] != '\n') {
        char c = line[*i];
        if (c == '\\' && *i + 3 < len && line[*i + 1] >= '0' && line[*i + 1] <= '3' &&
            line[*i + 2] >= '0' && line[*i + 2] <= '7' && line[*i + 3] >= '0' &&
            line[*i + 3] <= '7') {
            c = (char)((line[*i + 1] - '0') * 64 + (line[*i + 2] - '0') * 8 + (line[*i + 3] - '0'));
            *i += 3;
        }
        if (o + 1 < cap)
            out[o++] = c;
        (*i)++;
    }
    out[o] = '\0';
    return true;
}

int mon_parse_mounts_line(const char *line, size_t len, char *mount, size_t mcap, char *type,
                          size_t tcap, bool *rw)
{
    char dev[256], opts[512];
    size_t i = 0;
    if (!field(line, len, &i, dev, sizeof dev) || !field(line, len, &i, mount, mcap) ||
        !field(line, len, &i, type, tcap) || !field(line, len, &i, opts, sizeof opts))
        return -EINVAL;
    *rw = !strncmp(opts, "rw", 2) && (opts[2] == ',' || opts[2] == '\0');
    return 0;
}

bool mon_fs_type_stores_data(const char *type)
{
    static const char *const virt[] = {
        "proc",     "sysfs",     "cgroup",     "cgroup2",   "devpts",  "devtmpfs", "mqueue",
        "debugfs",  "tracefs",   "securityfs", "pstore",    "bpf",     "configfs", "fusectl",
        "hugetlbfs", "autofs",   "binfmt_misc", "nsfs",     "rpc_pipefs", "selinuxfs",
        "efivarfs", "fuse.lxcfs", "fuse.gvfsd-fuse", "fuse.portal", "nfsd",
    };
    for (size_t k = 0; k < sizeof virt / sizeof virt[0]; k++)
        if (!strcmp(type, virt[k]))
            return false;
    return true;
}

int mon_fs_space(struct mon_fs *fs)
{
    struct statvfs v;
    if (statvfs(fs->mount, &v) < 0)
        return -errno;
    double unit = (double)v.f_frsize / 1048576.0;
    fs->total_mib = (double)v.f_blocks * unit;
    fs->used_mib = (double)(v.f_blocks - v.f_bfree) * unit;
    fs->free_mib = (double)v.f_bavail * unit;
    return 0;
}

int mon_fs_list(const char *proc_root, struct mon_fs *out, int cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/self/mounts", proc_root);
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    int n = 0;
    char line[4096];
    while (n < cap && fgets(line, sizeof line, f)) {
        struct mon_fs fs = {0};
        bool rw;
        struct stat st;
        struct statvfs v;
        if (mon_parse_mounts_line(line, strlen(line), fs.mount, sizeof fs.mount, fs.type,
                                  sizeof fs.type, &rw) < 0 ||
            !rw || !mon_fs_type_stores_data(fs.type) || !strncmp(fs.mount, "/proc/", 6) ||
            !strncmp(fs.mount, "/sys/", 5) || stat(fs.mount, &st) < 0 ||
            !S_ISDIR(st.st_mode) || statvfs(fs.mount, &v) < 0 ||
            v.f_blocks == 0 || (v.f_flag & ST_RDONLY))
            continue;
        fs.dev = st.st_dev;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = out[k].dev == fs.dev;
        if (seen || mon_fs_space(&fs) < 0)
            continue;
        out[n++] = fs;
    }
    fclose(f);
    return n;
}

void mon_fs_json(const struct mon_fs *fs, int n, struct hw_buf *b)
{
    struct hw_json w;
    hw_json_init(&w, b, HW_JSON_LINE, HW_NUM_REPR);
    hw_json_open(&w, NULL, '[');
    for (int k = 0; k < n; k++) {
        hw_json_open(&w, NULL, '{');
        hw_json_str(&w, HW_FS_MOUNT, fs[k].mount);
        hw_json_str(&w, HW_FS_TYPE, fs[k].type);
        hw_json_num(&w, HW_FS_TOTAL, round(fs[k].total_mib * 10) / 10);
        hw_json_num(&w, HW_FS_USED, round(fs[k].used_mib * 10) / 10);
        hw_json_num(&w, HW_FS_FREE, round(fs[k].free_mib * 10) / 10);
        hw_json_close(&w);
    }
    hw_json_close(&w);
}
