import { ArgumentError } from './errors';
import { readsBody } from './http-method';
import type { SvcRoute } from './routes';
import type { SvcRequest } from './svc-http';

/** What one request carries through its chain, in `res.locals.svc`. */
export interface SvcRequestState {
  route: SvcRoute;
  /** The body `res.body(value)` set, sent at the end. */
  body: unknown;
  /**
   * The method's argument once read (and parsed by its schema), with the query object it was read
   * from (GET and DELETE); read once, so svcAcl decides on what the method gets.
   */
  argument?: { value: unknown; query?: unknown };
  /** Set by svcAcl (`filterResults`): keeps the granted attributes of the method's result. */
  resultFilter?: (value: unknown) => unknown;
}

/**
 * The argument the service method is called with: the JSON body for POST, PUT and PATCH, the
 * query otherwise, parsed by the method's zod schema when it declares one (an invalid one is an
 * ArgumentError, 400). The same value for the guard and the method, even when the schema
 * transforms it.
 */
export function serviceArgument(req: SvcRequest, state: SvcRequestState): unknown {
  if (state.argument) return state.argument.value;
  const { route } = state;
  // Express 5 parses the query string again on every read of req.query: read it once.
  const fromQuery = !readsBody(route.httpMethod);
  const query: unknown = fromQuery ? req.query : undefined;
  const raw = fromQuery ? { ...(query as object) } : (req.body ?? {});
  let value: unknown = raw;
  if (route.schema) {
    const parsed = route.schema.safeParse(raw);
    if (!parsed.success) throw new ArgumentError(parsed.error.issues);
    value = parsed.data;
  }
  state.argument = { value, query };
  return value;
}
