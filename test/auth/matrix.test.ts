import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// A role x operation x ownership matrix: an OpenAPI document and an ACL are generated, every
// combination is sent to the real host, and the expected status comes from a model of SPEC 3
// written here (not from the policy). A denied request must never reach its controller.

type Method = 'get' | 'post' | 'put' | 'delete';
interface Operation {
  method: Method;
  path: string;
  operationId: string;
  /** Ownable parameters: path parameters, or a query parameter with x-acl-binding. */
  owned: { name: string; in: 'path' | 'query'; claim: string }[];
}

const operations: Operation[] = [
  { method: 'get', path: '/items', operationId: 'listItems', owned: [] },
  { method: 'post', path: '/items', operationId: 'createItem', owned: [] },
  { method: 'get', path: '/items/{itemId}', operationId: 'getItem', owned: [{ name: 'itemId', in: 'path', claim: 'itemId' }] },
  { method: 'put', path: '/items/{itemId}', operationId: 'updateItem', owned: [{ name: 'itemId', in: 'path', claim: 'itemId' }] },
  { method: 'delete', path: '/items/{itemId}', operationId: 'deleteItem', owned: [{ name: 'itemId', in: 'path', claim: 'itemId' }] },
  { method: 'get', path: '/shops/{shopId}/items/{itemId}', operationId: 'getShopItem', owned: [{ name: 'shopId', in: 'path', claim: 'shops' }, { name: 'itemId', in: 'path', claim: 'itemId' }] },
  { method: 'get', path: '/reports', operationId: 'getReports', owned: [{ name: 'owner', in: 'query', claim: 'userId' }] },
];

const acl: Record<string, Record<string, unknown>> = {
  reader: { '/items': { 'read:any': ['*'] }, '/items/{itemId}': { 'read:own': ['*'] }, '/shops/{shopId}/items/{itemId}': { 'read:own': ['*'] } },
  editor: { $extend: ['reader'], '/items': { 'create:any': ['*'] }, '/items/{itemId}': { 'update:own': ['name'] } },
  admin: { '/items': { 'read:any': ['*'], 'create:any': ['*'] }, '/items/{itemId}': { 'read:any': ['*'], 'update:any': ['*'], 'delete:any': ['*'] }, '/reports': { 'read:any': ['*'] } },
  auditor: { '/reports': { 'read:own': ['*'] }, '/items': { 'read:own': ['*'] } },
  nobody: {},
};

const ACTIONS: Record<Method, string> = { get: 'read', post: 'create', put: 'update', delete: 'delete' };

/** SPEC 3, rules 1, 2, 4 and 5, for one role: which possessions it holds, through $extend too. */
function possessions(role: string, resource: string, action: string): Set<string> {
  const declared = acl[role] ?? {};
  const held = new Set<string>();
  for (const [key, grants] of Object.entries(declared)) {
    if (key !== resource) continue;
    for (const [grant, attributes] of Object.entries(grants as Record<string, string[]>)) {
      const [grantAction, possession] = grant.split(':');
      if (grantAction === action && attributes.length > 0) held.add(possession!);
    }
  }
  for (const parent of (declared.$extend as string[] | undefined) ?? []) possessions(parent, resource, action).forEach((p) => held.add(p));
  return held;
}

function expected(role: string, operation: Operation, owns: boolean): number {
  const held = possessions(role, operation.path, ACTIONS[operation.method]);
  if (held.has('any')) return 200;
  if (held.has('own') && operation.owned.length > 0 && owns) return 200;
  return 403;
}

function openapi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const parameters = operation.owned.map((param) => ({
      name: param.name,
      in: param.in,
      required: true,
      schema: { type: 'integer' },
      ...(param.claim === param.name ? {} : { 'x-acl-binding': param.claim }),
    }));
    paths[operation.path] ??= { 'x-router-controller': 'itemsController' };
    paths[operation.path]![operation.method] = { operationId: operation.operationId, parameters, responses: { 200: { description: 'ok' } } };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'matrix', version: '1' },
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
  };
}

/** The caller owns item 1, shop 10 and user 7; requests address those or item 2, shop 20, user 8. */
const CLAIMS = { itemId: [1], shops: 10, userId: '7' };
function target(operation: Operation, owns: boolean): string {
  const values: Record<string, number> = owns ? { itemId: 1, shopId: 10, owner: 7 } : { itemId: 2, shopId: 20, owner: 8 };
  let path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => String(values[name]));
  const query = operation.owned.filter((param) => param.in === 'query');
  if (query.length > 0) path += `?${query.map((param) => `${param.name}=${values[param.name]}`).join('&')}`;
  return path;
}

describe('role x operation x ownership through @oas-tools/core', () => {
  let host: OasHost;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgate-matrix-'));
    writeFileSync(join(dir, 'openapi.yaml'), dump(openapi()));
    host = await startOasHost({ openapi: join(dir, 'openapi.yaml'), jwt: HS256, position: 2, acl: { bearerAuth: acl }, customHandler: true });
  });
  afterAll(() => host.stop());

  test('every status is what SPEC 3 says, and only allowed requests reach a controller', async () => {
    const got: Record<string, number> = {};
    const want: Record<string, number> = {};
    const allowedCalls: string[] = [];
    for (const role of Object.keys(acl)) {
      const authorization = `Bearer ${await token({ role, ...CLAIMS })}`;
      for (const operation of operations) {
        for (const owns of [true, false]) {
          const path = target(operation, owns);
          const name = `${role} ${operation.method.toUpperCase()} ${path}`;
          const response = await fetch(`${host.url}${path}`, { method: operation.method.toUpperCase(), headers: { authorization } });
          got[name] = response.status;
          want[name] = expected(role, operation, owns);
          if (want[name] === 200) allowedCalls.push(operation.operationId);
        }
      }
    }
    expect(got).toEqual(want);
    expect(Object.values(want).filter((status) => status === 200).length).toBeGreaterThan(10);
    expect(Object.values(want).filter((status) => status === 403).length).toBeGreaterThan(10);
    expect((await host.calls()).calls).toEqual(allowedCalls);
  });
});
