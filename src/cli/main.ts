#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseClaimPath } from '../policy/request/claim-path';
import { ANONYMOUS_DEFAULTS, type AnonymousDefault } from '../policy/compile/anonymous-default';
import { compileApi } from '../policy/compile/compile-acl';
import { loadDocument } from '../policy/compile/load-document';
import { ConfigError } from '../policy/compile/config-error';
import { policyWasmPath } from '../policy/evaluate/policy-wasm-path';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../fleet/bundle/bundle-signature';
import { writeBundle } from '../fleet/bundle/bundle-writer';
import { aclDiff, formatDiff } from './acl-diff';
import { auditMatrix, formatMatrix } from './audit-matrix';
import { auditPage } from './audit-page';
import { explainRequest, formatExplanation } from './explain-request';
import { svcgateVersion } from '../policy/evaluate/svcgate-version';
import { COMMANDS, commandHelp, overview } from './command-help';
import { UsageError } from './usage-error';

const OPTIONS = {
  openapi: { type: 'string' },
  'ref-root': { type: 'string' },
  acl: { type: 'string' },
  'acl-new': { type: 'string' },
  scheme: { type: 'string' },
  'required-scopes': { type: 'string' },
  'anonymous-default': { type: 'string' },
  out: { type: 'string' },
  'token-claims': { type: 'string' },
  'role-binding': { type: 'string' },
  json: { type: 'boolean' },
  html: { type: 'string' },
  'fail-on': { type: 'string' },
  revision: { type: 'string' },
  'signing-key': { type: 'string' },
  'signing-alg': { type: 'string' },
  'signing-key-id': { type: 'string' },
  'signing-scope': { type: 'string' },
  junit: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Exit codes: 0 done (explain: allowed; test: every case passed), 1 explain: denied, diff: a change --fail-on names, test: a case failed, 2 bad input. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, ...rest] = positionals;
  if (values.version) {
    process.stdout.write(`${svcgateVersion()}\n`);
    return 0;
  }
  if (command !== undefined && !Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown command ${command}; the commands are ${Object.keys(COMMANDS).join(', ')}`);
  if (values.help) {
    process.stdout.write(command === undefined ? overview() : commandHelp(command));
    return 0;
  }
  if (command === undefined) throw new UsageError('no command given');
  checkOptions(command, values);
  switch (command) {
    case 'build':
      return build(values, rest);
    case 'explain':
      return explain(values, rest);
    case 'audit':
      return audit(values, rest);
    case 'diff':
      return diff(values, rest);
    case 'test':
      return permissionTest(values, rest);
    default:
      return bundle(values, rest);
  }
}

/** An option another command takes is refused, not ignored: `--out` given to explain is a slip to hear about. */
function checkOptions(command: string, values: Values): void {
  const allowed = new Set(COMMANDS[command]!.options.map(([flag]) => flag.slice(2).split(' ')[0]!));
  const given = Object.keys(values).filter((name) => name !== 'help' && name !== 'version');
  const foreign = given.find((name) => !allowed.has(name));
  if (foreign !== undefined) throw new UsageError(`${command} takes no --${foreign}`);
}

function compile(values: Values, acl = values.acl) {
  return compileWithDocument(values, acl).data;
}

function compileWithDocument(values: Values, acl = values.acl) {
  if (values.openapi === undefined) throw new UsageError('--openapi <file> is required');
  if (acl === undefined) throw new UsageError('--acl <file> is required');
  if (values['ref-root'] === '') throw new UsageError('--ref-root needs a folder');
  const anonymousDefault = values['anonymous-default'];
  if (anonymousDefault !== undefined && !(ANONYMOUS_DEFAULTS as readonly string[]).includes(anonymousDefault)) throw new UsageError(`--anonymous-default must be ${ANONYMOUS_DEFAULTS.join(' or ')}`);
  return compileApi({
    openapi: values.openapi,
    acl,
    ...(values['ref-root'] === undefined ? {} : { refRoot: values['ref-root'] }),
    ...(values.scheme === undefined ? {} : { scheme: values.scheme }),
    // Over the document's x-acl-anonymous-default, as compileAcl's option is.
    ...(anonymousDefault === undefined ? {} : { anonymousDefault: anonymousDefault as AnonymousDefault }),
    // Space-separated, as in a token's scope claim and bearerJwtAcl's requiredScopes.
    ...(values['required-scopes'] === undefined ? {} : { requiredScopes: values['required-scopes'].split(' ').filter((scope) => scope !== '') }),
  });
}

function build(values: Values, rest: string[]): number {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values.out === undefined) throw new UsageError('--out <dir> is required');
  const data = compile(values);
  mkdirSync(values.out, { recursive: true });
  const file = join(values.out, 'data.json');
  // Wrapped so that `opa eval -d policies/authz.rego -d data.json` finds it at data.svcgate.acl.
  writeFileSync(file, `${JSON.stringify({ svcgate: { acl: data } }, null, 2)}\n`);
  process.stdout.write(`wrote ${file}: ${Object.keys(data.roles).length} roles, ${Object.keys(data.operations).length} operations, revision ${data.revision}\n`);
  return 0;
}

async function explain(values: Values, rest: string[]): Promise<number> {
  const [method, target, extra] = rest;
  if (method === undefined || target === undefined) throw new UsageError('explain needs <METHOD> <path>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`);
  const claims = values['token-claims'] === undefined ? undefined : parseClaims(values['token-claims']);
  const { data, document } = compileWithDocument(values);
  const explanation = await explainRequest(data, document.servers, method, target, claims, roleBinding(values['role-binding']));
  process.stdout.write(formatExplanation(explanation));
  return explanation.decision.allow ? 0 : 1;
}

