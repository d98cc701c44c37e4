import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { z } from 'zod';
import { bearerJwt, bearerJwtAcl, type BearerJwtConfig } from '../../src/auth';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { listen } from '../helpers/listen';
import { startOasHost } from '../helpers/oas-host';

// One small API guarded three ways, for the tests on a real identity provider: plain Express with
// bearerJwtAcl, the real @oas-tools/core host with BearerJWT (a child process), and SvcApi with
// svcAcl. Two operations: reading one account (owned through a claim) and listing reports.
// Roles: `reader` reads the accounts it owns, `auditor` reads every account and the reports.

export type AdapterName = 'express' | 'oas-tools' | 'svc';
export const ADAPTERS: AdapterName[] = ['express', 'oas-tools', 'svc'];

export interface ApiSetup {
  /** The bearerJwt config, plain JSON (the @oas-tools/core host gets it over its command line). */
  jwt: Record<string, unknown>;
  /** Default: `role`, bearerJwt's own default. */
  roleBinding?: string;
  /** The claim path that owns an account: x-acl-binding, and svcAcl's owners. Default: accountId. */
  accountBinding?: string;
  /** Default: all three. */
  adapters?: AdapterName[];
  /** Default 3.0.3; 3.1.0 for scopes on an http bearer scheme. */
  openapi?: '3.0.3' | '3.1.0';
  /** The document's security scheme; default bearerAuth, http bearer JWT. The @oas-tools/core host knows only bearerAuth. */
  scheme?: { name: string; definition: Record<string, unknown> };
  /** Scopes the operations' security requirements list (not SvcApi, whose routes list none). */
  scopes?: { getAccount?: string[]; listReports?: string[] };
  /** bearerJwtAcl's requiredScopes (Express only). */
  requiredScopes?: string[];
}

