# TAP helpers of the in-guest shell suites (gl.sh, reset-gl.sh), sourced:
# numbered ok/not ok lines, a file's lines as diagnostics, and the count of
# kernel splat lines (plus $splat_extra, an extended regex, if set) to
# compare before and after a test.
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $1"; shift; for l in "$@"; do echo "# $l"; done; }
log() { sed 's/^/#   /' "$1" | head -"${2:-15}"; }
splat_re() { echo "WARNING:|BUG:|Oops|Call Trace|general protection${splat_extra:+|$splat_extra}"; }
splat() { dmesg | grep -c -E "$(splat_re)"; }
# splat_check COUNT-BEFORE NAME: ok if no splat line appeared since.
splat_check() {
	if [ "$(splat)" = "$1" ]; then
		ok "$2"
	else
		nok "$2"
		dmesg | grep -E -A5 "$(splat_re)" | tail -30 | sed 's/^/#   /'
	fi
}
# The plan line and the suite's exit status.
tap_end() { echo "1..$n"; [ $fails = 0 ]; }
