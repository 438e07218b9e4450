// CLIP's token ids against fixtures/text/clip-ids.json, written by scripts/text/clip_tokenizer_ids.py: a
// Python reimplementation of openai/CLIP's simple_tokenizer.py on python3-regex, Python's html.unescape
// and unicodedata (no Python at test time). Controls that must fail: BPE without '</w>' word ends, no
// lower case, a single html.unescape, no ftfy, a case-sensitive pattern, a plain cut at 77.
// (JavaScript's own \s differs from Python regex's only on U+FEFF and U+0085, which ftfy removes and turns
// into a line break, so no text tells them apart after ftfy: the code keeps \p{White_Space} all the same.)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bpe, ClipTokenizer, cleanText, MERGE_COUNT, preTokens, toByteChars, VOCAB_SIZE } from '../src/index.js';
import { htmlUnescape } from '../src/html.js';
import { basicClean, pyStrip } from '../src/clean.js';
import { fixText } from '../src/ftfy.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/text/', import.meta.url));
const VOCAB = `${FIXTURES}clip-merges-48894.txt.gz`;

interface Case {
  text: string;
  ids: number[];
}
const golden = JSON.parse(readFileSync(`${FIXTURES}clip-ids.json`, 'utf8')) as { contextLength: number; cases: Case[] };

let tok: ClipTokenizer;
beforeAll(() => {
  tok = ClipTokenizer.fromFile(VOCAB);
});

/** A row of 77 from its ids before padding ('!' is id 0, so padding cannot be told by value). */
const padded = (ids: number[]) => [...ids, ...new Array<number>(77 - ids.length).fill(0)];

describe('CLIP token ids', () => {
  it('reads the vocabulary: 49408 ids, start 49406, end 49407', () => {
    expect(tok.vocabSize).toBe(VOCAB_SIZE);
    expect(VOCAB_SIZE).toBe(49408);
    expect(MERGE_COUNT).toBe(48894);
    expect([tok.startId, tok.endId]).toEqual([49406, 49407]);
  });

  it('gives the ids CLIP gives on the README examples', () => {
    expect(Array.from(tok.tokenize('a photo of a dog'))).toEqual(padded([49406, 320, 1125, 539, 320, 1929, 49407]));
    expect(Array.from(tok.tokenize('A RED car, parked at night!!'))).toEqual(padded([49406, 320, 736, 1615, 267, 16487, 536, 930, 748, 49407]));
  });

  it(`holds ${golden.cases.length} hard strings`, () => {
    expect(golden.cases.length).toBeGreaterThan(30);
    expect(golden.contextLength).toBe(77);
  });

  for (const c of golden.cases) {
    it(`tokenize(${JSON.stringify(c.text.length > 60 ? `${c.text.slice(0, 60)}…` : c.text)})`, () => {
      const row = tok.tokenize(c.text);
      expect(row).toBeInstanceOf(Int32Array);
      expect(row.length).toBe(77);
      expect(Array.from(row)).toEqual(c.ids);
    });
  }

  it('gives the reference ids on 500 seeded random strings (fixtures/text/clip-ids-random.json)', () => {
    const random = JSON.parse(readFileSync(`${FIXTURES}clip-ids-random.json`, 'utf8')) as { cases: Case[] };
    expect(random.cases).toHaveLength(500);
    const wrong = random.cases.filter((c) => JSON.stringify(Array.from(tok.tokenize(c.text))) !== JSON.stringify(padded(c.ids)));
    expect(wrong.slice(0, 3).map((c) => c.text)).toEqual([]);
  });

  it('cuts a long text at 77 with the end token last, and pads a short one with 0', () => {
    const long = golden.cases.filter((c) => tok.encode(c.text).length + 2 > 77);
    expect(long.length).toBeGreaterThanOrEqual(3);
    for (const c of long) {
      expect(c.ids[76]).toBe(49407);
      expect(c.ids.filter((id) => id === 49407)).toHaveLength(1);
    }
    expect(Array.from(tok.tokenize('a photo of a dog', 10))).toEqual([49406, 320, 1125, 539, 320, 1929, 49407, 0, 0, 0]);
    expect(Array.from(tok.tokenize('a photo of a dog', 4))).toEqual([49406, 320, 1125, 49407]);
  });
});

describe('negative controls: each change gives other ids than the reference', () => {
  // The same pipeline with one step changed; each must miss at least one golden row.
  const variant =
    (clean: (t: string) => string, wordEnds = true, pre: (t: string) => string[] = preTokens) =>
    (text: string) => {
      const vocab = tok.vocab;
      const ids = [49406];
      for (const token of pre(clean(text))) {
        const chars = toByteChars(token);
        const pieces = wordEnds ? bpe(chars, vocab.ranks, new Set(['<|startoftext|>', '<|endoftext|>'])) : bpeNoWordEnd(chars, vocab.ranks);
        for (const p of pieces) ids.push(vocab.ids.get(p) ?? -1);
      }
      ids.push(49407);
      const row = ids.slice(0, 77);
      row[row.length - 1] = 49407;
      return [...row, ...new Array(77 - row.length).fill(0)];
    };
  const misses = (f: (text: string) => number[]) => golden.cases.filter((c) => JSON.stringify(f(c.text)) !== JSON.stringify(c.ids)).length;

  it('the variant with nothing changed matches every row (the controls below test one change each)', () => {
    expect(misses(variant(cleanText))).toBe(0);
  });

  it("without '</w>' word ends", () => {
    expect(misses(variant(cleanText, false))).toBeGreaterThan(10);
  });

  it('without lower case', () => {
    expect(misses(variant((t) => whitespaceCleanOf(basicClean(t))))).toBeGreaterThan(3);
  });

  it('with html.unescape once instead of twice, and without ftfy', () => {
    const once = (t: string) => whitespaceCleanOf(pyStrip(htmlUnescape(fixText(t)))).toLowerCase();
    const noFtfy = (t: string) => whitespaceCleanOf(pyStrip(htmlUnescape(htmlUnescape(t)))).toLowerCase();
    expect(misses(variant(once))).toBeGreaterThan(0);
    expect(misses(variant(noFtfy))).toBeGreaterThan(3);
  });

  it('with the pre-token pattern case-sensitive', () => {
    const pattern = /<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|\p{L}+|\p{N}|[^\p{White_Space}\p{L}\p{N}]+/gu;
    expect(misses(variant(cleanText, true, (t) => t.match(pattern) ?? []))).toBeGreaterThan(0);
  });

  it('with a plain cut at 77 (the end token lost)', () => {
    const plain = (text: string) => {
      const ids = [49406, ...tok.encode(text), 49407].slice(0, 77);
      return [...ids, ...new Array(77 - ids.length).fill(0)];
    };
    expect(misses(plain)).toBeGreaterThanOrEqual(3);
  });
});

function whitespaceCleanOf(text: string): string {
  return pyStrip(text.replace(/\p{White_Space}+/gu, ' '));
}

/** BPE as above but with no '</w>' on the last character. */
function bpeNoWordEnd(token: string, ranks: ReadonlyMap<string, number>): string[] {
  const pieces = bpe(`${token}\u0000`, ranks, new Set());
  // the sentinel keeps the last real character from taking '</w>'; drop it again
  const last = pieces[pieces.length - 1];
  return last === '\u0000</w>' ? pieces.slice(0, -1) : pieces;
}
