/* SPDX-License-Identifier: MIT */
/*
 * Fences and binary syncobjs of the vagx drm-shim (vagx_shim_sync.h), and
 * the DRM core syncobj ioctls over them, replacing the stubs of Mesa's
 * drm-shim (which answers every syncobj ioctl with success, so a wait
 * would never wait).
 *
 * Differences from DRM core, all outside what Mesa's GL driver does:
 * - handles are one space for the whole process, not per file;
 * - timeline points are chain links as DRM core's dma_fence_chain (a link
 *   signals once its point's fence and the previous link have; a link
 *   drops the previous one when it signals, as DRM core collects signalled
 *   links), but a point added below the last one is kept in the order of
 *   addition (DRM core warns and starts a new fence context);
 * - a sync_file is a pipe: its read end is the fd the application gets,
 *   readable (poll POLLIN) once the fence signalled, like a sync_file, and
 *   answering SYNC_IOC_FILE_INFO (through Mesa's drm-shim hook for ioctls
 *   on other files, userspace/mesa-hooks.patch; Mesa's EGL checks native
 *   fence fds with it).  SYNC_IOC_MERGE is not emulated (ENOTTY).  The
 *   shim finds the fence of an fd again by the pipe's inode, so an fd
 *   imported must come from this process's export (else -EINVAL); the
 *   inode -> fence entries live as long as the process (a few bytes each).
 * One lock and one condition variable serve every fence: waits are rare
 * and short compared with the jobs they wait for.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/sync_file.h>
#include <unistd.h>
#include "drm-shim/drm_shim.h"
#include "util/cnd_monotonic.h"
#include "util/hash_table.h"
#include "util/os_time.h"
#include "util/u_dynarray.h"
#include "vagx_shim_sync.h"

struct shim_fence {
   int refcnt;
   bool signalled;
   int status;
   struct util_dynarray pipes; /* int: write ends of sync_file pipes, written at signal */
   /* timeline point (a dma_fence_chain link): seqno != 0; signals when
    * `point` and `prev` (the previous link or a binary fence, dropped once
    * this link signalled) have, with the first error of the two */
   uint64_t seqno;
   struct shim_fence *point, *prev;
   /* struct shim_fence *, referenced: links waiting for this fence */
   struct util_dynarray links;
};

struct shim_syncobj {
   int refcnt;                 /* handles and opaque fds */
   struct shim_fence *fence;   /* NULL: no fence (created unsignalled, or reset) */
};

/* What an exported fd stands for */
struct shim_file {
   struct shim_fence *fence;     /* sync_file */
   struct shim_syncobj *syncobj; /* opaque syncobj fd */
};

static struct {
   mtx_t lock;
   struct u_cnd_monotonic cond;  /* some fence signalled or a syncobj got a fence */
   struct hash_table_u64 *handles; /* uint32_t handle -> struct shim_syncobj * */
   struct hash_table_u64 *files;   /* pipe inode -> struct shim_file * */
   uint32_t next_handle;
} G;

