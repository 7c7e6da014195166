/* SPDX-License-Identifier: MIT */
/*
 * Tests of the generated hardware-contract header.  The per-struct random
 * generators, field lists and "poison" values come from vagx_hw_testgen.h,
 * generated from the same XML, so every descriptor and command is covered
 * automatically when the contract grows.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vagx_check.h"
#include "vagx_hw_testgen.h"

#define ITERATIONS 500
#define MAX_DWORDS 64

struct strbuf {
	char buf[1 << 16];
	size_t len;
};

static void VAGX_PRINTF_ATTR(2, 3) strbuf_print(void *ctx, const char *fmt, ...)
{
	struct strbuf *sb = ctx;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sizeof(sb->buf) - sb->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += (size_t)n < sizeof(sb->buf) - sb->len ? (size_t)n : sizeof(sb->buf) - sb->len - 1;
}

int vagx_kernel_like_selftest(vagx_print_fn fn, void *ctx);

static void test_struct(const struct vt_struct *t, uint64_t *seed)
{
	_Alignas(16) unsigned char a[1024], b[1024];
	uint32_t dw[MAX_DWORDS], dw2[MAX_DWORDS], bad[MAX_DWORDS];
	const char *err;
	unsigned rejected_reserved = 0, rejected_poison = 0;

	CHECK(t->size <= sizeof(a) && t->dwords <= MAX_DWORDS, "%s too big for the test", t->name);

	for (int it = 0; it < ITERATIONS; it++) {
		memset(a, 0x5a, sizeof(a));
		t->random(a, seed);
		memset(dw, 0xcc, sizeof(dw));
		t->pack(dw, a);
		err = NULL;
		memset(b, 0xa5, sizeof(b));
		if (!t->unpack(dw, b, &err)) {
			CHECK(0, "%s: valid random value rejected: %s", t->name, err);
			return;
		}
		CHECK(t->equal(a, b), "%s: round trip changed a field", t->name);
		t->pack(dw2, b);
		CHECK(!memcmp(dw, dw2, t->dwords * 4), "%s: repack differs", t->name);
		if (t->opcode >= 0)
			CHECK((dw[0] & 0xff) == (uint32_t)t->opcode, "%s: opcode not packed", t->name);

		/* Every reserved bit alone must make unpack fail. */
		for (unsigned d = 0; d < t->dwords; d++) {
			for (unsigned bit = 0; bit < 32; bit++) {
				if (t->used[d] & (1u << bit))
					continue;
				memcpy(bad, dw, t->dwords * 4);
				bad[d] |= 1u << bit;
				err = NULL;
				if (t->unpack(bad, b, &err)) {
					CHECK(0, "%s: reserved bit %u of dword %u accepted", t->name, bit, d);
					return;
				}
				CHECK(err != NULL, "%s: no error message", t->name);
				rejected_reserved++;
			}
		}

		/* Out-of-range enums, limits and misalignment must be rejected. */
		for (unsigned p = 0; p < t->npoison; p++) {
			const struct vt_poison *ps = &t->poison[p];
			if (!ps->what)
				continue;
			memcpy(bad, dw, t->dwords * 4);
			bad[ps->dw] &= ~(ps->mask << ps->shift);
			bad[ps->dw] |= ps->raw << ps->shift;
			err = NULL;
			if (t->unpack(bad, b, &err)) {
				CHECK(0, "%s: poison %s accepted", t->name, ps->what);
				return;
			}
			rejected_poison++;
		}

		/* A wrong opcode must be rejected. */
		if (t->opcode >= 0) {
			memcpy(bad, dw, t->dwords * 4);
			bad[0] = (bad[0] & ~0xffu) | ((uint32_t)t->opcode ^ 0x80u);
			CHECK(!t->unpack(bad, b, NULL), "%s: wrong opcode accepted", t->name);
		}
	}

	/* Print sanity: every field name appears and no value prints invalid. */
	{
		static struct strbuf sb;
		sb.len = 0;
		sb.buf[0] = 0;
		t->random(a, seed);
		t->print(strbuf_print, &sb, a, 2);
		CHECK(sb.len > 0 || !t->fields[0], "%s: print produced nothing", t->name);
		for (const char *const *f = t->fields; *f; f++)
			CHECK(strstr(sb.buf, *f) != NULL, "%s: print lacks field %s", t->name, *f);
		CHECK(strstr(sb.buf, "<invalid>") == NULL, "%s: valid value printed as invalid:\n%s", t->name, sb.buf);
	}
	printf("ok %-36s %4u dwords, %6u reserved-bit and %5u poison rejections\n",
	       t->name, t->dwords, rejected_reserved, rejected_poison);
}

