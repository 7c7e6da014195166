/* SPDX-License-Identifier: MIT */
/* vagx screen: caps (25.0 caps struct), formats, timestamps,
 * compiler options and the disk shader cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipe/p_defines.h"
#include "util/build_id.h"
#include "util/format/u_format.h"
#include "util/mesa-sha1.h"
#include "util/os_time.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_screen.h"
#include "util/xmlconfig.h"
#include "vagx_context.h"
#include "vagx_hw.h"
#include "vagx_public.h"

static const char *
vagx_get_name(struct pipe_screen *pscreen)
{
   return "vagx (AGX-like TBDR, emulated)";
}

static const char *
vagx_get_vendor(struct pipe_screen *pscreen)
{
   return "vagx";
}

static int
vagx_get_screen_fd(struct pipe_screen *pscreen)
{
   return vagx_screen(pscreen)->dev.fd;
}

static void
vagx_init_screen_caps(struct vagx_screen *screen)
{
   struct pipe_caps *caps = (struct pipe_caps *)&screen->base.caps;
   u_init_pipe_screen_caps(&screen->base, 1);

   caps->npot_textures = true;
   caps->blend_equation_separate = true;
   caps->uma = true;
   /* sync_file export/import of fences through syncobjs (vagx_fence.c):
    * EGL_ANDROID_native_fence_sync */
   caps->native_fence_fd = true;
   caps->texture_swizzle = true;
   caps->fragment_shader_texture_lod = true;
   caps->fragment_shader_derivatives = true;
   caps->vertex_color_unclamped = true;
   caps->fs_coord_origin_upper_left = true;
   caps->fs_coord_pixel_center_half_integer = true;
   caps->fs_position_is_sysval = true;
   caps->fs_point_is_sysval = true;
   caps->fs_face_is_integer_sysval = true;
   /* st_zs.stencil (with writes_stencil): GL_ARB_shader_stencil_export,
    * util_blitter's single-pass stencil blits, and st's
    * glDrawPixels/glCopyPixels(GL_STENCIL) by sampling the stencil as an
    * integer texture with `tex` (not a fetch), which the renderer returns
    * unfiltered and unconverted (docs/hw/render.md, "Texture sampling of
    * integer formats and stencil") */
   caps->shader_stencil_export = true;
   caps->flatshade = false;
   caps->alpha_test = false;
   caps->two_sided_color = false;
   caps->clip_planes = 0;
   /* the tile buffer holds MAX_RENDER_TARGETS colour targets; gl_FragColor
    * is broadcast by the variant (vagx_state.c) */
   caps->max_render_targets = VAGX_MAX_RENDER_TARGETS;
   /* blending is lowered into each variant per render target
    * (nir_lower_blend with pipe_blend_state.rt[i], vagx_state.c): per-RT
    * enables, masks, equations and factors come for free
    * (GL_EXT_draw_buffers2, GL_ARB_draw_buffers_blend) */
   caps->indep_blend_enable = true;
   caps->indep_blend_func = true;
   /* 4X images can be sampled per sample (tex fetch .2dms): the resolve and
    * MSAA-copy blits of util_blitter need it, and GL_ARB_texture_multisample */
   caps->texture_multisample = true;
   /* GL_ARB_sample_shading: cmd_bind_fragment_pipeline.per_sample runs a 4X
    * shader once per covered sample (render.md), which every contract
    * version has, so the cap needs no version.  st compiles a
    * persample_shading variant (not force_persample_interp) when
    * MinSampleShading x samples > 1, and the compiler makes it per-sample
    * (vagx_compile.c): a fraction above 1/4 shades all four samples, which
    * GL allows (at least that many); gl_SamplePosition is the contract's
    * pattern, gl_SampleMask a discard per sample (lower_sample_io).
    * OES_sample_shading / OES_sample_variables also need
    * GL_ARB_gpu_shader5 in st, which vagx does not have */
   caps->sample_shading = true;
   /* the sampler filters the FLOAT formats (enum format filter=1) */
   caps->texture_float_linear = true;
   caps->texture_half_float_linear = true;
   /* every attachment has its own PBE/depth descriptor with its own size and
    * stride, and the render area is the framebuffer's (the smallest
    * attachment): attachments of different sizes work, which is what
    * GL_ARB_framebuffer_object needs (piglit's -fbo mode relies on it) */
   caps->mixed_framebuffer_sizes = true;
   /* GL_ARB_framebuffer_no_attachments: a render job with rt_count 0 and no
    * zs descriptor still has a size and a sample count (render.md), so a
    * framebuffer of neither colour nor depth is the framebuffer state's
    * width, height and samples (vagx_batch.c); PIPE_FORMAT_NONE is a
    * "render target" of 1 and 4 samples (vagx_is_format_supported) */
   caps->framebuffer_no_attachment = true;
   /* dual-source blending: nir_lower_blend (in the fragment variant)
    * takes the second colour output (dual_source_blend_index 1) as the
    * SRC1 factors' source and removes its stores (GL_ARB_blend_func_extended) */
   caps->max_dual_source_render_targets = 1;
   caps->max_texture_2d_size = VAGX_MAX_TEXTURE_SIZE;
   caps->max_texture_3d_levels = 12;
   caps->max_texture_cube_levels = VAGX_MAX_TEXTURE_LEVELS;
   /* 1D/2D array textures: the descriptor's 1D_ARRAY/2D_ARRAY dimensions
    * and tex/img_ld's .array layer coordinate (docs/hw/render.md) */
   caps->max_texture_array_layers = VAGX_MAX_TEXTURE_LAYERS;
   /* GLSL 1.30: integer and bit ALU ops, integer division, flat and
    * noperspective varyings (ldcf; iter without .persp), texel fetch,
    * texture size and levels queries and array layers in `tex`; texture
    * offsets are lowered to coordinates (vagx_compile.c).  Mesa exposes it
    * only with GL 3.0 (version.c), otherwise GLSL stays 1.20; it also
    * turns on GL_EXT_texture_integer */
   caps->glsl_feature_level = 140;
   /* Geometry shaders run on the device's geometry stage (contract 1.11,
    * render.md): GLSL 1.50, whence GL 3.2 (with EXT_vertex_array_bgra,
    * vagx_lower_vertex.c).  GLSL 3.30 adds nothing the compiler lacks
    * (explicit locations, bit casts, GL_ARB_shader_bit_encoding), and with
    * GL_ARB_vertex_type_2_10_10_10_rev every GL 3.3 extension is there
    * (version.c): GL 3.3 */
   if (vagx_contract_at_least(screen, 1, 11)) {
      caps->glsl_feature_level = 330;
      caps->max_geometry_output_vertices = VAGX_MAX_GS_OUTPUT_VERTICES;
      caps->max_geometry_total_output_components = VAGX_MAX_GS_TOTAL_OUTPUT_WORDS;
      /* 0 (u_screen's default is 32) although the device has
       * VAGX_MAX_GS_INVOCATIONS: with 32 st exposes OES_geometry_shader on
       * ES 3.1, which also needs layered rendering (gl_Layer) that vagx
       * lacks; GLSL's layout(invocations) needs GL_ARB_gpu_shader5 anyway */
      caps->max_gs_invocations = 0;
      caps->max_vertex_streams = 1;
   }
   /* GLSL 1.30's gl_MaxVaryingComponents minimum (64): 16 vec4 varyings
    * are 64 smooth32 words (VAGX_MAX_VARYING_WORDS 127) and, with
    * bindings merged (vagx_draw.c), 16-20 cf bindings */
   caps->max_varyings = 16;
   caps->glsl_feature_level_compatibility = caps->glsl_feature_level;
   /* GLSL ES 3.10: with compute, shader buffers, images, atomic counters,
    * indirect draws, stencil texturing, multisample textures, gather,
    * framebuffers without attachments and a vertex attribute stride of
    * 2048 (below), Mesa computes OpenGL ES 3.1 (version.c,
    * compute_version_es2); st turns on GL_ARB_draw_indirect for ES with it */
   caps->essl_feature_level = 310;
   /* GLSL 1.40 (GL 3.1) adds uniform blocks, instancing, rectangle and
    * buffer samplers and primitive restart; with the buffer textures
    * below, Mesa computes GL 3.1 for the compatibility and core profiles
    * (version.c).  Buffer textures: the descriptor's BUFFER dimension
    * (contract 1.4),
    * fetched by index with `tex .fetch .buf`, 0 past buffer_elements
    * (render.md); the view's offset is the descriptor's base_va, whose
    * alignment is 16 (GL_ARB_texture_buffer_range) */
   caps->texture_buffer_objects = true;
   caps->max_texel_buffer_elements = VAGX_MAX_TEXEL_BUFFER_ELEMENTS;
   caps->texture_buffer_offset_alignment = 16;
   caps->constant_buffer_offset_alignment = 16;
   caps->min_map_buffer_alignment = 64;
   caps->texture_transfer_modes = 0;
   caps->shareable_shaders = false;
   caps->query_timestamp = true;
   caps->timer_resolution = 1;
   /* cmd_query_begin/end (vagx_context.c); time elapsed and timestamps
    * read the device counter after a flush; render_condition checks the
    * result on the CPU before draws and clears */
   caps->occlusion_query = true;
   caps->query_time_elapsed = true;
   /* transform feedback: the device's stream output (cmd_stream_out_buffer
    * / cmd_stream_out, docs/hw/render.md) writes up to 4 buffers, any
    * declaration to any buffer (interleaved buffers, gl_NextBuffer); its
    * offset_va lets a binding append (pause/resume, DrawTransformFeedback
    * reads it back, vagx_draw.c); PRIMITIVES_GENERATED / _EMITTED count in
    * hardware.  64 interleaved components (256-byte stride) are GL's
    * minimum and well under MAX_STREAM_OUT_STRIDE.  Only on devices that
    * have it (contract 1.2, FEATURES.STREAM_OUT, passed on by the kernel) */
   if (screen->dev.info.features & DRM_VAGX_FEATURE_STREAM_OUT) {
      caps->max_stream_output_buffers = VAGX_MAX_STREAM_OUT_BUFFERS;
      caps->max_stream_output_separate_components = 4;
      caps->max_stream_output_interleaved_components = 64;
      caps->stream_output_pause_resume = true;
      caps->stream_output_interleave_buffers = true;
   }
   /* sparse buffers (vagx_commit.c): NULL pages and asynchronous binds
    * (GL_ARB_sparse_buffer) */
   const uint64_t sparse = DRM_VAGX_FEATURE_MAP_NULL | DRM_VAGX_FEATURE_ASYNC_BIND;
   if ((screen->dev.info.features & sparse) == sparse) {
      caps->sparse_buffer_page_size = VAGX_SPARSE_PAGE_SIZE;
      /* sparse textures (GL_ARB_sparse_texture): 2D, cube and their
       * arrays, pages of vagx_layout_sparse_block, the standard sparse
       * block shapes (page sizes: vagx_commit.c), which is contract 1.7's
       * sparse layout (1.5 and 1.6 placed its texels otherwise).  3D
       * images have no page size, so no 3D image is sparse whatever the 3D
       * limit says (GL's minimum, 2048, as the extension requires a
       * value).  Every layer of an array or cube has its own mip tail
       * (FULL_ARRAY_CUBE_MIPMAPS): the sparse layout puts layers whole
       * pages apart (texture.sparse) */
      if (vagx_contract_at_least(screen, 1, 7)) {
         caps->max_sparse_texture_size = VAGX_MAX_TEXTURE_SIZE;
         caps->max_sparse_3d_texture_size = 2048;
         caps->max_sparse_array_texture_layers = VAGX_MAX_TEXTURE_LAYERS;
         caps->sparse_texture_full_array_cube_mipmaps = true;
      }
      /* residency codes (GL_ARB_sparse_texture2: sparseTextureARB,
       * sparseTexelFetchARB, sparseTextureGatherARB, sparseImageLoadARB):
       * tex.resid / img_ld.resid tell a NULL page's texels (contract 1.8,
       * isa.md; vagx_compile.c, vagx_emit_image.c); an older device has
       * no residency code */
      caps->query_sparse_texture_residency = vagx_contract_at_least(screen, 1, 8);
   }
   caps->conditional_render = true;
   /* compute jobs on the compute queue (vagx_compute.c) and shader buffers
    * in the vertex, fragment and compute stages (ld/st/atom_global,
    * vagx_emit_mem.c); atomic counters are SSBO atomics (st lowers them:
    * no hardware atomic counters).  Offsets 4-aligned (the ISA's
    * alignment of 32-bit accesses).  GL_ARB_compute_shader also needs
    * GL_ARB_shader_image_load_store in st: images (vagx_image.c) convert
    * by the PBE's format on loads and stores (formatted) */
   caps->compute = true;
   caps->image_store_formatted = true;
   /* image_* intrinsics on unit indices (gl_nir_lower_images in st) */
   caps->nir_images_as_deref = false;
   caps->image_load_formatted = true;
   caps->shader_buffer_offset_alignment = 4;
   caps->max_shader_buffer_size = VAGX_MAX_SHADER_BUFFER_SIZE;
   caps->vendor_id = VAGX_PCI_VENDOR_ID;
   caps->device_id = VAGX_PCI_DEVICE_ID;
   caps->video_memory = 1024;
   caps->prefer_pot_aligned_varyings = false;
   caps->supported_prim_modes = BITFIELD_BIT(MESA_PRIM_POINTS) | BITFIELD_BIT(MESA_PRIM_LINES) |
                                BITFIELD_BIT(MESA_PRIM_LINE_LOOP) |
                                BITFIELD_BIT(MESA_PRIM_LINE_STRIP) |
                                BITFIELD_BIT(MESA_PRIM_TRIANGLES) |
                                BITFIELD_BIT(MESA_PRIM_TRIANGLE_STRIP) |
                                BITFIELD_BIT(MESA_PRIM_TRIANGLE_FAN);
   /* the adjacency topologies go to the geometry stage as they are (1.11,
    * render.md: GL's vertex orders; u_primconvert's strip-to-list
    * conversion would not keep GL's order for TRIANGLE_STRIP_ADJACENCY) */
   if (vagx_contract_at_least(screen, 1, 11))
      caps->supported_prim_modes |= BITFIELD_BIT(MESA_PRIM_LINES_ADJACENCY) |
                                    BITFIELD_BIT(MESA_PRIM_LINE_STRIP_ADJACENCY) |
                                    BITFIELD_BIT(MESA_PRIM_TRIANGLES_ADJACENCY) |
                                    BITFIELD_BIT(MESA_PRIM_TRIANGLE_STRIP_ADJACENCY);
   caps->supported_prim_modes_with_restart = caps->supported_prim_modes;
   /* cmd_draw has instance_count/base_instance (an indirect draw's in
    * memory); sr.instance_id is i + base_instance and sr.base_instance the
    * draw's base instance (render.md, contract 1.7), so the shader has
    * gl_InstanceID = i and the vertex fetch of an instanced element
    * i / divisor + base_instance (vagx_compile.c): GL_ARB_draw_instanced,
    * GL_ARB_instanced_arrays, GL_ARB_base_instance.  A device before 1.7
    * has no sr.base_instance: there every draw starts at instance 0 (no
    * GL_ARB_base_instance, so st passes 0) and the compiler reads
    * sr.instance_id alone (vagx_fs_key.no_base_instance) */
   caps->vs_instanceid = true;
   caps->vertex_element_instance_divisor = true;
   caps->start_instance = vagx_contract_at_least(screen, 1, 7);
   /* vertex fetch is ld_global at VBO VA + index * stride with the stride
    * in a uniform word (vagx_compile.c): no limit of the device's, so
    * GL 4.4 / GLES 3.1's 2048 (MAX_VERTEX_ATTRIB_STRIDE) */
   caps->max_vertex_attrib_stride = 2048;
   /* ld_global needs min(size, 4)-byte alignment: u_vbuf moves 32-bit
    * elements off 4-byte boundaries, packed ones off their block size;
    * 8/16-bit elements load the words around them (vagx_compile.c
    * emit_vs_input_raw) */
   caps->vertex_input_alignment = PIPE_VERTEX_INPUT_ALIGNMENT_ELEMENT;
   caps->primitive_restart = true;
   caps->primitive_restart_fixed_index = true;
   /* cmd_draw.indirect: the device reads the draw's arguments (GL's
    * layouts), one cmd_draw per draw of a multi-draw (vagx_draw.c):
    * GL_ARB_draw_indirect and GL_ARB_multi_draw_indirect (GL 3.0
    * compatibility; GLES 3.1 needs more).  No draw count from a buffer
    * (multi_draw_indirect_params, ARB_indirect_parameters): the contract
    * has none. */
   caps->draw_indirect = true;
   caps->multi_draw_indirect = true;
   /* GL_ARB_shader_draw_parameters: gl_BaseVertex is sr.base_vertex (an
    * indexed draw's, also read from an indirect draw's arguments; 0 when
    * not indexed), gl_BaseInstance sr.base_instance, gl_DrawID sr.draw_id
    * from cmd_draw.draw_id, which the driver numbers (vagx_draw.c,
    * contract 1.9: an older device has neither register) */
   caps->draw_parameters = vagx_contract_at_least(screen, 1, 9);
   caps->min_line_width = caps->min_line_width_aa = 1;
   caps->min_point_size = caps->min_point_size_aa = 1;
   caps->point_size_granularity = caps->line_width_granularity = 0.1f;
   caps->max_line_width = caps->max_line_width_aa = 16.0f;
   caps->max_point_size = caps->max_point_size_aa = 512.0f;
   /* the sampler has no GL_CLAMP (clamp to [0,1], then blend with the
    * border under linear filtering): the state tracker emulates it */
   caps->gl_clamp = false;
   caps->max_texture_anisotropy = 1.0f;
   /* GL_ARB_depth_clamp: cmd_rasterizer.depth_clip off clamps window z to
    * the depth range (cmd_viewport min/max_depth, emit_viewport) */
   caps->depth_clip_disable = true;
   /* GL_ARB_texture_cube_map_array: the descriptor's CUBE_ARRAY, 6 layers a
    * cube, `tex .cube .array` (layer = cube index, render.md) */
   caps->cube_map_array = true;
   /* GL_ARB_seamless_cube_map, GL_AMD_seamless_cubemap_per_texture: the
    * sampler's seamless_cube (vagx_state.c), which the texture unit filters
    * across face edges (render.md, "Seamless cube maps"); st sets it per
    * sampler, and always in ES 3.0+ contexts */
   caps->seamless_cube_map = true;
   caps->seamless_cube_map_per_texture = true;
   /* GL_ARB_texture_gather: `tex .gather` (render.md, "Texture gather")
    * picks any of the 4 components; offsets, and textureGatherOffsets'
    * four, become coordinates in the compiler (nir_lower_tex), so any
    * range works: GL 4.0's -8..7 */
   caps->max_texture_gather_components = 4;
   caps->min_texture_gather_offset = -8;
   caps->max_texture_gather_offset = 7;
   caps->max_texture_lod_bias = 16.0f;
}

