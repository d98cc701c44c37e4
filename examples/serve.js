// `make run`: the example users API on 127.0.0.1:3000, guarded by the svcgate policy engine.
// Library A (issue #3) will replace the small guard below with bearerJwtAcl and @oas-tools/core;
// until then it shows the engine's one road: request -> input -> evaluator -> decision -> response.
'use strict';
const { join } = require('node:path');
const express = require('express');
const { SignJWT, jwtVerify } = require('jose');
const { compileAcl, createOperationMatcher, decide, Evaluator } = require('svcgate/policy');

const HOST = '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const BASE = '/api/v1';
const ISSUER = 'svcgate-example';
const SECRET = new TextEncoder().encode('example-secret-of-at-least-32-bytes!!');

const users = new Map([1, 2, 3, 4, 5].map((id) => [id, { id, name: `user ${id}`, email: `u${id}@example.test`, password: 'secret' }]));

function guard(evaluator) {
  const match = createOperationMatcher(evaluator.data.operations);
  return async (req, res, next) => {
    const found = match(req.method, req.path);
    if (!found) return res.status(404).json({ error: 'NotFound', message: `no operation for ${req.method} ${req.path}` });
    if (!found.operation.secured) return next();
    const header = req.get('authorization');
    let payload;
    if (header !== undefined) {
      const token = /^Bearer +(\S+)$/i.exec(header)?.[1];
      try {
        if (!token) throw new Error('not a bearer token');
        payload = (await jwtVerify(token, SECRET, { issuer: ISSUER, algorithms: ['HS256'] })).payload;
      } catch {
        res.set('WWW-Authenticate', 'Bearer error="invalid_token"');
        return res.status(401).json({ error: 'Unauthorized', message: 'invalid bearer token' });
      }
    }
    const query = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    const { decision } = await decide(evaluator, found.key, found.operation, { pathParams: found.pathParams, query, headers: req.headers }, payload);
    if (!decision.allow) return res.status(403).json({ error: 'Forbidden', message: decision.reasons.join('; ') });
    res.locals.decision = decision;
    next();
  };
}

function routes() {
  const router = express.Router();
  router.get('/status', (_req, res) => res.json({ status: 'ok' }));
  router.get('/users', (_req, res) => res.json([...users.values()].map(({ password, ...user }) => user)));
  router.post('/users', express.json(), (req, res) => res.status(201).json({ id: users.size + 1, ...req.body }));
  router.get('/users/:userId', (req, res) => {
    const user = users.get(Number(req.params.userId));
    if (!user) return res.status(404).json({ error: 'NotFound', message: 'no such user' });
    const { password, ...visible } = user;
    res.json(visible);
  });
  router.put('/users/:userId', express.json(), (req, res) => res.json({ id: Number(req.params.userId), ...req.body }));
  router.delete('/users/:userId', (_req, res) => res.status(204).end());
  router.get('/accounts/:accountId', (req, res) => res.json({ id: req.params.accountId, balance: 100 }));
  return router;
}

async function main() {
  const data = compileAcl({ openapi: join(__dirname, 'users-api/openapi.yaml'), acl: join(__dirname, 'users-api/permissions.yaml') });
  const evaluator = await Evaluator.create(data);
  const app = express();
  app.use(BASE, guard(evaluator), routes());
  const server = app.listen(PORT, HOST, async () => {
    const sign = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setIssuedAt().setExpirationTime('12h').sign(SECRET);
    const user = await sign({ sub: 'u1', role: 'user', userId: [1, 3, 5], accounts: ['acc-1'] });
    const admin = await sign({ sub: 'a1', role: 'admin', userId: 2 });
    const url = `http://${HOST}:${server.address().port}${BASE}`;
    console.log(`svcgate example API on ${url} (data revision ${data.revision})\n`);
    console.log('# a user who owns users 1, 3 and 5 (200), but not 2 (403):');
    console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/users/3`);
    console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/users/2`);
    console.log('# an admin reads any user (200) and lists them all (200):');
    console.log(`curl -i -H 'Authorization: Bearer ${admin}' ${url}/users/4`);
    console.log(`curl -i -H 'Authorization: Bearer ${admin}' ${url}/users`);
    console.log('# no token: a public operation (200), a guarded one (403), a bad token (401):');
    console.log(`curl -i ${url}/status`);
    console.log(`curl -i ${url}/users/1`);
    console.log(`curl -i -H 'Authorization: Bearer not.a.token' ${url}/users/1`);
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
