/* SPDX-License-Identifier: MIT */
/* Compiler unit test (TAP): NIR built with nir_builder, compiled, then every
 * instruction decoded and validated with the ISA generator's vagx_decode(). */
#include <stdio.h>
#include "compiler/nir/nir_builder.h"
#include "vagx_compiler.h"
#include "vagx_hw.h"
#include "vagx_isa.h"

static int n_test;

static bool
check(const char *name, nir_shader *nir, const struct vagx_fs_key *key)
{
   struct vagx_shader_info info;
   const char *err = NULL;
   vagx_preprocess_nir(nir);
   bool ok = vagx_compile_shader(nir, key, &info, &err);
   if (ok) {
      for (unsigned i = 0; i < info.code_words;) {
         struct vagx_instr I;
         int n = vagx_decode(info.code + i, info.code_words - i, &I);
         if (n < 0) {
            ok = false;
            err = vagx_isa_strerror(n);
            break;
         }
         i += n;
      }
      vagx_disassemble(stdout, info.code, info.code_words);
      vagx_print_stats(stdout, &info, name);
      vagx_shader_info_free(&info);
   }
   printf("%s %d - %s%s%s\n", ok ? "ok" : "not ok", ++n_test, name, ok ? "" : ": ", ok ? "" : err);
   ralloc_free(nir);
   return ok;
}

/* GLSL 1.30 tests: compile, decode every instruction into code[] and
 * check properties of the machine code (the decoder is the ISA
 * generator's, so the expectations come from docs/hw/isa.md, not from
 * the compiler). */
#define MAX_DECODED 512
static struct vagx_instr code[MAX_DECODED];
static unsigned n_code;

static const char *
compile_decoded(nir_shader *nir, const struct vagx_fs_key *key, struct vagx_shader_info *info)
{
   const char *err = "compile failed";
   n_code = 0;
   vagx_preprocess_nir(nir);
   if (!vagx_compile_shader(nir, key, info, &err))
      return err;
   for (unsigned w = 0; w < info->code_words;) {
      int n = vagx_decode(info->code + w, info->code_words - w, &code[n_code]);
      if (n < 0)
         return vagx_isa_strerror(n);
      if (++n_code == MAX_DECODED)
         return "program too long for the test";
      w += n;
   }
   vagx_disassemble(stdout, info->code, info->code_words);
   return NULL;
}

static unsigned
count_op(unsigned op)
{
   unsigned n = 0;
   for (unsigned i = 0; i < n_code; i++)
      n += code[i].op == op;
   return n;
}

/* sources reading special register sr (of instructions of opcode op;
 * any opcode if op is negative) */
static unsigned
count_sr_reads(unsigned sr, int op)
{
   unsigned n = 0;
   for (unsigned i = 0; i < n_code; i++)
      for (unsigned k = 0; k < 3; k++)
         n += code[i].src[k].file == VAGX_FILE_SR && code[i].src[k].idx == sr &&
              (op < 0 || code[i].op == (unsigned)op);
   return n;
}

static const struct vagx_instr *
find_op(unsigned op, unsigned nth)
{
   for (unsigned i = 0; i < n_code; i++)
      if (code[i].op == op && nth-- == 0)
         return &code[i];
   return NULL;
}

static bool
report(const char *name, const char *err, nir_shader *nir, struct vagx_shader_info *info)
{
   printf("%s %d - %s%s%s\n", err ? "not ok" : "ok", ++n_test, name, err ? ": " : "",
          err ? err : "");
   if (info)
      vagx_shader_info_free(info);
   ralloc_free(nir);
   return !err;
}

/* A texture instruction on texture/sampler 0 (GLSL 1.30's texelFetch,
 * textureSize, shadow and array lookups, textureOffset). */
static nir_def *
build_tex(nir_builder *b, nir_texop op, enum glsl_sampler_dim dim, bool array, nir_alu_type type,
          unsigned ncomp, nir_def *coord, nir_def *lod, nir_def *cmp, nir_def *offset)
{
   nir_tex_instr *t = nir_tex_instr_create(b->shader, !!coord + !!lod + !!cmp + !!offset);
   t->op = op;
   t->sampler_dim = dim;
   t->is_array = array;
   t->is_shadow = cmp != NULL;
   t->is_new_style_shadow = cmp != NULL;
   t->dest_type = type;
   t->coord_components = coord ? coord->num_components : 0;
   unsigned i = 0;
   if (coord)
      t->src[i++] = nir_tex_src_for_ssa(nir_tex_src_coord, coord);
   if (lod)
      t->src[i++] = nir_tex_src_for_ssa(nir_tex_src_lod, lod);
   if (cmp)
      t->src[i++] = nir_tex_src_for_ssa(nir_tex_src_comparator, cmp);
   if (offset)
      t->src[i++] = nir_tex_src_for_ssa(nir_tex_src_offset, offset);
   nir_def_init(&t->instr, &t->def, ncomp, 32);
   nir_builder_instr_insert(b, &t->instr);
   return &t->def;
}

/* tex's extension word (isa.md): imm1[18:16] dim, [19] .array, [20] .shadow */
#define TEX_DIM(I) (((I)->imm[1] >> 16) & 7)
#define TEX_ARRAY(I) (((I)->imm[1] >> 19) & 1)
#define TEX_SHADOW(I) (((I)->imm[1] >> 20) & 1)

static void
fs_out(nir_builder *b, nir_def *v)
{
   nir_store_output(b, v, nir_imm_int(b, 0), .io_semantics.location = FRAG_RESULT_DATA0,
                    .write_mask = BITFIELD_MASK(v->num_components));
   b->shader->info.io_lowered = true;
}

/* A fragment shader named `name` in *b; returns its input VARYING_SLOT_VAR1
 * (`comps` components, smooth) */
static nir_def *
fs_smooth_var1(nir_builder *b, const char *name, unsigned comps)
{
   *b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "%s", name);
   nir_def *bary = nir_load_barycentric_pixel(b, 32, .interp_mode = INTERP_MODE_SMOOTH);
   return nir_load_interpolated_input(b, comps, 32, bary, nir_imm_int(b, 0),
                                      .io_semantics.location = VARYING_SLOT_VAR1);
}

/* Whether an instruction after code[i] reads r`reg` before one writes it. */
static bool
read_after(unsigned i, unsigned reg)
{
   for (unsigned k = i + 1; k < n_code; k++) {
      for (unsigned s = 0; s < vagx_nsrc(&code[k]); s++)
         if (code[k].src[s].file == VAGX_FILE_R && code[k].src[s].idx <= reg &&
             reg < code[k].src[s].idx + vagx_src_regs(&code[k], s))
            return true;
      const unsigned nd = vagx_dst_regs(&code[k]);
      if (nd && code[k].dst <= reg && reg < code[k].dst + nd)
         return false;
   }
   return false;
}

/* GL_ARB_sparse_texture2 (contract 1.8, isa.md): sparseTexelFetchARB and
 * sparseTextureARB are tex.fetch.resid and tex.auto.resid, whose code in
 * dst + 4 is used; sparseTexelsResidentARB(code_a & code_b) is an or of
 * the codes compared with 0; sparseImageLoadARB is img_ld.resid; a lookup
 * without residency has no .resid. */
