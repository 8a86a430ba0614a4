/* The start event's "cpus_allowed": how many CPUs the job may run on (the CPU affinity mask of
 * the tracked process, or hwmon's own when it tracks none: taskset, SLURM's and Kubernetes'
 * cpusets). hwmon writes it, summarize reads it as the job's expected cores when the cgroup
 * sets no CPU quota. See hwmon/FORMAT.md. */
#ifndef HWRUN_CORES_H
#define HWRUN_CORES_H

#define HW_CPUS_ALLOWED_KEY "cpus_allowed"

#endif
