import type { IncomingMessage } from 'node:http';
import { ConfigError } from '../../policy/compile/config-error';
import { answerWithin } from '../../policy/evaluate/answer-within';
import type { OperationFacts } from '../../policy/compile/data-document';
import { operationSecurity } from '../../guard/security-alternatives';

/** Checks one non-bearer scheme of the document (an API key, a session...): truthy means satisfied. */
export type SchemeCheck = (req: IncomingMessage) => unknown;

/**
 * How a request met an operation's security: by an alternative without the bearer scheme (the
 * names of that requirement's schemes), with the bearer token, or not at all (anonymous).
 */
export type SecurityReading = { alternative: readonly string[] } | 'bearer' | 'anonymous';

/** An operation whose security names other schemes besides the bearer one. */
export interface SecurityPlan {
  /**
   * The schemes of each requirement without the bearer scheme; meeting one means the bearer ACL
   * does not decide. Frozen at start-up: a request that meets one carries that list as
   * `req.auth.schemes`, and its decision-log event too.
   */
  alternatives: (readonly string[])[];
  /** The schemes of each requirement with the bearer scheme, the bearer scheme left out: the other schemes that must be met too. */
  withBearer: (readonly string[])[];
}

/** A scheme check that has not answered in this time counts as not satisfied. */
const CHECK_TIMEOUT_MS = 5000;

/**
 * The plans of the operations whose security lists other schemes than `bearer`; operations that
 * need the bearer scheme alone have none (the fast path). Empty requirements (`{}`, optional
 * authentication) are no alternative: such requests are decided, as anonymous without a token.
 */
export function securityPlans(document: Record<string, unknown>, operations: Record<string, OperationFacts>, bearer: string, checks: Record<string, SchemeCheck>, file: string): Map<string, SecurityPlan> {
  const schemes = (document.components as { securitySchemes?: Record<string, unknown> } | undefined)?.securitySchemes ?? {};
  for (const name of Object.keys(checks)) {
    if (name === bearer || !Object.hasOwn(schemes, name)) {
      throw new ConfigError(file, `$.otherSchemes.${name}`, name === bearer ? `${name} is the bearer scheme this middleware verifies` : `the document has no security scheme ${name}`, `name the document's other schemes: ${Object.keys(schemes).filter((scheme) => scheme !== bearer).join(', ') || '(none)'}`);
    }
  }
  const plans = new Map<string, SecurityPlan>();
  const paths = document.paths as Record<string, unknown>;
  for (const [key, operation] of Object.entries(operations)) {
    const requirements = operationSecurity(document, paths[operation.path], operation.method);
    if (!operation.secured || requirements.every((requirement) => Object.keys(requirement).every((name) => name === bearer))) continue;
    plans.set(key, {
      alternatives: requirements.filter((requirement) => !Object.hasOwn(requirement, bearer) && Object.keys(requirement).length > 0).map((requirement) => Object.freeze(Object.keys(requirement))),
      withBearer: requirements.filter((requirement) => Object.hasOwn(requirement, bearer)).map((requirement) => Object.keys(requirement).filter((name) => name !== bearer)),
    });
  }
  return plans;
}

/**
 * Reads the request as OpenAPI security does: any requirement met is enough, every scheme of a
 * requirement must be met. A scheme without a check in `otherSchemes` is never met (fail closed).
 */
export async function readSecurity(plan: SecurityPlan, checks: Record<string, SchemeCheck>, req: IncomingMessage): Promise<SecurityReading> {
  const results = new Map<string, Promise<boolean>>();
  const met = (name: string) => {
    let result = results.get(name);
    if (result === undefined) {
      result = Object.hasOwn(checks, name) ? satisfied(checks[name]!, req) : Promise.resolve(false);
      results.set(name, result);
    }
    return result;
  };
  const all = async (names: readonly string[]) => (await Promise.all(names.map(met))).every(Boolean);
  for (const names of plan.alternatives) if (await all(names)) return { alternative: names };
  for (const names of plan.withBearer) if (await all(names)) return 'bearer';
  return 'anonymous';
}

/** A throw, a rejection or no answer in time is "not satisfied"; a late answer is ignored. */
async function satisfied(check: SchemeCheck, req: IncomingMessage): Promise<boolean> {
  try {
    return Boolean(await answerWithin(check(req), CHECK_TIMEOUT_MS));
  } catch {
    return false;
  }
}
