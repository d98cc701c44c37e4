import type { z } from 'zod';

/** The argument failed the method's zod schema: 400 with the issues. */
export class ArgumentError extends Error {
  readonly code = 'ERR_SVCGATE_ARGUMENT';
  override readonly name = 'ArgumentError';

  constructor(readonly issues: z.core.$ZodIssue[]) {
    super(issues.map((issue) => `${issue.path.join('.') || '(argument)'}: ${issue.message}`).join('; '));
  }
}

export interface ErrorAnswer {
  status: number;
  body: { error: string; message: string; issues?: unknown };
}

const INTERNAL: ErrorAnswer = { status: 500, body: { error: 'InternalServerError', message: 'Internal Server Error' } };

/**
 * The answer for a thrown or passed error: the status mapped from its name, the body-parser's
 * 400 and 413, the argument check's 400; anything else is a 500 that does not leak the message.
 */
export function answerFor(error: unknown, statuses: Readonly<Record<string, number>>): ErrorAnswer {
  const { name, message, type } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown; type?: unknown };
  if (typeof name === 'string' && Object.hasOwn(statuses, name)) return { status: statuses[name]!, body: { error: name, message: String(message ?? '') } };
  if (error instanceof ArgumentError) return { status: 400, body: { error: 'ValidationError', message: error.message, issues: error.issues } };
  if (type === 'entity.parse.failed') return { status: 400, body: { error: 'BadRequest', message: 'the request body is not valid JSON' } };
  if (type === 'entity.too.large') return { status: 413, body: { error: 'PayloadTooLarge', message: 'the request body is too large' } };
  if (typeof type === 'string' && type.startsWith('encoding.') || type === 'charset.unsupported') return { status: 415, body: { error: 'UnsupportedMediaType', message: String(message) } };
  return INTERNAL;
}
