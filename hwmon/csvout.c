/* CSV lines for hwmon's own files. Hand-rolled number formatting: it runs every sample, and
 * printf's double formatting costs more than the rest of the line put together. */
#include "csvout.h"

#include <math.h>
#include <string.h>

#include "hwrun/array.h"
#include "hwrun/rundir.h"
#include "hwrun/buf.h"

void mon_buf_fixed1(struct hw_buf *b, double x)
{
    if (!isfinite(x) || fabs(x) > 1e17)
        return;
    long long t = llround(x * 10.0);
    if (t < 0) {
        hw_buf_putc(b, '-');
        t = -t;
    }
    hw_buf_u64(b, (uint64_t)t / 10);
    hw_buf_putc(b, '.');
    hw_buf_putc(b, (char)('0' + (uint64_t)t % 10));
}

/* The header and the cells of both files follow the column tables of hwrun/rundir.h: a cell is
 * put at its column's enum index, then the row is written in table order, so a header and its
 * rows cannot disagree. */
static void header(struct hw_buf *b, const char *const *cols, size_t n, size_t skip_from,
                   size_t skip_to)
{
    hw_buf_puts(b, HW_COL_TIMESTAMP);
    for (size_t i = 0; i < n; i++)
        if (i < skip_from || i >= skip_to) {
            hw_buf_putc(b, ',');
            hw_buf_puts(b, cols[i]);
        }
    hw_buf_puts(b, "," HW_COL_EDGE "\n");
}

void mon_csv_cpu_header(struct hw_buf *b, bool cgroup)
{
    /* the cgroup group only inside a cgroup */
    header(b, hw_cpu_cols, HW_CPU_COL_COUNT, cgroup ? 0 : HW_CPU_COL_FIRST_CGROUP,
           cgroup ? 0 : HW_CPU_COL_FIRST_IO);
}

void mon_csv_proc_header(struct hw_buf *b, bool pss)
{
    header(b, hw_proc_cols, HW_PROC_COL_COUNT, HW_PROC_COL_PSS,
           pss ? HW_PROC_COL_PSS : HW_PROC_COL_PSS + 1);
}

/* One cell: an integer, a number with 1 or 2 decimals, or empty (not measured). */
struct cell {
    enum { EMPTY, U64, FIX1, FIX2 } kind;
    double v;
    uint64_t u;
};

#define NUM1(have, x) ((struct cell){(have) ? FIX1 : EMPTY, (x), 0})
#define UINT(x) ((struct cell){U64, 0, (x)})
#define UINT_IF(have, x) ((struct cell){(have) ? U64 : EMPTY, 0, (x)})

static void cells(struct hw_buf *b, const char *iso, const struct cell *c, size_t n,
                  size_t skip_from, size_t skip_to, bool edge)
{
    hw_buf_puts(b, iso);
    for (size_t i = 0; i < n; i++) {
        if (i >= skip_from && i < skip_to)
            continue;
        hw_buf_putc(b, ',');
        switch (c[i].kind) {
        case U64: hw_buf_u64(b, c[i].u); break;
        case FIX1: mon_buf_fixed1(b, c[i].v); break;
        case FIX2: hw_buf_printf(b, "%.2f", c[i].v); break;
        case EMPTY: break;
        }
    }
    hw_buf_puts(b, edge ? ",1\n" : ",\n");
}

void mon_csv_cpu_line(struct hw_buf *b, const char *iso, const struct mon_sys_sample *s,
                      bool cgroup, bool edge)
{
    const struct cell c[] = {
        [HW_CPU_COL_USR] = NUM1(s->have_cpu, s->usr_pct),
        [HW_CPU_COL_IDLE] = NUM1(s->have_cpu, s->idle_pct),
        [HW_CPU_COL_SYS] = NUM1(s->have_cpu, s->sys_pct),
        [HW_CPU_COL_IOWAIT] = NUM1(s->have_cpu, s->iowait_pct),
        [HW_CPU_COL_STEAL] = NUM1(s->have_cpu, s->steal_pct),
        [HW_CPU_COL_MEM_USED] = NUM1(s->have_mem, s->mem_used_mib),
        [HW_CPU_COL_MEM_AVAIL] = NUM1(s->have_mem, s->mem_avail_mib),
        /* cores: two decimals matter (0.25 cores) */
        [HW_CPU_COL_CG_LIMIT] = {s->cg.have_limit ? FIX2 : EMPTY, s->cg.limit_cores, 0},
        [HW_CPU_COL_CG_PCT] = NUM1(s->cg.have_cpu, s->cg.cpu_pct),
        [HW_CPU_COL_CG_MEM] = NUM1(s->cg.have_mem, s->cg.mem_cur_mib),
        [HW_CPU_COL_CG_MEM_MAX] = NUM1(s->cg.have_mem_max, s->cg.mem_max_mib),
        [HW_CPU_COL_CG_MEM_PEAK] = NUM1(s->cg.have_mem_peak, s->cg.mem_peak_mib),
        [HW_CPU_COL_DISK_READ] = UINT_IF(s->io.have_disk, s->io.disk_read_bytes),
        [HW_CPU_COL_DISK_WRITE] = UINT_IF(s->io.have_disk, s->io.disk_write_bytes),
        [HW_CPU_COL_NET_RX] = UINT_IF(s->io.have_net, s->io.net_rx_bytes),
        [HW_CPU_COL_NET_TX] = UINT_IF(s->io.have_net, s->io.net_tx_bytes),
        [HW_CPU_COL_FS_FREE] = NUM1(s->io.have_fs, s->io.fs_free_mib),
        [HW_CPU_COL_MEM_TOTAL] = NUM1(s->have_mem_parts, s->mem_total_mib),
        [HW_CPU_COL_MEM_FREE] = NUM1(s->have_mem_parts, s->mem_free_mib),
        [HW_CPU_COL_MEM_BUFFERS] = NUM1(s->have_mem_parts, s->mem_buffers_mib),
        [HW_CPU_COL_MEM_CACHED] = NUM1(s->have_mem_parts, s->mem_cached_mib),
        [HW_CPU_COL_MEM_ACTIVE_ANON] = NUM1(s->have_mem_parts, s->mem_active_anon_mib),
        [HW_CPU_COL_MEM_INACTIVE_ANON] = NUM1(s->have_mem_parts, s->mem_inactive_anon_mib),
        [HW_CPU_COL_MEM_SRECLAIMABLE] = NUM1(s->have_sreclaimable, s->mem_sreclaimable_mib),
    };
    _Static_assert(HW_ARRAY_SIZE(c) == HW_CPU_COL_COUNT, "a cell for every cpu_metrics column");
    cells(b, iso, c, HW_CPU_COL_COUNT, cgroup ? 0 : HW_CPU_COL_FIRST_CGROUP,
          cgroup ? 0 : HW_CPU_COL_FIRST_IO, edge);
}

