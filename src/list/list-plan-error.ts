/**
 * Why a list plan could not be turned into a query or a row test. `code` is stable:
 * - `ERR_SVCGATE_LIST_PLAN`: the plan is not a ListPlan (unknown `kind`, an empty entry or list, a value that is not a
 *   string, finite number or boolean, ...); a plan is never guessed at, since a dropped condition would show more rows;
 * - `ERR_SVCGATE_LIST_COLUMN`: a parameter of the plan has no column in `columns`, or a column name cannot be quoted (toSql);
 * - `ERR_SVCGATE_LIST_FIELD`: a parameter of the plan has no field in `fields`, or a field path is not one (toMongo, matches);
 * - `ERR_SVCGATE_LIST_OPTIONS`: toSql's options are not valid (dialect, startAt);
 * - `ERR_SVCGATE_LIST_SIZE`: the statement would bind more parameters than the database engine accepts.
 */
export type ListPlanErrorCode =
  | 'ERR_SVCGATE_LIST_PLAN'
  | 'ERR_SVCGATE_LIST_COLUMN'
  | 'ERR_SVCGATE_LIST_FIELD'
  | 'ERR_SVCGATE_LIST_OPTIONS'
  | 'ERR_SVCGATE_LIST_SIZE';

/** Thrown by toSql, toMongo and matches; the message says what is wrong and how to fix it. */
export class ListPlanError extends Error {
  override readonly name = 'ListPlanError';

  constructor(
    readonly code: ListPlanErrorCode,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}. Fix: ${fix}`);
  }
}
