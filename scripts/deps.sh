#!/usr/bin/env bash
# make deps: make this Debian bookworm machine able to build and test vagx.
#
# Adds bookworm-backports (deb and deb-src) and deb-src for bookworm, each in
# its own sources file and from the archive the machine's apt configuration
# already uses for bookworm (scripts/apt-archive.sh), refreshes the package
# lists only when they are missing or stale, and installs what is missing of
# the pinned package set in scripts/packages.txt (one "name [backports]" a
# line; "backports" ones come from bookworm-backports).  Idempotent: when nothing is missing it costs one dpkg-query per
# package and installs nothing.
#
# Tests (tests/setup/test-deps) run it against a machine state they control:
# VAGX_DEPS_ROOT prefixes every path it reads or writes under /etc and /var,
# and dpkg-query, apt-get and id come from PATH.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
list=$here/packages.txt
root=${VAGX_DEPS_ROOT:-}
apt_etc=$root/etc/apt
lists=$root/var/lib/apt/lists
log=${VAGX_DEPS_LOG:-${TMPDIR:-/tmp}/vagx-deps.log}
bpo_file=$apt_etc/sources.list.d/vagx-backports.sources
src_file=$apt_etc/sources.list.d/vagx-bookworm-src.sources

say() { printf 'deps: %s\n' "$*"; }
die() {
	printf 'deps: error: %s\n' "$1" >&2
	shift
	local l
	for l in "$@"; do printf 'deps:   %s\n' "$l" >&2; done
	exit 1
}

[ "$(id -u)" = 0 ] || die "run as root: apt-get needs it" \
	"or install the packages listed in $list yourself (those marked backports as NAME/bookworm-backports)"
grep -qs 'bookworm' "$root/etc/os-release" ||
	say "warning: this is not Debian bookworm; package names may differ"

# --- apt sources ----------------------------------------------------------
archive=$("$here/apt-archive.sh" "$apt_etc") ||
	die "apt's configuration ($apt_etc/sources.list, $apt_etc/sources.list.d/) has no entry for Debian bookworm" \
		"add the one your machine should use (a mirror or proxy is fine), then run 'make deps' again"
read -r uri signed <<<"$archive"
[ "$signed" != - ] || signed=/usr/share/keyrings/debian-archive-keyring.gpg

stanza() { # TYPES SUITES
	printf 'Types: %s\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$1" "$uri" "$2" "$signed"
}
changed=0
ensure_source() { # FILE WHAT TYPES SUITES
	local want
	want=$(stanza "$3" "$4")
	[ "$(cat "$1" 2>/dev/null)" != "$want" ] || return 0
	say "adding $2 from $uri as $1"
	mkdir -p "${1%/*}"
	printf '%s\n' "$want" >"$1"
	changed=1
}
ensure_source "$bpo_file" "bookworm-backports (deb, deb-src)" "deb deb-src" bookworm-backports
# deb-src for the main suites too: apt-get source needs it for the orig tarballs.
ensure_source "$src_file" "deb-src for bookworm" deb-src "bookworm bookworm-updates"

# --- what is missing --------------------------------------------------------
missing=() bpo=() total=0
while read -r name suite _; do
	case "$name" in '' | \#*) continue ;; esac
	total=$((total + 1))
	# dpkg-query exits 1 for a package it has never seen: that is "missing".
	st=$(dpkg-query -W -f='${Status} ${Version}\n' "$name" 2>/dev/null) || st=
	if [[ "$st" == "install ok installed "* ]]; then
		# A backports package at bookworm's version (installed before the
		# backports source existed) does not count: upgrade it.
		if [ "${suite:-}" = backports ] && [[ "$st" != *bpo* ]]; then bpo+=("$name"); fi
	elif [ "${suite:-}" = backports ]; then
		bpo+=("$name")
	else
		missing+=("$name")
	fi
done <"$list"

if [ ${#missing[@]} -eq 0 ] && [ ${#bpo[@]} -eq 0 ]; then
	say "all $total packages present"
	exit 0
fi
say "plan: install $((${#missing[@]} + ${#bpo[@]})) of $total packages" \
	"(${#bpo[@]} from bookworm-backports) and what they depend on;" \
	"a bare machine takes 3-5 min and ~1.5 GB; apt's output goes to $log"

# --- apt ------------------------------------------------------------------
: >"$log"
# run_apt WHAT ARGS...: apt-get with its output in the log and a progress
# line every 20 % (apt's machine-readable status on fd 3); on failure, the
# command, the end of the log, and what to try.
run_apt() {
	local what=$1 rc=0
	shift
	say "$what"
	echo "+ apt-get $*" >>"$log"
	{ apt-get -o APT::Status-Fd=3 "$@" 3>&1 1>>"$log" 2>&1 | awk -F: -v what="${what%%:*}" '
		$1 == "dlstatus" || $1 == "pmstatus" {
			phase = ($1 == "dlstatus") ? "download" : "install"
			pct = int($3)
			if (phase != last) { last = phase; next_pct = 20 }
			if (pct >= next_pct) {
				printf "deps:   %s %s %d%%\n", what, phase, pct; fflush()
				next_pct = pct - pct % 20 + 20
			}
		}'; } || rc=$?
	[ "$rc" = 0 ] && return 0
	tail -15 "$log" | sed 's/^/deps:   | /' >&2
	die "'apt-get $*' failed (exit $rc); its output is in $log" \
		"check apt's sources ($apt_etc/sources.list.d/, the bookworm entry at $uri) and that this machine reaches that archive," \
		"then run 'make deps' again"
}

export DEBIAN_FRONTEND=noninteractive
fresh=$(find "$lists" -maxdepth 1 -name '*bookworm-backports*Packages*' -mmin -1440 2>/dev/null | head -1) || fresh=
if [ $changed = 1 ] || [ -z "$fresh" ]; then
	run_apt "apt-get update: refreshing package lists" update
fi
# One apt-get call for everything. Backports packages are named
# NAME/bookworm-backports, which takes just them (and what they need at a
# newer version) from backports: `-t bookworm-backports` would prefer
# backports for every dependency too, and on a bare machine it pulls e.g.
# libelf1 0.192 that bookworm's libelf-dev, installed next, cannot go with.
opts=(-y --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
pkgs=("${missing[@]}" "${bpo[@]/%//bookworm-backports}")
run_apt "installing: ${pkgs[*]}" install "${opts[@]}" "${pkgs[@]}"
say "done"
