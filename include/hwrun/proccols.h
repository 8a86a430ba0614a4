/* proc_metrics.csv's columns added after the first layout (hwmon/FORMAT.md): the main process
 * alone (the tracked pid, without descendants) and the tree's CPU split into user and system
 * time. hwmon writes them after the existing columns, summarize reads them by these names. */
#ifndef HWRUN_PROCCOLS_H
#define HWRUN_PROCCOLS_H

#define HW_PROC_MAIN_RSS "main_rss_mib"
#define HW_PROC_MAIN_CPU "main_cpu_pct"
#define HW_PROC_MAIN_THREADS "main_threads"
#define HW_PROC_USR_CPU "usr_cpu_pct"
#define HW_PROC_SYS_CPU "sys_cpu_pct"
#define HW_PROC_EXTRA_HEADER                                                                       \
    "," HW_PROC_MAIN_RSS "," HW_PROC_MAIN_CPU "," HW_PROC_MAIN_THREADS "," HW_PROC_USR_CPU        \
    "," HW_PROC_SYS_CPU

#endif
