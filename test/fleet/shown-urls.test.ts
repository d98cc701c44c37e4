import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, type DecisionLogEvent } from '../../src/auth';
import { createDecisionLogUploader, remoteOpa, type BundleConsumer } from '../../src/fleet';
import { BundleServer } from '../helpers/bundle-server';
import { EXAMPLE_OPENAPI, exampleBundle, exampleData } from '../helpers/bundles';
import { listen } from '../helpers/listen';
import { expectNoUrlSecret, presigned } from '../helpers/presigned-url';
import { HS256, token } from '../helpers/tokens';
import { watchedConsumer } from '../helpers/watched-consumer';

// SPEC 9.4: a URL is shown with no user, password, query or fragment, in the status, the health
// answer, events, errors, warnings and decision logs. The requests themselves still use it whole.

const consumers: BundleConsumer[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  jest.restoreAllMocks();
  for (const consumer of consumers.splice(0)) consumer.close();
  for (const close of closers.splice(0)) await close();
});

/** The warnings' messages, as process.emitWarning is called (jest's sandboxed process gets no 'warning' events). */
function warnings(): { texts: string[] } {
  const texts: string[] = [];
  jest.spyOn(process, 'emitWarning').mockImplementation((warning: string | Error) => void texts.push(typeof warning === 'string' ? warning : warning.message));
  return { texts };
}

test('bundleConsumer: a presigned bundle URL is used whole but shown bare in status, health, events and errors', async () => {
  const server = new BundleServer();
  await server.start();
  closers.push(() => server.dispose());
  const url = server.url('bundle.tar.gz');
  const { policy, events, next } = watchedConsumer({ url: presigned(url) }, consumers);
  const app = express();
  app.get('/readyz', policy.health);

  // Nothing published yet: 404, in lastError and the failed event.
  const failed = await next('failed');
  expect(failed.error.message).toBe(`${url} answered 404, not 200`);
  const health = await request(app).get('/readyz');
  expect(health.status).toBe(503);
  expectNoUrlSecret(health.text);
  expect(health.body.url).toBe(url);

  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  expect((await next('activated')).status).toMatchObject({ url, revision: 'v1' });
  await server.stop();
  expect((await next('failed')).error.message).toBe(`${url} cannot be reached (ECONNREFUSED)`);
  expectNoUrlSecret(JSON.stringify([events, policy.status(), (await request(app).get('/readyz')).text]));
});

test('decision-log uploader: a collector URL with a token in its query is not shown in lastError', async () => {
  const collector = await listen((_req, res) => {
    res.statusCode = 500;
    res.end();
  });
  closers.push(collector.close);
  const uploader = createDecisionLogUploader({ url: presigned(`${collector.url}/logs`), minDelaySeconds: 60, maxDelaySeconds: 60 });
  closers.push(async () => {
    await uploader.close().catch(() => undefined);
  });
  uploader.log({ decision_id: '1' });
  await uploader.flush();
  const { lastError } = uploader.status();
  expect(lastError?.message).toBe(`${collector.url}/logs answered 500`);
  expectNoUrlSecret(JSON.stringify(uploader.status()));
});

test('remoteOpa: the OPA URL is shown bare in its warning and in the decision logs', async () => {
  let answerData = false;
  const opa = express();
  opa.get('/v1/data/svcgate/acl', (_req, res) => (answerData ? res.json({ result: exampleData() }) : res.status(404).json({})));
  opa.post('/v1/data/svcgate/authz/decision', (_req, res) => res.json({ result: { allow: false, attributes: [], role: 'user', possession: null, scopes: [], reasons: ['no'] } }));
  const served = await listen(opa);
  closers.push(served.close);
  const base = `http://127.0.0.1:${(served.server.address() as AddressInfo).port}/`;
  const seen = warnings();
  const logged: DecisionLogEvent[] = [];
  const app = express();
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), policy: { bearerAuth: remoteOpa({ url: presigned(base), checkIntervalSeconds: 0.05 }) }, decisionLog: (event) => logged.push(event) }));
  app.use((_req, res) => res.json({ ok: true }));
  const jwt = await token({ role: 'user', userId: 1 });
  let answer = await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${jwt}`);
  for (let i = 0; i < 200 && !seen.texts.some((text) => text.startsWith('remoteOpa ')); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const warning = seen.texts.find((text) => text.startsWith('remoteOpa '));
  expect(warning).toBe(`remoteOpa ${base}: OPA answered 404 for data.svcgate.acl`);
  expectNoUrlSecret(answer.text);

  answerData = true;
  for (let i = 0; i < 200 && (answer.status === 503 || logged.length === 0); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    answer = await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${jwt}`);
  }
  expect(answer.status).toBe(403);
  expect(logged.at(-1)).toMatchObject({ policy_revision: `opa:${base}` });
  expectNoUrlSecret(JSON.stringify(logged));
});
