// What every request to the Hub says it comes from, as huggingface_hub's `huggingface_hub/V; python/V` does.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

export const USER_AGENT = `jepa/${version}; node/${process.versions.node}`;
