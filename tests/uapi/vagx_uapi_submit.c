// SPDX-License-Identifier: MIT
/*
 * vagx_uapi kselftests: queues and SUBMIT: queue create and destroy, syncs, the
 * documented errors of compute and copy commands, array strides, faults
 * seen at submit, and closing a file while work is queued.
 * Part of vagx_uapi (vagx_uapi.c includes it; see vagx_uapi.h).
 */
#include "vagx_uapi.h"

TEST_F(vagx, queue_create_destroy)
{
	struct drm_vagx_queue_create c = { 0 };
	struct drm_vagx_queue_destroy d = { 0 };
	struct drm_vagx_queue_get_state s = { 0 };
	uint32_t vm, q, q2;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_RENDER,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	EXPECT_NE(0, q);
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_RENDER,
				  DRM_VAGX_PRIORITY_LOW, &q2));
	EXPECT_NE(q, q2);
	{
		uint32_t q3;

		EXPECT_EQ(-EINVAL, queue_create(self->fd, vm, 7,
						DRM_VAGX_PRIORITY_MEDIUM, &q3));
	}
	s.queue_id = q;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &s));
	EXPECT_EQ(0, s.state);
	s.queue_id = 999;
	EXPECT_EQ(-ENOENT, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &s));

	EXPECT_EQ(-EINVAL, queue_create(self->fd, vm, 7,
					DRM_VAGX_PRIORITY_MEDIUM, &q2));
	if (!(self->info.queue_types & (1u << DRM_VAGX_QUEUE_TYPE_COPY)))
		EXPECT_EQ(-EINVAL, queue_create(self->fd, vm,
						DRM_VAGX_QUEUE_TYPE_COPY,
						DRM_VAGX_PRIORITY_MEDIUM, &q2));
	EXPECT_EQ(-EINVAL, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_RENDER,
					3, &q2));
	EXPECT_EQ(-ENOENT, queue_create(self->fd, 999, DRM_VAGX_QUEUE_TYPE_RENDER,
					DRM_VAGX_PRIORITY_MEDIUM, &q2));
	c.vm_id = vm;
	c.flags = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_CREATE, &c));
	c.flags = 0;
	c.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_CREATE, &c));
	if (geteuid() == 0) {
		uint32_t qh = 0;

		EXPECT_EQ(0, queue_create(self->fd, vm,
					  DRM_VAGX_QUEUE_TYPE_RENDER,
					  DRM_VAGX_PRIORITY_HIGH, &qh));
		d.queue_id = qh;
		EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d));
	}

	/* A VM with queues cannot be destroyed. */
	EXPECT_EQ(-EBUSY, vm_destroy(self->fd, vm));
	d.queue_id = q;
	d.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d));
	d.pad = 0;
	EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d));
	EXPECT_EQ(-ENOENT, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d));
	d.queue_id = q2;
	EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d));
	EXPECT_EQ(0, vm_destroy(self->fd, vm));
}

TEST_F(vagx, submit_noop_syncs)
{
	struct drm_vagx_sync s0[2], s1[2], s2[1];
	struct drm_vagx_cmd cmds[3];
	uint32_t vm, q, bin, tl, mid, failed;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_RENDER,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	bin = syncobj_create(self->fd);
	tl = syncobj_create(self->fd);
	mid = syncobj_create(self->fd);

	/* cmd1 waits on a syncobj that only cmd0 of this submit signals. */
	s0[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
					.flags = DRM_VAGX_SYNC_SIGNAL,
					.handle = mid };
	s0[1] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
					.flags = DRM_VAGX_SYNC_SIGNAL,
					.handle = tl, .timeline_value = 1 };
	s1[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
					.handle = mid };
	s1[1] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
					.flags = DRM_VAGX_SYNC_SIGNAL,
					.handle = tl, .timeline_value = 2 };
	s2[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
					.flags = DRM_VAGX_SYNC_SIGNAL,
					.handle = bin };
	memset(cmds, 0, sizeof(cmds));
	for (int i = 0; i < 3; i++)
		cmds[i].type = DRM_VAGX_QUEUE_TYPE_RENDER;
	cmds[0].syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(2, s0);
	cmds[1].syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(2, s1);
	cmds[2].syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, s2);
	ASSERT_EQ(0, submit(self->fd, q, cmds, 3, &failed));
	EXPECT_EQ(DRM_VAGX_NO_FAILED_INDEX, failed);
	EXPECT_EQ(0, syncobj_wait(self->fd, bin, 0));
	EXPECT_EQ(0, syncobj_wait(self->fd, tl, 2));
	EXPECT_EQ(0, syncobj_wait(self->fd, mid, 0));

	/* Without cmd0, the wait on the (now signalled) syncobj is fine. */
	ASSERT_EQ(0, submit(self->fd, q, &cmds[1], 1, NULL));
	EXPECT_EQ(0, syncobj_wait(self->fd, tl, 2));
}

