// One benchmark scenario per process (the @oas-tools/core chain is module state, and a server must
// not share its event loop with the load generator). Usage: node server.mjs <scenario>; prints
// "PORT <n>" once listening on 127.0.0.1.
import { createHmac, createPublicKey, createSecretKey, timingSafeEqual, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boundedLog, withoutUserReadOwn } from './shadow-fixtures.mjs';
import { JWT } from './tokens.mjs';

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));
const EXAMPLE = join(HERE, '../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const ACL = { bearerAuth: join(EXAMPLE, 'permissions.yaml') };
const user = (id) => ({ id, name: `user ${id}`, email: `u${id}@example.test`, password: 'secret' });

class UserService {
  getUser({ userId }) {
    return user(Number(userId));
  }
}

const scenarios = {
  // The guard's twins: the same route, bare and guarded.
  'express-bare': () => {
    const app = require('express')();
    app.get('/api/v1/users/:userId', (req, res) => res.json(user(Number(req.params.userId))));
    return app;
  },
  'express-acl': () => {
    const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');
    const app = require('express')();
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(JWT), acl: ACL }));
    app.get('/api/v1/users/:userId', (req, res) => res.json(req.auth.filter(user(Number(req.params.userId)))));
    return app;
  },
  // The shadow bench's twins (shadow.mjs): the guarded route with a decisionLog, and the same with
  // `shadow` at BENCH_SHADOW_RATE (unset: no shadow), whose candidate revokes the user role's
  // read:own on /users/{userId}, so that every allowed request diverges (narrowed) and is logged.
  // BENCH_SHADOW_CANDIDATE=active: the candidate is the active declaration (compared, never diverging).
  'express-acl-logged': () => {
    const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');
    const app = require('express')();
    const log = boundedLog();
    const rate = process.env.BENCH_SHADOW_RATE;
    const shadow = rate === undefined ? {} : { shadow: { source: { bearerAuth: process.env.BENCH_SHADOW_CANDIDATE === 'active' ? ACL.bearerAuth : withoutUserReadOwn(ACL.bearerAuth) }, sampleRate: Number(rate) } };
    const guard = bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(JWT), acl: ACL, decisionLog: log.push, ...shadow });
    // Before the guard, in both twins alike: what was logged and compared, for the bench to print.
    app.get('/bench/shadow', (req, res) => res.json({ logged: log.count(), divergencesLogged: log.divergences(), shadow: guard.shadowStatus() }));
    app.use(guard);
    app.get('/api/v1/users/:userId', (req, res) => res.json(req.auth.filter(user(Number(req.params.userId)))));
    return app;
  },
  // The same route with an asymmetric algorithm's keys from a JWK set (BENCH_JWKS_URL), and no
  // caches, so that every request pays the signature check and an evaluation (BENCH_CACHES=on:
  // both caches at their defaults, the warm twin of the same tokens).
  'express-acl-signed': () => {
    const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');
    const app = require('express')();
    const warm = process.env.BENCH_CACHES === 'on';
    const handler = bearerJwt({ issuer: JWT.issuer, audience: JWT.audience, jwks: process.env.BENCH_JWKS_URL, algorithms: [process.env.BENCH_ALG], ...(warm ? {} : { cache: false }) });
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler, acl: ACL, ...(warm ? {} : { decisionCacheSize: 0 }) }));
    app.get('/api/v1/users/:userId', (req, res) => res.json(req.auth.filter(user(Number(req.params.userId)))));
    return app;
  },
  // The same route deciding through an OPA server (sidecar.mjs starts it and sets OPA_URL);
  // SIDECAR_CACHE=0 turns the decision cache off, so that every request asks OPA.
  'express-sidecar': () => {
    const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');
    const { remoteOpa } = require('svcgate/fleet');
    const app = require('express')();
    const policy = remoteOpa({ url: process.env.OPA_URL, decisionCacheSize: Number(process.env.SIDECAR_CACHE ?? 10_000) });
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(JWT), policy: { bearerAuth: policy } }));
    app.get('/api/v1/users/:userId', (req, res) => res.json(req.auth.filter(user(Number(req.params.userId)))));
    return app;
  },
  'oas-bare': () => oasTools('none'),
  // The host's own share: its security step with a handler that verifies nothing, and no ACL.
  'oas-security': () => oasTools('security'),
  'oas-acl': () => oasTools('acl'),
  // The host's own deny path: the same security step and a middleware plugged in through use(), as
  // BearerJWT is, that hands every other request to the host's error handler as a deny with the
  // name and message of BearerJWT's, which the host answers 403. What answering the same share of
  // denies costs the host itself, with no svcgate code.
  'oas-deny-half': () => oasTools('deny-half'),
  // SvcApi's twins: a hand-written route, the same method through SvcApi, and with svcAcl.
  handwritten: () => {
    const app = require('express')();
    const service = new UserService();
    app.get('/api/user-service/get-user', (req, res) => res.json(service.getUser(req.query)));
    return app;
  },
  svcapi: () => svcApi(false),
  'svcapi-acl': () => svcApi(true),
  // The load generator's own limit: a server that answers without work (no Express, no routing).
  'trivial-http': () => {
    const body = JSON.stringify(user(1));
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    return createServer((req, res) => res.writeHead(200, headers).end(body));
  },
  // The floor and the peers (docs/performance.md, "svcgate beside its peers"): each verifies the
  // token its own way and then applies the same permission, written by hand (permitByHand).
  'floor-hs256': () => floor(hs256ByHand()),
  'floor-signed': async () => floor(await signedByHand(process.env.BENCH_ALG)),
  'oauth2-bearer-hs256': () => oauth2Bearer({ secret: JWT.secret, tokenSigningAlg: 'HS256' }),
  'oauth2-bearer-signed': () => oauth2Bearer({ jwksUri: process.env.BENCH_JWKS_URL, tokenSigningAlg: process.env.BENCH_ALG }),
  'express-jwt-hs256': () => expressJwt({ secret: JWT.secret, algorithms: ['HS256'] }),
  'express-jwt-signed': () => expressJwt({ secret: require('jwks-rsa').expressJwtSecret({ jwksUri: process.env.BENCH_JWKS_URL }), algorithms: [process.env.BENCH_ALG] }),
};

