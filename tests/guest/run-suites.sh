#!/bin/sh
# run-suites.sh MANIFEST: runs inside the guest.  Each manifest line is
# "NAME TIMEOUT COMMAND..." (paths relative to the source tree); every suite's
# output is framed by markers that tests/tap-tally reads on the host.  A suite
# that overruns its timeout is killed and reported, and the next one runs.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1" | while read -r name tmo cmd; do
	echo "=== suite: $name"
	timeout -k 5 "$tmo" sh -c "$cmd" </dev/null 2>&1
	rc=$?
	[ $rc = 124 ] && echo "not ok - $name timed out after ${tmo}s"
	echo "=== end: $name rc=$rc"
done