static bool
test_sparse_residency(void)
{
   struct vagx_shader_info info;
   struct vagx_fs_key ikey = { .nr_cbufs = 1 };
   ikey.rt_format[0] = PIPE_FORMAT_R32G32B32A32_SINT;
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "sparse");
   nir_def *fl = nir_load_input(&b, 2, 32, nir_imm_int(&b, 0),
                                .io_semantics.location = VARYING_SLOT_VAR0, .dest_type = nir_type_int32);
   nir_def *bary = nir_load_barycentric_pixel(&b, 32, .interp_mode = INTERP_MODE_SMOOTH);
   nir_def *sm = nir_load_interpolated_input(&b, 2, 32, bary, nir_imm_int(&b, 0),
                                             .io_semantics.location = VARYING_SLOT_VAR1);
   nir_def *f = build_tex(&b, nir_texop_txf, GLSL_SAMPLER_DIM_2D, false, nir_type_float32, 5, fl,
                          nir_imm_int(&b, 0), NULL, NULL);
   nir_instr_as_tex(f->parent_instr)->is_sparse = true;
   nir_def *s = build_tex(&b, nir_texop_tex, GLSL_SAMPLER_DIM_2D, false, nir_type_float32, 5, sm,
                          NULL, NULL, NULL);
   nir_instr_as_tex(s->parent_instr)->is_sparse = true;
   nir_def *p = build_tex(&b, nir_texop_tex, GLSL_SAMPLER_DIM_2D, false, nir_type_float32, 4, sm,
                          NULL, NULL, NULL);
   nir_def *rc = nir_sparse_residency_code_and(&b, nir_channel(&b, f, 4), nir_channel(&b, s, 4));
   nir_def *img = nir_image_sparse_load(&b, 5, 32, nir_imm_int(&b, 0), nir_pad_vec4(&b, fl),
                                        nir_imm_int(&b, 0), nir_imm_int(&b, 0),
                                        .image_dim = GLSL_SAMPLER_DIM_2D, .dest_type = nir_type_float32);
   nir_def *res = nir_b2i32(&b, nir_is_sparse_texels_resident(&b, 1, rc));
   nir_def *ires = nir_b2i32(&b, nir_is_sparse_texels_resident(&b, 1, nir_channel(&b, img, 4)));
   fs_out(&b, nir_vec4(&b, res, nir_f2i32(&b, nir_fadd(&b, nir_channel(&b, f, 0), nir_channel(&b, p, 1))),
                       nir_f2i32(&b, nir_fadd(&b, nir_channel(&b, s, 2), nir_channel(&b, img, 0))), ires));
   const char *err = compile_decoded(b.shader, &ikey, &info);
   if (!err) {
      unsigned resid = 0, plain = 0, codes_used = 0, img_resid = 0;
      for (unsigned i = 0; i < n_code; i++) {
         if (code[i].op == VAGX_OP_TEX) {
            const bool r = code[i].imm[1] & VAGX_FLAG_TEX_RESID;
            resid += r;
            plain += !r;
            codes_used += r && read_after(i, code[i].dst + 4);
         }
         if (code[i].op == VAGX_OP_IMG_LD && (code[i].imm[1] & VAGX_FLAG_IMG_LD_RESID)) {
            img_resid++;
            codes_used += read_after(i, code[i].dst + 4);
         }
      }
      if (resid != 2 || plain != 1)
         err = "expected two tex.resid (the sparse fetch and lookup) and one tex without";
      else if (img_resid != 1)
         err = "sparseImageLoadARB is not img_ld.resid";
      else if (codes_used != 3)
         err = "a residency code (dst + 4) is not read";
      else if (!count_op(VAGX_OP_OR))
         err = "sparse_residency_code_and is not an or of the codes";
   }
   return report("sparse-residency", err, b.shader, err ? NULL : &info);
}

/* A vertex shader writing attribute 0, gl_InstanceID and gl_BaseInstance
 * to the position */
static nir_builder
base_instance_vs(const char *name)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, &vagx_nir_options, "%s", name);
   nir_def *a0 = nir_load_input(&b, 1, 32, nir_imm_int(&b, 0), .base = 0,
                                .io_semantics.location = VERT_ATTRIB_GENERIC0);
   nir_store_output(&b, nir_vec4(&b, a0, nir_u2f32(&b, nir_load_instance_id(&b)),
                                 nir_u2f32(&b, nir_load_base_instance(&b)), nir_imm_float(&b, 1.0)),
                    nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_POS, .write_mask = 0xf);
   b.shader->info.outputs_written = VARYING_BIT_POS;
   b.shader->info.io_lowered = true;
   return b;
}

