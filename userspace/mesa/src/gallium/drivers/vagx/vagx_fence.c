/* SPDX-License-Identifier: MIT */
/*
 * Fences and the screen's submission timeline.
 *
 * Every render submit of every context of a screen goes to the device's one
 * render queue, every compute dispatch to its one compute queue; each queue
 * completes its jobs in order.  The screen numbers the submits (seq,
 * assigned under submit_lock in SUBMIT order) and each one signals point
 * seq of the screen's timeline syncobj.  A submit to the other queue than
 * the previous one's also waits for the previous point on the device, so
 * the jobs of both queues run in seq order (no CPU wait), and "seq S is
 * done" is one timeline wait or query, and implies every earlier seq is.  A BO
 * records the seq of its last use and last write (vagx_bo), so a CPU access
 * waits for exactly the submit it needs.  Pipe fences are points of the
 * timeline too (a context's fence is its last submit's); fences imported
 * from a sync_file have a syncobj of their own instead.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <xf86drm.h>
#include "util/os_time.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "vagx_context.h"

/* Submits of a screen (all its contexts) whose job may still run: the
 * submit after them waits for the oldest, so the CPU runs at most this far
 * ahead of the device and the memory of pending batches (their chunks and
 * BO references, VAGX_BATCH_MAX_BYTES each at most) stays bounded.  Below
 * it, nothing waits. */
#define VAGX_MAX_INFLIGHT 8

static struct vagx_fence *
fence_alloc(struct vagx_device *dev)
{
   struct vagx_fence *f = CALLOC_STRUCT(vagx_fence);
   if (f) {
      pipe_reference_init(&f->reference, 1);
      f->dev = dev;
   }
   return f;
}

void
vagx_fence_reference(struct vagx_fence **ptr, struct vagx_fence *f)
{
   struct vagx_fence *old = *ptr;
   if (pipe_reference(old ? &old->reference : NULL, f ? &f->reference : NULL)) {
      if (old->syncobj)
         old->dev->ops->syncobj_destroy(old->dev, old->syncobj);
      FREE(old);
   }
   *ptr = f;
}

/* Waits for an imported fence's syncobj (no timeline) */
static bool
fence_wait_syncobj(struct vagx_fence *f, int64_t abs_timeout)
{
   if (!f->syncobj || p_atomic_read(&f->signalled))
      return true;
   if (f->dev->ops->syncobj_wait(f->dev, f->syncobj, abs_timeout))
      return false;
   p_atomic_set(&f->signalled, true);
   return true;
}

/* The last seq the timeline says has completed (every one before it has):
 * a QUERY of the timeline's last signalled point.  Called with submit_lock
 * held. */
static uint64_t
query_completed_locked(struct vagx_screen *s)
{
   if (s->completed_seq < s->submit_seq) {
      uint64_t point = 0;
      if (!drmSyncobjQuery(s->dev.fd, &s->timeline, &point, 1))
         s->completed_seq = MAX2(s->completed_seq, MIN2(point, s->submit_seq));
   }
   return s->completed_seq;
}

uint64_t
vagx_screen_completed_seq(struct vagx_screen *s)
{
   simple_mtx_lock(&s->submit_lock);
   uint64_t c = query_completed_locked(s);
   simple_mtx_unlock(&s->submit_lock);
   return c;
}

/* Waits for point seq of the timeline; false at the timeout. */
static bool
timeline_wait(struct vagx_screen *s, uint64_t seq, int64_t abs_timeout)
{
   return drmSyncobjTimelineWait(s->dev.fd, &s->timeline, &seq, 1, abs_timeout, 0, NULL) == 0;
}

bool
vagx_screen_wait_seq(struct vagx_screen *s, uint64_t seq, int64_t abs_timeout)
{
   if (!seq)
      return true;
   simple_mtx_lock(&s->submit_lock);
   const bool done = seq <= s->completed_seq;
   simple_mtx_unlock(&s->submit_lock);
   if (done)
      return true;
   /* VAGX_DEBUG=waits: the waits that block (tests/gl/run counts them) */
   if ((s->debug & VAGX_DBG_WAITS) && abs_timeout && !timeline_wait(s, seq, 0))
      fprintf(stderr, "vagx: CPU waits for submit %llu\n", (unsigned long long)seq);
   /* the wait itself without the lock: other contexts keep submitting */
   if (!timeline_wait(s, seq, abs_timeout))
      return false;
   simple_mtx_lock(&s->submit_lock);
   s->completed_seq = MAX2(s->completed_seq, seq);
   simple_mtx_unlock(&s->submit_lock);
   return true;
}

