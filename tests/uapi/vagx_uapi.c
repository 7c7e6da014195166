// SPDX-License-Identifier: MIT
/*
 * vagx UAPI kselftests, run inside the guest:
 *   tests/guest/vagx-guest -- build/uapi-tests/vagx_uapi
 * Every ioctl's success paths and documented errnos. Tests that need the
 * device to execute jobs SKIP while it cannot (debugfs vagx_rings says
 * hw_runs_jobs: 0). The gpu_* tests run real compute jobs, encoded with the
 * generated vagx_hw.h / vagx_isa.h (tests/uapi/build.sh generates them).
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

#include <sys/wait.h>
#include <linux/sync_file.h>

#include "drm.h"
#include "vagx_drm.h"
#include "vagx_hw.h"
#include "vagx_isa.h"
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

/* ---- compute jobs on the device ---- */

/* Where the GPU tests put things in their VMs. */
#define GPU_CODE_VA	(0x100000000ull)	/* code, uniforms, descriptor */
#define GPU_OUT_VA	(0x200000000ull)
#define GPU_OUT2_VA	(0x300000000ull)
#define GPU_SRC_VA	(0x400000000ull)
#define GPU_DST_VA	(0x500000000ull)
#define GPU_HOLE_VA	(0x600000000ull)	/* never mapped */
#define GPU_TG		64

static int fence_status(int fd, uint32_t syncobj)
{
	struct drm_syncobj_handle h = {
		.handle = syncobj,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	struct sync_file_info info = { 0 };
	int ret;

	if (ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h))
		return -1000 - errno;
	ret = ioctl(h.fd, SYNC_IOC_FILE_INFO, &info);
	close(h.fd);
	return ret ? -2000 - errno : info.status;
}

