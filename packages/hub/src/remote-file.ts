/** One file of a repository at a commit, as the Hub lists it. */
export interface RemoteFile {
  path: string;
  size: number;
  /** The LFS sha256, or the git blob id of a file kept in git. */
  etag: string;
  lfs: boolean;
}