void
vagx_bo_wait_idle(struct vagx_screen *s, struct vagx_bo *bo, bool write)
{
   simple_mtx_lock(&s->submit_lock);
   uint64_t seq = write ? bo->last_use_seq : bo->last_write_seq;
   simple_mtx_unlock(&s->submit_lock);
   vagx_screen_wait_seq(s, seq, INT64_MAX);
}

bool
vagx_bo_is_busy(struct vagx_screen *s, struct vagx_bo *bo, bool write)
{
   simple_mtx_lock(&s->submit_lock);
   uint64_t seq = write ? bo->last_use_seq : bo->last_write_seq;
   const bool busy = seq > query_completed_locked(s);
   simple_mtx_unlock(&s->submit_lock);
   return busy;
}

uint64_t
vagx_screen_submit(struct vagx_screen *s, unsigned queue_type, uint64_t desc_va,
                   struct vagx_bo *const *bos, unsigned bo_count, struct vagx_bo *const *writes,
                   unsigned write_count, const uint32_t *waits, unsigned wait_count)
{
   struct vagx_device *dev = &s->dev;
   simple_mtx_lock(&s->submit_lock);
   /* the timeline's next point: the last one, as vagx_device_submit needs
    * for implicit sync, since seqs are given out under this lock */
   uint64_t seq = s->submit_seq + 1, too_far = 0;
   /* after a job of the other queue: once it (and so every earlier seq)
    * is done, on the device */
   const uint64_t after = s->submit_seq && s->submit_queue != queue_type &&
                                s->submit_seq > s->completed_seq
                             ? s->submit_seq
                             : 0;
   int r = vagx_device_submit(dev, queue_type, desc_va, s->timeline, seq, after, bos, bo_count,
                              waits, wait_count);
   if (r) {
      fprintf(stderr, "vagx: SUBMIT failed: %s\n", strerror(-r));
      seq = 0;
   } else {
      s->submit_seq = seq;
      s->submit_queue = queue_type;
      for (unsigned i = 0; i < bo_count; i++)
         bos[i]->last_use_seq = seq;
      for (unsigned i = 0; i < write_count; i++)
         writes[i]->last_write_seq = seq;
      /* more than VAGX_MAX_INFLIGHT pending (those done are not: the
       * query), the CPU waits until only VAGX_MAX_INFLIGHT are left */
      if (seq - s->completed_seq > VAGX_MAX_INFLIGHT &&
          seq - query_completed_locked(s) > VAGX_MAX_INFLIGHT)
         too_far = seq - VAGX_MAX_INFLIGHT;
   }
   simple_mtx_unlock(&s->submit_lock);
   if (too_far)
      vagx_screen_wait_seq(s, too_far, INT64_MAX);
   return seq;
}

void
vagx_screen_fini_timeline(struct vagx_screen *s)
{
   if (s->timeline) {
      vagx_screen_wait_seq(s, s->submit_seq, INT64_MAX);
      s->dev.ops->syncobj_destroy(&s->dev, s->timeline);
   }
   simple_mtx_destroy(&s->submit_lock);
}

/* A signalled fence: a context with nothing submitted or whose last submit
 * has completed. */
static struct vagx_fence *
fence_signalled(struct vagx_device *dev)
{
   struct vagx_fence *f = fence_alloc(dev);
   if (f)
      f->signalled = true;
   return f;
}

struct vagx_fence *
vagx_context_fence(struct vagx_context *ctx)
{
   struct vagx_screen *s = ctx->screen;
   if (ctx->last_seq <= vagx_screen_completed_seq(s))
      return fence_signalled(&s->dev);
   struct vagx_fence *f = fence_alloc(&s->dev);
   if (f)
      f->seq = ctx->last_seq;
   return f;
}

/* ---- pipe_screen / pipe_context fence hooks ---- */

static void
vagx_screen_fence_reference(struct pipe_screen *pscreen, struct pipe_fence_handle **ptr,
                            struct pipe_fence_handle *f)
{
   vagx_fence_reference((struct vagx_fence **)ptr, (struct vagx_fence *)f);
}

static bool
fence_wait(struct vagx_fence *f, int64_t abs)
{
   /* the timeline of the screen that submitted it */
   if (f->seq)
      return vagx_screen_wait_seq(container_of(f->dev, struct vagx_screen, dev), f->seq, abs);
   return fence_wait_syncobj(f, abs);
}

static bool
vagx_fence_finish(struct pipe_screen *pscreen, struct pipe_context *pctx,
                  struct pipe_fence_handle *pf, uint64_t timeout)
{
   /* fences are made by a flush (there are no deferred ones): nothing of
    * pctx needs flushing for this one to signal */
   int64_t abs = os_time_get_absolute_timeout(timeout);
   if (abs == OS_TIMEOUT_INFINITE)
      abs = INT64_MAX;
   return fence_wait((struct vagx_fence *)pf, abs);
}

