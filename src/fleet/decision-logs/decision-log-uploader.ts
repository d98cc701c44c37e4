import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { z } from 'zod';
import { keepProcessAliveUntil } from '../../net/keep-process-alive';
import { parseWith } from '../../policy/compile/parse-with';
import { recordDroppedLogEvents } from '../../telemetry/record-fleet';
import { EventQueue } from './event-queue';
import { maskEvent, type MaskRule } from './mask-event';
import { postGzip } from './post-gzip';
import { PostAnswerError } from '../../net/post-body';
import { backoffSeconds } from '../../net/backoff-delay';
import type { SchemaMatches } from '../../policy/compile/schema-matches';

const gzipAsync = promisify(gzip);

interface Item {
  event: object;
  text: string;
}

interface Batch {
  items: Item[];
  body: Buffer;
}
const FILE = '<createDecisionLogUploader options>';

export interface DecisionLogUploaderOptions {
  /** Where batches are POSTed: a collector of OPA's decision logs (OPA's own path is `<service>/logs`). */
  url: string;
  /** Sent with every upload, e.g. `{ authorization: 'Bearer ...' }`. Default: none. */
  headers?: Record<string, string>;
  /** JSON pointers erased from every event before it leaves the process (`/input/claims`), or `{ op: 'upsert', path, value }`. Default: none. */
  mask?: MaskRule[];
  /** Added to every event's `labels` (OPA's `labels` configuration). Default: none. */
  labels?: Record<string, string>;
  /** The most bytes of one upload, compressed, at least 1024. Default `32768` (bytes), as OPA's upload_size_limit_bytes. */
  maxBatchBytes?: number;
  /** Events kept while uploads fail; beyond it the oldest are dropped and counted. Default 10,000, as OPA's. */
  bufferSizeLimitEvents?: number;
  /** The shortest wait between uploads, in seconds (each wait is chosen at random between this and `maxDelaySeconds`). Default `5` (seconds). */
  minDelaySeconds?: number;
  /** The longest wait between uploads, in seconds; not below `minDelaySeconds`. Default `10` (seconds). */
  maxDelaySeconds?: number;
  /** Milliseconds for one upload, connecting to the answer. Default `10000` (ms). */
  timeoutMs?: number;
  /** The longest wait between retries after failures, in seconds (exponential backoff with jitter). Default `60` (seconds). */
  maxBackoffSeconds?: number;
}

export interface DecisionLogUploaderStatus {
  /** Events waiting to be uploaded. */
  buffered: number;
  /** Events dropped: the oldest when the buffer was full, and any event larger than a whole batch. */
  dropped: number;
  uploaded: number;
  /** ISO 8601 time of the last successful upload. */
  lastUpload: string | null;
  /** The last failed upload: why, when, and the collector's HTTP status when it answered (OPA's `http_code`). */
  lastError: { message: string; at: string; httpStatus?: number } | null;
  /** Uploads failed in a row; the next waits longer with each. */
  consecutiveFailures: number;
}

export interface DecisionLogUploader {
  /** Pass as an adapter's `decisionLog`: it only buffers, so the request never waits for an upload. */
  log: (event: object) => void;
  status(): DecisionLogUploaderStatus;
  /** Uploads everything buffered now; an awaited flush keeps the process alive until it settles. */
  flush(): Promise<void>;
  /** Stops the timer and uploads what is buffered (each upload within `timeoutMs`); an awaited close keeps the process alive until then. */
  close(): Promise<void>;
}

/** RFC 6901: `/input/claims`, with `~1` for `/` and `~0` for `~` inside a name (`/input/params/path:userId`). */
const pointerSchema = z
  .string()
  .regex(/^(\/([^~]|~[01])*)+$/, { error: 'a mask is a JSON pointer such as /input/claims (~1 for / and ~0 for ~ inside a name)' })
  .refine((pointer) => pointer.startsWith('/input/') || pointer.startsWith('/result/') || pointer === '/input' || pointer === '/result', {
    error: 'a mask points inside /input or /result, the parts of an event that hold request data',
  })
  .refine((pointer) => !pointer.split('/').includes('__proto__'), { error: 'a mask cannot name __proto__' });

// Here rather than in mask-event.ts, whose declarations are published: they must not import zod.
const maskRuleSchema = z.union([
  pointerSchema,
  z.object({ op: z.literal('remove'), path: pointerSchema }).strict(),
  z.object({ op: z.literal('upsert'), path: pointerSchema, value: z.unknown() }).strict(),
]);

