// SPDX-License-Identifier: MIT
/*
 * vagx_uapi kselftests: jobs the device runs: compute patterns, timeline chains, NULL
 * pages, store faults, copies and fills checked in memory.
 * Part of vagx_uapi (vagx_uapi.c includes it; see vagx_uapi.h).
 */
#include "vagx_uapi.h"

/* Basic end to end: VM_BIND, SUBMIT with an out-syncobj, wait, read back. */
TEST_F(vagx, gpu_compute_pattern)
{
	const unsigned int groups = 4, n = groups * GPU_TG;
	struct gpu g;
	uint32_t q, done, *out;

	REQUIRE_GPU();
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	out = gpu_buf(&g, GPU_OUT_VA, PAGE, 0xffffffff, NULL);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	done = syncobj_create(self->fd);
	ASSERT_EQ(0, gpu_submit(self->fd, q,
				gpu_pattern_job(&g, 0, GPU_OUT_VA, 3, 7, groups),
				done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_TRUE(check_pattern(out, n, 3, 7));
	EXPECT_EQ(0xffffffff, out[n]);	/* nothing beyond the grid */

	/* Again, through a different descriptor, on the same queue. */
	ASSERT_EQ(0, gpu_submit(self->fd, q,
				gpu_pattern_job(&g, 1, GPU_OUT_VA, 5, 1, groups),
				done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_TRUE(check_pattern(out, n, 5, 1));
}

/*
 * Two dependent submits on two queues (different rings, no implicit order),
 * chained through timeline points: B reads what A wrote.
 */
TEST_F(vagx, gpu_timeline_chain)
{
	const unsigned int groups = 8, n = groups * GPU_TG;
	struct drm_vagx_sync sa[1], sb[2], sc[2];
	struct drm_vagx_cmd ca = { .type = DRM_VAGX_QUEUE_TYPE_COMPUTE };
	struct drm_vagx_cmd cb = { .type = DRM_VAGX_QUEUE_TYPE_COMPUTE };
	struct drm_vagx_cmd cc = { .type = DRM_VAGX_QUEUE_TYPE_COMPUTE };
	struct gpu g;
	uint32_t qa, qb, tl, *o1, *o2;

	REQUIRE_GPU();
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	o1 = gpu_buf(&g, GPU_OUT_VA, 4 * PAGE, 0, NULL);
	o2 = gpu_buf(&g, GPU_OUT2_VA, 4 * PAGE, 0, NULL);
	ASSERT_NE(NULL, o1);
	ASSERT_NE(NULL, o2);
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &qa));
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &qb));
	tl = syncobj_create(self->fd);

	/* A: o1 = i*2+1 -> point 1.  B (qb): wait 1, o2 = o1 + 100 -> point 2.
	 * C (qa): wait 2, o1 = o2 + 1000 -> point 3. */
	sa[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
					.flags = DRM_VAGX_SYNC_SIGNAL,
					.handle = tl, .timeline_value = 1 };
	sb[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
					.handle = tl, .timeline_value = 1 };
	sb[1] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
					.flags = DRM_VAGX_SYNC_SIGNAL,
					.handle = tl, .timeline_value = 2 };
	sc[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
					.handle = tl, .timeline_value = 2 };
	sc[1] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
					.flags = DRM_VAGX_SYNC_SIGNAL,
					.handle = tl, .timeline_value = 3 };
	ca.desc_va = gpu_pattern_job(&g, 0, GPU_OUT_VA, 2, 1, groups);
	cb.desc_va = gpu_add_job(&g, 1, GPU_OUT_VA, GPU_OUT2_VA, 100, groups);
	cc.desc_va = gpu_add_job(&g, 2, GPU_OUT2_VA, GPU_OUT_VA, 1000, groups);
	ca.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, sa);
	cb.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(2, sb);
	cc.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(2, sc);
	ASSERT_EQ(0, submit(self->fd, qa, &ca, 1, NULL));
	ASSERT_EQ(0, submit(self->fd, qb, &cb, 1, NULL));
	ASSERT_EQ(0, submit(self->fd, qa, &cc, 1, NULL));
	ASSERT_EQ(0, syncobj_wait(self->fd, tl, 3));
	EXPECT_TRUE(check_pattern(o2, n, 2, 101));
	EXPECT_TRUE(check_pattern(o1, n, 2, 1101));
	EXPECT_EQ(0, o2[n]);
}

/*
 * MAP_NULL through the GPU: loads from NULL pages read 0, stores to them are
 * dropped (a load after the store still reads 0), and a MAP_NULL that
 * replaces a BO mapping takes effect for the next job (TLB invalidated).
 */
