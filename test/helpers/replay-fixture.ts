import type express from 'express';
import request from 'supertest';
import type { Permissions } from './bundles';
import { LIST_ACL } from './list-callers';

/** `method path token expected-status`: one request of a recorded run. */
export type RecordedCall = [method: 'get' | 'put' | 'delete', path: string, jwt: string | undefined, status: number];

/** The candidate of the replay tests: user may no longer update its own user, and may now list users (id and name). */
export function revokeAndGrant(permissions: Permissions): void {
  delete permissions.user!['/users/{userId}']!['update:own'];
  permissions.user!['/users'] = { 'read:any': ['id', 'name'] };
}

/** The list operation's candidate: a customer sees the internal notes of its orders now; support reads its own orders only. */
export const LIST_CANDIDATE = { ...LIST_ACL, customer: { ...LIST_ACL.customer, '/orders/{orderId}': { 'read:own': ['*'] } }, support: { '/orders/{orderId}': { 'read:own': ['*'] } } };

/** A replay report's counts, of all events or of one operation or role. */
export function counts(replayed: number, same: number, widened = 0, narrowed = 0, changed = 0) {
  return { replayed, same, widened, narrowed, changed };
}

/**
 * Sends each call and checks its status. A 503 of a remoteOpa that has not checked OPA's data yet
 * is asked again: it reaches no policy, so it is in no log.
 */
export async function sendCalls(app: express.Express, calls: readonly RecordedCall[]): Promise<void> {
  for (const [method, path, jwt, status] of calls) {
    for (let i = 0; ; i++) {
      const call = request(app)[method](path);
      const answer = await (jwt === undefined ? call : call.set('Authorization', `Bearer ${jwt}`));
      if (answer.status === 503 && /has not been checked/.test(answer.body.message) && i < 200) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      expect({ method, path, status: answer.status }).toEqual({ method, path, status });
      break;
    }
  }
}
