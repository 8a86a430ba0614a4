/* procfs suite: hwmon's /proc parsers and samplers against the fake trees in testdata/proc/
 * (modern and old-kernel layouts, a comm like "a) b (c"), and the live
 * /proc for a real process tree, including CPU time of children that exited between samples. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "csvout.h"
#include "hwtest.h"
#include "fsspace.h"
#include "machine.h"
#include "proctree.h"
#include "hwrun/buf.h"

static char *td(const char *sub)
{
    return th_fmt("%s/proc/%s", th_env("HWRUN_TESTDATA"), sub);
}

static void test_parse_cpu(void)
{
    struct mon_cpu_times t;
    CU_ASSERT_EQUAL(mon_parse_cpu_line("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1\n", &t), 0);
    CU_ASSERT_EQUAL(t.n, 10);
    CU_ASSERT_EQUAL(t.v[MON_CPU_IDLE], 4);
    CU_ASSERT_EQUAL(t.v[MON_CPU_GUEST_NICE], 10);
    CU_ASSERT_EQUAL(mon_parse_cpu_line("cpu  100 0 50 1000\n", &t), 0); /* 2.4-era: 4 fields */
    CU_ASSERT_EQUAL(t.n, 4);
    CU_ASSERT_EQUAL(t.v[MON_CPU_STEAL], 0);
    t.v[0] = 777;
    CU_ASSERT_EQUAL(mon_parse_cpu_line("cpu0 1 2 3 4\n", &t), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cpu_line("cpu  1 2 3\n", &t), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cpu_line("", &t), -EINVAL);
    CU_ASSERT_EQUAL(t.v[0], 777); /* untouched on failure */
}

static void test_parse_meminfo(void)
{
    struct mon_meminfo m;
    CU_ASSERT_EQUAL(
        mon_parse_meminfo("MemTotal: 1000 kB\nMemFree: 10 kB\nMemAvailable: 600 kB\n", &m), 0);
    CU_ASSERT_EQUAL(m.total_kb, 1000);
    CU_ASSERT_EQUAL(m.avail_kb, 600);
    CU_ASSERT_TRUE(m.have_avail);
    /* before 3.14: no MemAvailable, estimated */
    CU_ASSERT_EQUAL(mon_parse_meminfo("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\n"
                                      "Cached: 250 kB\nSwapCached: 7 kB\n",
                                      &m),
                    0);
    CU_ASSERT_EQUAL(m.avail_kb, 400);
    CU_ASSERT_FALSE(m.have_avail);
    CU_ASSERT_FALSE(m.have_parts); /* no Active(anon): the parts are not written at all */
    CU_ASSERT_FALSE(m.have_sreclaimable);
    CU_ASSERT_EQUAL(mon_parse_meminfo("MemFree: 1 kB\n", &m), -EINVAL);
    /* resource-tracker's parts; SwapCached and Active(file) are other lines */
    CU_ASSERT_EQUAL(mon_parse_meminfo("MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 700 kB\n"
                                      "Buffers: 50 kB\nCached: 250 kB\nSwapCached: 7 kB\n"
                                      "Active: 300 kB\nActive(anon): 120 kB\n"
                                      "Inactive(anon): 30 kB\nActive(file): 180 kB\n"
                                      "Slab: 90 kB\nSReclaimable: 60 kB\nSUnreclaim: 30 kB\n",
                                      &m),
                    0);
    CU_ASSERT_TRUE(m.have_parts);
    CU_ASSERT_TRUE(m.have_sreclaimable);
    CU_ASSERT_EQUAL(m.sreclaimable_kb, 60); /* not Slab's, nor SUnreclaim's */
    CU_ASSERT_EQUAL(m.free_kb, 100);
    CU_ASSERT_EQUAL(m.buffers_kb, 50);
    CU_ASSERT_EQUAL(m.cached_kb, 250);
    CU_ASSERT_EQUAL(m.active_anon_kb, 120);
    CU_ASSERT_EQUAL(m.inactive_anon_kb, 30);
    uint64_t kb = 0;
    CU_ASSERT_EQUAL(mon_parse_kb_field("Rss: 10 kB\nPss:   512 kB\n", "Pss:", &kb), 0);
    CU_ASSERT_EQUAL(kb, 512);
    CU_ASSERT_EQUAL(mon_parse_kb_field("Rss: 10 kB\n", "Pss:", &kb), -ENOENT);
}

static void test_parse_stat(void)
{
    const char *s = "1000 (a) b (c) S 1 1000 1000 0 -1 4194304 100 0 0 0 150 50 20 10 20 0 2 0 "
                    "100 5000000 2560 0 0 0\n";
    struct mon_pstat st;
    CU_ASSERT_EQUAL_FATAL(mon_parse_pid_stat(s, strlen(s), &st), 0);
    CU_ASSERT_STRING_EQUAL(st.comm, "a) b (c");
    CU_ASSERT_EQUAL(st.state, 'S');
    CU_ASSERT_EQUAL(st.ppid, 1);
    CU_ASSERT_EQUAL(st.utime, 150);
    CU_ASSERT_EQUAL(st.stime, 50);
    CU_ASSERT_EQUAL(st.cutime, 20);
    CU_ASSERT_EQUAL(st.cstime, 10);
    CU_ASSERT_EQUAL(st.threads, 2);
    CU_ASSERT_EQUAL(st.starttime, 100);
    CU_ASSERT_EQUAL(st.rss_pages, 2560);
    /* comm with a newline and ") (" that looks like fields */
    const char *w = "7 () 1 2 3 (\n) R 5 7 7 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 9 1000 50\n";
    CU_ASSERT_EQUAL_FATAL(mon_parse_pid_stat(w, strlen(w), &st), 0);
    CU_ASSERT_STRING_EQUAL(st.comm, ") 1 2 3 (\n");
    CU_ASSERT_EQUAL(st.state, 'R');
    CU_ASSERT_EQUAL(st.ppid, 5);
    CU_ASSERT_EQUAL(st.rss_pages, 50);
    /* short (old kernel): ends at rss -> fine; one field less -> rejected */
    const char *o = "10 (old) S 1 10 10 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 9 1000 100";
    CU_ASSERT_EQUAL(mon_parse_pid_stat(o, strlen(o), &st), 0);
    CU_ASSERT_EQUAL(st.utime, 7);
    const char *t = "10 (old) S 1 10 10 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 9 1000";
    CU_ASSERT_EQUAL(mon_parse_pid_stat(t, strlen(t), &st), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_pid_stat("10 (x", 5, &st), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_pid_stat("garbage", 7, &st), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_pid_stat("", 0, &st), -EINVAL);
}

static void test_parse_misc(void)
{
    uint64_t io[MON_IO_COUNT] = {0};
    CU_ASSERT_EQUAL(mon_parse_pid_io("rchar: 5\nwchar: 6\nsyscr: 7\nsyscw: 8\nread_bytes: 4096\n"
                                     "write_bytes: 8192\ncancelled_write_bytes: 9\n",
                                     io),
                    0);
    static const uint64_t want[MON_IO_COUNT] = {5, 6, 7, 8, 4096, 8192, 9};
    for (int k = 0; k < MON_IO_COUNT; k++)
        CU_ASSERT_EQUAL(io[k], want[k]);
    /* a key the kernel does not print keeps its value; without read/write_bytes: refused */
    CU_ASSERT_EQUAL(mon_parse_pid_io("read_bytes: 1\nwrite_bytes: 2\n", io), 0);
    CU_ASSERT_EQUAL(io[MON_IO_RCHAR], 5);
    CU_ASSERT_EQUAL(io[MON_IO_READ_BYTES], 1);
    CU_ASSERT_EQUAL(mon_parse_pid_io("rchar: 5\n", io), -EINVAL);
}

static void test_csv_format(void)
{
    char s[256];
    struct hw_buf b;
    hw_buf_init(&b, s, sizeof s);
    mon_buf_fixed1(&b, 12.34);
    hw_buf_putc(&b, ' ');
    mon_buf_fixed1(&b, 99.96);
    hw_buf_putc(&b, ' ');
    mon_buf_fixed1(&b, 0.04);
    hw_buf_putc(&b, ' ');
    mon_buf_fixed1(&b, -0.25);
    hw_buf_putc(&b, ' ');
    mon_buf_fixed1(&b, NAN);
    hw_buf_putc(&b, ' ');
    hw_buf_u64(&b, 18446744073709551615ULL);
    CU_ASSERT_STRING_EQUAL(b.p, "12.3 100.0 0.0 -0.3  18446744073709551615");
    hw_buf_reset(&b);
    struct mon_sys_sample ss = {.have_cpu = true,
                                .usr_pct = 50,
                                .idle_pct = 25.5,
                                .have_mem = true,
                                .mem_used_mib = 1,
                                .mem_avail_mib = 2};
    mon_csv_cpu_line(&b, "T", &ss, true, false);
    CU_ASSERT_STRING_EQUAL(b.p, "T,50.0,25.5,0.0,0.0,0.0,1.0,2.0,,,,,,,,,,,,,,,,,,\n");
    hw_buf_reset(&b);
    ss.cg = (struct mon_cg_sample){.have_limit = true, .limit_cores = 0.25, .have_mem_peak = true,
                                   .mem_peak_mib = 7.26};
    ss.io = (struct mon_io_sample){.have_disk = true, .disk_read_bytes = 512, .have_fs = true,
                                   .fs_free_mib = 1024};
    mon_csv_cpu_line(&b, "T", &ss, true, false);
    CU_ASSERT_STRING_EQUAL(b.p,
                           "T,50.0,25.5,0.0,0.0,0.0,1.0,2.0,0.25,,,,7.3,512,0,,,1024.0,,,,,,,,\n");
    hw_buf_reset(&b);
    ss.have_mem_parts = true;
    ss.mem_total_mib = 8;
    ss.mem_cached_mib = 3.3;
    mon_csv_cpu_line(&b, "T", &ss, false, false);
    CU_ASSERT_STRING_EQUAL(b.p, "T,50.0,25.5,0.0,0.0,0.0,1.0,2.0,512,0,,,1024.0,8.0,0.0,0.0,3.3,0.0,"
                                "0.0,,\n");
    hw_buf_reset(&b);
    mon_csv_cpu_header(&b, false);
    CU_ASSERT_STRING_EQUAL(b.p, "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,"
                                "mem_used_mib,mem_available_mib,disk_read_bytes,"
                                "disk_write_bytes,net_rx_bytes,net_tx_bytes,fs_free_mib,mem_total_mib,"
                                "mem_free_mib,mem_buffers_mib,mem_cached_mib,"
                                "mem_active_anon_mib,mem_inactive_anon_mib,mem_sreclaimable_mib,edge\n");
    hw_buf_reset(&b);
    mon_csv_cpu_header(&b, true);
    CU_ASSERT_STRING_EQUAL(b.p, "timestamp,usr_pct,idle_pct,sys_pct,iowait_pct,steal_pct,"
                                "mem_used_mib,mem_available_mib,cgroup_cpu_limit_cores,"
                                "cgroup_cpu_pct,cgroup_mem_current_mib,cgroup_mem_max_mib,"
                                "cgroup_mem_peak_mib,disk_read_bytes,disk_write_bytes,"
                                "net_rx_bytes,net_tx_bytes,fs_free_mib,mem_total_mib,"
                                "mem_free_mib,mem_buffers_mib,mem_cached_mib,"
                                "mem_active_anon_mib,mem_inactive_anon_mib,mem_sreclaimable_mib,edge\n");
    hw_buf_reset(&b);
    mon_csv_proc_header(&b, true);
    CU_ASSERT_STRING_EQUAL(b.p, "timestamp,procs,threads,cpu_pct,rss_mib,read_bytes,write_bytes,"
                                "pss_mib,main_rss_mib,main_cpu_pct,main_threads,usr_cpu_pct,"
                                "sys_cpu_pct,private_mib,shared_mib,rchar,wchar,syscr,syscw,"
                                "cancelled_write_bytes,main_private_mib,main_shared_mib,"
                                "shared_once_mib,main_shared_once_mib,desc_shared_once_mib,edge\n");
    hw_buf_reset(&b);
    struct mon_tree_sample ts = {.procs = 3, .threads = 5, .rss_mib = 30, .main_rss_mib = 10,
                                 .main_threads = 2, .main_cpu_pct = 99};
    mon_csv_proc_line(&b, "T", &ts, false, false); /* no CPU baseline yet: CPU cells empty */
    CU_ASSERT_STRING_EQUAL(b.p, "T,3,5,,30.0,0,0,10.0,,2,,,,,0,0,0,0,0,,,,,,\n");
    hw_buf_free(&b);
}

