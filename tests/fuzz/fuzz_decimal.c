/* fuzz_decimal: the one decimal parser (hw_parse_decimal, hw_dec) against strtod. Any text: a
 * strict decimal must give strtod's double, bit for bit; anything else must be refused (strtod
 * is asked about the longest prefix only to check that a refused text is not a decimal). The
 * Python mode on the same bytes must agree with the strict mode wherever the text has no blank,
 * underscore or letter other than e/E. hw_parse_decimal_padded (which reads 8 bytes past the
 * text) must agree with hw_parse_decimal, with digits in the padding to tempt it, and so must
 * its SWAR path hw_parse_decimal8 whenever it takes a text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/decimal8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 9);
    if (!s)
        return 0;
    memcpy(s, data, size);
    memset(s + size, '7', 9);
    double v, pv;
    bool pok_padded = hw_parse_decimal_padded(s, size, &pv);
    double fv;
    bool fok = hw_parse_decimal8(s, size, &fv);
    s[size] = '\0';
    bool ok = hw_parse_decimal(s, size, &v);
    if (pok_padded != ok || (ok && memcmp(&v, &pv, sizeof v) != 0))
        abort();
    if (fok && (!ok || memcmp(&v, &fv, sizeof v) != 0))
        abort();
    bool plain = size > 0 && strlen(s) == size;
    for (size_t i = 0; plain && i < size; i++)
        plain = strchr("0123456789+-.eE", s[i]) != NULL;
    if (ok) {
        if (!plain)
            abort(); /* took a character outside the grammar's alphabet */
        char *end;
        double w = strtod(s, &end);
        if (end != s + size || memcmp(&v, &w, sizeof v) != 0)
            abort();
    } else if (plain) {
        /* refused: strtod must not take the whole text as a decimal either */
        char *end;
        strtod(s, &end);
        if (end == s + size)
            abort();
    }
    struct hw_dec d;
    hw_dec_init(&d, HW_DEC_PY);
    for (size_t i = 0; i < size; i++)
        hw_dec_feed(&d, data[i]);
    double p;
    bool pok = hw_dec_end(&d, &p);
    if (plain && (pok != ok || (ok && memcmp(&v, &p, sizeof v) != 0)))
        abort();
    free(s);
    return 0;
}
