/* vagx-as: assembles USC assembly text into a binary of little-endian 64-bit words. */
#include <stdio.h>
#include <stdlib.h>

#include "vagx_asm.h"
#include "vagx_tool_io.h"

int main(int argc, char **argv)
{
   const char *in = NULL, *out = NULL;
   for (int i = 1; i < argc; i++) {
      if (argv[i][0] == '-' && argv[i][1] == 'o' && i + 1 < argc)
         out = argv[++i];
      else
         in = argv[i];
   }
   if (!in || !out) {
      fprintf(stderr, "usage: vagx-as INPUT.s -o OUTPUT.bin\n");
      return 2;
   }
   size_t len;
   char *src = vagx_read_file(in, &len, 1);
   if (!src) {
      perror(in);
      return 1;
   }
   /* An instruction is at least 4 source bytes, so this bound is generous. */
   size_t cap = len + 16;
   uint32_t *code = malloc(cap * sizeof(uint32_t));
   struct vagx_asm_error err;
   long n = code ? vagx_asm_assemble(src, code, cap, &err) : -1;
   if (n < 0) {
      fprintf(stderr, "%s:%d: %s\n", in, code ? err.line : 0, code ? err.msg : "out of memory");
      return 1;
   }
   FILE *f = fopen(out, "wb");
   if (!f || fwrite(code, 4, (size_t)n, f) != (size_t)n || fclose(f)) {
      perror(out);
      return 1;
   }
   free(code);
   free(src);
   return 0;
}
