/* Suite "pytyche": `summarize --format pytyche DIR` must print exactly what the reference
 * (pytyche_summary.py, pytyche's build_resource_summary) prints, on many generated
 * run directories: normal, bad lines, [N/A] power, `-` in dmon, truncated last lines, CRLF and
 * CR, empty files, headers, several GPUs, Python float() syntax, Unicode blanks, invalid UTF-8.
 * What the oracle prints is in testdata/pytyche/golden.tsv (tests/golden/regen.sh); the live
 * oracle runs in addition when ../shared/oracle is there. Also unit checks of the
 * float()/round() emulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "pytyche.h"
#include "sumtest.h"

static unsigned long long rng_state;
static bool rng_unicode; /* number() also draws from unicode_numbers */
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

static const char *const odd_numbers[] = {
    "nan", "NaN", "-inf", "Infinity", "+1.5", "1_000", "1__0", "_1", "1_", " 7 ", "1e2", "1e400",
    ".5", "5.", "0x10", "12 %", "", "-", "[N/A]", "N/A", "\xc2\xa0" "42\xc2\xa0", "\xe3\x80\x80" "3",
    "1e-400", "-0", "00012", "1.5e+3", "4,2", "\x1c" "3", "\x0b" "4\x0c", "5\x1f", "2\x00",
    "\xe2\x80\xa8" "6", "1_0.5_0", "-nan", "+INF", "1e1_0",
};

/* What float() takes beyond ASCII and what it does not (cases 150..): digits of other scripts,
 * Unicode blanks, underscores between them, numbers longer than a double's 17 digits. */
static const char *const unicode_numbers[] = {
    "\xef\xbc\x96\xef\xbc\x90",             /* full-width 60 */
    "\xd9\xa5\xd9\xa0",                     /* Arabic-Indic 50 */
    "\xdb\xb1\xdb\xb2.\xdb\xb5",            /* Extended Arabic-Indic 12.5 */
    "\xe0\xa5\xa7\xe0\xa5\xa6\xe0\xa5\xa6", /* Devanagari 100 */
    "\xf0\x9d\x9f\x93",                     /* mathematical bold 5 (U+1D7D3) */
    "\xdf\x85",                             /* NKo 5 */
    "\xef\xbc\x91_\xef\xbc\x90",            /* full-width 1_0 */
    "\xd9\xa1_\xd9\xa0",                    /* Arabic-Indic 1_0 */
    "1_\xd9\xa0.\xd9\xa5",                  /* mixed scripts 10.5 */
    "1e\xd9\xa3",                           /* 1e3, exponent in Arabic-Indic */
    "-\xd9\xa3",                            /* -3 */
    "\xef\xbc\x95"
    "e-\xef\xbc\x93", /* 5e-3 */
    "\xc2\xa0"
    "42\xc2\xa0", /* NBSP */
    "\xe2\x80\x83"
    "7\xe2\x80\x83", /* EM SPACE */
    "\xe1\x9a\x80"
    "5", /* OGHAM SPACE MARK */
    "\xc2\x85"
    "5",             /* NEL */
    "5\xe2\x80\xa9", /* PARAGRAPH SEPARATOR */
    "\xe2\x80\xaf"
    "9\xe2\x81\x9f", /* NNBSP, MMSP */
    "\xe2\x80\x8b"
    "5", /* ZERO WIDTH SPACE: not a blank */
    "\xef\xbb\xbf"
    "5",            /* BOM: not a blank */
    "\xe2\x81\xb5", /* superscript 5: a digit, not decimal */
    "\xe2\x85\xab", /* ROMAN NUMERAL TWELVE */
    "\xef\xbc\x8b"
    "1", /* full-width plus */
    "1\xef\xbc\x8e"
    "5",                                    /* full-width full stop */
    "\xef\xbd\x89\xef\xbd\x8e\xef\xbd\x86", /* full-width inf */
    "1\xc2\xa0_0",
    "1_\xc2\xa0"
    "0",
    "1__\xd9\xa0",
    "\xd9\xa0_",
    "_\xd9\xa0",
    "1_0e1_0",
    "1.0_5",
    "0_0.0_0",
    "1_0_0_0",
    "9007199254740993",
    "9007199254740993.0000000000000000000000000001",
    "0.1000000000000000055511151231257827",
    "2.4703282292062327e-324",
    "2.4703282292062328e-324",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "00000000000000000000000000000000000000000045.5",
    "123456789012345678901234567890",
    "1e-99999999999999999999",
    "1e99999999999999999999",
};