export interface GuardedApi {
  name: AdapterName;
  /** The absolute URL that reads account `id`. */
  accountUrl(id: string): string;
  reportsUrl(): string;
  /** The decision log so far. */
  events(): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

export interface Answer {
  status: number;
  challenge: string | null;
  body: unknown;
}

const BEARER = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' };
const work = mkdtempSync(join(tmpdir(), 'svcgate-idp-'));

/** The ACL over the given resource paths. */
function acl(account: string, reports: string): Record<string, unknown> {
  return {
    anonymous: {},
    reader: { [account]: { 'read:own': ['*', '!secret'] } },
    auditor: { [account]: { 'read:any': ['*'] }, [reports]: { 'read:any': ['*'] } },
  };
}

function document(setup: ApiSetup): Record<string, unknown> {
  const scheme = setup.scheme ?? { name: 'bearerAuth', definition: BEARER };
  const security = (scopes: string[] | undefined) => (scopes === undefined ? {} : { security: [{ [scheme.name]: scopes }] });
  return {
    openapi: setup.openapi ?? '3.0.3',
    info: { title: 'identity provider tests', version: '1' },
    security: [{ [scheme.name]: [] }],
    components: { securitySchemes: { [scheme.name]: scheme.definition } },
    paths: {
      '/accounts/{accountId}': {
        'x-router-controller': 'accountsController',
        get: {
          operationId: 'getAccount',
          parameters: [{ name: 'accountId', in: 'path', required: true, 'x-acl-binding': setup.accountBinding ?? 'accountId', schema: { type: 'string' } }],
          responses: { '200': { description: 'one account' } },
          ...security(setup.scopes?.getAccount),
        },
      },
      '/reports': {
        'x-router-controller': 'reportsController',
        get: { operationId: 'listReports', responses: { '200': { description: 'the reports' } }, ...security(setup.scopes?.listReports) },
      },
    },
  };
}

async function startExpress(setup: ApiSetup): Promise<GuardedApi> {
  const scheme = setup.scheme?.name ?? 'bearerAuth';
  const events: Record<string, unknown>[] = [];
  const app = express();
  app.use(
    bearerJwtAcl({
      openapi: document(setup),
      handler: bearerJwt(setup.jwt as BearerJwtConfig),
      acl: { [scheme]: acl('/accounts/{accountId}', '/reports') },
      ...(setup.roleBinding === undefined ? {} : { roleBinding: setup.roleBinding }),
      ...(setup.requiredScopes === undefined ? {} : { requiredScopes: setup.requiredScopes }),
      decisionLog: (event) => events.push(event as unknown as Record<string, unknown>),
    }),
  );
  app.get('/accounts/:accountId', (req, res) => res.json({ operation: 'getAccount', accountId: req.params.accountId }));
  app.get('/reports', (_req, res) => res.json({ operation: 'listReports' }));
  const { url, close } = await listen(app);
  return { name: 'express', accountUrl: (id) => `${url}/accounts/${encodeURIComponent(id)}`, reportsUrl: () => `${url}/reports`, events: async () => events, stop: close };
}

async function startOasTools(setup: ApiSetup): Promise<GuardedApi> {
  if ((setup.scheme?.name ?? 'bearerAuth') !== 'bearerAuth') throw new Error('the @oas-tools/core host serves only a scheme named bearerAuth');
  const file = join(work, `openapi-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(document(setup)));
  const host = await startOasHost({
    openapi: file,
    jwt: setup.jwt,
    position: 2,
    acl: { bearerAuth: acl('/accounts/{accountId}', '/reports') },
    ...(setup.roleBinding === undefined ? {} : { roleBinding: setup.roleBinding }),
    customHandler: true,
  });
  return {
    name: 'oas-tools',
    accountUrl: (id) => `${host.url}/accounts/${encodeURIComponent(id)}`,
    reportsUrl: () => `${host.url}/reports`,
    events: async () => (await host.calls()).events,
    stop: async () => host.stop(),
  };
}

class AccountService {
  static schemas = { getAccount: z.object({ accountId: z.string() }) };
  getAccount({ accountId }: { accountId: string }) {
    return { operation: 'getAccount', accountId, secret: 'pin' };
  }
  listReports() {
    return { operation: 'listReports' };
  }
}

async function startSvc(setup: ApiSetup): Promise<GuardedApi> {
  const events: Record<string, unknown>[] = [];
  const guard = svcAcl({
    handler: bearerJwt(setup.jwt as BearerJwtConfig),
    acl: acl('/api/account-service/get-account', '/api/account-service/list-reports'),
    owners: { 'accountService.getAccount': { accountId: setup.accountBinding ?? 'accountId' } },
    ...(setup.roleBinding === undefined ? {} : { roleBinding: setup.roleBinding }),
    decisionLog: (event) => events.push(event as unknown as Record<string, unknown>),
  });
  const api = new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(AccountService));
  const { url, close } = await listen(api.app);
  return {
    name: 'svc',
    accountUrl: (id) => `${url}/api/account-service/get-account?accountId=${encodeURIComponent(id)}`,
    reportsUrl: () => `${url}/api/account-service/list-reports`,
    events: async () => events,
    stop: close,
  };
}

const STARTERS: Record<AdapterName, (setup: ApiSetup) => Promise<GuardedApi>> = { express: startExpress, 'oas-tools': startOasTools, svc: startSvc };

export function startApis(setup: ApiSetup): Promise<GuardedApi[]> {
  return Promise.all((setup.adapters ?? ADAPTERS).map((name) => STARTERS[name](setup)));
}

/** startApis in beforeAll (the setup is read then, once the providers run), stop in afterAll. */
export function withApis(setup: () => ApiSetup): () => GuardedApi[] {
  let apis: GuardedApi[] = [];
  beforeAll(async () => {
    apis = await startApis(setup());
  });
  afterAll(() => Promise.all(apis.map((api) => api.stop())));
  return () => apis;
}

/** One GET over real HTTP; a body that is not JSON is kept as text. */
export async function call(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Milliseconds until the token has expired at a clock tolerance of 0 (its exp, in whole seconds, is past). */
export function untilExpired(token: string): number {
  const { exp } = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { exp: number };
  return Math.max(0, exp * 1000 + 250 - Date.now());
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
