#!/usr/bin/env python3
"""The generator must reject inconsistent contracts rather than emit a header
with silently overlapping bits.  Each case mutates the real XML once."""
import subprocess
import sys
import tempfile
import os

gen, xml = sys.argv[1], sys.argv[2]
src = open(xml, encoding='utf-8').read()

CASES = [
    ('overlapping fields',
     '<field name="dimension" dw="0" bit="8" size="4" type="dimension"/>',
     '<field name="dimension" dw="0" bit="6" size="4" type="dimension"/>'),
    ('field beyond struct end',
     '<field name="seqno" dw="10" bit="0" size="64" type="uint"/>',
     '<field name="seqno" dw="15" bit="0" size="64" type="uint"/>'),
    ('duplicate opcode', 'opcode="0x03"', 'opcode="0x02"'),
    ('enum does not fit field',
     '<field name="layout" dw="0" bit="12" size="2" type="image_layout"/>\n    <field name="samples" dw="0" bit="14" size="2" type="msaa"/>\n    <field name="swizzle_r"',
     '<field name="layout" dw="0" bit="12" size="2" type="image_layout"/>\n    <field name="samples" dw="0" bit="14" size="1" type="msaa"/>\n    <field name="swizzle_r"'),
    ('register offset clash', '<reg name="SCRATCH" offset="0x018"', '<reg name="SCRATCH" offset="0x014"'),
    ('unknown type', 'type="stencil_face"/>', 'type="stencil_fac"/>'),
    ('max beyond field', 'max="MAX_CF_BINDINGS"', 'max="64"'),
    # the version's one source is HW_VERSION_MAJOR/MINOR: no second copy on
    # the root, and no contract without them
    ('version attributes on the root', '<vagx_hw>', '<vagx_hw version_major="1" version_minor="5">'),
    ('no HW_VERSION_MINOR', 'name="HW_VERSION_MINOR"', 'name="HW_VERSION_MINOR_"'),
]

failed = 0
with tempfile.TemporaryDirectory() as d:
    ok = subprocess.run([sys.executable, gen, '--xml', xml, '--out', d]).returncode
    if ok != 0:
        print('FAIL: the real contract does not generate')
        failed += 1
    for name, a, b in CASES:
        if src.count(a) < 1:
            print('FAIL: case %r no longer applies to the XML' % name)
            failed += 1
            continue
        p = os.path.join(d, 'bad.xml')
        open(p, 'w', encoding='utf-8').write(src.replace(a, b, 1))
        r = subprocess.run([sys.executable, gen, '--xml', p, '--out', d], capture_output=True, text=True)
        if r.returncode == 0:
            print('FAIL: generator accepted %s' % name)
            failed += 1
        else:
            print('ok %s: %s' % (name, r.stderr.strip()))
sys.exit(1 if failed else 0)
