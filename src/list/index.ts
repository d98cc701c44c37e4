/**
 * `svcgate/list`: a list operation's plan (`req.auth.list`, `res.locals.oas.acl.list`, the SvcApi `auth.list`) as a
 * SQL condition, a MongoDB filter, or a test of rows in memory. SPEC 11; docs/list-filtering.md.
 */
export type { ListPlan, ListCondition, ListValue } from '../policy/evaluate/list-plan';
export { toSql, type SqlFilter } from './to-sql';
export { MAX_SQL_PARAMETERS, type ToSqlOptions } from './sql-options';
export type { SqlDialect, SqlBoundValue } from './sql-value';
export { toMongo, type MongoFilter } from './to-mongo';
export { matches } from './matches';
export { ListPlanError, type ListPlanErrorCode } from './list-plan-error';
