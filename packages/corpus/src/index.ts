export { CorpusError } from './errors.js';
export { isFailure, type CorpusItem, type CorpusRecord } from './embed/corpus-item.js';
export { embedCorpus, type EmbedCorpusOptions, type Pool } from './embed/embed-corpus.js';
export { EmbeddingWriter, type WriterOptions, type WrittenFailure } from './output/embedding-writer.js';
export { indexPathOf, outputFormat, partialPathOf, recordJson, type OutputFormat } from './output/format.js';
export { readIndex, type IndexEntry } from './output/index-file.js';
