import { ListPlanError, type ListPlan } from '../../src/list';

/** A `some` plan of these entries. */
export const some = (...anyOf: ListPlan['anyOf']): ListPlan => ({ kind: 'some', anyOf, attributes: [] });

/** The ListPlanError `call` throws (failing the test when it throws nothing or something else). */
export function refusal(call: () => unknown): ListPlanError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(ListPlanError);
    return error as ListPlanError;
  }
  throw new Error('no error');
}
