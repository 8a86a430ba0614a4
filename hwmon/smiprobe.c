/* The start questions to nvidia-smi (see smiprobe.h). */
#include "smiprobe.h"

#include <inttypes.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/jsonw.h"
#include "hwrun/rundir.h"
#include "hwrun/io.h"
#include "hwrun/parse.h"
#include "hwrun/buf.h"
#include "launch.h"

static bool says_no_driver(const char *out)
{
    return strstr(out, "has failed") || strstr(out, "Failed to initialize NVML") ||
           strstr(out, "couldn't communicate with the NVIDIA driver") ||
           strstr(out, "No devices were found");
}

/* "KEY   : value" line of nvidia-smi --version. */
static bool version_value(const char *out, const char *key, char *val, size_t cap)
{
    for (const char *line = out; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        size_t kl = strlen(key);
        if (len > kl && strncmp(line, key, kl) == 0) {
            const char *c = memchr(line, ':', len);
            if (c) {
                c++;
                while (*c == ' ')
                    c++;
                size_t vl = (size_t)(line + len - c);
                while (vl && (c[vl - 1] == ' ' || c[vl - 1] == '\r'))
                    vl--;
                if (vl + 1 > cap)
                    vl = cap - 1;
                memcpy(val, c, vl);
                val[vl] = '\0';
                return vl > 0;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return false;
}

/* One line of `nvidia-smi -L`: a GPU ("GPU 0: NAME (UUID: GPU-...)") or, listed under it, one
 * of its MIG devices ("  MIG 1g.18gb     Device  0: (UUID: MIG-...)",
 * list-gpus_h200-mig_drv590.txt). false for anything else. */
struct list_line {
    bool gpu;
    long index;       /* a GPU's */
    const char *name; /* a GPU's */
    size_t name_len;
    const char *uuid; /* NULL when the line has none */
    size_t uuid_len;
};

static bool list_line(const char *line, size_t len, struct list_line *l)
{
    memset(l, 0, sizeof *l);
    const char *end = line + len, *colon = memchr(line, ':', len);
    l->gpu = len > 6 && !strncmp(line, "GPU ", 4);
    if (!colon || !(l->gpu || (len > 6 && !strncmp(line, "  MIG ", 6))))
        return false;
    const char *uu = memmem(line, len, " (UUID: ", 8);
    if (uu) {
        l->uuid = uu + 8;
        const char *ue = memchr(l->uuid, ')', (size_t)(end - l->uuid));
        l->uuid_len = (size_t)((ue ? ue : end) - l->uuid);
    }
    if (l->gpu) {
        int64_t ix;
        if (hw_scan_i64(line + 4, colon, &ix, NULL) != colon || ix < 0 || ix > INT32_MAX)
            return false; /* "GPU N:" or it is no GPU line */
        l->index = (long)ix;
        l->name = colon + 2 <= end ? colon + 2 : colon + 1;
        const char *name_end = uu ? uu : end;
        l->name_len = name_end > l->name ? (size_t)(name_end - l->name) : 0;
    }
    return true;
}

/* Call fn for each line of -L output; stop when it returns false. */
static void each_list_line(const char *out, bool (*fn)(void *, const struct list_line *),
                           void *ctx)
{
    for (const char *line = out; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        struct list_line l;
        if (list_line(line, len, &l) && !fn(ctx, &l))
            return;
        line = nl ? nl + 1 : NULL;
    }
}

struct gpu_json {
    struct hw_buf b;
    int n;
};

static bool put_gpu(void *ctx, const struct list_line *l)
{
    struct gpu_json *g = ctx;
    if (!l->gpu)
        return true;
    if (g->n++)
        hw_buf_puts(&g->b, ", ");
    hw_buf_printf(&g->b, "{\"index\": %ld, \"name\": ", l->index);
    hw_buf_json_str(&g->b, l->name, l->name_len);
    hw_buf_puts(&g->b, ", \"uuid\": ");
    if (l->uuid)
        hw_buf_json_str(&g->b, l->uuid, l->uuid_len);
    else
        hw_buf_puts(&g->b, "null");
    hw_buf_putc(&g->b, '}');
    return true;
}

void mon_smi_parse_gpu_list(const char *out, char *json, size_t cap)
{
    struct gpu_json g = {.n = 0};
    hw_buf_init(&g.b, json, cap);
    hw_buf_putc(&g.b, '[');
    each_list_line(out, put_gpu, &g);
    hw_buf_putc(&g.b, ']');
    if (g.b.heap || g.b.oom) { /* too many GPUs for the buffer: keep valid JSON */
        hw_buf_free(&g.b);
        snprintf(json, cap, "[]");
    }
}

/* The GPU a UUID names: its own line's, or the GPU a MIG device line naming it is under. */
struct find_uuid {
    const char *uuid;
    size_t len;
    long gpu, found;
};

static bool match_uuid(void *ctx, const struct list_line *l)
{
    struct find_uuid *f = ctx;
    if (l->gpu)
        f->gpu = l->index;
    if (l->uuid && l->uuid_len == f->len && !memcmp(l->uuid, f->uuid, f->len) && f->gpu >= 0) {
        f->found = f->gpu;
        return false;
    }
    return true;
}

/* nvidia-smi samples physical GPUs: a MIG device id (MIG-<uuid>, or the older
 * MIG-GPU-<uuid>/<gi>/<ci> that names its GPU) of the selection becomes its GPU's index, from
 * -L output. Other ids are kept, repeats dropped; an unknown MIG UUID is kept too (-i then says
 * it names nothing). */
static void map_mig(struct mon_gpusel *s, const char *list_out)
{
    if (!s->ids || !list_out)
        return;
    char out[sizeof s->mapped] = "";
    size_t o = 0;
    for (const char *p = s->ids; *p;) {
        size_t len = strcspn(p, ",");
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        if (!strncmp(item, "MIG-", 4)) {
            bool old = !strncmp(item, "MIG-GPU-", 8);
            struct find_uuid f = {old ? item + 4 : item, 0, -1, -1};
            f.len = old ? strcspn(f.uuid, "/") : strlen(f.uuid);
            each_list_line(list_out, match_uuid, &f);
            if (f.found >= 0)
                snprintf(item, sizeof item, "%ld", f.found);
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
        p += len + (p[len] == ',');
    }
    memcpy(s->mapped, out, sizeof out);
    s->ids = s->mapped;
}

static void strip_trailing_space(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

bool mon_smi_drop_field(char *list, const char *name, size_t nl)
{
    char *p = list;
    while (*p) {
        char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == nl && strncmp(p, name, nl) == 0) {
            if (c)
                memmove(p, c + 1, strlen(c + 1) + 1);
            else if (p > list)
                p[-1] = '\0';
            else
                *p = '\0';
            return true;
        }
        if (!c)
            break;
        p = c + 1;
    }
    return false;
}

bool mon_smi_driver_version(const char *out, char *val, size_t cap)
{
    char v[128];
    if (version_value(out, "DRIVER version", v, sizeof v) && strncmp(v, "Deprecated", 10) != 0)
        snprintf(val, cap, "%s", v);
    else if (version_value(out, "KMD version", v, sizeof v))
        snprintf(val, cap, "%s", v);
    else
        return false;
    return true;
}

bool mon_smi_rejected_field(const char *out, const char **name, size_t *len)
{
    const char *f = strstr(out, "Field \"");
    const char *e = f ? strstr(f + 7, "\" is not a valid field") : NULL;
    if (!e)
        return false;
    *name = f + 7;
    *len = (size_t)(e - *name);
    return true;
}

/* Do the selected ids name GPUs? nvidia-smi answers an unknown -i id with "No devices were
 * found" (exit 6): that is an error at start, not an empty hw_metrics.csv. The indexes it
 * prints go into the start event. Returns 0, or -1 with why set. */
static int probe_selection(struct mon_smi *p, char *why, size_t why_cap, char *out, size_t cap)
{
    const struct mon_gpusel *g = p->gsel;
    char *av[] = {p->path, "--query-gpu=index", "--format=csv,noheader,nounits",
                  "-i",    (char *)g->ids,      NULL};
    int st;
    int rc = mon_probe(p->path, av, p->envp, MON_PROBE_TIMEOUT_S, out, cap, &st);
    if (rc < 0 || st != 0) {
        if (rc == 0)
            strip_trailing_space(out);
        snprintf(why, why_cap, "%s=\"%s\" names no GPU here (nvidia-smi -i: %s)",
                 strcmp(g->source, "option") ? g->source : "--gpus", g->ids,
                 rc < 0   ? strerror(-rc)
                 : out[0] ? out
                          : "failed");
        return -1;
    }
    struct hw_buf b;
    hw_buf_init(&b, p->gpu_sel_json, sizeof p->gpu_sel_json);
    hw_buf_putc(&b, '[');
    int n = 0;
    for (const char *q = out; *q;) {
        const char *nl = strchr(q, '\n'), *le = nl ? nl : q + strlen(q);
        int64_t v;
        const char *e = hw_scan_i64(q, le, &v, NULL);
        while (e && e < le && (*e == ' ' || *e == '\r'))
            e++;
        if (e == le && v >= 0) /* a line that is one index */
            hw_buf_printf(&b, "%s%" PRId64, n++ ? ", " : "", v);
        q = nl ? nl + 1 : le;
    }
    hw_buf_putc(&b, ']');
    hw_buf_putc(&b, '\0');
    if (b.heap || b.oom) /* more GPUs than fit: leave the list out */
        p->gpu_sel_json[0] = '\0';
    hw_buf_free(&b);
    return 0;
}

/* Each id of the selection alone: those nvidia-smi takes stay selected, the others go to
 * gsel->unmapped. -1 when none is left. */
static int narrow_selection(struct mon_smi *p, char *out, size_t cap)
{
    struct mon_gpusel *g = p->gsel;
    char keep[sizeof g->mapped] = "", gone[sizeof g->unmapped] = "";
    for (const char *s = g->ids; *s;) {
        size_t len = strcspn(s, ",");
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)(len < sizeof id ? len : sizeof id - 1), s);
        char *av[] = {p->path, "--query-gpu=index", "--format=csv,noheader,nounits", "-i", id,
                      NULL};
        int st;
        bool ok = mon_probe(p->path, av, p->envp, MON_PROBE_TIMEOUT_S, out, cap, &st) == 0 &&
                  st == 0;
        char *to = ok ? keep : gone;
        size_t tl = strlen(to), tcap = ok ? sizeof keep : sizeof gone;
        snprintf(to + tl, tcap - tl, "%s%s", tl ? "," : "", id);
        s += len + (s[len] == ',');
    }
    snprintf(g->unmapped, sizeof g->unmapped, "%s", gone);
    if (!keep[0]) {
        g->ids = NULL;
        g->none = true;
        return -1;
    }
    snprintf(g->mapped, sizeof g->mapped, "%s", keep);
    g->ids = g->mapped;
    return 0;
}

int mon_smi_probe(struct mon_smi *p, const char *smi, char *why, size_t why_cap, char *outbuf,
                  size_t outcap)
{
    p->n_fb = 0;
    p->driver_version[0] = p->gpus_json[0] = p->gpu_sel_json[0] = '\0';
    int rc = mon_find_exec(smi, p->path, sizeof p->path);
    if (rc < 0) {
        snprintf(why, why_cap, "%s: %s", smi, rc == -ENOENT ? "not found" : strerror(-rc));
        outbuf[0] = '\0';
        return -1;
    }
    int st;
    char *av_ver[] = {p->path, "--version", NULL};
    rc = mon_probe(p->path, av_ver, p->envp, MON_PROBE_TIMEOUT_S, outbuf, outcap, &st);
    if (rc < 0) {
        snprintf(why, why_cap, "cannot run %s: %s", p->path, strerror(-rc));
        outbuf[0] = '\0';
        return -1;
    }
    if (st != 0 || says_no_driver(outbuf)) {
        if (st == 124)
            snprintf(why, why_cap, "%s --version did not answer within %g s", p->path,
                     MON_PROBE_TIMEOUT_S);
        else
            snprintf(why, why_cap, "%s --version failed (status %d)", p->path, st);
        strip_trailing_space(outbuf);
        return -1;
    }
    mon_smi_driver_version(outbuf, p->driver_version, sizeof p->driver_version);

    char *av_list[] = {p->path, "-L", NULL};
    rc = mon_probe(p->path, av_list, p->envp, MON_PROBE_TIMEOUT_S, outbuf, outcap, &st);
    if (rc == 0 && (st != 0 || says_no_driver(outbuf))) {
        snprintf(why, why_cap, "%s -L failed (status %d)", p->path, st);
        strip_trailing_space(outbuf);
        return -1;
    }
    if (rc == 0)
        mon_smi_parse_gpu_list(outbuf, p->gpus_json, sizeof p->gpus_json);
    if (p->gsel && p->gsel->ids) {
        map_mig(p->gsel, rc == 0 ? outbuf : NULL); /* MIG devices: their GPU */
        if (probe_selection(p, why, why_cap, outbuf, outcap) < 0) {
            if (!mon_gpusel_from_env(p->gsel))
                return -2;
            /* the job's own list: keep what names a GPU, the rest is unmeasured */
            if (narrow_selection(p, outbuf, outcap) < 0 ||
                probe_selection(p, why, why_cap, outbuf, outcap) < 0) {
                snprintf(why, why_cap, "%s=\"%s\" names no GPU here", p->gsel->source,
                         p->gsel->asked);
                return -1;
            }
        }
    }

    /* Does the driver take every field? An unknown one aborts the whole query with
     * `Field "x" is not a valid field to query.` on stdout (exit 2): drop it and ask again. */
    for (int tries = 0; tries < 16 && p->fields[0]; tries++) {
        char qarg[600];
        snprintf(qarg, sizeof qarg, "--query-gpu=%s", p->fields);
        char *av_q[] = {p->path, qarg, "--format=csv,noheader,nounits", NULL};
        rc = mon_probe(p->path, av_q, p->envp, MON_PROBE_TIMEOUT_S, outbuf, outcap, &st);
        if (rc < 0 || st == 0)
            break;
        const char *name;
        size_t nl;
        if (!mon_smi_rejected_field(outbuf, &name, &nl))
            break; /* some other failure: the query child will report it */
        if (!mon_smi_drop_field(p->fields, name, nl))
            break;
        if (p->n_fb < MON_SMI_MAX_FALLBACKS) {
            struct mon_gpu_fallback *x = &p->fb[p->n_fb++];
            snprintf(x->dropped, sizeof x->dropped, "%.*s", (int)nl, name);
            snprintf(x->fields, sizeof x->fields, "%s", p->fields);
        }
    }
    if (!p->fields[0]) {
        snprintf(why, why_cap, "the driver rejected every --query-gpu field");
        return -1;
    }
    return 0;
}

/* A GPU index as dmon prints it (and as a JSON number: no leading zero). */
static bool is_index(const char *s, size_t n)
{
    if (n == 0 || n > 5 || (n > 1 && s[0] == '0'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

int mon_smi_parse_gpm(const char *out, char *missing, size_t mcap)
{
    char mstore[512];
    struct hw_buf miss;
    hw_buf_init(&miss, mstore, sizeof mstore);
    int col = -1, have = 0, lacking = 0;
    for (const char *line = out; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        /* tokens of this line */
        const char *tok[64];
        size_t tl[64];
        int nt = 0;
        for (size_t i = 0; i < len && nt < 64;) {
            while (i < len && (line[i] == ' ' || line[i] == '\t'))
                i++;
            size_t b = i;
            while (i < len && line[i] != ' ' && line[i] != '\t')
                i++;
            if (i > b) {
                tok[nt] = line + b;
                tl[nt++] = i - b;
            }
        }
        if (nt >= 2 && tl[0] == 1 && tok[0][0] == '#' && tl[1] == 3 && !memcmp(tok[1], "gpu", 3)) {
            for (int i = 1; i < nt; i++)
                if (tl[i] == strlen(HW_GPM_PROBE_COLUMN) &&
                    !memcmp(tok[i], HW_GPM_PROBE_COLUMN, tl[i]))
                    col = i - 1; /* data rows have no '#' token */
        } else if (nt && col >= 0 && col < nt && is_index(tok[0], tl[0])) {
            /* a data row starts with the GPU's index; anything else is not one */
            if (tl[col] == 1 && tok[col][0] == '-') {
                hw_buf_puts(&miss, lacking++ ? ", " : "[");
                hw_buf_put(&miss, tok[0], tl[0]);
            } else {
                have++;
            }
        }
        line = eol ? eol + 1 : line + len;
    }
    if (mcap)
        missing[0] = '\0';
    if (lacking) {
        hw_buf_putc(&miss, ']');
        hw_buf_putc(&miss, '\0');
        /* more GPUs than fit: the list is cut, so say only how many */
        if (miss.len <= mcap)
            memcpy(missing, miss.p, miss.len);
        else
            snprintf(missing, mcap, "%d", lacking);
    }
    hw_buf_free(&miss);
    return col < 0 ? -1 : have;
}

/* Which GPUs have GPM? `dmon -s u --gpm-metrics 2 -c 1` prints one row per GPU; SM activity is
 * a number on a GPU with GPM and `-` on one without (GPU 0 of the H800 capture); a driver from
 * before GPM rejects the option. */
int mon_smi_probe_gpm(struct mon_smi *p, char *out, size_t cap)
{
    char *av[12] = {p->path,         "dmon",          "-s", HW_GPM_SELECT,
                    "--gpm-metrics", HW_GPM_PROBE_ID, "-c", "1"};
    int na = 8;
    if (p->gsel)
        mon_gpusel_args(p->gsel, av, &na);
    av[na] = NULL;
    p->gpm_missing[0] = '\0';
    int st;
    int rc = mon_probe(p->path, av, p->envp, MON_PROBE_TIMEOUT_S, out, cap, &st);
    if (rc < 0) {
        snprintf(p->gpm_why, sizeof p->gpm_why, "cannot run %s: %s", p->path, strerror(-rc));
        out[0] = '\0';
        return -1;
    }
    strip_trailing_space(out);
    if (st != 0) {
        snprintf(p->gpm_why, sizeof p->gpm_why, "%s dmon --gpm-metrics failed (status %d)", p->path,
                 st);
        return -1;
    }
    int have = mon_smi_parse_gpm(out, p->gpm_missing, sizeof p->gpm_missing);
    if (have <= 0) {
        p->gpm_missing[0] = '\0';
        snprintf(p->gpm_why, sizeof p->gpm_why, "%s",
                 have < 0 ? "dmon printed no smutil column" : "no GPU reports GPM metrics");
        return -1;
    }
    return 0;
}

/* Does the help text list field: `"field"` at the start of a line, or after `" or `. */
static bool help_lists(const char *help, const char *field)
{
    size_t n = strlen(field);
    for (const char *q = help; (q = strchr(q, '"')); q++) {
        if (strncmp(q + 1, field, n) != 0 || q[n + 1] != '"')
            continue;
        bool line_start = q == help || q[-1] == '\n';
        bool alias = q - help >= 4 && !strncmp(q - 4, "\" or ", 4);
        if (line_start || alias)
            return true;
    }
    return false;
}

int mon_smi_health_fields(const char *help, char *list, size_t cap)
{
    size_t len = 0;
    int n = 0;
    if (cap)
        list[0] = '\0';
    for (int k = 0; k < HW_HEALTH_COUNT; k++) {
        const char *f = hw_health_fields[k];
        if (!help_lists(help, f)) {
            if (k != HW_HEALTH_REASONS || !help_lists(help, HW_HEALTH_REASONS_OLD))
                continue;
            f = HW_HEALTH_REASONS_OLD;
        }
        size_t fl = strlen(f);
        if (len + (n > 0) + fl + 1 > cap) /* the list's room is the caller's: stop, whole */
            break;
        if (n++)
            list[len++] = ',';
        memcpy(list + len, f, fl + 1);
        len += fl;
    }
    return n;
}

int mon_smi_probe_health(struct mon_smi *p)
{
    p->health[0] = '\0';
    size_t cap = 256 * 1024; /* 35 KB on driver 610, and growing */
    char *out = malloc(cap);
    if (!out) {
        snprintf(p->health_why, sizeof p->health_why, "out of memory");
        return -1;
    }
    char *av[] = {p->path, "--help-query-gpu", NULL};
    int st;
    int rc = mon_probe(p->path, av, p->envp, MON_PROBE_TIMEOUT_S, out, cap, &st);
    if (rc < 0 || st != 0) {
        snprintf(p->health_why, sizeof p->health_why, "nvidia-smi --help-query-gpu failed (%s %d)",
                 rc < 0 ? "error" : "status", rc < 0 ? -rc : st);
        free(out);
        return -1;
    }
    int n = mon_smi_health_fields(out, p->health, sizeof p->health);
    free(out);
    if (n <= 0) {
        snprintf(p->health_why, sizeof p->health_why,
                 "--help-query-gpu lists none of its fields");
        return -1;
    }
    return 0;
}
