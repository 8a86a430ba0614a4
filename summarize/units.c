/* Units for people: see units.h. */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "hwrun/buf.h"

struct unit {
    const char *label, *suffix;
    double per_base;     /* this many units in one base unit */
    const char *per_s;   /* a rate's label (memory's units) */
};

static const struct unit mem_units[] = {
    {"MiB", "mib", 1, "MiB/s"},
    {"B", "b", 1048576.0, "B/s"},
    {"KiB", "kib", 1024, "KiB/s"},
    {"KB", "kb", 1048.576, "KB/s"},
    {"MB", "mb", 1.048576, "MB/s"},
    {"GiB", "gib", 1 / 1024.0, "GiB/s"},
    {"GB", "gb", 1048576.0 / 1e9, "GB/s"},
    {"TiB", "tib", 1 / 1048576.0, "TiB/s"},
    {"TB", "tb", 1048576.0 / 1e12, "TB/s"},
};
static const struct unit time_units[] = {
    {"s", "sec", 1},
    {"min", "min", 1 / 60.0},
    {"h", "h", 1 / 3600.0},
    {"d", "d", 1 / 86400.0},
};
static const struct unit energy_units[] = {
    {"Wh", "wh", 1},
    {"kWh", "kwh", 1 / 1000.0},
    {"J", "j", 3600},
};

/* The dimensions: the units --units may name (index 0 the base unit, the one summary.json
 * has), or the one unit a person reads; and how a column's name spells the base unit, which
 * --units replaces by the unit's suffix. */
static const char *const mem_spell[] = {"_mib", "_mb", NULL};
static const char *const time_spell[] = {"_sec", NULL};
static const char *const energy_spell[] = {"_wh", NULL};
static const char *const rate_spell[] = {"_mib_s", NULL};
#define UNITS(t) .u = (t), .n = sizeof(t) / sizeof(t)[0]
static const struct {
    const char *key;
    const struct unit *u; /* converted: the units --units may name */
    size_t n;
    const char *fixed;    /* else the one unit */
    const char *const *spell;
    enum sum_dim as;      /* a rate converts as this dimension, per second */
} dims[SUM_DIM_COUNT] = {
    [SUM_DIM_MEM] = {"mem", UNITS(mem_units), .spell = mem_spell, .as = SUM_DIM_MEM},
    [SUM_DIM_TIME] = {"time", UNITS(time_units), .spell = time_spell, .as = SUM_DIM_TIME},
    [SUM_DIM_ENERGY] = {"energy", UNITS(energy_units), .spell = energy_spell, .as = SUM_DIM_ENERGY},
    [SUM_DIM_GPUMEM] = {"gpumem", UNITS(mem_units), .spell = mem_spell, .as = SUM_DIM_GPUMEM},
    [SUM_DIM_MEM_RATE] = {"mem_rate", UNITS(mem_units), .spell = rate_spell, .as = SUM_DIM_MEM},
    [SUM_DIM_PCT] = {"pct", .fixed = "%"},
    [SUM_DIM_MHZ] = {"mhz", .fixed = "MHz"},
    [SUM_DIM_POWER] = {"power", .fixed = "W"},
    [SUM_DIM_CORES] = {"cores", .fixed = "cores"},
    [SUM_DIM_CO2E] = {"co2e", .fixed = "g"},
    [SUM_DIM_GPU_H] = {"gpu_h", .fixed = "GPU-h"},
    [SUM_DIM_S_PER_STEP] = {"s_per_step", .fixed = "s"},
    [SUM_DIM_WH_PER_STEP] = {"wh_per_step", .fixed = "Wh"},
    [SUM_DIM_NONE] = {"none", .fixed = ""},
};
#undef UNITS

void sum_units_init(struct sum_units *u)
{
    memset(u, 0, sizeof *u); /* index 0 of each table is the base unit */
}

int sum_units_parse(struct sum_units *u, const char *spec, char *err, size_t errlen)
{
    const char *p = spec;
    if (!*p) {
        snprintf(err, errlen, "empty --units (e.g. mem=GiB,time=min,energy=kWh)");
        return -1;
    }
    while (*p) {
        size_t n = strcspn(p, ","), k = strcspn(p, "=");
        if (k >= n) {
            snprintf(err, errlen, "'%.*s' is not DIM=UNIT (mem, gpumem, time, energy)", (int)n, p);
            return -1;
        }
        int d = 0;
        while (d < SUM_DIM_UNITS && !(strlen(dims[d].key) == k && !strncmp(p, dims[d].key, k)))
            d++;
        if (d == SUM_DIM_UNITS) {
            snprintf(err, errlen, "unknown dimension '%.*s' (mem, gpumem, time, energy)", (int)k, p);
            return -1;
        }
        const char *v = p + k + 1;
        size_t vl = n - k - 1, i = 0;
        while (i < dims[d].n &&
               !(strlen(dims[d].u[i].label) == vl && !strncasecmp(v, dims[d].u[i].label, vl)))
            i++;
        if (i == dims[d].n) {
            char list[128] = "";
            for (size_t j = 0; j < dims[d].n; j++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "",
                         dims[d].u[j].label);
            snprintf(err, errlen, "unknown %s unit '%.*s' (%s)", dims[d].key, (int)vl, v, list);
            return -1;
        }
        u->unit[d] = (int)i;
        u->given[d] = true;
        p += n;
        if (*p == ',' && !*++p) {
            snprintf(err, errlen, "--units ends in ','");
            return -1;
        }
    }
    return 0;
}

