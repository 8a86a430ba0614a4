/* sysmon suite: the container and the machine (issue 9). The cgroup found from
 * /proc/self/cgroup and mountinfo on cgroup v1, v2 and hybrid hosts (fixture trees in
 * testdata/cgroup/, and this machine's own), disk and network traffic from /proc/diskstats and
 * /proc/net/dev (whole disks only, lo left out, counters that reset), free space, and a real
 * hwmon run whose start event and cpu_metrics.csv carry them. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csvout.h"
#include "hwrun/rundir.h"
#include "hwrun/buf.h"
#include "hwrun/io.h"
#include "hwtest.h"
#include "machine.h"
#include "proctree.h"

static char *fx(const char *name, const char *sub)
{
    return th_fmt("%s/cgroup/%s%s", th_env("HWRUN_TESTDATA"), name, sub);
}

/* mon_sys opened on testdata/cgroup/NAME. */
static int open_fx(struct mon_sys *s, const char *name)
{
    char *proc = fx(name, "/proc"), *root = fx(name, "");
    int rc = mon_sys_open(s, proc, root, root);
    free(proc);
    free(root);
    return rc;
}

static void test_parse_proc_cgroup(void)
{
    const char *hybrid = "9:name=systemd:/\n4:memory:/process_api/b1\n2:cpu,cpuacct:/c\n0::/\n";
    char p[64];
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup(hybrid, "memory", p, sizeof p), 0);
    CU_ASSERT_STRING_EQUAL(p, "/process_api/b1");
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup(hybrid, "cpuacct", p, sizeof p), 0);
    CU_ASSERT_STRING_EQUAL(p, "/c");
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup(hybrid, "cpu", p, sizeof p), 0);
    CU_ASSERT_STRING_EQUAL(p, "/c");
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup(hybrid, NULL, p, sizeof p), 0);
    CU_ASSERT_STRING_EQUAL(p, "/");
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup(hybrid, "systemd", p, sizeof p), -ENOENT);
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup(hybrid, "pids", p, sizeof p), -ENOENT);
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup("4:memory:/x\n", NULL, p, sizeof p), -ENOENT);
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup("0::/pod.slice/job", NULL, p, sizeof p), 0);
    CU_ASSERT_STRING_EQUAL(p, "/pod.slice/job"); /* no final newline */
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup("0::/aaaaaaaa\n", NULL, p, 4), -ENAMETOOLONG);
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup("", NULL, p, sizeof p), -ENOENT);
    CU_ASSERT_EQUAL(mon_parse_proc_cgroup("garbage\n::\n", "memory", p, sizeof p), -ENOENT);
}

static void test_parse_oom_kill(void)
{
    uint64_t v = 99;
    CU_ASSERT_EQUAL(mon_parse_oom_kill("low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\n"
                                       "oom_group_kill 0\n", &v), 0);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(mon_parse_oom_kill("oom_kill_disable 0\nunder_oom 0\noom_kill 12", &v), 0);
    CU_ASSERT_EQUAL(v, 12);
    /* a kernel before 4.13: no count, not 0 */
    CU_ASSERT_EQUAL(mon_parse_oom_kill("oom_kill_disable 0\nunder_oom 0\n", &v), -ENOENT);
    CU_ASSERT_EQUAL(mon_parse_oom_kill("oom_group_kill 3\n", &v), -ENOENT);
    CU_ASSERT_EQUAL(mon_parse_oom_kill("oom_kill x\n", &v), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_oom_kill("oom_kill -1\n", &v), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_oom_kill("oom_kill 1 2\n", &v), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_oom_kill("", &v), -ENOENT);
}

/* A real hwmon run with --sys-root on a copy of this process's own cgroup (as /proc/self/cgroup
 * and mountinfo place it, v1 memory first as hwmon looks): the job writes the kernel's OOM kill
 * count up by one and dies of SIGKILL, as under the OOM killer. The stop event counts the run's
 * kill (not the 5 before it) and the limit; summarize names the OOM killer. A second run whose
 * count stays put stays "signal 9". */