static void number(struct hw_buf *b, int decimals, unsigned odd_pct)
{
    if (rnd(100) < odd_pct) {
        if (rng_unicode && rnd(3))
            hw_buf_puts(b,
                        unicode_numbers[rnd(sizeof unicode_numbers / sizeof unicode_numbers[0])]);
        else
            hw_buf_puts(b, odd_numbers[rnd(sizeof odd_numbers / sizeof odd_numbers[0])]);
        return;
    }
    unsigned v = rnd(100000);
    if (decimals)
        hw_buf_printf(b, "%u.%02u", v / 100, v % 100);
    else
        hw_buf_printf(b, "%u", v % 101);
}

static const char *eol(unsigned mode)
{
    return mode == 0 ? "\n" : mode == 1 ? "\r\n" : "\r";
}

static void gen_gpu(struct hw_buf *b, unsigned mode, unsigned odd)
{
    unsigned nl = mode % 3, rows = rnd(40), ngpu = 1 + rnd(4);
    bool eleven = rnd(2);
    if (rnd(4) == 0)
        hw_buf_printf(b, "timestamp, utilization.gpu [%%], utilization.memory [%%], memory.used "
                         "[MiB], memory.total [MiB], power.draw [W], temperature.gpu, "
                         "clocks.current.sm [MHz], clocks.current.memory [MHz]%s",
                      eol(nl));
    for (unsigned i = 0; i < rows; i++) {
        for (unsigned g = 0; g < ngpu; g++) {
            unsigned kind = rnd(100);
            if (kind < 3) {
                hw_buf_printf(b, "garbage line%s", eol(nl));
                continue;
            }
            if (kind < 5) {
                hw_buf_puts(b, eol(nl));
                continue;
            }
            if (kind < 7) {
                hw_buf_printf(b, "2026/11/21 15:27:%02u.000, 1, 2%s", i % 60, eol(nl));
                continue;
            }
            hw_buf_printf(b, "2026/11/21 15:27:%02u.%03u, ", i % 60, g);
            number(b, 0, odd);
            hw_buf_puts(b, ", ");
            number(b, 0, odd / 2);
            hw_buf_puts(b, ", ");
            number(b, 1, odd);
            hw_buf_puts(b, ", 81559, ");
            if (rnd(10) == 0)
                hw_buf_puts(b, "[N/A]");
            else
                number(b, 1, odd);
            hw_buf_puts(b, ", 55, 1980, 2619");
            if (eleven)
                hw_buf_printf(b, ", %u, GPU-%u", g, g);
            hw_buf_puts(b, eol(nl));
        }
    }
    if (rnd(3) == 0) /* truncated last line */
        hw_buf_puts(b, "2026/11/21 15:28:00.000, 45, 12, 300, 81559, 25");
}

static void gen_dmon(struct hw_buf *b, unsigned mode, unsigned odd)
{
    unsigned nl = mode % 3, rows = rnd(40), ngpu = 1 + rnd(3);
    bool dt = rnd(4) == 0;
    for (unsigned i = 0; i < rows; i++) {
        if (i % 10 == 0) {
            if (dt)
                hw_buf_printf(b, "#Date       Time        gpu     sm    mem%s", eol(nl));
            else
                hw_buf_printf(b, "# gpu     sm    mem    enc    dec%s# Idx      %%      %%      "
                                 "%%      %%%s",
                              eol(nl), eol(nl));
        }
        for (unsigned g = 0; g < ngpu; g++) {
            if (rnd(30) == 0) {
                hw_buf_printf(b, "    %u  1%s", g, eol(nl));
                continue;
            }
            if (dt)
                hw_buf_printf(b, " 20240104   13:54:%02u ", i % 60);
            hw_buf_printf(b, "    %u     ", g);
            number(b, 0, odd);
            hw_buf_puts(b, "     ");
            if (rnd(8) == 0)
                hw_buf_puts(b, "-");
            else
                number(b, 0, odd);
            hw_buf_printf(b, "      0      0 %s", eol(nl));
        }
    }
    if (rnd(3) == 0)
        hw_buf_puts(b, "    0     5");
}

