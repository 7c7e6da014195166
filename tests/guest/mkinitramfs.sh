#!/usr/bin/env bash
# mkinitramfs.sh KREL OUT: the guest's initramfs.  It holds only busybox, our
# init and the (decompressed: busybox insmod cannot read .ko.xz) modules needed
# to reach the host's root file system over 9p; everything else, including the
# rest of /lib/modules, comes from the host root once it is mounted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
krel=$1 out=$2
mods=/lib/modules/$krel/kernel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,host,newroot,lib/modules}
cp /bin/busybox "$tmp/bin/busybox"
for m in fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay; do
	f=$(ls "$mods/$m".ko* 2>/dev/null | head -1)
	[ -n "$f" ] || { echo "mkinitramfs: $m missing from $mods" >&2; exit 1; }
	case "$f" in
	*.xz) xz -dc "$f" >"$tmp/lib/modules/$(basename "$m").ko" ;;
	*.zst) zstd -dcq "$f" >"$tmp/lib/modules/$(basename "$m").ko" ;;
	*) cp "$f" "$tmp/lib/modules/" ;;
	esac
done
# Drop the appended module signatures: verifying them costs seconds per
# module under TCG, and the guest is a throw-away test machine.
python3 - "$tmp"/lib/modules/*.ko <<'PY'
import struct, sys
MAGIC = b"~Module signature appended~\n"
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    if data.endswith(MAGIC):
        sig_len = struct.unpack(">I", data[-len(MAGIC) - 4:-len(MAGIC)])[0]
        open(path, "wb").write(data[:-(len(MAGIC) + 12 + sig_len)])
PY
cp "$here/init" "$tmp/init"
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
