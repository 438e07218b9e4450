#!/usr/bin/python3
"""Video fixtures: clips made with Debian's ffmpeg, and PyAV's rgb24 frames at the sampled indices.

Run with Debian's interpreter: /usr/bin/python3 packages/preprocess/scripts/gen_video_fixtures.py
Writes fixtures/preprocess/sample.mp4 and fixtures/preprocess/video/{*.mp4,*.webm,*.avi,*_n*.npy,manifest.json}.
"""
import json
import os
import struct
import subprocess

import gzip
import io

import av
import numpy as np
from PIL import Image
from torchvision import transforms

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
FIX = os.path.join(ROOT, 'fixtures', 'preprocess')
VIDEO = os.path.join(FIX, 'video')


def ffmpeg(*args):
    subprocess.run(['ffmpeg', '-nostdin', '-hide_banner', '-v', 'error', '-y', *args], check=True)


def ffprobe_nb_frames(path):
    out = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=nb_frames',
                          '-of', 'default=nw=1:nk=1', path], check=True, capture_output=True, text=True).stdout.strip()
    return int(out) if out.isdigit() else None


def make_clips():
    os.makedirs(VIDEO, exist_ok=True)
    clips = {}
    # Constant frame rate H.264, also the CLI demo clip.
    sample = os.path.join(FIX, 'sample.mp4')
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25:duration=2', '-c:v', 'libx264', '-preset', 'veryfast',
           '-crf', '28', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', sample)
    clips['sample.mp4'] = dict(path=sample, n=[16], note='constant-rate H.264 (CLI demo clip)')
    # Variable frame rate VP9: irregular timestamps, so a constant-rate conversion would duplicate frames.
    vfr = os.path.join(VIDEO, 'vfr.webm')
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=25:duration=2',
           '-vf', "select='not(mod(n\\,4))+eq(mod(n\\,9)\\,2)'", '-fps_mode', 'vfr', '-c:v', 'libvpx-vp9', '-b:v', '200k',
           '-pix_fmt', 'yuv420p', vfr)
    clips['vfr.webm'] = dict(path=vfr, n=[8], note='variable-rate VP9 WebM (no nb_frames: counted)')
    # A display matrix that -noautorotate and PyAV's to_ndarray both ignore.
    rotated = os.path.join(VIDEO, 'rotated.mp4')
    plain = os.path.join(VIDEO, 'rotated-src.mp4')
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=80x48:rate=10:duration=2', '-c:v', 'libx264', '-preset', 'veryfast',
           '-crf', '30', '-pix_fmt', 'yuv420p', plain)
    ffmpeg('-i', plain, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', rotated)
    os.remove(plain)
    clips['rotated.mp4'] = dict(path=rotated, n=[8], note='H.264 with a 90-degree display matrix')
    # Shorter than the sample count: frames repeat.
    short = os.path.join(VIDEO, 'short.mp4')
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10', '-frames:v', '5', '-c:v', 'libx264', '-preset',
           'veryfast', '-crf', '30', '-pix_fmt', 'yuv420p', short)
    clips['short.mp4'] = dict(path=short, n=[8], note='5 frames, fewer than n')
    # A container that lies: AVI header frame counts patched from 30 to 50.
    liar = os.path.join(VIDEO, 'liar.avi')
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10:duration=3', '-c:v', 'mpeg4', '-q:v', '6', liar)
    data = bytearray(open(liar, 'rb').read())
    strh = data.find(b'strh')
    struct.pack_into('<I', data, strh + 8 + 32, 50)  # AVISTREAMHEADER.dwLength
    avih = data.find(b'avih')
    struct.pack_into('<I', data, avih + 8 + 16, 50)  # AVIMAINHEADER.dwTotalFrames
    open(liar, 'wb').write(bytes(data))
    clips['liar.avi'] = dict(path=liar, n=[8], note='MPEG-4 AVI whose headers claim 50 frames; 30 decode')
    return clips


CLIP_RECIPE = dict(mode='shortest_edge', resizeShort=64, cropSize=56, resample='bilinear',
                   mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225], rescaleFactor=1 / 255,
                   cropRounding='torchvision')


def clip_recipe_golden(frames_path):
    """The sampled frames through torchvision's eval transform, frame by frame, stacked to [3, T, H, W]."""
    r = CLIP_RECIPE
    frames = np.load(frames_path)
    geometric = transforms.Compose([transforms.Resize(r['resizeShort'], interpolation=transforms.InterpolationMode.BILINEAR),
                                    transforms.CenterCrop(r['cropSize'])])
    full = transforms.Compose([geometric, transforms.ToTensor(), transforms.Normalize(r['mean'], r['std'])])
    u8 = np.stack([np.asarray(geometric(Image.fromarray(f))) for f in frames])
    f32 = np.stack([full(Image.fromarray(f)).numpy() for f in frames], axis=1)  # [3, T, H, W]
    table = np.full((3, 256), np.nan, dtype=np.float32)
    for ch in range(3):
        table[ch, u8[..., ch]] = f32[ch]
        assert np.array_equal(table[ch][u8[..., ch]], f32[ch])
    buf = io.BytesIO()
    np.save(buf, u8)
    with gzip.open(os.path.join(VIDEO, 'sample_n16_recipe_u8.npy.gz'), 'wb', compresslevel=9) as f:
        f.write(buf.getvalue())
    np.save(os.path.join(VIDEO, 'sample_n16_recipe_levels.npy'), table)
    return {'frames': 'video/sample_n16.npy', 'recipe': r, 'u8': 'video/sample_n16_recipe_u8.npy.gz',
            'levels': 'video/sample_n16_recipe_levels.npy'}


def main():
    clips = make_clips()
    manifest = {'generator': 'packages/preprocess/scripts/gen_video_fixtures.py', 'pyav': av.__version__, 'clips': []}
    for name, clip in clips.items():
        with av.open(clip['path']) as container:
            frames = [f.to_ndarray(format='rgb24') for f in container.decode(video=0)]
        total = len(frames)
        rel = os.path.relpath(clip['path'], FIX)
        for n in clip['n']:
            indices = np.round(np.linspace(0, total - 1, n)).astype(np.int64)
            stack = np.stack([frames[i] for i in indices])
            out = f'{os.path.splitext(name)[0]}_n{n}.npy'
            np.save(os.path.join(VIDEO, out), stack)
            manifest['clips'].append({'file': rel, 'n': n, 'indices': indices.tolist(), 'totalFrames': total,
                                      'width': int(stack.shape[2]), 'height': int(stack.shape[1]),
                                      'containerNbFrames': ffprobe_nb_frames(clip['path']), 'frames': f'video/{out}',
                                      'note': clip['note']})
    manifest['clipRecipe'] = clip_recipe_golden(os.path.join(VIDEO, 'sample_n16.npy'))
    with open(os.path.join(VIDEO, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
    for c in manifest['clips']:
        print(c['file'], c['n'], c['totalFrames'], c['containerNbFrames'], c['indices'])


if __name__ == '__main__':
    main()
