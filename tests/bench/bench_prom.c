/* bench_prom: what one Prometheus export costs (issue 12), apart from the noise of a whole
 * hwmon run (bench_hwmon part 3 measures that).
 *
 *   bench_prom RUN_DIR [N]
 *
 * Follows RUN_DIR's files once (as hwmon does at its first export), then times N (default 2000)
 * exposition formats alone and N whole exports (format + temp file + rename into
 * /tmp/bench_prom.prom), in CPU time of this process. An export runs once per --prom-interval
 * (10 s by default), whatever the sampling rate: per sample it costs the export / (interval /
 * sampling interval). Use a run directory hwmon wrote with the fake nvidia-smi, e.g.
 *   build/hwmon/hwmon -o /tmp/r --nvidia-smi build/tests/fake/fake_nvidia_smi -d 5 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prom.h"
#include "hwrun/buf.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s RUN_DIR [N]\n", argv[0]);
        return 2;
    }
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
    if (n < 1)
        n = 1;
    static struct mon_prom p;
    struct mon_prom_counters c = {.samples = 1};
    if (mon_prom_resolve(&p, "/tmp/bench_prom.prom", argv[1]) < 0 ||
        mon_prom_open(&p, argv[1], NULL, 1.0, "host", "cmd") < 0 ||
        mon_prom_update(&p, &c, 1764085545.0) < 0) {
        fprintf(stderr, "bench_prom: cannot export %s\n", argv[1]);
        return 1;
    }
    double t0 = cpu_now();
    for (long i = 0; i < n; i++) {
        hw_buf_reset(&p.out);
        mon_prom_format(&p, &c, 1764085545.0, &p.out);
    }
    double t1 = cpu_now();
    for (long i = 0; i < n; i++)
        mon_prom_update(&p, &c, 1764085545.0);
    double t2 = cpu_now();
    double fmt = (t1 - t0) / n * 1e6, exp = (t2 - t1) / n * 1e6;
    printf("export of %s: %zu bytes; CPU per format %.1f us, per export %.1f us\n", argv[1],
           p.out.len, fmt, exp);
    printf("per sample at the default 10 s export: %.2f us at -i 1, %.2f us at -i 0.1\n",
           exp / 10, exp / 100);
    mon_prom_close(&p);
    return 0;
}
