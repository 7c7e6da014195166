/* SPDX-License-Identifier: MIT */
/*
 * The fixture and the helpers that several subject files of the vagx_uapi
 * kselftests use (the helpers shared with the other in-guest programs are
 * vagx_test.h's). vagx_uapi.c includes every vagx_uapi_*.c into one
 * translation unit: the kselftest harness keeps its list of tests in static
 * variables, so the tests of one program must be compiled together (as
 * i915 includes the files of its selftests folder). Each subject file
 * includes this header too, so that it reads, and is indexed, on its own.
 */
#ifndef VAGX_UAPI_H
#define VAGX_UAPI_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <sys/wait.h>
#include <linux/sync_file.h>

#include "drm.h"
#include "drm_fourcc.h"
#include "vagx_drm.h"
#include "vagx_hw.h"
#include "vagx_isa.h"
#include "kselftest_harness.h"
#include "vagx_test.h"

FIXTURE(vagx) {
	int fd;
	struct drm_vagx_gpu_info info;
};

FIXTURE_SETUP(vagx)
{
	self->fd = open_vagx();
	if (self->fd < 0)
		SKIP(return, "no vagx render node");
	ASSERT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_GPU_INFO, &self->info,
			   sizeof(self->info)));
}

FIXTURE_TEARDOWN(vagx)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Skips a test that needs the device to run compute jobs. */
#define REQUIRE_GPU() do {						\
	if (!hw_runs_jobs(self->fd))					\
		SKIP(return, "the device does not execute jobs");	\
	if (!(self->info.queue_types & (1u << DRM_VAGX_QUEUE_TYPE_COMPUTE))) \
		SKIP(return, "no compute queues");			\
} while (0)

/*
 * One copy command (a fill with DRM_VAGX_CMD_FILL in @flags) on copy queue
 * @q, signalling binary syncobj @out unless it is 0; SUBMIT's result.
 */
static int copy_submit(int fd, uint32_t q, uint32_t flags, uint64_t src,
		       uint64_t dst, uint64_t size, uint32_t pattern,
		       uint32_t out)
{
	struct drm_vagx_sync sy = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				    .flags = DRM_VAGX_SYNC_SIGNAL,
				    .handle = out };
	struct drm_vagx_cmd c = {
		.type = DRM_VAGX_QUEUE_TYPE_COPY, .flags = flags,
		.copy = { .src_va = src, .dst_va = dst, .size = size,
			  .pattern = pattern },
	};

	if (out)
		c.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &sy);
	return submit(fd, q, &c, 1, NULL);
}

/* The guest's RAM (MemTotal), which the kernel's BO budgets follow. */
static uint64_t mem_total_bytes(void)
{
	char line[128];
	uint64_t kib = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", (unsigned long long *)&kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib * 1024;
}

/* A busy-wait of @n iterations, to stagger racing threads. */
static void spin(int n)
{
	for (volatile int k = 0; k < n; k++)
		;
}

#endif /* VAGX_UAPI_H */
