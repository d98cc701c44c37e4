// A server whose ACL comes from a bundle, for activation-stall.mjs: `node activation-server.mjs
// <example|large>` with BUNDLE_URL and BUNDLE_KEY (the ES256 public key, PEM) set; prints "PORT <n>", then one JSON line per bundle event
// with the longest event-loop stall since the previous event (a 1 ms timer's worst lateness) and,
// for an activation, how long its download and the activation after it took.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { largeApi } from './large-acl.mjs';
import { JWT } from './tokens.mjs';

const require = createRequire(import.meta.url);
const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');
const { bundleConsumer } = require('svcgate/fleet');
const HERE = dirname(fileURLToPath(import.meta.url));

const size = process.argv[2];
const [openapi, scheme] = size === 'large' ? [largeApi().openapi, 'b'] : [join(HERE, '../examples/users-api/openapi.yaml'), 'bearerAuth'];

// The worst lateness of a 1 ms timer: how long the loop could not run anything else.
let worst = 0;
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  worst = Math.max(worst, now - last - 1);
  last = now;
}, 1).unref();

const policy = bundleConsumer({
  url: process.env.BUNDLE_URL,
  polling: { minDelaySeconds: 0.5, maxDelaySeconds: 0.5 },
  verification: { key: process.env.BUNDLE_KEY, algorithm: 'ES256' },
  onUpdate: (event) => {
    const status = event.status;
    const at = (name) => Date.parse(status[name]);
    const [downloadMs, activationMs] = event.type === 'activated' ? [at('lastSuccessfulDownload') - at('lastRequest'), at('lastSuccessfulActivation') - at('lastSuccessfulDownload')] : [];
    console.log(JSON.stringify({ type: event.type, revision: status.revision, worstStallMs: worst, downloadMs, activationMs, error: status.lastError }));
    worst = 0;
  },
});
const express = require('express');
const app = express();
app.use(bearerJwtAcl({ openapi, handler: bearerJwt(JWT), policy: { [scheme]: policy } }));
app.get('*path', (_req, res) => res.json({ ok: true }));
// Listening first: the consumer's own sockets and timers do not keep a process alive.
const server = app.listen(0, '127.0.0.1');
await policy.ready();
console.log(`PORT ${server.address().port}`);
