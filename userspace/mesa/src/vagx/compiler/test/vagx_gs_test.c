/* SPDX-License-Identifier: MIT */
/* Geometry programs (contract 1.11, TAP): NIR geometry shaders built with
 * nir_builder, compiled, decoded with the ISA generator's vagx_decode; the
 * ld_vin / st_var words, emit, cut and the special registers checked
 * against the layouts docs/mesa-driver.md describes (the vertex shader's
 * output layout: position, 4 words per written location in location
 * order, point size, clip distances). */
#include <stdio.h>
#include "compiler/nir/nir_builder.h"
#include "vagx_compiler.h"
#include "vagx_hw.h"
#include "vagx_isa.h"
#include "vagx_test_compile.h"

#define MAX_DECODED 1024
static struct vagx_instr code[MAX_DECODED];
static unsigned n_code;
static int n_test;

static nir_builder
gs_builder(const char *name)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_GEOMETRY, &vagx_nir_options, "%s", name);
   b.shader->info.gs.vertices_in = 3;
   b.shader->info.gs.vertices_out = 3;
   b.shader->info.gs.input_primitive = MESA_PRIM_TRIANGLES;
   b.shader->info.gs.output_primitive = MESA_PRIM_TRIANGLE_STRIP;
   b.shader->info.gs.invocations = 1;
   b.shader->info.io_lowered = true;
   return b;
}

static nir_def *
vin(nir_builder *b, nir_def *vtx, unsigned location)
{
   return nir_load_per_vertex_input(b, 4, 32, vtx, nir_imm_int(b, 0),
                                    .io_semantics.location = location);
}

static void
out(nir_builder *b, nir_def *v, unsigned location)
{
   nir_store_output(b, v, nir_imm_int(b, 0), .io_semantics.location = location,
                    .write_mask = BITFIELD_MASK(v->num_components));
   b->shader->info.outputs_written |= BITFIELD64_BIT(location);
}

/* the vertex shader feeding it writes `vs_outputs` */
static const char *
compile_gs(nir_shader *nir, uint64_t vs_outputs, struct vagx_shader_info *info)
{
   struct vagx_fs_key key = { 0 };
   key.gs_vs_outputs[0] = (uint32_t)vs_outputs;
   key.gs_vs_outputs[1] = vs_outputs >> 32;
   const char *err = vagx_test_compile(nir, &key, info, code, MAX_DECODED, &n_code);
   if (!err)
      vagx_disassemble(stdout, info->code, info->code_words);
   return err;
}

static unsigned
count(unsigned op)
{
   unsigned n = 0;
   for (unsigned i = 0; i < n_code; i++)
      n += code[i].op == op;
   return n;
}

/* the value of an immediate source (extension word imm0/imm1) */
static bool
src_imm(const struct vagx_instr *I, unsigned s, uint32_t *v)
{
   if (I->src[s].file != VAGX_FILE_IMM)
      return false;
   *v = I->imm[I->src[s].idx];
   return true;
}

/* ld_vin with immediate vertex `vtx` and word `word` present */
static bool
has_ld_vin(uint32_t vtx, uint32_t word)
{
   for (unsigned i = 0; i < n_code; i++) {
      uint32_t v, w;
      if (code[i].op == VAGX_OP_LD_VIN && src_imm(&code[i], 0, &v) && src_imm(&code[i], 1, &w) &&
          v == vtx && w == word)
         return true;
   }
   return false;
}

static bool
reads_sr(unsigned sr)
{
   for (unsigned i = 0; i < n_code; i++)
      for (unsigned k = 0; k < 3; k++)
         if (code[i].src[k].file == VAGX_FILE_SR && code[i].src[k].idx == sr)
            return true;
   return false;
}

static bool
report(const char *name, const char *err, nir_shader *nir, struct vagx_shader_info *info)
{
   printf("%s %d - %s%s%s\n", err ? "not ok" : "ok", ++n_test, name, err ? ": " : "",
          err ? err : "");
   if (info && info->code)
      vagx_shader_info_free(info);
   ralloc_free(nir);
   return !err;
}

/* A pass-through triangle: gl_in[v].gl_Position and a varying (VAR1: the
 * vertex shader also writes VAR0, so VAR1 is its user words 4..7, output
 * words 8..11) copied out, three emits, one cut */
