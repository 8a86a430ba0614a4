#!/usr/bin/env python3
"""Benchmark: cost per entry of the runlog Python package vs the C library vs the CLI, measured in
one run, on the same kind of file, with the same fields (issue 11's goal: the binding within 3x of
the C call and 100x under the CLI).

    PYTHONPATH=build/python python3 tests/bench/bench_python.py [BUILD_DIR] [-n N]

The C figure is bench_runlog's single-thread rl_phase() (built in BUILD_DIR/tests/bench); the
CLI figure spawns `runlog phase` per entry, as a shell script would.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import runlog


def per_entry(fn, n):
    t0 = time.perf_counter()
    fn(n)
    return (time.perf_counter() - t0) / n * 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("-n", type=int, default=200000)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="bench-python-")
    path = os.path.join(d, "run.jsonl")

    out = subprocess.run([os.path.join(a.build, "tests/bench/bench_runlog"), "-n", str(a.n),
                          "-d", d], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^1\s+(\d+)\s+(\d+)", out, re.M)
    raw_ns, c_ns = float(m.group(1)), float(m.group(2))

    log = runlog.RunLog(path)

    def binding(n):
        for i in range(n):
            log.log_phase("train_step", 0.0123, step=i, loss=0.123456, split="train")

    py_ns = per_entry(binding, a.n)

    def phase_ctx(n):
        for i in range(n):
            with log.phase("train_step", step=i):
                pass

    ctx_ns = per_entry(phase_ctx, a.n)

    # the same with JAX imported (the tests' stand-in: the documented calls, no device work):
    # every phase's begin and end then carry framework_memory (issue 24: under 100 us)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                    "standins"))
    import jax
    jax.DEVICES[:] = [jax.Device("gpu", 0, {"peak_bytes_in_use": 6 << 30,
                                            "bytes_in_use": 1 << 30, "bytes_limit": 60 << 30})]
    fw_ns = per_entry(phase_ctx, a.n // 4)

    def fw_event(n):
        for _ in range(n):
            log.log_framework_memory()

    ev_ns = per_entry(fw_event, a.n // 4)
    del sys.modules["jax"]
    log.close()

    cli = os.path.join(a.build, "runlog/runlog")
    env = dict(os.environ, RUNLOG_FILE=path)

    def cli_loop(n):
        for i in range(n):
            subprocess.run([cli, "phase", "train_step", "0.0123", "step=%d" % i, "loss=0.123456",
                            "split=train"], env=env, check=True)

    n_cli = max(200, a.n // 500)
    cli_ns = per_entry(cli_loop, n_cli)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)

    print("entries: %d (CLI: %d), python %s, librunlog %s" % (a.n, n_cli, sys.version.split()[0],
                                                             runlog.library_version()))
    print("%-34s %12s %10s" % ("", "ns/entry", "vs C call"))
    for name, ns in (("raw write(2) of the line (C)", raw_ns), ("rl_phase() (C)", c_ns),
                     ("RunLog.log_phase() (Python)", py_ns), ("with log.phase(): (Python)", ctx_ns),
                     ("  ... with JAX's memory at both ends", fw_ns),
                     ("log_framework_memory() (Python)", ev_ns),
                     ("runlog phase (CLI, one process)", cli_ns)):
        print("%-34s %12.0f %9.2fx" % (name, ns, ns / c_ns))
    print("CLI / binding: %.0fx" % (cli_ns / py_ns))
    print("framework memory at a phase's begin and end: +%.1f us per phase"
          % ((fw_ns - ctx_ns) / 1000))


if __name__ == "__main__":
    main()
