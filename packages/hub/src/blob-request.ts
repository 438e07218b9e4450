// One GET of a blob's bytes through undici's dispatcher, its body handed to a sink chunk by chunk as the
// socket brings it. Not fetch: its web stream costs about twice the CPU per GB (scripts/bench/pull-drain.mjs).
// Not a Node stream either: a stream that fails drops what it holds, and the bytes received before a cut
// must reach the `.incomplete` file so that the next try resumes after them.
import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { USER_AGENT } from './user-agent.js';

/** Takes one chunk; a promise when the sender must wait for it (the socket is paused meanwhile). */
export type ChunkSink = (chunk: Buffer) => Promise<void> | undefined;

// pools of its own: a global dispatcher may be another undici's (Node 22's fetch is undici 6)
let direct: Agent | undefined;
let proxied: EnvHttpProxyAgent | undefined;

/** Through HTTP_PROXY / HTTPS_PROXY (NO_PROXY excepted) when NODE_USE_ENV_PROXY=1 or --use-env-proxy, as Node's own fetch goes then. */
function dispatcher(): Dispatcher {
  if (process.env.NODE_USE_ENV_PROXY === '1' || process.execArgv.includes('--use-env-proxy')) {
    proxied ??= new EnvHttpProxyAgent();
    return proxied;
  }
  direct ??= new Agent();
  return direct;
}

export class BlobResponse {
  readonly #controller: Dispatcher.DispatchController;
  readonly #queue: Buffer[] = [];
  #sink: ChunkSink | undefined;
  #waiting = false;
  #ended = false;
  #failure: Error | undefined;
  #settle: { done: () => void; fail: (err: Error) => void } | undefined;

  constructor(
    controller: Dispatcher.DispatchController,
    readonly status: number,
    private readonly headers: Record<string, string | string[] | undefined>,
  ) {
    this.#controller = controller;
  }

  header(name: string): string | undefined {
    const value = this.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  /** Hands every chunk to `sink`; settles once the body ended or failed and each chunk that came before was taken. */
  pipeTo(sink: ChunkSink): Promise<void> {
    if (this.#sink) throw new Error('a blob body is read once');
    this.#sink = sink;
    const settled = new Promise<void>((done, fail) => {
      this.#settle = { done, fail };
    });
    this.#drain();
    return settled;
  }

  /** Reads the body to its end and drops it, so that the connection can be used again. */
  discard(): Promise<void> {
    return this.pipeTo(() => undefined).catch(() => {});
  }

  /** Closes the connection without reading the body. */
  cancel(): void {
    this.#sinkFailed(new Error('the body was not read'));
  }

  /** From the dispatcher: the next chunk. */
  received(chunk: Buffer): void {
    this.#queue.push(chunk);
    this.#drain();
  }

  /** From the dispatcher: the body ended, or failed with `err`. */
  finished(err?: Error): void {
    this.#ended = true;
    this.#failure = err;
    this.#drain();
  }

  #drain(): void {
    const sink = this.#sink;
    if (!sink) {
      if (this.#queue.length > 0) this.#controller.pause();
      return;
    }
    while (!this.#waiting && this.#queue.length > 0) {
      const chunk = this.#queue.shift() as Buffer;
      let wait: Promise<void> | undefined;
      try {
        wait = sink(chunk);
      } catch (err) {
        this.#sinkFailed(err);
        return;
      }
      if (wait) {
        this.#waiting = true;
        this.#controller.pause();
        wait.then(
          () => {
            this.#waiting = false;
            this.#drain();
          },
          (err: unknown) => this.#sinkFailed(err),
        );
      }
    }
    if (this.#waiting) return;
    if (!this.#ended) {
      this.#controller.resume();
      return;
    }
    if (this.#failure) this.#settle?.fail(this.#failure);
    else this.#settle?.done();
    this.#settle = undefined;
  }

  #sinkFailed(err: unknown): void {
    const failure = err instanceof Error ? err : new Error(String(err));
    this.#queue.length = 0;
    this.#waiting = true;
    if (!this.#ended) this.#controller.abort(failure);
    this.#settle?.fail(failure);
    this.#settle = undefined;
  }
}

/** The status and headers of a GET of `url` (jepa's User-Agent unless `headers` names another); redirects are not followed. */
export function getBlob(url: string | URL, headers: Record<string, string>): Promise<BlobResponse> {
  const { origin, pathname, search } = new URL(url);
  const named = Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent');
  const sent = named ? headers : { 'user-agent': USER_AGENT, ...headers };
  return new Promise((answered, refused) => {
    let response: BlobResponse | undefined;
    dispatcher().dispatch(
      { origin, path: pathname + search, method: 'GET', headers: sent },
      {
        // its presence tells undici that this handler takes a controller
        onRequestStart() {},
        onResponseStart(controller, status, responseHeaders) {
          if (status < 200) return;
          response = new BlobResponse(controller, status, responseHeaders);
          answered(response);
        },
        onResponseData(_controller, chunk) {
          response?.received(chunk);
        },
        onResponseEnd() {
          response?.finished();
        },
        onResponseError(_controller, err) {
          if (response) response.finished(err);
          else refused(err);
        },
      },
    );
  });
}