static void gen_cpu(struct hw_buf *b, unsigned mode, unsigned odd)
{
    unsigned nl = mode % 3, rows = rnd(30);
    if (rnd(5))
        hw_buf_printf(b, "timestamp,usr_pct,idle_pct%s", eol(nl));
    for (unsigned i = 0; i < rows; i++) {
        if (rnd(20) == 0) {
            hw_buf_printf(b, "2026-11-21T15:27:49.697+00:00,1%s", eol(nl));
            continue;
        }
        hw_buf_printf(b, "2026-11-21T15:27:%02u.697+00:00,", i % 60);
        number(b, 1, odd);
        hw_buf_putc(b, ',');
        number(b, 1, odd);
        if (rnd(2))
            hw_buf_puts(b, ",3.0,0.1,0.0,1000,5000");
        hw_buf_puts(b, eol(nl));
    }
}

static void write_buf(const char *dir, const char *name, struct hw_buf *b)
{
    char *p = th_fmt("%s/%s", dir, name);
    CU_ASSERT_EQUAL(th_write_file(p, b->p ? b->p : "", b->len), 0);
    free(p);
}

/* Generated case i (0..N_GENERATED-1) into dir. The golden data depends on every byte written
 * here and on the generator's seed: change either and run tests/golden/regen.sh. */
#define N_GENERATED 210
#define N_LONG 10 /* the last ones: lines over 1 MiB */
static void make_long(unsigned i, const char *dir);
static void make_generated(unsigned i, const char *dir)
{
    if (i >= N_GENERATED - N_LONG) {
        make_long(i - (N_GENERATED - N_LONG), dir);
        return;
    }
    rng_state = 0x9e3779b97f4a7c15ULL * (i + 1);
    rng_unicode = i >= 150;
    unsigned odd = i < 10 ? 0 : i < 40 ? 5 : i < 100 ? 25 : i < 150 ? 60 : i < 175 ? 30 : 70;
    unsigned files = i < 60 || i >= 100 ? 7 : rnd(8); /* which of the three files exist */
    struct hw_buf b;
    if (files & 1) {
        hw_buf_init(&b, NULL, 0);
        if (i % 17 != 5)
            gen_gpu(&b, i, odd);
        write_buf(dir, "hw_metrics.csv", &b);
        hw_buf_free(&b);
    }
    if (files & 2) {
        hw_buf_init(&b, NULL, 0);
        if (i % 13 != 4)
            gen_cpu(&b, i / 3, odd);
        write_buf(dir, "cpu_metrics.csv", &b);
        hw_buf_free(&b);
    }
    if (files & 4) {
        hw_buf_init(&b, NULL, 0);
        if (i % 11 != 3)
            gen_dmon(&b, i / 2, odd);
        if (i == 77) /* invalid UTF-8: pytyche raises, summarize must fail too */
            hw_buf_puts(&b, "    0  5 \xff 1\n");
        write_buf(dir, "hw_dmon.csv", &b);
        hw_buf_free(&b);
    }
}

/* A run of n copies of s. */
static void repeat(struct hw_buf *b, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        hw_buf_puts(b, s);
}

/* Lines over 1 MiB, which Python reads like any other: long blanks around a cell, long digit
 * strings, a long cell nobody parses, a long comment, a long last line without newline. */
