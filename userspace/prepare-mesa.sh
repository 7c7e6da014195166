#!/usr/bin/env bash
# prepare-mesa.sh: make build/src/mesa a Mesa 25.0.7 tree with the vagx overlay
# and configure it in build/mesa.  Cheap when nothing changed, so `make mesa`
# runs it every time.  Same steps as qemu-device/prepare-qemu.sh: pinned orig
# tarball, our hook patch (if any), overlay as symlinks, configure on change.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/src/mesa
bld=$top/build/mesa
prefix=$top/build/mesa-install
export PATH=/usr/bin:$PATH   # Mesa's meson needs Debian's mako and yaml

pin=$(grep -E '^mesa[[:space:]]' "$top/scripts/sources.sha256")
hooks=$top/userspace/mesa-hooks.patch
want=$pin
if [ -f "$hooks" ]; then want="$want $(sha256sum "$hooks" | cut -d' ' -f1)"; fi
if [ "$(cat "$src/.vagx-prepared" 2>/dev/null)" != "$want" ]; then
	echo "mesa: preparing source tree"
	"$top/scripts/fetch-source.sh" mesa "$src"
	if [ -f "$hooks" ]; then patch -d "$src" -p1 -s --no-backup-if-mismatch <"$hooks"; fi
	echo "$want" >"$src/.vagx-prepared"
	rm -f "$bld/.vagx-configured"
fi

if [ -d "$top/userspace/mesa" ]; then
	(cd "$top/userspace/mesa" && find . \( -type f -o -type l \)) | while read -r f; do
		mkdir -p "$src/$(dirname "$f")"
		ln -sfn "$top/userspace/mesa/$f" "$src/$f"
	done
fi

# Only what vagx needs: its reference renderer (softpipe), EGL on GBM,
# surfaceless, X11 and Wayland, GLX over DRI3, GLES 2/3 and desktop GL through
# glvnd, drm-shim.  No LLVM.  The x11 and wayland platforms and GLX are what
# desktop clients in the guest (glxgears, es2gears_x11, weston-simple-egl)
# and the compositors (Xorg's glamor, weston's GL renderer) need.
drivers=softpipe
[ -d "$top/userspace/mesa/src/gallium/drivers/vagx" ] && drivers=vagx,softpipe
flags=(--prefix="$prefix" --libdir=lib -Dbuildtype=debugoptimized
	-Dgallium-drivers=$drivers -Dvulkan-drivers= -Dplatforms=x11,wayland
	-Dglx=dri -Degl=enabled -Dgbm=enabled -Dglvnd=enabled
	-Dopengl=true -Dgles1=disabled -Dgles2=enabled -Dllvm=disabled
	-Dvideo-codecs= -Dgallium-va=disabled -Dgallium-vdpau=disabled
	-Dgallium-xa=disabled -Dgallium-rusticl=false -Dvalgrind=disabled
	-Dlibunwind=disabled -Dlmsensors=disabled -Dtools=drm-shim
	-Dbuild-tests=false)
if [ "$(cat "$bld/.vagx-configured" 2>/dev/null)" != "${flags[*]}" ] || [ ! -f "$bld/build.ninja" ]; then
	echo "mesa: configuring (gallium: $drivers; EGL surfaceless+drm+x11+wayland, GLX (DRI3), GBM, GLES2/3, GL)"
	if [ -f "$bld/build.ninja" ]; then
		meson setup --reconfigure "$bld" "$src" "${flags[@]}" >"$top/build/mesa-configure.log" 2>&1
	else
		rm -rf "$bld"
		meson setup "$bld" "$src" "${flags[@]}" >"$top/build/mesa-configure.log" 2>&1
	fi || { tail -30 "$top/build/mesa-configure.log"; echo "mesa: configure failed; log in build/mesa-configure.log" >&2; exit 1; }
	echo "${flags[*]}" >"$bld/.vagx-configured"
fi
