/* bench_amd: the per-sample CPU cost of hwmon's AMD GPU source against a bare loop doing the
 * same preads (a program, not a test).
 *
 *   bench_amd [-c CARDS] [-n SAMPLES] [-l LIBAMD_SMI]
 *
 * A tree of CARDS (default 8) AMD cards with every file hwmon reads is built under $TMPDIR (a
 * tmpfs when it is one: the kernel's own cost of answering a file, which on a real card can ask
 * the SMU, is left out on purpose: this measures what hwmon adds). Then, on this thread's CPU
 * clock, per sample of every card:
 *   baseline  a pread of each file hwmon keeps open (nothing parsed, nothing written) -- the
 *             floor;
 *   hwmon     mon_amd_rows + mon_amd_health_rows: the preads, the parsing and both CSV rows,
 *             as the sampler thread writes hw_metrics.csv and hw_health.csv;
 *   counter   with -l (the tests' fake libamd_smi, or ROCm's), mon_amdsmi_read of every card:
 *             the in-process energy counter, through the library's call.
 * Goal: what hwmon adds to the floor (parsing, the rows) <= 20 us per card per sample, so that
 * 64 cards at -i 0.1 stay under 1.3% of a core; a card's own files, on real hardware, cost more
 * than that (the driver asks the SMU). Exit 0 when it is met. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "amdgpu.h"
#include "amdsmi.h"
#include "hwrun/buf.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int put(const char *dir, const char *name, const char *text)
{
    char path[8400];
    snprintf(path, sizeof path, "%.4200s/%.4000s", dir, name);
    for (char *p = path + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* card c as an MI300X's files: metrics, clock levels, power cap, the link, its address */
