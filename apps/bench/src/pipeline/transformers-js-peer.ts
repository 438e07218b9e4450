// The transformers.js peer of jepa-bench pipeline: @huggingface/transformers, installed into a folder
// of tmp/ (never the repository's dependencies, as `pnpm bench:peers` does for onnxruntime), running
// the seeded torchvision ViT-B/16 of export_vit_b16.py as a transformers.js model folder, end to end
// as a user would: pipeline('image-feature-extraction') and `await extractor(file)` one file at a
// time, in a child node process with its own onnxruntime-node (scripts/bench/tfjs-embed.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEBIAN_PYTHON, TORCHVISION_VIT_B16_RECIPE, peerRecipeJson, repoRoot, runJsonChild, type PeerRecipe } from './peer-common.js';

/** The transformers.js the peer installs (pinned). */
export const TRANSFORMERS_JS_VERSION = '4.3.1';

/** Worst token cosine of the int8 model against fp32 that ensureTransformersJs accepts. */
const MIN_Q8_COS = 0.99;

export interface TfjsRun {
  dtype: 'fp32' | 'q8';
  files: string[];
  threads: number;
  /** The first `warmup` files are the warm-up, untimed. */
  warmup: number;
}

export interface TfjsResult {
  dtype: string;
  /** Timed images: files.length - warmup. */
  images: number;
  /** From the start of the first file after the warm-up to the end of the last. */
  seconds: number;
  imagesPerSecond: number;
  /** transformers.js's version. */
  version: string;
  /** What extractor(file) returned: [1, 197, 768]. */
  outputDims?: number[];
  /** The dtype of the session transformers.js built, and the .onnx files it looked at. */
  sessionDtype?: string | null;
  onnxFiles?: string[];
  /** pipeline(...) creation, model load included. */
  loadSeconds?: number;
  /** Median ms of one timed extractor(file). */
  medianMs?: number;
  /** The child's peak resident memory. */
  maxRssMB?: number;
  /** The recipe preprocessor_config.json was written for. */
  recipe?: PeerRecipe;
}

export interface TfjsModelCheck {
  ortVersion: string;
  fp32Dims1: number[];
  q8Dims1: number[];
  fp32Dims2: number[];
  q8Dims2: number[];
  minTokenCosQ8VsFp32: number;
  minTokenCosBatch2VsBatch1: number;
  minTokenCosFp32VsReference?: number;
}

/** Where the model folder lives inside the peer's directory. */
export function tfjsModelDir(dir: string): string {
  return join(resolve(dir), 'vit-b16');
}

