/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_PGTABLE_H__
#define __VAGX_PGTABLE_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

/* The contract's page-table library: entry encoders, index, span. */
#include "vagx_pt.h"

struct device;
struct seq_file;
struct sg_table;
struct vagx_device;
struct vagx_pt;

/**
 * struct vagx_pt_budget - Page-table memory one file may make the kernel use
 *
 * Shared by the VMs of a file (and referenced by each, as a VM outlives
 * the file's id on it). Every table costs one page, plus one page for the
 * child-pointer array of a table that is not a leaf.
 */
struct vagx_pt_budget {
	/** @refcount: The file and every page-table tree charging it. */
	struct kref refcount;
	/** @pages: Pages charged. */
	atomic_t pages;
	/** @limit: Most pages that may be charged. */
	u32 limit;
};

struct vagx_pt_budget *vagx_pt_budget_create(void);
void vagx_pt_budget_put(struct vagx_pt_budget *budget);

/**
 * struct vagx_pgtable - The device page-table tree of a VM
 *
 * Callers serialise every operation on one tree with their own lock.
 */
struct vagx_pgtable {
	/** @vdev: Device (quarantine of tables a failed invalidation left). */
	struct vagx_device *vdev;
	/** @dev: Device the tables are DMA-mapped for. */
	struct device *dev;
	/** @root: Level-0 table. */
	struct vagx_pt *root;
	/** @pages: Number of table pages, root included. */
	atomic_t pages;
	/** @budget: What the tables are charged to, or NULL (no limit). */
	struct vagx_pt_budget *budget;
};

int vagx_pgtable_init(struct vagx_pgtable *pgt, struct vagx_device *vdev,
		      struct vagx_pt_budget *budget);
void vagx_pgtable_fini(struct vagx_pgtable *pgt);
void vagx_pgtable_fini_after_tlb(struct vagx_pgtable *pgt, int tlb_ret);
u64 vagx_pgtable_root(const struct vagx_pgtable *pgt);
int vagx_pgtable_reserve(struct vagx_pgtable *pgt, u64 va, u64 size);
void vagx_pgtable_unreserve(struct vagx_pgtable *pgt, u64 va, u64 size);
int vagx_pgtable_reserve_edges(struct vagx_pgtable *pgt, u64 va, u64 size,
			       u8 depth[2]);
void vagx_pgtable_unreserve_edges(struct vagx_pgtable *pgt, u64 va, u64 size,
				  const u8 depth[2]);
bool vagx_pgtable_set(struct vagx_pgtable *pgt, u64 va, u64 pte);
void vagx_pgtable_set_range(struct vagx_pgtable *pgt, u64 va, u64 size,
			    u64 pte);
void vagx_pgtable_prune(struct vagx_pgtable *pgt, u64 va, u64 size,
			struct list_head *garbage);
void vagx_pgtable_free_garbage(struct vagx_pgtable *pgt,
			       struct list_head *garbage);
void vagx_pgtable_free_after_tlb(struct vagx_pgtable *pgt,
				 struct list_head *garbage, int tlb_ret);
int vagx_sgt_check(struct sg_table *sgt);
void vagx_pgtable_free_quarantined(struct vagx_device *vdev,
				   struct list_head *pts);
void vagx_pgtable_show_quarantined(struct list_head *pts, struct seq_file *m);

#endif /* __VAGX_PGTABLE_H__ */
