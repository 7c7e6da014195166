/* SPDX-License-Identifier: MIT */
/*
 * Memory and compute in the compiler (issue 19): shader storage buffers
 * (and the atomic counters st lowers to them), threadgroup (shared)
 * memory, atomics, compute system values and barriers.
 *
 * Shader buffers are global memory.  The driver gives each bound buffer
 * (pipe_shader_buffer) three uniform words, VA low/high and size
 * (VAGX_PUSH_SSBO_*), and a table of the same in memory for accesses whose
 * buffer index is not a constant (VAGX_PUSH_SSBO_TABLE_*; the index is
 * clamped to the shader's buffers).  An access is `ld_global` /
 * `st_global` at the buffer's VA + the byte offset (the instruction adds a
 * sign-extended 32-bit offset; offsets stay below max_shader_buffer_size,
 * 2^27), atomics `atom_global` at VA + offset computed in 64 bits.  Every
 * offset is bounds-checked first (nir_lower_robust_access: an access that
 * does not end within the bound size goes to offset 0 instead), so an
 * out-of-range access reads or writes inside the buffer and never faults
 * (GL's robust buffer access); an unbound slot gets a small buffer of the
 * driver's with size 0.  Shared memory is the device's threadgroup memory
 * (`ld_shared`/`st_shared`/`atom_shared` at byte addresses from 0), its
 * offsets bounds-checked the same way against the shader's shared size
 * (the device faults the job on an access past the dispatch's
 * threadgroup memory).  Fragment shaders do not store or do atomics from
 * helper invocations (sr.helper), as GL requires.
 *
 * Compute system values are special registers (docs/hw/isa.md, enum sr):
 * local id sr.tid_*, workgroup id sr.tgid_*, group count sr.ngroups_*
 * (the device's grid, also for indirect dispatches), local index
 * sr.tindex, a variable group size sr.tgsize_*; global ids are computed
 * by nir_lower_compute_system_values.  Barriers: an execution barrier of
 * the workgroup is `barrier` (scope dev when it orders buffer memory),
 * memory barriers alone are `fence`.
 */
#include "compiler/nir/nir_builder.h"
#include "vagx_builder.h"
#include "vagx_compile_priv.h"
#include "vagx_hw.h"

/* ---- NIR lowering (per CSO, vagx_preprocess_nir) ---- */

static bool
robust_filter(const nir_intrinsic_instr *intr, const void *data)
{
   switch (intr->intrinsic) {
   case nir_intrinsic_load_ssbo:
   case nir_intrinsic_store_ssbo:
   case nir_intrinsic_ssbo_atomic:
   case nir_intrinsic_ssbo_atomic_swap:
   case nir_intrinsic_load_shared:
   case nir_intrinsic_store_shared:
   case nir_intrinsic_shared_atomic:
   case nir_intrinsic_shared_atomic_swap:
      return true;
   default:
      return false;
   }
}

/* Fragment shaders: buffer stores and atomics of helper invocations have
 * no effect (nir_lower_helper_writes does this for global and image
 * intrinsics; ours stay SSBO intrinsics until selection). */
static bool
lower_helper_writes(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   if (intr->intrinsic != nir_intrinsic_store_ssbo && intr->intrinsic != nir_intrinsic_ssbo_atomic &&
       intr->intrinsic != nir_intrinsic_ssbo_atomic_swap)
      return false;
   b->cursor = nir_before_instr(&intr->instr);
   const bool has_dest = nir_intrinsic_infos[intr->intrinsic].has_dest;
   nir_push_if(b, nir_inot(b, nir_is_helper_invocation(b, 1)));
   nir_instr_remove(&intr->instr);
   nir_builder_instr_insert(b, &intr->instr);
   nir_def *undef = NULL;
   if (has_dest) {
      nir_push_else(b, NULL);
      undef = nir_undef(b, intr->def.num_components, intr->def.bit_size);
   }
   nir_pop_if(b, NULL);
   if (has_dest) {
      /* what a helper's atomic returns is undefined (GL 4.6, 15.2.4) */
      nir_def *phi = nir_if_phi(b, &intr->def, undef);
      nir_def_rewrite_uses(&intr->def, phi);
      nir_phi_instr *p = nir_instr_as_phi(phi->parent_instr);
      nir_src_rewrite(&nir_phi_get_src_from_block(p, intr->instr.block)->src, &intr->def);
   }
   return true;
}

