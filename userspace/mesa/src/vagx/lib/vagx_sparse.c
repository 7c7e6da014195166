/* SPDX-License-Identifier: MIT */
/*
 * Sparse BOs and asynchronous VM_BIND (docs/uapi.md, "Sparse binding").
 *
 * A sparse BO is a VA range whose VAGX_SPARSE_PAGE_SIZE pages are either
 * NULL-mapped (uncommitted: GPU reads return zero, writes are dropped) or
 * mapped to a page of backing memory taken from the device's sparse heap:
 * 2 MiB BOs cut into sparse pages, so committing and decommitting does not
 * create a BO per page.  Every change is one asynchronous VM_BIND that
 * waits for the GPU work the caller names and that every later submit
 * waits for (vagx_device_submit), so commitment changes are ordered
 * against rendering without the CPU waiting.  A decommitted page goes back
 * to the heap only once its NULL mapping is in place (its bind's point of
 * bind_timeline has signalled): no job can reach it through the old
 * mapping when its next owner gets it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xf86drm.h>
#include "util/hash_table.h"
#include "util/u_dynarray.h"
#include "util/u_math.h"
#include "vagx_device.h"

/* Bytes of one backing BO of the heap */
#define VAGX_SPARSE_CHUNK_SIZE (2u * 1024 * 1024)
#define VAGX_SPARSE_CHUNK_PAGES (VAGX_SPARSE_CHUNK_SIZE / VAGX_SPARSE_PAGE_SIZE)
/* Whole free chunks the heap keeps for the next commits; beyond that, a
 * chunk whose pages are all free is released (the heap follows what is
 * committed, not its peak) */
#define VAGX_SPARSE_KEEP_CHUNKS 2

/* A page of backing memory: a sparse page's worth of a heap chunk */
struct vagx_sparse_backing {
   struct vagx_bo *bo; /* NULL: none (the page is uncommitted) */
   uint32_t offset;
};

/* A sparse page: its backing, and the caller's tag of its commit */
struct vagx_sparse_page {
   struct vagx_sparse_backing b;
   uint64_t tag;
};

struct vagx_sparse_pending {
   struct vagx_sparse_backing b;
   uint64_t point; /* bind_timeline point after which nothing maps it */
};

struct vagx_sparse_heap {
   simple_mtx_t lock;
   struct util_dynarray chunks;  /* struct vagx_bo * */
   struct util_dynarray free;    /* struct vagx_sparse_backing */
   struct util_dynarray pending; /* struct vagx_sparse_pending, by point */
};

struct vagx_sparse {
   uint64_t page_count;
   struct vagx_sparse_page pages[];
};

static bool
bind_syncobjs_init(struct vagx_device *dev)
{
   if (dev->bind_last)
      return true;
   /* bind_last signalled from the start: submits may always wait on it */
   if (drmSyncobjCreate(dev->fd, DRM_SYNCOBJ_CREATE_SIGNALED, &dev->bind_last))
      return false;
   if (drmSyncobjCreate(dev->fd, 0, &dev->bind_timeline)) {
      drmSyncobjDestroy(dev->fd, dev->bind_last);
      dev->bind_last = 0;
      return false;
   }
   return true;
}

/* As vagx_device_bind_async; *issued: the operations issued, all of them
 * unless an ioctl failed (the earlier ioctls' operations stand) */
