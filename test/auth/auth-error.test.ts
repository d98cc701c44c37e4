import { AuthError } from '../../src/auth';
import type { Decision } from '../../src/policy/evaluate/evaluator';

// A deny travels to the host's error handler as an AuthError; it is made without Error's
// constructor (no frames captured), and must still look like an Error to everything that checks.
const decision: Decision = { allow: false, attributes: [], role: 'user', possession: 'own', scopes: [], reasons: ['not the owner', 'no scope'] };

test('an AuthError is an Error by instanceof and by tag, with the reasons as its message and a stack of one line', () => {
  const error = new AuthError(decision);
  expect(error).toBeInstanceOf(Error);
  expect(error).toBeInstanceOf(AuthError);
  expect(error).toMatchObject({ name: 'AuthError', code: 'ERR_SVCGATE_FORBIDDEN', message: 'not the owner; no scope', decision });
  expect(Object.prototype.toString.call(error)).toBe('[object Error]');
  expect(String(error)).toBe('AuthError: not the owner; no scope');
  expect(error.stack).toBe('AuthError: not the owner; no scope');
  expect(Object.keys(error)).not.toContain('stack');
});

test('a deny without reasons says forbidden', () => {
  expect(new AuthError({ ...decision, reasons: [] }).message).toBe('forbidden');
});