TEST_F(vagx, gpu_map_null)
{
	const struct vagx_instr p[] = {
		i_mov_sr(0, VAGX_SR_TINDEX),
		i_imad(1, 0, 4, 0),
		i_ld(2, 0, 1),			/* r2 = src[i] */
		i_imad(3, 0, 0, 0xdeadbeef),
		i_st(2, 1, 3),			/* dst[i] = 0xdeadbeef */
		i_ld(4, 2, 1),			/* r4 = dst[i] */
		i_imad(2, 2, 1, 0x1000),
		i_imad(4, 4, 1, 0x2000),
		i_st(4, 1, 2),			/* out[i] = src[i] + 0x1000 */
		i_imad(5, 0, 4, GPU_TG * 4),
		i_st(4, 5, 4),			/* out[64 + i] = dst[i] + 0x2000 */
		i_op(VAGX_OP_END),
	};
	uint64_t uni[] = { GPU_SRC_VA, GPU_DST_VA, GPU_OUT_VA };
	uint32_t q, done, h, *out, *data;
	uint64_t desc;
	struct gpu g;

	REQUIRE_GPU();
	if (!(self->info.features & DRM_VAGX_FEATURE_MAP_NULL))
		SKIP(return, "no MAP_NULL");
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	out = gpu_buf(&g, GPU_OUT_VA, PAGE, 0xffffffff, NULL);
	ASSERT_NE(NULL, out);
	/* src starts as a real BO, dst is NULL from the start. */
	data = gpu_buf(&g, GPU_SRC_VA, 2 * PAGE, 0x11111111, &h);
	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0,
			   GPU_DST_VA, 1ull << 21));
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	done = syncobj_create(self->fd);
	desc = gpu_job(&g, 0, p, ARRAY_SIZE(p), uni, 3, 1, GPU_TG);
	ASSERT_NE(0, desc);

	ASSERT_EQ(0, gpu_submit(self->fd, q, desc, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	ASSERT_EQ(1, fence_status(self->fd, done));
	for (int i = 0; i < GPU_TG; i++) {
		ASSERT_EQ(0x11112111, out[i]);
		ASSERT_EQ(0x2000, out[GPU_TG + i]);
	}

	/* Replace the BO by NULL pages; the job now reads zeros. */
	ASSERT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0,
			   GPU_SRC_VA, 2 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, GPU_SRC_VA, GPU_SRC_VA + 2 * PAGE,
				"null"));
	memset(out, 0xff, PAGE);
	ASSERT_EQ(0, gpu_submit(self->fd, q, desc, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	ASSERT_EQ(1, fence_status(self->fd, done));
	for (int i = 0; i < GPU_TG; i++) {
		ASSERT_EQ(0x1000, out[i]);
		ASSERT_EQ(0x2000, out[GPU_TG + i]);
	}
	/* The BO itself was not touched, and the queue is healthy. */
	for (int i = 0; i < 2 * PAGE / 4; i++)
		ASSERT_EQ(0x11111111, data[i]);

	/* Map the BO over the NULL dst: the job's stores land in it now. */
	ASSERT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_MAP, h, 0,
			   GPU_DST_VA, PAGE));
	ASSERT_EQ(0, gpu_submit(self->fd, q, desc, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	ASSERT_EQ(1, fence_status(self->fd, done));
	for (int i = 0; i < GPU_TG; i++) {
		ASSERT_EQ(0x1000, out[i]);
		ASSERT_EQ(0xdeadbeef + 0x2000, out[GPU_TG + i]);
		ASSERT_EQ(0xdeadbeef, data[i]);
	}
	ASSERT_EQ(0x11111111, data[GPU_TG]);
}

/*
 * A shader store to an unmapped VA: the job's fence gets -EFAULT, the rest of
 * its queue -ECANCELED, the queue and VM report the fault, the queue is dead;
 * another queue of the VM and another file keep working.
 */
TEST_F(vagx, gpu_fault_store)
{
	const struct vagx_instr p[] = {
		i_mov_sr(0, VAGX_SR_TINDEX),
		i_imad(1, 0, 4, 0x24),
		i_st(0, 1, 0),
		i_op(VAGX_OP_END),
	};
	const unsigned int groups = 2, n = groups * GPU_TG;
	struct drm_vagx_queue_get_state st = { 0 };
	struct drm_vagx_vm_get_state vst = { 0 };
	struct drm_vagx_sync s0 = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				    .flags = DRM_VAGX_SYNC_SIGNAL };
	struct drm_vagx_sync s1 = s0;
	struct drm_vagx_cmd c[2];
	uint64_t uni[] = { GPU_HOLE_VA };
	uint32_t q, q2, f0, f1, done, *out, *out2;
	struct gpu g, g2;
	int fd2;

	REQUIRE_GPU();
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	out = gpu_buf(&g, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q2));
	f0 = syncobj_create(self->fd);
	f1 = syncobj_create(self->fd);
	done = syncobj_create(self->fd);
	s0.handle = f0;
	s1.handle = f1;
	memset(c, 0, sizeof(c));
	c[0].type = c[1].type = DRM_VAGX_QUEUE_TYPE_COMPUTE;
	c[0].desc_va = gpu_job(&g, 0, p, ARRAY_SIZE(p), uni, 1, 1, 1);
	c[1].desc_va = gpu_pattern_job(&g, 1, GPU_OUT_VA, 1, 1, groups);
	c[0].syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &s0);
	c[1].syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &s1);
	ASSERT_EQ(0, submit(self->fd, q, c, 2, NULL));
	ASSERT_EQ(0, syncobj_wait(self->fd, f1, 0));
	ASSERT_EQ(0, syncobj_wait(self->fd, f0, 0));
	EXPECT_EQ(-EFAULT, fence_status(self->fd, f0));
	EXPECT_EQ(-ECANCELED, fence_status(self->fd, f1));
	EXPECT_EQ(0, out[0]);	/* the cancelled job did not run */

	st.queue_id = q;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(DRM_VAGX_QUEUE_STATE_FAULTED, st.state);
	EXPECT_EQ(GPU_HOLE_VA + 0x24, st.fault.addr);
	EXPECT_EQ(DRM_VAGX_FAULT_ACCESS_WRITE, st.fault.access);
	EXPECT_EQ(DRM_VAGX_FAULT_REASON_UNMAPPED, st.fault.reason);
	vst.vm_id = g.vm;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_VM_GET_STATE, &vst));
	EXPECT_EQ(DRM_VAGX_VM_STATE_USABLE, vst.state);
	EXPECT_EQ(1, vst.fault_count);
	EXPECT_EQ(GPU_HOLE_VA + 0x24, vst.last_fault.addr);
	EXPECT_EQ(DRM_VAGX_FAULT_ACCESS_WRITE, vst.last_fault.access);

	/* The dead queue refuses work, even no-ops. */
	EXPECT_EQ(-ECANCELED, gpu_submit(self->fd, q, c[1].desc_va, 0));
	EXPECT_EQ(-ECANCELED, gpu_submit(self->fd, q, 0, 0));

	/* Another queue on the same VM works. */
	ASSERT_EQ(0, gpu_submit(self->fd, q2, c[1].desc_va, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_TRUE(check_pattern(out, n, 1, 1));
	st.queue_id = q2;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(0, st.state);

	/* So do queues of another file. */
	fd2 = open_vagx();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gpu_init(fd2, &g2));
	out2 = gpu_buf(&g2, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, out2);
	for (int i = 0; i < 3; i++) {
		uint32_t q3, d3 = syncobj_create(fd2);

		ASSERT_EQ(0, queue_create(fd2, g2.vm,
					  DRM_VAGX_QUEUE_TYPE_COMPUTE,
					  DRM_VAGX_PRIORITY_MEDIUM, &q3));
		ASSERT_EQ(0, gpu_submit(fd2, q3,
					gpu_pattern_job(&g2, i, GPU_OUT_VA, 7,
							i, groups), d3));
		ASSERT_EQ(0, syncobj_wait(fd2, d3, 0));
		EXPECT_EQ(1, fence_status(fd2, d3));
		EXPECT_TRUE(check_pattern(out2, n, 7, i));
	}
	close(fd2);
}

