/* SPDX-License-Identifier: MIT */
/*
 * NIR -> vagx IR instruction selection, plus the NIR lowering recipe for a
 * scalar SIMD-32 ISA (mesa-anchors §3.4).
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "compiler/nir/nir_builtin_builder.h"
#include "compiler/nir/nir_lower_blend.h"
#include "compiler/glsl_types.h"
#include "util/format/u_format.h"
#include "util/os_time.h"
#include "util/u_debug.h"
#include "util/u_math.h"
#include "vagx_hw.h"
#include "vagx_builder.h"
#include "vagx_compile_priv.h"

static const struct debug_named_value vagx_debug_options[] = {
   { "shaders", VAGX_DBG_SHADERS, "Print shader disassembly" },
   { "shaderdb", VAGX_DBG_SHADERDB, "Print shader-db statistics" },
   { "trace", VAGX_DBG_TRACE, "Decode every submitted job" },
   { "sync", VAGX_DBG_SYNC, "Wait for every submit" },
   { "nir", VAGX_DBG_NIR, "Print final NIR" },
   { "waits", VAGX_DBG_WAITS, "Print every time the CPU waits for a submit still running" },
   { "nouniformcf", VAGX_DBG_NO_UNIFORM_CF, "Compile uniform branches with the mask stack, as divergent ones" },
   { "nosched", VAGX_DBG_NO_SCHED, "Skip the register-pressure scheduler" },
   { "cache", VAGX_DBG_CACHE, "Say whether each shader variant was compiled or loaded from the disk cache" },
   { "twiddled", VAGX_DBG_TWIDDLED, "Keep images the CPU reads back whole again and again twiddled (no move to linear)" },
   DEBUG_NAMED_VALUE_END
};
DEBUG_GET_ONCE_FLAGS_OPTION(vagx_debug, "VAGX_DEBUG", vagx_debug_options, 0)

uint32_t
vagx_debug_flags(void)
{
   return (uint32_t)debug_get_option_vagx_debug();
}

const nir_shader_compiler_options vagx_nir_options = {
   .lower_fdiv = true,
   .lower_flrp32 = true,
   .lower_fpow = true,
   .lower_fmod = true,
   .lower_ldexp = true,
   .lower_bitfield_insert = true,
   .lower_uadd_carry = true,
   .lower_usub_borrow = true,
   .lower_isign = true,
   .lower_fsign = true,
   .lower_scmp = true,
   .lower_fdph = true,
   .lower_fisnormal = true,
   .lower_pack_half_2x16 = true,
   .lower_pack_unorm_2x16 = true,
   .lower_pack_snorm_2x16 = true,
   .lower_pack_unorm_4x8 = true,
   .lower_pack_snorm_4x8 = true,
   .lower_pack_64_2x32 = true,
   .lower_pack_32_2x16 = true,
   .lower_unpack_half_2x16 = true,
   .lower_unpack_unorm_2x16 = true,
   .lower_unpack_snorm_2x16 = true,
   .lower_unpack_unorm_4x8 = true,
   .lower_unpack_snorm_4x8 = true,
   /* the split half-float packs are selected (h2f, f2h + pack16): their
    * lowering makes 16-bit values, which the backend does not have */
   .lower_pack_split = false,
   .lower_extract_byte = true,
   .lower_extract_word = true,
   .lower_insert_byte = true,
   .lower_insert_word = true,
   .lower_hadd = true,
   .lower_mul_2x32_64 = true,
   .lower_fquantize2f16 = true,
   .lower_uniforms_to_ubo = true,
   .has_isub = true,
   .has_bfe = false,
   .discard_is_demote = false,
   .lower_to_scalar = true,
   .lower_int64_options = ~0u,
   .lower_doubles_options = ~0u,
   .max_unroll_iterations = 32,
   .support_indirect_inputs = 0,
   .support_indirect_outputs = 0,
   .lower_all_io_to_temps = true,
   .scalarize_ddx = true,
   .force_indirect_unrolling = nir_var_shader_in | nir_var_shader_out | nir_var_function_temp,
};

static int
type_size_vec4(const struct glsl_type *type, bool bindless)
{
   return glsl_count_attribute_slots(type, false);
}

static void
optimize(nir_shader *nir)
{
   bool progress;
   unsigned iter = 0;
   do {
      progress = false;
      NIR_PASS(progress, nir, nir_lower_vars_to_ssa);
      NIR_PASS(progress, nir, nir_copy_prop);
      NIR_PASS(progress, nir, nir_opt_remove_phis);
      NIR_PASS(progress, nir, nir_lower_alu_to_scalar, NULL, NULL);
      NIR_PASS(progress, nir, nir_lower_phis_to_scalar, true);
      NIR_PASS(progress, nir, nir_opt_dce);
      NIR_PASS(progress, nir, nir_opt_dead_cf);
      NIR_PASS(progress, nir, nir_opt_cse);
      NIR_PASS(progress, nir, nir_opt_peephole_select, 8, true, true);
      NIR_PASS(progress, nir, nir_opt_algebraic);
      NIR_PASS(progress, nir, nir_opt_constant_folding);
      NIR_PASS(progress, nir, nir_opt_undef);
      NIR_PASS(progress, nir, nir_opt_loop_unroll);
   } while (progress && ++iter < 64);
}

/* `tex` has no texel offset operand: the offsets lower_tex_offset leaves
 * (texelFetchOffset, rect and cube lookups) become coordinate adjustments
 * in nir_lower_tex, in texels for fetches and in units of 1/size of the
 * base level for sampling. */
static bool
lower_all_offsets(const nir_instr *instr, const void *data)
{
   return true;
}

/* The level-0 lod of a lookup without an explicit one: 0.5 * log2 of the
 * larger squared texel-space derivative at the base level's size.
 * Implicit: what the texture unit computes (render_tex.c): u and the
 * second coordinate (a 1D array's layer, at scale 1), from the quad's
 * first row / column differences (fddx/fddy.coarse).  textureGrad: what
 * nir_lower_tex's lower_txd will compute into the txl's lod: every
 * gradient component (1 for 1D arrays, 3 for 3D). */
static nir_def *
unit_lod(nir_builder *b, nir_tex_instr *tex, nir_def *coord)
{
   int ddx = nir_tex_instr_src_index(tex, nir_tex_src_ddx);
   int ddy = nir_tex_instr_src_index(tex, nir_tex_src_ddy);
   if (ddx < 0 && b->shader->info.stage != MESA_SHADER_FRAGMENT)
      return nir_imm_float(b, 0); /* lower_invalid_implicit_lod: lod 0 */
   nir_def *size = nir_i2f32(b, nir_get_texture_size(b, tex));
   nir_def *r[2] = { nir_imm_float(b, 0), nir_imm_float(b, 0) };
   unsigned n = ddx >= 0 ? tex->src[ddx].src.ssa->num_components
                         : MIN2(coord->num_components, 2);
   for (unsigned i = 0; i < n; i++) {
      nir_def *d[2];
      if (ddx >= 0) {
         d[0] = nir_channel(b, tex->src[ddx].src.ssa, i);
         d[1] = nir_channel(b, tex->src[ddy].src.ssa, i);
      } else {
         d[0] = nir_ddx_coarse(b, nir_channel(b, coord, i));
         d[1] = nir_ddy_coarse(b, nir_channel(b, coord, i));
      }
      bool layer = tex->is_array && i == coord->num_components - 1;
      for (unsigned k = 0; k < 2; k++) {
         nir_def *t = layer ? d[k] : nir_fmul(b, d[k], nir_channel(b, size, i));
         r[k] = nir_ffma(b, t, t, r[k]);
      }
   }
   return nir_fmul_imm(b, nir_flog2(b, nir_fmax(b, r[0], r[1])), 0.5);
}

/* Texel offsets: `tex` has no offset operand, so the offset becomes a
 * coordinate adjustment of offset / size of the level the texture unit
 * will sample.  That level is computed here as the unit does (GL's
 * nearest level): the lod (explicit, or unit_lod(), plus a txb bias) +
 * the sampler's lod_bias, clamped to [min_lod, max_lod] (uniform words
 * the driver fills from the sampler state, 0 without a mip filter), 0 if
 * <= 0.5, else ceil(lod - 1/2), at most the view's last level.  Exact for
 * NEAREST mip filters; with LINEAR the second level gets the same
 * coordinate.  Runs after projections are divided; what it leaves (cube,
 * rect, fetches) goes to nir_lower_tex's lower_offset (texels for
 * fetches, base-level size otherwise). */
