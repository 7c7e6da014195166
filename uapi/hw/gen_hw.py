#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the vagx hardware-contract C header (and Markdown tables) from
vagx_hw.xml.

    gen_hw.py --xml vagx_hw.xml --out DIR          -> DIR/vagx_hw.h
    gen_hw.py --xml vagx_hw.xml --test-out DIR     -> DIR/vagx_hw_testgen.h
    gen_hw.py --xml vagx_hw.xml --doc DOCDIR       -> rewrite generated
                                                      sections of DOCDIR/*.md
    gen_hw.py --xml vagx_hw.xml --doc-check DOCDIR -> exit 1 if stale

Standard library only: it runs from meson (host, QEMU, Mesa) and from Kbuild.
The output is deterministic so that build systems can skip rebuilds.
"""

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------


class Error(Exception):
    pass


def parse_int(s):
    s = s.strip()
    return int(s, 0)


class Contract:
    def __init__(self, path):
        self.path = path
        root = ET.parse(path).getroot()
        if root.tag != 'vagx_hw':
            raise Error('root element must be <vagx_hw>')
        # The contract version has one source, the HW_VERSION_MAJOR/MINOR
        # constants (the device reports them in VERSION); the root carries
        # no second copy to go stale.
        if root.attrib:
            raise Error('<vagx_hw> takes no attributes (the version is the '
                        'HW_VERSION_MAJOR/MINOR constants): %s' % ' '.join(sorted(root.attrib)))
        self.consts = []        # (name, value, doc, page)
        self.const_val = {}
        self.enums = []
        self.enum_by_name = {}
        self.fieldsets = {}
        self.regs = []          # global registers
        self.blocks = []
        self.structs = []
        self.struct_by_name = {}
        for el in root:
            if el.tag == 'const':
                self._const(el)
            elif el.tag == 'enum':
                self._enum(el)
            elif el.tag == 'fieldset':
                self.fieldsets[el.get('name')] = RegFieldSet(self, el)
            elif el.tag == 'registers':
                self._registers(el)
            elif el.tag == 'struct':
                s = Struct(self, el)
                if s.name in self.struct_by_name:
                    raise Error('duplicate struct ' + s.name)
                self.structs.append(s)
                self.struct_by_name[s.name] = s
            else:
                raise Error('unknown element <%s>' % el.tag)
        for v in ('HW_VERSION_MAJOR', 'HW_VERSION_MINOR'):
            if v not in self.const_val:
                raise Error('the contract needs the const %s (its version)' % v)
        self.major = self.const_val['HW_VERSION_MAJOR']
        self.minor = self.const_val['HW_VERSION_MINOR']
        for s in self.structs:
            s.resolve()
        self.commands = [s for s in self.structs if s.opcode is not None]
        ops = {}
        for c in self.commands:
            if c.opcode in ops:
                raise Error('opcode 0x%x used by %s and %s' % (c.opcode, ops[c.opcode], c.name))
            ops[c.opcode] = c.name
        self._check_regs()

    # Numbers in attributes may be plain integers or expressions over
    # constants ("MAX_QUEUES", "MSIX_VECTORS - 1").  Python evaluates them for
    # checks and docs; C gets the symbolic form so a constant lives once.
    def eval(self, s):
        if s is None:
            return None
        s = s.strip()
        try:
            return parse_int(s)
        except ValueError:
            pass
        expr = re.sub(r'[A-Za-z_][A-Za-z0-9_]*', lambda m: str(self.const_val[m.group(0)]), s)
        if not re.fullmatch(r'[0-9xa-fA-F+\-*/ ()<>]+', expr):
            raise Error('bad expression ' + s)
        return int(eval(expr))  # only digits and operators reach here

    def cexpr(self, s):
        s = s.strip()
        try:
            return '%s' % s if parse_int(s) < 2**31 else '0x%xull' % parse_int(s)
        except ValueError:
            return '(' + re.sub(r'[A-Za-z_][A-Za-z0-9_]*', lambda m: 'VAGX_' + m.group(0), s) + ')'

    def _const(self, el):
        name = el.get('name')
        if name in self.const_val:
            raise Error('duplicate const ' + name)
        v = parse_int(el.get('value'))
        self.consts.append((name, v, el.get('doc', ''), el.get('page', 'registers')))
        self.const_val[name] = v

    def _enum(self, el):
        e = Enum(el)
        if e.name in self.enum_by_name:
            raise Error('duplicate enum ' + e.name)
        self.enums.append(e)
        self.enum_by_name[e.name] = e

    def _registers(self, el):
        for r in el:
            if r.tag == 'reg':
                self.regs.append(Reg(self, r, None))
            elif r.tag == 'block':
                self.blocks.append(Block(self, r))
            else:
                raise Error('unknown <%s> in <registers>' % r.tag)

    def _check_regs(self):
        seen = {}
        bar = self.const_val['BAR0_SIZE']
        spans = []
        for r in self.regs:
            if r.offset in seen:
                raise Error('register offset 0x%x used by %s and %s' % (r.offset, seen[r.offset], r.name))
            if r.offset % 4 or r.offset >= bar:
                raise Error('bad offset for ' + r.name)
            seen[r.offset] = r.name
        for b in self.blocks:
            end = b.base + b.stride * b.count
            spans.append((b.base, end))
            for r in b.regs:
                if r.offset >= b.stride:
                    raise Error('block register %s beyond stride' % r.name)
            for o in seen:
                if b.base <= o < end:
                    raise Error('register 0x%x inside block %s' % (o, b.name))
        spans.append((self.const_val['MSIX_TABLE_OFFSET'],
                      self.const_val['MSIX_TABLE_OFFSET'] + 16 * self.const_val['MSIX_VECTORS']))
        spans.append((self.const_val['MSIX_PBA_OFFSET'], self.const_val['MSIX_PBA_OFFSET'] + 8))
        spans.sort()
        for a, b in zip(spans, spans[1:]):
            if a[1] > b[0]:
                raise Error('BAR0 regions overlap: %r %r' % (a, b))
        if spans[-1][1] > bar:
            raise Error('BAR0 region beyond BAR0_SIZE')


class Enum:
    def __init__(self, el):
        self.name = el.get('name')
        self.doc = el.get('doc', '')
        self.page = el.get('page', 'descriptors')
        self.values = []  # (name, value, doc, attrs)
        names = set()
        vals = set()
        for v in el.findall('value'):
            attrs = {k: x for k, x in v.attrib.items() if k not in ('name', 'value', 'doc')}
            n = v.get('name')
            val = parse_int(v.get('value'))
            if n in names or val in vals:
                raise Error('duplicate name/value in enum %s: %s' % (self.name, n))
            if not 0 <= val < 2**31:
                raise Error('enum value out of range: %s' % n)
            names.add(n)
            vals.add(val)
            self.values.append((n, val, v.get('doc', ''), attrs))
        self.attrs = []
        for _, _, _, a in self.values:
            for k in a:
                if k not in self.attrs:
                    self.attrs.append(k)
        for _, _, _, a in self.values:
            if self.attrs and set(a) != set(self.attrs):
                raise Error('enum %s: every value needs attributes %s' % (self.name, self.attrs))

    @property
    def cname(self):
        return 'vagx_' + self.name

    def const(self, v):
        return 'VAGX_%s_%s' % (self.name.upper(), v)

    def max_value(self):
        return max(v for _, v, _, _ in self.values)


