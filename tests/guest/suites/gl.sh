#!/bin/sh
# GL on the real kernel driver (TAP, in the guest): the vagx Mesa driver on
# vagx.ko through GBM/EGL on /dev/dri/card0 (render + KMS) and renderD128.
#
#  - eglinfo on the GBM platform (card0) reports the vagx EGL driver without
#    a loader warning (driconf names the DRI driver of kernel driver vagx), and
#    build/gl-tests/gl_info (surfaceless platform: renderD128) a vagx renderer
#    with GL 3.3 compatibility and a 3.3 core profile (GLSL 3.30);
#  - build/gl-tests/gl_triangle --gbm renders every GLES2 case of tests/gl
#    into a 64x64 ARGB8888 GBM window surface on card0 and reads it back; after
#    eglSwapBuffers the front buffer, mapped with gbm_bo_map, must equal the
#    readback exactly (scanout buffer layout/stride). Each readback is compared
#    with the same case rendered in this run by Debian's softpipe (system
#    Mesa, surfaceless, LIBGL_ALWAYS_SOFTWARE=1; not llvmpipe, whose LLVM
#    compile of the spill case's 72-vec4 shader takes minutes under TCG, as
#    on the host suite) with gl_triangle --compare's
#    tolerance: every channel within 3/255, except pixels on a coverage edge of
#    the reference (a 3x3 neighbourhood with a >= 24 step), which must match
#    one of their reference neighbours within 3/255;
#  - PRIME: the triangle's front buffer is exported as a dma-buf and imported
#    on a second DRM file (GBM device on renderD128): mapped there with
#    gbm_bo_map it must hold the same pixels, and imported as an EGL image
#    (EGL_EXT_image_dma_buf_import) the second context samples it (nearest,
#    1:1) and must read back exactly the same pixels;
#  - build/gl-tests/gl_sync (renderD128): fences, native fence fds and reads
#    of results with jobs in flight, on the kernel's syncobjs and sync_files;
#  - build/gl-tests/gl_compute (renderD128): compute shaders, SSBOs, atomics,
#    barriers and images on vagx.ko's compute queue, ordered with render jobs
#    by the kernel's timeline syncobj, no CPU wait in no_cpu_wait;
#  - build/gl-tests/gl_sparse (renderD128): GL_ARB_sparse_buffer on the
#    kernel's asynchronous VM_BIND, no kernel warning;
#  - build/gl-tests/gl_sparse_tex (renderD128): GL_ARB_sparse_texture, pages
#    and mip tails of textures on the same binds, no kernel warning;
#  - build/gl-tests/gl_sparse_queues (renderD128): a sparse buffer and a
#    sparse texture used by compute jobs and draws in turn with commitment
#    changes between them (both queues and the binds in flight together),
#    no kernel warning;
#  - kmscube -c 60 on card0: exit 0, GL_RENDERER vagx, no driver error or GL
#    error in its output, no kernel warning/oops while it ran.
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
env=$top/userspace/vagx-env
bin=$top/build/gl-tests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/guest/suites/tap.sh"

# the test programs are normally built on the host (tests/gl/run, make check);
# the guest's root overlay is writable, so build them here if missing
if [ ! -x "$bin/gl_triangle" ] || [ ! -x "$bin/gl_info" ] || [ ! -x "$bin/gl_sync" ] || [ ! -x "$bin/shim_sync" ] ||
	[ ! -x "$bin/gl_compute" ] || [ ! -x "$bin/gl_sparse" ] || [ ! -x "$bin/gl_sparse_tex" ] ||
	[ ! -x "$bin/gl_sparse_queues" ]; then
	make -s -C tests/gl >"$tmp/build.log" 2>&1 || { echo "1..0 # SKIP cannot build tests/gl"; log "$tmp/build.log"; exit 1; }
fi

# 1. EGL/GL identity on both nodes
"$env" eglinfo -B -p gbm >"$tmp/eglinfo" 2>&1
if grep -q 'EGL driver name: vagx' "$tmp/eglinfo"; then
	ok "eglinfo -p gbm (card0): EGL driver name vagx"
else
	nok "eglinfo -p gbm (card0): EGL driver name vagx"; log "$tmp/eglinfo"
fi
# the loader finds the driver without a warning (vagx is not in Mesa's PCI-ID
# table; userspace/mesa-hooks.patch names it in driconf for kernel driver vagx)
if grep -q 'pci id for fd' "$tmp/eglinfo"; then
	nok "eglinfo -p gbm (card0): no loader warning" "$(grep -m1 'pci id for fd' "$tmp/eglinfo")"
else
	ok "eglinfo -p gbm (card0): no loader warning"
fi
"$env" "$bin/gl_info" >"$tmp/gl_info" 2>&1
if grep -q "^ES .*renderer vagx" "$tmp/gl_info"; then
	ok "gl_info (surfaceless, renderD128): $(grep -m1 "^ES" "$tmp/gl_info" | cut -d"|" -f1)renderer vagx"
