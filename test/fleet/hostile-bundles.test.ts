import { generateKeyPairSync } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { bundleConsumer, readBundle, verificationKey, type BundleConsumer } from '../../src/fleet';
import { readTarGz, writeTarGz } from '../../src/fleet/bundle/tar-gz';
import { refusal } from '../helpers/bundle-refusal';
import { BundleServer } from '../helpers/bundle-server';
import { exampleBundle } from '../helpers/bundles';
import { paxRecord, tarEntry, tarGz, withEntries } from '../helpers/tar-entries';

// SPEC 9.1: everything read before the signature is checked is bounded and read once. Each
// archive below is what an attacker who can write to the bundle server (but has no signing key)
// serves; sizes are small, since what is asserted is the bound, not the time.
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signing = { key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' as const };
const publicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const options = { verification: verificationKey({ key: publicPem, algorithm: 'RS256' }, '<test>', '$') };

let signed: Buffer;
beforeAll(async () => {
  signed = await exampleBundle({ revision: 'v1', signing });
});

/** The signed bundle with `name` replaced by `bytes` (the signature left as it was). */
async function replaced(name: string, bytes: Buffer): Promise<Buffer> {
  const files = await readTarGz(signed);
  files.set(name, bytes);
  return writeTarGz([...files].map(([file, content]) => ({ name: file, bytes: content })));
}

const directories = (count: number) => Array.from({ length: count }, (_, index) => tarEntry(`d${index}/`, '5'));

describe('tar headers before the signature check', () => {
  test('a PAX or GNU long-name record larger than 8 KiB is refused before it is read (135 M newlines aborted the process)', async () => {
    const newlines = Buffer.alloc(1024 * 1024, '\n');
    const pax = await refusal(readBundle(withEntries(signed, [tarEntry('PaxHeader', 'x', newlines)]), options));
    expect(pax).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_ARCHIVE', message: expect.stringMatching(/PAX extended header of 1048576 bytes; at most 8192 are read/) });
    const global = await refusal(readBundle(withEntries(signed, [tarEntry('pax_global_header', 'g', Buffer.alloc(8193, '\n'))]), options));
    expect(global.message).toMatch(/PAX global header of 8193 bytes/);
    const longName = await refusal(readBundle(withEntries(signed, [tarEntry('././@LongLink', 'L', Buffer.alloc(8193, 'a'))]), options));
    expect(longName).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_ARCHIVE', message: expect.stringMatching(/GNU long name of 8193 bytes/) });
    // Within the cap, a body that is not length-prefixed records is refused, not searched.
    const unframed = await refusal(readBundle(withEntries(signed, [tarEntry('PaxHeader', 'x', Buffer.from('path=a.rego\n'))]), options));
    expect(unframed).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_ARCHIVE', message: expect.stringMatching(/PAX extended header is malformed/) });
  });

  test('PAX records are read by their lengths: a newline inside a value starts no record', async () => {
    // The Rego file's entry renamed, its real name given by a PAX header, as tools write names longer than 100 bytes.
    const files = await readTarGz(signed);
    const rego = files.get('policies/authz.rego')!;
    files.delete('policies/authz.rego');
    const rest = await writeTarGz([...files].map(([name, bytes]) => ({ name, bytes })));
    const header = Buffer.concat([paxRecord('comment', 'x\n99 path=forged.rego'), paxRecord('path', 'policies/authz.rego')]);
    const archive = withEntries(rest, [tarEntry('PaxHeader/authz', 'x', header), tarEntry('placeholder', '0', rego)]);
    // Split on newlines, the comment's value would have named the file forged.rego, which is not signed.
    expect((await readBundle(archive, options)).files.sort()).toEqual(['.manifest', '.signatures.json', 'data.json', 'policies/authz.rego', 'policy.wasm']);
  });

  test('every header counts against the 10,000-entry limit: folders, PAX and long-name records too', async () => {
    const folders = await refusal(readBundle(withEntries(signed, directories(10_001)), options));
    expect(folders).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_ARCHIVE', message: expect.stringMatching(/more than 10000 entries/) });
    const records = Array.from({ length: 3334 }, (_, index) => [tarEntry('PaxHeader', 'x', paxRecord('mtime', String(index))), tarEntry('././@LongLink', 'L', Buffer.from('x')), tarEntry('g', 'g')]).flat();
    expect((await refusal(readBundle(withEntries(signed, records), options))).message).toMatch(/more than 10000 entries/);
    // A few folders, as `tar czf` writes them, are read and skipped.
    expect((await readBundle(withEntries(signed, directories(100)), options)).manifest.revision).toBe('v1');
  });

  test('an activated bundle holds copies of its files, not the archive they came in', async () => {
    const padded = withEntries(signed, directories(4000));
    const bundle = await readBundle(padded, options);
    expect(bundle.wasm!.byteLength).toBeGreaterThan(100_000);
    // Before, policy.wasm was a view into the whole decompressed archive (here 2 MiB of folders).
    expect(bundle.wasm!.buffer.byteLength).toBe(bundle.wasm!.byteLength);
    expect(gunzipSync(padded).length).toBeGreaterThan(2 * 1024 * 1024);
  });
});

describe('control files and digests before the signature check', () => {
  test('.signatures.json and .manifest over 64 KiB are refused before they are parsed', async () => {
    // Not even JSON: a parse would say so; the size is what is reported.
    const notJson = await refusal(readBundle(await replaced('.signatures.json', Buffer.alloc(65_537, 'x')), options));
    expect(notJson).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_SIGNATURE', message: '.signatures.json is 65537 bytes; at most 65536 are read' });
    // The reproduced shape: a list of empty objects (6,000,000 of them stalled every poll).
    const objects = Buffer.from(`{"signatures":[${'{},'.repeat(21_840)}{}]}`);
    expect(objects.length).toBeGreaterThan(65_536);
    expect((await refusal(readBundle(await replaced('.signatures.json', objects), options))).message).toMatch(/at most 65536 are read/);
    const manifest = await refusal(readBundle(await replaced('.manifest', Buffer.alloc(65_537, ' ')), options));
    expect(manifest).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_MANIFEST', message: '.manifest is 65537 bytes; at most 65536 are read' });
  });

  test('a data.json whose bytes differ from the signed ones is refused without being parsed', async () => {
    // Not JSON: the digest of its bytes refuses it; a parse would have thrown a SyntaxError.
    const garbage = await refusal(readBundle(await replaced('data.json', Buffer.from('{"svcgate": not json')), options));
    expect(garbage).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_SIGNATURE', message: '"data.json" does not match its signed hash: the bundle was altered' });
    // Larger than the canonical-form cap (16 MiB by default): refused on the digest of its bytes
    // alone (8,000,000 objects blocked each poll for 5 s while they were parsed and rewritten).
    const objects = Buffer.from(`[${'{},'.repeat(5_600_000)}{}]`);
    expect(objects.length).toBeGreaterThan(16 * 1024 * 1024);
    const large = await refusal(readBundle(await replaced('data.json', objects), options));
    expect(large).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_SIGNATURE', message: expect.stringMatching(/^"data.json" is not byte for byte the signed file, and at \d+ bytes it is over the 16777216 bytes compared in OPA's canonical form/) });
    const largeGarbage = await refusal(readBundle(await replaced('data.json', Buffer.alloc(17 * 1024 * 1024, '{')), options));
    expect(largeGarbage.message).toMatch(/over the 16777216 bytes compared in OPA's canonical form/);
  });

  test('JSON nested deeper than Go reads is refused as altered, not a stack overflow', async () => {
    const deep = Buffer.from(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    const error = await refusal(readBundle(await replaced('data.json', deep), options));
    expect(error.message).toBe('"data.json" does not match its signed hash: the bundle was altered');
  });
});

