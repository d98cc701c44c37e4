import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SVCGATE_BIN } from '../helpers/svcgate-cli';

// `svcgate audit --json | head -1`: the reader closes the pipe after its first line. The command
// ends with its own exit code and nothing on stderr (was Node's "Unhandled 'error' event" with a
// stack trace: write EPIPE).
const dir = mkdtempSync(join(tmpdir(), 'svcgate-closed-output-'));
const paths = Object.fromEntries(Array.from({ length: 3000 }, (_, index) => [`/r${index}`, { get: { responses: { 200: { description: 'ok' } } } }]));
writeFileSync(
  join(dir, 'openapi.json'),
  JSON.stringify({ openapi: '3.0.3', info: { title: 'many', version: '1' }, security: [{ bearer: [] }], components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } }, paths }),
);
writeFileSync(join(dir, 'acl.json'), JSON.stringify({ anonymous: {}, user: { '/r1': { 'read:any': ['*'] } } }));

/** Runs svcgate, reads its first chunk of stdout and closes the pipe, as `| head -c` does. */
function readFirstChunk(...args: string[]): Promise<{ code: number | null; first: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVCGATE_BIN, ...args]);
    let first = '';
    let stderr = '';
    child.stdout.once('data', (chunk: Buffer) => {
      first = chunk.toString();
      child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, first, stderr }));
  });
}

test.each([
  ['audit --json', ['--json']],
  ['audit as text', []],
])('%s read in part: its exit code, no stack trace', async (_name, extra) => {
  const { code, first, stderr } = await readFirstChunk('audit', '--openapi', join(dir, 'openapi.json'), '--acl', join(dir, 'acl.json'), ...extra);
  expect(first.length).toBeGreaterThan(0);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
});
