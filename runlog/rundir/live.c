/* The live state of a run directory (live.h). */
#include "live.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"

const enum hw_cpu_col rd_live_io_cols[4] = {HW_CPU_COL_DISK_READ, HW_CPU_COL_DISK_WRITE,
                                            HW_CPU_COL_NET_RX, HW_CPU_COL_NET_TX};

static const enum hw_file src_kind[RD_LIVE_SRC_COUNT] = {
    [RD_LIVE_LOG] = HW_FILE_RUNLOG, [RD_LIVE_GPU] = HW_FILE_GPU,   [RD_LIVE_GPM] = HW_FILE_GPM,
    [RD_LIVE_HEALTH] = HW_FILE_HEALTH, [RD_LIVE_CPU] = HW_FILE_CPU, [RD_LIVE_PROC] = HW_FILE_PROC,
    [RD_LIVE_ENERGY] = HW_FILE_ENERGY,
};

/* nvidia-smi's files: read once the log says how they are written */
static bool src_waits_for_log(enum rd_live_src s)
{
    return s == RD_LIVE_GPU || s == RD_LIVE_GPM || s == RD_LIVE_HEALTH;
}

static void seen_time(struct rd_live *l, double t)
{
    if (!isfinite(t))
        return;
    if (!isfinite(l->t_first) || t < l->t_first)
        l->t_first = t;
    if (!isfinite(l->t_last) || t > l->t_last)
        l->t_last = t;
}

static struct rd_live_gpu *gpu_of(struct rd_live *l, int g)
{
    if (g < 0 || g >= RD_MAX_GPUS)
        return NULL;
    struct rd_live_gpu *x = &l->gpu[g];
    if (!x->seen) {
        x->seen = true;
        rd_energy_init(&x->energy);
        rd_ecount_init(&x->counter);
        rd_idle_init(&x->idle);
        for (int i = 0; i < RD_LIVE_HIST; i++)
            x->hist_sec[i] = INT64_MIN;
        for (int i = 0; i < HW_GPU_FIG_COUNT; i++)
            x->v[i] = NAN;
        if (g + 1 > l->ngpus)
            l->ngpus = g + 1;
    }
    return x;
}

static void hist_add(struct rd_live_gpu *x, double t, double util, double power)
{
    if (!(fabs(t) < 1e15)) /* NAN, or no time an integer second can hold */
        return;
    int64_t sec = (int64_t)floor(t);
    int slot = (int)(((sec % RD_LIVE_HIST) + RD_LIVE_HIST) % RD_LIVE_HIST);
    if (x->hist_sec[slot] != sec) {
        if (x->hist_sec[slot] > sec)
            return; /* older than the minute held */
        x->hist_sec[slot] = sec;
        x->util_sum[slot] = x->power_sum[slot] = 0;
        x->util_n[slot] = x->power_n[slot] = 0;
    }
    if (isfinite(util) && x->util_n[slot] < UINT16_MAX) {
        x->util_sum[slot] += (float)util;
        x->util_n[slot]++;
    }
    if (isfinite(power) && x->power_n[slot] < UINT16_MAX) {
        x->power_sum[slot] += (float)power;
        x->power_n[slot]++;
    }
}

void rd_live_history(const struct rd_live_gpu *g, bool power, int64_t now,
                     double out[RD_LIVE_HIST])
{
    for (int i = 0; i < RD_LIVE_HIST; i++) {
        int64_t sec = now - (RD_LIVE_HIST - 1) + i;
        int slot = (int)(((sec % RD_LIVE_HIST) + RD_LIVE_HIST) % RD_LIVE_HIST);
        uint16_t n = power ? g->power_n[slot] : g->util_n[slot];
        out[i] = g->seen && g->hist_sec[slot] == sec && n
                     ? (power ? g->power_sum[slot] : g->util_sum[slot]) / n
                     : NAN;
    }
}

static void on_gpu(void *ctx, const struct rd_gpu_row *r)
{
    struct rd_live *l = ctx;
    struct rd_live_gpu *x = gpu_of(l, r->gpu);
    if (!x)
        return;
    seen_time(l, r->t);
    x->t = r->t;
    memcpy(x->v, r->v, sizeof x->v);
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        x->measured[m] |= isfinite(r->v[m]);
    x->power_seen |= isfinite(r->v[HW_GM_POWER]);
    /* summarize's curve: the gap rule's interval from the GPU's first rows, the given one only
     * when there is a single row */
    double hint = l->opts.interval_s > 0 ? l->opts.interval_s : l->info.interval_s;
    rd_energy_add(&x->energy, r->t, r->v[HW_GM_POWER], hint, NULL, NULL);
    rd_idle_row(&x->idle, r->t, r->v[HW_GM_UTIL], r->v[HW_GM_POWER],
                isfinite(x->energy.interval_s) ? x->energy.interval_s : hint, l->opts.idle_pct);
    hist_add(x, r->t, r->v[HW_GM_UTIL], r->v[HW_GM_POWER]);
}

