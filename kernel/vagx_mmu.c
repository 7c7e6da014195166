// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "vagx_device.h"
#include "vagx_gem.h"
#include "vagx_mmu.h"
#include "vagx_ring.h"
#include "vagx_sync.h"

/*
 * Page tables (struct vagx_pgtable), shared by the render VMs and the
 * scanout VM (vagx_kms.c). The device walks 4 levels of 512 8-byte
 * entries; level 0 is the root, level 3 maps 4 KiB pages. Tables are
 * coherent DMA pages shadowed by a software tree. Each table counts its
 * nonzero entries (@live) and the reservations covering it (@reserved):
 * a bind reserves the tables of its range while it is prepared (an empty
 * table translates like no table), so applying a validated bind cannot
 * fail; a table with neither is detached by vagx_pgtable_prune() and freed
 * after the TLB invalidation that follows. The caller serialises all
 * calls on one tree (vm->op_lock, kms->vm_lock).
 */
struct vagx_pt {
	u64 *cpu;
	dma_addr_t dma;
	struct vagx_pt **children;
	u32 live;
	u32 reserved;
	/* Pages charged to the tree's budget (vagx_pt_cost()). */
	u32 cost;
	/* The level-0 table of a tree (debugfs lists quarantined roots). */
	bool root;
	struct list_head gc;
};

#define VAGX_PT_LEAF		(VAGX_PT_LEVELS - 1)
#define VAGX_PT_SHIFT(level) \
	(VAGX_PAGE_SHIFT + VAGX_PT_BITS_PER_LEVEL * (VAGX_PT_LEAF - (level)))
#define VAGX_PT_INDEX(va, level) (((va) >> VAGX_PT_SHIFT(level)) & (VAGX_PT_ENTRIES - 1))

/**
 * vagx_pte_encode() - Encode a page-table entry
 * @valid: Entry valid.
 * @ro: Read-only page.
 * @null: NULL page (reads zero, writes dropped).
 * @no_exec: No instruction fetch.
 * @addr: Bus address of the page or next-level table.
 *
 * Return: the 64-bit entry.
 */
u64 vagx_pte_encode(bool valid, bool ro, bool null, bool no_exec, u64 addr)
{
	struct vagx_pte pte;
	u32 w[2];

	vagx_pte_init(&pte);
	pte.valid = valid;
	pte.read_only = ro;
	pte.null = null;
	pte.no_exec = no_exec;
	pte.addr = addr;
	vagx_pte_pack(w, &pte);
	return ((u64)w[1] << 32) | w[0];
}

/**
 * vagx_pt_budget_create() - Page-table budget of a new file
 *
 * A file may make the kernel allocate page tables worth 1/64 of RAM (at
 * least 4 MiB), all its VMs together: that maps 32 GiB of dense VA per
 * GiB of RAM, far more than a GL or Vulkan process binds, while a process
 * binding (MAP_NULL) most of the 256 TiB VA space gets -ENOSPC instead of
 * driving the machine out of memory. The allocations are also charged to
 * the caller's memory cgroup (__GFP_ACCOUNT).
 *
 * Return: the budget or NULL.
 */
struct vagx_pt_budget *vagx_pt_budget_create(void)
{
	struct vagx_pt_budget *budget;

	budget = kzalloc(sizeof(*budget), GFP_KERNEL_ACCOUNT);
	if (!budget)
		return NULL;
	kref_init(&budget->refcount);
	atomic_set(&budget->pages, 0);
	budget->limit = max_t(unsigned long, totalram_pages() / 64,
			      SZ_4M / PAGE_SIZE);
	return budget;
}

static void vagx_pt_budget_release(struct kref *kref)
{
	kfree(container_of(kref, struct vagx_pt_budget, refcount));
}

/**
 * vagx_pt_budget_put() - Drop a reference to a page-table budget
 * @budget: Budget or NULL.
 */
void vagx_pt_budget_put(struct vagx_pt_budget *budget)
{
	if (budget)
		kref_put(&budget->refcount, vagx_pt_budget_release);
}

/* Pages a table costs: its own, and its child-pointer array if any. */
static u32 vagx_pt_cost(int level)
{
	return level < VAGX_PT_LEAF ? 2 : 1;
}

static void vagx_pt_uncharge(struct vagx_pgtable *pgt, struct vagx_pt *pt)
{
	if (pgt->budget)
		atomic_sub(pt->cost, &pgt->budget->pages);
	atomic_dec(&pgt->pages);
}

static struct vagx_pt *vagx_pt_alloc(struct vagx_pgtable *pgt, int level)
{
	u32 cost = vagx_pt_cost(level);
	struct vagx_pt *pt;
	int ret = -ENOMEM;

	if (pgt->budget &&
	    atomic_add_return(cost, &pgt->budget->pages) > pgt->budget->limit) {
		atomic_sub(cost, &pgt->budget->pages);
		return ERR_PTR(-ENOSPC);
	}
	pt = kzalloc(sizeof(*pt), GFP_KERNEL_ACCOUNT);
	if (!pt)
		goto err_uncharge;
	pt->cost = cost;
	pt->cpu = dma_alloc_coherent(pgt->dev, VAGX_PAGE_SIZE, &pt->dma,
				     GFP_KERNEL_ACCOUNT);
	if (!pt->cpu)
		goto err_free;
	if (level < VAGX_PT_LEAF) {
		pt->children = kcalloc(VAGX_PT_ENTRIES, sizeof(*pt->children),
				       GFP_KERNEL_ACCOUNT);
		if (!pt->children)
			goto err_dma;
	}
	INIT_LIST_HEAD(&pt->gc);
	atomic_inc(&pgt->pages);
	return pt;

err_dma:
	dma_free_coherent(pgt->dev, VAGX_PAGE_SIZE, pt->cpu, pt->dma);
err_free:
	kfree(pt);
err_uncharge:
	if (pgt->budget)
		atomic_sub(cost, &pgt->budget->pages);
	return ERR_PTR(ret);
}

static void vagx_pt_free(struct vagx_pgtable *pgt, struct vagx_pt *pt)
{
	int i;

	if (!pt)
		return;
	if (pt->children) {
		for (i = 0; i < VAGX_PT_ENTRIES; i++)
			vagx_pt_free(pgt, pt->children[i]);
		kfree(pt->children);
	}
	dma_free_coherent(pgt->dev, VAGX_PAGE_SIZE, pt->cpu, pt->dma);
	vagx_pt_uncharge(pgt, pt);
	kfree(pt);
}

/* Write entry @idx of @pt, keeping the count of nonzero entries. */
static void vagx_pt_write(struct vagx_pt *pt, u32 idx, u64 pte)
{
	u64 old = pt->cpu[idx];

	if (!old && pte)
		pt->live++;
	else if (old && !pte)
		pt->live--;
	WRITE_ONCE(pt->cpu[idx], pte);
}

/**
 * vagx_pgtable_init() - Create a tree with an empty root table
 * @pgt: Tree.
 * @vdev: Device.
 * @budget: Budget the tables are charged to (a reference is taken), or
 *          NULL for no limit.
 *
 * Return: 0, -ENOSPC (budget exhausted) or -ENOMEM.
 */
int vagx_pgtable_init(struct vagx_pgtable *pgt, struct vagx_device *vdev,
		      struct vagx_pt_budget *budget)
{
	struct vagx_pt *root;

	pgt->vdev = vdev;
	pgt->dev = vdev->drm.dev;
	atomic_set(&pgt->pages, 0);
	pgt->budget = budget;
	pgt->root = NULL;
	root = vagx_pt_alloc(pgt, 0);
	if (IS_ERR(root)) {
		pgt->budget = NULL;
		return PTR_ERR(root);
	}
	root->root = true;
	pgt->root = root;
	if (budget)
		kref_get(&budget->refcount);
	return 0;
}

/**
 * vagx_pgtable_fini() - Free every table (the device no longer uses them)
 * @pgt: Tree.
 */
void vagx_pgtable_fini(struct vagx_pgtable *pgt)
{
	vagx_pt_free(pgt, pgt->root);
	pgt->root = NULL;
	vagx_pt_budget_put(pgt->budget);
	pgt->budget = NULL;
}

/* The last-level table covering @va and the tables above it, or NULL. */
static struct vagx_pt *vagx_pt_walk(struct vagx_pgtable *pgt, u64 va)
{
	struct vagx_pt *pt = pgt->root;
	int level;

	for (level = 0; level < VAGX_PT_LEAF && pt; level++)
		pt = pt->children[VAGX_PT_INDEX(va, level)];
	return pt;
}

/* Hold (@delta 1) or release (-1) the tables of levels 1..@depth at @va. */
static void vagx_pgtable_reserve_one(struct vagx_pgtable *pgt, u64 va,
				     int depth, int delta)
{
	struct vagx_pt *pt = pgt->root;
	int level;

	for (level = 0; level < depth; level++) {
		pt = pt->children[VAGX_PT_INDEX(va, level)];
		pt->reserved += delta;
	}
}

static u64 vagx_pte_null(void)
{
	return vagx_pte_encode(true, false, true, false, 0);
}

/*
 * The child table of entry @idx of @pt (at @level), created if missing.
 * An entry that is NULL for its whole block is split into a table of NULL
 * entries: both translate every address of the block alike, so the
 * device needs no invalidation for the swap.
 */
