import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// @oas-tools/core dereferences the document with json-schema-ref-parser, which keeps a recursive
// schema as an object that holds itself; BearerJWT receives that object. Found with issue 27
// section 4: main overflowed the call stack there, and the host did not start.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const work = mkdtempSync(join(tmpdir(), 'svcgate-oas-recursive-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a document with a recursive schema, on @oas-tools/core', () => {
  let host: OasHost;
  beforeAll(async () => {
    const openapi = join(work, 'openapi.yaml');
    const tree = '    Tree:\n      type: object\n      properties:\n        children:\n          type: array\n          items: { $ref: \'#/components/schemas/Tree\' }\n';
    const text = readFileSync(join(EXAMPLE, 'openapi.yaml'), 'utf8')
      .replace('  schemas:\n', `  schemas:\n${tree}`)
      .replace("'200': { description: All users }", "'200':\n          description: All users\n          content:\n            application/json:\n              schema: { $ref: '#/components/schemas/Tree' }");
    writeFileSync(openapi, text);
    host = await startOasHost({ openapi, jwt: HS256, position: 2, acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') }, customHandler: true });
  });
  afterAll(() => host?.stop());

  test('starts, and decides as usual', async () => {
    const list = (role: string) => token({ role, userId: 1 }).then((jwt) => fetch(`${host.url}/api/v1/users`, { headers: { authorization: `Bearer ${jwt}` } }));
    expect((await list('admin')).status).toBe(200);
    expect((await list('user')).status).toBe(403);
  });
});
