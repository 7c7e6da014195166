// SPDX-License-Identifier: MIT
/*
 * vagx_uapi kselftests: failed, wedged and stuck TLB invalidations: what the kernel
 * quarantines instead of freeing, and its recovery.
 * Part of vagx_uapi (vagx_uapi.c includes it; see vagx_uapi.h).
 */
#include "vagx_uapi.h"

/* Count of "NAME N" in debugfs vagx_vms's "tlb:" line, or -1. */
static int tlb_stat(int fd, const char *name)
{
	char *s = debugfs_read(fd, "vagx_vms"), *p;
	int n = -1;

	p = s ? strstr(s, name) : NULL;
	if (p)
		n = atoi(p + strlen(name) + 1);
	free(s);
	return n;
}

/* Does debugfs vagx_bos list a BO labelled @label? */
static bool bo_listed(int fd, const char *label)
{
	char *s = debugfs_read(fd, "vagx_bos");
	bool found = s && strstr(s, label);

	free(s);
	return found;
}

/*
 * Polls (up to 10 s) until the quarantine is back at @pts/@vmas and a
 * recovery after @rec has run; false on timeout.
 */
static bool quarantine_recovered(int fd, int pts, int vmas, int rec)
{
	for (int i = 0; i < 200; i++) {
		if (tlb_stat(fd, "quarantined_pts") == pts &&
		    tlb_stat(fd, "quarantined_vmas") == vmas &&
		    tlb_stat(fd, "recoveries") > rec && !tlb_stat(fd, "wedged"))
			return true;
		usleep(50000);
	}
	return false;
}

/*
 * A failed TLB invalidation (debugfs vagx_inject_tlb_fail) must not free
 * what the device may still use: the tables an UNMAP detached are
 * quarantined, and so is the BO's pin (the BO outlives its last handle).
 * The VM itself is unchanged from the user's view. The recovery work then
 * invalidates every VM and frees the quarantine (its first two attempts
 * fail here too: three injected failures keep the quarantine for about
 * 300 ms, and show the retries).
 */
TEST_F(vagx, tlb_fail_quarantine)
{
	const uint64_t va = 0x7b0000000000ull;
	char label[64];
	struct drm_vagx_bo_set_label l = { 0 };
	int pts, vmas, rec;
	uint32_t vm, h;

	snprintf(label, sizeof(label), "tlb-quarantine-%d", getpid());
	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	l.handle = h;
	l.label = (uintptr_t)label;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, va,
			   4 * PAGE));
	pts = tlb_stat(self->fd, "quarantined_pts");
	vmas = tlb_stat(self->fd, "quarantined_vmas");
	rec = tlb_stat(self->fd, "recoveries");
	ASSERT_LE(0, pts);
	ASSERT_LE(0, vmas);
	ASSERT_LE(0, rec);

	ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_tlb_fail", "3"));
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   4 * PAGE));
	EXPECT_FALSE(has_mapping(self->fd, va, va + 4 * PAGE, "bo"));
	/* Leaf, level-2 and level-1 tables of the only mapping there. */
	EXPECT_EQ(pts + 3, tlb_stat(self->fd, "quarantined_pts"));
	EXPECT_EQ(vmas + 1, tlb_stat(self->fd, "quarantined_vmas"));
	EXPECT_EQ(0, tlb_stat(self->fd, "wedged"));
	/* Still there and still pinned without its handle. */
	gem_close(self->fd, h);
	EXPECT_TRUE(bo_listed(self->fd, label));

	/* Recovered: the quarantine freed, the BO with it. */
	EXPECT_TRUE(quarantine_recovered(self->fd, pts, vmas, rec));
	EXPECT_FALSE(bo_listed(self->fd, label));
	EXPECT_EQ(0, debugfs_write(self->fd, "vagx_inject_tlb_fail", "0"));
	/* The VM works on. */
	ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, 0, &h));
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, va, PAGE));
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   PAGE));
	EXPECT_EQ(pts, tlb_stat(self->fd, "quarantined_pts"));
	gem_close(self->fd, h);
	EXPECT_EQ(0, vm_destroy(self->fd, vm));
}

