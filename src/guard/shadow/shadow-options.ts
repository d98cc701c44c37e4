import type { PolicySource } from '../../policy/evaluate/decision-source';

/**
 * A candidate policy that decides sampled requests beside the active one, after the answer is
 * sent, without changing or delaying it (SPEC 12; docs/fleets.md, "Rolling out a permission change").
 */
export interface ShadowOptions {
  /**
   * The candidate, as `acl`/`policy` take it for the guarded scheme: a permission declaration
   * (object or JSON/YAML file, compiled with the adapter's own OpenAPI document), a
   * `bundleConsumer(...)` or a `remoteOpa(...)`. bearerJwtAcl and BearerJWT also take it keyed by
   * the scheme, `{ bearerAuth: <candidate> }`, as their `acl` and `policy` are.
   */
  source: unknown | PolicySource;
  /** The share of decided requests the candidate decides too, 0 to 1. Default 1 (every one). */
  sampleRate?: number;
  /** At most this many candidate decisions started per second; the rest are counted as skipped. Default: no limit. */
  maxPerSecond?: number;
  /**
   * Milliseconds a candidate decision may take (a remote OPA, a promise that never settles); past
   * it the comparison counts as an error and its slot is freed. Default 2000.
   */
  timeoutMs?: number;
}

/** The shadow's counts and first divergences: the middleware's `shadowStatus()`. */
export interface ShadowStatus {
  sampleRate: number;
  maxPerSecond: number | null;
  /** The revisions of the active source and of the candidate now. */
  active: { policy_revision: string; data_revision: string };
  candidate: { policy_revision: string; data_revision: string };
  /** Sampled requests the candidate decided and that were compared with the active decision. */
  compared: number;
  /** Compared requests whose decisions differed (the sum of `changes`). */
  divergences: number;
  changes: ShadowChanges;
  /** Sampled requests the candidate could not decide: it answered `unavailable` (no bundle yet, OPA down). */
  unavailable: number;
  /** Candidate decisions that threw, rejected or took longer than `timeoutMs`. */
  errors: number;
  /**
   * Requests not given to the candidate: `sampling` (left out by `sampleRate`), `rate` (past
   * `maxPerSecond`), `busy` (too many candidate decisions still pending), `undecided` (the
   * request was refused before a decision, or the active policy was unavailable).
   */
  skipped: { sampling: number; rate: number; busy: number; undecided: number };
  /** By operation (`GET /users/{userId}`): compared requests and divergences. */
  byOperation: Record<string, ShadowCounts>;
  /**
   * By the caller's role claim (roles joined with `,`, `anonymous` without one); at most 64 role
   * sets are named, the rest counted under `(other roles)` so that tokens cannot grow the table.
   */
  byRole: Record<string, ShadowCounts>;
  /** The first divergences (at most 10), without claims or parameter values: find the full event by `decision_id` in the decision log. */
  examples: ShadowExample[];
  /** The last candidate error, or why the candidate last answered `unavailable` (`the candidate could not decide: ...`). */
  lastError: { message: string; at: string } | null;
}

export interface ShadowChanges {
  /** The candidate allows more: a deny that it allows, more fields, more rows. */
  widened: number;
  narrowed: number;
  /** Some of both. */
  changed: number;
}

export interface ShadowCounts extends ShadowChanges {
  compared: number;
  divergences: number;
}

export interface ShadowExample {
  /** The decision-log event of the divergence (when the adapter has a `decisionLog`). */
  decision_id: string;
  timestamp: string;
  operation: string;
  role: string;
  change: keyof ShadowChanges;
  active: { allow: boolean; attributes: string[] };
  shadow: { allow: boolean; attributes: string[] };
}