/* CLOCK_MONOTONIC ns -> the timespec u_cnd_monotonic_timedwait takes */
static struct timespec
abs_timespec(int64_t ns)
{
   return (struct timespec){ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
}

struct shim_fence *
shim_fence_create(void)
{
   struct shim_fence *f = calloc(1, sizeof(*f));
   if (!f)
      return NULL;
   f->refcnt = 1;
   util_dynarray_init(&f->pipes, NULL);
   util_dynarray_init(&f->links, NULL);
   return f;
}

void
shim_fence_ref(struct shim_fence *f)
{
   mtx_lock(&G.lock);
   f->refcnt++;
   mtx_unlock(&G.lock);
}

static void
fence_unref_locked(struct shim_fence *f)
{
   while (f && --f->refcnt == 0) {
      /* an unsignalled fence keeps its pipes only while it is referenced:
       * nobody can signal it any more, close them (readers see POLLHUP) */
      util_dynarray_foreach(&f->pipes, int, fd)
         close(*fd);
      util_dynarray_fini(&f->pipes);
      /* (links waiting for f hold a reference to it: none is left) */
      assert(!util_dynarray_num_elements(&f->links, struct shim_fence *));
      util_dynarray_fini(&f->links);
      fence_unref_locked(f->point);
      struct shim_fence *prev = f->prev;
      free(f);
      f = prev; /* a long chain without recursion */
   }
}

void
shim_fence_unref(struct shim_fence *f)
{
   mtx_lock(&G.lock);
   fence_unref_locked(f);
   mtx_unlock(&G.lock);
}

/* Signals f, and the timeline links that were waiting only for it (and
 * those waiting for them); the write ends of their sync_file pipes are
 * appended to `pipes`, to be written without the lock. */
static void
signal_locked(struct shim_fence *f, int status, struct util_dynarray *pipes)
{
   struct util_dynarray work;
   util_dynarray_init(&work, NULL);
   f->refcnt++;
   util_dynarray_append(&work, struct shim_fence *, f);
   f->status = status;
   while (util_dynarray_num_elements(&work, struct shim_fence *)) {
      struct shim_fence *s = util_dynarray_pop(&work, struct shim_fence *);
      if (!s->signalled) {
         s->signalled = true;
         util_dynarray_append_dynarray(pipes, &s->pipes);
         util_dynarray_clear(&s->pipes);
         if (s->seqno) {
            /* the chain before a signalled link is not needed any more */
            s->status = s->point->status ? s->point->status
                                         : s->prev ? s->prev->status : 0;
            fence_unref_locked(s->prev);
            s->prev = NULL;
         }
         util_dynarray_foreach(&s->links, struct shim_fence *, it) {
            struct shim_fence *l = *it;
            if (!l->signalled && l->point->signalled && (!l->prev || l->prev->signalled))
               util_dynarray_append(&work, struct shim_fence *, l); /* its reference */
            else
               fence_unref_locked(l);
         }
         util_dynarray_clear(&s->links);
      }
      fence_unref_locked(s);
   }
   util_dynarray_fini(&work);
   u_cnd_monotonic_broadcast(&G.cond);
}

/* A timeline point (seqno) after `prev` (the syncobj's fence, or NULL) with
 * `point`'s fence: a new link, referenced */
static struct shim_fence *
link_create_locked(struct shim_fence *prev, struct shim_fence *point, uint64_t seqno,
                   struct util_dynarray *pipes)
{
   struct shim_fence *l = shim_fence_create();
   if (!l)
      return NULL;
   l->seqno = seqno;
   l->point = point;
   point->refcnt++;
   if (prev) {
      l->prev = prev;
      prev->refcnt++;
   }
   if (point->signalled && (!prev || prev->signalled)) {
      signal_locked(l, 0, pipes);
      return l;
   }
   if (!point->signalled) {
      l->refcnt++;
      util_dynarray_append(&point->links, struct shim_fence *, l);
   }
   if (prev && !prev->signalled) {
      l->refcnt++;
      util_dynarray_append(&prev->links, struct shim_fence *, l);
   }
   return l;
}

/* the sync_files of signalled fences become readable */
static void
write_pipes(struct util_dynarray *pipes)
{
   util_dynarray_foreach(pipes, int, fd) {
      const char c = 1;
      if (write(*fd, &c, 1) != 1) {
         /* the reader keeps POLLHUP at least, once we close below */
      }
      close(*fd);
   }
   util_dynarray_fini(pipes);
}

void
shim_fence_signal(struct shim_fence *f, int status)
{
   struct util_dynarray pipes;
   util_dynarray_init(&pipes, NULL);
   mtx_lock(&G.lock);
   signal_locked(f, status, &pipes);
   mtx_unlock(&G.lock);
   write_pipes(&pipes);
}

int
shim_fence_wait(struct shim_fence *f, int64_t abs_timeout_ns, int *status)
{
   struct timespec ts = abs_timespec(abs_timeout_ns);
   int ret = 0;
   mtx_lock(&G.lock);
   while (!f->signalled) {
      if (abs_timeout_ns == INT64_MAX) {
         u_cnd_monotonic_wait(&G.cond, &G.lock);
      } else if (os_time_get_nano() >= abs_timeout_ns ||
                 u_cnd_monotonic_timedwait(&G.cond, &G.lock, &ts) == thrd_timedout) {
         ret = f->signalled ? 0 : -ETIME;
         break;
      }
   }
   if (!ret && status)
      *status = f->status;
   mtx_unlock(&G.lock);
   return ret;
}

static struct shim_syncobj *
lookup_locked(uint32_t handle)
{
   return handle ? _mesa_hash_table_u64_search(G.handles, handle) : NULL;
}

static void
syncobj_unref_locked(struct shim_syncobj *s)
{
   if (--s->refcnt == 0) {
      fence_unref_locked(s->fence);
      free(s);
   }
}

static void
replace_locked(struct shim_syncobj *s, struct shim_fence *f)
{
   if (f)
      f->refcnt++;
   fence_unref_locked(s->fence);
   s->fence = f;
   /* WAIT_FOR_SUBMIT waiters look for a fence */
   u_cnd_monotonic_broadcast(&G.cond);
}

/* The fence of timeline point `point` (drm_syncobj_find_fence with
 * dma_fence_chain_find_seqno): the oldest link at or after it, NULL when
 * the timeline has no such point yet (or its fence is not a chain).  Point
 * 0: the syncobj's fence, whatever it is. */
static struct shim_fence *
find_locked(struct shim_syncobj *s, uint64_t point)
{
   struct shim_fence *l = s->fence;
   if (!point || !l)
      return l;
   if (!l->seqno || l->seqno < point)
      return NULL;
   while (l->prev && l->prev->seqno && l->prev->seqno >= point)
      l = l->prev;
   return l;
}

/* drm_syncobj_add_point: a link of `point` after the syncobj's fence */
static int
add_point_locked(struct shim_syncobj *s, struct shim_fence *f, uint64_t point,
                 struct util_dynarray *pipes)
{
   struct shim_fence *l = link_create_locked(s->fence, f, point, pipes);
   if (!l)
      return -ENOMEM;
   replace_locked(s, l);
   fence_unref_locked(l);
   return 0;
}

int
shim_syncobj_fence(uint32_t handle, uint64_t point, struct shim_fence **f)
{
   mtx_lock(&G.lock);
   struct shim_syncobj *s = lookup_locked(handle);
   *f = s ? find_locked(s, point) : NULL;
   if (*f)
      (*f)->refcnt++;
   mtx_unlock(&G.lock);
   return s ? 0 : -ENOENT;
}

int
shim_syncobj_replace(uint32_t handle, uint64_t point, struct shim_fence *f)
{
   struct util_dynarray pipes;
   util_dynarray_init(&pipes, NULL);
   mtx_lock(&G.lock);
   struct shim_syncobj *s = lookup_locked(handle);
   int ret = s ? 0 : -ENOENT;
   if (s && point)
      ret = add_point_locked(s, f, point, &pipes);
   else if (s)
      replace_locked(s, f);
   mtx_unlock(&G.lock);
   write_pipes(&pipes);
   return ret;
}

static uint32_t
add_handle_locked(struct shim_syncobj *s)
{
   uint32_t h = G.next_handle++;
   _mesa_hash_table_u64_insert(G.handles, h, s);
   return h;
}

/* ---- ioctls ---- */

static int
ioctl_create(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_create *c = arg;
   if (c->flags & ~DRM_SYNCOBJ_CREATE_SIGNALED)
      return -EINVAL;
   struct shim_syncobj *s = calloc(1, sizeof(*s));
   struct shim_fence *f = NULL;
   if (s && (c->flags & DRM_SYNCOBJ_CREATE_SIGNALED)) {
      f = shim_fence_create();
      if (f) {
         f->signalled = true;
      } else {
         free(s);
         s = NULL;
      }
   }
   if (!s)
      return -ENOMEM;
   s->refcnt = 1;
   s->fence = f;
   mtx_lock(&G.lock);
   c->handle = add_handle_locked(s);
   mtx_unlock(&G.lock);
   return 0;
}

static int
ioctl_destroy(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_destroy *d = arg;
   if (d->pad)
      return -EINVAL;
   mtx_lock(&G.lock);
   struct shim_syncobj *s = lookup_locked(d->handle);
   if (s) {
      _mesa_hash_table_u64_remove(G.handles, d->handle);
      syncobj_unref_locked(s);
   }
   mtx_unlock(&G.lock);
   return s ? 0 : -EINVAL;
}

/* Reads the handle array of a wait/reset/signal; -ENOENT when one is
 * unknown (drm_syncobj_array_find). */
static int
get_syncobjs_locked(uint64_t ptr, uint32_t count, struct shim_syncobj **out)
{
   const uint32_t *h = (const uint32_t *)(uintptr_t)ptr;
   for (uint32_t i = 0; i < count; i++) {
      if (!(out[i] = lookup_locked(h[i])))
         return -ENOENT;
   }
   return 0;
}

/* DRM_IOCTL_SYNCOBJ_WAIT and TIMELINE_WAIT (points NULL: every point 0):
 * each syncobj is done when the fence of its point has signalled, or with
 * WAIT_AVAILABLE when the point has a fence; without WAIT_FOR_SUBMIT a
 * point without a fence is -EINVAL (drm_syncobj_array_wait_timeout). */
static int
wait_common(uint64_t handles, const uint64_t *points, uint32_t count, uint32_t flags,
            int64_t timeout_nsec, uint32_t *first_signaled)
{
   const uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
                          DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
                          DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE |
                          (points ? DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE : 0);
   if ((flags & ~known) || !count)
      return -EINVAL;
   if (count > 1024)
      return -E2BIG;
   struct shim_syncobj *s[1024];
   const bool all = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
   const bool for_submit = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
   const bool available = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
   const struct timespec ts = abs_timespec(MAX2(timeout_nsec, 0));
   int ret;
   mtx_lock(&G.lock);
   if ((ret = get_syncobjs_locked(handles, count, s)))
      goto out;
   for (uint32_t i = 0; i < count && !for_submit; i++) {
      if (!find_locked(s[i], points ? points[i] : 0)) {
         ret = -EINVAL; /* nothing submitted to wait for */
         goto out;
      }
   }
   /* the syncobjs stay alive while we sleep (a destroy from another
    * thread must not free them under us) */
   for (uint32_t i = 0; i < count; i++)
      s[i]->refcnt++;
   /* after the timeout, one last look: a signal may come with it */
   bool timed_out = false;
   for (;;) {
      uint32_t done = 0, first = UINT32_MAX;
      for (uint32_t i = 0; i < count; i++) {
         const struct shim_fence *f = find_locked(s[i], points ? points[i] : 0);
         if (f && (available || f->signalled)) {
            done++;
            first = MIN2(first, i);
         }
      }
      if (all ? done == count : done > 0) {
         if (!all)
            *first_signaled = first;
         ret = 0;
         break;
      }
      if (timed_out) {
         ret = -ETIME;
         break;
      }
      timed_out = os_time_get_nano() >= timeout_nsec ||
                  u_cnd_monotonic_timedwait(&G.cond, &G.lock, &ts) == thrd_timedout;
   }
   for (uint32_t i = 0; i < count; i++)
      syncobj_unref_locked(s[i]);
out:
   mtx_unlock(&G.lock);
   return ret;
}

static int
ioctl_wait(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_wait *w = arg;
   return wait_common(w->handles, NULL, w->count_handles, w->flags, w->timeout_nsec,
                      &w->first_signaled);
}

static int
ioctl_timeline_wait(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_timeline_wait *w = arg;
   if (w->pad)
      return -EINVAL;
   return wait_common(w->handles, (const uint64_t *)(uintptr_t)w->points, w->count_handles,
                      w->flags, w->timeout_nsec, &w->first_signaled);
}

static int
ioctl_reset_signal(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_array *a = arg;
   const bool signal = _IOC_NR(request) == _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL);
   if (a->pad || !a->count_handles)
      return -EINVAL;
   if (a->count_handles > 1024)
      return -E2BIG;
   struct shim_syncobj *s[1024];
   struct shim_fence *f = NULL;
   if (signal) {
      if (!(f = shim_fence_create()))
         return -ENOMEM;
      f->signalled = true;
   }
   mtx_lock(&G.lock);
   int ret = get_syncobjs_locked(a->handles, a->count_handles, s);
   for (uint32_t i = 0; i < a->count_handles && !ret; i++)
      replace_locked(s[i], f);
   fence_unref_locked(f);
   mtx_unlock(&G.lock);
   return ret;
}

