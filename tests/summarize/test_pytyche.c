/* Suite "pytyche": `summarize --format pytyche DIR` must print exactly what the reference
 * (shared/oracle/pytyche_summary.py, pytyche's build_resource_summary) prints, on many generated
 * run directories: normal, bad lines, [N/A] power, `-` in dmon, truncated last lines, CRLF and
 * CR, empty files, headers, several GPUs, Python float() syntax, Unicode blanks, invalid UTF-8.
 * Skipped (with a message) when python3 >= 3.11 is not installed. Also unit checks of the
 * float()/round() emulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwrun/io.h"
#include "pytyche.h"
#include "sumtest.h"

static unsigned long long rng_state;
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

static void number(struct hw_buf *b, int decimals, unsigned odd_pct)
{
    if (rnd(100) < odd_pct) {
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

static bool have_python(void)
{
    char *argv[] = {"/bin/sh", "-c",
                    "python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'",
                    NULL};
    struct th_result r;
    if (th_run(argv, NULL, NULL, 30, &r) != 0)
        return false;
    bool ok = r.status == 0;
    th_result_free(&r);
    return ok;
}

static void write_buf(const char *dir, const char *name, struct hw_buf *b)
{
    char *p = th_fmt("%s/%s", dir, name);
    CU_ASSERT_EQUAL(th_write_file(p, b->p ? b->p : "", b->len), 0);
    free(p);
}

static int compare_dir(const char *dir)
{
    static const char *const names[] = {"hw_metrics.csv", "cpu_metrics.csv", "hw_dmon.csv"};
    static const char *const opts[] = {"--gpu-csv", "--cpu-csv", "--dmon-csv"};
    char *oracle = th_fmt("%s/oracle/pytyche_summary.py", th_env("HWRUN_SHARED_DIR"));
    char *argv[10];
    char *paths[3] = {0};
    int n = 0;
    argv[n++] = "python3";
    argv[n++] = oracle;
    for (int k = 0; k < 3; k++) {
        paths[k] = th_fmt("%s/%s", dir, names[k]);
        struct stat st;
        if (stat(paths[k], &st) == 0) {
            argv[n++] = (char *)opts[k];
            argv[n++] = paths[k];
        }
    }
    argv[n] = NULL;
    /* th_run wants a path: go through the shell's PATH lookup with env */
    char *eargv[12] = {"/usr/bin/env"};
    for (int i = 0; i <= n; i++)
        eargv[i + 1] = argv[i];
    struct th_result py, me;
    int bad = 0;
    CU_ASSERT_EQUAL_FATAL(th_run(eargv, NULL, NULL, 60, &py), 0);
    char *sargv[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), "-q", "-f", "pytyche", (char *)dir,
                     NULL};
    CU_ASSERT_EQUAL_FATAL(th_run(sargv, NULL, NULL, 60, &me), 0);
    /* with none of the three files, pytyche prints its zeros and so do we, but we exit 1:
     * nothing usable was found */
    int want_status = n > 2 ? 0 : 1;
    if (py.status == 0) {
        if (me.status != want_status || strcmp(py.out, me.out) != 0) {
            fprintf(stderr, "%s:\n  oracle:    %s  summarize: %s  (status %d) %s\n", dir, py.out,
                    me.out, me.status, me.err);
            bad = 1;
        }
    } else {
        /* the oracle failed (invalid UTF-8): so must we, with nothing on stdout */
        if (me.status == 0 || me.out_len != 0) {
            fprintf(stderr, "%s: oracle failed (%s), summarize printed %s\n", dir, py.err,
                    me.out);
            bad = 1;
        }
    }
    th_result_free(&py);
    th_result_free(&me);
    for (int k = 0; k < 3; k++)
        free(paths[k]);
    free(oracle);
    return bad;
}

