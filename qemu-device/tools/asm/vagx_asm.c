/* Assembler and disassembler over the generated ISA tables: every opcode,
 * modifier and operand rule comes from vagx_isa.h, nothing is repeated here. */
#include "vagx_asm.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vagx_isa.h"

#define MAX_LINE 512
#define MAX_LABELS 1024
#define MAX_FIXUPS 1024

struct label {
   char name[64];
   long word;
};

struct fixup {
   char name[64];
   long word; /* first word of the jumping instruction */
   int line;
};

struct as {
   uint32_t *out;
   size_t cap32;
   long nwords; /* 64-bit words emitted */
   struct vagx_asm_error *err;
   int line;
   struct label labels[MAX_LABELS];
   int nlabels;
   struct fixup fixups[MAX_FIXUPS];
   int nfixups;
};

static int fail(struct as *a, const char *fmt, ...)
{
   if (a->err) {
      va_list ap;
      va_start(ap, fmt);
      a->err->line = a->line;
      vsnprintf(a->err->msg, sizeof(a->err->msg), fmt, ap);
      va_end(ap);
   }
   return -1;
}

static char *trim(char *s)
{
   while (isspace((unsigned char)*s))
      s++;
   char *e = s + strlen(s);
   while (e > s && isspace((unsigned char)e[-1]))
      *--e = '\0';
   return s;
}

static int emit(struct as *a, uint64_t w)
{
   if ((size_t)(a->nwords + 1) * 2 > a->cap32)
      return fail(a, "output buffer full");
   a->out[a->nwords * 2] = (uint32_t)w;
   a->out[a->nwords * 2 + 1] = (uint32_t)(w >> 32);
   a->nwords++;
   return 0;
}

static bool parse_uint(const char *s, unsigned long *v)
{
   char *end;
   if (!*s || !isdigit((unsigned char)*s))
      return false;
   errno = 0;
   *v = strtoul(s, &end, 10);
   return !*end && !errno;
}

/* Immediate: integer (decimal/hex, signed or unsigned 32-bit) or float literal. */
static int parse_imm(struct as *a, const char *s, uint32_t *v)
{
   char *end;
   bool is_float = !strncmp(s, "0x", 2) || !strncmp(s, "-0x", 3) ? false
                   : strpbrk(s, ".eEnN") != NULL;
   errno = 0;
   if (is_float) {
      float f = strtof(s, &end);
      if (*end || errno)
         return fail(a, "bad float immediate '%s'", s);
      memcpy(v, &f, 4);
      return 0;
   }
   long long x = strtoll(s, &end, 0);
   if (*end || errno || x < -2147483648LL || x > 4294967295LL)
      return fail(a, "bad immediate '%s'", s);
   *v = (uint32_t)x;
   return 0;
}

static int parse_reg(struct as *a, const char *s, const char *prefix, unsigned *idx)
{
   unsigned long v;
   size_t n = strlen(prefix);
   if (strncmp(s, prefix, n) || !parse_uint(s + n, &v) || v > 255)
      return fail(a, "bad register '%s'", s);
   *idx = (unsigned)v;
   return 0;
}

static int parse_dst(struct as *a, char *s, struct vagx_instr *I)
{
   unsigned idx;
   char *dot = strchr(s, '.');
   I->dst_half = VAGX_HALF_FULL;
   if (dot) {
      if (!strcmp(dot, ".l"))
         I->dst_half = VAGX_HALF_LO;
      else if (!strcmp(dot, ".h"))
         I->dst_half = VAGX_HALF_HI;
      else
         return fail(a, "bad destination '%s'", s);
      *dot = '\0';
   }
   if (parse_reg(a, s, "r", &idx))
      return -1;
   I->dst = (uint8_t)idx;
   return 0;
}

static int parse_src(struct as *a, char *s, struct vagx_instr *I, struct vagx_src *src,
                     unsigned *nimm)
{
   unsigned idx;
   memset(src, 0, sizeof(*src));
   if (*s == '-') { /* immediates carry their sign after '#' */
      src->neg = 1;
      s++;
   }
   if (*s == '|') {
      size_t n = strlen(s);
      if (n < 3 || s[n - 1] != '|')
         return fail(a, "bad |operand| '%s'", s);
      s[n - 1] = '\0';
      s++;
      src->abs = 1;
   }
   if (*s == '#') {
      if (*nimm >= 2)
         return fail(a, "more than two immediates");
      src->file = VAGX_FILE_IMM;
      src->idx = (uint8_t)*nimm;
      if (parse_imm(a, s + 1, &I->imm[*nimm]))
         return -1;
      (*nimm)++;
      return 0;
   }
   if (!strncmp(s, "sr.", 3)) {
      for (unsigned i = 0; i < VAGX_SR_COUNT; i++)
         if (vagx_sr_names[i] && !strcmp(vagx_sr_names[i], s + 3)) {
            src->file = VAGX_FILE_SR;
            src->idx = (uint8_t)i;
            return 0;
         }
      return fail(a, "unknown special register '%s'", s);
   }
   if (!strncmp(s, "cf", 2)) {
      if (parse_reg(a, s, "cf", &idx))
         return -1;
      src->file = VAGX_FILE_CF;
   } else if (*s == 'u') {
      if (parse_reg(a, s, "u", &idx))
         return -1;
      src->file = VAGX_FILE_U;
   } else {
      char *dot = strchr(s, '.');
      src->file = VAGX_FILE_R;
      if (dot) {
         if (!strcmp(dot, ".l"))
            src->file = VAGX_FILE_RL;
         else if (!strcmp(dot, ".h"))
            src->file = VAGX_FILE_RH;
         else
            return fail(a, "bad operand '%s'", s);
         *dot = '\0';
      }
      if (parse_reg(a, s, "r", &idx))
         return -1;
   }
   src->idx = (uint8_t)idx;
   return 0;
}

