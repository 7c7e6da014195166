#!/bin/sh
# Host check: scripts/checkpatch.pl --strict on vagx.ko's sources.
# Exit 0 clean, 1 findings, 77 (skip) without the linux-source tarball.
#   tests/uapi/checkpatch.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/tests/uapi/extract-linux-tools.sh" "$top" || exit $?
cp=$top/build/linux-tools/scripts/checkpatch.pl
cd "$top" || exit 1
out=$(perl "$cp" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES \
	-f kernel/*.c kernel/*.h 2>&1)
rc=$?
if [ $rc -ne 0 ] || printf '%s\n' "$out" | grep -q -E ': (ERROR|WARNING|CHECK):'; then
	printf '%s\n' "$out"
	echo "checkpatch: FAIL"
	exit 1
fi
echo "checkpatch: kernel/*.c kernel/*.h clean"
exit 0
