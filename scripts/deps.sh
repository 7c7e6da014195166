#!/usr/bin/env bash
# make deps: make this Debian bookworm machine able to build and test vagx.
#
# Adds bookworm-backports (deb and deb-src) in its own sources file, refreshes
# the package lists only when they are missing or stale, and installs the
# pinned package set listed in scripts/packages.txt (one "name [suite]" a line).
# Idempotent: when nothing is missing it costs one dpkg-query.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
list="$here/packages.txt"
src=/etc/apt/sources.list.d/vagx-backports.sources

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (apt-get needs it), or install the packages in $list by hand"
grep -q 'bookworm' /etc/os-release || say "warning: this is not Debian bookworm; package names may differ"

want_src='Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg'

changed=0
if [ "$(cat "$src" 2>/dev/null)" != "$want_src" ]; then
	say "adding bookworm-backports (deb, deb-src) as $src"
	printf '%s\n' "$want_src" >"$src"
	changed=1
fi
# deb-src for the main suites too: apt-get source needs it for the orig tarballs.
main_src=/etc/apt/sources.list.d/vagx-bookworm-src.sources
want_main='Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg'
if [ "$(cat "$main_src" 2>/dev/null)" != "$want_main" ]; then
	printf '%s\n' "$want_main" >"$main_src"
	changed=1
fi

# Which packages are missing?  "name" or "name suite" per line; '#' comments.
missing=()
bpo=()
while read -r name suite; do
	[ -n "$name" ] || continue
	case "$name" in \#*) continue ;; esac
	st=$(dpkg-query -W -f='${Status} ${Version}\n' "$name" 2>/dev/null)
	case "$st" in
	"install ok installed "*)
		# A backports package at bookworm's version (installed before the
		# backports source existed) does not count: upgrade it.
		if [ "${suite:-}" = backports ] && [[ "$st" != *bpo* ]]; then bpo+=("$name"); fi ;;
	*)
		if [ "${suite:-}" = backports ]; then bpo+=("$name"); else missing+=("$name"); fi ;;
	esac
done <"$list"

# The 6.12 kernel image/headers must be from backports and installed together.
if [ ${#missing[@]} -eq 0 ] && [ ${#bpo[@]} -eq 0 ] && [ $changed = 0 ]; then
	say "all $(grep -cv '^\s*\(#\|$\)' "$list") packages present"
	exit 0
fi

lists=/var/lib/apt/lists
stale=$(find "$lists" -maxdepth 1 -name '*bookworm-backports*Packages*' -mmin -1440 2>/dev/null | head -1)
if [ $changed = 1 ] || [ -z "$stale" ]; then
	say "apt-get update"
	apt-get update -qq || die "apt-get update failed: check network access to deb.debian.org"
fi

export DEBIAN_FRONTEND=noninteractive
opts=(-y -qq --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
if [ ${#bpo[@]} -gt 0 ]; then
	say "installing from bookworm-backports: ${bpo[*]}"
	apt-get install "${opts[@]}" -t bookworm-backports "${bpo[@]}" ||
		die "apt-get install -t bookworm-backports failed (see above)"
fi
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	apt-get install "${opts[@]}" "${missing[@]}" || die "apt-get install failed (see above)"
fi
say "done"
