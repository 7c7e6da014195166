// SPDX-License-Identifier: MIT
/*
 * vagx_uapi kselftests: the page tables behind VM_BIND: pages freed by UNMAP, the
 * page-table budget, and MAP_NULL of huge ranges (debugfs pt_pages).
 * Part of vagx_uapi (vagx_uapi.c includes it; see vagx_uapi.h).
 */
#include "vagx_uapi.h"

/* pt_pages of the VM (debugfs vagx_vms) that has a mapping starting at @va. */
static int pt_pages_of(int fd, uint64_t va)
{
	char pat[48], *s = debugfs_read(fd, "vagx_vms"), *m, *vmline = NULL;
	int n = -1;

	snprintf(pat, sizeof(pat), "[%#014llx-", (unsigned long long)va);
	m = s ? strstr(s, pat) : NULL;
	if (m) {
		/* The last "vm N: ... pt_pages P" line before the mapping. */
		for (char *p = s; (p = strstr(p, "pt_pages ")) && p < m; p++)
			vmline = p;
		if (vmline)
			n = atoi(vmline + 9);
	}
	free(s);
	return n;
}

/*
 * Page-table pages needed for 4 KiB pages at @va[0..n): the root plus one
 * table per distinct 512 GiB, 1 GiB and 2 MiB region (9 bits per level).
 */
static int pt_pages_for(const uint64_t *va, int n)
{
	int count = 1;

	for (int shift = 39; shift >= 21; shift -= 9)
		for (int i = 0; i < n; i++) {
			int seen = 0;

			for (int j = 0; j < i; j++)
				seen |= (va[j] >> shift) == (va[i] >> shift);
			count += !seen;
		}
	return count;
}

/*
 * UNMAP frees page-table pages whose last entry it cleared (debugfs
 * pt_pages follows the count derived from the VA layout), synchronously
 * and asynchronously; MAP over the freed range rebuilds them, and a fill
 * through the new tables lands in the new BO.
 */
