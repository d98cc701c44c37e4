/**
 * A lone UTF-16 surrogate: text that no UTF-8 encoding carries. Database drivers (better-sqlite3, PGlite and
 * node-postgres, the MongoDB driver's BSON) write it as U+FFFD, so bound as a value it would equal a stored U+FFFD
 * instead of itself: such a value is left out of a query, where it can equal nothing that was stored. In unicode mode
 * a surrogate pair is one code point, so only a lone surrogate is in category Cs (a linear test).
 */
export function hasUnpairedSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}
