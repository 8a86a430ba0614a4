#!/usr/bin/env python3
"""Benchmark: CPU per sample of runlog.resource_tracker.PidTracker (the tracker's process and
the hwmon it starts, with hwmon's nvidia-smi children) against resource-tracker's own procfs
loop (re-implemented below as its PidTracker reads: every process's files in Python, an
nvidia-smi pmon spawned per sample), on the same workload, at the same interval. Run by hand:

    PYTHONPATH=build/python python3 tests/bench/bench_resource_tracker.py [--interval 0.2]
        [--samples 10,50] [--fake-smi build/tests/fake/fake_nvidia_smi]

How: each tracker runs in a process of its own for N1 and then N2 samples; its CPU is what
wait4() reports for that process and everything it waited for (hwmon, nvidia-smi). The cost
per sample is (cpu(N2) - cpu(N1)) / (N2 - N1), so interpreter start, imports and hwmon's start
and stop drop out. Without --fake-smi both run without nvidia-smi (resource-tracker still tries
to spawn it every sample, as it does on a machine without one); with it, both see the fake's
two GPUs (a real nvidia-smi costs far more to start than the fake: resource-tracker's figure is
then a floor).
"""
import argparse
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20

# The workload: a busy process holding --mib MiB, with two children (one busy, one asleep), so
# the tree has three processes to read.
WORKLOAD = r"""
import os, sys, time
block = bytearray(int(sys.argv[1]) << 20)
for i in range(0, len(block), 4096):
    block[i] = 1
for busy in (True, False):
    if os.fork() == 0:
        while True:
            if busy:
                sum(range(10000))
            else:
                time.sleep(1)
while True:
    sum(range(10000))
"""

# resource-tracker's PidTracker loop, as its tracker.py reads procfs (stdlib only).
THEIRS = r"""
import csv, os, sys, time
from subprocess import PIPE, Popen, TimeoutExpired
from contextlib import suppress

def get_pid_children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "r") as f:
            children = {int(child) for child in f.read().strip().split()}
            descendants = set()
            for child in children:
                descendants.update(get_pid_children(child))
            return children | descendants
    except (ProcessLookupError, FileNotFoundError):
        return set()

def get_pid_pss_rollup(pid):
    with suppress(ProcessLookupError, FileNotFoundError):
        with open(f"/proc/{pid}/smaps_rollup", "r") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    return 0

def get_pid_proc_times(pid, children=True):
    try:
        with open(f"/proc/{pid}/stat", "r") as f:
            values = f.read().split()
            return {"utime": int(values[13]) + (int(values[15]) if children else 0),
                    "stime": int(values[14]) + (int(values[16]) if children else 0)}
    except (ProcessLookupError, FileNotFoundError):
        return {"utime": 0, "stime": 0}

def get_pid_proc_io(pid):
    try:
        with open(f"/proc/{pid}/io", "r") as f:
            return {parts[0]: int(parts[1]) for line in f if (parts := line.split(": "))}
    except (ProcessLookupError, FileNotFoundError, PermissionError):
        return {"read_bytes": 0, "write_bytes": 0}

def get_pid_stats(pid, children=True):
    current_time = time.time()
    with suppress(FileNotFoundError):
        nvidia_process = Popen(["nvidia-smi", "pmon", "-c", "1", "-s", "um", "-d", "1"],
                               stdout=PIPE)
    current_children = get_pid_children(pid)
    current_pss = get_pid_pss_rollup(pid)
    if children:
        for child in current_children:
            current_pss += get_pid_pss_rollup(child)
    current_proc_times = get_pid_proc_times(pid, children)
    if children:
        for child in current_children:
            current_proc_times["utime"] += get_pid_proc_times(child, True)["utime"]
            current_proc_times["stime"] += get_pid_proc_times(child, True)["stime"]
    current_io = get_pid_proc_io(pid)
    if children:
        for child in current_children:
            child_io = get_pid_proc_io(child)
            for key in set(current_io) & set(child_io):
                current_io[key] += child_io[key]
    gpu_stats = {"gpu_usage": 0, "gpu_vram": 0, "gpu_utilized": 0,
                 "gpu_utilized_indexes": set()}
    try:
        stdout, _ = nvidia_process.communicate(timeout=0.5)
        if nvidia_process.returncode == 0:
            for index, line in enumerate(stdout.splitlines()):
                if index < 2:
                    continue
                parts = line.decode().split()
                if int(parts[1]) == int(pid) or (children and int(parts[1]) in current_children):
                    usage = 0
                    if parts[3] != "-":
                        usage = float(parts[3])
                        gpu_stats["gpu_utilized_indexes"].add(int(parts[0]))
                    gpu_stats["gpu_usage"] += usage / 100
                    gpu_stats["gpu_vram"] += float(parts[9])
            gpu_stats["gpu_utilized"] = len(gpu_stats["gpu_utilized_indexes"])
    except TimeoutExpired:
        nvidia_process.kill()
    except Exception:
        pass
    return {"timestamp": current_time, "pid": pid,
            "children": len(current_children) if children else None,
            "utime": current_proc_times["utime"], "stime": current_proc_times["stime"],
            "pss": current_pss, "read_bytes": current_io["read_bytes"],
            "write_bytes": current_io["write_bytes"], **gpu_stats}

def run(pid, interval, n, out):
    stats = get_pid_stats(pid, True)
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC)
    for cycle in range(1, n + 1):
        current_time = time.time()
        last, stats = stats, get_pid_stats(pid, True)
        row = {"timestamp": stats["timestamp"], "pid": pid, "children": stats["children"],
               "utime": max(0, stats["utime"] - last["utime"]),
               "stime": max(0, stats["stime"] - last["stime"]),
               "cpu_usage": round(max(0, (stats["utime"] + stats["stime"] - last["utime"]
                                          - last["stime"]) / (stats["timestamp"]
                                          - last["timestamp"]) / os.sysconf("SC_CLK_TCK")), 4),
               "pss": stats["pss"],
               "read_bytes": max(0, stats["read_bytes"] - last["read_bytes"]),
               "write_bytes": max(0, stats["write_bytes"] - last["write_bytes"]),
               "gpu_usage": stats["gpu_usage"], "gpu_vram": stats["gpu_vram"],
               "gpu_utilized": stats["gpu_utilized"]}
        writer.writerow(row.keys() if cycle == 1 else row.values())
        out.flush()
        time.sleep(max(0, interval - (time.time() - current_time)))

pid, interval, n = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
with open(sys.argv[4], "w") as out:
    run(pid, interval, n, out)
"""

