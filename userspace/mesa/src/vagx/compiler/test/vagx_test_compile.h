/* SPDX-License-Identifier: MIT */
/* Compile a NIR shader for a test and decode its machine code with the ISA
 * generator's vagx_decode (vagx_vertex_fmt_test.c, vagx_gs_test.c). */
#ifndef VAGX_TEST_COMPILE_H
#define VAGX_TEST_COMPILE_H

#include "vagx_compiler.h"
#include "vagx_isa.h"

/* nir preprocessed and compiled with key into *info, its instructions in
 * code[0 .. *n_code); NULL, or why not (info then holds no code) */
static inline const char *
vagx_test_compile(nir_shader *nir, const struct vagx_fs_key *key, struct vagx_shader_info *info,
                  struct vagx_instr *code, unsigned max_code, unsigned *n_code)
{
   const char *err = "compile failed";
   *n_code = 0;
   vagx_preprocess_nir(nir);
   if (!vagx_compile_shader(nir, key, info, &err))
      return err;
   for (unsigned w = 0; w < info->code_words;) {
      int n = vagx_decode(info->code + w, info->code_words - w, &code[*n_code]);
      if (n < 0)
         return vagx_isa_strerror(n);
      if (++*n_code == max_code)
         return "program too long for the test";
      w += n;
   }
   return NULL;
}

#endif
