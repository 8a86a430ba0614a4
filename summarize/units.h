/* Units for people (issue 10, as gpu_tracker's ram_unit/time_unit and prmon's --units):
 * `--units mem=GiB,time=min,energy=kWh` for the text report, the HTML report and the sweep
 * rows; summary.json keeps its fixed units (MiB, seconds, Wh). Values are held in those base
 * units and converted only here, and numbers for a person are formatted only here (the text
 * report and html.c call sum_units_fmt / sum_fmt_num), so a short phase's energy reads
 * 0.00123 Wh, never 0.0 Wh, wherever it is shown. */
#ifndef SUM_UNITS_H
#define SUM_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"

/* What a figure measures, and so the unit a person reads it in: every figure of the sweep row,
 * of a job's row and of a phase's columns names its dimension in its table entry (report_rows.c,
 * jobreport.c), and every output takes the unit from there, never from the figure's name.
 * The first SUM_DIM_UNITS are the ones --units names (GPU memory has a unit of its own,
 * gpu_tracker's gpu_ram_unit, the memory one unless given); a rate converts as memory, per
 * second; the rest have one fixed unit ("%", "MHz"); SUM_DIM_NONE is a count, an id or a text. */
enum sum_dim {
    SUM_DIM_MEM,
    SUM_DIM_TIME,
    SUM_DIM_ENERGY,
    SUM_DIM_GPUMEM,
    SUM_DIM_MEM_RATE, /* MiB/s */
    SUM_DIM_PCT,      /* % */
    SUM_DIM_MHZ,
    SUM_DIM_POWER,    /* W */
    SUM_DIM_CORES,
    SUM_DIM_CO2E,     /* g CO2e */
    SUM_DIM_GPU_H,    /* GPU-hours */
    SUM_DIM_S_PER_STEP,  /* s, a ratio --units time leaves as it is */
    SUM_DIM_WH_PER_STEP, /* Wh, the same */
    SUM_DIM_NONE,
    SUM_DIM_COUNT
};
#define SUM_DIM_UNITS (SUM_DIM_GPUMEM + 1)

struct sum_units {
    int unit[SUM_DIM_UNITS];   /* index into the dimension's unit table */
    bool given[SUM_DIM_UNITS]; /* named in --units: sweep-row names then carry it */
};

/* The defaults: MiB, s (text: h/min/s as a person reads them), Wh. */
void sum_units_init(struct sum_units *u);
/* Parse "mem=GiB,gpumem=GB,time=min,energy=kWh" (any subset, any order; unit names are matched
 * without regard to case: B, KiB, KB, MiB, MB, GiB, GB, TiB, TB for mem and gpumem; s, min, h,
 * d; Wh, kWh, J) into u. Returns 0, or -1 with a reason in err. */
int sum_units_parse(struct sum_units *u, const char *spec, char *err, size_t errlen);
/* A value in the base unit (MiB, s, Wh) in u's unit; NAN stays NAN. u may be NULL (defaults). */
double sum_units_value(const struct sum_units *u, enum sum_dim d, double base);
/* The unit's name as written ("GiB") and as a column suffix ("gib"; seconds are "sec"). */
const char *sum_units_label(const struct sum_units *u, enum sum_dim d);
const char *sum_units_suffix(const struct sum_units *u, enum sum_dim d);

/* The one rule for a number a person reads: one decimal, or three significant digits below 1
 * (0.00123), so a small value never prints as 0.0; "-" when not measured. unit is appended
 * as given (" Wh", "%"). */
void sum_fmt_num(struct hw_buf *b, double v, const char *unit);
/* A value of dimension d given in the base unit, converted and with its unit: "1.5 GiB",
 * "0.00123 kWh", "13.5 min"; time without a --units time is h/min/s ("1 h 02 min 03 s", or
 * "12.345 s" under a minute). "-" when not measured. */
void sum_units_fmt(struct hw_buf *b, double base, enum sum_dim d, const struct sum_units *u);
/* The same into buf (html.c writes with fprintf); returns buf. */
const char *sum_units_fmt_buf(char *buf, size_t cap, double base, enum sum_dim d,
                              const struct sum_units *u);

/* Memory given in MiB for a glance (the live view): in the unit --units named, else in the one
 * that keeps it short ("4.70 MiB", "61.2 GiB", "0 B"); "-" when not measured. Returns buf. */
const char *sum_units_fmt_mem_short(char *buf, size_t cap, double mib, const struct sum_units *u);

/* The unit a person reads a figure of dimension d in, with u (NULL: the defaults): "GiB",
 * "MiB/s" for a rate, "%", "MHz"; "" for SUM_DIM_NONE. */
const char *sum_dim_unit(const struct sum_units *u, enum sum_dim d);
/* The dimension's name ("mem", "pct", "none"; --units names the first SUM_DIM_UNITS so). */
const char *sum_dim_name(enum sum_dim d);
/* Whether --units can convert dimension d (memory, GPU memory, a memory rate, time, energy). */
bool sum_dim_converts(enum sum_dim d);
/* A figure of dimension d given in its base unit, in u's unit (a rate: memory's unit per
 * second; a dimension --units does not convert: as given). */
double sum_dim_value(const struct sum_units *u, enum sum_dim d, double base);
/* A column's name in u: a figure whose dimension --units named carries that unit's suffix in
 * place of its base one ("energy_wh" -> "energy_kwh", "peak_rss_mb" -> "peak_rss_gib",
 * "disk_read_peak_mib_s" -> "disk_read_peak_gib_s"). The name must end in a spelling of its
 * dimension's base unit (sum_dim_name_stem; a test holds every table to it). Returns 0 and
 * writes the new name to out, or -1 (no change; out untouched). */
int sum_units_column(const struct sum_units *u, const char *name, enum sum_dim d, char *out,
                     size_t cap);
/* The length of name without the spelling of d's base unit it ends in ("_mib", "_mb",
 * "_mib_s", "_sec", "_wh"), or -1 when it ends in none (or d is not converted). */
long sum_dim_name_stem(const char *name, enum sum_dim d);
/* A figure for people: in its dimension's unit of --units u, time as a person reads it when
 * not converted ("1 h 02 min 03 s"), else the number and the dimension's unit ("94.0%",
 * "369.1 W"); "-" when not measured. */
void sum_dim_fmt(struct hw_buf *out, double v, enum sum_dim d, const struct sum_units *u);

#endif
