import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';

const FIXTURE = join(__dirname, '../fixtures/oidc-provider.mjs');
const ROOT = join(__dirname, '../..');
/** oidc-provider starts in well under a second here; this only turns a hang into a failure. */
const START_LIMIT_MS = 15_000;
const REQUEST_LIMIT_MS = 10_000;

export type SigningAlg = 'RS256' | 'ES256' | 'Ed25519';

export interface ProviderClient {
  id: string;
  /** Default: derived from the id. */
  secret?: string;
  auth?: 'client_secret_basic' | 'client_secret_post';
  /** The scopes the client may ask for (space-separated); default: any. */
  scope?: string;
  /** Added to the client's access tokens (groups, realm_access, accountId, ...). */
  claims?: Record<string, unknown>;
  /** Signs the client's access tokens instead of the resource's algorithm. */
  alg?: SigningAlg;
  /** The client's access-token lifetime instead of the resource's. */
  ttlSeconds?: number;
}

export interface ProviderResource {
  /** The scopes the resource knows (space-separated). */
  scope: string;
  alg?: SigningAlg;
  ttlSeconds?: number;
}

export interface ProviderSettings {
  /** Private JWKs (kid and alg set) it signs with and publishes; default: one per SigningAlg. */
  keys?: JWK[];
  /** Resource indicators, which become the `aud` of the access tokens. */
  resources: Record<string, ProviderResource>;
  clients: ProviderClient[];
  /** 'oauth': only the RFC 8414 metadata document, no OpenID discovery document. */
  discovery?: 'openid' | 'oauth';
}

export interface TokenRequest {
  /** Default: the first resource of the settings. */
  resource?: string;
  scope?: string;
  /** Binds the token to this key (RFC 9449): the token request carries a proof signed with it. */
  dpop?: DpopKey;
}

export interface IdentityProvider {
  /** http://127.0.0.1:<port>, the `iss` of its tokens. */
  readonly issuer: string;
  /** Its key set's URL, as its discovery document names it. */
  readonly jwksUri: string;
  /** The private keys it signs with now (the tests can sign with them too). */
  readonly keys: JWK[];
  /** An access token from the token endpoint, for a client of the settings (client_credentials). */
  token(clientId: string, request?: TokenRequest): Promise<string>;
  /** Stops it and starts it again on the same port, with these settings changed (a new key set). */
  restart(changes: Partial<ProviderSettings>): Promise<void>;
  stop(): Promise<void>;
}

/** A private signing JWK of a new key pair, with its kid and alg, as oidc-provider takes it. */
export async function signingKey(alg: SigningAlg, kid: string = `${alg.toLowerCase()}-${randomUUID()}`): Promise<JWK> {
  const { privateKey } = alg === 'Ed25519' ? await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true }) : await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
}

/** One key per algorithm the tests use. */
export async function signingKeys(): Promise<JWK[]> {
  return Promise.all((['RS256', 'ES256', 'Ed25519'] as const).map((alg) => signingKey(alg)));
}

/** Starts oidc-provider in a child process on 127.0.0.1 and a free port. */
export async function startProvider(settings: ProviderSettings): Promise<IdentityProvider> {
  const withSecrets = (clients: ProviderClient[]) => clients.map((client) => ({ ...client, secret: client.secret ?? `${client.id}-secret-of-at-least-32-bytes` }));
  let current: ProviderSettings = { ...settings, keys: settings.keys ?? (await signingKeys()), clients: withSecrets(settings.clients) };
  let running = await spawnProvider(current, 0);
  const jwksUri = await discoveredJwksUri(running.issuer);
  return {
    issuer: running.issuer,
    jwksUri,
    get keys() {
      return current.keys ?? [];
    },
    async token(clientId, request = {}) {
      const client = current.clients.find((candidate) => candidate.id === clientId);
      if (client === undefined) throw new Error(`no client ${clientId} in the provider settings`);
      return requestToken(running.issuer, client, { ...request, resource: request.resource ?? Object.keys(current.resources)[0] });
    },
    async restart(changes) {
      await running.stop();
      current = { ...current, ...changes, clients: withSecrets(changes.clients ?? current.clients) };
      running = await spawnProvider(current, Number(new URL(running.issuer).port));
    },
    stop: () => running.stop(),
  };
}

