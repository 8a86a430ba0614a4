#!/usr/bin/env bash
# `pip install --no-build-isolation ./python` works offline and gives a package that logs.
#   pip_install_check.sh PYTHON_SRC_DIR LIBRUNLOG_PATH
set -euo pipefail
src=$1 lib=$2
py=/usr/bin/python3                       # Debian's, with python3-pip/-setuptools/-wheel
if ! "$py" -m pip --version >/dev/null 2>&1 || ! "$py" -c 'import setuptools, wheel' 2>/dev/null; then
  if [ -n "${CI:-}" ] && [ "$CI" != 0 ] && [ "$CI" != false ]; then
    echo "pip_install_check: python3-pip/-setuptools/-wheel missing (bash .ci/install-deps)" >&2
    exit 1
  fi
  echo "pip_install_check: SKIPPED: python3-pip, python3-setuptools or python3-wheel missing" >&2
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/runlog-pip-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# pip writes build/ and *.egg-info next to the sources; setup.py reads ../include/runlog.h
mkdir "$tmp/src"
cp -r "$src" "$tmp/src/python"
cp -r "$src/../include" "$tmp/src/include"
rm -f "$tmp/src/python/CMakeLists.txt"
# No index: nothing may come from the network.
PIP_NO_INDEX=1 "$py" -m pip install --quiet --no-build-isolation --no-deps --target "$tmp/site" \
  "$tmp/src/python" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log" >&2; exit 1; }
[ -f "$tmp/site/runlog/__init__.py" ] || { echo "pip_install_check: no runlog package" >&2; exit 1; }
PYTHONPATH="$tmp/site" RUNLOG_LIBRARY="$lib" "$py" -c '
import json, sys, runlog
log = runlog.RunLog(sys.argv[1])
log.log_phase("pip", 1.5, via="pip")
log.close()
e = json.loads(open(sys.argv[1]).read())
assert (e["name"], e["seconds"], e["via"]) == ("pip", 1.5, "pip"), e
' "$tmp/log.jsonl"
# the installed metadata carries the version of include/runlog.h
want=$(sed -n "s/^#define RL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p" "$src/../include/runlog.h" | paste -sd.)
got=$(ls "$tmp/site" | sed -n "s/^runlog-\(.*\)\.dist-info$/\1/p")
[ "$got" = "$want" ] || { echo "pip_install_check: version '$got', runlog.h says '$want'" >&2; exit 1; }
echo "pip_install_check: ok"
