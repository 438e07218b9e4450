/** Bad input or a failed write in a corpus job: the user's to fix, printed as one line. */
export class CorpusError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CorpusError';
  }
}