/*
 * A wedged device (a TLB invalidation that did not complete even after a
 * global reset; debugfs vagx_inject_tlb_wedge) fails invalidations at once
 * and quarantines what they unmapped; the recovery work resets it,
 * invalidates every VM, frees the quarantine and puts the device back in
 * service: binds and jobs work again.
 */
TEST_F(vagx, tlb_wedge_recovery)
{
	const uint64_t va = 0x7c0000000000ull;
	int pts, vmas, rec;
	uint32_t vm, h, q, done, *p;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, PAGE, DRM_VAGX_BO_WB_MMAP, 0, &h));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, va, PAGE));
	pts = tlb_stat(self->fd, "quarantined_pts");
	vmas = tlb_stat(self->fd, "quarantined_vmas");
	rec = tlb_stat(self->fd, "recoveries");
	ASSERT_LE(0, rec);

	ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_tlb_wedge", "1"));
	EXPECT_EQ(1, tlb_stat(self->fd, "wedged"));
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   PAGE));
	EXPECT_TRUE(quarantine_recovered(self->fd, pts, vmas, rec));

	/* In service: a bind and a job that writes through the new mapping. */
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, va, PAGE));
	if (hw_runs_jobs(self->fd)) {
		p = bo_map(self->fd, h, PAGE);
		ASSERT_NE(NULL, p);
		done = syncobj_create(self->fd);
		ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_COPY,
					  DRM_VAGX_PRIORITY_MEDIUM, &q));
		ASSERT_EQ(0, copy_submit(self->fd, q, DRM_VAGX_CMD_FILL, 0, va,
					 PAGE, 0x5a5a5a5a, done));
		ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
		EXPECT_EQ(1, fence_status(self->fd, done));
		EXPECT_EQ(0x5a5a5a5a, p[PAGE / 4 - 1]);
		munmap(p, PAGE);
		EXPECT_EQ(0, queue_destroy(self->fd, q));
	}
	gem_close(self->fd, h);
	EXPECT_EQ(0, vm_destroy(self->fd, vm));
}

/*
 * A TLB invalidation that stays busy past its 1 s + 2 s timeout (debugfs
 * vagx_inject_tlb_stuck: TLB_INV_STATUS.BUSY reads 1 until then, as with
 * a device whose units do not reach a safepoint) wedges the device. The
 * UNMAP that issued it still succeeds (what it unmapped is quarantined),
 * and the device is recovered at once: the job running on a ring ends
 * -ECANCELED, its queue INNOCENT, long before its 30 s job timeout; the
 * quarantine is freed; a new queue's job runs. Before, the wait reset the
 * device itself and returned: the running job was killed without a
 * completion, its fence waited for the job timeout, and the rings stayed
 * stopped until then.
 */
