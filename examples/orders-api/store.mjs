// The example's orders: a SQLite database in memory (better-sqlite3), seeded at start with 300
// orders of five customers, the same on every run (a fixed pseudo-random sequence), so that the
// demo tokens examples/serve.mjs prints list the same ids each time.
import Database from 'better-sqlite3';

export const ORDER_COUNT = 300;
export const CUSTOMERS = ['ada', 'ben', 'cho', 'dev', 'eve'];
const ITEMS = ['kettle', 'lamp', 'chair', 'desk', 'mug', 'rug', 'clock', 'shelf'];
const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'];
const NOTES = ['paid by invoice', 'fragile: double box', 'customer called twice', 'refund pending'];

/** The columns of one order under the names the API answers with (see openapi.yaml's Order). */
export const ORDER_FIELDS = 'id AS orderId, customer_id AS customerId, item, quantity, total_cents AS totalCents, status, internal_note AS internalNote';

/** A new database holding ORDER_COUNT orders, ids 1 to ORDER_COUNT. */
export function openOrders() {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id TEXT NOT NULL,
    item TEXT NOT NULL,
    quantity INTEGER NOT NULL,
    total_cents INTEGER NOT NULL,
    status TEXT NOT NULL,
    internal_note TEXT NOT NULL
  )`);
  const insert = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)');
  // Park and Miller's minimal standard generator: every product stays below 2^53, so exact.
  let state = 20261127;
  const pick = (n) => {
    state = (state * 48271) % 2147483647;
    return state % n;
  };
  db.transaction(() => {
    for (let id = 1; id <= ORDER_COUNT; id += 1) {
      const quantity = 1 + pick(4);
      insert.run(id, CUSTOMERS[pick(CUSTOMERS.length)], ITEMS[pick(ITEMS.length)], quantity, quantity * (500 + pick(9500)), STATUSES[pick(STATUSES.length)], NOTES[pick(NOTES.length)]);
    }
  })();
  return db;
}

/** The ids of one customer's orders, ascending: what the identity provider puts in the `orders` claim. */
export function orderIdsOf(db, customerId) {
  return db.prepare('SELECT id FROM orders WHERE customer_id = ? ORDER BY id').pluck().all(customerId);
}
