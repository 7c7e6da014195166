// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */
/*
 * KMS tests of vagx.ko (kselftest harness), run in the guest:
 *   build/uapi-tests/vagx_kms [harness options]
 * and a pattern helper for tests/guest/screendump-test:
 *   build/uapi-tests/vagx_kms --show FORMAT WIDTH HEIGHT HOLD_SECONDS
 * which modesets the pattern vagx_kms_pattern() describes, prints
 * "vagx-kms: showing ..." and keeps it on screen for HOLD_SECONDS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-heap.h>
#include <linux/fb.h>
#include <linux/kd.h>

#include "drm.h"
#include "drm_mode.h"
#include "drm_fourcc.h"
#include "vagx_drm.h"
#include "vagx_hw.h"
#include "kselftest_harness.h"
#include "vagx_test.h"

#define CARD "/dev/dri/card0"

struct kms {
	int fd;
	uint32_t crtc, conn, plane;
	/* Every head's CRTC and connector (CONFIG.NUM_SCANOUTS, contract 1.9). */
	uint32_t crtcs[VAGX_SCANOUT_MAX_HEADS], conns[VAGX_SCANOUT_MAX_HEADS];
	unsigned int nheads;
	struct drm_mode_modeinfo modes[64];
	int nmodes;
	int preferred;
};

struct dumb {
	uint32_t handle, pitch, fb;
	uint64_t size;
	void *map;
};

static int kms_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

static int kms_open(struct kms *k)
{
	struct drm_mode_card_res res = {};
	struct drm_mode_get_connector conn = {};
	uint32_t crtcs[4], conns[4], encs[8];
	int i;

	memset(k, 0, sizeof(*k));
	k->fd = open(CARD, O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	if (kms_ioctl(k->fd, DRM_IOCTL_MODE_GETRESOURCES, &res))
		return -1;
	/*
	 * One CRTC and connector per head. The writeback connectors are
	 * hidden without DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, their encoders
	 * are not.
	 */
	if (res.count_crtcs < 1 || res.count_crtcs > VAGX_SCANOUT_MAX_HEADS ||
	    res.count_connectors != res.count_crtcs ||
	    res.count_encoders < res.count_crtcs ||
	    res.count_encoders > 2 * res.count_crtcs)
		return -2;
	res.crtc_id_ptr = (uintptr_t)crtcs;
	res.connector_id_ptr = (uintptr_t)conns;
	res.encoder_id_ptr = (uintptr_t)encs;
	res.count_fbs = 0;
	if (kms_ioctl(k->fd, DRM_IOCTL_MODE_GETRESOURCES, &res))
		return -3;
	k->nheads = res.count_crtcs;
	memcpy(k->crtcs, crtcs, k->nheads * sizeof(crtcs[0]));
	memcpy(k->conns, conns, k->nheads * sizeof(conns[0]));
	k->crtc = crtcs[0];
	k->conn = conns[0];

	conn.connector_id = k->conn;
	if (kms_ioctl(k->fd, DRM_IOCTL_MODE_GETCONNECTOR, &conn))
		return -4;
	if (conn.count_modes > 64)
		return -5;
	conn.modes_ptr = (uintptr_t)k->modes;
	conn.count_props = 0;
	conn.count_encoders = 0;
	if (kms_ioctl(k->fd, DRM_IOCTL_MODE_GETCONNECTOR, &conn))
		return -6;
	k->nmodes = conn.count_modes;
	k->preferred = -1;
	for (i = 0; i < k->nmodes; i++)
		if (k->modes[i].type & DRM_MODE_TYPE_PREFERRED)
			k->preferred = i;
	return 0;
}

static int kms_find_mode(struct kms *k, int w, int h)
{
	int i;

	for (i = 0; i < k->nmodes; i++)
		if (k->modes[i].hdisplay == w && k->modes[i].vdisplay == h)
			return i;
	return -1;
}

static int dumb_create(int fd, struct dumb *d, uint32_t w, uint32_t h,
		       uint32_t bpp)
{
	struct drm_mode_create_dumb c = { .width = w, .height = h, .bpp = bpp };
	struct drm_mode_map_dumb m = {};
	int ret;

	memset(d, 0, sizeof(*d));
	ret = kms_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c);
	if (ret)
		return ret;
	d->handle = c.handle;
	d->pitch = c.pitch;
	d->size = c.size;
	m.handle = c.handle;
	ret = kms_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m);
	if (ret)
		return ret;
	d->map = mmap(NULL, d->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      m.offset);
	if (d->map == MAP_FAILED)
		return -errno;
	return 0;
}

static int add_fb(int fd, uint32_t handle, uint32_t w, uint32_t h,
		  uint32_t format, uint32_t pitch, uint32_t offset,
		  uint32_t *fb_id)
{
	struct drm_mode_fb_cmd2 f = {
		.width = w, .height = h, .pixel_format = format,
	};
	int ret;

	f.handles[0] = handle;
	f.pitches[0] = pitch;
	f.offsets[0] = offset;
	ret = kms_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, &f);
	if (!ret)
		*fb_id = f.fb_id;
	return ret;
}

static int set_crtc(struct kms *k, uint32_t fb, struct drm_mode_modeinfo *mode)
{
	struct drm_mode_crtc c = {
		.crtc_id = k->crtc,
		.fb_id = fb,
		.set_connectors_ptr = (uintptr_t)&k->conn,
		.count_connectors = 1,
		.mode = *mode,
		.mode_valid = 1,
	};

	return kms_ioctl(k->fd, DRM_IOCTL_MODE_SETCRTC, &c);
}

/*
 * The test pattern, as 0xRRGGBB: a red ramp along x, a green ramp along y,
 * blue checkerboard of 32x32 squares. tests/guest/screendump-test computes
 * the same function independently (in Python) from the screendump.
 */
static uint32_t vagx_kms_pattern(uint32_t x, uint32_t y, uint32_t w,
				 uint32_t h)
{
	uint32_t r = x * 255 / (w - 1), g = y * 255 / (h - 1);
	uint32_t b = ((x / 32 + y / 32) & 1) ? 0xff : 0x20;

	return r << 16 | g << 8 | b;
}

