/* Minimal stand-in for the kernel's <linux/types.h>: just enough for the
 * generated vagx_hw.h to build freestanding (-nostdinc -D__KERNEL__), which
 * proves the header needs no libc when the kernel module includes it. */
#ifndef VAGX_TEST_SHIM_LINUX_TYPES_H
#define VAGX_TEST_SHIM_LINUX_TYPES_H
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned long size_t;
typedef _Bool bool;
enum { false = 0, true = 1 };
#define NULL ((void *)0)
#endif
