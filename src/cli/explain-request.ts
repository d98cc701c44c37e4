import type { VerifiedPayload } from '../policy/request/build-input';
import type { DataDocument } from '../policy/compile/data-document';
import { decide } from '../policy/evaluate/decide';
import { Evaluator, type Decision, type PolicyInput } from '../policy/evaluate/evaluator';
import { createOperationMatcher } from '../policy/request/match-operation';
import { readTarget } from '../policy/request/read-target';
import { RequestValidationError } from '../policy/request/request-validation-error';
import { prefixedMatcher, prefixedPathMethods } from '../hosts/express/server-prefixes';
import { createPathMethods } from '../policy/request/path-methods';
import { isPlainObject } from '../policy/compile/documents/plain-object';
import { formatScopes } from './audit-matrix';
import { listLines, planSql, sqlColumns, type ListExplanation } from './explain-list';
import type { ListSqlRequest } from './list-sql-options';
import { UsageError } from './usage-error';

export interface Explanation {
  request: string;
  operation: string;
  /** The scope alternatives the operation needs; [] when none. */
  scopes: string[][];
  input: PolicyInput;
  decision: Decision;
  /** Who asks, and so what a deny is answered: 401 without a token, 403 with one. */
  caller: Caller;
  /** False when the operation has no security requirement with the scheme: the handler runs for anyone. */
  secured: boolean;
  scheme: string;
  /** True when the ACL does not declare anonymous, so the built-in anonymous default applies. */
  anonymousDefault: boolean;
  /** Set on a list operation (x-acl-list): the item it lists, and the plan's SQL when asked for. */
  list?: ListExplanation;
}

/** `none`: no token (no --token-claims); `token`: a verified token with these claims, with or without a role claim. */
export type Caller = { token: false } | { token: true; roleBinding: string; hasRole: boolean };

/** Decides one request the way the adapters do, for claims given on the command line; with `sql`, a list operation's plan as SQL too. */
export async function explainRequest(
  data: DataDocument,
  document: Record<string, unknown>,
  method: string,
  target: string,
  claims: VerifiedPayload | undefined,
  roleBinding?: string,
  sql?: ListSqlRequest,
): Promise<Explanation> {
  try {
    // Read as the adapters read it: a target they refuse with 400 is refused here too.
    const { pathname, query } = readTarget(target);
    // As the server receives it (under a servers prefix), else as the document writes it.
    const match = prefixedMatcher(data.operations, document.servers)(method, pathname) ?? createOperationMatcher(data.operations)(method, pathname);
    if (!match) throw new UsageError(`no operation of the document matches ${method.toUpperCase()} ${pathname}${allowedHint(document, pathname)}`);
    // Checked before deciding: --sql on an operation that lists nothing is a slip of the command line.
    const sqlOptions = sql === undefined ? undefined : { dialect: sql.dialect, columns: sqlColumns(data, match.key, match.operation, sql) };
    const evaluator = await Evaluator.create(data);
    const { decision, input } = await decide(evaluator, match.key, match.operation, { pathParams: match.pathParams, query: new URLSearchParams(query) }, claims, roleBinding === undefined ? {} : { roleBinding });
    const caller: Caller = claims === undefined ? { token: false } : { token: true, roleBinding: roleBinding ?? 'role', hasRole: input.role !== undefined };
    const explanation: Explanation = { request: `${method.toUpperCase()} ${target}`, operation: match.key, scopes: match.operation.scopes, input, decision, caller, secured: match.operation.secured, scheme: data.scheme, anonymousDefault: data.anonymous_default };
    const item = match.operation.list?.item;
    if (item !== undefined) explanation.list = { item, ...(sqlOptions === undefined || decision.list === undefined ? {} : { sql: planSql(decision.list, sqlOptions) }) };
    return explanation;
  } catch (error) {
    if (error instanceof RequestValidationError) throw new UsageError(`the adapters refuse ${method.toUpperCase()} ${target} with 400: ${error.message}`);
    throw error;
  }
}

/** A documented path asked with another method is a slip of the method: the methods it takes, as the adapters' 405 lists them in Allow. */
function allowedHint(document: Record<string, unknown>, pathname: string): string {
  const paths = isPlainObject(document.paths) ? document.paths : {};
  const allowed = prefixedPathMethods(paths, document.servers)(pathname) ?? createPathMethods(paths)(pathname);
  return allowed === undefined ? '' : `; ${pathname} takes ${allowed.join(', ')} (the adapters answer 405 with Allow)`;
}

export function formatExplanation(explanation: Explanation): string {
  const { request, operation, scopes, input, decision } = explanation;
  const lines = [
    `${request} -> ${operation}`,
    `decision: ${decision.allow ? 'ALLOW' : 'DENY'}`,
    `role: ${decision.role ?? '-'}, possession: ${decision.possession ?? '-'}, attributes: ${decision.attributes.length > 0 ? decision.attributes.join(' ') : '-'}`,
    ...(scopes.length > 0 ? [`scopes needed: ${formatScopes(scopes)}`] : []),
    ...decision.reasons.map((reason) => `reason: ${reason}`),
    ...(explanation.list === undefined ? [] : listLines(explanation.list, decision.list)),
    `caller: ${callerLine(explanation)}`,
    `answer: ${answerLine(explanation)}`,
    `input: ${JSON.stringify(input)}`,
  ];
  return `${lines.join('\n')}\n`;
}

function callerLine({ caller, secured, input }: Explanation): string {
  if (!caller.token) return secured ? 'no token (decided as anonymous)' : 'no token';
  if (!caller.hasRole) return `a token without a role claim at ${caller.roleBinding}${secured ? ' (decided as anonymous)' : ''}`;
  // The claim as the token has it: one role, or several (the policy unites what each may do).
  const roles = Array.isArray(input.role) ? input.role : [input.role];
  return `a token with role${roles.length === 1 ? '' : 's'} ${roles.map((role) => (typeof role === 'string' ? role : JSON.stringify(role))).join(', ')}`;
}

const DEFAULT_GRANT = 'read:any on operations without parameters, because the ACL does not declare anonymous; declare anonymous: {} to turn it off';

/** What the adapters answer, as guardRequest does: allowed, or 401 without credentials, else 403. */
function answerLine({ caller, secured, scheme, decision, anonymousDefault }: Explanation): string {
  if (!secured) return 'the handler runs: the operation needs no token';
  const asAnonymous = decision.role === 'anonymous' && (!caller.token || !caller.hasRole);
  if (decision.allow) {
    if (!asAnonymous) return 'the handler runs';
    const who = caller.token ? 'the handler runs: the token has no role, and ' : 'the handler runs without a token: ';
    return anonymousDefault ? `${who}the built-in anonymous default permits it (${DEFAULT_GRANT})` : `${who}the ACL's anonymous grant permits it`;
  }
  if (!caller.token) return `401, no token: the operation requires the bearer scheme ${scheme} (WWW-Authenticate: Bearer)`;
  if (decision.scopes.length > 0) return `403 with the insufficient_scope challenge: the token lacks the scopes ${decision.scopes.join(' ')}`;
  return '403, the token is valid but the policy denies';
}
