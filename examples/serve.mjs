// `make run`: the examples, each on its own port of 127.0.0.1:
//   3000  the users API on @oas-tools/core, with bearerJwt (security handler) and BearerJWT (access control)
//   3001  the same API on plain Express with bearerJwtAcl
//   3002  the seed's services on SvcApi, guarded by svcAcl
//   3003  an orders API on SQLite, plain Express with bearerJwtAcl, whose list pages over the caller's rows
// It prints curl lines with demo tokens. PORT moves all four (PORT..PORT+3; PORT=0 picks free ports).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JWT, sign } from './demo-jwt.mjs';
import { ordersRoutes } from './orders-api/routes.mjs';
import { ORDER_COUNT, openOrders, orderIdsOf } from './orders-api/store.mjs';
import { seedApi } from './svc/api.mjs';
import { usersRoutes } from './users-api/express-routes.mjs';

const require = createRequire(import.meta.url);
// Express 4, which @oas-tools/core 3.1 is built for (installed here under the alias express4).
const express = require('express4');
const oasTools = require('@oas-tools/core');
const { bearerJwt, bearerJwtAcl, BearerJWT, jwtErrorHandler } = require('svcgate/auth');

const HERE = dirname(fileURLToPath(import.meta.url));
const HOST = '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const OPENAPI = join(HERE, 'users-api/openapi.yaml');
const PERMISSIONS = join(HERE, 'users-api/permissions.yaml');
const ORDERS = { openapi: join(HERE, 'orders-api/openapi.yaml'), acl: { bearerAuth: join(HERE, 'orders-api/permissions.yaml') } };

function listen(app, port) {
  return new Promise((resolve) => {
    const server = app.listen(port, HOST, () => resolve(`http://${HOST}:${server.address().port}/api/v1`));
  });
}

async function oasToolsApp() {
  oasTools.use(BearerJWT, { acl: { bearerAuth: PERMISSIONS } }, 2);
  const app = express();
  app.use(express.json());
  await oasTools.initialize(app, {
    oasFile: OPENAPI,
    packageJSON: join(HERE, '../package.json'),
    logger: { level: 'error' },
    middleware: {
      router: { controllers: join(HERE, 'users-api/controllers') },
      validator: { requestValidation: true, responseValidation: false },
      swagger: { disable: true },
      security: { disable: false, auth: { bearerAuth: bearerJwt(JWT) } },
      // JSON the body parser cannot read is the client's error, not the host's default 500.
      error: { customHandler: (error, send) => (error.type === 'entity.parse.failed' ? send(400, { error: 'BadRequest', message: 'the request body is not valid JSON' }) : jwtErrorHandler(error, send)) },
    },
  });
  app.use(notFound);
  return app;
}

/** Express's own 404 is an HTML page; an API answers JSON. */
function notFound(req, res) {
  res.status(404).json({ error: 'NotFound', message: `no route ${req.method} ${req.path}` });
}

function expressApp() {
  const app = express();
  app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(JWT), acl: { bearerAuth: PERMISSIONS } }));
  usersRoutes(app);
  app.use(notFound);
  return app;
}

function ordersApp(db) {
  const app = express();
  app.use(bearerJwtAcl({ ...ORDERS, handler: bearerJwt(JWT) }));
  ordersRoutes(app, db);
  app.use(notFound);
  return app;
}

const oasUrl = await listen(await oasToolsApp(), PORT);
const expressUrl = await listen(expressApp(), PORT === 0 ? 0 : PORT + 1);
const svcServer = await seedApi().listen(PORT === 0 ? 0 : PORT + 2, HOST);
const svcUrl = `http://${HOST}:${svcServer.address().port}/api`;
const orders = openOrders();
const ordersUrl = await listen(ordersApp(orders), PORT === 0 ? 0 : PORT + 3);
const user = await sign({ sub: 'u1', role: 'user', userId: [1, 3, 5], accounts: ['acc-1'] });
const admin = await sign({ sub: 'a1', role: 'admin' });
const noRole = await sign({ sub: 'n1' });
// The identity provider lists a customer's orders in the token's `orders` claim.
const adaOrders = orderIdsOf(orders, 'ada');
const ada = await sign({ sub: 'ada', role: 'customer', orders: adaOrders });
const support = await sign({ sub: 's1', role: 'support' });
const guest = await sign({ sub: 'g1', role: 'guest' });
const notAdas = orderIdsOf(orders, 'ben')[0];

