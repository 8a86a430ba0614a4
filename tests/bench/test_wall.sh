#!/usr/bin/env bash
# How long each suite of a test program waits: runs its CTest entries one at a time and prints
# suite, wall seconds, CPU seconds (user + system of ctest, the test and every child it reaped:
# hwmon, the fakes, summarize) and wall/CPU. Issue 53 asks each test_hwmon suite for a ratio of
# at most 2 and the whole program for at most 75 s of wall time.
#   tests/bench/test_wall.sh [-b BUILD_DIR] [-n RUNS] [-t] [PROGRAM [SUITE...]]
# PROGRAM defaults to test_hwmon and SUITEs to all of its suites; -n runs each suite that many
# times in a row (one line per run); -t times each test of the suites instead (`PROGRAM -L`
# lists them; each runs as `PROGRAM -s SUITE -t TEST` with CTest's environment for the tests). The load average goes first: the machine's other work
# stretches wall time, not CPU time. A suite that fails says FAIL after its ratio, and where
# its output (ctest --output-on-failure) was kept.
set -u
build=build runs=1 per_test=0
while getopts "b:n:th" o; do
    case $o in
    b) build=$OPTARG ;;
    n) runs=$OPTARG ;;
    t) per_test=1 ;;
    *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
    esac
done
shift $((OPTIND - 1))
prog=${1:-test_hwmon}
[ $# -gt 0 ] && shift
if [ $# -gt 0 ]; then
    suites=("$@")
else
    mapfile -t suites < <(ctest --test-dir "$build" -N -R "^$prog\\." 2>/dev/null |
                          sed -n "s/^ *Test *#[0-9]*: $prog\\.//p")
fi
if [ ${#suites[@]} -eq 0 ]; then
    echo "test_wall.sh: no suites of $prog in $build (built?)" >&2
    exit 1
fi
if [ $per_test = 1 ]; then # SUITE becomes SUITE TEST: each test of each suite
    bin=$(find "$build" -name "$prog" -type f -perm -u+x | head -n 1)
    envf=$build/tests/test_env.cmake
    if [ -z "$bin" ] || [ ! -f "$envf" ]; then
        echo "test_wall.sh: no $prog or $envf in $build" >&2
        exit 1
    fi
    # CTest's environment for the tests: set(HWRUN_TEST_ENV "A=1;B=2")
    mapfile -t test_env < <(sed -n 's/^set(HWRUN_TEST_ENV "\(.*\)")$/\1/p' "$envf" | tr ';' '\n')
    all=()
    for s in "${suites[@]}"; do
        mapfile -t -O "${#all[@]}" all < <("$bin" -L -s "$s" | tr ' ' '.')
    done
    suites=("${all[@]}")
fi
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
printf '%-36s %8s %8s %6s\n' "$([ $per_test = 1 ] && echo suite.test || echo suite)" wall_s cpu_s ratio
tw=0 tc=0 fails=0
tmp=$(mktemp) out=$(mktemp)
trap 'rm -f "$tmp" "$out"' EXIT
for s in "${suites[@]}"; do
    for ((r = 0; r < runs; r++)); do
        # %e wall, %U %S: user and system time of ctest and its reaped descendants
        if [ $per_test = 1 ]; then
            /usr/bin/time -o "$tmp" -f "%e %U %S" env "${test_env[@]}" \
                "$bin" -s "${s%%.*}" -t "${s#*.}" >"$out" 2>&1
        else
            /usr/bin/time -o "$tmp" -f "%e %U %S" \
                ctest --test-dir "$build" -R "^$prog\\.$s\$" --output-on-failure >"$out" 2>&1
        fi
        rc=$?
        # time writes "Command exited with non-zero status N" first when the test fails
        read -r w u sy < <(tail -n 1 "$tmp")
        line=$(awk -v s="$s" -v w="$w" -v u="$u" -v sy="$sy" 'BEGIN {
            c = u + sy; printf "%-36s %8.2f %8.2f %6.1f", s, w, c, (c > 0 ? w / c : 0) }')
        if [ $rc -ne 0 ]; then # keep what the failed run said
            fails=$((fails + 1))
            log=$(mktemp "${TMPDIR:-/tmp}/test_wall.$s.XXXXXX")
            cp "$out" "$log"
            line+=" FAIL ($log)"
        fi
        echo "$line"
        tw=$(awk -v a="$tw" -v b="$w" 'BEGIN { print a + b }')
        tc=$(awk -v a="$tc" -v b="$u" -v c="$sy" 'BEGIN { print a + b + c }')
    done
done
awk -v w="$tw" -v c="$tc" 'BEGIN { printf "%-36s %8.2f %8.2f %6.1f\n", "total", w, c,
                                   (c > 0 ? w / c : 0) }'
echo "# end load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $fails -eq 0 ]
