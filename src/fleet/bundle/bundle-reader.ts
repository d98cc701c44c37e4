import type { DataDocument } from '../../policy/compile/data-document';
import { isPlainObject } from '../../policy/compile/documents/plain-object';
import { BundleError } from './bundle-error';
import { BUNDLE_LIMITS } from './bundle-limits';
import { WASM_ENTRYPOINT } from './bundle-writer';
import { verifyFiles, type VerificationKey } from './bundle-signature';
import { checkDataDocument } from './data-document-schema';
import { readTarGz } from './tar-gz';
import { quoted, quotedJson } from '../../policy/compile/quoted-text';

/** How {@link readBundle} checks a bundle. */
export interface ReadBundleOptions {
  /** From {@link verificationKey}: with it, only a bundle signed with this key is read; without it, a signed bundle is refused, as OPA refuses one. */
  verification?: VerificationKey;
  /** The largest bundle accepted once decompressed, in bytes. Default 256 MiB (`268435456` bytes). */
  maxBytes?: number;
}

export interface Bundle {
  /** `metadata` as the manifest holds it (undefined without one): svcgate's build time is at `metadata.svcgate.builtAt`. */
  manifest: { revision: string; roots: string[]; metadata?: unknown };
  data: DataDocument;
  /** policy.wasm, or undefined when the bundle has none (the package's own is used then). */
  wasm: Uint8Array | undefined;
  /** Every file of the bundle. */
  files: string[];
  signed: boolean;
}

/** The files parsed whole before the signature is checked, with the code their refusal carries. */
const CONTROL_FILES: Readonly<Record<string, string>> = { '.manifest': 'ERR_SVCGATE_BUNDLE_MANIFEST', '.signatures.json': 'ERR_SVCGATE_BUNDLE_SIGNATURE' };

/**
 * Reads, verifies and checks a bundle: the archive within limits, the signature over every file,
 * a manifest whose roots hold `svcgate`, and svcgate's data document at `data.svcgate.acl`.
 * Throws BundleError, whose message says what to fix, on anything else.
 */
export async function readBundle(bytes: Uint8Array, options: ReadBundleOptions = {}): Promise<Bundle> {
  const files = await readTarGz(bytes, options.maxBytes === undefined ? BUNDLE_LIMITS : { ...BUNDLE_LIMITS, maxInflatedBytes: options.maxBytes });
  for (const [name, code] of Object.entries(CONTROL_FILES)) {
    const size = files.get(name)?.byteLength ?? 0;
    if (size > BUNDLE_LIMITS.maxControlFileBytes) throw new BundleError(code, `${name} is ${size} bytes; at most ${BUNDLE_LIMITS.maxControlFileBytes} are read`);
  }
  const signatures = files.get('.signatures.json');
  files.delete('.signatures.json');
  if (options.verification !== undefined) {
    if (signatures === undefined) throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', 'the bundle is not signed, and a verification key is configured');
    await verifyFiles(signatures, files, options.verification);
  } else if (signatures !== undefined) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', 'the bundle is signed but no verification key is configured; give verification: { key } to check it');
  }
  for (const name of files.keys()) {
    if (!knownFile(name)) throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the bundle holds ${quoted(name)}; svcgate reads .manifest, data.json, policy.wasm and .rego files only`);
  }
  return {
    manifest: readManifest(files.get('.manifest')),
    data: await readData(files),
    wasm: files.get('policy.wasm'),
    files: [...files.keys(), ...(signatures ? ['.signatures.json'] : [])],
    signed: signatures !== undefined,
  };
}

function knownFile(name: string): boolean {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return name === '.manifest' || name === 'policy.wasm' || base === 'data.json' || base.endsWith('.rego');
}

function readManifest(bytes: Buffer | undefined): Bundle['manifest'] {
  if (bytes === undefined) return { revision: '', roots: [''] };
  const manifest = parseJson(bytes, '.manifest') as { revision?: unknown; roots?: unknown; metadata?: { svcgate?: { wasm?: unknown } } } | null;
  const revision = manifest?.revision ?? '';
  const roots = manifest?.roots ?? [''];
  if (typeof revision !== 'string' || !Array.isArray(roots) || !roots.every((root) => typeof root === 'string')) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_MANIFEST', '.manifest must hold { "revision": "<string>", "roots": ["<path>", ...] }');
  }
  if (!roots.some((root) => root === '' || root === 'svcgate' || root === 'svcgate/acl')) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_MANIFEST', `the manifest's roots ${quotedJson(roots)} do not hold svcgate; the data must be under data.svcgate.acl`);
  }
  const wasm = manifest?.metadata?.svcgate?.wasm;
  if (wasm !== undefined && !isWasmEntrypoint(wasm)) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_MANIFEST', `the manifest names the Wasm entrypoint ${quotedJson(wasm)}; svcgate's policy.wasm answers ${JSON.stringify(WASM_ENTRYPOINT)}`);
  }
  return manifest?.metadata === undefined ? { revision, roots: roots as string[] } : { revision, roots: roots as string[], metadata: manifest.metadata };
}

/** Compared field by field, not by serialising `value`, which could be nested deep enough to overflow the stack. */
function isWasmEntrypoint(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  return Object.keys(value).length === 2 && value.entrypoint === WASM_ENTRYPOINT.entrypoint && value.module === WASM_ENTRYPOINT.module;
}

/** Each data.json sits at its folder's path in `data` (OPA's layout); svcgate's document is `data.svcgate.acl`. */
async function readData(files: Map<string, Buffer>): Promise<DataDocument> {
  let found: unknown;
  for (const [name, bytes] of files) {
    if (name !== 'data.json' && !name.endsWith('/data.json')) continue;
    const at = name === 'data.json' ? [] : name.slice(0, -'/data.json'.length).split('/');
    const document = [...at].reverse().reduce<unknown>((inner, key) => ({ [key]: inner }), parseJson(bytes, name));
    const acl = (document as { svcgate?: { acl?: unknown } } | null)?.svcgate?.acl;
    if (acl === undefined) continue;
    if (found !== undefined) throw new BundleError('ERR_SVCGATE_BUNDLE_DATA', 'the bundle holds data.svcgate.acl in more than one data.json');
    found = acl;
  }
  if (found === undefined) throw new BundleError('ERR_SVCGATE_BUNDLE_DATA', 'the bundle has no data.svcgate.acl; build it with `svcgate bundle`');
  const checked = await checkDataDocument(found);
  if (!checked.success) throw new BundleError('ERR_SVCGATE_BUNDLE_DATA', `data.svcgate.acl is not svcgate's data document: ${checked.problem}`);
  return checked.data;
}

function parseJson(bytes: Buffer, name: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new BundleError('ERR_SVCGATE_BUNDLE_DATA', `${quoted(name)} is not UTF-8 JSON`);
  }
}
