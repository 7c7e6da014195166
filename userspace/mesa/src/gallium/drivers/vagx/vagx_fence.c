/* SPDX-License-Identifier: MIT */
/*
 * Fences and the screen's submission timeline.
 *
 * Every render submit of every context of a screen goes to the device's one
 * render queue, which completes its jobs in order.  The screen numbers the
 * submits (seq, assigned under submit_lock in SUBMIT order) and keeps the
 * fence (a syncobj the job signals) of each one not yet seen complete.  A
 * BO records the seq of its last use and last write (vagx_bo), so a CPU
 * access waits for exactly the submit it needs, and "seq S done" implies
 * every earlier seq is.  Pipe fences are the same objects: a context's
 * fence is the fence of its last submit; fences imported from a sync_file
 * have no seq.
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

/* A fence owning a new syncobj, created signalled: a submit that fails
 * leaves it so, and nobody can wait for a job that never ran. */
static struct vagx_fence *
fence_create(struct vagx_device *dev)
{
   struct vagx_fence *f = CALLOC_STRUCT(vagx_fence);
   if (!f)
      return NULL;
   pipe_reference_init(&f->reference, 1);
   f->dev = dev;
   if (dev->ops->syncobj_create(dev, &f->syncobj)) {
      FREE(f);
      return NULL;
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

/* Waits for the syncobj alone (no timeline bookkeeping). */
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

/* Drops the fences of completed submits from the head of the timeline:
 * those up to `upto` (known complete) and then those already signalled
 * (a poll each, stopping at the first busy one: later ones cannot be done
 * before it).  Called with submit_lock held. */
static void
retire_locked(struct vagx_screen *s, uint64_t upto)
{
   unsigned n = util_dynarray_num_elements(&s->inflight, struct vagx_fence *), done = 0;
   struct vagx_fence **f = util_dynarray_begin(&s->inflight);
   while (done < n && (f[done]->seq <= upto || fence_wait_syncobj(f[done], 0))) {
      s->completed_seq = MAX2(s->completed_seq, f[done]->seq);
      vagx_fence_reference(&f[done], NULL);
      done++;
   }
   if (done) {
      memmove(f, f + done, (n - done) * sizeof(*f));
      s->inflight.size -= done * sizeof(*f);
   }
}

uint64_t
vagx_screen_completed_seq(struct vagx_screen *s)
{
   simple_mtx_lock(&s->submit_lock);
   retire_locked(s, 0);
   uint64_t c = s->completed_seq;
   simple_mtx_unlock(&s->submit_lock);
   return c;
}

/* The fence of submit seq (referenced), NULL when it has completed. */
static struct vagx_fence *
fence_of_seq_locked(struct vagx_screen *s, uint64_t seq)
{
   if (seq <= s->completed_seq)
      return NULL;
   util_dynarray_foreach(&s->inflight, struct vagx_fence *, it) {
      if ((*it)->seq >= seq) {
         struct vagx_fence *f = NULL;
         vagx_fence_reference(&f, *it);
         return f;
      }
   }
   return NULL;
}

bool
vagx_screen_wait_seq(struct vagx_screen *s, uint64_t seq, int64_t abs_timeout)
{
   if (!seq)
      return true;
   simple_mtx_lock(&s->submit_lock);
   struct vagx_fence *f = fence_of_seq_locked(s, seq);
   simple_mtx_unlock(&s->submit_lock);
   if (!f)
      return true;
   /* VAGX_DEBUG=waits: the waits that block (tests/gl/run counts them) */
   if ((s->debug & VAGX_DBG_WAITS) && abs_timeout && !fence_wait_syncobj(f, 0))
      fprintf(stderr, "vagx: CPU waits for submit %llu\n", (unsigned long long)seq);
   /* the wait itself without the lock: other contexts keep submitting */
   bool ok = fence_wait_syncobj(f, abs_timeout);
   if (ok) {
      simple_mtx_lock(&s->submit_lock);
      retire_locked(s, f->seq);
      simple_mtx_unlock(&s->submit_lock);
   }
   vagx_fence_reference(&f, NULL);
   return ok;
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
   simple_mtx_unlock(&s->submit_lock);
   return seq > vagx_screen_completed_seq(s);
}

uint64_t
vagx_screen_submit(struct vagx_screen *s, uint64_t desc_va, struct vagx_bo *const *bos,
                   unsigned bo_count, struct vagx_bo *const *writes, unsigned write_count,
                   const uint32_t *waits, unsigned wait_count)
{
   struct vagx_device *dev = &s->dev;
   struct vagx_fence *f = fence_create(dev);
   if (!f)
      return 0;
   simple_mtx_lock(&s->submit_lock);
   int r = vagx_device_submit(dev, DRM_VAGX_QUEUE_TYPE_RENDER, desc_va, f->syncobj, bos,
                              bo_count, waits, wait_count);
   uint64_t seq = 0, too_far = 0;
   if (r) {
      fprintf(stderr, "vagx: SUBMIT failed: %s\n", strerror(-r));
   } else {
      seq = f->seq = ++s->submit_seq;
      for (unsigned i = 0; i < bo_count; i++)
         bos[i]->last_use_seq = seq;
      for (unsigned i = 0; i < write_count; i++)
         writes[i]->last_write_seq = seq;
      util_dynarray_append(&s->inflight, struct vagx_fence *, f);
      f = NULL;
      /* more than VAGX_MAX_INFLIGHT pending: once those done are dropped,
       * the CPU waits until only VAGX_MAX_INFLIGHT are left */
      if (util_dynarray_num_elements(&s->inflight, struct vagx_fence *) > VAGX_MAX_INFLIGHT) {
         retire_locked(s, 0);
         if (util_dynarray_num_elements(&s->inflight, struct vagx_fence *) > VAGX_MAX_INFLIGHT)
            too_far = seq - VAGX_MAX_INFLIGHT;
      }
   }
   simple_mtx_unlock(&s->submit_lock);
   vagx_fence_reference(&f, NULL);
   if (too_far)
      vagx_screen_wait_seq(s, too_far, INT64_MAX);
   return seq;
}

void
vagx_screen_fini_timeline(struct vagx_screen *s)
{
   util_dynarray_foreach(&s->inflight, struct vagx_fence *, it) {
      fence_wait_syncobj(*it, INT64_MAX);
      vagx_fence_reference(it, NULL);
   }
   util_dynarray_fini(&s->inflight);
   simple_mtx_destroy(&s->submit_lock);
}

/* A signalled fence without a syncobj: a context with nothing submitted
 * or whose last submit has completed. */
static struct vagx_fence *
fence_signalled(struct vagx_device *dev)
{
   struct vagx_fence *f = CALLOC_STRUCT(vagx_fence);
   if (f) {
      pipe_reference_init(&f->reference, 1);
      f->dev = dev;
      f->signalled = true;
   }
   return f;
}

struct vagx_fence *
vagx_context_fence(struct vagx_context *ctx)
{
   struct vagx_screen *s = ctx->screen;
   simple_mtx_lock(&s->submit_lock);
   struct vagx_fence *f = fence_of_seq_locked(s, ctx->last_seq);
   simple_mtx_unlock(&s->submit_lock);
   return f ? f : fence_signalled(&s->dev);
}

/* ---- pipe_screen / pipe_context fence hooks ---- */

static void
vagx_screen_fence_reference(struct pipe_screen *pscreen, struct pipe_fence_handle **ptr,
                            struct pipe_fence_handle *f)
{
   vagx_fence_reference((struct vagx_fence **)ptr, (struct vagx_fence *)f);
}

static bool
vagx_fence_finish(struct pipe_screen *pscreen, struct pipe_context *pctx,
                  struct pipe_fence_handle *pf, uint64_t timeout)
{
   struct vagx_fence *f = (struct vagx_fence *)pf;
   /* fences are made by a flush (there are no deferred ones): nothing of
    * pctx needs flushing for this one to signal */
   int64_t abs = os_time_get_absolute_timeout(timeout);
   if (abs == OS_TIMEOUT_INFINITE)
      abs = INT64_MAX;
   /* the timeline of the screen that submitted it */
   if (f->seq)
      return vagx_screen_wait_seq(container_of(f->dev, struct vagx_screen, dev), f->seq, abs);
   return fence_wait_syncobj(f, abs);
}

/* sync_file of a fence: the syncobj's, or a new signalled one */
static int
vagx_fence_get_fd(struct pipe_screen *pscreen, struct pipe_fence_handle *pf)
{
   struct vagx_fence *f = (struct vagx_fence *)pf;
   struct vagx_device *dev = f->dev; /* the syncobj's file */
   uint32_t syncobj = f->syncobj;
   int fd = -1;
   if (!syncobj && dev->ops->syncobj_create(dev, &syncobj))
      return -1;
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
   struct vagx_fence *f = CALLOC_STRUCT(vagx_fence);
   if (!f)
      return;
   pipe_reference_init(&f->reference, 1);
   f->dev = dev;
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
   if (!f->syncobj || p_atomic_read(&f->signalled) || (f->seq && f->dev == dev))
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
         fence_wait_syncobj(f, INT64_MAX);
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
   util_dynarray_init(&s->inflight, NULL);
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
