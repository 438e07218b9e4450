export { bpe } from './bpe.js';
export { BYTE_CHARS, toByteChars } from './byte-encoder.js';
export { basicClean, cleanText, whitespaceClean } from './clean.js';
export { type TextErrorCode, TextError } from './errors.js';
export { fixText } from './ftfy.js';
export { ftfyUnescape, htmlUnescape } from './html.js';
export { preTokens } from './pretokenize.js';
export { CONTEXT_LENGTH, ClipTokenizer } from './tokenizer.js';
export { type ClipVocab, clipVocabFromMerges, END_OF_TEXT, MERGE_COUNT, parseClipVocab, readClipVocab, START_OF_TEXT, VOCAB_SIZE } from './vocab.js';