static void make_long(unsigned k, const char *dir)
{
    const size_t M = (size_t)1 << 20;
    struct hw_buf g, c, d;
    hw_buf_init(&g, NULL, 0);
    hw_buf_init(&c, NULL, 0);
    hw_buf_init(&d, NULL, 0);
    hw_buf_puts(&g, "t, 40, 0, 100, 0, 50, 0, 0, 0\n");
    hw_buf_puts(&c, "timestamp,usr_pct,idle_pct\nt,10,90\n");
    hw_buf_puts(&d, "# gpu sm mem fb\n0 1 30 3\n");
    switch (k % 5) {
    case 0: /* blanks around cells */
        hw_buf_puts(&g, "t,");
        repeat(&g, k < 5 ? " " : "\xc2\xa0", M + 7);
        hw_buf_puts(&g, "60,0,");
        repeat(&g, "\xe3\x80\x80", M / 2);
        hw_buf_puts(&g, "200 ,0, 70\t,0,0,0\n");
        hw_buf_puts(&c, "t,");
        repeat(&c, " ", 2 * M);
        hw_buf_puts(&c, "20,");
        hw_buf_puts(&c, "80");
        repeat(&c, k < 5 ? " " : "\x1c ", M);
        hw_buf_puts(&c, "\n");
        hw_buf_puts(&d, "0 1");
        repeat(&d, "\xe2\x80\x83", M);
        hw_buf_puts(&d, "55 3\n");
        break;
    case 1: /* long digit strings: leading zeros, more digits than a double holds */
        hw_buf_puts(&g, "t,");
        repeat(&g, "0", M + 1);
        hw_buf_puts(&g, "61.5,0,9007199254740993");
        repeat(&g, k < 5 ? "0" : "\xd9\xa0", M);
        hw_buf_puts(&g, k < 5 ? "1" : "\xd9\xa1");
        hw_buf_puts(&g, "e-1048577,0,1_");
        repeat(&g, "0_", M / 2);
        hw_buf_puts(&g, "5,0,0,0\n");
        hw_buf_puts(&c, "t,0.");
        repeat(&c, "0", M);
        hw_buf_puts(&c, "1e1048577,1.");
        repeat(&c, "9", M);
        hw_buf_puts(&c, "\n");
        hw_buf_puts(&d, "0 1 ");
        repeat(&d, "\xef\xbc\x90", M / 3);
        hw_buf_puts(&d, "\xef\xbc\x97 3\n");
        break;
    case 2: /* a long cell outside 1, 3, 5; long junk lines */
        hw_buf_puts(&g, "t,45,0,300,0,80,0,0,");
        repeat(&g, "x", 3 * M);
        hw_buf_puts(&g, "\n");
        repeat(&g, "y", 2 * M);
        hw_buf_puts(&g, "\r\n");
        hw_buf_puts(&c, "t,30,70,");
        repeat(&c, "z,", M);
        hw_buf_puts(&c, "\r");
        hw_buf_puts(&d, "0 1 45 ");
        repeat(&d, "w", 2 * M);
        hw_buf_puts(&d, "\n");
        break;
    case 3: /* many cells; a long comment */
        hw_buf_puts(&g, "t,46,0,301,0,81");
        repeat(&g, ",1", M);
        hw_buf_puts(&g, "\n");
        hw_buf_puts(&c, "t,31,69\n");
        hw_buf_puts(&d, k < 5 ? "#" : "\xc2\xa0#");
        repeat(&d, " 0 1 99 3", M / 8);
        hw_buf_puts(&d, "\n0 1 46 3\n");
        break;
    case 4: /* a long last line without newline, a long bad number */
        hw_buf_puts(&g, "t,47,0,302,0,");
        repeat(&g, "1", M);
        hw_buf_puts(&g, "x,0,0,0\nt,48,0,303,0,82,0,0,");
        repeat(&g, "\xd9\xa5", M);
        hw_buf_puts(&c, "t,32,");
        repeat(&c, "\xef\xbc\x98", M);
        hw_buf_puts(&d, "0 1 47 3\n0 1 ");
        repeat(&d, "5", M);
        break;
    }
    write_buf(dir, "hw_metrics.csv", &g);
    write_buf(dir, "cpu_metrics.csv", &c);
    write_buf(dir, "hw_dmon.csv", &d);
    hw_buf_free(&g);
    hw_buf_free(&c);
    hw_buf_free(&d);
}

