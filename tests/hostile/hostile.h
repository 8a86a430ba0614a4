/* The suites of test_hostile, one file each (test_planted.c registers them all). */
#ifndef HWRUN_TEST_HOSTILE_H
#define HWRUN_TEST_HOSTILE_H

void hostile_register_output(void);    /* test_output.c */
void hostile_register_lifecycle(void); /* test_lifecycle.c */
void hostile_register_fulldisk(void);  /* test_fulldisk.c */
void hostile_register_escapes(void);   /* test_escapes.c */

#endif
