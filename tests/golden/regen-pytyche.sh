#!/bin/sh
# Regenerates testdata/expected/X.pytyche.json, what pytyche's own summary prints for the run
# directory testdata/runs/X, from the oracle in the project's shared/ folder (not part of this
# repository); the test "golden" of tests/summarize/test_cli.c compares `summarize -f pytyche`
# with it. The jax run has its own script (jax_golden.py: pytyche reads JAX's memory there).
#   tests/golden/regen-pytyche.sh [SHARED_DIR]     (default: ../shared)
set -eu
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$(cd "${1:-$top/../shared}" && pwd)
oracle="$shared/oracle/pytyche_summary.py"
[ -r "$oracle" ] || { echo "regen-pytyche.sh: $oracle: not found" >&2; exit 1; }
for d in "$top"/testdata/runs/*/; do
    name=$(basename "$d")
    [ "$name" = jax ] && continue
    args=""
    for f in gpu:hw_metrics.csv cpu:cpu_metrics.csv dmon:hw_dmon.csv; do
        [ -e "$d/${f#*:}" ] && args="$args${args:+ }--${f%%:*}-csv ${f#*:}"
    done
    out="$top/testdata/expected/$name.pytyche.json"
    # shellcheck disable=SC2086 # args is a list of words
    (cd "$d" && python3 "$oracle" $args) > "$out.tmp" 2>/dev/null && mv "$out.tmp" "$out" ||
        { rm -f "$out.tmp"; echo "regen-pytyche.sh: the oracle raised on $name: no golden" >&2; }
    echo "$out"
done
