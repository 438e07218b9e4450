// `jepa embed --text …`: one dino.txt text vector per text, in order, through the same output writers as images.
import { EmbeddingWriter, type CorpusItem, type CorpusRecord } from '@jepa/corpus';
import { say } from '../display-text.js';
import { openSession, type RuntimeFlags } from '../open-session.js';

export interface TextEmbedFlags extends RuntimeFlags {
  model: string;
  output?: string;
  normalize?: boolean;
}

export async function embedTexts(texts: readonly string[], flags: TextEmbedFlags): Promise<void> {
  // texts are not files: nothing to load, and no file identity for --resume (refused before this)
  const items: CorpusItem[] = texts.map((label) => ({ label, still: true, load: async () => null }));
  const session = await openSession(flags.model, flags);
  try {
    const vectors = await session.embedText(texts, { normalize: flags.normalize });
    say(`model: ${session.spec.name} (${session.spec.family}) on ${session.device}`);
    const writer = EmbeddingWriter.open(flags.output, items);
    try {
      const records: CorpusRecord[] = vectors.map((v, i) => ({ item: items[i]!, values: v.values, shape: v.shape }));
      writer.write(records);
      writer.finish();
    } finally {
      writer.close();
    }
    say(`${texts.length} texts embedded${flags.output ? ` -> ${flags.output}` : ''}`);
  } finally {
    await session.dispose();
  }
}
