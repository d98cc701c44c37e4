import type { OperationFacts } from '../compile/data-document';
import type { Decision, PolicyInput } from './evaluator';

/**
 * Where an adapter's decisions come from: policy.wasm in-process (Evaluator), one fed by bundles,
 * or a remote OPA. Adapters see only this, never which one it is.
 */
export interface DecisionSource {
  /**
   * Never throws and never rejects: any error on the way is a deny with a reason, and a source that
   * cannot decide now (no bundle activated yet, OPA unreachable) answers a deny with `unavailable`.
   * Local sources answer at once; remote ones with a promise.
   */
  evaluate(input: PolicyInput): Decision | Promise<Decision>;
  /** The revision of the data deciding now; '' when there is none yet. */
  readonly revision: string;
  /** Which policy decides: a hash of policy.wasm, or where the remote OPA is. */
  readonly policyRevision: string;
  /**
   * Bundle name -> revision, when the data came from bundles (decision logs carry it). `undefined`
   * is written out: bundleConsumer's getter returns it before its first bundle, and a project
   * with exactOptionalPropertyTypes checks the class against this interface.
   */
  readonly bundles?: Readonly<Record<string, { revision: string }>> | undefined;
}

/** The API an adapter guards, as its own OpenAPI document compiles: the scheme and every operation without grants. */
export interface ExpectedApi {
  scheme: string;
  operations: Record<string, OperationFacts>;
  /** Names the adapter's configuration in errors, e.g. `<bearerJwtAcl options>`. */
  file: string;
  /**
   * `'none'`: data that grants callers without a role the built-in anonymous default
   * (`anonymous_default: true`) is refused, as it would open every GET route without parameters
   * to anyone (svcAcl). Undefined: either is accepted (BearerJWT and bearerJwtAcl keep the default).
   */
  anonymousDefault?: 'none';
}

/**
 * What an adapter's `policy` option takes in place of `acl`: decisions for the adapter's API from
 * elsewhere (a bundle URL, a remote OPA). Each adapter calls `connect` once at start-up with the
 * operations it routes to; the source refuses data whose operations differ from them, so a route
 * is never decided by the permissions of another API.
 */
export interface PolicySource {
  connect(api: ExpectedApi): DecisionSource;
}