TEST_F(vagx, vm_bind_pt_free)
{
	const uint64_t R = 0x7a8000000000ull, M = R + (1ull << 39);
	struct drm_vagx_vm_bind_op op = { .op = DRM_VAGX_BIND_OP_UNMAP };
	struct drm_vagx_sync sy = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				    .flags = DRM_VAGX_SYNC_SIGNAL };
	uint64_t v[8];
	uint32_t vm, h, h2;
	int fd = open_vagx();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, vm_create(fd, &vm));
	ASSERT_EQ(0, bo_create(fd, 16 * PAGE, 0, 0, &h));
	/* A marker mapping in its own 512 GiB region names the VM in debugfs. */
	ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, M, PAGE));
	v[0] = M;
	ASSERT_EQ(pt_pages_for(v, 1), pt_pages_of(fd, M));
	ASSERT_EQ(4, pt_pages_for(v, 1));

	v[1] = R;
	ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, R, PAGE));
	EXPECT_EQ(pt_pages_for(v, 2), pt_pages_of(fd, M));
	/* Two pages straddling a 2 MiB boundary: one more leaf table. */
	v[2] = R + (2ull << 20) - PAGE;
	v[3] = R + (2ull << 20);
	ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_MAP, h, PAGE, v[2],
			   2 * PAGE));
	EXPECT_EQ(pt_pages_for(v, 4), pt_pages_of(fd, M));
	/* Another GiB: a level-2 and a leaf table. */
	v[4] = R + (1ull << 30);
	ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, v[4], PAGE));
	EXPECT_EQ(pt_pages_for(v, 5), pt_pages_of(fd, M));
	EXPECT_EQ(10, pt_pages_of(fd, M));	/* root + 3 (M) + 3 (R) + 1 + 2 */

	/* Unmapping the only page of a GiB frees both of its tables. */
	ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, v[4], PAGE));
	EXPECT_EQ(pt_pages_for(v, 4), pt_pages_of(fd, M));
	/* Half of the straddling pair: the leaf table that still maps one
	 * page stays; then the other half frees the second leaf table. */
	ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, v[2], PAGE));
	EXPECT_EQ(pt_pages_for(v, 4), pt_pages_of(fd, M));
	ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, v[3], PAGE));
	EXPECT_EQ(pt_pages_for(v, 2), pt_pages_of(fd, M));

	/*
	 * NULL mappings: a whole 2 MiB block is one NULL entry in its
	 * level-2 table (no leaf table); a block covered in part has a leaf
	 * table. Unmapping a hole frees nothing.
	 */
	if (self->info.features & DRM_VAGX_FEATURE_MAP_NULL) {
		ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0,
				   R + (8ull << 20), 4ull << 20));
		EXPECT_EQ(pt_pages_for(v, 2), pt_pages_of(fd, M));
		ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0,
				   R + (16ull << 20) + PAGE,
				   (4ull << 20) - PAGE));
		v[2] = R + (16ull << 20);
		EXPECT_EQ(pt_pages_for(v, 3), pt_pages_of(fd, M));
		/* Splitting a whole-block NULL entry makes a leaf table. */
		ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
				   R + (9ull << 20), 2ull << 20));
		v[3] = R + (8ull << 20);
		v[4] = R + (10ull << 20);
		EXPECT_EQ(pt_pages_for(v, 5), pt_pages_of(fd, M));
		ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
				   R + (64ull << 20), 2ull << 20));
		EXPECT_EQ(pt_pages_for(v, 5), pt_pages_of(fd, M));
		ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
				   R + (8ull << 20), 12ull << 20));
		EXPECT_EQ(pt_pages_for(v, 2), pt_pages_of(fd, M));
	}

	/* Asynchronous: MAP then UNMAP in one ioctl, then the last page. */
	{
		struct drm_vagx_vm_bind_op ops[2] = {
			{ .op = DRM_VAGX_BIND_OP_MAP, .handle = h,
			  .va = R + (3ull << 30), .range = PAGE },
			{ .op = DRM_VAGX_BIND_OP_UNMAP,
			  .va = R + (3ull << 30), .range = PAGE },
		};

		sy.handle = syncobj_create(fd);
		ASSERT_EQ(0, bind_ops(fd, vm, ops, 2, DRM_VAGX_VM_BIND_ASYNC,
				      &sy, 1, NULL));
		ASSERT_EQ(0, syncobj_wait(fd, sy.handle, 0));
		EXPECT_EQ(pt_pages_for(v, 2), pt_pages_of(fd, M));
		op.va = R;
		op.range = PAGE;
		ASSERT_EQ(0, bind_ops(fd, vm, &op, 1, DRM_VAGX_VM_BIND_ASYNC,
				      &sy, 1, NULL));
		ASSERT_EQ(0, syncobj_wait(fd, sy.handle, 0));
		EXPECT_EQ(pt_pages_for(v, 1), pt_pages_of(fd, M));
	}

	/* Rebuilt tables translate: a fill at R lands in a new BO. */
	if (hw_runs_jobs(fd)) {
		uint32_t q, done = syncobj_create(fd), *p;

		ASSERT_EQ(0, bo_create(fd, PAGE, DRM_VAGX_BO_WB_MMAP, 0, &h2));
		p = bo_map(fd, h2, PAGE);
		ASSERT_NE(NULL, p);
		ASSERT_EQ(0, bind1(fd, vm, DRM_VAGX_BIND_OP_MAP, h2, 0, R,
				   PAGE));
		EXPECT_EQ(pt_pages_for(v, 2), pt_pages_of(fd, M));
		ASSERT_EQ(0, queue_create(fd, vm, DRM_VAGX_QUEUE_TYPE_COPY,
					  DRM_VAGX_PRIORITY_MEDIUM, &q));
		ASSERT_EQ(0, copy_submit(fd, q, DRM_VAGX_CMD_FILL, 0, R, PAGE,
					 0x5eed, done));
		ASSERT_EQ(0, syncobj_wait(fd, done, 0));
		EXPECT_EQ(1, fence_status(fd, done));
		EXPECT_EQ(0x5eed, p[0]);
		EXPECT_EQ(0x5eed, p[PAGE / 4 - 1]);
		munmap(p, PAGE);
	}
	close(fd);
}

/*
 * Page tables are charged to a per-file budget: binds that need one leaf
 * table each (one page every 2 MiB) end with -ENOSPC once the file's VMs
 * hold 1/64 of RAM in tables, instead of running the machine out of
 * memory; the failed bind leaves the VM unchanged and gives back what it
 * allocated, and unmapping gives the budget back.
 */
