/* SPDX-License-Identifier: MIT */
/*
 * gl_compute OUTDIR [CASE...]: compute shaders, shader storage buffers,
 * shared memory, barriers, atomics, atomic counters and images (desktop GL
 * 3.0 compatibility context, GLSL 1.30 with GL_ARB_compute_shader,
 * GL_ARB_shader_storage_buffer_object, GL_ARB_shader_atomic_counters and
 * GL_ARB_shader_image_load_store; EGL surfaceless).  Each case checks exact
 * values it can compute itself and prints "case NAME ok" or "case NAME
 * error: ..."; the cases that draw (compute_vbo, fs_ssbo, image_fs) also
 * write OUTDIR/NAME.ppm, which tests/gl/run compares with softpipe's.
 * `gl_compute --list` prints the case names.
 *
 * Between the lines "gl_compute: no_cpu_wait begin/end" on stderr the
 * driver must not wait for the device (tests/gl/run counts
 * VAGX_DEBUG=waits lines).
 */
#include "gl_desktop.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define W 64
#define H 64

static unsigned char px[W * H * 4];

#define CS_HEAD                                                                      \
   "#version 130\n"                                                                  \
   "#extension GL_ARB_compute_shader : require\n"                                    \
   "#extension GL_ARB_shader_storage_buffer_object : require\n"                      \
   "#extension GL_ARB_shader_atomic_counters : require\n"                            \
   "#extension GL_ARB_shading_language_420pack : require\n"                      \
   "#extension GL_ARB_uniform_buffer_object : require\n"

#define FS_HEAD                                                                      \
   "#version 130\n"                                                                  \
   "#extension GL_ARB_shader_storage_buffer_object : require\n"                      \
   "#extension GL_ARB_shader_atomic_counters : require\n"                            \
   "#extension GL_ARB_shading_language_420pack : require\n"                      \
   "#extension GL_ARB_uniform_buffer_object : require\n"

/* A buffer of `size` bytes (initial data or zeros) bound to target index */
static GLuint
buffer(GLenum target, unsigned index, unsigned size, const void *data)
{
   GLuint b;
   glGenBuffers(1, &b);
   glBindBuffer(target, b);
   void *zero = data ? NULL : calloc(1, size);
   glBufferData(target, size, data ? data : zero, GL_DYNAMIC_COPY);
   free(zero);
   glBindBufferBase(target, index, b);
   return b;
}

static void
read_buffer(GLenum target, GLuint b, unsigned size, void *out)
{
   glBindBuffer(target, b);
   glGetBufferSubData(target, 0, size, out);
}

/* ---- ssbo_ids: every system value, written from each invocation ---- */

static bool
case_ssbo_ids(void)
{
   static const char *src = CS_HEAD
      "layout(local_size_x = 8, local_size_y = 2, local_size_z = 2) in;\n"
      "layout(std430, binding = 0) buffer Out { uvec4 v[]; };\n"
      "void main() {\n"
      "   uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;\n"
      "   uvec3 g = gl_GlobalInvocationID;\n"
      "   uint i = g.x + n.x * (g.y + n.y * g.z);\n"
      "   v[3u * i] = uvec4(g, gl_LocalInvocationIndex);\n"
      "   v[3u * i + 1u] = uvec4(gl_LocalInvocationID, 0xabcd0000u + i);\n"
      "   v[3u * i + 2u] = uvec4(gl_WorkGroupID,\n"
      "                          gl_NumWorkGroups.x + 16u * gl_NumWorkGroups.y + 256u * gl_NumWorkGroups.z);\n"
      "}\n";
   const unsigned gx = 3, gy = 4, gz = 2, lx = 8, ly = 2, lz = 2;
   const unsigned nx = gx * lx, ny = gy * ly, nz = gz * lz, n = nx * ny * nz;
   if (!gl_cs_program(src))
      return false;
   const unsigned size = n * 3 * 16;
   GLuint b = buffer(GL_SHADER_STORAGE_BUFFER, 0, size, NULL);
   glDispatchCompute(gx, gy, gz);
   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
   uint32_t *v = malloc(size);
   read_buffer(GL_SHADER_STORAGE_BUFFER, b, size, v);
   bool ok = gl_check_error("dispatch");
   for (unsigned z = 0; ok && z < nz; z++)
      for (unsigned y = 0; ok && y < ny; y++)
         for (unsigned x = 0; ok && x < nx; x++) {
            const unsigned i = x + nx * (y + ny * z);
            const unsigned l[3] = { x % lx, y % ly, z % lz };
            const uint32_t want[12] = {
               x, y, z, l[0] + lx * (l[1] + ly * l[2]),
               l[0], l[1], l[2], 0xabcd0000u + i,
               x / lx, y / ly, z / lz, gx + 16 * gy + 256 * gz,
            };
            for (unsigned k = 0; k < 12; k++)
               if (v[12 * i + k] != want[k]) {
                  snprintf(gl_err, sizeof(gl_err),
                           "invocation (%u,%u,%u) word %u: %u, want %u", x, y, z, k,
                           v[12 * i + k], want[k]);
                  ok = false;
                  break;
               }
         }
   free(v);
   return ok;
}

/* ---- shared_reduce: tree reduction in shared memory, barriers ---- */

static bool
case_shared_reduce(void)
{
   static const char *src = CS_HEAD
      "layout(local_size_x = 256) in;\n"
      "layout(std430, binding = 0) readonly buffer In { uint data[]; };\n"
      "layout(std430, binding = 1) buffer Out { uint sums[]; };\n"
      "shared uint s[256];\n"
      "shared uint m[256];\n"
      "void main() {\n"
      "   uint l = gl_LocalInvocationID.x;\n"
      "   uint d = data[gl_GlobalInvocationID.x];\n"
      "   s[l] = d;\n"
      "   m[255u - l] = d;\n"
      "   barrier();\n"
      "   for (uint stride = 128u; stride > 0u; stride >>= 1) {\n"
      "      if (l < stride) {\n"
      "         s[l] += s[l + stride];\n"
      "         m[l] = max(m[l], m[l + stride]);\n"
      "      }\n"
      "      memoryBarrierShared();\n"
      "      barrier();\n"
      "   }\n"
      "   if (l == 0u) {\n"
      "      sums[2u * gl_WorkGroupID.x] = s[0];\n"
      "      sums[2u * gl_WorkGroupID.x + 1u] = m[0];\n"
      "   }\n"
      "}\n";
   enum { GROUPS = 16, N = GROUPS * 256 };
   if (!gl_cs_program(src))
      return false;
   uint32_t *data = malloc(N * 4);
   for (unsigned i = 0; i < N; i++)
      data[i] = (i * 2654435761u) >> 12;
   buffer(GL_SHADER_STORAGE_BUFFER, 0, N * 4, data);
   GLuint out = buffer(GL_SHADER_STORAGE_BUFFER, 1, GROUPS * 8, NULL);
   glDispatchCompute(GROUPS, 1, 1);
   uint32_t sums[GROUPS * 2];
   read_buffer(GL_SHADER_STORAGE_BUFFER, out, sizeof(sums), sums);
   bool ok = gl_check_error("dispatch");
   for (unsigned g = 0; ok && g < GROUPS; g++) {
      uint32_t s = 0, m = 0;
      for (unsigned i = 0; i < 256; i++) {
         s += data[g * 256 + i];
         m = data[g * 256 + i] > m ? data[g * 256 + i] : m;
      }
      if (sums[2 * g] != s || sums[2 * g + 1] != m) {
         snprintf(gl_err, sizeof(gl_err), "group %u: sum %u max %u, want %u %u", g, sums[2 * g],
                  sums[2 * g + 1], s, m);
         ok = false;
      }
   }
   free(data);
   return ok;
}

