/* SPDX-License-Identifier: MIT */
/*
 * test_core: COMPUTE jobs: kernels written in assembly, run through queue,
 * MMU, CDM and worker pool and checked against C; the texture unit from
 * compute (images and textures).
 */
#include <math.h>
#include "vagx_asm.h"
#include "../compute_kernels.h"
#include "test_core.h"

struct cenv {
   struct tdev *d;
   struct tq *t;
   uint64_t root, code_pa, desc_pa, data_pa;
   uint64_t seq;
};

#define CODE_BYTES (64 * 1024)
#define DATA_VA VA_BUF
#define DATA_BYTES (1u << 20)

static void cenv_init(struct cenv *c, struct tdev *d, struct tq *t)
{
   c->d = d;
   c->t = t;
   c->root = vm_new(d->f);
   c->code_pa = vm_alloc(d->f, c->root, VA_CODE, CODE_BYTES, true);
   c->desc_pa = vm_alloc(d->f, c->root, VA_DESC, VAGX_PAGE_SIZE, true);
   c->data_pa = vm_alloc(d->f, c->root, DATA_VA, DATA_BYTES, false);
   c->seq = 1;
}

static uint32_t *cdata(struct cenv *c, uint64_t off)
{
   return pa_u32(c->d->f, c->data_pa + off);
}

static void set_ptr(uint32_t *uni, unsigned u, uint64_t va)
{
   uni[u] = (uint32_t)va;
   uni[u + 1] = (uint32_t)(va >> 32);
}

/* usc_program.stack_size of the compute jobs submit_compute() makes; above
 * VAGX_MAX_STACK_BYTES the descriptor is packed anyway (its check fails:
 * the device must refuse it). */
static uint32_t compute_stack_size;
/* usc_program descriptor tables of those jobs (test_compute_tex) */
static struct {
   uint64_t texture_va, sampler_va, image_va;
   unsigned textures, samplers, images;
} compute_tables;

/* Assembles src (NULL: keep the code already there), writes descriptor and
 * uniforms, submits a COMPUTE job.  Returns the slot. */
static uint64_t submit_compute(struct cenv *c, const char *src, const uint32_t tg[3],
                               const uint32_t grid[3], uint32_t shared, const uint32_t *uni,
                               unsigned nuni, uint64_t indirect_va, uint32_t timeout_ms)
{
   struct fake *f = c->d->f;
   if (src) {
      struct vagx_asm_error err;
      long n = vagx_asm_assemble(src, pa_u32(f, c->code_pa), CODE_BYTES / 4, &err);
      CHECK(n > 0, "assemble: line %d: %s", err.line, err.msg);
   }
   struct vagx_compute_job j;
   vagx_compute_job_init(&j);
   j.grid_x = grid[0];
   j.grid_y = grid[1];
   j.grid_z = grid[2];
   j.tg_x = tg[0];
   j.tg_y = tg[1];
   j.tg_z = tg[2];
   j.indirect = indirect_va != 0;
   j.indirect_va = indirect_va;
   j.shared_size = shared;
   j.program.code_va = VA_CODE;
   j.program.gpr_count = 32;
   j.program.uniform_count = nuni;
   j.program.uniform_va = VA_DESC + 0x400;
   j.program.stack_size = compute_stack_size;
   j.program.texture_va = compute_tables.texture_va;
   j.program.texture_count = compute_tables.textures;
   j.program.sampler_va = compute_tables.sampler_va;
   j.program.sampler_count = compute_tables.samplers;
   j.program.image_va = compute_tables.image_va;
   j.program.image_count = compute_tables.images;
   const char *why = NULL;
   CHECK(compute_stack_size > VAGX_MAX_STACK_BYTES || vagx_compute_job_validate(&j, &why),
         "descriptor: %s", why ? why : "");
   vagx_compute_job_pack(pa_u32(f, c->desc_pa), &j);
   if (nuni)
      memcpy(pa_u32(f, c->desc_pa + 0x400), uni, nuni * 4);
   struct vagx_job_header h;
   hdr_init(c->t, &h, VAGX_JOB_TYPE_COMPUTE, c->root, c->seq++);
   h.desc_va = VA_DESC;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
   h.timeout_ms = timeout_ms;
   return tq_submit(c->t, &h, NULL);
}