/**
 * The permission of examples/users-api for role `user`, by hand: GET /users/{userId} only for an
 * id in the token's userId claim, the user without its password; 403 otherwise.
 */
function permitByHand(claims, req, res) {
  const id = Number(req.params.userId);
  if (claims?.role !== 'user' || !Array.isArray(claims.userId) || !claims.userId.includes(id)) return res.status(403).json({ error: 'forbidden' });
  const { password, ...shown } = user(id);
  res.json(shown);
}

/** Express with one route that verifies the token with `verifyByHand` (null: 401), no cache, and permits by hand. */
function floor(verifyByHand) {
  const app = require('express')();
  app.get('/api/v1/users/:userId', (req, res) => {
    const claims = verifyByHand(req.headers.authorization);
    if (claims === null) return res.status(401).json({ error: 'invalid_token' });
    permitByHand(claims, req, res);
  });
  return app;
}

/**
 * The least a verifier of one key and one algorithm must do: check the signature over
 * header.payload, parse the payload, check exp, iss and aud. The header is not parsed: with a
 * single key for a single algorithm, the signature alone decides.
 */
function byHand(checkSignature) {
  return (authorization) => {
    if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) return null;
    const token = authorization.slice(7);
    const first = token.indexOf('.');
    const last = token.lastIndexOf('.');
    if (first < 0 || first === last) return null;
    if (!checkSignature(token.slice(0, last), Buffer.from(token.slice(last + 1), 'base64url'))) return null;
    let claims;
    try {
      claims = JSON.parse(Buffer.from(token.slice(first + 1, last), 'base64url').toString());
    } catch {
      return null;
    }
    const audience = Array.isArray(claims?.aud) ? claims.aud : [claims?.aud];
    if (typeof claims?.exp !== 'number' || claims.exp <= Date.now() / 1000 || claims.iss !== JWT.issuer || !audience.includes(JWT.audience)) return null;
    return claims;
  };
}

function hs256ByHand() {
  const key = createSecretKey(Buffer.from(JWT.secret));
  return byHand((input, signature) => {
    const expected = createHmac('sha256', key).update(input).digest();
    return signature.length === expected.length && timingSafeEqual(signature, expected);
  });
}