static void fill_pattern(void *map, uint32_t pitch, uint32_t format,
			 uint32_t w, uint32_t h)
{
	uint32_t x, y;

	for (y = 0; y < h; y++) {
		uint8_t *row = (uint8_t *)map + (size_t)y * pitch;

		for (x = 0; x < w; x++) {
			uint32_t c = vagx_kms_pattern(x, y, w, h);
			uint32_t r = c >> 16 & 0xff, g = c >> 8 & 0xff, b = c & 0xff;

			switch (format) {
			case DRM_FORMAT_XRGB8888:
			case DRM_FORMAT_ARGB8888:
				((uint32_t *)row)[x] = 0xff000000u | c;
				break;
			case DRM_FORMAT_XBGR8888:
			case DRM_FORMAT_ABGR8888:
				((uint32_t *)row)[x] = 0xff000000u | b << 16 |
						       g << 8 | r;
				break;
			case DRM_FORMAT_RGB565:
				((uint16_t *)row)[x] = (r >> 3) << 11 |
						       (g >> 2) << 5 | b >> 3;
				break;
			}
		}
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for one DRM event on @fd; returns its type or a negative errno. */
static int read_event(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct drm_event *e = buf;
	ssize_t n;

	if (poll(&p, 1, timeout_ms) != 1)
		return -ETIMEDOUT;
	n = read(fd, buf, len);
	if (n < (ssize_t)sizeof(*e))
		return -EIO;
	return e->type;
}

static int refresh_hz(const struct drm_mode_modeinfo *m)
{
	return m->vrefresh;
}

FIXTURE(kms) {
	struct kms k;
	int mode;
};

FIXTURE_SETUP(kms)
{
	int ret = kms_open(&self->k);

	if (ret == -ENOENT)
		SKIP(return, "no " CARD);
	ASSERT_EQ(0, ret);
	ASSERT_GE(self->k.preferred, 0);
	self->mode = self->k.preferred;
}

FIXTURE_TEARDOWN(kms)
{
	close(self->k.fd);
}

/* One CRTC/encoder/connector; virtual connector, modes up to 1920x1080. */
TEST_F(kms, resources)
{
	struct drm_mode_get_connector conn = { .connector_id = self->k.conn };
	struct drm_mode_modeinfo *pref = &self->k.modes[self->k.preferred];
	int i;

	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETCONNECTOR, &conn));
	EXPECT_EQ(DRM_MODE_CONNECTOR_VIRTUAL, conn.connector_type);
	EXPECT_EQ(1, conn.connection) /* connected */;
	EXPECT_EQ(1024, pref->hdisplay);
	EXPECT_EQ(768, pref->vdisplay);
	EXPECT_LE(0, kms_find_mode(&self->k, 1920, 1080));
	EXPECT_LE(0, kms_find_mode(&self->k, 640, 480));
	for (i = 0; i < self->k.nmodes; i++) {
		EXPECT_LE(self->k.modes[i].hdisplay, 1920);
		EXPECT_LE(self->k.modes[i].vdisplay, 1080);
		EXPECT_EQ(60, refresh_hz(&self->k.modes[i]));
	}
}

TEST_F(kms, primary_plane_formats)
{
	struct drm_mode_get_plane_res pr = {};
	struct drm_mode_get_plane p = {};
	static const uint32_t want[] = {
		DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888,
		DRM_FORMAT_ABGR8888, DRM_FORMAT_RGB565,
	};
	uint32_t planes[16], fmts[32];
	unsigned int i, j;

	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_SET_CLIENT_CAP,
			       &(struct drm_set_client_cap){
				       DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1 }));
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETPLANERESOURCES, &pr));
	/* Per head: the primary plane, the overlays, then the cursor plane. */
	ASSERT_EQ((2 + VAGX_SCANOUT_OVERLAYS) * self->k.nheads, pr.count_planes);
	pr.plane_id_ptr = (uintptr_t)planes;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETPLANERESOURCES, &pr));
	p.plane_id = planes[0];
	p.format_type_ptr = (uintptr_t)fmts;
	p.count_format_types = 32;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETPLANE, &p));
	EXPECT_EQ(1, p.possible_crtcs);
	EXPECT_EQ(5, p.count_format_types);
	for (i = 0; i < 5; i++) {
		for (j = 0; j < p.count_format_types; j++)
			if (fmts[j] == want[i])
				break;
		EXPECT_LT(j, p.count_format_types);
	}
}

/* Modeset with a dumb buffer, in every scanout format, then read it back. */
TEST_F(kms, modeset_dumb)
{
	static const struct { uint32_t fourcc, bpp; } f[] = {
		{ DRM_FORMAT_XRGB8888, 32 }, { DRM_FORMAT_ARGB8888, 32 },
		{ DRM_FORMAT_XBGR8888, 32 }, { DRM_FORMAT_ABGR8888, 32 },
		{ DRM_FORMAT_RGB565, 16 },
	};
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	unsigned int i;

	for (i = 0; i < 5; i++) {
		struct drm_mode_crtc get = { .crtc_id = self->k.crtc };
		struct dumb d;

		ASSERT_EQ(0, dumb_create(self->k.fd, &d, m->hdisplay,
					 m->vdisplay, f[i].bpp));
		EXPECT_EQ(0, d.pitch % 64);
		fill_pattern(d.map, d.pitch, f[i].fourcc, m->hdisplay,
			     m->vdisplay);
		ASSERT_EQ(0, add_fb(self->k.fd, d.handle, m->hdisplay,
				    m->vdisplay, f[i].fourcc, d.pitch, 0,
				    &d.fb));
		ASSERT_EQ(0, set_crtc(&self->k, d.fb, m));
		ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETCRTC, &get));
		EXPECT_EQ(d.fb, get.fb_id);
		EXPECT_EQ(1, get.mode_valid);
		EXPECT_EQ(m->hdisplay, get.mode.hdisplay);
		munmap(d.map, d.size);
	}
}

/* Every listed mode, the largest one included, can be set. */
TEST_F(kms, all_modes)
{
	int i;

	for (i = 0; i < self->k.nmodes; i++) {
		struct drm_mode_modeinfo *m = &self->k.modes[i];
		struct dumb d;

		ASSERT_EQ(0, dumb_create(self->k.fd, &d, m->hdisplay,
					 m->vdisplay, 32));
		ASSERT_EQ(0, add_fb(self->k.fd, d.handle, m->hdisplay,
				    m->vdisplay, DRM_FORMAT_XRGB8888, d.pitch,
				    0, &d.fb));
		EXPECT_EQ(0, set_crtc(&self->k, d.fb, m)) {
			TH_LOG("mode %s", m->name);
		}
		munmap(d.map, d.size);
		kms_ioctl(self->k.fd, DRM_IOCTL_MODE_RMFB, &d.fb);
	}
}

TEST_F(kms, bad_framebuffers)
{
	struct dumb d;
	uint32_t fb;

	ASSERT_EQ(0, dumb_create(self->k.fd, &d, 256, 64, 32));
	/* Pitch not a multiple of 4. */
	EXPECT_EQ(-EINVAL, add_fb(self->k.fd, d.handle, 3, 2,
				  DRM_FORMAT_RGB565, 6, 0, &fb));
	/* Offset not 4-byte aligned. */
	EXPECT_EQ(-EINVAL, add_fb(self->k.fd, d.handle, 64, 2,
				  DRM_FORMAT_XRGB8888, 256, 2, &fb));
	/* A format the scanout does not have. */
	EXPECT_EQ(-EINVAL, add_fb(self->k.fd, d.handle, 64, 2,
				  DRM_FORMAT_XRGB2101010, 256, 0, &fb));
	/* Larger than the BO. */
	EXPECT_EQ(-EINVAL, add_fb(self->k.fd, d.handle, 256, 4096,
				  DRM_FORMAT_XRGB8888, 1024, 0, &fb));
	/* Framebuffer smaller than the mode. */
	ASSERT_EQ(0, add_fb(self->k.fd, d.handle, 256, 64,
			    DRM_FORMAT_XRGB8888, d.pitch, 0, &fb));
	EXPECT_NE(0, set_crtc(&self->k, fb, &self->k.modes[self->mode]));
	munmap(d.map, d.size);
}