static bool
test_passthrough(void)
{
   nir_builder b = gs_builder("gs-passthrough");
   for (unsigned v = 0; v < 3; v++) {
      out(&b, vin(&b, nir_imm_int(&b, v), VARYING_SLOT_POS), VARYING_SLOT_POS);
      out(&b, vin(&b, nir_imm_int(&b, v), VARYING_SLOT_VAR1), VARYING_SLOT_VAR1);
      nir_emit_vertex(&b, .stream_id = 0);
   }
   nir_end_primitive(&b, .stream_id = 0);
   struct vagx_shader_info info = { 0 };
   const char *err = compile_gs(b.shader, VARYING_BIT_POS | VARYING_BIT_VAR(0) | VARYING_BIT_VAR(1),
                                &info);
   if (!err && (count(VAGX_OP_EMIT) != 3 || count(VAGX_OP_CUT) != 1))
      err = "want 3 emit and 1 cut";
   else if (!err && count(VAGX_OP_LD_VIN) != 24)
      err = "want 24 ld_vin (3 vertices x 8 words)";
   for (unsigned v = 0; !err && v < 3; v++)
      for (unsigned w = 0; !err && w < 4; w++)
         if (!has_ld_vin(v, w) || !has_ld_vin(v, 8 + w))
            err = "an ld_vin of position (words 0-3) or VAR1 (8-11) missing";
   if (!err && (info.vs_user_words != 4 || info.vs_word_location[0] != VARYING_SLOT_VAR1))
      err = "output layout: want 4 user words of VAR1";
   if (!err && count(VAGX_OP_ST_VAR) != 24)
      err = "want 24 st_var (3 vertices x 8 words)";
   return report("gs-passthrough", err, b.shader, &info);
}

/* gl_PrimitiveIDIn and gl_InvocationID are sr.primitive_id and
 * sr.invocation_id; an input the vertex shader does not write reads 0
 * (no ld_vin); a dynamic vertex index reaches ld_vin as a register */
static bool
test_sysvals(void)
{
   nir_builder b = gs_builder("gs-sysvals");
   nir_def *id = nir_load_primitive_id(&b);
   nir_def *inv = nir_load_invocation_id(&b);
   nir_def *vtx = nir_umod_imm(&b, nir_iadd(&b, id, inv), 3);
   out(&b, vin(&b, vtx, VARYING_SLOT_POS), VARYING_SLOT_POS);
   out(&b, vin(&b, nir_imm_int(&b, 0), VARYING_SLOT_VAR3), VARYING_SLOT_VAR0);
   out(&b, nir_vec2(&b, id, inv), VARYING_SLOT_PRIMITIVE_ID);
   nir_emit_vertex(&b, .stream_id = 0);
   struct vagx_shader_info info = { 0 };
   const char *err = compile_gs(b.shader, VARYING_BIT_POS, &info);
   if (!err && (!reads_sr(VAGX_SR_PRIMITIVE_ID) || !reads_sr(VAGX_SR_INVOCATION_ID)))
      err = "sr.primitive_id / sr.invocation_id not read";
   else if (!err && count(VAGX_OP_LD_VIN) != 4)
      err = "want 4 ld_vin (the position; VAR3 is not written)";
   for (unsigned i = 0; !err && i < n_code; i++)
      if (code[i].op == VAGX_OP_LD_VIN && code[i].src[0].file != VAGX_FILE_R)
         err = "the dynamic vertex index is not a register";
   return report("gs-sysvals", err, b.shader, &info);
}

/* a second vertex stream (GL 4.0) is refused */
static bool
test_stream1(void)
{
   nir_builder b = gs_builder("gs-stream1");
   out(&b, vin(&b, nir_imm_int(&b, 0), VARYING_SLOT_POS), VARYING_SLOT_POS);
   nir_emit_vertex(&b, .stream_id = 1);
   struct vagx_shader_info info = { 0 };
   const char *err = compile_gs(b.shader, VARYING_BIT_POS, &info);
   return report("gs-stream1-refused", err ? NULL : "compiled", b.shader, &info);
}

int
main(void)
{
   glsl_type_singleton_init_or_ref();
   bool all = true;
   printf("TAP version 13\n");
   all &= test_passthrough();
   all &= test_sysvals();
   all &= test_stream1();
   /* input_words: position, 4 per location, point size, clip distances */
   const unsigned w = vagx_vs_output_words(VARYING_BIT_POS | VARYING_BIT_VAR(0) | VARYING_BIT_PSIZ |
                                              VARYING_BIT_CLIP_DIST0, 3);
   /* CLIP_DIST0 also gets user words (vs_layout: fragment shaders may read it) */
   all &= report("vs-output-words", w == 4 + 8 + 1 + 3 ? NULL : "want 16", NULL, NULL);
   printf("1..%d\n", n_test);
   glsl_type_singleton_decref();
   return all ? 0 : 1;
}
