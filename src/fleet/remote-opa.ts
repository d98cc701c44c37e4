import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { z } from 'zod';
import { parseWith } from '../policy/compile/parse-with';
import { cachedCopy, servedFromCache } from '../policy/evaluate/cached-decisions';
import { decisionKey } from '../policy/evaluate/decision-key';
import type { DecisionSource, ExpectedApi, PolicySource } from '../policy/evaluate/decision-source';
import { decisionFrom, denied, listOf, MALFORMED_DECISION, MAX_CACHED_KEY, unavailable, type Decision, type PolicyInput } from '../policy/evaluate/evaluator';
import { LruCache } from '../policy/evaluate/lru-cache';
import { boundedExchange, readBounded } from '../net/bounded-exchange';
import { shownUrl } from '../net/shown-url';
import { checkDataDocument } from './bundle/data-document-schema';
import { dataDifferences } from './consumer/operation-differences';
import type { SchemaMatches } from '../policy/compile/schema-matches';

export interface RemoteOpaOptions {
  /** OPA's base URL, e.g. `http://127.0.0.1:8181` for a sidecar. */
  url: string;
  /** Milliseconds for one decision, connecting to the last byte; past it the request gets 503. Default `250` (ms). */
  timeoutMs?: number;
  /** Sent with every request, e.g. `{ authorization: 'Bearer ...' }` when OPA runs with `--authentication=token`. Default: none. */
  headers?: Record<string, string>;
  /** Decisions remembered at once; `0` for none. Default `10000`. */
  decisionCacheSize?: number;
  /** Milliseconds a remembered decision is used: OPA's data may change at any time. Default `1000` (ms). */
  cacheTtlMs?: number;
  /** The largest answer read, in bytes. Default 1 MiB (`1048576` bytes). */
  maxResponseBytes?: number;
  /** Seconds between checks that OPA's data is compiled for the served API. Default `30` (seconds). */
  checkIntervalSeconds?: number;
}

const FILE = '<remoteOpa options>';
const schema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'url must be an http or https URL (OPA\'s base URL)' }),
    timeoutMs: z.number().int().positive().max(2 ** 31 - 1).default(250),
    headers: z.record(z.string(), z.string()).default({}),
    decisionCacheSize: z.number().int().nonnegative().default(10_000),
    cacheTtlMs: z.number().int().nonnegative().default(1000),
    maxResponseBytes: z.number().int().positive().default(1024 * 1024),
    checkIntervalSeconds: z.number().positive().max(2_147_483).default(30),
  })
  .strict();
// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof schema, RemoteOpaOptions>;
type Settings = z.infer<typeof schema>;

interface Limits {
  timeoutMs: number;
  maxResponseBytes: number;
}

/** For the whole data document, read at start-up and when its revision changes: as large as a bundle may be. */
const DOCUMENT_LIMITS: Limits = { timeoutMs: 30_000, maxResponseBytes: 256 * 1024 * 1024 };

/**
 * Decisions from an OPA server (a sidecar or a cluster) over its REST Data API, with the same
 * input as in-process. An undefined result is a deny; a timeout, a connection error, a 5xx or an
 * answer that is not a decision is a deny with 503. Before OPA's data has been found compiled for
 * the served API (and whenever a periodic check finds it is not), requests get 503 too.
 */
export function remoteOpa(options: RemoteOpaOptions): PolicySource {
  const settings = parseWith(schema, options, FILE, [], 'see remoteOpa in docs/fleets.md');
  return { connect: (api) => new RemoteOpa(settings, api) };
}

interface Cached {
  decision: Decision;
  expiresAt: number;
}

class RemoteOpa implements DecisionSource {
  private readonly base: URL;
  private readonly agent: Agent;
  private cache: LruCache<string, Cached>;
  private checkedRevision: string | undefined;
  private checking = false;
  private mismatch = 'OPA has not been checked against the served OpenAPI document yet';

  constructor(
    private readonly settings: Settings,
    private readonly api: ExpectedApi,
  ) {
    this.base = new URL(settings.url);
    // Kept-alive sockets: a sidecar is asked on every request, and a new connection costs more than the decision.
    this.agent = this.base.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
    this.cache = new LruCache(settings.decisionCacheSize);
    void this.check();
    setInterval(() => void this.check(), settings.checkIntervalSeconds * 1000).unref();
  }

  get revision(): string {
    return this.checkedRevision ?? '';
  }

  get policyRevision(): string {
    return `opa:${shownUrl(this.base)}`;
  }

