// The reference fixtures (fixtures/reference/<family>): what to convert, with which overrides, and
// which input / golden pairs to judge. Shapes and hyper-parameters come from each manifest.json.
// Free of vitest: the GPU check (apps/bench/gpu) bundles it to run with plain Node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { REFERENCE } from './paths.js';

/** The converter overrides a fixture needs (a subset of @jepa/convert's ConvertOptions). */
export interface FixtureConvertOptions {
  /** Meta pickles record no head count: given as the user would (--n-head). */
  nHead?: number;
}

export interface GoldenCase {
  input: string;
  lastHiddenState: string;
  pooled: string;
}

export interface ReferenceFixture {
  folder: string;
  /** What convertCheckpoint is given: the folder, or the pickle inside it. */
  src: string;
  options: FixtureConvertOptions;
  familyClass: 'image' | 'video';
  pool: 'mean' | 'cls';
  cases: GoldenCase[];
}

interface Manifest {
  hparams: Record<string, unknown>;
  checkpoint: string[];
  cases?: Record<string, { input: string; last_hidden_state: string; pooled: string }>;
  input: string;
  last_hidden_state: string;
  pooled: string;
}

export function manifestOf(folder: string): Manifest {
  return JSON.parse(readFileSync(join(REFERENCE, folder, 'manifest.json'), 'utf8')) as Manifest;
}

export function npy(folder: string, file: string): { data: Float32Array; shape: number[] } {
  const a = readNpy(readFileSync(join(REFERENCE, folder, file)));
  return { data: a.data as Float32Array, shape: [...a.shape] };
}

function fixture(
  folder: string,
  familyClass: ReferenceFixture['familyClass'],
  pool: ReferenceFixture['pool'],
  pickle?: string,
  options: FixtureConvertOptions = {},
): ReferenceFixture {
  const m = manifestOf(folder);
  const cases = m.cases
    ? Object.values(m.cases).map((c) => ({ input: c.input, lastHiddenState: c.last_hidden_state, pooled: c.pooled }))
    : [{ input: m.input, lastHiddenState: m.last_hidden_state, pooled: m.pooled }];
  return { folder, src: join(REFERENCE, folder, pickle ?? ''), options, familyClass, pool, cases };
}

function metaOverrides(folder: string): FixtureConvertOptions {
  return { nHead: manifestOf(folder).hparams.n_head as number };
}

export const FIXTURE_TABLE: ReferenceFixture[] = [
  fixture('hfvit', 'image', 'cls'),
  fixture('hfvit_reg', 'image', 'cls'),
  fixture('ijepa', 'image', 'mean'),
  fixture('vjepa2', 'video', 'mean'),
  fixture('levjepa', 'video', 'cls'),
  fixture('vjepa2_1', 'video', 'mean', 'vjepa2_1_fixture.pt', metaOverrides('vjepa2_1')),
  fixture('vjepa', 'video', 'mean', 'vjepa_fixture.pth.tar', metaOverrides('vjepa')),
  fixture('lewm', 'image', 'cls'),
  fixture('hfvit_lejepa', 'image', 'cls'),
  fixture('hfvit_swiglu', 'image', 'cls'),
  fixture('hfvit_nobias', 'image', 'cls'),
  fixture('hfvit_hub', 'image', 'cls', 'hfvit_hub_pretrain.pth', metaOverrides('hfvit_hub')),
  fixture('hfvit_hub_reg', 'image', 'cls', 'hfvit_hub_reg_pretrain.pth', metaOverrides('hfvit_hub_reg')),
  fixture('hfvit_hub_g', 'image', 'cls', 'hfvit_hub_g_pretrain.pth', metaOverrides('hfvit_hub_g')),
  fixture('videomae', 'video', 'mean'),
  fixture('vivit', 'video', 'cls'),
  fixture('dinov3_hf', 'image', 'cls'),
  fixture('dinov3_hf_gated', 'image', 'cls'),
  fixture('dinov3_meta', 'image', 'cls', 'dinov3_vittiny16_pretrain_seeded.pth'),
  fixture('dinov3_meta_swiglu', 'image', 'cls', 'dinov3_vittiny16_pretrain_swiglu.pth'),
];

