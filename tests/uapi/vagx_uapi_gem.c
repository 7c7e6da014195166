// SPDX-License-Identifier: MIT
/*
 * vagx_uapi kselftests: buffer objects: BO_CREATE, mmap, labels, PRIME, and the size and
 * residency budgets (issue 16).
 * Part of vagx_uapi (vagx_uapi.c includes it; see vagx_uapi.h).
 */
#include "vagx_uapi.h"

TEST_F(vagx, bo_create)
{
	struct drm_vagx_bo_create c = { .size = 1 };
	uint32_t h;

	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_BO_CREATE, &c));
	EXPECT_EQ(PAGE, c.size);
	EXPECT_NE(0, c.handle);
	c.size = PAGE + 1;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_BO_CREATE, &c));
	EXPECT_EQ(2 * PAGE, c.size);

	EXPECT_EQ(-EINVAL, bo_create(self->fd, 0, 0, 0, &h));
	EXPECT_EQ(-EINVAL, bo_create(self->fd, ~0ull, 0, 0, &h));
	EXPECT_EQ(-EINVAL, bo_create(self->fd, PAGE, 1u << 5, 0, &h));
	EXPECT_EQ(-EINVAL, bo_create(self->fd, PAGE,
				     DRM_VAGX_BO_NO_MMAP | DRM_VAGX_BO_WB_MMAP,
				     0, &h));
	EXPECT_EQ(-ENOENT, bo_create(self->fd, PAGE, 0, 77, &h));
	c = (struct drm_vagx_bo_create){ .size = PAGE, .pad = 1 };
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_BO_CREATE, &c));
	EXPECT_EQ(-EFAULT, vioctl(self->fd, DRM_IOCTL_VAGX_BO_CREATE, (void *)8));
}

TEST_F(vagx, bo_mmap)
{
	uint32_t h, h2, flags[] = { 0, DRM_VAGX_BO_WB_MMAP };
	struct drm_vagx_bo_mmap_offset m = { 0 };

	for (int f = 0; f < 2; f++) {
		size_t size = 16 * PAGE;
		uint32_t *p;

		ASSERT_EQ(0, bo_create(self->fd, size, flags[f], 0, &h));
		p = bo_map(self->fd, h, size);
		ASSERT_NE(NULL, p);
		for (size_t k = 0; k < size / 4; k++)
			ASSERT_EQ(0, p[k]);
		for (size_t k = 0; k < size / 4; k++)
			p[k] = k * 3;
		munmap(p, size);
		p = bo_map(self->fd, h, size);
		ASSERT_NE(NULL, p);
		for (size_t k = 0; k < size / 4; k++)
			ASSERT_EQ(k * 3, p[k]);
		munmap(p, size);
		gem_close(self->fd, h);
	}
	ASSERT_EQ(0, bo_create(self->fd, PAGE, DRM_VAGX_BO_NO_MMAP, 0, &h2));
	m.handle = h2;
	EXPECT_EQ(-EPERM, vioctl(self->fd, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &m));
	m.handle = 0xffff;
	EXPECT_EQ(-ENOENT, vioctl(self->fd, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &m));
	m.handle = h2;
	m.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &m));
}

TEST_F(vagx, bo_label)
{
	struct drm_vagx_bo_set_label l = { 0 };
	char *longl = malloc(8192);
	char *dbg;
	uint32_t h;

	ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, 0, &h));
	l.handle = h;
	l.label = (uintptr_t)"vagx-test-label-1234";
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	dbg = debugfs_read(self->fd, "vagx_bos");
	if (dbg)
		EXPECT_NE(NULL, strstr(dbg, "vagx-test-label-1234"));
	free(dbg);
	l.label = 0;
	EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	memset(longl, 'x', 8192);
	longl[4095] = 0;
	l.label = (uintptr_t)longl;
	EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	longl[4095] = 'x';
	longl[4096] = 0;
	EXPECT_EQ(-E2BIG, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	l.label = 8;
	EXPECT_EQ(-EFAULT, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	l.label = 0;
	l.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	l.pad = 0;
	l.handle = 0xffff;
	EXPECT_EQ(-ENOENT, vioctl(self->fd, DRM_IOCTL_VAGX_BO_SET_LABEL, &l));
	free(longl);
}

TEST_F(vagx, prime)
{
	struct drm_prime_handle e = { .flags = DRM_CLOEXEC | DRM_RDWR };
	struct drm_prime_handle i = { 0 };
	int fd2 = open_vagx();
	uint32_t h, vm, hp, *p, *q;

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	p = bo_map(self->fd, h, 4 * PAGE);
	ASSERT_NE(NULL, p);
	p[0] = 0x12345678;
	p[1023] = 0xcafe;
	e.handle = h;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &e));
	/* Same file: same handle back. */
	i.fd = e.fd;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i));
	EXPECT_EQ(h, i.handle);
	/* Other file: same pages. */
	i.handle = 0;
	ASSERT_EQ(0, vioctl(fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i));
	q = bo_map(fd2, i.handle, 4 * PAGE);
	ASSERT_NE(NULL, q);
	EXPECT_EQ(0x12345678, q[0]);
	EXPECT_EQ(0xcafe, q[1023]);
	q[2] = 99;
	EXPECT_EQ(99, p[2]);
	munmap(q, 4 * PAGE);
	munmap(p, 4 * PAGE);
	close(e.fd);

	/* VM-private BOs cannot be exported. */
	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, vm, &hp));
	e.handle = hp;
	EXPECT_EQ(-EPERM, vioctl(self->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &e));
	close(fd2);
}

