import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../../policy/compile/config-error';
import type { DataDocument } from '../../policy/compile/data-document';
import type { DecisionSource, ExpectedApi, PolicySource } from '../../policy/evaluate/decision-source';
import { Evaluator, unavailable, type Decision, type PolicyInput } from '../../policy/evaluate/evaluator';
import { MissingEntrypointError } from '../../policy/evaluate/missing-entrypoint-error';
import { keepProcessAliveUntil } from '../../net/keep-process-alive';
import { shownUrl } from '../../net/shown-url';
import { bundleBuiltAt } from '../bundle/bundle-build-time';
import { bundleConsumerOptions, type BundleConsumerOptions, type ConsumerSettings } from './bundle-consumer-options';
import { readBundle, type Bundle } from '../bundle/bundle-reader';
import { BundleError } from '../bundle/bundle-error';
import { BundlePersistError } from './bundle-persist-error';
import { BundleRollbackError, iso, refuseFutureBuild, refuseRollback, type BundleBuild } from './bundle-rollback';
import { fetchBundle } from './fetch-bundle';
import { BundleDownloadError } from './bundle-download-error';
import { dataDifferences, operationDifferences } from './operation-differences';
import { bundleDigest } from '../bundle/sliced-digest';
import { recordBundleEvent, watchBundle } from '../../telemetry/record-fleet';
import { persistBundle, persistCheck, persistedState, type PersistedCandidate, type PersistedCheck, type PersistedState } from './persisted-bundle';

/** What a consumer reports: its status object, `onUpdate` events and the health handler's body. */
export interface BundleStatus {
  name: string;
  /** The bundle URL, without credentials: no user, password, query or fragment. */
  url: string;
  /** True when a bundle is active and, with `maxAgeSeconds`, checked recently enough: guarded requests are decided. */
  ready: boolean;
  /** The active bundle's manifest revision; null before the first activation. */
  revision: string | null;
  /** The revision of the active data document (decision logs carry it too). */
  dataRevision: string | null;
  /** The active bundle's build time (ISO 8601, from its signed manifest); null without one. */
  builtAt: string | null;
  /** Where the active bundle came from: the server, or the persisted copy at start-up. */
  activatedFrom: 'server' | 'persisted' | null;
  /** The active bundle's size in bytes, compressed as it was served; null before the first activation. */
  size: number | null;
  /** How long the last request to the server took, in milliseconds, to its last byte or its failure; null before one. */
  requestDurationMs: number | null;
  /**
   * ISO 8601 times: the last request to the server; the last that found the active bundle current
   * or activated a new one (a refused bundle is no successful request); the last 200; the last activation.
   */
  lastRequest: string | null;
  lastSuccessfulRequest: string | null;
  lastSuccessfulDownload: string | null;
  lastSuccessfulActivation: string | null;
  /**
   * The last failure (download, refusal, activation; else persisting), cleared by the next
   * successful check. A refused bundle's error stays while the server keeps serving that bundle.
   * `httpStatus`: the server's answer when a download was answered other than 200 or 304.
   */
  lastError: { code: string; message: string; at: string; httpStatus?: number } | null;
}

export type BundleEvent =
  | { type: 'activated'; status: BundleStatus }
  | { type: 'unchanged'; status: BundleStatus }
  | { type: 'failed'; status: BundleStatus; error: { code: string; message: string } }
  /** The persisted copy could not be written (or, at start-up, was not usable); what is active is unchanged. */
  | { type: 'persist-failed'; status: BundleStatus; error: { code: string; message: string } };

interface Active extends BundleBuild {
  evaluator: Evaluator;
  data: DataDocument;
  /** The SHA-256 of the bundle's bytes: a server without ETags sending it again is told from a new one by it. */
  digest: string;
  etag: string | undefined;
}

/** A bundle verified and read, not yet checked against the API and the active one. */
interface OpenedBundle {
  bundle: Bundle;
  build: BundleBuild;
  /** Its bytes, compressed. */
  size: number;
}

/**
 * Bundles without their record read at start-up: each commit removes them, so there is one after
 * a failed or interrupted write, more only after several in a row, and the newest are the ones
 * that matter.
 */
const MAX_PENDING = 2;

/** What one poll came to, reported once the persisted copy is written. */
type Outcome = { type: 'activated' | 'unchanged' } | { type: 'failed'; error: { code: string; message: string } };

/** A bundle refused for what it holds: not downloaded (its ETag is sent) nor read again until it changes. */
interface Refused {
  digest: string;
  etag: string | undefined;
  error: { code: string; message: string };
}

