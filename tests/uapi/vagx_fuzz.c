// SPDX-License-Identifier: MIT
/*
 * vagx_fuzz: random and mutated-valid ioctls on the vagx render node and
 * card0, run inside the guest (tests/guest/suites.list, suite "fuzz"):
 *
 *   build/uapi-tests/vagx_fuzz [--seed S] [--seconds N] [--procs P]
 *                              [--threads T]
 *
 * Without --seed it runs the fixed seed list, splitting --seconds (default
 * 24) between the seeds; with --seed it runs that seed for --seconds. For
 * each seed, P processes (default 2) with T threads each (default 3) open
 * renderD128 and card0 and issue ioctls: valid ones built from the objects
 * they created (BOs, VMs, queues, syncobjs, dumb buffers, framebuffers),
 * the same with one field mutated (bit flips, boundary values), and random
 * bytes under random driver ioctl numbers. Threads close and reopen their
 * process's files at random points, which drops every object of the file
 * while the other threads still use its ids.
 *
 * Output is TAP, one test per seed. A seed fails when a process does not
 * finish in time (a hang: its stacks are in /proc/PID/stack) or when the
 * kernel log gained a WARN, BUG, oops, lockdep or list-corruption report
 * during the run; the line names the seed to rerun it with. The random
 * choices of each thread depend only on the seed, its process and thread
 * number, but the interleaving of threads does not, so a rerun of a seed
 * reproduces the mix of ioctls, not necessarily the exact order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "drm.h"
#include "drm_mode.h"
#include "drm_fourcc.h"
#include "vagx_drm.h"
#include "vagx_hw.h"

#define PAGE		4096ull
#define MAX_OBJS	48
#define VA_LO		0x10000ull
#define VA_HI		((1ull << 48) - (1ull << 32))

static const uint64_t default_seeds[] = { 1, 2, 3, 11, 16, 42 };

/* Ioctls the fuzzer issues, for the coverage figures. */
enum op {
	OP_QUERY, OP_BO_CREATE, OP_BO_MMAP, OP_BO_LABEL, OP_VM_CREATE,
	OP_VM_DESTROY, OP_VM_BIND, OP_VM_STATE, OP_Q_CREATE, OP_Q_DESTROY,
	OP_Q_STATE, OP_SUBMIT, OP_GEM_CLOSE, OP_PRIME, OP_SYNCOBJ,
	OP_DUMB, OP_FB, OP_CURSOR, OP_RANDOM, OP_REOPEN, NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	"DEV_QUERY", "BO_CREATE", "BO_MMAP_OFFSET+mmap", "BO_SET_LABEL",
	"VM_CREATE", "VM_DESTROY", "VM_BIND", "VM_GET_STATE", "QUEUE_CREATE",
	"QUEUE_DESTROY", "QUEUE_GET_STATE", "SUBMIT", "GEM_CLOSE",
	"PRIME export/import", "SYNCOBJ_*", "MODE_*_DUMB", "MODE_ADDFB2/RMFB",
	"MODE_CURSOR/CURSOR2/SETPLANE",
	"random driver ioctl", "close+reopen",
};

/* Counters shared by every process of a run (MAP_SHARED). */
struct stats {
	atomic_ulong calls[NUM_OPS];
	atomic_ulong ok[NUM_OPS];
};

static struct stats *stats;

/* A process's files and the objects they hold (racy by design). */
struct proc {
	pthread_mutex_t lock;	/* held across close+reopen only */
	int render, card;
	uint32_t gen;		/* bumped by every reopen */
	uint32_t bos[MAX_OBJS], vms[MAX_OBJS], queues[MAX_OBJS];
	uint32_t syncobjs[MAX_OBJS], dumbs[MAX_OBJS], fbs[MAX_OBJS];
	uint32_t queue_type[MAX_OBJS];
	uint64_t bo_size[MAX_OBJS];
	volatile int stop;
};

struct thread {
	struct proc *p;
	uint64_t rng;
	unsigned int id;
};

static uint64_t rnd(struct thread *t)
{
	/* xorshift64*: deterministic per (seed, process, thread). */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 2685821657736338717ull;
}

static uint64_t below(struct thread *t, uint64_t n)
{
	return n ? rnd(t) % n : 0;
}

static int chance(struct thread *t, unsigned int one_in)
{
	return below(t, one_in) == 0;
}

/* A value near a boundary, or random. */
static uint64_t edge(struct thread *t)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 4, 7, 8, 4095, 4096, 4097, 0x10000, 1ull << 21,
		1ull << 30, 1ull << 31, 1ull << 32, 1ull << 39, 1ull << 40,
		1ull << 47, 1ull << 48, VA_HI, VA_HI - PAGE, UINT32_MAX,
		UINT32_MAX - 1, INT32_MAX, UINT64_MAX, UINT64_MAX - 4095,
		0x8000000000000000ull,
	};

	if (chance(t, 4))
		return rnd(t);
	return v[below(t, sizeof(v) / sizeof(v[0]))];
}

