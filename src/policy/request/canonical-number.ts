/**
 * Exact canonical decimals for ownership. Request values come from clients, so they are read by
 * one left-to-right pass over the text: no regular expression that could backtrack, and no
 * Number or BigInt parse of text whose length the client chooses (SPEC 7.3). Nothing is rounded
 * through a double: `9007199254740993` stays itself (SPEC 7.4).
 */

/**
 * A number's decimal exponent in scientific notation must lie within the exponents a double can
 * carry: beyond them a value is invalid (as `1e999` always was), and a huge exponent never turns
 * into a huge string.
 */
const MIN_EXPONENT = -324;
const MAX_EXPONENT = 308;
/** Exponent digits stop counting here: any larger exponent is out of range all the same. */
const EXPONENT_SATURATION = 1_000_000;

const ZERO = 48;
const NINE = 57;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;
const LOWER_E = 101;
const UPPER_E = 69;

const isDigit = (code: number): boolean => code >= ZERO && code <= NINE;

/** `[+-]?[0-9]+` printed without sign or leading zeros unless negative: `002` -> `2`, `-0` -> `0`, `+2` -> `2`; else null. */
export function canonicalInteger(text: string): string | null {
  const negative = text.charCodeAt(0) === MINUS;
  const start = negative || text.charCodeAt(0) === PLUS ? 1 : 0;
  if (start === text.length) return null;
  let firstSignificant = -1;
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return null;
    if (firstSignificant === -1 && code !== ZERO) firstSignificant = i;
  }
  if (firstSignificant === -1) return '0';
  const digits = text.slice(firstSignificant);
  return negative ? `-${digits}` : digits;
}

/**
 * `[+-]?(digits[.digits?] | .digits)([eE][+-]?digits)?` printed the way JavaScript prints a
 * number (`1.50` -> `1.5`, `1e2` -> `100`, `1e21` -> `1e+21`, `0.0000001` -> `1e-7`), but from the
 * exact digits, so no digit is lost. Null for anything else and for exponents out of range.
 * JavaScript's form keeps the output short for any exponent, and it is what String(n) gives, so a
 * claim that is a JSON number reads the same as its text and numberValue can see whether a double
 * holds the value.
 */
export function canonicalNumber(text: string): string | null {
  const length = text.length;
  const negative = text.charCodeAt(0) === MINUS;
  let i = negative || text.charCodeAt(0) === PLUS ? 1 : 0;

  const integerStart = i;
  while (i < length && isDigit(text.charCodeAt(i))) i++;
  const integerEnd = i;
  let fractionStart = i;
  let fractionEnd = i;
  if (i < length && text.charCodeAt(i) === DOT) {
    fractionStart = ++i;
    while (i < length && isDigit(text.charCodeAt(i))) i++;
    fractionEnd = i;
  }
  if (integerEnd === integerStart && fractionEnd === fractionStart) return null;

  let exponent = 0;
  if (i < length && (text.charCodeAt(i) === LOWER_E || text.charCodeAt(i) === UPPER_E)) {
    const exponentNegative = text.charCodeAt(++i) === MINUS;
    if (exponentNegative || text.charCodeAt(i) === PLUS) i++;
    const exponentStart = i;
    for (; i < length && isDigit(text.charCodeAt(i)); i++) {
      if (exponent < EXPONENT_SATURATION) exponent = exponent * 10 + (text.charCodeAt(i) - ZERO);
    }
    if (i === exponentStart) return null;
    if (exponentNegative) exponent = -exponent;
  }
  if (i !== length) return null;

  // The digits, integer part then fraction, read as one sequence with the point after the integer part.
  const at = (index: number): number => (index < integerEnd - integerStart ? text.charCodeAt(integerStart + index) : text.charCodeAt(fractionStart + index - (integerEnd - integerStart)));
  const count = integerEnd - integerStart + (fractionEnd - fractionStart);
  let first = 0;
  while (first < count && at(first) === ZERO) first++;
  if (first === count) return '0';
  let last = count - 1;
  while (at(last) === ZERO) last--;

  // The value is 0.<significant> x 10^point, as in ECMAScript's Number::toString.
  const point = integerEnd - integerStart - first + exponent;
  if (point - 1 < MIN_EXPONENT || point - 1 > MAX_EXPONENT) return null;
  const significant = digitsBetween(text, integerStart, integerEnd, fractionStart, first, last);
  return (negative ? '-' : '') + formatDecimal(significant, point);
}

/** The digits from index `first` to `last` of the integer part followed by the fraction, skipping the point. */
function digitsBetween(text: string, integerStart: number, integerEnd: number, fractionStart: number, first: number, last: number): string {
  const integerLength = integerEnd - integerStart;
  if (last < integerLength) return text.slice(integerStart + first, integerStart + last + 1);
  const fractionEnd = fractionStart + last - integerLength + 1;
  if (first >= integerLength) return text.slice(fractionStart + first - integerLength, fractionEnd);
  return text.slice(integerStart + first, integerEnd) + text.slice(fractionStart, fractionEnd);
}

/** ECMAScript Number::toString, steps 6-10, for the digits `significant` and the point position `point`. */
function formatDecimal(significant: string, point: number): string {
  const k = significant.length;
  if (k <= point && point <= 21) return significant + '0'.repeat(point - k);
  if (0 < point && point <= 21) return `${significant.slice(0, point)}.${significant.slice(point)}`;
  if (-6 < point && point <= 0) return `0.${'0'.repeat(-point)}${significant}`;
  const exponent = point - 1;
  const mantissa = k === 1 ? significant : `${significant[0]}.${significant.slice(1)}`;
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${Math.abs(exponent)}`;
}

/** A canonical integer as JavaScript can hold it exactly: a number when safe, else a BigInt. */
export function integerValue(canonical: string): number | bigint {
  const value = Number(canonical);
  return Number.isSafeInteger(value) ? value : BigInt(canonical);
}

/**
 * A canonical number as JavaScript can hold it without losing a digit: the double when it prints
 * back as the same decimal (`2.5`, `0.1`), else the canonical text (`9007199254740993`).
 */
export function numberValue(canonical: string): number | string {
  const value = Number(canonical);
  return String(value) === canonical ? value : canonical;
}
