/* Program decoder: turns code words into the pre-decoded form once.
 *
 * Pass 1 decodes linearly, checks every instruction and the nesting of
 * structured control flow, and finds the program's end (an `end` at depth 0
 * after which no jump target lies).  Pass 2 resolves operands to run-time
 * arrays, chooses a handler per instruction and resolves control-flow targets. */
#include <stdlib.h>

#include "usc_decode.h"
#include "vagx_hw.h"
#include "usc_jit.h"
#include "usc_priv.h"
#include "usc_simd.h"
#include "../render/render_grow.h"

enum { CONS_IF, CONS_LOOP };

/* A vector of registers must end within the encoding's index space. */
#define USC_GPR_INDEXES VAGX_ISA_INDEXES

struct cons {
   int kind, parent;
   uint32_t start, else_op, end_op; /* op indices; else_op = UINT32_MAX if none */
};

struct dec {
   struct vagx_instr *ins;
   uint32_t *pcw;    /* word offset of each op */
   int32_t *scope;   /* innermost construct containing the op (-1: top) */
   struct cons *cons;
   uint32_t nops, ncons;
};

static void dec_free(struct dec *d)
{
   free(d->ins);
   free(d->pcw);
   free(d->scope);
   free(d->cons);
}

static int illegal(struct vagx_usc_result *res, uint32_t word, int err)
{
   res->status = VAGX_USC_ILLEGAL_INSTRUCTION;
   res->pc = word * 8;
   res->isa_err = err;
   return -1;
}

static int nomem(struct vagx_usc_result *res)
{
   res->status = VAGX_USC_NOMEM;
   return -1;
}

/* Pass 1.  Returns 0, -1 on error (res set) or USC_DECODE_NEED_MORE. */
static int pass1(const uint64_t *w, size_t nwords, bool more, struct dec *d,
                 struct vagx_usc_result *res)
{
   int stack[VAGX_USC_MAX_DEPTH];
   int depth = 0, loops = 0;
   uint64_t max_target = 0;
   unsigned cap_ins = 0, cap_pcw = 0, cap_scope = 0, cap_cons = 0;
   size_t pos = 0;

   for (;;) {
      struct vagx_instr I;
      if (pos >= nwords)
         return more ? USC_DECODE_NEED_MORE : illegal(res, (uint32_t)pos, VAGX_ISA_ETRUNC);
      if (d->nops >= VAGX_USC_MAX_INSTRS)
         return illegal(res, (uint32_t)pos, VAGX_ISA_ETRUNC);
      int n = vagx_decode(w + pos, nwords - pos, &I);
      if (n == VAGX_ISA_ETRUNC && more)
         return USC_DECODE_NEED_MORE;
      if (n < 0)
         return illegal(res, (uint32_t)pos, n);
      if (d->nops == cap_ins || d->nops == cap_pcw || d->nops == cap_scope) {
         /* the renderer's growth rule; an array that grew stays valid */
         void *a = r_grow(d->ins, &cap_ins, d->nops + 1ull, sizeof(*d->ins), 64);
         if (a)
            d->ins = a;
         void *b = a ? r_grow(d->pcw, &cap_pcw, d->nops + 1ull, sizeof(*d->pcw), 64) : NULL;
         if (b)
            d->pcw = b;
         void *c = b ? r_grow(d->scope, &cap_scope, d->nops + 1ull, sizeof(*d->scope), 64) : NULL;
         if (c)
            d->scope = c;
         if (!a || !b || !c)
            return nomem(res);
      }
      uint32_t i = d->nops++;
      d->ins[i] = I;
      d->pcw[i] = (uint32_t)pos;
      d->scope[i] = depth ? stack[depth - 1] : -1;

      switch (I.op) {
      case VAGX_OP_IF:
      case VAGX_OP_LOOP:
         if (depth == VAGX_USC_MAX_DEPTH)
            return illegal(res, (uint32_t)pos, VAGX_ISA_EOPERAND);
         if (d->ncons == cap_cons) {
            void *a = r_grow(d->cons, &cap_cons, d->ncons + 1ull, sizeof(*d->cons), 16);
            if (!a)
               return nomem(res);
            d->cons = a;
         }
         d->cons[d->ncons] = (struct cons){ I.op == VAGX_OP_LOOP ? CONS_LOOP : CONS_IF,
                                            depth ? stack[depth - 1] : -1, i, UINT32_MAX, 0 };
         stack[depth++] = (int)d->ncons++;
         loops += I.op == VAGX_OP_LOOP;
         break;
      case VAGX_OP_ELSE:
         if (!depth || d->cons[stack[depth - 1]].kind != CONS_IF ||
             d->cons[stack[depth - 1]].else_op != UINT32_MAX)
            return illegal(res, (uint32_t)pos, VAGX_ISA_EOPCODE);
         d->cons[stack[depth - 1]].else_op = i;
         break;
      case VAGX_OP_ENDIF:
      case VAGX_OP_ENDLOOP: {
         int kind = I.op == VAGX_OP_ENDIF ? CONS_IF : CONS_LOOP;
         if (!depth || d->cons[stack[depth - 1]].kind != kind)
            return illegal(res, (uint32_t)pos, VAGX_ISA_EOPCODE);
         d->cons[stack[depth - 1]].end_op = i;
         d->scope[i] = stack[depth - 1];
         depth--;
         loops -= kind == CONS_LOOP;
         break;
      }
      case VAGX_OP_BREAK:
      case VAGX_OP_CONTINUE:
         if (!loops)
            return illegal(res, (uint32_t)pos, VAGX_ISA_EOPCODE);
         break;
      case VAGX_OP_JMP:
      case VAGX_OP_BR: {
         int64_t t = (int64_t)pos + vagx_target(&I);
         if (t < 0)
            return illegal(res, (uint32_t)pos, VAGX_ISA_EEXT);
         if ((uint64_t)t > max_target)
            max_target = (uint64_t)t;
         break;
      }
      default:
         break;
      }
      pos += (size_t)n;
      if (I.op == VAGX_OP_END && depth == 0 && max_target < pos)
         return 0;
   }
}

