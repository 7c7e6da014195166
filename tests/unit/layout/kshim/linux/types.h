/* Minimal stand-in for the kernel's <linux/types.h>, used only to check
 * that the layout library compiles in a kernel-like freestanding gnu11
 * context (-ffreestanding -D__KERNEL__) without the kernel tree. */
#ifndef VAGX_KSHIM_LINUX_TYPES_H
#define VAGX_KSHIM_LINUX_TYPES_H
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __SIZE_TYPE__ size_t;
typedef _Bool bool;
enum { false = 0, true = 1 };
#define NULL ((void *)0)
#endif
