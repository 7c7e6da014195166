/* SPDX-License-Identifier: MIT */
/*
 * The shared scaffolding of the GL tests (gl_common.h says what and why).
 * Compiled against the GLES 3.1 headers: every call here has the same
 * entry point in libGLESv2 and libOpenGL.
 */
#include "gl_common.h"

#include <GLES3/gl31.h>
#include <stdlib.h>
#include <string.h>

char gl_err[1024];
EGLDisplay gl_dpy = EGL_NO_DISPLAY;
const char *gl_outdir;

/* ---------------------------------------------------------------- EGL */

EGLDisplay
gl_display(void)
{
   PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                                              NULL)
                                : EGL_NO_DISPLAY;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) {
      fprintf(stderr, "no surfaceless EGL display (0x%x)\n", eglGetError());
      return EGL_NO_DISPLAY;
   }
   return dpy;
}

/* The bound API is per thread: bound here, by the thread making it current */
EGLContext
gl_context_api(EGLDisplay dpy, EGLenum api, const EGLint *attr)
{
   eglBindAPI(api);
   EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
   if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      fprintf(stderr, "no %s context (0x%x)\n", api == EGL_OPENGL_API ? "GL" : "GLES",
              eglGetError());
      return EGL_NO_CONTEXT;
   }
   return ctx;
}

EGLContext
gl_context(EGLDisplay dpy)
{
   return gl_context_api(dpy, EGL_OPENGL_API, NULL);
}

/* ---------------------------------------------------------------- shaders */

bool
gl_has_ext(const char *name)
{
   const char *all = (const char *)glGetString(GL_EXTENSIONS);
   return all && strstr(all, name);
}

/* Did obj compile (a shader) or link (a program)?  If not, obj is deleted
 * and gl_err is "WHAT: LOG", the log's lines joined (one line per case) */
static bool
built(GLuint obj, bool program, const char *what)
{
   GLint ok = 0;
   char log[600] = "";
   if (program)
      glGetProgramiv(obj, GL_LINK_STATUS, &ok);
   else
      glGetShaderiv(obj, GL_COMPILE_STATUS, &ok);
   if (ok)
      return true;
   if (program) {
      glGetProgramInfoLog(obj, sizeof(log), NULL, log);
      glDeleteProgram(obj);
   } else {
      glGetShaderInfoLog(obj, sizeof(log), NULL, log);
      glDeleteShader(obj);
   }
   snprintf(gl_err, sizeof(gl_err), "%s: %s", what, log);
   for (char *p = gl_err; *p; p++)
      if (*p == '\n')
         *p = ' ';
   return false;
}

static const char *
stage_name(unsigned type)
{
   switch (type) {
   case GL_VERTEX_SHADER: return "vertex shader";
   case GL_FRAGMENT_SHADER: return "fragment shader";
   case GL_COMPUTE_SHADER: return "compute shader";
   default: return "shader";
   }
}

unsigned
gl_shader(unsigned type, const char *src)
{
   GLuint s = glCreateShader(type);
   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   return built(s, false, stage_name(type)) ? s : 0;
}

/* Links the program of n shaders (deleted here: the program keeps them),
 * capturing the vertex output `varying` by transform feedback if not NULL */
static GLuint
link(const GLuint *sh, unsigned n, const char *varying)
{
   for (unsigned i = 0; i < n; i++)
      if (!sh[i])
         return 0;
   GLuint p = glCreateProgram();
   for (unsigned i = 0; i < n; i++) {
      glAttachShader(p, sh[i]);
      glDeleteShader(sh[i]);
   }
   glBindAttribLocation(p, 0, "pos");
   glBindAttribLocation(p, 1, "attr");
   if (varying)
      glTransformFeedbackVaryings(p, 1, &varying, GL_INTERLEAVED_ATTRIBS);
   glLinkProgram(p);
   if (!built(p, true, "link"))
      return 0;
   glUseProgram(p);
   return p;
}

unsigned
gl_program(const char *vs, const char *fs)
{
   return gl_xfb_program(vs, fs, NULL);
}

unsigned
gl_xfb_program(const char *vs, const char *fs, const char *varying)
{
   const GLuint v = gl_shader(GL_VERTEX_SHADER, vs);
   const GLuint sh[2] = { v, v && fs ? gl_shader(GL_FRAGMENT_SHADER, fs) : 0 };
   if (fs && v && !sh[1]) {
      glDeleteShader(v);
      return 0;
   }
   return link(sh, fs ? 2 : 1, varying);
}

unsigned
gl_cs_program(const char *cs)
{
   const GLuint sh[1] = { gl_shader(GL_COMPUTE_SHADER, cs) };
   return link(sh, 1, NULL);
}

unsigned
gl_pos_buffer(const void *xy, long bytes)
{
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, bytes, xy, GL_STATIC_DRAW);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
   return vbo;
}

bool
gl_check_error(const char *what)
{
   const GLenum e = glGetError();
   if (e != GL_NO_ERROR)
      GL_FAIL("GL error 0x%x after %s", e, what);
   return true;
}