const seconds = (name: string) => z.number({ error: `${name} must be a number of seconds` }).positive({ error: `${name} must be positive` }).max(2_147_483, { error: `${name} is too large for a timer` });
const schema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'url must be an http or https URL' }),
    headers: z.record(z.string(), z.string()).default({}),
    mask: z.array(maskRuleSchema).default([]),
    labels: z.record(z.string(), z.string()).default({}),
    maxBatchBytes: z.number().int().min(1024, { error: 'maxBatchBytes must be at least 1024' }).default(32_768),
    bufferSizeLimitEvents: z.number().int().positive().default(10_000),
    minDelaySeconds: seconds('minDelaySeconds').default(5),
    maxDelaySeconds: seconds('maxDelaySeconds').default(10),
    timeoutMs: z.number().int().positive().max(2 ** 31 - 1).default(10_000),
    maxBackoffSeconds: seconds('maxBackoffSeconds').default(60),
  })
  .strict()
  .refine((options) => options.minDelaySeconds <= options.maxDelaySeconds, { error: 'minDelaySeconds must not be above maxDelaySeconds' });

// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof schema, DecisionLogUploaderOptions>;

/**
 * Uploads decision-log events in OPA's format to a collector: gzip JSON arrays by POST, each at
 * most `maxBatchBytes`, on a timer, with exponential backoff on failure and a bounded buffer.
 */
export function createDecisionLogUploader(options: DecisionLogUploaderOptions): DecisionLogUploader {
  const config = parseWith(schema, options, FILE, [], 'see createDecisionLogUploader in docs/fleets.md');
  const url = new URL(config.url);
  const queue = new EventQueue();
  let dropped = 0;
  let uploaded = 0;
  let failures = 0;
  let lastUpload: string | null = null;
  let lastError: DecisionLogUploaderStatus['lastError'] = null;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const trim = () => {
    const over = queue.trimTo(config.bufferSizeLimitEvents);
    if (over > 0) {
      dropped += over;
      recordDroppedLogEvents({ count: over, reason: 'buffer_full' });
    }
  };

  /** One event as it is sent: masked, with the configured labels, as JSON. */
  const encode = (event: object): string => {
    const masked = maskEvent(event, config.mask);
    if (Object.keys(config.labels).length > 0) masked.labels = { ...(masked.labels as Record<string, string> | undefined), ...config.labels };
    return JSON.stringify(masked);
  };

  /** Batches of at most maxBatchBytes compressed, found by halving a batch that is too large. */
  const plan = async (items: Item[]): Promise<Batch[]> => {
    const body = await gzipAsync(`[${items.map((item) => item.text).join(',')}]`);
    if (body.length <= config.maxBatchBytes) return [{ items, body }];
    if (items.length === 1) {
      // One event larger than a batch can never be sent; it must not block those after it.
      dropped += 1;
      recordDroppedLogEvents({ count: 1, reason: 'too_large' });
      return [];
    }
    const half = Math.ceil(items.length / 2);
    return [...(await plan(items.slice(0, half))), ...(await plan(items.slice(half)))];
  };

  const upload = async (): Promise<void> => {
    while (queue.length > 0) {
      // About eight batches' worth of JSON at a time: gzip shrinks decision logs five to ten times.
      const taken: Item[] = [];
      let size = 0;
      while (queue.length > 0 && size < config.maxBatchBytes * 8) {
        const event = queue.shift()!;
        const text = encode(event);
        taken.push({ event, text });
        size += text.length;
      }
      const batches = await plan(taken);
      for (const [index, batch] of batches.entries()) {
        try {
          await postGzip(url, batch.body, config.headers, config.timeoutMs);
        } catch (error) {
          // What was not sent goes back in front, oldest first, and the bound applies again.
          queue.unshiftAll(batches.slice(index).flatMap((unsent) => unsent.items.map((item) => item.event)));
          trim();
          failures += 1;
          const httpStatus = error instanceof PostAnswerError ? { httpStatus: error.status } : {};
          lastError = { message: error instanceof Error ? error.message : String(error), at: new Date().toISOString(), ...httpStatus };
          return;
        }
        uploaded += batch.items.length;
        failures = 0;
        lastUpload = new Date().toISOString();
      }
    }
  };

  const flush = (): Promise<void> => {
    running ??= upload().finally(() => (running = undefined));
    return running;
  };

  const schedule = () => {
    if (closed) return;
    const { minDelaySeconds, maxDelaySeconds, maxBackoffSeconds } = config;
    const base = minDelaySeconds + Math.random() * (maxDelaySeconds - minDelaySeconds);
    const delay = failures === 0 ? base : backoffSeconds(base, failures, maxBackoffSeconds);
    timer = setTimeout(() => void flush().finally(schedule), delay * 1000);
    timer.unref();
  };
  schedule();

  return {
    log: (event) => {
      queue.push(event);
      trim();
    },
    status: () => ({ buffered: queue.length, dropped, uploaded, lastUpload, lastError: lastError && { ...lastError }, consecutiveFailures: failures }),
    // The timer's uploads hold nothing (postGzip unrefs its socket), so that they never keep a
    // process alive; a caller awaiting flush or close (`await uploader.close()` on shutdown) must.
    flush: () => keepProcessAliveUntil(flush()),
    close: () => {
      closed = true;
      clearTimeout(timer);
      const last = async () => {
        await flush();
        // Events logged while an upload already under way was finishing.
        if (queue.length > 0 && failures === 0) await flush();
      };
      return keepProcessAliveUntil(last());
    },
  };
}
