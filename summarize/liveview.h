/* summarize --live: what a run is doing now, over the run directory's live state
 * (runlog/rundir/live.h, the state hwmon's Prometheus export formats too).
 *
 * A followed run adds what only the summary's rules can say: its status so far (outcome.h),
 * which phases failed, and warnings as they happen (error-like events, gaps in a GPU's rows,
 * uncorrected ECC errors and row remaps in hw_health.csv).
 * Three views print it, each a function of the state and a time, so tests call them as they
 * are: the full screen of one run (sum_live_screen), one line per interval for logs
 * (sum_live_line) and one row per run of a sweep (sum_live_sweep_*). liveterm.c draws them
 * on a terminal. */
#ifndef SUM_LIVEVIEW_H
#define SUM_LIVEVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live.h" /* runlog/rundir/live.h */
#include "outcome.h"
#include "units.h"
#include "verdicts.h"
#include "hwrun/buf.h"

#define SUM_LIVE_WARN 6 /* warnings kept, newest last */

struct sum_live {
    struct rd_live live;
    struct rd_sink tap;
    struct sum_outcome outcome;   /* what the log said so far */
    struct sum_outcome now;       /* ... finished at the last sum_live_status */
    char name[256];               /* the run as a row names it (its directory, or job/node) */
    char command[256];            /* the start event's command, joined by spaces */
    uint64_t warnings;            /* all so far */
    struct {
        double t;
        char text[160];
    } warn[SUM_LIVE_WARN];
    int nwarn;
    uint64_t gaps_seen[RD_MAX_GPUS]; /* each GPU's gap count already warned of */
    double ecc_warned[RD_MAX_GPUS]; /* uncorrected ECC errors last warned of (NAN: none) */
    bool remap_warned[RD_MAX_GPUS];
    uint64_t bad_lines;           /* lines the readers skipped */
    /* the verdicts' thresholds (verdicts.h; NULL: the defaults): a GPU idle for gpu_idle's
     * stretch now is a warning, once per stretch (idle_warned: the stretch's start) */
    const struct sum_rule_cfg *rules;
    double idle_warned[RD_MAX_GPUS];
};

/* Follow dir (name: how rows call it; NULL: the directory's last component). Returns NULL on
 * ENOMEM. */
struct sum_live *sum_live_new(const char *dir, const char *name);
void sum_live_free(struct sum_live *v);
/* Judge idleness by rules' thresholds (NULL: the defaults), before the first update. */
void sum_live_rules(struct sum_live *v, const struct sum_rule_cfg *rules);
/* Read what the run's files gained. Returns 0 or -errno (the state so far stays). */
int sum_live_update(struct sum_live *v);
/* The run's status now (outcome.h's rule on what was read: running, ok, failed, killed, ...). */
enum sum_status sum_live_status(struct sum_live *v);

/* The full screen of one run at time now (seconds since the epoch): at most rows lines of at
 * most cols characters each ('\n'-ended; what does not fit is cut). */
void sum_live_screen(struct sum_live *v, double now, int rows, int cols,
                     const struct sum_units *u, struct hw_buf *out);
/* One line of KEY=VALUE words ('\n'-ended) for a log: time, status, elapsed, phase, steps per
 * second, and per figure of the live table one value per GPU. */
void sum_live_line(struct sum_live *v, double now, struct hw_buf *out);
/* A sweep on one node: the header and one row per run, cut to cols. */
void sum_live_sweep_header(int cols, struct hw_buf *out);
void sum_live_sweep_row(struct sum_live *v, double now, int cols, const struct sum_units *u,
                        struct hw_buf *out);

/* Text from a run's files made safe for a terminal: control bytes (an escape sequence in a
 * phase name) become '?', bytes that are not UTF-8 U+FFFD; at most cols characters. */
void sum_live_put_text(struct hw_buf *out, const char *s, int cols);

/* The view on a terminal (liveterm.c, in the program: it prints): dirs followed every
 * interval_s seconds, drawn full screen until `q` or Ctrl-C; not on a terminal, or plain, a
 * line per run and refresh on standard output until every run has ended. Returns summarize's
 * exit status. */
int sum_live_main(char **dirs, size_t ndirs, double interval_s, bool plain,
                  const struct sum_units *u, const struct sum_rule_cfg *rules);

#endif