static int
vagx_get_shader_param(struct pipe_screen *pscreen, enum pipe_shader_type shader,
                      enum pipe_shader_cap param)
{
   if (shader != PIPE_SHADER_VERTEX && shader != PIPE_SHADER_FRAGMENT &&
       shader != PIPE_SHADER_COMPUTE &&
       (shader != PIPE_SHADER_GEOMETRY || !vagx_contract_at_least(vagx_screen(pscreen), 1, 11)))
      return 0;
   switch (param) {
   case PIPE_SHADER_CAP_MAX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_ALU_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INDIRECTIONS:
      return 65536;
   case PIPE_SHADER_CAP_MAX_CONTROL_FLOW_DEPTH:
      return 64;
   case PIPE_SHADER_CAP_MAX_INPUTS:
      return shader == PIPE_SHADER_VERTEX ? 16 : 16;
   case PIPE_SHADER_CAP_MAX_OUTPUTS:
      return shader == PIPE_SHADER_VERTEX ? 16 : VAGX_MAX_RENDER_TARGETS;
   case PIPE_SHADER_CAP_MAX_TEMPS:
      return 256;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFER0_SIZE:
      return 16 * 1024;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFERS:
      /* uniforms + 15 uniform blocks (GL_ARB_uniform_buffer_object needs
       * 12 per stage): blocks are ld_global from the buffer's address
       * (vagx_compile.c load_ubo, vagx_draw.c fill_push) */
      return 16;
   case PIPE_SHADER_CAP_INDIRECT_TEMP_ADDR:
   case PIPE_SHADER_CAP_INDIRECT_CONST_ADDR:
      return 1;
   case PIPE_SHADER_CAP_INTEGERS:
      return 1;
   case PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS:
   case PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS:
      return 16;
   case PIPE_SHADER_CAP_SUPPORTED_IRS:
      return 1 << PIPE_SHADER_IR_NIR;
   case PIPE_SHADER_CAP_MAX_SHADER_IMAGES:
      if (shader == PIPE_SHADER_GEOMETRY)
         return 0; /* GL 4.2's; the geometry stage's bindings are not dirty-tracked for them */
      /* img_ld / img_st on the program's image table (VAGX_MAX_IMAGES
       * entries), atomics on texel addresses (vagx_emit_image.c); GL 4.3
       * asks for 8 in the fragment and compute stages */
      return 16;
   case PIPE_SHADER_CAP_MAX_SHADER_BUFFERS:
      if (shader == PIPE_SHADER_GEOMETRY)
         return 0;
      /* st gives half of them to atomic counter buffers (no hardware
       * atomic counters): 8 + 8, GL 4.3's and GLES 3.1's compute minimums */
      return 16;
   default:
      return 0;
   }
}