function installedVersion(dir: string): string | null {
  const pkg = join(dir, 'node_modules', '@huggingface', 'transformers', 'package.json');
  if (!existsSync(pkg)) return null;
  try {
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

function modelComplete(model: string): boolean {
  return ['config.json', 'preprocessor_config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx'].every((f) => existsSync(join(model, f)));
}

function writtenRecipe(model: string): PeerRecipe | null {
  try {
    const cfg = JSON.parse(readFileSync(join(model, 'preprocessor_config.json'), 'utf8')) as { jepa_recipe?: PeerRecipe };
    return cfg.jepa_recipe ?? null;
  } catch {
    return null;
  }
}

function sameRecipe(a: PeerRecipe | null, b: PeerRecipe): boolean {
  return a !== null && JSON.stringify(peerRecipeJson(a)) === JSON.stringify(peerRecipeJson(b));
}

function exportModel(model: string, recipe: PeerRecipe, extra: string[]): void {
  const r = spawnSync(
    DEBIAN_PYTHON,
    [join(repoRoot, 'scripts/bench/export_vit_b16_hf_onnx.py'), model, '--recipe', JSON.stringify(peerRecipeJson(recipe)), ...extra],
    { cwd: repoRoot, stdio: ['ignore', process.stderr, 'inherit'] },
  );
  if (r.status !== 0) {
    throw new Error(`export_vit_b16_hf_onnx.py failed (needs ${DEBIAN_PYTHON} with python3-torch, python3-torchvision and python3-onnx)`);
  }
}

/** Runs fp32 and q8 through transformers.js's own onnxruntime-node on a seeded input; the worst token cosines. */
export async function checkTransformersJsModel(dir: string, threads = 2, referenceOnnx?: string): Promise<TfjsModelCheck> {
  const args = {
    check: true,
    tfjsDir: resolve(dir),
    modelDir: tfjsModelDir(dir),
    threads,
    ...(referenceOnnx ? { referenceOnnx: resolve(referenceOnnx) } : {}),
  };
  return runJsonChild<TfjsModelCheck>(process.execPath, [join(repoRoot, 'scripts/bench/tfjs-embed.mjs'), JSON.stringify(args)]);
}

/**
 * Installs @huggingface/transformers@4.3.1 into `dir` (e.g. tmp/tfjs) if it is not there, and exports
 * the model folder (`dir`/vit-b16) if it is missing; preprocessor_config.json is rewritten when it was
 * written for another recipe. The default recipe is torchvision's ViT-B/16 one; pass the recipe the
 * engine runs (a PreprocessRecipe fits) so that both peers and the engine run the same.
 */
export async function ensureTransformersJs(dir: string, log: (s: string) => void, recipe: PeerRecipe = TORCHVISION_VIT_B16_RECIPE): Promise<void> {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  if (installedVersion(root) !== TRANSFORMERS_JS_VERSION) {
    log(`installing @huggingface/transformers@${TRANSFORMERS_JS_VERSION} into ${root}`);
    if (!existsSync(join(root, 'package.json'))) {
      writeFileSync(join(root, 'package.json'), `${JSON.stringify({ name: 'jepa-bench-tfjs-peer', private: true, type: 'module' }, null, 2)}\n`);
    }
    // --ignore-scripts: onnxruntime-node's install script fetches GPU binaries from outside npm; its CPU
    // binary ships in the package (the repository ignores that script as well)
    const r = spawnSync(
      'npm',
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--save-exact', `@huggingface/transformers@${TRANSFORMERS_JS_VERSION}`],
      {
        cwd: root,
        stdio: ['ignore', process.stderr, 'inherit'],
      },
    );
    if (r.status !== 0 || installedVersion(root) !== TRANSFORMERS_JS_VERSION)
      throw new Error(`npm install @huggingface/transformers@${TRANSFORMERS_JS_VERSION} in ${root} failed`);
  }
  const model = tfjsModelDir(root);
  if (!modelComplete(model)) {
    log(`exporting the seeded torchvision ViT-B/16 as a transformers.js model to ${model} (about a minute)`);
    const reference = join(repoRoot, 'tmp/peers/vit_b16.safetensors');
    exportModel(model, recipe, existsSync(reference) ? ['--compare', reference] : []);
    if (!modelComplete(model)) throw new Error(`export_vit_b16_hf_onnx.py left ${model} incomplete`);
    const c = await checkTransformersJsModel(root);
    log(
      `transformers.js model: q8 vs fp32 worst token cosine ${c.minTokenCosQ8VsFp32.toFixed(6)}, batch 2 vs 1 ${c.minTokenCosBatch2VsBatch1.toFixed(6)} (onnxruntime-node ${c.ortVersion})`,
    );
    if (!(c.minTokenCosQ8VsFp32 >= MIN_Q8_COS)) {
      rmSync(join(model, 'config.json'), { force: true });
      throw new Error(`the int8 model is too far from fp32 (worst token cosine ${c.minTokenCosQ8VsFp32})`);
    }
  } else if (!sameRecipe(writtenRecipe(model), recipe)) {
    log(`rewriting ${join(model, 'preprocessor_config.json')} for the recipe ${JSON.stringify(peerRecipeJson(recipe))}`);
    exportModel(model, recipe, ['--preprocessor-only']);
  }
}

/** One end-to-end run of transformers.js over `run.files` in a fresh child node process. */
export async function runTransformersJs(dir: string, run: TfjsRun): Promise<TfjsResult> {
  const root = resolve(dir);
  const model = tfjsModelDir(root);
  if (installedVersion(root) === null || !modelComplete(model))
    throw new Error(`no transformers.js peer in ${root}: call ensureTransformersJs first`);
  if (run.files.length <= run.warmup) throw new Error(`runTransformersJs: ${run.files.length} files leave none after ${run.warmup} warm-up`);
  const work = mkdtempSync(join(tmpdir(), 'jepa-tfjs-'));
  try {
    const argsFile = join(work, 'args.json');
    writeFileSync(
      argsFile,
      JSON.stringify({
        tfjsDir: root,
        modelDir: model,
        dtype: run.dtype,
        threads: run.threads,
        warmup: run.warmup,
        files: run.files.map((f) => resolve(f)),
      }),
    );
    const result = await runJsonChild<TfjsResult>(process.execPath, [join(repoRoot, 'scripts/bench/tfjs-embed.mjs'), `@${argsFile}`]);
    const expected = run.dtype === 'q8' ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
    if (result.sessionDtype !== run.dtype || !(result.onnxFiles ?? []).includes(expected)) {
      throw new Error(`transformers.js ran ${JSON.stringify(result.onnxFiles)} as ${String(result.sessionDtype)}, not ${expected} as ${run.dtype}`);
    }
    const recipe = writtenRecipe(model);
    return recipe ? { ...result, recipe } : result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
