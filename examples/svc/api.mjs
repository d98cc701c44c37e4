import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JWT } from '../demo-jwt.mjs';
import { AccountService, StatusService, UserService } from './services.mjs';

const require = createRequire(import.meta.url);
const { bearerJwt } = require('svcgate/auth');
const { SvcApi, SvcContainer, svcAcl } = require('svcgate/svc');

const PERMISSIONS = join(dirname(fileURLToPath(import.meta.url)), 'permissions.yaml');

/** An after-interceptor for createAccount: 201, and the body wrapped. */
class AccountInterceptor {
  createAccount(_req, res, next) {
    res.status(201).body({ created: res.locals.svc.body });
    next();
  }
}

export function seedApi() {
  const container = new SvcContainer().ofLocal(UserService).andLocal(AccountService).andLocal(StatusService);
  return (
    new SvcApi()
      // A before-interceptor that answers itself: 401 without a valid token, 403 where the ACL says no.
      // getAccount's accountId is owned: a `user` reads only the accounts its `accounts` claim lists.
      .interceptAll(svcAcl({ handler: bearerJwt(JWT), acl: PERMISSIONS, owners: { 'accountService.getAccount': { accountId: 'accounts' } } }))
      .interceptAfter({ accountService: AccountInterceptor })
      .withErrors({ ValidationError: 400, NotFoundError: 404 })
      .from(container)
  );
}
