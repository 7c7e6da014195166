// SPDX-License-Identifier: MIT
/*
 * vagx UAPI kselftests, run inside the guest:
 *   tests/guest/vagx-guest -- build/uapi-tests/vagx_uapi
 * Every ioctl's success paths and documented errnos. Tests that need the
 * device to execute jobs SKIP while it cannot (debugfs vagx_rings says
 * hw_runs_jobs: 0).
 */
#define _GNU_SOURCE
#include <dirent.h>
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

#include "drm.h"
#include "vagx_drm.h"
#include "kselftest_harness.h"

#define PAGE 4096ull

static int vioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : 0;
}

static int minor_of_fd(int fd)
{
	char path[64], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = 0;
	return atoi(strrchr(link, 'D') ? strrchr(link, 'D') + 1 : "0");
}

/* Open the render node whose DRM driver is "vagx". */
static int open_vagx(void)
{
	char path[64], name[32];
	int i;

	for (i = 128; i < 192; i++) {
		struct drm_version v = { 0 };
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (!ioctl(fd, DRM_IOCTL_VERSION, &v) && !strcmp(name, "vagx"))
			return fd;
		close(fd);
	}
	return -1;
}

/* Read a debugfs file of the DRM device into a malloc'ed string. */
static char *debugfs_read(int fd, const char *file)
{
	char path[128];
	char *buf;
	size_t len = 0;
	FILE *f;
	int minor = minor_of_fd(fd) - 128;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/%s", minor, file);
	f = fopen(path, "r");
	if (!f) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/%s",
			 minor + 128, file);
		f = fopen(path, "r");
	}
	if (!f)
		return NULL;
	buf = calloc(1, 1 << 20);
	if (buf)
		len = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

static int debugfs_write(int fd, const char *file, const char *val)
{
	char path[128];
	int minor = minor_of_fd(fd) - 128, dfd, ret;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/%s", minor, file);
	dfd = open(path, O_WRONLY);
	if (dfd < 0)
		return -errno;
	ret = write(dfd, val, strlen(val)) < 0 ? -errno : 0;
	close(dfd);
	return ret;
}

static int hw_runs_jobs(int fd)
{
	char *s = debugfs_read(fd, "vagx_rings");
	int ret = s && strstr(s, "hw_runs_jobs: 1");

	free(s);
	return ret;
}

/* Does debugfs list a mapping [start, end) of the given kind? */
static int has_mapping(int fd, uint64_t start, uint64_t end, const char *kind)
{
	char pat[96];
	char *s = debugfs_read(fd, "vagx_vms");
	int ret;

	snprintf(pat, sizeof(pat), "[%#014llx-%#014llx) %s",
		 (unsigned long long)start, (unsigned long long)end, kind);
	ret = s && strstr(s, pat);
	free(s);
	return ret;
}

static int query(int fd, uint32_t type, void *p, uint32_t size)
{
	struct drm_vagx_dev_query q = { .type = type, .size = size,
					.pointer = (uintptr_t)p };

	return vioctl(fd, DRM_IOCTL_VAGX_DEV_QUERY, &q);
}

static int bo_create(int fd, uint64_t size, uint32_t flags, uint32_t vm,
		     uint32_t *handle)
{
	struct drm_vagx_bo_create c = { .size = size, .flags = flags, .vm_id = vm };
	int ret = vioctl(fd, DRM_IOCTL_VAGX_BO_CREATE, &c);

	*handle = c.handle;
	return ret;
}

static void *bo_map(int fd, uint32_t handle, size_t size)
{
	struct drm_vagx_bo_mmap_offset m = { .handle = handle };
	void *p;

	if (vioctl(fd, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &m))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	return p == MAP_FAILED ? NULL : p;
}

static void gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static int vm_create(int fd, uint32_t *id)
{
	struct drm_vagx_vm_create c = { 0 };
	int ret = vioctl(fd, DRM_IOCTL_VAGX_VM_CREATE, &c);

	*id = c.vm_id;
	return ret;
}

static int vm_destroy(int fd, uint32_t id)
{
	struct drm_vagx_vm_destroy d = { .vm_id = id };

	return vioctl(fd, DRM_IOCTL_VAGX_VM_DESTROY, &d);
}