/**
 * Takes the policy data (and policy.wasm) from an OPA bundle at a URL, as OPA does: polled with
 * ETags, verified, activated in a new Wasm instance beside the old one and swapped in one step,
 * the last good one kept on any failure and persisted for a restart without the server.
 * Use it as an adapter's `policy` (`{ policy: { bearerAuth: consumer } }`) or call `evaluate` directly.
 */
export class BundleConsumer implements PolicySource, DecisionSource {
  private active: Active | undefined;
  /** The bundle the server serves now, when it was refused. */
  private refused: Refused | undefined;
  /** The bundle activated last: a bundle built before it is a rollback. Kept when connect() drops the active one. */
  private last: BundleBuild | undefined;
  private api: ExpectedApi | undefined;
  private timer: NodeJS.Timeout | undefined;
  private nextPollAt = 0;
  private closed = false;
  /** Milliseconds since the epoch of the last request that found the active bundle current (or the persisted one's). */
  private checkedAt = 0;
  /** The active bundle's bytes until they are on disk, kept only while persisting them fails. */
  private unpersisted: Buffer | undefined;
  /** The record last written beside the persisted bundle, so an unchanged one is not written again. */
  private persistedRecord: string | undefined;
  private readonly settings: ConsumerSettings;
  private readonly state: BundleStatus;
  private readonly activated: Promise<void>;
  private resolveActivated!: () => void;
  private rejectActivated!: (error: Error) => void;
  /** Takes this consumer off the bundle age gauge. */
  private readonly unwatch: () => void;
  /** Besides `onUpdate`: those that subscribe() (a status reporter). */
  private readonly listeners = new Set<(event: BundleEvent) => void>();

  constructor(options: BundleConsumerOptions) {
    this.settings = bundleConsumerOptions(options);
    this.state = {
      name: this.settings.name,
      url: shownUrl(this.settings.url),
      ready: false,
      revision: null,
      dataRevision: null,
      builtAt: null,
      activatedFrom: null,
      size: null,
      requestDurationMs: null,
      lastRequest: null,
      lastSuccessfulRequest: null,
      lastSuccessfulDownload: null,
      lastSuccessfulActivation: null,
      lastError: null,
    };
    this.activated = new Promise((resolve, reject) => {
      this.resolveActivated = resolve;
      this.rejectActivated = reject;
    });
    // Rejected only by close(); a process that never asked for ready() must not see that as unhandled.
    this.activated.catch(() => undefined);
    this.unwatch = watchBundle({ name: this.settings.name, checkedAt: () => this.checkedAt });
    // Started on the next turn, so that an adapter created in the same tick has connected first.
    setImmediate(() => void this.start());
  }

  /**
   * Resolves when a bundle has been activated for the first time (from the server or the
   * persisted copy); rejects when close() comes first. The process stays alive while it is
   * pending (polls alone do not hold it), so `await consumer.ready()` waits for the bundle.
   */
  ready(): Promise<void> {
    return keepProcessAliveUntil(this.activated);
  }

  /**
   * Calls `listener` with every event `onUpdate` gets, from now on, until the returned function
   * is called. A listener that throws is reported as a warning and changes nothing.
   */
  subscribe(listener: (event: BundleEvent) => void): () => void {
    // A function of its own per call, so that subscribing the same listener twice is two subscriptions.
    const entry = (event: BundleEvent) => listener(event);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  status(): BundleStatus {
    return { ...this.state, ready: this.isReady(), lastError: this.state.lastError && { ...this.state.lastError } };
  }

  /** A readiness probe: 200 with the status when guarded requests are decided, else 503 with it. */
  readonly health = (_req: IncomingMessage, res: ServerResponse): void => {
    const status = this.status();
    res.statusCode = status.ready ? 200 : 503;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify(status));
  };

  connect(api: ExpectedApi): DecisionSource {
    if (this.api !== undefined && operationDifferences(this.api, api).length > 0) {
      throw new ConfigError(api.file, '$.policy', 'this bundle consumer already serves another API', 'create one bundleConsumer per guarded API');
    }
    // Two adapters on one consumer: the stricter anonymous default holds for both.
    this.api = { ...api, anonymousDefault: api.anonymousDefault ?? this.api?.anonymousDefault };
    const differences = this.active ? dataDifferences(this.api, this.active.data) : [];
    if (differences.length > 0) {
      // A persisted bundle of an older API must not decide the new one's routes, nor be the
      // reference for rollbacks: this API's bundles were never built after it.
      this.active = undefined;
      this.last = undefined;
      this.fail('ERR_SVCGATE_BUNDLE_OPERATIONS', `the active bundle does not match the served OpenAPI document: ${differences.join('; ')}`);
    }
    return this;
  }

