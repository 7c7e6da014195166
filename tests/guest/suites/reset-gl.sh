#!/bin/sh
# A GL client through a PCI reset (TAP, in the guest; docs/kernel.md, "PCI
# reset"): kmscube on card0 (vagx Mesa driver, page flips of GBM scanout
# buffers) while the function is reset through sysfs.  It must render all its
# frames and exit 0 (Mesa replaces a queue the reset left INNOCENT, as after
# any GPU reset), the driver must have gone through the reset (debugfs
# pci_resets + 1), a second kmscube must run afterwards, and no kernel splat.
# Without the driver's reset handlers a flip after the reset never completes
# ("flip_done timed out") and the second kmscube hangs.
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
env=$top/userspace/vagx-env
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/guest/suites/tap.sh"
splat_extra='flip_done timed out'
# The end of kmscube's output, without its extension lists.
tail_log() { grep -v extensions "$1" | tail -20 | sed 's/^/#   /'; }

dev=
for d in /sys/bus/pci/drivers/vagx/0000:*; do [ -e "$d/reset" ] && dev=$d; done
[ -n "$dev" ] || { echo "1..0 # SKIP no vagx function with a sysfs reset"; exit 0; }
ls "$top"/build/mesa-install/lib/libgallium-*.so >/dev/null 2>&1 ||
	{ echo "1..0 # SKIP the Mesa with the vagx driver is not built"; exit 0; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
rings=$(ls /sys/kernel/debug/dri/*/vagx_rings | head -1)
resets() { sed -n 's/^pci_resets: //p' "$rings"; }

before=$(splat)
r0=$(resets)
# kmscube stops at EOF on stdin: a FIFO opened read-write never reaches it.
mkfifo "$tmp/in"
timeout 100 "$env" kmscube -c 240 <>"$tmp/in" >"$tmp/kmscube.log" 2>&1 &
pid=$!
# Reset once it has been flipping for a while (it prints every 2 s).
i=0
while [ $i -lt 600 ] && ! grep -q '^Rendered' "$tmp/kmscube.log"; do
	sleep 0.1; i=$((i + 1))
done
echo 1 >"$dev/reset"
rrc=$?
wait $pid
krc=$?
r1=$(resets)
last=$(grep '^Rendered' "$tmp/kmscube.log" | tail -1)
if [ $rrc = 0 ] && [ "$r1" = $((r0 + 1)) ]; then
	ok "sysfs reset of $(basename "$dev") went through vagx.ko (pci_resets $r0 -> $r1)"
else
	nok "sysfs reset of $(basename "$dev") went through vagx.ko" "write status $rrc, pci_resets $r0 -> $r1"
fi
if [ $krc = 0 ] && echo "$last" | grep -q '^Rendered 239 frames' &&
	! grep -q -e 'GL_INVALID' -e 'failed' "$tmp/kmscube.log"; then
	ok "kmscube -c 240 through the reset: exit 0, $last"
else
	nok "kmscube -c 240 through the reset: exit 0, 239 frames (exit $krc)"; tail_log "$tmp/kmscube.log"
fi
timeout 60 "$env" kmscube -c 30 <>"$tmp/in" >"$tmp/kmscube2.log" 2>&1
krc=$?
if [ $krc = 0 ] && grep -q '^Rendered 29 frames' "$tmp/kmscube2.log"; then
	ok "kmscube -c 30 after the reset: $(grep '^Rendered' "$tmp/kmscube2.log" | tail -1)"
else
	nok "kmscube -c 30 after the reset (exit $krc)"; tail_log "$tmp/kmscube2.log"
fi
splat_check "$before" "no kernel warning, oops or flip timeout"
tap_end
