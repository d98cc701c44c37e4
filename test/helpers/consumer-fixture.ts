import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import type { BundleConsumer, BundleConsumerOptions } from '../../src/fleet';
import { BundleServer } from './bundle-server';
import { EXAMPLE_OPENAPI, type Permissions } from './bundles';
import { HS256, token } from './tokens';
import { watchedConsumer, type WatchedConsumer } from './watched-consumer';

export interface ConsumerFixture {
  /** This test's bundle server (express.static, with ETags). */
  readonly server: BundleServer;
  /** A watched consumer of the server's bundle.tar.gz; `defaults`, then `options`. */
  consumer(options?: Partial<BundleConsumerOptions>): WatchedConsumer;
  /** A folder removed after the test, e.g. a persistDir. */
  tempDir(): string;
}

/** Registers beforeEach/afterEach: a new bundle server for each test; after it, consumers closed and folders removed. */
export function consumerFixture(defaults: Partial<BundleConsumerOptions> = {}): ConsumerFixture {
  let server: BundleServer | undefined;
  const consumers: BundleConsumer[] = [];
  const folders: string[] = [];
  beforeEach(async () => {
    server = new BundleServer();
    await server.start();
  });
  afterEach(async () => {
    for (const consumer of consumers.splice(0)) consumer.close();
    await server?.dispose();
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const fixture: ConsumerFixture = {
    get server() {
      if (server === undefined) throw new Error('the bundle server exists only inside a test');
      return server;
    },
    consumer: (options = {}) => watchedConsumer({ url: fixture.server.url('bundle.tar.gz'), ...defaults, ...options }, consumers),
    tempDir: () => {
      const dir = mkdtempSync(join(tmpdir(), 'svcgate-consumer-'));
      folders.push(dir);
      return dir;
    },
  };
  return fixture;
}

/** A later revision that takes `read:own` on users away from the user role: the owner's 200 becomes 403. */
export const withoutUserRead = (permissions: Permissions) => {
  delete permissions.user!['/users/{userId}']!['read:own'];
};

/** The example API guarded by `policy`, for requests with supertest. */
export function guardedByConsumer(policy: BundleConsumer): express.Express {
  const app = express();
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), policy: { bearerAuth: policy } }));
  app.use((_req, res) => res.json({ ok: true }));
  return app;
}

/** The owner reading their own user through `policy`: 200 with the example permissions, 403 after withoutUserRead, 503 when nothing decides. */
export async function ownerRead(policy: BundleConsumer | express.Express): Promise<number> {
  const app = typeof policy === 'function' ? policy : guardedByConsumer(policy);
  const answer = await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${await token({ role: 'user', userId: 1 })}`);
  return answer.status;
}
