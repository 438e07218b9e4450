// The repository's folders and the fixture files the tests of several packages name: each once, here.
import { join, resolve } from 'node:path';

/** The repository root (this module runs from packages/testing/dist). */
export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
export const FIXTURES = join(REPO_ROOT, 'fixtures');

/** A path under fixtures/. */
export function fixturePath(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}

/** fixtures/reference/<family>: tiny checkpoints in the release layout and their float64 goldens. */
export const REFERENCE = fixturePath('reference');
/** fixtures/reference-heads/<name>: heads, predictors and LeWM, converted, with their goldens. */
export const REFERENCE_HEADS = fixturePath('reference-heads');
/** V-JEPA 2.1's hierarchy model (4 levels into the predictor). */
export const VJEPA2_1_HIER = join(REFERENCE, 'vjepa2_1_hier');
/** dino.txt in Meta's layout over the dinov3_meta backbone (scripts/reference/fam_dinotxt.py). */
export const DINOTXT = join(REFERENCE, 'dinotxt');
export const DINOTXT_FILES = {
  headAndText: join(DINOTXT, 'dinov3_vittiny16_dinotxt_vision_head_and_text_encoder-seeded.pth'),
  backbone: join(REFERENCE, 'dinov3_meta', 'dinov3_vittiny16_pretrain_seeded.pth'),
  vocab: join(DINOTXT, 'bpe_tiny_128.txt.gz'),
  /** The tiny text tower is 16 wide: not CLIP's 64-wide heads, so its 2 heads are given (--text-heads). */
  textHeads: 2,
} as const;
/** Meta's I-JEPA pretraining checkpoint with its predictor. */
export const IJEPA_PRED = join(REFERENCE, 'ijepa_pred');
export const LEWM = join(REFERENCE_HEADS, 'lewm');
/** The PyAV reference of long-video windows. */
export const VIDEO_WINDOWS = fixturePath('video-windows');

/** The untrained V-JEPA 2 demo model (scripts/make-demo-model.mjs). */
export const DEMO_MODEL = fixturePath('demo/jepa-demo-vjepa2-untrained.gguf');
export const SAMPLE_JPG = fixturePath('preprocess/sample.jpg');
export const SAMPLE_MP4 = fixturePath('preprocess/sample.mp4');

/** Build outputs some tests run: present after `pnpm build`. */
export const CLI_MAIN = join(REPO_ROOT, 'apps/cli/dist/main.js');
export const QUANTIZE_MAIN = join(REPO_ROOT, 'apps/quantize/dist/main.js');
export const WEB_DIST = join(REPO_ROOT, 'packages/server/dist/web');