/* Where to go when no lane is left after op i, evaluated in construct c. */
static uint32_t next_structural(const struct dec *d, int c, uint32_t i)
{
   if (c < 0)
      return d->nops; /* the implicit end */
   const struct cons *k = &d->cons[c];
   if (k->kind == CONS_IF && k->else_op != UINT32_MAX && i < k->else_op)
      return k->else_op;
   return k->end_op;
}

static uint8_t bfile_of(unsigned file)
{
   switch (file) {
   case VAGX_FILE_U: return USC_B_U;
   case VAGX_FILE_SR: return USC_B_SR;
   case VAGX_FILE_IMM: return USC_B_IMM;
   case VAGX_FILE_CF: return USC_B_CF;
   default: return USC_B_R;
   }
}

static usc_fn choose_fn(const struct vagx_instr *I)
{
   usc_fn fn = usc_cf_fn(I);
   if (!fn)
      fn = usc_alu_fn(I);
   if (!fn)
      fn = usc_mem_fn(I);
   if (!fn)
      fn = usc_iter_fn(I);
   if (!fn && (vagx_info(I->op)->flags & VAGX_OPF_GFX)) {
      fn = usc_op_gfx;
#ifdef USC_HAVE_GFX_AVX2
      if (usc_simd_level() >= USC_SIMD_AVX2_FMA)
         fn = usc_op_gfx_avx2;
#endif
   }
   return fn;
}

static void note_reg(struct vagx_usc_decoded *p, unsigned idx, unsigned n)
{
   if (idx + n > p->nregs)
      p->nregs = idx + n;
}

/* A graphics instruction with a vec4 result, for op_gfx (usc_exec.c): the
 * renderer may write the result into the registers while it still reads
 * the instruction's sources when the rows it reads through the register
 * file (vector sources, tex .grad's gradient vectors) are apart from the
 * destination's; scalar sources in those rows are then copied first
 * (*copy, a bit per source). */
static bool gfx_reads_apart(const struct vagx_instr *I, uint8_t *copy)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   const unsigned d0 = I->dst, d1 = I->dst + vagx_dst_regs(I);
   *copy = 0;
   for (unsigned s = 0; s < vagx_nsrc(I); s++) {
      const struct vagx_src *src = &I->src[s];
      const bool grad = s == 1 && I->op == VAGX_OP_TEX && (I->mod & 7) == VAGX_TEXMODE_GRAD;
      const bool scalar = (info->src[s] == VAGX_SK_U32 || info->src[s] == VAGX_SK_F32) && !grad;
      const unsigned n = grad ? 2 * vagx_coord_regs(I) : vagx_src_regs(I, s);
      if (src->file != VAGX_FILE_R && src->file != VAGX_FILE_RL && src->file != VAGX_FILE_RH)
         continue;
      if (src->idx >= d1 || d0 >= src->idx + n)
         continue;
      if (!scalar)
         return false;
      *copy |= 1u << s;
   }
   return true;
}

