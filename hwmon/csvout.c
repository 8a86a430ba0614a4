/* CSV lines for hwmon's own files. Hand-rolled number formatting: it runs every sample, and
 * printf's double formatting costs more than the rest of the line put together. */
#include "csvout.h"

#include <math.h>
#include <string.h>

#include "hwrun/cpucols.h"
#include "hwrun/proccols.h"

void mon_buf_u64(struct hw_buf *b, uint64_t v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    hw_buf_put(b, tmp + i, sizeof tmp - (size_t)i);
}

void mon_buf_fixed1(struct hw_buf *b, double x)
{
    if (!isfinite(x) || fabs(x) > 1e17)
        return;
    long long t = llround(x * 10.0);
    if (t < 0) {
        hw_buf_putc(b, '-');
        t = -t;
    }
    mon_buf_u64(b, (uint64_t)t / 10);
    hw_buf_putc(b, '.');
    hw_buf_putc(b, (char)('0' + (uint64_t)t % 10));
}

void mon_csv_cpu_header(struct hw_buf *b, bool cgroup)
{
    hw_buf_puts(b, HW_CPU_BASE_HEADER);
    if (cgroup)
        hw_buf_puts(b, HW_CPU_CG_HEADER);
    hw_buf_puts(b, HW_CPU_IO_HEADER);
    hw_buf_putc(b, '\n');
}

void mon_csv_proc_header(struct hw_buf *b, bool pss)
{
    hw_buf_puts(b, "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes");
    if (pss)
        hw_buf_puts(b, ",pss_mib");
    hw_buf_puts(b, HW_PROC_EXTRA_HEADER);
    hw_buf_putc(b, '\n');
}

static void cell(struct hw_buf *b, bool have, double v)
{
    hw_buf_putc(b, ',');
    if (have)
        mon_buf_fixed1(b, v);
}

static void ucell(struct hw_buf *b, bool have, uint64_t v)
{
    hw_buf_putc(b, ',');
    if (have)
        mon_buf_u64(b, v);
}

void mon_csv_cpu_line(struct hw_buf *b, const char *iso, const struct mon_sys_sample *s,
                      bool cgroup)
{
    hw_buf_puts(b, iso);
    cell(b, s->have_cpu, s->usr_pct);
    cell(b, s->have_cpu, s->idle_pct);
    cell(b, s->have_cpu, s->sys_pct);
    cell(b, s->have_cpu, s->iowait_pct);
    cell(b, s->have_cpu, s->steal_pct);
    cell(b, s->have_mem, s->mem_used_mib);
    cell(b, s->have_mem, s->mem_avail_mib);
    if (cgroup) { /* HW_CPU_CG_HEADER's columns, in its order */
        hw_buf_putc(b, ',');
        if (s->cg.have_limit) /* cores: two decimals matter (0.25 cores) */
            hw_buf_printf(b, "%.2f", s->cg.limit_cores);
        cell(b, s->cg.have_cpu, s->cg.cpu_pct);
        cell(b, s->cg.have_mem, s->cg.mem_cur_mib);
        cell(b, s->cg.have_mem_max, s->cg.mem_max_mib);
        cell(b, s->cg.have_mem_peak, s->cg.mem_peak_mib);
    }
    /* HW_CPU_IO_HEADER's */
    ucell(b, s->io.have_disk, s->io.disk_read_bytes);
    ucell(b, s->io.have_disk, s->io.disk_write_bytes);
    ucell(b, s->io.have_net, s->io.net_rx_bytes);
    ucell(b, s->io.have_net, s->io.net_tx_bytes);
    cell(b, s->io.have_fs, s->io.fs_free_mib);
    hw_buf_putc(b, '\n');
}

void mon_csv_proc_line(struct hw_buf *b, const char *iso, const struct mon_tree_sample *s, bool pss)
{
    hw_buf_puts(b, iso);
    hw_buf_putc(b, ',');
    mon_buf_u64(b, s->procs);
    hw_buf_putc(b, ',');
    mon_buf_u64(b, s->threads);
    cell(b, s->have_cpu, s->cpu_pct);
    cell(b, true, s->rss_mib);
    hw_buf_putc(b, ',');
    mon_buf_u64(b, s->read_bytes);
    hw_buf_putc(b, ',');
    mon_buf_u64(b, s->write_bytes);
    if (pss)
        cell(b, s->have_pss, s->pss_mib);
    /* HW_PROC_EXTRA_HEADER's columns, in its order */
    cell(b, true, s->main_rss_mib);
    cell(b, s->have_cpu, s->main_cpu_pct);
    hw_buf_putc(b, ',');
    mon_buf_u64(b, s->main_threads);
    cell(b, s->have_cpu, s->usr_cpu_pct);
    cell(b, s->have_cpu, s->sys_cpu_pct);
    hw_buf_putc(b, '\n');
}
