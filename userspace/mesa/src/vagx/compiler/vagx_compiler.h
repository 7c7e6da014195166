/* SPDX-License-Identifier: MIT */
/*
 * vagx NIR compiler: NIR -> vagx IR -> linear-scan register allocation ->
 * machine code through the ISA generator's vagx_encode().  See
 * docs/mesa-driver.md for the pipeline.
 */
#ifndef VAGX_COMPILER_H
#define VAGX_COMPILER_H

#include <stdbool.h>
#include <stdint.h>
#include "compiler/nir/nir.h"
#include "util/format/u_formats.h"
#include "vagx_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the driver must write into each uniform register word (u0..) before
 * a program runs.  The compiler decides the layout; the driver fills it. */
enum vagx_push_kind {
   VAGX_PUSH_ZERO = 0,
   VAGX_PUSH_CB0,          /* arg: 32-bit word of constant buffer 0 */
   VAGX_PUSH_UBO_LO,       /* arg: ubo index: GPU VA low / high */
   VAGX_PUSH_UBO_HI,
   VAGX_PUSH_VBO_LO,       /* arg: vertex element: VA of element 0 (buffer+offsets) */
   VAGX_PUSH_VBO_HI,
   VAGX_PUSH_VBO_STRIDE,   /* arg: vertex element: stride in bytes */
   VAGX_PUSH_VBO_DIVISOR,  /* arg: vertex element: instance divisor (0 = per vertex) */
   VAGX_PUSH_BLEND_CONST,  /* arg: component */
   VAGX_PUSH_CLEAR,        /* arg: rt * 4 + component (background programs) */
   /* arg: sampler * 4 + k: the sampler's min_lod (k 0), max_lod (1),
    * lod_bias (2) as f32, all 0 when it has no mip filter (texel offset
    * lowering, vagx_compile.c lower_tex_offset) */
   VAGX_PUSH_SAMPLER_LOD,
   /* arg: shader buffer (SSBO) index: GPU VA low / high of the bound
    * range, its size in bytes (0 when unbound: every access is out of
    * bounds, vagx_emit_mem.c) */
   VAGX_PUSH_SSBO_LO,
   VAGX_PUSH_SSBO_HI,
   VAGX_PUSH_SSBO_SIZE,
   /* GPU VA low / high of the shader-buffer table: ssbo_count entries of
    * VAGX_SSBO_ENTRY_BYTES { VA low, VA high, size, 0 }, for accesses
    * with a dynamic buffer index */
   VAGX_PUSH_SSBO_TABLE_LO,
   VAGX_PUSH_SSBO_TABLE_HI,
   /* arg: image unit (vagx_emit_image.c): the bound level's width, height
    * and layers (a 3D level's depth; 1 for single-layer images) */
   VAGX_PUSH_IMAGE_W,
   VAGX_PUSH_IMAGE_H,
   VAGX_PUSH_IMAGE_D,
   /* arg: image unit, for atomics: GPU VA low / high of the bound level's
    * layer 0, its layer stride and row stride in bytes (twiddled: bytes
    * per row of tiles) and its tile shape tw_log2 | th_log2 << 8 in
    * elements (0 for a linear level) */
   VAGX_PUSH_IMAGE_LO,
   VAGX_PUSH_IMAGE_HI,
   VAGX_PUSH_IMAGE_LAYER_STRIDE,
   VAGX_PUSH_IMAGE_ROW,
   VAGX_PUSH_IMAGE_TILE,
   /* GPU VA low / high of a word of the driver's that image atomics
    * outside the image go to */
   VAGX_PUSH_IMAGE_SCRATCH_LO,
   VAGX_PUSH_IMAGE_SCRATCH_HI,
};

#define VAGX_SSBO_ENTRY_BYTES 16

/* A buffer image is a linear 2D image of rows of 2^14 texels (the image
 * unit has no buffer images): texel x is (x % 2^14, x / 2^14), bounds-checked
 * against the element count (VAGX_PUSH_IMAGE_W) in the shader
 * (vagx_emit_image.c, vagx_image.c) */
#define VAGX_IMAGE_BUFFER_ROW_LOG2 14

struct vagx_push {
   uint8_t kind;
   uint8_t arg;
};

#define VAGX_MAX_PUSH VAGX_MAX_UNIFORMS /* push constants are the uniform registers */
#define VAGX_MAX_VS_WORDS 128
#define VAGX_MAX_FS_CF 72 /* 16 vec4 varyings (GLSL 1.30) + point coord s, t */

struct vagx_fs_cf {
   uint8_t location;  /* gl_varying_slot, or VARYING_SLOT_PNTC for point coord */
   uint8_t component;
   uint8_t interp;    /* enum vagx_interp */
};

