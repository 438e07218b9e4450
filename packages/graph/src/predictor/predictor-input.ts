// Which encoder output a masked predictor reads: the final tokens (embed_in_dim = D), or, for the
// V-JEPA 2.1 g/G predictors (embed_in_dim = n_hier·D), the hierarchy concat (families.md §4.5).
import type { ModelSpec } from '@jepa/gguf';
import type { EncoderContextOptions } from '../encoder-context.js';
import { GraphError } from '../errors.js';

export function predictorEncoderOutput(spec: ModelSpec): NonNullable<EncoderContextOptions['output']> {
  const p = spec.pred;
  if (p?.kind !== 'masked') throw new GraphError('NO_PREDICTOR', `${spec.name} has no masked predictor`);
  const { embedDim, hierLayers } = spec.enc;
  if (p.embedInDim === embedDim) return 'final';
  if (hierLayers !== null && p.embedInDim === hierLayers.length * embedDim) return 'hierarchy';
  throw new GraphError(
    'UNSUPPORTED',
    `the predictor reads ${p.embedInDim}-wide tokens; the encoder gives ${embedDim} (its output)${hierLayers ? ` or ${hierLayers.length * embedDim} (its ${hierLayers.length} hierarchy levels)` : ''}`,
  );
}