/* ---------------------------------------------------------------- images */

unsigned
gl_texture_rgba(int w, int h, const void *texels, unsigned filter)
{
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   return tex;
}

void
gl_pattern_texel(int u, int v, unsigned char px[4])
{
   px[0] = u;
   px[1] = v;
   px[2] = u ^ v;
   px[3] = 255 - (u + v) % 128;
}

unsigned
gl_pattern_texture(void)
{
   static unsigned char img[256][256][4];
   for (int v = 0; v < 256; v++)
      for (int u = 0; u < 256; u++)
         gl_pattern_texel(u, v, img[v][u]);
   const GLuint tex = gl_texture_rgba(256, 256, img, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
   return tex;
}

bool
gl_color_target(unsigned ifmt, int w, int h, unsigned *tex_out, unsigned *fbo_out)
{
   GLuint tex, fbo;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, ifmt, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
   glViewport(0, 0, w, h);
   if (tex_out)
      *tex_out = tex;
   if (fbo_out)
      *fbo_out = fbo;
   return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

bool
gl_target_fbo(int w, int h)
{
   return gl_color_target(GL_RGBA8, w, h, NULL, NULL);
}

unsigned
gl_depth_buffer(unsigned format, unsigned attachment, int w, int h)
{
   GLuint rb;
   glGenRenderbuffers(1, &rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb);
   glRenderbufferStorage(GL_RENDERBUFFER, format, w, h);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, attachment, GL_RENDERBUFFER, rb);
   return rb;
}

bool
gl_write_ppm(const char *path, const unsigned char *rgba, int w, int h)
{
   FILE *f = fopen(path, "wb");
   if (!f)
      return false;
   fprintf(f, "P6\n%d %d\n255\n", w, h);
   for (int y = h - 1; y >= 0; y--)
      for (int x = 0; x < w; x++)
         fwrite(rgba + 4 * (y * w + x), 1, 3, f);
   return fclose(f) == 0;
}

bool
gl_save_image(const char *dir, const char *name, const unsigned char *rgba, int w, int h)
{
   char path[1024];
   snprintf(path, sizeof(path), "%s/%s.ppm", dir, name);
   if (!gl_write_ppm(path, rgba, w, h))
      GL_FAIL("cannot write %.900s", path);
   return true;
}

unsigned char *
gl_read_ppm(const char *path, int *w, int *h)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   int maxv;
   if (fscanf(f, "P6 %d %d %d", w, h, &maxv) != 3 || maxv != 255 || *w <= 0 || *h <= 0) {
      fclose(f);
      return NULL;
   }
   fgetc(f);
   unsigned char *p = malloc((size_t)*w * *h * 3);
   if (p && fread(p, 3, (size_t)*w * *h, f) != (size_t)*w * *h) {
      free(p);
      p = NULL;
   }
   fclose(f);
   return p;
}

/*
 * Tolerance:
 *  - every pixel: each channel within TOL (3/255) of the reference;
 *  - except "edge" pixels: pixels whose 3x3 neighbourhood in the reference
 *    contains a colour discontinuity (some channel differs by >= EDGE from
 *    the centre). There the rasterisers may legitimately disagree on
 *    coverage, so the test pixel must only match (within TOL) the reference
 *    colour of some pixel in that 3x3 neighbourhood.
 *  Interior coverage and colour must therefore be exact up to rounding.
 */
#define TOL 3
#define EDGE 24

static int
px_diff(const unsigned char *a, const unsigned char *b)
{
   int m = 0;
   for (int c = 0; c < 3; c++) {
      int d = abs((int)a[c] - (int)b[c]);
      if (d > m)
         m = d;
   }
   return m;
}

/* Is the differing test pixel tp at (x, y) an edge pixel of the reference
 * that matches one of its reference neighbours? */
static bool
edge_tolerated(const unsigned char *r, int rw, int rh, int x, int y, const unsigned char *tp)
{
   const unsigned char *rp = r + 3 * (y * rw + x);
   bool edge = false, near = false;
   for (int dy = -1; dy <= 1; dy++) {
      for (int dx = -1; dx <= 1; dx++) {
         int nx = x + dx, ny = y + dy;
         if (nx < 0 || ny < 0 || nx >= rw || ny >= rh)
            continue;
         const unsigned char *np = r + 3 * (ny * rw + nx);
         if (px_diff(np, rp) >= EDGE)
            edge = true;
         if (px_diff(np, tp) <= TOL)
            near = true;
      }
   }
   return edge && near;
}

