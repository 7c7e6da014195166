// SPDX-License-Identifier: MIT
/*
 * vagx_uapi kselftests: what the device and a file report: DRM_IOCTL_VERSION, every
 * DEV_QUERY and its size bound, fdinfo and its per-engine busy time.
 * Part of vagx_uapi (vagx_uapi.c includes it; see vagx_uapi.h).
 */
#include "vagx_uapi.h"

TEST_F(vagx, version)
{
	struct drm_version v = { 0 };
	char name[16] = { 0 };

	v.name = name;
	v.name_len = sizeof(name) - 1;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VERSION, &v));
	EXPECT_STREQ("vagx", name);
	EXPECT_EQ(1, v.version_major);
	EXPECT_EQ(2, v.version_minor);
}

TEST_F(vagx, query_sizes)
{
	struct drm_vagx_dev_query q = { .type = DRM_VAGX_DEV_QUERY_GPU_INFO };

	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_DEV_QUERY, &q));
	EXPECT_EQ(sizeof(struct drm_vagx_gpu_info), q.size);
	q.type = DRM_VAGX_DEV_QUERY_TIMESTAMP;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_DEV_QUERY, &q));
	EXPECT_EQ(sizeof(struct drm_vagx_timestamp), q.size);
	q.type = DRM_VAGX_DEV_QUERY_PRIORITIES;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_DEV_QUERY, &q));
	EXPECT_EQ(sizeof(struct drm_vagx_priorities), q.size);
	q.type = 3;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_DEV_QUERY, &q));
}

TEST_F(vagx, query_gpu_info)
{
	struct drm_vagx_gpu_info *i = &self->info;
	uint8_t big[sizeof(*i) + 64];

	EXPECT_EQ(0x58474156u, i->gpu_id);
	/* The VERSION register: the contract this tree's device implements. */
	EXPECT_EQ(VAGX_VERSION_MAJOR(VAGX_HW_VERSION_MAJOR) |
		  VAGX_VERSION_MINOR(VAGX_HW_VERSION_MINOR), i->gpu_revision);
	EXPECT_EQ(48, i->va_bits);
	EXPECT_NE(0, i->va_start);
	EXPECT_EQ(0, i->va_start % PAGE);
	EXPECT_LT(i->va_start, i->va_end);
	EXPECT_EQ(PAGE, i->page_sizes & -i->page_sizes);
	EXPECT_EQ(PAGE, i->sparse_granularity);
	EXPECT_NE(0, i->timestamp_frequency_hz);
	EXPECT_TRUE(i->queue_types & (1u << DRM_VAGX_QUEUE_TYPE_RENDER));
	/* 1.1: copy queues on every device. */
	EXPECT_TRUE(i->queue_types & (1u << DRM_VAGX_QUEUE_TYPE_COPY));
	EXPECT_NE(0, i->max_bind_ops);
	EXPECT_NE(0, i->max_syncs_per_array);
	EXPECT_NE(0, i->max_cmds_per_submit);
	EXPECT_EQ(32, i->tile_width);
	EXPECT_EQ(4096, i->max_label_size);
	EXPECT_TRUE(i->features & DRM_VAGX_FEATURE_ASYNC_BIND);
	/* 1.2 on the vagx QEMU device (contract 1.2, FEATURES.STREAM_OUT). */
	EXPECT_TRUE(i->features & DRM_VAGX_FEATURE_STREAM_OUT);
	/* Larger buffer: tail zero-filled. */
	memset(big, 0xaa, sizeof(big));
	ASSERT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_GPU_INFO, big,
			   sizeof(big)));
	for (size_t k = sizeof(*i); k < sizeof(big); k++)
		ASSERT_EQ(0, big[k]);
	/* Too small, bad pointer. */
	EXPECT_EQ(-EINVAL, query(self->fd, DRM_VAGX_DEV_QUERY_GPU_INFO, big, 8));
	EXPECT_EQ(-EFAULT, query(self->fd, DRM_VAGX_DEV_QUERY_GPU_INFO,
				 (void *)8, sizeof(*i)));
}