static int find_op(const char *name)
{
   for (int i = 0; i < VAGX_OP_COUNT; i++)
      if (vagx_op_infos[i].name && !strcmp(vagx_op_infos[i].name, name))
         return i;
   return -1;
}

/* Applies one `.suffix` of the mnemonic to the instruction's fields. */
static int apply_suffix(struct as *a, struct vagx_instr *I, const char *suf)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   if (!strcmp(suf, "sat")) {
      I->sat = 1;
      return 0;
   }
   for (unsigned i = 0; i < info->nfields; i++) {
      const struct vagx_field *f = vagx_op_field(I->op, i);
      size_t n = strlen(f->name);
      unsigned long v;
      switch (f->type) {
      case VAGX_FT_ENUM:
         for (unsigned k = 0; k < f->nnames; k++)
            if (f->names[k] && !strcmp(f->names[k], suf)) {
               vagx_field_set(I, f, k);
               return 0;
            }
         break;
      case VAGX_FT_FLAG:
         if (!strcmp(f->name, suf)) {
            vagx_field_set(I, f, 1);
            return 0;
         }
         break;
      case VAGX_FT_UINT:
         if (!strncmp(suf, f->name, n) && parse_uint(suf + n, &v)) {
            if (f->size < 32 && v >> f->size)
               return fail(a, "value of .%s out of range", suf);
            vagx_field_set(I, f, (uint32_t)v);
            return 0;
         }
         break;
      default:
         break;
      }
   }
   return fail(a, "unknown modifier '.%s' for %s", suf, info->name);
}

static bool has_target(const struct vagx_instr *I)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   for (unsigned i = 0; i < info->nfields; i++)
      if (vagx_op_field(I->op, i)->type == VAGX_FT_TARGET)
         return true;
   return false;
}

static bool has_ext_field(const struct vagx_instr *I)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   for (unsigned i = 0; i < info->nfields; i++)
      if (vagx_op_field(I->op, i)->in_ext)
         return true;
   return false;
}

/* Splits s at top-level commas into at most max operands. */
static int split_operands(char *s, char **ops, int max)
{
   int n = 0;
   s = trim(s);
   if (!*s)
      return 0;
   for (;;) {
      char *c = strchr(s, ',');
      if (n == max)
         return -1;
      if (c)
         *c = '\0';
      ops[n++] = trim(s);
      if (!c)
         return n;
      s = c + 1;
   }
}

static int assemble_instr(struct as *a, char *text)
{
   struct vagx_instr I;
   char *ops[8];
   char *sp = text;
   while (*sp && !isspace((unsigned char)*sp))
      sp++;
   char *rest = *sp ? sp + 1 : sp;
   *sp = '\0';

   memset(&I, 0, sizeof(I));
   char *mn = text, *dot = strchr(mn, '.');
   if (dot)
      *dot = '\0';
   int op = find_op(mn);
   if (op < 0)
      return fail(a, "unknown opcode '%s'", mn);
   I.op = (uint8_t)op;
   while (dot) {
      char *suf = dot + 1;
      dot = strchr(suf, '.');
      if (dot)
         *dot = '\0';
      if (apply_suffix(a, &I, suf))
         return -1;
   }

   const struct vagx_op_info *info = vagx_info(I.op);
   int nops = split_operands(rest, ops, 8);
   unsigned nsrc = vagx_nsrc(&I), nimm = 0;
   bool dst = info->dst != VAGX_DK_NONE, tgt = has_target(&I);
   int want = (int)dst + (int)nsrc + (int)tgt;
   if (nops != want)
      return fail(a, "%s takes %d operands, got %d", info->name, want, nops < 0 ? 9 : nops);
   int k = 0;
   if (dst && parse_dst(a, ops[k++], &I))
      return -1;
   for (unsigned s = 0; s < nsrc; s++)
      if (parse_src(a, ops[k++], &I, &I.src[s], &nimm))
         return -1;
   if (tgt) {
      const char *t = ops[k];
      if (*t != '@')
         return fail(a, "expected @target, got '%s'", t);
      t++;
      if (*t == '+' || *t == '-') {
         char *end;
         long v = strtol(t, &end, 10);
         if (*end)
            return fail(a, "bad target '%s'", ops[k]);
         I.imm[1] = (uint32_t)(int32_t)v;
      } else {
         if (a->nfixups == MAX_FIXUPS || strlen(t) >= sizeof(a->fixups[0].name))
            return fail(a, "too many label references");
         struct fixup *f = &a->fixups[a->nfixups++];
         strcpy(f->name, t);
         f->word = a->nwords;
         f->line = a->line;
      }
   }
   I.x = (nimm || has_ext_field(&I)) ? 1 : 0;
   /* With an extension field, imm1 belongs to it: a lone immediate stays in imm0. */
   uint64_t w[2] = { 0, 0 };
   int n = vagx_encode(&I, w);
   if (n < 0)
      return fail(a, "%s: %s", info->name, vagx_isa_strerror(n));
   for (int i = 0; i < n; i++)
      if (emit(a, w[i]))
         return -1;
   return 0;
}

