import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { listen } from './listen';

/** A provider's signing key: the private half signs test tokens, the public JWK goes in the served set. */
export interface SigningKey {
  kid: string | undefined;
  alg: string;
  privateKey: KeyLike;
  jwk: JWK;
}

export async function signingKey(kid: string | undefined, alg = 'ES256'): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg);
  const jwk = await exportJWK(publicKey);
  return { kid, alg, privateKey, jwk: kid === undefined ? jwk : { ...jwk, kid } };
}

/** A token signed with `key`, valid for ten minutes, with `kid` in its header when the key has one. */
export function signWith(key: SigningKey, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })
    .setProtectedHeader(key.kid === undefined ? { alg: key.alg } : { alg: key.alg, kid: key.kid })
    .sign(key.privateKey);
}

export interface JwksServer {
  /** The key set's URL. */
  url: string;
  /** How many times the set was fetched. */
  readonly fetches: number;
  /** What the next fetch serves. */
  serve(keys: readonly SigningKey[]): void;
  close(): Promise<void>;
}

/** A JWK set on 127.0.0.1 whose keys a test changes between requests, as a provider rotating keys. */
export async function startJwksServer(keys: readonly SigningKey[]): Promise<JwksServer> {
  let served = keys;
  let fetches = 0;
  const server = await listen((_req, res) => {
    fetches += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: served.map((key) => key.jwk) }));
  });
  return {
    url: `${server.url}/jwks.json`,
    get fetches() {
      return fetches;
    },
    serve: (next) => {
      served = next;
    },
    close: server.close,
  };
}

export const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
