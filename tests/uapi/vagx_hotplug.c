// SPDX-License-Identifier: MIT
/*
 * vagx hot-unplug kselftest, run inside the guest after the other suites
 * (it removes and rescans the PCI function):
 *   tests/guest/vagx-guest -- build/uapi-tests/vagx_hotplug
 * With files open, BOs mmapped, an endless job running, another queued
 * behind it and a third waiting on it from another queue, the device is
 * removed through /sys/bus/pci/devices/<slot>/remove. Then (docs/uapi.md,
 * "Device removal"): every ioctl fails with -ENODEV, the three jobs'
 * fences (exported as sync_files before the removal) signal with -ENODEV,
 * existing mappings keep reading and writing the BO contents, a new mmap()
 * fails with ENODEV. /sys/bus/pci/rescan brings a new device whose jobs
 * work while a file of the old one is still open; closing that file last
 * frees the old device.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>

#include "kselftest_harness.h"
#include "vagx_test.h"

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* Read word @i of @p and write it back incremented; -1 on SIGBUS. */
static int64_t touch_word(volatile uint32_t *p, unsigned int i)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int64_t v = -1;

	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(bus_jmp, 1)) {
		v = p[i];
		p[i] = (uint32_t)v + 1;
		if (p[i] != (uint32_t)v + 1)
			v = -2;
	}
	sigaction(SIGBUS, &old, NULL);
	return v;
}

