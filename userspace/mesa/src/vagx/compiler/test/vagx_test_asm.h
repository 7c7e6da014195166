/* SPDX-License-Identifier: MIT */
/* Shared by the backend pass tests (TAP output): a small assembler that
 * writes IR programs from text, so a test shows the control flow it
 * checks.  Statements are separated by ';':
 *
 *    mov N          vN = #N (a scalar write)
 *    uni N K        vN = uK (a uniform register)
 *    add N A B      vN = vA + vB (iadd)
 *    copy N M       vN = vM (mov)
 *    ge N A B       vN = vA >= vB, unsigned (icmp.uge: ~0 or 0)
 *    use N          st_var vN (keeps vN alive)
 *    phi N A [B [C]]  vN = phi of vA, vB, vC: one source per predecessor of
 *                   the block, in the CFG's order of them (vagx_cfg.c)
 *    reg N          vN is written more than once (not SSA)
 *    vec N S        vN has S registers
 *    if N | else | endif | loop | endloop | break | continue | end
 *    break N | continue N   the .cond forms, on vN
 *    if.u, else.u, ..., continue.u   the same, marked uniform
 *
 * vregs are created as the program names them (all of size 1 unless
 * `vec` says otherwise, before their first use). */
#ifndef VAGX_TEST_ASM_H
#define VAGX_TEST_ASM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vagx_ir.h"

static int t_count, t_failed;
static struct vagx_shader_info t_info;

static void
t_begin(vagx_ir *ir)
{
   memset(&t_info, 0, sizeof(t_info));
   vagx_ir_init(ir, &t_info, MESA_SHADER_VERTEX);
}

/* Report one TAP line and free the program. */
static void
t_result(const char *name, const char *err, vagx_ir *ir)
{
   printf("%s %d - %s%s%s\n", err ? "not ok" : "ok", ++t_count, name, err ? ": " : "",
          err ? err : "");
   if (err && ir && getenv("VAGX_TEST_VERBOSE"))
      vagx_ir_print(stdout, ir);
   t_failed += !!err;
   if (ir)
      vagx_ir_fini(ir);
}

static int
t_finish(void)
{
   printf("1..%d\n", t_count);
   return t_failed ? 1 : 0;
}

static uint32_t
t_vreg(vagx_ir *ir, unsigned n)
{
   while (ir->num_vregs <= n)
      vagx_ir_new_vreg(ir, 1);
   return n;
}

static void
t_cf(vagx_ir *ir, unsigned op, vagx_ir_src cond, unsigned mod)
{
   vagx_ir_instr *I = vagx_ir_emit(ir, op, -1, 0, cond, ir_none(), ir_none());
   I->mod = mod;
}

