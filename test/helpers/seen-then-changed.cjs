// Shared by the in-process tests and the @oas-tools/core host (test/fixtures/oas-server.mjs), which runs in a child process.
'use strict';

/**
 * A list operation's plan as the handler got it (a copy), taken before every change the handler
 * then tries on it: another item, another attribute, another kind, another value in each list.
 * Each change may throw (the plan is frozen when its decision came from a cache); none may reach
 * the next request with the same token.
 */
function seenThenChanged(list) {
  const seen = JSON.parse(JSON.stringify(list));
  const attempts = [() => list.anyOf.push({ orderId: [1] }), () => list.attributes.push('secret'), () => (list.kind = 'all'), ...list.anyOf.flatMap((entry) => Object.values(entry).map((values) => () => values.push(1)))];
  for (const attempt of attempts) {
    try {
      attempt();
    } catch {
      // Frozen: the change is refused.
    }
  }
  return seen;
}

module.exports = { seenThenChanged };
