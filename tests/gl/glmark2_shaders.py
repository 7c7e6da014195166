#!/usr/bin/python3
"""glmark2_shaders.py SHADER_DIR OUT_DIR: write the vertex/fragment shader
pairs glmark2 (2023.01, Debian bookworm) builds for its default benchmark list
into OUT_DIR as NAME.vert / NAME.frag, and OUT_DIR/pairs.txt.

The files in /usr/share/glmark2/shaders are templates: glmark2 completes them
at run time with libmatrix's ShaderSource (precision header, constants after
the precision statements, $MAIN$/$PROCESS$/$CONVOLUTION$/$DO_LIGHTS$ bodies).
This script does the same, following glmark2's scene-*.cpp and
libmatrix/shader-source.cc of that release, so the GL test compiles exactly
what glmark2-es2 compiles on a GLES 2 context (default precision options).
"""
import math
import os
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else '/usr/share/glmark2/shaders'


def fx(v):
    """std::fixed with the default precision of 6"""
    return '%.6f' % v


class Src:
    """libmatrix ShaderSource: add() after the last precision statement,
    str() prepends the HIGHP/MEDIUMP macros and the default precision."""

    def __init__(self, name=None, high_float=False):
        self.s = open(os.path.join(SRC, name)).read() if name else ''
        # ShaderSource::precision(",high,,"): highp float where available
        self.high_float = high_float

    def append_file(self, name):
        self.s += open(os.path.join(SRC, name)).read()
        return self

    def append(self, text):
        self.s += text
        return self

    def replace(self, a, b):
        self.s = self.s.replace(a, b)
        return self

    def add(self, text):
        pos = self.s.rfind('precision')
        if pos >= 0:
            pos_if = self.s.find('#if', pos)
            pos_endif = self.s.find('#endif', pos)
            if pos_endif >= 0 and (pos_if < 0 or pos_endif < pos_if):
                pos = pos_endif
            nl = self.s.find('\n', pos)
            pos = nl + 1 if nl >= 0 else len(self.s)
        else:
            pos = 0
        self.s = self.s[:pos] + text + self.s[pos:]
        return self

    def const(self, name, v):
        if isinstance(v, (int, float)):
            return self.add('const float %s = %s;\n' % (name, fx(v)))
        t = 'vec%d' % len(v)
        return self.add('const %s %s = %s(%s);\n' % (t, name, t, ', '.join(fx(x) for x in v)))

    def str(self):
        frag = 'gl_FragColor' in self.s
        out = '#if defined(GL_ES)%s\n' % (' && defined(GL_FRAGMENT_PRECISION_HIGH)' if frag else '')
        out += '#define HIGHP_OR_DEFAULT highp\n#else\n#define HIGHP_OR_DEFAULT\n#endif\n'
        out += '#if defined(GL_ES)\n#define MEDIUMP_OR_DEFAULT mediump\n#else\n#define MEDIUMP_OR_DEFAULT\n#endif\n'
        # default precision values: only a fragment shader's float gets one
        if self.high_float:
            p = 'precision highp float;\n'
            if frag:
                p = ('#ifdef GL_FRAGMENT_PRECISION_HIGH\n' + p +
                     '#else\nprecision mediump float;\n#endif\n')
            out += '#ifdef GL_ES\n' + p + '#endif\n'
        elif frag:
            out += '#ifdef GL_ES\nprecision mediump float;\n#endif\n'
        return out + self.s


pairs = {}


def pair(name, vs, fs):
    pairs[name] = (vs.str(), fs.str())


LIGHT = (20.0, 20.0, 10.0, 1.0)
WHITE = (1.0, 1.0, 1.0, 1.0)
HALF = (20.0, 20.0, 10.0)  # bump/shading: vec3 of the light position, normalised
n = math.sqrt(sum(x * x for x in HALF))
HALF = tuple(x / n for x in HALF)

# build, texture (light-basic), shadow/pulsar light-basic users
pair('build', Src('light-basic.vert').const('LightSourcePosition', LIGHT)
     .const('MaterialDiffuse', WHITE), Src('light-basic.frag'))
pair('texture', Src().append_file('light-basic.vert').const('LightSourcePosition', LIGHT)
     .const('MaterialDiffuse', WHITE), Src().append_file('light-basic-tex.frag'))
# shading
pair('shading-gouraud', Src().append_file('light-basic.vert').const('LightSourcePosition', LIGHT)
     .const('MaterialDiffuse', WHITE), Src().append_file('light-basic.frag'))
pair('shading-blinn-phong-inf', Src().append_file('light-advanced.vert'),
     Src().append_file('light-advanced.frag').const('LightSourcePosition', LIGHT)
     .const('LightSourceHalfVector', HALF))
