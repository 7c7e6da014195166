// SPDX-License-Identifier: MIT
/*
 * vagx_uapi kselftests: recovery from hung jobs: timeouts, ring resets, closing or
 * destroying with work in flight, and the abort race.
 * Part of vagx_uapi (vagx_uapi.c includes it; see vagx_uapi.h).
 */
#include "vagx_uapi.h"

/* Sum of the "resets N" counters of debugfs vagx_rings. */
static int ring_resets(int fd)
{
	char *s = debugfs_read(fd, "vagx_rings");
	int n = 0;

	for (char *p = s; p && (p = strstr(p, "resets ")); p += 7)
		n += atoi(p + 7);
	free(s);
	return n;
}

/* Queues of one priority are spread round-robin over rings 1..N-1. */
static unsigned int same_ring_stride(const struct drm_vagx_gpu_info *info)
{
	return info->num_hw_queues > 1 ? info->num_hw_queues - 1 : 1;
}

/* n compute queues of medium priority on vm, in q[0..n-1] */
static int compute_queues(int fd, uint32_t vm, unsigned int n, uint32_t *q)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = queue_create(fd, vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				   DRM_VAGX_PRIORITY_MEDIUM, &q[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A second file: its GPU set-up in g2, an output page at GPU_OUT_VA in
 * *out and one compute queue in *q. The file, or -1.
 */
static int second_file(struct gpu *g2, uint32_t **out, uint32_t *q)
{
	int fd2 = open_vagx();

	if (fd2 < 0)
		return -1;
	*out = gpu_init(fd2, g2) ? NULL :
	       gpu_buf(g2, GPU_OUT_VA, PAGE, 0, NULL);
	if (!*out || queue_create(fd2, g2->vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, q)) {
		close(fd2);
		return -1;
	}
	return fd2;
}

/*
 * After a hang on the ring of a file's first queue, that ring serves a
 * fresh queue: `stride` more queues bring one onto it again, and its
 * pattern job (3, 3) over `groups` work-groups signals done and writes o3
 * (GPU_DST_VA). 0, or which step failed: -1 the queues, -2 the submit,
 * -3 the wait, -4 the fence status, -5 the pattern.
 */
static int fresh_queue_runs(int fd, struct gpu *g, unsigned int stride,
			    unsigned int groups, uint32_t done,
			    const uint32_t *o3)
{
	uint32_t q[8];

	if (stride < 1 || stride > 8 || compute_queues(fd, g->vm, stride, q))
		return -1;
	if (gpu_submit(fd, q[stride - 1],
		       gpu_pattern_job(g, 3, GPU_DST_VA, 3, 3, groups), done))
		return -2;
	if (syncobj_wait(fd, done, 0))
		return -3;
	if (fence_status(fd, done) != 1)
		return -4;
	return check_pattern(o3, groups * GPU_TG, 3, 3) ? 0 : -5;
}

/*
 * Timeout recovery: an endless shader is aborted after job_timeout_ms; its
 * fence ends -ETIMEDOUT, the rest of its queue -ECANCELED, jobs of other
 * queues queued behind it on the same ring still complete (uapi.md: other
 * queues unaffected); the queue is TIMEDOUT and dead; a new queue works.
 */
TEST_F(vagx, gpu_timeout)
{
	const unsigned int groups = 2, n = groups * GPU_TG;
	struct drm_vagx_queue_get_state st = { 0 };
	uint32_t q[8], fh, fc, fi, done, *o1, *o2, *o3;
	unsigned int stride;
	int resets;
	char old[32];
	struct timespec t0, t1;
	struct gpu g;
	double secs;

	REQUIRE_GPU();
	ASSERT_EQ(0, param_read("job_timeout_ms", old, sizeof(old)));
	ASSERT_EQ(0, param_write("job_timeout_ms", "500"));
	ASSERT_EQ(-EINVAL, param_write("job_timeout_ms", "1"));
	resets = ring_resets(self->fd);
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	o1 = gpu_buf(&g, GPU_OUT_VA, PAGE, 0, NULL);
	o2 = gpu_buf(&g, GPU_OUT2_VA, PAGE, 0, NULL);
	o3 = gpu_buf(&g, GPU_DST_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, o1);
	ASSERT_NE(NULL, o2);
	ASSERT_NE(NULL, o3);

	/* q[0] and q[stride] share a ring. */
	stride = same_ring_stride(&self->info);
	ASSERT_LT(stride, 8);
	ASSERT_EQ(0, compute_queues(self->fd, g.vm, stride + 1, q));
	fh = syncobj_create(self->fd);
	fc = syncobj_create(self->fd);
	fi = syncobj_create(self->fd);
	done = syncobj_create(self->fd);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, gpu_submit(self->fd, q[0], gpu_hang_job(&g, 0), fh));
	ASSERT_EQ(0, gpu_submit(self->fd, q[0],
				gpu_pattern_job(&g, 1, GPU_OUT_VA, 1, 5, groups),
				fc));
	ASSERT_EQ(0, gpu_submit(self->fd, q[stride],
				gpu_pattern_job(&g, 2, GPU_OUT2_VA, 2, 9, groups),
				fi));
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, fh, 20000));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("hang detected after %.2f s", secs);
	EXPECT_LT(secs, 4.5);	/* the TDR, not the 5 s device limit */
	EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, fh));
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, fc, 5000));
	EXPECT_EQ(-ECANCELED, fence_status(self->fd, fc));
	EXPECT_EQ(0, o1[0]);
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, fi, 5000));
	EXPECT_EQ(1, fence_status(self->fd, fi));
	EXPECT_TRUE(check_pattern(o2, n, 2, 9));

	st.queue_id = q[0];
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(DRM_VAGX_QUEUE_STATE_TIMEDOUT, st.state);
	st.queue_id = q[stride];
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(0, st.state);
	EXPECT_EQ(-ECANCELED, gpu_submit(self->fd, q[0], 0, 0));

	/* A fresh queue (on the guilty ring again) works. */
	ASSERT_EQ(0, fresh_queue_runs(self->fd, &g, stride, groups, done, o3));
	/* And the innocent queue too. */
	memset(o2, 0, PAGE);
	ASSERT_EQ(0, gpu_submit(self->fd, q[stride],
				gpu_pattern_job(&g, 2, GPU_OUT2_VA, 2, 9, groups),
				done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_TRUE(check_pattern(o2, n, 2, 9));
	/* Q_ABORT sufficed: no ring was reset. */
	EXPECT_EQ(resets, ring_resets(self->fd));
	param_write("job_timeout_ms", old);
}

/*
 * Closing a file with an endless job in flight and more queued: the jobs
 * are cancelled (the running one aborted), the VM goes away, and the ring
 * keeps serving others without waiting for a timeout.
 */
TEST_F(vagx, gpu_close_in_flight)
{
	const unsigned int groups = 2, n = groups * GPU_TG;
	uint32_t q, qs[8], f, done, *out, *o2;
	struct timespec t0, t1;
	struct gpu g, g2;
	unsigned int stride, i;
	double secs;
	int fd2;

	REQUIRE_GPU();
	stride = same_ring_stride(&self->info);
	fd2 = second_file(&g2, &o2, &q);
	ASSERT_GE(fd2, 0);
	f = syncobj_create(fd2);
	ASSERT_EQ(0, gpu_submit(fd2, q, gpu_hang_job(&g2, 0), f));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, gpu_submit(fd2, q,
					gpu_pattern_job(&g2, 1, GPU_OUT_VA, 1,
							i, groups), 0));
	usleep(100000);		/* let it start */

	/* A job of this file, on the same ring, queued behind the hang. */
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	out = gpu_buf(&g, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, compute_queues(self->fd, g.vm, stride, qs));
	done = syncobj_create(self->fd);
	ASSERT_EQ(0, gpu_submit(self->fd, qs[stride - 1],
				gpu_pattern_job(&g, 0, GPU_OUT_VA, 4, 4, groups),
				done));
	/* It is stuck behind the endless job. */
	EXPECT_EQ(-ETIME, syncobj_wait_ms(self->fd, done, 300));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Mappings hold the file open: drop them so close() releases it. */
	munmap(g2.map, 16 * PAGE);
	munmap(o2, PAGE);
	close(fd2);
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, done, 20000));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("job behind the closed file's hang done after %.2f s", secs);
	EXPECT_LT(secs, 4.0);	/* no job timeout (10 s) was needed */
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_TRUE(check_pattern(out, n, 4, 4));
}

