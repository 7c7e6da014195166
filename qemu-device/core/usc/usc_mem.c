/* Memory instruction handlers: device memory through the translate callback
 * (with a one-entry cache per access kind for the run), threadgroup memory as a
 * bounds-checked byte array.  Lanes access memory in ascending lane order. */
#include "usc_priv.h"

#define HANDLER(name) static void name(struct usc_grp *g, const struct usc_op *o)

static uint8_t *xlate(struct usc_grp *g, const struct usc_op *o, uint64_t va, uint32_t size,
                      unsigned acc)
{
   struct usc_run *run = g->run;
   struct usc_tlb *t = (acc & VAGX_USC_ACC_WRITE) ? &run->tlb_w : &run->tlb_r;
   if (va >= t->va && va + size <= t->end && va + size > va)
      return t->host + (va - t->va);
   uint64_t span = 0;
   void *p = NULL;
   if (run->env->mem && run->env->mem->translate && va + size > va)
      p = run->env->mem->translate(run->env->mem_ctx, va, size, acc, &span);
   if (!p) {
      usc_fault(g, o, va, acc);
      return NULL;
   }
   if (span < size)
      span = size;
   t->va = va;
   t->end = va + span;
   t->host = p;
   return p;
}

static inline uint32_t ld_u32(const uint8_t *p)
{
   uint32_t v;
   memcpy(&v, p, 4);
   return v;
}

/* Loads one lane's value (n registers) from p according to memsize. */
static inline void load_value(const uint8_t *p, unsigned size, uint32_t v[4])
{
   switch (size) {
   case VAGX_MEMSIZE_U8: v[0] = p[0]; break;
   case VAGX_MEMSIZE_S8: v[0] = (uint32_t)(int32_t)(int8_t)p[0]; break;
   case VAGX_MEMSIZE_U16: v[0] = (uint32_t)p[0] | (uint32_t)p[1] << 8; break;
   case VAGX_MEMSIZE_S16: v[0] = (uint32_t)(int32_t)(int16_t)(p[0] | p[1] << 8); break;
   default:
      for (unsigned k = 0; k < vagx_memsize_regs[size]; k++)
         v[k] = ld_u32(p + 4 * k);
      break;
   }
}

static inline void store_value(uint8_t *p, unsigned size, const uint32_t v[4])
{
   switch (size) {
   case VAGX_MEMSIZE_U8:
   case VAGX_MEMSIZE_S8: p[0] = (uint8_t)v[0]; break;
   case VAGX_MEMSIZE_U16:
   case VAGX_MEMSIZE_S16: p[0] = (uint8_t)v[0]; p[1] = (uint8_t)(v[0] >> 8); break;
   default: memcpy(p, v, 4u * vagx_memsize_regs[size]); break;
   }
}

static inline unsigned align_of(unsigned bytes)
{
   return bytes < 4 ? bytes : 4;
}

/* The access size of a load/store (its mod field): encoding, bytes moved per
 * lane and registers per lane. */
struct memsize {
   unsigned size, bytes, n;
};

static inline struct memsize memsize_of(const struct vagx_instr *I)
{
   const unsigned size = I->mod & 7;
   return (struct memsize){ size, vagx_memsize_bytes[size], vagx_memsize_regs[size] };
}

/* 64-bit address of lane l from the register pair of source 0. */
static inline uint64_t addr64(const struct usc_grp *g, const struct usc_op *o, int l)
{
   const uint32_t *lo = g->base[o->src[0].bfile] + (size_t)o->src[0].idx * L;
   return (uint64_t)lo[l] | (uint64_t)lo[l + L] << 32;
}

/* Lane l's address of a global load/store (source 0's pair plus the signed
 * offset off[l]) into *va; false after the fault when it is not aligned to
 * the access. */
static inline bool global_va(struct usc_grp *g, const struct usc_op *o, const uint32_t *off, int l,
                             unsigned bytes, unsigned acc, uint64_t *va)
{
   *va = addr64(g, o, l) + (uint64_t)(int64_t)(int32_t)off[l];
   if (*va & (align_of(bytes) - 1)) {
      usc_fault(g, o, *va, acc | VAGX_USC_ACC_UNALIGNED);
      return false;
   }
   return true;
}

