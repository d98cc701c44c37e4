import { JwtCheckFailure } from './jwt-check-failure';

/**
 * Levels of nesting a verified payload may have. Claims are read by path and handed to the policy
 * as JSON; a payload nested thousands of levels deep (which an 8 KiB header can carry) would
 * exhaust the stack wherever it is walked next, so it is refused here, once, as not well-formed.
 */
export const MAX_CLAIM_DEPTH = 64;

/**
 * The payload, frozen to its leaves (a cached payload is shared by every request that brings the
 * same token, so none can change what the next one sees); refused beyond MAX_CLAIM_DEPTH.
 */
export function freezeClaims<T extends object>(payload: T): T {
  freezeWithin(payload, 1);
  return payload;
}

function freezeWithin(value: object, depth: number): void {
  if (depth > MAX_CLAIM_DEPTH) throw new JwtCheckFailure('ERR_JWT_INVALID', `the claims nest deeper than ${MAX_CLAIM_DEPTH} levels`);
  Object.freeze(value);
  // Walked in place rather than listed first (Object.values); own members only, whatever an app added to Object.prototype.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) freezeChild(value[index], depth);
  } else {
    for (const name in value) if (Object.hasOwn(value, name)) freezeChild((value as Record<string, unknown>)[name], depth);
  }
}

function freezeChild(child: unknown, depth: number): void {
  if (typeof child === 'object' && child !== null) freezeWithin(child, depth + 1);
}