static bool
test_glsl130(void)
{
   bool all = true;
   struct vagx_shader_info info;
   struct vagx_fs_key ikey = { .nr_cbufs = 1 };
   ikey.rt_format[0] = PIPE_FORMAT_R32G32B32A32_SINT;
   const char *err;

   /* integer varyings with flat interpolation, a noperspective varying,
    * integer division / modulo, shifts and bit ops into an integer target */
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "int");
   nir_def *fl = nir_load_input(&b, 2, 32, nir_imm_int(&b, 0),
                                .io_semantics.location = VARYING_SLOT_VAR0, .dest_type = nir_type_int32);
   nir_def *bary = nir_load_barycentric_pixel(&b, 32, .interp_mode = INTERP_MODE_NOPERSPECTIVE);
   nir_def *np = nir_load_interpolated_input(&b, 1, 32, bary, nir_imm_int(&b, 0),
                                             .io_semantics.location = VARYING_SLOT_VAR1);
   nir_def *x = nir_channel(&b, fl, 0), *y = nir_channel(&b, fl, 1);
   nir_def *q = nir_iadd(&b, nir_idiv(&b, x, y), nir_umod(&b, x, y));
   nir_def *sh = nir_ior(&b, nir_ishl(&b, x, y), nir_ixor(&b, nir_ushr(&b, x, y), nir_ishr(&b, y, x)));
   fs_out(&b, nir_vec4(&b, q, sh, nir_iand(&b, nir_inot(&b, x), y), nir_f2i32(&b, np)));
   err = compile_decoded(b.shader, &ikey, &info);
   if (!err) {
      unsigned nflat = 0, nlin = 0;
      for (unsigned i = 0; i < info.fs_cf_count; i++) {
         nflat += info.fs_cf[i].location == VARYING_SLOT_VAR0 && info.fs_cf[i].interp == VAGX_INTERP_FLAT;
         nlin += info.fs_cf[i].location == VARYING_SLOT_VAR1 && info.fs_cf[i].interp == VAGX_INTERP_LINEAR;
      }
      const struct vagx_instr *it = find_op(VAGX_OP_ITER, 0);
      if (nflat != 2 || nlin != 1)
         err = "expected 2 FLAT bindings of VAR0 and 1 LINEAR binding of VAR1";
      else if (count_op(VAGX_OP_LDCF) != 2 || count_op(VAGX_OP_ITER) != 1)
         err = "expected 2 ldcf (flat) and 1 iter";
      else if (it->mod & 4) /* iter mod[2] = .persp */
         err = "noperspective varying interpolated with .persp";
      else if (!count_op(VAGX_OP_IDIV) || !count_op(VAGX_OP_UMOD) || !count_op(VAGX_OP_SHL) ||
               !count_op(VAGX_OP_SHR) || !count_op(VAGX_OP_ASHR) || !count_op(VAGX_OP_XOR) ||
               !count_op(VAGX_OP_NOT))
         err = "missing idiv/umod/shl/shr/ashr/xor/not";
   }
   all &= report("glsl130-int-flat-noperspective-bitops", err, b.shader, err ? NULL : &info);

   /* texelFetch(isampler2DArray, ivec3, lod) and a sampler2DArrayShadow
    * lookup: fetch mode, 2d.array, three coordinate registers; shadow
    * with the reference in src2 */
   b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "arr");
   fl = nir_load_input(&b, 4, 32, nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_VAR0,
                       .dest_type = nir_type_int32);
   bary = nir_load_barycentric_pixel(&b, 32, .interp_mode = INTERP_MODE_SMOOTH);
   nir_def *sm = nir_load_interpolated_input(&b, 4, 32, bary, nir_imm_int(&b, 0),
                                             .io_semantics.location = VARYING_SLOT_VAR1);
   nir_def *f = build_tex(&b, nir_texop_txf, GLSL_SAMPLER_DIM_2D, true, nir_type_int32, 4,
                          nir_trim_vector(&b, fl, 3), nir_channel(&b, fl, 3), NULL, NULL);
   nir_def *sh2 = build_tex(&b, nir_texop_tex, GLSL_SAMPLER_DIM_2D, true, nir_type_float32, 1,
                            nir_trim_vector(&b, sm, 3), NULL, nir_channel(&b, sm, 3), NULL);
   fs_out(&b, nir_vec4(&b, nir_channel(&b, f, 0), nir_channel(&b, f, 3), nir_f2i32(&b, sh2),
                       nir_imm_int(&b, 1)));
   err = compile_decoded(b.shader, &ikey, &info);
   if (!err) {
      const struct vagx_instr *t0 = NULL, *t1 = NULL;
      for (unsigned i = 0; i < n_code; i++) {
         if (code[i].op == VAGX_OP_TEX && (code[i].mod & 7) == VAGX_TEXMODE_FETCH)
            t0 = &code[i];
         if (code[i].op == VAGX_OP_TEX && (code[i].mod & 7) == VAGX_TEXMODE_AUTO)
            t1 = &code[i];
      }
      if (!t0 || !t1)
         err = "expected a tex.fetch and a tex.auto";
      else if (TEX_DIM(t0) != VAGX_DIM__2D || !TEX_ARRAY(t0) || TEX_SHADOW(t0))
         err = "texelFetch is not tex.fetch 2d.array";
      else if (TEX_DIM(t1) != VAGX_DIM__2D || !TEX_ARRAY(t1) || !TEX_SHADOW(t1))
         err = "shadow array lookup is not tex 2d.array.shadow";
      else if (t0->src[1].file == VAGX_FILE_IMM)
         err = "texelFetch lod is not the shader's value";
   }
   all &= report("glsl130-texelfetch-array-shadow-array", err, b.shader, err ? NULL : &info);

   /* textureSize(isampler1DArray, lod) = (width, layers): the layer count is
    * component 2 of tex.size's result (render.md), so the value stored as
    * the output's y must come from the result register + 2 */
   b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "txs");
   fl = nir_load_input(&b, 1, 32, nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_VAR0,
                       .dest_type = nir_type_int32);
   nir_def *sz = build_tex(&b, nir_texop_txs, GLSL_SAMPLER_DIM_1D, true, nir_type_int32, 2, NULL,
                           fl, NULL, NULL);
   fs_out(&b, nir_vec4(&b, nir_channel(&b, sz, 0), nir_channel(&b, sz, 1), nir_imm_int(&b, 0),
                       nir_imm_int(&b, 0)));
   err = compile_decoded(b.shader, &ikey, &info);
   if (!err) {
      const struct vagx_instr *t = find_op(VAGX_OP_TEX, 0), *st = find_op(VAGX_OP_ST_TILE, 0);
      if (!t || (t->mod & 7) != VAGX_TEXMODE_SIZE || TEX_DIM(t) != VAGX_DIM__1D || !TEX_ARRAY(t))
         err = "expected tex.size 1d.array";
      else if (!st)
         err = "no st_tile";
      else {
         /* follow the register that st_tile stores as y back through movs */
         unsigned want = t->dst + 2, reg = st->src[0].idx + 1;
         for (int i = (int)(st - code) - 1; i > (int)(t - code); i--)
            if (code[i].op == VAGX_OP_MOV && code[i].dst == reg && code[i].src[0].file == VAGX_FILE_R)
               reg = code[i].src[0].idx;
         if (reg != want)
            err = "textureSize(sampler1DArray).y is not the layer count (result component 2)";
      }
   }
   all &= report("glsl130-texturesize-1darray", err, b.shader, err ? NULL : &info);

   /* textureOffset(sampler2D, p, ivec2(1, -1)): no offset operand in tex;
    * lowered to a coordinate adjustment by 1/size of the level the texture
    * unit will pick, which the shader computes from the coarse
    * derivatives (fddx/fddy.coarse) like the unit: a tex.size with a
    * register lod, 1/size, then the lookup (tex.auto) */
   struct vagx_fs_key fkey = { .nr_cbufs = 1 };
   fkey.rt_format[0] = PIPE_FORMAT_R8G8B8A8_UNORM;
   sm = fs_smooth_var1(&b, "offset", 2);
   fs_out(&b, build_tex(&b, nir_texop_tex, GLSL_SAMPLER_DIM_2D, false, nir_type_float32, 4, sm,
                        NULL, NULL, nir_imm_ivec2(&b, 1, -1)));
   err = compile_decoded(b.shader, &fkey, &info);
   if (!err) {
      const struct vagx_instr *sz = NULL, *look = NULL;
      for (unsigned i = 0; i < n_code; i++) {
         if (code[i].op == VAGX_OP_TEX && (code[i].mod & 7) == VAGX_TEXMODE_SIZE &&
             code[i].src[1].file == VAGX_FILE_R)
            sz = &code[i];
         if (code[i].op == VAGX_OP_TEX && (code[i].mod & 7) == VAGX_TEXMODE_AUTO)
            look = &code[i];
      }
      if (!sz || !look || look < sz)
         err = "expected a tex.size at a computed level, then tex.auto";
      else if (!count_op(VAGX_OP_FRCP))
         err = "no 1/size";
      else if (!count_op(VAGX_OP_FDDX) || !count_op(VAGX_OP_FDDY) || !count_op(VAGX_OP_FLOG2))
         err = "the level is not computed from derivatives (fddx, fddy, flog2)";
   }
   all &= report("glsl130-textureoffset-lowered", err, b.shader, err ? NULL : &info);

   /* textureLodOffset(sampler2D, p, lod, ivec2(-2, 2)): the offset is in
    * texels of the level sampled, so the size is queried at the level
    * derived from the shader's lod (tex.levels to clamp it, tex.size with
    * a register lod), then tex.lod */
   sm = fs_smooth_var1(&b, "lodoffset", 3);
   fs_out(&b, build_tex(&b, nir_texop_txl, GLSL_SAMPLER_DIM_2D, false, nir_type_float32, 4,
                        nir_trim_vector(&b, sm, 2), nir_channel(&b, sm, 2), NULL,
                        nir_imm_ivec2(&b, -2, 2)));
   err = compile_decoded(b.shader, &fkey, &info);
   if (!err) {
      const struct vagx_instr *lv = NULL, *sz = NULL, *lod = NULL;
      for (unsigned i = 0; i < n_code; i++) {
         if (code[i].op != VAGX_OP_TEX)
            continue;
         unsigned m = code[i].mod & 7;
         if (m == VAGX_TEXMODE_LEVELS)
            lv = &code[i];
         else if (m == VAGX_TEXMODE_SIZE)
            sz = &code[i];
         else if (m == VAGX_TEXMODE_LOD)
            lod = &code[i];
      }
      if (!lv || !sz || !lod || sz < lv || lod < sz)
         err = "expected tex.levels, tex.size, tex.lod in that order";
      else if (sz->src[1].file != VAGX_FILE_R)
         err = "tex.size is not at the shader's level (lod operand not a register)";
      /* the level includes the sampler's LOD state: min_lod, max_lod and
       * lod_bias of sampler 0 in uniform words (SAMPLER_LOD 0..2) */
      unsigned seen = 0;
      for (unsigned i = 0; i < info.push_count; i++)
         if (info.push[i].kind == VAGX_PUSH_SAMPLER_LOD && info.push[i].arg < 3)
            seen |= 1u << info.push[i].arg;
      if (!err && seen != 7)
         err = "sampler 0's min_lod / max_lod / lod_bias words are not all pushed";
   }
   all &= report("glsl130-texturelodoffset-level-size", err, b.shader, err ? NULL : &info);

   /* textureGradOffset(sampler1DArray, vec2(s, layer), dPdx, dPdy, 1): the
    * gradients have one component (the layer has none); the level comes
    * from them (lower_txd turns the lookup into tex.lod) */
   sm = fs_smooth_var1(&b, "gradoffset", 4);
   {
      nir_tex_instr *t = nir_tex_instr_create(b.shader, 4);
      t->op = nir_texop_txd;
      t->sampler_dim = GLSL_SAMPLER_DIM_1D;
      t->is_array = true;
      t->dest_type = nir_type_float32;
      t->coord_components = 2;
      t->src[0] = nir_tex_src_for_ssa(nir_tex_src_coord, nir_trim_vector(&b, sm, 2));
      t->src[1] = nir_tex_src_for_ssa(nir_tex_src_ddx, nir_channel(&b, sm, 2));
      t->src[2] = nir_tex_src_for_ssa(nir_tex_src_ddy, nir_channel(&b, sm, 3));
      t->src[3] = nir_tex_src_for_ssa(nir_tex_src_offset, nir_imm_int(&b, 1));
      nir_def_init(&t->instr, &t->def, 4, 32);
      nir_builder_instr_insert(&b, &t->instr);
      fs_out(&b, &t->def);
   }
   err = compile_decoded(b.shader, &fkey, &info);
   if (!err) {
      const struct vagx_instr *lod = NULL;
      for (unsigned i = 0; i < n_code; i++)
         if (code[i].op == VAGX_OP_TEX && (code[i].mod & 7) == VAGX_TEXMODE_LOD)
            lod = &code[i];
      if (!lod || TEX_DIM(lod) != VAGX_DIM__1D || !TEX_ARRAY(lod))
         err = "expected tex.lod 1d.array";
      else if (!count_op(VAGX_OP_FLOG2))
         err = "the level is not computed from the gradients";
   }
   all &= report("glsl130-texturegradoffset-1darray", err, b.shader, err ? NULL : &info);

   /* gl_VertexID, uint conversion, round() and trunc() in a vertex shader */
   b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, &vagx_nir_options, "vid");
   nir_def *a0 = nir_load_input(&b, 1, 32, nir_imm_int(&b, 0), .base = 0,
                                .io_semantics.location = VERT_ATTRIB_GENERIC0);
   nir_def *vid = nir_u2f32(&b, nir_load_vertex_id(&b));
   nir_store_output(&b, nir_vec4(&b, vid, nir_fround_even(&b, a0), nir_ftrunc(&b, a0),
                                 nir_imm_float(&b, 1.0)),
                    nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_POS, .write_mask = 0xf);
   b.shader->info.outputs_written = VARYING_BIT_POS;
   b.shader->info.io_lowered = true;
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      bool vid_read = false;
      for (unsigned i = 0; i < n_code; i++)
         for (unsigned k = 0; k < 3; k++)
            vid_read |= code[i].src[k].file == VAGX_FILE_SR && code[i].src[k].idx == VAGX_SR_VERTEX_ID &&
                        code[i].op == VAGX_OP_U2F;
      if (!vid_read)
         err = "gl_VertexID is not u2f of sr.vertex_id";
      else if (!count_op(VAGX_OP_FRND) || !count_op(VAGX_OP_FTRUNC))
         err = "missing frnd / ftrunc";
   }
   all &= report("glsl130-vertexid-round-trunc", err, b.shader, err ? NULL : &info);

   /* base instance (contract 1.7): gl_InstanceID is sr.instance_id -
    * sr.base_instance, gl_BaseInstance sr.base_instance, an attribute's
    * fetch index (instance_id - base) / divisor + base; no uniform word
    * holds a base instance (an indirect draw's is in memory) */
   b = base_instance_vs("base-instance");
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      const unsigned base_reads = count_sr_reads(VAGX_SR_BASE_INSTANCE, -1);
      const unsigned inst_reads = count_sr_reads(VAGX_SR_INSTANCE_ID, -1);
      bool divisor = false;
      for (unsigned i = 0; i < info.push_count; i++)
         divisor |= info.push[i].kind == VAGX_PUSH_VBO_DIVISOR;
      /* the subtraction is shared (CSE): one read of each for it, one
       * more of the base for the fetch index's addition (or for
       * gl_BaseInstance, whichever copy propagation kept) */
      if (!base_reads || !inst_reads)
         err = "sr.base_instance or sr.instance_id not read";
      else if (!count_op(VAGX_OP_UDIV) || !divisor)
         err = "the fetch index is not divided by the divisor uniform";
      else if (!count_op(VAGX_OP_ISUB) || !count_op(VAGX_OP_IADD))
         err = "expected isub (instance - base) and iadd (+ base)";
   }
   all &= report("vs-base-instance", err, b.shader, err ? NULL : &info);

   /* before contract 1.7 (the key's no_base_instance): no sr.base_instance
    * (the driver draws from instance 0), gl_InstanceID is sr.instance_id,
    * the fetch index instance_id / divisor, gl_BaseInstance 0 */
   b = base_instance_vs("base-instance-1.6");
   struct vagx_fs_key old_dev = { .no_base_instance = true };
   err = compile_decoded(b.shader, &old_dev, &info);
   if (!err) {
      if (count_sr_reads(VAGX_SR_BASE_INSTANCE, -1))
         err = "sr.base_instance read for a pre-1.7 device";
      else if (!count_sr_reads(VAGX_SR_INSTANCE_ID, -1) || !count_op(VAGX_OP_UDIV))
         err = "expected sr.instance_id / divisor";
      else if (count_op(VAGX_OP_ISUB))
         err = "no base instance to subtract";
   }
   all &= report("vs-base-instance-pre-1.7", err, b.shader, err ? NULL : &info);

   /* draw parameters (contract 1.9): gl_BaseVertex reads sr.base_vertex,
    * gl_DrawID sr.draw_id, each once and without a uniform word (an
    * indirect draw's base vertex is in memory, a draw's index in cmd_draw) */
   b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, &vagx_nir_options, "draw-params");
   nir_store_output(&b, nir_vec4(&b, nir_u2f32(&b, nir_load_base_vertex(&b)),
                                 nir_u2f32(&b, nir_load_draw_id(&b)), nir_imm_float(&b, 0.0),
                                 nir_imm_float(&b, 1.0)),
                    nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_POS, .write_mask = 0xf);
   b.shader->info.outputs_written = VARYING_BIT_POS;
   b.shader->info.io_lowered = true;
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      if (count_sr_reads(VAGX_SR_BASE_VERTEX, VAGX_OP_U2F) != 1 ||
          count_sr_reads(VAGX_SR_DRAW_ID, VAGX_OP_U2F) != 1)
         err = "expected one u2f of sr.base_vertex and one of sr.draw_id";
      else if (info.push_count)
         err = "draw parameters must not read uniform words";
   }
   all &= report("vs-draw-parameters", err, b.shader, err ? NULL : &info);

   /* a uniform block (GL_ARB_uniform_buffer_object: block 0 is constant
    * buffer 1): ld_global.b128 from the address in two adjacent uniform
    * words UBO_LO/UBO_HI of buffer 1, the driver's contract (fill_push) */
   b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, &vagx_nir_options, "ubo");
   nir_def *blk = nir_load_ubo(&b, 4, 32, nir_imm_int(&b, 1), nir_imm_int(&b, 32), .range = ~0);
   nir_store_output(&b, blk, nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_POS,
                    .write_mask = 0xf);
   b.shader->info.outputs_written = VARYING_BIT_POS;
   b.shader->info.io_lowered = true;
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      const struct vagx_instr *ld = find_op(VAGX_OP_LD_GLOBAL, 0);
      if (!ld || ld->mod != VAGX_MEMSIZE_B128 || ld->src[0].file != VAGX_FILE_U)
         err = "expected ld_global.b128 from a uniform address";
      else if (ld->src[0].idx + 1 >= info.push_count ||
               info.push[ld->src[0].idx].kind != VAGX_PUSH_UBO_LO ||
               info.push[ld->src[0].idx].arg != 1 ||
               info.push[ld->src[0].idx + 1].kind != VAGX_PUSH_UBO_HI ||
               info.push[ld->src[0].idx + 1].arg != 1)
         err = "address words are not UBO_LO, UBO_HI of buffer 1";
      else if (!(ld->src[1].file == VAGX_FILE_IMM && ld->imm[ld->src[1].idx & 1] == 32) &&
               ld->src[1].file != VAGX_FILE_R)
         err = "offset operand is not 32";
   }
   all &= report("ubo-block-ld-global", err, b.shader, err ? NULL : &info);
   return all;
}

