/* SPDX-License-Identifier: MIT */
/* Compiler unit test (TAP): NIR built with nir_builder, compiled, then every
 * instruction decoded and validated with the ISA generator's vagx_decode(). */
#include <stdio.h>
#include "compiler/nir/nir_builder.h"
#include "vagx_compiler.h"
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

int
main(void)
{
   glsl_type_singleton_init_or_ref();
   bool all = true;
   printf("TAP version 13\n1..5\n");

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
   nir_variable *acc = nir_local_variable_create(b.impl, glsl_vec4_type(), "acc");
   nir_store_var(&b, acc, v, 0xf);
   nir_variable *i = nir_local_variable_create(b.impl, glsl_int_type(), "i");
   nir_store_var(&b, i, nir_imm_int(&b, 0), 1);
   nir_loop *loop = nir_push_loop(&b);
   {
      nir_def *iv = nir_load_var(&b, i);
      nir_break_if(&b, nir_ige(&b, iv, nir_f2i32(&b, nir_channel(&b, v, 0))));
      nir_store_var(&b, acc, nir_fmul_imm(&b, nir_load_var(&b, acc), 0.5), 0xf);
      nir_store_var(&b, i, nir_iadd_imm(&b, iv, 1), 1);
   }
   nir_pop_loop(&b, loop);
   nir_store_output(&b, nir_load_var(&b, acc), nir_imm_int(&b, 0),
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
   glsl_type_singleton_decref();
   return all ? 0 : 1;
}
