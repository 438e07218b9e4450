#!/usr/bin/python3
"""Decode fixtures for @jepa/input and their Pillow goldens.

Run with Debian's interpreter: /usr/bin/python3 packages/input/scripts/gen_decode_goldens.py
Writes fixtures/input/decode/: small JPEG/PNG/WebP/TIFF/GIF files, for each one
NAME.pil.npy.gz = ImageOps.exif_transpose(Image.open(NAME)).convert('RGB') and, where the file carries
an orientation other than 1, NAME.stored.pil.npy.gz = Image.open(NAME).convert('RGB'), plus index.json.
TIFF differs: Pillow 9.4 orients it while loading, so its golden is that load and its stored raster
is a load with the orientation switched off (see pillow_rgb).

Pillow 9.4 cannot write restart markers, CMYK JPEG without an Adobe segment, or YCCK, so those come
from the small baseline encoder below and are decoded by Pillow like every other file.
"""
import gzip
import io
import json
import os
import struct
import warnings
import zlib

import numpy as np
import PIL
from PIL import Image, ImageDraw, ImageOps

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
OUT = os.path.join(ROOT, 'fixtures', 'input', 'decode')


def save_npy_gz(path, array):
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array))
    with open(path, 'wb') as f:
        # mtime=0 keeps regenerated goldens byte-stable.
        with gzip.GzipFile(fileobj=f, mode='wb', compresslevel=9, mtime=0) as gz:
            gz.write(buf.getvalue())