/* hand-written quirk cases */
static const struct {
    const char *gpu, *cpu, *dmon;
} fixed_cases[] = {
    {"x,100,0,5,0,nan,0,0,0\nx,50,0,7,0,20,0,0,0\n", NULL, NULL}, /* NaN first stays max */
    {"x,50,0,7,0,20,0,0,0\nx,100,0,5,0,nan,0,0,0\n", NULL, NULL},
    {"x,1e400,0,7,0,-inf,0,0,0\n", NULL, NULL},
    {"x, 0.05 ,0,0.25,0,0.15,0,0,0\nx,0.35,0,0.45,0,2.675,0,0,0\n", NULL, NULL},
    {NULL, "only a header line", NULL},
    {NULL, "h\nt,1.5\nt,2.5,x\nt,x,3\nt, 4 , 5 ,6\n", NULL},
    {NULL, NULL, "# gpu sm mem\n0 1 -0.0 2\n0 1 0 2\n"}, /* mean 0: no mem keys */
    {NULL, NULL, "\r\n  0 1 2 3\r1 2 3\n#x\n0 1 1_0 3"},
    /* \x1c-\x1f: blanks for str.strip()/split(), not for float() */
    {"x,\x1c"
     "5\x1d,0,\x1e"
     "7,0,\x1f"
     "9,0,0,0\n",
     "h\nt,\x1c"
     "5,6\nt, 7 ,\xc2\xa0"
     "8\n",
     "0 1 \x1c"
     "5 3\n0\x1c"
     "1\x1f"
     "6\x1e"
     "3\n"},
    {"", "", ""},
    {NULL, NULL, NULL},
    /* dmon split() on Unicode blanks; "#" after a Unicode blank; CPU cells with Unicode padding */
    {NULL, "h\nt,\xc2\xa0\xd9\xa5\xc2\xa0,\xe3\x80\x80\xef\xbc\x97\xe3\x80\x80\nt,1\x1c,2\x1c\n",
     "0\xe3\x80\x80"
     "1\xc2\xa0\xd9\xa5\xe2\x80\xa8"
     "3\n\xe2\x80\x83#0 1 9 3\n0\xc2\x85"
     "1 7 3\n"},
    {"x,\xd9\xa1\xd9\xa0\xd9\xa0,0,\xef\xbc\x95,0,\xe0\xa5\xa8\xe0\xa5\xa6.\xe0\xa5\xab,0,0,0\n",
     NULL, NULL},
};
#define N_FIXED (sizeof fixed_cases / sizeof fixed_cases[0])
#define N_CASES (N_GENERATED + N_FIXED)

/* Case k: generated ones first ("gen-007"), then the fixed ones ("fixed-03"). */
static char *case_name(size_t k)
{
    return k < N_GENERATED ? th_fmt("gen-%03zu", k) : th_fmt("fixed-%02zu", k - N_GENERATED);
}

static void make_case(size_t k, const char *dir)
{
    if (k < N_GENERATED) {
        make_generated((unsigned)k, dir);
        return;
    }
    k -= N_GENERATED;
    if (fixed_cases[k].gpu)
        put_file(dir, "hw_metrics.csv", fixed_cases[k].gpu);
    if (fixed_cases[k].cpu)
        put_file(dir, "cpu_metrics.csv", fixed_cases[k].cpu);
    if (fixed_cases[k].dmon)
        put_file(dir, "hw_dmon.csv", fixed_cases[k].dmon);
}

/* The files of dir as pytyche_summary.py's arguments ("--gpu-csv hw_metrics.csv ..."), the
 * second column of the golden file. */
static char *oracle_args(const char *dir)
{
    static const char *const names[] = {"hw_metrics.csv", "cpu_metrics.csv", "hw_dmon.csv"};
    static const char *const opts[] = {"--gpu-csv", "--cpu-csv", "--dmon-csv"};
    char *args = th_fmt("%s", "");
    for (int k = 0; k < 3; k++) {
        char *p = th_fmt("%s/%s", dir, names[k]);
        struct stat st;
        if (stat(p, &st) == 0) {
            char *n = th_fmt("%s%s%s %s", args, *args ? " " : "", opts[k], names[k]);
            free(args);
            args = n;
        }
        free(p);
    }
    return args;
}

