import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { compileApi } from '../policy/compile-acl';
import { ConfigError } from '../policy/config-error';
import { Evaluator } from '../policy/evaluator';
import { createOperationMatcher, type OperationMatch } from '../policy/match-operation';
import { parseWith } from '../policy/parse-with';
import { aclOptionsShape, decisionOptions, type AclOptions } from './acl-options';
import type { BearerJwtHandler } from './bearer-jwt';
import { answerJson, guardRequest, type Guard, type GuardedRequest } from './guard-request';
import { serverPrefixes } from './server-prefixes';

export interface BearerJwtAclOptions extends AclOptions {
  /** The OpenAPI document: an object, or a path to a JSON or YAML file. */
  openapi: unknown;
  /** The verifier, from bearerJwt(config). */
  handler: BearerJwtHandler;
  /** `{ <schemeName>: declaration }`: one bearer scheme, its permission declaration (object or file). */
  acl: Record<string, unknown>;
  /** Requests that match no operation of the document: 404 (the default) or passed on with next(). */
  unknownOperations?: 'deny' | 'pass';
}

type Request = GuardedRequest;
type Response = ServerResponse;

const optionsSchema = z
  .object({
    openapi: z.unknown(),
    handler: z.custom<BearerJwtHandler>((value) => typeof value === 'function', { error: 'handler must be the function bearerJwt(config) returns' }),
    acl: z.record(z.string(), z.unknown()).refine((acl) => Object.keys(acl).length === 1, { error: 'acl must name exactly one security scheme: { <schemeName>: <declaration> }' }),
    unknownOperations: z.enum(['deny', 'pass']).default('deny'),
    ...aclOptionsShape,
  })
  .strict();

/**
 * Express middleware (4 and 5) that guards the operations of an OpenAPI document: it matches the
 * request to its operation, verifies the bearer token, asks the policy, and answers 401 or 403 as
 * JSON, or calls next() with `req.auth` set.
 */
export function bearerJwtAcl(options: BearerJwtAclOptions): (req: Request, res: Response, next: (error?: unknown) => void) => Promise<void> {
  const config = parseWith(optionsSchema, options, '<bearerJwtAcl options>', [], 'see bearerJwtAcl in the README');
  const [[scheme, declaration]] = Object.entries(config.acl) as [[string, unknown]];
  const { data, document } = compileApi({ openapi: config.openapi, acl: declaration, scheme });
  if (Object.values(data.operations).every((operation) => !operation.secured)) {
    throw new ConfigError('<bearerJwtAcl options>', '$.acl', `no operation of the document requires the scheme ${scheme}`, 'add security: [{ <scheme>: [] }] to the document or its operations');
  }
  const evaluator = Evaluator.createSync(data, { decisionCacheSize: config.decisionCacheSize });
  const match = createOperationMatcher(data.operations);
  // Express matches paths in any case, so the guard does too.
  const prefixes = serverPrefixes(document.servers).map((prefix) => prefix.toLowerCase());
  const guard: Guard = {
    evaluator,
    handler: config.handler,
    options: decisionOptions(config),
  };

  const find = (req: Request): OperationMatch | undefined => {
    const pathname = pathOf(req);
    const lower = pathname.toLowerCase();
    for (const prefix of prefixes) {
      if (lower !== prefix && !lower.startsWith(`${prefix}/`)) continue;
      const found = match(req.method ?? 'GET', pathname.slice(prefix.length) || '/');
      if (found) return found;
    }
    return undefined;
  };

  return async (req, res, next) => {
    const found = find(req);
    if (!found) {
      if (config.unknownOperations === 'pass') return next();
      return answerJson(res, 404, 'NotFound', `no operation of the API matches ${req.method} ${pathOf(req)}`);
    }
    if (await guardRequest(guard, found, req, res)) next();
  };
}

/** The path of the request as sent (still percent-encoded; the matcher decodes each segment). */
function pathOf(req: Request): string {
  const url = req.originalUrl ?? req.url ?? '/';
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
