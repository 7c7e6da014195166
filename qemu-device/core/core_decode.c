/* SPDX-License-Identifier: MIT */
/*
 * Job decoder in the spirit of Mesa's agxdecode: prints a ring slot and
 * everything it references -- header, inline payload, result, compute/render
 * descriptor, indirect grid, uniforms, shader code (disassembled with the
 * generated ISA tables), control streams (following JUMPs and calls) -- using
 * only the host read callback and the device's own page-table walk.  It never
 * writes and never trusts what it reads: every structure goes through the
 * generated unpack (errors are printed, decoding carries on where sensible)
 * and every loop is bounded.
 */
#include "core_priv.h"

#include <stdio.h>
#include "vagx_isa.h"

#define MAX_CODE_WORDS 4096
#define MAX_STREAM_DWORDS (1u << 16)
#define MAX_UNIFORMS_SHOWN 64

struct dctx {
   const struct vagx_core_host_ops *ops;
   void *opaque;
   vagx_core_print_fn print;
   void *pctx;
   uint64_t root;
};

#define P(d, ...) (d)->print((d)->pctx, __VA_ARGS__)

/* Reads through the job's VM (NULL pages read as zero).  On failure prints
 * the fault and returns false. */
static bool vread(struct dctx *d, uint64_t va, void *buf, uint64_t len, const char *what)
{
   struct core_span s;
   struct core_fault f;
   int r;
   core_span_init(&s, d->ops->read, d->opaque, d->root, va, len, VAGX_FAULT_ACCESS_READ);
   while ((r = core_span_next(&s, &f)) > 0) {
      uint8_t *out = (uint8_t *)buf + s.done;
      if (s.x.null)
         memset(out, 0, s.n);
      else if (d->ops->read(d->opaque, s.x.pa + s.off, out, s.n)) {
         P(d, "    <%s @ 0x%llx: page 0x%llx outside guest RAM>\n", what,
           (unsigned long long)s.va, (unsigned long long)s.x.pa);
         return false;
      }
   }
   if (r < 0)
      P(d, "    <%s @ 0x%llx: translation fault: %s at level %u>\n", what,
        (unsigned long long)f.va, vagx_fault_reason_name(f.reason), f.level);
   return r == 0;
}

static void decode_code(struct dctx *d, uint64_t code_va)
{
   P(d, "    code @ 0x%llx:\n", (unsigned long long)code_va);
   uint64_t w[2];
   for (unsigned pc = 0; pc < MAX_CODE_WORDS * 8;) {
      if (!vread(d, code_va + pc, w, 8, "code"))
         return;
      struct vagx_instr I;
      unsigned nw = vagx_instr_words(w[0]);
      if (nw > 1 && !vread(d, code_va + pc + 8, &w[1], 8, "code"))
         return;
      int r = vagx_decode(w, nw, &I);
      if (r <= 0) {
         P(d, "      %04x: .u64 0x%016llx  <%s>\n", pc, (unsigned long long)w[0],
           vagx_isa_strerror(r));
         return;
      }
      char text[160];
      vagx_print(&I, text, sizeof(text));
      P(d, "      %04x: %s\n", pc, text);
      pc += 8u * (unsigned)r;
      if (I.op == VAGX_OP_END)
         return;
   }
   P(d, "      <listing truncated>\n");
}

static void decode_program(struct dctx *d, const char *name, const struct vagx_usc_program *p)
{
   /* The fields were printed with the enclosing structure. */
   if (p->uniform_count) {
      uint32_t u[MAX_UNIFORMS_SHOWN];
      unsigned n = p->uniform_count < MAX_UNIFORMS_SHOWN ? p->uniform_count : MAX_UNIFORMS_SHOWN;
      if (vread(d, p->uniform_va, u, n * 4u, "uniforms")) {
         P(d, "    uniforms:");
         for (unsigned i = 0; i < n; i++)
            P(d, "%s u%u=0x%08x", i % 6 ? "" : "\n     ", i, u[i]);
         (void)name;
         P(d, "\n");
      }
   }
   if (p->code_va)
      decode_code(d, p->code_va);
}

