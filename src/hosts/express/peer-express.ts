/**
 * A part of svcgate that builds an Express app (SvcApi, the permission-suite runner) ran in a
 * project without `express`, its peer dependency: installed with `--omit=peer`, with npm 6, or
 * with `legacy-peer-deps`. Thrown when the app is built, not when svcgate is imported, so the
 * parts that need no Express (the policy, the CLI's audits, bearerJwt) work without it.
 */
export class MissingPeerError extends Error {
  readonly code = 'ERR_SVCGATE_MISSING_PEER';
  override readonly name = 'MissingPeerError';

  constructor(
    /** The peer dependency that could not be found. */
    readonly peer: string,
    /** The range of it svcgate works with. */
    readonly range: string,
    /** What needed it. */
    readonly neededBy: string,
  ) {
    super(`${neededBy} needs ${peer} (${range}), a peer dependency of svcgate, and it is not installed. Fix: npm install ${peer}`);
  }
}

/**
 * The project's `express`, loaded on first use, typed as the caller names it.
 * Loaded here rather than by a top-level import so that importing `svcgate`, `svcgate/svc` or
 * `svcgate/testing` without Express works, and only building an app says what is missing. The
 * caller names the module's type, so that this file's declaration imports nothing from `express`
 * (published declarations must type-check without @types/express).
 */
export function peerExpress<ExpressModule>(neededBy: string): ExpressModule {
  try {
    require.resolve('express');
  } catch {
    throw new MissingPeerError('express', '^4.17.0 || ^5.0.0', neededBy);
  }
  // Found, so an error loading it (a broken install) is Node's own, passed on as it is. require,
  // not import(): svcgate's build is CommonJS (its ESM entries wrap it), and Node caches the module.
  return require('express') as ExpressModule;
}