  evaluate(input: PolicyInput): Decision {
    const active = this.active;
    if (active === undefined) return unavailable('no policy bundle has been activated yet', this.retryAfterSeconds());
    if (this.isStale()) return unavailable(`the policy bundle has not been checked for more than ${this.settings.maxAgeSeconds} s (maxAgeSeconds)`, this.retryAfterSeconds());
    return active.evaluator.evaluate(input);
  }

  get revision(): string {
    return this.active?.data.revision ?? '';
  }

  get policyRevision(): string {
    return this.active?.evaluator.policyRevision ?? '';
  }

  get bundles(): Record<string, { revision: string }> | undefined {
    return this.active ? { [this.settings.name]: { revision: this.active.revision } } : undefined;
  }

  /** Stops polling; the active bundle keeps deciding. A ready() still pending rejects (ERR_SVCGATE_BUNDLE_CLOSED). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.unwatch();
    const last = this.state.lastError;
    this.rejectActivated(new BundleConsumerClosedError(`the bundle consumer was closed before a bundle was activated${last ? `; the last error: ${last.message}` : ''}`));
  }

  private async start(): Promise<void> {
    if (this.settings.persistDir !== undefined) await this.bootFromPersisted(this.settings.persistDir);
    await this.poll();
  }

  /**
   * Activates the newest bundle on disk that verifies: the one the record names, or one written
   * after it whose record never followed (it was activated before the restart, so an older one
   * activated now would be a rollback). That newest one is the rollback reference even when it
   * cannot decide now. A bundle without its record has no ETag and no check time (it is
   * downloaded again, and with maxAgeSeconds it decides only once the server has been checked).
   */
  private async bootFromPersisted(dir: string): Promise<void> {
    let state: PersistedState;
    try {
      // With allowRollback no bundle needs to be kept from being undercut: the record's alone is used.
      state = await persistedState(dir, this.settings.name, this.settings.maxBytes, this.settings.allowRollback ? 0 : MAX_PENDING);
    } catch (error) {
      this.persistFailed(messageOf(error));
      return;
    }
    for (const problem of state.problems) this.persistFailed(problem);
    let newest: { candidate: PersistedCandidate; opened: OpenedBundle } | undefined;
    for (const candidate of state.candidates) {
      let opened: OpenedBundle;
      try {
        opened = await this.open(await candidate.read());
      } catch (error) {
        if (error instanceof BundlePersistError) this.persistFailed(`the persisted bundle was not used: ${error.message}`);
        else this.fail(codeOf(error), `the persisted bundle was not activated: ${messageOf(error)}`);
        continue;
      }
      // The record's bundle comes first and keeps its place on a tie: it has its ETag and check time.
      if (newest === undefined || (opened.build.builtAt ?? -Infinity) > (newest.opened.build.builtAt ?? -Infinity)) newest = { candidate, opened };
    }
    if (newest === undefined || this.active !== undefined) return;
    const { candidate, opened } = newest;
    if (!this.settings.allowRollback) this.last = opened.build;
    try {
      await this.install(opened, candidate.digest, candidate.check?.etag, 'persisted');
    } catch (error) {
      this.fail(codeOf(error), `the persisted bundle was not activated: ${messageOf(error)}`);
      return;
    }
    this.checkedAt = candidate.check?.checkedAt ?? 0;
    // Without one, the record is written at the next poll, which commits the bundle on disk.
    this.persistedRecord = candidate.check && JSON.stringify(candidate.check);
    this.emit({ type: 'activated', status: this.status() });
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    this.state.lastRequest = new Date().toISOString();
    try {
      const outcome = await this.check();
      // Closed while the request was out: a closed consumer persists and reports nothing more.
      if (this.closed) return;
      // Persisted before the outcome is reported: after an `activated` event the copy on disk is that bundle's.
      const persistError = await this.persist();
      this.emit(outcome.type === 'failed' ? { ...outcome, status: this.status() } : { type: outcome.type, status: this.status() });
      if (persistError !== undefined) this.persistFailed(persistError);
    } finally {
      this.schedule();
    }
  }