/*
 * When Q_ABORT does not stop the job (debugfs vagx_inject_abort_fail), the
 * timeout handler resets the ring: the guilty job ends -ETIMEDOUT, the jobs
 * of other queues in that ring -ECANCELED with their queues INNOCENT.
 */
TEST_F(vagx, gpu_timeout_ring_reset)
{
	const unsigned int groups = 2;
	struct drm_vagx_queue_get_state st = { 0 };
	uint32_t q[8], fh, fi, done, *o2, *o3;
	unsigned int stride;
	int resets;
	char old[32];
	struct gpu g;

	REQUIRE_GPU();
	if (debugfs_write(self->fd, "vagx_inject_abort_fail", "1"))
		SKIP(return, "no debugfs fault injection");
	ASSERT_EQ(0, param_read("job_timeout_ms", old, sizeof(old)));
	ASSERT_EQ(0, param_write("job_timeout_ms", "500"));
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	o2 = gpu_buf(&g, GPU_OUT2_VA, PAGE, 0, NULL);
	o3 = gpu_buf(&g, GPU_DST_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, o2);
	ASSERT_NE(NULL, o3);
	stride = same_ring_stride(&self->info);
	ASSERT_EQ(0, compute_queues(self->fd, g.vm, stride + 1, q));
	fh = syncobj_create(self->fd);
	fi = syncobj_create(self->fd);
	done = syncobj_create(self->fd);
	resets = ring_resets(self->fd);
	ASSERT_EQ(0, gpu_submit(self->fd, q[0], gpu_hang_job(&g, 0), fh));
	ASSERT_EQ(0, gpu_submit(self->fd, q[stride],
				gpu_pattern_job(&g, 2, GPU_OUT2_VA, 2, 9, groups),
				fi));
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, fh, 20000));
	EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, fh));
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, fi, 5000));
	EXPECT_EQ(-ECANCELED, fence_status(self->fd, fi));
	EXPECT_EQ(0, o2[1]);
	st.queue_id = q[0];
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(DRM_VAGX_QUEUE_STATE_TIMEDOUT, st.state);
	st.queue_id = q[stride];
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(DRM_VAGX_QUEUE_STATE_INNOCENT, st.state);
	EXPECT_EQ(-ECANCELED, gpu_submit(self->fd, q[stride], 0, 0));
	EXPECT_EQ(resets + 1, ring_resets(self->fd));
	/* The reset ring serves a fresh queue. */
	ASSERT_EQ(0, fresh_queue_runs(self->fd, &g, stride, groups, done, o3));
	param_write("job_timeout_ms", old);
}

