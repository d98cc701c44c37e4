import type { VerifiedPayload } from './build-input';
import type { OperationFacts } from '../compile/data-document';

/** Each operation's scopes, each once, in the order the alternatives name them; worked out on first use. */
const namedScopes = new WeakMap<OperationFacts, readonly string[]>();

/**
 * The token's scopes that the operation's scope alternatives name, for the policy input: the
 * policy compares nothing else, and leaving out the rest keeps the input small and lets tokens
 * that differ only in unrelated scopes share decisions in the cache.
 */
export function scopesForOperation(operation: OperationFacts, payload: VerifiedPayload | undefined): string[] {
  let named = namedScopes.get(operation);
  if (named === undefined) {
    named = [...new Set(operation.scopes.flat())];
    namedScopes.set(operation, named);
  }
  const held = tokenScopes(payload);
  return named.filter((scope) => held.has(scope));
}

/**
 * The token's scopes: the `scope` claim, a space-separated string (RFC 8693, 4.2; RFC 9068), or
 * when there is none `scp`, a list of strings or a space-separated string (Okta, Entra).
 * A claim of any other shape holds no scopes: the request is then denied, not failed.
 */
function tokenScopes(payload: VerifiedPayload | undefined): ReadonlySet<string> {
  if (payload === undefined) return NONE;
  if (Object.hasOwn(payload, 'scope')) return typeof payload.scope === 'string' ? spaceSeparated(payload.scope) : NONE;
  if (!Object.hasOwn(payload, 'scp')) return NONE;
  const scp = payload.scp;
  if (typeof scp === 'string') return spaceSeparated(scp);
  return Array.isArray(scp) && scp.every((scope) => typeof scope === 'string') ? new Set(scp as string[]) : NONE;
}

const NONE: ReadonlySet<string> = new Set();

function spaceSeparated(text: string): ReadonlySet<string> {
  return new Set(text.split(' '));
}
