/* SPDX-License-Identifier: MIT */
/*
 * gl_shaders DIR OUTDIR: for each NAME in DIR/pairs.txt, compile and link
 * DIR/NAME.vert + DIR/NAME.frag on a GLES 2 context (surfaceless EGL, 64x64
 * pbuffer), draw a full-window quad with it and write OUTDIR/NAME.ppm.
 * Prints "case NAME ok" or "case NAME fail: WHY" per pair.
 *
 * Inputs are deterministic so two drivers can be compared image by image:
 * every attribute gets the quad's corner (x, y, 0.5, 1) (so position,
 * normal and texture coordinates all vary over the quad), every matrix
 * uniform is the identity, float/vec uniforms are 0.5 per component, int
 * uniforms 3 (loop counts), bool uniforms true, and every sampler reads
 * texture unit 0, an 8x8 RGBA checkerboard with mipmaps (repeat, linear).
 * Used by tests/gl/glmark2 with the shaders of tests/gl/glmark2_shaders.py.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_common.h"

#define W 64
#define H 64

static char *
slurp(const char *dir, const char *name, const char *ext)
{
   char path[1024];
   snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   char *s = calloc(1, n + 1);
   if (s && fread(s, 1, n, f) != (size_t)n) {
      free(s);
      s = NULL;
   }
   fclose(f);
   return s;
}

/* Active uniform (or attribute) i of prog: its location, size and type */
static GLint
active_var(GLuint prog, bool uniform, GLint i, GLint *size, GLenum *type)
{
   char name[256];
   if (uniform) {
      glGetActiveUniform(prog, i, sizeof(name), NULL, size, type, name);
      return glGetUniformLocation(prog, name);
   }
   glGetActiveAttrib(prog, i, sizeof(name), NULL, size, type, name);
   return glGetAttribLocation(prog, name);
}