static void check_modern_tree(int mode)
{
    char *root = td("modern");
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, 1000, true), 0);
    if (mode)
        mon_tree_set_mode(&t, mode);
    struct mon_tree_sample s;
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_TRUE(s.root_alive);
    CU_ASSERT_EQUAL(s.procs, 5);
    CU_ASSERT_EQUAL(s.threads, 9);
    CU_ASSERT_DOUBLE_EQUAL(s.rss_mib, 8704.0 * 4 / 1024, 1e-9);
    CU_ASSERT_EQUAL(s.io[MON_IO_READ_BYTES], 60);
    CU_ASSERT_EQUAL(s.io[MON_IO_WRITE_BYTES], 120);
    CU_ASSERT_EQUAL(s.io[MON_IO_RCHAR], 5); /* each of the tree's 5 io files says 1 */
    CU_ASSERT_EQUAL(s.io[MON_IO_SYSCW], 5);
    CU_ASSERT_FALSE(s.have_cpu); /* first sample: baseline */
    CU_ASSERT_TRUE(s.have_pss);
    /* smaps_rollup of 1000 (the main process) and of its child 1002 */
    CU_ASSERT_DOUBLE_EQUAL(s.pss_mib, (512.0 + 160) / 1024, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s.private_mib, (768.0 + 128) / 1024, 1e-9); /* Private_Clean + _Dirty */
    CU_ASSERT_DOUBLE_EQUAL(s.shared_mib, (256.0 + 64) / 1024, 1e-9);   /* Shared_Clean + _Dirty */
    CU_ASSERT_TRUE(s.have_main_pss); /* and the main process alone */
    CU_ASSERT_DOUBLE_EQUAL(s.main_private_mib, 768.0 / 1024, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s.main_shared_mib, 256.0 / 1024, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s.main_rss_mib, 2560.0 * 4 / 1024, 1e-9); /* pid 1000 alone */
    CU_ASSERT_EQUAL(s.main_threads, 2);
    CU_ASSERT_EQUAL(t.mode, mode ? mode : 1); /* children files exist: no scan needed */
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 2.0, &s), 0);
    CU_ASSERT_TRUE(s.have_cpu);
    CU_ASSERT_DOUBLE_EQUAL(s.cpu_pct, 0.0, 1e-9); /* the files did not change */
    CU_ASSERT_DOUBLE_EQUAL(s.main_cpu_pct, 0.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s.usr_cpu_pct + s.sys_cpu_pct, 0.0, 1e-9);
    CU_ASSERT_EQUAL(s.procs, 5);
    CU_ASSERT_TRUE(s.have_pss); /* no budget: every sample */
    /* on a budget, the next PSS read waits until its cost is that share of the time since */
    t.pss_budget = 1e-12;
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 3.0, &s), 0);
    CU_ASSERT_TRUE(s.have_pss);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 4.0, &s), 0);
    CU_ASSERT_FALSE(s.have_pss); /* not read: unmeasured, not 0 */
    CU_ASSERT_FALSE(s.have_main_pss);
    CU_ASSERT_TRUE(s.root_alive && s.rss_mib > 0);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1e9, &s), 0);
    CU_ASSERT_TRUE(s.have_pss);
    CU_ASSERT_DOUBLE_EQUAL(s.pss_mib, (512.0 + 160) / 1024, 1e-9);
    mon_tree_close(&t);
    /* hwmon as 1001 (a child of the process it watches): it and its child 1004 are not the job */
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, 1000, false), 0);
    if (mode)
        mon_tree_set_mode(&t, mode);
    mon_tree_exclude(&t, 1001);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, 3);
    mon_tree_close(&t);
    /* --no-children: the root alone, whatever its children files say */
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, 1000, false), 0);
    if (mode)
        mon_tree_set_mode(&t, mode);
    mon_tree_alone(&t);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, 1);
    CU_ASSERT_DOUBLE_EQUAL(s.rss_mib, s.main_rss_mib, 1e-9);
    CU_ASSERT_EQUAL(s.threads, s.main_threads);
    mon_tree_close(&t);
    CU_ASSERT_EQUAL(mon_tree_open(&t, root, 4242, false), -ESRCH);
    free(root);
}

/* On a PSS budget, a process whose RSS has not moved keeps its last smaps_rollup reading (the
 * kernel's walk of it is most of a sample's cost, issue 39): a new Pss in the file is not seen
 * until the RSS moves or the reading is MON_PSS_MAX_AGE_S old; with --pss (no budget) every
 * sample reads it. */
/* Replace from by to in file, in place (hwmon keeps its /proc files open: the same inode),
 * as the kernel's files change; 0 or -1. */
static int rewrite(const char *file, const char *from, const char *to)
{
    size_t n;
    char *text = th_read_file(file, &n);
    char *at = text ? strstr(text, from) : NULL;
    if (!at) {
        free(text);
        return -1;
    }
    char *out = th_fmt("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    int fd = open(file, O_WRONLY | O_TRUNC);
    int rc = fd >= 0 && write(fd, out, strlen(out)) == (ssize_t)strlen(out) ? 0 : -1;
    if (fd >= 0)
        close(fd);
    free(out);
    free(text);
    return rc;
}

/* A copy of testdata/proc/modern that a test changes as it goes (in place: hwmon keeps the
 * files open); its root, under *tmp (th_rmtree and free both when done). */
static char *modern_copy(const char *tag, char **tmp)
{
    *tmp = th_tmpdir(tag);
    char *cp = th_fmt("cp -r '%s/proc/modern' '%s/p'", th_env("HWRUN_TESTDATA"), *tmp);
    CU_ASSERT_FATAL(system(cp) == 0);
    free(cp);
    return th_fmt("%s/p", *tmp);
}

static void test_pss_kept_while_rss_still(void)
{
    char *tmp, *root = modern_copy("pss-keep", &tmp);
    char *smaps = th_fmt("%s/1000/smaps_rollup", root);
    char *stat = th_fmt("%s/1000/stat", root);
    for (int every = 0; every < 2; every++) {
        if (every) /* back to the fixture's */
            CU_ASSERT_FATAL(rewrite(smaps, "Pss:  2048 kB", "Pss:   512 kB") == 0);
        struct mon_tree t;
        CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, 1000, true), 0);
        t.pss_budget = every ? 0 : 0.5; /* 0: --pss */
        struct mon_tree_sample s;
        CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
        CU_ASSERT_DOUBLE_EQUAL(s.pss_mib, (512.0 + 160) / 1024, 1e-9);
        CU_ASSERT_FATAL(rewrite(smaps, "Pss:   512 kB", "Pss:  1024 kB") == 0);
        CU_ASSERT_EQUAL(mon_tree_sample(&t, 2.0, &s), 0);
        CU_ASSERT_TRUE(s.have_pss); /* the kept reading is a reading */
        CU_ASSERT_DOUBLE_EQUAL(s.pss_mib, ((every ? 1024.0 : 512.0) + 160) / 1024, 1e-9);
        /* its RSS moves: read again in the same sample */
        CU_ASSERT_FATAL(rewrite(stat, " 5000000 2560 ", " 5000000 2561 ") == 0);
        CU_ASSERT_EQUAL(mon_tree_sample(&t, 3.0, &s), 0);
        CU_ASSERT_DOUBLE_EQUAL(s.pss_mib, (1024.0 + 160) / 1024, 1e-9);
        CU_ASSERT_FATAL(rewrite(smaps, "Pss:  1024 kB", "Pss:  2048 kB") == 0);
        CU_ASSERT_EQUAL(mon_tree_sample(&t, 3.0 + MON_PSS_MAX_AGE_S, &s), 0); /* too old */
        CU_ASSERT_DOUBLE_EQUAL(s.pss_mib, (2048.0 + 160) / 1024, 1e-9);
        CU_ASSERT_FATAL(rewrite(stat, " 5000000 2561 ", " 5000000 2560 ") == 0);
        mon_tree_close(&t);
    }
    th_rmtree(tmp);
    free(root);
    free(smaps);
    free(stat);
    free(tmp);
}

/* Issue 39: who is in the tree is walked again only when a pid was handed out since the last
 * walk (/proc/loadavg's last field), and a process of one thread whose schedstat has not moved
 * keeps its last stat and io. What a member's own files tell still counts between walks: an
 * exit, an orphan reparented out, one reparented to a subreaper inside. */
static void w(const char *dir, const char *file, const char *text)
{
    char *path = th_fmt("%s/%s", dir, file);
    CU_ASSERT_FATAL(th_write_file(path, text, strlen(text)) == 0);
    free(path);
}

static void rw(const char *dir, const char *file, const char *from, const char *to)
{
    char *path = th_fmt("%s/%s", dir, file);
    CU_ASSERT_FATAL(rewrite(path, from, to) == 0);
    free(path);
}

