// One worker of examples/cluster/primary.mjs: the users API on plain Express with its own
// bearerJwtAcl, so its own evaluator (policy.wasm instance), token cache and decision cache. A
// policy instance lives in one process's memory and cannot be handed to another, so each worker
// builds its own from the same files, and every worker answers a given request the same way.
// Every worker listens on the same port: node:cluster hands the connections out among them.
import cluster from 'node:cluster';
import { createRequire } from 'node:module';
import { Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JWT } from '../demo-jwt.mjs';
import { usersRoutes } from '../users-api/express-routes.mjs';

const require = createRequire(import.meta.url);
const express = require('express');
const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');

const HERE = dirname(fileURLToPath(import.meta.url));
const USERS_API = join(HERE, '../users-api');
/** How long a stopping worker waits for requests under way before it exits anyway. */
const GRACE_MS = 5_000;

const app = express();
let stopping = false;
// Once the worker is stopping, each answer closes its connection, so a kept-alive client moves to
// another worker (or sees the refusal of a stopped service) instead of sending here again.
app.use((_req, res, next) => {
  if (stopping) res.set('connection', 'close');
  next();
});
// For the example only: which process answered, so that `curl -i` (and the test) can see the
// workers take turns. A real API has no reason to tell its callers its pids.
app.use((_req, res, next) => {
  res.set('x-worker', `${process.env.WORKER_SLOT ?? 0}/${process.pid}`);
  next();
});
app.use(bearerJwtAcl({ openapi: join(USERS_API, 'openapi.yaml'), handler: bearerJwt(JWT), acl: { bearerAuth: join(USERS_API, 'permissions.yaml') } }));
usersRoutes(app);
app.use((req, res) => res.status(404).json({ error: 'NotFound', message: `no route ${req.method} ${req.path}` }));

const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, '127.0.0.1');
// A port in use or not allowed: one line rather than a stack trace, and an exit before listening,
// which tells the primary not to fork this slot again.
server.on('error', (error) => {
  console.error(`worker ${process.env.WORKER_SLOT ?? 0}: cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}`);
  process.exit(1);
});

// SIGTERM comes from the primary, or from systemd or Kubernetes to the whole process group at
// once: either way, stop taking connections, let the requests under way finish, then exit.
function stop() {
  if (stopping) return;
  stopping = true;
  // net's close, not http's: since Node 19 http's also destroys every kept-alive connection that
  // is idle at that moment, and under load such a connection may already hold the client's next
  // request, which would get a reset instead of an answer. Here each connection ends after its
  // next answer (the connection: close above), or when it has been idle for keepAliveTimeout.
  Server.prototype.close.call(server, () => process.exit(0));
  setTimeout(() => process.exit(0), GRACE_MS).unref();
}
process.on('SIGTERM', stop);
// Ctrl-C in a terminal reaches the whole group too; the primary decides what happens then.
process.on('SIGINT', () => {});
// The primary gone (killed with SIGKILL, say) leaves no one to hand out connections.
cluster.worker?.on('disconnect', stop);