static bool
lower_tex_offset(nir_builder *b, nir_instr *instr, void *data)
{
   if (instr->type != nir_instr_type_tex)
      return false;
   nir_tex_instr *tex = nir_instr_as_tex(instr);
   int off = nir_tex_instr_src_index(tex, nir_tex_src_offset);
   int lod = nir_tex_instr_src_index(tex, nir_tex_src_lod);
   int bias = nir_tex_instr_src_index(tex, nir_tex_src_bias);
   int coord = nir_tex_instr_src_index(tex, nir_tex_src_coord);
   if ((tex->op != nir_texop_tex && tex->op != nir_texop_txb && tex->op != nir_texop_txl &&
        tex->op != nir_texop_txd) ||
       tex->sampler_dim == GLSL_SAMPLER_DIM_RECT || tex->sampler_dim == GLSL_SAMPLER_DIM_CUBE ||
       off < 0 || coord < 0 || nir_tex_instr_src_index(tex, nir_tex_src_projector) >= 0)
      return false;
   b->cursor = nir_before_instr(instr);
   nir_def *c = tex->src[coord].src.ssa;
   nir_def *l = lod >= 0 ? tex->src[lod].src.ssa : unit_lod(b, tex, c);
   if (bias >= 0)
      l = nir_fadd(b, l, tex->src[bias].src.ssa);
   nir_def *levels = nir_build_texture_query(b, tex, nir_texop_query_levels, 1, nir_type_int32,
                                             false, false);
   nir_def *smp = nir_load_sampler_lod_parameters_pan(b, 3, 32, nir_imm_int(b, tex->sampler_index));
   l = nir_fadd(b, l, nir_channel(b, smp, 2));
   l = nir_fmin(b, nir_fmax(b, l, nir_channel(b, smp, 0)), nir_channel(b, smp, 1));
   nir_def *lvl = nir_f2i32(b, nir_fceil(b, nir_fadd_imm(b, l, -0.5)));
   lvl = nir_imin(b, nir_imax(b, lvl, nir_imm_int(b, 0)), nir_iadd_imm(b, levels, -1));
   nir_def *size = nir_build_texture_query(b, tex, nir_texop_txs, nir_tex_instr_dest_size(tex),
                                           nir_type_int32, false, true);
   nir_tex_instr *txs = nir_instr_as_tex(size->parent_instr);
   nir_src_rewrite(&txs->src[nir_tex_instr_src_index(txs, nir_tex_src_lod)].src, lvl);
   nir_def *o = tex->src[off].src.ssa;
   nir_def *comp[4];
   for (unsigned i = 0; i < c->num_components; i++) {
      comp[i] = nir_channel(b, c, i);
      if (i < o->num_components && !(tex->is_array && i == c->num_components - 1))
         comp[i] = nir_fadd(b, comp[i],
                            nir_fdiv(b, nir_i2f32(b, nir_channel(b, o, i)),
                                     nir_i2f32(b, nir_channel(b, size, i))));
   }
   nir_src_rewrite(&tex->src[coord].src, nir_vec(b, comp, c->num_components));
   nir_tex_instr_remove_src(tex, off);
   return true;
}

/* The residency codes of tex.resid / img_ld.resid are 0 (resident) or 1
 * (a texel came from a NULL page; isa.md): a code is resident when 0, and
 * two codes combine by OR (as radv and radeonsi do with theirs). */
static bool
lower_sparse_residency(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   nir_def *r;
   b->cursor = nir_before_instr(&intr->instr);
   switch (intr->intrinsic) {
   case nir_intrinsic_is_sparse_texels_resident:
      r = nir_ieq_imm(b, intr->src[0].ssa, 0);
      break;
   case nir_intrinsic_sparse_residency_code_and:
      r = nir_ior(b, intr->src[0].ssa, intr->src[1].ssa);
      break;
   default:
      return false;
   }
   nir_def_replace(&intr->def, r);
   return true;
}

/* Per-variant fragment lowering for sample shading (GL_ARB_sample_shading).
 * gl_SamplePosition is the contract's 4X pattern at sr.sample_id, (0.5, 0.5)
 * in a single-sampled target.  gl_SampleMask: the device has no sample-mask
 * output (renderer-pipeline.md, contract gaps), so in 4X an invocation
 * whose sample is not in the mask discards, the shader running per sample
 * for it (fs_per_sample), which gives each sample the outcome GL's coverage
 * AND gives it; without multisample buffers GL ignores the mask (the AND
 * is a multisample fragment operation, GL 4.6 17.3.3). */
static bool
lower_sample_io(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   const bool ms = *(const bool *)data;
   b->cursor = nir_before_instr(&intr->instr);
   if (intr->intrinsic == nir_intrinsic_load_sample_pos) {
      nir_def *x = nir_imm_float(b, 0.5f), *y = nir_imm_float(b, 0.5f);
      if (ms) {
         nir_def *id = nir_load_sample_id(b);
         float fx, fy;
         vagx_sample_pos_4x(3, &fx, &fy);
         x = nir_imm_float(b, fx);
         y = nir_imm_float(b, fy);
         for (int s = 2; s >= 0; s--) {
            vagx_sample_pos_4x(s, &fx, &fy);
            nir_def *is = nir_ieq_imm(b, id, s);
            x = nir_bcsel(b, is, nir_imm_float(b, fx), x);
            y = nir_bcsel(b, is, nir_imm_float(b, fy), y);
         }
      }
      nir_def_replace(&intr->def, nir_vec2(b, x, y));
      return true;
   }
   if (intr->intrinsic == nir_intrinsic_store_output &&
       nir_intrinsic_io_semantics(intr).location == FRAG_RESULT_SAMPLE_MASK) {
      if (ms) {
         nir_def *bit = nir_iand_imm(b, nir_ushr(b, intr->src[0].ssa, nir_load_sample_id(b)), 1);
         nir_terminate_if(b, nir_ieq_imm(b, bit, 0));
      }
      nir_instr_remove(&intr->instr);
      return true;
   }
   return false;
}

void
vagx_preprocess_nir(nir_shader *nir)
{
   NIR_PASS(_, nir, nir_lower_global_vars_to_local);
   NIR_PASS(_, nir, nir_split_var_copies);
   NIR_PASS(_, nir, nir_lower_var_copies);
   NIR_PASS(_, nir, nir_lower_vars_to_ssa);
   NIR_PASS(_, nir, nir_lower_indirect_derefs,
            nir_var_function_temp | nir_var_shader_in | nir_var_shader_out, UINT32_MAX);

   if (!nir->info.io_lowered) {
      if (nir->info.stage == MESA_SHADER_FRAGMENT)
         nir_assign_io_var_locations(nir, nir_var_shader_out, &nir->num_outputs,
                                     nir->info.stage);
      NIR_PASS(_, nir, nir_lower_io, nir_var_shader_in | nir_var_shader_out, type_size_vec4,
               nir_lower_io_use_interpolated_input_intrinsics);
      nir->info.io_lowered = true;
   }
   NIR_PASS(_, nir, nir_lower_system_values);

   nir_lower_tex_options tex = {
      .lower_txp = ~0u,
      .lower_rect = false,
      .lower_txd = true,
      .lower_invalid_implicit_lod = true,
      .lower_txf_offset = true,
      .lower_rect_offset = true,
      .lower_offset_filter = lower_all_offsets,
   };
   /* projections first, so that lower_tex_offset adds offsets to the
    * divided coordinates */
   /* textureGatherOffsets: four gathers with one offset each, whose
    * offsets the last pass turns into coordinates like any other */
   nir_lower_tex_options txp = { .lower_txp = ~0u, .lower_tg4_offsets = true };
   NIR_PASS(_, nir, nir_lower_tex, &txp);
   NIR_PASS(_, nir, nir_shader_instructions_pass, lower_tex_offset, nir_metadata_none, NULL);
   NIR_PASS(_, nir, nir_lower_tex, &tex);
   /* after nir_lower_tex, which combines the codes of textureGatherOffsets' gathers */
   NIR_PASS(_, nir, nir_shader_intrinsics_pass, lower_sparse_residency, nir_metadata_control_flow,
            NULL);

   vagx_lower_mem_nir(nir);
   NIR_PASS(_, nir, nir_lower_frexp);
   NIR_PASS(_, nir, nir_lower_flrp, 32, false);
   NIR_PASS(_, nir, nir_lower_int64);
   NIR_PASS(_, nir, nir_lower_alu_to_scalar, NULL, NULL);
   NIR_PASS(_, nir, nir_lower_load_const_to_scalar);
   NIR_PASS(_, nir, nir_lower_phis_to_scalar, true);
   optimize(nir);
   NIR_PASS(_, nir, nir_opt_move, nir_move_load_input | nir_move_const_undef);
}

/* ---------------------------------------------------------------------- */