def picture(w, h, seed):
    """Gradients, hard edges and noise, so chroma subsampling and the IDCT both show."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    base = np.stack([40 + 180 * xx / max(w - 1, 1), 200 - 150 * yy / max(h - 1, 1),
                     128 + 100 * np.sin(xx / 5 + yy / 7)], axis=-1)
    img = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), 'RGB')
    d = ImageDraw.Draw(img)
    d.ellipse([w * 0.55, h * 0.1, w * 0.9, h * 0.6], fill=(250, 30, 60))
    d.rectangle([w * 0.1, h * 0.5, w * 0.4, h * 0.9], fill=(20, 60, 240), outline=(255, 255, 255))
    d.line([(0, h - 1), (w - 1, 0)], fill=(0, 0, 0), width=1)
    arr = np.asarray(img).astype(np.int16) + rng.integers(-8, 9, (h, w, 3))
    return np.clip(arr, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- a baseline JPEG writer
ZIGZAG = sorted(range(64), key=lambda i: (i // 8 + i % 8, (i % 8) if (i // 8 + i % 8) % 2 == 0 else (i // 8)))
LUMA_Q = np.array([16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
                   14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                   49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99])
DCT = np.array([[np.sqrt((1 if u == 0 else 2) / 8) * np.cos((2 * x + 1) * u * np.pi / 16) for x in range(8)]
                for u in range(8)])
# Flat Huffman tables: every DC category a 4-bit code, every AC (run, size) symbol an 8-bit one.
DC_SYMBOLS = list(range(12))
AC_SYMBOLS = [0x00, 0xF0] + [(run << 4) | size for run in range(16) for size in range(1, 11)]


class BitWriter:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value, length):
        for i in range(length - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc = self.n = 0

    def flush(self):
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)


def segment(marker, payload):
    return struct.pack('>BBH', 0xFF, marker, len(payload) + 2) + payload


def category(v):
    return 0 if v == 0 else int(abs(v)).bit_length()


def low_bits(v, size):
    return v if v >= 0 else v + (1 << size) - 1


def encode_jpeg(planes, sampling, quality=90, restart=0, adobe=None, jfif=True):
    """planes: full-resolution uint8 arrays (one per component, already in the file's colour space);
    sampling: (h, v) per component; restart: MCUs per restart interval (0 = none);
    adobe: the APP14 transform flag to write, or None for no Adobe segment."""
    h_img, w_img = planes[0].shape
    hmax, vmax = max(s[0] for s in sampling), max(s[1] for s in sampling)
    mcus_x, mcus_y = -(-w_img // (8 * hmax)), -(-h_img // (8 * vmax))
    scale = 5000 / quality if quality < 50 else 200 - 2 * quality
    qt = np.clip((LUMA_Q * scale + 50) // 100, 1, 255).reshape(8, 8)
    blocks = []
    for plane, (h, v) in zip(planes, sampling):
        fx, fy = hmax // h, vmax // v
        cw, ch = -(-w_img // fx), -(-h_img // fy)
        padded = np.pad(plane.astype(np.float64), ((0, ch * fy - h_img), (0, cw * fx - w_img)), mode='edge')
        sub = padded.reshape(ch, fy, cw, fx).mean(axis=(1, 3))
        full = np.pad(sub, ((0, mcus_y * 8 * v - ch), (0, mcus_x * 8 * h - cw)), mode='edge')
        blocks.append(full)
    bw = BitWriter()
    preds = [0] * len(planes)
    mcu_count = 0
    for my in range(mcus_y):
        for mx in range(mcus_x):
            if restart and mcu_count and mcu_count % restart == 0:
                bw.flush()
                bw.out += bytes([0xFF, 0xD0 + (mcu_count // restart - 1) % 8])
                preds = [0] * len(planes)
            for ci, (h, v) in enumerate(sampling):
                for by in range(v):
                    for bx in range(h):
                        y0, x0 = (my * v + by) * 8, (mx * h + bx) * 8
                        coef = DCT @ (blocks[ci][y0:y0 + 8, x0:x0 + 8] - 128) @ DCT.T
                        q = np.round(coef / qt).astype(int).reshape(64)[ZIGZAG]
                        diff = q[0] - preds[ci]
                        preds[ci] = q[0]
                        size = category(diff)
                        bw.put(DC_SYMBOLS.index(size), 4)
                        bw.put(low_bits(diff, size), size)
                        run = 0
                        last = max([i for i in range(1, 64) if q[i] != 0], default=0)
                        for i in range(1, last + 1):
                            if q[i] == 0:
                                run += 1
                                continue
                            while run > 15:
                                bw.put(AC_SYMBOLS.index(0xF0), 8)
                                run -= 16
                            size = category(q[i])
                            bw.put(AC_SYMBOLS.index((run << 4) | size), 8)
                            bw.put(low_bits(q[i], size), size)
                            run = 0
                        if last < 63:
                            bw.put(AC_SYMBOLS.index(0x00), 8)
            mcu_count += 1
    bw.flush()
    out = b'\xff\xd8'
    if jfif:
        out += segment(0xE0, b'JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00')
    if adobe is not None:
        out += segment(0xEE, b'Adobe' + struct.pack('>HHHB', 100, 0, 0, adobe))
    out += segment(0xDB, b'\x00' + bytes(int(x) for x in qt.reshape(64)[ZIGZAG]))
    sof = struct.pack('>BHHB', 8, h_img, w_img, len(planes))
    for ci, (h, v) in enumerate(sampling):
        sof += bytes([ci + 1, (h << 4) | v, 0])
    out += segment(0xC0, sof)
    dc_bits = [0] * 16
    dc_bits[3] = len(DC_SYMBOLS)
    ac_bits = [0] * 16
    ac_bits[7] = len(AC_SYMBOLS)
    out += segment(0xC4, b'\x00' + bytes(dc_bits) + bytes(DC_SYMBOLS))
    out += segment(0xC4, b'\x10' + bytes(ac_bits) + bytes(AC_SYMBOLS))
    if restart:
        out += segment(0xDD, struct.pack('>H', restart))
    sos = bytes([len(planes)]) + b''.join(bytes([ci + 1, 0x00]) for ci in range(len(planes))) + b'\x00\x3f\x00'
    return out + segment(0xDA, sos) + bytes(bw.out) + b'\xff\xd9'


def ycc(rgb):
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = 0.299 * r + 0.587 * g + 0.114 * b
    return [np.clip(np.round(p), 0, 255) for p in (y, 128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
                                                   128 + 0.5 * r - 0.418688 * g - 0.081312 * b)]


# ---------------------------------------------------------------- a PNG writer for what Pillow cannot save
def png_bytes(width, height, color_type, depth, rows, extra=()):
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    body = b''.join(chunk(kind, data) for kind, data in extra)
    idat = zlib.compress(b''.join(b'\x00' + r for r in rows), 9)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, depth, color_type, 0, 0, 0))
            + body + chunk(b'IDAT', idat) + chunk(b'IEND', b''))


def pack_bits(values, depth):
    out = bytearray()
    acc = n = 0
    for v in values:
        acc = (acc << depth) | int(v)
        n += depth
        if n == 8:
            out.append(acc)
            acc = n = 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


def png_files():
    rng = np.random.default_rng(11)
    w, h = 19, 11
    rgb = picture(w, h, 1)
    files = {}
    palette = rng.integers(0, 256, 256 * 3, dtype=np.uint8).tobytes()
    idx = rng.integers(0, 256, (h, w), dtype=np.uint8)
    files['palette8.png'] = png_bytes(w, h, 3, 8, [r.tobytes() for r in idx], [(b'PLTE', palette)])
    idx4 = rng.integers(0, 16, (h, w))
    files['palette4_trns.png'] = png_bytes(w, h, 3, 4, [pack_bits(r, 4) for r in idx4],
                                           [(b'PLTE', palette[:48]), (b'tRNS', bytes([0, 90, 255, 7]))])
    gray = rng.integers(0, 256, (h, w), dtype=np.uint8)
    alpha = rng.integers(0, 256, (h, w), dtype=np.uint8)
    files['graya8.png'] = png_bytes(w, h, 4, 8, [np.stack([g, a], -1).tobytes() for g, a in zip(gray, alpha)])
    files['rgba8.png'] = png_bytes(w, h, 6, 8, [np.concatenate([c, a[:, None]], -1).tobytes()
                                                 for c, a in zip(rgb, alpha)])
    rgb16 = rng.integers(0, 65536, (h, w, 3)).astype('>u2')
    files['rgb16.png'] = png_bytes(w, h, 2, 16, [r.tobytes() for r in rgb16])
    rgba16 = rng.integers(0, 65536, (h, w, 4)).astype('>u2')
    files['rgba16.png'] = png_bytes(w, h, 6, 16, [r.tobytes() for r in rgba16])
    # Straddles 255: Pillow opens 16-bit gray as mode I and clips it, where a shift would not.
    gray16 = rng.integers(0, 700, (h, w)).astype('>u2')
    gray16[0, :4] = [254, 255, 256, 65535]
    files['gray16.png'] = png_bytes(w, h, 0, 16, [r.tobytes() for r in gray16])
    files['gray16_trns.png'] = png_bytes(w, h, 0, 16, [r.tobytes() for r in gray16], [(b'tRNS', struct.pack('>H', 300))])
    # 16-bit gray with alpha is mode LA in Pillow: the high byte, not a clip.
    graya16 = rng.integers(0, 65536, (h, w, 2)).astype('>u2')
    graya16[0, 0, 0] = 300
    files['graya16.png'] = png_bytes(w, h, 4, 16, [r.tobytes() for r in graya16])
    for depth in (1, 2, 4):
        g = rng.integers(0, 2 ** depth, (h, w))
        files[f'gray{depth}.png'] = png_bytes(w, h, 0, depth, [pack_bits(r, depth) for r in g])
    keyed = rgb.copy()
    keyed[2, 3] = keyed[5, 9] = (10, 20, 30)
    files['rgb8_trns.png'] = png_bytes(w, h, 2, 8, [r.tobytes() for r in keyed], [(b'tRNS', struct.pack('>HHH', 10, 20, 30))])
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, 'PNG')
    files['rgb8.png'] = buf.getvalue()
    return files


def orientation_exif(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def jpeg_files():
    files = {}
    scene = Image.fromarray(picture(96, 64, 2))
    for name, sub in (('420', 2), ('422', 1), ('444', 0)):
        for kind, progressive in (('baseline', False), ('progressive', True)):
            buf = io.BytesIO()
            scene.save(buf, 'JPEG', quality=90, subsampling=sub, progressive=progressive)
            files[f'{kind}{name}.jpg'] = buf.getvalue()
    for (w, h, sub, seed) in ((97, 63, 2, 3), (63, 97, 1, 4), (1, 1, 2, 5), (3, 2, 2, 6), (1, 1, 0, 7), (17, 9, 2, 8)):
        buf = io.BytesIO()
        Image.fromarray(picture(w, h, seed)).save(buf, 'JPEG', quality=85, subsampling=sub)
        files[f'odd{w}x{h}_{ {2: "420", 1: "422", 0: "444"}[sub] }.jpg'] = buf.getvalue()
    buf = io.BytesIO()
    scene.convert('L').save(buf, 'JPEG', quality=90)
    files['gray.jpg'] = buf.getvalue()
    # Pillow writes CMYK inverted, with an Adobe segment (transform 0), as Photoshop does.
    cmyk = Image.fromarray(picture(40, 24, 9)).convert('CMYK')
    cmyk_arr = np.asarray(cmyk).copy()
    cmyk_arr[..., 3] = np.asarray(Image.fromarray(picture(40, 24, 10)).convert('L'))
    cmyk = Image.fromarray(cmyk_arr, 'CMYK')
    buf = io.BytesIO()
    cmyk.save(buf, 'JPEG', quality=95)
    files['cmyk_adobe.jpg'] = buf.getvalue()
    planes = [cmyk_arr[..., i] for i in range(4)]
    files['cmyk_plain.jpg'] = encode_jpeg(planes, [(1, 1)] * 4, quality=95, adobe=None, jfif=False)
    # Adobe YCCK holds inverted CMYK: Y/Cb/Cr of (255 - (255 - C), ...) = of (C, M, Y) and K inverted.
    ycck = ycc(cmyk_arr[..., :3]) + [255 - cmyk_arr[..., 3].astype(np.float64)]
    files['ycck.jpg'] = encode_jpeg(ycck, [(2, 2), (1, 1), (1, 1), (2, 2)], quality=95, adobe=2, jfif=False)
    rgb = picture(61, 37, 12)
    mcus_per_row = -(-61 // 16)
    files['restart_rows_420.jpg'] = encode_jpeg(ycc(rgb), [(2, 2), (1, 1), (1, 1)], restart=mcus_per_row)
    files['restart_blocks_444.jpg'] = encode_jpeg(ycc(rgb), [(1, 1)] * 3, restart=5)
    files['custom_420.jpg'] = encode_jpeg(ycc(rgb), [(2, 2), (1, 1), (1, 1)])
    # Two stray bytes before EOI: libjpeg warns ("extraneous bytes before marker"), Pillow decodes.
    base = files['baseline420.jpg']
    files['extraneous_bytes.jpg'] = base[:-2] + b'\x00\x00' + base[-2:]
    # A flipped bit in the entropy-coded data: libjpeg recovers with a warning and Pillow decodes it.
    flipped = bytearray(base)
    flipped[len(base) // 2] ^= 0x10
    files['bitflip.jpg'] = bytes(flipped)
    # The frame header promises more rows than the scan holds, and EOI follows: libjpeg warns and
    # fills the rest; Pillow decodes it without error, so this is not a truncated file.
    short = bytearray(base)
    sof = short.index(b'\xff\xc0')
    short[sof + 5:sof + 9] = struct.pack('>HH', 150, 96)
    files['short_scan.jpg'] = bytes(short)
    oriented = Image.fromarray(picture(48, 30, 13))
    for o in range(1, 9):
        buf = io.BytesIO()
        oriented.save(buf, 'JPEG', quality=90, exif=orientation_exif(o))
        files[f'orient{o}.jpg'] = buf.getvalue()
    return files


def other_files():
    files = {}
    rgb = Image.fromarray(picture(37, 23, 20))
    rgba = Image.fromarray(np.concatenate([picture(37, 23, 21), picture(37, 23, 22)[..., :1]], -1), 'RGBA')
    for name, img, kw in (('lossless.webp', rgb, dict(lossless=True)),
                          ('lossy.webp', rgb, dict(quality=80, method=4)),
                          ('lossy_alpha.webp', rgba, dict(quality=80)),
                          ('lossless_alpha.webp', rgba, dict(lossless=True)),
                          ('orient6.webp', rgb, dict(lossless=True, exif=orientation_exif(6))),
                          ('rgb.tif', rgb, dict()),
                          ('rgb_lzw.tif', rgb, dict(compression='tiff_lzw')),
                          ('rgba_deflate.tif', rgba, dict(compression='tiff_adobe_deflate')),
                          ('cmyk.tif', rgb.convert('CMYK'), dict()),
                          ('orient6.tif', rgb, dict(tiffinfo={274: 6})),
                          ('orient6.png', rgb, dict(exif=orientation_exif(6))),
                          ('gray.tif', rgb.convert('L'), dict())):
        buf = io.BytesIO()
        img.save(buf, name.rsplit('.', 1)[1].replace('tif', 'TIFF').upper(), **kw)
        files[name] = buf.getvalue()
    g16 = np.asarray(rgb.convert('L')).astype(np.uint16) * 3
    g16[0, :3] = [255, 256, 65535]
    buf = io.BytesIO()
    Image.fromarray(g16, 'I;16').save(buf, 'TIFF')
    files['gray16.tif'] = buf.getvalue()
    buf = io.BytesIO()
    second = Image.fromarray(picture(37, 23, 23)[::-1].copy())
    rgb.save(buf, 'TIFF', save_all=True, append_images=[second])
    files['multipage.tif'] = buf.getvalue()
    frames = [Image.fromarray(picture(29, 17, 30 + i)).quantize(64) for i in range(3)]
    buf = io.BytesIO()
    frames[0].save(buf, 'GIF', save_all=True, append_images=frames[1:], duration=100, loop=0)
    files['animated.gif'] = buf.getvalue()
    buf = io.BytesIO()
    frames[0].save(buf, 'GIF', transparency=5)
    files['transparent.gif'] = buf.getvalue()
    # A logical screen larger than the first frame: Pillow fills the rest with the transparency
    # index, or index 0 without one.
    for name in ('animated.gif', 'transparent.gif'):
        patched = bytearray(files[name])
        patched[6:10] = struct.pack('<HH', 29 + 4, 17 + 3)
        files['screen_larger_' + name] = bytes(patched)
    # Over 2048 wide: libnsgif falls back to the frame's size, Pillow keeps the screen.
    patched = bytearray(files['transparent.gif'])
    patched[6:8] = struct.pack('<H', 2100)
    files['screen_wide.gif'] = bytes(patched)
    buf = io.BytesIO()
    rgb.save(buf, 'WEBP', save_all=True, append_images=[second], lossless=True, duration=100)
    files['animated.webp'] = buf.getvalue()
    return files


def main():
    # Pillow warns that a palette tRNS should become RGBA; convert('RGB') drops it as intended.
    warnings.simplefilter('ignore', UserWarning)
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))
    files = {**jpeg_files(), **png_files(), **other_files()}
    index = {}
    for name, data in files.items():
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)
        im = Image.open(os.path.join(OUT, name))
        orientation = im.getexif().get(0x0112, 1)
        upright, stored = pillow_rgb(os.path.join(OUT, name))
        save_npy_gz(os.path.join(OUT, name + '.pil.npy.gz'), upright)
        entry = {'format': im.format, 'pilMode': im.mode, 'width': upright.shape[1], 'height': upright.shape[0],
                 'orientation': orientation, 'frames': getattr(im, 'n_frames', 1), 'golden': name + '.pil.npy.gz'}
        if orientation != 1:
            save_npy_gz(os.path.join(OUT, name + '.stored.pil.npy.gz'), stored)
            entry['stored'] = name + '.stored.pil.npy.gz'
        if im.format == 'TIFF' and orientation != 1:
            entry['note'] = ('Pillow 9.4 orients TIFF while loading and exif_transpose then applies the tag again; '
                             'the golden is the once-oriented image')
        index[name] = entry
    check_cmyk_formula()
    # Refusals: what Pillow says about each is recorded next to it.
    base = files['baseline420.jpg']
    broken = {'truncated.jpg': base[:len(base) // 2], 'empty.jpg': b''}
    # The GIF is cut inside its first frame: a cut after it is a valid first frame to Pillow.
    for name, keep in (('rgb8.png', 2 / 3), ('animated.gif', 1 / 5), ('rgb.tif', 2 / 3)):
        broken['truncated.' + name.split('.')[1]] = files[name][:int(len(files[name]) * keep)]
    corrupt = bytearray(files['rgb8.png'])
    corrupt[60] ^= 0xFF
    broken['corrupt.png'] = bytes(corrupt)
    for name, data in broken.items():
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)
        try:
            Image.open(io.BytesIO(data)).convert('RGB')
            raise SystemExit(f'Pillow decoded {name}')
        except (OSError, SyntaxError, ValueError) as err:
            message = str(err).split(' <')[0]
            index[name] = {'refused': True, 'pillowError': f'{type(err).__name__}: {message}'}
    index['_generator'] = {'script': 'packages/input/scripts/gen_decode_goldens.py', 'pillow': PIL.__version__,
                           'numpy': np.__version__}
    with open(os.path.join(OUT, 'index.json'), 'w') as f:
        json.dump(index, f, indent=1)
        f.write('\n')


def pillow_rgb(path):
    """(upright, stored): exif_transpose(...).convert('RGB') and the raster as stored."""
    im = Image.open(path)
    if im.format != 'TIFF':
        return np.asarray(ImageOps.exif_transpose(im).convert('RGB')), np.asarray(Image.open(path).convert('RGB'))
    orientation = im.getexif().get(0x0112, 1)
    upright = np.asarray(im.convert('RGB'))
    raw = Image.open(path)
    raw._tile_orientation = None
    stored = np.asarray(raw.convert('RGB'))
    tagged = Image.fromarray(stored)
    tagged.info['exif'] = orientation_exif(orientation)
    assert np.array_equal(np.asarray(ImageOps.exif_transpose(tagged)), upright), 'TIFF orientation is not exif_transpose'
    return upright, stored


def check_cmyk_formula():
    """Pins the formula the TypeScript path uses against Pillow's CMYK->RGB over every (C, K) pair."""
    c, k = np.meshgrid(np.arange(256), np.arange(256), indexing='ij')
    cmyk = np.stack([c, np.zeros_like(c), np.zeros_like(c), k], -1).astype(np.uint8)
    got = np.asarray(Image.fromarray(cmyk, 'CMYK').convert('RGB'))[..., 0].astype(np.int64)
    nk = 255 - k
    t = c * nk + 128
    want = np.clip(nk - (((t >> 8) + t) >> 8), 0, 255)
    assert np.array_equal(got, want), 'Pillow CMYK->RGB is not the formula in src/decode/cmyk.ts'


if __name__ == '__main__':
    main()