ph = Src('light-phong.frag')
ph.const('LightSourcePosition0', (0.0, 1.0, 0.0, 1.0)).const('LightColor0', (0.8, 0.8, 0.8, 1.0))
ph.replace('$DO_LIGHTS$', '    gl_FragColor = vec4(0.0, 0.0, 0.0, 0.0);\n'
           '    gl_FragColor += compute_color(LightSourcePosition0, LightColor0);\n')
pair('shading-phong', Src().append_file('light-phong.vert'),
     Src().append(ph.str()).const('MaterialDiffuse', WHITE))
pair('shading-cel', Src().append_file('light-phong.vert'), Src().append_file('light-cel.frag'))
# bump
for r, v, f, extra in (('high-poly', 'bump-poly.vert', 'bump-poly.frag', False),
                       ('normals', 'bump-normals.vert', 'bump-normals.frag', False),
                       ('height', 'bump-height.vert', 'bump-height.frag', True)):
    fs = Src(f).const('LightSourcePosition', LIGHT).const('LightSourceHalfVector', HALF)
    if extra:
        fs.const('TextureStepX', 1.0 / 1024.0).const('TextureStepY', 1.0 / 1024.0)
    pair('bump-' + r, Src(v), fs)


# effect2d: the two default kernels (normalised, as with normalize=true)
def effect2d(name, rows):
    k = [float(x) for row in rows for x in row]
    w, h = len(rows[0]), len(rows)
    s = sum(k)
    if s != 0:
        k = [x / s for x in k]
    fs = Src('effect-2d-convolution.frag')
    fs.const('TextureStepX', 1.0 / 800).const('TextureStepY', 1.0 / 600)
    defs = ''.join('const float Kernel%d = %s;\n' % (i, fx(x)) for i, x in enumerate(k))
    terms = []
    for i in range(len(k)):
        ox = i % w - (w - 1) / 2.0
        oy = (h - 1) / 2.0 - i // w
        terms.append('texture2D(Texture0, TextureCoord + vec2(%.1f * TextureStepX, %.1f * TextureStepY)) * Kernel%d'
                     % (ox, oy, i))
    fs.add(defs)
    fs.replace('$CONVOLUTION$', 'result = ' + ' +\n'.join(terms) + ';\n')
    pair(name, Src('effect-2d.vert'), fs)


effect2d('effect2d-edge', [[0, 1, 0], [1, -4, 1], [0, 1, 0]])
effect2d('effect2d-blur', [[1] * 5] * 3)
# pulsar (texture=false, light=false)
pair('pulsar', Src('pulsar.vert'), Src('light-basic.frag'))


# desktop: main program and the separable blur (radius 5)
def desktop_blur(direction, radius=5):
    vs, fs = Src().append_file('desktop.vert'), Src().append_file('desktop-blur.frag')
    sigma = max(radius / 3.0, 1.0)
    for i in range(radius + 1):
        s2 = 2.0 * sigma * sigma
        fs.const('Kernel%d' % i, 1.0 / math.sqrt(math.pi * s2) * math.exp(-(i * i) / s2))
    t = 'result = \n'
    for i in range(2 * radius + 1):
        o = i - radius
        if direction == 'h':
            t += 'texture2D(Texture0, TextureCoord + vec2(%d.0 * TextureStepX, 0.0)) * Kernel%d +\n' % (o, abs(o))
        else:
            t += 'texture2D(Texture0, TextureCoord + vec2(0.0, %d.0 * TextureStepY)) * Kernel%d +\n' % (o, abs(o))
    t += '0.0 ;\n'
    fs.replace('$CONVOLUTION$', t)
    fs.const('TextureStepX' if direction == 'h' else 'TextureStepY', 1.0 / 800)
    pair('desktop-blur-' + direction, vs, fs)


pair('desktop', Src('desktop.vert'), Src('desktop.frag'))
desktop_blur('h')
desktop_blur('v')
pair('buffer', Src('buffer-wireframe.vert'), Src('buffer-wireframe.frag'))
for part in ('lamp-lit', 'lamp-unlit', 'logo', 'logo-flat', 'logo-shadow', 'table', 'paper', 'text',
             'under-table'):
    pair('ideas-' + part, Src('ideas-%s.vert' % part), Src('ideas-%s.frag' % part))
