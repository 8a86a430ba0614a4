#!/usr/bin/env bash
# A short, real workload for the README's demo: four phases of CPU, memory and disk work, each
# timed with `runlog time`, and one from Python through the runlog package, so the run directory shows per-phase figures. Run it under hwmon:
#   build/hwmon/hwmon -o demo-run -- tests/demo_workload.sh
# Uses $RUNLOG_FILE (set by hwmon) and $RUNLOG (default: the runlog next to this build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runlog=${RUNLOG:-$here/build/runlog/runlog}
work=$(mktemp -d "${TMPDIR:-/tmp}/hwrun-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT

"$runlog" event workload_start host="$(hostname)" --data '{"phases": ["prepare", "compress", "checksum", "sort"]}'
"$runlog" time prepare size_mib=256 -- sh -c "head -c 256M /dev/urandom > '$work/data.bin'"
"$runlog" time compress level=6 -- sh -c "gzip -6 -c '$work/data.bin' > '$work/data.gz'"
# Two processes at once: both cores busy.
"$runlog" time checksum procs=2 -- sh -c "sha256sum '$work/data.bin' >/dev/null & sha512sum '$work/data.gz' >/dev/null & wait"
"$runlog" time sort lines=2000000 -- sh -c "seq 2000000 | sort -R -S 256M > '$work/sorted.txt'"
# A training-loop-like phase from Python, through the runlog package (python/).
PYTHONPATH="$here/build/python${PYTHONPATH:+:$PYTHONPATH}" python3 - <<'PY'
from runlog import RunLog

log = RunLog()                                   # $RUNLOG_FILE, set by hwmon
with log.phase("python_loop", steps=20, lr=3e-4):
    loss = 10.0
    for step in range(20):
        loss = 0.9 * loss + sum(i * i for i in range(600_000)) * 1e-15
log.log_event("python_done", {"final_loss": loss, "steps": 20})
PY
"$runlog" event workload_done files="$(ls "$work" | wc -l)"
