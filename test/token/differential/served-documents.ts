import { closeNow, listen } from '../../helpers/listen';

/**
 * JSON documents (JWK sets, issuer metadata) served on 127.0.0.1 over real HTTP, each at its own
 * path and fixed once served: what svcgate's fetched sets and jose's createRemoteJWKSet both read.
 */
export interface ServedDocuments {
  /** Serves `body` (text, so that it may be any JSON, or none) at `path`; returns its URL. */
  serve(path: string, body: string): string;
  /** The requests answered per path, to show that each set was fetched as expected. */
  readonly fetches: ReadonlyMap<string, number>;
  readonly url: string;
  close(): Promise<void>;
}

export async function serveDocuments(): Promise<ServedDocuments> {
  const documents = new Map<string, string>();
  const fetches = new Map<string, number>();
  const { url, server } = await listen((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const body = documents.get(path);
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  return {
    url,
    fetches,
    serve(path, body) {
      if (documents.has(path)) throw new Error(`${path} is served already (a served document stays fixed)`);
      documents.set(path, body);
      return `${url}${path}`;
    },
    close: () => closeNow(server),
  };
}
