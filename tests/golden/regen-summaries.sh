#!/bin/sh
# Regenerates testdata/expected/X.SUFFIX for every run directory testdata/runs/X and every
# format of testdata/expected/FORMATS: what summarize prints for it, with the checkout's
# testdata path written as TESTDATA (the test "golden" of tests/summarize/test_cli.c compares
# the same way). Review the diff before you commit it: a change here is a change of what users
# read.
#   tests/golden/regen-summaries.sh [BUILD_DIR]     (default: build)
set -eu
export LC_ALL=C TZ=UTC
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
summarize="$build/summarize/summarize"
[ -x "$summarize" ] || { echo "regen-summaries.sh: $summarize: not built" >&2; exit 1; }
td="$top/testdata"
grep -v '^#' "$td/expected/FORMATS" | while IFS='	' read -r suffix args; do
    [ -n "$suffix" ] || continue
    for d in "$td"/runs/*/; do
        name=$(basename "$d")
        out="$td/expected/$name.$suffix"
        # the status is the run's (1 when nothing usable was found): the golden holds the output
        # shellcheck disable=SC2086 # the arguments are words
        "$summarize" $args "$td/runs/$name" | sed "s#$td#TESTDATA#g" > "$out.tmp" || true
        mv "$out.tmp" "$out"
        echo "$out"
    done
done
