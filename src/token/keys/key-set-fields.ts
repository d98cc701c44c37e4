import { z } from 'zod';

// The zod side of key-set.ts's options. Apart from key-set.ts, whose declarations users' projects
// read: those must not import zod (its declarations fail without esModuleInterop and skipLibCheck).

/** Node timers hold at most 2^31-1 ms; a longer one fires at once. */
const milliseconds = z.number().int().min(0).max(2 ** 31 - 1, { error: 'at most 2147483647 ms (Node timers hold no more)' });

/** The bearerJwt fields of this module, spread into its zod schema. */
export const keySetConfigFields = {
  cooldownDuration: milliseconds.optional(),
  cacheMaxAge: milliseconds.min(1).optional(),
  timeoutDuration: milliseconds.min(1).optional(),
  /** The issuer's URL, whose metadata (OpenID Connect discovery, else RFC 8414) names the key set. */
  issuerBaseURL: z.union([z.url({ error: 'issuerBaseURL must be a URL' }), z.instanceof(URL)], { error: 'issuerBaseURL must be a URL' }).optional(),
  /**
   * bearerJwt's warnings are errors: the start-up check of the key set fails ready() instead of
   * warning, and a secret without audience is a ConfigError at creation (audience-requirement.ts).
   */
  strict: z.boolean().default(false),
};
