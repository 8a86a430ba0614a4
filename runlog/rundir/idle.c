/* A GPU's idle time, row by row: see idle.h. */
#include "idle.h"

#include <math.h>

void rd_idle_init(struct rd_idle *s)
{
    *s = (struct rd_idle){.prev_t = NAN, .prev_p = NAN, .run_t0 = NAN, .run_t1 = NAN,
                          .best_t0 = NAN, .best_t1 = NAN};
}

void rd_idle_finish(struct rd_idle *s)
{
    rd_idle_close(s);
}

