#!/usr/bin/env python3
"""What pytyche prints for a run whose caller stored probe_jax_peak_memory_mb(): its own
build_resource_summary() on the run's files, with jax_peak_bytes_mb set to the JAX peak the run
logged (run.jsonl's framework_memory, as our Python package writes it), then to_dict() as
pytyche_summary.py prints it. Regenerates testdata/expected/jax.pytyche.json:

    python3 tests/golden/jax_golden.py ../shared/oracle testdata/runs/jax > testdata/expected/jax.pytyche.json
"""
import json
import sys
from pathlib import Path

oracle, run = Path(sys.argv[1]), Path(sys.argv[2])
sys.path.insert(0, str(oracle))
from pytyche_run_monitor import build_resource_summary  # noqa: E402

peak = 0.0
for line in open(run / "run.jsonl", encoding="utf-8"):
    e = json.loads(line)
    fm = e.get("framework_memory") if e.get("type") != "event" else (
        e.get("data") if e.get("event") == "framework_memory" else None)
    if fm and fm.get("framework") == "jax":
        peak = max(peak, fm["peak_mib"])
files = [run / n for n in ("hw_metrics.csv", "cpu_metrics.csv", "hw_dmon.csv")]
s = build_resource_summary(*[f if f.exists() else None for f in files])
s.jax_peak_bytes_mb = peak
print(json.dumps(s.to_dict(), sort_keys=True))
