/* SPDX-License-Identifier: MIT */
/* Vertex formats fetched in the shader (vagx_lower_vertex.c, TAP): a vertex
 * shader reading attribute 0 compiled with each converted format in the
 * key, its code decoded with the ISA generator's vagx_decode; the loads
 * and conversions counted (the expectations come from the formats' byte
 * layouts and docs/hw/isa.md, not from the compiler). */
#include <stdio.h>
#include "compiler/nir/nir_builder.h"
#include "util/format/u_format.h"
#include "vagx_compiler.h"
#include "vagx_hw.h"
#include "vagx_isa.h"
#include "vagx_test_compile.h"

#define MAX_DECODED 1024
static struct vagx_instr code[MAX_DECODED];
static unsigned n_code;
static int n_test;

/* pos = attribute 0 (4 components) */
static const char *
compile_vs(enum pipe_format f)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, &vagx_nir_options, "vfmt");
   nir_def *a = nir_load_input(&b, 4, 32, nir_imm_int(&b, 0), .base = 0,
                               .io_semantics.location = VERT_ATTRIB_GENERIC0);
   nir_store_output(&b, a, nir_imm_int(&b, 0), .io_semantics.location = VARYING_SLOT_POS,
                    .write_mask = 0xf);
   b.shader->info.outputs_written = VARYING_BIT_POS;
   b.shader->info.io_lowered = true;
   struct vagx_fs_key key = { 0 };
   key.vs_attr_comps[0] = util_format_get_nr_components(f);
   key.vs_attr_int = util_format_is_pure_integer(f);
   key.vs_attr_format[0] = vagx_vertex_format_converted(f) ? f : PIPE_FORMAT_NONE;
   struct vagx_shader_info info = { 0 };
   const char *err = vagx_test_compile(b.shader, &key, &info, code, MAX_DECODED, &n_code);
   if (info.code)
      vagx_shader_info_free(&info);
   ralloc_free(b.shader);
   return err;
}

/* instructions of opcode op (and, for ld_global, of access size `size`,
 * enum vagx_memsize; -1: any) */
static unsigned
count(unsigned op, int size)
{
   unsigned n = 0;
   for (unsigned i = 0; i < n_code; i++)
      n += code[i].op == op && (size < 0 || (code[i].mod & 7) == (unsigned)size);
   return n;
}

static bool
report(const char *name, const char *err)
{
   printf("%s %d - %s%s%s\n", err ? "not ok" : "ok", ++n_test, name, err ? ": " : "",
          err ? err : "");
   return !err;
}

/* One format: the loads its layout needs, the conversions it implies */
static bool
test_format(enum pipe_format f, unsigned b32_loads, unsigned wide_loads, unsigned h2f,
            bool fmax, bool shr)
{
   const char *err = compile_vs(f);
   static char msg[160];
   const unsigned b32 = err ? 0 : count(VAGX_OP_LD_GLOBAL, VAGX_MEMSIZE_B32);
   if (!err && b32 != b32_loads) {
      snprintf(msg, sizeof(msg), "%u ld_global.b32, want %u", b32, b32_loads);
      err = msg;
   } else if (!err && count(VAGX_OP_LD_GLOBAL, -1) != b32_loads + wide_loads) {
      err = "unexpected wider loads";
   } else if (!err && count(VAGX_OP_H2F, -1) != h2f) {
      snprintf(msg, sizeof(msg), "%u h2f, want %u", count(VAGX_OP_H2F, -1), h2f);
      err = msg;
   } else if (!err && fmax != !!count(VAGX_OP_FMAX, -1)) {
      err = fmax ? "no fmax (snorm clamp to -1)" : "an fmax without a signed normalized format";
   } else if (!err && shr != !!count(VAGX_OP_SHR, -1)) {
      err = shr ? "no shr (misaligned words / fields)" : "unexpected shr";
   }
   return report(util_format_short_name(f), err);
}

