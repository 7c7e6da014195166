/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_MMU_H__
#define __VAGX_MMU_H__

struct seq_file;
struct vagx_device;
struct work_struct;

void vagx_mmu_quarantine_kick(struct vagx_device *vdev);
void vagx_mmu_quarantine_release(struct vagx_device *vdev);
void vagx_mmu_recover_now(struct vagx_device *vdev);
void vagx_mmu_quarantine_reset_done(struct vagx_device *vdev);
void vagx_mmu_quarantine_work(struct work_struct *work);
void vagx_mmu_fault_irq(struct vagx_device *vdev);
void vagx_mmu_debugfs_show(struct vagx_device *vdev, struct seq_file *m);

#endif /* __VAGX_MMU_H__ */
