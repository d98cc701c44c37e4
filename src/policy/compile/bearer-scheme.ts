import { quotedJson } from './quoted-text';
import { ConfigError, jsonPath } from './config-error';

type SchemeMap = Record<string, unknown>;

const SCHEME_FIX = 'guard a scheme declared as type: http, scheme: bearer, bearerFormat: JWT, or as type: oauth2 or openIdConnect (JWT access tokens)';

/**
 * Picks the security scheme svcgate guards: the one named, or else the document's only scheme
 * that carries bearer JWTs (`http` `bearer`, `oauth2`, `openIdConnect`: the last two are how
 * identity providers' access tokens are described). Refuses to guess when there are several or none.
 */
export function findBearerScheme(doc: Record<string, unknown>, file: string, wanted?: string): string {
  const components = doc.components as { securitySchemes?: SchemeMap } | undefined;
  const schemes: SchemeMap = components?.securitySchemes ?? {};
  const names = Object.keys(schemes);

  if (wanted !== undefined) {
    const path = jsonPath(['components', 'securitySchemes', wanted]);
    if (!Object.hasOwn(schemes, wanted)) {
      throw new ConfigError(file, path, `there is no security scheme named "${wanted}"`, names.length > 0 ? `use one of: ${names.join(', ')}` : 'declare it under components.securitySchemes');
    }
    assertBearerJwt(schemes[wanted], file, path);
    return wanted;
  }

  const bearer = names.filter((name) => carriesBearerJwt(schemes[name]));
  if (bearer.length === 1) {
    assertBearerJwt(schemes[bearer[0]!], file, jsonPath(['components', 'securitySchemes', bearer[0]!]));
    return bearer[0]!;
  }
  throw new ConfigError(
    file,
    '$.components.securitySchemes',
    bearer.length === 0 ? 'no security scheme has type: http with scheme: bearer, or type: oauth2 or openIdConnect' : `several bearer JWT schemes (${bearer.join(', ')})`,
    bearer.length === 0 ? 'declare one with type: http, scheme: bearer, bearerFormat: JWT' : 'name the one to guard with the scheme option',
  );
}

function isHttpBearer(scheme: unknown): boolean {
  const s = scheme as { type?: unknown; scheme?: unknown } | null;
  return s?.type === 'http' && typeof s.scheme === 'string' && s.scheme.toLowerCase() === 'bearer';
}

function carriesBearerJwt(scheme: unknown): boolean {
  const type = (scheme as { type?: unknown } | null)?.type;
  return isHttpBearer(scheme) || type === 'oauth2' || type === 'openIdConnect';
}

function assertBearerJwt(scheme: unknown, file: string, path: string): void {
  if (!carriesBearerJwt(scheme)) throw new ConfigError(file, path, 'the security scheme is not type: http with scheme: bearer, nor oauth2 or openIdConnect', SCHEME_FIX);
  if (!isHttpBearer(scheme)) return;
  const format = (scheme as { bearerFormat?: unknown }).bearerFormat;
  if (format !== undefined && (typeof format !== 'string' || format.toUpperCase() !== 'JWT')) {
    throw new ConfigError(file, `${path}.bearerFormat`, `bearerFormat is ${quotedJson(format)}, svcgate verifies JWTs only`, 'set bearerFormat: JWT');
  }
}
