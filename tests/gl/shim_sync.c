/* SPDX-License-Identifier: MIT */
/*
 * shim_sync: the vagx drm-shim's syncobj ioctls through libdrm, as the
 * driver and Mesa's EGL use them (userspace/vagx-shim-run
 * build/gl-tests/shim_sync; tests/gl/run).  The GL tests rely on these
 * behaving like DRM core's: a wait that does not wait, or a timeout that
 * reports success, hides the driver's missing waits instead of showing
 * them.  Prints "case NAME ok" or "case NAME error: ...".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include "vagx_drm.h"

static int fd = -1;
static char err[256];

static int64_t
now_ns(void)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* libdrm's syncobj calls but drmSyncobjWait return the ioctl's -1 and errno */
#define FAILS_WITH(call, e) ((call) == -1 && errno == (e))

/* Fail the case at once, with a message (tests/lib's CHECK counts and
 * goes on; a GL case stops at its first failure). */
#define ENSURE(cond, ...)                                                  \
   do {                                                                    \
      if (!(cond)) {                                                       \
         snprintf(err, sizeof(err), __VA_ARGS__);                          \
         return false;                                                     \
      }                                                                    \
   } while (0)

static bool
wait_one(uint32_t h, int64_t abs, unsigned flags, int want, const char *what)
{
   int r = drmSyncobjWait(fd, &h, 1, abs, flags, NULL);
   ENSURE(r == want, "%s: %d (%s), want %d", what, r, strerror(-r), want);
   return true;
}

/* no fence, WAIT_FOR_SUBMIT timeouts, signal, reset */
static bool
case_wait(void)
{
   uint32_t h;
   ENSURE(!drmSyncobjCreate(fd, 0, &h), "create");
   if (!wait_one(h, 0, 0, -EINVAL, "wait without fence and without WAIT_FOR_SUBMIT") ||
       !wait_one(h, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -ETIME, "poll without fence"))
      return false;
   int64_t t0 = now_ns();
   if (!wait_one(h, t0 + 20000000, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -ETIME, "20 ms wait"))
      return false;
   int64_t dt = (now_ns() - t0) / 1000000;
   ENSURE(dt >= 19 && dt < 500, "20 ms wait returned after %lld ms", (long long)dt);
   ENSURE(!drmSyncobjSignal(fd, &h, 1), "signal");
   if (!wait_one(h, 0, 0, 0, "poll after signal"))
      return false;
   ENSURE(!drmSyncobjReset(fd, &h, 1), "reset");
   if (!wait_one(h, 0, 0, -EINVAL, "wait after reset") ||
       !wait_one(h, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -ETIME, "poll after reset"))
      return false;
   ENSURE(!drmSyncobjDestroy(fd, h), "destroy");
   return true;
}

