// A loopback stand-in for the Hugging Face Hub, serving tiny seeded repositories over the requests
// @huggingface/hub and jepa make: model info at a revision, the tree (paged by Link), paths-info,
// resolve (a 302 to the LFS object for LFS files, X-Repo-Commit, ETag, X-Linked-Etag, X-Linked-Size),
// Range, gating (401 without a token, 403 with one not allowed), renamed repositories (a 307 from the
// old name, relative, as the Hub answers), and faults to inject.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { commitOf, type HubFile, type HubRepo, hubFile } from './hub-repo.js';

/**
 * 'no-range': the whole file with a 200, whatever Range asked (as a server without Range support answers);
 * 'wrong-link': the resolve's 302 names another object in X-Linked-Etag than the listing does.
 */
export type HubFault = '503' | 'cut' | 'corrupt' | 'slow' | 'no-range' | 'wrong-link';

export interface HubRequest {
  method: string;
  path: string;
  range?: string;
  authorization?: string;
  userAgent?: string;
}

export interface SeedOptions {
  gated?: boolean;
  /** Default 'main'. */
  branch?: string;
  salt?: string;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { error: message }, { 'X-Error-Code': code });
}

export class HubServer {
  readonly repos = new Map<string, HubRepo>();
  readonly requests: HubRequest[] = [];
  /** Tokens allowed into gated repositories. */
  readonly tokens = new Set<string>();
  /** Tokens of accounts without access to gated repositories (403 there); any other token is invalid (401 everywhere). */
  readonly otherTokens = new Set<string>();
  /** Faults to serve on the next downloads of a file's bytes, by its path in the repo, first first. */
  readonly faults = new Map<string, HubFault[]>();
  /** Old id → new id: requests naming the old id are redirected (307) to the same path under the new one. */
  readonly renamed = new Map<string, string>();
  /** The next this many API calls (model info, tree, paths-info) answer 503. */
  apiFailures = 0;
  /** Tree entries per page (the rest behind a Link: rel="next"). */
  pageSize = 50;
  /** A slow body comes in 8 steps this far apart (ms). */
  slowStepMs = 20;
  #server: Server | undefined;
  #url = '';

  get url(): string {
    return this.#url;
  }

  /** Adds `files` as a commit of `id` at `branch`; returns the commit. */
  seed(id: string, files: Map<string, Buffer>, options: SeedOptions = {}): string {
    const repo = this.repos.get(id) ?? { id, gated: false, branches: new Map(), commits: new Map() };
    repo.gated = options.gated ?? repo.gated;
    const entries = new Map([...files].map(([path, bytes]) => [path, hubFile(path, bytes)]));
    const commit = commitOf(entries.values(), `${id}\0${options.salt ?? ''}`);
    repo.commits.set(commit, entries);
    repo.branches.set(options.branch ?? 'main', commit);
    this.repos.set(id, repo);
    return commit;
  }

  fault(path: string, ...faults: HubFault[]): void {
    this.faults.set(path, [...(this.faults.get(path) ?? []), ...faults]);
  }

