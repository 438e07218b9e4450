// The table of families: each name in FAMILIES (../families.ts) has one definition here, made in its own file.
import { FAMILIES, type Family, type FamilyTraits } from '../families.js';
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

/** Each family's definition under its name; a name of FAMILIES without one does not compile. */
export const FAMILY_DEFINITIONS: { readonly [F in Family]: FamilyDefinition<F> } = Object.freeze({
  ijepa,
  vjepa,
  vjepa2,
  vjepa2_1,
  hfvit,
  lewm,
  levjepa,
  videomae,
  vivit,
  dinov3,
});

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
