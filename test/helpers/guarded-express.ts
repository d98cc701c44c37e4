import type { RequestListener } from 'node:http';
import { bearerJwtAcl, type BearerJwtAclOptions } from '../../src/auth';
import { listen } from './listen';

export type ExpressApp = { use: (...args: unknown[]) => void };

export const express4 = require('express4') as () => ExpressApp;
export const express5 = require('express') as () => ExpressApp;
/** Express 4 and 5, for tests that run on both. */
export const EXPRESS_VERSIONS: [string, () => ExpressApp][] = [
  ['Express 4', express4],
  ['Express 5', express5],
];

/** An app of `express` behind bearerJwtAcl whose one handler answers 200 and records each path it served in `ran`. */
export async function serveGuarded(express: () => ExpressApp, options: BearerJwtAclOptions) {
  const ran: string[] = [];
  const app = express();
  app.use(bearerJwtAcl(options));
  app.use((req: { path: string }, res: { json: (body: unknown) => void }) => {
    ran.push(req.path);
    res.json({ ok: true });
  });
  return { ran, ...(await listen(app as unknown as RequestListener)) };
}
