import fc from 'fast-check';
import { serializeBodyValue, serializeClaimValue, serializeRequestValue, type ParamSpec, type SchemaType } from '../../src/policy';

function param(style: ParamSpec['style'], explode: boolean, type: SchemaType, items: SchemaType | null = null, location: ParamSpec['in'] = 'path'): ParamSpec {
  return { name: 'color', in: location, style, explode, type, items, binding: 'color', owned: true };
}

// The OpenAPI specification's style examples: color = "blue", ["blue", "black", "brown"] and
// { R: 100, G: 200, B: 150 }, each as it appears on the wire (query values already split by name).
describe('the OpenAPI style table', () => {
  test.each([
    ['simple', false, 'blue', 'blue,black,brown', 'R,100,G,200,B,150'],
    ['simple', true, 'blue', 'blue,black,brown', 'R=100,G=200,B=150'],
    ['label', false, '.blue', '.blue,black,brown', '.R,100,G,200,B,150'],
    ['label', true, '.blue', '.blue.black.brown', '.R=100.G=200.B=150'],
    ['matrix', false, ';color=blue', ';color=blue,black,brown', ';color=R,100,G,200,B,150'],
    ['matrix', true, ';color=blue', ';color=blue;color=black;color=brown', ';R=100;G=200;B=150'],
  ] as const)('path style %s, explode %s', (style, explode, primitive, array, object) => {
    expect(serializeRequestValue(param(style, explode, 'string'), primitive)).toEqual(['blue']);
    expect(serializeRequestValue(param(style, explode, 'array', 'string'), array)).toEqual(['blue', 'black', 'brown']);
    expect(serializeRequestValue(param(style, explode, 'object'), object)).toEqual([null]);
  });

  test.each([
    ['form', false, ['blue'], ['blue,black,brown']],
    ['form', true, ['blue'], ['blue', 'black', 'brown']],
    ['spaceDelimited', false, null, ['blue black brown']],
    ['pipeDelimited', false, null, ['blue|black|brown']],
  ] as const)('query style %s, explode %s', (style, explode, primitive, array) => {
    if (primitive) expect(serializeRequestValue(param(style, explode, 'string', null, 'query'), primitive)).toEqual(['blue']);
    expect(serializeRequestValue(param(style, explode, 'array', 'string', 'query'), array)).toEqual(['blue', 'black', 'brown']);
    expect(serializeRequestValue(param(style, explode, 'object', null, 'query'), ['R,100,G,200,B,150'])).toEqual([null]);
  });

  test('deepObject is never ownable', () => {
    expect(serializeRequestValue(param('deepObject', true, 'string', null, 'query'), ['x'])).toEqual([null]);
  });
});