static int bind_ops(int fd, uint32_t vm, struct drm_vagx_vm_bind_op *ops,
		    uint32_t n, uint32_t flags, struct drm_vagx_sync *syncs,
		    uint32_t nsyncs, uint32_t *failed)
{
	struct drm_vagx_vm_bind b = {
		.vm_id = vm, .flags = flags,
		.ops = DRM_VAGX_OBJ_ARRAY(n, ops),
		.syncs = DRM_VAGX_OBJ_ARRAY(nsyncs, syncs),
	};
	int ret = vioctl(fd, DRM_IOCTL_VAGX_VM_BIND, &b);

	if (failed)
		*failed = b.failed_op;
	return ret;
}

static int bind1(int fd, uint32_t vm, uint32_t op, uint32_t handle,
		 uint64_t off, uint64_t va, uint64_t range)
{
	struct drm_vagx_vm_bind_op o = { .op = op, .handle = handle,
					 .bo_offset = off, .va = va,
					 .range = range };

	return bind_ops(fd, vm, &o, 1, 0, NULL, 0, NULL);
}

static uint32_t syncobj_create(int fd)
{
	struct drm_syncobj_create c = { 0 };

	if (ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c))
		return 0;
	return c.handle;
}

static int64_t abs_timeout(int sec)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)(ts.tv_sec + sec) * 1000000000ll + ts.tv_nsec;
}

static int syncobj_wait(int fd, uint32_t handle, uint64_t point)
{
	struct drm_syncobj_timeline_wait w = {
		.handles = (uintptr_t)&handle, .points = (uintptr_t)&point,
		.timeout_nsec = abs_timeout(5), .count_handles = 1,
	};

	return vioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
}

static int queue_create(int fd, uint32_t vm, uint32_t type, uint32_t prio,
			uint32_t *id)
{
	struct drm_vagx_queue_create c = { .vm_id = vm, .type = type,
					   .priority = prio };
	int ret = vioctl(fd, DRM_IOCTL_VAGX_QUEUE_CREATE, &c);

	if (!ret)
		*id = c.queue_id;
	return ret;
}

static int submit(int fd, uint32_t queue, struct drm_vagx_cmd *cmds,
		  uint32_t n, uint32_t *failed)
{
	struct drm_vagx_submit s = { .queue_id = queue,
				     .cmds = DRM_VAGX_OBJ_ARRAY(n, cmds) };
	int ret = vioctl(fd, DRM_IOCTL_VAGX_SUBMIT, &s);

	if (failed)
		*failed = s.failed_cmd;
	return ret;
}

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

/* ---- DRM_IOCTL_VERSION / DEV_QUERY ---- */

TEST_F(vagx, version)
{
	struct drm_version v = { 0 };
	char name[16] = { 0 };

	v.name = name;
	v.name_len = sizeof(name) - 1;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VERSION, &v));
	EXPECT_STREQ("vagx", name);
	EXPECT_EQ(1, v.version_major);
	EXPECT_EQ(0, v.version_minor);
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
	EXPECT_EQ(48, i->va_bits);
	EXPECT_NE(0, i->va_start);
	EXPECT_EQ(0, i->va_start % PAGE);
	EXPECT_LT(i->va_start, i->va_end);
	EXPECT_EQ(PAGE, i->page_sizes & -i->page_sizes);
	EXPECT_EQ(PAGE, i->sparse_granularity);
	EXPECT_NE(0, i->timestamp_frequency_hz);
	EXPECT_TRUE(i->queue_types & (1u << DRM_VAGX_QUEUE_TYPE_RENDER));
	EXPECT_NE(0, i->max_bind_ops);
	EXPECT_NE(0, i->max_syncs_per_array);
	EXPECT_NE(0, i->max_cmds_per_submit);
	EXPECT_EQ(32, i->tile_width);
	EXPECT_EQ(4096, i->max_label_size);
	EXPECT_TRUE(i->features & DRM_VAGX_FEATURE_ASYNC_BIND);
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

/* ---- BOs ---- */

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

/* ---- VMs ---- */