console.log(`svcgate examples\n  @oas-tools/core + bearerJwt + BearerJWT: ${oasUrl}\n  Express + bearerJwtAcl:                  ${expressUrl}\n  SvcApi + svcAcl:                         ${svcUrl}\n  Express + bearerJwtAcl, orders (SQLite): ${ordersUrl}\n`);
for (const url of [oasUrl, expressUrl]) {
  console.log(`# ${url}`);
  console.log('# a user who owns users 1, 3 and 5: 200 for /users/3, 403 for /users/2:');
  console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/users/3`);
  console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/users/2`);
  console.log('# an admin reads any user and deletes one:');
  console.log(`curl -i -H 'Authorization: Bearer ${admin}' ${url}/users/4`);
  console.log(`curl -i -X DELETE -H 'Authorization: Bearer ${admin}' ${url}/users/2`);
  console.log('# a public operation (200), no token on a guarded one (401), a bad token (401):');
  console.log(`curl -i ${url}/status`);
  console.log(`curl -i ${url}/users/1`);
  console.log(`curl -i -H 'Authorization: Bearer not.a.token' ${url}/users/1`);
  console.log('# the ACL declares anonymous: {}, so the user list needs a token (401), and a token without a role claim gets nothing (403):');
  console.log(`curl -i ${url}/users`);
  console.log(`curl -i -H 'Authorization: Bearer ${noRole}' ${url}/users`);
  console.log('# an owned query parameter: the user reads the transfers of acc-1 (200), not of acc-2 (403):');
  console.log(`curl -i -H 'Authorization: Bearer ${user}' '${url}/transfers?accountId=acc-1'`);
  console.log(`curl -i -H 'Authorization: Bearer ${user}' '${url}/transfers?accountId=acc-2'`);
  console.log('# two parameters in one path segment: an admin reads a monthly report:');
  console.log(`curl -i -H 'Authorization: Bearer ${admin}' ${url}/users/3/reports/2026-11`);
  console.log('');
}
console.log(`# ${svcUrl} (SvcApi, guarded by svcAcl)`);
console.log('# without a token: the status, which the ACL grants anonymous (200); any other route (401):');
console.log(`curl -i ${svcUrl}/status-service/get-status`);
console.log(`curl -i ${svcUrl}/user-service/list-users`);
console.log('# an admin creates a user; a user may not (403):');
console.log(`curl -i -X POST -H 'Authorization: Bearer ${admin}' ${svcUrl}/user-service/create-user -H 'Content-Type: application/json' -d '{"name":"Ada"}'`);
console.log(`curl -i -X POST -H 'Authorization: Bearer ${user}' ${svcUrl}/user-service/create-user -H 'Content-Type: application/json' -d '{"name":"Bob"}'`);
console.log('# createAccount: 201 from the after-interceptor; a missing owner is ValidationError, mapped to 400:');
console.log(`curl -i -X POST -H 'Authorization: Bearer ${admin}' ${svcUrl}/account-service/create-account -H 'Content-Type: application/json' -d '{"owner":"Ada"}'`);
console.log(`curl -i -X POST -H 'Authorization: Bearer ${admin}' ${svcUrl}/account-service/create-account -H 'Content-Type: application/json' -d '{}'`);
console.log('# an owned query field: the user reads acc-1, which its accounts claim lists (200), not acc-2 (403):');
console.log(`curl -i -H 'Authorization: Bearer ${user}' '${svcUrl}/account-service/get-account?accountId=acc-1'`);
console.log(`curl -i -H 'Authorization: Bearer ${user}' '${svcUrl}/account-service/get-account?accountId=acc-2'`);
console.log(`curl -i -H 'Authorization: Bearer ${admin}' ${svcUrl}/account-service/get-all-accounts`);
console.log('');
console.log(`# ${ordersUrl} (orders on SQLite: GET /orders lists exactly the orders the caller may read one by one, a page at a time)`);
console.log(`# customer ada, whose token lists her ${adaOrders.length} orders: two pages of 5 of them (total ${adaOrders.length}), one of them without its internal note (200), another customer's (403):`);
console.log(`curl -i -H 'Authorization: Bearer ${ada}' '${ordersUrl}/orders?limit=5'`);
console.log(`curl -i -H 'Authorization: Bearer ${ada}' '${ordersUrl}/orders?limit=5&offset=5'`);
console.log(`curl -i -H 'Authorization: Bearer ${ada}' ${ordersUrl}/orders/${adaOrders[0]}`);
console.log(`curl -i -H 'Authorization: Bearer ${ada}' ${ordersUrl}/orders/${notAdas}`);
console.log(`# support lists every order, internal notes included (total ${ORDER_COUNT}); a guest may read none (403); a limit out of range (400):`);
console.log(`curl -i -H 'Authorization: Bearer ${support}' '${ordersUrl}/orders?limit=3'`);
console.log(`curl -i -H 'Authorization: Bearer ${guest}' ${ordersUrl}/orders`);
console.log(`curl -i -H 'Authorization: Bearer ${support}' '${ordersUrl}/orders?limit=500'`);
