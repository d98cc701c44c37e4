import { ConfigError, jsonPath } from './config-error';

type SchemeMap = Record<string, unknown>;

/**
 * Picks the security scheme svcgate guards: the one named, or else the only `http` `bearer`
 * scheme of the document. Refuses to guess when there are several or none.
 */
export function findBearerScheme(doc: Record<string, unknown>, file: string, wanted?: string): string {
  const components = doc.components as { securitySchemes?: SchemeMap } | undefined;
  const schemes: SchemeMap = components?.securitySchemes ?? {};
  const names = Object.keys(schemes);

  if (wanted !== undefined) {
    const path = jsonPath(['components', 'securitySchemes', wanted]);
    if (!(wanted in schemes)) {
      throw new ConfigError(file, path, `there is no security scheme named "${wanted}"`, names.length > 0 ? `use one of: ${names.join(', ')}` : 'declare it under components.securitySchemes');
    }
    assertBearerJwt(schemes[wanted], file, path);
    return wanted;
  }

  const bearer = names.filter((name) => isBearer(schemes[name]));
  if (bearer.length === 1) {
    assertBearerJwt(schemes[bearer[0]!], file, jsonPath(['components', 'securitySchemes', bearer[0]!]));
    return bearer[0]!;
  }
  throw new ConfigError(
    file,
    '$.components.securitySchemes',
    bearer.length === 0 ? 'no security scheme has type: http and scheme: bearer' : `several bearer schemes (${bearer.join(', ')})`,
    bearer.length === 0 ? 'declare one with type: http, scheme: bearer, bearerFormat: JWT' : 'name the one to guard with the scheme option',
  );
}

function isBearer(scheme: unknown): boolean {
  const s = scheme as { type?: unknown; scheme?: unknown } | null;
  return s?.type === 'http' && typeof s.scheme === 'string' && s.scheme.toLowerCase() === 'bearer';
}

function assertBearerJwt(scheme: unknown, file: string, path: string): void {
  if (!isBearer(scheme)) {
    throw new ConfigError(file, path, 'the security scheme is not type: http with scheme: bearer', 'guard a scheme declared as type: http, scheme: bearer, bearerFormat: JWT');
  }
  const format = (scheme as { bearerFormat?: unknown }).bearerFormat;
  if (format !== undefined && (typeof format !== 'string' || format.toUpperCase() !== 'JWT')) {
    throw new ConfigError(file, `${path}.bearerFormat`, `bearerFormat is ${JSON.stringify(format)}, svcgate verifies JWTs only`, 'set bearerFormat: JWT');
  }
}