# runlog's PidTracker, the same number of rows (diff_stats and the writer of start_tracking).
OURS = r"""
import csv, sys
from runlog.resource_tracker import PID_COLUMNS, PidTracker
pid, interval, n = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
every, smi = sys.argv[5] == "every", sys.argv[6] if len(sys.argv) > 6 else None
t = PidTracker(pid=pid, interval=interval, autostart=False, nvidia_smi=smi,
               no_gpu=smi is None, pss_every_sample=every)
with open(sys.argv[4], "w") as out:
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(PID_COLUMNS)
    for _ in range(n):
        row = t.diff_stats()
        writer.writerow([row[k] for k in PID_COLUMNS])
        out.flush()
t.stop()
"""


def cpu_of(argv, env):
    """CPU seconds (user + system) of a process and all it waited for, and its wall time."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit("%s exited with %d" % (argv[:3], proc.returncode))
    return ru.ru_utime + ru.ru_stime, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--samples", default="10,50", help="N1,N2: the two run lengths")
    ap.add_argument("--fake-smi", help="the fake nvidia-smi: both trackers see its GPUs")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the median is kept")
    ap.add_argument("--mib", type=int, default=200, help="the workload's memory")
    a = ap.parse_args()
    n1, n2 = map(int, a.samples.split(","))
    tmp = tempfile.mkdtemp(prefix="bench-rt-")
    env = dict(os.environ)
    smi_args = []
    if a.fake_smi:
        # resource-tracker runs "nvidia-smi" from PATH: the fake under that name
        os.symlink(os.path.abspath(a.fake_smi), os.path.join(tmp, "nvidia-smi"))
        env["PATH"] = tmp + os.pathsep + env.get("PATH", "")
        smi_args = [os.path.abspath(a.fake_smi)]
    else:  # no nvidia-smi anywhere on PATH, for both
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                      if not os.path.exists(os.path.join(p, "nvidia-smi")))
    work = subprocess.Popen([sys.executable, "-c", WORKLOAD, str(a.mib)], start_new_session=True)
    try:
        time.sleep(1.0)  # the block touched, the children forked
        if a.fake_smi:
            env["FAKE_SMI_APPS"] = "%d:0:1024" % work.pid
        out = os.path.join(tmp, "rows.csv")
        results = {}
        for name, code, extra in (("theirs", THEIRS, []),
                                  ("ours", OURS, ["budget"] + smi_args),
                                  ("ours --pss-every-sample", OURS, ["every"] + smi_args)):
            per = []
            for _ in range(a.repeat):
                costs = []
                for n in (n1, n2):
                    argv = [sys.executable, "-c", code, str(work.pid), str(a.interval), str(n),
                            out] + extra
                    cpu, wall = cpu_of(argv, env)
                    with open(out) as f:
                        rows = list(csv.reader(f))
                    costs.append(cpu)
                per.append((costs[1] - costs[0]) / (n2 - n1))
            per.sort()
            results[name] = per[len(per) // 2]
            print("%-24s %8.3f ms CPU per sample (median of %d; runs: %s); last run %d rows, "
                  "%.1f s" % (name, results[name] * 1e3, a.repeat,
                              ", ".join("%.3f" % (p * 1e3) for p in per), len(rows), wall))
        print("ratio theirs/ours: %.1fx, with PSS every sample %.1fx  (interval %g s, workload "
              "%d MiB in 3 processes, %s)"
              % (results["theirs"] / results["ours"],
                 results["theirs"] / results["ours --pss-every-sample"], a.interval, a.mib,
                 "fake nvidia-smi" if a.fake_smi else "no nvidia-smi"))
    finally:
        os.killpg(work.pid, signal.SIGKILL)  # the workload and its two children
        work.wait()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
