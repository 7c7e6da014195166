/* A random valid instruction of any opcode (every field, operand file and
 * immediate drawn from t_rand): the codec round-trip test and the device
 * fuzzer (tests/fuzz) build shaders from these. */
#ifndef VAGX_USC_RANDOM_H
#define VAGX_USC_RANDOM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vagx_isa.h"

static inline unsigned usc_random_file(unsigned kind, uint32_t (*t_rand)(void))
{
   static const uint8_t scalar[] = { VAGX_FILE_R, VAGX_FILE_RL, VAGX_FILE_RH, VAGX_FILE_U,
                                     VAGX_FILE_SR, VAGX_FILE_IMM };
   switch (kind) {
   case VAGX_SK_CF: return VAGX_FILE_CF;
   case VAGX_SK_ADDR: return t_rand() & 1 ? VAGX_FILE_U : VAGX_FILE_R;
   case VAGX_SK_VEC: case VAGX_SK_VEC4: case VAGX_SK_VECN: return VAGX_FILE_R;
   default: return scalar[t_rand() % sizeof(scalar)];
   }
}

/* Builds a random valid instruction of opcode op. */
static inline void usc_random_instr(unsigned op, struct vagx_instr *I, uint32_t (*t_rand)(void))
{
   const struct vagx_op_info *info = vagx_info(op);
   bool ext = false;
   memset(I, 0, sizeof(*I));
   I->op = (uint8_t)op;
   for (unsigned i = 0; i < info->nfields; i++) {
      const struct vagx_field *f = vagx_op_field(op, i);
      uint32_t v = t_rand();
      if (f->type == VAGX_FT_ENUM)
         do
            v = t_rand() % f->nnames;
         while (!f->names[v]);
      else if (f->type == VAGX_FT_TARGET)
         v = (uint32_t)((int32_t)(t_rand() % 2001) - 1000);
      else if (f->size < 32)
         v &= (1u << f->size) - 1;
      vagx_field_set(I, f, v);
      ext |= f->in_ext;
   }
   if (info->flags & VAGX_OPF_SAT)
      I->sat = t_rand() & 1;
   if (info->dst != VAGX_DK_NONE) {
      I->dst = (uint8_t)(t_rand() % (257 - vagx_dst_regs(I)));
      if (info->dst == VAGX_DK_U32 || info->dst == VAGX_DK_F32)
         I->dst_half = (uint8_t)(t_rand() % 3);
   }
   unsigned nimm = 0;
   for (unsigned s = 0; s < vagx_nsrc(I); s++) {
      struct vagx_src *src = &I->src[s];
      unsigned kind = info->src[s];
      src->file = (uint8_t)usc_random_file(kind, t_rand);
      if (src->file == VAGX_FILE_IMM && nimm >= (ext ? 1u : 2u))
         src->file = VAGX_FILE_R;
      switch (src->file) {
      case VAGX_FILE_SR: src->idx = (uint8_t)(t_rand() % VAGX_SR_COUNT); break;
      case VAGX_FILE_IMM: src->idx = (uint8_t)nimm; I->imm[nimm++] = t_rand(); break;
      default:
         src->idx = (uint8_t)(t_rand() % (VAGX_ISA_INDEXES + 1 - vagx_src_regs(I, s)));
         if (kind == VAGX_SK_ADDR && src->idx + 2u > VAGX_ISA_INDEXES)
            src->idx = VAGX_ISA_INDEXES - 2;
         break;
      }
      if (kind == VAGX_SK_F32) {
         src->abs = t_rand() & 1;
         src->neg = t_rand() & 1;
      }
   }
   I->x = (nimm || ext) ? 1 : 0;
}

#endif