/* Assemble `src` into a new program in `ir` and build its CFG. */
static void
t_assemble(vagx_ir *ir, const char *src)
{
   t_begin(ir);
   char *text = strdup(src), *save = NULL;
   for (char *st = strtok_r(text, ";", &save); st; st = strtok_r(NULL, ";", &save)) {
      char op[16] = "";
      int a = -1, b = -1, c = -1, d = -1;
      int n = sscanf(st, " %15s %d %d %d %d", op, &a, &b, &c, &d);
      if (n < 1)
         continue;
      /* ".u": a construct proved uniform (vagx_ir_instr::uniform) */
      const unsigned first = ir->num_instrs;
      char *dot = strstr(op, ".u");
      const bool uniform = dot && !dot[2];
      if (uniform)
         *dot = '\0';
      if (!strcmp(op, "mov")) {
         vagx_ir_emit(ir, VAGX_OP_MOV, t_vreg(ir, a), 0, ir_imm(a), ir_none(), ir_none());
      } else if (!strcmp(op, "phi")) {
         const int srcs[3] = { b, c, d };
         t_vreg(ir, MAX2(MAX2(a, b), MAX2(c, d)));
         vagx_ir_instr *I = vagx_ir_emit_phi(ir, a, n - 2);
         for (int k = 0; k < n - 2; k++)
            I->phi[k].src = ir_vreg(srcs[k], 0);
      } else if (!strcmp(op, "uni")) {
         vagx_ir_emit(ir, VAGX_OP_MOV, t_vreg(ir, a), 0, ir_file(IR_U, b), ir_none(), ir_none());
      } else if (!strcmp(op, "add")) {
         t_vreg(ir, MAX3(a, b, c));
         vagx_ir_emit(ir, VAGX_OP_IADD, a, 0, ir_vreg(b, 0), ir_vreg(c, 0), ir_none());
      } else if (!strcmp(op, "ge")) {
         t_vreg(ir, MAX3(a, b, c));
         vagx_ir_emit(ir, VAGX_OP_ICMP, a, 0, ir_vreg(b, 0), ir_vreg(c, 0), ir_none())->mod =
            VAGX_ICOND_UGE;
      } else if (!strcmp(op, "copy")) {
         t_vreg(ir, MAX2(a, b));
         vagx_ir_emit(ir, VAGX_OP_MOV, a, 0, ir_vreg(b, 0), ir_none(), ir_none());
      } else if (!strcmp(op, "use")) {
         vagx_ir_emit(ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(t_vreg(ir, a), 0), ir_imm(0),
                      ir_none());
      } else if (!strcmp(op, "reg")) {
         uint32_t v = t_vreg(ir, a); /* may move ir->vregs */
         ir->vregs[v].reg = true;
      } else if (!strcmp(op, "vec")) {
         uint32_t v = t_vreg(ir, a);
         ir->vregs[v].size = b;
      } else if (!strcmp(op, "if")) {
         t_cf(ir, VAGX_OP_IF, n > 1 ? ir_vreg(t_vreg(ir, a), 0) : ir_file(IR_U, 0), 0);
      } else if (!strcmp(op, "break") || !strcmp(op, "continue")) {
         t_cf(ir, op[0] == 'b' ? VAGX_OP_BREAK : VAGX_OP_CONTINUE,
              n > 1 ? ir_vreg(t_vreg(ir, a), 0) : ir_none(), n > 1);
      } else {
         static const struct { const char *name; unsigned op; } cf[] = {
            { "else", VAGX_OP_ELSE }, { "endif", VAGX_OP_ENDIF }, { "loop", VAGX_OP_LOOP },
            { "endloop", VAGX_OP_ENDLOOP }, { "end", VAGX_OP_END },
         };
         bool found = false;
         for (unsigned k = 0; k < ARRAY_SIZE(cf); k++) {
            if (!strcmp(op, cf[k].name)) {
               t_cf(ir, cf[k].op, ir_none(), 0);
               found = true;
            }
         }
         if (!found) {
            fprintf(stderr, "t_assemble: unknown statement '%s'\n", st);
            abort();
         }
      }
      if (uniform && ir->num_instrs > first)
         ir->instrs[ir->num_instrs - 1].uniform = true;
   }
   free(text);
   vagx_ir_build_cfg(ir);
   /* the phis' predecessors, in the order the CFG lists them */
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      vagx_ir_instr *I = &ir->instrs[i];
      if (I->op != VAGX_IR_OP_PHI)
         continue;
      const vagx_block *B = &ir->blocks[vagx_ir_block_of(ir, i)];
      for (unsigned k = 0; k < I->phi_count; k++)
         I->phi[k].pred = k < util_dynarray_num_elements(&B->preds, unsigned)
                             ? *util_dynarray_element(&B->preds, unsigned, k)
                             : ~0u;
   }
}

/* How many instructions of opcode op the program has. */
static unsigned
t_count_op(const vagx_ir *ir, unsigned op)
{
   unsigned n = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++)
      n += ir->instrs[i].op == op;
   return n;
}

/* The vregs the st_var instructions read, in order, e.g. "2 2". */
static const char *
t_stored(const vagx_ir *ir)
{
   static char buf[256];
   buf[0] = '\0';
   for (unsigned i = 0; i < ir->num_instrs; i++)
      if (ir->instrs[i].op == VAGX_OP_ST_VAR)
         snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u", buf[0] ? " " : "",
                  ir->instrs[i].src[0].v);
   return buf;
}

/* "1 2" for the successors or predecessors of block b. */
static const char *
t_edges(const vagx_ir *ir, unsigned b, bool preds)
{
   static char buf[64];
   buf[0] = '\0';
   const vagx_block *B = &ir->blocks[b];
   if (preds) {
      util_dynarray_foreach(&B->preds, unsigned, p)
         snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u", buf[0] ? " " : "", *p);
   } else {
      for (unsigned s = 0; s < B->num_succs; s++)
         snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u", buf[0] ? " " : "",
                  B->succs[s]);
   }
   return buf;
}

#endif