/* The compute job's limits (docs/hw/compute.md) */
static int
vagx_get_compute_param(struct pipe_screen *pscreen, enum pipe_shader_ir ir,
                       enum pipe_compute_cap param, void *ret)
{
#define RET(x)                                                                                 \
   do {                                                                                        \
      if (ret)                                                                                 \
         memcpy(ret, x, sizeof(x));                                                            \
      return sizeof(x);                                                                        \
   } while (0)
   switch (param) {
   case PIPE_COMPUTE_CAP_ADDRESS_BITS:
      RET((uint32_t[]){ 64 });
   case PIPE_COMPUTE_CAP_IR_TARGET:
      if (ret)
         strcpy(ret, "vagx");
      return sizeof("vagx");
   case PIPE_COMPUTE_CAP_GRID_DIMENSION:
      RET((uint64_t[]){ 3 });
   case PIPE_COMPUTE_CAP_MAX_GRID_SIZE:
      /* compute_job.grid_* are 32-bit; GL's minimum is enough */
      RET(((uint64_t[]){ 65535, 65535, 65535 }));
   case PIPE_COMPUTE_CAP_MAX_BLOCK_SIZE:
      RET(((uint64_t[]){ VAGX_MAX_THREADGROUP_SIZE, VAGX_MAX_THREADGROUP_SIZE,
                         VAGX_MAX_THREADGROUP_SIZE }));
   case PIPE_COMPUTE_CAP_MAX_THREADS_PER_BLOCK:
   case PIPE_COMPUTE_CAP_MAX_VARIABLE_THREADS_PER_BLOCK:
      /* a variable group size is sr.tgsize_* (vagx_emit_mem.c) */
      RET((uint64_t[]){ VAGX_MAX_THREADGROUP_SIZE });
   case PIPE_COMPUTE_CAP_MAX_LOCAL_SIZE:
      RET((uint64_t[]){ VAGX_MAX_SHARED_SIZE });
   case PIPE_COMPUTE_CAP_MAX_GLOBAL_SIZE:
   case PIPE_COMPUTE_CAP_MAX_MEM_ALLOC_SIZE:
      RET((uint64_t[]){ 1ull << 30 });
   case PIPE_COMPUTE_CAP_MAX_PRIVATE_SIZE:
      RET((uint64_t[]){ VAGX_MAX_STACK_BYTES });
   case PIPE_COMPUTE_CAP_MAX_INPUT_SIZE:
      RET((uint64_t[]){ 4096 });
   case PIPE_COMPUTE_CAP_MAX_CLOCK_FREQUENCY:
   case PIPE_COMPUTE_CAP_MAX_COMPUTE_UNITS:
      RET((uint32_t[]){ 1 });
   case PIPE_COMPUTE_CAP_IMAGES_SUPPORTED:
      RET((uint32_t[]){ 0 });
   case PIPE_COMPUTE_CAP_SUBGROUP_SIZES:
      RET((uint32_t[]){ VAGX_SIMD_WIDTH });
   case PIPE_COMPUTE_CAP_MAX_SUBGROUPS:
      RET((uint32_t[]){ VAGX_MAX_THREADGROUP_SIZE / VAGX_SIMD_WIDTH });
   }
#undef RET
   return 0;
}

