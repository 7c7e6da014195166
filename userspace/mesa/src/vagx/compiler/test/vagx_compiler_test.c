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
   printf("TAP version 13\n1..3\n");

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