TEST_F(vagx, submit_errors)
{
	struct drm_vagx_submit s = { 0 };
	struct drm_vagx_cmd c = { .type = DRM_VAGX_QUEUE_TYPE_RENDER };
	struct drm_vagx_sync sy = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ };
	struct drm_vagx_cmd cmds[2];
	uint32_t vm, q, failed, nofence;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_RENDER,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	nofence = syncobj_create(self->fd);

	EXPECT_EQ(-ENOENT, submit(self->fd, 999, &c, 1, NULL));
	s.queue_id = q;
	s.flags = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &s));
	s.flags = 0;
	s.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &s));
	s.pad = 0;
	s.cmds.count = self->info.max_cmds_per_submit + 1;
	s.cmds.stride = sizeof(c);
	EXPECT_EQ(-E2BIG, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &s));
	s.cmds.count = 1;
	s.cmds.array = 8;
	EXPECT_EQ(-EFAULT, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &s));
	s.cmds.array = (uintptr_t)&c;
	s.cmds.stride = 16;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &s));

	cmds[0] = c;
	cmds[1] = c;
	cmds[1].type = DRM_VAGX_QUEUE_TYPE_COMPUTE;
	EXPECT_EQ(-EINVAL, submit(self->fd, q, cmds, 2, &failed));
	EXPECT_EQ(1, failed);
	cmds[1] = c;
	cmds[1].flags = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, q, cmds, 2, &failed));
	EXPECT_EQ(1, failed);
	cmds[1] = c;
	cmds[1].desc_va = self->info.va_start + 4;
	EXPECT_EQ(-EINVAL, submit(self->fd, q, cmds, 2, &failed));
	EXPECT_EQ(1, failed);
	cmds[1].desc_va = self->info.va_end;
	EXPECT_EQ(-EINVAL, submit(self->fd, q, cmds, 2, &failed));
	cmds[1] = c;
	sy.handle = nofence;
	cmds[1].syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &sy);
	EXPECT_EQ(-EINVAL, submit(self->fd, q, cmds, 2, &failed));
	EXPECT_EQ(1, failed);
	sy.handle = 0xffff;
	EXPECT_EQ(-ENOENT, submit(self->fd, q, cmds, 2, &failed));
	sy.handle = nofence;
	cmds[1].syncs.count = self->info.max_syncs_per_array + 1;
	EXPECT_EQ(-E2BIG, submit(self->fd, q, cmds, 2, &failed));
	cmds[1].syncs.count = 1;
	cmds[1].syncs.array = 8;
	EXPECT_EQ(-EFAULT, submit(self->fd, q, cmds, 2, &failed));
	/* Nothing was queued: the syncobj still has no fence. */
	sy.handle = nofence;
	cmds[1].syncs.array = (uintptr_t)&sy;
	EXPECT_EQ(-EINVAL, submit(self->fd, q, &cmds[1], 1, NULL));
}

