// Decode + resize + crop + normalise of a 1920x1080 JPEG to 224² and 256², this package against Pillow.
// Usage (after `pnpm build`): node packages/preprocess/scripts/bench.mjs [runs]
// Needs Debian's /usr/bin/python3 with python3-pil and python3-numpy for the Pillow side and the test JPEG.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeImage, preprocessImage, resizeAndCropU8 } from '../dist/index.js';

const runs = Number(process.argv[2] ?? 30);
const PYTHON = '/usr/bin/python3';
const IMAGENET = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], rescaleFactor: 1 / 255 };
const RECIPES = {
  '224 (short 256, crop 224, bilinear)': {
    ...IMAGENET,
    mode: 'shortest_edge',
    resizeShort: 256,
    cropSize: 224,
    resample: 'bilinear',
    cropRounding: 'torchvision',
  },
  '256 (short 292, crop 256, bilinear)': {
    ...IMAGENET,
    mode: 'shortest_edge',
    resizeShort: 292,
    cropSize: 256,
    resample: 'bilinear',
    cropRounding: 'torchvision',
  },
};

const dir = mkdtempSync(join(tmpdir(), 'jepa-bench-'));
const jpegPath = join(dir, 'frame1080.jpg');
execFileSync(PYTHON, [
  '-c',
  `
import numpy as np
from PIL import Image, ImageDraw
h, w = 1080, 1920
yy, xx = np.mgrid[0:h, 0:w]
base = np.stack([60 + 150 * yy / h, 120 + 80 * xx / w, 200 - 90 * yy / h], -1)
noise = np.random.default_rng(0).integers(-12, 13, (h, w, 3))
img = Image.fromarray(np.clip(base + noise, 0, 255).astype(np.uint8))
d = ImageDraw.Draw(img)
for i in range(40):
    d.ellipse([40 * i, 20 * i, 40 * i + 300, 20 * i + 200], outline=(255 - 5 * i, 4 * i, 100), width=6)
img.save(${JSON.stringify(jpegPath)}, quality=90)
`,
]);
const bytes = readFileSync(jpegPath);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function time(fn) {
  fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(samples);
}

const pillowScript = `
import sys, time, json
import numpy as np
from PIL import Image
path, runs = sys.argv[1], int(sys.argv[2])
mean = np.array([0.485, 0.456, 0.406], dtype=np.float32); std = np.array([0.229, 0.224, 0.225], dtype=np.float32)
def run(short, crop):
    im = Image.open(path); im = im.convert('RGB')
    w, h = im.size
    s, l = (w, h) if w <= h else (h, w)
    nl = int(short * l / s)
    im = im.resize((short, nl) if w <= h else (nl, short), Image.BILINEAR)
    W, H = im.size
    top, left = int(round((H - crop) / 2.0)), int(round((W - crop) / 2.0))
    a = np.asarray(im.crop((left, top, left + crop, top + crop)))
    x = (a.astype(np.float32) / np.float32(255) - mean) / std
    return np.ascontiguousarray(x.transpose(2, 0, 1))
def med(f):
    f(); ts = []
    for _ in range(runs):
        t0 = time.perf_counter(); f(); ts.append((time.perf_counter() - t0) * 1e3)
    return sorted(ts)[len(ts) // 2]
def decode():
    Image.open(path).convert('RGB')
print(json.dumps({'decode': med(decode), '224': med(lambda: run(256, 224)), '256': med(lambda: run(292, 256))}))
`;
const pillow = JSON.parse(execFileSync(PYTHON, ['-c', pillowScript, jpegPath, String(runs)], { encoding: 'utf8' }));

const decodeMs = time(() => decodeImage(bytes));
const decoded = decodeImage(bytes);
console.log(`1920x1080 JPEG (${bytes.length} bytes), median of ${runs} runs, node ${process.version}`);
console.log(`| target | @jepa/preprocess total | of which decode | of which resize+crop | Pillow+numpy total |`);
console.log(`|---|---|---|---|---|`);
for (const [name, recipe] of Object.entries(RECIPES)) {
  const total = time(() => preprocessImage(decodeImage(bytes), recipe));
  const resizeCrop = time(() => resizeAndCropU8(decoded, recipe));
  const key = name.startsWith('224') ? '224' : '256';
  console.log(`| ${name} | ${total.toFixed(1)} ms | ${decodeMs.toFixed(1)} ms | ${resizeCrop.toFixed(1)} ms | ${pillow[key].toFixed(1)} ms |`);
}
console.log(`Pillow decode alone: ${pillow.decode.toFixed(1)} ms`);
rmSync(dir, { recursive: true, force: true });
