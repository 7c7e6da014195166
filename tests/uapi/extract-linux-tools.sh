#!/bin/sh
# Extract the few files the uapi tests and the checkpatch check need from
# Debian's linux-source-6.12 tarball into build/linux-tools/ (once).
#   extract-linux-tools.sh [TOP]
set -eu
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
out=$top/build/linux-tools
stamp=$out/.stamp
[ -f "$stamp" ] && exit 0
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -1)
[ -n "$tarball" ] || { echo "extract-linux-tools: no /usr/src/linux-source-6.12.tar.*" >&2; exit 77; }
mkdir -p "$out"
dir=$(tar -tf "$tarball" 2>/dev/null | head -1 | cut -d/ -f1)
tar -xf "$tarball" -C "$out" --strip-components=1 \
	"$dir/scripts/checkpatch.pl" \
	"$dir/scripts/spelling.txt" \
	"$dir/scripts/const_structs.checkpatch" \
	"$dir/tools/testing/selftests/kselftest_harness.h" \
	"$dir/tools/testing/selftests/kselftest.h"
touch "$stamp"