static bool
vagx_is_format_supported(struct pipe_screen *pscreen, enum pipe_format format,
                         enum pipe_texture_target target, unsigned sample_count,
                         unsigned storage_sample_count, unsigned usage)
{
   if (MAX2(1, sample_count) != MAX2(1, storage_sample_count))
      return false;
   /* st asks for the sample counts of a framebuffer without attachments
    * (GL_ARB_framebuffer_no_attachments) as those of a PIPE_FORMAT_NONE
    * render target: the render job's, 1 or 4 */
   if (format == PIPE_FORMAT_NONE)
      return !(usage & ~PIPE_BIND_RENDER_TARGET) &&
             (target == PIPE_TEXTURE_2D || target == PIPE_TEXTURE_2D_ARRAY) &&
             (sample_count <= 1 || sample_count == VAGX_MAX_SAMPLES);
   /* 4X MSAA (render_job.samples, PBE and texture descriptor samples) is
    * the only multisample count; 4X images are 2D or 2D arrays, twiddled
    * (layout.md),
    * of a renderable colour or depth/stencil format, and are rendered to,
    * fetched per sample (tex 2dms) and resolved by util_blitter */
   if (sample_count > 1) {
      if (sample_count != VAGX_MAX_SAMPLES ||
          (target != PIPE_TEXTURE_2D && target != PIPE_TEXTURE_2D_ARRAY) ||
          (usage & ~(PIPE_BIND_RENDER_TARGET | PIPE_BIND_DEPTH_STENCIL | PIPE_BIND_SAMPLER_VIEW)))
         return false;
      unsigned v = vagx_format_from_pipe(format);
      if (v == VAGX_FORMAT_INVALID ||
          (!vagx_format_render(v) && !vagx_format_depth(v) && !vagx_format_stencil(v)))
         return false;
   }
   if (usage & PIPE_BIND_VERTEX_BUFFER) {
      /* vertex fetch is in-shader loads: 32-bit formats as they are, the
       * 8/16-bit and packed ones converted in the shader
       * (vagx_lower_vertex.c); u_vbuf converts the rest */
      switch (format) {
      case PIPE_FORMAT_R32_FLOAT: case PIPE_FORMAT_R32G32_FLOAT:
      case PIPE_FORMAT_R32G32B32_FLOAT: case PIPE_FORMAT_R32G32B32A32_FLOAT:
      case PIPE_FORMAT_R32_UINT: case PIPE_FORMAT_R32G32_UINT:
      case PIPE_FORMAT_R32G32B32_UINT: case PIPE_FORMAT_R32G32B32A32_UINT:
      case PIPE_FORMAT_R32_SINT: case PIPE_FORMAT_R32G32_SINT:
      case PIPE_FORMAT_R32G32B32_SINT: case PIPE_FORMAT_R32G32B32A32_SINT:
         break;
      default:
         if (!vagx_vertex_format_converted(format))
            return false;
      }
      usage &= ~PIPE_BIND_VERTEX_BUFFER;
   }
   if (usage & PIPE_BIND_INDEX_BUFFER) {
      if (format != PIPE_FORMAT_R8_UINT && format != PIPE_FORMAT_R16_UINT &&
          format != PIPE_FORMAT_R32_UINT)
         return false;
      usage &= ~PIPE_BIND_INDEX_BUFFER;
   }
   if (target == PIPE_BUFFER) {
      if (usage == PIPE_BIND_SAMPLER_VIEW) {
         /* buffer textures: any sampled format of 1, 2, 4, 8 or 16 bytes
          * a texel, which the texture unit unpacks (render_tex.c) */
         unsigned v = vagx_format_from_pipe(format);
         return v != VAGX_FORMAT_INVALID && !vagx_format_depth(v) && !vagx_format_stencil(v) &&
                util_is_power_of_two_nonzero(util_format_get_blocksize(format)) &&
                util_format_get_blockwidth(format) == 1;
      }
      if (usage == PIPE_BIND_SHADER_IMAGE) {
         /* buffer images: linear 2D images of the render formats
          * (vagx_image.c) */
         unsigned v = vagx_format_from_pipe(format);
         return v != VAGX_FORMAT_INVALID && vagx_format_render(v) && !vagx_format_depth(v) &&
                !vagx_format_stencil(v) && util_format_get_blocksize(format) <= 16;
      }
      return usage == 0 || format == PIPE_FORMAT_R8_UNORM;
   }
   if (!usage)
      return true;
   /* stencil-only views of Z24S8 / Z32F_S8X24 resources: the texture
    * descriptor's sample_stencil reads the stencil aspect (vagx_draw.c) */
   if ((format == PIPE_FORMAT_X24S8_UINT || format == PIPE_FORMAT_X32_S8X24_UINT) &&
       usage == PIPE_BIND_SAMPLER_VIEW)
      return true;
   unsigned v = vagx_format_from_pipe(format);
   if (v == VAGX_FORMAT_INVALID)
      return false;
   if (usage & PIPE_BIND_RENDER_TARGET) {
      if (!vagx_format_render(v))
         return false;
   }
   if (usage & PIPE_BIND_DEPTH_STENCIL) {
      if (!vagx_format_depth(v) && !vagx_format_stencil(v))
         return false;
   }
   if (usage & PIPE_BIND_SHADER_IMAGE) {
      /* img_ld / img_st convert what the PBE packs and unpacks: the
       * colour render formats */
      if (!vagx_format_render(v) || vagx_format_depth(v) || vagx_format_stencil(v))
         return false;
   }
   if (usage & PIPE_BIND_SAMPLER_VIEW) {
      /* the X variants would need a swizzle to force alpha = 1: use A variants */
      if (format == PIPE_FORMAT_Z24X8_UNORM)
         return true;
   }
   return true;
}

