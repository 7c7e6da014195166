#!/bin/sh
# Build the in-guest UAPI kselftests into build/uapi-tests/vagx_uapi.
#   tests/uapi/build.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/tests/uapi/extract-linux-tools.sh" "$top"
out=$top/build/uapi-tests
mkdir -p "$out"
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-unused-parameter -Wno-clobbered \
	-Wno-misleading-indentation \
	-I"$top/build/linux-tools/tools/testing/selftests" \
	-I"$top/uapi/drm" -I/usr/include/libdrm \
	-o "$out/vagx_uapi" "$top/tests/uapi/vagx_uapi.c" -lpthread
echo "uapi-tests: built $out/vagx_uapi"
