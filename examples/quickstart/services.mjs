// services.mjs: the public methods of a service class as routes, guarded by the same policy.
import { bearerJwt } from 'svcgate/auth';
import { SvcApi, SvcContainer, svcAcl } from 'svcgate/svc';

class AccountService {
  // GET /api/account-service/get-account?accountId=...; the caller svcAcl verified comes second.
  getAccount({ accountId }, { auth }) {
    return { accountId, owner: auth.payload.sub, pin: '1234' };
  }
}

const api = new SvcApi()
  .interceptAll(
    svcAcl({
      handler: bearerJwt({ issuer: 'https://issuer.example', audience: 'https://api.example', secret: process.env.JWT_SECRET }),
      // Customers read the accounts their token's `accounts` claim lists, without the pin.
      acl: { anonymous: {}, customer: { '/api/account-service/get-account': { 'read:own': ['*', '!pin'] } } },
      owners: { 'accountService.getAccount': { accountId: 'accounts' } },
    }),
  )
  .from(new SvcContainer().ofLocal(AccountService));
const port = Number(process.env.PORT ?? 3000);
await api.listen(port);
console.log(`listening on http://127.0.0.1:${port}`);
