#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseClaimPath } from '../policy/request/claim-path';
import { compileAcl } from '../policy/compile/compile-acl';
import { ConfigError } from '../policy/compile/config-error';
import { policyWasmPath } from '../policy/evaluate/policy-wasm-path';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../fleet/bundle-signature';
import { writeBundle } from '../fleet/bundle-writer';
import { auditMatrix, formatMatrix } from './audit-matrix';
import { explainRequest, formatExplanation } from './explain-request';
import { UsageError } from './usage-error';

const USAGE = `usage:
  svcgate build   --openapi <file> --acl <file> [--scheme <name>] [--required-scopes <scopes>] --out <dir>
  svcgate explain --openapi <file> --acl <file> [--scheme <name>] [--required-scopes <scopes>] [--token-claims <json>] [--role-binding <claim path>] <METHOD> <path>
  svcgate audit   --openapi <file> --acl <file> [--scheme <name>] [--required-scopes <scopes>] [--json]
  svcgate bundle  --openapi <file> --acl <file> [--scheme <name>] [--required-scopes <scopes>] [--revision <r>]
                  [--signing-key <file> [--signing-alg <alg>] [--signing-key-id <id>] [--signing-scope <scope>]] --out <file.tar.gz>`;

const OPTIONS = {
  openapi: { type: 'string' },
  acl: { type: 'string' },
  scheme: { type: 'string' },
  'required-scopes': { type: 'string' },
  out: { type: 'string' },
  'token-claims': { type: 'string' },
  'role-binding': { type: 'string' },
  json: { type: 'boolean' },
  revision: { type: 'string' },
  'signing-key': { type: 'string' },
  'signing-alg': { type: 'string' },
  'signing-key-id': { type: 'string' },
  'signing-scope': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Exit codes: 0 done (explain: allowed), 1 explain: denied, 2 bad input. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, ...rest] = positionals;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  switch (command) {
    case 'build':
      return build(values, rest);
    case 'explain':
      return explain(values, rest);
    case 'audit':
      return audit(values, rest);
    case 'bundle':
      return bundle(values, rest);
    default:
      throw new UsageError(command === undefined ? 'no command given' : `unknown command ${command}`);
  }
}

function compile(values: Values) {
  if (values.openapi === undefined) throw new UsageError('--openapi <file> is required');
  if (values.acl === undefined) throw new UsageError('--acl <file> is required');
  return compileAcl({
    openapi: values.openapi,
    acl: values.acl,
    ...(values.scheme === undefined ? {} : { scheme: values.scheme }),
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
  const explanation = await explainRequest(compile(values), method, target, claims, roleBinding(values['role-binding']));
  process.stdout.write(formatExplanation(explanation));
  return explanation.decision.allow ? 0 : 1;
}

async function audit(values: Values, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  const matrix = await auditMatrix(compile(values));
  process.stdout.write(values.json ? `${JSON.stringify(matrix, null, 2)}\n` : formatMatrix(matrix));
  return 0;
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
