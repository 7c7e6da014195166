#!/usr/bin/env bash
# make check-fresh [FULL=1]: proves the setup on a bare machine.
#
# Builds a minimal Debian bookworm root once with debootstrap (minbase plus
# make, the one thing a user needs to type `make`; cached under
# $VAGX_CACHE/fresh), copies it, binds a clean clone of this tree's HEAD into
# it, and runs `make deps` and `make host kernel` there (`make qemu mesa` too
# with FULL=1; the ccache and the orig tarball cache are shared with this
# machine, the apt downloads are not).  Prints what it installed and the time
# of each step.  Runs in its own mount namespace, so nothing stays mounted.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${VAGX_CACHE:-$HOME/.cache/vagx}
base=$cache/fresh/bookworm-minbase
work=$top/build/fresh
root=$work/root
steps=(deps "host kernel")
[ "${FULL:-0}" = 1 ] && steps+=("qemu mesa")

say() { printf 'check-fresh: %s\n' "$*"; }
die() { printf 'check-fresh: error: %s\n' "$*" >&2; exit 1; }
elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot and mounts need it)"
start=$SECONDS
say "plan: a bare bookworm root, a clean clone of HEAD, then make ${steps[*]/%/;} in it" \
	"(first run: debootstrap ~3 min; make deps ~5 min; host+kernel ~2 min$([ "${FULL:-0}" = 1 ] && echo '; qemu+mesa 5-30 min'))"

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap on this machine"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
		die "'apt-get install debootstrap' failed; install it, then run 'make check-fresh' again"
fi

# --- the bare root, built once ----------------------------------------------
mkdir -p "$work"
if [ ! -f "$base/.vagx-complete" ]; then
	read -r uri _ < <("$top/scripts/apt-archive.sh") ||
		die "apt's configuration has no Debian bookworm entry to debootstrap from"
	say "debootstrap --variant=minbase bookworm from $uri into $base (log: $work/debootstrap.log)"
	t=$SECONDS
	rm -rf "$base.tmp"
	mkdir -p "${base%/*}"
	debootstrap --variant=minbase --include=make bookworm "$base.tmp" "$uri" >"$work/debootstrap.log" 2>&1 ||
		{ tail -15 "$work/debootstrap.log" >&2; die "debootstrap failed; its log is $work/debootstrap.log"; }
	touch "$base.tmp/.vagx-complete"
	rm -rf "$base"
	mv "$base.tmp" "$base"
	say "debootstrap: done in $(elapsed $((SECONDS - t)))"
else
	say "bare root: cached in $base"
fi

say "copying the bare root to $root"
rm -rf "$root" "$work/src"
cp -a "$base" "$root"
before=$(chroot "$root" dpkg-query -W -f='${Package}\n' | sort)

head=$(git -C "$top" rev-parse --short HEAD)
dirty=$(git -C "$top" status --porcelain --untracked-files=no | wc -l)
git clone --quiet --no-local "$top" "$work/src"
say "testing HEAD $head$([ "$dirty" = 0 ] || echo " ($dirty uncommitted changes are not part of it)")"

# --- inside: one mount namespace, one chroot per step ------------------------
mkdir -p "$cache/ccache" "$cache/sources"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
export root work cache
times=()
for step in "${steps[@]}"; do
	say "make $step"
	t=$SECONDS
	unshare --mount --propagation private bash -euc '
		mkdir -p "$root/work/vagx" "$root/root/.cache/vagx/ccache" "$root/root/.cache/vagx/sources"
		mount -t proc proc "$root/proc"
		mount -t sysfs sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount --bind "$work/src" "$root/work/vagx"
		mount --bind "$cache/ccache" "$root/root/.cache/vagx/ccache"
		mount --bind "$cache/sources" "$root/root/.cache/vagx/sources"
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			make -C /work/vagx '"$step"' </dev/null' 2>&1 | sed -u 's/^/    /'
	rc=${PIPESTATUS[0]}
	times+=("make $step: $(elapsed $((SECONDS - t)))$([ "$rc" = 0 ] || echo " FAILED (exit $rc)")")
	if [ "$rc" != 0 ]; then
		printf '  %s\n' "${times[@]}"
		die "make $step failed in the bare root; its output is above; the root is kept in $root (chroot $root bash) to investigate"
	fi
done

after=$(chroot "$root" dpkg-query -W -f='${Package}\n' | sort)
added=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | wc -l)
say "installed $added packages into the bare root ($(printf '%s\n' "$before" | wc -l) before, $(printf '%s\n' "$after" | wc -l) after); root now $(du -sh "$root" | cut -f1)"
say "kernels with headers in the root: $(ls "$root/lib/modules" | tr '\n' ' ')"
printf '  %s\n' "${times[@]}"
say "passed in $(elapsed $((SECONDS - start))) (HEAD $head)"