static void oom_run(bool grows)
{
    char *cgt = th_read_file("/proc/self/cgroup", NULL), *mi = th_read_file("/proc/self/mountinfo",
                                                                            NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cgt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mi);
    char path[512], dir[1024];
    bool v1 = mon_parse_proc_cgroup(cgt, "memory", path, sizeof path) == 0 &&
              mon_find_cgroup_dir(mi, "memory", path, dir, sizeof dir) == 0;
    bool v2 = !v1 && mon_parse_proc_cgroup(cgt, NULL, path, sizeof path) == 0 &&
              mon_find_cgroup_dir(mi, NULL, path, dir, sizeof dir) == 0;
    free(cgt);
    free(mi);
    if (!v1 && !v2) {
        th_skip("no cgroup in /proc/self/cgroup and mountinfo");
        return;
    }
    char *root = th_tmpdir("oomroot"), *cg = th_fmt("%s%s", root, dir);
    CU_ASSERT_FATAL(hw_mkdir_p(cg, NULL) == 0);
    char *f_cur = th_fmt("%s/%s", cg, v1 ? "memory.usage_in_bytes" : "memory.current");
    char *f_max = th_fmt("%s/%s", cg, v1 ? "memory.limit_in_bytes" : "memory.max");
    char *f_oom = th_fmt("%s/%s", cg, v1 ? "memory.oom_control" : "memory.events");
    const char *before = v1 ? "oom_kill_disable 0\nunder_oom 0\noom_kill 5\n"
                            : "low 0\nhigh 0\nmax 9\noom 5\noom_kill 5\noom_group_kill 0\n";
    const char *after = v1 ? "oom_kill_disable 0\nunder_oom 0\noom_kill 6\n"
                           : "low 0\nhigh 0\nmax 11\noom 6\noom_kill 6\noom_group_kill 0\n";
    th_write_file(f_cur, "104857600\n", 10);
    th_write_file(f_max, "314572800\n", 10); /* 300 MiB */
    th_write_file(f_oom, before, strlen(before));
    char *script = th_fmt("%sexec kill -KILL $$", grows ? "cat \"$0\" > \"$1\"; " : "");
    char *newf = th_fmt("%s/after", root);
    th_write_file(newf, after, strlen(after));
    char *out = th_fmt("%s/run", root);
    char **argv = ht_argv(out, "--no-gpu", "-i", "0.2", "--sys-root", root, "--", "/bin/sh", "-c",
                          script, newf, f_oom, NULL);
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 60, NULL), 128 + SIGKILL);
    json_object *stop = ht_event(out, "stop", 0);
    CU_ASSERT_PTR_NOT_NULL(stop);
    CU_ASSERT_EQUAL(ht_data_int(stop, "oom_kills"), grows ? 1 : 0);
    json_object *lim = ht_data(stop, "cgroup_memory_max_mib");
    CU_ASSERT(lim && json_object_get_double(lim) == 300.0);
    json_object_put(stop);
    char *sum[] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q", (char *)"-f",
                   (char *)"json", out, NULL};
    struct th_result r;
    CU_ASSERT_EQUAL(th_run(sum, NULL, NULL, 60, &r), 0);
    json_object *js = json_tokener_parse(r.out);
    th_result_free(&r);
    CU_ASSERT_STRING_EQUAL(ht_str(js, "status"), "killed");
    const char *why = ht_str(ht_get(js, "outcome"), "reason");
    CU_ASSERT_STRING_EQUAL(why ? why : "(null)",
                           grows ? "the command was killed by the kernel's OOM killer (cgroup "
                                   "memory limit 300 MiB)"
                                 : "the command was killed by signal 9 (KILL)");
    json_object_put(js);
    free(argv);
    free(out);
    free(newf);
    free(script);
    free(f_cur);
    free(f_max);
    free(f_oom);
    th_rmtree(root);
    free(root);
    free(cg);
}

static void test_oom_killed_run(void)
{
    oom_run(true);
    oom_run(false);
}

static void test_find_cgroup_dir(void)
{
    const char *mi =
        "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:5 - cgroup cgroup rw,memory\n"
        "36 31 0:33 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
        "41 31 0:38 / /sys/fs/cgroup/uni\\040fied rw - cgroup2 cgroup2 rw\n"
        "42 31 0:39 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n";
    char d[128];
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "memory", "/a/b", d, sizeof d), 0);
    CU_ASSERT_STRING_EQUAL(d, "/sys/fs/cgroup/memory/a/b");
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "memory", "/", d, sizeof d), 0);
    CU_ASSERT_STRING_EQUAL(d, "/sys/fs/cgroup/memory");
    /* the mount's root is the container's cgroup: stripped from the path */
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "cpuacct", "/docker/abc", d, sizeof d), 0);
    CU_ASSERT_STRING_EQUAL(d, "/sys/fs/cgroup/cpu,cpuacct");
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "cpu", "/docker/abc/x", d, sizeof d), 0);
    CU_ASSERT_STRING_EQUAL(d, "/sys/fs/cgroup/cpu,cpuacct/x");
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "cpu", "/docker/abcd", d, sizeof d), -ENOENT);
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, NULL, "/", d, sizeof d), 0); /* \040 is a space */
    CU_ASSERT_STRING_EQUAL(d, "/sys/fs/cgroup/uni fied");
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "pids", "/", d, sizeof d), -ENOENT);
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "name=systemd", "/", d, sizeof d), 0);
    CU_ASSERT_EQUAL(mon_find_cgroup_dir(mi, "memory", "/a/b", d, 10), -ENAMETOOLONG);
    CU_ASSERT_EQUAL(mon_find_cgroup_dir("1 2 3\nno dash here at all\n", "memory", "/", d, sizeof d),
                    -ENOENT);
    CU_ASSERT_EQUAL(mon_find_cgroup_dir("", NULL, "/", d, sizeof d), -ENOENT);
}

