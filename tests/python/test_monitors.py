"""The monitors and summaries of the runlog Python package (python/runlog/monitor.py,
calibrax.py), each seed's documented usage run against this package with the fake nvidia-smi,
and checked against summarize (the one owner of every number) and, when ../shared is beside
the repository, against pytyche's own code (the oracle).

Run by CTest with PYTHONPATH naming the build tree's python/ folder, HWRUN_FAKE_SMI the fake
nvidia-smi, HWRUN_SHARED_DIR the reference material (may be absent).
"""
import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
import warnings
from pathlib import Path

import runlog
from runlog import HWMonitor, Monitor, RunLog, build_resource_summary
from runlog.calibrax import ResourceMonitor

FAKE_SMI = os.environ.get("HWRUN_FAKE_SMI")
SUMMARIZE = runlog._tools.tool("summarize")
MIB = 1024 * 1024


def summarize_json(*args):
    out = subprocess.run([SUMMARIZE, "-q"] + [str(a) for a in args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def work(seconds, mib):
    """Hold mib MiB (touched) and burn a core for seconds."""
    block = bytearray(mib * MIB)
    for i in range(0, len(block), 4096):
        block[i] = 1
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return block


def wait_sampled(run_dir, rows=2, timeout=30, edges=False):
    """Until hwmon has written rows samples of the process (a loaded machine or a sanitizer can
    slow its start: a test that grows memory must not grow it before the first sample): rows of
    the cadence, or with edges any row (an attached process's first row is hwmon's baseline
    reading, edge 1)."""
    path = os.path.join(run_dir, "proc_metrics.csv")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path) as f:
                next(f, None)  # the header
                if sum(1 for line in f if line.endswith("\n") and
                       (edges or not line.rstrip("\n").endswith(",1"))) >= rows:
                    return
        except OSError:
            pass
        time.sleep(0.02)
    raise AssertionError("hwmon wrote no samples into %s in %s s" % (run_dir, timeout))


def events(run_dir):
    with open(os.path.join(run_dir, "run.jsonl")) as f:
        return [e for e in map(json.loads, f) if e.get("type") == "event"]


def gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


class Base(unittest.TestCase):
    def setUp(self):
        if not FAKE_SMI:
            self.fail("HWRUN_FAKE_SMI is not set (run the tests through ctest)")
        self.dir = Path(tempfile.mkdtemp(prefix="runlog-mon-"))

    def tearDown(self):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)


