/* Verdicts: what a run's figures say about the job (a GPU that did no work, an input-bound
 * loop, memory asked for and never used), each from one rule of one table (sum_rules[]): a
 * stable id, a severity, thresholds with the source they come from, and a sentence that quotes
 * the evidence. A rule never judges data that was not measured: it says why it could not
 * (data_missing) instead. Every output (summary.json's notes, the text, the pages, the sweep
 * rows, the job, --compare) prints the verdicts sum_run_verdicts made once. */
#ifndef SUM_VERDICTS_H
#define SUM_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idle.h"
#include "units.h"

struct sum_run;

enum sum_rule_id {
    SUM_RULE_ALL, /* not a rule: the thresholds every rule shares (all.min_samples) */
    SUM_RULE_GPU_IDLE,
    SUM_RULE_GPU_UNDERUSED,
    SUM_RULE_INPUT_BOUND,
    SUM_RULE_THROTTLED,
    SUM_RULE_MEMORY_OVERSIZED,
    SUM_RULE_MEMORY_NEAR_LIMIT,
    SUM_RULE_VRAM_OVERSIZED,
    SUM_RULE_CPU_UNDERUSED,
    SUM_RULE_ENERGY_IDLE,
    SUM_RULE_DATA_MISSING,
    SUM_RULE_COUNT
};

enum sum_severity { SUM_SEV_INFO, SUM_SEV_WARNING };
extern const char *const sum_severity_names[2]; /* "info", "warning" */

/* The verdicts' key figures: one column each in the sweep rows (and --compare, --columns),
 * in this order, each set by its rule. */
enum sum_vfig {
    SUM_VFIG_GPU_IDLE_GPU_H,
    SUM_VFIG_INPUT_WAIT_PCT,
    SUM_VFIG_MEM_USED_OF_LIMIT_PCT,
    SUM_VFIG_VRAM_USED_PCT,
    SUM_VFIG_CPU_EFFICIENCY_PCT,
    SUM_VFIG_ENERGY_IDLE_WH,
    SUM_VFIG_COUNT
};
struct sum_vfig_def {
    const char *key, *what;
    enum sum_rule_id rule;
    enum sum_dim dim; /* its unit (units.h) */
};
extern const struct sum_vfig_def sum_vfigs[SUM_VFIG_COUNT];

#define SUM_RULE_MAX_THR 6
/* A threshold of a rule: a number (unit: "%", "s", ...), or a list of names (sdef non-NULL). */
struct sum_rule_thr {
    const char *key;
    double def;
    const char *unit;
    const char *what;
    const char *sdef; /* a string threshold's default (comma-separated names) */
};

struct sum_verdicts;
struct sum_rule_cfg;
struct sum_rule {
    const char *id;
    enum sum_severity sev; /* the highest it gives */
    const char *what;      /* what it judges, in one line */
    const char *source;    /* where its thresholds come from */
    struct sum_rule_thr thr[SUM_RULE_MAX_THR];
    void (*judge)(const struct sum_run *run, const struct sum_rule_cfg *cfg,
                  struct sum_verdicts *out);
};
extern const struct sum_rule sum_rules[SUM_RULE_COUNT];

/* A site's policy: thresholds set by --rule ID.KEY=VALUE or a --rules file, rules turned off. */
struct sum_rule_cfg {
    double v[SUM_RULE_COUNT][SUM_RULE_MAX_THR];
    char *s[SUM_RULE_COUNT][SUM_RULE_MAX_THR]; /* string thresholds (NULL: the default) */
    bool off[SUM_RULE_COUNT];
};
/* The defaults of every rule. */
void sum_rule_cfg_init(struct sum_rule_cfg *c);
void sum_rule_cfg_free(struct sum_rule_cfg *c);
/* Take "ID.KEY=VALUE" or "ID=off|on": 0, or -1 with err set ("unknown rule 'x'"). */
int sum_rule_cfg_set(struct sum_rule_cfg *c, const char *spec, char *err, size_t errlen);
/* Take every line of a file ('#' comments, blank lines): 0, or -1 with err "FILE:LINE: why". */
int sum_rule_cfg_load(struct sum_rule_cfg *c, const char *path, char *err, size_t errlen);
/* A threshold's value (c NULL: its default). */
double sum_rule_thr(const struct sum_rule_cfg *c, enum sum_rule_id r, int k);
const char *sum_rule_thr_str(const struct sum_rule_cfg *c, enum sum_rule_id r, int k);
/* The table as TSV: id, severity, threshold key, value, unit, what, source (--list-rules). */
struct hw_buf;
void sum_rules_list(const struct sum_rule_cfg *c, struct hw_buf *out);


/* The utilization at or below which a sample is idle (gpu_idle.util_pct). */
double sum_idle_threshold(const struct sum_rule_cfg *c);
/* The idle stretch that is a verdict (gpu_idle.stretch_sec). */
double sum_idle_stretch(const struct sum_rule_cfg *c);

#define SUM_VERDICT_MAX_EV 6
#define SUM_MAX_VERDICTS 96
/* One verdict: the rule, how severe, what it says (one sentence quoting the evidence) and the
 * evidence as figures (key, value, unit). */
struct sum_verdict {
    enum sum_rule_id rule;
    enum sum_severity sev;
    const char *grade;   /* "highly", "moderately" (input_bound), else NULL */
    int gpu;             /* the GPU it is about, -1: the job */
    char phase[64];      /* the phase name it is about, "" none */
    char text[360];
    int thr;             /* the threshold it crossed (an index of its rule's thr) */
    struct {
        const char *key;
        double v;
        const char *unit;
    } ev[SUM_VERDICT_MAX_EV];
    int nev;
};

struct sum_verdicts {
    struct sum_verdict v[SUM_MAX_VERDICTS];
    size_t n;
    uint64_t dropped;
    /* why a rule could not judge for lack of data ("" it judged, or did not apply) */
    char missing[SUM_RULE_COUNT][120];
    /* the key figures (sum_vfigs); NAN: not measured */
    double figure[SUM_VFIG_COUNT];
    /* the rules that gave a verdict, space-separated, warnings first (data_missing left out:
     * not a verdict on the job): the sweep rows' notes cell */
    char ids[256];
};

/* Judge the run by every rule that is on (cfg NULL: the defaults). NULL on ENOMEM. */
struct sum_verdicts *sum_verdicts_make(const struct sum_run *run, const struct sum_rule_cfg *cfg);
/* The ids of the verdicts, space-separated, warnings first ("" none): the rows' notes cell. */
const char *sum_verdicts_ids(const struct sum_verdicts *v, char *buf, size_t cap);
/* Verdicts of severity sev (or more) */
size_t sum_verdicts_count(const struct sum_verdicts *v, enum sum_severity sev);

/* A duration in words as the verdicts write it ("45 s", "25.0 min", "2.10 h"). */
const char *sum_verdict_dur(double s, char *buf, size_t cap);

#endif
