#!/usr/bin/env bash
# Prints the newest installed Debian 6.12 kernel release that has both its
# image (/boot/vmlinuz-*) and its headers (/lib/modules/*/build).  The guest
# boots it and vagx.ko is built against it; backports moves the patch level
# on, so it is never hard-coded.
set -euo pipefail
best=
for img in /boot/vmlinuz-6.12.*; do
	[ -e "$img" ] || continue
	rel=${img#/boot/vmlinuz-}
	[ -e "/lib/modules/$rel/build/Makefile" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$rel" | sort -V | tail -1)
done
[ -n "$best" ] || { echo "kver: no 6.12 kernel with headers installed; run 'make deps'" >&2; exit 1; }
echo "$best"