else
	nok "gl_info (surfaceless, renderD128): GLES renderer vagx"; log "$tmp/gl_info"
fi
# GL 3.3: geometry shaders (contract 1.11), the vertex formats, GLSL 3.30
# (docs/mesa-driver.md, GL versions and geometry shaders)
if grep -q "^compat *3\.3 .*| GLSL 3\.30 |.*renderer vagx" "$tmp/gl_info" &&
	grep -q "^core *3\.3 (Core Profile) .*| GLSL 3\.30 |.*renderer vagx" "$tmp/gl_info"; then
	ok "gl_info (surfaceless, renderD128): GL 3.3 compatibility and 3.3 core profile, GLSL 3.30"
else
	nok "gl_info (surfaceless, renderD128): GL 3.3 compatibility and 3.3 core profile, GLSL 3.30"; log "$tmp/gl_info"
fi

# 2. GLES2 cases in a GBM surface on card0 vs softpipe, PRIME to renderD128
mkdir -p "$tmp/vagx" "$tmp/ref"
before=$(splat)
timeout 240 "$env" "$bin/gl_triangle" --gbm /dev/dri/card0 --prime /dev/dri/renderD128 "$tmp/vagx" \
	>"$tmp/vagx.log" 2>&1
vrc=$?
env -u LD_LIBRARY_PATH -u __EGL_VENDOR_LIBRARY_FILENAMES -u GBM_BACKENDS_PATH -u LIBGL_DRIVERS_PATH \
	EGL_PLATFORM=surfaceless LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=softpipe \
	timeout 240 "$bin/gl_triangle" "$tmp/ref" >"$tmp/ref.log" 2>&1
if grep -q '^renderer vagx' "$tmp/vagx.log"; then
	ok "gl_triangle --gbm /dev/dri/card0: $(grep -m1 '^renderer' "$tmp/vagx.log")"
else
	nok "gl_triangle --gbm /dev/dri/card0: renderer vagx (exit $vrc)"; log "$tmp/vagx.log"
fi
if grep -q '^renderer softpipe' "$tmp/ref.log"; then
	echo "# reference: $(grep -m1 '^renderer' "$tmp/ref.log")"
else
	echo "# reference did not run on softpipe:"; log "$tmp/ref.log"
fi
for c in $("$bin/gl_triangle" --list); do
	line=$(grep "^case $c " "$tmp/vagx.log")
	if [ "$line" != "case $c ok" ]; then
		nok "gbm $c: rendered, front buffer == readback" "${line:-not rendered (exit $vrc)}"
	elif ! grep -qx "case $c ok" "$tmp/ref.log"; then
		nok "gbm $c: matches softpipe" "softpipe did not render: $(grep "^case $c " "$tmp/ref.log")"
	elif r=$("$bin/gl_triangle" --compare "$tmp/ref/$c.ppm" "$tmp/vagx/$c.ppm" 2>&1); then
		ok "gbm $c: front buffer == readback, matches softpipe ${r#\# }"
	else
		nok "gbm $c: matches softpipe" "$r"
	fi
done
pline=$(grep '^prime ' "$tmp/vagx.log" | tail -1)
if grep -q '^prime cpu ok' "$tmp/vagx.log" && grep -q '^prime renderer vagx' "$tmp/vagx.log"; then
	ok "PRIME: card0 front buffer imported on renderD128 (gbm_bo_import), CPU view identical"
else
	nok "PRIME: card0 front buffer imported on renderD128 (gbm_bo_import), CPU view identical" \
		"${pline:-no prime result (exit $vrc)}" "$(grep '^prime export' "$tmp/vagx.log")"
fi
if [ "$pline" = "prime ok" ]; then
	ok "PRIME: the imported dma-buf sampled on renderD128 reads back identically"
else
	nok "PRIME: the imported dma-buf sampled on renderD128 reads back identically" \
		"${pline:-no prime result (exit $vrc)}" "$(grep '^prime export' "$tmp/vagx.log")"
fi
if grep -q '^vagx: ' "$tmp/vagx.log"; then
	nok "gl_triangle: no driver errors" "$(grep -m3 '^vagx: ' "$tmp/vagx.log")"
else
	ok "gl_triangle: no driver errors"
fi

# 2b. fences and CPU reads of results on vagx.ko's syncobjs and sync_files
# (tests/gl/gl_sync.c on renderD128, surfaceless): GL sync objects,
# EGL_KHR_fence_sync, EGL_ANDROID_native_fence_sync fds, reads right after
# the draws, buffer updates while jobs read the old data, frames in flight.
# Without --async: how long a job takes here is not under the test's control.
# cases_ok PROG LOG RC: a TAP line per case of build/gl-tests/PROG, which
# must say "case NAME ok" in LOG after a vagx renderer line
cases_ok() {
	for c in $("$bin/$1" --list); do
		line=$(grep "^case $c " "$2")
		if [ "$line" = "case $c ok" ] && grep -q '^renderer vagx' "$2"; then
			ok "$1 $c"
		else
			nok "$1 $c" "${line:-missing (exit $3)}" "$(grep -m3 '^vagx' "$2")"
		fi
	done
}
timeout 180 "$env" "$bin/gl_sync" >"$tmp/sync.log" 2>&1
cases_ok gl_sync "$tmp/sync.log" $?