/** startProvider in beforeAll and stop in afterAll; the returned function gives the running provider. */
export function withProvider(settings: ProviderSettings | (() => Promise<ProviderSettings>)): () => IdentityProvider {
  let provider: IdentityProvider | undefined;
  beforeAll(async () => {
    provider = await startProvider(typeof settings === 'function' ? await settings() : settings);
  });
  afterAll(() => provider?.stop());
  return () => {
    if (provider === undefined) throw new Error('the provider did not start');
    return provider;
  };
}

interface RunningChild {
  issuer: string;
  stop(): Promise<void>;
}

function spawnProvider(settings: ProviderSettings, port: number): Promise<RunningChild> {
  const child = spawn(process.execPath, [FIXTURE, JSON.stringify({ ...settings, port })], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`oidc-provider did not start within ${START_LIMIT_MS} ms:\n${output}`));
    }, START_LIMIT_MS);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`oidc-provider exited with ${code}:\n${output}`));
    };
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const issuer = /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(output)?.[1];
      if (issuer === undefined) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ issuer, stop: () => stopChild(child) });
    });
    child.once('exit', onExit);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill();
  });
}

async function discoveredJwksUri(issuer: string): Promise<string> {
  // The RFC 8414 document when the provider serves only that one; the metadata is the same.
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    const response = await fetch(`${issuer}${path}`, { signal: AbortSignal.timeout(REQUEST_LIMIT_MS) });
    if (response.ok) return ((await response.json()) as { jwks_uri: string }).jwks_uri;
  }
  throw new Error(`${issuer} serves no metadata document`);
}

async function requestToken(issuer: string, client: ProviderClient, request: TokenRequest): Promise<string> {
  const endpoint = `${issuer}/token`;
  const body = new URLSearchParams({ grant_type: 'client_credentials' });
  if (request.resource !== undefined) body.set('resource', request.resource);
  if (request.scope !== undefined) body.set('scope', request.scope);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (client.auth === 'client_secret_post') {
    body.set('client_id', client.id);
    body.set('client_secret', client.secret ?? '');
  } else {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret ?? '')}`).toString('base64')}`;
  }
  if (request.dpop !== undefined) headers.dpop = await dpopProof(request.dpop, { htm: 'POST', htu: endpoint });
  const response = await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(REQUEST_LIMIT_MS) });
  const answer = (await response.json()) as { access_token?: string; token_type?: string };
  const expectedType = request.dpop === undefined ? 'Bearer' : 'DPoP';
  if (!response.ok || answer.access_token === undefined || answer.token_type !== expectedType) {
    throw new Error(`the token endpoint answered ${response.status} ${JSON.stringify(answer)}`);
  }
  return answer.access_token;
}

/** A client's DPoP key pair (ES256). */
export interface DpopKey {
  privateKey: KeyLike;
  jwk: JWK;
  /** The JWK thumbprint a bound token carries in cnf.jkt. */
  jkt: string;
}

export async function dpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

/** A DPoP proof (RFC 9449, section 4.2) for one request; with `accessToken`, its hash (ath) too. */
export function dpopProof(key: DpopKey, request: { htm: string; htu: string; accessToken?: string }): Promise<string> {
  const ath = request.accessToken === undefined ? {} : { ath: createHash('sha256').update(request.accessToken).digest('base64url') };
  return new SignJWT({ htm: request.htm, htu: request.htu, jti: randomUUID(), ...ath })
    .setIssuedAt()
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })
    .sign(key.privateKey);
}
