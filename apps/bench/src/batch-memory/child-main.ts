// Entry of a `jepa-bench batch-memory` child: argv model size frames maxBatch rounds threads; one JSON line out.
import { runChild } from './child.js';

const [path, size, frames, maxBatch, rounds, threads] = process.argv.slice(2);
const result = await runChild(path!, Number(size), Number(frames), Number(maxBatch), Number(rounds), Number(threads));
process.stdout.write(`${JSON.stringify(result)}\n`);
