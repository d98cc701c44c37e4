import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { optionReport, type DocNode, type OptionReport } from '../helpers/option-comments';

// `make docs`: TypeDoc reads the TSDoc comments of the five entry points (typedoc.json, which
// treats warnings as errors, so an exported type that refers to an unexported one fails here).
// One run writes the HTML pages and the JSON model the option checks read.
const ROOT = join(__dirname, '../..');
let out: string;
let options: OptionReport;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'svcgate-api-'));
  execFileSync(join(ROOT, 'node_modules/.bin/typedoc'), ['--out', join(out, 'html'), '--json', join(out, 'api.json')], { cwd: ROOT, stdio: 'pipe' });
  options = optionReport(JSON.parse(readFileSync(join(out, 'api.json'), 'utf8')) as DocNode);
}, 60_000);

test('the API reference builds without a warning and documents each library', () => {
  for (const page of ['functions/auth.bearerJwtAcl.html', 'classes/svc.SvcContainer.html', 'functions/fleet.bundleConsumer.html', 'functions/policy.compileAcl.html', 'functions/testing.createTestIssuer.html']) {
    expect(existsSync(join(out, 'html', page))).toBe(true);
  }
  expect(readFileSync(join(out, 'html', 'functions/auth.bearerJwtAcl.html'), 'utf8')).toContain('Express');
});

describe('the option reference', () => {
  test('every option type is an interface, so that TypeDoc and editors list its fields', () => {
    // The ones a user meets first, by name: were one dropped from the walk, this would say so.
    expect(options.optionTypes).toEqual(
      expect.arrayContaining(['auth.BearerJwtConfig', 'auth.DpopOptions', 'auth.BearerJwtAclOptions', 'auth.OasAclOptions', 'svc.SvcAclOptions', 'svc.RegisterOptions', 'fleet.BundleConsumerOptions', 'fleet.RemoteOpaOptions', 'fleet.DecisionLogUploaderOptions', 'policy.CompileAclOptions', 'testing.TestIssuerOptions', 'testing.PermissionSuite']),
    );
    expect(options.notInterfaces).toEqual([]);
  });

  test('every field of every option type, nested ones too, has a description', () => {
    expect(options.undescribed).toEqual([]);
  });

  test('the misspelled algoritms is marked deprecated, so that editors strike it out', () => {
    expect(options.tags.get('auth.BearerJwtConfig.algoritms')).toContain('@deprecated');
    expect(options.tags.get('auth.BearerJwtConfig.algorithms')).not.toContain('@deprecated');
  });
});