static void test_parse_limits(void)
{
    double c = 0;
    CU_ASSERT_EQUAL(mon_parse_cpu_max("200000 100000\n", &c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c, 2.0, 1e-9);
    CU_ASSERT_EQUAL(mon_parse_cpu_max("max 100000\n", &c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c, -1.0, 1e-9);
    CU_ASSERT_EQUAL(mon_parse_cpu_max("junk\n", &c), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cpu_max("100 0\n", &c), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cfs_quota("150000\n", "100000\n", &c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c, 1.5, 1e-9);
    CU_ASSERT_EQUAL(mon_parse_cfs_quota("-1\n", "100000\n", &c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c, -1.0, 1e-9);
    CU_ASSERT_EQUAL(mon_parse_cfs_quota("-5\n", "100000\n", &c), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cfs_quota("100\n", "0\n", &c), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cfs_quota("x\n", "100000\n", &c), -EINVAL);
    uint64_t v = 7;
    CU_ASSERT_EQUAL(mon_parse_cg_u64("9223372036854771712\n", &v), 0);
    CU_ASSERT(v >= MON_CG_V1_UNLIMITED);
    CU_ASSERT_EQUAL(mon_parse_cg_u64("max\n", &v), -ERANGE);
    CU_ASSERT_EQUAL(mon_parse_cg_u64("12 kB\n", &v), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cg_u64("-1\n", &v), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_cg_u64("", &v), -EINVAL);
}

static void test_parse_diskstats_netdev(void)
{
    char name[MON_SYSIO_NAME];
    uint64_t a = 0, b = 0;
    const char *l = "   8       0 sda 1000 10 20480 300 500 20 40960 200 0 400 500 0 0 0 0";
    CU_ASSERT_EQUAL(mon_parse_diskstats_line(l, strlen(l), name, &a, &b), 0);
    CU_ASSERT_STRING_EQUAL(name, "sda");
    CU_ASSERT_EQUAL(a, 20480);
    CU_ASSERT_EQUAL(b, 40960);
    l = " 259 0 nvme0n1 1 2 3 4 5 6 7"; /* 2.6-era: 11 fields; 7 after the name are enough */
    CU_ASSERT_EQUAL(mon_parse_diskstats_line(l, strlen(l), name, &a, &b), 0);
    CU_ASSERT_EQUAL(a, 3);
    CU_ASSERT_EQUAL(b, 7);
    l = "   8 1 sda1 1 2 3"; /* too short */
    CU_ASSERT_EQUAL(mon_parse_diskstats_line(l, strlen(l), name, &a, &b), -EINVAL);
    l = "   8 1 sda1 1 2 x3 4 5 6 7";
    CU_ASSERT_EQUAL(mon_parse_diskstats_line(l, strlen(l), name, &a, &b), -EINVAL);
    l = "   8 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1 2 3 4 5 6 7";
    CU_ASSERT_EQUAL(mon_parse_diskstats_line(l, strlen(l), name, &a, &b), -EINVAL);
    CU_ASSERT_EQUAL(mon_parse_diskstats_line("", 0, name, &a, &b), -EINVAL);

    l = "  eth0: 1000000    3061    0    0    0     0          0         0   200000    1928 0";
    CU_ASSERT_EQUAL(mon_parse_netdev_line(l, strlen(l), name, &a, &b), 0);
    CU_ASSERT_STRING_EQUAL(name, "eth0");
    CU_ASSERT_EQUAL(a, 1000000);
    CU_ASSERT_EQUAL(b, 200000);
    l = "eth1:12 0 0 0 0 0 0 0 34 0"; /* old kernels: no space after the colon */
    CU_ASSERT_EQUAL(mon_parse_netdev_line(l, strlen(l), name, &a, &b), 0);
    CU_ASSERT_EQUAL(a, 12);
    CU_ASSERT_EQUAL(b, 34);
    l = " face |bytes    packets errs drop fifo frame compressed multicast|bytes";
    CU_ASSERT_EQUAL(mon_parse_netdev_line(l, strlen(l), name, &a, &b), -EINVAL);
    l = "Inter-|   Receive                                                |  Transmit";
    CU_ASSERT_EQUAL(mon_parse_netdev_line(l, strlen(l), name, &a, &b), -EINVAL);

    CU_ASSERT_EQUAL(mon_counter_delta(100, 150), 50);
    CU_ASSERT_EQUAL(mon_counter_delta(100, 30), 30); /* reset: the new count, not -70 or 2^64 */
    CU_ASSERT_EQUAL(mon_counter_delta(UINT32_MAX - 5, 10), 10); /* a 32-bit wrap */
}


/* The start event's "cgroup" object as librunlog prints it: the text from its '{' on (the
 * event's closing braces included), in buf. */
static const char *cgroup_text(const struct mon_cgroup *cg, const struct mon_cg_sample *x,
                               char *buf, size_t cap)
{
    rl_field_t f[MON_CGROUP_NFIELDS];
    rl_field_t obj = RL_OBJ("cgroup", f, mon_cgroup_fields(cg, x, f));
    CU_ASSERT_FATAL(rl_format_event(buf, cap, "start", &obj, 1) > 0);
    const char *o = strstr(buf, "\"cgroup\": ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o + 10;
}

/* The cgroup's limits are read once and again only after MON_CG_LIMITS_MAX_AGE_S (issue 39: a
 * limit is set once; a pod resized in place shows within that), on a copy of the v2 fixture
 * whose cpu.max and memory.max change between two samples. */
static void test_limits_cadence(void)
{
    char *tmp = th_tmpdir("cg-limits");
    char *src = fx("v2", "");
    char *cp = th_fmt("cp -r '%s/.' '%s/'", src, tmp);
    CU_ASSERT_EQUAL_FATAL(system(cp), 0);
    char *proc = th_fmt("%s/proc", tmp);
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(mon_sys_open(&s, proc, tmp, tmp), 0);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.limit_cores, 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_max_mib, 1024.0, 1e-9);
    char *cpu = th_fmt("%s/sys/fs/cgroup/pod.slice/job/cpu.max", tmp);
    char *mem = th_fmt("%s/sys/fs/cgroup/pod.slice/job/memory.max", tmp);
    CU_ASSERT_EQUAL(th_write_file(cpu, "300000 100000\n", 14), 0);
    CU_ASSERT_EQUAL(th_write_file(mem, "2147483648\n", 11), 0);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0 + MON_CG_LIMITS_MAX_AGE_S / 2, &x), 0);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.limit_cores, 2.0, 1e-9); /* not read again yet */
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_max_mib, 1024.0, 1e-9);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0 + MON_CG_LIMITS_MAX_AGE_S, &x), 0);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.limit_cores, 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_max_mib, 2048.0, 1e-9);
    CU_ASSERT_TRUE(x.cg.have_mem); /* the usage is read every time */
    mon_sys_close(&s);
    free(cpu);
    free(mem);
    free(proc);
    free(cp);
    free(src);
    th_rmtree(tmp);
    free(tmp);
}

