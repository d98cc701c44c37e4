import { Agent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { peerExpress } from '../hosts/express/peer-express';
import { bearerJwtAcl } from '../hosts/express/express-acl';
import type { DecisionLogEvent } from '../guard/decision-log';
import type { Decision } from '../policy/evaluate/evaluator';
import type { BearerJwtHandler } from '../token/bearer-jwt';
import type { SuiteGuardOptions, SuiteRequest } from './permission-suite-types';

/** Past this a request is given up on: the suite fails with an error instead of hanging CI. */
const ANSWER_TIMEOUT_MS = 30_000;
/** The most of an answer's body read for its message; the guard's answers are far smaller. */
const MAX_BODY_BYTES = 64 * 1024;

export interface GuardedAppOptions {
  openapi: string | Record<string, unknown>;
  acl: string | Record<string, unknown>;
  /** The bearer scheme the ACL is for. */
  scheme: string;
  /** bearerJwtAcl's options from the suite. */
  guard: Omit<SuiteGuardOptions, 'scheme'>;
  handler: BearerJwtHandler;
}

/** What the app answered one request, and what the guard decided on the way. */
export interface Answer {
  status: number;
  /** The decision the route handler received (`req.auth.decision`): set only when the guard let the request through. */
  passed: Decision | undefined;
  /** The guard's last decision-log event for the request (none for a 400 or 404 answered before any decision). */
  logged: DecisionLogEvent | undefined;
  /** The answer body's message (`message`, `detail` or `error` of a JSON body, else its text), for a deny the log did not explain. */
  message: string | undefined;
}

export interface SuiteServer {
  /** Sends one request, with `Authorization: Bearer <token>` when a token is given; one at a time. */
  send(request: SuiteRequest, token: string | undefined): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * The app a suite's cases are sent to: express.json() (as an app whose body parameters are owned
 * needs), bearerJwtAcl with the suite's document, ACL and options, and a route after it that
 * answers 200 with the granted attributes. It serves on 127.0.0.1 and a port of the system's choice.
 */
export async function serveGuardedApp(options: GuardedAppOptions): Promise<SuiteServer> {
  let passed: Decision | undefined;
  let logged: DecisionLogEvent | undefined;
  const express = peerExpress<typeof import('express')>('A permission suite (svcgate test, runPermissionSuite)');
  const app = express();
  app.use(express.json());
  app.use(
    bearerJwtAcl({
      openapi: options.openapi,
      acl: { [options.scheme]: options.acl },
      handler: options.handler,
      ...options.guard,
      // Only the bodies change with it (not the statuses): the answer then says why, whatever NODE_ENV is.
      exposeReasons: true,
      decisionLog: (event) => (logged = event),
    }),
  );
  app.use((req: Request, res: Response) => {
    passed = req.auth?.decision;
    res.status(200).json({ attributes: passed?.attributes ?? [] });
  });
  // An error passed on (a body that is not JSON; an adapter told to hand its errors to the app) is answered as Express would, without its stack page.
  app.use((error: { status?: unknown; statusCode?: unknown; message?: unknown }, _req: Request, res: Response, _next: NextFunction) => {
    const status = [error.status, error.statusCode].find((code): code is number => Number.isInteger(code) && (code as number) >= 400 && (code as number) < 600) ?? 500;
    res.status(status).json({ message: typeof error.message === 'string' ? error.message : 'error' });
  });

  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  return {
    async send(request, token) {
      passed = undefined;
      logged = undefined;
      const { status, body } = await exchange(port, agent, request, token);
      return { status, passed, logged, message: messageOf(body) };
    },
    close: () => closeServer(server, agent),
  };
}

function exchange(port: number, agent: Agent, request: SuiteRequest, token: string | undefined): Promise<{ status: number; body: string }> {
  const payload = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const headers: OutgoingHttpHeaders = {
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...(payload === undefined ? {} : { 'content-type': typeof request.body === 'string' ? 'text/plain' : 'application/json', 'content-length': Buffer.byteLength(payload) }),
    // The suite's own headers come last: they may replace the token or the content type.
    ...request.headers,
  };
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, agent, method: request.method, path: request.path, headers }, (res) => readBody(res).then((body) => resolve({ status: res.statusCode ?? 0, body }), reject));
    sent.setTimeout(ANSWER_TIMEOUT_MS, () => sent.destroy(new Error(`no answer to ${request.method} ${request.path} within ${ANSWER_TIMEOUT_MS / 1000} s`)));
    sent.on('error', reject);
    sent.end(payload);
  });
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (size < MAX_BODY_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8').slice(0, MAX_BODY_BYTES)));
    res.on('error', reject);
  });
}

function messageOf(body: string): string | undefined {
  if (body === '') return undefined;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const text = [parsed.message, parsed.detail, parsed.error].find((value) => typeof value === 'string' && value !== '');
    if (typeof text === 'string') return text;
  } catch {
    // Not JSON: the text itself.
  }
  return body.slice(0, 200);
}

function closeServer(server: Server, agent: Agent): Promise<void> {
  agent.destroy();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
