/* Encode/decode/print round trip of every opcode with random operands, and the
 * assembler/disassembler round trip: dis(as(text)) == text, as(dis(bin)) == bin. */
#include "usc_test.h"

#include "usc_random.h"

static void random_instr(unsigned op, struct vagx_instr *I)
{
   usc_random_instr(op, I, t_rand);
}

int main(void)
{
   static uint32_t code[4];
   unsigned nops = 0;
   for (unsigned op = 0; op < 256; op++) {
      if (!vagx_info(op)->name) {
         /* Undefined opcodes never decode. */
         uint64_t w = op;
         struct vagx_instr I;
         CHECK(vagx_decode(&w, 1, &I) == VAGX_ISA_EOPCODE, "op 0x%02x decoded", op);
         continue;
      }
      nops++;
      for (int it = 0; it < 300; it++) {
         struct vagx_instr I, J;
         uint64_t w[2] = { 0, 0 }, w2[2] = { 0, 0 };
         char text[256];
         random_instr(op, &I);
         memset(&J, 0, sizeof(J)); /* padding bytes: memcmp below */
         int n = vagx_encode(&I, w);
         CHECK(n > 0, "%s: encode failed: %s", vagx_info(op)->name, vagx_isa_strerror(n));
         if (n <= 0)
            continue;
         CHECK(vagx_decode(w, (size_t)n, &J) == n, "%s: decode", vagx_info(op)->name);
         CHECK(!memcmp(&I, &J, sizeof(I)), "%s: decode differs", vagx_info(op)->name);
         vagx_print(&J, text, sizeof(text));
         /* Assemble the printed text: must give the same words back. */
         struct vagx_asm_error err;
         long m = vagx_asm_assemble(text, code, 4, &err);
         CHECK(m == 2 * n, "'%s': %s", text, err.msg);
         if (m == 2 * n) {
            for (int k = 0; k < n; k++)
               w2[k] = (uint64_t)code[2 * k] | (uint64_t)code[2 * k + 1] << 32;
            CHECK(w2[0] == w[0] && (n < 2 || w2[1] == w[1]), "'%s' reassembles differently", text);
         }
         /* Flipping any single unused/illegal bit must be caught or be another valid
          * instruction that round-trips; never a crash. */
         uint64_t wb[2] = { w[0] ^ (1ull << (t_rand() % 64)), w[1] };
         struct vagx_instr K;
         int r = vagx_decode(wb, (size_t)n, &K);
         if (r > 0) {
            uint64_t we[2] = { 0, 0 };
            CHECK(vagx_encode(&K, we) == r && we[0] == wb[0], "bit flip round trip");
         }
      }
   }
   CHECK(nops >= 90, "only %u opcodes", nops);

   /* Assembler niceties: labels, float immediates, comments, illegal words. */
   const char *src =
      "top:\n"
      "  fadd.sat r1, -|r2|, #1.5   ; float literal\n"
      "  iadd r3.h, r4.l, #-1       // comment\n"
      "  br.nz r1, @top\n"
      "  .u64 0xffffffffffffffff\n"
      "  end\n";
   uint32_t buf[64];
   struct vagx_asm_error err;
   long n = vagx_asm_assemble(src, buf, 64, &err);
   CHECK(n == 16, "assemble: %ld %s", n, err.msg);
   char text[1024];
   vagx_dis(buf, (size_t)n, text, sizeof(text));
   const char *expect =
      "fadd.sat r1, -|r2|, #0x3fc00000\n"
      "iadd r3.h, r4.l, #0xffffffff\n"
      "br.nz r1, @-4\n"
      ".u64 0xffffffffffffffff\n"
      "end\n";
   CHECK(!strcmp(text, expect), "dis gave:\n%s", text);
   uint32_t buf2[64];
   long n2 = vagx_asm_assemble(text, buf2, 64, &err);
   CHECK(n2 == n && !memcmp(buf, buf2, (size_t)n * 4), "as(dis(bin)) != bin");
   /* dis(as(text)) == text for canonical text */
   long n3 = vagx_asm_assemble(expect, buf2, 64, &err);
   char text2[1024];
   vagx_dis(buf2, (size_t)n3, text2, sizeof(text2));
   CHECK(!strcmp(text2, expect), "dis(as(text)) != text");

   /* tex .gather (texmode 7, since the gather mode): its text round trip
    * and the decoded mode, dim, array and shadow bits */
   const char *gather = "tex.gather.t3.s1.cube.array.shadow r0, r4, r8, r9\nend\n";
   long ng = vagx_asm_assemble(gather, buf2, 64, &err);
   struct vagx_instr G;
   uint64_t gw[2];
   memcpy(gw, buf2, sizeof(gw));
   CHECK(ng == 6 && vagx_decode(gw, 2, &G) == 2 && G.op == VAGX_OP_TEX &&
            (G.mod & 7) == VAGX_TEXMODE_GATHER && ((G.imm[1] >> 16) & 7) == VAGX_DIM_CUBE &&
            (G.imm[1] >> 19 & 3) == 3 && (G.imm[1] & 0xffff) == 0x0103,
         "tex.gather: assembled to %ld words, mode %u", ng, (unsigned)(G.mod & 7));
   vagx_dis(buf2, (size_t)ng, text2, sizeof(text2));
   CHECK(!strcmp(text2, gather), "tex.gather: dis gave %s", text2);

   /* Errors are reported with a line, never crash. */
   CHECK(vagx_asm_assemble("nop\nfrob r1\n", buf, 64, &err) < 0 && err.line == 2, "unknown op");
   CHECK(vagx_asm_assemble("iadd r1, -r2, r3\n", buf, 64, &err) < 0, "neg on int");
   CHECK(vagx_asm_assemble("jmp @nowhere\n", buf, 64, &err) < 0, "undefined label");
   CHECK(vagx_asm_assemble("ffma r1, #1, #2, #3\n", buf, 64, &err) < 0, "3 imms");
   return t_report("isa_codec");
}