/* Flip a bit or overwrite a field-sized chunk of a valid argument. */
static void mutate(struct thread *t, void *arg, size_t size)
{
	uint8_t *b = arg;
	size_t off;

	if (!size)
		return;
	if (chance(t, 2)) {
		off = below(t, size);
		b[off] ^= 1u << below(t, 8);
		return;
	}
	off = below(t, size / 4) * 4;
	if (off + 8 <= size && chance(t, 2)) {
		uint64_t v = edge(t);

		memcpy(b + off, &v, 8);
	} else {
		uint32_t v = (uint32_t)edge(t);

		memcpy(b + off, &v, 4);
	}
}

static uint32_t pick(struct thread *t, uint32_t *ids)
{
	uint32_t id = 0;

	/* Mostly a live id (or a stale one); sometimes one never handed out. */
	for (int i = 0; i < 4 && !id; i++)
		id = ids[below(t, MAX_OBJS)];
	return id || !chance(t, 4) ? id : (uint32_t)edge(t);
}

static void put_id(struct thread *t, uint32_t *ids, uint32_t id)
{
	ids[below(t, MAX_OBJS)] = id;
}

static int xioctl(struct thread *t, enum op op, int fd, unsigned long req,
		  void *arg)
{
	int ret = ioctl(fd, req, arg);

	atomic_fetch_add(&stats->calls[op], 1);
	if (!ret)
		atomic_fetch_add(&stats->ok[op], 1);
	return ret;
}

static int open_node(const char *path)
{
	return open(path, O_RDWR | O_CLOEXEC);
}

static void reopen(struct thread *t)
{
	struct proc *p = t->p;
	int which = below(t, 3);

	pthread_mutex_lock(&p->lock);
	/* Other threads keep using the ids (and maybe a reused fd number). */
	if (which != 1) {
		close(p->render);
		p->render = open_node("/dev/dri/renderD128");
	}
	if (which != 0 && p->card >= 0) {
		close(p->card);
		p->card = open_node("/dev/dri/card0");
	}
	p->gen++;
	pthread_mutex_unlock(&p->lock);
	atomic_fetch_add(&stats->calls[OP_REOPEN], 1);
	atomic_fetch_add(&stats->ok[OP_REOPEN], 1);
}

static int fd_of(struct thread *t)
{
	/* Most ioctls go to the render node; card0 has them too. */
	if (t->p->card >= 0 && chance(t, 4))
		return t->p->card;
	return t->p->render;
}

static void do_query(struct thread *t, int m)
{
	union {
		struct drm_vagx_gpu_info info;
		struct drm_vagx_timestamp ts;
		uint8_t raw[256];
	} u;
	struct drm_vagx_dev_query q = { .type = below(t, 4),
					.size = below(t, 2) ? sizeof(u.info) : below(t, 260),
					.pointer = chance(t, 4) ? 0 : (uintptr_t)&u };

	memset(&u, 0, sizeof(u));
	u.ts.clockid = below(t, 12);
	if (m)
		mutate(t, &q, sizeof(q));
	/*
	 * The kernel writes (and zero-fills up to @size) through @pointer: a
	 * mutated pointer must not land on our own stack or heap.
	 */
	if (q.pointer && q.pointer != (uintptr_t)&u)
		q.pointer = chance(t, 2) ? 1ull << 46 : 8;
	if (q.size > sizeof(u) && q.pointer == (uintptr_t)&u)
		q.size = sizeof(u);
	xioctl(t, OP_QUERY, fd_of(t), DRM_IOCTL_VAGX_DEV_QUERY, &q);
}

static uint64_t bo_size(struct thread *t)
{
	if (chance(t, 32))
		return edge(t);
	return (1 + below(t, 64)) * PAGE * (chance(t, 8) ? 16 : 1);
}

static void do_bo_create(struct thread *t, int m)
{
	struct drm_vagx_bo_create c = { .size = bo_size(t),
					.flags = below(t, 3) };

	if (chance(t, 4))
		c.vm_id = pick(t, t->p->vms);
	int fd = fd_of(t);

	if (m)
		mutate(t, &c, sizeof(c));
	if (!xioctl(t, OP_BO_CREATE, fd, DRM_IOCTL_VAGX_BO_CREATE, &c)) {
		uint32_t i = below(t, MAX_OBJS);

		struct drm_gem_close gc = { .handle = c.handle };

		/*
		 * The BOs a process keeps are its own memory: a MAP or mmap
		 * gets all their pages, which a guest without swap cannot
		 * reclaim. Kept BOs stay below 4 MiB and a slot's previous
		 * BO is closed, so a process holds at most MAX_OBJS * 4 MiB
		 * (192 MiB) and the run fits the guest's 2 GiB; larger
		 * sizes still reach BO_CREATE. With 64 MiB and leaked
		 * slots, two processes could keep 6 GiB and the OOM killer
		 * ended the run (legitimately: the memory was the fuzzer's).
		 */
		if (c.size > (4ull << 20)) {
			ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
			return;
		}
		gc.handle = t->p->bos[i];
		if (gc.handle)
			ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
		t->p->bos[i] = c.handle;
		t->p->bo_size[i] = c.size;
	}
}