/* Page flips complete with an event at a vblank. */
TEST_F(kms, page_flip_event)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	struct dumb d[2];
	uint32_t last_seq = 0;
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, dumb_create(self->k.fd, &d[i], m->hdisplay,
					 m->vdisplay, 32));
		memset(d[i].map, i ? 0x40 : 0x80, d[i].size);
		ASSERT_EQ(0, add_fb(self->k.fd, d[i].handle, m->hdisplay,
				    m->vdisplay, DRM_FORMAT_XRGB8888,
				    d[i].pitch, 0, &d[i].fb));
	}
	ASSERT_EQ(0, set_crtc(&self->k, d[0].fb, m));

	for (i = 1; i <= 10; i++) {
		struct drm_mode_crtc_page_flip flip = {
			.crtc_id = self->k.crtc,
			.fb_id = d[i & 1].fb,
			.flags = DRM_MODE_PAGE_FLIP_EVENT,
			.user_data = 0x1000 + i,
		};
		struct drm_mode_crtc get = { .crtc_id = self->k.crtc };
		struct drm_event_vblank ev;
		double t0 = now_s();

		ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_PAGE_FLIP,
				       &flip));
		/* A second flip before the first completed is refused. */
		if (i == 1) {
			flip.user_data = 0;
			EXPECT_EQ(-EBUSY, kms_ioctl(self->k.fd,
						    DRM_IOCTL_MODE_PAGE_FLIP,
						    &flip));
		}
		ASSERT_EQ(DRM_EVENT_FLIP_COMPLETE,
			  read_event(self->k.fd, &ev, sizeof(ev), 2000));
		EXPECT_EQ(0x1000 + i, ev.user_data);
		EXPECT_EQ(self->k.crtc, ev.crtc_id);
		if (i > 1)
			EXPECT_GT(ev.sequence, last_seq);
		last_seq = ev.sequence;
		/* Completed at a vblank, not at once. */
		EXPECT_GT(now_s() - t0, 0.001);
		ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETCRTC, &get));
		EXPECT_EQ(d[i & 1].fb, get.fb_id);
	}
}

/* DRM_IOCTL_WAIT_VBLANK: sequence numbers and timing vs the mode refresh. */
TEST_F(kms, vblank_timing)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	union drm_wait_vblank vb;
	double period = 1.0 / refresh_hz(m), t0, t1, ts0, ts1, wall;
	uint32_t seq0, seq1;
	const int frames = 60;
	struct dumb d;
	int i;

	ASSERT_EQ(0, dumb_create(self->k.fd, &d, m->hdisplay, m->vdisplay, 32));
	ASSERT_EQ(0, add_fb(self->k.fd, d.handle, m->hdisplay, m->vdisplay,
			    DRM_FORMAT_XRGB8888, d.pitch, 0, &d.fb));
	ASSERT_EQ(0, set_crtc(&self->k, d.fb, m));

	memset(&vb, 0, sizeof(vb));
	vb.request.type = _DRM_VBLANK_RELATIVE;
	vb.request.sequence = 1;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_WAIT_VBLANK, &vb));
	seq0 = vb.reply.sequence;
	ts0 = vb.reply.tval_sec + vb.reply.tval_usec / 1e6;
	t0 = now_s();
	for (i = 0; i < frames; i++) {
		uint32_t prev = vb.reply.sequence;

		memset(&vb, 0, sizeof(vb));
		vb.request.type = _DRM_VBLANK_RELATIVE;
		vb.request.sequence = 1;
		ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_WAIT_VBLANK, &vb));
		EXPECT_GT(vb.reply.sequence, prev);
	}
	t1 = now_s();
	seq1 = vb.reply.sequence;
	ts1 = vb.reply.tval_sec + vb.reply.tval_usec / 1e6;
	wall = t1 - t0;
	TH_LOG("%d waits: %u vblanks, %.3f s wall, %.3f ms per vblank (timestamps), mode %d Hz",
	       frames, seq1 - seq0, wall, (ts1 - ts0) * 1000 / (seq1 - seq0),
	       refresh_hz(m));
	ASSERT_GE(seq1 - seq0, frames);
	/* Counter vs timestamps: the period of the mode, +-10%. */
	EXPECT_GT((ts1 - ts0) / (seq1 - seq0), period * 0.9);
	EXPECT_LT((ts1 - ts0) / (seq1 - seq0), period * 1.1);
	/* Counter vs wall clock: loose, the guest may be starved. */
	EXPECT_GT(wall, (seq1 - seq0) * period * 0.8);
	EXPECT_LT(wall, (seq1 - seq0) * period * 3);

	/* An absolute wait with an event arrives at the requested count. */
	memset(&vb, 0, sizeof(vb));
	vb.request.type = _DRM_VBLANK_ABSOLUTE | _DRM_VBLANK_EVENT;
	vb.request.sequence = seq1 + 5;
	vb.request.signal = 0xabcd;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_WAIT_VBLANK, &vb));
	{
		struct drm_event_vblank ev;

		ASSERT_EQ(DRM_EVENT_VBLANK,
			  read_event(self->k.fd, &ev, sizeof(ev), 2000));
		EXPECT_EQ(0xabcd, ev.user_data);
		/*
		 * Never early. On a loaded host the device may count several
		 * vblanks between two interrupts the guest handles (back-to-back
		 * catch-up, or a batch after a long stall): the event then
		 * reports the count at delivery, as DRM does for a passed target.
		 */
		EXPECT_GE((int32_t)(ev.sequence - (seq1 + 5)), 0);
		EXPECT_GE(ev.tv_sec + ev.tv_usec / 1e6, ts1 + 5 * period * 0.9);
	}
	munmap(d.map, d.size);
}

/* The vblank interrupt stops with the head and restarts with it. */
TEST_F(kms, vblank_off_on)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	struct drm_mode_crtc off = { .crtc_id = self->k.crtc };
	union drm_wait_vblank vb;
	struct dumb d;

	ASSERT_EQ(0, dumb_create(self->k.fd, &d, m->hdisplay, m->vdisplay, 32));
	ASSERT_EQ(0, add_fb(self->k.fd, d.handle, m->hdisplay, m->vdisplay,
			    DRM_FORMAT_XRGB8888, d.pitch, 0, &d.fb));
	ASSERT_EQ(0, set_crtc(&self->k, d.fb, m));
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_SETCRTC, &off));
	memset(&vb, 0, sizeof(vb));
	vb.request.type = _DRM_VBLANK_RELATIVE;
	vb.request.sequence = 1;
	EXPECT_NE(0, kms_ioctl(self->k.fd, DRM_IOCTL_WAIT_VBLANK, &vb));
	ASSERT_EQ(0, set_crtc(&self->k, d.fb, m));
	memset(&vb, 0, sizeof(vb));
	vb.request.type = _DRM_VBLANK_RELATIVE;
	vb.request.sequence = 2;
	EXPECT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_WAIT_VBLANK, &vb));
	munmap(d.map, d.size);
}