/* Pass 2: builds the program from the checked instructions. */
static struct vagx_usc_decoded *pass2(const uint64_t *w, uint32_t nwords, struct dec *d,
                                      struct vagx_usc_result *res)
{
   struct vagx_usc_decoded *p = calloc(1, sizeof(*p));
   uint32_t *word2op = malloc((nwords + 1) * sizeof(uint32_t));
   uint32_t nimm = 0, i;

   if (!p || !word2op)
      goto oom;
   for (i = 0; i <= nwords; i++)
      word2op[i] = UINT32_MAX;
   for (i = 0; i < d->nops; i++) {
      word2op[d->pcw[i]] = i;
      for (unsigned s = 0; s < 3; s++)
         nimm += s < vagx_nsrc(&d->ins[i]) && d->ins[i].src[s].file == VAGX_FILE_IMM;
   }
   p->nops = d->nops;
   p->nwords = nwords;
   p->ops = calloc(d->nops + 1, sizeof(*p->ops));
   p->imm = calloc(nimm ? nimm : 1, sizeof(*p->imm));
   p->code = malloc(nwords * sizeof(uint64_t));
   if (!p->ops || !p->imm || !p->code)
      goto oom;
   memcpy(p->code, w, nwords * sizeof(uint64_t));
   p->nregs = 1;

   for (i = 0; i < d->nops; i++) {
      const struct vagx_instr *I = &d->ins[i];
      const struct vagx_op_info *info = vagx_info(I->op);
      struct usc_op *o = &p->ops[i];
      o->I = *I;
      o->pc = d->pcw[i] * 8;
      o->fn = choose_fn(I);
      if (o->fn && !usc_cf_fn(I)) {
         o->gfn = usc_alu_gfn(I);
         o->gtry = usc_mem_gtry(I);
      }
      /* A graphics hook gets the whole special-register file. */
      if (info->flags & VAGX_OPF_GFX)
         p->sr_used = (1ull << VAGX_SR_COUNT) - 1;
      o->nsrc = (uint8_t)vagx_nsrc(I);
      o->dst = I->dst;
      o->dshift = I->dst_half == VAGX_HALF_HI ? 16 : 0;
      o->dmask = I->dst_half == VAGX_HALF_LO ? 0xffffu
                 : I->dst_half == VAGX_HALF_HI ? 0xffff0000u : 0xffffffffu;
      if (info->dst != VAGX_DK_NONE)
         note_reg(p, I->dst, vagx_dst_regs(I));
      for (unsigned s = 0; s < o->nsrc; s++) {
         const struct vagx_src *src = &I->src[s];
         struct usc_src *r = &o->src[s];
         unsigned n = vagx_src_regs(I, s);
         r->bfile = bfile_of(src->file);
         r->idx = src->idx;
         r->xf = (uint8_t)((src->file == VAGX_FILE_RL ? USC_XF_LO : 0) |
                           (src->file == VAGX_FILE_RH ? USC_XF_HI : 0) |
                           (src->abs ? USC_XF_ABS : 0) | (src->neg ? USC_XF_NEG : 0));
         switch (src->file) {
         case VAGX_FILE_R:
         case VAGX_FILE_RL:
         case VAGX_FILE_RH:
            note_reg(p, src->idx, n);
            break;
         case VAGX_FILE_U:
            for (unsigned k = 0; k < n && src->idx + k < USC_NUM_U; k++)
               p->u_used[(src->idx + k) >> 6] |= 1ull << ((src->idx + k) & 63);
            break;
         case VAGX_FILE_SR:
            p->sr_used |= 1ull << src->idx;
            break;
         case VAGX_FILE_IMM:
            r->idx = (uint16_t)p->nimm;
            for (int l = 0; l < L; l++)
               p->imm[p->nimm][l] = I->imm[src->idx];
            p->nimm++;
            break;
         default:
            break;
         }
      }
      /* tex .grad reads its gradients from the register file as vectors
       * dPdx, dPdy of the coordinate count each, starting at src1 (isa.md):
       * src1 must name a GPR and the file must hold both vectors, or the
       * texture unit would read past it. */
      if (I->op == VAGX_OP_TEX && (I->mod & 7) == VAGX_TEXMODE_GRAD) {
         const unsigned ng = 2 * vagx_coord_regs(I);
         if (I->src[1].file != VAGX_FILE_R || I->src[1].idx + ng > USC_GPR_INDEXES) {
            illegal(res, d->pcw[i], VAGX_ISA_EOPERAND);
            goto fail;
         }
         note_reg(p, I->src[1].idx, ng);
      }
      if ((info->flags & VAGX_OPF_GFX) && info->dst == VAGX_DK_VEC4)
         o->gfx_direct = gfx_reads_apart(I, &o->gfx_copy);
      /* The private stack the executor keeps per lane: what the program's
       * stack accesses reach, up to the contract's limit (an access beyond
       * it can never be within a descriptor's stack_size, so it faults and
       * needs no memory). */
      if (I->op == VAGX_OP_STACK_LD || I->op == VAGX_OP_STACK_ST) {
         const uint32_t reach = (I->imm[1] & 0xffffu) + vagx_memsize_bytes[I->mod & 7];
         if (reach <= VAGX_MAX_STACK_BYTES && reach > p->stack_bytes)
            p->stack_bytes = reach;
      }
      if (!o->fn) {
         /* Every valid opcode has a handler; reaching this is a table bug. */
         illegal(res, d->pcw[i], VAGX_ISA_EOPCODE);
         goto fail;
      }

      int c = d->scope[i];
      o->skip = next_structural(d, c, i);
      switch (I->op) {
      case VAGX_OP_IF: {
         /* The if's own construct is the one that starts here. */
         for (uint32_t k = 0; k < d->ncons; k++)
            if (d->cons[k].start == i)
               o->target = next_structural(d, (int)k, i);
         break;
      }
      case VAGX_OP_ELSE:
         o->target = d->cons[c].end_op;
         break;
      case VAGX_OP_ENDIF:
      case VAGX_OP_ENDLOOP:
         o->skip = next_structural(d, d->cons[c].parent, i);
         o->target = d->cons[c].start + 1;
         break;
      case VAGX_OP_JMP:
      case VAGX_OP_BR: {
         int64_t t = (int64_t)d->pcw[i] + vagx_target(I);
         uint32_t to = t <= (int64_t)nwords ? word2op[t] : UINT32_MAX;
         /* The target must start an instruction of the same construct. */
         if (to == UINT32_MAX || to >= d->nops || d->scope[to] != c) {
            illegal(res, d->pcw[i], VAGX_ISA_EEXT);
            goto fail;
         }
         o->target = to;
         break;
      }
      default:
         break;
      }
   }
   p->ops[d->nops].fn = usc_op_end;
   p->ops[d->nops].pc = nwords * 8;
   p->bytes = sizeof(*p) + (d->nops + 1) * sizeof(*p->ops) + (nimm ? nimm : 1) * sizeof(*p->imm) +
              nwords * sizeof(uint64_t) + usc_jit_reserve(p);
   free(word2op);
   return p;

oom:
   nomem(res);
fail:
   free(word2op);
   vagx_usc_program_free(p);
   return NULL;
}