static void do_bo_mmap(struct thread *t, int m)
{
	uint32_t i = below(t, MAX_OBJS);
	struct drm_vagx_bo_mmap_offset o = { .handle = t->p->bos[i] };
	uint64_t size = t->p->bo_size[i];
	int fd = fd_of(t);
	uint8_t *ptr;

	if (m)
		mutate(t, &o, sizeof(o));
	if (xioctl(t, OP_BO_MMAP, fd, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &o))
		return;
	if (!size || size > (4ull << 20))
		size = PAGE;
	ptr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   o.offset);
	if (ptr == MAP_FAILED)
		return;
	/* The BO may be smaller than we think (ids race): touch page 0. */
	ptr[below(t, PAGE)] = (uint8_t)rnd(t);
	munmap(ptr, size);
}

static void do_bo_label(struct thread *t, int m)
{
	char label[64];
	struct drm_vagx_bo_set_label l = { .handle = pick(t, t->p->bos),
					   .label = (uintptr_t)label };

	snprintf(label, sizeof(label), "fuzz-%u-%llu", t->id,
		 (unsigned long long)below(t, 1000));
	if (chance(t, 4))
		l.label = 0;
	if (m)
		mutate(t, &l, sizeof(l));
	xioctl(t, OP_BO_LABEL, fd_of(t), DRM_IOCTL_VAGX_BO_SET_LABEL, &l);
}

static void do_vm_create(struct thread *t, int m)
{
	struct drm_vagx_vm_create c = { 0 };

	if (m)
		mutate(t, &c, sizeof(c));
	if (!xioctl(t, OP_VM_CREATE, fd_of(t), DRM_IOCTL_VAGX_VM_CREATE, &c))
		put_id(t, t->p->vms, c.vm_id);
}

static void do_vm_destroy(struct thread *t, int m)
{
	struct drm_vagx_vm_destroy d = { .vm_id = pick(t, t->p->vms) };

	if (m)
		mutate(t, &d, sizeof(d));
	xioctl(t, OP_VM_DESTROY, fd_of(t), DRM_IOCTL_VAGX_VM_DESTROY, &d);
}

static uint64_t rand_va(struct thread *t)
{
	/* Mostly a few GiB of VA so that mappings collide and split. */
	if (chance(t, 16))
		return VA_LO + below(t, (VA_HI - VA_LO) / PAGE) * PAGE;
	return 0x100000000ull + below(t, 4096) * PAGE * (chance(t, 4) ? 512 : 1);
}

static void do_vm_bind(struct thread *t, int m)
{
	struct drm_vagx_vm_bind_op ops[4];
	struct drm_vagx_sync syncs[2];
	struct drm_vagx_vm_bind b = { .vm_id = pick(t, t->p->vms) };
	uint32_t n = 1 + below(t, 4), i;

	memset(ops, 0, sizeof(ops));
	memset(syncs, 0, sizeof(syncs));
	for (i = 0; i < n; i++) {
		uint32_t j = below(t, MAX_OBJS);
		uint64_t bo = t->p->bo_size[j] ? t->p->bo_size[j] : PAGE;

		ops[i].op = below(t, 3);
		ops[i].va = rand_va(t);
		ops[i].range = (1 + below(t, bo / PAGE)) * PAGE;
		if (ops[i].op == DRM_VAGX_BIND_OP_MAP) {
			ops[i].handle = t->p->bos[j];
			ops[i].bo_offset = below(t, bo / PAGE) * PAGE;
			if (ops[i].bo_offset + ops[i].range > bo)
				ops[i].range = bo - ops[i].bo_offset;
			if (chance(t, 4))
				ops[i].flags = DRM_VAGX_BIND_OP_READONLY;
		} else if (chance(t, 16)) {
			/* Huge ranges: the page-table budget. */
			ops[i].va = VA_LO;
			ops[i].range = (VA_HI - VA_LO) / (1 + below(t, 4)) &
				       ~(PAGE - 1);
		}
	}
	b.ops.stride = sizeof(ops[0]);
	b.ops.count = n;
	b.ops.array = (uintptr_t)ops;
	if (chance(t, 3)) {
		b.flags = DRM_VAGX_VM_BIND_ASYNC;
		syncs[0].type = DRM_VAGX_SYNC_TYPE_SYNCOBJ;
		syncs[0].flags = DRM_VAGX_SYNC_SIGNAL;
		syncs[0].handle = pick(t, t->p->syncobjs);
		b.syncs.stride = sizeof(syncs[0]);
		b.syncs.count = below(t, 2);
		b.syncs.array = (uintptr_t)syncs;
	}
	if (m) {
		if (chance(t, 2))
			mutate(t, &b, sizeof(b));
		else
			mutate(t, &ops[below(t, n)], sizeof(ops[0]));
		/* Keep user pointers ours: -EFAULT paths are cheap anyway. */
		if (b.ops.array != (uintptr_t)ops && !chance(t, 8))
			b.ops.array = (uintptr_t)ops;
		if (b.ops.count > 4 || b.ops.stride > sizeof(ops[0]))
			b.ops.count = below(t, 2);
		if (b.syncs.count > 2 || b.syncs.stride > sizeof(syncs[0]))
			b.syncs.count = 0;
	}
	xioctl(t, OP_VM_BIND, fd_of(t), DRM_IOCTL_VAGX_VM_BIND, &b);
}

