export { createTestIssuer, type TestIssuer, type TestIssuerOptions, type SignOptions, type TestDuration } from './create-test-issuer';
export { TEST_ALGORITHMS, type TestAlgorithm } from './test-keys';
export { ConfigError } from '../policy/compile/config-error';
export { MissingPeerError } from '../hosts/express/peer-express';
export {
  runPermissionSuite,
  type RunPermissionSuiteOptions,
  type PermissionSuiteResult,
  type PermissionCaseResult,
  type ObservedOutcome,
} from './run-permission-suite';
export type { PermissionSuite, SuiteTest, SuitePrincipal, SuiteRequest, ExpectedOutcome, SuiteStatus, SuiteGuardOptions } from './permission-suite-types';
export { formatSuiteResult } from './suite-report';
export { toJUnitXml } from './junit-report';
