export { createTestIssuer, type TestIssuer, type TestIssuerOptions, type SignOptions, type TestDuration } from './create-test-issuer';
export { TEST_ALGORITHMS, type TestAlgorithm } from './test-keys';
