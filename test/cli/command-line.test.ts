import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { svcgate } from '../helpers/svcgate-cli';

// Issue 29, section 4: what the built CLI says when its command line or a file it names is wrong,
// --strict, and what explain says of a caller without a token. Each run is the real bin on real files.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const API = ['--openapi', OPENAPI, '--acl', join(EXAMPLE, 'permissions.yaml')];
const dir = mkdtempSync(join(tmpdir(), 'svcgate-command-line-'));

/** One line on stderr, nothing on stdout, exit 2: the shape of every refusal. */
function refused(run: { code: number; stdout: string; stderr: string }): string {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  return run.stderr;
}

describe('options the parser refuses: one clear line each', () => {
  test('an unknown option names the closest option of that command', async () => {
    expect(refused(await svcgate('audit', ...API, '--htm', 'page.html'))).toBe('svcgate: unknown option --htm; did you mean --html?\n');
    expect(refused(await svcgate('bundle', ...API, '--signing-kye', 'k.pem', '--out', 'b.tar.gz'))).toBe('svcgate: unknown option --signing-kye; did you mean --signing-key?\n');
    // --out is an option of build and bundle, not of diff: what diff takes is suggested.
    expect(refused(await svcgate('diff', ...API, '--acl-nwe', 'x.yaml'))).toBe('svcgate: unknown option --acl-nwe; did you mean --acl-new?\n');
    expect(refused(await svcgate('explain', ...API, '--token-claim', '{}', 'GET', '/users'))).toBe('svcgate: unknown option --token-claim; did you mean --token-claims?\n');
  });

  test('in another letter case, or a part of the name (or more of it) than the option has', async () => {
    expect(refused(await svcgate('audit', ...API, '--HTML', 'page.html'))).toBe('svcgate: unknown option --HTML; did you mean --html?\n');
    expect(refused(await svcgate('explain', ...API, '--claims', '{}', 'GET', '/users'))).toBe('svcgate: unknown option --claims; did you mean --token-claims?\n');
    expect(refused(await svcgate('build', ...API, '--output', 'build'))).toBe('svcgate: unknown option --output; did you mean --out?\n');
    // Held in two options of bundle (--signing-key, --signing-key-id): no guess.
    expect(refused(await svcgate('bundle', ...API, '--key', 'k.pem'))).toBe('svcgate: unknown option --key (svcgate bundle --help)\n');
  });

  test('no suggestion when no option is close, and no Node parser text', async () => {
    const stderr = refused(await svcgate('audit', ...API, '--colour'));
    expect(stderr).toBe('svcgate: unknown option --colour (svcgate audit --help)\n');
    expect(refused(await svcgate('audit', ...API, '-x'))).toBe('svcgate: unknown option -x (svcgate audit --help)\n');
    expect(refused(await svcgate('--verbose'))).toBe('svcgate: unknown option --verbose (svcgate --help)\n');
  });

  test('an option without its value, a value given to a flag, an option taken as a value', async () => {
    expect(refused(await svcgate('audit', '--acl', join(EXAMPLE, 'permissions.yaml'), '--openapi'))).toBe('svcgate: --openapi needs a value: --openapi <file> (svcgate audit --help)\n');
    expect(refused(await svcgate('audit', ...API, '--json=yes'))).toBe('svcgate: --json takes no value, got --json=yes (svcgate audit --help)\n');
    expect(refused(await svcgate('audit', '--openapi', '--acl', 'x.yaml'))).toBe(
      'svcgate: --openapi needs a value: --openapi <file>; it is followed by the option --acl (write --openapi=--acl if that is the value) (svcgate audit --help)\n',
    );
  });

  test('an empty value is a missing value: not the working directory, not a bundle of revision ""', async () => {
    expect(refused(await svcgate('audit', ...API, '--html='))).toBe('svcgate: --html needs a value: --html <file> (svcgate audit --help)\n');
    expect(refused(await svcgate('bundle', ...API, '--out', ''))).toBe('svcgate: --out needs a value: --out <file.tar.gz> (svcgate bundle --help)\n');
    expect(refused(await svcgate('audit', '--openapi=', '--acl', join(EXAMPLE, 'permissions.yaml')))).toBe('svcgate: --openapi needs a value: --openapi <file> (svcgate audit --help)\n');
    expect(refused(await svcgate('audit', ...API, '--ref-root', ''))).toBe('svcgate: --ref-root needs a value: --ref-root <dir> (svcgate audit --help)\n');
    expect(refused(await svcgate('test', 'suite.yaml', '--junit='))).toBe('svcgate: --junit needs a value: --junit <file> (svcgate test --help)\n');
    // An unset variable in CI: --revision "$GIT_SHA".
    expect(refused(await svcgate('bundle', ...API, '--revision', '', '--out', join(dir, 'b.tar.gz')))).toBe('svcgate: --revision needs a value: --revision <r> (svcgate bundle --help)\n');
    expect(refused(await svcgate('bundle', ...API, '--signing-key', join(dir, 'k.pem'), '--signing-key-id=', '--out', join(dir, 'b.tar.gz')))).toBe('svcgate: --signing-key-id needs a value: --signing-key-id <id> (svcgate bundle --help)\n');
    expect(refused(await svcgate('explain', ...API, '--scheme', '', 'GET', '/users'))).toBe('svcgate: --scheme needs a value: --scheme <name> (svcgate explain --help)\n');
    // --required-scopes "" is no scopes, as an empty scope claim is.
    expect((await svcgate('audit', ...API, '--required-scopes', '')).code).toBe(0);
  });

  test('an option given twice is refused, not the last one silently kept', async () => {
    expect(refused(await svcgate('diff', ...API, '--acl', 'new.yaml'))).toBe('svcgate: --acl is given twice; give it once (svcgate diff --help)\n');
  });

  test('svcgate help and svcgate help <command> are --help by another name', async () => {
    const [overview, help, auditHelp, viaHelp] = await Promise.all([svcgate('--help'), svcgate('help'), svcgate('audit', '--help'), svcgate('help', 'audit')]);
    expect(help).toEqual({ code: 0, stdout: overview.stdout, stderr: '' });
    expect(overview.stdout).toContain('svcgate <command> --help (or svcgate help <command>) tells');
    expect(viaHelp).toEqual({ code: 0, stdout: auditHelp.stdout, stderr: '' });
    expect(refused(await svcgate('help', 'audti'))).toBe('svcgate: unknown command audti; the commands are build, explain, audit, diff, replay, bundle, test, openapi (svcgate --help)\n');
  });

  test('an argument a command does not take', async () => {
    expect(refused(await svcgate('audit', ...API, 'extra'))).toBe('svcgate: unexpected argument extra (svcgate audit --help)\n');
  });
});