/* A vagx BO (DRM_IOCTL_VAGX_BO_CREATE) can be scanned out. */
TEST_F(kms, vagx_bo_scanout)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	uint32_t pitch = m->hdisplay * 4, fb;
	struct drm_vagx_bo_create bo = {
		.size = (uint64_t)pitch * m->vdisplay,
	};
	struct drm_vagx_bo_mmap_offset off = {};
	void *map;

	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_VAGX_BO_CREATE, &bo));
	off.handle = bo.handle;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &off));
	map = mmap(NULL, bo.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->k.fd, off.offset);
	ASSERT_NE(MAP_FAILED, map);
	fill_pattern(map, pitch, DRM_FORMAT_XRGB8888, m->hdisplay, m->vdisplay);
	ASSERT_EQ(0, add_fb(self->k.fd, bo.handle, m->hdisplay, m->vdisplay,
			    DRM_FORMAT_XRGB8888, pitch, 0, &fb));
	EXPECT_EQ(0, set_crtc(&self->k, fb, m));
	munmap(map, bo.size);
}

/* PRIME: a dma-buf from another exporter (the system dma-heap) scans out. */
TEST_F(kms, prime_import_scanout)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	uint32_t pitch = m->hdisplay * 4, fb;
	struct dma_heap_allocation_data a = {
		.len = (uint64_t)pitch * m->vdisplay,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	struct drm_prime_handle h = {};
	int heap;
	void *map;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		SKIP(return, "no /dev/dma_heap/system");
	ASSERT_EQ(0, kms_ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a));
	close(heap);
	map = mmap(NULL, a.len, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	fill_pattern(map, pitch, DRM_FORMAT_XRGB8888, m->hdisplay, m->vdisplay);
	h.fd = a.fd;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &h));
	ASSERT_EQ(0, add_fb(self->k.fd, h.handle, m->hdisplay, m->vdisplay,
			    DRM_FORMAT_XRGB8888, pitch, 0, &fb));
	EXPECT_EQ(0, set_crtc(&self->k, fb, m));
	munmap(map, a.len);
	close(a.fd);
}

/* PRIME: export a dumb buffer, re-import it, flip to it. */
TEST_F(kms, prime_self_import)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	struct drm_prime_handle exp = {}, imp = {};
	struct dumb d;
	uint32_t fb;

	ASSERT_EQ(0, dumb_create(self->k.fd, &d, m->hdisplay, m->vdisplay, 32));
	exp.handle = d.handle;
	exp.flags = DRM_CLOEXEC | DRM_RDWR;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp));
	imp.fd = exp.fd;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp));
	EXPECT_EQ(d.handle, imp.handle);
	ASSERT_EQ(0, add_fb(self->k.fd, imp.handle, m->hdisplay, m->vdisplay,
			    DRM_FORMAT_XRGB8888, d.pitch, 0, &fb));
	EXPECT_EQ(0, set_crtc(&self->k, fb, m));
	close(exp.fd);
	munmap(d.map, d.size);
}

/* Removing the framebuffer that is on screen turns the head off. */
TEST_F(kms, rmfb_active)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	struct drm_mode_crtc get = { .crtc_id = self->k.crtc };
	struct dumb d;

	ASSERT_EQ(0, dumb_create(self->k.fd, &d, m->hdisplay, m->vdisplay, 32));
	ASSERT_EQ(0, add_fb(self->k.fd, d.handle, m->hdisplay, m->vdisplay,
			    DRM_FORMAT_XRGB8888, d.pitch, 0, &d.fb));
	ASSERT_EQ(0, set_crtc(&self->k, d.fb, m));
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_RMFB, &d.fb));
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETCRTC, &get));
	EXPECT_EQ(0, get.fb_id);
	munmap(d.map, d.size);
}

/* ---- cursor plane, frame CRC, vblank across a modeset ---------------- */

/* The cursor layer's limit, also DRM_CAP_CURSOR_WIDTH/HEIGHT (square). */
#define CURSOR_MAX VAGX_SCANOUT_CURSOR_MAX_WIDTH
#define PLANE_TYPE_CURSOR 2	/* the "type" property: enum drm_plane_type */

/* Set up the preferred mode with the test pattern in XRGB8888. */
static void show_pattern(struct __test_metadata *_metadata, struct kms *k,
			 struct drm_mode_modeinfo *m, struct dumb *d)
{
	ASSERT_EQ(0, dumb_create(k->fd, d, m->hdisplay, m->vdisplay, 32));
	fill_pattern(d->map, d->pitch, DRM_FORMAT_XRGB8888, m->hdisplay,
		     m->vdisplay);
	ASSERT_EQ(0, add_fb(k->fd, d->handle, m->hdisplay, m->vdisplay,
			    DRM_FORMAT_XRGB8888, d->pitch, 0, &d->fb));
	ASSERT_EQ(0, set_crtc(k, d->fb, m));
}

static uint32_t cursor_pixel(uint32_t x, uint32_t y)
{
	/* Premultiplied ARGB: opaque, half and fully transparent regions. */
	uint32_t a = y < 16 ? 0xff : y < 32 ? 0x80 : 0;
	uint32_t r = (x * 4) * a / 255, g = (y * 4) * a / 255, b = a / 2;

	return a << 24 | r << 16 | g << 8 | b;
}

static void cursor_create(struct __test_metadata *_metadata, int fd,
			  struct dumb *c, uint32_t w, uint32_t h)
{
	uint32_t x, y;

	ASSERT_EQ(0, dumb_create(fd, c, w, h, 32));
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			((uint32_t *)((uint8_t *)c->map + y * c->pitch))[x] =
				cursor_pixel(x, y);
}

static int cursor_set(int fd, uint32_t crtc, uint32_t handle, uint32_t w,
		      uint32_t h)
{
	struct drm_mode_cursor c = {
		.flags = DRM_MODE_CURSOR_BO, .crtc_id = crtc,
		.width = w, .height = h, .handle = handle,
	};

	return kms_ioctl(fd, DRM_IOCTL_MODE_CURSOR, &c);
}

static int cursor_move(int fd, uint32_t crtc, int x, int y)
{
	struct drm_mode_cursor c = {
		.flags = DRM_MODE_CURSOR_MOVE, .crtc_id = crtc, .x = x, .y = y,
	};

	return kms_ioctl(fd, DRM_IOCTL_MODE_CURSOR, &c);
}

