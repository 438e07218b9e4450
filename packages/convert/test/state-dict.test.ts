import { describe, expect, it } from 'vitest';
import { openCheckpoint, selectStateDict, stripPrefixes, type Checkpoint, type TensorRef } from '../src/index.js';
import { expectConvertError, fixturePath, hexOf, manifest } from './fixtures.js';

async function withCheckpoint(file: string, body: (checkpoint: Checkpoint) => Promise<void>): Promise<void> {
  const checkpoint = await openCheckpoint(fixturePath('torch', file));
  try {
    await body(checkpoint);
  } finally {
    await checkpoint.close();
  }
}

describe('state-dict discovery', () => {
  it('takes the first preferred key present and names tensors relative to it', async () => {
    await withCheckpoint('nested.pt', async ({ root }) => {
      const { key, tensors } = selectStateDict(root, ['ema_encoder', 'target_encoder', 'encoder']);
      expect(key).toBe('target_encoder');
      const expected = Object.keys(manifest.torch['nested.pt'])
        .filter((n) => n.startsWith('target_encoder.'))
        .map((n) => n.slice('target_encoder.'.length));
      expect([...tensors.keys()].sort()).toEqual(expected.sort());
      const ref = tensors.get('module.pos_embed')!;
      expect(ref.name).toBe('module.pos_embed');
      expect(hexOf(await ref.read())).toBe(manifest.torch['nested.pt']['target_encoder.module.pos_embed'].hex);
      expect(selectStateDict(root, ['encoder']).tensors.get('module.pos_embed')).not.toBe(ref);
    });
  });

  it('strips the DDP prefix without touching the data', async () => {
    await withCheckpoint('nested.pt', async ({ root }) => {
      const stripped = stripPrefixes(selectStateDict(root, ['encoder']).tensors, ['module.']);
      expect([...stripped.keys()]).toContain('patch_embed.proj.weight');
      expect([...stripped.keys()].some((n) => n.startsWith('module.'))).toBe(false);
      const ref = stripped.get('blocks.0.attn.qkv.weight') as TensorRef;
      expect(ref.name).toBe('blocks.0.attn.qkv.weight');
      expect(hexOf(await ref.read())).toBe(manifest.torch['nested.pt']['encoder.module.blocks.0.attn.qkv.weight'].hex);
    });
  });

  it('finds a probe under classifiers[0] and strips module.backbone. before module.', async () => {
    await withCheckpoint('probe-protocol4.pth.tar', async ({ root }) => {
      const probe = selectStateDict(root, ['classifiers[0]']);
      expect(probe.key).toBe('classifiers[0]');
      expect([...stripPrefixes(probe.tensors, ['module.']).keys()].sort()).toEqual(['linear.bias', 'linear.weight', 'pooler.query_tokens']);
      const encoder = stripPrefixes(selectStateDict(root, ['classifiers.1', 'encoder']).tensors, ['module.', 'module.backbone.']);
      expect([...encoder.keys()].sort()).toEqual(['norm.weight', 'patch_embed.proj.weight']);
    });
  });

  it('treats "" as the root itself (flat safetensors)', async () => {
    const checkpoint = await openCheckpoint(fixturePath('safetensors', 'model.safetensors'));
    expect(selectStateDict(checkpoint.root, ['encoder', '']).tensors.size).toBe(checkpoint.tensors.size);
    await checkpoint.close();
  });

  it('names the available keys when none of the preferred ones holds tensors', async () => {
    await withCheckpoint('nested.pt', async ({ root }) => {
      await expectConvertError(
        () => selectStateDict(root, ['model', 'state_dict', 'epoch']),
        'STATE_DICT_NOT_FOUND',
        /encoder, predictor, target_encoder, opt/,
      );
    });
  });

  it('refuses prefix stripping that merges two tensors', async () => {
    await withCheckpoint('probe-protocol4.pth.tar', async ({ tensors }) => {
      const clash = new Map([
        ['module.w', tensors.get('encoder.module.backbone.norm.weight')!],
        ['w', tensors.get('encoder.module.backbone.patch_embed.proj.weight')!],
      ]);
      await expectConvertError(() => stripPrefixes(clash, ['module.']), 'STATE_DICT_NAME_COLLISION', /'w'/);
    });
  });
});