TEST_F(vagx, vm_bind_pt_budget)
{
	const uint64_t M = 0x7a8000000000ull + (1ull << 39);
	static struct drm_vagx_vm_bind_op ops[1024];
	uint32_t vm, vm2, h, failed = 0;
	int k, ret = 0, before = 0;

	if (!(self->info.features & DRM_VAGX_FEATURE_MAP_NULL))
		SKIP(return, "no MAP_NULL");
	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, vm_create(self->fd, &vm2));
	ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, 0, &h));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, M, PAGE));
	/* 1024 pages 2 MiB apart per bind, alternately in both VMs. */
	for (k = 0; k < 64; k++) {
		for (int i = 0; i < 1024; i++)
			ops[i] = (struct drm_vagx_vm_bind_op){
				.op = DRM_VAGX_BIND_OP_MAP_NULL, .range = PAGE,
				.va = 0x100000000000ull + (uint64_t)k * (4ull << 30) +
				      (uint64_t)i * (2ull << 20) };
		before = pt_pages_of(self->fd, M);
		ret = bind_ops(self->fd, k & 1 ? vm2 : vm, ops, 1024, 0, NULL,
			       0, &failed);
		if (ret)
			break;
	}
	TH_LOG("%d binds of 1024 pages before %d (mem %llu MiB)", k, ret,
	       (unsigned long long)(mem_total_bytes() >> 20));
	ASSERT_EQ(-ENOSPC, ret);
	EXPECT_LT(failed, 1024);
	/* The failed bind's tables are gone again. */
	if (!(k & 1))
		EXPECT_EQ(before, pt_pages_of(self->fd, M));
	EXPECT_FALSE(has_mapping(self->fd, ops[0].va, ops[0].va + PAGE, "null"));
	/* The same through an async bind. */
	EXPECT_EQ(-ENOSPC, bind_ops(self->fd, vm, ops, 1024,
				    DRM_VAGX_VM_BIND_ASYNC, NULL, 0, NULL));
	/* Unmapping gives the budget back. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
			   0x100000000000ull, 1ull << 40));
	ASSERT_EQ(0, bind1(self->fd, vm2, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
			   0x100000000000ull, 1ull << 40));
	EXPECT_EQ(0, bind_ops(self->fd, vm, ops, 1024, 0, NULL, 0, NULL));
}

/*
 * MAP_NULL over the whole user VA window: NULL entries at the highest
 * level each block allows, so a few tables instead of 2^26 leaf tables
 * (before: the guest ran out of memory inside VM_BIND). Through the
 * copy engine, reads from it return zeros and writes are dropped without
 * a fault; a BO mapped in its middle splits it and works.
 */
TEST_F(vagx, vm_bind_map_null_huge)
{
	const uint64_t start = self->info.va_start, end = self->info.va_end;
	const uint64_t bo_va = 0x512345600000ull, hole_va = 0x600000000000ull;
	uint32_t vm, h, q, done;
	uint32_t *p;
	int n;

	if (!(self->info.features & DRM_VAGX_FEATURE_MAP_NULL))
		SKIP(return, "no MAP_NULL");
	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0,
			   start, end - start));
	EXPECT_TRUE(has_mapping(self->fd, start, end, "null"));
	n = pt_pages_of(self->fd, start);
	TH_LOG("whole window NULL: %d page-table pages", n);
	EXPECT_LE(n, 8);
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, bo_va,
			   4 * PAGE));
	EXPECT_LE(pt_pages_of(self->fd, start), n + 3);
	p = bo_map(self->fd, h, 4 * PAGE);
	ASSERT_NE(NULL, p);
	memset(p, 0xff, 4 * PAGE);

	if (!hw_runs_jobs(self->fd) ||
	    !(self->info.queue_types & (1u << DRM_VAGX_QUEUE_TYPE_COPY)))
		SKIP(return, "no copy jobs on this device");
	ASSERT_EQ(0, queue_create(self->fd, vm, DRM_VAGX_QUEUE_TYPE_COPY,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
	done = syncobj_create(self->fd);
	/* Read through a 512 GiB NULL entry into the BO. */
	ASSERT_EQ(0, copy_submit(self->fd, q, 0, hole_va, bo_va, 2 * PAGE, 0,
				 done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_EQ(0, p[0]);
	EXPECT_EQ(0, p[2 * PAGE / 4 - 1]);
	EXPECT_EQ(0xffffffffu, p[2 * PAGE / 4]);
	/* Writes into NULL entries of every level are dropped, no fault. */
	ASSERT_EQ(0, copy_submit(self->fd, q, DRM_VAGX_CMD_FILL, 0,
				 hole_va + 8 * PAGE, PAGE, 7, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	ASSERT_EQ(0, copy_submit(self->fd, q, DRM_VAGX_CMD_FILL, 0,
				 bo_va + 3 * PAGE, PAGE, 7, done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(7, p[3 * PAGE / 4]);
	/* Unmapping it all leaves the root only. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, start,
			   end - start));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, bo_va,
			   PAGE));
	EXPECT_EQ(4, pt_pages_of(self->fd, bo_va));
	munmap(p, 4 * PAGE);
}
