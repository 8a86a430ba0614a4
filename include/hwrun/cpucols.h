/* cpu_metrics.csv's columns (hwmon/FORMAT.md): hwmon writes its header from these names and
 * summarize reads by them. The first three are pytyche's; the cgroup group is written only
 * inside a cgroup; the disk, network and free-space group always (cells empty when unmeasured).
 * disk_* and net_* are bytes since the previous row (not cumulative counters). */
#ifndef HWRUN_CPUCOLS_H
#define HWRUN_CPUCOLS_H

#define HW_CPU_BASE_HEADER                                                                         \
    "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,mem_used_mib,mem_available_mib"

#define HW_CPU_CG_LIMIT "cgroup_cpu_limit_cores"
#define HW_CPU_CG_PCT "cgroup_cpu_pct"
#define HW_CPU_CG_MEM "cgroup_mem_current_mib"
#define HW_CPU_CG_MEM_MAX "cgroup_mem_max_mib"
#define HW_CPU_CG_MEM_PEAK "cgroup_mem_peak_mib" /* the kernel's peak counter */
#define HW_CPU_CG_HEADER                                                                           \
    "," HW_CPU_CG_LIMIT "," HW_CPU_CG_PCT "," HW_CPU_CG_MEM "," HW_CPU_CG_MEM_MAX                  \
    "," HW_CPU_CG_MEM_PEAK

#define HW_CPU_DISK_READ "disk_read_bytes"
#define HW_CPU_DISK_WRITE "disk_write_bytes"
#define HW_CPU_NET_RX "net_rx_bytes"
#define HW_CPU_NET_TX "net_tx_bytes"
#define HW_CPU_FS_FREE "fs_free_mib"
#define HW_CPU_IO_HEADER                                                                           \
    "," HW_CPU_DISK_READ "," HW_CPU_DISK_WRITE "," HW_CPU_NET_RX "," HW_CPU_NET_TX                 \
    "," HW_CPU_FS_FREE

#endif
