#!/usr/bin/python3
"""Image fixtures: sample.jpg, decode goldens (PNG flavours, JPEG variants) and per-family recipe goldens.

Run with Debian's interpreter: /usr/bin/python3 packages/preprocess/scripts/gen_image_fixtures.py
Writes under fixtures/preprocess/: sample.jpg, decode/, recipes/.
"""
import gzip
import io
import json
import os
import struct
import zlib

import numpy as np
import PIL
import torch
import torchvision
from PIL import Image, ImageDraw
from torchvision import transforms

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
FIX = os.path.join(ROOT, 'fixtures', 'preprocess')
IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]


def save_npy_gz(path, array):
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array))
    with gzip.open(path, 'wb', compresslevel=9) as f:
        f.write(buf.getvalue())


def scene(w, h, seed):
    """A real-looking picture: sky gradient, sun, hills, boxes, a little sensor noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    sky = np.stack([90 + 100 * yy / h, 140 + 60 * yy / h, 230 - 40 * yy / h], axis=-1)
    img = Image.fromarray(np.clip(sky, 0, 255).astype(np.uint8), 'RGB')
    d = ImageDraw.Draw(img)
    d.ellipse([w * 0.7, h * 0.08, w * 0.85, h * 0.08 + w * 0.15], fill=(250, 220, 90))
    d.polygon([(0, h * 0.7), (w * 0.3, h * 0.45), (w * 0.6, h * 0.72), (w, h * 0.5), (w, h), (0, h)], fill=(60, 130, 60))
    for i in range(6):
        x0, y0 = rng.integers(0, w - 20), rng.integers(h // 2, h - 15)
        d.rectangle([x0, y0, x0 + rng.integers(8, 40), y0 + rng.integers(6, 30)],
                    fill=tuple(int(v) for v in rng.integers(0, 256, 3)), outline=(20, 20, 20))
    d.line([(0, h - 1), (w - 1, 0)], fill=(255, 255, 255), width=2)
    arr = np.asarray(img).astype(np.int16) + rng.integers(-6, 7, (h, w, 3))
    return np.clip(arr, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- PNG writer for flavours PIL cannot save
def png_bytes(width, height, color_type, depth, rows, trns=None, palette=None):
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    raw = b''.join(b'\x00' + r for r in rows)
    out = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, depth, color_type, 0, 0, 0))
    if palette is not None:
        out += chunk(b'PLTE', palette)
    if trns is not None:
        out += chunk(b'tRNS', trns)
    return out + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')


def pack_bits(values, depth):
    bits = ''.join(format(int(v), f'0{depth}b') for v in values)
    bits += '0' * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


def png_flavours():
    rng = np.random.default_rng(7)
    w, h = 13, 7
    flavours = {}
    rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    rgba = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    gray = rng.integers(0, 256, (h, w), dtype=np.uint8)
    flavours['rgb8'] = png_bytes(w, h, 2, 8, [r.tobytes() for r in rgb])
    flavours['rgba8'] = png_bytes(w, h, 6, 8, [r.tobytes() for r in rgba])
    flavours['gray8'] = png_bytes(w, h, 0, 8, [r.tobytes() for r in gray])
    flavours['graya8'] = png_bytes(w, h, 4, 8, [r.tobytes() for r in rgba[..., :2]])
    rgb16 = rng.integers(0, 65536, (h, w, 3)).astype('>u2')
    flavours['rgb16'] = png_bytes(w, h, 2, 16, [r.tobytes() for r in rgb16])
    rgba16 = rng.integers(0, 65536, (h, w, 4)).astype('>u2')
    flavours['rgba16'] = png_bytes(w, h, 6, 16, [r.tobytes() for r in rgba16])
    gray16 = rng.integers(0, 600, (h, w)).astype('>u2')  # straddles 255: Pillow clips 16-bit gray
    flavours['gray16'] = png_bytes(w, h, 0, 16, [r.tobytes() for r in gray16])
    for depth in (1, 2, 4):
        g = rng.integers(0, 2 ** depth, (h, w))
        flavours[f'gray{depth}'] = png_bytes(w, h, 0, depth, [pack_bits(r, depth) for r in g])
    palette = rng.integers(0, 256, 16 * 3, dtype=np.uint8).tobytes()
    idx = rng.integers(0, 16, (h, w))
    flavours['palette4_trns'] = png_bytes(w, h, 3, 4, [pack_bits(r, 4) for r in idx], trns=bytes([0, 128, 255]),
                                          palette=palette)
    keyed = rgb.copy()
    keyed[2, 3] = keyed[5, 9] = (10, 20, 30)
    flavours['rgb8_trns'] = png_bytes(w, h, 2, 8, [r.tobytes() for r in keyed], trns=struct.pack('>HHH', 10, 20, 30))
    gkeyed = gray.copy()
    gkeyed[1, 1] = gkeyed[4, 4] = 77
    flavours['gray8_trns'] = png_bytes(w, h, 0, 8, [r.tobytes() for r in gkeyed], trns=struct.pack('>H', 77))
    return flavours


def decode_goldens():
    out_dir = os.path.join(FIX, 'decode')
    os.makedirs(out_dir, exist_ok=True)
    index = {}
    for name, data in png_flavours().items():
        with open(os.path.join(out_dir, f'{name}.png'), 'wb') as f:
            f.write(data)
        im = Image.open(io.BytesIO(data))
        index[f'{name}.png'] = {'pilMode': im.mode, 'rgb': np.asarray(im.convert('RGB')).tobytes().hex()}
    # JPEG variants: the decoder floor (jpeg-js against libjpeg) is measured, not asserted identical.
    base = Image.fromarray(scene(96, 64, 3), 'RGB')
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90 CW to display; neither Pillow's decode nor the references apply it
    variants = {
        'exif_orientation6.jpg': dict(img=base, kw=dict(quality=90, exif=exif.tobytes())),
        'baseline444.jpg': dict(img=base, kw=dict(quality=90, subsampling=0)),
        'baseline420.jpg': dict(img=base, kw=dict(quality=90, subsampling=2)),
        'progressive.jpg': dict(img=base, kw=dict(quality=90, progressive=True)),
        'gray.jpg': dict(img=base.convert('L'), kw=dict(quality=90)),
        'cmyk.jpg': dict(img=base.convert('CMYK'), kw=dict(quality=95)),
        'baseline422.jpg': dict(img=base, kw=dict(quality=90, subsampling=1)),
        'odd97x63_420.jpg': dict(img=Image.fromarray(scene(97, 63, 4), 'RGB'), kw=dict(quality=85, subsampling=2)),
        'odd63x97_422.jpg': dict(img=Image.fromarray(scene(63, 97, 5), 'RGB'), kw=dict(quality=85, subsampling=1)),
        'tiny3x2_420.jpg': dict(img=Image.fromarray(scene(96, 64, 6), 'RGB').resize((3, 2)), kw=dict(quality=95, subsampling=2)),
        'tiny5x3_420.jpg': dict(img=Image.fromarray(scene(96, 64, 7), 'RGB').resize((5, 3)), kw=dict(quality=95, subsampling=2)),
    }
    for name, v in variants.items():
        v['img'].save(os.path.join(out_dir, name), **v['kw'])
        im = Image.open(os.path.join(out_dir, name))
        save_npy_gz(os.path.join(out_dir, name + '.pil.npy.gz'), np.asarray(im.convert('RGB')))
        index[name] = {'pilMode': im.mode}
    with open(os.path.join(out_dir, 'index.json'), 'w') as f:
        json.dump(index, f, indent=1)


# ---------------------------------------------------------------- recipe references
def hf_reference(src, r):
    """Mirror of transformers' slow image processors (ViTImageProcessor / BitImageProcessor) step by step."""
    img = Image.fromarray(src, 'RGB')
    h, w = src.shape[:2]
    resample = {'bilinear': Image.BILINEAR, 'bicubic': Image.BICUBIC}[r['resample']]
    if r['mode'] == 'squash':
        size = (r['squashSize'], r['squashSize'])
    else:
        short, long = (w, h) if w <= h else (h, w)
        new_long = int(r['resizeShort'] * long / short)
        size = (r['resizeShort'], new_long) if w <= h else (new_long, r['resizeShort'])
    arr = np.asarray(img.resize(size, resample=resample, reducing_gap=None))
    if 'cropSize' in r:
        c = r['cropSize']
        top, left = (arr.shape[0] - c) // 2, (arr.shape[1] - c) // 2  # image_transforms.center_crop
        arr = arr[top:top + c, left:left + c]
    u8 = np.ascontiguousarray(arr)
    x = (u8.astype(np.float64) * r['rescaleFactor']).astype(np.float32)  # rescale()
    x = (x - np.array(r['mean'], dtype=np.float32)) / np.array(r['std'], dtype=np.float32)  # normalize()
    return u8, np.ascontiguousarray(x.transpose(2, 0, 1))


