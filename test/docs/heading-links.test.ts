import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

// A link to a heading (`fleets.md#rolling-out-a-permission-change`, `#status-reports-in-opas-format`)
// in the README, the guides or the examples' READMEs names a heading that exists, as GitHub (and
// npm's page) make its anchor: a heading renamed, or a section that a link was written for before
// it landed, fails here instead of sending the reader to the top of the page.
const ROOT = join(__dirname, '../..');

function markdownFiles(): string[] {
  const examples = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'examples', entry.name, 'README.md')))
    .map((entry) => `examples/${entry.name}/README.md`);
  const guides = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...guides, ...examples];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; a repeated one gets -1, -2... */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const prose = text.replace(/^```[\s\S]*?^```$/gm, '');
  for (const [, heading] of prose.matchAll(/^#{1,6} (.*)$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let repeat = 1; found.has(anchor); repeat += 1) anchor = `${base}-${repeat}`;
    found.add(anchor);
  }
  return found;
}

test('every link to a heading of a markdown file names a heading that file has', () => {
  const files = markdownFiles();
  const headings = new Map(files.map((file) => [normalize(file), anchors(readFileSync(join(ROOT, file), 'utf8'))]));
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [link, path, anchor] of text.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(path!)) continue;
      const target = path === '' ? normalize(file) : normalize(relative(ROOT, join(ROOT, dirname(file), path!)));
      const known = headings.get(target);
      if (known !== undefined && !known.has(anchor!)) broken.push(`${file}: ${link}`);
    }
  }
  expect(broken).toEqual([]);
  expect(headings.get(normalize('docs/fleets.md'))).toContain('rolling-out-a-permission-change');
});
