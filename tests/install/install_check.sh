#!/usr/bin/env bash
# `cmake --install` puts everything where users expect it, and a program built against the
# installed library through pkg-config (shared and static) writes a valid run log line.
#   install_check.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d "${TMPDIR:-/tmp}/hwrun-install-XXXXXX")
trap 'rm -rf "$prefix"' EXIT
out=$(cmake --install "$build" --prefix "$prefix")
grep -q "The runlog Python package: $prefix/" <<<"$out" || fail "the install does not say where the Python package went"

fail() { echo "install_check: $*" >&2; exit 1; }
for f in bin/runlog bin/hwmon bin/summarize include/runlog.h \
         share/man/man1/runlog.1 share/man/man1/hwmon.1 share/man/man1/summarize.1 \
         share/doc/hwrun/FORMAT.md share/doc/hwrun/DESIGN.md; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
pc=$(find "$prefix" -name runlog.pc | head -1)
[ -n "$pc" ] || fail "missing runlog.pc"
libdir=$(dirname "$(dirname "$pc")")
ls "$libdir"/librunlog.so.1 "$libdir"/librunlog.a >/dev/null || fail "missing librunlog.so.1 or .a"
"$prefix/bin/runlog" --version | grep -q "^runlog (hwrun) " || fail "installed runlog --version"
# librunlog exports its API and nothing else: every global symbol it defines is rl_*, in the
# shared library and in the static one (whose helpers a program's own names must not meet)
for lib in "$libdir/librunlog.so.1" "$libdir/librunlog.a"; do
  case $lib in *.so*) syms=$(nm -D --defined-only "$lib") ;; *) syms=$(nm -g --defined-only "$lib") ;; esac
  api=$(awk 'NF == 3 && $3 ~ /^rl_/' <<<"$syms" | wc -l)
  other=$(awk 'NF == 3 && $3 !~ /^rl_/ { print $3 }' <<<"$syms")
  [ "$api" -ge 10 ] || fail "$lib: only $api rl_* symbols"
  [ -z "$other" ] || fail "$lib exports symbols that are not rl_*: $(echo $other | head -c 300)"
done

cat > "$prefix/use.c" <<'C'
#include <runlog.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    rl_log_t *log;
    if (argc < 2 || rl_open(&log, argv[1], 0) < 0)
        return 1;
    rl_field_t f[] = {RL_STR("via", "pkg-config"), RL_INT("n", 1)};
    int rc = rl_event(log, "installed", f, 2);
    return rl_close(log) < 0 || rc < 0;
}
C
export PKG_CONFIG_PATH="$(dirname "$pc")"
cc -o "$prefix/use-shared" "$prefix/use.c" $(pkg-config --cflags --libs runlog)
# a prefix that is not /usr: the .pc's run path lets the program start with no environment
env -u LD_LIBRARY_PATH "$prefix/use-shared" "$prefix/log.jsonl" || fail "the program built with pkg-config does not start"
cc -o "$prefix/use-static" "$prefix/use.c" $(pkg-config --cflags runlog) \
   "$libdir/librunlog.a" $(pkg-config --libs-only-l --static json-c) -lm -pthread
"$prefix/use-static" "$prefix/log.jsonl"
[ "$(jq -r 'select(.event == "installed") | .data.via' "$prefix/log.jsonl" | sort -u)" = "pkg-config" ] \
  || fail "the installed library wrote no valid line"
[ "$(wc -l < "$prefix/log.jsonl")" -eq 2 ] || fail "expected 2 lines"

# The Python package, installed beside the library, finds it without any environment.
pkg=$(find "$prefix" -path '*-packages/runlog/__init__.py' | head -1)
[ -n "$pkg" ] || fail "missing the runlog Python package"
{
  PYTHONPATH=$(dirname "$(dirname "$pkg")") env -u LD_LIBRARY_PATH -u RUNLOG_LIBRARY python3 -c '
import sys, runlog
assert runlog.library_path().startswith(sys.argv[2]), runlog.library_path()
with runlog.RunLog(sys.argv[1]) as log:
    log.log_event("installed", {"via": "python"})
' "$prefix/log.jsonl" "$prefix" || fail "the installed Python package cannot log"
  [ "$(jq -r 'select(.event == "installed") | .data.via' "$prefix/log.jsonl" | sort -u | tr '\n' ' ')" = "pkg-config python " ] \
    || fail "the installed Python package wrote no valid line"
  # its monitors run the installed hwmon and summarize (found beside it, not on PATH)
  PYTHONPATH=$(dirname "$(dirname "$pkg")") env -u LD_LIBRARY_PATH -u RUNLOG_LIBRARY \
    -u RUNLOG_HWMON -u RUNLOG_SUMMARIZE PATH=/usr/bin:/bin python3 -c '
import sys, time, runlog
from runlog import _tools
for name in ("hwmon", "summarize"):
    assert _tools.tool(name).startswith(sys.argv[1]), _tools.tool(name)
with runlog.Monitor(sys.argv[1] + "/mon", interval_sec=0.1, no_gpu=True, strict=True) as m:
    time.sleep(0.4)
assert m.summary().num_samples >= 2
' "$prefix" || fail "the installed Python package cannot monitor"
}
echo "install_check: ok"