/* Fast path of global loads/stores: computes every lane's address into va[]
 * and, when all active lanes are aligned and fall in one cached translation,
 * returns that TLB entry (one translation per instruction instead of per lane);
 * *contig tells that every lane is active at va[0] + lane * bytes (unit
 * stride: one block copy for b32).  Returns NULL when the per-lane path must
 * run (misaligned lanes, several pages), or with *faulted set after the same
 * fault the per-lane path would have reported first (the first active lane's
 * translation). */
static struct usc_tlb *mem_fast(struct usc_grp *g, const struct usc_op *o, const uint32_t *off,
                                unsigned bytes, unsigned acc, uint64_t va[L], int *faulted,
                                int *contig)
{
   const uint32_t *lo = g->base[o->src[0].bfile] + (size_t)o->src[0].idx * L, *hi = lo + L;
   const uint32_t exec = g->exec;
   uint64_t mn = UINT64_MAX, mx = 0, mis = 0;
   *faulted = 0;
   *contig = 0;
   if (exec == ~0u) {
      /* Unit stride from one base address is the common case: checked in
       * 32-bit lanes (every lane's pair equals lane 0's and its offset is lane
       * 0's + lane * bytes), with lane 0's offset far enough from INT32_MAX
       * that the sign-extended offsets are consecutive too.  Its range needs
       * no per-lane 64-bit addresses nor min/max scan. */
      const uint32_t lo0 = lo[0], hi0 = hi[0], off0 = off[0];
      uint32_t bad = 0, step = 0;
      for (int l = 0; l < L; l++, step += bytes)
         bad |= (lo[l] ^ lo0) | (hi[l] ^ hi0) | (off[l] - off0 - step);
      if (!bad && (int32_t)off[0] <= INT32_MAX - (int32_t)(L * bytes)) {
         *contig = 1;
         mn = mis = ((uint64_t)lo[0] | (uint64_t)hi[0] << 32) + (uint64_t)(int64_t)(int32_t)off[0];
         mx = mn + (uint64_t)(L - 1) * bytes;
         va[0] = mn;
         if (bytes != 4) /* b32 copies the block, other sizes go lane by lane */
            for (int l = 1; l < L; l++)
               va[l] = mn + (uint64_t)l * bytes;
         if (mx < mn)
            return NULL;
         goto range;
      }
   }
   for (int l = 0; l < L; l++)
      va[l] = ((uint64_t)lo[l] | (uint64_t)hi[l] << 32) + (uint64_t)(int64_t)(int32_t)off[l];
   for (int l = 0; l < L; l++) {
      uint64_t m = 0 - (uint64_t)((exec >> l) & 1), v = va[l];
      mis |= v & m;
      mn = (v | ~m) < mn ? (v | ~m) : mn;
      mx = (v & m) > mx ? (v & m) : mx;
   }
range:
   if (!exec || (mis & (align_of(bytes) - 1)) || mx + bytes < mx)
      return NULL;
   struct usc_run *run = g->run;
   struct usc_tlb *t = (acc & VAGX_USC_ACC_WRITE) ? &run->tlb_w : &run->tlb_r;
   if (!(mn >= t->va && mx + bytes <= t->end)) {
      /* First word only: a wider access may straddle two pages that are not
       * contiguous in host memory, which only the per-lane path handles. */
      if (!xlate(g, o, va[__builtin_ctz(exec)], align_of(bytes), acc)) {
         *faulted = 1;
         return NULL;
      }
      if (!(mn >= t->va && mx + bytes <= t->end))
         return NULL;
   }
   return t;
}

