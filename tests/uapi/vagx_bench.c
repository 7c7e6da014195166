// SPDX-License-Identifier: MIT
/*
 * vagx kernel benchmark, run inside the guest (tests/bench/run-all boots
 * one):  build/uapi-tests/vagx_bench [RUNS]
 *
 * Latency of the driver's paths, as median and p90 over RUNS (default
 * 300) runs each, next to floors measured in the same run on the same
 * fd:
 *   floor  DRM_IOCTL_VERSION round trip (ioctl dispatch);
 *   floor  syncobj reset + signal + wait, no job (the syncobj machinery);
 *   submit+wait of a no-op command (desc_va 0: drm_sched only, no device);
 *   submit+wait of an empty compute job (1 thread running END: ring,
 *          doorbell, device, interrupt, fence);
 *   synchronous VM_BIND MAP / UNMAP of 4 KiB and MAP of 2 MiB;
 *   throughput of empty compute jobs with N in flight (timeline points).
 * The device is emulated (TCG), so absolute times say little; the ratios
 * to the floors do.
 */
#define _GNU_SOURCE
#include "vagx_test.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of @n sorted values. */
static double pct(const double *v, int n, int p)
{
	int k = (p * n + 99) / 100;

	return v[k < 1 ? 0 : k - 1];
}

static double floor_us;

static void report(const char *what, double *v, int n)
{
	double med, p90;

	qsort(v, n, sizeof(*v), cmp_double);
	med = pct(v, n, 50);
	p90 = pct(v, n, 90);
	printf("%-44s %10.1f %10.1f %8.1fx\n", what, med, p90,
	       floor_us > 0 ? med / floor_us : 1.0);
}

/* One compute command that signals @h (binary, or timeline @point). */
static int submit_signal(int fd, uint32_t q, uint64_t desc, uint32_t h,
			 uint64_t point)
{
	struct drm_vagx_sync sy = {
		.type = point ? DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ :
				DRM_VAGX_SYNC_TYPE_SYNCOBJ,
		.flags = DRM_VAGX_SYNC_SIGNAL, .handle = h,
		.timeline_value = point,
	};
	struct drm_vagx_cmd c = { .type = DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  .desc_va = desc,
				  .syncs = DRM_VAGX_OBJ_ARRAY(1, &sy) };

	return submit(fd, q, &c, 1, NULL);
}

