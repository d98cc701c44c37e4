import { createRequire } from 'node:module';
import { AccountService, UserService } from './services.mjs';

const require = createRequire(import.meta.url);
const { SvcApi, SvcContainer } = require('svcgate/svc');

/** A before-interceptor that answers 401 itself when there is no Authorization header. */
function requireAuthorization(req, res, next) {
  if (!req.headers.authorization) return res.status(401).json({ error: 'Unauthorized', message: 'send an Authorization header' });
  next();
}

/** An after-interceptor for createAccount: 201, and the body wrapped. */
class AccountInterceptor {
  createAccount(_req, res, next) {
    res.status(201).body({ created: res.locals.svc.body });
    next();
  }
}

export function seedApi() {
  const container = new SvcContainer().ofLocal(UserService).andLocal(AccountService);
  return new SvcApi()
    .interceptAll(requireAuthorization)
    .interceptAfter({ accountService: AccountInterceptor })
    .withErrors({ ValidationError: 400 })
    .from(container);
}
