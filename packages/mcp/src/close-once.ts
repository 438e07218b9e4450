// The stdio server's one shutdown: stdin's end, stdin's close and the transport's onclose all ask for it.

/** What close-once shuts, in order: the protocol (and its transport), then the models. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * A close that runs once however often and however re-entrantly it is asked. The promise is kept
 * before any of the work starts: `server.close()` closes the transport, whose onclose asks again
 * synchronously, and a promise assigned only after that first step would start a second close, which
 * asks again, until the stack overflows.
 */
export function closeOnce(server: Closable, engine: Closable): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= Promise.resolve().then(async () => {
      await server.close().catch(() => {});
      await engine.close();
    });
    return closing;
  };
}