struct vagx_shader_info {
   gl_shader_stage stage;
   uint64_t *code;          /* malloc'ed, code_words 64-bit words */
   unsigned code_words;
   unsigned gpr_count;
   unsigned stack_size;     /* private stack bytes per invocation (spills) */
   unsigned push_count;
   struct vagx_push push[VAGX_MAX_PUSH];
   unsigned texture_count, sampler_count, image_count;

   /* Vertex: output words after the 4 position words. */
   unsigned vs_user_words;           /* smooth32 count */
   uint8_t vs_word_location[VAGX_MAX_VS_WORDS];
   uint8_t vs_word_component[VAGX_MAX_VS_WORDS];
   bool vs_point_size;
   unsigned vs_clip_distances;
   bool vs_edge_flag;                /* an edge flag word follows the clip distances */

   /* Fragment: coefficient registers.  cf0 = W (slot 0), cf1 = Z when
    * fs_z_slot; user bindings follow in fs_cf[] starting at fs_cf_base. */
   bool fs_z_slot;
   unsigned fs_cf_base;
   unsigned fs_cf_count;            /* user cfs in fs_cf[] */
   struct vagx_fs_cf fs_cf[VAGX_MAX_FS_CF];
   bool fs_discards, fs_writes_depth, fs_writes_stencil, fs_reads_tile, fs_side_effects;
   /* Computed from the final IR (fs_scan_ir): sr.sample_mask is read, and the
    * render targets an st_tile outside any if/loop writes, i.e. that every
    * invocation writes (the driver's hidden-surface removal promise). */
   bool fs_reads_sample_mask;
   uint8_t fs_rt_always_written;
   /* 4X only: the shader runs once per sample
    * (cmd_bind_fragment_pipeline.per_sample): it reads the tile buffer
    * (blending: ld_tile reads sample sr.sample_id), asks for sample
    * shading (GL_ARB_sample_shading: info.fs.uses_sample_shading), reads
    * gl_SampleID / gl_SamplePosition, interpolates at the sample, or
    * writes gl_SampleMask (which then discards the invocations of the
    * samples it clears) */
   bool fs_per_sample;

   /* Shader buffers (SSBOs, and atomic counters lowered to them) the
    * shader may access: slots 0 .. ssbo_count - 1 */
   unsigned ssbo_count;
   /* From the final IR: the program stores to memory or does atomics
    * (global or image; not threadgroup memory), so the driver treats its
    * writable buffers as written */
   bool writes_memory;
   /* Fragment: layout(early_fragment_tests) (cmd_bind_fragment_pipeline.early_tests) */
   bool fs_early_tests;

   /* shader-db style statistics */
   unsigned stat_instrs, stat_bytes, stat_spills, stat_fills;
   uint64_t stat_compile_ns;        /* vagx_compile_shader, wall clock */
};

/* Variant key for fragment shaders: what the tile buffer holds. */
struct vagx_fs_key {
   enum pipe_format rt_format[8];
   unsigned nr_cbufs;
   uint32_t blend_hash; /* driver's blend state hash (lowered with nir_lower_blend) */
   bool poly_stipple;   /* polygon stipple: discard against the 32x32 pattern texture */
   /* samples of the tile buffer (0 or 1: 1X; 4: 4X): colour outputs are
    * written to every covered sample (st_tile per sample index) */
   uint8_t samples;
   /* Vertex shaders: components present in each vertex element's format
    * (0 = unknown: fetch what the shader reads) and which elements are pure
    * integer. Components the format lacks read as (0, 0, 0, 1) and are never
    * fetched (a 4-word fetch of an RGB32F attribute would read the next
    * vertex, or past the end of the buffer). */
   uint8_t vs_attr_comps[16];
   uint16_t vs_attr_int;
   /* Vertex shaders: the format of each element the shader converts
    * (vagx_vertex_format_converted; vagx_lower_vertex.c), PIPE_FORMAT_NONE
    * for a 32-bit format loaded as it is */
   uint16_t vs_attr_format[16];
   /* Vertex shaders on a device before contract 1.7, which has no
    * sr.base_instance: the driver draws with base instance 0 (no
    * GL_ARB_base_instance), so gl_InstanceID is sr.instance_id and
    * gl_BaseInstance 0 */
   bool no_base_instance;
   /* Geometry shaders: the outputs_written and clip distance count of the
    * vertex shader that feeds them.  With a geometry pipeline bound the
    * vertex shader writes its usual output layout (vs_layout: position,
    * user words in location order, point size, clip distances) as the
    * pipeline's input_words raw words; ld_vin reads them at the same
    * indices.  Two words: the key is hashed as bytes and must have no
    * padding (vagx_variant.c). */
   uint32_t gs_vs_outputs[2]; /* low, high 32 bits */
   uint8_t gs_vs_clip_distances;
};

/* Sample s of the 4X pattern, in pixels from the pixel's upper-left
 * corner: the contract's constants (SAMPLE_4X_s_X/Y / SAMPLE_POS_UNITS), for
 * the compiler's gl_SamplePosition and the driver's get_sample_position. */