/* WAIT_ALL and first_signaled over two syncobjs */
static bool
case_wait_many(void)
{
   uint32_t h[2];
   ENSURE(!drmSyncobjCreate(fd, 0, &h[0]) && !drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &h[1]),
         "create");
   uint32_t first = 99;
   int r = drmSyncobjWait(fd, h, 2, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, &first);
   ENSURE(r == 0 && first == 1, "any: %d, first_signaled %u, want 0 and 1", r, first);
   r = drmSyncobjWait(fd, h, 2, 0,
                      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
   ENSURE(r == -ETIME, "all with one unsignalled: %d, want -ETIME", r);
   ENSURE(!drmSyncobjSignal(fd, h, 1), "signal");
   r = drmSyncobjWait(fd, h, 2, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
   ENSURE(r == 0, "all signalled: %d", r);
   drmSyncobjDestroy(fd, h[0]);
   drmSyncobjDestroy(fd, h[1]);
   return true;
}

/* sync_file export (poll, SYNC_IOC_FILE_INFO) and import; opaque fds */
static bool
case_fds(void)
{
   uint32_t a, b, c;
   ENSURE(!drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &a) && !drmSyncobjCreate(fd, 0, &b),
         "create");
   int sf = -1;
   ENSURE(FAILS_WITH(drmSyncobjExportSyncFile(fd, b, &sf), EINVAL), "export of a syncobj without fence");
   ENSURE(!drmSyncobjExportSyncFile(fd, a, &sf) && sf >= 0, "export sync_file");
   struct pollfd p = { .fd = sf, .events = POLLIN };
   ENSURE(poll(&p, 1, 1000) == 1, "signalled sync_file not ready");
   struct sync_file_info info;
   memset(&info, 0, sizeof(info));
   ENSURE(!ioctl(sf, SYNC_IOC_FILE_INFO, &info) && info.status == 1 && info.num_fences == 1,
         "SYNC_IOC_FILE_INFO: status %d, %u fences", info.status, info.num_fences);
   ENSURE(!drmSyncobjImportSyncFile(fd, b, sf), "import sync_file");
   if (!wait_one(b, 0, 0, 0, "syncobj of the imported sync_file"))
      return false;
   close(sf);
   int ofd = -1;
   ENSURE(!drmSyncobjHandleToFD(fd, b, &ofd) && ofd >= 0, "opaque export");
   ENSURE(!drmSyncobjFDToHandle(fd, ofd, &c) && c != b, "opaque import");
   close(ofd);
   ENSURE(!drmSyncobjReset(fd, &b, 1), "reset");
   if (!wait_one(c, 0, 0, -EINVAL, "the other handle of a reset syncobj"))
      return false;
   ENSURE(!drmSyncobjTransfer(fd, c, 0, a, 0, 0), "transfer");
   if (!wait_one(b, 0, 0, 0, "after a transfer into it"))
      return false;
   int pipefd[2];
   ENSURE(!pipe(pipefd), "pipe");
   ENSURE(FAILS_WITH(drmSyncobjImportSyncFile(fd, b, pipefd[0]), EINVAL), "import of a foreign fd");
   close(pipefd[0]);
   close(pipefd[1]);
   drmSyncobjDestroy(fd, a);
   drmSyncobjDestroy(fd, b);
   drmSyncobjDestroy(fd, c);
   return true;
}

/* errors of DRM core for unknown handles and flags */
static bool
case_errors(void)
{
   uint32_t bad = 0x7ffffff0, h;
   ENSURE(FAILS_WITH(drmSyncobjDestroy(fd, bad), EINVAL), "destroy of an unknown handle");
   ENSURE(drmSyncobjWait(fd, &bad, 1, 0, 0, NULL) == -ENOENT, "wait on an unknown handle");
   ENSURE(FAILS_WITH(drmSyncobjSignal(fd, &bad, 1), ENOENT), "signal of an unknown handle");
   ENSURE(FAILS_WITH(drmSyncobjCreate(fd, 0x80, &h), EINVAL), "create with an unknown flag");
   int sf;
   ENSURE(FAILS_WITH(drmSyncobjExportSyncFile(fd, bad, &sf), ENOENT),
         "sync_file export of an unknown handle");
   ENSURE(FAILS_WITH(drmSyncobjHandleToFD(fd, bad, &sf), EINVAL), "opaque export of an unknown handle");
   return true;
}

static bool
query_is(uint32_t h, uint32_t flags, uint64_t want, const char *what)
{
   uint64_t p = ~0ull;
   ENSURE(!drmSyncobjQuery2(fd, &h, &p, 1, flags), "%s: query failed (%s)", what, strerror(errno));
   ENSURE(p == want, "%s: query says point %llu, want %llu", what, (unsigned long long)p,
         (unsigned long long)want);
   return true;
}

static bool
point_wait(uint32_t h, uint64_t point, int64_t abs, unsigned flags, int want, const char *what)
{
   int r = drmSyncobjTimelineWait(fd, &h, &point, 1, abs, flags, NULL);
   ENSURE(r == want, "%s: %d (%s), want %d", what, r, strerror(-r), want);
   return true;
}

/* Timeline syncobjs (DRM core's dma_fence_chain points): points signalled,
 * the last signalled and last submitted point, waits on points before,
 * at and after the last one (-EINVAL, or with WAIT_FOR_SUBMIT a timeout,
 * also for WAIT_AVAILABLE), transfers from a point to a binary syncobj and
 * back to a later point, a wait on both, reset. */
