/*
 * The render tests' check macro: counts every check, prints the first
 * failures with file and line (a broken fast path can fail millions of
 * random checks; the count still tells how many).
 */
#ifndef RENDER_CHECK_H
#define RENDER_CHECK_H

#include <stdio.h>

#define RENDER_CHECK_MAX_PRINTED 50

static int failures, checks;
#define CHECK(c, ...)                                                                  \
   do {                                                                                \
      checks++;                                                                        \
      if (!(c) && failures++ < RENDER_CHECK_MAX_PRINTED) {                             \
         fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
         fprintf(stderr, __VA_ARGS__);                                                 \
         fputc('\n', stderr);                                                          \
      }                                                                                \
   } while (0)

#endif