static void decode_compute(struct dctx *d, uint64_t va)
{
   uint32_t raw[VAGX_COMPUTE_JOB_DWORDS];
   if (!vread(d, va, raw, sizeof(raw), "compute_job"))
      return;
   struct vagx_compute_job j;
   const char *err = NULL;
   bool ok = vagx_compute_job_unpack(raw, &j, &err);
   P(d, "  compute_job @ 0x%llx%s%s\n", (unsigned long long)va, ok ? "" : " INVALID: ",
     ok ? "" : err);
   vagx_compute_job_print((vagx_print_fn)d->print, d->pctx, &j, 4);
   if (j.indirect) {
      uint32_t g[3];
      if (vread(d, j.indirect_va, g, sizeof(g), "indirect grid"))
         P(d, "    indirect grid: %u x %u x %u\n", g[0], g[1], g[2]);
   }
   decode_program(d, "program", &j.program);
}

static void decode_stream(struct dctx *d, uint64_t va)
{
   uint64_t stack[VAGX_MAX_STREAM_CALL_DEPTH];
   unsigned depth = 0, total = 0;
   P(d, "  control stream @ 0x%llx:\n", (unsigned long long)va);
   while (total < MAX_STREAM_DWORDS) {
      uint32_t dw[64];
      if (!vread(d, va, dw, 4, "command"))
         return;
      unsigned n = vagx_cmd_dwords(dw[0]);
      if (n > 64) {
         P(d, "    <command of %u dwords>\n", n);
         return;
      }
      if (n > 1 && !vread(d, va + 4, dw + 1, (n - 1) * 4u, "command"))
         return;
      P(d, "   0x%llx:\n", (unsigned long long)va);
      unsigned used = vagx_cmd_print((vagx_print_fn)d->print, d->pctx, dw, n ? n : 1, 4);
      if (!used)
         return; /* unknown or invalid: the device stops here too */
      total += used;
      unsigned op = dw[0] & 0xffu;
      if (op == VAGX_CMD_END_OPCODE) {
         if (!depth)
            return;
         va = stack[--depth];
         continue;
      }
      if (op == VAGX_CMD_JUMP_OPCODE) {
         struct vagx_cmd_jump j;
         vagx_cmd_jump_unpack(dw, &j, NULL);
         if (j.call) {
            if (depth == VAGX_MAX_STREAM_CALL_DEPTH) {
               P(d, "    <call depth exceeded>\n");
               return;
            }
            stack[depth++] = va + 4u * used;
         }
         va = j.target_va;
         continue;
      }
      if (op == VAGX_CMD_BIND_VERTEX_PIPELINE_OPCODE) {
         struct vagx_cmd_bind_vertex_pipeline b;
         vagx_cmd_bind_vertex_pipeline_unpack(dw, &b, NULL);
         if (b.program.code_va)
            decode_code(d, b.program.code_va);
      } else if (op == VAGX_CMD_BIND_FRAGMENT_PIPELINE_OPCODE) {
         struct vagx_cmd_bind_fragment_pipeline b;
         vagx_cmd_bind_fragment_pipeline_unpack(dw, &b, NULL);
         if (b.program.code_va)
            decode_code(d, b.program.code_va);
      }
      va += 4u * used;
   }
   P(d, "    <stream too long>\n");
}

static void decode_render(struct dctx *d, uint64_t va)
{
   uint32_t raw[VAGX_RENDER_JOB_DWORDS];
   if (!vread(d, va, raw, sizeof(raw), "render_job"))
      return;
   struct vagx_render_job j;
   const char *err = NULL;
   bool ok = vagx_render_job_unpack(raw, &j, &err);
   P(d, "  render_job @ 0x%llx%s%s\n", (unsigned long long)va, ok ? "" : " INVALID: ",
     ok ? "" : err);
   vagx_render_job_print((vagx_print_fn)d->print, d->pctx, &j, 4);
   decode_program(d, "bg_program", &j.bg_program);
   decode_program(d, "eot_program", &j.eot_program);
   decode_stream(d, j.cs_va);
}