/* Deterministic bytes for a copy source, independent of the device. */
static uint8_t src_byte(uint64_t i)
{
	return (uint8_t)(i * 131 + (i >> 8) * 7 + 3);
}

/*
 * Copies and fills checked byte by byte in memory: unaligned copy across
 * pages, fill, NULL source, the bytes around untouched, ordering on the
 * queue (fill then copy over it), then a copy running into an unmapped
 * page: -EFAULT, bytes before the hole written, queue FAULTED with the
 * hole's address.
 */
TEST_F(vagx, gpu_copy_fill)
{
	const uint64_t src_off = 5, dst_off = 4093, len = 3 * PAGE + 123;
	const uint64_t fill_off = 64, fill_len = 2 * PAGE + 44;
	struct drm_vagx_queue_get_state st = { 0 };
	uint32_t q, q2, done, *dst32;
	uint8_t *src, *dst;
	uint64_t i;
	struct gpu g;

	if (!hw_runs_jobs(self->fd))
		SKIP(return, "the device does not execute jobs");
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	src = (uint8_t *)gpu_buf(&g, GPU_SRC_VA, 8 * PAGE, 0, NULL);
	dst32 = gpu_buf(&g, GPU_DST_VA, 8 * PAGE, 0xa5a5a5a5, NULL);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst32);
	dst = (uint8_t *)dst32;
	for (i = 0; i < 8 * PAGE; i++)
		src[i] = src_byte(i);
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COPY,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	done = syncobj_create(self->fd);

	/* Unaligned copy over page boundaries on both sides. */
	ASSERT_EQ(0, copy_submit(self->fd, q, 0, GPU_SRC_VA + src_off,
				 GPU_DST_VA + dst_off, len, 0, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	for (i = 0; i < 8 * PAGE; i++) {
		uint8_t want = i >= dst_off && i < dst_off + len ?
			       src_byte(i - dst_off + src_off) : 0xa5;

		if (dst[i] != want) {
			TH_LOG("copy: dst byte %llu is %#x, expected %#x",
			       (unsigned long long)i, dst[i], want);
			ASSERT_EQ(want, dst[i]);
		}
	}

	/* Fill, then a copy of the filled words on the same queue (ordered). */
	memset(dst, 0xa5, 8 * PAGE);
	ASSERT_EQ(0, copy_submit(self->fd, q, DRM_VAGX_CMD_FILL, 0,
				 GPU_DST_VA + fill_off, fill_len, 0x12345678,
				 0));
	ASSERT_EQ(0, copy_submit(self->fd, q, 0, GPU_DST_VA + fill_off,
				 GPU_DST_VA + 6 * PAGE, 8, 0, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	for (i = 0; i < 8 * PAGE / 4; i++) {
		uint32_t want = 0xa5a5a5a5;

		if (i * 4 >= fill_off && i * 4 < fill_off + fill_len)
			want = 0x12345678;
		if (i == 6 * PAGE / 4 || i == 6 * PAGE / 4 + 1)
			want = 0x12345678;
		if (dst32[i] != want) {
			TH_LOG("fill: word %llu is %#x, expected %#x",
			       (unsigned long long)i, dst32[i], want);
			ASSERT_EQ(want, dst32[i]);
		}
	}

	/* A NULL source reads as zeros. */
	if (self->info.features & DRM_VAGX_FEATURE_MAP_NULL) {
		ASSERT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_MAP_NULL,
				   0, 0, GPU_HOLE_VA, 2 * PAGE));
		ASSERT_EQ(0, copy_submit(self->fd, q, 0, GPU_HOLE_VA + 8,
					 GPU_DST_VA + 100, PAGE, 0, done));
		ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
		EXPECT_EQ(1, fence_status(self->fd, done));
		for (i = 0; i < 2 * PAGE; i++) {
			/* Little-endian pattern bytes; fill_off is 4-aligned. */
			uint8_t want = 0xa5;

			if (i >= fill_off && i < fill_off + fill_len)
				want = 0x12345678u >> (8 * (i % 4));
			if (i >= 100 && i < 100 + PAGE)
				want = 0;

			ASSERT_EQ(want, dst[i]);
		}
		ASSERT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_UNMAP, 0,
				   0, GPU_HOLE_VA, 2 * PAGE));
	}

	/*
	 * Into an unmapped page: the destination runs from 2 pages before
	 * the end of the dst BO into GPU_DST_VA + 8 pages, which is a hole.
	 */
	memset(dst, 0xa5, 8 * PAGE);
	ASSERT_EQ(0, copy_submit(self->fd, q, 0, GPU_SRC_VA,
				 GPU_DST_VA + 6 * PAGE, 4 * PAGE, 0, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(-EFAULT, fence_status(self->fd, done));
	for (i = 0; i < 2 * PAGE; i++)
		ASSERT_EQ(src_byte(i), dst[6 * PAGE + i]);
	st.queue_id = q;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(DRM_VAGX_QUEUE_STATE_FAULTED, st.state);
	EXPECT_EQ(GPU_DST_VA + 8 * PAGE, st.fault.addr);
	EXPECT_EQ(DRM_VAGX_FAULT_ACCESS_WRITE, st.fault.access);
	EXPECT_EQ(DRM_VAGX_FAULT_REASON_UNMAPPED, st.fault.reason);
	EXPECT_EQ(-ECANCELED, copy_submit(self->fd, q, 0, GPU_SRC_VA,
					  GPU_DST_VA, 4, 0, 0));

	/* Reading from a hole faults with a READ access. */
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COPY,
				  DRM_VAGX_PRIORITY_MEDIUM, &q2));
	ASSERT_EQ(0, copy_submit(self->fd, q2, 0, GPU_HOLE_VA + 12,
				 GPU_DST_VA, 16, 0, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(-EFAULT, fence_status(self->fd, done));
	st.queue_id = q2;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(GPU_HOLE_VA + 12, st.fault.addr);
	EXPECT_EQ(DRM_VAGX_FAULT_ACCESS_READ, st.fault.access);
}
