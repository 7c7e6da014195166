/* Host code-generation level of the USC's ALU handlers, chosen once per host at
 * decode time (a program keeps the handlers it was decoded with).  Every level
 * gives bit-identical results; tests force each one to prove it. */
#ifndef VAGX_USC_SIMD_H
#define VAGX_USC_SIMD_H

enum usc_simd_level {
   USC_SIMD_AUTO = -1,    /* usc_simd_force(): back to the host's best */
   USC_SIMD_GENERIC = 0,  /* baseline target; ffma emulated exactly in software */
   USC_SIMD_AVX2_FMA = 1, /* x86-64 AVX2 + hardware FMA */
};

int usc_simd_host_level(void);  /* best level this host runs */
int usc_simd_level(void);       /* level programs decoded now get */
void usc_simd_force(int level); /* tests/benchmarks: cap the level (USC_SIMD_AUTO: none) */

#endif