describe('a file an option names that cannot be read or written: the formatted file error, exit 2', () => {
  const missing = join(dir, 'nowhere');
  const folderYaml = join(dir, 'acl.yaml');
  mkdirSync(folderYaml);
  test.each([
    ['--signing-key', ['bundle', ...API, '--signing-key', join(dir, 'nokey.pem'), '--out', join(dir, 'b.tar.gz')], `${join(dir, 'nokey.pem')} at $: cannot read the signing key (ENOENT). Fix: check the path and the file permissions`],
    ['--signing-key a folder', ['bundle', ...API, '--signing-key', dir, '--out', join(dir, 'b.tar.gz')], `${dir} at $: cannot read the signing key (EISDIR). Fix: name a file, not a folder`],
    ['--openapi', ['audit', '--openapi', join(dir, 'none.yaml'), '--acl', join(EXAMPLE, 'permissions.yaml')], `${join(dir, 'none.yaml')} at $: cannot read the OpenAPI document (ENOENT). Fix: check the path and the file permissions`],
    ['--acl', ['audit', '--openapi', OPENAPI, '--acl', join(dir, 'none.yaml')], `${join(dir, 'none.yaml')} at $: cannot read the ACL (ENOENT). Fix: check the path and the file permissions`],
    ['--openapi a folder', ['audit', '--openapi', dir, '--acl', join(EXAMPLE, 'permissions.yaml')], `${dir} at $: the OpenAPI document is a folder. Fix: name a .json, .yaml or .yml file`],
    ['--acl a folder named as a document', ['audit', '--openapi', OPENAPI, '--acl', folderYaml], `${folderYaml} at $: cannot read the ACL (EISDIR). Fix: name a .json, .yaml or .yml file, not a folder`],
    ['--acl-new', ['diff', ...API, '--acl-new', join(dir, 'none.yaml')], `${join(dir, 'none.yaml')} at $: cannot read the ACL (ENOENT). Fix: check the path and the file permissions`],
    ['--ref-root', ['audit', ...API, '--ref-root', missing], `${missing} at $: cannot read the --ref-root folder (ENOENT). Fix: check the path and the file permissions`],
    ['--html in a missing folder', ['audit', ...API, '--html', join(missing, 'audit.html')], `${join(missing, 'audit.html')} at $: cannot write the audit page (ENOENT). Fix: create the folder ${missing} first, or name a file in a folder that exists`],
    ['--html a folder', ['audit', ...API, '--html', dir], `${dir} at $: cannot write the audit page (EISDIR). Fix: name a file, not a folder`],
    ['bundle --out a folder', ['bundle', ...API, '--out', dir], `${dir} at $: cannot write the bundle (EISDIR). Fix: name a file, not a folder`],
    ['test <suite>', ['test', join(dir, 'none.yaml')], `${join(dir, 'none.yaml')} at $: cannot read the permission suite (ENOENT). Fix: check the path and the file permissions`],
  ])('%s', async (_name, args, message) => {
    expect(refused(await svcgate(...args))).toBe(`svcgate: ${message}\n`);
  });

  test('a signing key that cannot sign: the file named, with what it should hold', async () => {
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a key');
    expect(refused(await svcgate('bundle', ...API, '--signing-key', garbage, '--out', join(dir, 'b.tar.gz')))).toMatch(
      new RegExp(`^svcgate: ${garbage.replace(/[.]/g, '\\.')} at \\$: cannot sign RS256 with the signing key: .+\\. Fix: give the PEM private key RS256 signs with \\(RS and PS: RSA; ES256, ES384, ES512: EC P-256, P-384, P-521\\)\n$`),
    );
    const short = join(dir, 'short.key');
    writeFileSync(short, 'too short');
    expect(refused(await svcgate('bundle', ...API, '--signing-key', short, '--signing-alg', 'HS256', '--out', join(dir, 'b.tar.gz')))).toBe(
      `svcgate: ${short} at $: cannot sign HS256 with the signing key: the secret is shorter than 32 bytes. Fix: give a secret of at least 32 bytes (the file is read byte for byte)\n`,
    );
  });

  test('build --out and test --junit under a file, where no folder can be made', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    expect(refused(await svcgate('build', ...API, '--out', join(file, 'out')))).toBe(`svcgate: ${join(file, 'out')} at $: cannot write the data document folder (ENOTDIR). Fix: a part of the path is a file, not a folder: name another path\n`);
    const suite = join(EXAMPLE, 'permissions.test.yaml');
    const report = refused(await svcgate('test', suite, '--junit', join(file, 'report.xml')));
    expect(report).toMatch(/^svcgate: \S+a-file at \$: cannot write the JUnit report \(EEXIST\)\. Fix: a part of the path is a file, not a folder: name another path\n$/);
  });
});

