// Typed reads of config.json values; a wrong or missing value names the file and key.
import { ConvertError } from '../errors.js';
import type { Json } from '../source.js';

export class ConfigReader {
  constructor(
    private readonly json: Json,
    private readonly where: string,
  ) {}

  has(key: string): boolean {
    return this.json[key] !== undefined && this.json[key] !== null;
  }

  section(key: string): ConfigReader | null {
    const v = this.json[key];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    return new ConfigReader(v as Json, `${this.where}.${key}`);
  }

  num(key: string, fallback?: number): number {
    const v = this.json[key];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new ConvertError('CONVERT_BAD_CONFIG', `${this.where}: '${key}' must be a number, found ${JSON.stringify(v)}`);
    }
    return v;
  }

  int(key: string, fallback?: number): number {
    const v = this.num(key, fallback);
    if (!Number.isInteger(v)) throw new ConvertError('CONVERT_BAD_CONFIG', `${this.where}: '${key}' must be an integer, found ${v}`);
    return v;
  }

  str(key: string, fallback?: string): string {
    const v = this.json[key];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v !== 'string') throw new ConvertError('CONVERT_BAD_CONFIG', `${this.where}: '${key}' must be a string, found ${JSON.stringify(v)}`);
    return v;
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.json[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean')
      throw new ConvertError('CONVERT_BAD_CONFIG', `${this.where}: '${key}' must be true or false, found ${JSON.stringify(v)}`);
    return v;
  }

  /** `key` × `base` (e.g. mlp_ratio × hidden_size) must equal what the tensors say. */
  agreeRatio(key: string, base: number, fromTensors: number, tensor: string): void {
    if (!this.has(key)) return;
    const v = this.num(key);
    if (Math.round(v * base) !== fromTensors) {
      throw new ConvertError(
        'CONVERT_SHAPE_MISMATCH',
        `${this.where}: '${key}' ${v} × ${base} = ${Math.round(v * base)}, but tensor '${tensor}' implies ${fromTensors}`,
      );
    }
  }

  raw(key: string): unknown {
    return this.json[key];
  }

  /** A value that must equal what the tensors say; a disagreement names both. */
  agree(key: string, fromTensors: number, tensor: string): number {
    if (!this.has(key)) return fromTensors;
    const v = this.int(key);
    if (v !== fromTensors) {
      throw new ConvertError('CONVERT_SHAPE_MISMATCH', `${this.where}: '${key}' = ${v}, but tensor '${tensor}' implies ${fromTensors}`);
    }
    return v;
  }
}

/** HF `hidden_act` → schema activation. */
export function activationOf(name: string, where: string): 'gelu' | 'gelu_tanh' | 'quick_gelu' | 'silu' | 'relu' {
  switch (name) {
    case 'gelu':
      return 'gelu';
    case 'gelu_pytorch_tanh':
    case 'gelu_new':
    case 'gelu_fast':
      return 'gelu_tanh';
    case 'quick_gelu':
      return 'quick_gelu';
    case 'silu':
    case 'swish':
      return 'silu';
    case 'relu':
      return 'relu';
    default:
      throw new ConvertError('CONVERT_BAD_CONFIG', `${where}: activation '${name}' is not supported`);
  }
}
