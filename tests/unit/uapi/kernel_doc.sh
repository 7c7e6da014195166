#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the kernel's scripts/kernel-doc on a UAPI header with -none -Wall and
# fail on any warning.  Usage: kernel_doc.sh HEADER CACHE_DIR
#
# kernel-doc is looked for, in order, at $VAGX_KERNEL_DOC, in an unpacked
# kernel tree under /usr/src (linux-source-6.12*, linux-6.12*, linux-*),
# in Debian's linux-headers-*-common (which ships scripts/kernel-doc), and
# finally inside /usr/src/linux-source-6.12*.tar.* (only scripts/kernel-doc
# is extracted, once, into CACHE_DIR).  Without any of these, or without
# perl, the test is skipped with exit code 77.
set -u
header=$1
cache=$2

kd=""
if [ -n "${VAGX_KERNEL_DOC:-}" ] && [ -f "$VAGX_KERNEL_DOC" ]; then
	kd=$VAGX_KERNEL_DOC
fi
if [ -z "$kd" ]; then
	for f in /usr/src/linux-source-6.12*/scripts/kernel-doc \
		 /usr/src/linux-6.12*/scripts/kernel-doc \
		 /usr/src/linux-*/scripts/kernel-doc \
		 /usr/src/linux-headers-*-common/scripts/kernel-doc \
		 "$cache"/*/scripts/kernel-doc; do
		if [ -f "$f" ]; then kd=$f; break; fi
	done
fi
if [ -z "$kd" ]; then
	for t in /usr/src/linux-source-6.12*.tar.*; do
		[ -f "$t" ] || continue
		mkdir -p "$cache" || exit 1
		top=$(basename "$t" | sed 's/\.tar\..*$//')
		echo "extracting $top/scripts/kernel-doc from $t"
		if tar -xf "$t" -C "$cache" "$top/scripts/kernel-doc" &&
		   [ -f "$cache/$top/scripts/kernel-doc" ]; then
			kd=$cache/$top/scripts/kernel-doc
			break
		fi
	done
fi
if [ -z "$kd" ]; then
	echo "SKIP: no kernel-doc (install linux-source-6.12 or linux-headers-amd64)"
	exit 77
fi

# 6.12's kernel-doc is Perl; newer trees may ship a Python one.
if head -n1 "$kd" | grep -q perl; then
	command -v perl >/dev/null 2>&1 || { echo "SKIP: no perl"; exit 77; }
	set -- perl "$kd"
elif head -n1 "$kd" | grep -q python; then
	command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
	set -- python3 "$kd"
else
	set -- "$kd"
fi

echo "kernel-doc: $kd"
out=$("$@" -none -Wall "$header" 2>&1)
rc=$?
if [ -n "$out" ]; then
	printf '%s\n' "$out"
fi
if [ $rc -ne 0 ] || [ -n "$out" ]; then
	echo "FAIL: kernel-doc reported problems in $header (rc=$rc)"
	exit 1
fi
echo "OK: $header is kernel-doc clean"
exit 0
