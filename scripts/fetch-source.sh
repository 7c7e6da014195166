#!/usr/bin/env bash
# fetch-source.sh PACKAGE DESTDIR
#
# Downloads Debian's orig tarball of PACKAGE at the version pinned in
# sources.sha256, checks its sha256 and unpacks it into DESTDIR.
# The .dsc of these backports versions is not served (404), so `apt-get source`
# cannot be used as is: we ask apt for the tarball's URI and let apt's own
# downloader (apt-helper) fetch it, verifying the pinned hash.  The cache is
# root's, which apt's sandbox user cannot write: download as root outright
# rather than have apt warn that it falls back to doing so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pkg=$1 dest=$2
cache=${VAGX_CACHE:-$HOME/.cache/vagx}/sources
read -r _ ver file sum < <(grep -E "^$pkg[[:space:]]" "$here/sources.sha256")
[ -n "${sum:-}" ] || { echo "fetch: $pkg is not pinned in $here/sources.sha256" >&2; exit 1; }

mkdir -p "$cache"
tarball=$cache/$file
if [ -f "$tarball" ] && echo "$sum  $tarball" | sha256sum -c --status; then
	echo "fetch: $file (cached)"
else
	uri=$(apt-get source --print-uris -qq "$pkg=$ver" 2>/dev/null |
		awk -v f="$file" '$2 == f { gsub("\047", "", $1); print $1; exit }')
	[ -n "$uri" ] || { echo "fetch: apt does not know $pkg=$ver; run 'make deps' (it adds bookworm-backports deb-src) and retry" >&2; exit 1; }
	echo "fetch: downloading $file"
	rm -f "$tarball.part"
	/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$uri" "$tarball.part" "SHA256:$sum" >/dev/null ||
		{ echo "fetch: download or checksum of $uri failed" >&2; rm -f "$tarball.part"; exit 1; }
	mv "$tarball.part" "$tarball"
fi
echo "$sum  $tarball" | sha256sum -c --status || { echo "fetch: sha256 mismatch for $tarball" >&2; exit 1; }

rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
echo "fetch: unpacking $file"
tar -xf "$tarball" -C "$dest.tmp" --strip-components=1
rm -rf "$dest"
mv "$dest.tmp" "$dest"