static void do_vm_state(struct thread *t, int m)
{
	struct drm_vagx_vm_get_state s = { .vm_id = pick(t, t->p->vms) };

	if (m)
		mutate(t, &s, sizeof(s));
	xioctl(t, OP_VM_STATE, fd_of(t), DRM_IOCTL_VAGX_VM_GET_STATE, &s);
}

static void do_q_create(struct thread *t, int m)
{
	struct drm_vagx_queue_create c = { .vm_id = pick(t, t->p->vms),
					   .type = below(t, 3),
					   .priority = below(t, 3) };

	if (m)
		mutate(t, &c, sizeof(c));
	if (!xioctl(t, OP_Q_CREATE, fd_of(t), DRM_IOCTL_VAGX_QUEUE_CREATE, &c)) {
		uint32_t i = below(t, MAX_OBJS);

		t->p->queues[i] = c.queue_id;
		t->p->queue_type[i] = c.type;
	}
}

static void do_q_destroy(struct thread *t, int m)
{
	struct drm_vagx_queue_destroy d = { .queue_id = pick(t, t->p->queues) };

	if (m)
		mutate(t, &d, sizeof(d));
	xioctl(t, OP_Q_DESTROY, fd_of(t), DRM_IOCTL_VAGX_QUEUE_DESTROY, &d);
}

static void do_q_state(struct thread *t, int m)
{
	struct drm_vagx_queue_get_state s = { .queue_id = pick(t, t->p->queues) };

	if (m)
		mutate(t, &s, sizeof(s));
	xioctl(t, OP_Q_STATE, fd_of(t), DRM_IOCTL_VAGX_QUEUE_GET_STATE, &s);
}

static void do_submit(struct thread *t, int m)
{
	struct drm_vagx_cmd cmds[3];
	struct drm_vagx_sync syncs[2];
	uint32_t qi = below(t, MAX_OBJS);
	struct drm_vagx_submit s = { .queue_id = t->p->queues[qi] };
	uint32_t n = 1 + below(t, 3), i, type = t->p->queue_type[qi];

	memset(cmds, 0, sizeof(cmds));
	memset(syncs, 0, sizeof(syncs));
	syncs[0].type = DRM_VAGX_SYNC_TYPE_SYNCOBJ;
	syncs[0].flags = DRM_VAGX_SYNC_SIGNAL;
	syncs[0].handle = pick(t, t->p->syncobjs);
	for (i = 0; i < n; i++) {
		cmds[i].type = type;
		if (type == DRM_VAGX_QUEUE_TYPE_COPY) {
			uint64_t size = below(t, 4) * PAGE + below(t, 64) * 4;

			cmds[i].copy.dst_va = rand_va(t);
			cmds[i].copy.size = size;
			if (chance(t, 2)) {
				cmds[i].flags = DRM_VAGX_CMD_FILL;
				cmds[i].copy.pattern = (uint32_t)rnd(t);
			} else {
				cmds[i].copy.src_va = cmds[i].copy.dst_va +
						      (1ull << 30);
			}
		} else if (chance(t, 4)) {
			/* Whatever lies there is the descriptor. */
			cmds[i].desc_va = rand_va(t);
		}
		if (chance(t, 3)) {
			cmds[i].syncs.stride = sizeof(syncs[0]);
			cmds[i].syncs.count = 1;
			cmds[i].syncs.array = (uintptr_t)syncs;
		}
	}
	s.cmds.stride = sizeof(cmds[0]);
	s.cmds.count = n;
	s.cmds.array = (uintptr_t)cmds;
	if (m) {
		if (chance(t, 2))
			mutate(t, &s, sizeof(s));
		else
			mutate(t, &cmds[below(t, n)], sizeof(cmds[0]));
		if (s.cmds.array != (uintptr_t)cmds && !chance(t, 8))
			s.cmds.array = (uintptr_t)cmds;
		if (s.cmds.count > 3 || s.cmds.stride > sizeof(cmds[0]))
			s.cmds.count = below(t, 2);
		for (i = 0; i < n; i++)
			if (cmds[i].syncs.count > 2 ||
			    cmds[i].syncs.stride > sizeof(syncs[0]))
				cmds[i].syncs.count = 0;
	}
	xioctl(t, OP_SUBMIT, fd_of(t), DRM_IOCTL_VAGX_SUBMIT, &s);
}

static void do_gem_close(struct thread *t, int m)
{
	struct drm_gem_close c = { .handle = pick(t, t->p->bos) };

	if (m)
		mutate(t, &c, sizeof(c));
	xioctl(t, OP_GEM_CLOSE, fd_of(t), DRM_IOCTL_GEM_CLOSE, &c);
}

