import { ConfigError } from '../../src/policy/compile/config-error';

/** Runs `run`, expects it to throw a ConfigError (code ERR_SVCGATE_CONFIG), and returns that error. */
export function configErrorOf(run: () => unknown): ConfigError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  expect((thrown as ConfigError).code).toBe('ERR_SVCGATE_CONFIG');
  return thrown as ConfigError;
}
