// Where the Hub is and what may be used, as huggingface_hub reads its environment (constants.py).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface HubSettings {
  /** HF_ENDPOINT, without a trailing '/'. */
  endpoint: string;
  /** HF_HUB_CACHE, else $HF_HOME/hub. */
  cacheDir: string;
  /** HF_TOKEN, else the file `huggingface-cli login` writes ($HF_TOKEN_PATH, else $HF_HOME/token). */
  token?: string;
  /** HF_HUB_OFFLINE: never touch the network. */
  offline: boolean;
  /** jepa's own cache of converted GGUFs: $JEPA_CACHE, else $XDG_CACHE_HOME/jepa, else ~/.cache/jepa. */
  jepaCache: string;
  /** The first wait before a retry, doubled each time (ms). */
  retryDelayMs: number;
  /** Attempts per request before a transient failure is final. */
  attempts: number;
}

const TRUE = new Set(['1', 'on', 'yes', 'true']);

function tokenFrom(env: NodeJS.ProcessEnv, hfHome: string): string | undefined {
  const direct = env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN;
  if (direct?.trim()) return direct.trim();
  try {
    const saved = readFileSync(env.HF_TOKEN_PATH ?? join(hfHome, 'token'), 'utf8').trim();
    return saved || undefined;
  } catch {
    return undefined;
  }
}

export function hubSettings(env: NodeJS.ProcessEnv = process.env): HubSettings {
  const xdg = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const hfHome = env.HF_HOME || join(xdg, 'huggingface');
  const token = tokenFrom(env, hfHome);
  return {
    endpoint: (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, ''),
    cacheDir: env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || join(hfHome, 'hub'),
    ...(token ? { token } : {}),
    offline: TRUE.has((env.HF_HUB_OFFLINE ?? '').toLowerCase()),
    jepaCache: env.JEPA_CACHE || join(xdg, 'jepa'),
    retryDelayMs: 1000,
    attempts: 5,
  };
}