void mon_csv_proc_line(struct hw_buf *b, const char *iso, const struct mon_tree_sample *s, bool pss,
                       bool edge)
{
    const struct cell c[] = {
        [HW_PROC_COL_PROCS] = UINT_IF(!s->exited, s->procs),
        [HW_PROC_COL_THREADS] = UINT_IF(!s->exited, s->threads),
        [HW_PROC_COL_CPU] = NUM1(s->have_cpu, s->cpu_pct),
        [HW_PROC_COL_RSS] = NUM1(!s->exited, s->rss_mib),
        [HW_PROC_COL_READ] = UINT(s->io[MON_IO_READ_BYTES]),
        [HW_PROC_COL_WRITE] = UINT(s->io[MON_IO_WRITE_BYTES]),
        [HW_PROC_COL_PSS] = NUM1(s->have_pss, s->pss_mib),
        [HW_PROC_COL_MAIN_RSS] = NUM1(!s->exited, s->main_rss_mib),
        [HW_PROC_COL_MAIN_CPU] = NUM1(s->have_cpu, s->main_cpu_pct),
        [HW_PROC_COL_MAIN_THREADS] = UINT_IF(!s->exited, s->main_threads),
        [HW_PROC_COL_USR_CPU] = NUM1(s->have_cpu, s->usr_cpu_pct),
        [HW_PROC_COL_SYS_CPU] = NUM1(s->have_cpu, s->sys_cpu_pct),
        [HW_PROC_COL_PRIVATE] = NUM1(s->have_pss, s->private_mib),
        [HW_PROC_COL_SHARED] = NUM1(s->have_pss, s->shared_mib),
        [HW_PROC_COL_RCHAR] = UINT(s->io[MON_IO_RCHAR]),
        [HW_PROC_COL_WCHAR] = UINT(s->io[MON_IO_WCHAR]),
        [HW_PROC_COL_SYSCR] = UINT(s->io[MON_IO_SYSCR]),
        [HW_PROC_COL_SYSCW] = UINT(s->io[MON_IO_SYSCW]),
        [HW_PROC_COL_CANCELLED] = UINT(s->io[MON_IO_CANCELLED]),
        [HW_PROC_COL_MAIN_PRIVATE] = NUM1(s->have_main_pss, s->main_private_mib),
        [HW_PROC_COL_MAIN_SHARED] = NUM1(s->have_main_pss, s->main_shared_mib),
        [HW_PROC_COL_SHARED_ONCE] = NUM1(s->have_shared_once[MON_SO_ALL],
                                         s->shared_once_mib[MON_SO_ALL]),
        [HW_PROC_COL_MAIN_SHARED_ONCE] = NUM1(s->have_shared_once[MON_SO_MAIN],
                                              s->shared_once_mib[MON_SO_MAIN]),
        [HW_PROC_COL_DESC_SHARED_ONCE] = NUM1(s->have_shared_once[MON_SO_DESC],
                                              s->shared_once_mib[MON_SO_DESC]),
    };
    _Static_assert(HW_ARRAY_SIZE(c) == HW_PROC_COL_COUNT, "a cell for every proc_metrics column");
    cells(b, iso, c, HW_PROC_COL_COUNT, HW_PROC_COL_PSS,
          pss ? HW_PROC_COL_PSS : HW_PROC_COL_PSS + 1, edge);
}
