/* Messages and exit codes shared by the three programs.
 *
 * Only programs print; libraries return 0 or a negative errno. Every message is built whole and
 * written with one write(2) to stderr, so it is safe from any thread and never interleaves. */
#ifndef HWRUN_MSG_H
#define HWRUN_MSG_H

#define HW_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

enum {
    HW_EXIT_OK = 0,
    HW_EXIT_FAIL = 1,  /* runtime failure */
    HW_EXIT_USAGE = 2, /* bad command line */
};

/* Set the program name used as the message prefix ("runlog", "hwmon", ...). Not copied. */
void hw_set_progname(const char *name);
const char *hw_progname(void);

/* "prog: <message>[: strerror(errnum)]\n" on stderr; errnum 0 adds no reason. */
void hw_warn(int errnum, const char *fmt, ...) HW_PRINTF(2, 3);

/* hw_warn, then exit(status). */
_Noreturn void hw_die(int status, int errnum, const char *fmt, ...) HW_PRINTF(3, 4);

/* "prog: <message>\nTry 'prog --help' for more information.\n", then exit(HW_EXIT_USAGE). */
_Noreturn void hw_usage_error(const char *fmt, ...) HW_PRINTF(1, 2);

/* Flush and close stdout at exit; a failure (EPIPE, ENOSPC) becomes "write error" and exit 1
 * (jq, coreutils). Call once from main before returning. Returns the status to exit with. */
int hw_close_stdout(int status);

/* A tool's exit statuses, its one table: --help prints it (hw_print_exit_codes) and the man
 * page's EXIT STATUS lists the same codes (tests/docs/options_documented.sh checks). code < 0
 * is "N", a status passed through from the command. meaning may hold '\n' (continued lines). */
struct hw_exit_doc {
    int code;
    const char *meaning;
};
#define HW_EXIT_PASSED (-1)

/* "Exit status:" and one "  CODE  meaning" line per entry, to f (a FILE *). */
void hw_print_exit_codes(void *f, const struct hw_exit_doc *t, unsigned n);

#endif
