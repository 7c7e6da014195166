/* SPDX-License-Identifier: MIT */
/* vagx IR: a linear list of machine instructions over virtual registers,
 * with the structured control flow of the ISA kept as instructions. */
#ifndef VAGX_IR_H
#define VAGX_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

typedef struct {
   uint8_t op, mod, sat;
   uint8_t has_dst;
   uint32_t dst;        /* vreg */
   uint8_t dst_comp;
   vagx_ir_src src[3];
   uint32_t ext;        /* extension fields in imm1 (tex/img) */
} vagx_ir_instr;

typedef struct {
   uint8_t size;        /* consecutive 32-bit registers */
   int start, end;      /* live interval, instruction indices */
   int hw;              /* assigned GPR, -1 none */
} vagx_vreg;

typedef struct {
   vagx_ir_instr *instrs;
   unsigned num_instrs, cap_instrs;
   vagx_vreg *vregs;
   unsigned num_vregs, cap_vregs;
   struct vagx_shader_info *info;
   gl_shader_stage stage;
   const char *error;
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

uint32_t vagx_ir_new_vreg(vagx_ir *ir, unsigned size);
vagx_ir_instr *vagx_ir_emit(vagx_ir *ir, unsigned op, int dst, unsigned dst_comp,
                            vagx_ir_src s0, vagx_ir_src s1, vagx_ir_src s2);
/* Scalar helper: new vreg = op(s0, s1, s2). */
vagx_ir_src vagx_ir_alu(vagx_ir *ir, unsigned op, unsigned mod,
                        vagx_ir_src s0, vagx_ir_src s1, vagx_ir_src s2);
void vagx_ir_init(vagx_ir *ir, struct vagx_shader_info *info, gl_shader_stage stage);
void vagx_ir_fini(vagx_ir *ir);
/* Optimise (vagx_opt_*), legalise immediates, allocate registers, encode
 * into info->code.  Debug builds validate the IR after every pass. */
bool vagx_ir_finish(vagx_ir *ir);

/* The IR invariants (vagx_validate.c): opcodes, operand files and kinds,
 * vreg ranges and sizes, structured control flow; with `legal` also what
 * the encoding needs (immediates and uniforms only where the operand form
 * takes them, immediate count).  On failure `why` says where. */
bool vagx_validate_ir(const vagx_ir *ir, bool legal, char *why, size_t size);
/* Debug builds: validate, and on failure set ir->error naming `pass`. */
bool vagx_ir_validate_after(vagx_ir *ir, const char *pass, bool legal);

/* Passes, one per file; each returns whether it changed the IR. */
bool vagx_opt_copyprop(vagx_ir *ir); /* vagx_opt_copyprop.c */
bool vagx_opt_dce(vagx_ir *ir);      /* vagx_opt_dce.c */
unsigned vagx_push_word(struct vagx_shader_info *info, unsigned kind, unsigned arg);

#endif
