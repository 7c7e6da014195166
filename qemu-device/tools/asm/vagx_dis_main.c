/* vagx-dis: prints a binary of little-endian 64-bit USC words as assembly. */
#include <stdio.h>
#include <stdlib.h>

#include "vagx_asm.h"
#include "vagx_tool_io.h"

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: vagx-dis INPUT.bin\n");
      return 2;
   }
   size_t len;
   uint32_t *code = (uint32_t *)(void *)vagx_read_file(argv[1], &len, 0);
   if (!code) {
      perror(argv[1]);
      return 1;
   }
   if (len % 8) {
      fprintf(stderr, "%s: size is not a multiple of 8 bytes\n", argv[1]);
      return 1;
   }
   size_t need = vagx_dis(code, len / 4, NULL, 0) + 1;
   char *text = malloc(need);
   if (!text)
      return 1;
   vagx_dis(code, len / 4, text, need);
   fputs(text, stdout);
   free(text);
   free(code);
   return 0;
}
