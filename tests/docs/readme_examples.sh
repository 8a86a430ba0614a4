#!/bin/bash
# The README's examples that show their output ("    $ COMMAND", then the lines it prints, up
# to a blank line) print exactly that, run from the source tree with the built tools first on
# PATH. Usage: readme_examples.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
export PATH="$build/summarize:$build/hwmon:$build/runlog:$PATH" LC_ALL=C.UTF-8
cd "$src" || exit 1
fail=0 n=0 cmd= want= line_no=0 at=0
check() {
    [ -n "$cmd" ] || return 0
    n=$((n + 1))
    got=$(bash -c "$cmd" 2>&1)
    if [ "$got" != "$want" ]; then
        echo "README.md:$at: \$ $cmd"
        diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/    /'
        fail=1
    fi
    cmd= want=
}
while IFS= read -r line || [ -n "$line" ]; do
    line_no=$((line_no + 1))
    if [[ $line == '    $ '* ]]; then
        check
        cmd=${line#    \$ } at=$line_no
    elif [ -n "$cmd" ] && [[ $line == '    '* ]]; then
        want+="${want:+$'\n'}${line#    }"
    else
        check
    fi
done < README.md
check
[ "$n" -gt 0 ] || { echo "README.md: no example with its output found"; exit 1; }
[ "$fail" = 0 ] && echo "README.md: $n examples print what they say"
exit $fail