static void on_gpm(void *ctx, const struct rd_dmon_row *r)
{
    struct rd_live *l = ctx;
    struct rd_live_gpu *x = gpu_of(l, r->gpu);
    if (!x)
        return;
    x->gpm_seen = true;
    for (int k = 0; k < HW_GPM_NCOLS; k++)
        x->gpm[k] = r->v[RD_DM_GPM_FIRST + k];
}

static void on_health(void *ctx, const struct rd_health_row *r)
{
    struct rd_live *l = ctx;
    struct rd_live_gpu *x = gpu_of(l, r->gpu);
    if (!x)
        return;
    if (!x->health_seen)
        memcpy(x->health_first, r->v, sizeof x->health_first);
    x->health_seen = true;
    memcpy(x->health, r->v, sizeof x->health);
}

static void on_energy(void *ctx, const struct rd_energy_row *r)
{
    struct rd_live *l = ctx;
    struct rd_live_gpu *x = isfinite(r->mj) ? gpu_of(l, r->gpu) : NULL;
    if (x)
        rd_ecount_add(&x->counter, r->t, r->mj);
}

double rd_live_gpu_energy_j(const struct rd_live_gpu *g)
{
    return rd_energy_pick(g->counter.rows >= 2 ? g->counter.mj / 1000.0 : NAN, NAN,
                          g->power_seen ? g->energy.joules : NAN, NULL);
}

static void on_cpu(void *ctx, const struct rd_cpu_row *r)
{
    struct rd_live *l = ctx;
    seen_time(l, r->t);
    double dt = l->cpu_seen ? r->t - l->cpu_t : NAN;
    memcpy(l->cpu, r->v, sizeof l->cpu);
    for (int i = 0; i < 4; i++) {
        double v = r->v[rd_live_io_cols[i]];
        if (isfinite(v))
            l->io_total[i] = (isnan(l->io_total[i]) ? 0 : l->io_total[i]) + v;
        l->io_rate[i] = dt > 0 && isfinite(v) ? v / dt : NAN;
    }
    l->cpu_seen = true;
    l->cpu_t = r->t;
}

static void on_proc(void *ctx, const struct rd_proc_row *r)
{
    struct rd_live *l = ctx;
    seen_time(l, r->t);
    memcpy(l->proc, r->v, sizeof l->proc);
    l->proc_seen = true;
    l->proc_t = r->t;
}

static void copy_phase(struct rd_live_phase *dst, const struct rd_phase *p)
{
    snprintf(dst->name, sizeof dst->name, "%s", p->name);
    snprintf(dst->id, sizeof dst->id, "%s", p->id ? p->id : "");
    dst->t_start = p->t_start;
    dst->seconds = p->seconds;
    long steps;
    dst->steps = rd_json_int(p->obj, HW_PHASE_STEPS, &steps) && steps >= 0 ? (double)steps : NAN;
    int es, sig;
    dst->failed = p->seconds >= 0 && rd_phase_failed(p, &es, &sig); /* not a begin entry */
}

static struct rd_live_name *name_slot(struct rd_live *l, const char *name, bool add)
{
    for (int i = 0; i < l->nnames; i++)
        if (!strcmp(l->names[i].name, name))
            return &l->names[i];
    if (!add || l->nnames == RD_LIVE_NAMES)
        return NULL;
    struct rd_live_name *n = &l->names[l->nnames++];
    snprintf(n->name, sizeof n->name, "%s", name);
    return n;
}

const struct rd_live_name *rd_live_name(const struct rd_live *l, const char *name)
{
    return name_slot((struct rd_live *)l, name, false);
}

const struct rd_live_phase *rd_live_current(const struct rd_live *l)
{
    return l->nopen ? &l->open[l->nopen - 1] : NULL;
}

static void on_phase(void *ctx, const struct rd_phase *p)
{
    struct rd_live *l = ctx;
    l->entries++;
    seen_time(l, p->t_end);
    l->phases++;
    for (int i = l->nopen; p->id && i-- > 0;)
        if (!strcmp(l->open[i].id, p->id)) {
            memmove(&l->open[i], &l->open[i + 1], (size_t)(l->nopen - i - 1) * sizeof l->open[0]);
            l->nopen--;
            break;
        }
    /* its duration joins its name's, after the view read the previous ones */
    struct rd_live_name *n = name_slot(l, p->name, true);
    if (n) {
        if (n->nprev == RD_LIVE_PREV) {
            memmove(&n->prev[0], &n->prev[1], (RD_LIVE_PREV - 1) * sizeof n->prev[0]);
            n->nprev--;
        }
        n->prev[n->nprev++] = p->seconds;
        n->count++;
    }
    if (l->nrecent == RD_LIVE_RECENT) {
        memmove(&l->recent[0], &l->recent[1], (RD_LIVE_RECENT - 1) * sizeof l->recent[0]);
        l->nrecent--;
    }
    struct rd_live_phase *x = &l->recent[l->nrecent++];
    copy_phase(x, p);
    /* a failed phase's steps were planned, not done (summarize's count, sink_phases.c sum_on_phase) */
    if (isfinite(x->steps) && x->steps > 0 && !x->failed) {
        l->steps += x->steps;
        l->step_rate = p->seconds > 0 ? x->steps / p->seconds : NAN;
    }
    if (l->opts.tap && l->opts.tap->phase)
        l->opts.tap->phase(l->opts.tap->ctx, p);
}