function fixtureCase(folder: string): GoldenCase {
  return FIXTURE_TABLE.find((f) => f.folder === folder)!.cases[0]!;
}

/** A fixture's case by its manifest name ('native', 'interpolated'). */
function namedCase(folder: string, name: string): GoldenCase {
  const c = manifestOf(folder).cases![name]!;
  return { input: c.input, lastHiddenState: c.last_hidden_state, pooled: c.pooled };
}

/** Recorded outputs of deliberately wrong models (manifest negative_controls) and the case they mirror. */
export const NEGATIVE_CONTROLS: { folder: string; control: string; pooledControl?: string; case: GoldenCase }[] = [
  { folder: 'vjepa2', control: 'last_hidden_state_wrong_layout.npy', case: FIXTURE_TABLE[3]!.cases[0]! },
  { folder: 'vjepa2_1', control: 'last_hidden_state_wrong_layout.npy', case: FIXTURE_TABLE[5]!.cases[0]! },
  { folder: 'vjepa2_1', control: 'last_hidden_state_no_interp.npy', case: FIXTURE_TABLE[5]!.cases[0]! },
  { folder: 'hfvit', control: 'last_hidden_state_no_layerscale.npy', case: FIXTURE_TABLE[0]!.cases[0]! },
  { folder: 'hfvit_reg', control: 'last_hidden_state_no_layerscale.npy', case: FIXTURE_TABLE[1]!.cases[0]! },
  { folder: 'levjepa', control: 'last_hidden_state_unmasked.npy', pooledControl: 'pooled_unmasked.npy', case: FIXTURE_TABLE[4]!.cases[0]! },
  { folder: 'hfvit_swiglu', control: 'last_hidden_state_gates_swapped.npy', case: fixtureCase('hfvit_swiglu') },
  { folder: 'hfvit_nobias', control: 'last_hidden_state_with_qkv_bias.npy', case: fixtureCase('hfvit_nobias') },
  { folder: 'hfvit_hub', control: 'last_hidden_state_no_layerscale.npy', case: fixtureCase('hfvit_hub') },
  { folder: 'hfvit_hub', control: 'last_hidden_state_interp_no_offset.npy', case: namedCase('hfvit_hub', 'interpolated') },
  { folder: 'hfvit_hub_reg', control: 'last_hidden_state_no_layerscale.npy', case: fixtureCase('hfvit_hub_reg') },
  { folder: 'hfvit_hub_g', control: 'last_hidden_state_no_layerscale.npy', case: fixtureCase('hfvit_hub_g') },
  { folder: 'hfvit_hub_g', control: 'last_hidden_state_interp_no_offset.npy', case: namedCase('hfvit_hub_g', 'interpolated') },
  { folder: 'videomae', control: 'last_hidden_state_sincos3d.npy', case: fixtureCase('videomae') },
  // ViViT's key bias alone is softmax-invariant (its control equals the golden): the biases go together
  { folder: 'vivit', control: 'last_hidden_state_no_qkv_bias.npy', case: fixtureCase('vivit') },
  // DINOv3: RoPE on the CLS and registers too, both axes normalised by the longer side, the key bias unmasked,
  // the local crops' CLS norm used at evaluation
  ...['dinov3_hf', 'dinov3_hf_gated', 'dinov3_meta', 'dinov3_meta_swiglu'].flatMap((folder) =>
    ['rope_prefix', 'max_coords', ...(folder === 'dinov3_meta' ? ['unmasked_k_bias', 'local_cls_norm'] : [])].map((wrong) => ({
      folder,
      control: `last_hidden_state_wide_${wrong}.npy`,
      case: namedCase(folder, 'wide'),
    })),
  ),
];