static unsigned run_compute(struct cenv *c, const char *src, const uint32_t tg[3],
                            const uint32_t grid[3], uint32_t shared, const uint32_t *uni,
                            unsigned nuni, uint64_t indirect_va)
{
   uint64_t slot = submit_compute(c, src, tg, grid, shared, uni, nuni, indirect_va, 0);
   vagx_core_process(c->d->core);
   struct vagx_job_result r = slot_result(c->d, slot);
   if (r.status != VAGX_JOB_STATUS_OK) {
      wr(c->d, VAGX_REG_Q_RESUME(c->t->q), 1);
      wr(c->d, VAGX_REG_FAULT_ACK, 1);
   }
   return r.status;
}

/* Each thread writes its global linear id (z, y, x) to out[id]. */
static const char *k_ids =
   "imad r1, sr.tgid_z, sr.ngroups_y, sr.tgid_y\n"
   "imad r1, r1, sr.ngroups_x, sr.tgid_x\n"
   "shl r2, r1, #2\n"
   "st_global.b32 u0, r2, r1\n"
   "end\n";

static const char *k_spin =
   "mov r1, #0\n"
   "loop\n"
   "  iadd r1, r1, #1\n"
   "endloop\n"
   "end\n";

/* Stores an ever-growing counter to u0[0], forever. */
static const char *k_spin_store =
   "mov r1, #0\n"
   "mov r2, #0\n"
   "loop\n"
   "  iadd r1, r1, #1\n"
   "  st_global.b32 u0, r2, r1\n"
   "endloop\n"
   "end\n";

static const char *k_nothing = "end\n";

static const char *k_wild =
   "mov r1, #0\n"
   "ld_global.b32 r2, u0, r1\n"
   "end\n";

