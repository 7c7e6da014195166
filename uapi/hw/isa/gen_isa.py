#!/usr/bin/env python3
"""Generate vagx_isa.h (and optionally the opcode reference in Markdown) from
vagx_isa.xml.  Python 3 standard library only, so that Kbuild, the QEMU overlay
and Mesa can all run it.

The header is self-contained and header-only (static const tables + static inline
functions): it needs no libc beyond <stdint.h>/<stdbool.h>/<stddef.h>, and under
__KERNEL__ only <linux/types.h>.  It compiles warning-free as C11, C++17 and gnu11.
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

SRC_KINDS = ['none', 'u32', 'f32', 'cf', 'addr', 'vec', 'vec4', 'vecn']
DST_KINDS = ['none', 'u32', 'f32', 'vec', 'vec4']
OP_FLAGS = ['sat', 'cf', 'mem', 'gfx', 'ext', 'condsrc']

CODE = r"""
/* ---- Generic code: everything below works from the tables above. ---- */

enum vagx_isa_err {
   VAGX_ISA_OK = 0,
   VAGX_ISA_ETRUNC = -1,   /* x set but the extension word is missing */
   VAGX_ISA_EOPCODE = -2,  /* opcode not defined */
   VAGX_ISA_EOPERAND = -3, /* register file/index/modifier not allowed for the operand */
   VAGX_ISA_EMOD = -4,     /* bad mod or sat bits */
   VAGX_ISA_EEXT = -5,     /* x bit or extension fields inconsistent */
   VAGX_ISA_EUNUSED = -6,  /* nonzero bits in a field the instruction does not use */
};

struct vagx_src {
   uint8_t idx;   /* register / special register / immediate slot index */
   uint8_t file;  /* enum vagx_file */
   uint8_t abs, neg;
};

/* One decoded instruction: the plain-struct form of the word(s). */
struct vagx_instr {
   uint8_t op, x, sat, mod;
   uint8_t dst, dst_half;   /* dst_half: enum vagx_half */
   struct vagx_src src[3];
   uint32_t imm[2];         /* extension word: imm0, imm1 */
};

static inline const struct vagx_op_info *vagx_info(unsigned op)
{
   return &vagx_op_infos[op & 0xff];
}

static inline const struct vagx_field *vagx_op_field(unsigned op, unsigned i)
{
   return &vagx_fields[vagx_op_infos[op & 0xff].first_field + i];
}

static inline uint32_t vagx_field_mask(const struct vagx_field *f)
{
   return (f->size >= 32 ? 0xffffffffu : ((1u << f->size) - 1u)) << f->lo;
}

static inline uint32_t vagx_field_get(const struct vagx_instr *I, const struct vagx_field *f)
{
   uint32_t v = f->in_ext ? I->imm[1] : I->mod;
   return (v & vagx_field_mask(f)) >> f->lo;
}

static inline void vagx_field_set(struct vagx_instr *I, const struct vagx_field *f, uint32_t v)
{
   uint32_t m = vagx_field_mask(f);
   if (f->in_ext)
      I->imm[1] = (I->imm[1] & ~m) | ((v << f->lo) & m);
   else
      I->mod = (uint8_t)((I->mod & ~m) | ((v << f->lo) & m));
}

/* Number of sources actually present (condsrc ops have src0 only with .cond). */
static inline unsigned vagx_nsrc(const struct vagx_instr *I)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   if ((info->flags & VAGX_OPF_CONDSRC) && !(I->mod & 1))
      return 0;
   return info->nsrc;
}

/* Registers of texture/image coordinates: by dim (imm1[18:16]) plus array layer. */
static inline unsigned vagx_coord_regs(const struct vagx_instr *I)
{
   static const uint8_t n[8] = { 1, 2, 3, 3, 2, 1, 1, 1 };
   return n[(I->imm[1] >> 16) & 7] + ((I->imm[1] >> 19) & 1);
}

@DST_EXTRA@
static inline unsigned vagx_dst_regs(const struct vagx_instr *I)
{
   switch (vagx_info(I->op)->dst) {
   case VAGX_DK_NONE: return 0;
   case VAGX_DK_VEC: return vagx_memsize_regs[I->mod & 7];
   case VAGX_DK_VEC4: return 4 + vagx_dst_extra(I);
   default: return 1;
   }
}

