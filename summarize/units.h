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

/* GPU memory has a unit of its own (gpu_tracker's gpu_ram_unit), the memory one unless given. */
enum sum_dim { SUM_DIM_MEM, SUM_DIM_TIME, SUM_DIM_ENERGY, SUM_DIM_GPUMEM, SUM_DIM_COUNT };

struct sum_units {
    int unit[SUM_DIM_COUNT];   /* index into the dimension's unit table */
    bool given[SUM_DIM_COUNT]; /* named in --units: sweep-row names then carry it */
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

/* A sweep-row column name with its unit for u: a name ending in _mib or _mb (MiB: ours and
 * pytyche's/calibrax's names; GPU memory when the name says vram, gpu_mem, gpus_mem or
 * framework), _mib_s (a rate: the unit per second), _sec or _wh, whose dimension --units named,
 * gets that unit's suffix ("energy_wh" -> "energy_kwh", "peak_rss_mb" -> "peak_rss_gib",
 * "disk_read_peak_mib_s" -> "disk_read_peak_gib_s"). Returns the dimension and writes the new
 * name to out, or returns -1 (no unit change; out untouched). */
int sum_units_column(const struct sum_units *u, const char *name, char *out, size_t cap);
/* A figure's dimension, from its name's suffix (_mib, _mb, _mib_s, _sec, _wh; VRAM and GPU
 * memory are SUM_DIM_GPUMEM): the one place a column's unit is known. -1 for none; *stem is
 * the name's length without the suffix, *rate true for a per-second figure. */
int sum_column_dim(const char *name, size_t *stem, bool *rate);
/* A column's unit for people, from its name: its dimension's unit in u (NULL: the defaults;
 * "MiB/s" for a rate; written to buf), else what the suffix says (_pct %, _mhz MHz, ...), else "". */
const char *sum_column_unit(const struct sum_units *u, const char *name, char *buf, size_t cap);

#endif
