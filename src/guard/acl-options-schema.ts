import { z } from 'zod';
import { claimPathSchema } from '../policy/request/claim-path';
import type { CheckOwnership } from '../policy/evaluate/decide';
import type { PolicySource } from '../policy/evaluate/decision-source';
import type { SchemaMatches } from '../policy/compile/schema-matches';
import type { AclOptions } from './acl-options';
import type { DecisionLog } from './decision-log';
import { ERROR_ANSWERS } from './error-answers';

/*
 * The zod schemas of the options every adapter shares. Apart from acl-options.ts, whose
 * declarations users' projects read: those must not import zod (its own declarations fail in a
 * project without esModuleInterop when skipLibCheck is false).
 */

const errorAnswersSchema = z.enum(ERROR_ANSWERS, {
  error: "errors must be 'json' (the default), 'problem' (RFC 9457 application/problem+json) or 'next' (the error goes to your Express error handler)",
});

/** A policy source: anything with `connect(api)`, as bundleConsumer and remoteOpa return. */
export const policySourceSchema = z.custom<PolicySource>((value) => typeof (value as { connect?: unknown } | null)?.connect === 'function', {
  error: 'each policy source must be what bundleConsumer(...) or remoteOpa(...) returns (an object with connect(api))',
});

const fn = <T>(what: string) => z.custom<T>((value) => typeof value === 'function', { error: `${what} must be a function` });

/** `shadow`: the candidate and how often it decides (shadow-options.ts). */
const shadowSchema = z
  .object({
    source: z.custom<unknown>((value) => value !== undefined && value !== null, {
      error: 'shadow.source is the candidate: a permission declaration (object or file), bundleConsumer(...) or remoteOpa(...)',
    }),
    sampleRate: z.number({ error: 'shadow.sampleRate must be a number from 0 to 1' }).min(0, { error: 'shadow.sampleRate must be from 0 to 1' }).max(1, { error: 'shadow.sampleRate must be from 0 to 1' }).default(1),
    maxPerSecond: z.number({ error: 'shadow.maxPerSecond must be a number' }).int({ error: 'shadow.maxPerSecond must be a whole number' }).positive({ error: 'shadow.maxPerSecond must be positive (leave it out for no limit)' }).optional(),
    timeoutMs: z
      .number({ error: 'shadow.timeoutMs must be a number of milliseconds' })
      .int({ error: 'shadow.timeoutMs must be a whole number of milliseconds' })
      .positive({ error: 'shadow.timeoutMs must be positive' })
      .max(2 ** 31 - 1, { error: 'shadow.timeoutMs must be at most 2147483647' })
      .default(2000),
  })
  .strict();

/** The options every adapter shares, validated where the adapter is created. */
export const aclOptionsShape = {
  roleBinding: claimPathSchema('roleBinding').optional(),
  checkOwnership: fn<CheckOwnership>('checkOwnership').optional(),
  // Node's timers hold at most 2^31 - 1 ms; a longer delay would fire after 1 ms instead.
  checkOwnershipTimeoutMs: z
    .number({ error: 'checkOwnershipTimeoutMs must be a number of milliseconds' })
    .int({ error: 'checkOwnershipTimeoutMs must be a whole number of milliseconds' })
    .positive({ error: 'checkOwnershipTimeoutMs must be positive' })
    .max(2 ** 31 - 1, { error: 'checkOwnershipTimeoutMs must be at most 2147483647 (about 24.8 days)' })
    .optional(),
  decisionLog: fn<DecisionLog>('decisionLog').optional(),
  decisionCacheSize: z.number().int().nonnegative({ error: 'decisionCacheSize must be a whole number, 0 for no cache' }).optional(),
  strict: z.boolean({ error: 'strict must be true or false' }).optional(),
  exposeReasons: z.boolean({ error: 'exposeReasons must be true or false' }).optional(),
  errors: errorAnswersSchema.optional(),
  shadow: shadowSchema.optional(),
};

// The interface and the shape must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<z.ZodObject<typeof aclOptionsShape>, AclOptions>;
