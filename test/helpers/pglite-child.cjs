// The PostgreSQL (PGlite) of test/helpers/pglite-process.ts, in its own node process: PGlite's
// CommonJS build loads node modules with dynamic import(), which jest's VM refuses without
// --experimental-vm-modules. Answers { id, text, params } with { id, rows } or { id, error }, and
// ends when its parent goes away, so a test that dies cannot leave it running.
const { PGlite } = require('@electric-sql/pglite');

const ready = PGlite.create();
ready.then(
  () => process.send({ ready: true }),
  (error) => process.send({ ready: false, error: String(error && error.stack ? error.stack : error) }),
);

process.on('message', async ({ id, text, params }) => {
  try {
    const db = await ready;
    const result = params === undefined ? (await db.exec(text)).at(-1) : await db.query(text, params);
    process.send({ id, rows: result ? result.rows : [] });
  } catch (error) {
    process.send({ id, error: String(error && error.message ? error.message : error) });
  }
});

process.on('disconnect', () => {
  ready.then((db) => db.close()).finally(() => process.exit(0));
});