static void test_tree_walks_on_new_pids(void)
{
    char *tmp, *root = modern_copy("quiet", &tmp);
    w(root, "loadavg", "0.10 0.20 0.30 2/150 1005\n");
    w(root, "1002/schedstat", "5000000 100 7\n");
    w(root, "1004/schedstat", "9000000 100 3\n");
    struct mon_tree t;
    struct mon_tree_sample s;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, 1000, false), 0);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, 5);
    CU_ASSERT_EQUAL(t.walks, 1);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 2.0, &s), 0); /* no new pid: no walk */
    CU_ASSERT_EQUAL(s.procs, 5);
    CU_ASSERT_EQUAL(s.threads, 9);
    CU_ASSERT_EQUAL(t.walks, 1);
    CU_ASSERT_EQUAL(t.kept, 0); /* the schedstat baselines are taken */
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 3.0, &s), 0);
    CU_ASSERT_EQUAL(t.kept, 2); /* 1002 and 1004 did not run: stat and io not read */
    CU_ASSERT_EQUAL(s.io[MON_IO_READ_BYTES], 60);
    CU_ASSERT_DOUBLE_EQUAL(s.rss_mib, 8704.0 * 4 / 1024, 1e-9);
    /* 1002 runs: 40 more ticks, read again */
    rw(root, "1002/stat", " 5 5 0 0 ", " 45 5 0 0 ");
    rw(root, "1002/schedstat", "5000000 100 7", "405000000 100 9");
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 4.0, &s), 0);
    CU_ASSERT_DOUBLE_EQUAL(s.cpu_pct, 40.0, 1e-9);
    CU_ASSERT_EQUAL(t.kept, 3); /* 1004 alone */
    /* 2000 becomes 1002's child: unseen until a new pid says a walk is due */
    rw(root, "2000/stat", " S 1 2000 ", " S 1002 2000 ");
    w(root, "1002/task/1002/children", "2000 ");
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 5.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, 5);
    rw(root, "loadavg", " 1005", " 2000");
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 6.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, 6);
    CU_ASSERT_EQUAL(t.walks, 2);
    /* 1001 exits and is reaped (its open stat reads nothing): its child 1004, asleep, is
     * reparented to init, out of the tree */
    w(root, "1001/stat", "");
    rw(root, "1004/stat", ") S 1001 ", ") S 1 ");
    t.nchg = 0;
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 7.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, 4);
    CU_ASSERT_EQUAL(t.walks, 2);
    CU_ASSERT_EQUAL(t.nchg, 2); /* both left: tree_pids.csv says so */
    /* 1002 exits (it ran, and its files read nothing once reaped); 2000 is reparented to
     * 1000, a subreaper: it stays */
    w(root, "1002/stat", "");
    w(root, "1002/schedstat", "");
    rw(root, "2000/stat", " S 1002 2000 ", " S 1000 2000 ");
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 8.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, 3);
    CU_ASSERT_EQUAL(t.walks, 2);
    /* and however quiet, a walk at least every MON_TREE_WALK_MAX_AGE_S */
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 6.0 + MON_TREE_WALK_MAX_AGE_S, &s), 0);
    CU_ASSERT_EQUAL(t.walks, 3);
    mon_tree_close(&t);
    th_rmtree(tmp);
    free(root);
    free(tmp);
}

/* A runner (3000, new) starts a command (3001, new) that writes: the sample that first sees
 * them counts 3001's bytes in new_io (held out of a phase's begin row by the sampler); kept
 * new (mon_tree_keep_new: the sampler held them out of a cadence row, a begin line waiting),
 * they are new_io at the next sample too, and then no longer. */
static void test_tree_keep_new(void)
{
    char *tmp, *root = modern_copy("keep-new", &tmp);
    struct mon_tree_sample s;
    char *t0 = th_fmt("%s/3000/task/3000", root), *t1 = th_fmt("%s/3001/task/3001", root);
    CU_ASSERT_FATAL(hw_mkdir_p(t0, NULL) == 0 && hw_mkdir_p(t1, NULL) == 0);
    free(t0);
    free(t1);
    w(root, "3000/stat", "3000 (runlog) S 1000 3000 3000 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 500 0 100\n");
    w(root, "3000/io", "rchar: 0\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: 0\nwrite_bytes: 0\n"
                       "cancelled_write_bytes: 0\n");
    w(root, "3000/task/3000/children", "3001 ");
    w(root, "3001/stat", "3001 (dd) R 3000 3000 3000 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 501 0 100\n");
    w(root, "3001/io", "rchar: 0\nwchar: 4096\nsyscr: 0\nsyscw: 1\nread_bytes: 0\n"
                       "write_bytes: 4096\ncancelled_write_bytes: 0\n");
    w(root, "3001/task/3001/children", "");
    w(root, "1000/task/1000/children", "1001 1002 3000 ");
    for (int keep = 0; keep < 2; keep++) {
        struct mon_tree k;
        CU_ASSERT_EQUAL_FATAL(mon_tree_open(&k, root, 1000, false), 0);
        w(root, "1000/task/1000/children", "1001 1002 "); /* not yet started */
        CU_ASSERT_EQUAL(mon_tree_sample(&k, 1.0, &s), 0);
        w(root, "1000/task/1000/children", "1001 1002 3000 ");
        CU_ASSERT_EQUAL(mon_tree_sample(&k, 2.0, &s), 0);
        CU_ASSERT_EQUAL(s.procs, 7);
        CU_ASSERT_EQUAL(s.new_io[MON_IO_WRITE_BYTES], 4096);
        if (keep)
            mon_tree_keep_new(&k);
        CU_ASSERT_EQUAL(mon_tree_sample(&k, 3.0, &s), 0);
        CU_ASSERT_EQUAL(s.new_io[MON_IO_WRITE_BYTES], keep ? 4096 : 0);
        CU_ASSERT_EQUAL(mon_tree_sample(&k, 4.0, &s), 0);
        CU_ASSERT_EQUAL(s.new_io[MON_IO_WRITE_BYTES], 0);
        mon_tree_close(&k);
    }
    th_rmtree(tmp);
    free(root);
    free(tmp);
}

/* ---- a reap between two reads of one walk, made deterministic ----
 * A fake /proc whose processes the test changes as the kernel would (a reap adds the child's
 * CPU time and bytes to its parent's, then the child's files read nothing; an orphan takes its
 * new parent), from the tree's before_read hook: between hwmon's read of a parent and of its
 * child, where the race lies, or between samples. */
struct fake_proc {
    int pid, ppid;
    bool live;
    unsigned long long wbytes, ticks, cticks;
};

#define FAKE_MAX 8
struct fake_event {
    unsigned walk; /* the walk (counted at each read of the root) it happens in */
    int before;    /* before the read of this pid */
    int reap;      /* this pid exits and its parent reaps it */
};
struct fake_tree {
    char *root;
    int root_pid;
    struct fake_proc p[FAKE_MAX];
    int n;
    unsigned walk;
    struct fake_event ev[4];
    int nev, next_ev;
    bool order_ok; /* every member was read after its parent, in every walk */
    int seen[FAKE_MAX * 4];
    int nseen;
};

static struct fake_proc *fake_find(struct fake_tree *f, int pid)
{
    for (int i = 0; i < f->n; i++)
        if (f->p[i].pid == pid)
            return &f->p[i];
    return NULL;
}

static void fake_sync(struct fake_tree *f)
{
    for (int i = 0; i < f->n; i++) {
        const struct fake_proc *p = &f->p[i];
        char *dir = th_fmt("%s/%d/task/%d", f->root, p->pid, p->pid);
        CU_ASSERT_EQUAL_FATAL(hw_mkdir_p(dir, NULL), 0);
        free(dir);
        char stat_f[32], io_f[32], kids_f[48];
        snprintf(stat_f, sizeof stat_f, "%d/stat", p->pid);
        snprintf(io_f, sizeof io_f, "%d/io", p->pid);
        snprintf(kids_f, sizeof kids_f, "%d/task/%d/children", p->pid, p->pid);
        if (!p->live) { /* reaped: its open files read nothing */
            w(f->root, stat_f, "");
            w(f->root, io_f, "");
            w(f->root, kids_f, "");
            continue;
        }
        char *st = th_fmt("%d (p%d) S %d %d %d 0 -1 0 0 0 0 0 %llu 0 %llu 0 20 0 1 0 100 0 100\n",
                          p->pid, p->pid, p->ppid, f->root_pid, f->root_pid, p->ticks, p->cticks);
        w(f->root, stat_f, st);
        free(st);
        char *io = th_fmt("rchar: 0\nwchar: %llu\nsyscr: 0\nsyscw: 0\nread_bytes: 0\n"
                          "write_bytes: %llu\ncancelled_write_bytes: 0\n",
                          p->wbytes, p->wbytes);
        w(f->root, io_f, io);
        free(io);
        struct hw_buf b;
        hw_buf_init(&b, NULL, 0);
        for (int j = 0; j < f->n; j++)
            if (f->p[j].live && f->p[j].ppid == p->pid)
                hw_buf_printf(&b, "%d ", f->p[j].pid);
        hw_buf_putc(&b, '\0');
        w(f->root, kids_f, b.p);
        hw_buf_free(&b);
    }
}

/* pid exits and its parent reaps it: the kernel adds its totals to the parent's, and its
 * children go to the root (a subreaper) */
static void fake_reap(struct fake_tree *f, int pid)
{
    struct fake_proc *c = fake_find(f, pid), *pp = c ? fake_find(f, c->ppid) : NULL;
    CU_ASSERT_FATAL(c && pp && c->live);
    pp->wbytes += c->wbytes;
    pp->cticks += c->ticks + c->cticks;
    c->live = false;
    for (int i = 0; i < f->n; i++)
        if (f->p[i].live && f->p[i].ppid == pid)
            f->p[i].ppid = f->root_pid;
    fake_sync(f);
}

static void fake_before_read(void *arg, pid_t pid)
{
    struct fake_tree *f = arg;
    if (pid == f->root_pid) {
        f->walk++;
        f->nseen = 0;
    }
    const struct fake_proc *p = fake_find(f, pid);
    if (pid != f->root_pid && p && p->live) { /* its parent was read before it, this walk */
        bool parent_first = false;
        for (int i = 0; i < f->nseen; i++)
            parent_first |= f->seen[i] == p->ppid;
        if (!parent_first) {
            fprintf(stderr, "walk %u: %d read before its parent %d\n", f->walk, pid, p->ppid);
            f->order_ok = false;
        }
    }
    if (f->nseen < (int)(sizeof f->seen / sizeof f->seen[0]))
        f->seen[f->nseen++] = pid;
    if (f->next_ev < f->nev && f->ev[f->next_ev].walk == f->walk &&
        f->ev[f->next_ev].before == pid)
        fake_reap(f, f->ev[f->next_ev++].reap);
}

/* The tree's bytes and CPU ticks as the job itself has them: its live members' own (each with
 * what it reaped). */
static void fake_truth(struct fake_tree *f, unsigned long long *bytes, unsigned long long *ticks)
{
    *bytes = *ticks = 0;
    for (int i = 0; i < f->n; i++)
        if (f->p[i].live) {
            *bytes += f->p[i].wbytes;
            *ticks += f->p[i].ticks + f->p[i].cticks;
        }
}