static bool
emit_alu(struct ctx *c, nir_alu_instr *alu)
{
   vagx_ir *ir = &c->ir;
   nir_def *def = &alu->def;
   unsigned nsrc = nir_op_infos[alu->op].num_inputs;
   vagx_ir_src s[3] = { ir_none(), ir_none(), ir_none() };

   if (alu->op == nir_op_mov || alu->op == nir_op_vec2 || alu->op == nir_op_vec3 ||
       alu->op == nir_op_vec4) {
      for (unsigned i = 0; i < def->num_components; i++) {
         if (alu->op == nir_op_mov)
            set_def(c, def, i, get_src(c, &alu->src[0].src, alu->src[0].swizzle[i]));
         else
            set_def(c, def, i, alu_src(c, alu, i));
      }
      return true;
   }
   if (def->num_components != 1) {
      ir->error = "vector ALU instruction after scalarisation";
      return false;
   }
   if (def->bit_size != 32 && def->bit_size != 1) {
      ir->error = "non-32-bit ALU instruction";
      return false;
   }
   for (unsigned i = 0; i < nsrc; i++)
      s[i] = alu_src(c, alu, i);

   unsigned op, mod = 0;
   bool neg1 = false;
   vagx_ir_src r;
#define OP(nop, vop, m)                                                         \
   case nir_op_##nop:                                                          \
      op = VAGX_OP_##vop;                                                      \
      mod = m;                                                                 \
      break;
   switch (alu->op) {
      OP(fadd, FADD, 0)
      OP(fmul, FMUL, 0)
      OP(ffma, FFMA, 0)
      OP(fmin, FMIN, 0)
      OP(fmax, FMAX, 0)
      OP(ffloor, FFLOOR, 0)
      OP(fceil, FCEIL, 0)
      OP(ftrunc, FTRUNC, 0)
      OP(fround_even, FRND, 0)
      OP(ffract, FFRACT, 0)
      OP(frcp, FRCP, 0)
      OP(frsq, FRSQRT, 0)
      OP(fsqrt, FSQRT, 0)
      OP(fexp2, FEXP2, 0)
      OP(flog2, FLOG2, 0)
      OP(fsin, FSIN, 0)
      OP(fcos, FCOS, 0)
      OP(flt, FCMP, VAGX_FCOND_OLT)
      OP(fge, FCMP, VAGX_FCOND_OGE)
      OP(feq, FCMP, VAGX_FCOND_OEQ)
      OP(fneu, FCMP, VAGX_FCOND_UNE)
      OP(ilt, ICMP, VAGX_ICOND_SLT)
      OP(ige, ICMP, VAGX_ICOND_SGE)
      OP(ieq, ICMP, VAGX_ICOND_EQ)
      OP(ine, ICMP, VAGX_ICOND_NE)
      OP(ult, ICMP, VAGX_ICOND_ULT)
      OP(uge, ICMP, VAGX_ICOND_UGE)
      OP(f2i32, F2I, VAGX_RMODE_RTZ)
      OP(f2u32, F2U, VAGX_RMODE_RTZ)
      OP(i2f32, I2F, 0)
      OP(u2f32, U2F, 0)
      OP(iadd, IADD, 0)
      OP(isub, ISUB, 0)
      OP(imul, IMUL, 0)
      OP(imul_high, IMULHI, 0)
      OP(umul_high, UMULHI, 0)
      OP(idiv, IDIV, 0)
      OP(udiv, UDIV, 0)
      OP(irem, IREM, 0)
      OP(umod, UMOD, 0)
      OP(iadd_sat, IADD_SAT, 0)
      OP(uadd_sat, UADD_SAT, 0)
      OP(isub_sat, ISUB_SAT, 0)
      OP(usub_sat, USUB_SAT, 0)
      OP(imin, IMIN, 0)
      OP(imax, IMAX, 0)
      OP(umin, UMIN, 0)
      OP(umax, UMAX, 0)
      OP(iand, AND, 0)
      OP(ior, OR, 0)
      OP(ixor, XOR, 0)
      OP(inot, NOT, 0)
      OP(ishl, SHL, 0)
      OP(ishr, ASHR, 0)
      OP(ushr, SHR, 0)
      OP(ubitfield_extract, BFE, VAGX_SIGNEDNESS_U)
      OP(ibitfield_extract, BFE, VAGX_SIGNEDNESS_S)
      OP(bit_count, POPCNT, 0)
      OP(bitfield_reverse, BITREV, 0)
      OP(find_lsb, FFS, 0)
      OP(ufind_msb, FMSB, VAGX_SIGNEDNESS_U)
      OP(ifind_msb, FMSB, VAGX_SIGNEDNESS_S)
      OP(iabs, IABS, 0)
      OP(ineg, INEG, 0)
      OP(bcsel, SEL, 0)
      OP(unpack_half_2x16_split_x, H2F, 0)
      OP(f2f32, FMOV, 0)
      OP(i2i32, MOV, 0)
      OP(u2u32, MOV, 0)
   case nir_op_unpack_half_2x16_split_y:
      set_def(c, def, 0, vagx_h2f(ir, vagx_shr(ir, s[0], ir_imm(16))));
      return true;
   case nir_op_pack_half_2x16_split:
      set_def(c, def, 0, vagx_pack16(ir, vagx_f2h(ir, s[0]), vagx_f2h(ir, s[1])));
      return true;
   case nir_op_fsub:
      op = VAGX_OP_FADD;
      neg1 = true;
      break;
   case nir_op_fneg:
      op = VAGX_OP_FMOV;
      s[0].neg ^= 1;
      break;
   case nir_op_fabs:
      op = VAGX_OP_FMOV;
      s[0].abs = 1;
      s[0].neg = 0;
      break;
   case nir_op_fsat: {
      uint32_t d = vagx_ir_new_vreg(ir, 1);
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_FMOV, d, 0, s[0], ir_none(), ir_none());
      I->sat = 1;
      set_def(c, def, 0, ir_vreg(d, 0));
      return true;
   }
   case nir_op_b2f32:
      r = vagx_and(ir, s[0], ir_imm(fui(1.0f)));
      set_def(c, def, 0, r);
      return true;
   case nir_op_b2i32:
      r = vagx_and(ir, s[0], ir_imm(1));
      set_def(c, def, 0, r);
      return true;
   case nir_op_imod: {
      vagx_ir_src rem = vagx_irem(ir, s[0], s[1]);
      vagx_ir_src x = vagx_xor(ir, rem, s[1]);
      vagx_ir_src c1 = vagx_icmp(ir, VAGX_ICOND_SLT, x, ir_imm(0));
      vagx_ir_src c2 = vagx_icmp(ir, VAGX_ICOND_NE, rem, ir_imm(0));
      vagx_ir_src cc = vagx_and(ir, c1, c2);
      vagx_ir_src add = vagx_and(ir, cc, s[1]);
      set_def(c, def, 0, vagx_iadd(ir, rem, add));
      return true;
   }
   case nir_op_b2b1:
   case nir_op_b2b32:
      set_def(c, def, 0, s[0]);
      return true;
   default:
      ir->error = nir_op_infos[alu->op].name;
      return false;
   }
#undef OP
   if (neg1)
      s[1].neg ^= 1;
   /* Integer operands never carry float modifiers: materialise them. */
   const struct vagx_op_info *inf = vagx_info(op);
   for (unsigned i = 0; i < 3; i++) {
      if ((s[i].neg || s[i].abs) && inf->src[i] != VAGX_SK_F32) {
         vagx_ir_src t = s[i];
         uint32_t d = vagx_ir_new_vreg(ir, 1);
         vagx_ir_emit(ir, VAGX_OP_FMOV, d, 0, t, ir_none(), ir_none());
         s[i] = ir_vreg(d, 0);
      }
   }
   set_def(c, def, 0, vagx_ir_alu(ir, op, mod, s[0], s[1], s[2]));
   return true;
}

static unsigned
const_src(nir_src *src, bool *ok)
{
   *ok = nir_src_is_const(*src);
   return *ok ? nir_src_as_uint(*src) : 0;
}

/* The key says the device predates sr.base_instance (contract 1.7). */
static bool
no_base_instance(const struct ctx *c)
{
   return c->fs_key && c->fs_key->no_base_instance;
}

/* The raw bytes of a converted vertex format (vagx_lower_vertex.c's
 * convention): DIV_ROUND_UP(block bytes, 4) words of the element at `base`
 * + `off`.  ld_global needs 4-byte alignment: a packed format has it (u_vbuf,
 * PIPE_VERTEX_INPUT_ALIGNMENT_ELEMENT); an 8/16-bit one may start at any
 * byte, so the words enclosing it are loaded (never a word past its last
 * byte: that could be past the buffer's end) and shifted into place. */
static bool
emit_vs_input_raw(struct ctx *c, nir_intrinsic_instr *intr, enum pipe_format f, vagx_ir_src base,
                  vagx_ir_src off)
{
   vagx_ir *ir = &c->ir;
   const unsigned bytes = util_format_get_blocksize(f);
   const unsigned words = DIV_ROUND_UP(bytes, 4);
   if (nir_intrinsic_component(intr) != 0 || intr->def.num_components != words) {
      ir->error = "vertex input of a converted format not lowered";
      return false;
   }
   if (vagx_vertex_format_packed(f)) {
      uint32_t v = vagx_ir_new_vreg(ir, words);
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_LD_GLOBAL, v, 0, base, off, ir_none());
      I->mod = VAGX_MEMSIZE_B32 + (words - 1);
      def_from_vec(c, &intr->def, v);
      return true;
   }
   /* the low address word decides the misalignment (offsets are signed:
    * ld_global sign-extends them) */
   vagx_ir_src lo = base;
   vagx_ir_src mis = vagx_and(ir, vagx_iadd(ir, lo, off), ir_imm(3));
   vagx_ir_src sh = vagx_shl(ir, mis, ir_imm(3));
   vagx_ir_src first = vagx_isub(ir, off, mis);
   vagx_ir_src end = vagx_iadd(ir, off, ir_imm(bytes - 1));
   vagx_ir_src last = vagx_isub(ir, end, vagx_and(ir, vagx_iadd(ir, lo, end), ir_imm(3)));
   vagx_ir_src w[3];
   for (unsigned j = 0; j <= words; j++) {
      vagx_ir_src o = j ? vagx_imin(ir, vagx_iadd(ir, first, ir_imm(4 * j)), last) : first;
      uint32_t v = vagx_ir_new_vreg(ir, 1);
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_LD_GLOBAL, v, 0, base, o, ir_none());
      I->mod = VAGX_MEMSIZE_B32;
      w[j] = ir_vreg(v, 0);
   }
   /* word i = w[i] >> sh | w[i + 1] << (32 - sh); the shift left is split
    * in two so that sh = 0 (shifts take 5 bits) gives 0 */
   vagx_ir_src rsh = vagx_isub(ir, ir_imm(31), sh);
   for (unsigned i = 0; i < words; i++) {
      vagx_ir_src hi = vagx_shl(ir, vagx_shl(ir, w[i + 1], ir_imm(1)), rsh);
      set_def(c, &intr->def, i, vagx_or(ir, vagx_shr(ir, w[i], sh), hi));
   }
   return true;
}

