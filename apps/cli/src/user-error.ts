/** A problem with what the user asked for: printed as `jepa: <message>`, never with a stack. */
export class UserError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
    this.name = 'UserError';
  }
}

/** Errors our packages raise for bad input carry a string `code`; they are the user's to fix. */
export function isUserFacing(err: unknown): err is Error & { code?: string } {
  if (err instanceof UserError) return true;
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string' &&
    ['GgufError', 'PreprocessError', 'GraphError', 'NativeError', 'ConvertError', 'CorpusError'].includes(err.name);
}