pair('jellyfish', Src('jellyfish.vert'), Src('jellyfish.frag', high_float=True))
pair('jellyfish-gradient', Src('gradient.vert'), Src('gradient.frag'))
# terrain: its renderers, and the bloom/tilt-shift blurs
for part, f in (('noise', 'terrain-noise.frag'), ('normalmap', 'terrain-normalmap.frag'),
                ('luminance', 'terrain-luminance.frag'), ('overlay', 'terrain-overlay.frag')):
    pair('terrain-' + part, Src('terrain-texture.vert'), Src(f))
pair('terrain', Src('terrain.vert'), Src('terrain.frag'))


def terrain_blur(name, radius, sigma, direction, tilt):
    vs, fs = Src().append_file('terrain-texture.vert'), Src().append_file('terrain-blur.frag')
    sigma = max(sigma, 1.0)
    vals = []
    for i in range(radius + 1):
        s2 = 2.0 * sigma * sigma
        vals.append(1.0 / math.sqrt(math.pi * s2) * math.exp(-(i * i) / s2))
    tot = sum(vals)
    tot += tot - vals[0]
    for i, v in enumerate(vals):
        fs.const('Kernel%d' % i, v / tot)
    fs.const('TiltShift', tilt)
    v = 'X' if direction == 'h' else 'Y'
    if tilt == 1.0:
        t = 'const float step%s = TextureStep%s;\n' % (v, v)
    else:
        t = ('float step%s = TextureStep%s * abs(TiltShift - TextureCoord.y) / abs(1.0 - TiltShift);\n'
             % (v, v))
    t += 'result = \n'
    for i in range(2 * radius + 1):
        o = i - radius
        if direction == 'h':
            t += 'texture2D(Texture0, TextureCoord + vec2(%d.0 * stepX, 0.0)) * Kernel%d +\n' % (o, abs(o))
        else:
            t += 'texture2D(Texture0, TextureCoord + vec2(0.0, %d.0 * stepY)) * Kernel%d +\n' % (o, abs(o))
    t += '0.0 ;\n'
    fs.replace('$CONVOLUTION$', t)
    fs.const('TextureStep' + v, 1.0 / 800)
    pair(name, vs, fs)


terrain_blur('terrain-bloom-h', 2, 4.0, 'h', 0.0)
terrain_blur('terrain-bloom-v', 2, 4.0, 'v', 0.0)
terrain_blur('terrain-tilt-h', 4, 2.7, 'h', 0.5)
terrain_blur('terrain-tilt-v', 4, 2.7, 'v', 0.5)
# shadow, refract
pair('shadow-depth', Src('depth.vert'), Src('depth.frag'))
pair('shadow', Src('shadow.vert').const('MaterialDiffuse', WHITE), Src('shadow.frag'))
pair('refract', Src('light-refract.vert'),
     Src('light-refract.frag').const('LightColor', (0.4, 0.4, 0.4, 1.0))
     .const('LightSourcePosition', LIGHT).const('RefractiveIndex', 1.2))


# conditionals / function / loop
def steps(file, n):
    return Src().append(''.join(open(os.path.join(SRC, file)).read() for _ in range(n)))


for vs_n, fs_n in ((0, 0), (0, 5), (5, 0)):
    vs = Src('conditionals.vert').replace('$MAIN$', steps('conditionals-step-simple.all', vs_n).str())
    fs = Src('conditionals.frag').replace('$MAIN$', steps('conditionals-step-simple.all', fs_n).str())
    pair('conditionals-v%d-f%d' % (vs_n, fs_n), vs, fs)
for cx in ('low', 'medium'):
    step = 'function-step-%s.all' % cx
    vs = Src('function.vert').replace('$PROCESS$', '').replace('$MAIN$', steps(step, 1).str())
    fs = Src('function.frag').replace('$PROCESS$', open(os.path.join(SRC, step)).read())
    fs.replace('$MAIN$', steps('function-call.all', 5).str())
    pair('function-' + cx, vs, fs)
vs_loop = Src('loop.vert').replace('$MAIN$', steps('loop-step-simple.all', 5).str())
pair('loop-unrolled', vs_loop, Src('loop.frag').replace('$MAIN$', steps('loop-step-simple.all', 5).str()))
pair('loop-const', vs_loop,
     Src('loop.frag').replace('$MAIN$', steps('loop-step-loop.all', 1).replace('$NLOOPS$', '5').str()))
pair('loop-uniform', vs_loop,
     Src('loop.frag').replace('$MAIN$', steps('loop-step-loop.all', 1).replace('$NLOOPS$', 'FragmentLoops').str()))

out = sys.argv[2]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, 'pairs.txt'), 'w') as f:
    for name, (v, fr) in pairs.items():
        open(os.path.join(out, name + '.vert'), 'w').write(v)
        open(os.path.join(out, name + '.frag'), 'w').write(fr)
        f.write(name + '\n')