/* A new pipe standing for `file`: the read end for the application. */
static int
export_pipe_locked(struct shim_file *file, int *write_end)
{
   int p[2];
   struct stat st;
   if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
      return -errno;
   if (fstat(p[0], &st)) {
      int err = -errno;
      close(p[0]);
      close(p[1]);
      return err;
   }
   struct shim_file *old = _mesa_hash_table_u64_search(G.files, st.st_ino);
   if (old) {
      /* the inode of an fd closed since: forget what it stood for */
      fence_unref_locked(old->fence);
      if (old->syncobj)
         syncobj_unref_locked(old->syncobj);
      free(old);
   }
   struct shim_file *f = malloc(sizeof(*f));
   if (!f) {
      close(p[0]);
      close(p[1]);
      return -ENOMEM;
   }
   *f = *file;
   _mesa_hash_table_u64_insert(G.files, st.st_ino, f);
   *write_end = p[1];
   return p[0];
}

static struct shim_file *
file_lookup_locked(int fd)
{
   struct stat st;
   if (fstat(fd, &st) || !S_ISFIFO(st.st_mode))
      return NULL;
   return _mesa_hash_table_u64_search(G.files, st.st_ino);
}

static int
ioctl_handle_to_fd(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_handle *h = arg;
   const bool sync_file = h->flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
   if ((h->flags & ~DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE) || h->pad)
      return -EINVAL;
   mtx_lock(&G.lock);
   struct shim_syncobj *s = lookup_locked(h->handle);
   /* an unknown handle, as DRM core answers it: drm_syncobj_find_fence
    * (sync_file) -ENOENT, drm_syncobj_find (opaque) -EINVAL */
   int ret = sync_file ? -ENOENT : -EINVAL, write_end = -1;
   if (s && sync_file && !s->fence) {
      ret = -EINVAL; /* no fence to export */
   } else if (s) {
      struct shim_file file = { 0 };
      if (sync_file)
         file.fence = s->fence;
      else
         file.syncobj = s;
      ret = export_pipe_locked(&file, &write_end);
      if (ret >= 0) {
         h->fd = ret;
         ret = 0;
         if (sync_file) {
            s->fence->refcnt++;
            if (!s->fence->signalled) {
               util_dynarray_append(&s->fence->pipes, int, write_end);
               write_end = -1;
            }
         } else {
            s->refcnt++;
         }
      }
   }
   mtx_unlock(&G.lock);
   if (write_end >= 0) {
      /* a signalled sync_file is readable at once; an opaque syncobj fd
       * carries nothing through its pipe */
      const char c = 1;
      if (sync_file && write(write_end, &c, 1) != 1) {
         /* POLLHUP after the close still wakes a poll */
      }
      close(write_end);
   }
   return ret;
}

