// The demo tokens' issuer, audience and HMAC secret, shared by the example servers (a demo secret:
// never reuse it), and the signer for the tokens that examples/serve.mjs prints.
import { SignJWT } from 'jose';

export const JWT = { issuer: 'svcgate-example', audience: 'svcgate-example-api', secret: 'example-secret-of-at-least-32-bytes!!' };

export function sign(claims) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer(JWT.issuer).setAudience(JWT.audience).setIssuedAt().setExpirationTime('12h').sign(new TextEncoder().encode(JWT.secret));
}
