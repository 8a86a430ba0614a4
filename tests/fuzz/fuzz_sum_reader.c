/* libFuzzer target for one summarize reader (SUM_FUZZ_KIND, set by tests/fuzz/summarize.cmake):
 * the input is fed in chunks whose sizes come from its first byte, so line assembly across
 * chunk boundaries is exercised too. Checks that every row respects the readers.h contract. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_gpu(void *ctx, const struct rd_gpu_row *r)
{
    (void)ctx;
    if (r->gpu < 0 || (r->uuid && strlen(r->uuid) > (1u << 20)))
        abort();
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        if (isinf(r->v[m]))
            abort(); /* finite or NAN only */
}

static void check_dmon(void *ctx, const struct rd_dmon_row *r)
{
    (void)ctx;
    for (size_t i = 0; i < r->ncols; i++)
        if (!r->names[i] || isinf(r->vals[i]))
            abort();
}

static void check_gp(void *ctx, const struct rd_gpu_proc_row *r)
{
    (void)ctx;
    if (r->name && strlen(r->name) >= 4096)
        abort();
}

static void check_phase(void *ctx, const struct rd_phase *p)
{
    (void)ctx;
    if (!p->name || !(p->seconds >= 0) || !p->obj)
        abort();
}

static void check_event(void *ctx, const struct rd_event *e)
{
    struct rd_run_info *info = ctx;
    if (!e->name || !e->obj)
        abort();
    rd_run_info_event(info, e);
}

static void check_health(void *ctx, const struct rd_health_row *r)
{
    (void)ctx;
    if (r->gpu < 0 || isnan(r->t))
        abort();
    for (int k = 0; k < HW_HEALTH_COUNT; k++)
        if (isinf(r->v[k]))
            abort(); /* finite or NAN only */
}

static void check_energy(void *ctx, const struct rd_energy_row *r)
{
    (void)ctx;
    if (isinf(r->mj) || r->gpu < -1)
        abort();
}

static void check_pmon(void *ctx, const struct rd_pmon_row *r)
{
    (void)ctx;
    if (r->gpu < 0 || isinf(r->sm) || isinf(r->mem) || isinf(r->fb) || r->pid < -1)
        abort();
}

static void diag(void *ctx, const char *name, uint64_t line, const char *reason)
{
    (void)ctx, (void)name, (void)line;
    if (!reason || !*reason)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rd_run_info info;
    rd_run_info_init(&info);
    struct rd_sink sink = {.ctx = &info, .gpu = check_gpu, .dmon = check_dmon,
                            .gpu_proc = check_gp, .phase = check_phase, .event = check_event,
                            .health = check_health, .energy = check_energy,
                            .pmon = check_pmon, .diag = diag};
    struct rd_read_opts opts = {.max_line = 4096};
    if (size && data[0] & 0x80)
        opts.gpu_fields = "timestamp,index,utilization.gpu,power.draw,uuid";
    if (size && data[0] & 0x40)
        rd_tz_parse("-08:00", false, &opts.tz);
    size_t step = size ? 1 + (data[0] & 0x3f) * 7 : 1;
    struct rd_quality q;
    struct rd_reader *r = rd_reader_new(SUM_FUZZ_KIND, "fuzz", &opts, &sink, &q);
    if (!r)
        return 0;
    for (size_t i = 1; i < size; i += step)
        rd_reader_feed(r, data + i, size - i < step ? size - i : step);
    rd_reader_finish(r);
    rd_reader_free(r);
    if (q.parsed + rd_quality_skipped_total(&q) + q.headers + q.blank != q.lines)
        abort(); /* every complete line is accounted for exactly once */
    return 0;
}