static uint64_t
vagx_get_timestamp(struct pipe_screen *pscreen)
{
   struct vagx_screen *screen = vagx_screen(pscreen);
   uint64_t ts = 0;
   if (screen->dev.ops->timestamp(&screen->dev, &ts))
      return os_time_get_nano();
   uint64_t hz = screen->dev.info.timestamp_frequency_hz;
   if (hz && hz != 1000000000ull)
      ts = (uint64_t)((double)ts * (1e9 / (double)hz));
   return ts;
}

static const void *
vagx_get_compiler_options(struct pipe_screen *pscreen, enum pipe_shader_ir ir,
                          enum pipe_shader_type shader)
{
   return &vagx_nir_options;
}

static struct disk_cache *
vagx_get_disk_shader_cache(struct pipe_screen *pscreen)
{
   return vagx_screen(pscreen)->disk_cache;
}

static void
vagx_destroy_screen(struct pipe_screen *pscreen)
{
   struct vagx_screen *screen = vagx_screen(pscreen);
   if (pscreen->transfer_helper)
      u_transfer_helper_destroy(pscreen->transfer_helper);
   disk_cache_destroy(screen->disk_cache);
   slab_destroy_parent(&screen->transfer_pool);
   vagx_bo_cache_fini(screen);
   vagx_screen_fini_timeline(screen);
   vagx_device_close(&screen->dev);
   close(screen->dev.fd);
   FREE(screen);
}