/* Legacy cursor ioctls: set, move (also off the screen), CURSOR2, hide. */
TEST_F(kms, cursor_legacy)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	struct drm_get_cap cap = { .capability = DRM_CAP_CURSOR_WIDTH };
	struct drm_mode_cursor2 c2 = {
		.flags = DRM_MODE_CURSOR_BO | DRM_MODE_CURSOR_MOVE,
		.crtc_id = self->k.crtc, .x = 100, .y = 50, .width = 64,
		.height = 64, .hot_x = 3, .hot_y = 5,
	};
	static const int pos[][2] = {
		{ 0, 0 }, { 10, 20 }, { -32, -32 }, { -63, 5 }, { -64, -64 },
		{ -5000, 3 }, { 5000, 5000 }, { 32767, -32768 }, { 1, 1 },
	};
	struct dumb d, c, big;
	unsigned int i;

	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_GET_CAP, &cap));
	EXPECT_EQ(CURSOR_MAX, cap.value);
	cap.capability = DRM_CAP_CURSOR_HEIGHT;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_GET_CAP, &cap));
	EXPECT_EQ(CURSOR_MAX, cap.value);

	show_pattern(_metadata, &self->k, m, &d);
	cursor_create(_metadata, self->k.fd, &c, 64, 64);
	ASSERT_EQ(0, cursor_set(self->k.fd, self->k.crtc, c.handle, 64, 64));
	for (i = 0; i < sizeof(pos) / sizeof(pos[0]); i++)
		EXPECT_EQ(0, cursor_move(self->k.fd, self->k.crtc, pos[i][0],
					 pos[i][1]));
	c2.handle = c.handle;
	EXPECT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_CURSOR2, &c2));
	/* Smaller than the cap, and non-square. */
	EXPECT_EQ(0, cursor_set(self->k.fd, self->k.crtc, c.handle, 32, 16));
	/* Larger than the cursor layer: refused. */
	ASSERT_EQ(0, dumb_create(self->k.fd, &big, CURSOR_MAX + 1,
				 CURSOR_MAX + 1, 32));
	EXPECT_EQ(-EINVAL, cursor_set(self->k.fd, self->k.crtc, big.handle,
				      CURSOR_MAX + 1, CURSOR_MAX + 1));
	/* Handle 0 hides it; moving a hidden cursor is fine. */
	EXPECT_EQ(0, cursor_set(self->k.fd, self->k.crtc, 0, 0, 0));
	EXPECT_EQ(0, cursor_move(self->k.fd, self->k.crtc, 7, 7));
	munmap(big.map, big.size);
	munmap(c.map, c.size);
	munmap(d.map, d.size);
}

/* The cursor plane through SETPLANE (an atomic commit of that plane). */
static int cursor_setplane(struct kms *k, uint32_t plane, uint32_t fb,
			   int x, int y, uint32_t w, uint32_t h)
{
	struct drm_mode_set_plane sp = {
		.plane_id = plane, .crtc_id = k->crtc, .fb_id = fb,
		.crtc_x = x, .crtc_y = y, .crtc_w = w, .crtc_h = h,
		.src_w = w << 16, .src_h = h << 16,
	};

	return kms_ioctl(k->fd, DRM_IOCTL_MODE_SETPLANE, &sp);
}

/* The id of @obj's property @name (0 if none) and its value. */
static uint32_t prop_lookup(int fd, uint32_t obj, uint32_t type,
			    const char *name, uint64_t *value)
{
	struct drm_mode_obj_get_properties op = {
		.obj_id = obj, .obj_type = type,
	};
	uint32_t ids[32], i;
	uint64_t vals[32];

	op.props_ptr = (uintptr_t)ids;
	op.prop_values_ptr = (uintptr_t)vals;
	op.count_props = 32;
	if (kms_ioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &op))
		return 0;
	for (i = 0; i < op.count_props && i < 32; i++) {
		struct drm_mode_get_property gp = { .prop_id = ids[i] };

		if (!kms_ioctl(fd, DRM_IOCTL_MODE_GETPROPERTY, &gp) &&
		    !strcmp(gp.name, name)) {
			*value = vals[i];
			return ids[i];
		}
	}
	return 0;
}

/* The first plane of @type in plane-id order: head 0's. */
static uint32_t find_plane(struct __test_metadata *_metadata, int fd,
			   uint64_t type)
{
	struct drm_mode_get_plane_res pr = {};
	uint32_t planes[16], i;
	uint64_t v;

	EXPECT_EQ(0, kms_ioctl(fd, DRM_IOCTL_SET_CLIENT_CAP,
			       &(struct drm_set_client_cap){
				       DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1 }));
	pr.plane_id_ptr = (uintptr_t)planes;
	pr.count_planes = 16;
	EXPECT_EQ(0, kms_ioctl(fd, DRM_IOCTL_MODE_GETPLANERESOURCES, &pr));
	for (i = 0; i < pr.count_planes && i < 16; i++)
		if (prop_lookup(fd, planes[i], DRM_MODE_OBJECT_PLANE, "type", &v) &&
		    v == type)
			return planes[i];
	return 0;
}

/* Off-screen positions are accepted, bad sizes and formats refused. */
TEST_F(kms, cursor_plane)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	struct drm_mode_get_plane p = {};
	uint32_t plane, fmts[8], fb, xrgb;
	struct dumb d, c, big;
	int w = m->hdisplay, h = m->vdisplay;
	static const int pos[][2] = {
		{ 0, 0 }, { -10, -10 }, { -63, -63 }, { -64, 0 },
		{ -100000, -100000 }, { 0, 0 },
	};
	unsigned int i;

	plane = find_plane(_metadata, self->k.fd, PLANE_TYPE_CURSOR);
	ASSERT_NE(0, plane);
	p.plane_id = plane;
	p.format_type_ptr = (uintptr_t)fmts;
	p.count_format_types = 8;
	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_GETPLANE, &p));
	EXPECT_EQ(1, p.possible_crtcs);
	ASSERT_EQ(1, p.count_format_types);
	EXPECT_EQ(DRM_FORMAT_ARGB8888, fmts[0]);

	show_pattern(_metadata, &self->k, m, &d);
	cursor_create(_metadata, self->k.fd, &c, 64, 64);
	ASSERT_EQ(0, add_fb(self->k.fd, c.handle, 64, 64, DRM_FORMAT_ARGB8888,
			    c.pitch, 0, &fb));
	for (i = 0; i < sizeof(pos) / sizeof(pos[0]); i++)
		EXPECT_EQ(0, cursor_setplane(&self->k, plane, fb, pos[i][0],
					     pos[i][1], 64, 64));
	EXPECT_EQ(0, cursor_setplane(&self->k, plane, fb, w - 1, h - 1, 64, 64));
	EXPECT_EQ(0, cursor_setplane(&self->k, plane, fb, w, h, 64, 64));
	EXPECT_EQ(0, cursor_setplane(&self->k, plane, fb, 1 << 30, 7, 64, 64));
	EXPECT_EQ(0, cursor_setplane(&self->k, plane, fb, 5, 6, 17, 3));
	/* Scaling: refused (drm_atomic_helper_check_plane_state: -ERANGE). */
	{
		struct drm_mode_set_plane sp = {
			.plane_id = plane, .crtc_id = self->k.crtc, .fb_id = fb,
			.crtc_w = 64, .crtc_h = 64,
			.src_w = 32 << 16, .src_h = 32 << 16,
		};

		EXPECT_EQ(-ERANGE, kms_ioctl(self->k.fd,
					     DRM_IOCTL_MODE_SETPLANE, &sp));
	}
	/* A source rectangle outside the framebuffer: refused (DRM core). */
	EXPECT_NE(0, cursor_setplane(&self->k, plane, fb, 0, 0, 65, 64));
	/* Larger than the cursor layer: refused. */
	ASSERT_EQ(0, dumb_create(self->k.fd, &big, 512, 512, 32));
	ASSERT_EQ(0, add_fb(self->k.fd, big.handle, 512, 512,
			    DRM_FORMAT_ARGB8888, big.pitch, 0, &fb));
	EXPECT_EQ(-EINVAL, cursor_setplane(&self->k, plane, fb, 0, 0, 512, 512));
	EXPECT_EQ(-EINVAL, cursor_setplane(&self->k, plane, fb, -300, -300,
					   CURSOR_MAX + 1, 64));
	EXPECT_EQ(0, cursor_setplane(&self->k, plane, fb, -300, -300,
				     CURSOR_MAX, CURSOR_MAX));
	/* Not a cursor format. */
	ASSERT_EQ(0, add_fb(self->k.fd, big.handle, 64, 64, DRM_FORMAT_XRGB8888,
			    big.pitch, 0, &xrgb));
	EXPECT_EQ(-EINVAL, cursor_setplane(&self->k, plane, xrgb, 0, 0, 64, 64));
	/* Off. */
	EXPECT_EQ(0, cursor_setplane(&self->k, plane, 0, 0, 0, 0, 0));
	munmap(big.map, big.size);
	munmap(c.map, c.size);
	munmap(d.map, d.size);
}

