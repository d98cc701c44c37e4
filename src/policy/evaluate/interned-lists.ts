/** The one empty list every decision without attributes, scopes or reasons gets. */
const EMPTY: readonly string[] = Object.freeze([]);

/** Longer keys are not remembered: a list that long is rare, and the table must stay small. */
const MAX_KEY = 1024;

/**
 * The lists of the decisions one evaluator reads (granted attribute globs, scopes to ask for,
 * reasons), one frozen copy per content. A policy answers with the same few lists again and again,
 * even when every request is new (a new token, a new item): the copy seen before arrives frozen,
 * so caching its decision freezes nothing, and the filter finds its globs parsed (it remembers
 * them by the list's identity). At most `limit` lists are remembered (reasons may name a role
 * from a token, so the evaluator keeps them in a table of their own); past that, or for a list
 * whose key is too long, the list is given back frozen but not remembered: docs/policy.md promises
 * frozen lists whatever the traffic before, so a handler that changes one always fails the same way.
 */
export class InternedLists {
  private readonly known = new Map<string, readonly string[]>();

  constructor(private readonly limit = 1024) {}

  intern(list: string[]): string[] {
    if (list.length === 0) return EMPTY as string[];
    const key = listKey(list);
    const known = key === undefined ? undefined : this.known.get(key);
    if (known !== undefined) return known as string[];
    Object.freeze(list);
    if (key !== undefined && this.known.size < this.limit) this.known.set(key, list);
    return list;
  }
}

/** Each item after its length, so that two different lists never share a key; undefined when too long. */
function listKey(list: readonly string[]): string | undefined {
  let key = '';
  for (const item of list) {
    key += `${item.length}:${item}`;
    if (key.length > MAX_KEY) return undefined;
  }
  return key;
}
