// --normalize on jepa embed and jepa worker: each vector scaled to unit L2 length (each token's with
// --pool none) by the session's pooling, the rule behind the server's and MCP's `normalize`.
import { Option } from 'commander';

export function normalizeOption(): Option {
  return new Option('--normalize', 'scale each vector (each token with --pool none) to unit L2 length');
}
