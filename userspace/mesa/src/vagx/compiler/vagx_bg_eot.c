/* SPDX-License-Identifier: MIT */
/* Background (clear/load) and end-of-tile (store) programs, per framebuffer
 * key, built directly in vagx IR. */
#include <string.h>
#include "vagx_hw.h"
#include "vagx_ir.h"
#include "util/format/u_format.h"

unsigned
vagx_format_from_pipe(enum pipe_format f)
{
   switch (f) {
#define F(p, v) case PIPE_FORMAT_##p: return VAGX_FORMAT_##v;
   F(R8_UNORM, R8_UNORM) F(R8_SNORM, R8_SNORM) F(R8_UINT, R8_UINT) F(R8_SINT, R8_SINT)
   F(R8G8_UNORM, RG8_UNORM) F(R8G8_SNORM, RG8_SNORM) F(R8G8_UINT, RG8_UINT) F(R8G8_SINT, RG8_SINT)
   F(R8G8B8A8_UNORM, RGBA8_UNORM) F(R8G8B8X8_UNORM, RGBA8_UNORM)
   F(R8G8B8A8_SNORM, RGBA8_SNORM) F(R8G8B8A8_UINT, RGBA8_UINT) F(R8G8B8A8_SINT, RGBA8_SINT)
   F(R8G8B8A8_SRGB, RGBA8_SRGB) F(R8G8B8X8_SRGB, RGBA8_SRGB)
   F(B8G8R8A8_UNORM, BGRA8_UNORM) F(B8G8R8X8_UNORM, BGRA8_UNORM)
   F(B8G8R8A8_SRGB, BGRA8_SRGB) F(B8G8R8X8_SRGB, BGRA8_SRGB)
   F(B5G6R5_UNORM, RGB565_UNORM)
   F(R10G10B10A2_UNORM, RGB10A2_UNORM) F(R10G10B10A2_UINT, RGB10A2_UINT)
   F(R11G11B10_FLOAT, R11G11B10_FLOAT) F(R9G9B9E5_FLOAT, RGB9E5_FLOAT)
   F(R16_UNORM, R16_UNORM) F(R16_SNORM, R16_SNORM) F(R16_UINT, R16_UINT) F(R16_SINT, R16_SINT)
   F(R16_FLOAT, R16_FLOAT)
   F(R16G16_UNORM, RG16_UNORM) F(R16G16_SNORM, RG16_SNORM) F(R16G16_UINT, RG16_UINT)
   F(R16G16_SINT, RG16_SINT) F(R16G16_FLOAT, RG16_FLOAT)
   F(R16G16B16A16_UNORM, RGBA16_UNORM) F(R16G16B16A16_SNORM, RGBA16_SNORM)
   F(R16G16B16A16_UINT, RGBA16_UINT) F(R16G16B16A16_SINT, RGBA16_SINT)
   F(R16G16B16A16_FLOAT, RGBA16_FLOAT) F(R16G16B16X16_FLOAT, RGBA16_FLOAT)
   F(R32_UINT, R32_UINT) F(R32_SINT, R32_SINT) F(R32_FLOAT, R32_FLOAT)
   F(R32G32_UINT, RG32_UINT) F(R32G32_SINT, RG32_SINT) F(R32G32_FLOAT, RG32_FLOAT)
   F(R32G32B32A32_UINT, RGBA32_UINT) F(R32G32B32A32_SINT, RGBA32_SINT)
   F(R32G32B32A32_FLOAT, RGBA32_FLOAT)
   F(Z16_UNORM, Z16_UNORM) F(Z24_UNORM_S8_UINT, Z24_UNORM_S8_UINT) F(Z24X8_UNORM, Z24_UNORM_S8_UINT)
   F(Z32_FLOAT, Z32_FLOAT) F(S8_UINT, S8_UINT) F(Z32_FLOAT_S8X24_UINT, Z32_FLOAT_S8X24_UINT)
#undef F
   default:
      return VAGX_FORMAT_INVALID;
   }
}

/* The frame both programs share: an empty fragment program ... */
static unsigned
bg_eot_begin(vagx_ir *ir, const struct vagx_bg_eot_key *key, struct vagx_shader_info *info)
{
   memset(info, 0, sizeof(*info));
   info->stage = MESA_SHADER_FRAGMENT;
   vagx_ir_init(ir, info, MESA_SHADER_FRAGMENT);
   return key->samples == 4 ? 4 : 1;
}

