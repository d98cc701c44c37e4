#!/usr/bin/env node
import { dirname, join, resolve } from 'node:path';
import { dump } from 'js-yaml';
import { parseClaimPath } from '../policy/request/claim-path';
import { ANONYMOUS_DEFAULTS, type AnonymousDefault } from '../policy/compile/anonymous-default';
import { compileApi, compileOperations, type CompileOperationsOptions } from '../policy/compile/compile-acl';
import { ConfigError } from '../policy/compile/config-error';
import { policyWasmPath } from '../policy/evaluate/policy-wasm-path';
import { signFiles, SIGNING_ALGORITHMS, type BundleSigning, type SigningAlgorithm } from '../fleet/bundle/bundle-signature';
import { writeBundle } from '../fleet/bundle/bundle-writer';
import { aclDiff, formatDiff } from './acl-diff';
import { auditMatrix, formatMatrix } from './audit-matrix';
import { auditPage } from './audit-page';
import { explainRequest, formatExplanation } from './explain-request';
import { failOnExitCode, readFailOn } from './fail-on';
import { readListSqlOptions } from './list-sql-options';
import { replayCommand } from './replay/replay-command';
import { svcgateVersion } from '../policy/evaluate/svcgate-version';
import { COMMANDS, commandHelp, overview } from './command-help';
import { checkExists, makeFolder, readInputFile, writeOutputFile } from './command-files';
import { optionName, readCommandLine, type Values } from './read-command-line';
import { CommandDocuments, STANDARD_INPUT, STANDARD_INPUT_NAME } from './standard-input';
import { StrictWarnings } from './strict-warnings';
import { UsageError } from './usage-error';

/** A signing key is a PEM or an HMAC secret: far below this. */
const MAX_KEY_BYTES = 1024 * 1024;
/** The package's own policy.wasm and Rego, read for a bundle. */
const MAX_POLICY_BYTES = 64 * 1024 * 1024;

/**
 * Exit codes: 0 done (explain: allowed; test: every case passed); 1 explain: denied, diff and
 * replay: a change --fail-on names, test: a case failed, or, with --strict, a warning was printed;
 * 2 bad input (arguments, files, documents).
 */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = readCommandLine(argv);
  const [command, ...rest] = positionals;
  if (values.version) {
    process.stdout.write(`${svcgateVersion()}\n`);
    return 0;
  }
  // `svcgate help` and `svcgate help audit`, as git and npm take them: --help by another name.
  const asked = command === 'help' ? rest[0] : command;
  if (asked !== undefined && !Object.hasOwn(COMMANDS, asked)) throw new UsageError(`unknown command ${asked}; the commands are ${Object.keys(COMMANDS).join(', ')}`);
  if (values.help || command === 'help') {
    if (command === 'help' && rest.length > 1) throw new UsageError(`unexpected argument ${rest[1]}`);
    process.stdout.write(asked === undefined ? overview() : commandHelp(asked));
    return 0;
  }
  if (command === undefined) throw new UsageError('no command given');
  try {
    checkOptions(command, values);
    const documents = await CommandDocuments.read(values);
    const warnings = new StrictWarnings();
    try {
      const code = await run(command, values, rest, warnings, documents);
      return await warnings.exitCode(code, values.strict === true);
    } finally {
      warnings.close();
    }
  } catch (error) {
    // `explain takes no --out` points to explain's help, which lists what it takes.
    if (error instanceof UsageError) error.command ??= command;
    throw error;
  }
}

function run(command: string, values: Values, rest: string[], warnings: StrictWarnings, documents: CommandDocuments): number | Promise<number> {
  switch (command) {
    case 'build':
      return build(values, rest, documents);
    case 'explain':
      return explain(values, rest, documents);
    case 'audit':
      return audit(values, rest, documents);
    case 'diff':
      return diff(values, rest, warnings, documents);
    case 'test':
      return permissionTest(values, rest);
    case 'replay':
      return replayCommand({ values, rest, compileAcl: () => compile(values, documents), compileApi: () => compileOperations(apiOptions(values, documents)) });
    case 'openapi':
      return openapi(values, rest);
    default:
      return bundle(values, rest, documents);
  }
}