static bool
emit_vs_input(struct ctx *c, nir_intrinsic_instr *intr)
{
   vagx_ir *ir = &c->ir;
   unsigned attr = nir_intrinsic_base(intr);
   unsigned comp = nir_intrinsic_component(intr);
   unsigned n = intr->def.num_components;
   bool ok;
   attr += const_src(&intr->src[0], &ok);
   if (!ok) {
      ir->error = "indirect vertex input";
      return false;
   }
   vagx_ir_src base = uniform_addr(c, VAGX_PUSH_VBO_LO, VAGX_PUSH_VBO_HI, attr);
   vagx_ir_src stride = uniform_word(c, VAGX_PUSH_VBO_STRIDE, attr);
   vagx_ir_src divisor = uniform_word(c, VAGX_PUSH_VBO_DIVISOR, attr);
   /* an instanced element's index is i / divisor + base_instance (GL 4.6
    * 10.5, with ARB_base_instance), i being sr.instance_id - sr.base_instance
    * (the device's instance id counts from the base instance, render.md).
    * Before contract 1.7 there is no sr.base_instance and the driver draws
    * with base instance 0 (no GL_ARB_base_instance): i is sr.instance_id */
   vagx_ir_src inst;
   if (no_base_instance(c)) {
      inst = vagx_udiv(ir, ir_file(IR_SR, VAGX_SR_INSTANCE_ID), divisor);
   } else {
      vagx_ir_src base_inst = ir_file(IR_SR, VAGX_SR_BASE_INSTANCE);
      inst = vagx_iadd(
         ir, vagx_udiv(ir, vagx_isub(ir, ir_file(IR_SR, VAGX_SR_INSTANCE_ID), base_inst), divisor),
         base_inst);
   }
   vagx_ir_src idx = vagx_sel(ir, divisor, inst, ir_file(IR_SR, VAGX_SR_VERTEX_ID));
   if (c->fs_key && attr < ARRAY_SIZE(c->fs_key->vs_attr_format) &&
       c->fs_key->vs_attr_format[attr])
      return emit_vs_input_raw(c, intr, c->fs_key->vs_attr_format[attr], base,
                               vagx_imul(ir, idx, stride));
   unsigned have = 4;
   bool is_int = false;
   if (c->fs_key && attr < ARRAY_SIZE(c->fs_key->vs_attr_comps) && c->fs_key->vs_attr_comps[attr]) {
      have = c->fs_key->vs_attr_comps[attr];
      is_int = c->fs_key->vs_attr_int & (1u << attr);
   }
   unsigned nload = comp < have ? MIN2(n, have - comp) : 0;
   if (nload) {
      vagx_ir_src off = vagx_imad(ir, idx, stride, ir_imm(comp * 4));
      uint32_t v = vagx_ir_new_vreg(ir, nload);
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_LD_GLOBAL, v, 0, base, off, ir_none());
      I->mod = VAGX_MEMSIZE_B32 + (nload - 1);
      for (unsigned i = 0; i < nload; i++)
         set_def(c, &intr->def, i, ir_vreg(v, i));
   }
   /* missing components: (0, 0, 0, 1) */
   for (unsigned i = nload; i < n; i++)
      set_def(c, &intr->def, i, ir_imm(comp + i == 3 ? (is_int ? 1u : fui(1.0f)) : 0u));
   return true;
}

static int gs_input_word(const struct ctx *c, unsigned location, unsigned comp);

/* Geometry: gl_in[v].x is ld_vin of vertex v (any operand) at the word
 * the vertex shader wrote it to (gs_input_word); what it did not write
 * reads 0 (GL leaves it undefined) */
static bool
emit_gs_input(struct ctx *c, nir_intrinsic_instr *intr)
{
   vagx_ir *ir = &c->ir;
   bool ok;
   const nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
   const unsigned location = sem.location + const_src(&intr->src[1], &ok);
   if (!ok) {
      ir->error = "indirect geometry input";
      return false;
   }
   const vagx_ir_src vtx = get_src(c, &intr->src[0], 0);
   for (unsigned i = 0; i < intr->def.num_components; i++) {
      const int w = gs_input_word(c, location, nir_intrinsic_component(intr) + i);
      set_def(c, &intr->def, i, w < 0 ? ir_imm(0) : vagx_ld_vin(ir, vtx, ir_imm(w)));
   }
   return true;
}

static unsigned
fs_cf_for(struct ctx *c, unsigned location, unsigned comp, unsigned interp)
{
   struct vagx_shader_info *info = c->info;
   for (unsigned i = 0; i < info->fs_cf_count; i++)
      if (info->fs_cf[i].location == location && info->fs_cf[i].component == comp &&
          info->fs_cf[i].interp == interp)
         return info->fs_cf_base + i;
   if (location == VARYING_SLOT_PNTC) {
      /* One POINT_COORD binding writes s into its first coefficient
       * register and t into the next (docs/hw/render.md, varyings): s and t
       * always get two adjacent entries, whichever of them is read, and the
       * driver binds them with one count-2 binding at the s entry. */
      assert(comp < 2);
      if (info->fs_cf_count + 2 > VAGX_MAX_FS_CF) {
         c->ir.error = "too many fragment inputs";
         return 0;
      }
      unsigned s = info->fs_cf_count;
      info->fs_cf[s] = (struct vagx_fs_cf){ location, 0, interp };
      info->fs_cf[s + 1] = (struct vagx_fs_cf){ location, 1, interp };
      info->fs_cf_count += 2;
      return info->fs_cf_base + s + comp;
   }
   if (info->fs_cf_count >= VAGX_MAX_FS_CF) {
      c->ir.error = "too many fragment inputs";
      return 0;
   }
   info->fs_cf[info->fs_cf_count] = (struct vagx_fs_cf){ location, comp, interp };
   return info->fs_cf_base + info->fs_cf_count++;
}

static unsigned
interp_of(nir_intrinsic_instr *bary)
{
   switch (nir_intrinsic_interp_mode(bary)) {
   case INTERP_MODE_NOPERSPECTIVE:
      return VAGX_INTERP_LINEAR;
   case INTERP_MODE_FLAT:
      return VAGX_INTERP_FLAT;
   default:
      return VAGX_INTERP_SMOOTH;
   }
}

static bool
emit_fs_input(struct ctx *c, nir_intrinsic_instr *intr, bool interpolated)
{
   vagx_ir *ir = &c->ir;
   nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
   unsigned comp = nir_intrinsic_component(intr);
   unsigned interp = VAGX_INTERP_FLAT;
   enum vagx_iterloc loc = VAGX_ITERLOC_CENTER;
   vagx_ir_src sample = ir_imm(0);
   bool ok;
   unsigned location = sem.location + const_src(&intr->src[interpolated ? 1 : 0], &ok);
   if (!ok) {
      ir->error = "indirect fragment input";
      return false;
   }
   if (interpolated) {
      nir_intrinsic_instr *bary = nir_src_as_intrinsic(intr->src[0]);
      if (!bary) {
         ir->error = "barycentric source";
         return false;
      }
      interp = interp_of(bary);
      if (bary->intrinsic == nir_intrinsic_load_barycentric_centroid)
         loc = VAGX_ITERLOC_CENTROID;
      else if (bary->intrinsic == nir_intrinsic_load_barycentric_sample) {
         /* `sample` qualifier: at this invocation's sample, so per sample */
         loc = VAGX_ITERLOC_SAMPLE;
         sample = ir_file(IR_SR, VAGX_SR_SAMPLE_ID);
         c->info->fs_per_sample |= c->fs_key && c->fs_key->samples == 4;
      }
   }
   if (location == VARYING_SLOT_PNTC)
      interp = VAGX_INTERP_LINEAR;
   for (unsigned i = 0; i < intr->def.num_components; i++) {
      if (location == VARYING_SLOT_PNTC && comp + i >= 2) {
         /* the point coordinate as a vec4 varying (texcoord replacement)
          * is (s, t, 0, 1) */
         set_def(c, &intr->def, i, ir_imm(comp + i == 3 ? fui(1.0f) : 0));
         continue;
      }
      unsigned cf = fs_cf_for(c, location, comp + i, interp);
      vagx_ir_src r;
      if (interp == VAGX_INTERP_FLAT) {
         r = vagx_ldcf(ir, false, ir_file(IR_CF, cf));
      } else {
         r = vagx_iter(ir, loc, interp == VAGX_INTERP_SMOOTH, false, ir_file(IR_CF, cf),
                       ir_file(IR_CF, 0), sample);
      }
      set_def(c, &intr->def, i, r);
   }
   return true;
}

static bool
emit_vs_output(struct ctx *c, nir_intrinsic_instr *intr)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
   unsigned comp = nir_intrinsic_component(intr);
   unsigned mask = nir_intrinsic_write_mask(intr);
   bool ok;
   unsigned location = sem.location + const_src(&intr->src[1], &ok);
   if (!ok) {
      c->ir.error = "indirect vertex output";
      return false;
   }
   for (unsigned i = 0; i < intr->src[0].ssa->num_components; i++) {
      if (!(mask & (1u << i)))
         continue;
      unsigned word;
      unsigned cc = comp + i;
      if (location == VARYING_SLOT_POS)
         word = cc;
      else if (location == VARYING_SLOT_PSIZ)
         word = c->psiz_word;
      else if (location == VARYING_SLOT_CLIP_DIST0 || location == VARYING_SLOT_CLIP_DIST1) {
         word = c->clip_word + (location - VARYING_SLOT_CLIP_DIST0) * 4 + cc;
         if (c->user_loc_word[location] != 0xff) /* the varying copy (vs_layout) */
            vagx_ir_emit(&c->ir, VAGX_OP_ST_VAR, -1, 0, get_src(c, &intr->src[0], i),
                         ir_imm(4 + c->user_loc_word[location] + cc), ir_none());
      } else if (location == VARYING_SLOT_EDGE && cc == 0)
         word = c->edge_word; /* st's nir_lower_passthrough_edgeflags */
      else if (location < VARYING_SLOT_MAX && c->user_loc_word[location] != 0xff)
         word = 4 + c->user_loc_word[location] + cc;
      else
         continue; /* not consumed by the hardware (e.g. edge flag) */
      vagx_ir_src v = get_src(c, &intr->src[0], i);
      vagx_ir_emit(&c->ir, VAGX_OP_ST_VAR, -1, 0, v, ir_imm(word), ir_none());
   }
   return true;
}

/* Modifier bits of a flag field of an opcode (the ISA generator's field
 * table, so the bit positions stay those of vagx_isa.xml). */
static unsigned
op_flag_mask(unsigned op, const char *name)
{
   for (unsigned i = 0; i < vagx_info(op)->nfields; i++) {
      const struct vagx_field *f = vagx_op_field(op, i);
      if (f->type == VAGX_FT_FLAG && !f->in_ext && !strcmp(f->name, name))
         return vagx_field_mask(f);
   }
   unreachable("no such modifier flag in vagx_isa.xml");
}