static void fake_open(struct fake_tree *f, struct mon_tree *t, const char *tag,
                      const struct fake_proc *procs, int n, int mode)
{
    memset(f, 0, sizeof *f);
    f->root = th_tmpdir(tag);
    f->root_pid = procs[0].pid;
    memcpy(f->p, procs, (size_t)n * sizeof *procs);
    f->n = n;
    f->order_ok = true;
    fake_sync(f);
    if (mode == 3) /* no pid handed out: the walks between samples are skipped (quiet) */
        w(f->root, "loadavg", "0.10 0.20 0.30 2/150 1007\n");
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(t, f->root, f->root_pid, false), 0);
    if (mode != 3)
        mon_tree_set_mode(t, mode);
    t->before_read = fake_before_read;
    t->before_read_arg = f;
}

static void fake_close(struct fake_tree *f, struct mon_tree *t)
{
    mon_tree_close(t);
    th_rmtree(f->root);
    free(f->root);
}

/* A runner (1001) whose three short children (dd's: 1002, 1003, 1006) write and are reaped,
 * read both ways: each reap between two samples, and each between hwmon's read of the runner
 * and of the child, in the same walk (in sample 3 a second one in the walk read again). The
 * tree's bytes never fall, and each row is the job's own truth but for the one that a second
 * race left short, which holds the row before; CPU time the same. (A scan reads every stat
 * before any io: there a reap before the child's stat is in its parent's io, read after.) */
static void check_reap_between_reads(int mode)
{
    static const struct fake_proc procs[] = {
        {1000, 1, true, 10, 5, 0},       {1001, 1000, true, 100, 7, 0},
        {1002, 1001, true, 4096, 3, 0},  {1003, 1001, true, 8192, 11, 0},
        {1006, 1001, true, 16384, 13, 0},
    };
    enum { SAMPLES = 4 };
    unsigned long long rows[2][SAMPLES], truth[SAMPLES], cpu[2] = {0, 0};
    for (int race = 0; race < 2; race++) {
        struct fake_tree f;
        struct mon_tree t;
        fake_open(&f, &t, "reap-race", procs, 5, mode);
        struct mon_tree_sample s;
        for (int k = 0; k < SAMPLES; k++) {
            /* what the job does between samples, either way */
            if (k == 1)
                fake_find(&f, 1003)->wbytes += 1000, fake_find(&f, 1003)->ticks += 40;
            if (k == 2)
                fake_find(&f, 1006)->wbytes += 2000, fake_find(&f, 1006)->ticks += 50;
            if (k == 3)
                fake_find(&f, 1001)->wbytes += 5, fake_find(&f, 1001)->ticks += 1;
            fake_sync(&f);
            if (!race && k == 1)
                fake_reap(&f, 1002);
            if (!race && k == 2)
                fake_reap(&f, 1003), fake_reap(&f, 1006);
            if (race && k == 1) /* the walk after the root's read of sample 2 */
                f.ev[f.nev++] = (struct fake_event){f.walk + 1, 1002, 1002};
            if (race && k == 2) { /* in the walk, and again in the walk read again */
                f.ev[f.nev++] = (struct fake_event){f.walk + 1, 1003, 1003};
                f.ev[f.nev++] = (struct fake_event){f.walk + 2, 1006, 1006};
            }
            CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0 + k, &s), 0);
            rows[race][k] = s.io[MON_IO_WRITE_BYTES];
            CU_ASSERT_EQUAL(s.io[MON_IO_WCHAR], rows[race][k]);
            unsigned long long ticks;
            fake_truth(&f, &truth[k], &ticks);
            if (s.have_cpu) /* ticks over the tree, 1 s apart */
                cpu[race] += (unsigned long long)llround(s.cpu_pct * (double)t.clk_tck / 100);
            if (k > 0 && rows[race][k] < rows[race][k - 1])
                fprintf(stderr, "mode %d race %d: sample %d's bytes fell from %llu to %llu\n",
                        mode, race, k + 1, rows[race][k - 1], rows[race][k]);
            CU_ASSERT(k == 0 || rows[race][k] >= rows[race][k - 1]);
        }
        CU_ASSERT_EQUAL(f.next_ev, f.nev); /* every race happened where it was meant to */
        CU_ASSERT_TRUE(f.order_ok);
        fake_close(&f, &t);
    }
    for (int k = 0; k < SAMPLES; k++) {
        if (k == 2 && mode != 2) { /* the second race's row: short, held at the row before */
            CU_ASSERT_EQUAL(rows[1][k], rows[1][k - 1]);
            CU_ASSERT(rows[1][k] < truth[k]);
        } else {
            if (rows[1][k] != truth[k])
                fprintf(stderr, "mode %d: sample %d read %llu bytes of %llu\n", mode, k + 1,
                        rows[1][k], truth[k]);
            CU_ASSERT_EQUAL(rows[1][k], truth[k]);
        }
        CU_ASSERT_EQUAL(rows[0][k], truth[k]);
    }
    CU_ASSERT_EQUAL(cpu[0], 40 + 50 + 1);
    CU_ASSERT_EQUAL(cpu[1], cpu[0]);
}

static void test_tree_reap_between_reads(void)
{
    for (int mode = 1; mode <= 3; mode++)
        check_reap_between_reads(mode);
}

/* A subreaper (the root, 1000) whose child 1001 exits while hwmon walks the tree through the
 * children files: the root's file was read before, so 1001's child 1005, reparented to the root,
 * is in neither file the walk reads. Still the tree's: counted once, not kept as gone and read
 * again in full by the next walk (its 7000 bytes twice, for good). */
static void test_tree_orphan_kept(void)
{
    static const struct fake_proc procs[] = {
        {1000, 1, true, 10, 5, 0}, {1001, 1000, true, 100, 7, 0}, {1005, 1001, true, 7000, 9, 0}};
    for (int mode = 1; mode <= 3; mode++) {
        struct fake_tree f;
        struct mon_tree t;
        fake_open(&f, &t, "orphan-kept", procs, 3, mode);
        struct mon_tree_sample s;
        CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
        CU_ASSERT_EQUAL(s.procs, 3);
        f.ev[f.nev++] = (struct fake_event){f.walk + 1, 1001, 1001};
        for (int k = 2; k <= 4; k++) {
            if (k == 3)
                fake_find(&f, 1005)->wbytes += 1, fake_sync(&f);
            CU_ASSERT_EQUAL(mon_tree_sample(&t, k, &s), 0);
            unsigned long long bytes, ticks;
            fake_truth(&f, &bytes, &ticks);
            if (s.io[MON_IO_WRITE_BYTES] != bytes)
                fprintf(stderr, "mode %d: sample %d read %llu bytes of %llu\n", mode, k,
                        (unsigned long long)s.io[MON_IO_WRITE_BYTES], bytes);
            CU_ASSERT_EQUAL(s.io[MON_IO_WRITE_BYTES], bytes);
            CU_ASSERT_EQUAL(s.procs, 2);
            CU_ASSERT(!s.have_cpu || fabs(s.cpu_pct) < 1e-9); /* no tick twice either */
        }
        CU_ASSERT_EQUAL(f.next_ev, f.nev);
        CU_ASSERT_TRUE(f.order_ok);
        fake_close(&f, &t);
    }
}

static void test_tree_children(void)
{
    check_modern_tree(0);
}

static void test_tree_scan(void)
{
    check_modern_tree(2);
}

static void test_tree_old(void)
{
    char *root = td("old");
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, 10, false), 0);
    struct mon_tree_sample s;
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_EQUAL(t.mode, 2); /* no task/TID/children: full scan */
    CU_ASSERT_EQUAL(s.procs, 2);
    CU_ASSERT_EQUAL(s.threads, 2);
    CU_ASSERT_EQUAL(s.io[MON_IO_READ_BYTES], 0); /* no io files */
    CU_ASSERT_DOUBLE_EQUAL(s.rss_mib, 150.0 * 4 / 1024, 1e-9);
    mon_tree_close(&t);
    free(root);
}

static void test_sys_modern(void)
{
    char *root = td("modern");
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(mon_sys_open(&s, root, NULL, NULL), 0); /* no /sys: no cgroup, disks */
    CU_ASSERT_FALSE(s.cg.found);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_FALSE(x.have_cpu);
    CU_ASSERT_TRUE(x.have_mem);
    CU_ASSERT_DOUBLE_EQUAL(x.mem_avail_mib, 8000.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.mem_used_mib, 8000.0, 1e-9);
    CU_ASSERT_FALSE(x.cg.have_mem || x.io.have_fs);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 2.0, &x), 0);
    CU_ASSERT_FALSE(x.have_cpu); /* no jiffies passed: not measured, not 0/0 */
    CU_ASSERT_FALSE(x.io.have_disk || x.io.have_net); /* no diskstats, net/dev */
    mon_sys_close(&s);
    free(root);
}

static void test_sys_old(void)
{
    char *root = td("old");
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(mon_sys_open(&s, root, "/nonexistent", NULL), 0);
    CU_ASSERT_FALSE(s.cg.found);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_TRUE(x.have_mem);
    CU_ASSERT_DOUBLE_EQUAL(x.mem_avail_mib, 500000.0 / 1024, 1e-9);
    mon_sys_close(&s);
    free(root);
}

static void test_sys_live(void)
{
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(mon_sys_open(&s, "/proc", "/", NULL), 0);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 0.0, &x), 0);
    th_sleep(0.2);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 0.2, &x), 0);
    CU_ASSERT_TRUE(x.have_cpu);
    CU_ASSERT_TRUE(x.usr_pct >= 0 && x.usr_pct <= 100);
    CU_ASSERT_TRUE(x.idle_pct >= 0 && x.idle_pct <= 100);
    CU_ASSERT_TRUE(x.usr_pct + x.idle_pct + x.sys_pct + x.iowait_pct + x.steal_pct <= 100.05);
    CU_ASSERT_TRUE(x.mem_used_mib > 0 && x.mem_avail_mib > 0);
    mon_sys_close(&s);
}

/* A real tree: sh with two sleeping children. */
static void test_tree_live(void)
{
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & sleep 30 & wait", NULL};
    pid_t pid = th_spawn(argv, NULL, NULL, NULL);
    CU_ASSERT_FATAL(pid > 0);
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, "/proc", pid, false), 0);
    struct mon_tree_sample s = {0};
    for (int i = 0; i < 100; i++) { /* wait for sh to start both */
        mon_tree_sample(&t, i * 0.05, &s);
        if (s.procs == 3)
            break;
        th_sleep(0.05);
    }
    CU_ASSERT_EQUAL(s.procs, 3);
    CU_ASSERT_TRUE(s.root_alive);
    CU_ASSERT_TRUE(s.rss_mib > 0);
    pid_t seen[8];
    size_t ns = 0;
    for (size_t i = 0; i < t.n && ns < 8; i++)
        seen[ns++] = t.p[i].pid;
    /* every member's join is recorded for tree_pids.csv, the root's first */
    CU_ASSERT_TRUE_FATAL(t.nchg >= 3);
    CU_ASSERT_EQUAL(t.chg[0], pid);
    for (size_t i = 0; i < ns; i++) {
        bool joined = false;
        for (size_t k = 0; k < t.nchg; k++)
            joined |= t.chg[k] == seen[i];
        CU_ASSERT_TRUE(joined);
    }
    kill(pid, SIGKILL); /* the sleeps get reparented: they leave the tree */
    th_wait(pid, 5);
    mon_tree_sample(&t, 10.0, &s);
    CU_ASSERT_FALSE(s.root_alive);
    mon_tree_close(&t);
    for (size_t i = 0; i < ns; i++)
        if (seen[i] != pid)
            kill(seen[i], SIGKILL);
}