TEST_F(vagx, query_timestamp)
{
	struct drm_vagx_timestamp ts = { .clockid = CLOCK_MONOTONIC };
	struct drm_vagx_timestamp ts2 = { .clockid = CLOCK_MONOTONIC };
	uint8_t big[sizeof(ts) + 8] = { 0 };

	ASSERT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, &ts,
			   sizeof(ts)));
	EXPECT_NE(0, ts.cpu_timestamp);
	EXPECT_LT(ts.cpu_delta, 100000000ull);
	EXPECT_EQ(64, ts.timestamp_bits);
	usleep(1000);
	ASSERT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, &ts2,
			   sizeof(ts2)));
	EXPECT_GT(ts2.cpu_timestamp, ts.cpu_timestamp);
	EXPECT_GE(ts2.gpu_timestamp, ts.gpu_timestamp);

	for (int c = 0; c < 12; c++) {
		struct drm_vagx_timestamp t = { .clockid = c };
		int ok = c == CLOCK_MONOTONIC || c == CLOCK_MONOTONIC_RAW ||
			 c == CLOCK_REALTIME || c == CLOCK_BOOTTIME ||
			 c == CLOCK_TAI;

		EXPECT_EQ(ok ? 0 : -EINVAL,
			  query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, &t,
				sizeof(t)));
	}
	ts.clockid = -1;
	EXPECT_EQ(-EINVAL, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, &ts,
				 sizeof(ts)));
	/* Output fields as input must be zero. */
	ts.clockid = CLOCK_MONOTONIC;
	ts.cpu_delta = 1;
	EXPECT_EQ(-EINVAL, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, &ts,
				 sizeof(ts)));
	/* Unknown input bytes must be zero. */
	((struct drm_vagx_timestamp *)big)->clockid = CLOCK_MONOTONIC;
	EXPECT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, big,
			   sizeof(big)));
	memset(big, 0, sizeof(big));
	big[sizeof(ts) + 1] = 1;
	EXPECT_EQ(-E2BIG, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, big,
				sizeof(big)));
}

TEST_F(vagx, query_priorities)
{
	struct drm_vagx_priorities p = { .pad = 0xdead };

	ASSERT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_PRIORITIES, &p,
			   sizeof(p)));
	EXPECT_EQ(3u, p.allowed_mask & 3u);
	EXPECT_EQ(0, p.pad);
	if (geteuid() == 0)
		EXPECT_TRUE(p.allowed_mask & (1u << DRM_VAGX_PRIORITY_HIGH));
}

/*
 * DEV_QUERY sizes are bounded (4096). Found by vagx_fuzz (seed 2): a
 * TIMESTAMP query with a size near 4 GiB kept one ioctl busy for over
 * 10 s checking user memory for zeros, and GPU_INFO zero-fills @size.
 */
TEST_F(vagx, dev_query_size_limit)
{
	const size_t big = 2 << 20;
	struct drm_vagx_timestamp *ts;
	uint8_t *buf;

	buf = mmap(NULL, big, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ts = (void *)buf;
	ts->clockid = CLOCK_MONOTONIC;
	EXPECT_EQ(-E2BIG, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, buf,
				big));
	EXPECT_EQ(-E2BIG, query(self->fd, DRM_VAGX_DEV_QUERY_GPU_INFO, buf,
				big));
	EXPECT_EQ(-E2BIG, query(self->fd, DRM_VAGX_DEV_QUERY_GPU_INFO, buf,
				4097));
	/* Up to 4096 the tail is zero-filled as before. */
	memset(buf, 0xff, 4096);
	ASSERT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_GPU_INFO, buf, 4096));
	EXPECT_EQ(0, buf[4095]);
	memset(buf, 0, 4096);
	ts->clockid = CLOCK_MONOTONIC;
	EXPECT_EQ(0, query(self->fd, DRM_VAGX_DEV_QUERY_TIMESTAMP, buf, 4096));
	munmap(buf, big);
}

TEST_F(vagx, fdinfo)
{
	char path[64], buf[4096];
	uint32_t h;
	int f;
	ssize_t n;

	ASSERT_EQ(0, bo_create(self->fd, 1 << 20, 0, 0, &h));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->fd);
	f = open(path, O_RDONLY);
	ASSERT_GE(f, 0);
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	ASSERT_GT(n, 0);
	buf[n] = 0;
	EXPECT_NE(NULL, strstr(buf, "drm-driver:\tvagx"));
	EXPECT_NE(NULL, strstr(buf, "drm-total-memory:"));
}

