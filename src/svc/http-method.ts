import { words } from './words';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const BY_FIRST_WORD: Record<string, HttpMethod> = {
  get: 'GET',
  read: 'GET',
  fetch: 'GET',
  find: 'GET',
  list: 'GET',
  create: 'POST',
  add: 'POST',
  post: 'POST',
  update: 'PUT',
  put: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  remove: 'DELETE',
};

/** By the first word of the method name, not a prefix: `getter` and `address` are POST. */
export function httpMethodOf(methodName: string): HttpMethod {
  return BY_FIRST_WORD[words(methodName)[0]?.toLowerCase() ?? ''] ?? 'POST';
}

/** Where the method's one object argument comes from. */
export function readsBody(method: HttpMethod): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH';
}