static void test_v2(void)
{
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(open_fx(&s, "v2"), 0);
    CU_ASSERT_TRUE(s.cg.found);
    CU_ASSERT_EQUAL(s.cg.mem_ver, 2);
    CU_ASSERT_EQUAL(s.cg.cpu_ver, 2);
    CU_ASSERT_EQUAL(s.cg.acct_ver, 2);
    CU_ASSERT_FALSE(s.cg.hybrid);
    CU_ASSERT_FALSE(s.cg.peak_reset); /* a fixture is no cgroupfs: never written */
    CU_ASSERT_STRING_EQUAL(s.cg.mem_path, "/pod.slice/job");
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_TRUE(x.cg.have_limit);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.limit_cores, 2.0, 1e-9);
    CU_ASSERT_TRUE(x.cg.have_mem && x.cg.have_mem_max && x.cg.have_mem_peak);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_cur_mib, 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_max_mib, 1024.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_peak_mib, 200.0, 1e-9);
    CU_ASSERT_FALSE(x.cg.have_cpu); /* baseline */
    uint64_t kills = 0;
    double max = 0;
    CU_ASSERT_TRUE(mon_cgroup_oom_kills(&s.cg, &kills)); /* memory.events */
    CU_ASSERT_EQUAL(kills, 2);
    CU_ASSERT_TRUE(mon_cgroup_mem_max(&s.cg, &max));
    CU_ASSERT_DOUBLE_EQUAL(max, 1024.0, 1e-9);
    CU_ASSERT_FALSE(x.io.have_disk || x.io.have_net);
    CU_ASSERT_TRUE(x.io.have_fs && x.io.fs_free_mib > 0);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 2.0, &x), 0);
    CU_ASSERT_TRUE(x.cg.have_cpu);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.cpu_pct, 0.0, 1e-9);
    CU_ASSERT_TRUE(x.io.have_disk && x.io.have_net); /* measured, and nothing moved */
    CU_ASSERT_EQUAL(x.io.disk_read_bytes + x.io.disk_write_bytes, 0);
    CU_ASSERT_EQUAL(x.io.net_rx_bytes + x.io.net_tx_bytes, 0);
    /* whole disks: sda and nvme0n1; not sda1 (a partition), loop0, ram0, zram0, dm-0 (on sda) */
    CU_ASSERT_EQUAL(s.io.disk.n, 2);
    for (size_t i = 0; i < s.io.disk.n; i++)
        CU_ASSERT(strcmp(s.io.disk.c[i].name, "sda") == 0 ||
                  strcmp(s.io.disk.c[i].name, "nvme0n1") == 0);
    /* the start event's object */
    char line[2048];
    const char *cgt = cgroup_text(&s.cg, &x.cg, line, sizeof line);
    json_object *o = json_tokener_parse(cgt); /* stops at the object's end */
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    json_object *v;
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "version", &v) && json_object_get_int(v) == 2);
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "path", &v) &&
                   strcmp(json_object_get_string(v), "/pod.slice/job") == 0);
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "memory_max_mib", &v) &&
                   json_object_get_double(v) == 1024.0);
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "memory_peak_mib", &v) &&
                   json_object_get_double(v) == 200.0);
    CU_ASSERT_TRUE(json_object_object_get_ex(o, "cpu_limit_cores", &v) &&
                   json_object_get_double(v) == 2.0);
    json_object_put(o);
    mon_sys_close(&s);
}

