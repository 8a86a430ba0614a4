/* Running statistics: see stats.h (what stats.c owns: stats_core.h).
 *
 * Exact mode keeps distinct values in an open-addressing hash table (value -> count), sorted
 * only when a quantile is asked for. Past SUM_QUANT_EXACT distinct values it becomes a
 * log-linear histogram (HdrHistogram's layout): the bucket of |v| is its exponent and the top
 * SUM_QUANT_SUB_BITS bits of its mantissa, read straight from the IEEE 754 bits, so each power
 * of two is cut into 128 equal buckets. A bucket [lo, hi) has hi/lo <= 1 + 1/128 and its
 * middle is within 1/256 of every value in it. */
#include "stats_core.h"
#include "oom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_BITS 7
#define KEY_SHIFT (52 - SUB_BITS)
#define MIN_INDEXABLE 1e-9 /* smaller magnitudes count as 0 */

struct bucket_store {
    int64_t lo;       /* key of counts[0] */
    size_t n;
    uint64_t *counts;
};

struct slot {
    double key;
    uint64_t cnt; /* 0 = empty slot */
};

struct sum_quant {
    bool sketch;
    /* exact mode: key and count side by side, one cache line per probe */
    struct slot *slots;
    size_t cap, used;
    size_t room; /* used < room: the table takes a new key without growing (0 in sketch mode) */
    int shift;   /* 64 - log2(cap): a hash's top bits are its slot */
    /* sketch mode */
    uint64_t zero;
    struct bucket_store pos, neg;
};

