// `limit` and `offset` of GET /orders, read from the query as Express parsed it. Absent: the
// default. Anything but one decimal integer in range is refused (the handler answers 400): a word,
// `1.5`, `-1`, an empty value, and a repeated or bracketed key (`limit=1&limit=2`, `limit[]=1`),
// which the query parser turns into an array or an object.
const DIGITS = /^[0-9]{1,16}$/;

export const LIMIT = { name: 'limit', fallback: 20, min: 1, max: 100 };
export const OFFSET = { name: 'offset', fallback: 0, min: 0, max: Number.MAX_SAFE_INTEGER };

/** `{ limit, offset }`, or `{ error }` saying which value is wrong and what it may be. */
export function readPage(query) {
  const limit = readInteger(query.limit, LIMIT);
  const offset = readInteger(query.offset, OFFSET);
  if (limit === undefined || offset === undefined) {
    const wrong = limit === undefined ? LIMIT : OFFSET;
    return { error: `${wrong.name} must be an integer from ${wrong.min} to ${wrong.max}` };
  }
  return { limit, offset };
}

function readInteger(value, { fallback, min, max }) {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !DIGITS.test(value)) return undefined;
  const number = Number(value);
  return number >= min && number <= max ? number : undefined;
}