static void test_v1(void)
{
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(open_fx(&s, "v1"), 0);
    CU_ASSERT_TRUE(s.cg.found);
    CU_ASSERT_EQUAL(s.cg.mem_ver, 1);
    CU_ASSERT_EQUAL(s.cg.cpu_ver, 1);
    CU_ASSERT_EQUAL(s.cg.acct_ver, 1);
    CU_ASSERT_FALSE(s.cg.hybrid); /* no cgroup2 mount, no 0:: line */
    CU_ASSERT_STRING_EQUAL(s.cg.mem_path, "/docker/abc");
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_TRUE(x.cg.have_limit);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.limit_cores, 1.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_cur_mib, 300.0, 1e-9);
    CU_ASSERT_TRUE(x.cg.have_mem_max);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_max_mib, 2048.0, 1e-9);
    CU_ASSERT_TRUE(x.cg.have_mem_peak);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_peak_mib, 500.0, 1e-9);
    uint64_t kills = 0;
    CU_ASSERT_TRUE(mon_cgroup_oom_kills(&s.cg, &kills)); /* memory.oom_control */
    CU_ASSERT_EQUAL(kills, 1);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 3.0, &x), 0);
    CU_ASSERT_TRUE(x.cg.have_cpu); /* cpuacct.usage in ns */
    CU_ASSERT_DOUBLE_EQUAL(x.cg.cpu_pct, 0.0, 1e-9);
    mon_sys_close(&s);
}

static void test_hybrid(void)
{
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(open_fx(&s, "hybrid"), 0);
    CU_ASSERT_TRUE(s.cg.found);
    CU_ASSERT_TRUE(s.cg.hybrid);
    CU_ASSERT_EQUAL(s.cg.mem_ver, 1); /* v1 first: the controllers live there, not in v2 */
    CU_ASSERT_EQUAL(s.cg.cpu_ver, 1);
    CU_ASSERT_EQUAL(s.cg.acct_ver, 1);
    CU_ASSERT_STRING_EQUAL(s.cg.mem_path, "/process_api/b15346");
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_TRUE(x.cg.have_mem);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_cur_mib, 6557696 / 1048576.0, 1e-9);
    CU_ASSERT_FALSE(x.cg.have_mem_max); /* 9223372036854771712: no limit, not 8 EiB */
    CU_ASSERT_TRUE(x.cg.have_mem_peak);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_peak_mib, 7614464 / 1048576.0, 1e-9);
    CU_ASSERT_FALSE(x.cg.have_limit); /* cfs_quota_us -1 */
    char line[2048];
    const char *cgt = cgroup_text(&s.cg, &x.cg, line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL(strstr(cgt, "{\"version\": 1, \"hybrid\": true"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cgt, "\"memory_max_mib\": null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cgt, "\"cpu_limit_cores\": null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cgt, "\"cpu_path\": \"/\""));
    /* hwmon -p: the tracked process's cgroup (a SLURM job's), found through our own mounts */
    mon_cgroup_close(&s.cg);
    char *proc = fx("hybrid", "/proc"), *root = fx("hybrid", "");
    CU_ASSERT_EQUAL(mon_cgroup_open(&s.cg, proc, root, 4242), 0);
    CU_ASSERT_STRING_EQUAL(s.cg.mem_path, "/slurm/job7");
    mon_cgroup_sample(&s.cg, 1.0, &x.cg);
    CU_ASSERT_TRUE(x.cg.have_mem && x.cg.have_mem_max && x.cg.have_mem_peak);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_cur_mib, 1024.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_max_mib, 4096.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_peak_mib, 2048.0, 1e-9);
    mon_cgroup_close(&s.cg);
    CU_ASSERT_EQUAL(mon_cgroup_open(&s.cg, proc, root, 4243), 0); /* no such process */
    CU_ASSERT_FALSE(s.cg.found);
    free(proc);
    free(root);
    mon_sys_close(&s);
}

