// A missing, corrupt or short vocabulary file is refused in one line, as a TextError (a JepaError) that
// names the file; so is a context length the tokenizer cannot fill.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isJepaError } from '@jepa/errors';
import { describe, expect, it } from 'vitest';
import { ClipTokenizer, parseClipVocab, readClipVocab, TextError } from '../src/index.js';

const VOCAB = fileURLToPath(new URL('../../../fixtures/text/clip-merges-48894.txt.gz', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jepa-text-'));

function refusal(f: () => unknown): TextError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(TextError);
    expect(isJepaError(err)).toBe(true);
    const e = err as TextError;
    expect(e.message).not.toContain('\n');
    return e;
  }
  throw new Error('not refused');
}

describe('the vocabulary file', () => {
  it('refuses a missing file: not_found, naming it', () => {
    const path = join(dir, 'nope.txt.gz');
    const e = refusal(() => ClipTokenizer.fromFile(path));
    expect(e.code).toBe('vocab_missing');
    expect(e.kind).toBe('not_found');
    expect(e.message).toBe(`BPE vocabulary ${path}: no such file`);
  });

  it('refuses a folder: io', () => {
    const e = refusal(() => readClipVocab(dir));
    expect(e.code).toBe('vocab_io');
    expect(e.kind).toBe('io');
  });

  it('refuses bytes that are not gzip, and gzip that is not UTF-8', () => {
    const notGz = join(dir, 'plain.txt.gz');
    writeFileSync(notGz, '#version: 0.2\ni n\n');
    const e = refusal(() => readClipVocab(notGz));
    expect(e.code).toBe('vocab_corrupt');
    expect(e.kind).toBe('input');
    expect(e.message).toMatch(new RegExp(`^${notGz.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a gzip-compressed UTF-8 merges file`));
    expect(refusal(() => parseClipVocab(gzipSync(Buffer.from([0x23, 0xff, 0xfe, 0x0a])))).code).toBe('vocab_corrupt');
  });

  it('refuses a truncated file and a malformed merge line, naming the line', () => {
    const text = gunzipSync(readFileSync(VOCAB)).toString('utf8');
    const lines = text.split('\n');
    const short = refusal(() => parseClipVocab(gzipSync(lines.slice(0, 1000).join('\n')), 'short.gz'));
    expect(short.message).toBe("short.gz: 999 merge lines, CLIP's vocabulary needs 48894");
    const broken = [...lines];
    broken[5] = 'onlyone';
    const bad = refusal(() => parseClipVocab(gzipSync(broken.join('\n')), 'bad.gz'));
    expect(bad.code).toBe('vocab_corrupt');
    expect(bad.message).toBe('bad.gz: line 6 is not a merge of two pieces: "onlyone"');
  });

  it('refuses a context length below 2', () => {
    const tok = ClipTokenizer.fromFile(VOCAB);
    for (const n of [0, 1, 2.5, Number.NaN]) {
      const e = refusal(() => tok.tokenize('a dog', n));
      expect(e.code).toBe('context_length');
      expect(e.param).toBe('contextLength');
    }
  });
});