static struct vagx_pt *vagx_pt_get_child(struct vagx_pgtable *pgt,
					 struct vagx_pt *pt, int level, u32 idx)
{
	struct vagx_pt *child = pt->children[idx];
	int i;

	if (child)
		return child;
	child = vagx_pt_alloc(pgt, level + 1);
	if (IS_ERR(child))
		return child;
	if (pt->cpu[idx]) {
		for (i = 0; i < VAGX_PT_ENTRIES; i++)
			vagx_pt_write(child, i, pt->cpu[idx]);
		/* The device must see the entries before the table. */
		dma_wmb();
	}
	pt->children[idx] = child;
	vagx_pt_write(pt, idx, vagx_pte_encode(true, false, false, false,
					       child->dma));
	return child;
}

/* Next VA after @va that is covered by another last-level table. */
static u64 vagx_pt_next_leaf(u64 va)
{
	return (va | (BIT_ULL(VAGX_PT_SHIFT(VAGX_PT_LEAF - 1)) - 1)) + 1;
}

/**
 * vagx_pgtable_unreserve() - Drop a reservation of vagx_pgtable_reserve()
 * @pgt: Tree.
 * @va: Start of the reserved range.
 * @size: Size of the reserved range.
 *
 * The tables stay; vagx_pgtable_prune() frees those left empty.
 */
void vagx_pgtable_unreserve(struct vagx_pgtable *pgt, u64 va, u64 size)
{
	u64 end = va + size;

	for (; va < end; va = vagx_pt_next_leaf(va))
		vagx_pgtable_reserve_one(pgt, va, VAGX_PT_LEAF, -1);
}

/**
 * vagx_pgtable_reserve() - Allocate and hold the tables of a range
 * @pgt: Tree.
 * @va: Start of the range.
 * @size: Size of the range, nonzero.
 *
 * Every table on the path to a leaf entry of [@va, @va + @size) exists and
 * is not pruned until vagx_pgtable_unreserve() of the same range.
 *
 * On failure, tables allocated for the range stay linked but empty: the
 * caller detaches them with vagx_pgtable_prune() over the same range.
 *
 * Return: 0, or -ENOMEM or -ENOSPC (budget exhausted) with nothing
 * reserved.
 */
int vagx_pgtable_reserve(struct vagx_pgtable *pgt, u64 va, u64 size)
{
	u64 start = va, end = va + size;

	for (; va < end; va = vagx_pt_next_leaf(va)) {
		struct vagx_pt *pt = pgt->root;
		int level;

		for (level = 0; level < VAGX_PT_LEAF; level++) {
			pt = vagx_pt_get_child(pgt, pt, level,
					       VAGX_PT_INDEX(va, level));
			if (IS_ERR(pt)) {
				vagx_pgtable_unreserve(pgt, start, va - start);
				return PTR_ERR(pt);
			}
		}
		vagx_pgtable_reserve_one(pgt, va, VAGX_PT_LEAF, 1);
	}
	return 0;
}

/*
 * How many levels of tables (1..@depth) [@va, @end) needs at the block
 * containing @p: down to the first level whose block around @p the range
 * covers whole (one entry then maps it, NULL or cleared).
 */
static int vagx_pt_edge_depth(u64 va, u64 end, u64 p)
{
	int level;

	for (level = 0; level < VAGX_PT_LEAF; level++) {
		u64 span = BIT_ULL(VAGX_PT_SHIFT(level));
		u64 block = p & ~(span - 1);

		if (block >= va && block + span <= end)
			break;
	}
	return level;
}

/**
 * vagx_pgtable_reserve_edges() - Hold the tables a NULL or clearing range needs
 * @pgt: Tree.
 * @va: Start of the range.
 * @size: Size of the range, nonzero.
 * @depth: Out: the levels held at both ends, for vagx_pgtable_unreserve_edges().
 *
 * vagx_pgtable_set_range() with a NULL or zero entry writes one entry for
 * every block the range covers whole, at the highest level whose slot has
 * no table, so it needs tables only where the range covers a block in
 * part: around its two ends. NULL entries that cover such a block are
 * split into tables here.
 *
 * Return: 0, or -ENOMEM or -ENOSPC with nothing reserved (tables may be
 * left linked: prune the range).
 */
int vagx_pgtable_reserve_edges(struct vagx_pgtable *pgt, u64 va, u64 size,
			       u8 depth[2])
{
	u64 end = va + size, at[2] = { va, end - VAGX_PAGE_SIZE };
	int i, level;

	for (i = 0; i < 2; i++) {
		struct vagx_pt *pt = pgt->root;

		depth[i] = vagx_pt_edge_depth(va, end, at[i]);
		for (level = 0; level < depth[i]; level++) {
			pt = vagx_pt_get_child(pgt, pt, level,
					       VAGX_PT_INDEX(at[i], level));
			if (IS_ERR(pt)) {
				if (i)
					vagx_pgtable_reserve_one(pgt, at[0],
								 depth[0], -1);
				return PTR_ERR(pt);
			}
		}
		vagx_pgtable_reserve_one(pgt, at[i], depth[i], 1);
	}
	return 0;
}

/**
 * vagx_pgtable_unreserve_edges() - Drop a vagx_pgtable_reserve_edges()
 * @pgt: Tree.
 * @va: Start of the range.
 * @size: Size of the range.
 * @depth: What vagx_pgtable_reserve_edges() returned.
 */
void vagx_pgtable_unreserve_edges(struct vagx_pgtable *pgt, u64 va, u64 size,
				  const u8 depth[2])
{
	vagx_pgtable_reserve_one(pgt, va, depth[0], -1);
	vagx_pgtable_reserve_one(pgt, va + size - VAGX_PAGE_SIZE, depth[1],
				 -1);
}

/**
 * vagx_pgtable_set() - Write the leaf entry of one page
 * @pgt: Tree.
 * @va: Page address.
 * @pte: Entry (0 clears it).
 *
 * Return: false if no table covers @va (only allowed when @pte is 0).
 */
bool vagx_pgtable_set(struct vagx_pgtable *pgt, u64 va, u64 pte)
{
	struct vagx_pt *pt = vagx_pt_walk(pgt, va);

	if (!pt)
		return false;
	vagx_pt_write(pt, VAGX_PT_INDEX(va, VAGX_PT_LEAF), pte);
	return true;
}

static void vagx_pt_set_range(struct vagx_pt *pt, int level, u64 base,
			      u64 va, u64 end, u64 pte, bool whole)
{
	u64 span = BIT_ULL(VAGX_PT_SHIFT(level));
	u32 idx = VAGX_PT_INDEX(va, level);

	for (; idx < VAGX_PT_ENTRIES && base + idx * span < end; idx++) {
		u64 bstart = base + idx * span;
		struct vagx_pt *child = pt->children ? pt->children[idx] : NULL;

		if (child) {
			vagx_pt_set_range(child, level + 1, bstart,
					  max(va, bstart),
					  min(end, bstart + span), pte, whole);
		} else if (level == VAGX_PT_LEAF ||
			   (whole && bstart >= va && bstart + span <= end)) {
			/* A leaf entry, or one entry for the whole block. */
			vagx_pt_write(pt, idx, pte);
		} else {
			/* Part of a block without table: nothing to clear. */
			WARN_ON_ONCE(pte || pt->cpu[idx]);
		}
	}
}

/**
 * vagx_pgtable_set_range() - Write the same entry over a range
 * @pgt: Tree.
 * @va: Start of the range.
 * @size: Size of the range.
 * @pte: Entry: 0 clears the range, holes skipped; a NULL entry (MAP_NULL)
 *       or 0 takes one entry at the highest level for every block of the
 *       range that has no table; any other entry is written in leaf
 *       tables only.
 *
 * A nonzero @pte needs the range reserved (vagx_pgtable_reserve(), or
 * vagx_pgtable_reserve_edges() for a NULL entry); clearing a range that
 * splits a block mapped by one NULL entry needs its edges reserved.
 */
void vagx_pgtable_set_range(struct vagx_pgtable *pgt, u64 va, u64 size,
			    u64 pte)
{
	vagx_pt_set_range(pgt->root, 0, 0, va, va + size, pte,
			  !pte || pte == vagx_pte_null());
}

/* Detach the empty, unreserved tables under @pt inside [va, end). */
static void vagx_pt_prune(struct vagx_pt *pt, int level, u64 base, u64 va,
			  u64 end, struct list_head *garbage)
{
	u64 span = BIT_ULL(VAGX_PT_SHIFT(level));
	u32 idx = VAGX_PT_INDEX(va, level);

	for (; idx < VAGX_PT_ENTRIES && base + idx * span < end; idx++) {
		struct vagx_pt *child = pt->children[idx];
		u64 cbase = base + idx * span;

		if (!child)
			continue;
		if (child->children)
			vagx_pt_prune(child, level + 1, cbase,
				      max(va, cbase), end, garbage);
		if (child->live || child->reserved)
			continue;
		pt->children[idx] = NULL;
		vagx_pt_write(pt, idx, 0);
		list_add_tail(&child->gc, garbage);
	}
}

