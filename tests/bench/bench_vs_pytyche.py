#!/usr/bin/env python3
"""Benchmark: CPU per sample of hwmon (every default on but the GPU: /proc/stat, meminfo, disks,
network, the cgroup, and the process tree's stat, io, smaps_rollup) against pytyche's
HWMonitor CPU sampler (its /proc/stat thread, re-implemented below as pytyche writes it), on
the same workload and interval, at 1 s and 0.1 s, watching a tree of 1 and of 64 processes
(one busy). Run by hand:

    python3 tests/bench/bench_vs_pytyche.py [--hwmon build/hwmon/hwmon] [--quick]

How: each tool runs in a process of its own for N1 and then N2 samples; its CPU is what wait4()
reports for that process (user + system), so the cost per sample is
(cpu(N2) - cpu(N1)) / (N2 - N1) and start-up drops out. Median of --runs runs. pytyche's
sampler reads one line of /proc/stat a sample; hwmon reads 14 files and more per process:
the ratio says what hwmon's extra figures cost.
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# pytyche's _CpuSampler (run_monitor.py), as it reads /proc/stat, for n samples at interval s
PYTYCHE = r"""
import sys, threading
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
interval, n = float(sys.argv[1]), int(sys.argv[2])
samples, stop = [], threading.Event()
def run():
    prev = _read_cpu_jiffies()
    stop.wait(interval)
    while not stop.is_set() and len(samples) < n:
        curr = _read_cpu_jiffies()
        if prev is not None and curr is not None:
            d_total = curr[2] - prev[2]
            if d_total > 0:
                samples.append((_now_iso(), 100.0 * (curr[0] - prev[0]) / d_total,
                                100.0 * (curr[1] - prev[1]) / d_total))
        prev = curr
        stop.wait(interval)
t = threading.Thread(target=run, daemon=True)
t.start()
t.join()
"""

# the watched tree: one busy process and nproc - 1 sleeping children
WORKLOAD = r"""
import os, sys, time
for _ in range(int(sys.argv[1]) - 1):
    if os.fork() == 0:
        time.sleep(3600)
        os._exit(0)
x = 0
while True:
    x += 1
"""


def cpu_of(argv):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit("%s exited with status %d" % (argv[0], status))
    return ru.ru_utime + ru.ru_stime


def per_sample(argv_of, n1, n2, runs):
    xs = []
    for _ in range(runs):
        c1, c2 = cpu_of(argv_of(n1)), cpu_of(argv_of(n2))
        xs.append((c2 - c1) / (n2 - n1) * 1000)
    return statistics.median(xs)


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hwmon", default=os.path.join(top, "build/hwmon/hwmon"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="0.1 s only")
    a = ap.parse_args()
    configs = [(0.1, 20, 120)] if a.quick else [(1.0, 4, 14), (0.1, 20, 120)]
    with tempfile.TemporaryDirectory() as tmp:
        for nproc in (1, 64):
            w = subprocess.Popen([sys.executable, "-c", WORKLOAD, str(nproc)],
                                 start_new_session=True)
            time.sleep(1)
            try:
                for interval, n1, n2 in configs:
                    k = [0]

                    def hwmon(n):
                        k[0] += 1
                        return [a.hwmon, "-q", "--no-gpu", "-p", str(w.pid), "-i", str(interval),
                                "-d", str(interval * n), "-o", os.path.join(tmp, "r%d" % k[0])]

                    def pytyche(n):
                        return [sys.executable, "-c", PYTYCHE, str(interval), str(n)]

                    h = per_sample(hwmon, n1, n2, a.runs)
                    p = per_sample(pytyche, n1, n2, a.runs)
                    print("%2d processes, -i %-4g hwmon %7.3f ms  pytyche %7.3f ms CPU per sample:"
                          " hwmon/pytyche %.2f" % (nproc, interval, h, p, h / p), flush=True)
            finally:
                os.killpg(w.pid, signal.SIGKILL)
                w.wait()


if __name__ == "__main__":
    main()