HANDLER(op_ld_global)
{
   const struct memsize ms = memsize_of(&o->I);
   uint32_t t1[L];
   uint64_t va[L];
   const uint32_t *off = usc_src(g, o, 1, t1);
   uint32_t *d = g->r + (size_t)o->dst * L;
   int faulted, contig;
   struct usc_tlb *t = mem_fast(g, o, off, ms.bytes, VAGX_USC_ACC_READ, va, &faulted, &contig);
   if (faulted)
      return;
   if (t) {
      if (ms.n == 1 && ms.bytes == 4 && contig) {
         memcpy(d, t->host + (va[0] - t->va), L * 4);
         return;
      }
      for (uint32_t m = g->exec; m; m &= m - 1) {
         int l = __builtin_ctz(m);
         uint32_t v[4];
         load_value(t->host + (va[l] - t->va), ms.size, v);
         for (unsigned k = 0; k < ms.n; k++)
            d[k * L + l] = v[k];
      }
      return;
   }
   for (uint32_t m = g->exec; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint64_t a;
      uint32_t v[4];
      if (!global_va(g, o, off, l, ms.bytes, VAGX_USC_ACC_READ, &a))
         return;
      if (ms.n > 1) {
         /* Wider than a word but only word-aligned: it may straddle a page
          * boundary into a page that is not contiguous in host memory, so go
          * word by word (a word never straddles). */
         for (unsigned k = 0; k < ms.n; k++) {
            const uint8_t *pw = xlate(g, o, a + 4 * k, 4, VAGX_USC_ACC_READ);
            if (!pw)
               return;
            v[k] = ld_u32(pw);
         }
      } else {
         const uint8_t *p = xlate(g, o, a, ms.bytes, VAGX_USC_ACC_READ);
         if (!p)
            return;
         load_value(p, ms.size, v);
      }
      for (unsigned k = 0; k < ms.n; k++)
         d[k * L + l] = v[k];
   }
}

HANDLER(op_st_global)
{
   const struct memsize ms = memsize_of(&o->I);
   uint32_t t1[L];
   uint64_t va[L];
   const uint32_t *off = usc_src(g, o, 1, t1);
   const uint32_t *s = g->r + (size_t)o->src[2].idx * L;
   int faulted, contig;
   struct usc_tlb *t = mem_fast(g, o, off, ms.bytes, VAGX_USC_ACC_WRITE, va, &faulted, &contig);
   if (faulted)
      return;
   if (t) {
      if (ms.n == 1 && ms.bytes == 4 && contig) {
         memcpy(t->host + (va[0] - t->va), s, L * 4);
         return;
      }
      /* Ascending lane order: the highest lane wins on overlap. */
      for (uint32_t m = g->exec; m; m &= m - 1) {
         int l = __builtin_ctz(m);
         uint32_t v[4];
         for (unsigned k = 0; k < ms.n; k++)
            v[k] = s[k * L + l];
         store_value(t->host + (va[l] - t->va), ms.size, v);
      }
      return;
   }
   for (uint32_t m = g->exec; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint64_t a;
      uint32_t v[4];
      if (!global_va(g, o, off, l, ms.bytes, VAGX_USC_ACC_WRITE, &a))
         return;
      for (unsigned k = 0; k < ms.n; k++)
         v[k] = s[k * L + l];
      if (ms.n > 1) {
         /* word by word: see op_ld_global */
         for (unsigned k = 0; k < ms.n; k++) {
            uint8_t *pw = xlate(g, o, a + 4 * k, 4, VAGX_USC_ACC_WRITE);
            if (!pw)
               return;
            memcpy(pw, &v[k], 4);
         }
      } else {
         uint8_t *p = xlate(g, o, a, ms.bytes, VAGX_USC_ACC_WRITE);
         if (!p)
            return;
         store_value(p, ms.size, v);
      }
   }
}