/* hwmon says in its start event whether nvidia-smi's pids can be ours at all */
static void test_pid_ns(void)
{
    int r = mon_pid_ns_is_init("/proc");
    CU_ASSERT(r == 0 || r == 1);
    char *dir = th_tmpdir("pidns");
    char *ns = th_fmt("%s/self/ns", dir);
    CU_ASSERT_EQUAL(mon_pid_ns_is_init(dir), -ENOENT);
    CU_ASSERT_EQUAL(hw_mkdir_p(ns, NULL), 0);
    char *f = th_fmt("%s/pid", ns);
    CU_ASSERT_EQUAL(th_write_file(f, "", 0), 0);
    CU_ASSERT_EQUAL(mon_pid_ns_is_init(dir), 0); /* any other inode: another namespace */
    th_rmtree(dir);
    free(f);
    free(ns);
    free(dir);
}

/* The main process's own CPU beside the tree's, and the tree's split into user and system. */
static void test_tree_main_usr_sys(void)
{
    char *argv[] = {"/bin/sh", "-c", "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done", NULL};
    pid_t pid = th_spawn(argv, NULL, NULL, NULL);
    CU_ASSERT_FATAL(pid > 0);
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, "/proc", pid, false), 0);
    struct mon_tree_sample s;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t0 = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    CU_ASSERT_EQUAL(mon_tree_sample(&t, t0, &s), 0);
    th_sleep(0.5);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, (double)ts.tv_sec + ts.tv_nsec / 1e9, &s), 0);
    CU_ASSERT_TRUE(s.root_alive && s.have_cpu);
    CU_ASSERT_TRUE(s.main_cpu_pct > 0); /* the shell itself is busy */
    CU_ASSERT_TRUE(s.main_cpu_pct <= s.cpu_pct + 1e-9);
    CU_ASSERT_TRUE(s.usr_cpu_pct > 0);
    CU_ASSERT_DOUBLE_EQUAL(s.usr_cpu_pct + s.sys_cpu_pct, s.cpu_pct, 1e-9);
    CU_ASSERT_EQUAL(s.main_threads, 1);
    CU_ASSERT_DOUBLE_EQUAL(s.main_rss_mib, s.rss_mib, 1e-9); /* no descendants */
    mon_tree_close(&t);
    kill(pid, SIGKILL);
    th_wait(pid, 5);
}

/* The same real tree read two ways: as hwmon does (walked only when a pid was handed out,
 * sleeping members' stat and io kept) and walked in full at every sample (no loadavg): every
 * figure agrees, also once a child is killed. */
static void test_tree_live_kept(void)
{
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & sleep 30 & while :; do :; done", NULL};
    pid_t pid = th_spawn(argv, NULL, NULL, NULL);
    CU_ASSERT_FATAL(pid > 0);
    struct mon_tree a, b;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&a, "/proc", pid, false), 0);
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&b, "/proc", pid, false), 0);
    mon_close_fd(&b.loadavg_fd); /* b walks at every sample */
    struct mon_tree_sample sa = {0}, sb = {0};
    for (int i = 0; i < 100 && sa.procs != 3; i++) {
        mon_tree_sample(&a, i * 0.02, &sa);
        th_sleep(0.02);
    }
    CU_ASSERT_EQUAL_FATAL(sa.procs, 3);
    pid_t kids[2] = {0, 0};
    for (size_t i = 0, k = 0; i < a.n && k < 2; i++)
        if (a.p[i].pid != pid)
            kids[k++] = a.p[i].pid;
    for (int i = 0; i < 40; i++) {
        if (i == 20)
            kill(kids[0], SIGKILL); /* a zombie until sh waits: in the tree either way */
        th_sleep(0.02);
        CU_ASSERT_EQUAL(mon_tree_sample(&a, 10 + i * 0.02, &sa), 0);
        CU_ASSERT_EQUAL(mon_tree_sample(&b, 10 + i * 0.02, &sb), 0);
        CU_ASSERT_EQUAL(sa.procs, sb.procs);
        CU_ASSERT_EQUAL(sa.threads, sb.threads);
        for (int k = 0; k < MON_IO_COUNT; k++)
            CU_ASSERT_EQUAL(sa.io[k], sb.io[k]);
        /* the shell's own pages may move between the two reads: the sleeps' may not */
        CU_ASSERT_DOUBLE_EQUAL(sa.rss_mib - sa.main_rss_mib, sb.rss_mib - sb.main_rss_mib, 1e-9);
    }
    CU_ASSERT_EQUAL(b.kept, 0);
    fprintf(stderr, "[tree_live_kept] %lu walks, %lu readings kept\n", a.walks, a.kept);
    mon_tree_close(&a);
    mon_tree_close(&b);
    kill(pid, SIGKILL);
    th_wait(pid, 5);
    for (int i = 0; i < 2; i++)
        if (kids[i] > 0)
            kill(kids[i], SIGKILL);
}

/* The sum over root and its children of the smaps_rollup fields whose names start with field
 * ("Pss:", "Shared_"), in MiB, as the kernel says it now, NAN where a file had none; *procs: the
 * files read. */
static double tree_rollup_sum(pid_t root, const char *field, int *procs)
{
    char *kids = th_fmt("/proc/%d/task/%d/children", (int)root, (int)root);
    char *list = th_read_file(kids, NULL);
    free(kids);
    char *key = th_fmt("\n%s", field);
    double sum = 0;
    *procs = 0;
    char *at = list;
    for (long pid = root; pid > 0;) {
        char *f = th_fmt("/proc/%ld/smaps_rollup", pid);
        char *text = th_read_file(f, NULL);
        const char *k = text ? strstr(text, key) : NULL;
        if (!k)
            sum = NAN;
        for (; k; k = strstr(k + 1, key))
            sum += strtod(strchr(k, ':') + 1, NULL) / 1024.0;
        *procs += text != NULL;
        free(text);
        free(f);
        char *end;
        pid = at ? strtol(at, &end, 10) : 0;
        at = at && end != at ? end : NULL;
    }
    free(key);
    free(list);
    return sum;
}

/* The tree's own PSS, as the kernel says it now (MiB), or NAN. */
static double tree_pss_truth(pid_t root)
{
    int procs;
    return tree_rollup_sum(root, "Pss:", &procs);
}

/* A worker of the DataLoader pattern: a 200 MiB parent forks two workers that touch 40 MiB each;
 * they exit. Forks and exits move PSS (pages shared three ways, then not) with no RSS moving: a
 * kept reading is stale from then on, so the cheap path (a PSS budget, readings kept while RSS
 * is still) reads again where the tree's members change, and says what reading every sample
 * (--pss) and the kernel itself say, within 2% (kept readings said +45%, then -66%). */
static void test_tree_pss_fork(void)
{
    int cmd[2], ack[2];
    CU_ASSERT_FATAL(pipe(cmd) == 0 && pipe(ack) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(cmd[1]);
        close(ack[0]);
        size_t n = (size_t)200 << 20;
        char *big = malloc(n), c;
        if (!big)
            _exit(1);
        memset(big, 1, n);
        if (big[n - 1] != 1) /* used: kept */
            _exit(1);
        pid_t w[2] = {0, 0};
        while (read(cmd[0], &c, 1) == 1) {
            if (c == 'f') { /* two workers, 40 MiB of their own each, then wait */
                int ready[2];
                if (pipe(ready) < 0)
                    _exit(1);
                for (int i = 0; i < 2; i++)
                    if ((w[i] = fork()) == 0) {
                        char *own = malloc((size_t)40 << 20);
                        if (!own)
                            _exit(1);
                        memset(own, 'r', (size_t)40 << 20);
                        (void)!write(ready[1], own + ((size_t)39 << 20), 1); /* used: kept */
                        pause();
                        _exit(0);
                    }
                for (int i = 0; i < 2; i++)
                    (void)!read(ready[0], &c, 1);
                close(ready[0]);
                close(ready[1]);
            } else if (c == 'x') { /* the workers exit, reaped */
                for (int i = 0; i < 2; i++) {
                    kill(w[i], SIGKILL);
                    waitpid(w[i], NULL, 0);
                }
            }
            (void)!write(ack[1], "k", 1);
        }
        _exit(0);
    }
    CU_ASSERT_FATAL(pid > 0);
    close(cmd[0]);
    close(ack[1]);
    struct mon_tree cheap, every;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&cheap, "/proc", pid, true), 0);
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&every, "/proc", pid, true), 0);
    /* the kept path: a budget (hwmon's is MON_PSS_BUDGET of the time; here all of it, so that
     * a sanitizer's slow reads never defer a sample: the rule for kept readings is the same) */
    cheap.pss_budget = 1;
    every.pss_budget = 0; /* --pss */
    char c = 'w', *stage[] = {"alone", "forked", "exited"};
    double t = 0;
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            c = 'f';
        if (k == 2)
            c = 'x';
        CU_ASSERT_FATAL(write(cmd[1], &c, 1) == 1); /* 'w': the 200 MiB are touched */
        CU_ASSERT_FATAL(read(ack[0], &c, 1) == 1);
        /* a few samples a second apart (the budget's clock), the tree still */
        struct mon_tree_sample a, b;
        for (int i = 0; i < 3; i++, t += 1) {
            CU_ASSERT_EQUAL(mon_tree_sample(&cheap, t, &a), 0);
            CU_ASSERT_EQUAL(mon_tree_sample(&every, t, &b), 0);
        }
        double truth = tree_pss_truth(pid);
        uint64_t reads = cheap.pss_reads;
        CU_ASSERT_EQUAL(mon_tree_sample(&cheap, t, &a), 0);
        CU_ASSERT_EQUAL(mon_tree_sample(&every, t, &b), 0);
        t += 1;
        fprintf(stderr, "[tree_pss_fork] %s: %d processes, PSS %.1f MiB kept-path, %.1f every "
                        "sample, %.1f the kernel's\n",
                stage[k], a.procs, a.pss_mib, b.pss_mib, truth);
        CU_ASSERT_EQUAL(a.procs, k == 1 ? 3 : 1);
        CU_ASSERT_TRUE(a.have_pss && b.have_pss);
        CU_ASSERT(fabs(a.pss_mib - truth) <= 0.02 * truth);
        CU_ASSERT(fabs(a.pss_mib - b.pss_mib) <= 0.02 * b.pss_mib);
        CU_ASSERT_EQUAL(cheap.pss_reads, reads); /* the tree still: its readings were kept */
    }
    close(cmd[1]);
    CU_ASSERT_EQUAL(th_wait(pid, 10), 0);
    mon_tree_close(&cheap);
    mon_tree_close(&every);
    close(ack[0]);
}