static int make_card(const char *root, int c)
{
    char d[4200], v[64];
    snprintf(d, sizeof d, "%.4000s/sys/class/drm/card%d/device", root, c);
    mkdir(root, 0755);
    static const char *const files[][2] = {
        {"vendor", "0x1002\n"},
        {"device", "0x74a1\n"},
        {"product_name", "AMD Instinct MI300X\n"},
        {"unique_id", "1a2b3c4d5e6f7788\n"},
        {"gpu_busy_percent", "87\n"},
        {"mem_busy_percent", "31\n"},
        {"mem_info_vram_used", "85899345920\n"},
        {"mem_info_vram_total", "206158430208\n"},
        {"pp_dpm_sclk", "S: 19Mhz\n0: 500Mhz\n1: 1700Mhz *\n2: 2100Mhz\n"},
        {"current_link_speed", "32.0 GT/s PCIe\n"},
        {"max_link_speed", "32.0 GT/s PCIe\n"},
        {"current_link_width", "16\n"},
        {"max_link_width", "16\n"},
        {"hwmon/hwmon0/power1_average", "612000000\n"},
        {"hwmon/hwmon0/power1_cap", "750000000\n"},
        {"hwmon/hwmon0/temp1_input", "71000\n"},
        {"hwmon/hwmon0/temp2_input", "83000\n"},
        {"hwmon/hwmon0/freq1_input", "1700000000\n"},
        {"hwmon/hwmon0/freq2_input", "1300000000\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (put(d, files[i][0], files[i][1]) < 0)
            return -1;
    snprintf(v, sizeof v, "PCI_SLOT_NAME=0000:%02x:00.0\n", c + 1);
    return put(d, "uevent", v);
}

int main(int argc, char **argv)
{
    int cards = 8, samples = 20000, opt;
    const char *lib = NULL;
    while ((opt = getopt(argc, argv, "c:n:l:")) != -1) {
        if (opt == 'c')
            cards = atoi(optarg);
        else if (opt == 'n')
            samples = atoi(optarg);
        else if (opt == 'l')
            lib = optarg;
        else {
            fprintf(stderr, "usage: bench_amd [-c CARDS] [-n SAMPLES] [-l LIBAMD_SMI]\n");
            return 2;
        }
    }
    if (cards < 1 || cards > MON_AMD_MAX || samples < 1) {
        fprintf(stderr, "bench_amd: -c 1..%d, -n 1 or more\n", MON_AMD_MAX);
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    char root[4096];
    snprintf(root, sizeof root, "%s/bench-amd.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("bench_amd: mkdtemp");
        return 1;
    }
    for (int c = 0; c < cards; c++)
        if (make_card(root, c) < 0) {
            perror("bench_amd: the tree");
            return 1;
        }
    struct mon_amd *a = calloc(1, sizeof *a);
    if (!a || mon_amd_open(a, root, NULL, 0) != cards) {
        fprintf(stderr, "bench_amd: %d cards built, not all found\n", cards);
        return 1;
    }
    struct hw_buf b;
    hw_buf_init(&b, NULL, 0);
    char buf[4096];
    const char *ts = "2026/11/27 10:00:00.000";
    long files = 0;
    for (int c = 0; c < a->n; c++) {
        for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
            files += a->c[c].fd[k] >= 0;
        for (int k = 0; k < MON_AMD_HEALTH_COLS; k++)
            files += a->c[c].hfd[k] >= 0;
    }
    /* interleaved rounds: the machine is noisy, the ratio is taken within each round */
    double base = 0, mon = 0, ctr = 0, sink = 0;
    const int rounds = 5;
    for (int r = 0; r < rounds; r++) {
        double t0 = cpu_now();
        for (int s = 0; s < samples / rounds; s++)
            for (int c = 0; c < a->n; c++) {
                for (int k = 0; k < HW_GPU_FIG_COUNT; k++)
                    if (a->c[c].fd[k] >= 0)
                        sink += (double)pread(a->c[c].fd[k], buf, sizeof buf, 0);
                for (int k = 0; k < MON_AMD_HEALTH_COLS; k++)
                    if (a->c[c].hfd[k] >= 0)
                        sink += (double)pread(a->c[c].hfd[k], buf, sizeof buf, 0);
            }
        double t1 = cpu_now();
        for (int s = 0; s < samples / rounds; s++) {
            b.len = 0;
            mon_amd_rows(a, ts, &b);
            mon_amd_health_rows(a, ts, &b);
            sink += (double)b.len;
        }
        double t2 = cpu_now();
        base += t1 - t0;
        mon += t2 - t1;
    }
    int n = samples / rounds * rounds;
    struct mon_amdsmi smi;
    int counters = 0;
    if (lib) {
        setenv(MON_AMDSMI_LIBRARY_ENV, lib, 1);
        char bdfs[64 * 16] = "";
        for (int c = 0; c < cards; c++)
            snprintf(bdfs + strlen(bdfs), sizeof bdfs - strlen(bdfs), "%s0000:%02x:00.0",
                     c ? "," : "", c + 1);
        setenv("FAKE_AMDSMI_BDFS", bdfs, 1); /* the fake's cards; ROCm's ignores it */
        counters = mon_amdsmi_open(&smi, a);
        double t0 = cpu_now();
        for (int s = 0; s < n; s++)
            for (int i = 0; i < counters; i++) {
                unsigned long long mj;
                if (mon_amdsmi_read(&smi, i, &mj))
                    sink += (double)mj;
            }
        ctr = cpu_now() - t0;
        if (!counters)
            fprintf(stderr, "bench_amd: no counter: %s\n", smi.why);
    }
    double per_base = base / n * 1e6, per_mon = mon / n * 1e6;
    printf("cards %d, files kept open %ld, samples %d (%d rounds)\n", a->n, files, n, rounds);
    printf("baseline (preads only)     %8.2f us per sample  %6.2f us per card\n", per_base,
           per_base / a->n);
    printf("hwmon (rows of both files) %8.2f us per sample  %6.2f us per card  (x%.2f)\n",
           per_mon, per_mon / a->n, per_mon / per_base);
    if (lib)
        printf("energy counters (%d)        %8.2f us per sample  %6.2f us per card\n", counters,
               ctr / n * 1e6, counters ? ctr / n * 1e6 / counters : 0.0);
    printf("hwmon adds %.2f us per card per sample; at -i 1: %.4f%% of a core (%zu bytes of "
           "rows a sample)\n", (per_mon - per_base) / a->n, per_mon / 1e4, (size_t)b.len);
    if (lib && counters)
        mon_amdsmi_close(&smi);
    int ncards = a->n;
    mon_amd_close(a);
    free(a);
    hw_buf_free(&b);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_amd: %s left behind\n", root);
    if (sink < 0)
        puts("");
    return (per_mon - per_base) / ncards <= 20 ? 0 : 1;
}
