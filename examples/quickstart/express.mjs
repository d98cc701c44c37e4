// express.mjs: run it from the project's folder, where ./openapi.yaml and ./permissions.yaml are.
import express from 'express';
import { authOf, bearerJwt, bearerJwtAcl } from 'svcgate/auth';

const app = express();
app.use(
  bearerJwtAcl({
    openapi: './openapi.yaml',
    handler: bearerJwt({ issuer: 'https://issuer.example', audience: 'https://api.example', secret: process.env.JWT_SECRET }),
    acl: { bearerAuth: './permissions.yaml' },
  }),
);
// Only allowed requests get here. authOf(req) is the req.auth the guard set (typed without undefined,
// so strict TypeScript needs no `!`); its filter keeps the attributes the caller's role is granted.
app.get('/users/:userId', (req, res) => {
  res.json(authOf(req).filter({ id: Number(req.params.userId), name: `user ${req.params.userId}`, password: 'secret' }));
});
const port = Number(process.env.PORT ?? 3000);
app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
