/* The HTML report's bottom layer (html_int.h): writing and escaping, numbers for people, the
 * page's head and CSS, the atomic write, and the run facts every part shows alike. Every other
 * part stands on this one; it calls none of them. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "html_int.h"
#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"

/* ---- writing and escaping -------------------------------------------------------------------- */

/* Write s[0..n) as HTML text or attribute value: & < > " ' become references; control
 * characters (but tab and newline), C1 controls and each byte of invalid UTF-8 become U+FFFD. */
void ht_esc_n(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0; /* s[run..i) is pending, to be written as is */
    while (i < n) {
        unsigned c = s[i];
        const char *rep = NULL;
        size_t len = 1;
        if (c >= 0x80) {
            uint32_t cp;
            len = hw_utf8_decode(s + i, n - i, &cp); /* the one UTF-8 decoder (hwrun/io.h) */
            if (len == 0 || len == HW_UTF8_SHORT) {
                rep = "\xEF\xBF\xBD";
                len = 1;
            } else if (cp >= 0x80 && cp <= 0x9F) {
                rep = "\xEF\xBF\xBD"; /* C1 controls */
            }
        } else if (c == '&') {
            rep = "&amp;";
        } else if (c == '<') {
            rep = "&lt;";
        } else if (c == '>') {
            rep = "&gt;";
        } else if (c == '"') {
            rep = "&quot;";
        } else if (c == '\'') {
            rep = "&#39;";
        } else if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
            rep = "\xEF\xBF\xBD";
        }
        if (rep) {
            fwrite(s + run, 1, i - run, f);
            fputs(rep, f);
            i += len;
            run = i;
        } else {
            i += len;
        }
    }
    fwrite(s + run, 1, n - run, f);
}

void ht_esc(FILE *f, const char *s)
{
    if (s)
        ht_esc_n(f, s, strlen(s));
}

/* Bytes of the first max_chars characters of s (a character = a UTF-8 lead byte). */
size_t ht_prefix_chars(const char *s, size_t max_chars, size_t *nchars)
{
    size_t i = 0, k = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (k == max_chars)
                break;
            k++;
        }
    }
    *nchars = k;
    return i;
}

size_t ht_count_chars(const char *s)
{
    size_t k = 0;
    for (; *s; s++)
        k += ((unsigned char)*s & 0xC0) != 0x80;
    return k;
}

/* Write a relative link target: bytes outside RFC 3986's unreserved set and '/' are
 * percent-encoded, so a name with '#', '?', '"', spaces or '<' stays one path. */
void ht_put_href(FILE *f, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
            fputc((int)c, f);
        else
            fprintf(f, "%%%c%c", hex[c >> 4], hex[c & 15]);
    }
}

/* A directory's last name ("runs/exp42/" gives "exp42"), cut to fit cap. */
const char *ht_base_name(const char *dir, char *buf, size_t cap)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && dir[b - 1] != '/')
        b--;
    size_t len = n - b;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, dir + b, len);
    buf[len] = '\0';
    if (!*buf)
        snprintf(buf, cap, "%s", dir);
    return buf;
}

void ht_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- numbers --------------------------------------------------------------------------------- */