/* One atomic commit of the cursor plane's ten properties. */
static int cursor_atomic(struct kms *k, uint32_t plane, const uint32_t *ids,
			 uint32_t fb, int x, int y, uint32_t w, uint32_t h,
			 uint32_t flags)
{
	uint64_t vals[10] = {
		fb, fb ? k->crtc : 0, (uint64_t)(int64_t)x, (uint64_t)(int64_t)y,
		w, h, 0, 0, (uint64_t)w << 16, (uint64_t)h << 16,
	};
	uint32_t count = 10;
	struct drm_mode_atomic a = {
		.flags = flags, .count_objs = 1,
		.objs_ptr = (uintptr_t)&plane,
		.count_props_ptr = (uintptr_t)&count,
		.props_ptr = (uintptr_t)ids,
		.prop_values_ptr = (uintptr_t)vals,
	};

	return kms_ioctl(k->fd, DRM_IOCTL_MODE_ATOMIC, &a);
}

/* DRM_IOCTL_MODE_ATOMIC on the cursor plane: positions, sizes, TEST_ONLY. */
TEST_F(kms, cursor_atomic)
{
	static const char *const names[10] = {
		"FB_ID", "CRTC_ID", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H",
		"SRC_X", "SRC_Y", "SRC_W", "SRC_H",
	};
	static const int pos[][2] = {
		{ 0, 0 }, { -40, 10 }, { 10, -63 }, { -64, -64 }, { -1, -1 },
		{ 100000, 100000 }, { -100000, 3 }, { 20, 30 },
	};
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	uint32_t plane, ids[10], fb, bigfb, i;
	struct dumb d, c, big;
	uint64_t v;

	ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_SET_CLIENT_CAP,
			       &(struct drm_set_client_cap){
				       DRM_CLIENT_CAP_ATOMIC, 1 }));
	plane = find_plane(_metadata, self->k.fd, PLANE_TYPE_CURSOR);
	ASSERT_NE(0, plane);
	for (i = 0; i < 10; i++) {
		ids[i] = prop_lookup(self->k.fd, plane, DRM_MODE_OBJECT_PLANE,
				     names[i], &v);
		ASSERT_NE(0, ids[i]);
	}
	show_pattern(_metadata, &self->k, m, &d);
	cursor_create(_metadata, self->k.fd, &c, 64, 64);
	ASSERT_EQ(0, add_fb(self->k.fd, c.handle, 64, 64, DRM_FORMAT_ARGB8888,
			    c.pitch, 0, &fb));
	for (i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
		EXPECT_EQ(0, cursor_atomic(&self->k, plane, ids, fb, pos[i][0],
					   pos[i][1], 64, 64,
					   DRM_MODE_ATOMIC_TEST_ONLY));
		EXPECT_EQ(0, cursor_atomic(&self->k, plane, ids, fb, pos[i][0],
					   pos[i][1], 64, 64, 0));
	}
	/* Nonblocking, with an event: completes at a vblank. */
	{
		struct drm_event_vblank ev;

		ASSERT_EQ(0, cursor_atomic(&self->k, plane, ids, fb, 5, 5, 64, 64,
					   DRM_MODE_ATOMIC_NONBLOCK |
					   DRM_MODE_PAGE_FLIP_EVENT));
		EXPECT_EQ(DRM_EVENT_FLIP_COMPLETE,
			  read_event(self->k.fd, &ev, sizeof(ev), 2000));
	}
	/* Too large for the cursor layer, on or off the screen: -EINVAL. */
	ASSERT_EQ(0, dumb_create(self->k.fd, &big, CURSOR_MAX + 1,
				 CURSOR_MAX + 1, 32));
	ASSERT_EQ(0, add_fb(self->k.fd, big.handle, CURSOR_MAX + 1,
			    CURSOR_MAX + 1, DRM_FORMAT_ARGB8888, big.pitch, 0,
			    &bigfb));
	EXPECT_EQ(-EINVAL, cursor_atomic(&self->k, plane, ids, bigfb, 0, 0,
					 CURSOR_MAX + 1, CURSOR_MAX + 1,
					 DRM_MODE_ATOMIC_TEST_ONLY));
	EXPECT_EQ(-EINVAL, cursor_atomic(&self->k, plane, ids, bigfb, -5000,
					 -5000, CURSOR_MAX + 1, 1, 0));
	EXPECT_EQ(-EINVAL, cursor_atomic(&self->k, plane, ids, bigfb, 0, 0, 1,
					 CURSOR_MAX + 1, 0));
	EXPECT_EQ(0, cursor_atomic(&self->k, plane, ids, bigfb, -1, -2,
				   CURSOR_MAX, CURSOR_MAX, 0));
	/* Off. */
	EXPECT_EQ(0, cursor_atomic(&self->k, plane, ids, 0, 0, 0, 0, 0, 0));
	munmap(big.map, big.size);
	munmap(c.map, c.size);
	munmap(d.map, d.size);
}

/*
 * The frame CRC as docs/hw/registers.md defines it, written from the
 * definition: CRC-32 (reflected polynomial 0xedb88320, initial value and
 * final XOR 0xffffffff) over every row, top to bottom, of the composed
 * frame as XRGB8888 little-endian bytes (B, G, R, 0).
 */
static uint32_t crc32_bytes(uint32_t crc, const uint8_t *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

static uint8_t blend_ch(uint32_t s, uint32_t d, uint32_t a)
{
	/* s + d * (255 - a) / 255, rounded to nearest */
	uint32_t v = s + (d * (255 - a) + 127) / 255;

	return v > 255 ? 255 : v;
}

/* The expected CRC of the pattern with the test cursor at (cx, cy). */
static uint32_t expected_crc(const struct dumb *d, uint32_t w, uint32_t h,
			     bool cursor, int cx, int cy, int cw, int ch)
{
	uint8_t *row = malloc(w * 4);
	uint32_t crc = 0, x, y;

	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			uint32_t p = ((uint32_t *)((uint8_t *)d->map +
						   y * d->pitch))[x];
			int lx = (int)x - cx, ly = (int)y - cy;

			if (cursor && lx >= 0 && lx < cw && ly >= 0 && ly < ch) {
				uint32_t c = cursor_pixel(lx, ly), a = c >> 24;

				p = blend_ch(c >> 16 & 0xff, p >> 16 & 0xff, a) << 16 |
				    blend_ch(c >> 8 & 0xff, p >> 8 & 0xff, a) << 8 |
				    blend_ch(c & 0xff, p & 0xff, a);
			}
			row[4 * x] = p & 0xff;
			row[4 * x + 1] = p >> 8 & 0xff;
			row[4 * x + 2] = p >> 16 & 0xff;
			row[4 * x + 3] = 0;
		}
		crc = crc32_bytes(crc, row, w * 4);
	}
	free(row);
	return crc;
}

