#!/bin/sh
# What the guest sees of the vagx device: the PCI function with the contract's
# identity, and, once vagx.ko is built, the driver bound to it with a DRM node.
top=$(cd "$(dirname "$0")/../../.." && pwd)
hdr=$(ls "$top"/build/host/uapi/hw/vagx_hw.h 2>/dev/null)
ven=$(sed -n 's/^#define VAGX_PCI_VENDOR_ID[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' "$hdr")
dev=$(sed -n 's/^#define VAGX_PCI_DEVICE_ID[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' "$hdr")
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
