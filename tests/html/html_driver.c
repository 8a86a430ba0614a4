/* A small driver for the HTML report, for manual checks and the browser test:
 *
 *     html_driver [-w WIDTH] [-s SUMMARY.json] OUT.html DIR        one run
 *     html_driver [-w WIDTH] OUT.html DIR1 DIR2 ...                 a sweep
 *     html_driver --demo DIR                                        write the demo run into DIR
 *
 * A run's summary is taken from -s, else from DIR/summary.json when it exists. In a sweep, a
 * run links to DIR/report.html when that file exists (paths relative to OUT's directory are
 * the caller's business: give DIRs relative to it). Exit 0, 1 on failure, 2 on usage. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "html.h"

static struct json_object *load_summary(const char *path, bool must)
{
    if (!must && access(path, R_OK) != 0)
        return NULL;
    struct json_object *o = json_object_from_file(path);
    if (!o && must)
        fprintf(stderr, "html_driver: %s: %s\n", path, json_util_get_last_err());
    return o;
}

int main(int argc, char **argv)
{
    struct sum_html_opts o;
    sum_html_opts_init(&o);
    const char *summary_path = NULL;
    int i = 1;
    if (argc == 3 && !strcmp(argv[1], "--demo")) {
        int rc = gen_demo_run(argv[2]);
        if (rc < 0)
            fprintf(stderr, "html_driver: %s: %s\n", argv[2], strerror(-rc));
        return rc < 0;
    }
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-w") && i + 1 < argc) {
            o.width = (int)strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            summary_path = argv[++i];
        } else {
            fprintf(stderr, "usage: html_driver [-w WIDTH] [-s SUMMARY] OUT DIR...\n"
                            "       html_driver --demo DIR\n");
            return 2;
        }
    }
    if (argc - i < 2) {
        fprintf(stderr, "usage: html_driver [-w WIDTH] [-s SUMMARY] OUT DIR...\n");
        return 2;
    }
    const char *out_path = argv[i++];
    FILE *out = fopen(out_path, "w");
    if (!out) {
        fprintf(stderr, "html_driver: %s: %s\n", out_path, strerror(errno));
        return 1;
    }
    char err[512];
    int rc, n = argc - i;
    if (n == 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s/summary.json", argv[i]);
        struct json_object *sum =
            summary_path ? load_summary(summary_path, true) : load_summary(path, false);
        rc = sum_html_run(out, argv[i], sum, &o, err, sizeof err);
        json_object_put(sum);
    } else {
        struct json_object **sums = calloc((size_t)n, sizeof *sums);
        char **names = calloc((size_t)n, sizeof *names);
        if (!sums || !names)
            return 1;
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/summary.json", argv[i + k]);
            sums[k] = load_summary(path, false);
            snprintf(path, sizeof path, "%s/report.html", argv[i + k]);
            if (access(path, R_OK) == 0)
                names[k] = strdup(path);
        }
        rc = sum_html_sweep(out, (const char *const *)argv + i, sums, (const char *const *)names,
                            (size_t)n, &o, err, sizeof err);
        for (int k = 0; k < n; k++) {
            json_object_put(sums[k]);
            free(names[k]);
        }
        free(sums);
        free(names);
    }
    if (fclose(out) != 0 && rc == 0) {
        rc = -errno;
        snprintf(err, sizeof err, "%s: %s", out_path, strerror(errno));
    }
    if (rc < 0 || err[0])
        fprintf(stderr, "html_driver: %s\n", err);
    return rc < 0;
}
