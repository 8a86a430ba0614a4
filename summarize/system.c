/* The machine and the container over a span (see system.h). */
#include "system.h"

#include <math.h>
#include <stddef.h>

const struct sum_io_def sum_io_defs[SUM_IO_COUNT] = {
    [SUM_IO_DISK_READ] = {.mib_key = "disk_read_mib",
                          .peak_key = "disk_read_peak_mib_s",
                          .mib_what = "read from the node's disks (every process's)",
                          .peak_what = "highest disk read rate of one interval",
                          .mib_words = "node disk read",
                          .peak_words = "node disk read peak",
                          .text_run = "  node I/O: disks read ",
                          .text_system = "disks: read "},
    [SUM_IO_DISK_WRITE] = {.mib_key = "disk_write_mib",
                           .peak_key = "disk_write_peak_mib_s",
                           .mib_what = "written to the node's disks",
                           .peak_what = "highest disk write rate of one interval",
                           .mib_words = "node disk written",
                           .peak_words = "node disk write peak",
                           .text_run = ", written ",
                           .text_system = ", written "},
    [SUM_IO_NET_RX] = {.mib_key = "net_rx_mib",
                       .peak_key = "net_rx_peak_mib_s",
                       .mib_what = "received on the node's network",
                       .peak_what = "highest receive rate of one interval",
                       .mib_words = "node network received",
                       .peak_words = "node network receive peak",
                       .text_run = "; network received ",
                       .text_system = "network: received "},
    [SUM_IO_NET_TX] = {.mib_key = "net_tx_mib",
                       .peak_key = "net_tx_peak_mib_s",
                       .mib_what = "sent on the node's network",
                       .peak_what = "highest send rate of one interval",
                       .mib_words = "node network sent",
                       .peak_words = "node network send peak",
                       .text_run = ", sent ",
                       .text_system = ", sent "},
};

void sum_system_init(struct sum_system *s)
{
    for (int i = 0; i < SUM_IO_COUNT; i++)
        s->bytes[i] = s->peak_mib_s[i] = NAN;
    s->fs_free_min_mib = s->mem_sampled_mib = s->mem_kernel_mib = s->mem_limit_mib = NAN;
}

/* max that treats NAN as "nothing yet" */
static double fmax_nan(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

void sum_system_traffic(struct sum_system *s, const double bytes[SUM_IO_COUNT], double dt,
                        double share)
{
    for (int i = 0; i < SUM_IO_COUNT; i++) {
        if (isnan(bytes[i]) || bytes[i] < 0)
            continue;
        s->bytes[i] = (isnan(s->bytes[i]) ? 0 : s->bytes[i]) + bytes[i] * share;
        s->peak_mib_s[i] = fmax_nan(s->peak_mib_s[i], sum_io_rate_mib_s(bytes[i], dt));
    }
}

void sum_system_point(struct sum_system *s, double fs_free_mib, double mem_cur_mib,
                      double kernel_peak_mib, double limit_mib)
{
    if (!isnan(fs_free_mib))
        s->fs_free_min_mib = isnan(s->fs_free_min_mib) || fs_free_mib < s->fs_free_min_mib
                                 ? fs_free_mib
                                 : s->fs_free_min_mib;
    s->mem_sampled_mib = fmax_nan(s->mem_sampled_mib, mem_cur_mib);
    s->mem_kernel_mib = fmax_nan(s->mem_kernel_mib, kernel_peak_mib);
    if (!isnan(limit_mib))
        s->mem_limit_mib = limit_mib;
}

double sum_system_mib(const struct sum_system *s, int io)
{
    return s->bytes[io] / 1048576.0;
}

double sum_system_peak_mib_s(const struct sum_system *s, int io)
{
    return s->peak_mib_s[io];
}

double sum_system_mem_peak(const struct sum_system *s, const char **source)
{
    double k = s->mem_kernel_mib, m = s->mem_sampled_mib;
    if (source)
        *source = !isnan(k) && (isnan(m) || k > m) ? "kernel" : !isnan(m) ? "sampled" : NULL;
    return fmax_nan(k, m);
}
