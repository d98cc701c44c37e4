import { z } from 'zod';
import type { SchemaMatches } from '../../policy/compile/schema-matches';
import type { DpopAlgorithm, DpopOptions, DpopSettings } from './dpop-options';

// The zod side of the dpop option. Apart from dpop-options.ts, whose declarations users' projects
// read: those must not import zod (its declarations fail without esModuleInterop and skipLibCheck).

/** Every asymmetric JWS algorithm jose verifies: a proof is signed with the client's own key pair, never a shared secret. */
const DPOP_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'ES256K', 'EdDSA', 'Ed25519', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'] as const satisfies readonly DpopAlgorithm[];

const SHAPE = 'dpop must be true, false or { algorithms, iatOffset, iatLeeway, jtiCacheSize, origins, required }';

const origin = z.string().refine(isOrigin, { error: 'each origin must be scheme://host[:port] with http or https, and nothing after it' });

const shape = {
  algorithms: z
    .array(z.enum(DPOP_ALGORITHMS, { error: `a proof algorithm must be one of ${DPOP_ALGORITHMS.join(', ')}` }))
    .min(1, { error: 'list at least one algorithm' })
    .default([...DPOP_ALGORITHMS]),
  /** Seconds a proof's iat may lie in the past; every proof id is remembered about that long. */
  iatOffset: z.number().int().positive().max(3600, { error: 'iatOffset is at most 3600 seconds' }).default(60),
  /** Seconds a proof's iat may lie in the future (clock skew). */
  iatLeeway: z.number().int().nonnegative().max(300, { error: 'iatLeeway is at most 300 seconds' }).default(5),
  jtiCacheSize: z.number().int().positive().max(10_000_000).default(100_000),
  origins: z.array(origin).min(1, { error: 'list at least one origin, or leave origins out' }).optional(),
  required: z.boolean().default(false),
};

const optionsSchema = z.object(shape, { error: (issue) => (issue.code === 'invalid_type' ? SHAPE : undefined) }).strict();

// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof optionsSchema, DpopOptions>;

/**
 * The `dpop` field of the bearerJwt config: `true` for the defaults, an object to set them,
 * `false` or absent for no DPoP (undefined). Not a zod union, whose one error would hide which
 * option is wrong.
 */
export const dpopOptionsSchema = (
  z.preprocess((value) => (value === true ? {} : value === false ? undefined : value), optionsSchema.optional())
  .transform((options): DpopSettings | undefined =>
    options === undefined
      ? undefined
      : {
          algorithms: options.algorithms,
          iatOffsetSeconds: options.iatOffset,
          iatLeewaySeconds: options.iatLeeway,
          jtiCacheSize: options.jtiCacheSize,
          origins: options.origins?.map((text) => new URL(text).origin),
          required: options.required,
        },
  ) as unknown as z.ZodType<DpopSettings | undefined, boolean | DpopOptions>
).optional();

/** scheme://host[:port] and an optional final `/`; no path, query, fragment or user. */
function isOrigin(text: string): boolean {
  if (!/^https?:\/\/[^/?#@\\]+\/?$/i.test(text)) return false;
  try {
    return new URL(text).origin !== 'null';
  } catch {
    return false;
  }
}
