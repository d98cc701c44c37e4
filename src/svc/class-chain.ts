/**
 * `start` and the objects it inherits from, nearest first, without the last one before null. That
 * one is the Object.prototype of whichever realm made the class (a `vm` context, a jest test
 * file, an iframe-like sandbox), and what it holds (toString, valueOf, hasOwnProperty) is no
 * member of the user's classes. Comparing with this realm's Object.prototype instead would stop
 * too late for a class made in another realm and make that realm's members routes.
 */
export function* classChain(start: object | null): Generator<object> {
  for (let holder: object | null = start; holder !== null; holder = Object.getPrototypeOf(holder) as object | null) {
    if (Object.getPrototypeOf(holder) === null) return;
    yield holder;
  }
}

/**
 * The public methods (SPEC 4) that instances of the class owning `prototype` have, own and
 * inherited: functions held by `prototype` and the prototypes above it, not `constructor` and not
 * names starting with `_` or `#`. Getters are no methods, nor are fields (the instance's own).
 */
export function publicMethods(prototype: object | null): string[] {
  const names = new Set<string>();
  for (const holder of classChain(prototype)) {
    for (const name of Object.getOwnPropertyNames(holder)) {
      if (name === 'constructor' || name.startsWith('_') || name.startsWith('#')) continue;
      if (typeof Object.getOwnPropertyDescriptor(holder, name)!.value === 'function') names.add(name);
    }
  }
  return [...names];
}
