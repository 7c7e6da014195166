#!/usr/bin/env python3
"""imgcompare.py: checks of host screendumps (binary PPM, as QMP writes them)
for tests/guest/screendump-test.  Prints one line (why it passed or failed);
exit status 0 pass, 1 fail, 2 usage or unreadable file.

  imgcompare.py pattern FORMAT W H FILE  the vagx_kms --show pattern
  imgcompare.py tty1 FILE                fbcon text is visible
  imgcompare.py fb0 FILE                 the colour written into /dev/fb0
  imgcompare.py frames REF FILE [--max-diff D] [--max-frac F] [--min-content C]
                                         two renderings of the same frame
  imgcompare.py differ A B               two pictures must not be equal
                                         under the `frames` tolerance

`frames`: a pixel differs if any channel differs by more than D (default 2);
at most a fraction F (default 0.0005) of the pixels may differ, and at least a
fraction C (default 0.05) of REF's pixels must differ from REF's most common
colour (the clear colour), so that two blank screens cannot pass.  The
numbers are justified in docs/display.md ("Reference comparison").
"""
import sys
from collections import Counter

DEFAULT_MAX_DIFF = 2
DEFAULT_MAX_FRAC = 0.0005
DEFAULT_MIN_CONTENT = 0.05


def read_ppm(path):
    """Returns (width, height, bytes RGB RGB ...) of a binary P6 PPM."""
    data = open(path, 'rb').read()
    # P6 header: magic, width, height, maxval, one whitespace byte, pixels.
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b'#':
            pos = data.index(b'\n', pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    magic, w, h, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    if magic != b'P6' or maxval != 255:
        raise ValueError(f'{path}: not an 8-bit binary PPM ({magic!r}, maxval {maxval})')
    px = data[pos:pos + w * h * 3]
    if len(px) != w * h * 3:
        raise ValueError(f'{path}: short PPM')
    return w, h, px


def fail(msg):
    print(msg)
    sys.exit(1)


def check_pattern(fmt, ew, eh, path):
    w, h, px = read_ppm(path)
    if (w, h) != (ew, eh):
        fail(f'screendump is {w}x{h}, expected {ew}x{eh}')
    # Independent statement of the pattern (see tests/uapi/vagx_kms.c):
    # red ramp along x, green ramp along y, blue 32x32 checkerboard.
    tol = 7 if fmt == 'RGB565' else 0  # 5/6-bit channels, any expansion rule
    bad = 0
    first = None
    for y in range(h):
        g = y * 255 // (h - 1)
        row = y * w * 3
        for x in range(w):
            r = x * 255 // (w - 1)
            b = 0xff if ((x // 32 + y // 32) & 1) else 0x20
            i = row + x * 3
            got = px[i], px[i + 1], px[i + 2]
            if abs(got[0] - r) > tol or abs(got[1] - g) > tol or abs(got[2] - b) > tol:
                bad += 1
                if first is None:
                    first = (x, y, got, (r, g, b))
    if bad:
        fail(f'{bad} pixels differ; first at {first[0]},{first[1]}: got {first[2]} want {first[3]}')
    print(f'{w * h} pixels match')


def check_tty1(path):
    w, h, px = read_ppm(path)
    if (w, h) != (1024, 768):
        fail(f'fbcon mode {w}x{h}, expected 1024x768')
    lit = sum(1 for i in range(0, len(px), 3) if px[i] | px[i + 1] | px[i + 2])
    if lit < 2000:
        fail(f'only {lit} non-black pixels: no console text')
    print(f'{lit} non-black pixels')


def check_fb0(path):
    w, h, px = read_ppm(path)
    want = bytes((0xc0, 0x80, 0x40))
    good = sum(1 for i in range(0, len(px), 3) if px[i:i + 3] == want)
    if good < 0.98 * w * h:
        fail(f'{good} of {w * h} pixels are the fb0 colour')
    print(f'{good} of {w * h} pixels are the fb0 colour')


def frame_stats(ref, path, max_diff):
    """Returns (message-less) statistics of FILE against REF."""
    rw, rh, rpx = read_ppm(ref)
    w, h, px = read_ppm(path)
    if (w, h) != (rw, rh):
        fail(f'{path} is {w}x{h}, {ref} is {rw}x{rh}')
    n = w * h
    differing = 0
    worst = 0
    first = None
    for i in range(0, n * 3, 3):
        d = max(abs(px[i] - rpx[i]), abs(px[i + 1] - rpx[i + 1]), abs(px[i + 2] - rpx[i + 2]))
        if d > worst:
            worst = d
        if d > max_diff:
            differing += 1
            if first is None:
                first = (i // 3 % w, i // 3 // w, tuple(px[i:i + 3]), tuple(rpx[i:i + 3]))
    clear, count = Counter(rpx[i:i + 3] for i in range(0, n * 3, 3)).most_common(1)[0]
    return n, differing, worst, first, 1 - count / n, tuple(clear)


def parse_tol(args):
    opts = {'--max-diff': DEFAULT_MAX_DIFF, '--max-frac': DEFAULT_MAX_FRAC,
            '--min-content': DEFAULT_MIN_CONTENT}
    rest = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = float(args.pop(0))
        else:
            rest.append(a)
    return rest, opts['--max-diff'], opts['--max-frac'], opts['--min-content']


def check_frames(args):
    (ref, path), max_diff, max_frac, min_content = parse_tol(args)
    n, differing, worst, first, content, clear = frame_stats(ref, path, max_diff)
    if content < min_content:
        fail(f'the reference is {content:.1%} content (not clear colour {clear}): nothing drawn?')
    summary = (f'{differing} of {n} pixels ({differing / n:.3%}) differ by more than '
               f'{max_diff:g}, largest difference {worst}, content {content:.1%}')
    if differing > max_frac * n:
        fail(f'{summary} (limit {max_frac:.3%}); first at {first[0]},{first[1]}: '
              f'got {first[2]} reference {first[3]}')
    print(summary)


def check_differ(args):
    (a, b), max_diff, max_frac, _ = parse_tol(args)
    n, differing, worst, _, _, _ = frame_stats(a, b, max_diff)
    if differing <= max_frac * n:
        fail(f'only {differing} of {n} pixels differ by more than {max_diff:g}: '
              'the tolerance cannot tell these pictures apart')
    print(f'{differing} of {n} pixels ({differing / n:.3%}) differ: the tolerance tells them apart')


def main():
    a = sys.argv[1:]
    try:
        if a[:1] == ['pattern'] and len(a) == 5:
            check_pattern(a[1], int(a[2]), int(a[3]), a[4])
        elif a[:1] == ['tty1'] and len(a) == 2:
            check_tty1(a[1])
        elif a[:1] == ['fb0'] and len(a) == 2:
            check_fb0(a[1])
        elif a[:1] == ['frames']:
            check_frames(a[1:])
        elif a[:1] == ['differ']:
            check_differ(a[1:])
        else:
            print(__doc__, file=sys.stderr)
            sys.exit(2)
    except (OSError, ValueError, IndexError) as e:
        print(f'cannot check: {e}')
        sys.exit(2)


if __name__ == '__main__':
    main()
