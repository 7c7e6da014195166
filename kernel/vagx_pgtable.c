// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "vagx_device.h"
#include "vagx_mmu.h"
#include "vagx_pgtable.h"

/*
 * Page tables (struct vagx_pgtable) of a VM (vagx_vm.c), the users' and
 * the scanout's kernel VM alike. The device walks 4 levels of 512 8-byte
 * entries; level 0 is the root, level 3 maps 4 KiB pages. Tables are
 * coherent DMA pages shadowed by a software tree. Each table counts its
 * nonzero entries (@live) and the reservations covering it (@reserved):
 * a bind reserves the tables of its range while it is prepared (an empty
 * table translates like no table), so applying a validated bind cannot
 * fail; a table with neither is detached by vagx_pgtable_prune() and freed
 * after the TLB invalidation that follows. The caller serialises all
 * calls on one tree (vm->op_lock).
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

/*
 * The entry format and the index and span of an entry at each level are
 * the hardware contract's page-table library (uapi/hw/pt/vagx_pt.h), as
 * in the device, the drm-shim and the tests; the kernel keeps its own tree
 * of tables for their reservation and pruning.
 */
#define VAGX_PT_LEAF		(VAGX_PT_LEVELS - 1)

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
static struct vagx_pt *vagx_pt_leaf(struct vagx_pgtable *pgt, u64 va)
{
	struct vagx_pt *pt = pgt->root;
	int level;

	for (level = 0; level < VAGX_PT_LEAF && pt; level++)
		pt = pt->children[vagx_pt_index(va, level)];
	return pt;
}

/* Hold (@delta 1) or release (-1) the tables of levels 1..@depth at @va. */
static void vagx_pgtable_reserve_one(struct vagx_pgtable *pgt, u64 va,
				     int depth, int delta)
{
	struct vagx_pt *pt = pgt->root;
	int level;

	for (level = 0; level < depth; level++) {
		pt = pt->children[vagx_pt_index(va, level)];
		pt->reserved += delta;
	}
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
	vagx_pt_write(pt, idx, vagx_pte_table(child->dma));
	return child;
}

/* Next VA after @va that is covered by another last-level table. */
static u64 vagx_pt_next_leaf(u64 va)
{
	return (va | (vagx_pt_entry_span(VAGX_PT_LEAF - 1) - 1)) + 1;
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
					       vagx_pt_index(va, level));
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
		u64 span = vagx_pt_entry_span(level);
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
					       vagx_pt_index(at[i], level));
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
	struct vagx_pt *pt = vagx_pt_leaf(pgt, va);

	if (!pt)
		return false;
	vagx_pt_write(pt, vagx_pt_index(va, VAGX_PT_LEAF), pte);
	return true;
}

static void vagx_pt_set_range(struct vagx_pt *pt, int level, u64 base,
			      u64 va, u64 end, u64 pte, bool whole)
{
	u64 span = vagx_pt_entry_span(level);
	u32 idx = vagx_pt_index(va, level);

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
	u64 span = vagx_pt_entry_span(level);
	u32 idx = vagx_pt_index(va, level);

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
		vagx_mmu_quarantine_kick(vdev);
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

/**
 * vagx_pgtable_free_quarantined() - Free quarantined tables
 * @vdev: Device.
 * @pts: Tables taken off the quarantine, which the device no longer
 *       walks; empty afterwards.
 */
void vagx_pgtable_free_quarantined(struct vagx_device *vdev,
				   struct list_head *pts)
{
	struct vagx_pt *pt, *ptmp;

	list_for_each_entry_safe(pt, ptmp, pts, gc) {
		list_del(&pt->gc);
		vagx_pt_free_detached(vdev, pt);
	}
}

/**
 * vagx_pgtable_show_quarantined() - List the quarantined roots (debugfs)
 * @pts: &vagx_device.quarantine_pts, under its lock.
 * @m: seq_file.
 */
void vagx_pgtable_show_quarantined(struct list_head *pts, struct seq_file *m)
{
	struct vagx_pt *pt;

	list_for_each_entry(pt, pts, gc)
		if (pt->root)
			seq_printf(m, "quarantined root %pad\n", &pt->dma);
}
