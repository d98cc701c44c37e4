import { z } from 'zod';
import { parseWith } from '../../policy/compile/parse-with';
import { secondsSchema as seconds } from '../seconds-schema';
import type { BundleEvent } from './bundle-consumer';
import { SIGNING_ALGORITHMS, verificationKey, type BundleVerification, type VerificationKey } from '../bundle/bundle-signature';
import type { SchemaMatches } from '../../policy/compile/schema-matches';

export interface BundleConsumerOptions {
  /** Where the bundle is served (`http(s)://.../bundle.tar.gz`): any static server or object store that sends ETags. */
  url: string;
  /** Names the bundle in the status, decision logs (`bundles.<name>.revision`) and the persisted copy. Default `svcgate`. */
  name?: string;
  /** Sent with every download, e.g. `{ authorization: 'Bearer ...' }` for a private bucket. Default: none. */
  headers?: Record<string, string>;
  /** How often the server is checked for a new bundle. Default: every 60 to 120 seconds, as OPA. */
  polling?: BundlePollingOptions;
  /** With it, only bundles signed with this key (OPA's .signatures.json) are activated. Default: only unsigned bundles. */
  verification?: BundleVerification;
  /**
   * Activates a bundle built before the active one (by its signed build time). Default false: such a
   * bundle, served again by mistake or by whoever can write to the bucket, would bring back
   * permissions revoked since, and is refused with ERR_SVCGATE_BUNDLE_ROLLBACK.
   */
  allowRollback?: boolean;
  /** A folder where the last good bundle is kept, so that a restart without the server boots from it. Default: none (not kept). */
  persistDir?: string;
  /** When no check of the server has succeeded for this long, guarded requests get 503 (fail closed). Default: no limit. */
  maxAgeSeconds?: number;
  /** Milliseconds for each download, connecting to the last byte. Default `30000` (ms). */
  timeoutMs?: number;
  /** The largest bundle accepted, in bytes, compressed. Default 64 MiB (`67108864` bytes). */
  maxBytes?: number;
  /** Decisions remembered per activated bundle; default 10,000, 0 for none. */
  decisionCacheSize?: number;
  /** Called on every activation, unchanged check and failure. Default: none. */
  onUpdate?: (event: BundleEvent) => void;
}

/** The `polling` option of {@link BundleConsumerOptions}: each wait is chosen at random between the two. */
export interface BundlePollingOptions {
  /** The shortest wait between checks, in seconds. Default `60` (seconds), as OPA's. */
  minDelaySeconds?: number;
  /** The longest wait between checks, in seconds; not below `minDelaySeconds`. Default `120` (seconds), as OPA's. */
  maxDelaySeconds?: number;
}

export interface ConsumerSettings {
  url: URL;
  name: string;
  headers: Record<string, string>;
  polling: { minDelaySeconds: number; maxDelaySeconds: number };
  verification: VerificationKey | undefined;
  allowRollback: boolean;
  persistDir: string | undefined;
  maxAgeSeconds: number | undefined;
  timeoutMs: number;
  maxBytes: number;
  decisionCacheSize: number | undefined;
  onUpdate: ((event: BundleEvent) => void) | undefined;
}

const FILE = '<bundleConsumer options>';

const pollingSchema = z
  .object({ minDelaySeconds: seconds('minDelaySeconds').default(60), maxDelaySeconds: seconds('maxDelaySeconds').default(120) })
  .strict()
  .refine((polling) => polling.minDelaySeconds <= polling.maxDelaySeconds, { error: 'minDelaySeconds must not be above maxDelaySeconds' });

const verificationSchema = z
  .object({
    key: z.custom<BundleVerification['key']>((value) => value !== undefined && value !== null, { error: 'verification.key is required' }),
    algorithm: z.enum(SIGNING_ALGORITHMS, { error: (issue) => `${String(issue.input)} is not a bundle signing algorithm: use one of ${SIGNING_ALGORITHMS.join(', ')}` }).optional(),
    keyId: z.string().optional(),
    scope: z.string().optional(),
    maxCanonicalBytes: z.number({ error: 'maxCanonicalBytes must be a number of bytes' }).int().nonnegative().optional(),
  })
  .strict();

const schema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'url must be an http or https URL' }),
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'name must be 1 to 64 letters, digits, _ or - (it names a folder under persistDir)' })
      .default('svcgate'),
    headers: z.record(z.string(), z.string()).default({}),
    polling: pollingSchema.default({ minDelaySeconds: 60, maxDelaySeconds: 120 }),
    verification: verificationSchema.optional(),
    allowRollback: z.boolean({ error: 'allowRollback must be true or false' }).default(false),
    persistDir: z.string().min(1).optional(),
    maxAgeSeconds: seconds('maxAgeSeconds').optional(),
    timeoutMs: z.number().int().positive().max(2 ** 31 - 1).default(30_000),
    maxBytes: z.number().int().positive().default(64 * 1024 * 1024),
    decisionCacheSize: z.number().int().nonnegative().optional(),
    onUpdate: z.custom<(event: BundleEvent) => void>((value) => typeof value === 'function', { error: 'onUpdate must be a function' }).optional(),
  })
  .strict();

// The interfaces and the schemas must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof schema, BundleConsumerOptions>;
true satisfies SchemaMatches<typeof verificationSchema, BundleVerification>;
true satisfies SchemaMatches<typeof pollingSchema, BundlePollingOptions>;

export function bundleConsumerOptions(options: BundleConsumerOptions): ConsumerSettings {
  const parsed = parseWith(schema, options, FILE, [], 'see bundleConsumer in docs/fleets.md');
  const verification = parsed.verification && verificationKey(parsed.verification as BundleVerification, FILE, '$.verification');
  return { ...parsed, verification, persistDir: parsed.persistDir, maxAgeSeconds: parsed.maxAgeSeconds, decisionCacheSize: parsed.decisionCacheSize, onUpdate: parsed.onUpdate, url: new URL(parsed.url) };
}