static void on_phase_begin(void *ctx, const struct rd_phase *p)
{
    struct rd_live *l = ctx;
    l->entries++;
    seen_time(l, p->t_start);
    if (l->nopen == RD_LIVE_MAX_OPEN) { /* the outermost goes: the current one is the inner */
        memmove(&l->open[0], &l->open[1], (RD_LIVE_MAX_OPEN - 1) * sizeof l->open[0]);
        l->nopen--;
    }
    copy_phase(&l->open[l->nopen++], p);
    if (l->opts.tap && l->opts.tap->phase_begin)
        l->opts.tap->phase_begin(l->opts.tap->ctx, p);
}

static void on_event(void *ctx, const struct rd_event *e)
{
    struct rd_live *l = ctx;
    l->entries++;
    l->events++;
    seen_time(l, e->t);
    rd_run_info_event(&l->info, e);
    if (l->opts.tap && l->opts.tap->event)
        l->opts.tap->event(l->opts.tap->ctx, e);
}

static void on_diag(void *ctx, const char *name, uint64_t line, const char *reason)
{
    struct rd_live *l = ctx;
    if (l->opts.tap && l->opts.tap->diag)
        l->opts.tap->diag(l->opts.tap->ctx, name, line, reason);
}

int rd_live_open(struct rd_live *l, const char *dir, const struct rd_live_opts *opts)
{
    memset(l, 0, sizeof *l);
    l->opened = true;
    l->dirfd = -1;
    for (int i = 0; i < RD_LIVE_SRC_COUNT; i++)
        l->src[i].fd = -1;
    int n = snprintf(l->dir, sizeof l->dir, "%s", dir);
    if (n < 0 || (size_t)n >= sizeof l->dir)
        return -ENAMETOOLONG;
    if (opts)
        l->opts = *opts;
    else
        l->opts.interval_s = NAN;
    if (l->opts.gpu_fields) {
        snprintf(l->gpu_fields, sizeof l->gpu_fields, "%s", l->opts.gpu_fields);
        l->opts.gpu_fields = l->gpu_fields;
    }
    rd_run_info_init(&l->info);
    l->t_first = l->t_last = NAN;
    l->step_rate = NAN;
    for (int i = 0; i < HW_CPU_COL_COUNT; i++)
        l->cpu[i] = NAN;
    for (int i = 0; i < HW_PROC_COL_COUNT; i++)
        l->proc[i] = NAN;
    for (int i = 0; i < 4; i++)
        l->io_total[i] = l->io_rate[i] = NAN;
    l->ropts.max_line = l->opts.max_line;
    if (l->opts.gpu_fields)
        l->ropts.gpu_fields = l->gpu_fields;
    rd_tz_parse("UTC", false, &l->ropts.tz); /* hwmon runs nvidia-smi with TZ=UTC */
    l->sink = (struct rd_sink){.ctx = l, .gpu = on_gpu, .dmon = on_gpm, .health = on_health,
                               .cpu = on_cpu, .proc = on_proc, .energy = on_energy,
                               .phase = on_phase,
                               .phase_begin = on_phase_begin, .event = on_event,
                               .diag = on_diag};
    /* the log and our own CSVs are read as they come; nvidia-smi's wait (rd_live_update) */
    for (int i = 0; i < RD_LIVE_SRC_COUNT; i++) {
        if (src_waits_for_log(i) && !l->opts.gpu_fields)
            continue;
        l->src[i].r = rd_reader_new(src_kind[i], hw_file_names[src_kind[i]], &l->ropts, &l->sink,
                                    &l->src[i].q);
        if (!l->src[i].r) {
            rd_live_close(l);
            return -ENOMEM;
        }
    }
    return 0;
}

/* Open src i when its file exists; 1 when open, 0 when not there (yet), or -errno. The log's
 * earlier parts, when it was rotated before we came, are read first (rotation.c). */
