import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { loadPolicy, loadPolicySync, type LoadedPolicy } from '@open-policy-agent/opa-wasm';
import type { DataDocument, ListSpec, Possession } from '../compile/data-document';
import { cachedCopy, servedFromCache } from './cached-decisions';
import { decisionKey } from './decision-key';
import type { DecisionSource } from './decision-source';
import { InternedLists } from './interned-lists';
import type { ListPlan } from './list-plan';
import { listPlanFrom } from './list-plan-from';
import { LruCache } from './lru-cache';
import { MissingEntrypointError } from './missing-entrypoint-error';
import { policyWasmPath } from './policy-wasm-path';
import { isStringList } from './string-list';
import { wasmCall, type WasmCall } from './wasm-call';

/** What an adapter tells the policy about one request. See docs/policy.md, "Policy input and decision". */
export interface PolicyInput {
  /** `<METHOD> <path>` as keyed in the data document. */
  operation: string;
  /** The raw role claim; leave it out when the token has none (the caller is then `anonymous`). */
  role?: unknown;
  /** Canonical elements of each owned parameter's request value, keyed `<in>:<name>`; null marks an invalid element. */
  params?: Record<string, (string | null)[]>;
  /** Canonical values of each owned parameter's bound claim, keyed like `params`. */
  claims?: Record<string, string[]>;
  /** Results of `checkOwnership`, keyed like `params`; when present, claims are not used. */
  checks?: Record<string, boolean>;
  /** The token's scopes that the operation's scope alternatives name; only for operations that need scopes. */
  scopes?: string[];
}

export interface Decision {
  allow: boolean;
  /** Attribute globs granted (accesscontrol notation); empty on a deny. */
  attributes: string[];
  /** The caller's role through which the deciding grant came, or null. */
  role: string | null;
  /** The best possession granted for the action, even when ownership then failed. */
  possession: Possession | null;
  /**
   * When the token's scopes meet no scope alternative of the operation: the scopes to ask for
   * (those of its first alternative), for an RFC 6750 insufficient_scope challenge. Else empty.
   */
  scopes: string[];
  /** Why the request was denied; empty when allowed. */
  reasons: string[];
  /**
   * Set on a deny because nothing could decide (no bundle activated yet, data older than
   * `maxAge`, a remote OPA unreachable): the adapters answer 503 with `Retry-After`.
   */
  unavailable?: { retryAfterSeconds: number };
  /**
   * On a list operation (`x-acl-list`), the items the caller may see, decided with the rest by the
   * policy's `plan` rule: `none` exactly when `allow` is false. Absent on other operations.
   */
  list?: ListPlan;
}

/** The policy's entrypoint for every operation but list operations; the one a bundle's manifest names. */
export const ENTRYPOINT = 'svcgate/authz/decision';
/** The entrypoint for list operations: `decision` with the plan of the items (`list`). */
export const PLAN_ENTRYPOINT = 'svcgate/authz/plan';
const encoder = new TextEncoder();
/**
 * Inputs whose key is longer than this are decided but not remembered: parameter values come from
 * the client, so a flood of long unique values must not fill memory.
 */
export const MAX_CACHED_KEY = 2048;

export interface EvaluatorOptions {
  /** policy.wasm to evaluate, e.g. from a bundle; default the one built with the package. */
  policy?: Uint8Array;
  /**
   * How many decisions to remember, keyed by the whole input (operation, roles, serialized
   * parameters and claims, ownership results, scopes) and dropped when the data changes. Default 10,000;
   * 0 turns the cache off.
   */
  decisionCacheSize?: number;
}

interface PolicyBytes {
  bytes: Uint8Array;
  revision: string;
}

let shipped: PolicyBytes | undefined;

/** Read once per process; a missing file is a start-up error that says how to build it. */
function readPolicy(): PolicyBytes {
  if (shipped) return shipped;
  const file = policyWasmPath();
  if (!existsSync(file)) throw new Error(`svcgate: ${file} is missing; build it with 'npm run policies:build'`);
  shipped = policyBytes(readFileSync(file));
  return shipped;
}

function policyBytes(bytes: Uint8Array): PolicyBytes {
  return { bytes, revision: createHash('sha256').update(bytes).digest('hex').slice(0, 16) };
}

function chosenPolicy(options: EvaluatorOptions): PolicyBytes {
  return options.policy === undefined ? readPolicy() : policyBytes(options.policy);
}

export function denied(reason: string): Decision {
  return { allow: false, attributes: [], role: null, possession: null, scopes: [], reasons: [reason] };
}

