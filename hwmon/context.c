/* Where a run runs, and -o's placeholders (context.h). */
#include "context.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/jsonw.h"
#include "hwrun/buf.h"

extern char **environ;

void mon_context_parse(struct mon_context *c, const char *env, size_t n, const char *host)
{
    memset(c, 0, sizeof *c);
    snprintf(c->v[HW_CTX_HOST], MON_CTX_VALUE, "%s", host ? host : "");
    int found[HW_CTX_COUNT];
    for (int k = 0; k < HW_CTX_COUNT; k++)
        found[k] = 4; /* the rank of the variable that set it (lower wins) */
    for (size_t i = 0; i < n;) {
        const char *s = env + i;
        size_t len = strnlen(s, n - i);
        const char *eq = memchr(s, '=', len);
        if (eq) {
            size_t nl = (size_t)(eq - s);
            for (int k = 0; k < HW_CTX_COUNT; k++)
                for (int j = 0; j < found[k] && hw_ctx_defs[k].env[j]; j++)
                    if (strlen(hw_ctx_defs[k].env[j]) == nl &&
                        !memcmp(s, hw_ctx_defs[k].env[j], nl)) {
                        found[k] = j;
                        if (k == HW_CTX_K8S) /* set at all: inside a pod */
                            snprintf(c->v[k], MON_CTX_VALUE, "true");
                        else
                            snprintf(c->v[k], MON_CTX_VALUE, "%.*s",
                                     (int)(len - nl - 1 < MON_CTX_VALUE - 1
                                               ? len - nl - 1
                                               : MON_CTX_VALUE - 1),
                                     eq + 1);
                        break;
                    }
        }
        i += len + 1;
    }
}

void mon_context_self(struct mon_context *c, const char *host)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    for (char **e = environ; e && *e; e++) {
        hw_buf_puts(&b, *e);
        hw_buf_putc(&b, '\0');
    }
    mon_context_parse(c, b.oom ? "" : b.p ? b.p : "", b.oom ? 0 : b.len, host);
    hw_buf_free(&b);
}

int mon_context_of_pid(struct mon_context *c, const char *proc_root, pid_t pid, const char *host)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%d/environ", proc_root, (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    char chunk[8192];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            hw_buf_free(&b);
            return -e;
        }
        if (n == 0 || b.len > (1u << 20)) /* an environment is not a megabyte */
            break;
        hw_buf_put(&b, chunk, (size_t)n);
    }
    close(fd);
    if (b.oom) {
        hw_buf_free(&b);
        return -ENOMEM;
    }
    mon_context_parse(c, b.p ? b.p : "", b.len, host);
    hw_buf_free(&b);
    return 0;
}

void mon_context_json(const struct mon_context *c, struct hw_buf *b)
{
    struct hw_json w;
    hw_json_init(&w, b, HW_JSON_LINE, HW_NUM_REPR);
    hw_json_open(&w, NULL, '{');
    for (int k = 0; k < HW_CTX_COUNT; k++)
        if (c->v[k][0])
            hw_json_str(&w, hw_ctx_defs[k].key, c->v[k]);
    hw_json_close(&w);
}

const char *mon_context_job(const struct mon_context *c, char *buf, size_t cap)
{
    if (c->v[HW_CTX_SLURM_ARRAY_JOB_ID][0] && c->v[HW_CTX_SLURM_ARRAY_TASK_ID][0]) {
        snprintf(buf, cap, "%s_%s", c->v[HW_CTX_SLURM_ARRAY_JOB_ID],
                 c->v[HW_CTX_SLURM_ARRAY_TASK_ID]);
        return buf;
    }
    return c->v[HW_CTX_SLURM_JOB_ID];
}

/* A placeholder's value, or NULL when it is not one. */
static const char *placeholder(const char *name, size_t n, const struct mon_context *c,
                               const char *time_utc, pid_t pid, char *buf, size_t cap)
{
#define IS(s) (n == sizeof(s) - 1 && !memcmp(name, s, n))
    if (IS("host"))
        return c->v[HW_CTX_HOST];
    if (IS("jobid"))
        return mon_context_job(c, buf, cap);
    if (IS("nodeid"))
        return c->v[HW_CTX_SLURM_NODE_ID];
    if (IS("node")) /* SLURM's node name, else the host's */
        return c->v[HW_CTX_SLURM_NODE_NAME][0] ? c->v[HW_CTX_SLURM_NODE_NAME] : c->v[HW_CTX_HOST];
    if (IS("stepid")) /* a batch script's processes have a job but no step: SLURM's "batch" */
        return c->v[HW_CTX_SLURM_STEP_ID][0] || !c->v[HW_CTX_SLURM_JOB_ID][0]
                   ? c->v[HW_CTX_SLURM_STEP_ID]
                   : "batch";
    if (IS("rank"))
        return c->v[HW_CTX_RANK][0] ? c->v[HW_CTX_RANK] : c->v[HW_CTX_SLURM_PROC_ID];
    if (IS("localrank"))
        return c->v[HW_CTX_LOCAL_RANK][0] ? c->v[HW_CTX_LOCAL_RANK] : c->v[HW_CTX_SLURM_LOCAL_ID];
    if (IS("localid")) /* SLURM's name (SLURM_LOCALID) first */
        return c->v[HW_CTX_SLURM_LOCAL_ID][0] ? c->v[HW_CTX_SLURM_LOCAL_ID] : c->v[HW_CTX_LOCAL_RANK];
    if (IS("restart")) /* a requeued job's attempt: SLURM sets it from the first requeue on */
        return c->v[HW_CTX_SLURM_RESTART_COUNT][0] ? c->v[HW_CTX_SLURM_RESTART_COUNT] : "0";
    if (IS("time"))
        return time_utc;
    if (IS("pid")) {
        snprintf(buf, cap, "%d", (int)pid);
        return buf;
    }
    return NULL;
#undef IS
}

int mon_expand_output(const char *pattern, const struct mon_context *c, const char *time_utc,
                      pid_t pid, char *out, size_t cap, int *unset, char *err, size_t errlen)
{
    size_t o = 0;
    *unset = 0;
    for (const char *p = pattern; *p;) {
        char ch = *p;
        if (ch == '{') {
            const char *end = strchr(p + 1, '}');
            if (!end) {
                snprintf(err, errlen, "'{' without '}' in -o %s", pattern);
                return -1;
            }
            char buf[2 * MON_CTX_VALUE];
            const char *v = placeholder(p + 1, (size_t)(end - p - 1), c, time_utc, pid, buf,
                                        sizeof buf);
            if (!v) {
                snprintf(err, errlen,
                         "unknown placeholder {%.*s} in -o (host, node, jobid, stepid, "
                         "nodeid, rank, localrank, localid, restart, time, pid)",
                         (int)(end - p - 1), p + 1);
                return -1;
            }
            if (!*v) {
                v = "none";
                ++*unset;
            }
            /* "." or "..": a path step, not a name; written '_' so the run stays where the
             * pattern puts it */
            bool dots = v[strspn(v, ".")] == '\0';
            for (; *v; v++) {
                if (o + 1 >= cap)
                    goto too_long;
                out[o++] = hw_name_byte(*v) && !dots ? *v : '_';
            }
            p = end + 1;
            continue;
        }
        if (o + 1 >= cap)
            goto too_long;
        out[o++] = ch;
        p++;
    }
    out[o] = '\0';
    return 0;
too_long:
    snprintf(err, errlen, "-o %s is too long once expanded", pattern);
    return -1;
}