static int
bind_async(struct vagx_device *dev, const struct drm_vagx_vm_bind_op *ops, unsigned count,
           uint32_t wait_syncobj, uint64_t wait_point, uint64_t *point, unsigned *issued)
{
   simple_mtx_lock(&dev->bind_lock);
   *issued = 0;
   if (!bind_syncobjs_init(dev)) {
      simple_mtx_unlock(&dev->bind_lock);
      return -ENOMEM;
   }
   const unsigned max = MAX2(dev->info.max_bind_ops, 1);
   unsigned done = 0;
   int r = 0;
   /* more operations than one ioctl takes: several binds, each with the
    * wait (and each signalling: the last one's fence implies the others') */
   do {
      const unsigned n = MIN2(count - done, max);
      struct drm_vagx_sync syncs[3];
      unsigned ns = 0;
      if (wait_syncobj)
         syncs[ns++] = (struct drm_vagx_sync){
            .type = wait_point ? DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ : DRM_VAGX_SYNC_TYPE_SYNCOBJ,
            .handle = wait_syncobj, .timeline_value = wait_point };
      syncs[ns++] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
                                            .flags = DRM_VAGX_SYNC_SIGNAL,
                                            .handle = dev->bind_last };
      syncs[ns++] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
                                            .flags = DRM_VAGX_SYNC_SIGNAL,
                                            .handle = dev->bind_timeline,
                                            .timeline_value = dev->bind_seq + 1 };
      struct drm_vagx_vm_bind a = {
         .vm_id = dev->vm_id,
         .flags = DRM_VAGX_VM_BIND_ASYNC,
         .ops = DRM_VAGX_OBJ_ARRAY(n, ops + done),
         .syncs = DRM_VAGX_OBJ_ARRAY(ns, syncs),
      };
      if (drmIoctl(dev->fd, DRM_IOCTL_VAGX_VM_BIND, &a)) {
         r = -errno;
         break;
      }
      dev->bind_seq++;
      p_atomic_set(&dev->binds_async, true);
      done += n;
   } while (done < count);
   if (point)
      *point = dev->bind_seq;
   *issued = done;
   simple_mtx_unlock(&dev->bind_lock);
   return r;
}

int
vagx_device_bind_async(struct vagx_device *dev, const struct drm_vagx_vm_bind_op *ops,
                       unsigned count, uint32_t wait_syncobj, uint64_t wait_point,
                       uint64_t *point)
{
   unsigned issued;
   return bind_async(dev, ops, count, wait_syncobj, wait_point, point, &issued);
}

static struct vagx_sparse_heap *
heap_get(struct vagx_device *dev)
{
   simple_mtx_lock(&dev->bind_lock);
   if (!dev->sparse_heap) {
      struct vagx_sparse_heap *h = calloc(1, sizeof(*h));
      if (h) {
         simple_mtx_init(&h->lock, mtx_plain);
         util_dynarray_init(&h->chunks, NULL);
         util_dynarray_init(&h->free, NULL);
         util_dynarray_init(&h->pending, NULL);
      }
      dev->sparse_heap = h;
   }
   simple_mtx_unlock(&dev->bind_lock);
   return dev->sparse_heap;
}

/* Releases the chunks whose pages are all free, but VAGX_SPARSE_KEEP_CHUNKS */
static void
heap_trim(struct vagx_sparse_heap *h)
{
   const unsigned nfree = util_dynarray_num_elements(&h->free, struct vagx_sparse_backing);
   if (nfree <= VAGX_SPARSE_KEEP_CHUNKS * VAGX_SPARSE_CHUNK_PAGES)
      return;
   struct hash_table *count = _mesa_pointer_hash_table_create(NULL);
   if (!count)
      return;
   util_dynarray_foreach (&h->free, struct vagx_sparse_backing, b) {
      struct hash_entry *e = _mesa_hash_table_search(count, b->bo);
      if (e)
         e->data = (void *)((uintptr_t)e->data + 1);
      else
         _mesa_hash_table_insert(count, b->bo, (void *)(uintptr_t)1);
   }
   /* the chunks to release: all pages free, past the ones kept */
   unsigned kept = 0, nchunks = 0;
   util_dynarray_foreach (&h->chunks, struct vagx_bo *, bo) {
      struct hash_entry *e = _mesa_hash_table_search(count, *bo);
      const bool empty = e && (uintptr_t)e->data == VAGX_SPARSE_CHUNK_PAGES;
      if (empty && kept++ >= VAGX_SPARSE_KEEP_CHUNKS)
         e->data = NULL; /* marks it released */
      else
         ((struct vagx_bo **)h->chunks.data)[nchunks++] = *bo;
   }
   if (nchunks != util_dynarray_num_elements(&h->chunks, struct vagx_bo *)) {
      unsigned n = 0;
      util_dynarray_foreach (&h->free, struct vagx_sparse_backing, b) {
         struct hash_entry *e = _mesa_hash_table_search(count, b->bo);
         if (e->data)
            ((struct vagx_sparse_backing *)h->free.data)[n++] = *b;
      }
      h->free.size = n * sizeof(struct vagx_sparse_backing);
      hash_table_foreach (count, e) {
         /* nothing maps its pages (their NULL mappings are in place) */
         if (!e->data)
            vagx_bo_free((struct vagx_bo *)e->key);
      }
      h->chunks.size = nchunks * sizeof(struct vagx_bo *);
   }
   _mesa_hash_table_destroy(count, NULL);
}

