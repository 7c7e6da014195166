/* SPDX-License-Identifier: MIT */
/* Instruction selection's context and its operand helpers, shared by
 * vagx_compile.c (ALU, I/O, textures, control flow) and vagx_emit_mem.c
 * (memory, atomics, compute system values, barriers). */
#ifndef VAGX_COMPILE_PRIV_H
#define VAGX_COMPILE_PRIV_H

#include <stdlib.h>
#include "compiler/nir/nir.h"
#include "util/set.h"
#include "util/u_dynarray.h"
#include "vagx_ir.h"

struct ctx {
   nir_shader *nir;
   vagx_ir ir;
   struct vagx_shader_info *info;
   const struct vagx_fs_key *fs_key;
   vagx_ir_src **defs;    /* per SSA index: per component operand */
   /* per NIR block index: the IR terminator that ends the IR block its
    * last instruction is in (a phi's predecessor), ~0u none yet */
   unsigned *block_end;
   nir_block *pending;    /* the block the next terminator ends (emit_cf) */
   struct util_dynarray phis; /* struct phi_fixup: the phis to fill in */
   struct set *uniform_cf; /* the nir_if and nir_loop selected as uniform (mark_uniform_cf) */
   nir_loop *loop;         /* the innermost loop selection is in */
   uint8_t user_loc_word[VARYING_SLOT_MAX]; /* vs: first user word of location, 0xff none */
   unsigned psiz_word, clip_word, edge_word;
   /* geometry: the feeding vertex shader's output layout (ld_vin words) */
   uint8_t in_loc_word[VARYING_SLOT_MAX];
   unsigned in_psiz_word, in_clip_word, in_clip_count;
   bool in_psiz;
};

static inline vagx_ir_src
get_src(struct ctx *c, nir_src *src, unsigned comp)
{
   nir_def *d = src->ssa;
   return c->defs[d->index][comp];
}

static inline vagx_ir_src
alu_src(struct ctx *c, nir_alu_instr *alu, unsigned i)
{
   return get_src(c, &alu->src[i].src, alu->src[i].swizzle[0]);
}

static inline vagx_ir_src *
def_slots(struct ctx *c, nir_def *def)
{
   if (!c->defs[def->index])
      c->defs[def->index] = calloc(def->num_components, sizeof(vagx_ir_src));
   return c->defs[def->index];
}

static inline void
set_def(struct ctx *c, nir_def *def, unsigned comp, vagx_ir_src s)
{
   def_slots(c, def)[comp] = s;
}

static inline vagx_ir_src
uniform_word(struct ctx *c, unsigned kind, unsigned arg)
{
   return ir_file(IR_U, vagx_push_word(c->info, kind, arg));
}

/* Two adjacent uniform words (lo, hi) for a 64-bit address. */
static inline vagx_ir_src
uniform_addr(struct ctx *c, unsigned kind_lo, unsigned kind_hi, unsigned arg)
{
   struct vagx_shader_info *info = c->info;
   for (unsigned i = 0; i + 1 < info->push_count; i++)
      if (info->push[i].kind == kind_lo && info->push[i].arg == arg)
         return ir_file(IR_U, i);
   unsigned lo = info->push_count;
   info->push[info->push_count++] = (struct vagx_push){ kind_lo, arg };
   info->push[info->push_count++] = (struct vagx_push){ kind_hi, arg };
   return ir_file(IR_U, lo);
}

static inline vagx_ir_src
mov_to_vreg(struct ctx *c, vagx_ir_src s)
{
   uint32_t v = vagx_ir_new_vreg(&c->ir, 1);
   vagx_ir_emit(&c->ir, VAGX_OP_MOV, v, 0, s, ir_none(), ir_none());
   return ir_vreg(v, 0);
}

/* Build an n-register vector vreg from scalar operands. */
static inline uint32_t
make_vec(struct ctx *c, const vagx_ir_src *s, unsigned n)
{
   uint32_t v = vagx_ir_new_vreg(&c->ir, n);
   for (unsigned i = 0; i < n; i++)
      vagx_ir_emit(&c->ir, VAGX_OP_MOV, v, i, s[i], ir_none(), ir_none());
   return v;
}

static inline void
def_from_vec(struct ctx *c, nir_def *def, uint32_t v)
{
   for (unsigned i = 0; i < def->num_components; i++)
      set_def(c, def, i, ir_vreg(v, i));
}

/* vagx_emit_mem.c */
/* NIR lowering of memory and compute (system values, SSBO and shared
 * bounds checks, helper-invocation stores), before the optimisation loop */
void vagx_lower_mem_nir(nir_shader *nir);
/* Selection of the intrinsics vagx_compile.c does not handle: SSBOs,
 * shared memory, atomics, compute system values, barriers.  False with
 * c->ir.error set when the intrinsic cannot be compiled. */
bool vagx_emit_mem_intrinsic(struct ctx *c, nir_intrinsic_instr *intr);
/* The high word of an address operand (uniform or register pair) */
vagx_ir_src vagx_addr_hi(vagx_ir_src a);
/* A register pair holding the address operand `base` + the unsigned 32-bit
 * `off` */
vagx_ir_src vagx_addr_add(struct ctx *c, vagx_ir_src base, vagx_ir_src off);
/* The atom_global/atom_shared operation of a NIR atomic; false with
 * c->ir.error set for those the ISA lacks */
bool vagx_atomic_op(struct ctx *c, nir_intrinsic_instr *intr, unsigned *aop);
/* atom_global `aop` at addr of the atomic intrinsic's data, sources
 * data_src and (compare-and-swap: comparand first) data_src + 1; its
 * result */
vagx_ir_src vagx_atom_global(struct ctx *c, nir_intrinsic_instr *intr, unsigned aop,
                             vagx_ir_src addr, unsigned data_src);

/* vagx_emit_image.c: image_load/store/size/samples/atomic(_swap) */
bool vagx_emit_image_intrinsic(struct ctx *c, nir_intrinsic_instr *intr);

/* What the final IR says about memory (info->writes_memory), and the
 * fragment shader's early tests */
void vagx_scan_mem_ir(const nir_shader *nir, const vagx_ir *ir, struct vagx_shader_info *info);

#endif