/* Stream output names vertex-output words with vagx_vs_output_word: it
 * must give the words of cmd_bind_vertex_pipeline's documented order
 * (position 0-3, user outputs 4 words each in slot order -- gl_ClipVertex
 * and, for GLSL 1.30 fragment shaders, the clip distances are user outputs
 * too --, point size, clip distances), and only words the compiled
 * shader's st_var write. */
static bool
test_vs_output_words(void)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, &vagx_nir_options, "vs-so");
   nir_def *a = nir_load_input(&b, 4, 32, nir_imm_int(&b, 0), .base = 0,
                               .io_semantics.location = VERT_ATTRIB_GENERIC0);
   static const struct { unsigned loc, mask; } st[] = {
      { VARYING_SLOT_POS, 0xf },  { VARYING_SLOT_VAR3, 0xf },       { VARYING_SLOT_VAR1, 0x3 },
      { VARYING_SLOT_PSIZ, 0x1 }, { VARYING_SLOT_CLIP_DIST0, 0xf }, { VARYING_SLOT_CLIP_DIST1, 0x1 },
      { VARYING_SLOT_CLIP_VERTEX, 0xf },
   };
   for (unsigned i = 0; i < ARRAY_SIZE(st); i++) {
      unsigned n = util_last_bit(st[i].mask);
      nir_store_output(&b, nir_channels(&b, nir_fadd_imm(&b, a, i + 1), BITFIELD_MASK(n)),
                       nir_imm_int(&b, 0), .io_semantics.location = st[i].loc,
                       .write_mask = st[i].mask);
      b.shader->info.outputs_written |= BITFIELD64_BIT(st[i].loc);
   }
   b.shader->info.clip_distance_array_size = 5;
   b.shader->info.io_lowered = true;
   struct vagx_shader_info info;
   const char *err = compile_decoded(b.shader, NULL, &info);
   /* expected words: the user outputs are CLIP_VERTEX (slot 16, words
    * 4-7), CLIP_DIST0/1 (17, 18: 8-15), VAR1 (16-19), VAR3 (20-23); point
    * size 24; the 5 clip distances 25-29, which stream output reads */
   static const struct { unsigned loc, comp; int word; } want[] = {
      { VARYING_SLOT_POS, 2, 2 },         { VARYING_SLOT_CLIP_VERTEX, 0, 4 },
      { VARYING_SLOT_CLIP_VERTEX, 3, 7 }, { VARYING_SLOT_VAR1, 1, 17 },
      { VARYING_SLOT_VAR3, 0, 20 },       { VARYING_SLOT_VAR3, 3, 23 },
      { VARYING_SLOT_PSIZ, 0, 24 },       { VARYING_SLOT_CLIP_DIST0, 0, 25 },
      { VARYING_SLOT_CLIP_DIST0, 3, 28 }, { VARYING_SLOT_CLIP_DIST1, 0, 29 },
      { VARYING_SLOT_CLIP_DIST1, 1, -1 }, { VARYING_SLOT_VAR2, 0, -1 },
      { VARYING_SLOT_PSIZ, 1, -1 },
   };
   static char msg[128];
   for (unsigned i = 0; !err && i < ARRAY_SIZE(want); i++) {
      int w = vagx_vs_output_word(&info, want[i].loc, want[i].comp);
      if (w != want[i].word) {
         snprintf(msg, sizeof(msg), "slot %u component %u: word %d, expected %d", want[i].loc,
                  want[i].comp, w, want[i].word);
         err = msg;
      }
   }
   /* every mapped word of a written component is written by an st_var */
   uint32_t written[2] = { 0 }, mapped[2] = { 0 };
   for (unsigned i = 0; !err && i < n_code; i++) {
      if (code[i].op != VAGX_OP_ST_VAR || code[i].src[1].file != VAGX_FILE_IMM) {
         if (code[i].op == VAGX_OP_ST_VAR)
            err = "st_var index not an immediate";
         continue;
      }
      uint32_t idx = code[i].imm[code[i].src[1].idx & 1];
      if (idx < 64)
         written[idx / 32] |= 1u << (idx % 32);
   }
   for (unsigned i = 0; !err && i < ARRAY_SIZE(st); i++) {
      u_foreach_bit(c, st[i].mask) {
         int w = vagx_vs_output_word(&info, st[i].loc, c);
         if (w < 0 || w >= 64) {
            err = "written component without a word";
            break;
         }
         mapped[w / 32] |= 1u << (w % 32);
      }
   }
   if (!err && ((mapped[0] & ~written[0]) || (mapped[1] & ~written[1]))) {
      snprintf(msg, sizeof(msg), "st_var words %08x%08x, mapped %08x%08x", written[1],
               written[0], mapped[1], mapped[0]);
      err = msg;
   }
   return report("vs-output-words-stream-out", err, b.shader, err && !n_code ? NULL : &info);
}