/* ... the pixel's (x, y) in the render target, for image fetches and
 * stores ... */
static uint32_t
bg_eot_pixel_coord(vagx_ir *ir)
{
   uint32_t coord = vagx_ir_new_vreg(ir, 2);
   vagx_ir_emit(ir, VAGX_OP_MOV, coord, 0, ir_file(IR_SR, VAGX_SR_PIX_X), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_MOV, coord, 1, ir_file(IR_SR, VAGX_SR_PIX_Y), ir_none(), ir_none());
   return coord;
}

/* ... and its END, register allocation and encoding. */
static bool
bg_eot_end(vagx_ir *ir)
{
   vagx_ir_emit(ir, VAGX_OP_END, -1, 0, ir_none(), ir_none(), ir_none());
   bool ok = vagx_ir_finish(ir);
   vagx_ir_fini(ir);
   return ok;
}

bool
vagx_compile_bg(const struct vagx_bg_eot_key *key, struct vagx_shader_info *info)
{
   vagx_ir ir;
   const unsigned samples = bg_eot_begin(&ir, key, info);
   for (unsigned rt = 0; rt < key->nr_cbufs; rt++) {
      if (key->op[rt] == VAGX_BG_CLEAR) {
         uint32_t v = vagx_ir_new_vreg(&ir, 4);
         for (unsigned c = 0; c < 4; c++)
            vagx_ir_emit(&ir, VAGX_OP_MOV, v, c,
                         ir_file(IR_U, vagx_push_word(info, VAGX_PUSH_CLEAR, rt * 4 + c)),
                         ir_none(), ir_none());
         /* every sample of the tile buffer (st_tile names one) */
         for (unsigned s = 0; s < samples; s++) {
            vagx_ir_instr *I = vagx_ir_emit(&ir, VAGX_OP_ST_TILE, -1, 0, ir_vreg(v, 0),
                                            ir_imm(s), ir_none());
            I->mod = rt;
         }
      } else if (key->op[rt] == VAGX_BG_LOAD) {
         /* texture rt = the render target's current contents; a 4X image
          * is fetched per sample (2dms: src1 = sample index) */
         uint32_t coord = bg_eot_pixel_coord(&ir);
         for (unsigned s = 0; s < samples; s++) {
            uint32_t v = vagx_ir_new_vreg(&ir, 4);
            vagx_ir_instr *I = vagx_ir_emit(&ir, VAGX_OP_TEX, v, 0, ir_vreg(coord, 0), ir_imm(s),
                                            ir_file(IR_SR, 0));
            I->mod = VAGX_TEXMODE_FETCH;
            I->ext = rt | ((samples > 1 ? VAGX_DIM__2DMS : VAGX_DIM__2D) << 16);
            I = vagx_ir_emit(&ir, VAGX_OP_ST_TILE, -1, 0, ir_vreg(v, 0), ir_imm(s), ir_none());
            I->mod = rt;
         }
         info->texture_count = MAX2(info->texture_count, rt + 1);
      }
   }
   return bg_eot_end(&ir);
}

bool
vagx_compile_eot(const struct vagx_bg_eot_key *key, struct vagx_shader_info *info)
{
   vagx_ir ir;
   const unsigned samples = bg_eot_begin(&ir, key, info);
   uint32_t coord = bg_eot_pixel_coord(&ir);
   for (unsigned rt = 0; rt < key->nr_cbufs; rt++) {
      if (!key->op[rt])
         continue;
      /* a 4X image (PBE samples 4X) gets every sample at its index */
      for (unsigned s = 0; s < samples; s++) {
         uint32_t v = vagx_ir_new_vreg(&ir, 4);
         vagx_ir_instr *I = vagx_ir_emit(&ir, VAGX_OP_LD_TILE, v, 0, ir_imm(s), ir_none(), ir_none());
         I->mod = rt;
         I = vagx_ir_emit(&ir, VAGX_OP_IMG_ST, -1, 0, ir_vreg(coord, 0), ir_vreg(v, 0), ir_imm(s));
         I->ext = rt | (VAGX_DIM__2D << 16);
      }
      info->image_count = MAX2(info->image_count, rt + 1);
   }
   return bg_eot_end(&ir);
}
