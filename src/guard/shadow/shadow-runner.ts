import type { ServerResponse } from 'node:http';
import { decisionChange } from '../../policy/evaluate/decision-change';
import { checkedIfOwned, type DecideOptions, type DecisionResult } from '../../policy/evaluate/decide';
import type { DecisionSource } from '../../policy/evaluate/decision-source';
import type { Decision, PolicyInput } from '../../policy/evaluate/evaluator';
import { thenOrNow } from '../../policy/evaluate/then-or-now';
import type { VerifiedPayload } from '../../policy/request/build-input';
import type { OperationMatch } from '../../policy/request/match-operation';
import type { ShadowOutcome } from '../../telemetry/channels';
import { recordShadowComparison } from '../../telemetry/record-shadow';
import { DECISION_PATH, logShadowDivergence, PLAN_PATH, type DecisionLog } from '../decision-log';
import { withListPlan } from '../list-operations';
import { shadowRole } from './shadow-role';
import { ShadowSampler } from './shadow-sampler';
import type { ShadowStatus } from './shadow-options';
import { ShadowTally } from './shadow-tally';

/** Candidate decisions pending at once at most (a slow remote OPA); past it sampled requests are skipped as `busy`. */
export const MAX_PENDING = 64;

/** Who asked, and how the adapter decides ownership: a candidate that grants `own` where the active policy did not may need checkOwnership too. */
export interface ShadowCaller {
  payload: VerifiedPayload | undefined;
  options: DecideOptions;
}

/** A request sampled in this turn, waiting for its answer to be sent. */
interface Sampled {
  result: DecisionResult;
  match: OperationMatch;
  res: ServerResponse | undefined;
  caller: ShadowCaller | undefined;
}

/** The shadow settings after validation: sampleRate and timeoutMs settled. */
export interface ShadowSettings {
  sampleRate: number;
  maxPerSecond?: number | undefined;
  timeoutMs: number;
}

/**
 * Decides sampled requests with a candidate source after their answer is sent, and compares its
 * decision with the one that answered. Nothing here can change an answer: it starts once the
 * response has closed, holds its own errors, and bounds what it keeps.
 */
export class ShadowRunner {
  private readonly sampler: ShadowSampler;
  private readonly tally = new ShadowTally();
  private pending = 0;
  private queued: Sampled[] = [];

  constructor(
    private readonly active: DecisionSource,
    private readonly candidate: DecisionSource,
    private readonly settings: ShadowSettings,
    private readonly decisionLog: DecisionLog | undefined,
  ) {
    this.sampler = new ShadowSampler(settings.sampleRate, settings.maxPerSecond);
  }

  /**
   * Called by the guard with each decision it made (never with a refusal before one). Returns at
   * once; the candidate decides after `res` closes (at the next turn when there is no response).
   */
  observe(result: DecisionResult, match: OperationMatch, res: ServerResponse | undefined, undecided: boolean, payload?: VerifiedPayload, options?: DecideOptions): void {
    if (this.settings.sampleRate === 0) return;
    if (undecided || result.decision.unavailable) return this.tally.skipped('undecided');
    const skip = this.sampler.take();
    if (skip !== undefined) return this.tally.skipped(skip);
    // Built only for a sampled request: at sampleRate 0 a request costs this call and one comparison.
    const caller: ShadowCaller | undefined = options && { payload, options };
    // One setImmediate per turn for every request sampled in it: by then most handlers have ended
    // their response, and only the others need a 'close' listener each.
    if (this.queued.push({ result, match, res, caller }) === 1) setImmediate(this.drain);
  }

  /** Decides each queued request whose response has ended, and the others once theirs closes. */
  private readonly drain = (): void => {
    const queued = this.queued;
    this.queued = [];
    for (const sampled of queued) {
      const { result, match, res, caller } = sampled;
      // The guard's caller set `req.res`; an app's or a middleware's own object there must not
      // throw out of this turn, nor keep the request from being compared.
      try {
        if (res === undefined || res.writableEnded || res.closed) this.decide(result, match, caller);
        else res.once('close', () => this.decide(result, match, caller));
      } catch (error) {
        this.failed(match.key, result.decision, error);
      }
    }
  };

  status(): ShadowStatus {
    return {
      sampleRate: this.settings.sampleRate,
      maxPerSecond: this.settings.maxPerSecond ?? null,
      active: { policy_revision: this.active.policyRevision, data_revision: this.active.revision },
      candidate: { policy_revision: this.candidate.policyRevision, data_revision: this.candidate.revision },
      ...this.tally.snapshot(),
    };
  }

  private decide(result: DecisionResult, match: OperationMatch, caller: ShadowCaller | undefined): void {
    if (this.pending >= MAX_PENDING) return this.tally.skipped('busy');
    let decided: unknown;
    try {
      // A copy: the input is the one the decision log holds of the active decision (the uploader
      // serialises it later), which a candidate of the app's own must not be able to change.
      decided = this.candidateDecision(copiedInput(result.input), match, caller);
      // Read inside the try: an answer whose `then` throws when read would throw out of the 'close' listener.
      if (isThenable(decided)) return this.awaited(decided, result, match);
    } catch (error) {
      return this.failed(match.key, result.decision, error);
    }
    this.compare(result, match, decided);
  }