def torchvision_reference(src, r):
    """torchvision.transforms on a PIL image: Resize(short) + CenterCrop + ToTensor + Normalize."""
    interp = {'bilinear': transforms.InterpolationMode.BILINEAR, 'bicubic': transforms.InterpolationMode.BICUBIC}
    geometric = [transforms.Resize(r['resizeShort'], interpolation=interp[r['resample']])]
    if 'cropSize' in r:
        geometric.append(transforms.CenterCrop(r['cropSize']))
    img = Image.fromarray(src, 'RGB')
    u8 = np.asarray(transforms.Compose(geometric)(img))
    full = transforms.Compose(geometric + [transforms.ToTensor(), transforms.Normalize(r['mean'], r['std'])])
    return np.ascontiguousarray(u8), full(img).numpy()


RECIPES = {
    # family: recipe (as PreprocessRecipe in src/recipe.ts), reference implementation
    'ijepa_hf': (dict(mode='squash', squashSize=224, resample='bilinear', mean=[0.5] * 3, std=[0.5] * 3,
                      rescaleFactor=1 / 255, cropRounding='hf'), hf_reference),
    'dinov2_hf': (dict(mode='shortest_edge', resizeShort=256, cropSize=224, resample='bicubic', mean=IMAGENET_MEAN,
                       std=IMAGENET_STD, rescaleFactor=1 / 255, cropRounding='hf'), hf_reference),
    'vjepa_torchvision': (dict(mode='shortest_edge', resizeShort=256, cropSize=224, resample='bilinear',
                               mean=IMAGENET_MEAN, std=IMAGENET_STD, rescaleFactor=1 / 255,
                               cropRounding='torchvision'), torchvision_reference),
    'vjepa2_torchvision': (dict(mode='shortest_edge', resizeShort=292, cropSize=256, resample='bilinear',
                                mean=IMAGENET_MEAN, std=IMAGENET_STD, rescaleFactor=1 / 255,
                                cropRounding='torchvision'), torchvision_reference),
    'levjepa_torchvision': (dict(mode='shortest_edge', resizeShort=224, cropSize=224, resample='bicubic',
                                 mean=IMAGENET_MEAN, std=IMAGENET_STD, rescaleFactor=1 / 255,
                                 cropRounding='torchvision'), torchvision_reference),
}