static inline unsigned vagx_src_regs(const struct vagx_instr *I, unsigned s)
{
   switch (vagx_info(I->op)->src[s]) {
   case VAGX_SK_ADDR: return 2;
   case VAGX_SK_VEC: return vagx_memsize_regs[I->mod & 7];
   case VAGX_SK_VEC4: return 4;
   case VAGX_SK_VECN: return vagx_coord_regs(I);
   default: return 1;
   }
}

static inline int32_t vagx_target(const struct vagx_instr *I)
{
   return (int32_t)I->imm[1];
}

static inline bool vagx_src_is_zero(const struct vagx_src *s)
{
   return !s->idx && !s->file && !s->abs && !s->neg;
}

/* Checks every rule of the ISA; only canonical encodings pass. */
static inline int vagx_validate(const struct vagx_instr *I)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   uint32_t modmask = 0, extmask = 0;
   unsigned nsrc, nimm = 0, i;
   bool has_ext = false, uses_ext;

   if (!info->name)
      return VAGX_ISA_EOPCODE;
   if (I->sat > 1 || (I->sat && !(info->flags & VAGX_OPF_SAT)) || I->mod > 31)
      return VAGX_ISA_EMOD;
   for (i = 0; i < info->nfields; i++) {
      const struct vagx_field *f = vagx_op_field(I->op, i);
      uint32_t v = vagx_field_get(I, f);
      if (f->in_ext) {
         extmask |= vagx_field_mask(f);
         has_ext = true;
      } else {
         modmask |= vagx_field_mask(f);
      }
      if (f->type == VAGX_FT_ENUM && (v >= f->nnames || !f->names[v]))
         return f->in_ext ? VAGX_ISA_EEXT : VAGX_ISA_EMOD;
   }
   if (I->mod & ~modmask)
      return VAGX_ISA_EMOD;

   if (info->dst == VAGX_DK_NONE) {
      if (I->dst || I->dst_half)
         return VAGX_ISA_EUNUSED;
   } else {
      if (I->dst_half > VAGX_HALF_HI)
         return VAGX_ISA_EOPERAND;
      if (info->dst != VAGX_DK_U32 && info->dst != VAGX_DK_F32 && I->dst_half)
         return VAGX_ISA_EOPERAND;
      if (I->dst + vagx_dst_regs(I) > VAGX_ISA_INDEXES)
         return VAGX_ISA_EOPERAND;
   }

   nsrc = vagx_nsrc(I);
   for (i = 0; i < 3; i++) {
      const struct vagx_src *s = &I->src[i];
      unsigned kind = info->src[i];
      if (i >= nsrc) {
         if (!vagx_src_is_zero(s))
            return VAGX_ISA_EUNUSED;
         continue;
      }
      if (s->file > VAGX_FILE_CF || s->abs > 1 || s->neg > 1)
         return VAGX_ISA_EOPERAND;
      if ((s->abs || s->neg) && kind != VAGX_SK_F32)
         return VAGX_ISA_EOPERAND;
      switch (kind) {
      case VAGX_SK_U32:
      case VAGX_SK_F32:
         if (s->file == VAGX_FILE_CF)
            return VAGX_ISA_EOPERAND;
         break;
      case VAGX_SK_CF:
         if (s->file != VAGX_FILE_CF)
            return VAGX_ISA_EOPERAND;
         break;
      case VAGX_SK_ADDR:
         if ((s->file != VAGX_FILE_R && s->file != VAGX_FILE_U) || s->idx + 2u > VAGX_ISA_INDEXES)
            return VAGX_ISA_EOPERAND;
         break;
      default: /* vectors: consecutive GPRs */
         if (s->file != VAGX_FILE_R || s->idx + vagx_src_regs(I, i) > VAGX_ISA_INDEXES)
            return VAGX_ISA_EOPERAND;
         break;
      }
      if (s->file == VAGX_FILE_SR && s->idx >= VAGX_SR_COUNT)
         return VAGX_ISA_EOPERAND;
      if (s->file == VAGX_FILE_IMM) {
         /* Canonical: the n-th immediate source uses slot n. */
         if (s->idx != nimm)
            return VAGX_ISA_EOPERAND;
         nimm++;
      }
   }
   if (nimm > (has_ext ? 1u : 2u))
      return VAGX_ISA_EOPERAND;
   uses_ext = nimm > 0 || has_ext;
   if (I->x != (uses_ext ? 1 : 0))
      return VAGX_ISA_EEXT;
   if (nimm < 1 && I->imm[0])
      return VAGX_ISA_EUNUSED;
   if (has_ext ? (I->imm[1] & ~extmask) != 0 : (nimm < 2 && I->imm[1]))
      return has_ext ? VAGX_ISA_EEXT : VAGX_ISA_EUNUSED;
   return VAGX_ISA_OK;
}

