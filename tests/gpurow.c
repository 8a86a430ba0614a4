/* hw_metrics.csv rows from the table (gpurow.h). */
#include "gpurow.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

struct th_gpu_vals th_gpu_vals_h100(void)
{
    struct th_gpu_vals g;
    for (int k = 0; k < HW_GPU_FIG_COUNT; k++) /* what a board may lack (a fan) it lacks */
        g.v[k] = hw_gpu_figs[k].flags & HW_GF_MAY_NA ? NAN : 1;
    static const struct {
        const char *field;
        double v;
    } h100[] = {{"utilization.gpu", 50},   {"utilization.memory", 30},
                {"memory.used", 2048},     {"memory.total", 81559},
                {"power.draw", 300},       {"temperature.gpu", 50},
                {"clocks.current.sm", 1980}, {"clocks.current.memory", 2619},
                {"clocks.current.graphics", 1980}};
    for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++)
        for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
            if (!strcmp(hw_gpu_figs[k].field, h100[i].field))
                g.v[k] = h100[i].v;
    return g;
}

void th_gpu_row(struct hw_buf *b, const char *fields, const char *ts, int index, const char *uuid,
                const struct th_gpu_vals *v)
{
    const char *p = fields ? fields : hw_gpu_fields_default();
    for (bool first = true; *p; first = false) {
        size_t len = strcspn(p, ",");
        if (!first)
            hw_buf_puts(b, ", ");
        if (len == strlen(HW_COL_TIMESTAMP) && !memcmp(p, HW_COL_TIMESTAMP, len)) {
            hw_buf_puts(b, ts);
        } else if (len == 5 && !memcmp(p, "index", 5)) {
            hw_buf_printf(b, "%d", index);
        } else if (len == 4 && !memcmp(p, "uuid", 4)) {
            hw_buf_puts(b, uuid ? uuid : "[N/A]");
        } else {
            int k = 0;
            while (k < HW_GPU_FIG_COUNT &&
                   (strlen(hw_gpu_figs[k].field) != len || memcmp(hw_gpu_figs[k].field, p, len)))
                k++;
            double x = k < HW_GPU_FIG_COUNT ? v->v[k] : NAN;
            if (isnan(x))
                hw_buf_puts(b, "[N/A]");
            else if (hw_gpu_figs[k].decimals) /* power: as nvidia-smi prints it */
                hw_buf_printf(b, "%.*f", hw_gpu_figs[k].decimals, x);
            else
                hw_buf_printf(b, "%.15g", x);
        }
        p += len;
        p += *p == ',';
    }
    hw_buf_putc(b, '\n');
}
