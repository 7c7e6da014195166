#!/bin/sh
# Build the in-guest UAPI kselftests into build/uapi-tests/vagx_uapi.
#   tests/uapi/build.sh
# The hardware (vagx_hw.h) and ISA (vagx_isa.h) headers the GPU tests use to
# build compute jobs are generated from the contract into build/uapi-tests/gen.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/tests/uapi/extract-linux-tools.sh" "$top"
out=$top/build/uapi-tests
gen=$out/gen
mkdir -p "$out" "$gen"
python3 "$top/uapi/hw/gen_hw.py" --xml "$top/uapi/hw/vagx_hw.xml" --out "$gen"
python3 "$top/uapi/hw/isa/gen_isa.py" --xml "$top/uapi/hw/isa/vagx_isa.xml" \
	--out "$gen"
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-unused-parameter -Wno-clobbered \
	-Wno-misleading-indentation -Wno-unused-function \
	-I"$top/build/linux-tools/tools/testing/selftests" \
	-I"$top/uapi/drm" -I"$gen" -I/usr/include/libdrm \
	-o "$out/vagx_uapi" "$top/tests/uapi/vagx_uapi.c" -lpthread
echo "uapi-tests: built $out/vagx_uapi"
# Hot-unplug test (PCI remove/rescan; runs after the other suites).
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-unused-parameter -Wno-clobbered \
	-Wno-misleading-indentation -Wno-unused-function \
	-I"$top/build/linux-tools/tools/testing/selftests" \
	-I"$top/uapi/drm" -I"$gen" -I/usr/include/libdrm \
	-o "$out/vagx_hotplug" "$top/tests/uapi/vagx_hotplug.c"
echo "uapi-tests: built $out/vagx_hotplug"
# Kernel benchmark (submit/bind latency, throughput; tests/bench/run-all).
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-unused-parameter \
	-Wno-misleading-indentation -Wno-unused-function \
	-I"$top/uapi/drm" -I"$gen" -I/usr/include/libdrm \
	-o "$out/vagx_bench" "$top/tests/uapi/vagx_bench.c"
echo "uapi-tests: built $out/vagx_bench"
# KMS tests (with the PCI reset tests, which run jobs too: vagx_test.h) and
# the screendump pattern helper (display, vagx_kms.c).
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-unused-parameter -Wno-misleading-indentation \
	-Wno-unused-function \
	-I"$top/build/linux-tools/tools/testing/selftests" \
	-I"$top/uapi/drm" -I"$gen" -I/usr/include/libdrm \
	-o "$out/vagx_kms" "$top/tests/uapi/vagx_kms.c"
echo "uapi-tests: built $out/vagx_kms"
# Random/mutated ioctl fuzzer (suite fuzz; --seed/--seconds for long runs).
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-unused-parameter \
	-I"$top/uapi/drm" -I/usr/include/libdrm \
	-o "$out/vagx_fuzz" "$top/tests/uapi/vagx_fuzz.c" -lpthread
echo "uapi-tests: built $out/vagx_fuzz"
