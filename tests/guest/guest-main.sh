#!/bin/sh
# Runs inside the guest, in the host's root file system (see init): loads
# vagx.ko, runs the command or a shell, and hands the exit status and the
# kernel log back to the host through the transfer share.
xfer=/run/vagx-xfer
set -a  # the command sees VAGX_TOP and friends
. $xfer/env
set +a
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
hostname vagx-guest 2>/dev/null

if [ "$VAGX_MODE" = shell ]; then out=/dev/ttyS0; else out=/dev/ttyS1; fi
stty -F $out raw -echo 2>/dev/null
[ "$VAGX_MODE" = shell ] && stty -F $out sane 2>/dev/null

status=0
if [ -n "$VAGX_KO" ] && [ -f "$VAGX_KO" ]; then
	# vagx.ko is out of tree: modprobe cannot find it, but its dependencies
	# are ordinary modules of this kernel.
	for dep in $(modinfo -F depends "$VAGX_KO" | tr ',' ' '); do
		modprobe "$dep" || echo "guest: modprobe $dep failed" >$out
	done
	# shellcheck disable=SC2086 # VAGX_KO_PARAMS: one word per parameter
	if ! insmod "$VAGX_KO" ${VAGX_KO_PARAMS:-} >$out 2>&1; then
		echo "guest: insmod $VAGX_KO failed; see the kernel log below" >$out
		dmesg | tail -20 >$out
		status=125
	fi
fi

if [ $status = 0 ]; then
	cd "$VAGX_CWD" 2>/dev/null || cd /
	if [ "$VAGX_MODE" = shell ]; then
		echo "vagx guest shell: the host's root is read-only under a tmpfs overlay;" >$out
		echo "$VAGX_TOP is the source tree. Exit the shell to power off." >$out
		setsid -c /bin/bash -l <$out >$out 2>&1
		status=$?
	else
		/bin/sh $xfer/cmd <$out >$out 2>&1
		status=$?
	fi
fi

dmesg >$xfer/dmesg 2>/dev/null
echo $status >$xfer/status
sync
umount $xfer 2>/dev/null
echo o >/proc/sysrq-trigger
sleep 10
