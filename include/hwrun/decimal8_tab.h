/* The table of decimal8.h's SWAR cell parser, apart from the code that reads it: hw_parse.c
 * defines it without needing decimal8.h, which stands above hw_parse.c (it calls
 * hw_parse_decimal) and not beside it. */
#ifndef HWRUN_DECIMAL8_TAB_H
#define HWRUN_DECIMAL8_TAB_H

#include <stdint.h>

/* hw_parse_decimal8's constants. In a table and not in the code: each is a memory operand where
 * a 64-bit immediate would cost an instruction of its own at every use (a reader's loop cannot
 * keep them all in registers). dot[k] and the rows after it are for a '.' in byte k of the
 * word; k = 7, a trailing '.', is left to hw_parse_decimal (dot[7] never matches). */
struct hw_dec8_tab {
    uint64_t zeros, lt10, highs; /* '0', 0x76 and 0x80 in every byte */
    uint64_t pair, m16, m32, oct; /* hw_dec8_digits */
    uint64_t up[9];               /* 256^(8-n): s[n-1] to the top byte */
    uint64_t dot[8];              /* ('.' ^ '0' ^ 0x80) << 8k: the '.' and its flag */
    uint64_t byte[8];             /* 0xff << 8k */
    uint64_t below[8];            /* bytes 1..k: the digits before the '.', one byte up */
    uint64_t above[8];            /* bytes k+1..7: the digits after it */
    double pow10[8];              /* 10^(7-k): the fraction's scale */
};
extern const struct hw_dec8_tab hw_dec8_tab;

#endif