static void
vagx_query_memory_info(struct pipe_screen *pscreen, struct pipe_memory_info *info)
{
   memset(info, 0, sizeof(*info));
   info->total_device_memory = 1024 * 1024;
   info->avail_device_memory = 1024 * 1024;
}

/* The shader cache (st's NIR and the driver's compiled variants,
 * vagx_shader.c) is keyed by this build of the driver and of the compiler
 * (their build-ids: one today, as the compiler is linked into the driver's
 * library, two if it ever is a library of its own), so nothing cached by
 * another build, with other compiler options, caps or code generation, is
 * loaded.  No debug flag changes the code, so none is in the key. */
static void
vagx_disk_cache_init(struct vagx_screen *screen)
{
   const struct build_id_note *driver = build_id_find_nhdr_for_addr(vagx_disk_cache_init);
   const struct build_id_note *compiler = build_id_find_nhdr_for_addr(vagx_compile_shader);
   if (!driver || !compiler)
      return;
   struct mesa_sha1 ctx;
   unsigned char sha1[SHA1_DIGEST_LENGTH];
   _mesa_sha1_init(&ctx);
   _mesa_sha1_update(&ctx, build_id_data(driver), build_id_length(driver));
   _mesa_sha1_update(&ctx, build_id_data(compiler), build_id_length(compiler));
   _mesa_sha1_final(&ctx, sha1);
   char id[SHA1_DIGEST_STRING_LENGTH];
   _mesa_sha1_format(id, sha1);
   screen->disk_cache = disk_cache_create("vagx", id, 0);
}