/* ---- memory and compute (vagx_emit_mem.c) ---- */

/* Does any decoded instruction read special register `sr`? */
static bool
reads_sr(unsigned sr)
{
   for (unsigned i = 0; i < n_code; i++)
      for (unsigned s = 0; s < 3; s++)
         if (code[i].src[s].file == VAGX_FILE_SR && code[i].src[s].idx == sr)
            return true;
   return false;
}

/* The uniform word the compiler gave (kind, arg), -1 if none */
static int
push_word(const struct vagx_shader_info *info, unsigned kind, unsigned arg)
{
   for (unsigned i = 0; i < info->push_count; i++)
      if (info->push[i].kind == kind && info->push[i].arg == arg)
         return i;
   return -1;
}

static nir_builder
cs_builder(const char *name, unsigned x, unsigned y, unsigned z)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_COMPUTE, &vagx_nir_options, "%s", name);
   b.shader->info.workgroup_size[0] = x;
   b.shader->info.workgroup_size[1] = y;
   b.shader->info.workgroup_size[2] = z;
   return b;
}

static bool
test_mem(void)
{
   bool all = true;
   struct vagx_shader_info info;
   const char *err;

   /* Compute system values: global id (lowered: tgid * size + tid), local
    * index, group count, stored to SSBO 0 at a constant index: st_global
    * at the buffer's uniform pair, the offset bounds-checked against the
    * size word (an icmp and a sel before the store). */
   nir_builder b = cs_builder("cs-sysvals", 8, 4, 1);
   b.shader->info.num_ssbos = 1;
   nir_def *gid = nir_load_global_invocation_id(&b, 32);
   nir_def *off = nir_imul_imm(&b, nir_iadd(&b, nir_channel(&b, gid, 0),
                                            nir_imul_imm(&b, nir_channel(&b, gid, 1), 64)), 16);
   nir_def *val = nir_vec4(&b, nir_load_local_invocation_index(&b),
                           nir_channel(&b, nir_load_num_workgroups(&b), 0),
                           nir_channel(&b, nir_load_workgroup_id(&b), 2), nir_imm_int(&b, 7));
   nir_store_ssbo(&b, val, nir_imm_int(&b, 0), off, .write_mask = 0xf, .align_mul = 16);
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      const struct vagx_instr *st = find_op(VAGX_OP_ST_GLOBAL, 0);
      const int lo = push_word(&info, VAGX_PUSH_SSBO_LO, 0);
      if (!reads_sr(VAGX_SR_TID_X) || !reads_sr(VAGX_SR_TID_Y) || !reads_sr(VAGX_SR_TGID_X) ||
          !reads_sr(VAGX_SR_TGID_Y) || !reads_sr(VAGX_SR_TINDEX) || !reads_sr(VAGX_SR_NGROUPS_X) ||
          !reads_sr(VAGX_SR_TGID_Z))
         err = "a system value is not read from its special register";
      else if (!st || (st->mod & 7) != VAGX_MEMSIZE_B128)
         err = "expected one st_global.b128";
      else if (lo < 0 || push_word(&info, VAGX_PUSH_SSBO_HI, 0) != lo + 1 ||
               push_word(&info, VAGX_PUSH_SSBO_SIZE, 0) < 0)
         err = "no SSBO_LO/HI pair and SIZE word for buffer 0";
      else if (st->src[0].file != VAGX_FILE_U || st->src[0].idx != (unsigned)lo)
         err = "st_global's address is not the buffer's uniform pair";
      else if (!count_op(VAGX_OP_SEL) || !count_op(VAGX_OP_ICMP))
         err = "the offset is not bounds-checked (icmp + sel)";
      else if (info.ssbo_count != 1 || !info.writes_memory)
         err = "ssbo_count / writes_memory";
   }
   all &= report("cs-sysvals-ssbo-store", err, b.shader, err ? NULL : &info);

   /* A buffer index that is not a constant: the table entry is loaded
    * (ld_global.b96 at the table's uniform pair + index * 16, the index
    * clamped with umin to the shader's buffers), then the access goes to
    * the entry's address (a register pair) */
   b = cs_builder("cs-dynamic-index", 32, 1, 1);
   b.shader->info.num_ssbos = 4;
   nir_def *idx = nir_channel(&b, nir_load_workgroup_id(&b), 0);
   nir_def *ld = nir_load_ssbo(&b, 1, 32, idx, nir_imm_int(&b, 4), .align_mul = 4);
   nir_store_ssbo(&b, ld, nir_imm_int(&b, 0), nir_imul_imm(&b, nir_load_local_invocation_index(&b), 4),
                  .write_mask = 1, .align_mul = 4);
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      const int t = push_word(&info, VAGX_PUSH_SSBO_TABLE_LO, 0);
      const struct vagx_instr *e = NULL, *l = NULL;
      for (unsigned i = 0; i < n_code; i++) {
         if (code[i].op == VAGX_OP_LD_GLOBAL && (code[i].mod & 7) == VAGX_MEMSIZE_B96)
            e = &code[i];
         else if (code[i].op == VAGX_OP_LD_GLOBAL && (code[i].mod & 7) == VAGX_MEMSIZE_B32)
            l = &code[i];
      }
      if (t < 0 || push_word(&info, VAGX_PUSH_SSBO_TABLE_HI, 0) != t + 1)
         err = "no SSBO_TABLE_LO/HI pair";
      else if (!e || e->src[0].file != VAGX_FILE_U || e->src[0].idx != (unsigned)t)
         err = "the table entry is not an ld_global.b96 at the table's pair";
      else if (!l || l->src[0].file != VAGX_FILE_R || l->src[0].idx != e->dst)
         err = "the load does not use the entry's address";
      else if (!count_op(VAGX_OP_UMIN))
         err = "the index is not clamped";
      else if (info.ssbo_count != 4)
         err = "ssbo_count is not the shader's buffer count";
   }
   all &= report("cs-ssbo-dynamic-index", err, b.shader, err ? NULL : &info);

   /* Atomics: atomicAdd and atomicCompSwap on a buffer (atom_global at a
    * 64-bit address computed with a carry: iadd, icmp.ult, isub), and on
    * shared memory; cmpxchg takes the new value in src1 and the comparand
    * in src2 (GLSL's atomicCompSwap(mem, compare, data)) */
   b = cs_builder("cs-atomics", 64, 1, 1);
   b.shader->info.num_ssbos = 1;
   b.shader->info.shared_size = 64;
   nir_def *o = nir_imul_imm(&b, nir_load_local_invocation_index(&b), 4);
   nir_def *a1 = nir_ssbo_atomic(&b, 32, nir_imm_int(&b, 0), o, nir_imm_int(&b, 3),
                                 .atomic_op = nir_atomic_op_iadd);
   nir_def *a2 = nir_ssbo_atomic_swap(&b, 32, nir_imm_int(&b, 0), nir_imm_int(&b, 0),
                                      nir_imm_int(&b, 5), a1, .atomic_op = nir_atomic_op_cmpxchg);
   nir_def *a3 = nir_shared_atomic(&b, 32, nir_imm_int(&b, 8), a2, .atomic_op = nir_atomic_op_umax);
   nir_def *a4 = nir_shared_atomic_swap(&b, 32, nir_imm_int(&b, 12), nir_imm_int(&b, 9), a3,
                                        .atomic_op = nir_atomic_op_cmpxchg);
   nir_store_ssbo(&b, a4, nir_imm_int(&b, 0), o, .write_mask = 1, .align_mul = 4);
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      const struct vagx_instr *add = find_op(VAGX_OP_ATOM_GLOBAL, 0),
                              *cas = find_op(VAGX_OP_ATOM_GLOBAL, 1),
                              *smax = find_op(VAGX_OP_ATOM_SHARED, 0),
                              *scas = find_op(VAGX_OP_ATOM_SHARED, 1);
      if (!add || !cas || !smax || !scas)
         err = "expected 2 atom_global and 2 atom_shared";
      else if ((add->mod & 15) != VAGX_ATOMOP_ADD || (cas->mod & 15) != VAGX_ATOMOP_CMPXCHG ||
               (smax->mod & 15) != VAGX_ATOMOP_UMAX || (scas->mod & 15) != VAGX_ATOMOP_CMPXCHG)
         err = "atomic operations";
      else if (cas->src[2].file != VAGX_FILE_IMM || cas->imm[cas->src[2].idx] != 5 ||
               cas->src[1].file != VAGX_FILE_R || cas->src[1].idx != add->dst)
         err = "atomicCompSwap: comparand (5) must be src2, the new value src1";
      else if (scas->src[2].file != VAGX_FILE_IMM || scas->imm[scas->src[2].idx] != 9)
         err = "shared atomicCompSwap: comparand (9) must be src2";
      else if (add->src[0].file != VAGX_FILE_R || !count_op(VAGX_OP_ISUB))
         err = "the global atomic's address is not a register pair with a carried high word";
   }
   all &= report("cs-atomics", err, b.shader, err ? NULL : &info);

   /* Shared memory and barriers: barrier() is `barrier` (scope tg), a
    * buffer memory barrier alone a `fence` (scope dev); shared loads and
    * stores are ld_shared/st_shared at byte addresses */
   b = cs_builder("cs-shared-barrier", 128, 1, 1);
   b.shader->info.num_ssbos = 1;
   b.shader->info.shared_size = 512;
   nir_def *l4 = nir_imul_imm(&b, nir_load_local_invocation_index(&b), 4);
   nir_store_shared(&b, nir_load_local_invocation_index(&b), l4, .write_mask = 1, .align_mul = 4);
   nir_barrier(&b, .execution_scope = SCOPE_WORKGROUP, .memory_scope = SCOPE_WORKGROUP,
               .memory_semantics = NIR_MEMORY_ACQ_REL, .memory_modes = nir_var_mem_shared);
   nir_def *sv = nir_load_shared(&b, 1, 32, nir_isub(&b, nir_imm_int(&b, 508), l4), .align_mul = 4);
   nir_store_ssbo(&b, sv, nir_imm_int(&b, 0), l4, .write_mask = 1, .align_mul = 4);
   nir_barrier(&b, .execution_scope = SCOPE_NONE, .memory_scope = SCOPE_DEVICE,
               .memory_semantics = NIR_MEMORY_ACQ_REL, .memory_modes = nir_var_mem_ssbo);
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      const struct vagx_instr *bar = find_op(VAGX_OP_BARRIER, 0), *fe = find_op(VAGX_OP_FENCE, 0);
      if (!bar || bar->mod != VAGX_SCOPE_TG || count_op(VAGX_OP_BARRIER) != 1)
         err = "expected one barrier.tg";
      else if (!fe || fe->mod != VAGX_SCOPE_DEV)
         err = "expected a fence.dev";
      else if (!count_op(VAGX_OP_ST_SHARED) || !count_op(VAGX_OP_LD_SHARED))
         err = "expected st_shared and ld_shared";
      else if (find_op(VAGX_OP_ST_SHARED, 0) > bar || find_op(VAGX_OP_LD_SHARED, 0) < bar)
         err = "shared accesses moved across the barrier";
   }
   all &= report("cs-shared-barrier", err, b.shader, err ? NULL : &info);

   /* A fragment shader storing to a buffer: only non-helper invocations
    * (an if on sr.helper around st_global), and writes_memory for the
    * pipeline's side_effects */
   struct vagx_fs_key key = { .nr_cbufs = 1 };
   key.rt_format[0] = PIPE_FORMAT_R8G8B8A8_UNORM;
   b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "fs-ssbo");
   b.shader->info.num_ssbos = 1;
   nir_def *fc = nir_load_frag_coord(&b);
   nir_store_ssbo(&b, nir_f2u32(&b, nir_channel(&b, fc, 0)), nir_imm_int(&b, 0),
                  nir_imul_imm(&b, nir_f2u32(&b, nir_channel(&b, fc, 1)), 4), .write_mask = 1,
                  .align_mul = 4);
   fs_out(&b, nir_imm_vec4(&b, 1, 0, 0, 1));
   err = compile_decoded(b.shader, &key, &info);
   if (!err) {
      const struct vagx_instr *st = find_op(VAGX_OP_ST_GLOBAL, 0), *iff = find_op(VAGX_OP_IF, 0);
      if (!st || !iff || iff > st)
         err = "st_global is not inside an if";
      else if (!reads_sr(VAGX_SR_HELPER))
         err = "the store does not test sr.helper";
      else if (!info.writes_memory || !info.fs_side_effects)
         err = "writes_memory / fs_side_effects not set";
   }
   all &= report("fs-ssbo-store-not-helpers", err, b.shader, err ? NULL : &info);

   /* Images: imageLoad / imageStore are img_ld / img_st on the unit with
    * the image's dim (a cube is a 2D array of faces), imageSize reads
    * uniform words, an image atomic is atom_global at an address computed
    * from uniform words (and the result 0 outside the image: a sel) */
   b = cs_builder("cs-images", 8, 8, 1);
   nir_def *ip = nir_vec4(&b, nir_channel(&b, nir_load_local_invocation_id(&b), 0),
                          nir_channel(&b, nir_load_local_invocation_id(&b), 1), nir_imm_int(&b, 2),
                          nir_imm_int(&b, 0));
   nir_def *ild = nir_image_load(&b, 4, 32, nir_imm_int(&b, 1), ip, nir_imm_int(&b, 0),
                                nir_imm_int(&b, 0), .image_dim = GLSL_SAMPLER_DIM_CUBE,
                                .image_array = false, .dest_type = nir_type_float32);
   nir_image_store(&b, nir_imm_int(&b, 3), ip, nir_imm_int(&b, 0), ild, nir_imm_int(&b, 0),
                   .image_dim = GLSL_SAMPLER_DIM_2D, .image_array = true,
                   .src_type = nir_type_float32);
   nir_def *isz = nir_image_size(&b, 2, 32, nir_imm_int(&b, 3), nir_imm_int(&b, 0),
                                 .image_dim = GLSL_SAMPLER_DIM_2D, .image_array = false);
   nir_def *ia = nir_image_atomic(&b, 32, nir_imm_int(&b, 0), ip, nir_imm_int(&b, 0),
                                  nir_channel(&b, isz, 1), .image_dim = GLSL_SAMPLER_DIM_2D,
                                  .format = PIPE_FORMAT_R32_UINT, .atomic_op = nir_atomic_op_iadd);
   nir_image_store(&b, nir_imm_int(&b, 3), ip, nir_imm_int(&b, 0), nir_vec4(&b, ia, ia, ia, ia),
                   nir_imm_int(&b, 0), .image_dim = GLSL_SAMPLER_DIM_2D, .image_array = false,
                   .src_type = nir_type_uint32);
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      const struct vagx_instr *il = find_op(VAGX_OP_IMG_LD, 0), *is = find_op(VAGX_OP_IMG_ST, 0),
                              *at = find_op(VAGX_OP_ATOM_GLOBAL, 0);
      unsigned sizes = 0, addr = 0;
      for (unsigned i = 0; i < info.push_count; i++) {
         sizes += info.push[i].kind == VAGX_PUSH_IMAGE_H && info.push[i].arg == 3;
         addr += info.push[i].kind == VAGX_PUSH_IMAGE_LO && info.push[i].arg == 0;
      }
      if (!il || !is || count_op(VAGX_OP_IMG_ST) != 2 || !at)
         err = "expected img_ld, 2 img_st and atom_global";
      else if ((il->imm[1] & 0xff) != 1 || ((il->imm[1] >> 16) & 7) != VAGX_DIM__2D ||
               !((il->imm[1] >> 19) & 1))
         err = "the cube image's img_ld is not unit 1, 2d.array";
      else if ((is->imm[1] & 0xff) != 3 || !((is->imm[1] >> 19) & 1))
         err = "img_st is not unit 3 .array";
      else if ((at->mod & 15) != VAGX_ATOMOP_ADD || !count_op(VAGX_OP_SEL))
         err = "the image atomic is not an add with its result selected";
      else if (info.image_count != 4 || !info.writes_memory)
         err = "image_count / writes_memory";
      else if (!sizes || !addr)
         err = "imageSize or the atomic's address does not read the image uniforms";
   }
   all &= report("cs-images", err, b.shader, err ? NULL : &info);

   /* a unit that is not a constant (an image array indexed dynamically):
    * a copy of the access per declared unit, each under an if */
   b = cs_builder("cs-image-dynamic-unit", 8, 1, 1);
   b.shader->info.num_images = 3;
   nir_def *du = nir_image_load(&b, 4, 32, nir_load_local_invocation_index(&b),
                                nir_imm_ivec4(&b, 0, 0, 0, 0), nir_imm_int(&b, 0), nir_imm_int(&b, 0),
                                .image_dim = GLSL_SAMPLER_DIM_2D, .dest_type = nir_type_float32);
   nir_image_store(&b, nir_imm_int(&b, 0), nir_imm_ivec4(&b, 0, 0, 0, 0), nir_imm_int(&b, 0), du,
                   nir_imm_int(&b, 0), .image_dim = GLSL_SAMPLER_DIM_2D,
                   .src_type = nir_type_float32);
   err = compile_decoded(b.shader, NULL, &info);
   if (!err) {
      bool units[3] = { false, false, false };
      for (unsigned k = 0; k < count_op(VAGX_OP_IMG_LD); k++)
         units[find_op(VAGX_OP_IMG_LD, k)->imm[1] & 0xff & 3] = true;
      if (count_op(VAGX_OP_IMG_LD) != 3 || !units[0] || !units[1] || !units[2])
         err = "expected an img_ld of each of units 0, 1, 2";
      else if (count_op(VAGX_OP_IF) < 3)
         err = "the loads are not under ifs";
   }
   all &= report("cs-image-dynamic-unit", err, b.shader, err ? NULL : &info);
   return all;
}