static void
set_uniforms(GLuint prog)
{
   GLint n = 0;
   glGetProgramiv(prog, GL_ACTIVE_UNIFORMS, &n);
   for (GLint i = 0; i < n; i++) {
      GLint size;
      GLenum type;
      const GLint loc = active_var(prog, true, i, &size, &type);
      static const GLfloat half[16 * 4] = { 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f,
                                            0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f };
      static const GLfloat id4[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
      static const GLfloat id3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
      static const GLint three[4] = { 3, 3, 3, 3 };
      for (GLint e = 0; e < size && e < 16; e++) {
         GLint l = loc + e; /* array elements have consecutive locations in Mesa */
         switch (type) {
         case GL_FLOAT: glUniform1fv(l, 1, half); break;
         case GL_FLOAT_VEC2: glUniform2fv(l, 1, half); break;
         case GL_FLOAT_VEC3: glUniform3fv(l, 1, half); break;
         case GL_FLOAT_VEC4: glUniform4fv(l, 1, half); break;
         case GL_FLOAT_MAT2: glUniformMatrix2fv(l, 1, GL_FALSE, (const GLfloat[]){ 1, 0, 0, 1 }); break;
         case GL_FLOAT_MAT3: glUniformMatrix3fv(l, 1, GL_FALSE, id3); break;
         case GL_FLOAT_MAT4: glUniformMatrix4fv(l, 1, GL_FALSE, id4); break;
         case GL_INT: case GL_BOOL: glUniform1iv(l, 1, type == GL_BOOL ? (GLint[]){ 1 } : three); break;
         case GL_INT_VEC2: case GL_BOOL_VEC2: glUniform2iv(l, 1, three); break;
         case GL_INT_VEC3: case GL_BOOL_VEC3: glUniform3iv(l, 1, three); break;
         case GL_INT_VEC4: case GL_BOOL_VEC4: glUniform4iv(l, 1, three); break;
         case GL_SAMPLER_2D: case GL_SAMPLER_CUBE: glUniform1i(l, 0); break;
         default: break;
         }
      }
   }
}

static int
run_pair(const char *dir, const char *outdir, const char *name, char *why, size_t whylen)
{
   char *vs_src = slurp(dir, name, "vert"), *fs_src = slurp(dir, name, "frag");
   int ok = 0;
   GLuint prog = 0;
   if (!vs_src || !fs_src) {
      snprintf(why, whylen, "cannot read %s/%s.{vert,frag}", dir, name);
      goto out;
   }
   prog = gl_program(vs_src, fs_src);
   if (!prog) {
      snprintf(why, whylen, "%s", gl_err);
      goto out;
   }
   set_uniforms(prog);

   static const GLfloat quad[] = { -1, -1, 0.5f, 1, 1, -1, 0.5f, 1, -1, 1, 0.5f, 1, 1, 1, 0.5f, 1 };
   GLint na = 0;
   glGetProgramiv(prog, GL_ACTIVE_ATTRIBUTES, &na);
   for (GLint i = 0; i < na; i++) {
      GLint size;
      GLenum type;
      const GLint loc = active_var(prog, false, i, &size, &type);
      if (loc < 0)
         continue;
      GLint comps = type == GL_FLOAT ? 1 : type == GL_FLOAT_VEC2 ? 2 : type == GL_FLOAT_VEC3 ? 3 : 4;
      glEnableVertexAttribArray(loc);
      glVertexAttribPointer(loc, comps, GL_FLOAT, GL_FALSE, 16, quad);
   }
   glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   static unsigned char px[W * H * 4];
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   for (GLint i = 0; i < na; i++)
      glDisableVertexAttribArray(i);
   GLenum err = glGetError();
   if (err) {
      snprintf(why, whylen, "GL error 0x%x", err);
      goto out;
   }
   if (!gl_save_image(outdir, name, px, W, H)) {
      snprintf(why, whylen, "%s", gl_err);
      goto out;
   }
   ok = 1;
out:
   if (prog)
      glDeleteProgram(prog);
   free(vs_src);
   free(fs_src);
   return ok;
}

int
main(int argc, char **argv)
{
   if (argc != 3) {
      fprintf(stderr, "usage: gl_shaders DIR OUTDIR\n");
      return 2;
   }
   EGLDisplay dpy = gl_display();
   if (dpy == EGL_NO_DISPLAY)
      return 1;
   static const EGLint cattr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RED_SIZE, 8,
                                   EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                                   EGL_DEPTH_SIZE, 24, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
                                   EGL_NONE };
   EGLConfig cfg;
   EGLint ncfg = 0;
   if (!eglChooseConfig(dpy, cattr, &cfg, 1, &ncfg) || !ncfg) {
      fprintf(stderr, "gl_shaders: no RGBA8 + Z24 pbuffer config\n");
      return 1;
   }
   static const EGLint sattr[] = { EGL_WIDTH, W, EGL_HEIGHT, H, EGL_NONE };
   static const EGLint xattr[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
   eglBindAPI(EGL_OPENGL_ES_API);
   EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, sattr);
   EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, xattr);
   if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx)) {
      fprintf(stderr, "gl_shaders: cannot create a GLES 2 context\n");
      return 1;
   }
   printf("renderer %s\n", (const char *)glGetString(GL_RENDERER));

   /* texture unit 0: 8x8 RGBA checkerboard, mipmapped */
   static unsigned char tex[8 * 8 * 4];
   for (int y = 0; y < 8; y++)
      for (int x = 0; x < 8; x++) {
         unsigned char *t = &tex[(y * 8 + x) * 4];
         int on = (x ^ y) & 1;
         t[0] = on ? 230 : 20;
         t[1] = (unsigned char)(x * 32);
         t[2] = (unsigned char)(y * 32);
         t[3] = on ? 255 : 128;
      }
   GLuint to;
   glGenTextures(1, &to);
   glBindTexture(GL_TEXTURE_2D, to);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, tex);
   glGenerateMipmap(GL_TEXTURE_2D);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LEQUAL);

   char list[1024];
   snprintf(list, sizeof(list), "%s/pairs.txt", argv[1]);
   FILE *f = fopen(list, "r");
   if (!f) {
      fprintf(stderr, "gl_shaders: cannot read %s\n", list);
      return 1;
   }
   char name[256];
   int fails = 0;
   while (fgets(name, sizeof(name), f)) {
      name[strcspn(name, "\n")] = 0;
      if (!name[0])
         continue;
      char why[1200] = "";
      if (run_pair(argv[1], argv[2], name, why, sizeof(why))) {
         printf("case %s ok\n", name);
      } else {
         printf("case %s fail: %s\n", name, why);
         fails++;
      }
      fflush(stdout);
   }
   fclose(f);
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglTerminate(dpy);
   return fails ? 1 : 0;
}
