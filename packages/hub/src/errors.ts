import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

/** Every refusal of a model pulled by name; each message is one line that says what to do. */
export type HubErrorCode =
  | 'HUB_BAD_REFERENCE'
  | 'HUB_BAD_TYPE'
  | 'HUB_BAD_TOKEN'
  | 'HUB_GATED'
  | 'HUB_FORBIDDEN'
  | 'HUB_REPO_NOT_FOUND'
  | 'HUB_REVISION_NOT_FOUND'
  | 'HUB_FILE_NOT_FOUND'
  | 'HUB_NO_CHECKPOINT'
  | 'HUB_OFFLINE_MISSING'
  | 'HUB_UNREACHABLE'
  | 'HUB_SERVER'
  | 'HUB_CHECKSUM'
  | 'HUB_IO'
  | 'HUB_NOT_CACHED';

const KINDS: Readonly<Partial<Record<HubErrorCode, ErrorKind>>> = {
  HUB_GATED: 'forbidden',
  HUB_FORBIDDEN: 'forbidden',
  HUB_REPO_NOT_FOUND: 'not_found',
  HUB_REVISION_NOT_FOUND: 'not_found',
  HUB_FILE_NOT_FOUND: 'not_found',
  HUB_OFFLINE_MISSING: 'not_found',
  HUB_NOT_CACHED: 'not_found',
  HUB_UNREACHABLE: 'unavailable',
  HUB_SERVER: 'unavailable',
  HUB_CHECKSUM: 'io',
  HUB_IO: 'io',
};

export class HubError extends JepaError {
  declare readonly code: HubErrorCode;

  constructor(code: HubErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KINDS);
  }
}
