#!/bin/sh
# In-guest: unload vagx.ko while idle and check that the kernel log stays
# clean (no WARN/BUG/leak reports, no vagx errors), then load and unload it
# once more.  Must be the last suite of a guest boot: it leaves the module
# unloaded.  TAP output.
#   tests/guest/vagx-guest -- tests/uapi/unload.sh
n=0
bad=0
t() {
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n $1"; else echo "not ok $n $1"; bad=1; fi
}
splats='WARNING:|BUG:|Oops|kernel BUG|lockdep|possible recursive|circular locking|KASAN|UBSAN|leak|refcount_t|use-after-free|\[drm:vagx[^]]*\] \*ERROR\*|vagx.*(error|timed out)'

echo "1..6"
ko=${VAGX_KO:-}
if [ -z "$ko" ] && [ -f /run/vagx-xfer/env ]; then
	ko=$(sed -n 's/^VAGX_KO=//p' /run/vagx-xfer/env)
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "$ko" ] || ko=$top/build/kernel/vagx.ko
if ! grep -q '^vagx ' /proc/modules; then
	if [ -n "$ko" ] && [ -f "$ko" ]; then insmod "$ko"; fi
fi
grep -q '^vagx ' /proc/modules
t "vagx is loaded" $?

before=$(dmesg | wc -l)
# Let asynchronous VM teardown of earlier suites finish.
sleep 1
rmmod vagx
t "rmmod vagx while idle" $?
! grep -q '^vagx ' /proc/modules && [ ! -d /sys/module/vagx ]
t "module is gone" $?
dmesg | tail -n +$((before + 1)) >/tmp/unload-dmesg.txt
! grep -E -i "$splats" /tmp/unload-dmesg.txt >/tmp/unload-bad.txt
rc=$?
[ $rc = 0 ] || sed 's/^/# /' /tmp/unload-bad.txt
t "dmesg clean after unload" $rc

if [ -n "$ko" ] && [ -f "$ko" ]; then
	before=$(dmesg | wc -l)
	insmod "$ko" job_timeout_ms=500 hw_job_timeout_ms=0 && \
		[ "$(cat /sys/module/vagx/parameters/job_timeout_ms)" = 500 ] && \
		ls /dev/dri/renderD* >/dev/null 2>&1
	t "reload with parameters" $?
	rmmod vagx
	rc=$?
	dmesg | tail -n +$((before + 1)) | grep -E -i "$splats" && rc=1
	t "second unload clean" $rc
else
	echo "ok 5 reload with parameters # SKIP VAGX_KO unknown"
	echo "ok 6 second unload clean # SKIP VAGX_KO unknown"
fi
exit $bad