async function audit(values: Values, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values.json && values.html !== undefined) throw new UsageError('give --json or --html, not both');
  const data = compile(values);
  const matrix = await auditMatrix(data);
  if (values.html !== undefined) {
    writeFileSync(values.html, auditPage(matrix, { data, declaration: loadDocument(values.acl!, 'ACL').value, name: values.acl! }));
    process.stdout.write(`wrote ${values.html}: ${matrix.roles.length} roles x ${Object.keys(matrix.operations).length} operations\n`);
    return 0;
  }
  process.stdout.write(values.json ? `${JSON.stringify(matrix, null, 2)}\n` : formatMatrix(matrix));
  return 0;
}

const FAIL_ON = ['widen', 'narrow', 'change'] as const;

async function diff(values: Values, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values['acl-new'] === undefined) throw new UsageError('--acl-new <file> is required: the ACL to compare with --acl');
  const failOn = values['fail-on'];
  if (failOn !== undefined && !(FAIL_ON as readonly string[]).includes(failOn)) throw new UsageError(`--fail-on must be one of ${FAIL_ON.join(', ')}`);
  if (values.acl === undefined) throw new UsageError('--acl <file> is required: the ACL as it is');
  const version = (file: string, name: string) => ({ data: compile(values, file), declaration: loadDocument(file, 'ACL').value, name });
  const changes = await aclDiff(version(values.acl, 'old ACL'), version(values['acl-new'], 'new ACL'));
  process.stdout.write(values.json ? `${JSON.stringify(changes, null, 2)}\n` : formatDiff(changes));
  if (failOn === undefined) return 0;
  const failing: Record<(typeof FAIL_ON)[number], string[]> = { widen: ['widened', 'changed'], narrow: ['narrowed', 'changed'], change: ['widened', 'narrowed', 'changed'] };
  return changes.some((change) => failing[failOn as (typeof FAIL_ON)[number]].includes(change.change)) ? 1 : 0;
}

async function permissionTest(values: Values, rest: string[]): Promise<number> {
  const [suite, extra] = rest;
  if (suite === undefined) throw new UsageError('test needs <suite.yaml>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`);
  if (values.junit === '') throw new UsageError('--junit needs a file');
  // Loaded here: the suite runs an Express app, which no other command needs to load.
  const [{ runPermissionSuite }, { formatSuiteResult }, { toJUnitXml }] = await Promise.all([import('../testing/run-permission-suite'), import('../testing/suite-report'), import('../testing/junit-report')]);
  const result = await runPermissionSuite(suite);
  process.stdout.write(formatSuiteResult(result));
  if (values.junit !== undefined) {
    mkdirSync(dirname(resolve(values.junit)), { recursive: true });
    writeFileSync(values.junit, toJUnitXml(result));
    process.stdout.write(`wrote ${values.junit}\n`);
  }
  return result.ok ? 0 : 1;
}

async function bundle(values: Values, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values.out === undefined) throw new UsageError('--out <file.tar.gz> is required');
  const data = compile(values);
  const wasmFile = policyWasmPath();
  const bytes = await writeBundle({
    data,
    wasm: readFileSync(wasmFile),
    // The package ships its Rego beside dist/: OPA evaluates it, svcgate the Wasm built from it.
    rego: { 'svcgate/authz/policy.rego': readFileSync(join(dirname(wasmFile), '../policies/authz.rego'), 'utf8') },
    revision: values.revision,
    signing: signing(values),
  });
  writeFileSync(values.out, bytes);
  process.stdout.write(`wrote ${values.out}: revision ${values.revision ?? data.revision}, ${Object.keys(data.operations).length} operations, ${bytes.length} bytes${values['signing-key'] ? `, signed ${values['signing-alg'] ?? 'RS256'}` : ''}\n`);
  return 0;
}

function signing(values: Values) {
  const keyFile = values['signing-key'];
  if (keyFile === undefined) {
    if (values['signing-alg'] ?? values['signing-key-id'] ?? values['signing-scope']) throw new UsageError('--signing-alg, --signing-key-id and --signing-scope need --signing-key <file>');
    return undefined;
  }
  const algorithm = (values['signing-alg'] ?? 'RS256') as SigningAlgorithm;
  if (!SIGNING_ALGORITHMS.includes(algorithm)) throw new UsageError(`--signing-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  // The file's bytes as they are: an HMAC secret with a trailing newline is another secret.
  const key = algorithm.startsWith('HS') ? readFileSync(keyFile) : readFileSync(keyFile, 'utf8');
  return { key, algorithm, keyId: values['signing-key-id'], scope: values['signing-scope'] };
}

function roleBinding(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    parseClaimPath(text, '--role-binding', []);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`--role-binding: ${error.problem} (${error.fix})`);
    throw error;
  }
  return text;
}

function parseClaims(text: string): Record<string, unknown> {
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--token-claims is not valid JSON (${(error as Error).message})`);
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw new UsageError('--token-claims must be a JSON object');
  return claims as Record<string, unknown>;
}

/** Every failure is one line on stderr: the problem and, for usage errors, where to look. */
function report(error: unknown): number {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
  process.stderr.write(`svcgate: ${message}${error instanceof UsageError ? ' (svcgate --help)' : ''}\n`);
  return 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => (process.exitCode = report(error)),
  );
}