class RegField:
    def __init__(self, c, el):
        self.name = el.get('name')
        self.bit = parse_int(el.get('bit'))
        self.size = parse_int(el.get('size'))
        self.count_s = el.get('count')
        self.count = c.eval(self.count_s) if self.count_s else None
        self.type = el.get('type')
        self.doc = el.get('doc', '')
        span = self.size * (self.count or 1)
        if self.bit + span > 32:
            raise Error('register field %s beyond 32 bits' % self.name)


class RegFieldSet:
    def __init__(self, c, el):
        self.name = el.get('name')
        self.doc = el.get('doc', '')
        self.fields = [RegField(c, f) for f in el.findall('field')]
        check_reg_overlap(self.name, self.fields)


def check_reg_overlap(name, fields):
    used = 0
    for f in fields:
        m = ((1 << (f.size * (f.count or 1))) - 1) << f.bit
        if used & m:
            raise Error('overlapping fields in ' + name)
        used |= m


class Reg:
    def __init__(self, c, el, block):
        self.name = el.get('name')
        self.offset = parse_int(el.get('offset'))
        self.access = el.get('access')
        if self.access not in ('ro', 'rw', 'wo', 'w1c'):
            raise Error('bad access for ' + self.name)
        self.reset = el.get('reset')
        self.doc = el.get('doc', '')
        self.block = block
        fs = el.get('fields')
        if fs:
            self.fieldset = c.fieldsets[fs]
            self.fields = self.fieldset.fields
            self.prefix = fs
        else:
            self.fieldset = None
            self.fields = [RegField(c, f) for f in el.findall('field')]
            self.prefix = (block + '_' if block else '') + self.name
            check_reg_overlap(self.name, self.fields)


class Block:
    def __init__(self, c, el):
        self.name = el.get('name')
        self.base_s, self.stride_s, self.count_s = el.get('base'), el.get('stride'), el.get('count')
        self.base, self.stride, self.count = c.eval(self.base_s), c.eval(self.stride_s), c.eval(self.count_s)
        self.doc = el.get('doc', '')
        self.regs = [Reg(c, r, self.name) for r in el.findall('reg')]


SCALAR_TYPES = ('uint', 'int', 'bool', 'hex', 'float', 'address')


class Field:
    def __init__(self, c, st, el):
        self.c = c
        self.st = st
        self.name = el.get('name')
        self.dw = parse_int(el.get('dw'))
        self.bit = parse_int(el.get('bit'))
        self.size = parse_int(el.get('size'))
        self.type = el.get('type')
        self.count_s = el.get('count')
        self.count = c.eval(self.count_s) if self.count_s else None
        self.stride = parse_int(el.get('stride')) if el.get('stride') else self.size
        self.default = el.get('default')
        self.min_s, self.max_s = el.get('min'), el.get('max')
        self.min = c.eval(self.min_s)
        self.max = c.eval(self.max_s)
        self.align = parse_int(el.get('align')) if el.get('align') else None
        self.shift = parse_int(el.get('shift')) if el.get('shift') else 0
        self.doc = el.get('doc', '')
        self.pos = self.dw * 32 + self.bit
        if self.align and self.align & (self.align - 1):
            raise Error('%s.%s: align must be a power of two' % (st.name, self.name))

    def resolve(self):
        c, t = self.c, self.type
        if t in SCALAR_TYPES:
            self.kind = t
        elif t in c.enum_by_name:
            self.kind = 'enum'
            self.enum = c.enum_by_name[t]
            if self.enum.max_value() >= (1 << self.size):
                raise Error('%s.%s: enum %s does not fit' % (self.st.name, self.name, t))
        elif t in c.struct_by_name:
            self.kind = 'struct'
            self.sub = c.struct_by_name[t]
            if self.bit or self.size != self.sub.dwords * 32:
                raise Error('%s.%s: nested struct must be dword aligned and sized' % (self.st.name, self.name))
        else:
            raise Error('%s.%s: unknown type %s' % (self.st.name, self.name, t))
        if self.kind == 'float' and self.size != 32:
            raise Error('float fields are 32 bits')
        if self.kind == 'bool' and self.size != 1:
            raise Error('bool fields are 1 bit')
        if self.kind == 'address' and self.size + self.shift > 64:
            raise Error('address too wide')
        if self.kind in ('uint', 'hex', 'int', 'address') and self.size > 64:
            raise Error('field too wide')
        if self.max is not None and self.max >= (1 << (self.size + self.shift)):
            raise Error('%s.%s: max does not fit' % (self.st.name, self.name))

    @property
    def value_bits(self):  # width of the C value
        if self.kind == 'address':
            return 64
        if self.kind in ('uint', 'hex', 'int'):
            return 32 if self.size <= 32 else 64
        return 32

    def ctype(self):
        k = self.kind
        if k == 'bool':
            return 'bool'
        if k == 'float':
            return 'vagx_float'
        if k == 'address':
            return 'uint64_t'
        if k == 'int':
            return 'int32_t' if self.size <= 32 else 'int64_t'
        if k in ('uint', 'hex'):
            return 'uint32_t' if self.size <= 32 else 'uint64_t'
        if k == 'enum':
            return 'enum ' + self.enum.cname
        return 'struct vagx_' + self.sub.name

    def elements(self):
        """(C lvalue suffix, absolute bit position) for each element."""
        if self.count is None:
            return [('', self.pos)]
        return [('[%d]' % i, self.pos + i * self.stride) for i in range(self.count)]

    def used_bits(self):
        bits = []
        for _, p in self.elements():
            bits.append((p, self.size))
        return bits