static void test_nolimit(void)
{
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(open_fx(&s, "nolimit"), 0);
    CU_ASSERT_TRUE(s.cg.found);
    CU_ASSERT_EQUAL(s.cg.mem_ver, 2);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_TRUE(x.cg.have_mem);
    CU_ASSERT_DOUBLE_EQUAL(x.cg.mem_cur_mib, 50.0, 1e-9);
    CU_ASSERT_FALSE(x.cg.have_mem_max);  /* "max" */
    CU_ASSERT_FALSE(x.cg.have_mem_peak); /* no memory.peak before Linux 5.19 */
    CU_ASSERT_FALSE(x.cg.have_limit);    /* "max 100000" */
    uint64_t kills = 7;
    double max = 0;
    CU_ASSERT_FALSE(mon_cgroup_oom_kills(&s.cg, &kills)); /* no memory.events: not counted */
    CU_ASSERT_FALSE(mon_cgroup_mem_max(&s.cg, &max));
    /* no diskstats, no net/dev: unmeasured, not 0 */
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 2.0, &x), 0);
    CU_ASSERT_FALSE(x.io.have_disk || x.io.have_net);
    char store[512];
    struct hw_buf b;
    hw_buf_init(&b, store, sizeof store);
    mon_csv_cpu_line(&b, "T", &x, true, false);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.p, ",,,,,"));
    hw_buf_free(&b);
    mon_sys_close(&s);
}

static void test_missing(void)
{
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(open_fx(&s, "missing"), 0); /* nothing there is no error */
    CU_ASSERT_FALSE(s.cg.found);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 2.0, &x), 0);
    CU_ASSERT_FALSE(x.cg.have_mem || x.cg.have_limit || x.cg.have_cpu);
    CU_ASSERT_FALSE(x.io.have_disk || x.io.have_net);
    mon_sys_close(&s);
    /* and a proc root without stat is an error */
    char *root = fx("v2", "");
    CU_ASSERT_EQUAL(mon_sys_open(&s, root, root, NULL), -ENOENT);
    free(root);
}

/* A scratch tree whose diskstats and net/dev change between samples. */
static void put(const char *dir, const char *rel, const char *text)
{
    char *p = th_fmt("%s/%s", dir, rel);
    CU_ASSERT_EQUAL(th_write_file(p, text, strlen(text)), 0);
    free(p);
}

static void test_counters_reset(void)
{
    char *d = th_tmpdir("sysmon");
    char *dirs[] = {"proc", "proc/net", "sys", "sys/block", "sys/block/sda", "sys/block/sdb"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char *p = th_fmt("%s/%s", d, dirs[i]);
        mkdir(p, 0755);
        free(p);
    }
    put(d, "proc/stat", "cpu  1 0 1 1\n");
    const char *nethead = "Inter-|   Receive |  Transmit\n face |bytes    packets|bytes\n";
    char *proc = th_fmt("%s/proc", d);
    struct mon_sys s;
    put(d, "proc/diskstats",
        " 8 0 sda 1 0 1000 0 1 0 2000 0 0 0 0\n"
        " 8 16 sdb 1 0 100 0 1 0 100 0 0 0 0\n");
    char *net = th_fmt("%s lo: 9 0 0 0 0 0 0 0 9 0\n eth0: 5000 0 0 0 0 0 0 0 7000 0\n", nethead);
    put(d, "proc/net/dev", net);
    free(net);
    CU_ASSERT_EQUAL_FATAL(mon_sys_open(&s, proc, d, NULL), 0);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 1.0, &x), 0); /* baseline */
    /* sda +10 sectors read; lo's traffic is not counted */
    put(d, "proc/diskstats",
        " 8 0 sda 1 0 1010 0 1 0 2000 0 0 0 0\n"
        " 8 16 sdb 1 0 100 0 1 0 100 0 0 0 0\n");
    net =
        th_fmt("%s lo: 999999 0 0 0 0 0 0 0 999999 0\n eth0: 6000 0 0 0 0 0 0 0 7500 0\n", nethead);
    put(d, "proc/net/dev", net);
    free(net);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 2.0, &x), 0);
    CU_ASSERT_TRUE(x.io.have_disk && x.io.have_net);
    CU_ASSERT_EQUAL(x.io.disk_read_bytes, 10 * 512);
    CU_ASSERT_EQUAL(x.io.disk_write_bytes, 0);
    CU_ASSERT_EQUAL(x.io.net_rx_bytes, 1000);
    CU_ASSERT_EQUAL(x.io.net_tx_bytes, 500);
    /* sdb removed, eth0 recreated (counters from 0), a new interface appears */
    put(d, "proc/diskstats", " 8 0 sda 1 0 1010 0 1 0 2004 0 0 0 0\n");
    net = th_fmt("%s eth0: 300 0 0 0 0 0 0 0 400 0\n veth1: 777777 0 0 0 0 0 0 0 1 0\n", nethead);
    put(d, "proc/net/dev", net);
    free(net);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 3.0, &x), 0);
    CU_ASSERT_EQUAL(x.io.disk_read_bytes, 0); /* sdb gone: no negative step */
    CU_ASSERT_EQUAL(x.io.disk_write_bytes, 4 * 512);
    CU_ASSERT_EQUAL(x.io.net_rx_bytes, 300); /* its new count, not 300 - 6000 */
    CU_ASSERT_EQUAL(x.io.net_tx_bytes, 400); /* veth1: first seen, counts from its next sample */
    /* sdb added back, its counter from 0 */
    put(d, "proc/diskstats",
        " 8 0 sda 1 0 1010 0 1 0 2004 0 0 0 0\n"
        " 8 16 sdb 1 0 8 0 1 0 0 0 0 0 0\n");
    net = th_fmt("%s eth0: 300 0 0 0 0 0 0 0 400 0\n veth1: 777787 0 0 0 0 0 0 0 1 0\n", nethead);
    put(d, "proc/net/dev", net);
    free(net);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 4.0, &x), 0);
    CU_ASSERT_EQUAL(x.io.disk_read_bytes, 8 * 512);
    CU_ASSERT_EQUAL(x.io.disk_write_bytes, 0);
    CU_ASSERT_EQUAL(x.io.net_rx_bytes, 10);
    CU_ASSERT_EQUAL(x.io.net_tx_bytes, 0);
    /* a torn last line (no newline) is not read: its partial number would be a reset */
    put(d, "proc/diskstats", " 8 0 sda 1 0 1010 0 1 0 20");
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 5.0, &x), 0);
    CU_ASSERT_EQUAL(x.io.disk_write_bytes, 0);
    put(d, "proc/diskstats", " 8 0 sda 1 0 1010 0 1 0 2005 0 0 0 0\n");
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 6.0, &x), 0);
    CU_ASSERT_EQUAL(x.io.disk_write_bytes, 512);
    mon_sys_close(&s);
    free(proc);
    th_rmtree(d);
    free(d);
}

