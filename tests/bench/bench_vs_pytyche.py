#!/usr/bin/env python3
"""Benchmark: CPU per sample of hwmon (every default on but the GPU: /proc/stat, meminfo, disks,
network, the cgroup, and the process tree's stat, io, smaps_rollup) against pytyche's
HWMonitor CPU sampler (its /proc/stat thread, re-implemented below as pytyche writes it), side
by side on the same workload and interval, at 1 s and 0.1 s, watching a tree of 1 and of 64
processes, and one process of 64 threads (one thread busy). Run by hand:

    python3 tests/bench/bench_vs_pytyche.py [--hwmon build/hwmon/hwmon] [--quick]

How: both tools run at once, for a warm-up and then --windows windows of --samples samples
each. A tool's CPU in a window is the sum, over every thread of its process, of the first
field of /proc/PID/task/TID/schedstat (the kernel's run time in ns) at the window's end minus
at its start; divided by the samples in the window (hwmon: the rows its proc_metrics.csv
gained; the pytyche sampler: the lines it printed). Start-up and exit fall outside every
window. The median window is printed. pytyche's sampler reads one line of /proc/stat a sample;
hwmon reads 14 files and more per process: the ratio says what hwmon's extra figures cost.
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# pytyche's _CpuSampler (run_monitor.py), as it reads /proc/stat, at interval s; each sample
# also prints one byte so that the benchmark can count them (a write of 1 byte a sample)
PYTYCHE = r"""
import os, sys, threading
from datetime import datetime, timezone
def _now_iso():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")
def _read_cpu_jiffies():
    try:
        with open("/proc/stat") as f:
            line = f.readline()
    except OSError:
        return None
    parts = line.split()
    if not parts or parts[0] != "cpu":
        return None
    vals = [int(x) for x in parts[1:]]
    return vals[0] + vals[1], vals[3], sum(vals)
interval = float(sys.argv[1])
samples, stop = [], threading.Event()
def run():
    prev = _read_cpu_jiffies()
    stop.wait(interval)
    while not stop.is_set():
        curr = _read_cpu_jiffies()
        if prev is not None and curr is not None:
            d_total = curr[2] - prev[2]
            if d_total > 0:
                samples.append((_now_iso(), 100.0 * (curr[0] - prev[0]) / d_total,
                                100.0 * (curr[1] - prev[1]) / d_total))
        os.write(1, b".")
        prev = curr
        stop.wait(interval)
t = threading.Thread(target=run, daemon=True)
t.start()
t.join()
"""

# the watched tree: one busy process with nthreads - 1 sleeping threads (a training process's
# are many: BLAS, CUDA, DataLoader pin-memory) and nproc - 1 sleeping children
WORKLOAD = r"""
import os, sys, threading, time
for _ in range(int(sys.argv[1]) - 1):
    if os.fork() == 0:
        time.sleep(3600)
        os._exit(0)
for _ in range(int(sys.argv[2]) - 1):
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
x = 0
while True:
    x += 1
"""


def run_ns(pid):
    """The process's CPU so far: every live thread's schedstat run time, in ns."""
    total = 0
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended: hwmon's and pytyche's samplers live throughout
    return total


def count_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0


def count_bytes(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def measure(hwmon_bin, tmp, tree_pid, interval, samples, windows):
    """Median ns per sample of hwmon and of the pytyche sampler, run side by side."""
    out = os.path.join(tmp, "run-%g-%d" % (interval, tree_pid))
    dots = os.path.join(tmp, "dots-%g-%d" % (interval, tree_pid))
    total_s = interval * (samples * (windows + 1) + 10) + 5
    h = subprocess.Popen([hwmon_bin, "-q", "--no-gpu", "-p", str(tree_pid), "-i", str(interval),
                          "-d", str(total_s), "-o", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(dots, "wb") as df:
        p = subprocess.Popen([sys.executable, "-c", PYTYCHE, str(interval)], stdout=df)
    csv = os.path.join(out, "proc_metrics.csv")
    hs, ps = [], []
    try:
        time.sleep(max(3 * interval, 1.0))  # past both tools' start-up
        for _ in range(windows):
            h0, p0 = run_ns(h.pid), run_ns(p.pid)
            hn0, pn0 = count_lines(csv), count_bytes(dots)
            time.sleep(interval * samples)
            h1, p1 = run_ns(h.pid), run_ns(p.pid)
            hn1, pn1 = count_lines(csv), count_bytes(dots)
            if None in (h0, h1, p0, p1):
                raise SystemExit("a tool exited early: hwmon %s, pytyche %s" % (h.poll(), p.poll()))
            if hn1 > hn0 and pn1 > pn0:
                hs.append((h1 - h0) / (hn1 - hn0))
                ps.append((p1 - p0) / (pn1 - pn0))
    finally:
        for proc in (h, p):
            proc.send_signal(signal.SIGTERM)
            proc.wait()
    if not hs:
        raise SystemExit("no window counted samples of both tools")
    return statistics.median(hs), statistics.median(ps)


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hwmon", default=os.path.join(top, "build/hwmon/hwmon"))
    ap.add_argument("--windows", type=int, default=3, help="windows per case (median printed)")
    ap.add_argument("--quick", action="store_true", help="0.1 s only")
    ap.add_argument("--trees", default="1x1,64x1,1x64",
                    help="trees to watch, PROCSxTHREADS, comma-separated")
    a = ap.parse_args()
    configs = [(0.1, 50)] if a.quick else [(1.0, 15), (0.1, 50)]
    with tempfile.TemporaryDirectory() as tmp:
        for tree in a.trees.split(","):
            nproc, nthr = (int(x) for x in tree.split("x"))
            w = subprocess.Popen([sys.executable, "-c", WORKLOAD, str(nproc), str(nthr)],
                                 start_new_session=True)
            time.sleep(1)
            try:
                for interval, samples in configs:
                    h, p = measure(a.hwmon, tmp, w.pid, interval, samples, a.windows)
                    print("%3d processes x %2d threads, -i %-4g hwmon %7.1f us  pytyche %7.1f us"
                          " CPU per sample (schedstat): hwmon/pytyche %.2f"
                          % (nproc, nthr, interval, h / 1000, p / 1000, h / p), flush=True)
            finally:
                os.killpg(w.pid, signal.SIGKILL)
                w.wait()


if __name__ == "__main__":
    main()
