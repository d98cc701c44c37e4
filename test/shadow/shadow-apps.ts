import type { Server } from 'node:http';
import express from 'express';
import { bearerJwt, bearerJwtAcl, type BearerJwtAclMiddleware, type BearerJwtAclOptions, type ShadowStatus } from '../../src/auth';
import { EXAMPLE_OPENAPI } from '../helpers/bundles';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

/** The example API guarded by bearerJwtAcl, served on 127.0.0.1; its handler answers what the decision lets the caller see. */
export interface ShadowApp {
  url: string;
  guard: BearerJwtAclMiddleware;
  server: Server;
  close(): Promise<void>;
}

/** A user record with every field, so that an answer shows which attributes the active decision granted. */
const RECORD = { id: 1, name: 'Ada', email: 'ada@example.test', password: 'secret' };

/** `host`: Express 5 (the default) or 4 (`express4`). */
/** `handler` runs after the guard, before the one that answers; `before` before the guard. */
export async function shadowApp(options: Partial<BearerJwtAclOptions>, host: () => unknown = express, handler?: express.RequestHandler, before?: express.RequestHandler): Promise<ShadowApp> {
  const guard = bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), ...options } as BearerJwtAclOptions);
  const app = host() as express.Express;
  if (before) app.use(before);
  app.use(guard);
  if (handler) app.use(handler);
  app.use((req, res) => {
    const auth = (req as express.Request & { auth?: { filter: <T>(value: T) => T; list?: unknown } }).auth;
    res.setHeader('x-handler', 'ran');
    res.json({ record: auth?.filter(RECORD) ?? null, ...(auth?.list === undefined ? {} : { list: auth.list }) });
  });
  const { url, server, close } = await listen(app);
  return {
    url,
    guard,
    server,
    close: async () => {
      server.closeAllConnections();
      await close();
    },
  };
}

/** One request of a sequence: method, path (below /api/v1), and the token's claims (undefined: no Authorization; a string: that header). */
export interface Call {
  method: string;
  path: string;
  claims?: Record<string, unknown> | string;
}

/** What a client sees of an answer: status, body and the headers that carry meaning. */
export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | null>;
}

const HEADERS = ['content-type', 'www-authenticate', 'retry-after', 'cache-control', 'x-handler', 'etag'];

/** `prefix`: the document's server path (the example API's `/api/v1`; '' for a document without servers). */
export async function send(base: string, call: Call, prefix = '/api/v1'): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (typeof call.claims === 'string') headers.authorization = call.claims;
  else if (call.claims !== undefined) headers.authorization = `Bearer ${await token(call.claims)}`;
  const answer = await fetch(`${base}${prefix}${call.path}`, { method: call.method, headers });
  return { status: answer.status, body: await answer.text(), headers: Object.fromEntries(HEADERS.map((name) => [name, answer.headers.get(name)])) };
}

/** Waits (polling, with a deadline) until `done` holds for the shadow's status; returns that status. */
export async function shadowSettled(guard: BearerJwtAclMiddleware, done: (status: ShadowStatus) => boolean, timeoutMs = 10_000): Promise<ShadowStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = guard.shadowStatus()!;
    if (done(status)) return status;
    if (Date.now() > deadline) throw new Error(`the shadow did not settle: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Candidate decisions counted one way or another: compared, unavailable or failed. */
export const decided = (status: ShadowStatus) => status.compared + status.unavailable + status.errors;

/** A sampled request is decided after its answer closes: this many must have been decided (or skipped as busy). */
export const decidedAtLeast = (count: number) => (status: ShadowStatus) => decided(status) + status.skipped.busy >= count;