static uint64_t dbits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static double from_bits(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static size_t slot_of(const struct sum_quant *q, double v)
{
    /* Fibonacci hashing: the product's top bits depend on every bit of v (integers differ only
     * in the high bits of their doubles) */
    uint64_t h = dbits(v) * 0x9e3779b97f4a7c15ULL;
    size_t i = (size_t)(h >> q->shift);
    while (q->slots[i].cnt && q->slots[i].key != v)
        i = (i + 1) & (q->cap - 1);
    return i;
}

static bool grow(struct sum_quant *q)
{
    size_t cap = q->cap ? q->cap * 2 : 16;
    struct slot *slots = calloc(cap, sizeof *slots);
    if (!slots) {
        sum_oom_note();
        return false;
    }
    struct sum_quant nq = *q;
    nq.slots = slots;
    nq.cap = cap;
    nq.shift = 64 - __builtin_ctzll(cap);
    for (size_t i = 0; i < q->cap; i++)
        if (q->slots[i].cnt)
            slots[slot_of(&nq, q->slots[i].key)] = q->slots[i];
    free(q->slots);
    q->slots = slots;
    q->cap = cap;
    q->shift = nq.shift;
    q->room = cap / 2 < SUM_QUANT_EXACT ? cap / 2 : SUM_QUANT_EXACT; /* half full at most */
    return true;
}

/* The count cell of key k, the store widened as needed; NULL without memory. */
static uint64_t *store_cell(struct bucket_store *b, int64_t k)
{
    if (b->n == 0) {
        b->counts = calloc(64, sizeof *b->counts);
        if (!b->counts) {
            sum_oom_note();
            return NULL;
        }
        b->n = 64;
        b->lo = k - 32;
    }
    if (k < b->lo || k >= b->lo + (int64_t)b->n) {
        int64_t lo = k < b->lo ? k - 64 : b->lo;
        int64_t hi = k >= b->lo + (int64_t)b->n ? k + 64 : b->lo + (int64_t)b->n;
        size_t n = (size_t)(hi - lo);
        uint64_t *p = calloc(n, sizeof *p);
        if (!p) {
            sum_oom_note();
            return NULL;
        }
        memcpy(p + (b->lo - lo), b->counts, b->n * sizeof *p);
        free(b->counts);
        b->counts = p;
        b->n = n;
        b->lo = lo;
    }
    return &b->counts[k - b->lo];
}

/* Count c more of v in the sketch; returns v's count cell, NULL without memory. */
static uint64_t *sketch_add(struct sum_quant *q, double v, uint64_t c)
{
    double a = fabs(v);
    uint64_t *cell;
    if (a < MIN_INDEXABLE)
        cell = &q->zero;
    else
        cell = store_cell(v > 0 ? &q->pos : &q->neg, (int64_t)(dbits(a) >> KEY_SHIFT));
    if (cell)
        *cell += c;
    return cell;
}

/* The middle of bucket k: within 1/256 of anything in it. */
static double bucket_value(int64_t k)
{
    double lo = from_bits((uint64_t)k << KEY_SHIFT);
    double hi = from_bits((uint64_t)(k + 1) << KEY_SHIFT);
    return isfinite(hi) ? (lo + hi) / 2 : lo;
}

static bool to_sketch(struct sum_quant *q)
{
    q->sketch = true;
    bool ok = true;
    for (size_t i = 0; i < q->cap; i++)
        if (q->slots[i].cnt)
            ok = sketch_add(q, q->slots[i].key, q->slots[i].cnt) && ok;
    free(q->slots);
    q->slots = NULL;
    q->cap = q->used = q->room = 0;
    return ok;
}

/* Count one more v; returns its count cell (valid until the next add), NULL without memory. */
static uint64_t *quant_add(struct sum_quant *q, double v)
{
    if (v == 0)
        v = 0.0; /* -0.0 and 0.0 are one value */
    if (q->sketch)
        return sketch_add(q, v, 1);
    if (q->used >= SUM_QUANT_EXACT) {
        size_t i = slot_of(q, v);
        if (q->slots[i].cnt) {
            q->slots[i].cnt++;
            return &q->slots[i].cnt;
        }
        return to_sketch(q) ? sketch_add(q, v, 1) : NULL;
    }
    if ((q->used + 1) * 2 > q->cap && !grow(q))
        return NULL;
    size_t i = slot_of(q, v);
    if (!q->slots[i].cnt) {
        q->slots[i].key = v;
        q->used++;
    }
    q->slots[i].cnt++;
    return &q->slots[i].cnt;
}

/* Everything but the two common cases below: the first value, growth, the move to the sketch,
 * values the sketch's store does not span yet. Out of line, so that the common cases save no
 * registers. */
static __attribute__((noinline)) void quant_add_slow(struct sum_stat *s, double v)
{
    if (!s->q) {
        s->q = calloc(1, sizeof *s->q);
        if (!s->q) {
            s->oom = s->no_quant = true;
            sum_oom_note();
            return;
        }
    }
    s->hot = quant_add(s->q, v);
    s->hot_v = v;
    if (!s->hot)
        s->oom = s->no_quant = true;
}

void sum_stat_quant_add(struct sum_stat *s, double v)
{
    struct sum_quant *q = s->q;
    if (q && q->used < q->room) {
        /* an exact table with room for one more key */
        v += 0.0; /* -0.0 and 0.0 are one value */
        struct slot *sl = &q->slots[slot_of(q, v)];
        if (!sl->cnt) {
            sl->key = v;
            q->used++;
        }
        sl->cnt++;
        s->hot = &sl->cnt;
        s->hot_v = v;
        return;
    }
    if (q && q->sketch && v >= MIN_INDEXABLE) {
        /* a positive value in a bucket the store already spans */
        int64_t k = (int64_t)(dbits(v) >> KEY_SHIFT) - q->pos.lo;
        if (k >= 0 && k < (int64_t)q->pos.n) {
            s->hot = &q->pos.counts[k];
            ++*s->hot;
            s->hot_v = v;
            return;
        }
    }
    quant_add_slow(s, v);
}

double sum_stat_mean(const struct sum_stat *s)
{
    if (s->wsum > 0)
        return s->sum / s->wsum;
    return s->n ? s->sum / (double)s->n : NAN;
}

struct vc {
    double v;
    uint64_t c;
};

static int cmp_vc(const void *a, const void *b)
{
    double x = ((const struct vc *)a)->v, y = ((const struct vc *)b)->v;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* The distinct values (or bucket middles) in increasing order with their counts. malloc'd. */
static struct vc *sorted(const struct sum_quant *q, size_t *n)
{
    size_t cap = q->sketch ? q->pos.n + q->neg.n + 1 : q->used;
    struct vc *a = malloc((cap ? cap : 1) * sizeof *a);
    if (!a) {
        sum_oom_note();
        return NULL;
    }
    size_t k = 0;
    if (!q->sketch) {
        for (size_t i = 0; i < q->cap; i++)
            if (q->slots[i].cnt)
                a[k++] = (struct vc){q->slots[i].key, q->slots[i].cnt};
        qsort(a, k, sizeof *a, cmp_vc);
    } else {
        for (size_t i = q->neg.n; i-- > 0;)
            if (q->neg.counts[i])
                a[k++] = (struct vc){-bucket_value(q->neg.lo + (int64_t)i), q->neg.counts[i]};
        if (q->zero)
            a[k++] = (struct vc){0.0, q->zero};
        for (size_t i = 0; i < q->pos.n; i++)
            if (q->pos.counts[i])
                a[k++] = (struct vc){bucket_value(q->pos.lo + (int64_t)i), q->pos.counts[i]};
    }
    *n = k;
    return a;
}

static double rank_value(const struct vc *a, size_t n, uint64_t r)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += a[i].c;
        if (r < acc)
            return a[i].v;
    }
    return n ? a[n - 1].v : NAN;
}

double sum_stat_quantile(const struct sum_stat *s, double qq)
{
    if (!s->n || !s->q || s->oom)
        return NAN;
    const struct sum_quant *q = s->q;
    size_t n;
    struct vc *a = sorted(q, &n);
    if (!a)
        return NAN;
    double h = qq * (double)(s->n - 1);
    uint64_t lo = (uint64_t)floor(h);
    double frac = h - (double)lo;
    double v = rank_value(a, n, lo);
    if (frac != 0 && lo + 1 < s->n) {
        double b = rank_value(a, n, lo + 1);
        v = v + (b - v) * frac;
    }
    free(a);
    if (q->sketch) /* a bucket middle may lie outside what was seen */
        v = fmin(fmax(v, s->min), s->max);
    return v;
}

uint64_t sum_stat_count_above(const struct sum_stat *s, double x)
{
    if (!s->q || s->oom)
        return 0;
    size_t n;
    struct vc *a = sorted(s->q, &n);
    if (!a)
        return 0;
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i].v > x)
            c += a[i].c;
    free(a);
    return c;
}

bool sum_stat_exact(const struct sum_stat *s)
{
    return !s->q || !s->q->sketch;
}

void sum_stat_free(struct sum_stat *s)
{
    if (s->q) {
        free(s->q->slots);
        free(s->q->pos.counts);
        free(s->q->neg.counts);
        free(s->q);
        s->q = NULL;
    }
    s->hot = NULL;
}
