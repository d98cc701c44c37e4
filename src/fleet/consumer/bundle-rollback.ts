import { quoted } from '../../policy/compile/quoted-text';

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

/** How far a build time may be ahead of this machine's clock: the skew between two machines' clocks, not more. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * A bundle whose build time is further ahead of this machine's clock than clocks drift apart (the
 * builder's clock ran ahead, or the value was chosen). Activated, it would refuse every bundle built
 * before that time as a rollback, freezing the fleet on it. The code is the manifest's, but unlike
 * other refusals this one depends on the clock: the bundle is read again at the next poll.
 */
export class FutureBuildTimeError extends Error {
  readonly code = 'ERR_SVCGATE_BUNDLE_MANIFEST';
  override readonly name = 'FutureBuildTimeError';
}

/** Refuses `candidate` when it was built more than MAX_CLOCK_SKEW_MS after `now`. */
export function refuseFutureBuild(candidate: BundleBuild, now: number): void {
  if (candidate.builtAt === undefined || candidate.builtAt - now <= MAX_CLOCK_SKEW_MS) return;
  throw new FutureBuildTimeError(
    `the bundle ${quoted(candidate.revision)} was built at ${iso(candidate.builtAt)}, more than ${MAX_CLOCK_SKEW_MS / 60_000} minutes after this machine's time (${iso(now)}): activated, it would refuse every bundle built before then; it is refused until then (correct the clock that is wrong)`,
  );
}

export function iso(time: number): string {
  return new Date(time).toISOString();
}
