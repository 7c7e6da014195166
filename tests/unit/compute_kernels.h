/*
 * Compute kernels in vagx assembly shared by the interpreter's tests
 * (tests/unit/isa) and the whole-core tests (tests/unit/core): the same
 * programs checked against C through the USC alone and through queue, MMU,
 * CDM and worker pool.  Uniform and buffer conventions are described at each
 * kernel; the tests set them up.
 */
#ifndef VAGX_TEST_COMPUTE_KERNELS_H
#define VAGX_TEST_COMPUTE_KERNELS_H

/* Inclusive prefix sum of 256 values in one threadgroup (Hillis-Steele). */
static const char *const kernel_prefix_sum =
   "shl r1, sr.tindex, #2\n"
   "ld_global.b32 r2, u0, r1\n"
   "st_shared.b32 r1, #0, r2\n"
   "barrier.tg\n"
   "mov r3, #1\n"                   /* offset */
   "loop\n"
   "  icmp.uge r4, r3, #256\n"
   "  break.cond r4\n"
   "  mov r5, #0\n"
   "  icmp.uge r4, sr.tindex, r3\n"
   "  if.nz r4\n"
   "    isub r6, sr.tindex, r3\n"
   "    shl r6, r6, #2\n"
   "    ld_shared.b32 r5, r6, #0\n"
   "  endif\n"
   "  barrier.tg\n"
   "  ld_shared.b32 r7, r1, #0\n"
   "  iadd r7, r7, r5\n"
   "  st_shared.b32 r1, #0, r7\n"
   "  barrier.tg\n"
   "  shl r3, r3, #1\n"
   "endloop\n"
   "ld_shared.b32 r2, r1, #0\n"
   "st_global.b32 u2, r1, r2\n"
   "end\n";

/* C = A * B, 32x32 floats, one thread per element, 8x8 threadgroups. */
static const char *const kernel_matmul =
   "imad r1, sr.tgid_x, #8, sr.tid_x\n"   /* column */
   "imad r2, sr.tgid_y, #8, sr.tid_y\n"   /* row */
   "mov r3, #0\n"                          /* k */
   "mov r4, #0\n"                          /* acc */
   "loop\n"
   "  icmp.uge r5, r3, #32\n"
   "  break.cond r5\n"
   "  imad r6, r2, #32, r3\n  shl r6, r6, #2\n"
   "  ld_global.b32 r7, u0, r6\n"
   "  imad r6, r3, #32, r1\n  shl r6, r6, #2\n"
   "  ld_global.b32 r8, u2, r6\n"
   "  ffma r4, r7, r8, r4\n"
   "  iadd r3, r3, #1\n"
   "endloop\n"
   "imad r6, r2, #32, r1\nshl r6, r6, #2\n"
   "st_global.b32 u4, r6, r4\n"
   "end\n";

/* 64-bin histogram of 4096 bytes: each thread handles one byte. */
static const char *const kernel_histogram =
   "imad r1, sr.tgid_x, #256, sr.tindex\n"
   "ld_global.u8 r2, u0, r1\n"
   "and r2, r2, #63\n"
   "shl r2, r2, #2\n"
   "mov r3, u2\nmov r4, u3\n"
   "iadd r3, r3, r2\n"                     /* 64-bit add: buffer is 4 KiB aligned */
   "atom_global.add r5, r3, #1, r0\n"
   "end\n";

/* Sum of 1024 u32 per threadgroup by tree reduction in shared memory. */
static const char *const kernel_reduction =
   "imad r1, sr.tgid_x, #1024, sr.tindex\n"
   "shl r1, r1, #2\n"
   "ld_global.b32 r2, u0, r1\n"
   "shl r3, sr.tindex, #2\n"
   "st_shared.b32 r3, #0, r2\n"
   "barrier.tg\n"
   "mov r4, #512\n"
   "loop\n"
   "  icmp.eq r5, r4, #0\n"
   "  break.cond r5\n"
   "  icmp.ult r5, sr.tindex, r4\n"
   "  if.nz r5\n"
   "    shl r6, r4, #2\n"
   "    iadd r6, r6, r3\n"
   "    ld_shared.b32 r7, r6, #0\n"
   "    ld_shared.b32 r8, r3, #0\n"
   "    iadd r8, r8, r7\n"
   "    st_shared.b32 r3, #0, r8\n"
   "  endif\n"
   "  barrier.tg\n"
   "  shr r4, r4, #1\n"
   "endloop\n"
   "icmp.eq r5, sr.tindex, #0\n"
   "if.nz r5\n"
   "  ld_shared.b32 r8, r3, #0\n"
   "  shl r9, sr.tgid_x, #2\n"
   "  st_global.b32 u2, r9, r8\n"
   "endif\n"
   "end\n";

#endif
