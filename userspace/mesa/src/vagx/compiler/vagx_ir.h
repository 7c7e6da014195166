/* SPDX-License-Identifier: MIT */
/* vagx IR: machine instructions over virtual registers, in basic blocks.
 *
 * The instructions are kept in one array in program order (packing encodes
 * it as is); the structured control flow of the ISA stays as instructions.
 * vagx_ir_build_cfg (vagx_cfg.c) cuts that array into basic blocks, each a
 * contiguous range of it ending in its terminator (a cf instruction: if,
 * else, endif, loop, endloop, break, continue, end), with the predecessors
 * and successors the mask-stack semantics give per lane (targets found by
 * nesting, as the device finds them).  A pass that inserts or removes
 * instructions rebuilds the CFG before it returns.
 *
 * Values are SSA: every vreg is written once per component (a vector vreg
 * may be written component by component, by instructions of one block),
 * and every read is dominated by the writes of what it reads.  Values
 * merged by control flow are phis (VAGX_IR_OP_PHI) at the head of the
 * join block or loop header, one source per predecessor block, each read
 * at the end of its predecessor.  Selection writes no vreg twice;
 * vagx_lower_phis turns the phis into copies at the ends of the
 * predecessors before register allocation, and the vregs it writes more
 * than once (phi destinations) are marked `reg`: from there on the
 * validator checks SSA for the other vregs only.  The validator runs after
 * every pass in debug builds. */
#ifndef VAGX_IR_H
#define VAGX_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "util/bitset.h"
#include "util/u_dynarray.h"
#include "vagx_isa.h"
#include "vagx_compiler.h"

enum vagx_ir_file {
   IR_NONE = 0,
   IR_VREG,   /* virtual register (vreg, comp) */
   IR_U,      /* uniform register idx */
   IR_SR,     /* special register idx */
   IR_IMM,    /* 32-bit immediate value */
   IR_CF,     /* coefficient register idx */
   IR_HWREG,  /* fixed hardware GPR idx (pre-allocated) */
};

typedef struct {
   uint8_t file;
   uint8_t abs, neg;
   uint8_t comp;
   uint32_t v;      /* vreg id, register index or immediate bits */
} vagx_ir_src;

/* A pseudo-instruction of the IR, not of the ISA: vagx_isa.xml leaves
 * opcode 0xff undefined (the validator checks that it stays so).  Phis
 * exist between selection and vagx_lower_phis only. */
#define VAGX_IR_OP_PHI 0xff

/* One source of a phi: the value it takes when control comes from block
 * `pred` (a block index of the CFG: passes before vagx_lower_phis add or
 * remove no terminator, so the block indices stay). */
struct vagx_phi_src {
   unsigned pred;
   vagx_ir_src src;
};

typedef struct {
   uint8_t op, mod, sat;
   uint8_t has_dst;
   uint32_t dst;        /* vreg */
   uint8_t dst_comp;
   /* if/else/endif, loop/endloop, break/continue of a construct whose
    * condition and exits NIR's divergence analysis proved uniform: the
    * passes see the structured form (the scalar CFG is the same), and
    * vagx_lower_uniform_cf turns it into br/jmp without a mask-stack
    * frame after register allocation. */
   uint8_t uniform;
   vagx_ir_src src[3];
   uint32_t ext;        /* extension fields in imm1 (tex/img) */
   uint32_t target;     /* br/jmp: index of the instruction jumped to */
   /* phi: its sources, one per predecessor of its block (ir->phi_mem) */
   struct vagx_phi_src *phi;
   unsigned phi_count;
} vagx_ir_instr;

typedef struct {
   uint8_t size;        /* consecutive 32-bit registers */
   bool reg;            /* not SSA: a phi's destination after vagx_lower_phis */
   int start, end;      /* live interval, instruction indices (vagx_ra.c) */
   int hw;              /* assigned GPR, -1 none */
} vagx_vreg;

/* A basic block: instructions [start, end) of vagx_ir::instrs, the last
 * one its terminator.  Successors: at most two (a taken and a not-taken
 * edge); predecessors in a util_dynarray of unsigned block indices. */