/* The expected words 0..7 of the atomics cases after invocation `id`,
 * whose hash is h: add, umax, umin, smax, smin, or and and of a bit of id
 * (mod or_mod, and_mod), xor */
static void
fold_atomics(uint32_t *w, uint32_t id, uint32_t h, unsigned or_mod, unsigned and_mod)
{
   w[0] += id;
   w[1] = h > w[1] ? h : w[1];
   w[2] = h < w[2] ? h : w[2];
   w[3] = (int32_t)h > (int32_t)w[3] ? h : w[3];
   w[4] = (int32_t)h < (int32_t)w[4] ? h : w[4];
   w[5] |= 1u << (id % or_mod);
   w[6] &= ~(1u << (id % and_mod));
   w[7] ^= h;
}

/* ---- atomics: every SSBO atomic, 16384 invocations on the same words ---- */

static bool
case_atomics(void)
{
   static const char *src = CS_HEAD
      "layout(local_size_x = 256) in;\n"
      "layout(std430, binding = 0) buffer C {\n"
      "   uint total; uint umaxv; uint uminv; int smaxv; int sminv;\n"
      "   uint orv; uint andv; uint xorv; uint cas; uint xchg; uint hist[16];\n"
      "};\n"
      "layout(std430, binding = 1) buffer R { uint ret[]; };\n"
      "void main() {\n"
      "   uint g = gl_GlobalInvocationID.x;\n"
      "   uint h = g * 2654435761u;\n"
      "   ret[g] = atomicAdd(total, g);\n"
      "   atomicMax(umaxv, h);\n"
      "   atomicMin(uminv, h);\n"
      "   atomicMax(smaxv, int(h));\n"
      "   atomicMin(sminv, int(h));\n"
      "   atomicOr(orv, 1u << (g % 29u));\n"
      "   atomicAnd(andv, ~(1u << (g % 23u)));\n"
      "   atomicXor(xorv, h);\n"
      "   atomicAdd(hist[g % 16u], 1u);\n"
      "   atomicExchange(xchg, g);\n"
      "   uint old = cas;\n"
      "   for (;;) {\n"
      "      uint prev = atomicCompSwap(cas, old, old + 3u);\n"
      "      if (prev == old) break;\n"
      "      old = prev;\n"
      "   }\n"
      "}\n";
   enum { GROUPS = 64, N = GROUPS * 256 };
   if (!gl_cs_program(src))
      return false;
   uint32_t init[26] = { 0, 0, 0xffffffffu, (uint32_t)INT32_MIN, INT32_MAX, 0, 0xffffffffu, 0, 0, 0 };
   GLuint c = buffer(GL_SHADER_STORAGE_BUFFER, 0, sizeof(init), init);
   GLuint r = buffer(GL_SHADER_STORAGE_BUFFER, 1, N * 4, NULL);
   glDispatchCompute(GROUPS, 1, 1);
   uint32_t got[26];
   read_buffer(GL_SHADER_STORAGE_BUFFER, c, sizeof(got), got);
   uint32_t *ret = malloc(N * 4);
   read_buffer(GL_SHADER_STORAGE_BUFFER, r, N * 4, ret);
   if (!gl_check_error("dispatch"))
      return false;
   uint32_t want[26] = { 0, 0, 0xffffffffu, (uint32_t)INT32_MIN, INT32_MAX, 0, 0xffffffffu, 0,
                         0, 0 };
   for (uint32_t g = 0; g < N; g++) {
      fold_atomics(want, g, g * 2654435761u, 29, 23);
      want[10 + g % 16]++;
   }
   want[8] = 3 * N;
   static const char *names[10] = { "add", "umax", "umin", "smax", "smin", "or", "and", "xor",
                                    "compswap", "exchange" };
   for (unsigned k = 0; k < 26; k++) {
      if (k == 9) {
         if (got[9] >= N)
            GL_FAIL("exchange left %u, not an invocation's id", got[9]);
         continue;
      }
      if (got[k] != want[k] && k < 10)
         GL_FAIL("%s: %u, want %u", names[k], got[k], want[k]);
      if (got[k] != want[k])
         GL_FAIL("histogram bin %u: %u, want %u", k - 10, got[k], want[k]);
   }
   /* atomicAdd's return values: each a distinct partial sum, so every
    * invocation's is below the total and the largest is total - its id */
   uint32_t maxret = 0, at = 0;
   for (uint32_t g = 0; g < N; g++)
      if (ret[g] >= maxret)
         maxret = ret[g], at = g;
   const bool ok = maxret + at == want[0];
   free(ret);
   if (!ok)
      GL_FAIL("atomicAdd returned %u to invocation %u: not the last partial sum", maxret, at);
   return true;
}

/* ---- shared_atomics: every shared-memory atomic within a workgroup ---- */

static bool
case_shared_atomics(void)
{
   static const char *src = CS_HEAD
      "layout(local_size_x = 128, local_size_y = 2) in;\n"
      "layout(std430, binding = 0) buffer Out { uint o[]; };\n"
      "shared uint add_, umax_, umin_, or_, and_, xor_, cas_, xchg_;\n"
      "shared int smax_, smin_;\n"
      "void main() {\n"
      "   uint l = gl_LocalInvocationIndex;\n"
      "   if (l == 0u) {\n"
      "      add_ = 0u; umax_ = 0u; umin_ = 0xffffffffu; or_ = 0u; and_ = 0xffffffffu;\n"
      "      xor_ = 0u; cas_ = 0u; xchg_ = 1000u; smax_ = -2147483647 - 1; smin_ = 2147483647;\n"
      "   }\n"
      "   barrier();\n"
      "   uint h = (l + 1000u * gl_WorkGroupID.x) * 2654435761u;\n"
      "   atomicAdd(add_, l);\n"
      "   atomicMax(umax_, h);\n"
      "   atomicMin(umin_, h);\n"
      "   atomicMax(smax_, int(h));\n"
      "   atomicMin(smin_, int(h));\n"
      "   atomicOr(or_, 1u << (l % 31u));\n"
      "   atomicAnd(and_, ~(1u << (l % 19u)));\n"
      "   atomicXor(xor_, h);\n"
      "   atomicExchange(xchg_, l);\n"
      "   uint old = cas_;\n"
      "   for (;;) {\n"
      "      uint prev = atomicCompSwap(cas_, old, old + l);\n"
      "      if (prev == old) break;\n"
      "      old = prev;\n"
      "   }\n"
      "   barrier();\n"
      "   if (l == 0u) {\n"
      "      uint b = 10u * gl_WorkGroupID.x;\n"
      "      o[b] = add_; o[b + 1u] = umax_; o[b + 2u] = umin_; o[b + 3u] = uint(smax_);\n"
      "      o[b + 4u] = uint(smin_); o[b + 5u] = or_; o[b + 6u] = and_; o[b + 7u] = xor_;\n"
      "      o[b + 8u] = cas_; o[b + 9u] = xchg_;\n"
      "   }\n"
      "}\n";
   enum { GROUPS = 4, T = 256 };
   if (!gl_cs_program(src))
      return false;
   GLuint b = buffer(GL_SHADER_STORAGE_BUFFER, 0, GROUPS * 40, NULL);
   glDispatchCompute(GROUPS, 1, 1);
   uint32_t got[GROUPS * 10];
   read_buffer(GL_SHADER_STORAGE_BUFFER, b, sizeof(got), got);
   if (!gl_check_error("dispatch"))
      return false;
   for (unsigned g = 0; g < GROUPS; g++) {
      uint32_t w[10] = { 0, 0, 0xffffffffu, (uint32_t)INT32_MIN, INT32_MAX, 0, 0xffffffffu, 0, 0 };
      for (uint32_t l = 0; l < T; l++) {
         const uint32_t h = (l + 1000 * g) * 2654435761u;
         fold_atomics(w, l, h, 31, 19);
         w[8] += l;
      }
      for (unsigned k = 0; k < 9; k++)
         if (got[10 * g + k] != w[k])
            GL_FAIL("group %u word %u: %u, want %u", g, k, got[10 * g + k], w[k]);
      if (got[10 * g + 9] >= T)
         GL_FAIL("group %u: exchange left %u", g, got[10 * g + 9]);
   }
   return true;
}