/**
 * vagx_pgtable_prune() - Detach the tables a range no longer needs
 * @pgt: Tree.
 * @va: Start of the range.
 * @size: Size of the range.
 * @garbage: List the detached tables are added to.
 *
 * Tables without entries and without reservation are unlinked from their
 * parent. The device may still hold them in its TLB: free them with
 * vagx_pgtable_free_garbage() only after a TLB invalidation. The root
 * stays.
 */
void vagx_pgtable_prune(struct vagx_pgtable *pgt, u64 va, u64 size,
			struct list_head *garbage)
{
	u64 end = min_t(u64, va + size, BIT_ULL(VAGX_VA_BITS));

	if (size)
		vagx_pt_prune(pgt->root, 0, 0, va, end, garbage);
}

/**
 * vagx_pgtable_free_garbage() - Free tables detached by vagx_pgtable_prune()
 * @pgt: Tree.
 * @garbage: The list; empty afterwards.
 */
void vagx_pgtable_free_garbage(struct vagx_pgtable *pgt,
			       struct list_head *garbage)
{
	struct vagx_pt *pt, *tmp;

	list_for_each_entry_safe(pt, tmp, garbage, gc) {
		list_del(&pt->gc);
		/* Children were detached (and listed) first: free this page. */
		kfree(pt->children);
		pt->children = NULL;
		vagx_pt_free(pgt, pt);
	}
}

/* Free a quarantined table: it belongs to no tree any more. */
static void vagx_pt_free_detached(struct vagx_device *vdev, struct vagx_pt *pt)
{
	if (pt->root)
		atomic_dec(&vdev->quarantined_roots);
	atomic_dec(&vdev->quarantined_pts);
	kfree(pt->children);
	dma_free_coherent(vdev->drm.dev, VAGX_PAGE_SIZE, pt->cpu, pt->dma);
	kfree(pt);
}

/* Recovery attempts start soon after a quarantine and back off to 10 s. */
#define VAGX_QUARANTINE_RETRY_MIN_MS	100
#define VAGX_QUARANTINE_RETRY_MAX_MS	10000

/* Schedule the recovery; quarantine_lock held, the quarantine not closed. */
static void vagx_quarantine_kick(struct vagx_device *vdev)
{
	lockdep_assert_held(&vdev->quarantine_lock);
	if (!vdev->quarantine_retry_ms)
		vdev->quarantine_retry_ms = VAGX_QUARANTINE_RETRY_MIN_MS;
	queue_delayed_work(system_wq, &vdev->quarantine_work,
			   msecs_to_jiffies(vdev->quarantine_retry_ms));
}

/**
 * vagx_pgtable_free_after_tlb() - Free detached tables if the TLB was invalidated
 * @pgt: Tree.
 * @garbage: Tables detached by vagx_pgtable_prune(); empty afterwards.
 * @tlb_ret: Result of the vagx_device_tlb_invalidate() that followed.
 *
 * 0 and -ENODEV (the device was quiesced for good) make the tables free.
 * Any other result means the device may still hold a translation through
 * them: they leave the tree's accounting and are quarantined until
 * vagx_mmu_quarantine_release() (PCI remove, after bus mastering is off).
 */
void vagx_pgtable_free_after_tlb(struct vagx_pgtable *pgt,
				 struct list_head *garbage, int tlb_ret)
{
	struct vagx_device *vdev = pgt->vdev;
	struct vagx_pt *pt, *tmp;

	if (!tlb_ret || tlb_ret == -ENODEV || list_empty(garbage)) {
		vagx_pgtable_free_garbage(pgt, garbage);
		return;
	}
	list_for_each_entry(pt, garbage, gc) {
		vagx_pt_uncharge(pgt, pt);
		atomic_inc(&vdev->quarantined_pts);
		if (pt->root)
			atomic_inc(&vdev->quarantined_roots);
	}
	mutex_lock(&vdev->quarantine_lock);
	if (!vdev->quarantine_closed) {
		list_splice_tail_init(garbage, &vdev->quarantine_pts);
		vagx_quarantine_kick(vdev);
		mutex_unlock(&vdev->quarantine_lock);
		return;
	}
	mutex_unlock(&vdev->quarantine_lock);
	/* Already quiesced for good: nothing can walk them any more. */
	list_for_each_entry_safe(pt, tmp, garbage, gc) {
		list_del(&pt->gc);
		vagx_pt_free_detached(vdev, pt);
	}
}

/* Add @pt and every table below it to @list (children first). */
static void vagx_pt_collect(struct vagx_pt *pt, struct list_head *list)
{
	int i;

	if (pt->children)
		for (i = 0; i < VAGX_PT_ENTRIES; i++)
			if (pt->children[i])
				vagx_pt_collect(pt->children[i], list);
	list_add_tail(&pt->gc, list);
}

/**
 * vagx_pgtable_fini_after_tlb() - Free a tree once its TLB was invalidated
 * @pgt: Tree the device runs nothing on any more.
 * @tlb_ret: Result of the vagx_device_tlb_invalidate() of the whole tree
 *           that followed its last use and its last change.
 *
 * The device may keep translations cached under the root's bus address
 * (docs/hw/mmu.md) until an invalidation of that root completes, and a
 * tree given the same page as its root would be translated through them.
 * So, as vagx_pgtable_free_after_tlb() does for detached tables, 0 and
 * -ENODEV free the tree; any other result quarantines the root and every
 * table still below it, until an invalidation of every VM completes or the
 * device is quiesced for good. The tree is empty afterwards, as after
 * vagx_pgtable_fini().
 */
void vagx_pgtable_fini_after_tlb(struct vagx_pgtable *pgt, int tlb_ret)
{
	LIST_HEAD(garbage);

	if (tlb_ret && tlb_ret != -ENODEV && pgt->root) {
		vagx_pt_collect(pgt->root, &garbage);
		pgt->root = NULL;
		vagx_pgtable_free_after_tlb(pgt, &garbage, tlb_ret);
	}
	vagx_pgtable_fini(pgt);
}

/**
 * vagx_sgt_check() - Check that a BO's DMA segments can be mapped
 * @sgt: The BO's pages.
 *
 * The device maps whole 4 KiB pages: a segment whose address or length
 * is not a multiple of 4 KiB (an imported dma-buf may have such) would
 * expose memory outside the buffer.
 *
 * Return: 0 or -EINVAL.
 */
int vagx_sgt_check(struct sg_table *sgt)
{
	struct scatterlist *sg;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i)
		if (!IS_ALIGNED(sg_dma_address(sg) | sg_dma_len(sg),
				VAGX_PAGE_SIZE))
			return -EINVAL;
	return 0;
}

/**
 * vagx_pgtable_root() - Bus address of the level-0 table
 * @pgt: Tree.
 *
 * Return: the address for job headers and SCANOUT_PT_ROOT.
 */
u64 vagx_pgtable_root(const struct vagx_pgtable *pgt)
{
	return pgt->root->dma;
}

static void vagx_pt_map_sgt(struct vagx_vm *vm, u64 va, u64 size,
			    struct sg_table *sgt, u64 offset, bool ro)
{
	u64 end = va + size;
	struct scatterlist *sg;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u64 len = sg_dma_len(sg);

		if (offset >= len) {
			offset -= len;
			continue;
		}
		addr += offset;
		len -= offset;
		offset = 0;
		/* Segments are whole pages: vagx_sgt_check() at MAP time. */
		for (; len >= VAGX_PAGE_SIZE && va < end; va += VAGX_PAGE_SIZE,
		     addr += VAGX_PAGE_SIZE, len -= VAGX_PAGE_SIZE)
			drm_WARN_ON_ONCE(&vm->vdev->drm,
					 !vagx_pgtable_set(&vm->pgt, va,
							   vagx_pte_encode(true, ro, false,
									   false, addr)));
		if (va >= end)
			break;
	}
}

#define VAGX_VMA_READONLY	BIT(0)
#define VAGX_VMA_NULL		BIT(1)

struct vagx_vma {
	struct drm_gpuva base;
	struct list_head node;
	u32 flags;
};

#define to_vagx_vma(va) container_of(va, struct vagx_vma, base)

/* A BO kept referenced after a failed TLB invalidation (scanout). */
struct vagx_quarantined_obj {
	struct list_head node;
	struct drm_gem_object *obj;
};

/* One validated and prepared operation of a VM_BIND. */
struct vagx_bind_op {
	u32 op;
	u32 vma_flags;
	u64 va;
	u64 range;
	u64 bo_offset;
	struct drm_gem_object *obj;
	struct sg_table *sgt;
	struct drm_gpuvm_bo *vm_bo;
	struct vagx_vma *new_vma[3];
	/* The op holds a reservation on its page tables (vm->op_lock). */
	bool pt_reserved;
	/* Tables may have been allocated for the op's range (prune them). */
	bool pt_touched;
	/* MAP_NULL/UNMAP: levels held at both ends (reserve_edges). */
	u8 pt_depth[2];
};

/* A whole VM_BIND, executed synchronously or as an async bind job. */
struct vagx_bind_job {
	struct drm_sched_job base;
	struct vagx_vm *vm;
	u32 count;
	struct vagx_bind_op *ops;
	struct vagx_bind_op *cur;
	struct list_head returned_vmas;
	bool inject_fail;
	/*
	 * The TLB invalidation after applying failed: the device may still
	 * use the pages of @returned_vmas, which are quarantined instead of
	 * unpinned.
	 */
	bool tlb_failed;
};

