import { resolve } from 'node:path';
import { ConfigError } from '../../policy/compile/config-error';
import type { DataDocument } from '../../policy/compile/data-document';
import { Evaluator } from '../../policy/evaluate/evaluator';
import { MissingEntrypointError } from '../../policy/evaluate/missing-entrypoint-error';
import { BundleError } from '../../fleet/bundle/bundle-error';
import { BUNDLE_LIMITS } from '../../fleet/bundle/bundle-limits';
import { readBundle, type Bundle } from '../../fleet/bundle/bundle-reader';
import { SIGNING_ALGORITHMS, verificationKey, type SigningAlgorithm, type VerificationKey } from '../../fleet/bundle/bundle-signature';
import { dataDifferences, type ApiShape } from '../../fleet/consumer/operation-differences';
import { readInputFile } from '../command-files';
import { UsageError } from '../usage-error';

/** What decides the recorded inputs again, and how the report names it. */
export interface Candidate {
  evaluator: Evaluator;
  data: DataDocument;
  /** `acl`: compiled from --acl and --openapi; `bundle`: read from --bundle. */
  from: 'acl' | 'bundle';
  file: string;
  /** The bundle's manifest revision, else the data document's. */
  revision: string;
}

/** A verification key is a PEM or an HMAC secret: far below this. */
const MAX_KEY_BYTES = 1024 * 1024;

/** The candidate an ACL compiles to, decided by the package's policy.wasm, as the adapters decide. */
export async function aclCandidate(data: DataDocument, file: string): Promise<Candidate> {
  return { evaluator: await Evaluator.create(data), data, from: 'acl', file, revision: data.revision };
}

export interface BundleCandidateOptions {
  /** --bundle-key: the PEM public key (or certificate), or HMAC secret, the bundle is signed with. */
  keyFile?: string;
  /** --bundle-alg, default RS256 as bundleConsumer's. */
  algorithm?: string;
  /** The API of --openapi, when given: the bundle must decide exactly its operations. */
  api?: ApiShape;
}

/**
 * The candidate a bundle holds: its data document and its policy.wasm (the package's when it has
 * none), after the checks a bundleConsumer makes before it activates one: archive limits, the
 * signature (with a key, only a bundle signed with it; without one, a signed bundle is refused, as
 * the consumer refuses it), svcgate's data document, the served API's operations (with --openapi)
 * and the entrypoints its list operations need. Any refusal is an error that names the file. The
 * build time is not compared with a clock or an active bundle: nothing is activated here.
 */
export async function bundleCandidate(file: string, options: BundleCandidateOptions): Promise<Candidate> {
  const verification = options.keyFile === undefined ? undefined : readKey(options.keyFile, options.algorithm);
  if (verification === undefined && options.algorithm !== undefined) throw new UsageError('--bundle-alg needs --bundle-key <file>');
  const shown = resolve(file);
  let bundle: Bundle;
  try {
    bundle = await readBundle(readInputFile(file, 'bundle', BUNDLE_LIMITS.maxInflatedBytes), verification === undefined ? {} : { verification });
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    const fix = error.code === 'ERR_SVCGATE_BUNDLE_SIGNATURE' ? 'give --bundle-key <file> with the public key (PEM) or HMAC secret the bundle is signed with, and --bundle-alg when it is not RS256' : 'build it with svcgate bundle';
    throw new ConfigError(shown, '$', `the bundle is refused (${error.code}): ${error.message}`, fix);
  }
  if (options.api !== undefined) {
    const differences = dataDifferences(options.api, bundle.data);
    if (differences.length > 0) throw new ConfigError(shown, '$', `the bundle does not match the OpenAPI document: ${differences.join('; ')}`, 'give the document the bundle was built from, or build the bundle from this one');
  }
  let evaluator: Evaluator;
  try {
    evaluator = await Evaluator.create(bundle.data, { policy: bundle.wasm });
  } catch (error) {
    if (error instanceof MissingEntrypointError) throw new ConfigError(shown, '$', `the bundle is refused (${error.code}): ${error.message}`, 'build it with this version of svcgate');
    throw error;
  }
  return { evaluator, data: bundle.data, from: 'bundle', file, revision: bundle.manifest.revision || bundle.data.revision };
}

function readKey(keyFile: string, algorithmOption: string | undefined): VerificationKey {
  const algorithm = (algorithmOption ?? 'RS256') as SigningAlgorithm;
  if (!SIGNING_ALGORITHMS.includes(algorithm)) throw new UsageError(`--bundle-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  // The file's bytes as they are: an HMAC secret with a trailing newline is another secret.
  const bytes = readInputFile(keyFile, 'bundle verification key', MAX_KEY_BYTES);
  return verificationKey({ key: algorithm.startsWith('HS') ? bytes : bytes.toString('utf8'), algorithm }, resolve(keyFile), '$');
}