/* ---- atomic_counters: in a compute shader and in a fragment shader ---- */

static const char *vs_src =
   "#version 130\n"
   "in vec2 pos;\n"
   "flat out int idx;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); idx = gl_VertexID / 3; }\n";

/* Draws pixels x0..x1-1 by y0..y1-1 with the current program */
static void
draw_px_rect(int px0, int py0, int px1, int py1)
{
   const float x0 = -1 + 2.0f * px0 / W, x1 = -1 + 2.0f * px1 / W;
   const float y0 = -1 + 2.0f * py0 / H, y1 = -1 + 2.0f * py1 / H;
   const float v[] = { x0, y0, x1, y0, x0, y1, x1, y1 };
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, v);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

/* Clears to blue and draws the 40x24 rectangle at (8, 16) with the
 * current program */
static void
draw_rect(void)
{
   glClearColor(0, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   draw_px_rect(8, 16, 48, 40);
}

static bool
case_atomic_counters(void)
{
   static const char *cs = CS_HEAD
      "layout(local_size_x = 64) in;\n"
      "layout(binding = 0, offset = 0) uniform atomic_uint up;\n"
      "layout(binding = 0, offset = 4) uniform atomic_uint down;\n"
      "layout(binding = 1, offset = 8) uniform atomic_uint other;\n"
      "layout(std430, binding = 0) buffer R { uint r[]; };\n"
      "void main() {\n"
      "   uint g = gl_GlobalInvocationID.x;\n"
      "   r[g] = atomicCounterIncrement(up);\n"
      "   if ((g & 1u) == 0u)\n"
      "      atomicCounterDecrement(down);\n"
      "   if (g % 3u == 0u)\n"
      "      atomicCounterIncrement(other);\n"
      "}\n";
   static const char *fs = FS_HEAD
      "layout(binding = 0, offset = 0) uniform atomic_uint frags;\n"
      "void main() {\n"
      "   uint n = atomicCounterIncrement(frags);\n"
      "   gl_FragColor = vec4(float(n % 2u), 0.0, 0.0, 1.0);\n"
      "}\n";
   enum { N = 20 * 64 };
   if (!gl_cs_program(cs))
      return false;
   uint32_t init0[2] = { 7, 100000 }, init1[3] = { 0, 0, 50 };
   GLuint a0 = buffer(GL_ATOMIC_COUNTER_BUFFER, 0, sizeof(init0), init0);
   GLuint a1 = buffer(GL_ATOMIC_COUNTER_BUFFER, 1, sizeof(init1), init1);
   GLuint r = buffer(GL_SHADER_STORAGE_BUFFER, 0, N * 4, NULL);
   glDispatchCompute(N / 64, 1, 1);
   glMemoryBarrier(GL_ATOMIC_COUNTER_BARRIER_BIT);
   uint32_t got0[2], got1[3];
   read_buffer(GL_ATOMIC_COUNTER_BUFFER, a0, sizeof(got0), got0);
   read_buffer(GL_ATOMIC_COUNTER_BUFFER, a1, sizeof(got1), got1);
   uint32_t *ret = malloc(N * 4);
   read_buffer(GL_SHADER_STORAGE_BUFFER, r, N * 4, ret);
   if (!gl_check_error("dispatch"))
      return false;
   if (got0[0] != 7 + N || got0[1] != 100000 - N / 2 || got1[2] != 50 + (N + 2) / 3 || got1[0] ||
       got1[1])
      GL_FAIL("counters %u %u %u, want %u %u %u", got0[0], got0[1], got1[2], 7 + N, 100000 - N / 2,
           50 + (N + 2) / 3);
   /* each increment returned a distinct old value in [7, 7 + N) */
   uint8_t *seen = calloc(N, 1);
   bool ok = true;
   for (unsigned g = 0; g < N && ok; g++) {
      ok = ret[g] >= 7 && ret[g] < 7 + N && !seen[ret[g] - 7];
      if (ok)
         seen[ret[g] - 7] = 1;
   }
   free(seen);
   free(ret);
   if (!ok)
      GL_FAIL("atomicCounterIncrement returned the same value twice");

   /* a fragment shader counting its fragments: a 40x24 rectangle */
   GLuint p = gl_program(vs_src, fs);
   if (!p)
      GL_FAIL("fragment program did not build");
   uint32_t zero = 0;
   GLuint a = buffer(GL_ATOMIC_COUNTER_BUFFER, 0, 4, &zero);
   draw_rect();
   glMemoryBarrier(GL_ATOMIC_COUNTER_BARRIER_BIT);
   uint32_t frags;
   read_buffer(GL_ATOMIC_COUNTER_BUFFER, a, 4, &frags);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   if (!gl_check_error("draw"))
      return false;
   if (frags != 40 * 24)
      GL_FAIL("the fragment shader counted %u fragments, want %u", frags, 40 * 24);
   unsigned odd = 0;
   for (int i = 0; i < W * H; i++)
      odd += px[4 * i] == 255;
   if (odd != 40 * 24 / 2)
      GL_FAIL("%u fragments got an odd count, want %u", odd, 40 * 24 / 2);
   return true;
}

/* ---- indirect: a dispatch whose grid an earlier dispatch wrote ---- */

static bool
case_indirect(void)
{
   static const char *writer = CS_HEAD
      "layout(local_size_x = 1) in;\n"
      "layout(std430, binding = 0) buffer Args { uint pad[4]; uvec4 grid; uvec4 zero; };\n"
      "uniform uvec3 want;\n"
      "void main() { grid = uvec4(want, 0u); zero = uvec4(4u, 0u, 2u, 0u); }\n";
   static const char *reader = CS_HEAD
      "layout(local_size_x = 2, local_size_y = 2) in;\n"
      "layout(std430, binding = 1) buffer Out { uint n; uvec4 v[]; };\n"
      "void main() {\n"
      "   uint i = atomicAdd(n, 1u);\n"
      "   v[i] = uvec4(gl_WorkGroupID.x + 16u * gl_WorkGroupID.y + 256u * gl_WorkGroupID.z,\n"
      "                gl_NumWorkGroups);\n"
      "}\n";
   GLuint pw = gl_cs_program(writer);
   if (!pw)
      return false;
   GLuint args = buffer(GL_SHADER_STORAGE_BUFFER, 0, 48, NULL);
   const unsigned g[3] = { 3, 2, 5 };
   glUniform3ui(glGetUniformLocation(pw, "want"), g[0], g[1], g[2]);
   glDispatchCompute(1, 1, 1);
   glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
   if (!gl_cs_program(reader))
      return false;
   const unsigned groups = g[0] * g[1] * g[2];
   GLuint out = buffer(GL_SHADER_STORAGE_BUFFER, 1, 16 + 16 * 4 * groups, NULL);
   glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, args);
   glDispatchComputeIndirect(16);
   /* a grid with a zero dimension: no work */
   glDispatchComputeIndirect(32);
   glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
   uint32_t *v = malloc(16 + 16 * 4 * groups);
   read_buffer(GL_SHADER_STORAGE_BUFFER, out, 16 + 16 * 4 * groups, v);
   if (!gl_check_error("indirect dispatch")) {
      free(v);
      return false;
   }
   unsigned per_group[256] = { 0 };
   bool ok = v[0] == 4 * groups;
   if (!ok)
      snprintf(gl_err, sizeof(gl_err), "%u invocations ran, want %u", v[0], 4 * groups);
   for (unsigned i = 0; ok && i < 4 * groups; i++) {
      const uint32_t *e = v + 4 + 4 * i;
      const unsigned x = e[0] % 16, y = (e[0] / 16) % 16, z = e[0] / 256;
      if (e[1] != g[0] || e[2] != g[1] || e[3] != g[2] || x >= g[0] || y >= g[1] || z >= g[2]) {
         snprintf(gl_err, sizeof(gl_err), "entry %u: group %u,%u,%u of %u,%u,%u", i, x, y, z,
                  e[1], e[2], e[3]);
         ok = false;
      } else if (++per_group[x + g[0] * (y + g[1] * z)] > 4) {
         snprintf(gl_err, sizeof(gl_err), "group %u,%u,%u ran more than 4 invocations", x, y, z);
         ok = false;
      }
   }
   free(v);
   return ok;
}

