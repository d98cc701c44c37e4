// The users API's handlers on plain Express, behind bearerJwtAcl (which has set req.auth):
// shared by examples/serve.mjs and the fleet replicas of examples/fleet.
import { monthlyReport, transfersOf, users } from './store.mjs';

export function usersRoutes(app) {
  app.get('/api/v1/status', (_req, res) => res.json({ status: 'ok' }));
  app.get('/api/v1/users', (req, res) => res.json([...users.values()].map((user) => req.auth.filter(user))));
  app.get('/api/v1/users/:userId', (req, res) => {
    const user = users.get(Number(req.params.userId));
    if (!user) return res.status(404).json({ error: 'NotFound', message: 'no such user' });
    res.json(req.auth.filter(user));
  });
  app.delete('/api/v1/users/:userId', (req, res) => {
    users.delete(Number(req.params.userId));
    res.status(204).end();
  });
  app.get('/api/v1/accounts/:accountId', (req, res) => res.json({ id: req.params.accountId, balance: 100 }));
  app.get('/api/v1/transfers', (req, res) => res.json(transfersOf(req.query.accountId)));
  app.get('/api/v1/users/:userId/reports/:year-:month', (req, res) => {
    // Path parameters are owned, so bearerJwtAcl has already answered 400 to values that are not integers.
    const report = monthlyReport(...[req.params.userId, req.params.year, req.params.month].map(Number));
    if (!report) return res.status(404).json({ error: 'NotFound', message: 'no such user' });
    res.json(report);
  });
}
