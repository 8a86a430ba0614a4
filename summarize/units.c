/* Units for people: see units.h. */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "hwrun/buf.h"

struct unit {
    const char *label, *suffix;
    double per_base; /* this many units in one base unit */
};

static const struct unit mem_units[] = {
    {"MiB", "mib", 1},
    {"B", "b", 1048576.0},
    {"KiB", "kib", 1024},
    {"KB", "kb", 1048.576},
    {"MB", "mb", 1.048576},
    {"GiB", "gib", 1 / 1024.0},
    {"GB", "gb", 1048576.0 / 1e9},
    {"TiB", "tib", 1 / 1048576.0},
    {"TB", "tb", 1048576.0 / 1e12},
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

static const struct {
    const char *key;
    const struct unit *u;
    size_t n;
} dims[SUM_DIM_COUNT] = {
    [SUM_DIM_MEM] = {"mem", mem_units, sizeof mem_units / sizeof mem_units[0]},
    [SUM_DIM_TIME] = {"time", time_units, sizeof time_units / sizeof time_units[0]},
    [SUM_DIM_ENERGY] = {"energy", energy_units, sizeof energy_units / sizeof energy_units[0]},
    [SUM_DIM_GPUMEM] = {"gpumem", mem_units, sizeof mem_units / sizeof mem_units[0]},
};

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
        while (d < SUM_DIM_COUNT && !(strlen(dims[d].key) == k && !strncmp(p, dims[d].key, k)))
            d++;
        if (d == SUM_DIM_COUNT) {
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

/* GPU memory without a unit of its own takes the memory one. */
static enum sum_dim dim_of(const struct sum_units *u, enum sum_dim d)
{
    return d == SUM_DIM_GPUMEM && u && !u->given[d] ? SUM_DIM_MEM : d;
}

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
    return unit_of(u, d)->label;
}

const char *sum_units_suffix(const struct sum_units *u, enum sum_dim d)
{
    return unit_of(u, d)->suffix;
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

static bool ends_with(const char *s, const char *suf, size_t *stem)
{
    size_t n = strlen(s), k = strlen(suf);
    if (n <= k || strcmp(s + n - k, suf) != 0)
        return false;
    *stem = n - k;
    return true;
}

int sum_column_dim(const char *name, size_t *stem, bool *rate)
{
    static const struct {
        const char *suffix;
        enum sum_dim d;
        bool rate;
    } known[] = {{"_mib_s", SUM_DIM_MEM, true},
                 {"_mib", SUM_DIM_MEM, false},
                 {"_mb", SUM_DIM_MEM, false},
                 {"_sec", SUM_DIM_TIME, false},
                 {"_wh", SUM_DIM_ENERGY, false}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (!ends_with(name, known[i].suffix, stem))
            continue;
        enum sum_dim d = known[i].d;
        if (d == SUM_DIM_MEM && !known[i].rate &&
            (strstr(name, "vram") || strstr(name, "gpu_mem") || strstr(name, "gpus_mem") ||
             strstr(name, "framework")))
            d = SUM_DIM_GPUMEM;
        *rate = known[i].rate;
        return (int)d;
    }
    return -1;
}

int sum_units_column(const struct sum_units *u, const char *name, char *out, size_t cap)
{
    size_t stem;
    bool rate;
    int d = sum_column_dim(name, &stem, &rate);
    if (!u || d < 0 || !u->given[dim_of(u, (enum sum_dim)d)])
        return -1;
    snprintf(out, cap, "%.*s_%s%s", (int)stem, name, sum_units_suffix(u, (enum sum_dim)d),
             rate ? "_s" : "");
    return d;
}

const char *sum_column_unit(const struct sum_units *u, const char *name, char *buf, size_t cap)
{
    size_t stem;
    bool rate;
    int d = sum_column_dim(name, &stem, &rate);
    if (d >= 0) {
        snprintf(buf, cap, "%s%s", sum_units_label(u, (enum sum_dim)d), rate ? "/s" : "");
        return buf;
    }
    static const struct {
        const char *suffix, *unit;
    } other[] = {{"_pct", "%"},          {"_mhz", "MHz"},        {"_watts_mean", "W"},
                 {"_watts_max", "W"},    {"_power_w", "W"},      {"_cores", "cores"},
                 {"sec_per_step", "s"},  {"_wh_per_step", "Wh"}, {"_gpu_h", "GPU-h"},
                 {"co2e_g", "g"}};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (!strcmp(name, other[i].suffix) || ends_with(name, other[i].suffix, &stem))
            return other[i].unit; /* sec_per_step is its own whole name */
    return "";
}
