#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent reference model of the vagx image layout -> C test vectors.

This script is deliberately naive and shares no code with
uapi/hw/layout/vagx_layout.c.  It is written straight from the prose rules in
docs/drivers/asahi.rst ("Image layouts") plus the decisions recorded in
docs/hw/layout.md where asahi.rst is silent (marked DECISION below).  Every
quantity is computed the slow, literal way (loops instead of bit tricks) so a
shared misunderstanding between the two implementations is unlikely.

    gen_vectors.py            print the C header to stdout
    gen_vectors.py OUT        write it to OUT
    gen_vectors.py --check F  exit 1 if F differs from what would be generated
"""
import sys

PAGE = 16384          # asahi.rst: "The hardware uses 16 KiB pages"
CACHELINE = 128       # asahi.rst: "padded to fill at least one cache line (128 bytes)"

# asahi.rst "Tile sizes for large images" (width x height), plus DECISION:
# 32 and 64 byte elements (4x MSAA of 8/16 byte formats) continue the same
# rule "one tile is exactly one 16 KiB page", n x n or 2n x n.
LARGE_TILE = {1: (128, 128), 2: (128, 64), 4: (64, 64), 8: (64, 32),
              16: (32, 32), 32: (32, 16), 64: (16, 16)}

# DECISION (layout.md section 10, contract 1.7): the sparse layout's large
# tile is one 64 KiB sparse page, the standard sparse block shapes of
# ARB_sparse_texture2 / Vulkan (single-sample only).
SPARSE_PAGE = 65536
SPARSE_TILE = {1: (256, 256), 2: (256, 128), 4: (128, 128), 8: (128, 64),
               16: (64, 64)}


def ceil_div(a, b):
    return -(-a // b)


def round_up(x, a):
    return ceil_div(x, a) * a


def minify(size, level):
    # Mipmapping: each level halves, rounding down, never below 1.
    for _ in range(level):
        size = max(1, size // 2)
    return size


def pow2_at_least(x):
    # 2^ceil(log2(x)) by counting.
    m = 1
    while m < x:
        m *= 2
    return m


def morton(x, y):
    # Z order inside a tile: bit i of x -> bit 2i, bit i of y -> bit 2i+1.
    idx = 0
    for i in range(16):
        if x & (1 << i):
            idx += 1 << (2 * i)
        if y & (1 << i):
            idx += 1 << (2 * i + 1)
    return idx


def full_chain(w, h, d, mipmapped_z):
    major = max(w, h, d if mipmapped_z else 1)
    n = 0
    while major >= 1:
        n += 1
        major //= 2
    return n


class Img:
    def __init__(self, name, w, h, d=1, levels=1, samples=1, bw=1, bh=1,
                 bpb=4, linear=False, mz=False, stride=0, sparse=False):
        self.name, self.w, self.h, self.d = name, w, h, d
        self.sparse = sparse
        self.levels, self.samples, self.bw, self.bh = levels, samples, bw, bh
        self.bpb, self.linear, self.mz, self.stride_in = bpb, linear, mz, stride
        self.compute()

    def compute(self):
        E = self.bpb * self.samples            # DECISION: samples inside element
        self.E = E
        # asahi.rst: "A 2D image consists of a full miptree" -- DECISION: a
        # mipmapped image always allocates the full chain, a single-level
        # image only level 0.
        nl = full_chain(self.w, self.h, self.d, self.mz) if self.levels > 1 else 1
        self.levels_alloc = nl
        self.lv = []
        if self.linear:
            # asahi.rst: stride multiple of 16; DECISION default = minimal.
            w_el = self.w
            stride = self.stride_in or round_up(w_el * E, 16)
            size = stride * self.h
            self.lv.append(dict(off=0, size=size, tw=w_el, th=1, tx=1,
                                ty=self.h, w_el=w_el, h_el=self.h, stride=stride))
            self.miptree = round_up(size, CACHELINE)
            self.layer_stride = self.miptree
            self.size = self.layer_stride
            self.align = 128
            return
        TW, TH = SPARSE_TILE[E] if self.sparse else LARGE_TILE[E]
        w0 = ceil_div(self.w, self.bw)
        h0 = ceil_div(self.h, self.bh)
        stx = ceil_div(w0, TW)     # "dimensions of large images are rounded up
        sty = ceil_div(h0, TH)     #  to be multiples of the tile size"
        off = 0
        still_large = True
        for l in range(nl):
            wl = ceil_div(minify(self.w, l), self.bw)
            hl = ceil_div(minify(self.h, l), self.bh)
            # "If an image is smaller than this tile size, a smaller tile size
            # is used": a level is small once either axis is below the tile.
            if wl < TW or hl < TH:
                still_large = False
            if still_large:
                # The wrinkle: level-0 tile count >> 2l, plus an extra column
                # / row / corner if any of the first l halvings rounded down.
                col_rounded = False
                row_rounded = False
                cx, cy = stx, sty
                for _ in range(l):
                    if cx % 2 == 1:
                        col_rounded = True
                    if cy % 2 == 1:
                        row_rounded = True
                    cx //= 2
                    cy //= 2
                tiles = (stx * sty) // (4 ** l)
                if col_rounded:
                    tiles += cy            # one extra column of cy tiles
                if row_rounded:
                    tiles += cx            # one extra row of cx tiles
                if col_rounded and row_rounded:
                    tiles += 1             # and the corner
                # DECISION: the level's tile grid is also the level-0 grid
                # halved, plus the extra column/row.
                tx = cx + (1 if col_rounded else 0)
                ty = cy + (1 if row_rounded else 0)
                tw, th = TW, TH
            else:
                m = pow2_at_least(min(wl, hl))
                tw = th = m
                # DECISION: a small level is rounded up to whole m x m tiles.
                tx = ceil_div(wl, m)
                ty = ceil_div(hl, m)
                tiles = tx * ty
            size = tiles * tw * th * E
            self.lv.append(dict(off=off, size=size, tw=tw, th=th, tx=tx,
                                ty=ty, w_el=wl, h_el=hl, tiles=tiles,
                                stride=min(tx * tw * th * E, 0xffffffff)))
            off = round_up(off + size, CACHELINE)
        self.miptree = off
        page = SPARSE_PAGE if self.sparse else PAGE  # DECISION: sparse pages
        self.layer_stride = round_up(off, page)   # "rounded up to the page size"
        self.size = self.layer_stride * self.d    # layers of full miptrees
        self.align = page

    def offset(self, level, layer, x, y):
        v = self.lv[level]
        if self.linear:
            return y * v['stride'] + x * self.E
        tile_col = x // v['tw']
        tile_row = y // v['th']
        tile_index = tile_row * v['tx'] + tile_col     # tiles in raster order
        inner = morton(x % v['tw'], y % v['th'])
        return (layer * self.layer_stride + v['off'] +
                (tile_index * v['tw'] * v['th'] + inner) * self.E)


def cases():
    out = []
    for bpb in (1, 2, 4, 8, 16):
        for (w, h) in ((1, 1), (3, 3), (16, 8), (8, 16)):
            out.append(Img(f"{w}x{h} {bpb}B", w, h, bpb=bpb))
        for (w, h) in ((33, 17), (100, 1), (1, 100), (257, 129), (256, 256),
                       (1024, 1024), (1000, 700), (130, 400), (64, 1)):
            out.append(Img(f"{w}x{h} {bpb}B mip", w, h, levels=99, bpb=bpb))
        out.append(Img(f"300x200 {bpb}B", 300, 200, bpb=bpb))
        out.append(Img(f"4097x3 {bpb}B", 4097, 3, bpb=bpb))
    # extremes
    out.append(Img("16384x16384 1B mip", 16384, 16384, levels=99, bpb=1))
    out.append(Img("16384x1 16B mip", 16384, 1, levels=99, bpb=16))
    out.append(Img("2049x4095 16B mip", 2049, 4095, levels=99, bpb=16))
    # block-compressed (4x4 blocks)
    out.append(Img("257x129 bc 8B mip", 257, 129, levels=99, bw=4, bh=4, bpb=8))
    out.append(Img("1000x1000 bc 16B mip", 1000, 1000, levels=99, bw=4, bh=4, bpb=16))
    out.append(Img("10x10 bc 8B mip", 10, 10, levels=99, bw=4, bh=4, bpb=8))
    out.append(Img("64x64 bc 16B mip", 64, 64, levels=99, bw=4, bh=4, bpb=16))
    # 3D (mipmapped z) and arrays / cubes
    out.append(Img("64x32x16 3D 4B mip", 64, 32, 16, levels=99, bpb=4, mz=True))
    out.append(Img("5x7x33 3D 1B mip", 5, 7, 33, levels=99, bpb=1, mz=True))
    out.append(Img("100x60x9 3D 8B", 100, 60, 9, bpb=8, mz=True))
    out.append(Img("100x60 [5] 4B mip", 100, 60, 5, levels=99, bpb=4))
    out.append(Img("33x17 [3] 2B", 33, 17, 3, bpb=2))
    out.append(Img("cube 128 4B mip", 128, 128, 6, levels=99, bpb=4))
    out.append(Img("cube 1 16B", 1, 1, 6, bpb=16))
    out.append(Img("cube[2] 16 8B mip", 16, 16, 12, levels=99, bpb=8))
    out.append(Img("cube 300 1B mip", 300, 300, 6, levels=99, bpb=1))
    # 4x MSAA
    for bpb in (1, 2, 4, 8, 16):
        out.append(Img(f"msaa4 100x75 {bpb}B", 100, 75, samples=4, bpb=bpb))
        out.append(Img(f"msaa4 1x1 {bpb}B", 1, 1, samples=4, bpb=bpb))
    out.append(Img("msaa4 640x480 16B", 640, 480, samples=4, bpb=16))
    out.append(Img("msaa4 33x17 [4] 8B", 33, 17, 4, samples=4, bpb=8))
    # linear
    out.append(Img("linear 100x1 4B", 100, 1, linear=True))
    out.append(Img("linear 33x17 1B", 33, 17, bpb=1, linear=True))
    out.append(Img("linear 640x480 4B s4096", 640, 480, linear=True, stride=4096))
    out.append(Img("linear 1x1 16B", 1, 1, bpb=16, linear=True))
    out.append(Img("linear 3x5 2B", 3, 5, bpb=2, linear=True))
    # the sparse layout (64 KiB tiles, layers whole 64 KiB pages apart)
    for bpb in (1, 2, 4, 8, 16):
        out.append(Img(f"sparse 1024x512 {bpb}B mip", 1024, 512, levels=99, bpb=bpb,
                       sparse=True))
        out.append(Img(f"sparse 300x200 [3] {bpb}B mip", 300, 200, 3, levels=99,
                       bpb=bpb, sparse=True))
    out.append(Img("sparse 16384x16384 1B mip", 16384, 16384, levels=99, bpb=1,
                   sparse=True))
    out.append(Img("sparse cube 256 4B mip", 256, 256, 6, levels=99, bpb=4, sparse=True))
    out.append(Img("sparse 1x1 16B", 1, 1, bpb=16, sparse=True))
    return out


def probe_points(img, level):
    v = img.lv[level]
    w, h = v['w_el'], v['h_el']
    pts = {(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1), (w // 2, h // 2),
           ((w * 7) // 11, (h * 3) // 13)}
    # Crossing a tile boundary where possible.
    if w > v['tw']:
        pts.add((v['tw'], min(1, h - 1)))
    if h > v['th']:
        pts.add((min(1, w - 1), v['th']))
    return sorted(pts)


def emit():
    lines = []
    p = lines.append
    p("/* GENERATED by tests/unit/layout/gen_vectors.py -- do not edit.")
    p(" * Expected values come from that script's independent reference model")
    p(" * of the asahi.rst rules, never from the library. */")
    p("#ifndef LAYOUT_VECTORS_H")
    p("#define LAYOUT_VECTORS_H")
    p("#include <stdint.h>")
    p("")
    p("struct vec_level {")
    p("   uint64_t offset_B, size_B;")
    p("   uint32_t tile_w_el, tile_h_el, tiles_x, tiles_y, width_el, height_el, stride_B;")
    p("};")
    p("")
    p("struct vec_case {")
    p("   const char *name;")
    p("   uint32_t w, h, d, levels, samples, bw, bh, bpb;")
    p("   int linear, mipmapped_z, sparse;")
    p("   uint32_t linear_stride_B;")
    p("   /* expected */")
    p("   uint32_t levels_alloc, alignment_B;")
    p("   uint64_t miptree_size_B, layer_stride_B, size_B;")
    p("   const struct vec_level *lv;")
    p("};")
    p("")
    p("struct vec_probe {")
    p("   uint32_t case_idx, level, layer, x_el, y_el;")
    p("   uint64_t offset_B;")
    p("};")
    p("")
    imgs = cases()
    for i, img in enumerate(imgs):
        p(f"static const struct vec_level vec_lv_{i}[] = {{ /* {img.name} */")
        for v in img.lv:
            p(f"   {{ {v['off']}ull, {v['size']}ull, {v['tw']}, {v['th']}, {v['tx']}, "
              f"{v['ty']}, {v['w_el']}, {v['h_el']}, {v['stride']}ull }},")
        p("};")
    p("")
    p("static const struct vec_case vec_cases[] = {")
    for i, img in enumerate(imgs):
        p(f"   {{ \"{img.name}\", {img.w}, {img.h}, {img.d}, {img.levels}, "
          f"{img.samples}, {img.bw}, {img.bh}, {img.bpb}, {int(img.linear)}, "
          f"{int(img.mz)}, {int(img.sparse)}, {img.stride_in}, {img.levels_alloc}, {img.align}, "
          f"{img.miptree}ull, {img.layer_stride}ull, {img.size}ull, vec_lv_{i} }},")
    p("};")
    p("")
    p("static const struct vec_probe vec_probes[] = {")
    for i, img in enumerate(imgs):
        layers = sorted({0, img.d - 1})
        for l in range(img.levels_alloc):
            for layer in layers:
                for (x, y) in probe_points(img, l):
                    p(f"   {{ {i}, {l}, {layer}, {x}, {y}, {img.offset(l, layer, x, y)}ull }},")
    p("};")
    p("")
    p("#endif")
    return "\n".join(lines) + "\n"


def main(argv):
    text = emit()
    if len(argv) >= 3 and argv[1] == "--check":
        with open(argv[2]) as f:
            if f.read() != text:
                print(f"{argv[2]} is stale: rerun gen_vectors.py", file=sys.stderr)
                return 1
        return 0
    if len(argv) >= 2:
        with open(argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
