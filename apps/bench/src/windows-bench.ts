// Long videos end to end, as a user runs them: `jepa embed --video LONG --frames F --stride S` (one
// decode, every frame preprocessed once, windows batched) against `jepa embed` of the same windows cut
// into separate F-frame clips (one ffmpeg each), on the ViT-L/16 16-frame preset, side by side in one
// run; and the decode share: the windows' decode and preprocessing alone, in process, over the wall time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadModelSpec } from '@jepa/gguf';
import { ModelInput } from '@jepa/input';
import { cliMain } from './bins.js';
import { count, int } from './cli-args.js';
import { machineInfo } from './machine.js';
import { presetModel } from './presets.js';

interface Opts {
  dtype: string[];
  model?: string;
  seconds: number;
  videoFps: number;
  size: number;
  frames: number;
  stride: number;
  threads: number;
  dir: string;
  json?: boolean;
}

function run(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 6).join(' ')} … failed: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`);
  return performance.now() - t0;
}

function longVideo(o: Opts): string {
  const path = join(o.dir, `windows-${o.seconds}s-${o.videoFps}fps-${o.size}.mp4`);
  if (!existsSync(path))
    run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=${o.size}x${o.size}:rate=${o.videoFps}:duration=${o.seconds}`,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-g',
      String(2 * o.videoFps),
      '-pix_fmt',
      'yuv420p',
      path,
    ]);
  return path;
}

/** The windows' frames cut into separate clips, one file each (lossless, so each decodes to its own pixels). */
function cutClips(video: string, starts: number[], o: Opts): string[] {
  const dir = join(o.dir, `windows-clips-${o.seconds}s-${o.videoFps}fps-${o.size}-f${o.frames}-s${o.stride}`);
  mkdirSync(dir, { recursive: true });
  return starts.map((s, i) => {
    const path = join(dir, `clip-${String(i).padStart(4, '0')}.mp4`);
    if (!existsSync(path))
      run('ffmpeg', [
        '-v',
        'error',
        '-y',
        '-i',
        video,
        '-vf',
        `select=between(n\\,${s}\\,${s + o.frames - 1})`,
        '-fps_mode',
        'passthrough',
        '-frames:v',
        String(o.frames),
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-qp',
        '0',
        path,
      ]);
    return path;
  });
}

export function registerWindowsBench(program: Command): void {
  program
    .command('windows')
    .description('long-video windows end to end (one decode) against the same windows as separate clips, and the decode share')
    .option('--dtype <list>', 'weight types of the ViT-L/16 16-frame preset', (v) => v.split(','), ['f16', 'q8_0'])
    .option('-m, --model <file>', 'a video .gguf instead of the preset')
    .option('--seconds <n>', 'length of the test video', int, 60)
    .option('--video-fps <n>', "the test video's frame rate", int, 25)
    .option('--size <n>', 'its side in pixels', int, 256)
    .option('--frames <n>', 'frames per window', int, 16)
    .option('--stride <n>', 'frames between window starts', int, 8)
    .option('-t, --threads <n>', 'compute threads', count, 2)
    .option('--dir <path>', 'where models, the video and the clips live', 'tmp/bench-models')
    .option('--json', 'print JSON')
    .action(async (o: Opts) => {
      mkdirSync(o.dir, { recursive: true });
      const video = longVideo(o);
      const total = o.seconds * o.videoFps;
      const starts = Array.from({ length: Math.floor((total - o.frames) / o.stride) + 1 }, (_, w) => w * o.stride);
      const clips = cutClips(video, starts, o);
      const out = join(o.dir, 'windows-bench-out.npy');
      const rows = [];
      for (const dtype of o.model ? ['file'] : o.dtype) {
        const model = o.model ?? presetModel('vit-l16-video', dtype, o.dir);
        const spec = loadModelSpec(model);
        const t = ['-t', String(o.threads)];
        const decodeStart = performance.now();
        const source = await new ModelInput(spec).videoWindows(video, { frames: o.frames, stride: o.stride });
        for (let k = 0; k < source.windows.length; k++) await source.take(k);
        await source.close();
        const decodeMs = performance.now() - decodeStart;
        const windowsMs = run(process.execPath, [
          cliMain(),
          'embed',
          '-m',
          model,
          '--video',
          video,
          '--frames',
          String(o.frames),
          '--stride',
          String(o.stride),
          '-o',
          out,
          ...t,
        ]);
        rmSync(out, { force: true });
        const clipsMs = run(process.execPath, [cliMain(), 'embed', '-m', model, '--video', ...clips, '-o', out, ...t]);
        rmSync(out, { force: true });
        rmSync(`${out}.index.jsonl`, { force: true });
        const W = starts.length;
        rows.push({
          dtype: o.model ? spec.name : dtype,
          windows: W,
          windowsPerS: (1000 * W) / windowsMs,
          clipsPerS: (1000 * W) / clipsMs,
          speedup: clipsMs / windowsMs,
          decodeMs,
          decodeShare: decodeMs / windowsMs,
          windowsS: windowsMs / 1000,
          clipsS: clipsMs / 1000,
        });
      }
      const machine = machineInfo(o.threads);
      if (o.json) {
        process.stdout.write(`${JSON.stringify({ machine, options: o, rows }, null, 2)}\n`);
        return;
      }
      const lines = [
        `video: ${o.seconds} s at ${o.videoFps} fps, ${o.size}², windows of ${o.frames} frames every ${o.stride}`,
        '',
        '| weights | windows | jepa embed --frames --stride (windows/s) | separate clips (clips/s) | windows / clips | wall s (windows, clips) | decode + preprocess alone s | decode share |',
        '|---|---|---|---|---|---|---|---|',
        ...rows.map(
          (r) =>
            `| ${r.dtype} | ${r.windows} | ${r.windowsPerS.toFixed(3)} | ${r.clipsPerS.toFixed(3)} | ${r.speedup.toFixed(2)}× | ${r.windowsS.toFixed(1)}, ${r.clipsS.toFixed(1)} | ${(r.decodeMs / 1000).toFixed(2)} | ${(100 * r.decodeShare).toFixed(1)} % |`,
        ),
      ];
      process.stdout.write(`${machine.summary}\n\n${lines.join('\n')}\n`);
    });
}
