import { ConfigError } from '../policy/compile/config-error';

const FILE = '<bearerJwt config>';
const NO_AUDIENCE_WARNING = 'SVCGATE_NO_AUDIENCE';

/** `audience` as configured: the accepted `aud` values, or `false` for no audience check, on purpose. */
export type AudienceSetting = string | string[] | false;

/**
 * Where an issuer's keys come from. A provider's keys (a fetched or local JWK set, discovery, a
 * public key) sign tokens for every API the provider serves; a shared secret usually belongs to
 * one service and the API, though another service may hold it too.
 */
export type KeyOrigin = 'jwks' | 'issuerBaseURL' | 'publicKey' | 'secret';

/**
 * The audience one issuer's tokens are checked against (undefined: none). Without an audience, a
 * token the provider issued for any other API would be accepted, so leaving it out with a
 * provider's keys is a ConfigError; `audience: false` says it on purpose. A secret is left to
 * reportSecretsWithoutAudience, which warns once for the whole handler.
 */
export function issuerAudience(audience: AudienceSetting | undefined, origin: KeyOrigin, at: string): string | string[] | undefined {
  if (audience === false) return undefined;
  if (audience !== undefined || origin === 'secret') return audience;
  const where = at === '$' ? '' : ' (in this entry, or at the top level for every entry)';
  throw new ConfigError(
    FILE,
    `${at}.audience`,
    `no audience is given for keys from ${ORIGIN_NAMES[origin]}: a token the identity provider issued for any other API it serves would be accepted here`,
    `set audience${where} to this API's identifier, the aud value of the tokens issued for it; or audience: false to accept tokens for any audience on purpose`,
  );
}

const ORIGIN_NAMES: Readonly<Record<Exclude<KeyOrigin, 'secret'>, string>> = {
  jwks: 'a JWK set (jwks)',
  issuerBaseURL: 'an identity provider (issuerBaseURL)',
  publicKey: 'a public key (secret holding a PEM or KeyObject)',
};

/**
 * The issuers (by JSON path) verified with a secret and no audience: one SVCGATE_NO_AUDIENCE
 * warning for the handler, or with `strict` a ConfigError naming the first.
 */
export function reportSecretsWithoutAudience(paths: readonly string[], strict: boolean): void {
  const [first] = paths;
  if (first === undefined) return;
  const problem = `no audience is given for the secret at ${paths.join(', ')}, so a token signed with it for any other service that holds the secret is accepted here`;
  const fix = "set audience to this API's identifier, the aud value of the tokens issued for it; or audience: false to accept tokens for any audience on purpose";
  if (strict) throw new ConfigError(FILE, `${first}.audience`, problem, fix);
  process.emitWarning(`${FILE}: ${problem}. To change it: ${fix}. With strict: true this is an error`, { code: NO_AUDIENCE_WARNING });
}
