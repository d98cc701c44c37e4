import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { SVCGATE_BIN } from '../helpers/svcgate-cli';

// `svcgate audit --html` opened in a real headless Chromium (from the Debian packages; `make test`
// installs it when missing): the page renders, its filters work, and a screenshot is kept.
const ROOT = join(__dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/users-api');
const CHROMIUM = execFileSync('bash', [join(ROOT, 'scripts/install-chromium.sh'), '--find'], { encoding: 'utf8' }).trim();
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'svcgate-audit-page-'));

async function page(acl: string): Promise<string> {
  const file = join(dir, `audit-${Math.random().toString(36).slice(2)}.html`);
  await run(process.execPath, [SVCGATE_BIN, 'audit', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', acl, '--html', file]);
  return file;
}

/** The DOM after the page's scripts ran, serialized by Chromium, with `fragment` as the URL's fragment (the filter state). */
async function rendered(file: string, fragment = ''): Promise<string> {
  const { stdout } = await run(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--dump-dom', `${pathToFileURL(file).href}${fragment}`], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const text = (html: string) => html.replace(/&(quot|amp|lt|gt|#39);/g, (_entity, name: string) => ({ quot: '"', amp: '&', lt: '<', gt: '>', '#39': "'" })[name]!);

/** The rows shown (not hidden), by their operation. */
const shownRows = (dom: string) => [...dom.matchAll(/<tr data-path="([^"]*)"( hidden="")?>/g)].filter((match) => match[2] === undefined).map((match) => text(match[1]!));

/** The role columns shown. */
const shownRoles = (dom: string) => [...dom.matchAll(/<th data-role="[^"]*"( hidden="")?>([^<]*)<\/th>/g)].filter((match) => match[1] === undefined).map((match) => text(match[2]!));

/** One cell: its class, its text, its explanation, and whether it shows. */
function cell(dom: string, operation: string, role: string) {
  const row = dom.slice(dom.indexOf(`<tr data-path="${operation}"`));
  const match = new RegExp(`<td class="(\\w+)" data-role="${role}" title="[^"]*" data-why="([^"]*)" tabindex="0"( hidden="")?>(\\w+)</td>`).exec(row.slice(0, row.indexOf('</tr>')))!;
  return { className: match[1], why: text(match[2]!), shown: match[3] === undefined, text: match[4] };
}

describe('svcgate audit --html in Chromium', () => {
  let file: string;
  beforeAll(async () => {
    file = await page(join(EXAMPLE, 'permissions.yaml'));
  });

  test('renders the matrix with every operation, public ones included, and each cell with its grant', async () => {
    const dom = await rendered(file);
    expect(shownRows(dom)).toEqual(['GET /status', 'GET /users', 'POST /users', 'GET /users/{userId}', 'PUT /users/{userId}', 'DELETE /users/{userId}', 'GET /users/{userId}/reports/{year}-{month}', 'GET /transfers', 'GET /accounts/{accountId}']);
    expect(shownRoles(dom)).toEqual(['admin', 'anonymous', 'user']);
    expect(cell(dom, 'PUT /users/{userId}', 'admin')).toEqual({ className: 'own', text: 'own', shown: true, why: 'admin on PUT /users/{userId}: allowed to owners, attributes ["email","name"]; user /users/{userId} update:own ["name","email"] (admin extends user)' });
    expect(cell(dom, 'GET /users', 'user')).toMatchObject({ className: 'deny', text: 'deny' });
    expect(cell(dom, 'GET /status', 'anonymous')).toMatchObject({ className: 'public', text: 'public' });
  });

  test('a cell names the grant that gives the access, not a list of the role that grants nothing', async () => {
    const acl = join(dir, 'empty-own-list.yaml');
    writeFileSync(acl, 'anonymous: {}\nuser:\n  /users/{userId}:\n    read:any: ["*"]\nadmin:\n  $extend: [user]\n  /users/{userId}:\n    read:any: ["!password"]\n');
    const html = text(readFileSync(await page(acl), 'utf8'));
    expect(html).toContain('user /users/{userId} read:any ["*"] (admin extends user)');
    expect(html).not.toContain('admin /users/{userId} read:any ["!password"]');
  });

  test('a cell says the attributes in effect: its own list united with those its $extend chain grants', async () => {
    const acl = join(dir, 'united-lists.yaml');
    writeFileSync(acl, 'anonymous: {}\nuser:\n  /users/{userId}:\n    read:own: ["*", "!password"]\nadmin:\n  $extend: [user]\n  /users/{userId}:\n    read:own: [name]\n');
    const html = text(readFileSync(await page(acl), 'utf8'));
    // Not only admin's ["name"]: admin sees every field but password.
    expect(html).toContain('admin on GET /users/{userId}: allowed to owners, attributes ["!password","*"]; admin /users/{userId} read:own ["name"]');
  });

  test('filters by role and path: the other columns and rows are hidden', async () => {
    const dom = await rendered(file, '#roles=user&path=users%2F%7BuserId%7D');
    expect(shownRoles(dom)).toEqual(['user']);
    expect(shownRows(dom)).toEqual(['GET /users/{userId}', 'PUT /users/{userId}', 'DELETE /users/{userId}', 'GET /users/{userId}/reports/{year}-{month}']);
    expect(['admin', 'anonymous', 'user'].map((role) => cell(dom, 'GET /users/{userId}', role).shown)).toEqual([false, false, true]);
    // Several roles, and the path in any letter case.
    const two = await rendered(file, '#roles=admin,anonymous&path=TRANSFERS');
    expect([shownRoles(two), shownRows(two)]).toEqual([['admin', 'anonymous'], ['GET /transfers']]);
  });

  test('names from the ACL are text, never markup, and the page asks for nothing from the network', async () => {
    const acl = join(dir, 'hostile.json');
    writeFileSync(acl, JSON.stringify({ anonymous: {}, '<img src=x onerror="document.title=1">': { '/users': { 'read:any': ['*'] } } }));
    const hostile = await page(acl);
    const html = readFileSync(hostile, 'utf8');
    expect(html).toContain("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\"");
    expect(html).not.toMatch(/<img|src="http|href="http/);
    const dom = await rendered(hostile);
    expect(dom).not.toMatch(/<img/);
    expect(shownRoles(dom)).toContain('<img src=x onerror="document.title=1">');
  });

  test('a screenshot of the page is written under build/', async () => {
    const screenshot = join(ROOT, 'build/audit-page.png');
    mkdirSync(join(ROOT, 'build'), { recursive: true });
    await run(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', `--screenshot=${screenshot}`, '--window-size=1100,700', pathToFileURL(file).href]);
    expect(readFileSync(screenshot).subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  });
});
