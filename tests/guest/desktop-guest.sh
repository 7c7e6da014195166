#!/usr/bin/env bash
# desktop-guest.sh: the in-guest half of tests/guest/desktop-test (run from
# the top of the tree, in a guest started with --screendumps).  Starts weston
# (drm backend on card0) and Xorg (modesetting on card0) twice each: once as
# the reference (weston's pixman renderer, Xorg without glamor, the client on
# softpipe with LIBGL_ALWAYS_SOFTWARE=1, drawing into shared memory) and
# once on vagx
# (weston's GL renderer, Xorg's glamor and the client on the vagx Mesa driver
# through userspace/vagx-env).  The clients' gettimeofday is frozen
# (build/frozen-time.so), so their gears stand still and every frame they draw is the
# same; once a client has drawn, the host takes a screendump
# (tests/guest/screendump NAME ppm).  What the host checks comes out as lines
# "vagx-desktop: KEY VALUE".
set -u
export XDG_RUNTIME_DIR=/run/xdg
mkdir -m 0700 "$XDG_RUNTIME_DIR"
vagx=userspace/vagx-env
# The reference renderer: softpipe, from the same Mesa build (the reference
# of the host GL tests too).  It shares no code with the vagx driver below
# the Gallium interface, and unlike llvmpipe it needs no LLVM JIT, which
# under TCG takes minutes to start a client.
softpipe="$vagx env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=softpipe"
frozen_so=$PWD/build/frozen-time.so
report() { echo "vagx-desktop: $*"; }
say() { echo "desktop: $(cut -d' ' -f1 /proc/uptime)s: $*"; }

# frozen COMMAND...: COMMAND with gettimeofday() stopped (build/frozen-time.so
# from tests/guest/frozen-time.c; the gears' angle comes from gettimeofday);
# clock_gettime(), which Mesa, weston and Xorg use for timeouts and
# presentation, keeps running.  It execs COMMAND, so that $! is COMMAND's
# pid: run it in the background only.
frozen() {
	LD_PRELOAD=$frozen_so exec "$@"
}

# gpu_ns PID: GPU time (ns) the vagx DRM files of process PID were charged
# (drm-engine-render of their fdinfo): > 0 means it rendered on vagx.
gpu_ns() {
	local t=0 f v
	for f in /proc/"$1"/fdinfo/*; do
		grep -q '^drm-driver:[[:space:]]*vagx' "$f" 2>/dev/null || continue
		v=$(sed -n 's/^drm-engine-render:[[:space:]]*\([0-9]*\) ns/\1/p' "$f")
		t=$((t + ${v:-0}))
	done
	echo $t
}

# wait_for FILE PATTERN COUNT SECONDS: until FILE has COUNT lines matching
# PATTERN (grep -E); status 1 on timeout.
wait_for() {
	local i=0 c
	while c=$(grep -c -E "$2" "$1" 2>/dev/null); [ "${c:-0}" -lt "$3" ]; do
		i=$((i + 1))
		[ $i -le $(($4 * 2)) ] || return 1
		sleep 0.5
	done
}

# stop PID...: SIGTERM, and SIGKILL what is still there 10 s later.
stop() {
	local i=0
	kill "$@" 2>/dev/null
	while kill -0 "$@" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
	kill -9 "$@" 2>/dev/null
	wait "$@" 2>/dev/null
}

# weston NAME GL CLIENT-GL ARGS...: weston (desktop shell without its panel:
# the one window is placed at the same spot in every weston run) with GL
# (vagx-env or env), es2gears_wayland under CLIENT-GL.  (Under the kiosk
# shell es2gears_wayland never drew a frame.)
weston_run() {
	local name=$1 gl=$2 cgl=$3 wp cp
	shift 3
	cat >/run/weston.ini <<EOF
[core]
idle-time=0
[shell]
panel-position=none
background-color=0xff000000
EOF
	# A black background: es2gears clears to alpha 0, and whether its window
	# is then see-through depends on the order of the EGL configs it is
	# offered (ARGB8888 first for vagx's dma-buf buffers, XRGB8888 first for
	# the wl_shm buffers of the software path), not on what it draws.
	rm -f "$XDG_RUNTIME_DIR"/wayland-*
	$gl weston --config=/run/weston.ini -Bdrm-backend.so --drm-device=card0 --tty=2 \
		--continue-without-input --log=/run/weston-$name.log "$@" &
	wp=$!
	say "weston-$name started"
	if ! wait_for /run/weston-$name.log 'Output .* enabled' 1 120; then
		report "weston-$name failed to start"
		tail -20 /run/weston-$name.log
		stop $wp
		return
	fi
	report "weston-$name renderer $(sed -n 's/.*GL renderer: //p' /run/weston-$name.log | head -1)"
	# The client logs its requests (WAYLAND_DEBUG): a commit after its
	# first frame callback means a drawn frame is on screen.
	WAYLAND_DISPLAY=wayland-1 WAYLAND_DEBUG=client frozen $cgl es2gears_wayland \
		>/run/wl-$name.log 2>&1 &
	cp=$!
	say "weston-$name: es2gears_wayland started"
	if ! wait_for /run/wl-$name.log 'wl_surface@[0-9]+\.commit\(' 4 60; then
		say "es2gears_wayland: $(grep -c -E 'wl_surface@[0-9]+\.commit\(' /run/wl-$name.log) commits, state $(sed -n 's/^State:[[:space:]]*//p' /proc/$cp/status 2>/dev/null), wchan $(cat /proc/$cp/wchan 2>/dev/null); its last lines:"
		tail -8 /run/wl-$name.log
	fi
	sleep 5
	if kill -0 $cp 2>/dev/null; then
		tests/guest/screendump "weston-$name" ppm >/dev/null || report "weston-$name no screendump"
		report "weston-$name client-gpu-ns $(gpu_ns $cp)"
		report "weston-$name compositor-gpu-ns $(gpu_ns $wp)"
	else
		report "weston-$name client exited"
		tail -10 /run/wl-$name.log
	fi
	stop $cp
	stop $wp
}