/* Atomic read-modify-write; `shared` memory is private to this host thread. */
static inline uint32_t atom_apply(unsigned aop, uint32_t *p, uint32_t v, uint32_t cmp, int shared)
{
   uint32_t old, nv;
   if (shared) {
      old = *p;
   } else {
      switch (aop) {
      case VAGX_ATOMOP_ADD: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
      case VAGX_ATOMOP_AND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
      case VAGX_ATOMOP_OR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
      case VAGX_ATOMOP_XOR: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
      case VAGX_ATOMOP_XCHG: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
      case VAGX_ATOMOP_CMPXCHG:
         old = cmp;
         __atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
         return old;
      default: break;
      }
      old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
   }
   for (;;) {
      switch (aop) {
      case VAGX_ATOMOP_ADD: nv = old + v; break;
      case VAGX_ATOMOP_SMIN: nv = (int32_t)v < (int32_t)old ? v : old; break;
      case VAGX_ATOMOP_SMAX: nv = (int32_t)v > (int32_t)old ? v : old; break;
      case VAGX_ATOMOP_UMIN: nv = v < old ? v : old; break;
      case VAGX_ATOMOP_UMAX: nv = v > old ? v : old; break;
      case VAGX_ATOMOP_AND: nv = old & v; break;
      case VAGX_ATOMOP_OR: nv = old | v; break;
      case VAGX_ATOMOP_XOR: nv = old ^ v; break;
      case VAGX_ATOMOP_XCHG: nv = v; break;
      default: nv = old == cmp ? v : old; break; /* cmpxchg */
      }
      if (shared) {
         *p = nv;
         return old;
      }
      if (__atomic_compare_exchange_n(p, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
         return old;
   }
}

HANDLER(op_atom_global)
{
   uint32_t t1[L], t2[L], r[L] = { 0 };
   const uint32_t *v = usc_src(g, o, 1, t1), *c = usc_src(g, o, 2, t2);
   for (uint32_t m = g->exec; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint64_t va = addr64(g, o, l);
      unsigned acc = VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE;
      if (va & 3) {
         usc_fault(g, o, va, acc | VAGX_USC_ACC_UNALIGNED);
         return;
      }
      uint8_t *p = xlate(g, o, va, 4, acc);
      if (!p)
         return;
      r[l] = atom_apply(o->I.mod, (uint32_t *)(void *)p, v[l], c[l], 0);
   }
   usc_wb(g, o, r);
}

/* Threadgroup memory address check: returns the host pointer or faults. */
static uint8_t *shared_ptr(struct usc_grp *g, const struct usc_op *o, uint64_t a, unsigned bytes,
                           unsigned acc)
{
   acc |= VAGX_USC_ACC_SHARED;
   if (a & (align_of(bytes) - 1)) {
      usc_fault(g, o, a, acc | VAGX_USC_ACC_UNALIGNED);
      return NULL;
   }
   if (a + bytes > g->run->shared_size) {
      usc_fault(g, o, a, acc);
      return NULL;
   }
   return g->run->shared + a;
}

HANDLER(op_ld_shared)
{
   const struct memsize ms = memsize_of(&o->I);
   uint32_t t0[L], t1[L];
   const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1);
   uint32_t *d = g->r + (size_t)o->dst * L;
   for (uint32_t m = g->exec; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint32_t v[4];
      const uint8_t *p = shared_ptr(g, o, (uint64_t)a[l] + b[l], ms.bytes, VAGX_USC_ACC_READ);
      if (!p)
         return;
      load_value(p, ms.size, v);
      for (unsigned k = 0; k < ms.n; k++)
         d[k * L + l] = v[k];
   }
}

HANDLER(op_st_shared)
{
   const struct memsize ms = memsize_of(&o->I);
   uint32_t t0[L], t1[L];
   const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1);
   const uint32_t *s = g->r + (size_t)o->src[2].idx * L;
   for (uint32_t m = g->exec; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint32_t v[4];
      uint8_t *p = shared_ptr(g, o, (uint64_t)a[l] + b[l], ms.bytes, VAGX_USC_ACC_WRITE);
      if (!p)
         return;
      for (unsigned k = 0; k < ms.n; k++)
         v[k] = s[k * L + l];
      store_value(p, ms.size, v);
   }
}

HANDLER(op_atom_shared)
{
   uint32_t t0[L], t1[L], t2[L], r[L] = { 0 };
   const uint32_t *a = usc_src(g, o, 0, t0), *v = usc_src(g, o, 1, t1);
   const uint32_t *c = usc_src(g, o, 2, t2);
   for (uint32_t m = g->exec; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint8_t *p = shared_ptr(g, o, a[l], 4, VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE);
      if (!p)
         return;
      r[l] = atom_apply(o->I.mod, (uint32_t *)(void *)p, v[l], c[l], 1);
   }
   usc_wb(g, o, r);
}

/* The lane's private stack (stack_ld/stack_st): rows of 32 lanes' words
 * after the registers, so a b32 access is one masked row copy.  The byte
 * offset is an immediate, the same for every lane: one check against the
 * descriptor's stack_size per instruction; beyond it, or misaligned, the
 * access faults before touching anything. */
