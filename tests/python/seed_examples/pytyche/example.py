"""pytyche.diagnostics.run_monitor, as its API page and module docstring describe it: a RunLog of
the fit's phases and events, HWMonitor().start(output_dir, interval_sec) ... stop() giving the
three CSV paths, build_resource_summary(...) and its to_dict(). Prints each result's repr."""
import json
import sys
import time
from pathlib import Path

from pytyche.diagnostics.run_monitor import HWMonitor, RunLog, build_resource_summary

output_dir = Path(sys.argv[1])
log = RunLog()
log.log_event("start", {"model": "mlp", "n_iter": 500})

monitor = HWMonitor()
monitor.start(output_dir, interval_sec=1)
t0 = time.perf_counter()
block = bytearray(32 << 20)
while time.perf_counter() - t0 < 2.5:
    block[int((time.perf_counter() - t0) * 1000) % len(block)] = 1
log.log_phase("fit", time.perf_counter() - t0, n_iter=500, loss=0.25)
gpu_csv, cpu_csv, dmon_csv = monitor.stop()
print((gpu_csv, cpu_csv, dmon_csv))

summary = build_resource_summary(gpu_csv, cpu_csv, dmon_csv)
print(summary)
print(summary.to_dict())

log.write(output_dir / "run_log.jsonl")
with open(output_dir / "run_log.jsonl") as f:
    for line in f:
        print(json.loads(line))
