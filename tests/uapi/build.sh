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
# Every test is one C file built the same way (the kselftest harness, the
# UAPI and generated contract headers, libdrm's include path for drm.h):
# build NAME [LIBS...] builds tests/uapi/NAME.c into build/uapi-tests/NAME.
build() {
	name=$1
	shift
	${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare \
		-Wno-missing-field-initializers -Wno-unused-parameter -Wno-clobbered \
		-Wno-misleading-indentation -Wno-unused-function \
		-I"$top/build/linux-tools/tools/testing/selftests" \
		-I"$top/uapi/drm" -I"$gen" -I/usr/include/libdrm \
		-o "$out/$name" "$top/tests/uapi/$name.c" "$@"
	echo "uapi-tests: built $out/$name"
}
build vagx_uapi -lpthread
# Hot-unplug test (PCI remove/rescan; runs after the other suites).
build vagx_hotplug
# Kernel benchmark (submit/bind latency, throughput; tests/bench/run-all).
build vagx_bench
# KMS tests (with the PCI reset tests, which run jobs too: vagx_test.h) and
# the screendump pattern helper (display, vagx_kms.c).
build vagx_kms
# Random/mutated ioctl fuzzer (suite fuzz; --seed/--seconds for long runs).
build vagx_fuzz -lpthread
