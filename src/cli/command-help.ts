/** What `svcgate --help` and `svcgate <command> --help` print: each command, its options, and what they do. */
interface CommandHelp {
  usage: string;
  does: string;
  options: [flag: string, meaning: string][];
}

const DOCUMENTS: [string, string][] = [
  ['--openapi <file>', 'the OpenAPI 3.0/3.1 document (JSON or YAML; - reads it from standard input, e.g. piped from svcgate openapi); required'],
  ['--ref-root <dir>', "the folder the document's file $refs must stay inside (absolute paths, .. and links out of it are refused); default the document's folder"],
  ['--acl <file>', 'the permission declaration (JSON or YAML; - reads it from standard input); required'],
  ['--scheme <name>', "the security scheme to guard; default the document's only bearer JWT scheme"],
  ['--required-scopes "<a b>"', 'scopes every guarded operation needs, on top of those the document lists'],
  [
    '--anonymous-default seed|none',
    "what an ACL without anonymous grants callers without a role: seed, the built-in read:any on every secured read operation without parameters; none, nothing (svcAcl's rule, needed for a bundle svcAcl takes); default the document's x-acl-anonymous-default, else seed",
  ],
];

const STRICT: [string, string] = ['--strict', 'exit 1 when a warning is printed (the anonymous default in effect, a grant no operation uses, any other SVCGATE_ warning), for CI gates; the command still does its work'];

