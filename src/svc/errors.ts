import { inspect } from 'node:util';
import type { ValidationIssue } from './argument-schema';

/** The argument failed the method's zod schema: 400 with the issues. */
export class ArgumentError extends Error {
  readonly code = 'ERR_SVCGATE_ARGUMENT';
  override readonly name = 'ArgumentError';

  constructor(readonly issues: readonly ValidationIssue[]) {
    super(issues.map((issue) => `${issue.path.join('.') || '(argument)'}: ${issue.message}`).join('; '));
  }
}

/**
 * A thrown, rejected or next()-passed value that is not an Error, with what threw it. Wrapped
 * because Express reads a falsy `next(value)` as "go on" and the strings 'route' and 'router' as
 * "skip", which would turn a throw into a success; the wrapper is unwrapped before it is answered.
 */
export class ThrownValue extends Error {
  override readonly name = 'ThrownValue';

  /** `how`: what threw it, e.g. `userService.getUser threw` or `interceptAll #1 called next with`. */
  constructor(readonly value: unknown, how: string) {
    super(`${how} ${inspect(value, { depth: 2, breakLength: Infinity, maxArrayLength: 10, maxStringLength: 200 })}, which is not an Error`);
  }
}

/** Any thrown value as something Express treats as an error: Errors as they are, others wrapped. */
export function asError(value: unknown, how: string): Error {
  return value instanceof Error ? value : new ThrownValue(value, how);
}

/** What goes to `logError`: a message saying what was thrown, and the thrown value itself. */
export function logEntryFor(error: unknown): [message: string, thrown: unknown] {
  if (error instanceof ThrownValue) return [error.message, error.value];
  if (error instanceof Error) return [`${error.name}: ${error.message}`, error];
  return [inspect(error), error];
}

export interface ErrorAnswer {
  status: number;
  body: { error: string; message: string; issues?: unknown };
}

const INTERNAL: ErrorAnswer = { status: 500, body: { error: 'InternalServerError', message: 'Internal Server Error' } };

/**
 * The answer for a thrown or passed error: the status mapped from its name (a plain object's too),
 * the body-parser's 400 and 413, the argument check's 400; anything else is a 500 that does not
 * leak the message.
 */
export function answerFor(passed: unknown, statuses: Readonly<Record<string, number>>): ErrorAnswer {
  const error = passed instanceof ThrownValue ? passed.value : passed;
  const { name, message, type } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown; type?: unknown };
  if (typeof name === 'string' && Object.hasOwn(statuses, name)) return { status: statuses[name]!, body: { error: name, message: String(message ?? '') } };
  if (error instanceof ArgumentError) return { status: 400, body: { error: 'ValidationError', message: error.message, issues: error.issues } };
  if (type === 'entity.parse.failed') return { status: 400, body: { error: 'BadRequest', message: 'the request body is not valid JSON' } };
  if (type === 'entity.too.large') return { status: 413, body: { error: 'PayloadTooLarge', message: 'the request body is too large' } };
  if (typeof type === 'string' && type.startsWith('encoding.') || type === 'charset.unsupported') return { status: 415, body: { error: 'UnsupportedMediaType', message: String(message) } };
  return INTERNAL;
}
