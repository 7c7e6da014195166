#!/usr/bin/env bash
# apt-archive.sh [APT_ETC]: prints "URI SIGNED_BY" of the archive this
# machine's own apt configuration uses for Debian bookworm (suite "bookworm"
# exactly), so that what vagx adds (bookworm-backports, deb-src) comes from
# the same mirror or proxy.  SIGNED_BY is "-" when the entry names no key.
#
# Reads APT_ETC/sources.list.d/*.sources (deb822), APT_ETC/sources.list and
# APT_ETC/sources.list.d/*.list (one-line format), skipping vagx's own files.
# Exits 1, printing nothing, when no bookworm entry exists.
set -euo pipefail
etc=${1:-/etc/apt}

deb822() {
	# One paragraph per entry; "#" lines are comments, even inside one.
	awk '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ / bookworm / && uris != "") {
				split(uris, u, " ")
				print u[1], (signed == "" ? "-" : signed)
				found = 1
				exit
			}
			types = suites = uris = signed = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		{
			key = $1; sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
			if (key == "Types") types = val
			else if (key == "Suites") suites = val
			else if (key == "URIs") uris = val
			else if (key == "Signed-By") signed = val
		}
		END { if (!found) flush() }
	' "$@"
}

oneline() {
	# deb [opt=val ...] URI SUITE COMPONENTS...
	awk '
		/^[ \t]*deb[ \t]/ {
			line = $0; sub(/^[ \t]*deb[ \t]+/, "", line)
			signed = "-"
			if (line ~ /^\[/) {
				opts = line; sub(/\].*/, "", opts); sub(/^\[/, "", opts)
				line = substr(line, index(line, "]") + 1); sub(/^[ \t]+/, "", line)
				n = split(opts, o, /[ \t]+/)
				for (i = 1; i <= n; i++) if (o[i] ~ /^signed-by=/) { signed = o[i]; sub(/^signed-by=/, "", signed) }
			}
			split(line, f, /[ \t]+/)
			if (f[2] == "bookworm") { print f[1], signed; exit }
		}
	' "$@"
}

out=
for f in "$etc"/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	case "${f##*/}" in vagx-*) continue ;; esac
	out=$(deb822 "$f")
	[ -z "$out" ] || break
done
if [ -z "$out" ]; then
	for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		out=$(oneline "$f")
		[ -z "$out" ] || break
	done
fi
[ -n "$out" ] || exit 1
printf '%s\n' "$out"