typedef struct {
   unsigned index;
   unsigned start, end;
   unsigned num_succs;
   unsigned succs[2];
   struct util_dynarray preds;  /* unsigned */
   bool reachable;              /* from the entry block */
   int idom;                    /* immediate dominator, -1 entry/unreachable */
   unsigned loop_depth;
   /* vagx_liveness: vregs live at entry and exit (BITSET over vregs) */
   BITSET_WORD *live_in, *live_out;
} vagx_block;

typedef struct {
   vagx_ir_instr *instrs;
   unsigned num_instrs, cap_instrs;
   vagx_vreg *vregs;
   unsigned num_vregs, cap_vregs;
   struct vagx_shader_info *info;
   gl_shader_stage stage;
   const char *error;
   /* vagx_ir_build_cfg: blocks in program order, block 0 the entry */
   void *cfg_mem;               /* ralloc context of the blocks */
   vagx_block *blocks;
   unsigned num_blocks;
   bool live_valid;             /* live_in/live_out computed for these blocks */
   void *phi_mem;               /* ralloc context of the phis' sources */
} vagx_ir;

static inline vagx_ir_src ir_vreg(uint32_t v, unsigned comp)
{
   vagx_ir_src s = { IR_VREG, 0, 0, (uint8_t)comp, v };
   return s;
}
static inline vagx_ir_src ir_imm(uint32_t v)
{
   vagx_ir_src s = { IR_IMM, 0, 0, 0, v };
   return s;
}
static inline vagx_ir_src ir_file(unsigned file, uint32_t idx)
{
   vagx_ir_src s = { (uint8_t)file, 0, 0, 0, idx };
   return s;
}
static inline vagx_ir_src ir_none(void)
{
   vagx_ir_src s = { IR_NONE, 0, 0, 0, 0 };
   return s;
}

/* A machine instruction with the fields vagx_nsrc/vagx_src_regs/
 * vagx_dst_regs read (opcode, modifier, extension fields). */
static inline struct vagx_instr
vagx_ir_shape(const vagx_ir_instr *I)
{
   struct vagx_instr M = { 0 };
   M.op = I->op;
   M.mod = I->mod;
   M.imm[1] = I->ext;
   return M;
}

/* The registers I writes. */
static inline unsigned
vagx_ir_dst_regs(const vagx_ir_instr *I)
{
   if (I->op == VAGX_IR_OP_PHI)
      return 1;
   const struct vagx_instr M = vagx_ir_shape(I);
   return vagx_dst_regs(&M);
}

uint32_t vagx_ir_new_vreg(vagx_ir *ir, unsigned size);
vagx_ir_instr *vagx_ir_emit(vagx_ir *ir, unsigned op, int dst, unsigned dst_comp,
                            vagx_ir_src s0, vagx_ir_src s1, vagx_ir_src s2);
/* Scalar helper: new vreg = op(s0, s1, s2). */
vagx_ir_src vagx_ir_alu(vagx_ir *ir, unsigned op, unsigned mod,
                        vagx_ir_src s0, vagx_ir_src s1, vagx_ir_src s2);
/* A phi writing the scalar vreg dst with n sources to fill in (pred and
 * src of each); emitted where the block starts (before its other
 * instructions). */
vagx_ir_instr *vagx_ir_emit_phi(vagx_ir *ir, uint32_t dst, unsigned n);
void vagx_ir_init(vagx_ir *ir, struct vagx_shader_info *info, gl_shader_stage stage);
void vagx_ir_fini(vagx_ir *ir);
/* Drop the nops a pass left (passes delete by turning instructions into
 * nops) and rebuild the CFG: the passes after index instructions by
 * position. */
void vagx_ir_remove_nops(vagx_ir *ir);
/* Optimise (vagx_opt_*), legalise immediates, allocate registers, encode
 * into info->code.  Debug builds validate the IR after every pass. */
bool vagx_ir_finish(vagx_ir *ir);

/* The IR invariants (vagx_validate.c): opcodes, operand files and kinds,
 * vreg ranges and sizes, structured control flow, the CFG (the blocks the
 * instructions make, symmetric edges), phis (at block heads, one source per
 * predecessor, each source's write dominating the predecessor's end), SSA
 * (single writes, reads dominated by their write, except `reg` vregs);
 * with `legal` also no phi and what
 * the encoding needs (immediates and uniforms only where the operand form
 * takes them, immediate count).  On failure `why` says where. */
bool vagx_validate_ir(const vagx_ir *ir, bool legal, char *why, size_t size);
/* Debug builds: validate, and on failure set ir->error naming `pass`. */
bool vagx_ir_validate_after(vagx_ir *ir, const char *pass, bool legal);

