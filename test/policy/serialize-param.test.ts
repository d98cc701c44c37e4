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
    ['an integer beyond 2^53 given as a number', 1e21, ['1000000000000000000000']],
  ])('%s against an integer parameter', (_name, claim, expected) => {
    expect(serializeClaimValue(integer, claim)).toEqual(expected);
  });

  test('string parameters compare text exactly', () => {
    expect(serializeClaimValue(param('simple', false, 'string'), ['2', 'abc', true])).toEqual(['2', 'abc', 'true']);
  });

  test('number parameters: 2 and "2.0" are the same number', () => {
    expect(serializeClaimValue(param('simple', false, 'number'), [2, '2.0', '1e2'])).toEqual(['2', '100']);
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
  ])('%s', (_name, param, value, expected) => {
    expect(serializeBodyValue(param, value)).toEqual(expected);
  });
});