/* smaps text as the kernel writes it: gpu_tracker's rule (psutil's memory_maps) counts each path
 * once per group, at the most one mapping of it holds, anonymous mappings as one path. */
static void test_shared_once_text(void)
{
    static const char main_maps[] =
        "55d0c0000000-55d0c0021000 r--p 00000000 08:01 1234                       /usr/bin/python3\n"
        "Size:                132 kB\nRss:                  128 kB\nShared_Clean:         100 kB\n"
        "Shared_Dirty:           0 kB\nPrivate_Clean:         28 kB\nPrivate_Dirty:          0 kB\n"
        "VmFlags: rd mr mw me sd\n"
        "55d0c0021000-55d0c0300000 r-xp 00021000 08:01 1234                       /usr/bin/python3\n"
        "Shared_Clean:         900 kB\nShared_Dirty:           0 kB\n"
        "7f0000000000-7f0012c00000 rw-p 00000000 00:00 0 \n"
        "Shared_Clean:           0 kB\nShared_Dirty:      204800 kB\n"
        "7f1000000000-7f1000001000 rw-s 00000000 00:05 77                         /dev/shm/my data (deleted)\n"
        "Shared_Clean:           0 kB\nShared_Dirty:          40 kB\n"
        "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
        "Shared_Clean:           0 kB\nShared_Dirty:           0 kB";
    static const char worker_maps[] =
        "55d0c0021000-55d0c0300000 r-xp 00021000 08:01 1234                       /usr/bin/python3\n"
        "Shared_Clean:         950 kB\nShared_Dirty:           0 kB\n"
        "7f0000000000-7f0012c00000 rw-p 00000000 00:00 0\n"
        "Shared_Clean:           0 kB\nShared_Dirty:      204800 kB\n"
        "7f2000000000-7f2000100000 rw-p 00000000 00:00 0\n"
        "Shared_Clean:           0 kB\nShared_Dirty:        1000 kB\n"
        "7f1000000000-7f1000001000 rw-s 00000000 00:05 77                         /dev/shm/my data\n"
        "Shared_Clean:           0 kB\nShared_Dirty:          60 kB\n";
    struct mon_shared_once so;
    mon_so_init(&so);
    for (int round = 0; round < 2; round++) { /* the second sample starts again from nothing */
        mon_so_begin(&so);
        CU_ASSERT_EQUAL(mon_so_add_text(&so, main_maps, sizeof main_maps - 1, true), 0);
        for (int w = 0; w < 3; w++)
            CU_ASSERT_EQUAL(mon_so_add_text(&so, worker_maps, sizeof worker_maps - 1, false), 0);
        /* main: python3's two mappings at their most (900, not 1000), the anonymous 200 MiB,
         * the deleted file under its name */
        CU_ASSERT_EQUAL(so.kb[MON_SO_MAIN], 900 + 204800 + 40);
        CU_ASSERT_EQUAL(so.kb[MON_SO_DESC], 950 + 204800 + 60); /* three workers: once */
        CU_ASSERT_EQUAL(so.kb[MON_SO_ALL], 950 + 204800 + 60);
        CU_ASSERT_TRUE(so.any[MON_SO_MAIN] && so.any[MON_SO_DESC] && so.any[MON_SO_ALL]);
    }
    /* a line longer than any path is cut, not a crash; a file of nothing is a process of none */
    char *long_line = th_fmt("7f00-7f01 r--p 0 0:0 1 /%0*d\nShared_Clean: 7 kB\n", 9000, 1);
    mon_so_begin(&so);
    CU_ASSERT_EQUAL(mon_so_add_text(&so, long_line, strlen(long_line), false), 0);
    CU_ASSERT_EQUAL(mon_so_add_text(&so, "", 0, true), 0);
    CU_ASSERT_EQUAL(so.kb[MON_SO_DESC], 7);
    CU_ASSERT_EQUAL(so.kb[MON_SO_MAIN], 0);
    free(long_line);
    mon_so_free(&so);
}


/* gpu_tracker's shared RSS of a real tree (hwmon --shared-once): a parent whose 200 MiB are
 * shared with three forked workers holds them once, where the processes' Shared_* add up to
 * four times that; alone, and after the workers exited, only its libraries are shared. */
static void test_tree_shared_once(void)
{
    int cmd[2], ack[2];
    CU_ASSERT_FATAL(pipe(cmd) == 0 && pipe(ack) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(cmd[1]);
        close(ack[0]);
        size_t n = (size_t)200 << 20;
        char *big = malloc(n), c;
        if (!big)
            _exit(1);
        memset(big, 1, n);
        if (big[n - 1] != 1) /* used: kept */
            _exit(1);
        pid_t w[3] = {0, 0, 0};
        while (read(cmd[0], &c, 1) == 1) {
            if (c == 'f') {
                for (int i = 0; i < 3; i++)
                    if ((w[i] = fork()) == 0) {
                        pause();
                        _exit(0);
                    }
            } else if (c == 'x') {
                for (int i = 0; i < 3; i++) {
                    kill(w[i], SIGKILL);
                    waitpid(w[i], NULL, 0);
                }
            }
            (void)!write(ack[1], "k", 1);
        }
        _exit(0);
    }
    CU_ASSERT_FATAL(pid > 0);
    close(cmd[0]);
    close(ack[1]);
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, "/proc", pid, true), 0);
    t.pss_budget = 0;
    mon_tree_shared_once(&t);
    const char *stage[] = {"alone", "forked", "exited"}, order[] = {'w', 'f', 'x'};
    for (int k = 0; k < 3; k++) {
        char c = order[k];
        CU_ASSERT_FATAL(write(cmd[1], &c, 1) == 1);
        CU_ASSERT_FATAL(read(ack[0], &c, 1) == 1);
        struct mon_tree_sample s;
        int procs = 0;
        for (int i = 0; i < 2; i++) /* the second sees the workers (a walk on new pids) */
            CU_ASSERT_EQUAL(mon_tree_sample(&t, k * 2 + i, &s), 0);
        double rollup = tree_rollup_sum(pid, "Shared_", &procs);
        fprintf(stderr, "[tree_shared_once] %s: %u processes; shared once %.1f MiB (main %.1f, "
                        "descendants %.1f), Shared_* summed %.1f (the kernel's: %.1f)\n",
                stage[k], s.procs, s.shared_once_mib[MON_SO_ALL], s.shared_once_mib[MON_SO_MAIN],
                s.shared_once_mib[MON_SO_DESC], s.shared_mib, rollup);
        CU_ASSERT_EQUAL(s.procs, k == 1 ? 4u : 1u);
        CU_ASSERT_EQUAL(procs, (int)s.procs);
        CU_ASSERT_TRUE(s.have_shared_once[MON_SO_ALL] && s.have_shared_once[MON_SO_MAIN] &&
                       s.have_shared_once[MON_SO_DESC]);
        if (k != 1) { /* the libraries it shares with the machine, at most their pages summed */
            CU_ASSERT(s.shared_once_mib[MON_SO_ALL] <= rollup + 0.1);
            CU_ASSERT(s.shared_once_mib[MON_SO_ALL] < 50);
            CU_ASSERT_EQUAL(s.shared_once_mib[MON_SO_DESC], 0);
        } else {
            CU_ASSERT(rollup > 4 * 199); /* every process holds the 200 MiB as shared */
            CU_ASSERT(fabs(s.shared_mib - rollup) <= 0.02 * rollup);
            /* once: the 200 MiB and the libraries, at most what one process alone shares (the
             * four map the same; under a sanitizer its shadow of them too), not the sum */
            for (int g = 0; g < MON_SO_COUNT; g++) {
                CU_ASSERT(s.shared_once_mib[g] >= 199);
                CU_ASSERT(s.shared_once_mib[g] <= rollup / procs + 2);
            }
        }
    }
    close(cmd[1]);
    CU_ASSERT_EQUAL(th_wait(pid, 10), 0);
    mon_tree_close(&t);
    close(ack[0]);
}

/* Why --shared-once reads smaps_rollup beside smaps (sharedonce.h): the rollup's figures, summed
 * from the same smaps, are the same for every field but PSS. The kernel prints each mapping's
 * figures in kB rounded down, and the rollup's once, of its unrounded sums: Rss, Private_* and
 * Shared_* are whole pages either way, while a mapping's PSS holds fractions of pages shared
 * (a page over its mapcount), so the smaps sum is short by up to 1 kB per mapping (fs/proc/
 * task_mmu.c). Read both ways on a still tree (a parent with a shared mapping and three forked
 * workers touching parts of it, all blocked): every field equal, PSS within the mappings'
 * count, and the cost of each read said. */