/* vagx_cfg.c: (re)build the blocks, edges and dominators from the
 * instruction array; whether block a dominates block b; the block of
 * instruction i; whether instruction i terminates a block; a printer that
 * shows blocks, edges and instructions. */
void vagx_ir_build_cfg(vagx_ir *ir);
bool vagx_block_dominates(const vagx_ir *ir, unsigned a, unsigned b);
unsigned vagx_ir_block_of(const vagx_ir *ir, unsigned instr);
bool vagx_is_terminator(const vagx_ir_instr *I);
void vagx_ir_print(FILE *fp, const vagx_ir *ir);
void vagx_ir_print_instr(FILE *fp, const vagx_ir *ir, const vagx_ir_instr *I);

/* vagx_liveness.c: live_in/live_out of every block by the backward
 * data-flow fixpoint over the CFG (vregs as a whole). */
void vagx_liveness(vagx_ir *ir);

/* vagx_ra.c: intervals from the liveness, first-fit linear scan with
 * vector vregs in contiguous registers, spilling (vagx_spill) where the
 * contract's register file is too small; false (ir->error) when even the
 * stack (VAGX_MAX_STACK_BYTES) is. */
bool vagx_ra(vagx_ir *ir);

/* vagx_spill.c: moves the vregs in `spill` (a BITSET over vregs) to slots
 * of the private stack, shared by values never live at once (the vregs'
 * start/end hulls from vagx_ra, and the stack words' liveness of earlier
 * rounds; info->stack_size grows to the highest word), with a stack_st after
 * every write and a stack_ld before every read, into new vregs that
 * (*no_spill)[] -- num_vregs entries, grown with them -- marks as not
 * worth spilling; counts info->stat_spills and stat_fills.  Values an
 * instruction computes from immediates, uniforms and special registers
 * are rematerialised instead (vagx_remat_defs).  False (ir->error) when
 * the slots do not fit in VAGX_MAX_STACK_BYTES. */
bool vagx_spill(vagx_ir *ir, const BITSET_WORD *spill, bool **no_spill);
/* def[v]: the index of v's one write when vagx_spill repeats that
 * instruction before v's reads instead of spilling v (a scalar ALU result
 * from immediates, uniforms and special registers that nothing changes),
 * else -1.  def has num_vregs entries. */
void vagx_remat_defs(const vagx_ir *ir, int *def);

/* vagx_lower_uniform_cf.c, after register allocation: the uniform
 * constructs become br/jmp (targets: instruction indices, made word
 * offsets by the encoder); if.u -> br on the inverted condition to the
 * else side or past endif, else.u -> jmp past endif, loop.u -> nothing,
 * break.u/continue.u/endloop.u -> jmp (break.cond.u -> br.nz) past the
 * loop / to its first instruction; an if.u whose then side is just a
 * jump becomes one br.  The IR has no CFG afterwards (the structured
 * form is gone); only encoding follows.  Returns whether it changed the
 * IR. */
bool vagx_lower_uniform_cf(vagx_ir *ir);

/* vagx_schedule.c, before register allocation: reorders the instructions
 * of every block (between its control-flow instructions) to lower the
 * register pressure, bottom-up as agx_pressure_schedule.c; a region keeps
 * its order unless the new one's estimated peak is lower.  Returns
 * whether it changed the IR; the blocks and their liveness stay valid. */
bool vagx_schedule(vagx_ir *ir);

/* vagx_lower_phis.c, the last pass on SSA: every phi becomes a copy at the
 * end of each predecessor (before its terminator), the copies of one edge
 * sequentialised as a parallel copy (a cycle broken with a temporary);
 * the phi destinations become `reg` vregs.  Returns whether it changed
 * the IR. */
bool vagx_lower_phis(vagx_ir *ir);

/* Passes, one per file; each returns whether it changed the IR. */
bool vagx_opt_copyprop(vagx_ir *ir); /* vagx_opt_copyprop.c */
bool vagx_opt_cse(vagx_ir *ir);      /* vagx_opt_cse.c */
bool vagx_opt_dce(vagx_ir *ir);      /* vagx_opt_dce.c */
unsigned vagx_push_word(struct vagx_shader_info *info, unsigned kind, unsigned arg);

#endif
