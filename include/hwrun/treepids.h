/* tree_pids.csv: which pids belonged to the monitored process tree, and when. hwmon's sampler
 * writes a row when a pid joins the tree (in_tree 1) or leaves it (0); summarize joins it with
 * gpu_procs.csv so that the tree's GPU memory counts the tree's processes only. Both use these
 * names; see hwmon/FORMAT.md "tree_pids.csv". */
#ifndef HWRUN_TREEPIDS_H
#define HWRUN_TREEPIDS_H

#define HW_TREE_PIDS_FILE "tree_pids.csv"
#define HW_TREE_PIDS_COL_PID "pid"
#define HW_TREE_PIDS_COL_IN "in_tree"
#define HW_TREE_PIDS_HEADER "timestamp," HW_TREE_PIDS_COL_PID "," HW_TREE_PIDS_COL_IN

/* The start event's "pid_namespace": whether hwmon saw the host's pids ("init"), which are the
 * ones nvidia-smi prints, or a container's ("other"). */
#define HW_PIDNS_KEY "pid_namespace"
#define HW_PIDNS_INIT "init"
#define HW_PIDNS_OTHER "other"

#endif
