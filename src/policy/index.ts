export { compileAcl, type CompileAclOptions } from './compile-acl';
export { ConfigError } from './config-error';
export { Evaluator, denied, type Decision, type PolicyInput } from './evaluator';
export { decide, type CheckOwnership, type DecideOptions, type DecisionResult } from './decide';
export { buildInput, type RequestParts, type VerifiedPayload } from './build-input';
export { createOperationMatcher, type OperationMatch, type OperationMatcher } from './match-operation';
export { serializeBodyValue, serializeClaimValue, serializeRequestValue } from './serialize-param';
export * from './data-document';