static inline uint64_t vagx_pack_src(const struct vagx_src *s)
{
   return (uint64_t)s->idx | ((uint64_t)(s->file & 7) << 8) |
          ((uint64_t)(s->abs & 1) << 11) | ((uint64_t)(s->neg & 1) << 12);
}

static inline void vagx_unpack_src(uint64_t v, struct vagx_src *s)
{
   s->idx = (uint8_t)(v & 0xff);
   s->file = (uint8_t)((v >> 8) & 7);
   s->abs = (uint8_t)((v >> 11) & 1);
   s->neg = (uint8_t)((v >> 12) & 1);
}

/* Number of 64-bit words of the instruction starting with w0. */
static inline unsigned vagx_instr_words(uint64_t w0)
{
   return 1u + (unsigned)((w0 >> VAGX_W_X_LO) & 1);
}

/* Splits words into fields without checking them. */
static inline void vagx_unpack(uint64_t w0, uint64_t w1, struct vagx_instr *I)
{
   unsigned i;
   I->op = (uint8_t)(w0 & 0xff);
   I->x = (uint8_t)((w0 >> VAGX_W_X_LO) & 1);
   I->sat = (uint8_t)((w0 >> VAGX_W_SAT_LO) & 1);
   I->mod = (uint8_t)((w0 >> VAGX_W_MOD_LO) & 0x1f);
   I->dst = (uint8_t)((w0 >> VAGX_W_DST_LO) & 0xff);
   I->dst_half = (uint8_t)((w0 >> (VAGX_W_DST_LO + 8)) & 3);
   for (i = 0; i < 3; i++)
      vagx_unpack_src(w0 >> (VAGX_W_SRC0_LO + 13 * i), &I->src[i]);
   I->imm[0] = I->x ? (uint32_t)w1 : 0;
   I->imm[1] = I->x ? (uint32_t)(w1 >> 32) : 0;
}

/* Decodes one instruction from w[0..n): returns its word count or a negative
 * enum vagx_isa_err. */
static inline int vagx_decode(const uint64_t *w, size_t n, struct vagx_instr *I)
{
   int err;
   if (n < 1)
      return VAGX_ISA_ETRUNC;
   if (vagx_instr_words(w[0]) > n)
      return VAGX_ISA_ETRUNC;
   vagx_unpack(w[0], vagx_instr_words(w[0]) > 1 ? w[1] : 0, I);
   err = vagx_validate(I);
   return err ? err : (int)vagx_instr_words(w[0]);
}

/* Encodes a valid instruction: returns its word count or a negative error. */
static inline int vagx_encode(const struct vagx_instr *I, uint64_t out[2])
{
   unsigned i;
   int err = vagx_validate(I);
   out[0] = out[1] = 0;
   if (err)
      return err;
   out[0] = (uint64_t)I->op | ((uint64_t)I->x << VAGX_W_X_LO) |
            ((uint64_t)I->sat << VAGX_W_SAT_LO) | ((uint64_t)I->mod << VAGX_W_MOD_LO) |
            ((uint64_t)I->dst << VAGX_W_DST_LO) | ((uint64_t)I->dst_half << (VAGX_W_DST_LO + 8));
   for (i = 0; i < 3; i++)
      out[0] |= vagx_pack_src(&I->src[i]) << (VAGX_W_SRC0_LO + 13 * i);
   if (!I->x)
      return 1;
   out[1] = (uint64_t)I->imm[0] | ((uint64_t)I->imm[1] << 32);
   return 2;
}

