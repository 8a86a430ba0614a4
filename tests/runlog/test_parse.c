/* Suite "parse": the one decimal parser (hwrun/parse.h) gives the same double as strtod, on
 * every cell of its fast path's domain and on random text around it; its Python mode follows
 * float()'s rules on underscores, blanks, inf and nan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/decimal8.h"
#include <CUnit/CUnit.h>

#include "testutil.h"

static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* strtod on text known to be a strict decimal. */
static double ref(const char *s)
{
    return strtod(s, NULL);
}

/* Every [-]I[.F] with I of 0..4 digits (leading zeros too) and F of 0..3 digits: the cells
 * nvidia-smi prints, 22 million of them, by hw_parse_decimal and by its 8-bytes-at-a-time
 * variant hw_parse_decimal_padded. */
static void test_fast_path_exhaustive(void)
{
    char buf[32];
    unsigned long bad = 0, n = 0;
    for (int il = 0; il <= 4; il++) {
        unsigned imax = il == 0 ? 1 : il == 1 ? 10 : il == 2 ? 100 : il == 3 ? 1000 : 10000;
        for (unsigned iv = 0; iv < imax; iv++) {
            if (il >= 2 && iv < imax / 10 && iv % 7) /* most leading-zero forms: a sample */
                continue;
            for (int fl = -1; fl <= 3; fl++) { /* -1: no '.', 0: "5." */
                unsigned fmax = fl <= 0 ? 1 : fl == 1 ? 10 : fl == 2 ? 100 : 1000;
                for (unsigned fv = 0; fv < fmax; fv++) {
                    if (il == 0 && fl <= 0)
                        continue;
                    int len = il ? snprintf(buf, sizeof buf, "%0*u", il, iv) : 0;
                    if (fl == 0)
                        len += snprintf(buf + len, sizeof buf - (size_t)len, "."); /* "5." */
                    if (fl > 0)
                        len += snprintf(buf + len, sizeof buf - (size_t)len, ".%0*u", fl, fv);
                    for (int sign = 0; sign < 2; sign++) {
                        char s[40];
                        int sl = snprintf(s, sizeof s, "%s%s", sign ? "-" : "", buf);
                        double v = 0, w = 0;
                        n++;
                        memset(s + sl, 'x', sizeof s - (size_t)sl); /* what follows: not digits */
                        bool okp = hw_parse_decimal_padded(s, (size_t)sl, &w);
                        s[sl] = '\0';
                        if (!hw_parse_decimal(s, (size_t)sl, &v) || !same(v, ref(s)) || !okp ||
                            !same(w, v)) {
                            if (bad++ < 5)
                                fprintf(stderr, "%s: %.17g, strtod %.17g\n", s, v, ref(s));
                        }
                    }
                }
            }
        }
    }
    fprintf(stderr, "parse: %lu cells, %lu differ from strtod\n", n, bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(n > 10000000);
}

static unsigned long long rs = 0x243f6a8885a308d3ULL;
static unsigned rnd(unsigned n)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (unsigned)(rs % n);
}

/* Is s[0..n) a strict decimal? (the grammar spelled out once more, independently) */
static bool strict_ok(const char *s, size_t n)
{
    size_t i = 0, nd = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, nd++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            nd++;
    if (!nd)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ne = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, ne++;
        if (!ne)
            return false;
    }
    return i == n;
}

/* Random text from a decimal's alphabet (digit-heavy, long digit runs, near-halfway values,
 * huge and tiny exponents) against strtod and the grammar. */
