export { bearerJwt, type BearerJwtHandler } from './bearer-jwt';
export type { BearerJwtConfig } from './bearer-jwt-config';
export { BearerJWT, OASBearerJWT, type OasAcl } from './oas-bearer-jwt';
export { bearerJwtAcl, type BearerJwtAclOptions, type RequestAuth } from './express-acl';
export { jwtErrorHandler } from './jwt-error-handler';
export { filterAttributes } from './filter-attributes';
export { SecurityError, JsonWebTokenError, AuthError } from './errors';
export type { AclOptions } from './acl-options';
export type { DecisionLog, DecisionLogEvent } from './decision-log';
