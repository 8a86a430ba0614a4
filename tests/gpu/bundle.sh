#!/bin/sh
# Build what tests/gpu/check.sh needs into one folder to carry to a GPU machine that may have no
# compiler, libcsv or json-c: hwmon, summarize and runlog linked with those statically (they
# need only glibc 2.34 or newer), librunlog for the Python package, the package itself and the
# check. Usage: tests/gpu/bundle.sh DIR   then, on the GPU machine: DIR/check.sh [OUTDIR]
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
dest=$1
build=${HWRUN_BUNDLE_BUILD:-$src/build-portable}
cmake -S "$src" -B "$build" -DHWRUN_PORTABLE=ON -DBUILD_TESTING=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target hwmon summarize runlog_cli runlog_shared >/dev/null
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/python"
cp "$build/hwmon/hwmon" "$build/summarize/summarize" "$build/runlog/runlog" "$dest/bin/"
cp -L "$build/runlog/librunlog.so.1" "$dest/lib/"
# the package without the build tree's _paths.py: the bundle says where things are by env
find "$src/python/runlog" -maxdepth 1 -name '*.py' ! -name '_paths.py' -exec cp {} "$dest/python/" \;
mkdir -p "$dest/python/runlog" && mv "$dest/python/"*.py "$dest/python/runlog/"
cp "$src/tests/gpu/check.sh" "$src/tests/gpu/check.py" "$src/tests/gpu/load.py" \
   "$src/tests/gpu/child_cost.py" "$dest/"
echo "$dest: run $dest/check.sh on the GPU machine"
