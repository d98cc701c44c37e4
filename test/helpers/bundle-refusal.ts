import { BundleError } from '../../src/fleet';

/** The BundleError `promise` is refused with; fails the test when it resolves or throws anything else. */
export async function refusal(promise: Promise<unknown>): Promise<BundleError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BundleError);
  return error as BundleError;
}
