export { ConfigError } from './config-error';
export { Evaluator, denied, type Decision, type PolicyInput } from './evaluator';
export * from './data-document';
