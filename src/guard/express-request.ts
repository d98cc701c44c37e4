import type { RequestAuth } from './guard-request';

// Express's own hook for request properties (@types/express-serve-static-core): importing
// svcgate/auth or svcgate/svc types `req.auth` in route handlers and interceptors, as
// bearerJwtAcl and svcAcl set it.
declare global {
  namespace Express {
    interface Request {
      /** Set by bearerJwtAcl and svcAcl on an allowed request: the verified payload, the decision, and `filter`. */
      auth?: RequestAuth;
    }
  }
}
