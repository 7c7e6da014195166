/* iter and ldcf run by the executor itself when the renderer gives the
 * run's interpolation points (vagx_usc_env.iter, usc.h), instead of a call
 * through the graphics hook per instruction: the same double arithmetic,
 * every lane at once (vectorised; lanes outside exec compute harmless values
 * usc_wb drops).  usc_jit.c emits the same operations in the same order, so
 * interpreted and compiled runs agree bit for bit (tests/unit/isa/test_usc_jit.c).
 * Without iter, and for the .f16 forms, the hook does the work. */
#include <string.h>

#include "usc_priv.h"
#include "usc_simd.h"

/* Plane i, or the constant plane `none` when the run has no plane i. */
static inline const struct vagx_usc_plane *plane(const struct vagx_usc_iter *it, unsigned i,
                                                 const struct vagx_usc_plane *none)
{
   return i < it->ncf ? &it->cf[i] : none;
}

const struct vagx_usc_plane usc_zero_plane = {0, 0, 0, 0}, usc_one_plane = {0, 0, 1, 0};

static inline __attribute__((always_inline)) void iter_body(struct usc_grp *g,
                                                            const struct usc_op *o)
{
   const struct vagx_usc_iter *it = g->run->iter;
   const struct vagx_instr *I = &o->I;
   const bool persp = VAGX_MOD_ITER_PERSP(I->mod) != 0;
   /* copies: the stores to out could alias them for the compiler */
   const struct vagx_usc_plane v = *plane(it, o->I.src[0].idx, &usc_zero_plane);
   const struct vagx_usc_plane w = *plane(it, o->I.src[1].idx, &usc_one_plane);
   const double *restrict x = it->x, *restrict y = it->y;
   uint32_t out[L];
   if (persp) {
      for (int l = 0; l < L; l++) {
         const float f = (float)((v.c + v.a * x[l] + v.b * y[l]) / (w.c + w.a * x[l] + w.b * y[l]));
         memcpy(&out[l], &f, 4);
      }
   } else {
      for (int l = 0; l < L; l++) {
         const float f = (float)(v.c + v.a * x[l] + v.b * y[l]);
         memcpy(&out[l], &f, 4);
      }
   }
   usc_wb(g, o, out);
}

static void op_iter(struct usc_grp *g, const struct usc_op *o)
{
   if (!g->run->iter) {
      usc_op_gfx(g, o);
      return;
   }
   iter_body(g, o);
}

#ifdef USC_HAVE_GFX_AVX2
/* The same 4 doubles an instruction on AVX2 hosts (IEEE operations round
 * the same at any width; cflags.list: no contraction). */
__attribute__((target("avx2"))) static void op_iter_avx2(struct usc_grp *g, const struct usc_op *o)
{
   if (!g->run->iter) {
      usc_op_gfx_avx2(g, o);
      return;
   }
   iter_body(g, o);
}
#endif

static void op_ldcf(struct usc_grp *g, const struct usc_op *o)
{
   const struct vagx_usc_iter *it = g->run->iter;
   if (!it) {
      usc_op_gfx(g, o);
      return;
   }
   const uint32_t flat = plane(it, o->I.src[0].idx, &usc_zero_plane)->flat;
   uint32_t out[L];
   for (int l = 0; l < L; l++)
      out[l] = flat;
   usc_wb(g, o, out);
}

usc_fn usc_iter_fn(const struct vagx_instr *I)
{
   switch (I->op) {
   case VAGX_OP_ITER:
      if (VAGX_MOD_ITER_F16(I->mod))
         return NULL;
#ifdef USC_HAVE_GFX_AVX2
      if (usc_simd_level() >= USC_SIMD_AVX2_FMA)
         return op_iter_avx2;
#endif
      return op_iter;
   case VAGX_OP_LDCF:
      return VAGX_MOD_LDCF_F16(I->mod) ? NULL : op_ldcf;
   default:
      return NULL;
   }
}