static void do_prime(struct thread *t, int m)
{
	struct drm_prime_handle e = { .handle = pick(t, t->p->bos),
				      .flags = DRM_CLOEXEC | DRM_RDWR };
	struct drm_prime_handle i = { 0 };
	int from = fd_of(t), to = fd_of(t);

	if (m)
		mutate(t, &e, sizeof(e));
	if (xioctl(t, OP_PRIME, from, DRM_IOCTL_PRIME_HANDLE_TO_FD, &e))
		return;
	i.fd = e.fd;
	if (!xioctl(t, OP_PRIME, to, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i) &&
	    to == t->p->render)
		put_id(t, t->p->bos, i.handle);
	close(e.fd);
}

static void do_syncobj(struct thread *t, int m)
{
	uint32_t h = pick(t, t->p->syncobjs);
	int fd = fd_of(t);

	switch (below(t, 4)) {
	case 0: {
		struct drm_syncobj_create c = { .flags = below(t, 2) };

		if (m)
			mutate(t, &c, sizeof(c));
		if (!xioctl(t, OP_SYNCOBJ, fd, DRM_IOCTL_SYNCOBJ_CREATE, &c))
			put_id(t, t->p->syncobjs, c.handle);
		break;
	}
	case 1: {
		struct drm_syncobj_destroy d = { .handle = h };

		xioctl(t, OP_SYNCOBJ, fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
		break;
	}
	case 2: {
		struct drm_syncobj_wait w = {
			.handles = (uintptr_t)&h, .count_handles = 1,
			.timeout_nsec = 0,
		};

		xioctl(t, OP_SYNCOBJ, fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
		break;
	}
	default: {
		struct drm_syncobj_array a = { .handles = (uintptr_t)&h,
					       .count_handles = 1 };

		xioctl(t, OP_SYNCOBJ, fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &a);
		break;
	}
	}
}

static void do_dumb(struct thread *t, int m)
{
	int fd = t->p->card;

	if (fd < 0)
		return;
	if (chance(t, 3)) {
		struct drm_mode_destroy_dumb d = { .handle = pick(t, t->p->dumbs) };

		xioctl(t, OP_DUMB, fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
	} else if (chance(t, 2)) {
		struct drm_mode_create_dumb c = {
			.width = 1 + below(t, 1024), .height = 1 + below(t, 768),
			.bpp = chance(t, 4) ? 16 : 32,
		};

		if (m)
			mutate(t, &c, sizeof(c));
		if (!xioctl(t, OP_DUMB, fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
			put_id(t, t->p->dumbs, c.handle);
	} else {
		struct drm_mode_map_dumb mp = { .handle = pick(t, t->p->dumbs) };

		if (m)
			mutate(t, &mp, sizeof(mp));
		xioctl(t, OP_DUMB, fd, DRM_IOCTL_MODE_MAP_DUMB, &mp);
	}
}

static void do_fb(struct thread *t, int m)
{
	int fd = t->p->card;

	if (fd < 0)
		return;
	if (chance(t, 2)) {
		uint32_t id = pick(t, t->p->fbs);

		xioctl(t, OP_FB, fd, DRM_IOCTL_MODE_RMFB, &id);
	} else {
		struct drm_mode_fb_cmd2 f = {
			.width = 1 + below(t, 256), .height = 1 + below(t, 256),
			.pixel_format = DRM_FORMAT_XRGB8888,
		};

		f.handles[0] = pick(t, t->p->dumbs);
		f.pitches[0] = 4096;
		if (m)
			mutate(t, &f, sizeof(f));
		if (!xioctl(t, OP_FB, fd, DRM_IOCTL_MODE_ADDFB2, &f))
			put_id(t, t->p->fbs, f.fb_id);
	}
}

/*
 * The cursor (legacy ioctls) of any head's CRTC and, through SETPLANE at any
 * position and size on any CRTC, the planes GETPLANERESOURCES lists without
 * the universal-planes cap: every head's overlays.
 */
static void do_cursor(struct thread *t, int m)
{
	struct drm_mode_card_res r = { .count_crtcs = VAGX_SCANOUT_MAX_HEADS };
	uint32_t crtcs[VAGX_SCANOUT_MAX_HEADS] = { 0 }, crtc, planes[8] = { 0 };
	struct drm_mode_get_plane_res pr = {
		.plane_id_ptr = (uintptr_t)planes, .count_planes = 8,
	};
	int fd = t->p->card;

	if (fd < 0)
		return;
	r.crtc_id_ptr = (uintptr_t)crtcs;
	xioctl(t, OP_CURSOR, fd, DRM_IOCTL_MODE_GETRESOURCES, &r);
	crtc = crtcs[below(t, VAGX_SCANOUT_MAX_HEADS)];
	if (chance(t, 3)) {
		struct drm_mode_set_plane sp = {
			.crtc_id = crtc, .fb_id = pick(t, t->p->fbs),
			.crtc_x = (int32_t)edge(t), .crtc_y = (int32_t)edge(t),
			.crtc_w = below(t, 300), .crtc_h = below(t, 300),
		};

		xioctl(t, OP_CURSOR, fd, DRM_IOCTL_MODE_GETPLANERESOURCES, &pr);
		sp.plane_id = planes[below(t, 8)];
		sp.src_w = (chance(t, 2) ? sp.crtc_w : below(t, 300)) << 16;
		sp.src_h = (chance(t, 2) ? sp.crtc_h : below(t, 300)) << 16;
		if (m)
			mutate(t, &sp, sizeof(sp));
		xioctl(t, OP_CURSOR, fd, DRM_IOCTL_MODE_SETPLANE, &sp);
	} else {
		struct drm_mode_cursor2 c = {
			.flags = 1 + below(t, 3), .crtc_id = crtc,
			.x = (int32_t)edge(t), .y = (int32_t)edge(t),
			.width = chance(t, 2) ? 64 : below(t, 300),
			.height = chance(t, 2) ? 64 : below(t, 300),
			.handle = chance(t, 4) ? 0 : pick(t, t->p->dumbs),
			.hot_x = (int32_t)edge(t), .hot_y = (int32_t)edge(t),
		};

		if (m)
			mutate(t, &c, sizeof(c));
		if (chance(t, 2))
			xioctl(t, OP_CURSOR, fd, DRM_IOCTL_MODE_CURSOR2, &c);
		else
			xioctl(t, OP_CURSOR, fd, DRM_IOCTL_MODE_CURSOR, &c);
	}
}

static void do_random(struct thread *t)
{
	uint8_t buf[256];
	unsigned int nr = DRM_COMMAND_BASE + below(t, 16);
	unsigned int size = below(t, sizeof(buf));
	unsigned long req;

	for (unsigned int i = 0; i < sizeof(buf); i += 8) {
		uint64_t v = chance(t, 2) ? edge(t) : rnd(t);

		memcpy(buf + i, &v, 8);
	}
	switch (below(t, 4)) {
	case 0:
		req = DRM_IO(nr);
		break;
	case 1:
		req = DRM_IOR(nr, uint8_t[size ? size : 1]);
		break;
	case 2:
		req = DRM_IOW(nr, uint8_t[size ? size : 1]);
		break;
	default:
		req = DRM_IOWR(nr, uint8_t[size ? size : 1]);
		break;
	}
	/* Our own argument size so that the kernel reads only buf. */
	req = (req & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	      ((unsigned long)(size ? size : 1) << _IOC_SIZESHIFT);
	xioctl(t, OP_RANDOM, fd_of(t), req, buf);
}

/*
 * A valid sequence, so that jobs really run: VM, BO, MAP, copy queue, a
 * fill with an out-fence, a short wait. The objects stay for the random
 * ioctls to destroy, reuse and race with.
 */
static void do_scenario(struct thread *t)
{
	int fd = t->p->render;
	struct drm_vagx_vm_create vc = { 0 };
	struct drm_vagx_bo_create bc = { .size = 16 * PAGE };
	struct drm_vagx_vm_bind_op op = { .op = DRM_VAGX_BIND_OP_MAP,
					  .va = rand_va(t), .range = 16 * PAGE };
	struct drm_vagx_vm_bind b = { .ops = DRM_VAGX_OBJ_ARRAY(1, &op) };
	struct drm_vagx_queue_create qc = { .type = DRM_VAGX_QUEUE_TYPE_COPY,
					    .priority = DRM_VAGX_PRIORITY_MEDIUM };
	struct drm_syncobj_create sc = { 0 };
	struct drm_vagx_sync sync = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
				      .flags = DRM_VAGX_SYNC_SIGNAL };
	struct drm_vagx_cmd cmd = { .type = DRM_VAGX_QUEUE_TYPE_COPY,
				    .flags = DRM_VAGX_CMD_FILL,
				    .syncs = DRM_VAGX_OBJ_ARRAY(1, &sync) };
	struct drm_vagx_submit sub = { .cmds = DRM_VAGX_OBJ_ARRAY(1, &cmd) };
	struct drm_syncobj_wait w = { .count_handles = 1 };
	struct timespec now;
	uint32_t i = below(t, MAX_OBJS);

	if (xioctl(t, OP_VM_CREATE, fd, DRM_IOCTL_VAGX_VM_CREATE, &vc) ||
	    xioctl(t, OP_BO_CREATE, fd, DRM_IOCTL_VAGX_BO_CREATE, &bc))
		return;
	t->p->vms[i] = vc.vm_id;
	t->p->bos[i] = bc.handle;
	t->p->bo_size[i] = bc.size;
	op.handle = bc.handle;
	b.vm_id = vc.vm_id;
	qc.vm_id = vc.vm_id;
	if (xioctl(t, OP_VM_BIND, fd, DRM_IOCTL_VAGX_VM_BIND, &b) ||
	    xioctl(t, OP_Q_CREATE, fd, DRM_IOCTL_VAGX_QUEUE_CREATE, &qc) ||
	    xioctl(t, OP_SYNCOBJ, fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
		return;
	t->p->queues[i] = qc.queue_id;
	t->p->queue_type[i] = qc.type;
	t->p->syncobjs[i] = sc.handle;
	sync.handle = sc.handle;
	cmd.copy.dst_va = op.va + below(t, 8) * PAGE;
	cmd.copy.size = (1 + below(t, 8)) * PAGE;
	cmd.copy.pattern = (uint32_t)rnd(t);
	sub.queue_id = qc.queue_id;
	if (xioctl(t, OP_SUBMIT, fd, DRM_IOCTL_VAGX_SUBMIT, &sub))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	w.handles = (uintptr_t)&sc.handle;
	w.timeout_nsec = now.tv_sec * 1000000000ll + now.tv_nsec + 100000000;
	xioctl(t, OP_SYNCOBJ, fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;

	while (!t->p->stop) {
		int m = chance(t, 3);

		switch (below(t, 40)) {
		case 0: case 1: do_query(t, m); break;
		case 2: case 3: case 4: do_bo_create(t, m); break;
		case 5: case 6: do_bo_mmap(t, m); break;
		case 7: do_bo_label(t, m); break;
		case 8: case 9: do_vm_create(t, m); break;
		case 10: do_vm_destroy(t, m); break;
		case 11: case 12: case 13: case 14: case 15:
			do_vm_bind(t, m); break;
		case 16: do_vm_state(t, m); break;
		case 17: case 18: do_q_create(t, m); break;
		case 19: do_q_destroy(t, m); break;
		case 20: do_q_state(t, m); break;
		case 21: case 22: case 23: case 24: do_submit(t, m); break;
		case 25: case 26: do_gem_close(t, m); break;
		case 27: do_prime(t, m); break;
		case 28: case 29: do_syncobj(t, m); break;
		case 30: case 31: do_dumb(t, m); break;
		case 32: do_fb(t, m); break;
		case 33: case 34: do_random(t); break;
		case 35: do_scenario(t); break;
		case 36:
			if (chance(t, 8))
				reopen(t);
			break;
		case 37: do_cursor(t, m); break;
		default: do_vm_bind(t, m); break;
		}
	}
	return NULL;
}

static void proc_main(uint64_t seed, unsigned int pi, unsigned int nthreads,
		      double seconds)
{
	struct proc p = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct thread *ts = calloc(nthreads, sizeof(*ts));
	pthread_t *tids = calloc(nthreads, sizeof(*tids));
	struct timespec d = { .tv_sec = (time_t)seconds,
			      .tv_nsec = (long)((seconds - (time_t)seconds) * 1e9) };

	p.render = open_node("/dev/dri/renderD128");
	p.card = open_node("/dev/dri/card0");
	if (p.render < 0)
		_exit(3);
	for (unsigned int i = 0; i < nthreads; i++) {
		ts[i].p = &p;
		ts[i].id = pi * 100 + i;
		ts[i].rng = (seed * 0x9e3779b97f4a7c15ull) ^
			    ((uint64_t)(pi + 1) << 32) ^ (i + 1);
		for (int k = 0; k < 8; k++)
			rnd(&ts[i]);
		pthread_create(&tids[i], NULL, thread_main, &ts[i]);
	}
	nanosleep(&d, NULL);
	p.stop = 1;
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	/* Exit closes the files with work in flight: part of the test. */
	_exit(0);
}

/* Lines the kernel logged since @fd was opened that report a bug. */
static int kmsg_splats(int fd, char *first, size_t len)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "BUG ", "Oops", "list_add corruption",
		"list_del corruption", "general protection fault",
		"possible circular locking", "possible recursive locking",
		"UBSAN:", "KASAN:", "refcount_t:", "Kernel panic",
		"hung_task", "blocked for more than", "soft lockup",
		"Out of memory", "invoked oom-killer",
	};
	char rec[2048];
	int n = 0;
	ssize_t r;

	while ((r = read(fd, rec, sizeof(rec) - 1)) > 0 || (r < 0 && errno == EPIPE)) {
		if (r <= 0)
			continue;
		rec[r] = 0;
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (!strstr(rec, bad[i]))
				continue;
			if (!n++ && first) {
				char *msg = strchr(rec, ';');

				snprintf(first, len, "%.*s", (int)len - 1,
					 msg ? msg + 1 : rec);
				first[strcspn(first, "\n")] = 0;
			}
			break;
		}
	}
	return n;
}

/* Print the kernel stacks of every thread of @pid (TAP comments). */
static void dump_stacks(pid_t pid)
{
	char path[64], line[256];

	for (int tid = pid; tid < pid + 64; tid++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", pid, tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		printf("#   task %d:\n", tid);
		while (fgets(line, sizeof(line), f))
			printf("#     %s", line);
		fclose(f);
		/* Running tasks show no stack: the syscall and its args. */
		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f))
			printf("#     syscall %s", line);
		if (f)
			fclose(f);
	}
	fflush(stdout);
}

static int run_seed(unsigned int num, uint64_t seed, double seconds,
		    unsigned int nprocs, unsigned int nthreads)
{
	pid_t pids[16];
	char splat[512] = "";
	struct timespec t0, t1;
	unsigned long before = 0, after = 0, ok = 0;
	int kfd, hung = 0, bad = 0, slow = 0;

	for (int i = 0; i < NUM_OPS; i++)
		before += atomic_load(&stats->calls[i]);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (!pids[i])
			proc_main(seed, i, nthreads, seconds);
	}
	/* Every process must be done within its time plus a grace. */
	for (unsigned int i = 0; i < nprocs; i++) {
		int st;

		for (;;) {
			double late;

			if (waitpid(pids[i], &st, WNOHANG) == pids[i])
				goto done;
			usleep(100000);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			late = (t1.tv_sec - t0.tv_sec) +
			       (t1.tv_nsec - t0.tv_nsec) / 1e9 - seconds;
			/* Slow is worth a look: where does it wait? */
			if (late > 10 && !slow) {
				printf("# seed %llu: process %d still running 10 s after its end:\n",
				       (unsigned long long)seed, pids[i]);
				dump_stacks(pids[i]);
				slow = 1;
			}
			if (late > 60)
				break;
		}
		printf("# seed %llu: process %d still running 60 s after its end:\n",
		       (unsigned long long)seed, pids[i]);
		dump_stacks(pids[i]);
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &st, 0);
		hung++;
		continue;
done:
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("# seed %llu: process %d ended with status %#x\n",
			       (unsigned long long)seed, pids[i], st);
			bad++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Let deferred teardown (VM release work) log what it finds. */
	sleep(1);
	if (kfd >= 0) {
		bad += kmsg_splats(kfd, splat, sizeof(splat));
		close(kfd);
	}
	for (int i = 0; i < NUM_OPS; i++) {
		after += atomic_load(&stats->calls[i]);
		ok += atomic_load(&stats->ok[i]);
	}
	if (hung || bad)
		printf("not ok %u seed %llu: %s%s (rerun: vagx_fuzz --seed %llu --seconds %.0f)\n",
		       num, (unsigned long long)seed,
		       hung ? "hang " : "", splat[0] ? splat : "bad exit",
		       (unsigned long long)seed, seconds);
	else
		printf("ok %u seed %llu: %lu ioctls in %.1f s\n", num,
		       (unsigned long long)seed, after - before,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	fflush(stdout);
	return hung || bad;
}

/* Read a vagx module parameter into @buf (empty if missing). */
static void param_get(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/sys/module/vagx/parameters/%s", name);
	f = fopen(path, "r");
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

static void param_set(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	if (!val[0])
		return;
	snprintf(path, sizeof(path), "/sys/module/vagx/parameters/%s", name);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	char hw_tmo[32], sched_tmo[32];
	uint64_t seed = 0;
	double seconds = 24;
	unsigned int nprocs = 2, nthreads = 3, nseeds, fails = 0;
	int have_seed = 0, fd;
	unsigned long total = 0, ok = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
			have_seed = 1;
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--procs") && i + 1 < argc) {
			nprocs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			nthreads = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--seed S] [--seconds N] [--procs P] [--threads T]\n",
				argv[0]);
			return 2;
		}
	}
	if (nprocs < 1 || nprocs > 16 || nthreads < 1 || nthreads > 64)
		return 2;
	nseeds = have_seed ? 1 : sizeof(default_seeds) / sizeof(default_seeds[0]);

	printf("TAP version 13\n1..%u\n", nseeds);
	fd = open_node("/dev/dri/renderD128");
	if (fd < 0) {
		printf("ok 1 # SKIP no render node\n");
		return 0;
	}
	close(fd);
	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return 1;
	/*
	 * Jobs with random descriptors may run until their time limit, and a
	 * queue's next job waits for them (QUEUE_DESTROY too): short limits
	 * keep every ioctl bounded well inside the hang detection.
	 */
	param_get("hw_job_timeout_ms", hw_tmo, sizeof(hw_tmo));
	param_get("job_timeout_ms", sched_tmo, sizeof(sched_tmo));
	param_set("hw_job_timeout_ms", "2000");
	param_set("job_timeout_ms", "3000");
	for (unsigned int i = 0; i < nseeds; i++)
		fails += run_seed(i + 1, have_seed ? seed : default_seeds[i],
				  seconds / nseeds, nprocs, nthreads);
	param_set("hw_job_timeout_ms", hw_tmo);
	param_set("job_timeout_ms", sched_tmo);

	printf("# %u processes x %u threads per seed; ioctls issued (succeeded):\n",
	       nprocs, nthreads);
	for (int i = 0; i < NUM_OPS; i++) {
		unsigned long c = atomic_load(&stats->calls[i]);
		unsigned long k = atomic_load(&stats->ok[i]);

		printf("#   %-22s %9lu (%lu)\n", op_names[i], c, k);
		total += c;
		ok += k;
	}
	printf("# total %lu ioctls, %lu succeeded, %u of %u seeds failed\n",
	       total, ok, fails, nseeds);
	return fails ? 1 : 0;
}
