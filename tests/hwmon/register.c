/* hwmon's test program: the suites of test_procfs.c, test_hwmon.c, test_gpm.c, test_prom.c
 * test_gpus.c, test_jobtree.c, test_children.c, test_smiprobe.c, test_edges.c and
 * test_context.c, test_job.c, test_health.c, test_nvml.c. */
#include "testutil.h"

void add_procfs_suite(void);
void add_hwmon_suites(void);
void add_gpm_suite(void);
void add_gpus_suite(void);
void add_prom_suite(void);
void add_jobtree_suite(void);
void add_vocab_suite(void);
void add_sysmon_suite(void);
void add_children_unit_suite(void);
void add_smiprobe_suite(void);
void add_edges_suite(void);
void add_context_suite(void);
void add_job_suite(void);
void add_health_suite(void);
void add_nvml_suite(void);
void add_gpusrc_suite(void);
void add_amd_suite(void);

void cu_register_all(void)
{
    add_procfs_suite();
    add_hwmon_suites();
    add_gpm_suite();
    add_prom_suite();
    add_gpus_suite();
    add_jobtree_suite();
    add_vocab_suite();
    add_sysmon_suite();
    add_children_unit_suite();
    add_smiprobe_suite();
    add_edges_suite();
    add_context_suite();
    add_job_suite();
    add_health_suite();
    add_nvml_suite();
    add_gpusrc_suite();
    add_amd_suite();
}
