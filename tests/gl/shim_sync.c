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
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

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

#define CHECK(cond, ...)                                                   \
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
   CHECK(r == want, "%s: %d (%s), want %d", what, r, strerror(-r), want);
   return true;
}

/* no fence, WAIT_FOR_SUBMIT timeouts, signal, reset */
static bool
case_wait(void)
{
   uint32_t h;
   CHECK(!drmSyncobjCreate(fd, 0, &h), "create");
   if (!wait_one(h, 0, 0, -EINVAL, "wait without fence and without WAIT_FOR_SUBMIT") ||
       !wait_one(h, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -ETIME, "poll without fence"))
      return false;
   int64_t t0 = now_ns();
   if (!wait_one(h, t0 + 20000000, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -ETIME, "20 ms wait"))
      return false;
   int64_t dt = (now_ns() - t0) / 1000000;
   CHECK(dt >= 19 && dt < 500, "20 ms wait returned after %lld ms", (long long)dt);
   CHECK(!drmSyncobjSignal(fd, &h, 1), "signal");
   if (!wait_one(h, 0, 0, 0, "poll after signal"))
      return false;
   CHECK(!drmSyncobjReset(fd, &h, 1), "reset");
   if (!wait_one(h, 0, 0, -EINVAL, "wait after reset") ||
       !wait_one(h, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -ETIME, "poll after reset"))
      return false;
   CHECK(!drmSyncobjDestroy(fd, h), "destroy");
   return true;
}

/* WAIT_ALL and first_signaled over two syncobjs */
static bool
case_wait_many(void)
{
   uint32_t h[2];
   CHECK(!drmSyncobjCreate(fd, 0, &h[0]) && !drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &h[1]),
         "create");
   uint32_t first = 99;
   int r = drmSyncobjWait(fd, h, 2, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, &first);
   CHECK(r == 0 && first == 1, "any: %d, first_signaled %u, want 0 and 1", r, first);
   r = drmSyncobjWait(fd, h, 2, 0,
                      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
   CHECK(r == -ETIME, "all with one unsignalled: %d, want -ETIME", r);
   CHECK(!drmSyncobjSignal(fd, h, 1), "signal");
   r = drmSyncobjWait(fd, h, 2, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
   CHECK(r == 0, "all signalled: %d", r);
   drmSyncobjDestroy(fd, h[0]);
   drmSyncobjDestroy(fd, h[1]);
   return true;
}

/* sync_file export (poll, SYNC_IOC_FILE_INFO) and import; opaque fds */
static bool
case_fds(void)
{
   uint32_t a, b, c;
   CHECK(!drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &a) && !drmSyncobjCreate(fd, 0, &b),
         "create");
   int sf = -1;
   CHECK(FAILS_WITH(drmSyncobjExportSyncFile(fd, b, &sf), EINVAL), "export of a syncobj without fence");
   CHECK(!drmSyncobjExportSyncFile(fd, a, &sf) && sf >= 0, "export sync_file");
   struct pollfd p = { .fd = sf, .events = POLLIN };
   CHECK(poll(&p, 1, 1000) == 1, "signalled sync_file not ready");
   struct sync_file_info info;
   memset(&info, 0, sizeof(info));
   CHECK(!ioctl(sf, SYNC_IOC_FILE_INFO, &info) && info.status == 1 && info.num_fences == 1,
         "SYNC_IOC_FILE_INFO: status %d, %u fences", info.status, info.num_fences);
   CHECK(!drmSyncobjImportSyncFile(fd, b, sf), "import sync_file");
   if (!wait_one(b, 0, 0, 0, "syncobj of the imported sync_file"))
      return false;
   close(sf);
   int ofd = -1;
   CHECK(!drmSyncobjHandleToFD(fd, b, &ofd) && ofd >= 0, "opaque export");
   CHECK(!drmSyncobjFDToHandle(fd, ofd, &c) && c != b, "opaque import");
   close(ofd);
   CHECK(!drmSyncobjReset(fd, &b, 1), "reset");
   if (!wait_one(c, 0, 0, -EINVAL, "the other handle of a reset syncobj"))
      return false;
   CHECK(!drmSyncobjTransfer(fd, c, 0, a, 0, 0), "transfer");
   if (!wait_one(b, 0, 0, 0, "after a transfer into it"))
      return false;
   int pipefd[2];
   CHECK(!pipe(pipefd), "pipe");
   CHECK(FAILS_WITH(drmSyncobjImportSyncFile(fd, b, pipefd[0]), EINVAL), "import of a foreign fd");
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
   CHECK(FAILS_WITH(drmSyncobjDestroy(fd, bad), EINVAL), "destroy of an unknown handle");
   CHECK(drmSyncobjWait(fd, &bad, 1, 0, 0, NULL) == -ENOENT, "wait on an unknown handle");
   CHECK(FAILS_WITH(drmSyncobjSignal(fd, &bad, 1), ENOENT), "signal of an unknown handle");
   CHECK(FAILS_WITH(drmSyncobjCreate(fd, 0x80, &h), EINVAL), "create with an unknown flag");
   int sf;
   CHECK(FAILS_WITH(drmSyncobjExportSyncFile(fd, bad, &sf), ENOENT),
         "sync_file export of an unknown handle");
   CHECK(FAILS_WITH(drmSyncobjHandleToFD(fd, bad, &sf), EINVAL), "opaque export of an unknown handle");
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
                 { "fds", case_fds }, { "errors", case_errors } };
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