  /** One request to the server and what came of it; the state is updated, the event is left to poll(). */
  private async check(): Promise<Outcome> {
    try {
      // The ETag of what the server served last: a refused bundle's too, so that it is answered 304, not sent again.
      const etag = this.refused ? this.refused.etag : this.active?.etag;
      const startedAt = performance.now();
      const request = fetchBundle({ url: this.settings.url, etag, headers: this.settings.headers, timeoutMs: this.settings.timeoutMs, maxBytes: this.settings.maxBytes });
      const response = await request.finally(() => (this.state.requestDurationMs = performance.now() - startedAt));
      if (response.status === 304) return this.refused ? this.stillRefused() : this.unchanged();
      return await this.received(response.bytes, response.etag);
    } catch (error) {
      return this.failed(codeOf(error), messageOf(error), error instanceof BundleDownloadError ? error.httpStatus : undefined);
    }
  }

  private async received(bytes: Buffer, etag: string | undefined): Promise<Outcome> {
    this.state.lastSuccessfulDownload = new Date().toISOString();
    const digest = await bundleDigest(bytes);
    // A server without ETags (or one that changed them) sends the same bytes again: not read again.
    if (this.active?.digest === digest) {
      this.active.etag = etag;
      return this.unchanged();
    }
    if (this.refused?.digest === digest) {
      this.refused.etag = etag;
      return this.stillRefused();
    }
    try {
      await this.install(await this.open(bytes), digest, etag, 'server');
    } catch (error) {
      const refusal = { code: codeOf(error), message: messageOf(error) };
      if (isRefusal(error)) this.refused = { digest, etag, error: refusal };
      return this.failed(refusal.code, refusal.message);
    }
    this.unpersisted = this.settings.persistDir === undefined ? undefined : bytes;
    this.checked();
    return { type: 'activated' };
  }

  /** The server still serves the active bundle: a successful check, which clears the last error. */
  private unchanged(): Outcome {
    this.refused = undefined;
    this.checked();
    this.state.lastError = null;
    return { type: 'unchanged' };
  }

  /**
   * The server still serves the refused bundle: the refusal stands, and it is no check of the
   * active bundle (the server's current one is not it), so maxAgeSeconds keeps counting.
   */
  private stillRefused(): Outcome {
    const { code, message } = this.refused!.error;
    return this.failed(code, message);
  }

  private checked(): void {
    this.checkedAt = Date.now();
    this.state.lastSuccessfulRequest = new Date(this.checkedAt).toISOString();
  }

  /** Verifies and reads the bundle, with its build time (not too far ahead of the clock). */
  private async open(bytes: Buffer): Promise<OpenedBundle> {
    const bundle = await readBundle(bytes, { verification: this.settings.verification });
    const build = { revision: bundle.manifest.revision, builtAt: bundleBuiltAt(bundle.manifest.metadata) };
    if (!this.settings.allowRollback) refuseFutureBuild(build, Date.now());
    return { bundle, build, size: bytes.length };
  }

  /** Checks a bundle against the last build time and the API, builds its Wasm instance, then swaps it in. */
  private async install({ bundle, build, size }: OpenedBundle, digest: string, etag: string | undefined, from: 'server' | 'persisted'): Promise<void> {
    if (!this.settings.allowRollback) refuseRollback(build, this.last);
    if (this.api !== undefined) {
      const differences = dataDifferences(this.api, bundle.data);
      if (differences.length > 0) throw new BundleMismatchError(`the bundle does not match the served OpenAPI document: ${differences.join('; ')}`);
    }
    const evaluator = await Evaluator.create(bundle.data, { policy: bundle.wasm, decisionCacheSize: this.settings.decisionCacheSize }).catch((error: unknown) => {
      // An old policy.wasm beside data with list operations: the bundle's own files disagree, so it is refused, not tried again.
      throw error instanceof MissingEntrypointError ? new BundleError('ERR_SVCGATE_BUNDLE_POLICY', error.message) : error;
    });
    // One assignment: a request decides on the old instance or on the new one, never on a mix.
    this.active = { evaluator, ...build, data: bundle.data, digest, etag };
    this.last = build;
    this.refused = undefined;
    Object.assign(this.state, {
      revision: build.revision,
      dataRevision: bundle.data.revision,
      builtAt: build.builtAt === undefined ? null : iso(build.builtAt),
      activatedFrom: from,
      size,
      lastSuccessfulActivation: new Date().toISOString(),
      lastError: null,
    });
    this.resolveActivated();
  }

