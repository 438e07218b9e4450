// The table of families: each family is one definition, made in its own file; its name is its definition's.
import type { FamilyTraits } from '../families.js';
import type { FamilyDefinition } from './define.js';
import { dinov3 } from './dinov3.js';
import { hfvit } from './hfvit.js';
import { ijepa } from './ijepa.js';
import { levjepa } from './levjepa.js';
import { lewm } from './lewm.js';
import { videomae } from './videomae.js';
import { vivit } from './vivit.js';
import { vjepa } from './vjepa.js';
import { vjepa2 } from './vjepa2.js';
import { vjepa2_1 } from './vjepa2-1.js';

const DEFINITIONS = [ijepa, vjepa, vjepa2, vjepa2_1, hfvit, lewm, levjepa, videomae, vivit, dinov3] as const;

/** A family's name (jepa.family). */
export type Family = (typeof DEFINITIONS)[number]['name'];

/** Every family's name, in the order of DEFINITIONS. */
export const FAMILIES = Object.freeze(DEFINITIONS.map((d) => d.name)) as readonly Family[] as readonly [Family, ...Family[]];

/** Each family's definition under its name. */
export const FAMILY_DEFINITIONS: { readonly [F in Family]: FamilyDefinition<F> } = Object.freeze(
  Object.fromEntries(DEFINITIONS.map((d) => [d.name, d])) as { [F in Family]: FamilyDefinition<F> },
);

/** What a family's graph is built from (FamilyTraits): the definitions' traits, by name. */
export const FAMILY_TRAITS: Readonly<Record<Family, FamilyTraits>> = Object.freeze(
  Object.fromEntries(FAMILIES.map((f) => [f, FAMILY_DEFINITIONS[f].traits])) as Record<Family, FamilyTraits>,
);

/** Whether the family's encoder takes only clips: a still is repeated to its trained frames first. */
export function isVideoOnlyFamily(family: Family): boolean {
  const t = FAMILY_TRAITS[family];
  return t.video && !t.imageTokenizer;
}

/** The families that carry the attentive classifier (a probe checkpoint's head belongs to one of them). */
export const HEAD_FAMILIES: readonly Family[] = FAMILIES.filter((f) => FAMILY_TRAITS[f].head === 'attentive');