/* Pending pages whose NULL mapping is in place go back to the free list */
static void
heap_reclaim(struct vagx_device *dev, struct vagx_sparse_heap *h)
{
   if (!util_dynarray_num_elements(&h->pending, struct vagx_sparse_pending))
      return;
   uint64_t signalled = 0;
   if (drmSyncobjQuery(dev->fd, &dev->bind_timeline, &signalled, 1))
      return;
   unsigned keep = 0;
   util_dynarray_foreach (&h->pending, struct vagx_sparse_pending, p) {
      if (p->point <= signalled)
         util_dynarray_append(&h->free, struct vagx_sparse_backing, p->b);
      else
         ((struct vagx_sparse_pending *)h->pending.data)[keep++] = *p;
   }
   h->pending.size = keep * sizeof(struct vagx_sparse_pending);
   heap_trim(h);
}

static bool
heap_take(struct vagx_device *dev, struct vagx_sparse_heap *h, struct vagx_sparse_backing *out)
{
   if (!util_dynarray_num_elements(&h->free, struct vagx_sparse_backing)) {
      struct vagx_bo *bo = vagx_bo_create(dev, VAGX_SPARSE_CHUNK_SIZE, "sparse heap");
      if (!bo)
         return false;
      util_dynarray_append(&h->chunks, struct vagx_bo *, bo);
      /* taken from the end: the chunk's pages in ascending order, so
       * neighbouring sparse pages get neighbouring backing (fewer ops) */
      for (uint32_t off = VAGX_SPARSE_CHUNK_SIZE; off; off -= VAGX_SPARSE_PAGE_SIZE) {
         struct vagx_sparse_backing b = { bo, off - VAGX_SPARSE_PAGE_SIZE };
         util_dynarray_append(&h->free, struct vagx_sparse_backing, b);
      }
   }
   *out = util_dynarray_pop(&h->free, struct vagx_sparse_backing);
   return true;
}

struct vagx_bo *
vagx_bo_create_sparse(struct vagx_device *dev, uint64_t size, const char *label)
{
   const uint64_t need = DRM_VAGX_FEATURE_MAP_NULL | DRM_VAGX_FEATURE_ASYNC_BIND;
   if ((dev->info.features & need) != need || !heap_get(dev))
      return NULL;
   size = align64(MAX2(size, 1), VAGX_SPARSE_PAGE_SIZE);
   const uint64_t pages = size / VAGX_SPARSE_PAGE_SIZE;
   struct vagx_bo *bo = vagx_bo_new(dev, size, VAGX_BO_SPARSE, label);
   struct vagx_sparse *sp = calloc(1, sizeof(*sp) + pages * sizeof(sp->pages[0]));
   if (!bo || !sp)
      goto fail;
   sp->page_count = pages;
   bo->sparse = sp;
   /* the identity: an empty VM-private GEM object, never mapped */
   if (dev->ops->bo_create(dev, 4096, DRM_VAGX_BO_NO_MMAP, dev->vm_id, &bo->handle))
      goto fail;
   simple_mtx_lock(&dev->vma_lock);
   bo->va = util_vma_heap_alloc(&dev->vma, size, VAGX_SPARSE_PAGE_SIZE);
   simple_mtx_unlock(&dev->vma_lock);
   if (!bo->va)
      goto fail_handle;
   struct drm_vagx_vm_bind_op op = { .op = DRM_VAGX_BIND_OP_MAP_NULL, .va = bo->va,
                                     .range = size };
   if (vagx_device_bind_async(dev, &op, 1, 0, 0, NULL))
      goto fail_va;
   return bo;
fail_va:
   simple_mtx_lock(&dev->vma_lock);
   util_vma_heap_free(&dev->vma, bo->va, size);
   simple_mtx_unlock(&dev->vma_lock);
fail_handle:
   dev->ops->bo_close(dev, bo->handle);
fail:
   free(sp);
   free(bo);
   return NULL;
}

/* An op of ops that the page at va (backing b, or none) extends, else a
 * new one */
