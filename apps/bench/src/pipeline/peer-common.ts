// What the input-pipeline peers share: where the repository is, the recipe both peers run, and a
// child process that prints one JSON line.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is apps/bench/{src,dist}/pipeline/*). */
export const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../../..');

/** Debian's Python, the one with Pillow, numpy, torch, torchvision and onnx. */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/**
 * The preprocessing both peers run, in the engine's recipe shape: a PreprocessRecipe of
 * @jepa/preprocess (what recipeFromPreKeys gives for a GGUF) can be passed as it is.
 */
export interface PeerRecipe {
  mode: 'shortest_edge' | 'squash';
  /** shortest_edge: the short side after the resize; the long side is int(resizeShort * long / short). */
  resizeShort?: number;
  /** squash: both sides after the resize. */
  squashSize?: number;
  /** Side of the square centre crop after the resize; omitted means none. */
  cropSize?: number;
  resample: 'bilinear' | 'bicubic';
  /** 'hf': floor of half the margin; 'torchvision': round half to even. Default 'hf'. */
  cropRounding?: 'hf' | 'torchvision';
  mean?: [number, number, number];
  std?: [number, number, number];
  rescaleFactor?: number;
}

/**
 * torchvision's own recipe for ViT-B/16 (ViT_B_16_Weights.IMAGENET1K_V1.transforms()): shortest edge to
 * 256 bilinear, centre crop 224 (rounded as torchvision does), ImageNet mean and std.
 */
export const TORCHVISION_VIT_B16_RECIPE: PeerRecipe = {
  mode: 'shortest_edge',
  resizeShort: 256,
  cropSize: 224,
  resample: 'bilinear',
  cropRounding: 'torchvision',
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
  rescaleFactor: 1 / 255,
};

/** Only the fields the peers read, so a recipe with more (or fewer) keys compares by what matters. */
export function peerRecipeJson(r: PeerRecipe): PeerRecipe {
  const out: PeerRecipe = { mode: r.mode, resample: r.resample, cropRounding: r.cropRounding ?? 'hf' };
  if (r.mode === 'shortest_edge') out.resizeShort = r.resizeShort;
  else out.squashSize = r.squashSize;
  if (r.cropSize !== undefined) out.cropSize = r.cropSize;
  out.mean = r.mean ?? TORCHVISION_VIT_B16_RECIPE.mean;
  out.std = r.std ?? TORCHVISION_VIT_B16_RECIPE.std;
  out.rescaleFactor = r.rescaleFactor ?? 1 / 255;
  const side = r.mode === 'shortest_edge' ? r.resizeShort : r.squashSize;
  if (!Number.isInteger(side) || side! < 1) throw new Error(`peer recipe: ${r.mode} needs a positive integer size, got ${String(side)}`);
  if (r.resample !== 'bilinear' && r.resample !== 'bicubic') throw new Error(`peer recipe: resample ${String(r.resample)}`);
  return out;
}

/** Runs a command and resolves with the JSON of the last line it prints; rejects with its stderr. */
export function runJsonChild<T>(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<T> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? repoRoot, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('error', fail);
    child.on('close', (code, signal) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) {
        fail(new Error(`${cmd} ${args[0] ?? ''} exited ${code ?? signal}: ${err.trim().split('\n').slice(-8).join('\n')}`));
        return;
      }
      try {
        done(JSON.parse(last) as T);
      } catch {
        fail(new Error(`${cmd} ${args[0] ?? ''} printed no JSON line: ${last.slice(0, 200)}`));
      }
    });
  });
}