/*
 * BOs larger than the machine can back are refused with -E2BIG. Before
 * the fix, a 1 TiB BO passed the size check, the shmem helper failed to
 * give it an mmap offset and freed it while it was already on the
 * device's list of BOs: the next BO_CREATE oopsed (list_add corruption).
 */
TEST_F(vagx, bo_create_too_large)
{
	const uint64_t ram = mem_total_bytes();
	const uint64_t sizes[] = { 1ull << 40, 65ull << 30,
				   (uint64_t)UINT32_MAX << 12, ram + (1 << 30) };
	uint32_t h;
	char *s;

	ASSERT_NE(0, ram);
	for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++)
		EXPECT_EQ(-E2BIG, bo_create(self->fd, sizes[i], 0, 0, &h));
	/* What RAM can back is fine: pages come lazily. */
	ASSERT_EQ(0, bo_create(self->fd, ram / 2, 0, 0, &h));
	gem_close(self->fd, h);
	for (int i = 0; i < 64; i++) {
		ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, 0, &h));
		gem_close(self->fd, h);
	}
	s = debugfs_read(self->fd, "vagx_bos");
	ASSERT_NE(NULL, s);
	EXPECT_NE(NULL, strstr(s, "total "));
	free(s);
}

/*
 * MAP pins the whole BO, and pinned pages cannot be reclaimed: all
 * mappings together may pin at most half of RAM. Before that bound, MAPs
 * of large BOs from the ioctl fuzzer drove the guest out of memory.
 */
TEST_F(vagx, map_pin_budget)
{
	const uint64_t ram = mem_total_bytes();
	const uint64_t big = ((ram / 2) + (1 << 20)) & ~(uint64_t)(PAGE - 1);
	uint64_t va = self->info.va_start;
	uint32_t vm, h, small;

	ASSERT_NE(0, ram);
	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, big, 0, 0, &h));
	EXPECT_EQ(-ENOSPC, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, va, big));
	/* Nothing stays charged: a small MAP still works. */
	ASSERT_EQ(0, bo_create(self->fd, PAGE, 0, 0, &small));
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, small, 0, va, PAGE));
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va, PAGE));
	gem_close(self->fd, small);
	gem_close(self->fd, h);
	EXPECT_EQ(0, vm_destroy(self->fd, vm));
}

/* The "resident N bytes" line of debugfs vagx_bos, or -1. */
static long long resident_bytes(int fd)
{
	char *s = debugfs_read(fd, "vagx_bos"), *r;
	long long n = -1;

	r = s ? strstr(s, "\nresident ") : NULL;
	if (r)
		n = strtoll(r + 10, NULL, 10);
	free(s);
	return n;
}

/*
 * The shmem helper gives a BO all its pages at its first use, and they
 * stay until the BO is freed (no swap), so every use that allocates them
 * is bounded by the resident budget (half of RAM), not only VM_BIND MAP:
 * before, an mmap() of one page of a RAM-sized BO, a dma-buf mmap or a
 * framebuffer on it allocated all of it and could run the guest out of
 * memory with tasks stuck in drm_gem_shmem_mmap() behind its resv lock.
 */
TEST_F(vagx, resident_budget)
{
	const uint64_t ram = mem_total_bytes();
	const uint64_t big = ((ram / 2) + (1 << 20)) & ~(uint64_t)(PAGE - 1);
	struct drm_vagx_bo_mmap_offset m = { 0 };
	struct drm_prime_handle e = { .flags = DRM_CLOEXEC | DRM_RDWR };
	long long before, after;
	uint32_t h, small;
	uint8_t *p;
	int card;

	ASSERT_NE(0, ram);
	before = resident_bytes(self->fd);
	ASSERT_EQ(0, bo_create(self->fd, big, 0, 0, &h));
	m.handle = h;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &m));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 m.offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOMEM, errno);
	e.handle = h;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &e));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, e.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOMEM, errno);
	/* A framebuffer on it (the primary node sees the same BO). */
	card = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
	if (card >= 0) {
		struct drm_prime_handle i = { .fd = e.fd };
		struct drm_mode_fb_cmd2 f = {
			.width = 1024, .height = 1024,
			.pixel_format = DRM_FORMAT_XRGB8888,
			.pitches = { 4096 },
		};

		ASSERT_EQ(0, vioctl(card, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i));
		f.handles[0] = i.handle;
		EXPECT_EQ(-ENOSPC, vioctl(card, DRM_IOCTL_MODE_ADDFB2, &f));
		gem_close(card, i.handle);
		close(card);
	}
	close(e.fd);
	gem_close(self->fd, h);
	ASSERT_LE(0, before);
	EXPECT_EQ(before, resident_bytes(self->fd));

	/* A BO is charged at its first use and until it is freed. */
	ASSERT_EQ(0, bo_create(self->fd, 1 << 20, 0, 0, &small));
	EXPECT_EQ(before, resident_bytes(self->fd));
	p = bo_map(self->fd, small, PAGE);
	ASSERT_NE(NULL, p);
	p[0] = 1;
	after = resident_bytes(self->fd);
	EXPECT_EQ(before + (1 << 20), after);
	munmap(p, PAGE);
	EXPECT_EQ(after, resident_bytes(self->fd));
	gem_close(self->fd, small);
	EXPECT_EQ(before, resident_bytes(self->fd));
}
