import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { entry } from '../helpers/node-script';
import { HS256, token } from '../helpers/tokens';

// SPEC 10.3: @opentelemetry/api is an optional peer. In a process where it cannot be resolved,
// the built package (its ESM entry, over the CommonJS build) guards requests as before, tries to
// load the API once only, records nothing, and still publishes on diagnostics_channel.
// Uses dist/: `npm run build:ts` first.

const PRELOAD = join(__dirname, '../fixtures/without-opentelemetry.cjs');
const EXAMPLE = join(__dirname, '../../examples/users-api');

test('without @opentelemetry/api: requests are guarded, the API is looked for once, channels still work', async () => {
  const owner = await token({ role: 'user', userId: 1 });
  const expired = await token({ role: 'user', userId: 1, exp: Math.floor(Date.now() / 1000) - 60 });
  const source = `
    import { subscribe } from 'node:diagnostics_channel';
    import { createRequire } from 'node:module';
    import { bearerJwt, bearerJwtAcl } from ${entry('auth')};
    const require = createRequire(import.meta.url);
    const express = require(${JSON.stringify(require.resolve('express'))});
    const decisions = [];
    subscribe('svcgate:decision', (message) => decisions.push(message.result));
    const app = express();
    app.use(bearerJwtAcl({ openapi: ${JSON.stringify(join(EXAMPLE, 'openapi.yaml'))}, handler: bearerJwt(${JSON.stringify({ ...HS256, audience: false })}), acl: { bearerAuth: ${JSON.stringify(join(EXAMPLE, 'permissions.yaml'))} } }));
    app.use((req, res) => res.json({ ok: true }));
    const server = app.listen(0, '127.0.0.1', async () => {
      const url = 'http://127.0.0.1:' + server.address().port + '/api/v1/users/';
      const statuses = [];
      for (const [path, jwt] of [['1', ${JSON.stringify(owner)}], ['1', ${JSON.stringify(owner)}], ['2', ${JSON.stringify(owner)}], ['1', ${JSON.stringify(expired)}]]) {
        statuses.push((await fetch(url + path, { headers: { authorization: 'Bearer ' + jwt } })).status);
      }
      server.close();
      const loaded = Object.keys(require.cache).filter((file) => file.includes('@opentelemetry'));
      console.log(JSON.stringify({ statuses, decisions, attempts: globalThis.openTelemetryAttempts, loaded, otelGlobal: Object.getOwnPropertySymbols(globalThis).map(String).filter((name) => name.includes('opentelemetry')) }));
    });
  `;
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-no-otel-'));
  try {
    const script = join(dir, 'script.mjs');
    writeFileSync(script, source);
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--require', PRELOAD, script], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ statuses: [200, 200, 403, 401], decisions: ['allow', 'allow', 'deny'], attempts: 1, loaded: [], otelGlobal: [] });
    // An app without the API is told nothing: it chose not to have it.
    expect(stderr).not.toMatch(/SVCGATE_TELEMETRY|opentelemetry/i);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
