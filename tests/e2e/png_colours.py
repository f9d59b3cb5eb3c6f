#!/usr/bin/env python3
"""png_colours.py PNG - prints how many distinct pixel values an 8-bit,
non-interlaced PNG (RGB or RGBA, as Chromium's screenshots are) holds, with
the standard library alone: a blank page is one colour, a rendered report
thousands. Exit 2 on a PNG it does not read."""
import struct
import sys
import zlib


def chunks(data):
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def rows(raw, width, height, bpp):
    stride = width * bpp
    prev = bytearray(stride)
    pos = 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
            add = (0, left, up, (left + up) // 2, paeth(left, up, corner))[kind]
            line[i] = (line[i] + add) & 0xFF
        yield bytes(line)
        prev = line


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % sys.argv[1])
    header, idat = None, b""
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        print("%s: depth %d, colour type %d, interlace %d: not read" % (sys.argv[1], depth, colour, interlace),
              file=sys.stderr)
        sys.exit(2)
    bpp = 3 if colour == 2 else 4
    seen = set()
    for line in rows(zlib.decompress(idat), width, height, bpp):
        for i in range(0, len(line), bpp * 4):  # every fourth pixel is plenty to tell blank from drawn
            seen.add(line[i:i + bpp])
    print(len(seen))


main()