static int open_src(struct rd_live *l, int i)
{
    if (l->src[i].fd >= 0)
        return 1;
    int fd = hw_open_file(l->dirfd, hw_file_names[src_kind[i]], HW_OPEN_READ);
    if (fd == -ENOENT)
        return 0;
    if (fd < 0)
        return fd;
    l->src[i].fd = fd;
    if (i == RD_LIVE_LOG) {
        char path[sizeof l->dir + 64];
        struct rd_quality q = {0};
        uint64_t lines;
        snprintf(path, sizeof path, "%s/%s", l->dir, hw_file_names[src_kind[i]]);
        (void)rd_log_read_parts(path, fd, &l->ropts, &l->sink, &q, &lines);
        rd_reader_set_line_base(l->src[i].r, lines);
    }
    return 1;
}

/* The log kept to its name (rotation.c): cut short, or another file under it (the old one was
 * read to its end), it is read again from its start by a new reader. */
static int keep_log_name(struct rd_live *l, int i)
{
    struct rd_log_move m;
    int k = rd_log_moved(l->dirfd, hw_file_names[src_kind[i]], l->src[i].fd, &m);
    if (k == RD_LOG_SAME)
        return 0;
    if (k == RD_LOG_REPLACED) {
        close(l->src[i].fd);
        l->src[i].fd = m.fd;
    }
    rd_reader_free(l->src[i].r);
    l->src[i].r = rd_reader_new(src_kind[i], hw_file_names[src_kind[i]], &l->ropts, &l->sink,
                                &l->src[i].q);
    return l->src[i].r ? 1 : -ENOMEM;
}

/* Feed what src i gained since the last call (the descriptor's offset remembers where). */
static int follow(struct rd_live *l, int i, char *chunk, size_t cap)
{
    int rc = open_src(l, i);
    if (rc <= 0)
        return rc;
    for (;;) {
        ssize_t n = read(l->src[i].fd, chunk, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) {
            if (i != RD_LIVE_LOG || (rc = keep_log_name(l, i)) <= 0)
                return rc;
            continue; /* the file the name reaches now, from its start */
        }
        l->bytes += (uint64_t)n;
        if (rd_reader_feed(l->src[i].r, chunk, (size_t)n) < 0)
            return -ENOMEM;
    }
}

/* nvidia-smi's files can be read once the log said how they are written (the start event,
 * which hwmon writes before its children start), or when the GPU file stood before a log
 * without a start event was read (not hwmon's: pytyche's layout, a header or a known width). */
static int make_smi_readers(struct rd_live *l, bool gpu_file_before)
{
    if (l->src[RD_LIVE_GPU].r)
        return 0;
    if (!l->info.starts && !gpu_file_before)
        return 0;
    if (l->info.have_fields) {
        snprintf(l->gpu_fields, sizeof l->gpu_fields, "%s", l->info.gpu_fields);
        l->ropts.gpu_fields = l->gpu_fields;
    }
    if (l->info.have_tz)
        l->ropts.tz = l->info.tz;
    for (int i = 0; i < RD_LIVE_SRC_COUNT; i++)
        if (src_waits_for_log(i)) {
            l->src[i].r = rd_reader_new(src_kind[i], hw_file_names[src_kind[i]], &l->ropts,
                                        &l->sink, &l->src[i].q);
            if (!l->src[i].r)
                return -ENOMEM;
        }
    return 0;
}

int rd_live_update(struct rd_live *l)
{
    if (l->dirfd < 0) {
        l->dirfd = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
        if (l->dirfd < 0)
            return errno == ENOENT ? 0 : -errno; /* a run not begun yet */
    }
    char chunk[65536];
    int rc = 0;
    bool gpu_file_before = false;
    if (!l->src[RD_LIVE_GPU].r) /* looked at before the log is read: see make_smi_readers */
        gpu_file_before = faccessat(l->dirfd, hw_file_names[HW_FILE_GPU], F_OK,
                                    AT_SYMLINK_NOFOLLOW) == 0;
    for (int i = 0; i < RD_LIVE_SRC_COUNT; i++) {
        if (i == RD_LIVE_LOG + 1) {
            int e = make_smi_readers(l, gpu_file_before);
            if (e < 0)
                return e;
        }
        if (!l->src[i].r)
            continue;
        int e = follow(l, i, chunk, sizeof chunk);
        if (e < 0 && !rc)
            rc = e;
    }
    l->updates++;
    return rc;
}

void rd_live_close(struct rd_live *l)
{
    if (!l->opened) /* zeroed: its descriptors are not ours */
        return;
    for (int i = 0; i < RD_LIVE_SRC_COUNT; i++) {
        if (l->src[i].fd >= 0)
            close(l->src[i].fd);
        l->src[i].fd = -1;
        rd_reader_free(l->src[i].r);
        l->src[i].r = NULL;
    }
    if (l->dirfd >= 0)
        close(l->dirfd);
    l->dirfd = -1;
}
