import { exampleBundle, examplePermissions } from '../helpers/bundles';
import { consumerFixture, withoutUserRead } from '../helpers/consumer-fixture';
import { send, shadowApp, shadowSettled, type ShadowApp } from './shadow-apps';

// The candidate may come from elsewhere than the active policy: a declaration answers, a bundle
// is the candidate. Its operations are the document's; its grants differ, which is the point.

const fixture = consumerFixture();
const opened: ShadowApp[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

test('a bundle candidate beside an active declaration is compared, not refused for granting otherwise', async () => {
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'candidate', edit: withoutUserRead }));
  const candidate = fixture.consumer();
  const app = await shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source: { bearerAuth: candidate.policy } } });
  opened.push(app);
  await candidate.policy.ready();
  expect(candidate.events.map((event) => event.type)).not.toContain('refused');
  expect((await send(app.url, { method: 'GET', path: '/users/1', claims: { role: 'user', userId: 1 } })).status).toBe(200);
  const status = await shadowSettled(app.guard, (counted) => counted.compared + counted.unavailable === 1);
  expect(status).toMatchObject({ compared: 1, unavailable: 0, divergences: 1, changes: { narrowed: 1 } });
});