/**
 * vagx_vm_root_gem() - The GEM object holding the VM's reservation object
 * @vm: VM.
 *
 * Return: the resv GEM object (not referenced).
 */
struct drm_gem_object *vagx_vm_root_gem(struct vagx_vm *vm)
{
	return drm_gpuvm_resv_obj(&vm->base);
}

/**
 * vagx_vm_root_dma() - Bus address of the level-0 page table
 * @vm: VM.
 *
 * Return: the address to put in job headers.
 */
u64 vagx_vm_root_dma(struct vagx_vm *vm)
{
	return vagx_pgtable_root(&vm->pgt);
}

/**
 * vagx_vm_get() - Take a user reference on a VM
 * @vm: VM.
 *
 * Return: @vm.
 */
struct vagx_vm *vagx_vm_get(struct vagx_vm *vm)
{
	kref_get(&vm->users);
	return vm;
}

static void vagx_vm_users_release(struct kref *kref)
{
	struct vagx_vm *vm = container_of(kref, struct vagx_vm, users);

	queue_work(vm->vdev->release_wq, &vm->release_work);
}

/**
 * vagx_vm_put() - Drop a user reference on a VM
 * @vm: VM or NULL.
 */
void vagx_vm_put(struct vagx_vm *vm)
{
	if (vm)
		kref_put(&vm->users, vagx_vm_users_release);
}

/**
 * vagx_vm_lookup() - Find a VM of a file and take a user reference
 * @vfile: File.
 * @id: VM id.
 *
 * Return: the VM or NULL.
 */
struct vagx_vm *vagx_vm_lookup(struct vagx_file *vfile, u32 id)
{
	struct vagx_vm *vm;

	xa_lock(&vfile->vms);
	vm = xa_load(&vfile->vms, id);
	if (vm)
		vagx_vm_get(vm);
	xa_unlock(&vfile->vms);
	return vm;
}

/* The page tables went in vagx_vm_release_work(), before this. */
static void vagx_vm_free(struct drm_gpuvm *gpuvm)
{
	struct vagx_vm *vm = to_vagx_vm(gpuvm);

	mutex_destroy(&vm->op_lock);
	kfree(vm);
}

/*
 * Drop a vm_bo reference; if that destroyed it, release the pin it held.
 * Never called with op_lock or a resv held.
 */
static void vagx_vm_bo_put(struct drm_gpuvm_bo *vm_bo)
{
	struct drm_gem_object *obj = vm_bo->obj;
	struct vagx_bo *bo = to_vagx_bo(obj);
	struct drm_gpuvm *gpuvm = vm_bo->vm;
	bool unpin;

	drm_gem_object_get(obj);
	drm_gpuvm_get(gpuvm);
	mutex_lock(&bo->gpuva_list_lock);
	unpin = drm_gpuvm_bo_put(vm_bo);
	mutex_unlock(&bo->gpuva_list_lock);
	if (unpin && !obj->import_attach)
		drm_gem_shmem_unpin(&bo->base);
	drm_gpuvm_put(gpuvm);
	drm_gem_object_put(obj);
}

static struct vagx_vma *vagx_bind_take_vma(struct vagx_bind_job *job)
{
	struct vagx_bind_op *op = job->cur;
	int i;

	for (i = 0; i < ARRAY_SIZE(op->new_vma); i++) {
		struct vagx_vma *vma = op->new_vma[i];

		if (vma) {
			op->new_vma[i] = NULL;
			return vma;
		}
	}
	return NULL;
}

static void vagx_vma_link(struct vagx_vma *vma, struct drm_gpuvm_bo *vm_bo)
{
	struct vagx_bo *bo = to_vagx_bo(vm_bo->obj);

	mutex_lock(&bo->gpuva_list_lock);
	drm_gpuva_link(&vma->base, vm_bo);
	mutex_unlock(&bo->gpuva_list_lock);
}

/* Unlink, keeping a vm_bo reference until the TLB has been invalidated. */
static void vagx_vma_unlink(struct vagx_bind_job *job, struct vagx_vma *vma)
{
	struct drm_gpuvm_bo *vm_bo = vma->base.vm_bo;

	if (vma->base.gem.obj) {
		struct vagx_bo *bo = to_vagx_bo(vma->base.gem.obj);

		drm_gpuvm_bo_get(vm_bo);
		mutex_lock(&bo->gpuva_list_lock);
		drm_gpuva_unlink(&vma->base);
		mutex_unlock(&bo->gpuva_list_lock);
		vma->base.vm_bo = vm_bo;
	}
	list_add_tail(&vma->node, &job->returned_vmas);
}

static void vagx_vma_write_ptes(struct vagx_vm *vm, struct vagx_vma *vma,
				struct sg_table *sgt)
{
	u64 va = vma->base.va.addr, range = vma->base.va.range;

	if (vma->flags & VAGX_VMA_NULL)
		vagx_pgtable_set_range(&vm->pgt, va, range,
				       vagx_pte_encode(true, false, true, false,
						       0));
	else
		vagx_pt_map_sgt(vm, va, range, sgt, vma->base.gem.offset,
				vma->flags & VAGX_VMA_READONLY);
}

static int vagx_sm_step_map(struct drm_gpuva_op *op, void *priv)
{
	struct vagx_bind_job *job = priv;
	struct vagx_vm *vm = job->vm;
	struct vagx_vma *vma = vagx_bind_take_vma(job);

	if (drm_WARN_ON(&vm->vdev->drm, !vma))
		return -EINVAL;
	drm_gpuva_init_from_op(&vma->base, &op->map);
	vma->flags = job->cur->vma_flags;
	/* Overwrites the PTEs of what was there: atomic replacement. */
	vagx_vma_write_ptes(vm, vma, job->cur->sgt);
	drm_gpuva_map(&vm->base, &vma->base, &op->map);
	if (op->map.gem.obj)
		vagx_vma_link(vma, job->cur->vm_bo);
	return 0;
}

static int vagx_sm_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct vagx_bind_job *job = priv;
	struct vagx_vm *vm = job->vm;
	struct vagx_vma *old = to_vagx_vma(op->remap.unmap->va);
	struct vagx_vma *prev = NULL, *next = NULL;
	u64 start = old->base.va.addr;
	u64 end = start + old->base.va.range;

	if (op->remap.prev) {
		prev = vagx_bind_take_vma(job);
		if (drm_WARN_ON(&vm->vdev->drm, !prev))
			return -EINVAL;
		drm_gpuva_init_from_op(&prev->base, op->remap.prev);
		prev->flags = old->flags;
		start = prev->base.va.addr + prev->base.va.range;
	}
	if (op->remap.next) {
		next = vagx_bind_take_vma(job);
		if (drm_WARN_ON(&vm->vdev->drm, !next))
			return -EINVAL;
		drm_gpuva_init_from_op(&next->base, op->remap.next);
		next->flags = old->flags;
		end = next->base.va.addr;
	}

	/* A MAP or MAP_NULL overwrites the hole itself, atomically. */
	if (job->cur->op == DRM_VAGX_BIND_OP_UNMAP)
		vagx_pgtable_set_range(&vm->pgt, start, end - start, 0);

	drm_gpuva_remap(prev ? &prev->base : NULL, next ? &next->base : NULL,
			&op->remap);
	if (old->base.gem.obj) {
		if (prev)
			vagx_vma_link(prev, old->base.vm_bo);
		if (next)
			vagx_vma_link(next, old->base.vm_bo);
	}
	vagx_vma_unlink(job, old);
	return 0;
}

static int vagx_sm_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct vagx_bind_job *job = priv;
	struct vagx_vma *vma = to_vagx_vma(op->unmap.va);

	if (job->cur->op == DRM_VAGX_BIND_OP_UNMAP)
		vagx_pgtable_set_range(&job->vm->pgt, vma->base.va.addr,
				       vma->base.va.range, 0);
	drm_gpuva_unmap(&op->unmap);
	vagx_vma_unlink(job, vma);
	return 0;
}

static const struct drm_gpuvm_ops vagx_gpuvm_ops = {
	.vm_free = vagx_vm_free,
	.sm_step_map = vagx_sm_step_map,
	.sm_step_remap = vagx_sm_step_remap,
	.sm_step_unmap = vagx_sm_step_unmap,
};

/* Drop the page-table reservation of an op, if it holds one (op_lock). */
static void vagx_bind_op_unreserve(struct vagx_vm *vm, struct vagx_bind_op *op)
{
	if (!op->pt_reserved)
		return;
	if (op->op == DRM_VAGX_BIND_OP_MAP)
		vagx_pgtable_unreserve(&vm->pgt, op->va, op->range);
	else
		vagx_pgtable_unreserve_edges(&vm->pgt, op->va, op->range,
					     op->pt_depth);
	op->pt_reserved = false;
}