static bool
emit_fs_output(struct ctx *c, nir_intrinsic_instr *intr)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
   unsigned comp = nir_intrinsic_component(intr);
   if (sem.location == FRAG_RESULT_DEPTH || sem.location == FRAG_RESULT_STENCIL) {
      /* st_zs.depth / .stencil: the value is the store's only component
       * (tgsi_to_nir already picks .z / .y of the TGSI output); the source
       * of the flag that is not set is don't-care.  Each store is one st_zs
       * (the last write per lane wins, as in GL). */
      bool depth = sem.location == FRAG_RESULT_DEPTH;
      vagx_ir_src v = get_src(c, &intr->src[0], 0);
      vagx_ir_instr *I = vagx_ir_emit(&c->ir, VAGX_OP_ST_ZS, -1, 0, depth ? v : ir_imm(0),
                                      depth ? ir_imm(0) : v, ir_none());
      I->mod = op_flag_mask(VAGX_OP_ST_ZS, depth ? "depth" : "stencil");
      if (depth)
         c->info->fs_writes_depth = true;
      else
         c->info->fs_writes_stencil = true;
      return true;
   }
   if (sem.location == FRAG_RESULT_SAMPLE_MASK) {
      c->ir.error = "sample mask output not lowered"; /* lower_sample_io's */
      return false;
   }
   unsigned rt = sem.location == FRAG_RESULT_COLOR ? 0 : sem.location - FRAG_RESULT_DATA0;
   rt += sem.dual_source_blend_index;
   if (c->fs_key && rt >= c->fs_key->nr_cbufs)
      return true;
   vagx_ir_src v[4];
   for (unsigned i = 0; i < 4; i++)
      v[i] = ir_imm(i == 3 ? fui(1.0f) : 0);
   for (unsigned i = 0; i < intr->src[0].ssa->num_components && comp + i < 4; i++)
      v[comp + i] = get_src(c, &intr->src[0], i);
   uint32_t vec = make_vec(c, v, 4);
   /* 4X: st_tile writes only the sample it names, and only if that sample
    * is covered (docs/hw/renderer-pipeline.md), so one store per sample
    * index writes every covered sample of a pixel-rate invocation and the
    * one sample of a per-sample invocation (blending, fs_per_sample) */
   unsigned samples = c->fs_key && c->fs_key->samples == 4 ? 4 : 1;
   for (unsigned s = 0; s < samples; s++) {
      vagx_ir_instr *I =
         vagx_ir_emit(&c->ir, VAGX_OP_ST_TILE, -1, 0, ir_vreg(vec, 0), ir_imm(s), ir_none());
      I->mod = rt;
   }
   return true;
}

static bool
emit_intrinsic(struct ctx *c, nir_intrinsic_instr *intr)
{
   vagx_ir *ir = &c->ir;
   gl_shader_stage stage = c->nir->info.stage;
   bool ok;
   switch (intr->intrinsic) {
   case nir_intrinsic_load_per_vertex_input:
      return emit_gs_input(c, intr);
   case nir_intrinsic_emit_vertex:
   case nir_intrinsic_emit_vertex_with_counter:
   case nir_intrinsic_end_primitive:
   case nir_intrinsic_end_primitive_with_counter: {
      /* one vertex stream (GL 3.2); the device counts and drops itself */
      if (nir_intrinsic_stream_id(intr) != 0) {
         ir->error = "geometry output stream other than 0";
         return false;
      }
      const bool emit = intr->intrinsic == nir_intrinsic_emit_vertex ||
                        intr->intrinsic == nir_intrinsic_emit_vertex_with_counter;
      vagx_ir_emit(ir, emit ? VAGX_OP_EMIT : VAGX_OP_CUT, -1, 0, ir_none(), ir_none(), ir_none());
      return true;
   }
   case nir_intrinsic_set_vertex_and_primitive_count:
      return true; /* nir_lower_gs_intrinsics' counts: the device keeps its own */
   case nir_intrinsic_load_primitive_id:
      if (stage != MESA_SHADER_GEOMETRY) {
         ir->error = "gl_PrimitiveID outside a geometry shader";
         return false;
      }
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_PRIMITIVE_ID));
      return true;
   case nir_intrinsic_load_invocation_id:
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_INVOCATION_ID));
      return true;
   case nir_intrinsic_load_input:
      if (stage == MESA_SHADER_VERTEX)
         return emit_vs_input(c, intr);
      return emit_fs_input(c, intr, false);
   case nir_intrinsic_load_interpolated_input:
      return emit_fs_input(c, intr, true);
   case nir_intrinsic_load_barycentric_pixel:
   case nir_intrinsic_load_barycentric_centroid:
   case nir_intrinsic_load_barycentric_sample:
      return true; /* consumed by load_interpolated_input */
   case nir_intrinsic_load_point_coord: {
      /* the IR has no dead-code elimination: interpolate only what is read */
      nir_component_mask_t read = nir_def_components_read(&intr->def);
      for (unsigned i = 0; i < 2; i++) {
         if (!(read & (1u << i))) {
            set_def(c, &intr->def, i, ir_imm(0));
            continue;
         }
         unsigned cf = fs_cf_for(c, VARYING_SLOT_PNTC, i, VAGX_INTERP_LINEAR);
         set_def(c, &intr->def, i,
                 vagx_iter(ir, VAGX_ITERLOC_CENTER, false, false, ir_file(IR_CF, cf),
                           ir_file(IR_CF, 0), ir_imm(0)));
      }
      return true;
   }
   case nir_intrinsic_store_output:
      if (stage == MESA_SHADER_VERTEX || stage == MESA_SHADER_GEOMETRY)
         return emit_vs_output(c, intr);
      return emit_fs_output(c, intr);
   case nir_intrinsic_load_output: {
      /* framebuffer fetch from nir_lower_blend */
      nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
      unsigned rt = sem.location == FRAG_RESULT_COLOR ? 0 : sem.location - FRAG_RESULT_DATA0;
      uint32_t v = vagx_ir_new_vreg(ir, 4);
      /* 4X: the blend reads the sample this per-sample invocation shades */
      bool ms = c->fs_key && c->fs_key->samples == 4;
      vagx_ir_instr *I =
         vagx_ir_emit(ir, VAGX_OP_LD_TILE, v, 0, ms ? ir_file(IR_SR, VAGX_SR_SAMPLE_ID) : ir_imm(0),
                      ir_none(), ir_none());
      I->mod = rt;
      c->info->fs_reads_tile = true;
      c->info->fs_per_sample |= ms;
      for (unsigned i = 0; i < intr->def.num_components; i++)
         set_def(c, &intr->def, i, ir_vreg(v, nir_intrinsic_component(intr) + i));
      return true;
   }
   case nir_intrinsic_load_frag_coord: {
      vagx_ir_src x = vagx_u2f(ir, ir_file(IR_SR, VAGX_SR_PIX_X));
      vagx_ir_src y = vagx_u2f(ir, ir_file(IR_SR, VAGX_SR_PIX_Y));
      set_def(c, &intr->def, 0, vagx_fadd(ir, x, ir_imm(fui(0.5f))));
      set_def(c, &intr->def, 1, vagx_fadd(ir, y, ir_imm(fui(0.5f))));
      c->info->fs_z_slot = true;
      set_def(c, &intr->def, 2,
              vagx_iter(ir, VAGX_ITERLOC_CENTER, false, false, ir_file(IR_CF, 1),
                        ir_file(IR_CF, 0), ir_imm(0)));
      set_def(c, &intr->def, 3,
              vagx_iter(ir, VAGX_ITERLOC_CENTER, false, false, ir_file(IR_CF, 0),
                        ir_file(IR_CF, 0), ir_imm(0)));
      return true;
   }
   case nir_intrinsic_load_front_face:
      set_def(c, &intr->def, 0,
              vagx_icmp(ir, VAGX_ICOND_NE, ir_file(IR_SR, VAGX_SR_FRONT_FACE), ir_imm(0)));
      return true;
   case nir_intrinsic_load_vertex_id:
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_VERTEX_ID));
      return true;
   case nir_intrinsic_load_instance_id:
      set_def(c, &intr->def, 0,
              no_base_instance(c) ? ir_file(IR_SR, VAGX_SR_INSTANCE_ID)
                                  : vagx_isub(ir, ir_file(IR_SR, VAGX_SR_INSTANCE_ID),
                                              ir_file(IR_SR, VAGX_SR_BASE_INSTANCE)));
      return true;
   case nir_intrinsic_load_base_instance:
      /* the device's, so an indirect draw's base instance from memory too
       * (0 before 1.7, where the driver draws every instance range from 0) */
      set_def(c, &intr->def, 0,
              no_base_instance(c) ? ir_imm(0) : ir_file(IR_SR, VAGX_SR_BASE_INSTANCE));
      return true;
   case nir_intrinsic_load_base_vertex:
      /* gl_BaseVertex: an indexed draw's base vertex, 0 for non-indexed
       * draws (the device's rule, GL 4.6 11.1.3.9), also of indirect draws */
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_BASE_VERTEX));
      return true;
   case nir_intrinsic_load_draw_id:
      /* gl_DrawID: the driver numbers a multi-draw's cmd_draws (vagx_draw.c) */
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_DRAW_ID));
      return true;
   case nir_intrinsic_load_sample_id:
      /* gl_SampleID (and gl_SamplePosition, lower_sample_io) implies
       * per-sample shading */
      c->info->fs_per_sample |= c->fs_key && c->fs_key->samples == 4;
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_SAMPLE_ID));
      return true;
   case nir_intrinsic_load_helper_invocation:
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_HELPER));
      return true;
   case nir_intrinsic_load_blend_const_color_r_float:
   case nir_intrinsic_load_blend_const_color_g_float:
   case nir_intrinsic_load_blend_const_color_b_float:
   case nir_intrinsic_load_blend_const_color_a_float:
      /* the component from the intrinsic, not from enum arithmetic: the
       * intrinsics are numbered in name order (a, ..., b, g, r), so
       * `intrinsic - r` gave garbage for g, b and a (CONSTANT_COLOR blends
       * took 0 or another word for them) */
      set_def(c, &intr->def, 0,
              uniform_word(c, VAGX_PUSH_BLEND_CONST,
                           intr->intrinsic == nir_intrinsic_load_blend_const_color_r_float   ? 0
                           : intr->intrinsic == nir_intrinsic_load_blend_const_color_g_float ? 1
                           : intr->intrinsic == nir_intrinsic_load_blend_const_color_b_float ? 2
                                                                                            : 3));
      return true;
   case nir_intrinsic_load_sampler_lod_parameters_pan: {
      /* (min_lod, max_lod, lod_bias) of a sampler: lower_tex_offset */
      unsigned smp = const_src(&intr->src[0], &ok);
      if (!ok) {
         ir->error = "indirect sampler";
         return false;
      }
      for (unsigned i = 0; i < intr->def.num_components; i++)
         set_def(c, &intr->def, i, uniform_word(c, VAGX_PUSH_SAMPLER_LOD, smp * 4 + i));
      return true;
   }
   case nir_intrinsic_load_ubo: {
      unsigned idx = const_src(&intr->src[0], &ok);
      if (!ok) {
         ir->error = "indirect UBO index";
         return false;
      }
      if (intr->def.bit_size != 32) {
         ir->error = "non-32-bit UBO load";
         return false;
      }
      bool okoff;
      unsigned off = const_src(&intr->src[1], &okoff);
      unsigned n = intr->def.num_components;
      if (idx == 0 && okoff && (off % 4) == 0 && off / 4 + n <= 160) {
         for (unsigned i = 0; i < n; i++)
            set_def(c, &intr->def, i, uniform_word(c, VAGX_PUSH_CB0, off / 4 + i));
         return true;
      }
      vagx_ir_src base = uniform_addr(c, VAGX_PUSH_UBO_LO, VAGX_PUSH_UBO_HI, idx);
      vagx_ir_src o = get_src(c, &intr->src[1], 0);
      uint32_t v = vagx_ir_new_vreg(ir, n);
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_LD_GLOBAL, v, 0, base, o, ir_none());
      I->mod = VAGX_MEMSIZE_B32 + (n - 1);
      def_from_vec(c, &intr->def, v);
      return true;
   }
   case nir_intrinsic_ddx:
   case nir_intrinsic_ddx_fine:
   case nir_intrinsic_ddx_coarse:
   case nir_intrinsic_ddy:
   case nir_intrinsic_ddy_fine:
   case nir_intrinsic_ddy_coarse: {
      bool y = intr->intrinsic == nir_intrinsic_ddy || intr->intrinsic == nir_intrinsic_ddy_fine ||
               intr->intrinsic == nir_intrinsic_ddy_coarse;
      bool coarse = intr->intrinsic == nir_intrinsic_ddx_coarse ||
                    intr->intrinsic == nir_intrinsic_ddy_coarse;
      const enum vagx_deriv mode = coarse ? VAGX_DERIV_COARSE : VAGX_DERIV_FINE;
      for (unsigned i = 0; i < intr->def.num_components; i++) {
         vagx_ir_src x = get_src(c, &intr->src[0], i);
         set_def(c, &intr->def, i, y ? vagx_fddy(ir, mode, x) : vagx_fddx(ir, mode, x));
      }
      return true;
   }
   case nir_intrinsic_terminate:
   case nir_intrinsic_demote:
      c->info->fs_discards = true;
      vagx_ir_emit(ir, VAGX_OP_DISCARD, -1, 0, ir_none(), ir_none(), ir_none());
      return true;
   case nir_intrinsic_terminate_if:
   case nir_intrinsic_demote_if: {
      c->info->fs_discards = true;
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_DISCARD, -1, 0, get_src(c, &intr->src[0], 0),
                                      ir_none(), ir_none());
      I->mod = 1;
      return true;
   }
   default:
      return vagx_emit_mem_intrinsic(c, intr);
   }
}