/* An image intrinsic whose unit is not a constant (an array of images
 * indexed by a dynamically uniform expression, GLSL 4.00): a copy per unit
 * the shader declares, each under an if on the index, since the image
 * unit takes the unit from the instruction.  An index past them does
 * nothing and returns 0 (GL: undefined). */
static bool
is_image_intrinsic(nir_intrinsic_op op)
{
   switch (op) {
   case nir_intrinsic_image_load:
   case nir_intrinsic_image_sparse_load:
   case nir_intrinsic_image_store:
   case nir_intrinsic_image_size:
   case nir_intrinsic_image_samples:
   case nir_intrinsic_image_atomic:
   case nir_intrinsic_image_atomic_swap:
      return true;
   default:
      return false;
   }
}

static bool
lower_dynamic_image_unit(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   if (!is_image_intrinsic(intr->intrinsic))
      return false;
   const unsigned n = b->shader->info.num_images;
   if (nir_src_is_const(intr->src[0]) || !n)
      return false;
   b->cursor = nir_before_instr(&intr->instr);
   nir_def *idx = intr->src[0].ssa;
   const bool has_dest = nir_intrinsic_infos[intr->intrinsic].has_dest;
   nir_def *res = has_dest ? nir_imm_zero(b, intr->def.num_components, intr->def.bit_size) : NULL;
   for (unsigned i = 0; i < n; i++) {
      nir_push_if(b, nir_ieq_imm(b, idx, i));
      nir_def *unit = nir_imm_int(b, i);
      nir_intrinsic_instr *copy = nir_instr_as_intrinsic(nir_instr_clone(b->shader, &intr->instr));
      nir_builder_instr_insert(b, &copy->instr);
      nir_src_rewrite(&copy->src[0], unit);
      nir_pop_if(b, NULL);
      if (has_dest)
         res = nir_if_phi(b, &copy->def, res);
   }
   if (has_dest)
      nir_def_rewrite_uses(&intr->def, res);
   nir_instr_remove(&intr->instr);
   return true;
}

void
vagx_lower_mem_nir(nir_shader *nir)
{
   NIR_PASS(_, nir, nir_shader_intrinsics_pass, lower_dynamic_image_unit, nir_metadata_none, NULL);
   if (nir->info.stage == MESA_SHADER_COMPUTE) {
      /* global ids, a fixed group size as constants (st has run it for
       * GLSL; internal shaders may not have) */
      const nir_lower_compute_system_values_options cs = { 0 };
      NIR_PASS(_, nir, nir_lower_compute_system_values, &cs);
   }
   NIR_PASS(_, nir, nir_lower_robust_access, robust_filter, NULL);
   if (nir->info.stage == MESA_SHADER_FRAGMENT) {
      NIR_PASS(_, nir, nir_shader_intrinsics_pass, lower_helper_writes, nir_metadata_none, NULL);
      /* image stores and atomics */
      NIR_PASS(_, nir, nir_lower_helper_writes, false);
   }
}

/* ---- selection ---- */

/* A shader buffer: its address as an address operand (a uniform or
 * register pair, low word first) and its size in bytes. */
struct ssbo_ref {
   vagx_ir_src addr, size;
};

static void
ssbo_ref(struct ctx *c, nir_src *index, struct ssbo_ref *r)
{
   vagx_ir *ir = &c->ir;
   if (nir_src_is_const(*index)) {
      const unsigned i = nir_src_as_uint(*index);
      c->info->ssbo_count = MAX2(c->info->ssbo_count, i + 1);
      r->addr = uniform_addr(c, VAGX_PUSH_SSBO_LO, VAGX_PUSH_SSBO_HI, i);
      r->size = uniform_word(c, VAGX_PUSH_SSBO_SIZE, i);
      return;
   }
   /* a dynamic index (arrays of buffer blocks): the table entry, the
    * index clamped to the shader's buffers */
   const unsigned n = MAX2(c->nir->info.num_ssbos, 1);
   c->info->ssbo_count = MAX2(c->info->ssbo_count, n);
   vagx_ir_src idx = vagx_umin(ir, get_src(c, index, 0), ir_imm(n - 1));
   vagx_ir_src off = vagx_imul(ir, idx, ir_imm(VAGX_SSBO_ENTRY_BYTES));
   vagx_ir_src table = uniform_addr(c, VAGX_PUSH_SSBO_TABLE_LO, VAGX_PUSH_SSBO_TABLE_HI, 0);
   uint32_t e = vagx_ir_new_vreg(ir, 3);
   vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_LD_GLOBAL, e, 0, table, off, ir_none());
   I->mod = VAGX_MEMSIZE_B96;
   r->addr = ir_vreg(e, 0);
   r->size = ir_vreg(e, 2);
}