static int fail(const char *what, int ret)
{
	fprintf(stderr, "vagx_bench: %s: %s\n", what, strerror(-ret));
	return 1;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 300;
	static const int inflight[] = { 1, 4, 16, 64 };
	const int jobs_per_trial = 128, trials = 9;
	struct drm_vagx_gpu_info info;
	uint32_t q, h, tl, bo4k, bo2m;
	double *v, t0;
	uint64_t empty;
	struct gpu g;
	int fd, i, ret;

	if (runs < 10)
		runs = 10;
	v = calloc(runs > trials ? runs : trials, sizeof(*v));
	fd = open_vagx();
	if (fd < 0 || !v) {
		fprintf(stderr, "vagx_bench: no vagx render node\n");
		return 1;
	}
	ret = query(fd, DRM_VAGX_DEV_QUERY_GPU_INFO, &info, sizeof(info));
	if (ret)
		return fail("DEV_QUERY", ret);
	if (!hw_runs_jobs(fd) ||
	    !(info.queue_types & (1u << DRM_VAGX_QUEUE_TYPE_COMPUTE))) {
		fprintf(stderr, "vagx_bench: the device does not run compute jobs\n");
		return 1;
	}
	ret = gpu_init(fd, &g);
	if (ret)
		return fail("VM/BO setup", ret);
	ret = queue_create(fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
			   DRM_VAGX_PRIORITY_MEDIUM, &q);
	if (ret)
		return fail("QUEUE_CREATE", ret);
	{
		const struct vagx_instr end[] = { i_op(VAGX_OP_END) };

		empty = gpu_job(&g, 0, end, 1, NULL, 0, 1, 1);
	}
	h = syncobj_create(fd);
	tl = syncobj_create(fd);
	if (!empty || !h || !tl)
		return fail("setup", -EINVAL);

	printf("vagx_bench: %d runs each; times in us\n", runs);
	printf("%-44s %10s %10s %9s\n", "operation", "median", "p90",
	       "x floor");

	/* Floors. */
	for (i = 0; i < runs; i++) {
		struct drm_version ver = { 0 };

		t0 = now_us();
		ret = vioctl(fd, DRM_IOCTL_VERSION, &ver);
		v[i] = now_us() - t0;
		if (ret)
			return fail("VERSION", ret);
	}
	report("floor: DRM_IOCTL_VERSION round trip", v, runs);
	floor_us = pct(v, runs, 50);
	for (i = 0; i < runs; i++) {
		struct drm_syncobj_array a = { .handles = (uintptr_t)&h,
					       .count_handles = 1 };

		t0 = now_us();
		ret = vioctl(fd, DRM_IOCTL_SYNCOBJ_RESET, &a);
		if (!ret)
			ret = vioctl(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &a);
		if (!ret)
			ret = syncobj_wait_ms(fd, h, 1000);
		v[i] = now_us() - t0;
		if (ret)
			return fail("syncobj floor", ret);
	}
	report("floor: syncobj reset+signal+wait, no job", v, runs);

	/* Submit -> fence signalled. */
	for (i = 0; i < runs; i++) {
		t0 = now_us();
		ret = submit_signal(fd, q, 0, h, 0);
		if (!ret)
			ret = syncobj_wait_ms(fd, h, 10000);
		v[i] = now_us() - t0;
		if (ret)
			return fail("no-op submit", ret);
	}
	report("SUBMIT no-op command + wait (no device)", v, runs);
	for (i = 0; i < runs; i++) {
		t0 = now_us();
		ret = submit_signal(fd, q, empty, h, 0);
		if (!ret)
			ret = syncobj_wait_ms(fd, h, 10000);
		v[i] = now_us() - t0;
		if (ret)
			return fail("empty job", ret);
	}
	if (fence_status(fd, h) != 1)
		return fail("empty job fence", -EIO);
	report("SUBMIT empty compute job + wait", v, runs);

	/* Synchronous VM_BIND. */
	ret = bo_create(fd, PAGE, 0, g.vm, &bo4k);
	if (!ret)
		ret = bo_create(fd, 2ull << 20, 0, g.vm, &bo2m);
	if (ret)
		return fail("BO_CREATE", ret);
	for (i = 0; i < runs; i++) {
		double t1;

		t0 = now_us();
		ret = bind1(fd, g.vm, DRM_VAGX_BIND_OP_MAP, bo4k, 0,
			    GPU_OUT_VA, PAGE);
		t1 = now_us();
		if (ret)
			return fail("VM_BIND MAP", ret);
		v[i] = t1 - t0;
		ret = bind1(fd, g.vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, GPU_OUT_VA,
			    PAGE);
		if (ret)
			return fail("VM_BIND UNMAP", ret);
	}
	report("VM_BIND sync MAP 4 KiB", v, runs);
	for (i = 0; i < runs; i++) {
		ret = bind1(fd, g.vm, DRM_VAGX_BIND_OP_MAP, bo4k, 0,
			    GPU_OUT_VA, PAGE);
		if (ret)
			return fail("VM_BIND MAP", ret);
		t0 = now_us();
		ret = bind1(fd, g.vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, GPU_OUT_VA,
			    PAGE);
		v[i] = now_us() - t0;
		if (ret)
			return fail("VM_BIND UNMAP", ret);
	}
	report("VM_BIND sync UNMAP 4 KiB", v, runs);
	for (i = 0; i < runs; i++) {
		t0 = now_us();
		ret = bind1(fd, g.vm, DRM_VAGX_BIND_OP_MAP, bo2m, 0,
			    GPU_OUT_VA, 2ull << 20);
		v[i] = now_us() - t0;
		if (ret)
			return fail("VM_BIND MAP 2M", ret);
		ret = bind1(fd, g.vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, GPU_OUT_VA,
			    2ull << 20);
		if (ret)
			return fail("VM_BIND UNMAP 2M", ret);
	}
	report("VM_BIND sync MAP 2 MiB (512 PTEs)", v, runs);

	/* Throughput: N jobs in flight, timeline point per job. */
	printf("\n%-44s %10s %10s %10s\n", "empty compute jobs in flight",
	       "jobs/s", "us/job", "us/job p90");
	{
		uint64_t point = 0;
		unsigned int k;

		for (k = 0; k < ARRAY_SIZE(inflight); k++) {
			int n = inflight[k], t;
			char what[64];

			for (t = 0; t < trials; t++) {
				uint64_t first = point;

				t0 = now_us();
				for (i = 0; i < jobs_per_trial; i++) {
					if (point - first >= (uint64_t)n) {
						ret = syncobj_wait_sec(fd, tl,
								    point + 1 - n, 30);
						if (ret)
							return fail("timeline wait", ret);
					}
					ret = submit_signal(fd, q, empty, tl,
							    ++point);
					if (ret)
						return fail("throughput submit", ret);
				}
				ret = syncobj_wait_sec(fd, tl, point, 30);
				if (ret)
					return fail("timeline wait", ret);
				v[t] = (now_us() - t0) / jobs_per_trial;
			}
			qsort(v, trials, sizeof(*v), cmp_double);
			snprintf(what, sizeof(what), "N = %d (%d trials x %d jobs)",
				 n, trials, jobs_per_trial);
			printf("%-44s %10.0f %10.1f %10.1f\n", what,
			       1e6 / pct(v, trials, 50), pct(v, trials, 50),
			       pct(v, trials, 90));
		}
	}
	close(fd);
	return 0;
}
