/* bench_decimal: what one numeric cell of hw_metrics.csv costs to parse (issue 10), by
 * hw_parse_decimal_padded (the readers' path: SWAR for short cells), hw_parse_decimal (its
 * byte loop) and strtod (the baseline), in the same run on the same cells.
 *
 *   bench_decimal [-n CELLS] [-r ROUNDS]
 *
 * The cells are a mix like nvidia-smi's --query-gpu rows: utilization and index ("100", "33",
 * "0"), memory in MiB ("19985", "81559"), power with two decimals ("308.53"), temperature,
 * clocks ("1980"); laid out as a reader's cell buffer (each cell NUL-terminated, 16 spare bytes
 * at the end). Each parser reads all cells ROUNDS times; the best round of each counts (the
 * machine is shared). The three sums must be equal bit for bit, or the run fails. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwrun/decimal8.h"

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (unsigned)(rs % n);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One row's numeric cells, as nvidia-smi prints them. */
static size_t row(char *out, size_t cap, unsigned gpu)
{
    unsigned used = 1000 + rnd(80000);
    return (size_t)snprintf(out, cap, "%u%c%u%c%u%c%s%c%u.%02u%c%u%c%u%c%u%c%u", rnd(101), 0,
                            rnd(101), 0, used, 0, "81559", 0, 60 + rnd(640), rnd(100), 0,
                            30 + rnd(60), 0, 210 + rnd(1771), 0, 2619, 0, gpu) +
           1;
}

struct cells {
    char *buf;
    size_t *off, *len, n;
};

enum { P_PADDED, P_PLAIN, P_STRTOD, P_COUNT };
static const char *const pname[P_COUNT] = {"hw_parse_decimal_padded", "hw_parse_decimal",
                                           "strtod"};

static double run(const struct cells *c, int which, double *sum)
{
    double t0 = now(), acc = 0;
    for (size_t i = 0; i < c->n; i++) {
        const char *s = c->buf + c->off[i];
        double v = 0;
        switch (which) {
        case P_PADDED:
            if (!hw_parse_decimal_padded(s, c->len[i], &v))
                abort();
            break;
        case P_PLAIN:
            if (!hw_parse_decimal(s, c->len[i], &v))
                abort();
            break;
        default:
            v = strtod(s, NULL);
        }
        acc += v;
    }
    *sum = acc;
    return (now() - t0) / (double)c->n * 1e9;
}

int main(int argc, char **argv)
{
    long ncells = 2000000, rounds = 7;
    int o;
    while ((o = getopt(argc, argv, "n:r:")) != -1) {
        if (o == 'n')
            ncells = strtol(optarg, NULL, 10);
        else if (o == 'r')
            rounds = strtol(optarg, NULL, 10);
        else {
            fprintf(stderr, "usage: %s [-n CELLS] [-r ROUNDS]\n", argv[0]);
            return 2;
        }
    }
    if (ncells < 9)
        ncells = 9;
    if (rounds < 1)
        rounds = 1;
    struct cells c = {0};
    size_t cap = (size_t)ncells * 8 + 64, used = 0;
    c.buf = malloc(cap + 16);
    c.off = malloc(sizeof *c.off * (size_t)ncells);
    c.len = malloc(sizeof *c.len * (size_t)ncells);
    if (!c.buf || !c.off || !c.len)
        return 1;
    for (unsigned gpu = 0; c.n + 9 <= (size_t)ncells && used + 64 < cap; gpu = (gpu + 1) % 8) {
        size_t start = used;
        used += row(c.buf + used, cap - used, gpu);
        for (size_t p = start; p < used; p += strlen(c.buf + p) + 1) {
            c.off[c.n] = p;
            c.len[c.n++] = strlen(c.buf + p);
        }
    }
    memset(c.buf + used, 0, 16);

    double best[P_COUNT], sum[P_COUNT];
    for (int p = 0; p < P_COUNT; p++)
        best[p] = 1e300;
    for (long r = 0; r < rounds; r++)
        for (int p = 0; p < P_COUNT; p++) { /* interleaved: the same machine state for each */
            double ns = run(&c, p, &sum[p]);
            if (ns < best[p])
                best[p] = ns;
        }
    if (memcmp(&sum[P_PADDED], &sum[P_STRTOD], sizeof(double)) ||
        memcmp(&sum[P_PLAIN], &sum[P_STRTOD], sizeof(double))) {
        fprintf(stderr, "bench_decimal: the parsers disagree (%.17g %.17g %.17g)\n",
                sum[P_PADDED], sum[P_PLAIN], sum[P_STRTOD]);
        return 1;
    }
    printf("%zu cells (nvidia-smi --query-gpu mix), best of %ld rounds\n", c.n, rounds);
    printf("%-24s %8s %14s\n", "parser", "ns/cell", "strtod / this");
    for (int p = 0; p < P_COUNT; p++)
        printf("%-24s %8.2f %13.2fx\n", pname[p], best[p], best[P_STRTOD] / best[p]);
    free(c.buf);
    free(c.off);
    free(c.len);
    return 0;
}
