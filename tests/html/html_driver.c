/* A small driver for the HTML report's manual checks: it writes generated runs (gen.h), which
 * `summarize --html` then draws:
 *
 *     html_driver --demo DIR         the demo run (README's screenshot)
 *     html_driver --long DIR HOURS   a long run: 8 GPUs at 10 Hz for HOURS (the benchmark)
 *     html_driver --steps DIR N      a training loop of N 0.1 s `step` phases (gen_steps), 2 GPUs
 *     html_driver --sweep DIR NLR NBS FAILED   a sweep of NLR x NBS runs in DIR (gen_sweep), run
 *                                    number FAILED raising (-1: none); the README's sweep page
 *
 * Exit 0, 1 on failure, 2 on usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int main(int argc, char **argv)
{
    int rc;
    if (argc == 3 && !strcmp(argv[1], "--demo")) {
        rc = gen_demo_run(argv[2]);
    } else if (argc == 4 && !strcmp(argv[1], "--long")) {
        struct gen_run g = {.t0 = 1795336800.0,
                            .seconds = strtod(argv[3], NULL) * 3600,
                            .interval = 0.1,
                            .ngpus = 8,
                            .cpu = true,
                            .proc = true,
                            .jsonl_start = true};
        rc = gen_write_run(argv[2], &g);
    } else if (argc == 4 && !strcmp(argv[1], "--steps")) {
        long n = atol(argv[3]) > 0 ? atol(argv[3]) : 1;
        struct gen_run g = {.t0 = 1795336800.0,
                            .seconds = 2 + n * 0.1 + (double)(n / 2500) * 2.0,
                            .interval = 0.1,
                            .ngpus = 2,
                            .cpu = true,
                            .proc = true,
                            .jsonl_start = true};
        rc = gen_write_run(argv[2], &g);
        if (rc == 0)
            rc = gen_steps(argv[2], g.t0 + 1, n, 0.1, NULL);
    } else if (argc == 6 && !strcmp(argv[1], "--sweep")) {
        rc = gen_sweep(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    } else {
        fprintf(stderr, "usage: html_driver --demo DIR | --long DIR HOURS | --steps DIR N | "
                        "--sweep DIR NLR NBS FAILED\n");
        return 2;
    }
    if (rc < 0)
        fprintf(stderr, "html_driver: %s: %s\n", argv[2], strerror(-rc));
    return rc < 0;
}