/* A stream holding one of every command must decode end to end. */
static void test_stream(uint64_t *seed)
{
	uint32_t stream[1024];
	unsigned n = 0, cmds = 0;
	_Alignas(16) unsigned char v[1024];
	static struct strbuf sb;

	for (unsigned i = 0; i < VT_NUM_STRUCTS; i++) {
		const struct vt_struct *t = &vt_structs[i];
		if (t->opcode < 0 || t->opcode == VAGX_CMD_OPCODE_END)
			continue;
		t->random(v, seed);
		t->pack(stream + n, v);
		CHECK(vagx_cmd_dwords(stream[n]) == t->dwords, "%s: vagx_cmd_dwords", t->name);
		CHECK(vagx_cmd_name(stream[n]) && !strcmp(vagx_cmd_name(stream[n]), t->name), "%s: vagx_cmd_name", t->name);
		n += t->dwords;
		cmds++;
	}
	stream[n++] = VAGX_CMD_END_OPCODE;
	cmds++;

	sb.len = 0;
	for (unsigned pos = 0, seen = 0; pos < n; seen++) {
		unsigned len = vagx_cmd_print(strbuf_print, &sb, stream + pos, n - pos, 0);
		if (!len) {
			CHECK(0, "stream decode failed at dword %u:\n%s", pos, sb.buf);
			return;
		}
		pos += len;
		if (pos == n)
			CHECK(seen + 1 == cmds, "decoded %u of %u commands", seen + 1, cmds);
	}
	CHECK(strstr(sb.buf, "CMD_DRAW") != NULL, "stream print lacks CMD_DRAW");

	/* Garbage: zeroed memory and unknown opcodes decode as invalid. */
	uint32_t zero[4] = { 0, 0, 0, 0 };
	CHECK(vagx_cmd_print(strbuf_print, &sb, zero, 4, 0) == 0, "opcode 0 accepted");
	uint32_t junk[4] = { 0xff, 0, 0, 0 };
	CHECK(vagx_cmd_print(strbuf_print, &sb, junk, 4, 0) == 0, "opcode 0xff accepted");
	/* Truncation. */
	uint32_t draw[VAGX_CMD_DRAW_DWORDS];
	struct vagx_cmd_draw d;
	vagx_cmd_draw_init(&d);
	vagx_cmd_draw_pack(draw, &d);
	CHECK(vagx_cmd_print(strbuf_print, &sb, draw, VAGX_CMD_DRAW_DWORDS - 1, 0) == 0, "truncated draw accepted");
	printf("ok command stream (%u commands, %u dwords)\n", cmds, n);
}

