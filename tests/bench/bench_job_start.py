#!/usr/bin/env python3
"""Benchmark: how long a wrapped job waits for hwmon before it starts, with an nvidia-smi that
takes --delay-ms to answer each call (the fake's FAKE_SMI_START_DELAY_MS: a busy node, or no
persistence mode), against the same with --gpus 0, where hwmon still asks nvidia-smi its five
questions before it starts the job (a wrong --gpus id must be an error before the job runs).
Run by hand:

    python3 tests/bench/bench_job_start.py [--hwmon build/hwmon/hwmon]
        [--fake-smi build/tests/fake/fake_nvidia_smi] [--delay-ms 1000] [--runs 5]

Each run: the job (GNU date, a millisecond to start) prints the time as its first act; the latency is that minus the time just
before hwmon was spawned (the job then exits: hwmon's own end is not timed). Median and max of
--runs runs each way.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time


def latency(hwmon, smi, delay_ms, extra, tmp):
    out = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, FAKE_SMI_START_DELAY_MS=str(delay_ms))
    argv = [hwmon, "-q", "--nvidia-smi", smi, "-o", os.path.join(out, "run"), *extra, "--",
            "date", "+%s.%N"]
    t0 = time.time()
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit("hwmon exited %d: %s" % (p.returncode, p.stderr))
    return float(p.stdout.strip()) - t0


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hwmon", default=os.path.join(top, "build/hwmon/hwmon"))
    ap.add_argument("--fake-smi", default=os.path.join(top, "build/tests/fake/fake_nvidia_smi"))
    ap.add_argument("--delay-ms", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (("job first (default)", []), ("--gpus 0 (probes first)",
                                                            ["--gpus", "0"])):
            xs = [latency(a.hwmon, a.fake_smi, a.delay_ms, extra, tmp) for _ in range(a.runs)]
            print("%-26s job starts %7.1f ms after hwmon (median of %d; max %.1f ms), "
                  "nvidia-smi %d ms a call" % (label, 1000 * statistics.median(xs), a.runs,
                                                1000 * max(xs), a.delay_ms))


if __name__ == "__main__":
    main()