static void smaps_sums(const char *text, uint64_t *rss, uint64_t *pss, uint64_t *priv,
                       uint64_t *shared, uint64_t *swap, unsigned *vmas)
{
    static const struct {
        const char *key;
        int which;
    } f[] = {{"Rss:", 0},           {"Pss:", 1},           {"Private_Clean:", 2},
             {"Private_Dirty:", 2}, {"Shared_Clean:", 3},  {"Shared_Dirty:", 3},
             {"Swap:", 4}};
    uint64_t *out[] = {rss, pss, priv, shared, swap};
    for (int i = 0; i < 5; i++)
        *out[i] = 0;
    *vmas = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if ((*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f'))
            ++*vmas; /* a mapping's header line */
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            if (!strncmp(l, f[i].key, strlen(f[i].key)))
                *out[f[i].which] += strtoull(l + strlen(f[i].key), NULL, 10);
    }
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_rollup_from_smaps(void)
{
    int ack[2], hold[2];
    CU_ASSERT_FATAL(pipe(ack) == 0 && pipe(hold) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(ack[0]);
        close(hold[1]);
        size_t n = (size_t)16 << 20;
        char *sh = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (sh == MAP_FAILED)
            _exit(1);
        memset(sh, 1, n);
        char c;
        for (int i = 0; i < 3; i++)
            if (fork() == 0) {
                memset(sh, 2, n / (size_t)(i + 2)); /* a different share of it each */
                (void)!write(ack[1], "w", 1);
                (void)!read(hold[0], &c, 1);
                _exit(0);
            }
        (void)!write(ack[1], "p", 1);
        (void)!read(hold[0], &c, 1);
        while (wait(NULL) > 0)
            ;
        _exit(0);
    }
    CU_ASSERT_FATAL(pid > 0);
    close(ack[1]);
    close(hold[0]);
    char c;
    for (int i = 0; i < 4; i++)
        CU_ASSERT_FATAL(read(ack[0], &c, 1) == 1);
    /* the tree: the parent and its children (task/PID/children) */
    char *kp = th_fmt("/proc/%d/task/%d/children", (int)pid, (int)pid);
    char *kids = th_read_file(kp, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kids);
    int pids[4] = {pid, 0, 0, 0}, np = 1;
    for (char *q = kids; np < 4 && (pids[np] = (int)strtol(q, &q, 10)) > 0; np++)
        ;
    CU_ASSERT_EQUAL(np, 4);
    uint64_t pss_s = 0, pss_r = 0;
    unsigned vmas_all = 0;
    double cost[2] = {0, 0};
    for (int i = 0; i < np; i++) {
        char *sp = th_fmt("/proc/%d/smaps", pids[i]), *rp = th_fmt("/proc/%d/smaps_rollup", pids[i]);
        double t0 = cpu_now();
        char *smaps = th_read_file(sp, NULL);
        double t1 = cpu_now();
        char *roll = th_read_file(rp, NULL);
        cost[0] += t1 - t0, cost[1] += cpu_now() - t1;
        CU_ASSERT_FATAL(smaps && roll);
        uint64_t v[5], r[5] = {0, 0, 0, 0, 0}, x;
        unsigned vmas;
        smaps_sums(smaps, &v[0], &v[1], &v[2], &v[3], &v[4], &vmas);
        static const char *const rk[][2] = {{"Rss:", NULL},           {"Pss:", NULL},
                                            {"Private_Clean:", "Private_Dirty:"},
                                            {"Shared_Clean:", "Shared_Dirty:"},
                                            {"Swap:", NULL}};
        for (int k = 0; k < 5; k++)
            for (int j = 0; j < 2; j++)
                if (rk[k][j] && mon_parse_kb_field(roll, rk[k][j], &x) == 0)
                    r[k] += x;
        for (int k = 0; k < 5; k++)
            if (k != 1) {
                if (v[k] != r[k])
                    fprintf(stderr, "[rollup_from_smaps] %d: %s %llu kB in smaps, %llu in the rollup\n",
                            pids[i], rk[k][0], (unsigned long long)v[k], (unsigned long long)r[k]);
                CU_ASSERT_EQUAL(v[k], r[k]);
            }
        CU_ASSERT(v[0] >= 4096); /* the shared 16 MiB, or some of it, is resident */
        CU_ASSERT(v[1] <= r[1] && r[1] < v[1] + vmas); /* PSS: each mapping rounded down */
        pss_s += v[1], pss_r += r[1];
        vmas_all += vmas;
        free(smaps);
        free(roll);
        free(sp);
        free(rp);
    }
    fprintf(stderr, "[rollup_from_smaps] 4 processes, %u mappings: PSS %llu kB summed from smaps, "
                    "%llu kB the rollups'; one read of each: smaps %.0f us, smaps_rollup %.0f us\n",
            vmas_all, (unsigned long long)pss_s, (unsigned long long)pss_r, cost[0] * 1e6,
            cost[1] * 1e6);
    close(hold[1]);
    CU_ASSERT_EQUAL(th_wait(pid, 10), 0);
    close(ack[0]);
    free(kids);
    free(kp);
}

static bool comm_is_sleep(void *arg)
{
    char *path = th_fmt("/proc/%d/comm", *(int *)arg);
    char buf[32] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = '\0';
        fclose(f);
    }
    free(path);
    return strcmp(buf, "sleep\n") == 0;
}

/* The wrapped command is opened while it may still be hwmon's child image: its PSS must be read
 * from the program it execs into (the first smaps_rollup then fails with ESRCH). */
static void test_tree_pss_after_exec(void)
{
    int go[2];
    CU_ASSERT_EQUAL_FATAL(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) == 1)
            execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    CU_ASSERT_FATAL(pid > 0);
    close(go[0]);
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, "/proc", pid, true), 0);
    struct mon_tree_sample s;
    CU_ASSERT_EQUAL(write(go[1], "x", 1), 1);
    close(go[1]);
    int ipid = (int)pid;
    CU_ASSERT_TRUE(ht_wait_until(comm_is_sleep, &ipid, 10));
    for (int i = 0; i < 3; i++) { /* stays read, sample after sample */
        CU_ASSERT_EQUAL(mon_tree_sample(&t, i * 0.1, &s), 0);
        CU_ASSERT_TRUE(s.root_alive);
        CU_ASSERT_TRUE(s.have_pss);
        CU_ASSERT_TRUE(s.pss_mib > 0);
    }
    mon_tree_close(&t);
    kill(pid, SIGKILL);
    th_wait(pid, 5);
}

/* Run `sh -c script` (which must create the file $DONE when its work is done, then idle),
 * sample its tree every period seconds, and return the tree's CPU seconds summed over the
 * samples; *truth gets the shell's own rusage from wait4(), which includes every descendant it
 * (or its descendants) reaped. */
static double tree_cpu_vs_rusage(const char *work, double period, double *truth, bool *finished)
{
    char *dir = th_tmpdir("hwmon-exited");
    char *done = th_fmt("%s/done", dir);
    char *script = th_fmt("%s; : > '%s'; exec sleep 30", work, done);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    CU_ASSERT_FATAL(pid > 0);
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, "/proc", pid, false), 0);
    struct mon_tree_sample s;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double prev = 0, cpu_s = 0;
    mon_tree_sample(&t, 0, &s);
    *finished = false;
    for (int i = 0; i < (int)(30 / period) && !*finished; i++) {
        th_sleep(period);
        *finished = access(done, F_OK) == 0;
        struct timespec n;
        clock_gettime(CLOCK_MONOTONIC, &n);
        double now = (double)(n.tv_sec - t0.tv_sec) + (double)(n.tv_nsec - t0.tv_nsec) * 1e-9;
        if (mon_tree_sample(&t, now, &s) == 0 && s.have_cpu)
            cpu_s += s.cpu_pct / 100 * (now - prev);
        prev = now;
    }
    th_sleep(0.05); /* the "sleep 30" exec is idle; one more sample catches the last ticks */
    struct timespec n;
    clock_gettime(CLOCK_MONOTONIC, &n);
    double now = (double)(n.tv_sec - t0.tv_sec) + (double)(n.tv_nsec - t0.tv_nsec) * 1e-9;
    if (mon_tree_sample(&t, now, &s) == 0 && s.have_cpu)
        cpu_s += s.cpu_pct / 100 * (now - prev);
    mon_tree_close(&t);
    kill(pid, SIGKILL);
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
        ;
    *truth = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
             (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    th_rmtree(dir);
    free(dir);
    free(done);
    free(script);
    return cpu_s;
}

/* CPU of descendants that exit between samples is still counted (reaped by a tracked parent:
 * its cutime; orphaned: its last reading). The shell runs short-lived dd processes one after
 * another, each living a few milliseconds; the tree's CPU summed over the samples must match
 * the shell's own rusage. Without the exited children's time the tree would show almost
 * nothing. */
static void test_tree_exited_children(void)
{
    bool finished;
    double truth, cpu_s = tree_cpu_vs_rusage(
        "i=0; while [ $i -lt 25 ]; do dd if=/dev/zero of=/dev/null bs=64k count=5000 "
        "2>/dev/null; i=$((i+1)); done",
        0.05, &truth, &finished);
    fprintf(stderr, "[tree_exited_children] tree %.3f s, rusage %.3f s\n", cpu_s, truth);
    CU_ASSERT_TRUE(finished);
    CU_ASSERT(truth > 0.05);
    /* ticks are 10 ms: allow a few of them, and 15 % */
    CU_ASSERT(fabs(cpu_s - truth) <= 0.15 * truth + 0.04);
}

/* Two generations gone in one interval: dd (0.3 s here, sampled every 0.15 s), seen running by
 * a sample, is reaped by a middle shell, which is reaped by the root before the next sample.
 * dd's time reaches the root's cutime through the middle shell's
 * totals; it must not also be counted as "orphaned" because its own parent vanished too (that
 * double count once showed a 2-core machine at 1700 %). */
static void test_tree_exited_grandchildren(void)
{
    bool finished;
    double truth, cpu_s = tree_cpu_vs_rusage(
        "i=0; while [ $i -lt 4 ]; do sh -c 'dd if=/dev/zero of=/dev/null bs=64k count=100000 "
        "2>/dev/null; true'; i=$((i+1)); done",
        0.15, &truth, &finished);
    fprintf(stderr, "[tree_exited_grandchildren] tree %.3f s, rusage %.3f s\n", cpu_s, truth);
    CU_ASSERT_TRUE(finished);
    CU_ASSERT(truth > 0.1);
    CU_ASSERT(fabs(cpu_s - truth) <= 0.15 * truth + 0.04);
}

/* A generated /proc with a tree of BIG_N processes (root BIG_ROOT, 8 children each) and
 * outsiders: every process is found (in both modes) through the pid index, a steady tree
 * allocates nothing (the tables keep their place and size), a shrunk one is re-indexed. */
#define BIG_ROOT 3000
#define BIG_N 2000
#define BIG_OUT 10000
#define BIG_NOUT 300

/* "PID/task/TID/children", in a static buffer (one at a time). */
static const char *kids_rel(int pid, int tid)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%d/task/%d/children", pid, tid);
    return buf;
}

static void big_write(const char *root, const char *rel, const char *text)
{
    char *p = th_fmt("%s/%s", root, rel);
    CU_ASSERT_EQUAL(th_write_file(p, text, strlen(text)), 0);
    free(p);
}

/* Thousands of directories: in tmpfs when there is one (mkdir on a disk-backed /tmp can take a
 * millisecond each). th_rmtree removes it. */
static char *big_tmpdir(const char *tag)
{
    if (access("/dev/shm", W_OK) != 0)
        return th_tmpdir(tag);
    char *d = th_fmt("/dev/shm/%s-XXXXXX", tag);
    if (!mkdtemp(d)) {
        free(d);
        return th_tmpdir(tag);
    }
    return d;
}

static void big_mkdir(const char *root, int pid, bool task)
{
    char *p = th_fmt("%s/%d", root, pid);
    CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
    free(p);
    if (task) {
        p = th_fmt("%s/%d/task", root, pid);
        CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
        free(p);
        p = th_fmt("%s/%d/task/%d", root, pid, pid);
        CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
        free(p);
    }
}

static void big_stat_threads(const char *root, int pid, int ppid, int threads)
{
    char rel[32], text[256];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (w%d) S %d %d %d 0 -1 4194304 100 0 0 0 1 1 0 0 20 0 %d 0 200 5000000 10 0 0 0 "
             "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
             pid, pid, ppid, pid, pid, threads);
    big_write(root, rel, text);
}

static void big_stat(const char *root, int pid, int ppid)
{
    big_stat_threads(root, pid, ppid, 1);
}

/* The children files of the tree's parents, listing the pids below `upto` only (the leaves'
 * files are written empty once). */
static void big_children(const char *root, int upto)
{
    static char text[BIG_N * 8];
    for (int pid = BIG_ROOT; pid < BIG_ROOT + BIG_N && (pid - BIG_ROOT) * 8 + 1 < BIG_N; pid++) {
        size_t n = 0;
        text[0] = '\0';
        for (int k = (pid - BIG_ROOT) * 8 + 1; k <= (pid - BIG_ROOT) * 8 + 8; k++)
            if (BIG_ROOT + k < upto && k < BIG_N)
                n += (size_t)snprintf(text + n, sizeof text - n, "%d ", BIG_ROOT + k);
        char rel[48];
        snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
        big_write(root, rel, text);
    }
}