TEST_F(vagx, vm_create_destroy)
{
	struct drm_vagx_vm_create c = { .flags = 1 };
	struct drm_vagx_vm_destroy d = { 0 };
	struct drm_vagx_vm_get_state s = { 0 };
	uint32_t a, b;

	ASSERT_EQ(0, vm_create(self->fd, &a));
	ASSERT_EQ(0, vm_create(self->fd, &b));
	EXPECT_NE(0, a);
	EXPECT_NE(a, b);
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_VM_CREATE, &c));
	s.vm_id = a;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_VM_GET_STATE, &s));
	EXPECT_EQ(DRM_VAGX_VM_STATE_USABLE, s.state);
	EXPECT_EQ(0, s.fault_count);
	EXPECT_EQ(0, s.last_fault.addr);
	s.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_VM_GET_STATE, &s));
	s.pad = 0;
	s.vm_id = 999;
	EXPECT_EQ(-ENOENT, vioctl(self->fd, DRM_IOCTL_VAGX_VM_GET_STATE, &s));
	d.vm_id = a;
	d.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_VM_DESTROY, &d));
	EXPECT_EQ(0, vm_destroy(self->fd, a));
	EXPECT_EQ(-ENOENT, vm_destroy(self->fd, a));
	EXPECT_EQ(-ENOENT, vm_destroy(self->fd, 0));
	EXPECT_EQ(0, vm_destroy(self->fd, b));
}

TEST_F(vagx, vm_bind_basic)
{
	uint64_t va = self->info.va_start + 0x100000000ull;
	uint32_t vm, h;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, 16 * PAGE, 0, 0, &h));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0, va,
			   16 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va, va + 16 * PAGE, "bo"));
	/* The handle can go: the mapping keeps the BO. */
	gem_close(self->fd, h);
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   16 * PAGE));
	EXPECT_FALSE(has_mapping(self->fd, va, va + 16 * PAGE, "bo"));
	/* Unmapping a hole is fine. */
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   16 * PAGE));
	/* Empty bind. */
	EXPECT_EQ(0, bind_ops(self->fd, vm, NULL, 0, 0, NULL, 0, NULL));
	EXPECT_EQ(0, vm_destroy(self->fd, vm));
}

TEST_F(vagx, vm_bind_errors)
{
	uint64_t va = self->info.va_start + 0x200000000ull;
	uint64_t end = self->info.va_end;
	struct drm_vagx_vm_bind_op o;
	struct drm_vagx_vm_bind b = { 0 };
	uint32_t vm, vm2, h, hp, failed;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, vm_create(self->fd, &vm2));
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, vm2, &hp));

#define B(op_, h_, off_, va_, r_) bind1(self->fd, vm, op_, h_, off_, va_, r_)
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 0, va + 1, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 0, va, PAGE + 1));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 1, va, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 0, va, 0));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 0, 0, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 0, end, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 0, end - PAGE, 2 * PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_UNMAP, 0, 0, -PAGE, 2 * PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 0, va, 5 * PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, 4 * PAGE, va, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, h, -PAGE, va, 2 * PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP, hp, 0, va, PAGE));
	EXPECT_EQ(-ENOENT, B(DRM_VAGX_BIND_OP_MAP, 0xffff, 0, va, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_UNMAP, h, 0, va, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_UNMAP, 0, PAGE, va, PAGE));
	EXPECT_EQ(-EINVAL, B(3, 0, 0, va, PAGE));
	EXPECT_EQ(-EINVAL, B(DRM_VAGX_BIND_OP_MAP_NULL, h, 0, va, PAGE));