  async start(port = 0): Promise<string> {
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) refuse(res, 500, 'Internal', String(err));
        else res.destroy();
      });
    });
    this.#server.listen(port, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this.#url;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }

  /** The requests for a file's bytes (resolve or LFS object) of `path`. */
  downloadsOf(path: string): HubRequest[] {
    return this.requests.filter((r) => r.method === 'GET' && (r.path.endsWith(`/${path}`) || r.path.includes(`/lfs/${path}`)));
  }

  #commit(repo: HubRepo, revision: string): string | undefined {
    if (repo.commits.has(revision)) return revision;
    return repo.branches.get(revision);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.#url);
    const path = decodeURIComponent(url.pathname);
    this.requests.push({
      method: req.method ?? 'GET',
      path,
      ...(req.headers.range ? { range: req.headers.range } : {}),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
    });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token !== undefined && !path.startsWith('/lfs/') && !this.tokens.has(token) && !this.otherTokens.has(token)) {
      refuse(res, 401, 'InvalidCredentials', 'Invalid credentials in Authorization header');
      return;
    }
    const moved = /^(\/api\/models)?\/([^/]+\/[^/]+)(\/.*)$/.exec(url.pathname);
    const renamedTo = moved ? this.renamed.get(decodeURIComponent(moved[2])) : undefined;
    if (moved && renamedTo !== undefined) {
      res.writeHead(307, { Location: `${moved[1] ?? ''}/${renamedTo}${moved[3]}${url.search}`, 'Content-Length': 0 });
      res.end();
      return;
    }
    let m = /^\/api\/models\/([^/]+\/[^/]+)\/(revision|tree|paths-info)\/([^/]+)(\/.*)?$/.exec(path);
    if (m) return this.#api(req, res, m[1], m[2], m[3], url);
    m = /^\/lfs\/([0-9a-f]{64})\/(.+)$/.exec(path);
    if (m) return this.#lfs(req, res, m[1], m[2]);
    m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    if (m) return this.#resolve(req, res, m[1], m[2], m[3]);
    refuse(res, 404, 'NotFound', `no route ${path}`);
  }

  async #api(req: IncomingMessage, res: ServerResponse, id: string, what: string, revision: string, url: URL): Promise<void> {
    if (this.apiFailures > 0) {
      this.apiFailures--;
      return refuse(res, 503, 'ServiceUnavailable', 'try again later');
    }
    const repo = this.repos.get(id);
    if (!repo) return refuse(res, 404, 'RepoNotFound', 'Repository not found');
    const commit = this.#commit(repo, revision);
    if (!commit) return refuse(res, 404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
    const files = [...(repo.commits.get(commit) ?? new Map<string, HubFile>()).values()];
    const entry = (f: HubFile, expand: boolean) => ({
      type: 'file',
      oid: f.oid,
      size: f.lfs ? 134 : f.bytes.length,
      path: f.path,
      ...(f.lfs ? { lfs: { oid: f.etag, size: f.bytes.length, pointerSize: 134 } } : {}),
      ...(expand ? { lastCommit: { id: commit, title: 'seeded', date: '2026-01-01T00:00:00.000Z' }, securityFileStatus: { status: 'safe' } } : {}),
    });
    if (what === 'revision') {
      const [org] = id.split('/');
      return json(res, 200, {
        _id: commit.slice(0, 24),
        id,
        author: org,
        sha: commit,
        private: false,
        gated: repo.gated ? 'auto' : false,
        downloads: 0,
        likes: 0,
        lastModified: '2026-01-01T00:00:00.000Z',
        siblings: files.map((f) => ({ rfilename: f.path })),
      });
    }
    if (what === 'paths-info') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const asked = JSON.parse(body) as { paths: string[]; expand?: boolean };
      return json(
        res,
        200,
        files.filter((f) => asked.paths.includes(f.path)).map((f) => entry(f, asked.expand === true)),
      );
    }
    const cursor = Number(url.searchParams.get('cursor') ?? '0');
    const page = files.slice(cursor, cursor + this.pageSize).map((f) => entry(f, url.searchParams.get('expand') === 'true'));
    const next = cursor + this.pageSize < files.length ? new URL(url) : undefined;
    next?.searchParams.set('cursor', String(cursor + this.pageSize));
    return json(res, 200, page, next ? { Link: `<${next.href}>; rel="next"` } : {});
  }

  #resolve(req: IncomingMessage, res: ServerResponse, id: string, revision: string, path: string): void {
    const repo = this.repos.get(id);
    if (!repo) {
      refuse(res, 404, 'RepoNotFound', 'Repository not found');
      return;
    }
    const commit = this.#commit(repo, revision);
    if (!commit) {
      refuse(res, 404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
      return;
    }
    const file = repo.commits.get(commit)?.get(path);
    if (!file) {
      refuse(res, 404, 'EntryNotFound', `${path} does not exist on "${revision}"`);
      return;
    }
    if (repo.gated) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const refusal = !token
        ? {
            status: 401,
            message: `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
          }
        : !this.tokens.has(token)
          ? {
              status: 403,
              message: `Access to model ${id} is restricted and you are not in the authorized list. Visit ${this.#url}/${id} to ask for access.`,
            }
          : undefined;
      if (refusal) {
        refuse(res, refusal.status, 'GatedRepo', refusal.message);
        return;
      }
    }
    const headers = { 'X-Repo-Commit': commit, ETag: `"${file.etag}"` };
    if (file.lfs) {
      const wrongLink = this.faults.get(file.path)?.[0] === 'wrong-link';
      if (wrongLink) this.faults.get(file.path)?.shift();
      res.writeHead(302, {
        ...headers,
        'X-Linked-Etag': `"${wrongLink ? file.etag.replace(/^./, (c) => (c === '0' ? '1' : '0')) : file.etag}"`,
        'X-Linked-Size': String(file.bytes.length),
        Location: `/lfs/${file.etag}/${path}`,
        'Content-Length': 0,
      });
      res.end();
      return;
    }
    this.#bytes(req, res, file, headers);
  }

  #lfs(req: IncomingMessage, res: ServerResponse, etag: string, path: string): void {
    for (const repo of this.repos.values())
      for (const files of repo.commits.values()) {
        const file = files.get(path);
        if (file?.etag === etag) {
          this.#bytes(req, res, file, { ETag: `"${etag}"` });
          return;
        }
      }
    refuse(res, 404, 'EntryNotFound', 'no such object');
  }

  /** The file's bytes, with Range, and the next fault queued for its path. */
  #bytes(req: IncomingMessage, res: ServerResponse, file: HubFile, headers: Record<string, string>): void {
    const fault = this.faults.get(file.path)?.shift();
    if (fault === '503') {
      refuse(res, 503, 'ServiceUnavailable', 'try again later');
      return;
    }
    const size = file.bytes.length;
    const range = fault === 'no-range' ? null : /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (range && start >= size) {
      res.writeHead(416, { 'Content-Range': `bytes */${size}` });
      res.end();
      return;
    }
    let body = file.bytes.subarray(start, end + 1);
    if (fault === 'corrupt') {
      body = Buffer.from(body);
      body[body.length >> 1] ^= 0xff;
    }
    res.writeHead(range ? 206 : 200, {
      ...headers,
      ...(fault === 'no-range' ? {} : { 'Accept-Ranges': 'bytes' }),
      'Content-Type': 'application/octet-stream',
      'Content-Length': body.length,
      ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
    });
    if (fault === 'cut') {
      res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
      return;
    }
    if (fault === 'slow') {
      const step = Math.max(1, body.length >> 3);
      let at = 0;
      const timer = setInterval(() => {
        res.write(body.subarray(at, at + step));
        at += step;
        if (at >= body.length) {
          clearInterval(timer);
          res.end();
        }
      }, this.slowStepMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.end(body);
  }
}