/* ---- compute_vbo: a dispatch writes vertices and colours, a draw reads
 * them as a vertex buffer and its fragment shader as a shader buffer ---- */

static bool
case_compute_vbo(void)
{
   static const char *cs = CS_HEAD
      "layout(local_size_x = 16) in;\n"
      "layout(std430, binding = 0) buffer V { vec2 pos[]; };\n"
      "layout(std430, binding = 1) buffer C { vec4 col[]; };\n"
      "void main() {\n"
      "   uint t = gl_GlobalInvocationID.x;\n"
      "   float x = -1.0 + 0.25 * float(t % 8u), y = -1.0 + 0.25 * float(t / 8u);\n"
      "   pos[3u * t] = vec2(x, y);\n"
      "   pos[3u * t + 1u] = vec2(x + 0.25, y);\n"
      "   pos[3u * t + 2u] = vec2(x, y + 0.25);\n"
      "   col[t] = vec4(float(t % 4u) / 3.0, float((t / 4u) % 4u) / 3.0, float(t / 16u) / 3.0, 1.0);\n"
      "}\n";
   static const char *fs = FS_HEAD
      "flat in int idx;\n"
      "layout(std430, binding = 1) readonly buffer C { vec4 col[]; };\n"
      "void main() { gl_FragColor = col[idx]; }\n";
   enum { TRIS = 64 };
   if (!gl_cs_program(cs))
      return false;
   GLuint vb = buffer(GL_SHADER_STORAGE_BUFFER, 0, TRIS * 3 * 8, NULL);
   buffer(GL_SHADER_STORAGE_BUFFER, 1, TRIS * 16, NULL);
   glDispatchCompute(TRIS / 16, 1, 1);
   glMemoryBarrier(GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
   if (!gl_program(vs_src, fs))
      GL_FAIL("draw program did not build");
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glBindBuffer(GL_ARRAY_BUFFER, vb);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLES, 0, TRIS * 3);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   if (!gl_check_error("draw"))
      return false;
   if (!gl_save_image(gl_outdir, "compute_vbo", px, W, H))
      return false;
   /* the lower-left pixel of each cell's triangle: its colour exactly */
   for (unsigned t = 0; t < TRIS; t++) {
      const unsigned x = (t % 8) * 8 + 1, y = (t / 8) * 8 + 1;
      const unsigned char *p = px + 4 * (y * W + x);
      const unsigned want[3] = { (t % 4) * 85, ((t / 4) % 4) * 85, (t / 16) * 85 };
      for (unsigned c = 0; c < 3; c++)
         if (abs((int)p[c] - (int)want[c]) > 1)
            GL_FAIL("triangle %u: pixel (%u,%u) is %u,%u,%u, want %u,%u,%u", t, x, y, p[0], p[1],
                 p[2], want[0], want[1], want[2]);
   }
   return true;
}

/* ---- fs_ssbo: a fragment shader stores to a buffer and counts with an
 * SSBO atomic; a dispatch then sums what it stored ---- */

static bool
case_fs_ssbo(void)
{
   static const char *fs = FS_HEAD
      "layout(std430, binding = 0) buffer P { uint count; uint pix[]; };\n"
      "void main() {\n"
      "   ivec2 c = ivec2(gl_FragCoord.xy);\n"
      "   pix[c.y * 64 + c.x] = uint(c.x * 1000 + c.y);\n"
      "   atomicAdd(count, 1u);\n"
      "   gl_FragColor = vec4(float(c.x) / 63.0, float(c.y) / 63.0, 0.5, 1.0);\n"
      "}\n";
   static const char *cs = CS_HEAD
      "layout(local_size_x = 64) in;\n"
      "layout(std430, binding = 0) readonly buffer P { uint count; uint pix[]; };\n"
      "layout(std430, binding = 1) buffer S { uint sum; uint n; uint len; };\n"
      "void main() {\n"
      "   uint v = pix[gl_GlobalInvocationID.x];\n"
      "   atomicAdd(sum, v);\n"
      "   if (v != 0u) atomicAdd(n, 1u);\n"
      "   if (gl_GlobalInvocationID.x == 0u) len = uint(pix.length());\n"
      "}\n";
   if (!gl_program(vs_src, fs))
      GL_FAIL("fragment program did not build");
   GLuint p = buffer(GL_SHADER_STORAGE_BUFFER, 0, 4 + W * H * 4, NULL);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   draw_px_rect(4, 10, 36, 30); /* pixels 4..35 x 10..29 */
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
   if (!gl_cs_program(cs))
      return false;
   /* pix[] as seen from offset 4: W * H words */
   GLuint s = buffer(GL_SHADER_STORAGE_BUFFER, 1, 12, NULL);
   glDispatchCompute(W * H / 64, 1, 1);
   uint32_t got[3], count;
   read_buffer(GL_SHADER_STORAGE_BUFFER, s, 12, got);
   read_buffer(GL_SHADER_STORAGE_BUFFER, p, 4, &count);
   if (!gl_check_error("draw and dispatch"))
      return false;
   uint32_t sum = 0, n = 0;
   for (unsigned y = 10; y < 30; y++)
      for (unsigned x = 4; x < 36; x++)
         sum += x * 1000 + y, n++;
   if (count != n)
      GL_FAIL("the fragment shader's atomic counted %u, want %u", count, n);
   if (got[0] != sum || got[1] != n)
      GL_FAIL("the dispatch read sum %u over %u pixels, want %u over %u", got[0], got[1], sum, n);
   if (got[2] != W * H)
      GL_FAIL("pix.length() = %u, want %u", got[2], W * H);
   if (!gl_save_image(gl_outdir, "fs_ssbo", px, W, H))
      return false;
   return true;
}

