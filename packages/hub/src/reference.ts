// `hf:ORG/NAME[@REVISION][:TYPE]`: a model named by its Hugging Face repository instead of a file.
import { WEIGHT_DTYPES, type WeightDtype } from '@jepa/convert';
import { TARGETS, type Target } from '@jepa/quantize/targets';
import { HubError } from './errors.js';

export const HUB_PREFIX = 'hf:';
export const DEFAULT_REVISION = 'main';
export const DEFAULT_TYPE: WeightDtype = 'f32';

/** A converted model's type: what the converter writes (f32, f16, bf16), or what jepa-quantize makes of its f32 GGUF. */
export type ModelType = WeightDtype | Target;
export const MODEL_TYPES: readonly ModelType[] = [...new Set<ModelType>([...WEIGHT_DTYPES, ...TARGETS])];

/** Whether the converter writes this type itself (else the quantizer makes it from the f32 GGUF). */
export function isConverterType(type: ModelType): type is WeightDtype {
  return (WEIGHT_DTYPES as readonly string[]).includes(type);
}

export interface HubReference {
  /** `org/name`. */
  readonly repo: string;
  /** A branch, a tag or a commit; `main` when not given. */
  readonly revision: string;
  /** The precision of the converted GGUF's matmul weights. */
  readonly type: ModelType;
}

// the Hub's own rule for a repo id: letters, digits, '-', '_', '.'; no '--' or '..', no leading or trailing '-' or '.'
const PART = /^(?!.*(--|\.\.))[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$/;
// a git ref name as the Hub takes it (branches may hold '/', as in refs/pr/1)
const REVISION = /^(?!.*\.\.)(?!\/)(?!.*\/\/)[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}$/;

export function isHubReference(model: string): boolean {
  return model.startsWith(HUB_PREFIX);
}

export function checkType(type: string, what: string): ModelType {
  if (!(MODEL_TYPES as readonly string[]).includes(type))
    throw new HubError('HUB_BAD_TYPE', `${what}: type '${type}' is not one of ${MODEL_TYPES.join(', ')}`);
  return type as ModelType;
}

function checkRepo(repo: string, what: string): string {
  const parts = repo.split('/');
  if (parts.length !== 2 || !parts.every((p) => PART.test(p)))
    throw new HubError('HUB_BAD_REFERENCE', `${what}: expected ORG/NAME, a Hugging Face model repository (as in hf:facebook/dinov2-small)`);
  return repo;
}

function checkRevision(revision: string, what: string): string {
  if (!REVISION.test(revision) || revision.endsWith('/') || revision.endsWith('.lock'))
    throw new HubError('HUB_BAD_REFERENCE', `${what}: '${revision}' is not a branch, tag or commit`);
  return revision;
}

/** `hf:ORG/NAME[@REVISION][:TYPE]`, refused in one line naming the whole reference. */
export function parseHubReference(model: string): HubReference {
  const what = `'${model}'`;
  if (!isHubReference(model)) throw new HubError('HUB_BAD_REFERENCE', `${what}: a model reference starts with ${HUB_PREFIX}`);
  let rest = model.slice(HUB_PREFIX.length);
  let type: string = DEFAULT_TYPE;
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    type = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const at = rest.indexOf('@');
  const repo = at >= 0 ? rest.slice(0, at) : rest;
  const revision = at >= 0 ? rest.slice(at + 1) : DEFAULT_REVISION;
  return { repo: checkRepo(repo, what), revision: checkRevision(revision, what), type: checkType(type, what) };
}

/** `jepa pull ORG/NAME --revision R --type T` as a reference (ORG/NAME may carry hf: too). */
export function referenceOf(repo: string, revision = DEFAULT_REVISION, type: string = DEFAULT_TYPE): HubReference {
  const bare = isHubReference(repo) ? repo.slice(HUB_PREFIX.length) : repo;
  const what = `'${repo}'`;
  return { repo: checkRepo(bare, what), revision: checkRevision(revision, `${what} --revision`), type: checkType(type, `${what} --type`) };
}

export function formatReference(ref: HubReference): string {
  return `${HUB_PREFIX}${ref.repo}${ref.revision === DEFAULT_REVISION ? '' : `@${ref.revision}`}${ref.type === DEFAULT_TYPE ? '' : `:${ref.type}`}`;
}
