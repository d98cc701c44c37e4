/** An algorithm a DPoP proof may be signed with (never HS*, never `none`). */
export type DpopAlgorithm = 'ES256' | 'ES384' | 'ES512' | 'ES256K' | 'EdDSA' | 'Ed25519' | 'PS256' | 'PS384' | 'PS512' | 'RS256' | 'RS384' | 'RS512';

/**
 * The `dpop` option of bearerJwt (RFC 9449): with it, `Authorization: DPoP <token>` and one
 * `DPoP: <proof>` header are accepted. `dpop: true` takes every default.
 */
export interface DpopOptions {
  /** What a proof may be signed with; asymmetric algorithms only. Default: every one listed here. */
  algorithms?: DpopAlgorithm[];
  /**
   * Seconds a proof's `iat` may lie in the past, at most 3600; every proof id is remembered about
   * that long. Default `60` (seconds).
   */
  iatOffset?: number;
  /** Seconds a proof's `iat` may lie ahead of the clock (clock skew), at most 300. Default `5` (seconds). */
  iatLeeway?: number;
  /**
   * Proof ids remembered at once, against replay; when full, new proofs are refused until the
   * oldest expire. Default `100000`.
   */
  jtiCacheSize?: number;
  /**
   * The API's public origins (`['https://api.example.com']`); a proof's `htu` must name one. Set it
   * in production. Default: the request's Host header and the connection's protocol.
   */
  origins?: string[];
  /** `true`: DPoP only; a Bearer token is refused before it is verified. Default `false`. */
  required?: boolean;
}

export interface DpopSettings {
  algorithms: string[];
  iatOffsetSeconds: number;
  iatLeewaySeconds: number;
  /** Proof ids remembered at once; full, new proofs are refused until the oldest expire. */
  jtiCacheSize: number;
  /** The API's public origins, normalized (`new URL(origin).origin`); undefined: the Host header and the connection's protocol. */
  origins: string[] | undefined;
  /** Only DPoP-bound tokens, sent with the DPoP scheme, are accepted. */
  required: boolean;
}