/** The same with crypto.verify against the KeyObject of BENCH_ALG's key, imported once from the JWK set at BENCH_JWKS_URL. */
async function signedByHand(alg) {
  const { keys } = await (await fetch(process.env.BENCH_JWKS_URL)).json();
  const key = createPublicKey({ key: keys.find((jwk) => jwk.alg === alg), format: 'jwk' });
  const digest = { RS256: 'sha256', ES256: 'sha256', EdDSA: null }[alg];
  const options = alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key;
  return byHand((input, signature) => verify(digest, Buffer.from(input), options, signature));
}

/** express-oauth2-jwt-bearer's middleware (issuer and audience checked by it), then the same permission by hand. */
function oauth2Bearer(options) {
  const { auth } = require('express-oauth2-jwt-bearer');
  const app = require('express')();
  app.use(auth({ issuer: JWT.issuer, audience: JWT.audience, ...options }));
  app.get('/api/v1/users/:userId', (req, res) => permitByHand(req.auth.payload, req, res));
  return app;
}

/** express-jwt's middleware (issuer and audience checked by jsonwebtoken), then the same permission by hand. */
function expressJwt(options) {
  const { expressjwt } = require('express-jwt');
  const app = require('express')();
  app.use(expressjwt({ issuer: JWT.issuer, audience: JWT.audience, ...options }));
  app.get('/api/v1/users/:userId', (req, res) => permitByHand(req.auth, req, res));
  return app;
}

async function oasTools(auth) {
  const oas = require('@oas-tools/core');
  const { bearerJwt, BearerJWT, jwtErrorHandler } = require('svcgate/auth');
  if (auth === 'acl') oas.use(BearerJWT, { acl: ACL }, 2);
  if (auth === 'deny-half') oas.use(denyEveryOther(), {}, 2);
  const payload = { sub: 'u1', role: 'user', userId: [1] };
  const handler = auth === 'acl' ? bearerJwt(JWT) : async () => payload;
  const app = require('express4')();
  app.use(require('express4').json());
  await oas.initialize(app, {
    oasFile: OPENAPI,
    packageJSON: join(HERE, '../package.json'),
    logger: { level: 'error', customLogger: { info() {}, warn() {}, error() {}, debug() {} } },
    middleware: {
      router: { controllers: join(EXAMPLE, 'controllers') },
      // Off in both twins: @oas-tools/commons 1.0.2 builds a new Ajv and compiles the schema for
      // every parameter of every request (milliseconds each), which would drown everything else.
      validator: { requestValidation: false, responseValidation: false },
      swagger: { disable: true },
      security: auth === 'none' ? { disable: true } : { disable: false, auth: { bearerAuth: handler } },
      error: { customHandler: jwtErrorHandler },
    },
  });
  return app;
}

function denyEveryOther() {
  const deny = { name: 'AuthError', message: 'read:own needs ownership of path parameter userId' };
  let requests = 0;
  return function denyEveryOther(req, res, next) {
    requests += 1;
    next(requests % 2 === 0 ? deny : undefined);
  };
}

function svcApi(guarded) {
  const { SvcApi, SvcContainer, svcAcl } = require('svcgate/svc');
  const { bearerJwt } = require('svcgate/auth');
  const api = new SvcApi();
  if (guarded) {
    const acl = { user: { '/api/user-service/get-user': { 'read:own': ['*', '!password'] } } };
    api.interceptAll(svcAcl({ handler: bearerJwt(JWT), acl, owners: { 'userService.getUser': { userId: 'userId' } } }));
  }
  return api.from(new SvcContainer().ofLocal(UserService)).app;
}

const app = await scenarios[process.argv[2]]();
const server = app.listen(0, '127.0.0.1', () => console.log(`PORT ${server.address().port}`));
// For profile.mjs: SIGUSR2 starts V8's CPU profiler (after the warm-up, so start-up is left out),
// SIGINT writes the profile to the file BENCH_PROFILE names and exits.
if (process.env.BENCH_PROFILE) {
  const session = new Session();
  session.connect();
  const post = (method) => new Promise((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));
  process.on('SIGUSR2', () => post('Profiler.enable').then(() => post('Profiler.start')));
  process.once('SIGINT', async () => {
    const { profile } = await post('Profiler.stop');
    writeFileSync(process.env.BENCH_PROFILE, JSON.stringify(profile));
    process.exit(0);
  });
}