/** An option another command takes is refused, not ignored: `--out` given to explain is a slip to hear about. */
function checkOptions(command: string, values: Values): void {
  const allowed = new Set(COMMANDS[command]!.options.map(([flag]) => optionName(flag)));
  const given = Object.keys(values).filter((name) => name !== 'help' && name !== 'version');
  const foreign = given.find((name) => !allowed.has(name));
  if (foreign !== undefined) throw new UsageError(`${command} takes no --${foreign}`);
}

function compile(values: Values, documents: CommandDocuments, acl = values.acl, aclOption: 'acl' | 'acl-new' = 'acl') {
  return compileWithDocument(values, documents, acl, aclOption).data;
}

function compileWithDocument(values: Values, documents: CommandDocuments, acl = values.acl, aclOption: 'acl' | 'acl-new' = 'acl') {
  const api = apiOptions(values, documents);
  if (acl === undefined) throw new UsageError('--acl <file> is required');
  const anonymousDefault = values['anonymous-default'];
  if (anonymousDefault !== undefined && !(ANONYMOUS_DEFAULTS as readonly string[]).includes(anonymousDefault)) throw new UsageError(`--anonymous-default must be ${ANONYMOUS_DEFAULTS.join(' or ')}`);
  return compileApi({
    ...api,
    acl: documents.source(acl, aclOption),
    ...(acl === STANDARD_INPUT ? { aclSource: STANDARD_INPUT_NAME } : {}),
    // Over the document's x-acl-anonymous-default, as compileAcl's option is.
    ...(anonymousDefault === undefined ? {} : { anonymousDefault: anonymousDefault as AnonymousDefault }),
  });
}

/** The OpenAPI document and the options that read its operations, shared by every command that reads one. */
function apiOptions(values: Values, documents: CommandDocuments): CompileOperationsOptions {
  if (values.openapi === undefined) throw new UsageError('--openapi <file> is required');
  // Read only when a $ref leads to another file: a wrong folder would otherwise pass unnoticed.
  if (values['ref-root'] !== undefined) checkExists(values['ref-root'], '--ref-root folder', 'folder');
  return {
    openapi: documents.source(values.openapi, 'openapi'),
    ...(values['ref-root'] === undefined ? {} : { refRoot: values['ref-root'] }),
    ...(values.scheme === undefined ? {} : { scheme: values.scheme }),
    // Space-separated, as in a token's scope claim and bearerJwtAcl's requiredScopes.
    ...(values['required-scopes'] === undefined ? {} : { requiredScopes: values['required-scopes'].split(' ').filter((scope) => scope !== '') }),
  };
}

function build(values: Values, rest: string[], documents: CommandDocuments): number {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values.out === undefined) throw new UsageError('--out <dir> is required');
  const data = compile(values, documents);
  makeFolder(values.out, 'data document folder');
  const file = join(values.out, 'data.json');
  // Wrapped so that `opa eval -d policies/authz.rego -d data.json` finds it at data.svcgate.acl.
  writeOutputFile(file, 'data document', `${JSON.stringify({ svcgate: { acl: data } }, null, 2)}\n`);
  process.stdout.write(`wrote ${file}: ${Object.keys(data.roles).length} roles, ${Object.keys(data.operations).length} operations, revision ${data.revision}\n`);
  return 0;
}

