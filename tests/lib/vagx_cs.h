/* SPDX-License-Identifier: MIT */
/*
 * Control-stream writer of the render tests: VAGX_CS_EMIT(buf, n, T, ...)
 * packs one command `vagx_T` into the dword array `buf` at index `n` and
 * advances `n` by its length.  The statements after T set fields of `v_`,
 * the command being written, which starts from the XML defaults:
 *
 *    VAGX_CS_EMIT(cs, ncs, cmd_scissor, v_.max_x = 64; v_.max_y = 32);
 *
 * A stream that would overflow `buf` stops the test (exit status 2): a test
 * bug, never a device result.
 */
#ifndef VAGX_CS_H
#define VAGX_CS_H

#include <stdio.h>
#include <stdlib.h>

#include "vagx_hw.h"

/* Room left before each command: more than the longest one. */
#define VAGX_CS_ROOM_DWORDS 16

#define VAGX_CS_EMIT(buf, n, T, ...)                                                   \
   do {                                                                                \
      if ((n) + VAGX_CS_ROOM_DWORDS > sizeof(buf) / sizeof((buf)[0])) {                \
         fprintf(stderr, "%s:%d: test control stream full\n", __FILE__, __LINE__);    \
         exit(2);                                                                      \
      }                                                                                \
      struct vagx_##T v_;                                                              \
      vagx_##T##_init(&v_);                                                            \
      __VA_ARGS__;                                                                     \
      vagx_##T##_pack(&(buf)[n], &v_);                                                 \
      (n) += vagx_cmd_dwords((buf)[n]);                                                \
   } while (0)

#endif