/* Value of "key:\t<n>" in /proc/self/fdinfo/<fd>, -1 if absent. */
static long long fdinfo_value(int fd, const char *key)
{
	char path[64], buf[8192], pat[64], *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	snprintf(pat, sizeof(pat), "\n%s:\t", key);
	p = strstr(buf, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* One thread counts to @iters in a loop, then stores the count at @out_va. */
static uint64_t gpu_spin_job(struct gpu *g, unsigned int slot,
			     uint64_t out_va, uint32_t iters)
{
	const struct vagx_instr p[] = {
		i_imad(0, 0, 0, 0),
		i_op(VAGX_OP_LOOP),
		i_imad(0, 0, 1, 1),
		{ .op = VAGX_OP_ICMP, .dst = 1, .x = 1, .mod = VAGX_ICOND_UGE,
		  .src = { R(0), IMM(0) }, .imm = { iters } },
		{ .op = VAGX_OP_BREAK, .mod = 1, .src = { R(1) } },
		i_op(VAGX_OP_ENDLOOP),
		i_imad(2, 0, 0, 0),
		i_st(0, 2, 0),
		i_op(VAGX_OP_END),
	};
	uint64_t uni[] = { out_va };

	return gpu_job(g, slot, p, ARRAY_SIZE(p), uni, 1, 1, 1);
}

/*
 * fdinfo drm-engine-<type>: zero on a fresh file; a compute job of a known
 * wall-clock length adds most of it to drm-engine-compute (never more than
 * the time from SUBMIT to the fence) and nothing to the other engines; a
 * copy adds to drm-engine-copy. Another file's work is not charged here.
 */
TEST_F(vagx, fdinfo_engines)
{
	long long c0, c1, r0, k0, k1, o0;
	uint32_t q, qc, done, *out;
	double t0, wall;
	struct gpu g;
	int fd2;

	REQUIRE_GPU();
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-engine-render"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-engine-compute"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-engine-copy"));
	if (self->info.num_hw_queues > 1)
		EXPECT_EQ(self->info.num_hw_queues,
			  fdinfo_value(self->fd, "drm-engine-capacity-compute"));
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	out = gpu_buf(&g, GPU_OUT_VA, 4 * PAGE, 0, NULL);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COPY,
				  DRM_VAGX_PRIORITY_MEDIUM, &qc));
	done = syncobj_create(self->fd);

	/* A spin job long enough (>= 100 ms) to dwarf the IRQ latency. */
	for (uint32_t iters = 1u << 18;; iters <<= 2) {
		c0 = fdinfo_value(self->fd, "drm-engine-compute");
		t0 = mono_s();
		ASSERT_EQ(0, gpu_submit(self->fd, q,
					gpu_spin_job(&g, 0, GPU_OUT_VA, iters),
					done));
		ASSERT_EQ(0, syncobj_wait_ms(self->fd, done, 20000));
		wall = mono_s() - t0;
		c1 = fdinfo_value(self->fd, "drm-engine-compute");
		ASSERT_EQ(iters, out[0]);
		if (wall >= 0.1 || iters >= 1u << 28)
			break;
	}
	TH_LOG("job of %.1f ms wall: drm-engine-compute +%.1f ms", wall * 1e3,
	       (c1 - c0) / 1e6);
	EXPECT_GT(c1 - c0, (long long)(wall * 0.5e9));
	EXPECT_LE(c1 - c0, (long long)(wall * 1e9) + 1000000);
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-engine-render"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-engine-copy"));

	/* Another file's job does not count here. */
	fd2 = open_vagx();
	ASSERT_GE(fd2, 0);
	{
		struct gpu g2;
		uint32_t q2, d2 = syncobj_create(fd2);

		ASSERT_EQ(0, gpu_init(fd2, &g2));
		ASSERT_NE(NULL, gpu_buf(&g2, GPU_OUT_VA, PAGE, 0, NULL));
		ASSERT_EQ(0, queue_create(fd2, g2.vm,
					  DRM_VAGX_QUEUE_TYPE_COMPUTE,
					  DRM_VAGX_PRIORITY_MEDIUM, &q2));
		ASSERT_EQ(0, gpu_submit(fd2, q2,
					gpu_spin_job(&g2, 0, GPU_OUT_VA, 1u << 16),
					d2));
		ASSERT_EQ(0, syncobj_wait_ms(fd2, d2, 20000));
		EXPECT_GT(fdinfo_value(fd2, "drm-engine-compute"), 0);
	}
	EXPECT_EQ(c1, fdinfo_value(self->fd, "drm-engine-compute"));
	close(fd2);

	/* A copy is charged to the copy engine. */
	k0 = fdinfo_value(self->fd, "drm-engine-copy");
	r0 = fdinfo_value(self->fd, "drm-engine-render");
	o0 = fdinfo_value(self->fd, "drm-engine-compute");
	ASSERT_EQ(0, copy_submit(self->fd, qc, DRM_VAGX_CMD_FILL, 0, GPU_OUT_VA,
				 4 * PAGE, 7, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(7, out[4 * PAGE / 4 - 1]);
	k1 = fdinfo_value(self->fd, "drm-engine-copy");
	EXPECT_GT(k1, k0);
	EXPECT_EQ(r0, fdinfo_value(self->fd, "drm-engine-render"));
	EXPECT_EQ(o0, fdinfo_value(self->fd, "drm-engine-compute"));
}