static void
add_op(struct util_dynarray *ops, uint64_t va, const struct vagx_sparse_backing *b)
{
   const uint32_t type = b ? DRM_VAGX_BIND_OP_MAP : DRM_VAGX_BIND_OP_MAP_NULL;
   const uint32_t handle = b ? b->bo->handle : 0;
   const uint64_t bo_offset = b ? b->offset : 0;
   if (util_dynarray_num_elements(ops, struct drm_vagx_vm_bind_op)) {
      struct drm_vagx_vm_bind_op *last = util_dynarray_top_ptr(ops, struct drm_vagx_vm_bind_op);
      if (last->op == type && last->handle == handle && last->va + last->range == va &&
          (!b || last->bo_offset + last->range == bo_offset)) {
         last->range += VAGX_SPARSE_PAGE_SIZE;
         return;
      }
   }
   struct drm_vagx_vm_bind_op op = { .op = type, .handle = handle, .bo_offset = bo_offset,
                                     .va = va, .range = VAGX_SPARSE_PAGE_SIZE };
   util_dynarray_append(ops, struct drm_vagx_vm_bind_op, op);
}

struct page_change {
   uint64_t page;
   struct vagx_sparse_backing old;
   uint64_t old_tag;
   unsigned op; /* index of the bind operation that carries it */
};

int
vagx_sparse_commit(struct vagx_bo *bo, uint64_t offset, uint64_t size, bool commit,
                   uint32_t wait_syncobj, uint64_t wait_point, uint64_t tag)
{
   struct vagx_device *dev = bo->dev;
   struct vagx_sparse *sp = bo->sparse;
   struct vagx_sparse_heap *h = dev->sparse_heap;
   if (!sp || offset > bo->size || size > bo->size - offset)
      return -EINVAL;
   const uint64_t first = offset / VAGX_SPARSE_PAGE_SIZE;
   const uint64_t end = DIV_ROUND_UP(offset + size, VAGX_SPARSE_PAGE_SIZE);
   struct util_dynarray ops, changes;
   util_dynarray_init(&ops, NULL);
   util_dynarray_init(&changes, NULL);
   int r = 0;

   simple_mtx_lock(&h->lock);
   heap_reclaim(dev, h);
   for (uint64_t p = first; p < end; p++) {
      struct vagx_sparse_backing *cur = &sp->pages[p].b;
      if (commit == (cur->bo != NULL))
         continue;
      struct page_change c = { p, *cur, sp->pages[p].tag };
      if (commit && !heap_take(dev, h, cur)) {
         r = -ENOMEM;
         break;
      }
      if (!commit)
         cur->bo = NULL;
      sp->pages[p].tag = tag;
      add_op(&ops, bo->va + p * VAGX_SPARSE_PAGE_SIZE, commit ? cur : NULL);
      c.op = util_dynarray_num_elements(&ops, struct drm_vagx_vm_bind_op) - 1;
      util_dynarray_append(&changes, struct page_change, c);
   }
   uint64_t point = 0;
   unsigned issued = 0;
   if (!r && util_dynarray_num_elements(&ops, struct drm_vagx_vm_bind_op))
      r = bind_async(dev, ops.data, util_dynarray_num_elements(&ops, struct drm_vagx_vm_bind_op),
                     wait_syncobj, wait_point, &point, &issued);
   util_dynarray_foreach (&changes, struct page_change, c) {
      if (r && c->op >= issued) {
         /* not bound (a failed ioctl; with more operations than one
          * takes, the earlier ones stand): back to how it was */
         if (commit)
            util_dynarray_append(&h->free, struct vagx_sparse_backing, sp->pages[c->page].b);
         sp->pages[c->page] = (struct vagx_sparse_page){ c->old, c->old_tag };
      } else if (!commit) {
         struct vagx_sparse_pending pd = { c->old, point };
         util_dynarray_append(&h->pending, struct vagx_sparse_pending, pd);
      }
   }
   simple_mtx_unlock(&h->lock);
   util_dynarray_fini(&ops);
   util_dynarray_fini(&changes);
   return r;
}

/* Copies between data and [offset, offset + size) of a sparse BO, page by
 * page through the backing's CPU mapping */
static void
sparse_copy(struct vagx_bo *bo, uint64_t offset, void *data, uint64_t size, bool write)
{
   struct vagx_sparse *sp = bo->sparse;
   struct vagx_sparse_heap *h = bo->dev->sparse_heap;
   uint8_t *d = data;
   simple_mtx_lock(&h->lock);
   while (size) {
      const uint64_t page = offset / VAGX_SPARSE_PAGE_SIZE;
      const uint64_t in = offset % VAGX_SPARSE_PAGE_SIZE;
      const uint64_t n = MIN2(size, VAGX_SPARSE_PAGE_SIZE - in);
      const struct vagx_sparse_backing *b = &sp->pages[page].b;
      if (b->bo) {
         uint8_t *mem = (uint8_t *)b->bo->map + b->offset + in;
         if (write)
            memcpy(mem, d, n);
         else
            memcpy(d, mem, n);
      } else if (!write) {
         memset(d, 0, n);
      }
      d += n;
      offset += n;
      size -= n;
   }
   simple_mtx_unlock(&h->lock);
}

