#!/bin/bash
# Every long option a tool accepts (its getopt_long table in main.c) is shown by its --help and
# described in its man page, and neither names one the tool does not accept; and the exit
# statuses --help lists (the tool's one table, hw_print_exit_codes) are the man page's.
# Usage: options_documented.sh BINARY MAIN_C MAN_PAGE [RUNDIR_H]
# With RUNDIR_H (hwrun/rundir.h), the options its table of run files (HW_RUN_FILES) gives the
# tool are accepted ones too: main.c expands the table into its getopt_long table.
set -u
bin=$1 src=$2 man=$3 files=${4:-}
name=$(basename "$bin")
# (entries after a "hidden" comment in the table are for tests: fixture roots and the like)
accepted=$( (awk '/hidden/ { exit } { print }' "$src" |
             grep -oE '^\s*\{"[a-z][a-z0-9-]*", (no|required|optional)_argument' |
             sed -E 's/^\s*\{"([^"]*)".*/\1/'
             # F(ID, "stem", NAME, reader, writer, stage, optional, normal, "option", "what")
             [ -z "$files" ] || grep -oE '^\s*F\([A-Z_]+, "[a-z_]+", HW_[A-Z_]+_FILE, [a-z_]+, [A-Z]+, [0-9], [01], [01], "[a-z-]+"' "$files" |
                 sed -E 's/.*"([a-z-]+)"$/\1/') | sort -u)
# the option column of --help: lines that start with an option
helped=$("$bin" --help | grep -oE -- '^\s+(-[A-Za-z0-9], )?--[a-z][a-z0-9-]+' |
         grep -oE -- '--[a-z][a-z0-9-]+$' | sed 's/^--//' | sort -u)
# the man page's option entries: .B/.BI/.BR lines right after .TP that name a long option
manned=$(awk 'prev == ".TP" && /^\.B[IR]? / { print } { prev = $0 }' "$man" |
         grep -oE -- '\\-\\-[a-z][a-z0-9\\-]+' | sed -e 's/\\-/-/g' -e 's/^--//' | sort -u)
fail=0
for opt in $accepted; do
    grep -qx -- "$opt" <<<"$helped" || { echo "$name: --$opt is accepted but not in --help"; fail=1; }
    grep -qx -- "$opt" <<<"$manned" || { echo "$name: --$opt is accepted but not in $(basename "$man")'s options"; fail=1; }
done
for opt in $helped; do
    grep -qx -- "$opt" <<<"$accepted" || { echo "$name: --help names --$opt, which is not accepted"; fail=1; }
done
[ -n "$accepted" ] || { echo "$name: no getopt_long table found in $src"; fail=1; }
# exit statuses: "  CODE  meaning" lines after "Exit status:" in --help; in the man page the
# .B/.I lines right after .TP in the EXIT STATUS section
help_codes=$("$bin" --help | awk '/^Exit status:/ { on = 1; next } on && /^  [0-9N]/ { print $1 }' | sort)
man_codes=$(awk '/^\.SH/ { on = ($0 ~ /EXIT STATUS/) } on && prev == ".TP" && /^\.[BI] / { print $2 }
                { prev = $0 }' "$man" | sort)
[ -n "$help_codes" ] || { echo "$name: --help lists no exit status"; fail=1; }
[ "$help_codes" = "$man_codes" ] ||
    { echo "$name: exit statuses: --help says" $help_codes "but $(basename "$man") says" $man_codes; fail=1; }
[ "$fail" = 0 ] && echo "$name: $(wc -w <<<"$accepted") long options, all in --help and the man page"
exit $fail
