import { join } from 'node:path';
import { compileAcl, Evaluator, type PolicyInput } from '../../src/policy';

// A cold decision arrives with the one frozen copy of each list its evaluator has seen (granted
// attributes, scopes to ask for): the filter finds its globs parsed, and caching freezes nothing.
// Reasons may carry text from the token (`role <name> is not declared in the ACL`), so a stream
// of denials for undeclared roles must not use up the room kept for the lists the data document
// grants.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });

function owner(userId: string, role: string): PolicyInput {
  return { operation: 'GET /users/{userId}', role, params: { 'path:userId': [userId] }, claims: { 'path:userId': [userId] } };
}

test('granted lists are still shared after 1,500 denials that each name another undeclared role', () => {
  const evaluator = Evaluator.createSync(data, { decisionCacheSize: 0 });
  for (let n = 0; n < 1500; n++) {
    const decision = evaluator.evaluate(owner(String(n), `group-${n}`));
    expect(decision.reasons).toContain(`role group-${n} is not declared in the ACL`);
  }
  const first = evaluator.evaluate(owner('1', 'user'));
  const second = evaluator.evaluate(owner('2', 'user'));
  expect(first.allow && second.allow).toBe(true);
  expect(second.attributes).toBe(first.attributes);
  expect(Object.isFrozen(first.attributes)).toBe(true);
});

test('reasons are shared as well, while their own room lasts, and never given for another list', () => {
  const evaluator = Evaluator.createSync(data, { decisionCacheSize: 0 });
  const a = evaluator.evaluate(owner('1', 'group-a'));
  const b = evaluator.evaluate(owner('2', 'group-a'));
  const c = evaluator.evaluate(owner('3', 'group-b'));
  expect(b.reasons).toBe(a.reasons);
  expect(c.reasons).toContain('role group-b is not declared in the ACL');
  expect(c.reasons).not.toContain('role group-a is not declared in the ACL');
});

// docs/policy.md: a decision's lists are frozen, cached or not (decisionCacheSize: 0 too), so a
// handler that changes one fails the same way whatever the traffic before it.
test('lists past the room of the table, or too long to be kept, arrive frozen all the same', () => {
  const evaluator = Evaluator.createSync(data, { decisionCacheSize: 0 });
  for (let n = 0; n < 1100; n++) evaluator.evaluate(owner(String(n), `group-${n}`));
  const late = evaluator.evaluate(owner('1', 'group-late'));
  expect(late.reasons).toContain('role group-late is not declared in the ACL');
  expect(Object.isFrozen(late.reasons)).toBe(true);
  const long = Evaluator.createSync(data, { decisionCacheSize: 0 }).evaluate(owner('1', `group-${'x'.repeat(2000)}`));
  expect(long.reasons.some((reason) => reason.length > 2000)).toBe(true);
  expect(Object.isFrozen(long.reasons)).toBe(true);
});