int
gl_compare_ppm(const char *refp, const char *testp)
{
   int rw, rh, tw, th;
   unsigned char *r = gl_read_ppm(refp, &rw, &rh), *t = gl_read_ppm(testp, &tw, &th);
   if (!r || !t || rw != tw || rh != th) {
      printf("# cannot read or size mismatch: %s %s\n", refp, testp);
      free(r);
      free(t);
      return 2;
   }
   int bad = 0, edge_ok = 0, maxd = 0, first_x = -1, first_y = -1;
   for (int y = 0; y < rh; y++) {
      for (int x = 0; x < rw; x++) {
         const unsigned char *rp = r + 3 * (y * rw + x), *tp = t + 3 * (y * rw + x);
         int d = px_diff(rp, tp);
         if (d > maxd)
            maxd = d;
         if (d <= TOL)
            continue;
         if (edge_tolerated(r, rw, rh, x, y, tp)) {
            edge_ok++;
            continue;
         }
         if (!bad) {
            first_x = x;
            first_y = y;
         }
         bad++;
      }
   }
   if (bad) {
      const unsigned char *rp = r + 3 * (first_y * rw + first_x);
      const unsigned char *tp = t + 3 * (first_y * rw + first_x);
      printf("# %d pixels differ (max channel diff %d, %d edge pixels tolerated); "
             "first at (%d,%d) from top-left: ref %d,%d,%d test %d,%d,%d\n",
             bad, maxd, edge_ok, first_x, first_y, rp[0], rp[1], rp[2], tp[0], tp[1],
             tp[2]);
   } else {
      printf("# match (max channel diff %d, %d edge pixels tolerated)\n", maxd, edge_ok);
   }
   free(r);
   free(t);
   return bad ? 1 : 0;
}

/* ---------------------------------------------------------------- cases */

bool
gl_list_cases(int argc, char **argv, const struct gl_case *cases, unsigned n, bool kinds)
{
   if (argc != 2 || strcmp(argv[1], "--list"))
      return false;
   for (unsigned i = 0; i < n; i++)
      printf("%s%s\n", cases[i].name, !kinds ? "" : cases[i].cmp ? " cmp" : " self");
   return true;
}

bool
gl_case_wanted(int argc, char **argv, int first, const char *name)
{
   bool want = argc <= first;
   for (int a = first; a < argc; a++)
      want |= !strcmp(argv[a], name);
   return want;
}

static bool
is_skip(void)
{
   return !strncmp(gl_err, "skip: ", 6);
}

bool
gl_case_report(const char *name, bool ok)
{
   const GLenum err = glGetError();
   if (ok && err != GL_NO_ERROR) {
      snprintf(gl_err, sizeof(gl_err), "GL error 0x%x", err);
      ok = false;
   }
   while (glGetError() != GL_NO_ERROR)
      ;
   if (ok)
      printf("case %s ok\n", name);
   else if (is_skip())
      printf("case %s %s\n", name, gl_err);
   else
      printf("case %s error: %s\n", name, gl_err[0] ? gl_err : "failed");
   fflush(stdout);
   return ok || is_skip();
}

int
gl_run(int argc, char **argv, const struct gl_suite *s)
{
   if (gl_list_cases(argc, argv, s->cases, s->n, s->kinds))
      return 0;
   const int first = s->outdir ? 2 : 1;
   if (argc < first) {
      fprintf(stderr, "usage: %s OUTDIR [CASE...] | --list\n", argv[0]);
      return 2;
   }
   gl_outdir = s->outdir ? argv[1] : NULL;
   setvbuf(stdout, NULL, _IOLBF, 0); /* lines before a crash reach the log */
   gl_dpy = gl_display();
   EGLContext ctx = gl_dpy == EGL_NO_DISPLAY ? EGL_NO_CONTEXT : gl_context(gl_dpy);
   if (ctx == EGL_NO_CONTEXT)
      return 3;
   printf("renderer %s | %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION));
   gl_err[0] = 0;
   if (s->setup && !s->setup() && !is_skip()) {
      printf("setup error: %s\n", gl_err);
      return 1;
   }
   char skip[sizeof(gl_err)];
   snprintf(skip, sizeof(skip), "%s", is_skip() ? gl_err : "");
   int failed = 0;
   for (unsigned i = 0; i < s->n; i++) {
      const char *name = s->cases[i].name;
      if (!gl_case_wanted(argc, argv, first, name))
         continue;
      if (skip[0]) {
         printf("case %s %s\n", name, skip);
         continue;
      }
      gl_err[0] = 0;
      if (s->px)
         memset(s->px, 0, (size_t)s->w * s->h * 4);
      if (s->fresh_program)
         glUseProgram(0);
      bool ok = s->cases[i].fn();
      if (s->after)
         s->after();
      if (s->px && s->readback)
         glReadPixels(0, 0, s->w, s->h, GL_RGBA, GL_UNSIGNED_BYTE, s->px);
      /* the image also of a failed case (tests/gl/run keeps it); a write
       * error fails a case that passed */
      if (s->px && gl_outdir) {
         char path[1024];
         snprintf(path, sizeof(path), "%s/%s.ppm", gl_outdir, name);
         if (!gl_write_ppm(path, s->px, s->w, s->h) && ok) {
            snprintf(gl_err, sizeof(gl_err), "cannot write %.900s", path);
            ok = false;
         }
      }
      failed += !gl_case_report(name, ok);
   }
   eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(gl_dpy, ctx);
   eglTerminate(gl_dpy);
   return failed ? 1 : 0;
}