/* acc = v halved once per iteration of a loop of `bound` iterations (NULL:
 * int(v.x), converted inside the loop): acc's value after the loop */
static nir_def *
halving_loop(nir_builder *b, nir_def *v, nir_def *bound)
{
   nir_variable *acc = nir_local_variable_create(b->impl, glsl_vec4_type(), "acc");
   nir_store_var(b, acc, v, 0xf);
   nir_variable *i = nir_local_variable_create(b->impl, glsl_int_type(), "i");
   nir_store_var(b, i, nir_imm_int(b, 0), 1);
   nir_loop *loop = nir_push_loop(b);
   {
      nir_def *iv = nir_load_var(b, i);
      nir_break_if(b, nir_ige(b, iv, bound ? bound : nir_f2i32(b, nir_channel(b, v, 0))));
      nir_store_var(b, acc, nir_fmul_imm(b, nir_load_var(b, acc), 0.5), 0xf);
      nir_store_var(b, i, nir_iadd_imm(b, iv, 1), 1);
   }
   nir_pop_loop(b, loop);
   return nir_load_var(b, acc);
}

/* Uniform control flow (vagx_lower_uniform_cf): a loop whose trip count
 * comes from a uniform buffer is uniform for NIR's divergence analysis and
 * compiles to br/jmp without mask-stack instructions; the same loop with
 * a bound from a varying keeps loop/break/endloop.  The bound is read
 * before the loop, acc halves once per iteration. */
