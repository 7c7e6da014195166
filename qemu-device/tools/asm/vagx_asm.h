/* vagx USC assembler and disassembler library (used by vagx-as, vagx-dis and
 * the tests).  Syntax: docs/hw/isa.md, "Assembly syntax". */
#ifndef VAGX_ASM_H
#define VAGX_ASM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vagx_asm_error {
   int line;        /* 1-based source line, 0 if not line-specific */
   char msg[160];
};

/* Assembles src into out (little-endian 64-bit instruction words as pairs of
 * 32-bit words, low half first).  Returns the number of 32-bit words written,
 * or -1 with *err filled (err may be NULL). */
long vagx_asm_assemble(const char *src, uint32_t *out, size_t out_cap32,
                       struct vagx_asm_error *err);

/* Disassembles n32 32-bit words (an even count) into text, one instruction per
 * line.  Words that do not decode print as `.u64 0x...` so any binary round
 * trips.  Returns the length the full text needs (like snprintf). */
size_t vagx_dis(const uint32_t *code, size_t n32, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