static uint32_t *stack_row(struct usc_grp *g, const struct usc_op *o, unsigned bytes,
                           unsigned acc, unsigned *shift)
{
   const uint32_t off = o->I.imm[1] & 0xffffu;
   acc |= VAGX_USC_ACC_STACK;
   if (off & (align_of(bytes) - 1)) {
      usc_fault(g, o, off, acc | VAGX_USC_ACC_UNALIGNED);
      return NULL;
   }
   if (off + bytes > g->run->stack_size) {
      usc_fault(g, o, off, acc);
      return NULL;
   }
   *shift = (off & 3) * 8;
   return g->pstack + (size_t)(off / 4) * L;
}

HANDLER(op_stack_ld)
{
   const struct memsize ms = memsize_of(&o->I);
   unsigned sh;
   const uint32_t *row = stack_row(g, o, ms.bytes, VAGX_USC_ACC_READ, &sh);
   if (!row)
      return;
   uint32_t *d = g->r + (size_t)o->dst * L;
   if (ms.bytes >= 4) {
      for (unsigned k = 0; k < ms.n; k++)
         usc_merge_lanes(d + (size_t)k * L, row + (size_t)k * L, g->lmask);
      return;
   }
   uint32_t v[L];
   for (int l = 0; l < L; l++) {
      const uint32_t x = row[l] >> sh;
      switch (ms.size) {
      case VAGX_MEMSIZE_U8: v[l] = x & 0xff; break;
      case VAGX_MEMSIZE_S8: v[l] = (uint32_t)(int32_t)(int8_t)x; break;
      case VAGX_MEMSIZE_U16: v[l] = x & 0xffff; break;
      default: v[l] = (uint32_t)(int32_t)(int16_t)x; break;
      }
   }
   usc_merge_lanes(d, v, g->lmask);
}

HANDLER(op_stack_st)
{
   const struct memsize ms = memsize_of(&o->I);
   unsigned sh;
   uint32_t *row = stack_row(g, o, ms.bytes, VAGX_USC_ACC_WRITE, &sh);
   if (!row)
      return;
   const uint32_t *s = g->r + (size_t)o->src[0].idx * L;
   if (ms.bytes >= 4) {
      for (unsigned k = 0; k < ms.n; k++)
         usc_merge_lanes(row + (size_t)k * L, s + (size_t)k * L, g->lmask);
      return;
   }
   /* 8/16-bit stores replace only their bytes of the word */
   const uint32_t bm = (ms.bytes == 1 ? 0xffu : 0xffffu) << sh;
   uint32_t v[L], m[L];
   for (int l = 0; l < L; l++) {
      v[l] = s[l] << sh;
      m[l] = g->lmask[l] & bm;
   }
   usc_merge_lanes(row, v, m);
}

/* Fences order memory; host accesses of one thread are already ordered and
 * device atomics are sequentially consistent, so only a compiler/CPU fence. */