describe('--strict: warnings make the exit code 1', () => {
  const noAnonymous = join(dir, 'no-anonymous.json');
  writeFileSync(noAnonymous, JSON.stringify({ admin: { '/users': { 'read:any': ['*'] } } }));
  const unused = join(dir, 'unused-grant.json');
  writeFileSync(unused, JSON.stringify({ anonymous: {}, admin: { '/users': { 'read:any': ['*'], 'delete:any': ['*'] } } }));
  const clean = join(dir, 'clean.json');
  writeFileSync(clean, JSON.stringify({ anonymous: {}, admin: { '/users': { 'read:any': ['*'] } } }));
  const WARNED = /^svcgate: --strict: 1 warning \((SVCGATE_ANONYMOUS_DEFAULT|SVCGATE_UNUSED_GRANT)\), so the exit code is 1$/m;

  test.each([
    ['audit', ['audit', '--openapi', OPENAPI]],
    ['bundle', ['bundle', '--openapi', OPENAPI, '--out', join(dir, 'strict.tar.gz')]],
    ['build', ['build', '--openapi', OPENAPI, '--out', join(dir, 'strict-build')]],
  ])('%s: the anonymous default, an unused grant', async (_name, args) => {
    for (const acl of [noAnonymous, unused]) {
      const without = await svcgate(...args, '--acl', acl);
      expect(without.code).toBe(0);
      expect(without.stderr).toMatch(/\[SVCGATE_(ANONYMOUS_DEFAULT|UNUSED_GRANT)\] Warning: /);
      const strict = await svcgate(...args, '--acl', acl, '--strict');
      expect(strict.code).toBe(1);
      // The command did its work: the same output as without --strict (a bundle's bytes hold its build time).
      expect(strict.stdout.replace(/\d+ bytes/, 'N bytes')).toBe(without.stdout.replace(/\d+ bytes/, 'N bytes'));
      expect(strict.stderr).toMatch(WARNED);
    }
    expect(await svcgate(...args, '--acl', clean, '--strict')).toMatchObject({ code: 0, stderr: '' });
  });

  test('explain: an allowed request is exit 1 under --strict when a warning was printed', async () => {
    const claims = ['--token-claims', '{"role":"admin"}', 'GET', '/users'];
    expect((await svcgate('explain', '--openapi', OPENAPI, '--acl', noAnonymous, ...claims)).code).toBe(0);
    const strict = await svcgate('explain', '--openapi', OPENAPI, '--acl', noAnonymous, '--strict', ...claims);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('decision: ALLOW\n');
    expect(strict.stderr).toMatch(WARNED);
    expect((await svcgate('explain', '--openapi', OPENAPI, '--acl', clean, '--strict', ...claims)).code).toBe(0);
  });

  test("diff: the new ACL's warnings count; without --strict the exit code is unchanged", async () => {
    expect((await svcgate('diff', '--openapi', OPENAPI, '--acl', clean, '--acl-new', unused)).code).toBe(0);
    const strict = await svcgate('diff', '--openapi', OPENAPI, '--acl', clean, '--acl-new', unused, '--strict');
    expect(strict).toMatchObject({ code: 1, stdout: 'no decision changes\n' });
    expect(strict.stderr).toMatch(WARNED);
    // The old ACL is what is already there: its warnings are shown, and a change that removes them passes.
    expect((await svcgate('diff', '--openapi', OPENAPI, '--acl', unused, '--acl-new', clean, '--strict')).code).toBe(0);
  });

  test('test: a suite whose ACL warns is exit 1 under --strict, every case passing', async () => {
    const suite = (acl: string, name: string) => {
      const file = join(dir, name);
      const cases = [{ name: 'admin lists users', principal: 'admin', request: { method: 'GET', path: '/api/v1/users' }, expect: { status: 200 } }];
      writeFileSync(file, JSON.stringify({ name, openapi: OPENAPI, acl, principals: { admin: { claims: { role: 'admin' } } }, tests: cases }));
      return file;
    };
    const warned = suite(noAnonymous, 'warned-suite.json');
    expect((await svcgate('test', warned)).code).toBe(0);
    const strict = await svcgate('test', warned, '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('1 cases: 1 passed, 0 failed');
    expect(strict.stderr).toMatch(WARNED);
    expect(await svcgate('test', suite(clean, 'clean-suite.json'), '--strict')).toMatchObject({ code: 0, stderr: '' });
  });

  test('--strict is in the help of the five commands', async () => {
    for (const command of ['audit', 'bundle', 'explain', 'diff', 'test']) expect((await svcgate(command, '--help')).stdout).toContain('\n  --strict ');
  });
});

describe('explain says what a caller without a token is answered', () => {
  test('no token on a guarded operation: the answer is 401', async () => {
    const { code, stdout } = await svcgate('explain', ...API, 'GET', '/users');
    expect(code).toBe(1);
    expect(stdout).toContain('caller: no token (decided as anonymous)\n');
    expect(stdout).toContain('answer: 401, no token: the operation requires the bearer scheme bearerAuth (WWW-Authenticate: Bearer)\n');
  });

  test('a token without a role claim ({}) is not "no token": the answer is 403', async () => {
    const { code, stdout } = await svcgate('explain', ...API, '--token-claims', '{}', 'GET', '/users');
    expect(code).toBe(1);
    expect(stdout).toContain('caller: a token without a role claim at role (decided as anonymous)\n');
    expect(stdout).toContain('answer: 403, the token is valid but the policy denies\n');
  });

  test('anonymous access the built-in anonymous default permits is named as such', async () => {
    const acl = join(dir, 'default-on.json');
    writeFileSync(acl, JSON.stringify({ admin: {} }));
    const { code, stdout } = await svcgate('explain', '--openapi', OPENAPI, '--acl', acl, 'GET', '/users');
    expect(code).toBe(0);
    expect(stdout).toContain(
      'answer: the handler runs without a token: the built-in anonymous default permits it (read:any on operations without parameters, because the ACL does not declare anonymous; declare anonymous: {} to turn it off)\n',
    );
  });

  test('an operation without security, and a token the policy allows', async () => {
    expect((await svcgate('explain', ...API, 'GET', '/status')).stdout).toContain('answer: the handler runs: the operation needs no token\n');
    const owner = await svcgate('explain', ...API, '--token-claims', '{"role":"user","userId":[3]}', 'GET', '/users/3');
    expect(owner.stdout).toContain('caller: a token with role user\nanswer: the handler runs\n');
  });
});