# cases_ok_quiet PROG LOG: PROG's cases (cases_ok), and no kernel warning
# while it ran
cases_ok_quiet() {
	spbefore=$(splat)
	timeout 300 "$env" "$bin/$1" >"$2" 2>&1
	cases_ok "$1" "$2" $?
	if [ "$(splat)" -eq "$spbefore" ]; then
		ok "$1: no kernel warning"
	else
		nok "$1: no kernel warning" "$(dmesg | grep -m3 -E 'WARNING:|BUG:|Oops')"
	fi
}

# 2c. GL_ARB_sparse_buffer on vagx.ko (tests/gl/gl_sparse.c, renderD128):
# commitment changes as asynchronous VM_BINDs (MAP over NULL, MAP_NULL over
# memory) ordered against rendering by syncobjs, checked per pixel and word;
# no kernel warning while it ran
cases_ok_quiet gl_sparse "$tmp/sparse.log"
# GL_ARB_sparse_texture (tests/gl/gl_sparse_tex.c): pages of a texture
# and its mip tails committed between draws, checked per texel
cases_ok_quiet gl_sparse_tex "$tmp/sparse_tex.log"
# both queues (tests/gl/gl_sparse_queues.c): compute jobs and draws write
# and read a sparse buffer and texture, a page of each committed or
# decommitted before every job, checked per word and texel
cases_ok_quiet gl_sparse_queues "$tmp/sparse_queues.log"

# 2c. compute on vagx.ko's compute queue (tests/gl/gl_compute.c, each case
# checks its exact values); the draws and dispatches of no_cpu_wait depend
# on each other and must not make the CPU wait (VAGX_DEBUG=waits)
mkdir -p "$tmp/compute"
VAGX_DEBUG=waits timeout 300 \
	"$env" "$bin/gl_compute" "$tmp/compute" >"$tmp/compute.log" 2>&1
crc=$?
for c in $("$bin/gl_compute" --list); do
	line=$(grep "^case $c " "$tmp/compute.log")
	if [ "$line" = "case $c ok" ] && grep -q '^renderer vagx' "$tmp/compute.log"; then
		ok "gl_compute $c"
	else
		nok "gl_compute $c" "${line:-missing (exit $crc)}" "$(grep -m3 '^vagx' "$tmp/compute.log")"
	fi
done
waits=$(sed -n '/^gl_compute: no_cpu_wait begin$/,/^gl_compute: no_cpu_wait end$/p' "$tmp/compute.log" |
	grep -c '^vagx: CPU waits for submit')
if grep -q '^gl_compute: no_cpu_wait end$' "$tmp/compute.log" && [ "$waits" -eq 0 ]; then
	ok "gl_compute no_cpu_wait: no CPU wait between dependent draws and dispatches"
else
	nok "gl_compute no_cpu_wait: no CPU wait between dependent draws and dispatches" "$waits waits"
fi

# the syncobj ioctls the drm-shim emulates on the host, here on DRM core
"$bin/shim_sync" >"$tmp/shim_sync.log" 2>&1
shrc=$?
for c in wait wait_many fds errors timeline timeline_submit; do
	line=$(grep "^case $c " "$tmp/shim_sync.log")
	if [ "$line" = "case $c ok" ]; then
		ok "shim_sync $c (DRM core syncobjs)"
	else
		nok "shim_sync $c (DRM core syncobjs)" "${line:-missing (exit $shrc)}" "$(head -1 "$tmp/shim_sync.log")"
	fi
done

# 3. kmscube on card0 (KMS modeset + page flips of GBM scanout buffers)
# kmscube stops at EOF on stdin ("user interrupted!"): give it a FIFO opened
# read-write, which never reaches EOF
mkfifo "$tmp/in"
timeout 180 "$env" kmscube -c 60 <>"$tmp/in" >"$tmp/kmscube.log" 2>&1
krc=$?
if [ $krc = 0 ] && grep -q 'renderer: "vagx' "$tmp/kmscube.log" &&
	grep -q '^Rendered 5[0-9] frames\|^Rendered 60 frames\|^Rendered [0-9]* frames' "$tmp/kmscube.log" &&
	! grep -q -i -e '^vagx: ' -e 'GL_INVALID' -e 'failed' "$tmp/kmscube.log"; then
	ok "kmscube -c 60: exit 0, renderer vagx, $(grep '^Rendered' "$tmp/kmscube.log" | tail -1)"
else
	nok "kmscube -c 60: exit 0, renderer vagx, no errors (exit $krc)"; log "$tmp/kmscube.log" 40
fi
splat_check "$before" "no kernel warning or oops during the GL runs"
tap_end