/* Apply every op of a prepared bind, under vm->op_lock. Cannot fail. */
static void vagx_bind_apply_locked(struct vagx_bind_job *job)
{
	struct vagx_vm *vm = job->vm;
	LIST_HEAD(garbage);
	u32 i;
	int ret;

	lockdep_assert_held(&vm->op_lock);
	for (i = 0; i < job->count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		job->cur = op;
		if (op->op == DRM_VAGX_BIND_OP_UNMAP)
			ret = drm_gpuvm_sm_unmap(&vm->base, job, op->va,
						 op->range);
		else
			ret = drm_gpuvm_sm_map(&vm->base, job, op->va,
					       op->range, op->obj,
					       op->bo_offset);
		drm_WARN_ON(&vm->vdev->drm, ret);
	}
	job->cur = NULL;
	/*
	 * The bind's tables are populated now; drop its reservations and
	 * detach the tables its unmaps emptied. They are freed only after
	 * the TLB invalidation: until then the device may still walk them.
	 */
	for (i = 0; i < job->count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		vagx_bind_op_unreserve(vm, op);
		op->pt_touched = false;
		if (op->op == DRM_VAGX_BIND_OP_UNMAP)
			vagx_pgtable_prune(&vm->pgt, op->va, op->range,
					   &garbage);
	}
	ret = 0;
	if (job->count)
		ret = vagx_device_tlb_invalidate(vm->vdev, vagx_vm_root_dma(vm),
						 0, 0);
	/* -ENODEV: quiesced for good, nothing can use the pages any more. */
	job->tlb_failed = ret && ret != -ENODEV;
	vagx_pgtable_free_after_tlb(&vm->pgt, &garbage, ret);
}

static void vagx_bind_apply(struct vagx_bind_job *job)
{
	mutex_lock(&job->vm->op_lock);
	vagx_bind_apply_locked(job);
	mutex_unlock(&job->vm->op_lock);
}

/*
 * Keep the pins of mappings a failed TLB invalidation may leave visible to
 * the device: the vm_bo references go to the device's quarantine, dropped
 * in vagx_mmu_quarantine_release().
 */
static void vagx_quarantine_vmas(struct vagx_device *vdev,
				 struct list_head *vmas)
{
	struct vagx_vma *vma, *tmp;
	LIST_HEAD(late);

	list_for_each_entry_safe(vma, tmp, vmas, node) {
		if (vma->base.vm_bo)
			continue;
		list_del(&vma->node);
		kfree(vma);
	}
	if (list_empty(vmas))
		return;
	list_for_each_entry(vma, vmas, node)
		atomic_inc(&vdev->quarantined_vmas);
	mutex_lock(&vdev->quarantine_lock);
	if (vdev->quarantine_closed) {
		list_splice_init(vmas, &late);
	} else {
		list_splice_tail_init(vmas, &vdev->quarantine_vmas);
		vagx_quarantine_kick(vdev);
	}
	mutex_unlock(&vdev->quarantine_lock);
	/* Quiesced for good meanwhile: release them now. */
	list_for_each_entry_safe(vma, tmp, &late, node) {
		vagx_vm_bo_put(vma->base.vm_bo);
		kfree(vma);
		atomic_dec(&vdev->quarantined_vmas);
	}
}

/**
 * vagx_mmu_quarantine_obj() - Keep a BO the device may still read
 * @vdev: Device.
 * @obj: GEM object; a reference is taken (and dropped by
 *       vagx_mmu_quarantine_release()).
 */
void vagx_mmu_quarantine_obj(struct vagx_device *vdev,
			     struct drm_gem_object *obj)
{
	struct vagx_quarantined_obj *q;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	drm_gem_object_get(obj);
	/* Without memory to track it, leak the reference for good. */
	if (!q)
		return;
	q->obj = obj;
	mutex_lock(&vdev->quarantine_lock);
	if (!vdev->quarantine_closed) {
		list_add_tail(&q->node, &vdev->quarantine_objs);
		vagx_quarantine_kick(vdev);
		q = NULL;
	}
	mutex_unlock(&vdev->quarantine_lock);
	if (q) {
		drm_gem_object_put(obj);
		kfree(q);
	}
}

/* Free quarantined tables, mappings and BOs the device can no longer use. */
static void vagx_quarantine_free(struct vagx_device *vdev, struct list_head *pts,
				 struct list_head *vmas, struct list_head *objs)
{
	struct vagx_quarantined_obj *q, *qtmp;
	struct vagx_vma *vma, *vtmp;
	struct vagx_pt *pt, *ptmp;

	list_for_each_entry_safe(pt, ptmp, pts, gc) {
		list_del(&pt->gc);
		vagx_pt_free_detached(vdev, pt);
	}
	list_for_each_entry_safe(vma, vtmp, vmas, node) {
		list_del(&vma->node);
		vagx_vm_bo_put(vma->base.vm_bo);
		kfree(vma);
		atomic_dec(&vdev->quarantined_vmas);
	}
	list_for_each_entry_safe(q, qtmp, objs, node) {
		list_del(&q->node);
		drm_gem_object_put(q->obj);
		kfree(q);
	}
}

/**
 * vagx_mmu_quarantine_work() - Release the quarantine once that is safe
 * @work: &vagx_device.quarantine_work.
 *
 * What is in the quarantine was unmapped before a TLB invalidation that
 * failed; an invalidation of every VM that completes after it
 * (vagx_device_tlb_invalidate_all(), after vagx_device_recover() has reset
 * a wedged device and reprogrammed its rings) leaves no translation
 * through it, so it is freed then, and the device is in service again.
 * A failed attempt puts everything back and retries later, the delay
 * doubling up to 10 s. Runs without locks (vm_bo puts may take a BO's
 * resv). Scheduled by every quarantine, and at once by a TLB invalidation
 * that wedged the device (vagx_mmu_recover_now()).
 */
void vagx_mmu_quarantine_work(struct work_struct *work)
{
	struct vagx_device *vdev = container_of(to_delayed_work(work),
						struct vagx_device,
						quarantine_work);
	LIST_HEAD(pts);
	LIST_HEAD(vmas);
	LIST_HEAD(objs);
	int ret, idx;

	mutex_lock(&vdev->quarantine_lock);
	if (vdev->quarantine_closed) {
		mutex_unlock(&vdev->quarantine_lock);
		return;
	}
	list_splice_init(&vdev->quarantine_pts, &pts);
	list_splice_init(&vdev->quarantine_vmas, &vmas);
	list_splice_init(&vdev->quarantine_objs, &objs);
	mutex_unlock(&vdev->quarantine_lock);

	ret = 0;
	if (READ_ONCE(vdev->tlb_wedged) && drm_dev_enter(&vdev->drm, &idx)) {
		ret = vagx_device_recover(vdev);
		drm_dev_exit(idx);
		if (!ret)
			drm_info(&vdev->drm, "device recovered: translations work again after a reset\n");
	}
	if (!ret)
		ret = vagx_device_tlb_invalidate_all(vdev);
	if (ret && ret != -ENODEV) {
		mutex_lock(&vdev->quarantine_lock);
		if (!vdev->quarantine_closed) {
			list_splice(&pts, &vdev->quarantine_pts);
			list_splice(&vmas, &vdev->quarantine_vmas);
			list_splice(&objs, &vdev->quarantine_objs);
			vdev->quarantine_retry_ms =
				min(2 * vdev->quarantine_retry_ms,
				    VAGX_QUARANTINE_RETRY_MAX_MS);
			vagx_quarantine_kick(vdev);
			mutex_unlock(&vdev->quarantine_lock);
			return;
		}
		/* Quiesced for good meanwhile: nothing uses them. */
		mutex_unlock(&vdev->quarantine_lock);
	}
	vagx_quarantine_free(vdev, &pts, &vmas, &objs);
	atomic_inc(&vdev->quarantine_recoveries);
	mutex_lock(&vdev->quarantine_lock);
	vdev->quarantine_retry_ms = 0;
	mutex_unlock(&vdev->quarantine_lock);
}

/**
 * vagx_mmu_recover_now() - Start the recovery of a device just wedged
 * @vdev: Device, entered (drm_dev_enter()), marked wedged by a TLB
 *        invalidation that did not complete.
 *
 * Runs vagx_mmu_quarantine_work() at once, even if a quarantine had it
 * scheduled later: it resets the device with every ring parked, ends the
 * jobs the rings held (-ECANCELED) and frees the quarantine once an
 * invalidation of every VM completes. The caller holds no lock the work
 * takes before it can run (a VM's op_lock is fine).
 */
void vagx_mmu_recover_now(struct vagx_device *vdev)
{
	mutex_lock(&vdev->quarantine_lock);
	if (!vdev->quarantine_closed) {
		if (!vdev->quarantine_retry_ms)
			vdev->quarantine_retry_ms =
				VAGX_QUARANTINE_RETRY_MIN_MS;
		mod_delayed_work(system_wq, &vdev->quarantine_work, 0);
	}
	mutex_unlock(&vdev->quarantine_lock);
}

/**
 * vagx_mmu_quarantine_release() - Free what failed TLB invalidations kept
 * @vdev: Device, quiesced for good (vagx_device_fini(): global reset, bus
 *        mastering off), so it walks no table and touches no page; the
 *        recovery work cancelled.
 *
 * Later quarantines free at once.
 */
void vagx_mmu_quarantine_release(struct vagx_device *vdev)
{
	LIST_HEAD(pts);
	LIST_HEAD(vmas);
	LIST_HEAD(objs);

	mutex_lock(&vdev->quarantine_lock);
	vdev->quarantine_closed = true;
	list_splice_init(&vdev->quarantine_pts, &pts);
	list_splice_init(&vdev->quarantine_vmas, &vmas);
	list_splice_init(&vdev->quarantine_objs, &objs);
	mutex_unlock(&vdev->quarantine_lock);
	vagx_quarantine_free(vdev, &pts, &vmas, &objs);
}

