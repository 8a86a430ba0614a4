/* CSV lines for hwmon's own files. Hand-rolled number formatting: it runs every sample, and
 * printf's double formatting costs more than the rest of the line put together. */
#include "csvout.h"

#include <math.h>
#include <string.h>

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
    hw_buf_puts(b, "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,"
                   "mem_available_mib");
    if (cgroup)
        hw_buf_puts(b, ",cgroup_cpu_limit_cores,cgroup_cpu_pct,cgroup_mem_current_mib,"
                       "cgroup_mem_max_mib");
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
    if (cgroup) {
        if (s->have_cg_limit) { /* cores: two decimals matter (0.25 cores) */
            hw_buf_putc(b, ',');
            hw_buf_printf(b, "%.2f", s->cg_limit_cores);
        } else {
            hw_buf_putc(b, ',');
        }
        cell(b, s->have_cg_cpu, s->cg_cpu_pct);
        cell(b, s->have_cg_mem, s->cg_mem_cur_mib);
        cell(b, s->have_cg_mem_max, s->cg_mem_max_mib);
    }
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