/*
 * Closing a file does not wait for the dependencies of its queued jobs: a
 * job waiting on another file's endless job is dropped at close.
 */
TEST_F(vagx, gpu_close_waiting)
{
	struct drm_syncobj_handle ex = { .fd = -1 };
	struct drm_vagx_sync w = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ };
	struct drm_vagx_cmd c = { .type = DRM_VAGX_QUEUE_TYPE_COMPUTE };
	uint32_t q, q2, hang, *o2;
	struct timespec t0, t1;
	struct gpu g, g2;
	char old[32];
	double secs;
	int fd2;

	REQUIRE_GPU();
	ASSERT_EQ(0, param_read("job_timeout_ms", old, sizeof(old)));
	ASSERT_EQ(0, param_write("job_timeout_ms", "3000"));
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	hang = syncobj_create(self->fd);
	ASSERT_EQ(0, gpu_submit(self->fd, q, gpu_hang_job(&g, 0), hang));
	ex.handle = hang;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &ex));

	fd2 = second_file(&g2, &o2, &q2);
	ASSERT_GE(fd2, 0);
	{
		struct drm_syncobj_handle im = { .fd = ex.fd };

		ASSERT_EQ(0, vioctl(fd2, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &im));
		w.handle = im.handle;
	}
	close(ex.fd);
	c.desc_va = gpu_pattern_job(&g2, 1, GPU_OUT_VA, 1, 1, 1);
	c.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &w);
	ASSERT_EQ(0, submit(fd2, q2, &c, 1, NULL));
	munmap(g2.map, 16 * PAGE);
	munmap(o2, PAGE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	close(fd2);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("close took %.2f s", secs);
	EXPECT_LT(secs, 1.0);
	/* The endless job still ends by the timeout. */
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, hang, 10000));
	EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, hang));
	param_write("job_timeout_ms", old);
}

