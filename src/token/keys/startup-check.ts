import { keepProcessAliveUntil } from '../../net/keep-process-alive';
import { unavailableProblem, type KeySource, type StartupProblem } from './key-set';

/**
 * Starts the start-up check of every key source now and returns `ready()`. Without `strict`, each
 * problem is a process warning (the provider may start after the API) and ready() resolves; with
 * it, ready() rejects with the first problem's ConfigError. The outcome is settled here, once, so
 * a process that never calls ready() gets no unhandled rejection. While a ready() is pending the
 * process stays alive (the fetches themselves hold nothing), so `await handler.ready()` at the top
 * of a module waits for the key set instead of ending the process.
 */
export function startupCheck(sources: readonly KeySource[], strict: boolean): () => Promise<void> {
  const outcome = Promise.all(sources.map((source) => source.check()))
    .then((found) => found.flat())
    // check() does not reject; should it, the failure is still reported rather than left unhandled.
    .catch((error: unknown): StartupProblem[] => [unavailableProblem(error, '$')])
    .then((problems) => {
      if (!strict) for (const { error, warningCode } of problems) process.emitWarning(error.message, { code: warningCode });
      return problems[0]?.error;
    });
  const settle = async () => {
    const error = await outcome;
    if (strict && error !== undefined) throw error;
  };
  return () => keepProcessAliveUntil(settle());
}