describe('canonical values by schema type', () => {
  test.each([
    ['integer', '002', '2'],
    ['integer', '+2', '2'],
    ['integer', '-0', '0'],
    ['integer', '-17', '-17'],
    ['integer', '123456789012345678901234567890', '123456789012345678901234567890'],
    ['integer', '2.0', null],
    ['integer', '2.5', null],
    ['integer', 'abc', null],
    ['integer', '', null],
    ['integer', ' 2', null],
    ['integer', '0x10', null],
    ['number', '2.0', '2'],
    ['number', '1e2', '100'],
    ['number', '.5', '0.5'],
    ['number', '-2.50', '-2.5'],
    ['number', 'NaN', null],
    ['number', 'Infinity', null],
    ['number', '1e999', null],
    ['number', '9007199254740993', '9007199254740993'],
    ['number', '9007199254740992', '9007199254740992'],
    ['number', '1.50', '1.5'],
    ['number', '100', '100'],
    ['number', '100.0', '100'],
    ['number', '0.1', '0.1'],
    ['number', '0.10000000000000000001', '0.10000000000000000001'],
    ['number', '-0.0', '0'],
    ['number', '+.5', '0.5'],
    ['number', '1.', '1'],
    ['number', '1.e1', '10'],
    ['number', '0.000001', '0.000001'],
    ['number', '0.0000001', '1e-7'],
    ['number', '123456789012345678901', '123456789012345678901'],
    ['number', '1e21', '1e+21'],
    ['number', '1000000000000000000000', '1e+21'],
    ['number', '12.5e30', '1.25e+31'],
    ['number', '1e308', '1e+308'],
    ['number', '1e309', null],
    ['number', '1e-324', '1e-324'],
    ['number', '1e-325', null],
    ['number', '1e999999', null],
    ['number', `1e${'9'.repeat(500)}`, null],
    ['number', '0e999999', '0'],
    ['number', '1e0000002', '100'],
    ['number', '.', null],
    ['number', '1e', null],
    ['number', '1e+', null],
    ['number', 'e5', null],
    ['number', '1.2.3', null],
    ['number', '1_000', null],
    ['number', '\uff12', null],
    ['integer', '-000', '0'],
    ['integer', '+0', '0'],
    ['integer', '9007199254740993', '9007199254740993'],
    ['integer', '+', null],
    ['integer', '--1', null],
    ['integer', '1e2', null],
    ['integer', '\u0663', null],
    ['boolean', 'true', 'true'],
    ['boolean', 'false', 'false'],
    ['boolean', 'TRUE', null],
    ['boolean', '1', null],
    ['string', '002', '002'],
    ['unknown', 'a b', 'a b'],
  ] as const)('%s %j -> %j', (type, raw, expected) => {
    expect(serializeRequestValue(param('simple', false, type), raw)).toEqual([expected]);
  });

  test('array items are canonicalized by the item type', () => {
    expect(serializeRequestValue(param('simple', false, 'array', 'integer'), '01,2,x')).toEqual(['1', '2', null]);
    expect(serializeRequestValue(param('form', true, 'array', 'integer', 'query'), ['3', '004'])).toEqual(['3', '4']);
  });

  test('label and matrix prefixes are read away: .7 and ;color=7 are 7', () => {
    expect(serializeRequestValue(param('label', false, 'integer'), '.07')).toEqual(['7']);
    expect(serializeRequestValue(param('matrix', false, 'integer'), ';color=7')).toEqual(['7']);
  });

  test('a missing or foreign prefix is invalid, not a plain value', () => {
    expect(serializeRequestValue(param('label', false, 'integer'), '7')).toEqual([null]);
    expect(serializeRequestValue(param('matrix', false, 'integer'), ';other=7')).toEqual([null]);
    expect(serializeRequestValue(param('matrix', true, 'array', 'integer'), ';color=7;other=8')).toEqual(['7', null]);
  });
});

describe('absent and odd request values', () => {
  test('absent is no element; an empty array value is no element', () => {
    expect(serializeRequestValue(param('simple', false, 'integer'), undefined)).toEqual([]);
    expect(serializeRequestValue(param('form', true, 'integer', null, 'query'), [])).toEqual([]);
    expect(serializeRequestValue(param('simple', false, 'array', 'integer'), '')).toEqual([]);
  });

  test('a scalar given twice in the query is invalid', () => {
    expect(serializeRequestValue(param('form', true, 'integer', null, 'query'), ['1', '2'])).toEqual([null]);
  });

  test('a non-exploded array given twice is invalid', () => {
    expect(serializeRequestValue(param('form', false, 'array', 'integer', 'query'), ['1,2', '3'])).toEqual([null]);
  });
});