HANDLER(op_fence)
{
   (void)g;
   (void)o;
   __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Ganged unit-stride b32 global access (usc_gtry, run by the lockstep loop
 * of usc_exec.c): when every group has all 32 lanes active at one base pair
 * with offsets lane 0's + 4 * lane (the check of mem_fast), aligned, and one
 * cached translation covers every group's 128 bytes, each group is one
 * 128-byte copy in ascending group order (the last group wins on overlapping
 * stores, as group by group).  The range check and at most one translation
 * are shared by the threadgroup instead of paid per group with a dispatch.
 * Anything else (partial masks, other strides, several pages, a failing
 * translation) returns NULL with nothing observable done, and the per-group
 * handlers run: they translate the same first word first and report faults
 * exactly as before. */
#define GANG_MAX (VAGX_USC_MAX_TG_THREADS / L)
static struct usc_tlb *gang_range(struct usc_grp *g, unsigned n, const struct usc_op *o,
                                  unsigned acc, uint64_t *va)
{
   uint64_t mn = UINT64_MAX, mx = 0;
   if (n > GANG_MAX)
      return NULL;
   for (unsigned i = 0; i < n; i++) {
      const struct usc_grp *gi = &g[i];
      if (gi->exec != ~0u)
         return NULL;
      uint32_t t1[L];
      const uint32_t *off = usc_src(gi, o, 1, t1);
      const uint32_t *lo = gi->base[o->src[0].bfile] + (size_t)o->src[0].idx * L, *hi = lo + L;
      const uint32_t lo0 = lo[0], hi0 = hi[0], off0 = off[0];
      uint32_t bad = 0;
      for (int l = 0; l < L; l++) /* no loop-carried step: vectorises */
         bad |= off[l] - off0 - 4u * (uint32_t)l;
      /* Uniforms and immediates are broadcast, read-only: equal in every lane. */
      if (o->src[0].bfile != USC_B_U && o->src[0].bfile != USC_B_IMM)
         for (int l = 0; l < L; l++)
            bad |= (lo[l] ^ lo0) | (hi[l] ^ hi0);
      if (bad || (int32_t)off0 > INT32_MAX - (int32_t)(L * 4))
         return NULL;
      const uint64_t a = ((uint64_t)lo0 | (uint64_t)hi0 << 32) + (uint64_t)(int64_t)(int32_t)off0;
      if ((a & 3) || a + L * 4 <= a)
         return NULL;
      va[i] = a;
      mn = a < mn ? a : mn;
      mx = a + L * 4 > mx ? a + L * 4 : mx;
   }
   struct usc_run *run = g->run;
   struct usc_tlb *t = (acc & VAGX_USC_ACC_WRITE) ? &run->tlb_w : &run->tlb_r;
   if (mn >= t->va && mx <= t->end)
      return t;
   /* What group 0's handler would translate first: its first word. */
   uint64_t span = 0;
   void *p = NULL;
   if (run->env->mem && run->env->mem->translate)
      p = run->env->mem->translate(run->env->mem_ctx, va[0], 4, acc, &span);
   if (!p)
      return NULL;
   t->va = va[0];
   t->end = va[0] + (span < 4 ? 4 : span);
   t->host = p;
   return mn >= t->va && mx <= t->end ? t : NULL;
}

static bool gtry_ld_global(struct usc_grp *g, unsigned n, const struct usc_op *o)
{
   uint64_t va[GANG_MAX];
   const struct usc_tlb *t = gang_range(g, n, o, VAGX_USC_ACC_READ, va);
   if (!t)
      return false;
   for (unsigned i = 0; i < n; i++)
      memcpy(g[i].r + (size_t)o->dst * L, t->host + (va[i] - t->va), L * 4);
   return true;
}

static bool gtry_st_global(struct usc_grp *g, unsigned n, const struct usc_op *o)
{
   uint64_t va[GANG_MAX];
   const struct usc_tlb *t = gang_range(g, n, o, VAGX_USC_ACC_WRITE, va);
   if (!t)
      return false;
   for (unsigned i = 0; i < n; i++)
      memcpy(t->host + (va[i] - t->va), g[i].r + (size_t)o->src[2].idx * L, L * 4);
   return true;
}

usc_gtry usc_mem_gtry(const struct vagx_instr *I)
{
   const struct memsize ms = memsize_of(I);
   if (ms.bytes != 4 || ms.n != 1)
      return NULL;
   switch (I->op) {
   case VAGX_OP_LD_GLOBAL: return gtry_ld_global;
   case VAGX_OP_ST_GLOBAL: return gtry_st_global;
   default: return NULL;
   }
}

usc_fn usc_mem_fn(const struct vagx_instr *I)
{
   switch (I->op) {
   case VAGX_OP_LD_GLOBAL: return op_ld_global;
   case VAGX_OP_ST_GLOBAL: return op_st_global;
   case VAGX_OP_ATOM_GLOBAL: return op_atom_global;
   case VAGX_OP_LD_SHARED: return op_ld_shared;
   case VAGX_OP_ST_SHARED: return op_st_shared;
   case VAGX_OP_ATOM_SHARED: return op_atom_shared;
   case VAGX_OP_FENCE: return op_fence;
   case VAGX_OP_STACK_LD: return op_stack_ld;
   case VAGX_OP_STACK_ST: return op_stack_st;
   default: return NULL;
   }
}
