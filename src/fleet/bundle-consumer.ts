import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../policy/compile/config-error';
import type { DataDocument } from '../policy/compile/data-document';
import type { DecisionSource, ExpectedApi, PolicySource } from '../policy/evaluate/decision-source';
import { Evaluator, unavailable, type Decision, type PolicyInput } from '../policy/evaluate/evaluator';
import { readBundle } from './bundle-reader';
import { bundleConsumerOptions, type BundleConsumerOptions, type ConsumerSettings } from './bundle-consumer-options';
import { shownUrl } from '../net/shown-url';
import { fetchBundle } from './fetch-bundle';
import { operationDifferences } from './operation-differences';
import { persistedBundle, persistBundle, persistCheck } from './persisted-bundle';

/** What a consumer reports: its status object, `onUpdate` events and the health handler's body. */
export interface BundleStatus {
  name: string;
  /** The bundle URL, without credentials. */
  url: string;
  /** True when a bundle is active and, with `maxAgeSeconds`, checked recently enough: guarded requests are decided. */
  ready: boolean;
  /** The active bundle's manifest revision; null before the first activation. */
  revision: string | null;
  /** The revision of the active data document (decision logs carry it too). */
  dataRevision: string | null;
  /** Where the active bundle came from: the server, or the persisted copy at start-up. */
  activatedFrom: 'server' | 'persisted' | null;
  /** ISO 8601 times: the last request to the server, the last that answered 200 or 304, the last 200, the last activation. */
  lastRequest: string | null;
  lastSuccessfulRequest: string | null;
  lastSuccessfulDownload: string | null;
  lastSuccessfulActivation: string | null;
  /** The last failure (download, verification, activation), cleared by the next success. */
  lastError: { code: string; message: string; at: string } | null;
}

export type BundleEvent =
  | { type: 'activated'; status: BundleStatus }
  | { type: 'unchanged'; status: BundleStatus }
  | { type: 'failed'; status: BundleStatus; error: { code: string; message: string } };

interface Active {
  evaluator: Evaluator;
  revision: string;
  data: DataDocument;
  /** The bundle as downloaded, to tell a server without ETags sending it again from a new one. */
  bytes: Buffer;
}

/**
 * Takes the policy data (and policy.wasm) from an OPA bundle at a URL, as OPA does: polled with
 * ETags, verified, activated in a new Wasm instance beside the old one and swapped in one step,
 * the last good one kept on any failure and persisted for a restart without the server.
 * Use it as an adapter's `policy` (`{ policy: { bearerAuth: consumer } }`) or call `evaluate` directly.
 */
export class BundleConsumer implements PolicySource, DecisionSource {
  private active: Active | undefined;
  private api: ExpectedApi | undefined;
  private timer: NodeJS.Timeout | undefined;
  private nextPollAt = 0;
  private closed = false;
  private etag: string | undefined;
  /** Milliseconds since the epoch of the last request answered 200 or 304 (or the persisted one's). */
  private checkedAt = 0;
  private readonly settings: ConsumerSettings;
  private readonly state: BundleStatus;
  private readonly activated: Promise<void>;
  private resolveActivated!: () => void;

  constructor(options: BundleConsumerOptions) {
    this.settings = bundleConsumerOptions(options);
    this.state = {
      name: this.settings.name,
      url: shownUrl(this.settings.url),
      ready: false,
      revision: null,
      dataRevision: null,
      activatedFrom: null,
      lastRequest: null,
      lastSuccessfulRequest: null,
      lastSuccessfulDownload: null,
      lastSuccessfulActivation: null,
      lastError: null,
    };
    this.activated = new Promise((resolve) => (this.resolveActivated = resolve));
    // Started on the next turn, so that an adapter created in the same tick has connected first.
    setImmediate(() => void this.start());
  }

