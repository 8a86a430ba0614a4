#!/bin/bash
# Every column of the sweep rows (summarize --columns, printed from the one table the rows are
# computed from) is named in summarize(1)'s "CSV AND JSONL ROWS" section, in the table's order,
# and the section names no column the table lacks (the context's job.* keys are named by their
# first, "job.host, ...": they follow the run's context). Usage: columns_documented.sh BIN MAN
set -u
bin=$1 man=$2
cols=$("$bin" --columns | tail -n +2 | cut -f1)
[ -n "$cols" ] || { echo "summarize --columns listed nothing"; exit 1; }
# the section's words, fonts and escapes taken off, one a line, in order
# (asides in parentheses left out: they may name a column before its place in the list)
words=$(awk '/^\.SH/ { on = ($0 ~ /CSV AND JSONL ROWS/); next } on' "$man" | tr '\n' ' ' |
        sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/([^()]*)//g' -e 's/([^()]*)//g' |
        grep -oE '\.?[a-z][a-z0-9_.]*[a-z0-9]')
fail=0 prev= prev_at=0 n=0
for c in $cols; do
    n=$((n + 1))
    case $c in job.host) ;; job.*) continue ;; esac
    at=$(awk -v c="$c" '$0 == c { print NR; exit }' <<<"$words") # its first mention
    if [ -z "$at" ]; then
        echo "summarize.1: column $c (summarize --columns) is not named"
        fail=1
        continue
    fi
    if [ "$at" -lt "$prev_at" ]; then
        echo "summarize.1: column $c is named before $prev, which the table has first"
        fail=1
    fi
    prev=$c prev_at=$at
done
# words shaped like a column (snake case with a unit or figure suffix) that no column is
for w in $(grep -E '_(pct|mib|mb|sec|s|wh|w|mhz|max|mean|source|cores|id|count)$' <<<"$words" | sort -u); do
    case $w in *.*) continue ;; esac # phase.NAME.mean_sec, .total_sec: not the table's
    grep -qx -- "$w" <<<"$cols" ||
        { echo "summarize.1: names $w, which summarize --columns does not list"; fail=1; }
done
[ "$fail" = 0 ] && echo "summarize.1: all $n columns named in order"
exit $fail