static bool
case_timeline(void)
{
   uint32_t t, b;
   ENSURE(!drmSyncobjCreate(fd, 0, &t) && !drmSyncobjCreate(fd, 0, &b), "create");
   const unsigned wfs = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
   if (!query_is(t, 0, 0, "new syncobj") ||
       !point_wait(t, 1, 0, 0, -EINVAL, "point 1 of an empty timeline") ||
       !point_wait(t, 1, now_ns() + 20000000, wfs, -ETIME, "point 1 with WAIT_FOR_SUBMIT"))
      return false;
   uint64_t p = 3;
   ENSURE(!drmSyncobjTimelineSignal(fd, &t, &p, 1), "signal point 3 (%s)", strerror(errno));
   if (!query_is(t, 0, 3, "after point 3") ||
       !point_wait(t, 2, 0, 0, 0, "point 2 (before the last point)") ||
       !point_wait(t, 3, 0, 0, 0, "point 3") ||
       !point_wait(t, 4, 0, 0, -EINVAL, "point 4 (not submitted)") ||
       !point_wait(t, 4, 0, wfs | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, -ETIME,
                   "point 4 available"))
      return false;
   p = 5;
   ENSURE(!drmSyncobjTimelineSignal(fd, &t, &p, 1), "signal point 5");
   if (!query_is(t, 0, 5, "after point 5") ||
       !query_is(t, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED, 5, "last submitted"))
      return false;
   ENSURE(!drmSyncobjTransfer(fd, b, 0, t, 5, 0), "transfer of point 5 to a binary syncobj (%s)",
         strerror(errno));
   if (!wait_one(b, 0, 0, 0, "binary syncobj with point 5's fence"))
      return false;
   ENSURE(FAILS_WITH(drmSyncobjTransfer(fd, b, 0, t, 6, 0), EINVAL),
         "transfer of a point not submitted");
   ENSURE(!drmSyncobjTransfer(fd, t, 7, b, 0, 0), "transfer of a binary fence to point 7 (%s)",
         strerror(errno));
   if (!query_is(t, 0, 7, "after point 7"))
      return false;
   uint32_t h[2] = { t, b };
   uint64_t pts[2] = { 7, 0 };
   int r = drmSyncobjTimelineWait(fd, h, pts, 2, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
   ENSURE(r == 0, "wait for point 7 and the binary syncobj: %d", r);
   pts[0] = 9;
   uint32_t first = 99;
   r = drmSyncobjTimelineWait(fd, h, pts, 2, 0, wfs, &first);
   ENSURE(r == 0 && first == 1, "wait for point 9 or the binary syncobj: %d, first %u", r, first);
   ENSURE(!drmSyncobjReset(fd, &t, 1), "reset");
   if (!query_is(t, 0, 0, "after reset") ||
       !point_wait(t, 1, 0, 0, -EINVAL, "point 1 after reset"))
      return false;
   ENSURE(!drmSyncobjDestroy(fd, t) && !drmSyncobjDestroy(fd, b), "destroy");
   return true;
}

/* One no-op render command (desc_va 0) with its syncs */
static int
submit_noop(uint32_t queue, const struct drm_vagx_sync *syncs, unsigned n)
{
   struct drm_vagx_cmd cmd = {
      .type = DRM_VAGX_QUEUE_TYPE_RENDER,
      .syncs = DRM_VAGX_OBJ_ARRAY(n, syncs),
   };
   struct drm_vagx_submit s = { .queue_id = queue, .cmds = DRM_VAGX_OBJ_ARRAY(1, &cmd) };
   return drmIoctl(fd, DRM_IOCTL_VAGX_SUBMIT, &s) ? -errno : 0;
}

#define TL_WAIT(h, p) { .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ, .handle = h, .timeline_value = p }
#define TL_SIGNAL(h, p)                                                                 \
   { .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ, .flags = DRM_VAGX_SYNC_SIGNAL, .handle = h, \
     .timeline_value = p }

/* Timeline points signalled by jobs (SUBMIT's TIMELINE_SYNCOBJ syncs):
 * points 1 and 2 by two no-op commands, the second waiting for point 1,
 * then point 3 signalled on the CPU, which completes only after them.
 * With VAGX_SHIM_DELAY_MS (the shim holds every job; tests/gl/run) the
 * points must be pending meanwhile: query 0, a short wait times out, the
 * point is available.  A wait for a point nobody submitted and a timeline
 * sync without a point are -EINVAL. */
static bool
case_timeline_submit(void)
{
   const bool held = getenv("VAGX_SHIM_DELAY_MS") != NULL;
   struct drm_vagx_vm_create vm = { 0 };
   ENSURE(!drmIoctl(fd, DRM_IOCTL_VAGX_VM_CREATE, &vm), "VM_CREATE (%s)", strerror(errno));
   struct drm_vagx_queue_create q = { .vm_id = vm.vm_id, .type = DRM_VAGX_QUEUE_TYPE_RENDER,
                                      .priority = DRM_VAGX_PRIORITY_MEDIUM };
   ENSURE(!drmIoctl(fd, DRM_IOCTL_VAGX_QUEUE_CREATE, &q), "QUEUE_CREATE (%s)", strerror(errno));
   uint32_t t;
   ENSURE(!drmSyncobjCreate(fd, 0, &t), "create");
   const struct drm_vagx_sync first[] = { TL_SIGNAL(t, 1) };
   const struct drm_vagx_sync second[] = { TL_WAIT(t, 1), TL_SIGNAL(t, 2) };
   int r = submit_noop(q.queue_id, first, 1);
   ENSURE(!r, "SUBMIT signalling point 1: %d", r);
   r = submit_noop(q.queue_id, second, 2);
   ENSURE(!r, "SUBMIT waiting for point 1 and signalling point 2: %d", r);
   if (held && (!query_is(t, 0, 0, "jobs held") ||
                !query_is(t, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED, 2, "jobs held, last submitted") ||
                !point_wait(t, 1, now_ns() + 5000000, 0, -ETIME, "point 1 of a held job") ||
                !point_wait(t, 2, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 0,
                            "point 2 available")))
      return false;
   uint64_t p = 3;
   ENSURE(!drmSyncobjTimelineSignal(fd, &t, &p, 1), "signal point 3");
   if (held && !query_is(t, 0, 0, "point 3 signalled behind held jobs"))
      return false;
   if (!point_wait(t, 3, now_ns() + 10000000000ll, 0, 0, "point 3") ||
       !query_is(t, 0, 3, "after the jobs"))
      return false;
   const struct drm_vagx_sync unknown[] = { TL_WAIT(t, 9) };
   r = submit_noop(q.queue_id, unknown, 1);
   ENSURE(r == -EINVAL, "SUBMIT waiting for a point not submitted: %d", r);
   const struct drm_vagx_sync zero[] = { TL_SIGNAL(t, 0) };
   r = submit_noop(q.queue_id, zero, 1);
   ENSURE(r == -EINVAL, "SUBMIT signalling timeline point 0: %d", r);
   struct drm_vagx_queue_destroy qd = { .queue_id = q.queue_id };
   struct drm_vagx_vm_destroy vd = { .vm_id = vm.vm_id };
   ENSURE(!drmIoctl(fd, DRM_IOCTL_VAGX_QUEUE_DESTROY, &qd) &&
            !drmIoctl(fd, DRM_IOCTL_VAGX_VM_DESTROY, &vd) && !drmSyncobjDestroy(fd, t),
         "destroy");
   return true;
}

int
main(void)
{
   setvbuf(stdout, NULL, _IOLBF, 0);
   for (int m = 128; m < 136 && fd < 0; m++) {
      char path[64];
      snprintf(path, sizeof(path), "/dev/dri/renderD%d", m);
      int f = open(path, O_RDWR | O_CLOEXEC);
      if (f < 0)
         continue;
      drmVersionPtr v = drmGetVersion(f);
      if (v && !strcmp(v->name, "vagx"))
         fd = f;
      else
         close(f);
      drmFreeVersion(v);
   }
   if (fd < 0) {
      printf("no vagx render node\n");
      return 3;
   }
   static const struct {
      const char *name;
      bool (*fn)(void);
   } cases[] = { { "wait", case_wait }, { "wait_many", case_wait_many },
                 { "fds", case_fds }, { "errors", case_errors },
                 { "timeline", case_timeline }, { "timeline_submit", case_timeline_submit } };
   int fails = 0;
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      err[0] = 0;
      if (cases[i].fn()) {
         printf("case %s ok\n", cases[i].name);
      } else {
         printf("case %s error: %s\n", cases[i].name, err);
         fails++;
      }
   }
   return fails ? 1 : 0;
}
