#!/bin/sh
# Piglit on the real kernel driver (TAP, in the guest): a subset of the host's
# piglit list (tests/piglit/fast.expected) run by Debian's piglit on the vagx
# Mesa driver on vagx.ko, with the host's expectations.
#
#  - The subset is the names below: quick tests that pass on the host,
#    covering clears, draws, textures, FBOs (blits, mipmap generation, MRT),
#    shaders (GLSL 1.10/1.20/ES 1.00, shader_runner), queries, depth/stencil
#    output and stencil DrawPixels.  Their expectations are the lines of
#    tests/piglit/fast.expected (with their "## cause" lines): a test named
#    here that fast.expected does not list fails the suite, so there is one
#    expectation list for the host and the guest.
#  - Platform: PIGLIT_PLATFORM=surfaceless_egl, as on the host (this 2022
#    piglit also has gbm; with surfaceless EGL the same -auto -fbo framework
#    runs on both sides).  In the guest, Mesa's surfaceless platform opens
#    the vagx render node (renderD128) of vagx.ko; test 1 checks that the
#    same environment gives the vagx renderer, so a silent fallback to
#    softpipe cannot pass the suite.
#  - Result per test as on the host (tests/piglit/results.py tap): "not ok"
#    only for a "pass" test that does not pass.
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
expected=$top/tests/piglit/fast.expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v piglit >/dev/null; then
	echo "1..0 # SKIP piglit not installed"
	exit 1
fi

cat >"$tmp/names" <<'EOF'
fast_color_clear@all-colors
fast_color_clear@fcc-read-after-clear sample tex
fast_color_clear@redundant-clear
spec@!opengl 1.0@gl-1.0-scissor-depth-clear-negative-xy
spec@ext_framebuffer_object@fbo-stencil-gl_stencil_index4-clear
spec@!opengl 1.0@gl-1.0-textured-triangle
spec@!opengl 1.1@degenerate-prims
spec@!opengl 1.1@gl-1.1-draw-arrays-start
spec@!opengl 1.2@draw-elements-vs-inputs
spec@!opengl 1.5@draw-elements
spec@!opengl 1.5@vertex-buffer-offsets
spec@!opengl 1.4@blendminmax
spec@!opengl 2.1@polygon-stipple-fs
spec@!opengl 2.1@pbo
spec@glsl-1.10@execution@really-big-triangle
spec@arb_draw_instanced@arb_draw_instanced-drawarrays
spec@!opengl 1.4@tex-miplevel-selection
spec@!opengl 1.2@texwrap 3d
spec@!opengl 1.1@texwrap 2d proj bordercolor
spec@!opengl 1.3@texunits
spec@!opengl 1.2@lodclamp-between
shaders@glsl-fs-texturecube-bias
shaders@glsl-fs-texture2drect
spec@ext_framebuffer_object@fbo-copyteximage
spec@ext_framebuffer_object@fbo-generatemipmap
spec@arb_framebuffer_object@framebuffer-blit-levels draw rgba
spec@arb_framebuffer_object@fbo-incomplete
spec@arb_framebuffer_object@mixed-buffer-sizes
spec@ext_framebuffer_object@fbo-depth-sample-compare
spec@ext_framebuffer_object@fbo-drawbuffers
spec@arb_framebuffer_object@fbo-drawbuffers-none gl_fragdata
shaders@glsl-fs-loop
shaders@glsl-sin
shaders@glsl-fs-flat-color
shaders@glsl-kwin-blur-1
spec@glsl-1.10@execution@glsl-fs-vec4-mat2
spec@glsl-1.10@execution@variable-indexing@vs-temp-array-mat2-index-col-rd
spec@glsl-1.20@execution@glsl-fs-uniform-array-4
spec@glsl-es-1.00@compiler@precision-qualifiers@precision-fs-highp-01.frag
spec@!opengl es 2.0@glsl-fs-pointcoord
spec@arb_occlusion_query@occlusion_query
spec@arb_occlusion_query@occlusion_query_conform
spec@arb_occlusion_query2@render
spec@nv_conditional_render@clear
spec@!opengl 2.0@early-z
spec@glsl-1.10@execution@glsl-1.10-fragdepth
spec@!opengl 1.1@stencil-drawpixels
spec@arb_framebuffer_object@arb_framebuffer_object-depth-stencil-blit stencil gl_depth24_stencil8
EOF

# fast.expected's lines of these tests, under their "## cause" lines
awk -v missing="$tmp/missing" '
	NR == FNR { want[$0] = 1; next }
	/^## / { print; next }
	/^(pass|fail) / { n = $0; sub(/^[a-z]+ /, "", n); if (n in want) { print; seen[n] = 1 } }
	END { for (n in want) if (!(n in seen)) print n > missing }' \
	"$tmp/names" "$expected" >"$tmp/expected"
if [ -s "$tmp/missing" ]; then
	echo "1..1"
	echo "not ok 1 - piglit subset: not in tests/piglit/fast.expected:"
	sed 's/^/#   /' "$tmp/missing"
	exit 1
