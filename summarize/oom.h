/* Allocation failures a summary could not go on without in full: the leaf code that finds one
 * (a percentile sketch, an index) notes it here, and sum_run_summarize, which reads a run on
 * one thread, turns a note made during its call into -ENOMEM, so that no output passes for
 * whole when a figure lost rows. Per thread: summarize's -j pool reads runs side by side. */
#ifndef SUM_OOM_H
#define SUM_OOM_H

/* This thread failed to allocate, and something is incomplete for it. */
void sum_oom_note(void);
/* The notes this thread made so far, with the growths of hw_buf and hw_grow that failed. */
unsigned long sum_oom_count(void);

#endif