struct crc_reader {
	int data;
	uint32_t last_frame;
	bool have_frame;
};

/* Start the "auto" CRC of CRTC @index (debugfs crtc-<index>/crc). */
static int crc_open_crtc(struct crc_reader *r, unsigned int index)
{
	char dir[64], path[128];
	struct stat st;
	int fd;

	if (stat("/sys/kernel/debug/dri", &st))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	snprintf(dir, sizeof(dir), "/sys/kernel/debug/dri/0/crtc-%u/crc", index);
	snprintf(path, sizeof(path), "%s/control", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, "auto", 4) != 4) {
		close(fd);
		return -EIO;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/data", dir);
	r->data = open(path, O_RDONLY);
	r->have_frame = false;
	return r->data < 0 ? -errno : 0;
}

static int crc_open(struct crc_reader *r)
{
	return crc_open_crtc(r, 0);
}

/* One "frame crc" entry; frames must increase. */
static int crc_read(struct crc_reader *r, uint32_t *frame, uint32_t *crc)
{
	struct pollfd p = { .fd = r->data, .events = POLLIN };
	char line[64];
	ssize_t n;

	if (poll(&p, 1, 2000) != 1)
		return -ETIMEDOUT;
	n = read(r->data, line, sizeof(line) - 1);
	if (n <= 0)
		return -EIO;
	line[n] = 0;
	if (sscanf(line, "%x %x", frame, crc) != 2)
		return -EINVAL;
	if (r->have_frame && (int32_t)(*frame - r->last_frame) <= 0)
		return -ERANGE;
	r->last_frame = *frame;
	r->have_frame = true;
	return 0;
}

/* Read until @want shows (at most 60 frames), then check it stays. */
static int crc_wait(struct crc_reader *r, uint32_t want, uint32_t *last)
{
	uint32_t frame, crc = 0;
	int i, ret, same = 0;

	for (i = 0; i < 60 && same < 3; i++) {
		ret = crc_read(r, &frame, &crc);
		if (ret)
			return ret;
		if (crc == want)
			same++;
		else if (same)
			return -ESTALE;
	}
	*last = crc;
	return same == 3 ? 0 : -ENOENT;
}

/* debugfs crtc-0/crc: CRCs of the composed frame, checked against ours. */
TEST_F(kms, crc)
{
	struct drm_mode_modeinfo *m = &self->k.modes[kms_find_mode(&self->k,
								   640, 480)];
	uint32_t w = m->hdisplay, h = m->vdisplay, want, got, pattern_crc;
	struct crc_reader r;
	struct dumb d, c;
	int ret;

	show_pattern(_metadata, &self->k, m, &d);
	ret = crc_open(&r);
	if (ret == -ENOENT)
		SKIP(return, "no debugfs crc");
	ASSERT_EQ(0, ret);

	/* Same content: the same CRC frame after frame, and ours. */
	pattern_crc = expected_crc(&d, w, h, false, 0, 0, 0, 0);
	EXPECT_EQ(0, crc_wait(&r, pattern_crc, &got));
	TH_LOG("pattern %ux%u: crc %#010x", w, h, got);

	/* One pixel changed: another CRC, again ours. */
	((uint32_t *)((uint8_t *)d.map + 100 * d.pitch))[200] ^= 0x010000;
	want = expected_crc(&d, w, h, false, 0, 0, 0, 0);
	EXPECT_NE(pattern_crc, want);
	EXPECT_EQ(0, crc_wait(&r, want, &got));
	((uint32_t *)((uint8_t *)d.map + 100 * d.pitch))[200] ^= 0x010000;
	EXPECT_EQ(0, crc_wait(&r, pattern_crc, &got));

	/* The cursor is blended into the frame the CRC covers. */
	cursor_create(_metadata, self->k.fd, &c, 64, 64);
	ASSERT_EQ(0, cursor_set(self->k.fd, self->k.crtc, c.handle, 64, 64));
	ASSERT_EQ(0, cursor_move(self->k.fd, self->k.crtc, 30, 40));
	want = expected_crc(&d, w, h, true, 30, 40, 64, 64);
	EXPECT_NE(pattern_crc, want);
	EXPECT_EQ(0, crc_wait(&r, want, &got));
	/* Moved: another CRC. */
	ASSERT_EQ(0, cursor_move(self->k.fd, self->k.crtc, 31, 40));
	want = expected_crc(&d, w, h, true, 31, 40, 64, 64);
	EXPECT_EQ(0, crc_wait(&r, want, &got));
	/* Partly off the screen, top-left and bottom-right. */
	ASSERT_EQ(0, cursor_move(self->k.fd, self->k.crtc, -20, -10));
	want = expected_crc(&d, w, h, true, -20, -10, 64, 64);
	EXPECT_EQ(0, crc_wait(&r, want, &got));
	ASSERT_EQ(0, cursor_move(self->k.fd, self->k.crtc, w - 20, h - 3));
	want = expected_crc(&d, w, h, true, w - 20, h - 3, 64, 64);
	EXPECT_EQ(0, crc_wait(&r, want, &got));
	/* Wholly off: the pattern alone. */
	ASSERT_EQ(0, cursor_move(self->k.fd, self->k.crtc, -64, 0));
	EXPECT_EQ(0, crc_wait(&r, pattern_crc, &got));
	ASSERT_EQ(0, cursor_set(self->k.fd, self->k.crtc, 0, 0, 0));
	EXPECT_EQ(0, crc_wait(&r, pattern_crc, &got));

	close(r.data);
	munmap(c.map, c.size);
	munmap(d.map, d.size);
}

#include "vagx_kms_overlay.c.inc"
#include "vagx_kms_writeback.c.inc"
#include "vagx_kms_reset.c.inc"
#include "vagx_kms_heads.c.inc"