#undef B
	o = (struct drm_vagx_vm_bind_op){ .op = DRM_VAGX_BIND_OP_UNMAP,
					  .flags = DRM_VAGX_BIND_OP_READONLY,
					  .va = va, .range = PAGE };
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, &o, 1, 0, NULL, 0, &failed));
	EXPECT_EQ(0, failed);
	o.flags = 1u << 7;
	o.op = DRM_VAGX_BIND_OP_MAP;
	o.handle = h;
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, &o, 1, 0, NULL, 0, NULL));
	o.flags = 0;
	o.pad = 1;
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, &o, 1, 0, NULL, 0, NULL));
	o.pad = 0;
	/* READONLY MAP works; private BO into its own VM works. */
	o.flags = DRM_VAGX_BIND_OP_READONLY;
	EXPECT_EQ(0, bind_ops(self->fd, vm, &o, 1, 0, NULL, 0, NULL));
	EXPECT_EQ(0, bind1(self->fd, vm2, DRM_VAGX_BIND_OP_MAP, hp, 0, va,
			   4 * PAGE));

	/* ioctl-level errors. */
	b.vm_id = 999;
	EXPECT_EQ(-ENOENT, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.vm_id = vm;
	b.pad = 1;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.pad = 0;
	b.flags = 1u << 4;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.flags = 0;
	b.syncs.count = 1;
	b.syncs.stride = sizeof(struct drm_vagx_sync);
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.syncs.count = 0;
	b.ops.count = self->info.max_bind_ops + 1;
	b.ops.stride = sizeof(o);
	EXPECT_EQ(-E2BIG, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.ops.count = 1;
	b.ops.stride = 8;
	b.ops.array = (uintptr_t)&o;
	EXPECT_EQ(-EINVAL, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	b.ops.stride = sizeof(o);
	b.ops.array = 8;
	EXPECT_EQ(-EFAULT, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	{
		/* Larger stride: zero tail accepted, nonzero tail E2BIG. */
		struct { struct drm_vagx_vm_bind_op op; uint64_t ext; } x = {
			.op = { .op = DRM_VAGX_BIND_OP_UNMAP, .va = va,
				.range = PAGE } };

		b.ops.stride = sizeof(x);
		b.ops.array = (uintptr_t)&x;
		EXPECT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
		x.ext = 1;
		EXPECT_EQ(-E2BIG, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, &b));
	}
	EXPECT_EQ(-EFAULT, vioctl(self->fd, DRM_IOCTL_VAGX_VM_BIND, (void *)8));
}

TEST_F(vagx, vm_bind_split)
{
	uint64_t va = self->info.va_start + 0x300000000ull;
	uint32_t vm, a, b;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, 64 * PAGE, 0, 0, &a));
	ASSERT_EQ(0, bo_create(self->fd, 8 * PAGE, 0, 0, &b));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, a, 0, va,
			   64 * PAGE));
	/* Map B over the middle: A is split into prev and next. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, b, 0,
			   va + 8 * PAGE, 8 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va, va + 8 * PAGE, "bo"));
	EXPECT_TRUE(has_mapping(self->fd, va + 8 * PAGE, va + 16 * PAGE, "bo"));
	EXPECT_TRUE(has_mapping(self->fd, va + 16 * PAGE, va + 64 * PAGE, "bo"));
	/* Unmap across the boundary of two mappings. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
			   va + 12 * PAGE, 8 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va + 8 * PAGE, va + 12 * PAGE, "bo"));
	EXPECT_TRUE(has_mapping(self->fd, va + 20 * PAGE, va + 64 * PAGE, "bo"));
	/* Left-aligned and right-aligned partial unmaps. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
			   va + 20 * PAGE, 4 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va + 24 * PAGE, va + 64 * PAGE, "bo"));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
			   va + 60 * PAGE, 4 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va + 24 * PAGE, va + 60 * PAGE, "bo"));
	/* Remap the same range identically, then a superset unmap. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, a, 24 * PAGE,
			   va + 24 * PAGE, 36 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va + 24 * PAGE, va + 60 * PAGE, "bo"));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   64 * PAGE));
	EXPECT_FALSE(has_mapping(self->fd, va, va + 8 * PAGE, "bo"));
	EXPECT_FALSE(has_mapping(self->fd, va + 24 * PAGE, va + 60 * PAGE, "bo"));
}

TEST_F(vagx, vm_bind_map_null)
{
	uint64_t va = self->info.va_start + 0x400000000ull;
	uint32_t vm, h;
	int ret;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	ret = bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0, va, 16 * PAGE);
	if (!(self->info.features & DRM_VAGX_FEATURE_MAP_NULL)) {
		EXPECT_EQ(-EOPNOTSUPP, ret);
		SKIP(return, "device has no NULL PTEs (FEATURES.SPARSE_NULL)");
	}
	ASSERT_EQ(0, ret);
	EXPECT_TRUE(has_mapping(self->fd, va, va + 16 * PAGE, "null"));
	/* Commit: MAP over NULL replaces it. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0,
			   va + 4 * PAGE, 4 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va, va + 4 * PAGE, "null"));
	EXPECT_TRUE(has_mapping(self->fd, va + 4 * PAGE, va + 8 * PAGE, "bo"));
	EXPECT_TRUE(has_mapping(self->fd, va + 8 * PAGE, va + 16 * PAGE, "null"));
	/* Uncommit: MAP_NULL over the BO. */
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP_NULL, 0, 0,
			   va + 4 * PAGE, 4 * PAGE));
	EXPECT_TRUE(has_mapping(self->fd, va + 4 * PAGE, va + 8 * PAGE, "null"));
	ASSERT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va,
			   16 * PAGE));
	EXPECT_FALSE(has_mapping(self->fd, va, va + 4 * PAGE, "null"));
}