static void check_big_tree(const char *root, int mode)
{
    struct mon_tree t;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, BIG_ROOT, false), 0);
    mon_tree_set_mode(&t, mode);
    struct mon_tree_sample s;
    long pg = sysconf(_SC_PAGESIZE) / 1024;
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, BIG_N);
    CU_ASSERT_EQUAL(s.threads, BIG_N);
    CU_ASSERT_DOUBLE_EQUAL(s.rss_mib, BIG_N * 10.0 * (double)pg / 1024, 1e-9);
    CU_ASSERT(t.idx_cap >= 2 * t.n);
    /* steady: no table moves or grows */
    const void *p0 = t.p, *i0 = t.idx;
    size_t cap0 = t.cap, icap0 = t.idx_cap;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(mon_tree_sample(&t, 2.0 + i, &s), 0);
        CU_ASSERT_EQUAL(s.procs, BIG_N);
    }
    CU_ASSERT(t.p == p0 && t.idx == i0 && t.cap == cap0 && t.idx_cap == icap0);
    CU_ASSERT_DOUBLE_EQUAL(s.cpu_pct, 0.0, 1e-9); /* the files did not change */
    /* the upper half leaves: their stat files empty, their parents no longer list them */
    for (int pid = BIG_ROOT + BIG_N / 2; pid < BIG_ROOT + BIG_N; pid++) {
        char rel[32];
        snprintf(rel, sizeof rel, "%d/stat", pid);
        big_write(root, rel, "");
    }
    big_children(root, BIG_ROOT + BIG_N / 2);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 10.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, BIG_N / 2);
    CU_ASSERT_EQUAL(t.n, BIG_N / 2);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 11.0, &s), 0); /* found again through the new index */
    CU_ASSERT_EQUAL(s.procs, BIG_N / 2);
    CU_ASSERT_EQUAL(s.threads, BIG_N / 2);
    CU_ASSERT(t.idx == i0 && t.idx_cap == icap0);
    mon_tree_close(&t);
}

static void test_tree_big(void)
{
    char *root = big_tmpdir("bigproc");
    for (int pid = BIG_ROOT; pid < BIG_ROOT + BIG_N; pid++) {
        bool parent = (pid - BIG_ROOT) * 8 + 1 < BIG_N; /* a leaf has no children file */
        big_mkdir(root, pid, parent);
        big_stat(root, pid, pid == BIG_ROOT ? 1 : BIG_ROOT + (pid - BIG_ROOT - 1) / 8);
    }
    for (int pid = BIG_OUT; pid < BIG_OUT + BIG_NOUT; pid++) {
        big_mkdir(root, pid, false);
        big_stat(root, pid, 1);
    }
    big_children(root, BIG_ROOT + BIG_N);
    check_big_tree(root, 1);
    /* the same directory again, now without the upper half: grow it back first */
    for (int pid = BIG_ROOT + BIG_N / 2; pid < BIG_ROOT + BIG_N; pid++)
        big_stat(root, pid, BIG_ROOT + (pid - BIG_ROOT - 1) / 8);
    big_children(root, BIG_ROOT + BIG_N);
    check_big_tree(root, 2);
    th_rmtree(root);
    free(root);
}

/* A process with more children than one 4 KiB read of its children file holds (1500 pids,
 * 7.5 KB): all are found, none is misread from a pid cut at the buffer's end; through the
 * kept-open file (one thread) and through task/TID/children (two threads). */
static void test_tree_wide(void)
{
    char *root = big_tmpdir("wideproc");
    const int kids = 1500;
    big_mkdir(root, BIG_ROOT, true);
    big_stat(root, BIG_ROOT, 1);
    static char text[16384];
    size_t n = 0;
    for (int pid = BIG_ROOT + 1; pid <= BIG_ROOT + kids; pid++) {
        big_mkdir(root, pid, false);
        big_stat(root, pid, BIG_ROOT);
        n += (size_t)snprintf(text + n, sizeof text - n, "%d ", pid);
        /* decoys: the prefixes a cut pid would be read as */
        char *d = th_fmt("%s/%d", root, pid / 10);
        if (mkdir(d, 0755) == 0) {
            free(d);
            big_stat(root, pid / 10, BIG_ROOT);
        } else {
            free(d);
        }
    }
    big_write(root, kids_rel(BIG_ROOT, BIG_ROOT), text);
    struct mon_tree t;
    struct mon_tree_sample s;
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, BIG_ROOT, false), 0);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_EQUAL(t.mode, 1);
    CU_ASSERT_EQUAL(s.procs, (unsigned)kids + 1);
    mon_tree_close(&t);

    /* two threads: 1200 children listed by one, 300 by the other */
    big_stat_threads(root, BIG_ROOT, 1, 2);
    char *tdir = th_fmt("%s/%d/task/%d", root, BIG_ROOT, 99999);
    CU_ASSERT_EQUAL(mkdir(tdir, 0755), 0);
    free(tdir);
    size_t cut = (size_t)1200 * 5; /* "NNNN " per pid */
    big_write(root, kids_rel(BIG_ROOT, 99999), text + cut);
    text[cut] = '\0';
    big_write(root, kids_rel(BIG_ROOT, BIG_ROOT), text);
    CU_ASSERT_EQUAL_FATAL(mon_tree_open(&t, root, BIG_ROOT, false), 0);
    CU_ASSERT_EQUAL(mon_tree_sample(&t, 1.0, &s), 0);
    CU_ASSERT_EQUAL(s.procs, (unsigned)kids + 1);
    CU_ASSERT_EQUAL(s.threads, (unsigned)kids + 2);
    mon_tree_close(&t);
    th_rmtree(root);
    free(root);
}

void add_procfs_suite(void);
/* /proc/self/mounts lines (escaped blanks in mount points, ro and rw), the data file system
 * types, and the live list: every entry a read-write directory with blocks, one per device,
 * the file system of a new directory among them. */
static void test_filesystems(void)
{
    char mnt[256], type[32];
    bool rw;
    const char *l1 = "/dev/sdb1 /data/my\\040runs ext4 rw,relatime 0 0\n";
    CU_ASSERT_EQUAL(mon_parse_mounts_line(l1, strlen(l1), mnt, sizeof mnt, type, sizeof type, &rw),
                    0);
    CU_ASSERT_STRING_EQUAL(mnt, "/data/my runs");
    CU_ASSERT_STRING_EQUAL(type, "ext4");
    CU_ASSERT_TRUE(rw);
    const char *l2 = "tmpfs /mnt/ro tmpfs ro,nosuid,size=4k 0 0";
    CU_ASSERT_EQUAL(mon_parse_mounts_line(l2, strlen(l2), mnt, sizeof mnt, type, sizeof type, &rw),
                    0);
    CU_ASSERT_FALSE(rw);
    const char *l3 = "rwx /x xfs rwx 0 0"; /* "rwx" is not the rw option */
    CU_ASSERT_EQUAL(mon_parse_mounts_line(l3, strlen(l3), mnt, sizeof mnt, type, sizeof type, &rw),
                    0);
    CU_ASSERT_FALSE(rw);
    CU_ASSERT_EQUAL(mon_parse_mounts_line("a b", 3, mnt, sizeof mnt, type, sizeof type, &rw),
                    -EINVAL);
    CU_ASSERT_FALSE(mon_fs_type_stores_data("proc"));
    CU_ASSERT_FALSE(mon_fs_type_stores_data("cgroup2"));
    CU_ASSERT_TRUE(mon_fs_type_stores_data("tmpfs"));
    CU_ASSERT_TRUE(mon_fs_type_stores_data("overlay"));
    CU_ASSERT_TRUE(mon_fs_type_stores_data("nfs4"));

    struct mon_fs fs[MON_FS_MAX];
    int n = mon_fs_list("/proc", fs, MON_FS_MAX);
    CU_ASSERT(n >= 1);
    char *dir = th_tmpdir("fslist");
    struct stat st;
    CU_ASSERT_FATAL(stat(dir, &st) == 0);
    bool found = false;
    for (int k = 0; k < n; k++) {
        CU_ASSERT(fs[k].total_mib > 0 && fs[k].free_mib >= 0 && fs[k].used_mib >= 0);
        CU_ASSERT(fs[k].used_mib <= fs[k].total_mib);
        CU_ASSERT(strncmp(fs[k].mount, "/proc/", 6) && strncmp(fs[k].mount, "/sys/", 5));
        for (int j = 0; j < k; j++)
            CU_ASSERT(fs[j].dev != fs[k].dev);
        found |= fs[k].dev == st.st_dev;
    }
    CU_ASSERT_TRUE(found); /* where the job writes its temporary files */
    th_rmtree(dir);
    free(dir);
}

void add_procfs_suite(void)
{
    CU_pSuite s = th_add_suite("procfs", NULL, NULL, 60);
    CU_add_test(s, "parse_cpu", test_parse_cpu);
    CU_add_test(s, "parse_meminfo", test_parse_meminfo);
    CU_add_test(s, "parse_stat", test_parse_stat);
    CU_add_test(s, "parse_misc", test_parse_misc);
    CU_add_test(s, "filesystems", test_filesystems);
    CU_add_test(s, "csv_format", test_csv_format);
    CU_add_test(s, "tree_children", test_tree_children);
    CU_add_test(s, "pss_kept_while_rss_still", test_pss_kept_while_rss_still);
    CU_add_test(s, "tree_walks_on_new_pids", test_tree_walks_on_new_pids);
    CU_add_test(s, "tree_live_kept", test_tree_live_kept);
    CU_add_test(s, "tree_keep_new", test_tree_keep_new);
    CU_add_test(s, "tree_reap_between_reads", test_tree_reap_between_reads);
    CU_add_test(s, "tree_orphan_kept", test_tree_orphan_kept);
    CU_add_test(s, "tree_scan", test_tree_scan);
    CU_add_test(s, "tree_old", test_tree_old);
    CU_add_test(s, "tree_big", test_tree_big);
    CU_add_test(s, "tree_wide", test_tree_wide);
    CU_add_test(s, "sys_modern", test_sys_modern);
    CU_add_test(s, "sys_old", test_sys_old);
    CU_add_test(s, "sys_live", test_sys_live);
    CU_add_test(s, "tree_live", test_tree_live);
    CU_add_test(s, "tree_exited_children", test_tree_exited_children);
    CU_add_test(s, "tree_exited_grandchildren", test_tree_exited_grandchildren);
    CU_add_test(s, "tree_pss_after_exec", test_tree_pss_after_exec);
    CU_add_test(s, "tree_pss_fork", test_tree_pss_fork);
    CU_add_test(s, "shared_once_text", test_shared_once_text);
    CU_add_test(s, "tree_shared_once", test_tree_shared_once);
    CU_add_test(s, "rollup_from_smaps", test_rollup_from_smaps);
    CU_add_test(s, "pid_ns", test_pid_ns);
    CU_add_test(s, "tree_main_usr_sys", test_tree_main_usr_sys);
}
