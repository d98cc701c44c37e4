import fc from 'fast-check';
import { deepFreeze, LruCache } from '../../src/policy/evaluate/lru-cache';

describe('LruCache', () => {
  test('never holds more than maxSize entries, and answers only what was last set for that key', () => {
    const operation = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key: fc.nat(40), value: fc.nat() }),
      fc.record({ op: fc.constant('get' as const), key: fc.nat(40) }),
      fc.record({ op: fc.constant('delete' as const), key: fc.nat(40) }),
    );
    fc.assert(
      fc.property(fc.nat(12), fc.array(operation, { maxLength: 200 }), (maxSize, operations) => {
        const cache = new LruCache<number, number>(maxSize);
        const truth = new Map<number, number>();
        for (const step of operations) {
          if (step.op === 'set') {
            cache.set(step.key, step.value);
            truth.set(step.key, step.value);
            // The entry just written is the most recent one: it is there, unless nothing is kept.
            expect(cache.get(step.key)).toBe(maxSize > 0 ? step.value : undefined);
          } else if (step.op === 'delete') {
            cache.delete(step.key);
            truth.delete(step.key);
          } else {
            const found = cache.get(step.key);
            if (found !== undefined) expect(found).toBe(truth.get(step.key));
          }
          expect(cache.size).toBeLessThanOrEqual(maxSize);
        }
      }),
    );
  });

  test('keeps the entries in use and forgets the ones not used for longest', () => {
    const cache = new LruCache<string, number>(4);
    cache.set('kept', 0);
    for (let i = 0; i < 100; i++) {
      cache.set(`once-${i}`, i);
      expect(cache.get('kept')).toBe(0);
    }
    expect(cache.get('once-0')).toBeUndefined();
    expect(cache.get('once-99')).toBe(99);
    expect(cache.size).toBeLessThanOrEqual(4);
  });
});

test('deepFreeze freezes every own object and list inside, a JSON __proto__ key and cycles included, and leaves a prototype alone', () => {
  const payload = JSON.parse('{"sub":"a","roles":["x",{"deep":[{"deeper":{}}]}],"__proto__":{"inner":[]},"n":null}') as Record<string, unknown>;
  const cycle: Record<string, unknown> = { name: 'cycle' };
  cycle.self = cycle;
  payload.cycle = cycle;
  const prototype = { inherited: { open: true } };
  const child = Object.assign(Object.create(prototype) as Record<string, unknown>, { own: { list: [1] } });
  payload.child = child;
  expect(deepFreeze(payload)).toBe(payload);
  const seen: unknown[] = [];
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.includes(value)) return;
    seen.push(value);
    expect(Object.isFrozen(value)).toBe(true);
    for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key]);
  };
  walk(payload);
  expect(seen.length).toBe(12);
  expect(Object.isFrozen(prototype) || Object.isFrozen(prototype.inherited)).toBe(false);
});
