/**
 * How large a document svcgate reads. OpenAPI documents and ACLs are often read in CI from a pull
 * request, so each bound holds before the document is trusted: every step that reads one is then
 * linear and bounded (docs/policy.md, "Reading documents").
 */

/**
 * Bytes of one file, and of an OpenAPI document with the files its `$ref`s reach, together.
 * A 1,000 x 1,000 ACL written as YAML is about 40 MB; js-yaml reads about 9 MB a second.
 */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/**
 * Values (objects, lists, strings, numbers...) a document may hold, counting each use of a YAML
 * alias or a `$ref` in full, as a reader that walks it would meet them. The 1,000 x 1,000 ACL of
 * the benchmark holds 3,001,001; walking 5,000,000 takes about a third of a second.
 */
export const MAX_DOCUMENT_NODES = 5_000_000;

/** Levels of nesting in one file: js-yaml's own limit for YAML (its default maxDepth), applied to JSON too. */
export const MAX_FILE_DEPTH = 100;

/**
 * Levels of nesting of an OpenAPI document with its `$ref`s resolved, each reference followed
 * counting as a level: a chain of references is as deep as its length.
 */
export const MAX_RESOLVED_DEPTH = 1000;
