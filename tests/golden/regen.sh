#!/bin/sh
# Regenerates testdata/pytyche/golden.tsv, what pytyche's own summary prints for every case of
# the summarize test suite "pytyche", from the oracle in the project's shared/ folder (not part of
# this repository). Run it after changing the case generators in tests/summarize/test_pytyche.c.
#   tests/golden/regen.sh [BUILD_DIR [SHARED_DIR]]     (defaults: build, ../shared)
# Needs python3 >= 3.11 and a build of test_summarize.
set -eu
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
shared=$(cd "${2:-$top/../shared}" && pwd)
oracle="$shared/oracle/pytyche_summary.py"
out="$top/testdata/pytyche/golden.tsv"
[ -r "$oracle" ] || { echo "regen.sh: $oracle: not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
HWRUN_PYTYCHE_DUMP="$tmp" "$build/tests/summarize/test_summarize" -s pytyche >/dev/null
{
    echo "# What pytyche_summary.py (sha256 $(sha256sum "$oracle" | cut -c1-16)) prints for each"
    echo "# case of tests/summarize/test_pytyche.c; written by tests/golden/regen.sh, do not edit."
    echo "# name TAB arguments (run in the case's directory) TAB stdout, or !fail when it raised"
    for d in "$tmp"/*/; do
        name=$(basename "$d")
        args=""
        for f in gpu:hw_metrics.csv cpu:cpu_metrics.csv dmon:hw_dmon.csv; do
            [ -e "$d/${f#*:}" ] && args="$args${args:+ }--${f%%:*}-csv ${f#*:}"
        done
        # shellcheck disable=SC2086 # args is a list of words
        if res=$(cd "$d" && python3 "$oracle" $args 2>/dev/null); then
            printf '%s\t%s\t%s\n' "$name" "$args" "$res"
        else
            printf '%s\t%s\t!fail\n' "$name" "$args"
        fi
    done
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "regen.sh: $(grep -vc '^#' "$out") cases written to $out"