TEST_F(vagx, tlb_stuck_recovery)
{
	const unsigned int groups = 2, n = groups * GPU_TG;
	const uint64_t va = 0x7d0000000000ull;
	struct drm_vagx_queue_get_state st = { 0 };
	uint32_t q, qn, fh, done, h, *out;
	int pts, vmas, rec, ret;
	double t0, t_unmap, t_end;
	char old[32], pat[48];
	bool in_ring = false;
	uint64_t desc;
	struct gpu g;

	REQUIRE_GPU();
	ASSERT_EQ(0, gpu_init(self->fd, &g));
	out = gpu_buf(&g, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, 0, &h));
	ASSERT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_MAP, h, 0, va,
			   PAGE));
	pts = tlb_stat(self->fd, "quarantined_pts");
	vmas = tlb_stat(self->fd, "quarantined_vmas");
	rec = tlb_stat(self->fd, "recoveries");
	ASSERT_LE(0, rec);
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	ASSERT_EQ(0, param_read("job_timeout_ms", old, sizeof(old)));
	ASSERT_EQ(0, param_write("job_timeout_ms", "30000"));

	/* An endless job in a ring: nothing but a recovery ends it soon. */
	fh = syncobj_create(self->fd);
	desc = gpu_hang_job(&g, 0);
	ASSERT_EQ(0, gpu_submit(self->fd, q, desc, fh));
	snprintf(pat, sizeof(pat), "desc %#llx", (unsigned long long)desc);
	for (int i = 0; i < 100 && !in_ring; i++) {
		char *rings = debugfs_read(self->fd, "vagx_rings");

		in_ring = rings && strstr(rings, pat);
		free(rings);
		if (!in_ring)
			usleep(50000);
	}
	ASSERT_TRUE(in_ring);
	EXPECT_EQ(-ETIME, syncobj_wait_ms(self->fd, fh, 100));

	ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_tlb_stuck", "1"));
	t0 = mono_s();
	EXPECT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   PAGE));
	t_unmap = mono_s() - t0;
	EXPECT_FALSE(has_mapping(self->fd, va, va + PAGE, "bo"));
	ret = syncobj_wait_ms(self->fd, fh, 5000);
	t_end = mono_s() - t0;
	param_write("job_timeout_ms", old);
	TH_LOG("UNMAP returned after %.2f s, the running job ended after %.2f s",
	       t_unmap, t_end);
	/* The stall was waited for, and bounded. */
	EXPECT_LE(2.5, t_unmap);
	EXPECT_GT(6.0, t_unmap);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(-ECANCELED, fence_status(self->fd, fh));
	st.queue_id = q;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &st));
	EXPECT_EQ(DRM_VAGX_QUEUE_STATE_INNOCENT, st.state);
	EXPECT_TRUE(quarantine_recovered(self->fd, pts, vmas, rec));

	/* In service: a new queue's job runs, and binds work. */
	ASSERT_EQ(0, queue_create(self->fd, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &qn));
	done = syncobj_create(self->fd);
	ASSERT_EQ(0, gpu_submit(self->fd, qn,
				gpu_pattern_job(&g, 1, GPU_OUT_VA, 3, 5, groups),
				done));
	ASSERT_EQ(0, syncobj_wait_ms(self->fd, done, 10000));
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_TRUE(check_pattern(out, n, 3, 5));
	EXPECT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_MAP, h, 0, va,
			   PAGE));
	EXPECT_EQ(0, bind1(self->fd, g.vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   PAGE));
	EXPECT_EQ(0, tlb_stat(self->fd, "wedged"));
	gem_close(self->fd, h);
}

/*
 * Root table (debugfs vagx_vms "vm N: root R ...") of the VM that has a
 * mapping starting at @va, or 0.
 */
static uint64_t root_of(int fd, uint64_t va)
{
	char pat[48], *s = debugfs_read(fd, "vagx_vms"), *m, *vmline = NULL;
	uint64_t root = 0;

	snprintf(pat, sizeof(pat), "[%#014llx-", (unsigned long long)va);
	m = s ? strstr(s, pat) : NULL;
	if (m) {
		for (char *p = s; (p = strstr(p, ": root ")) && p < m; p++)
			vmline = p;
		if (vmline)
			root = strtoull(vmline + 7, NULL, 16);
	}
	free(s);
	return root;
}

/*
 * Where debugfs vagx_vms lists the page @root: 1 as a quarantined root
 * ("quarantined root R"), 2 as the root of a live VM, 3 both, 0 neither.
 */
static int root_listed(int fd, uint64_t root)
{
	char q[48], v[48], *s = debugfs_read(fd, "vagx_vms");
	int where = 0;

	snprintf(q, sizeof(q), "quarantined root %#018llx",
		 (unsigned long long)root);
	snprintf(v, sizeof(v), ": root %#018llx ", (unsigned long long)root);
	if (s && strstr(s, q))
		where |= 1;
	if (s && strstr(s, v))
		where |= 2;
	free(s);
	return where;
}