/* The high word of an address operand */
vagx_ir_src
vagx_addr_hi(vagx_ir_src a)
{
   if (a.file == IR_VREG)
      a.comp++;
   else
      a.v++;
   return a;
}

/* A register pair holding the address operand `base` + the unsigned
 * 32-bit `off` (atom_global takes no offset) */
vagx_ir_src
vagx_addr_add(struct ctx *c, vagx_ir_src base, vagx_ir_src off)
{
   vagx_ir *ir = &c->ir;
   vagx_ir_src lo = vagx_iadd(ir, base, off);
   /* carry: ~0 when the low word wrapped, and hi - ~0 = hi + 1 */
   vagx_ir_src carry = vagx_icmp(ir, VAGX_ICOND_ULT, lo, off);
   vagx_ir_src s[2] = { lo, vagx_isub(ir, vagx_addr_hi(base), carry) };
   return ir_vreg(make_vec(c, s, 2), 0);
}

vagx_ir_src
vagx_atom_global(struct ctx *c, nir_intrinsic_instr *intr, unsigned aop, vagx_ir_src addr,
                 unsigned data_src)
{
   /* swap: the comparand comes first, then the new value (GLSL's
    * atomicCompSwap(mem, compare, data)); cmpxchg takes the new value in
    * src1 and the comparand in src2 */
   const bool swap = nir_intrinsic_atomic_op(intr) == nir_atomic_op_cmpxchg;
   vagx_ir_src data = get_src(c, &intr->src[data_src + swap], 0);
   vagx_ir_src cmp = swap ? get_src(c, &intr->src[data_src], 0) : ir_imm(0);
   uint32_t d = vagx_ir_new_vreg(&c->ir, 1);
   vagx_ir_instr *I = vagx_ir_emit(&c->ir, VAGX_OP_ATOM_GLOBAL, d, 0, addr, data, cmp);
   I->mod = aop;
   return ir_vreg(d, 0);
}

bool
vagx_atomic_op(struct ctx *c, nir_intrinsic_instr *intr, unsigned *aop)
{
   switch (nir_intrinsic_atomic_op(intr)) {
   case nir_atomic_op_iadd: *aop = VAGX_ATOMOP_ADD; return true;
   case nir_atomic_op_imin: *aop = VAGX_ATOMOP_SMIN; return true;
   case nir_atomic_op_imax: *aop = VAGX_ATOMOP_SMAX; return true;
   case nir_atomic_op_umin: *aop = VAGX_ATOMOP_UMIN; return true;
   case nir_atomic_op_umax: *aop = VAGX_ATOMOP_UMAX; return true;
   case nir_atomic_op_iand: *aop = VAGX_ATOMOP_AND; return true;
   case nir_atomic_op_ior: *aop = VAGX_ATOMOP_OR; return true;
   case nir_atomic_op_ixor: *aop = VAGX_ATOMOP_XOR; return true;
   case nir_atomic_op_xchg: *aop = VAGX_ATOMOP_XCHG; return true;
   case nir_atomic_op_cmpxchg: *aop = VAGX_ATOMOP_CMPXCHG; return true;
   default:
      c->ir.error = "unsupported atomic operation (float or wrapping atomics)";
      return false;
   }
}

static bool
check_32bit(struct ctx *c, unsigned bit_size, unsigned ncomp)
{
   if (bit_size != 32 || ncomp > 4) {
      c->ir.error = "memory access of other than 1-4 32-bit components";
      return false;
   }
   return true;
}

/* A load of n words (ld_global / ld_shared) into the intrinsic's def */
static void
emit_load(struct ctx *c, nir_intrinsic_instr *intr, unsigned op, vagx_ir_src s0, vagx_ir_src s1)
{
   const unsigned n = intr->def.num_components;
   uint32_t v = vagx_ir_new_vreg(&c->ir, n);
   vagx_ir_instr *I = vagx_ir_emit(&c->ir, op, v, 0, s0, s1, ir_none());
   I->mod = VAGX_MEMSIZE_B32 + (n - 1);
   def_from_vec(c, &intr->def, v);
}

/* Stores of the write mask's runs of consecutive components (st_global /
 * st_shared), each at the offset plus its first component's byte */