async function explain(values: Values, rest: string[], documents: CommandDocuments): Promise<number> {
  const [method, target, extra] = rest;
  if (method === undefined || target === undefined) throw new UsageError('explain needs <METHOD> <path>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`);
  const claims = values['token-claims'] === undefined ? undefined : parseClaims(values['token-claims']);
  const sql = readListSqlOptions(values.sql, values.column);
  const { data, document } = compileWithDocument(values, documents);
  const explanation = await explainRequest(data, document, method, target, claims, roleBinding(values['role-binding']), sql);
  process.stdout.write(formatExplanation(explanation));
  return explanation.decision.allow ? 0 : 1;
}

async function audit(values: Values, rest: string[], documents: CommandDocuments): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values.json && values.html !== undefined) throw new UsageError('give --json or --html, not both');
  const { data, declaration } = compileWithDocument(values, documents);
  const matrix = await auditMatrix(data);
  if (values.html !== undefined) {
    writeOutputFile(values.html, 'audit page', auditPage(matrix, { data, declaration, name: values.acl === STANDARD_INPUT ? STANDARD_INPUT_NAME : values.acl! }));
    process.stdout.write(`wrote ${values.html}: ${matrix.roles.length} roles x ${Object.keys(matrix.operations).length} operations\n`);
    return 0;
  }
  process.stdout.write(values.json ? `${JSON.stringify(matrix, null, 2)}\n` : formatMatrix(matrix));
  return 0;
}

async function diff(values: Values, rest: string[], warnings: StrictWarnings, documents: CommandDocuments): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values['acl-new'] === undefined) throw new UsageError('--acl-new <file> is required: the ACL to compare with --acl');
  const failOn = readFailOn(values['fail-on']);
  if (values.acl === undefined) throw new UsageError('--acl <file> is required: the ACL as it is');
  const version = (file: string, option: 'acl' | 'acl-new', name: string) => {
    const { data, declaration } = compileWithDocument(values, documents, file, option);
    return { data, declaration, name };
  };
  const old = version(values.acl, 'acl', 'old ACL');
  // The old ACL is what is already there: --strict gates on the warnings of the new one.
  await warnings.ignoreSoFar();
  const changes = await aclDiff(old, version(values['acl-new'], 'acl-new', 'new ACL'));
  process.stdout.write(values.json ? `${JSON.stringify(changes, null, 2)}\n` : formatDiff(changes));
  return failOnExitCode(failOn, changes.map((change) => change.change));
}

async function permissionTest(values: Values, rest: string[]): Promise<number> {
  const [suite, extra] = rest;
  if (suite === undefined) throw new UsageError('test needs <suite.yaml>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`);
  // Loaded here: the suite runs an Express app, which no other command needs to load.
  const [{ runPermissionSuite }, { formatSuiteResult }, { toJUnitXml }] = await Promise.all([import('../testing/run-permission-suite'), import('../testing/suite-report'), import('../testing/junit-report')]);
  // Before the suite runs: a report that cannot be written is known before the cases are waited for.
  if (values.junit !== undefined) makeFolder(dirname(resolve(values.junit)), 'JUnit report');
  const result = await runPermissionSuite(suite);
  process.stdout.write(formatSuiteResult(result));
  if (values.junit !== undefined) {
    writeOutputFile(values.junit, 'JUnit report', toJUnitXml(result));
    process.stdout.write(`wrote ${values.junit}\n`);
  }
  return result.ok ? 0 : 1;
}

async function bundle(values: Values, rest: string[], documents: CommandDocuments): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values.out === undefined) throw new UsageError('--out <file.tar.gz> is required');
  const signed = await signing(values);
  const data = compile(values, documents);
  const wasmFile = policyWasmPath();
  const bytes = await writeBundle({
    data,
    wasm: readInputFile(wasmFile, "package's policy.wasm", MAX_POLICY_BYTES),
    // The package ships its Rego beside dist/: OPA evaluates it, svcgate the Wasm built from it.
    rego: { 'svcgate/authz/policy.rego': readInputFile(join(dirname(wasmFile), '../policies/authz.rego'), "package's Rego policy", MAX_POLICY_BYTES).toString('utf8') },
    revision: values.revision,
    signing: signed,
  });
  writeOutputFile(values.out, 'bundle', bytes);
  process.stdout.write(`wrote ${values.out}: revision ${values.revision ?? data.revision}, ${Object.keys(data.operations).length} operations, ${bytes.length} bytes${values['signing-key'] ? `, signed ${values['signing-alg'] ?? 'RS256'}` : ''}\n`);
  return 0;
}