int
main(void)
{
   glsl_type_singleton_init_or_ref();
   bool all = true;
   printf("TAP version 13\n");

   /* a 32-bit format: one 16-byte load, nothing converted */
   all &= test_format(PIPE_FORMAT_R32G32B32A32_FLOAT, 0, 1, 0, false, false);
   /* 8/16-bit formats may start at any byte: the enclosing words (one more
    * than the element's), shifted */
   all &= test_format(PIPE_FORMAT_R8G8B8A8_UNORM, 2, 0, 0, false, true);
   all &= test_format(PIPE_FORMAT_R8G8B8_SNORM, 2, 0, 0, true, true);
   all &= test_format(PIPE_FORMAT_B8G8R8A8_UNORM, 2, 0, 0, false, true);
   all &= test_format(PIPE_FORMAT_R16G16B16A16_SNORM, 3, 0, 0, true, true);
   all &= test_format(PIPE_FORMAT_R16G16B16A16_FLOAT, 3, 0, 4, false, true);
   all &= test_format(PIPE_FORMAT_R16_FLOAT, 2, 0, 1, false, true);
   /* packed formats are 4-byte aligned (u_vbuf): one word, fields
    * extracted (shr) and sign-extended */
   all &= test_format(PIPE_FORMAT_R10G10B10A2_SNORM, 1, 0, 0, true, true);
   all &= test_format(PIPE_FORMAT_B10G10R10A2_USCALED, 1, 0, 0, false, true);

   /* every converted format compiles, and every 8/16-bit, half float and
    * 2_10_10_10 vertex format GL has is one of them */
   unsigned n = 0;
   const char *err = NULL;
   for (unsigned f = 1; f < PIPE_FORMAT_COUNT && !err; f++) {
      if (!vagx_vertex_format_converted(f))
         continue;
      n++;
      if ((err = compile_vs(f)))
         fprintf(stderr, "%s: %s\n", util_format_name(f), err);
   }
   static const enum pipe_format gl_formats[] = {
      PIPE_FORMAT_R8_UNORM, PIPE_FORMAT_R8G8B8A8_SNORM, PIPE_FORMAT_R8G8_USCALED,
      PIPE_FORMAT_R8G8B8_SSCALED, PIPE_FORMAT_R8_UINT, PIPE_FORMAT_R8G8B8A8_SINT,
      PIPE_FORMAT_R16G16_UNORM, PIPE_FORMAT_R16G16B16_SNORM, PIPE_FORMAT_R16_USCALED,
      PIPE_FORMAT_R16G16B16A16_SSCALED, PIPE_FORMAT_R16G16B16_UINT, PIPE_FORMAT_R16_SINT,
      PIPE_FORMAT_R16G16B16_FLOAT, PIPE_FORMAT_B8G8R8A8_UNORM, PIPE_FORMAT_R10G10B10A2_UNORM,
      PIPE_FORMAT_B10G10R10A2_UNORM, PIPE_FORMAT_R10G10B10A2_SNORM,
      PIPE_FORMAT_B10G10R10A2_SNORM, PIPE_FORMAT_R10G10B10A2_USCALED,
      PIPE_FORMAT_B10G10R10A2_USCALED, PIPE_FORMAT_R10G10B10A2_SSCALED,
      PIPE_FORMAT_B10G10R10A2_SSCALED, PIPE_FORMAT_R11G11B10_FLOAT,
   };
   for (unsigned i = 0; i < ARRAY_SIZE(gl_formats) && !err; i++)
      if (!vagx_vertex_format_converted(gl_formats[i]))
         err = util_format_name(gl_formats[i]);
   /* 32-bit formats stay plain loads, fixed and 64-bit ones are u_vbuf's */
   if (!err && (vagx_vertex_format_converted(PIPE_FORMAT_R32G32_FLOAT) ||
                vagx_vertex_format_converted(PIPE_FORMAT_R32_FIXED) ||
                vagx_vertex_format_converted(PIPE_FORMAT_R64G64_FLOAT) ||
                vagx_vertex_format_converted(PIPE_FORMAT_R32_UNORM)))
      err = "a 32-bit, fixed or 64-bit format is converted";
   char name[64];
   snprintf(name, sizeof(name), "every converted format compiles (%u)", n);
   all &= report(name, err);

   printf("1..%d\n", n_test);
   glsl_type_singleton_decref();
   return all ? 0 : 1;
}
