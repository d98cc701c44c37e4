// What the shadow bench's servers (server.mjs) and loop (shadow-loop.mjs) share: the candidate and
// the decision log.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The permissions of `aclFile` (examples/users-api's) with the user role's read:own on /users/{userId} revoked: the candidate. */
export function withoutUserReadOwn(aclFile) {
  const permissions = require('js-yaml').load(readFileSync(aclFile, 'utf8'));
  delete permissions.user['/users/{userId}']['read:own'];
  return permissions;
}

/**
 * A decision log that does what createDecisionLogUploader does with an event when it is logged:
 * keeps it in a bounded buffer (its default bufferSizeLimitEvents, the oldest overwritten), to be
 * encoded and sent later, which this one never does.
 */
export function boundedLog(size = 10_000) {
  const events = new Array(size);
  let count = 0;
  let divergences = 0;
  return {
    push: (event) => {
      events[count % size] = event;
      count += 1;
      if (event.shadow !== undefined) divergences += 1;
    },
    count: () => count,
    divergences: () => divergences,
  };
}
