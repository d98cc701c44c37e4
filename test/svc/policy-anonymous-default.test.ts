import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { bearerJwt } from '../../src/auth';
import { remoteOpa, writeBundle } from '../../src/fleet';
import { compileAcl } from '../../src/policy';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import type { PolicySource } from '../../src/policy/evaluate/decision-source';
import { svcAcl, svcAclOpenApi, SvcApi, SvcContainer } from '../../src/svc';
import { consumerFixture } from '../helpers/consumer-fixture';
import { startOpa } from '../helpers/opa-server';
import { HS256, token } from '../helpers/tokens';

// SPEC 9.6 with decisions from elsewhere: svcAcl grants callers without a role only what the
// ACL's `anonymous` declares, and so must the data a bundle or OPA brings it. A bundle built from
// a document without x-acl-anonymous-default (an export of an earlier version, or written by hand)
// holds anonymous_default: true, and svcAcl fed by it answered an unauthenticated
// GET /api/user-service/get-secret with 200 and the secret.

jest.setTimeout(30_000);

class UserService {
  getUser({ userId }: { userId: string }) {
    return { userId, name: 'Ada' };
  }
  private getSecret() {
    return { secret: 'the-secret' };
  }
}

const ROOT = join(__dirname, '../..');
const ACL = { user: { '/api/user-service/get-user': { 'read:any': ['*'] } } };
const SECRET = '/api/user-service/get-secret';
const newApi = () => new SvcApi().from(new SvcContainer().ofLocal(UserService));

/** The bundle `svcgate bundle` builds from svcAclOpenApi()'s document: as this version writes it, or without its key (as an earlier one did). */
async function bundle(revision: string, document: 'as written' | 'without the key'): Promise<Buffer> {
  const openapi: Record<string, unknown> = { ...svcAclOpenApi(newApi()) };
  if (document === 'without the key') delete openapi['x-acl-anonymous-default'];
  return writeBundle({
    data: compileAcl({ openapi, acl: ACL, scheme: 'bearerAuth' }),
    wasm: readFileSync(policyWasmPath()),
    rego: { 'policies/authz.rego': readFileSync(join(ROOT, 'policies/authz.rego'), 'utf8') },
    revision,
  });
}

/** The app guarded by svcAcl with `policy`; building it connects the policy. */
const guardedBy = (policy: PolicySource) => newApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), policy })).app;

describe('svcAcl fed by a bundleConsumer', () => {
  const fixture = consumerFixture();

  test('refuses a bundle whose data grants the built-in anonymous default, saying how to build it; the secret is never served without a token', async () => {
    fixture.server.publish('bundle.tar.gz', await bundle('earlier-export', 'without the key'));
    const { policy, nextOf } = fixture.consumer();
    const app = guardedBy(policy);
    const refused = await nextOf('failed', 'activated');
    expect(refused).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_OPERATIONS' }, status: { ready: false } });
    const { message } = (refused as { error: { message: string } }).error;
    expect(message).toContain('anonymous_default: true');
    expect(message).toContain('svcAclOpenApi()');
    expect(message).toContain('--anonymous-default none');
    const answer = await request(app).get(SECRET);
    expect(answer.status).toBe(503);
    expect(answer.text).not.toContain('the-secret');

    fixture.server.publish('bundle.tar.gz', await bundle('from-svcAclOpenApi', 'as written'));
    expect((await nextOf('activated')).status.revision).toBe('from-svcAclOpenApi');
    expect((await request(app).get(SECRET)).status).toBe(401);
    const user = await request(app).get('/api/user-service/get-user?userId=u1').set('Authorization', `Bearer ${await token({ role: 'user' })}`);
    expect(user.status).toBe(200);
  });

  test('a persisted bundle with the anonymous default, booted before svcAcl connects, is dropped when it connects', async () => {
    const persistDir = fixture.tempDir();
    fixture.server.publish('bundle.tar.gz', await bundle('earlier-export', 'without the key'));
    // A consumer no adapter has connected yet activates it (it cannot know svcAcl will take it) and persists it.
    const first = fixture.consumer({ persistDir });
    await first.nextOf('activated');
    first.policy.close();
    await fixture.server.stop();

    const restarted = fixture.consumer({ persistDir });
    expect((await restarted.nextOf('activated')).status).toMatchObject({ revision: 'earlier-export', activatedFrom: 'persisted' });
    const app = guardedBy(restarted.policy);
    expect(restarted.events.at(-1)).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_OPERATIONS' }, status: { revision: 'earlier-export', ready: false } });
    expect((await request(app).get(SECRET)).status).toBe(503);
  });
});

describe('svcAcl fed by remoteOpa', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-anonymous-opa-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Asks until the answer is not the 503 of a source that has not checked OPA yet. */
  async function settled(app: ReturnType<typeof guardedBy>): Promise<request.Response> {
    for (let i = 0; ; i++) {
      const answer = await request(app).get(SECRET);
      if (answer.status !== 503 || !/has not been checked/.test(answer.body.message) || i > 200) return answer;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  test.each([
    ['without the key', 503],
    ['as written', 401],
  ] as const)('OPA holding the bundle built from the document %s: the secret without a token is %i', async (document, status) => {
    const file = join(dir, `${document.replace(/ /g, '-')}.tar.gz`);
    writeFileSync(file, await bundle(document, document));
    const opa = await startOpa(['--bundle', file]);
    const warnings: string[] = [];
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation((warning: string | Error, options?: unknown) => {
      if ((options as { code?: string } | undefined)?.code === 'SVCGATE_REMOTE_OPA_MISMATCH') warnings.push(String(warning));
    });
    try {
      const answer = await settled(guardedBy(remoteOpa({ url: opa.url })));
      expect(answer.status).toBe(status);
      expect(answer.text).not.toContain('the-secret');
      if (status === 503) {
        expect(answer.body.message).toContain('anonymous_default: true');
        expect(warnings.join('\n')).toContain('anonymous_default: true');
      }
    } finally {
      emitWarning.mockRestore();
      await opa.stop();
    }
  });
});