static unsigned
tex_dim(nir_tex_instr *tex)
{
   switch (tex->sampler_dim) {
   case GLSL_SAMPLER_DIM_1D:
      return VAGX_DIM__1D;
   case GLSL_SAMPLER_DIM_3D:
      return VAGX_DIM__3D;
   case GLSL_SAMPLER_DIM_CUBE:
      return VAGX_DIM_CUBE;
   case GLSL_SAMPLER_DIM_MS:
      return VAGX_DIM__2DMS;
   case GLSL_SAMPLER_DIM_BUF:
      return VAGX_DIM_BUF;
   default:
      return VAGX_DIM__2D;
   }
}

static bool
emit_tex(struct ctx *c, nir_tex_instr *tex)
{
   vagx_ir *ir = &c->ir;
   unsigned mode;
   switch (tex->op) {
   case nir_texop_tex:
      mode = VAGX_TEXMODE_AUTO;
      break;
   case nir_texop_txl:
      mode = VAGX_TEXMODE_LOD;
      break;
   case nir_texop_txb:
      mode = VAGX_TEXMODE_BIAS;
      break;
   case nir_texop_txf:
   case nir_texop_txf_ms:
      mode = VAGX_TEXMODE_FETCH;
      break;
   case nir_texop_txs:
      mode = VAGX_TEXMODE_SIZE;
      break;
   case nir_texop_query_levels:
      mode = VAGX_TEXMODE_LEVELS;
      break;
   case nir_texop_tg4:
      mode = VAGX_TEXMODE_GATHER;
      break;
   default:
      ir->error = "unsupported texture op";
      return false;
   }
   vagx_ir_src coords[4] = { ir_imm(0), ir_imm(0), ir_imm(0), ir_imm(0) };
   vagx_ir_src lod = ir_file(IR_SR, 0), ref = ir_file(IR_SR, 0);
   unsigned ncoord = 0;
   for (unsigned i = 0; i < tex->num_srcs; i++) {
      nir_tex_src *s = &tex->src[i];
      switch (s->src_type) {
      case nir_tex_src_coord:
         ncoord = s->src.ssa->num_components;
         for (unsigned k = 0; k < ncoord && k < 4; k++)
            coords[k] = get_src(c, &s->src, k);
         break;
      case nir_tex_src_lod:
      case nir_tex_src_bias:
      case nir_tex_src_ms_index:
         lod = get_src(c, &s->src, 0);
         break;
      case nir_tex_src_comparator:
         ref = get_src(c, &s->src, 0);
         break;
      case nir_tex_src_texture_offset:
      case nir_tex_src_sampler_offset:
         ir->error = "indirect texture/sampler index";
         return false;
      default:
         ir->error = "unsupported texture source";
         return false;
      }
   }
   /* gather: the component to gather is src1 */
   if (mode == VAGX_TEXMODE_GATHER)
      lod = ir_imm(tex->component);
   unsigned dim = tex_dim(tex);
   struct vagx_instr tmp = { 0 };
   tmp.imm[1] = (dim << 16) | (tex->is_array ? (1u << 19) : 0);
   unsigned nregs = vagx_coord_regs(&tmp);
   if (mode == VAGX_TEXMODE_SIZE || mode == VAGX_TEXMODE_LEVELS)
      ncoord = 0;
   uint32_t cv = make_vec(c, coords, nregs);
   /* a sparse lookup (sparseTextureARB & co.): tex.resid, whose fifth
    * register is the residency code, NIR's last component (isa.md) */
   const bool sparse = tex->is_sparse;
   uint32_t d = vagx_ir_new_vreg(ir, 4 + sparse);
   vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_TEX, d, 0, ir_vreg(cv, 0), lod, ref);
   I->mod = mode;
   I->ext = (tex->texture_index & 0xff) | ((tex->sampler_index & 0xff) << 8) | (dim << 16) |
            (tex->is_array ? (1u << 19) : 0) | (tex->is_shadow ? (1u << 20) : 0) |
            (sparse ? VAGX_FLAG_TEX_RESID : 0);
   c->info->texture_count = MAX2(c->info->texture_count, tex->texture_index + 1);
   if (nir_tex_instr_need_sampler(tex))
      c->info->sampler_count = MAX2(c->info->sampler_count, tex->sampler_index + 1);
   for (unsigned i = 0; i + sparse < tex->def.num_components; i++)
      set_def(c, &tex->def, i, ir_vreg(d, i));
   if (sparse)
      set_def(c, &tex->def, tex->def.num_components - 1, ir_vreg(d, 4));
   /* size of a 1D array: the layer count is the result's third component
    * (width, height = 1, layers; render.md), GL wants (width, layers) */
   if (mode == VAGX_TEXMODE_SIZE && dim == VAGX_DIM__1D && tex->is_array &&
       tex->def.num_components > 1)
      set_def(c, &tex->def, 1, ir_vreg(d, 2));
   return true;
}

static bool emit_cf_list(struct ctx *c, struct exec_list *list);

/* A phi of component `comp` of a NIR phi, at IR instruction `at`: its
 * sources are known once every block is selected (a loop header's phi
 * reads values of the body). */
struct phi_fixup {
   unsigned at, comp;
   nir_phi_instr *phi;
};

/* Emit a control-flow instruction; the first one after a NIR block ends
 * the IR block that NIR block's end is in (emit_block leaves it pending). */
static vagx_ir_instr *
emit_cf(struct ctx *c, unsigned op, vagx_ir_src cond, bool uniform)
{
   if (c->pending) {
      c->block_end[c->pending->index] = c->ir.num_instrs;
      c->pending = NULL;
   }
   vagx_ir_instr *I = vagx_ir_emit(&c->ir, op, -1, 0, cond, ir_none(), ir_none());
   I->uniform = uniform;
   return I;
}

static bool
emit_phi(struct ctx *c, nir_phi_instr *phi)
{
   if (phi->def.bit_size > 32) {
      c->ir.error = "64-bit phi";
      return false;
   }
   for (unsigned k = 0; k < phi->def.num_components; k++) {
      const uint32_t v = vagx_ir_new_vreg(&c->ir, 1);
      struct phi_fixup f = { c->ir.num_instrs, k, phi };
      vagx_ir_emit_phi(&c->ir, v, exec_list_length(&phi->srcs));
      util_dynarray_append(&c->phis, struct phi_fixup, f);
      set_def(c, &phi->def, k, ir_vreg(v, 0));
   }
   return true;
}