fi
sed -n 's/^\(pass\|fail\) //p' "$tmp/expected" >"$tmp/list"

export PIGLIT_PLATFORM=surfaceless_egl
# as on the host: without wflinfo piglit's runner would skip every versioned test
export PIGLIT_NO_FAST_SKIP=1
env=$top/userspace/vagx-env

# 1: the environment the tests get renders on vagx
if [ ! -x build/gl-tests/gl_info ]; then
	make -s -C tests/gl >"$tmp/build.log" 2>&1
fi
EGL_PLATFORM=surfaceless "$env" build/gl-tests/gl_info >"$tmp/gl_info" 2>&1
if grep -q '^compat .*renderer vagx' "$tmp/gl_info"; then
	renderer_ok=1
else
	renderer_ok=0
fi

# A profile of just these tests: piglit's runner loading the whole quick
# profile (quick_gl, quick_shader, glslparser: ~28000 tests) takes ~7 s on
# the host and over a minute under TCG; the <Test> elements are copied as
# they are, so each test runs exactly as with "quick".
start=$(date +%s)
if ! python3 - "$tmp/list" "$tmp/subset.xml.gz" >"$tmp/profile.log" 2>&1 <<'PY'
import gzip, html, re, sys
want = {l.rstrip('\n') for l in open(sys.argv[1]) if l.strip()}
d = '/usr/lib/x86_64-linux-gnu/piglit/tests/'
found = {}
for prof in ('quick_gl', 'quick_shader', 'glslparser'):
    text = gzip.open(d + prof + '.xml.gz', 'rt', encoding='utf-8').read()
    for m in re.finditer(r'<Test [^>]*?name="([^"]*)".*?</Test>', text, re.S):
        n = html.unescape(m.group(1)).lower()
        if n in want and n not in found:
            found[n] = m.group(0)
for n in sorted(want - set(found)):
    print('not in the quick profile:', n)
with gzip.open(sys.argv[2], 'wt', encoding='utf-8') as f:
    f.write("<?xml version='1.0' encoding='utf-8'?>\n")
    f.write('<PiglitTestList count="%d" name="vagx_guest">' % len(found))
    f.write(''.join(found[n] for n in sorted(found)))
    f.write('</PiglitTestList>')
sys.exit(0 if len(found) == len(want) else 1)
PY
then
	echo "1..1"
	echo "not ok 1 - piglit subset profile"
	sed 's/^/#   /' "$tmp/profile.log"
	exit 1
fi
"$env" piglit run -l dummy -j 2 --timeout 60 "$tmp/subset.xml.gz" "$tmp/results" \
	>"$tmp/piglit.log" 2>&1
took=$(($(date +%s) - start))
if ! python3 tests/piglit/results.py status "$tmp/results" >"$tmp/status" 2>>"$tmp/piglit.log"; then
	echo "1..1"
	echo "not ok 1 - piglit produced no results"
	tail -15 "$tmp/piglit.log" | sed 's/^/#   /'
	exit 1
fi

# TAP: test 1 the renderer, then one per piglit test (results.py tap,
# renumbered after test 1)
python3 tests/piglit/results.py tap "$tmp/expected" "$tmp/status" >"$tmp/tap"
rc=$?
total=$(($(sed -n 's/^1\.\.//p' "$tmp/tap") + 1))
echo "1..$total"
if [ $renderer_ok = 1 ]; then
	echo "ok 1 - surfaceless EGL (renderD128) renders on vagx: $(grep -m1 '^compat' "$tmp/gl_info" | sed 's/.*renderer //')"
else
	echo "not ok 1 - surfaceless EGL (renderD128) does not give the vagx renderer"
	sed 's/^/#   /' "$tmp/gl_info" | head -10
	rc=1
fi
awk '/^(not )?ok [0-9]+ / { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { $i = $i + 1; break } print }' "$tmp/tap"
echo "# $(wc -l <"$tmp/list") piglit tests in ${took}s (guest, TCG); slowest:"
python3 - "$tmp/results" <<'PY' | sed 's/^/#   /'
import sys
sys.path.insert(0, 'tests/piglit')
import results
t = results.load_results(sys.argv[1])['tests']
d = sorted(((v['time']['end'] - v['time']['start'], k) for k, v in t.items()), reverse=True)
for s, k in d[:3]:
    print('%5.1fs %s' % (s, k))
PY
if [ $rc != 0 ]; then
	# the output of the tests that did not pass as expected
	for n in $(sed -n 's/^not ok [0-9]* - \(.*\): [a-z]*, expected pass$/\1/p' "$tmp/tap" | tr ' ' '\001'); do
		n=$(echo "$n" | tr '\001' ' ')
		echo "# --- $n"
		python3 - "$tmp/results" "$n" <<'PY' | head -12 | sed 's/^/#   /'
import sys
sys.path.insert(0, 'tests/piglit')
import results
t = {k.lower(): v for k, v in results.load_results(sys.argv[1])['tests'].items()}.get(sys.argv[2], {})
print((t.get('out', '') + t.get('err', '')).strip())
PY
	done
fi
exit $rc