describe('claims', () => {
  const integer = param('simple', false, 'integer');
  test.each([
    ['an integer claim', 2, ['2']],
    ['a string claim with leading zeros', '002', ['2']],
    ['a list claim', [1, 3, 5], ['1', '3', '5']],
    ['a list with duplicates', [1, '01', 1], ['1']],
    ['a non-integer number', 2.5, []],
    ['NaN and Infinity', [Number.NaN, Number.POSITIVE_INFINITY], []],
    ['null', null, []],
    ['an object', { id: 1 }, []],
    ['a nested list', [[1]], []],
    ['a boolean', true, []],
    ['a huge integer given as a string', '123456789012345678901234567890', ['123456789012345678901234567890']],
    ['an integer beyond 2^53 given as a number (it arrived rounded)', 1e21, []],
    ['12345678901234567890 given as a JSON number', JSON.parse('[12345678901234567890]'), []],
    ['2^53 given as a number', 2 ** 53, []],
    ['the largest safe integer given as a number', Number.MAX_SAFE_INTEGER, ['9007199254740991']],
    ['12345678901234567890 given as a string', '12345678901234567890', ['12345678901234567890']],
  ])('%s against an integer parameter', (_name, claim, expected) => {
    expect(serializeClaimValue(integer, claim)).toEqual(expected);
  });

  test('an unsafe integer given as a number owns nothing, under any parameter type', () => {
    for (const type of ['number', 'string', 'unknown'] as const) expect(serializeClaimValue(param('simple', false, type), 2 ** 53)).toEqual([]);
  });

  test('string parameters compare text exactly', () => {
    expect(serializeClaimValue(param('simple', false, 'string'), ['2', 'abc', true])).toEqual(['2', 'abc', 'true']);
  });

  test('number parameters: 2 and "2.0" are the same number', () => {
    expect(serializeClaimValue(param('simple', false, 'number'), [2, '2.0', '1e2'])).toEqual(['2', '100']);
  });

  test('a number claim reads the same as the request text that means it', () => {
    const number = param('simple', false, 'number');
    for (const [claim, text] of [
      [0.1, '0.10'],
      [1e-7, '0.0000001'],
      [-2.5, '-2.50'],
      [1.25e-10, '125e-12'],
    ] as const) {
      expect(serializeClaimValue(number, claim)).toEqual(serializeRequestValue(number, text));
    }
  });

  test('number parameters compare exact decimals: 9007199254740992 does not own 9007199254740993', () => {
    const number = param('simple', false, 'number');
    expect(serializeClaimValue(number, '9007199254740992')).not.toEqual(serializeRequestValue(number, '9007199254740993'));
  });

  test('boolean parameters take booleans and their text only', () => {
    expect(serializeClaimValue(param('simple', false, 'boolean'), [true, 'false', 1, 'yes'])).toEqual(['true', 'false']);
  });

  test('array parameters compare claims with the item type', () => {
    expect(serializeClaimValue(param('simple', false, 'array', 'integer'), [1, '03'])).toEqual(['1', '3']);
  });

  test('object parameters own nothing', () => {
    expect(serializeClaimValue(param('simple', false, 'object'), 'x')).toEqual([]);
  });
});

describe('JSON body properties', () => {
  const body = (type: SchemaType, items: SchemaType | null = null): ParamSpec => ({ name: 'ownerId', in: 'body', style: 'form', explode: false, type, items, binding: 'sub', owned: true });
  test.each([
    ['an integer', body('integer'), 7, ['7']],
    ['an integer given as text', body('integer'), '007', ['7']],
    ['a fraction for an integer', body('integer'), 7.5, [null]],
    ['an object', body('integer'), { id: 7 }, [null]],
    ['absent', body('integer'), undefined, []],
    ['a list', body('array', 'integer'), [1, '02'], ['1', '2']],
    ['a scalar for a list', body('array', 'integer'), 1, [null]],
    ['a string', body('string'), 'x', ['x']],
    ['an integer beyond 2^53 given as a number', body('integer'), JSON.parse('12345678901234567890'), [null]],
    ['an integer beyond 2^53 given as text', body('integer'), '12345678901234567890', ['12345678901234567890']],
    ['a number given as text', body('number'), '2.50', ['2.5']],
  ])('%s', (_name, param, value, expected) => {
    expect(serializeBodyValue(param, value)).toEqual(expected);
  });
});