/* QUEUE_DESTROY with jobs pending: they still run and signal. */
TEST_F(vagx, gpu_destroy_pending)
{
	const unsigned int groups = 2, n = groups * GPU_TG;
	struct drm_vagx_queue_destroy d = { 0 };
	uint32_t q, fs[8], *out[8];
	struct gpu g;
	int i;

	REQUIRE_GPU();
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	for (i = 0; i < 8; i++) {
		out[i] = gpu_buf(&g, GPU_OUT_VA + i * 0x100000ull, PAGE, 0, NULL);
		ASSERT_NE(NULL, out[i]);
		fs[i] = syncobj_create(self->fd);
		ASSERT_EQ(0, gpu_submit(self->fd, q,
					gpu_pattern_job(&g, i, GPU_OUT_VA +
							i * 0x100000ull, 1, i,
							groups), fs[i]));
	}
	d.queue_id = q;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d));
	EXPECT_EQ(-ENOENT, gpu_submit(self->fd, q, 0, 0));
	/* Its VM can go too, while the jobs still reference it. */
	EXPECT_EQ(0, vm_destroy(self->fd, g.vm));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, syncobj_wait(self->fd, fs[i], 0));
		EXPECT_EQ(1, fence_status(self->fd, fs[i]));
		EXPECT_TRUE(check_pattern(out[i], n, 1, i));
	}
}

/* Sum of the "<key> N" counters of debugfs vagx_rings. */
static int ring_counter(int fd, const char *key)
{
	char *s = debugfs_read(fd, "vagx_rings");
	size_t len = strlen(key);
	int n = 0;

	for (char *p = s; p && (p = strstr(p, key)); p += len)
		if (p[len] == ' ' && (p == s || p[-1] == ' '))
			n += atoi(p + len + 1);
	free(s);
	return n;
}

/*
 * A job that spins until the CPU writes a nonzero word at @flag_va, then
 * stores that word at @out_va: its end is under the test's control.
 */
static uint64_t gpu_wait_flag_job(struct gpu *g, unsigned int slot,
				  uint64_t flag_va, uint64_t out_va)
{
	const struct vagx_instr p[] = {
		i_imad(2, 2, 0, 0),
		i_op(VAGX_OP_LOOP),
		i_ld(1, 0, 2),
		{ .op = VAGX_OP_BREAK, .mod = 1, .src = { R(1) } },
		i_op(VAGX_OP_ENDLOOP),
		i_ld(1, 0, 2),
		i_st(2, 2, 1),
		i_op(VAGX_OP_END),
	};
	uint64_t uni[] = { flag_va, out_va };

	return gpu_job(g, slot, p, ARRAY_SIZE(p), uni, 2, 1, 1);
}

