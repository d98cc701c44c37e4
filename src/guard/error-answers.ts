import type { ServerResponse } from 'node:http';
import type { SvcgateHttpError } from './http-errors';

/**
 * How an adapter answers a refusal: `json` (the default) `{ error, message, code }`; `problem`,
 * RFC 9457 `application/problem+json`; `next`, the headers set on the response and the error
 * passed to `next()` for the app's Express error handler to answer.
 */
export type ErrorAnswers = 'json' | 'problem' | 'next';

export const ERROR_ANSWERS = ['json', 'problem', 'next'] as const satisfies readonly ErrorAnswers[];

/** The JSON answer, the same on every adapter: `error` names the status as Express's adapter always has. */
export interface JsonErrorBody {
  error: string;
  message: string;
  code: string;
}

/**
 * RFC 9457 problem details. `type` is always `about:blank`: each answer means what its status
 * means, and `code` (an extension member) tells the finer cases apart; svcgate has no address it
 * could promise to keep serving a page at, and an unregistered `urn:` namespace is no valid URN.
 */
export interface ProblemBody {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: string;
}

/** By status: the `error` word of the JSON body (Express's adapter's since its first release) and the problem's title (the HTTP reason phrase, as about:blank asks). */
const WORDS: Readonly<Record<number, readonly [json: string, title: string]>> = {
  400: ['BadRequest', 'Bad Request'],
  401: ['Unauthorized', 'Unauthorized'],
  403: ['Forbidden', 'Forbidden'],
  404: ['NotFound', 'Not Found'],
  405: ['MethodNotAllowed', 'Method Not Allowed'],
  503: ['ServiceUnavailable', 'Service Unavailable'],
};

function words(status: number): readonly [string, string] {
  return WORDS[status] ?? ['Error', 'Error'];
}

export function jsonBody(error: SvcgateHttpError): JsonErrorBody {
  return { error: words(error.status)[0], message: error.description, code: error.code };
}

export function problemBody(error: SvcgateHttpError): ProblemBody {
  return { type: 'about:blank', title: words(error.status)[1], status: error.status, detail: error.description, code: error.code };
}

/**
 * Answers `error` as `mode` says, or hands it to `next` with its headers on the response. A
 * response another layer already sent (a timeout's 503) is left alone in every mode: answering
 * twice throws, and an error passed on after it would make Express drop the connection.
 */
export function answerError(res: ServerResponse, error: SvcgateHttpError, mode: ErrorAnswers, next: (error: unknown) => void): void {
  if (res.headersSent) return;
  for (const name in error.headers) res.setHeader(name, error.headers[name]!);
  if (mode === 'next') return next(error);
  res.statusCode = error.status;
  if (mode === 'problem') {
    res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
    res.end(JSON.stringify(problemBody(error)));
    return;
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(jsonBody(error)));
}
