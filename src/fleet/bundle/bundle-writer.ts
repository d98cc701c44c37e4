import type { DataDocument } from '../../policy/compile/data-document';
import { ENTRYPOINT } from '../../policy/evaluate/evaluator';
import { builtAtMetadata } from './bundle-build-time';
import { canonicalJson } from './canonical-json';
import { signFiles, type BundleSigning } from './bundle-signature';
import { writeTarGz } from './tar-gz';

/** What {@link writeBundle} puts in the bundle, and how it signs it. */
export interface WriteBundleOptions {
  /** The compiled ACL (compileAcl's data document), written as `data.json` under `svcgate.acl`. */
  data: DataDocument;
  /** policy.wasm; the reader evaluates it in-process. */
  wasm: Uint8Array;
  /** The Rego source by file name (e.g. `svcgate/authz/policy.rego`): what OPA itself evaluates. */
  rego: Record<string, string>;
  /** The manifest's revision. Default: the data document's revision. */
  revision?: string;
  /**
   * The build time written into the manifest (`metadata.svcgate.builtAt`); default now. A
   * consumer refuses a bundle built before its active one (see bundleConsumer's allowRollback).
   */
  builtAt?: Date;
  /** Signs the bundle (`.signatures.json`, as `opa sign` writes it). Default: unsigned. */
  signing?: BundleSigning;
}

/** The bundle's roots: svcgate owns `data.svcgate` (its policy and its data), and nothing else. */
export const BUNDLE_ROOTS = ['svcgate'];

/**
 * policy.wasm's entrypoint, in the manifest's `metadata` rather than OPA's `wasm` list: OPA would
 * load the module listed there, and an OPA without a Wasm runtime (as `go install` builds it)
 * would refuse the bundle; from `metadata` svcgate reads it and OPA ignores it.
 */
export const WASM_ENTRYPOINT = { entrypoint: ENTRYPOINT, module: '/policy.wasm' };

/**
 * An OPA bundle that both OPA and svcgate's consumer activate: `.manifest` (with the build
 * time), `data.json` (`{"svcgate":{"acl": <data document>}}`), the Rego source, `policy.wasm`
 * and, when signing, `.signatures.json`. OPA evaluates the Rego, svcgate the Wasm built from
 * the same Rego (see WASM_ENTRYPOINT).
 */
export async function writeBundle(options: WriteBundleOptions): Promise<Buffer> {
  // Canonical, so that a reader checks the signed hash of data.json on its bytes (see checkFile).
  const json = (value: unknown) => Buffer.from(canonicalJson(value), 'utf8');
  const files = new Map<string, Uint8Array>([
    ['.manifest', json({ revision: options.revision ?? options.data.revision, roots: BUNDLE_ROOTS, metadata: { svcgate: { wasm: WASM_ENTRYPOINT, ...builtAtMetadata(options.builtAt ?? new Date()) } } })],
    ['data.json', json({ svcgate: { acl: options.data } })],
    ...Object.entries(options.rego).map(([name, source]): [string, Uint8Array] => [name, Buffer.from(source, 'utf8')]),
    ['policy.wasm', options.wasm],
  ]);
  const signed = options.signing ? new Map([...files, ['.signatures.json', Buffer.from(await signFiles(files, options.signing), 'utf8')]]) : files;
  // OPA reads .manifest and .signatures.json before the other files; they come first.
  const order = ['.signatures.json', '.manifest'];
  const names = [...signed.keys()].sort((a, b) => rank(a, order) - rank(b, order));
  return writeTarGz(names.map((name) => ({ name, bytes: signed.get(name)! })));
}

function rank(name: string, first: string[]): number {
  const index = first.indexOf(name);
  return index === -1 ? first.length : index;
}
