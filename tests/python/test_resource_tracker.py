"""runlog.resource_tracker: resource-tracker's PidTracker, SystemTracker and helpers as a
drop-in, their rows hwmon's (python/runlog/resource_tracker.py). The documented usage (a
tracker in a process of its own, rows to a file or to stdout) against real processes, the GPU
columns with the fake nvidia-smi and without one.

Run by CTest with PYTHONPATH naming the build tree's python/ folder and HWRUN_FAKE_SMI the fake
nvidia-smi.
"""
import csv
import io
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import runlog
from runlog import resource_tracker as rt
from runlog.resource_tracker import PID_COLUMNS, SYSTEM_COLUMNS, PidTracker, SystemTracker

FAKE_SMI = os.environ.get("HWRUN_FAKE_SMI")
NO_SMI = "/nonexistent/nvidia-smi"
MIB = 1 << 20

# A job: 64 MiB touched, a core burned until the test says "go", then a 4 MiB write (what the
# kernel counted for it goes to the file "written"), a second of work, and the end.
JOB = textwrap.dedent("""
    import os, sys, time
    d = sys.argv[1]
    block = bytearray(64 << 20)
    for i in range(0, len(block), 4096):
        block[i] = 1
    def written():
        with open("/proc/self/io") as f:
            return int([l for l in f if l.startswith("write_bytes")][0].split()[1])
    while not os.path.exists(os.path.join(d, "go")):
        sum(range(20000))
    before = written()
    with open(os.path.join(d, "data.bin"), "wb") as f:
        f.write(b"x" * (4 << 20))
        f.flush()
        os.fsync(f.fileno())
    with open(os.path.join(d, "written"), "w") as f:
        f.write(str(written() - before))
    # 1 s of CPU after the go, however long a loaded machine takes to give it
    cpu = lambda: sum(os.times()[:2])
    go, end = cpu(), time.monotonic() + 60
    while cpu() - go < 1.0 and time.monotonic() < end:
        sum(range(20000))
    with open(os.path.join(d, "cpu"), "w") as f:
        f.write("%r %r" % (go, cpu()))
""")


def read_csv(path_or_text):
    f = io.StringIO(path_or_text) if "\n" in path_or_text else open(path_or_text)
    with f:
        return list(csv.reader(f, quoting=csv.QUOTE_NONNUMERIC))


def gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def wait_gone(pid, timeout=15):
    end = time.monotonic() + timeout
    while not gone(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return gone(pid)


def hwmon_pid(run_dir, timeout=30):
    """hwmon's pid, from its start event in run_dir."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(os.path.join(run_dir, "run.jsonl")) as f:
                for e in map(json.loads, f):
                    if e.get("event") == "start":
                        return e["data"]["hwmon_pid"]
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    raise AssertionError("no start event in %s" % run_dir)


def on_tmpfs(path):
    best, fstype = "", None
    with open("/proc/mounts") as f:
        for line in f:
            mnt, typ = line.split()[1:3]
            if os.path.realpath(path).startswith(mnt.rstrip("/") + "/") and len(mnt) > len(best):
                best, fstype = mnt, typ
    return fstype == "tmpfs"


def rows_as_dicts(rows, columns):
    return [dict(zip(columns, r)) for r in rows]


class Base(unittest.TestCase):
    def setUp(self):
        if not FAKE_SMI:
            self.fail("HWRUN_FAKE_SMI is not set (run the tests through ctest)")
        self.dir = tempfile.mkdtemp(prefix="runlog-rt-")
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            if p.stdout:
                p.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def spawn(self, argv, **kw):
        p = subprocess.Popen(argv, start_new_session=True, **kw)
        self.procs.append(p)
        return p

    def job(self):
        return self.spawn([sys.executable, "-c", JOB, self.dir])


class PidTrackerRows(Base):
    def test_documented_rows(self):
        # a busy job with memory that writes 4 MiB once the tracker has its first sample: rows
        # until it exits, to a file, with resource-tracker's header and units
        job = self.job()
        out = os.path.join(self.dir, "tracker.csv")
        t = PidTracker(pid=job.pid, interval=0.2, autostart=False, nvidia_smi=NO_SMI)
        self.assertEqual(t.status, "running")
        open(os.path.join(self.dir, "go"), "w").close()
        t.start_tracking(output_file=out)  # returns when the job exits
        self.assertEqual(t.status, "exited")
        self.assertFalse(os.path.exists(t.run_dir))  # its temporary run directory is gone
        rows = read_csv(out)
        self.assertEqual(tuple(rows[0]), PID_COLUMNS)  # the one list, written quoted
        rows = rows_as_dicts(rows[1:], PID_COLUMNS)
        self.assertGreaterEqual(len(rows), 4)
        now = time.time()
        for r in rows:
            self.assertEqual(r["pid"], job.pid)
            self.assertEqual(r["children"], 0)
            self.assertTrue(now - 60 < r["timestamp"] <= now)  # epoch seconds
            self.assertGreaterEqual(r["cpu_usage"], 0)
            self.assertEqual((r["gpu_usage"], r["gpu_vram"], r["gpu_utilized"]), (0, 0, 0))
        ts = [r["timestamp"] for r in rows]
        self.assertEqual(ts, sorted(ts))
        # the job's own CPU: 1 s after the go (at its end it said how much in all); the rows hold
        # most of that second (not the part after the last row) and never more than its life's
        with open(os.path.join(self.dir, "cpu")) as f:
            go, total = map(float, f.read().split())
        hz = os.sysconf("SC_CLK_TCK")
        ticks = sum(r["utime"] + r["stime"] for r in rows)
        self.assertGreaterEqual(total - go, 1.0)
        self.assertGreater(ticks / hz, 0.6, (ticks, go, total))
        self.assertLessEqual(ticks / hz, total + 0.02, (ticks, go, total))
        # cpu_usage is cores: a row's ticks over the seconds since the row before
        for a, b in zip(rows, rows[1:]):
            want = (b["utime"] + b["stime"]) / hz / (b["timestamp"] - a["timestamp"])
            self.assertAlmostEqual(b["cpu_usage"], want, delta=0.02 + 0.01 * want)
        self.assertGreater(max(r["pss"] or 0 for r in rows), 60 * 1024)  # kB
        # the bytes written are in the rows, as the kernel counted them
        with open(os.path.join(self.dir, "written")) as f:
            written = int(f.read())
        if not on_tmpfs(self.dir):
            self.assertGreaterEqual(written, 4 * MIB)
        self.assertGreaterEqual(sum(r["write_bytes"] for r in rows), written)
        self.assertLess(sum(r["write_bytes"] for r in rows), written + 4 * MIB)

    def test_children_false(self):
        # the tracked shell sleeps while its child burns a core: children=False leaves the
        # child's CPU out (and writes children as None), children=True counts it
        sh = self.spawn(["/bin/sh", "-c", "sh -c 'while :; do :; done' & sleep 30"])
        time.sleep(0.2)
        alone = PidTracker(pid=sh.pid, interval=0.2, children=False, autostart=False,
                           no_gpu=True)
        tree = PidTracker(pid=sh.pid, interval=0.2, autostart=False, no_gpu=True)
        a, t = [], []
        for _ in range(6):  # in turns: each call takes every row hwmon wrote since the last
            a.append(alone.diff_stats())
            t.append(tree.diff_stats())
        alone.stop()
        tree.stop()
        self.assertTrue(all(r["children"] is None for r in a))
        self.assertTrue(all(r["children"] == 2 for r in t))  # the busy shell and sleep
        ticks = lambda rows: sum(r["utime"] + r["stime"] for r in rows)
        self.assertGreater(ticks(t), 30)  # >= 1.2 s at half a core: 60 ticks
        self.assertLess(ticks(a), ticks(t) / 4)
        self.assertLess(max(r["cpu_usage"] for r in a), 0.2)

    def test_bad_pid(self):
        # resource-tracker's get_pid_stats gives zeros for a pid that does not exist; its
        # PidTracker then writes nothing and ends. Here the tracker says so.
        with open("/proc/sys/kernel/pid_max") as f:
            pid = int(f.read()) + 1  # never a process
        out = os.path.join(self.dir, "gone.csv")
        t = PidTracker(pid=pid, interval=0.2, output_file=out)  # returns, as resource-tracker
        self.assertEqual(t.status, "exited")
        self.assertEqual(os.path.getsize(out), 0)  # created, empty
        self.assertEqual((t.stats["utime"], t.stats["pss"], t.stats["gpu_usage"]), (0, 0, 0))
        # a process that has exited (a zombie, not yet waited for) is gone too
        z = subprocess.Popen(["true"])
        while rt._alive(z.pid):  # until it has exited
            time.sleep(0.01)
        t = PidTracker(pid=z.pid, interval=0.2, output_file=out)
        z.wait()
        self.assertEqual((t.status, os.path.getsize(out)), ("exited", 0))
        s = rt.get_pid_stats(pid)
        self.assertEqual((s["utime"], s["stime"], s["pss"], s["read_bytes"], s["write_bytes"],
                          s["children"]), (0, 0, 0, 0, 0, 0))

    def test_no_hwmon(self):
        # hwmon cannot start (not installed): the trackers warn and end, never raise into the
        # job that started them (its environment is not its data)
        import warnings
        old = os.environ.get("RUNLOG_HWMON")
        os.environ["RUNLOG_HWMON"] = os.path.join(self.dir, "no-hwmon")
        out = os.path.join(self.dir, "none.csv")
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                p = PidTracker(pid=os.getpid(), interval=0.2, output_file=out)
                s = SystemTracker(interval=0.2, autostart=False)
        finally:
            if old is None:
                del os.environ["RUNLOG_HWMON"]
            else:
                os.environ["RUNLOG_HWMON"] = old
        self.assertEqual((p.status, s.status, os.path.getsize(out)), ("exited", "exited", 0))
        self.assertEqual(len(w), 2, [str(x.message) for x in w])
        self.assertTrue(all("nothing is tracked" in str(x.message) for x in w))
        self.assertIsNone(s.diff_stats())

    def test_sector_sizes(self):
        # resource-tracker's SystemTracker.sector_sizes: every whole disk's hw_sector_size
        import glob
        s = SystemTracker(interval=0.2, autostart=False, no_gpu=True)
        s.stop()
        disks = [p.split("/")[-2] for p in glob.glob("/sys/block/*/")]
        self.assertEqual(sorted(s.sector_sizes), sorted(d for d in disks
                                                        if not rt.is_partition(d)))
        self.assertTrue(all(v in (512, 1024, 2048, 4096) for v in s.sector_sizes.values()),
                        s.sector_sizes)

    def test_interval_clamped(self):
        # resource-tracker takes any interval; hwmon samples every 0.05 to 3600 s: one rule
        # for every drop-in (runlog.monitor.clamp_interval), a warning, never a refusal
        import warnings
        from runlog.monitor import clamp_interval
        for asked, got in ((1e9, 3600.0), (float("inf"), 3600.0), (float("nan"), 1.0),
                           ("x", 1.0), (0.05, 0.05), (3600, 3600.0)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                self.assertEqual(clamp_interval(asked), got)
            self.assertEqual(len(w), 0 if asked in (0.05, 3600) else 1)
        for asked, got in ((0.01, 0.05), (0, 0.05), (-1, 0.05)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                t = PidTracker(pid=os.getpid(), interval=asked, autostart=False, no_gpu=True)
            try:
                self.assertEqual((t.interval, t._hw.interval), (asked, got))
                self.assertEqual(len(w), 1, [str(x.message) for x in w])
                self.assertIn("every 0.05 to 3600 s", str(w[0].message))
                if asked == 0.01:
                    rows = [t.diff_stats() for _ in range(3)]
                    stamps = [r["timestamp"] for r in rows]
                    self.assertEqual(stamps, sorted(set(stamps)))  # a row per new sample
                    self.assertEqual(t.status, "running")
            finally:
                t.stop()

    def test_gpu_columns(self):
        # the fake's GPU 1 holds 2048 MiB of the job and GPU 0 999 MiB of pid 1 (not in the
        # tree): the job's own pmon row says SM 20 % (the fake's first process on a GPU) and
        # fb 2048 MiB, and resource-tracker's columns are that process's: 0.2, 2048, 1 GPU
        job = self.job()
        os.environ["FAKE_SMI_APPS"] = "%d:1:2048,1:0:999" % job.pid
        try:
            t = PidTracker(pid=job.pid, interval=0.2, autostart=False, nvidia_smi=FAKE_SMI,
                           pss_every_sample=True)
            rows = [t.diff_stats() for _ in range(6)]
            system = SystemTracker(interval=0.2, autostart=False, nvidia_smi=FAKE_SMI)
            srows = [system.diff_stats() for _ in range(3)]
        finally:
            del os.environ["FAKE_SMI_APPS"]
        t.stop()
        system.stop()
        self.assertTrue(all(r["pss"] for r in rows))  # read every time
        self.assertGreater(rows[-1]["pss"], 60 * 1024)
        seen = [r for r in rows if r["gpu_vram"]]
        self.assertGreaterEqual(len(seen), 3)  # the apps child may start a row late
        for r in seen:
            self.assertEqual((r["gpu_vram"], r["gpu_usage"], r["gpu_utilized"]),
                             (2048.0, 0.2, 1))
        for r in srows:  # both GPUs: memory.used 1000 + 100k and 1010 + 100k MiB
            self.assertGreaterEqual(r["gpu_vram"], 2010)
            self.assertTrue(0 <= r["gpu_usage"] <= 2.0)
            self.assertLessEqual(r["gpu_utilized"], 2)
        self.assertTrue(any(r["gpu_utilized"] for r in srows))

    def test_helpers_gpu(self):
        # get_pid_stats asks nvidia-smi pmon on PATH once, as resource-tracker does: the
        # process's own SM share and frame buffer; a process whose own sm is "-" (dash) adds 0,
        # as PidTracker's rows say for it (one definition), not its GPU's whole utilization
        bindir = os.path.join(self.dir, "bin")
        os.mkdir(bindir)
        os.symlink(FAKE_SMI, os.path.join(bindir, "nvidia-smi"))
        job, dash = self.job(), self.job()
        env = {"PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
               "FAKE_SMI_APPS": "%d:0:512,%d:1:256" % (job.pid, dash.pid),
               "FAKE_SMI_PMON_DASH": str(dash.pid)}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            s = rt.get_pid_stats(job.pid)
            d = rt.get_pid_stats(dash.pid)
            t = PidTracker(pid=dash.pid, interval=0.2, autostart=False, nvidia_smi=FAKE_SMI)
            trows = [t.diff_stats() for _ in range(4)]
            t.stop()
            sysstats = rt.get_system_stats()
        finally:
            for k, v in old.items():
                if v is None:
                    del os.environ[k]
                else:
                    os.environ[k] = v
        self.assertEqual((s["gpu_vram"], s["gpu_usage"], s["gpu_utilized"]), (512.0, 0.2, 1))
        self.assertEqual(s["gpu_utilized"], len(s["gpu_utilized_indexes"]))
        self.assertEqual((d["gpu_usage"], d["gpu_utilized"]), (0, 0))
        self.assertEqual([(r["gpu_usage"], r["gpu_utilized"]) for r in trows], [(0, 0)] * 4)
        self.assertEqual(sysstats["gpu_vram"], 1000.0 + 1010.0)  # the fake's first sample
        self.assertEqual(sysstats["gpu_utilized"], 1)  # GPU 0 at 0 %, GPU 1 at 31 %
        self.assertAlmostEqual(sysstats["gpu_usage"], 0.31)


class Processes(Base):
    def test_stdout_of_a_subprocess(self):
        # the tracker in a process of its own, read through a pipe: each row arrives as it is
        # written; SIGTERM ends it as it would resource-tracker's, hwmon and its temporary
        # directory with it
        tmp = os.path.join(self.dir, "tmp")
        os.mkdir(tmp)
        env = dict(os.environ, TMPDIR=tmp)
        p = self.spawn([sys.executable, "-c", "import runlog; runlog.SystemTracker("
                        "interval=0.2, nvidia_smi=%r)" % NO_SMI], stdout=subprocess.PIPE,
                       text=True, env=env)
        lines = [p.stdout.readline() for _ in range(4)]
        run_dir = os.path.join(tmp, os.listdir(tmp)[0], "run")
        hw = hwmon_pid(run_dir)
        p.terminate()
        self.assertEqual(p.wait(30), -signal.SIGTERM)
        self.assertTrue(wait_gone(hw))
        self.assertEqual(os.listdir(tmp), [])
        rows = read_csv("".join(lines))
        self.assertEqual(tuple(rows[0]), SYSTEM_COLUMNS)
        rows = rows_as_dicts(rows[1:], SYSTEM_COLUMNS)
        for r in rows:
            self.assertGreater(r["processes"], 0)
            self.assertGreater(r["memory_used"], 0)
            self.assertGreater(r["memory_free"], 0)
            self.assertGreaterEqual(r["memory_cached"], 0)
            self.assertGreater(r["disk_space_total_gb"], 0)
            self.assertAlmostEqual(r["disk_space_total_gb"],
                                   r["disk_space_used_gb"] + r["disk_space_free_gb"], delta=0.02)
            self.assertTrue(0 <= r["cpu_usage"] <= os.cpu_count() + 0.5)
            for k in ("utime", "stime", "disk_read_bytes", "disk_write_bytes",
                      "net_recv_bytes", "net_sent_bytes"):
                self.assertGreaterEqual(r[k], 0, k)
            self.assertEqual((r["gpu_usage"], r["gpu_vram"], r["gpu_utilized"]), (0, 0, 0))
        self.assertLessEqual(rows[0]["processes"], rows[-1]["processes"])  # forks since boot

    def test_multiprocessing(self):
        # resource-tracker's documented use: Process(target=PidTracker, kwargs=...) started
        # by fork tracks its parent (the pid taken when the module was imported)
        out = os.path.join(self.dir, "tracker.csv")
        ctx = multiprocessing.get_context("fork")
        proc = ctx.Process(target=PidTracker, kwargs={"interval": 0.2, "output_file": out,
                                                      "nvidia_smi": NO_SMI})
        proc.start()
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if os.path.exists(out) and len(read_csv(out)) >= 4:
                break
            time.sleep(0.05)
        proc.terminate()
        proc.join(30)
        self.assertEqual(proc.exitcode, -signal.SIGTERM)
        rows = read_csv(out)
        self.assertEqual(tuple(rows[0]), PID_COLUMNS)
        self.assertGreaterEqual(len(rows), 4)
        self.assertTrue(all(r[1] == os.getpid() for r in rows[1:]))
        # the tracker's process is the test's child, hence in the tree, as in resource-tracker
        self.assertTrue(all(r[2] >= 1 for r in rows[1:]))

    def test_killed_tracker_takes_hwmon(self):
        # SIGKILL leaves no cleanup to run: hwmon goes all the same (its parent-death signal)
        run_dir = os.path.join(self.dir, "run")
        p = self.spawn([sys.executable, "-c", "import runlog; runlog.PidTracker(interval=0.2, "
                        "no_gpu=True, run_dir=%r)" % run_dir], stdout=subprocess.PIPE)
        p.stdout.readline()
        hw = hwmon_pid(run_dir)
        p.kill()
        p.wait()
        self.assertTrue(wait_gone(hw))


class Helpers(unittest.TestCase):
    def test_shapes(self):
        # resource-tracker's return shapes and units, on this process
        pid = os.getpid()
        child = subprocess.Popen(["sleep", "30"])
        try:
            self.assertIn(child.pid, rt.get_pid_children(pid))
            s = rt.get_pid_stats(pid)
            self.assertEqual(set(s), {"timestamp", "pid", "children", "utime", "stime", "pss",
                                      "read_bytes", "write_bytes", "gpu_usage", "gpu_vram",
                                      "gpu_utilized", "gpu_utilized_indexes"})
            # a row's columns are these stats, less cpu_usage which is a difference of two
            self.assertEqual(set(PID_COLUMNS) - set(s), {"cpu_usage"})
            self.assertEqual(s["pid"], pid)
            self.assertGreaterEqual(s["children"], 1)
            self.assertIsNone(rt.get_pid_stats(pid, children=False)["children"])
        finally:
            child.kill()
            child.wait()
        self.assertTrue(abs(s["timestamp"] - time.time()) < 60)
        for k in ("utime", "stime", "pss", "read_bytes", "write_bytes"):
            self.assertIsInstance(s[k], int, k)
        self.assertGreater(s["utime"] + s["stime"], 0)
        self.assertGreater(s["pss"], 1000)  # kB: this interpreter
        rss = rt.get_pid_rss(pid)
        self.assertIsInstance(rss, int)
        self.assertGreater(rss, 1000)
        self.assertGreater(rt.get_pid_pss_rollup(pid), 1000)
        self.assertLessEqual(rt.get_pid_pss_rollup(pid), rss * 1.1)
        self.assertEqual(set(rt.get_pid_proc_times(pid)), {"utime", "stime"})
        io_ = rt.get_pid_proc_io(pid)
        self.assertTrue({"rchar", "wchar", "read_bytes", "write_bytes"} <= set(io_))
        sys_ = rt.get_system_stats()
        self.assertTrue({"timestamp", "processes", "utime", "stime", "memory_free",
                         "memory_used", "memory_buffers", "memory_cached",
                         "memory_active_anon", "memory_inactive_anon", "disk_stats",
                         "disk_spaces", "net_recv_bytes", "net_sent_bytes", "gpu_usage",
                         "gpu_vram", "gpu_utilized"} <= set(sys_))
        self.assertGreater(sys_["memory_used"], 0)
        for d in sys_["disk_stats"].values():
            self.assertEqual(set(d), {"read_sectors", "write_sectors"})
        for d in sys_["disk_spaces"].values():
            self.assertEqual(set(d), {"total", "used", "free"})
        self.assertFalse(rt.is_partition("loop0"))
        disks = [d.split("/")[-2] for d in __import__("glob").glob("/sys/block/*/")]
        for d in disks:
            self.assertFalse(rt.is_partition(d))
        # the package root has the trackers too
        self.assertIs(runlog.PidTracker, PidTracker)
        self.assertIs(runlog.SystemTracker, SystemTracker)
        self.assertIs(runlog.get_pid_stats, rt.get_pid_stats)
        self.assertTrue({"PidTracker", "SystemTracker", "get_pid_stats", "RunLog",
                         "Monitor"} <= set(runlog.__all__))


if __name__ == "__main__":
    unittest.main()