describe('names and values from a bundle in messages', () => {
  test('are in printable ASCII: C1 controls and bidi overrides are escaped, not only newlines and ANSI escapes', async () => {
    // U+009B alone starts a terminal escape (CSI); U+202E and U+2066 turn the text after them around on screen.
    const name = 'policies/\u009b31m\u202eoger.rego';
    const twice = await refusal(readBundle(tarGz([tarEntry(name, '0', Buffer.from('a')), tarEntry(name, '0', Buffer.from('b'))])));
    expect(twice.message).toBe('the archive holds "policies/\\u009b31m\\u202eoger.rego" twice');
    const unknown = await refusal(readBundle(tarGz([tarEntry('notes/\u2066x.txt', '0', Buffer.from('a'))])));
    expect(unknown.message).toMatch(/^the bundle holds "notes\/\\u2066x\.txt";/);
    const manifest = Buffer.from(JSON.stringify({ revision: 'r', roots: ['\u202eother'] }));
    const roots = await refusal(readBundle(tarGz([tarEntry('.manifest', '0', manifest)])));
    expect(roots).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_MANIFEST', message: expect.stringContaining('roots ["\\u202eother"] do not hold svcgate') });
    for (const error of [twice, unknown, roots]) expect(error.message).toMatch(/^[\x20-\x7e]*$/);
  });
});