/* Polls (up to 2 s) until debugfs lists @root as quarantined. */
static bool root_quarantine_seen(int fd, uint64_t root)
{
	for (int i = 0; i < 200; i++) {
		if (root_listed(fd, root) & 1)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * A VM whose teardown TLB invalidation fails keeps its root table in the
 * quarantine, not only the tables below it: the device may still hold
 * translations cached under the root's bus address, and a VM given the
 * same page as its root before the recovery's invalidation of every VM
 * would be translated through them. Its only mapping is NULL, so no vm_bo
 * keeps the VM (and with it, before, the root) alive. Four injected
 * failures (the teardown's and three recovery attempts) keep the
 * quarantine for about 1.5 s: the root is listed, VMs created meanwhile
 * get other pages, and the recovery frees it with the rest (the counters
 * return to their values before). The same for an empty VM destroyed
 * while the device is wedged (an earlier invalidation failed): its
 * teardown now invalidates too, and fails, although nothing is mapped.
 */
TEST_F(vagx, tlb_fail_root_quarantine)
{
	const uint64_t va = 0x7e0000000000ull;
	int pts, vmas, rec, roots, ret;
	uint32_t vm, more[4];
	uint64_t root;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ret = bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0, va, PAGE);
	if (!(self->info.features & DRM_VAGX_FEATURE_MAP_NULL)) {
		EXPECT_EQ(0, vm_destroy(self->fd, vm));
		SKIP(return, "device has no NULL PTEs (FEATURES.SPARSE_NULL)");
	}
	ASSERT_EQ(0, ret);
	root = root_of(self->fd, va);
	ASSERT_NE(0, root);
	EXPECT_EQ(2, root_listed(self->fd, root));
	pts = tlb_stat(self->fd, "quarantined_pts");
	vmas = tlb_stat(self->fd, "quarantined_vmas");
	rec = tlb_stat(self->fd, "recoveries");
	roots = tlb_stat(self->fd, "quarantined_roots");
	ASSERT_LE(0, pts);
	ASSERT_LE(0, vmas);
	ASSERT_LE(0, rec);
	EXPECT_LE(0, roots);

	ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_tlb_fail", "4"));
	EXPECT_EQ(0, vm_destroy(self->fd, vm));
	/* Torn down on a workqueue: root, level-1, level-2 and leaf tables. */
	EXPECT_TRUE(root_quarantine_seen(self->fd, root));
	EXPECT_EQ(pts + 4, tlb_stat(self->fd, "quarantined_pts"));
	EXPECT_EQ(roots + 1, tlb_stat(self->fd, "quarantined_roots"));
	/* No VM created meanwhile is given the page. */
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(0, vm_create(self->fd, &more[i]));
		EXPECT_EQ(0, root_listed(self->fd, root) & 2);
	}
	EXPECT_TRUE(quarantine_recovered(self->fd, pts, vmas, rec));
	EXPECT_EQ(roots, tlb_stat(self->fd, "quarantined_roots"));
	EXPECT_EQ(0, root_listed(self->fd, root) & 1);
	EXPECT_EQ(0, debugfs_write(self->fd, "vagx_inject_tlb_fail", "0"));
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(0, vm_destroy(self->fd, more[i]));

	/* An empty VM torn down on a wedged device. */
	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0, va,
			   PAGE));
	root = root_of(self->fd, va);
	ASSERT_NE(0, root);
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   PAGE));
	pts = tlb_stat(self->fd, "quarantined_pts");
	rec = tlb_stat(self->fd, "recoveries");
	ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_tlb_wedge", "1"));
	EXPECT_EQ(0, vm_destroy(self->fd, vm));
	EXPECT_TRUE(root_quarantine_seen(self->fd, root));
	if (tlb_stat(self->fd, "wedged") == 1 &&
	    tlb_stat(self->fd, "quarantined_pts") == pts) {
		/* Nothing started the recovery: have an UNMAP start it. */
		ASSERT_EQ(0, vm_create(self->fd, &vm));
		EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0,
				   0, va, PAGE));
		EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
				   va, PAGE));
		EXPECT_EQ(0, vm_destroy(self->fd, vm));
	}
	EXPECT_TRUE(quarantine_recovered(self->fd, pts, vmas, rec));
	EXPECT_EQ(roots, tlb_stat(self->fd, "quarantined_roots"));
	EXPECT_EQ(0, root_listed(self->fd, root));
}
