#!/usr/bin/env node
// Whether @huggingface/tokenizers gives CLIP's ids on fixtures/text/clip-ids.json, with a tokenizer.json
// built from the merges as Hugging Face's CLIP tokenizers are (NFC, whitespace, lower case; the pattern;
// byte level; BPE with '</w>'). It prints how many rows match on the raw text and on @jepa/text's
// cleaned text. The library is not a dependency: install it in a scratch folder and name that folder.
// Usage, from the repository root: (mkdir -p tmp/hf && cd tmp/hf && npm install @huggingface/tokenizers@0.2.0)
//        pnpm -s turbo run build --filter @jepa/text && node packages/text/scripts/compare-hf-tokenizers.mjs tmp/hf
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { ClipTokenizer, cleanText, MERGE_COUNT } from '@jepa/text';

const scratch = resolve(process.argv[2] ?? 'tmp/hf');
const entry = createRequire(`${scratch}/`).resolve('@huggingface/tokenizers');
const { Tokenizer } = await import(pathToFileURL(entry).href.replace(/\.cjs$/, '.mjs'));
const root = new URL('../../../fixtures/text/', import.meta.url);
const vocabPath = new URL('clip-merges-48894.txt.gz', root);
const merges = gunzipSync(readFileSync(vocabPath))
  .toString('utf8')
  .split('\n')
  .slice(1, MERGE_COUNT + 1);
const clip = ClipTokenizer.fromFile(vocabPath.pathname);
const vocab = Object.fromEntries(clip.vocab.ids);
const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true });
const hf = new Tokenizer(
  {
    version: '1.0',
    added_tokens: [special(49406, '<|startoftext|>'), special(49407, '<|endoftext|>')],
    normalizer: {
      type: 'Sequence',
      normalizers: [{ type: 'NFC' }, { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'Lowercase' }],
    },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: "'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+" }, behavior: 'Removed', invert: true },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: {
      type: 'RobertaProcessing',
      sep: ['<|endoftext|>', 49407],
      cls: ['<|startoftext|>', 49406],
      trim_offsets: false,
      add_prefix_space: false,
    },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<|endoftext|>',
      continuing_subword_prefix: '',
      end_of_word_suffix: '</w>',
      fuse_unk: false,
      vocab,
      merges,
    },
  },
  { model_max_length: 77 },
);
const cases = JSON.parse(readFileSync(new URL('clip-ids.json', root), 'utf8')).cases;
const fit = (ids) => {
  const row = ids.slice(0, 77);
  row[row.length - 1] = 49407;
  return JSON.stringify(row);
};
let raw = 0;
let cleaned = 0;
for (const c of cases) {
  const want = JSON.stringify(c.ids.filter((id) => id !== 0));
  if (fit(hf.encode(c.text).ids) === want) raw++;
  if (fit(hf.encode(cleanText(c.text)).ids) === want) cleaned++;
  else console.log(`differs on the cleaned text: ${JSON.stringify(c.text)}`);
}
console.log(`@huggingface/tokenizers: ${raw}/${cases.length} rows on the raw text, ${cleaned}/${cases.length} on @jepa/text's cleaned text`);