/* This machine's own cgroup, whatever its layout: what /proc/self/cgroup names must be found. */
static void test_live_cgroup(void)
{
    char *text = th_read_file("/proc/self/cgroup", NULL);
    if (!text) {
        th_skip("no /proc/self/cgroup");
        return;
    }
    bool v1_mem = strstr(text, ":memory:") != NULL;
    free(text);
    struct mon_sys s;
    CU_ASSERT_EQUAL_FATAL(mon_sys_open(&s, "/proc", "/", "."), 0);
    struct mon_sys_sample x;
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 0.0, &x), 0);
    fprintf(stderr,
            "[live_cgroup] found %d mem v%d cpu v%d acct v%d hybrid %d path %s: "
            "mem %.1f MiB peak %.1f limit %s\n",
            s.cg.found, s.cg.mem_ver, s.cg.cpu_ver, s.cg.acct_ver, s.cg.hybrid, s.cg.mem_path,
            x.cg.mem_cur_mib, x.cg.mem_peak_mib, x.cg.have_mem_max ? "set" : "none");
    if (v1_mem) { /* a v1 or hybrid host (like the one these tests were written on) */
        CU_ASSERT_TRUE(s.cg.found);
        CU_ASSERT_EQUAL(s.cg.mem_ver, 1);
        CU_ASSERT_TRUE(x.cg.have_mem && x.cg.mem_cur_mib > 0);
        CU_ASSERT_TRUE(x.cg.have_mem_peak && x.cg.mem_peak_mib >= x.cg.mem_cur_mib * 0.5);
    }
    th_sleep(0.05);
    CU_ASSERT_EQUAL(mon_sys_sample(&s, 0.05, &x), 0);
    CU_ASSERT_TRUE(x.io.have_fs && x.io.fs_free_mib > 0);
    if (s.io.disk.n)
        CU_ASSERT_TRUE(x.io.have_disk);
    if (s.cg.acct_ver)
        CU_ASSERT_TRUE(x.cg.have_cpu && x.cg.cpu_pct >= 0);
    mon_sys_close(&s);
}

/* A real hwmon run on this machine: the start event's cgroup object and cpu_metrics.csv's
 * columns, filled where this machine has them. */