/* Release everything a bind holds; VMAs it unmapped lose their pins here. */
static void vagx_bind_cleanup(struct vagx_bind_job *job)
{
	struct vagx_vm *vm = job->vm;
	struct vagx_vma *vma, *tmp;
	LIST_HEAD(garbage);
	bool touched = false;
	u32 i;
	int j;

	/*
	 * A bind that was never applied: give its page tables back, and
	 * detach those a failed reservation allocated.
	 */
	for (i = 0; i < job->count; i++)
		touched |= job->ops[i].pt_touched;
	if (touched) {
		int ret = 0;

		mutex_lock(&vm->op_lock);
		for (i = 0; i < job->count; i++) {
			struct vagx_bind_op *op = &job->ops[i];

			if (!op->pt_touched)
				continue;
			vagx_bind_op_unreserve(vm, op);
			op->pt_touched = false;
			vagx_pgtable_prune(&vm->pgt, op->va, op->range,
					   &garbage);
		}
		/* The tables were linked, so the device may have walked them. */
		if (!list_empty(&garbage))
			ret = vagx_device_tlb_invalidate(vm->vdev,
							 vagx_vm_root_dma(vm),
							 0, 0);
		vagx_pgtable_free_after_tlb(&vm->pgt, &garbage, ret);
		mutex_unlock(&vm->op_lock);
	}

	if (job->tlb_failed)
		vagx_quarantine_vmas(vm->vdev, &job->returned_vmas);
	list_for_each_entry_safe(vma, tmp, &job->returned_vmas, node) {
		if (vma->base.vm_bo)
			vagx_vm_bo_put(vma->base.vm_bo);
		kfree(vma);
	}
	for (i = 0; i < job->count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		for (j = 0; j < ARRAY_SIZE(op->new_vma); j++)
			kfree(op->new_vma[j]);
		if (op->vm_bo)
			vagx_vm_bo_put(op->vm_bo);
		if (op->obj)
			drm_gem_object_put(op->obj);
	}
	kvfree(job->ops);
	vagx_vm_put(job->vm);
	kfree(job);
}

static int vagx_bind_prepare_map(struct vagx_vm *vm, struct drm_file *file,
				 const struct drm_vagx_vm_bind_op *uop,
				 struct vagx_bind_op *op)
{
	struct drm_gpuvm_bo *prealloc;
	struct vagx_bo *bo;
	struct sg_table *sgt;
	int ret;

	op->obj = drm_gem_object_lookup(file, uop->handle);
	if (!op->obj)
		return -ENOENT;
	bo = to_vagx_bo(op->obj);
	if (uop->bo_offset > op->obj->size ||
	    uop->range > op->obj->size - uop->bo_offset)
		return -EINVAL;
	if (bo->exclusive_vm_root_gem &&
	    bo->exclusive_vm_root_gem != vagx_vm_root_gem(vm))
		return -EINVAL;

	/* Pin before taking any lock: pinning takes the BO's resv. */
	if (!op->obj->import_attach) {
		ret = vagx_bo_charge_pages(bo);
		if (ret)
			return ret;
		ret = drm_gem_shmem_pin(&bo->base);
		if (ret)
			return ret;
	}
	sgt = drm_gem_shmem_get_pages_sgt(&bo->base);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto err_unpin;
	}
	ret = vagx_sgt_check(sgt);
	if (ret)
		goto err_unpin;
	op->sgt = sgt;

	prealloc = drm_gpuvm_bo_create(&vm->base, op->obj);
	if (!prealloc) {
		ret = -ENOMEM;
		goto err_unpin;
	}
	mutex_lock(&bo->gpuva_list_lock);
	op->vm_bo = drm_gpuvm_bo_obtain_prealloc(prealloc);
	mutex_unlock(&bo->gpuva_list_lock);

	/*
	 * An existing <VM, BO> pair already holds a pin; ours goes away.
	 * Otherwise our vm_bo owns the pin until it is destroyed.
	 */
	if (op->vm_bo != prealloc && !op->obj->import_attach)
		drm_gem_shmem_unpin(&bo->base);
	return 0;

err_unpin:
	if (!op->obj->import_attach)
		drm_gem_shmem_unpin(&bo->base);
	return ret;
}

