import { BundleError } from './bundle-error';
import { isPlainObject } from '../../policy/compile/documents/plain-object';
import { quotedJson } from '../../policy/compile/quoted-text';

/**
 * A bundle's build time, written by `svcgate bundle` into the manifest's `metadata.svcgate.builtAt`
 * (an ISO 8601 UTC time). The manifest is a signed file, so the time is as trusted as the bundle:
 * a consumer compares it with its active bundle's to refuse an older bundle served again
 * (rollback protection, which OPA's bundles lack). OPA keeps `metadata` as it is.
 */
export function builtAtMetadata(builtAt: Date): { builtAt: string } {
  if (Number.isNaN(builtAt.getTime())) throw new TypeError('builtAt must be a valid Date');
  return { builtAt: builtAt.toISOString() };
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * The build time (milliseconds since the epoch) in a manifest's metadata, undefined when it has
 * none (a bundle of another writer, or of a svcgate before rollback protection). A value that is
 * there but not a time is refused: a consumer cannot order such a bundle.
 */
export function bundleBuiltAt(metadata: unknown): number | undefined {
  const svcgate = isPlainObject(metadata) ? metadata.svcgate : undefined;
  const builtAt = isPlainObject(svcgate) ? svcgate.builtAt : undefined;
  if (builtAt === undefined) return undefined;
  const time = typeof builtAt === 'string' && ISO_UTC.test(builtAt) ? Date.parse(builtAt) : Number.NaN;
  if (!Number.isFinite(time)) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_MANIFEST', `the manifest's metadata.svcgate.builtAt ${quotedJson(builtAt, 80)} is not an ISO 8601 UTC time (2026-11-26T10:00:00.000Z)`);
  }
  return time;
}
