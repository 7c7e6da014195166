# vagx: the front door.  `make demo` and `make check` are the two commands a
# user needs; every other target is a step behind them, reachable on its own.
# See README.md and docs/building.md.

SHELL := /bin/bash
TOP := $(CURDIR)
B := $(TOP)/build
# The pyenv python on these machines cannot see Debian's meson/mako modules.
export PATH := /usr/bin:$(PATH)
export CCACHE_DIR ?= $(HOME)/.cache/vagx/ccache
# Paths below the tree are hashed relative to it, so a clone elsewhere (CI)
# hits the cache of this one; debug info then names relative paths.
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := 1
export VAGX_CACHE ?= $(HOME)/.cache/vagx

KREL = $(shell $(TOP)/scripts/kver.sh 2>/dev/null)
QEMU_BIN := $(B)/qemu/qemu-system-x86_64
HOST_BUILD := $(B)/host

.PHONY: all deps host qemu mesa kernel check check-fresh fuzz plan demo run host-run bench piglit shader-stats clean distclean help
.DEFAULT_GOAL := help

help:
	@echo "vagx: make demo | make check"
	@echo "  steps: deps host qemu kernel mesa | run [CMD='...'] | host-run CMD='...' | bench | shader-stats [BASE=report] | fuzz [FUZZ_SECONDS=N SEED=S ONLY=core|qtest|guest] | check-fresh [FULL=1] | clean | distclean"

all: host qemu kernel mesa

# --- dependencies -----------------------------------------------------------
# One stamp per build tree: a fresh clone (or `make clean`) asks apt again,
# which costs a second when nothing is missing.
deps: $(B)/.deps-stamp
$(B)/.deps-stamp: scripts/deps.sh scripts/packages.txt
	@mkdir -p $(B) $(CCACHE_DIR)
	@scripts/deps.sh
	@ccache -M 10G >/dev/null 2>&1 || true
	@touch $@

# --- host-side C: generated headers, layout, renderer core, tools, tests -----
host: deps
	@if [ ! -f $(HOST_BUILD)/build.ninja ]; then \
		echo "host: meson setup $(HOST_BUILD)"; \
		meson setup $(HOST_BUILD) $(TOP) >$(B)/host-configure.log 2>&1 || \
		{ tail -20 $(B)/host-configure.log; echo "host: meson setup failed (log: build/host-configure.log)"; exit 1; }; \
	fi
	@scripts/ninja-progress host $(B)/host-build.log -C $(HOST_BUILD)

# --- QEMU 10.0.2 with the vagx device ----------------------------------------
qemu: deps
	@qemu-device/prepare-qemu.sh
	@echo "qemu: building qemu-system-x86_64 $(if $(wildcard $(QEMU_BIN)),(incremental),(first build 10-20 min on 2 cores))"
	@scripts/ninja-progress qemu $(B)/qemu-build.log -C $(B)/qemu qemu-system-x86_64 \
		$(if $(wildcard qemu-device/qemu/tests/qtest/vagx-test.c),tests/qtest/vagx-test)

# --- Mesa 25.0.7 --------------------------------------------------------------
mesa: deps
	@userspace/prepare-mesa.sh
	@echo "mesa: building and installing into build/mesa-install $(if $(wildcard $(B)/mesa/build.ninja),(incremental),(first build 15-35 min on 2 cores))"
	@scripts/ninja-progress mesa $(B)/mesa-build.log -C $(B)/mesa install

# --- vagx.ko ------------------------------------------------------------------
# Kbuild of 6.12 builds external modules in their source directory, so the
# module's sources are mirrored as symlinks into build/kernel and built there.
kernel: deps
	@if ls kernel/*.c >/dev/null 2>&1; then \
		krel=$(KREL); [ -n "$$krel" ] || { echo "kernel: no 6.12 kernel with headers; run make deps"; exit 1; }; \
		mkdir -p $(B)/kernel; \
		for f in kernel/*; do ln -sfn $(TOP)/$$f $(B)/kernel/$$(basename $$f); done; \
		echo "kernel: building vagx.ko against $$krel"; \
		$(MAKE) -s -C /lib/modules/$$krel/build M=$(B)/kernel VAGX_TOP=$(TOP) W=1 modules || exit 1; \
		tests/uapi/build.sh; \
	else \
		echo "kernel: no module sources yet (kernel/*.c)"; \
	fi

# --- the two commands -----------------------------------------------------------
# plan comes first: one line saying what will be built and how long it takes.
plan:
	@scripts/plan.sh $(firstword $(filter check demo,$(MAKECMDGOALS)) all)

check: plan all
	@tests/run-all

# The demo's scripts read the generated contract (tests/guest/hw-id): host too.
demo: plan host qemu kernel mesa
	@tests/guest/demo

# The setup on a bare bookworm root (debootstrap, cached): not part of check.
check-fresh:
	@scripts/check-fresh.sh

# --- running things -------------------------------------------------------------
# CMD runs in the guest with our Mesa (userspace/vagx-env settings).  Its
# text is passed unexpanded and single-quoted, so shell syntax in it (';',
# '|', quotes, $?) reaches the guest's shell untouched.
# DISPLAY_OPTS: QEMU's -display for the guest's screen, e.g. vnc=127.0.0.1:1.
run: qemu kernel mesa
	@export VAGX_DISPLAY='$(subst ','\'',$(DISPLAY_OPTS))'; \
	if [ -n '$(subst ','\'',$(value CMD))' ]; then \
		tests/guest/vagx-guest -- 'eval "$$(userspace/vagx-env --exports)";' \
			'$(subst ','\'',$(value CMD))'; \
	else tests/guest/vagx-guest --shell; fi

host-run: mesa
	@[ -n "$(CMD)" ] || { echo "usage: make host-run CMD='program args'"; exit 2; }
	@userspace/vagx-env $(CMD)

bench: all
	@tests/bench/run-all

# The fuzzers for as long as asked (make check runs each briefly): see tests/fuzz/run.
fuzz: all
	@tests/fuzz/run

# piglit on the host: vagx (drm-shim) vs llvmpipe over tests/piglit/full.groups
# (long: tens of minutes on 2 cores); make check runs the fast subset
piglit: mesa
	@tests/piglit/run full

# shader-db style statistics of the compiler over a fixed corpus (glmark2,
# kmscube, tests/shader-stats/piglit.list), compared with BASE or with the
# previous report: see tests/shader-stats/run
shader-stats: mesa
	@tests/shader-stats/run $(if $(BASE),--base $(BASE))

clean:
	rm -rf $(B)/host $(B)/kernel $(B)/guest $(B)/.deps-stamp

distclean:
	rm -rf $(B)