/* ---- fs_late_depth: a fragment shader that writes memory runs before
 * the depth test (GL 4.6 14.9, 17.3) unless it asks for
 * layout(early_fragment_tests): behind a nearer rectangle, each invocation
 * of the counting shader adds 1; with early tests none runs ---- */

static bool
case_fs_late_depth(void)
{
   static const char *vs = "#version 130\n"
      "in vec2 pos;\n"
      "uniform float z;\n"
      "void main() { gl_Position = vec4(pos, z, 1.0); }\n";
   static const char *plain = "#version 130\n"
      "void main() { gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0); }\n";
   /* early_fragment_tests is GL_ARB_shader_image_load_store's; Mesa's
    * linker (gl_nir_linker.c link_fs_inout_layout_qualifiers) drops it
    * below GLSL 1.50 unless GL_ARB_fragment_coord_conventions is enabled */
#define COUNT_FS(early)                                                                \
   FS_HEAD "#extension GL_ARB_shader_image_load_store : require\n"                      \
      "#extension GL_ARB_fragment_coord_conventions : enable\n" early                  \
      "layout(std430, binding = 0) buffer C { uint count[3]; };\n"                     \
      "uniform int slot;\n"                                                            \
      "void main() {\n"                                                                \
      "   atomicAdd(count[slot], 1u);\n"                                                \
      "   gl_FragColor = vec4(0.0, 1.0, float(slot) * 0.5, 1.0);\n"                    \
      "}\n"
   static const char *late = COUNT_FS(""), *early = COUNT_FS("layout(early_fragment_tests) in;\n");
   GLuint p[3] = { gl_program(vs, plain), gl_program(vs, late), gl_program(vs, early) };
   if (!p[0] || !p[1] || !p[2])
      return false;
   GLuint zs = gl_depth_buffer(GL_DEPTH_COMPONENT24, GL_DEPTH_ATTACHMENT, W, H);
   GLuint b = buffer(GL_SHADER_STORAGE_BUFFER, 0, 12, NULL);
   glClearColor(0, 0, 1, 1);
   glClearDepth(1.0);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   /* near: pixels 8..39 x 8..31 at z -0.5; the counting shaders behind it
    * (slot 0 late, slot 1 early) and in front of it (slot 2, late) */
   static const struct { int prog, slot; float z; } draws[] = {
      { 0, 0, -0.5f }, { 1, 0, 0.5f }, { 2, 1, 0.5f }, { 1, 2, -0.9f } };
   for (unsigned i = 0; i < 4; i++) {
      glUseProgram(p[draws[i].prog]);
      glUniform1f(glGetUniformLocation(p[draws[i].prog], "z"), draws[i].z);
      if (draws[i].prog)
         glUniform1i(glGetUniformLocation(p[draws[i].prog], "slot"), draws[i].slot);
      if (i == 3)
         draw_px_rect(8, 8, 24, 32);
      else
         draw_px_rect(8, 8, 40, 32);
   }
   glDisable(GL_DEPTH_TEST);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
   uint32_t count[3];
   read_buffer(GL_SHADER_STORAGE_BUFFER, b, 12, count);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, 0);
   glDeleteRenderbuffers(1, &zs);
   if (!gl_check_error("draws"))
      return false;
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         const unsigned char *g = &px[(y * W + x) * 4];
         const bool in = x >= 8 && x < 40 && y >= 8 && y < 32, front = in && x < 24;
         const unsigned char want[4] = { in && !front ? 255 : 0, front ? 255 : 0,
                                         front ? 255 : in ? 0 : 255, 255 };
         if (memcmp(g, want, 4))
            GL_FAIL("pixel (%d,%d): (%u %u %u %u), want (%u %u %u 255)", x, y, g[0], g[1],
                    g[2], g[3], want[0], want[1], want[2]);
      }
   if (count[0] != 32 * 24 || count[1] != 0 || count[2] != 16 * 24)
      GL_FAIL("invocations: %u behind (late tests), %u behind (early tests), %u in front; "
              "want %u 0 %u",
              count[0], count[1], count[2], 32 * 24, 16 * 24);
   return gl_save_image(gl_outdir, "fs_late_depth", px, W, H);
}

/* ---- robust: out-of-range SSBO and shared accesses do not fault ---- */

static bool
case_robust(void)
{
   static const char *cs = CS_HEAD
      "layout(local_size_x = 32) in;\n"
      "layout(std430, binding = 0) buffer B { uint v[]; };\n"
      "layout(std430, binding = 1) buffer R { uint r[]; };\n"
      "uniform uint far;\n"
      "shared uint s[32];\n"
      "void main() {\n"
      "   uint l = gl_LocalInvocationID.x;\n"
      "   v[far + l * 4096u] = 77u;\n"
      "   uint x = v[far * 3u + l];\n"
      "   atomicAdd(v[far + 12345u], 1u);\n"
      "   s[l] = l;\n"
      "   barrier();\n"
      "   uint y = s[(l + far) % 64u];\n"
      "   s[far + l] = 5u;\n"
      "   barrier();\n"
      "   r[l] = l * 3u + 1u;\n"
      "   if (x == 12345678u || y == 12345678u) r[l] = 0u;\n"
      "}\n";
   GLuint p = gl_cs_program(cs);
   if (!p)
      return false;
   glUniform1ui(glGetUniformLocation(p, "far"), 1u << 24);
   uint32_t init[16] = { 0 };
   buffer(GL_SHADER_STORAGE_BUFFER, 0, sizeof(init), init);
   GLuint r = buffer(GL_SHADER_STORAGE_BUFFER, 1, 32 * 4, NULL);
   glDispatchCompute(4, 1, 1);
   uint32_t got[32];
   read_buffer(GL_SHADER_STORAGE_BUFFER, r, sizeof(got), got);
   if (!gl_check_error("dispatch"))
      return false;
   for (unsigned l = 0; l < 32; l++)
      if (got[l] != l * 3 + 1)
         GL_FAIL("r[%u] = %u after out-of-range accesses, want %u", l, got[l], l * 3 + 1);
   return true;
}

/* ---- range: a bound range of a buffer: offsets, .length(), bounds ---- */

static bool
case_range(void)
{
   static const char *cs = CS_HEAD
      "layout(local_size_x = 16) in;\n"
      "layout(std430, binding = 2) buffer B { uint head; uint v[]; };\n"
      "void main() {\n"
      "   uint i = gl_LocalInvocationID.x;\n"
      "   if (i == 0u) head = uint(v.length());\n"
      "   if (i < uint(v.length())) v[i] = 100u + i;\n"
      "}\n";
   if (!gl_cs_program(cs))
      return false;
   uint32_t init[64];
   for (unsigned i = 0; i < 64; i++)
      init[i] = 0xdead0000u + i;
   GLuint b = buffer(GL_SHADER_STORAGE_BUFFER, 0, sizeof(init), init);
   /* words 16..26: head + 10 elements */
   glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 2, b, 64, 44);
   glDispatchCompute(1, 1, 1);
   uint32_t got[64];
   read_buffer(GL_SHADER_STORAGE_BUFFER, b, sizeof(got), got);
   if (!gl_check_error("dispatch"))
      return false;
   for (unsigned i = 0; i < 64; i++) {
      const uint32_t want = i == 16 ? 10 : (i > 16 && i < 27) ? 100 + (i - 17) : 0xdead0000u + i;
      if (got[i] != want)
         GL_FAIL("word %u: 0x%x, want 0x%x", i, got[i], want);
   }
   return true;
}