/* Vblank counts and timestamps keep increasing across modesets. */
TEST_F(kms, vblank_across_modeset)
{
	struct drm_mode_modeinfo *m = &self->k.modes[self->mode];
	struct drm_mode_modeinfo *m2 = &self->k.modes[kms_find_mode(&self->k,
								    640, 480)];
	struct drm_mode_crtc off = { .crtc_id = self->k.crtc };
	double period = 1.0 / refresh_hz(m), ts, last_ts = 0;
	uint32_t seq, last_seq = 0;
	union drm_wait_vblank vb;
	struct dumb d;
	int i, j;

	show_pattern(_metadata, &self->k, m, &d);
	for (i = 0; i < 4; i++) {
		/* query (relative 0), then the next two vblanks */
		for (j = 0; j < 3; j++) {
			memset(&vb, 0, sizeof(vb));
			vb.request.type = _DRM_VBLANK_RELATIVE;
			vb.request.sequence = j ? 1 : 0;
			ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_WAIT_VBLANK,
					       &vb));
			seq = vb.reply.sequence;
			ts = vb.reply.tval_sec + vb.reply.tval_usec / 1e6;
			if (i || j) {
				EXPECT_GE((int32_t)(seq - last_seq), j ? 1 : 0);
				if (seq != last_seq) {
					EXPECT_GT(ts, last_ts);
				} else {
					EXPECT_EQ(ts, last_ts);
				}
			}
			if (j == 2) {
				EXPECT_LT(ts - last_ts,
					  period * 3 * (seq - last_seq));
			}
			last_seq = seq;
			last_ts = ts;
		}
		/* Off for a while, then a modeset (another mode every other time). */
		ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_SETCRTC, &off));
		usleep(100 * 1000);
		ASSERT_EQ(0, set_crtc(&self->k, d.fb, (i & 1) ? m : m2));
	}
	/* A flip after the modeset completes with a later count and time. */
	{
		struct drm_mode_crtc_page_flip flip = {
			.crtc_id = self->k.crtc, .fb_id = d.fb,
			.flags = DRM_MODE_PAGE_FLIP_EVENT,
		};
		struct drm_event_vblank ev;

		ASSERT_EQ(0, kms_ioctl(self->k.fd, DRM_IOCTL_MODE_PAGE_FLIP,
				       &flip));
		ASSERT_EQ(DRM_EVENT_FLIP_COMPLETE,
			  read_event(self->k.fd, &ev, sizeof(ev), 2000));
		EXPECT_GT((int32_t)(ev.sequence - last_seq), 0);
		EXPECT_GT(ev.tv_sec + ev.tv_usec / 1e6, last_ts);
	}
	munmap(d.map, d.size);
}

/* The render node has no KMS. */
TEST(render_node_no_kms)
{
	struct drm_mode_card_res res = {};
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		SKIP(return, "no render node");
	EXPECT_NE(0, kms_ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res));
	close(fd);
}

/*
 * fbdev emulation: /dev/fb0 is ours, 1024x768 XRGB8888, writable.
 *
 * fbcon draws on the same framebuffer: its cursor blinks every 200 ms in
 * the top-left character cell of the (otherwise empty) console, and every
 * blink repaints that cell, pixel 0 included, with the background colour.
 * Like every fbdev client (fbi, X's fbdev driver), the test therefore puts
 * the console into graphics mode (KDSETMODE KD_GRAPHICS on /dev/tty0)
 * while it owns the screen; without that, pixel 0 read back as 0 whenever
 * a blink fell between the pwrite() and the read through mmap() (one run
 * in N on a loaded machine).
 */
FIXTURE(fbdev) {
	int fd, tty;
};

FIXTURE_SETUP(fbdev)
{
	self->fd = open("/dev/fb0", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	/* No VT: no fbcon drawing either. */
	self->tty = open("/dev/tty0", O_RDWR | O_CLOEXEC);
	if (self->tty >= 0)
		ASSERT_EQ(0, ioctl(self->tty, KDSETMODE, KD_GRAPHICS));
}

FIXTURE_TEARDOWN(fbdev)
{
	if (self->tty >= 0) {
		ioctl(self->tty, KDSETMODE, KD_TEXT);
		close(self->tty);
	}
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * 6.12's harness wrapper keeps `child` across setjmp() without volatile;
 * with this fixture's setup and teardown inlined gcc warns (-Wclobbered)
 * about the harness's variable, not about anything of the test's.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wclobbered"
TEST_F(fbdev, write_read_mmap)
{
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	struct timespec blink = { .tv_nsec = 500 * 1000 * 1000 };
	int fd = self->fd;
	uint32_t v = 0x00123456, r = 0, *p;

	ASSERT_EQ(0, ioctl(fd, FBIOGET_FSCREENINFO, &fix));
	ASSERT_EQ(0, ioctl(fd, FBIOGET_VSCREENINFO, &var));
	EXPECT_EQ(0, strncmp(fix.id, "vagxdrmfb", 9));
	EXPECT_EQ(1024, var.xres);
	EXPECT_EQ(768, var.yres);
	EXPECT_EQ(32, var.bits_per_pixel);
	ASSERT_EQ(4, pwrite(fd, &v, 4, 0));
	ASSERT_EQ(4, pread(fd, &r, 4, 0));
	EXPECT_EQ(v, r);
	/* Longer than a cursor blink: nothing else draws there now. */
	nanosleep(&blink, NULL);
	/*
	 * mmap() too: with 6.12's fbdev-shmem, deferred I/O clobbered the
	 * shmem pages' page->mapping and the unload suite that follows would
	 * spin forever in shmem_undo_range() (docs/display.md).
	 */
	p = mmap(NULL, fix.smem_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(v, p[0]);
	p[1] = v + 1;
	ASSERT_EQ(0, munmap(p, fix.smem_len));
	nanosleep(&blink, NULL);
	ASSERT_EQ(4, pread(fd, &r, 4, 4));
	EXPECT_EQ(v + 1, r);
	ASSERT_EQ(4, pread(fd, &r, 4, 0));
	EXPECT_EQ(v, r);
}
#pragma GCC diagnostic pop

/* --show FORMAT W H SECONDS: the screendump test's pattern. */
static int show(int argc, char **argv)
{
	uint32_t fourcc = 0, bpp = 32, w, h, fb;
	struct kms k;
	struct dumb d;
	int mode;

	if (argc != 6) {
		fprintf(stderr, "usage: %s --show FORMAT W H SECONDS\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[2], "XRGB8888"))
		fourcc = DRM_FORMAT_XRGB8888;
	else if (!strcmp(argv[2], "XBGR8888"))
		fourcc = DRM_FORMAT_XBGR8888;
	else if (!strcmp(argv[2], "ARGB8888"))
		fourcc = DRM_FORMAT_ARGB8888;
	else if (!strcmp(argv[2], "RGB565"))
		fourcc = DRM_FORMAT_RGB565, bpp = 16;
	w = atoi(argv[3]);
	h = atoi(argv[4]);
	if (!fourcc || kms_open(&k)) {
		fprintf(stderr, "vagx-kms: bad format or no KMS\n");
		return 1;
	}
	mode = kms_find_mode(&k, w, h);
	if (mode < 0 || dumb_create(k.fd, &d, w, h, bpp)) {
		fprintf(stderr, "vagx-kms: no %ux%u mode or buffer\n", w, h);
		return 1;
	}
	fill_pattern(d.map, d.pitch, fourcc, w, h);
	if (add_fb(k.fd, d.handle, w, h, fourcc, d.pitch, 0, &fb) ||
	    set_crtc(&k, fb, &k.modes[mode])) {
		fprintf(stderr, "vagx-kms: modeset failed\n");
		return 1;
	}
	/* Let at least one vblank latch the commit before announcing it. */
	usleep(100000);
	printf("vagx-kms: showing %s %ux%u\n", argv[2], w, h);
	fflush(stdout);
	sleep(atoi(argv[5]));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--show"))
		return show(argc, argv);
	return test_harness_run(argc, argv);
}