TEST_F(vagx, submit_fault)
{
	struct drm_vagx_queue_get_state st = { 0 };
	struct drm_vagx_vm_get_state vst = { 0 };
	struct drm_vagx_sync sy = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				    .flags = DRM_VAGX_SYNC_SIGNAL };
	struct drm_vagx_cmd c = { .type = DRM_VAGX_QUEUE_TYPE_COMPUTE };
	uint32_t vm, q;

	if (!hw_runs_jobs(self->fd))
		SKIP(return, "the device does not execute jobs yet");
	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	sy.handle = syncobj_create(self->fd);
	/*
	 * Descriptor in unmapped memory: the device faults reading it.  A
	 * compute job, because the device reads its descriptor first.
	 */
	c.desc_va = self->info.va_start + 0x10000000ull;
	c.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &sy);
	ASSERT_EQ(0, submit(self->fd, q, &c, 1, NULL));
	EXPECT_EQ(0, syncobj_wait(self->fd, sy.handle, 0));
	st.queue_id = q;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_TRUE(st.state & DRM_VAGX_QUEUE_STATE_FAULTED);
	EXPECT_EQ(c.desc_va, st.fault.addr & ~0xfffull);
	vst.vm_id = vm;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_VM_GET_STATE, &vst));
	EXPECT_EQ(1, vst.fault_count);
	EXPECT_EQ(DRM_VAGX_VM_STATE_USABLE, vst.state);
	/* A dead queue rejects submissions forever. */
	c.desc_va = 0;
	c.syncs.count = 0;
	EXPECT_EQ(-ECANCELED, submit(self->fd, q, &c, 1, NULL));
}

TEST_F(vagx, close_with_work)
{
	uint64_t va = self->info.va_start + 0x800000000ull;
	struct drm_vagx_cmd c = { .type = DRM_VAGX_QUEUE_TYPE_RENDER };
	uint32_t vm, q, h;
	int fd2 = open_vagx();

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, vm_create(fd2, &vm));
	ASSERT_EQ(0, bo_create(fd2, 64 * PAGE, 0, vm, &h));
	ASSERT_EQ(0, bind1(fd2, vm, DRM_VAGX_BIND_OP_MAP, h, 0, va, 64 * PAGE));
	ASSERT_EQ(0, queue_create(fd2, vm, DRM_VAGX_QUEUE_TYPE_RENDER,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(0, submit(fd2, q, &c, 1, NULL));
	close(fd2);
	/* The VM is torn down asynchronously; give it a moment. */
	usleep(200000);
	EXPECT_FALSE(has_mapping(self->fd, va, va + 64 * PAGE, "bo"));
}

/*
 * Files closed while the rings' schedulers are taking their jobs. The rings'
 * schedulers are shared by every file's queues: a queue teardown racing the
 * scheduler's pop once left a freed entity in the run queue, which oopsed a
 * later close and stalled every later SUBMIT on that ring. Each ring must
 * still complete other files' jobs afterwards.
 */
TEST_F(vagx, close_while_scheduling)
{
	struct drm_vagx_cmd cmds[16];
	uint32_t vm, q, done;

	memset(cmds, 0, sizeof(cmds));
	for (int i = 0; i < 16; i++)
		cmds[i].type = DRM_VAGX_QUEUE_TYPE_RENDER;
	for (int round = 0; round < 48; round++) {
		int fd2 = open_vagx();
		uint32_t vm2, q2;

		ASSERT_GE(fd2, 0);
		ASSERT_EQ(0, vm_create(fd2, &vm2));
		/* Three queues: one on each ring medium priority uses. */
		for (int k = 0; k < 3; k++) {
			ASSERT_EQ(0, queue_create(fd2, vm2,
						  DRM_VAGX_QUEUE_TYPE_RENDER,
						  DRM_VAGX_PRIORITY_MEDIUM, &q2));
			ASSERT_EQ(0, submit(fd2, q2, cmds, 16, NULL));
		}
		/* Close at different points of the scheduling. */
		usleep((round % 8) * 50);
		close(fd2);
	}

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	for (int k = 0; k < 4; k++) {
		struct drm_vagx_sync sig = {
			.type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
			.flags = DRM_VAGX_SYNC_SIGNAL,
		};
		struct drm_vagx_cmd c = {
			.type = DRM_VAGX_QUEUE_TYPE_RENDER,
			.syncs = DRM_VAGX_OBJ_ARRAY(1, &sig),
		};

		done = syncobj_create(self->fd);
		sig.handle = done;
		ASSERT_EQ(0, queue_create(self->fd, vm,
					  DRM_VAGX_QUEUE_TYPE_RENDER,
					  k ? DRM_VAGX_PRIORITY_MEDIUM :
					  DRM_VAGX_PRIORITY_HIGH, &q));
		ASSERT_EQ(0, submit(self->fd, q, &c, 1, NULL));
		EXPECT_EQ(0, syncobj_wait_ms(self->fd, done, 5000)) {
			TH_LOG("ring of queue %u (k=%d) no longer runs jobs",
			       q, k);
		}
	}
}

/* Every documented -EINVAL of a copy command; nothing needs the device. */
TEST_F(vagx, submit_copy_errors)
{
	const uint64_t a = self->info.va_start + 0x100000ull;
	const uint64_t b = self->info.va_start + 0x200000ull;
	const uint64_t end = self->info.va_end;
	struct drm_vagx_cmd c = { .type = DRM_VAGX_QUEUE_TYPE_COPY };
	struct drm_vagx_submit s = { 0 };
	uint32_t vm, q, qc, failed, so;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_COPY,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_RENDER,
				  DRM_VAGX_PRIORITY_MEDIUM, &qc));
