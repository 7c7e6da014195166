/* SPDX-License-Identifier: MIT */
/*
 * Vertex formats fetched and converted in the vertex shader.
 *
 * The device has no vertex fetch unit: a vertex shader loads its
 * attributes with ld_global (vagx_compile.c emit_vs_input).  32-bit
 * formats are loaded as they are.  The 8- and 16-bit formats (normalized,
 * scaled, integer, half float), BGRA8 and the packed 2_10_10_10 and
 * 11_11_10 formats are converted here, in NIR, with Mesa's
 * nir_format_unpack_rgba: every load_input of such an attribute becomes a
 * load_input of its raw bytes (the convention below) and the unpacking.
 * Without this u_vbuf would convert them on the CPU at every draw.
 *
 * Raw-load convention, shared with emit_vs_input: after this pass a
 * load_input of an attribute whose vs_attr_format is set returns
 * DIV_ROUND_UP(block bytes, 4) 32-bit words holding the element's bytes
 * in memory order (bits past the element undefined).
 */
#include "vagx_compiler.h"
#include "compiler/nir/nir_builder.h"
#include "compiler/nir/nir_format_convert.h"
#include "util/format/u_format.h"

/* Packed formats (channel sizes that differ or are not whole bytes): u_vbuf
 * aligns them to their block size (PIPE_VERTEX_INPUT_ALIGNMENT_ELEMENT),
 * the same test as u_vbuf's. */
bool
vagx_vertex_format_packed(enum pipe_format f)
{
   const struct util_format_description *d = util_format_description(f);
   for (unsigned c = 0; c < d->nr_channels; c++)
      if (d->channel[c].size != d->channel[0].size || d->channel[c].size % 8)
         return true;
   return false;
}

bool
vagx_vertex_format_converted(enum pipe_format f)
{
   if (f == PIPE_FORMAT_R11G11B10_FLOAT)
      return true; /* nir_format_unpack_rgba's own case */
   const struct util_format_description *d = util_format_description(f);
   if (!d || d->layout != UTIL_FORMAT_LAYOUT_PLAIN || d->colorspace != UTIL_FORMAT_COLORSPACE_RGB ||
       d->block.width != 1 || d->block.height != 1 || d->nr_channels < 1)
      return false;
   const bool packed = vagx_vertex_format_packed(f);
   if (packed && d->block.bits != 32)
      return false;
   for (unsigned c = 0; c < d->nr_channels; c++) {
      const struct util_format_channel_description *ch = &d->channel[c];
      switch (ch->type) {
      case UTIL_FORMAT_TYPE_UNSIGNED:
      case UTIL_FORMAT_TYPE_SIGNED:
         /* 8/16-bit arrays and the 10_10_10_2 family; 32-bit integers are
          * loaded as is, 32-bit normalized/scaled ones are u_vbuf's */
         if (!packed && ch->size != 8 && ch->size != 16)
            return false;
         break;
      case UTIL_FORMAT_TYPE_FLOAT:
         if (ch->size != 16)
            return false;
         break;
      default:
         return false; /* void (RGBX), fixed */
      }
   }
   /* 3- and 4-channel 16-bit formats are unpacked as two 32-bit halves */
   if (d->block.bits > 32) {
      for (unsigned c = 0; c < d->nr_channels; c++)
         if (d->swizzle[c] != PIPE_SWIZZLE_X + c)
            return false;
   }
   return true;
}

static nir_def *
unpack(nir_builder *b, nir_def *raw, enum pipe_format f)
{
   const struct util_format_description *d = util_format_description(f);
   if (d->block.bits <= 32)
      return nir_format_unpack_rgba(b, raw, f);
   /* RGB16 / RGBA16: channels 0-1 in word 0, 2(-3) in word 1; each word is
    * the 2- or 1-channel format of the same type */
   const struct util_format_channel_description *ch = &d->channel[0];
   nir_def *lo = nir_format_unpack_rgba(
      b, nir_channel(b, raw, 0),
      util_format_get_array(ch->type, 16, 2, ch->normalized, ch->pure_integer));
   nir_def *hi = nir_format_unpack_rgba(
      b, nir_channel(b, raw, 1),
      util_format_get_array(ch->type, 16, d->nr_channels - 2, ch->normalized, ch->pure_integer));
   /* hi's missing channels are (0, 0, 0, 1): its y is the 4th channel or 0,
    * its w the 1 a 3-channel format's alpha reads as */
   return nir_vec4(b, nir_channel(b, lo, 0), nir_channel(b, lo, 1), nir_channel(b, hi, 0),
                   nir_channel(b, hi, d->nr_channels == 4 ? 1 : 3));
}

static bool
lower_input(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   const struct vagx_fs_key *key = data;
   if (intr->intrinsic != nir_intrinsic_load_input || !nir_src_is_const(intr->src[0]))
      return false; /* an indirect input is emit_vs_input's error */
   const unsigned attr = nir_intrinsic_base(intr) + nir_src_as_uint(intr->src[0]);
   if (attr >= ARRAY_SIZE(key->vs_attr_format) || !key->vs_attr_format[attr])
      return false;
   const enum pipe_format f = key->vs_attr_format[attr];
   const unsigned words = DIV_ROUND_UP(util_format_get_blocksize(f), 4);

   b->cursor = nir_before_instr(&intr->instr);
   nir_def *raw = nir_load_input(b, words, 32, nir_imm_int(b, 0), .base = attr, .component = 0,
                                 .dest_type = nir_type_uint32,
                                 .io_semantics = nir_intrinsic_io_semantics(intr));
   nir_def *rgba = unpack(b, raw, f);
   nir_def_replace(&intr->def, nir_channels(b, rgba, nir_component_mask(intr->def.num_components)
                                                        << nir_intrinsic_component(intr)));
   return true;
}

bool
vagx_lower_vertex_formats(nir_shader *nir, const struct vagx_fs_key *key)
{
   assert(nir->info.stage == MESA_SHADER_VERTEX);
   return nir_shader_intrinsics_pass(nir, lower_input, nir_metadata_control_flow, (void *)key);
}
