import { parseArgs } from 'node:util';
import { closestName } from '../svc/closest-name';
import { COMMANDS } from './command-help';
import { UsageError } from './usage-error';

/** Every option of every command; which command takes which is COMMANDS' business (checkOptions in main.ts). */
export const OPTIONS = {
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
  sql: { type: 'string' },
  // Repeatable: one --column per plan parameter that is not named as its column.
  column: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  html: { type: 'string' },
  'fail-on': { type: 'string' },
  revision: { type: 'string' },
  'signing-key': { type: 'string' },
  'signing-alg': { type: 'string' },
  'signing-key-id': { type: 'string' },
  'signing-scope': { type: 'string' },
  junit: { type: 'string' },
  strict: { type: 'boolean' },
  svc: { type: 'string' },
  'decision-logs': { type: 'string' },
  bundle: { type: 'string' },
  'bundle-key': { type: 'string' },
  'bundle-alg': { type: 'string' },
  yaml: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/**
 * The one option whose value may be empty: no scopes. Any other empty value is a slip, often an
 * unset variable (`--revision "$GIT_SHA"` wrote a bundle of revision ""), and an empty path would
 * be the working directory.
 */
const MAY_BE_EMPTY = new Set(['required-scopes']);

/** Taken by every command, and by none: `svcgate --help`, `svcgate audit --help`. */
const EVERYWHERE = ['help', 'version'];

/**
 * The command line as values and positionals, or a UsageError in svcgate's words. Node's strict
 * parser says "Unknown option '--htm'. To specify a positional argument starting with a '-', ..."
 * and knows nothing of commands, so the line is read leniently and each option checked here:
 * unknown (with the closest option of the command given), missing its value, or a flag given one.
 */
export function readCommandLine(argv: string[]): { values: Values; positionals: string[] } {
  const { values, positionals, tokens } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const command = positionals[0] !== undefined && Object.hasOwn(COMMANDS, positionals[0]) ? positionals[0] : undefined;
  const help = command === undefined ? '(svcgate --help)' : `(svcgate ${command} --help)`;
  const given = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!Object.hasOwn(OPTIONS, token.name)) throw unknownOption(token.rawName, command, help);
    const option: { type: string; multiple?: boolean } = OPTIONS[token.name as keyof typeof OPTIONS];
    const { type } = option;
    // The parser keeps the last silently: `diff --acl old.yaml --acl new.yaml` meant --acl-new.
    if (given.has(token.name) && option.multiple !== true) throw new UsageError(`--${token.name} is given twice; give it once ${help}`, { helped: true });
    given.add(token.name);
    if (type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value, got ${token.rawName}=${token.value} ${help}`, { helped: true });
    if (type === 'string') {
      const wanted = `${token.rawName} ${valueHint(command, token.name)}`;
      if (token.value === undefined || (token.value === '' && !MAY_BE_EMPTY.has(token.name))) throw new UsageError(`${token.rawName} needs a value: ${wanted} ${help}`, { helped: true });
      // What the strict parser calls ambiguous: `--openapi --acl x` is far more often a forgotten value than a file named --acl.
      if (!token.inlineValue && token.value.length > 1 && token.value.startsWith('-')) {
        throw new UsageError(`${token.rawName} needs a value: ${wanted}; it is followed by the option ${token.value} (write ${token.rawName}=${token.value} if that is the value) ${help}`, { helped: true });
      }
    }
  }
  return { values: values as Values, positionals };
}

function unknownOption(rawName: string, command: string | undefined, help: string): UsageError {
  // Long options only: one letter is too little to guess from.
  const name = rawName.startsWith('--') ? rawName.slice(2) : undefined;
  const known = command === undefined ? Object.keys(OPTIONS) : [...COMMANDS[command]!.options.map(([flag]) => optionName(flag)), ...EVERYWHERE];
  const closest = name === undefined ? undefined : guessOption(name.toLowerCase(), known);
  return closest === undefined ? new UsageError(`unknown option ${rawName} ${help}`, { helped: true }) : new UsageError(`unknown option ${rawName}; did you mean --${closest}?`, { helped: true });
}

/**
 * The option meant: a few edits away (`--htm`, `--HTML`, `--aclnew`), else the one option whose
 * name holds the name given or is held in it (`--claims` for --token-claims, `--output` for --out).
 */
function guessOption(name: string, known: string[]): string | undefined {
  const near = closestName(name, known, Math.max(2, Math.floor(name.length / 3)));
  if (near !== undefined || name.length < 3) return near;
  const holding = known.filter((option) => option.includes(name) || name.includes(option));
  return holding.length === 1 ? holding[0] : undefined;
}

/** `--openapi <file>` -> `openapi`. */
export function optionName(flag: string): string {
  return flag.slice(2).split(' ')[0]!;
}

/** What the command's help writes after the option (`<file>`, `seed|none`), else `<value>`. */
function valueHint(command: string | undefined, name: string): string {
  const flag = command === undefined ? undefined : COMMANDS[command]!.options.find(([candidate]) => optionName(candidate) === name)?.[0];
  return flag?.slice(name.length + 3) || '<value>';
}