#define CP(fl, sv, dv, sz, pat) copy_submit(self->fd, q, fl, sv, dv, sz, pat, 0)
	/* Overlapping copies, in both directions and touching by one byte. */
	EXPECT_EQ(-EINVAL, CP(0, a, a + 100, 101, 0));
	EXPECT_EQ(-EINVAL, CP(0, a + 100, a, 101, 0));
	EXPECT_EQ(-EINVAL, CP(0, a, a, 1, 0));
	/* Outside the window, wrapping. */
	EXPECT_EQ(-EINVAL, CP(0, self->info.va_start - PAGE, b, 16, 0));
	EXPECT_EQ(-EINVAL, CP(0, a, end - 8, 16, 0));
	EXPECT_EQ(-EINVAL, CP(0, end - 8, a, 16, 0));
	EXPECT_EQ(-EINVAL, CP(0, a, b, ~0ull, 0));
	EXPECT_EQ(-EINVAL, CP(0, 0, b, 16, 0));
	/* A copy has no pattern, a fill no source. */
	EXPECT_EQ(-EINVAL, CP(0, a, b, 16, 1));
	EXPECT_EQ(-EINVAL, CP(DRM_VAGX_CMD_FILL, a, b, 16, 0));
	/* Fills are 4-byte aligned. */
	EXPECT_EQ(-EINVAL, CP(DRM_VAGX_CMD_FILL, 0, b + 2, 16, 0));
	EXPECT_EQ(-EINVAL, CP(DRM_VAGX_CMD_FILL, 0, b, 18, 0));
	EXPECT_EQ(-EINVAL, CP(DRM_VAGX_CMD_FILL, 0, end - 4, 8, 0));
	/* Undefined flag. */
	EXPECT_EQ(-EINVAL, CP(2, a, b, 16, 0));
	so = syncobj_create(self->fd);
	/* Size 0: a no-op, whatever the addresses. */
	EXPECT_EQ(0, CP(0, 0, 0, 0, 0));
	EXPECT_EQ(0, CP(DRM_VAGX_CMD_FILL, 0, 3, 0, 0));
#undef CP
	/* desc_va and pad MBZ on copy commands. */
	c.desc_va = a;
	c.copy.src_va = a;
	c.copy.dst_va = b;
	c.copy.size = 16;
	EXPECT_EQ(-EINVAL, submit(self->fd, q, &c, 1, &failed));
	EXPECT_EQ(0, failed);
	c.desc_va = 0;
	c.copy.pad = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, q, &c, 1, NULL));
	/* Copy fields and FILL on another type of command. */
	memset(&c, 0, sizeof(c));
	c.type = DRM_VAGX_QUEUE_TYPE_RENDER;
	c.copy.size = 16;
	EXPECT_EQ(-EINVAL, submit(self->fd, qc, &c, 1, NULL));
	c.copy.size = 0;
	c.flags = DRM_VAGX_CMD_FILL;
	EXPECT_EQ(-EINVAL, submit(self->fd, qc, &c, 1, NULL));
	c.flags = 0;
	EXPECT_EQ(0, submit(self->fd, qc, &c, 1, NULL));
	/* Wrong type for the queue. */
	c.type = DRM_VAGX_QUEUE_TYPE_COPY;
	EXPECT_EQ(-EINVAL, submit(self->fd, qc, &c, 1, NULL));
	/* A 1.0 client (stride 32) sees a no-op copy that signals. */
	memset(&c, 0, sizeof(c));
	c.type = DRM_VAGX_QUEUE_TYPE_COPY;
	{
		struct drm_vagx_sync sy = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
					    .flags = DRM_VAGX_SYNC_SIGNAL,
					    .handle = so };

		c.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &sy);
		c.copy.size = 4096;	/* beyond stride 32: not read */
		s.queue_id = q;
		s.cmds.stride = 32;
		s.cmds.count = 1;
		s.cmds.array = (uintptr_t)&c;
		EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &s));
		EXPECT_EQ(0, syncobj_wait(self->fd, so, 0));
	}
	/* The queue is still healthy: every error above was caught early. */
	{
		struct drm_vagx_queue_get_state st = { .queue_id = q };

		ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE,
				    &st));
		EXPECT_EQ(0, st.state);
	}
}