struct pipe_screen *
vagx_screen_create(int fd, const struct pipe_screen_config *config, struct renderonly *ro)
{
   struct vagx_screen *screen = CALLOC_STRUCT(vagx_screen);
   if (!screen)
      return NULL;
   if (!vagx_device_open(&screen->dev, fd)) {
      FREE(screen);
      return NULL;
   }
   screen->debug = vagx_debug_flags();
   vagx_bo_cache_init(screen);
   struct pipe_screen *p = &screen->base;
   p->destroy = vagx_destroy_screen;
   p->get_name = vagx_get_name;
   p->get_vendor = vagx_get_vendor;
   p->get_device_vendor = vagx_get_vendor;
   p->get_screen_fd = vagx_get_screen_fd;
   p->get_shader_param = vagx_get_shader_param;
   p->get_compute_param = vagx_get_compute_param;
   p->is_format_supported = vagx_is_format_supported;
   p->context_create = vagx_context_create;
   vagx_init_screen_fence_functions(p);
   p->get_timestamp = vagx_get_timestamp;
   p->get_compiler_options = vagx_get_compiler_options;
   p->get_disk_shader_cache = vagx_get_disk_shader_cache;
   p->query_memory_info = vagx_query_memory_info;
   vagx_init_resource_functions(p);
   vagx_init_screen_sparse_functions(p);
   slab_create_parent(&screen->transfer_pool, sizeof(struct vagx_transfer), 16);

   vagx_disk_cache_init(screen);
   vagx_init_screen_caps(screen);
   return p;
}