class Pytyche(Base):
    def test_documented_usage(self):
        # pytyche's run_monitor: HWMonitor().start(dir, interval_sec) ... stop() -> three paths,
        # build_resource_summary(*paths).to_dict(); RunLog kept in memory, write(path)
        out = self.dir / "run"
        log = RunLog()
        mon = HWMonitor(nvidia_smi=FAKE_SMI)
        mon.start(out, interval_sec=0.2)
        t0 = time.monotonic()
        block = work(1.2, 64)
        log.log_phase("fit", time.monotonic() - t0, rows=len(block) // MIB)
        gpu, cpu, dmon = mon.stop()
        self.assertEqual((gpu, cpu, dmon),
                         (out / "hw_metrics.csv", out / "cpu_metrics.csv", out / "hw_dmon.csv"))
        summary = build_resource_summary(gpu, cpu, dmon)
        d = summary.to_dict()
        # the same as summarize's pytyche mode on the directory, key for key
        self.assertEqual(d, summarize_json("--format", "pytyche", out))
        self.assertGreater(d["peak_vram_mb"], 0)
        self.assertGreater(d["cpu_usr_mean_pct"] + d["cpu_idle_mean_pct"], 0)
        # and pytyche's own code on the same files, when it is at hand
        oracle = os.path.join(os.environ.get("HWRUN_SHARED_DIR", ""), "oracle",
                              "pytyche_summary.py")
        if os.path.exists(oracle):
            r = subprocess.run([sys.executable, oracle, "--gpu-csv", str(gpu), "--cpu-csv",
                                str(cpu), "--dmon-csv", str(dmon)], capture_output=True,
                               text=True, check=True)
            self.assertEqual(d, json.loads(r.stdout))
        elif os.environ.get("CI"):
            self.fail("the pytyche oracle is not beside the repository in CI: %s" % oracle)
        # the fields are the dataclass's, unrounded
        self.assertEqual({f.name for f in dataclasses.fields(summary)},
                         {"peak_vram_mb", "jax_peak_bytes_mb", "gpu_util_mean_pct",
                          "gpu_util_max_pct", "mem_util_mean_pct", "mem_util_max_pct",
                          "power_watts_mean", "power_watts_max", "cpu_usr_mean_pct",
                          "cpu_idle_mean_pct"})
        # the job's tree is this process alone: not hwmon, not its nvidia-smi children
        s = runlog.summarize(out)
        self.assertEqual(s.process["procs_max"], 1)
        self.assertGreaterEqual(s.peak_rss_mb, 64)
        # its owner stopped it: the run ended as the script wanted
        self.assertEqual(s.outcome["status"], "ok")
        self.assertEqual(s.outcome["reason"], "the monitored block ended normally")
        # RunLog.write(path): every entry, to any path
        log.write(out / "fit.jsonl")
        with open(out / "fit.jsonl") as f:
            self.assertEqual([json.loads(l)["name"] for l in f], ["fit"])

    def test_missing_files(self):
        # pytyche: a missing file is skipped, none at all gives the zeroed summary
        self.assertEqual(build_resource_summary(None, self.dir / "nope.csv"),
                         runlog.ResourceSummary())
        cpu = self.dir / "cpu_metrics.csv"
        cpu.write_text("timestamp,usr_pct,idle_pct\nT,10.0,80.0\nT,20.0,70.0\n")
        s = build_resource_summary(None, cpu)
        self.assertEqual(s.cpu_usr_mean_pct, 15.0)
        self.assertEqual(s.to_dict()["cpu_idle_mean_pct"], 75.0)

    def test_bad_file(self):
        # a file pytyche cannot read (invalid UTF-8) raises, with summarize's reason
        gpu = self.dir / "hw_metrics.csv"
        gpu.write_bytes(b"2026/11/21 10:00:00.000, 5\xff, 1, 2, 3, 4\n")
        with self.assertRaises(runlog.SummarizeError) as cm:
            build_resource_summary(gpu, None)
        self.assertIn("invalid UTF-8", str(cm.exception))


class Calibrax(Base):
    def test_documented_usage(self):
        # calibrax: with ResourceMonitor(sample_interval_sec=0.1) as m: ...; m.summary
        with ResourceMonitor(sample_interval_sec=0.1, nvidia_smi=FAKE_SMI) as m:
            time.sleep(0.35)
            wait_sampled(m.output_dir)  # the first samples see the process before it grows
            block = work(1.0, 64)
        del block
        s = m.summary
        names = ["peak_rss_mb", "mean_rss_mb", "peak_gpu_mem_mb", "mean_gpu_util",
                 "memory_growth_mb", "num_samples", "duration_sec", "mean_gpu_clock_mhz",
                 "mean_gpu_power_w"]
        self.assertEqual(list(s.to_dict()), names)
        doc = m.run_summary().to_dict()
        for k in names:  # summarize's numbers, unchanged
            self.assertEqual(getattr(s, k), doc[k], k)
        self.assertGreaterEqual(s.num_samples, 4)  # ~13 at 0.1 s; fewer on a loaded machine
        self.assertGreaterEqual(s.peak_rss_mb, 64)
        self.assertGreaterEqual(s.memory_growth_mb, 48)
        self.assertGreater(s.duration_sec, 1.2)
        self.assertIsNotNone(s.peak_gpu_mem_mb)
        self.assertEqual(type(s).from_dict(s.to_dict()), s)
        self.assertIs(m.summary, s)  # final once the block is over

    def test_growth_from_entry(self):
        # calibrax samples at the block's entry: hwmon's first row is its reading at its start
        # (edge=1, before its start event), so memory the block takes at once is growth; the
        # truth is the process's own VmRSS around the allocation
        def vm_rss_mib():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        with ResourceMonitor(sample_interval_sec=0.1, no_gpu=True,
                             output_dir=self.dir / "run") as m:
            wait_sampled(m.output_dir, rows=1, edges=True)  # the baseline row is there
            before = vm_rss_mib()
            block = bytearray(100 * MIB)
            for i in range(0, len(block), 4096):
                block[i] = 1
            grown = vm_rss_mib() - before
            wait_sampled(m.output_dir, rows=2)  # cadence rows that hold the block
        rows = read_csv_rows(m.output_dir / "proc_metrics.csv")
        start = [e for e in events(m.output_dir) if e.get("event") == "start"][0]
        self.assertEqual(rows[0]["edge"], 1)
        self.assertIsNone(rows[0]["cpu_pct"])  # no rate at the baseline
        self.assertLessEqual(rows[0]["timestamp"], start["ts"])
        s = m.summary
        self.assertGreater(grown, 95)
        self.assertLess(abs(s.memory_growth_mb - grown), 0.1 * grown, (s, grown))
        del block

    def test_public_names(self):
        # calibrax's documented names, importable: ResourceSample's fields (keyword-only) and
        # GPUProfilerProtocol for annotations, a profiler accepted and not called
        from runlog.calibrax import GPUProfilerProtocol, ResourceSample
        s = ResourceSample(timestamp=1.0, cpu_percent=50.0, rss_mb=10.0, gpu_util=None,
                           gpu_mem_mb=None)
        self.assertEqual([f.name for f in dataclasses.fields(s)],
                         ["timestamp", "cpu_percent", "rss_mb", "gpu_util", "gpu_mem_mb",
                          "gpu_clock_mhz", "gpu_power_w"])
        self.assertIsNone(s.gpu_power_w)
        with self.assertRaises(TypeError):
            ResourceSample(1.0, 50.0, 10.0, None, None)  # keyword-only, as calibrax's

        class Profiler:
            def __getattr__(self, name):
                raise AssertionError("called: %s" % name)
        self.assertIsInstance(Profiler(), GPUProfilerProtocol)
        m = ResourceMonitor(gpu_profiler=Profiler(), no_gpu=True)
        self.assertIsInstance(m.gpu_profiler, Profiler)

    def test_no_gpu(self):
        # without a GPU the GPU figures are None (calibrax's "None if no GPU"), never 0
        with ResourceMonitor(sample_interval_sec=0.1, no_gpu=True) as m:
            wait_sampled(m.output_dir, rows=3)
            work(0.5, 1)
        s = m.summary
        self.assertIsNone(s.peak_gpu_mem_mb)
        self.assertIsNone(s.mean_gpu_util)
        self.assertGreater(s.num_samples, 2)


class GpuTracker(Base):
    def test_documented_usage(self):
        # gpu_tracker: with Tracker(...) as tracker: ...; print(tracker); tracker.to_json()
        from runlog.gpu_tracker import Tracker
        with Tracker(sleep_time=0.1, ram_unit="megabytes", time_unit="seconds",
                     n_expected_cores=2, run_dir=str(self.dir / "run"),
                     nvidia_smi=FAKE_SMI) as tracker:
            self.assertIs(tracker.state, Tracker.State.STARTED)
            time.sleep(0.3)
            wait_sampled(self.dir / "run")
            block = work(0.8, 64)
        del block
        self.assertIs(tracker.state, Tracker.State.STOPPED)
        usage = tracker.to_json()
        self.assertEqual(list(usage), ["max_ram", "max_gpu_ram", "cpu_utilization",
                                       "gpu_utilization", "compute_time"])
        # summarize's numbers, in the units asked for (MB: 1e6 bytes); where summarize cannot
        # tell "this process on no GPU" from "its pids not seen" (null), gpu_tracker's 0.0
        expected = summarize_json("--format", "gpu-tracker", "--units",
                                  "mem=MB,gpumem=GB,time=s", "--cores", "2", self.dir / "run")
        if expected["max_gpu_ram"]["combined"] is None:
            expected["max_gpu_ram"].update(main=0.0, descendants=0.0, combined=0.0)
        self.assertEqual(usage, expected)
        ram = usage["max_ram"]
        self.assertEqual(ram["unit"], "megabytes")
        self.assertGreaterEqual(ram["combined"]["total_rss"], 64 * MIB / 1e6)
        self.assertGreater(ram["system_capacity"], ram["system"])
        # the main process's own private and shared RSS are measured now (smaps_rollup)
        self.assertGreater(ram["main"]["private_rss"], 0)
        self.assertIsNotNone(ram["main"]["shared_rss"])
        self.assertEqual(usage["max_gpu_ram"]["unit"], "gigabytes")
        self.assertGreater(usage["max_gpu_ram"]["system"], 0)  # the fake's GPUs together
        cpu = usage["cpu_utilization"]
        self.assertEqual(cpu["n_expected_cores"], 2)
        self.assertAlmostEqual(cpu["main"]["max_hardware_percent"],
                               cpu["main"]["max_sum_percent"] / 2, places=6)
        # it burned a core, of which a loaded machine (CI on 2 busy cores) may give it half
        self.assertGreater(cpu["combined"]["max_sum_percent"], 15)
        self.assertEqual(usage["compute_time"]["unit"], "seconds")
        self.assertGreater(usage["compute_time"]["time"], 1.0)
        self.assertEqual(tracker.resource_usage.max_ram.combined.total_rss,
                         ram["combined"]["total_rss"])
        # gpu_tracker's dataclasses, importable, built from the same document
        from runlog.gpu_tracker import (ResourceUsage, MaxRAM, RSSValues, MaxGPURAM,
                                        ProcessingUnitPercentages, CPUUtilization,
                                        GPUUtilization, ComputeTime)
        ru = tracker.resource_usage
        self.assertIsInstance(ru, ResourceUsage)
        for obj, cls in ((ru.max_ram, MaxRAM), (ru.max_ram.main, RSSValues),
                         (ru.max_gpu_ram, MaxGPURAM), (ru.cpu_utilization, CPUUtilization),
                         (ru.cpu_utilization.descendants, ProcessingUnitPercentages),
                         (ru.gpu_utilization, GPUUtilization),
                         (ru.gpu_utilization.gpu_percentages, ProcessingUnitPercentages),
                         (ru.compute_time, ComputeTime)):
            self.assertIsInstance(obj, cls)
        self.assertEqual(dataclasses.asdict(ru), usage)  # field for field, key order too
        self.assertEqual(list(dataclasses.asdict(ru)["max_ram"]),
                         list(usage["max_ram"]))
        self.assertEqual(ResourceUsage.from_dict(usage), ru)
        self.assertEqual(ru.to_dict(), usage)
        self.assertIn("Max RAM:", str(tracker))
        with self.assertRaises(ValueError):
            Tracker(ram_unit="gibibytes")
        with self.assertRaises(RuntimeError):
            tracker.start()  # once


# gpu_tracker's print(tracker): its lines' labels in its order (values aside), as its README
# shows them for a tracked process; 3 spaces a level.
GPU_TRACKER_STR = """Max RAM:
   Unit:
   System capacity:
   System:
   Main:
      Total RSS:
      Private RSS:
      Shared RSS:
   Descendants:
      Total RSS:
      Private RSS:
      Shared RSS:
   Combined:
      Total RSS:
      Private RSS:
      Shared RSS:
Max GPU RAM:
   Unit:
   System capacity:
   System:
   Main:
   Descendants:
   Combined:
CPU utilization:
   System core count:
   Number of expected cores:
   System:
      Max sum percent:
      Max hardware percent:
      Mean sum percent:
      Mean hardware percent:
   Main:
      Max sum percent:
      Max hardware percent:
      Mean sum percent:
      Mean hardware percent:
   Descendants:
      Max sum percent:
      Max hardware percent:
      Mean sum percent:
      Mean hardware percent:
   Combined:
      Max sum percent:
      Max hardware percent:
      Mean sum percent:
      Mean hardware percent:
   Main number of threads:
   Descendants number of threads:
   Combined number of threads:
GPU utilization:
   System GPU count:
   Number of expected GPUs:
   GPU percentages:
      Max sum percent:
      Max hardware percent:
      Mean sum percent:
      Mean hardware percent:
Compute time:
   Unit:
   Time:"""


class StartLatency(Base):
    # nvidia-smi answering its start questions in 1 s (a busy node takes seconds): the block
    # starts at once, hwmon samples the process from its own start beside the questions, and
    # what the block logs is measured
    DELAY_MS = 300  # each of its start questions

    def setUp(self):
        super().setUp()
        old = os.environ.get("FAKE_SMI_START_DELAY_MS")
        os.environ["FAKE_SMI_START_DELAY_MS"] = str(self.DELAY_MS)
        self.addCleanup(lambda: os.environ.pop("FAKE_SMI_START_DELAY_MS") if old is None
                        else os.environ.__setitem__("FAKE_SMI_START_DELAY_MS", old))

    def check_run(self, run_dir, started):
        # hwmon's first process row came before its start event (the questions' answers):
        # the block was sampled while nvidia-smi was still being asked
        with open(os.path.join(run_dir, "run.jsonl")) as f:
            entries = [json.loads(l) for l in f]
        start = [e for e in entries if e.get("event") == "start"][0]
        self.assertGreaterEqual(start["data"]["setup_s"], self.DELAY_MS / 1000 * 0.9)
        rows = read_csv_rows(os.path.join(run_dir, "proc_metrics.csv"))
        self.assertLess(rows[0]["timestamp"], start["ts"])
        doc = summarize_json("-f", "json", run_dir)
        ph = [p for p in doc["phases"] if p["name"] == "block"][0]
        self.assertIsNotNone(ph["proc_peak_rss_mib"])  # the phase is measured
        self.assertGreater(doc["num_samples"], 3)

    def test_hwmonitor_start(self):
        times = []
        for i in range(3):
            mon = HWMonitor(nvidia_smi=FAKE_SMI)
            t0 = time.monotonic()
            mon.start(self.dir / ("run%d" % i), interval_sec=0.1)
            times.append(time.monotonic() - t0)
            if i == 0:
                log = RunLog()  # $RUNLOG_FILE: the monitor's run
                with log.phase("block"):
                    wait_sampled(self.dir / "run0", rows=3)
                    work(0.3, 8)
                    self.assertTrue(mon._mon.start_event["gpus"])  # waits for the answers
                log.close()
            files = mon.stop()
            if i == 0:
                gpu, cpu, dmon = files
        # start() waits for nothing: best of three under 20 ms, each far below the 1 s asked
        self.assertLess(min(times), start_bound(), times)
        self.assertLess(max(times), 0.5, times)
        self.check_run(self.dir / "run0", times[0])
        self.assertIsNotNone(cpu)

    def test_block_shorter_than_the_questions(self):
        # the block raises at once, before hwmon's start event (its questions still going on):
        # its monitor_end names that hwmon, and the run's status is still the block's
        with self.assertRaises(ValueError):
            with Monitor(self.dir / "run", interval_sec=0.1, nvidia_smi=FAKE_SMI) as mon:
                raise ValueError("at once")
        names = [e["event"] for e in events(mon.output_dir)]
        self.assertLess(names.index("monitor_end"), names.index("start"))
        self.assertEqual(names[-1], "stop")
        s = mon.summary()
        self.assertEqual(s.outcome["status"], "failed")
        self.assertEqual(s.outcome["reason"], "the monitored block raised ValueError: at once")

    def test_resource_monitor_entry(self):
        times = []
        for i in range(3):
            t0 = time.monotonic()
            with ResourceMonitor(sample_interval_sec=0.1, nvidia_smi=FAKE_SMI,
                                 output_dir=self.dir / ("run%d" % i)) as m:
                times.append(time.monotonic() - t0)
                if i == 0:
                    with RunLog() as log, log.phase("block"):
                        wait_sampled(m.output_dir, rows=3)
                        work(0.3, 8)
                        self.assertTrue(m._mon.start_event["gpus"])
        self.assertLess(min(times), start_bound(), times)
        self.assertLess(max(times), 0.5, times)
        self.check_run(self.dir / "run0", times[0])


    def test_tracker_start(self):
        # gpu_tracker's Tracker (every GPU, gpu_uuids checked once they are known) starts at
        # once too: hwmon --gpus all asks nvidia-smi beside the process's samples
        from runlog.gpu_tracker import Tracker
        times = []
        for i in range(3):
            t = Tracker(sleep_time=0.1, nvidia_smi=FAKE_SMI, run_dir=str(self.dir / ("run%d" % i)))
            t0 = time.monotonic()
            t.start()
            times.append(time.monotonic() - t0)
            if i == 0:
                with RunLog() as log, log.phase("block"):
                    wait_sampled(t.run_dir, rows=3)
                    work(0.3, 8)
                    self.assertTrue(t._mon.start_event["gpus"])
            t.stop()
            if i == 0:
                self.assertEqual(t.resource_usage.gpu_utilization.system_gpu_count, 2)
        self.assertLess(min(times), start_bound(), times)
        self.assertLess(max(times), 0.5, times)
        self.check_run(self.dir / "run0", times[0])


class Durations(Base):
    """An unfinished run's duration_sec, against the job's own clock: from hwmon's start to its
    last sample or entry, never over the time it has run (hw_gpm.csv and hw_dmon.csv, dated
    to the whole second, widened it by up to a second)."""

    def test_live_summary_inside_the_block(self):
        for i in range(4):
            t0 = time.monotonic()  # before the monitor: hwmon cannot have run longer
            with ResourceMonitor(sample_interval_sec=0.1, nvidia_smi=FAKE_SMI,
                                 output_dir=self.dir / ("run%d" % i)) as m:
                wait_sampled(m.output_dir, rows=4)
                work(0.3, 4)
                s = m.summary
                elapsed = time.monotonic() - t0
                self.assertGreater(s.num_samples, 3)
                self.assertLessEqual(s.duration_sec, elapsed + 0.002, (i, s))  # ms rounding
                self.assertGreater(s.duration_sec, 0.3)
            self.assertLessEqual(m.summary.duration_sec, time.monotonic() - t0 + 0.002)
        with open(os.path.join(m.output_dir, "hw_gpm.csv")) as f:
            self.assertTrue(any(not line.startswith("#") for line in f))  # whole seconds there

    def test_killed_hwmon_ends_at_its_last_sample(self):
        import datetime
        run = self.dir / "run"
        t_spawn = time.time()
        hw = subprocess.Popen([runlog._tools.tool("hwmon"), "-q", "-o", str(run), "-i", "0.2",
                               "--nvidia-smi", FAKE_SMI, "-p", str(os.getpid())])
        wait_sampled(run, rows=8)
        os.kill(hw.pid, signal.SIGKILL)
        t_kill = time.time()
        hw.wait()
        d = summarize_json("-f", "json", run)["duration_sec"]
        # the last row of any file dated to the millisecond: hwmon's own rows, or nvidia-smi's
        # (its children may write one after hwmon's last row), in the local time they are in
        last = max(datetime.datetime.fromisoformat(read_csv_rows(run / f)[-1]["timestamp"])
                   .timestamp() for f in ("cpu_metrics.csv", "proc_metrics.csv"))
        for f in ("hw_metrics.csv", "hw_health.csv"):
            with open(run / f) as rows:
                stamps = [line.split(",")[0] for line in rows if line[:1].isdigit()]
            if stamps:
                last = max(last, datetime.datetime.strptime(
                    stamps[-1], "%Y/%m/%d %H:%M:%S.%f").timestamp())
        self.assertLessEqual(d, t_kill - t_spawn + 0.002)  # never longer than it ran
        # it ends at its last sample: from hwmon's start (after the spawn) to that row
        self.assertGreaterEqual(d, last - t_spawn - 0.002 - 0.5)  # its exec, under load
        start = [e for e in events(run) if e["event"] == "start"][0]
        began = datetime.datetime.fromisoformat(start["ts"]).timestamp() - \
            start["data"]["setup_s"]
        self.assertAlmostEqual(d, last - began, delta=0.0015)


class GpuTrackerSeed(Base):
    def test_no_gpu_and_usage_file(self):
        # gpu_tracker on a machine without nvidia-smi: its zeros and a GPU count of 0, with a
        # warning, so that its own formatting works; resource_usage_file is its pickle
        import pickle
        from runlog.gpu_tracker import ResourceUsage, Tracker
        pkl = self.dir / "usage.pkl"
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with Tracker(sleep_time=0.1, resource_usage_file=str(pkl),
                         nvidia_smi=str(self.dir / "no-nvidia-smi")) as t:
                wait_sampled(t._mon.output_dir, rows=2)
        self.assertTrue(any("no GPU is recorded" in str(x.message) for x in w),
                        [str(x.message) for x in w])
        u = t.resource_usage
        self.assertEqual("%.2f" % u.max_gpu_ram.combined, "0.00")
        self.assertEqual((u.gpu_utilization.system_gpu_count, u.gpu_utilization.n_expected_gpus),
                         (0, 0))
        for k in ("system_capacity", "system", "main", "descendants", "combined"):
            self.assertEqual(getattr(u.max_gpu_ram, k), 0.0, k)
        self.assertEqual(u.gpu_utilization.gpu_percentages.max_sum_percent, 0.0)
        self.assertGreater(u.max_ram.combined.total_rss, 0)  # the rest measured as ever
        self.assertTrue(pkl.is_file())
        with open(pkl, "rb") as f:
            loaded = pickle.load(f)
        self.assertIsInstance(loaded, ResourceUsage)
        self.assertEqual(loaded, u)
        self.assertTrue((Path(t.run_dir) / "run.jsonl").is_file())  # hwmon's run directory
        # the labels of print(tracker): gpu_tracker's, line for line
        text = str(t)
        labels = [line.split(":")[0] + ":" for line in text.splitlines()]
        self.assertEqual(labels, GPU_TRACKER_STR.splitlines())
        self.assertIn("\n   System GPU count: 0\n", text)
        self.assertIn("\n   Combined: 0.0\n", text)

    def test_usage_file_not_writable(self):
        # a resource_usage_file that cannot be written: a warning, never an exception
        from runlog.gpu_tracker import Tracker
        (self.dir / "adir").mkdir()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with Tracker(sleep_time=0.1, resource_usage_file=str(self.dir / "adir"),
                         no_gpu=True) as t:
                wait_sampled(t._mon.output_dir, rows=1)
        self.assertTrue(any("not written" in str(x.message) for x in w))
        self.assertTrue((self.dir / "adir").is_dir())
        self.assertEqual(list((self.dir / "adir").iterdir()), [])


class Owners(Base):
    """A monitor of this process: its block's outcome is the run's status, and RunLog() inside
    it logs into the run (issue 33)."""

    def test_ok_and_runlog_inside(self):
        saved = {k: os.environ.get(k) for k in ("RUNLOG_FILE", "HWMON_DIR")}
        with Monitor(self.dir / "run", interval_sec=0.1, no_gpu=True) as mon:
            self.assertEqual(os.environ["HWMON_DIR"], str((self.dir / "run").resolve()))
            log = RunLog()  # no path: the monitor's run
            with log.phase("train", steps=5):
                work(0.3, 1)
            log.close()
            # a child process's runlog CLI lands there too
            subprocess.run([os.environ["RUNLOG_CLI"], "event", "from_child"], check=True)
        self.assertEqual({k: os.environ.get(k) for k in saved}, saved)  # restored
        s = mon.summary()
        self.assertEqual(s.outcome["status"], "ok")
        self.assertEqual([p["name"] for p in s.phases], ["train"])
        self.assertEqual(s["steps"], 5)
        self.assertEqual(s.events["counts"].get("from_child"), 1)
        self.assertIsNone(RunLog().path)  # outside the block: in memory again, as pytyche's

    def test_block_raises(self):
        with self.assertRaises(ValueError):
            with Monitor(self.dir / "run", interval_sec=0.1, no_gpu=True) as mon:
                raise ValueError("loss is NaN")
        s = mon.summary()
        self.assertEqual(s.outcome["status"], "failed")
        self.assertEqual(s.outcome["reason"], "the monitored block raised ValueError: loss is NaN")
        row = subprocess.run([SUMMARIZE, "-q", "-f", "csv", str(mon.output_dir)], check=True,
                             capture_output=True, text=True).stdout.splitlines()
        self.assertEqual(dict(zip(row[0].split(","), row[1].split(",")))["status"], "failed")

    def test_other_process_detached(self):
        # watching a process it does not own, stopped while it runs on: detached, as hwmon -p
        child = subprocess.Popen(["sleep", "30"])
        try:
            with Monitor(self.dir / "run", interval_sec=0.1, no_gpu=True, pid=child.pid) as mon:
                self.assertNotIn("HWMON_DIR", os.environ)  # not this process's run
                time.sleep(0.3)
        finally:
            child.kill()
            child.wait()
        self.assertEqual(mon.summary().outcome["status"], "detached")

    def test_stop_at_once(self):
        # pytyche: stop() right after start(): no CPU sample yet, so no CPU file (None)
        mon = HWMonitor(no_gpu=True)
        mon.start(self.dir / "run", interval_sec=5)
        self.assertEqual(mon.stop(), (None, None, None))

    def test_calibrax_fastest(self):
        # calibrax's sample_interval_sec=0.01: faster than hwmon samples; clamped, said, and
        # the block is monitored all the same
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with ResourceMonitor(sample_interval_sec=0.01, no_gpu=True) as m:
                wait_sampled(m.output_dir, rows=4)
                work(0.3, 1)
        self.assertTrue(any("every 0.05 to 3600 s" in str(x.message) for x in w))
        self.assertGreaterEqual(m.summary.num_samples, 4)

def start_bound():
    """What a monitor's start may take: 20 ms, or on a loaded machine 10 times what starting
    `true` takes there now (best of three): it starts hwmon and a thread, and Python's own work
    slows with the load too (24-32 ms seen at load 4 on 2 cores, with `true` at 2.5 ms). A start
    that waited for hwmon's start event takes the fake nvidia-smi's 0.3 s a question at least."""
    base = []
    for _ in range(3):
        t0 = time.monotonic()
        subprocess.Popen(["true"]).wait()
        base.append(time.monotonic() - t0)
    return max(0.020, 10 * min(base))


def read_csv_rows(path):
    """A CSV of ours with its header, as dicts of floats (None for an empty cell; the
    timestamp as it is)."""
    with open(path) as f:
        names = f.readline().rstrip("\n").split(",")
        return [{k: v if k == "timestamp" else float(v) if v else None
                 for k, v in zip(names, line.rstrip("\n").split(","))}
                for line in f if line.strip()]


def fake_gpus():
    """The fake nvidia-smi's GPUs as it lists them: [(index, uuid, memory.total MiB)]."""
    out = subprocess.run([FAKE_SMI, "--query-gpu=index,uuid,memory.total",
                          "--format=csv,noheader,nounits"], check=True, capture_output=True,
                         text=True).stdout
    return [(int(i), u.strip(), float(m)) for i, u, m in
            (line.split(",") for line in out.splitlines() if line.strip())]


class GpuBrand(Base):
    """gpu_tracker's gpu_brand="amd": hwmon reads the kernel's amdgpu files (here a tree standing
    for /, HWMON_SYSFS_ROOT) and the tracker's GPU figures are the card's."""

    def test_amd(self):
        from runlog.gpu_tracker import Tracker
        dev = self.dir / "root/sys/class/drm/card0/device"
        files = {"vendor": "0x1002", "gpu_busy_percent": "40", "mem_busy_percent": "7",
                 "mem_info_vram_used": str(3 << 30), "mem_info_vram_total": str(64 << 30),
                 "product_name": "AMD Radeon PRO W7900", "hwmon/hwmon0/power1_average": "150000000",
                 "unique_id": "a1b2c3d4e5f60718",
                 "uevent": "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:03:00.0"}
        for name, text in files.items():
            (dev / name).parent.mkdir(parents=True, exist_ok=True)
            (dev / name).write_text(text + "\n")
        # this process's DRM client on the card, as the root's proc/ (standing for /proc) says:
        # 1 GiB of VRAM (the kernel's drm-usage-stats text; one client on two descriptors)
        me = self.dir / "root/proc" / str(os.getpid())
        (me / "fd").mkdir(parents=True)
        (me / "fdinfo").mkdir()
        (me / "comm").write_text("python3\n")
        for fd in (3, 4):
            os.symlink("/dev/dri/renderD128", me / "fd" / str(fd))
            (me / "fdinfo" / str(fd)).write_text(
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\n"
                "drm-client-id:\t41\ndrm-memory-vram:\t1048576 KiB\ndrm-memory-gtt:\t2048 KiB\n")
        old = os.environ.get("HWMON_SYSFS_ROOT")
        os.environ["HWMON_SYSFS_ROOT"] = str(self.dir / "root")
        self.addCleanup(lambda: os.environ.pop("HWMON_SYSFS_ROOT") if old is None
                        else os.environ.__setitem__("HWMON_SYSFS_ROOT", old))
        run = self.dir / "run"
        with Tracker(sleep_time=0.1, gpu_ram_unit="megabytes", run_dir=str(run),
                     gpu_brand="amd") as tracker:
            wait_sampled(run, rows=4)
        with open(run / "run.jsonl") as f:
            start = json.loads(f.readline())["data"]
        self.assertEqual(start["gpu_source"], "amdgpu")
        self.assertEqual(start["gpus"][0]["name"], "AMD Radeon PRO W7900")
        self.assertEqual(start["gpus"][0]["vendor"], "amd")
        d = json.loads(tracker.to_json()) if isinstance(tracker.to_json(), str) else tracker.to_json()
        self.assertAlmostEqual(d["max_gpu_ram"]["system"], 3 * MIB * 1024 / 1e6, places=1)
        self.assertEqual(d["gpu_utilization"]["gpu_percentages"]["max_hardware_percent"], 40)
        # the process's GPU RAM from its fdinfo (drm-memory-vram), in gpu_tracker's megabytes
        gr = tracker.resource_usage.max_gpu_ram
        self.assertAlmostEqual(gr.main, (1 << 30) / 1e6, places=6)
        self.assertAlmostEqual(gr.combined, (1 << 30) / 1e6, places=6)
        self.assertEqual(gr.descendants, 0.0)


class GpuTrackerFigures(Base):
    """Every figure of gpu_tracker's Tracker, with no more arguments than gpu_tracker takes:
    GPU RAM of the main process, its descendants and both (the fake's compute apps: this
    process, its child, and a stranger's process that is not the job's), private and shared RSS
    of each, children=False, gpu_uuids."""
    # pid: this process ("main"), its child ("child"), pid 1 ("stranger"): GPU and MiB each
    APPS = {"main": (0, 1500), "child": (1, 700), "stranger": (0, 800)}
    MB = MIB / 1e6  # MiB in gpu_tracker's megabytes

    def setUp(self):
        super().setUp()
        self.child = subprocess.Popen(["sleep", "60"])
        self.addCleanup(self.child.wait)
        self.addCleanup(self.child.kill)
        pids = {"main": os.getpid(), "child": self.child.pid, "stranger": 1}
        apps = self.dir / "apps"
        apps.write_text("".join("%d:%d:%d:%s\n" % (pids[k], g, mib, k)
                                for k, (g, mib) in self.APPS.items()))
        env = os.environ.get("FAKE_SMI_APPS_FILE")
        os.environ["FAKE_SMI_APPS_FILE"] = str(apps)
        self.addCleanup(lambda: os.environ.pop("FAKE_SMI_APPS_FILE") if env is None
                        else os.environ.__setitem__("FAKE_SMI_APPS_FILE", env))

    def track(self, **kw):
        from runlog.gpu_tracker import Tracker
        run = self.dir / "run"
        with Tracker(sleep_time=0.1, ram_unit="megabytes", gpu_ram_unit="megabytes",
                     run_dir=str(run), nvidia_smi=FAKE_SMI, **kw) as tracker:
            wait_sampled(run, rows=4)
            self.wait_rows(run / "gpu_procs.csv", 2 * len(self.APPS))
        return tracker, run

    def wait_rows(self, path, n, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                with open(path) as f:
                    if sum(1 for _ in f) >= n:
                        return
            except OSError:
                pass
            time.sleep(0.02)
        self.fail("fewer than %d rows in %s" % (n, path))

    def matchable(self, run):
        """Whether nvidia-smi's pids are this namespace's (else the per-process GPU RAM is
        unmeasured: None)."""
        start = [e for e in events(run) if e["event"] == "start"][0]["data"]
        return start.get("pid_namespace") != "other"

    def test_gpu_ram_and_rss_parts(self):
        tracker, run = self.track()
        gpu = tracker.resource_usage.max_gpu_ram
        mib = {k: mib for k, (_, mib) in self.APPS.items()}
        if not self.matchable(run):  # a container's PID namespace: unmeasured, never 0
            self.assertEqual((gpu.main, gpu.descendants, gpu.combined), (None, None, None))
            mib = None
        # the fake reports the same figures at every sample: the peaks are them
        if mib:
            self.assertAlmostEqual(gpu.main, mib["main"] * self.MB, places=6)
            self.assertAlmostEqual(gpu.descendants, mib["child"] * self.MB, places=6)
            self.assertAlmostEqual(gpu.combined, (mib["main"] + mib["child"]) * self.MB,
                                   places=6)
        self.assertEqual(gpu.unit, "megabytes")
        # private RSS: main and descendants measured, descendants = tree - main at each row of
        # proc_metrics.csv (the child, sleep, has pages of its own); shared RSS counted once per
        # mapped path (hwmon --shared-once, gpu_tracker's rule), total = private + shared at
        # one row
        rows = [r for r in read_csv_rows(run / "proc_metrics.csv")  # the cadence's rows
                if r["private_mib"] is not None and r["main_private_mib"] is not None and
                r["shared_once_mib"] is not None and r["edge"] != 1]
        self.assertTrue(rows)
        ram = tracker.resource_usage.max_ram
        figures = {
            "main": (lambda r: r["main_private_mib"], lambda r: r["main_shared_once_mib"]),
            "descendants": (lambda r: r["private_mib"] - r["main_private_mib"],
                            lambda r: r["desc_shared_once_mib"]),
            "combined": (lambda r: r["private_mib"], lambda r: r["shared_once_mib"]),
        }
        for who, (private, shared) in figures.items():
            got = getattr(ram, who)
            self.assertAlmostEqual(got.private_rss, max(map(private, rows)) * self.MB, places=6)
            self.assertAlmostEqual(got.shared_rss, max(map(shared, rows)) * self.MB, places=6)
            self.assertAlmostEqual(got.total_rss,
                                   max(private(r) + shared(r) for r in rows) * self.MB, places=6)
        # two processes that share their libraries: once is less than the processes' sum
        self.assertLess(ram.combined.shared_rss,
                        max(r["shared_mib"] for r in rows) * self.MB)
        self.assertGreater(ram.descendants.private_rss, 0)
        self.assertGreater(ram.main.private_rss, ram.descendants.private_rss)
        self.assertGreater(ram.descendants.total_rss, 0)
        self.assertIsNotNone(ram.main.shared_rss)

    def test_children_false(self):
        # only this process: the descendants were not measured (None), not 0
        tracker, run = self.track(children=False)
        ru = tracker.resource_usage
        self.assertIsNone(ru.max_gpu_ram.descendants)
        self.assertIsNone(ru.max_ram.descendants.total_rss)
        self.assertIsNone(ru.max_ram.descendants.private_rss)
        self.assertIsNone(ru.max_ram.descendants.shared_rss)
        self.assertIsNone(ru.cpu_utilization.descendants.max_sum_percent)
        self.assertIsNone(ru.cpu_utilization.descendants_n_threads)
        if self.matchable(run):  # the child is not the job's: combined is main alone
            self.assertAlmostEqual(ru.max_gpu_ram.main, self.APPS["main"][1] * self.MB,
                                   places=6)
            self.assertAlmostEqual(ru.max_gpu_ram.combined, ru.max_gpu_ram.main, places=6)
        self.assertIsNotNone(ru.max_ram.main.private_rss)
        self.assertIsNotNone(ru.cpu_utilization.main_n_threads)

    def test_gpu_uuids(self):
        # one of the fake's GPUs tracked: its utilization alone, the system's GPU RAM both
        gpus = fake_gpus()
        self.assertGreater(len(gpus), 1)
        index, uuid, _ = gpus[-1]
        tracker, run = self.track(gpu_uuids={uuid})
        ru = tracker.resource_usage
        gu = ru.gpu_utilization
        self.assertEqual(gu.system_gpu_count, len(gpus))
        self.assertEqual(gu.n_expected_gpus, 1)
        # hw_metrics.csv holds every GPU; the figures from its rows (fields: the start event)
        start = [e for e in events(run) if e["event"] == "start"][0]["data"]
        fields = start["gpu_query_fields"].split(",")
        with open(run / "hw_metrics.csv") as f:
            rows = [dict(zip(fields, (c.strip() for c in line.split(",")))) for line in f]
        self.assertEqual({r["uuid"] for r in rows}, {u for _, u, _ in gpus})
        util = [float(r["utilization.gpu"]) for r in rows if r["uuid"] == uuid]
        self.assertEqual(gu.gpu_percentages.max_sum_percent, max(util))
        self.assertEqual(gu.gpu_percentages.max_hardware_percent, max(util))
        by_time = {}
        for r in rows:
            by_time.setdefault(r["timestamp"], []).append(float(r["memory.used"]))
        system = max(sum(m) for m in by_time.values() if len(m) == len(gpus))
        gr = ru.max_gpu_ram
        self.assertAlmostEqual(gr.system, system * self.MB, places=6)
        self.assertAlmostEqual(gr.system_capacity, sum(m for _, _, m in gpus) * self.MB,
                               places=6)
        # the processes' GPU RAM is every GPU's, as gpu_tracker gives it
        if self.matchable(run):
            self.assertAlmostEqual(gr.descendants, self.APPS["child"][1] * self.MB, places=6)
            self.assertAlmostEqual(gr.main, self.APPS["main"][1] * self.MB, places=6)
        # a UUID of no GPU here: gpu_tracker documents a ValueError for units only; here a
        # warning once the GPUs are known, the tracker goes on with the UUIDs that are GPUs
        # (every GPU when none is), and start() still returned at once
        from runlog.gpu_tracker import Tracker
        for asked, tracked in (({"GPU-no-such"}, None), ({"GPU-no-such", uuid}, {uuid})):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                bad = Tracker(sleep_time=0.1, run_dir=str(self.dir / ("bad%d" % len(asked))),
                              nvidia_smi=FAKE_SMI, gpu_uuids=asked)
                with bad:
                    wait_sampled(bad._mon.output_dir, rows=2)
                    # and the GPUs' first rows, which n_expected_gpus is counted from (under
                    # load the process rows came first and the block ended without them)
                    self.wait_rows(os.path.join(bad._mon.output_dir, "hw_metrics.csv"),
                                   len(gpus))
            said = [str(x.message) for x in w if "GPU UUID GPU-no-such is not valid" in
                    str(x.message)]
            self.assertEqual(len(said), 1, [str(x.message) for x in w])
            self.assertEqual(bad.gpu_uuids, tracked)
            self.assertEqual(bad.resource_usage.gpu_utilization.n_expected_gpus,
                             len(tracked) if tracked else len(gpus))
        with self.assertRaises(ValueError):
            Tracker(gpu_uuids=set())


class Summaries(Base):
    def test_run_summary(self):
        out = self.dir / "run"
        with Monitor(out, interval_sec=0.1, nvidia_smi=FAKE_SMI) as mon:
            with RunLog(out / "run.jsonl") as log, log.phase("train", steps=10):
                work(0.6, 8)
        s = mon.summary()
        self.assertEqual(s.to_dict(), summarize_json("--format", "json", out))
        self.assertEqual(runlog.RunSummary.from_dict(s.to_dict()), s)
        self.assertEqual(s.phases[0]["name"], "train")
        self.assertEqual(s["steps"], 10)
        self.assertIn("proc_memory_growth_mib", s.phases[0])
        with self.assertRaises(AttributeError):
            s.no_such_key
        with self.assertRaises(AttributeError):
            s.status = "ok"
        self.assertIn("train", s.text())

    def test_children_and_status(self):
        # children=False: this process alone (resource-tracker's children=False), not the
        # shell it starts; the status moves new -> started -> stopped
        mon = Monitor(self.dir / "run", interval_sec=0.1, no_gpu=True, children=False)
        self.assertEqual(mon.status, "new")
        with mon:
            self.assertEqual(mon.status, "started")
            subprocess.run(["/bin/sh", "-c", "timeout 0.6 sh -c 'while :; do :; done'; true"])
        self.assertEqual(mon.status, "stopped")
        doc = mon.to_json()
        self.assertEqual(doc["process"]["procs_max"], 1)
        # the shell's core is not ours: counted, it would be most of the run. The mean, not the
        # max: CPU time comes in 10 ms ticks, and on a loaded machine a sample late by 89 ms is
        # followed 11 ms later by the next, where one tick of this process reads 90% (CI saw it)
        self.assertLess(doc["process"]["cpu_pct"]["mean"], 25)
        self.assertIn("process tree", str(mon))

    def test_nothing_to_summarize(self):
        with self.assertRaises(runlog.SummarizeError):
            runlog.summarize(self.dir)


class Failures(Base):
    def test_hwmon_missing(self):
        # monitoring never stops the job: a warning, the script goes on; strict raises
        env = os.environ.get("RUNLOG_HWMON")
        os.environ["RUNLOG_HWMON"] = str(self.dir / "no-hwmon")
        try:
            mon = HWMonitor()
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                mon.start(self.dir / "run", interval_sec=0.1)
            self.assertTrue(any(issubclass(x.category, RuntimeWarning) and
                                "unmonitored" in str(x.message) for x in w))
            self.assertEqual(mon.stop(), (None, None, None))
            with self.assertRaises(OSError):
                Monitor(self.dir / "run2", strict=True).start()
        finally:
            if env is None:
                del os.environ["RUNLOG_HWMON"]
            else:
                os.environ["RUNLOG_HWMON"] = env

    def test_taken_dir(self):
        # a directory that holds a run's samples: hwmon takes the next free name and says so;
        # the monitor follows it there, and the first run is left as it was
        out = self.dir / "run"
        with Monitor(out, interval_sec=0.1, no_gpu=True):
            work(0.2, 1)
        before = (out / "cpu_metrics.csv").read_bytes()
        mon = HWMonitor(no_gpu=True)
        mon.start(out, interval_sec=0.1)
        wait_sampled(self.dir / "run-2")
        gpu, cpu, dmon = mon.stop()
        self.assertEqual(cpu, self.dir / "run-2" / "cpu_metrics.csv")
        self.assertEqual((out / "cpu_metrics.csv").read_bytes(), before)
        with Monitor(out, interval_sec=0.1, no_gpu=True) as m:
            pass
        self.assertEqual(m.output_dir, self.dir / "run-3")
        self.assertEqual(m.summary().outcome["status"], "ok")

    def test_job_killed(self):
        # the job dies by SIGKILL while monitored: hwmon sees its process go, ends the run with
        # a stop event and leaves no process behind
        out = self.dir / "run"
        script = textwrap.dedent("""
            import os, signal, sys, time
            import runlog
            m = runlog.Monitor(sys.argv[1], interval_sec=0.1, nvidia_smi=sys.argv[2], strict=True)
            m.start()
            time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGKILL)
        """)
        r = subprocess.run([sys.executable, "-c", script, str(out), FAKE_SMI], timeout=60)
        self.assertEqual(r.returncode, -signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            stops = [e for e in events(out) if e["event"] == "stop"]
            if stops:
                break
            time.sleep(0.05)
        self.assertEqual(len(stops), 1)
        self.assertEqual(stops[0]["data"]["reason"], "process_exit")
        self.assertFalse(stops[0]["data"]["process_alive"])
        hw_pid = [e for e in events(out) if e["event"] == "start"][0]["data"]["hwmon_pid"]
        deadline = time.monotonic() + 10
        while not gone(hw_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(gone(hw_pid))
        self.assertEqual(runlog.summarize(out).outcome["status"], "exited")


if __name__ == "__main__":
    unittest.main()