/* ---- no_cpu_wait: draws and dispatches depending on each other, no
 * glFinish between them; the driver must not wait for the device (8
 * submits: the screen's bound of submits in flight is not reached) ---- */

static bool
case_no_cpu_wait(void)
{
   enum { ROUNDS = 4 };
   static const char *fs = FS_HEAD
      "layout(std430, binding = 0) buffer S { uint step; uint frags; };\n"
      "void main() {\n"
      "   atomicAdd(frags, 1u);\n"
      "   gl_FragColor = vec4(float(step) / 255.0, 0.0, 0.0, 1.0);\n"
      "}\n";
   static const char *cs = CS_HEAD
      "layout(local_size_x = 1) in;\n"
      "layout(std430, binding = 0) buffer S { uint step; uint frags; };\n"
      "layout(std430, binding = 1) buffer L { uint log[]; };\n"
      "void main() { log[step] = frags; step += 1u; }\n";
   GLuint pf = gl_program(vs_src, fs);
   GLuint pc = gl_cs_program(cs);
   if (!pf || !pc)
      return false;
   GLuint s = buffer(GL_SHADER_STORAGE_BUFFER, 0, 8, NULL);
   GLuint l = buffer(GL_SHADER_STORAGE_BUFFER, 1, 64 * 4, NULL);
   static const float v[] = { -1, -1, 0, -1, -1, 0, 0, 0 }; /* 32 x 32 pixels */
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, v);
   glEnableVertexAttribArray(0);
   glFinish();
   fprintf(stderr, "gl_compute: no_cpu_wait begin\n");
   for (unsigned i = 0; i < ROUNDS; i++) {
      glUseProgram(pf);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
      glUseProgram(pc);
      glDispatchCompute(1, 1, 1);
      glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
   }
   glFlush();
   fprintf(stderr, "gl_compute: no_cpu_wait end\n");
   uint32_t log[64], st[2];
   read_buffer(GL_SHADER_STORAGE_BUFFER, l, sizeof(log), log);
   read_buffer(GL_SHADER_STORAGE_BUFFER, s, sizeof(st), st);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   if (!gl_check_error("draws and dispatches"))
      return false;
   if (st[0] != ROUNDS || st[1] != ROUNDS * 32 * 32)
      GL_FAIL("step %u frags %u, want %u %u", st[0], st[1], ROUNDS, ROUNDS * 32 * 32);
   for (unsigned i = 0; i < ROUNDS; i++)
      if (log[i] != (i + 1) * 32 * 32)
         GL_FAIL("dispatch %u saw %u fragments counted, want %u", i, log[i], (i + 1) * 32 * 32);
   /* the last draw saw the step of the dispatches before it */
   if (px[0] != ROUNDS - 1 || px[4 * (W * H - 1)] != 0)
      GL_FAIL("pixel (0,0) red %u, want %u", px[0], ROUNDS - 1);
   return true;
}

/* ---- many_dispatches: 300 dependent dispatches in a row ---- */

static bool
case_many_dispatches(void)
{
   static const char *cs = CS_HEAD
      "layout(local_size_x = 64) in;\n"
      "layout(std430, binding = 0) buffer S { uint v[64]; };\n"
      "void main() { uint i = gl_LocalInvocationID.x; v[i] = v[i] * 3u + i; }\n";
   if (!gl_cs_program(cs))
      return false;
   GLuint b = buffer(GL_SHADER_STORAGE_BUFFER, 0, 256, NULL);
   for (unsigned k = 0; k < 300; k++) {
      glDispatchCompute(1, 1, 1);
      glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
   }
   uint32_t got[64];
   read_buffer(GL_SHADER_STORAGE_BUFFER, b, sizeof(got), got);
   if (!gl_check_error("dispatches"))
      return false;
   for (uint32_t i = 0; i < 64; i++) {
      uint32_t want = 0;
      for (unsigned k = 0; k < 300; k++)
         want = want * 3 + i;
      if (got[i] != want)
         GL_FAIL("v[%u] = %u, want %u", i, got[i], want);
   }
   return true;
}

/* ---- images: GL_ARB_shader_image_load_store in compute and fragment
 * shaders (img_ld / img_st, atomics on texel addresses) ---- */

#define IMG_HEAD "#extension GL_ARB_shader_image_load_store : require\n" \
                 "#extension GL_ARB_shader_image_size : require\n"

/* A texture of `levels` levels (and `layers` layers: a 2D array when > 1)
 * bound to image unit `unit` at `level`, all layers */
static GLuint
image_tex(GLenum ifmt, unsigned w, unsigned h, unsigned layers, unsigned levels, unsigned unit,
          unsigned level, GLenum access)
{
   GLuint t;
   glGenTextures(1, &t);
   const GLenum target = layers > 1 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
   glBindTexture(target, t);
   if (layers > 1)
      glTexStorage3D(target, levels, ifmt, w, h, layers);
   else
      glTexStorage2D(target, levels, ifmt, w, h);
   glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glBindImageTexture(unit, t, level, layers > 1, 0, access, ifmt);
   return t;
}

/* imageLoad of an RGBA8 image, imageStore of its texels (blue and red
 * swapped, doubled) to level 1 of a mipmapped (twiddled) RGBA32F image,
 * over a grid larger than both (loads outside return 0, stores are
 * dropped), imageSize of both */
