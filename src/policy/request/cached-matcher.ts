import { LruCache } from '../evaluate/lru-cache';
import type { OperationMatch, OperationMatcher } from './match-operation';

/** Longer paths are matched every time: 1,000 entries of at most this many characters stay near 1 MiB. */
const MAX_CACHED_PATH = 512;

/**
 * Remembers what `match` found for the paths it was asked about last (misses included), keyed by
 * the exact method and path as sent: matching is a function of those two strings alone, so a hit
 * answers as `match` would. A path that `match` refuses (a RequestValidationError) is not
 * remembered and is refused again each time. The matches are frozen, as they are shared.
 */
export function cachedMatcher(match: OperationMatcher, size = 1000): OperationMatcher {
  const cache = new LruCache<string, OperationMatch | null>(size);
  return (method, pathname) => {
    if (pathname.length > MAX_CACHED_PATH) return match(method, pathname);
    const key = `${method} ${pathname}`;
    const known = cache.get(key);
    if (known !== undefined) return known ?? undefined;
    const found = match(method, pathname);
    const shared = found === undefined ? undefined : Object.freeze({ ...found, pathParams: Object.freeze(found.pathParams) });
    cache.set(key, shared ?? null);
    return shared;
  };
}