async function signing(values: Values): Promise<BundleSigning | undefined> {
  const keyFile = values['signing-key'];
  if (keyFile === undefined) {
    if (values['signing-alg'] ?? values['signing-key-id'] ?? values['signing-scope']) throw new UsageError('--signing-alg, --signing-key-id and --signing-scope need --signing-key <file>');
    return undefined;
  }
  const algorithm = (values['signing-alg'] ?? 'RS256') as SigningAlgorithm;
  if (!SIGNING_ALGORITHMS.includes(algorithm)) throw new UsageError(`--signing-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  // The file's bytes as they are: an HMAC secret with a trailing newline is another secret.
  const bytes = readInputFile(keyFile, 'signing key', MAX_KEY_BYTES);
  const key = algorithm.startsWith('HS') ? bytes : bytes.toString('utf8');
  const settings = { key, algorithm, keyId: values['signing-key-id'], scope: values['signing-scope'] };
  // Signed once, with nothing, before anything is compiled: a key that cannot sign is named with
  // its file, where the writer would say only what OpenSSL says ("DECODER routines::unsupported").
  try {
    await signFiles(new Map(), settings);
  } catch (error) {
    const fix = algorithm.startsWith('HS') ? 'give a secret of at least 32 bytes (the file is read byte for byte)' : `give the PEM private key ${algorithm} signs with (RS and PS: RSA; ES256, ES384, ES512: EC P-256, P-384, P-521)`;
    throw new ConfigError(resolve(keyFile), '$', `cannot sign ${algorithm} with the signing key: ${(error as Error).message}`, fix);
  }
  return settings;
}

/** `svcgate openapi --svc <module>`: the document svcAcl compiles for the module's API, for `svcgate bundle --openapi`. */
async function openapi(values: Values, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (values.svc === undefined) throw new UsageError('--svc <module> is required: a module that exports a SvcApi or SvcContainer');
  // Loaded here, as for test: SvcApi brings Express, which no other command needs to load.
  const [{ loadSvcModule }, { svcAclOpenApi }] = await Promise.all([import('./svc-module'), import('../svc/svc-acl')]);
  const { api, owners } = await loadSvcModule(values.svc);
  const document = svcAclOpenApi(api, owners);
  process.stdout.write(values.yaml ? dump(document, { noRefs: true }) : `${JSON.stringify(document, null, 2)}\n`);
  return 0;
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
  const help = error instanceof UsageError && !error.helped ? ` (svcgate ${error.command === undefined ? '' : `${error.command} `}--help)` : '';
  process.stderr.write(`svcgate: ${message}${help}\n`);
  return 2;
}

/**
 * Exits once the output is written, not when the event loop empties: `openapi --svc` runs the
 * user's module, whose services may hold a connection or a timer that would keep the CLI waiting.
 */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/**
 * Node ends a process whose event loop empties even while a promise is pending: a module given to
 * `openapi --svc` whose top-level await never settles would otherwise end the CLI with exit 0 and
 * nothing on stdout, an empty document for the next command of a pipeline. 'beforeExit' is that
 * case only: process.exit() and an uncaught error do not emit it.
 */
function refuseUnfinished(): () => void {
  const unfinished = () => {
    process.stderr.write('svcgate: the command stopped before it finished: what it waited for can never settle (a top-level await in the --svc module that nothing resolves?)\n');
    exit(2);
  };
  process.once('beforeExit', unfinished);
  return () => process.off('beforeExit', unfinished);
}

/**
 * A reader that stops early (`svcgate audit --json | head -1`) closes the pipe: the output it did
 * not read is no failure of the command, which ends with its own exit code instead of Node's
 * "Unhandled 'error' event" and a stack trace.
 */
function ignoreClosedOutput(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

if (require.main === module) {
  ignoreClosedOutput();
  const finished = refuseUnfinished();
  void main(process.argv.slice(2))
    .catch(report)
    .then((code) => {
      finished();
      exit(code);
    });
}