static void
emit_store(struct ctx *c, nir_intrinsic_instr *intr, nir_src *value, unsigned op, vagx_ir_src s0,
           vagx_ir_src off, uint32_t base)
{
   vagx_ir *ir = &c->ir;
   const unsigned mask = nir_intrinsic_write_mask(intr);
   for (unsigned start = 0; start < value->ssa->num_components;) {
      if (!(mask & (1u << start))) {
         start++;
         continue;
      }
      unsigned n = 0;
      vagx_ir_src v[4];
      while (start + n < value->ssa->num_components && (mask & (1u << (start + n))))
         v[n] = get_src(c, value, start + n), n++;
      uint32_t data = make_vec(c, v, n);
      const uint32_t add = base + 4 * start;
      vagx_ir_src o = off;
      if (op == VAGX_OP_ST_SHARED)
         o = ir_imm(add); /* st_shared: src0 + src1, src0 the offset */
      else if (add)
         o = vagx_iadd(ir, off, ir_imm(add));
      vagx_ir_instr *I = vagx_ir_emit(ir, op, -1, 0, op == VAGX_OP_ST_SHARED ? off : s0, o,
                                      ir_vreg(data, 0));
      I->mod = VAGX_MEMSIZE_B32 + (n - 1);
      start += n;
   }
}

static bool
emit_ssbo(struct ctx *c, nir_intrinsic_instr *intr)
{
   struct ssbo_ref r;
   switch (intr->intrinsic) {
   case nir_intrinsic_load_ssbo:
      if (!check_32bit(c, intr->def.bit_size, intr->def.num_components))
         return false;
      ssbo_ref(c, &intr->src[0], &r);
      emit_load(c, intr, VAGX_OP_LD_GLOBAL, r.addr, get_src(c, &intr->src[1], 0));
      return true;
   case nir_intrinsic_store_ssbo:
      if (!check_32bit(c, intr->src[0].ssa->bit_size, intr->src[0].ssa->num_components))
         return false;
      ssbo_ref(c, &intr->src[1], &r);
      emit_store(c, intr, &intr->src[0], VAGX_OP_ST_GLOBAL, r.addr, get_src(c, &intr->src[2], 0), 0);
      return true;
   case nir_intrinsic_ssbo_atomic:
   case nir_intrinsic_ssbo_atomic_swap: {
      unsigned aop;
      if (!check_32bit(c, intr->def.bit_size, 1) || !vagx_atomic_op(c, intr, &aop))
         return false;
      ssbo_ref(c, &intr->src[0], &r);
      vagx_ir_src addr = vagx_addr_add(c, r.addr, get_src(c, &intr->src[1], 0));
      set_def(c, &intr->def, 0, vagx_atom_global(c, intr, aop, addr, 2));
      return true;
   }
   case nir_intrinsic_get_ssbo_size:
      ssbo_ref(c, &intr->src[0], &r);
      set_def(c, &intr->def, 0, r.size);
      return true;
   default:
      unreachable("not an SSBO intrinsic");
   }
}

static bool
emit_shared(struct ctx *c, nir_intrinsic_instr *intr)
{
   vagx_ir *ir = &c->ir;
   const uint32_t base = nir_intrinsic_base(intr);
   switch (intr->intrinsic) {
   case nir_intrinsic_load_shared:
      if (!check_32bit(c, intr->def.bit_size, intr->def.num_components))
         return false;
      emit_load(c, intr, VAGX_OP_LD_SHARED, get_src(c, &intr->src[0], 0), ir_imm(base));
      return true;
   case nir_intrinsic_store_shared:
      if (!check_32bit(c, intr->src[0].ssa->bit_size, intr->src[0].ssa->num_components))
         return false;
      emit_store(c, intr, &intr->src[0], VAGX_OP_ST_SHARED, ir_none(),
                 get_src(c, &intr->src[1], 0), base);
      return true;
   case nir_intrinsic_shared_atomic:
   case nir_intrinsic_shared_atomic_swap: {
      unsigned aop;
      if (!check_32bit(c, intr->def.bit_size, 1) || !vagx_atomic_op(c, intr, &aop))
         return false;
      vagx_ir_src addr = get_src(c, &intr->src[0], 0);
      if (base)
         addr = vagx_iadd(ir, addr, ir_imm(base));
      const bool swap = intr->intrinsic == nir_intrinsic_shared_atomic_swap;
      vagx_ir_src data = get_src(c, &intr->src[swap ? 2 : 1], 0);
      vagx_ir_src cmp = swap ? get_src(c, &intr->src[1], 0) : ir_imm(0);
      set_def(c, &intr->def, 0, vagx_atom_shared(ir, aop, addr, data, cmp));
      return true;
   }
   default:
      unreachable("not a shared-memory intrinsic");
   }
}