static int assemble_line(struct as *a, char *line)
{
   char *c = strchr(line, ';');
   if (c)
      *c = '\0';
   c = strstr(line, "//");
   if (c)
      *c = '\0';
   char *s = trim(line);
   if (!*s)
      return 0;
   char *colon = s;
   while (isalnum((unsigned char)*colon) || *colon == '_')
      colon++;
   if (*colon == ':' && colon > s) {
      *colon = '\0';
      if (a->nlabels == MAX_LABELS || strlen(s) >= sizeof(a->labels[0].name))
         return fail(a, "too many labels");
      for (int i = 0; i < a->nlabels; i++)
         if (!strcmp(a->labels[i].name, s))
            return fail(a, "duplicate label '%s'", s);
      strcpy(a->labels[a->nlabels].name, s);
      a->labels[a->nlabels++].word = a->nwords;
      return assemble_line(a, colon + 1);
   }
   if (!strncmp(s, ".u64", 4) && isspace((unsigned char)s[4])) {
      char *end;
      errno = 0;
      unsigned long long v = strtoull(trim(s + 5), &end, 0);
      if (*end || errno)
         return fail(a, "bad .u64 value");
      return emit(a, v);
   }
   return assemble_instr(a, s);
}

long vagx_asm_assemble(const char *src, uint32_t *out, size_t out_cap32,
                       struct vagx_asm_error *err)
{
   struct as *a = calloc(1, sizeof(*a));
   long ret = -1;
   if (!a)
      return -1;
   a->out = out;
   a->cap32 = out_cap32;
   a->err = err;
   if (err)
      memset(err, 0, sizeof(*err));
   while (*src) {
      char line[MAX_LINE];
      const char *nl = strchr(src, '\n');
      size_t n = nl ? (size_t)(nl - src) : strlen(src);
      a->line++;
      if (n >= sizeof(line)) {
         fail(a, "line too long");
         goto out;
      }
      memcpy(line, src, n);
      line[n] = '\0';
      if (assemble_line(a, line))
         goto out;
      src += n + (nl ? 1 : 0);
   }
   for (int i = 0; i < a->nfixups; i++) {
      struct fixup *f = &a->fixups[i];
      int l;
      for (l = 0; l < a->nlabels; l++)
         if (!strcmp(a->labels[l].name, f->name))
            break;
      a->line = f->line;
      if (l == a->nlabels) {
         fail(a, "undefined label '%s'", f->name);
         goto out;
      }
      /* Jumps carry the target in imm1: the high half of the extension word. */
      a->out[(f->word + 1) * 2 + 1] = (uint32_t)(int32_t)(a->labels[l].word - f->word);
   }
   ret = a->nwords * 2;
out:
   free(a);
   return ret;
}

size_t vagx_dis(const uint32_t *code, size_t n32, char *buf, size_t size)
{
   size_t n = n32 / 2, len = 0, i = 0;
   uint64_t *w = malloc((n ? n : 1) * sizeof(uint64_t));
   if (!w)
      return 0;
   for (size_t k = 0; k < n; k++)
      w[k] = (uint64_t)code[2 * k] | (uint64_t)code[2 * k + 1] << 32;
   if (size)
      buf[0] = '\0';
   while (i < n) {
      struct vagx_instr I;
      char line[256];
      int r = vagx_decode(w + i, n - i, &I);
      if (r > 0) {
         vagx_print(&I, line, sizeof(line));
         i += (size_t)r;
      } else {
         snprintf(line, sizeof(line), ".u64 0x%016llx", (unsigned long long)w[i]);
         i++;
      }
      size_t ll = strlen(line);
      if (len + ll + 1 < size) {
         memcpy(buf + len, line, ll);
         buf[len + ll] = '\n';
         buf[len + ll + 1] = '\0';
      }
      len += ll + 1;
   }
   free(w);
   return len;
}