static void test_differential(void)
{
    static const char *const pieces[] = {"0",
                                         "1",
                                         "5",
                                         "9",
                                         "00000",
                                         "99999",
                                         "12345678901234567890",
                                         ".",
                                         "e",
                                         "E",
                                         "-",
                                         "+",
                                         "e-3",
                                         "e+308",
                                         "e-324",
                                         "e400",
                                         "9007199254740993",
                                         "2.2250738585072011",
                                         "x",
                                         " ",
                                         "4.9406564584124654e-324",
                                         "1797693134862315",
                                         "0000000000000000000000000000001"};
    char s[4096];
    unsigned long n = 0, bad = 0, nums = 0;
    for (int it = 0; it < 300000; it++) {
        size_t len = 0;
        unsigned parts = 1 + rnd(it % 100 == 0 ? 200 : 6);
        for (unsigned k = 0; k < parts && len < sizeof s - 64; k++) {
            if (rnd(3)) {
                s[len++] = (char)('0' + rnd(10));
            } else {
                const char *p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
                memcpy(s + len, p, strlen(p));
                len += strlen(p);
            }
        }
        s[len] = '\0';
        double v = 1234.5, w = 1234.5;
        s[len + 1] = (char)('0' + rnd(10)); /* padding that looks like digits */
        bool okp = hw_parse_decimal_padded(s, len, &w);
        bool ok = hw_parse_decimal(s, len, &v);
        if (okp != ok || (ok && !same(v, w))) {
            if (bad++ < 5)
                fprintf(stderr, "\"%s\": padded %d %.17g, plain %d %.17g\n", s, okp, w, ok, v);
        }
        bool want = strict_ok(s, len);
        n++;
        if (ok != want || (ok && !same(v, ref(s)))) {
            if (bad++ < 5)
                fprintf(stderr, "\"%s\": %d %.17g, want %d %.17g\n", s, ok, v, want, ref(s));
        }
        nums += ok;
    }
    fprintf(stderr, "parse: %lu random texts (%lu numbers), %lu wrong\n", n, nums, bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(nums > n / 10);
}

/* Longer than HW_DEC_KEEP significant digits: only whether a dropped digit is nonzero counts. */
static void test_long_digits(void)
{
    static char s[1 << 16];
    const char *heads[] = {
        "9007199254740993",
        "0.",
        "1.",
        "2."
        "470328229206232720882843964341106861825299013071623822127928412503377536351043759326499181"
        "808179961898982823477228588654633283551779698981993873980053909390631503565951557022639229"
        "085839244910518443593180284993653615250031937045767824921936562366986365848075700158576926"
        "990370631192827955855133292783433840935197801553124659726357957462276646527282722005637400"
        "648549997709659947045402082816622623785739345073633900796776193057750674017632467360096895"
        "134053553745851666113422376667860416215968046191446729184030053005753084904876539171138659"
        "164623952491262365388187963623937328042389101867234849766823508986338858792562830275599565"
        "752445550725518931369083625477918694866799496832404970582102851318545139621383772282614543"
        "7693412532098591327667236328125",
        "1e-400",
        "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017"
        "977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273"
        "854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704"
        "342711559699508093042880177904174497791e0"};
    unsigned long bad = 0;
    for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++)
        for (int tail = 0; tail < 6; tail++) {
            size_t n = (size_t)snprintf(s, sizeof s, "%s", heads[h]);
            if (strchr(heads[h], 'e'))
                continue;
            bool dot = strchr(s, '.') != NULL;
            if (!dot)
                s[n++] = '.';
            size_t zeros = tail < 3 ? 1000 : 40000;
            memset(s + n, '0', zeros);
            n += zeros;
            if (tail % 3 == 1)
                s[n++] = '1';
            if (tail % 3 == 2)
                s[n++] = '5', s[n++] = '0';
            s[n] = '\0';
            double v;
            if (!hw_parse_decimal(s, n, &v) || !same(v, ref(s)))
                bad++;
        }
    for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
        double v;
        if (!hw_parse_decimal(heads[h], strlen(heads[h]), &v) || !same(v, ref(heads[h])))
            bad++, fprintf(stderr, "%.40s...: %.17g, strtod %.17g\n", heads[h], v, ref(heads[h]));
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* exponents beyond any int */
    double v;
    CU_ASSERT_TRUE(hw_parse_decimal("1e99999999999999999999999", 25, &v) && isinf(v));
    CU_ASSERT_TRUE(hw_parse_decimal("1e-99999999999999999999999", 26, &v) && v == 0);
    CU_ASSERT_TRUE(hw_parse_decimal("0e99999999999999999999999", 25, &v) && v == 0);
    CU_ASSERT_TRUE(hw_parse_decimal("-0", 2, &v) && v == 0 && signbit(v));
}

/* ---- hw_parse_decimal8: the SWAR path of every reader's cell ------------------------------- */

