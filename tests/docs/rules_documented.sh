#!/bin/bash
# Every verdict rule of the table (summarize --list-rules) has its paragraph in summarize(1)'s
# VERDICTS section, naming each of its thresholds with its default value. Usage:
# rules_documented.sh BIN MAN
set -u
bin=$1 man=$2
# the section, fonts and escapes taken off
section=$(awk '/^\.SH/ { on = ($0 ~ /^\.SH VERDICTS/); next } on' "$man" |
          sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g')
[ -n "$section" ] || { echo "summarize.1: no VERDICTS section"; exit 1; }
fail=0 n=0
while IFS=$'\t' read -r rule sev key value unit _; do
    [ "$rule" = rule ] && continue # the header
    # the rule's paragraph: from its .B line to the next .TP ("all": the section's opening)
    if [ "$rule" = all ]; then
        para=$(awk '/^\.TP/ { exit } { print }' <<<"$section")
    else
        para=$(awk -v r="$rule" '/^\.TP/ { on = 0 } /^\.B / && index($0, r) { on = 1 } on' <<<"$section")
    fi
    if [ -z "$para" ]; then
        echo "summarize.1: rule $rule (summarize --list-rules) has no paragraph in VERDICTS"
        fail=1
        continue
    fi
    [ "$rule" = all ] || grep -q "($sev" <<<"$para" || grep -q " $sev" <<<"$para" ||
        { echo "summarize.1: rule $rule: its severity $sev is not said"; fail=1; }
    [ "$key" != - ] || continue
    n=$((n + 1))
    case $unit in
    names) grep -q "$key" <<<"$para" ||
               { echo "summarize.1: rule $rule: threshold $key is not named"; fail=1; } ;;
    *) grep -qE "$key[^0-9]{0,14}$value([^0-9.]|$)" <<<"$(tr '\n' ' ' <<<"$para")" ||
           { echo "summarize.1: rule $rule: threshold $key with its default $value is not named"; fail=1; } ;;
    esac
done < <("$bin" --list-rules | awk -F'\t' -v OFS='\t' '{ for (i = 1; i <= NF; i++) if ($i == "") $i = "-"; print }')
[ "$fail" = 0 ] && echo "summarize.1: every rule and its $n thresholds documented"
exit $fail