/** A deny because nothing can decide now; the adapters answer 503 with this `Retry-After`. */
export function unavailable(reason: string, retryAfterSeconds: number): Decision {
  return { ...denied(reason), unavailable: { retryAfterSeconds } };
}

/**
 * Evaluates the one fixed policy (policy.wasm) against one data document.
 * `evaluate` never throws: any error on the way to a decision is a deny with a reason.
 */
export class Evaluator implements DecisionSource {
  private cache: LruCache<string, Decision>;
  private lists = decisionLists();
  private call: WasmCall;
  /** The loaded instance the call runs; kept for bench/memory.mjs, which reads its Wasm memory. */
  private policy: LoadedPolicy;
  /** setData calls so far, and the number of the one whose data is in place (see setData). */
  private setDataCalls = 0;
  private swappedCall = 0;

  private constructor(
    policy: LoadedPolicy,
    private current: DataDocument,
    private readonly cacheSize: number,
    private readonly wasm: PolicyBytes,
  ) {
    this.cache = new LruCache(cacheSize);
    this.policy = policy;
    this.call = wasmCall(policy);
  }

  static async create(data: DataDocument, options: EvaluatorOptions = {}): Promise<Evaluator> {
    const text = dataText(data);
    const wasm = chosenPolicy(options);
    return new Evaluator(withData(await loadPolicy(wasm.bytes, memoryFor(text)), text, data), data, options.decisionCacheSize ?? 10_000, wasm);
  }

  /** For adapters that are created synchronously and must fail at start-up, not on a request. */
  static createSync(data: DataDocument, options: EvaluatorOptions = {}): Evaluator {
    const text = dataText(data);
    const wasm = chosenPolicy(options);
    return new Evaluator(withData(loadPolicySync(wasm.bytes, memoryFor(text)), text, data), data, options.decisionCacheSize ?? 10_000, wasm);
  }

  /** A hash of policy.wasm, so decision logs say which policy decided. */
  get policyRevision(): string {
    return this.wasm.revision;
  }

  get data(): DataDocument {
    return this.current;
  }

  get revision(): string {
    return this.current.revision;
  }

