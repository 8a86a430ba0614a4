#!/bin/sh
# Regenerates the README's picture of the sweep page: testdata/sweep/ (a sweep of 3 learning
# rates x 3 batch sizes, one run raising in its second epoch: html_driver --sweep, gen.c's
# gen_sweep) and testdata/sweep-screenshot.png, its page as summarize --html draws it, in
# headless chromium 1280 px wide. Review both before you commit them.
#   tests/html/sweep-screenshot.sh [BUILD_DIR]      (default: build; chromium: $HWRUN_CHROMIUM)
set -eu
export LC_ALL=C TZ=UTC
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
chromium=${HWRUN_CHROMIUM:-chromium}
for p in "$build/tests/html/html_driver" "$build/summarize/summarize"; do
    [ -x "$p" ] || { echo "sweep-screenshot.sh: $p: not built" >&2; exit 1; }
done
command -v "$chromium" >/dev/null || { echo "sweep-screenshot.sh: $chromium: not found" >&2; exit 1; }
rm -rf "$top/testdata/sweep"
mkdir -p "$top/testdata/sweep"
"$build/tests/html/html_driver" --sweep "$top/testdata/sweep" 3 3 5
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/summarize/summarize" -q --html "$out/sweep.html" "$top"/testdata/sweep/*/
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --disable-background-networking --user-data-dir="$out/profile" --window-size=1280,1300 \
    --screenshot="$top/testdata/sweep-screenshot.png" "file://$out/sweep.html" 2>/dev/null
echo "$top/testdata/sweep-screenshot.png"