TEST(remove_rescan)
{
	const unsigned int groups = 2, n = groups * GPU_TG;
	char slot[256], path[512], old_hw[32], old_sched[32];
	struct drm_vagx_gpu_info info;
	struct drm_vagx_bo_mmap_offset mo;
	uint32_t q1, q2, fh, fq, fw, h_keep, done, *out, *keep;
	int fd_a, fd_b, fd, sf_h, sf_q, sf_w;
	struct drm_vagx_cmd cw;
	struct drm_version v;
	struct gpu g, gb, gn;
	double t0;
	void *p;

	if (getuid() != 0)
		SKIP(return, "needs root (PCI remove/rescan)");
	if (!find_slot(slot, sizeof(slot)))
		SKIP(return, "no vagx PCI function");
	if (!bound_to_vagx(slot))
		SKIP(return, "vagx.ko is not bound to %s", slot);
	fd_a = open_vagx();
	ASSERT_LE(0, fd_a);
	ASSERT_EQ(0, query(fd_a, DRM_VAGX_DEV_QUERY_GPU_INFO, &info,
			   sizeof(info)));
	if (!hw_runs_jobs(fd_a) ||
	    !(info.queue_types & (1u << DRM_VAGX_QUEUE_TYPE_COMPUTE)))
		SKIP(return, "the device does not run compute jobs");
	TH_LOG("vagx at %s", slot);

	/* No time limit may end the endless job before the removal does. */
	ASSERT_EQ(0, param_read("hw_job_timeout_ms", old_hw, sizeof(old_hw)));
	ASSERT_EQ(0, param_read("job_timeout_ms", old_sched, sizeof(old_sched)));
	ASSERT_EQ(0, param_write("hw_job_timeout_ms", "0"));
	ASSERT_EQ(0, param_write("job_timeout_ms", "600000"));

	/* File A: endless job, a job queued behind it, a job waiting on it. */
	ASSERT_EQ(0, gpu_init(fd_a, &g));
	out = gpu_buf(&g, GPU_OUT_VA, PAGE, 0x5a5a0000, NULL);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, queue_create(fd_a, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q1));
	ASSERT_EQ(0, queue_create(fd_a, g.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q2));
	fh = syncobj_create(fd_a);
	fq = syncobj_create(fd_a);
	fw = syncobj_create(fd_a);
	ASSERT_EQ(0, gpu_submit(fd_a, q1, gpu_hang_job(&g, 0), fh));
	ASSERT_EQ(0, gpu_submit(fd_a, q1,
				gpu_pattern_job(&g, 1, GPU_OUT_VA, 1, 7, groups),
				fq));
	{
		struct drm_vagx_sync sy[2] = {
			{ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ, .handle = fh },
			{ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
			  .flags = DRM_VAGX_SYNC_SIGNAL, .handle = fw },
		};

		memset(&cw, 0, sizeof(cw));
		cw.type = DRM_VAGX_QUEUE_TYPE_COMPUTE;
		cw.desc_va = gpu_pattern_job(&g, 2, GPU_OUT_VA, 3, 1, groups);
		cw.syncs = (struct drm_vagx_obj_array)DRM_VAGX_OBJ_ARRAY(2, sy);
		ASSERT_EQ(0, submit(fd_a, q2, &cw, 1, NULL));
	}
	/* The endless job runs: nothing signals. */
	usleep(300 * 1000);
	ASSERT_EQ(-ETIME, syncobj_wait_ms(fd_a, fh, 0));
	ASSERT_EQ(-ETIME, syncobj_wait_ms(fd_a, fw, 0));
	sf_h = export_sync_file(fd_a, fh);
	sf_q = export_sync_file(fd_a, fq);
	sf_w = export_sync_file(fd_a, fw);
	ASSERT_LE(0, sf_h);
	ASSERT_LE(0, sf_q);
	ASSERT_LE(0, sf_w);
	EXPECT_EQ(0x5a5a0000, out[5]);

	/* File B: an idle BO mapping, kept open across the rescan. */
	fd_b = open_vagx();
	ASSERT_LE(0, fd_b);
	ASSERT_EQ(0, gpu_init(fd_b, &gb));
	keep = gpu_buf(&gb, GPU_OUT_VA, PAGE, 0xc0de0000, &h_keep);
	ASSERT_NE(NULL, keep);
	memset(&mo, 0, sizeof(mo));
	mo.handle = h_keep;
	ASSERT_EQ(0, vioctl(fd_b, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &mo));

	/* Remove the PCI function. */
	t0 = mono_s();
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/remove", slot);
	ASSERT_EQ(0, sysfs_write(path, "1"));
	TH_LOG("remove took %.3f s", mono_s() - t0);
	snprintf(path, sizeof(path), PCI_DEVICES "/%s", slot);
	EXPECT_NE(0, access(path, F_OK));

	/* Every ioctl: -ENODEV, the DRM core ones too. */
	EXPECT_EQ(-ENODEV, query(fd_a, DRM_VAGX_DEV_QUERY_GPU_INFO, &info,
				 sizeof(info)));
	EXPECT_EQ(-ENODEV, gpu_submit(fd_a, q1, 0, 0));
	EXPECT_EQ(-ENODEV, bind1(fd_a, g.vm, DRM_VAGX_BIND_OP_UNMAP, 0, 0,
				 GPU_OUT_VA, PAGE));
	EXPECT_EQ(-ENODEV, bo_create(fd_a, PAGE, 0, 0, &done));
	EXPECT_EQ(-ENODEV, syncobj_wait_ms(fd_a, fh, 0));
	memset(&v, 0, sizeof(v));
	EXPECT_EQ(-ENODEV, vioctl(fd_b, DRM_IOCTL_VERSION, &v));
	EXPECT_EQ(-ENODEV, vioctl(fd_b, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &mo));

	/* The fences of all three jobs signal with -ENODEV. */
	EXPECT_EQ(-ENODEV, sync_file_status(sf_h, 5000));
	EXPECT_EQ(-ENODEV, sync_file_status(sf_q, 5000));
	EXPECT_EQ(-ENODEV, sync_file_status(sf_w, 5000));
	close(sf_h);
	close(sf_q);
	close(sf_w);
	/* The queued job never ran: its output is untouched. */
	EXPECT_EQ(0x5a5a0000, touch_word(out, 5));
	EXPECT_EQ(0x5a5a0001, out[5]);
	EXPECT_EQ(0xc0de0000, touch_word(keep, 9));
	/* No new mapping of a removed device. */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd_b, mo.offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);

	/* File A closes while the device is gone. */
	munmap(g.map, 16 * PAGE);
	munmap(out, PAGE);
	close(fd_a);

	/* Rescan: a new device, while file B still holds the old one. */
	t0 = mono_s();
	ASSERT_EQ(0, sysfs_write("/sys/bus/pci/rescan", "1"));
	fd = -1;
	while (mono_s() - t0 < 20) {
		if (bound_to_vagx(slot)) {
			fd = open_vagx();
			if (fd >= 0)
				break;
		}
		usleep(50 * 1000);
	}
	ASSERT_LE(0, fd);
	TH_LOG("device back after %.3f s", mono_s() - t0);
	ASSERT_TRUE(hw_runs_jobs(fd));
	ASSERT_EQ(0, gpu_init(fd, &gn));
	out = gpu_buf(&gn, GPU_OUT_VA, PAGE, 0, NULL);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, queue_create(fd, gn.vm, DRM_VAGX_QUEUE_TYPE_COMPUTE,
				  DRM_VAGX_PRIORITY_MEDIUM, &q1));
	done = syncobj_create(fd);
	ASSERT_EQ(0, gpu_submit(fd, q1,
				gpu_pattern_job(&gn, 0, GPU_OUT_VA, 5, 3, groups),
				done));
	ASSERT_EQ(0, syncobj_wait_ms(fd, done, 10000));
	EXPECT_EQ(1, fence_status(fd, done));
	EXPECT_TRUE(check_pattern(out, n, 5, 3));
	/* The old device's file still cannot reach the new device. */
	EXPECT_EQ(-ENODEV, vioctl(fd_b, DRM_IOCTL_VERSION, &v));
	EXPECT_EQ(0xc0de0001, touch_word(keep, 9));

	/* Last reference to the old device: it is freed now. */
	munmap(keep, PAGE);
	munmap(gb.map, 16 * PAGE);
	close(fd_b);
	usleep(200 * 1000);
	/* The new device is unaffected. */
	ASSERT_EQ(0, gpu_submit(fd, q1,
				gpu_pattern_job(&gn, 1, GPU_OUT_VA, 2, 1, groups),
				done));
	ASSERT_EQ(0, syncobj_wait_ms(fd, done, 10000));
	EXPECT_TRUE(check_pattern(out, n, 2, 1));
	close(fd);
	param_write("hw_job_timeout_ms", old_hw);
	param_write("job_timeout_ms", old_sched);
}

TEST_HARNESS_MAIN