static inline void
vagx_sample_pos_4x(unsigned s, float *x, float *y)
{
   static const uint8_t pos[4][2] = {{VAGX_SAMPLE_4X_0_X, VAGX_SAMPLE_4X_0_Y},
                                     {VAGX_SAMPLE_4X_1_X, VAGX_SAMPLE_4X_1_Y},
                                     {VAGX_SAMPLE_4X_2_X, VAGX_SAMPLE_4X_2_Y},
                                     {VAGX_SAMPLE_4X_3_X, VAGX_SAMPLE_4X_3_Y}};
   *x = pos[s & 3][0] / (float)VAGX_SAMPLE_POS_UNITS;
   *y = pos[s & 3][1] / (float)VAGX_SAMPLE_POS_UNITS;
}

extern const nir_shader_compiler_options vagx_nir_options;

/* Driver-independent lowering, once per CSO (io lowering, scalarisation,
 * idiv, int64/fp64, texture lowering, optimisation loop). */
void vagx_preprocess_nir(nir_shader *nir);

/* Variant compile.  Takes ownership of nothing; nir is modified.  Returns
 * false (with a message in *err) when the shader cannot be compiled. */
bool vagx_compile_shader(nir_shader *nir, const struct vagx_fs_key *fs_key,
                         struct vagx_shader_info *info, const char **err);

/* Background / end-of-tile programs for a framebuffer: for every render target
 * rt < nr_cbufs: bg op CLEAR (push VAGX_PUSH_CLEAR words), LOAD (tex fetch of
 * texture rt at the pixel) or DONT_CARE; eot stores rt through PBE image rt. */
enum vagx_bg_op { VAGX_BG_DONT_CARE = 0, VAGX_BG_CLEAR, VAGX_BG_LOAD };
struct vagx_bg_eot_key {
   unsigned nr_cbufs;
   enum pipe_format format[8];
   uint8_t op[8];       /* bg: enum vagx_bg_op; eot: store (1) or not (0) */
   /* tile-buffer samples (0/1 or 4); with 4 the render targets are 4X
    * images: loads fetch (2dms) and stores write every sample */
   unsigned samples;
};
bool vagx_compile_bg(const struct vagx_bg_eot_key *key, struct vagx_shader_info *info);
bool vagx_compile_eot(const struct vagx_bg_eot_key *key, struct vagx_shader_info *info);

void vagx_shader_info_free(struct vagx_shader_info *info);
/* Vertex shaders: the vertex-output word holding (location, component), -1
 * if not written (stream output declarations, vagx_draw.c). */
int vagx_vs_output_word(const struct vagx_shader_info *info, unsigned location,
                        unsigned component);
/* Words per vertex a vertex shader writing `outputs_written` and
 * `clip_distances` writes (its output layout, edge flag included): a
 * geometry pipeline's input_words. */
unsigned vagx_vs_output_words(uint64_t outputs_written, unsigned clip_distances);
/* Disassembly to a FILE* (VAGX_DEBUG=shaders). */
void vagx_disassemble(FILE *fp, const uint64_t *code, unsigned words);
/* "SHADER-DB: ..." line (parsed by tests/shader-stats/run) */
void vagx_print_stats(FILE *fp, const struct vagx_shader_info *info, const char *name);

/* VAGX_DEBUG flags */
#define VAGX_DBG_SHADERS  (1u << 0)
#define VAGX_DBG_SHADERDB (1u << 1)
#define VAGX_DBG_TRACE    (1u << 2)
#define VAGX_DBG_SYNC     (1u << 3)
#define VAGX_DBG_NIR      (1u << 4)
#define VAGX_DBG_CACHE    (1u << 5)
#define VAGX_DBG_WAITS    (1u << 6)
#define VAGX_DBG_NO_UNIFORM_CF (1u << 7)
#define VAGX_DBG_NO_SCHED (1u << 8)
#define VAGX_DBG_TWIDDLED (1u << 9)
uint32_t vagx_debug_flags(void);

/* vagx_lower_vertex.c: vertex formats fetched in the shader.  The vertex
 * buffer formats are the 32-bit ones (loaded as they are) and those
 * vagx_vertex_format_converted accepts (loaded raw and unpacked in NIR by
 * vagx_lower_vertex_formats, in the variant compile); u_vbuf converts the
 * rest.  Packed ones are aligned to their 4-byte block by u_vbuf
 * (PIPE_VERTEX_INPUT_ALIGNMENT_ELEMENT), the others may sit at any byte. */
bool vagx_vertex_format_converted(enum pipe_format f);
bool vagx_vertex_format_packed(enum pipe_format f);
bool vagx_lower_vertex_formats(nir_shader *nir, const struct vagx_fs_key *key);

/* Tile-buffer/PBE format for a gallium format (VAGX_FORMAT_INVALID = 0 if none). */
unsigned vagx_format_from_pipe(enum pipe_format f);

#ifdef __cplusplus
}
#endif
#endif
