/* Minimal stand-in for the kernel's <linux/bits.h> (see types.h). */
#ifndef VAGX_TEST_SHIM_LINUX_BITS_H
#define VAGX_TEST_SHIM_LINUX_BITS_H
#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))
#endif