  evaluate(input: PolicyInput): Decision | Promise<Decision> {
    if (this.checkedRevision === undefined) return unavailable(this.mismatch, 1);
    let key: string | undefined;
    try {
      key = this.settings.decisionCacheSize > 0 ? decisionKey(input) : undefined;
    } catch {
      key = undefined;
    }
    if (key !== undefined && key.length > MAX_CACHED_KEY) key = undefined;
    const cached = key === undefined ? undefined : this.cache.get(key);
    if (cached !== undefined && cached.expiresAt > Date.now()) return servedFromCache(cached.decision);
    return this.ask(input).then((answer) => {
      if (answer.remember && key !== undefined) this.cache.set(key, { decision: cachedCopy(answer.decision), expiresAt: Date.now() + this.settings.cacheTtlMs });
      return answer.decision;
    });
  }

  private async ask(input: PolicyInput): Promise<{ decision: Decision; remember: boolean }> {
    // A list operation asks the `plan` rule: the decision with the items the caller may see.
    const list = listOf(this.api.operations, input.operation);
    const rule = list === undefined ? 'decision' : 'plan';
    let answer: { status: number; body: unknown };
    try {
      answer = await this.exchange('POST', `/v1/data/svcgate/authz/${rule}`, JSON.stringify({ input }));
    } catch (error) {
      return { decision: unavailable(`the remote OPA did not decide: ${(error as Error).message}`, 1), remember: false };
    }
    if (answer.status !== 200) return { decision: unavailable(`the remote OPA answered ${answer.status}`, 1), remember: false };
    const body = answer.body as { result?: unknown } | null;
    if (body === null || typeof body !== 'object' || !Object.hasOwn(body, 'result')) {
      return { decision: denied(`the remote OPA has no decision: data.svcgate.authz.${rule} is undefined there`), remember: false };
    }
    const decision = decisionFrom(body.result, list, input.claims);
    return { decision, remember: decision.reasons[0] !== MALFORMED_DECISION };
  }

  /** Reads OPA's data document and compares its operations with the served document's. */
  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      // The revision alone first: the whole document (23 MiB for the 1,000 x 1,000 ACL) is read again only when it changed.
      if (this.checkedRevision !== undefined) {
        const current = await this.exchange('GET', '/v1/data/svcgate/acl/revision', undefined);
        if (current.status === 200 && (current.body as { result?: unknown } | null)?.result === this.checkedRevision) return;
      }
      const answer = await this.exchange('GET', '/v1/data/svcgate/acl', undefined, DOCUMENT_LIMITS);
      const data = await checkDataDocument((answer.body as { result?: unknown } | null)?.result);
      if (answer.status !== 200 || !data.success) {
        this.fail(answer.status !== 200 ? `OPA answered ${answer.status} for data.svcgate.acl` : "OPA's data.svcgate.acl is not this svcgate version's data document");
        return;
      }
      const differences = dataDifferences(this.api, data.data);
      if (differences.length > 0) {
        this.fail(`OPA's data does not match the served OpenAPI document: ${differences.join('; ')}`);
        return;
      }
      if (data.data.revision !== this.checkedRevision) this.cache = new LruCache(this.settings.decisionCacheSize);
      this.checkedRevision = data.data.revision;
    } catch (error) {
      // Unreachable now: decisions fail on their own; what was checked stays checked.
      if (this.checkedRevision === undefined) this.mismatch = `OPA could not be checked: ${(error as Error).message}`;
    } finally {
      this.checking = false;
    }
  }

  private fail(problem: string): void {
    this.checkedRevision = undefined;
    this.mismatch = problem;
    process.emitWarning(`remoteOpa ${shownUrl(this.base)}: ${problem}`, { code: 'SVCGATE_REMOTE_OPA_MISMATCH' });
  }

  private exchange(method: 'GET' | 'POST', path: string, body: string | undefined, limits: Limits = this.settings): Promise<{ status: number; body: unknown }> {
    const { timeoutMs, maxResponseBytes } = limits;
    const headers: Record<string, string> = { ...this.settings.headers, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const exchange = { url: new URL(path, this.base), method, headers, body, timeoutMs, agent: this.agent };
    return boundedExchange<{ status: number; body: unknown }>(exchange, exchangeFailures(timeoutMs), (response, finish) => {
      const failures = { tooLarge: () => new Error(`answered more than ${maxResponseBytes} bytes`), broken: () => new Error('broke off its answer') };
      readBounded(response, maxResponseBytes, failures, finish, (bytes) => {
        try {
          finish(undefined, { status: response.statusCode ?? 0, body: JSON.parse(bytes.toString('utf8')) });
        } catch {
          finish(new Error('did not answer JSON'));
        }
      });
    });
  }
}

/** Without the URL: the 503's message and the warning that carry them say which OPA. */
function exchangeFailures(timeoutMs: number) {
  return { timeout: () => new Error(`no answer within ${timeoutMs} ms`), unreachable: (code: string) => new Error(`cannot be reached (${code})`) };
}