/*
 * Array strides are bounded (4096): a larger stride made one ioctl scan
 * up to 4 GiB of user memory per element for nonzero bytes.
 */
TEST_F(vagx, array_stride_limit)
{
	static uint8_t buf[2 * 8192] __attribute__((aligned(8)));
	struct drm_vagx_vm_bind_op *op = (void *)buf;
	struct drm_vagx_vm_bind b = { 0 };
	struct drm_vagx_submit sub = { 0 };
	uint32_t vm, h, q;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, 0, &h));
	memset(buf, 0, sizeof(buf));
	*op = (struct drm_vagx_vm_bind_op){ .op = DRM_VAGX_BIND_OP_MAP,
		.handle = h, .va = self->info.va_start, .range = PAGE };
	b.vm_id = vm;
	b.ops.count = 1;
	b.ops.array = (uintptr_t)buf;
	b.ops.stride = 4097;
	EXPECT_EQ(-E2BIG, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.ops.stride = 8192;
	EXPECT_EQ(-E2BIG, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.ops.stride = 4096;
	EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));

	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	memset(buf, 0, sizeof(buf));
	((struct drm_vagx_cmd *)buf)->type = DRM_VAGX_QUEUE_TYPE_COMPUTE;
	sub.queue_id = q;
	sub.cmds.count = 1;
	sub.cmds.array = (uintptr_t)buf;
	sub.cmds.stride = 4097;
	EXPECT_EQ(-E2BIG, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &sub));
	sub.cmds.stride = 4096;
	EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_SUBMIT, &sub));
}

struct qc_race {
	int fd;
	uint32_t vm;
	volatile int ready, go;
	int delay;
	int ret;
	uint32_t q;
};

static void *qc_race_thread(void *arg)
{
	struct qc_race *r = arg;

	r->ready = 1;
	while (!r->go)
		;
	spin(r->delay);
	r->ret = queue_create(r->fd, r->vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
			      DRM_VAGX_PRIORITY_MEDIUM, &r->q);
	return NULL;
}

/*
 * QUEUE_CREATE racing VM_DESTROY on the same VM: either the queue exists
 * and VM_DESTROY said -EBUSY, or VM_DESTROY succeeded and QUEUE_CREATE
 * said -ENOENT; never both succeeding (a queue on a destroyed VM id).
 */
TEST_F(vagx, queue_create_vm_destroy_race)
{
	int both = 0, created = 0, destroyed = 0;

	for (int i = 0; i < 400; i++) {
		/* Sweep the offset between the two ioctls across the window. */
		struct qc_race r = { .fd = self->fd,
				     .delay = i & 1 ? (i / 2 % 40) * 100 : 0 };
		pthread_t t;
		int d;

		ASSERT_EQ(0, vm_create(self->fd, &r.vm));
		ASSERT_EQ(0, pthread_create(&t, NULL, qc_race_thread, &r));
		while (!r.ready)
			;
		r.go = 1;
		spin(i & 1 ? 0 : (i / 2 % 40) * 100);
		d = vm_destroy(self->fd, r.vm);
		pthread_join(t, NULL);
		both += !d && !r.ret;
		created += !r.ret;
		destroyed += !d;
		if (!r.ret) {
			struct drm_vagx_queue_destroy qd = { .queue_id = r.q };

			ASSERT_EQ(0, vioctl(self->fd,
					    DRM_IOCTL_VAGX_QUEUE_DESTROY, &qd));
		}
		if (d)
			ASSERT_EQ(0, vm_destroy(self->fd, r.vm));
	}
	TH_LOG("created %d, destroyed %d, both %d", created, destroyed, both);
	EXPECT_EQ(0, both);
}