static bool
case_image_load_store(void)
{
   static const char *src = CS_HEAD IMG_HEAD
      "layout(local_size_x = 8, local_size_y = 8) in;\n"
      "layout(rgba8, binding = 0) readonly uniform image2D src;\n"
      "layout(rgba32f, binding = 1) writeonly uniform image2D dst;\n"
      "layout(r32f, binding = 2) readonly uniform image2D one;\n"
      "layout(std430, binding = 0) buffer S { ivec4 size; vec4 outside; vec4 outside_r; };\n"
      "void main() {\n"
      "   ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
      "   vec4 v = imageLoad(src, p);\n"
      "   imageStore(dst, p, v.bgra * 2.0);\n"
      "   if (p == ivec2(39, 23)) {\n"
      "      outside = v + vec4(1.0);\n"
      "      outside_r = imageLoad(one, p) + vec4(1.0);\n"
      "   }\n"
      "   if (p == ivec2(0))\n"
      "      size = ivec4(imageSize(src), imageSize(dst));\n"
      "}\n";
   enum { SW = 37, SH = 23, DW = 18, DH = 11 };
   if (!gl_cs_program(src))
      return false;
   static uint8_t texels[SW * SH * 4];
   for (unsigned i = 0; i < sizeof(texels); i++)
      texels[i] = (uint8_t)(i * 37 + 11);
   GLuint a = image_tex(GL_RGBA8, SW, SH, 1, 1, 0, 0, GL_READ_ONLY);
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, SW, SH, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   GLuint b = image_tex(GL_RGBA32F, 2 * DW, 2 * DH + 1, 1, 3, 1, 1, GL_WRITE_ONLY);
   static float init[DW * DH * 4];
   for (unsigned i = 0; i < DW * DH * 4; i++)
      init[i] = -1.0f;
   glTexSubImage2D(GL_TEXTURE_2D, 1, 0, 0, DW, DH, GL_RGBA, GL_FLOAT, init);
   GLuint one = image_tex(GL_R32F, 1, 1, 1, 1, 2, 0, GL_READ_ONLY);
   const float onev = 5.0f;
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 1, 1, GL_RED, GL_FLOAT, &onev);
   GLuint sb = buffer(GL_SHADER_STORAGE_BUFFER, 0, 48, NULL);
   glDispatchCompute(5, 3, 1);
   glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
   static float got[DW * DH * 4];
   glBindTexture(GL_TEXTURE_2D, b);
   glGetTexImage(GL_TEXTURE_2D, 1, GL_RGBA, GL_FLOAT, got);
   int32_t sz[12];
   read_buffer(GL_SHADER_STORAGE_BUFFER, sb, 48, sz);
   glDeleteTextures(1, &a);
   glDeleteTextures(1, &b);
   glDeleteTextures(1, &one);
   if (!gl_check_error("dispatch"))
      return false;
   if (sz[0] != SW || sz[1] != SH || sz[2] != DW || sz[3] != DH)
      GL_FAIL("imageSize: %d x %d and %d x %d, want %d x %d and %d x %d", sz[0], sz[1], sz[2], sz[3],
           SW, SH, DW, DH);
   /* outside: zero texels as the format converts them (an R32F image's
    * missing alpha is 1) */
   float outside[8];
   memcpy(outside, &sz[4], sizeof(outside));
   for (unsigned c = 0; c < 8; c++)
      if (outside[c] != (c == 7 ? 2.0f : 1.0f))
         GL_FAIL("imageLoad outside the %s image gave %g in component %u, want %d",
              c < 4 ? "RGBA8" : "R32F", outside[c] - 1.0f, c % 4, c == 7);
   for (unsigned y = 0; y < DH; y++)
      for (unsigned x = 0; x < DW; x++)
         for (unsigned c = 0; c < 4; c++) {
            const uint8_t t = texels[(y * SW + x) * 4 + (c == 0 ? 2 : c == 2 ? 0 : c)];
            const float want = (float)t / 255.0f * 2.0f, v = got[(y * DW + x) * 4 + c];
            /* unorm8 to float is t / 255 to within an ulp or so
             * (softpipe multiplies by 1 / 255) */
            if (fabsf(v - want) > 1e-6f)
               GL_FAIL("texel (%u,%u) component %u: %.9g, want %.9g", x, y, c, v, want);
         }
   return true;
}

/* Image atomics under contention on level 1 of a twiddled R32UI 2D array
 * (every layer bound), the texel addresses computed in the shader: adds
 * from 4 workgroups per texel, ops outside the image (no effect, return
 * 0); min / max / compare-and-swap / exchange on a linear R32I image */
static bool
case_image_atomics(void)
{
   static const char *src = CS_HEAD IMG_HEAD
      "layout(local_size_x = 8, local_size_y = 8) in;\n"
      "layout(r32ui, binding = 0) coherent uniform uimage2DArray a;\n"
      "layout(r32i, binding = 1) coherent uniform iimage2D s;\n"
      "layout(std430, binding = 0) buffer R { uint won; uint outside; uint swapped; };\n"
      "void main() {\n"
      "   ivec3 p = ivec3(gl_LocalInvocationID.xy, int(gl_WorkGroupID.z % 3u));\n"
      "   uint v = uint(p.x + 8 * p.y + 64 * p.z);\n"
      "   imageAtomicAdd(a, p, v);\n"
      "   int id = int(gl_LocalInvocationIndex + 64u * gl_WorkGroupID.z);\n"
      "   outside += imageAtomicAdd(a, ivec3(p.x + 8, p.y, p.z), 1u) +\n"
      "              imageAtomicAdd(a, ivec3(p.xy, 3), 1u) + imageAtomicOr(a, ivec3(-1, 0, 0), 1u);\n"
      "   if (imageAtomicCompSwap(s, ivec2(0, 0), 0, id + 1) == 0)\n"
      "      atomicAdd(won, 1u);\n"
      "   imageAtomicMin(s, ivec2(1, 0), -id);\n"
      "   imageAtomicMax(s, ivec2(2, 0), id);\n"
      "   atomicAdd(swapped, uint(imageAtomicExchange(s, ivec2(3, 0), id)));\n"
      "}\n";
   enum { GROUPS = 12, N = GROUPS * 64 };
   if (!gl_cs_program(src))
      return false;
   GLuint a = image_tex(GL_R32UI, 16, 16, 3, 2, 0, 1, GL_READ_WRITE);
   static uint32_t init[8 * 8 * 3];
   for (unsigned i = 0; i < 8 * 8 * 3; i++)
      init[i] = i * 1000;
   glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 1, 0, 0, 0, 8, 8, 3, GL_RED_INTEGER, GL_UNSIGNED_INT, init);
   GLuint s = image_tex(GL_R32I, 4, 1, 1, 1, 1, 0, GL_READ_WRITE);
   const int32_t sinit[4] = { 0, 0, 0, 0 };
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 4, 1, GL_RED_INTEGER, GL_INT, sinit);
   GLuint r = buffer(GL_SHADER_STORAGE_BUFFER, 0, 12, NULL);
   glDispatchCompute(1, 1, GROUPS);
   glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
   static uint32_t got[8 * 8 * 3];
   int32_t sgot[4];
   uint32_t res[3];
   glBindTexture(GL_TEXTURE_2D_ARRAY, a);
   glGetTexImage(GL_TEXTURE_2D_ARRAY, 1, GL_RED_INTEGER, GL_UNSIGNED_INT, got);
   glBindTexture(GL_TEXTURE_2D, s);
   glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_INT, sgot);
   read_buffer(GL_SHADER_STORAGE_BUFFER, r, 12, res);
   glDeleteTextures(1, &a);
   glDeleteTextures(1, &s);
   if (!gl_check_error("dispatch"))
      return false;
   for (unsigned i = 0; i < 8 * 8 * 3; i++)
      if (got[i] != i * 1000 + (GROUPS / 3) * i)
         GL_FAIL("texel %u (layer %u): %u, want %u", i, i / 64, got[i], i * 1000 + (GROUPS / 3) * i);
   if (res[1])
      GL_FAIL("atomics outside the image returned %u in all, want 0", res[1]);
   if (res[0] != 1 || sgot[0] < 1 || sgot[0] > N)
      GL_FAIL("compare-and-swap: %u invocations won, value %d", res[0], sgot[0]);
   if (sgot[1] != -(N - 1) || sgot[2] != N - 1)
      GL_FAIL("min %d max %d, want %d %d", sgot[1], sgot[2], -(N - 1), N - 1);
   /* every id was exchanged in once and all but the last one out again */
   const uint32_t all = N * (N - 1) / 2;
   if (sgot[3] < 0 || sgot[3] >= N || res[2] != all - (uint32_t)sgot[3])
      GL_FAIL("exchange: last %d, sum of the old values %u, want %u", sgot[3], res[2],
           all - (uint32_t)sgot[3]);
   return true;
}

/* A fragment shader stores its coordinates to an RGBA8UI image and counts
 * its fragments with an image atomic; a dispatch then sums the image */