int vagx_core_decode_job(const struct vagx_core_host_ops *ops, void *opaque, uint64_t slot_pa,
                         vagx_core_print_fn print, void *print_ctx)
{
   struct dctx dc = {.ops = ops, .opaque = opaque, .print = print, .pctx = print_ctx};
   struct dctx *d = &dc;
   uint32_t slot[VAGX_RING_ENTRY_SIZE / 4];
   if (ops->read(opaque, slot_pa, slot, sizeof(slot))) {
      P(d, "slot @ 0x%llx: outside guest RAM\n", (unsigned long long)slot_pa);
      return -1;
   }
   struct vagx_job_header h;
   const char *err = NULL;
   bool ok = vagx_job_header_unpack(slot + VAGX_RING_SLOT_HEADER_OFFSET / 4, &h, &err);
   P(d, "job @ slot 0x%llx: %s%s%s\n", (unsigned long long)slot_pa,
     vagx_job_type_is_valid(h.type) ? vagx_job_type_name(h.type) : "?", ok ? "" : " INVALID: ",
     ok ? "" : err);
   vagx_job_header_print((vagx_print_fn)print, print_ctx, &h, 2);

   const uint32_t *payload = slot + VAGX_RING_SLOT_PAYLOAD_OFFSET / 4;
   if (h.type == VAGX_JOB_TYPE_COPY) {
      struct vagx_copy_job c;
      ok = vagx_copy_job_unpack(payload, &c, &err);
      P(d, "  copy_job%s%s\n", ok ? "" : " INVALID: ", ok ? "" : err);
      vagx_copy_job_print((vagx_print_fn)print, print_ctx, &c, 4);
   } else if (h.type == VAGX_JOB_TYPE_FILL) {
      struct vagx_fill_job f;
      ok = vagx_fill_job_unpack(payload, &f, &err);
      P(d, "  fill_job%s%s\n", ok ? "" : " INVALID: ", ok ? "" : err);
      vagx_fill_job_print((vagx_print_fn)print, print_ctx, &f, 4);
   }

   struct vagx_job_result r;
   ok = vagx_job_result_unpack(slot + VAGX_RING_SLOT_RESULT_OFFSET / 4, &r, &err);
   P(d, "  result: %s%s%s\n", vagx_job_status_is_valid(r.status) ? vagx_job_status_name(r.status) : "?",
     ok ? "" : " INVALID: ", ok ? "" : err);
   vagx_job_result_print((vagx_print_fn)print, print_ctx, &r, 4);

   d->root = h.pt_root;
   if (h.type == VAGX_JOB_TYPE_COMPUTE)
      decode_compute(d, h.desc_va);
   else if (h.type == VAGX_JOB_TYPE_RENDER)
      decode_render(d, h.desc_va);
   return 0;
}

int vagx_core_decode_ring(const struct vagx_core_host_ops *ops, void *opaque, uint64_t ring_pa,
                          unsigned log2_slots, uint32_t head, uint32_t tail,
                          vagx_core_print_fn print, void *print_ctx)
{
   if (log2_slots < VAGX_RING_MIN_LOG2 || log2_slots > VAGX_RING_MAX_LOG2)
      return -1;
   uint32_t nslots = 1u << log2_slots;
   if (tail - head > nslots)
      head = tail - nslots;
   int ret = 0;
   for (uint32_t i = head; i != tail; i++) {
      print(print_ctx, "[%u] ", i);
      ret |= vagx_core_decode_job(ops, opaque,
                                  ring_pa + (uint64_t)(i & (nslots - 1)) * VAGX_RING_ENTRY_SIZE,
                                  print, print_ctx);
   }
   return ret;
}
