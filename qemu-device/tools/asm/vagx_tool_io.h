/* Whole-file reading for the command-line tools. */
#ifndef VAGX_TOOL_IO_H
#define VAGX_TOOL_IO_H

#include <stdio.h>
#include <stdlib.h>

/* Reads a file into a malloc'ed buffer (NUL-terminated when text); NULL on error. */
static inline char *vagx_read_file(const char *path, size_t *len, int text)
{
   FILE *f = fopen(path, "rb");
   char *buf = NULL;
   size_t cap = 0, n = 0;
   if (!f)
      return NULL;
   for (;;) {
      if (n + 4096 + 1 > cap) {
         char *b = realloc(buf, cap = (cap + 4096) * 2);
         if (!b) {
            free(buf);
            fclose(f);
            return NULL;
         }
         buf = b;
      }
      size_t r = fread(buf + n, 1, 4096, f);
      n += r;
      if (r < 4096)
         break;
   }
   fclose(f);
   if (text)
      buf[n] = '\0';
   *len = n;
   return buf;
}

#endif
