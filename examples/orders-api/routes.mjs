// The orders API's handlers on plain Express, behind bearerJwtAcl (which has set req.auth).
// GET /orders asks SQLite for exactly the rows the policy lets this caller read one by one: the
// plan in req.auth.list becomes a condition of the WHERE clause, so LIMIT and OFFSET page over the
// caller's rows and no page comes back short.
import { createRequire } from 'node:module';
import { readPage } from './page-query.mjs';
import { ORDER_FIELDS } from './store.mjs';

const require = createRequire(import.meta.url);
const { toSql } = require('svcgate/list');

export function ordersRoutes(app, db) {
  const byId = db.prepare(`SELECT ${ORDER_FIELDS} FROM orders WHERE id = ?`);

  app.get('/api/v1/orders', (req, res) => {
    const page = readPage(req.query);
    if (page.error) return res.status(400).json({ error: 'BadRequest', message: page.error });
    // support (read:any): 1 = 1; a customer (read:own): "id" IN (?, ...) over its `orders` claim.
    // In parentheses, since a plan of several alternatives is an OR that another condition
    // ANDed beside it would otherwise split.
    const visible = toSql(req.auth.list, { dialect: 'sqlite', columns: { orderId: 'id' } });
    const where = `WHERE (${visible.text})`;
    const total = db.prepare(`SELECT COUNT(*) FROM orders ${where}`).pluck().get(...visible.values);
    const rows = db.prepare(`SELECT ${ORDER_FIELDS} FROM orders ${where} ORDER BY id LIMIT ? OFFSET ?`).all(...visible.values, page.limit, page.offset);
    // The attributes granted on the item, as GET /orders/{orderId} filters them (a customer's
    // rows without internalNote).
    res.json({ items: req.auth.filter(rows), total, limit: page.limit, offset: page.offset });
  });

  app.get('/api/v1/orders/:orderId', (req, res) => {
    const id = orderIdOf(req.params.orderId);
    const order = id === undefined ? undefined : byId.get(id);
    if (!order) return res.status(404).json({ error: 'NotFound', message: 'no such order' });
    res.json(req.auth.filter(order));
  });
}

/**
 * orderId is owned, so bearerJwtAcl has already answered 400 to a value that is not an integer.
 * Read as a BigInt, an id beyond 2^53 is looked up as written, not rounded to another order's id;
 * whatever BigInt cannot read is no order (404), never a 500.
 */
function orderIdOf(text) {
  try {
    return BigInt(text);
  } catch {
    return undefined;
  }
}
