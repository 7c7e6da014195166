#!/usr/bin/env bash
# plan.sh GOAL: one line saying what `make GOAL` is about to do and roughly how
# long it takes, so a first run on a new machine does not sit silent for
# minutes.  Only looks at what is already built; each step then prints its own
# progress.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/build
goal=${1:-all}
todo=() mins=0
add() { todo+=("$1"); mins=$((mins + $2)); }
if [ -f "$B/.deps-stamp" ]; then todo+=("deps (checked)"); else add "deps (apt: up to 5 min on a bare machine)" 5; fi
if [ -f "$B/host/build.ninja" ]; then todo+=("host (incremental)"); else add "host (~1 min)" 1; fi
if [ -x "$B/qemu/qemu-system-x86_64" ]; then todo+=("QEMU (incremental)"); else add "QEMU 10.0.2 (10-20 min first time; ccache makes rebuilds quick)" 15; fi
todo+=("vagx.ko")
if [ -f "$B/mesa/build.ninja" ]; then todo+=("Mesa (incremental)"); else add "Mesa 25.0.7 (15-35 min first time)" 20; fi
case "$goal" in
check) todo+=("then every test suite (6-10 min)"); mins=$((mins + 10)) ;;
demo) todo+=("then the guest demo (a few minutes under TCG)"); mins=$((mins + 5)) ;;
esac
line=$(printf '%s, ' "${todo[@]}")
echo "plan: make $goal: ${line%, }; about $mins min in all"
