// One worker of examples/cluster/primary.mjs: the users API on plain Express with its own
// bearerJwtAcl, so its own evaluator (policy.wasm instance), token cache and decision cache. A
// policy instance lives in one process's memory and cannot be handed to another, so each worker
// builds its own from the same files, and every worker answers a given request the same way.
// Every worker listens on the same port: node:cluster hands the connections out among them.
import cluster from 'node:cluster';
import { createRequire } from 'node:module';
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
// For the example only: which process answered, so that `curl -i` (and the test) can see the
// workers take turns. A real API has no reason to tell its callers its pids.
app.use((_req, res, next) => {
  res.set('x-worker', `${process.env.WORKER_SLOT ?? 0}/${process.pid}`);
  next();
});
app.use(bearerJwtAcl({ openapi: join(USERS_API, 'openapi.yaml'), handler: bearerJwt(JWT), acl: { bearerAuth: join(USERS_API, 'permissions.yaml') } }));
usersRoutes(app);
app.use((req, res) => res.status(404).json({ error: 'NotFound', message: `no route ${req.method} ${req.path}` }));

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');

// SIGTERM comes from the primary, or from systemd or Kubernetes to the whole process group at
// once: either way, stop taking connections, let the requests under way finish, then exit.
let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), GRACE_MS).unref();
}
process.on('SIGTERM', stop);
// Ctrl-C in a terminal reaches the whole group too; the primary decides what happens then.
process.on('SIGINT', () => {});
// The primary gone (killed with SIGKILL, say) leaves no one to hand out connections.
cluster.worker?.on('disconnect', stop);
