/**
 * A policy.wasm without an entrypoint that its data document needs (`svcgate/authz/plan` for list
 * operations, in a policy built before them). It follows from the two files alone, so a bundle
 * consumer refuses such a bundle once, as it refuses a bad signature, rather than reading it again
 * at every poll.
 */
export class MissingEntrypointError extends Error {
  override readonly name = 'MissingEntrypointError';
  readonly code = 'ERR_SVCGATE_POLICY_ENTRYPOINT';
}