void test_compute(unsigned workers)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, workers, false, 3, 4);
   struct cenv c;
   cenv_init(&c, &d, &t);
   uint32_t uni[8] = {0};

   /* prefix sum */
   for (int i = 0; i < 256; i++)
      cdata(&c, 0)[i] = rnd() & 0xffff;
   set_ptr(uni, 0, DATA_VA);
   set_ptr(uni, 2, DATA_VA + 0x1000);
   unsigned st = run_compute(&c, kernel_prefix_sum, (uint32_t[3]){256, 1, 1}, (uint32_t[3]){1, 1, 1},
                             1024, uni, 4, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "prefix status %u", st);
   uint32_t s = 0;
   unsigned bad = 0;
   for (int i = 0; i < 256; i++) {
      s += cdata(&c, 0)[i];
      bad += cdata(&c, 0x1000)[i] != s;
   }
   CHECK(bad == 0, "prefix sum: %u wrong", bad);

   /* matmul 32x32 */
   float *A = (float *)(void *)cdata(&c, 0x10000), *B = (float *)(void *)cdata(&c, 0x20000);
   float *C = (float *)(void *)cdata(&c, 0x30000);
   for (int i = 0; i < 1024; i++) {
      A[i] = (float)((int)(rnd() % 200) - 100) / 16.0f;
      B[i] = (float)((int)(rnd() % 200) - 100) / 32.0f;
   }
   set_ptr(uni, 0, DATA_VA + 0x10000);
   set_ptr(uni, 2, DATA_VA + 0x20000);
   set_ptr(uni, 4, DATA_VA + 0x30000);
   st = run_compute(&c, kernel_matmul, (uint32_t[3]){8, 8, 1}, (uint32_t[3]){4, 4, 1}, 0, uni, 6, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "matmul status %u", st);
   bad = 0;
   for (int r = 0; r < 32; r++)
      for (int col = 0; col < 32; col++) {
         float acc = 0;
         for (int k = 0; k < 32; k++)
            acc = fmaf(A[r * 32 + k], B[k * 32 + col], acc);
         bad += C[r * 32 + col] != acc;
      }
   CHECK(bad == 0, "matmul: %u wrong", bad);

   /* histogram with atomics: 64 threadgroups spread over the workers */
   uint8_t *bytes = (uint8_t *)cdata(&c, 0x40000);
   uint32_t hist[64] = {0};
   for (int i = 0; i < 64 * 256; i++) {
      bytes[i] = (uint8_t)rnd();
      hist[bytes[i] & 63]++;
   }
   memset(cdata(&c, 0x50000), 0, 256);
   set_ptr(uni, 0, DATA_VA + 0x40000);
   set_ptr(uni, 2, DATA_VA + 0x50000);
   st = run_compute(&c, kernel_histogram, (uint32_t[3]){256, 1, 1}, (uint32_t[3]){64, 1, 1}, 0, uni, 4, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "histogram status %u", st);
   bad = 0;
   for (int b = 0; b < 64; b++)
      bad += cdata(&c, 0x50000)[b] != hist[b];
   CHECK(bad == 0, "histogram: %u wrong bins", bad);

   /* reduction: 16 threadgroups of 1024 threads */
   uint32_t sums[16] = {0};
   for (int i = 0; i < 16 * 1024; i++) {
      cdata(&c, 0x60000)[i] = rnd();
      sums[i / 1024] += cdata(&c, 0x60000)[i];
   }
   set_ptr(uni, 0, DATA_VA + 0x60000);
   set_ptr(uni, 2, DATA_VA + 0x80000);
   st = run_compute(&c, kernel_reduction, (uint32_t[3]){1024, 1, 1}, (uint32_t[3]){16, 1, 1}, 4096, uni, 4, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "reduction status %u", st);
   bad = 0;
   for (int g = 0; g < 16; g++)
      bad += cdata(&c, 0x80000)[g] != sums[g];
   CHECK(bad == 0, "reduction: %u wrong", bad);

   /* indirect grid read from memory; 3D grid covers every group once */
   cdata(&c, 0x90000)[0] = 5;
   cdata(&c, 0x90000)[1] = 3;
   cdata(&c, 0x90000)[2] = 1;
   memset(cdata(&c, 0xa0000), 0xff, 4096);
   set_ptr(uni, 0, DATA_VA + 0xa0000);
   st = run_compute(&c, k_ids, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){0, 0, 0}, 0, uni, 2,
                    DATA_VA + 0x90000);
   CHECK(st == VAGX_JOB_STATUS_OK, "indirect status %u", st);
   bad = 0;
   for (uint32_t i = 0; i < 15; i++)
      bad += cdata(&c, 0xa0000)[i] != i;
   CHECK(bad == 0 && cdata(&c, 0xa0000)[15] == 0xffffffffu, "indirect grid: %u wrong", bad);

   /* zero-sized grid: OK, nothing runs */
   memset(cdata(&c, 0xa0000), 0xff, 64);
   st = run_compute(&c, k_ids, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){0, 7, 7}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_OK && cdata(&c, 0xa0000)[0] == 0xffffffffu, "zero grid");

   uint64_t slot;
   struct vagx_job_result r;
   /* private stack: every thread stores id, id + 1 (b64) and reloads them
    * after clobbering the registers; a stack_size that ends before the
    * access faults (ILLEGAL_INSTRUCTION at the stack_st), one above the
    * contract's limit is an invalid descriptor */
   static const char *k_stack = "imad r1, sr.tgid_x, sr.tgsize_x, sr.tindex\n"
                                "iadd r2, r1, #1\n"
                                "stack_st.b64.offset8 r1\n"
                                "mov r1, #0\n"
                                "mov r2, #0\n"
                                "stack_ld.b64.offset8 r3\n"
                                "iadd r5, r3, r4\n"
                                "shl r6, r3, #2\n"
                                "st_global.b32 u0, r6, r5\n"
                                "end\n";
   memset(cdata(&c, 0xa0000), 0xff, 4096);
   compute_stack_size = 16;
   st = run_compute(&c, k_stack, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0);
   bad = 0;
   for (uint32_t i = 0; i < 128; i++)
      bad += cdata(&c, 0xa0000)[i] != 2 * i + 1;
   CHECK(st == VAGX_JOB_STATUS_OK && bad == 0, "stack: status %u, %u wrong", st, bad);
   compute_stack_size = 12;
   slot = submit_compute(&c, NULL, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0,
                         0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION && r.unit == VAGX_UNIT_USC &&
            r.address == VA_CODE + 24,
         "stack beyond stack_size: %u %u %llx", r.status, r.unit, (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   compute_stack_size = VAGX_MAX_STACK_BYTES + 4;
   st = run_compute(&c, NULL, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "stack_size above the limit: status %u", st);
   compute_stack_size = 0;

   /* illegal instruction: raw garbage as code */
   for (unsigned i = 0; i < 8; i++)
      pa_u32(d.f, c.code_pa)[i] = 0xffffffffu;
   slot = submit_compute(&c, NULL, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION && r.unit == VAGX_UNIT_USC &&
         r.address == VA_CODE, "illegal: %u %u %llx", r.status, r.unit, (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* wild address: MMU fault in the USC with the VA */
   set_ptr(uni, 0, 0x0000500000000000ull);
   slot = submit_compute(&c, k_wild, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){4, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_USC &&
         r.address == 0x0000500000000000ull, "wild: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_UNIT_GET(fs) == VAGX_UNIT_USC && VAGX_FAULT_STATUS_QUEUE_GET(fs) == 3 &&
         VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_READ, "wild fault %x", fs);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* store to the read-only code page: WRITE fault READ_ONLY */
   set_ptr(uni, 0, VA_CODE);
   st = run_compute(&c, "mov r1, #0\nst_global.b32 u0, r1, r1\nend\n", (uint32_t[3]){32, 1, 1},
                    (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_MMU_FAULT, "ro store %u", st);

   /* code on an unmapped page */
   vm_unmap(d.f, c.root, VA_CODE);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   slot = submit_compute(&c, NULL, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.address == VA_CODE, "code fault %u", r.status);
   fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_EXEC &&
         VAGX_FAULT_STATUS_REASON_GET(fs) == VAGX_FAULT_REASON_NOT_PRESENT, "exec fault %x", fs);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   vm_map_page(d.f, c.root, VA_CODE, c.code_pa, true, false);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));

   /* enormous grid and an endless kernel: abort and reset stop them */
   vagx_core_frontend_start(d.core);
   slot = submit_compute(&c, k_nothing, (uint32_t[3]){1, 1, 1},
                         (uint32_t[3]){0xffffffffu, 0xffffffffu, 0xffffffffu}, 0, uni, 0, 0, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, 5), "huge grid running");
   usleep(20000);
   double t0 = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "huge grid aborted");
   CHECK(t_now_s() - t0 < 1.0, "prompt %.3f", t_now_s() - t0);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "ABORTED");
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* An endless kernel does not hold a TLB invalidation up: the interpreter's
    * safepoints complete it, and from then on its stores reach the page
    * mapped now, never the old one (whose memory the OS may reuse). */
   const uint64_t spin_va = DATA_VA + 0x40000;
   set_ptr(uni, 0, spin_va);
   cdata(&c, 0x40000)[0] = 0;
   slot = submit_compute(&c, k_spin_store, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni,
                         2, 0, 0);
   CHECK(WAIT_UNTIL(cdata(&c, 0x40000)[0] != 0, 5), "spin store running");
   const uint64_t new_pa = pa_alloc(d.f, VAGX_PAGE_SIZE);
   vm_map_page(d.f, c.root, spin_va, new_pa, false, false);
   t0 = t_now_s();
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 5),
         "invalidation completes while the kernel spins");
   CHECK(t_now_s() - t0 < 0.5, "invalidation prompt %.3f s", t_now_s() - t0);
   CHECK(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, "kernel still running");
   const uint32_t old_val = cdata(&c, 0x40000)[0];
   CHECK(WAIT_UNTIL(pa_u32(d.f, new_pa)[0] != 0, 5), "stores reach the new page");
   usleep(20000);
   CHECK(cdata(&c, 0x40000)[0] == old_val, "no store to the old page after the invalidation");
   wr(&d, VAGX_REG_Q_ABORT(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "spin store aborted");
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   vm_map_page(d.f, c.root, spin_va, c.data_pa + 0x40000, false, false);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 5),
         "idle invalidation");

   slot = submit_compute(&c, k_spin, (uint32_t[3]){256, 1, 1}, (uint32_t[3]){64, 1, 1}, 0, uni, 0, 0, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, 5), "spin running");
   usleep(20000);
   t0 = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "spin aborted");
   CHECK(t_now_s() - t0 < 1.0, "prompt %.3f", t_now_s() - t0);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "spin ABORTED %u",
         slot_result(&d, slot).status);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   slot = submit_compute(&c, k_spin, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){8, 1, 1}, 0, uni, 0, 0, 40);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "spin timed out");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_TIMEOUT, "TIMEOUT");
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   slot = submit_compute(&c, k_spin, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){8, 1, 1}, 0, uni, 0, 0, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, 5), "spin running");
   wr(&d, VAGX_REG_Q_RESET(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_STOPPED, 5), "spin reset");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_PENDING, "reset: no result");
   vagx_core_frontend_stop(d.core);
   tdev_fini(&d);
}