static void test_run_live(void)
{
    char *dir = th_tmpdir("sysmon-run");
    char *out = th_fmt("%s/run", dir);
    /* the job ends once three rows follow the header (the check below counts them) */
    char *until = ht_job_wait_lines("cpu_metrics.csv", 4);
    char *wait = th_fmt("dd if=/dev/zero of=/dev/null bs=1M count=50 2>/dev/null; %s", until);
    char **argv = ht_argv(out, "--no-gpu", "-i", "0.1", "--", "/bin/sh", "-c",
                          wait, NULL);
    struct th_result res;
    CU_ASSERT_EQUAL(ht_run(argv, NULL, 30, &res), 0);
    th_result_free(&res);
    free(argv);
    free(wait);
    free(until);
    char *text = th_read_file("/proc/self/cgroup", NULL);
    bool v1_mem = text && strstr(text, ":memory:");
    free(text);
    struct mon_sys s; /* whether this machine has whole disks to count */
    CU_ASSERT_EQUAL_FATAL(mon_sys_open(&s, "/proc", "/", NULL), 0);
    bool disks = s.io.disk.n > 0;
    mon_sys_close(&s);
    json_object *ev = ht_event(out, "start", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    json_object *cg = ht_data(ev, "cgroup");
    if (v1_mem) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(cg);
        json_object *v;
        CU_ASSERT_TRUE(json_object_object_get_ex(cg, "version", &v) && json_object_get_int(v) == 1);
        CU_ASSERT_TRUE(json_object_object_get_ex(cg, "memory_current_mib", &v) &&
                       json_object_get_double(v) > 0);
        CU_ASSERT_TRUE(json_object_object_get_ex(cg, "memory_peak_mib", &v) &&
                       json_object_get_double(v) > 0);
    }
    json_object_put(ev);
    char *csv = th_fmt("%s/cpu_metrics.csv", out);
    char *body = th_read_file(csv, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    CU_ASSERT_PTR_NOT_NULL(strstr(body, HW_CPU_DISK_READ "," HW_CPU_DISK_WRITE "," HW_CPU_NET_RX
                                        "," HW_CPU_NET_TX "," HW_CPU_FS_FREE));
    if (v1_mem) { /* non-null container figures: current and peak in every row */
        CU_ASSERT_PTR_NOT_NULL(strstr(body, "," HW_CPU_CG_LIMIT "," HW_CPU_CG_PCT "," HW_CPU_CG_MEM
                                            "," HW_CPU_CG_MEM_MAX "," HW_CPU_CG_MEM_PEAK));
        char *line = strchr(body, '\n') + 1;
        int rows = 0;
        for (char *nl; (nl = strchr(line, '\n')); line = nl + 1, rows++) {
            *nl = '\0';
            /* cells: ts, every column of the table (here all: the cgroup's too), edge */
            enum { EDGE = 1 + HW_CPU_COL_COUNT };
            char *cell[EDGE + 1] = {0};
            int n = 0;
            for (char *p = line; n < EDGE + 1; n++) {
                cell[n] = p;
                char *c = strchr(p, ',');
                if (!c)
                    break;
                *c = '\0';
                p = c + 1;
            }
            CU_ASSERT_EQUAL(n, EDGE);
            CU_ASSERT(cell[EDGE] && !*cell[EDGE]); /* edge: empty on the cadence's rows */
            CU_ASSERT(cell[1 + HW_CPU_COL_MEM_TOTAL] && atof(cell[1 + HW_CPU_COL_MEM_TOTAL]) > 0);
            CU_ASSERT(cell[1 + HW_CPU_COL_MEM_FREE] && atof(cell[1 + HW_CPU_COL_MEM_FREE]) > 0);
            CU_ASSERT(cell[1 + HW_CPU_COL_CG_MEM] && *cell[1 + HW_CPU_COL_CG_MEM]);
            CU_ASSERT(cell[1 + HW_CPU_COL_CG_MEM_PEAK] && *cell[1 + HW_CPU_COL_CG_MEM_PEAK]);
            CU_ASSERT(cell[1 + HW_CPU_COL_FS_FREE] && atof(cell[1 + HW_CPU_COL_FS_FREE]) > 0);
            CU_ASSERT(cell[1 + HW_CPU_COL_MEM_SRECLAIMABLE] &&
                      atof(cell[1 + HW_CPU_COL_MEM_SRECLAIMABLE]) > 0);
            if (disks) /* disk_read_bytes: measured (maybe 0) */
                CU_ASSERT(cell[1 + HW_CPU_COL_DISK_READ] && *cell[1 + HW_CPU_COL_DISK_READ]);
        }
        CU_ASSERT(rows >= 3);
    }
    free(body);
    free(csv);
    free(out);
    th_rmtree(dir);
    free(dir);
}

void add_sysmon_suite(void);
void add_sysmon_suite(void)
{
    CU_pSuite s = th_add_suite("sysmon", NULL, NULL, 120);
    CU_add_test(s, "parse_proc_cgroup", test_parse_proc_cgroup);
    CU_add_test(s, "find_cgroup_dir", test_find_cgroup_dir);
    CU_add_test(s, "parse_limits", test_parse_limits);
    CU_add_test(s, "parse_diskstats_netdev", test_parse_diskstats_netdev);
    CU_add_test(s, "parse_oom_kill", test_parse_oom_kill);
    CU_add_test(s, "oom_killed_run", test_oom_killed_run);
    CU_add_test(s, "v2", test_v2);
    CU_add_test(s, "limits_cadence", test_limits_cadence);
    CU_add_test(s, "v1", test_v1);
    CU_add_test(s, "hybrid", test_hybrid);
    CU_add_test(s, "nolimit", test_nolimit);
    CU_add_test(s, "missing", test_missing);
    CU_add_test(s, "counters_reset", test_counters_reset);
    CU_add_test(s, "live_cgroup", test_live_cgroup);
    CU_add_test(s, "run_live", test_run_live);
}