TEST_F(vagx, vm_bind_all_or_nothing)
{
	uint64_t va = self->info.va_start + 0x500000000ull;
	struct drm_vagx_vm_bind_op ops[3] = {
		{ .op = DRM_VAGX_BIND_OP_MAP, .va = va, .range = PAGE },
		{ .op = DRM_VAGX_BIND_OP_MAP, .va = va + PAGE, .range = PAGE },
		{ .op = DRM_VAGX_BIND_OP_MAP, .handle = 0xffff,
		  .va = va + 2 * PAGE, .range = PAGE },
	};
	uint32_t vm, h, failed;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	ops[0].handle = h;
	ops[1].handle = h;
	EXPECT_EQ(-ENOENT, bind_ops(self->fd, vm, ops, 3, 0, NULL, 0, &failed));
	EXPECT_EQ(2, failed);
	EXPECT_FALSE(has_mapping(self->fd, va, va + PAGE, "bo"));
	EXPECT_FALSE(has_mapping(self->fd, va + PAGE, va + 2 * PAGE, "bo"));
	ops[2].handle = h;
	ops[1].va = va + 1;
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, ops, 3, 0, NULL, 0, &failed));
	EXPECT_EQ(1, failed);
	ops[1].va = va + PAGE;
	/* Fault injection: the third op fails to allocate. */
	if (!debugfs_write(self->fd, "vagx_inject_bind_prep_fail", "3")) {
		ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_bind_prep_fail",
					   "0"));
		/* Counter is per prepared op: 1 means the first op fails. */
		ASSERT_EQ(0, debugfs_write(self->fd, "vagx_inject_bind_prep_fail",
					   "1"));
		EXPECT_EQ(-ENOMEM, bind_ops(self->fd, vm, ops, 3, 0, NULL, 0,
					    &failed));
		EXPECT_EQ(0, failed);
		EXPECT_FALSE(has_mapping(self->fd, va, va + PAGE, "bo"));
	}
	ASSERT_EQ(0, bind_ops(self->fd, vm, ops, 3, 0, NULL, 0, &failed));
	EXPECT_EQ(DRM_VAGX_NO_FAILED_INDEX, failed);
	EXPECT_TRUE(has_mapping(self->fd, va + 2 * PAGE, va + 3 * PAGE, "bo"));
	/* Later ops see the earlier ones: map then unmap in one call. */
	ops[0] = (struct drm_vagx_vm_bind_op){ .op = DRM_VAGX_BIND_OP_UNMAP,
					       .va = va, .range = 3 * PAGE };
	ASSERT_EQ(0, bind_ops(self->fd, vm, ops, 1, 0, NULL, 0, NULL));
	EXPECT_FALSE(has_mapping(self->fd, va + 2 * PAGE, va + 3 * PAGE, "bo"));
}