/* An execution barrier of the workgroup is `barrier` (compute shaders; GL
 * requires it in uniform control flow, as the ISA does), a memory barrier
 * alone `fence`; scope dev when buffer, global or image memory is ordered
 * beyond the workgroup. */
static void
emit_barrier(struct ctx *c, nir_intrinsic_instr *intr)
{
   const mesa_scope exec = nir_intrinsic_execution_scope(intr);
   const mesa_scope mem = nir_intrinsic_memory_scope(intr);
   const nir_variable_mode modes = nir_intrinsic_memory_modes(intr);
   const bool dev = mem > SCOPE_WORKGROUP &&
                    (modes & (nir_var_mem_ssbo | nir_var_mem_global | nir_var_image));
   const unsigned scope = dev ? VAGX_SCOPE_DEV : VAGX_SCOPE_TG;
   if (exec >= SCOPE_WORKGROUP && c->nir->info.stage == MESA_SHADER_COMPUTE) {
      vagx_ir_instr *I = vagx_ir_emit(&c->ir, VAGX_OP_BARRIER, -1, 0, ir_none(), ir_none(), ir_none());
      I->mod = scope;
   } else if (nir_intrinsic_memory_semantics(intr) && mem > SCOPE_INVOCATION) {
      vagx_ir_instr *I = vagx_ir_emit(&c->ir, VAGX_OP_FENCE, -1, 0, ir_none(), ir_none(), ir_none());
      I->mod = scope;
   }
}

/* Components of a compute system value from consecutive special registers */
static void
sysval(struct ctx *c, nir_intrinsic_instr *intr, unsigned first)
{
   for (unsigned i = 0; i < intr->def.num_components; i++)
      set_def(c, &intr->def, i, ir_file(IR_SR, first + i));
}

bool
vagx_emit_mem_intrinsic(struct ctx *c, nir_intrinsic_instr *intr)
{
   if (is_image_intrinsic(intr->intrinsic))
      return vagx_emit_image_intrinsic(c, intr);
   switch (intr->intrinsic) {
   case nir_intrinsic_load_ssbo:
   case nir_intrinsic_store_ssbo:
   case nir_intrinsic_ssbo_atomic:
   case nir_intrinsic_ssbo_atomic_swap:
   case nir_intrinsic_get_ssbo_size:
      return emit_ssbo(c, intr);
   case nir_intrinsic_load_shared:
   case nir_intrinsic_store_shared:
   case nir_intrinsic_shared_atomic:
   case nir_intrinsic_shared_atomic_swap:
      return emit_shared(c, intr);
   case nir_intrinsic_barrier:
      emit_barrier(c, intr);
      return true;
   case nir_intrinsic_is_helper_invocation:
      set_def(c, &intr->def, 0, ir_file(IR_SR, VAGX_SR_HELPER));
      return true;
   case nir_intrinsic_load_local_invocation_id:
      sysval(c, intr, VAGX_SR_TID_X);
      return true;
   case nir_intrinsic_load_workgroup_id:
      sysval(c, intr, VAGX_SR_TGID_X);
      return true;
   case nir_intrinsic_load_num_workgroups:
      sysval(c, intr, VAGX_SR_NGROUPS_X);
      return true;
   case nir_intrinsic_load_workgroup_size:
      sysval(c, intr, VAGX_SR_TGSIZE_X);
      return true;
   case nir_intrinsic_load_local_invocation_index:
      sysval(c, intr, VAGX_SR_TINDEX);
      return true;
   case nir_intrinsic_load_subgroup_invocation:
      sysval(c, intr, VAGX_SR_LANE_ID);
      return true;
   case nir_intrinsic_load_subgroup_id:
      sysval(c, intr, VAGX_SR_SIMD_ID);
      return true;
   case nir_intrinsic_load_subgroup_size:
      set_def(c, &intr->def, 0, ir_imm(VAGX_SIMD_WIDTH));
      return true;
   default:
      c->ir.error = nir_intrinsic_infos[intr->intrinsic].name;
      return false;
   }
}

void
vagx_scan_mem_ir(const nir_shader *nir, const vagx_ir *ir, struct vagx_shader_info *info)
{
   if (nir->info.stage == MESA_SHADER_FRAGMENT)
      info->fs_early_tests = nir->info.fs.early_fragment_tests;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const unsigned op = ir->instrs[i].op;
      if (op == VAGX_OP_ST_GLOBAL || op == VAGX_OP_ATOM_GLOBAL || op == VAGX_OP_IMG_ST)
         info->writes_memory = true;
   }
}