/* 16x8 threads over an 8x8 RGBA8 image (image 0, also texture 0): each
 * loads its texel (img_ld), stores it with red and blue swapped to image 1
 * (img_st), fetches and samples it as a texture (tex.fetch, tex.lod with a
 * nearest sampler at the texel centre) and stores the red channels of the
 * three to u0: columns 8..15 are outside the images (loads give 0, stores
 * are dropped). */
static const char *k_tex =
   "mov r0, sr.tid_x\n"
   "mov r1, sr.tid_y\n"
   "img_ld.i0.2d r4, r0, #0\n"
   "mov r8, r6\nmov r9, r5\nmov r10, r4\nmov r11, r7\n"
   "img_st.i1.2d r0, r8, #0\n"
   "mov r12, #0\n"
   "tex.fetch.t0.s0.2d r16, r0, r12, r12\n"
   "u2f r2, r0\nu2f r3, r1\n"
   "fadd r2, r2, #0.5\nfadd r3, r3, #0.5\n"
   "fmul r2, r2, #0.125\nfmul r3, r3, #0.125\n"
   "tex.lod.t0.s0.2d r20, r2, r12, r12\n"
   "imad r13, r1, #16, r0\n"
   "shl r13, r13, #2\n"
   "st_global.b32 u0, r13, r4\n"
   "iadd r13, r13, #512\n"
   "st_global.b32 u0, r13, r16\n"
   "iadd r13, r13, #512\n"
   "st_global.b32 u0, r13, r20\n"
   "end\n";