static nir_shader *
fs_halving_loop(bool uniform_bound)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options,
                                                  uniform_bound ? "fs-uniform-loop"
                                                                : "fs-divergent-loop");
   nir_def *bary = nir_load_barycentric_pixel(&b, 32, .interp_mode = INTERP_MODE_SMOOTH);
   nir_def *v = nir_load_interpolated_input(&b, 4, 32, bary, nir_imm_int(&b, 0),
                                            .io_semantics.location = VARYING_SLOT_VAR0);
   nir_def *bound = uniform_bound ? nir_load_ubo(&b, 1, 32, nir_imm_int(&b, 0), nir_imm_int(&b, 0),
                                                 .range = ~0)
                                  : nir_f2i32(&b, nir_channel(&b, v, 0));
   fs_out(&b, halving_loop(&b, v, bound));
   return b.shader;
}

/* GL_ARB_sample_shading: what makes a 4X fragment shader per-sample
 * (fs_per_sample, cmd_bind_fragment_pipeline.per_sample), and
 * gl_SamplePosition / gl_SampleMask (lower_sample_io) */
static bool
test_sample_shading(void)
{
   struct vagx_shader_info info;
   const char *err;
   bool all = true;
   for (unsigned samples = 1; samples <= 4; samples += 3) {
      struct vagx_fs_key key = { .nr_cbufs = 1, .samples = samples };
      key.rt_format[0] = PIPE_FORMAT_R8G8B8A8_UNORM;
      const bool ms = samples == 4;
      char name[64];

      /* st's persample_shading variant: uses_sample_shading, nothing read */
      nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options,
                                                     "min-sample-shading");
      b.shader->info.fs.uses_sample_shading = true;
      fs_out(&b, nir_imm_vec4(&b, 0, 1, 0, 1));
      err = compile_decoded(b.shader, &key, &info);
      if (!err && info.fs_per_sample != ms)
         err = ms ? "uses_sample_shading: not per sample" : "1X: per sample";
      snprintf(name, sizeof(name), "fs-uses-sample-shading-%ux", samples);
      all &= report(name, err, b.shader, err ? NULL : &info);

      /* gl_SampleID alone */
      b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "sample-id");
      fs_out(&b, nir_vec4(&b, nir_u2f32(&b, nir_load_sample_id(&b)), nir_imm_float(&b, 0),
                          nir_imm_float(&b, 0), nir_imm_float(&b, 1)));
      err = compile_decoded(b.shader, &key, &info);
      if (!err && (info.fs_per_sample != ms || !reads_sr(VAGX_SR_SAMPLE_ID)))
         err = "gl_SampleID: sr.sample_id, per sample in 4X only";
      snprintf(name, sizeof(name), "fs-sample-id-%ux", samples);
      all &= report(name, err, b.shader, err ? NULL : &info);

      /* gl_SamplePosition: 4X selects the contract's pattern by
       * sr.sample_id (per sample); 1X is the centre, a constant */
      b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "sample-pos");
      nir_def *pos = nir_load_sample_pos(&b);
      fs_out(&b, nir_vec4(&b, nir_channel(&b, pos, 0), nir_channel(&b, pos, 1),
                          nir_imm_float(&b, 0), nir_imm_float(&b, 1)));
      err = compile_decoded(b.shader, &key, &info);
      if (!err) {
         bool seen[4] = { false, false, false, false };
         for (unsigned i = 0; i < n_code; i++)
            for (unsigned k = 0; k < 3; k++)
               for (unsigned sm = 0; sm < 4 && code[i].src[k].file == VAGX_FILE_IMM; sm++) {
                  float x, y;
                  vagx_sample_pos_4x(sm, &x, &y);
                  seen[sm] |= code[i].imm[code[i].src[k].idx & 1] == fui(x);
               }
         if (info.fs_per_sample != ms || reads_sr(VAGX_SR_SAMPLE_ID) != ms)
            err = "gl_SamplePosition: per sample (sr.sample_id) in 4X only";
         else if (ms && !(seen[0] && seen[1] && seen[2]))
            err = "4X: the pattern's x positions are not immediates";
      }
      snprintf(name, sizeof(name), "fs-sample-position-%ux", samples);
      all &= report(name, err, b.shader, err ? NULL : &info);

      /* gl_SampleMask (of the pixel's x): in 4X a discard of the
       * invocations whose sample is not in the mask, per sample; ignored
       * in 1X (no multisample buffers) */
      b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "sample-mask");
      nir_def *mask = nir_f2u32(&b, nir_channel(&b, nir_load_frag_coord(&b), 0));
      nir_store_output(&b, mask, nir_imm_int(&b, 0),
                       .io_semantics.location = FRAG_RESULT_SAMPLE_MASK, .write_mask = 1);
      fs_out(&b, nir_imm_vec4(&b, 0, 1, 0, 1));
      err = compile_decoded(b.shader, &key, &info);
      if (!err && (info.fs_discards != ms || info.fs_per_sample != ms))
         err = "gl_SampleMask: a discard per sample in 4X, nothing in 1X";
      snprintf(name, sizeof(name), "fs-sample-mask-%ux", samples);
      all &= report(name, err, b.shader, err ? NULL : &info);
   }
   return all;
}

static bool
test_uniform_cf(void)
{
   struct vagx_fs_key key = { .nr_cbufs = 1 };
   key.rt_format[0] = PIPE_FORMAT_R8G8B8A8_UNORM;
   struct vagx_shader_info info;
   bool all = true;

   nir_shader *s = fs_halving_loop(true);
   const char *err = compile_decoded(s, &key, &info);
   const unsigned structured = count_op(VAGX_OP_IF) + count_op(VAGX_OP_ELSE) +
                               count_op(VAGX_OP_ENDIF) + count_op(VAGX_OP_LOOP) +
                               count_op(VAGX_OP_ENDLOOP) + count_op(VAGX_OP_BREAK) +
                               count_op(VAGX_OP_CONTINUE);
   if (!err && structured)
      err = "mask-stack instructions left in a uniform loop";
   /* the exit test is one br, the back edge one jmp to an earlier word */
   else if (!err && (count_op(VAGX_OP_BR) != 1 || count_op(VAGX_OP_JMP) != 1))
      err = "expected one br and one jmp";
   else if (!err && vagx_target(find_op(VAGX_OP_JMP, 0)) >= 0)
      err = "the loop's jmp does not go back";
   else if (!err && vagx_target(find_op(VAGX_OP_BR, 0)) <= 0)
      err = "the exit br does not go forward";
   all &= report("fs-uniform-loop-br-jmp", err, s, err ? NULL : &info);

   s = fs_halving_loop(false);
   err = compile_decoded(s, &key, &info);
   if (!err && (count_op(VAGX_OP_LOOP) != 1 || count_op(VAGX_OP_ENDLOOP) != 1 ||
                count_op(VAGX_OP_BR) || count_op(VAGX_OP_JMP)))
      err = "a divergent loop must keep loop/endloop and no jumps";
   all &= report("fs-divergent-loop-mask-stack", err, s, err ? NULL : &info);
   return all;
}