  evaluate(input: PolicyInput): Decision {
    let key: string | undefined;
    let resultSet: unknown;
    let list: ListSpec | undefined;
    try {
      key = this.cacheSize > 0 ? decisionKey(input) : undefined;
      if (key !== undefined && key.length > MAX_CACHED_KEY) key = undefined;
      const cached = key === undefined ? undefined : this.cache.get(key);
      if (cached) return servedFromCache(cached);
      list = listOf(this.current.operations, input.operation);
      resultSet = this.call(JSON.stringify(input), list === undefined ? ENTRYPOINT : PLAN_ENTRYPOINT);
    } catch (error) {
      // opa-wasm throws strings as well as Errors.
      return denied(`policy evaluation failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const decision = readDecision(resultSet, list, input.claims, this.lists);
    if (key !== undefined) this.cache.set(key, cachedCopy(decision));
    return decision;
  }

  /**
   * Loads new data into a fresh instance, then swaps; evaluations in between use the old data. Of
   * calls that overlap, the latest one that succeeds stays: an earlier call whose instance is
   * ready later (instantiation runs off the thread) swaps nothing.
   */
  async setData(data: DataDocument): Promise<void> {
    const call = ++this.setDataCalls;
    const text = dataText(data);
    const next = withData(await loadPolicy(this.wasm.bytes, memoryFor(text)), text, data);
    if (call < this.swappedCall) return;
    this.swappedCall = call;
    this.policy = next;
    this.call = wasmCall(next);
    this.current = data;
    this.cache = new LruCache(this.cacheSize);
    this.lists = decisionLists();
  }
}

/**
 * The lists an evaluator's decisions share (see InternedLists). Reasons have a table of their own:
 * they may name roles from tokens (`role <name> is not declared in the ACL`), so denials for many
 * undeclared roles fill it, and must not use up the room of the lists the data document grants.
 */
export interface DecisionLists {
  /** Granted attribute globs and scopes to ask for: lists of the data document. */
  granted: InternedLists;
  reasons: InternedLists;
}

function decisionLists(): DecisionLists {
  return { granted: new InternedLists(), reasons: new InternedLists() };
}

const PAGE_BYTES = 65_536;
/** The most a 32-bit Wasm memory can have. */
const MAX_PAGES = 65_536;

/** The data document as the policy reads it (`data.svcgate.acl`), as JSON bytes. */
function dataText(data: DataDocument): Uint8Array {
  return encoder.encode(JSON.stringify({ svcgate: { acl: data } }));
}

/**
 * The Wasm memory to start with. OPA's allocator grows the memory by a page whenever it runs out
 * while it parses the data, and each grow costs more the larger the memory is (the 23 MiB data
 * document of schema 3 loaded in 26 s from 8 pages and in 2 s from enough). Parsed data takes 4 to
 * 15 times its JSON size (the grant table's rows are strings, kept as they are; operations are
 * small objects); pages it does not use are reserved, not resident.
 */
function memoryFor(text: Uint8Array): { initial: number } {
  return { initial: Math.min(MAX_PAGES, Math.max(8, Math.ceil((text.byteLength * 16) / PAGE_BYTES))) };
}

function withData(loaded: LoadedPolicy, text: Uint8Array, data: DataDocument): LoadedPolicy {
  refuseMissingPlan(loaded, data);
  loaded.setData(text.buffer as ArrayBuffer);
  return loaded;
}

/**
 * A policy.wasm built before list operations (a bundle's, an `EvaluatorOptions.policy`) has no
 * `plan` entrypoint: refused when it would have to decide one, rather than denying every list
 * request with an evaluation error.
 */
function refuseMissingPlan(loaded: LoadedPolicy, data: DataDocument): void {
  const entrypoints = (loaded as unknown as { entrypoints?: Record<string, number> }).entrypoints ?? {};
  if (Object.hasOwn(entrypoints, PLAN_ENTRYPOINT)) return;
  const lists = Object.entries(data.operations ?? {}).filter(([, operation]) => operation?.list !== undefined);
  if (lists.length === 0) return;
  throw new MissingEntrypointError(`policy.wasm has no entrypoint ${PLAN_ENTRYPOINT}, which the list operation ${lists[0]![0]} needs: build the policy (or the bundle) with this version of svcgate`);
}

/** The list operation `operation` names, if it is one; `operations` comes from a document that may have been written by hand. */
export function listOf(operations: Readonly<Record<string, { list?: ListSpec }>>, operation: unknown): ListSpec | undefined {
  if (typeof operation !== 'string' || typeof operations !== 'object' || operations === null || !Object.hasOwn(operations, operation)) return undefined;
  return operations[operation]?.list;
}

/** Accepts only a result of exactly the documented shape; anything else is a deny. */
function readDecision(resultSet: unknown, list: ListSpec | undefined, claims: PolicyInput['claims'], lists: DecisionLists): Decision {
  if (!Array.isArray(resultSet) || resultSet.length !== 1) return denied('the policy returned no decision');
  return decisionFrom((resultSet[0] as { result?: unknown } | undefined)?.result, list, claims, lists);
}

export const MALFORMED_DECISION = 'the policy returned a malformed decision';

/**
 * The policy's `decision` (or, for a list operation, `plan`) value as a Decision when it has
 * exactly the documented shape, else a deny. A plan must agree with the decision beside it and take
 * its values from the input's `claims` (see listPlanFrom). With `lists`, its lists are the frozen
 * copies seen before (see DecisionLists).
 */
export function decisionFrom(result: unknown, list?: ListSpec, claims?: PolicyInput['claims'], lists?: DecisionLists): Decision {
  if (!isDecision(result)) return denied(MALFORMED_DECISION);
  const { attributes, scopes, reasons } = result;
  const decision: Decision = lists
    ? { allow: result.allow, attributes: lists.granted.intern(attributes), role: result.role, possession: result.possession, scopes: lists.granted.intern(scopes), reasons: lists.reasons.intern(reasons) }
    : { allow: result.allow, attributes, role: result.role, possession: result.possession, scopes, reasons };
  if (list !== undefined) {
    const plan = listPlanFrom((result as { list?: unknown }).list, list, decision, claims ?? {});
    if (plan === undefined) return denied(MALFORMED_DECISION);
    decision.list = plan;
  }
  if (!decision.allow && decision.reasons.length === 0) return { ...decision, reasons: ['denied by policy'] };
  return decision;
}

function isDecision(value: unknown): value is Decision {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Record<string, unknown>;
  return (
    typeof d.allow === 'boolean' &&
    isStringList(d.attributes) &&
    (d.role === null || typeof d.role === 'string') &&
    (d.possession === null || d.possession === 'any' || d.possession === 'own') &&
    isStringList(d.scopes) &&
    isStringList(d.reasons)
  );
}