  /**
   * The candidate's decision of `input`, as if it were active. With checkOwnership, the active
   * decision ran the checks only if it needed them; when it did not (`checks` empty), a candidate
   * that grants `own` only is given them as the guard would (checkedIfOwned), else its deny would
   * be counted as narrowed where the caller owns the item.
   */
  private candidateDecision(input: PolicyInput, match: OperationMatch, caller: ShadowCaller | undefined): unknown {
    const first = this.candidate.evaluate(input);
    if (caller?.options.checkOwnership === undefined || caller.payload === undefined || Object.keys(input.checks ?? { ran: true }).length > 0) return first;
    const { payload, options } = caller;
    const checked = (decision: unknown) => (isDecision(decision) ? thenOrNow(checkedIfOwned(this.candidate, decision, match.operation, input, payload, options), (done) => done.decision) : decision);
    return isThenable(first) ? Promise.resolve(first).then(checked) : checked(first);
  }

  /**
   * Waits at most timeoutMs for a candidate's promise. What waits is cleared when the wait ends:
   * a promise that never settles (or one the candidate hands every caller) keeps a reaction per
   * request, which must not keep that request's input and decisions too.
   */
  private awaited(decided: PromiseLike<unknown>, result: DecisionResult, match: OperationMatch): void {
    this.pending += 1;
    let waiting: { result: DecisionResult; match: OperationMatch } | undefined = { result, match };
    const settle = (decision: unknown, error?: { error: unknown }) => {
      const taken = waiting;
      if (taken === undefined) return;
      waiting = undefined;
      clearTimeout(timer);
      this.pending -= 1;
      if (error === undefined) this.compare(taken.result, taken.match, decision);
      else this.failed(taken.match.key, taken.result.decision, error.error);
    };
    const timer = setTimeout(() => settle(undefined, { error: new Error(`the candidate did not decide within ${this.settings.timeoutMs} ms`) }), this.settings.timeoutMs);
    timer.unref();
    // compare and failed hold their errors; a `then` that throws rejects this promise, which is handled.
    Promise.resolve(decided).then(
      (decision) => settle(decision),
      (error: unknown) => settle(undefined, { error }),
    );
  }

  private compare(result: DecisionResult, match: OperationMatch, decided: unknown): void {
    try {
      if (!isDecision(decided)) throw new Error('the candidate answered something that is not a decision');
      if (decided.unavailable) {
        this.tally.unavailable(typeof decided.reasons?.[0] === 'string' ? decided.reasons[0] : undefined);
        return this.record(match.key, 'unavailable', result.decision, decided);
      }
      // As the guard acts on a list operation's decision (authorize.ts, planned).
      const shadow = withListPlan(match.operation, decided);
      const change = decisionChange(result.decision, shadow);
      const role = shadowRole(result.input.role);
      this.tally.compared(match.key, role, change);
      this.record(match.key, change ?? 'same', result.decision, shadow);
      if (change === undefined) return;
      const path = match.operation.list === undefined ? DECISION_PATH : PLAN_PATH;
      const revisions = { policy_revision: this.candidate.policyRevision, data_revision: this.candidate.revision };
      const decisionId = this.decisionLog === undefined ? '' : logShadowDivergence(this.decisionLog, this.active, result.input, result.decision, path, { result: shadow, ...revisions, change });
      if (!this.tally.wantsExample()) return;
      this.tally.example({
        decision_id: decisionId,
        timestamp: new Date().toISOString(),
        operation: match.key,
        role,
        change,
        active: { allow: result.decision.allow, attributes: [...result.decision.attributes] },
        shadow: { allow: shadow.allow, attributes: [...shadow.attributes] },
      });
    } catch (error) {
      this.failed(match.key, result.decision, error);
    }
  }

  private failed(operation: string, active: Decision, error: unknown): void {
    this.tally.failed(errorMessage(error));
    this.record(operation, 'error', active, undefined);
  }

  private record(operation: string, outcome: ShadowOutcome, active: Decision, shadow: Decision | undefined): void {
    recordShadowComparison({ operation, outcome, active, ...(shadow === undefined ? {} : { shadow }), policyRevision: this.candidate.policyRevision, dataRevision: this.candidate.revision });
  }
}

/**
 * A copy of the input for the candidate, written for its shape (records of lists, lists, strings):
 * a tenth of structuredClone's cost. Only a role claim that is an object is cloned whole.
 */
function copiedInput(input: PolicyInput): PolicyInput {
  // fromEntries defines each key, so no key could set a prototype.
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, copiedValue(value, key === 'role')])) as unknown as PolicyInput;
}

function copiedValue(value: unknown, deep: boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (deep) return structuredClone(value);
  if (Array.isArray(value)) return value.slice();
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, Array.isArray(entry) ? entry.slice() : entry]));
}

/** What a candidate threw may be anything, even a value that throws when made a string (`Object.create(null)`). */
function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'the candidate failed with a value that cannot be shown';
  }
}

function isThenable(value: unknown): value is PromiseLike<Decision> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A source other than svcgate's own may answer anything; only a decision's shape is compared. */
function isDecision(value: unknown): value is Decision {
  const decision = value as Partial<Decision> | null;
  return typeof decision === 'object' && decision !== null && typeof decision.allow === 'boolean' && Array.isArray(decision.attributes);
}