TEST_F(vagx, vm_bind_async)
{
	uint64_t va = self->info.va_start + 0x600000000ull;
	struct drm_vagx_vm_bind_op o = { .op = DRM_VAGX_BIND_OP_MAP,
					 .va = va, .range = 4 * PAGE };
	struct drm_vagx_sync s[2];
	uint32_t vm, h, bin, tl, nofence;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	o.handle = h;
	bin = syncobj_create(self->fd);
	tl = syncobj_create(self->fd);
	nofence = syncobj_create(self->fd);
	ASSERT_NE(0, bin);

	s[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				       .flags = DRM_VAGX_SYNC_SIGNAL,
				       .handle = bin };
	s[1] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
				       .flags = DRM_VAGX_SYNC_SIGNAL,
				       .handle = tl, .timeline_value = 5 };
	ASSERT_EQ(0, bind_ops(self->fd, vm, &o, 1, DRM_VAGX_VM_BIND_ASYNC,
			      s, 2, NULL));
	EXPECT_EQ(0, syncobj_wait(self->fd, bin, 0));
	EXPECT_EQ(0, syncobj_wait(self->fd, tl, 5));
	EXPECT_TRUE(has_mapping(self->fd, va, va + 4 * PAGE, "bo"));

	/* Wait on point 5, signal 6; empty ops = pure sync point. */
	s[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
				       .handle = tl, .timeline_value = 5 };
	s[1].timeline_value = 6;
	ASSERT_EQ(0, bind_ops(self->fd, vm, NULL, 0, DRM_VAGX_VM_BIND_ASYNC,
			      s, 2, NULL));
	EXPECT_EQ(0, syncobj_wait(self->fd, tl, 6));

	/* Sync errors. */
	s[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				       .handle = nofence };
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	s[0].handle = 0xffff;
	EXPECT_EQ(-ENOENT, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	s[0].flags = DRM_VAGX_SYNC_SIGNAL;
	EXPECT_EQ(-ENOENT, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	s[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				       .flags = DRM_VAGX_SYNC_SIGNAL,
				       .handle = bin, .timeline_value = 1 };
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	s[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
				       .flags = DRM_VAGX_SYNC_SIGNAL, .handle = tl };
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	s[0].timeline_value = 7;
	s[0].type = 2;
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	s[0].type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ;
	s[0].flags = 1u << 3;
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	s[0].flags = DRM_VAGX_SYNC_SIGNAL;
	s[0].pad = 1;
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));
	/* Wait on a timeline point that has no fence yet. */
	s[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
				       .handle = tl, .timeline_value = 100 };
	EXPECT_EQ(-EINVAL, bind_ops(self->fd, vm, NULL, 0,
				    DRM_VAGX_VM_BIND_ASYNC, s, 1, NULL));

	/* Async unmap, then the state is as expected. */
	o = (struct drm_vagx_vm_bind_op){ .op = DRM_VAGX_BIND_OP_UNMAP,
					  .va = va, .range = 4 * PAGE };
	s[0] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				       .flags = DRM_VAGX_SYNC_SIGNAL,
				       .handle = bin };
	ASSERT_EQ(0, bind_ops(self->fd, vm, &o, 1, DRM_VAGX_VM_BIND_ASYNC,
			      s, 1, NULL));
	EXPECT_EQ(0, syncobj_wait(self->fd, bin, 0));
	EXPECT_FALSE(has_mapping(self->fd, va, va + 4 * PAGE, "bo"));
}

TEST_F(vagx, vm_bind_async_failure)
{
	uint64_t va = self->info.va_start + 0x700000000ull;
	struct drm_vagx_vm_get_state st = { 0 };
	struct drm_vagx_sync s = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				   .flags = DRM_VAGX_SYNC_SIGNAL };
	uint32_t vm, h, q;

	ASSERT_EQ(0, vm_create(self->fd, &vm));
	ASSERT_EQ(0, bo_create(self->fd, 4 * PAGE, 0, 0, &h));
	s.handle = syncobj_create(self->fd);
	if (debugfs_write(self->fd, "vagx_inject_bind_fail", "1"))
		SKIP(return, "no debugfs fault injection");
	{
		struct drm_vagx_vm_bind_op o = { .op = DRM_VAGX_BIND_OP_MAP,
						 .handle = h, .va = va,
						 .range = 4 * PAGE };

		ASSERT_EQ(0, bind_ops(self->fd, vm, &o, 1,
				      DRM_VAGX_VM_BIND_ASYNC, &s, 1, NULL));
	}
	syncobj_wait(self->fd, s.handle, 0);
	st.vm_id = vm;
	ASSERT_EQ(0, vioctl(self->fd, DRM_IOCTL_VAGX_VM_GET_STATE, &st));
	EXPECT_EQ(DRM_VAGX_VM_STATE_UNUSABLE, st.state);
	EXPECT_FALSE(has_mapping(self->fd, va, va + 4 * PAGE, "bo"));
	EXPECT_EQ(-ECANCELED, bind1(self->fd, vm, DRM_VAGX_BIND_OP_MAP, h, 0,
				    va, PAGE));
	EXPECT_EQ(0, bind1(self->fd, vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0, va, PAGE));
	EXPECT_EQ(-ECANCELED, queue_create(self->fd, vm,
					   DRM_VAGX_QUEUE_TYPE_RENDER,
					   DRM_VAGX_PRIORITY_MEDIUM, &q));
}

/* ---- queues and submission ---- */

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

TEST_HARNESS_MAIN
