export { bundleConsumer, BundleConsumer, BundleMismatchError, type BundleEvent, type BundleStatus } from './bundle-consumer';
export type { BundleConsumerOptions } from './bundle-consumer-options';
export { BundleDownloadError } from './bundle-download-error';
export { BundleError } from './bundle-error';
export { readBundle, type Bundle, type ReadBundleOptions } from './bundle-reader';
export { SIGNING_ALGORITHMS, verificationKey, type BundleSigning, type BundleVerification, type SigningAlgorithm, type VerificationKey } from './bundle-signature';
export { writeBundle, type WriteBundleOptions } from './bundle-writer';
export { createDecisionLogUploader, type DecisionLogUploader, type DecisionLogUploaderOptions, type DecisionLogUploaderStatus } from './decision-log-uploader';
export type { MaskRule } from './mask-event';