class Struct:
    def __init__(self, c, el):
        self.c = c
        self.name = el.get('name')
        self.dwords = parse_int(el.get('dwords'))
        self.doc = el.get('doc', '')
        self.page = el.get('page', 'descriptors')
        self.opcode = parse_int(el.get('opcode')) if el.get('opcode') else None
        self.fields = [Field(c, self, f) for f in el.findall('field')]
        self.checks = [(ch.get('expr'), ch.get('doc', '')) for ch in el.findall('check')]
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise Error('duplicate field in ' + self.name)

    def resolve(self):
        for f in self.fields:
            f.resolve()
        used = [0] * self.dwords
        bits = []
        if self.opcode is not None:
            bits.append((0, 8))
        for f in self.fields:
            bits += f.used_bits()
        for p, n in bits:
            if p + n > self.dwords * 32:
                raise Error('%s: field beyond struct end' % self.name)
            for b in range(p, p + n):
                if used[b // 32] & (1 << (b % 32)):
                    raise Error('%s: overlapping fields at bit %d' % (self.name, b))
                used[b // 32] |= 1 << (b % 32)
        self.used = used

    @property
    def cname(self):
        return 'vagx_' + self.name

    @property
    def upper(self):
        return self.name.upper()


# --------------------------------------------------------------------------
# C header
# --------------------------------------------------------------------------

PROLOGUE = r'''/* SPDX-License-Identifier: MIT */
/*
 * vagx hardware contract v%(major)d.%(minor)d: registers, jobs, MMU, commands and
 * descriptors.  GENERATED by uapi/hw/gen_hw.py from uapi/hw/vagx_hw.xml.
 * DO NOT EDIT: change the XML instead.
 *
 * Header-only; compiles as C11, C++17 and kernel C (define __KERNEL__).
 * Packed layouts are arrays of little-endian 32-bit words; on big-endian
 * hosts convert with le32_to_cpu()/cpu_to_le32() around pack/unpack.
 */
#ifndef VAGX_HW_H
#define VAGX_HW_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bits.h>
/* The kernel must not touch the FPU: floats travel as raw IEEE-754 bits. */
typedef uint32_t vagx_float;
#else
#include <stdint.h>
#include <stdbool.h>
typedef float vagx_float;
#endif

#ifdef __cplusplus
extern "C" {
/* A fixed underlying type makes any 32-bit value a valid enum object in C++,
 * so unpacking garbage stays defined behaviour until validation rejects it. */
#define VAGX_ENUM_TYPE : uint32_t
#else
#define VAGX_ENUM_TYPE
#endif

#if defined(__GNUC__)
#define VAGX_PRINTF_ATTR(a, b) __attribute__((format(printf, a, b)))
#else
#define VAGX_PRINTF_ATTR(a, b)
#endif

/*
 * printf-like sink for the print helpers: userspace passes vagx_print_file
 * (below), the kernel a wrapper around drm_printf, tests a string builder.
 */
typedef void (*vagx_print_fn)(void *ctx, const char *fmt, ...) VAGX_PRINTF_ATTR(2, 3);

#if !defined(__KERNEL__) && !defined(VAGX_HW_NO_STDIO)
#include <stdarg.h>
#include <stdio.h>
/* ctx is a FILE *. */
static inline void VAGX_PRINTF_ATTR(2, 3) vagx_print_file(void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf((FILE *)ctx, fmt, ap);
	va_end(ap);
}
#endif

static inline uint32_t vagx_float_to_bits(vagx_float f)
{
#ifdef __KERNEL__
	return f;
#else
	uint32_t u;
	__builtin_memcpy(&u, &f, sizeof(u));
	return u;
#endif
}

static inline vagx_float vagx_float_from_bits(uint32_t u)
{
#ifdef __KERNEL__
	return u;
#else
	vagx_float f;
	__builtin_memcpy(&f, &u, sizeof(f));
	return f;
#endif
}

/* Records why validation failed; err may be NULL. */
static inline bool vagx_hw_fail(const char **err, const char *why)
{
	if (err)
		*err = why;
	return 0;
}

static inline const char *vagx_hw_str(const char *s)
{
	return s ? s : "<invalid>";
}

static inline void vagx_hw_print_u64(vagx_print_fn fn, void *ctx, unsigned indent,
				     const char *name, int idx, uint64_t v, bool hex)
{
	char sub[16];
	unsigned i = 0;
	if (idx >= 0) {
		/* Tiny itoa: no snprintf in the kernel's freestanding build. */
		char tmp[12];
		unsigned n = 0, x = (unsigned)idx;
		do { tmp[n++] = (char)('0' + x %% 10); x /= 10; } while (x && n < 10);
		sub[i++] = '[';
		while (n)
			sub[i++] = tmp[--n];
		sub[i++] = ']';
	}
	sub[i] = 0;
	if (hex)
		fn(ctx, "%%*s%%s%%s: 0x%%llx\n", (int)indent, "", name, sub, (unsigned long long)v);
	else
		fn(ctx, "%%*s%%s%%s: %%llu\n", (int)indent, "", name, sub, (unsigned long long)v);
}

static inline void vagx_hw_print_i64(vagx_print_fn fn, void *ctx, unsigned indent,
				     const char *name, int64_t v)
{
	fn(ctx, "%%*s%%s: %%lld\n", (int)indent, "", name, (long long)v);
}

static inline void vagx_hw_print_float(vagx_print_fn fn, void *ctx, unsigned indent,
				       const char *name, int idx, vagx_float v)
{
#ifdef __KERNEL__
	vagx_hw_print_u64(fn, ctx, indent, name, idx, v, 1);
#else
	if (idx >= 0)
		fn(ctx, "%%*s%%s[%%d]: %%f\n", (int)indent, "", name, idx, (double)v);
	else
		fn(ctx, "%%*s%%s: %%f\n", (int)indent, "", name, (double)v);
#endif
}

static inline void vagx_hw_print_enum(vagx_print_fn fn, void *ctx, unsigned indent,
				      const char *name, int idx, const char *vname, uint32_t v)
{
	if (idx >= 0)
		fn(ctx, "%%*s%%s[%%d]: %%s (%%u)\n", (int)indent, "", name, idx, vagx_hw_str(vname), (unsigned)v);
	else
		fn(ctx, "%%*s%%s: %%s (%%u)\n", (int)indent, "", name, vagx_hw_str(vname), (unsigned)v);
}

'''

EPILOGUE = r'''
/*
 * Mesa-style helpers:
 *   vagx_pack(dst, texture, cfg) { cfg.width = 64; ... }
 * initialises cfg with the XML defaults, runs the body, then packs to dst.
 */
#define vagx_pack(dst, T, name)                                              \
	for (struct vagx_##T name, *vagx_pack_once_##name =                  \
		 (vagx_##T##_init(&name), &name);                            \
	     vagx_pack_once_##name;                                          \
	     vagx_##T##_pack((uint32_t *)(dst), &name),                      \
	     vagx_pack_once_##name = 0)

/* Page-table walk helpers: index of va in the table at level (0 = root). */
static inline uint32_t vagx_pt_index(uint64_t va, unsigned level)
{
	unsigned shift = VAGX_PAGE_SHIFT + VAGX_PT_BITS_PER_LEVEL * (VAGX_PT_LEVELS - 1 - level);
	return (uint32_t)(va >> shift) & (VAGX_PT_ENTRIES - 1);
}

static inline bool vagx_va_is_canonical(uint64_t va)
{
	return (va >> VAGX_VA_BITS) == 0;
}

static inline bool vagx_format_is_integer(enum vagx_format f)
{
	return vagx_format_kind(f) == VAGX_FORMAT_KIND_UINT ||
	       vagx_format_kind(f) == VAGX_FORMAT_KIND_SINT;
}

static inline bool vagx_format_is_srgb(enum vagx_format f)
{
	return vagx_format_kind(f) == VAGX_FORMAT_KIND_SRGB;
}

/* Tiles covering a framebuffer dimension. */
static inline uint32_t vagx_tiles(uint32_t pixels)
{
	return (pixels + VAGX_TILE_SIZE - 1) >> VAGX_TILE_SIZE_LOG2;
}

/* BAR0 offset of register reg (a VAGX_Q_* offset) in queue q's block. */
#define VAGX_QUEUE_REG(q, reg) (VAGX_QUEUE_BLOCK_BASE + (q) * VAGX_QUEUE_BLOCK_STRIDE + (reg))

#ifdef __cplusplus
}
#endif

#endif /* VAGX_HW_H */
'''


def comment(text, indent=''):
    if not text:
        return []
    words = text.split()
    lines, cur = [], ''
    for w in words:
        if len(cur) + len(w) + 1 > 72:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + ' ' + w).strip()
    if cur:
        lines.append(cur)
    if len(lines) == 1:
        return ['%s/* %s */' % (indent, lines[0].replace('*/', '* /'))]
    return ['%s/*' % indent] + ['%s * %s' % (indent, l.replace('*/', '* /')) for l in lines] + ['%s */' % indent]


def hexmask(n):
    return '0x%xu' % n if n < 2**32 else '0x%xull' % n


def chunks(pos, size):
    """Split a bit range into (dword, lo bit in dword, nbits, value offset)."""
    out = []
    vo = 0
    while size:
        d, lo = pos // 32, pos % 32
        n = min(size, 32 - lo)
        out.append((d, lo, n, vo))
        pos += n
        vo += n
        size -= n
    return out


class CWriter:
    def __init__(self, c):
        self.c = c
        self.o = []

    def w(self, *lines):
        self.o.extend(lines)

    def header(self):
        c = self.c
        self.w(*(PROLOGUE % {'major': c.major, 'minor': c.minor}).split('\n'))
        self.w('/* ---- constants ---- */')
        for name, v, doc, _ in c.consts:
            self.w(*comment(doc))
            self.w('#define VAGX_%s %s' % (name, hexmask(v) if v >= 2**31 else ('0x%x' % v if v > 255 else str(v))))
        self.w('')
        for e in c.enums:
            self.enum(e)
        self.registers()
        for s in c.structs:
            self.struct(s)
        self.commands()
        self.w(*EPILOGUE.split('\n'))
        return '\n'.join(self.o).rstrip('\n') + '\n'

    # ---- enums ----
    def enum(self, e):
        self.w('/* ---- enum %s ---- */' % e.name)
        self.w(*comment(e.doc))
        self.w('enum %s VAGX_ENUM_TYPE {' % e.cname)
        for n, v, doc, _ in e.values:
            self.w('\t%s = %d,%s' % (e.const(n), v, (' /* %s */' % doc.replace('*/', '* /')) if doc else ''))
        self.w('};', '#define %s_MAX_VALUE %d' % (e.cname.upper(), e.max_value()), '')
        self.w('static inline const char *%s_name(uint32_t v)' % e.cname, '{', '\tswitch (v) {')
        for n, v, _, _ in e.values:
            self.w('\tcase %d: return "%s";' % (v, n))
        self.w('\tdefault: return (const char *)0;', '\t}', '}', '')
        self.w('static inline bool %s_is_valid(uint32_t v)' % e.cname, '{', '\treturn %s_name(v) != (const char *)0;' % e.cname, '}', '')
        for a in e.attrs:
            vals = [x[3][a] for x in e.values]
            sub = self.c.enum_by_name.get('%s_%s' % (e.name, a))
            if sub:
                rtype = 'enum ' + sub.cname
                conv = lambda s: sub.const(s)
            else:
                rtype = 'uint32_t'
                conv = lambda s: str(parse_int(s))
            self.w('static inline %s %s_%s(enum %s v)' % (rtype, e.cname, a, e.cname), '{', '\tswitch (v) {')
            for (n, _, _, attrs) in e.values:
                self.w('\tcase %s: return %s;' % (e.const(n), conv(attrs[a])))
            dflt = conv(vals[0]) if sub else '0'
            self.w('\tdefault: return %s;' % dflt, '\t}', '}', '')

    # ---- registers ----
    def regfields(self, prefix, fields):
        for f in fields:
            self.w(*comment(f.doc))
            P = 'VAGX_%s_%s' % (prefix, f.name)
            if f.count:
                self.w('#define %s__SHIFT %d' % (P, f.bit),
                       '#define %s__MASK %s' % (P, hexmask(((1 << (f.size * f.count)) - 1) << f.bit)),
                       '#define %s(i) (%s << (%d + (i) * %d))' % (P, hexmask((1 << f.size) - 1), f.bit, f.size))
            else:
                m = ((1 << f.size) - 1) << f.bit
                self.w('#define %s__SHIFT %d' % (P, f.bit), '#define %s__MASK %s' % (P, hexmask(m)),
                       '#define %s(v) (((uint32_t)(v) << %d) & %s)' % (P, f.bit, hexmask(m)),
                       '#define %s_GET(r) (((uint32_t)(r) & %s) >> %d)' % (P, hexmask(m), f.bit))

    def registers(self):
        c = self.c
        self.w('/* ---- registers (BAR0 offsets; 32-bit accesses) ---- */')
        for fs in c.fieldsets.values():
            self.w(*comment('Bits of %s: %s' % (fs.name, fs.doc)))
            self.regfields(fs.name, fs.fields)
        for r in c.regs:
            self.w('', *comment('%s (%s) %s' % (r.name, r.access, r.doc)))
            self.w('#define VAGX_REG_%s 0x%03x' % (r.name, r.offset))
            if r.reset is not None:
                self.w('#define VAGX_REG_%s_RESET %s' % (r.name, hexmask(c.eval(r.reset))))
            if not r.fieldset:
                self.regfields(r.prefix, r.fields)
        for b in c.blocks:
            self.w('', *comment('Register block %s: %s' % (b.name, b.doc)))
            for r in b.regs:
                self.w('', *comment('%s_%s (%s) %s' % (b.name, r.name, r.access, r.doc)))
                self.w('#define VAGX_%s_%s 0x%02x' % (b.name, r.name, r.offset),
                       '#define VAGX_REG_%s_%s(q) (%s + (q) * %s + 0x%02x)' %
                       (b.name, r.name, c.cexpr(b.base_s), c.cexpr(b.stride_s), r.offset))
                if r.reset is not None:
                    self.w('#define VAGX_REG_%s_%s_RESET %s' % (b.name, r.name, hexmask(c.eval(r.reset))))
                self.regfields(r.prefix, r.fields)
        # name lookup for traces
        self.w('', '/* Name of the register at a BAR0 offset (NULL if none); *index gets the queue. */',
               'static inline const char *vagx_reg_name(uint32_t offset, int *index)', '{',
               '\tif (index)', '\t\t*index = -1;')
        for b in c.blocks:
            self.w('\tif (offset >= %s && offset < %s + %s * %s) {' % (c.cexpr(b.base_s), c.cexpr(b.base_s), c.cexpr(b.stride_s), c.cexpr(b.count_s)),
                   '\t\tuint32_t rel = offset - %s;' % c.cexpr(b.base_s),
                   '\t\tif (index)', '\t\t\t*index = (int)(rel / %s);' % c.cexpr(b.stride_s),
                   '\t\tswitch (rel %% %s) {' % c.cexpr(b.stride_s))
            for r in b.regs:
                self.w('\t\tcase 0x%02x: return "%s_%s";' % (r.offset, b.name, r.name))
            self.w('\t\tdefault: return (const char *)0;', '\t\t}', '\t}')
        self.w('\tswitch (offset) {')
        for r in c.regs:
            self.w('\tcase 0x%03x: return "%s";' % (r.offset, r.name))
        self.w('\tdefault: return (const char *)0;', '\t}', '}', '')

    # ---- structs ----
    def struct(self, s):
        c = self.c
        self.w('/* ---- %s (%d bytes) ---- */' % (s.name, s.dwords * 4))
        self.w(*comment(s.doc))
        self.w('#define VAGX_%s_DWORDS %d' % (s.upper, s.dwords), '#define VAGX_%s_LENGTH %d' % (s.upper, s.dwords * 4))
        if s.opcode is not None:
            self.w('#define VAGX_%s_OPCODE 0x%02x' % (s.upper, s.opcode))
        self.w('struct %s {' % s.cname)
        if not s.fields:
            self.w('\tuint32_t unused; /* no fields: keeps the struct non-empty for ISO C */')
        for f in s.fields:
            for l in comment(f.doc, '\t'):
                self.w(l)
            arr = '[%s]' % c.cexpr(f.count_s) if f.count else ''
            self.w('\t%s %s%s;' % (f.ctype(), f.name, arr))
        self.w('};', '')
        # init
        self.w('static inline void %s_init(struct %s *v)' % (s.cname, s.cname), '{')
        if not s.fields:
            self.w('\tv->unused = 0;')
        for f in s.fields:
            for suf, _ in f.elements():
                lv = 'v->%s%s' % (f.name, suf)
                if f.kind == 'struct':
                    self.w('\tvagx_%s_init(&%s);' % (f.sub.name, lv))
                elif f.kind == 'enum':
                    d = f.default or f.enum.values[0][0]
                    self.w('\t%s = %s;' % (lv, f.enum.const(d)))
                elif f.kind == 'float':
                    self.w('\t%s = vagx_float_from_bits(0x%08xu);' % (lv, parse_int(f.default or '0')))
                else:
                    self.w('\t%s = %s;' % (lv, f.default or '0'))
        self.w('}', '')
        self.validate(s)
        self.pack(s)
        self.unpack(s)
        self.print_(s)

    def validate(self, s):
        c = self.c
        self.w(*comment('Checks ranges, enums, alignment and cross-field rules; no reserved-bit check (the struct has none).'))
        self.w('static inline bool %s_validate(const struct %s *v, const char **err)' % (s.cname, s.cname), '{')
        # Not every struct has a checkable field; keep -Wunused-parameter quiet.
        self.w('\t(void)v;', '\t(void)err;')
        for f in s.fields:
            for suf, _ in f.elements():
                lv = 'v->%s%s' % (f.name, suf)
                msg = '"%s.%s%s' % (s.name, f.name, suf)
                conds = []
                if f.kind in ('uint', 'hex'):
                    if f.size < f.value_bits:
                        conds.append(('%s > %s' % (lv, hexmask((1 << f.size) - 1)), 'does not fit'))
                elif f.kind == 'int':
                    if f.size < f.value_bits:
                        conds.append(('%s < (%dll) || %s > %dll' % (lv, -(1 << (f.size - 1)), lv, (1 << (f.size - 1)) - 1), 'does not fit'))
                elif f.kind == 'address':
                    if f.shift:
                        conds.append(('%s & %s' % (lv, hexmask((1 << f.shift) - 1)), 'misaligned'))
                    if f.size + f.shift < 64:
                        conds.append(('%s >> %d' % (lv, f.size + f.shift), 'does not fit'))
                elif f.kind == 'enum':
                    conds.append(('!%s_is_valid((uint32_t)%s)' % (f.enum.cname, lv), 'invalid enum value'))
                elif f.kind == 'struct':
                    self.w('\tif (!vagx_%s_validate(&%s, err))' % (f.sub.name, lv), '\t\treturn 0;')
                if f.min is not None and f.min > 0:
                    conds.append(('%s < %s' % (lv, c.cexpr(f.min_s)), 'below minimum'))
                if f.max is not None and f.max < (1 << min(f.size + f.shift, f.value_bits)) - 1:
                    conds.append(('%s > %s' % (lv, c.cexpr(f.max_s)), 'above maximum'))
                if f.align and f.align > 1:
                    conds.append(('%s & %d' % (lv, f.align - 1), 'misaligned'))
                for cond, why in conds:
                    self.w('\tif (%s)' % cond, '\t\treturn vagx_hw_fail(err, %s %s");' % (msg, why))
        for expr, doc in s.checks:
            self.w('\tif (!(%s))' % expr, '\t\treturn vagx_hw_fail(err, "%s: %s");' % (s.name, doc.replace('"', "'")))
        self.w('\treturn 1;', '}', '')

    def raw_expr(self, f, lv):
        k = f.kind
        if k == 'bool':
            return '(uint64_t)(%s ? 1 : 0)' % lv
        if k == 'float':
            return '(uint64_t)vagx_float_to_bits(%s)' % lv
        if k == 'int':
            return '(uint64_t)(int64_t)%s' % lv
        if k == 'address' and f.shift:
            return '(uint64_t)%s >> %d' % (lv, f.shift)
        return '(uint64_t)%s' % lv

    def pack(self, s):
        self.w(*comment('Packs without checking: call %s_validate first when the values are untrusted. Writes all %d dwords.' % (s.cname, s.dwords)))
        self.w('static inline void %s_pack(uint32_t *out, const struct %s *v)' % (s.cname, s.cname), '{')
        for i in range(s.dwords):
            self.w('\tout[%d] = %s;' % (i, '0x%02xu' % s.opcode if (i == 0 and s.opcode is not None) else '0'))
        if not s.fields:
            self.w('\t(void)v;')
        for f in s.fields:
            for suf, pos in f.elements():
                lv = 'v->%s%s' % (f.name, suf)
                if f.kind == 'struct':
                    self.w('\tvagx_%s_pack(out + %d, &%s);' % (f.sub.name, pos // 32, lv))
                    continue
                ch = chunks(pos, f.size)
                self.w('\t{', '\t\tuint64_t r = %s;' % self.raw_expr(f, lv))
                for d, lo, n, vo in ch:
                    sh = '(r >> %d)' % vo if vo else 'r'
                    self.w('\t\tout[%d] |= (uint32_t)(%s & %s) << %d;' % (d, sh, hexmask((1 << n) - 1), lo))
                self.w('\t}')
        self.w('}', '')

    def unpack(self, s):
        self.w(*comment('Unpacks and validates. Returns false (with *err set if err is not NULL) for reserved bits, a wrong opcode, bad enums or out-of-range values; *v is filled in either way.'))
        self.w('static inline bool %s_unpack(const uint32_t *in, struct %s *v, const char **err)' % (s.cname, s.cname), '{',
               '\tbool ok = 1;')
        nested_dw = set()
        for f in s.fields:
            if f.kind == 'struct':
                for _, pos in f.elements():
                    nested_dw.update(range(pos // 32, pos // 32 + f.sub.dwords))
        for i in range(s.dwords):
            if i in nested_dw:
                continue
            if s.used[i] != 0xffffffff:
                self.w('\tif (ok && (in[%d] & %s))' % (i, hexmask(~s.used[i] & 0xffffffff)),
                       '\t\tok = vagx_hw_fail(err, "%s: reserved bits set in dword %d");' % (s.name, i))
        if s.opcode is not None:
            self.w('\tif (ok && (in[0] & 0xffu) != 0x%02xu)' % s.opcode,
                   '\t\tok = vagx_hw_fail(err, "%s: wrong opcode");' % s.name)
        if not s.fields:
            self.w('\tv->unused = 0;')
        for f in s.fields:
            for suf, pos in f.elements():
                lv = 'v->%s%s' % (f.name, suf)
                if f.kind == 'struct':
                    self.w('\tif (!vagx_%s_unpack(in + %d, &%s, ok ? err : (const char **)0))' % (f.sub.name, pos // 32, lv),
                           '\t\tok = 0;')
                    continue
                self.w('\t{', '\t\tuint64_t r = 0;')
                for d, lo, n, vo in chunks(pos, f.size):
                    self.w('\t\tr |= (uint64_t)((in[%d] >> %d) & %s) << %d;' % (d, lo, hexmask((1 << n) - 1), vo))
                k = f.kind
                if k == 'bool':
                    val = 'r != 0'
                elif k == 'float':
                    val = 'vagx_float_from_bits((uint32_t)r)'
                elif k == 'int':
                    # Sign-extend: (r ^ s) - s with s the sign bit.
                    val = '(%s)(int64_t)((r ^ 0x%xull) - 0x%xull)' % (f.ctype(), 1 << (f.size - 1), 1 << (f.size - 1))
                elif k == 'address':
                    val = 'r << %d' % f.shift if f.shift else 'r'
                elif k == 'enum':
                    val = '(%s)r' % f.ctype()
                else:
                    val = '(%s)r' % f.ctype()
                self.w('\t\t%s = %s;' % (lv, val), '\t}')
        self.w('\tif (ok && !%s_validate(v, err))' % s.cname, '\t\tok = 0;', '\treturn ok;', '}', '')

    def print_(self, s):
        self.w('static inline void %s_print(vagx_print_fn fn, void *ctx, const struct %s *v, unsigned indent)' % (s.cname, s.cname), '{')
        if not s.fields:
            self.w('\t(void)fn;', '\t(void)ctx;', '\t(void)v;', '\t(void)indent;')
        for f in s.fields:
            for i, (suf, _) in enumerate(f.elements()):
                lv = 'v->%s%s' % (f.name, suf)
                idx = str(i) if f.count else '-1'
                k = f.kind
                if k == 'struct':
                    self.w('\tfn(ctx, "%%*s%s%s:\\n", (int)indent, "");' % (f.name, suf))
                    self.w('\tvagx_%s_print(fn, ctx, &%s, indent + 2);' % (f.sub.name, lv))
                elif k == 'enum':
                    self.w('\tvagx_hw_print_enum(fn, ctx, indent, "%s", %s, %s_name((uint32_t)%s), (uint32_t)%s);' % (f.name, idx, f.enum.cname, lv, lv))
                elif k == 'float':
                    self.w('\tvagx_hw_print_float(fn, ctx, indent, "%s", %s, %s);' % (f.name, idx, lv))
                elif k == 'int':
                    self.w('\tvagx_hw_print_i64(fn, ctx, indent, "%s", %s);' % (f.name, lv))
                else:
                    hx = '1' if k in ('hex', 'address') else '0'
                    self.w('\tvagx_hw_print_u64(fn, ctx, indent, "%s", %s, (uint64_t)%s, %s);' % (f.name, idx, lv, hx))
        self.w('}', '')

    def commands(self):
        c = self.c
        self.w('/* ---- control-stream commands: dword 0 bits 7:0 are the opcode ---- */')
        self.w('enum vagx_cmd_opcode VAGX_ENUM_TYPE {')
        for s in c.commands:
            self.w('\tVAGX_CMD_OPCODE_%s = 0x%02x,' % (s.name[4:].upper() if s.name.startswith('cmd_') else s.upper, s.opcode))
        self.w('};', '')
        self.w('/* Size in dwords of the command starting with dword0, or 0 if the opcode is unknown. */',
               'static inline unsigned vagx_cmd_dwords(uint32_t dword0)', '{', '\tswitch (dword0 & 0xffu) {')
        for s in c.commands:
            self.w('\tcase 0x%02x: return VAGX_%s_DWORDS;' % (s.opcode, s.upper))
        self.w('\tdefault: return 0;', '\t}', '}', '')
        self.w('static inline const char *vagx_cmd_name(uint32_t dword0)', '{', '\tswitch (dword0 & 0xffu) {')
        for s in c.commands:
            self.w('\tcase 0x%02x: return "%s";' % (s.opcode, s.name))
        self.w('\tdefault: return (const char *)0;', '\t}', '}', '')
        self.w(*comment('Decodes and prints the command at dw (avail dwords readable). Returns its size in dwords, or 0 if it is invalid (unknown opcode, truncated, or rejected by unpack; the reason is printed).'))
        self.w('static inline unsigned vagx_cmd_print(vagx_print_fn fn, void *ctx, const uint32_t *dw, unsigned avail, unsigned indent)', '{',
               '\tconst char *err = (const char *)0;', '\tunsigned n;', '\tif (!avail) {',
               '\t\tfn(ctx, "%*s<truncated stream>\\n", (int)indent, "");', '\t\treturn 0;', '\t}',
               '\tn = vagx_cmd_dwords(dw[0]);', '\tif (!n || n > avail) {',
               '\t\tfn(ctx, "%*s<%s command 0x%08x>\\n", (int)indent, "", n ? "truncated" : "unknown", (unsigned)dw[0]);',
               '\t\treturn 0;', '\t}', '\tswitch (dw[0] & 0xffu) {')
        for s in c.commands:
            self.w('\tcase 0x%02x: {' % s.opcode, '\t\tstruct %s v;' % s.cname,
                   '\t\tbool ok = %s_unpack(dw, &v, &err);' % s.cname,
                   '\t\tfn(ctx, "%%*s%s%%s%%s\\n", (int)indent, "", ok ? "" : " INVALID: ", ok ? "" : err);' % s.name.upper(),
                   '\t\t%s_print(fn, ctx, &v, indent + 2);' % s.cname,
                   '\t\treturn ok ? n : 0;', '\t}')
        self.w('\tdefault: return 0;', '\t}', '}', '')


# --------------------------------------------------------------------------
# Test support (random valid values, poison cases): tests/unit/hw only
# --------------------------------------------------------------------------

def gen_tests(c):
    o = ['/* GENERATED by uapi/hw/gen_hw.py for tests/unit/hw. DO NOT EDIT. */',
         '#include "vagx_hw.h"', '#include <string.h>', '',
         'static uint64_t vt_rand(uint64_t *s)', '{',
         '\t*s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;', '\treturn *s;', '}', '',
         '/* Random value in [lo, hi] biased towards the limits, multiple of align. */',
         'static uint64_t vt_range(uint64_t *s, uint64_t lo, uint64_t hi, uint64_t align)', '{',
         '\tuint64_t v;', '\tswitch (vt_rand(s) % 4) {', '\tcase 0: v = lo; break;', '\tcase 1: v = hi; break;',
         '\tdefault: v = hi - lo == ~0ull ? vt_rand(s) : lo + vt_rand(s) % (hi - lo + 1); break;', '\t}',
         '\tv &= ~(align - 1);', '\tif (v < lo)', '\t\tv += align;', '\treturn v;', '}', '']
    for s in c.structs:
        o.append('static void vt_random_%s(struct %s *v, uint64_t *s);' % (s.name, s.cname))
    o.append('')
    for s in c.structs:
        o += ['static void vt_random_%s_once(struct %s *v, uint64_t *s)' % (s.name, s.cname), '{', '\t(void)s;', '\t%s_init(v);' % s.cname]
        for f in s.fields:
            for suf, _ in f.elements():
                lv = 'v->%s%s' % (f.name, suf)
                k = f.kind
                if k == 'struct':
                    o.append('\tvt_random_%s(&%s, s);' % (f.sub.name, lv))
                elif k == 'enum':
                    vals = ', '.join(str(v) for _, v, _, _ in f.enum.values)
                    o += ['\t{', '\t\tstatic const uint32_t vals[] = { %s };' % vals,
                          '\t\t%s = (%s)vals[vt_rand(s) %% (sizeof(vals) / sizeof(vals[0]))];' % (lv, f.ctype()), '\t}']
                elif k == 'bool':
                    o.append('\t%s = vt_rand(s) & 1;' % lv)
                elif k == 'float':
                    o.append('\t%s = (float)((int)(vt_rand(s) %% 2001) - 1000) / 8.0f;' % lv)
                elif k == 'int':
                    lo = -(1 << (f.size - 1))
                    hi = (1 << (f.size - 1)) - 1
                    o.append('\t%s = (%s)((int64_t)vt_range(s, 0, %dull, 1) + (%dll));' % (lv, f.ctype(), hi - lo, lo))
                else:
                    width = f.size + f.shift
                    hi = min((1 << width) - 1, f.max if f.max is not None else (1 << 64) - 1)
                    lo = f.min or 0
                    al = max(f.align or 1, 1 << f.shift)
                    o.append('\t%s = (%s)vt_range(s, %dull, %dull, %dull);' % (lv, f.ctype(), lo, hi, al))
        o += ['}', '']
        o += ['static void vt_random_%s(struct %s *v, uint64_t *s)' % (s.name, s.cname), '{',
              '\tfor (int i = 0; i < 10000; i++) {', '\t\tvt_random_%s_once(v, s);' % s.name,
              '\t\tif (%s_validate(v, NULL))' % s.cname, '\t\t\treturn;', '\t}', '}', '']
        # field-wise equality
        o += ['static bool vt_equal_%s(const struct %s *a, const struct %s *b)' % (s.name, s.cname, s.cname), '{']
        for f in s.fields:
            for suf, _ in f.elements():
                if f.kind == 'struct':
                    o.append('\tif (!vt_equal_%s(&a->%s%s, &b->%s%s)) return false;' % (f.sub.name, f.name, suf, f.name, suf))
                elif f.kind == 'float':
                    o.append('\tif (vagx_float_to_bits(a->%s%s) != vagx_float_to_bits(b->%s%s)) return false;' % (f.name, suf, f.name, suf))
                else:
                    o.append('\tif (a->%s%s != b->%s%s) return false;' % (f.name, suf, f.name, suf))
        o += ['\t(void)a; (void)b;', '\treturn true;', '}', '']
    # poison cases: (struct, dword, shift, mask, raw) that must be rejected
    o += ['struct vt_poison { unsigned dw, shift; uint32_t mask, raw; const char *what; };', '']
    for s in c.structs:
        cases = []
        for f in s.fields:
            if f.kind == 'struct':
                continue
            for suf, pos in f.elements():
                d, lo = pos // 32, pos % 32
                if f.kind == 'address' and f.align and f.align > 1 and not f.shift:
                    cases.append('\t{ %d, %d, 0x1u, 0x1u, "%s%s misaligned" },' % (d, lo, f.name, suf))
                if lo + f.size > 32:
                    continue
                mask = (1 << f.size) - 1
                bad = []
                if f.kind == 'enum':
                    valid = {v for _, v, _, _ in f.enum.values}
                    bad = [x for x in range(min(mask + 1, 256)) if x not in valid][:3]
                elif f.kind in ('uint', 'hex'):
                    if f.max is not None and f.max < mask:
                        bad.append(f.max + 1)
                    if f.min:
                        bad.append(f.min - 1)
                    if f.align and f.align > 1 and f.size > 1:
                        bad.append(1)
                for b in bad:
                    cases.append('\t{ %d, %d, 0x%xu, 0x%xu, "%s%s=%d" },' % (d, lo, mask, b, f.name, suf, b))
        o.append('static const struct vt_poison vt_poison_%s[] = {' % s.name)
        o += cases or ['\t{ 0, 0, 0, 0, NULL },']
        o += ['};', '']
    o += ['struct vt_struct {', '\tconst char *name;', '\tunsigned dwords;', '\tconst uint32_t *used;',
          '\tconst struct vt_poison *poison;', '\tunsigned npoison;', '\tconst char *const *fields;', '\tint opcode;',
          '\tvoid (*random)(void *v, uint64_t *s);', '\tvoid (*pack)(uint32_t *out, const void *v);',
          '\tbool (*unpack)(const uint32_t *in, void *v, const char **err);', '\tbool (*equal)(const void *a, const void *b);',
          '\tvoid (*print)(vagx_print_fn fn, void *ctx, const void *v, unsigned indent);', '\tsize_t size;', '};', '']
    for s in c.structs:
        n = s.name
        used = ', '.join('0x%08xu' % u for u in s.used)
        o.append('static const uint32_t vt_used_%s[] = { %s };' % (n, used))
        o.append('static const char *const vt_fields_%s[] = { %s NULL };' % (n, ''.join('"%s", ' % f.name for f in s.fields)))
        o += ['static void vt_w_random_%s(void *v, uint64_t *s) { vt_random_%s((struct %s *)v, s); }' % (n, n, s.cname),
              'static void vt_w_pack_%s(uint32_t *o, const void *v) { %s_pack(o, (const struct %s *)v); }' % (n, s.cname, s.cname),
              'static bool vt_w_unpack_%s(const uint32_t *i, void *v, const char **e) { return %s_unpack(i, (struct %s *)v, e); }' % (n, s.cname, s.cname),
              'static bool vt_w_equal_%s(const void *a, const void *b) { return vt_equal_%s((const struct %s *)a, (const struct %s *)b); }' % (n, n, s.cname, s.cname),
              'static void vt_w_print_%s(vagx_print_fn fn, void *ctx, const void *v, unsigned ind) { %s_print(fn, ctx, (const struct %s *)v, ind); }' % (n, s.cname, s.cname)]
    o.append('')
    o.append('static const struct vt_struct vt_structs[] = {')
    for s in c.structs:
        n = s.name
        o.append('\t{ "%s", %d, vt_used_%s, vt_poison_%s, sizeof(vt_poison_%s) / sizeof(vt_poison_%s[0]), vt_fields_%s, %d, vt_w_random_%s, vt_w_pack_%s, vt_w_unpack_%s, vt_w_equal_%s, vt_w_print_%s, sizeof(struct %s) },'
                 % (n, s.dwords, n, n, n, n, n, s.opcode if s.opcode is not None else -1, n, n, n, n, n, s.cname))
    o += ['};', '#define VT_NUM_STRUCTS %d' % len(c.structs), '']
    return '\n'.join(o) + '\n'


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------

def md(s):
    return (s or '').replace('|', '\\|').replace('\n', ' ')


def doc_sections(c):
    """name -> markdown text of each generated section."""
    sec = {}
    pages = {}
    for name, v, doc, page in c.consts:
        pages.setdefault(page, []).append('| `VAGX_%s` | %s | %s |' % (name, hex(v) if v > 255 else v, md(doc)))
    for page, rows in pages.items():
        sec['consts-' + page] = '| constant | value | meaning |\n|---|---|---|\n' + '\n'.join(rows) + '\n'
    for e in c.enums:
        head = '| value | name | ' + ''.join('%s | ' % a for a in e.attrs) + 'meaning |'
        sep = '|---|---|' + '---|' * len(e.attrs) + '---|'
        rows = ['| %d | `%s` | %s%s |' % (v, n, ''.join('%s | ' % a[x] for x in e.attrs), md(d)) for n, v, d, a in e.values]
        sec['enum-' + e.name] = '**enum %s** (`%s`) %s\n\n' % (e.name, e.cname, md(e.doc)) + '\n'.join([head, sep] + rows) + '\n'

    def bits(f):
        return '%d' % f.bit if f.size == 1 and not f.count else '%d:%d' % (f.bit + f.size * (f.count or 1) - 1, f.bit)
    rows = ['| offset | name | access | reset | fields | description |', '|---|---|---|---|---|---|']
    for r in c.regs:
        fl = '<br>'.join('`%s` [%s]%s' % (f.name, bits(f), ' ×%d' % f.count if f.count else '') for f in r.fields)
        rows.append('| 0x%03x | `%s` | %s | %s | %s | %s |' % (r.offset, r.name, r.access, r.reset if r.reset is not None else '-', fl, md(r.doc)))
    sec['regs-global'] = '\n'.join(rows) + '\n'
    for b in c.blocks:
        rows = ['Block `%s`: base `VAGX_%s` (0x%x), stride 0x%x, %d blocks. %s' % (b.name, b.base_s, b.base, b.stride, b.count, md(b.doc)), '',
                '| offset in block | name | access | reset | fields | description |', '|---|---|---|---|---|---|']
        for r in b.regs:
            fl = '<br>'.join('`%s` [%s]' % (f.name, bits(f)) for f in r.fields)
            rows.append('| 0x%02x | `%s_%s` | %s | %s | %s | %s |' % (r.offset, b.name, r.name, r.access, r.reset if r.reset is not None else '-', fl, md(r.doc)))
        sec['regs-block-' + b.name] = '\n'.join(rows) + '\n'
    rows = []
    for fs in c.fieldsets.values():
        rows += ['Bit layout `%s` (%s)' % (fs.name, md(fs.doc)), '', '| bits | name | meaning |', '|---|---|---|']
        for f in fs.fields:
            rows.append('| %s | `%s`%s | %s |' % (bits(f), f.name, '[q]' if f.count else '', md(f.doc)))
        rows.append('')
    sec['regs-fieldsets'] = '\n'.join(rows)
    for r in c.regs + [r for b in c.blocks for r in b.regs]:
        if r.fields and not r.fieldset:
            pass
    rows = []
    for r in c.regs + [r for b in c.blocks for r in b.regs]:
        if not r.fields or r.fieldset:
            continue
        rows += ['#### %s%s' % (r.block + '_' if r.block else '', r.name), '', '| bits | field | type | meaning |', '|---|---|---|---|']
        for f in r.fields:
            rows.append('| %s | `%s` | %s | %s |' % (bits(f), f.name, f.type or 'uint', md(f.doc)))
        rows.append('')
    sec['regs-fields'] = '\n'.join(rows)
    for s in c.structs:
        rows = ['#### `%s` — %d bytes%s' % (s.name, s.dwords * 4, ', opcode 0x%02x' % s.opcode if s.opcode is not None else ''), '',
                md(s.doc), '', '| dword | bits | field | type | range / align | meaning |', '|---|---|---|---|---|---|']
        if s.opcode is not None:
            rows.append('| 0 | 7:0 | *opcode* | const | 0x%02x | command opcode |' % s.opcode)
        for f in s.fields:
            hi = f.pos + f.size * (f.count or 1) - 1
            if f.count:
                where = '%d..%d' % (f.dw, hi // 32)
                b = '%d bits ×%d' % (f.size, f.count)
            elif f.size >= 32 and f.bit == 0 and f.size % 32 == 0:
                where = '%d' % f.dw if f.size == 32 else '%d..%d' % (f.dw, hi // 32)
                b = '31:0' if f.size == 32 else '%d bits' % f.size
            else:
                where = '%d' % f.dw if hi // 32 == f.dw else '%d..%d' % (f.dw, hi // 32)
                b = '%d' % f.bit if f.size == 1 else '%d:%d' % (f.bit + f.size - 1 if hi // 32 == f.dw else (f.pos + f.size - 1) - f.dw * 32, f.bit)
            rng = []
            if f.min is not None:
                rng.append('≥ %s' % f.min_s)
            if f.max is not None:
                rng.append('≤ %s' % f.max_s)
            if f.align:
                rng.append('align %d' % f.align)
            if f.shift:
                rng.append('stored >> %d' % f.shift)
            t = f.type if f.kind in SCALAR_TYPES else ('enum `%s`' % f.type if f.kind == 'enum' else 'struct `%s`' % f.type)
            rows.append('| %s | %s | `%s` | %s | %s | %s |' % (where, b, f.name, t, ', '.join(rng), md(f.doc)))
        for expr, doc in s.checks:
            rows.append('| | | *rule* | | `%s` | %s |' % (md(expr), md(doc)))
        rows.append('')
        rows.append('Bits not listed are reserved: write 0; the device rejects a non-zero value.')
        sec['struct-' + s.name] = '\n'.join(rows) + '\n'
    return sec


BEGIN_RE = re.compile(r'<!-- BEGIN GENERATED ([\w-]+) -->\n.*?<!-- END GENERATED \1 -->', re.S)


def update_docs(c, docdir, check):
    sec = doc_sections(c)
    stale = []
    used = set()
    for fn in sorted(os.listdir(docdir)):
        if not fn.endswith('.md'):
            continue
        p = os.path.join(docdir, fn)
        text = open(p, encoding='utf-8').read()

        def rep(m):
            name = m.group(1)
            if name not in sec:
                raise Error('%s: unknown generated section %s' % (fn, name))
            used.add(name)
            return '<!-- BEGIN GENERATED %s -->\n%s<!-- END GENERATED %s -->' % (name, sec[name], name)
        new = BEGIN_RE.sub(rep, text)
        if new != text:
            stale.append(fn)
            if not check:
                open(p, 'w', encoding='utf-8').write(new)
    missing = sorted(set(sec) - used)
    return stale, missing


def write_if_changed(path, text):
    try:
        if open(path, encoding='utf-8').read() == text:
            return
    except OSError:
        pass
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--xml', required=True)
    ap.add_argument('--out', help='directory for vagx_hw.h')
    ap.add_argument('--test-out', help='directory for vagx_hw_testgen.h')
    ap.add_argument('--doc', help='docs/hw directory whose generated sections are rewritten')
    ap.add_argument('--doc-check', help='like --doc but only report stale pages (exit 1)')
    a = ap.parse_args()
    try:
        c = Contract(a.xml)
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            write_if_changed(os.path.join(a.out, 'vagx_hw.h'), CWriter(c).header())
        if a.test_out:
            os.makedirs(a.test_out, exist_ok=True)
            write_if_changed(os.path.join(a.test_out, 'vagx_hw_testgen.h'), gen_tests(c))
        if a.doc:
            stale, missing = update_docs(c, a.doc, False)
            for m in missing:
                print('note: generated section %s not used by any page' % m, file=sys.stderr)
        if a.doc_check:
            stale, missing = update_docs(c, a.doc_check, True)
            if stale or missing:
                print('stale docs: %s; sections missing from docs: %s (run gen_hw.py --doc)' % (stale, missing), file=sys.stderr)
                return 1
    except (Error, ET.ParseError, KeyError) as e:
        print('gen_hw.py: %s: error: %s' % (a.xml, e), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