static inline const char *vagx_isa_strerror(int err)
{
   switch (err) {
   case VAGX_ISA_OK: return "ok";
   case VAGX_ISA_ETRUNC: return "truncated instruction";
   case VAGX_ISA_EOPCODE: return "undefined opcode";
   case VAGX_ISA_EOPERAND: return "illegal operand";
   case VAGX_ISA_EMOD: return "illegal modifier";
   case VAGX_ISA_EEXT: return "illegal extension word";
   case VAGX_ISA_EUNUSED: return "nonzero unused field";
   default: return "unknown error";
   }
}

/* ---- Printing without libc: a bounded buffer that counts like snprintf. ---- */

struct vagx_pbuf {
   char *p;
   size_t size, len;
};

static inline void vagx_pc(struct vagx_pbuf *b, char c)
{
   if (b->len + 1 < b->size)
      b->p[b->len] = c;
   b->len++;
}

static inline void vagx_ps(struct vagx_pbuf *b, const char *s)
{
   while (*s)
      vagx_pc(b, *s++);
}

static inline void vagx_pu(struct vagx_pbuf *b, uint32_t v)
{
   char t[12];
   int n = 0;
   do {
      t[n++] = (char)('0' + v % 10);
      v /= 10;
   } while (v);
   while (n)
      vagx_pc(b, t[--n]);
}

static inline void vagx_px(struct vagx_pbuf *b, uint32_t v)
{
   int i, started = 0;
   vagx_ps(b, "0x");
   for (i = 7; i >= 0; i--) {
      unsigned d = (v >> (4 * i)) & 0xf;
      if (d || started || i == 0) {
         vagx_pc(b, "0123456789abcdef"[d]);
         started = 1;
      }
   }
}

static inline void vagx_print_src(struct vagx_pbuf *b, const struct vagx_instr *I,
                                  const struct vagx_src *s)
{
   if (s->neg)
      vagx_pc(b, '-');
   if (s->abs)
      vagx_pc(b, '|');
   switch (s->file) {
   case VAGX_FILE_R: vagx_pc(b, 'r'); vagx_pu(b, s->idx); break;
   case VAGX_FILE_RL: vagx_pc(b, 'r'); vagx_pu(b, s->idx); vagx_ps(b, ".l"); break;
   case VAGX_FILE_RH: vagx_pc(b, 'r'); vagx_pu(b, s->idx); vagx_ps(b, ".h"); break;
   case VAGX_FILE_U: vagx_pc(b, 'u'); vagx_pu(b, s->idx); break;
   case VAGX_FILE_SR:
      vagx_ps(b, "sr.");
      vagx_ps(b, s->idx < VAGX_SR_COUNT && vagx_sr_names[s->idx] ? vagx_sr_names[s->idx] : "?");
      break;
   case VAGX_FILE_IMM: vagx_pc(b, '#'); vagx_px(b, I->imm[s->idx & 1]); break;
   case VAGX_FILE_CF: vagx_ps(b, "cf"); vagx_pu(b, s->idx); break;
   default: vagx_ps(b, "?"); break;
   }
   if (s->abs)
      vagx_pc(b, '|');
}

/* Prints a valid instruction in canonical assembly syntax.  Returns the length the
 * full text needs (excluding the NUL); the buffer is always NUL-terminated. */
