#!/usr/bin/env bash
# prepare-qemu.sh: make build/src/qemu a QEMU 10.0.2 tree with vagx in it and
# configure it in build/qemu.  Cheap when nothing changed, so `make qemu` runs
# it every time.
#
#  1. unpack Debian's orig tarball (pinned sha256) once per pinned version;
#  2. apply our hook patch (Kconfig `source`, meson `subdir`, the qtest) and
#     the fix-ups the +ds tarball needs (dummy edk2 blobs);
#  3. lay the overlay (qemu-device/qemu/...) into the tree as symlinks, so an
#     edit in the repo is an edit in the tree and ninja rebuilds just that;
#  4. configure x86_64-softmmu with only what vagx needs, when the flags change.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/src/qemu
bld=$top/build/qemu
export PATH=/usr/bin:$PATH   # the pyenv python cannot see Debian's meson modules

pin=$(grep -E '^qemu[[:space:]]' "$top/scripts/sources.sha256")
hooks=$top/qemu-device/qemu-hooks.patch
want="$pin $(sha256sum "$hooks" | cut -d' ' -f1)"
if [ "$(cat "$src/.vagx-prepared" 2>/dev/null)" != "$want" ]; then
	echo "qemu: preparing source tree"
	"$top/scripts/fetch-source.sh" qemu "$src"
	patch -d "$src" -p1 -s --no-backup-if-mismatch <"$hooks"
	# The +ds tarball drops the edk2 firmware, but pc-bios/meson.build wants
	# the compressed blobs whenever bzip2 exists.  vagx boots with SeaBIOS.
	for a in aarch64-code arm-code arm-vars riscv-code riscv-vars i386-code \
		 i386-secure-code i386-vars x86_64-code x86_64-secure-code \
		 loongarch64-code loongarch64-vars; do
		[ -e "$src/pc-bios/edk2-$a.fd.bz2" ] || bzip2 -c </dev/null >"$src/pc-bios/edk2-$a.fd.bz2"
	done
	echo "$want" >"$src/.vagx-prepared"
	rm -f "$bld/.vagx-configured"
fi

# Overlay: mirror qemu-device/qemu/ as symlinks; the device also sees the
# hardware contract (uapi/) and the renderer core through two directory links.
(cd "$top/qemu-device/qemu" && find . \( -type f -o -type l \)) | while read -r f; do
	mkdir -p "$src/$(dirname "$f")"
	ln -sfn "$top/qemu-device/qemu/$f" "$src/$f"
done
ln -sfn "$top/uapi" "$src/hw/display/vagx/uapi"
ln -sfn "$top/qemu-device/core" "$src/hw/display/vagx/core"

flags=(--target-list=x86_64-softmmu --python=/usr/bin/python3
	--without-default-features --disable-docs --disable-download
	--disable-install-blobs --enable-tcg --enable-kvm
	--enable-pixman --enable-png --enable-virtfs --enable-attr --enable-vnc
	--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu)
if [ "$(cat "$bld/.vagx-configured" 2>/dev/null)" != "${flags[*]}" ] || [ ! -f "$bld/build.ninja" ]; then
	echo "qemu: configuring (x86_64-softmmu, tcg+kvm, pixman, png, virtfs, vnc)"
	mkdir -p "$bld"
	(cd "$bld" && CC="ccache gcc" "$src/configure" "${flags[@]}" >configure.log 2>&1) ||
		{ tail -30 "$bld/configure.log"; echo "qemu: configure failed; full log in $bld/configure.log" >&2; exit 1; }
	# Run from the build tree, QEMU looks for firmware below qemu-bundle/.
	mkdir -p "$bld/qemu-bundle/usr/share" "$bld/qemu-bundle/usr/lib/ipxe"
	ln -sfn /usr/share/seabios "$bld/qemu-bundle/usr/share/seabios"
	ln -sfn /usr/share/qemu "$bld/qemu-bundle/usr/share/qemu"
	ln -sfn /usr/lib/ipxe/qemu "$bld/qemu-bundle/usr/lib/ipxe/qemu"
	echo "${flags[*]}" >"$bld/.vagx-configured"
fi