static bool
case_image_fs(void)
{
   static const char *fs = FS_HEAD IMG_HEAD
      "layout(rgba8ui, binding = 0) writeonly uniform uimage2D img;\n"
      "layout(r32ui, binding = 1) uniform uimage2D count;\n"
      "void main() {\n"
      "   ivec2 p = ivec2(gl_FragCoord.xy);\n"
      "   imageStore(img, p, uvec4(p, 7u, 200u));\n"
      "   imageAtomicAdd(count, ivec2(0, 0), 1u);\n"
      "   gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0);\n"
      "}\n";
   static const char *cs = CS_HEAD IMG_HEAD
      "layout(local_size_x = 8, local_size_y = 8) in;\n"
      "layout(rgba8ui, binding = 0) readonly uniform uimage2D img;\n"
      "layout(std430, binding = 0) buffer S { uint sum[4]; };\n"
      "void main() {\n"
      "   uvec4 v = imageLoad(img, ivec2(gl_GlobalInvocationID.xy));\n"
      "   for (int c = 0; c < 4; c++)\n"
      "      atomicAdd(sum[c], v[c]);\n"
      "}\n";
   GLuint p = gl_program(vs_src, fs);
   if (!p)
      GL_FAIL("fragment program did not build");
   GLuint img = image_tex(GL_RGBA8UI, W, H, 1, 1, 0, 0, GL_WRITE_ONLY);
   static uint8_t zero[W * H * 4];
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, zero);
   GLuint cnt = image_tex(GL_R32UI, 1, 1, 1, 1, 1, 0, GL_READ_WRITE);
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 1, 1, GL_RED_INTEGER, GL_UNSIGNED_INT, zero);
   draw_rect();
   glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   if (!gl_cs_program(cs))
      return false;
   glBindImageTexture(0, img, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8UI);
   GLuint sb = buffer(GL_SHADER_STORAGE_BUFFER, 0, 16, NULL);
   glDispatchCompute(W / 8, H / 8, 1);
   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
   uint32_t sum[4], count;
   read_buffer(GL_SHADER_STORAGE_BUFFER, sb, 16, sum);
   glBindTexture(GL_TEXTURE_2D, cnt);
   glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &count);
   glDeleteTextures(1, &img);
   glDeleteTextures(1, &cnt);
   if (!gl_check_error("draw and dispatch"))
      return false;
   if (!gl_save_image(gl_outdir, "image_fs", px, W, H))
      return false;
   /* the 40x24 rectangle at (8, 16) */
   const uint32_t n = 40 * 24, want[4] = { 24 * (8 + 47) * 40 / 2, 40 * (16 + 39) * 24 / 2, 7 * n,
                                           200 * n };
   if (count != n)
      GL_FAIL("the fragment shader counted %u fragments, want %u", count, n);
   for (unsigned c = 0; c < 4; c++)
      if (sum[c] != want[c])
         GL_FAIL("component %u of the stored texels sums to %u, want %u", c, sum[c], want[c]);
   return true;
}

/* A buffer image (imageBuffer over a buffer object, a linear 2D image of
 * 2^14-texel rows in the driver): 40000 texels stored, added to with
 * image atomics across the first row boundary, and accesses past the
 * element count (dropped, 0) */
static bool
case_image_buffer(void)
{
   static const char *src = CS_HEAD IMG_HEAD
      "layout(local_size_x = 64) in;\n"
      "layout(r32ui, binding = 0) coherent uniform uimageBuffer img;\n"
      "layout(std430, binding = 0) buffer R { uint outside; int size; };\n"
      "void main() {\n"
      "   int i = int(gl_GlobalInvocationID.x);\n"
      "   if (i < 16384 - 32 || i >= 16384 + 32)\n"
      "      imageStore(img, i, uvec4(uint(i) * 3u));\n"
      "   imageAtomicAdd(img, 16384 - 32 + (i % 64), 1u);\n"
      "   outside += imageLoad(img, 40000 + i).x + imageAtomicAdd(img, 40000 + i, 5u);\n"
      "   imageStore(img, 40000 + i, uvec4(7u));\n"
      "   if (i == 0)\n"
      "      size = imageSize(img);\n"
      "}\n";
   enum { N = 40000, GROUPS = (N + 63) / 64 };
   if (!gl_cs_program(src))
      return false;
   const unsigned bytes = (N + 64) * 4;
   uint32_t *data = malloc(bytes);
   for (unsigned i = 0; i < N + 64; i++)
      data[i] = 0xdead0000u + i;
   GLuint bo;
   glGenBuffers(1, &bo);
   glBindBuffer(GL_TEXTURE_BUFFER, bo);
   glBufferData(GL_TEXTURE_BUFFER, bytes, data, GL_DYNAMIC_COPY);
   GLuint t;
   glGenTextures(1, &t);
   glBindTexture(GL_TEXTURE_BUFFER, t);
   glTexBufferRange(GL_TEXTURE_BUFFER, GL_R32UI, bo, 0, N * 4);
   glBindImageTexture(0, t, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
   GLuint r = buffer(GL_SHADER_STORAGE_BUFFER, 0, 8, NULL);
   glDispatchCompute(GROUPS, 1, 1);
   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
   uint32_t res[2];
   read_buffer(GL_SHADER_STORAGE_BUFFER, r, 8, res);
   read_buffer(GL_TEXTURE_BUFFER, bo, bytes, data);
   glDeleteTextures(1, &t);
   glDeleteBuffers(1, &bo);
   bool ok = gl_check_error("dispatch");
   /* the grid has GROUPS * 64 >= N invocations: each of the 64 texels
    * around the first row's end kept its value and got one add from every
    * group */
   for (unsigned i = 0; ok && i < N + 64; i++) {
      uint32_t want = i < N ? 3 * i : 0xdead0000u + i;
      if (i >= 16384 - 32 && i < 16384 + 32)
         want = 0xdead0000u + i + GROUPS;
      if (data[i] != want) {
         snprintf(gl_err, sizeof(gl_err), "texel %u: 0x%x, want 0x%x", i, data[i], want);
         ok = false;
      }
   }
   free(data);
   if (ok && res[0])
      GL_FAIL("loads and atomics past the element count returned %u in all, want 0", res[0]);
   if (ok && res[1] != N)
      GL_FAIL("imageSize %d, want %d", (int)res[1], N);
   return ok;
}

static const struct gl_case cases[] = {
   { "ssbo_ids", case_ssbo_ids },
   { "shared_reduce", case_shared_reduce },
   { "atomics", case_atomics },
   { "shared_atomics", case_shared_atomics },
   { "atomic_counters", case_atomic_counters },
   { "indirect", case_indirect },
   { "compute_vbo", case_compute_vbo },
   { "fs_ssbo", case_fs_ssbo },
   { "fs_late_depth", case_fs_late_depth },
   { "robust", case_robust },
   { "range", case_range },
   { "no_cpu_wait", case_no_cpu_wait },
   { "many_dispatches", case_many_dispatches },
   { "image_load_store", case_image_load_store },
   { "image_atomics", case_image_atomics },
   { "image_fs", case_image_fs },
   { "image_buffer", case_image_buffer },
};

static bool
setup(void)
{
   if (!gl_has_ext("GL_ARB_compute_shader") || !gl_has_ext("GL_ARB_shader_storage_buffer_object") ||
       !gl_has_ext("GL_ARB_shader_atomic_counters") ||
       !gl_has_ext("GL_ARB_shader_image_load_store"))
      GL_FAIL("the context lacks compute shaders, SSBOs, atomic counters or images");
   if (!gl_target_fbo(W, H))
      GL_FAIL("no framebuffer");
   return true;
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .outdir = true,
      .setup = setup, .fresh_program = true,
   };
   return gl_run(argc, argv, &suite);
}
