#include "oom.h"

#include "hwrun/buf.h"

static _Thread_local unsigned long noted;

void sum_oom_note(void)
{
    noted++;
}

unsigned long sum_oom_count(void)
{
    return noted + hw_alloc_failures(); /* scratch buffers' failures too */
}