static inline size_t vagx_print(const struct vagx_instr *I, char *buf, size_t size)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   struct vagx_pbuf b = { buf, size, 0 };
   unsigned i, nsrc = vagx_nsrc(I), nops = 0;
   int target = -1;

   if (!info->name) {
      vagx_ps(&b, ".illegal ");
      vagx_px(&b, I->op);
   } else {
      vagx_ps(&b, info->name);
      for (i = 0; i < info->nfields; i++) {
         const struct vagx_field *f = vagx_op_field(I->op, i);
         uint32_t v = vagx_field_get(I, f);
         switch (f->type) {
         case VAGX_FT_ENUM:
            vagx_pc(&b, '.');
            vagx_ps(&b, v < f->nnames && f->names[v] ? f->names[v] : "?");
            break;
         case VAGX_FT_FLAG:
            if (v) {
               vagx_pc(&b, '.');
               vagx_ps(&b, f->name);
            }
            break;
         case VAGX_FT_UINT:
            vagx_pc(&b, '.');
            vagx_ps(&b, f->name);
            vagx_pu(&b, v);
            break;
         default:
            target = (int)i;
            break;
         }
      }
      if (I->sat)
         vagx_ps(&b, ".sat");
      if (info->dst != VAGX_DK_NONE) {
         vagx_ps(&b, " r");
         vagx_pu(&b, I->dst);
         if (I->dst_half)
            vagx_ps(&b, I->dst_half == VAGX_HALF_LO ? ".l" : ".h");
         nops++;
      }
      for (i = 0; i < nsrc; i++) {
         vagx_ps(&b, nops++ ? ", " : " ");
         vagx_print_src(&b, I, &I->src[i]);
      }
      if (target >= 0) {
         int32_t t = vagx_target(I);
         vagx_ps(&b, nops++ ? ", @" : " @");
         vagx_pc(&b, t < 0 ? '-' : '+');
         vagx_pu(&b, t < 0 ? 0u - (uint32_t)t : (uint32_t)t);
      }
   }
   if (size)
      b.p[b.len < size ? b.len : size - 1] = '\0';
   return b.len;
}
"""


def cident(s):
    out = s.upper()
    return out if not out[0].isdigit() else '_' + out


class Isa:
    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.enums = {}
        self.enum_order = []
        for e in root.iter('enum'):
            vals = []
            for v in e.iter('value'):
                vals.append((v.get('name'), int(v.get('value'), 0), v.get('desc', ''),
                             v.attrib))
            self.enums[e.get('name')] = (vals, e.get('desc', ''))
            self.enum_order.append(e.get('name'))
        self.fields = [(f.get('name'), int(f.get('lo')), int(f.get('size')), f.get('desc'))
                       for f in root.find('encoding').iter('field')]
        self.index_bits = int(root.find('encoding').find('index').get('bits'))
        assert self.index_bits <= 8, 'struct vagx_src/vagx_instr hold indexes in uint8_t'
        self.groups = []
        self.ops = []
        seen = set()
        for g in root.iter('group'):
            gops = []
            for i in g.iter('ins'):
                op = {
                    'name': i.get('name'),
                    'op': int(i.get('op'), 0),
                    'dst': i.get('dst', 'none'),
                    'src': i.get('src', '').split(),
                    'flags': i.get('flags', '').split(),
                    'desc': i.get('desc', ''),
                    'group': g.get('name'),
                    'mf': [self._field(f, False) for f in i.iter('mf')],
                    'ef': [self._field(f, True) for f in i.iter('ef')],
                }
                assert op['op'] not in seen, op['name']
                seen.add(op['op'])
                assert op['dst'] in DST_KINDS, op['name']
                assert all(s in SRC_KINDS for s in op['src']), op['name']
                assert all(f in OP_FLAGS for f in op['flags']), op['name']
                assert len(op['src']) <= 3
                if op['ef']:
                    assert 'ext' in op['flags'], op['name']
                gops.append(op)
                self.ops.append(op)
            self.groups.append((g.get('name'), g.get('desc', ''), gops))

    def _field(self, f, in_ext):
        d = {'name': f.get('name'), 'lo': int(f.get('lo')), 'size': int(f.get('size')),
             'in_ext': in_ext}
        if f.get('enum'):
            d['type'] = 'enum'
            d['enum'] = f.get('enum')
            assert d['enum'] in self.enums
        elif f.get('flag'):
            d['type'] = 'flag'
            d['flagname'] = f.get('flag')
            # a flag that makes the instruction write dst_regs more
            # destination registers (tex .resid: the residency code)
            d['dst_regs'] = int(f.get('dst_regs', '0'))
            d['desc'] = f.get('desc', '')
        elif f.get('kind') == 'target':
            d['type'] = 'target'
        else:
            d['type'] = 'uint'
        return d


def c_header_start(guard):
    """The first lines of every C header gen_isa.py writes: the banner that
    says where it comes from and the opening of its include guard."""
    return ['/* Generated by gen_isa.py from vagx_isa.xml.  Do not edit. */',
            '#ifndef ' + guard,
            '#define ' + guard,
            '']


def gen_header(isa):
    o = c_header_start('VAGX_ISA_H')
    w = o.append
    w('#ifdef __KERNEL__')
    w('#include <linux/types.h>')
    w('#else')
    w('#include <stdbool.h>')
    w('#include <stddef.h>')
    w('#include <stdint.h>')
    w('#endif')
    w('')
    w('#ifdef __cplusplus')
    w('extern "C" {')
    w('#endif')
    w('')
    w('/* Instruction word fields (bit position, width). */')
    for name, lo, size, desc in isa.fields:
        w('#define VAGX_W_%s_LO %d  /* %s */' % (name.upper(), lo, desc))
        w('#define VAGX_W_%s_SIZE %d' % (name.upper(), size))
    w('')
    w('/* Register index width of dst and every source: r, u and cf registers')
    w(' * 0 .. VAGX_ISA_INDEXES - 1. */')
    w('#define VAGX_ISA_INDEX_BITS %d' % isa.index_bits)
    w('#define VAGX_ISA_INDEXES (1u << VAGX_ISA_INDEX_BITS)')
    w('')
    w('enum vagx_op {')
    for op in sorted(isa.ops, key=lambda x: x['op']):
        w('   VAGX_OP_%s = 0x%02x,' % (cident(op['name']), op['op']))
    w('};')
    w('#define VAGX_OP_COUNT 256')
    w('')
    for en in isa.enum_order:
        vals, desc = isa.enums[en]
        w('enum vagx_%s {' % en)
        for n, v, d, _ in vals:
            w('   VAGX_%s_%s = %d,%s' % (en.upper(), cident(n), v, ('  /* %s */' % d) if d else ''))
        w('};')
        w('#define VAGX_%s_COUNT %d' % (en.upper(), max(v for _, v, _, _ in vals) + 1))
        w('static const char *const vagx_%s_names[VAGX_%s_COUNT] = {' % (en, en.upper()))
        byv = {v: n for n, v, _, _ in vals}
        w('   ' + ', '.join('"%s"' % byv[i] if i in byv else 'NULL'
                            for i in range(max(byv) + 1)) + ',')
        w('};')
        w('')
    w('/* Registers moved by each memory access size (vector length). */')
    w('static const uint8_t vagx_memsize_regs[VAGX_MEMSIZE_COUNT] = {')
    vals = isa.enums['memsize'][0]
    w('   ' + ', '.join(a.get('regs') for _, _, _, a in sorted(vals, key=lambda x: x[1])) + ',')
    w('};')
    w('static const uint8_t vagx_memsize_bytes[VAGX_MEMSIZE_COUNT] = { 1, 1, 2, 2, 4, 8, 12, 16 };')
    w('')
    w('enum vagx_dkind {')
    for k in DST_KINDS:
        w('   VAGX_DK_%s,' % k.upper())
    w('};')
    w('enum vagx_skind {')
    for k in SRC_KINDS:
        w('   VAGX_SK_%s,' % k.upper())
    w('};')
    w('enum vagx_opflag {')
    w('   VAGX_OPF_VALID = 1 << 0,')
    for i, f in enumerate(OP_FLAGS):
        w('   VAGX_OPF_%s = 1 << %d,' % (f.upper(), i + 1))
    w('};')
    w('enum vagx_ftype { VAGX_FT_ENUM, VAGX_FT_FLAG, VAGX_FT_UINT, VAGX_FT_TARGET };')
    w('')
    w('/* A modifier (in mod) or extension field (in imm1) of an opcode. */')
    w('struct vagx_field {')
    w('   const char *name;        /* flag: printed name; enum: field name */')
    w('   const char *const *names; /* enum value names (NULL holes) */')
    w('   uint8_t nnames;')
    w('   uint8_t lo, size, type;  /* type: enum vagx_ftype */')
    w('   uint8_t in_ext;          /* 1: bits of imm1, 0: bits of mod */')
    w('};')
    w('')
    w('struct vagx_op_info {')
    w('   const char *name;   /* NULL: opcode not defined */')
    w('   uint16_t flags;     /* enum vagx_opflag */')
    w('   uint8_t dst;        /* enum vagx_dkind */')
    w('   uint8_t nsrc;')
    w('   uint8_t src[3];     /* enum vagx_skind */')
    w('   uint8_t nfields;')
    w('   uint8_t first_field; /* index into vagx_fields */')
    w('};')
    w('')
    fields = []
    starts = {}
    for op in sorted(isa.ops, key=lambda x: x['op']):
        starts[op['op']] = len(fields)
        for f in op['mf'] + op['ef']:
            fields.append(f)
    w('/* Each opcode\'s modifier fields read from vagx_instr.mod, for the code')
    w(' * that executes them (the printer and the assembler use vagx_fields). */')
    for op in sorted(isa.ops, key=lambda x: x['op']):
        for f in op['mf']:
            w('#define VAGX_MOD_%s_%s(mod) (((unsigned)(mod) >> %d) & 0x%xu)' % (
                op['name'].upper(), f['name'].upper(), f['lo'], (1 << f['size']) - 1))
    w('')
    w('static const struct vagx_field vagx_fields[] = {')
    for f in fields:
        if f['type'] == 'enum':
            names = 'vagx_%s_names' % f['enum']
            nn = 'VAGX_%s_COUNT' % f['enum'].upper()
            nm = f['name']
        else:
            names, nn = 'NULL', '0'
            nm = f.get('flagname', f['name'])
        w('   { "%s", %s, %s, %d, %d, VAGX_FT_%s, %d },' % (
            nm, names, nn, f['lo'], f['size'], f['type'].upper(), 1 if f['in_ext'] else 0))
    w('};')
    w('')
    w('/* The bit of every flag field: VAGX_FLAG_<op>_<flag>, in imm1 (an')
    w(' * extension field) or mod as the field table says. */')
    for op in sorted(isa.ops, key=lambda x: x['op']):
        for f in op['mf'] + op['ef']:
            if f['type'] == 'flag':
                w('#define VAGX_FLAG_%s_%s (1u << %d) /* %s */' % (
                    cident(op['name']), cident(f['name']), f['lo'], 'imm1' if f['in_ext'] else 'mod'))
    w('')
    w('static const struct vagx_op_info vagx_op_infos[VAGX_OP_COUNT] = {')
    byop = {op['op']: op for op in isa.ops}
    for code in range(256):
        op = byop.get(code)
        if not op:
            w('   { NULL, 0, 0, 0, { 0, 0, 0 }, 0, 0 },')
            continue
        flags = ' | '.join(['VAGX_OPF_VALID'] + ['VAGX_OPF_%s' % f.upper() for f in op['flags']])
        srcs = op['src'] + ['none'] * (3 - len(op['src']))
        w('   { "%s", %s, VAGX_DK_%s, %d, { %s }, %d, %d },' % (
            op['name'], flags, op['dst'].upper(), len(op['src']),
            ', '.join('VAGX_SK_%s' % s.upper() for s in srcs),
            len(op['mf']) + len(op['ef']), starts[code]))
    w('};')
    w('')
    xo = []
    x = xo.append
    x('/* Destination registers beyond the kind\'s that flags of the instruction')
    x(' * add (vagx_isa.xml: a flag field\'s dst_regs). */')
    x('static inline unsigned vagx_dst_extra(const struct vagx_instr *I)')
    x('{')
    extra = [(op, f) for op in sorted(isa.ops, key=lambda x: x['op'])
             for f in op['mf'] + op['ef'] if f.get('dst_regs')]
    if extra:
        x('   switch (I->op) {')
        for op in sorted({op['op'] for op, _ in extra}):
            terms = ['((%s >> %d) & 1)' % ('I->imm[1]' if f['in_ext'] else 'I->mod', f['lo']) +
                     (' * %du' % f['dst_regs'] if f['dst_regs'] > 1 else '')
                     for o, f in extra if o['op'] == op]
            x('   case VAGX_OP_%s: return %s;' % (cident(byop[op]['name']), ' + '.join(terms)))
        x('   default: return 0;')
        x('   }')
    else:
        x('   (void)I;')
        x('   return 0;')
    x('}')
    x('')
    w(CODE.replace('@DST_EXTRA@\n', '\n'.join(xo) + '\n'))
    w('#ifdef __cplusplus')
    w('}')
    w('#endif')
    w('')
    w('#endif /* VAGX_ISA_H */')
    return '\n'.join(o) + '\n'


def gen_md(isa):
    o = []
    w = o.append
    w('<!-- Generated by gen_isa.py --md from uapi/hw/isa/vagx_isa.xml. -->')
    for gname, gdesc, ops in isa.groups:
        w('')
        w('### %s — %s' % (gname, gdesc))
        w('')
        w('| op | name | dst | sources | modifiers | flags | semantics |')
        w('|---|---|---|---|---|---|---|')
        for op in ops:
            mods = []
            for f in op['mf'] + op['ef']:
                where = 'imm1' if f['in_ext'] else 'mod'
                if f['type'] == 'enum':
                    mods.append('%s[%d:%d] %s: %s' % (where, f['lo'] + f['size'] - 1, f['lo'], f['name'],
                                '/'.join(n for n, _, _, _ in isa.enums[f['enum']][0])))
                elif f['type'] == 'flag':
                    mods.append('%s[%d] .%s' % (where, f['lo'], f['flagname']) +
                                (' (%s)' % f['desc'].replace('|', '\\|') if f['desc'] else ''))
                else:
                    mods.append('%s[%d:%d] %s (%s)' % (where, f['lo'] + f['size'] - 1, f['lo'],
                                                       f['name'], f['type']))
            w('| 0x%02x | `%s` | %s | %s | %s | %s | %s |' % (
                op['op'], op['name'], op['dst'], ' '.join(op['src']) or '-',
                '; '.join(mods) or '-', ' '.join(op['flags']) or '-',
                op['desc'].replace('|', '\\|')))
    w('')
    w('### Enumerations')
    for en in isa.enum_order:
        vals, desc = isa.enums[en]
        w('')
        w('- **%s**%s: %s' % (en, (' (' + desc + ')') if desc else '',
                             ', '.join('%s=%d' % (n, v) for n, v, _, _ in vals)))
    return '\n'.join(o) + '\n'


def builder_ops(isa):
    """The opcodes the builder covers: one scalar result, scalar or
    coefficient-register sources, no extension word (those instructions
    carry operands the helpers cannot express: vectors, jump targets,
    texture state)."""
    for op in sorted(isa.ops, key=lambda x: x['op']):
        if op['dst'] in ('u32', 'f32') and all(k in ('u32', 'f32', 'cf') for k in op['src']) \
                and 'ext' not in op['flags'] and 'condsrc' not in op['flags'] \
                and not op['ef']:
            yield op


def gen_builder(isa):
    """vagx_builder.h: one helper per scalar opcode for the Mesa compiler's
    IR (vagx_ir.h): vagx_<op>(ir, <mod fields>, <sources>) emits the
    instruction into a new virtual register and returns it.  The modifier
    fields are typed parameters packed at the positions vagx_isa.xml gives,
    so selection never spells an opcode's operand count or mod layout."""
    o = c_header_start('VAGX_BUILDER_H')
    w = o.append
    w('#include "vagx_ir.h"')
    w('')
    for op in builder_ops(isa):
        params = ['vagx_ir *ir']
        mod = []
        for f in op['mf']:
            if f['type'] == 'enum':
                params.append('enum vagx_%s %s' % (f['enum'], f['name']))
            elif f['type'] == 'flag':
                params.append('bool %s' % f['name'])
            else:
                params.append('unsigned %s' % f['name'])
            mod.append('((unsigned)%s << %d)' % (f['name'], f['lo']))
        srcs = ['s%d' % i for i in range(len(op['src']))]
        params += ['vagx_ir_src %s' % x for x in srcs]
        args = srcs + ['ir_none()'] * (3 - len(srcs))
        w('/* %s */' % op['desc'].replace('*/', '* /'))
        w('static inline vagx_ir_src')
        w('vagx_%s(%s)' % (op['name'], ', '.join(params)))
        w('{')
        w('   return vagx_ir_alu(ir, VAGX_OP_%s, %s, %s);' % (
            cident(op['name']), ' | '.join(mod) if mod else '0', ', '.join(args)))
        w('}')
        w('')
    w('#endif')
    return '\n'.join(o) + '\n'


def write_if_changed(path, text):
    # Rewrite only on change so dependants do not rebuild needlessly.
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, 'w') as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--xml', required=True)
    ap.add_argument('--out', help='output directory for vagx_isa.h')
    ap.add_argument('--builder', help="write the Mesa compiler's IR builder (vagx_builder.h) here")
    ap.add_argument('--md', help='write the opcode reference (Markdown) to this file')
    a = ap.parse_args()
    isa = Isa(a.xml)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        write_if_changed(os.path.join(a.out, 'vagx_isa.h'), gen_header(isa))
    if a.builder:
        write_if_changed(a.builder, gen_builder(isa))
    if a.md:
        with open(a.md, 'w') as f:
            f.write(gen_md(isa))
    return 0


if __name__ == '__main__':
    sys.exit(main())
