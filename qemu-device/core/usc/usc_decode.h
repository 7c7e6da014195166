/* Decoder entry shared by the public decode function and the program cache. */
#ifndef VAGX_USC_DECODE_H
#define VAGX_USC_DECODE_H

#include <stdbool.h>

#include "usc.h"

#define USC_DECODE_NEED_MORE 1

/* Decodes words[0..nwords).  With `more`, running off the end returns
 * USC_DECODE_NEED_MORE (the caller fetches more code); otherwise it is an
 * illegal program.  Returns 0 with *out set, or -1 with res set. */
int usc_decode(const uint64_t *words, size_t nwords, bool more,
               struct vagx_usc_decoded **out, struct vagx_usc_result *res);

#endif
