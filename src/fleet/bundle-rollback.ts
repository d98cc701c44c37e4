import { quoted } from './quoted-text';

/** A bundle's place in time: its revision, for messages, and its build time (undefined: it has none). */
export interface BundleBuild {
  revision: string;
  /** Milliseconds since the epoch, from the signed manifest's metadata.svcgate.builtAt. */
  builtAt: number | undefined;
}

/** A bundle built before the one activated last: serving it again would bring back what was revoked since. */
export class BundleRollbackError extends Error {
  readonly code = 'ERR_SVCGATE_BUNDLE_ROLLBACK';
  override readonly name = 'BundleRollbackError';
}

/**
 * Refuses `candidate` when it is older than `last`, the bundle activated last. A bundle without
 * a build time cannot be shown to be newer, so once a bundle with one was activated it is refused
 * too; before that (bundles of OPA's tools or of an older svcgate) it is accepted.
 */
export function refuseRollback(candidate: BundleBuild, last: BundleBuild | undefined): void {
  if (last?.builtAt === undefined) return;
  const fix = 'allowRollback: true accepts it';
  const lastOne = `the last activated bundle ${quoted(last.revision)} (built at ${iso(last.builtAt)})`;
  if (candidate.builtAt === undefined) {
    throw new BundleRollbackError(`the bundle ${quoted(candidate.revision)} has no build time (metadata.svcgate.builtAt) and cannot be shown to be newer than ${lastOne}; build it with svcgate bundle, or ${fix}`);
  }
  if (candidate.builtAt < last.builtAt) {
    throw new BundleRollbackError(`the bundle ${quoted(candidate.revision)} was built at ${iso(candidate.builtAt)}, before ${lastOne}: refused as a rollback; ${fix}`);
  }
}

export function iso(time: number): string {
  return new Date(time).toISOString();
}