/*
 * The abort race (docs/kernel.md, recovery): the timeout handler picks the
 * running job G, G completes, the next job K of another queue starts, then
 * Q_ABORT is written. vagx_inject_abort_delay_ms holds the handler for 2 s
 * between its choice and the write; the test ends G (by writing the flag it
 * spins on) in the middle of that delay, so K runs when the abort is
 * written. The seqno-qualified abort (contract 1.1) must miss (debugfs
 * abort_misses +1) and leave K alone: K then completes with its data, its
 * queue healthy, G's fence is OK (a spurious timeout) and no ring is reset.
 * A 1.0-style abort would kill K (-ECANCELED, queue INNOCENT).
 */
TEST_F(vagx, gpu_abort_race)
{
	uint32_t q[8], fg, fk, *flags, *out;
	struct drm_vagx_queue_get_state st = { 0 };
	unsigned int stride, i;
	int resets, misses, aborts;
	char old[32], *rings;
	struct gpu g;

	REQUIRE_GPU();
	rings = debugfs_read(self->fd, "vagx_rings");
	if (!rings || !strstr(rings, "abort_match: 1")) {
		free(rings);
		SKIP(return, "device without Q_ABORT.MATCH (contract 1.0)");
	}
	free(rings);
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	flags = gpu_buf(&g, GPU_SRC_VA, PAGE, 0, NULL);
	out = gpu_buf(&g, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, flags);
	ASSERT_NE(NULL, out);
	stride = same_ring_stride(&self->info);
	ASSERT_EQ(0, compute_queues(self->fd, g.vm, stride + 1, q));
	fg = syncobj_create(self->fd);
	fk = syncobj_create(self->fd);
	ASSERT_EQ(0, param_read("job_timeout_ms", old, sizeof(old)));
	ASSERT_EQ(0, param_write("job_timeout_ms", "1000"));
	ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_abort_delay_ms",
				   "2000"));
	resets = ring_resets(self->fd);
	misses = ring_counter(self->fd, "abort_misses");
	aborts = ring_counter(self->fd, "aborts");

	/* G on q[0] spins on flags[0]; K on q[stride] (same ring) on flags[1]. */
	ASSERT_EQ(0, gpu_submit(self->fd, q[0],
				gpu_wait_flag_job(&g, 0, GPU_SRC_VA, GPU_OUT_VA),
				fg));
	ASSERT_EQ(0, gpu_submit(self->fd, q[stride],
				gpu_wait_flag_job(&g, 1, GPU_SRC_VA + 4,
						  GPU_OUT_VA + 4), fk));
	/* Timeout at 1 s, abort written at 3 s: end G at 2 s. */
	usleep(2000000);
	__atomic_store_n(&flags[0], 0x600d, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, fg, 5000));
	EXPECT_EQ(1, fence_status(self->fd, fg));
	EXPECT_EQ(0x600d, out[0]);
	/* K runs now; wait for the delayed abort to be written and miss. */
	for (i = 0; i < 500 &&
	     ring_counter(self->fd, "abort_misses") == misses &&
	     ring_counter(self->fd, "aborts") == aborts; i++)
		usleep(10000);
	EXPECT_EQ(misses + 1, ring_counter(self->fd, "abort_misses"));
	EXPECT_EQ(aborts, ring_counter(self->fd, "aborts"));
	__atomic_store_n(&flags[1], 0xbeef, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, fk, 5000));
	debugfs_write(self->fd, "vagx_inject_abort_delay_ms", "0");
	param_write("job_timeout_ms", old);

	/* The innocent job: completed, data written, queue healthy. */
	EXPECT_EQ(1, fence_status(self->fd, fk));
	EXPECT_EQ(0xbeef, out[1]);
	st.queue_id = q[stride];
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(0, st.state);
	st.queue_id = q[0];
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(0, st.state);
	EXPECT_EQ(resets, ring_resets(self->fd));
}