#define TEX_SRC 0x10000u      /* image 0: 8x8 RGBA8_UNORM, linear, 32-byte rows */
#define TEX_DST 0x11000u      /* image 1: the same, followed by a guard row */
#define TEX_OUT 0x12000u      /* 3 x 128 u32 */

static void tex_pack_image(struct cenv *c, unsigned i, uint64_t va)
{
   struct vagx_pbe p;
   t_pbe_linear_2d(&p, VAGX_FORMAT_RGBA8_UNORM, 8, 8, 32, va);
   vagx_pbe_pack(cdata(c, 0x200 + i * 32), &p);
}

void test_compute_tex(unsigned workers)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, workers, false, 3, 4);
   struct cenv c;
   cenv_init(&c, &d, &t);
   uint32_t uni[2];
   set_ptr(uni, 0, DATA_VA + TEX_OUT);

   struct vagx_texture tx;
   t_texture_linear_2d(&tx, VAGX_FORMAT_RGBA8_UNORM, 8, 8, 32, DATA_VA + TEX_SRC);
   vagx_texture_pack(cdata(&c, 0), &tx);
   struct vagx_sampler sm;
   vagx_sampler_init(&sm);
   sm.min_filter = sm.mag_filter = VAGX_FILTER_NEAREST;
   vagx_sampler_pack(cdata(&c, 0x100), &sm);
   tex_pack_image(&c, 0, DATA_VA + TEX_SRC);
   tex_pack_image(&c, 1, DATA_VA + TEX_DST);
   compute_tables.texture_va = DATA_VA;
   compute_tables.sampler_va = DATA_VA + 0x100;
   compute_tables.image_va = DATA_VA + 0x200;
   compute_tables.textures = compute_tables.samplers = 1;
   compute_tables.images = 2;

   uint8_t *src = (uint8_t *)cdata(&c, TEX_SRC), *dst = (uint8_t *)cdata(&c, TEX_DST);
   for (unsigned i = 0; i < 256; i++)
      src[i] = (uint8_t)rnd();
   memset(dst, 0xa5, 256 + 32);
   memset(cdata(&c, TEX_OUT), 0xff, 3 * 128 * 4);
   unsigned st = run_compute(&c, k_tex, (uint32_t[3]){16, 8, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "tex kernel: status %u", st);
   unsigned bad = 0;
   for (unsigned y = 0; y < 8; y++)
      for (unsigned x = 0; x < 16; x++) {
         const uint32_t *o = cdata(&c, TEX_OUT);
         const unsigned l = y * 16 + x;
         float want = x < 8 ? (float)src[(y * 8 + x) * 4] / 255.0f : 0.0f, got[3];
         memcpy(got, (uint32_t[3]){o[l], o[128 + l], o[256 + l]}, sizeof(got));
         if (got[0] != want || (x < 8 && (got[1] != want || got[2] != want)))
            bad++;
         if (x < 8)
            for (unsigned k = 0; k < 4; k++)
               bad += dst[(y * 8 + x) * 4 + k] != src[(y * 8 + x) * 4 + (k == 0 ? 2 : k == 2 ? 0 : k)];
      }
   for (unsigned i = 256; i < 256 + 32; i++)
      bad += dst[i] != 0xa5;
   CHECK(bad == 0, "tex kernel (%u workers): %u wrong values", workers, bad);

   /* an image index past image_count: INVALID_DESCRIPTOR at its address */
   uint64_t slot = submit_compute(&c, "mov r0, #0\nmov r1, #0\nimg_ld.i2.2d r4, r0, #0\nend\n",
                                  (uint32_t[3]){32, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_INVALID_DESCRIPTOR && r.unit == VAGX_UNIT_PBE &&
         r.address == DATA_VA + 0x200 + 2 * 32, "image index: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* a texture index past texture_count */
   slot = submit_compute(&c, "mov r0, #0\nmov r1, #0\ntex.fetch.t1.s0.2d r4, r0, r0, r0\nend\n",
                         (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_INVALID_DESCRIPTOR && r.unit == VAGX_UNIT_TEX &&
         r.address == DATA_VA + 32, "texture index: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* an image in unmapped memory: an MMU fault of the PBE at the texel's VA */
   const uint64_t wild = 0x0000500000000000ull;
   tex_pack_image(&c, 1, wild);
   slot = submit_compute(&c, k_tex, (uint32_t[3]){16, 8, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_PBE &&
         (r.address & ~0xffull) == wild, "image fault: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_UNIT_GET(fs) == VAGX_UNIT_PBE &&
         VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_WRITE, "image fault status %x", fs);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   tex_pack_image(&c, 1, DATA_VA + TEX_DST);

   /* the tile buffer does not exist in a compute job */
   st = run_compute(&c, "ld_tile.rt0 r4, #0\nend\n", (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1},
                    0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, "ld_tile in compute: %u", st);

   /* and the queue still works */
   st = run_compute(&c, k_tex, (uint32_t[3]){16, 8, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "tex kernel again: status %u", st);
   memset(&compute_tables, 0, sizeof(compute_tables));
   tdev_fini(&d);
}
