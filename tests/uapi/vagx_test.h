/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the in-guest UAPI programs (vagx_uapi.c kselftests,
 * vagx_hotplug.c, vagx_bench.c): ioctl wrappers, debugfs and module
 * parameter access, and compute jobs encoded with the generated vagx_hw.h /
 * vagx_isa.h. Everything is static: each program is one translation unit.
 */
#ifndef VAGX_TEST_H
#define VAGX_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "drm.h"
#include "vagx_drm.h"
#include "vagx_hw.h"
#include "vagx_isa.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

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

/* Waits for @point of @handle (0: a binary syncobj) for up to @sec seconds. */
static int syncobj_wait_sec(int fd, uint32_t handle, uint64_t point, int sec)
{
	struct drm_syncobj_timeline_wait w = {
		.handles = (uintptr_t)&handle, .points = (uintptr_t)&point,
		.timeout_nsec = abs_timeout(sec), .count_handles = 1,
	};

	return vioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
}

static int syncobj_wait(int fd, uint32_t handle, uint64_t point)
{
	return syncobj_wait_sec(fd, handle, point, 5);
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

static int queue_destroy(int fd, uint32_t id)
{
	struct drm_vagx_queue_destroy d = { .queue_id = id };

	return vioctl(fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d);
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

#define PCI_DEVICES "/sys/bus/pci/devices"

/*
 * The PCI function (vagx_hotplug.c, the PCI reset tests of vagx_kms.c).
 * A hexadecimal sysfs attribute of function @fn, or ~0u.
 */
static unsigned int pci_attr(const char *fn, const char *attr)
{
	unsigned int v = ~0u;
	char path[512], buf[32];
	FILE *f;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", fn, attr);
	f = fopen(path, "r");
	if (!f)
		return v;
	if (fgets(buf, sizeof(buf), f))
		v = strtoul(buf, NULL, 16);
	fclose(f);
	return v;
}

/* The function with the contract's identity ("0000:00:04.0"). */
static int find_slot(char *slot, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(PCI_DEVICES);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (pci_attr(de->d_name, "vendor") == VAGX_PCI_VENDOR_ID &&
		    pci_attr(de->d_name, "device") == VAGX_PCI_DEVICE_ID) {
			snprintf(slot, len, "%s", de->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

static int sysfs_write(const char *path, const char *val)
{
	int f = open(path, O_WRONLY), ret;

	if (f < 0)
		return -errno;
	ret = write(f, val, strlen(val)) < 0 ? -errno : 0;
	close(f);
	return ret;
}

static int bound_to_vagx(const char *slot)
{
	char path[512], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver", slot);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;
	link[n] = 0;
	return !strcmp(strrchr(link, '/') + 1, "vagx");
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Export the fence a binary syncobj holds now as a sync_file. */
static int export_sync_file(int fd, uint32_t syncobj)
{
	struct drm_syncobj_handle h = {
		.handle = syncobj,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};

	return ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h) ? -errno : h.fd;
}

/* Wait up to @ms for a sync_file; its status (1, or the fence error). */
static int sync_file_status(int sf, int ms)
{
	struct pollfd p = { .fd = sf, .events = POLLIN };
	struct sync_file_info info = { 0 };

	if (poll(&p, 1, ms) != 1)
		return -1000;
	if (ioctl(sf, SYNC_IOC_FILE_INFO, &info))
		return -2000 - errno;
	return info.status;
}

#endif /* VAGX_TEST_H */