/* What hw_parse_decimal8 takes on a little-endian GCC/clang build (elsewhere nothing): 1..8
 * characters, digits and at most one '.', which is not the last, and a digit. */
static bool swar_domain(const char *s, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    size_t dots = 0;
    if (n < 1 || n > 8 || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.')
            dots++;
        else if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return dots <= 1;
#else
    (void)s, (void)n;
    return false;
#endif
}

static unsigned long swar_taken, swar_bad;

/* s[0..n) followed by pad bytes: hw_parse_decimal8 takes exactly swar_domain, and it,
 * hw_parse_decimal_padded and hw_parse_decimal agree with the grammar and strtod. */
static void check_cell(const char *text, size_t n, unsigned char pad)
{
    char s[32], z[32];
    memcpy(s, text, n);
    memset(s + n, pad, sizeof s - n);
    double f = 1234.5, p = 1234.5, v = 1234.5, r = 0;
    bool fok = hw_parse_decimal8(s, n, &f);
    bool pok = hw_parse_decimal_padded(s, n, &p);
    bool ok = hw_parse_decimal(s, n, &v);
    bool want = strict_ok(s, n);
    memcpy(z, s, n);
    z[n] = '\0';
    if (want)
        r = strtod(z, NULL);
    swar_taken += fok;
    if (fok == swar_domain(s, n) && pok == want && ok == want && (!fok || same(f, r)) &&
        (!pok || same(p, r)) && (!ok || same(v, r)))
        return;
    if (swar_bad++ < 8) {
        fprintf(stderr, "cell \"");
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            fprintf(stderr, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
        }
        fprintf(stderr, "\" pad 0x%02x: swar %d %.17g, padded %d %.17g, plain %d %.17g, want %d %.17g\n",
                pad, fok, f, pok, p, ok, v, want, r);
    }
}

/* Every text of 1..9 characters over "079.": every place of one '.', two of them, a leading
 * and a trailing one, "." alone, and a length just past the SWAR word. */
static void test_swar_exhaustive(void)
{
    static const char alpha[] = "079.";
    char s[16];
    swar_taken = swar_bad = 0;
    for (size_t n = 1; n <= 9; n++) {
        unsigned long total = 1;
        for (size_t i = 0; i < n; i++)
            total *= 4;
        for (unsigned long c = 0; c < total; c++) {
            unsigned long x = c;
            for (size_t i = 0; i < n; i++, x /= 4)
                s[i] = alpha[x % 4];
            check_cell(s, n, '7'); /* padding that looks like more digits */
            check_cell(s, n, '.');
        }
    }
    fprintf(stderr, "parse: swar texts over \"079.\": %lu taken, %lu wrong\n", swar_taken, swar_bad);
    CU_ASSERT_EQUAL(swar_bad, 0);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    CU_ASSERT(swar_taken > 60000); /* 2 x 31164 */
#endif
}

/* Digits, and digits with a '.' at each place, of 1..9 characters, with each byte in turn
 * replaced by every byte value (around '0' and '9', '.', signs, NUL, 0x80 and above), and with
 * two bytes replaced by the ones near the SWAR test's edges. */
static void test_swar_bytes(void)
{
    static const unsigned char edge[] = {0x00, '+', '-', '.', '/', '0', '9', ':', 'e', 0x7f,
                                         0x80, 0x89, 0x8a, 0x9e, 0xae, 0xb0, 0xfe, 0xff};
    static const char digits[] = "918073645";
    char base[16], s[16];
    swar_taken = swar_bad = 0;
    for (size_t n = 1; n <= 9; n++)
        for (size_t dot = 0; dot <= n; dot++) { /* dot == n: no '.' */
            memcpy(base, digits, n);
            if (dot < n)
                base[dot] = '.';
            for (size_t i = 0; i < n; i++)
                for (unsigned b = 0; b < 256; b++) {
                    memcpy(s, base, n);
                    s[i] = (char)b;
                    check_cell(s, n, '5');
                }
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                    for (size_t a = 0; a < sizeof edge; a++)
                        for (size_t b = 0; b < sizeof edge; b++) {
                            memcpy(s, base, n);
                            s[i] = (char)edge[a];
                            s[j] = (char)edge[b];
                            check_cell(s, n, (unsigned char)edge[(a + b) % sizeof edge]);
                        }
        }
    fprintf(stderr, "parse: swar byte edits: %lu taken, %lu wrong\n", swar_taken, swar_bad);
    CU_ASSERT_EQUAL(swar_bad, 0);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    CU_ASSERT(swar_taken > 5000);
#endif
}

/* The SWAR path reads s[0..8) and nothing past it (AddressSanitizer builds check), whatever n,
 * and the values nvidia-smi prints come out as strtod's. */
static void test_swar_cells(void)
{
    static const char *const cells[] = {"100", "19985", "308.53", "81559", "66", "1980", "1.25",
                                        "0", "0.00", "99999999", "9999999.", ".5", "1234.567"};
    for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
        size_t n = strlen(cells[c]);
        char *s = malloc(8);
        CU_ASSERT_FATAL(s != NULL);
        memset(s, 'x', 8);
        memcpy(s, cells[c], n);
        double v = -1;
        bool ok = hw_parse_decimal8(s, n, &v);
        CU_ASSERT_EQUAL(ok, swar_domain(cells[c], n));
        if (ok)
            CU_ASSERT(same(v, strtod(cells[c], NULL)));
        free(s);
    }
}

