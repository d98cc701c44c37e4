// oas-tools.mjs: run it from the project's folder. @oas-tools/core reads ./package.json (it exits
// without one) and, below, ./openapi.yaml, ./permissions.yaml and ./controllers from there.
import express from 'express';
import oasTools from '@oas-tools/core';
import { bearerJwt, BearerJWT, jwtErrorHandler } from 'svcgate/auth';

// Position 2: after the host's parameter and security steps, before request validation.
oasTools.use(BearerJWT, { acl: { bearerAuth: './permissions.yaml' } }, 2);

const app = express();
app.use(express.json());
await oasTools.initialize(app, {
  oasFile: './openapi.yaml',
  middleware: {
    router: { controllers: './controllers' },
    // Off: with it on, @oas-tools/core 3.1 encodes what res.json sends a second time.
    validator: { responseValidation: false },
    swagger: { disable: true },
    security: {
      disable: false,
      auth: { bearerAuth: bearerJwt({ issuer: 'https://issuer.example', audience: 'https://api.example', secret: process.env.JWT_SECRET }) },
    },
    error: { customHandler: jwtErrorHandler },
  },
});
const port = Number(process.env.PORT ?? 3000);
app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
