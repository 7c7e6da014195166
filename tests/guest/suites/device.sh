#!/bin/sh
# What the guest sees of the vagx device: the PCI function with the contract's
# identity, and, once vagx.ko is built, the driver bound to it with a DRM node.
top=$(cd "$(dirname "$0")/../../.." && pwd)
id=$("$top/tests/guest/hw-id")
ven=${id%%:*} dev=${id##*:}
n=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fi; }

echo "# lspci -nn:"
lspci -nn | sed 's/^/#   /'
t "the generated header names the PCI identity ($ven:$dev)" '[ -n "$ven" ] && [ -n "$dev" ]'
t "lspci shows the vagx device $ven:$dev" 'lspci -n -d "$ven:$dev" | grep -q .'
slot=$(lspci -n -d "$ven:$dev" | cut -d' ' -f1 | head -1)
if [ -f "$top/build/kernel/vagx.ko" ]; then
	t "vagx.ko is loaded" 'grep -q "^vagx " /proc/modules'
	t "vagx.ko is bound to the device" '[ "$(basename "$(readlink /sys/bus/pci/devices/0000:$slot/driver)")" = vagx ]'
	t "the device has a DRM node" 'ls /sys/bus/pci/devices/0000:$slot/drm/ | grep -q -e card -e renderD'
fi
echo "1..$n"