void
vagx_sparse_read(struct vagx_bo *bo, uint64_t offset, void *data, uint64_t size)
{
   sparse_copy(bo, offset, data, size, false);
}

void
vagx_sparse_write(struct vagx_bo *bo, uint64_t offset, const void *data, uint64_t size)
{
   sparse_copy(bo, offset, (void *)data, size, true);
}

bool
vagx_sparse_is_committed(struct vagx_bo *bo, uint64_t offset)
{
   struct vagx_sparse_heap *h = bo->dev->sparse_heap;
   simple_mtx_lock(&h->lock);
   const bool c = bo->sparse->pages[offset / VAGX_SPARSE_PAGE_SIZE].b.bo != NULL;
   simple_mtx_unlock(&h->lock);
   return c;
}

bool
vagx_sparse_committed_since(struct vagx_bo *bo, uint64_t offset, uint64_t size, uint64_t tag)
{
   struct vagx_sparse_heap *h = bo->dev->sparse_heap;
   const uint64_t end = DIV_ROUND_UP(offset + MAX2(size, 1), VAGX_SPARSE_PAGE_SIZE);
   bool all = true;
   simple_mtx_lock(&h->lock);
   for (uint64_t p = offset / VAGX_SPARSE_PAGE_SIZE; p < end && all; p++)
      all = bo->sparse->pages[p].b.bo && bo->sparse->pages[p].tag >= tag;
   simple_mtx_unlock(&h->lock);
   return all;
}

void
vagx_sparse_bo_release(struct vagx_bo *bo)
{
   struct vagx_device *dev = bo->dev;
   struct vagx_sparse *sp = bo->sparse;
   struct vagx_sparse_heap *h = dev->sparse_heap;
   /* the last reference is gone: no job uses the range any more */
   struct drm_vagx_vm_bind_op op = { .op = DRM_VAGX_BIND_OP_UNMAP, .va = bo->va,
                                     .range = bo->size };
   uint64_t point = 0;
   const int r = vagx_device_bind_async(dev, &op, 1, 0, 0, &point);
   if (r) {
      /* the range stays mapped: neither its VA nor its backing can be
       * reused (kept until the VM is destroyed) */
      fprintf(stderr, "vagx: unmapping a sparse BO failed (%s): its VA and memory are lost\n",
              strerror(-r));
   } else {
      simple_mtx_lock(&h->lock);
      for (uint64_t p = 0; p < sp->page_count; p++) {
         if (sp->pages[p].b.bo) {
            struct vagx_sparse_pending pd = { sp->pages[p].b, point };
            util_dynarray_append(&h->pending, struct vagx_sparse_pending, pd);
         }
      }
      simple_mtx_unlock(&h->lock);
      simple_mtx_lock(&dev->vma_lock);
      util_vma_heap_free(&dev->vma, bo->va, bo->size);
      simple_mtx_unlock(&dev->vma_lock);
   }
   dev->ops->bo_close(dev, bo->handle);
   free(sp);
}

void
vagx_sparse_heap_destroy(struct vagx_device *dev)
{
   struct vagx_sparse_heap *h = dev->sparse_heap;
   if (h) {
      util_dynarray_foreach (&h->chunks, struct vagx_bo *, bo)
         vagx_bo_free(*bo);
      util_dynarray_fini(&h->chunks);
      util_dynarray_fini(&h->free);
      util_dynarray_fini(&h->pending);
      simple_mtx_destroy(&h->lock);
      free(h);
      dev->sparse_heap = NULL;
   }
   if (dev->bind_last) {
      /* the VM is destroyed next: its binds must be done */
      drmSyncobjWait(dev->fd, &dev->bind_last, 1, INT64_MAX, 0, NULL);
      drmSyncobjDestroy(dev->fd, dev->bind_last);
      drmSyncobjDestroy(dev->fd, dev->bind_timeline);
      dev->bind_last = dev->bind_timeline = 0;
   }
}
