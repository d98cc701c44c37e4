import { filterAttributes } from '../../src/auth';

describe('filterAttributes (accesscontrol notation)', () => {
  const user = { id: 1, name: 'Ann', password: 'p', address: { city: 'Oslo', zip: '0150' }, tags: [{ label: 'a', secret: 's' }] };

  test.each([
    [['*'], user],
    [['*', '!password'], { id: 1, name: 'Ann', address: { city: 'Oslo', zip: '0150' }, tags: [{ label: 'a', secret: 's' }] }],
    [['name', 'address.city'], { name: 'Ann', address: { city: 'Oslo' } }],
    [['*', '!address.zip', '!tags.secret'], { id: 1, name: 'Ann', password: 'p', address: { city: 'Oslo' }, tags: [{ label: 'a' }] }],
    [['address', '!address'], {}],
    [['tags.*'], { tags: [{ label: 'a', secret: 's' }] }],
    [[], {}],
  ])('%j', (attributes, expected) => {
    expect(filterAttributes(user, attributes)).toEqual(expected);
  });

  test('arrays are filtered element by element, and the input is left as it was', () => {
    const list = [user, { ...user, id: 2 }];
    expect(filterAttributes(list, ['id'])).toEqual([{ id: 1 }, { id: 2 }]);
    expect(list[0]).toBe(user);
    expect(user.password).toBe('p');
  });

  test.each([
    // The most specific glob decides; a negation wins a tie.
    [['*', '!address', 'address.city'], { id: 1, name: 'Ann', password: 'p', address: { city: 'Oslo' }, tags: [{ label: 'a', secret: 's' }] }],
    [['address', '!address.zip', 'address.zip'], { address: { city: 'Oslo' } }],
    // A glob into a value that is not an object shows nothing of it; an object is kept when shown or when something inside it is.
    [['name.first', 'address.city'], { address: { city: 'Oslo' } }],
    [['address.street'], {}],
    [['*', '!address.city', '!address.zip'], { id: 1, name: 'Ann', password: 'p', address: {}, tags: [{ label: 'a', secret: 's' }] }],
    // A list of negations only shows nothing.
    [['!password'], {}],
  ])('the most specific glob decides: %j', (attributes, expected) => {
    expect(filterAttributes(user, attributes)).toEqual(expected);
  });

  test('a Date is a value, and a __proto__ key (as JSON.parse makes it) is a field like any other', () => {
    const at = new Date(0);
    expect(filterAttributes({ at, id: 1 }, ['at'])).toEqual({ at });
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "id": 2}') as Record<string, unknown>;
    const kept = filterAttributes(parsed, ['*']);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(JSON.stringify(kept)).toBe('{"__proto__":{"x":1},"id":2}');
    expect(JSON.stringify(filterAttributes(parsed, ['__proto__.x', '!id']))).toBe('{"__proto__":{"x":1}}');
  });

  test('a frozen list (as cached decisions give) filters the same on every call', () => {
    const attributes = Object.freeze(['*', '!password']);
    for (let i = 0; i < 3; i++) expect(filterAttributes({ id: i, password: 'p' }, attributes)).toEqual({ id: i });
  });

  test('a list that is not frozen is read again on each call', () => {
    const attributes = ['*'];
    expect(filterAttributes({ id: 1, password: 'p' }, attributes)).toEqual({ id: 1, password: 'p' });
    attributes.push('!password');
    expect(filterAttributes({ id: 1, password: 'p' }, attributes)).toEqual({ id: 1 });
  });
});
