// The ISA header and the USC API compile as C++17 and work from C++.
#include "usc.h"
#include "vagx_isa.h"

int main()
{
   vagx_instr I = {};
   I.op = VAGX_OP_NOP;
   uint64_t w[2];
   char buf[64];
   if (vagx_encode(&I, w) != 1)
      return 1;
   vagx_instr J;
   if (vagx_decode(w, 1, &J) != 1)
      return 1;
   vagx_print(&J, buf, sizeof(buf));
   return buf[0] == 'n' ? 0 : 1;
}