static int
ioctl_fd_to_handle(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_handle *h = arg;
   const bool sync_file = h->flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
   if ((h->flags & ~DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE) || h->pad)
      return -EINVAL;
   int ret = 0;
   mtx_lock(&G.lock);
   struct shim_file *file = file_lookup_locked(h->fd);
   if (sync_file) {
      /* the fd's fence replaces the fence of an existing syncobj */
      struct shim_syncobj *s = lookup_locked(h->handle);
      if (!file || !file->fence)
         ret = -EINVAL;
      else if (!s)
         ret = -ENOENT;
      else
         replace_locked(s, file->fence);
   } else if (!file || !file->syncobj) {
      ret = -EINVAL;
   } else {
      file->syncobj->refcnt++;
      h->handle = add_handle_locked(file->syncobj);
   }
   mtx_unlock(&G.lock);
   return ret;
}

/* SYNC_IOC_FILE_INFO on a sync_file of ours: one fence, its status */
static bool
sync_file_ioctl(int fd, unsigned long request, void *arg, int *ret)
{
   if (_IOC_TYPE(request) != SYNC_IOC_MAGIC || _IOC_NR(request) != _IOC_NR(SYNC_IOC_FILE_INFO))
      return false;
   mtx_lock(&G.lock);
   struct shim_file *file = file_lookup_locked(fd);
   if (!file || !file->fence) {
      mtx_unlock(&G.lock);
      return false; /* not ours: the real ioctl answers (ENOTTY for a pipe) */
   }
   const struct shim_fence *f = file->fence;
   const int status = !f->signalled ? 0 : f->status < 0 ? f->status : 1;
   mtx_unlock(&G.lock);

   struct sync_file_info *info = arg;
   if (info->flags || info->pad) {
      errno = EINVAL;
      *ret = -1;
      return true;
   }
   if (info->num_fences && info->sync_fence_info) {
      struct sync_fence_info *fi = (struct sync_fence_info *)(uintptr_t)info->sync_fence_info;
      memset(fi, 0, sizeof(*fi));
      snprintf(fi->obj_name, sizeof(fi->obj_name), "vagx-shim");
      snprintf(fi->driver_name, sizeof(fi->driver_name), "vagx");
      fi->status = status;
   }
   snprintf(info->name, sizeof(info->name), "vagx-shim");
   info->status = status;
   info->num_fences = 1;
   *ret = 0;
   return true;
}

