/* SPDX-License-Identifier: MIT */
/*
 * Built freestanding with -D__KERNEL__ -nostdinc and the shim linux/types.h and linux/bits.h
 * (and -mgeneral-regs-only where supported, so any float use would fail to
 * compile), exactly how vagx.ko sees the header.  It exercises the paths the
 * kernel uses: ring-slot packing, result/PTE decoding, register macros and
 * printing through a caller-supplied callback.  The page-table library
 * (vagx_pt.h) is included the same way, so it stays freestanding.
 */
#include "vagx_hw.h"
#include "vagx_pt.h"

int vagx_kernel_like_selftest(vagx_print_fn fn, void *ctx);

int vagx_kernel_like_selftest(vagx_print_fn fn, void *ctx)
{
	uint32_t slot[VAGX_RING_ENTRY_SIZE / 4];
	struct vagx_job_header h, h2;
	struct vagx_fill_job fill, fill2;
	struct vagx_pte pte, pte2;
	struct vagx_sampler smp, smp2;
	const char *err = NULL;
	int fails = 0;
	unsigned i;

	for (i = 0; i < VAGX_RING_ENTRY_SIZE / 4; i++)
		slot[i] = 0;

	vagx_job_header_init(&h);
	h.type = VAGX_JOB_TYPE_FILL;
	h.irq = true;
	h.irq_vector = VAGX_MSIX_VECTOR_QUEUE0 + 1;
	h.pt_root = 0x12345000ull;
	h.completion_pa = 0x1000;
	h.seqno = 0x100000001ull;
	vagx_job_header_pack(slot + VAGX_RING_SLOT_HEADER_OFFSET / 4, &h);

	vagx_fill_job_init(&fill);
	fill.dst_va = 0x40000;
	fill.size = 4096;
	fill.pattern = 0xdeadbeef;
	vagx_fill_job_pack(slot + VAGX_RING_SLOT_PAYLOAD_OFFSET / 4, &fill);

	if (!vagx_job_header_unpack(slot, &h2, &err) || h2.seqno != h.seqno || h2.pt_root != h.pt_root)
		fails++;
	if (!vagx_fill_job_unpack(slot + VAGX_RING_SLOT_PAYLOAD_OFFSET / 4, &fill2, &err) ||
	    fill2.pattern != fill.pattern)
		fails++;

	vagx_pte_init(&pte);
	pte.valid = true;
	pte.addr = 0xabcdef000ull;
	{
		uint32_t w[2];
		vagx_pte_pack(w, &pte);
		if (!vagx_pte_unpack(w, &pte2, &err) || pte2.addr != pte.addr)
			fails++;
	}

	/* Floats travel as raw bits in the kernel. */
	vagx_sampler_init(&smp);
	smp.max_lod = 0x41400000u; /* 12.0f */
	{
		uint32_t w[VAGX_SAMPLER_DWORDS];
		vagx_sampler_pack(w, &smp);
		if (!vagx_sampler_unpack(w, &smp2, &err) || smp2.max_lod != smp.max_lod)
			fails++;
	}

	if (VAGX_Q_STATUS_STATE_GET(VAGX_Q_STATUS_STATE(VAGX_QUEUE_STATE_HALTED)) != VAGX_QUEUE_STATE_HALTED)
		fails++;
	if (VAGX_REG_Q_DOORBELL(2) != VAGX_QUEUE_REG(2, VAGX_Q_DOORBELL))
		fails++;
	if (!(VAGX_INT_JOB_DONE(3) & VAGX_INT_JOB_DONE__MASK))
		fails++;

	vagx_job_header_print(fn, ctx, &h2, 0);
	vagx_sampler_print(fn, ctx, &smp2, 0);
	fn(ctx, "%s\n", vagx_hw_str(vagx_reg_name(VAGX_REG_FAULT_STATUS, NULL)));
	return fails;
}
