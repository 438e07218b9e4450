import { Model } from '@jepa/graph';
const model = await Model.load(process.argv[2], { threads: 2 });
const ctx = model.createContext();
const data = new Float32Array(3 * 224 * 224).map((_, i) => Math.sin(i) * 2);
const x = { data, shape: [1, 3, 224, 224] };
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const t = async () => { const t0 = performance.now(); await ctx.encode(x); return performance.now() - t0; };
for (let i = 0; i < 3; i++) await t();
const a = [], b = [], c = [];
for (let r = 0; r < 12; r++) {
  a.push(await t());
  await pause(250); await t(); b.push(await t());
  await pause(250); c.push(await t());
}
const med = (v) => v.sort((p, q) => p - q)[v.length >> 1].toFixed(1);
console.log(`back-to-back ${med(a)} ms; pause+warm+timed ${med(b)} ms; pause+timed ${med(c)} ms`);
