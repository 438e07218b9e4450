// What a model must have for each part a call may ask of it, and the one refusal when it lacks it: the
// session checks it before it makes the part, the engine on the file's header before the model loads.
import type { ModelSpec } from '@jepa/gguf';
import { badOption } from './refusal.js';

export type ModelPart = 'head' | 'predictor' | 'world' | 'actionConditioned' | 'text';

const PARTS: Readonly<Record<ModelPart, { has: (spec: ModelSpec) => boolean; lacks: string | ((spec: ModelSpec) => string) }>> = {
  head: { has: (s) => !!s.head, lacks: 'has no classifier head' },
  predictor: { has: (s) => s.pred?.kind === 'masked', lacks: 'has no masked predictor' },
  world: { has: (s) => s.pred?.kind === 'action', lacks: 'is not a LeWorldModel (no action-conditioned predictor)' },
  actionConditioned: { has: (s) => s.pred?.kind === 'ac', lacks: 'has no V-JEPA 2-AC predictor' },
  text: { has: (s) => !!s.text, lacks: (s) => `(${s.family}) has no text tower; text needs a dino.txt model` },
};

/** Refuses (field `model`, code unsupported_model) a model `id` whose spec lacks `part`. */
export function requirePart(spec: ModelSpec, id: string, part: ModelPart): void {
  const { has, lacks } = PARTS[part];
  if (!has(spec)) throw badOption('model', `${id} ${typeof lacks === 'string' ? lacks : lacks(spec)}`, 'unsupported_model');
}