/* The sources of the phis, in the order of their IR block's predecessors
 * (vagx_cfg.c): each NIR predecessor's value from the IR block its end is
 * in; a predecessor no lane reaches (the endif or endloop after a break)
 * has no NIR counterpart and takes 0. */
static bool
fill_phis(struct ctx *c)
{
   vagx_ir *ir = &c->ir;
   vagx_ir_build_cfg(ir);
   util_dynarray_foreach(&c->phis, struct phi_fixup, f) {
      vagx_ir_instr *I = &ir->instrs[f->at];
      const vagx_block *B = &ir->blocks[vagx_ir_block_of(ir, f->at)];
      const unsigned npreds = util_dynarray_num_elements(&B->preds, unsigned);
      I->phi = rerzalloc(ir->phi_mem, I->phi, struct vagx_phi_src, I->phi_count,
                         MAX2(npreds, 1));
      I->phi_count = npreds;
      unsigned k = 0, found = 0;
      util_dynarray_foreach(&B->preds, unsigned, p) {
         struct vagx_phi_src *ps = &I->phi[k++];
         ps->pred = *p;
         ps->src = ir_imm(0);
         bool have = false;
         nir_foreach_phi_src(src, f->phi) {
            const unsigned end = c->block_end[src->pred->index];
            if (end == ~0u || vagx_ir_block_of(ir, end) != *p)
               continue;
            if (!c->defs[src->src.ssa->index]) {
               ir->error = "phi source not selected";
               return false;
            }
            ps->src = get_src(c, &src->src, f->comp);
            have = true;
         }
         found += have;
         if (!have && ir->blocks[*p].reachable) {
            ir->error = "phi without a source for a predecessor";
            return false;
         }
      }
      if (found != exec_list_length(&f->phi->srcs)) {
         ir->error = "phi source from a block that is not a predecessor";
         return false;
      }
   }
   return true;
}

static bool
emit_block(struct ctx *c, nir_block *block)
{
   nir_foreach_instr(instr, block) {
      bool ok = true;
      switch (instr->type) {
      case nir_instr_type_phi:
         ok = emit_phi(c, nir_instr_as_phi(instr));
         break;
      case nir_instr_type_alu:
         ok = emit_alu(c, nir_instr_as_alu(instr));
         break;
      case nir_instr_type_intrinsic:
         ok = emit_intrinsic(c, nir_instr_as_intrinsic(instr));
         break;
      case nir_instr_type_load_const: {
         nir_load_const_instr *lc = nir_instr_as_load_const(instr);
         for (unsigned i = 0; i < lc->def.num_components; i++) {
            uint32_t v = lc->def.bit_size == 1 ? (lc->value[i].b ? ~0u : 0u) : lc->value[i].u32;
            set_def(c, &lc->def, i, ir_imm(v));
         }
         break;
      }
      case nir_instr_type_undef: {
         nir_undef_instr *u = nir_instr_as_undef(instr);
         for (unsigned i = 0; i < u->def.num_components; i++)
            set_def(c, &u->def, i, ir_imm(0));
         break;
      }
      case nir_instr_type_tex:
         ok = emit_tex(c, nir_instr_as_tex(instr));
         break;
      case nir_instr_type_jump: {
         nir_jump_instr *j = nir_instr_as_jump(instr);
         /* an exit of a uniform loop is uniform (mark_uniform_cf) */
         const bool uniform = c->loop && _mesa_set_search(c->uniform_cf, c->loop);
         c->pending = block; /* the jump ends it */
         if (j->type == nir_jump_break)
            emit_cf(c, VAGX_OP_BREAK, ir_none(), uniform);
         else if (j->type == nir_jump_continue)
            emit_cf(c, VAGX_OP_CONTINUE, ir_none(), uniform);
         else {
            c->ir.error = "unsupported jump";
            ok = false;
         }
         break;
      }
      default:
         c->ir.error = "unsupported NIR instruction type";
         ok = false;
      }
      if (!ok)
         return false;
   }
   if (!nir_block_ends_in_jump(block))
      c->pending = block;
   return true;
}

/* The ifs whose condition and the loops whose breaks and continues NIR's
 * divergence analysis proves uniform, into c->uniform_cf: selection marks
 * their instructions `uniform` and vagx_lower_uniform_cf makes them plain
 * jumps.  Run on the SSA form selection reads, which it leaves as it is
 * (the marks are read back by node).  A loop stays divergent when one of its exits lies under a
 * divergent if (NIR's divergent_break/continue say so already; checked
 * here because the jump must stay at the loop's depth). */
static void
mark_uniform_cf(struct ctx *c, struct exec_list *list, bool *loop_ok, bool in_divergent_if)
{
   foreach_list_typed(nir_cf_node, node, node, list) {
      switch (node->type) {
      case nir_cf_node_block:
         nir_foreach_instr(instr, nir_cf_node_as_block(node))
            if (instr->type == nir_instr_type_jump && in_divergent_if && loop_ok)
               *loop_ok = false;
         break;
      case nir_cf_node_if: {
         nir_if *nif = nir_cf_node_as_if(node);
         const bool uniform = !nir_src_is_divergent(&nif->condition);
         if (uniform)
            _mesa_set_add(c->uniform_cf, nif);
         mark_uniform_cf(c, &nif->then_list, loop_ok, in_divergent_if || !uniform);
         mark_uniform_cf(c, &nif->else_list, loop_ok, in_divergent_if || !uniform);
         break;
      }
      case nir_cf_node_loop: {
         nir_loop *loop = nir_cf_node_as_loop(node);
         bool ok = !nir_loop_is_divergent(loop);
         mark_uniform_cf(c, &loop->body, &ok, false);
         if (ok)
            _mesa_set_add(c->uniform_cf, loop);
         break;
      }
      default:
         break;
      }
   }
}

static bool
emit_cf_list(struct ctx *c, struct exec_list *list)
{
   foreach_list_typed(nir_cf_node, node, node, list) {
      switch (node->type) {
      case nir_cf_node_block:
         if (!emit_block(c, nir_cf_node_as_block(node)))
            return false;
         break;
      case nir_cf_node_if: {
         nir_if *nif = nir_cf_node_as_if(node);
         const bool uniform = _mesa_set_search(c->uniform_cf, nif) != NULL;
         const unsigned at_if = c->ir.num_instrs;
         emit_cf(c, VAGX_OP_IF, get_src(c, &nif->condition, 0), uniform);
         if (!emit_cf_list(c, &nif->then_list))
            return false;
         if (!nir_cf_list_is_empty_block(&nif->else_list)) {
            emit_cf(c, VAGX_OP_ELSE, ir_none(), uniform);
            if (!emit_cf_list(c, &nif->else_list))
               return false;
         } else {
            /* no else: the if's not-taken edge is the empty else block's */
            c->block_end[nir_if_first_else_block(nif)->index] = at_if;
         }
         emit_cf(c, VAGX_OP_ENDIF, ir_none(), uniform);
         break;
      }
      case nir_cf_node_loop: {
         nir_loop *loop = nir_cf_node_as_loop(node);
         const bool uniform = _mesa_set_search(c->uniform_cf, loop) != NULL;
         nir_loop *outer = c->loop;
         c->loop = loop;
         if (nir_loop_has_continue_construct(loop)) {
            c->ir.error = "loop with a continue construct";
            return false;
         }
         emit_cf(c, VAGX_OP_LOOP, ir_none(), uniform);
         if (!emit_cf_list(c, &loop->body))
            return false;
         emit_cf(c, VAGX_OP_ENDLOOP, ir_none(), uniform);
         c->loop = outer;
         break;
      }
      default:
         c->ir.error = "unsupported control flow";
         return false;
      }
   }
   return true;
}

/* The user words of a vertex-output layout (position first, then 4
 * words per written location in location order): the first word of each
 * location in loc_word (0xff: none), the count returned.  The vertex
 * shader's output layout, a geometry program's output layout, and the
 * words a geometry program reads from its vertex shader (ld_vin). */
static unsigned
user_words(uint64_t written, uint8_t loc_word[VARYING_SLOT_MAX], uint8_t *word_location,
           uint8_t *word_component)
{
   unsigned words = 0;
   memset(loc_word, 0xff, VARYING_SLOT_MAX);
   u_foreach_bit64(loc, written) {
      /* gl_ClipVertex gets user words although nothing rasterises it:
       * transform feedback may capture it (vagx_vs_output_word) */
      /* clip distances are clip-distance outputs and also user words:
       * GLSL 1.30 fragment shaders may read gl_ClipDistance, and clip
       * distance outputs are not varying slots (render.md) */
      if (loc == VARYING_SLOT_POS || loc == VARYING_SLOT_PSIZ ||
          loc == VARYING_SLOT_EDGE ||
          loc == VARYING_SLOT_LAYER || loc == VARYING_SLOT_VIEWPORT)
         continue;
      if (words + 4 > VAGX_MAX_VARYING_WORDS)
         break;
      loc_word[loc] = words;
      for (unsigned k = 0; word_location && k < 4; k++) {
         word_location[words + k] = loc;
         word_component[words + k] = k;
      }
      words += 4;
   }
   return words;
}

unsigned
vagx_vs_output_words(uint64_t written, unsigned clip_distances)
{
   uint8_t loc_word[VARYING_SLOT_MAX];
   return 4 + user_words(written, loc_word, NULL, NULL) + !!(written & VARYING_BIT_PSIZ) +
          clip_distances + !!(written & VARYING_BIT_EDGE);
}

