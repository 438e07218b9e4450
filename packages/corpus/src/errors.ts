/** Bad input or a failed write in a corpus job: the user's to fix, printed as one line. */
export class CorpusError extends Error {
  /** The CLI's exit status for it, as for its other user errors. */
  readonly exitCode = 2;

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CorpusError';
  }
}
