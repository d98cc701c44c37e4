// One replica of the users API on Express whose permissions come from an OPA bundle, not from a
// local file: it polls BUNDLE_URL, verifies, activates and persists each new revision, and sends
// its decisions to DECISION_LOG_URL in OPA's decision-log format when that is set.
//   BUNDLE_URL          the bundle to poll (required)
//   PORT                default 0 (a free port); the first line printed is `listening <url>`
//   PERSIST_DIR         where the last good bundle is kept for a restart without the server
//   VERIFICATION_KEY    a PEM public key file: only bundles signed with it (VERIFICATION_ALG, default RS256) are activated
//   MIN_DELAY, MAX_DELAY  polling bounds in seconds (default 1 and 2, for a demo)
//   MAX_AGE             seconds without a successful check before guarded requests get 503
//   DECISION_LOG_URL    a collector of OPA decision logs (POST of gzip JSON batches)
//   CANDIDATE_URL       a candidate bundle (verified as BUNDLE_URL is) that shadows the active one:
//                       it decides every request too, after the answer, and /fleet/status shows
//                       where it would answer otherwise (`shadow`, from shadowStatus())
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JWT } from '../demo-jwt.mjs';
import { usersRoutes } from '../users-api/express-routes.mjs';

const require = createRequire(import.meta.url);
const express = require('express');
const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');
const { bundleConsumer, createDecisionLogUploader } = require('svcgate/fleet');

const HERE = dirname(fileURLToPath(import.meta.url));
const env = process.env;
if (!env.BUNDLE_URL) throw new Error('BUNDLE_URL is required: the URL of the bundle to poll');
const number = (value, fallback) => (value === undefined || value === '' ? fallback : Number(value));

const logs = env.DECISION_LOG_URL ? createDecisionLogUploader({ url: env.DECISION_LOG_URL, minDelaySeconds: 1, maxDelaySeconds: 1, labels: { replica: String(process.pid) } }) : undefined;
const polling = { minDelaySeconds: number(env.MIN_DELAY, 1), maxDelaySeconds: number(env.MAX_DELAY, 2) };
const verification = env.VERIFICATION_KEY ? { key: readFileSync(env.VERIFICATION_KEY, 'utf8'), algorithm: env.VERIFICATION_ALG ?? 'RS256' } : undefined;
const policy = bundleConsumer({
  url: env.BUNDLE_URL,
  polling,
  persistDir: env.PERSIST_DIR || undefined,
  maxAgeSeconds: env.MAX_AGE ? Number(env.MAX_AGE) : undefined,
  verification,
});
// Polled and verified like the active bundle, but not persisted: it never answers a request.
const candidate = env.CANDIDATE_URL ? bundleConsumer({ url: env.CANDIDATE_URL, name: 'candidate', polling, verification }) : undefined;

const app = express();
// Probes and the fleet view come before the guard: they are the operator's, not the API's.
app.get('/healthz', policy.health);
const guard = bearerJwtAcl({ openapi: join(HERE, '../users-api/openapi.yaml'), handler: bearerJwt(JWT), policy: { bearerAuth: policy }, decisionLog: logs?.log, ...(candidate ? { shadow: { source: candidate } } : {}) });
app.get('/fleet/status', (_req, res) => res.json({ pid: process.pid, bundle: policy.status(), candidate: candidate?.status(), shadow: guard.shadowStatus(), decisionLogs: logs?.status() }));
app.use(guard);
usersRoutes(app);
app.use((req, res) => res.status(404).json({ error: 'NotFound', message: `no route ${req.method} ${req.path}` }));

const server = app.listen(number(env.PORT, 0), '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, async () => {
    policy.close();
    candidate?.close();
    server.close();
    await logs?.close();
    process.exit(0);
  });
}