export const COMMANDS: Record<string, CommandHelp> = {
  build: {
    usage: 'svcgate build --openapi <file> --acl <file> [--scheme <name>] [--required-scopes "<a b>"] [--ref-root <dir>] [--anonymous-default seed|none] [--strict] --out <dir>',
    does: 'validates the ACL against the document and writes <dir>/data.json (the data document at data.svcgate.acl)',
    options: [...DOCUMENTS, ['--out <dir>', 'the folder to write data.json into; required'], STRICT],
  },
  explain: {
    usage: 'svcgate explain --openapi <file> --acl <file> [--scheme <name>] [--required-scopes "<a b>"] [--ref-root <dir>] [--anonymous-default seed|none] [--token-claims <json>] [--role-binding <claim path>] [--sql postgres|sqlite [--column <param>=<column>]...] [--strict] <METHOD> <path>',
    does: "decides one request as the adapters do and prints the decision, its reasons, the scopes needed, the caller, the answer the adapters give (the handler runs; 401 without a token; 403 with one) and the input; for a list operation (x-acl-list), also the item it lists and its plan: all, none, or some (the items whose owned parameters are IN the caller's values) with the attributes granted; exit 0 allowed, 1 denied. <path> as the server receives it (with the servers' prefix, e.g. /api/v1/users/3) or as the document writes it (/users/3), with a query if any",
    options: [
      ...DOCUMENTS,
      ['--token-claims <json>', "the verified token's claims, e.g. '{\"role\":\"user\",\"userId\":[1]}'; without it the request has no token (a deny is 401); '{}' is a token without a role claim (decided as anonymous, a deny is 403)"],
      ['--role-binding <claim path>', 'the claim that carries the role(s), e.g. groups or realm_access.roles; default role'],
      ['--sql postgres|sqlite', "a list operation only: also prints the plan as the SQL condition toSql (svcgate/list) writes for the dialect, and the values it binds"],
      ['--column <param>=<column>', 'with --sql: the column of an owned parameter of the item, e.g. orderId=order_id or orderId=o.id; repeatable; a parameter not given is the column of its own name'],
      STRICT,
    ],
  },
  audit: {
    usage: 'svcgate audit --openapi <file> --acl <file> [--scheme <name>] [--required-scopes "<a b>"] [--ref-root <dir>] [--anonymous-default seed|none] [--json | --html <file>] [--strict]',
    does: 'prints the role x operation matrix: any, own (allowed to owners), - (denied), public (the operation needs no token), decided as if the token held the scopes the operation lists',
    options: [...DOCUMENTS, ['--json', 'the matrix as JSON'], ['--html <file>', 'writes one self-contained page: the matrix in colour, filters by role and path, each cell explaining its attributes in effect and its grant'], STRICT],
  },
  diff: {
    usage: 'svcgate diff --openapi <file> --acl <old file> --acl-new <new file> [--scheme <name>] [--required-scopes "<a b>"] [--ref-root <dir>] [--anonymous-default seed|none] [--json] [--fail-on widen|narrow|change] [--strict]',
    does: 'prints every role x operation cell whose decision changes from the old ACL to the new one, widened or narrowed, with the declared grant that changed and caused it (named with "via $extend of <role>" when it is inherited). Attribute lists are compared by the fields they show: ["*"] and ["*","id"] are the same, ["*","!password"] shows less than ["*"]; the lists are printed in canonical form',
    options: [
      ...DOCUMENTS.map(([flag, meaning]): [string, string] => (flag === '--acl <file>' ? ['--acl <old file>', 'the ACL as it is (- reads it from standard input); required'] : [flag, meaning])),
      ['--acl-new <new file>', 'the ACL as it would be (- reads it from standard input); required'],
      ['--json', 'the changes as JSON'],
      ['--fail-on widen|narrow|change', 'exit 1 when some cell is widened (narrowed; changed at all), for CI gates; default exit 0'],
      ['--strict', "exit 1 when the new ACL's compilation prints a warning (the old ACL's are printed but do not count)"],
    ],
  },
  replay: {
    usage:
      'svcgate replay --decision-logs <file|dir> (--openapi <file> --acl <file> [--scheme <name>] [--required-scopes "<a b>"] [--ref-root <dir>] [--anonymous-default seed|none] | --bundle <file.tar.gz> [--bundle-key <file> [--bundle-alg <alg>]] [--openapi <file>]) [--json] [--fail-on widen|narrow|change] [--strict]',
    does:
      "decides the requests of recorded decision logs again with a candidate (an ACL compiled with the document, or a bundle) and prints what would change: totals (events read; replayed: same, widened, narrowed, changed; and each count not replayed, with why), counts by operation and by role, and the first 5 newly allowed, newly denied and changed requests (decision_id, timestamp, where in the logs, operation, role, before -> after). Events are svcgate's (a decisionLog's, written one JSON object per line) or OPA's (an uploaded batch: a JSON array, gzip or not). An event whose input or result was masked (erased or masked at or under /input or /result) is counted as not replayable, never decided on a guess; 401 refusals, other schemes, shadow divergences, other paths, 503s and 400s are counted as skipped. Never prints claims or parameter values",
    options: [
      [
        '--decision-logs <file|dir>',
        'the decision logs: a file (.ndjson, .jsonl or .log: one event per line; .json: an array of events, or one; any of them gzip-compressed, found by its first bytes), a folder (its files with those names, in name order; subfolders and other files are left out and listed), or - for standard input; required',
      ],
      ...DOCUMENTS.map(([flag, meaning]): [string, string] => {
        if (flag === '--openapi <file>') return [flag, 'the OpenAPI 3.0/3.1 document (JSON or YAML; - reads it from standard input); required with --acl; with --bundle, the bundle must decide exactly its operations (a bundleConsumer\'s check)'];
        if (flag === '--acl <file>') return [flag, 'the candidate ACL (JSON or YAML; - reads it from standard input); or give --bundle'];
        return [flag, meaning];
      }),
      ['--bundle <file.tar.gz>', 'the candidate bundle (svcgate bundle writes one): its data and policy.wasm decide, after the checks a bundleConsumer makes before activating it'],
      ['--bundle-key <file>', 'the PEM public key (or certificate), or HMAC secret, the bundle is signed with: a signed bundle needs it, and with it an unsigned or altered bundle is refused (exit 2)'],
      ['--bundle-alg <alg>', 'the signature algorithm --bundle-key verifies: RS256 (default), RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, HS256, HS384 or HS512'],
      ['--json', 'the whole report as one JSON object (examples carry the decision_id and where they are in the logs, not the recorded input)'],
      ['--fail-on widen|narrow|change', 'exit 1 when some request is widened (narrowed; changed at all), for CI gates; default exit 0'],
      ['--strict', "exit 1 when a warning is printed: the candidate ACL's, lines of the logs that are no event, or no event replayed"],
    ],
  },
  bundle: {
    usage:
      'svcgate bundle --openapi <file> --acl <file> [--scheme <name>] [--required-scopes "<a b>"] [--ref-root <dir>] [--anonymous-default seed|none] [--revision <r>] [--signing-key <file> [--signing-alg <alg>] [--signing-key-id <id>] [--signing-scope <scope>]] [--strict] --out <file.tar.gz>',
    does: 'writes an OPA bundle (data, Rego, policy.wasm, and .signatures.json when signed) that opa run and bundleConsumer load',
    options: [
      ...DOCUMENTS,
      ['--revision <r>', "the manifest's revision; default the data document's revision"],
      ['--signing-key <file>', 'sign with the private key (PEM) or the HMAC secret in the file'],
      ['--signing-alg <alg>', 'RS256 (default), RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, HS256, HS384 or HS512'],
      ['--signing-key-id <id>', 'the key id written into the signature (OPA: keyid)'],
      ['--signing-scope <scope>', 'the scope written into the signature'],
      ['--out <file.tar.gz>', 'where to write the bundle; required'],
      STRICT,
    ],
  },
  test: {
    usage: 'svcgate test <suite.yaml> [--junit <file>] [--strict]',
    does:
      "runs a permission test suite: each case's request is sent to an Express app guarded by bearerJwtAcl with the suite's OpenAPI document and ACL (policy.wasm decides), as its principal (the claims signed into a token the app trusts; none for anonymous), and its status, allow and attributes are compared with those expected; a failed case is printed with the decision's reasons. Exit 0 every case passed, 1 some case failed, 2 a bad suite. The format: docs/openapi-apis.md, Permission test suites",
    options: [['--junit <file>', 'also writes a JUnit XML report of the cases to the file (its folders created), for CI'], STRICT],
  },
  openapi: {
    usage: 'svcgate openapi --svc <module> [--yaml]',
    does:
      'prints the OpenAPI document that svcAcl compiles for a SvcApi (its bearerAuth scheme, owned fields marked, x-acl-anonymous-default: none), the --openapi to give svcgate bundle for a svcAcl policy source: svcgate openapi --svc ./api.js | svcgate bundle --openapi - --acl permissions.yaml --out bundle.tar.gz (or through a file: > api.json, then --openapi api.json). The module (ES module or CommonJS, imported, so it must not listen) exports the SvcApi, or the SvcContainer its routes come from, as api or as its default export (else its only SvcApi or SvcContainer), and the owners given to svcAcl, if any, as owners',
    options: [
      ['--svc <module>', 'the module file; required'],
      ['--yaml', 'the document as YAML; default JSON'],
    ],
  },
};

/** `svcgate --help`: every command's usage line. */
export function overview(): string {
  const lines = Object.values(COMMANDS).map((command) => `  ${command.usage}`);
  return `usage:\n${lines.join('\n')}\n\nsvcgate <command> --help (or svcgate help <command>) tells what a command does and each of its options; svcgate --version prints the version.\n\nexit codes: 0 done (explain: allowed; test: every case passed); 1 explain: denied, diff and replay: a change --fail-on names, test: a case failed, or, with --strict, a warning was printed; 2 bad arguments, unreadable files, invalid documents (one line on stderr).\n`;
}

/** `svcgate <command> --help`. */
export function commandHelp(name: string): string {
  const command = COMMANDS[name]!;
  const width = Math.max(...command.options.map(([flag]) => flag.length));
  const options = command.options.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`);
  return `usage: ${command.usage}\n\n${command.does}.\n\noptions:\n${options.join('\n')}\n`;
}
