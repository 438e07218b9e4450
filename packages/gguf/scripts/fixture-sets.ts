import { forgeModelBytes } from '../src/forge/forge.js';
import { mulberry32 } from '../src/forge/rng.js';
import { GGML_TYPES, GgmlType, tensorNbytes } from '../src/ggml-types.js';
import { gv, type GgufValue } from '../src/gguf/value.js';
import { GgufWriter } from '../src/gguf/writer.js';
import { FAMILIES } from '../src/schema/family/registry.js';

/** Every scalar and array metadata type; `nested` adds arrays of arrays, which ggml's C reader does not accept. */
export function allTypesMetadata(nested: boolean): [string, GgufValue][] {
  const entries: [string, GgufValue][] = [
    ['general.architecture', gv.str('interop')],
    ['interop.u8', gv.u8(200)],
    ['interop.i8', gv.i8(-100)],
    ['interop.u16', gv.u16(60000)],
    ['interop.i16', gv.i16(-30000)],
    ['interop.u32', gv.u32(4000000000)],
    ['interop.i32', gv.i32(-2000000000)],
    ['interop.f32', gv.f32(Math.fround(0.1))],
    ['interop.bool', gv.bool(true)],
    ['interop.string', gv.str('jepa ✓ ünïcode')],
    ['interop.u64', gv.u64(18446744073709551000n)],
    ['interop.i64', gv.i64(-9223372036854775000n)],
    ['interop.f64', gv.f64(-1.2345678901234567)],
    ['interop.arr.u8', { type: 'array', itemType: 'u8', value: Uint8Array.from([1, 2, 255]) }],
    ['interop.arr.i8', { type: 'array', itemType: 'i8', value: Int8Array.from([-128, 127]) }],
    ['interop.arr.u16', { type: 'array', itemType: 'u16', value: Uint16Array.from([65535, 0]) }],
    ['interop.arr.i16', { type: 'array', itemType: 'i16', value: Int16Array.from([-32768, 5]) }],
    ['interop.arr.u32', gv.u32s([7, 8, 9])],
    ['interop.arr.i32', { type: 'array', itemType: 'i32', value: Int32Array.from([-7, 8]) }],
    ['interop.arr.f32', gv.f32s([0.485, 0.456, 0.406])],
    ['interop.arr.bool', gv.bools([false, true])],
    ['interop.arr.string', gv.strs(['a', 'bc', 'dëf'])],
    ['interop.arr.u64', { type: 'array', itemType: 'u64', value: BigUint64Array.from([1n, 18446744073709551000n]) }],
    ['interop.arr.i64', { type: 'array', itemType: 'i64', value: BigInt64Array.from([-1n, 9223372036854775000n]) }],
    ['interop.arr.f64', { type: 'array', itemType: 'f64', value: Float64Array.from([1e-300, 1e300]) }],
  ];
  if (nested) entries.push(['interop.arr.nested', gv.arrays([gv.u32s([1, 2]), gv.u32s([3])])]);
  return entries;
}

/** One [256, 2] tensor of every ggml type the pinned ggml supports, with seeded bytes. */
export function allTypesFile(nested: boolean): Uint8Array {
  const w = GgufWriter.inMemory();
  for (const [k, v] of allTypesMetadata(nested)) w.setMetadata(k, v);
  const types = GGML_TYPES.filter((t) => t.supported);
  for (const t of types) w.addTensor(`t.${t.name}`, t.id, [256, 2]);
  w.addTensor('t.f32.3d', GgmlType.F32, [4, 3, 2]);
  for (const t of types) {
    const rnd = mulberry32(1000 + t.id);
    w.writeTensorData(Uint8Array.from({ length: Number(tensorNbytes(t.id, [256, 2])) }, () => Math.floor(rnd() * 256)));
  }
  w.writeTensorData(Float32Array.from({ length: 24 }, (_, i) => i - 12));
  return w.finish().bytes!;
}

export function forgedFixtures(): [string, Uint8Array][] {
  return [
    ...FAMILIES.map((f) => [`forge-${f}.gguf`, forgeModelBytes(f).bytes] as [string, Uint8Array]),
    ['forge-vjepa2-q8_0.gguf', forgeModelBytes('vjepa2', { matmulType: GgmlType.Q8_0 }).bytes],
    ['forge-hfvit-f16.gguf', forgeModelBytes('hfvit', { matmulType: GgmlType.F16 }).bytes],
  ];
}