static int vagx_bind_check_op(struct vagx_device *vdev, struct vagx_vm *vm,
			      const struct drm_vagx_vm_bind_op *uop)
{
	if (uop->pad)
		return -EINVAL;
	if (uop->flags & ~DRM_VAGX_BIND_OP_READONLY)
		return -EINVAL;
	switch (uop->op) {
	case DRM_VAGX_BIND_OP_MAP:
		break;
	case DRM_VAGX_BIND_OP_MAP_NULL:
	case DRM_VAGX_BIND_OP_UNMAP:
		if (uop->flags || uop->handle || uop->bo_offset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (!uop->range || !IS_ALIGNED(uop->va | uop->range | uop->bo_offset,
				       VAGX_PAGE_SIZE))
		return -EINVAL;
	if (uop->va < VAGX_USER_VA_START || uop->va > VAGX_USER_VA_END ||
	    uop->range > VAGX_USER_VA_END - uop->va)
		return -EINVAL;
	if (uop->op == DRM_VAGX_BIND_OP_MAP_NULL &&
	    !VAGX_FEATURES_SPARSE_NULL_GET(vdev->hw_features))
		return -EOPNOTSUPP;
	if (uop->op != DRM_VAGX_BIND_OP_UNMAP && vm->unusable)
		return -ECANCELED;
	return 0;
}

/*
 * Validate every op, look up and pin the BOs, preallocate the VMAs and the
 * page tables. Nothing is visible to userspace or the device yet.
 */
static int vagx_bind_prepare(struct vagx_vm *vm, struct drm_file *file,
			     const struct drm_vagx_vm_bind_op *uops, u32 count,
			     struct vagx_bind_job *job, u32 *failed)
{
	struct vagx_device *vdev = vm->vdev;
	u32 i;
	int j, ret;

	job->ops = kvcalloc(count, sizeof(*job->ops), GFP_KERNEL);
	if (count && !job->ops)
		return -ENOMEM;

	for (i = 0; i < count; i++) {
		const struct drm_vagx_vm_bind_op *uop = &uops[i];
		struct vagx_bind_op *op = &job->ops[i];

		*failed = i;
		/* Counted so that cleanup sees every initialised op. */
		job->count = i + 1;
		ret = vagx_bind_check_op(vdev, vm, uop);
		if (ret)
			return ret;
		op->op = uop->op;
		op->va = uop->va;
		op->range = uop->range;
		op->bo_offset = uop->bo_offset;
		if (uop->flags & DRM_VAGX_BIND_OP_READONLY)
			op->vma_flags |= VAGX_VMA_READONLY;
		if (uop->op == DRM_VAGX_BIND_OP_MAP_NULL)
			op->vma_flags |= VAGX_VMA_NULL;
		if (uop->op == DRM_VAGX_BIND_OP_MAP) {
			ret = vagx_bind_prepare_map(vm, file, uop, op);
			if (ret)
				return ret;
		}
		for (j = 0; j < ARRAY_SIZE(op->new_vma); j++) {
			op->new_vma[j] = kzalloc(sizeof(*op->new_vma[j]),
						 GFP_KERNEL);
			if (!op->new_vma[j])
				return -ENOMEM;
		}
		if (atomic_add_unless(&vdev->inject_bind_prep_fail, -1, 0))
			return -ENOMEM;
	}

	ret = mutex_lock_interruptible(&vm->op_lock);
	if (ret) {
		*failed = DRM_VAGX_NO_FAILED_INDEX;
		return ret;
	}
	for (i = 0; i < count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		*failed = i;
		op->pt_touched = true;
		/*
		 * A MAP needs every leaf table of its range. MAP_NULL and
		 * UNMAP write (or clear) one entry per whole block: they need
		 * tables only at their ends, where they may also split a
		 * block that one NULL entry maps.
		 */
		if (op->op == DRM_VAGX_BIND_OP_MAP)
			ret = vagx_pgtable_reserve(&vm->pgt, op->va,
						   op->range);
		else
			ret = vagx_pgtable_reserve_edges(&vm->pgt, op->va,
							 op->range,
							 op->pt_depth);
		if (ret)
			break;
		op->pt_reserved = true;
	}
	mutex_unlock(&vm->op_lock);
	return ret;
}

static struct vagx_bind_job *vagx_bind_job_alloc(struct vagx_vm *vm)
{
	struct vagx_bind_job *job;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return NULL;
	job->vm = vagx_vm_get(vm);
	INIT_LIST_HEAD(&job->returned_vmas);
	return job;
}

static struct dma_fence *vagx_bind_run_job(struct drm_sched_job *sched_job)
{
	struct vagx_bind_job *job = container_of(sched_job,
						 struct vagx_bind_job, base);

	if (job->inject_fail) {
		/* Debugfs fault injection: the VM content is now unknown. */
		job->vm->unusable = true;
		return ERR_PTR(-EIO);
	}
	vagx_bind_apply(job);
	/* Synchronous: the finished fence signals when we return. */
	return NULL;
}

static enum drm_gpu_sched_stat
vagx_bind_timedout_job(struct drm_sched_job *sched_job)
{
	WARN(1, "vagx: async binds run synchronously in run_job\n");
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void vagx_bind_free_job(struct drm_sched_job *sched_job)
{
	struct vagx_bind_job *job = container_of(sched_job,
						 struct vagx_bind_job, base);

	drm_sched_job_cleanup(sched_job);
	vagx_bind_cleanup(job);
}

static const struct drm_sched_backend_ops vagx_bind_sched_ops = {
	.run_job = vagx_bind_run_job,
	.timedout_job = vagx_bind_timedout_job,
	.free_job = vagx_bind_free_job,
};

static bool vagx_vm_binds_pending(struct vagx_vm *vm)
{
	lockdep_assert_held(&vm->op_lock);
	return vm->last_bind && !dma_fence_is_signaled(vm->last_bind);
}

static int vagx_bind_submit_async(struct vagx_vm *vm, struct drm_file *file,
				  struct vagx_bind_job *job,
				  const struct drm_vagx_obj_array *syncs)
{
	struct vagx_device *vdev = vm->vdev;
	struct vagx_sync_op *sops = NULL;
	u32 nsyncs = 0;
	int ret;

	ret = vagx_syncs_parse(file, syncs, &sops, &nsyncs);
	if (ret)
		return ret;

	ret = drm_sched_job_init(&job->base, &vm->bind_entity, 1, vm);
	if (ret)
		goto err_syncs;
	ret = vagx_syncs_add_deps(&job->base, sops, nsyncs);
	if (ret)
		goto err_job;

	mutex_lock(&vm->op_lock);
	job->inject_fail = atomic_add_unless(&vdev->inject_bind_fail, -1, 0);
	drm_sched_job_arm(&job->base);
	dma_fence_put(vm->last_bind);
	vm->last_bind = dma_fence_get(&job->base.s_fence->finished);
	vagx_syncs_signal(sops, nsyncs, &job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&vm->op_lock);
	vagx_syncs_free(sops, nsyncs);
	return 0;

err_job:
	drm_sched_job_cleanup(&job->base);
err_syncs:
	vagx_syncs_free(sops, nsyncs);
	return ret;
}

/**
 * vagx_ioctl_vm_bind() - DRM_IOCTL_VAGX_VM_BIND
 * @drm: DRM device.
 * @data: &struct drm_vagx_vm_bind.
 * @file: DRM file.
 *
 * Return: 0 or a negative errno; on error the VM is unchanged.
 */
int vagx_ioctl_vm_bind(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct vagx_file *vfile = file->driver_priv;
	struct drm_vagx_vm_bind *args = data;
	struct drm_vagx_vm_bind_op *uops = NULL;
	bool async = args->flags & DRM_VAGX_VM_BIND_ASYNC;
	struct vagx_bind_job *job;
	struct vagx_vm *vm;
	u32 failed = DRM_VAGX_NO_FAILED_INDEX;
	int ret;

	args->failed_op = DRM_VAGX_NO_FAILED_INDEX;
	if (args->pad || (args->flags & ~DRM_VAGX_VM_BIND_ASYNC))
		return -EINVAL;
	if (!async && args->syncs.count)
		return -EINVAL;
	if (args->syncs.count > VAGX_MAX_SYNCS)
		return -E2BIG;

	vm = vagx_vm_lookup(vfile, args->vm_id);
	if (!vm)
		return -ENOENT;

	ret = vagx_copy_array(&args->ops, sizeof(*uops),
			      offsetofend(struct drm_vagx_vm_bind_op, range),
			      VAGX_MAX_BIND_OPS, (void **)&uops);
	if (ret)
		goto out_vm;

	job = vagx_bind_job_alloc(vm);
	if (!job) {
		ret = -ENOMEM;
		goto out_ops;
	}
	ret = vagx_bind_prepare(vm, file, uops, args->ops.count, job, &failed);
	if (ret) {
		args->failed_op = failed;
		vagx_bind_cleanup(job);
		goto out_ops;
	}

	if (async) {
		ret = vagx_bind_submit_async(vm, file, job, &args->syncs);
		if (ret)
			vagx_bind_cleanup(job);
		goto out_ops;
	}

	/*
	 * Check and apply under one hold of op_lock: an async bind pushed in
	 * between would otherwise be overtaken by this one.
	 */
	ret = mutex_lock_interruptible(&vm->op_lock);
	if (!ret) {
		if (vagx_vm_binds_pending(vm))
			ret = -EBUSY;
		else
			vagx_bind_apply_locked(job);
		mutex_unlock(&vm->op_lock);
	}
	vagx_bind_cleanup(job);

out_ops:
	kvfree(uops);
out_vm:
	vagx_vm_put(vm);
	return ret;
}

/*
 * Unmap everything and invalidate the VM's TLB. An empty VM is invalidated
 * too: an earlier invalidation that failed may have left translations
 * under its root. Returns the result of the invalidation, or -ENOMEM if
 * the mappings could not be removed (none was then).
 */
static int vagx_vm_unmap_all(struct vagx_vm *vm)
{
	struct vagx_bind_job *job;
	struct drm_gpuva *va;
	int ret = -ENOMEM;
	u32 n = 0;

	/* Each mapping is removed whole: no split, no VMA allocation. */
	drm_gpuvm_for_each_va(va, &vm->base)
		n++;
	if (!n)
		return vagx_device_tlb_invalidate(vm->vdev,
						  vagx_vm_root_dma(vm), 0, 0);

	job = vagx_bind_job_alloc(vm);
	if (!job)
		return ret;
	job->ops = kvcalloc(1, sizeof(*job->ops), GFP_KERNEL);
	if (job->ops) {
		job->count = 1;
		job->ops[0].op = DRM_VAGX_BIND_OP_UNMAP;
		job->ops[0].va = vm->base.mm_start;
		job->ops[0].range = vm->base.mm_range;
		vagx_bind_apply(job);
		/* Applying invalidated the whole VM (-ENODEV counts as done). */
		ret = job->tlb_failed ? -EIO : 0;
	}
	/* Drops the job's user reference; this is not the last one. */
	vagx_bind_cleanup(job);
	return ret;
}

static void vagx_sched_drain(struct drm_gpu_scheduler *sched,
			     struct workqueue_struct *wq)
{
	for (;;) {
		bool empty;

		flush_workqueue(wq);
		spin_lock(&sched->job_list_lock);
		empty = list_empty(&sched->pending_list);
		spin_unlock(&sched->job_list_lock);
		if (empty)
			break;
		usleep_range(1000, 2000);
	}
}

static void vagx_vm_release_work(struct work_struct *work)
{
	struct vagx_vm *vm = container_of(work, struct vagx_vm, release_work);
	struct vagx_device *vdev = vm->vdev;
	int ret;

	mutex_lock(&vdev->vms_lock);
	list_del(&vm->node);
	mutex_unlock(&vdev->vms_lock);

	/* No user left: no bind can be queued any more. */
	drm_sched_entity_destroy(&vm->bind_entity);
	vagx_sched_drain(&vm->bind_sched, vdev->bind_wq);
	drm_sched_fini(&vm->bind_sched);
	dma_fence_put(vm->last_bind);
	vm->last_bind = NULL;

	/* Temporarily revive the user count for the teardown bind. */
	kref_init(&vm->users);
	ret = vagx_vm_unmap_all(vm);
	/*
	 * Nothing runs on the VM any more. Its root is freed only if the
	 * invalidation completed: else the device may hold translations
	 * under that page, which a new VM could get as its root.
	 */
	vagx_pgtable_fini_after_tlb(&vm->pgt, ret);
	drm_gpuvm_put(&vm->base);
}

static struct vagx_vm *vagx_vm_create(struct vagx_device *vdev,
				      struct vagx_pt_budget *budget)
{
	struct drm_gem_object *r_obj;
	struct vagx_vm *vm;
	int ret;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	vm->vdev = vdev;
	kref_init(&vm->users);
	INIT_WORK(&vm->release_work, vagx_vm_release_work);
	mutex_init(&vm->op_lock);
	spin_lock_init(&vm->fault_lock);
	atomic_set(&vm->queue_count, 0);

	ret = vagx_pgtable_init(&vm->pgt, vdev, budget);
	if (ret)
		goto err_free;

	ret = drm_sched_init(&vm->bind_sched, &vagx_bind_sched_ops,
			     vdev->bind_wq, 1, 64, 0, MAX_SCHEDULE_TIMEOUT,
			     NULL, NULL, "vagx-bind", vdev->drm.dev);
	if (ret)
		goto err_pt;
	{
		struct drm_gpu_scheduler *sched = &vm->bind_sched;

		ret = drm_sched_entity_init(&vm->bind_entity,
					    DRM_SCHED_PRIORITY_KERNEL, &sched,
					    1, NULL);
	}
	if (ret)
		goto err_sched;

	r_obj = drm_gpuvm_resv_object_alloc(&vdev->drm);
	if (!r_obj) {
		ret = -ENOMEM;
		goto err_entity;
	}
	drm_gpuvm_init(&vm->base, "vagx-vm", 0, &vdev->drm, r_obj,
		       VAGX_USER_VA_START,
		       VAGX_USER_VA_END - VAGX_USER_VA_START, 0, 0,
		       &vagx_gpuvm_ops);
	/* drm_gpuvm holds its own reference to the resv object. */
	drm_gem_object_put(r_obj);

	mutex_lock(&vdev->vms_lock);
	list_add_tail(&vm->node, &vdev->vms);
	mutex_unlock(&vdev->vms_lock);
	return vm;

err_entity:
	drm_sched_entity_destroy(&vm->bind_entity);
err_sched:
	drm_sched_fini(&vm->bind_sched);
err_pt:
	vagx_pgtable_fini(&vm->pgt);
err_free:
	mutex_destroy(&vm->op_lock);
	kfree(vm);
	return ERR_PTR(ret);
}

/**
 * vagx_ioctl_vm_create() - DRM_IOCTL_VAGX_VM_CREATE
 * @drm: DRM device.
 * @data: &struct drm_vagx_vm_create.
 * @file: DRM file.
 *
 * Return: 0 or a negative errno.
 */
int vagx_ioctl_vm_create(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vagx_device *vdev = to_vagx_device(drm);
	struct vagx_file *vfile = file->driver_priv;
	struct drm_vagx_vm_create *args = data;
	struct vagx_vm *vm;
	u32 id;
	int ret;

	if (args->flags)
		return -EINVAL;

	vm = vagx_vm_create(vdev, vfile->pt_budget);
	if (IS_ERR(vm))
		return PTR_ERR(vm);

	ret = xa_alloc(&vfile->vms, &id, vm,
		       XA_LIMIT(1, VAGX_MAX_VMS_PER_FILE), GFP_KERNEL);
	if (ret) {
		vagx_vm_put(vm);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	vm->id = id;
	args->vm_id = id;
	return 0;
}

/**
 * vagx_ioctl_vm_destroy() - DRM_IOCTL_VAGX_VM_DESTROY
 * @drm: DRM device.
 * @data: &struct drm_vagx_vm_destroy.
 * @file: DRM file.
 *
 * Return: 0 or a negative errno.
 */
int vagx_ioctl_vm_destroy(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct vagx_file *vfile = file->driver_priv;
	struct drm_vagx_vm_destroy *args = data;
	struct vagx_vm *vm;
	int ret = 0;

	if (args->pad)
		return -EINVAL;

	mutex_lock(&vfile->lock);
	vm = xa_load(&vfile->vms, args->vm_id);
	if (!vm)
		ret = -ENOENT;
	else if (atomic_read(&vm->queue_count))
		ret = -EBUSY;
	else
		xa_erase(&vfile->vms, args->vm_id);
	mutex_unlock(&vfile->lock);

	if (!ret)
		vagx_vm_put(vm);
	return ret;
}

/**
 * vagx_ioctl_vm_get_state() - DRM_IOCTL_VAGX_VM_GET_STATE
 * @drm: DRM device.
 * @data: &struct drm_vagx_vm_get_state.
 * @file: DRM file.
 *
 * Return: 0 or a negative errno.
 */
int vagx_ioctl_vm_get_state(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_vagx_vm_get_state *args = data;
	unsigned long flags;
	struct vagx_vm *vm;

	if (args->pad)
		return -EINVAL;
	vm = vagx_vm_lookup(file->driver_priv, args->vm_id);
	if (!vm)
		return -ENOENT;

	args->state = READ_ONCE(vm->unusable) ? DRM_VAGX_VM_STATE_UNUSABLE :
						 DRM_VAGX_VM_STATE_USABLE;
	/* The IRQ handler records faults: keep interrupts off. */
	spin_lock_irqsave(&vm->fault_lock, flags);
	args->last_fault = vm->last_fault;
	args->fault_count = vm->fault_count;
	spin_unlock_irqrestore(&vm->fault_lock, flags);
	vagx_vm_put(vm);
	return 0;
}

/**
 * vagx_vm_record_fault() - Record an MMU fault in a VM
 * @vm: VM.
 * @fault: Decoded fault.
 */
void vagx_vm_record_fault(struct vagx_vm *vm,
			  const struct drm_vagx_fault_info *fault)
{
	unsigned long flags;

	spin_lock_irqsave(&vm->fault_lock, flags);
	vm->last_fault = *fault;
	vm->fault_count++;
	spin_unlock_irqrestore(&vm->fault_lock, flags);
}

/**
 * vagx_mmu_fault_irq() - Latch the MMU fault registers (IRQ context)
 * @vdev: Device.
 *
 * The fault is attached to the ring named by FAULT_STATUS.QUEUE; the ring's
 * error handling gives it to the faulting job's queue and VM.
 */
void vagx_mmu_fault_irq(struct vagx_device *vdev)
{
	static const u32 access[] = {
		[VAGX_FAULT_ACCESS_READ] = DRM_VAGX_FAULT_ACCESS_READ,
		[VAGX_FAULT_ACCESS_WRITE] = DRM_VAGX_FAULT_ACCESS_WRITE,
		[VAGX_FAULT_ACCESS_EXEC] = DRM_VAGX_FAULT_ACCESS_EXEC,
		[VAGX_FAULT_ACCESS_ATOMIC] = DRM_VAGX_FAULT_ACCESS_WRITE,
	};
	u32 status = vagx_read(vdev, VAGX_REG_FAULT_STATUS);
	u32 q = VAGX_FAULT_STATUS_QUEUE_GET(status);
	struct drm_vagx_fault_info fault = {};
	struct vagx_ring *ring;

	if (!VAGX_FAULT_STATUS_VALID_GET(status))
		goto ack;

	fault.addr = vagx_read(vdev, VAGX_REG_FAULT_ADDR_LO) |
		     ((u64)vagx_read(vdev, VAGX_REG_FAULT_ADDR_HI) << 32);
	fault.access = access[VAGX_FAULT_STATUS_ACCESS_GET(status)];
	switch (VAGX_FAULT_STATUS_REASON_GET(status)) {
	case VAGX_FAULT_REASON_READ_ONLY:
	case VAGX_FAULT_REASON_NO_EXEC:
		fault.reason = DRM_VAGX_FAULT_REASON_PERMISSION;
		break;
	case VAGX_FAULT_REASON_ADDRESS_RANGE:
		fault.reason = DRM_VAGX_FAULT_REASON_OUT_OF_RANGE;
		break;
	default:
		fault.reason = DRM_VAGX_FAULT_REASON_UNMAPPED;
		break;
	}
	drm_dbg_driver(&vdev->drm, "MMU fault queue %u addr %#llx status %#x\n",
		       q, fault.addr, status);
	if (q < vdev->num_rings) {
		ring = &vdev->rings[q];
		spin_lock(&ring->lock);
		ring->fault = fault;
		ring->fault_valid = true;
		spin_unlock(&ring->lock);
	}
ack:
	vagx_write(vdev, VAGX_REG_FAULT_ACK, VAGX_FAULT_ACK_ACK(1));
}

/**
 * vagx_file_release_vms() - Drop every VM id of a closing file
 * @vfile: File.
 */
void vagx_file_release_vms(struct vagx_file *vfile)
{
	struct vagx_vm *vm;
	unsigned long id;

	xa_for_each(&vfile->vms, id, vm) {
		xa_erase(&vfile->vms, id);
		vagx_vm_put(vm);
	}
}

/**
 * vagx_mmu_debugfs_show() - List the VMs and their mappings
 * @vdev: Device.
 * @m: seq_file.
 */
void vagx_mmu_debugfs_show(struct vagx_device *vdev, struct seq_file *m)
{
	struct vagx_pt *pt;
	struct vagx_vm *vm;
	struct drm_gpuva *va;

	seq_printf(m, "tlb: wedged %d quarantined_pts %d quarantined_roots %d quarantined_vmas %d recoveries %d\n",
		   READ_ONCE(vdev->tlb_wedged),
		   atomic_read(&vdev->quarantined_pts),
		   atomic_read(&vdev->quarantined_roots),
		   atomic_read(&vdev->quarantined_vmas),
		   atomic_read(&vdev->quarantine_recoveries));
	mutex_lock(&vdev->quarantine_lock);
	list_for_each_entry(pt, &vdev->quarantine_pts, gc)
		if (pt->root)
			seq_printf(m, "quarantined root %pad\n", &pt->dma);
	mutex_unlock(&vdev->quarantine_lock);
	mutex_lock(&vdev->vms_lock);
	list_for_each_entry(vm, &vdev->vms, node) {
		seq_printf(m, "vm %u: root %pad pt_pages %d unusable %d faults %u queues %d\n",
			   vm->id, &vm->pgt.root->dma, atomic_read(&vm->pgt.pages),
			   vm->unusable, vm->fault_count,
			   atomic_read(&vm->queue_count));
		mutex_lock(&vm->op_lock);
		drm_gpuvm_for_each_va(va, &vm->base) {
			struct vagx_vma *vma = to_vagx_vma(va);

			seq_printf(m, "  [%#014llx-%#014llx) %s obj %p off %#llx%s\n",
				   va->va.addr, va->va.addr + va->va.range,
				   vma->flags & VAGX_VMA_NULL ? "null" : "bo",
				   va->gem.obj, va->gem.offset,
				   vma->flags & VAGX_VMA_READONLY ? " ro" : "");
		}
		mutex_unlock(&vm->op_lock);
	}
	mutex_unlock(&vdev->vms_lock);
}
