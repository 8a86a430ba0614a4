#!/bin/bash
# The libraries return errors; only the programs print to standard error or exit (issue 18's
# convention): none of the given static libraries refers to the message and exit functions, or
# to stderr. hwrun_common's hw_msg.c is where the programs' messages live, so it is not given.
# Usage: libraries_quiet.sh LIB.a...
set -u
fail=0
for lib in "$@"; do
    bad=$(nm -u "$lib" 2>/dev/null | awk '{ print $2 }' |
          grep -xE 'hw_warn|hw_die|hw_usage_error|exit|abort|stderr|perror|printf|puts' | sort -u)
    if [ -n "$bad" ]; then
        echo "$(basename "$lib") prints or exits: $(echo $bad)"
        # which object: the first that refers to each name
        for s in $bad; do nm -uA "$lib" | grep -E ": +U $s\$" | head -3; done
        fail=1
    fi
    nm "$lib" >/dev/null || { echo "cannot read $lib"; fail=1; }
done
[ "$fail" = 0 ] && echo "$# libraries: none prints or exits"
exit $fail
