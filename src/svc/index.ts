export { SvcContainer, type InstancesOf, type RegisterOptions, type ServiceClass } from './svc-container';
export { SvcApi, type SvcApiOptions } from './svc-api';
export { ArgumentError } from './errors';
export { svcAcl, svcAclOpenApi, type SvcAclOptions } from './svc-acl';
export { SvcgateHttpError, InvalidRequestError, UnauthorizedError, ForbiddenError, InsufficientScopeError, PolicyUnavailableError, type ErrorHeaders, type HttpErrorDetails } from '../guard/http-errors';
export type { ErrorAnswers, JsonErrorBody, ProblemBody } from '../guard/error-answers';
export type { Interceptor, InterceptorClass, InterceptorMap, SvcResponse } from './interceptors';
export type { RoutesOpenApi } from './routes-openapi';
export type { SvcCallContext } from './routes';