/* sync_file of a fence: of the imported syncobj, or of a new binary one
 * holding the fence's timeline point (TRANSFER), or a signalled one */
static int
vagx_fence_get_fd(struct pipe_screen *pscreen, struct pipe_fence_handle *pf)
{
   struct vagx_fence *f = (struct vagx_fence *)pf;
   struct vagx_device *dev = f->dev; /* the syncobjs' file */
   uint32_t syncobj = f->syncobj;
   int fd = -1;
   if (!syncobj) {
      if (dev->ops->syncobj_create(dev, &syncobj))
         return -1;
      const uint32_t timeline = container_of(dev, struct vagx_screen, dev)->timeline;
      if (f->seq && drmSyncobjTransfer(dev->fd, syncobj, 0, timeline, f->seq, 0)) {
         fprintf(stderr, "vagx: cannot transfer timeline point %llu: %s\n",
                 (unsigned long long)f->seq, strerror(errno));
         dev->ops->syncobj_destroy(dev, syncobj);
         return -1;
      }
   }
   if (drmSyncobjExportSyncFile(dev->fd, syncobj, &fd))
      fd = -1;
   if (syncobj != f->syncobj)
      dev->ops->syncobj_destroy(dev, syncobj);
   return fd;
}

/* A fence of a sync_file (EGL_ANDROID_native_fence_sync): the fd stays the
 * caller's. */
static void
vagx_create_fence_fd(struct pipe_context *pctx, struct pipe_fence_handle **pfence, int fd,
                     enum pipe_fd_type type)
{
   struct vagx_device *dev = &vagx_context(pctx)->screen->dev;
   *pfence = NULL;
   if (type != PIPE_FD_TYPE_NATIVE_SYNC)
      return;
   struct vagx_fence *f = fence_alloc(dev);
   if (!f)
      return;
   if (drmSyncobjCreate(dev->fd, 0, &f->syncobj)) {
      FREE(f);
      return;
   }
   if (drmSyncobjImportSyncFile(dev->fd, f->syncobj, fd)) {
      fprintf(stderr, "vagx: cannot import sync_file %d: %s\n", fd, strerror(errno));
      vagx_fence_reference(&f, NULL);
      return;
   }
   *pfence = (struct pipe_fence_handle *)f;
}

/* The context's next submits wait for the fence on the device (glWaitSync,
 * eglWaitSyncKHR).  Fences of this screen's own submits need nothing: the
 * render queue runs in order.  A fence of another screen (another DRM
 * file: syncobj handles are per file) goes through a sync_file. */
static void
vagx_fence_server_sync(struct pipe_context *pctx, struct pipe_fence_handle *pf)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_device *dev = &ctx->screen->dev;
   struct vagx_fence *f = (struct vagx_fence *)pf;
   if (p_atomic_read(&f->signalled) || (!f->syncobj && !f->seq) || (f->seq && f->dev == dev))
      return;
   struct vagx_fence *ref = NULL;
   if (f->dev == dev) {
      vagx_fence_reference(&ref, f);
   } else {
      int fd = vagx_fence_get_fd(pctx->screen, pf);
      if (fd >= 0) {
         vagx_create_fence_fd(pctx, (struct pipe_fence_handle **)&ref, fd,
                              PIPE_FD_TYPE_NATIVE_SYNC);
         close(fd);
      }
      if (!ref) {
         /* no device wait possible: the CPU waits instead */
         fprintf(stderr, "vagx: fence of another device: waiting on the CPU\n");
         fence_wait(f, INT64_MAX);
         return;
      }
   }
   util_dynarray_append(&ctx->wait_fences, struct vagx_fence *, ref);
}

void
vagx_init_screen_fence_functions(struct pipe_screen *p)
{
   struct vagx_screen *s = vagx_screen(p);
   simple_mtx_init(&s->submit_lock, mtx_plain);
   /* no point yet: every wait is for a point submitted since */
   if (drmSyncobjCreate(s->dev.fd, 0, &s->timeline))
      fprintf(stderr, "vagx: cannot create the timeline syncobj: %s\n", strerror(errno));
   p->fence_reference = vagx_screen_fence_reference;
   p->fence_finish = vagx_fence_finish;
   p->fence_get_fd = vagx_fence_get_fd;
}

void
vagx_init_context_fence_functions(struct pipe_context *p)
{
   p->create_fence_fd = vagx_create_fence_fd;
   p->fence_server_sync = vagx_fence_server_sync;
}