describe('the length limit: 1,024 characters, checked before any parsing', () => {
  const integer = param('simple', false, 'integer');
  test('a request value of 1,024 characters is read; one more is invalid', () => {
    expect(serializeRequestValue(integer, '7'.repeat(1024))).toEqual(['7'.repeat(1024)]);
    expect(serializeRequestValue(integer, '7'.repeat(1025))).toEqual([null]);
    expect(serializeRequestValue(param('simple', false, 'string'), 'a'.repeat(1025))).toEqual([null]);
  });

  test('the limit holds for the whole value before it is split into elements', () => {
    expect(serializeRequestValue(param('simple', false, 'array', 'integer'), '1,'.repeat(512) + '1')).toEqual([null]);
    expect(serializeRequestValue(param('form', true, 'array', 'integer', 'query'), ['1', '2'.repeat(1025)])).toEqual([null]);
  });

  test('a longer string claim is dropped; a longer string body property is invalid', () => {
    expect(serializeClaimValue(integer, ['1'.repeat(1025), '2'])).toEqual(['2']);
    expect(serializeBodyValue({ ...integer, in: 'body' }, '1'.repeat(1025))).toEqual([null]);
  });

  test("the finding's inputs are invalid", () => {
    expect(serializeBodyValue({ ...param('simple', false, 'number'), in: 'body' }, '1'.repeat(95_000) + 'x')).toEqual([null]);
    expect(serializeRequestValue(param('simple', false, 'number'), '1'.repeat(15_000) + 'x')).toEqual([null]);
  });
});

describe('number canonical form, against exact arithmetic', () => {
  const number = param('simple', false, 'number');
  const canonical = (text: string) => serializeRequestValue(number, text)[0];

  /** A decimal text: sign, integer digits (maybe with leading zeros), fraction, exponent. */
  const decimalText = fc
    .record({
      sign: fc.constantFrom('', '+', '-'),
      integer: fc.stringMatching(/^[0-9]{0,4}$/),
      fraction: fc.option(fc.stringMatching(/^[0-9]{0,4}$/), { nil: undefined }),
      exponent: fc.option(fc.integer({ min: -12, max: 12 }), { nil: undefined }),
    })
    .filter(({ integer, fraction }) => integer.length + (fraction?.length ?? 0) > 0)
    .map(({ sign, integer, fraction, exponent }) => `${sign}${integer}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`);

  /** The exact value as digits x 10^scale with no trailing zero in the digits; zero is one value whatever its sign. */
  function exact(text: string): string {
    const [, sign, integer, fraction = '', exponent = '0'] = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
    let digits = BigInt(`${integer}${fraction}` || '0');
    let scale = Number(exponent) - fraction.length;
    if (digits === 0n) return '0';
    while (digits % 10n === 0n) {
      digits /= 10n;
      scale += 1;
    }
    return `${sign === '-' ? '-' : ''}${digits}e${scale}`;
  }

  test('two texts read as the same canonical string exactly when they are the same number', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (a, b) => {
        expect(canonical(a) === canonical(b)).toBe(exact(a) === exact(b));
      }),
      { numRuns: 5000 },
    );
  });

  /** One number, core x 10^scale, written two ways: zeros around it, the point anywhere, the exponent making up for it. */
  const writing = fc.record({ lead: fc.nat(3), trail: fc.nat(3), point: fc.nat(12), exponentCase: fc.constantFrom('e', 'E') });
  const sameNumberTwice = fc
    .record({ sign: fc.constantFrom('', '-'), core: fc.stringMatching(/^[1-9][0-9]{0,5}$/), scale: fc.integer({ min: -10, max: 10 }), a: writing, b: writing })
    .map(({ sign, core, scale, a, b }) =>
      [a, b].map(({ lead, trail, point, exponentCase }) => {
        const digits = '0'.repeat(lead) + core + '0'.repeat(trail);
        const at = Math.min(point, digits.length);
        const exponent = scale - trail + digits.length - at;
        return `${sign}${digits.slice(0, at)}${at < digits.length ? `.${digits.slice(at)}` : ''}${exponent === 0 ? '' : `${exponentCase}${exponent}`}`;
      }),
    );

  test('every way of writing one number reads as the same canonical string', () => {
    fc.assert(
      fc.property(sameNumberTwice, ([a, b]) => {
        expect(exact(a!)).toBe(exact(b!));
        expect(canonical(a!)).toBe(canonical(b!));
      }),
      { numRuns: 5000 },
    );
  });

  test('the canonical string denotes the same number as the text', () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        expect(exact(canonical(text)!)).toBe(exact(text));
      }),
      { numRuns: 5000 },
    );
  });

  test("a double's own text is its canonical form, as JavaScript prints it", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        if (Number.isInteger(value) && !Number.isSafeInteger(value)) return;
        expect(serializeClaimValue(number, value)).toEqual([String(value)]);
      }),
      { numRuns: 5000 },
    );
  });
});