static int syncobj_wait_ms(int fd, uint32_t handle, int ms)
{
	struct timespec ts;
	struct drm_syncobj_wait w = { .handles = (uintptr_t)&handle,
				      .count_handles = 1 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.timeout_nsec = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec +
			 (int64_t)ms * 1000000ll;
	return vioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

static struct vagx_src R(unsigned int i)
{
	return (struct vagx_src){ .idx = i, .file = VAGX_FILE_R };
}

static struct vagx_src U(unsigned int i)
{
	return (struct vagx_src){ .idx = i, .file = VAGX_FILE_U };
}

static struct vagx_src SR(unsigned int i)
{
	return (struct vagx_src){ .idx = i, .file = VAGX_FILE_SR };
}

static struct vagx_src IMM(unsigned int slot)
{
	return (struct vagx_src){ .idx = slot, .file = VAGX_FILE_IMM };
}

static struct vagx_instr i_mov_sr(unsigned int dst, unsigned int sr)
{
	return (struct vagx_instr){ .op = VAGX_OP_MOV, .dst = dst,
				    .src = { SR(sr) } };
}

/* dst = src * a + b */
static struct vagx_instr i_imad(unsigned int dst, unsigned int src,
				uint32_t a, uint32_t b)
{
	return (struct vagx_instr){ .op = VAGX_OP_IMAD, .dst = dst, .x = 1,
				    .src = { R(src), IMM(0), IMM(1) },
				    .imm = { a, b } };
}

/* dst = *(u32 *)(u[ubase]:u[ubase+1] + r[off]) */
static struct vagx_instr i_ld(unsigned int dst, unsigned int ubase,
			      unsigned int off)
{
	return (struct vagx_instr){ .op = VAGX_OP_LD_GLOBAL, .dst = dst,
				    .mod = VAGX_MEMSIZE_B32,
				    .src = { U(ubase), R(off) } };
}

static struct vagx_instr i_st(unsigned int ubase, unsigned int off,
			      unsigned int val)
{
	return (struct vagx_instr){ .op = VAGX_OP_ST_GLOBAL,
				    .mod = VAGX_MEMSIZE_B32,
				    .src = { U(ubase), R(off), R(val) } };
}

static struct vagx_instr i_op(unsigned int op)
{
	return (struct vagx_instr){ .op = op };
}

/* A VM with a code/uniform/descriptor BO mapped at GPU_CODE_VA. */
struct gpu {
	int fd;
	uint32_t vm;
	uint32_t bo;
	uint8_t *map;	/* pages 0-3 code, 4 uniforms, 8 descriptors */
};

static int gpu_init(int fd, struct gpu *g)
{
	int ret;

	g->fd = fd;
	ret = vm_create(fd, &g->vm);
	if (ret)
		return ret;
	ret = bo_create(fd, 16 * PAGE, DRM_VAGX_BO_WB_MMAP, g->vm, &g->bo);
	if (ret)
		return ret;
	g->map = bo_map(fd, g->bo, 16 * PAGE);
	if (!g->map)
		return -ENOMEM;
	return bind1(fd, g->vm, DRM_VAGX_BIND_OP_MAP, g->bo, 0, GPU_CODE_VA,
		     16 * PAGE);
}

/* A BO of @size bytes filled with @fill, mapped at @va; returns its CPU map. */
static uint32_t *gpu_buf(struct gpu *g, uint64_t va, uint64_t size,
			 uint32_t fill, uint32_t *handle)
{
	uint32_t h, *p;

	if (bo_create(g->fd, size, DRM_VAGX_BO_WB_MMAP, g->vm, &h))
		return NULL;
	p = bo_map(g->fd, h, size);
	if (!p)
		return NULL;
	for (uint64_t i = 0; i < size / 4; i++)
		p[i] = fill;
	if (bind1(g->fd, g->vm, DRM_VAGX_BIND_OP_MAP, h, 0, va, size))
		return NULL;
	if (handle)
		*handle = h;
	return p;
}

/*
 * Write program @ins (at most 32 instructions) in code slot @slot (< 32),
 * its uniforms and a compute_job descriptor; returns the descriptor VA.
 */
static uint64_t gpu_job(struct gpu *g, unsigned int slot,
			const struct vagx_instr *ins, unsigned int n,
			const uint64_t *uni, unsigned int nuni,
			uint32_t grid, uint32_t tg)
{
	uint64_t *code = (uint64_t *)(g->map + slot * 512);
	uint32_t *u = (uint32_t *)(g->map + 4 * PAGE + slot * 128);
	uint64_t code_va = GPU_CODE_VA + slot * 512;
	uint64_t uni_va = GPU_CODE_VA + 4 * PAGE + slot * 128;
	uint64_t desc_off = 8 * PAGE + slot * 128;
	struct vagx_compute_job cj;
	unsigned int w = 0;

	for (unsigned int i = 0; i < n; i++) {
		int r = vagx_encode(&ins[i], &code[w]);

		if (r <= 0)
			return 0;
		w += r;
	}
	for (unsigned int i = 0; i < nuni; i++) {
		u[2 * i] = (uint32_t)uni[i];
		u[2 * i + 1] = uni[i] >> 32;
	}
	vagx_compute_job_init(&cj);
	cj.grid_x = grid;
	cj.grid_y = cj.grid_z = 1;
	cj.tg_x = tg;
	cj.tg_y = cj.tg_z = 1;
	cj.program.code_va = code_va;
	cj.program.gpr_count = 16;
	cj.program.uniform_count = 2 * nuni;
	cj.program.uniform_va = uni_va;
	vagx_compute_job_pack((uint32_t *)(g->map + desc_off), &cj);
	__sync_synchronize();
	return GPU_CODE_VA + desc_off;
}

/* out[gid] = gid * mul + add for every thread; uniforms: out. */
static uint64_t gpu_pattern_job(struct gpu *g, unsigned int slot,
				uint64_t out_va, uint32_t mul, uint32_t add,
				uint32_t groups)
{
	const struct vagx_instr p[] = {
		i_mov_sr(0, VAGX_SR_TGID_X),
		i_mov_sr(1, VAGX_SR_TGSIZE_X),
		i_mov_sr(2, VAGX_SR_TINDEX),
		{ .op = VAGX_OP_IMAD, .dst = 0, .src = { R(0), R(1), R(2) } },
		i_imad(3, 0, mul, add),
		i_imad(1, 0, 4, 0),
		i_st(0, 1, 3),
		i_op(VAGX_OP_END),
	};
	uint64_t uni[] = { out_va };

	return gpu_job(g, slot, p, ARRAY_SIZE(p), uni, 1, groups, GPU_TG);
}

/* out[gid] = in[gid] + add; uniforms: in, out. */
static uint64_t gpu_add_job(struct gpu *g, unsigned int slot, uint64_t in_va,
			    uint64_t out_va, uint32_t add, uint32_t groups)
{
	const struct vagx_instr p[] = {
		i_mov_sr(0, VAGX_SR_TGID_X),
		i_mov_sr(1, VAGX_SR_TGSIZE_X),
		i_mov_sr(2, VAGX_SR_TINDEX),
		{ .op = VAGX_OP_IMAD, .dst = 0, .src = { R(0), R(1), R(2) } },
		i_imad(1, 0, 4, 0),
		i_ld(3, 0, 1),
		i_imad(3, 3, 1, add),
		i_st(2, 1, 3),
		i_op(VAGX_OP_END),
	};
	uint64_t uni[] = { in_va, out_va };

	return gpu_job(g, slot, p, ARRAY_SIZE(p), uni, 2, groups, GPU_TG);
}

/* An endless loop: only abort, timeout or reset ends it. */
static uint64_t gpu_hang_job(struct gpu *g, unsigned int slot)
{
	const struct vagx_instr p[] = {
		i_op(VAGX_OP_LOOP),
		i_imad(0, 0, 1, 1),
		i_op(VAGX_OP_ENDLOOP),
		i_op(VAGX_OP_END),
	};

	return gpu_job(g, slot, p, ARRAY_SIZE(p), NULL, 0, 1, 1);
}

/* Submit one compute command, optionally signalling binary syncobj @out. */
static int gpu_submit(int fd, uint32_t q, uint64_t desc, uint32_t out)
{
	struct drm_vagx_sync sy = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				    .flags = DRM_VAGX_SYNC_SIGNAL,
				    .handle = out };
	struct drm_vagx_cmd c = { .type = DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  .desc_va = desc };

	if (out)
		c.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(1, &sy);
	return submit(fd, q, &c, 1, NULL);
}

static int check_pattern(const uint32_t *p, unsigned int n, uint32_t mul,
			 uint32_t add)
{
	for (unsigned int i = 0; i < n; i++)
		if (p[i] != i * mul + add) {
			fprintf(stderr, "# word %u: %#x, expected %#x\n", i,
				p[i], i * mul + add);
			return 0;
		}
	return 1;
}

static int param_write(const char *name, const char *val)
{
	char path[128];
	int f, ret;

	snprintf(path, sizeof(path), "/sys/module/vagx/parameters/%s", name);
	f = open(path, O_WRONLY);
	if (f < 0)
		return -errno;
	ret = write(f, val, strlen(val)) < 0 ? -errno : 0;
	close(f);
	return ret;
}

static int param_read(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/sys/module/vagx/parameters/%s", name);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -errno;
	n = read(f, buf, len - 1);
	close(f);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return 0;
}

#define REQUIRE_GPU() do {						\
	if (!hw_runs_jobs(self->fd))					\
		SKIP(return, "the device does not execute jobs");	\
	if (!(self->info.queue_types & (1u << DRM_VAGX_QUEUE_TYPE_COMPUTE))) \
		SKIP(return, "no compute queues");			\
} while (0)

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
	uint32_t q[8], qn = 0, fh, fc, fi, done, *o1, *o2, *o3;
	unsigned int stride, i;
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
	for (i = 0; i <= stride; i++)
		ASSERT_EQ(0, queue_create(self->fd, g.vm,
					  DRM_VAGX_QUEUE_TYPE_COMPUTE,
					  DRM_VAGX_PRIORITY_MEDIUM, &q[i]));
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
	for (i = 0; i < stride; i++)
		ASSERT_EQ(0, queue_create(self->fd, g.vm,
					  DRM_VAGX_QUEUE_TYPE_COMPUTE,
					  DRM_VAGX_PRIORITY_MEDIUM, &qn));
	ASSERT_EQ(0, gpu_submit(self->fd, qn,
				gpu_pattern_job(&g, 3, GPU_DST_VA, 3, 3, groups),
				done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_TRUE(check_pattern(o3, n, 3, 3));
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
	fd2 = open_vagx();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gpu_init(fd2, &g2));
	o2 = gpu_buf(&g2, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, o2);
	ASSERT_EQ(0, queue_create(fd2, g2.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q));
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
	for (i = 0; i < stride; i++)
		ASSERT_EQ(0, queue_create(self->fd, g.vm,
					  DRM_VAGX_QUEUE_TYPE_COMPUTE,
					  DRM_VAGX_PRIORITY_MEDIUM, &qs[i]));
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
	const unsigned int groups = 2, n = groups * GPU_TG;
	struct drm_vagx_queue_get_state st = { 0 };
	uint32_t q[8], qn = 0, fh, fi, done, *o2, *o3;
	unsigned int stride, i;
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
	for (i = 0; i <= stride; i++)
		ASSERT_EQ(0, queue_create(self->fd, g.vm,
					  DRM_VAGX_QUEUE_TYPE_COMPUTE,
					  DRM_VAGX_PRIORITY_MEDIUM, &q[i]));
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
	for (i = 0; i < stride; i++)
		ASSERT_EQ(0, queue_create(self->fd, g.vm,
					  DRM_VAGX_QUEUE_TYPE_COMPUTE,
					  DRM_VAGX_PRIORITY_MEDIUM, &qn));
	ASSERT_EQ(0, gpu_submit(self->fd, qn,
				gpu_pattern_job(&g, 3, GPU_DST_VA, 3, 3, groups),
				done));
	ASSERT_EQ(0, syncobj_wait(self->fd, done, 0));
	EXPECT_EQ(1, fence_status(self->fd, done));
	EXPECT_TRUE(check_pattern(o3, n, 3, 3));
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

	fd2 = open_vagx();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gpu_init(fd2, &g2));
	o2 = gpu_buf(&g2, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, o2);
	ASSERT_EQ(0, queue_create(fd2, g2.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q2));
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

TEST_HARNESS_MAIN