describe('a replica polling a hostile bundle server', () => {
  let server: BundleServer;
  let consumer: BundleConsumer | undefined;
  beforeEach(async () => {
    server = new BundleServer();
    await server.start();
  });
  afterEach(async () => {
    consumer?.close();
    await server.dispose();
  });

  test('keeps its verified bundle, and names from the archive reach status and logs quoted', async () => {
    const waiting: { matches: RegExp; resolve: (error: { code: string; message: string }) => void }[] = [];
    consumer = bundleConsumer({
      url: server.url('bundle.tar.gz'),
      polling: { minDelaySeconds: 0.05, maxDelaySeconds: 0.1 },
      verification: { key: publicPem, algorithm: 'RS256' },
      onUpdate: (event) => {
        if (event.type !== 'failed') return;
        for (const waiter of waiting.filter((candidate) => candidate.matches.test(event.error.message))) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(event.error);
        }
      },
    });
    // A poll under way may still fail on the bundle published before: wait for this one's refusal.
    const refused = (matches: RegExp) => new Promise<{ code: string; message: string }>((resolve) => waiting.push({ matches, resolve }));
    server.publish('bundle.tar.gz', signed);
    await consumer.ready();
    expect(consumer.status()).toMatchObject({ revision: 'v1', ready: true });

    const hostile: [Buffer, string, RegExp][] = [
      [withEntries(signed, [tarEntry('PaxHeader', 'x', Buffer.alloc(1024 * 1024, '\n'))]), 'ERR_SVCGATE_BUNDLE_ARCHIVE', /PAX extended header/],
      [withEntries(signed, directories(10_001)), 'ERR_SVCGATE_BUNDLE_ARCHIVE', /more than 10000 entries/],
      [await replaced('.signatures.json', Buffer.alloc(65_537, 'x')), 'ERR_SVCGATE_BUNDLE_SIGNATURE', /at most 65536/],
      [await replaced('data.json', Buffer.from('{"svcgate": not json')), 'ERR_SVCGATE_BUNDLE_SIGNATURE', /does not match its signed hash/],
    ];
    for (const [bytes, code, message] of hostile) {
      const refusal = refused(message);
      server.publish('bundle.tar.gz', bytes);
      expect((await refusal).code).toBe(code);
      expect(consumer.status()).toMatchObject({ revision: 'v1', ready: true });
    }

    // Log injection: a name with a newline and ANSI escapes is quoted wherever it is shown.
    const name = 'policies/authz.rego\n\u001b[31mFORGED';
    const twice = refused(/twice/);
    server.publish('bundle.tar.gz', tarGz([tarEntry(name, '0', Buffer.from('a')), tarEntry(name, '0', Buffer.from('b'))]));
    expect((await twice).message).toBe(`the archive holds ${JSON.stringify(name)} twice`);
    expect(consumer.status().lastError!.message).not.toMatch(/[\n\u001b]/);
    expect(consumer.status()).toMatchObject({ revision: 'v1', ready: true });
  });
});