/* The fence of the source point becomes the destination's fence (point 0)
 * or its timeline point dst_point (drm_syncobj_transfer_to_timeline /
 * _to_binary).  With WAIT_FOR_SUBMIT a point without a fence yet is waited
 * for; without, it is -EINVAL. */
static int
ioctl_transfer(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_transfer *t = arg;
   if (t->pad || (t->flags & ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
      return -EINVAL;
   struct util_dynarray pipes;
   util_dynarray_init(&pipes, NULL);
   mtx_lock(&G.lock);
   struct shim_syncobj *src = lookup_locked(t->src_handle), *dst = lookup_locked(t->dst_handle);
   int ret = !src || !dst ? -ENOENT : 0;
   struct shim_fence *f = NULL;
   if (!ret) {
      src->refcnt++;
      while (!(f = find_locked(src, t->src_point)) &&
             (t->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
         u_cnd_monotonic_wait(&G.cond, &G.lock);
      if (!f)
         ret = -EINVAL;
      else if (t->dst_point)
         ret = add_point_locked(dst, f, t->dst_point, &pipes);
      else
         replace_locked(dst, f);
      syncobj_unref_locked(src);
   }
   mtx_unlock(&G.lock);
   write_pipes(&pipes);
   return ret;
}

/* TIMELINE_SIGNAL: a signalled fence as each point (point 0: as the fence) */
static int
ioctl_timeline_signal(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_timeline_array *a = arg;
   if (a->flags || !a->count_handles)
      return -EINVAL;
   if (a->count_handles > 1024)
      return -E2BIG;
   const uint64_t *points = (const uint64_t *)(uintptr_t)a->points;
   struct shim_syncobj *s[1024];
   struct shim_fence *f = shim_fence_create();
   if (!f)
      return -ENOMEM;
   f->signalled = true;
   struct util_dynarray pipes;
   util_dynarray_init(&pipes, NULL);
   mtx_lock(&G.lock);
   int ret = get_syncobjs_locked(a->handles, a->count_handles, s);
   for (uint32_t i = 0; i < a->count_handles && !ret; i++) {
      if (points[i])
         ret = add_point_locked(s[i], f, points[i], &pipes);
      else
         replace_locked(s[i], f);
   }
   fence_unref_locked(f);
   mtx_unlock(&G.lock);
   write_pipes(&pipes);
   return ret;
}

/* QUERY: the last signalled point of each timeline (every point up to it
 * has signalled), or with LAST_SUBMITTED its last point; 0 for a syncobj
 * whose fence is not a timeline point (drm_syncobj_query) */
static int
ioctl_query(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_timeline_array *a = arg;
   if ((a->flags & ~DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED) || !a->count_handles)
      return -EINVAL;
   if (a->count_handles > 1024)
      return -E2BIG;
   uint64_t *points = (uint64_t *)(uintptr_t)a->points;
   struct shim_syncobj *s[1024];
   mtx_lock(&G.lock);
   int ret = get_syncobjs_locked(a->handles, a->count_handles, s);
   for (uint32_t i = 0; i < a->count_handles && !ret; i++) {
      const struct shim_fence *l = s[i]->fence;
      if (l && l->seqno && !(a->flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)) {
         /* a signalled link means every earlier one has signalled */
         while (l && l->seqno && !l->signalled)
            l = l->prev;
      }
      points[i] = l && l->seqno ? l->seqno : 0;
   }
   mtx_unlock(&G.lock);
   return ret;
}

SHIM_IOCTL_ABI(ioctl_create)
SHIM_IOCTL_ABI(ioctl_destroy)
SHIM_IOCTL_ABI(ioctl_handle_to_fd)
SHIM_IOCTL_ABI(ioctl_fd_to_handle)
SHIM_IOCTL_ABI(ioctl_wait)
SHIM_IOCTL_ABI(ioctl_reset_signal)
SHIM_IOCTL_ABI(ioctl_transfer)
SHIM_IOCTL_ABI(ioctl_timeline_wait)
SHIM_IOCTL_ABI(ioctl_timeline_signal)
SHIM_IOCTL_ABI(ioctl_query)

/* Mesa's drm-shim core table (src/drm-shim/device.c); not in its header */
extern ioctl_fn_t core_ioctls[];

void
vagx_shim_sync_init(void)
{
   mtx_init(&G.lock, mtx_plain);
   u_cnd_monotonic_init(&G.cond);
   G.handles = _mesa_hash_table_u64_create(NULL);
   G.files = _mesa_hash_table_u64_create(NULL);
   G.next_handle = 1;
   shim_device.driver_file_ioctl = sync_file_ioctl;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_CREATE)] = ioctl_create_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY)] = ioctl_destroy_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD)] = ioctl_handle_to_fd_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE)] = ioctl_fd_to_handle_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT)] = ioctl_wait_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_RESET)] = ioctl_reset_signal_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL)] = ioctl_reset_signal_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_TRANSFER)] = ioctl_transfer_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT)] = ioctl_timeline_wait_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL)] = ioctl_timeline_signal_abi;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_QUERY)] = ioctl_query_abi;
}