/* GPU memory without a unit of its own takes the memory one; a rate is memory's. */
static enum sum_dim dim_of(const struct sum_units *u, enum sum_dim d)
{
    d = dims[d].as;
    return d == SUM_DIM_GPUMEM && u && !u->given[d] ? SUM_DIM_MEM : d;
}

/* Only for a converted dimension (dims[d].u). */
static const struct unit *unit_of(const struct sum_units *u, enum sum_dim d)
{
    d = dim_of(u, d);
    return &dims[d].u[u ? u->unit[d] : 0];
}

double sum_units_value(const struct sum_units *u, enum sum_dim d, double base)
{
    return base * unit_of(u, d)->per_base;
}

const char *sum_units_label(const struct sum_units *u, enum sum_dim d)
{
    return dims[d].u ? unit_of(u, d)->label : dims[d].fixed;
}

const char *sum_units_suffix(const struct sum_units *u, enum sum_dim d)
{
    return dims[d].u ? unit_of(u, d)->suffix : "";
}

void sum_fmt_num(struct hw_buf *b, double v, const char *unit)
{
    if (!isfinite(v))
        hw_buf_puts(b, "-");
    else if (v != 0 && fabs(v) < 1)
        hw_buf_printf(b, "%.3g%s", v, unit);
    else
        hw_buf_printf(b, "%.1f%s", v, unit);
}

void sum_units_fmt(struct hw_buf *b, double base, enum sum_dim d, const struct sum_units *u)
{
    if (!isfinite(base)) {
        hw_buf_puts(b, "-");
        return;
    }
    if (d == SUM_DIM_TIME && !(u && u->given[d])) { /* as a person reads a duration */
        if (base != 0 && fabs(base) < 0.1) {        /* a short step: the digits that show it */
            hw_buf_printf(b, "%.3g s", base);
            return;
        }
        if (base < 60) {
            hw_buf_printf(b, "%.3f s", base);
            return;
        }
        long t = lround(base), h = t / 3600, m = t / 60 % 60, sec = t % 60;
        if (h)
            hw_buf_printf(b, "%ld h %02ld min %02ld s", h, m, sec);
        else
            hw_buf_printf(b, "%ld min %02ld s", m, sec);
        return;
    }
    char unit[16];
    snprintf(unit, sizeof unit, " %s", sum_units_label(u, d));
    sum_fmt_num(b, sum_units_value(u, d, base), unit);
}

const char *sum_units_fmt_buf(char *buf, size_t cap, double base, enum sum_dim d,
                              const struct sum_units *u)
{
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    sum_units_fmt(&b, base, d, u);
    snprintf(buf, cap, "%s", b.p && !b.oom ? b.p : "-");
    hw_buf_free(&b);
    return buf;
}

const char *sum_units_fmt_mem_short(char *buf, size_t cap, double mib, const struct sum_units *u)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
    if (!isfinite(mib) || (u && u->given[SUM_DIM_MEM]))
        return sum_units_fmt_buf(buf, cap, mib, SUM_DIM_MEM, u);
    if (mib == 0) {
        snprintf(buf, cap, "0 B");
        return buf;
    }
    double v = mib * 1024;
    int k = 0;
    while (k < 3 && fabs(v) >= 1024) {
        v /= 1024;
        k++;
    }
    snprintf(buf, cap, "%.*f %s", fabs(v) < 10 ? 2 : 1, v, unit[k]);
    return buf;
}

bool sum_dim_converts(enum sum_dim d)
{
    return dims[d].u != NULL;
}

const char *sum_dim_name(enum sum_dim d)
{
    return dims[d].key;
}

const char *sum_dim_unit(const struct sum_units *u, enum sum_dim d)
{
    return d == SUM_DIM_MEM_RATE ? unit_of(u, d)->per_s : sum_units_label(u, d);
}

double sum_dim_value(const struct sum_units *u, enum sum_dim d, double base)
{
    return dims[d].u ? sum_units_value(u, d, base) : base;
}

long sum_dim_name_stem(const char *name, enum sum_dim d)
{
    size_t n = strlen(name);
    for (const char *const *sp = dims[d].spell; sp && *sp; sp++) {
        size_t k = strlen(*sp);
        if (n > k && !strcmp(name + n - k, *sp))
            return (long)(n - k);
    }
    return -1;
}

int sum_units_column(const struct sum_units *u, const char *name, enum sum_dim d, char *out,
                     size_t cap)
{
    long stem = sum_dim_name_stem(name, d);
    if (!u || stem < 0 || !u->given[dim_of(u, d)])
        return -1;
    snprintf(out, cap, "%.*s_%s%s", (int)stem, name, sum_units_suffix(u, d),
             d == SUM_DIM_MEM_RATE ? "_s" : "");
    return 0;
}

void sum_dim_fmt(struct hw_buf *out, double v, enum sum_dim d, const struct sum_units *u)
{
    if (dims[d].u && d != SUM_DIM_MEM_RATE) {
        sum_units_fmt(out, v, d, u);
        return;
    }
    const char *un = sum_dim_unit(u, d);
    char unit[40];
    snprintf(unit, sizeof unit, "%s%s", *un && strcmp(un, "%") ? " " : "", un);
    sum_fmt_num(out, sum_dim_value(u, d, v), unit);
}
