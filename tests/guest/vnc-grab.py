#!/usr/bin/env python3
"""vnc-grab.py: one frame of QEMU's VNC server as a binary PPM, as a VNC
viewer sees it (tests/guest/vnc-test; `make run DISPLAY_OPTS=vnc=...`).

  vnc-grab.py SOCKET OUT.ppm WIDTH HEIGHT [TIMEOUT]

Connects to the VNC server on the unix socket SOCKET (QEMU's
`-display vnc=unix:SOCKET`; retried until it exists), speaks RFB 3.8 with
security type None, asks for 32-bit XRGB pixels in the raw encoding (and the
DesktopSize pseudo-encoding, so a modeset is seen), and requests whole
frames until the desktop is WIDTH x HEIGHT; writes that frame to OUT.ppm.
Exit status 0 written, 1 timeout (default 120 s) or protocol error.
Standard library only.
"""
import socket
import struct
import sys
import time

RAW, DESKTOP_SIZE = 0, -223


def recv(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError('server closed the connection')
        buf += chunk
    return bytes(buf)


def handshake(s):
    version = recv(s, 12)
    if not version.startswith(b'RFB 003.'):
        raise ValueError(f'not an RFB server: {version!r}')
    s.sendall(b'RFB 003.008\n')
    ntypes = recv(s, 1)[0]
    if ntypes == 0:
        reason = recv(s, struct.unpack('>I', recv(s, 4))[0])
        raise ValueError(f'refused: {reason!r}')
    if 1 not in recv(s, ntypes):
        raise ValueError('security type None not offered')
    s.sendall(b'\x01')
    if struct.unpack('>I', recv(s, 4))[0] != 0:
        raise ValueError('security handshake failed')
    s.sendall(b'\x01')  # ClientInit: shared
    w, h = struct.unpack('>HH', recv(s, 4))
    recv(s, 16)  # the server's pixel format: we set ours
    recv(s, struct.unpack('>I', recv(s, 4))[0])  # desktop name
    # SetPixelFormat: 32 bpp, depth 24, little-endian, true colour, XRGB.
    s.sendall(struct.pack('>B3xBBBBHHHBBB3x', 0, 32, 24, 0, 1, 255, 255, 255,
                          16, 8, 0))
    s.sendall(struct.pack('>BxHii', 2, 2, RAW, DESKTOP_SIZE))
    return w, h


def frame(s, w, h):
    """Requests the whole desktop; returns (w, h, XRGB bytes or None if the
    desktop was resized meanwhile)."""
    s.sendall(struct.pack('>BBHHHH', 3, 0, 0, 0, w, h))
    pixels = bytearray(w * h * 4)
    while True:
        kind = recv(s, 1)[0]
        if kind == 0:
            break
        if kind == 2:  # bell
            continue
        if kind == 3:  # server cut text
            recv(s, 3)
            recv(s, struct.unpack('>I', recv(s, 4))[0])
            continue
        raise ValueError(f'unexpected server message {kind}')
    recv(s, 1)
    resized = False
    for _ in range(struct.unpack('>H', recv(s, 2))[0]):
        x, y, rw, rh, enc = struct.unpack('>HHHHi', recv(s, 12))
        if enc == DESKTOP_SIZE:
            w, h, resized = rw, rh, True
            pixels = bytearray(w * h * 4)
        elif enc == RAW:
            data = recv(s, rw * rh * 4)
            if x + rw > w or y + rh > h:
                raise ValueError('rectangle outside the desktop')
            for row in range(rh):
                o = ((y + row) * w + x) * 4
                pixels[o:o + rw * 4] = data[row * rw * 4:(row + 1) * rw * 4]
        else:
            raise ValueError(f'unexpected encoding {enc}')
    return w, h, None if resized else bytes(pixels)


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    path, out = sys.argv[1], sys.argv[2]
    want = (int(sys.argv[3]), int(sys.argv[4]))
    deadline = time.monotonic() + (float(sys.argv[5]) if len(sys.argv) == 6 else 120)
    last = 'no connection'
    while time.monotonic() < deadline:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(30)
                s.connect(path)
                w, h = handshake(s)
                # QEMU refreshes its copy of the console on a timer that
                # runs while a viewer is connected: the first frames of a
                # connection can predate it.  Keep the one a second in.
                settle = time.monotonic() + 1
                while time.monotonic() < deadline:
                    w, h, px = frame(s, w, h)
                    last = f'desktop {w}x{h}'
                    if px is not None and (w, h) == want and time.monotonic() >= settle:
                        rgb = bytearray(w * h * 3)
                        rgb[0::3] = px[2::4]
                        rgb[1::3] = px[1::4]
                        rgb[2::3] = px[0::4]
                        with open(out, 'wb') as f:
                            f.write(b'P6\n%d %d\n255\n' % (w, h) + rgb)
                        print(f'vnc-grab: {w}x{h} frame written to {out}')
                        return
                    time.sleep(0.2)
        except (OSError, EOFError, ValueError) as e:
            last = str(e)
            time.sleep(0.5)
    print(f'vnc-grab: no {want[0]}x{want[1]} frame in time ({last})')
    sys.exit(1)


if __name__ == '__main__':
    main()
