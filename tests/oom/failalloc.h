/* Make the program's nth allocation fail (failalloc.c). */
#ifndef FAILALLOC_H
#define FAILALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* From now on count allocations; the nth fails with ENOMEM (0: none). */
void fa_arm(unsigned long nth);
/* Stop counting; the number of allocations since fa_arm. */
unsigned long fa_disarm(void);

/* Run fn(arg, shared) in a child process (an allocation failure may end a program: it must not
 * end the test), with size bytes of memory shared with it (zeroed; copied to out when the child
 * ended); the child exits with fn's return. The child's wait status, or -1 if there was none. */
int fa_in_child(int (*fn)(void *arg, void *shared), void *arg, void *out, size_t size);

#endif
