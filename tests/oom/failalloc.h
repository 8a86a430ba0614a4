/* Make the program's nth allocation fail (failalloc.c). */
#ifndef FAILALLOC_H
#define FAILALLOC_H

#include <stdbool.h>

/* From now on count allocations; the nth fails with ENOMEM (0: none). */
void fa_arm(unsigned long nth);
/* Stop counting; the number of allocations since fa_arm. */
unsigned long fa_disarm(void);

#endif
