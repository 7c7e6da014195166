# qmp.sh: host-side QMP helpers shared by tests/guest/screendump-server and
# tests/guest/screendump-test (sourced, not run).  Needs socat.

# qmp SOCKET JSON: sends one QMP command after the capabilities handshake and
# prints QEMU's replies (greeting, handshake, command) on stdout.
qmp() {
	printf '{"execute":"qmp_capabilities"}\n%s\n' "$2" |
		socat -t 10 - "UNIX-CONNECT:$1" 2>&1
}

# qmp_screendump SOCKET FILE FORMAT: QMP screendump of the vagx console
# (FORMAT png or ppm) into FILE.  QEMU writes FILE itself, so FILE must be a
# path QEMU can write.  Returns 0 if FILE was written; otherwise prints
# QEMU's reply and returns 1.
qmp_screendump() {
	local sock=$1 file=$2 fmt=$3 reply
	rm -f "$file"
	reply=$(qmp "$sock" "{\"execute\":\"screendump\",\"arguments\":{\"filename\":\"$file\",\"format\":\"$fmt\"}}")
	if [ -s "$file" ]; then
		return 0
	fi
	printf '%s\n' "$reply" | grep -v '"QMP"' | tr '\n' ' '
	echo
	return 1
}
