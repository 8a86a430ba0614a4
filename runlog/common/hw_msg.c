/* Program messages: one write(2) per message, so they are whole even from several threads. */
#include "hwrun/msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwrun/buf.h"
#include "hwrun/io.h"
#include "hwrun/utf8.h"

static const char *progname = "hwrun";

void hw_set_progname(const char *name)
{
    progname = name;
}

const char *hw_progname(void)
{
    return progname;
}

__attribute__((format(printf, 2, 0))) static void vmsg(int errnum, const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "%s: ", progname);
    if (n < 0)
        return;
    size_t len = (size_t)n;
    int m = vsnprintf(line + len, sizeof line - len, fmt, ap);
    if (m > 0)
        len += (size_t)m < sizeof line - len ? (size_t)m : sizeof line - len - 1;
    if (errnum != 0 && len < sizeof line - 1) {
        m = snprintf(line + len, sizeof line - len, ": %s", strerror(errnum));
        if (m > 0)
            len += (size_t)m < sizeof line - len ? (size_t)m : sizeof line - len - 1;
    }
    if (len >= sizeof line - 1)
        len = sizeof line - 2;
    /* A message quotes names from the data (a run dir, RUNLOG_FILE, a token, another rank's
     * dir): the one rule for what reaches a terminal, over the whole line (hwrun/utf8.h). */
    char safe[sizeof line * 3];
    struct hw_buf b;
    hw_buf_init(&b, safe, sizeof safe);
    hw_buf_term(&b, line, len, SIZE_MAX);
    hw_buf_putc(&b, '\n');
    if (b.p && !b.oom)
        (void)hw_write_all(STDERR_FILENO, b.p, b.len, NULL);
    hw_buf_free(&b);
}

void hw_warn(int errnum, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vmsg(errnum, fmt, ap);
    va_end(ap);
    errno = saved;
}

void hw_die(int status, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(errnum, fmt, ap);
    va_end(ap);
    exit(status);
}

void hw_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(0, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", progname);
    exit(HW_EXIT_USAGE);
}

int hw_close_stdout(int status)
{
    /* A full disk or a closed pipe on stdout must not pass as success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        fclose(stdout);
        hw_warn(e, "write error");
        return HW_EXIT_FAIL;
    }
    if (fclose(stdout) != 0) {
        hw_warn(errno, "write error");
        return HW_EXIT_FAIL;
    }
    return status;
}

void hw_print_exit_codes(void *fp, const struct hw_exit_doc *t, unsigned n)
{
    FILE *f = fp;
    fputs("Exit status:\n", f);
    for (unsigned i = 0; i < n; i++) {
        char code[16];
        if (t[i].code >= 0)
            snprintf(code, sizeof code, "%d", t[i].code);
        else
            snprintf(code, sizeof code, "N");
        fprintf(f, "  %-4s ", code);
        for (const char *m = t[i].meaning; *m; m++) {
            fputc(*m, f);
            if (*m == '\n' && m[1])
                fputs("       ", f);
        }
        fputc('\n', f);
    }
}
