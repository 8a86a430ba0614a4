/* hwmon's own run files (runfiles.h): a descriptor each, and the table of them by enum hw_file,
 * made from HW_RUN_FILES. */
#include "runfiles.h"

#include "csvout.h"

static void cpu_head(struct hw_buf *b, const struct mon_file_run *run)
{
    mon_csv_cpu_header(b, run->cgroup);
}

static void cpu_row(struct hw_buf *b, const struct mon_file_run *run,
                    const struct mon_file_tick *t, void *state)
{
    (void)state;
    if (t->sys)
        mon_csv_cpu_line(b, t->iso, t->sys, run->cgroup, t->when != MON_GPU_CADENCE);
}

const struct mon_file_def mon_file_CPU = {.head = cpu_head, .row = cpu_row};

static void proc_head(struct hw_buf *b, const struct mon_file_run *run)
{
    mon_csv_proc_header(b, run->pss);
}

static void proc_row(struct hw_buf *b, const struct mon_file_run *run,
                     const struct mon_file_tick *t, void *state)
{
    (void)state;
    if (t->proc)
        mon_csv_proc_line(b, t->iso, t->proc, run->pss, t->when != MON_GPU_CADENCE);
}

const struct mon_file_def mon_file_PROC = {
    .with_tree = true, .head = proc_head, .row = proc_row};

static void tree_pids_head(struct hw_buf *b, const struct mon_file_run *run)
{
    (void)run;
    hw_buf_puts(b, HW_TREE_PIDS_HEADER "\n");
}

/* The tree's membership changes since the last tick: a row per pid that joined (1) or left
 * (0). (The sampler empties the list after each tick.) */
static void tree_pids_row(struct hw_buf *b, const struct mon_file_run *run,
                          const struct mon_file_tick *t, void *state)
{
    (void)run, (void)state;
    const struct mon_tree *tree = t->tree;
    if (!tree)
        return;
    for (size_t i = 0; i < tree->nchg; i++) {
        pid_t v = tree->chg[i];
        hw_buf_printf(b, "%s,%d,%d\n", t->iso, (int)(v < 0 ? -v : v), v > 0);
    }
}

const struct mon_file_def mon_file_TREE_PIDS = {
    .with_tree = true, .head = tree_pids_head, .row = tree_pids_row};

const struct mon_file_def *const mon_files[HW_FILE_COUNT] = {
#define MON_FILE_OF_HWMON(ID) [HW_FILE_##ID] = &mon_file_##ID,
#define MON_FILE_OF_GPU(ID)
#define MON_FILE_OF_LOG(ID)
#define MON_FILE_OF(ID, stem, name, reader, by, ...) MON_FILE_OF_##by(ID)
    HW_RUN_FILES(MON_FILE_OF)
#undef MON_FILE_OF
};

bool mon_file_wanted(enum hw_file k, const struct mon_file_run *run)
{
    return mon_files[k] && (!mon_files[k]->with_tree || run->tree);
}
