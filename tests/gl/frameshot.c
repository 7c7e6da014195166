// SPDX-License-Identifier: MIT
/*
 * libvagx-frameshot.so: an LD_PRELOAD library that freezes a KMS program
 * (kmscube, glmark2-es2-drm) with a known frame on screen, so that a
 * screendump of it can be taken and compared.
 *
 *   VAGX_FRAMESHOT_FLIPS=K1,K2,...  raise SIGSTOP on ourselves when the
 *                                   program enters its K-th drmModePageFlip()
 *                                   call (1-based), for each K listed.
 *   SIGUSR1                         stop at the entry of the second
 *                                   drmModePageFlip() after the signal:
 *                                   then the frame flipped by the first,
 *                                   drawn after the signal, is on screen
 *                                   (glmark2: a frame of the scene that had
 *                                   started when the signal was sent).
 *
 * Why drmModePageFlip() and not eglSwapBuffers(): glmark2 reaches EGL
 * through dlsym() (glad), which an LD_PRELOAD cannot interpose, while both
 * programs call libdrm directly.  At the entry of a page flip, the previous
 * flip has completed in both programs (kmscube waits for every flip event;
 * glmark2 in its default "mailbox" mode only flips when none is pending), so
 * the screen shows a finished frame and nothing can change it while we are
 * stopped.  For kmscube (legacy loop, drm-legacy.c) flip K shows draw(K-1),
 * so at the entry of flip K+2 frame K is on screen.
 *
 * The stopped time must not count as running time: the programs compute
 * their FPS from clock_gettime(CLOCK_MONOTONIC).  We interpose
 * clock_gettime() and subtract the total stopped time from the monotonic
 * clocks, but only for calls made from the main executable -- libraries
 * (Mesa, libdrm) compute kernel timeouts from those clocks and must see the
 * real time.
 *
 * Every stop prints "vagx-frameshot: stopped at page flip K" on stderr and,
 * if VAGX_FRAMESHOT_STOPS names a file, appends the line "K" to it (what
 * tests/guest/frameshot watches, cheaper than scanning the program's output).
 * Errors (a malformed VAGX_FRAMESHOT_FLIPS, a symbol that cannot be found)
 * print "vagx-frameshot: ..." and exit with status 2.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_STOPS 64

static unsigned long stops[MAX_STOPS];
static unsigned int nstops;
static unsigned long flips;
/* Page flips to let pass before stopping, +1, after a SIGUSR1; 0: none. */
static volatile sig_atomic_t stop_countdown;
/* Nanoseconds spent stopped so far; only the flipping thread writes it. */
static volatile int64_t stopped_ns;
static uintptr_t exe_lo, exe_hi;

static int (*real_page_flip)(int, uint32_t, uint32_t, uint32_t, void *);
static int (*real_clock_gettime)(clockid_t, struct timespec *);

static void die(const char *msg)
{
	fprintf(stderr, "vagx-frameshot: %s\n", msg);
	_exit(2);
}

static const char *stops_file;

static int64_t real_ns(void)
{
	struct timespec ts;

	real_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The main executable is the first object dl_iterate_phdr() reports. */
static int find_exe(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo, hi;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		lo = info->dlpi_addr + ph->p_vaddr;
		hi = lo + ph->p_memsz;
		if (!exe_lo || lo < exe_lo)
			exe_lo = lo;
		if (hi > exe_hi)
			exe_hi = hi;
	}
	return 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	stop_countdown = 2;
}

__attribute__((constructor)) static void frameshot_init(void)
{
	const char *s = getenv("VAGX_FRAMESHOT_FLIPS");
	struct sigaction sa;

	real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
	if (!real_clock_gettime)
		die("cannot find clock_gettime");
	dl_iterate_phdr(find_exe, NULL);
	/*
	 * Line-buffered stdout: the output is watched while the program runs
	 * (glmark2's scene lines), and a program killed after its last shot
	 * must not lose what it printed (kmscube's GL_RENDERER).
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	stops_file = getenv("VAGX_FRAMESHOT_STOPS");

	while (s && *s) {
		char *end;
		unsigned long k = strtoul(s, &end, 10);

		if (end == s || k == 0 || (*end && *end != ',') || nstops == MAX_STOPS)
			die("VAGX_FRAMESHOT_FLIPS must be a list of at most 64 page flip numbers >= 1, e.g. 12,40");
		stops[nstops++] = k;
		s = *end ? end + 1 : end;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

static void stop_here(void)
{
	int64_t t0 = real_ns();

	fprintf(stderr, "vagx-frameshot: stopped at page flip %lu\n", flips);
	fflush(stderr);
	if (stops_file) {
		FILE *f = fopen(stops_file, "a");

		if (!f)
			die("cannot open VAGX_FRAMESHOT_STOPS");
		fprintf(f, "%lu\n", flips);
		fclose(f);
	}
	raise(SIGSTOP);
	stopped_ns += real_ns() - t0;
}

int drmModePageFlip(int fd, uint32_t crtc_id, uint32_t fb_id, uint32_t flags, void *data)
{
	int stop = 0;

	if (!real_page_flip) {
		real_page_flip = dlsym(RTLD_NEXT, "drmModePageFlip");
		if (!real_page_flip)
			die("cannot find drmModePageFlip");
	}
	flips++;
	for (unsigned int i = 0; i < nstops; i++)
		stop |= stops[i] == flips;
	if (stop_countdown && --stop_countdown == 0)
		stop = 1;
	if (stop)
		stop_here();
	return real_page_flip(fd, crtc_id, fb_id, flags, data);
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	uintptr_t caller = (uintptr_t)__builtin_return_address(0);
	int64_t ns, off = stopped_ns;
	int ret;

	if (!real_clock_gettime)
		real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
	ret = real_clock_gettime(clk, ts);
	if (ret || !off || caller < exe_lo || caller >= exe_hi)
		return ret;
	if (clk != CLOCK_MONOTONIC && clk != CLOCK_MONOTONIC_RAW &&
	    clk != CLOCK_MONOTONIC_COARSE && clk != CLOCK_BOOTTIME)
		return ret;
	ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec - off;
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return ret;
}
