import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// README snippets that are files run by tests must stay those files, word for word.
const ROOT = join(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

test.each(['examples/quickstart/express.mjs', 'examples/quickstart/oas-tools.mjs', 'examples/quickstart/services.mjs'])('the README shows %s as it is', (file) => {
  expect(README).toContain(`\`\`\`js\n${readFileSync(join(ROOT, file), 'utf8')}\`\`\``);
});