int usc_decode(const uint64_t *words, size_t nwords, bool more,
               struct vagx_usc_decoded **out, struct vagx_usc_result *res)
{
   struct dec d = { 0 };
   *out = NULL;
   int r = pass1(words, nwords, more, &d, res);
   if (r == 0) {
      uint32_t used = d.nops ? d.pcw[d.nops - 1] + vagx_instr_words(words[d.pcw[d.nops - 1]]) : 0;
      *out = pass2(words, used, &d, res);
      r = *out ? 0 : -1;
   }
   dec_free(&d);
   return r;
}

struct vagx_usc_decoded *vagx_usc_program_decode(const uint64_t *words, size_t nwords,
                                                 struct vagx_usc_result *res)
{
   struct vagx_usc_decoded *p;
   memset(res, 0, sizeof(*res));
   usc_decode(words, nwords, false, &p, res);
   return p;
}

void vagx_usc_program_free(struct vagx_usc_decoded *prog)
{
   if (!prog)
      return;
   usc_jit_free(prog);
   free(prog->ops);
   free(prog->imm);
   free(prog->code);
   free(prog);
}

size_t vagx_usc_program_words(const struct vagx_usc_decoded *prog)
{
   return prog->nwords;
}

unsigned vagx_usc_program_cost(const struct vagx_usc_decoded *prog)
{
   unsigned cost = 0;
   for (uint32_t i = 0; i < prog->nops; i++) {
      const struct vagx_instr *I = &prog->ops[i].I;
      switch (I->op) {
      case VAGX_OP_LOOP:
         return VAGX_USC_COST_LOOP;
      case VAGX_OP_JMP:
      case VAGX_OP_BR:
         if (prog->ops[i].target <= i)
            return VAGX_USC_COST_LOOP;
         cost++;
         break;
      case VAGX_OP_TEX:
      case VAGX_OP_IMG_LD:
      case VAGX_OP_IMG_ST:
         cost += VAGX_USC_COST_SAMPLE;
         break;
      default:
         cost++;
         break;
      }
   }
   return cost;
}

size_t vagx_usc_program_bytes(const struct vagx_usc_decoded *prog)
{
   return prog->bytes;
}
