/* Why a GPU was slow and whether it was healthy, from hw_health.csv (hwrun/rundir.h): the time
 * its clocks were held down and why, its SM clock against its maximum, its power limits, and
 * the errors and link changes a run should not have. Computed here once for a GPU over the run
 * and for a GPU inside each phase; every output prints these figures.
 *
 * Time under each reason comes from two readings:
 * - the cumulative counters (clocks_event_reasons_counters.*, microseconds, newer drivers): the
 *   growth of a counter over a step between two rows is the time of that reason in the step,
 *   spread evenly over it (a phase gets the share of the step it overlaps);
 * - the active bitmask (clocks_event_reasons.active): each half of a step takes the state of
 *   the row at its end (the midpoint rule).
 * A reason with a counter is counted from it (source "counters"), else from the bitmask
 * (HW slowdown has no counter). "Power-capped" is the SW power cap or the HW power brake,
 * "thermal" the SW or HW thermal slowdown; from the bitmask each is the time either bit was
 * set, from the counters the sum of the two (at most the step). Steps longer than
 * RD_GAP_FACTOR sampling intervals (energy.h's gap rule) are not bridged: their time counts
 * nowhere, and shares are of the time the steps covered. */
#ifndef SUM_CLOCKS_H
#define SUM_CLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "energy.h"
#include "hwrun/rundir.h"
#include "readers.h"
#include "stats.h"

enum sum_clk {
    SUM_CLK_SW_POWER,       /* counter and bit */
    SUM_CLK_HW_POWER_BRAKE, /* counter and bit */
    SUM_CLK_SW_THERMAL,     /* counter and bit */
    SUM_CLK_HW_THERMAL,     /* counter and bit */
    SUM_CLK_SYNC_BOOST,     /* counter and bit */
    SUM_CLK_HW_SLOWDOWN,    /* bit only */
    SUM_CLK_POWER,          /* power-capped: SW power cap or HW power brake */
    SUM_CLK_THERMAL,        /* thermal: SW or HW thermal slowdown */
    SUM_CLK_COUNT
};
/* The JSON keys of the seconds ("sw_power_cap_s", ...). */
extern const char *const sum_clk_keys[SUM_CLK_COUNT];

/* The time under each reason in a window (a GPU's run, or its part of a phase). */
struct sum_clk_acc {
    double cnt[SUM_CLK_COUNT]; /* seconds from the counters */
    double bit[SUM_CLK_COUNT]; /* seconds from the bitmask */
    bool have_cnt[SUM_CLK_COUNT];
    bool have_bit;
    double covered_s;       /* seconds of bridged steps inside the window */
    struct sum_stat sm;     /* clocks.current.sm samples, MHz (mean and max only) */
    double sm_max_mhz;      /* the most clocks.max.sm said (NAN: never) */
};

/* One GPU over the run: the window, the previous row and what health says. */
struct sum_clk_gpu {
    struct sum_clk_acc acc;
    double prev_t, prev_v[HW_HEALTH_COUNT];
    bool have_prev;
    double prev_t_file; /* the file's previous row of this GPU (its interval statistics) */
    uint64_t rows;
    double first[HW_HEALTH_COUNT], last[HW_HEALTH_COUNT]; /* first and last measured values */
    double min[HW_HEALTH_COUNT], max[HW_HEALTH_COUNT];
    uint64_t link_below_loaded; /* rows under load with the link below its maximum */
    /* power.draw.instant integrated under the energy rule (energy.h): the instantaneous reading,
     * which a 1 s average (power.draw on Ampere and newer) lags behind */
    struct rd_energy inst;
    double link_below_gen, link_below_width; /* the lowest link seen so (NAN: none) */
};

/* What the outputs print for a window: seconds per reason (NAN: not measured), the source
 * ("counters", "bitmask" or NULL), shares of the covered time, the SM clock. */
struct sum_clk_figs {
    double s[SUM_CLK_COUNT];
    const char *source;
    double power_pct, thermal_pct; /* NAN: not measured */
    double sm_mean_mhz, sm_max_mhz, sm_pct_of_max;
    double covered_s;
};

void sum_clk_acc_init(struct sum_clk_acc *a);
void sum_clk_acc_free(struct sum_clk_acc *a);
void sum_clk_gpu_init(struct sum_clk_gpu *g); /* prev_t_file NAN */
void sum_clk_figs(const struct sum_clk_acc *a, struct sum_clk_figs *out);
/* Add src's time and samples to dst (every GPU of a run together: its GPU-time shares). */
void sum_clk_acc_merge(struct sum_clk_acc *dst, const struct sum_clk_acc *src);

/* A step of a GPU's rows: from its previous row (t1, v1) to the current one (t2, v2). The
 * summary adds the whole step to the GPU's accumulator (sum_clk_row) and each phase's part of it
 * to that phase's (sum_clk_step_part). */
struct sum_clk_step {
    double t1, t2;
    const double *v1, *v2;
};
/* A row of GPU g; interval_s: the gap rule's interval (NAN: every step bridged). Returns true
 * with *step set when a bridged step ended at this row. */
bool sum_clk_row(struct sum_clk_gpu *g, const struct rd_health_row *r, double interval_s,
                 struct sum_clk_step *step);
/* After the caller has used the step: r becomes g's previous row (kept apart so that the
 * step's v1 stays valid while the phases take their parts). */
void sum_clk_row_done(struct sum_clk_gpu *g, const struct rd_health_row *r);
/* Add the part [a, b] of step s to a (the whole step: a = s->t1, b = s->t2). */
void sum_clk_step_part(struct sum_clk_acc *a, const struct sum_clk_step *s, double a0, double b0);
/* A sample of the SM clock and its maximum at a row inside the window. */
void sum_clk_sample(struct sum_clk_acc *a, const double *v);

/* Which reading a GPU's power field is: "average_1s" or "instantaneous"; NULL when nothing
 * says. power.draw is the 1 s average on GPUs that also report power.draw.average (Ampere and
 * newer but GA100: the H100 capture's power.draw equals its average, not its instant reading;
 * the Turing one's equals its instant reading and has no average), else instantaneous. g may
 * be NULL (no hw_health.csv). */
const char *sum_clk_power_reading(const struct sum_clk_gpu *g, const char *power_field);

/* The GPU's health warnings in the words every output uses, one per line into buf (with its
 * GPU's index); returns how many. */
/* a health warning's room (summary.h's health_warn) */
#define SUM_HEALTH_WARN_LEN 200
int sum_clk_warnings(const struct sum_clk_gpu *g, int index, char (*buf)[SUM_HEALTH_WARN_LEN],
                     int cap);

#endif
