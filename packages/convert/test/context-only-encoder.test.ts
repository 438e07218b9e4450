// The context-only encoding (EncodeOptions.keep: Meta's training path, encoder(x, masks_enc)) on the
// 3-D RoPE hierarchy model of fixtures/reference/vjepa2_1_hier: RoPE at the kept ids, the 4 levels, then
// the predictor, judged against that fixture's targets_masked_encoder.npy; the whole-clip path fails it.
import { join } from 'node:path';
import { compareTokens, contextOnlyTokens, judge, Model, policyRow, predictorTokens } from '@jepa/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint } from '../src/index.js';
import { tempDir } from './fixtures.js';
import { manifestOf, npy, REFERENCE } from '@jepa/testing';

const FOLDER = 'vjepa2_1_hier';
const m = manifestOf(FOLDER) as unknown as {
  checkpoint: string[];
  convert_overrides: { img_size: number; pred_n_head: number };
  hparams: { n_head: number };
  context_ids_values: number[];
  target_ids_values: number[];
};
const row = policyRow('cpu', 'video', 'f32');
let model: Model;

beforeAll(async () => {
  const out = join(tempDir(), 'hier.gguf');
  const o = m.convert_overrides;
  await convertCheckpoint(join(REFERENCE, FOLDER, m.checkpoint[0]!), out, { nHead: m.hparams.n_head, predNHead: o.pred_n_head, imgSize: o.img_size });
  model = await Model.load(out, { threads: 2 });
});

afterAll(() => model?.dispose());

async function predict(contextOnly: boolean) {
  const enc = model.createContext({ output: 'hierarchy' });
  const pred = model.createPredictorContext();
  try {
    const input = npy(FOLDER, 'input.npy');
    const contextIds = m.context_ids_values;
    const out = await enc.encode(input, contextOnly ? { keep: contextIds } : {});
    const tokens = contextOnly ? contextOnlyTokens(model.spec, input.shape, out, contextIds) : predictorTokens(out);
    return await pred.predict({ ...tokens, contextIds, targetIds: m.target_ids_values });
  } finally {
    enc.dispose();
    pred.dispose();
  }
}

describe('context-only encoding with 3-D RoPE and hierarchy levels (vjepa2_1_hier)', () => {
  it("matches Meta's training path golden; the whole-clip encoding fails it", async () => {
    const golden = npy(FOLDER, 'targets_masked_encoder.npy').data;
    const got = await predict(true);
    const v = judge(row, compareTokens(got.targets, golden, got.outDim));
    console.log(`vjepa2_1_hier context-only encoder: ${v.summary}`);
    expect(v.failures).toEqual([]);
    const whole = await predict(false);
    const w = judge(row, compareTokens(whole.targets, golden, whole.outDim));
    console.log(`vjepa2_1_hier control whole clip against the context-only golden: ${w.summary}`);
    expect(w.pass).toBe(false);
  });
});
