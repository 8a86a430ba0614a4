#!/bin/sh
# Check hwmon on a real NVIDIA GPU in about a minute, with no network or installs: the driver's
# query fields, every run file read with no bad cell, NVML's energy counter against integrated
# power, the start delay, a summary's figures against a known load (PyTorch, when there), and a
# stop with no child left. One line per check, then a verdict; exit 0 when nothing failed.
# Usage: check.sh [OUTDIR]   (from a folder made by tests/gpu/bundle.sh, or from the source tree
# with hwmon, summarize and runlog on PATH)
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/hwrun-gpucheck.XXXXXX")}
if [ -d "$here/bin" ]; then
  PATH="$here/bin:$PATH"
  RUNLOG_LIBRARY="$here/lib/librunlog.so.1"
  PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
  export PATH RUNLOG_LIBRARY PYTHONPATH
fi
exec python3 "$here/check.py" "$out"