/* "%.0f" of v with its digits in groups of three, separated by thin spaces: 1 234 567. */
static void group_digits(char *buf, size_t cap, double v)
{
    char raw[32];
    int n = snprintf(raw, sizeof raw, "%.0f", v);
    size_t o = 0, lead = raw[0] == '-';
    for (int i = 0; i < n && o + 4 < cap; i++) {
        int left = n - i; /* digits left, counting this one */
        if (i > (int)lead && left % 3 == 0) {
            memcpy(buf + o, "\xE2\x80\x89", 3);
            o += 3;
        }
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
}

/* A readable value for tables and legends: integers as such, else 3-4 significant digits. */
const char *ht_fmt_num(char *buf, size_t cap, double v)
{
    if (!isfinite(v))
        snprintf(buf, cap, "\xE2\x80\x94"); /* an em dash */
    else if (fabs(v) >= 1e15)
        snprintf(buf, cap, "%.3g", v);
    else if (fabs(v) >= 10000)
        group_digits(buf, cap, v);
    else if (v == floor(v) || fabs(v) >= 100)
        snprintf(buf, cap, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, cap, "%.1f", v);
    else if (fabs(v) >= 0.01)
        snprintf(buf, cap, "%.2f", v);
    else
        snprintf(buf, cap, "%.2g", v);
    return buf;
}

/* A step of 1, 2 or 5 times a power of ten, at least x. */
double ht_nice_step(double x)
{
    if (!(x > 0) || !isfinite(x))
        return 1;
    double e = pow(10, floor(log10(x)));
    double f = x / e;
    double nf = f <= 1.0001 ? 1 : f <= 2.0001 ? 2 : f <= 5.0001 ? 5 : 10;
    return nf * e;
}

int ht_step_decimals(double step)
{
    int d = 0;
    while (d < 6 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * step * pow(10, d))
        d++;
    return d;
}

/* "3 h 25 min", "12.5 s" */
const char *ht_fmt_dur(char *buf, size_t cap, double s)
{
    if (!isfinite(s) || s < 0)
        snprintf(buf, cap, "\xE2\x80\x94");
    else if (s < 60)
        snprintf(buf, cap, "%.3g s", s);
    else if (s < 3600)
        snprintf(buf, cap, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else if (s < 86400 * 3)
        snprintf(buf, cap, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
    else /* days as a double: a phase from a file we did not write may last 1e12 s */
        snprintf(buf, cap, "%.0f d %02d h", floor(s / 86400), (int)fmod(s / 3600, 24));
    return buf;
}

/* "2026-11-21 15:27:49 UTC" */
const char *ht_fmt_utc(char *buf, size_t cap, double t)
{
    struct tm tm;
    time_t tt = isfinite(t) && fabs(t) <= 1e12 ? (time_t)floor(t) : 0;
    if (!isfinite(t) || fabs(t) > 1e12 || !gmtime_r(&tt, &tm)) {
        snprintf(buf, cap, "\xE2\x80\x94");
        return buf;
    }
    snprintf(buf, cap, "%04d-%02d-%02d %02d:%02d:%02d UTC", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

const char *ht_fmt_dim(char *buf, size_t cap, double base, enum sum_dim d,
                       const struct sum_units *u)
{
    if (!isfinite(base))
        snprintf(buf, cap, "\xE2\x80\x94");
    else
        sum_units_fmt_buf(buf, cap, base, d, u);
    return buf;
}

const char *ht_fmt_dim_num(char *buf, size_t cap, double base, enum sum_dim d,
                           const struct sum_units *u)
{
    struct hw_buf nb;
    hw_buf_init(&nb, NULL, 0);
    sum_fmt_num(&nb, sum_units_value(u, d, base), "");
    snprintf(buf, cap, "%s", nb.p && !nb.oom ? nb.p : "-");
    hw_buf_free(&nb);
    return buf;
}

const char *ht_mem_axis(const struct sum_units *u, double vmax, double *scale)
{
    if (u && u->given[SUM_DIM_MEM]) {
        *scale = 1 / sum_units_value(u, SUM_DIM_MEM, 1);
        return sum_units_label(u, SUM_DIM_MEM);
    }
    bool gib = vmax >= 2048;
    *scale = gib ? 1024 : 1;
    return gib ? "GiB" : "MiB";
}

static const char page_css[] =
    ":root{--fg:#1f2328;--mute:#5b6570;--line:#d8dde3;--bg:#fff;--pane:#f6f8fa}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica "
    "Neue',Arial,sans-serif;color:var(--fg);background:var(--bg)}\n"
    "header{padding:14px 20px 8px;border-bottom:1px solid var(--line)}\n"
    "h1{font-size:20px;margin:0 0 4px;font-weight:600;word-break:break-all}\n"
    "h2{font-size:14px;margin:18px 0 6px;font-weight:600}\n"
    ".meta{color:var(--mute);margin:0;font-size:13px}\n"
    ".kv{overflow-wrap:anywhere}\n" /* a long param (a path) wraps, never widens the page */
    ".meta b{color:var(--fg);font-weight:600}\n"
    ".layout{display:grid;grid-template-columns:minmax(0,1fr) 370px;gap:20px;padding:8px 20px "
    "20px}\n"
    "@media (max-width:1100px){.layout{grid-template-columns:minmax(0,1fr)}}\n"
    "figure{margin:0 0 6px}\n"
    "figcaption{font-size:13px;color:var(--mute);display:flex;flex-wrap:wrap;gap:4px "
    "12px;align-items:center;padding-left:4px}\n"
    ".ct{color:var(--fg);font-weight:600}\n"
    ".note{font-size:12px}\n"
    "svg.plot{display:block;width:100%;height:auto;overflow:visible}\n"
    ".pa{fill:#fff;stroke:#c9d1d9}\n"
    ".gx,.gy{stroke:#eef1f4;fill:none;stroke-width:1}\n"
    ".tx,.ty,.ty2,.ax{font-size:10.5px;fill:#5b6570}\n"
    ".tx{text-anchor:middle}.ty{text-anchor:end}.ty2{text-anchor:start}\n"
    ".ax{text-anchor:end;font-style:italic}\n"
    "text.ax[transform]{text-anchor:middle}\n"
    ".ln{fill:none;stroke-width:1.3;stroke-linejoin:round;stroke-linecap:round}\n"
    ".ln.dash{stroke-dasharray:5 3;stroke-width:1.1;opacity:.75}\n"
    ".evl{stroke:#8c959f;stroke-width:.8;stroke-dasharray:2 3;fill:none;opacity:.6}\n"
    ".ev{fill:#57606a;stroke:#fff;stroke-width:.6}.ev.bad{fill:#cf222e}\n"
    ".base{stroke:#d0d7de}\n"
    ".ph text{font-size:11px;fill:#24292f;pointer-events:none}\n"
    ".band{opacity:.28}\n"
    ".capped{fill:#cf222e;opacity:.16}\n"
    /* phase colours: pale bands, the same hue stronger in the strip */
    ".p0{fill:#9ecae1;--pc:#9ecae1}.p1{fill:#fdd0a2;--pc:#fdd0a2}"
    ".p2{fill:#c7e9c0;--pc:#c7e9c0}.p3{fill:#dadaeb;--pc:#dadaeb}"
    ".p4{fill:#fcbba1;--pc:#fcbba1}.p5{fill:#c6dbef;--pc:#c6dbef}"
    ".p6{fill:#fee391;--pc:#fee391}.p7{fill:#d9d9d9;--pc:#d9d9d9}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;"
    "background:var(--pc)}\n"
    /* a phase that failed or was killed: red or amber, outlined (the legend names them) */
    ".ph.fail rect{stroke:#cf222e;stroke-width:2;fill:#fecaca}\n"
    ".ph.killed rect{stroke:#b45309;stroke-width:2;stroke-dasharray:4 2;fill:#fde68a}\n"
    ".sw.fail{background:#fecaca;outline:2px solid #cf222e}.sw.killed{background:#fde68a;"
    "outline:2px dashed #b45309}\n"
    ".foot{font-size:11.5px;color:var(--mute);margin:2px 0 8px}\n"
    "pre{font-size:11px;max-height:420px;overflow:auto;background:var(--pane);padding:8px;"
    "white-space:pre-wrap;word-break:break-all}\n"
    /* GPU colours (Tableau 10), the same GPU the same colour in every chart */
    ".g0{stroke:#4e79a7;--c:#4e79a7}.g1{stroke:#f28e2b;--c:#f28e2b}.g2{stroke:#e15759;--c:#e15759}"
    ".g3{stroke:#76b7b2;--c:#76b7b2}.g4{stroke:#59a14f;--c:#59a14f}.g5{stroke:#edc948;--c:#edc948}"
    ".g6{stroke:#b07aa1;--c:#b07aa1}.g7{stroke:#ff9da7;--c:#ff9da7}.g8{stroke:#9c755f;--c:#9c755f}"
    ".g9{stroke:#bab0ac;--c:#bab0ac}\n"
    ".usr{stroke:#3b6ea5;--c:#3b6ea5}.sys{stroke:#d1495b;--c:#d1495b}"
    ".iow{stroke:#e0a100;--c:#e0a100}.rss{stroke:#6a4c93;--c:#6a4c93}"
    ".pcpu{stroke:#1b998b;--c:#1b998b}.cg{stroke:#2a9d8f;--c:#2a9d8f}.lim{stroke:#444;--c:#444}"
    ".dr{stroke:#3a86ff;--c:#3a86ff}.dw{stroke:#ff006e;--c:#ff006e}.nr{stroke:#8338ec;--c:#8338ec}"
    ".nt{stroke:#fb5607;--c:#fb5607}"
    ".en{stroke:#333;--c:#333}.spk{stroke:#4e79a7;--c:#4e79a7}\n"
    ".key{white-space:nowrap;font-size:12px}\n"
    ".key i{display:inline-block;width:14px;height:0;border-top:2.5px solid "
    "var(--c);margin-right:4px;vertical-align:middle}\n"
    ".key.dash i{border-top-style:dashed}\n"
    "aside h2:first-child{margin-top:6px}\n"
    "table{border-collapse:collapse;width:100%;font-size:12.5px;margin-bottom:6px}\n"
    "th,td{padding:3px 6px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}\n"
    "thead th{background:var(--pane);font-weight:600;border-bottom:1px solid var(--line)}\n"
    "tbody th{font-weight:500;color:#424a53}\n"
    ".grid tbody th{white-space:nowrap}\n"
    /* a table wider than its column (the per-phase table of a run of many GPUs) scrolls in its
     * own box: the page never overflows, and no column is cut */
    "aside table.grid,.job table.grid,.gpus table.grid{display:block;overflow-x:auto;"
    "max-width:100%}\n"
    ".gpus{padding:0 20px}\n"
    /* the job's lanes keep a legible scale on a phone: they scroll in their own box */
    ".job{padding:8px 20px}.lanes{overflow-x:auto}.lanes svg.plot{min-width:760px}\n"
    "th.n{text-align:right}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.na{color:#afb8c1}\n"
    "small{color:var(--mute)}\n"
    ".warn{margin:0;padding-left:18px;font-size:12.5px}.warn li{margin:2px 0;color:#9a3412}\n"
    ".warn li.minor{color:var(--mute)}\n"
    ".banner{margin:6px 0;padding:6px 10px;border-radius:4px;font-size:14px}\n"
    ".banner.good{background:#ecfdf5;color:#065f46}.banner.bad{background:#fef2f2;color:#991b1b;"
    "border:1px solid #fca5a5}\n.badstatus{color:#991b1b;font-weight:600}\n"
    ".notes{margin:4px 0;padding:0;list-style:none;font-size:13px}\n"
    "li.note{margin:2px 0;padding:4px 8px;border-radius:4px;border-left:4px solid #0969da;"
    "background:#f6f8fa}\nli.note.warning{border-left-color:#bf8700;background:#fff8c5}\n"
    "li.note.missing{border-left-color:#8c959f;color:#57606a}\n"
    "small.notes{display:block;color:#0969da}small.notes.warning{color:#9a6700;font-weight:600}\n"
    ".ok{color:#1a7f37;font-size:12.5px}\n"
    "details{font-size:12px;margin-top:10px}summary{cursor:pointer;color:var(--mute)}\n"
    "footer{color:var(--mute);font-size:12px;padding:6px 20px 20px}\n"
    "th.sort{cursor:pointer;user-select:none;white-space:nowrap}\n"
    "th.sort::after{content:' \\2195';color:#afb8c1}\n"
    "th[aria-sort=ascending]::after{content:' \\2191';color:var(--fg)}\n"
    "th[aria-sort=descending]::after{content:' \\2193';color:var(--fg)}\n"
    ".sweep td{white-space:nowrap}.sweep th.sort{white-space:normal;vertical-align:bottom;"
    "min-width:4em}\n"
    ".sweep td small{display:block}\n"
    /* the sweep table scrolls in its own box, its header and Run column fixed: the page never
     * scrolls sideways, on a phone neither */
    ".sweepwrap{overflow:auto;max-height:78vh;margin:8px 20px 14px;border:1px solid var(--line)}\n"
    ".sweep{margin:0}.sweep thead th{position:sticky;top:0;z-index:2}\n"
    ".sweep th.run{position:sticky;left:0;z-index:1;background:var(--bg);font-weight:500}\n"
    ".rn{display:inline-block;max-width:15em;overflow:hidden;text-overflow:ellipsis;"
    "white-space:nowrap;vertical-align:top}\n"
    "@media (max-width:600px){.rn{max-width:8em}}\n"
    ".sweep thead th.run{z-index:3;background:var(--pane)}\n"
    ".sweep td.st{white-space:normal;min-width:13em;max-width:21em;overflow-wrap:anywhere}\n"
    ".sweep td.st small.notes{display:inline;margin-left:6px}\n"
    ".sweep th.param{background:#e7f0fb}.sweep th.metric{background:#e6f4ea}\n"
    ".sweep tr:target>*{background:#fff8c5}\n"
    ".plots{padding:0 20px 12px}.plots h2{margin-top:6px}\n"
    ".pgrid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,300px),1fr));"
    "gap:6px 18px;max-width:1240px;align-items:start}\n"
    ".scatter figcaption,.par figcaption{display:block}\n"
    "svg.sc .pt{fill:#0969da;fill-opacity:.7;stroke:#fff;stroke-width:.8}\n"
    "svg.sc .pt.pf{fill:#bf3989;fill-opacity:1}\n"
    "svg.sc .pt.bad{fill:#fff;fill-opacity:1;stroke:#cf222e;stroke-width:1.6}\n"
    "svg.sc a:hover .pt{stroke:#1f2328;stroke-width:2}\n"
    ".front{fill:none;stroke:#bf3989;stroke-width:1.2;stroke-dasharray:4 3}\n"
    ".pc{fill:none;stroke-width:1.3;opacity:.85}.pc.c0{stroke:#c6dbef}.pc.c1{stroke:#9ecae1}"
    ".pc.c2{stroke:#6baed6}.pc.c3{stroke:#3182bd}.pc.c4{stroke:#08519c}"
    ".pc.bad{stroke:#cf222e;stroke-dasharray:3 3;opacity:.7}a:hover .pc{stroke-width:3}\n"
    ".pax{stroke:#57606a;stroke-width:1}\n"
    "table.imp{width:auto;max-width:100%}table.imp caption{text-align:left;font-size:12.5px;"
    "color:var(--mute);padding:4px 0}.rpos{fill:#0969da}.rneg{fill:#cf222e}\n"
    ".frontlist{font-size:13px;margin:2px 0 10px;overflow-wrap:anywhere}\n"
    ".sweep svg{display:block}\n"
    "a{color:#0969da}\n";

void ht_page_head(FILE *f, const char *title, bool script)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
    /* Nothing may be fetched: the page is complete in itself. */
    fprintf(f,
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; img-src data:%s\">\n",
            script ? "; script-src 'unsafe-inline'" : "");
    fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"summarize (hwrun) " HWRUN_VERSION "\">\n<title>",
          f);
    ht_esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n", page_css);
}

int ht_finish(FILE *out, int rc, char *err, size_t errlen)
{
    if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
        rc = errno ? -errno : -EIO;
        ht_set_err(err, errlen, "write error: %s", strerror(-rc));
    }
    return rc;
}

void ht_note(struct ht_notes *N, bool minor, const char *fmt, ...)
{
    if (N->n == sizeof N->text / sizeof N->text[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    N->minor[N->n] = minor;
    vsnprintf(N->text[N->n++], sizeof N->text[0], fmt, ap);
    va_end(ap);
}

int ht_write_page_file(const char *path, ht_draw_fn *draw, const void *ctx, char *err,
                       size_t errlen)
{
    char *page = NULL;
    size_t page_len = 0;
    FILE *mem = open_memstream(&page, &page_len);
    if (!mem)
        return -ENOMEM;
    int rc = draw(mem, ctx, err, errlen);
    if (fclose(mem) != 0 && rc == 0)
        rc = -ENOMEM;
    if (rc == 0) {
        char why[160];
        rc = hw_write_output(path, page, page_len, why, sizeof why);
        if (rc < 0)
            ht_set_err(err, errlen, "write %s: %s", path, why);
    }
    free(page);
    return rc;
}

/* ---- run facts ------------------------------------------------------------------------------ */

double ht_interval(const struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g] && run->gpu[g]->in_query)
            return sum_run_gap_interval(run, HW_FILE_GPU, g);
    return sum_run_gap_interval(run, HW_FILE_CPU, -1);
}

unsigned long long ht_gpu_gaps(const struct sum_run *run)
{
    unsigned long long n = 0;
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g])
            n += run->gpu[g]->energy.gaps;
    return n;
}