def long_margin(short_px, long_px, s, c):
    return int(s * long_px / short_px) - c


def pick_long_side(short_px):
    """A long side whose centre-crop margin is 3 mod 4 for every shortest-edge recipe: there floor(m/2) and
    round-half-even(m/2) differ, so a wrong rounding convention cannot pass."""
    sc = [(r['resizeShort'], r['cropSize']) for r, _ in RECIPES.values() if r['mode'] == 'shortest_edge'
          and r['resizeShort'] != r['cropSize']]
    for long_px in range(int(short_px * 1.3), short_px * 3):
        if all(long_margin(short_px, long_px, s, c) % 4 == 3 for s, c in sc):
            return long_px
    raise SystemExit('no long side with odd margins for all recipes')


def recipe_goldens():
    out_dir = os.path.join(FIX, 'recipes')
    os.makedirs(out_dir, exist_ok=True)
    short_px = 181
    long_px = pick_long_side(short_px)
    inputs = {'landscape': scene(long_px, short_px, 11), 'portrait': scene(short_px, long_px, 12).copy()}
    manifest = {'inputs': {}, 'cases': []}
    for name, arr in inputs.items():
        Image.fromarray(arr, 'RGB').save(os.path.join(out_dir, f'{name}.png'), optimize=True)
        manifest['inputs'][name] = {'file': f'{name}.png', 'width': arr.shape[1], 'height': arr.shape[0]}
    for family, (recipe, reference) in RECIPES.items():
        for name, arr in inputs.items():
            u8, f32 = reference(arr, recipe)
            assert f32.dtype == np.float32 and f32.shape == (3,) + u8.shape[:2]
            # The reference float output is a function of (channel, uint8 level): store that table, checked lossless.
            table = np.full((3, 256), np.nan, dtype=np.float32)
            for ch in range(3):
                levels = u8[..., ch]
                table[ch, levels] = f32[ch][...]
                assert np.array_equal(table[ch][levels], f32[ch]), 'float output is not a per-level function'
            stem = f'{family}_{name}'
            save_npy_gz(os.path.join(out_dir, f'{stem}_u8.npy.gz'), u8)
            np.save(os.path.join(out_dir, f'{stem}_levels.npy'), table)
            manifest['cases'].append({'family': family, 'input': name, 'recipe': recipe, 'u8': f'{stem}_u8.npy.gz',
                                      'levels': f'{stem}_levels.npy', 'reference': reference.__name__})
    manifest['generator'] = 'packages/preprocess/scripts/gen_image_fixtures.py'
    manifest['versions'] = {'pillow': PIL.__version__, 'numpy': np.__version__, 'torch': torch.__version__,
                            'torchvision': torchvision.__version__}
    with open(os.path.join(out_dir, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)


def main():
    os.makedirs(FIX, exist_ok=True)
    Image.fromarray(scene(320, 240, 1), 'RGB').save(os.path.join(FIX, 'sample.jpg'), quality=88)
    decode_goldens()
    save_npy_gz(os.path.join(FIX, 'decode', 'sample.jpg.pil.npy.gz'),
                np.asarray(Image.open(os.path.join(FIX, 'sample.jpg')).convert('RGB')))
    recipe_goldens()


if __name__ == '__main__':
    main()