# xorg NAME GL ACCEL: Xorg :1 with the modesetting driver on card0 and
# AccelMethod ACCEL (glamor or none), run under GL.
xorg_start() {
	local name=$1 gl=$2 accel=$3
	cat >/run/xorg-$name.conf <<EOF
Section "Device"
	Identifier "vagx"
	Driver "modesetting"
	Option "kmsdev" "/dev/dri/card0"
	Option "AccelMethod" "$accel"
EndSection
Section "ServerFlags"
	Option "AutoAddDevices" "false"
	Option "AutoAddGPU" "false"
	Option "BlankTime" "0"
EndSection
EOF
	rm -f /run/xorg-ready
	$gl Xorg :1 -config /run/xorg-$name.conf -logfile /run/xorg-$name.log -noreset \
		-nolisten tcp -displayfd 3 vt3 3>/run/xorg-ready >/dev/null 2>&1 &
	xp=$!
	say "xorg-$name started"
	if ! wait_for /run/xorg-ready '[0-9]' 1 120; then
		report "xorg-$name failed to start"
		tail -20 /run/xorg-$name.log
		stop $xp
		return 1
	fi
	grep -o 'glamor X acceleration enabled on .*' /run/xorg-$name.log | head -1 | sed "s/^/vagx-desktop: xorg-$name /"
	return 0
}

# x_client NAME CLIENT-GL COMMAND...: run an X client until it has drawn
# (it prints its GL_RENDERER, or nothing: es2gears_x11; then 15 s), take
# the screendump NAME.
x_client() {
	local name=$1 cgl=$2 cp
	shift 2
	DISPLAY=:1 frozen $cgl "$@" >/run/x-$name.log 2>&1 &
	cp=$!
	say "$name started"
	sleep 20
	report "$name renderer $(sed -n 's/^GL_RENDERER *= *//p' /run/x-$name.log | head -1)"
	if kill -0 $cp 2>/dev/null; then
		tests/guest/screendump "$name" ppm >/dev/null || report "$name no screendump"
		report "$name client-gpu-ns $(gpu_ns $cp)"
	else
		report "$name client exited"
		tail -10 /run/x-$name.log
	fi
	stop $cp
}

weston_run vagx $vagx $vagx
weston_run softpipe env "$softpipe" --use-pixman

if xorg_start vagx $vagx glamor; then
	DISPLAY=:1 timeout 120 $vagx glxinfo -B >/run/glxinfo.log 2>&1
	report "glxinfo status $? $(sed -n 's/^OpenGL renderer string: //p' /run/glxinfo.log)"
	x_client glxgears-vagx $vagx glxgears -info
	x_client es2gears-vagx $vagx es2gears_x11
	stop $xp
fi
if xorg_start softpipe env none; then
	x_client glxgears-softpipe "$softpipe" glxgears -info
	x_client es2gears-softpipe "$softpipe" es2gears_x11
	stop $xp
fi
report "done"
