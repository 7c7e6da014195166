// SPDX-License-Identifier: MIT
// The generated header must build and behave as C++17 (Mesa's C++ code and
// the renderer's tools include it).  Uses the vagx_pack() convenience macro.
#include "vagx_hw.h"
#include "vagx_pt.h"
#include <cstdio>
#include <cstring>

int main()
{
	uint32_t dw[VAGX_TEXTURE_DWORDS];
	vagx_pack(dw, texture, cfg) {
		cfg.format = VAGX_FORMAT_RGBA8_UNORM;
		cfg.dimension = VAGX_DIMENSION_2D;
		cfg.layout = VAGX_IMAGE_LAYOUT_TWIDDLED;
		cfg.width = 256;
		cfg.height = 128;
		cfg.depth = 1;
		cfg.levels = 9;
		cfg.max_level = 8;
		cfg.swizzle_g = VAGX_SWIZZLE_G;
		cfg.swizzle_b = VAGX_SWIZZLE_B;
		cfg.swizzle_a = VAGX_SWIZZLE_A;
		cfg.base_va = 0x100000;
	}
	struct vagx_texture t;
	const char *err = nullptr;
	if (!vagx_texture_unpack(dw, &t, &err)) {
		std::fprintf(stderr, "unpack failed: %s\n", err);
		return 1;
	}
	if (t.width != 256 || t.levels != 9 || t.format != VAGX_FORMAT_RGBA8_UNORM) {
		std::fprintf(stderr, "round trip mismatch\n");
		return 1;
	}
	if (vagx_format_bytes_per_block(t.format) != 4)
		return 1;
	struct vagx_cmd_viewport vp;
	vagx_cmd_viewport_init(&vp);
	vp.scale_x = 0.5f;
	uint32_t vw[VAGX_CMD_VIEWPORT_DWORDS];
	vagx_cmd_viewport_pack(vw, &vp);
	struct vagx_cmd_viewport vp2;
	if (!vagx_cmd_viewport_unpack(vw, &vp2, nullptr) || vp2.scale_x != 0.5f)
		return 1;
	/* the page-table library builds as C++ too */
	struct vagx_pte pte;
	if (!vagx_pte_decode(vagx_pte_page(0x5000, true, false), &pte) || pte.addr != 0x5000 ||
	    !pte.read_only || vagx_pt_entry_span(VAGX_PT_LEVELS - 1) != VAGX_PAGE_SIZE)
		return 1;
	vagx_texture_print(vagx_print_file, stdout, &t, 0);
	std::printf("C++17 OK\n");
	return 0;
}