/* Geometry: where ld_vin finds the feeding vertex shader's outputs */
static void
gs_input_layout(struct ctx *c)
{
   const uint64_t written =
      c->fs_key ? c->fs_key->gs_vs_outputs[0] | (uint64_t)c->fs_key->gs_vs_outputs[1] << 32
                : VARYING_BIT_POS;
   const unsigned words = user_words(written, c->in_loc_word, NULL, NULL);
   c->in_psiz = !!(written & VARYING_BIT_PSIZ);
   c->in_psiz_word = 4 + words;
   c->in_clip_word = c->in_psiz_word + c->in_psiz;
   c->in_clip_count = c->fs_key ? c->fs_key->gs_vs_clip_distances : 0;
}

/* The ld_vin word of (location, component) of the vertex shader's output,
 * -1 if it does not write it */
static int
gs_input_word(const struct ctx *c, unsigned location, unsigned comp)
{
   if (location == VARYING_SLOT_POS)
      return comp;
   if (location == VARYING_SLOT_PSIZ)
      return c->in_psiz && comp == 0 ? (int)c->in_psiz_word : -1;
   if (location == VARYING_SLOT_CLIP_DIST0 || location == VARYING_SLOT_CLIP_DIST1) {
      unsigned i = (location - VARYING_SLOT_CLIP_DIST0) * 4 + comp;
      return i < c->in_clip_count ? (int)(c->in_clip_word + i) : -1;
   }
   if (location < VARYING_SLOT_MAX && c->in_loc_word[location] != 0xff)
      return 4 + c->in_loc_word[location] + comp;
   return -1;
}

/* Output layout of a vertex shader or geometry program (the same order) */
static void
vs_layout(struct ctx *c)
{
   struct vagx_shader_info *info = c->info;
   uint64_t written = c->nir->info.outputs_written;
   if (c->nir->info.stage == MESA_SHADER_GEOMETRY)
      written &= ~VARYING_BIT_EDGE; /* no edge flag in a geometry pipeline */
   unsigned words =
      user_words(written, c->user_loc_word, info->vs_word_location, info->vs_word_component);
   info->vs_user_words = words;
   info->vs_point_size = !!(written & VARYING_BIT_PSIZ);
   c->psiz_word = 4 + words;
   c->clip_word = 4 + words + (info->vs_point_size ? 1 : 0);
   info->vs_clip_distances = c->nir->info.clip_distance_array_size;
   /* the edge flag word follows the clip distances (cmd_bind_vertex_pipeline) */
   info->vs_edge_flag = !!(written & VARYING_BIT_EDGE);
   c->edge_word = c->clip_word + info->vs_clip_distances;
}

/* Vertex-output word (bind_vertex_pipeline order) that holds component
 * `component` of output `location`, as vs_layout and store_output assign
 * them; -1 if the shader does not write it.  Stream output declarations
 * (vagx_draw.c) name these words. */
int
vagx_vs_output_word(const struct vagx_shader_info *info, unsigned location, unsigned component)
{
   const unsigned psiz_word = 4 + info->vs_user_words;
   const unsigned clip_word = psiz_word + (info->vs_point_size ? 1 : 0);
   if (component > 3)
      return -1;
   if (location == VARYING_SLOT_POS)
      return component;
   if (location == VARYING_SLOT_PSIZ)
      return info->vs_point_size && component == 0 ? (int)psiz_word : -1;
   if (location == VARYING_SLOT_CLIP_DIST0 || location == VARYING_SLOT_CLIP_DIST1) {
      unsigned i = (location - VARYING_SLOT_CLIP_DIST0) * 4 + component;
      return i < info->vs_clip_distances ? (int)(clip_word + i) : -1;
   }
   for (unsigned w = 0; w < info->vs_user_words; w++)
      if (info->vs_word_location[w] == location && info->vs_word_component[w] == component)
         return 4 + w;
   return -1;
}

static bool
lower_blend_for_key(nir_shader *nir, const struct vagx_fs_key *key)
{
   /* blending is part of the key in the driver: see vagx_state.c */
   return false;
}

/* Fragment facts the driver's `opaque` bit depends on, read off the emitted
 * IR rather than the NIR so that no lowering can hide them: memory and image
 * stores and atomics (side effects), tile and sample-mask reads, and which render targets
 * are written unconditionally (an st_tile at nesting depth 0; a discard is
 * reported separately in fs_discards). */
static void
fs_scan_ir(const vagx_ir *ir, struct vagx_shader_info *info)
{
   unsigned depth = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      switch (I->op) {
      case VAGX_OP_IF:
      case VAGX_OP_LOOP:
         depth++;
         break;
      case VAGX_OP_ENDIF:
      case VAGX_OP_ENDLOOP:
         depth--;
         break;
      case VAGX_OP_LD_TILE:
         info->fs_reads_tile = true;
         break;
      case VAGX_OP_ST_TILE:
         if (!depth)
            info->fs_rt_always_written |= 1u << I->mod;
         break;
      case VAGX_OP_IMG_ST: /* a graphics op, not flagged MEM, but a memory write */
         info->fs_side_effects = true;
         break;
      default:
         if ((vagx_info(I->op)->flags & VAGX_OPF_MEM) && I->op != VAGX_OP_LD_GLOBAL &&
             I->op != VAGX_OP_LD_SHARED)
            info->fs_side_effects = true;
         break;
      }
      for (unsigned s = 0; s < 3; s++)
         if (I->src[s].file == IR_SR && I->src[s].v == VAGX_SR_SAMPLE_MASK)
            info->fs_reads_sample_mask = true;
   }
}

bool
vagx_compile_shader(nir_shader *nir, const struct vagx_fs_key *fs_key,
                    struct vagx_shader_info *info, const char **err)
{
   /* the whole backend, late NIR passes included: what a variant costs */
   const int64_t t0 = os_time_get_nano();
   struct ctx c = { 0 };
   memset(info, 0, sizeof(*info));
   info->stage = nir->info.stage;
   c.nir = nir;
   c.info = info;
   c.fs_key = fs_key;
   (void)lower_blend_for_key;

   if (nir->info.stage == MESA_SHADER_FRAGMENT) {
      info->fs_cf_base = 2; /* cf0 = W, cf1 = Z (bound only when used) */
      /* st's persample_shading variant (glMinSampleShading with a
       * fraction times the samples above 1: every sample then, which GL
       * allows) and `sample` inputs: once per sample */
      bool ms = fs_key && fs_key->samples == 4;
      info->fs_per_sample = ms && nir->info.fs.uses_sample_shading;
      NIR_PASS(_, nir, nir_shader_intrinsics_pass, lower_sample_io, nir_metadata_control_flow,
               &ms);
   }

   if (nir->info.stage == MESA_SHADER_VERTEX && fs_key)
      NIR_PASS(_, nir, vagx_lower_vertex_formats, fs_key);

   /* late lowering.  Variant passes (nir_lower_blend: logic ops, unorm
    * conversions) create ALU ops after preprocessing, e.g. fdiv, which only
    * nir_opt_algebraic lowers for the options (lower_fdiv etc.) */
   NIR_PASS(_, nir, nir_lower_alu_to_scalar, NULL, NULL);
   NIR_PASS(_, nir, nir_opt_algebraic);
   NIR_PASS(_, nir, nir_opt_constant_folding);
   NIR_PASS(_, nir, nir_opt_algebraic_late);
   NIR_PASS(_, nir, nir_opt_constant_folding);
   NIR_PASS(_, nir, nir_copy_prop);
   NIR_PASS(_, nir, nir_opt_dce);
   NIR_PASS(_, nir, nir_opt_cse);
   /* 1-bit booleans are selected as 32-bit ~0/0 masks (the ISA's fcmp/icmp
    * results), so no nir_lower_bool_to_int32. */
   c.uniform_cf = _mesa_pointer_set_create(NULL);
   if (!(vagx_debug_flags() & VAGX_DBG_NO_UNIFORM_CF)) {
      nir_divergence_analysis(nir);
      mark_uniform_cf(&c, &nir_shader_get_entrypoint(nir)->body, NULL, false);
   }
   /* selected in SSA form: phis become IR phis (vagx_lower_phis leaves
    * SSA after the backend's SSA passes) */
   nir_index_ssa_defs(nir_shader_get_entrypoint(nir));
   nir_index_blocks(nir_shader_get_entrypoint(nir));

   if (vagx_debug_flags() & VAGX_DBG_NIR)
      nir_print_shader(nir, stderr);

   nir_function_impl *impl = nir_shader_get_entrypoint(nir);
   vagx_ir_init(&c.ir, info, nir->info.stage);
   c.defs = calloc(impl->ssa_alloc + 1, sizeof(vagx_ir_src *));
   c.block_end = malloc((impl->num_blocks + 1) * sizeof(unsigned));
   memset(c.block_end, 0xff, (impl->num_blocks + 1) * sizeof(unsigned));
   util_dynarray_init(&c.phis, NULL);
   if (nir->info.stage == MESA_SHADER_VERTEX || nir->info.stage == MESA_SHADER_GEOMETRY)
      vs_layout(&c);
   if (nir->info.stage == MESA_SHADER_GEOMETRY)
      gs_input_layout(&c);

   bool ok = emit_cf_list(&c, &impl->body);
   if (ok) {
      emit_cf(&c, VAGX_OP_END, ir_none(), false);
      ok = fill_phis(&c);
   }
   if (ok) {
      if (nir->info.stage == MESA_SHADER_FRAGMENT)
         fs_scan_ir(&c.ir, info);
      vagx_scan_mem_ir(nir, &c.ir, info);
      if (info->push_count >= VAGX_MAX_PUSH) {
         c.ir.error = "too many uniform words";
         ok = false;
      } else {
         ok = vagx_ir_finish(&c.ir);
      }
   }
   if (!ok && err)
      *err = c.ir.error ? c.ir.error : "unknown";
   for (unsigned i = 0; i <= impl->ssa_alloc; i++)
      free(c.defs[i]);
   free(c.defs);
   free(c.block_end);
   util_dynarray_fini(&c.phis);
   _mesa_set_destroy(c.uniform_cf, NULL);
   vagx_ir_fini(&c.ir);
   info->stat_compile_ns = os_time_get_nano() - t0;
   return ok;
}
