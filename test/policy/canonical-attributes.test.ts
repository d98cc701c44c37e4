import { includesAttributes, sameAttributes } from '../../src/policy/attributes/attribute-coverage';
import { canonicalAttributes } from '../../src/policy/attributes/canonical-attributes';

// The canonical form `svcgate diff` prints and compares, under the rule the filter applies
// (policy/attributes/attribute-glob.ts). Cases whose answer any reading of accesscontrol's
// notation gives: the CLI follows the rule, it does not define it.
describe('canonicalAttributes', () => {
  test.each([
    [['*', 'id'], ['*']],
    [['id', 'name', 'id'], ['id', 'name']],
    [['name', 'id'], ['id', 'name']],
    [['a', 'a.b'], ['a']],
    [['*.b', 'a.b'], ['*.b']],
    [['*', '!password'], ['!password', '*']],
    [['!password', '*', '!password', 'id'], ['!password', '*']],
    [['*', '!a', '!a.b'], ['!a', '*']],
    [['id', '!password'], ['id']],
    [['!password'], []],
    [[], []],
  ])('%j -> %j', (list, canonical) => {
    expect(canonicalAttributes(list)).toEqual(canonical);
    // The same fields as the list given, and a fixed point.
    expect(sameAttributes(canonicalAttributes(list), list)).toBe(true);
    expect(canonicalAttributes(canonicalAttributes(list))).toEqual(canonical);
  });

  test('the order of a list does not change its form', () => {
    const list = ['address.city', '!password', '*', 'id', '!address.zip'];
    expect(canonicalAttributes([...list].reverse())).toEqual(canonicalAttributes(list));
  });
});

describe('includesAttributes', () => {
  test.each([
    [['*'], ['id'], true],
    [['id'], ['*'], false],
    [['*'], ['*', '!password'], true],
    [['*', '!password'], ['*'], false],
    [['a'], ['a.b'], true],
    [['a.b'], ['a'], false],
    [['*.zip'], ['address.zip'], true],
    [['id'], [], true],
    [[], ['!password'], true],
  ])('%j includes %j: %s', (outer, inner, expected) => {
    expect(includesAttributes(outer, inner)).toBe(expected);
  });

  test('lists too intricate to walk are compared by spelling, not for ever', () => {
    // 12 wildcard levels, each with 3 named keys: far more paths than the walk asks about.
    const deep = Array.from({ length: 12 }, (_, depth) => ['a', 'b', 'c'].map((key) => [...Array(depth).fill('*'), key, ...Array(11 - depth).fill('*'), 'x'].join('.'))).flat();
    expect(sameAttributes(deep, [...deep].reverse())).toBe(true);
    expect(sameAttributes(deep, deep.slice(1))).toBe(false);
    expect(canonicalAttributes([...deep, deep[0]!])).toEqual([...deep].sort());
  });
});