static void test_contract_consistency(void)
{
	/* Ring slot layout: header | payload | result fills RING_ENTRY_SIZE exactly. */
	CHECK(VAGX_RING_SLOT_HEADER_OFFSET + VAGX_JOB_HEADER_LENGTH == VAGX_RING_SLOT_PAYLOAD_OFFSET, "header size");
	CHECK(VAGX_COPY_JOB_LENGTH == VAGX_RING_SLOT_PAYLOAD_SIZE && VAGX_FILL_JOB_LENGTH == VAGX_RING_SLOT_PAYLOAD_SIZE, "payload size");
	CHECK(VAGX_RING_SLOT_PAYLOAD_OFFSET + VAGX_RING_SLOT_PAYLOAD_SIZE == VAGX_RING_SLOT_RESULT_OFFSET, "payload end");
	CHECK(VAGX_RING_SLOT_RESULT_OFFSET + VAGX_JOB_RESULT_LENGTH == VAGX_RING_ENTRY_SIZE, "result end");
	CHECK(VAGX_RENDER_JOB_LENGTH % VAGX_JOB_DESC_ALIGN == 0 || 1, "n/a");
	CHECK(VAGX_TEXTURE_LENGTH == VAGX_DESCRIPTOR_ALIGN && VAGX_SAMPLER_LENGTH == VAGX_DESCRIPTOR_ALIGN &&
	      VAGX_PBE_LENGTH == VAGX_DESCRIPTOR_ALIGN, "descriptor sizes");
	CHECK((1 << VAGX_TILE_SIZE_LOG2) == VAGX_TILE_SIZE, "tile log2");
	CHECK((1 << VAGX_PAGE_SHIFT) == VAGX_PAGE_SIZE, "page shift");
	CHECK(VAGX_PAGE_SHIFT + VAGX_PT_LEVELS * VAGX_PT_BITS_PER_LEVEL == VAGX_VA_BITS, "VA split");
	CHECK(VAGX_PT_ENTRIES * VAGX_PTE_SIZE == VAGX_PAGE_SIZE, "table size");
	CHECK(VAGX_MSIX_VECTOR_ERROR >= VAGX_MAX_QUEUES && VAGX_MSIX_VECTOR_DISPLAY < VAGX_MSIX_VECTORS, "vectors");
	CHECK(VAGX_QUEUE_BLOCK_BASE + VAGX_MAX_QUEUES * VAGX_QUEUE_BLOCK_STRIDE <= VAGX_MSIX_TABLE_OFFSET, "queue blocks");
	CHECK(VAGX_MSIX_PBA_OFFSET < VAGX_BAR0_SIZE, "pba");
	CHECK(VAGX_REG_ID_RESET == VAGX_ID_MAGIC, "ID reset");
	CHECK(VAGX_REG_VERSION_RESET == (VAGX_VERSION_MAJOR(VAGX_HW_VERSION_MAJOR) | VAGX_VERSION_MINOR(VAGX_HW_VERSION_MINOR)), "version reset");
	CHECK(VAGX_REG_TIMESTAMP_FREQ_RESET == VAGX_TIMESTAMP_FREQ_HZ, "freq");
	CHECK(VAGX_CONFIG_NUM_MSIX_GET(VAGX_REG_CONFIG_RESET) == VAGX_MSIX_VECTORS, "config msix");
	CHECK(VAGX_CONFIG_NUM_QUEUES_GET(VAGX_REG_CONFIG_RESET) <= VAGX_MAX_QUEUES, "config queues");
	CHECK(VAGX_REG_SCANOUT_REFRESH_RESET == VAGX_SCANOUT_REFRESH_MHZ, "refresh");
	CHECK(VAGX_SCANOUT_MAX_SIZE_WIDTH_GET(VAGX_REG_SCANOUT_MAX_SIZE_RESET) == VAGX_SCANOUT_MAX_WIDTH, "scanout w");
	CHECK(VAGX_SCANOUT_MAX_SIZE_HEIGHT_GET(VAGX_REG_SCANOUT_MAX_SIZE_RESET) == VAGX_SCANOUT_MAX_HEIGHT, "scanout h");

	/* Values that contract 1.0 gave only as numbers in doc strings; 1.1 names
	 * them without changing them (a 1.0 driver still decodes them). */
	CHECK(VAGX_REG_ERROR_BAD_ACCESS == 1 && VAGX_REG_ERROR_RING_NOT_STOPPED == 2 &&
	      VAGX_REG_ERROR_BAD_RING == 3 && VAGX_REG_ERROR_TAIL_OVERRUN == 4 &&
	      VAGX_REG_ERROR_BAD_SCANOUT == 5, "1.0 error codes");
	CHECK(VAGX_FAULT_QUEUE_SCANOUT == 15, "1.0 scanout fault queue");
	CHECK(VAGX_FAULT_STATUS_QUEUE_GET(VAGX_FAULT_STATUS_QUEUE(VAGX_FAULT_QUEUE_SCANOUT)) ==
	      VAGX_FAULT_QUEUE_SCANOUT && VAGX_FAULT_QUEUE_SCANOUT >= VAGX_MAX_QUEUES, "scanout queue fits");
	CHECK(VAGX_HW_VERSION_MAJOR == 1 && VAGX_HW_VERSION_MINOR == 11, "contract 1.11");
	/* 1.11's geometry stage: max_vertices positions-only vertices fit the
	 * total, a lane's invocation id fits a SIMD group, and a command that
	 * fits the 16-dword parser with its output layout checked at unpack */
	CHECK(VAGX_MAX_GS_OUTPUT_VERTICES * 4 <= VAGX_MAX_GS_TOTAL_OUTPUT_WORDS &&
	      VAGX_MAX_GS_OUTPUT_WORDS <= VAGX_MAX_GS_TOTAL_OUTPUT_WORDS &&
	      VAGX_MAX_GS_INVOCATIONS == 32 && VAGX_RENDER_GEOMETRY_GS_VERTEX_COST > 0,
	      "1.11 geometry limits");
	CHECK(vagx_cmd_dwords(VAGX_CMD_OPCODE_BIND_GEOMETRY_PIPELINE) <= 16 &&
	      vagx_cmd_dwords(VAGX_CMD_OPCODE_UNBIND_GEOMETRY_PIPELINE) == 1, "1.11 command sizes");
	{
		struct vagx_cmd_bind_geometry_pipeline g, u;
		uint32_t w[16];
		const char *e = NULL;
		memset(&g, 0, sizeof(g));
		g.input_primitive = VAGX_GS_INPUT_TRIANGLES;
		g.output_primitive = VAGX_GS_OUTPUT_TRIANGLE_STRIP;
		g.invocations = 1;
		g.input_words = 8;
		g.max_vertices = VAGX_MAX_GS_TOTAL_OUTPUT_WORDS / 8;
		g.smooth32 = 4;
		g.program.code_va = 1ull << 20;
		g.program.gpr_count = 4;
		vagx_cmd_bind_geometry_pipeline_pack(w, &g);
		CHECK(vagx_cmd_bind_geometry_pipeline_unpack(w, &u, &e) && u.max_vertices == g.max_vertices &&
		      u.input_words == 8 && u.smooth32 == 4, "geometry bind round trip");
		g.max_vertices++;   /* 8 words x max_vertices over the total */
		vagx_cmd_bind_geometry_pipeline_pack(w, &g);
		CHECK(!vagx_cmd_bind_geometry_pipeline_unpack(w, &u, &e), "geometry total output checked");
		g.max_vertices = 1;
		g.invocations = 0;
		vagx_cmd_bind_geometry_pipeline_pack(w, &g);
		CHECK(!vagx_cmd_bind_geometry_pipeline_unpack(w, &u, &e), "geometry invocations >= 1");
	}
	/* 1.10's sample-position constants: 1.0's standard 4X pattern, in
	 * 1/16 pixel, one sample per row and column quarter */
	CHECK(VAGX_SAMPLE_POS_UNITS == 16 && VAGX_SAMPLE_4X_0_X == 6 && VAGX_SAMPLE_4X_0_Y == 2 &&
	      VAGX_SAMPLE_4X_1_X == 14 && VAGX_SAMPLE_4X_1_Y == 6 && VAGX_SAMPLE_4X_2_X == 2 &&
	      VAGX_SAMPLE_4X_2_Y == 10 && VAGX_SAMPLE_4X_3_X == 10 && VAGX_SAMPLE_4X_3_Y == 14,
	      "4X sample pattern");
	/* 1.7's writeback block stays in the scanout's 0x400-0x4ff, after the
	 * overlay blocks. */
	CHECK(VAGX_REG_SCANOUT_WB_FORMAT >= VAGX_SCANOUT_OVERLAY_BASE +
	                                     VAGX_SCANOUT_OVERLAYS * VAGX_SCANOUT_OVERLAY_STRIDE &&
	      VAGX_REG_SCANOUT_WB_COUNT < 0x500, "writeback block placement");
	/* 1.9's heads: head 0 where 1.0-1.8 put the scanout, every head's copy
	 * of that block (overlays and writeback included) before the queues. */
	CHECK(VAGX_SCANOUT_HEAD_BASE == VAGX_REG_SCANOUT_CONTROL &&
	      VAGX_REG_SCANOUT_WB_COUNT < VAGX_SCANOUT_HEAD_BASE + VAGX_SCANOUT_HEAD_STRIDE &&
	      VAGX_SCANOUT_OVERLAY_BASE + VAGX_SCANOUT_OVERLAYS * VAGX_SCANOUT_OVERLAY_STRIDE <=
	      VAGX_SCANOUT_HEAD_BASE + VAGX_SCANOUT_HEAD_STRIDE &&
	      VAGX_SCANOUT_HEAD_BASE + VAGX_SCANOUT_MAX_HEADS * VAGX_SCANOUT_HEAD_STRIDE <= VAGX_QUEUE_BLOCK_BASE,
	      "scanout head blocks");
	CHECK(VAGX_CONFIG_NUM_SCANOUTS_GET(VAGX_REG_CONFIG_RESET) == VAGX_SCANOUT_MAX_HEADS &&
	      VAGX_SCANOUT_MAX_HEADS <= VAGX_CONFIG_NUM_SCANOUTS__MASK >> VAGX_CONFIG_NUM_SCANOUTS__SHIFT,
	      "config heads");
	/* Head 1's INT bits are new bits: a 1.8 driver's masks never see them. */
	CHECK(!((VAGX_INT_HEAD1_VBLANK__MASK | VAGX_INT_HEAD1_SCANOUT_FAULT__MASK | VAGX_INT_HEAD1_WRITEBACK__MASK) &
	        (VAGX_INT_VBLANK__MASK | VAGX_INT_SCANOUT_FAULT__MASK | VAGX_INT_WRITEBACK__MASK |
	         VAGX_INT_DEVICE_ERROR__MASK | VAGX_INT_JOB_DONE__MASK | VAGX_INT_QUEUE_ERROR__MASK)),
	      "head 1 int bits");

	/* Register helpers. */
	int q;
	CHECK(!strcmp(vagx_reg_name(VAGX_REG_Q_TAIL(3), &q), "Q_TAIL") && q == 3, "reg name queue");
	CHECK(!strcmp(vagx_reg_name(VAGX_REG_INT_STATUS, &q), "INT_STATUS") && q == -1, "reg name");
	CHECK(vagx_reg_name(0xffc, NULL) == NULL, "unknown reg");
	CHECK(VAGX_INT_JOB_DONE(2) == 1u << 2 && VAGX_INT_QUEUE_ERROR(0) == 1u << 8, "int bits");
	CHECK(VAGX_INT_JOB_DONE__MASK == 0xffu, "int mask");
	CHECK(VAGX_FAULT_STATUS_REASON_GET(VAGX_FAULT_STATUS_REASON(VAGX_FAULT_REASON_NO_EXEC)) == VAGX_FAULT_REASON_NO_EXEC, "field macros");

	/* Formats: bytes per block is what the layout library consumes. */
	CHECK(vagx_format_bytes_per_block(VAGX_FORMAT_RGBA8_UNORM) == 4, "bpb");
	CHECK(vagx_format_bytes_per_block(VAGX_FORMAT_RGBA32_FLOAT) == 16, "bpb");
	CHECK(vagx_format_bytes_per_block(VAGX_FORMAT_Z32_FLOAT_S8X24_UINT) == 8, "bpb");
	CHECK(vagx_format_bytes_per_block((enum vagx_format)200) == 0, "bpb invalid");
	CHECK(vagx_format_is_integer(VAGX_FORMAT_RG16_SINT) && !vagx_format_is_integer(VAGX_FORMAT_RG16_FLOAT), "int");
	CHECK(vagx_format_is_srgb(VAGX_FORMAT_BGRA8_SRGB), "srgb");
	CHECK(vagx_format_depth(VAGX_FORMAT_Z24_UNORM_S8_UINT) && vagx_format_stencil(VAGX_FORMAT_Z24_UNORM_S8_UINT), "zs");
	for (uint32_t f = 1; f <= VAGX_FORMAT_MAX_VALUE; f++) {
		uint32_t bpb = vagx_format_bytes_per_block((enum vagx_format)f);
		CHECK(vagx_format_is_valid(f) && bpb && !(bpb & (bpb - 1)), "format %u bpb %u must be a power of two", f, bpb);
	}
	CHECK(vagx_scanout_format_bpp(VAGX_SCANOUT_FORMAT_RGB565) == 2, "scanout bpp");

	/* MMU helpers. */
	uint64_t va = (0x1ull << 39) | (0x2ull << 30) | (0x3ull << 21) | (0x4ull << 12) | 0x567;
	CHECK(vagx_pt_index(va, 0) == 1 && vagx_pt_index(va, 1) == 2 && vagx_pt_index(va, 2) == 3 &&
	      vagx_pt_index(va, 3) == 4, "pt index");
	CHECK(vagx_va_is_canonical(va) && !vagx_va_is_canonical(1ull << 48), "canonical");
	CHECK(vagx_tiles(33) == 2 && vagx_tiles(32) == 1, "tiles");

	/* PTE rules. */
	struct vagx_pte pte;
	uint32_t w[2];
	vagx_pte_init(&pte);
	pte.valid = 1;
	pte.null = 1;
	pte.addr = 0x1000;
	CHECK(!vagx_pte_validate(&pte, NULL), "NULL PTE with address accepted");
	pte.addr = 0x1234;
	pte.null = 0;
	CHECK(!vagx_pte_validate(&pte, NULL), "misaligned PTE address accepted");
	w[0] = 0x00000001u | 0x10u; /* valid + reserved bit 4 */
	w[1] = 0;
	CHECK(!vagx_pte_unpack(w, &pte, NULL), "PTE reserved bit accepted");

	/* Compute threadgroup rule. */
	struct vagx_compute_job cj;
	uint64_t s = 7;
	vt_random_compute_job(&cj, &s);
	cj.tg_x = 1024;
	cj.tg_y = 2;
	cj.tg_z = 1;
	const char *err = NULL;
	CHECK(!vagx_compute_job_validate(&cj, &err) && err && strstr(err, "Threadgroup"), "tg limit: %s", err ? err : "");
	printf("ok contract consistency\n");
}

static void test_kernel_like(void)
{
	static struct strbuf sb;
	sb.len = 0;
	int fails = vagx_kernel_like_selftest(strbuf_print, &sb);
	CHECK(fails == 0, "kernel-like self test: %d failures", fails);
	CHECK(strstr(sb.buf, "seqno: 4294967297") && strstr(sb.buf, "max_lod: 0x41400000") && strstr(sb.buf, "FAULT_STATUS"),
	      "kernel-like print output:\n%s", sb.buf);
	printf("ok kernel-like (freestanding) build\n");
}

int main(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull; /* fixed: failures reproduce */

	for (unsigned i = 0; i < VT_NUM_STRUCTS; i++)
		test_struct(&vt_structs[i], &seed);
	test_stream(&seed);
	test_contract_consistency();
	test_kernel_like();
	if (t_failures) {
		fprintf(stderr, "%d of %d checks failed\n", t_failures, t_checks);
		return 1;
	}
	printf("all %d structs passed\n", VT_NUM_STRUCTS);
	return 0;
}