static void test_oracle_generated(void)
{
    if (!have_python()) {
        fprintf(stderr, "pytyche oracle tests SKIPPED: python3 >= 3.11 not found\n");
        CU_PASS("skipped: python3 >= 3.11 not found");
        return;
    }
    int failures = 0, runs = 0;
    for (unsigned i = 0; i < 150; i++) {
        rng_state = 0x9e3779b97f4a7c15ULL * (i + 1);
        char *dir = th_tmpdir("pyt");
        unsigned odd = i < 10 ? 0 : i < 40 ? 5 : i < 100 ? 25 : 60;
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
        failures += compare_dir(dir);
        runs++;
        th_rmtree(dir);
        free(dir);
    }
    fprintf(stderr, "pytyche: %d of %d generated directories differ from the oracle\n",
            failures, runs);
    CU_ASSERT_EQUAL(failures, 0);
}

static void test_oracle_fixed(void)
{
    if (!have_python()) {
        CU_PASS("skipped: python3 >= 3.11 not found");
        return;
    }
    /* hand-written quirk cases */
    static const struct {
        const char *gpu, *cpu, *dmon;
    } cases[] = {
        {"x,100,0,5,0,nan,0,0,0\nx,50,0,7,0,20,0,0,0\n", NULL, NULL}, /* NaN first stays max */
        {"x,50,0,7,0,20,0,0,0\nx,100,0,5,0,nan,0,0,0\n", NULL, NULL},
        {"x,1e400,0,7,0,-inf,0,0,0\n", NULL, NULL},
        {"x, 0.05 ,0,0.25,0,0.15,0,0,0\nx,0.35,0,0.45,0,2.675,0,0,0\n", NULL, NULL},
        {NULL, "only a header line", NULL},
        {NULL, "h\nt,1.5\nt,2.5,x\nt,x,3\nt, 4 , 5 ,6\n", NULL},
        {NULL, NULL, "# gpu sm mem\n0 1 -0.0 2\n0 1 0 2\n"},   /* mean 0: no mem keys */
        {NULL, NULL, "\r\n  0 1 2 3\r1 2 3\n#x\n0 1 1_0 3"},
        /* \x1c-\x1f: blanks for str.strip()/split(), not for float() */
        {"x,\x1c" "5\x1d,0,\x1e" "7,0,\x1f" "9,0,0,0\n", "h\nt,\x1c" "5,6\nt, 7 ,\xc2\xa0" "8\n",
         "0 1 \x1c" "5 3\n0\x1c" "1\x1f" "6\x1e" "3\n"},
        {"", "", ""},
        {NULL, NULL, NULL},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = th_tmpdir("pytfix");
        if (cases[i].gpu)
            put_file(dir, "hw_metrics.csv", cases[i].gpu);
        if (cases[i].cpu)
            put_file(dir, "cpu_metrics.csv", cases[i].cpu);
        if (cases[i].dmon)
            put_file(dir, "hw_dmon.csv", cases[i].dmon);
        failures += compare_dir(dir);
        th_rmtree(dir);
        free(dir);
    }
    CU_ASSERT_EQUAL(failures, 0);
}

static void test_float_emulation(void)
{
    static const struct {
        const char *s;
        bool ok;
        double v;
    } t[] = {
        {"1", true, 1},          {" 1.5 ", true, 1.5},    {"1_000", true, 1000},
        {"1__0", false, 0},      {"_1", false, 0},        {"1_", false, 0},
        {"1_.5", false, 0},      {"1._5", false, 0},      {"1e1_0", true, 1e10},
        {"inf", true, INFINITY}, {"-Infinity", true, -INFINITY}, {"infinit", false, 0},
        {"5.", true, 5},         {".5", true, .5},        {".", false, 0},
        {"1e", false, 0},        {"0x10", false, 0},      {"", false, 0},
        {"\xc2\xa0" "2", true, 2}, {"12 %", false, 0},    {"+-1", false, 0},
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
    CU_pSuite s = CU_add_suite("pytyche", NULL, NULL);
    CU_add_test(s, "float_emulation", test_float_emulation);
    CU_add_test(s, "oracle_fixed", test_oracle_fixed);
    CU_add_test(s, "oracle_generated", test_oracle_generated);
}
