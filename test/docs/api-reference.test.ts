import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `make docs`: TypeDoc reads the TSDoc comments of the five entry points (typedoc.json, which
// treats warnings as errors, so an exported type that refers to an unexported one fails here).
const ROOT = join(__dirname, '../..');

test('the API reference builds without a warning and documents each library', () => {
  const out = mkdtempSync(join(tmpdir(), 'svcgate-api-'));
  execFileSync(join(ROOT, 'node_modules/.bin/typedoc'), ['--out', out], { cwd: ROOT, stdio: 'pipe' });
  for (const page of ['functions/auth.bearerJwtAcl.html', 'classes/svc.SvcContainer.html', 'functions/fleet.bundleConsumer.html', 'functions/policy.compileAcl.html', 'functions/testing.createTestIssuer.html']) {
    expect(existsSync(join(out, page))).toBe(true);
  }
  expect(readFileSync(join(out, 'functions/auth.bearerJwtAcl.html'), 'utf8')).toContain('Express');
}, 60_000);
