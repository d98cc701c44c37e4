import { join } from 'node:path';
import { token } from './tokens';

/** An orders API whose GET /orders lists GET /orders/{orderId} (x-acl-list); the id is owned through the claim `orders`. */
export const LIST_OPENAPI = join(__dirname, '../fixtures/list-plans/openapi.yaml');

/** The grants of the items; the list operation takes them (x-acl-list). */
export const LIST_ACL = {
  anonymous: {},
  guest: {},
  customer: { '/orders/{orderId}': { 'read:own': ['*', '!internalNote'] }, '/orders': { 'create:any': ['*'] } },
  support: { '/orders/{orderId}': { 'read:any': ['*'] } },
};

/** What a guarded handler answers: its plan as it got it (see seen-then-changed.cjs). */
export interface ListAnswer {
  status: number;
  body: { list?: unknown; error?: string; message?: string; code?: string };
  /** WWW-Authenticate, or null. */
  challenge: string | null;
}

/** One request to the list (`GET /orders`) or to an item (`GET /orders/7`), as each host routes it. */
export type AskList = (target: 'list' | 'item', authorization: string | undefined) => Promise<ListAnswer>;

/** How a host names the item in its messages: the OpenAPI path, or the SvcApi route. */
export interface ItemNames {
  resource: string;
  /** `path parameter orderId of GET /orders/{orderId}` */
  parameter: string;
}

export const DOCUMENT_ITEM: ItemNames = { resource: '/orders/{orderId}', parameter: 'path parameter orderId of GET /orders/{orderId}' };

export const bearer = async (claims: Record<string, unknown>) => `Bearer ${await token(claims)}`;

/**
 * The same callers and the same answers on every host and from every decision source: support
 * lists all, a customer the orders of its claim (typed by the item's integer schema), a guest and
 * a customer without the claim get the 403 of any deny (the item's own deny body for the guest),
 * a request without a token the bare 401 challenge. Each allowed plan is asked twice: what the
 * handler changed on the first (when it could) is not what the second gets.
 */
export async function expectSamePlans(ask: AskList, item: ItemNames = DOCUMENT_ITEM): Promise<void> {
  const support = await bearer({ role: 'support' });
  const customer = await bearer({ role: 'customer', orders: [7, '9'] });
  for (const [authorization, list] of [
    [support, { kind: 'all', anyOf: [], attributes: ['*'] }],
    [customer, { kind: 'some', anyOf: [{ orderId: [7, 9] }], attributes: ['!internalNote', '*'] }],
  ] as const) {
    for (let again = 0; again < 2; again++) expect(await ask('list', authorization)).toEqual({ status: 200, body: { list }, challenge: null });
  }

  const guest = await bearer({ role: 'guest' });
  const guestDeny = { status: 403, body: { error: 'Forbidden', message: `no role of the caller is granted read on ${item.resource}`, code: 'ERR_SVCGATE_FORBIDDEN' }, challenge: null };
  expect(await ask('list', guest)).toEqual(guestDeny);
  expect(await ask('item', guest)).toEqual(guestDeny);

  const withoutClaim = await ask('list', await bearer({ role: 'customer' }));
  expect(withoutClaim).toEqual({ status: 403, body: { error: 'Forbidden', message: `read:own lists nothing: the token holds no value of claim orders for ${item.parameter}`, code: 'ERR_SVCGATE_FORBIDDEN' }, challenge: null });

  const anonymous = await ask('list', undefined);
  expect({ status: anonymous.status, challenge: anonymous.challenge }).toEqual({ status: 401, challenge: 'Bearer' });
}