  /** Resolves when a bundle has been activated for the first time (from the server or the persisted copy). */
  ready(): Promise<void> {
    return this.activated;
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
    this.api = api;
    const differences = this.active ? operationDifferences(api, this.active.data) : [];
    if (differences.length > 0) {
      // A persisted bundle of an older API must not decide the new one's routes.
      this.active = undefined;
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

  /** Stops polling; the active bundle keeps deciding. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async start(): Promise<void> {
    if (this.settings.persistDir !== undefined) await this.bootFromPersisted(this.settings.persistDir);
    await this.poll();
  }

  private async bootFromPersisted(dir: string): Promise<void> {
    try {
      const persisted = await persistedBundle(dir, this.settings.name);
      if (persisted === undefined || this.active !== undefined) return;
      await this.activate(persisted.bytes, 'persisted');
      this.etag = persisted.etag;
      this.checkedAt = persisted.checkedAt;
      this.emit({ type: 'activated', status: this.status() });
    } catch (error) {
      this.fail(codeOf(error), `the persisted bundle was not activated: ${messageOf(error)}`);
    }
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    this.state.lastRequest = new Date().toISOString();
    try {
      const response = await fetchBundle({ url: this.settings.url, etag: this.active ? this.etag : undefined, headers: this.settings.headers, timeoutMs: this.settings.timeoutMs, maxBytes: this.settings.maxBytes });
      if (response.status !== 304) this.state.lastSuccessfulDownload = new Date().toISOString();
      // A server without ETags sends the whole bundle again: the same bytes are not activated twice.
      if (response.status === 304 || this.active?.bytes.equals(response.bytes)) {
        if (response.status !== 304) this.etag = response.etag;
        this.checked();
        if (this.settings.persistDir !== undefined) await persistCheck(this.settings.persistDir, this.settings.name, { etag: this.etag, checkedAt: this.checkedAt });
        this.emit({ type: 'unchanged', status: this.status() });
      } else {
        await this.activate(response.bytes, 'server');
        this.etag = response.etag;
        this.checked();
        if (this.settings.persistDir !== undefined) await persistBundle(this.settings.persistDir, this.settings.name, response.bytes, { etag: response.etag, checkedAt: this.checkedAt });
        this.emit({ type: 'activated', status: this.status() });
      }
    } catch (error) {
      this.fail(codeOf(error), messageOf(error));
    } finally {
      this.schedule();
    }
  }

  private checked(): void {
    this.checkedAt = Date.now();
    this.state.lastSuccessfulRequest = new Date(this.checkedAt).toISOString();
  }

  /** Verifies and reads the bundle, checks it against the API, builds its Wasm instance, then swaps it in. */
  private async activate(bytes: Buffer, from: 'server' | 'persisted'): Promise<void> {
    const bundle = await readBundle(bytes, { verification: this.settings.verification });
    if (this.api !== undefined) {
      const differences = operationDifferences(this.api, bundle.data);
      if (differences.length > 0) throw new BundleMismatchError(`the bundle does not match the served OpenAPI document: ${differences.join('; ')}`);
    }
    const evaluator = await Evaluator.create(bundle.data, { policy: bundle.wasm, decisionCacheSize: this.settings.decisionCacheSize });
    // One assignment: a request decides on the old instance or on the new one, never on a mix.
    this.active = { evaluator, revision: bundle.manifest.revision, data: bundle.data, bytes };
    Object.assign(this.state, {
      revision: bundle.manifest.revision,
      dataRevision: bundle.data.revision,
      activatedFrom: from,
      lastSuccessfulActivation: new Date().toISOString(),
      lastError: null,
    });
    this.resolveActivated();
  }

  private fail(code: string, message: string): void {
    const error = { code, message };
    this.state.lastError = { ...error, at: new Date().toISOString() };
    this.emit({ type: 'failed', status: this.status(), error });
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
    try {
      this.settings.onUpdate?.(event);
    } catch (error) {
      process.emitWarning(`onUpdate threw: ${messageOf(error)}`, { code: 'SVCGATE_BUNDLE_ON_UPDATE' });
    }
  }
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

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERR_SVCGATE_BUNDLE';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