/* What pytyche printed for a case: its stdout line without the newline, or "!fail" when it
 * raised (invalid UTF-8). */
struct golden {
    char *name, *args, *out;
};

/* testdata/pytyche/golden.tsv: "# comment" lines, then "name TAB args TAB output" per case. */
static struct golden *load_golden(size_t *n)
{
    char *path = th_fmt("%s/pytyche/golden.tsv", th_env("HWRUN_TESTDATA"));
    char *text = th_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    struct golden *g = calloc(N_CASES + 1, sizeof *g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    *n = 0;
    for (char *l = text, *nl; *l; l = nl + 1) {
        nl = strchr(l, '\n');
        CU_ASSERT_PTR_NOT_NULL_FATAL(nl); /* every line ends */
        *nl = '\0';
        if (*l == '#')
            continue;
        char *t1 = strchr(l, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        CU_ASSERT_FATAL(t2 != NULL && *n < N_CASES);
        *t1 = *t2 = '\0';
        g[*n].name = strdup(l);
        g[*n].args = strdup(t1 + 1);
        g[*n].out = strdup(t2 + 1);
        (*n)++;
    }
    free(text);
    free(path);
    return g;
}

/* summarize -f pytyche on case k against the golden output; returns 1 when they differ. */
static int compare_case(size_t k, const struct golden *g)
{
    char *dir = th_tmpdir("pyt"), *name = case_name(k);
    make_case(k, dir);
    char *args = oracle_args(dir);
    int bad = 0;
    if (strcmp(g->args, args) != 0) {
        fprintf(stderr, "%s has %s, the golden file %s: run tests/golden/regen.sh\n", name, args,
                g->args);
        bad = 1;
    }
    struct th_result me;
    char *sargv[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "pytyche", dir, NULL};
    CU_ASSERT_EQUAL_FATAL(th_run(sargv, NULL, NULL, 60, &me), 0);
    if (strcmp(g->out, "!fail") == 0) {
        /* the oracle failed (invalid UTF-8): so must we, with nothing on stdout */
        if (me.status == 0 || me.out_len != 0) {
            fprintf(stderr, "%s: the oracle fails, summarize printed %s\n", name, me.out);
            bad = 1;
        }
    } else {
        /* with none of the three files, pytyche prints its zeros and so do we, but we exit 1:
         * nothing usable was found */
        int want_status = *args ? 0 : 1;
        size_t glen = strlen(g->out);
        if (me.status != want_status || me.out_len != glen + 1 ||
            memcmp(me.out, g->out, glen) != 0 || me.out[glen] != '\n') {
            fprintf(stderr, "%s:\n  pytyche:   %s\n  summarize: %s  (status %d) %s\n", name,
                    g->out, me.out, me.status, me.err);
            bad = 1;
        }
    }
    th_result_free(&me);
    free(args);
    th_rmtree(dir);
    free(dir);
    free(name);
    return bad;
}

/* Write every case to to/<name>/. */
static void write_cases(const char *to)
{
    for (size_t k = 0; k < N_CASES; k++) {
        char *name = case_name(k), *dir = th_fmt("%s/%s", to, name);
        CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
        make_case(k, dir);
        free(dir);
        free(name);
    }
}

/* The live oracle over every case in one Python process (one start-up, not 161): returns how
 * many cases it prints differently from the golden file. */
static int live_oracle_differs(const char *oracle, const struct golden *g, size_t n)
{
    static const char driver[] =
        "import contextlib, io, os, sys\n"
        "sys.path.insert(0, os.path.dirname(sys.argv[1]))\n"
        "import pytyche_summary as p\n"
        "for name in sorted(os.listdir(sys.argv[2])):\n"
        "    d, args = os.path.join(sys.argv[2], name), []\n"
        "    for o, f in (('--gpu-csv', 'hw_metrics.csv'), ('--cpu-csv', 'cpu_metrics.csv'),\n"
        "                 ('--dmon-csv', 'hw_dmon.csv')):\n"
        "        if os.path.exists(os.path.join(d, f)): args += [o, os.path.join(d, f)]\n"
        "    buf = io.StringIO()\n"
        "    try:\n"
        "        with contextlib.redirect_stdout(buf): rc = p.main(args)\n"
        "        out = '!fail' if rc else buf.getvalue().rstrip('\\n')\n"
        "    except Exception: out = '!fail'\n"
        "    print(name + '\\t' + out)\n";
    char *root = th_tmpdir("pytlive");
    write_cases(root);
    char *argv[] = {(char *)th_python3(), "-c", (char *)driver, (char *)oracle, root, NULL};
    struct th_result r;
    CU_ASSERT_EQUAL_FATAL(th_run(argv, NULL, NULL, 240, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    int bad = 0;
    size_t seen = 0;
    for (char *l = r.out, *nl; l && *l; l = nl + 1) {
        nl = strchr(l, '\n');
        if (!nl)
            break;
        *nl = '\0';
        char *tab = strchr(l, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        seen++;
        for (size_t i = 0; i < n; i++)
            if (strcmp(g[i].name, l) == 0 && strcmp(g[i].out, tab + 1) != 0) {
                fprintf(stderr, "%s: the live oracle prints %s, the golden file has %s\n", l,
                        tab + 1, g[i].out);
                bad++;
            }
    }
    CU_ASSERT_EQUAL(seen, N_CASES);
    th_result_free(&r);
    th_rmtree(root);
    free(root);
    return bad;
}

static void test_oracle_golden(void)
{
    /* HWRUN_PYTYCHE_DUMP=DIR (tests/golden/regen.sh): write the cases for the oracle, compare
     * nothing */
    const char *dump = getenv("HWRUN_PYTYCHE_DUMP");
    if (dump && *dump) {
        write_cases(dump);
        fprintf(stderr, "pytyche: %zu cases written to %s\n", (size_t)N_CASES, dump);
        return;
    }
    size_t n;
    struct golden *g = load_golden(&n);
    CU_ASSERT_EQUAL_FATAL(n, N_CASES);
    int failures = 0;
    char *oracle = th_pytyche_oracle();
    if (oracle)
        failures += live_oracle_differs(oracle, g, n);
    fprintf(stderr, "pytyche: golden data%s\n",
            oracle ? " and the live oracle" : " only (no live oracle: ../shared or python3 >= 3.11 absent)");
    for (size_t k = 0; k < N_CASES; k++) {
        char *name = case_name(k);
        size_t i = 0;
        while (i < n && strcmp(g[i].name, name) != 0)
            i++;
        if (i == n) {
            fprintf(stderr, "%s: not in the golden file: run tests/golden/regen.sh\n", name);
            failures++;
        } else {
            failures += compare_case(k, &g[i]);
        }
        free(name);
    }
    fprintf(stderr, "pytyche: %d of %zu directories differ\n", failures, n);
    CU_ASSERT_EQUAL(failures, 0);
    for (size_t k = 0; k < n; k++) {
        free(g[k].name);
        free(g[k].args);
        free(g[k].out);
    }
    free(g);
    free(oracle);
}

/* The reader's result does not depend on where the buffers are cut (a UTF-8 sequence, "\r\n"
 * or a number split between two reads). */
static void test_chunking(void)
{
    static const char *const names[] = {"hw_metrics.csv", "cpu_metrics.csv", "hw_dmon.csv"};
    static const enum sum_py_kind kinds[] = {SUM_PY_GPU, SUM_PY_CPU, SUM_PY_DMON};
    int differ = 0;
    for (size_t k = 150; k < N_GENERATED - N_LONG; k += 3) {
        char *dir = th_tmpdir("pytchunk");
        make_case(k, dir);
        for (int f = 0; f < 3; f++) {
            char *p = th_fmt("%s/%s", dir, names[f]);
            size_t n = 0;
            char *text = th_read_file(p, &n);
            if (text) {
                struct hw_buf out[3];
                const size_t steps[3] = {n ? n : 1, 1, 7};
                for (int s = 0; s < 3; s++) {
                    struct sum_py_acc acc;
                    memset(&acc, 0, sizeof acc);
                    struct sum_py_reader *r = sum_py_new(kinds[f], &acc);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
                    int rc = 0;
                    for (size_t i = 0; i < n && rc == 0; i += steps[s])
                        rc = sum_py_feed(r, text + i, n - i < steps[s] ? n - i : steps[s]);
                    if (rc == 0)
                        rc = sum_py_finish(r);
                    hw_buf_init(&out[s], NULL, 0);
                    if (rc == 0)
                        sum_py_format(&acc, false, &out[s]);
                    else
                        hw_buf_printf(&out[s], "error %d at %llu", rc,
                                      (unsigned long long)sum_py_error_offset(r));
                    sum_py_free(r);
                }
                for (int s = 1; s < 3; s++)
                    if (strcmp(out[0].p, out[s].p) != 0) {
                        fprintf(stderr, "%s: whole %s, in pieces of %zu %s\n", p, out[0].p,
                                steps[s], out[s].p);
                        differ++;
                    }
                for (int s = 0; s < 3; s++)
                    hw_buf_free(&out[s]);
                free(text);
            }
            free(p);
        }
        th_rmtree(dir);
        free(dir);
    }
    CU_ASSERT_EQUAL(differ, 0);
}

static void test_float_emulation(void)
{
    static const struct {
        const char *s;
        bool ok;
        double v;
    } t[] = {
        {"1", true, 1},
        {" 1.5 ", true, 1.5},
        {"1_000", true, 1000},
        {"1__0", false, 0},
        {"_1", false, 0},
        {"1_", false, 0},
        {"1_.5", false, 0},
        {"1._5", false, 0},
        {"1e1_0", true, 1e10},
        {"inf", true, INFINITY},
        {"-Infinity", true, -INFINITY},
        {"infinit", false, 0},
        {"5.", true, 5},
        {".5", true, .5},
        {".", false, 0},
        {"1e", false, 0},
        {"0x10", false, 0},
        {"", false, 0},
        {"\xc2\xa0"
         "2",
         true, 2},
        {"12 %", false, 0},
        {"+-1", false, 0},
        /* digits of other scripts and Unicode blanks (summarize/py_unicode.h) */
        {"\xef\xbc\x96\xef\xbc\x90", true, 60},
        {"\xd9\xa5\xd9\xa0", true, 50},
        {"\xd9\xa1_\xd9\xa0", true, 10},
        {"\xf0\x9d\x9f\x93", true, 5},
        {"\xe3\x80\x80"
         "3\xe2\x80\x83",
         true, 3},
        {"\xe2\x80\x8b"
         "5",
         false, 0},
        {"\xe2\x81\xb5", false, 0},
        {"\x1c"
         "5",
         false, 0},
        {"1\xef\xbc\x8e"
         "5",
         false, 0},
        {"\xff"
         "5",
         false, 0},
        {"\xed\xa0\x80", false, 0},
        {"\xe0\x80\xb5", false, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double v = 0;
        bool ok = sum_py_float(t[i].s, strlen(t[i].s), &v);
        CU_ASSERT_EQUAL(ok, t[i].ok);
        if (ok && t[i].ok)
            CU_ASSERT_EQUAL(v, t[i].v);
    }
    double v;
    CU_ASSERT_TRUE(sum_py_float("nan", 3, &v));
    CU_ASSERT(isnan(v));
    CU_ASSERT_EQUAL(sum_py_round1(2.675), 2.7);
    CU_ASSERT_EQUAL(sum_py_round1(0.25), 0.2);  /* exact tie: half to even */
    CU_ASSERT_EQUAL(sum_py_round1(0.35), 0.3);  /* 0.35 is below the tie in binary */
    CU_ASSERT_EQUAL(sum_py_round1(-0.04), 0.0);
    CU_ASSERT(signbit(sum_py_round1(-0.04)));
}

void add_pytyche_suite(void)
{
    CU_pSuite s = th_add_suite("pytyche", NULL, NULL, 300);
    CU_add_test(s, "float_emulation", test_float_emulation);
    CU_add_test(s, "oracle_golden", test_oracle_golden);
    CU_add_test(s, "chunking", test_chunking);
}