int
main(void)
{
   glsl_type_singleton_init_or_ref();
   bool all = true;
   printf("TAP version 13\n");

   /* vertex: pos = attr0 * u + attr1 */
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, &vagx_nir_options, "vs");
   nir_def *a0 = nir_load_input(&b, 4, 32, nir_imm_int(&b, 0), .base = 0,
                                .io_semantics.location = VERT_ATTRIB_GENERIC0);
   nir_def *a1 = nir_load_input(&b, 4, 32, nir_imm_int(&b, 0), .base = 1,
                                .io_semantics.location = VERT_ATTRIB_GENERIC1);
   nir_def *u = nir_load_ubo(&b, 4, 32, nir_imm_int(&b, 0), nir_imm_int(&b, 16), .range = ~0);
   nir_def *pos = nir_ffma(&b, a0, u, a1);
   nir_store_output(&b, pos, nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_POS,
                    .write_mask = 0xf);
   nir_store_output(&b, a1, nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_VAR0,
                    .write_mask = 0xf);
   b.shader->info.outputs_written = VARYING_BIT_POS | VARYING_BIT_VAR(0);
   b.shader->info.io_lowered = true;
   all &= check("vs-ffma-ubo", b.shader, NULL);

   /* fragment: color = interpolated var0 * 0.5 with a loop and an if */
   b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "fs");
   nir_def *bary = nir_load_barycentric_pixel(&b, 32, .interp_mode = INTERP_MODE_SMOOTH);
   nir_def *v = nir_load_interpolated_input(&b, 4, 32, bary, nir_imm_int(&b, 0),
                                            .io_semantics.location = VARYING_SLOT_VAR0);
   nir_store_output(&b, halving_loop(&b, v, NULL), nir_imm_int(&b, 0),
                    .io_semantics.location = FRAG_RESULT_DATA0, .write_mask = 0xf);
   b.shader->info.io_lowered = true;
   struct vagx_fs_key key = { .nr_cbufs = 1 };
   key.rt_format[0] = PIPE_FORMAT_R8G8B8A8_UNORM;
   all &= check("fs-loop-iter", b.shader, &key);

   /* fragment depth and stencil export: one st_zs.depth whose source is the
    * interpolated value, one st_zs.stencil, and the info bits the driver
    * turns into the pipeline's writes_depth / writes_stencil */
   b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "fs-zs");
   bary = nir_load_barycentric_pixel(&b, 32, .interp_mode = INTERP_MODE_SMOOTH);
   v = nir_load_interpolated_input(&b, 1, 32, bary, nir_imm_int(&b, 0),
                                   .io_semantics.location = VARYING_SLOT_VAR0);
   nir_store_output(&b, v, nir_imm_int(&b, 0), .io_semantics.location = FRAG_RESULT_DEPTH,
                    .write_mask = 0x1);
   nir_store_output(&b, nir_imm_int(&b, 7), nir_imm_int(&b, 0),
                    .io_semantics.location = FRAG_RESULT_STENCIL, .write_mask = 0x1);
   b.shader->info.io_lowered = true;
   {
      struct vagx_shader_info zi;
      const char *err = "compile failed";
      nir_shader *zs = b.shader;
      vagx_preprocess_nir(zs);
      bool zok = vagx_compile_shader(zs, &key, &zi, &err);
      unsigned n_depth = 0, n_stencil = 0;
      if (zok) {
         err = NULL;
         for (unsigned w = 0; w < zi.code_words;) {
            struct vagx_instr I;
            int n = vagx_decode(zi.code + w, zi.code_words - w, &I);
            if (n < 0) {
               err = vagx_isa_strerror(n);
               break;
            }
            if (I.op == VAGX_OP_ST_ZS) {
               /* mod bit 0 = .depth, bit 1 = .stencil (docs/hw/isa.md) */
               n_depth += (I.mod & 3) == 1;
               n_stencil += (I.mod & 3) == 2;
               if (I.mod & 2) {
                  /* the stencil value 7 reaches src1 (immediate or a
                   * register set from it) */
                  if (I.src[1].file == VAGX_FILE_IMM && I.imm[I.src[1].idx & 1] != 7)
                     err = "st_zs.stencil source is not 7";
               }
            }
            w += n;
         }
         vagx_disassemble(stdout, zi.code, zi.code_words);
         if (!err && (n_depth != 1 || n_stencil != 1))
            err = "expected one st_zs.depth and one st_zs.stencil";
         if (!err && (!zi.fs_writes_depth || !zi.fs_writes_stencil))
            err = "fs_writes_depth / fs_writes_stencil not set";
         vagx_shader_info_free(&zi);
      }
      zok = zok && !err;
      printf("%s %d - fs-depth-stencil-export%s%s\n", zok ? "ok" : "not ok", ++n_test,
             zok ? "" : ": ", zok ? "" : err);
      all &= zok;
      ralloc_free(zs);
   }

   /* gl_PointCoord.t alone, after another varying: the POINT_COORD binding
    * fills s into its first register and t into the second (render.md), so
    * s and t must be adjacent fs_cf entries with s first, and the shader
    * must interpolate t from the second one */
   b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, &vagx_nir_options, "fs-pntc");
   bary = nir_load_barycentric_pixel(&b, 32, .interp_mode = INTERP_MODE_SMOOTH);
   v = nir_load_interpolated_input(&b, 1, 32, bary, nir_imm_int(&b, 0),
                                   .io_semantics.location = VARYING_SLOT_VAR0);
   nir_def *pc = nir_load_point_coord(&b);
   nir_store_output(&b, nir_vec4(&b, v, nir_channel(&b, pc, 1), v, v), nir_imm_int(&b, 0),
                    .io_semantics.location = FRAG_RESULT_DATA0, .write_mask = 0xf);
   b.shader->info.io_lowered = true;
   {
      struct vagx_shader_info pi;
      const char *err = "compile failed";
      nir_shader *ps = b.shader;
      vagx_preprocess_nir(ps);
      bool pok = vagx_compile_shader(ps, &key, &pi, &err);
      if (pok) {
         err = NULL;
         int s_at = -1;
         for (unsigned k = 0; k < pi.fs_cf_count; k++)
            if (pi.fs_cf[k].location == VARYING_SLOT_PNTC && pi.fs_cf[k].component == 0)
               s_at = k;
         if (s_at < 0 || s_at + 1 >= (int)pi.fs_cf_count ||
             pi.fs_cf[s_at + 1].location != VARYING_SLOT_PNTC || pi.fs_cf[s_at + 1].component != 1)
            err = "point coord s, t are not adjacent entries (s first)";
         /* the only iter of a cf other than VAR0's must read t's register */
         bool t_read = false;
         for (unsigned w = 0; !err && w < pi.code_words;) {
            struct vagx_instr I;
            int n = vagx_decode(pi.code + w, pi.code_words - w, &I);
            if (n < 0) {
               err = vagx_isa_strerror(n);
               break;
            }
            if (I.op == VAGX_OP_ITER && I.src[0].idx == pi.fs_cf_base + s_at + 1)
               t_read = true;
            if (I.op == VAGX_OP_ITER && I.src[0].idx == pi.fs_cf_base + s_at)
               err = "s is read, only t was asked for";
            w += n;
         }
         if (!err && !t_read)
            err = "t is not interpolated from the register after s";
         vagx_disassemble(stdout, pi.code, pi.code_words);
         vagx_shader_info_free(&pi);
      }
      pok = pok && !err;
      printf("%s %d - fs-pointcoord-t%s%s\n", pok ? "ok" : "not ok", ++n_test, pok ? "" : ": ",
             pok ? "" : err);
      all &= pok;
      ralloc_free(ps);
   }

   /* background / end-of-tile programs */
   struct vagx_bg_eot_key bk = { .nr_cbufs = 2, .op = { VAGX_BG_CLEAR, VAGX_BG_LOAD } };
   struct vagx_shader_info bi, ei;
   bool ok = vagx_compile_bg(&bk, &bi);
   bk.op[0] = bk.op[1] = 1;
   ok = ok && vagx_compile_eot(&bk, &ei);
   if (ok) {
      vagx_disassemble(stdout, bi.code, bi.code_words);
      vagx_disassemble(stdout, ei.code, ei.code_words);
   }
   printf("%s %d - bg-eot\n", ok ? "ok" : "not ok", ++n_test);
   all &= ok;
   all &= test_glsl130();
   all &= test_vs_output_words();
   all &= test_sparse_residency();
   all &= test_mem();
   all &= test_uniform_cf();
   all &= test_sample_shading();
   printf("1..%d\n", n_test);
   glsl_type_singleton_decref();
   return all ? 0 : 1;
}