  /**
   * Writes the active bundle and its record when they changed (the bundle only while its bytes
   * are not on disk, so a failed write is tried again at every poll). Never changes what is
   * active; returns the failure's message, if any.
   */
  private async persist(): Promise<string | undefined> {
    const dir = this.settings.persistDir;
    const active = this.active;
    if (dir === undefined || active === undefined) return undefined;
    const check: PersistedCheck = { digest: active.digest, etag: active.etag, checkedAt: this.checkedAt };
    const record = JSON.stringify(check);
    if (this.unpersisted === undefined && record === this.persistedRecord) return undefined;
    try {
      if (this.unpersisted !== undefined) await persistBundle(dir, this.settings.name, this.unpersisted, check);
      else await persistCheck(dir, this.settings.name, check);
    } catch (error) {
      this.persistedRecord = undefined;
      return messageOf(error);
    }
    this.unpersisted = undefined;
    this.persistedRecord = record;
    return undefined;
  }

  /** Records the failure as the last error; the caller reports it. */
  private failed(code: string, message: string, httpStatus?: number): Outcome {
    const error = { code, message };
    this.state.lastError = { ...error, at: new Date().toISOString(), ...(httpStatus === undefined ? {} : { httpStatus }) };
    return { type: 'failed', error };
  }

  private fail(code: string, message: string): void {
    const outcome = this.failed(code, message);
    this.emit({ ...outcome, status: this.status() });
  }

  /** Its own event; in lastError only when the poll itself did not fail, whose error says more. */
  private persistFailed(message: string): void {
    const error = { code: PERSIST_CODE, message };
    const last = this.state.lastError;
    if (last === null || last.code === PERSIST_CODE) this.state.lastError = { ...error, at: new Date().toISOString() };
    this.emit({ type: 'persist-failed', status: this.status(), error });
  }

  private schedule(): void {
    if (this.closed) return;
    const { minDelaySeconds, maxDelaySeconds } = this.settings.polling;
    // A random delay between the bounds, as OPA's, so that replicas do not poll in step.
    const delayMs = (minDelaySeconds + Math.random() * (maxDelaySeconds - minDelaySeconds)) * 1000;
    this.nextPollAt = Date.now() + delayMs;
    this.timer = setTimeout(() => void this.poll(), delayMs);
    this.timer.unref();
  }

  private isStale(): boolean {
    const { maxAgeSeconds } = this.settings;
    return maxAgeSeconds !== undefined && Date.now() - this.checkedAt > maxAgeSeconds * 1000;
  }

  private isReady(): boolean {
    return this.active !== undefined && !this.isStale();
  }

  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.nextPollAt - Date.now()) / 1000));
  }

  private emit(event: BundleEvent): void {
    const { status } = event;
    recordBundleEvent({ type: event.type, name: status.name, revision: status.revision, ...(event.type === 'activated' ? { source: status.activatedFrom ?? 'server' } : {}), ...('error' in event ? { error: event.error } : {}) });
    const { onUpdate } = this.settings;
    if (onUpdate) notify('onUpdate', onUpdate, event);
    for (const listener of [...this.listeners]) notify('a subscriber of the bundle consumer', listener, event);
  }
}

const PERSIST_CODE = 'ERR_SVCGATE_BUNDLE_PERSIST';

/** ready() was pending when close() was called: no bundle will be activated. */
export class BundleConsumerClosedError extends Error {
  readonly code = 'ERR_SVCGATE_BUNDLE_CLOSED';
  override readonly name = 'BundleConsumerClosedError';
}

/** A bundle whose operations are not those of the served OpenAPI document. */
export class BundleMismatchError extends Error {
  readonly code = 'ERR_SVCGATE_BUNDLE_OPERATIONS';
  override readonly name = 'BundleMismatchError';
}

/** Starts polling `options.url`; see BundleConsumer. */
export function bundleConsumer(options: BundleConsumerOptions): BundleConsumer {
  return new BundleConsumer(options);
}

/**
 * A refusal for what the bundle holds, the same at every read of those bytes (while the active
 * bundle stays): remembered by digest, not read again. A build time ahead of the clock, building
 * the Wasm instance, or anything unforeseen is tried again at the next poll.
 */
function isRefusal(error: unknown): boolean {
  return error instanceof BundleError || error instanceof BundleMismatchError || error instanceof BundleRollbackError;
}

/** A listener's error must not stop the poll nor the other listeners. */
function notify(name: string, listener: (event: BundleEvent) => void, event: BundleEvent): void {
  try {
    listener(event);
  } catch (error) {
    process.emitWarning(`${name} threw: ${messageOf(error)}`, { code: 'SVCGATE_BUNDLE_ON_UPDATE' });
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  // No code of its own: the Wasm instance could not be built (a policy.wasm that does not compile), or the unforeseen.
  return typeof code === 'string' ? code : 'ERR_SVCGATE_BUNDLE_ACTIVATION';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
