// A failure to write a download's `.incomplete` file (a full disk, a quota, a size limit, a
// permission) is the user's disk, not the network: it is never retried, and the bytes already
// written stay in the file for the next pull to resume from with Range.
import { stat } from 'node:fs/promises';
import { HubError } from './errors.js';

/** Why the write failed, in words, for the codes that mean "no room". */
const NO_ROOM: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file grew past the size this system allows',
};

/** `err` from writing `incomplete` as one line that names the file, why, and the bytes kept. */
export async function diskFailure(err: unknown, incomplete: string): Promise<HubError> {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? 'an unknown error';
  const kept = await stat(incomplete).then(
    (s) => s.size,
    () => 0,
  );
  const why = NO_ROOM[code] ?? `cannot write it (${code})`;
  const next = kept > 0 ? `; the ${kept} bytes downloaded so far are kept there and the next pull resumes from them` : '';
  return new HubError('HUB_IO', `${incomplete}: ${why}${next}`, { cause: err });
}