static bool pyf(const char *s, double *v)
{
    struct hw_dec d;
    hw_dec_init(&d, HW_DEC_PY);
    for (const char *p = s; *p; p++)
        hw_dec_feed(&d, (unsigned char)*p);
    return hw_dec_end(&d, v);
}

static void test_modes(void)
{
    static const struct {
        const char *s;
        bool strict, py;
        double v;
    } t[] = {
        {"1", true, true, 1},
        {" 1", false, true, 1},
        {"1_000", false, true, 1000},
        {"1__0", false, false, 0},
        {"_1", false, false, 0},
        {"1_", false, false, 0},
        {"1_.5", false, false, 0},
        {"1._5", false, false, 0},
        {"1e1_0", false, true, 1e10},
        {"1_e1", false, false, 0},
        {"1e_1", false, false, 0},
        {"inf", false, true, INFINITY},
        {"-InFiNiTy", false, true, -INFINITY},
        {"infinit", false, false, 0},
        {"in", false, false, 0},
        {"5.", true, true, 5},
        {".5", true, true, .5},
        {".", false, false, 0},
        {"1e", false, false, 0},
        {"0x10", false, false, 0},
        {"", false, false, 0},
        {"+-1", false, false, 0},
        {"- 1", false, false, 0},
        {"1 2", false, false, 0},
        {" \t\v\f\r\n7 \n", false, true, 7},
        {"1e+5", true, true, 1e5},
        {"+.5e-1", true, true, .05},
        {"1.5E3", true, true, 1500},
        {"inf_", false, false, 0},
        {"nan ", false, true, NAN},
        {"e5", false, false, 0},
        {"1\x1c", false, false, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double v = 0, w = 0;
        bool s = hw_parse_decimal(t[i].s, strlen(t[i].s), &v);
        bool p = pyf(t[i].s, &w);
        if (s != t[i].strict || p != t[i].py || (s && v != t[i].v) ||
            (p && !(w == t[i].v || (isnan(w) && isnan(t[i].v)))))
            fprintf(stderr, "\"%s\": strict %d %g, py %d %g\n", t[i].s, s, v, p, w);
        CU_ASSERT_EQUAL(s, t[i].strict);
        CU_ASSERT_EQUAL(p, t[i].py);
    }
    /* "1\0": the NUL is part of the text */
    double v;
    CU_ASSERT_FALSE(hw_parse_decimal("1\0", 2, &v));
}

void add_parse_suite(void);
void add_parse_suite(void)
{
    CU_pSuite s = th_add_suite("parse", NULL, NULL, 300);
    CU_add_test(s, "fast_path_exhaustive", test_fast_path_exhaustive);
    CU_add_test(s, "differential", test_differential);
    CU_add_test(s, "long_digits", test_long_digits);
    CU_add_test(s, "swar_exhaustive", test_swar_exhaustive);
    CU_add_test(s, "swar_bytes", test_swar_bytes);
    CU_add_test(s, "swar_cells", test_swar_cells);
    CU_add_test(s, "modes", test_modes);
}
